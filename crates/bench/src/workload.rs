//! The simulated server: sessions running sysbench-like statements against T tables.
//!
//! * A read statement takes SR on its table.
//! * A write statement takes GLOBAL IX (statement) and SW on its table; the commit of a
//!   transaction that wrote takes COMMIT IX.
//! * A DDL commits the open transaction (implicit commit), takes GLOBAL IX, BACKUP_LOCK IX,
//!   SCHEMA IX and SU on its table, upgrades SU to X, does its work and commits.
//!
//! Each statement holds its locks while it does [`Workload::work_ns`] of calibrated CPU work
//! ([`crate::work`]), then releases its statement locks; table locks are transactional, so in
//! transaction mode (`trx_size` statements per transaction) a table read again in the same
//! transaction finds the ticket the context already holds (MySQL's `find_ticket`).
//!
//! The server also reports statement and table I/O events through `pfs` ([`crate::instr`]), so
//! instrumentation presets mean what they meant for MySQL.

use fastrand::Rng;
use serde::Serialize;

use crate::instr;
use crate::peers::{Abort, Dur, KeySpace, Mode, Session, BACKUP, COMMIT, GLOBAL, SCHEMA};
use crate::work::Work;

/// What the statements do.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Mix {
    /// sysbench OLTP_RO point-selects: reads only.
    PointSelect,
    /// Reads and writes; `write_pct` percent of statements write.
    ReadWrite {
        /// Percentage of write statements.
        write_pct: u32,
    },
    /// Reads and writes, and one DDL every `ddl_every` statements (per session, on average).
    ReadWriteDdl {
        /// Percentage of write statements.
        write_pct: u32,
        /// Mean statements between two DDLs of a session.
        ddl_every: u32,
    },
}

impl Mix {
    /// sysbench's read-write ratio: 4 writes in 18 statements, about 22%.
    pub const READ_WRITE: Mix = Mix::ReadWrite { write_pct: 22 };
    /// Read-write with a DDL every 5000 statements per session.
    pub const READ_WRITE_DDL: Mix = Mix::ReadWriteDdl {
        write_pct: 22,
        ddl_every: 5000,
    };

    /// A short name.
    pub fn name(&self) -> &'static str {
        match self {
            Mix::PointSelect => "point-select",
            Mix::ReadWrite { .. } => "read-write",
            Mix::ReadWriteDdl { .. } => "read-write+DDL",
        }
    }
}

/// Which table a statement touches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Access {
    /// Every table equally likely.
    Uniform,
    /// `pct` percent of statements hit the first table, the rest are uniform.
    HotSpot {
        /// Percentage on the hot table.
        pct: u32,
    },
}

/// A workload: tables, mix, transaction size and work per statement.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Workload {
    /// Number of tables (sysbench `--tables`, default 8).
    pub tables: usize,
    /// Statement mix.
    pub mix: Mix,
    /// Table choice.
    pub access: Access,
    /// Statements per transaction (1 = autocommit).
    pub trx_size: u32,
    /// CPU work per statement, in nanoseconds, done while holding the locks.
    pub work_ns: u64,
}

impl Default for Workload {
    /// Autocommit point-selects on 8 tables, 1 µs of work each.
    fn default() -> Self {
        Workload {
            tables: 8,
            mix: Mix::PointSelect,
            access: Access::Uniform,
            trx_size: 1,
            work_ns: 1_000,
        }
    }
}

/// A statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statement {
    /// SELECT on table i.
    Read(usize),
    /// INSERT/UPDATE/DELETE on table i.
    Write(usize),
    /// ALTER TABLE on table i.
    Ddl(usize),
}

impl Statement {
    /// What the statement does, for its instrumentation event.
    pub fn kind(self) -> instr::StatementKind {
        match self {
            Statement::Read(_) => instr::StatementKind::Select,
            Statement::Write(_) => instr::StatementKind::Update,
            Statement::Ddl(_) => instr::StatementKind::AlterTable,
        }
    }
}

impl Workload {
    /// The key space of this workload.
    pub fn keys(&self) -> KeySpace {
        KeySpace::sysbench(self.tables)
    }

    /// Draws the next statement.
    #[inline]
    pub fn next_statement(&self, rng: &mut Rng) -> Statement {
        let table = match self.access {
            Access::HotSpot { pct } if rng.u64(..100) < u64::from(pct) => 0,
            _ => rng.usize(..self.tables),
        };
        match self.mix {
            Mix::PointSelect => Statement::Read(table),
            Mix::ReadWrite { write_pct } => {
                if rng.u64(..100) < u64::from(write_pct) {
                    Statement::Write(table)
                } else {
                    Statement::Read(table)
                }
            }
            Mix::ReadWriteDdl {
                write_pct,
                ddl_every,
            } => {
                if rng.u64(..u64::from(ddl_every.max(1))) == 0 {
                    Statement::Ddl(table)
                } else if rng.u64(..100) < u64::from(write_pct) {
                    Statement::Write(table)
                } else {
                    Statement::Read(table)
                }
            }
        }
    }
}

/// One session's driver: its transaction state between statements.
pub struct Driver<'w, S: Session> {
    /// The lock manager session.
    pub session: S,
    wl: &'w Workload,
    keys: KeySpace,
    work: Work,
    in_trx: u32,
    wrote: bool,
    /// Transactions rolled back because a lock wait failed.
    pub aborts: u64,
}

impl<'w, S: Session> Driver<'w, S> {
    /// A driver for `session`, with `work` calibrated for `wl.work_ns`.
    pub fn new(session: S, wl: &'w Workload, work: Work) -> Self {
        Driver {
            session,
            keys: wl.keys(),
            wl,
            work,
            in_trx: 0,
            wrote: false,
            aborts: 0,
        }
    }

    fn commit(&mut self) -> Result<(), Abort> {
        if self.wrote {
            self.session.acquire(COMMIT, Mode::IX, Dur::Statement)?;
        }
        self.session.end_transaction();
        self.in_trx = 0;
        self.wrote = false;
        Ok(())
    }

    fn rollback(&mut self) {
        self.session.end_transaction();
        self.in_trx = 0;
        self.wrote = false;
        self.aborts += 1;
    }

    fn body(&mut self, st: Statement) -> Result<(), Abort> {
        let s = &mut self.session;
        match st {
            Statement::Read(t) => {
                s.acquire(self.keys.table(t), Mode::SR, Dur::Transaction)?;
                let _ev = instr::table_io(t, false);
                self.work.run();
            }
            Statement::Write(t) => {
                s.acquire(GLOBAL, Mode::IX, Dur::Statement)?;
                s.acquire(self.keys.table(t), Mode::SW, Dur::Transaction)?;
                self.wrote = true;
                let _ev = instr::table_io(t, true);
                self.work.run();
            }
            Statement::Ddl(t) => {
                let k = self.keys.table(t);
                s.acquire(GLOBAL, Mode::IX, Dur::Statement)?;
                s.acquire(BACKUP, Mode::IX, Dur::Transaction)?;
                s.acquire(SCHEMA, Mode::IX, Dur::Transaction)?;
                s.acquire(k, Mode::SU, Dur::Transaction)?;
                s.upgrade_to_x(k)?;
                self.work.run();
            }
        }
        s.end_statement();
        Ok(())
    }

    /// Runs one statement (with the commit that follows it in autocommit mode, or at the end of
    /// a transaction). Returns whether it completed (false: rolled back).
    #[inline]
    pub fn step(&mut self, rng: &mut Rng) -> bool {
        let st = self.wl.next_statement(rng);
        let _ev = instr::statement(st.kind());
        if let Statement::Ddl(_) = st {
            if self.in_trx > 0 && self.commit().is_err() {
                self.rollback();
                return false;
            }
            let ok = self.body(st).is_ok() && self.commit().is_ok();
            if !ok {
                self.rollback();
            }
            return ok;
        }
        if self.body(st).is_err() {
            self.rollback();
            return false;
        }
        self.in_trx += 1;
        if self.in_trx >= self.wl.trx_size && self.commit().is_err() {
            self.rollback();
            return false;
        }
        true
    }

    /// Ends the open transaction (at the end of a run).
    pub fn finish(&mut self) {
        if self.commit().is_err() {
            self.rollback();
        }
    }
}

/// The schema-dump scenario (`mysqldump --no-data`, Bug #83143): one context takes a READ lock
/// on each of `tables` tables, one after another, in one transaction. Returns nanoseconds per
/// lock. The keys and requests are built before the clock starts.
pub fn schema_dump(setup: &crate::peers::MdlSetup, tables: usize) -> f64 {
    use mdl_core::{LockDuration, LockType, MdlKey, MdlManager, MdlRequest, Namespace};
    let mgr = MdlManager::new(setup.config()).expect("valid config");
    let reqs: Vec<MdlRequest> = (0..tables)
        .map(|i| {
            let key = MdlKey::new(Namespace::Table, "db", &format!("t{i}")).expect("short");
            MdlRequest::new(key, LockType::SharedRead, LockDuration::Transaction)
        })
        .collect();
    let mut ctx = mgr.new_context();
    let t0 = std::time::Instant::now();
    for r in &reqs {
        ctx.acquire(r, mdl_core::LONG_TIMEOUT)
            .expect("nobody else holds locks");
    }
    let el = t0.elapsed();
    ctx.release_transactional_locks();
    el.as_nanos() as f64 / tables as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::peers::{LockTable, MdlSetup, MdlTable};

    #[test]
    fn mixes_draw_what_they_say() {
        let mut rng = Rng::with_seed(7);
        let wl = Workload {
            mix: Mix::ReadWriteDdl {
                write_pct: 50,
                ddl_every: 10,
            },
            ..Workload::default()
        };
        let (mut r, mut w, mut d) = (0, 0, 0);
        for _ in 0..10_000 {
            match wl.next_statement(&mut rng) {
                Statement::Read(t) | Statement::Write(t) | Statement::Ddl(t) if t >= wl.tables => {
                    panic!("table out of range")
                }
                Statement::Read(_) => r += 1,
                Statement::Write(_) => w += 1,
                Statement::Ddl(_) => d += 1,
            }
        }
        assert!((700..1300).contains(&d), "{d} DDLs");
        assert!(r > 3000 && w > 3000, "{r} reads, {w} writes");
    }

    #[test]
    fn a_transactional_driver_runs_every_statement_kind() {
        let wl = Workload {
            mix: Mix::ReadWriteDdl {
                write_pct: 30,
                ddl_every: 20,
            },
            trx_size: 5,
            work_ns: 0,
            ..Workload::default()
        };
        let t = MdlTable::new(&MdlSetup::default(), &wl.keys());
        let mut d = Driver::new(t.session(), &wl, Work::calibrate(0));
        let mut rng = Rng::with_seed(1);
        for _ in 0..2_000 {
            assert!(d.step(&mut rng));
        }
        d.finish();
        assert_eq!(d.aborts, 0);
        assert_eq!(t.manager().slow_path_locks().len(), 0);
    }

    #[test]
    fn schema_dump_takes_every_lock() {
        let ns = schema_dump(&MdlSetup::default(), 300);
        assert!(ns > 0.0);
    }
}

//! A byte-driven, single-threaded differential driver: decodes arbitrary bytes into a
//! configuration and a sequence of operations over three contexts, runs them through the real
//! manager and through [`Model`], and reports the first disagreement. Used by the cargo-fuzz
//! target (`crates/mdl-core/fuzz`), `mdl-core`'s `tests/fuzz_regressions.rs` and
//! `mdl-check fuzz`.
//!
//! Encoding: the first byte is the configuration (fast-path mode, ticket index,
//! `max_write_lock_count`, eviction low water, shards); then every 4 bytes are one operation
//! `[kind, context, ticket or key, type and duration]` (at most 2,000 operations).

use std::time::Duration;

use mdl_core::{
    FastPath, LockDuration, LockType, MdlConfig, MdlContext, MdlKey, MdlManager, MdlRequest,
    MdlSavepoint, Ticket, TicketIndex,
};

use crate::model::{Acquired, Model, Savepoint, TicketId};
use crate::support::sample_keys;
use crate::Kinded;

const CTXS: usize = 3;

/// The first eight sample keys (the encoding picks a key by `byte % 8`).
fn keys() -> Vec<MdlKey> {
    let mut keys = sample_keys();
    keys.truncate(8);
    keys
}

struct Driver {
    model: Model,
    ctxs: Vec<MdlContext>,
    real: Vec<Option<Ticket>>,
    sps: Vec<(Savepoint, MdlSavepoint)>,
    keys: Vec<MdlKey>,
    mgr: std::sync::Arc<MdlManager>,
}

fn ty(b: u8) -> LockType {
    LockType::ALL[b as usize % 11]
}

fn dur(b: u8) -> LockDuration {
    LockDuration::ALL[b as usize % 3]
}

macro_rules! same {
    ($a:expr, $b:expr, $what:expr) => {{
        let (a, b) = (&$a, &$b);
        if a != b {
            return Err(format!("{}: real {:?} != model {:?}", $what, a, b));
        }
    }};
}

impl Driver {
    fn pick(&self, ctx: usize, b: u8) -> Option<(TicketId, Ticket)> {
        // High bit: any ticket ever issued (foreign or released); else the context's own.
        let cands: Vec<TicketId> = if b & 0x80 != 0 {
            (0..self.real.len())
                .filter(|&t| self.real[t].is_some())
                .collect()
        } else {
            self.model.live(ctx)
        };
        if cands.is_empty() {
            return None;
        }
        let t = cands[(b & 0x7f) as usize % cands.len()];
        Some((t, self.real[t]?))
    }

    fn map(&mut self, t: TicketId, r: Ticket) {
        if self.real.len() <= t {
            self.real.resize(t + 1, None);
        }
        self.real[t] = Some(r);
    }

    fn step(&mut self, op: [u8; 4]) -> Result<(), String> {
        let ctx = op[1] as usize % CTXS;
        let what = format!("op {op:?}");
        match op[0] % 12 {
            0..=3 => {
                let key = self.keys[op[2] as usize % self.keys.len()].clone();
                let (t, d) = (ty(op[3]), dur(op[3] / 11));
                let r = self.ctxs[ctx].try_acquire(&MdlRequest::new(key.clone(), t, d));
                let m = self.model.try_acquire(ctx, &key, t, d);
                match (r, m) {
                    (Ok(Some(r)), Ok(Acquired::Same(m))) => same!(Some(r), self.real[m], what),
                    (Ok(Some(r)), Ok(Acquired::New(m))) => self.map(m, r),
                    (Ok(None), Ok(Acquired::NotGranted)) => {}
                    (Err(a), Err(b)) => same!(a.kind(), b, what),
                    (r, m) => return Err(format!("{what} {key:?} {t:?} {d:?}: {r:?} vs {m:?}")),
                }
            }
            4 => {
                if let Some((t, r)) = self.pick(ctx, op[2]) {
                    same!(
                        self.ctxs[ctx].release(r).kinded(),
                        self.model.release(ctx, t),
                        what
                    );
                }
            }
            5 => {
                if let Some((t, r)) = self.pick(ctx, op[2]) {
                    let real = self.ctxs[ctx]
                        .upgrade(r, ty(op[3]), Duration::ZERO)
                        .kinded();
                    same!(real, self.model.try_upgrade(ctx, t, ty(op[3])), what);
                }
            }
            6 => {
                if let Some((t, r)) = self.pick(ctx, op[2]) {
                    let real = self.ctxs[ctx].downgrade(r, ty(op[3])).kinded();
                    same!(real, self.model.downgrade(ctx, t, ty(op[3])), what);
                }
            }
            7 => {
                if let Some((t, r)) = self.pick(ctx, op[2]) {
                    let (ty, d) = (ty(op[3]), dur(op[3] / 11));
                    let real = self.ctxs[ctx].clone_ticket(r, ty, d);
                    let m = self.model.clone_ticket(ctx, t, ty, d);
                    match (real, m) {
                        (Ok(r), Ok(m)) => self.map(m, r),
                        (r, m) => same!(r.err().kinded(), m.err(), what),
                    }
                }
            }
            8 => {
                if op[2].is_multiple_of(2) || self.sps.is_empty() {
                    let sp = (self.model.savepoint(ctx), self.ctxs[ctx].savepoint());
                    self.sps.push(sp);
                } else {
                    let (m, r) = self.sps[op[3] as usize % self.sps.len()];
                    let real = self.ctxs[ctx].rollback_to_savepoint(r).kinded();
                    same!(real, self.model.rollback_to_savepoint(ctx, m), what);
                }
            }
            9 => {
                if op[2].is_multiple_of(2) {
                    self.ctxs[ctx].release_statement_locks();
                    self.model.release_statement_locks(ctx);
                } else {
                    self.ctxs[ctx].release_transactional_locks();
                    self.model.release_transactional_locks(ctx);
                }
            }
            10 => {
                if let Some((t, r)) = self.pick(ctx, op[2]) {
                    let real = self.ctxs[ctx].set_lock_duration(r, dur(op[3])).kinded();
                    same!(real, self.model.set_lock_duration(ctx, t, dur(op[3])), what);
                }
            }
            _ => {
                if let Some((t, r)) = self.pick(ctx, op[2]) {
                    if op[3].is_multiple_of(2) {
                        let real = self.ctxs[ctx].release_all_locks_for_name(r).kinded();
                        same!(real, self.model.release_all_for_name(ctx, t), what);
                    } else if !self.sps.is_empty() {
                        let (m, s) = self.sps[op[3] as usize % self.sps.len()];
                        let real = self.ctxs[ctx].has_lock(s, r).kinded();
                        same!(real, self.model.has_lock(ctx, m, t), what);
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<(), String> {
        for ctx in 0..CTXS {
            let live = self.model.live(ctx);
            same!(
                self.ctxs[ctx].lock_count(),
                live.len(),
                format!("lock_count {ctx}")
            );
            for t in live {
                let Some(r) = self.real.get(t).copied().flatten() else {
                    return Err(format!("model ticket {t} has no real handle"));
                };
                let m = &self.model.tickets[t];
                match self.ctxs[ctx].ticket_info(r) {
                    Ok(i) => same!(
                        (i.key, i.lock_type, i.duration),
                        (m.key.clone(), m.ty, m.duration),
                        format!("ticket {t}")
                    ),
                    Err(e) => return Err(format!("ticket {t} lost: {e:?}")),
                }
            }
        }
        let mgr = self.mgr.clone();
        drop(self.ctxs);
        same!(mgr.slow_path_locks().len(), 0, "slow-path entries left");
        same!(
            mgr.unused_lock_object_count(),
            mgr.lock_object_count(),
            "unused lock objects"
        );
        Ok(())
    }
}

/// Runs the operations encoded in `data`; `Err` describes the first disagreement.
pub fn run_bytes(data: &[u8]) -> Result<(), String> {
    let Some((&cfg, ops)) = data.split_first() else {
        return Ok(());
    };
    let max_wlc = [1, 2, 3, u64::MAX][(cfg >> 2) as usize % 4];
    let mgr = MdlManager::new(
        MdlConfig::builder()
            .fast_path(
                FastPath::ALL[(usize::from(cfg & 1) + usize::from(cfg >> 6)) % FastPath::ALL.len()],
            )
            .ticket_index(if cfg & 2 != 0 {
                TicketIndex::Hashed
            } else {
                TicketIndex::LinearList
            })
            .max_write_lock_count(max_wlc)
            .unused_locks_low_water([0, 4, 1000, 1000][(cfg >> 4) as usize % 4])
            .shards(if cfg & 0x40 != 0 { 1 } else { 8 })
            .build()
            .expect("a valid configuration"),
    )
    .map_err(|e| format!("{e:?}"))?;
    let mut d = Driver {
        model: Model::new(CTXS, max_wlc),
        ctxs: (0..CTXS).map(|_| mgr.new_context()).collect(),
        real: Vec::new(),
        sps: Vec::new(),
        keys: keys(),
        mgr,
    };
    for chunk in ops.chunks_exact(4).take(2000) {
        d.step([chunk[0], chunk[1], chunk[2], chunk[3]])?;
    }
    d.finish()
}

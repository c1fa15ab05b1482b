//! The simulated server's own instrumentation points (statement and table I/O events, through
//! `pfs`) and the instrumentation modes the reports compare.
//!
//! * [`statement`] starts a `statement/sql/{select,update,alter_table}` event with its digest
//!   (`SELECT c FROM sbtest? WHERE id = ?`, ...), as MySQL does for every statement.
//! * [`table_io`] starts a `wait/io/table/sql/handler` event on the statement's table (a fetch
//!   for reads, an update for writes), as the handler layer does for each row operation.
//! * [`apply`] maps each [`InstrMode`] to a `pfs` preset, so `tables` and `statements` mean what
//!   they meant in the published runs. The lock manager's own instruments (partition mutexes,
//!   lock-object rwlocks, metadata-lock waits) follow the same presets.
//!
//! [`InstrMode::CompiledOut`] is a build, not a switch: `mdl-bench` built with
//! `--no-default-features` has `pfs` without its `instrumentation` feature (every call above is
//! a no-op the compiler removes) and `mdl-core` without its `pfs` feature.

use pfs::{ClassKind, DigestRef, Operation, Preset};
use serde::Serialize;

/// An instrumentation mode, as in the published Performance Schema runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum InstrMode {
    /// Instrumentation not compiled in (the bench built with `--no-default-features`).
    CompiledOut,
    /// Compiled in, `performance_schema=OFF`.
    Off,
    /// ON, every instrument and consumer disabled.
    None,
    /// Only table I/O and table lock waits.
    Tables,
    /// Only statements (with digests).
    Statements,
    /// MySQL 8.0's defaults.
    Default,
    /// Every instrument counted, none timed.
    Counters,
    /// Defaults plus every `wait/synch/%` instrument, timed.
    Synch,
}

impl InstrMode {
    /// Every mode, in the order of the published tables.
    pub const ALL: [InstrMode; 8] = [
        InstrMode::CompiledOut,
        InstrMode::Off,
        InstrMode::None,
        InstrMode::Tables,
        InstrMode::Statements,
        InstrMode::Default,
        InstrMode::Counters,
        InstrMode::Synch,
    ];

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            InstrMode::CompiledOut => "compiled-out",
            InstrMode::Off => "off",
            InstrMode::None => "none",
            InstrMode::Tables => "tables",
            InstrMode::Statements => "statements",
            InstrMode::Default => "default",
            InstrMode::Counters => "counters",
            InstrMode::Synch => "synch",
        }
    }

    /// The mode other reports run in: off when instrumentation is compiled in, else compiled
    /// out.
    pub fn baseline() -> InstrMode {
        if COMPILED_IN {
            InstrMode::Off
        } else {
            InstrMode::CompiledOut
        }
    }

    /// The mode named `name`.
    pub fn from_name(name: &str) -> Option<InstrMode> {
        InstrMode::ALL.into_iter().find(|m| m.name() == name)
    }

    fn preset(self) -> Option<Preset> {
        match self {
            InstrMode::CompiledOut => None,
            InstrMode::Off => Some(Preset::Off),
            InstrMode::None => Some(Preset::None),
            InstrMode::Tables => Some(Preset::Tables),
            InstrMode::Statements => Some(Preset::Statements),
            InstrMode::Default => Some(Preset::Default),
            InstrMode::Counters => Some(Preset::Counters),
            InstrMode::Synch => Some(Preset::Synch),
        }
    }
}

/// Whether instrumentation is compiled into this binary.
pub const COMPILED_IN: bool = cfg!(feature = "pfs");

/// Whether this binary can run `mode`: [`InstrMode::CompiledOut`] only in a build without the
/// `pfs` feature, every other mode only in a build with it.
pub fn available(mode: InstrMode) -> bool {
    (mode == InstrMode::CompiledOut) != COMPILED_IN
}

/// Switches the process to `mode` (a `pfs` preset) and clears the statistics.
///
/// # Errors
/// A message when the mode is not available in this build.
pub fn apply(mode: InstrMode) -> Result<(), String> {
    if !available(mode) {
        return Err(format!(
            "instrumentation mode `{}` is not available in this build ({})",
            mode.name(),
            if COMPILED_IN {
                "instrumentation compiled in"
            } else {
                "instrumentation compiled out"
            }
        ));
    }
    if let Some(p) = mode.preset() {
        pfs::apply_preset(p);
        pfs::truncate_all();
    }
    Ok(())
}

fn digests() -> &'static [DigestRef; 3] {
    static D: std::sync::OnceLock<[DigestRef; 3]> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        [
            pfs::register_digest("SELECT c FROM sbtest? WHERE id = ?"),
            pfs::register_digest("UPDATE sbtest? SET k = k + ? WHERE id = ?"),
            pfs::register_digest("ALTER TABLE sbtest? ENGINE = ?"),
        ]
    })
}

/// What a statement of the simulated server does, for its event's class and digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementKind {
    /// `statement/sql/select`.
    Select,
    /// `statement/sql/update`.
    Update,
    /// `statement/sql/alter_table`.
    AlterTable,
}

/// Starts the event of a statement of `kind`; it ends when the guard drops.
#[inline(always)]
pub fn statement(kind: StatementKind) -> pfs::StatementGuard {
    match kind {
        StatementKind::Select => pfs::statement_start(
            pfs::class!(ClassKind::Statement, "statement/sql/select"),
            Some(digests()[0]),
        ),
        StatementKind::Update => pfs::statement_start(
            pfs::class!(ClassKind::Statement, "statement/sql/update"),
            Some(digests()[1]),
        ),
        StatementKind::AlterTable => pfs::statement_start(
            pfs::class!(ClassKind::Statement, "statement/sql/alter_table"),
            Some(digests()[2]),
        ),
    }
}

/// Starts a table I/O event on table `t` (a fetch, or an update when `write`).
#[inline(always)]
pub fn table_io(t: usize, write: bool) -> pfs::WaitGuard {
    pfs::wait_start_op(
        pfs::class!(ClassKind::TableIo, "wait/io/table/sql/handler"),
        if write {
            Operation::Update
        } else {
            Operation::Fetch
        },
        t + 1,
    )
}

/// `(OBJECT_INSTANCE_BEGIN, COUNT_STAR, SUM_TIMER_WAIT in ps)` of every instance of the
/// instruments matching `pattern` (empty when instrumentation is compiled out).
pub fn waits_by_instance(pattern: &str) -> Vec<(u64, u64, u64)> {
    match pfs::events_waits_summary_by_instance_like(pattern) {
        Ok(t) => t
            .rows
            .iter()
            .map(|r| {
                (
                    r.object_instance_begin,
                    r.stats.count_star,
                    r.stats.sum_timer_wait,
                )
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The `n` instruments with the most waited time, as text (`sys.waits_global_by_latency`).
pub fn top_waits(n: usize) -> String {
    pfs::top_waits(n).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_round_trip_and_apply() {
        for m in InstrMode::ALL {
            assert_eq!(InstrMode::from_name(m.name()), Some(m));
            assert_eq!(apply(m).is_ok(), available(m));
        }
        let _s = statement(StatementKind::Select);
        let _t = table_io(0, false);
    }
}

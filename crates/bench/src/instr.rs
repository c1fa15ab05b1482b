//! The simulated server's own instrumentation points (statement and table I/O events) and the
//! instrumentation modes the reports compare.
//!
//! STATUS: the `pfs` crate is not usable yet, so the hooks are empty and every mode other than
//! [`InstrMode::CompiledOut`] is reported as unavailable ([`available`]); the `pfs-overhead`,
//! `amplification` and `contention` reports refuse to run rather than print numbers that
//! measure nothing. When `pfs` lands, [`statement`] and [`table_io`] start the
//! `statement/sql/select` and `wait/io/table/sql/handler` events and [`apply`] maps each mode to
//! a `pfs` preset; nothing else in the bench crate changes.

use serde::Serialize;

use crate::workload::Statement;

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
    /// Only statements.
    Statements,
    /// The defaults.
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
}

/// Whether this binary can run `mode`.
pub fn available(mode: InstrMode) -> bool {
    mode == InstrMode::CompiledOut && !cfg!(feature = "pfs")
}

/// Whether the instrumentation crate is usable in this build.
pub fn pfs_usable() -> bool {
    false
}

/// Switches the process to `mode`.
///
/// # Errors
/// A message when the mode is not available in this build.
pub fn apply(mode: InstrMode) -> Result<(), String> {
    if available(mode) {
        Ok(())
    } else {
        Err(format!(
            "instrumentation mode `{}` needs the pfs crate, which is not usable yet",
            mode.name()
        ))
    }
}

/// A statement event in progress; it ends when dropped.
pub struct StatementEvent;

/// A table I/O event in progress; it ends when dropped.
pub struct TableIoEvent;

/// Starts the event of statement `st`.
#[inline(always)]
pub fn statement(_st: Statement) -> StatementEvent {
    StatementEvent
}

/// Starts a table I/O event on table `t`.
#[inline(always)]
pub fn table_io(_t: usize) -> TableIoEvent {
    TableIoEvent
}

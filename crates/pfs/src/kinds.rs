//! Plain enums shared by the instrumented and the no-op builds: instrument kinds, event
//! families, consumers, presets, wait operations and clocks. Names, defaults and the consumer
//! hierarchy follow MySQL 8.0: the instrument tree's top element names the event type
//! (`wait/synch/mutex/...`, `wait/lock/metadata/sql/mdl`, `statement/...`; MySQL 8.0 Reference
//! Manual, "Performance Schema Instrument Naming Conventions"), an instrument has ENABLED and
//! TIMED switches ("The setup_instruments Table"), and a consumer set to NO turns off every
//! consumer below it ("Example Consumer Configurations").

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::error::PfsError;

/// What an instrument class measures. The kind picks the event family (waits, stages or
/// statements: the consumers and the timer of `setup_timers`) and whether the class has
/// instances with their own stats (mutex, rwlock, cond).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ClassKind {
    /// `wait/synch/mutex/...`
    Mutex,
    /// `wait/synch/rwlock/...` and `wait/synch/prlock/...`
    RwLock,
    /// `wait/synch/cond/...`
    Cond,
    /// `wait/lock/metadata/sql/mdl`
    Metadata,
    /// `wait/io/table/...`
    TableIo,
    /// `wait/lock/table/...`
    TableLock,
    /// `statement/...`
    Statement,
    /// `stage/...`
    Stage,
    /// `idle`
    Idle,
    /// `transaction`: a session's transactions (`events_transactions_*`).
    Transaction,
}

impl ClassKind {
    /// All kinds, in declaration order.
    pub const ALL: [ClassKind; 10] = [
        ClassKind::Mutex,
        ClassKind::RwLock,
        ClassKind::Cond,
        ClassKind::Metadata,
        ClassKind::TableIo,
        ClassKind::TableLock,
        ClassKind::Statement,
        ClassKind::Stage,
        ClassKind::Idle,
        ClassKind::Transaction,
    ];

    /// Does this kind feed the `events_waits_*` tables (everything but statements and stages)?
    pub const fn is_wait(self) -> bool {
        !matches!(
            self,
            ClassKind::Statement | ClassKind::Stage | ClassKind::Transaction
        )
    }

    /// Do classes of this kind have instances (one per lock object) with their own stats?
    pub const fn has_instances(self) -> bool {
        matches!(self, ClassKind::Mutex | ClassKind::RwLock | ClassKind::Cond)
    }

    /// The event family: its consumers and its timer.
    pub const fn family(self) -> EventFamily {
        match self {
            ClassKind::Statement => EventFamily::Statement,
            ClassKind::Stage => EventFamily::Stage,
            ClassKind::Idle => EventFamily::Idle,
            ClassKind::Transaction => EventFamily::Transaction,
            _ => EventFamily::Wait,
        }
    }

    /// The default clock of this kind: its family's (see [`EventFamily::default_clock`]).
    pub const fn clock(self) -> Clock {
        self.family().default_clock()
    }

    /// Is instrumentation for this kind compiled into this build (cargo features)?
    /// `false` means classes of this kind are never enabled, whatever the run-time switches say.
    pub const fn compiled(self) -> bool {
        match self {
            ClassKind::Mutex => cfg!(feature = "mutex"),
            ClassKind::RwLock => cfg!(feature = "rwlock"),
            ClassKind::Cond => cfg!(feature = "cond"),
            ClassKind::Metadata => cfg!(feature = "metadata"),
            _ => cfg!(feature = "instrumentation"),
        }
    }

    /// The default operation recorded for a wait of this kind.
    pub const fn default_operation(self) -> Operation {
        match self {
            ClassKind::Mutex => Operation::Lock,
            ClassKind::RwLock => Operation::WriteLock,
            ClassKind::Cond => Operation::Wait,
            ClassKind::Metadata => Operation::MetadataLock,
            ClassKind::TableIo => Operation::Fetch,
            ClassKind::TableLock => Operation::ReadExternal,
            ClassKind::Statement => Operation::Statement,
            ClassKind::Stage => Operation::Stage,
            ClassKind::Idle => Operation::Idle,
            ClassKind::Transaction => Operation::Transaction,
        }
    }

    /// Position in [`ClassKind::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// The event families of `setup_timers`: each is timed with one clock, chosen at run time
/// ([`crate::set_timer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum EventFamily {
    /// Waits: mutex, rwlock, cond, metadata, table I/O and table lock events.
    Wait,
    /// Stages.
    Stage,
    /// Statements.
    Statement,
    /// Idle events.
    Idle,
    /// Transactions (timed with the statements' clock by default, so that a statement that is
    /// its own transaction lends it its timer readings: `transaction.rs`).
    Transaction,
}

impl EventFamily {
    /// All families, in `setup_timers` order.
    pub const ALL: [EventFamily; 5] = [
        EventFamily::Idle,
        EventFamily::Wait,
        EventFamily::Stage,
        EventFamily::Statement,
        EventFamily::Transaction,
    ];

    /// The `setup_timers.NAME`.
    pub const fn name(self) -> &'static str {
        match self {
            EventFamily::Wait => "wait",
            EventFamily::Stage => "stage",
            EventFamily::Statement => "statement",
            EventFamily::Idle => "idle",
            EventFamily::Transaction => "transaction",
        }
    }

    /// The clock a family starts with: the cycle counter for waits, stages and statements (the
    /// cheapest clock, converted to time on read), nanoseconds for idle (idle events are long).
    /// PFS 8.0 times stages and statements in nanoseconds; here they use the cycle counter too.
    pub const fn default_clock(self) -> Clock {
        match self {
            EventFamily::Idle => Clock::Nanosecond,
            _ => Clock::Cycle,
        }
    }

    /// Position in declaration order (`Wait` = 0).
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// The two clocks. Raw ticks are stored; conversion to picoseconds happens on read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Clock {
    /// The CPU cycle counter (`rdtsc`), or the nanosecond clock where the TSC is not usable.
    Cycle,
    /// `std::time::Instant` relative to a process epoch, in nanoseconds.
    Nanosecond,
}

/// The `OPERATION` column of a wait event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum Operation {
    /// Mutex lock.
    Lock = 1,
    /// Mutex try_lock.
    TryLock,
    /// Rwlock shared lock.
    ReadLock,
    /// Rwlock exclusive lock.
    WriteLock,
    /// Rwlock try shared lock.
    TryReadLock,
    /// Rwlock try exclusive lock.
    TryWriteLock,
    /// Condition wait.
    Wait,
    /// Condition wait with a deadline.
    TimedWait,
    /// Metadata lock wait.
    MetadataLock,
    /// Table row fetch.
    Fetch,
    /// Table row insert.
    Insert,
    /// Table row update.
    Update,
    /// Table row delete.
    Delete,
    /// Table lock, read external.
    ReadExternal,
    /// Table lock, write external.
    WriteExternal,
    /// Table lock, read normal.
    ReadNormal,
    /// Table lock, write normal.
    WriteNormal,
    /// Idle.
    Idle,
    /// A statement (not a wait).
    Statement,
    /// A stage (not a wait).
    Stage,
    /// A transaction (not a wait).
    Transaction,
}

impl Clock {
    /// The `performance_timers.TIMER_NAME`.
    pub const fn name(self) -> &'static str {
        match self {
            Clock::Cycle => "CYCLE",
            Clock::Nanosecond => "NANOSECOND",
        }
    }
}

impl Operation {
    /// The PFS spelling of the operation.
    pub const fn as_str(self) -> &'static str {
        match self {
            Operation::Lock => "lock",
            Operation::TryLock => "try_lock",
            Operation::ReadLock => "read_lock",
            Operation::WriteLock => "write_lock",
            Operation::TryReadLock => "try_read_lock",
            Operation::TryWriteLock => "try_write_lock",
            Operation::Wait => "wait",
            Operation::TimedWait => "timed_wait",
            Operation::MetadataLock => "metadata lock",
            Operation::Fetch => "fetch",
            Operation::Insert => "insert",
            Operation::Update => "update",
            Operation::Delete => "delete",
            Operation::ReadExternal => "read external",
            Operation::WriteExternal => "write external",
            Operation::ReadNormal => "read normal",
            Operation::WriteNormal => "write normal",
            Operation::Idle => "idle",
            Operation::Statement => "statement",
            Operation::Stage => "stage",
            Operation::Transaction => "transaction",
        }
    }

    /// The operation with this `repr(u8)` value.
    pub fn from_u8(v: u8) -> Option<Operation> {
        const ALL: [Operation; 21] = [
            Operation::Lock,
            Operation::TryLock,
            Operation::ReadLock,
            Operation::WriteLock,
            Operation::TryReadLock,
            Operation::TryWriteLock,
            Operation::Wait,
            Operation::TimedWait,
            Operation::MetadataLock,
            Operation::Fetch,
            Operation::Insert,
            Operation::Update,
            Operation::Delete,
            Operation::ReadExternal,
            Operation::WriteExternal,
            Operation::ReadNormal,
            Operation::WriteNormal,
            Operation::Idle,
            Operation::Statement,
            Operation::Stage,
            Operation::Transaction,
        ];
        ALL.iter().copied().find(|o| *o as u8 == v)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The consumers of `setup_consumers`, with PFS's hierarchy:
///
/// ```text
/// global_instrumentation
///  thread_instrumentation
///    events_waits_current      -> events_waits_history, events_waits_history_long
///    events_stages_current     -> events_stages_history, events_stages_history_long
///    events_statements_current -> events_statements_history, events_statements_history_long
///  statements_digest
/// ```
///
/// A consumer is effective only when it and all its ancestors are enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Consumer {
    /// `events_stages_current`
    EventsStagesCurrent,
    /// `events_stages_history`
    EventsStagesHistory,
    /// `events_stages_history_long`
    EventsStagesHistoryLong,
    /// `events_statements_current`
    EventsStatementsCurrent,
    /// `events_statements_history`
    EventsStatementsHistory,
    /// `events_statements_history_long`
    EventsStatementsHistoryLong,
    /// `events_transactions_current`.
    EventsTransactionsCurrent,
    /// `events_transactions_history`.
    EventsTransactionsHistory,
    /// `events_transactions_history_long`.
    EventsTransactionsHistoryLong,
    /// `events_waits_current`
    EventsWaitsCurrent,
    /// `events_waits_history`
    EventsWaitsHistory,
    /// `events_waits_history_long`
    EventsWaitsHistoryLong,
    /// `global_instrumentation`: nothing is collected without it.
    GlobalInstrumentation,
    /// `thread_instrumentation`: per-thread summaries and all `events_*` consumers.
    ThreadInstrumentation,
    /// `statements_digest`: `events_statements_summary_by_digest`.
    StatementsDigest,
}

impl Consumer {
    /// All consumers, in `setup_consumers` order.
    pub const ALL: [Consumer; 15] = [
        Consumer::EventsStagesCurrent,
        Consumer::EventsStagesHistory,
        Consumer::EventsStagesHistoryLong,
        Consumer::EventsStatementsCurrent,
        Consumer::EventsStatementsHistory,
        Consumer::EventsStatementsHistoryLong,
        Consumer::EventsTransactionsCurrent,
        Consumer::EventsTransactionsHistory,
        Consumer::EventsTransactionsHistoryLong,
        Consumer::EventsWaitsCurrent,
        Consumer::EventsWaitsHistory,
        Consumer::EventsWaitsHistoryLong,
        Consumer::GlobalInstrumentation,
        Consumer::ThreadInstrumentation,
        Consumer::StatementsDigest,
    ];

    /// The `setup_consumers.NAME`.
    pub const fn name(self) -> &'static str {
        match self {
            Consumer::EventsStagesCurrent => "events_stages_current",
            Consumer::EventsStagesHistory => "events_stages_history",
            Consumer::EventsStagesHistoryLong => "events_stages_history_long",
            Consumer::EventsStatementsCurrent => "events_statements_current",
            Consumer::EventsStatementsHistory => "events_statements_history",
            Consumer::EventsStatementsHistoryLong => "events_statements_history_long",
            Consumer::EventsTransactionsCurrent => "events_transactions_current",
            Consumer::EventsTransactionsHistory => "events_transactions_history",
            Consumer::EventsTransactionsHistoryLong => "events_transactions_history_long",
            Consumer::EventsWaitsCurrent => "events_waits_current",
            Consumer::EventsWaitsHistory => "events_waits_history",
            Consumer::EventsWaitsHistoryLong => "events_waits_history_long",
            Consumer::GlobalInstrumentation => "global_instrumentation",
            Consumer::ThreadInstrumentation => "thread_instrumentation",
            Consumer::StatementsDigest => "statements_digest",
        }
    }

    /// The consumer this one hangs under, if any.
    pub const fn parent(self) -> Option<Consumer> {
        match self {
            Consumer::GlobalInstrumentation => None,
            Consumer::ThreadInstrumentation | Consumer::StatementsDigest => {
                Some(Consumer::GlobalInstrumentation)
            }
            Consumer::EventsStagesCurrent
            | Consumer::EventsStatementsCurrent
            | Consumer::EventsTransactionsCurrent
            | Consumer::EventsWaitsCurrent => Some(Consumer::ThreadInstrumentation),
            Consumer::EventsStagesHistory | Consumer::EventsStagesHistoryLong => {
                Some(Consumer::EventsStagesCurrent)
            }
            Consumer::EventsStatementsHistory | Consumer::EventsStatementsHistoryLong => {
                Some(Consumer::EventsStatementsCurrent)
            }
            Consumer::EventsTransactionsHistory | Consumer::EventsTransactionsHistoryLong => {
                Some(Consumer::EventsTransactionsCurrent)
            }
            Consumer::EventsWaitsHistory | Consumer::EventsWaitsHistoryLong => {
                Some(Consumer::EventsWaitsCurrent)
            }
        }
    }

    /// MySQL 8.0's default: global, thread, statements and transactions current/history, and
    /// digest enabled.
    pub const fn default_enabled(self) -> bool {
        matches!(
            self,
            Consumer::GlobalInstrumentation
                | Consumer::ThreadInstrumentation
                | Consumer::EventsStatementsCurrent
                | Consumer::EventsStatementsHistory
                | Consumer::EventsTransactionsCurrent
                | Consumer::EventsTransactionsHistory
                | Consumer::StatementsDigest
        )
    }

    /// Look a consumer up by its `setup_consumers.NAME` (ASCII case-insensitive).
    pub fn from_name(name: &str) -> Result<Consumer, PfsError> {
        by_name(&Consumer::ALL, Consumer::name, name)
            .ok_or_else(|| PfsError::UnknownConsumer(name.to_string()))
    }

    /// Position in [`Consumer::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The `(current, history, history_long)` consumers of an event family (idle events are
    /// waits here).
    pub const fn of_family(family: EventFamily) -> (Consumer, Consumer, Consumer) {
        match family {
            EventFamily::Statement => (
                Consumer::EventsStatementsCurrent,
                Consumer::EventsStatementsHistory,
                Consumer::EventsStatementsHistoryLong,
            ),
            EventFamily::Stage => (
                Consumer::EventsStagesCurrent,
                Consumer::EventsStagesHistory,
                Consumer::EventsStagesHistoryLong,
            ),
            EventFamily::Transaction => (
                Consumer::EventsTransactionsCurrent,
                Consumer::EventsTransactionsHistory,
                Consumer::EventsTransactionsHistoryLong,
            ),
            EventFamily::Wait | EventFamily::Idle => (
                Consumer::EventsWaitsCurrent,
                Consumer::EventsWaitsHistory,
                Consumer::EventsWaitsHistoryLong,
            ),
        }
    }
}

/// Named configurations, as in the published MySQL 5.6 Performance Schema overhead runs (run B
/// of `BENCHMARKS.md`: off, none, def, tables, statements, synch). `none` is ON with every
/// instrument and consumer disabled; `synch` is the startup option
/// `performance_schema_instrument='%synch%=on'` ("on" enables and times; MySQL 8.0 Reference
/// Manual, "Performance Schema Startup Configuration").
///
/// | preset | master | instruments | consumers |
/// |---|---|---|---|
/// | `off` | OFF (`performance_schema=OFF`) | defaults (inactive) | defaults (inactive) |
/// | `none` | ON | all disabled, untimed | all off |
/// | `default` | ON | MySQL 8.0 defaults | MySQL 8.0 defaults |
/// | `tables` | ON | only `wait/%/table/%` and `wait/io/file/%`, timed | global + thread |
/// | `statements` | ON | only `statement/%`, timed | global + thread + statements_digest |
/// | `counters` | ON | all enabled, none timed | global + thread |
/// | `synch` | ON | defaults + `wait/synch/%` enabled and timed | MySQL 8.0 defaults |
///
/// Every preset also turns the beyond-PFS switches (hold-time stats, histograms) off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Preset {
    /// `performance_schema=OFF`.
    Off,
    /// ON, but every instrument and consumer disabled.
    None,
    /// MySQL 8.0 defaults.
    Default,
    /// Table I/O, table lock and file instruments only.
    Tables,
    /// Statement instruments plus the digest consumer.
    Statements,
    /// Everything enabled, nothing timed.
    Counters,
    /// Defaults plus every `wait/synch/%` instrument enabled and timed.
    Synch,
}

impl Preset {
    /// All presets.
    pub const ALL: [Preset; 7] = [
        Preset::Off,
        Preset::None,
        Preset::Default,
        Preset::Tables,
        Preset::Statements,
        Preset::Counters,
        Preset::Synch,
    ];

    /// The preset's name as accepted by [`Preset::from_name`] and [`Preset::from_str`].
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Off => "off",
            Preset::None => "none",
            Preset::Default => "default",
            Preset::Tables => "tables",
            Preset::Statements => "statements",
            Preset::Counters => "counters",
            Preset::Synch => "synch",
        }
    }

    /// Look a preset up by its name (ASCII case-insensitive); `def` is accepted for `default`.
    pub fn from_name(name: &str) -> Result<Preset, PfsError> {
        if name.trim().eq_ignore_ascii_case("def") {
            return Ok(Preset::Default);
        }
        by_name(&Preset::ALL, Preset::name, name)
            .ok_or_else(|| PfsError::UnknownPreset(name.to_string()))
    }
}

/// The one of `all` whose `name` is `s`, ASCII case-insensitive, surrounding spaces ignored.
fn by_name<T: Copy>(all: &[T], name: fn(T) -> &'static str, s: &str) -> Option<T> {
    all.iter()
        .copied()
        .find(|&v| name(v).eq_ignore_ascii_case(s.trim()))
}

/// `Display` as `name()` and `FromStr` as `from_name` for the named enums.
macro_rules! name_traits {
    ($($t:ident),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $t {
            type Err = PfsError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $t::from_name(s)
            }
        }
    )*};
}

name_traits!(Consumer, Preset);

/// MySQL 8.0's default `(ENABLED, TIMED)` for an instrument name (sys
/// `ps_is_instrument_default_enabled` / `_timed`, plus `wait/lock/metadata/sql/mdl` which 8.0
/// enables by default). Unknown names default to disabled.
pub fn default_instrument_setting(name: &str) -> (bool, bool) {
    let on = name.starts_with("wait/io/file/")
        || name.starts_with("wait/io/table/")
        || name == "wait/lock/table/sql/handler"
        || name == "wait/lock/metadata/sql/mdl"
        || name.starts_with("statement/")
        || name.starts_with("stage/innodb/")
        || name == "stage/sql/copy to tmp table"
        || name == "idle"
        || name == "transaction";
    (on, on)
}

//! Buffer sizes ([`Sizing`]) and the status counters ([`Status`]): plain data shared by the
//! instrumented and the compiled-out builds.

use serde::Serialize;

use crate::tables::{StatusRow, Table};

/// Buffer sizes, fixed when the instrumentation starts (first use, or [`crate::init`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sizing {
    /// Instrument classes (`performance_schema_max_*_classes`). Default 256.
    pub max_classes: usize,
    /// Instrumented lock instances (`performance_schema_max_mutex_instances` etc.). Default 8192.
    pub max_instances: usize,
    /// Threads with a slot at the same time. Default 1024.
    pub max_threads: usize,
    /// Distinct statement digests. Default 256.
    pub max_digests: usize,
    /// Rows of `accounts`, and of `users` and of `hosts`, that count ended connections
    /// (`performance_schema_accounts_size`, `_users_size`, `_hosts_size`: one size here); the
    /// live threads' rows are not bounded by it. Default 1024.
    pub max_accounts: usize,
    /// Live prepared statements with a row in `prepared_statements_instances`
    /// (`performance_schema_max_prepared_statements_instances`, which MySQL autosizes).
    /// Default 4096.
    pub max_prepared_statements: usize,
    /// `performance_schema_events_waits_history_size`. Default 10.
    pub waits_history_size: usize,
    /// `performance_schema_events_waits_history_long_size`. Default 10000.
    pub waits_history_long_size: usize,
    /// `performance_schema_events_stages_history_size`. Default 10.
    pub stages_history_size: usize,
    /// `performance_schema_events_stages_history_long_size`. Default 10000.
    pub stages_history_long_size: usize,
    /// `performance_schema_events_statements_history_size`. Default 10.
    pub statements_history_size: usize,
    /// `performance_schema_events_statements_history_long_size`. Default 10000.
    pub statements_history_long_size: usize,
    /// `performance_schema_events_transactions_history_size`. Default 10.
    pub transactions_history_size: usize,
    /// `performance_schema_events_transactions_history_long_size`. Default 10000.
    pub transactions_history_long_size: usize,
}

impl Default for Sizing {
    fn default() -> Sizing {
        Sizing {
            max_classes: 256,
            max_instances: 8192,
            max_threads: 1024,
            max_digests: 256,
            max_accounts: 1024,
            max_prepared_statements: 4096,
            waits_history_size: 10,
            waits_history_long_size: 10_000,
            stages_history_size: 10,
            stages_history_long_size: 10_000,
            statements_history_size: 10,
            statements_history_long_size: 10_000,
            transactions_history_size: 10,
            transactions_history_long_size: 10_000,
        }
    }
}

impl Sizing {
    /// Clamp to sane bounds (no zero-sized class table, nothing absurdly large).
    pub fn clamped(self) -> Sizing {
        Sizing {
            max_classes: self.max_classes.clamp(1, 4096),
            max_instances: self.max_instances.min(1 << 20),
            max_threads: self.max_threads.min(1 << 16),
            max_digests: self.max_digests.min(1 << 16),
            max_accounts: self.max_accounts.min(1 << 16),
            max_prepared_statements: self.max_prepared_statements.min(1 << 20),
            waits_history_size: self.waits_history_size.min(1 << 12),
            waits_history_long_size: self.waits_history_long_size.min(1 << 22),
            stages_history_size: self.stages_history_size.min(1 << 12),
            stages_history_long_size: self.stages_history_long_size.min(1 << 22),
            statements_history_size: self.statements_history_size.min(1 << 12),
            statements_history_long_size: self.statements_history_long_size.min(1 << 22),
            transactions_history_size: self.transactions_history_size.min(1 << 12),
            transactions_history_long_size: self.transactions_history_long_size.min(1 << 22),
        }
    }
}

/// `SHOW STATUS LIKE 'performance_schema%'`: buffer usage and `lost` counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Status {
    /// Is the instrumentation compiled in?
    pub compiled: bool,
    /// The master switch.
    pub master: bool,
    /// Registered classes.
    pub classes: u64,
    /// Class buffer size.
    pub class_capacity: u64,
    /// Registrations refused because the class buffer was full.
    pub class_lost: u64,
    /// Instances in use.
    pub instances_used: u64,
    /// Instance buffer size.
    pub instance_capacity: u64,
    /// Mutexes that run uninstrumented because the instance buffer was full.
    pub mutex_instances_lost: u64,
    /// Same for rwlocks.
    pub rwlock_instances_lost: u64,
    /// Same for condition variables.
    pub cond_instances_lost: u64,
    /// Same for instances of other kinds.
    pub other_instances_lost: u64,
    /// Threads with a slot.
    pub threads_live: u64,
    /// Threads that run unrecorded because the thread buffer was full.
    pub thread_lost: u64,
    /// Events not recorded: wait stack full, or no thread slot.
    pub locker_lost: u64,
    /// Registered digests.
    pub digests: u64,
    /// Digests refused because the digest buffer was full.
    pub digest_lost: u64,
    /// Ended connections not counted in `accounts`: their account had no row and
    /// `max_accounts` rows were taken.
    pub accounts_lost: u64,
    /// The same for `users`.
    pub users_lost: u64,
    /// The same for `hosts`.
    pub hosts_lost: u64,
    /// Prepared statements without a row in `prepared_statements_instances` (the table full).
    pub prepared_statements_lost: u64,
    /// Events ever written to `events_waits_history_long`.
    pub waits_history_long_written: u64,
    /// Events ever written to `events_stages_history_long`.
    pub stages_history_long_written: u64,
    /// Events ever written to `events_statements_history_long`.
    pub statements_history_long_written: u64,
}

impl Status {
    /// As a `SHOW STATUS` result.
    pub fn to_table(&self) -> Table<StatusRow> {
        let rows = [
            ("Performance_schema_class_lost", self.class_lost),
            (
                "Performance_schema_mutex_instances_lost",
                self.mutex_instances_lost,
            ),
            (
                "Performance_schema_rwlock_instances_lost",
                self.rwlock_instances_lost,
            ),
            (
                "Performance_schema_cond_instances_lost",
                self.cond_instances_lost,
            ),
            (
                "Performance_schema_other_instances_lost",
                self.other_instances_lost,
            ),
            ("Performance_schema_thread_instances_lost", self.thread_lost),
            ("Performance_schema_locker_lost", self.locker_lost),
            ("Performance_schema_digest_lost", self.digest_lost),
            ("Performance_schema_accounts_lost", self.accounts_lost),
            ("Performance_schema_users_lost", self.users_lost),
            ("Performance_schema_hosts_lost", self.hosts_lost),
            (
                "Performance_schema_prepared_statements_lost",
                self.prepared_statements_lost,
            ),
            ("Performance_schema_instances_used", self.instances_used),
            ("Performance_schema_threads_live", self.threads_live),
        ]
        .into_iter()
        .map(|(n, v)| StatusRow {
            variable_name: n.to_string(),
            value: v,
        })
        .collect();
        Table::new("status", rows)
    }
}

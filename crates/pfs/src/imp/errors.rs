//! The error summaries' counts (`events_errors_summary_*_by_error`, `crate::errors`), kept as
//! MySQL's Performance Schema keeps them (`storage/perfschema/pfs_error.cc`,
//! `pfs_log_error_v1` in `pfs.cc`):
//!
//! * **Raised** ([`raised`]): an error (or warning, or note) raised on a thread adds to that
//!   thread's count of its number, with the time, if the master switch is on and the thread is
//!   instrumented (`flag_global_instrumentation`, `pfs_thread->m_enabled`). This is the only
//!   write on the path of a statement, and only one that raised something makes it: one lock
//!   of this module's mutex, taken by nothing that runs per statement.
//! * **Carried** ([`thread_ended`]): a thread's counts go to its account (the NULL one for a
//!   thread without an account) and to the global summary when it ends (`aggregate_thread_errors`
//!   in `pfs_instr.cc`), as `summary_by.rs` carries the other summaries' stats.
//! * **Read**: a thread's row is its counts; an account's its carried counts plus its live
//!   threads'; a user's (host's) its carried counts, its accounts' and its live threads'
//!   (`PFS_connection_error_visitor`, `pfs_visitor.cc`); the global row the ended threads' plus
//!   the live ones'. A row per key and per error the server knows (`crate::register_errors`),
//!   zeros and NULL `FIRST_SEEN` included, and the NULL row first: the errors outside that list
//!   (`lookup_error_stat_index` gives them index 0, `error_names_array`'s NULL row).
//! * **Truncated** as `table_ees_*_by_error::delete_all_rows`: see the `truncate_*` functions.
//!
//! Counts are kept by error number, sparse: a thread that raised nothing has no entry.
//!
//! Lock order: `threads` → a slot's `account` → this module's lock.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use parking_lot::{Mutex, MutexGuard};

use super::connections::Account;
use super::limits::sizing;
use super::summary_by_read::{host, user};
use super::thread::{with_live, ThreadSlot};
use crate::errors::KnownError;
use crate::tables::*;

/// One error's count on one key (`PFS_error_single_stat`): times in microseconds since the
/// Unix epoch (`my_micro_time`), 0 for never.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ErrorStat {
    raised: u64,
    handled: u64,
    first: u64,
    last: u64,
}

impl ErrorStat {
    /// `PFS_error_single_stat::aggregate_count` of `PSI_ERROR_OPERATION_RAISED`, `n` times.
    fn raise(&mut self, n: u64, now: u64) {
        self.raised = self.raised.saturating_add(n);
        self.last = now;
        if self.first == 0 {
            self.first = now;
        }
    }

    /// `PFS_error_single_stat::aggregate`.
    fn merge(&mut self, o: &ErrorStat) {
        if o.raised == 0 && o.handled == 0 {
            return;
        }
        self.raised = self.raised.saturating_add(o.raised);
        self.handled = self.handled.saturating_add(o.handled);
        if self.first == 0 || o.first < self.first {
            self.first = o.first;
        }
        self.last = self.last.max(o.last);
    }
}

/// Counts by error number.
type Stats = BTreeMap<u32, ErrorStat>;

fn add_into(dst: &mut Stats, src: &Stats) {
    for (n, s) in src {
        dst.entry(*n).or_default().merge(s);
    }
}

/// The counts of live threads (by `THREAD_ID`), and what ended or truncated threads carried.
#[derive(Default)]
struct Errors {
    live: BTreeMap<u64, Stats>,
    accounts: BTreeMap<Account, Stats>,
    users: BTreeMap<Option<String>, Stats>,
    hosts: BTreeMap<Option<String>, Stats>,
    /// Every ended or truncated thread's: the global summary's beside the live threads'.
    global: Stats,
}

static ERRORS: Mutex<Errors> = Mutex::new(Errors {
    live: BTreeMap::new(),
    accounts: BTreeMap::new(),
    users: BTreeMap::new(),
    hosts: BTreeMap::new(),
    global: BTreeMap::new(),
});

fn errors() -> MutexGuard<'static, Errors> {
    ERRORS.lock()
}

/// Adds `src` to `key`'s entry of `map` if it has the key or room for it (`max_accounts`).
fn add<K: Ord>(map: &mut BTreeMap<K, Stats>, key: K, src: &Stats) {
    if let Some(d) = map.get_mut(&key) {
        add_into(d, src);
    } else if map.len() < sizing().max_accounts {
        map.insert(key, src.clone());
    }
}

fn micros_now() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1)
}

/// Thread `t` raised error `errno` `n` times (`pfs_log_error_v1`, see the module docs).
#[cold]
#[inline(never)]
pub(crate) fn raised(t: &ThreadSlot, errno: u32, n: u64) {
    if n == 0 || !super::read::master() || !t.instrumented.load(Ordering::Relaxed) {
        return;
    }
    let now = micros_now();
    let mut e = errors();
    let stats = e.live.entry(t.thread_id()).or_default();
    stats.entry(errno).or_default().raise(n, now);
}

impl Errors {
    /// Thread `id` of `account` ended or was truncated: its counts go to its account and to
    /// the global summary (`aggregate_thread_errors`).
    fn carry(&mut self, id: u64, account: Account) {
        if let Some(stats) = self.live.remove(&id) {
            add_into(&mut self.global, &stats);
            add(&mut self.accounts, account, &stats);
        }
    }

    /// `reset_events_errors_by_account`: each account's counts go to its user and its host
    /// (`PFS_account::aggregate_errors`); the accounts lose their entries.
    fn purge_accounts(&mut self) {
        for (account, stats) in std::mem::take(&mut self.accounts) {
            add(&mut self.users, user(&account), &stats);
            add(&mut self.hosts, host(&account), &stats);
        }
    }
}

/// The thread `t` ends (`thread::give_back`, under the `threads` lock): its counts are carried.
pub(crate) fn thread_ended(t: &ThreadSlot, account: &Account) {
    let mut e = errors();
    if e.live.contains_key(&t.thread_id()) {
        e.carry(t.thread_id(), account.clone());
    }
}

/// `reset_events_errors_by_thread`: every live thread's counts go to its account.
fn truncate_threads(e: &mut Errors, live: &[(u64, Account)]) {
    for (id, account) in live {
        e.carry(*id, account.clone());
    }
}

/// Runs `f` on the counts with the live threads' ids and accounts, in the lock order.
fn with_errors<R>(f: impl FnOnce(&mut Errors, &[(u64, Account)]) -> R) -> R {
    with_live(|live| {
        let threads: Vec<(u64, Account)> = (live.iter())
            .map(|t| (t.thread_id(), t.account.lock().clone()))
            .collect();
        f(&mut errors(), &threads)
    })
}

/// `TRUNCATE TABLE events_errors_summary_by_thread_by_error`.
pub(crate) fn truncate_by_thread() {
    with_errors(truncate_threads);
}

/// `TRUNCATE TABLE events_errors_summary_by_account_by_error`: the threads' counts to their
/// accounts, then the accounts' to their users and hosts.
pub(crate) fn truncate_by_account() {
    with_errors(|e, live| {
        truncate_threads(e, live);
        e.purge_accounts();
    });
}

/// `TRUNCATE TABLE events_errors_summary_by_user_by_error`: as [`truncate_by_account`], then
/// the users' counts go (`PFS_user::aggregate_errors`: users have no parent).
pub(crate) fn truncate_by_user() {
    with_errors(|e, live| {
        truncate_threads(e, live);
        e.purge_accounts();
        e.users.clear();
    });
}

/// `TRUNCATE TABLE events_errors_summary_by_host_by_error`: as [`truncate_by_user`], for
/// hosts (MySQL's `PFS_host::aggregate_errors` adds them to the global summary, which has
/// them already here).
pub(crate) fn truncate_by_host() {
    with_errors(|e, live| {
        truncate_threads(e, live);
        e.purge_accounts();
        e.hosts.clear();
    });
}

/// `TRUNCATE TABLE events_errors_summary_global_by_error`: every count goes.
pub(crate) fn truncate_global() {
    *errors() = Errors::default();
}

/// The rows of one key: the NULL row (the errors not in `known`), then one per known error.
fn key_rows(known: &[KnownError], stats: &Stats, mut row: impl FnMut(ErrorSummaryRow)) {
    let mut unknown = ErrorStat::default();
    for (n, s) in stats {
        if !known.iter().any(|k| k.number == *n) {
            unknown.merge(s);
        }
    }
    row(cells(None, &unknown));
    for k in known {
        row(cells(
            Some(k),
            &stats.get(&k.number).copied().unwrap_or_default(),
        ));
    }
}

/// The columns of `error`'s (`None`: the NULL row's) count `s`.
fn cells(error: Option<&KnownError>, s: &ErrorStat) -> ErrorSummaryRow {
    let seen = |micros: u64| {
        (micros != 0).then(|| {
            let at = std::time::Duration::from_secs(micros / 1_000_000);
            let mut text = super::statement::datetime(at);
            text.truncate(19); // `TIMESTAMP(0)`
            text
        })
    };
    ErrorSummaryRow {
        error_number: error.map(|e| e.number),
        error_name: error.map(|e| e.name),
        sql_state: error.map(|e| e.sql_state),
        sum_error_raised: s.raised,
        sum_error_handled: s.handled,
        first_seen: seen(s.first),
        last_seen: seen(s.last),
    }
}

/// The counts per key: the carried counts `of` gives, plus each live thread's under the key
/// `key` makes of its account.
fn group<K: Ord>(
    key: impl Fn(&Account) -> K,
    of: impl FnOnce(&Errors, &mut dyn FnMut(K, &Stats)),
) -> BTreeMap<K, Stats> {
    let mut out: BTreeMap<K, Stats> = BTreeMap::new();
    with_errors(|e, live| {
        for (id, account) in live {
            let into = out.entry(key(account)).or_default();
            if let Some(s) = e.live.get(id) {
                add_into(into, s);
            }
        }
        of(e, &mut |k, s| add_into(out.entry(k).or_default(), s));
    });
    out
}

fn rows<K, R>(
    known: &[KnownError],
    groups: BTreeMap<K, Stats>,
    make: impl Fn(&K, ErrorSummaryRow) -> R,
) -> Vec<R> {
    let mut out = Vec::with_capacity(groups.len() * (known.len() + 1));
    for (k, stats) in &groups {
        key_rows(known, stats, |r| out.push(make(k, r)));
    }
    out
}

pub(crate) fn global(known: &[KnownError]) -> Vec<ErrorSummaryRow> {
    let mut all = Stats::new();
    {
        let e = errors();
        add_into(&mut all, &e.global);
        e.live.values().for_each(|s| add_into(&mut all, s));
    }
    let mut out = Vec::with_capacity(known.len() + 1);
    key_rows(known, &all, |r| out.push(r));
    out
}

pub(crate) fn by_thread(known: &[KnownError]) -> Vec<ErrorSummaryByThreadRow> {
    let groups = with_errors(|e, live| {
        (live.iter())
            .map(|(id, _)| (*id, e.live.get(id).cloned().unwrap_or_default()))
            .collect()
    });
    rows(known, groups, |id, error| ErrorSummaryByThreadRow {
        thread_id: *id,
        error,
    })
}

pub(crate) fn by_account(known: &[KnownError]) -> Vec<ErrorSummaryByAccountRow> {
    let groups = group(Clone::clone, |e, f| {
        e.accounts.iter().for_each(|(k, s)| f(k.clone(), s))
    });
    rows(known, groups, |a, error| ErrorSummaryByAccountRow {
        user: user(a),
        host: host(a),
        error,
    })
}

pub(crate) fn by_user(known: &[KnownError]) -> Vec<ErrorSummaryByUserRow> {
    let groups = group(user, |e, f| {
        e.users.iter().for_each(|(k, s)| f(k.clone(), s));
        e.accounts.iter().for_each(|(a, s)| f(user(a), s));
    });
    rows(known, groups, |u, error| ErrorSummaryByUserRow {
        user: u.clone(),
        error,
    })
}

pub(crate) fn by_host(known: &[KnownError]) -> Vec<ErrorSummaryByHostRow> {
    let groups = group(host, |e, f| {
        e.hosts.iter().for_each(|(k, s)| f(k.clone(), s));
        e.accounts.iter().for_each(|(a, s)| f(host(a), s));
    });
    rows(known, groups, |h, error| ErrorSummaryByHostRow {
        host: h.clone(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(raised: u64, first: u64, last: u64) -> ErrorStat {
        ErrorStat {
            raised,
            handled: 0,
            first,
            last,
        }
    }

    #[test]
    fn merging_keeps_the_earliest_first_and_the_latest_last() {
        let mut a = ErrorStat::default();
        a.merge(&stat(0, 0, 0));
        assert_eq!(a, ErrorStat::default(), "an empty count changes nothing");
        a.merge(&stat(2, 50, 60));
        a.merge(&stat(1, 10, 20));
        assert_eq!(a, stat(3, 10, 60));
        a.raise(4, 70);
        assert_eq!(a, stat(7, 10, 70));
    }

    #[test]
    fn carried_counts_go_to_the_account_then_to_its_user_and_host() {
        let mut e = Errors::default();
        let mut s = Stats::new();
        s.insert(1205, stat(1, 5, 5));
        e.live.insert(7, s.clone());
        e.live.insert(8, s);
        e.carry(7, Some(("app".into(), "h1".into())));
        e.carry(8, None);
        e.carry(9, None); // raised nothing: no entry
        assert!(e.live.is_empty());
        assert_eq!(e.global[&1205].raised, 2);
        assert_eq!(e.accounts.len(), 2);
        e.purge_accounts();
        assert!(e.accounts.is_empty());
        assert_eq!(e.users[&Some("app".to_string())][&1205].raised, 1);
        assert_eq!(e.hosts[&None][&1205].raised, 1);
    }

    #[test]
    fn unknown_errors_share_the_null_row() {
        let known = [KnownError::new(1205, "ER_LOCK_WAIT_TIMEOUT", "HY000")];
        let mut s = Stats::new();
        s.insert(1205, stat(1, 1_000_000, 1_000_000));
        s.insert(9999, stat(2, 0, 0));
        s.insert(9998, stat(3, 0, 0));
        let mut out = Vec::new();
        key_rows(&known, &s, |r| out.push(r));
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].error_number, out[0].sum_error_raised), (None, 5));
        assert_eq!(out[1].error_name, Some("ER_LOCK_WAIT_TIMEOUT"));
        assert_eq!(out[1].first_seen.as_deref(), Some("1970-01-01 00:00:01"));
    }
}

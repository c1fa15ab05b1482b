//! The per-class stats the summaries by account, user and host keep of threads that are gone
//! (`events_*_summary_by_account_by_event_name` and its siblings), as MySQL's Performance
//! Schema keeps them (`aggregate_thread_waits`, `aggregate_thread_statements`, ... in
//! `storage/perfschema/pfs_instr.cc`; `PFS_account::aggregate_*` in `pfs_account.cc`).
//!
//! A thread's stats are counted on read while it lives (`summary_by_read.rs`: a row of an
//! account adds its live threads', `PFS_connection_iterator::visit_account`); when it ends
//! (`thread::give_back`, under the `threads` lock) or its summary is truncated, its stats by
//! class are *carried* into its account's entry here, as MySQL adds them to its `PFS_account`.
//! A thread without an account (a background thread, a session before its login) counts under
//! the NULL key, as the connection tables count it (`connections.rs`) and as MySQL's and
//! MariaDB's summaries by account, user and host show their background threads in a NULL row.
//!
//! The entries of users and hosts hold what a truncate of the account summaries moved there
//! (`PFS_account::aggregate_statements(user, host)`); a user's row adds its accounts' entries
//! and its live threads on read, as `visit_user` does.
//!
//! So the only writes are at a thread's end, at a truncate and at a read of nothing: nothing
//! on the path of an event (a statement pays nothing new). At most `Sizing::max_accounts`
//! keys per map; an end whose account finds no room loses its stats here (as its connection
//! count, which is counted in `Performance_schema_accounts_lost`).
//!
//! Lock order: `threads` → `connections`' lock → this module's lock.

use std::collections::BTreeMap;

use parking_lot::{Mutex, MutexGuard};

use super::classes::classes;
use super::connections::Account;
use super::limits::sizing;
use super::statement::Sums;
use super::stats::Snap;

/// A class's statistics and, for a statement class, its sums (`statement/class_sums.rs`).
/// The `transaction` class's `stat` is its read-write transactions, `read_only` its
/// read-only ones (a thread's two cells, `transaction.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ClassStat {
    pub(crate) stat: Snap,
    pub(crate) sums: Sums,
    pub(crate) read_only: Snap,
}

impl ClassStat {
    pub(crate) fn merge(&mut self, o: &ClassStat) {
        self.stat.merge(&o.stat);
        self.sums.merge(&o.sums);
        self.read_only.merge(&o.read_only);
    }
}

/// Stats by class, indexed as the registered classes (shorter if classes were registered
/// since).
pub(crate) type ClassStats = Vec<ClassStat>;

/// The carried stats of ended (or truncated) threads, by account, and by user and host for
/// what truncates moved there (`None`: the NULL key).
#[derive(Debug, Default)]
pub(crate) struct Carried {
    pub(crate) accounts: BTreeMap<Account, ClassStats>,
    pub(crate) users: BTreeMap<Option<String>, ClassStats>,
    pub(crate) hosts: BTreeMap<Option<String>, ClassStats>,
    /// The statement sums by class of every thread that ended or was truncated, for the
    /// global summary (whose statistics are in `Threads::exited`).
    pub(crate) exited_sums: Vec<Sums>,
}

static CARRIED: Mutex<Carried> = Mutex::new(Carried {
    accounts: BTreeMap::new(),
    users: BTreeMap::new(),
    hosts: BTreeMap::new(),
    exited_sums: Vec::new(),
});

/// The carried stats (locked; last in the lock order).
pub(crate) fn carried() -> MutexGuard<'static, Carried> {
    CARRIED.lock()
}

/// Adds `src` into `dst`, class by class.
pub(crate) fn add_into(dst: &mut ClassStats, src: &[ClassStat]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), ClassStat::default());
    }
    for (d, s) in dst.iter_mut().zip(src) {
        d.merge(s);
    }
}

/// Adds `src` to `key`'s entry of `map` if it has the key or room for it.
fn add<K: Ord>(map: &mut BTreeMap<K, ClassStats>, key: K, src: &[ClassStat], max: usize) {
    if let Some(d) = map.get_mut(&key) {
        add_into(d, src);
    } else if map.len() < max {
        map.insert(key, src.to_vec());
    }
}

/// Moves the classes `sel` selects out of `stats` (left empty there).
fn take(stats: &mut ClassStats, sel: &[bool]) -> ClassStats {
    (stats
        .iter_mut()
        .zip(sel.iter().chain(std::iter::repeat(&false))))
    .map(|(s, on)| match on {
        true => std::mem::take(s),
        false => ClassStat::default(),
    })
    .collect()
}

fn is_empty(stats: &[ClassStat]) -> bool {
    stats
        .iter()
        .all(|s| s.stat.count == 0 && s.read_only.count == 0)
}

/// Which registered classes `keep` selects, by index.
pub(crate) fn selection(keep: impl Fn(crate::ClassKind) -> bool) -> Vec<bool> {
    (classes().registered().iter())
        .map(|c| keep(c.kind()))
        .collect()
}

impl Carried {
    /// A thread of `account` ended or had its summary truncated: its stats `stats` go to the
    /// account (`aggregate_thread_*` with an account), and its sums to the global summary's
    /// (`aggregate_thread_statements` with `global_instr_class_statements_array`).
    pub(crate) fn carry(&mut self, account: Account, stats: &[ClassStat]) {
        if self.exited_sums.len() < stats.len() {
            self.exited_sums.resize(stats.len(), Sums::default());
        }
        for (d, s) in self.exited_sums.iter_mut().zip(stats) {
            d.merge(&s.sums);
        }
        if !is_empty(stats) {
            add(&mut self.accounts, account, stats, sizing().max_accounts);
        }
    }

    /// `reset_events_*_by_account` of the classes `sel`: each account's stats go to its user
    /// and its host (`PFS_account::aggregate_statements(user, host)`); an account left with
    /// nothing has no entry (MySQL's truncate removes the rows of accounts without
    /// connections).
    pub(crate) fn purge_accounts(&mut self, sel: &[bool]) {
        let max = sizing().max_accounts;
        for (account, stats) in self.accounts.iter_mut() {
            let moved = take(stats, sel);
            if !is_empty(&moved) {
                let (user, host) = account
                    .clone()
                    .map_or((None, None), |(u, h)| (Some(u), Some(h)));
                add(&mut self.users, user, &moved, max);
                add(&mut self.hosts, host, &moved, max);
            }
        }
        self.accounts.retain(|_, s| !is_empty(s));
    }

    /// `reset_events_*_by_user` of the classes `sel`: users have no parent, the stats go
    /// (`PFS_user::aggregate_statements` resets them).
    pub(crate) fn clear_users(&mut self, sel: &[bool]) {
        for s in self.users.values_mut() {
            take(s, sel);
        }
        self.users.retain(|_, s| !is_empty(s));
    }

    /// As [`Carried::clear_users`], for hosts.
    pub(crate) fn clear_hosts(&mut self, sel: &[bool]) {
        for s in self.hosts.values_mut() {
            take(s, sel);
        }
        self.hosts.retain(|_, s| !is_empty(s));
    }

    /// A truncate of the global summaries: everything goes.
    pub(crate) fn clear(&mut self) {
        *self = Carried::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(count: u64) -> ClassStat {
        ClassStat {
            stat: Snap {
                count,
                sum: count * 10,
                min: 10,
                max: 10,
            },
            sums: Sums {
                errors: count,
                ..Sums::default()
            },
            read_only: Snap::default(),
        }
    }

    fn acct(u: &str, h: &str) -> Account {
        Some((u.into(), h.into()))
    }

    fn key(s: &str) -> Option<String> {
        Some(s.into())
    }

    fn counts(s: &[ClassStat]) -> Vec<u64> {
        s.iter().map(|s| s.stat.count).collect()
    }

    #[test]
    fn ended_threads_carry_into_their_account_and_background_ones_into_null() {
        let mut c = Carried::default();
        c.carry(acct("app", "h1"), &[snap(1), snap(2)]);
        c.carry(acct("app", "h1"), &[snap(3)]);
        c.carry(None, &[snap(5), snap(5)]);
        c.carry(acct("idle", "h1"), &[snap(0)]);
        assert_eq!(c.accounts.len(), 2);
        assert_eq!(counts(&c.accounts[&acct("app", "h1")]), [4, 2]);
        let errors: Vec<u64> = c.exited_sums.iter().map(|s| s.errors).collect();
        assert_eq!(
            errors,
            [9, 7],
            "every thread's sums count in the global summary"
        );
        assert_eq!(c.accounts[&acct("app", "h1")][0].sums.errors, 4);
        c.purge_accounts(&[true, true]);
        assert_eq!(counts(&c.users[&None]), [5, 5]);
    }

    #[test]
    fn purging_accounts_moves_the_selected_classes_to_users_and_hosts() {
        let mut c = Carried::default();
        c.carry(acct("app", "h1"), &[snap(1), snap(2)]);
        c.carry(acct("app", "h2"), &[snap(3), snap(0)]);
        c.purge_accounts(&[false, true]);
        // h1 keeps class 0; h2 had only class 0 left: it stays too.
        assert_eq!(counts(&c.accounts[&acct("app", "h1")]), [1, 0]);
        assert_eq!(counts(&c.users[&key("app")]), [0, 2]);
        assert_eq!(counts(&c.hosts[&key("h1")]), [0, 2]);
        assert!(!c.hosts.contains_key(&key("h2")));
        c.purge_accounts(&[true, true]);
        assert!(c.accounts.is_empty());
        assert_eq!(counts(&c.users[&key("app")]), [4, 2]);
        c.clear_users(&[true, false]);
        assert_eq!(counts(&c.users[&key("app")]), [0, 2]);
        c.clear_hosts(&[true, true]);
        assert!(c.hosts.is_empty());
        c.clear();
        assert!(c.users.is_empty() && c.exited_sums.is_empty());
    }
}

//! The connection tables' aggregates (`accounts`, `users`, `hosts`), as MySQL's Performance
//! Schema keeps them (`storage/perfschema/pfs_account.cc`, `pfs_user.cc`, `pfs_host.cc`,
//! `pfs_visitor.cc`): a row's `CURRENT_CONNECTIONS` is counted when the table is read, from the
//! live threads whose account it is (`PFS_connection_iterator::visit_account`); its
//! `TOTAL_CONNECTIONS` adds the threads of that account that ended, counted here when a thread
//! ends (`aggregate_thread_stats` in `pfs_instr.cc`: `m_disconnected_count++`). A thread that
//! gave no account (a background thread, a session before its login) counts in the NULL row,
//! as MySQL counts its internal threads.
//!
//! So the only writes are at a thread's end (under the `threads` lock, `thread::give_back`) and
//! at a truncate: nothing on the path of an event. Giving a live thread another account
//! (`set_thread_account` again) moves it to the new row without counting an end in the old
//! one, as `pfs_set_thread_account_vc` does (it clears the thread's account and sets it anew).
//!
//! The counts of ended threads are kept per account, and per user and per host only for what a
//! truncate of `accounts` folded into them (`PFS_account::aggregate_stats`): a `users` row
//! adds its user's accounts' counts on read, as `visit_user` visits the user's accounts. Each
//! map keeps at most `Sizing::max_accounts` keys; the end of a thread whose key finds no room
//! is counted in `Performance_schema_{accounts,users,hosts}_lost`.
//!
//! Lock order: `threads` → this module's lock.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use parking_lot::{Mutex, MutexGuard};

use super::limits::{sizing, LOST};
use crate::tables::ConnectionStats;

/// A thread's account: (user, host), or `None` (the NULL row).
pub(crate) type Account = Option<(String, String)>;

/// The counts of ended threads, by account, and by user and host (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Ended {
    pub(crate) accounts: BTreeMap<Account, u64>,
    pub(crate) users: BTreeMap<Option<String>, u64>,
    pub(crate) hosts: BTreeMap<Option<String>, u64>,
}

static ENDED: Mutex<Ended> = Mutex::new(Ended {
    accounts: BTreeMap::new(),
    users: BTreeMap::new(),
    hosts: BTreeMap::new(),
});

/// The counts (locked; after `threads` if both are taken).
pub(crate) fn ended() -> MutexGuard<'static, Ended> {
    ENDED.lock()
}

/// Adds `n` to `key`'s count in `map` if it has the key or room for it; false when not.
fn add<K: Ord>(map: &mut BTreeMap<K, u64>, key: K, n: u64, max: usize) -> bool {
    if let Some(c) = map.get_mut(&key) {
        *c += n;
        true
    } else if map.len() < max {
        map.insert(key, n);
        true
    } else {
        false
    }
}

fn lost(i: usize, n: u64) {
    LOST.connections[i].fetch_add(n, Ordering::Relaxed);
}

impl Ended {
    /// A thread of `account` ended.
    pub(crate) fn disconnect(&mut self, account: Account, max: usize) {
        if !add(&mut self.accounts, account, 1, max) {
            lost(0, 1);
        }
    }

    /// `purge_all_account`: every account's count goes to its user's and its host's, and the
    /// accounts start again from their live threads (`TRUNCATE TABLE accounts`, and the first
    /// step of truncating `users` or `hosts`).
    pub(crate) fn purge_accounts(&mut self, max: usize) {
        for (account, n) in std::mem::take(&mut self.accounts) {
            let (user, host) = account.map_or((None, None), |(u, h)| (Some(u), Some(h)));
            if !add(&mut self.users, user, n, max) {
                lost(1, n);
            }
            if !add(&mut self.hosts, host, n, max) {
                lost(2, n);
            }
        }
    }
}

/// A thread of `account` ended (`thread::give_back`, under the `threads` lock).
pub(crate) fn disconnect(account: Account) {
    ended().disconnect(account, sizing().max_accounts);
}

/// The rows of one table: each key's live threads (`live`, one key per live thread) and its
/// ended ones (`ended`, keys may repeat), in key order (NULL first).
pub(crate) fn tally<K: Ord>(
    live: impl IntoIterator<Item = K>,
    ended: impl IntoIterator<Item = (K, u64)>,
) -> Vec<(K, ConnectionStats)> {
    let mut rows: BTreeMap<K, ConnectionStats> = BTreeMap::new();
    for k in live {
        let s = rows.entry(k).or_default();
        s.current_connections += 1;
        s.total_connections += 1;
    }
    for (k, n) in ended {
        rows.entry(k).or_default().total_connections += n;
    }
    rows.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acct(u: &str, h: &str) -> Account {
        Some((u.into(), h.into()))
    }

    fn counts<K: Ord>(rows: Vec<(K, ConnectionStats)>) -> Vec<(K, u64, u64)> {
        (rows.into_iter())
            .map(|(k, s)| (k, s.current_connections, s.total_connections))
            .collect()
    }

    #[test]
    fn live_threads_count_current_and_ended_ones_total() {
        let mut e = Ended::default();
        e.disconnect(acct("app", "h1"), 8);
        e.disconnect(acct("app", "h1"), 8);
        e.disconnect(None, 8);
        let live = [acct("app", "h1"), acct("root", "h1"), None];
        let rows = tally(live, e.accounts.iter().map(|(k, n)| (k.clone(), *n)));
        assert_eq!(
            counts(rows),
            [
                (None, 1, 2),
                (acct("app", "h1"), 1, 3),
                (acct("root", "h1"), 1, 1)
            ]
        );
    }

    #[test]
    fn a_full_map_counts_lost_ends() {
        let mut e = Ended::default();
        let before = LOST.connections[0].load(Ordering::Relaxed);
        e.disconnect(acct("a", "h"), 1);
        e.disconnect(acct("a", "h"), 1);
        e.disconnect(acct("b", "h"), 1);
        assert_eq!(e.accounts.len(), 1);
        assert!(LOST.connections[0].load(Ordering::Relaxed) > before);
    }

    #[test]
    fn purging_accounts_folds_them_into_users_and_hosts() {
        let mut e = Ended::default();
        e.disconnect(acct("app", "h1"), 8);
        e.disconnect(acct("app", "h2"), 8);
        e.disconnect(None, 8);
        e.purge_accounts(8);
        assert!(e.accounts.is_empty());
        let users: Vec<_> = e.users.iter().map(|(k, n)| (k.as_deref(), *n)).collect();
        assert_eq!(users, [(None, 1), (Some("app"), 2)]);
        let hosts: Vec<_> = e.hosts.iter().map(|(k, n)| (k.as_deref(), *n)).collect();
        assert_eq!(hosts, [(None, 1), (Some("h1"), 1), (Some("h2"), 1)]);
    }
}

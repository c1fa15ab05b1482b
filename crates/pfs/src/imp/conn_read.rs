//! Readers of the connection tables (`connections.rs` keeps their counts of ended threads):
//! the live threads' accounts and those counts, read together under the `threads` lock, so a
//! thread that ends meanwhile is counted once (live or ended). Truncates, as MySQL's
//! `table_accounts::delete_all_rows`, `table_users::`, `table_hosts::` do for these counts
//! and for the summaries by thread, account, user and host (`summary_by.rs`).

use std::collections::BTreeMap;

use super::connections::{ended, tally, Account, Ended};
use super::limits::sizing;
use super::summary_by::{carried, selection};
use super::thread::with_live;
use crate::tables::{AccountRow, HostRow, UserRow};

/// The live threads' accounts, and `f` of them with the counts of ended threads.
fn read<R>(f: impl FnOnce(Vec<Account>, &Ended) -> R) -> R {
    with_live(|live| {
        let accounts = live.iter().map(|t| t.account.lock().clone()).collect();
        f(accounts, &ended())
    })
}

/// A map's counts as `(key, count)` pairs.
fn counts<K: Clone>(m: &BTreeMap<K, u64>) -> impl Iterator<Item = (K, u64)> + '_ {
    m.iter().map(|(k, n)| (k.clone(), *n))
}

fn user(a: &Account) -> Option<String> {
    a.as_ref().map(|(u, _)| u.clone())
}

fn host(a: &Account) -> Option<String> {
    a.as_ref().map(|(_, h)| h.clone())
}

pub(crate) fn accounts() -> Vec<AccountRow> {
    let rows = read(|live, e| tally(live, counts(&e.accounts)));
    (rows.into_iter())
        .map(|(a, stats)| {
            let (user, host) = a.map_or((None, None), |(u, h)| (Some(u), Some(h)));
            AccountRow { user, host, stats }
        })
        .collect()
}

/// A user's row adds its accounts' ended threads to those folded into the user
/// (`PFS_connection_iterator::visit_user` with its accounts).
pub(crate) fn users() -> Vec<UserRow> {
    let rows = read(|live, e| {
        let folded = counts(&e.users);
        let of_accounts = e.accounts.iter().map(|(a, n)| (user(a), *n));
        tally(live.iter().map(user), folded.chain(of_accounts))
    });
    (rows.into_iter())
        .map(|(user, stats)| UserRow { user, stats })
        .collect()
}

/// As [`users`], by host (`visit_host`).
pub(crate) fn hosts() -> Vec<HostRow> {
    let rows = read(|live, e| {
        let folded = counts(&e.hosts);
        let of_accounts = e.accounts.iter().map(|(a, n)| (host(a), *n));
        tally(live.iter().map(host), folded.chain(of_accounts))
    });
    (rows.into_iter())
        .map(|(host, stats)| HostRow { host, stats })
        .collect()
}

/// The summaries' part of a truncate of a connection table (`table_accounts::delete_all_rows`
/// and its siblings): every thread's summaries go to its account
/// (`reset_events_*_by_thread`), every account's to its user and host
/// (`reset_events_*_by_account`), and `users` (`hosts`) clear the users' (hosts').
fn truncate_summaries(users: bool, hosts: bool) {
    super::read::truncate_by_thread();
    let all = selection(|_| true);
    let mut c = carried();
    c.purge_accounts(&all);
    if users {
        c.clear_users(&all);
    }
    if hosts {
        c.clear_hosts(&all);
    }
}

/// `TRUNCATE TABLE accounts`: `purge_all_account`.
pub(crate) fn truncate_accounts() {
    truncate_summaries(false, false);
    ended().purge_accounts(sizing().max_accounts);
}

/// `TRUNCATE TABLE users`: `purge_all_account`, then `purge_all_user`.
pub(crate) fn truncate_users() {
    truncate_summaries(true, false);
    let mut e = ended();
    e.purge_accounts(sizing().max_accounts);
    e.users.clear();
}

/// `TRUNCATE TABLE hosts`: `purge_all_account`, then `purge_all_host`.
pub(crate) fn truncate_hosts() {
    truncate_summaries(false, true);
    let mut e = ended();
    e.purge_accounts(sizing().max_accounts);
    e.hosts.clear();
}

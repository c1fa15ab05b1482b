//! Readers of the summaries by thread, account, user and host (`summary_by.rs` keeps what
//! ended threads carried), and their truncates. One rule for every kind of event: a row's
//! stats are its key's carried stats plus those of its key's live threads, read together
//! under the `threads` lock, so a thread that ends meanwhile is counted once (live or
//! carried). A user's (host's) key takes its accounts' carried stats too
//! (`PFS_connection_iterator::visit_user`, `visit_host` in `storage/perfschema/pfs_visitor.cc`);
//! threads without an account are the NULL key's, in every table.
//!
//! As MySQL's tables, those by account, user and host have a row per key and per class of the
//! kind, counted or not (`table_esms_by_account_by_event_name::rnd_next` walks every class);
//! those by thread (`events_waits_summary_by_thread_by_event_name` too) only the classes a
//! thread counted, but the stages', which have a row per thread and stage class, zeros
//! included, as MySQL's (`table_esgs_by_thread_by_event_name::rnd_next` walks every stage
//! class of every thread). The transactions' are the `transaction` class's, with the read-write and
//! read-only columns of `events_transactions_summary_global_by_event_name`.

use std::collections::BTreeMap;

use super::classes::classes;
use super::connections::Account;
use super::statement::Sums;
use super::summary::summary;
use super::summary_by::{add_into, carried, selection, Carried, ClassStat, ClassStats};
use super::thread::with_live;
use crate::kinds::{ClassKind, Clock, EventFamily};
use crate::tables::*;

/// Per key, the carried stats `of` takes from `Carried` and the live threads' whose account
/// `key` maps (a thread without an account is `None`'s).
fn group<K: Ord>(
    key: impl Fn(&Account) -> K,
    of: impl FnOnce(&Carried, &mut dyn FnMut(K, &ClassStats)),
) -> BTreeMap<K, ClassStats> {
    let mut out: BTreeMap<K, ClassStats> = BTreeMap::new();
    with_live(|live| {
        for t in live {
            let a = t.account.lock().clone();
            add_into(out.entry(key(&a)).or_default(), &t.class_stats());
        }
        of(&carried(), &mut |k, s| {
            add_into(out.entry(k).or_default(), s)
        });
    });
    out
}

/// The user of account `a` (`None`: the NULL account's).
pub(crate) fn user(a: &Account) -> Option<String> {
    a.as_ref().map(|(u, _)| u.clone())
}

/// The host of account `a`.
pub(crate) fn host(a: &Account) -> Option<String> {
    a.as_ref().map(|(_, h)| h.clone())
}

/// The timer columns of a class's stats (the `transaction` class's: both kinds).
fn timers(s: &ClassStat, clock: Clock) -> SummaryStats {
    let mut all = s.stat;
    all.merge(&s.read_only);
    summary(&all, clock)
}

/// The columns of a statement class's stats: the timer columns and the sums.
fn statement(s: &ClassStat, clock: Clock) -> StatementSummaryStats {
    with_sums(summary(&s.stat, clock), &s.sums)
}

fn with_sums(timers: SummaryStats, s: &Sums) -> StatementSummaryStats {
    StatementSummaryStats {
        timers,
        sum_lock_time: s.lock_ps,
        sum_errors: s.errors,
        sum_warnings: s.warnings,
        sum_rows_affected: s.rows_affected,
        sum_rows_sent: s.rows_sent,
        sum_select_scan: s.engine[1],
        sum_sort_scan: s.engine[2],
        sum_no_index_used: s.engine[0],
    }
}

fn statements(k: ClassKind) -> bool {
    k.family() == EventFamily::Statement
}

/// A row per key and per class `keep` selects, made by `row` from the key, the class name,
/// its stats and its clock.
fn rows<K, R>(
    groups: BTreeMap<K, ClassStats>,
    keep: impl Fn(ClassKind) -> bool,
    row: impl Fn(&K, String, &ClassStat, Clock) -> R,
) -> Vec<R> {
    let classes = classes().registered();
    let mut out = Vec::new();
    for (k, stats) in &groups {
        for (i, c) in classes.iter().enumerate() {
            if keep(c.kind()) {
                let s = stats.get(i).copied().unwrap_or_default();
                out.push(row(k, c.name().to_string(), &s, c.clock()));
            }
        }
    }
    out
}

/// `events_*_summary_by_thread_by_event_name`: each live thread's classes `keep` selects,
/// those it counted or (`zeros`) every one, by thread and class name.
fn thread_rows<R>(
    keep: impl Fn(ClassKind) -> bool,
    zeros: bool,
    row: impl Fn(u64, String, &ClassStat, Clock) -> R,
) -> Vec<R> {
    let classes = classes().registered();
    let mut rows = Vec::new();
    with_live(|live| {
        for t in live {
            let stats = t.class_stats();
            for (i, c) in classes.iter().enumerate() {
                let s = stats.get(i).copied().unwrap_or_default();
                if (zeros || s.stat.count > 0) && keep(c.kind()) {
                    rows.push((t.thread_id(), c.name().to_string(), s, c.clock()));
                }
            }
        }
    });
    rows.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    rows.into_iter()
        .map(|(t, name, s, clock)| row(t, name, &s, clock))
        .collect()
}

fn accounts() -> BTreeMap<Account, ClassStats> {
    group(Clone::clone, |c, f| {
        c.accounts.iter().for_each(|(k, s)| f(k.clone(), s))
    })
}

fn users() -> BTreeMap<Option<String>, ClassStats> {
    group(user, |c, f| {
        c.users.iter().for_each(|(k, s)| f(k.clone(), s));
        c.accounts.iter().for_each(|(a, s)| f(user(a), s));
    })
}

fn hosts() -> BTreeMap<Option<String>, ClassStats> {
    group(host, |c, f| {
        c.hosts.iter().for_each(|(k, s)| f(k.clone(), s));
        c.accounts.iter().for_each(|(a, s)| f(host(a), s));
    })
}

/// See [`thread_rows`] for `zeros`.
pub(crate) fn by_thread(keep: impl Fn(ClassKind) -> bool, zeros: bool) -> Vec<SummaryByThreadRow> {
    thread_rows(keep, zeros, |thread_id, event_name, s, clock| {
        SummaryByThreadRow {
            thread_id,
            event_name,
            stats: timers(s, clock),
        }
    })
}

pub(crate) fn by_account(keep: impl Fn(ClassKind) -> bool) -> Vec<SummaryByAccountRow> {
    rows(accounts(), keep, |a, event_name, s, clock| {
        SummaryByAccountRow {
            user: user(a),
            host: host(a),
            event_name,
            stats: timers(s, clock),
        }
    })
}

pub(crate) fn by_user(keep: impl Fn(ClassKind) -> bool) -> Vec<SummaryByUserRow> {
    rows(users(), keep, |user, event_name, s, clock| {
        SummaryByUserRow {
            user: user.clone(),
            event_name,
            stats: timers(s, clock),
        }
    })
}

pub(crate) fn by_host(keep: impl Fn(ClassKind) -> bool) -> Vec<SummaryByHostRow> {
    rows(hosts(), keep, |host, event_name, s, clock| {
        SummaryByHostRow {
            host: host.clone(),
            event_name,
            stats: timers(s, clock),
        }
    })
}

/// `events_statements_summary_global_by_event_name` with its sums: the timer columns as
/// `summary::summary_global` reads them, the sums of the live threads (digests' in their
/// classes) and of those that ended or were truncated (`Carried::exited_sums`).
pub(crate) fn statements_global() -> Vec<StatementSummaryByEventNameRow> {
    let mut sums: ClassStats = Vec::new();
    with_live(|live| {
        for t in live {
            add_into(&mut sums, &t.class_stats());
        }
        let c = carried();
        if sums.len() < c.exited_sums.len() {
            sums.resize(c.exited_sums.len(), ClassStat::default());
        }
        for (d, s) in sums.iter_mut().zip(&c.exited_sums) {
            d.sums.merge(s);
        }
    });
    let timers = super::summary::summary_global(statements);
    let classes = classes().registered();
    let mut indexed = (classes.iter().enumerate()).filter(|(_, c)| statements(c.kind()));
    timers
        .into_iter()
        .map(|r| {
            // The same classes in the same order, but for one registered meanwhile.
            let i = indexed
                .find(|(_, c)| c.name() == r.event_name)
                .map(|(i, _)| i);
            let s = i
                .and_then(|i| sums.get(i))
                .map(|s| s.sums)
                .unwrap_or_default();
            StatementSummaryByEventNameRow {
                event_name: r.event_name,
                stats: with_sums(r.stats, &s),
            }
        })
        .collect()
}

pub(crate) fn statements_by_thread() -> Vec<StatementSummaryByThreadRow> {
    thread_rows(statements, false, |thread_id, event_name, s, clock| {
        StatementSummaryByThreadRow {
            thread_id,
            event_name,
            stats: statement(s, clock),
        }
    })
}

pub(crate) fn statements_by_account() -> Vec<StatementSummaryByAccountRow> {
    rows(accounts(), statements, |a, event_name, s, clock| {
        StatementSummaryByAccountRow {
            user: user(a),
            host: host(a),
            event_name,
            stats: statement(s, clock),
        }
    })
}

pub(crate) fn statements_by_user() -> Vec<StatementSummaryByUserRow> {
    rows(users(), statements, |user, event_name, s, clock| {
        StatementSummaryByUserRow {
            user: user.clone(),
            event_name,
            stats: statement(s, clock),
        }
    })
}

pub(crate) fn statements_by_host() -> Vec<StatementSummaryByHostRow> {
    rows(hosts(), statements, |host, event_name, s, clock| {
        StatementSummaryByHostRow {
            host: host.clone(),
            event_name,
            stats: statement(s, clock),
        }
    })
}

fn transactions(k: ClassKind) -> bool {
    k == ClassKind::Transaction
}

/// The transaction columns of the `transaction` class's stats (read-write and read-only).
fn trx(s: &ClassStat, clock: Clock) -> TransactionSummaryStats {
    super::trx_read::stats(&[s.stat, s.read_only], clock)
}

pub(crate) fn transactions_by_account() -> Vec<TransactionSummaryByAccountRow> {
    rows(accounts(), transactions, |a, event_name, s, clock| {
        TransactionSummaryByAccountRow {
            user: user(a),
            host: host(a),
            event_name,
            stats: trx(s, clock),
        }
    })
}

pub(crate) fn transactions_by_user() -> Vec<TransactionSummaryByUserRow> {
    rows(users(), transactions, |user, event_name, s, clock| {
        TransactionSummaryByUserRow {
            user: user.clone(),
            event_name,
            stats: trx(s, clock),
        }
    })
}

pub(crate) fn transactions_by_host() -> Vec<TransactionSummaryByHostRow> {
    rows(hosts(), transactions, |host, event_name, s, clock| {
        TransactionSummaryByHostRow {
            host: host.clone(),
            event_name,
            stats: trx(s, clock),
        }
    })
}

/// `TRUNCATE TABLE events_*_summary_by_account_by_event_name`: the threads' summaries first
/// (`reset_events_*_by_thread`: into their accounts), then the accounts' classes `keep`
/// selects go to their users and hosts (`reset_events_*_by_account`).
pub(crate) fn truncate_by_account(keep: impl Fn(ClassKind) -> bool) {
    super::read::truncate_by_thread();
    carried().purge_accounts(&selection(keep));
}

/// `TRUNCATE TABLE events_*_summary_by_user_by_event_name`: as [`truncate_by_account`], then
/// the users' (`reset_events_*_by_user`).
pub(crate) fn truncate_by_user(keep: impl Fn(ClassKind) -> bool) {
    let sel = selection(keep);
    super::read::truncate_by_thread();
    let mut c = carried();
    c.purge_accounts(&sel);
    c.clear_users(&sel);
}

/// `TRUNCATE TABLE events_*_summary_by_host_by_event_name`: as [`truncate_by_user`], for
/// hosts.
pub(crate) fn truncate_by_host(keep: impl Fn(ClassKind) -> bool) {
    let sel = selection(keep);
    super::read::truncate_by_thread();
    let mut c = carried();
    c.purge_accounts(&sel);
    c.clear_hosts(&sel);
}

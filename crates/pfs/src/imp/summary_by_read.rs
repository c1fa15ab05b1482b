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
//! thread counted.

use std::collections::BTreeMap;

use super::classes::classes;
use super::connections::Account;
use super::summary::summary;
use super::summary_by::{add_into, carried, selection, Carried, ClassStats};
use super::thread::with_live;
use crate::kinds::ClassKind;
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

fn user(a: &Account) -> Option<String> {
    a.as_ref().map(|(u, _)| u.clone())
}

fn host(a: &Account) -> Option<String> {
    a.as_ref().map(|(_, h)| h.clone())
}

/// A row per key and per class `keep` selects, made by `row` from the key, the class name
/// and its summary columns.
fn rows<K, R>(
    groups: BTreeMap<K, ClassStats>,
    keep: impl Fn(ClassKind) -> bool,
    row: impl Fn(&K, String, SummaryStats) -> R,
) -> Vec<R> {
    let classes = classes().registered();
    let mut out = Vec::new();
    for (k, stats) in &groups {
        for (i, c) in classes.iter().enumerate() {
            if keep(c.kind()) {
                let s = stats.get(i).copied().unwrap_or_default();
                out.push(row(k, c.name().to_string(), summary(&s, c.clock())));
            }
        }
    }
    out
}

/// `events_*_summary_by_thread_by_event_name`: each live thread's classes `keep` selects,
/// those it counted.
pub(crate) fn by_thread(keep: impl Fn(ClassKind) -> bool) -> Vec<SummaryByThreadRow> {
    let classes = classes().registered();
    let mut rows = Vec::new();
    with_live(|live| {
        for t in live {
            for (c, s) in classes.iter().zip(t.class_stats()) {
                if s.count > 0 && keep(c.kind()) {
                    rows.push(SummaryByThreadRow {
                        thread_id: t.thread_id(),
                        event_name: c.name().to_string(),
                        stats: summary(&s, c.clock()),
                    });
                }
            }
        }
    });
    rows.sort_by(|a, b| (a.thread_id, &a.event_name).cmp(&(b.thread_id, &b.event_name)));
    rows
}

pub(crate) fn by_account(keep: impl Fn(ClassKind) -> bool) -> Vec<SummaryByAccountRow> {
    let groups = group(Clone::clone, |c, f| {
        c.accounts.iter().for_each(|(k, s)| f(k.clone(), s))
    });
    rows(groups, keep, |a, event_name, stats| SummaryByAccountRow {
        user: user(a),
        host: host(a),
        event_name,
        stats,
    })
}

pub(crate) fn by_user(keep: impl Fn(ClassKind) -> bool) -> Vec<SummaryByUserRow> {
    let groups = group(user, |c, f| {
        c.users.iter().for_each(|(k, s)| f(k.clone(), s));
        c.accounts.iter().for_each(|(a, s)| f(user(a), s));
    });
    rows(groups, keep, |user, event_name, stats| SummaryByUserRow {
        user: user.clone(),
        event_name,
        stats,
    })
}

pub(crate) fn by_host(keep: impl Fn(ClassKind) -> bool) -> Vec<SummaryByHostRow> {
    let groups = group(host, |c, f| {
        c.hosts.iter().for_each(|(k, s)| f(k.clone(), s));
        c.accounts.iter().for_each(|(a, s)| f(host(a), s));
    });
    rows(groups, keep, |host, event_name, stats| SummaryByHostRow {
        host: host.clone(),
        event_name,
        stats,
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

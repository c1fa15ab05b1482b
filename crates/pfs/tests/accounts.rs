//! The connection tables `accounts`, `users`, `hosts`: live threads count as current and total
//! connections of their account, ended ones as total; threads without an account in the NULL
//! row; truncates as MySQL's. Each test uses its own user names; the truncates are the
//! process's, so every test runs serially.
#![cfg(feature = "instrumentation")]

use std::sync::mpsc;
use std::thread;

use common::serial;
use pfs::tables::Row;
use pfs::SessionThread;

mod common;

/// (CURRENT_CONNECTIONS, TOTAL_CONNECTIONS) of `user`@`host` in `accounts`, if it has a row.
fn account(user: &str, host: &str) -> Option<(u64, u64)> {
    let rows = pfs::accounts().rows;
    let r = rows
        .iter()
        .find(|r| r.user.as_deref() == Some(user) && r.host.as_deref() == Some(host))?;
    Some((r.stats.current_connections, r.stats.total_connections))
}

fn user(user: &str) -> Option<(u64, u64)> {
    let rows = pfs::users().rows;
    let r = rows.iter().find(|r| r.user.as_deref() == Some(user))?;
    Some((r.stats.current_connections, r.stats.total_connections))
}

fn host(host: &str) -> Option<(u64, u64)> {
    let rows = pfs::hosts().rows;
    let r = rows.iter().find(|r| r.host.as_deref() == Some(host))?;
    Some((r.stats.current_connections, r.stats.total_connections))
}

/// The NULL row of `accounts` (threads without an account).
fn background() -> (u64, u64) {
    let rows = pfs::accounts().rows;
    rows.iter()
        .find(|r| r.user.is_none() && r.host.is_none())
        .map_or((0, 0), |r| {
            (r.stats.current_connections, r.stats.total_connections)
        })
}

fn session(user: &str, host: &str) -> SessionThread {
    let s = SessionThread::new("thread/t_accounts/connection", 1);
    assert!(s.set_account(user, host));
    s
}

#[test]
fn connect_and_disconnect_two_accounts() {
    let _s = serial();
    let a1 = session("t_acc_app", "t_acc_h1");
    let a2 = session("t_acc_app", "t_acc_h1");
    let b = session("t_acc_web", "t_acc_h2");
    assert_eq!(account("t_acc_app", "t_acc_h1"), Some((2, 2)));
    assert_eq!(account("t_acc_web", "t_acc_h2"), Some((1, 1)));
    assert_eq!(user("t_acc_app"), Some((2, 2)));
    assert_eq!(host("t_acc_h2"), Some((1, 1)));

    drop(a1);
    assert_eq!(account("t_acc_app", "t_acc_h1"), Some((1, 2)));
    assert_eq!(user("t_acc_app"), Some((1, 2)));
    assert_eq!(host("t_acc_h1"), Some((1, 2)));
    drop((a2, b));
    // The rows stay with their totals.
    assert_eq!(account("t_acc_app", "t_acc_h1"), Some((0, 2)));
    assert_eq!(account("t_acc_web", "t_acc_h2"), Some((0, 1)));

    // A clone is the same connection: it ends with its last handle.
    let c = session("t_acc_web", "t_acc_h2");
    let c2 = c.clone();
    drop(c);
    assert_eq!(account("t_acc_web", "t_acc_h2"), Some((1, 2)));
    drop(c2);
    assert_eq!(account("t_acc_web", "t_acc_h2"), Some((0, 2)));
}

#[test]
fn os_threads_count_in_their_account_or_the_null_row() {
    let _s = serial();
    let (_, total0) = background();
    let (ready, wait) = mpsc::channel();
    let (done, finish) = mpsc::channel::<()>();
    let t = thread::spawn(move || {
        // Takes a slot without an account: a background thread.
        assert!(pfs::set_thread_instrumented(true));
        ready.send(()).unwrap();
        finish.recv().unwrap();
    });
    wait.recv().unwrap();
    assert!(background().0 >= 1);
    done.send(()).unwrap();
    t.join().unwrap();
    assert!(background().1 > total0);

    thread::spawn(|| assert!(pfs::set_thread_account("t_acc_os", "t_acc_h3")))
        .join()
        .unwrap();
    assert_eq!(account("t_acc_os", "t_acc_h3"), Some((0, 1)));
}

#[test]
fn a_new_account_moves_the_connection_without_ending_it() {
    let _s = serial();
    let s = session("t_acc_first", "t_acc_h4");
    assert!(s.set_account("t_acc_second", "t_acc_h4"));
    assert_eq!(account("t_acc_first", "t_acc_h4"), None);
    assert_eq!(account("t_acc_second", "t_acc_h4"), Some((1, 1)));
}

#[test]
fn sessions_left_out_by_setup_actors_still_count() {
    let _s = serial();
    pfs::set_setup_actor("t_acc_h5", "t_acc_off", false, false).unwrap();
    let s = session("t_acc_off", "t_acc_h5");
    assert!(pfs::threads()
        .rows
        .iter()
        .any(|r| r.thread_id == s.thread_id() && !r.instrumented));
    assert_eq!(account("t_acc_off", "t_acc_h5"), Some((1, 1)));
    drop(s);
    assert!(pfs::remove_setup_actor("t_acc_h5", "t_acc_off"));
}

#[test]
fn truncates_reset_totals_as_mysql_does() {
    let _s = serial();
    drop(session("t_acc_tr", "t_acc_h6"));
    drop(session("t_acc_tr", "t_acc_h6"));
    let live = session("t_acc_tr", "t_acc_h6");
    drop(session("t_acc_gone", "t_acc_h6"));
    assert_eq!(account("t_acc_tr", "t_acc_h6"), Some((1, 3)));

    // Accounts: totals back to the live threads, rows without any gone; the users and hosts
    // keep theirs.
    pfs::truncate_accounts();
    assert_eq!(account("t_acc_tr", "t_acc_h6"), Some((1, 1)));
    assert_eq!(account("t_acc_gone", "t_acc_h6"), None);
    assert_eq!(user("t_acc_tr"), Some((1, 3)));
    assert_eq!(user("t_acc_gone"), Some((0, 1)));
    assert_eq!(host("t_acc_h6"), Some((1, 4)));

    pfs::truncate_users();
    assert_eq!(user("t_acc_tr"), Some((1, 1)));
    assert_eq!(user("t_acc_gone"), None);
    assert_eq!(host("t_acc_h6"), Some((1, 4)));

    pfs::truncate_hosts();
    assert_eq!(host("t_acc_h6"), Some((1, 1)));
    drop(live);
    assert_eq!(account("t_acc_tr", "t_acc_h6"), Some((0, 1)));
    assert_eq!(user("t_acc_tr"), Some((0, 1)));
}

#[test]
fn tables_render_with_mysql_columns() {
    let _s = serial();
    let _s1 = session("t_acc_render", "t_acc_h7");
    assert_eq!(
        pfs::tables::AccountRow::HEADERS,
        [
            "USER",
            "HOST",
            "CURRENT_CONNECTIONS",
            "TOTAL_CONNECTIONS",
            "MAX_SESSION_CONTROLLED_MEMORY",
            "MAX_SESSION_TOTAL_MEMORY"
        ]
    );
    assert!(pfs::accounts().to_string().contains("| t_acc_render "));
    assert!(pfs::users().to_json().contains(r#""USER":"t_acc_render""#));
    assert!(pfs::hosts()
        .to_json()
        .contains(r#""HOST":"t_acc_h7","CURRENT_CONNECTIONS":1"#));
}

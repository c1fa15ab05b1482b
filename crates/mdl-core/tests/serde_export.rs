//! The diagnostics as JSON (feature `serde`): who blocks whom, the deadlock history, a wait's
//! error and the wait counters, with MySQL's names as `performance_schema` writes them.
//! `cargo test -p mdl-core --features serde --test serde_export`.
#![cfg(feature = "serde")]

use std::time::Duration;

use mdl_core::{ErrorKind, KillScope, LockDuration, LockType, MdlError};
use mdl_reference::support::*;
use serde_json::{json, Value};

#[test]
fn who_blocks_whom_and_a_failed_wait_as_json() {
    let mgr = mgr();
    let t = table("t1");
    let mut reader = mgr.new_context_with_id(5).unwrap();
    reader.set_label("app@host: SELECT * FROM t1");
    reader.acquire(&treq(&t, LockType::SR), LONG).unwrap();
    let m = mgr.clone();
    let alter = std::thread::spawn(move || {
        let mut ddl = m.new_context_with_id(6).unwrap();
        ddl.acquire(&treq(&table("t1"), LockType::X), LONG)
    });
    wait_pending(&mgr, mdl_core::ContextId::new(6), &t, LockType::X);

    let waits = serde_json::to_value(mgr.lock_waits()).unwrap();
    let row = &waits["rows"][0];
    assert_eq!(
        row["key"],
        json!({"namespace": "TABLE", "schema": "test", "name": "t1"})
    );
    assert_eq!(row["waiting"], json!(6));
    assert_eq!(row["requested"], json!("EXCLUSIVE"));
    assert_eq!(row["requested_duration"], json!("TRANSACTION"));
    assert_eq!(row["blocker"]["context"], json!(5));
    assert_eq!(row["blocker"]["label"], json!("app@host: SELECT * FROM t1"));
    assert_eq!(row["blocker"]["lock_type"], json!("SHARED_READ"));
    assert_eq!(row["blocker"]["kind"], json!("HARD"));
    assert!(row["waited"]["secs"].is_u64());

    mgr.kill(mdl_core::ContextId::new(6), KillScope::Query)
        .unwrap();
    let err = alter.join().unwrap().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Killed);
    let e = serde_json::to_value(&err).unwrap();
    assert_eq!(e["Killed"]["lock_type"], json!("EXCLUSIVE"));
    assert_eq!(e["Killed"]["blockers"][0]["context"], json!(5));
    assert_eq!(serde_json::to_value(err.kind()).unwrap(), json!("KILLED"));

    let counters = serde_json::to_value(mgr.wait_counters()).unwrap();
    assert_eq!(
        counters,
        json!([{"namespace": "TABLE", "waits": 1, "timeouts": 0, "deadlocks": 0, "kills": 1}])
    );
    reader.release_transactional_locks();
}

#[test]
fn the_deadlock_history_as_json() {
    let mgr = mgr();
    let (t1, t2) = (table("t1"), table("t2"));
    let a = Worker::holding(&mgr, &t1, LockType::X);
    let b = Worker::holding(&mgr, &t2, LockType::X);
    let ra = a.start_pending(&mgr, &t2, LockType::X);
    let got = b.run(move |c| {
        c.acquire(
            &req(&t1, LockType::SR, LockDuration::Statement),
            Duration::from_secs(60),
        )
    });
    // B's SR (DML) is lighter than A's X: B is the victim.
    assert!(matches!(got, Err(MdlError::Deadlock(_))));
    b.release_all();
    recv(&ra).unwrap();
    let history = serde_json::to_value(mgr.deadlocks()).unwrap();
    let d: &Value = &history[0];
    assert_eq!(d["id"], json!(1));
    assert_eq!(d["victim"], json!(b.id.as_u64()));
    assert_eq!(d["cause"], json!("CYCLE"));
    assert_eq!(d["cycle"].as_array().unwrap().len(), 2);
    assert!(d["at"]["secs_since_epoch"].is_u64());
    a.release_all();
}

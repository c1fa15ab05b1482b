//! Sessions on one real `MdlManager`, as tokio tasks: the pile-up behind ALTER TABLE, FLUSH
//! TABLES WITH READ LOCK against writes and commits, LOCK TABLES, LOCK INSTANCE FOR BACKUP,
//! user-level locks, timeouts, kills, and statements that fail without leaving a lock.
//!
//! "Is blocked" is checked without timing: either a session with a zero `lock_wait_timeout`
//! (a zero timeout only tries, so a conflict is an immediate 1205), or a task whose wait is
//! seen in `MdlManager::lock_waits` before the blocker lets go.

use std::sync::Arc;
use std::time::Duration;

use mdl_core::{ContextId, KillScope, LockDuration, LockType, MdlConfig, MdlManager, Namespace};
use mdl_sql::{parse, Session, SqlError, UserLockValue};

fn manager() -> Arc<MdlManager> {
    MdlManager::new(MdlConfig::default()).unwrap()
}

fn session(mgr: &Arc<MdlManager>) -> Session {
    let mut s = Session::new(mgr.new_context());
    s.set_current_schema(Some("test".into()));
    s
}

/// A session that never waits: any conflict is 1205 at once.
fn impatient(mgr: &Arc<MdlManager>) -> Session {
    let mut s = session(mgr);
    s.set_lock_wait_timeout(Duration::ZERO);
    s
}

/// Runs every statement of `sql` the way a server does (plan, execute, upgrade, finish) and
/// returns the user-level lock values.
async fn run(s: &mut Session, sql: &str) -> Result<Vec<UserLockValue>, SqlError> {
    let mut values = Vec::new();
    for p in parse(sql)? {
        let plan = s.plan(&p)?;
        let mut stmt = s.execute(&plan).await?;
        stmt.upgrade().await?;
        values.extend_from_slice(stmt.user_lock_values());
        stmt.finish().await?;
    }
    Ok(values)
}

async fn ok(s: &mut Session, sql: &str) -> Vec<UserLockValue> {
    run(s, sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"))
}

async fn err(s: &mut Session, sql: &str) -> SqlError {
    match run(s, sql).await {
        Ok(v) => panic!("{sql}: expected an error, got {v:?}"),
        Err(e) => e,
    }
}

/// Runs `sql` in a task; the session comes back with the result.
fn spawn(
    mut s: Session,
    sql: &'static str,
) -> tokio::task::JoinHandle<(Session, Result<Vec<UserLockValue>, SqlError>)> {
    tokio::spawn(async move {
        let r = run(&mut s, sql).await;
        (s, r)
    })
}

/// Waits (bounded) until `ctx` waits for a lock of `ns` with type `ty`.
async fn until_waiting(mgr: &MdlManager, ctx: ContextId, ns: Namespace, ty: LockType) {
    for _ in 0..20_000 {
        let waits = mgr.lock_waits();
        if waits
            .rows
            .iter()
            .any(|w| w.waiting == ctx && w.key.namespace() == ns && w.requested == ty)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!(
        "context {ctx} never waited for {ty} in {ns}: {}",
        mgr.lock_waits()
    );
}

/// The classic pile-up: a transaction's SELECT keeps SR until COMMIT (MySQL 8.0's
/// MDL_TRANSACTION), ALTER TABLE's upgrade to X waits for it, and a new SELECT queues behind
/// the pending X. COMMIT lets the ALTER through, then the SELECT.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pile_up_behind_alter_table() {
    let mgr = manager();
    let mut reader = session(&mgr);
    ok(&mut reader, "BEGIN; SELECT c FROM sbtest1 WHERE id = 1").await;
    assert_eq!(reader.context().lock_count_of(LockDuration::Transaction), 1);

    let alter = session(&mgr);
    let alter_id = alter.context().id();
    let alter = spawn(alter, "ALTER TABLE sbtest1 ADD COLUMN x INT");
    until_waiting(&mgr, alter_id, Namespace::Table, LockType::X).await;

    let select = session(&mgr);
    let select_id = select.context().id();
    let select = spawn(select, "SELECT c FROM sbtest1 WHERE id = 2");
    until_waiting(&mgr, select_id, Namespace::Table, LockType::SR).await;
    let waits = mgr.lock_waits();
    assert!(
        waits
            .rows
            .iter()
            .any(|w| w.waiting == select_id && w.blocker.context == Some(alter_id)),
        "the SELECT queues behind the ALTER's pending X:\n{waits}"
    );
    assert_eq!(waits.root_blockers()[0].0, reader.context().id(), "{waits}");

    ok(&mut reader, "COMMIT").await;
    let (alter, r) = alter.await.unwrap();
    r.unwrap();
    let (select, r) = select.await.unwrap();
    r.unwrap();
    for s in [&reader, &alter, &select] {
        assert!(
            !s.context().has_locks(),
            "autocommit statements end with no lock"
        );
    }
}

/// FLUSH TABLES WITH READ LOCK: GLOBAL S blocks other sessions' writes (GLOBAL IX) and COMMIT S
/// blocks the commit of an open read-write transaction (COMMIT IX); the holder's own write
/// fails with 1223; UNLOCK TABLES lets everyone go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ftwrl_blocks_writes_and_commits() {
    let mgr = manager();
    let mut writer = session(&mgr);
    ok(&mut writer, "BEGIN; INSERT INTO t1 VALUES (1)").await;

    let mut backup = session(&mgr);
    ok(&mut backup, "FLUSH TABLES WITH READ LOCK").await;
    assert!(backup.state().global_read_lock);
    assert_eq!(
        err(&mut backup, "INSERT INTO t1 VALUES (2)").await.code(),
        1223
    );
    assert_eq!(
        err(&mut backup, "CREATE TABLE t2 (a INT)").await.code(),
        1223
    );
    ok(&mut backup, "SELECT * FROM t1").await;

    let mut other = impatient(&mgr);
    assert_eq!(err(&mut other, "UPDATE t2 SET a = 1").await.code(), 1205);
    ok(&mut other, "SELECT * FROM t2").await;

    let writer_id = writer.context().id();
    let commit = spawn(writer, "COMMIT");
    until_waiting(&mgr, writer_id, Namespace::Commit, LockType::IX).await;

    ok(&mut backup, "UNLOCK TABLES").await;
    assert!(!backup.context().has_locks());
    let (writer, r) = commit.await.unwrap();
    r.unwrap();
    assert!(!writer.context().has_locks());
    ok(&mut other, "UPDATE t2 SET a = 1").await;
}

/// The engine commits under COMMIT IX: FLUSH TABLES WITH READ LOCK cannot get COMMIT S while a
/// COMMIT statement or a `begin_commit` guard of a read-write transaction is in progress.
#[tokio::test]
async fn commit_lock_is_held_while_the_engine_commits() {
    let mgr = manager();
    let mut s = session(&mgr);
    let mut ftwrl = impatient(&mgr);
    ok(&mut s, "BEGIN; UPDATE t1 SET a = 1").await;
    let commit = s.plan(&parse("COMMIT").unwrap()[0]).unwrap();
    let stmt = s.execute(&commit).await.unwrap();
    // ... the engine commits here ...
    assert_eq!(
        err(&mut ftwrl, "FLUSH TABLES WITH READ LOCK").await.code(),
        1205
    );
    stmt.finish().await.unwrap();
    assert!(!s.context().has_locks());

    ok(&mut s, "BEGIN; INSERT INTO t1 VALUES (2)").await;
    let c = s.begin_commit().await.unwrap();
    assert!(c.holds_commit_lock());
    assert_eq!(
        err(&mut ftwrl, "FLUSH TABLES WITH READ LOCK").await.code(),
        1205
    );
    // It had GLOBAL S when COMMIT S timed out: the failed statement gave it back.
    assert!(!ftwrl.context().has_locks() && !ftwrl.state().global_read_lock);
    c.finish();
    assert!(!s.context().has_locks() && !s.state().in_transaction);
    ok(&mut ftwrl, "FLUSH TABLES WITH READ LOCK; UNLOCK TABLES").await;
}

/// LOCK TABLES: READ is SRO (others read, nobody writes), WRITE is SNRW (others wait even to
/// read); the tables are EXPLICIT locks until UNLOCK TABLES; statements in the session use only
/// the locked tables (1100), and write only WRITE-locked ones (1099).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_tables_read_and_write() {
    let mgr = manager();
    let mut s = session(&mgr);
    ok(&mut s, "LOCK TABLES t1 READ, t2 WRITE").await;
    // t1 SRO, t2 SNRW, GLOBAL IX and SCHEMA IX for the WRITE table.
    assert_eq!(s.context().lock_count_of(LockDuration::Explicit), 4);
    assert_eq!(s.context().lock_count_of(LockDuration::Transaction), 0);
    ok(
        &mut s,
        "SELECT * FROM t1 JOIN t2; INSERT INTO t2 SELECT * FROM t1",
    )
    .await;
    assert_eq!(err(&mut s, "SELECT * FROM t3").await.code(), 1100);
    assert_eq!(err(&mut s, "UPDATE t1 SET a = 1").await.code(), 1099);

    let mut other = impatient(&mgr);
    ok(&mut other, "SELECT * FROM t1").await;
    assert_eq!(
        err(&mut other, "INSERT INTO t1 VALUES (1)").await.code(),
        1205
    );
    assert_eq!(err(&mut other, "SELECT * FROM t2").await.code(), 1205);
    let mut ftwrl = impatient(&mgr);
    assert_eq!(
        err(&mut ftwrl, "FLUSH TABLES WITH READ LOCK").await.code(),
        1205
    );

    ok(&mut s, "UNLOCK TABLES").await;
    assert!(!s.context().has_locks());
    ok(&mut other, "INSERT INTO t1 VALUES (1); SELECT * FROM t2").await;
}

/// DDL under LOCK TABLES ... WRITE (mysqldump's restore): the SNRW lock is upgraded to X for
/// the ALTER and downgraded back; DROP TABLE releases it and the table leaves the set.
#[tokio::test]
async fn ddl_under_lock_tables_write() {
    let mgr = manager();
    let mut s = session(&mgr);
    ok(&mut s, "LOCK TABLES t1 WRITE, t2 WRITE").await;
    ok(&mut s, "ALTER TABLE t1 ADD COLUMN b INT").await;
    let t1 = mdl_core::MdlKey::new(Namespace::Table, "test", "t1").unwrap();
    assert!(s.context().owns_equal_or_stronger_lock(&t1, LockType::SNRW));
    assert!(!s.context().owns_equal_or_stronger_lock(&t1, LockType::X));
    ok(&mut s, "DROP TABLE t1").await;
    assert!(!s.context().owns_equal_or_stronger_lock(&t1, LockType::S));
    assert_eq!(err(&mut s, "SELECT * FROM t1").await.code(), 1100);
    ok(&mut s, "SELECT * FROM t2; UNLOCK TABLES").await;
    assert!(!s.context().has_locks());
}

/// LOCK INSTANCE FOR BACKUP (BACKUP_LOCK S) blocks DDL, which takes BACKUP_LOCK IX, but not
/// DML, which takes none.
#[tokio::test]
async fn backup_lock_blocks_ddl_not_dml() {
    let mgr = manager();
    let mut backup = session(&mgr);
    ok(&mut backup, "LOCK INSTANCE FOR BACKUP").await;
    let mut other = impatient(&mgr);
    ok(
        &mut other,
        "INSERT INTO t1 VALUES (1); UPDATE t1 SET a = 2; SELECT * FROM t1",
    )
    .await;
    for ddl in [
        "ALTER TABLE t1 ADD COLUMN b INT",
        "CREATE TABLE t2 (a INT)",
        "DROP TABLE t1",
        "CREATE DATABASE d2",
    ] {
        assert_eq!(err(&mut other, ddl).await.code(), 1205, "{ddl}");
    }
    assert!(
        !other.context().has_locks(),
        "failed DDL left nothing behind"
    );
    // The holder's own DDL is not blocked by its own lock.
    ok(&mut backup, "CREATE TABLE t3 (a INT)").await;
    assert_eq!(backup.context().lock_count(), 1);
    ok(&mut backup, "UNLOCK INSTANCE").await;
    assert!(!backup.context().has_locks());
    ok(&mut other, "ALTER TABLE t1 ADD COLUMN b INT").await;
}

/// A connection reset (THD::cleanup in sql/sql_class.cc): every kind of lock a session can
/// keep between statements goes, and the session is a new one's, with its current schema.
#[tokio::test]
async fn a_reset_releases_every_lock_the_session_keeps() {
    let mgr = manager();
    let mut other = impatient(&mgr);
    for hold in [
        "SELECT GET_LOCK('r', 0), GET_LOCK('r', 0)",
        "BEGIN; UPDATE t1 SET a = 1; SAVEPOINT s",
        "LOCK TABLES t1 WRITE",
        "FLUSH TABLES WITH READ LOCK",
        "LOCK INSTANCE FOR BACKUP",
        "SET autocommit = 0; SELECT * FROM t1",
    ] {
        let mut a = session(&mgr);
        ok(&mut a, hold).await;
        assert!(a.context().has_locks(), "{hold}");
        a.reset();
        assert!(!a.context().has_locks(), "{hold}");
        let st = a.state();
        assert!(
            st.autocommit && !st.in_transaction && st.locked_tables.is_none(),
            "{hold}"
        );
        assert!(!st.global_read_lock && !st.backup_lock, "{hold}");
        assert_eq!(st.current_schema.as_deref(), Some("test"));
        assert!(a.user_locks().is_empty());
        ok(&mut other, "ALTER TABLE t1 ADD COLUMN b INT").await;
    }
}

/// GET_LOCK and friends (sql/item_func.cc): reference counts for a name taken twice, 0 on
/// timeout, NULL for a lock nobody holds, the holder's id from IS_USED_LOCK, RELEASE_ALL_LOCKS
/// counting references, locks surviving COMMIT and ROLLBACK.
#[tokio::test]
async fn user_level_locks_and_refcounts() {
    let mgr = manager();
    let mut a = session(&mgr);
    let mut b = session(&mgr);
    let a_id = a.context().id().as_u64() as i64;
    assert_eq!(
        ok(&mut a, "SELECT GET_LOCK('L', 10), GET_LOCK('l', 10)").await,
        [Some(1), Some(1)]
    );
    assert_eq!(a.user_locks(), [("l".to_string(), 2)]);
    ok(&mut a, "BEGIN; ROLLBACK; COMMIT").await;
    assert_eq!(
        ok(&mut b, "SELECT IS_FREE_LOCK('l'), IS_USED_LOCK('l')").await,
        [Some(0), Some(a_id)]
    );
    assert_eq!(
        ok(&mut b, "DO GET_LOCK('l', 0)").await,
        [Some(0)],
        "a zero timeout is 0, not an error"
    );
    assert_eq!(
        ok(&mut b, "SELECT RELEASE_LOCK('l')").await,
        [Some(0)],
        "held by another"
    );
    assert_eq!(ok(&mut a, "SELECT RELEASE_LOCK('l')").await, [Some(1)]);
    assert_eq!(
        ok(&mut b, "SELECT IS_FREE_LOCK('l')").await,
        [Some(0)],
        "one reference left"
    );
    assert_eq!(ok(&mut a, "SELECT RELEASE_LOCK('l')").await, [Some(1)]);
    assert_eq!(
        ok(
            &mut b,
            "SELECT IS_FREE_LOCK('l'), IS_USED_LOCK('l'), RELEASE_LOCK('l')"
        )
        .await,
        [Some(1), None, None]
    );
    assert!(!a.context().has_locks());
    ok(
        &mut a,
        "DO GET_LOCK('x', 1), GET_LOCK('x', 1), GET_LOCK('y', 1)",
    )
    .await;
    assert_eq!(ok(&mut a, "SELECT RELEASE_ALL_LOCKS()").await, [Some(3)]);
    assert!(!a.context().has_locks());
    assert_eq!(err(&mut a, "SELECT GET_LOCK('', 1)").await.code(), 3057);
    let long = format!("SELECT GET_LOCK('{}', 1)", "n".repeat(65));
    assert_eq!(err(&mut a, &long).await.code(), 4163);
}

/// Two sessions each holding a user-level lock and waiting for the other's: one of them gets
/// ER_USER_LOCK_DEADLOCK (3058), keeps its own lock and its transaction; the other gets the lock
/// once the victim releases it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_lock_deadlock_is_3058() {
    let mgr = manager();
    let mut a = session(&mgr);
    let mut b = session(&mgr);
    ok(&mut a, "DO GET_LOCK('a', 10)").await;
    ok(&mut b, "DO GET_LOCK('b', 10)").await;
    let a_id = a.context().id();
    let waiter = spawn(a, "SELECT GET_LOCK('b', 100)");
    until_waiting(&mgr, a_id, Namespace::UserLevelLock, LockType::X).await;
    let e = err(&mut b, "SELECT GET_LOCK('a', 100)").await;
    assert_eq!((e.code(), e.sqlstate()), (3058, "HY000"), "{e}");
    assert!(e.mdl().is_some(), "the deadlock's cycle stays available");
    assert_eq!(
        b.user_locks(),
        [("b".to_string(), 1)],
        "the victim keeps its lock"
    );
    assert_eq!(ok(&mut b, "SELECT RELEASE_LOCK('b')").await, [Some(1)]);
    let (a, r) = waiter.await.unwrap();
    assert_eq!(r.unwrap(), [Some(1)]);
    assert_eq!(a.user_locks().len(), 2);
}

/// Builds the deadlock: `victim` reads t1 and t2 (t1 granted, t2 waiting for the other
/// context's X), then the other context asks X on t1. The victim's wait is DML (weight 25) and
/// the other's DDL (100), so the victim loses; `victim_sql` tells what it runs.
async fn table_deadlock(
    mgr: &Arc<MdlManager>,
    victim: Session,
    victim_sql: &'static str,
) -> (Session, Result<Vec<UserLockValue>, SqlError>) {
    use mdl_core::{MdlKey, MdlRequest};
    let key = |t: &str| MdlKey::new(Namespace::Table, "test", t).unwrap();
    let x = |t: &str| MdlRequest::new(key(t), LockType::X, LockDuration::Transaction);
    let mut other = mgr.new_context();
    other.acquire(&x("t2"), Duration::ZERO).unwrap();
    let id = victim.context().id();
    let task = spawn(victim, victim_sql);
    until_waiting(mgr, id, Namespace::Table, LockType::SR).await;
    other
        .acquire_async(&x("t1"), Duration::from_secs(60))
        .await
        .unwrap();
    other.release_transactional_locks();
    task.await.unwrap()
}

/// sql/sql_base.cc, `Open_table_context::request_backoff_action` and
/// `recover_from_failed_open`: a DML statement that held no lock before it started backs off
/// from a deadlock (gives back what it took) and starts over, instead of failing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dml_deadlock_victim_backs_off_and_retries() {
    let mgr = manager();
    let (victim, r) = table_deadlock(&mgr, session(&mgr), "SELECT * FROM t1 JOIN t2").await;
    r.unwrap();
    assert!(!victim.context().has_locks());
    assert_eq!(
        mgr.deadlocks().len(),
        1,
        "there was a deadlock, and it was resolved"
    );
}

/// ... and one that holds locks of earlier statements fails with 1213 (40001), and MySQL rolls
/// its transaction back (`mark_transaction_to_rollback`): every lock of the transaction goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dml_deadlock_victim_in_a_transaction_is_rolled_back() {
    let mgr = manager();
    let mut victim = session(&mgr);
    ok(&mut victim, "BEGIN; SELECT * FROM t0").await;
    let (victim, r) = table_deadlock(&mgr, victim, "SELECT * FROM t1 JOIN t2").await;
    let e = r.unwrap_err();
    assert_eq!((e.code(), e.sqlstate()), (1213, "40001"), "{e}");
    assert!(matches!(e.mdl(), Some(mdl_core::MdlError::Deadlock(_))));
    assert!(
        !victim.context().has_locks(),
        "the transaction's t0 SR went too"
    );
    assert!(!victim.state().in_transaction);
}

/// lock_wait_timeout: DROP TABLE behind a transaction's SR fails with 1205 after the session's
/// timeout, names its blocker, and leaves no lock.
#[tokio::test]
async fn lock_wait_timeout_is_1205() {
    let mgr = manager();
    let mut reader = session(&mgr);
    ok(&mut reader, "BEGIN; SELECT * FROM t1").await;
    let mut ddl = session(&mgr);
    ok(&mut ddl, "SET lock_wait_timeout = 1").await;
    assert_eq!(ddl.lock_wait_timeout(), Duration::from_secs(1));
    let e = err(&mut ddl, "DROP TABLE t1").await;
    assert_eq!((e.code(), e.sqlstate()), (1205, "HY000"));
    assert_eq!(
        e.message(),
        "Lock wait timeout exceeded; try restarting transaction"
    );
    let Some(mdl_core::MdlError::Timeout(w)) = e.mdl() else {
        panic!("{e:?}")
    };
    assert_eq!(w.blockers[0].context, Some(reader.context().id()));
    assert!(!ddl.context().has_locks());
}

/// A kill ends a wait with 1317 (ER_QUERY_INTERRUPTED, 70100); KILL QUERY lasts for one
/// statement, KILL until the server resets it (MySQL's `THD::killed`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_wait_is_1317() {
    let mgr = manager();
    let mut holder = session(&mgr);
    ok(&mut holder, "LOCK TABLES t1 WRITE").await;
    let victim = session(&mgr);
    let (id, kill) = (victim.context().id(), victim.context().kill_handle());
    let task = spawn(victim, "SELECT * FROM t1");
    until_waiting(&mgr, id, Namespace::Table, LockType::SR).await;
    kill.kill(KillScope::Query);
    let (victim, r) = task.await.unwrap();
    let e = r.unwrap_err();
    assert_eq!((e.code(), e.sqlstate()), (1317, "70100"));
    assert!(!victim.context().has_locks());
    // A KILL QUERY between two statements ends neither: the next statement waits normally.
    kill.kill(KillScope::Query);
    ok(&mut holder, "UNLOCK TABLES; LOCK TABLES t2 WRITE").await;
    let task = spawn(victim, "SELECT * FROM t2");
    until_waiting(&mgr, id, Namespace::Table, LockType::SR).await;
    ok(&mut holder, "UNLOCK TABLES").await;
    let (mut victim, r) = task.await.unwrap();
    r.unwrap();
    // KILL (the connection) stays until the server resets it.
    kill.kill(KillScope::Connection);
    ok(&mut holder, "LOCK TABLES t2 WRITE").await;
    assert_eq!(err(&mut victim, "SELECT * FROM t2").await.code(), 1317);
    assert_eq!(err(&mut victim, "SELECT * FROM t2").await.code(), 1317);
    victim.context_mut().reset_kill();
    ok(&mut holder, "UNLOCK TABLES").await;
    ok(&mut victim, "SELECT * FROM t2").await;
}

/// Malformed and unsupported statements fail with MySQL's errors and take nothing; a statement
/// that fails on its second lock gives back its first; the session's earlier locks stay.
#[tokio::test]
async fn failures_leave_no_lock_behind() {
    let mgr = manager();
    let mut blocker = session(&mgr);
    ok(&mut blocker, "LOCK TABLES t2 WRITE").await;
    let mut s = impatient(&mgr);
    ok(&mut s, "BEGIN; SELECT * FROM t1").await;
    let before = s.context().lock_count();
    for (sql, code) in [
        ("SELEC * FROM t1", 1064),
        ("LOCK TABLES t1", 1064),
        ("GRANT SELECT ON *.* TO u", 1235),
        ("SELECT * FROM t3 JOIN t2", 1205),
        ("SELECT GET_LOCK(c, 1) FROM t3", 1235),
        ("ROLLBACK TO SAVEPOINT nowhere", 1305),
    ] {
        assert_eq!(err(&mut s, sql).await.code(), code, "{sql}");
        assert_eq!(s.context().lock_count(), before, "{sql}");
    }
    // A statement the server fails after its locks (the guard dropped without finish).
    let plan = s.plan(&parse("UPDATE t4 SET a = 1").unwrap()[0]).unwrap();
    drop(s.execute(&plan).await.unwrap());
    assert_eq!(s.context().lock_count(), before);
    ok(&mut s, "COMMIT").await;
    assert!(!s.context().has_locks());
}

/// Savepoints release the locks taken after them; autocommit = 0 keeps locks until COMMIT.
#[tokio::test]
async fn savepoints_and_autocommit_off() {
    let mgr = manager();
    let mut s = session(&mgr);
    ok(&mut s, "SET autocommit = 0; SELECT * FROM t1").await;
    assert!(s.state().in_transaction);
    ok(
        &mut s,
        "SAVEPOINT sp; SELECT * FROM t2; UPDATE t3 SET a = 1",
    )
    .await;
    assert_eq!(s.context().lock_count(), 3);
    ok(&mut s, "ROLLBACK TO SAVEPOINT sp").await;
    assert_eq!(s.context().lock_count(), 1);
    ok(&mut s, "SET autocommit = 1").await;
    assert!(!s.context().has_locks(), "SET autocommit = 1 commits");
}

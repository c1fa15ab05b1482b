//! The priority matrices W1..W3 and the anti-starvation switch (`max_write_lock_count`,
//! `docs/semantics.md` §6), through the public API only.
//!
//! The matrix in force is not observable directly, so each test first drives the lock object
//! into a known state with a sequence of grants (hog: an SNW/SNRW/X granted while a non-hog
//! type waits; piglet: an SW granted on the slow path while SRO waits; both counters are kept
//! only while such waiters remain), then checks cells:
//!
//! * "try" form, for every matrix: context C2 holds SW and an SRO request is pending (that
//!   pending SRO is what keeps the piglet counter, and it keeps the hog counter as a non-hog
//!   waiter); a second pending request `p` is added, then `r` is tried by a fresh context (if
//!   SW does not block `r`) or by C2 itself.
//! * "reschedule" form, for W2: Z holds X, A waits for X, D for `r`, B for `p`; Z's release
//!   grants A's X while non-hog types wait (hog limit 1 reached), then A's release lets
//!   `reschedule_waiters` look at D first with `{r, p}` pending and nothing granted.
//!
//! * "reschedule" form, for W1 and W3 (`max_write_lock_count = 2`): see `w13_reschedule_cell`.
//!
//! Coverage: W0 all 100 cells (see `matrix.rs`), W2 97 (not X against a pending SNW, SNRW or
//! X), W1 82 (not the SW and SWLP rows outside the SRO column), W3 64 (not the SW, SWLP, SNRW
//! and X rows outside the SRO column). `w1_all_testable_cells`, `w3_all_testable_cells` and
//! `w2_cells_by_reschedule` assert exactly which cells are left and say why.

use std::sync::mpsc::Receiver;
use std::sync::Arc;

use mdl_core::*;
use mdl_reference::matrix::*;
use mdl_reference::support::*;

fn wlc1() -> Arc<MdlManager> {
    mgr_with(|c| c.max_write_lock_count = 1)
}

struct Base {
    m: Arc<MdlManager>,
    k: MdlKey,
    c2: Worker,
    q: Worker,
    q_rx: Receiver<Result<Ticket>>,
}

/// C2 holds SW on the slow path, Q waits for SRO, and priority matrix `idx` is in force.
fn base(idx: usize) -> Base {
    let m = if idx == 0 { mgr() } else { wlc1() };
    let k = table("t");
    let c2 = Worker::new(&m);
    let q = Worker::new(&m);
    let q_rx;
    if idx & 1 == 1 {
        // Piglet: C1's fast-path SW makes SRO wait, then C2's SW is granted on the slow path
        // while SRO waits.
        let c1 = Worker::holding(&m, &k, LockType::SW);
        q_rx = q.start_pending(&m, &k, LockType::SRO);
        c2.hold(&k, LockType::SW);
        c1.release_all();
        drop(c1);
    } else {
        c2.hold(&k, LockType::SW);
        q_rx = q.start_pending(&m, &k, LockType::SRO);
    }
    if idx & 2 == 2 {
        // Hog: C2's X is granted while SRO waits, then released.
        let x = c2.hold(&k, LockType::X);
        c2.run(move |c| c.release(x).unwrap());
    }
    assert!(
        has_entry(&m, q.id, &k, LockType::SRO, false),
        "SRO must still wait"
    );
    Base { m, k, c2, q, q_rx }
}

/// Can `p` be made to wait in the base state (C2 holds SW, SRO pending, matrix `idx`)?
fn pendable(idx: usize, p: LockType) -> bool {
    p == LockType::SRO
        || !obj_compatible(p, LockType::SW)
        || !obj_no_priority(idx, p, LockType::SRO)
}

/// Try form: Some((granted, isolated)) or None if `p` cannot wait in the base state.
fn try_cell(idx: usize, r: LockType, p: LockType) -> Option<(bool, bool)> {
    if !pendable(idx, p) {
        return None;
    }
    let Base { m, k, c2, q, q_rx } = base(idx);
    let b = Worker::new(&m);
    let b_rx = (p != LockType::SRO).then(|| b.start_pending(&m, &k, p));
    let rq = treq(&k, r);
    let granted = if obj_compatible(r, LockType::SW) {
        let c3 = Worker::new(&m);
        c3.run(move |c| c.try_acquire(&rq).unwrap().is_some())
    } else {
        assert!(!obj_stronger_or_equal(LockType::SW, r));
        c2.run(move |c| c.try_acquire(&rq).unwrap().is_some())
    };
    q.kill.kill(KillScope::Connection);
    b.kill.kill(KillScope::Connection);
    let _ = recv(&q_rx);
    if let Some(rx) = b_rx {
        let _ = recv(&rx);
    }
    drop(c2);
    let isolated = p == LockType::SRO || obj_no_priority(idx, r, LockType::SRO);
    Some((granted, isolated))
}

fn expected_try(idx: usize, r: LockType, p: LockType) -> bool {
    obj_no_priority(idx, r, LockType::SRO) && obj_no_priority(idx, r, p)
}

/// Reschedule form under W2: Some(granted) or None if the cell cannot be isolated.
fn w2_reschedule_cell(r: LockType, p: LockType) -> Option<bool> {
    let hog = |t: LockType| matches!(t, LockType::SNW | LockType::SNRW | LockType::X);
    // A non-hog waiter must exist when A's X is granted; if neither r nor p is one, add one
    // that has no priority over r under W2.
    let extra = if hog(r) && hog(p) {
        Some(
            OBJ.into_iter()
                .find(|&q| !hog(q) && obj_no_priority(2, r, q))?,
        )
    } else {
        None
    };
    let m = wlc1();
    let k = table("t");
    let z = Worker::holding(&m, &k, LockType::X);
    let (a, a_rx) = Worker::pending(&m, &k, LockType::X);
    let (d, d_rx) = Worker::pending(&m, &k, r);
    let (b, b_rx) = Worker::pending(&m, &k, p);
    let e = Worker::new(&m);
    let e_rx = extra.map(|q| e.start_pending(&m, &k, q));
    z.release_all();
    recv(&a_rx).expect("A's X is granted first (nothing has priority over X in W0)");
    assert!(has_entry(&m, d.id, &k, r, false));
    a.release_all();
    let granted = has_entry(&m, d.id, &k, r, true);
    for w in [&d, &b, &e] {
        w.kill.kill(KillScope::Connection);
    }
    let _ = recv(&d_rx);
    let _ = recv(&b_rx);
    if let Some(rx) = e_rx {
        let _ = recv(&rx);
    }
    Some(granted)
}

#[test]
fn w2_cells_by_reschedule() {
    let (tested, skipped) = sweep(&OBJ, "W2, queued first", |r, p| {
        w2_reschedule_cell(r, p).map(|g| (g, obj_no_priority(2, r, p), true))
    });
    // Under W2 every non-hog type has priority over X, and the hog limit is forgotten as soon
    // as only hog types wait, so X against a pending SNW, SNRW or X can't be isolated.
    assert_eq!(
        skipped,
        vec![
            (LockType::X, LockType::SNW),
            (LockType::X, LockType::SNRW),
            (LockType::X, LockType::X)
        ]
    );
    assert_eq!(tested.len(), 97);
}

/// How many cells of W0..W3 the try form isolates: `rows * columns + extra` (the tests say
/// which rows and columns).
const TRY_ISOLATED: [(usize, usize, usize); 4] = [(9, 5, 1), (8, 6, 2), (7, 5, 3), (6, 6, 4)];

/// The isolated cells of matrix `idx` by the try form; asserts there are as many as
/// [`TRY_ISOLATED`] says.
fn try_matrix(idx: usize) -> Pairs {
    let (rows, columns, extra) = TRY_ISOLATED[idx];
    let what = format!("W{idx}: try with SRO pending");
    let (cells, _) = sweep(&OBJ, &what, |r, p| {
        try_cell(idx, r, p).map(|(granted, isolated)| (granted, expected_try(idx, r, p), isolated))
    });
    assert_eq!(cells.len(), rows * columns + extra, "W{idx}: {cells:?}");
    cells
}

#[test]
fn w0_cells_by_try_with_sro_waiting() {
    try_matrix(0);
}

#[test]
fn w1_cells_by_try() {
    // Rows SW and SWLP always meet the pending SRO that keeps W1 in force; only their SRO
    // column is isolated. Pending types: SW, SWLP, SRO, SNW, SNRW, X.
    let cells = try_matrix(1);
    assert!(cells.contains(&(LockType::SW, LockType::SRO)));
    assert!(cells.contains(&(LockType::SRO, LockType::SW)));
}

#[test]
fn w2_cells_by_try() {
    // Rows SWLP, SNRW and X have SRO priority in W2. Pending types: SWLP, SRO, SNW, SNRW, X.
    try_matrix(2);
}

#[test]
fn w3_cells_by_try() {
    // Rows SW, SWLP, SNRW and X have SRO priority in W3. Pending: SW, SWLP, SRO, SNW, SNRW, X.
    try_matrix(3);
}

/// MySQL's hog scenario: a stream of exclusive requests starves a reader unless
/// `max_write_lock_count` lets the reader in after that many hog grants.
fn hog_sequence(m: &Arc<MdlManager>) -> &'static str {
    let k = table("t");
    let a = Worker::holding(m, &k, LockType::X);
    let (b, b_rx) = Worker::pending(m, &k, LockType::X);
    let (c, c_rx) = Worker::pending(m, &k, LockType::SR);
    a.release_all();
    recv(&b_rx).expect("the first queued X goes first");
    let (d, d_rx) = Worker::pending(m, &k, LockType::X);
    b.release_all();
    let winner = if has_entry(m, c.id, &k, LockType::SR, true) {
        assert!(has_entry(m, d.id, &k, LockType::X, false));
        "reader"
    } else {
        assert!(has_entry(m, d.id, &k, LockType::X, true));
        "writer"
    };
    // Everyone gets the lock eventually, the winner first.
    let (reader, writer) = ((&c, &c_rx), (&d, &d_rx));
    let order = if winner == "reader" {
        [reader, writer]
    } else {
        [writer, reader]
    };
    for (w, rx) in order {
        recv(rx).unwrap();
        w.release_all();
    }
    assert_eq!(pending_count(m), 0);
    winner
}

#[test]
fn hog_sequence_default_starves_reader() {
    assert_eq!(hog_sequence(&mgr()), "writer");
}

#[test]
fn hog_sequence_max_write_lock_count_1_lets_reader_in() {
    let m = wlc1();
    assert_eq!(hog_sequence(&m), "reader");
    // Once nobody waits the counters are reset: the same sequence again starts under W0 (the
    // first hog grant switches again, so the reader wins again, and a fresh X-then-SR-then-X
    // queue still sees X first).
    assert_eq!(hog_sequence(&m), "reader");
    let k = table("t");
    let a = Worker::holding(&m, &k, LockType::X);
    let (c, c_rx) = Worker::pending(&m, &k, LockType::SR);
    let (d, d_rx) = Worker::pending(&m, &k, LockType::X);
    a.release_all();
    // W0: the pending X has priority over SR, so D's X is granted though SR queued first.
    recv(&d_rx).unwrap();
    assert!(has_entry(&m, c.id, &k, LockType::SR, false));
    d.release_all();
    recv(&c_rx).unwrap();
}

/// MySQL's piglet scenario: overlapping SW holders starve an SRO (LOCK TABLES READ) request
/// unless `max_write_lock_count` makes further SW wait behind it.
fn piglet_sequence(m: &Arc<MdlManager>) -> bool {
    let k = table("t");
    let c1 = Worker::holding(m, &k, LockType::SW);
    let (q, q_rx) = Worker::pending(m, &k, LockType::SRO);
    let c2 = Worker::new(m);
    c2.hold(&k, LockType::SW); // granted: W0 gives SW priority over SRO
    let c3 = Worker::new(m);
    let r = treq(&k, LockType::SW);
    let third = c3.run(move |c| c.try_acquire(&r).unwrap().is_some());
    c1.release_all();
    c2.release_all();
    if third {
        assert!(has_entry(m, q.id, &k, LockType::SRO, false));
        c3.release_all();
    }
    recv(&q_rx).unwrap();
    third
}

#[test]
fn piglet_sequence_default_keeps_granting_sw() {
    assert!(piglet_sequence(&mgr()));
}

#[test]
fn piglet_sequence_max_write_lock_count_1_stops_sw() {
    assert!(!piglet_sequence(&wlc1()));
}

#[test]
fn acl_cache_is_not_affected_by_max_write_lock_count() {
    // §6: ACL_CACHE is an object namespace excluded from the hog/piglet logic.
    let m = wlc1();
    let k = MdlKey::singleton(Namespace::AclCache).unwrap();
    let a = Worker::holding(&m, &k, LockType::X);
    let (b, b_rx) = Worker::pending(&m, &k, LockType::X);
    let (c, c_rx) = Worker::pending(&m, &k, LockType::SR);
    a.release_all();
    recv(&b_rx).unwrap();
    let (d, d_rx) = Worker::pending(&m, &k, LockType::X);
    b.release_all();
    recv(&d_rx).unwrap();
    assert!(
        has_entry(&m, c.id, &k, LockType::SR, false),
        "W0 stays in force"
    );
    d.release_all();
    recv(&c_rx).unwrap();
}

/// Reschedule form for W1 and W3 (`max_write_lock_count = 2`, so one hog grant alone does not
/// switch): C1 holds SW, Q waits for SRO, H1 and H2 get SW on the slow path while SRO waits
/// (piglet limit reached: W1), H1 takes X (one hog grant; for W3 a second one), keeps only X;
/// then D waits for `r` and B for `p` behind Q, and H1's release reschedules Q, D, B in order.
/// Returns (granted, expected, isolated), the expectation computed from the reference tables.
fn w13_reschedule_cell(idx: usize, r: LockType, p: LockType) -> (bool, bool, bool) {
    assert!(idx == 1 || idx == 3);
    let m = mgr_with(|c| c.max_write_lock_count = 2);
    let k = table("t");
    let c1 = Worker::holding(&m, &k, LockType::SW);
    let (q, q_rx) = Worker::pending(&m, &k, LockType::SRO);
    let h1 = Worker::new(&m);
    let h1_sw = h1.hold(&k, LockType::SW);
    let h2 = Worker::holding(&m, &k, LockType::SW);
    c1.release_all();
    h2.release_all();
    let x = h1.hold(&k, LockType::X);
    if idx == 3 {
        h1.run(move |c| c.release(x).unwrap());
        h1.hold(&k, LockType::X);
    }
    h1.run(move |c| c.release(h1_sw).unwrap());
    assert!(has_entry(&m, q.id, &k, LockType::SRO, false));
    let (d, d_rx) = Worker::pending(&m, &k, r);
    let (b, b_rx) = Worker::pending(&m, &k, p);
    h1.release_all();
    let granted = has_entry(&m, d.id, &k, r, true);
    for w in [&q, &d, &b] {
        w.kill.kill(KillScope::Connection);
    }
    for rx in [&q_rx, &d_rx, &b_rx] {
        let _ = recv(rx);
    }
    // The reference: Q (oldest) first, with {SRO, r, p} pending and nothing granted.
    let q_granted =
        obj_no_priority(idx, LockType::SRO, r) && obj_no_priority(idx, LockType::SRO, p);
    let (expected, isolated) = if q_granted {
        // D then meets Q's granted SRO and only {r, p} pending.
        let g_ok = obj_compatible(r, LockType::SRO);
        (g_ok && obj_no_priority(idx, r, p), g_ok)
    } else {
        let sro_ok = obj_no_priority(idx, r, LockType::SRO);
        (
            sro_ok && obj_no_priority(idx, r, p),
            sro_ok || p == LockType::SRO,
        )
    };
    (granted, expected, isolated)
}

/// Every form for matrix `idx`; returns the cells not isolated by any of them.
fn uncovered(idx: usize) -> Vec<(LockType, LockType)> {
    let what = format!("W{idx} reschedule: queued after SRO");
    let (isolated, _) = sweep(&OBJ, &what, |r, p| Some(w13_reschedule_cell(idx, r, p)));
    let covered: std::collections::HashSet<_> =
        try_matrix(idx).into_iter().chain(isolated).collect();
    let all = OBJ.into_iter().flat_map(|r| OBJ.map(|p| (r, p)));
    all.filter(|cell| !covered.contains(cell)).collect()
}

/// The cells of `rows` outside the SRO column.
fn outside_sro(rows: &[LockType]) -> Pairs {
    let columns = OBJ.into_iter().filter(|&p| p != LockType::SRO);
    rows.iter()
        .flat_map(|&r| columns.clone().map(move |p| (r, p)))
        .collect()
}

#[test]
fn w1_all_testable_cells() {
    // Under W1 an SRO request must be waiting (or the piglet count is forgotten) and SW/SWLP
    // requests have to wait for it (or, once it is granted, conflict with it): the rows SW and
    // SWLP can only be observed in the SRO column.
    assert_eq!(uncovered(1), outside_sro(&[LockType::SW, LockType::SWLP]));
}

#[test]
fn w3_all_testable_cells() {
    // Under W3 a non-hog, non-SW request must be waiting (else everything resets); with the
    // SRO keeper, rows SW, SWLP, SNRW and X either wait for it or conflict with it once
    // granted: they are observed in the SRO column only.
    let rows = [LockType::SW, LockType::SWLP, LockType::SNRW, LockType::X];
    assert_eq!(uncovered(3), outside_sro(&rows));
}

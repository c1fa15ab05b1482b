//! Generated deadlock cycles of length 2 to 8, each context in its own thread: context `i`
//! holds a lock and then waits for one held by context `i+1` (mod n). The waits start one by one
//! (each observed queued through `slow_path_locks` before the next starts), so the context that
//! closes the cycle — the *requester* — is known, and the victim is predictable (`docs/semantics.md`
//! §12): the lowest deadlock weight on the cycle (DML 25 < user-level lock 50 < DDL 100),
//! ties going to the node nearest the requester while the search unwinds, finally the requester.
//!
//! Node kinds vary the weights: X on a table (DDL 100), SR on a table (DML 25), X on a
//! USER_LEVEL_LOCK (50), an SU → X upgrade on a table also read by the next node (DDL 100), and
//! any of these with `set_force_dml_deadlock_weight(true)` (25). Non-cyclic waiters (SR on a lock
//! a cycle member holds exclusively; SR has priority over nobody, so nothing waits for them) hang
//! off the cycle. Exactly one context gets `Deadlock`; it releases everything and every other
//! waiter, cyclic or not, is then granted.
//!
//! `MDL_DEADLOCK_CYCLES` sets the number of random cycles per length (default 6).
//!
//! Determinism: a waiter shows up queued in `slow_path_locks` just before it publishes its
//! wait-for edge, so the harness pauses 15 ms after seeing it queued. On a machine so loaded
//! that a thread stays descheduled longer than that, a different node may close the cycle and
//! the victim prediction can fail.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread;
use std::time::{Duration, Instant};

use mdl_core::{
    ContextId, FastPath, LockDuration, LockType, MdlConfig, MdlError, MdlKey, MdlManager,
    MdlRequest, Namespace,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    XTable,
    SrTable,
    XUserLock,
    Upgrade,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    kind: Kind,
    force_dml: bool,
}

impl Node {
    fn weight(self) -> u32 {
        if self.force_dml {
            return 25;
        }
        match self.kind {
            Kind::XTable | Kind::Upgrade => 100,
            Kind::SrTable => 25,
            Kind::XUserLock => 50,
        }
    }
}

/// The lock node `i` waits for (held by node `i+1`).
fn wait_key(i: usize, kind: Kind) -> MdlKey {
    match kind {
        Kind::XUserLock => MdlKey::new(Namespace::UserLevelLock, "", &format!("u{i}")).unwrap(),
        _ => MdlKey::new(Namespace::Table, "test", &format!("t{i}")).unwrap(),
    }
}

/// The victim MySQL's search picks when `n-1` closes the cycle: nodes are offered while the
/// search unwinds, `n-2` first, down to 0, then the requester; an offer replaces the current
/// victim when its weight is lower or equal.
fn predicted_victim(nodes: &[Node]) -> usize {
    let n = nodes.len();
    let order: Vec<usize> = (0..n - 1).rev().chain([n - 1]).collect();
    let mut victim: Option<usize> = None;
    for i in order {
        if victim.is_none_or(|v| nodes[v].weight() >= nodes[i].weight()) {
            victim = Some(i);
        }
    }
    victim.unwrap()
}

enum Cmd {
    Wait,
}

struct Member {
    go: Sender<Cmd>,
    done: Receiver<Result<(), MdlError>>,
    id: ContextId,
    join: thread::JoinHandle<()>,
}

fn queued(mgr: &MdlManager, id: ContextId) -> bool {
    mgr.slow_path_locks()
        .iter()
        .any(|e| e.context == id && !e.granted)
}

fn wait_until_queued(mgr: &MdlManager, id: ContextId) {
    let start = Instant::now();
    while !queued(mgr, id) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "context {id} never queued"
        );
        thread::sleep(Duration::from_micros(200));
    }
    // Queued is visible a moment before the waiter publishes its wait-for edge and runs its own
    // (fruitless) search; let it finish so that the next node's wait is the one that closes the
    // cycle. There is no public probe for "published", hence a short pause.
    thread::sleep(Duration::from_millis(15));
}

const LONG: Duration = Duration::from_secs(30);

fn run_cycle(nodes: &[Node], hanging: usize, fast_path: FastPath) {
    let n = nodes.len();
    let mgr = MdlManager::new(
        MdlConfig::builder()
            .fast_path(fast_path)
            .build()
            .expect("a valid configuration"),
    )
    .unwrap();
    let (ready_tx, ready_rx) = channel();
    let mut members = Vec::new();
    for i in 0..n {
        let me = nodes[i];
        let prev = nodes[(i + n - 1) % n];
        let prev_idx = (i + n - 1) % n;
        let mgr2 = mgr.clone();
        let ready = ready_tx.clone();
        let (go_tx, go_rx) = channel::<Cmd>();
        let (done_tx, done_rx) = channel();
        let join = thread::spawn(move || {
            let mut c = mgr2.new_context();
            c.set_force_dml_deadlock_weight(me.force_dml);
            // What the previous node will wait for: hold it.
            let held = match prev.kind {
                Kind::Upgrade => LockType::SharedRead,
                _ => LockType::Exclusive,
            };
            let d = if prev.kind == Kind::XUserLock {
                LockDuration::Explicit
            } else {
                LockDuration::Transaction
            };
            c.acquire(
                &MdlRequest::new(wait_key(prev_idx, prev.kind), held, d),
                LONG,
            )
            .unwrap();
            // An upgrader first takes SU on what it will upgrade.
            let su = (me.kind == Kind::Upgrade).then(|| {
                c.acquire(
                    &MdlRequest::new(
                        wait_key(i, me.kind),
                        LockType::SharedUpgradable,
                        LockDuration::Transaction,
                    ),
                    LONG,
                )
                .unwrap()
            });
            ready.send(c.id()).unwrap();
            let Ok(Cmd::Wait) = go_rx.recv() else { return };
            let key = wait_key(i, me.kind);
            let r = match me.kind {
                Kind::Upgrade => c.upgrade(su.unwrap(), LockType::Exclusive, LONG),
                Kind::SrTable => c
                    .acquire(
                        &MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement),
                        LONG,
                    )
                    .map(|_| ()),
                Kind::XTable | Kind::XUserLock => c
                    .acquire(
                        &MdlRequest::new(key, LockType::Exclusive, LockDuration::Transaction),
                        LONG,
                    )
                    .map(|_| ()),
            };
            // Whatever happened, give everything back (the victim's release breaks the cycle).
            drop(c);
            done_tx.send(r).unwrap();
        });
        let id = ready_rx.recv_timeout(LONG).expect("member ready");
        members.push(Member {
            go: go_tx,
            done: done_rx,
            id,
            join,
        });
    }
    // Non-cyclic waiters: SR on locks members hold exclusively.
    let mut hangers = Vec::new();
    for h in 0..hanging {
        let target = (0..n)
            .map(|k| (k + h) % n)
            .find(|&k| matches!(nodes[k].kind, Kind::XTable | Kind::SrTable))
            .unwrap_or(n);
        if target == n {
            break;
        }
        let mgr2 = mgr.clone();
        let (tx, rx) = channel();
        let (idtx, idrx) = channel();
        let key = wait_key(target, nodes[target].kind);
        let join = thread::spawn(move || {
            let mut c = mgr2.new_context();
            idtx.send(c.id()).unwrap();
            let r = c.acquire(
                &MdlRequest::new(key, LockType::SharedRead, LockDuration::Statement),
                LONG,
            );
            tx.send(r.map(|_| ())).unwrap();
        });
        let id = idrx.recv().unwrap();
        wait_until_queued(&mgr, id);
        hangers.push((rx, join));
    }
    // Waits start one by one; node n-1 closes the cycle.
    for m in &members {
        m.go.send(Cmd::Wait).unwrap();
        if m.id != members[n - 1].id {
            wait_until_queued(&mgr, m.id);
        }
    }
    let results: Vec<Result<(), MdlError>> = members
        .iter()
        .map(|m| m.done.recv_timeout(LONG).expect("member finished"))
        .collect();
    for m in members {
        m.join.join().unwrap();
    }
    let victims: Vec<usize> = (0..n)
        .filter(|&i| matches!(results[i], Err(MdlError::Deadlock(_))))
        .collect();
    let expected = predicted_victim(nodes);
    assert_eq!(
        victims,
        vec![expected],
        "nodes {nodes:?} (weights {:?}): results {results:?}",
        nodes.iter().map(|x| x.weight()).collect::<Vec<_>>()
    );
    for (i, r) in results.iter().enumerate() {
        if i != expected {
            assert_eq!(*r, Ok(()), "node {i} of {nodes:?}");
        }
    }
    for (rx, join) in hangers {
        assert_eq!(rx.recv_timeout(LONG).expect("hanger finished"), Ok(()));
        join.join().unwrap();
    }
    assert!(mgr.slow_path_locks().is_empty());
    assert_eq!(mgr.unused_lock_object_count(), mgr.lock_object_count());
}

fn random_nodes(rng: &mut fastrand::Rng, n: usize) -> Vec<Node> {
    (0..n)
        .map(|_| Node {
            kind: [Kind::XTable, Kind::SrTable, Kind::XUserLock, Kind::Upgrade][rng.usize(..4)],
            force_dml: rng.u32(..5) == 0,
        })
        .collect()
}

fn per_length() -> usize {
    std::env::var("MDL_DEADLOCK_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

#[test]
fn uniform_ddl_cycles_victimize_the_requester() {
    for n in 2..=8 {
        let nodes = vec![
            Node {
                kind: Kind::XTable,
                force_dml: false
            };
            n
        ];
        assert_eq!(predicted_victim(&nodes), n - 1);
        run_cycle(&nodes, 0, FastPath::default());
    }
}

#[test]
fn lightest_node_is_the_victim() {
    for n in 2..=8 {
        for light in 0..n {
            let mut nodes = vec![
                Node {
                    kind: Kind::XTable,
                    force_dml: false
                };
                n
            ];
            nodes[light].kind = Kind::SrTable;
            assert_eq!(predicted_victim(&nodes), light);
            run_cycle(&nodes, 0, FastPath::ALL[light % FastPath::ALL.len()]);
        }
    }
}

#[test]
fn user_lock_weighs_between_dml_and_ddl() {
    // DDL, ULL, DML, ULL: the DML node; then without it, the ULL node nearest the requester.
    let k = |kind, force_dml| Node { kind, force_dml };
    let nodes = [
        k(Kind::XTable, false),
        k(Kind::XUserLock, false),
        k(Kind::SrTable, false),
        k(Kind::XUserLock, false),
    ];
    assert_eq!(predicted_victim(&nodes), 2);
    run_cycle(&nodes, 1, FastPath::default());
    let nodes = [
        k(Kind::XTable, false),
        k(Kind::XUserLock, false),
        k(Kind::XTable, false),
        k(Kind::XUserLock, false),
        k(Kind::Upgrade, false),
    ];
    // Offer order 3, 2, 1, 0, 4: ULL 3, then ULL 1 replaces it (equal weight).
    assert_eq!(predicted_victim(&nodes), 1);
    run_cycle(&nodes, 1, FastPath::Off);
    // Forcing DML weight on a DDL node makes it the victim.
    let nodes = [
        k(Kind::XUserLock, false),
        k(Kind::Upgrade, true),
        k(Kind::XUserLock, false),
    ];
    assert_eq!(predicted_victim(&nodes), 1);
    run_cycle(&nodes, 0, FastPath::default());
}

#[test]
fn upgrade_cycles() {
    for n in 2..=8 {
        let mut nodes = vec![
            Node {
                kind: Kind::Upgrade,
                force_dml: false
            };
            n
        ];
        run_cycle(&nodes, 0, FastPath::default());
        nodes[0].kind = Kind::XTable;
        run_cycle(&nodes, 0, FastPath::Off);
    }
}

#[test]
fn random_cycles_with_hanging_waiters() {
    let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    let mut cycles = 0;
    for n in 2..=8 {
        for i in 0..per_length() {
            let nodes = random_nodes(&mut rng, n);
            let hanging = rng.usize(..3);
            run_cycle(&nodes, hanging, FastPath::ALL[i % FastPath::ALL.len()]);
            cycles += 1;
        }
    }
    println!("{cycles} random cycles, each with exactly the predicted victim");
}

#[test]
fn victim_is_released_and_manager_is_reusable() {
    let mgr = MdlManager::new(MdlConfig::default()).unwrap();
    let nodes = [
        Node {
            kind: Kind::XTable,
            force_dml: false,
        },
        Node {
            kind: Kind::SrTable,
            force_dml: false,
        },
    ];
    run_cycle(&nodes, 2, FastPath::default());
    // A fresh manager is not needed: the same keys can be used again right away.
    let mut a = mgr.new_context();
    a.acquire(
        &MdlRequest::new(
            wait_key(0, Kind::XTable),
            LockType::Exclusive,
            LockDuration::Transaction,
        ),
        Duration::from_secs(1),
    )
    .unwrap();
    assert_eq!(mgr.context_count(), 1);
}

//! The wait-for graph, deadlock detection (MySQL's `find_deadlock`), and what the manager
//! remembers of waits: the last deadlocks and per-namespace counters.
//!
//! Every waiting request — of a thread or of a future — has an [`Edge`] in the manager's
//! [`WaitForGraph`]: who waits, for which lock object, on which queue entry, since when. A
//! context adds its edge right after it queues, then runs a search from itself (by default
//! only if another request already waits for it: see [`DeadlockSearch`]), and removes the edge
//! when the wait ends.
//!
//! Nodes are waiting contexts. A context waiting for type `t` on lock `L` has an edge to the
//! owner of every granted entry of `L` that conflicts with `t`, and to the owner of every
//! pending entry that has priority over `t` under the current priority matrix. Fast-path locks
//! need no edges of their own: a waiter only ever waits for obtrusive locks or requests, which
//! are always queue entries, and in [`crate::FastPath::SharedWord`] mode a context puts its own
//! fast-path locks into the queue before it waits; in [`crate::FastPath::PerContext`] mode the
//! first obtrusive request on an object transfers every slot that holds it into the queue.
//!
//! A search holds the graph's mutex throughout (so searches are serialized and the edges do not
//! change under it) and read locks (`read_recursive`) on each lock object's state along the
//! current path, so the path it finds existed at one instant; a node whose wait already has an
//! outcome is skipped. If the search returns to the start node, the cycle is a deadlock; a path
//! deeper than [`MAX_SEARCH_DEPTH`] is treated as one too. Because searches are serialized, a
//! cycle found by one search is broken (its victim's slot is set) before the next search starts,
//! and one deadlock never gets two victims.
//!
//! The victim is the node on the cycle with the lowest weight (DML 25, user lock 50, DDL 100);
//! nodes are offered while the search unwinds toward the start, and a node replaces the current
//! victim when its weight is lower *or equal*, so ties go to the node nearest the requester, and
//! finally to the requester itself. The search keeps its path, so the cycle it found is
//! described edge by edge ([`DeadlockRecord`]): the record goes into the victim's context before
//! its wait slot is set to `Victim` (for the epoch of the wait that was seen, so a verdict never
//! hits a later wait), and into the history the manager keeps.
//!
//! Lock order: graph mutex → a lock object's `state` → a wait slot, a context's label or
//! deadlock-report mutex, the history mutex. Nobody takes the graph mutex while holding a lock
//! object's `state`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use crate::blocking::{BlockKind, DeadlockCause, DeadlockEdge, DeadlockRecord};
use crate::hash::BuildPrehashed;
use crate::lock::LockObject;
use crate::matrix::{deadlock_weight, granted_incompatible, waiting_incompatible};
use crate::queue::Entry;
use crate::shared::ContextShared;
use crate::sync::{AtomicU64, Mutex, Ordering};
use crate::types::{ContextId, LockDuration, LockType, Namespace};
use crate::wait::WaitEnd;

/// Longer paths are treated as deadlocks (MySQL's `MAX_SEARCH_DEPTH`).
pub const MAX_SEARCH_DEPTH: u32 = 32;

/// Which waits search the wait-for graph from their requester ([`crate::MdlConfig::deadlock_search`]).
///
/// A cycle is always found by the wait that closes it: that wait's search sees every other
/// edge of the cycle. So a requester that nobody waits for yet — no other request is queued on
/// a lock it holds, nor behind its own pending request — cannot close a cycle, and its search
/// can only walk its blockers' queues. Those walks are what made a DDL on a hot table
/// quadratic: each of the hundreds of statements queued behind the DDL's pending EXCLUSIVE
/// searched through the DDL to every holder of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DeadlockSearch {
    /// MySQL's: every wait searches. As in MySQL, a path longer than [`MAX_SEARCH_DEPTH`] from
    /// any requester counts as a deadlock.
    EveryWait,
    /// The default: a wait searches only if another request already waits for its requester
    /// (checked on the lock it waits for and on up to 16 locks it holds; a context holding more,
    /// or holding any [`crate::LockGuard`], always searches). The same deadlocks are found, by the same searches, with the same
    /// victims; what is lost is only MySQL's [`MAX_SEARCH_DEPTH`] verdict for a requester that
    /// nobody waits for, which was never a real deadlock.
    #[default]
    WhenWaitedFor,
}

/// A waiting request: its context's outgoing edge in the wait-for graph.
pub(crate) struct Edge {
    pub(crate) waiter: Arc<ContextShared>,
    pub(crate) lock: Arc<LockObject>,
    /// The pending entry in the lock's queue.
    pub(crate) entry: usize,
    pub(crate) ty: LockType,
    pub(crate) duration: LockDuration,
    /// The wait's epoch (see `wait.rs`).
    pub(crate) epoch: u64,
    pub(crate) since: Instant,
}

/// Edges by waiting context id (ids are unique integers: a cheap mix is hash enough).
type Edges = HashMap<u64, Edge, BuildPrehashed>;

/// The row of the counters of waits (and, feature `metrics`, acquisitions) of `ty` in `ns`:
/// `ns * 11 + ty`, below 256.
#[inline(always)]
pub(crate) fn counter_row(ns: Namespace, ty: LockType) -> usize {
    ns as usize * LockType::ALL.len() + ty as usize
}

/// Upper bounds of the wait-time histogram's buckets, in seconds (the last bucket is
/// unbounded). Ten per decade would be finer; these follow the usual latency buckets.
pub const WAIT_SECONDS_BUCKETS: [f64; 16] = [
    0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// Waits that ended, by duration: per bucket of [`WAIT_SECONDS_BUCKETS`] (and one more for
/// longer waits), how many and their total nanoseconds.
pub(crate) struct WaitHistogram {
    pub(crate) counts: [AtomicU64; WAIT_SECONDS_BUCKETS.len() + 1],
    pub(crate) sum_ns: [AtomicU64; WAIT_SECONDS_BUCKETS.len() + 1],
    /// Feature `metrics`: what `publish_metrics` has recorded so far, per bucket (count, ns).
    #[cfg(feature = "metrics")]
    pub(crate) published: Mutex<Vec<(u64, u64)>>,
}

impl WaitHistogram {
    fn record(&self, waited: std::time::Duration) {
        let s = waited.as_secs_f64();
        let i = WAIT_SECONDS_BUCKETS.partition_point(|&b| b < s);
        self.counts[i].fetch_add(1, Ordering::Relaxed);
        let ns = u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX);
        self.sum_ns[i].fetch_add(ns, Ordering::Relaxed);
    }
}

/// The edges of every waiting context, by context id; the deadlock history; the counters.
pub(crate) struct WaitForGraph {
    edges: Mutex<Edges>,
    history: Mutex<VecDeque<Arc<DeadlockRecord>>>,
    history_len: usize,
    deadlocks_found: AtomicU64,
    /// Per [`counter_row`] (namespace and type): waits, timeouts, deadlocks, kills.
    counters: Box<[[AtomicU64; 4]; 256]>,
    /// The duration of every wait that ended.
    pub(crate) histogram: WaitHistogram,
}

impl WaitForGraph {
    pub(crate) fn new(history_len: usize) -> WaitForGraph {
        WaitForGraph {
            edges: Mutex::new(Edges::default()),
            history: Mutex::new(VecDeque::new()),
            history_len,
            deadlocks_found: AtomicU64::new(0),
            counters: Box::new(std::array::from_fn(|_| {
                std::array::from_fn(|_| AtomicU64::new(0))
            })),
            histogram: WaitHistogram {
                counts: std::array::from_fn(|_| AtomicU64::new(0)),
                sum_ns: std::array::from_fn(|_| AtomicU64::new(0)),
                #[cfg(feature = "metrics")]
                published: Mutex::new(vec![(0, 0); WAIT_SECONDS_BUCKETS.len() + 1]),
            },
        }
    }

    /// Publishes a context's edge (it has just queued a request).
    pub(crate) fn add(&self, edge: Edge) {
        self.edges.lock().insert(edge.waiter.serial, edge);
    }

    /// Removes a context's edge (its wait, for `ty` in `ns`, ended after `waited`) and counts
    /// how it ended.
    pub(crate) fn remove(
        &self,
        ctx: u64,
        ns: Namespace,
        ty: LockType,
        end: WaitEnd,
        waited: Option<std::time::Duration>,
    ) {
        self.edges.lock().remove(&ctx);
        if let Some(w) = waited {
            self.histogram.record(w);
        }
        let c = &self.counters[counter_row(ns, ty)];
        c[0].fetch_add(1, Ordering::Relaxed);
        let i = match end {
            WaitEnd::Granted | WaitEnd::Cancelled => return,
            WaitEnd::Timeout => 1,
            WaitEnd::Deadlock => 2,
            WaitEnd::Killed => 3,
        };
        c[i].fetch_add(1, Ordering::Relaxed);
    }

    /// Calls `f` on every edge, under the graph's mutex (diagnostics).
    pub(crate) fn for_each(&self, mut f: impl FnMut(&Edge)) {
        for e in self.edges.lock().values() {
            f(e);
        }
    }

    /// The edge of context `ctx`, if it waits: `f` runs under the graph's mutex.
    pub(crate) fn with_edge<T>(&self, ctx: u64, f: impl FnOnce(&Edge) -> T) -> Option<T> {
        self.edges.lock().get(&ctx).map(f)
    }

    /// The last deadlocks, oldest first.
    pub(crate) fn history(&self) -> Vec<Arc<DeadlockRecord>> {
        self.history.lock().iter().cloned().collect()
    }

    /// Waits, timeouts, deadlocks and kills of type `ty` in namespace `ns`.
    pub(crate) fn counters_of(&self, ns: Namespace, ty: LockType) -> [u64; 4] {
        let c = &self.counters[counter_row(ns, ty)];
        std::array::from_fn(|i| c[i].load(Ordering::Relaxed))
    }

    /// Waits, timeouts, deadlocks and kills of namespace `ns`, all types.
    pub(crate) fn counters(&self, ns: Namespace) -> [u64; 4] {
        let mut sum = [0; 4];
        for ty in LockType::ALL {
            for (s, c) in sum.iter_mut().zip(self.counters_of(ns, ty)) {
                *s += c;
            }
        }
        sum
    }

    /// Contexts waiting now.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(crate) fn waiting(&self) -> usize {
        self.edges.lock().len()
    }

    /// Runs deadlock searches from `start` until none finds a cycle or `start` is the victim.
    pub(crate) fn find_deadlock(&self, start: &ContextShared) {
        let edges = self.edges.lock();
        loop {
            let mut v = Visitor::new(start.serial);
            if !visit_context(&edges, start.serial, &mut v) {
                return;
            }
            let Some(victim) = v.victim.take() else {
                return;
            };
            let record = Arc::new(DeadlockRecord {
                id: self.deadlocks_found.fetch_add(1, Ordering::Relaxed) + 1,
                at: SystemTime::now(),
                victim: ContextId(victim.ctx.id),
                cause: v.cause,
                cycle: v.cycle,
            });
            *victim.ctx.deadlock.lock() = Some((victim.epoch, record.clone()));
            victim.ctx.wait.set(victim.epoch, WaitEnd::Deadlock);
            if self.history_len > 0 {
                let mut h = self.history.lock();
                if h.len() == self.history_len {
                    h.pop_front();
                }
                h.push_back(record);
            }
            if victim.ctx.serial == start.serial {
                return;
            }
        }
    }
}

/// The weight of a context waiting for `ty` in `ns`.
pub(crate) fn weight_of(ctx: &ContextShared, ns: Namespace, ty: LockType) -> u32 {
    if ctx.force_dml_weight.load(Ordering::Relaxed) {
        crate::matrix::DEADLOCK_WEIGHT_DML
    } else {
        deadlock_weight(ns, ty)
    }
}

#[derive(Clone)]
struct Node {
    ctx: Arc<ContextShared>,
    epoch: u64,
    weight: u32,
}

/// One node of the current path and the edge the search left it by.
struct Step<'a> {
    node: Node,
    edge: &'a Edge,
    /// The neighbour being visited from this node: (context, its type, hard or soft).
    via: Option<(Arc<ContextShared>, LockType, BlockKind)>,
}

struct Visitor<'a> {
    start: u64,
    found: bool,
    victim: Option<Node>,
    path: Vec<Step<'a>>,
    cause: DeadlockCause,
    cycle: Vec<DeadlockEdge>,
}

impl<'a> Visitor<'a> {
    fn new(start: u64) -> Visitor<'a> {
        Visitor {
            start,
            found: false,
            victim: None,
            path: Vec::new(),
            cause: DeadlockCause::Cycle,
            cycle: Vec::new(),
        }
    }

    fn enter_node(&mut self, node: Node, edge: &'a Edge) -> bool {
        self.path.push(Step {
            node,
            edge,
            via: None,
        });
        if self.path.len() as u32 >= MAX_SEARCH_DEPTH {
            self.found = true;
            self.cause = DeadlockCause::TooDeep;
            self.describe_path();
            let n = self.path.last().map(|s| s.node.clone());
            if let Some(n) = n {
                self.offer_victim(&n);
            }
        }
        self.found
    }

    fn leave_node(&mut self) {
        if let Some(step) = self.path.pop() {
            if self.found {
                self.offer_victim(&step.node);
            }
        }
    }

    /// Whether the edge to `to` closes a cycle.
    fn inspect_edge(&mut self, to: &Arc<ContextShared>, ty: LockType, kind: BlockKind) -> bool {
        self.found = to.serial == self.start;
        if self.found {
            self.set_via(to, ty, kind);
            self.describe_path();
        }
        self.found
    }

    fn set_via(&mut self, to: &Arc<ContextShared>, ty: LockType, kind: BlockKind) {
        if let Some(last) = self.path.last_mut() {
            last.via = Some((to.clone(), ty, kind));
        }
    }

    fn offer_victim(&mut self, n: &Node) {
        if self.victim.as_ref().is_none_or(|v| v.weight >= n.weight) {
            self.victim = Some(n.clone());
        }
    }

    /// The path as edges, when the search stops on it.
    fn describe_path(&mut self) {
        self.cycle = self
            .path
            .iter()
            .filter_map(|s| {
                let (to, held, kind) = s.via.as_ref()?;
                Some(DeadlockEdge {
                    waiter: ContextId(s.node.ctx.id),
                    waiter_label: s.node.ctx.label(),
                    key: s.edge.lock.key.clone(),
                    requested: s.edge.ty,
                    weight: s.node.weight,
                    holder: ContextId(to.id),
                    holder_label: to.label(),
                    held: *held,
                    kind: *kind,
                })
            })
            .collect();
    }
}

/// Searches from context `ctx`; returns true if a deadlock (or an over-deep path) was found.
fn visit_context<'a>(edges: &'a Edges, ctx: u64, v: &mut Visitor<'a>) -> bool {
    match edges.get(&ctx) {
        Some(edge) => visit_lock(edges, edge, v),
        None => false,
    }
}

fn visit_lock<'a>(edges: &'a Edges, edge: &'a Edge, v: &mut Visitor<'a>) -> bool {
    let lock = &edge.lock;
    let waiter = &edge.waiter;
    let st = lock.state.read_recursive();
    if waiter.wait.status().is_some() {
        return false;
    }
    match st.entries.get(edge.entry) {
        Some(e) if !e.granted && e.ctx.serial == waiter.serial => {}
        _ => return false,
    }
    let node = Node {
        ctx: waiter.clone(),
        epoch: edge.epoch,
        weight: weight_of(waiter, lock.key.namespace(), edge.ty),
    };
    if v.enter_node(node, edge) {
        v.leave_node();
        return true;
    }
    let g = granted_incompatible(lock.strategy, edge.ty);
    let w = waiting_incompatible(lock.strategy, st.matrix_idx, edge.ty);
    // The neighbours, in order: conflicting granted entries (slab order), then pending entries
    // with priority (FIFO). Iterated in place, twice, rather than collected: a hot object has
    // hundreds of entries, and this runs once per waiter on it.
    let (any_granted, any_waiting) = (st.granted_bitmap & g != 0, st.waiting_bitmap & w != 0);
    let neighbours = || {
        let granted = any_granted.then(|| st.granted().filter(move |e| g & e.ty.bit() != 0));
        let waiting = any_waiting.then(|| st.waiting().filter(move |e| w & e.ty.bit() != 0));
        granted
            .into_iter()
            .flatten()
            .chain(waiting.into_iter().flatten())
            .filter(|e| e.ctx.serial != waiter.serial)
            .map(|e: &Entry| {
                let kind = if e.granted {
                    BlockKind::Hard
                } else {
                    BlockKind::Soft
                };
                (&e.ctx, e.ty, kind)
            })
    };
    // `st` stays read-locked while the search descends: the path existed at one instant.
    // Breadth first: look at every direct neighbour before descending.
    for (c, ty, kind) in neighbours() {
        if v.inspect_edge(c, ty, kind) {
            v.leave_node();
            return true;
        }
    }
    // Only a neighbour that waits has edges of its own.
    for (c, ty, kind) in neighbours() {
        let Some(next) = edges.get(&c.serial) else {
            continue;
        };
        v.set_via(c, ty, kind);
        if visit_lock(edges, next, v) {
            v.leave_node();
            return true;
        }
    }
    v.leave_node();
    false
}

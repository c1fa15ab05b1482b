//! The wait-for graph and deadlock detection (MySQL's `find_deadlock`).
//!
//! Every waiting request — of a thread or of a future — has an [`Edge`] in the manager's
//! [`WaitForGraph`]: who waits, for which lock object, on which queue entry, since when. A
//! context adds its edge right after it queues and removes it when the wait ends, then runs a
//! search from itself.
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
//! finally to the requester itself. The victim's wait slot is set to `Victim` for the epoch of
//! the wait that was seen, so a verdict never hits a later wait.
//!
//! Lock order: graph mutex → a lock object's `state` → a wait slot. Nobody takes the graph mutex
//! while holding a lock object's `state`.

use std::collections::HashMap;
use std::sync::Arc;

use crate::lock::LockObject;
use crate::matrix::{deadlock_weight, granted_incompatible, waiting_incompatible};
use crate::shared::ContextShared;
use crate::sync::{Mutex, Ordering};
use crate::types::{LockType, Namespace};
use crate::wait::WaitStatus;

/// Longer paths are treated as deadlocks (MySQL's `MAX_SEARCH_DEPTH`).
pub const MAX_SEARCH_DEPTH: u32 = 32;

/// A waiting request: its context's outgoing edge in the wait-for graph.
pub(crate) struct Edge {
    pub(crate) waiter: Arc<ContextShared>,
    pub(crate) lock: Arc<LockObject>,
    /// The pending entry in the lock's queue.
    pub(crate) entry: usize,
    pub(crate) ty: LockType,
    /// The wait's epoch (see `wait.rs`).
    pub(crate) epoch: u64,
}

/// The edges of every waiting context, by context id.
pub(crate) struct WaitForGraph {
    edges: Mutex<HashMap<u64, Edge>>,
}

impl WaitForGraph {
    pub(crate) fn new() -> WaitForGraph {
        WaitForGraph {
            edges: Mutex::new(HashMap::new()),
        }
    }

    /// Publishes a context's edge (it has just queued a request).
    pub(crate) fn add(&self, edge: Edge) {
        self.edges.lock().insert(edge.waiter.id, edge);
    }

    /// Removes a context's edge (its wait ended).
    pub(crate) fn remove(&self, ctx: u64) {
        self.edges.lock().remove(&ctx);
    }

    /// Runs deadlock searches from `start` until none finds a cycle or `start` is the victim.
    pub(crate) fn find_deadlock(&self, start: &ContextShared) {
        let edges = self.edges.lock();
        loop {
            let mut v = Visitor::new(start.id);
            if !visit_context(&edges, start.id, &mut v) {
                return;
            }
            let Some(victim) = v.victim else { return };
            victim.ctx.wait.set(victim.epoch, WaitStatus::Victim);
            if victim.ctx.id == start.id {
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

struct Visitor {
    start: u64,
    depth: u32,
    found: bool,
    victim: Option<Node>,
}

impl Visitor {
    fn new(start: u64) -> Visitor {
        Visitor {
            start,
            depth: 0,
            found: false,
            victim: None,
        }
    }

    fn enter_node(&mut self, n: &Node) -> bool {
        self.depth += 1;
        self.found = self.depth >= MAX_SEARCH_DEPTH;
        if self.found {
            self.offer_victim(n);
        }
        self.found
    }

    fn leave_node(&mut self, n: &Node) {
        self.depth -= 1;
        if self.found {
            self.offer_victim(n);
        }
    }

    fn inspect_edge(&mut self, to: u64) -> bool {
        self.found = to == self.start;
        self.found
    }

    fn offer_victim(&mut self, n: &Node) {
        if self.victim.as_ref().is_none_or(|v| v.weight >= n.weight) {
            self.victim = Some(n.clone());
        }
    }
}

/// Searches from context `ctx`; returns true if a deadlock (or an over-deep path) was found.
fn visit_context(edges: &HashMap<u64, Edge>, ctx: u64, v: &mut Visitor) -> bool {
    match edges.get(&ctx) {
        Some(edge) => visit_lock(edges, edge, v),
        None => false,
    }
}

fn visit_lock(edges: &HashMap<u64, Edge>, edge: &Edge, v: &mut Visitor) -> bool {
    let lock = &edge.lock;
    let waiter = &edge.waiter;
    let st = lock.state.read_recursive();
    if waiter.wait.status() != WaitStatus::Empty {
        return false;
    }
    match st.entries.get(edge.entry) {
        Some(e) if !e.granted && e.ctx.id == waiter.id => {}
        _ => return false,
    }
    let node = Node {
        ctx: waiter.clone(),
        epoch: edge.epoch,
        weight: weight_of(waiter, lock.key.namespace(), edge.ty),
    };
    if v.enter_node(&node) {
        return true;
    }
    let g = granted_incompatible(lock.strategy, edge.ty);
    let w = waiting_incompatible(lock.strategy, st.matrix_idx, edge.ty);
    let neighbours: Vec<u64> = st
        .granted()
        .filter(|e| g & e.ty.bit() != 0)
        .chain(st.waiting().filter(|e| w & e.ty.bit() != 0))
        .map(|e| e.ctx.id)
        .filter(|&c| c != waiter.id)
        .collect();
    // Breadth first: look at every direct neighbour before descending.
    for &c in &neighbours {
        if v.inspect_edge(c) {
            v.leave_node(&node);
            return true;
        }
    }
    for &c in &neighbours {
        if visit_context(edges, c, v) {
            v.leave_node(&node);
            return true;
        }
    }
    v.leave_node(&node);
    false
}

//! Deadlock detection: a depth-first search of the wait-for graph, run by a context right after
//! it starts waiting (MySQL's `find_deadlock`). Searches are serialized by a manager-wide mutex,
//! so a cycle found by one search is broken (its victim's slot is set) before the next search
//! starts, and one deadlock never gets two victims.
//!
//! Nodes are waiting contexts. A context waiting for type `t` on lock `L` has an edge to the
//! owner of every granted entry of `L` that conflicts with `t`, and to the owner of every pending
//! entry that has priority over `t` under the current priority matrix. The search holds read
//! locks (`read_recursive`) on each context's `waiting_for` and each lock's state along the
//! current path, so the path it finds existed at one instant; a node whose wait already has an
//! outcome is skipped. If the search returns to the start node, the cycle is a deadlock; a path
//! deeper than [`MAX_SEARCH_DEPTH`] is treated as one too.
//!
//! The victim is the node on the cycle with the lowest weight (DML 25, user lock 50, DDL 100);
//! nodes are offered while the search unwinds toward the start, and a node replaces the current
//! victim when its weight is lower *or equal*, so ties go to the node nearest the requester, and
//! finally to the requester itself. The victim's wait slot is set to `Victim` for the epoch of
//! the wait that was seen, so a verdict never hits a later wait.

use std::sync::Arc;

use crate::context::{ContextShared, WaitingFor};
use crate::lock::LockObject;
use crate::matrix::{granted_incompatible, waiting_incompatible};
use crate::wait::WaitStatus;

/// Longer paths are treated as deadlocks (MySQL's `MAX_SEARCH_DEPTH`).
pub const MAX_SEARCH_DEPTH: u32 = 32;

#[derive(Clone)]
pub(crate) struct Node {
    pub(crate) ctx: Arc<ContextShared>,
    pub(crate) epoch: u64,
    pub(crate) weight: u32,
}

pub(crate) struct Visitor {
    start: u64,
    depth: u32,
    found: bool,
    pub(crate) victim: Option<Node>,
}

impl Visitor {
    pub(crate) fn new(start: u64) -> Visitor {
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

/// Searches from `ctx`; returns true if a deadlock (or an over-deep path) was found.
pub(crate) fn visit_context(ctx: &Arc<ContextShared>, v: &mut Visitor) -> bool {
    let wf = ctx.waiting_for.read_recursive();
    match &*wf {
        Some(w) => visit_lock(&w.lock, ctx, w, v),
        None => false,
    }
}

fn visit_lock(
    lock: &LockObject,
    waiter: &Arc<ContextShared>,
    wf: &WaitingFor,
    v: &mut Visitor,
) -> bool {
    let st = lock.state.read_recursive();
    if waiter.wait.status() != WaitStatus::Empty {
        return false;
    }
    match st.entries.get(wf.entry) {
        Some(e) if !e.granted && e.ctx.id == waiter.id => {}
        _ => return false,
    }
    let node = Node {
        ctx: waiter.clone(),
        epoch: wf.epoch,
        weight: waiter.deadlock_weight(lock.key.namespace(), wf.ty),
    };
    if v.enter_node(&node) {
        return true;
    }
    let g = granted_incompatible(lock.strategy, wf.ty);
    let w = waiting_incompatible(lock.strategy, st.matrix_idx, wf.ty);
    let neighbours: Vec<&Arc<ContextShared>> = st
        .granted()
        .filter(|e| g & e.ty.bit() != 0)
        .chain(st.waiting().filter(|e| w & e.ty.bit() != 0))
        .map(|e| &e.ctx)
        .filter(|c| c.id != waiter.id)
        .collect();
    // Breadth first: look at every direct neighbour before descending.
    for c in &neighbours {
        if v.inspect_edge(c.id) {
            v.leave_node(&node);
            return true;
        }
    }
    for c in &neighbours {
        if visit_context(c, v) {
            v.leave_node(&node);
            return true;
        }
    }
    v.leave_node(&node);
    false
}

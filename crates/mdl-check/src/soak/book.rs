//! The harness's own record of who holds what and who waits for what, and the wait-for graph
//! over it: the edges are conflicting holders and pending requests with priority under W0
//! (the soak runs with the default `max_write_lock_count`, so W0 is the only matrix).

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use mdl_core::LockType;
use mdl_reference::matrix::{conflicts, has_priority};

/// One held lock as the book records it.
#[derive(Clone, Copy)]
pub(super) struct Held {
    pub(super) ctx: u64,
    pub(super) ty: LockType,
    pub(super) uid: u64,
    pub(super) how: &'static str,
    /// Held by a context inside `upgrade`: it holds this type until its wait ends, and then
    /// possibly not (a sideways upgrade such as S -> IX releases it). Grant checks skip it;
    /// cycle searches use it.
    pub(super) soft: bool,
}

/// What a context waits for.
#[derive(Clone)]
pub(super) struct Waiting {
    pub(super) key: Vec<u8>,
    pub(super) scoped: bool,
    pub(super) ty: LockType,
    pub(super) since: Instant,
}

/// Held locks by key, waits by context.
#[derive(Default)]
pub(super) struct Book {
    pub(super) held: HashMap<Vec<u8>, Vec<Held>>,
    pub(super) waiting: HashMap<u64, Waiting>,
}

impl Book {
    /// The contexts that context `n`, waiting as `w`, waits for: other holders of a type that
    /// conflicts with the request, then other waiters whose type has priority over it under W0.
    fn waits_for(&self, n: u64, w: &Waiting) -> Vec<u64> {
        let holders = self.held.get(&w.key).into_iter().flatten();
        let holders = holders
            .filter(|h| h.ctx != n && conflicts(w.scoped, w.ty, h.ty))
            .map(|h| h.ctx);
        let waiters = self
            .waiting
            .iter()
            .filter(|(&c, o)| c != n && o.key == w.key && has_priority(w.scoped, 0, w.ty, o.ty))
            .map(|(&c, _)| c);
        holders.chain(waiters).collect()
    }

    /// Whether a wait-for cycle is reachable from `start` (through it or not): with fewer than
    /// `MAX_SEARCH_DEPTH` (32) contexts, that is exactly when the manager's depth-limited
    /// search may report a deadlock from `start` (MySQL treats a path deeper than 32 as a
    /// deadlock and may pick the requester as victim).
    pub(super) fn reaches_cycle(&self, start: u64) -> bool {
        // Colours: 1 = on the current path, 2 = done.
        fn go(b: &Book, n: u64, colour: &mut HashMap<u64, u8>) -> bool {
            match colour.get(&n) {
                Some(1) => return true,
                Some(_) => return false,
                None => {}
            }
            let Some(w) = b.waiting.get(&n) else {
                colour.insert(n, 2);
                return false;
            };
            colour.insert(n, 1);
            for m in b.waits_for(n, w) {
                if go(b, m, colour) {
                    return true;
                }
            }
            colour.insert(n, 2);
            false
        }
        go(self, start, &mut HashMap::new())
    }

    pub(super) fn dump(&self, me: u64) -> String {
        let mut out = String::new();
        let mut todo = vec![me];
        let mut seen = HashSet::new();
        while let Some(c) = todo.pop() {
            if !seen.insert(c) {
                continue;
            }
            let Some(w) = self.waiting.get(&c) else {
                out.push_str(&format!("[{c} not waiting] "));
                continue;
            };
            let hs: Vec<(u64, LockType)> = self
                .held
                .get(&w.key)
                .map(|v| v.iter().map(|h| (h.ctx, h.ty)).collect())
                .unwrap_or_default();
            let ws: Vec<(u64, LockType)> = self
                .waiting
                .iter()
                .filter(|(_, o)| o.key == w.key)
                .map(|(&c, o)| (c, o.ty))
                .collect();
            out.push_str(&format!(
                "[{c} waits {:?} on {:?}: held {hs:?} waiting {ws:?}] ",
                w.ty,
                String::from_utf8_lossy(&w.key)
            ));
            todo.extend(hs.iter().map(|h| h.0));
            todo.extend(ws.iter().map(|h| h.0));
        }
        out
    }

    /// A cycle of the wait-for graph through `start`, as the list of its members' wait stamps.
    pub(super) fn cycle_through(&self, start: u64) -> Option<Vec<(u64, Instant)>> {
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        if self.dfs(start, start, &mut path, &mut seen) {
            Some(path)
        } else {
            None
        }
    }

    fn dfs(
        &self,
        node: u64,
        start: u64,
        path: &mut Vec<(u64, Instant)>,
        seen: &mut HashSet<u64>,
    ) -> bool {
        let Some(w) = self.waiting.get(&node) else {
            return false;
        };
        if !seen.insert(node) {
            return false;
        }
        path.push((node, w.since));
        for n in self.waits_for(node, w) {
            if n == start || self.dfs(n, start, path, seen) {
                return true;
            }
        }
        path.pop();
        false
    }
}

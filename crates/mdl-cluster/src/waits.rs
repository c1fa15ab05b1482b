//! Publishing a node's waits, and finding deadlocks that run through more than one node.
//!
//! A local deadlock detector cannot see a cycle that leaves the node: a stand-in's wait here
//! is its requester's wait, and the requester's own wait is on another node. So every
//! `wait_publish_interval` each node reads its lock manager's waits, replaces each stand-in by
//! the (node, context) it stands for, and publishes the edges under its lease (`w/<node>`,
//! only when they changed). Every node joins the published edges into one graph and looks for
//! cycles that cross nodes (cycles within one node are the local detector's).
//!
//! The victim is chosen the same way on every node from the same edges: the party on the
//! cycle with the newest travelling request (highest etcd revision; a party in no travelling
//! request ranks lowest), ties broken by the highest (node, context). Only the victim's node
//! acts, and only once the same cycle has been seen continuously for four publishing
//! intervals: published edges are snapshots taken at different moments, and a context that
//! waits again under the same id can pair an old edge with a new one into a cycle that never
//! was; a node republishes within one interval of a change, so a cycle that lasts four
//! intervals is made of current edges.
//! A victim in a travelling request gets `ClusterError::Deadlock` (its intent is deleted, so
//! every stand-in for it goes); any other victim's local wait is killed (`KILL QUERY`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use etcd_client::PutOptions;
use mdl_core::{BlockKind, ContextId, KillScope};
use tokio::time::timeout;

use crate::keys::{Party, PublishedWaits, WaitEdge};
use crate::node::{lock, Cancel, Inner};

/// This node's waits now, with stand-ins replaced by the requests they stand in for.
pub(crate) fn local_edges(inner: &Inner) -> Vec<WaitEdge> {
    let rows = inner.mgr.lock_waits().rows;
    if rows.is_empty() {
        return Vec::new();
    }
    let me = inner.me();
    let stand_ins = lock(&inner.stand_ins).clone();
    let travelling: HashMap<u64, i64> = lock(&inner.requesters)
        .values()
        .filter_map(|r| r.rev.map(|rev| (r.context, rev)))
        .collect();
    let mut edges = Vec::new();
    for r in rows {
        let Some(b) = r.blocker.context else { continue };
        let (waiter, waiter_label, waiter_intent) = match stand_ins.get(&r.waiting.as_u64()) {
            Some(s) => (s.party.clone(), s.label.clone(), Some(s.rev)),
            None => (
                Party {
                    node: me,
                    context: r.waiting.as_u64(),
                },
                r.waiting_label.as_deref().map(str::to_owned),
                travelling.get(&r.waiting.as_u64()).copied(),
            ),
        };
        let (blocker, blocker_label) = match stand_ins.get(&b.as_u64()) {
            Some(s) => (s.party.clone(), s.label.clone()),
            None => (
                Party {
                    node: me,
                    context: b.as_u64(),
                },
                r.blocker.label.as_deref().map(str::to_owned),
            ),
        };
        if waiter == blocker {
            continue;
        }
        edges.push(WaitEdge {
            waiter,
            waiter_label,
            waiter_intent,
            blocker,
            blocker_label,
            object: r.key.to_string(),
            requested: r.requested.to_string(),
            held: r.blocker.lock_type.to_string(),
            hard: r.blocker.kind == BlockKind::Hard,
            waited_ms: r.waited.as_millis() as u64,
            at: me,
        });
    }
    edges
}

/// The publisher and detector task of a node.
pub(crate) async fn run(inner: Arc<Inner>) {
    let mut shutdown = inner.shutdown.subscribe();
    let mut tick = tokio::time::interval(inner.cfg.wait_publish_interval);
    let mut published: Option<(i64, Vec<(Party, Party)>)> = None;
    // The cycle seen, and since when (see the module docs: a cycle is acted on only once it
    // has lasted long enough for every node to have republished its waits).
    let mut candidate: Option<(Vec<Party>, tokio::time::Instant)> = None;
    let settle = inner.cfg.wait_publish_interval * 4;
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = shutdown.changed() => return,
        }
        let (serving, lease) = {
            let v = inner.view();
            (v.serving, v.lease)
        };
        if !serving {
            continue;
        }
        let own = local_edges(&inner);
        let shape: Vec<(Party, Party)> = own
            .iter()
            .map(|e| (e.waiter.clone(), e.blocker.clone()))
            .collect();
        if published.as_ref() != Some(&(lease, shape.clone())) {
            let mut c = inner.client();
            let key = inner.layout.waits(inner.me());
            let done = if own.is_empty() {
                timeout(inner.cfg.request_timeout, c.delete(key, None))
                    .await
                    .is_ok_and(|r| r.is_ok())
            } else {
                let value = serde_json::to_string(&PublishedWaits { edges: own.clone() })
                    .unwrap_or_default();
                let opts = PutOptions::new().with_lease(lease);
                timeout(inner.cfg.request_timeout, c.put(key, value, Some(opts)))
                    .await
                    .is_ok_and(|r| r.is_ok())
            };
            if done {
                published = Some((lease, shape));
            } else {
                inner.etcd_failed();
            }
        }
        let mut edges = own;
        {
            let v = inner.view();
            for (n, e) in &v.waits {
                if *n != inner.me() {
                    edges.extend(e.iter().cloned());
                }
            }
        }
        let Some((victim, cycle)) = find_victim(&edges) else {
            candidate = None;
            continue;
        };
        let now = tokio::time::Instant::now();
        let since = match &candidate {
            Some((c, since)) if *c == cycle => *since,
            _ => {
                candidate = Some((cycle, now));
                continue;
            }
        };
        if now.duration_since(since) < settle {
            continue;
        }
        candidate = None;
        if victim.node == inner.me() {
            if inner.cancel_requester(victim.context, || Cancel::Deadlock(cycle.clone())) {
                inner
                    .counters
                    .deadlock_victims
                    .fetch_add(1, Ordering::Relaxed);
            } else {
                let _ = inner
                    .mgr
                    .kill(ContextId::new(victim.context), KillScope::Query);
            }
        }
    }
}

/// How a party ranks as a victim: its newest travelling request's revision, then its id.
type Rank = (Option<i64>, Party);

/// The victim of the first cycle that crosses nodes, with the cycle (see the module docs).
pub(crate) fn find_victim(edges: &[WaitEdge]) -> Option<(Party, Vec<Party>)> {
    let mut next: BTreeMap<&Party, BTreeSet<&Party>> = BTreeMap::new();
    for e in edges {
        next.entry(&e.waiter).or_default().insert(&e.blocker);
    }
    let mut best: Option<(Rank, Vec<Party>)> = None;
    for cycle in cycles(&next) {
        let crosses = cycle.iter().any(|p| p.node != cycle[0].node)
            || edges.iter().any(|e| {
                cycle.contains(&e.waiter)
                    && cycle.contains(&e.blocker)
                    && (e.at != e.waiter.node || e.at != e.blocker.node)
            });
        if !crosses {
            continue;
        }
        let rank = |p: &Party| {
            let rev = edges
                .iter()
                .filter(|e| e.waiter == *p)
                .filter_map(|e| e.waiter_intent)
                .max();
            (rev, p.clone())
        };
        let victim = cycle.iter().map(rank).max()?;
        if best.as_ref().is_none_or(|(b, _)| victim > *b) {
            best = Some((victim, cycle));
        }
    }
    best.map(|((_, p), c)| (p, c))
}

/// The elementary cycles found by a depth-first search (one per back edge).
fn cycles<'a>(next: &BTreeMap<&'a Party, BTreeSet<&'a Party>>) -> Vec<Vec<Party>> {
    let mut found = Vec::new();
    let mut done: BTreeSet<&Party> = BTreeSet::new();
    for &start in next.keys() {
        if done.contains(start) {
            continue;
        }
        let mut stack: Vec<(&Party, Vec<&Party>)> = vec![(start, next_of(next, start))];
        let mut on_path: Vec<&Party> = vec![start];
        while let Some((_, todo)) = stack.last_mut() {
            match todo.pop() {
                Some(n) => {
                    if let Some(i) = on_path.iter().position(|p| *p == n) {
                        found.push(on_path[i..].iter().map(|p| (*p).clone()).collect());
                    } else if !done.contains(n) {
                        on_path.push(n);
                        stack.push((n, next_of(next, n)));
                    }
                }
                None => {
                    let (n, _) = stack.pop().expect("non-empty");
                    on_path.pop();
                    done.insert(n);
                }
            }
        }
    }
    found
}

fn next_of<'a>(next: &BTreeMap<&'a Party, BTreeSet<&'a Party>>, p: &Party) -> Vec<&'a Party> {
    next.get(p)
        .map(|s| s.iter().copied().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(w: (u64, u64), b: (u64, u64), at: u64, rev: Option<i64>) -> WaitEdge {
        WaitEdge {
            waiter: Party {
                node: w.0,
                context: w.1,
            },
            waiter_label: None,
            waiter_intent: rev,
            blocker: Party {
                node: b.0,
                context: b.1,
            },
            blocker_label: None,
            object: "t".into(),
            requested: "X".into(),
            held: "SR".into(),
            hard: true,
            waited_ms: 0,
            at,
        }
    }

    /// The cycle: T1 (node 1) waits for D2's stand-in, D2 waits for T2 on node 2, T2
    /// waits for D1's stand-in, D1 waits for T1. The newest intent (D2, revision 20) loses.
    #[test]
    fn the_cycle_through_two_nodes_is_found_and_the_newest_intent_loses() {
        let edges = vec![
            edge((1, 11), (2, 2), 1, None),     // T1 -> D2 (stand-in on node 1)
            edge((2, 2), (2, 22), 2, Some(20)), // D2 -> T2
            edge((2, 22), (1, 1), 2, None),     // T2 -> D1 (stand-in on node 2)
            edge((1, 1), (1, 11), 1, Some(10)), // D1 -> T1
        ];
        let (victim, cycle) = find_victim(&edges).expect("a cycle");
        assert_eq!(
            victim,
            Party {
                node: 2,
                context: 2
            }
        );
        assert_eq!(cycle.len(), 4);
        // The same answer whatever order the edges come in.
        let mut rev = edges.clone();
        rev.reverse();
        assert_eq!(find_victim(&rev).unwrap().0, victim);
    }

    #[test]
    fn chains_and_local_cycles_are_not_cluster_deadlocks() {
        let chain = vec![
            edge((1, 1), (2, 2), 1, Some(5)),
            edge((2, 2), (2, 3), 2, None),
        ];
        assert!(find_victim(&chain).is_none());
        let local = vec![edge((1, 1), (1, 2), 1, None), edge((1, 2), (1, 1), 1, None)];
        assert!(find_victim(&local).is_none());
    }
}

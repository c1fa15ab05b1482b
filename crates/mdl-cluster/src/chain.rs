//! The local order of travelling requests on one object: which earlier requests a new one
//! waits for before it queues in the lock manager.
//!
//! A node admits intents in etcd's revision order (`session.rs`). Queueing each one as it comes
//! is not enough: the lock manager serves pending requests by priority, not only by arrival (a
//! pending X is served before an earlier pending SNW), and a request reaches each node at a
//! different moment relative to the grants there, so two nodes could grant two DDLs on one
//! object in opposite orders, and each would wait for the other's acknowledgement. So a new
//! request queues only once the earlier travelling requests on its object were granted here (or
//! ended): every node then grants them in revision order.
//!
//! # Upgrades go first
//!
//! One exception keeps MySQL's behaviour for a lock upgrade. A requester that holds a lock on
//! the object (an ALTER's SU) and asks for another (its X) would otherwise wait for every
//! travelling request ordered before its new one; one of those that conflicts with the held
//! lock waits for it to be released, which happens only after the upgrade: a deadlock outside
//! every lock manager's wait-for graph, which only a timeout would end. So an intent says which
//! types its requester holds on the object (`held`), and the new request waits only for the
//! requests before the first one, from another requester, that conflicts with one of them. That
//! one, and everything chained after it, waits for the requester's held lock:
//!
//! * If the held lock travelled (the ALTER's SU), it is held on every node (by the requester,
//!   and by its stand-ins elsewhere, in the context that takes the upgrade's stand-in too), so
//!   no node can grant those requests first: every node grants the upgrade first, as MySQL on
//!   one node does (a pending X does not hold up an upgrade).
//! * If it is held only on the requester's node (a transaction's SR), other nodes may grant one
//!   of those requests before the upgrade: the requests then wait for each other through the
//!   lock managers' graphs, and the detector of deadlocks across nodes (`waits.rs`) picks a
//!   victim instead of a timeout ending it.
//!
//! The requester says what it holds, rather than every node guessing it from the intents: its
//! earlier intent may still exist after it released the lock (the deletion runs in the
//! background), and a lock no longer held must not let a new request overtake the ones queued
//! behind it. The rule reads only the intents, the same on every node, so every node decides
//! alike.

use std::collections::{HashMap, HashSet};

use mdl_core::matrix::granted_incompatible;
use mdl_core::{LockType, MdlKey, Strategy};
use tokio::sync::watch;

use crate::keys::Party;

/// An admitted travelling request on an object.
struct Link {
    id: String,
    party: Party,
    lock_type: LockType,
    /// Says `true` once the request is granted on this node; closed when it ends.
    granted: watch::Receiver<bool>,
}

/// Per object, the travelling requests admitted on this node and not yet deleted, in revision
/// order.
#[derive(Default)]
pub(crate) struct Chains {
    by_key: HashMap<MdlKey, Vec<Link>>,
}

impl Chains {
    /// Appends a request of `party` (the latest by revision), whose requester holds the types
    /// `held` on the object, and returns the grant signals of the earlier requests it waits
    /// for.
    pub(crate) fn admit(
        &mut self,
        key: MdlKey,
        id: String,
        party: Party,
        lock_type: LockType,
        held: u16,
        granted: watch::Receiver<bool>,
    ) -> Vec<watch::Receiver<bool>> {
        let strategy = key.strategy();
        let links = self.by_key.entry(key).or_default();
        let n = waits_for(
            strategy,
            held,
            links.iter().map(|l| (l.party == party, l.lock_type)),
        );
        let after = links[..n].iter().map(|l| l.granted.clone()).collect();
        links.push(Link {
            id,
            party,
            lock_type,
            granted,
        });
        after
    }

    /// Forgets a deleted intent.
    pub(crate) fn remove(&mut self, key: &MdlKey, id: &str) {
        if let Some(links) = self.by_key.get_mut(key) {
            links.retain(|l| l.id != id);
            if links.is_empty() {
                self.by_key.remove(key);
            }
        }
    }

    /// Forgets every intent not in `live` (after a new snapshot).
    pub(crate) fn retain(&mut self, live: &HashSet<&str>) {
        self.by_key.retain(|_, links| {
            links.retain(|l| live.contains(l.id.as_str()));
            !links.is_empty()
        });
    }
}

/// How many of the earlier requests on an object (`(whether the new request's requester made
/// it, type)` in revision order) a new request waits for: all of them, or those before the
/// first request of another requester that conflicts with a type in `held`.
fn waits_for(
    strategy: Strategy,
    held: u16,
    earlier: impl Iterator<Item = (bool, LockType)>,
) -> usize {
    let mut n = 0;
    for (own, lock_type) in earlier {
        if !own && granted_incompatible(strategy, lock_type) & held != 0 {
            return n;
        }
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    const SR: LockType = LockType::SR;
    const SU: LockType = LockType::SU;
    const SRO: LockType = LockType::SRO;
    const SNW: LockType = LockType::SNW;
    const X: LockType = LockType::X;

    fn party(context: u64) -> Party {
        Party { node: 1, context }
    }

    /// `earlier`: (requester, type); the new request is requester 1's, which holds `held`.
    fn count(held: &[LockType], earlier: &[(u64, LockType)]) -> usize {
        let bits = held.iter().fold(0, |b, t| b | t.bit());
        waits_for(
            Strategy::Object,
            bits,
            earlier.iter().map(|&(c, t)| (c == 1, t)),
        )
    }

    #[test]
    fn a_new_requester_waits_for_everything_before_it() {
        assert_eq!(count(&[], &[]), 0);
        assert_eq!(count(&[], &[(2, SU), (3, X), (4, SNW)]), 3);
    }

    #[test]
    fn an_upgrade_skips_what_its_held_lock_blocks() {
        // The ALTER holds SU; 2's X and everything after it wait for the SU.
        assert_eq!(count(&[SU], &[(1, SU), (2, X), (3, SRO)]), 1);
        // 2's SRO is compatible with SU: it may be granted first, so the upgrade waits for it.
        assert_eq!(count(&[SU], &[(1, SU), (2, SRO), (3, X)]), 2);
        // Two upgrades in a row (SU, then SNW, then X) skip the same requests.
        assert_eq!(count(&[SU, SNW], &[(1, SU), (2, X), (1, SNW)]), 1);
        // A lock held only here (a transaction's SR) counts too.
        assert_eq!(count(&[SR], &[(2, X)]), 0);
    }

    #[test]
    fn requests_before_the_held_lock_are_still_waited_for() {
        assert_eq!(count(&[SU], &[(2, SRO), (1, SU), (3, X)]), 2);
    }

    #[test]
    fn a_released_lock_whose_intent_remains_skips_nothing() {
        assert_eq!(count(&[], &[(1, X), (2, X)]), 2);
    }

    #[test]
    fn the_rule_drops_links_of_deleted_intents() {
        let mut chains = Chains::default();
        let key = MdlKey::new(mdl_core::Namespace::Table, "d", "t").unwrap();
        let (_tx1, rx1) = watch::channel(false);
        let (_tx2, rx2) = watch::channel(false);
        assert!(chains
            .admit(key.clone(), "1/1".into(), party(1), SU, 0, rx1)
            .is_empty());
        assert_eq!(
            chains
                .admit(key.clone(), "2/1".into(), party(2), X, 0, rx2)
                .len(),
            1
        );
        chains.remove(&key, "1/1");
        chains.retain(&HashSet::from(["1/1"]));
        assert!(chains.by_key.is_empty());
    }
}

//! What a lock object tells the diagnostics and the errors: who blocks a request (see
//! `blocking.rs` for hard and soft), and who holds the object. Read under the object's
//! `read_recursive` lock by the caller; nothing here runs on the acquire path.

use super::*;
use crate::blocking::{BlockKind, Blocker};
use crate::queue::Entry;
use crate::types::ContextId;

impl LockObject {
    /// Who blocks a request of context `requester` for `ty`: the granted entries of other
    /// contexts that conflict with it and the shared-word counters that do (hard), and the
    /// pending entries of other contexts that have priority over it (soft).
    pub(crate) fn blockers(&self, st: &LockState, requester: u64, ty: LockType) -> Vec<Blocker> {
        let conflicts = granted_incompatible(self.strategy, ty);
        let priority = waiting_incompatible(self.strategy, st.matrix_idx, ty);
        let by_entry = |e: &Entry, kind| Blocker {
            context: Some(ContextId(e.ctx.id)),
            label: e.ctx.label(),
            lock_type: e.ty,
            duration: Some(e.duration),
            kind,
        };
        let mut out: Vec<Blocker> = st
            .granted()
            .filter(|e| e.ctx.serial != requester && conflicts & e.ty.bit() != 0)
            .map(|e| by_entry(e, BlockKind::Hard))
            .collect();
        let counters = fast_path_granted_bitmap(self.strategy, self.word.load(Ordering::Acquire));
        out.extend(
            LockType::ALL
                .into_iter()
                .filter(|t| counters & conflicts & t.bit() != 0)
                .map(|t| Blocker {
                    context: None,
                    label: None,
                    lock_type: t,
                    duration: None,
                    kind: BlockKind::Hard,
                }),
        );
        // Only if some pending type has priority: a timeout among thousands of waiters of one
        // type would otherwise walk all of them, under the object's lock, for nothing.
        if st.waiting_bitmap & priority != 0 {
            out.extend(
                st.waiting()
                    .filter(|e| e.ctx.serial != requester && priority & e.ty.bit() != 0)
                    .map(|e| by_entry(e, BlockKind::Soft)),
            );
        }
        out
    }

    /// The contexts that hold this object on the per-context fast path (not yet moved into the
    /// queue), with the type and duration of each slot: one scan of the slot table.
    pub(crate) fn slot_holders(
        &self,
        env: &Env,
    ) -> Vec<(Arc<ContextShared>, LockType, LockDuration)> {
        let mut out = Vec::new();
        let Some(address) = self.address() else {
            return out;
        };
        if self.word.load(Ordering::Acquire) & HAS_FAST_SLOTS == 0 {
            return out;
        }
        env.slots.for_each_holding(address, |_, w| {
            if let Slot::Held {
                tag, ty, duration, ..
            } = Slot::decode(w)
            {
                if let Some(ctx) = env.registry.get(tag) {
                    out.push((ctx, ty, duration));
                }
            }
        });
        out
    }
}

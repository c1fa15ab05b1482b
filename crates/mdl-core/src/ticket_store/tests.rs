//! The ticket store on its own: inline slots, spilling, the hash index, durations.

use super::*;
use crate::types::Namespace;

fn lock(name: &str) -> Arc<LockObject> {
    Arc::new(LockObject::new(
        MdlKey::new(Namespace::Table, "s", name).expect("valid"),
    ))
}

fn ticket(lock: &Arc<LockObject>, d: LockDuration) -> TicketData {
    TicketData {
        lock: lock.clone(),
        hold: Hold::Entry(0),
        ty: LockType::SR,
        duration: d,
        hton_notified: false,
    }
}

/// Inline and spill tickets answer alike: handles, generations, the find order across both
/// tiers and both index modes, durations, and releasing a duration's newest tickets.
#[test]
fn inline_then_spill_with_and_without_index() {
    for mode in [TicketIndex::Hashed, TicketIndex::LinearList] {
        let mut st = TicketStore::new(mode);
        let locks: Vec<_> = (0..300).map(|i| lock(&format!("t{i}"))).collect();
        let mut handles = Vec::new();
        for (i, l) in locks.iter().enumerate() {
            let d = LockDuration::ALL[i % 3];
            assert_eq!(
                st.next_slot(),
                if i < 16 {
                    i as u32
                } else {
                    SPILL + i as u32 - 16
                }
            );
            handles.push(st.insert(ticket(l, d)));
        }
        assert_eq!(st.len(), 300);
        assert_eq!(st.index_active(), mode == TicketIndex::Hashed);
        for (i, l) in locks.iter().enumerate() {
            let d = LockDuration::ALL[i % 3];
            assert_eq!(
                st.find(l, LockType::SR, d),
                Some(handles[i].0),
                "{mode:?} {i}"
            );
            assert!(st.check(handles[i].0, handles[i].1));
        }
        // A second ticket on lock 0 in its own duration is newer: found first.
        let again = st.insert(ticket(&locks[0], LockDuration::Statement));
        assert_eq!(
            st.find(&locks[0], LockType::SR, LockDuration::Statement),
            Some(again.0)
        );
        // Another duration first: the request's own duration ranks first.
        assert_eq!(
            st.find(&locks[1], LockType::SR, LockDuration::Statement),
            Some(handles[1].0)
        );
        let removed = st.remove(again.0);
        assert!(Arc::ptr_eq(&removed.lock, &locks[0]));
        assert!(!st.check(again.0, again.1), "stale handle");
        // Statement tickets, newest first, across both tiers.
        let stmt = st.of(LockDuration::Statement);
        assert_eq!(stmt.len(), 100);
        assert!(stmt.windows(2).all(|w| st.seq(w[0]) > st.seq(w[1])));
        assert_eq!(st.inline_of(LockDuration::Statement, 0).count_ones(), 6);
        for &s in &stmt {
            assert_eq!(
                st.newest_of(LockDuration::Statement, 0),
                Some(s),
                "newest first"
            );
            st.remove(s);
        }
        assert_eq!(st.len(), 200);
        assert_eq!(st.len_of(LockDuration::Statement), 0);
        assert_eq!(
            st.find(&locks[0], LockType::SR, LockDuration::Statement),
            None
        );
        for s in st.all_slots() {
            st.remove(s);
        }
        assert_eq!(st.len(), 0);
        assert!(st.is_empty());
        assert!(st.index.is_empty());
        for d in LockDuration::ALL {
            assert_eq!(st.newest_of(d, 0), None);
            assert_eq!(st.len_of(d), 0);
        }
    }
}

/// Which tickets of a duration are held (`inline_of`, `holds_any_of`) follows inserts,
/// removals and duration changes, inline and spilled (a scan of the inline slots and the
/// counts are the definitions).
#[test]
fn tickets_of_a_duration_follow_inserts_removals_and_moves() {
    let scan = |st: &TicketStore, d: LockDuration, newer_than: u64| -> u16 {
        (0..INLINE_TICKETS)
            .filter(|&i| {
                st.inline[i].as_ref().is_some_and(|t| t.duration == d)
                    && st.inline_seq[i] >= newer_than
            })
            .fold(0, |bits, i| bits | 1 << i)
    };
    let locks: Vec<_> = (0..40).map(|i| lock(&format!("b{i}"))).collect();
    let mut st = TicketStore::new(TicketIndex::Hashed);
    let mut held: Vec<u32> = Vec::new();
    // A fixed linear congruential sequence: reproducible, no dependency.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize % n
    };
    for step in 0..5_000 {
        match next(4) {
            0 | 1 if held.len() < 30 => {
                let d = LockDuration::ALL[next(3)];
                held.push(st.insert(ticket(&locks[next(locks.len())], d)).0);
            }
            2 if !held.is_empty() => {
                let s = held.swap_remove(next(held.len()));
                st.remove(s);
            }
            _ if !held.is_empty() => {
                let s = held[next(held.len())];
                st.move_to(s, LockDuration::ALL[next(3)], next(2) == 0);
            }
            _ => {}
        }
        let newer_than = next(step + 2) as u64;
        for d in LockDuration::ALL {
            assert_eq!(st.inline_of(d, 0), scan(&st, d, 0), "step {step}");
            assert_eq!(st.inline_of(d, newer_than), scan(&st, d, newer_than));
            assert_eq!(st.holds_any_of(d), st.len_of(d) > 0, "step {step} {d:?}");
        }
    }
}

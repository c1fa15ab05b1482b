//! Every duration's release path (`docs/semantics.md` §9), savepoints, clones, `acquire_many`,
//! ticket reuse by `find_ticket`, duration changes, and release on context drop. Each test runs
//! with the fast path on and off. Whether a lock is held is checked from another context with
//! `try_acquire` of X.

use std::sync::Arc;

use mdl_core::*;
use mdl_reference::matrix::*;
use mdl_reference::support::*;
use LockDuration::{Explicit, Statement, Transaction};

/// `c` locks table `s` for the statement, `t` for the transaction and `e` explicitly, with
/// `types` in that order; returns the three keys and their tickets.
fn one_lock_per_duration(c: &mut MdlContext, types: [LockType; 3]) -> ([MdlKey; 3], [Ticket; 3]) {
    let keys = [table("s"), table("t"), table("e")];
    let durations = [Statement, Transaction, Explicit];
    let tickets = std::array::from_fn(|i| take(c, &keys[i], types[i], durations[i]));
    (keys, tickets)
}

#[test]
fn statement_locks_end_with_the_statement() {
    for (name, _, mut c, mut o) in two_contexts_per_mode() {
        let types = [LockType::SR, LockType::SW, LockType::SNRW];
        let (keys, _) = one_lock_per_duration(&mut c, types);
        assert_eq!(c.lock_count(), 3, "{name}");
        c.release_statement_locks();
        let held = keys.each_ref().map(|k| held_by_others(&mut o, k));
        assert_eq!(held, [false, true, true], "{name}");
        assert_eq!(c.lock_count_of(Statement), 0);
        assert_eq!(c.lock_count_of(Transaction), 1);
        assert_eq!(c.lock_count_of(Explicit), 1);
    }
}

#[test]
fn transaction_end_releases_statement_and_transaction_locks_only() {
    for (name, m, mut c, mut o) in two_contexts_per_mode() {
        let types = [LockType::SR, LockType::X, LockType::S];
        let (keys, [.., explicit]) = one_lock_per_duration(&mut c, types);
        c.release_transactional_locks();
        let held = keys.each_ref().map(|k| held_by_others(&mut o, k));
        assert_eq!(held, [false, false, true], "{name}");
        assert!(c.has_locks());
        c.release(explicit).unwrap();
        assert!(!held_by_others(&mut o, &keys[2]), "{name}");
        assert!(!c.has_locks());
        assert_eq!(m.unused_lock_object_count(), m.lock_object_count());
    }
}

#[test]
fn explicit_release_of_one_ticket_of_any_duration() {
    for (_, _, mut c, mut o) in two_contexts_per_mode() {
        for d in LockDuration::ALL {
            let k = table(&format!("t{d:?}"));
            let t = take(&mut c, &k, LockType::SR, d);
            assert_eq!(c.ticket_info(t).unwrap().duration, d);
            assert!(held_by_others(&mut o, &k));
            c.release(t).unwrap();
            assert!(!held_by_others(&mut o, &k));
            assert_eq!(c.release(t), Err(MdlError::InvalidTicket));
        }
        assert!(!c.has_locks());
    }
}

#[test]
fn release_all_locks_for_name_releases_every_explicit_ticket_on_the_lock() {
    for (_, _, mut c, mut o) in two_contexts_per_mode() {
        let u = MdlKey::new(Namespace::UserLevelLock, "", "my_lock").unwrap();
        let other = MdlKey::new(Namespace::UserLevelLock, "", "other").unwrap();
        // GET_LOCK twice: EXPLICIT requests always get their own ticket.
        let t1 = take(&mut c, &u, LockType::X, Explicit);
        let t2 = take(&mut c, &u, LockType::X, Explicit);
        assert_ne!(t1, t2);
        let t3 = take(&mut c, &other, LockType::X, Explicit);
        c.release(t1).unwrap();
        assert!(held_by_others(&mut o, &u), "one GET_LOCK still holds it");
        c.release_all_locks_for_name(t2).unwrap();
        assert!(!held_by_others(&mut o, &u));
        assert!(held_by_others(&mut o, &other));
        assert_eq!(c.ticket_info(t3).unwrap().key, other);
        assert_eq!(c.lock_count(), 1);
    }
}

#[test]
fn dropping_a_context_releases_everything() {
    for m in managers_per_mode() {
        let mut o = m.new_context();
        let keys: Vec<MdlKey> = (0..5).map(|i| table(&format!("t{i}"))).collect();
        {
            let mut c = m.new_context();
            for (i, k) in keys.iter().enumerate() {
                let t = [
                    LockType::SR,
                    LockType::SW,
                    LockType::SU,
                    LockType::X,
                    LockType::S,
                ][i];
                take(&mut c, k, t, LockDuration::ALL[i % 3]);
            }
            let g = MdlKey::singleton(Namespace::Global).unwrap();
            take(&mut c, &g, LockType::IX, Explicit);
            assert_eq!(m.context_count(), 2);
        }
        assert_eq!(m.context_count(), 1);
        for k in &keys {
            assert!(!held_by_others(&mut o, k));
        }
        assert!(m.slow_path_locks().is_empty());
        assert_eq!(m.unused_lock_object_count(), m.lock_object_count());
    }
}

#[test]
fn savepoint_rollback_releases_newer_statement_and_transaction_locks() {
    for (name, _, mut c, mut o) in two_contexts_per_mode() {
        let k: Vec<MdlKey> = (0..6).map(|i| table(&format!("t{i}"))).collect();
        let old_t = take(&mut c, &k[0], LockType::SW, Transaction);
        let old_s = take(&mut c, &k[1], LockType::SR, Statement);
        let sp = c.savepoint();
        let new_t = take(&mut c, &k[2], LockType::SW, Transaction);
        let new_s = take(&mut c, &k[3], LockType::SR, Statement);
        let new_e = take(&mut c, &k[4], LockType::SNRW, Explicit);
        assert!(c.has_lock(sp, old_t).unwrap());
        assert!(c.has_lock(sp, old_s).unwrap());
        assert!(!c.has_lock(sp, new_t).unwrap());
        assert!(!c.has_lock(sp, new_s).unwrap());
        assert!(
            c.has_lock(sp, new_e).unwrap(),
            "explicit locks survive rollbacks"
        );
        c.rollback_to_savepoint(sp).unwrap();
        for (i, want) in [true, true, false, false, true].into_iter().enumerate() {
            assert_eq!(held_by_others(&mut o, &k[i]), want, "[{name}] t{i}");
        }
        assert_eq!(c.ticket_info(new_t).unwrap_err(), MdlError::InvalidTicket);
        assert!(c.ticket_info(old_t).is_ok());
        // Rolling back again is a no-op; a savepoint at the start releases all but EXPLICIT.
        c.rollback_to_savepoint(sp).unwrap();
        assert_eq!(c.lock_count(), 3);
    }
}

#[test]
fn nested_savepoints_and_start_of_transaction() {
    let (_m, mut c) = one_context();
    let k: Vec<MdlKey> = (0..4).map(|i| table(&format!("t{i}"))).collect();
    let sp0 = c.savepoint();
    c.acquire(&treq(&k[0], LockType::SR), LONG).unwrap();
    let sp1 = c.savepoint();
    c.acquire(&treq(&k[1], LockType::SR), LONG).unwrap();
    let sp2 = c.savepoint();
    c.acquire(&treq(&k[2], LockType::SR), LONG).unwrap();
    c.rollback_to_savepoint(sp2).unwrap();
    assert_eq!(c.lock_count(), 2);
    c.acquire(&treq(&k[3], LockType::SR), LONG).unwrap();
    c.rollback_to_savepoint(sp1).unwrap();
    assert_eq!(c.lock_count(), 1);
    assert!(c.owns_equal_or_stronger_lock(&k[0], LockType::SR));
    c.rollback_to_savepoint(sp0).unwrap();
    assert!(!c.has_locks());
}

#[test]
fn savepoint_keeps_a_reused_older_ticket() {
    // A request satisfied by a ticket taken before the savepoint reuses it (same duration),
    // so the rollback must not release it.
    let (_m, mut c, mut o) = two_contexts();
    let k = table("t");
    let t0 = take(&mut c, &k, LockType::SW, Transaction);
    let sp = c.savepoint();
    let t1 = take(&mut c, &k, LockType::SR, Transaction);
    assert_eq!(
        t0, t1,
        "SW satisfies SR in the same duration: the same ticket"
    );
    c.rollback_to_savepoint(sp).unwrap();
    assert!(c.ticket_info(t0).is_ok());
    assert!(!can_take(&mut o, &k, LockType::SNW));
}

#[test]
fn find_ticket_reuse_and_clone_rules() {
    let (_m, mut c) = one_context();
    let k = table("t");
    let x = take(&mut c, &k, LockType::X, Transaction);
    // Same duration, weaker type: same ticket.
    for t in OBJ {
        assert_eq!(c.acquire(&treq(&k, t), LONG).unwrap(), x);
    }
    assert_eq!(c.lock_count(), 1);
    // Another duration: a clone with the requested type and duration.
    let s = take(&mut c, &k, LockType::SR, Statement);
    assert_ne!(s, x);
    assert_eq!(c.ticket_info(s).unwrap().lock_type, LockType::SR);
    assert_eq!(c.ticket_info(s).unwrap().duration, Statement);
    // EXPLICIT: always a new ticket, even for the same request twice.
    let e1 = take(&mut c, &k, LockType::S, Explicit);
    let e2 = take(&mut c, &k, LockType::S, Explicit);
    assert_ne!(e1, e2);
    assert_eq!(c.lock_count(), 4);
    assert!(c.owns_equal_or_stronger_lock(&k, LockType::X));
    c.release(x).unwrap();
    assert_eq!(c.lock_count(), 3);
    assert!(c.owns_equal_or_stronger_lock(&k, LockType::SR));
    assert!(!c.owns_equal_or_stronger_lock(&k, LockType::SW));
}

#[test]
fn owns_equal_or_stronger_lock_follows_the_reference_relation() {
    for held_t in OBJ {
        let (_m, mut c) = one_context();
        let k = table("t");
        c.acquire(&treq(&k, held_t), LONG).unwrap();
        for want in OBJ {
            assert_eq!(
                c.owns_equal_or_stronger_lock(&k, want),
                obj_stronger_or_equal(held_t, want),
                "holding {held_t:?}, asking {want:?}"
            );
        }
        assert!(!c.owns_equal_or_stronger_lock(&table("other"), LockType::S));
    }
    // Scoped: S does not satisfy IX (§8), X satisfies all.
    let (_m, mut c) = one_context();
    let g = MdlKey::singleton(Namespace::Global).unwrap();
    take(&mut c, &g, LockType::S, Transaction);
    assert!(c.owns_equal_or_stronger_lock(&g, LockType::S));
    assert!(!c.owns_equal_or_stronger_lock(&g, LockType::IX));
    let sch = MdlKey::new(Namespace::Schema, "db", "").unwrap();
    take(&mut c, &sch, LockType::X, Transaction);
    for t in SCOPED {
        assert!(c.owns_equal_or_stronger_lock(&sch, t));
    }
}

#[test]
fn clone_ticket_holds_independently_of_its_source() {
    for (name, cfg) in configs() {
        for src in OBJ {
            for dst in OBJ.into_iter().filter(|&d| obj_stronger_or_equal(src, d)) {
                let (_m, mut c, mut o) = two_contexts_with(cfg.clone());
                let k = table("t");
                let t = c.acquire(&treq(&k, src), LONG).unwrap();
                let cl = c.clone_ticket(t, dst, Explicit).unwrap();
                let info = c.ticket_info(cl).unwrap();
                assert_eq!((info.lock_type, info.duration), (dst, Explicit));
                c.release_transactional_locks();
                assert_eq!(c.ticket_info(t).unwrap_err(), MdlError::InvalidTicket);
                // The clone alone now decides what others may take.
                for other in OBJ {
                    assert_eq!(
                        can_take(&mut o, &k, other),
                        obj_compatible(other, dst),
                        "[{name}] clone {src:?}->{dst:?}, other wants {other:?}"
                    );
                }
                c.release(cl).unwrap();
                assert!(can_take(&mut o, &k, LockType::X));
            }
        }
    }
}

#[test]
fn clone_to_a_stronger_type_is_refused() {
    let (_m, mut c) = one_context();
    let k = table("t");
    let t = take(&mut c, &k, LockType::SR, Transaction);
    assert_eq!(
        c.clone_ticket(t, LockType::SW, Transaction),
        Err(MdlError::InvalidLockChange {
            held: LockType::SR,
            requested: LockType::SW
        })
    );
    assert_eq!(c.lock_count(), 1);
}

#[test]
fn set_lock_duration_moves_a_ticket_between_release_paths() {
    let (_m, mut c, mut o) = two_contexts();
    let k = table("t");
    let t = take(&mut c, &k, LockType::SW, Transaction);
    c.set_lock_duration(t, Explicit).unwrap();
    c.release_transactional_locks();
    assert!(held_by_others(&mut o, &k));
    c.set_lock_duration(t, Statement).unwrap();
    assert_eq!(c.ticket_info(t).unwrap().duration, Statement);
    c.release_statement_locks();
    assert!(!held_by_others(&mut o, &k));
}

#[test]
fn lock_tables_and_unlock_tables_duration_switches() {
    for (_, _, mut c, mut o) in two_contexts_per_mode() {
        let (a, b, s) = (table("a"), table("b"), table("s"));
        take(&mut c, &a, LockType::SRO, Transaction);
        take(&mut c, &b, LockType::SNRW, Transaction);
        take(&mut c, &s, LockType::SR, Statement);
        // LOCK TABLES: every lock becomes EXPLICIT and survives COMMIT.
        c.set_explicit_duration_for_all_locks();
        assert_eq!(c.lock_count_of(Explicit), 3);
        c.release_transactional_locks();
        assert!(
            held_by_others(&mut o, &a) && held_by_others(&mut o, &b) && held_by_others(&mut o, &s)
        );
        // UNLOCK TABLES: back to TRANSACTION, older than any savepoint, released at COMMIT.
        let sp = c.savepoint();
        c.set_transaction_duration_for_all_locks();
        assert_eq!(c.lock_count_of(Transaction), 3);
        c.rollback_to_savepoint(sp).unwrap();
        assert_eq!(c.lock_count(), 3);
        c.release_transactional_locks();
        assert!(!c.has_locks());
        assert!(
            !held_by_others(&mut o, &a)
                && !held_by_others(&mut o, &b)
                && !held_by_others(&mut o, &s)
        );
    }
}

/// Records the keys of the exclusive requests its context makes, in order.
#[derive(Default)]
struct XOrder(std::sync::Mutex<Vec<String>>);

impl MdlOwner for XOrder {
    fn notify_hton_pre_acquire_exclusive(&self, key: &MdlKey) -> Result<(), EngineRefusal> {
        self.0.lock().unwrap().push(key.name().to_string());
        Ok(())
    }
}

#[test]
fn acquire_many_sorts_and_is_all_or_nothing() {
    for (_, mgr, mut c, mut o) in two_contexts_per_mode() {
        let (a, b, z) = (table("a"), table("b"), table("z"));
        let reqs = vec![
            treq(&z, LockType::X),
            treq(&a, LockType::SRO),
            treq(&a, LockType::SNRW),
            treq(&b, LockType::X),
        ];
        let tickets = c.acquire_many(&reqs, LONG).unwrap();
        // One ticket per request, in the caller's order. For `a` the stronger SNRW was taken
        // first and the SRO request is satisfied by it (same duration): the same ticket.
        assert_eq!(tickets.len(), 4);
        let info: Vec<(String, LockType)> = tickets
            .iter()
            .map(|&t| c.ticket_info(t).unwrap())
            .map(|i| (i.key.name().to_string(), i.lock_type))
            .collect();
        assert_eq!(
            info,
            vec![
                ("z".into(), LockType::X),
                ("a".into(), LockType::SNRW),
                ("a".into(), LockType::SNRW),
                ("b".into(), LockType::X)
            ]
        );
        assert_eq!(tickets[1], tickets[2]);
        c.release_transactional_locks();

        // Keys are taken in MySQL's order whatever the caller's: the exclusive requests reach
        // the owner's storage-engine hook as a, b, z.
        let order = Arc::new(XOrder::default());
        let mut w = mgr.new_context_with_owner(order.clone());
        let xs = vec![
            treq(&z, LockType::X),
            treq(&b, LockType::X),
            treq(&a, LockType::X),
        ];
        w.acquire_many(&xs, LONG).unwrap();
        assert_eq!(*order.0.lock().unwrap(), ["a", "b", "z"]);
        drop(w);

        // `z` is taken by another context: nothing of the batch stays, EXPLICIT included.
        let zt = take(&mut o, &z, LockType::SR, Transaction);
        let reqs = vec![
            req(&a, LockType::X, Explicit),
            req(&b, LockType::X, Transaction),
            req(&z, LockType::X, Statement),
        ];
        assert_eq!(
            c.acquire_many(&reqs, std::time::Duration::from_millis(20))
                .kinded(),
            Err(ErrorKind::Timeout)
        );
        assert!(!c.has_locks());
        o.release(zt).unwrap();
        assert!(can_take(&mut o, &a, LockType::X) && can_take(&mut o, &b, LockType::X));
        // Empty batch.
        assert!(c.acquire_many(&[], LONG).unwrap().is_empty());
    }
}

#[test]
fn acquire_many_with_duplicate_keys() {
    let (_m, mut c, mut o) = two_contexts();
    let (a, z) = (table("a"), table("z"));
    // LOCK TABLES a READ, a WRITE: SNRW first, SRO then reuses it (same duration).
    let reqs = vec![treq(&a, LockType::SRO), treq(&a, LockType::SNRW)];
    let tickets = c.acquire_many(&reqs, LONG).unwrap();
    assert_eq!(c.ticket_info(tickets[0]).unwrap().lock_type, LockType::SNRW);
    assert_eq!(tickets[0], tickets[1]);
    assert_eq!(c.lock_count(), 1);
    c.release_transactional_locks();
    // Failure after duplicates: everything of the batch goes, older locks stay.
    let old = c.acquire(&treq(&table("old"), LockType::SR), LONG).unwrap();
    let zt = take(&mut o, &z, LockType::SR, Transaction);
    let reqs = vec![
        treq(&a, LockType::X),
        req(&a, LockType::SR, LockDuration::Explicit),
        treq(&a, LockType::SR),
        treq(&z, LockType::X),
    ];
    assert_eq!(
        c.acquire_many(&reqs, ZERO).kinded(),
        Err(ErrorKind::Timeout)
    );
    assert_eq!(c.lock_count(), 1);
    assert!(c.ticket_info(old).is_ok());
    assert!(can_take(&mut o, &a, LockType::X));
    o.release(zt).unwrap();
}

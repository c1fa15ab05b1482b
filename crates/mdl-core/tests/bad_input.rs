//! Bad input is a typed error, never a panic, and leaves the context's locks untouched:
//! long names, NUL bytes, names on singleton namespaces, lock types a namespace does not take,
//! tickets of other contexts, released tickets, foreign savepoints, bad configurations.

use mdl_core::*;
use mdl_reference::matrix::*;
use mdl_reference::support::*;

#[test]
fn names_longer_than_64_characters() {
    let ok = "x".repeat(NAME_CHAR_LEN);
    let long = "x".repeat(NAME_CHAR_LEN + 1);
    assert!(MdlKey::new(Namespace::Table, &ok, &ok).is_ok());
    let too_long = |part, chars| MdlError::NameTooLong {
        part,
        name: long.as_str().into(),
        chars,
    };
    assert_eq!(
        MdlKey::new(Namespace::Table, &long, "t").unwrap_err(),
        too_long(KeyPart::Schema, 65)
    );
    assert_eq!(
        MdlKey::new(Namespace::Table, "db", &long).unwrap_err(),
        too_long(KeyPart::Name, 65)
    );
    assert_eq!(
        MdlKey::column_statistics("db", "t", &long).unwrap_err(),
        too_long(KeyPart::Column, 65)
    );
    // The message names the name, as MySQL's ER_TOO_LONG_IDENT does, and which part it is.
    assert_eq!(
        MdlKey::new(Namespace::Table, "db", &long)
            .unwrap_err()
            .to_string(),
        format!(
            "Identifier name '{long}' is too long (the key's name has 65 characters; \
             the limit is 64)"
        )
    );
    // Characters, not bytes: 64 four-byte characters are fine.
    let wide = "𝄞".repeat(64);
    let k = MdlKey::new(Namespace::Table, &wide, &wide).unwrap();
    assert_eq!(k.schema(), wide);
    assert_eq!(k.name(), wide);
    assert!(matches!(
        MdlKey::new(Namespace::Table, "db", &"𝄞".repeat(65)),
        Err(MdlError::NameTooLong { chars: 65, .. })
    ));
    assert!(MdlKey::new(Namespace::Table, "db", &"y".repeat(10_000)).is_err());
    // Every namespace checks.
    for ns in Namespace::ALL.into_iter().filter(|n| !n.is_singleton()) {
        assert!(matches!(
            MdlKey::new(ns, "db", &long),
            Err(MdlError::NameTooLong { .. })
        ));
    }
    // A key with long-but-legal names locks normally.
    let (_m, mut c) = one_context();
    c.acquire(&treq(&k, LockType::X), LONG).unwrap();
}

#[test]
fn malformed_keys() {
    // The message says which name holds the NUL.
    let nul = |k: Result<MdlKey>| k.unwrap_err().to_string();
    assert_eq!(
        nul(MdlKey::new(Namespace::Table, "a\0b", "t")),
        "invalid metadata lock key: the schema name contains a NUL byte"
    );
    assert_eq!(
        nul(MdlKey::new(Namespace::Table, "db", "t\0")),
        "invalid metadata lock key: the object name contains a NUL byte"
    );
    assert_eq!(
        nul(MdlKey::column_statistics("db", "t", "\0")),
        "invalid metadata lock key: the column name contains a NUL byte"
    );
    for ns in [
        Namespace::Global,
        Namespace::Commit,
        Namespace::BackupLock,
        Namespace::AclCache,
    ] {
        assert!(matches!(
            MdlKey::new(ns, "db", "x"),
            Err(MdlError::InvalidKey(_))
        ));
        assert!(MdlKey::singleton(ns).is_ok());
    }
    assert!(matches!(
        MdlKey::singleton(Namespace::Table),
        Err(MdlError::InvalidKey(_))
    ));
    // Empty names are legal (MySQL uses them, e.g. SCHEMA keys have no object name).
    assert!(MdlKey::new(Namespace::Schema, "db", "").is_ok());
}

#[test]
fn lock_types_a_namespace_does_not_take() {
    let (_m, mut c) = one_context();
    let t = table("t");
    let g = MdlKey::singleton(Namespace::Global).unwrap();
    assert_eq!(
        c.try_acquire(&treq(&t, LockType::IX)).unwrap_err(),
        MdlError::InvalidLockType {
            namespace: Namespace::Table,
            lock_type: LockType::IX
        }
    );
    for bad in OBJ
        .into_iter()
        .filter(|&t| !matches!(t, LockType::S | LockType::X))
    {
        assert!(matches!(
            c.acquire(&treq(&g, bad), LONG),
            Err(MdlError::InvalidLockType { .. })
        ));
    }
    let reqs = vec![treq(&t, LockType::SR), treq(&g, LockType::SU)];
    assert!(c.acquire_many(&reqs, LONG).is_err());
    assert!(!c.has_locks());
    // Clone / downgrade of a scoped ticket into an object type.
    let ix = c.acquire(&treq(&g, LockType::X), LONG).unwrap();
    assert!(matches!(
        c.clone_ticket(ix, LockType::SR, LockDuration::Explicit),
        Err(MdlError::InvalidLockType { .. })
    ));
    assert!(c.downgrade(ix, LockType::SNW).is_err());
    assert_eq!(c.lock_count(), 1);
}

#[test]
fn tickets_of_another_context() {
    for (_, _m, mut a, mut b) in two_contexts_per_mode() {
        let k = table("t");
        let ta = a.acquire(&treq(&k, LockType::SU), LONG).unwrap();
        // B's own first ticket may use the same slot number: it must still be refused.
        let tb = b.acquire(&treq(&table("u"), LockType::SR), LONG).unwrap();
        assert_every_use_refused(&mut b, ta, LockType::S, LockDuration::Explicit);
        assert_eq!(b.ticket_info(ta).unwrap_err(), MdlError::InvalidTicket);
        let sp = b.savepoint();
        assert_eq!(b.has_lock(sp, ta), Err(MdlError::InvalidTicket));
        // Nothing changed for either context.
        assert_eq!(a.ticket_info(ta).unwrap().lock_type, LockType::SU);
        assert_eq!(b.ticket_info(tb).unwrap().lock_type, LockType::SR);
        assert!(!can_take(&mut b, &k, LockType::SU));
        // A ticket of a context in another manager.
        let m2 = mgr();
        let mut c = m2.new_context();
        assert_eq!(c.release(ta), Err(MdlError::InvalidTicket));
    }
}

/// Asserts that `c` refuses every use of ticket `t` with `InvalidTicket`: release, upgrade to
/// X (without waiting), downgrade to `weaker`, a clone of `weaker` for `d`, a change to `d`,
/// and releasing every lock on its name.
fn assert_every_use_refused(c: &mut MdlContext, t: Ticket, weaker: LockType, d: LockDuration) {
    let refused = Err(MdlError::InvalidTicket);
    assert_eq!(c.release(t), refused);
    assert_eq!(c.upgrade(t, LockType::X, ZERO), refused);
    assert_eq!(c.downgrade(t, weaker), refused);
    assert_eq!(c.clone_ticket(t, weaker, d).map(|_| ()), refused);
    assert_eq!(c.set_lock_duration(t, d), refused);
    assert_eq!(c.release_all_locks_for_name(t), refused);
}

#[test]
fn released_tickets() {
    let (_m, mut c) = one_context();
    let k = table("t");
    for d in LockDuration::ALL {
        let t = take(&mut c, &k, LockType::SNW, d);
        match d {
            LockDuration::Statement => c.release_statement_locks(),
            LockDuration::Transaction => c.release_transactional_locks(),
            LockDuration::Explicit => c.release(t).unwrap(),
        }
        assert_every_use_refused(&mut c, t, LockType::SR, d);
    }
    // A ticket released by an upgrade's rollback path is still the caller's and valid.
    let t = c.acquire(&treq(&k, LockType::SU), LONG).unwrap();
    c.upgrade(t, LockType::X, ZERO).unwrap();
    c.release(t).unwrap();
    assert!(!c.has_locks());
}

#[test]
fn savepoint_of_another_context() {
    let m = mgr();
    let a = m.new_context();
    let mut b = m.new_context();
    let t = b.acquire(&treq(&table("t"), LockType::SR), LONG).unwrap();
    let sp = a.savepoint();
    assert_eq!(b.rollback_to_savepoint(sp), Err(MdlError::InvalidSavepoint));
    assert_eq!(b.has_lock(sp, t), Err(MdlError::InvalidSavepoint));
    assert_eq!(b.lock_count(), 1);
}

#[test]
fn invalid_configurations() {
    let changes: [fn(&mut MdlConfig); 6] = [
        |c| c.shards = 0,
        |c| c.shards = 1025,
        |c| c.max_write_lock_count = 0,
        |c| c.unused_locks_min_ratio = 1.5,
        |c| c.unused_locks_min_ratio = -0.1,
        |c| c.unused_locks_min_ratio = f64::NAN,
    ];
    let bad = changes.map(|change| {
        let mut cfg = MdlConfig::default();
        change(&mut cfg);
        cfg
    });
    for cfg in bad {
        assert!(
            matches!(
                MdlManager::new(cfg.clone()),
                Err(MdlError::InvalidConfig(_))
            ),
            "{cfg:?}"
        );
    }
    assert!(MdlManager::new(
        MdlConfig::builder()
            .shards(1024)
            .max_write_lock_count(1)
            .build()
            .expect("a valid configuration")
    )
    .is_ok());
}

#[test]
fn errors_display_and_codes() {
    for (k, code) in [
        (ErrorKind::Timeout, Some(1205)),
        (ErrorKind::Deadlock, Some(1213)),
        (ErrorKind::Killed, Some(1317)),
        (ErrorKind::RefusedByEngine, Some(3177)),
        (ErrorKind::NameTooLong, Some(1059)),
        (ErrorKind::UnknownContext, Some(1094)),
        (ErrorKind::GrantsClosed, Some(3032)),
        (ErrorKind::InvalidTicket, None),
    ] {
        assert_eq!(k.mysql_error_code(), code);
    }
    for e in [MdlError::RefusedByEngine, MdlError::InvalidTicket] {
        assert_eq!(e.mysql_error_code(), e.kind().mysql_error_code());
        assert!(!e.to_string().is_empty());
    }
    // A real timeout: its code, and a message that names the request.
    let m = mgr();
    let t = table("t");
    let mut a = m.new_context();
    a.acquire(&treq(&t, LockType::X), LONG).unwrap();
    let e = refused(&m, &t, LockType::SR);
    assert_eq!(e.mysql_error_code(), Some(1205));
    assert!(e.to_string().contains("SHARED_READ"), "{e}");
}

#[test]
fn ticket_of_a_context_in_another_manager() {
    // A ticket names its context by id (plus slot and generation); ids are unique across
    // managers, so the first contexts of two managers (same slot, same generation) never accept
    // each other's tickets.
    let m1 = mgr();
    let m2 = mgr();
    let mut a = m1.new_context();
    let mut c = m2.new_context();
    assert_ne!(a.id(), c.id());
    let ta = a.acquire(&treq(&table("t"), LockType::X), LONG).unwrap();
    let tc = c.acquire(&treq(&table("u"), LockType::X), LONG).unwrap();
    assert_eq!(c.release(ta), Err(MdlError::InvalidTicket));
    assert!(
        c.ticket_info(tc).is_ok(),
        "c's own lock must not be released"
    );
    assert_eq!(c.ticket_info(ta).unwrap_err(), MdlError::InvalidTicket);
}

#[test]
fn upgrade_to_a_type_the_namespace_does_not_take() {
    let (_m, mut c) = one_context();
    let g = MdlKey::singleton(Namespace::Global).unwrap();
    let ix = c.acquire(&treq(&g, LockType::IX), LONG).unwrap();
    assert!(matches!(
        c.upgrade(ix, LockType::SNW, LONG),
        Err(MdlError::InvalidLockType { .. })
    ));
    let t = c.acquire(&treq(&table("t"), LockType::SR), LONG).unwrap();
    assert!(matches!(
        c.upgrade(t, LockType::IX, LONG),
        Err(MdlError::InvalidLockType { .. })
    ));
}

//! The compatibility and priority matrices, transcribed from MySQL's tables
//! (`docs/semantics.md` §4–§6), not from `mdl_core::matrix`.
//!
//! Each table is a list of `+`/`-` strings, one row per *requested* type, one column per
//! granted (or pending) type, in the column order of [`OBJ`] or [`SCOPED`]. A test can compare
//! a row with MySQL's printed table by eye. Every query below reads these strings.

use mdl_core::{LockType, Namespace};

/// The ten object lock types, in the column order of the object tables: MySQL's
/// `enum_mdl_type` order ([`LockType::ALL`]) without INTENTION_EXCLUSIVE, which only scoped
/// locks use.
pub const OBJ: [LockType; 10] = {
    let mut obj = [LockType::Shared; 10];
    let mut i = 0;
    while i < obj.len() {
        obj[i] = LockType::ALL[i + 1];
        i += 1;
    }
    obj
};

/// The three scoped lock types, in the column order of the scoped tables.
pub const SCOPED: [LockType; 3] = [
    LockType::IntentionExclusive,
    LockType::Shared,
    LockType::Exclusive,
];

/// Object locks, granted matrix: row = requested, column = granted, `-` = incompatible.
pub const G_OBJ: [&str; 10] = [
    "+++++++++-", // S
    "+++++++++-", // SH
    "++++++++--", // SR
    "++++++----", // SW
    "++++++----", // SWLP
    "+++++-+---", // SU
    "+++--+++--", // SRO
    "+++---+---", // SNW
    "++--------", // SNRW
    "----------", // X
];

/// Object locks, priority matrices W0..W3: row = requested, column = pending, `-` = the
/// pending type has priority (the request waits behind it).
pub const W_OBJ: [[&str; 10]; 4] = [
    [
        "+++++++++-", // S
        "++++++++++", // SH
        "++++++++--", // SR
        "+++++++---", // SW
        "++++++----", // SWLP
        "+++++++++-", // SU
        "+++-++++--", // SRO
        "+++++++++-", // SNW
        "+++++++++-", // SNRW
        "++++++++++", // X
    ],
    [
        "+++++++++-", // S
        "++++++++++", // SH
        "++++++++--", // SR
        "++++++----", // SW
        "++++++----", // SWLP
        "+++++++++-", // SU
        "++++++++--", // SRO
        "+++++++++-", // SNW
        "+++++++++-", // SNRW
        "++++++++++", // X
    ],
    [
        "++++++++++", // S
        "++++++++++", // SH
        "++++++++++", // SR
        "++++++++++", // SW
        "++++++-+++", // SWLP
        "++++++++++", // SU
        "+++-++++++", // SRO
        "+++---+++-", // SNW
        "++-----++-", // SNRW
        "-------+++", // X
    ],
    [
        "++++++++++", // S
        "++++++++++", // SH
        "++++++++++", // SR
        "++++++----", // SW
        "++++++----", // SWLP
        "++++++++++", // SU
        "++++++++++", // SRO
        "+++++-+++-", // SNW
        "++-++--++-", // SNRW
        "---++--+++", // X
    ],
];

/// Scoped locks, granted matrix (IX, S, X).
pub const G_SCOPED: [&str; 3] = ["+--", "-+-", "---"];

/// Scoped locks, the one priority matrix (IX, S, X); scoped locks never switch matrices.
pub const W_SCOPED: [&str; 3] = ["+--", "++-", "+++"];

/// Whether `ns` uses the scoped strategy (IX, S, X); the others use the object strategy.
pub fn is_scoped(ns: Namespace) -> bool {
    use Namespace::*;
    matches!(
        ns,
        Global
            | BackupLock
            | Tablespace
            | Schema
            | Commit
            | ResourceGroups
            | ForeignKey
            | CheckConstraint
    )
}

/// Whether `ty` may be requested in `ns`: scoped namespaces take IX, S, X; object namespaces
/// every type but IX.
pub fn allowed(ns: Namespace, ty: LockType) -> bool {
    if is_scoped(ns) {
        SCOPED.contains(&ty)
    } else {
        ty != LockType::IntentionExclusive
    }
}

/// The types `ns` takes, in [`LockType::ALL`] order.
pub fn legal_types(ns: Namespace) -> Vec<LockType> {
    LockType::ALL
        .into_iter()
        .filter(|&t| allowed(ns, t))
        .collect()
}

fn columns(scoped: bool) -> &'static [LockType] {
    if scoped {
        &SCOPED
    } else {
        &OBJ
    }
}

fn position(cols: &[LockType], ty: LockType) -> Option<usize> {
    cols.iter().position(|&t| t == ty)
}

/// Whether the cell (`req`, `other`) of `table` is `-`. A type outside the strategy's columns
/// has an all-`+` row and column: it is never requested there, so it conflicts with nothing.
fn minus(table: &[&str], scoped: bool, req: LockType, other: LockType) -> bool {
    let cols = columns(scoped);
    match (position(cols, req), position(cols, other)) {
        (Some(r), Some(o)) => table[r].as_bytes()[o] == b'-',
        _ => false,
    }
}

/// Whether a *granted* `granted` conflicts with a request of `req`.
pub fn conflicts(scoped: bool, req: LockType, granted: LockType) -> bool {
    if scoped {
        minus(&G_SCOPED, true, req, granted)
    } else {
        minus(&G_OBJ, false, req, granted)
    }
}

/// Whether a *pending* `pending` has priority over a request of `req` under priority matrix
/// `idx` (0..=3; scoped locks have only matrix 0, the others are empty).
pub fn has_priority(scoped: bool, idx: usize, req: LockType, pending: LockType) -> bool {
    if scoped {
        idx == 0 && minus(&W_SCOPED, true, req, pending)
    } else {
        minus(&W_OBJ[idx], false, req, pending)
    }
}

/// Whether holding `held` satisfies a request for `req`: everything that conflicts with `req`
/// also conflicts with `held` (MySQL derives "stronger or equal" from the granted matrix).
pub fn stronger_or_equal(scoped: bool, held: LockType, req: LockType) -> bool {
    LockType::ALL
        .iter()
        .all(|&o| !conflicts(scoped, req, o) || conflicts(scoped, held, o))
}

/// The types of `ns` that holding `held` satisfies (what a clone or a downgrade may ask for).
pub fn satisfied_by(ns: Namespace, held: LockType) -> Vec<LockType> {
    let scoped = is_scoped(ns);
    legal_types(ns)
        .into_iter()
        .filter(|&t| stronger_or_equal(scoped, held, t))
        .collect()
}

/// The hog types (SNW, SNRW, X): their grants while others wait count towards
/// `max_write_lock_count`.
pub fn is_hog(ty: LockType) -> bool {
    matches!(
        ty,
        LockType::SharedNoWrite | LockType::SharedNoReadWrite | LockType::Exclusive
    )
}

fn obj_checked(ty: LockType) -> LockType {
    assert!(OBJ.contains(&ty), "{ty:?} is not an object lock type");
    ty
}

fn scoped_checked(ty: LockType) -> LockType {
    assert!(SCOPED.contains(&ty), "{ty:?} is not a scoped lock type");
    ty
}

/// May `req` be granted while another context holds `held`? (object strategy; panics on a
/// type the object tables do not list.)
pub fn obj_compatible(req: LockType, held: LockType) -> bool {
    !conflicts(false, obj_checked(req), obj_checked(held))
}

/// May `req` be granted while `pending` waits, under priority matrix `k`? (object strategy)
pub fn obj_no_priority(k: usize, req: LockType, pending: LockType) -> bool {
    !has_priority(false, k, obj_checked(req), obj_checked(pending))
}

/// May `req` be granted while another context holds `held`? (scoped strategy)
pub fn scoped_compatible(req: LockType, held: LockType) -> bool {
    !conflicts(true, scoped_checked(req), scoped_checked(held))
}

/// May `req` be granted while `pending` waits? (scoped strategy, its only matrix)
pub fn scoped_no_priority(req: LockType, pending: LockType) -> bool {
    !has_priority(true, 0, scoped_checked(req), scoped_checked(pending))
}

/// May `req` be granted next to a granted `held` in namespace `ns`?
pub fn compatible(ns: Namespace, req: LockType, held: LockType) -> bool {
    if is_scoped(ns) {
        scoped_compatible(req, held)
    } else {
        obj_compatible(req, held)
    }
}

/// [`stronger_or_equal`] for two object types (panics on a type the object tables do not
/// list).
pub fn obj_stronger_or_equal(held: LockType, req: LockType) -> bool {
    stronger_or_equal(false, obj_checked(held), obj_checked(req))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_square_and_only_plus_or_minus() {
        let rows = G_OBJ.iter().chain(W_OBJ.iter().flatten());
        for row in rows {
            assert_eq!(row.len(), OBJ.len());
            assert!(row.bytes().all(|b| b == b'+' || b == b'-'));
        }
        for row in G_SCOPED.iter().chain(W_SCOPED.iter()) {
            assert_eq!(row.len(), SCOPED.len());
        }
    }

    #[test]
    fn granted_matrices_are_symmetric() {
        for a in OBJ {
            for b in OBJ {
                assert_eq!(obj_compatible(a, b), obj_compatible(b, a), "{a:?} {b:?}");
            }
        }
        for a in SCOPED {
            for b in SCOPED {
                assert_eq!(scoped_compatible(a, b), scoped_compatible(b, a));
            }
        }
    }

    #[test]
    fn scoped_s_does_not_satisfy_ix() {
        assert!(!stronger_or_equal(
            true,
            LockType::Shared,
            LockType::IntentionExclusive
        ));
        assert!(stronger_or_equal(
            true,
            LockType::Exclusive,
            LockType::IntentionExclusive
        ));
    }
}

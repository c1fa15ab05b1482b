//! The grant rules in one place: MySQL 8.0's compatibility and priority matrices as bitmaps,
//! the fast-path increments, and the relations derived from them.
//!
//! For each *requested* type `r`, `granted_incompatible(r)` is the bitmap of granted types that
//! conflict with `r`, and `waiting_incompatible(k, r)` is the bitmap of *pending* types that have
//! priority over `r` under priority matrix `k` (0 = normal, 1 = piglet limit reached, 2 = hog
//! limit reached, 3 = both). Bit `t` is `1 << t` ([`LockType::bit`]). The values are MySQL's
//! `m_scoped_lock_strategy` / `m_object_lock_strategy` initializers.
//!
//! Which types are *unobtrusive* (granted on a fast path: MySQL's
//! `m_unobtrusive_lock_increment` is non-zero for them) is defined once, in [`UNOBTRUSIVE`]; the
//! fast-path counter increments and the types a state word's counters stand for are derived
//! from it and from how the object types share the three counters (`OBJECT_COUNTERS`).

use crate::types::{LockType, Namespace, Strategy};

const IX: u16 = 1 << 0;
const S: u16 = 1 << 1;
const SH: u16 = 1 << 2;
const SR: u16 = 1 << 3;
const SW: u16 = 1 << 4;
const SWLP: u16 = 1 << 5;
const SU: u16 = 1 << 6;
const SRO: u16 = 1 << 7;
const SNW: u16 = 1 << 8;
const SNRW: u16 = 1 << 9;
const X: u16 = 1 << 10;

/// The "hog" types whose grants are counted against `max_write_lock_count`.
pub const HOG_TYPES: u16 = SNW | SNRW | X;

/// The unobtrusive types, per strategy (indexed by `Strategy as usize`): IX on scoped locks; S,
/// SH, SR, SW and SWLP on objects. The one definition: every fast-path rule derives from it.
pub const UNOBTRUSIVE: [u16; 2] = [IX, S | SH | SR | SW | SWLP];

/// How the unobtrusive object types share the three counters of a state word (bits 0..19,
/// 20..39, 40..59): the types of one group conflict with the same requests when granted (a test
/// checks), so one counter per group is all the grant rule needs. A scoped lock counts IX in bits 0..59.
const OBJECT_COUNTERS: [u16; 3] = [S | SH, SR, SW | SWLP];

/// Bits per object counter.
pub const COUNTER_BITS: u32 = 20;

const _: () = {
    let [a, b, c] = OBJECT_COUNTERS;
    assert!(
        a | b | c == UNOBTRUSIVE[Strategy::Object as usize],
        "every unobtrusive type counts"
    );
    assert!(
        a & b == 0 && a & c == 0 && b & c == 0,
        "in one counter each"
    );
};

/// [`fast_path_increment`] for every strategy and type, derived at compile time.
const INCREMENTS: [[u64; 11]; 2] = {
    let mut t = [[0u64; 11]; 2];
    let mut ty = 0;
    while ty < 11 {
        let bit = 1u16 << ty;
        if UNOBTRUSIVE[Strategy::Scoped as usize] & bit != 0 {
            t[Strategy::Scoped as usize][ty] = 1;
        }
        let mut group = 0;
        while group < OBJECT_COUNTERS.len() {
            if OBJECT_COUNTERS[group] & bit != 0 {
                t[Strategy::Object as usize][ty] = 1 << (COUNTER_BITS * group as u32);
            }
            group += 1;
        }
        ty += 1;
    }
    t
};

/// Priority matrix 0 (see [`waiting_incompatible`]): normal priorities.
pub const NORMAL_PRIORITIES: usize = 0;
/// Bit of the priority matrix index set once `max_write_lock_count` *piglet* grants (SW while
/// SRO waits) happened in a row: SW then yields to SRO.
pub const PIGLET_LIMIT: usize = 1;
/// Bit of the priority matrix index set once `max_write_lock_count` *hog* grants (SNW, SNRW, X
/// while others wait) happened in a row: the hogs then yield to everything else.
pub const HOG_LIMIT: usize = 2;

const G_SCOPED: [u16; 11] = [X | S, X | IX, 0, 0, 0, 0, 0, 0, 0, 0, X | S | IX];
const W_SCOPED: [u16; 11] = [X | S, X, 0, 0, 0, 0, 0, 0, 0, 0, 0];

const G_OBJECT: [u16; 11] = [
    0,
    X,
    X,
    X | SNRW,
    X | SNRW | SNW | SRO,
    X | SNRW | SNW | SRO,
    X | SNRW | SNW | SU,
    X | SNRW | SWLP | SW,
    X | SNRW | SNW | SU | SWLP | SW,
    X | SNRW | SNW | SRO | SU | SWLP | SW | SR,
    X | SNRW | SNW | SRO | SU | SWLP | SW | SR | SH | S,
];

const W_OBJECT: [[u16; 11]; 4] = [
    // 0: normal priorities.
    [
        0,
        X,
        0,
        X | SNRW,
        X | SNRW | SNW,
        X | SNRW | SNW | SRO,
        X,
        X | SNRW | SW,
        X,
        X,
        0,
    ],
    // 1: piglet limit reached (SW gets lower priority than SRO).
    [
        0,
        X,
        0,
        X | SNRW,
        X | SNRW | SNW | SRO,
        X | SNRW | SNW | SRO,
        X,
        X | SNRW,
        X,
        X,
        0,
    ],
    // 2: hog limit reached (non-hog types get priority over SNW, SNRW, X).
    [
        0,
        0,
        0,
        0,
        0,
        SRO,
        0,
        SW,
        X | SU | SWLP | SW,
        X | SRO | SU | SWLP | SW | SR,
        !HOG_TYPES,
    ],
    // 3: both limits reached.
    [
        0,
        0,
        0,
        0,
        X | SNRW | SNW | SRO,
        X | SNRW | SNW | SRO,
        0,
        0,
        X | SU,
        X | SRO | SU | SR,
        !(HOG_TYPES | SW | SWLP),
    ],
];

/// Granted types that conflict with a request of `requested` (MySQL's granted matrix).
#[inline]
pub fn granted_incompatible(strategy: Strategy, requested: LockType) -> u16 {
    match strategy {
        Strategy::Scoped => G_SCOPED[requested as usize],
        Strategy::Object => G_OBJECT[requested as usize],
    }
}

/// Pending types that have priority over a request of `requested` under priority matrix `idx`
/// ([`NORMAL_PRIORITIES`], or the bits [`PIGLET_LIMIT`] and [`HOG_LIMIT`]). Scoped locks have
/// only the normal matrix.
#[inline]
pub fn waiting_incompatible(strategy: Strategy, idx: usize, requested: LockType) -> u16 {
    match strategy {
        Strategy::Scoped => {
            if idx == NORMAL_PRIORITIES {
                W_SCOPED[requested as usize]
            } else {
                0
            }
        }
        Strategy::Object => W_OBJECT[idx & 3][requested as usize],
    }
}

/// Whether a granted `held` lock satisfies a request for `requested` on the same object
/// (`MDL_ticket::has_stronger_or_equal_type`): everything that conflicts with `requested` also
/// conflicts with `held`.
#[inline]
pub fn is_stronger_or_equal(strategy: Strategy, held: LockType, requested: LockType) -> bool {
    granted_incompatible(strategy, requested) & !granted_incompatible(strategy, held) == 0
}

/// What one fast-path lock of `lock_type` adds to a state word's counters (see `lock.rs`): 1 in
/// its group's counter (`OBJECT_COUNTERS`; IX of a scoped lock in bits 0..59). Zero exactly for
/// the types that are not [`UNOBTRUSIVE`], which always take the slow path.
#[inline]
pub fn fast_path_increment(strategy: Strategy, lock_type: LockType) -> u64 {
    INCREMENTS[strategy as usize][lock_type as usize]
}

/// Whether `lock_type` is unobtrusive under `strategy` (granted on a fast path): S, SH, SR, SW
/// and SWLP on objects, IX on scopes. One bit test.
#[inline]
pub fn is_unobtrusive(strategy: Strategy, lock_type: LockType) -> bool {
    UNOBTRUSIVE[strategy as usize] & lock_type.bit() != 0
}

/// The types held through the fast path, as a bitmap, given the counter part of a state word:
/// for each non-zero counter, the first type of its group (the group's types conflict alike).
#[inline]
pub fn fast_path_granted_bitmap(strategy: Strategy, state: u64) -> u16 {
    match strategy {
        Strategy::Scoped => {
            if state & ((1 << (3 * COUNTER_BITS)) - 1) != 0 {
                UNOBTRUSIVE[Strategy::Scoped as usize]
            } else {
                0
            }
        }
        Strategy::Object => {
            let mut bits = 0;
            for (group, types) in OBJECT_COUNTERS.iter().enumerate() {
                if (state >> (COUNTER_BITS * group as u32)) & ((1 << COUNTER_BITS) - 1) != 0 {
                    bits |= types & types.wrapping_neg();
                }
            }
            bits
        }
    }
}

/// Deadlock weight of a context waiting for `lock_type` in `namespace`: the lower, the more
/// likely it is chosen as victim (MySQL 8.0: DML 25, user-level lock 50, DDL 100).
pub fn deadlock_weight(namespace: Namespace, lock_type: LockType) -> u32 {
    if namespace == Namespace::UserLevelLock {
        DEADLOCK_WEIGHT_ULL
    } else if namespace == Namespace::Global || lock_type >= LockType::SharedUpgradable {
        DEADLOCK_WEIGHT_DDL
    } else {
        DEADLOCK_WEIGHT_DML
    }
}

/// Weight of a DML wait (and of any context with `set_force_dml_deadlock_weight(true)`).
pub const DEADLOCK_WEIGHT_DML: u32 = 25;
/// Weight of a user-level-lock wait.
pub const DEADLOCK_WEIGHT_ULL: u32 = 50;
/// Weight of a DDL wait.
pub const DEADLOCK_WEIGHT_DDL: u32 = 100;

#[cfg(test)]
mod tests {
    use super::*;

    /// The raw values of the waiting (priority) matrices, one row per matrix (MySQL's
    /// `MDL_object_lock::m_waiting_incompatible`).
    #[rustfmt::skip]
    const WAITING: [[u16; 11]; 4] = [
        [0x0000, 0x0400, 0x0000, 0x0600, 0x0700, 0x0780, 0x0400, 0x0610, 0x0400, 0x0400, 0x0000],
        [0x0000, 0x0400, 0x0000, 0x0600, 0x0780, 0x0780, 0x0400, 0x0600, 0x0400, 0x0400, 0x0000],
        [0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0080, 0x0000, 0x0010, 0x0470, 0x04F8, 0xF8FF],
        [0x0000, 0x0000, 0x0000, 0x0000, 0x0780, 0x0780, 0x0000, 0x0000, 0x0440, 0x04C8, 0xF8CF],
    ];

    #[test]
    fn raw_values_match_mysql() {
        assert_eq!(
            G_OBJECT,
            [
                0x0000, 0x0400, 0x0400, 0x0600, 0x0780, 0x0780, 0x0740, 0x0630, 0x0770, 0x07F8,
                0x07FE
            ]
        );
        assert_eq!(W_OBJECT, WAITING);
        assert_eq!(G_SCOPED[0], 0x0402);
        assert_eq!(G_SCOPED[1], 0x0401);
        assert_eq!(G_SCOPED[10], 0x0403);
    }

    /// The derived fast-path rules agree with the one definition: a type has an increment
    /// exactly when it is unobtrusive, and the types sharing a counter conflict with the same
    /// requests.
    #[test]
    fn fast_path_rules_derive_from_the_unobtrusive_types() {
        for strategy in [Strategy::Scoped, Strategy::Object] {
            for ty in LockType::ALL {
                assert_eq!(
                    fast_path_increment(strategy, ty) != 0,
                    is_unobtrusive(strategy, ty),
                    "{strategy:?} {ty:?}"
                );
            }
        }
        for group in OBJECT_COUNTERS {
            let types: Vec<LockType> = LockType::ALL
                .into_iter()
                .filter(|t| group & t.bit() != 0)
                .collect();
            // Counters are granted locks, so only the granted matrix matters (pending SW and
            // SWLP do differ in priority).
            for r in LockType::ALL {
                let blocks = |t: LockType| granted_incompatible(Strategy::Object, r) & t.bit() != 0;
                assert!(
                    types.iter().all(|&t| blocks(t) == blocks(types[0])),
                    "{r:?}"
                );
            }
        }
        assert_eq!(fast_path_granted_bitmap(Strategy::Object, 1 << 20), SR);
        assert_eq!(
            fast_path_granted_bitmap(Strategy::Object, (1 << 40) | 1),
            SW | S
        );
        assert_eq!(fast_path_granted_bitmap(Strategy::Scoped, 7), IX);
    }

    #[test]
    fn granted_matrix_is_symmetric_and_waiting_is_subset() {
        let legal = |t: LockType| t != LockType::IX;
        for a in LockType::ALL.into_iter().filter(|&t| legal(t)) {
            for b in LockType::ALL.into_iter().filter(|&t| legal(t)) {
                let ab = granted_incompatible(Strategy::Object, a) & b.bit() != 0;
                let ba = granted_incompatible(Strategy::Object, b) & a.bit() != 0;
                assert_eq!(ab, ba, "{a:?} {b:?}");
            }
            // [INV2]: a pending type never blocks a request that the granted type wouldn't.
            for k in 0..4 {
                let w = waiting_incompatible(Strategy::Object, k, a) & 0x07FE;
                assert_eq!(
                    w & !granted_incompatible(Strategy::Object, a),
                    0,
                    "{k} {a:?}"
                );
            }
        }
    }
}

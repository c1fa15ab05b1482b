//! # mdl-reference: the oracle of the `mdl` workspace
//!
//! What the tests, the soak and the fuzz driver compare `mdl-core` with, written from MySQL's
//! tables (`docs/semantics.md`) and never from `mdl_core`'s own matrices:
//!
//! * [`matrix`]: the granted matrices and the four priority matrices W0..W3 as `+`/`-` tables,
//!   and the questions the checks ask of them (conflicts, priority, stronger-or-equal, legal
//!   types per namespace).
//! * [`model`]: a sequential model of a lock manager (grant rule, hog/piglet counting and
//!   rescheduling, durations, ticket reuse, clone, upgrade, downgrade, savepoints).
//! * [`driver`]: a differential driver that decodes bytes into operations and runs them
//!   through `mdl-core` and the model (the fuzz target and the fuzz regressions use it).
//! * [`support`]: test setups shared by the integration tests and the check crate (managers
//!   per fast-path mode, key shorthands, polling for queue states, a context on its own
//!   thread).
//!
//! Layering, lowest first: `matrix` and `support` (each uses only `mdl_core`) → `model`
//! (uses `matrix`) → `driver` (uses `model`, and `support`'s sample keys). Random numbers anywhere in the workspace come from one crate, [`fastrand`],
//! seeded, so that every random run can be repeated.
//!
//! ```
//! use mdl_core::{LockDuration, LockType, MdlKey, Namespace};
//! use mdl_reference::matrix::conflicts;
//! use mdl_reference::model::{Acquired, Model};
//!
//! // SHARED_READ and EXCLUSIVE conflict on a table.
//! assert!(conflicts(false, LockType::SharedRead, LockType::Exclusive));
//!
//! let t1 = MdlKey::new(Namespace::Table, "test", "t1").unwrap();
//! let mut model = Model::new(2, u64::MAX);
//! let a = model.try_acquire(0, &t1, LockType::SharedRead, LockDuration::Statement);
//! assert!(matches!(a, Ok(Acquired::New(_))));
//! let b = model.try_acquire(1, &t1, LockType::Exclusive, LockDuration::Transaction);
//! assert_eq!(b, Ok(Acquired::NotGranted));
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod driver;
pub mod matrix;
pub mod model;
pub mod support;

/// The workspace's one random number generator (seeded: `fastrand::Rng::with_seed`).
pub use fastrand;

/// Real results in the form the model predicts them: errors by kind (the model cannot know the
/// blockers or the cycle a real wait error carries).
pub trait Kinded {
    /// The result with errors replaced by their kind.
    type Out;
    /// Replaces errors by their kind.
    fn kinded(self) -> Self::Out;
}

impl<T> Kinded for Result<T, mdl_core::MdlError> {
    type Out = Result<T, mdl_core::ErrorKind>;
    fn kinded(self) -> Self::Out {
        self.map_err(|e| e.kind())
    }
}

impl Kinded for Option<mdl_core::MdlError> {
    type Out = Option<mdl_core::ErrorKind>;
    fn kinded(self) -> Self::Out {
        self.map(|e| e.kind())
    }
}

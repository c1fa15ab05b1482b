//! The crate's error type. Setup calls return typed errors; instrumentation points never fail
//! (they count what they could not record in `lost` counters instead, see [`crate::status`]).

use std::fmt;

/// Errors from the setup API.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PfsError {
    /// A LIKE pattern that cannot be used (empty, too long, or ending in a lone `\`).
    BadPattern {
        /// The pattern as given.
        pattern: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// No consumer has this name.
    UnknownConsumer(String),
    /// No preset has this name.
    UnknownPreset(String),
    /// [`crate::init`] was called after the instrumentation had already started.
    AlreadyInitialized,
    /// Too many `set_instruments` rules are remembered for classes registered later.
    TooManyRules,
}

impl fmt::Display for PfsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PfsError::BadPattern { pattern, reason } => {
                write!(f, "bad instrument pattern {pattern:?}: {reason}")
            }
            PfsError::UnknownConsumer(n) => write!(f, "unknown consumer {n:?}"),
            PfsError::UnknownPreset(n) => write!(
                f,
                "unknown preset {n:?} (expected off, none, default, tables, statements, counters or synch)"
            ),
            PfsError::AlreadyInitialized => {
                f.write_str("pfs::init called after the instrumentation started")
            }
            PfsError::TooManyRules => f.write_str("too many instrument rules"),
        }
    }
}

impl std::error::Error for PfsError {}

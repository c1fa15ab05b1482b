//! Who blocks whom: the facts the diagnostics ([`crate::MdlManager::lock_waits`],
//! [`crate::MdlManager::blocking_contexts`], [`crate::MdlManager::deadlocks`]) and the errors
//! of failed waits report.
//!
//! A request is *hard*-blocked by a granted lock of another context that conflicts with it
//! (MySQL's granted matrix), and *soft*-blocked by a pending request of another context that
//! has priority over it under the current priority matrix. Unlike PostgreSQL's soft blockers,
//! which are queued ahead, a MySQL request can have priority whatever its place in the queue: a
//! pending EXCLUSIVE holds back a SHARED_READ queued before it.
//!
//! These are plain values built when read; nothing here is touched on the acquire path.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::key::MdlKey;
use crate::types::{ContextId, LockDuration, LockType};

/// How a lock or request blocks another request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "SCREAMING_SNAKE_CASE"))]
#[non_exhaustive]
pub enum BlockKind {
    /// Granted and incompatible (the granted matrix).
    Hard,
    /// Pending, with priority under the current priority matrix (the waiting matrices).
    Soft,
}

impl fmt::Display for BlockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BlockKind::Hard => "HARD",
            BlockKind::Soft => "SOFT",
        })
    }
}

/// A lock or request that blocks a request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Blocker {
    /// The blocking context; `None` for locks held on MySQL's shared-word fast path
    /// ([`crate::FastPath::SharedWord`]), which are counters that name no owner.
    pub context: Option<ContextId>,
    /// The blocking context's label ([`crate::MdlContext::set_label`]).
    pub label: Option<Arc<str>>,
    /// The type it holds (hard) or requests (soft).
    pub lock_type: LockType,
    /// Its duration (`None` for a shared-word counter).
    pub duration: Option<LockDuration>,
    /// Hard or soft.
    pub kind: BlockKind,
}

impl fmt::Display for Blocker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.context {
            Some(c) => write!(f, "context {c}")?,
            None => f.write_str("fast-path holders")?,
        }
        if let Some(l) = &self.label {
            write!(f, " ({l})")?;
        }
        let verb = match self.kind {
            BlockKind::Hard => "holding",
            BlockKind::Soft => "queued for",
        };
        write!(f, " {verb} {}", self.lock_type)?;
        if let Some(d) = self.duration {
            write!(f, " ({d})")?;
        }
        Ok(())
    }
}

/// One (waiting request, blocker) pair: a row of [`crate::MdlManager::lock_waits`], in the
/// manner of MySQL's `sys.schema_table_lock_waits`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct LockWait {
    /// The object waited for.
    pub key: MdlKey,
    /// The waiting context.
    pub waiting: ContextId,
    /// Its label.
    pub waiting_label: Option<Arc<str>>,
    /// The type it requests.
    pub requested: LockType,
    /// The duration it requests.
    pub requested_duration: LockDuration,
    /// How long it has waited.
    pub waited: Duration,
    /// What blocks it.
    pub blocker: Blocker,
}

impl fmt::Display for LockWait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "context {}", self.waiting)?;
        if let Some(l) = &self.waiting_label {
            write!(f, " ({l})")?;
        }
        write!(
            f,
            " waits {:.1} s for {} ({}) on {}, blocked by {}",
            self.waited.as_secs_f64(),
            self.requested,
            self.requested_duration,
            self.key,
            self.blocker
        )
    }
}

/// The rows of [`crate::MdlManager::lock_waits`]; `Display` renders them as the `mysql` client
/// renders a result set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LockWaits {
    /// One row per (waiting request, blocker), oldest wait first.
    pub rows: Vec<LockWait>,
}

impl LockWaits {
    /// The contexts that block others without waiting themselves, most blocked first: where a
    /// pile-up starts (the context to kill to clear it).
    pub fn root_blockers(&self) -> Vec<(ContextId, usize)> {
        let waiting: Vec<ContextId> = self.rows.iter().map(|r| r.waiting).collect();
        let mut roots: Vec<(ContextId, usize)> = Vec::new();
        for c in self.rows.iter().filter_map(|r| r.blocker.context) {
            if waiting.contains(&c) {
                continue;
            }
            match roots.iter_mut().find(|(r, _)| *r == c) {
                Some((_, n)) => *n += 1,
                None => roots.push((c, 1)),
            }
        }
        roots.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
        roots
    }
}

impl fmt::Display for LockWaits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header = [
            "object",
            "waiting",
            "waiting_label",
            "requested",
            "wait_s",
            "blocking",
            "blocking_label",
            "blocking_lock",
            "block",
        ];
        let opt = |s: &Option<Arc<str>>| s.as_deref().unwrap_or("NULL").to_string();
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                vec![
                    r.key.to_string(),
                    r.waiting.to_string(),
                    opt(&r.waiting_label),
                    format!("{} ({})", r.requested, r.requested_duration),
                    format!("{:.3}", r.waited.as_secs_f64()),
                    r.blocker
                        .context
                        .map_or("fast path".to_string(), |c| c.to_string()),
                    opt(&r.blocker.label),
                    match r.blocker.duration {
                        Some(d) => format!("{} ({d})", r.blocker.lock_type),
                        None => r.blocker.lock_type.to_string(),
                    },
                    r.blocker.kind.to_string(),
                ]
            })
            .collect();
        write_grid(f, &header, &rows)
    }
}

/// One edge of a deadlock cycle: `waiter` waits for `requested` on `key`, which `holder`
/// blocks with `held`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct DeadlockEdge {
    /// The waiting context.
    pub waiter: ContextId,
    /// Its label.
    pub waiter_label: Option<Arc<str>>,
    /// The object it waits for.
    pub key: MdlKey,
    /// The type it requests.
    pub requested: LockType,
    /// Its deadlock weight (DML 25, user-level lock 50, DDL 100): the lightest waiter on the
    /// cycle is the victim.
    pub weight: u32,
    /// The context it waits for.
    pub holder: ContextId,
    /// Its label.
    pub holder_label: Option<Arc<str>>,
    /// The type the holder holds (hard) or requests (soft).
    pub held: LockType,
    /// Hard or soft.
    pub kind: BlockKind,
}

impl fmt::Display for DeadlockEdge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = match self.kind {
            BlockKind::Hard => "held as",
            BlockKind::Soft => "requested as",
        };
        write!(
            f,
            "context {} waits for {} on {}, {verb} {} by context {}",
            self.waiter, self.requested, self.key, self.held, self.holder
        )
    }
}

/// Why a request was chosen as a deadlock victim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "SCREAMING_SNAKE_CASE"))]
#[non_exhaustive]
pub enum DeadlockCause {
    /// A cycle in the wait-for graph.
    Cycle,
    /// A wait-for path longer than [`crate::MAX_SEARCH_DEPTH`] (MySQL treats it as a
    /// deadlock).
    TooDeep,
    /// A storage engine refused an exclusive lock and asked for the request to be victimized.
    Engine,
}

/// A deadlock the manager found and broke: an entry of [`crate::MdlManager::deadlocks`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct DeadlockRecord {
    /// A number, 1 for the first deadlock of the manager.
    pub id: u64,
    /// When it was found.
    pub at: SystemTime,
    /// The context whose wait was ended with [`crate::MdlError::Deadlock`].
    pub victim: ContextId,
    /// What made it a deadlock.
    pub cause: DeadlockCause,
    /// The edges of the cycle (or of the too-deep path), starting at the context whose search
    /// found it.
    pub cycle: Vec<DeadlockEdge>,
}

impl fmt::Display for DeadlockRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "deadlock {}: victim context {}", self.id, self.victim)?;
        for (i, e) in self.cycle.iter().enumerate() {
            write!(f, "{}{e}", if i == 0 { ": " } else { "; " })?;
        }
        if self.cause == DeadlockCause::TooDeep {
            f.write_str(" (path deeper than the search limit)")?;
        }
        Ok(())
    }
}

/// Writes a result set as the `mysql` client does: a `+---+` frame, headers, one line per row.
fn write_grid(f: &mut fmt::Formatter<'_>, header: &[&str], rows: &[Vec<String>]) -> fmt::Result {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let rule: String = widths.iter().fold(String::from("+"), |mut s, &w| {
        s.push_str(&"-".repeat(w + 2));
        s.push('+');
        s
    });
    let line = |f: &mut fmt::Formatter<'_>, cells: &mut dyn Iterator<Item = &str>| {
        f.write_str("|")?;
        for (cell, &w) in cells.zip(&widths) {
            write!(f, " {cell:<w$} |")?;
        }
        writeln!(f)
    };
    writeln!(f, "{rule}")?;
    line(f, &mut header.iter().copied())?;
    writeln!(f, "{rule}")?;
    for r in rows {
        line(f, &mut r.iter().map(String::as_str))?;
    }
    writeln!(f, "{rule}")?;
    writeln!(
        f,
        "{} row{} in set",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    )
}

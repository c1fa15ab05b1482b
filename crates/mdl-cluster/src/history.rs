//! A recorded history of grants and releases, and the check that no two contexts ever held
//! incompatible locks on one object at the same moment.
//!
//! Every node of a soak appends one line per event to its own file, stamped with the machine's
//! monotonic clock (`CLOCK_MONOTONIC`, one clock for every process on the machine): a grant
//! after the lock is granted, a release before it is released. So each recorded interval lies
//! inside the time the lock was really held, and two recorded intervals that overlap are a real
//! violation (no false alarm; an overlap shorter than the time between the grant and its record
//! could be missed). A node killed with SIGKILL leaves grants without releases: the harness
//! passes the kill time, which ends them.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use mdl_core::matrix::granted_incompatible;
use mdl_core::{LockType, MdlKey};

use crate::keys::NodeId;

/// Nanoseconds on the machine's monotonic clock (the same in every process).
pub fn now_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Appends a node's events to its history file, one unbuffered line each (a killed process
/// loses nothing it recorded).
pub struct HistoryWriter {
    node: NodeId,
    file: Mutex<File>,
}

impl HistoryWriter {
    /// A writer appending to `path` for `node`.
    ///
    /// # Errors
    /// An I/O error if the file cannot be opened.
    pub fn open(path: &Path, node: NodeId) -> std::io::Result<HistoryWriter> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(HistoryWriter {
            node,
            file: Mutex::new(file),
        })
    }

    fn line(&self, event: char, context: u64, key: &MdlKey, ty: LockType) {
        let line = format!(
            "{event} {} {} {context} {} {}\n",
            now_ns(),
            self.node,
            ty.id(),
            hex(key)
        );
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = f.write_all(line.as_bytes());
    }

    /// Records a grant (call after the lock is granted).
    pub fn granted(&self, context: u64, key: &MdlKey, ty: LockType) {
        self.line('g', context, key, ty);
    }

    /// Records a release (call before the lock is released).
    pub fn releasing(&self, context: u64, key: &MdlKey, ty: LockType) {
        self.line('r', context, key, ty);
    }
}

fn hex(key: &MdlKey) -> String {
    key.as_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// One recorded holding of a lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interval {
    /// The node.
    pub node: NodeId,
    /// The context.
    pub context: u64,
    /// The object, as the hex of its key bytes (the first byte is the namespace).
    pub object: String,
    /// The type.
    pub lock_type: LockType,
    /// Granted at (ns).
    pub start: u64,
    /// Released at (ns).
    pub end: u64,
}

/// What [`check`] found.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Intervals read.
    pub intervals: usize,
    /// Pairs of intervals of different contexts, incompatible types, on one object, that
    /// overlap in time.
    pub overlaps: Vec<(Interval, Interval)>,
}

/// Reads history files and looks for overlapping incompatible holdings. `deaths`: when a node
/// process was killed (ends its open intervals; a node without one ends them at `end`).
///
/// # Errors
/// An I/O error if a file cannot be read.
pub fn check(
    files: &[&Path],
    deaths: &HashMap<NodeId, Vec<u64>>,
    end: u64,
) -> std::io::Result<CheckReport> {
    let mut intervals = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f)?;
        let mut open: HashMap<(NodeId, u64, String, u8), Vec<u64>> = HashMap::new();
        for line in text.lines() {
            let p: Vec<&str> = line.split(' ').collect();
            let [ev, t, node, ctx, ty, obj] = p.as_slice() else {
                continue; // a line cut by a kill
            };
            let (Ok(t), Ok(node), Ok(ctx), Ok(ty)) = (
                t.parse::<u64>(),
                node.parse(),
                ctx.parse(),
                ty.parse::<u8>(),
            ) else {
                continue;
            };
            let k = (node, ctx, obj.to_string(), ty);
            match *ev {
                "g" => open.entry(k).or_default().push(t),
                "r" => {
                    if let Some(start) = open.get_mut(&k).and_then(|v| v.pop()) {
                        intervals.push(interval(&k, start, t));
                    }
                }
                _ => {}
            }
        }
        for (k, starts) in open {
            for s in starts {
                // Ended by the first kill of the node after the grant, else at `end`.
                let e = deaths
                    .get(&k.0)
                    .and_then(|d| d.iter().copied().filter(|&d| d >= s).min())
                    .unwrap_or(end);
                intervals.push(interval(&k, s, e));
            }
        }
    }
    let mut by_object: HashMap<&str, Vec<&Interval>> = HashMap::new();
    for i in &intervals {
        by_object.entry(i.object.as_str()).or_default().push(i);
    }
    let mut overlaps = Vec::new();
    for (obj, mut list) in by_object {
        let Some(strategy) = u8::from_str_radix(obj.get(0..2).unwrap_or("ff"), 16)
            .ok()
            .and_then(mdl_core::Namespace::from_id)
            .map(|ns| ns.strategy())
        else {
            continue;
        };
        list.sort_by_key(|i| i.start);
        for (x, a) in list.iter().enumerate() {
            for b in &list[x + 1..] {
                if b.start >= a.end {
                    break;
                }
                let conflict = granted_incompatible(strategy, a.lock_type) & b.lock_type.bit() != 0;
                if conflict && (a.node, a.context) != (b.node, b.context) {
                    overlaps.push(((*a).clone(), (*b).clone()));
                }
            }
        }
    }
    Ok(CheckReport {
        intervals: intervals.len(),
        overlaps,
    })
}

fn interval(k: &(NodeId, u64, String, u8), start: u64, end: u64) -> Interval {
    Interval {
        node: k.0,
        context: k.1,
        object: k.2.clone(),
        lock_type: LockType::from_id(k.3).unwrap_or(LockType::X),
        start,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mdl_core::Namespace;

    #[test]
    fn overlapping_incompatible_holdings_are_found() {
        let dir = crate::testkit::TempDir::new("mdl-history").unwrap();
        let (p1, p2) = (dir.path().join("1"), dir.path().join("2"));
        let t = MdlKey::new(Namespace::Table, "db", "t").unwrap();
        let u = MdlKey::new(Namespace::Table, "db", "u").unwrap();
        let (h1, h2) = (
            HistoryWriter::open(&p1, 1).unwrap(),
            HistoryWriter::open(&p2, 2).unwrap(),
        );
        h1.granted(5, &t, LockType::X);
        h2.granted(6, &u, LockType::X); // another object: fine
        h2.granted(7, &t, LockType::SR); // while node 1 holds X: an overlap
        h2.releasing(7, &t, LockType::SR);
        h1.releasing(5, &t, LockType::X);
        h1.granted(5, &t, LockType::SR);
        h2.granted(8, &t, LockType::SR); // SR with SR: fine; node 1's SR stays open
        let r = check(&[&p1, &p2], &HashMap::new(), now_ns()).unwrap();
        assert_eq!(r.intervals, 5);
        assert_eq!(r.overlaps.len(), 1, "{:?}", r.overlaps);
        assert_eq!(r.overlaps[0].1.lock_type, LockType::SR);
    }
}

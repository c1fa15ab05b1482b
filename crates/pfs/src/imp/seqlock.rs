//! The seqlock every event record is (`events.rs`, `trx_log.rs`): the writer bumps the
//! sequence word to an odd value, writes the fields (relaxed) and bumps it to the next even
//! value (release); a reader copies the fields between two reads of the word and retries (a few
//! times, then gives up) if it saw a write in progress or one ended in between. No `unsafe`,
//! and a reader never blocks a writer.

use std::sync::atomic::{fence, AtomicU64, Ordering};

/// A record's sequence word (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct SeqLock(AtomicU64);

impl SeqLock {
    /// Runs `f`, the stores of one write. One writer at a time: the record's owner (a shared
    /// ring's slot is taken by one `fetch_add`, `events.rs`).
    #[inline]
    pub(crate) fn write(&self, f: impl FnOnce()) {
        let s = self.0.load(Ordering::Relaxed);
        self.0.store(s.wrapping_add(1) | 1, Ordering::Relaxed);
        fence(Ordering::Release);
        f();
        self.0.store((s | 1).wrapping_add(1), Ordering::Release);
    }

    /// What `load` copied while no write was in progress, or `None` if each of 16 tries met
    /// one.
    #[inline]
    pub(crate) fn read<T>(&self, load: impl Fn() -> T) -> Option<T> {
        for _ in 0..16 {
            let s1 = self.0.load(Ordering::Acquire);
            if s1 & 1 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let d = load();
            fence(Ordering::Acquire);
            if self.0.load(Ordering::Relaxed) == s1 {
                return Some(d);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;

    /// A reader never sees a half-written pair: both words are always equal in a copy.
    #[test]
    fn a_read_sees_whole_writes_only() {
        #[derive(Default)]
        struct Pair {
            seq: SeqLock,
            a: AtomicU64,
            b: AtomicU64,
        }
        let p = Arc::new(Pair::default());
        let w = Arc::clone(&p);
        let writer = std::thread::spawn(move || {
            for i in 1..=200_000u64 {
                w.seq.write(|| {
                    w.a.store(i, Ordering::Relaxed);
                    w.b.store(i, Ordering::Relaxed);
                });
            }
        });
        let mut seen = 0;
        while !writer.is_finished() || seen == 0 {
            let copy = p
                .seq
                .read(|| (p.a.load(Ordering::Relaxed), p.b.load(Ordering::Relaxed)));
            if let Some((a, b)) = copy {
                assert_eq!(a, b);
                seen += 1;
            }
        }
        writer.join().unwrap();
        assert_eq!(p.seq.read(|| p.a.load(Ordering::Relaxed)), Some(200_000));
    }
}

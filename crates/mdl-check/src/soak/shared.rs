//! State shared by the worker threads: the book under a mutex, the checks made when a grant is
//! booked, kill handles, and the log of violations.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use mdl_core::{KillHandle, LockType, MdlKey};
use mdl_reference::matrix::{conflicts, is_scoped};

use super::book::{Book, Held};
use super::config::SoakConfig;

pub(super) struct Shared {
    pub(super) cfg: SoakConfig,
    pub(super) book: Mutex<Book>,
    /// Waits that ended with timeout, kill or deadlock, ever (for the deadlock check).
    pub(super) failed_wait_ends: AtomicU64,
    pub(super) kill_handles: Mutex<Vec<Option<KillHandle>>>,
    pub(super) violations: AtomicU64,
    pub(super) samples: Mutex<Vec<String>>,
    pub(super) stop: AtomicBool,
    pub(super) next_uid: AtomicU64,
}

impl Shared {
    pub(super) fn violation(&self, what: String) {
        self.violations.fetch_add(1, Ordering::Relaxed);
        let mut s = self.samples.lock().unwrap();
        // Keep up to 3 samples of each kind (the text before the first colon).
        let kind = what.split(':').next().unwrap_or("").to_string();
        let same = s
            .iter()
            .filter(|x| x.split(':').next() == Some(kind.as_str()))
            .count();
        if s.len() < 400 && same < 3 {
            s.push(what);
        }
    }

    /// Records a grant; checks it against every other context's held locks.
    pub(super) fn grant(&self, ctx: u64, key: &MdlKey, ty: LockType, how: &'static str) -> u64 {
        let uid = self.next_uid.fetch_add(1, Ordering::Relaxed);
        let scoped = is_scoped(key.namespace());
        let mut book = self.book.lock().unwrap();
        let list = book.held.entry(key.as_bytes().to_vec()).or_default();
        if let Some(other) = list
            .iter()
            .find(|h| h.ctx != ctx && !h.soft && conflicts(scoped, ty, h.ty))
        {
            let msg = format!(
                "{key}: {ty:?} granted to context {ctx} by {how} while context {} holds {:?} (by {})",
                other.ctx, other.ty, other.how
            );
            drop(book);
            self.violation(msg);
            let mut book = self.book.lock().unwrap();
            book.held
                .entry(key.as_bytes().to_vec())
                .or_default()
                .push(Held {
                    ctx,
                    ty,
                    uid,
                    how,
                    soft: false,
                });
            return uid;
        }
        list.push(Held {
            ctx,
            ty,
            uid,
            how,
            soft: false,
        });
        uid
    }

    /// Marks a held entry soft (see [`Held::soft`]).
    pub(super) fn soften(&self, key: &MdlKey, uid: u64) {
        let mut book = self.book.lock().unwrap();
        if let Some(h) = book
            .held
            .get_mut(key.as_bytes())
            .and_then(|l| l.iter_mut().find(|h| h.uid == uid))
        {
            h.soft = true;
        }
    }

    pub(super) fn ungrant(&self, key: &MdlKey, uid: u64) {
        let mut book = self.book.lock().unwrap();
        if let Some(list) = book.held.get_mut(key.as_bytes()) {
            list.retain(|h| h.uid != uid);
            if list.is_empty() {
                book.held.remove(key.as_bytes());
            }
        }
    }

    /// Changes the type of a held entry (upgrade after the fact, downgrade before).
    pub(super) fn retype(&self, ctx: u64, key: &MdlKey, uid: u64, ty: LockType) {
        let scoped = is_scoped(key.namespace());
        let mut book = self.book.lock().unwrap();
        let Some(list) = book.held.get_mut(key.as_bytes()) else {
            return;
        };
        let conflict = list
            .iter()
            .find(|h| h.ctx != ctx && !h.soft && conflicts(scoped, ty, h.ty))
            .map(|h| (h.ctx, h.ty));
        if let Some(h) = list.iter_mut().find(|h| h.uid == uid) {
            h.ty = ty;
            h.how = "retype";
        }
        drop(book);
        if let Some((c, t)) = conflict {
            self.violation(format!(
                "{key}: context {ctx} upgraded to {ty:?} while context {c} holds {t:?}"
            ));
        }
    }
}

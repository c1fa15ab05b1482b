//! User-level lock calls on a session (the rules are in `user_lock.rs`; MySQL's
//! `sql/item_func.cc`): the session keeps each name's ticket and reference count, as MySQL's
//! `thd->ull_hash` does.

use mdl_core::{ErrorKind, LockDuration, LockType, MdlRequest};

use super::Session;
use crate::error::SqlError;
use crate::user_lock::{UserLockCall, UserLockFunction, UserLockValue};

impl Session {
    /// Undoes one GET_LOCK call that got `key` (the statement failed): one reference less, the
    /// lock released with the last.
    pub(super) fn give_back_user_lock(&mut self, key: &mdl_core::MdlKey) {
        if let Some((t, refs)) = self.user_locks.get_mut(key) {
            *refs -= 1;
            if *refs == 0 {
                let t = *t;
                self.user_locks.remove(key);
                let _ = self.ctx.release(t);
            }
        }
    }

    /// One user-level lock call (see `user_lock.rs`).
    pub(super) async fn user_lock(
        &mut self,
        call: &UserLockCall,
    ) -> Result<UserLockValue, SqlError> {
        let Some(key) = &call.key else {
            // RELEASE_ALL_LOCKS()
            let mut n = 0;
            for (_, (t, refs)) in self.user_locks.drain() {
                let _ = self.ctx.release(t);
                n += i64::from(refs);
            }
            return Ok(Some(n));
        };
        let mgr = self.ctx.manager().clone();
        let owner = || mgr.find_lock_owner(key);
        Ok(match call.function {
            UserLockFunction::GetLock => {
                if let Some((_, refs)) = self.user_locks.get_mut(key) {
                    *refs += 1;
                    return Ok(Some(1));
                }
                let req = MdlRequest::new(key.clone(), LockType::X, LockDuration::Explicit);
                match self.ctx.acquire_async(&req, call.timeout).await {
                    Ok(t) => {
                        self.user_locks.insert(key.clone(), (t, 1));
                        Some(1)
                    }
                    Err(e) if e.kind() == ErrorKind::Timeout => Some(0),
                    Err(e) if e.kind() == ErrorKind::Deadlock => {
                        return Err(SqlError::user_lock_deadlock(e))
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            UserLockFunction::ReleaseLock => match self.user_locks.get_mut(key) {
                Some((t, refs)) => {
                    *refs -= 1;
                    if *refs == 0 {
                        let t = *t;
                        self.user_locks.remove(key);
                        self.ctx.release(t)?;
                    }
                    Some(1)
                }
                None => owner().map(|_| 0),
            },
            UserLockFunction::IsFreeLock => Some(i64::from(owner().is_none())),
            UserLockFunction::IsUsedLock => owner().map(|c| c.as_u64() as i64),
            UserLockFunction::ReleaseAllLocks => unreachable!("RELEASE_ALL_LOCKS has no key"),
        })
    }

    /// The user-level locks this session holds, with their reference counts.
    pub fn user_locks(&self) -> Vec<(String, u32)> {
        let mut v: Vec<_> = self
            .user_locks
            .iter()
            .map(|(k, (_, refs))| (k.name().to_string(), *refs))
            .collect();
        v.sort();
        v
    }
}

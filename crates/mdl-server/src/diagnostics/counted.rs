//! Where a session's area counts the conditions it raises: the session's `pfs` thread, whose
//! error summaries (`performance_schema.events_errors_summary_*_by_error`,
//! `pfs_views/errors.rs`) count every condition raised, as MySQL's `THD::raise_condition`
//! calls `MYSQL_LOG_ERROR` for each (`sql/sql_class.cc`). Only a raise calls it: a statement
//! that raises nothing pays nothing.

use std::fmt;

/// The session's `pfs` thread (none: an area of no session, in unit tests).
#[derive(Clone, Default)]
pub struct Counted(Option<pfs::SessionThread>);

impl Counted {
    /// Counts on `thread`.
    pub fn on(thread: &pfs::SessionThread) -> Counted {
        Counted(Some(thread.clone()))
    }

    /// Condition `code` was raised `n` times.
    #[cold]
    #[inline(never)]
    pub(super) fn raised(&self, code: u16, n: u64) {
        if let Some(t) = &self.0 {
            t.error_raised(u32::from(code), n);
        }
    }
}

impl fmt::Debug for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.0.as_ref().map(pfs::SessionThread::thread_id);
        f.debug_tuple("Counted").field(&id).finish()
    }
}

//! What a statement did, given when it ends ([`crate::PendingStatement::end_with`]): the
//! columns of `events_statements_*` that only the statement's executor knows (`ROWS_SENT`,
//! `ROWS_AFFECTED`, `WARNINGS`, and `ERRORS`, `MYSQL_ERRNO`, `RETURNED_SQLSTATE`,
//! `MESSAGE_TEXT` for a failed one), as MySQL's server gives them to its performance schema at
//! the statement's end (`MYSQL_END_STATEMENT` with the diagnostics area, `sql/sql_parse.cc`),
//! and what the engine says it did ([`StatementOutcome::engine`]: `NO_INDEX_USED`,
//! `SELECT_SCAN`, `SORT_SCAN`, as MySQL's executor sets them on the `THD` during the statement,
//! `sql/sql_executor.cc`, `sql/filesort.cc`).

/// The longest `SQL_TEXT` kept, in bytes: MySQL's default
/// `performance_schema_max_sql_text_length`. A longer text is cut at a UTF-8 character
/// boundary at or below it.
pub const MAX_SQL_TEXT: usize = 1024;

/// The longest `MESSAGE_TEXT` kept, in bytes: MySQL's column is `VARCHAR(128)`.
pub const MAX_MESSAGE_TEXT: usize = 128;

/// What a statement did (see the module docs). Built with [`StatementOutcome::ok`] or
/// [`StatementOutcome::error`], then [`StatementOutcome::warnings`].
///
/// ```
/// let ok = pfs::StatementOutcome::ok(1, 0).warnings(2);
/// assert_eq!((ok.rows_sent(), ok.warning_count(), ok.errno()), (1, 2, 0));
/// let failed = pfs::StatementOutcome::error(1146, "42S02", "Table 'test.t' doesn't exist");
/// assert_eq!(failed.errno(), 1146);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatementOutcome<'a> {
    rows_sent: u64,
    rows_affected: u64,
    /// `MYSQL_ERRNO` (low half) and `WARNINGS` (high half), as the event keeps them.
    diag: u64,
    /// `RETURNED_SQLSTATE` and `MESSAGE_TEXT` of a failed statement: `None` for one that
    /// succeeded, a single word to write when the statement's end builds its outcome.
    error: Option<(&'a str, &'a str)>,
    /// `NO_INDEX_USED` (bit 0), `SELECT_SCAN` (bit 1) and `SORT_SCAN` (high half), one word
    /// so that the common end tests it with the others (0: the engine did none of these).
    engine: u64,
}

/// `NO_INDEX_USED`'s bit in the engine word.
const NO_INDEX_USED: u64 = 1;
/// `SELECT_SCAN`'s bit in the engine word.
const SELECT_SCAN: u64 = 2;

impl<'a> StatementOutcome<'a> {
    /// A statement that succeeded, having sent `rows_sent` rows to the client and changed
    /// `rows_affected` (MySQL's affected rows: `ROW_COUNT()`).
    pub const fn ok(rows_sent: u64, rows_affected: u64) -> StatementOutcome<'a> {
        StatementOutcome {
            rows_sent,
            rows_affected,
            diag: 0,
            error: None,
            engine: 0,
        }
    }

    /// A statement that failed with MySQL's error `errno`, `sqlstate` (five characters) and
    /// `message` (`ERRORS` is then 1; the message is kept up to [`MAX_MESSAGE_TEXT`] bytes).
    pub const fn error(errno: u32, sqlstate: &'a str, message: &'a str) -> StatementOutcome<'a> {
        StatementOutcome {
            rows_sent: 0,
            rows_affected: 0,
            diag: errno as u64,
            error: Some((sqlstate, message)),
            engine: 0,
        }
    }

    /// The same, with `count` warnings (`WARNINGS`).
    pub const fn warnings(mut self, count: u32) -> StatementOutcome<'a> {
        self.diag = (self.diag & 0xffff_ffff) | (count as u64) << 32;
        self
    }

    /// The same, with what the engine did: `no_index_used` (`NO_INDEX_USED` = 1: it scanned a
    /// table without an index), `select_scan` (`SELECT_SCAN` = 1: a select's full scan) and
    /// `sorts` (`SORT_SCAN`: the sorts it made).
    ///
    /// ```
    /// let o = pfs::StatementOutcome::ok(3, 0).engine(true, true, 2);
    /// assert_eq!((o.no_index_used(), o.select_scan(), o.sort_scan()), (1, 1, 2));
    /// ```
    pub const fn engine(mut self, no_index_used: bool, select_scan: bool, sorts: u32) -> Self {
        self.engine = ((no_index_used as u64) * NO_INDEX_USED)
            | ((select_scan as u64) * SELECT_SCAN)
            | ((sorts as u64) << 32);
        self
    }

    /// `NO_INDEX_USED`: 1 or 0.
    pub const fn no_index_used(&self) -> u64 {
        engine_parts(self.engine)[0]
    }

    /// `SELECT_SCAN`: 1 or 0.
    pub const fn select_scan(&self) -> u64 {
        engine_parts(self.engine)[1]
    }

    /// `SORT_SCAN`.
    pub const fn sort_scan(&self) -> u64 {
        engine_parts(self.engine)[2]
    }

    /// The engine word (see [`engine_parts`]).
    #[cfg_attr(not(feature = "instrumentation"), allow(dead_code))]
    pub(crate) const fn engine_word(&self) -> u64 {
        self.engine
    }

    /// `ROWS_SENT`.
    pub const fn rows_sent(&self) -> u64 {
        self.rows_sent
    }

    /// `ROWS_AFFECTED`.
    pub const fn rows_affected(&self) -> u64 {
        self.rows_affected
    }

    /// `WARNINGS`.
    pub const fn warning_count(&self) -> u32 {
        (self.diag >> 32) as u32
    }

    /// `MYSQL_ERRNO`: 0 for a statement that succeeded.
    pub const fn errno(&self) -> u32 {
        self.diag as u32
    }

    /// `MYSQL_ERRNO` and `WARNINGS` in one word (low and high halves).
    #[cfg_attr(not(feature = "instrumentation"), allow(dead_code))]
    pub(crate) const fn diag(&self) -> u64 {
        self.diag
    }

    /// `RETURNED_SQLSTATE` of a failed statement (empty otherwise).
    pub const fn sqlstate(&self) -> &'a str {
        match self.error {
            Some((s, _)) => s,
            None => "",
        }
    }

    /// `MESSAGE_TEXT` of a failed statement (empty otherwise).
    pub const fn message(&self) -> &'a str {
        match self.error {
            Some((_, m)) => m,
            None => "",
        }
    }
}

/// `NO_INDEX_USED`, `SELECT_SCAN` and `SORT_SCAN` of an engine word
/// ([`StatementOutcome::engine`]).
pub(crate) const fn engine_parts(word: u64) -> [u64; 3] {
    [word & NO_INDEX_USED, (word & SELECT_SCAN) >> 1, word >> 32]
}

/// `text` cut to at most `max` bytes at a character boundary.
#[cfg_attr(not(feature = "instrumentation"), allow(dead_code))]
pub(crate) fn truncated(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_cut_on_a_character_boundary() {
        assert_eq!(truncated("abc", 2), "ab");
        assert_eq!(truncated("abc", 5), "abc");
        // "é" is two bytes: a cut inside it keeps the character out.
        assert_eq!(truncated("aé", 2), "a");
        assert_eq!(truncated("aé", 3), "aé");
        let long = "x".repeat(MAX_SQL_TEXT) + "€";
        assert_eq!(truncated(&long, MAX_SQL_TEXT).len(), MAX_SQL_TEXT);
    }
}

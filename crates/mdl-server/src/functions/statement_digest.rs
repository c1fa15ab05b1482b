//! `STATEMENT_DIGEST_TEXT(str)` and `STATEMENT_DIGEST(str)` (MySQL 8.0.4; manual,
//! "Encryption and Compression Functions"; source
//! `sql/item_strfunc.cc`, `Item_func_statement_digest_text` / `Item_func_statement_digest`):
//! the digest text of the statement `str`, and its hash, from the code that gives a text
//! query's `DIGEST_TEXT` and `DIGEST` columns (`statement_event/digest.rs`,
//! `pfs::digest_hash`). NULL for NULL.
//!
//! Two differences from MySQL: the hash is `pfs::digest_hash` of the text (16 hex digits, as
//! this server's `DIGEST` columns), not the SHA-256 of MySQL's token ids (64 digits), and
//! `str` is not parsed, so a string that is no statement has a digest where MySQL fails with
//! `ER_PARSE_ERROR`.

use rusqlite::types::Value;

use super::{flags, text};
use crate::statement_event::digest_text;

/// Registers the two functions on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let f = flags(true);
    db.create_scalar_function("STATEMENT_DIGEST_TEXT", 1, f, |ctx| {
        Ok(text(ctx, 0).map_or(Value::Null, |s| Value::Text(digest_text(&s))))
    })?;
    db.create_scalar_function("STATEMENT_DIGEST", 1, f, |ctx| {
        Ok(text(ctx, 0).map_or(Value::Null, |s| {
            Value::Text(pfs::digest_hash(&digest_text(&s)))
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn digests_are_the_performance_schemas() {
        let db = db();
        let text = "SELECT `c` FROM `sbtest1` WHERE `id` = ?";
        assert_eq!(
            eval(
                &db,
                "STATEMENT_DIGEST_TEXT('select c from sbtest1 where id=5')"
            ),
            Value::Text(text.into())
        );
        assert_eq!(
            eval(
                &db,
                "STATEMENT_DIGEST('SELECT c FROM sbtest1 WHERE id = 7')"
            ),
            Value::Text(pfs::digest_hash(text))
        );
        assert_eq!(eval(&db, "STATEMENT_DIGEST(NULL)"), Value::Null);
        assert_eq!(eval(&db, "STATEMENT_DIGEST_TEXT(NULL)"), Value::Null);
    }
}

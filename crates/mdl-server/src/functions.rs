//! MySQL's string functions that SQLite lacks, registered on every engine connection, so the
//! queries a DBA types against `performance_schema` (which group instrument names by prefix
//! with `SUBSTRING_INDEX`) run unchanged. SQLite already has `CONCAT`, `SUBSTR`, `INSTR`,
//! `LENGTH`, `UPPER` and `LOWER`.

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};

/// Registers the functions on `db`.
pub fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    db.create_scalar_function("SUBSTRING_INDEX", 3, flags, substring_index_sql)
}

fn substring_index_sql(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    let text = |i: usize| -> rusqlite::Result<Option<String>> {
        Ok(match ctx.get_raw(i) {
            ValueRef::Null => None,
            ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Integer(n) => Some(n.to_string()),
            ValueRef::Real(x) => Some(x.to_string()),
        })
    };
    let count = match ctx.get_raw(2) {
        ValueRef::Null => return Ok(Value::Null),
        _ => ctx.get::<i64>(2)?,
    };
    Ok(match (text(0)?, text(1)?) {
        (Some(s), Some(d)) => Value::Text(substring_index(&s, &d, count).to_string()),
        _ => Value::Null,
    })
}

/// MySQL's `SUBSTRING_INDEX(s, delim, count)` (`Item_func_substr_index`): the part of `s`
/// before the `count`-th occurrence of `delim` counted from the left (count > 0), or after
/// the `count`-th counted from the right (count < 0); all of `s` when it has fewer; empty
/// when `count` is 0 or `delim` is empty.
pub fn substring_index<'a>(s: &'a str, delim: &str, count: i64) -> &'a str {
    if count == 0 || delim.is_empty() {
        return "";
    }
    let n = count.unsigned_abs() as usize;
    if count > 0 {
        match s.match_indices(delim).nth(n - 1) {
            Some((at, _)) => &s[..at],
            None => s,
        }
    } else {
        match s.rmatch_indices(delim).nth(n - 1) {
            Some((at, _)) => &s[at + delim.len()..],
            None => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::substring_index;

    /// MySQL 8.0 manual's examples, and the edges.
    #[test]
    fn substring_index_as_mysql() {
        assert_eq!(substring_index("www.mysql.com", ".", 2), "www.mysql");
        assert_eq!(substring_index("www.mysql.com", ".", -2), "mysql.com");
        assert_eq!(substring_index("wait/io/file/sql/x", "/", 2), "wait/io");
        assert_eq!(substring_index("a/b", "/", 5), "a/b");
        assert_eq!(substring_index("a/b", "/", -5), "a/b");
        assert_eq!(substring_index("a/b", "/", 0), "");
        assert_eq!(substring_index("a/b", "", 1), "");
        assert_eq!(substring_index("a::b::c", "::", -1), "c");
    }

    #[test]
    fn registered_and_null_safe() {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        super::register(&db).unwrap();
        let got: String = db
            .query_row(
                "SELECT SUBSTRING_INDEX('wait/lock/metadata', '/', 2)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(got, "wait/lock");
        let null: Option<String> = db
            .query_row("SELECT SUBSTRING_INDEX(NULL, '/', 2)", [], |r| r.get(0))
            .unwrap();
        assert_eq!(null, None);
    }
}

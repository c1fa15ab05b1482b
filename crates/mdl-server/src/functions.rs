//! MySQL 8.0's scalar functions that the bundled SQLite (3.50) lacks or means otherwise,
//! registered on every engine connection so the queries applications and DBAs type run
//! unchanged. Each module names the MySQL source or manual section it follows:
//!
//! * `clock`: `NOW()` and its kin, `SYSDATE()`, `UNIX_TIMESTAMP`, `FROM_UNIXTIME`, `CONVERT_TZ`
//!   (offsets and `SYSTEM`), and the
//!   [`StatementClock`] they read; `on_update_marks`: the marks of `ON UPDATE
//!   CURRENT_TIMESTAMP`'s triggers (`on_update.rs`).
//! * `temporal`: MySQL's DATE, DATETIME and TIME values, read from arguments as MySQL reads
//!   strings and numbers in a date or time context; `calendar`: day numbers and weeks.
//! * `parts`: `YEAR` ... `MICROSECOND`, `WEEK`, `EXTRACT`, `TO_DAYS`, `DATEDIFF`, `TIMEDIFF`,
//!   ...; `interval`: `DATE_ADD`, `DATE_SUB`, `TIMESTAMPADD`, `TIMESTAMPDIFF`; `format`:
//!   `DATE_FORMAT`, `TIME_FORMAT`, `STR_TO_DATE`.
//! * `string` (`CONCAT`, `LPAD`, `LOCATE`, ..., `ELT`, `ORD`, `STRCMP`, `BIT_LENGTH`),
//!   `numeric` (`MOD`, `POW`, `LOG`, `RAND`, `UUID`, ..., `FORMAT`, `UUID_SHORT`,
//!   `ANY_VALUE`), `hash` (`MD5`, `SHA1`, `SHA2`, `CRC32`), `statement_digest`
//!   (`STATEMENT_DIGEST_TEXT`, `STATEMENT_DIGEST`), `compare` (`GREATEST`, `LEAST`,
//!   `ISNULL`), `regexp` (`REGEXP` / `RLIKE`, `REGEXP_LIKE`).
//! * `splice`: `SUBSTRING` / `SUBSTR` / `MID`, `INSERT`, `TRIM(... remstr FROM str)`.
//! * `number_text`: a double as MySQL writes it as a string (`1000`, `1e20`, where SQLite
//!   writes `1000.0`), which every function here reads a double argument as, and `MYSQL_TEXT`
//!   (`CAST(x AS CHAR)`); decimal rounding (`ROUND`, `TRUNCATE`, `MYSQL_DECIMAL` for
//!   `CAST(x AS DECIMAL(m, d))`, `FORMAT`) on the digits, not the double (`1.555` to `1.56`);
//!   `round_double`: `ROUND` / `TRUNCATE` of a double with `rint` (`ROUND(2.5e0)` is 2);
//!   `type_of`: `MYSQL_TYPE_OF`, an expression's MySQL type when the statement runs.
//! * `builtins`: SQLite's `INSTR`, `TRIM`, `LTRIM`, `RTRIM`, `OCTET_LENGTH` and `QUOTE`,
//!   overridden to read a double argument as MySQL writes it (`1000`, not `1000.0`).
//! * `math`: `SIN`, `COS`, `TAN`, `COT`, `ASIN`, `ACOS`, `ATAN`, `ATAN2`, `DEGREES`,
//!   `RADIANS`.
//! * `convert`: `HEX`, `BIN`, `OCT`, `CONV`, `BIT_COUNT`, `INET_ATON`, `INET_NTOA`,
//!   `TO_BASE64`, `FROM_BASE64`.
//! * `json`: `JSON_TYPE`, `JSON_EXTRACT`, `JSON_UNQUOTE`, `JSON_LENGTH`, `JSON_KEYS`, on
//!   `json_text` (JSON text read as MySQL reads it, with its errors) and `json_path` (paths);
//!   `json_more`: the functions that build and change documents (`JSON_OBJECT`, `JSON_SET`,
//!   `JSON_MERGE_PATCH`, ..., `CAST(x AS JSON)`), in MySQL's text, and the check of a JSON
//!   column; `json_search`: `JSON_CONTAINS`, `JSON_SEARCH`, `MEMBER OF`, ...; `json_agg`:
//!   `JSON_ARRAYAGG`, `JSON_OBJECTAGG`; `json_marks`: the marks the rewrite puts on a boolean
//!   or a JSON column passed to them, which they take as JSON.
//! * `pfs_format`: `FORMAT_PICO_TIME`, `FORMAT_BYTES` (the sys schema's formatted views use
//!   them); `threads`: `PS_CURRENT_THREAD_ID`, `PS_THREAD_ID`, `sys.ps_thread_id`;
//!   `sys_schema`: the sys schema's other functions (`sys.format_time`, ...).
//!
//! How they meet SQLite:
//!
//! * SQLite already has, with MySQL's meaning: `IF` (3.48+), `IFNULL`, `NULLIF`, `COALESCE`,
//!   `ABS`, `SIGN` (`INSTR`, `TRIM` and kin too, but they read a double argument as SQLite
//!   writes it, `1000.0`: `builtins`).
//! * Overridden, because SQLite's mean otherwise: `CONCAT` (NULL if any argument is NULL;
//!   SQLite skips NULLs), `CONCAT_WS` and `REPLACE` (a double argument as MySQL writes it:
//!   `number_text`), `LENGTH` (bytes, as MySQL's; SQLite counts characters: MySQL's
//!   character count is `CHAR_LENGTH`), `LOWER`/`UPPER` (Unicode; SQLite's fold ASCII only),
//!   `HEX` (of a number, its value, not its text: `convert`), `FORMAT` with two or three
//!   arguments (SQLite's is its `printf`: `numeric`), `ROUND` (SQLite's rounds the double:
//!   `number_text`), `SUBSTRING`/`SUBSTR` (at position 0,
//!   before the start, with a negative length: `splice`), `JSON_TYPE` (MySQL's type names:
//!   `json`), the JSON functions that give JSON (MySQL's text, `{"a": 1}`, where SQLite's write
//!   `{"a":1}`: `json_more`, `json_agg`), and the keywords `CURRENT_TIMESTAMP`/`CURRENT_DATE`/`CURRENT_TIME` (column
//!   defaults too), which SQLite compiles into calls of functions of those names: they read
//!   the statement clock below, in the session's `time_zone` (`SYSTEM` = UTC, or an offset
//!   the session set: `time_zone.rs`).
//! * Strings compare as the engine's columns do, byte for byte (SQLite's BINARY collation):
//!   `LOCATE`, `FIELD`, `FIND_IN_SET`, `STRCMP`, `GREATEST` and `LEAST` are case-sensitive,
//!   unlike MySQL's default `utf8mb4_0900_ai_ci`, so that they agree with `=` on this
//!   server.
//! * The clock: as in MySQL, `NOW()`, `CURDATE()`, `CURTIME()`, `UNIX_TIMESTAMP()` and their
//!   synonyms read the start of the statement, set once per statement on the engine
//!   connection ([`StatementClock::start`]); `SYSDATE()` reads the clock at each call.
//! * Functions whose result depends on more than their arguments (the clock, `RAND`,
//!   `UUID_SHORT`, and the date functions, which take a TIME on the statement's date) are
//!   not flagged deterministic, so SQLite never folds them or puts them in an index.
//! * SQLite has no `INTERVAL`, `EXTRACT(unit FROM x)` or unit keywords: the rewrite
//!   (`rewrite.rs`) passes units as strings, `DATE_ADD(x, n, 'DAY')` and so on (see
//!   `interval`); likewise it is to make `TRIM(LEADING remstr FROM str)` a call of
//!   `MYSQL_TRIM('LEADING', remstr, str)` (see `splice`).
//! * Calls SQLite cannot parse under their MySQL names, its keywords, the rewrite renames
//!   (`sqlite_name`): `CURRENT_TIMESTAMP()`, `CURRENT_DATE()` and `CURRENT_TIME()` with
//!   parentheses become `NOW()`, `CURDATE()` and `CURTIME()`; `INSERT(str, pos, len, new)`
//!   becomes `MYSQL_INSERT(...)`, and `ISNULL(x)` `MYSQL_ISNULL(x)`.

mod builtins;
mod calendar;
mod clock;
mod compare;
mod convert;
mod format;
mod hash;
mod interval;
mod json;
mod json_agg;
mod json_marks;
mod json_more;
mod json_path;
mod json_search;
mod json_text;
mod math;
mod number_text;
mod numeric;
mod on_update_marks;
mod parts;
mod pfs_format;
mod regexp;
mod round_double;
mod splice;
mod statement_digest;
mod string;
mod sys_schema;
mod temporal;
mod threads;
mod type_of;

use std::borrow::Cow;
use std::sync::Arc;

use rusqlite::functions::{Context, FunctionFlags};
use sqlparser::ast::{ObjectName, ObjectNamePart};

use crate::error::ServerError;
use rusqlite::types::{Value, ValueRef};

/// The longest string a function builds, MySQL's default `max_allowed_packet` (64 MiB): a
/// longer result is NULL, as MySQL's `REPEAT`, `LPAD`, ... give with warning 1301.
const MAX_RESULT: usize = 64 << 20;

pub(crate) use clock::zone_offset;
pub use clock::StatementClock;
pub use json_marks::{BOOLEAN as JSON_BOOLEAN_MARK, OF_COLUMN as JSON_COLUMN_MARK};
pub use json_more::{column_text as json_column_text, COLUMN_CHECK as JSON_COLUMN_CHECK};
pub(crate) use number_text::{real_text, round_decimal, Mode as RoundMode};
pub use number_text::{MYSQL_DECIMAL, MYSQL_TEXT};
pub use on_update_marks::{ON_UPDATE_MARK, ON_UPDATE_MARKED};
pub(crate) use sys_schema::FORMAT_STATEMENT;
pub use type_of::MYSQL_TYPE_OF;

/// What a statement's calls leave for the server to read once it ends: the value
/// `LAST_INSERT_ID(expr)` set (`Item_func_last_insert_id` in `item_func.cc`: the argument is
/// returned and becomes the session's `LAST_INSERT_ID()`, and the statement's insert id).
/// Two relaxed atomics, not a mutex: every statement asks, once at its start and once at its
/// end, and the engine connection runs one statement at a time.
/// Also the rows an UPDATE or an upsert updated, and of those the ones left as they were
/// (`MDL_UPDATED_ROW`, which the rewrite puts in: `rewrite/changed.rs`), and the rows a
/// REPLACE deleted (`replace_rows.rs`). And the largest id an INSERT's rows gave its
/// `AUTO_INCREMENT` column before its first generated one, whose id is the statement's insert
/// id as `LAST_INSERT_ID(expr)`'s is (`execute/insert_select.rs`).
#[derive(Debug, Default)]
pub struct StatementOutcome {
    last_insert_id_set: std::sync::atomic::AtomicBool,
    last_insert_id: std::sync::atomic::AtomicI64,
    given_id: std::sync::atomic::AtomicI64,
    updated: std::sync::atomic::AtomicU64,
    unchanged: std::sync::atomic::AtomicU64,
    replaced: crate::replace_rows::Replaced,
}

/// The function through which an UPDATE's (or an upsert's) last assigned value goes:
/// `MDL_UPDATED_ROW(value, unchanged)` is `value`, and counts the row, as unchanged if
/// `unchanged` is true (`rewrite/changed.rs`).
pub const UPDATED_ROW: &str = "MDL_UPDATED_ROW";

impl StatementOutcome {
    /// The value the last `LAST_INSERT_ID(expr)` of the statement set, or its first
    /// generated id, if either was (a load when none was); the ids given count from none again.
    pub fn take_last_insert_id(&self) -> Option<i64> {
        use std::sync::atomic::Ordering::Relaxed;
        self.given_id.store(0, Relaxed);
        (self.last_insert_id_set.load(Relaxed) && self.last_insert_id_set.swap(false, Relaxed))
            .then(|| self.last_insert_id.load(Relaxed))
    }

    /// A row of the statement gives its `AUTO_INCREMENT` column `id` (`MDL_AUTO_ID`,
    /// `execute/insert_select.rs`).
    pub(crate) fn gives_id(&self, id: i64) {
        use std::sync::atomic::Ordering::Relaxed;
        if !self.last_insert_id_set.load(Relaxed) {
            self.given_id.fetch_max(id, Relaxed);
        }
    }

    /// A row of the statement has its `AUTO_INCREMENT` column generated, the table's largest
    /// id or counter being `before` when the statement started: the first such row's id (one
    /// past that and the ids the rows before it gave, as SQLite counts) is the statement's
    /// insert id, unless `LAST_INSERT_ID(expr)` set one.
    pub(crate) fn generates_id(&self, before: i64) {
        use std::sync::atomic::Ordering::Relaxed;
        if !self.last_insert_id_set.load(Relaxed) {
            let last = before.max(self.given_id.load(Relaxed));
            self.set_last_insert_id(last.saturating_add(1));
        }
    }

    /// The rows the statement's UPDATE (or upsert) updated, and those of them it left as they
    /// were; both counts start again.
    pub fn take_updated_rows(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.updated.swap(0, Relaxed),
            self.unchanged.swap(0, Relaxed),
        )
    }

    /// What the running REPLACE's triggers report (`replace_rows.rs`).
    pub fn replaced(&self) -> &crate::replace_rows::Replaced {
        &self.replaced
    }

    fn set_last_insert_id(&self, n: i64) {
        use std::sync::atomic::Ordering::Relaxed;
        self.last_insert_id.store(n, Relaxed);
        self.last_insert_id_set.store(true, Relaxed);
    }
}

/// Registers the functions on `db`; the clock functions read `clock`, `LAST_INSERT_ID(expr)`
/// writes `outcome`.
pub fn register(
    db: &rusqlite::Connection,
    clock: &Arc<StatementClock>,
    outcome: &Arc<StatementOutcome>,
) -> rusqlite::Result<()> {
    let o = outcome.clone();
    db.create_scalar_function("LAST_INSERT_ID", 1, flags(false), move |ctx| {
        Ok(match int(ctx, 0) {
            Some(n) => {
                o.set_last_insert_id(n);
                Value::Integer(n)
            }
            None => Value::Null,
        })
    })?;
    let o = outcome.clone();
    db.create_scalar_function(UPDATED_ROW, 2, flags(false), move |ctx| {
        use std::sync::atomic::Ordering::Relaxed;
        o.updated.fetch_add(1, Relaxed);
        if ctx.get::<Option<bool>>(1)? == Some(true) {
            o.unchanged.fetch_add(1, Relaxed);
        }
        ctx.get::<Value>(0)
    })?;
    crate::replace_rows::register(db, outcome)?;
    crate::execute::register_auto_id(db, outcome)?;
    crate::views::register(db)?;
    string::register(db)?;
    builtins::register(db)?;
    splice::register(db)?;
    numeric::register(db)?;
    number_text::register(db)?;
    round_double::register(db)?;
    type_of::register(db)?;
    math::register(db)?;
    convert::register(db)?;
    hash::register(db)?;
    statement_digest::register(db)?;
    compare::register(db)?;
    json::register(db)?;
    json_more::register(db)?;
    json_search::register(db)?;
    json_agg::register(db)?;
    json_marks::register(db)?;
    clock::register(db, clock)?;
    on_update_marks::register(db, clock)?;
    parts::register(db, clock)?;
    interval::register(db, clock)?;
    format::register(db, clock)?;
    pfs_format::register(db)?;
    threads::register(db)?;
    sys_schema::register(db)?;
    regexp::register(db)
}

/// The name SQLite knows a MySQL function call `NAME(...)` by, when it is not the same:
/// SQLite parses `CURRENT_TIMESTAMP` and its kin only without parentheses, and `INSERT` and
/// `ISNULL` not as functions at all.
pub fn sqlite_name(mysql: &str) -> Option<&'static str> {
    const RENAMED: [(&str, &str); 5] = [
        ("CURRENT_TIMESTAMP", "NOW"),
        ("CURRENT_DATE", "CURDATE"),
        ("CURRENT_TIME", "CURTIME"),
        ("INSERT", "MYSQL_INSERT"),
        ("ISNULL", "MYSQL_ISNULL"),
    ];
    (RENAMED.iter())
        .find(|(from, _)| from.eq_ignore_ascii_case(mysql))
        .map(|(_, to)| *to)
}

/// The name SQLite knows a call named `name` by, when it is not the name as written: a MySQL
/// function's ([`sqlite_name`]), or a sys schema function's (`sys.format_time`, ...:
/// `sys_schema.rs`).
///
/// # Errors
/// 1305 for any other schema-qualified name: MySQL looks such a call up as a stored function
/// (`Create_qfunc`, `sql/item_create.cc`), and this server has none.
pub fn engine_name(name: &ObjectName) -> Result<Option<&'static str>, ServerError> {
    use ObjectNamePart::Identifier as Id;
    let sys = match &name.0[..] {
        [Id(f)] => return Ok(sqlite_name(&f.value)),
        [Id(s), Id(f)] if s.value.eq_ignore_ascii_case("sys") => sys_schema::engine_name(&f.value),
        _ => None,
    };
    sys.map(Some).ok_or_else(|| {
        let bare = |p: &ObjectNamePart| p.as_ident().map_or(String::new(), |i| i.value.clone());
        let name: Vec<String> = name.0.iter().map(bare).collect();
        ServerError::new(
            1305,
            "42000",
            format!("FUNCTION {} does not exist", name.join(".")),
        )
    })
}

/// The flags of a function: UTF-8, and deterministic when its result depends on its
/// arguments alone.
fn flags(deterministic: bool) -> FunctionFlags {
    if deterministic {
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC
    } else {
        FunctionFlags::SQLITE_UTF8
    }
}

/// Argument `i` as MySQL's string value; None for NULL.
fn text(ctx: &Context<'_>, i: usize) -> Option<String> {
    match ctx.get_raw(i) {
        ValueRef::Null => None,
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Integer(n) => Some(n.to_string()),
        ValueRef::Real(x) => Some(number_text::real_text(x)),
    }
}

/// Argument `i`'s bytes: a string's or blob's own, a number's text; None for NULL.
fn bytes<'a>(ctx: &'a Context<'_>, i: usize) -> Option<Cow<'a, [u8]>> {
    match ctx.get_raw(i) {
        ValueRef::Null => None,
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(Cow::Borrowed(b)),
        ValueRef::Integer(n) => Some(Cow::Owned(n.to_string().into_bytes())),
        ValueRef::Real(x) => Some(Cow::Owned(number_text::real_text(x).into_bytes())),
    }
}

/// Argument `i` as MySQL's integer value (reals round, strings read their numeric prefix);
/// None for NULL.
fn int(ctx: &Context<'_>, i: usize) -> Option<i64> {
    match ctx.get_raw(i) {
        ValueRef::Null => None,
        ValueRef::Integer(n) => Some(n),
        // `as` saturates at i64's bounds, as MySQL clips an out-of-range value.
        ValueRef::Real(x) => Some(x.round() as i64),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Some(number_prefix(&String::from_utf8_lossy(t)).round() as i64)
        }
    }
}

/// Argument `i` as a number, integers kept exact; None for NULL.
fn number(ctx: &Context<'_>, i: usize) -> Option<Num> {
    match ctx.get_raw(i) {
        ValueRef::Null => None,
        ValueRef::Integer(n) => Some(Num::Int(n)),
        ValueRef::Real(x) => Some(Num::Real(x)),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Some(Num::Real(number_prefix(&String::from_utf8_lossy(t))))
        }
    }
}

/// An SQL number: SQLite's two kinds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i64),
    Real(f64),
}

impl Num {
    fn real(self) -> f64 {
        match self {
            Num::Int(n) => n as f64,
            Num::Real(x) => x,
        }
    }
}

/// The number a string starts with, as MySQL reads a string in numeric context (`'3abc'`
/// is 3, `'abc'` is 0): optional spaces, a sign, digits, a fraction, an exponent.
fn number_prefix(s: &str) -> f64 {
    let s = s.trim_start();
    let b = s.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut end = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    end = digits(end);
    if b.get(end) == Some(&b'.') {
        end = digits(end + 1);
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(b.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        let after = digits(e);
        if after > e {
            end = after;
        }
    }
    s[..end].parse().unwrap_or(0.0)
}

/// A string result, NULL past `MAX_RESULT`.
fn bounded(s: String) -> Value {
    if s.len() > MAX_RESULT {
        Value::Null
    } else {
        Value::Text(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection with the functions, for the modules' tests.
    pub(super) fn db() -> rusqlite::Connection {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        register(&db, &Arc::new(StatementClock::new()), &Arc::default()).unwrap();
        db
    }

    /// `SELECT expr`'s value.
    pub(super) fn eval(db: &rusqlite::Connection, expr: &str) -> Value {
        db.query_row(&format!("SELECT {expr}"), [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
    }

    #[test]
    fn strings_read_as_numbers_as_mysql_reads_them() {
        assert_eq!(number_prefix("3abc"), 3.0);
        assert_eq!(number_prefix("  -1.5e2x"), -150.0);
        assert_eq!(number_prefix("1e"), 1.0);
        assert_eq!(number_prefix("abc"), 0.0);
        assert_eq!(number_prefix(""), 0.0);
        assert_eq!(number_prefix(".5"), 0.5);
    }

    #[test]
    fn keywords_renamed() {
        assert_eq!(sqlite_name("CURRENT_TIMESTAMP"), Some("NOW"));
        assert_eq!(sqlite_name("current_date"), Some("CURDATE"));
        assert_eq!(sqlite_name("NOW"), None);
        assert_eq!(sqlite_name("insert"), Some("MYSQL_INSERT"));
        assert_eq!(sqlite_name("IsNull"), Some("MYSQL_ISNULL"));
        let db = db();
        assert_eq!(eval(&db, "length(NOW())"), Value::Integer(19));
        assert_eq!(
            eval(&db, "MYSQL_INSERT('abc', 2, 1, 'x')"),
            Value::Text("axc".into())
        );
        assert_eq!(eval(&db, "MYSQL_ISNULL(NULL)"), Value::Integer(1));
    }
}

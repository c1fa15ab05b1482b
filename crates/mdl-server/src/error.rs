//! The one error a statement ends with: MySQL's code, SQLSTATE and message, as the client
//! sees it on the wire.
//!
//! Lock errors come from `mdl-sql` ([`mdl_sql::SqlError`], MySQL 8.0's codes). The engine's
//! errors (SQLite) are mapped here to the MySQL errors a client expects for the same fault
//! (`share/messages_to_clients.txt` of MySQL 8.0 for codes, SQLSTATEs and wording).

use std::fmt;

use mdl_sql::SqlError;

mod known;
pub(crate) use known::KNOWN_ERRORS;

/// A MySQL error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    /// MySQL's error code.
    pub code: u16,
    /// The SQLSTATE.
    pub sqlstate: &'static str,
    /// The message.
    pub message: String,
}

impl ServerError {
    /// `ER_UNKNOWN_ERROR`.
    pub const UNKNOWN: u16 = 1105;
    /// SQLite's failed foreign-key check, until `foreign_keys/errors.rs` names the key:
    /// `ER_NO_REFERENCED_ROW` (1216)'s text under 1452.
    pub const FOREIGN_KEY_FAILED: u16 = 1452;
    /// Its text.
    pub const FOREIGN_KEY_TEXT: &'static str =
        "Cannot add or update a child row: a foreign key constraint fails";
    /// `ER_NO_SUCH_THREAD`.
    pub const NO_SUCH_THREAD: u16 = 1094;
    /// `ER_LOCK_WAIT_TIMEOUT`.
    pub const LOCK_WAIT_TIMEOUT: u16 = 1205;
    /// `ER_LOCK_DEADLOCK`.
    pub const LOCK_DEADLOCK: u16 = 1213;
    /// `ER_QUERY_INTERRUPTED`.
    pub const QUERY_INTERRUPTED: u16 = 1317;

    /// An error with these parts.
    pub fn new(code: u16, sqlstate: &'static str, message: impl Into<String>) -> ServerError {
        ServerError {
            code,
            sqlstate,
            message: message.into(),
        }
    }

    /// `ER_NOT_SUPPORTED_YET` (1235): a statement this server refuses.
    pub fn not_supported(what: &str) -> ServerError {
        ServerError::new(
            1235,
            "42000",
            format!("This version of MySQL doesn't yet support '{what}'"),
        )
    }

    /// `ER_PARSE_ERROR` (1064) near `near`.
    pub fn parse(near: &str) -> ServerError {
        let near: String = near.chars().take(80).collect();
        ServerError::new(
            1064,
            "42000",
            format!(
                "You have an error in your SQL syntax; check the manual that corresponds to your \
                 MySQL server version for the right syntax to use near '{near}' at line 1"
            ),
        )
    }

    /// `ER_STACK_OVERRUN_NEED_MORE` (1436): a statement nested deeper than this server walks
    /// (`depth.rs`); `why` says how deep.
    pub fn stack_overrun(why: &str) -> ServerError {
        ServerError::new(1436, "HY000", format!("Thread stack overrun: {why}"))
    }

    /// `ER_BAD_DB_ERROR` (1049).
    pub fn unknown_database(name: &str) -> ServerError {
        ServerError::new(1049, "42000", format!("Unknown database '{name}'"))
    }

    /// `ER_NO_SUCH_TABLE` (1146) for `schema.table`.
    pub fn no_such_table(schema: &str, table: &str) -> ServerError {
        ServerError::new(
            1146,
            "42S02",
            format!("Table '{schema}.{table}' doesn't exist"),
        )
    }

    /// `ER_VIEW_INVALID` (1356) of view `view` (`schema.name`).
    pub fn view_invalid(view: &str) -> ServerError {
        ServerError::new(
            1356,
            "HY000",
            format!(
                "View '{view}' references invalid table(s) or column(s) or function(s) or \
                 definer/invoker of view lack rights to use them"
            ),
        )
    }

    /// `ER_NO_SUCH_THREAD` (1094).
    pub fn no_such_thread(id: u64) -> ServerError {
        ServerError::new(
            Self::NO_SUCH_THREAD,
            "HY000",
            format!("Unknown thread id: {id}"),
        )
    }

    /// `ER_QUERY_INTERRUPTED` (1317).
    pub fn interrupted() -> ServerError {
        ServerError::new(
            Self::QUERY_INTERRUPTED,
            "70100",
            "Query execution was interrupted",
        )
    }

    /// `ER_LOCK_WAIT_TIMEOUT` (1205): the engine's single writer did not come free in time
    /// (what InnoDB reports for `innodb_lock_wait_timeout`).
    pub fn lock_wait_timeout() -> ServerError {
        ServerError::new(
            Self::LOCK_WAIT_TIMEOUT,
            "HY000",
            "Lock wait timeout exceeded; try restarting transaction",
        )
    }

    /// `ER_LOCK_DEADLOCK` (1213): the engine refused a write it could not order; the
    /// transaction is rolled back.
    pub fn deadlock() -> ServerError {
        ServerError::new(
            Self::LOCK_DEADLOCK,
            "40001",
            "Deadlock found when trying to get lock; try restarting transaction",
        )
    }

    /// `ER_TABLEACCESS_DENIED_ERROR` (1142): a write to a read-only `performance_schema` or
    /// `sys` table.
    pub fn access_denied(command: &str, table: &str) -> ServerError {
        ServerError::new(
            1142,
            "42000",
            format!("{command} command denied to user 'root'@'localhost' for table '{table}'"),
        )
    }

    /// `ER_UNKNOWN_SYSTEM_VARIABLE` (1193).
    pub fn unknown_variable(name: &str) -> ServerError {
        ServerError::new(1193, "HY000", format!("Unknown system variable '{name}'"))
    }

    /// The MySQL error for a SQLite error met while running `what`.
    pub fn from_engine(e: &rusqlite::Error, schema: Option<&str>) -> ServerError {
        // SQLite's own words, without the statement and offset rusqlite appends to them.
        let msg = match e {
            rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
            other => other.to_string(),
        };
        if let rusqlite::Error::SqliteFailure(f, _) = e {
            use rusqlite::ErrorCode as C;
            match f.code {
                C::DatabaseBusy | C::DatabaseLocked => return ServerError::deadlock(),
                // A kill (`processlist.rs`) interrupted the statement.
                C::OperationInterrupted => return ServerError::interrupted(),
                C::ConstraintViolation => return constraint(&msg),
                _ => {}
            }
        }
        // SQLite re-parses the schema while it renames a table (`alter.c`'s
        // `renameTableTest`) and reports an interrupt met there as a plain SQLITE_ERROR
        // "error in table t: interrupted".
        if msg.starts_with("error in ") && msg.ends_with(": interrupted") {
            return ServerError::interrupted();
        }
        engine_message(&msg, schema)
    }
}

fn constraint(msg: &str) -> ServerError {
    if msg.starts_with("FOREIGN KEY constraint failed") {
        return ServerError::new(
            ServerError::FOREIGN_KEY_FAILED,
            "23000",
            ServerError::FOREIGN_KEY_TEXT,
        );
    }
    if let Some(cols) = msg.strip_prefix("NOT NULL constraint failed: ") {
        let col = cols.rsplit('.').next().unwrap_or(cols);
        return ServerError::new(1048, "23000", format!("Column '{col}' cannot be null"));
    }
    if msg.contains("UNIQUE") || msg.contains("PRIMARY KEY") {
        let key = msg.rsplit(": ").next().unwrap_or("");
        // `table.column` each (a temporary table's SQLite name is `schema.table`:
        // `temporary.rs`).
        let key: Vec<String> = (key.split(", "))
            .map(|k| {
                let mut p = k.rsplitn(3, '.');
                match (p.next(), p.next()) {
                    (Some(c), Some(t)) => format!("{t}.{c}"),
                    _ => k.to_string(),
                }
            })
            .collect();
        let key = key.join(", ");
        return ServerError::new(1062, "23000", format!("Duplicate entry for key '{key}'"));
    }
    let check = msg.strip_prefix("CHECK constraint failed: ").unwrap_or("");
    // A value its column's type refuses (`rewrite/ddl.rs`), as MySQL's strict mode.
    for c in &COLUMN_CHECKS {
        if let Some(column) = check.strip_prefix(c.prefix) {
            return c.error(column);
        }
    }
    ServerError::new(
        3819,
        "HY000",
        format!("Check constraint is violated: {msg}"),
    )
}

/// A check `rewrite/ddl.rs` writes for a column and names after it (`prefix`, then the
/// column), and the MySQL error its failure is.
pub(crate) struct ColumnCheck {
    pub prefix: &'static str,
    pub code: u16,
    sqlstate: &'static str,
    /// The message before ` '<column>' at row 1`.
    text: &'static str,
}

impl ColumnCheck {
    /// The error of a failure of this check on `column`.
    pub fn error(&self, column: &str) -> ServerError {
        let text = self.text;
        ServerError::new(
            self.code,
            self.sqlstate,
            format!("{text} '{column}' at row 1"),
        )
    }

    /// The column an [`error`](Self::error) message names.
    pub fn column_of<'m>(&self, message: &'m str) -> Option<&'m str> {
        (message.strip_prefix(self.text))
            .and_then(|m| m.strip_prefix(" '"))
            .and_then(|m| m.strip_suffix("' at row 1"))
    }
}

/// An `ENUM`'s values (1265), an integer type's range (1264), a `CHAR(n)` / `VARCHAR(n)`'s
/// length (1406).
pub(crate) const COLUMN_CHECKS: [ColumnCheck; 3] = [
    ColumnCheck {
        prefix: crate::rewrite::ENUM_CHECK,
        code: 1265,
        sqlstate: "01000",
        text: "Data truncated for column",
    },
    ColumnCheck {
        prefix: crate::rewrite::RANGE_CHECK,
        code: 1264,
        sqlstate: "22003",
        text: "Out of range value for column",
    },
    ColumnCheck {
        prefix: crate::rewrite::LENGTH_CHECK,
        code: 1406,
        sqlstate: "22001",
        text: "Data too long for column",
    },
];

/// A name as SQLite's message quotes it, without the quotes (SQLite's `"` around the rewrite's
/// backticks).
fn unquoted(name: &str) -> &str {
    name.trim_matches(|c| c == '"' || c == '`')
}

/// MySQL's name of an index SQLite names `schema.t__k` (`catalog.rs`): `k`.
fn index_name(sqlite: &str) -> &str {
    let name = unquoted(sqlite);
    let name = name.rsplit_once('.').map_or(name, |(_, n)| n);
    name.split_once("__").map_or(name, |(_, k)| k)
}

/// An engine error of a DDL's statement `sql` in MySQL's terms where the statement changes
/// them: a column `ALTER TABLE ... DROP COLUMN` does not find is 1091, as for a key.
pub fn ddl_error(sql: &str, e: ServerError) -> ServerError {
    if e.code == 1054 && sql.contains(" DROP COLUMN ") {
        let column = sql.rsplit(" DROP COLUMN ").next().unwrap_or("");
        return ServerError::new(
            1091,
            "42000",
            format!(
                "Can't DROP '{}'; check that column/key exists",
                unquoted(column)
            ),
        );
    }
    e
}

fn engine_message(msg: &str, schema: Option<&str>) -> ServerError {
    let qualified = |name: &str| -> String {
        if name.contains('.') {
            name.to_string()
        } else {
            format!("{}.{name}", schema.unwrap_or(""))
        }
    };
    // A view a table of which is gone (`views.rs`): `ER_VIEW_INVALID`.
    if let Some(v) = msg.strip_prefix(crate::views::INVALID_ERROR) {
        return ServerError::view_invalid(v);
    }
    if let Some(t) = msg.strip_prefix("no such table: ") {
        return ServerError::new(
            1146,
            "42S02",
            format!("Table '{}' doesn't exist", qualified(t)),
        );
    }
    // `RENAME TABLE a TO b` onto a table that exists.
    if let Some(t) = msg.strip_prefix("there is already another table or index with this name: ") {
        return ServerError::new(1050, "42S01", format!("Table '{t}' already exists"));
    }
    // `SELECT *` with no FROM (`ER_NO_TABLES_USED`).
    if msg == "no tables specified" {
        return ServerError::new(1096, "HY000", "No tables used");
    }
    if let Some(rest) = msg.strip_prefix("table ") {
        if let Some(t) = rest.strip_suffix(" already exists") {
            return ServerError::new(1050, "42S01", format!("Table '{t}' already exists"));
        }
    }
    // `INSERT` with more or fewer values than columns (SQLite words it two ways).
    if (msg.starts_with("table ") && msg.contains(" values were supplied"))
        || (msg.contains(" values for ") && msg.ends_with(" columns"))
    {
        return ServerError::new(
            1136,
            "21S01",
            "Column count doesn't match value count at row 1",
        );
    }
    if let Some(f) = msg.strip_prefix("wrong number of arguments to function ") {
        let f = f.trim_end_matches("()");
        return ServerError::new(
            1582,
            "42000",
            format!("Incorrect parameter count in the call to native function '{f}'"),
        );
    }
    // A row where a value belongs, `(1, 2)` or `IN (SELECT a, b ...)`: `ER_OPERAND_COLUMNS`.
    if msg == "row value misused"
        || (msg.starts_with("sub-select returns ") && msg.ends_with(" - expected 1"))
    {
        return ServerError::new(1241, "21000", "Operand should contain 1 column(s)");
    }
    // A foreign key over a column its table lacks: `ER_KEY_COLUMN_DOES_NOT_EXITS`.
    if let Some(c) = (msg.strip_prefix("unknown column "))
        .and_then(|r| r.strip_suffix(" in foreign key definition"))
    {
        return ServerError::new(
            1072,
            "42000",
            format!("Key column '{}' doesn't exist in table", unquoted(c)),
        );
    }
    // The schema was dropped by another session after this one chose it.
    if let Some(s) = msg.strip_prefix("unknown database ") {
        return ServerError::new(1049, "42000", format!("Unknown database '{}'", unquoted(s)));
    }
    if msg == "all VALUES must have the same number of terms" {
        return ServerError::new(1136, "21S01", "Column count doesn't match value count");
    }
    if let Some(c) = msg.strip_prefix("duplicate column name: ") {
        return ServerError::new(1060, "42S21", format!("Duplicate column name '{c}'"));
    }
    // An INSERT's column list naming a column the table lacks.
    if let Some((_, c)) =
        (msg.strip_prefix("table ")).and_then(|r| r.split_once(" has no column named "))
    {
        return ServerError::new(
            1054,
            "42S22",
            format!("Unknown column '{c}' in 'field list'"),
        );
    }
    if let Some(c) = msg.strip_prefix("no such column: ") {
        return ServerError::new(
            1054,
            "42S22",
            format!("Unknown column '{}' in 'field list'", unquoted(c)),
        );
    }
    if let Some(i) = msg.strip_prefix("no such index: ") {
        return ServerError::new(
            1091,
            "42000",
            format!(
                "Can't DROP '{}'; check that column/key exists",
                index_name(i)
            ),
        );
    }
    if let Some(i) = (msg.strip_prefix("index ")).and_then(|r| r.strip_suffix(" already exists")) {
        return ServerError::new(
            1061,
            "42000",
            format!("Duplicate key name '{}'", index_name(i)),
        );
    }
    if let Some(f) = msg.strip_prefix("no such function: ") {
        // MySQL names an unknown function with the current schema (`sp_find_routine`), and
        // with none when none is selected (`Create_qfunc::create`, `sql/item_create.cc`).
        let f = f.split('(').next().unwrap_or(f);
        let name = match schema {
            Some(_) => qualified(f),
            None => f.to_string(),
        };
        return ServerError::new(1305, "42000", format!("FUNCTION {name} does not exist"));
    }
    // The functions' own errors (`functions/`), in MySQL's words: their codes.
    if msg.starts_with("Too-big precision ") {
        return ServerError::new(1426, "42000", msg);
    }
    if msg.starts_with("DOUBLE value is out of range") {
        return ServerError::new(1690, "22003", msg);
    }
    if msg.starts_with("Invalid JSON text in argument ") {
        return ServerError::new(3141, "22032", msg);
    }
    if msg.starts_with("Invalid JSON path expression") {
        return ServerError::new(3143, "42000", msg);
    }
    if msg.starts_with("In this situation, path expressions may not contain") {
        return ServerError::new(3149, "42000", msg);
    }
    // MySQL's JSON errors (`share/messages_to_clients.txt`): a JSON column's value
    // (`rewrite/json.rs`) and the JSON functions' (`functions/json_more.rs`).
    const JSON_ERRORS: [(&str, u16, &str); 6] = [
        ("Invalid JSON text: ", 3140, "22032"),
        ("The path expression '$' is not allowed", 3153, "42000"),
        ("The oneOrAll argument to ", 3154, "42000"),
        ("The JSON document exceeds the maximum depth", 3157, "22032"),
        (
            "JSON documents may not contain NULL member names",
            3158,
            "22032",
        ),
        ("A path expression is not a path to a cell", 3165, "42000"),
    ];
    if let Some((_, code, state)) = JSON_ERRORS.iter().find(|(p, ..)| msg.starts_with(p)) {
        return ServerError::new(*code, state, msg);
    }
    if msg == "Incorrect arguments to ESCAPE" {
        return ServerError::new(1210, "HY000", msg);
    }
    if msg.starts_with("Illegal argument to a regular expression")
        || msg.starts_with("Invalid match mode flag")
    {
        return ServerError::new(3685, "HY000", msg);
    }
    // `USING (a)` of a column one side lacks.
    if let Some(c) = (msg.strip_prefix("cannot join using column "))
        .and_then(|r| r.strip_suffix(" - column not present in both tables"))
    {
        return ServerError::new(
            1054,
            "42S22",
            format!("Unknown column '{c}' in 'from clause'"),
        );
    }
    // Text SQLite cannot read is text MySQL's grammar refuses too (`@@x` as a type, a string
    // as a column's name), which sqlparser let through.
    if msg.contains("syntax error")
        || msg.starts_with("near ")
        || msg.starts_with("unrecognized token")
    {
        return ServerError::new(
            1064,
            "42000",
            format!("You have an error in your SQL syntax (the engine says: {msg})"),
        );
    }
    ServerError::new(
        ServerError::UNKNOWN,
        "HY000",
        format!("Engine error: {msg}"),
    )
}

impl From<SqlError> for ServerError {
    fn from(e: SqlError) -> ServerError {
        ServerError {
            code: e.code(),
            sqlstate: e.sqlstate(),
            message: e.message().to_string(),
        }
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code, self.sqlstate, self.message
        )
    }
}

impl std::error::Error for ServerError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: i32, msg: &str) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some(msg.to_string()))
    }

    #[test]
    fn an_interrupt_inside_a_rename_is_a_kill() {
        let e = failure(
            rusqlite::ffi::SQLITE_ERROR,
            "error in table t0: interrupted",
        );
        assert_eq!(
            ServerError::from_engine(&e, None).code,
            ServerError::QUERY_INTERRUPTED
        );
        let e = failure(rusqlite::ffi::SQLITE_INTERRUPT, "interrupted");
        assert_eq!(
            ServerError::from_engine(&e, None).code,
            ServerError::QUERY_INTERRUPTED
        );
        // A table that happens to be named `interrupted` is not a kill.
        let e = failure(rusqlite::ffi::SQLITE_ERROR, "no such table: interrupted");
        assert_eq!(ServerError::from_engine(&e, None).code, 1146);
    }
}

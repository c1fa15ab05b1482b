//! The `SHOW` statements answered as queries over tables this server has, as MySQL 8.0 answers
//! most of them (`sql/dd/info_schema/show.cc`, `build_show_*_query`: the `SHOW` becomes a
//! `SELECT` of an `information_schema` view's columns under the `SHOW` column names, filtered by
//! the schema and by the statement's `LIKE` or `WHERE`, ordered by name). The text becomes that
//! `SELECT` before it is parsed, so it takes the locks and runs over the snapshot of any
//! `information_schema` or `performance_schema` query (`info_schema.rs`, `pfs_views.rs`); the
//! process list still shows the `SHOW`. `sqlparser` reads none of these statements as MySQL
//! means them (most become `SHOW <words>`), hence the text: its tokenizer splits it, so quotes
//! and comments are read as SQL.
//!
//! The forms (`[LIKE 'pattern' | WHERE expr]` where the form's row says so; `FROM db`, or
//! `IN db`, where it says so, else the current schema, 1046 without one, or every schema; an
//! unknown schema is 1049):
//!
//! * `SHOW TABLE STATUS [FROM db]`: `information_schema.TABLES`.
//! * `SHOW OPEN TABLES [FROM db]`: MySQL lists the tables of its table cache with `In_use`, "the
//!   number of table locks or lock requests there are for the table" (its manual;
//!   `list_open_tables()` in `sql/sql_base.cc` counts the table's instances in use by
//!   statements) and `Name_locked`, always 0 in 8.0. This server has no table cache, and its
//!   table locks are metadata locks: a table is listed while it has one, granted or pending,
//!   and `In_use` counts them (`performance_schema.metadata_locks`' rows for the table). So
//!   `SHOW OPEN TABLES WHERE In_use > 0`, a DBA's first look at a pile-up, names the tables
//!   involved. Differs: a table without metadata locks is not listed (MySQL lists it with
//!   `In_use` 0 while it stays cached), and with the `metadata_locks` instrument off (or `pfs`
//!   compiled out) nothing is. Without a schema, every schema's tables.
//! * `SHOW [STORAGE] ENGINES`, `SHOW PLUGINS`, `SHOW {CHARACTER SET | CHARSET}`, `SHOW
//!   COLLATION`: the `ENGINES`, `PLUGINS`, `CHARACTER_SETS` and `COLLATIONS` tables
//!   (`info_schema/fixed.rs`; `SHOW PLUGINS` shows the columns with an old name in
//!   `plugin_fields_info`, `sql/sql_show.cc`).
//! * `SHOW TRIGGERS [FROM db]`, `SHOW EVENTS [FROM db]`, `SHOW {FUNCTION | PROCEDURE} STATUS`:
//!   their tables, empty (the server makes none), with MySQL's columns.
//! * `SHOW {MASTER | BINARY LOG} STATUS`: no rows, as MySQL with the binary log off; `SHOW
//!   {BINARY | MASTER} LOGS`: 1381, as MySQL says then.
//! * `SHOW {REPLICA | SLAVE} STATUS [FOR CHANNEL 'name']`, `SHOW {REPLICAS | SLAVE HOSTS}`: no
//!   rows, as MySQL that is no replica and has none (`replication.rs`).
//! * `SHOW ENGINE name {STATUS | MUTEX}`: no rows for this server's engines, 1286 for another
//!   (`SHOW ENGINE INNODB STATUS`: there is no InnoDB here).
//! * `SHOW CREATE {DATABASE | SCHEMA} [IF NOT EXISTS] db`: MySQL's text, with the server's
//!   character set and collation.
//! * `SHOW [FULL] TABLES`, `SHOW [FULL] COLUMNS FROM t`, `SHOW INDEX FROM t` with `FULL`,
//!   `LIKE` or `WHERE`: `information_schema.TABLES`, `COLUMNS`, `STATISTICS`
//!   (`table_forms.rs`).
//! * `SHOW [GLOBAL | SESSION] {STATUS | VARIABLES} WHERE expr`: `performance_schema`'s
//!   `global_status`, `session_variables`, ..., as MySQL 8.0 answers it (without `WHERE` the
//!   statement is answered directly, `admin.rs`).
//! * `SHOW GRANTS [FOR user]`: `GRANT ALL PRIVILEGES ON *.* ... WITH GRANT OPTION`, the truth
//!   for every account: the server checks no privileges (it accepts any login).

use sqlparser::dialect::MySqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::catalog::{CHARSET, COLLATION};
use crate::error::ServerError;

mod replication;
mod table_forms;

/// What a `SHOW` is rewritten in view of.
pub struct ShowEnv<'a> {
    /// The session's schema.
    pub current: Option<&'a str>,
    /// The session's login.
    pub user: &'a str,
    /// Whether the server has a schema (its name lowercase, as this server folds names).
    pub has_schema: &'a dyn Fn(&str) -> bool,
    /// Whether a schema (lowercase) has a table (any case), or the session a temporary one.
    pub has_table: &'a dyn Fn(&str, &str) -> bool,
    /// For the session's temporary table `schema.table`: the rows `information_schema`'s
    /// table `COLUMNS` or `STATISTICS` (the third argument) would have for it, as a `SELECT`
    /// (`info_schema/temporary.rs`); `None` for any other table.
    pub temporary: &'a dyn Fn(&str, &str, &str) -> Option<String>,
}

/// Where a form's schema comes from when the statement names none.
#[derive(Clone, Copy, PartialEq)]
enum Unnamed {
    /// The form takes no `FROM db`.
    NotTaken,
    /// The current schema (1046 without one).
    Current,
    /// Every schema.
    All,
}

/// A `SHOW` answered by a query over a table.
struct Form {
    /// Its words after `SHOW`, upper case.
    words: &'static [&'static str],
    /// The query, `{schema}` standing for the schema's condition (`1` for every schema).
    query: &'static str,
    /// The column that holds the schema, compared with the named one.
    schema_column: &'static str,
    schema: Unnamed,
    /// The column `LIKE` matches (`None`: the form takes neither `LIKE` nor `WHERE`).
    like: Option<&'static str>,
    order: &'static str,
}

/// A form that takes no schema.
const fn form(
    words: &'static [&'static str],
    query: &'static str,
    like: Option<&'static str>,
    order: &'static str,
) -> Form {
    Form {
        words,
        query,
        schema_column: "",
        schema: Unnamed::NotTaken,
        like,
        order,
    }
}

/// `f`, taking `FROM db` (compared with `column`), else `schema`.
const fn in_schema(f: Form, column: &'static str, schema: Unnamed) -> Form {
    Form {
        schema_column: column,
        schema,
        ..f
    }
}

/// `SHOW {FUNCTION | PROCEDURE} STATUS`'s query for routines of type `$type`.
macro_rules! routines {
    ($type:literal) => {
        concat!(
            "SELECT ROUTINE_SCHEMA AS `Db`, ROUTINE_NAME AS `Name`, ROUTINE_TYPE AS `Type`, \
             DEFINER AS `Definer`, LAST_ALTERED AS `Modified`, CREATED AS `Created`, \
             SECURITY_TYPE AS `Security_type`, ROUTINE_COMMENT AS `Comment`, \
             CHARACTER_SET_CLIENT AS `character_set_client`, COLLATION_CONNECTION AS \
             `collation_connection`, DATABASE_COLLATION AS `Database Collation` \
             FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = '",
            $type,
            "'"
        )
    };
}

const TABLE_STATUS: &str = "SELECT TABLE_NAME AS `Name`, ENGINE AS `Engine`, VERSION AS \
     `Version`, ROW_FORMAT AS `Row_format`, TABLE_ROWS AS `Rows`, AVG_ROW_LENGTH AS \
     `Avg_row_length`, DATA_LENGTH AS `Data_length`, MAX_DATA_LENGTH AS `Max_data_length`, \
     INDEX_LENGTH AS `Index_length`, DATA_FREE AS `Data_free`, AUTO_INCREMENT AS \
     `Auto_increment`, CREATE_TIME AS `Create_time`, UPDATE_TIME AS `Update_time`, CHECK_TIME AS \
     `Check_time`, TABLE_COLLATION AS `Collation`, CHECKSUM AS `Checksum`, CREATE_OPTIONS AS \
     `Create_options`, TABLE_COMMENT AS `Comment` FROM information_schema.TABLES WHERE {schema}";
const OPEN_TABLES: &str = "SELECT OBJECT_SCHEMA AS `Database`, OBJECT_NAME AS `Table`, \
     COUNT(*) AS `In_use`, 0 AS `Name_locked` FROM performance_schema.metadata_locks \
     WHERE OBJECT_TYPE = 'TABLE' AND {schema} GROUP BY OBJECT_SCHEMA, OBJECT_NAME";
const ENGINES: &str = "SELECT ENGINE AS `Engine`, SUPPORT AS `Support`, COMMENT AS `Comment`, \
     TRANSACTIONS AS `Transactions`, XA AS `XA`, SAVEPOINTS AS `Savepoints` \
     FROM information_schema.ENGINES";
const PLUGINS: &str = "SELECT PLUGIN_NAME AS `Name`, PLUGIN_STATUS AS `Status`, PLUGIN_TYPE AS \
     `Type`, PLUGIN_LIBRARY AS `Library`, PLUGIN_LICENSE AS `License` \
     FROM information_schema.PLUGINS";
const CHARSETS: &str = "SELECT CHARACTER_SET_NAME AS `Charset`, DESCRIPTION AS \
     `Description`, DEFAULT_COLLATE_NAME AS `Default collation`, MAXLEN AS `Maxlen` \
     FROM information_schema.CHARACTER_SETS";
const COLLATIONS: &str = "SELECT COLLATION_NAME AS `Collation`, CHARACTER_SET_NAME AS \
     `Charset`, ID AS `Id`, IS_DEFAULT AS `Default`, IS_COMPILED AS `Compiled`, SORTLEN AS \
     `Sortlen`, PAD_ATTRIBUTE AS `Pad_attribute` FROM information_schema.COLLATIONS";
const TRIGGERS: &str = "SELECT TRIGGER_NAME AS `Trigger`, EVENT_MANIPULATION AS `Event`, \
     EVENT_OBJECT_TABLE AS `Table`, ACTION_STATEMENT AS `Statement`, ACTION_TIMING AS `Timing`, \
     CREATED AS `Created`, SQL_MODE AS `sql_mode`, DEFINER AS `Definer`, CHARACTER_SET_CLIENT \
     AS `character_set_client`, COLLATION_CONNECTION AS `collation_connection`, \
     DATABASE_COLLATION AS `Database Collation` FROM information_schema.TRIGGERS WHERE {schema}";
const EVENTS: &str = "SELECT EVENT_SCHEMA AS `Db`, EVENT_NAME AS `Name`, DEFINER AS `Definer`, \
     TIME_ZONE AS `Time zone`, EVENT_TYPE AS `Type`, EXECUTE_AT AS `Execute at`, INTERVAL_VALUE \
     AS `Interval value`, INTERVAL_FIELD AS `Interval field`, STARTS AS `Starts`, ENDS AS \
     `Ends`, STATUS AS `Status`, ORIGINATOR AS `Originator`, CHARACTER_SET_CLIENT AS \
     `character_set_client`, COLLATION_CONNECTION AS `collation_connection`, DATABASE_COLLATION \
     AS `Database Collation` FROM information_schema.EVENTS WHERE {schema}";
/// No rows, under the columns of `SHOW MASTER STATUS`.
const NO_BINARY_LOG: &str = "SELECT NULL AS `File`, NULL AS `Position`, NULL AS \
     `Binlog_Do_DB`, NULL AS `Binlog_Ignore_DB`, NULL AS `Executed_Gtid_Set` WHERE 0";

const FORMS: [Form; 14] = [
    in_schema(
        form(&["TABLE", "STATUS"], TABLE_STATUS, Some("Name"), "`Name`"),
        "TABLE_SCHEMA",
        Unnamed::Current,
    ),
    in_schema(
        form(
            &["OPEN", "TABLES"],
            OPEN_TABLES,
            Some("Table"),
            "`Database`, `Table`",
        ),
        "OBJECT_SCHEMA",
        Unnamed::All,
    ),
    form(&["ENGINES"], ENGINES, None, ""),
    form(&["STORAGE", "ENGINES"], ENGINES, None, ""),
    form(&["PLUGINS"], PLUGINS, None, ""),
    form(
        &["CHARACTER", "SET"],
        CHARSETS,
        Some("Charset"),
        "`Charset`",
    ),
    form(&["CHARSET"], CHARSETS, Some("Charset"), "`Charset`"),
    form(&["COLLATION"], COLLATIONS, Some("Collation"), "`Collation`"),
    in_schema(
        form(&["TRIGGERS"], TRIGGERS, Some("Table"), "`Table`, `Trigger`"),
        "EVENT_OBJECT_SCHEMA",
        Unnamed::Current,
    ),
    in_schema(
        form(&["EVENTS"], EVENTS, Some("Name"), "`Db`, `Name`"),
        "EVENT_SCHEMA",
        Unnamed::Current,
    ),
    form(
        &["FUNCTION", "STATUS"],
        routines!("FUNCTION"),
        Some("Name"),
        "`Db`, `Name`",
    ),
    form(
        &["PROCEDURE", "STATUS"],
        routines!("PROCEDURE"),
        Some("Name"),
        "`Db`, `Name`",
    ),
    form(&["MASTER", "STATUS"], NO_BINARY_LOG, None, ""),
    form(&["BINARY", "LOG", "STATUS"], NO_BINARY_LOG, None, ""),
];

/// The engines this server has (`information_schema.ENGINES`), upper case.
const ENGINE_NAMES: [&str; 2] = ["SQLITE", "PERFORMANCE_SCHEMA"];

/// The `SELECT` that answers `text` if it is one of the module docs' `SHOW`s (`None`
/// otherwise, at the cost of a look at its first word).
pub fn rewrite(text: &str, env: &ShowEnv<'_>) -> Option<Result<String, ServerError>> {
    let head = text.trim_start().get(..4)?;
    if !head.eq_ignore_ascii_case("SHOW") {
        return None;
    }
    let tokens = Tokenizer::new(&MySqlDialect {}, text).tokenize().ok()?;
    let tokens: Vec<&Token> = (tokens.iter())
        .filter(|t| !matches!(t, Token::Whitespace(_) | Token::SemiColon))
        .skip(1) // SHOW
        .collect();
    let word = |i: usize| match tokens.get(i) {
        Some(Token::Word(w)) if w.quote_style.is_none() => w.value.to_ascii_uppercase(),
        _ => String::new(),
    };
    let (w0, w1) = (word(0), word(1));
    match (w0.as_str(), w1.as_str()) {
        ("BINARY" | "MASTER", "LOGS") => {
            return Some(Err(ServerError::new(
                1381,
                "HY000",
                "You are not using binary logging",
            )))
        }
        ("ENGINE", _) => return Some(engine_status(&tokens[1..])),
        ("CREATE", "DATABASE" | "SCHEMA") => return Some(create_database(&tokens[2..], env)),
        ("GRANTS", _) => return Some(grants(&tokens[1..], env)),
        _ => {}
    }
    if let Some(r) = table_forms::rewrite(&tokens, env) {
        return Some(r);
    }
    if let Some(r) = replication::rewrite(&tokens, &word) {
        return Some(r);
    }
    if let Some(q) = status_or_variables_where(&tokens, &word) {
        return Some(Ok(q));
    }
    let form = (FORMS.iter()).find(|f| (f.words.iter().enumerate()).all(|(i, w)| word(i) == *w))?;
    Some(form_query(form, &tokens[form.words.len()..], env))
}

/// `SHOW [GLOBAL | SESSION] {STATUS | VARIABLES} WHERE expr`: the rows of the
/// `performance_schema` table MySQL 8.0 answers the statement from (`global_status`,
/// `session_variables`, ...: `pfs_views/variables.rs`, the same rows as without `WHERE`),
/// under the `SHOW`'s columns, filtered by `expr`. Without `WHERE` (or with `LIKE`), the
/// statement is answered without a query (`admin::show`).
fn status_or_variables_where(tokens: &[&Token], word: &dyn Fn(usize) -> String) -> Option<String> {
    let (scope, at) = match word(0).as_str() {
        "GLOBAL" => ("global", 1),
        "SESSION" | "LOCAL" => ("session", 1),
        _ => ("session", 0),
    };
    let what = match word(at).as_str() {
        "STATUS" => "status",
        "VARIABLES" => "variables",
        _ => return None,
    };
    if word(at + 1) != "WHERE" {
        return None;
    }
    Some(format!(
        "SELECT * FROM (SELECT VARIABLE_NAME AS `Variable_name`, VARIABLE_VALUE AS `Value` \
         FROM performance_schema.{scope}_{what}) AS shown WHERE {} ORDER BY `Variable_name`",
        tail(tokens[at + 2..].iter().copied())
    ))
}

/// A form's query: its schema's condition, then the statement's `LIKE` or `WHERE` over the
/// `SHOW`'s columns.
fn form_query(form: &Form, rest: &[&Token], env: &ShowEnv<'_>) -> Result<String, ServerError> {
    let mut rest = rest.iter().copied().peekable();
    let named = match rest.peek() {
        Some(Token::Word(w))
            if form.schema != Unnamed::NotTaken
                && (w.value.eq_ignore_ascii_case("FROM") || w.value.eq_ignore_ascii_case("IN")) =>
        {
            rest.next();
            match rest.next() {
                Some(Token::Word(db)) => Some(db.value.to_ascii_lowercase()),
                other => return Err(near(other)),
            }
        }
        _ => None,
    };
    let schema = match (named, form.schema) {
        (Some(s), _) => Some(s),
        (None, Unnamed::Current) => match env.current {
            Some(c) => Some(c.to_ascii_lowercase()),
            None => return Err(ServerError::new(1046, "3D000", "No database selected")),
        },
        (None, _) => None,
    };
    if let Some(schema) = schema.as_deref().filter(|s| !(env.has_schema)(s)) {
        return Err(ServerError::unknown_database(schema));
    }
    let filter = match (rest.next(), form.like) {
        (None, _) => String::new(),
        (Some(Token::Word(w)), Some(column)) if w.value.eq_ignore_ascii_case("LIKE") => {
            format!(" WHERE `{column}` LIKE {}", tail(rest))
        }
        (Some(Token::Word(w)), Some(_)) if w.value.eq_ignore_ascii_case("WHERE") => {
            format!(" WHERE {}", tail(rest))
        }
        (other, _) => return Err(near(other)),
    };
    let condition = schema.map_or("1".to_string(), |s| {
        format!("{} = {}", form.schema_column, literal(&s))
    });
    let order = match form.order {
        "" => String::new(),
        o => format!(" ORDER BY {o}"),
    };
    Ok(format!(
        "SELECT * FROM ({}) AS shown{filter}{order}",
        form.query.replace("{schema}", &condition)
    ))
}

/// `SHOW ENGINE name {STATUS | MUTEX}` (`rest`: from the name on).
fn engine_status(rest: &[&Token]) -> Result<String, ServerError> {
    let (Some(Token::Word(name)), Some(Token::Word(what)), None) =
        (rest.first(), rest.get(1), rest.get(2))
    else {
        return Err(near(rest.get(1).or(rest.first()).copied()));
    };
    if !["STATUS", "MUTEX"].contains(&what.value.to_ascii_uppercase().as_str()) {
        return Err(near(Some(rest[1])));
    }
    if !ENGINE_NAMES.contains(&name.value.to_ascii_uppercase().as_str()) {
        return Err(ServerError::new(
            1286,
            "42000",
            format!("Unknown storage engine '{}'", name.value),
        ));
    }
    Ok("SELECT NULL AS `Type`, NULL AS `Name`, NULL AS `Status` WHERE 0".into())
}

/// `SHOW CREATE DATABASE [IF NOT EXISTS] db` (`rest`: after `DATABASE`).
fn create_database(rest: &[&Token], env: &ShowEnv<'_>) -> Result<String, ServerError> {
    let is = |i: usize, kw: &str| matches!(rest.get(i), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw));
    let if_not_exists = is(0, "IF") && is(1, "NOT") && is(2, "EXISTS");
    let at = if if_not_exists { 3 } else { 0 };
    let (Some(Token::Word(db)), None) = (rest.get(at), rest.get(at + 1)) else {
        return Err(near(rest.get(at + 1).or(rest.get(at)).copied()));
    };
    let db = db.value.to_ascii_lowercase();
    if !(env.has_schema)(&db) {
        return Err(ServerError::unknown_database(&db));
    }
    let ine = if if_not_exists {
        "/*!32312 IF NOT EXISTS*/ "
    } else {
        ""
    };
    let text = format!(
        "CREATE DATABASE {ine}`{}` /*!40100 DEFAULT CHARACTER SET {CHARSET} COLLATE \
         {COLLATION} */ /*!80016 DEFAULT ENCRYPTION='N' */",
        db.replace('`', "``")
    );
    Ok(format!(
        "SELECT {} AS `Database`, {} AS `Create Database`",
        literal(&db),
        literal(&text)
    ))
}

/// `SHOW GRANTS [FOR user | FOR CURRENT_USER[()]]` (`rest`: after `GRANTS`).
fn grants(rest: &[&Token], env: &ShowEnv<'_>) -> Result<String, ServerError> {
    let user = match rest {
        [] => env.user.to_string(),
        [Token::Word(f), Token::Word(u), ..] if f.value.eq_ignore_ascii_case("FOR") => {
            match u.value.eq_ignore_ascii_case("CURRENT_USER") {
                true => env.user.to_string(),
                false => u.value.clone(),
            }
        }
        [Token::Word(f), Token::SingleQuotedString(u), ..]
            if f.value.eq_ignore_ascii_case("FOR") =>
        {
            u.clone()
        }
        _ => return Err(near(rest.first().copied())),
    };
    let grant = format!(
        "GRANT ALL PRIVILEGES ON *.* TO `{}`@`%` WITH GRANT OPTION",
        user.replace('`', "``")
    );
    Ok(format!(
        "SELECT {} AS `Grants for {}@%`",
        literal(&grant),
        user.replace('`', "``")
    ))
}

/// `s` as an SQL string literal.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The rest of the statement's tokens as text.
fn tail<'a>(rest: impl Iterator<Item = &'a Token>) -> String {
    let words: Vec<String> = rest.map(|t| t.to_string()).collect();
    words.join(" ")
}

/// 1064 near the token the statement went wrong at.
fn near(token: Option<&Token>) -> ServerError {
    ServerError::parse(&token.map_or(String::new(), |t| t.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<Result<String, ServerError>> {
        let env = ShowEnv {
            current: Some("test"),
            user: "dba",
            has_schema: &|s| s == "test" || s == "other",
            has_table: &|s, t| s == "test" && t.eq_ignore_ascii_case("t"),
            temporary: &|_, _, _| None,
        };
        rewrite(text, &env)
    }

    fn query(text: &str) -> String {
        run(text).expect("a SHOW of the module").expect("no error")
    }

    fn code(text: &str) -> u16 {
        run(text).expect("a SHOW of the module").unwrap_err().code
    }

    #[test]
    fn other_statements_are_left_alone() {
        for text in [
            "SELECT 1",
            "SHOW TABLES",
            "SHOW STATUS",
            "sh",
            "SHOW OPEN",
            "SHOW COLUMNS FROM t",
            "SHOW INDEX FROM t",
        ] {
            assert!(run(text).is_none(), "{text}");
        }
    }

    #[test]
    fn table_forms_filter_information_schema() {
        let q = query("SHOW FULL TABLES WHERE Table_type = 'VIEW'");
        assert!(q.starts_with("SELECT `Tables_in_test` AS `Tables_in_test`, `Table_type` FROM"));
        assert!(q.contains("WHERE TABLE_SCHEMA = 'test') AS shown WHERE Table_type = 'VIEW'"));
        let q = query("SHOW TABLES FROM other LIKE 'a%'");
        assert!(q.starts_with("SELECT `Tables_in_other` AS `Tables_in_other (a%)` FROM"));
        let q = query("SHOW FULL FIELDS IN test.t");
        assert!(q.contains("`Collation`, `Null`"), "{q}");
        assert!(q.ends_with("lower(TABLE_NAME) = lower('t')) AS shown ORDER BY pos"));
        let q = query("SHOW KEYS FROM T FROM test WHERE Key_name = 'PRIMARY'");
        assert!(q.contains("INDEX_NAME AS `Key_name`"), "{q}");
        assert!(
            q.contains("AS shown WHERE Key_name = 'PRIMARY' ORDER BY pos"),
            "{q}"
        );
        assert_eq!(code("SHOW INDEX FROM nope WHERE 1"), 1146);
        assert_eq!(code("SHOW COLUMNS FROM t FROM gone LIKE 'x'"), 1049);
        assert_eq!(code("SHOW INDEX FROM t LIKE 'x'"), 1064);
        assert_eq!(code("SHOW TABLES WHERE"), 1064);
    }

    #[test]
    fn table_status_is_a_query_over_tables() {
        let q = query("show table status");
        assert!(q.starts_with("SELECT * FROM (SELECT TABLE_NAME AS `Name`, ENGINE AS `Engine`"));
        assert!(
            q.ends_with("WHERE TABLE_SCHEMA = 'test') AS shown ORDER BY `Name`"),
            "{q}"
        );
        let q = query("SHOW TABLE STATUS FROM `Other` LIKE 'sb%';");
        assert!(
            q.ends_with("TABLE_SCHEMA = 'other') AS shown WHERE `Name` LIKE 'sb%' ORDER BY `Name`"),
            "{q}"
        );
        let q = query("SHOW TABLE STATUS IN test WHERE Rows > 0");
        assert!(q.contains("AS shown WHERE Rows > 0 ORDER BY"), "{q}");
    }

    #[test]
    fn open_tables_count_the_metadata_locks() {
        let q = query("SHOW OPEN TABLES");
        assert!(q.contains("COUNT(*) AS `In_use`"), "{q}");
        assert!(
            q.contains("OBJECT_TYPE = 'TABLE' AND 1 GROUP BY"),
            "every schema: {q}"
        );
        let q = query("show open tables in Test where In_use > 1");
        assert!(q.contains("AND OBJECT_SCHEMA = 'test' GROUP BY"), "{q}");
        assert!(q.ends_with("AS shown WHERE In_use > 1 ORDER BY `Database`, `Table`"));
        assert!(query("SHOW OPEN TABLES LIKE 'sb%'").contains("WHERE `Table` LIKE 'sb%'"));
    }

    #[test]
    fn catalog_forms_read_their_tables() {
        for (text, table) in [
            ("SHOW ENGINES", "ENGINES"),
            ("SHOW STORAGE ENGINES", "ENGINES"),
            ("SHOW PLUGINS", "PLUGINS"),
            ("SHOW CHARACTER SET LIKE 'utf8%'", "CHARACTER_SETS"),
            ("SHOW CHARSET", "CHARACTER_SETS"),
            ("SHOW COLLATION WHERE Charset = 'utf8mb4'", "COLLATIONS"),
            ("SHOW TRIGGERS FROM other LIKE 't%'", "TRIGGERS"),
            ("SHOW EVENTS", "EVENTS"),
            ("SHOW FUNCTION STATUS", "ROUTINES"),
            ("SHOW PROCEDURE STATUS WHERE Db = 'x'", "ROUTINES"),
        ] {
            assert!(
                query(text).contains(&format!("FROM information_schema.{table}")),
                "{text}"
            );
        }
        assert!(query("SHOW TRIGGERS FROM other LIKE 't%'")
            .contains("EVENT_OBJECT_SCHEMA = 'other') AS shown WHERE `Table` LIKE 't%'"));
        assert!(query("SHOW PROCEDURE STATUS").contains("ROUTINE_TYPE = 'PROCEDURE'"));
        assert!(query("SHOW MASTER STATUS").ends_with("WHERE 0) AS shown"));
        assert!(query("SHOW BINARY LOG STATUS").contains("`Executed_Gtid_Set`"));
        assert!(query("SHOW ENGINE performance_schema STATUS").contains("`Status` WHERE 0"));
    }

    #[test]
    fn create_database_and_grants_are_mysql_texts() {
        let q = query("SHOW CREATE DATABASE Test");
        assert!(q.starts_with("SELECT 'test' AS `Database`, 'CREATE DATABASE `test` /*!40100"));
        assert!(
            q.contains("DEFAULT ENCRYPTION=''N'' */' AS `Create Database`"),
            "{q}"
        );
        let q = query("SHOW CREATE SCHEMA IF NOT EXISTS test");
        assert!(
            q.contains("'CREATE DATABASE /*!32312 IF NOT EXISTS*/ `test`"),
            "{q}"
        );
        assert_eq!(
            query("SHOW GRANTS"),
            "SELECT 'GRANT ALL PRIVILEGES ON *.* TO `dba`@`%` WITH GRANT OPTION' \
             AS `Grants for dba@%`"
        );
        assert!(query("SHOW GRANTS FOR CURRENT_USER()").contains("TO `dba`@`%`"));
        assert!(query("SHOW GRANTS FOR 'app'@'localhost'").contains("TO `app`@`%`"));
    }

    #[test]
    fn mistakes_get_mysql_errors() {
        assert_eq!(code("SHOW TABLE STATUS FROM nosuch"), 1049);
        assert_eq!(code("SHOW OPEN TABLES FROM nosuch"), 1049);
        assert_eq!(code("SHOW CREATE DATABASE nosuch"), 1049);
        assert_eq!(code("SHOW TABLE STATUS FROM"), 1064);
        assert_eq!(code("SHOW TABLE STATUS LIMIT 1"), 1064);
        assert_eq!(code("SHOW ENGINES LIKE 'x'"), 1064);
        assert_eq!(code("SHOW PLUGINS WHERE 1"), 1064);
        assert_eq!(code("SHOW MASTER STATUS FROM test"), 1064);
        assert_eq!(code("SHOW ENGINE INNODB STATUS"), 1286);
        assert_eq!(code("SHOW ENGINE sqlite STATS"), 1064);
        assert_eq!(code("SHOW BINARY LOGS"), 1381);
        assert_eq!(code("SHOW MASTER LOGS"), 1381);
        let env = ShowEnv {
            current: None,
            user: "dba",
            has_schema: &|_| true,
            has_table: &|_, _| true,
            temporary: &|_, _, _| None,
        };
        let none = rewrite("SHOW TABLE STATUS", &env);
        assert_eq!(none.unwrap().unwrap_err().code, 1046);
        assert_eq!(
            rewrite("SHOW TRIGGERS", &env).unwrap().unwrap_err().code,
            1046
        );
    }
}

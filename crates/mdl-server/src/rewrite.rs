//! MySQL's dialect to SQLite's, on `sqlparser`'s AST (parsed once by `mdl-sql`).
//!
//! * Every table name is qualified with its schema (`t` -> `` `test`.t ``): each schema is
//!   an attached SQLite database of the same name, so SQLite resolves them as MySQL does.
//!   Names of the statement's common table expressions are left alone; a name of one of the
//!   session's temporary tables is its table in SQLite's `temp` (`temporary.rs`).
//! * Values SQLite reads otherwise: MySQL's `"text"` strings become `'text'`; `@@variables`,
//!   `@user` variables, `DATABASE()`, `VERSION()`, the session's values (`CONNECTION_ID()`,
//!   `USER()`, `CURRENT_USER()`, `LAST_INSERT_ID()`, `ROW_COUNT()`, `FOUND_ROWS()`:
//!   `session_values.rs`) and the user-level lock functions (whose values `mdl-sql` computed
//!   with the locks) become literals (`literals.rs`), and an unnamed select item that held one
//!   keeps MySQL's column name as an alias.
//! * A string holding a NUL byte (`'a\0b'`) is `(CAST(X'610062' AS TEXT))`: SQLite's tokenizer
//!   ends a literal at the NUL (`literals.rs`).
//! * `SET @a = x, @b = y` is `SELECT x, y`, whose row the server keeps as the variables, and
//!   so is a `SELECT ... INTO @a, @b` without its `INTO` (`user_vars.rs`).
//! * Locking reads: SQLite has no row locks, and one writer. `SELECT ... FOR UPDATE` / `FOR
//!   SHARE` / `LOCK IN SHARE MODE` keep their metadata locks (SW / SR, `mdl-sql`) and run as a
//!   plain SELECT after the statement took the engine's writer (`engine.rs`), held to the end of
//!   the transaction: a locking read orders against writes as InnoDB's row locks do, coarser (the
//!   whole engine, and two FOR SHARE readers wait for each other). `NOWAIT` fails with 3572 when
//!   the writer is taken; `SKIP LOCKED` is refused (1235): with one lock for every row, it
//!   would skip every row or none.
//! * `CREATE TABLE`: column types and options SQLite keeps; an `AUTO_INCREMENT` primary key
//!   is SQLite's `INTEGER PRIMARY KEY AUTOINCREMENT`, whose counter starts at the `AUTO_INCREMENT
//!   = N` option; other table options (`ENGINE=`, charsets, comments: `/*! */` comments were
//!   already resolved by `mdl-sql`) go; foreign keys are kept as SQLite's, named as MySQL
//!   names them (`foreign_keys.rs`); inline `KEY`/`INDEX` definitions become `CREATE INDEX`
//!   statements.
//! * A `DECIMAL` column made a string (`CONCAT(d)`, `d LIKE ...`) keeps its scale, `0.10`
//!   (`decimal_strings.rs`); `ROUND` of a double rounds the double (`double_round.rs`): both
//!   pass an expression's MySQL type to the engine (`runtime_type.rs`).
//! * An unnamed select item gets MySQL's column name as an alias (`header.rs`): its text as the
//!   client wrote it (`v+1`), a column by its spelling, a string by its value.
//! * Index names are per table in MySQL and per schema in SQLite: index `k` of table `t` is
//!   SQLite's `t__k`.
//! * `LIKE` without `ESCAPE` escapes with `\`, as MySQL's does (SQLite's has no escape).
//! * Index hints (`USE`, `FORCE`, `IGNORE INDEX`) go, and `STRAIGHT_JOIN` is `JOIN`: they
//!   choose a plan, not the rows. `LIMIT 18446744073709551615` (all rows) is SQLite's `-1`.
//! * Expression syntax SQLite spells otherwise (`expr.rs`, which says what differs from MySQL):
//!   `INTERVAL` arithmetic (`x + INTERVAL n UNIT`, `DATE_ADD`, `ADDDATE`, `DATE_SUB`,
//!   `SUBDATE`) calls this server's `DATE_ADD(x, n, 'UNIT')` / `DATE_SUB`; the units of
//!   `TIMESTAMPDIFF`, `TIMESTAMPADD` and `EXTRACT(UNIT FROM x)` become strings; `/` divides
//!   as reals, `DIV` is a truncating cast of SQLite's `/`, `%` is `MOD()`, `XOR` and `^` are
//!   spelt with SQLite's operators; `GROUP_CONCAT`'s `SEPARATOR` is SQLite's second argument
//!   (`DISTINCT` with one goes through an escaped text); `CAST` / `CONVERT` to MySQL's types
//!   are SQLite's (`SIGNED` is `INTEGER`, `CHAR(n)` a `substr`, `DATE` `DATE(x)`, ...), and so
//!   are the literals `DATE '...'`, `TIME '...'`, `TIMESTAMP '...'`; `CONVERT(x USING cs)` is
//!   `x`; `COLLATE` names SQLite's collation of the same meaning; `TRIM(remstr FROM s)` calls
//!   this server's `MYSQL_TRIM`, `SUBSTRING(s FROM p FOR n)` is `SUBSTRING(s, p, n)`.
//! * `GROUP BY ... WITH ROLLUP` is the `UNION ALL` of its grouping levels (`rollup.rs`):
//!   SQLite has no `ROLLUP`.
//! * MySQL's select modifiers go (`SQL_NO_CACHE`, which dump tools send, `SQL_CACHE`'s
//!   removed kin, `HIGH_PRIORITY`, `STRAIGHT_JOIN`, `SQL_BUFFER_RESULT`, `SQL_SMALL_RESULT`,
//!   `SQL_BIG_RESULT`, `SQL_CALC_FOUND_ROWS`): they ask for nothing SQLite does. What a query
//!   counts for `FOUND_ROWS()` is planned apart (`found_rows.rs`).
//! * A single-table `UPDATE` or `DELETE` with `ORDER BY` / `LIMIT` chooses its rows by rowid in
//!   a subquery (`limited.rs`): SQLite's own form is not in the bundled build.
//! * A multi-table `DELETE` deletes by rowid the target's rows its join keeps, a multi-table
//!   `UPDATE` is SQLite's `UPDATE ... FROM` (`multi_table.rs`).
//! * `FROM DUAL` is no FROM clause; MySQL's INSERT forms (`SET`, `IGNORE`, `ON DUPLICATE KEY
//!   UPDATE`) are SQLite's (`insert.rs`).
//! * Statements SQLite spells otherwise: `TRUNCATE [TABLE] t` is a `DELETE FROM t`, `RENAME
//!   TABLE a TO b, ...` one `ALTER TABLE a RENAME TO b` per pair (within a schema), and a `DROP
//!   TABLE` of several tables one `DROP TABLE` each (run in one savepoint after a check that
//!   every table exists, so all or none go, as in MySQL 8.0: `execute/engine_step.rs`).

mod changed;
mod ddl;
mod decimal_strings;
mod double_round;
mod expr;
mod found_rows;
mod header;
mod insert;
mod json;
mod limited;
mod literals;
mod mentions;
mod modifiers;
mod multi_table;
mod rollup;
mod runtime_type;
mod temporary;
mod user_vars;

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Ident, NonBlock, ObjectName, ObjectNamePart, Query, Statement, TableFactor, Value,
    ValueWithSpan, VisitMut, VisitorMut,
};

use crate::error::ServerError;
use crate::session_values::SessionValues;
use crate::wire::Cell;

pub use ddl::{needs_rebuild, ENUM_CHECK, LENGTH_CHECK, RANGE_CHECK};
pub(crate) use insert::of_query as inserts_query_rows;
pub use json::has_other_checks;
pub(crate) use literals::cell_expr;
use user_vars::{select_into_variables, user_var_assignments};

/// What a rewrite needs from the session.
pub struct Env<'a> {
    /// The current schema.
    pub schema: Option<&'a str>,
    /// The session's values (`CONNECTION_ID()`, `@user` variables, ...).
    pub values: &'a SessionValues,
    /// The values of the statement's user-level lock calls, in order.
    pub user_locks: &'a [Option<i64>],
    /// A system variable's value (`@@name`, lowercased, without `session.`).
    pub variable: &'a dyn Fn(&str) -> Option<Cell>,
    /// The statement as parsed, whose text names the result columns (`header.rs`).
    pub source: Option<&'a mdl_sql::Parsed>,
    /// The session's temporary tables, which its names mean first (`temporary.rs`).
    pub temporary: &'a std::collections::BTreeSet<mdl_sql::TableName>,
}

/// A statement in SQLite's dialect.
#[derive(Debug, Clone, Default)]
pub struct Rewritten {
    /// The statements to run, in order.
    pub sql: Vec<String>,
    /// `(schema, table)` of every table the statement names, after qualification.
    pub tables: Vec<(String, String)>,
    /// What the statement's `SLEEP(n)` calls add up to: the server sleeps (killable, no
    /// thread blocked) before the engine runs the statement, where `SLEEP` gives 0.
    pub sleep: std::time::Duration,
    /// The rewrite read more of the session than its current schema (a variable,
    /// `CONNECTION_ID()`, a user-level lock's value): another execution of the statement must
    /// rewrite it again. Otherwise the rewrite is a function of the statement and the schema.
    pub read_session: bool,
    /// A locking read (`FOR UPDATE`, `FOR SHARE`): whether it may wait for the engine's writer.
    pub locking_read: Option<LockingRead>,
    /// `SET @a = x, ...` and `SELECT ... INTO @a, ...`: the variables the one row of `sql[0]`
    /// gives values to, in order.
    pub user_vars: Vec<String>,
    /// What a query counts for `FOUND_ROWS()` (`found_rows.rs`).
    pub found_rows: found_rows::FoundRows,
    /// An INSERT of a query's rows: where that query is in `sql[0]`, which
    /// `execute/insert_select.rs` wraps without rewriting the statement again (`insert.rs`).
    pub insert_rows: Option<std::ops::Range<usize>>,
    /// Whether `sql[0]`, a query, can scan or sort, once a prepared statement keeps the
    /// rewrite (`statement_event/plan_scans.rs`); a clone has none.
    pub scans: crate::statement_event::plan_scans::ScanVerdict,
}

/// How a locking read takes the engine's writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockingRead {
    /// Waits, as for a write.
    Wait,
    /// `NOWAIT`: 3572 if the writer is taken.
    NoWait,
}

/// Rewrites `s` (see the module docs).
///
/// # Errors
/// 1193 for an unknown `@@variable`, 1046 for a table name with no schema to qualify it,
/// 1235 for what SQLite cannot do (an `ALTER TABLE` operation neither SQLite nor the
/// rebuild takes, such as `ADD CHECK` or a `RENAME` to another schema: `ddl.rs`;
/// `GROUP_CONCAT(DISTINCT ...)` with the byte 0x01 in its separator: `expr.rs`).
pub fn rewrite(s: &Statement, env: &Env<'_>) -> Result<Rewritten, ServerError> {
    let mut s = s.clone();
    // Taken before the visit, which reads `@a` in expressions as its value.
    let select_into = select_into_variables(&mut s)?;
    let calc_found_rows = found_rows::asked(&s); // before the visit drops the modifier
    let mut q = Qualify::new(env);
    let _ = s.visit(&mut q);
    if let Some(e) = q.error {
        return Err(e);
    }
    temporary::renamed(&mut s, env);
    // One scan of the text says which of the next three passes may act (`mentions.rs`).
    let mentions = mentions::Mentions::of(env.source);
    json::mark_json_arguments(&mut s, mentions.json);
    decimal_strings::mark(&mut s, mentions.strings);
    double_round::mark(&mut s, mentions.round);
    let mut user_vars = select_into;
    let (mut insert_sql, mut insert_rows) = (None, None);
    match &mut s {
        Statement::Insert(ins) => {
            insert::mysql_insert(ins);
            if insert::of_query(ins) {
                let (sql, rows) = insert::text_of_query_rows(ins);
                (insert_sql, insert_rows) = (Some(sql), rows);
            }
        }
        Statement::Update(u) => {
            // MySQL's affected rows: the rows changed, not matched (`changed.rs`); a
            // multi-table UPDATE is counted as SQLite counts it.
            if u.table.joins.is_empty() && u.from.is_none() {
                multi_table::single_update(u)?;
                changed::number_parameters(u);
                changed::count_rows(&mut u.assignments);
            }
            limited::update(u)?
        }
        Statement::Delete(d) => limited::delete(d)?,
        _ => {}
    }
    let mut multi_table = match &s {
        Statement::Delete(d) => multi_table::delete(d)?,
        Statement::Update(u) => multi_table::update(u)?,
        _ => None,
    };
    let sql = match &s {
        _ if multi_table.is_some() => multi_table.take().into_iter().collect(),
        Statement::Query(query) if q.rollups == 1 && rollup::has_rollup(query) => {
            vec![rollup::query(query)?]
        }
        _ if q.rollups > 0 => {
            return Err(ServerError::not_supported(
                "GROUP BY ... WITH ROLLUP in a subquery or a UNION",
            ))
        }
        Statement::CreateTable(c) => ddl::create_table(c)?,
        Statement::CreateIndex(c) => vec![ddl::create_index(c)?],
        Statement::AlterTable(a) => ddl::alter_table(a)?,
        Statement::Set(set) => match user_var_assignments(set) {
            (names, exprs) if !names.is_empty() => {
                user_vars = names;
                vec![format!("SELECT {}", exprs.join(", "))]
            }
            _ => vec![s.to_string()],
        },
        Statement::Drop {
            object_type: sqlparser::ast::ObjectType::Index,
            names,
            table: Some(t),
            if_exists,
            ..
        } => {
            let (schema, table) = temporary::table_of(t, env)?;
            names
                .iter()
                .map(|n| {
                    format!(
                        "DROP INDEX {}{}.{}",
                        if *if_exists { "IF EXISTS " } else { "" },
                        q_ident(&schema),
                        q_ident(&format!("{table}__{}", last(n)))
                    )
                })
                .collect()
        }
        // SQLite has no TRUNCATE: a DELETE of every row (SQLite's truncate optimization), after
        // which an `INTEGER PRIMARY KEY` counts from 1 again, as MySQL's AUTO_INCREMENT does.
        Statement::Truncate(t) => (t.table_names.iter())
            .map(|target| {
                let (schema, table) = qualified(&target.name, env)?;
                Ok(format!("DELETE FROM {}.{}", q_ident(&schema), q_ident(&table)))
            })
            .collect::<Result<_, ServerError>>()?,
        // SQLite renames one table at a time, within its database.
        Statement::RenameTable(renames) => (renames.iter())
            .map(|r| {
                let (schema, old) = qualified(&r.old_name, env)?;
                let (to_schema, new) = qualified(&r.new_name, env)?;
                if to_schema != schema {
                    return Err(ServerError::new(
                        1235,
                        "42000",
                        "This version of MySQL doesn't yet support 'RENAME TABLE to another schema'",
                    ));
                }
                Ok(format!(
                    "ALTER TABLE {}.{} RENAME TO {}",
                    q_ident(&schema),
                    q_ident(&old),
                    q_ident(&new)
                ))
            })
            .collect::<Result<_, ServerError>>()?,
        // SQLite drops one table per statement, and each name is qualified here: the visitor
        // does not see a DROP's names, and SQLite would find an unqualified `t` in the first
        // attached schema that has one, not in the current schema.
        Statement::Drop {
            object_type: sqlparser::ast::ObjectType::Table,
            ..
        } => temporary::drop_tables(&s, env)?,
        _ if insert_sql.is_some() => insert_sql.take().into_iter().collect(),
        other => vec![other.to_string()],
    };
    let found_rows = found_rows::plan(&s, calc_found_rows, q.calcs, q.rollups == 1)?;
    Ok(Rewritten {
        sql,
        tables: q.tables,
        sleep: q.sleep,
        read_session: q.read_session,
        locking_read: q.locking_read,
        user_vars,
        found_rows,
        insert_rows,
        scans: Default::default(),
    })
}

fn q_ident(s: &str) -> String {
    crate::engine::quote(s)
}

fn last(n: &ObjectName) -> String {
    match n.0.last() {
        Some(ObjectNamePart::Identifier(i)) => i.value.clone(),
        _ => n.to_string(),
    }
}

/// `(schema, table)` of a name, qualified with the current schema if it has none.
fn qualified(n: &ObjectName, env: &Env<'_>) -> Result<(String, String), ServerError> {
    table_name(n, env.schema)
}

/// `(schema, table)` of a statement's table name, qualified with `current` if it has none;
/// 1046 when there is no current schema to qualify it with.
pub(crate) fn table_name(
    n: &ObjectName,
    current: Option<&str>,
) -> Result<(String, String), ServerError> {
    match split(n) {
        (s, t) if !s.is_empty() => Ok((s, t)),
        (_, t) => match current {
            Some(s) => Ok((s.to_string(), t)),
            None => Err(ServerError::new(1046, "3D000", "No database selected")),
        },
    }
}

/// `(schema, table)` of a qualified name.
/// An object name's schema (empty when unqualified) and name.
pub(crate) fn object_parts(n: &ObjectName) -> (String, String) {
    split(n)
}

fn split(n: &ObjectName) -> (String, String) {
    let parts: Vec<String> =
        n.0.iter()
            .map(|p| match p {
                ObjectNamePart::Identifier(i) => i.value.clone(),
                other => other.to_string(),
            })
            .collect();
    match parts.as_slice() {
        [s, t] => (s.clone(), t.clone()),
        [.., s, t] => (s.clone(), t.clone()),
        [t] => (String::new(), t.clone()),
        [] => (String::new(), String::new()),
    }
}

struct Qualify<'a> {
    env: &'a Env<'a>,
    ctes: HashSet<String>,
    tables: Vec<(String, String)>,
    user_lock: usize,
    sleep: std::time::Duration,
    read_session: bool,
    locking_read: Option<LockingRead>,
    /// The `?` placeholders visited so far: those before the expression being visited.
    placeholders: usize,
    /// The `GROUP BY ... WITH ROLLUP` clauses visited.
    rollups: usize,
    /// The SELECTs visited that had `SQL_CALC_FOUND_ROWS` (`found_rows.rs`).
    calcs: usize,
    /// The statement's text, which names its result columns.
    source: Option<header::Source<'a>>,
    /// A CREATE TABLE's or CREATE VIEW's own name, not a temporary table's (`temporary.rs`).
    base_name: Option<ObjectName>,
    error: Option<ServerError>,
}

impl<'a> Qualify<'a> {
    fn new(env: &'a Env<'a>) -> Qualify<'a> {
        Qualify {
            env,
            ctes: HashSet::new(),
            tables: Vec::new(),
            user_lock: 0,
            sleep: std::time::Duration::ZERO,
            read_session: false,
            locking_read: None,
            placeholders: 0,
            rollups: 0,
            calcs: 0,
            source: (env.source).map(|p| header::Source::new(&p.text, p.start)),
            base_name: None,
            error: None,
        }
    }
}

impl VisitorMut for Qualify<'_> {
    type Break = ();

    fn pre_visit_statement(&mut self, s: &mut Statement) -> ControlFlow<()> {
        temporary::statement(self, s);
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        self.calcs += modifiers::drop_select_modifiers(&mut q.body);
        modifiers::no_limit_past_bigint(q);
        // SQLite has no ROLLUP: the statement's is rewritten after the visit (`rollup.rs`),
        // which takes one, in the top query.
        self.rollups += rollup::count(&q.body);
        for lock in q.locks.drain(..) {
            let how = match lock.nonblock {
                None => LockingRead::Wait,
                Some(NonBlock::Nowait) => LockingRead::NoWait,
                Some(NonBlock::SkipLocked) => {
                    self.error
                        .get_or_insert_with(|| ServerError::not_supported("SKIP LOCKED"));
                    LockingRead::Wait
                }
            };
            // One NOWAIT clause makes the statement's wait a NOWAIT one.
            self.locking_read = Some(match self.locking_read {
                Some(LockingRead::NoWait) => LockingRead::NoWait,
                _ => how,
            });
        }
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                self.ctes.insert(cte.alias.name.value.clone());
            }
        }
        if let sqlparser::ast::SetExpr::Select(sel) = q.body.as_mut() {
            if let [only] = sel.from.as_slice() {
                if only.joins.is_empty()
                    && matches!(&only.relation, TableFactor::Table { name, .. } if mdl_sql::is_dual(name))
                {
                    sel.from.clear();
                }
            }
        }
        // A result column is named as MySQL names it (`header.rs`), where SQLite would give
        // the table's spelling of a column and its own rendering of an expression.
        header::name_columns(&mut q.body, self.source.as_ref());
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, t: &mut TableFactor) -> ControlFlow<()> {
        // `USE | FORCE | IGNORE INDEX (...)` are hints to MySQL's optimizer, SQLite has none
        // of that syntax: the rows are the same without them.
        if let TableFactor::Table {
            index_directives, ..
        } = t
        {
            index_directives.clear();
        }
        temporary::alias(self, t);
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, n: &mut ObjectName) -> ControlFlow<()> {
        if n.0.len() == 1 {
            let name = last(n);
            if self.ctes.contains(&name) {
                return ControlFlow::Continue(());
            }
            match self.env.schema {
                Some(s) => {
                    n.0.insert(0, ObjectNamePart::Identifier(Ident::with_quote('`', s)))
                }
                None => {
                    self.error.get_or_insert_with(|| {
                        ServerError::new(1046, "3D000", "No database selected")
                    });
                }
            }
        }
        temporary::relation(self, n);
        self.tables.push(split(n));
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Some(c) = self.literal(e) {
            *e = cell_expr(c);
        }
        temporary::column(self, e);
        if let Err(err) = expr::mysql_syntax(e, self.placeholders) {
            self.error.get_or_insert(err);
        }
        // `RLIKE` is MySQL's other spelling of `REGEXP`, SQLite's only one (`functions/regexp.rs`).
        if let Expr::RLike { regexp, .. } = e {
            *regexp = true;
        }
        // MySQL's LIKE escapes with `\` unless told otherwise (`Item_func_like`'s default
        // `escape`); SQLite's escapes with nothing.
        if let Expr::Like {
            escape_char: escape @ None,
            ..
        } = e
        {
            *escape = Some(Box::new(Expr::value(Value::SingleQuotedString(
                "\\".into(),
            ))));
        }
        // `CURRENT_TIMESTAMP()` and kin: SQLite knows the call by another name (`functions`).
        if let Expr::Function(f) = e {
            match crate::functions::engine_name(&f.name) {
                Ok(Some(n)) if matches!(f.args, sqlparser::ast::FunctionArguments::List(_)) => {
                    f.name = ObjectName(vec![ObjectNamePart::Identifier(Ident::new(n))])
                }
                Ok(_) => {}
                Err(err) => _ = self.error.get_or_insert(err),
            }
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        // Last, once the other rewrites have read the string: SQLite's tokenizer would end it
        // at the NUL.
        if let Some(bytes) = literals::nul_text(e) {
            *e = literals::bytes_as_text(bytes);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_value(&mut self, v: &mut ValueWithSpan) -> ControlFlow<()> {
        match &v.value {
            Value::DoubleQuotedString(s) | Value::NationalStringLiteral(s) => {
                v.value = Value::SingleQuotedString(s.clone())
            }
            // MySQL's bit-value literal `b'101'` (`sql_lex.cc`, `MY_LEX_BIN_NUMBER`) as its
            // number, how BIT columns and arithmetic read it; SQLite has no such literal.
            Value::SingleQuotedByteStringLiteral(bits)
                if !bits.is_empty()
                    && bits.len() <= 63
                    && bits.bytes().all(|b| b == b'0' || b == b'1') =>
            {
                let n = i64::from_str_radix(bits, 2).unwrap_or_default();
                v.value = Value::Number(n.to_string(), false);
            }
            Value::Placeholder(_) => self.placeholders += 1,
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests;

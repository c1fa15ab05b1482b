//! The statements sqlparser 0.64's `MySqlDialect` cannot parse, recognized from their tokens.
//!
//! Checked against sqlparser 0.64.0 (`Parser::parse_sql` with `MySqlDialect`):
//!
//! | statement | sqlparser 0.64 | here |
//! |---|---|---|
//! | `LOCK INSTANCE FOR BACKUP`, `UNLOCK INSTANCE` | syntax error | recognized |
//! | `LOCK TABLES db.t READ`, `LOCK TABLE t WRITE` | syntax error (no qualified name, no `TABLE`) | recognized (all `LOCK TABLE[S]`) |
//! | `UNLOCK TABLE` | syntax error | recognized (with `UNLOCK TABLES`) |
//! | `DO expr, ...` | syntax error | recognized, the expressions parsed by sqlparser |
//! | `ALTER TABLE t DISABLE KEYS` / `ENABLE KEYS` (mysqldump) | syntax error | recognized |
//! | `ALTER TABLE t ENGINE = x`, `ALTER TABLE t FORCE` (a rebuild) | syntax error | recognized |
//! | `ALTER TABLE t RENAME INDEX a TO b`, `ALTER TABLE t COMMENT 'x'` and other table options | syntax error | recognized (`alter.rs`) |
//! | `KILL [QUERY \| CONNECTION] n` | parsed | left to sqlparser |
//! | `KILL [QUERY \| CONNECTION] expr` (`@id`, `1+1`, `'5'`, ...) | syntax error | recognized, the expression parsed by sqlparser |
//! | `SHOW [FULL] PROCESSLIST` | parsed | left to sqlparser |
//! | `FLUSH TABLES [t, ...] WITH READ LOCK`, `FLUSH TABLES [t, ...] [FOR EXPORT]`, `FLUSH PRIVILEGES` ... | parsed | left to sqlparser |
//! | `ANALYZE TABLE t1, t2` | parsed as Hive's `ANALYZE TABLE`, one table only | recognized (all `ANALYZE [NO_WRITE_TO_BINLOG \| LOCAL] TABLE[S]`) |
//! | `CHECK TABLE t`, `OPTIMIZE TABLE t`, `REPAIR TABLE t`, `CHECKSUM TABLE t` | syntax error | recognized |
//!
//! The grammar follows MySQL's `sql/sql_yacc.yy` (`lock`, `table_lock`, `lock_option`,
//! `unlock`, `lock_instance`, `do_stmt`, `alter_commands` with `DISABLE_SYM KEYS` /
//! `ENABLE_SYM KEYS`, `FORCE`, and `create_table_option` `ENGINE_SYM opt_equal ident`; the
//! table maintenance statements `analyze_table_stmt` (`opt_histogram`), `check_table_stmt`
//! (`opt_mi_check_types`), `optimize_table_stmt`, `repair_table_stmt`
//! (`opt_mi_repair_types`) and `checksum` (`opt_checksum_type`), each with `table_or_tables`
//! and, but for CHECK and CHECKSUM, `opt_no_write_to_binlog`). The maintenance options
//! (`QUICK`, `EXTENDED`, `FOR UPGRADE`, `USE_FRM`, ...) are checked and dropped: they change
//! how an engine checks or repairs, not the locks (`mysql_admin_table` chooses those from the
//! statement alone).

use sqlparser::ast;
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

use crate::parse::{is_kw, Statement};

pub(crate) mod alter;

/// One table of `LOCK TABLES`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TableLock {
    /// The schema, if the name was qualified.
    pub schema: Option<String>,
    /// The table.
    pub table: String,
    /// `AS alias` (statements under LOCK TABLES must then use the alias).
    pub alias: Option<String>,
    /// The requested mode.
    pub mode: TableLockMode,
}

/// `READ`, `READ LOCAL`, `WRITE` or `LOW_PRIORITY WRITE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableLockMode {
    /// `READ`.
    Read,
    /// `READ LOCAL`.
    ReadLocal,
    /// `WRITE`.
    Write,
    /// `LOW_PRIORITY WRITE` (the same as `WRITE` since MySQL 5.6).
    LowPriorityWrite,
}

impl TableLockMode {
    /// Whether the table may be written under LOCK TABLES.
    pub fn is_write(self) -> bool {
        matches!(self, TableLockMode::Write | TableLockMode::LowPriorityWrite)
    }
}

/// A table named by a statement: `[schema.]table`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NamedTable {
    /// The schema, if the name was qualified.
    pub schema: Option<String>,
    /// The table.
    pub table: String,
}

/// Which table maintenance statement ([`Statement::TableMaintenance`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Maintenance {
    /// `ANALYZE TABLE`.
    Analyze,
    /// `ANALYZE TABLE ... UPDATE HISTOGRAM | DROP HISTOGRAM` (not supported: 1235).
    Histogram,
    /// `CHECK TABLE`.
    Check,
    /// `OPTIMIZE TABLE`.
    Optimize,
    /// `REPAIR TABLE`.
    Repair,
    /// `CHECKSUM TABLE`.
    Checksum,
}

impl Maintenance {
    /// The `Op` column of the statement's result (`analyze`, `check`, ...), and its name in
    /// messages.
    pub fn op(self) -> &'static str {
        match self {
            Maintenance::Analyze | Maintenance::Histogram => "analyze",
            Maintenance::Check => "check",
            Maintenance::Optimize => "optimize",
            Maintenance::Repair => "repair",
            Maintenance::Checksum => "checksum",
        }
    }
}

/// `Some` if the statement is one of ours (`Err` holds where it stops making sense), `None` to
/// let sqlparser parse it.
pub(crate) fn recognize(t: &[TokenWithSpan]) -> Option<Result<Statement, Location>> {
    let kw = |i: usize, k: &str| t.get(i).is_some_and(|x| is_kw(x, k));
    let end_at = |i: usize| -> Result<(), Location> {
        match t.get(i) {
            None => Ok(()),
            Some(x) => Err(x.span.start),
        }
    };
    if kw(0, "LOCK") && kw(1, "INSTANCE") {
        return Some(if kw(2, "FOR") && kw(3, "BACKUP") {
            end_at(4).map(|()| Statement::LockInstanceForBackup)
        } else {
            Err(at(t, 2))
        });
    }
    if kw(0, "UNLOCK") && kw(1, "INSTANCE") {
        return Some(end_at(2).map(|()| Statement::UnlockInstance));
    }
    if kw(0, "UNLOCK") && (kw(1, "TABLES") || kw(1, "TABLE")) {
        return Some(end_at(2).map(|()| Statement::UnlockTables));
    }
    if kw(0, "LOCK") && (kw(1, "TABLES") || kw(1, "TABLE")) {
        return Some(lock_tables(t, 2).map(Statement::LockTables));
    }
    // ALTER TABLE t {DISABLE | ENABLE} KEYS: exactly that (anything longer is sqlparser's).
    if kw(0, "ALTER") && kw(1, "TABLE") {
        let (schema, table, next) = match (ident(t, 2), t.get(3).map(|x| &x.token)) {
            (Some(s), Some(Token::Period)) => (Some(s), ident(t, 4)?, 5),
            (Some(n), _) => (None, n, 3),
            _ => return None,
        };
        if t.len() == next + 2
            && kw(next + 1, "KEYS")
            && (kw(next, "DISABLE") || kw(next, "ENABLE"))
        {
            let enable = kw(next, "ENABLE");
            return Some(Ok(Statement::AlterTableKeys {
                schema,
                table,
                enable,
            }));
        }
        if rebuild(t, next) {
            return Some(Ok(Statement::AlterTableRebuild { schema, table }));
        }
        return None;
    }
    if kw(0, "DO") {
        return Some(do_exprs(t).map(Statement::Do));
    }
    if kw(0, "KILL") {
        return kill_expr(t);
    }
    maintenance(t)
}

/// `ANALYZE | CHECK | OPTIMIZE | REPAIR | CHECKSUM ... TABLE[S] t, ... [options]`
/// (`sql_yacc.yy`: `analyze_table_stmt`, `check_table_stmt`, `optimize_table_stmt`,
/// `repair_table_stmt`, `checksum`).
fn maintenance(t: &[TokenWithSpan]) -> Option<Result<Statement, Location>> {
    let kw = |i: usize, k: &str| t.get(i).is_some_and(|x| is_kw(x, k));
    let (op, binlog_option, options): (Maintenance, bool, &[&str]) = if kw(0, "ANALYZE") {
        (Maintenance::Analyze, true, &[])
    } else if kw(0, "CHECK") {
        let types = &["QUICK", "FAST", "MEDIUM", "EXTENDED", "CHANGED", "FOR"];
        (Maintenance::Check, false, types)
    } else if kw(0, "OPTIMIZE") {
        (Maintenance::Optimize, true, &[])
    } else if kw(0, "REPAIR") {
        (Maintenance::Repair, true, &["QUICK", "EXTENDED", "USE_FRM"])
    } else if kw(0, "CHECKSUM") {
        (Maintenance::Checksum, false, &["QUICK", "EXTENDED"])
    } else {
        return None;
    };
    let mut i = 1;
    if binlog_option && (kw(i, "NO_WRITE_TO_BINLOG") || kw(i, "LOCAL")) {
        i += 1;
    }
    if !(kw(i, "TABLE") || kw(i, "TABLES")) {
        // `ANALYZE` alone and the like: MySQL's syntax error (sqlparser would take other
        // words after ANALYZE as its own dialects' statements).
        return Some(Err(at(t, i)));
    }
    i += 1;
    let mut tables = Vec::new();
    loop {
        let Some(first) = ident(t, i) else {
            return Some(Err(at(t, i)));
        };
        i += 1;
        let (schema, table) = if t.get(i).is_some_and(|x| x.token == Token::Period) {
            let Some(name) = ident(t, i + 1) else {
                return Some(Err(at(t, i + 1)));
            };
            i += 2;
            (Some(first), name)
        } else {
            (None, first)
        };
        tables.push(NamedTable { schema, table });
        match t.get(i) {
            Some(x) if x.token == Token::Comma => i += 1,
            _ => break,
        }
    }
    let mut op = op;
    if op == Maintenance::Analyze && (kw(i, "UPDATE") || kw(i, "DROP")) && kw(i + 1, "HISTOGRAM") {
        // opt_histogram: refused by the plan, whatever follows.
        op = Maintenance::Histogram;
        i = t.len();
    }
    // The options: CHECK takes any number (`FOR UPGRADE` as one), REPAIR each once, CHECKSUM
    // one (MySQL's grammar allows REPAIR's repeated; that changes nothing here).
    let mut seen = 0;
    while i < t.len() {
        let word = options.iter().find(|o| kw(i, o));
        match word {
            Some(&"FOR") if kw(i + 1, "UPGRADE") => i += 2,
            Some(&"FOR") | None => return Some(Err(at(t, i))),
            Some(_) if op == Maintenance::Checksum && seen == 1 => return Some(Err(at(t, i))),
            Some(_) => i += 1,
        }
        seen += 1;
    }
    Some(Ok(Statement::TableMaintenance { op, tables }))
}

/// Whether the tokens from `i` on are exactly `ENGINE [=] name` or `FORCE`, then any of `,
/// ALGORITHM [=] a` and `, LOCK [=] l` (anything else is sqlparser's).
fn rebuild(t: &[TokenWithSpan], mut i: usize) -> bool {
    // `word [=] value` from `i`: the index after it.
    let option = |i: usize, word: &str| -> Option<usize> {
        if !is_kw(t.get(i)?, word) {
            return None;
        }
        let v = match t.get(i + 1)?.token {
            Token::Eq => i + 2,
            _ => i + 1,
        };
        matches!(t.get(v)?.token, Token::Word(_)).then_some(v + 1)
    };
    i = match (option(i, "ENGINE"), t.get(i)) {
        (Some(after), _) => after,
        (None, Some(f)) if is_kw(f, "FORCE") => i + 1,
        _ => return false,
    };
    while i < t.len() {
        if t[i].token != Token::Comma {
            return false;
        }
        match option(i + 1, "ALGORITHM").or_else(|| option(i + 1, "LOCK")) {
            Some(after) => i = after,
            None => return false,
        }
    }
    true
}

fn at(t: &[TokenWithSpan], i: usize) -> Location {
    t.get(i)
        .or(t.last())
        .map_or(Location::new(1, 1), |x| x.span.start)
}

/// An identifier: a word (quoted or not), as MySQL takes it in `table_ident`.
fn ident(t: &[TokenWithSpan], i: usize) -> Option<String> {
    match &t.get(i)?.token {
        Token::Word(w) => Some(w.value.clone()),
        _ => None,
    }
}

/// `table_lock_list` from token `i`.
fn lock_tables(t: &[TokenWithSpan], mut i: usize) -> Result<Vec<TableLock>, Location> {
    let mut out = Vec::new();
    loop {
        let first = ident(t, i).ok_or(at(t, i))?;
        i += 1;
        let (schema, table) = if t.get(i).is_some_and(|x| x.token == Token::Period) {
            let name = ident(t, i + 1).ok_or(at(t, i + 1))?;
            i += 2;
            (Some(first), name)
        } else {
            (None, first)
        };
        // opt_table_alias: [AS] ident, where the ident is not a lock option.
        let lock_word = |i: usize| {
            ["READ", "WRITE", "LOW_PRIORITY"]
                .iter()
                .any(|k| t.get(i).is_some_and(|x| is_kw(x, k)))
        };
        let mut alias = None;
        if t.get(i).is_some_and(|x| is_kw(x, "AS")) {
            alias = Some(ident(t, i + 1).ok_or(at(t, i + 1))?);
            i += 2;
        } else if !lock_word(i) {
            if let Some(a) = ident(t, i) {
                alias = Some(a);
                i += 1;
            }
        }
        let kw = |i: usize, k: &str| t.get(i).is_some_and(|x| is_kw(x, k));
        let mode = if kw(i, "READ") && kw(i + 1, "LOCAL") {
            i += 2;
            TableLockMode::ReadLocal
        } else if kw(i, "READ") {
            i += 1;
            TableLockMode::Read
        } else if kw(i, "WRITE") {
            i += 1;
            TableLockMode::Write
        } else if kw(i, "LOW_PRIORITY") && kw(i + 1, "WRITE") {
            i += 2;
            TableLockMode::LowPriorityWrite
        } else {
            return Err(at(t, i));
        };
        out.push(TableLock {
            schema,
            table,
            alias,
            mode,
        });
        match t.get(i) {
            None => return Ok(out),
            Some(x) if x.token == Token::Comma => i += 1,
            Some(x) => return Err(x.span.start),
        }
    }
}

/// `KILL [CONNECTION | QUERY] expr` (`sql_yacc.yy`: `kill: KILL_SYM kill_option expr`), unless
/// `expr` is the unsigned integer sqlparser's `KILL` takes (`None`: left to it).
fn kill_expr(t: &[TokenWithSpan]) -> Option<Result<Statement, Location>> {
    let modifier = |w: &str| t.get(1).is_some_and(|x| is_kw(x, w));
    let (query, from) = match () {
        _ if modifier("QUERY") => (true, 2),
        _ if modifier("CONNECTION") => (false, 2),
        _ => (false, 1),
    };
    if let [one] = &t[from.min(t.len())..] {
        if matches!(&one.token, Token::Number(n, false) if n.parse::<u64>().is_ok()) {
            return None;
        }
    }
    if t.len() <= from {
        return Some(Err(at(t, from)));
    }
    let mut p = Parser::new(&MySqlDialect {}).with_tokens_with_locations(t[from..].to_vec());
    let id = match p.parse_expr() {
        Ok(e) => e,
        Err(_) => return Some(Err(p.peek_token().span.start)),
    };
    let next = p.peek_token();
    if next.token != Token::EOF {
        return Some(Err(next.span.start));
    }
    Some(Ok(Statement::KillExpr {
        query,
        id: Box::new(id),
    }))
}

/// `DO expr, ...`: the expressions parsed by sqlparser as a select list.
fn do_exprs(t: &[TokenWithSpan]) -> Result<Vec<ast::Expr>, Location> {
    if t.len() < 2 {
        return Err(at(t, 1));
    }
    let mut p = Parser::new(&MySqlDialect {}).with_tokens_with_locations(t[1..].to_vec());
    let items = p
        .parse_comma_separated(Parser::parse_select_item)
        .map_err(|_| p.peek_token().span.start)?;
    let next = p.peek_token();
    if next.token != Token::EOF {
        return Err(next.span.start);
    }
    items
        .into_iter()
        .map(|item| match item {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                Ok(e)
            }
            _ => Err(at(t, 1)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse, Statement};

    use super::*;

    /// The one statement `sql` parses to (also for the submodules' tests).
    pub(super) fn stmt(sql: &str) -> Statement {
        parse(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .remove(0)
            .statement
    }

    #[test]
    fn lock_tables() {
        let Statement::LockTables(v) = stmt(
            "LOCK TABLES t1 READ, db.t2 AS x LOW_PRIORITY WRITE, `d`.`t 3` w READ LOCAL, t4 WRITE",
        ) else {
            panic!()
        };
        let got: Vec<_> = v
            .iter()
            .map(|l| {
                (
                    l.schema.as_deref(),
                    l.table.as_str(),
                    l.alias.as_deref(),
                    l.mode,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (None, "t1", None, TableLockMode::Read),
                (Some("db"), "t2", Some("x"), TableLockMode::LowPriorityWrite),
                (Some("d"), "t 3", Some("w"), TableLockMode::ReadLocal),
                (None, "t4", None, TableLockMode::Write),
            ]
        );
        assert!(matches!(
            stmt("lock table t write"),
            Statement::LockTables(_)
        ));
    }

    #[test]
    fn rebuilds_exactly() {
        assert_eq!(
            stmt("alter table db.t engine = InnoDB, lock = none"),
            Statement::AlterTableRebuild {
                schema: Some("db".into()),
                table: "t".into()
            }
        );
        assert!(matches!(
            stmt("ALTER TABLE t FORCE, ALGORITHM=COPY"),
            Statement::AlterTableRebuild { schema: None, .. }
        ));
        // Anything more is sqlparser's (which refuses these).
        for sql in [
            "ALTER TABLE t ENGINE",
            "ALTER TABLE t ENGINE=InnoDB, ADD COLUMN c INT",
            "ALTER TABLE t FORCE LOCK",
        ] {
            assert!(parse(sql).is_err(), "{sql}");
        }
    }

    #[test]
    fn instance_and_unlock() {
        assert_eq!(
            stmt("LOCK INSTANCE FOR BACKUP"),
            Statement::LockInstanceForBackup
        );
        assert_eq!(stmt("unlock instance"), Statement::UnlockInstance);
        assert_eq!(stmt("UNLOCK TABLE"), Statement::UnlockTables);
        assert_eq!(stmt("UNLOCK TABLES"), Statement::UnlockTables);
    }

    #[test]
    fn do_statement() {
        let Statement::Do(e) = stmt("DO GET_LOCK('a', 10), RELEASE_LOCK('b')") else {
            panic!()
        };
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].to_string(), "GET_LOCK('a', 10)");
    }

    /// sql_yacc.yy: `kill: KILL_SYM kill_option expr`; an unsigned integer stays sqlparser's.
    #[test]
    fn kill_expressions() {
        for (sql, query, id) in [
            ("KILL @victim", false, "@victim"),
            ("KILL QUERY (1 + 1)", true, "(1 + 1)"),
            ("kill connection '5'", false, "'5'"),
            ("KILL -1", false, "-1"),
            ("KILL 2.5", false, "2.5"),
        ] {
            let Statement::KillExpr { query: q, id: e } = stmt(sql) else {
                panic!("{sql}")
            };
            assert_eq!((q, e.to_string().as_str()), (query, id), "{sql}");
        }
        for sql in ["KILL 5", "KILL QUERY 7", "KILL CONNECTION 9"] {
            assert!(matches!(stmt(sql), Statement::Sql { .. }), "{sql}");
        }
        for sql in ["KILL", "KILL QUERY", "KILL 1 2", "KILL @a @b"] {
            assert_eq!(parse(sql).unwrap_err().code(), 1064, "{sql}");
        }
    }

    #[test]
    fn maintenance_statements() {
        let named = |s: Option<&str>, t: &str| NamedTable {
            schema: s.map(str::to_string),
            table: t.to_string(),
        };
        assert_eq!(
            stmt("ANALYZE TABLE t1, `d`.`t 2`"),
            Statement::TableMaintenance {
                op: Maintenance::Analyze,
                tables: vec![named(None, "t1"), named(Some("d"), "t 2")]
            }
        );
        for (sql, op) in [
            (
                "check tables t quick fast medium extended changed",
                Maintenance::Check,
            ),
            ("CHECK TABLE t FOR UPGRADE", Maintenance::Check),
            ("OPTIMIZE NO_WRITE_TO_BINLOG TABLE t", Maintenance::Optimize),
            ("REPAIR LOCAL TABLES t USE_FRM", Maintenance::Repair),
            ("CHECKSUM TABLE t EXTENDED", Maintenance::Checksum),
            (
                "ANALYZE TABLE t UPDATE HISTOGRAM ON a, b WITH 4 BUCKETS",
                Maintenance::Histogram,
            ),
        ] {
            let Statement::TableMaintenance { op: got, tables } = stmt(sql) else {
                panic!("{sql}")
            };
            assert_eq!((got, tables), (op, vec![named(None, "t")]), "{sql}");
        }
        assert_eq!(Maintenance::Histogram.op(), "analyze");
    }

    #[test]
    fn malformed() {
        for sql in [
            "LOCK INSTANCE",
            "LOCK INSTANCE FOR BACKUP now",
            "LOCK TABLES t",
            "LOCK TABLES t READ,",
            "LOCK TABLES t SHARE",
            "UNLOCK TABLES t",
            "DO",
            "DO 1 +",
        ] {
            let e = parse(sql).unwrap_err();
            assert_eq!(e.code(), 1064, "{sql}");
        }
    }
}

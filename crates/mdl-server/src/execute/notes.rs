//! The notes and warnings a statement raises (`diagnostics.rs`), with MySQL 8.0's codes,
//! levels and messages (`share/messages_to_clients.txt`):
//!
//! | statement | condition | MySQL 8.0 |
//! |---|---|---|
//! | `DROP [TEMPORARY] TABLE IF EXISTS` of a table that is not there | Note 1051 `Unknown table 'db.t'`, one per table | `mysql_rm_table_no_locks`, `sql/sql_table.cc` |
//! | `DROP VIEW IF EXISTS` of a name that is neither view nor table | Note 1051 `Unknown table 'db.v'`, one per name | `mysql_drop_view`, `sql/sql_view.cc` |
//! | `DROP {DATABASE \| SCHEMA} IF EXISTS` of a missing schema | Note 1008 `Can't drop database 'd'; database doesn't exist` | `mysql_rm_db`, `sql/sql_db.cc` |
//! | `CREATE {DATABASE \| SCHEMA} IF NOT EXISTS` of an existing schema | Note 1007 `Can't create database 'd'; database exists` | `mysql_create_db`, `sql/sql_db.cc` |
//! | `CREATE TABLE IF NOT EXISTS` of an existing table | Note 1050 `Table 't' already exists` (`engine_step::existing_table`) | `create_table_impl`, `sql/sql_table.cc` |
//! | a select whose select list divides by a literal zero (`/`, `DIV`, `%`, `MOD`) | Warning 1365 `Division by 0`, per division per row returned | `Item_func::signal_divide_by_null`, `sql/item_func.cc` |
//!
//! The DDL's are found before the engine runs the statement, under its exclusive locks (no
//! table or schema can come or go in between), in the same terms as the errors the statement
//! gives without `IF [NOT] EXISTS`. The division's is found on the statement's own AST, only
//! where the divisor is a literal 0 outside an aggregate or another function (what the
//! statement shows without running it): one whose divisor is a column or an expression that
//! is 0 at run time raises nothing here, and a NULL dividend (MySQL then raises nothing) is
//! still counted. The walk looks at the select list only, after a select returned rows: a
//! point select's one column is one comparison.

use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName, ObjectType,
    SchemaName, SelectItem, SetExpr, Statement, Value,
};

use crate::diagnostics::{Area, Condition};
use crate::engine::EngineConn;
use crate::error::ServerError;

/// Raises the notes of the DDL `s`, whose locks are held (module docs), into `area`.
///
/// # Errors
/// 1046 for a table name without a schema; SQLite errors.
pub(super) fn before(
    db: &mut EngineConn,
    s: Option<&Statement>,
    current: Option<&str>,
    area: &mut Area,
) -> Result<(), ServerError> {
    let schema = |n: &ObjectName| n.to_string().trim_matches('`').to_ascii_lowercase();
    match s {
        Some(Statement::Drop {
            object_type: ObjectType::Table,
            if_exists: true,
            temporary,
            names,
            ..
        }) => {
            for name in missing_tables(db, names, *temporary, current)? {
                area.raise(Condition::note(unknown_table(&name)));
            }
        }
        Some(Statement::Drop {
            object_type: ObjectType::View,
            if_exists: true,
            names,
            ..
        }) => {
            for n in names {
                let (schema, name) = crate::rewrite::table_name(n, current)?;
                let engine = db.engine().clone();
                let table = engine.has_schema(&schema)
                    && (db.tables(&schema)?.iter()).any(|t| t.eq_ignore_ascii_case(&name));
                if engine.views.get(&schema, &name).is_none() && !table {
                    area.raise(Condition::note(unknown_table(&format!("{schema}.{name}"))));
                }
            }
        }
        Some(Statement::Drop {
            object_type: ObjectType::Schema | ObjectType::Database,
            if_exists: true,
            names,
            ..
        }) => {
            for n in names.iter().map(schema) {
                if !db.engine().has_schema(&n) {
                    let message = format!("Can't drop database '{n}'; database doesn't exist");
                    area.raise(Condition::note(ServerError::new(1008, "HY000", message)));
                }
            }
        }
        Some(Statement::CreateDatabase {
            db_name: n,
            if_not_exists: true,
            ..
        })
        | Some(Statement::CreateSchema {
            schema_name: SchemaName::Simple(n),
            if_not_exists: true,
            ..
        }) => {
            let n = schema(n);
            // `information_schema` is 1044 even then (`schema_name.rs`).
            if db.engine().has_schema(&n) && n != crate::info_schema::SCHEMA {
                let message = format!("Can't create database '{n}'; database exists");
                area.raise(Condition::note(ServerError::new(1007, "HY000", message)));
            }
        }
        _ => {}
    }
    Ok(())
}

/// `ER_BAD_TABLE_ERROR` naming `names` (`db.t`, comma-separated).
pub(super) fn unknown_table(names: &str) -> ServerError {
    ServerError::new(1051, "42S02", format!("Unknown table '{names}'"))
}

/// The tables of `names` (`db.t`) that are not there to drop: a temporary table of the name
/// is the one dropped (`temporary.rs`), and only it with `temporary`.
///
/// # Errors
/// 1046 for a name without a schema; SQLite errors.
pub(super) fn missing_tables(
    db: &mut EngineConn,
    names: &[ObjectName],
    temporary: bool,
    current: Option<&str>,
) -> Result<Vec<String>, ServerError> {
    let mut missing = Vec::new();
    for n in names {
        let (schema, table) = crate::rewrite::table_name(n, current)?;
        let exists = crate::temporary::locate(db, &schema, &table)?.2
            || !temporary
                && db.engine().has_schema(&schema)
                && (db.tables(&schema)?.iter()).any(|t| t.eq_ignore_ascii_case(&table));
        if !exists {
            missing.push(format!("{schema}.{table}"));
        }
    }
    Ok(missing)
}

/// How many divisions by a literal zero each row of the select `s` makes (module docs).
pub(super) fn divisions_by_zero(s: &Statement) -> u64 {
    let Statement::Query(q) = s else {
        return 0;
    };
    let SetExpr::Select(select) = &*q.body else {
        return 0;
    };
    (select.projection.iter())
        .map(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => by_zero(e),
            _ => 0,
        })
        .sum()
}

/// The divisions by a literal zero in `e`, outside aggregates and other functions.
fn by_zero(e: &Expr) -> u64 {
    match e {
        Expr::BinaryOp { left, op, right } => {
            let divides = matches!(
                op,
                BinaryOperator::Divide | BinaryOperator::Modulo | BinaryOperator::MyIntegerDivide
            );
            let own = u64::from(divides && is_zero(right) && !is_null(left));
            own + by_zero(left) + by_zero(right)
        }
        Expr::Nested(e) | Expr::UnaryOp { expr: e, .. } => by_zero(e),
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("MOD") => {
            let FunctionArguments::List(list) = &f.args else {
                return 0;
            };
            let args: Vec<&Expr> = (list.args.iter())
                .filter_map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect();
            match args.as_slice() {
                [a, b] => u64::from(is_zero(b) && !is_null(a)) + by_zero(a) + by_zero(b),
                _ => 0,
            }
        }
        _ => 0,
    }
}

/// A numeric literal whose value is zero (`0`, `0.0`, `-0`, `(0)`).
fn is_zero(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse::<f64>().is_ok_and(|x| x == 0.0),
            _ => false,
        },
        Expr::Nested(e) | Expr::UnaryOp { expr: e, .. } => is_zero(e),
        _ => false,
    }
}

/// A literal NULL, whose division raises nothing (`Item_func_div::real_op` returns NULL first).
fn is_null(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => matches!(v.value, Value::Null),
        Expr::Nested(e) => is_null(e),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn divisions(sql: &str) -> u64 {
        let dialect = sqlparser::dialect::MySqlDialect {};
        let s = sqlparser::parser::Parser::parse_sql(&dialect, sql).expect("parses");
        divisions_by_zero(&s[0])
    }

    #[test]
    fn divisions_by_a_literal_zero_in_the_select_list() {
        assert_eq!(divisions("SELECT 1/0"), 1);
        assert_eq!(divisions("SELECT 1/0, 2 DIV 0, 3 % 0, MOD(4, 0) AS m"), 4);
        assert_eq!(divisions("SELECT (1/0) + 1/(0.0) FROM t"), 2);
        assert_eq!(divisions("SELECT 1/2, a/b, NULL/0, SUM(1/0) FROM t"), 0);
        assert_eq!(divisions("SELECT c FROM t WHERE id = 1"), 0);
        assert_eq!(divisions("INSERT INTO t VALUES (1/0)"), 0);
    }
}

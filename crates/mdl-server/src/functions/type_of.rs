//! `MYSQL_TYPE_OF(expr, name, type, ...)`: the MySQL column type of expression `expr` (its SQL)
//! whose column references `name` are declared `type`, as `expr_type.rs` types it (`p * 2` of a
//! `DECIMAL(10,2)` `p` is `decimal(13,2)`); NULL if not known. The rewrite knows no column
//! types, so where a value's text or rounding depends on the type of an expression over
//! columns it asks for it this way, the declared types read from `pragma_table_info` when the
//! statement runs (`rewrite/runtime_type.rs`).
//!
//! Cost: SQLite calls it for each row (its arguments are subqueries, run once); the last
//! answer is kept, so a row costs a comparison of the arguments.

use std::cell::RefCell;

use rusqlite::types::Value;

use super::{flags, text};

/// The name of the call.
pub const MYSQL_TYPE_OF: &str = "MYSQL_TYPE_OF";

/// A call's arguments and its answer.
type Answered = (Vec<Option<String>>, Option<String>);

thread_local! {
    /// The last arguments and their answer.
    static LAST: RefCell<Option<Answered>> = const { RefCell::new(None) };
}

/// Registers `MYSQL_TYPE_OF` on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    db.create_scalar_function(MYSQL_TYPE_OF, -1, flags(true), |ctx| {
        let args: Vec<Option<String>> = (0..ctx.len()).map(|i| text(ctx, i)).collect();
        let known = LAST.with_borrow(|last| match last {
            Some((a, ty)) if *a == args => Some(ty.clone()),
            _ => None,
        });
        let ty = match known {
            Some(ty) => ty,
            None => {
                let ty = type_of(&args);
                LAST.set(Some((args, ty.clone())));
                ty
            }
        };
        Ok(ty.map_or(Value::Null, Value::Text))
    })
}

/// The column type of `args[0]` with the columns and types that follow.
fn type_of(args: &[Option<String>]) -> Option<String> {
    let (sql, columns) = args.split_first()?;
    let dialect = sqlparser::dialect::MySqlDialect {};
    let e = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(sql.as_deref()?)
        .and_then(|mut p| p.parse_expr())
        .ok()?;
    crate::expr_type::column_type(&e, &Columns(columns))
}

/// Column names (`c` or `t.c`, as the expression writes them) and their declared types, in
/// pairs.
struct Columns<'a>(&'a [Option<String>]);

impl crate::expr_type::Scope for Columns<'_> {
    fn column(&self, qualifier: Option<&str>, column: &str) -> Option<String> {
        let name = match qualifier {
            Some(q) => format!("{q}.{column}"),
            None => column.to_string(),
        };
        (self.0.chunks_exact(2))
            .find(|p| {
                p[0].as_deref()
                    .is_some_and(|n| n.eq_ignore_ascii_case(&name))
            })
            .and_then(|p| p[1].clone())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{db, eval};
    use super::*;

    #[test]
    fn expressions_over_columns_are_typed() {
        let db = db();
        let cases = [
            (
                "MYSQL_TYPE_OF('p * 2', 'p', 'DECIMAL(10,2)')",
                Value::Text("decimal(11,2)".into()),
            ),
            (
                "MYSQL_TYPE_OF('t.p / 3 + d', 't.p', 'decimal(10,2)', 'd', 'double')",
                Value::Text("double".into()),
            ),
            (
                "MYSQL_TYPE_OF('t.p / 3', 't.p', 'decimal(10,2)')",
                Value::Text("decimal(14,6)".into()),
            ),
            ("MYSQL_TYPE_OF('p + 1', 'p', NULL)", Value::Null),
            ("MYSQL_TYPE_OF('p +', 'p', 'int')", Value::Null),
        ];
        for (sql, want) in cases {
            assert_eq!(eval(&db, sql), want, "{sql}");
        }
    }
}

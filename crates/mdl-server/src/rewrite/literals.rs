//! The expressions that become literals (the module docs' second point): `@@variables`,
//! `@user` variables, `DATABASE()`, `VERSION()`, the session's values (`CONNECTION_ID()`,
//! `USER()`, `CURRENT_USER()`, `LAST_INSERT_ID()`, `ROW_COUNT()`, `FOUND_ROWS()`), `SLEEP(n)`
//! and the user-level lock functions. Apart from the visitor, which finds them: this says
//! what each stands for, from the session ([`Env`](super::Env)), and spells that as SQL; and
//! how a string with a NUL byte is spelt for SQLite.

use sqlparser::ast::{Expr, Value};

use super::{last, Qualify};
use crate::error::ServerError;
use crate::wire::Cell;

impl Qualify<'_> {
    /// `CURRENT_USER()`: the account the server authenticated, any host (it checks none).
    fn current_user(&self) -> Cell {
        Cell::Text(format!("{}@%", self.env.values.user))
    }

    /// The literal an expression stands for, if it is one the module docs list.
    pub(super) fn literal(&mut self, e: &Expr) -> Option<Cell> {
        match e {
            Expr::Identifier(i) if i.value.starts_with("@@") => self.variable(&i.value[2..]),
            Expr::Identifier(i) if i.value.starts_with('@') => {
                self.read_session = true;
                Some(self.env.values.user_var(&i.value))
            }
            // MySQL's CURRENT_USER keyword, without parentheses, is CURRENT_USER().
            Expr::Identifier(i)
                if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("CURRENT_USER") =>
            {
                Some(self.current_user())
            }
            Expr::CompoundIdentifier(parts)
                if parts.first().is_some_and(|p| p.value.starts_with("@@")) =>
            {
                let name: Vec<&str> = parts.iter().map(|p| p.value.as_str()).collect();
                self.variable(&name.join(".")[2..])
            }
            Expr::Function(f) => {
                let name = last(&f.name).to_ascii_uppercase();
                match name.as_str() {
                    "DATABASE" | "SCHEMA" => Some(
                        self.env
                            .schema
                            .map_or(Cell::Null, |s| Cell::Text(s.to_string())),
                    ),
                    "CONNECTION_ID" => {
                        self.read_session = true;
                        Some(Cell::Int(self.env.values.connection_id as i64))
                    }
                    "USER" | "SESSION_USER" | "SYSTEM_USER" => {
                        let v = self.env.values;
                        Some(Cell::Text(format!("{}@{}", v.user, v.host)))
                    }
                    "CURRENT_USER" => Some(self.current_user()),
                    // With an argument, LAST_INSERT_ID(expr) sets the value: a function
                    // (`functions.rs`), whose value the server keeps after the statement.
                    "LAST_INSERT_ID" if no_args(f) => {
                        self.read_session = true;
                        Some(Cell::Int(self.env.values.last_insert_id as i64))
                    }
                    "ROW_COUNT" => {
                        self.read_session = true;
                        Some(Cell::Int(self.env.values.row_count))
                    }
                    "FOUND_ROWS" if no_args(f) => {
                        self.read_session = true;
                        Some(Cell::Int(self.env.values.found_rows as i64))
                    }
                    "VERSION" => {
                        self.read_session = true;
                        (self.env.variable)("version")
                    }
                    "SLEEP" => {
                        let secs: f64 = match &f.args {
                            sqlparser::ast::FunctionArguments::List(l) => l
                                .args
                                .first()
                                .map(|a| a.to_string())
                                .and_then(|a| a.parse().ok())
                                .unwrap_or(0.0),
                            _ => 0.0,
                        };
                        self.sleep += std::time::Duration::from_secs_f64(secs.clamp(0.0, 1e6));
                        Some(Cell::Int(0))
                    }
                    n if mdl_sql::UserLockFunction::from_name(n).is_some() => {
                        self.read_session = true;
                        let v = self.env.user_locks.get(self.user_lock).copied().flatten();
                        self.user_lock += 1;
                        Some(v.map_or(Cell::Null, Cell::Int))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn variable(&mut self, raw: &str) -> Option<Cell> {
        self.read_session = true;
        let lower = raw.to_ascii_lowercase();
        // `global.name` is looked up as such: a global value may differ from the session's.
        let name = lower
            .strip_prefix("session.")
            .or_else(|| lower.strip_prefix("local."))
            .unwrap_or(&lower);
        let v = (self.env.variable)(name);
        let name = name.strip_prefix("global.").unwrap_or(name);
        if v.is_none() && self.error.is_none() {
            self.error = Some(ServerError::unknown_variable(name));
        }
        Some(v.unwrap_or(Cell::Null))
    }
}

/// A call with no arguments: `f()`.
fn no_args(f: &sqlparser::ast::Function) -> bool {
    match &f.args {
        sqlparser::ast::FunctionArguments::None => true,
        sqlparser::ast::FunctionArguments::List(l) => l.args.is_empty(),
        sqlparser::ast::FunctionArguments::Subquery(_) => false,
    }
}

/// The bytes of a string literal that holds a NUL (MySQL's `'a\0b'`, `sql_lex.cc`'s
/// `get_text` reads `\0` as the byte 0), which SQLite's tokenizer would end the literal at.
pub(super) fn nul_text(e: &Expr) -> Option<Vec<u8>> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s)
            | Value::DoubleQuotedString(s)
            | Value::NationalStringLiteral(s)
                if s.contains('\0') =>
            {
                Some(s.clone().into_bytes())
            }
            _ => None,
        },
        _ => None,
    }
}

/// A text value SQLite reads whatever bytes it holds: `(CAST(X'..' AS TEXT))`, in parentheses
/// so that it stands where a literal does (a column's `DEFAULT`).
pub(super) fn bytes_as_text(bytes: Vec<u8>) -> Expr {
    let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
    Expr::Nested(Box::new(Expr::Cast {
        kind: sqlparser::ast::CastKind::Cast,
        expr: Box::new(Expr::value(Value::HexStringLiteral(hex))),
        data_type: sqlparser::ast::DataType::Text,
        format: None,
    }))
}

pub(crate) fn cell_expr(c: Cell) -> Expr {
    let v = match c {
        Cell::Null => Value::Null,
        Cell::Int(i) => Value::Number(i.to_string(), false),
        Cell::Real(r) => Value::Number(r.to_string(), false),
        Cell::Text(t) => Value::SingleQuotedString(t),
        Cell::Blob(b) => Value::SingleQuotedString(String::from_utf8_lossy(&b).into_owned()),
    };
    Expr::value(v)
}

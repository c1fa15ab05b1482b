//! The session's `sql_mode`: the one flag of it that changes what this server does.
//!
//! `NO_AUTO_VALUE_ON_ZERO`: an INSERT's 0 in an `AUTO_INCREMENT` column is stored as given,
//! not counted (`execute/insert_values.rs`; MySQL's `handler::update_auto_increment`,
//! `sql/handler.cc`). `mysqldump` and `mariadb-dump` set it around a dump's rows, so that a row
//! whose id is 0 comes back with id 0 when the dump is loaded.
//!
//! MySQL's other flags choose between ways of checking and reading SQL of which this server has
//! one (strict or not, `ANSI_QUOTES`, `ONLY_FULL_GROUP_BY`, ...): a `SET` of them is accepted
//! and they are not kept, so `@@sql_mode` says what the server does. A value that is not a
//! string, `DEFAULT` or a `@user` variable holding a string (`CONCAT(@@sql_mode, ...)`) leaves
//! the flag as it was.

use std::fmt;

use sqlparser::ast::{Expr, Set, Value};

use crate::session_values::SessionValues;
use crate::wire::Cell;

/// The flags of `sql_mode` this server keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SqlMode {
    /// `NO_AUTO_VALUE_ON_ZERO`.
    pub no_auto_value_on_zero: bool,
}

impl SqlMode {
    /// The kept flags of a comma-separated list of MySQL's (any case, spaces around).
    pub fn parse(text: &str) -> SqlMode {
        let has = |flag: &str| text.split(',').any(|f| f.trim().eq_ignore_ascii_case(flag));
        SqlMode {
            no_auto_value_on_zero: has("NO_AUTO_VALUE_ON_ZERO"),
        }
    }
}

impl fmt::Display for SqlMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.no_auto_value_on_zero {
            true => "NO_AUTO_VALUE_ON_ZERO",
            false => "",
        })
    }
}

/// The `sql_mode` a `SET` gives the session (the last of its `sql_mode` items with a value of
/// a form the module docs list), if any; `GLOBAL` items are accepted and not kept.
pub fn assigned(set: &Set, values: &SessionValues) -> Option<SqlMode> {
    let mut mode = None;
    for (name, global, value) in crate::admin::set_items(set) {
        if global || name != "sql_mode" {
            continue;
        }
        let text = match value {
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s.clone()),
                _ => None,
            },
            Expr::Identifier(i)
                if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT") =>
            {
                Some(String::new())
            }
            Expr::Identifier(i) if i.value.starts_with('@') && !i.value.starts_with("@@") => {
                match values.user_var(&i.value) {
                    Cell::Text(s) => Some(s),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(text) = text {
            mode = Some(SqlMode::parse(&text));
        }
    }
    mode
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(sql: &str, values: &SessionValues) -> Option<SqlMode> {
        match mdl_sql::parse_prepared(sql).unwrap().remove(0).statement {
            mdl_sql::Statement::Sql { statement, .. } => match *statement {
                sqlparser::ast::Statement::Set(s) => assigned(&s, values),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_no_auto_value_on_zero_is_kept() {
        let mut v = SessionValues::default();
        let zero_kept = SqlMode {
            no_auto_value_on_zero: true,
        };
        let on = Some(zero_kept);
        assert_eq!(set("SET SQL_MODE='NO_AUTO_VALUE_ON_ZERO'", &v), on);
        assert_eq!(
            set(
                "SET sql_mode = 'STRICT_TRANS_TABLES, no_auto_value_on_zero'",
                &v
            ),
            on
        );
        assert_eq!(
            set("SET @@session.sql_mode = 'ANSI_QUOTES'", &v),
            Some(SqlMode::default())
        );
        assert_eq!(set("SET sql_mode = DEFAULT", &v), Some(SqlMode::default()));
        assert_eq!(
            set("SET GLOBAL sql_mode = 'NO_AUTO_VALUE_ON_ZERO'", &v),
            None
        );
        assert_eq!(set("SET sql_mode = CONCAT(@@sql_mode, ',X')", &v), None);
        // mysqldump's ending: `SET SQL_MODE=@OLD_SQL_MODE`.
        v.set_user_var("@OLD_SQL_MODE", Cell::Text(String::new()));
        assert_eq!(
            set("SET SQL_MODE=@OLD_SQL_MODE", &v),
            Some(SqlMode::default())
        );
        assert_eq!(zero_kept.to_string(), "NO_AUTO_VALUE_ON_ZERO");
    }
}

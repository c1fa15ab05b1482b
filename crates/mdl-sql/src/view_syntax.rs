//! MySQL's view statements in the form sqlparser 0.64 parses.
//!
//! sqlparser reads MySQL's `CREATE [OR REPLACE] [ALGORITHM = a] [DEFINER = u] [SQL SECURITY
//! s] VIEW v [(cols)] AS select` (with [`CreateViewParams`](sqlparser::ast::CreateViewParams)),
//! but not the statement's last clause, `WITH [CASCADED | LOCAL] CHECK OPTION`, nor `ALTER`
//! with the same options (`sql/sql_yacc.yy`: `view_or_trigger_or_sp_or_event` and
//! `alter_view_stmt` share `view_tail`, `view_check_option`). Both are rewritten here: the
//! clause goes into [`Modifiers::view_check`], and `ALTER ... VIEW` is read as `CREATE ...
//! VIEW` with [`Modifiers::alter_view`] set (MySQL's `enum_view_create_mode::VIEW_ALTER`).

use sqlparser::tokenizer::TokenWithSpan;

use crate::parse::{is_kw, Modifiers};

/// A view's `WITH ... CHECK OPTION` (MySQL's `VIEW_CHECK_CASCADED` / `VIEW_CHECK_LOCAL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewCheckOption {
    /// `WITH CHECK OPTION` or `WITH CASCADED CHECK OPTION`.
    Cascaded,
    /// `WITH LOCAL CHECK OPTION`.
    Local,
}

impl ViewCheckOption {
    /// As `information_schema.VIEWS.CHECK_OPTION` shows it.
    pub fn sql_name(self) -> &'static str {
        match self {
            ViewCheckOption::Cascaded => "CASCADED",
            ViewCheckOption::Local => "LOCAL",
        }
    }
}

/// The rewrites of the module docs, if `t` is a `CREATE ... VIEW` or `ALTER ... VIEW`.
pub(crate) fn respell(t: &mut Vec<TokenWithSpan>, m: &mut Modifiers) {
    let Some(view_at) = view_keyword(t) else {
        return;
    };
    if is_kw(&t[0], "ALTER") {
        let create = TokenWithSpan::new(
            sqlparser::tokenizer::Token::make_keyword("CREATE"),
            t[0].span,
        );
        t[0] = create;
        m.alter_view = true;
    }
    let n = t.len();
    let ends_with = |words: &[&str]| {
        n >= view_at + words.len()
            && t[n - words.len()..]
                .iter()
                .zip(words)
                .all(|(x, w)| is_kw(x, w))
    };
    let (check, len) = if ends_with(&["WITH", "CASCADED", "CHECK", "OPTION"]) {
        (ViewCheckOption::Cascaded, 4)
    } else if ends_with(&["WITH", "LOCAL", "CHECK", "OPTION"]) {
        (ViewCheckOption::Local, 4)
    } else if ends_with(&["WITH", "CHECK", "OPTION"]) {
        (ViewCheckOption::Cascaded, 3)
    } else {
        return;
    };
    t.truncate(n - len);
    m.view_check = Some(check);
}

/// Where `VIEW` is in `CREATE [OR REPLACE] [view options] VIEW` or `ALTER [view options]
/// VIEW`: the options are `ALGORITHM = x`, `DEFINER = user` and `SQL SECURITY x`, so the
/// keyword comes before the first `AS` and after a first word that only they start with.
fn view_keyword(t: &[TokenWithSpan]) -> Option<usize> {
    let first = t.first()?;
    let second = t.get(1)?;
    let opens_view = ["ALGORITHM", "DEFINER", "SQL", "VIEW"];
    let ok = if is_kw(first, "ALTER") {
        opens_view.iter().any(|w| is_kw(second, w))
    } else if is_kw(first, "CREATE") {
        opens_view.iter().any(|w| is_kw(second, w)) || is_kw(second, "OR")
    } else {
        false
    };
    if !ok {
        return None;
    }
    t.iter()
        .take_while(|x| !is_kw(x, "AS"))
        .position(|x| is_kw(x, "VIEW"))
}

#[cfg(test)]
mod tests {
    use crate::{parse, Statement, ViewCheckOption};

    fn modifiers(sql: &str) -> crate::Modifiers {
        match &parse(sql).unwrap()[0].statement {
            Statement::Sql { modifiers, .. } => *modifiers,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn check_option_and_alter_are_read() {
        let m = modifiers("CREATE VIEW v AS SELECT a FROM t WITH CHECK OPTION");
        assert_eq!(m.view_check, Some(ViewCheckOption::Cascaded));
        assert!(!m.alter_view);
        let m = modifiers("ALTER ALGORITHM=MERGE DEFINER=`root`@`%` SQL SECURITY INVOKER VIEW v (x) AS SELECT 3 WITH LOCAL CHECK OPTION");
        assert_eq!(m.view_check, Some(ViewCheckOption::Local));
        assert!(m.alter_view);
        let m = modifiers("ALTER VIEW v AS SELECT 1");
        assert!(m.alter_view);
        let m = modifiers("CREATE OR REPLACE VIEW v AS SELECT 1 WITH CASCADED CHECK OPTION");
        assert_eq!(m.view_check, Some(ViewCheckOption::Cascaded));
    }

    #[test]
    fn other_statements_are_left_alone() {
        assert!(parse("ALTER TABLE t ADD COLUMN c INT").is_ok());
        // A table named `view`-like words and a CTE's WITH are not touched.
        let m = modifiers("CREATE TABLE t2 AS SELECT 1 AS a");
        assert_eq!((m.view_check, m.alter_view), (None, false));
        assert!(parse("CREATE VIEW v AS SELECT 1 WITH OPTION").is_err());
    }
}

//! `GROUP_CONCAT` in SQLite's terms (the parent module's docs say how and what differs).

use sqlparser::ast::{
    DuplicateTreatment, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentClause,
    FunctionArgumentList, FunctionArguments, Ident, ObjectName, ObjectNamePart, Value,
};

use super::{arg, call, empty_list, text};
use crate::error::ServerError;

/// The escapes of `GROUP_CONCAT(DISTINCT ...)` with a separator or several values (module docs).
const ESC: &str = "\u{1}";
const ESC_ESC: &str = "\u{1}\u{2}";
const ESC_COMMA: &str = "\u{1}\u{3}";
const ESC_NEXT: &str = "\u{1}\u{4}";

/// `GROUP_CONCAT([DISTINCT] a [, b ...] [ORDER BY ...] [SEPARATOR s])` in SQLite's terms.
pub(super) fn group_concat_call(
    list: &mut FunctionArgumentList,
) -> Result<Option<Expr>, ServerError> {
    let sep_at =
        (list.clauses.iter()).position(|c| matches!(c, FunctionArgumentClause::Separator(_)));
    if (sep_at.is_none() && list.args.len() <= 1) || list.args.is_empty() {
        return Ok(None);
    }
    let sep = match sep_at.map(|i| &list.clauses[i]) {
        Some(FunctionArgumentClause::Separator(v)) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s.clone()),
            _ => return Ok(None),
        },
        _ => None,
    };
    if !(list.args.iter()).all(|a| matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Expr(_)))) {
        return Ok(None);
    }
    if let Some(i) = sep_at {
        list.clauses.remove(i);
    }
    let sep = sep.filter(|s| s != ",");
    let mut values: Vec<Expr> = (list.args.drain(..))
        .filter_map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect();
    let several = values.len() > 1;
    let distinct = list.duplicate_treatment == Some(DuplicateTreatment::Distinct);
    if !distinct || (sep.is_none() && !several) {
        let value = if several {
            call("CONCAT", values)
        } else {
            values.remove(0)
        };
        list.args.push(arg(value));
        list.args.extend(sep.map(|s| arg(text(&s))));
        return Ok(None);
    }
    if sep.as_deref().is_some_and(|s| s.contains(ESC)) {
        return Err(ServerError::not_supported(
            "GROUP_CONCAT(DISTINCT ...) with the byte 0x01 in its SEPARATOR",
        ));
    }
    // SQLite's DISTINCT takes one argument: an escaped text, unescaped after (module docs).
    let escaped = |v: Expr| {
        let v = call("replace", vec![v, text(ESC), text(ESC_ESC)]);
        call("replace", vec![v, text(","), text(ESC_COMMA)])
    };
    let value = if several {
        let mut parts = Vec::new();
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                parts.push(text(ESC_NEXT));
            }
            parts.push(escaped(v));
        }
        call("CONCAT", parts)
    } else {
        escaped(values.remove(0))
    };
    list.args.push(arg(value));
    let mut out = Expr::Function(Function {
        name: ObjectName(vec![ObjectNamePart::Identifier(Ident::new("GROUP_CONCAT"))]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(std::mem::replace(list, empty_list())),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    });
    // Each step replaces whole escapes: 0x01 always starts one, and the separator has none.
    if let Some(s) = &sep {
        out = call("replace", vec![out, text(","), text(s)]);
    }
    if several {
        out = call("replace", vec![out, text(ESC_NEXT), text("")]);
    }
    out = call("replace", vec![out, text(ESC_COMMA), text(",")]);
    Ok(Some(call("replace", vec![out, text(ESC_ESC), text(ESC)])))
}

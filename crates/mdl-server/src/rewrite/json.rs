//! JSON columns in SQLite's dialect (see the parent module's docs). SQLite has no JSON type:
//! a `JSON` column keeps its type name (so `SHOW CREATE TABLE` and
//! `information_schema.COLUMNS` say `json`, as MySQL) and gets a check named
//! `mdl_json_<column>` that calls `MDL_JSON_COLUMN(column, 'table.column')`
//! (`functions/json_more.rs`): text that is not JSON is refused with MySQL's error 3140
//! (`Invalid JSON text: "Invalid value." at position 6 in value for column 't1.jdoc'.`, the
//! manual's 11.5 "The JSON Data Type"); NULL is allowed.
//!
//! MySQL stores a JSON value in its binary form and prints it normalized (`{"x": [1, 2]}`
//! for `'{"x":  [1,  2]}'`, members in its key order). Here the text is kept as written and
//! normalized when read: the engine gives a column declared `JSON` in MySQL's text
//! (`engine.rs`, `functions::json_column_text`). On read, because the rewrite does not know
//! a table's column types, while the engine knows a result column's declared type.
//!
//! Passed to a JSON-building function (`JSON_OBJECT('d', doc)`, `JSON_ARRAYAGG(doc)`), a JSON
//! column's value is JSON, as in MySQL, and so is a boolean: the rewrite marks such arguments
//! (`args.rs`, `boolean.rs`).
//!
//! Differs: the check names the table and column as they were when it was written (a
//! `RENAME` leaves the old names in the message until the table is rebuilt); SQLite's NUMERIC
//! affinity of the type name stores a number as a number, so an SQL number is taken where
//! MySQL refuses one ("not a JSON text, may need CAST"); comparisons (`=`, `GROUP BY`) see the
//! stored text, not the JSON value.

pub(in crate::rewrite) mod args;
mod boolean;

use crate::functions::JSON_COLUMN_CHECK;

use super::q_ident;

pub(super) use args::mark as mark_json_arguments;

/// The name of the check of JSON column `c` is this, then `c`.
pub const JSON_CHECK: &str = "mdl_json_";

/// The check of JSON column `column` of `table`, to follow its type.
pub(super) fn column_check(table: &str, column: &str) -> String {
    let named = format!("{table}.{column}").replace('\'', "''");
    format!(
        " CONSTRAINT {} CHECK ({JSON_COLUMN_CHECK}({}, '{named}'))",
        q_ident(&format!("{JSON_CHECK}{column}")),
        q_ident(column)
    )
}

/// Whether a table's SQLite definition `sql` has a check other than its JSON columns' own,
/// which a rebuild writes again from the column's type (`execute/rebuild.rs`).
pub fn has_other_checks(sql: &str) -> bool {
    let upper = sql.to_ascii_uppercase();
    let checks = upper.matches(" CHECK (").count() + upper.matches(" CHECK(").count();
    let ours = upper
        .matches(&format!(" CHECK ({JSON_COLUMN_CHECK}("))
        .count();
    // A type's limits, written again from the type too (`ddl.rs`).
    let limits = [super::RANGE_CHECK, super::LENGTH_CHECK].map(|c| {
        upper
            .matches(&format!("CONSTRAINT `{}", c.to_ascii_uppercase()))
            .count()
    });
    checks > ours + limits.iter().sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_columns_are_checked() {
        let check = column_check("t'1", "j");
        assert_eq!(
            check,
            " CONSTRAINT `mdl_json_j` CHECK (MDL_JSON_COLUMN(`j`, 't''1.j'))"
        );
        let sql = format!("CREATE TABLE t (j JSON{check})");
        assert!(!has_other_checks(&sql));
        assert!(has_other_checks(&format!("{sql}, CHECK (1)")));
        // A type's limits are written again from the type, as a JSON column's check.
        let limits = "CREATE TABLE t (i INT CONSTRAINT `mdl_range_i` CHECK (typeof(`i`) NOT IN \
                      ('integer', 'real') OR `i` BETWEEN 0 AND 9), s CHAR(1) CONSTRAINT \
                      `mdl_length_s` CHECK (substr(`s`, 2) IN ('', x'')))";
        assert!(!has_other_checks(limits));
        assert!(has_other_checks(&format!("{limits}, CHECK (i > 0)")));
    }
}

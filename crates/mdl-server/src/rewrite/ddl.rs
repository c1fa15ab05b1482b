//! `CREATE TABLE`, `CREATE INDEX` and `ALTER TABLE` in SQLite's dialect (see the parent
//! module's docs): column types and options SQLite keeps, inline keys as indexes (an unnamed one
//! named after its first column, as MySQL names it), index names per schema, a key on a column
//! prefix on the whole column (SQLite has no prefix index; a unique one is refused, 1235).
//! `CREATE TABLE ... LIKE` and `CREATE TABLE ... SELECT` are written by the executor, from what
//! the engine holds under the statement's locks (`execute/create_from.rs`).
//!
//! `ALTER TABLE` runs as one SQLite statement per operation (SQLite's `ALTER TABLE` takes one;
//! the executor runs a DDL's statements in one savepoint, so all of them apply or none):
//! `ADD [COLUMN]`, `DROP [COLUMN]`, `RENAME COLUMN`, `RENAME [TO | AS]` are SQLite's own; `ADD
//! {INDEX | KEY | UNIQUE}` is a `CREATE [UNIQUE] INDEX` (unnamed: named after its first column,
//! as MySQL names it) and `DROP {INDEX | KEY}` a `DROP INDEX`; `ALGORITHM=` and `LOCK=` ask for
//! nothing SQLite can change, and a `FULLTEXT` key is not kept (as in `CREATE TABLE`). A
//! `FOREIGN KEY` of `CREATE TABLE` is kept in SQLite's definition, with the index MySQL gives
//! the child (`foreign_keys.rs`). What SQLite cannot do without rebuilding the table
//! (`MODIFY`, `CHANGE`, `ALTER COLUMN`, a primary key added or dropped, a column placed `FIRST`
//! or `AFTER` another, a foreign key added or dropped: SQLite keeps a foreign key in the
//! table's definition only) is left to the executor, which rebuilds the table under the
//! statement's locks (`execute/rebuild.rs`).
//!
//! `ENUM('a', 'b')` and `SET('a', 'b')` columns are `TEXT` (SQLite's type names take numbers
//! only); an `ENUM`'s values are kept by a check named `mdl_enum_<column>`, so another value is
//! refused, as MySQL's strict mode refuses it (1265). Differs: `SHOW CREATE TABLE` says `text`,
//! an `ENUM` sorts by its text (MySQL: by the value's position), and a `SET`'s values are not
//! checked. A `JSON` column's values are kept JSON by a check too (`json.rs`).
//!
//! A default that is a call is written in parentheses, as SQLite takes it (`DEFAULT
//! CURRENT_TIMESTAMP(3)` is `DEFAULT (NOW(3))`); `ON UPDATE CURRENT_TIMESTAMP` is kept by
//! triggers written after the table (`on_update.rs`, which also has MySQL's checks of both), and
//! an `ADD COLUMN` with either rebuilds the table (SQLite adds no column with such a default).

use sqlparser::ast::{
    AlterTable, AlterTableOperation, ColumnDef, ColumnOption, CreateIndex, CreateTable, DataType,
    EnumMember, RenameTableNameKind, TableConstraint,
};

use super::{last, q_ident, split};
use crate::error::ServerError;

fn is_auto_increment(o: &ColumnOption) -> bool {
    matches!(o, ColumnOption::DialectSpecific(toks)
        if toks.iter().any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")))
}

/// MySQL's `SERIAL` type, an alias of `BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE` (the
/// manual's "Numeric Data Type Syntax"; `mysqlslap --auto-generate-sql-add-autoincrement`
/// creates its table with one).
fn is_serial(t: &DataType) -> bool {
    matches!(t, DataType::Custom(name, args)
        if args.is_empty() && name.to_string().eq_ignore_ascii_case("SERIAL"))
}

/// An `AUTO_INCREMENT` integer column, or a `SERIAL` one.
fn counts(col: &ColumnDef) -> bool {
    is_serial(&col.data_type)
        || (is_integer(&col.data_type) && col.options.iter().any(|o| is_auto_increment(&o.option)))
}

/// Whether `k` is a key of `col` alone.
fn one_column_key(k: &[sqlparser::ast::IndexColumn], col: &str) -> bool {
    match k {
        [one] => one
            .column
            .expr
            .to_string()
            .trim_matches('`')
            .eq_ignore_ascii_case(col),
        _ => false,
    }
}

fn is_integer(t: &DataType) -> bool {
    let s = t.to_string().to_ascii_uppercase();
    [
        "INT",
        "BIGINT",
        "SMALLINT",
        "TINYINT",
        "MEDIUMINT",
        "INTEGER",
    ]
    .iter()
    .any(|k| s.starts_with(k))
}

/// The columns of a key. A column prefix (`note(20)`, which MySQL needs to index a TEXT
/// column) indexes the whole column: SQLite has no prefix index. That orders the same rows, but
/// a unique key would then compare whole values where MySQL compares prefixes, so a unique key on
/// a prefix is refused (1235).
fn index_columns(
    cols: &[sqlparser::ast::IndexColumn],
    unique: bool,
) -> Result<String, ServerError> {
    let mut out = Vec::new();
    for c in cols {
        let e = &c.column.expr;
        match prefix_column(e) {
            Some(_) if unique => {
                return Err(ServerError::not_supported(
                    "a UNIQUE key on a column prefix",
                ))
            }
            Some(column) => out.push(column),
            None => out.push(e.to_string()),
        }
    }
    Ok(out.join(", "))
}

/// The column of a key part that is a column prefix, `col(n)` (which the parser reads as a
/// call).
fn prefix_column(e: &sqlparser::ast::Expr) -> Option<String> {
    use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Value};
    let Expr::Function(f) = e else { return None };
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))]
            if matches!(v.value, Value::Number(..)) && f.name.0.len() == 1 =>
        {
            Some(f.name.to_string())
        }
        _ => None,
    }
}

/// MySQL's name of the table SQLite keeps as `schema.table` (a temporary table's is its own,
/// not SQLite's `<schema>.<table>`), for a JSON column's error message.
fn shown<'a>(schema: &str, table: &'a str) -> &'a str {
    match schema == crate::temporary::SCHEMA {
        true => table.split_once('.').map_or(table, |(_, t)| t),
        false => table,
    }
}

/// The name of the check that keeps an `ENUM` column `c`'s values is this, then `c`.
pub const ENUM_CHECK: &str = "mdl_enum_";

/// The name of the check that keeps an integer column `c` in its type's range is this, then
/// `c` (`error.rs` reports its failure as MySQL's strict mode does: 1264).
pub const RANGE_CHECK: &str = "mdl_range_";

/// The name of the check that keeps a character column `c` within its length is this, then
/// `c` (1406).
pub const LENGTH_CHECK: &str = "mdl_length_";

/// The check that keeps column `name` (quoted) of type `ty` within what MySQL's strict mode
/// stores in it: an integer type's range (a number outside it is `ER_WARN_DATA_OUT_OF_RANGE`,
/// 1264) and a `CHAR(n)` / `VARCHAR(n)`'s length in characters (`ER_DATA_TOO_LONG`, 1406), which
/// SQLite's affinities do not keep. A text the integer affinity could not read is left to the
/// statement's own checks.
fn limit_check(column: &str, name: &str, ty: &DataType) -> Option<String> {
    use sqlparser::ast::CharacterLength as L;
    use DataType as T;
    let range = match ty {
        T::TinyInt(_) => Some(("-128", "127")),
        T::TinyIntUnsigned(_) => Some(("0", "255")),
        T::SmallInt(_) => Some(("-32768", "32767")),
        T::SmallIntUnsigned(_) => Some(("0", "65535")),
        T::MediumInt(_) => Some(("-8388608", "8388607")),
        T::MediumIntUnsigned(_) => Some(("0", "16777215")),
        T::Int(_) | T::Integer(_) => Some(("-2147483648", "2147483647")),
        T::IntUnsigned(_) | T::IntegerUnsigned(_) | T::UnsignedInteger => Some(("0", "4294967295")),
        // Above 2^63 - 1 SQLite keeps a REAL, which compares with the bound as a number.
        T::BigIntUnsigned(_) => Some(("0", "18446744073709551615")),
        _ => None,
    };
    if let Some((low, high)) = range {
        let check = q_ident(&format!("{RANGE_CHECK}{column}"));
        return Some(format!(
            " CONSTRAINT {check} CHECK (typeof({name}) NOT IN ('integer', 'real') \
             OR {name} BETWEEN {low} AND {high})"
        ));
    }
    let length = match ty {
        T::Char(Some(L::IntegerLength { length, .. }))
        | T::Character(Some(L::IntegerLength { length, .. }))
        | T::Varchar(Some(L::IntegerLength { length, .. }))
        | T::CharacterVarying(Some(L::IntegerLength { length, .. }))
        | T::Nvarchar(Some(L::IntegerLength { length, .. })) => *length,
        _ => return None,
    };
    let check = q_ident(&format!("{LENGTH_CHECK}{column}"));
    // Nothing past the length, in characters (`substr`'s unit for a text; `LENGTH` is MySQL's
    // byte count here, `functions/string.rs`).
    let past = length.saturating_add(1);
    Some(format!(
        " CONSTRAINT {check} CHECK (substr({name}, {past}) IN ('', x''))"
    ))
}

/// `CREATE TABLE` for SQLite (see the module docs).
pub(super) fn create_table(c: &CreateTable) -> Result<Vec<String>, ServerError> {
    if c.like.is_some() || c.query.is_some() {
        // The source's definition, or the select's columns, are read under the statement's
        // locks (`execute/create_from.rs`).
        return Ok(Vec::new());
    }
    if c.columns.is_empty() {
        // `mysql_prepare_create_table`, `sql/sql_table.cc`.
        return Err(ServerError::new(
            1113,
            "42000",
            "A table must have at least 1 column",
        ));
    }
    let (schema, table) = split(&c.name);
    let name = format!("{}.{}", q_ident(&schema), q_ident(&table));
    let ine = if c.if_not_exists {
        "IF NOT EXISTS "
    } else {
        ""
    };
    let counted = counted_column(c);
    for col in &c.columns {
        crate::on_update::check(col)?;
    }
    let mut defs: Vec<String> = (c.columns.iter())
        .map(|col| {
            column_def(
                shown(&schema, &table),
                col,
                counted == Some(col.name.value.as_str()),
            )
        })
        .collect();
    let mut after = Vec::new();
    let mut names: Vec<String> = c
        .constraints
        .iter()
        .filter_map(|k| match k {
            TableConstraint::Index(i) => i.name.as_ref().map(|n| n.value.clone()),
            TableConstraint::Unique(u) => {
                (u.index_name.as_ref().or(u.name.as_ref())).map(|n| n.value.clone())
            }
            _ => None,
        })
        .collect();
    for k in &c.constraints {
        match k {
            // The counted column is the primary key, declared on the column (SQLite takes
            // AUTOINCREMENT there only).
            TableConstraint::PrimaryKey(_) if counted.is_some() => {}
            // The counted column's own unique key is its primary key now.
            TableConstraint::Unique(u)
                if counted.is_some_and(|col| one_column_key(&u.columns, col)) => {}
            TableConstraint::PrimaryKey(p) => defs.push(format!(
                "PRIMARY KEY ({})",
                index_columns(&p.columns, true)?
            )),
            // A named unique key keeps its name (`t__name`, as any index here); an unnamed one
            // is SQLite's autoindex, which the catalog names after its first column, as MySQL.
            TableConstraint::Unique(u) => match u.index_name.as_ref().or(u.name.as_ref()) {
                Some(n) => after.push(format!(
                    "CREATE UNIQUE INDEX {ine}{}.{} ON {} ({})",
                    q_ident(&schema),
                    q_ident(&format!("{table}__{}", n.value)),
                    q_ident(&table),
                    index_columns(&u.columns, true)?
                )),
                None => defs.push(format!("UNIQUE ({})", index_columns(&u.columns, true)?)),
            },
            TableConstraint::Check(ch) => defs.push(ch.to_string()),
            TableConstraint::Index(i) => {
                // An unnamed key is named after its first column, `_2`, `_3`, ... when that
                // name is taken, as MySQL names it.
                let idx = match &i.name {
                    Some(n) => n.value.clone(),
                    None => {
                        let first = (i.columns.first()).map_or_else(String::new, |c| {
                            let e = &c.column.expr;
                            prefix_column(e).unwrap_or_else(|| e.to_string())
                        });
                        let first = first.trim_matches('`').to_string();
                        (std::iter::once(first.clone()))
                            .chain((2..).map(|k| format!("{first}_{k}")))
                            .find(|n| !names.contains(n))
                            .unwrap_or_default()
                    }
                };
                names.push(idx.clone());
                after.push(format!(
                    "CREATE INDEX {ine}{}.{} ON {} ({})",
                    q_ident(&schema),
                    q_ident(&format!("{table}__{idx}")),
                    q_ident(&table),
                    index_columns(&i.columns, false)?
                ));
            }
            _ => {} // foreign keys (below) and full-text indexes (not kept)
        }
    }
    // Foreign keys, and the index MySQL gives the child's columns (`foreign_keys.rs`).
    let fks = crate::foreign_keys::foreign_key_sql(c, &schema, &table)?;
    defs.extend(fks.constraints);
    for (idx, cols) in fks.indexes {
        let cols: Vec<String> = cols.iter().map(|c| q_ident(c)).collect();
        after.push(format!(
            "CREATE INDEX {ine}{}.{} ON {} ({})",
            q_ident(&schema),
            q_ident(&format!("{table}__{idx}")),
            q_ident(&table),
            cols.join(", ")
        ));
    }
    let mut out = vec![format!("CREATE TABLE {ine}{name} ({})", defs.join(", "))];
    out.extend(after);
    // `ON UPDATE CURRENT_TIMESTAMP`'s triggers (`on_update.rs`).
    out.extend(crate::on_update::of_definition(&schema, &table, &c.columns));
    // `AUTO_INCREMENT = N`: the counter starts at N (SQLite's is the last value given).
    if let (Some(_), Some(n)) = (counted, start_value(c)) {
        let seq = format!("{}.sqlite_sequence", q_ident(&schema));
        let quoted = format!("'{}'", table.replace('\'', "''"));
        out.push(format!(
            "INSERT INTO {seq} (name, seq) SELECT {quoted}, {} \
             WHERE NOT EXISTS (SELECT 1 FROM {seq} WHERE name = {quoted})",
            n.saturating_sub(1)
        ));
    }
    Ok(out)
}

/// The column that counts by itself: an `AUTO_INCREMENT` integer (or `SERIAL`) that is the
/// whole primary key (on the column or as a one-column `PRIMARY KEY`), or, in a table without
/// a primary key, a unique key of its own (`SERIAL`'s `UNIQUE`; InnoDB then clusters the rows
/// by it, and `DESCRIBE` calls it `PRI`) or the first column of a plain key (sysbench's
/// `--secondary`: `KEY xid (id)`, which MySQL accepts for an `AUTO_INCREMENT` column; here the
/// column is the rowid all the same, so an explicit value given twice is 1062 where InnoDB
/// keeps both, and `DESCRIBE` calls it `PRI`): SQLite's `INTEGER PRIMARY KEY AUTOINCREMENT`. Its
/// counter (`sqlite_sequence`) is never lowered by a delete and never gives a value twice, as
/// InnoDB's has been since MySQL 8.0 (persisted, WL#6204), where a rowid alias alone would give
/// the largest value again once that row is deleted.
fn counted_column(c: &CreateTable) -> Option<&str> {
    let auto = c.columns.iter().find(|col| counts(col))?;
    let name = auto.name.value.as_str();
    let has = |f: fn(&ColumnOption) -> bool| auto.options.iter().any(|o| f(&o.option));
    let pk_inline = has(|o| matches!(o, ColumnOption::PrimaryKey(_)));
    let pk_constraint = |col: &str| {
        c.constraints.iter().any(|k| match k {
            TableConstraint::PrimaryKey(p) => one_column_key(&p.columns, col),
            _ => false,
        })
    };
    if pk_inline || pk_constraint(name) {
        return Some(name);
    }
    let no_primary_key = !c
        .constraints
        .iter()
        .any(|k| matches!(k, TableConstraint::PrimaryKey(_)))
        && !(c.columns.iter().flat_map(|col| &col.options))
            .any(|o| matches!(o.option, ColumnOption::PrimaryKey(_)));
    let keyed = is_serial(&auto.data_type)
        || has(|o| matches!(o, ColumnOption::Unique(_)))
        || unique_constraint(c, name)
        || c.constraints.iter().any(|k| match k {
            TableConstraint::Index(i) => i
                .columns
                .first()
                .is_some_and(|first| one_column_key(std::slice::from_ref(first), name)),
            _ => false,
        });
    (no_primary_key && keyed).then_some(name)
}

/// Whether `c` has a one-column `UNIQUE` key on `col`.
fn unique_constraint(c: &CreateTable, col: &str) -> bool {
    c.constraints.iter().any(|k| match k {
        TableConstraint::Unique(u) => one_column_key(&u.columns, col),
        _ => false,
    })
}

/// The `AUTO_INCREMENT = N` table option, if above 1 (the counter's first value).
fn start_value(c: &CreateTable) -> Option<u64> {
    use sqlparser::ast::{CreateTableOptions, Expr, SqlOption, Value};
    let (CreateTableOptions::Plain(options) | CreateTableOptions::With(options)) = &c.table_options
    else {
        return None;
    };
    options.iter().find_map(|o| match o {
        SqlOption::KeyValue {
            key,
            value: Expr::Value(v),
        } if key.to_string().eq_ignore_ascii_case("AUTO_INCREMENT") => match &v.value {
            Value::Number(n, _) => n.parse::<u64>().ok().filter(|n| *n > 1),
            _ => None,
        },
        _ => None,
    })
}

/// A column's definition for SQLite: its type (`INTEGER` for an `AUTO_INCREMENT` integer, the
/// rowid) and the options SQLite keeps; `counted`: the table's counted column
/// ([`counted_column`]), its primary key; `table`: the table's name, for a JSON column's check.
fn column_def(table: &str, col: &ColumnDef, counted: bool) -> String {
    let auto = col.options.iter().any(|o| is_auto_increment(&o.option));
    let name = q_ident(&col.name.value);
    let mut check = None;
    let serial = is_serial(&col.data_type);
    let ty = match &col.data_type {
        ty if counted || (auto && is_integer(ty)) => "INTEGER".to_string(),
        _ if serial => "BIGINT UNSIGNED NOT NULL UNIQUE".to_string(),
        // SQLite's type names take numbers only: ENUM and SET are text, an ENUM's values kept
        // by a named check (`error.rs` reports its failure as MySQL's 1265).
        DataType::Enum(members, _) => {
            let values: Vec<String> = (members.iter())
                .map(|m| match m {
                    EnumMember::Name(v) | EnumMember::NamedValue(v, _) => {
                        format!("'{}'", v.replace('\'', "''"))
                    }
                })
                .collect();
            check = Some(format!(
                " CONSTRAINT {} CHECK ({name} IN ({}))",
                q_ident(&format!("{ENUM_CHECK}{}", col.name.value)),
                values.join(", ")
            ));
            "TEXT".to_string()
        }
        DataType::Set(_) => "TEXT".to_string(),
        DataType::JSON => {
            check = Some(super::json::column_check(table, &col.name.value));
            "JSON".to_string()
        }
        // Binary strings keep strings, and numbers as strings (`catalog::STRING_AFFINITY`).
        DataType::Binary(_)
        | DataType::Varbinary(_)
        | DataType::Blob(_)
        | DataType::TinyBlob
        | DataType::MediumBlob
        | DataType::LongBlob => {
            format!("{}{}", crate::catalog::STRING_AFFINITY, col.data_type)
        }
        ty => {
            check = limit_check(&col.name.value, &name, ty);
            ty.to_string()
        }
    };
    let mut d = format!("{name} {ty}");
    d.extend(check);
    for o in &col.options {
        match &o.option {
            ColumnOption::Null | ColumnOption::NotNull | ColumnOption::Check(_) => {
                d.push_str(&format!(" {}", o.option))
            }
            // A call in parentheses, as SQLite takes it (`on_update.rs`).
            ColumnOption::Default(e) => {
                d.push_str(&format!(" DEFAULT {}", crate::on_update::default_sql(e)))
            }
            ColumnOption::PrimaryKey(_) | ColumnOption::Unique(_) if counted => {}
            ColumnOption::PrimaryKey(_) => d.push_str(" PRIMARY KEY"),
            ColumnOption::Unique(_) => d.push_str(" UNIQUE"),
            _ => {}
        }
    }
    if counted {
        if serial {
            d.push_str(" NOT NULL");
        }
        d.push_str(" PRIMARY KEY AUTOINCREMENT");
    }
    d
}

/// Whether an `ALTER TABLE` has an operation SQLite cannot do in place (`MODIFY`, `CHANGE`,
/// `ALTER COLUMN`, `FIRST` / `AFTER`, a primary key added or dropped): the statement rebuilds
/// the table under its locks (`execute/rebuild.rs`).
pub fn needs_rebuild(a: &AlterTable) -> bool {
    use AlterTableOperation as Op;
    a.operations.iter().any(|op| match op {
        Op::ModifyColumn { .. }
        | Op::ChangeColumn { .. }
        | Op::AlterColumn { .. }
        | Op::DropPrimaryKey { .. } => true,
        // SQLite adds no column whose default is a call (`CURRENT_TIMESTAMP`), and one
        // auto-updated has triggers made with the table (`on_update.rs`).
        Op::AddColumn {
            column_position,
            column_def,
            ..
        } => {
            column_position.is_some()
                || column_def.options.iter().any(|o| match &o.option {
                    ColumnOption::Default(e) => matches!(e, sqlparser::ast::Expr::Function(_)),
                    ColumnOption::OnUpdate(_) => true,
                    _ => false,
                })
        }
        Op::AddConstraint { constraint, .. } => {
            matches!(
                constraint,
                TableConstraint::PrimaryKey(_) | TableConstraint::ForeignKey(_)
            )
        }
        Op::DropIndex { name } => name.value.eq_ignore_ascii_case("PRIMARY"),
        // SQLite keeps a foreign key in the table's definition only.
        Op::DropForeignKey { .. } => true,
        _ => false,
    })
}

/// `ALTER TABLE` for SQLite: a statement per operation (see the module docs); none for one
/// the executor rebuilds ([`needs_rebuild`]).
pub(super) fn alter_table(a: &AlterTable) -> Result<Vec<String>, ServerError> {
    use AlterTableOperation as Op;
    if needs_rebuild(a) {
        return Ok(Vec::new());
    }
    let (schema, table) = split(&a.name);
    let target = format!("{}.{}", q_ident(&schema), q_ident(&table));
    let refuse = |what: &str| {
        Err(ServerError::not_supported(&format!(
            "ALTER TABLE ... {what}"
        )))
    };
    let mut out = Vec::new();
    for op in &a.operations {
        match op {
            Op::AddColumn {
                column_def: c,
                column_position: None,
                ..
            } => {
                crate::on_update::check(c)?;
                out.push(format!(
                    "ALTER TABLE {target} ADD COLUMN {}",
                    column_def(shown(&schema, &table), c, false)
                ))
            }
            Op::AddColumn { .. } => return refuse("ADD COLUMN ... FIRST | AFTER"),
            Op::DropColumn {
                column_names,
                if_exists: false,
                ..
            } => out.extend(
                (column_names.iter())
                    .map(|c| format!("ALTER TABLE {target} DROP COLUMN {}", q_ident(&c.value))),
            ),
            Op::RenameColumn {
                old_column_name,
                new_column_name,
            } => out.push(format!(
                "ALTER TABLE {target} RENAME COLUMN {} TO {}",
                q_ident(&old_column_name.value),
                q_ident(&new_column_name.value)
            )),
            Op::RenameTable {
                table_name: RenameTableNameKind::To(n) | RenameTableNameKind::As(n),
            } => {
                let (to_schema, new) = split(n);
                if !to_schema.is_empty() && to_schema != schema {
                    return refuse("RENAME to another schema");
                }
                out.push(format!("ALTER TABLE {target} RENAME TO {}", q_ident(&new)));
            }
            Op::AddConstraint { constraint, .. } => match constraint {
                TableConstraint::Index(i) => out.push(index_sql(
                    &schema,
                    &table,
                    false,
                    i.name.as_ref().map(|n| n.value.as_str()),
                    &i.columns,
                )?),
                TableConstraint::Unique(u) => out.push(index_sql(
                    &schema,
                    &table,
                    true,
                    (u.index_name.as_ref().or(u.name.as_ref())).map(|n| n.value.as_str()),
                    &u.columns,
                )?),
                // Not kept, as in CREATE TABLE (module docs); a foreign key is rebuilt.
                TableConstraint::FulltextOrSpatial(_) => {}
                _ => return refuse("ADD CHECK"),
            },
            Op::DropIndex { name } if !name.value.eq_ignore_ascii_case("PRIMARY") => {
                out.push(format!(
                    "DROP INDEX {}.{}",
                    q_ident(&schema),
                    q_ident(&format!("{table}__{}", name.value))
                ))
            }
            Op::Algorithm { .. } | Op::Lock { .. } => {}
            // The counter is set by the executor, which reads the table's definition
            // (`execute/counter.rs`).
            Op::AutoIncrement { .. } => {}
            other => {
                let what = other.to_string();
                let words = if what.starts_with("DROP PRIMARY") {
                    3
                } else {
                    2
                };
                let verb = what.split(' ').take(words).collect::<Vec<_>>().join(" ");
                return refuse(&verb);
            }
        }
    }
    Ok(out)
}

/// `CREATE [UNIQUE] INDEX` of `ALTER TABLE ... ADD`: an unnamed one is named after its first
/// column.
fn index_sql(
    schema: &str,
    table: &str,
    unique: bool,
    name: Option<&str>,
    cols: &[sqlparser::ast::IndexColumn],
) -> Result<String, ServerError> {
    let first = (cols.first()).map(|c| {
        let e = &c.column.expr;
        prefix_column(e).unwrap_or_else(|| e.to_string())
    });
    let name = name.map(str::to_string).or(first).unwrap_or_default();
    let name = name.trim_matches('`');
    Ok(format!(
        "CREATE {}INDEX {}.{} ON {} ({})",
        if unique { "UNIQUE " } else { "" },
        q_ident(schema),
        q_ident(&format!("{table}__{name}")),
        q_ident(table),
        index_columns(cols, unique)?
    ))
}

/// `CREATE INDEX i ON t (...)` -> `CREATE INDEX schema.t__i ON t (...)`.
pub(super) fn create_index(c: &CreateIndex) -> Result<String, ServerError> {
    let (schema, table) = split(&c.table_name);
    let idx = c
        .name
        .as_ref()
        .map(last)
        .ok_or_else(|| ServerError::parse("CREATE INDEX"))?;
    Ok(format!(
        "CREATE {}INDEX {}{}.{} ON {} ({})",
        if c.unique { "UNIQUE " } else { "" },
        if c.if_not_exists {
            "IF NOT EXISTS "
        } else {
            ""
        },
        q_ident(&schema),
        q_ident(&format!("{table}__{idx}")),
        q_ident(&table),
        index_columns(&c.columns, c.unique)?
    ))
}

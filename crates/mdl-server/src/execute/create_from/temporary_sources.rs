//! The temporary tables a `CREATE TABLE ... SELECT` reads, for the types of its expression
//! columns.
//!
//! MySQL's CREATE ... SELECT opens the session's temporary table of a name before a base
//! table of it (`open_temporary_tables`, `sql/sql_base.cc`; CREATE TABLE has
//! `CF_PREOPEN_TMP_TABLES` in `init_sql_command_flags`, `sql/sql_parse.cc`), so `a + 1` of a
//! temporary `t1`'s `INT` `a` is `bigint`. `view_columns::query_types`, which gives an
//! expression's type, reads the names of a select as a view's, base tables only (a view
//! never reads a temporary table): it would find no `t1`, or the base `t1` the temporary
//! one shadows. So the select it reads names each temporary table as SQLite keeps it,
//! `` `temp`.`<schema>.<table>` `` (`crate::temporary`), called by its own name as the
//! statement's rewrite calls it (`rewrite/temporary.rs`).

use std::ops::ControlFlow;

use sqlparser::ast::{
    Ident, ObjectName, ObjectNamePart, Query, TableAlias, TableFactor, VisitMut, VisitorMut,
};

use crate::engine::EngineConn;

/// `q` with the session's temporary tables named as SQLite keeps them (the module docs);
/// a single-part name of a `WITH` query of `q` is left alone.
pub(super) fn in_temp(db: &mut EngineConn, q: &Query, current: Option<&str>) -> Query {
    let mut q = q.clone();
    let mut ctes = Ctes(Vec::new());
    let _ = q.visit(&mut ctes);
    let mut map = Map {
        db,
        current,
        ctes: ctes.0,
    };
    let _ = q.visit(&mut map);
    q
}

/// Collects the names of the `WITH` queries, lowercase.
struct Ctes(Vec<String>);

impl VisitorMut for Ctes {
    type Break = ();

    fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        if let Some(with) = &q.with {
            (self.0).extend(
                with.cte_tables
                    .iter()
                    .map(|c| c.alias.name.value.to_lowercase()),
            );
        }
        ControlFlow::Continue(())
    }
}

struct Map<'a> {
    db: &'a mut EngineConn,
    current: Option<&'a str>,
    ctes: Vec<String>,
}

impl VisitorMut for Map<'_> {
    type Break = ();

    fn pre_visit_table_factor(&mut self, f: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = f
        else {
            return ControlFlow::Continue(());
        };
        let Ok((schema, table)) = crate::rewrite::table_name(name, self.current) else {
            return ControlFlow::Continue(());
        };
        if name.0.len() == 1 && self.ctes.contains(&table.to_lowercase()) {
            return ControlFlow::Continue(());
        }
        // A failure to look it up leaves the name, as the select's own rewrite would fail.
        let Ok((s, t, true)) = crate::temporary::locate(self.db, &schema, &table) else {
            return ControlFlow::Continue(());
        };
        alias.get_or_insert_with(|| TableAlias {
            explicit: true,
            name: Ident::new(table),
            columns: Vec::new(),
            at: None,
        });
        *name = ObjectName(vec![
            ObjectNamePart::Identifier(Ident::new(s)),
            ObjectNamePart::Identifier(Ident::new(t)),
        ]);
        ControlFlow::Continue(())
    }
}

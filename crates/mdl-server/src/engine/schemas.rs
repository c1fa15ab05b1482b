//! The schemas: the data directory's files, the catalog of them that every connection shares
//! ([`Engine`]'s), and the files each connection has attached ([`EngineConn::refresh`]). Apart
//! from the engine's connections and writer: this is the part that reads and changes the data
//! directory.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{
    engine_err, lock, quote, Engine, EngineConn, EngineCounters, MAX_SCHEMAS, VIEW_SCHEMAS,
};
use crate::error::ServerError;

impl Engine {
    /// Opens `dir` (created if missing): every `*.sqlite` file in it is a schema, and each of
    /// `schemas` is created if missing. A file that cannot be a schema (a name SQLite cannot
    /// attach, see `schema_name.rs`; not a SQLite database; one more than [`MAX_SCHEMAS`]) is
    /// left alone with a warning on stderr: it would fail every connection.
    ///
    /// # Errors
    /// File-system and SQLite errors, as MySQL errors.
    pub fn open(
        dir: PathBuf,
        schemas: &[String],
        write_timeout: Duration,
        busy_timeout: Duration,
    ) -> Result<Engine, ServerError> {
        std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| io_err(&dir, e))? {
            let p = entry.map_err(|e| io_err(&dir, e))?.path();
            if p.extension().is_some_and(|x| x == "sqlite") {
                files.push(p);
            }
        }
        // Of names that differ only in case, the lower-case one is the schema.
        files.sort_by_key(|p| {
            let name = p.file_stem().map(|s| s.to_string_lossy().into_owned());
            let upper = name.as_ref().is_some_and(|n| *n != n.to_lowercase());
            (upper, p.clone())
        });
        let mut catalog = BTreeMap::new();
        for p in files {
            let found = if catalog.len() < MAX_SCHEMAS {
                found_schema(&p, catalog.keys().map(String::as_str))
            } else {
                Err(format!("more than {MAX_SCHEMAS} schemas"))
            };
            match found {
                Ok(name) => {
                    catalog.insert(name, 0);
                }
                Err(why) => eprintln!(
                    "mdl-server: warning: {} is not a schema, left alone: {why}",
                    p.display()
                ),
            }
        }
        let engine = Engine {
            dir,
            catalog: Mutex::new((catalog, 1)),
            writer: Arc::new(tokio::sync::Mutex::new(())),
            write_timeout,
            busy_timeout,
            counters: EngineCounters::default(),
            views: crate::views::ViewCatalog::default(),
            foreign_keys: Default::default(),
        };
        for name in lock(&engine.catalog).0.keys() {
            if let Err(e) = crate::views::load_file(&engine.views, &engine.file(name), name) {
                eprintln!("mdl-server: warning: the views of {name} are not known: {e}");
            }
            if let Err(e) = engine.foreign_keys.load_file(&engine.file(name), name) {
                eprintln!("mdl-server: warning: the foreign keys of {name} are not known: {e}");
            }
        }
        for s in schemas.iter().filter(|s| !s.is_empty()) {
            engine.create_schema(s, true)?;
        }
        Ok(engine)
    }

    fn file(&self, schema: &str) -> PathBuf {
        self.dir.join(format!("{schema}.sqlite"))
    }

    /// The schemas, sorted (the view schemas included).
    pub fn schemas(&self) -> Vec<String> {
        let mut v: Vec<String> = lock(&self.catalog).0.keys().cloned().collect();
        v.extend(VIEW_SCHEMAS.iter().map(|s| s.to_string()));
        v.sort();
        v
    }

    /// Whether `schema` exists.
    pub fn has_schema(&self, schema: &str) -> bool {
        VIEW_SCHEMAS.contains(&schema) || lock(&self.catalog).0.contains_key(schema)
    }

    /// `CREATE DATABASE`: the name is checked (`schema_name.rs`) before any file exists.
    ///
    /// # Errors
    /// 1007 if it exists (unless `if_not_exists`) or differs from an existing schema only in
    /// case, 1102, 1059 or 1044 for a name this server cannot have, 1235 beyond
    /// [`MAX_SCHEMAS`], file errors.
    pub fn create_schema(&self, name: &str, if_not_exists: bool) -> Result<(), ServerError> {
        let mut c = lock(&self.catalog);
        // `information_schema` is refused even then (1044, `check_new`), as in MySQL.
        let exists = c.0.contains_key(name) || VIEW_SCHEMAS.contains(&name);
        if if_not_exists && exists && name != crate::info_schema::SCHEMA {
            return Ok(());
        }
        crate::schema_name::check_new(name, c.0.keys().map(String::as_str))?;
        if c.0.len() >= MAX_SCHEMAS {
            return Err(ServerError::not_supported(&format!(
                "more than {MAX_SCHEMAS} databases (SQLite attaches at most 30 files)"
            )));
        }
        let file = self.file(name);
        let db = rusqlite::Connection::open(&file).map_err(engine_err)?;
        db.pragma_update(None, "journal_mode", "WAL")
            .map_err(engine_err)?;
        drop(db);
        c.1 += 1;
        let generation = c.1;
        c.0.insert(name.to_string(), generation);
        Ok(())
    }

    /// `DROP DATABASE`: the schema leaves the catalog and its files are removed (connections
    /// that still have it attached detach it before their next statement).
    ///
    /// # Errors
    /// 1008 if it does not exist (unless `if_exists`), 1044 for a view schema.
    pub fn drop_schema(&self, name: &str, if_exists: bool) -> Result<(), ServerError> {
        crate::schema_name::check_drop(name)?;
        let mut c = lock(&self.catalog);
        if c.0.remove(name).is_none() {
            if if_exists {
                return Ok(());
            }
            return Err(ServerError::new(
                1008,
                "HY000",
                format!("Can't drop database '{name}'; database doesn't exist"),
            ));
        }
        c.1 += 1;
        self.views.drop_schema(name);
        self.foreign_keys.drop_schema(name);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(self.dir.join(format!("{name}.sqlite{suffix}")));
        }
        Ok(())
    }

    fn version(&self) -> (BTreeMap<String, u64>, u64) {
        lock(&self.catalog).clone()
    }
}

/// The schema file `p` found in the data directory holds, beside `existing`: its name, or
/// why it cannot be one.
fn found_schema<'a>(
    p: &std::path::Path,
    existing: impl IntoIterator<Item = &'a str>,
) -> Result<String, String> {
    let name = p
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or("the name is not UTF-8")?;
    crate::schema_name::check_new(name, existing).map_err(|e| e.message)?;
    let db = rusqlite::Connection::open(p).map_err(|e| e.to_string())?;
    db.query_row("PRAGMA schema_version", [], |r| r.get::<_, i64>(0))
        .map_err(|e| e.to_string())?;
    Ok(name.to_string())
}

fn io_err(p: &std::path::Path, e: std::io::Error) -> ServerError {
    ServerError::new(
        1105,
        "HY000",
        format!("Error on data directory {}: {e}", p.display()),
    )
}

impl EngineConn {
    /// Attaches new schemas and detaches dropped ones (outside a transaction only: SQLite
    /// cannot detach then). A schema SQLite refuses to attach (its file gone or damaged since)
    /// is left out with a warning on stderr, and its statements fail as for a missing table:
    /// one bad file does not fail every statement of every connection.
    pub fn refresh(&mut self) {
        if self.in_txn || self.version == lock(&self.engine.catalog).1 {
            return;
        }
        let (catalog, version) = self.engine.version();
        let stale: Vec<String> = self
            .attached
            .iter()
            .filter(|(s, g)| catalog.get(*s) != Some(g))
            .map(|(s, _)| s.clone())
            .collect();
        for s in stale {
            match self
                .db()
                .execute_batch(&format!("DETACH DATABASE {}", quote(&s)))
            {
                Ok(()) => {
                    self.attached.remove(&s);
                }
                Err(e) => eprintln!("mdl-server: warning: cannot detach schema {s}: {e}"),
            }
        }
        for (s, g) in &catalog {
            if self.attached.contains_key(s) {
                continue;
            }
            let file = self.engine.file(s);
            let path = file.to_string_lossy().replace('\'', "''");
            let q = quote(s);
            let db = self.db();
            match db.execute_batch(&format!("ATTACH DATABASE '{path}' AS {q}")) {
                Ok(()) => {
                    if let Err(e) = db.execute_batch(&format!("PRAGMA {q}.synchronous = NORMAL")) {
                        eprintln!("mdl-server: warning: schema {s}: {e}");
                    }
                    self.attached.insert(s.clone(), *g);
                }
                Err(e) => eprintln!("mdl-server: warning: cannot attach schema {s}: {e}"),
            }
        }
        self.version = version;
    }

    /// Whether `schema`'s current file is attached to this connection: a schema another
    /// connection made or dropped since this one's last [`EngineConn::refresh`] is not.
    pub fn is_attached(&self, schema: &str) -> bool {
        let current = lock(&self.engine.catalog).0.get(schema).copied();
        current.is_some() && self.attached.get(schema).copied() == current
    }
}

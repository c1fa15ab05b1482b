//! `serde` (feature `serde`): the diagnostics serialize as the `pfs` rows do, with MySQL's names.
//!
//! Structs and the enums of `blocking` and `error` derive `Serialize`; the names that appear in
//! them serialize as MySQL writes them in `performance_schema` — a namespace as its
//! `OBJECT_TYPE` (`"TABLE"`), a lock type as its `LOCK_TYPE` (`"SHARED_READ"`), a duration as
//! its `LOCK_DURATION` (`"TRANSACTION"`), a context id as its number — and a key as an object
//! with its parts, so a server can export who blocks whom and the deadlock history as JSON
//! next to its `pfs` tables. Serialization only: a key read back would have to be validated,
//! which [`MdlKey::new`] does.

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::key::MdlKey;
use crate::types::{ContextId, KillScope, LockDuration, LockType, Namespace};

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Namespace {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.object_type_name())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for LockType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.pfs_name())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for LockDuration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.pfs_name())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for KillScope {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            KillScope::Query => "QUERY",
            KillScope::Connection => "CONNECTION",
        })
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for ContextId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

/// `{"namespace": "TABLE", "schema": "test", "name": "t1"}`, plus `"column"` where the
/// namespace has one.
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for MdlKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let column = self.column();
        let mut st = s.serialize_struct("MdlKey", 3 + usize::from(column.is_some()))?;
        st.serialize_field("namespace", &self.namespace())?;
        st.serialize_field("schema", self.schema())?;
        st.serialize_field("name", self.name())?;
        if let Some(c) = column {
            st.serialize_field("column", c)?;
        }
        st.end()
    }
}

//! Namespaces, lock types and durations, with the per-namespace facts MySQL 8.0 attaches to them.

/// Declares a C-like enum whose variants carry MySQL's numeric ids, 0, 1, 2, ... in declaration
/// order, with `ALL` (every variant, in id order), `from_id` and `id`.
macro_rules! with_mysql_ids {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $id:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[repr(u8)]
        pub enum $name {
            $( $(#[$vmeta])* $variant = $id, )*
        }

        impl $name {
            #[doc = concat!("Every `", stringify!($name), "`, in id order.")]
            pub const ALL: [$name; [$($id),*].len()] = [$($name::$variant),*];

            #[doc = concat!("The `", stringify!($name), "` with MySQL id `id`, if there is one.")]
            pub fn from_id(id: u8) -> Option<$name> {
                $name::ALL.get(id as usize).copied()
            }

            /// MySQL's numeric id.
            pub fn id(self) -> u8 {
                self as u8
            }
        }

        // `from_id` indexes `ALL`: the ids are the positions.
        const _: () = {
            let mut i = 0;
            while i < $name::ALL.len() {
                assert!($name::ALL[i] as usize == i, "ids are 0, 1, 2, ... in order");
                i += 1;
            }
        };
    };
}

/// How a namespace resolves conflicts: scoped locks (IX, S, X only) guard a whole scope such as
/// the global read lock or a schema; object locks (every type but IX) guard one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Strategy {
    /// IX / S / X on a scope (GLOBAL, SCHEMA, COMMIT, ...).
    Scoped,
    /// S ... X on an object (TABLE, FUNCTION, ...).
    Object,
}

with_mysql_ids! {
    /// The 18 namespaces of MySQL 8.0, with MySQL's numeric ids (the first byte of a key).
    /// Non-exhaustive: MySQL adds namespaces between versions (SRID, RESOURCE_GROUPS, ... in
    /// 8.0). The lock types and durations are fixed by the matrices and stay exhaustive.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    #[allow(missing_docs)]
    pub enum Namespace {
        Global = 0,
        BackupLock = 1,
        Tablespace = 2,
        Schema = 3,
        Table = 4,
        Function = 5,
        Procedure = 6,
        Trigger = 7,
        Event = 8,
        Commit = 9,
        UserLevelLock = 10,
        LockingService = 11,
        Srid = 12,
        AclCache = 13,
        ColumnStatistics = 14,
        ResourceGroups = 15,
        ForeignKey = 16,
        CheckConstraint = 17,
    }
}

impl Namespace {
    /// Scoped or object strategy (MySQL's `MDL_lock::get_strategy`).
    pub fn strategy(self) -> Strategy {
        use Namespace::*;
        match self {
            Global | Tablespace | Schema | Commit | BackupLock | ResourceGroups | ForeignKey
            | CheckConstraint => Strategy::Scoped,
            _ => Strategy::Object,
        }
    }

    /// Pre-allocated lock objects that never live in the lock map and are never evicted.
    pub fn is_singleton(self) -> bool {
        matches!(
            self,
            Namespace::Global | Namespace::Commit | Namespace::AclCache | Namespace::BackupLock
        )
    }

    /// Whether an X request in this namespace notifies the storage engines before acquiring and
    /// after releasing (`MDL_lock::needs_hton_notification`).
    pub fn needs_hton_notification(self) -> bool {
        use Namespace::*;
        matches!(
            self,
            Tablespace | Schema | Table | Function | Procedure | Trigger | Event
        )
    }

    /// Whether a wait in this namespace is aborted when the owner disconnects.
    pub fn needs_connection_check(self) -> bool {
        matches!(
            self,
            Namespace::UserLevelLock | Namespace::LockingService | Namespace::AclCache
        )
    }

    /// Whether the anti-starvation counters (`max_write_lock_count`) apply.
    pub fn is_affected_by_max_write_lock_count(self) -> bool {
        self.strategy() == Strategy::Object && self != Namespace::AclCache
    }

    /// The thread state shown while waiting on a lock of this namespace.
    pub fn wait_state_name(self) -> &'static str {
        use Namespace::*;
        match self {
            Global => "Waiting for global read lock",
            BackupLock => "Waiting for backup lock",
            Tablespace => "Waiting for tablespace metadata lock",
            Schema => "Waiting for schema metadata lock",
            Table => "Waiting for table metadata lock",
            Function => "Waiting for stored function metadata lock",
            Procedure => "Waiting for stored procedure metadata lock",
            Trigger => "Waiting for trigger metadata lock",
            Event => "Waiting for event metadata lock",
            Commit => "Waiting for commit lock",
            UserLevelLock => "User lock",
            LockingService => "Waiting for locking service lock",
            Srid => "Waiting for spatial reference system lock",
            AclCache => "Waiting for acl cache lock",
            ColumnStatistics => "Waiting for column statistics lock",
            ResourceGroups => "Waiting for resource groups metadata lock",
            ForeignKey => "Waiting for foreign key metadata lock",
            CheckConstraint => "Waiting for check constraint metadata lock",
        }
    }

    /// `OBJECT_TYPE` in `performance_schema.metadata_locks`.
    pub fn object_type_name(self) -> &'static str {
        use Namespace::*;
        match self {
            Global => "GLOBAL",
            BackupLock => "BACKUP LOCK",
            Tablespace => "TABLESPACE",
            Schema => "SCHEMA",
            Table => "TABLE",
            Function => "FUNCTION",
            Procedure => "PROCEDURE",
            Trigger => "TRIGGER",
            Event => "EVENT",
            Commit => "COMMIT",
            UserLevelLock => "USER LEVEL LOCK",
            LockingService => "LOCKING SERVICE",
            Srid => "SRID",
            AclCache => "ACL CACHE",
            ColumnStatistics => "COLUMN STATISTICS",
            ResourceGroups => "RESOURCE_GROUPS",
            ForeignKey => "FOREIGN KEY",
            CheckConstraint => "CHECK CONSTRAINT",
        }
    }

    /// Whether a lock type may be requested in this namespace.
    pub fn allows(self, lock_type: LockType) -> bool {
        match self.strategy() {
            Strategy::Scoped => matches!(
                lock_type,
                LockType::IntentionExclusive | LockType::Shared | LockType::Exclusive
            ),
            Strategy::Object => lock_type != LockType::IntentionExclusive,
        }
    }
}

with_mysql_ids! {
    /// The 11 lock types of MySQL 8.0, weakest to strongest, with MySQL's numeric ids.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum LockType {
        /// IX: scoped locks only; the owner may take upgradable or exclusive locks inside the
        /// scope.
        IntentionExclusive = 0,
        /// S: metadata only (prepared statements, stored routines, HANDLER).
        Shared = 1,
        /// SH: metadata only, granted even when exclusive requests are pending
        /// (INFORMATION_SCHEMA).
        SharedHighPrio = 2,
        /// SR: read table data (SELECT).
        SharedRead = 3,
        /// SW: modify table data (INSERT, UPDATE, DELETE, SELECT ... FOR UPDATE).
        SharedWrite = 4,
        /// SWLP: SW with lower priority than SRO (DML with LOW_PRIORITY).
        SharedWriteLowPrio = 5,
        /// SU: upgradable shared lock, first phase of ALTER TABLE.
        SharedUpgradable = 6,
        /// SRO: read data, block all modification (LOCK TABLES READ).
        SharedReadOnly = 7,
        /// SNW: upgradable, blocks writers, allows readers (ALTER TABLE copying data).
        SharedNoWrite = 8,
        /// SNRW: upgradable, others may access metadata only (LOCK TABLES WRITE).
        SharedNoReadWrite = 9,
        /// X: exclusive (CREATE / DROP / RENAME TABLE).
        Exclusive = 10,
    }
}

#[allow(missing_docs)]
impl LockType {
    pub const IX: LockType = LockType::IntentionExclusive;
    pub const S: LockType = LockType::Shared;
    pub const SH: LockType = LockType::SharedHighPrio;
    pub const SR: LockType = LockType::SharedRead;
    pub const SW: LockType = LockType::SharedWrite;
    pub const SWLP: LockType = LockType::SharedWriteLowPrio;
    pub const SU: LockType = LockType::SharedUpgradable;
    pub const SRO: LockType = LockType::SharedReadOnly;
    pub const SNW: LockType = LockType::SharedNoWrite;
    pub const SNRW: LockType = LockType::SharedNoReadWrite;
    pub const X: LockType = LockType::Exclusive;
}

impl LockType {
    /// The bit of this type in the matrices' bitmaps (`MDL_BIT`).
    pub fn bit(self) -> u16 {
        1 << (self as u8)
    }

    /// The abbreviation used in MySQL's documentation (IX, S, SH, SR, ...).
    pub fn abbr(self) -> &'static str {
        [
            "IX", "S", "SH", "SR", "SW", "SWLP", "SU", "SRO", "SNW", "SNRW", "X",
        ][self as usize]
    }

    /// `LOCK_TYPE` in `performance_schema.metadata_locks`.
    pub fn pfs_name(self) -> &'static str {
        [
            "INTENTION_EXCLUSIVE",
            "SHARED",
            "SHARED_HIGH_PRIO",
            "SHARED_READ",
            "SHARED_WRITE",
            "SHARED_WRITE_LOW_PRIO",
            "SHARED_UPGRADABLE",
            "SHARED_READ_ONLY",
            "SHARED_NO_WRITE",
            "SHARED_NO_READ_WRITE",
            "EXCLUSIVE",
        ][self as usize]
    }

    /// Whether MySQL counts this as a write request (`is_write_lock_request`).
    pub fn is_write(self) -> bool {
        self >= LockType::SharedWrite && self != LockType::SharedReadOnly
    }

    /// Whether this type is SU or stronger (DDL / LOCK TABLES).
    pub fn is_ddl_or_lock_tables(self) -> bool {
        self >= LockType::SharedUpgradable
    }
}

/// How long a lock is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LockDuration {
    /// Released at the end of the statement ([`crate::MdlContext::release_statement_locks`]) or
    /// of the transaction.
    Statement = 0,
    /// Released at the end of the transaction
    /// ([`crate::MdlContext::release_transactional_locks`]).
    Transaction = 1,
    /// Released only explicitly ([`crate::MdlContext::release`]): LOCK TABLES, HANDLER, user
    /// locks, the global read lock.
    Explicit = 2,
}

impl LockDuration {
    /// Every duration, in MySQL's order.
    pub const ALL: [LockDuration; 3] = [
        LockDuration::Statement,
        LockDuration::Transaction,
        LockDuration::Explicit,
    ];

    /// `LOCK_DURATION` in `performance_schema.metadata_locks`.
    pub fn pfs_name(self) -> &'static str {
        ["STATEMENT", "TRANSACTION", "EXPLICIT"][self as usize]
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// Identifies a context within its manager: the id given to
/// [`MdlManager::new_context_with_id`](crate::MdlManager::new_context_with_id) (a server's
/// connection id), or one the manager picked. No two live contexts of a manager share an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContextId(pub(crate) u64);

impl ContextId {
    /// A context id from its number (to name a context in
    /// [`MdlManager::kill`](crate::MdlManager::kill), for instance).
    pub const fn new(id: u64) -> ContextId {
        ContextId(id)
    }

    /// The numeric id.
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

impl From<u64> for ContextId {
    fn from(id: u64) -> ContextId {
        ContextId(id)
    }
}

/// What a kill ends (MySQL's `KILL QUERY` and `KILL [CONNECTION]`), see
/// [`MdlManager::kill`](crate::MdlManager::kill).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KillScope {
    /// The current statement: its wait, and any later wait until the statement ends
    /// ([`MdlContext::release_statement_locks`](crate::MdlContext::release_statement_locks),
    /// [`MdlContext::release_transactional_locks`](crate::MdlContext::release_transactional_locks),
    /// or a statement scope's end). A new [`MdlContext::statement`](crate::MdlContext::statement)
    /// scope also clears it, so a query kill that arrives between two statements ends neither,
    /// as in MySQL.
    Query = 1,
    /// The connection: the current wait and every later one, until
    /// [`MdlContext::reset_kill`](crate::MdlContext::reset_kill).
    Connection = 2,
}

impl std::fmt::Display for ContextId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::fmt::Display for Namespace {
    /// MySQL's `OBJECT_TYPE` name (`TABLE`, `GLOBAL`, `USER LEVEL LOCK`, ...).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.object_type_name())
    }
}

impl std::fmt::Display for LockType {
    /// MySQL's `LOCK_TYPE` name (`SHARED_READ`, `EXCLUSIVE`, ...).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.pfs_name())
    }
}

impl std::fmt::Display for LockDuration {
    /// MySQL's `LOCK_DURATION` name (`STATEMENT`, `TRANSACTION`, `EXPLICIT`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.pfs_name())
    }
}

impl std::fmt::Display for KillScope {
    /// The word MySQL's `KILL` takes for it (`QUERY`, `CONNECTION`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KillScope::Query => "QUERY",
            KillScope::Connection => "CONNECTION",
        })
    }
}

/// Parses the names the `Display` impls print, without case; for [`LockType`], also the
/// abbreviation of MySQL's documentation (`SR`, `SNRW`, ...). The error says what was expected.
macro_rules! from_display_name {
    ($name:ident, $what:literal, $($alt:ident)?) => {
        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<$name, String> {
                $name::ALL
                    .into_iter()
                    .find(|v| {
                        v.to_string().eq_ignore_ascii_case(s)
                            $(|| v.$alt().eq_ignore_ascii_case(s))?
                    })
                    .ok_or_else(|| {
                        let names: Vec<String> =
                            $name::ALL.iter().map(|v| v.to_string()).collect();
                        format!(concat!("unknown ", $what, " {:?} (one of {})"), s, names.join(", "))
                    })
            }
        }
    };
}

from_display_name!(LockType, "lock type", abbr);
from_display_name!(LockDuration, "lock duration",);
from_display_name!(Namespace, "namespace",);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for t in LockType::ALL {
            assert_eq!(t.to_string().parse::<LockType>(), Ok(t));
            assert_eq!(t.abbr().to_lowercase().parse::<LockType>(), Ok(t));
        }
        for d in LockDuration::ALL {
            assert_eq!(d.to_string().parse::<LockDuration>(), Ok(d));
        }
        for n in Namespace::ALL {
            assert_eq!(n.to_string().parse::<Namespace>(), Ok(n));
        }
        let e = "SHARED_READER".parse::<LockType>().unwrap_err();
        assert!(e.contains("SHARED_READ,"), "{e}");
        assert_eq!(KillScope::Query.to_string(), "QUERY");
    }
}

//! The server's flags (`mdl-server --help`), each with a default that works.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use mdl_core::{AsyncTimer, FastPath, MdlConfig, PartitionHash};

/// `mdl-server`: a MySQL-protocol server whose metadata locks are `mdl`'s, whose
/// `performance_schema` is `pfs`'s, and whose tables are SQLite's.
#[derive(Parser, Debug, Clone)]
#[command(name = "mdl-server", version, about)]
pub struct ServerConfig {
    /// TCP port (0 picks a free one).
    #[arg(long, default_value_t = 3306)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Directory of the schemas' SQLite files (created if missing).
    #[arg(long, default_value = "mdl-data")]
    pub data_dir: PathBuf,
    /// Schemas created at start if missing (repeat or comma-separate).
    #[arg(long, value_delimiter = ',', default_value = "test")]
    pub schema: Vec<String>,
    /// `engine` runs every statement; `constant` answers every query with one constant row
    /// (no parsing, no engine, no locks): the protocol floor.
    #[arg(long, value_enum, default_value_t = Mode::Engine)]
    pub mode: Mode,
    /// Instrumentation: a `pfs` preset (off, none, default, tables, statements, counters,
    /// synch). A build with `--no-default-features` has it compiled out whatever this says.
    #[arg(long, default_value = "default")]
    pub pfs: String,
    /// The metadata-lock fast path: off (MySQL 5.6), shared-word (MySQL 5.7/8.0), per-context.
    #[arg(long, value_enum, default_value_t = FastPathFlag::PerContext)]
    pub fast_path: FastPathFlag,
    /// Lock-map partitions (MySQL's `metadata_locks_hash_instances`).
    #[arg(long, default_value_t = MdlConfig::default().shards)]
    pub partitions: usize,
    /// The partition hash: mysql-bin (5.6.14's `my_hash_sort_bin`) or murmur3.
    #[arg(long, value_enum, default_value_t = HashFlag::Murmur3)]
    pub partition_hash: HashFlag,
    /// Per-context lock-object cache (0 = MySQL's behaviour).
    #[arg(long, default_value_t = MdlConfig::default().lock_cache)]
    pub lock_cache: usize,
    /// `lock_wait_timeout` of new sessions, in seconds (MySQL's default: a year).
    #[arg(long, default_value_t = 31_536_000)]
    pub lock_wait_timeout: u64,
    /// How long a write waits for the engine's single writer, in seconds, before 1205
    /// (InnoDB's `innodb_lock_wait_timeout`).
    #[arg(long, default_value_t = 50)]
    pub engine_lock_wait_timeout: u64,
    /// SQLite's busy timeout in milliseconds (a backstop: writers are already ordered).
    #[arg(long, default_value_t = 5000)]
    pub busy_timeout_ms: u64,
    /// Tokio worker threads of the accept loop (0 = one per core); each connection runs on a
    /// thread of its own.
    #[arg(long, default_value_t = 0)]
    pub workers: usize,
}

/// What the server does with a statement.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Locks, then SQLite.
    Engine,
    /// One constant row for every query: the protocol floor.
    Constant,
}

/// `--fast-path`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FastPathFlag {
    /// `FastPath::Off`.
    Off,
    /// `FastPath::SharedWord`.
    SharedWord,
    /// `FastPath::PerContext`.
    PerContext,
}

/// `--partition-hash`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashFlag {
    /// `PartitionHash::MySqlBin`.
    MysqlBin,
    /// `PartitionHash::Murmur3`.
    Murmur3,
}

impl ServerConfig {
    /// The defaults with `data_dir` and a free port: what tests start.
    pub fn for_tests(data_dir: impl Into<PathBuf>) -> ServerConfig {
        let mut c = ServerConfig::parse_from(["mdl-server"]);
        c.port = 0;
        c.data_dir = data_dir.into();
        c
    }

    /// The lock manager's configuration.
    ///
    /// # Errors
    /// Out-of-range values, as `MdlConfig::builder` reports them.
    pub fn mdl_config(&self) -> mdl_core::Result<MdlConfig> {
        MdlConfig::builder()
            .fast_path(match self.fast_path {
                FastPathFlag::Off => FastPath::Off,
                FastPathFlag::SharedWord => FastPath::SharedWord,
                FastPathFlag::PerContext => FastPath::PerContext,
            })
            .shards(self.partitions)
            .partition_hash(match self.partition_hash {
                HashFlag::MysqlBin => PartitionHash::MySqlBin,
                HashFlag::Murmur3 => PartitionHash::Murmur3,
            })
            .lock_cache(self.lock_cache)
            .lock_wait_timeout(Duration::from_secs(self.lock_wait_timeout))
            // A waiting statement parks its connection's runtime on the runtime's own timer:
            // one wake-up at `lock_wait_timeout`, not the manager's thread's and then this one.
            .async_timer(AsyncTimer::Tokio)
            .build()
    }

    /// The `pfs` preset of `--pfs`.
    ///
    /// # Errors
    /// An unknown preset name.
    pub fn preset(&self) -> Result<pfs::Preset, pfs::PfsError> {
        pfs::Preset::from_name(&self.pfs)
    }
}

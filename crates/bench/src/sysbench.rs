//! Real servers and the real client for the `sysbench` report: `mdl-server` and MariaDB as
//! child processes on free loopback ports in temporary directories, sysbench 1.0 against
//! them, the server's CPU time from `/proc/PID/stat`, and callgrind's instruction count of a
//! server process for a fixed number of queries.
//!
//! Every process started here is killed when its handle drops; every sysbench run is bounded
//! (`--time`, or `--events` and a timeout).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether a program is on `PATH`.
pub fn on_path(prog: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
}

/// A free loopback port (bound, read, released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

/// A server process (killed on drop).
#[derive(Debug)]
pub struct Server {
    /// What it is, for tables.
    pub label: String,
    /// Its port.
    pub port: u16,
    child: Child,
    /// A directory to remove when it stops.
    dir: Option<PathBuf>,
}

impl Server {
    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// User + system CPU time of the process so far, in seconds (`/proc/PID/stat` fields 14
    /// and 15, in clock ticks of 1/100 s).
    pub fn cpu_seconds(&self) -> f64 {
        cpu_seconds(self.pid())
    }

    /// Waits at most `limit` until `mdl-server` has no connection thread left (it serves each
    /// connection on a thread named `conn-<id>`, gone once the session has ended); true if
    /// none is left. A client that has disconnected may still have its session open on the
    /// server: a SIGINT then may or may not find it, and under callgrind one session's end (its
    /// `pfs` thread folded into the summaries, its SQLite connection closed) is tens of
    /// thousands of instructions.
    pub fn wait_connections_ended(&self, limit: Duration) -> bool {
        let task = PathBuf::from(format!("/proc/{}/task", self.pid()));
        let t0 = Instant::now();
        loop {
            let serving = std::fs::read_dir(&task).is_ok_and(|tasks| {
                tasks.flatten().any(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|name| name.starts_with("conn-"))
                })
            });
            if !serving {
                return true;
            }
            if t0.elapsed() >= limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends SIGINT (`mdl-server` stops cleanly on it) and waits at most `limit` for the
    /// process to exit; true if it exited on its own (otherwise it is killed on drop).
    pub fn interrupt(mut self, limit: Duration) -> bool {
        let sent = Command::new("kill")
            .args(["-INT", &self.pid().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        let t0 = Instant::now();
        while sent && t0.elapsed() < limit {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// `utime + stime` of process `pid` in seconds (0 if unreadable).
pub fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // The command name (field 2) may hold spaces: count fields after its closing paren.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return 0.0;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    // After ')': field 3 is index 0, so utime (14) is 11 and stime (15) is 12.
    (ticks(11) + ticks(12)) / 100.0
}

/// Waits until something accepts on `port` (at most `limit`).
fn wait_port(port: u16, limit: Duration) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Starts `mdl-server` (`bin`) on a free port with `args`, its data in `data`. `wrapper`
/// (e.g. valgrind and its flags) runs it.
///
/// # Errors
/// A message when it does not start listening within 60 s.
pub fn start_mdl(
    bin: &Path,
    label: &str,
    data: &Path,
    args: &[String],
    wrapper: &[String],
) -> Result<Server, String> {
    let port = free_port();
    let mut cmd = match wrapper.split_first() {
        Some((w, rest)) => {
            let mut c = Command::new(w);
            c.args(rest).arg(bin);
            c
        }
        None => Command::new(bin),
    };
    cmd.args(["--port", &port.to_string(), "--data-dir"])
        .arg(data)
        .args(["--schema", "sbtest"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = cmd.spawn().map_err(|e| format!("{}: {e}", bin.display()))?;
    let s = Server {
        label: label.into(),
        port,
        child,
        dir: None,
    };
    if !wait_port(port, Duration::from_secs(60)) {
        return Err(format!("{label} did not start"));
    }
    Ok(s)
}

/// Starts MariaDB from a fresh temporary data directory (`mariadb-install-db`, then
/// `mariadbd` on loopback), with `performance_schema` on or off and, when on, the metadata
/// lock instrument on; creates the schema `sbtest`.
///
/// # Errors
/// A message when a step fails.
pub fn start_mariadb(label: &str, pfs_on: bool) -> Result<Server, String> {
    let dir = std::env::temp_dir().join(format!(
        "mdl-bench-mariadb-{}-{}",
        std::process::id(),
        free_port()
    ));
    let data = dir.join("data");
    std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
    let ok = Command::new("mariadb-install-db")
        .args([
            "--no-defaults",
            "--user=root",
            "--auth-root-authentication-method=normal",
        ])
        .arg(format!("--datadir={}", data.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        let _ = std::fs::remove_dir_all(&dir);
        return Err("mariadb-install-db failed".into());
    }
    let port = free_port();
    let init = dir.join("init.sql");
    std::fs::write(&init, "CREATE DATABASE IF NOT EXISTS sbtest;\n").map_err(|e| e.to_string())?;
    let child = Command::new("mariadbd")
        .arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .args(["--user=root", "--bind-address=127.0.0.1"])
        .arg(format!("--port={port}"))
        .arg(format!("--socket={}", dir.join("sock").display()))
        .arg(format!("--init-file={}", init.display()))
        .arg(format!(
            "--performance-schema={}",
            if pfs_on { "ON" } else { "OFF" }
        ))
        .arg("--performance-schema-instrument=wait/lock/metadata/sql/mdl=ON")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("mariadbd: {e}"))?;
    let s = Server {
        label: label.into(),
        port,
        child,
        dir: Some(dir),
    };
    if !wait_port(port, Duration::from_secs(60)) {
        return Err(format!("{label} did not start"));
    }
    Ok(s)
}

/// One sysbench run's figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct SysbenchRun {
    /// Queries per second.
    pub qps: f64,
    /// Queries.
    pub queries: f64,
    /// Transactions.
    pub transactions: f64,
    /// Errors sysbench ignored (1213, 1205) and retried.
    pub ignored_errors: f64,
}

/// `sysbench <workload> <command>` against `port` with `extra` options; `None` on failure
/// (the output's last lines go to stderr).
pub fn sysbench(port: u16, workload: &str, command: &str, extra: &[String]) -> Option<SysbenchRun> {
    let out = Command::new("sysbench")
        .args([
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            "--mysql-user=root",
            "--mysql-db=sbtest",
            "--tables=8",
        ])
        .arg(format!("--mysql-port={port}"))
        .args(extra)
        .args([workload, command])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || text.contains("FATAL") {
        let tail: Vec<&str> = text.lines().rev().take(5).collect();
        eprintln!(
            "sysbench {workload} {command} on port {port} failed: {:?} {}",
            tail,
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let field = |name: &str| -> (f64, f64) {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .map(|l| {
                let nums: Vec<f64> = l
                    .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                    .filter_map(|s| s.parse().ok())
                    .collect();
                (
                    nums.first().copied().unwrap_or(0.0),
                    nums.get(1).copied().unwrap_or(0.0),
                )
            })
            .unwrap_or((0.0, 0.0))
    };
    let (queries, qps) = field("queries:");
    let (transactions, _) = field("transactions:");
    let (ignored_errors, _) = field("ignored errors:");
    Some(SysbenchRun {
        qps,
        queries,
        transactions,
        ignored_errors,
    })
}

/// Runs `run` while measuring the server's CPU: returns the run and µs of server CPU per query.
pub fn measured(
    server: &Server,
    run: impl FnOnce() -> Option<SysbenchRun>,
) -> Option<(SysbenchRun, f64)> {
    let c0 = server.cpu_seconds();
    let r = run()?;
    let c1 = server.cpu_seconds();
    let us = if r.queries > 0.0 {
        (c1 - c0) * 1e6 / r.queries
    } else {
        0.0
    };
    Some((r, us))
}

/// Callgrind's instructions per query of an `mdl-server` configuration, as for
/// `acquire_loop`: the server runs under `valgrind --tool=callgrind` twice, serving one
/// client `events` and then `2 * events` transactions after the same warm-up, and stops on
/// SIGINT once its connections have ended (it exits cleanly, so callgrind writes its totals);
/// the difference of the two totals divided by the difference of the queries sysbench counted
/// leaves out start-up, warm-up and shutdown, with no `callgrind_control` round trips to time
/// (the first version toggled collection with it and collected nothing; why was not found).
///
/// Two processes of one binary still differ by up to a few hundred instructions per query
/// (how often the runtime parks between two queries, the heap SQLite's allocations meet), so
/// this measures `pairs` pairs of processes and keeps the pair with the median total.
pub fn callgrind_per_query(
    bin: &Path,
    data: &Path,
    args: &[String],
    workload: &str,
    events: u64,
    pairs: usize,
    dir: &Path,
) -> Option<PerQuery> {
    let run = |n: u64| -> Option<(Instructions, f64)> {
        let out = dir.join(format!("callgrind.{}.out", free_port()));
        let wrapper = vec![
            "valgrind".to_string(),
            "--tool=callgrind".to_string(),
            format!("--callgrind-out-file={}", out.display()),
        ];
        let server = start_mdl(bin, "callgrind", data, args, &wrapper).ok()?;
        let one = |n: u64| {
            sysbench(
                server.port,
                workload,
                "run",
                &[
                    "--threads=1".into(),
                    "--time=0".into(),
                    format!("--events={n}"),
                    "--table-size=10000".into(),
                ],
            )
        };
        one(50)?;
        let r = one(n)?;
        let ended = server.wait_connections_ended(Duration::from_secs(30));
        let stopped = ended && server.interrupt(Duration::from_secs(120));
        let split = stopped.then(|| split_by_crate(&out)).flatten();
        let _ = std::fs::remove_file(&out);
        Some((split?, r.queries))
    };
    let pair = || -> Option<Instructions> {
        let (i1, q1) = run(events)?;
        let (i2, q2) = run(2 * events)?;
        let per_query = |a: f64, b: f64| (b - a) / (q2 - q1);
        (q2 > q1 && i2.total > i1.total).then(|| Instructions {
            total: per_query(i1.total, i2.total),
            mdl: per_query(i1.mdl, i2.mdl),
            pfs: per_query(i1.pfs, i2.pfs),
            sqlite: per_query(i1.sqlite, i2.sqlite),
        })
    };
    let mut got: Vec<Instructions> = (0..pairs.max(1)).filter_map(|_| pair()).collect();
    if got.is_empty() {
        return None;
    }
    got.sort_by(|a, b| a.total.total_cmp(&b.total));
    Some(PerQuery {
        median: got[got.len() / 2],
        totals: got.iter().map(|i| i.total).collect(),
    })
}

/// Instructions per query measured by [`callgrind_per_query`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct PerQuery {
    /// The pair of processes with the median total (for an even count, the upper middle one).
    pub median: Instructions,
    /// Every pair's total per query, in increasing order.
    pub totals: Vec<f64>,
}

/// Instructions (of a run, or per query), in all and by where the code comes from.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Instructions {
    /// Everything the server executed.
    pub total: f64,
    /// Functions of `mdl-core` (by symbol or source file, inlined code included).
    pub mdl: f64,
    /// Functions of `pfs`.
    pub pfs: f64,
    /// SQLite's C functions.
    pub sqlite: f64,
}

/// A callgrind output's instructions by function (`callgrind_annotate`, exclusive costs, no
/// threshold), summed by crate: a function counts for `mdl-core` or `pfs` when its symbol or
/// its source file is theirs, so code inlined into the server's own functions counts too.
/// `callgrind_annotate` prints a source path under its working directory relative to it, so
/// it runs in `/`: from the repository (where `cargo run` starts the report) every path of
/// the workspace lost its `/crates/...` prefix and only symbols matched (77 instructions of
/// `pfs` per point select counted instead of 276).
fn split_by_crate(p: &Path) -> Option<Instructions> {
    let out = Command::new("callgrind_annotate")
        .args(["--threshold=100", "--auto=no"])
        .arg(p)
        .current_dir("/")
        .output()
        .ok()?;
    let i = classify(&String::from_utf8_lossy(&out.stdout));
    (i.total > 0.0).then_some(i)
}

/// Sums `callgrind_annotate`'s function lines (`count (share)  file:function [object]`) by
/// crate.
fn classify(text: &str) -> Instructions {
    let mut i = Instructions::default();
    for line in text.lines() {
        let Some((count, rest)) = line.trim_start().split_once(' ') else {
            continue;
        };
        let Ok(n) = count.replace(',', "").parse::<f64>() else {
            continue;
        };
        if !rest.starts_with('(') || rest.contains("PROGRAM TOTALS") {
            continue;
        }
        i.total += n;
        if rest.contains("/crates/mdl-core/") || rest.contains("mdl_core::") {
            i.mdl += n;
        } else if rest.contains("/crates/pfs/")
            || rest.contains(" pfs::")
            || rest.contains("<pfs::")
            || rest.contains(":pfs::")
        {
            i.pfs += n;
        } else if rest.contains("sqlite3") {
            i.sqlite += n;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_counts_inlined_code_by_file_and_by_symbol() {
        let text = "\
--------------------------------------------------------------------------------
111,383,663 (100.0%)  PROGRAM TOTALS
--------------------------------------------------------------------------------
Ir                   file:function
--------------------------------------------------------------------------------
 1,000 ( 0.98%)  /w/crates/mdl-server/src/execute.rs:mdl_server::execute::run [/w/mdl-server]
    90 ( 0.08%)  /w/crates/pfs/src/imp/events.rs:<core::pin::Pin<P> as Future>::poll'2
     7 ( 0.00%)  /rustc/x/library/core/src/option.rs:pfs::imp::thread::enter [/w/mdl-server]
    50 ( 0.05%)  /w/crates/mdl-core/src/key.rs:mdl_server::execute::run
     5 ( 0.00%)  /rustc/x/library/core/src/ptr/mod.rs:mdl_core::context::MdlContext::has_locks
   300 ( 0.30%)  /r/libsqlite3-sys/sqlite3/sqlite3.c:sqlite3VdbeExec [/w/mdl-server]
";
        let i = classify(text);
        assert_eq!(i.total, 1_452.0);
        assert_eq!(i.pfs, 97.0);
        assert_eq!(i.mdl, 55.0);
        assert_eq!(i.sqlite, 300.0);
    }
}

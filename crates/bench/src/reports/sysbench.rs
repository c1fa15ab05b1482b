//! `sysbench`: the published tool against the real server.
//!
//! Starts `mdl-server` builds as child processes (the default build, and a second build with
//! instrumentation compiled out in `target/nopfs`, both built or found up to date by cargo
//! first) and, where the machine has Debian's `mariadb-server`, MariaDB with `performance_schema` OFF and ON; runs
//! sysbench 1.0 (`oltp_point_select`, `oltp_read_only`, 8 tables) against each in
//! interleaved rounds; reports medians of QPS and of server CPU per query (`/proc/PID/stat`)
//! and callgrind's instructions per query for one client (in full mode the median of three
//! process pairs, see `callgrind_per_query`). Skipped, with a message, without
//! `sysbench` on `PATH`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use super::int;
use crate::output::{Headline, Report, Table};
use crate::runner::{median, Ctx};
use crate::sysbench::{
    callgrind_per_query, measured, on_path, start_mariadb, start_mdl, sysbench, Instructions,
    PerQuery, Server,
};

/// The commands that build the two servers.
pub const BUILD: [&str; 2] = [
    "cargo build --release -p mdl-server",
    "CARGO_TARGET_DIR=target/nopfs cargo build --release -p mdl-server --no-default-features",
];

const WORKLOADS: [&str; 2] = ["oltp_point_select", "oltp_read_only"];
const TABLE_SIZE: u64 = 10_000;

/// One case's runs: (QPS, server CPU µs per query, ignored errors) each.
type Runs = Vec<(f64, f64, f64)>;

/// A server configuration of the report.
#[derive(Clone)]
struct Config {
    label: String,
    group: &'static str,
    compiled_out: bool,
    mariadb: Option<bool>,
    args: Vec<String>,
    threads: Vec<usize>,
}

fn mdl(label: &str, group: &'static str, args: &[&str], threads: &[usize]) -> Config {
    Config {
        label: label.into(),
        group,
        compiled_out: false,
        mariadb: None,
        args: args.iter().map(|s| s.to_string()).collect(),
        threads: threads.to_vec(),
    }
}

fn configs(with_mariadb: bool) -> Vec<Config> {
    let a = [2, 16];
    let b = [1, 2, 16];
    let mut v = vec![mdl(
        "constant (protocol floor)",
        "floor",
        &["--mode", "constant"],
        &b,
    )];
    let mut out = mdl("compiled out", "A", &["--pfs", "off"], &a);
    out.compiled_out = true;
    v.push(out);
    for m in ["off", "none", "default", "synch"] {
        v.push(mdl(m, "A", &["--pfs", m], &a));
    }
    for (fp, fpn) in [
        ("off", "Off"),
        ("shared-word", "SharedWord"),
        ("per-context", "PerContext"),
    ] {
        for parts in ["1", "8"] {
            let label = format!("FastPath::{fpn}, {parts} partition(s), MySqlBin");
            v.push(mdl(
                &label,
                "B",
                &[
                    "--pfs",
                    "off",
                    "--fast-path",
                    fp,
                    "--partitions",
                    parts,
                    "--partition-hash",
                    "mysql-bin",
                    "--lock-cache",
                    "0",
                ],
                &b,
            ));
        }
    }
    if with_mariadb {
        for on in [false, true] {
            v.push(Config {
                label: format!(
                    "MariaDB, performance_schema {}",
                    if on { "ON" } else { "OFF" }
                ),
                group: "anchor",
                compiled_out: false,
                mariadb: Some(on),
                args: Vec::new(),
                threads: b.to_vec(),
            });
        }
    }
    v
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The server binaries (default, compiled out), built (or found up to date) by cargo first, so
/// a report never measures a server older than the code beside it.
fn binaries(ctx: &Ctx) -> Option<(PathBuf, PathBuf)> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let default = target.join("release").join("mdl-server");
    let nopfs = root().join("target/nopfs/release/mdl-server");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for (bin, dir, extra) in [
        (&default, target.clone(), None),
        (
            &nopfs,
            root().join("target/nopfs"),
            Some("--no-default-features"),
        ),
    ] {
        if !bin.exists() {
            ctx.println(format!("building {} (once, a few minutes)", bin.display()));
        }
        let mut c = Command::new(&cargo);
        c.current_dir(root()).env("CARGO_TARGET_DIR", &dir).args([
            "build",
            "--release",
            "-q",
            "-p",
            "mdl-server",
        ]);
        c.args(extra);
        if !c.status().map(|s| s.success()).unwrap_or(false) {
            return None;
        }
    }
    Some((default, nopfs))
}

fn start(c: &Config, bins: &(PathBuf, PathBuf), data: &Path) -> Result<Server, String> {
    match c.mariadb {
        Some(on) => start_mariadb(&c.label, on),
        None => {
            let bin = if c.compiled_out { &bins.1 } else { &bins.0 };
            start_mdl(bin, &c.label, data, &c.args, &[])
        }
    }
}

/// Copies the prepared tables into a directory of one server's own.
fn copy_data(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let p = e?.path();
        if let Some(n) = p.file_name() {
            std::fs::copy(&p, to.join(n))?;
        }
    }
    Ok(())
}

/// `sysbench`: see the module docs.
pub fn run(ctx: &mut Ctx) -> Report {
    let (name, title) = ("sysbench", "sysbench against mdl-server (and MariaDB)");
    let about = "sysbench 1.0 (`oltp_point_select`, `oltp_read_only`; 8 tables of 10,000 rows, \
                 prepared statements) against `mdl-server` started as a child process: the \
                 protocol floor (`--mode constant`: one constant row per query, no engine, no \
                 locks), (A) per instrumentation mode (compiled out = the server built with \
                 `--no-default-features`; `--pfs off|none|default|synch`) and (B) per MySQL \
                 design of the lock manager (`--fast-path`, `--partitions 1|8`, \
                 `--partition-hash mysql-bin`, `--lock-cache 0`, instrumentation off); and, \
                 where installed, MariaDB 10.11 with `performance_schema` OFF and ON (metadata \
                 lock instrument on) under the same commands. Interleaved rounds, medians: QPS \
                 and server CPU µs per query (`/proc/PID/stat` utime + stime over the run, \
                 divided by the queries sysbench counted), and callgrind instructions per \
                 query with one client (full mode: the median of three process pairs).";
    let mut r = Report::new(name, title, about);
    if !on_path("sysbench") {
        r.notes.push(
            "NOT RUN: `sysbench` is not on PATH. Install it (Debian: `apt-get install -y \
             sysbench`; for the MariaDB anchor also `mariadb-server`), then rerun."
                .into(),
        );
        eprintln!(
            "sysbench report skipped: sysbench is not installed (apt-get install -y sysbench)"
        );
        return r;
    }
    let with_mariadb = on_path("mariadbd") && on_path("mariadb-install-db");
    let cfgs = configs(with_mariadb);
    // Callgrind's process pairs per configuration: its median carries the tables (one pair
    // of one binary can be a few hundred instructions per query off the next).
    let (rounds, secs, events, pairs) = if ctx.quick {
        (2, 2, 300, 1)
    } else {
        (3, 10, 2000, 3)
    };
    let per_run = Duration::from_secs(secs as u64) + Duration::from_millis(400);
    if ctx.is_dry() {
        let runs: usize = cfgs.iter().map(|c| c.threads.len() * WORKLOADS.len()).sum();
        ctx.timed(
            per_run * (runs * rounds) as u32 + Duration::from_secs(90),
            || (),
        );
        return r;
    }
    let Some(bins) = binaries(ctx) else {
        r.notes.push(format!(
            "NOT RUN: building the servers failed ({} ; {})",
            BUILD[0], BUILD[1]
        ));
        return r;
    };
    let work = std::env::temp_dir().join(format!("mdl-bench-sysbench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let prepared = work.join("prepared");
    ctx.message("sysbench: prepare");
    let size = format!("--table-size={TABLE_SIZE}");
    {
        let s = match start_mdl(&bins.0, "prepare", &prepared, &[], &[]) {
            Ok(s) => s,
            Err(e) => {
                r.notes.push(format!("NOT RUN: {e}"));
                return r;
            }
        };
        if sysbench(
            s.port,
            "oltp_read_only",
            "prepare",
            std::slice::from_ref(&size),
        )
        .is_none()
        {
            r.notes
                .push("NOT RUN: sysbench prepare against mdl-server failed".into());
            return r;
        }
    }
    let mut servers = Vec::new();
    for (i, c) in cfgs.iter().enumerate() {
        let data = work.join(format!("s{i}"));
        if c.mariadb.is_none() {
            let _ = copy_data(&prepared, &data);
        }
        match start(c, &bins, &data) {
            Ok(s) => {
                if c.mariadb.is_some()
                    && sysbench(
                        s.port,
                        "oltp_read_only",
                        "prepare",
                        std::slice::from_ref(&size),
                    )
                    .is_none()
                {
                    r.notes
                        .push(format!("{}: prepare failed, left out", c.label));
                    continue;
                }
                servers.push((c.clone(), s));
            }
            Err(e) => r.notes.push(format!("{}: {e}, left out", c.label)),
        }
    }
    // raw[server][workload][threads] = runs of (qps, cpu us/query, ignored errors)
    let mut raw: Vec<Vec<Vec<Runs>>> = servers
        .iter()
        .map(|(c, _)| vec![vec![Vec::new(); c.threads.len()]; WORKLOADS.len()])
        .collect();
    for round in 0..rounds {
        for (wi, w) in WORKLOADS.iter().enumerate() {
            for t in [1usize, 2, 16] {
                ctx.message(format!("sysbench round {}/{rounds}: {w} @{t}", round + 1));
                let n = servers.len();
                for j in 0..n {
                    let si = (j + round) % n;
                    let (c, s) = &servers[si];
                    let Some(ti) = c.threads.iter().position(|&x| x == t) else {
                        continue;
                    };
                    let args = [
                        format!("--threads={t}"),
                        format!("--time={secs}"),
                        size.clone(),
                    ];
                    let got = ctx.timed(per_run, || {
                        measured(s, || sysbench(s.port, w, "run", &args))
                    });
                    if let Some((run, cpu)) = got {
                        raw[si][wi][ti].push((run.qps, cpu, run.ignored_errors));
                    }
                }
            }
        }
    }
    // Callgrind, one client, point selects: floor, (A), and in full mode (B) as well.
    let mut instr: Vec<(String, PerQuery)> = Vec::new();
    if on_path("valgrind") {
        for (i, c) in cfgs.iter().enumerate() {
            let wanted = c.mariadb.is_none() && (c.group != "B" || !ctx.quick);
            if !wanted {
                continue;
            }
            ctx.message(format!("callgrind: {}", c.label));
            let bin = if c.compiled_out { &bins.1 } else { &bins.0 };
            let data = work.join(format!("s{i}"));
            let per_q = ctx.timed(Duration::from_secs(10) * pairs as u32, || {
                callgrind_per_query(
                    bin,
                    &data,
                    &c.args,
                    "oltp_point_select",
                    events,
                    pairs,
                    &work,
                )
            });
            if let Some(x) = per_q {
                instr.push((c.label.clone(), x));
            }
        }
    } else {
        r.notes
            .push("callgrind columns empty: valgrind is not installed".into());
    }
    let pfs_lists = with_mariadb.then(|| instrument_lists(&servers));
    let started: Vec<Config> = servers.iter().map(|(c, _)| c.clone()).collect();
    drop(servers);
    let _ = std::fs::remove_dir_all(&work);
    tables(&mut r, &started, &raw, &instr, secs, rounds);
    if let Some(t) = pfs_lists {
        r.tables.push(t);
    }
    r
}

/// The result tables (one per workload), the headline and the JSON data.
fn tables(
    r: &mut Report,
    cfgs: &[Config],
    raw: &[Vec<Vec<Runs>>],
    instr: &[(String, PerQuery)],
    secs: usize,
    rounds: usize,
) {
    let ths = [1usize, 2, 16];
    let mut data = Vec::new();
    let mut floor_cpu = None;
    let mut out_cpu = None;
    let mut default_cpu = None;
    for (wi, w) in WORKLOADS.iter().enumerate() {
        let mut header = vec!["group".to_string(), "server".to_string()];
        for t in ths {
            header.push(format!("QPS @{t}"));
            header.push(format!("CPU µs/query @{t}"));
        }
        header.push("instructions/query @1".into());
        header.push("ignored errors".into());
        let h: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut tab = Table::new(
            w,
            &format!("`{w}`: medians of {rounds} interleaved runs of {secs} s"),
            &h,
        );
        for (si, c) in cfgs.iter().enumerate() {
            let mut row = vec![c.group.to_string(), c.label.clone()];
            let mut errors = 0.0;
            for t in ths {
                match c.threads.iter().position(|&x| x == t) {
                    Some(ti) => {
                        let runs = &raw[si][wi][ti];
                        let qps = median(&runs.iter().map(|x| x.0).collect::<Vec<_>>());
                        let cpu = median(&runs.iter().map(|x| x.1).collect::<Vec<_>>());
                        errors += runs.iter().map(|x| x.2).sum::<f64>();
                        row.push(if runs.is_empty() {
                            "n/a".into()
                        } else {
                            int(qps)
                        });
                        row.push(if runs.is_empty() {
                            "n/a".into()
                        } else {
                            format!("{cpu:.1}")
                        });
                        data.push(json!({"workload": w, "server": c.label, "threads": t,
                            "qps_runs": runs.iter().map(|x| x.0).collect::<Vec<_>>(),
                            "cpu_us_runs": runs.iter().map(|x| x.1).collect::<Vec<_>>()}));
                        if wi == 0 && t == 2 {
                            match c.label.as_str() {
                                "constant (protocol floor)" => floor_cpu = Some(cpu),
                                "compiled out" => out_cpu = Some(cpu),
                                "default" => default_cpu = Some(cpu),
                                _ => {}
                            }
                        }
                    }
                    None => {
                        row.push("".into());
                        row.push("".into());
                    }
                }
            }
            let ins = instr
                .iter()
                .find(|(l, _)| *l == c.label)
                .map(|x| x.1.median.total);
            row.push(if wi == 0 {
                ins.map_or("".into(), int)
            } else {
                "".into()
            });
            row.push(format!("{errors:.0}"));
            tab.row(row);
        }
        r.tables.push(tab);
    }
    let cpu = match (floor_cpu, out_cpu, default_cpu) {
        (Some(f), Some(o), Some(d)) => Some((f, o, d)),
        _ => None,
    };
    let medians: Vec<(String, Instructions)> =
        (instr.iter()).map(|(l, p)| (l.clone(), p.median)).collect();
    r.headline = headline(&medians, cpu);
    if !instr.is_empty() {
        let mut t = Table::new(
            "instructions",
            "Instructions per point select, one client (callgrind), by where the code comes from: \
             the process pair with the median total",
            &[
                "server",
                "all",
                "all, each pair",
                "mdl-core",
                "pfs",
                "SQLite",
                "mdl-core share",
                "pfs share",
            ],
        );
        for (label, p) in instr {
            let i = &p.median;
            let share = |x: f64| {
                let pct = x / i.total * 100.0;
                // A count that is 0 give or take a rounding reads 0.00%, not -0.00%.
                format!("{:.2}%", if pct.abs() < 0.005 { 0.0 } else { pct })
            };
            let each: Vec<String> = p.totals.iter().map(|&x| int(x)).collect();
            t.row(vec![
                label.clone(),
                int(i.total),
                each.join(" / "),
                int(i.mdl),
                int(i.pfs),
                int(i.sqlite),
                share(i.mdl),
                share(i.pfs),
            ]);
        }
        r.tables.push(t);
    }
    r.data = json!({"runs": data, "instructions_per_query": instr});
}

/// The report's headline: instructions per point select when callgrind ran (on a 2-core machine
/// the CPU columns' rounds spread by tens of percent and cannot carry a 1% cost), with the CPU
/// per point select at 2 clients (floor, compiled out, `default`) beside them, else the CPU alone.
fn headline(instr: &[(String, Instructions)], cpu: Option<(f64, f64, f64)>) -> Option<Headline> {
    let cpu = cpu.map(|(f, o, d)| {
        format!(
            "{f:.1} / {o:.1} / {d:.1} ({:+.1}% default over compiled out)",
            (d / o - 1.0) * 100.0
        )
    });
    let published = "issue 22: pfs default and mdl-core each <= 1% per query; MySQL 5.6: default \
                     costs 4.5-7% QPS; MariaDB 10.11 here: PFS ON +12-17% CPU/query";
    let total = |label: &str| instr.iter().find(|(l, _)| l == label).map(|x| &x.1);
    match (
        total("constant (protocol floor)"),
        total("compiled out"),
        total("default"),
    ) {
        (Some(f), Some(o), Some(d)) => Some(Headline {
            what: "instructions per point select, 1 client: floor / compiled out / default; \
                   default over compiled out in all and in pfs's own code; mdl-core's own; \
                   server CPU µs per point select, 2 clients"
                .into(),
            measured: format!(
                "{} / {} / {}; default {:+.0} over compiled out ({:+.2}%), of which pfs's own \
                 code {:+.0} ({:.2}%); mdl-core {} ({:.2}%); CPU {}",
                int(f.total),
                int(o.total),
                int(d.total),
                d.total - o.total,
                (d.total / o.total - 1.0) * 100.0,
                d.pfs - o.pfs,
                (d.pfs - o.pfs) / o.total * 100.0,
                int(d.mdl),
                d.mdl / d.total * 100.0,
                cpu.as_deref().unwrap_or("n/a")
            ),
            published: published.into(),
        }),
        _ => cpu.map(|cpu| Headline {
            what: "server CPU µs per point select, 2 clients: protocol floor / compiled out / \
                   default"
                .into(),
            measured: cpu,
            published: published.into(),
        }),
    }
}

/// The instruments and consumers enabled in `default` (mdl-server) and in MariaDB ON.
fn instrument_lists(servers: &[(Config, Server)]) -> Table {
    let mut t = Table::new(
        "instruments",
        "What is enabled: mdl-server `--pfs default` next to MariaDB with performance_schema ON",
        &[
            "server",
            "enabled instruments (by class prefix)",
            "enabled consumers",
        ],
    );
    let q_inst = "SELECT CONCAT(SUBSTRING_INDEX(NAME, '/', 2), ': ', COUNT(*)) FROM \
                  performance_schema.setup_instruments WHERE ENABLED = 'YES' GROUP BY \
                  SUBSTRING_INDEX(NAME, '/', 2) ORDER BY 1";
    let q_cons =
        "SELECT NAME FROM performance_schema.setup_consumers WHERE ENABLED = 'YES' ORDER BY 1";
    for (c, s) in servers {
        let is_default = c.label == "default";
        if !(is_default || c.mariadb == Some(true)) {
            continue;
        }
        let q = |sql: &str| -> String {
            Command::new("mariadb")
                .args(["-h", "127.0.0.1", "-u", "root", "--skip-ssl", "-N", "-B"])
                .arg(format!("-P{}", s.port))
                .args(["-e", sql])
                .output()
                .map(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default()
        };
        let inst = q(q_inst);
        t.row(vec![c.label.clone(), inst, q(q_cons)]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ins(total: f64, mdl: f64, pfs: f64) -> Instructions {
        Instructions {
            total,
            mdl,
            pfs,
            sqlite: 0.0,
        }
    }

    #[test]
    fn headline_leads_with_instructions_when_callgrind_ran() {
        let instr = vec![
            (
                "constant (protocol floor)".to_string(),
                ins(15_931.0, 0.0, 0.0),
            ),
            ("compiled out".to_string(), ins(36_776.0, 232.0, 19.0)),
            ("default".to_string(), ins(37_180.0, 238.0, 235.0)),
        ];
        let h = headline(&instr, Some((10.6, 19.9, 23.5))).unwrap();
        assert_eq!(
            h.measured,
            "15,931 / 36,776 / 37,180; default +404 over compiled out (+1.10%), of which pfs's \
             own code +216 (0.59%); mdl-core 238 (0.64%); CPU 10.6 / 19.9 / 23.5 (+18.1% default \
             over compiled out)"
        );
        let h = headline(&[], Some((10.6, 19.9, 23.5))).unwrap();
        assert!(h.what.starts_with("server CPU"));
        assert!(headline(&[], None).is_none());
    }
}

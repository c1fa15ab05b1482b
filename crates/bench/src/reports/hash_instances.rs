//! `hash-instances`: point-select QPS vs threads for shards {1, 8, 256} x partition hash
//! {MySqlBin, Murmur3}, fast path off (MySQL 5.6) and on (8.0). Published figures, section A.

use mdl_core::{FastPath, MdlKey, MdlManager, Namespace, PartitionHash, TicketIndex};
use serde_json::json;

use super::{int, ratio, threads};
use crate::output::{Chart, Headline, Report, Scale, Table};
use crate::peers::{hash_name, MdlSetup, PeerSpec};
use crate::runner::{Case, Ctx, Measured};
use crate::workload::Workload;

const SHARDS: [usize; 3] = [1, 8, 256];
const HASHES: [PartitionHash; 2] = [PartitionHash::MySqlBin, PartitionHash::Murmur3];

fn setups() -> Vec<MdlSetup> {
    let mut v = Vec::new();
    for fast_path in [FastPath::Off, FastPath::SharedWord] {
        for shards in SHARDS {
            for hash in HASHES {
                v.push(MdlSetup {
                    shards,
                    hash,
                    fast_path,
                    ticket_index: TicketIndex::Hashed,
                    // Partitions only matter if every lookup goes through them.
                    lock_cache: 0,
                });
            }
        }
    }
    v
}

fn label(s: &MdlSetup) -> String {
    format!("{} shards, {}", s.shards, hash_name(s.hash))
}

/// Runs the report.
pub fn run(ctx: &mut Ctx) -> Report {
    let wl = Workload::default();
    let setups = setups();
    let ths = threads(ctx);
    // results[t][s]
    let mut results: Vec<Vec<Measured>> = Vec::new();
    for &t in &ths {
        ctx.message(format!("hash-instances, {t} threads"));
        let cases: Vec<Case> = setups
            .iter()
            .map(|s| Case::new(PeerSpec::Mdl(*s), wl, t))
            .collect();
        results.push(ctx.compare(&cases));
    }
    let mut r = Report::new(
        "hash-instances",
        "MDL hash partitions: QPS vs threads (shards x hash x fast path)",
        "Autocommit point-selects (one SR lock per statement, 1 µs of work under the lock) on 8 \
         tables `test.sbtest1..8`, for every combination of lock-map partitions {1, 8, 256} \
         (MySQL 5.6's `metadata_locks_hash_instances`) and partition hash {`my_hash_sort_bin` \
         (5.6.14), MurmurHash3 (5.6.15+)}, without the fast path (the 5.6 design: every lock \
         goes through the partition mutex and the lock object's queues) and with it (the 8.0 \
         design). Reproduces published figures section A: 8 partitions with the 5.6.14 hash \
         behave like 1 because the 8 table names land in one partition.",
    );
    let mut header = vec!["fast path", "shards", "hash"];
    let cols: Vec<String> = ths.iter().map(|t| format!("QPS @{t}")).collect();
    header.extend(cols.iter().map(String::as_str));
    let p99 = format!("p99 µs @{}", ths[ths.len() - 1]);
    header.push(&p99);
    let cpu_cols: Vec<String> = ths.iter().map(|t| format!("CPU ns/stmt @{t}")).collect();
    header.extend(cpu_cols.iter().map(String::as_str));
    let mut t = Table::new("qps", "Median QPS (statements/s) by threads", &header);
    for (si, s) in setups.iter().enumerate() {
        let mut row = vec![
            if s.fast_path.is_on() { "on" } else { "off" }.to_string(),
            s.shards.to_string(),
            hash_name(s.hash).to_string(),
        ];
        for res in &results {
            row.push(int(res[si].qps));
        }
        row.push(format!("{:.1}", results[ths.len() - 1][si].p99_us));
        for res in &results {
            row.push(format!("{:.0}", res[si].cpu_ns));
        }
        t.row(row);
    }
    r.tables.push(t);

    // Headline ratios.
    let find = |fast: bool, shards: usize, hash: PartitionHash| {
        setups
            .iter()
            .position(|s| s.fast_path.is_on() == fast && s.shards == shards && s.hash == hash)
            .expect("in the sweep")
    };
    let mut h = Table::new(
        "ratios",
        "Headline ratios, same run: median QPS of one configuration over another, and the same \
         for statements per CPU-second (session CPU time; steadier on a shared machine). \
         Above 1 = the first configuration is faster.",
        &[
            "threads",
            "fast path",
            "8 vs 1 shards (murmur3)",
            "256 vs 1 shards (murmur3)",
            "mysql_bin vs murmur3 (8 shards)",
            "per CPU-s: 8 vs 1",
            "per CPU-s: mysql_bin vs murmur3",
        ],
    );
    for (ti, &th) in ths.iter().enumerate() {
        for fast in [false, true] {
            let q = |s, hsh| results[ti][find(fast, s, hsh)].qps;
            let c = |s, hsh| results[ti][find(fast, s, hsh)].cpu_ns;
            h.row(vec![
                th.to_string(),
                if fast { "on" } else { "off" }.into(),
                ratio(q(8, PartitionHash::Murmur3) / q(1, PartitionHash::Murmur3)),
                ratio(q(256, PartitionHash::Murmur3) / q(1, PartitionHash::Murmur3)),
                ratio(q(8, PartitionHash::MySqlBin) / q(8, PartitionHash::Murmur3)),
                ratio(c(1, PartitionHash::Murmur3) / c(8, PartitionHash::Murmur3)),
                ratio(c(8, PartitionHash::Murmur3) / c(8, PartitionHash::MySqlBin)),
            ]);
        }
    }
    r.tables.push(h);

    // Where the 8 tables land: the skew, computed from the configuration (no run needed).
    let mut p = Table::new(
        "partitions",
        "Where test.sbtest1..8 land (partitions used, and most tables in one partition)",
        &[
            "shards",
            "hash",
            "partitions used",
            "max tables in one partition",
            "partition of each table",
        ],
    );
    let mut placement = Vec::new();
    for shards in SHARDS {
        for hash in HASHES {
            let mgr = MdlManager::new(
                MdlSetup {
                    shards,
                    hash,
                    fast_path: FastPath::SharedWord,
                    ticket_index: TicketIndex::Hashed,
                    lock_cache: 0,
                }
                .config(),
            )
            .expect("valid");
            let parts: Vec<usize> = (1..=8)
                .map(|i| {
                    let k = MdlKey::new(Namespace::Table, "test", &format!("sbtest{i}"))
                        .expect("short");
                    mgr.partition_of(&k)
                })
                .collect();
            let mut counts = std::collections::HashMap::new();
            for &x in &parts {
                *counts.entry(x).or_insert(0usize) += 1;
            }
            p.row(vec![
                shards.to_string(),
                hash_name(hash).into(),
                counts.len().to_string(),
                counts.values().max().copied().unwrap_or(0).to_string(),
                parts
                    .iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
            ]);
            placement.push(json!({"shards": shards, "hash": hash_name(hash), "partitions": parts}));
        }
    }
    r.tables.push(p);

    for fast in [false, true] {
        let mut c = Chart::titled(
            if fast {
                "fast-path-on"
            } else {
                "fast-path-off"
            },
            if fast {
                "Point-select QPS, fast path on (8.0 design)"
            } else {
                "Point-select QPS, fast path off (5.6 design)"
            },
        )
        .x("sessions (threads)", Scale::Log)
        .y("QPS (statements/s, median)", Scale::Linear);
        for (si, s) in setups.iter().enumerate() {
            if s.fast_path.is_on() != fast {
                continue;
            }
            c.line_over(label(s), &ths, |ti| Some(results[ti][si].qps));
        }
        r.charts.push(c);
    }
    // Per-partition waits from pfs: one run per hash with 8 partitions, the synch preset on,
    // read from events_waits_summary_by_instance while the manager is alive.
    let mut waits_json = Vec::new();
    if crate::instr::COMPILED_IN {
        let th = *ths.last().expect("threads");
        let mut w = Table::new(
            "partition-waits",
            &format!(
                "events_waits_summary_by_instance for wait/synch/mutex/mdl/MDL_map::mutex: \
                 COUNT_STAR per partition, 8 partitions, fast path off, {th} threads, synch preset"
            ),
            &[
                "hash",
                "instances with waits",
                "COUNT_STAR per instance (descending)",
                "busiest share",
            ],
        );
        for hash in HASHES {
            let mut case = Case::new(
                PeerSpec::Mdl(MdlSetup {
                    shards: 8,
                    hash,
                    fast_path: FastPath::Off,
                    ticket_index: TicketIndex::Hashed,
                    lock_cache: 0,
                }),
                wl,
                th,
            );
            case.instr = crate::instr::InstrMode::Synch;
            let timing = ctx.timing;
            let counts: Vec<u64> = ctx.timed(timing.per_run(), || {
                let mut rows = Vec::new();
                crate::runner::run_once_then(&case, &timing, |_| {
                    rows = crate::instr::waits_by_instance("wait/synch/mutex/mdl/MDL_map::mutex");
                });
                let mut c: Vec<u64> = rows.iter().map(|r| r.1).collect();
                c.sort_unstable_by(|a, b| b.cmp(a));
                c
            });
            let total: u64 = counts.iter().sum();
            let used = counts.iter().filter(|&&c| c > 0).count();
            w.row(vec![
                hash_name(hash).into(),
                if counts.is_empty() {
                    "no instances".into()
                } else {
                    format!("{used} of {}", counts.len())
                },
                counts
                    .iter()
                    .map(|c| int(*c as f64))
                    .collect::<Vec<_>>()
                    .join(" "),
                if total > 0 {
                    format!("{:.0}%", 100.0 * counts[0] as f64 / total as f64)
                } else {
                    "-".into()
                },
            ]);
            waits_json.push(json!({"hash": hash_name(hash), "count_star": counts}));
        }
        crate::instr::apply(crate::instr::InstrMode::baseline()).expect("baseline");
        if waits_json
            .iter()
            .all(|v| v["count_star"].as_array().is_none_or(|a| a.is_empty()))
        {
            r.notes.push(
                "The partition-waits table is empty: this build of mdl-core registers no \
                 `wait/synch/mutex/mdl/MDL_map::mutex` instances (pfs wiring of mdl-core not in \
                 this build)."
                    .into(),
            );
        }
        r.tables.push(w);
    } else {
        r.notes.push(
            "Per-partition wait counts need instrumentation: this binary was built without the \
             `pfs` feature."
                .into(),
        );
    }
    r.notes.push(
        "This machine has 2 cores: runs with more threads than cores measure time-slicing of \
         the sessions, not parallel contention; a partition mutex held by a preempted thread \
         stalls the others, which is where more partitions still help on 2 cores."
            .into(),
    );
    r.headline = Some(hash_headline(&placement, &waits_json));
    r.data = json!({
        "threads": ths,
        "setups": setups,
        "results": results,
        "placement": placement,
        "partition_waits": waits_json,
        "timing": ctx.timing,
    });
    r
}

/// 8 partitions, `my_hash_sort_bin` vs MurmurHash3: partitions the 8 tables use, and (with
/// instrumentation) the busiest `MDL_map::mutex` instance's share of the waits.
fn hash_headline(placement: &[serde_json::Value], waits: &[serde_json::Value]) -> Headline {
    let used = |hash: &str| {
        placement
            .iter()
            .find(|p| p["shards"] == 8 && p["hash"] == hash)
            .and_then(|p| p["partitions"].as_array())
            .map_or(0, |a| {
                a.iter()
                    .filter_map(|x| x.as_u64())
                    .collect::<std::collections::BTreeSet<_>>()
                    .len()
            })
    };
    let busiest = |hash: &str| {
        let counts: Vec<u64> = waits
            .iter()
            .find(|w| w["hash"] == hash)
            .and_then(|w| w["count_star"].as_array())
            .map(|a| a.iter().filter_map(|c| c.as_u64()).collect())
            .unwrap_or_default();
        let total: u64 = counts.iter().sum();
        (total > 0).then(|| format!("{:.0}%", 100.0 * counts[0] as f64 / total as f64))
    };
    let mut measured = format!("{} vs {} partitions", used("mysql_bin"), used("murmur3"));
    if let (Some(a), Some(b)) = (busiest("mysql_bin"), busiest("murmur3")) {
        measured += &format!("; busiest instance {a} vs {b} of the waits");
    }
    Headline {
        what: "8 partitions, my_hash_sort_bin vs MurmurHash3: partitions the 8 tables use".into(),
        measured,
        published: "all 8 sysbench tables in one partition: 8 instances behaved like 1 (A)".into(),
    }
}

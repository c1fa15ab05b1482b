//! The reports of `mdl-bench`. Each one measures through a [`Ctx`] (so a dry run can size the
//! progress bar first) and returns a [`Report`] (tables, charts, raw data).

use std::path::Path;

use crate::output::Report;
use crate::runner::Ctx;

mod async_acquire;
mod cluster;
mod counters;
mod ddl_hot_table;
mod hash_instances;
mod peers;
mod pfs_reports;
mod sysbench;
mod ticket_store;
mod trx_size;

/// A report's entry point.
pub type ReportFn = fn(&mut Ctx) -> Report;

/// Every report, in the order `report` runs them: (name, what it shows, entry point).
pub const ALL: [(&str, &str, ReportFn); 12] = [
    (
        "hash-instances",
        "QPS vs threads for shards x partition hash x fast path (published A)",
        hash_instances::run,
    ),
    (
        "trx-size",
        "autocommit vs 10 and 100 statements per transaction (published A, F)",
        trx_size::run,
    ),
    (
        "ticket-store",
        "time per lock to take N locks in one context, hashed vs linear (published E)",
        ticket_store::run,
    ),
    (
        "peers",
        "QPS and p99 vs threads, mdl vs other lock managers",
        peers::run,
    ),
    (
        "ddl-hot-table",
        "EXCLUSIVE on a hot table vs 16 / 256 / 4,096 other contexts, per fast-path mode",
        ddl_hot_table::run_report,
    ),
    (
        "async",
        "acquire_async vs acquire, wake-up latency vs tokio RwLock, 1,000 tasks with DDL on 2 workers",
        async_acquire::run,
    ),
    (
        "cluster",
        "cluster-wide locks on etcd: EXCLUSIVE latency at 1/3/5 nodes, statement CPU, DDL after a node is killed",
        cluster::run,
    ),
    (
        "counters",
        "cost of the ways to count an event (published D)",
        counters::run,
    ),
    (
        "pfs-overhead",
        "QPS per instrumentation mode vs threads (published B, C, F)",
        pfs_reports::overhead_report,
    ),
    (
        "amplification",
        "synch-mode overhead vs work per statement (published C, D)",
        pfs_reports::amplification,
    ),
    (
        "contention",
        "instrumentation overhead vs contention (published B)",
        pfs_reports::contention,
    ),
    (
        "sysbench",
        "sysbench against mdl-server: protocol floor, instrumentation modes, MySQL designs, MariaDB",
        sysbench::run,
    ),
];

/// Looks a report up by name.
pub fn find(name: &str) -> Option<ReportFn> {
    ALL.iter().find(|r| r.0 == name).map(|r| r.2)
}

/// Thread counts swept by the multi-threaded reports.
pub fn threads(ctx: &Ctx) -> Vec<usize> {
    if ctx.quick {
        vec![1, 2, 8]
    } else {
        vec![1, 2, 4, 8, 16]
    }
}

/// `x` with thousands separators (`123,456`).
pub fn int(x: f64) -> String {
    // A difference that rounds to zero from below (-0.4) reads 0, not -0.
    let x = if x.round() == 0.0 { 0.0 } else { x };
    let s = format!("{:.0}", x);
    let (sign, digits) = s.split_at(if s.starts_with('-') { 1 } else { 0 });
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

/// A ratio as `1.23x`.
pub fn ratio(x: f64) -> String {
    format!("{x:.2}x")
}

/// A signed percentage (`+1.2%`).
pub fn pct(x: f64) -> String {
    format!("{:+.1}%", x * 100.0)
}

/// The headline a report wrote into `<dir>/<name>.json`, if any.
fn headline(dir: &Path, name: &str) -> Option<crate::output::Headline> {
    let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    serde_json::from_value(v.get("headline")?.clone()).ok()
}

/// Writes the index page: first one table with each report's headline figure next to the
/// published figure it reproduces, then the links to every report page.
///
/// # Errors
/// File-system errors.
pub fn write_index(
    dir: &Path,
    pages: &[(String, String, Vec<String>)],
    header: &str,
) -> std::io::Result<()> {
    use std::fmt::Write as _;
    let mut md = String::new();
    let _ = writeln!(md, "# mdl benchmark report\n\n{header}\n");
    let _ = writeln!(
        md,
        "| report | what | measured | published |\n|---|---|---|---|"
    );
    for (name, _, _) in pages {
        match headline(dir, name) {
            Some(h) => {
                let _ = writeln!(
                    md,
                    "| [{name}]({name}.md) | {} | {} | {} |",
                    h.what, h.measured, h.published
                );
            }
            None => {
                let _ = writeln!(md, "| [{name}]({name}.md) | (no headline yet) | | |");
            }
        }
    }
    md.push('\n');
    for (name, title, files) in pages {
        let _ = writeln!(md, "## [{title}]({name}.md)\n");
        for f in files {
            if f.ends_with(".svg") {
                let _ = writeln!(md, "![{f}]({f})\n");
            } else {
                let _ = writeln!(md, "- [{f}]({f})");
            }
        }
        md.push('\n');
    }
    std::fs::write(dir.join("index.md"), md)
}

/// Measures every `(label, peer, workload)` at every thread count of `ths` (the cases of one
/// thread count interleaved). Returns `results[thread index][case index]`.
pub fn sweep(
    ctx: &mut Ctx,
    what: &str,
    cases: &[(String, crate::peers::PeerSpec, crate::workload::Workload)],
    ths: &[usize],
) -> Vec<Vec<crate::runner::Measured>> {
    ths.iter()
        .map(|&t| {
            ctx.message(format!("{what}, {t} threads"));
            let cs: Vec<crate::runner::Case> = cases
                .iter()
                .map(|(_, p, w)| crate::runner::Case::new(p.clone(), *w, t))
                .collect();
            ctx.compare(&cs)
        })
        .collect()
}

/// A table with one row per case: QPS at every thread count, then p99 at every thread count.
pub fn sweep_table(
    stem: &str,
    caption: &str,
    labels: &[String],
    ths: &[usize],
    res: &[Vec<crate::runner::Measured>],
    with_p99: bool,
) -> crate::output::Table {
    let mut header = vec!["configuration".to_string()];
    header.extend(ths.iter().map(|t| format!("QPS @{t}")));
    if with_p99 {
        header.extend(ths.iter().map(|t| format!("p99 µs @{t}")));
    }
    header.extend(ths.iter().map(|t| format!("CPU ns/stmt @{t}")));
    let h: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = crate::output::Table::new(stem, caption, &h);
    for (ci, l) in labels.iter().enumerate() {
        let mut row = vec![l.clone()];
        row.extend(res.iter().map(|r| int(r[ci].qps)));
        if with_p99 {
            row.extend(res.iter().map(|r| format!("{:.1}", r[ci].p99_us)));
        }
        row.extend(res.iter().map(|r| format!("{:.0}", r[ci].cpu_ns)));
        t.row(row);
    }
    t
}

/// A chart with one line per case: `metric` vs threads.
pub fn sweep_chart(
    stem: &str,
    title: &str,
    y_label: &str,
    labels: &[String],
    ths: &[usize],
    res: &[Vec<crate::runner::Measured>],
    metric: fn(&crate::runner::Measured) -> f64,
) -> crate::output::Chart {
    let mut c = crate::output::Chart::new(stem, title, "sessions (threads)", y_label);
    c.log_x = true;
    for (ci, l) in labels.iter().enumerate() {
        c.line(
            l.clone(),
            ths.iter()
                .enumerate()
                .map(|(ti, &t)| (t as f64, metric(&res[ti][ci])))
                .collect(),
        );
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_opens_with_the_headlines() {
        let dir = std::env::temp_dir().join(format!("mdl-index-test-{}", std::process::id()));
        let mut r = crate::output::Report::new("demo", "Demo", "what");
        r.headline = Some(crate::output::Headline {
            what: "overhead".into(),
            measured: "+3%".into(),
            published: "4.5% (B)".into(),
        });
        r.write(&dir).unwrap();
        let pages = vec![
            (
                "demo".to_string(),
                "Demo".to_string(),
                vec!["demo.json".to_string()],
            ),
            ("other".to_string(), "Other".to_string(), vec![]),
        ];
        write_index(&dir, &pages, "header").unwrap();
        let md = std::fs::read_to_string(dir.join("index.md")).unwrap();
        let table = md
            .find("| [demo](demo.md) | overhead | +3% | 4.5% (B) |")
            .unwrap();
        assert!(md.contains("| [other](other.md) | (no headline yet) | | |"));
        assert!(table < md.find("## [Demo](demo.md)").unwrap());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn formatting() {
        assert_eq!(int(1234567.4), "1,234,567");
        assert_eq!(int(-1234.0), "-1,234");
        assert_eq!(int(12.0), "12");
        assert_eq!(int(-0.4), "0");
        assert_eq!(pct(0.0123), "+1.2%");
        assert!(find("peers").is_some() && find("nope").is_none());
    }
}

//! Readers of the summary tables: aggregation on read (the "higher level" aggregation of
//! PAGE_AGGREGATES, the design notes in MySQL 5.7's `storage/perfschema/pfs.cc`) over live
//! instances, live threads, and what dropped instances and exited threads folded in. A
//! statement class's totals include the digest cells bound to it (see `record::digest_stat`).

use std::sync::atomic::Ordering;

use super::classes::{classes, Classes};
use super::instances::{instances, Instance};
use super::statement::Sums;
use super::stats::{self, bucket_upper, Snap, HIST_BUCKETS};
use super::thread::{self, threads, with_live};
use super::timer::ticks_to_ps;
use crate::histograms::statement_quantiles;
use crate::kinds::{ClassKind, Clock};
use crate::pattern::Pattern;
use crate::tables::*;

pub(crate) fn summary(s: &Snap, clock: Clock) -> SummaryStats {
    if s.count == 0 {
        return SummaryStats::default();
    }
    let sum = ticks_to_ps(s.sum, clock);
    let (min, max) = if s.min <= s.max {
        (ticks_to_ps(s.min, clock), ticks_to_ps(s.max, clock))
    } else {
        (0, 0)
    };
    SummaryStats {
        count_star: s.count,
        sum_timer_wait: sum,
        min_timer_wait: min,
        avg_timer_wait: sum / s.count,
        max_timer_wait: max,
    }
}

/// `cells` of every live thread merged into `base` (the exited aggregate), element-wise.
fn merge_threads<C: AsRef<stats::StatCell>>(
    base: &[Snap],
    cells: impl Fn(&thread::ThreadSlot) -> &[C],
) -> Vec<Snap> {
    let mut v = base.to_vec();
    with_live(|live| {
        for t in live {
            for (agg, c) in v.iter_mut().zip(cells(t).iter()) {
                agg.merge(&c.as_ref().snapshot());
            }
        }
    });
    v
}

fn exited<R>(f: impl FnOnce(&thread::Threads) -> R) -> R {
    f(&threads())
}

/// Per-class totals: instance classes from live instances + destroyed ones; the others from
/// live threads + exited threads, statement classes with their bound digests.
fn class_totals(g: &Classes) -> Vec<Snap> {
    let classes = g.registered();
    let base = exited(|th| th.exited[..classes.len()].to_vec());
    let mut totals = merge_threads(&base, |t| &t.stats);
    let digests = g.digests();
    let dbase = exited(|th| th.exited_digests[..digests.len()].to_vec());
    for (d, s) in digests.iter().zip(merge_threads(&dbase, |t| &t.digests)) {
        if let Some(t) = totals.get_mut(d.class.load(Ordering::Relaxed) as usize) {
            t.merge(&s);
        }
    }
    for (i, c) in classes.iter().enumerate() {
        if c.kind().has_instances() {
            totals[i] = c.destroyed.snapshot();
        }
    }
    instances().with_live(|it: &mut dyn Iterator<Item = &Instance>| {
        for inst in it {
            let ci = inst.class.load(Ordering::Relaxed) as usize;
            if let Some(t) = totals.get_mut(ci) {
                t.merge(&inst.wait.snapshot());
            }
        }
    });
    totals
}

/// Rows built from the live instances whose class matches `filter`.
fn instance_rows<R>(filter: Option<&Pattern>, row: impl Fn(&Instance) -> R) -> Vec<R> {
    instances().with_live(|it: &mut dyn Iterator<Item = &Instance>| {
        it.filter(|i| filter.is_none_or(|p| p.matches(i.class_info().name())))
            .map(&row)
            .collect()
    })
}

pub(crate) fn summary_global(filter: impl Fn(ClassKind) -> bool) -> Vec<SummaryByEventNameRow> {
    let g = classes();
    let totals = class_totals(g);
    g.registered()
        .iter()
        .zip(totals.iter())
        .filter(|(c, _)| filter(c.kind()))
        .map(|(c, s)| SummaryByEventNameRow {
            event_name: c.name().to_string(),
            stats: summary(s, c.clock()),
        })
        .collect()
}

pub(crate) fn summary_by_instance(filter: Option<&Pattern>) -> Vec<SummaryByInstanceRow> {
    let mut rows = instance_rows(filter, |i| {
        let c = i.class_info();
        SummaryByInstanceRow {
            event_name: c.name().to_string(),
            object_instance_begin: i.identity.load(Ordering::Relaxed),
            stats: summary(&i.wait.snapshot(), c.clock()),
        }
    });
    rows.sort_by(|a, b| {
        (&a.event_name, a.object_instance_begin).cmp(&(&b.event_name, b.object_instance_begin))
    });
    rows
}

/// The live instances of the classes of `kind`, by name and identity (the rows of
/// `mutex_instances`, `rwlock_instances`, `cond_instances`).
pub(crate) fn synch_instances(kind: ClassKind) -> Vec<SynchInstanceRow> {
    let mut rows: Vec<SynchInstanceRow> = instance_rows(None, |i| {
        let c = i.class_info();
        (c.kind() == kind).then(|| SynchInstanceRow {
            name: c.name().to_string(),
            object_instance_begin: i.identity.load(Ordering::Relaxed),
            locked_by_thread_id: Some(i.owner.load(Ordering::Relaxed)).filter(|&t| t != 0),
            read_locked_by_count: i.readers.load(Ordering::Relaxed),
        })
    })
    .into_iter()
    .flatten()
    .collect();
    rows.sort_by(|a, b| {
        (&a.name, a.object_instance_begin).cmp(&(&b.name, b.object_instance_begin))
    });
    rows
}

pub(crate) fn lock_stat_by_instance(filter: Option<&Pattern>) -> Vec<LockStatRow> {
    let mut rows = instance_rows(filter, |i| {
        let c = i.class_info();
        let clock = c.clock();
        let w = summary(&i.wait.snapshot(), clock);
        let h = summary(&i.hold.snapshot(), clock);
        LockStatRow {
            event_name: c.name().to_string(),
            object_instance_begin: i.identity.load(Ordering::Relaxed),
            acquisitions: w.count_star,
            sum_timer_wait: w.sum_timer_wait,
            max_timer_wait: w.max_timer_wait,
            hold_count: h.count_star,
            sum_timer_hold: h.sum_timer_wait,
            min_timer_hold: h.min_timer_wait,
            avg_timer_hold: h.avg_timer_wait,
            max_timer_hold: h.max_timer_wait,
        }
    });
    rows.sort_by(|a, b| {
        b.sum_timer_hold
            .cmp(&a.sum_timer_hold)
            .then(b.sum_timer_wait.cmp(&a.sum_timer_wait))
    });
    rows
}

pub(crate) fn summary_by_digest() -> Vec<SummaryByDigestRow> {
    let g = classes();
    let digests = g.digests();
    let n = digests.len();
    let (b1, b2) = exited(|th| {
        (
            th.exited_digests[..n].to_vec(),
            th.exited_digests_other[..n].to_vec(),
        )
    });
    let sums_base = exited(|th| th.exited_digest_sums[..n].to_vec());
    let mut totals = merge_threads(&b1, |t| &t.digests);
    for (t, o) in totals
        .iter_mut()
        .zip(merge_threads(&b2, |t| &t.digests_other))
    {
        t.merge(&o);
    }
    // Every statement family shares one timer; its classes convert with it.
    let clock = g
        .registered()
        .iter()
        .find(|c| c.kind() == ClassKind::Statement)
        .map_or(Clock::Nanosecond, |c| c.clock());
    let sums = digest_sums(sums_base);
    let seen = |stamp: u64| super::statement::stamp_datetime(stamp, clock);
    let mut rows: Vec<SummaryByDigestRow> = (digests.iter().zip(totals).zip(sums))
        .filter(|((_, s), _)| s.count > 0)
        .map(|((d, s), x)| {
            let text = d.text.get().map(|t| t.to_string()).unwrap_or_default();
            let [quantile_95, quantile_99, quantile_999] = statement_quantiles(&d.hist.counts());
            SummaryByDigestRow {
                schema_name: d.schema.get().map(|s| s.to_string()),
                digest: digest_hash(&text),
                digest_text: text,
                stats: summary(&s, clock),
                sum_lock_time: x.lock_ps,
                sum_errors: x.errors,
                sum_warnings: x.warnings,
                sum_rows_affected: x.rows_affected,
                sum_rows_sent: x.rows_sent,
                sum_select_scan: x.engine[1],
                sum_sort_scan: x.engine[2],
                sum_no_index_used: x.engine[0],
                first_seen: seen(d.first_seen.load(Ordering::Relaxed)),
                last_seen: seen(x.last),
                quantile_95,
                quantile_99,
                quantile_999,
            }
        })
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.stats.sum_timer_wait));
    rows
}

/// The digests' sums of every live thread merged into `base` (the exited aggregate).
fn digest_sums(mut base: Vec<Sums>) -> Vec<Sums> {
    with_live(|live| {
        for t in live {
            for (agg, c) in base.iter_mut().zip(t.digests.iter()) {
                agg.merge(&c.sums());
            }
        }
    });
    base
}

/// DIGEST: a digest text's hash, hex ([`crate::digest_hash`]).
pub(crate) fn digest_hash(text: &str) -> String {
    crate::digest_hash(text)
}

pub(crate) fn histograms() -> Vec<HistogramRow> {
    let classes = classes().registered();
    let mut agg: Vec<[u64; HIST_BUCKETS]> = exited(|th| th.exited_hist[..classes.len()].to_vec());
    with_live(|live| {
        for t in live {
            for (a, h) in agg.iter_mut().zip(t.hists.iter()) {
                if let Some(h) = h.get() {
                    h.add_into(a);
                }
            }
        }
    });
    let mut rows = Vec::new();
    for (c, b) in classes.iter().zip(agg) {
        let count: u64 = b.iter().sum();
        if count == 0 {
            continue;
        }
        let clock = c.clock();
        let upper = |i: usize| ticks_to_ps(bucket_upper(i), clock);
        let pct = |p: f64| {
            let target = ((count as f64) * p).ceil().max(1.0) as u64;
            let mut acc = 0;
            for (i, n) in b.iter().enumerate() {
                acc += n;
                if acc >= target {
                    return upper(i);
                }
            }
            upper(HIST_BUCKETS - 1)
        };
        let max_i = b.iter().rposition(|n| *n > 0).unwrap_or(0);
        rows.push(HistogramRow {
            event_name: c.name().to_string(),
            count,
            p50: pct(0.50),
            p90: pct(0.90),
            p99: pct(0.99),
            p999: pct(0.999),
            max: upper(max_i),
            buckets: b
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(i, n)| (upper(i), *n))
                .collect(),
        });
    }
    rows
}

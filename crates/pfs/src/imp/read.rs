//! Readers: build table rows on demand ("higher level" aggregation, PFS57 PAGE_AGGREGATES).
//!
//! Readers copy atomics; the only locks they take are `threads` (to walk the live thread slots,
//! which blocks thread start/exit for the length of a copy, never an instrumented lock or wait)
//! and `setup` (for the setup tables).

use std::sync::atomic::Ordering;

use super::events::EventData;
use super::stats::{bucket_upper, Snap, HIST_BUCKETS};
use super::thread::ThreadSlot;
use super::timer::{calibration, stamp_to_ps, ticks_to_ps, tsc_usable};
use super::*;
use crate::kinds::Operation;
use crate::tables::*;
use crate::Status;

fn summary(s: &Snap, clock: Clock) -> SummaryStats {
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

fn class_at(g: &Global, idx: u32) -> Option<&ClassInfo> {
    g.registered().get(idx as usize)
}

pub(crate) fn setup_instruments() -> Vec<SetupInstrumentRow> {
    let g = global();
    let _st = g.setup.lock();
    g.registered()
        .iter()
        .map(|c| {
            let (e, t) = c.cfg();
            SetupInstrumentRow {
                name: c.name().to_string(),
                enabled: e,
                timed: t,
                compiled: c.kind().compiled(),
            }
        })
        .collect()
}

pub(crate) fn instrument_setting(name: &str) -> Option<(bool, bool)> {
    let g = global();
    g.registered()
        .iter()
        .find(|c| c.name() == name)
        .map(|c| c.cfg())
}

pub(crate) fn consumer_enabled(c: Consumer) -> (bool, bool) {
    let st = global().setup.lock();
    (st.consumers[c.index()], st.effective(c))
}

pub(crate) fn master() -> bool {
    global().setup.lock().master
}

pub(crate) fn setup_consumers() -> Vec<SetupConsumerRow> {
    let st = global().setup.lock();
    Consumer::ALL
        .iter()
        .map(|c| SetupConsumerRow {
            name: c.name().to_string(),
            enabled: st.consumers[c.index()],
        })
        .collect()
}

pub(crate) fn performance_timers() -> Vec<PerformanceTimerRow> {
    let cal = calibration();
    vec![
        PerformanceTimerRow {
            timer_name: "CYCLE".into(),
            timer_frequency: tsc_usable().then_some(cal.cycle_freq),
            timer_resolution: tsc_usable().then_some(1),
            timer_overhead: tsc_usable().then_some(cal.cycle_overhead),
        },
        PerformanceTimerRow {
            timer_name: "NANOSECOND".into(),
            timer_frequency: Some(1_000_000_000),
            timer_resolution: Some(1),
            timer_overhead: Some(cal.ns_overhead),
        },
    ]
}

fn wait_row(g: &Global, d: &EventData) -> Option<WaitEventRow> {
    let c = class_at(g, d.class)?;
    let clock = c.clock();
    let ended = d.end_event_id != 0;
    Some(WaitEventRow {
        thread_id: d.thread_id,
        event_id: d.event_id,
        end_event_id: ended.then_some(d.end_event_id),
        event_name: c.name().to_string(),
        timer_start: d.timed.then(|| stamp_to_ps(d.timer_start, clock)),
        timer_end: (d.timed && ended).then(|| stamp_to_ps(d.timer_end, clock)),
        timer_wait: (d.timed && ended)
            .then(|| ticks_to_ps(d.timer_end.saturating_sub(d.timer_start), clock)),
        object_instance_begin: d.object,
        nesting_event_id: (d.nesting != 0).then_some(d.nesting),
        operation: Operation::from_u8(d.op)
            .map(|o| o.as_str())
            .unwrap_or("")
            .to_string(),
    })
}

fn statement_row(g: &Global, d: &EventData) -> Option<StatementEventRow> {
    let c = class_at(g, d.class)?;
    let clock = c.clock();
    let ended = d.end_event_id != 0;
    let digest_text = if c.kind() == ClassKind::Statement && d.object != 0 {
        g.digests
            .get(d.object as usize - 1)
            .and_then(|x| x.text.get())
            .map(|s| s.to_string())
    } else {
        None
    };
    Some(StatementEventRow {
        thread_id: d.thread_id,
        event_id: d.event_id,
        end_event_id: ended.then_some(d.end_event_id),
        event_name: c.name().to_string(),
        timer_start: d.timed.then(|| stamp_to_ps(d.timer_start, clock)),
        timer_end: (d.timed && ended).then(|| stamp_to_ps(d.timer_end, clock)),
        timer_wait: (d.timed && ended)
            .then(|| ticks_to_ps(d.timer_end.saturating_sub(d.timer_start), clock)),
        digest_text,
        nesting_event_id: (d.nesting != 0).then_some(d.nesting),
    })
}

fn live_threads() -> Vec<std::sync::Arc<ThreadSlot>> {
    global().threads.lock().live.clone()
}

/// Which per-thread record set to read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    WaitsCurrent,
    WaitsHistory,
    StagesCurrent,
    StagesHistory,
    StatementsCurrent,
    StatementsHistory,
}

fn thread_events(t: &ThreadSlot, which: Which) -> Vec<EventData> {
    match which {
        Which::WaitsCurrent => {
            let depth = t.wait_depth.load(Ordering::Relaxed).clamp(1, WAIT_STACK);
            t.wait_stack[..depth]
                .iter()
                .filter_map(|r| r.read())
                .collect()
        }
        Which::WaitsHistory => t.waits_history.read_all(),
        Which::StagesCurrent => t.stage.read().into_iter().collect(),
        Which::StagesHistory => t.stages_history.read_all(),
        Which::StatementsCurrent => t.statement.read().into_iter().collect(),
        Which::StatementsHistory => t.statements_history.read_all(),
    }
}

fn collect_events(which: Which) -> Vec<EventData> {
    let mut v: Vec<EventData> = live_threads()
        .iter()
        .flat_map(|t| thread_events(t, which))
        .collect();
    v.sort_by_key(|d| (d.thread_id, d.event_id));
    v
}

pub(crate) fn wait_events(which: Which) -> Vec<WaitEventRow> {
    let g = global();
    collect_events(which)
        .iter()
        .filter_map(|d| wait_row(g, d))
        .collect()
}

pub(crate) fn waits_history_long() -> Vec<WaitEventRow> {
    let g = global();
    g.history_long
        .read_all()
        .iter()
        .filter_map(|d| wait_row(g, d))
        .collect()
}

pub(crate) fn statement_events(which: Which) -> Vec<StatementEventRow> {
    let g = global();
    collect_events(which)
        .iter()
        .filter_map(|d| statement_row(g, d))
        .collect()
}

/// Per-class totals: instance classes from live instances + destroyed ones; the others from
/// live threads + exited threads.
fn class_totals(g: &Global) -> Vec<Snap> {
    let classes = g.registered();
    let mut totals: Vec<Snap> = {
        let th = g.threads.lock();
        let mut v: Vec<Snap> = th.exited[..classes.len()].to_vec();
        for t in &th.live {
            for (agg, c) in v.iter_mut().zip(t.stats.iter()) {
                agg.merge(&c.snapshot());
            }
        }
        v
    };
    for (i, c) in classes.iter().enumerate() {
        if c.kind().has_instances() {
            totals[i] = c.destroyed.snapshot();
        }
    }
    for inst in live_instances(g) {
        let ci = inst.class.load(Ordering::Relaxed) as usize;
        if let Some(t) = totals.get_mut(ci) {
            t.merge(&inst.wait.snapshot());
        }
    }
    totals
}

fn live_instances(g: &Global) -> impl Iterator<Item = &Instance> {
    let high = g.inst_alloc.lock().high as usize;
    g.instances[..high]
        .iter()
        .filter(|i| i.in_use.load(Ordering::Acquire))
}

pub(crate) fn summary_global(filter: impl Fn(ClassKind) -> bool) -> Vec<SummaryByEventNameRow> {
    let g = global();
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
    let g = global();
    let mut rows: Vec<SummaryByInstanceRow> = live_instances(g)
        .filter_map(|i| {
            let c = i.class_info();
            if filter.is_some_and(|p| !p.matches(c.name())) {
                return None;
            }
            Some(SummaryByInstanceRow {
                event_name: c.name().to_string(),
                object_instance_begin: i.identity.load(Ordering::Relaxed),
                stats: summary(&i.wait.snapshot(), c.clock()),
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        (&a.event_name, a.object_instance_begin).cmp(&(&b.event_name, b.object_instance_begin))
    });
    rows
}

pub(crate) fn lock_stat_by_instance(filter: Option<&Pattern>) -> Vec<LockStatRow> {
    let g = global();
    let mut rows: Vec<LockStatRow> = live_instances(g)
        .filter_map(|i| {
            let c = i.class_info();
            if filter.is_some_and(|p| !p.matches(c.name())) {
                return None;
            }
            let clock = c.clock();
            let w = summary(&i.wait.snapshot(), clock);
            let h = summary(&i.hold.snapshot(), clock);
            Some(LockStatRow {
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
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.sum_timer_hold
            .cmp(&a.sum_timer_hold)
            .then(b.sum_timer_wait.cmp(&a.sum_timer_wait))
    });
    rows
}

pub(crate) fn summary_by_thread() -> Vec<SummaryByThreadRow> {
    let g = global();
    let classes = g.registered();
    let mut rows = Vec::new();
    for t in live_threads() {
        for (c, s) in classes.iter().zip(t.stats.iter()) {
            let s = s.snapshot();
            if s.count == 0 || !c.kind().is_wait() {
                continue;
            }
            rows.push(SummaryByThreadRow {
                thread_id: t.thread_id,
                event_name: c.name().to_string(),
                stats: summary(&s, c.clock()),
            });
        }
    }
    rows.sort_by(|a, b| (a.thread_id, &a.event_name).cmp(&(b.thread_id, &b.event_name)));
    rows
}

pub(crate) fn summary_by_digest() -> Vec<SummaryByDigestRow> {
    let g = global();
    let n = g.digest_count.load(Ordering::Acquire).min(g.digests.len());
    let mut totals: Vec<Snap> = {
        let th = g.threads.lock();
        let mut v = th.exited_digests[..n].to_vec();
        for t in &th.live {
            for (agg, c) in v.iter_mut().zip(t.digests.iter()) {
                agg.merge(&c.snapshot());
            }
        }
        v
    };
    let mut rows: Vec<SummaryByDigestRow> = totals
        .drain(..)
        .enumerate()
        .filter(|(_, s)| s.count > 0)
        .map(|(i, s)| {
            let text = g.digests[i]
                .text
                .get()
                .map(|t| t.to_string())
                .unwrap_or_default();
            SummaryByDigestRow {
                digest: format!("{:016x}", fnv1a(text.as_bytes())),
                digest_text: text,
                stats: summary(&s, Clock::Nanosecond),
            }
        })
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.stats.sum_timer_wait));
    rows
}

fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ *x as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

pub(crate) fn histograms() -> Vec<HistogramRow> {
    let g = global();
    let classes = g.registered();
    let mut agg: Vec<[u64; HIST_BUCKETS]> = {
        let th = g.threads.lock();
        let mut v = th.exited_hist[..classes.len()].to_vec();
        for t in &th.live {
            for (a, h) in v.iter_mut().zip(t.hists.iter()) {
                if let Some(h) = h.get() {
                    h.add_into(a);
                }
            }
        }
        v
    };
    let mut rows = Vec::new();
    for (c, b) in classes.iter().zip(agg.drain(..)) {
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

pub(crate) fn threads() -> Vec<ThreadRow> {
    let mut rows: Vec<ThreadRow> = live_threads()
        .iter()
        .map(|t| ThreadRow {
            thread_id: t.thread_id,
            name: t.name.clone(),
        })
        .collect();
    rows.sort_by_key(|r| r.thread_id);
    rows
}

pub(crate) fn status() -> Status {
    let g = global();
    let master = g.setup.lock().master;
    let lost = |k: ClassKind| g.lost.instances[k.index()].load(Ordering::Relaxed);
    let (high, free) = {
        let a = g.inst_alloc.lock();
        (a.high as u64, a.free.len() as u64)
    };
    Status {
        compiled: true,
        master,
        classes: g.registered().len() as u64,
        class_capacity: g.classes.len() as u64,
        class_lost: g.lost.class.load(Ordering::Relaxed),
        instances_used: high - free,
        instance_capacity: g.instances.len() as u64,
        mutex_instances_lost: lost(ClassKind::Mutex),
        rwlock_instances_lost: lost(ClassKind::RwLock),
        cond_instances_lost: lost(ClassKind::Cond),
        other_instances_lost: ClassKind::ALL
            .iter()
            .filter(|k| !k.has_instances())
            .map(|k| lost(*k))
            .sum(),
        threads_live: g.threads.lock().live.len() as u64,
        thread_lost: g.lost.thread.load(Ordering::Relaxed),
        locker_lost: g.lost.locker.load(Ordering::Relaxed),
        digests: g.digest_count.load(Ordering::Relaxed) as u64,
        digest_lost: g.lost.digest.load(Ordering::Relaxed),
        waits_history_long_written: g.history_long.written(),
    }
}

// ---------------------------------------------------------------------------------------------
// Truncate. Resets write cells owned by other threads; a reset concurrent with activity may
// keep or lose a few in-flight updates (as in PFS). On a quiescent system it is exact.

pub(crate) fn truncate_by_instance() {
    let g = global();
    let _a = g.inst_alloc.lock();
    for c in g.registered() {
        c.destroyed.reset();
        c.destroyed_hold.reset();
    }
    for i in g.instances.iter() {
        i.wait.reset();
        i.hold.reset();
    }
}

pub(crate) fn truncate_by_thread() {
    let g = global();
    let mut th = g.threads.lock();
    let live = th.live.clone();
    for t in &live {
        // Keep the global summary: fold into the exited aggregate first (PFS folds into the
        // account/user/host parents).
        th.fold(t);
        t.reset_stats();
    }
}

pub(crate) fn truncate_global() {
    truncate_by_instance();
    let g = global();
    let mut guard = g.threads.lock();
    let th = &mut *guard;
    for t in &th.live {
        t.reset_stats();
    }
    for s in th.exited.iter_mut().chain(th.exited_digests.iter_mut()) {
        *s = Snap::default();
    }
    for h in th.exited_hist.iter_mut() {
        *h = [0; HIST_BUCKETS];
    }
}

pub(crate) fn truncate_history() {
    let g = global();
    for t in g.threads.lock().live.iter() {
        t.waits_history.clear();
        t.stages_history.clear();
        t.statements_history.clear();
    }
    g.history_long.clear();
}

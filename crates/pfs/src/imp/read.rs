//! Readers of the setup tables, the event tables, `threads` and the status, and the truncates
//! (the summaries are in `summary`).
//!
//! Readers copy atomics; the only locks they take are `threads` (to walk the live thread slots,
//! which blocks thread start and exit for the length of a copy, never an instrumented lock or
//! event) and `setup` (for the setup tables).

use std::sync::atomic::Ordering;

pub(crate) use super::summary::*;

use super::classes::{classes, ClassInfo, STAGES_LOG, STATEMENTS_LOG, UNBOUND, WAITS_LOG};
use super::events::{long_rings, EventData, B_CYCLES, B_TIMED};
use super::instances::instances;
use super::limits::LOST;
use super::setup::setup;
use super::statement::ExtraData;
use super::stats;
use super::thread::{threads as registry, with_live};
use super::timer::{calibration, timer_columns, tsc_usable};
use super::trx_log::NEST_TRX;
use crate::config::Status;
use crate::kinds::{ClassKind, Clock, Consumer, EventFamily, Operation};
use crate::tables::*;

pub(crate) fn setup_instruments() -> Vec<SetupInstrumentRow> {
    super::transaction::class(); // listed from the start, as MySQL's
    let _st = setup();
    classes()
        .registered()
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
    classes()
        .registered()
        .iter()
        .find(|c| c.name() == name)
        .map(|c| c.cfg())
}

pub(crate) fn consumer_enabled(c: Consumer) -> (bool, bool) {
    let st = setup();
    (st.consumers[c.index()], st.effective(c))
}

pub(crate) fn master() -> bool {
    setup().master
}

pub(crate) fn setup_consumers() -> Vec<SetupConsumerRow> {
    let st = setup();
    Consumer::ALL
        .iter()
        .map(|c| SetupConsumerRow {
            name: c.name().to_string(),
            enabled: st.consumers[c.index()],
        })
        .collect()
}

pub(crate) fn setup_timers() -> Vec<SetupTimerRow> {
    let st = setup();
    EventFamily::ALL
        .iter()
        .map(|f| SetupTimerRow {
            name: f.name().to_string(),
            timer_name: st.timers[f.index()].name().to_string(),
        })
        .collect()
}

pub(crate) fn setup_actors() -> Vec<SetupActorRow> {
    let th = registry();
    th.actors
        .iter()
        .map(|a| SetupActorRow {
            host: a.host.clone(),
            user: a.user.clone(),
            role: "%".into(),
            enabled: a.enabled,
            history: a.history,
        })
        .collect()
}

pub(crate) fn setup_threads() -> Vec<SetupThreadRow> {
    let th = registry();
    th.rules
        .iter()
        .map(|(p, e, h)| SetupThreadRow {
            name: p.as_str().to_string(),
            enabled: *e,
            history: *h,
        })
        .collect()
}

pub(crate) fn performance_timers() -> Vec<PerformanceTimerRow> {
    let cal = calibration();
    let used_by = |clock: Clock| {
        let st = setup();
        let v: Vec<&str> = EventFamily::ALL
            .iter()
            .filter(|f| st.clock(**f) == clock)
            .map(|f| f.name())
            .collect();
        v.join(",")
    };
    let tsc = tsc_usable();
    vec![
        PerformanceTimerRow {
            timer_name: Clock::Cycle.name().into(),
            timer_frequency: tsc.then_some(cal.cycle_freq),
            timer_resolution: tsc.then_some(1),
            timer_overhead: tsc.then_some(cal.cycle_overhead),
            read_cost_ps: tsc.then_some(cal.cycle_read_ps),
            used_by: used_by(Clock::Cycle),
        },
        PerformanceTimerRow {
            timer_name: Clock::Nanosecond.name().into(),
            timer_frequency: Some(1_000_000_000),
            timer_resolution: Some(1),
            timer_overhead: Some(cal.ns_overhead),
            read_cost_ps: Some(cal.ns_read_ps),
            used_by: used_by(Clock::Nanosecond),
        },
    ]
}

/// The columns every `events_*` row starts with, of a copied event of class `c`.
fn event_columns(d: &EventData, c: &ClassInfo) -> EventColumns {
    let clock = if d.bits & B_CYCLES != 0 {
        Clock::Cycle
    } else {
        Clock::Nanosecond
    };
    let timed = d.bits & B_TIMED != 0;
    let end = (d.end_event_id != 0).then_some(d.timer_end);
    let [timer_start, timer_end, timer_wait] = timer_columns(timed, d.timer_start, end, clock);
    EventColumns {
        thread_id: d.thread_id,
        event_id: d.event_id,
        end_event_id: (d.end_event_id != 0).then_some(d.end_event_id),
        event_name: c.name().to_string(),
        timer_start,
        timer_end,
        timer_wait,
    }
}

fn wait_row(d: &EventData) -> Option<WaitEventRow> {
    let c = classes().get(d.class)?;
    Some(WaitEventRow {
        event: event_columns(d, c),
        object_instance_begin: d.object,
        nesting_event_id: (d.nesting != 0).then_some(d.nesting),
        operation: Operation::from_u8(d.op)
            .map(|o| o.as_str())
            .unwrap_or("")
            .to_string(),
    })
}

fn statement_row(d: &EventData, extra: Option<ExtraData>) -> Option<StatementEventRow> {
    let c = classes().get(d.class)?;
    let digest = (c.kind() == ClassKind::Statement && d.object != 0)
        .then(|| classes().digests().get(d.object as usize - 1))
        .flatten();
    let digest_text = digest.and_then(|x| x.text.get()).map(|s| s.to_string());
    let ExtraData { text, end } = extra.unwrap_or_default();
    let end = end.unwrap_or_default();
    let statement = c.kind() == ClassKind::Statement;
    let engine = crate::outcome::engine_parts(end.engine);
    Some(StatementEventRow {
        event: event_columns(d, c),
        lock_time: end.lock_ps,
        sql_text: text.or_else(|| digest_text.clone().filter(|_| statement)),
        digest: digest_text.as_deref().map(super::summary::digest_hash),
        digest_text,
        current_schema: digest.and_then(|x| x.schema.get()).map(|s| s.to_string()),
        mysql_errno: end.errno,
        returned_sqlstate: end.sqlstate,
        message_text: end.message,
        errors: u64::from(end.errno != 0),
        warnings: u64::from(end.warnings),
        rows_affected: end.rows_affected,
        rows_sent: end.rows_sent,
        select_scan: engine[1],
        sort_scan: engine[2],
        no_index_used: engine[0],
        nesting_event_id: (d.nesting != 0).then_some(d.nesting & !NEST_TRX),
        nesting_event_type: (d.nesting != 0).then(|| {
            match d.nesting & NEST_TRX {
                0 => "STATEMENT",
                _ => "TRANSACTION",
            }
            .to_string()
        }),
    })
}

/// The log of `family`'s events.
fn log_index(family: EventFamily) -> usize {
    match family {
        EventFamily::Stage => STAGES_LOG,
        EventFamily::Statement => STATEMENTS_LOG,
        EventFamily::Wait | EventFamily::Idle | EventFamily::Transaction => WAITS_LOG,
    }
}

fn collect(family: EventFamily, history: bool) -> Vec<EventData> {
    let l = log_index(family);
    let mut v: Vec<EventData> = with_live(|live| {
        live.iter()
            .flat_map(|t| {
                if history {
                    t.logs[l].history()
                } else {
                    t.logs[l].current()
                }
            })
            .collect()
    });
    v.sort_by_key(|d| (d.thread_id, d.event_id));
    v
}

/// `events_waits_current` (`history` false) or `events_waits_history`.
pub(crate) fn wait_events(history: bool) -> Vec<WaitEventRow> {
    let v = collect(EventFamily::Wait, history);
    v.iter().filter_map(wait_row).collect()
}

/// `events_{stages,statements}_current` / `_history`.
pub(crate) fn statement_events(family: EventFamily, history: bool) -> Vec<StatementEventRow> {
    if family != EventFamily::Statement {
        let v = collect(family, history);
        return v.iter().filter_map(|d| statement_row(d, None)).collect();
    }
    let mut v: Vec<(EventData, Option<ExtraData>)> = with_live(|live| {
        live.iter()
            .flat_map(|t| {
                let log = &t.logs[STATEMENTS_LOG];
                let v = if history {
                    log.history_indexed()
                } else {
                    log.current_indexed()
                };
                let extra = |i: usize, d: &EventData| t.statements.get(i)?.read(d.event_id);
                v.into_iter()
                    .map(|(i, d)| (d, extra(i, &d)))
                    .collect::<Vec<_>>()
            })
            .collect()
    });
    v.sort_by_key(|(d, _)| (d.thread_id, d.event_id));
    v.into_iter()
        .filter_map(|(d, x)| statement_row(&d, x))
        .collect()
}

pub(crate) fn waits_history_long() -> Vec<WaitEventRow> {
    let v = long_rings()[0].read_all();
    v.iter().filter_map(wait_row).collect()
}

pub(crate) fn statement_history_long(family: EventFamily) -> Vec<StatementEventRow> {
    let v = long_rings()[log_index(family)].read_all_indexed();
    let statements = family == EventFamily::Statement;
    let extra = |i: usize, d: &EventData| match statements {
        true => super::statement::long_extra(i)?.read(d.event_id),
        false => None,
    };
    (v.iter())
        .filter_map(|(i, d)| statement_row(d, extra(*i, d)))
        .collect()
}

pub(crate) fn threads() -> Vec<ThreadRow> {
    let mut rows: Vec<ThreadRow> = with_live(|live| {
        live.iter()
            .map(|t| {
                let account = t.account.lock().clone();
                let session = t.session.load(Ordering::Relaxed);
                let foreground = session || account.is_some();
                ThreadRow {
                    thread_id: t.thread_id(),
                    name: t.name.lock().clone(),
                    thread_type: if foreground {
                        "FOREGROUND"
                    } else {
                        "BACKGROUND"
                    }
                    .into(),
                    processlist_id: session.then(|| t.processlist_id.load(Ordering::Relaxed)),
                    user: account.as_ref().map(|a| a.0.clone()),
                    host: account.map(|a| a.1),
                    instrumented: t.instrumented.load(Ordering::Relaxed),
                    history: t.history.load(Ordering::Relaxed),
                }
            })
            .collect()
    });
    rows.sort_by_key(|r| r.thread_id);
    rows
}

pub(crate) fn status() -> Status {
    let master = setup().master;
    let lost = |k: ClassKind| LOST.instances[k.index()].load(Ordering::Relaxed);
    let (instances_used, instance_capacity) = instances().usage();
    let c = classes();
    let long = long_rings();
    Status {
        compiled: true,
        master,
        classes: c.registered().len() as u64,
        class_capacity: c.capacity() as u64,
        class_lost: LOST.class.load(Ordering::Relaxed),
        instances_used,
        instance_capacity,
        mutex_instances_lost: lost(ClassKind::Mutex),
        rwlock_instances_lost: lost(ClassKind::RwLock),
        cond_instances_lost: lost(ClassKind::Cond),
        other_instances_lost: ClassKind::ALL
            .iter()
            .filter(|k| !k.has_instances())
            .map(|k| lost(*k))
            .sum(),
        threads_live: registry().live.len() as u64,
        thread_lost: LOST.thread.load(Ordering::Relaxed),
        locker_lost: LOST.locker.load(Ordering::Relaxed),
        digests: c.digests().len() as u64,
        digest_lost: LOST.digest.load(Ordering::Relaxed),
        accounts_lost: LOST.connections[0].load(Ordering::Relaxed),
        users_lost: LOST.connections[1].load(Ordering::Relaxed),
        hosts_lost: LOST.connections[2].load(Ordering::Relaxed),
        prepared_statements_lost: super::prepared::lost(),
        waits_history_long_written: long[0].written(),
        stages_history_long_written: long[1].written(),
        statements_history_long_written: long[2].written(),
    }
}

// ---------------------------------------------------------------------------------------------
// Truncate. Resets cells owned by other threads; a reset concurrent with activity may keep or
// lose a few in-flight updates (as in PFS). On a quiescent system it is exact.

pub(crate) fn truncate_by_instance() {
    instances().truncate();
}

pub(crate) fn truncate_by_thread() {
    let mut th = registry();
    let live = th.live.clone();
    for t in live {
        // Keep the global summary: fold into the exited aggregate first, and carry into the
        // thread's account (`aggregate_thread_*` of `pfs_instr.cc`).
        th.fold(t);
        let stats = t.class_stats();
        super::summary_by::carried().carry(t.account.lock().clone(), &stats);
        t.reset_stats();
    }
}

pub(crate) fn truncate_global() {
    truncate_by_instance();
    let mut guard = registry();
    let th = &mut *guard;
    for t in &th.live {
        t.reset_stats();
    }
    let snaps = th.exited.iter_mut().chain(th.exited_digests.iter_mut());
    for s in snaps.chain(th.exited_digests_other.iter_mut()) {
        *s = stats::Snap::default();
    }
    for h in th.exited_hist.iter_mut() {
        *h = [0; stats::HIST_BUCKETS];
    }
    for s in th.exited_digest_sums.iter_mut() {
        *s = super::statement::Sums::default();
    }
    th.exited_trx = [stats::Snap::default(); 2];
    // And the summaries by account, user and host (`reset_events_*_by_account`, ...).
    super::summary_by::carried().clear();
    // With their cells zeroed, digests are bound again by their next statement, which sets
    // their FIRST_SEEN (`record::digest_stat`).
    // Their histograms go with them (MySQL frees the digest entries: `reset_esms_by_digest`),
    // the global histogram keeps their counts.
    for d in classes().digests() {
        d.class.store(UNBOUND, Ordering::Relaxed);
        d.first_seen.store(0, Ordering::Relaxed);
    }
    super::histogram_read::truncate_by_digest();
}

pub(crate) fn truncate_history() {
    for t in registry().live.iter() {
        t.clear_history();
    }
    for l in long_rings() {
        l.clear();
    }
    super::statement::clear_long();
    super::trx_log::long_ring().clear();
}

//! Switches, consumers, presets and LIKE patterns.
#![cfg(feature = "instrumentation")]

use std::str::FromStr;

use common::{serial, serial_with};
use pfs::{ClassKind, Consumer, PfsError, Preset};

mod common;

fn setting(name: &str) -> (bool, bool) {
    pfs::instrument_setting(name).expect("registered")
}

fn consumers_on() -> Vec<&'static str> {
    Consumer::ALL
        .iter()
        .filter(|c| pfs::consumer_enabled(**c).0)
        .map(|c| c.name())
        .collect()
}

/// One class of every kind, with names that cover every preset rule.
fn register_all() -> Vec<(ClassKind, &'static str)> {
    let list = vec![
        (ClassKind::Mutex, "wait/synch/mutex/mdl/MDL_map::mutex"),
        (ClassKind::RwLock, "wait/synch/prlock/sql/MDL_lock::rwlock"),
        (
            ClassKind::Mutex,
            "wait/synch/mutex/sql/MDL_wait::LOCK_wait_status",
        ),
        (
            ClassKind::Cond,
            "wait/synch/cond/sql/MDL_context::COND_wait_status",
        ),
        (ClassKind::Metadata, "wait/lock/metadata/sql/mdl"),
        (ClassKind::TableIo, "wait/io/table/sql/handler"),
        (ClassKind::TableLock, "wait/lock/table/sql/handler"),
        (ClassKind::TableIo, "wait/io/file/sql/binlog"),
        (ClassKind::Statement, "statement/sql/select"),
        (ClassKind::Stage, "stage/sql/Opening tables"),
        (ClassKind::Stage, "stage/sql/copy to tmp table"),
        (ClassKind::Idle, "idle"),
    ];
    for (k, n) in &list {
        pfs::register_class(*k, n);
    }
    list
}

#[test]
fn defaults_are_mysql_80() {
    let _s = serial_with(Preset::Default);
    register_all();
    assert_eq!(
        setting("wait/synch/mutex/mdl/MDL_map::mutex"),
        (false, false)
    );
    assert_eq!(
        setting("wait/synch/prlock/sql/MDL_lock::rwlock"),
        (false, false)
    );
    assert_eq!(
        setting("wait/synch/cond/sql/MDL_context::COND_wait_status"),
        (false, false)
    );
    assert_eq!(setting("wait/lock/metadata/sql/mdl"), (true, true));
    assert_eq!(setting("wait/io/table/sql/handler"), (true, true));
    assert_eq!(setting("wait/lock/table/sql/handler"), (true, true));
    assert_eq!(setting("statement/sql/select"), (true, true));
    assert_eq!(setting("stage/sql/Opening tables"), (false, false));
    assert_eq!(setting("stage/sql/copy to tmp table"), (true, true));
    assert_eq!(setting("idle"), (true, true));
    pfs::setup_instruments(); // registers `transaction`, listed from the start
    assert_eq!(setting("transaction"), (true, true));
    assert_eq!(
        consumers_on(),
        vec![
            "events_statements_current",
            "events_statements_history",
            "events_transactions_current",
            "events_transactions_history",
            "global_instrumentation",
            "thread_instrumentation",
            "statements_digest"
        ]
    );
    assert!(pfs::master_enabled());
}

#[test]
fn registration_is_idempotent() {
    let _s = serial();
    let a = pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/t_setup/idem");
    let b = pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/t_setup/idem");
    assert_eq!(a, b);
    assert_eq!(a.name(), "wait/synch/mutex/t_setup/idem");
    assert_eq!(a.kind(), ClassKind::Mutex);
    assert!(!a.is_lost());
    assert!(!pfs::ClassRef::disabled().enabled());
    let get = || pfs::class!(ClassKind::Mutex, "wait/synch/mutex/t_setup/idem");
    assert_eq!(get(), a);
    assert_eq!(get(), a);
}

#[test]
fn switches_take_effect_immediately() {
    let _s = serial_with(Preset::Default);
    // A stage class: disabled by default, and compiled whenever `instrumentation` is.
    let c = pfs::register_class(ClassKind::Stage, "stage/t_setup/switch");
    assert!(!c.enabled() && !c.timed());
    assert_eq!(
        pfs::set_instruments("stage/t_setup/switch", true, true),
        Ok(1)
    );
    assert!(c.enabled());
    assert_eq!(c.timed(), cfg!(feature = "timers"));
    pfs::set_instruments("stage/t_setup/switch", true, false).unwrap();
    assert!(c.enabled() && !c.timed());
    pfs::set_consumer("global_instrumentation", false).unwrap();
    assert!(!c.enabled());
    pfs::set_consumer("GLOBAL_INSTRUMENTATION", true).unwrap();
    assert!(c.enabled());
    pfs::set_master(false);
    assert!(!c.enabled());
    assert!(!pfs::master_enabled());
    pfs::set_master(true);
    assert!(c.enabled());
    pfs::set_instruments("stage/t_setup/%", false, false).unwrap();
    assert!(!c.enabled());
}

#[test]
fn consumer_hierarchy() {
    let _s = serial_with(Preset::Default);
    pfs::set_consumer("events_waits_current", true).unwrap();
    pfs::set_consumer("events_waits_history", true).unwrap();
    assert_eq!(
        pfs::consumer_enabled(Consumer::EventsWaitsHistory),
        (true, true)
    );
    pfs::set_consumer_enabled(Consumer::EventsWaitsCurrent, false);
    assert_eq!(
        pfs::consumer_enabled(Consumer::EventsWaitsHistory),
        (true, false)
    );
    pfs::set_consumer_enabled(Consumer::EventsWaitsCurrent, true);
    pfs::set_consumer_enabled(Consumer::ThreadInstrumentation, false);
    assert_eq!(
        pfs::consumer_enabled(Consumer::EventsWaitsHistory),
        (true, false)
    );
    assert_eq!(
        pfs::consumer_enabled(Consumer::StatementsDigest),
        (true, true)
    );
    pfs::set_master(false);
    assert_eq!(
        pfs::consumer_enabled(Consumer::GlobalInstrumentation),
        (true, false)
    );
    pfs::apply_preset(Preset::Default);
    assert_eq!(
        pfs::consumer_enabled(Consumer::EventsWaitsHistory),
        (false, false)
    );
}

#[test]
fn presets_set_exactly_their_instruments_and_consumers() {
    let _s = serial();
    let all = register_all();
    let enabled_set = || -> Vec<&'static str> {
        all.iter()
            .filter(|(_, n)| setting(n).0)
            .map(|(_, n)| *n)
            .collect()
    };
    let timed_set = || -> Vec<&'static str> {
        all.iter()
            .filter(|(_, n)| setting(n).1)
            .map(|(_, n)| *n)
            .collect()
    };

    pfs::apply_preset(Preset::None);
    assert!(pfs::master_enabled());
    assert!(enabled_set().is_empty() && timed_set().is_empty());
    assert!(consumers_on().is_empty());
    // Every instrument in the registry, not just ours.
    assert!(pfs::setup_instruments()
        .rows
        .iter()
        .all(|r| !r.enabled && !r.timed));

    pfs::apply_preset(Preset::Tables);
    let tables = vec![
        "wait/io/table/sql/handler",
        "wait/lock/table/sql/handler",
        "wait/io/file/sql/binlog",
    ];
    assert_eq!(enabled_set(), tables);
    assert_eq!(timed_set(), tables);
    assert_eq!(
        consumers_on(),
        vec!["global_instrumentation", "thread_instrumentation"]
    );

    pfs::apply_preset(Preset::Statements);
    assert_eq!(enabled_set(), vec!["statement/sql/select"]);
    assert_eq!(timed_set(), vec!["statement/sql/select"]);
    assert_eq!(
        consumers_on(),
        vec![
            "global_instrumentation",
            "thread_instrumentation",
            "statements_digest"
        ]
    );

    pfs::apply_preset(Preset::Counters);
    assert!(pfs::setup_instruments()
        .rows
        .iter()
        .all(|r| r.enabled && !r.timed));
    assert_eq!(
        consumers_on(),
        vec!["global_instrumentation", "thread_instrumentation"]
    );

    pfs::apply_preset(Preset::Synch);
    let synch: Vec<&str> = all
        .iter()
        .map(|(_, n)| *n)
        .filter(|n| n.starts_with("wait/synch/"))
        .collect();
    for n in &synch {
        assert_eq!(setting(n), (true, true), "{n}");
    }
    assert_eq!(setting("wait/lock/metadata/sql/mdl"), (true, true));
    assert_eq!(setting("stage/sql/Opening tables"), (false, false));
    assert_eq!(consumers_on().len(), 7);

    pfs::apply_preset(Preset::Off);
    assert!(!pfs::master_enabled());
    let mdl = pfs::register_class(ClassKind::Metadata, "wait/lock/metadata/sql/mdl");
    assert_eq!(setting("wait/lock/metadata/sql/mdl"), (true, true));
    assert!(!mdl.enabled(), "master off disables everything");

    pfs::apply_preset(Preset::Default);
    assert_eq!(mdl.enabled(), cfg!(feature = "metadata"));
    assert_eq!(
        mdl.timed(),
        cfg!(all(feature = "metadata", feature = "timers"))
    );
}

#[test]
fn rules_apply_to_classes_registered_later() {
    let _s = serial_with(Preset::Synch);
    let on = ClassKind::Mutex.compiled();
    let c = pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/t_setup/later1");
    assert_eq!(setting("wait/synch/mutex/t_setup/later1"), (true, true));
    assert_eq!(
        (c.enabled(), c.timed()),
        (on, on && cfg!(feature = "timers"))
    );
    pfs::apply_preset(Preset::Default);
    assert!(!c.enabled());
    pfs::set_instruments("wait/synch/mutex/t_setup/later%", true, false).unwrap();
    let d = pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/t_setup/later2");
    assert_eq!(setting("wait/synch/mutex/t_setup/later2"), (true, false));
    assert_eq!((d.enabled(), d.timed()), (on, false));
    pfs::apply_preset(Preset::Default);
    let e = pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/t_setup/later3");
    assert!(!e.enabled());
}

#[test]
fn like_patterns_and_errors() {
    let _s = serial_with(Preset::Default);
    for n in ["a", "b", "c_x"] {
        pfs::register_class(ClassKind::Mutex, &format!("wait/synch/mutex/t_like/{n}"));
    }
    for (pattern, matched) in [
        ("wait/synch/mutex/t_like/%", 3),
        ("wait/synch/mutex/t_like/_", 2),
        ("wait/synch/mutex/t_like/c\\_x", 1),
        ("wait/synch/mutex/t_like/nothing", 0),
    ] {
        assert_eq!(
            pfs::set_instruments(pattern, true, true),
            Ok(matched),
            "{pattern}"
        );
    }
    for bad in ["", "abc\\"] {
        assert!(
            matches!(
                pfs::set_instruments(bad, true, true),
                Err(PfsError::BadPattern { .. })
            ),
            "{bad:?}"
        );
    }
    assert_eq!(
        pfs::set_consumer("events_bogus", true),
        Err(PfsError::UnknownConsumer("events_bogus".into()))
    );
    assert_eq!(
        Preset::from_str("bogus"),
        Err(PfsError::UnknownPreset("bogus".into()))
    );
    assert_eq!(Preset::from_str("DEF"), Ok(Preset::Default));
    for p in Preset::ALL {
        assert_eq!(Preset::from_str(p.name()), Ok(p));
    }
    assert!(pfs::events_waits_summary_by_instance_like("x\\").is_err());
    assert!(pfs::lock_stat_by_instance(Some("")).is_err());
}

#[test]
fn setup_tables_render() {
    let _s = serial_with(Preset::Default);
    let t = pfs::setup_consumers();
    assert_eq!(t.rows.len(), Consumer::ALL.len());
    let text = t.to_string();
    // Column widths follow the longest name (`events_statements_history_long`).
    let row = |name: &str, on: &str| {
        text.lines()
            .any(|l| l.starts_with(&format!("| {name} ")) && l.ends_with(&format!("| {on}     |")))
    };
    assert!(row("global_instrumentation", "YES"), "{text}");
    assert!(row("events_waits_current", "NO "), "{text}");
    let json = t.to_json();
    assert!(
        json.contains(r#"{"NAME":"global_instrumentation","ENABLED":true}"#),
        "{json}"
    );
    let timers = pfs::performance_timers();
    assert_eq!(timers.rows.len(), 2);
    assert_eq!(timers.rows[1].timer_name, "NANOSECOND");
    assert_eq!(timers.rows[1].timer_frequency, Some(1_000_000_000));
    let st = pfs::status();
    assert!(st.compiled);
    assert!(st
        .to_table()
        .to_string()
        .contains("Performance_schema_mutex_instances_lost"));
}

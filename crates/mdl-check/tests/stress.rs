//! The stress run (`mdl_check::stress`) in every configuration of `stress::configs()` (every
//! fast-path mode, one partition with eviction at every release, matrix switching with the
//! linear ticket list): 12 threads, about 0.7 s each. No grant next to an incompatible lock,
//! progress, every lock type granted, upgrades and downgrades done, nothing left at the end.
//!
//! The heavier `stress_long` (32 threads, 20 s per configuration) is `#[ignore]`d: run it with
//! `cargo test -p mdl-check --release --test stress -- --ignored`, or
//! `mdl-check stress --seconds 20 --threads 32`.

use std::time::Duration;

use mdl_check::stress::{configs, run, StressConfig, StressReport};

fn check(rep: &StressReport) {
    eprintln!("{rep}");
    let label = &rep.label;
    assert_eq!(rep.violations, 0, "{rep}");
    assert_eq!(rep.panicked_threads, 0, "{rep}");
    assert!(rep.grants > 500, "{label}: too little progress");
    assert!(
        rep.types_seen.iter().all(|&n| n > 0),
        "{label}: every lock type granted at least once: {:?}",
        rep.types_seen
    );
    assert!(rep.upgrades > 0 && rep.downgrades > 0, "{rep}");
    assert_eq!(rep.leftover_held, 0, "{rep}");
    assert_eq!(rep.leftover_contexts, 0, "{rep}");
    assert_eq!(rep.leftover_tickets, 0, "{rep}");
    assert_eq!(
        rep.unused_lock_objects, rep.lock_objects,
        "{label}: everything released"
    );
    assert!(rep.ok(), "{rep}");
}

fn stress(threads: usize, duration: Duration) {
    for mdl in configs() {
        check(&run(&StressConfig {
            mdl,
            threads,
            duration,
            ..StressConfig::default()
        }));
    }
}

#[test]
fn stress_no_incompatible_locks_at_any_grant() {
    stress(12, Duration::from_millis(700));
}

#[test]
#[ignore = "long stress run (32 threads, 20 s per configuration); use --release --ignored"]
fn stress_long() {
    stress(32, Duration::from_secs(20));
}

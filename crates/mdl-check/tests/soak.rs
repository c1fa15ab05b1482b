//! The soak (`mdl_check::soak`) run briefly in CI, in every fast-path mode: ≥ 8 threads for a
//! few seconds with the default eviction threshold, with a small one (eviction all the time),
//! and on the two scoped singletons GLOBAL and COMMIT. Zero violations, every ticket gone,
//! every lock object unused.
//!
//! Longer: `MDL_SOAK_SECS=600 cargo test --release -p mdl-check --test soak -- --nocapture`
//! (also `MDL_SOAK_THREADS`, `MDL_SOAK_SEED`), or `mdl-check soak --minutes N`.

use std::time::Duration;

use mdl_check::soak::{run, SoakConfig};
use mdl_core::{FastPath, MdlConfig, Namespace};

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn soak(fast_path: FastPath, low_water: usize, secs: f64) {
    let cfg = SoakConfig {
        threads: env("MDL_SOAK_THREADS", 8),
        duration: Some(Duration::from_secs_f64(secs)),
        seed: env("MDL_SOAK_SEED", 0x5EED) ^ fast_path as u64,
        mdl: MdlConfig::builder()
            .fast_path(fast_path)
            .unused_locks_low_water(low_water)
            .build()
            .expect("a valid configuration"),
        ..SoakConfig::default()
    };
    let rep = run(&cfg);
    println!("fast path {}: {rep}", fast_path.name());
    assert!(rep.ok(), "{rep}");
    assert_eq!(rep.leftover_tickets, 0);
    assert_eq!(rep.unused_lock_objects, rep.lock_objects);
    assert!(rep.operations > 1000, "{rep}");
    assert!(rep.grants > 0 && rep.waits > 0, "{rep}");
}

#[test]
fn soak_every_fast_path_mode_briefly() {
    let secs = env("MDL_SOAK_SECS", 2.0);
    for mode in FastPath::ALL {
        soak(mode, 1000, secs);
    }
}

#[test]
fn soak_global_read_lock_contention_briefly() {
    // One scoped singleton: IX/S/X conversions, the densest deadlocks.
    for fast_path in FastPath::ALL {
        let cfg = SoakConfig {
            threads: 8,
            duration: Some(Duration::from_secs_f64(env("MDL_SOAK_SECS", 1.0))),
            namespaces: vec![Namespace::Global, Namespace::Commit],
            mdl: MdlConfig::builder()
                .fast_path(fast_path)
                .build()
                .expect("a valid configuration"),
            ..SoakConfig::default()
        };
        let rep = run(&cfg);
        println!("fast path {}: {rep}", fast_path.name());
        assert!(rep.ok(), "{rep}");
        assert!(rep.deadlocks > 0, "{rep}");
    }
}

#[test]
fn soak_small_cache_briefly() {
    // Low water 16: eviction runs all the time.
    let secs = env("MDL_SOAK_SECS", 1.5);
    for mode in FastPath::ALL {
        soak(mode, 16, secs);
    }
}

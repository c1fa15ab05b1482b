//! Rough single-thread cost of the instrumentation levels (ns per lock/unlock or per event).
//!
//! `cargo run --release -p pfs --example overhead` — a sanity check, not a benchmark (no
//! warm-up control, min of 5 short runs); the benchmark crate measures overhead properly.

use std::hint::black_box;
use std::time::Instant;

use pfs::sync::*;
use pfs::{cell, ClassKind, Preset, TextTable};

const N: u32 = 1_000_000;

fn ns_per_op(mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..N {
                f();
            }
            t.elapsed().as_nanos() as f64 / N as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let mclass = pfs::register_class(ClassKind::Mutex, "wait/synch/mutex/example/m");
    let wclass = pfs::register_class(ClassKind::TableIo, "wait/io/table/example/handler");
    let bare = parking_lot::Mutex::new(0u64);
    let plain = Mutex::new(0u64);
    let inst = Mutex::with_class(mclass, 0u64);
    let mut t = TextTable::new(["case", "ns/op"]);
    let mut row = |name: &str, v: f64| t.push_row([cell(name), cell(format!("{v:.2}"))]);

    row(
        "parking_lot::Mutex",
        ns_per_op(|| *black_box(&bare).lock() += 1),
    );
    row(
        "pfs Mutex::new (uninstrumented)",
        ns_per_op(|| *black_box(&plain).lock() += 1),
    );
    let presets = [
        ("off", Preset::Off, false, false),
        ("none", Preset::None, false, false),
        ("default (mutex disabled)", Preset::Default, false, false),
        (
            "counters (counted + per thread)",
            Preset::Counters,
            false,
            false,
        ),
        ("synch (timed, uncontended)", Preset::Synch, false, false),
        ("synch + hold stats", Preset::Synch, true, false),
        ("synch + events_waits_history", Preset::Synch, false, true),
    ];
    for (name, p, hold, events) in presets {
        pfs::apply_preset(p);
        pfs::set_hold_stats(hold);
        if events {
            pfs::set_consumer("events_waits_current", true).unwrap();
            pfs::set_consumer("events_waits_history", true).unwrap();
        }
        row(
            &format!("with_class, {name}"),
            ns_per_op(|| *black_box(&inst).lock() += 1),
        );
    }
    for (name, p) in [
        ("none", Preset::None),
        ("counters", Preset::Counters),
        ("default (timed)", Preset::Default),
    ] {
        pfs::apply_preset(p);
        row(
            &format!("wait_start, {name}"),
            ns_per_op(|| drop(pfs::wait_start(black_box(wclass), 1))),
        );
    }
    pfs::apply_preset(Preset::Default);
    println!("{t}");
    println!("{}", pfs::performance_timers());
    println!("{}", pfs::events_waits_summary_by_instance());
}

//! Fuzzing against the reference model, and the inputs worth keeping.
//!
//! The cargo-fuzz target `crates/mdl-core/fuzz` (`model`) feeds arbitrary bytes to
//! `mdl_reference::driver::run_bytes`, which decodes a configuration and operations over three
//! contexts and compares every outcome of the real manager with the model's. Crash inputs it
//! finds are pasted into [`REGRESSIONS`] (hex). Run it with
//! `cd crates/mdl-core/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run model -- -max_total_time=600`.
//!
//! The same driver also runs here on random bytes (proptest): `fuzz_random_bytes` with
//! `MDL_FUZZ_CASES` cases (default 256) in CI, and `fuzz_random_bytes_long` (`--ignored`,
//! `MDL_FUZZ_LONG_CASES`, default 100,000) as the fallback where cargo-fuzz cannot run.

use mdl_reference::driver::run_bytes;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Inputs kept from fuzzing runs, plus hand-written ones (hex; first byte = configuration).
const REGRESSIONS: &[&str] = &[
    // Fast path, hashed index, max_write_lock_count 1: X on t0 by ctx 0, SR try by ctx 1,
    // upgrade of a foreign ticket, rollback, end of transaction.
    "07 00000003 0001000a 05018005 08000000 08010101 09000100",
    // Savepoint, EXPLICIT S then clone to SH STATEMENT, downgrade, release-all-for-name.
    "02 08000000 00000301 0700000d 06000002 0b000000 09010000",
    // Scoped singleton GLOBAL: IX then S from another context, then an upgrade IX -> X.
    "05 00000300 00010301 0500000a 04010000 00010301",
];

fn decode(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

#[test]
fn regressions() {
    for (i, hex) in REGRESSIONS.iter().enumerate() {
        if let Err(e) = run_bytes(&decode(hex)) {
            panic!("regression {i}: {e}");
        }
    }
}

#[test]
fn empty_and_short_inputs() {
    for data in [&[][..], &[0xff], &[1, 2, 3], &[0xff; 4]] {
        run_bytes(data).unwrap();
    }
}

fn fuzz(cases: u32, max_len: usize) {
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&prop::collection::vec(any::<u8>(), 0..max_len), |data| {
            run_bytes(&data).map_err(TestCaseError::fail)
        })
        .unwrap();
}

fn env(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn fuzz_random_bytes() {
    fuzz(env("MDL_FUZZ_CASES", 256), 400);
}

#[test]
#[ignore = "long: the proptest fallback of the cargo-fuzz target"]
fn fuzz_random_bytes_long() {
    fuzz(env("MDL_FUZZ_LONG_CASES", 100_000), 1200);
}

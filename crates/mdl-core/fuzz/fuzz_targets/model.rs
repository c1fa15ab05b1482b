//! Arbitrary byte strings decoded into operation sequences over three contexts, run through
//! the real lock manager and the reference model (`tests/reference_model`); any disagreement
//! or panic is a crash. Crash inputs go to `tests/fuzz_regressions.rs`.
#![no_main]

#[allow(dead_code, clippy::all)]
#[path = "../../tests/reference_model/mod.rs"]
mod reference_model;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = reference_model::driver::run_bytes(data) {
        panic!("model disagreement: {e}");
    }
});

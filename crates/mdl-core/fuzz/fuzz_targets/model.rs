//! Arbitrary byte strings decoded into operation sequences over three contexts, run through
//! the real lock manager and the reference model (`mdl_reference::driver`); any disagreement
//! or panic is a crash. Crash inputs go to `tests/fuzz_regressions.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = mdl_reference::driver::run_bytes(data) {
        panic!("model disagreement: {e}");
    }
});

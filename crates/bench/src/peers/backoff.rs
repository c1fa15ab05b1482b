//! The retry loop that turns a non-blocking `try_*` lock call into a blocking one with a
//! timeout: spin a little, then yield, then sleep in growing steps (capped at 1 ms).

use std::time::{Duration, Instant};

use super::{Abort, PEER_LOCK_TIMEOUT};

/// Calls `attempt` until it returns `Some`, backing off in between; [`Abort`] after
/// [`PEER_LOCK_TIMEOUT`].
#[inline]
pub fn retry<T>(mut attempt: impl FnMut() -> Option<T>) -> Result<T, Abort> {
    if let Some(v) = attempt() {
        return Ok(v);
    }
    retry_slow(&mut attempt)
}

#[cold]
fn retry_slow<T>(attempt: &mut dyn FnMut() -> Option<T>) -> Result<T, Abort> {
    let deadline = Instant::now() + PEER_LOCK_TIMEOUT;
    let mut round = 0u32;
    loop {
        if round < 6 {
            for _ in 0..(1u32 << round) {
                std::hint::spin_loop();
            }
        } else if round < 12 {
            std::thread::yield_now();
        } else {
            let us = 1u64 << (round - 12).min(10);
            std::thread::sleep(Duration::from_micros(us.min(1000)));
        }
        round += 1;
        if let Some(v) = attempt() {
            return Ok(v);
        }
        if Instant::now() >= deadline {
            return Err(Abort);
        }
    }
}

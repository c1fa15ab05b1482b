//! The differential driver ([`mdl_reference::driver::run_bytes`]) on seeded random byte strings,
//! for as many cases or as long as asked: the fallback where cargo-fuzz cannot run, and a way
//! to repeat a run exactly (same seed, same inputs).

use std::time::{Duration, Instant};

use mdl_reference::driver::run_bytes;

/// What to run.
#[derive(Debug, Clone)]
pub struct FuzzConfig {
    /// Stop after this many inputs...
    pub cases: Option<u64>,
    /// ... or after this long (whichever comes first; at least one must be set).
    pub duration: Option<Duration>,
    /// Longest input in bytes (1 configuration byte, then 4 bytes per operation).
    pub max_len: usize,
    /// Seed of the input generator.
    pub seed: u64,
}

impl Default for FuzzConfig {
    fn default() -> Self {
        FuzzConfig {
            cases: Some(10_000),
            duration: None,
            max_len: 400,
            seed: 0x5EED,
        }
    }
}

/// What happened.
#[derive(Debug, Clone, Default)]
pub struct FuzzReport {
    /// Inputs run.
    pub cases: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// The first input on which the manager and the model disagreed, as hex (the format of
    /// `mdl-core`'s `tests/fuzz_regressions.rs`), with the disagreement.
    pub failure: Option<(String, String)>,
}

impl FuzzReport {
    /// Whether every input agreed.
    pub fn ok(&self) -> bool {
        self.failure.is_none()
    }
}

impl std::fmt::Display for FuzzReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "fuzz: {} inputs in {:.1} s",
            self.cases,
            self.elapsed.as_secs_f64()
        )?;
        match &self.failure {
            None => write!(f, ", no disagreement"),
            Some((hex, why)) => write!(f, "\n  disagreement: {why}\n  input: {hex}"),
        }
    }
}

/// Runs random inputs through the driver until the budget is spent or one disagrees.
///
/// # Panics
/// If neither `cases` nor `duration` is set.
pub fn run(cfg: &FuzzConfig) -> FuzzReport {
    assert!(
        cfg.cases.is_some() || cfg.duration.is_some(),
        "set a case count or a duration"
    );
    let mut rng = fastrand::Rng::with_seed(cfg.seed);
    let start = Instant::now();
    let mut rep = FuzzReport::default();
    while cfg.cases.is_none_or(|n| rep.cases < n)
        && cfg.duration.is_none_or(|d| start.elapsed() < d)
    {
        let len = rng.usize(..=cfg.max_len);
        let data: Vec<u8> = std::iter::repeat_with(|| rng.u8(..)).take(len).collect();
        rep.cases += 1;
        if let Err(why) = run_bytes(&data) {
            let hex = data.iter().map(|b| format!("{b:02x}")).collect();
            rep.failure = Some((hex, why));
            break;
        }
    }
    rep.elapsed = start.elapsed();
    rep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_inputs_agree_with_the_model() {
        let rep = run(&FuzzConfig {
            cases: Some(64),
            ..FuzzConfig::default()
        });
        assert!(rep.ok(), "{rep}");
        assert_eq!(rep.cases, 64);
    }
}

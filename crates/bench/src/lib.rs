//! Benchmark workloads for `mdl` (placeholder until the bench issue lands).

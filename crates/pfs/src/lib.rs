//! Performance-Schema-style instrumentation (placeholder until the pfs issue lands).

//! Instrumentation points (feature `pfs`).

use crate::lock::LockObject;

/// A metadata-lock wait being timed; the wait ends when this drops.
pub(crate) struct MetadataWait;

impl Drop for MetadataWait {
    fn drop(&mut self) {}
}

/// Starts timing a metadata-lock wait.
pub(crate) fn metadata_wait_start(_lock: &LockObject) -> MetadataWait {
    MetadataWait
}

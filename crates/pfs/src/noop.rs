//! The no-op backend (umbrella feature `instrumentation` off): same calls, nothing recorded,
//! empty tables.

use crate::kinds::{ClassKind, Consumer, Preset};
use crate::pattern::Pattern;
use crate::{PfsError, Sizing};

pub(crate) fn init(_s: Sizing) -> Result<(), PfsError> {
    Ok(())
}
pub(crate) fn set_instruments(_p: &Pattern, _e: bool, _t: bool) -> Result<usize, PfsError> {
    Ok(0)
}
pub(crate) fn set_consumer(_c: Consumer, _e: bool) {}
pub(crate) fn set_master(_e: bool) {}
pub(crate) fn set_hold_stats(_e: bool) {}
pub(crate) fn set_histograms(_e: bool) {}
pub(crate) fn apply_preset(_p: Preset) {}

pub(crate) mod read {
    use super::*;
    use crate::tables::*;
    use crate::Status;

    #[derive(Clone, Copy, PartialEq, Eq)]
    #[allow(dead_code)]
    pub(crate) enum Which {
        WaitsCurrent,
        WaitsHistory,
        StagesCurrent,
        StagesHistory,
        StatementsCurrent,
        StatementsHistory,
    }

    pub(crate) fn setup_instruments() -> Vec<SetupInstrumentRow> {
        Vec::new()
    }
    pub(crate) fn instrument_setting(_name: &str) -> Option<(bool, bool)> {
        None
    }
    pub(crate) fn consumer_enabled(_c: Consumer) -> (bool, bool) {
        (false, false)
    }
    pub(crate) fn master() -> bool {
        false
    }
    pub(crate) fn setup_consumers() -> Vec<SetupConsumerRow> {
        Vec::new()
    }
    pub(crate) fn performance_timers() -> Vec<PerformanceTimerRow> {
        Vec::new()
    }
    pub(crate) fn wait_events(_w: Which) -> Vec<WaitEventRow> {
        Vec::new()
    }
    pub(crate) fn waits_history_long() -> Vec<WaitEventRow> {
        Vec::new()
    }
    pub(crate) fn statement_events(_w: Which) -> Vec<StatementEventRow> {
        Vec::new()
    }
    pub(crate) fn summary_global(_f: impl Fn(ClassKind) -> bool) -> Vec<SummaryByEventNameRow> {
        Vec::new()
    }
    pub(crate) fn summary_by_instance(_f: Option<&Pattern>) -> Vec<SummaryByInstanceRow> {
        Vec::new()
    }
    pub(crate) fn lock_stat_by_instance(_f: Option<&Pattern>) -> Vec<LockStatRow> {
        Vec::new()
    }
    pub(crate) fn summary_by_thread() -> Vec<SummaryByThreadRow> {
        Vec::new()
    }
    pub(crate) fn summary_by_digest() -> Vec<SummaryByDigestRow> {
        Vec::new()
    }
    pub(crate) fn histograms() -> Vec<HistogramRow> {
        Vec::new()
    }
    pub(crate) fn threads() -> Vec<ThreadRow> {
        Vec::new()
    }
    pub(crate) fn status() -> Status {
        Status::default()
    }
    pub(crate) fn truncate_by_instance() {}
    pub(crate) fn truncate_by_thread() {}
    pub(crate) fn truncate_global() {}
    pub(crate) fn truncate_history() {}
}

//! The public macros: [`class!`](crate::class) registers a class once per call site, and the
//! `instrument_*!` macros run a body inside an event. Each is a call of the public functions
//! of `lib.rs`; the one part that differs by build, whether an event is started at all, is the
//! backend's `__in_event!`.

/// Register a class once per call site and return it (a `static OnceLock` at the call site):
/// `let c = pfs::class!(ClassKind::Mutex, "wait/synch/mutex/mdl/MDL_map::mutex");`.
/// Works (and returns the zero-sized class) without the `instrumentation` feature too.
#[macro_export]
macro_rules! class {
    ($kind:expr, $name:expr) => {{
        static __PFS_CLASS: ::std::sync::OnceLock<$crate::ClassRef> = ::std::sync::OnceLock::new();
        *__PFS_CLASS.get_or_init(|| $crate::register_class($kind, $name))
    }};
}

/// Run `$body` inside a wait event of `$class` on `$object`. Without the `instrumentation`
/// feature this expands to `$body` alone (the class and object expressions are not evaluated).
#[macro_export]
macro_rules! instrument_wait {
    ($class:expr, $object:expr, $body:expr) => {
        $crate::__in_event!($crate::wait_start($class, $object as usize), $body)
    };
}

/// Run `$body` inside a statement event of `$class` (optional digest as a second argument).
/// Without the `instrumentation` feature this expands to `$body` alone.
#[macro_export]
macro_rules! instrument_statement {
    ($class:expr, $body:expr) => {
        $crate::__in_event!($crate::statement_start($class, None), $body)
    };
    ($class:expr, $digest:expr, $body:expr) => {
        $crate::__in_event!($crate::statement_start($class, Some($digest)), $body)
    };
}

/// Run `$body` inside a stage event of `$class`. Without the `instrumentation` feature this
/// expands to `$body` alone.
#[macro_export]
macro_rules! instrument_stage {
    ($class:expr, $body:expr) => {
        $crate::__in_event!($crate::stage_start($class), $body)
    };
}

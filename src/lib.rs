pub use mdl_core::*;

//! MySQL's metadata lock manager (work in progress).

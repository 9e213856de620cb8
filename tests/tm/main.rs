//! The traffic manager: meters and port modes, admission and queues, the trimmer.
//!
//! One test binary per subsystem (`cargo test --test tm <module>::<test>`);
//! each module is one block's or one tool's tests.
#[path = "../common/mod.rs"]
mod common;
mod meter;
mod tm;
mod trimmer;

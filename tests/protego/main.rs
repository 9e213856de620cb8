//! Protego (seed 004): the sender and receiver sides' blocks against the
//! golden model (`trimswitch_sim::model::protego`).
//!
//! One test binary per subsystem (`cargo test --test protego <module>::<test>`);
//! each module is one block's tests.
#[path = "../common/mod.rs"]
mod common;
mod tag;

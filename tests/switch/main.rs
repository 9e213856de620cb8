//! The whole switch: register map, traffic against the golden models, line rate, latency, scenarios.
//!
//! One test binary per subsystem (`cargo test --test switch <module>::<test>`);
//! each module is one block's or one tool's tests.
#[path = "../common/mod.rs"]
mod common;
mod pl2;
mod python;
mod scenario;
mod switch;

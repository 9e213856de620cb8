//! Tools as checks: emit, lint, synthesis, formal proofs, the Vivado script.
//!
//! One test binary per subsystem (`cargo test --test tools <module>::<test>`);
//! each module is one block's or one tool's tests.
mod cli;
mod ecp5_board;
mod emit_lint_synth;
mod formal;
mod timing;
mod tools_lint_synth;
mod vivado;

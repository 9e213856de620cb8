//! trimswitch: library behind the `trimswitch` command-line tool.
//!
//! - [`flows`]: emit, lint and synthesize a configuration (what the CLI runs).
//! - [`lint`] and [`synth`]: Verilator lint and Yosys synthesis as checks with reports.
pub mod flows;
pub mod lint;
pub mod synth;
pub mod tools;

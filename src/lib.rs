//! trimswitch: library behind the `trimswitch` command-line tool.
//!
//! - [`flows`]: emit, lint and synthesize a configuration (what the CLI runs).
//! - [`lint`] and [`synth`]: Verilator lint and Yosys synthesis as checks with reports.
//! - [`replay`]: pcap captures through the ingress pipeline (RTL or golden model).
pub mod flows;
pub mod lint;
pub mod replay;
pub mod synth;
pub mod tools;

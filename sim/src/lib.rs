//! trimswitch simulation support.
//!
//! A small, self-contained harness for running Verilator models of the
//! rust-hdl designs from Rust tests:
//!
//! - [`verilator`]: builds (and caches) a Verilated model as a shared library
//!   and gives raw-pointer access to its ports;
//! - [`tb`]: a cycle-based testbench driving [`tb::Agent`]s, with optional
//!   FST waveforms (`TS_WAVES=1`);
//! - [`axis`]: AXI-Stream packet source, checking sink, side-channel tap and
//!   packet comparison;
//! - [`axil`]: AXI4-Lite master for register access;
//! - [`dut`]: emit a rust-hdl block and build its model; seeded random traffic;
//! - [`packet`]: packet library (FCS, checksums, frames, pcap);
//! - [`model`]: golden model of the ingress pipeline (`docs/ingress.md`) and
//!   frame generators;
//! - [`ingress_rtl`]: the Verilated `ts_ingress`, configured over AXI-Lite and
//!   run like the model, and the RTL-against-model comparison;
//! - [`smoke`]: the `ts_fabric` smoke run behind `trimswitch smoke`;
//! - [`bench`]: simulation speed, rust-hdl's simulator against Verilator.

pub mod axil;
pub mod axis;
pub mod bench;
pub mod dut;
pub mod ingress_rtl;
pub mod model;
pub mod packet;
pub mod netmodel;
pub mod scenario;
pub mod smoke;
pub mod switch_rtl;
pub mod tb;
pub mod verilator;

//! trimswitch simulation support, in folders:
//!
//! - [`harness`]: the Verilator harness: [`harness::verilator`] builds (and
//!   caches) a Verilated model as a shared library with raw-pointer access to its
//!   ports; [`harness::tb`] is a cycle-based testbench driving [`harness::tb::Agent`]s,
//!   with optional FST waveforms (`TS_WAVES=1`); [`harness::dut`] emits a rust-hdl
//!   block and builds its model, and draws seeded random traffic;
//! - [`agents`]: the AXI-Stream packet source, checking sink, side-channel tap
//!   and packet comparison ([`agents::axis`]), and the AXI4-Lite master
//!   ([`agents::axil`]);
//! - [`packet`]: packet library (FCS, checksums, frames, pcap);
//! - [`model`]: golden models of the ingress pipeline (`docs/ingress.md`), the
//!   meters and the traffic manager, and frame generators;
//! - [`rtl`]: the Verilated designs run as the tools and tests use them: the
//!   ingress pipeline against the model ([`rtl::ingress`]), the switch bench
//!   ([`rtl::switch`]), the `ts_fabric` smoke run ([`rtl::smoke`]) and the
//!   simulation-speed bench ([`rtl::bench`]);
//! - [`scenario`]: traffic scenarios on the RTL and on the event-driven model
//!   engine ([`scenario::netmodel`]).

pub mod agents;
pub mod harness;
pub mod model;
pub mod packet;
pub mod rtl;
pub mod scenario;

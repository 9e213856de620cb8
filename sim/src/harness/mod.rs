//! The Verilator harness: [`verilator`] (model build and cache, port access),
//! [`tb`] (cycle-based testbench and agents), [`dut`] (a rust-hdl block to a
//! model; seeded traffic).
pub mod dut;
pub mod tb;
pub mod verilator;

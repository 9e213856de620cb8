//! Board support (issue 18, `docs/boards.md`): what a board's top needs
//! around the switch and its MACs.
//!
//! - [`i2c_init`]: `ts_i2c_init`, a start-up programmer of I2C devices (a
//!   clock chip behind an I2C switch), delays and a reset pin;
//! - [`si5324`]: the Si5324 clock multiplier's frequency plan as register
//!   writes, and the NetFPGA-SUME's start-up program;
//! - [`sume`]: `ts_sume_switch`, the NetFPGA-SUME design but its vendor
//!   primitives and IP;
//! - [`ecp5_pll`]: the ECP5 PLL with its dividers from the frequencies;
//! - [`versa`]: `ts_versa_switch`, the whole design of the ECP5-5G Versa board
//!   (the open bitstream flow);
//! - [`u250`]: `ts_u250_switch`, the Alveo U250 design but its vendor
//!   primitives and IP (the CMACs).
pub mod ecp5_pll;
pub mod i2c_init;
pub mod self_test;
pub mod si5324;
pub mod sume;
pub mod u250;
pub mod versa;

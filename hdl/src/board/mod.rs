//! Board support (issue 18, `docs/boards.md`): what a board's top needs
//! around the switch and its MACs.
//!
//! - [`i2c_init`]: `ts_i2c_init`, a start-up programmer of I2C devices (a
//!   clock chip behind an I2C switch), delays and a reset pin;
//! - [`mac_stats`]: a board's MAC counters in its register map (the board
//!   window above the switch's map);
//! - [`si5324`]: the Si5324 clock multiplier's frequency plan as register
//!   writes, and the NetFPGA-SUME's start-up program;
//! - [`sume`]: `ts_sume_switch`, the NetFPGA-SUME design but its vendor
//!   primitives and IP;
//! - [`ecp5_pll`]: the ECP5 PLL with its dividers from the frequencies;
//! - [`versa`]: `ts_versa_switch`, the whole design of the ECP5-5G Versa board
//!   (the open bitstream flow);
//! - [`uart_axil`]: `ts_uart_axil`, the register map over a serial line
//!   (a board whose only host link is a USB serial port);
//! - [`u250`]: `ts_u250_switch`, the Alveo U250 design but its vendor
//!   primitives and IP (the CMACs).
pub mod ecp5_pll;
pub mod i2c_init;
pub mod mac_stats;
pub mod self_test;
pub mod si5324;
pub mod sume;
pub mod u250;
pub mod uart_axil;
pub mod versa;

/// The MAC counters (name, meaning) per port in the board window of a
/// board `trimswitch vivado --board` builds ([`mac_stats`]), by board name.
pub fn mac_counters(board: &str) -> Option<&'static [(&'static str, &'static str)]> {
    match board {
        "netfpga-sume" => Some(&sume::SUME_COUNTERS),
        "alveo-u250" => Some(&u250::U250_COUNTERS),
        _ => None,
    }
}

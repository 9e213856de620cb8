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
//!   primitives and IP (the CMACs);
//! - [`ok_axil`]: `ts_ok_axil`, the register map through Opal Kelly
//!   FrontPanel endpoints;
//! - [`xem7010`]: `ts_xem7010_switch`, the Opal Kelly XEM7010 design but
//!   FrontPanel's modules and the clock primitive.
pub mod ecp5_pll;
pub mod i2c_init;
pub mod mac_stats;
pub mod ok_axil;
pub mod self_test;
pub mod si5324;
pub mod sume;
pub mod u250;
pub mod uart_axil;
pub mod versa;
pub mod xem7010;

/// The board window of a board whose core has one ([`mac_stats`]), by the
/// board's name.
pub fn board_window(board: &str) -> Option<mac_stats::BoardWindow> {
    use mac_stats::BoardWindow;
    match board {
        "netfpga-sume" => Some(BoardWindow { switch_map: true, controls: &[], globals: &[], per_port: &sume::SUME_COUNTERS }),
        "alveo-u250" => Some(BoardWindow { switch_map: true, controls: &[], globals: &[], per_port: &u250::U250_COUNTERS }),
        "ecp5-versa" => Some(BoardWindow {
            switch_map: false,
            controls: &versa::VERSA_CONTROLS,
            globals: &versa::VERSA_GLOBALS,
            per_port: &versa::VERSA_PER_PORT,
        }),
        "opalkelly-xem7010" => Some(BoardWindow {
            switch_map: true,
            controls: xem7010::XEM_CONTROLS,
            globals: xem7010::XEM_GLOBALS,
            per_port: xem7010::XEM_PER_PORT,
        }),
        _ => None,
    }
}

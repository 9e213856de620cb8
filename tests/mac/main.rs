//! Ethernet MACs (issue 18): each against the XGMII agent of
//! `trimswitch_sim::agents::xgmii`, written from IEEE 802.3 clause 46.
//!
//! One test binary per subsystem (`cargo test --test mac <module>::<test>`).
mod cmac;
#[path = "../common/mod.rs"]
mod common;
mod gmii;
mod i2c_init;
mod mac_stats;
mod ok_axil;
mod port;
mod rgmii;
mod self_test;
mod switch_loop;
mod uart_axil;
mod xgmii_rx;
mod xgmii_tx;

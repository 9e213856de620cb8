//! Board support (issue 18, `docs/boards.md`): what a board's top needs
//! around the switch and its MACs.
//!
//! - [`i2c_init`]: `ts_i2c_init`, a start-up programmer of I2C devices (a
//!   clock chip behind an I2C switch), delays and a reset pin.
pub mod i2c_init;

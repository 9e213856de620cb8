//! Bus agents: [`axis`] (AXI-Stream source, sink, tap, comparison),
//! [`axil`] (AXI4-Lite master), [`xgmii`] (an XGMII encoder and decoder from
//! IEEE 802.3 clause 46), [`gmii`] (a GMII encoder and decoder from
//! clause 35) and [`i2c`] (an I2C target from UM10204).
pub mod axil;
pub mod axis;
pub mod gmii;
pub mod i2c;
pub mod xgmii;

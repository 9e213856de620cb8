//! Bus agents: [`axis`] (AXI-Stream source, sink, tap, comparison) and
//! [`axil`] (AXI4-Lite master).
pub mod axil;
pub mod axis;
pub mod xgmii;

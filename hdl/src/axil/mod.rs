//! AXI4-Lite: the interface [`bundle`]s, [`regs`] (a register file of read/write and read-only words) and
//! [`split`] (one master to address windows).
pub mod bundle;
pub mod regs;
pub mod split;

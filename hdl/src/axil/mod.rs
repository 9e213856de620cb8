//! AXI4-Lite: the interface [`bundle`]s, [`regs`] (a register file of read/write and read-only words),
//! [`split`] (one master to address windows) and [`cmd`] (one command at a time, for a host bridge).
pub mod bundle;
pub mod cmd;
pub mod regs;
pub mod split;

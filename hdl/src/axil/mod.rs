//! AXI4-Lite: [`regs`] (a register file of read/write and read-only words) and
//! [`split`] (one master to address windows).
pub mod regs;
pub mod split;

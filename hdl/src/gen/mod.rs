//! Generation: [`catalog`] builds every block for a configuration, [`emit`]
//! writes the Verilog (through [`defines`], rust-hdl's writer with indexed
//! lookups), [`unroll`] resolves indexed names rust-hdl's writer
//! leaves as text.
pub mod catalog;
pub mod defines;
pub mod emit;
pub mod unroll;

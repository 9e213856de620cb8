//! Generation: [`catalog`] builds every block for a configuration, [`emit`]
//! writes the Verilog, [`unroll`] resolves indexed names rust-hdl's writer
//! leaves as text.
pub mod catalog;
pub mod emit;
pub mod unroll;

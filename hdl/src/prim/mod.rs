//! Small building blocks: [`crc`] (CRC-32 over a beat, the FCS engine),
//! [`fifo`] (a synchronous FIFO in block RAM), [`async_fifo`] (a FIFO
//! between two clocks), [`snapshot`] (a counter's value carried to another
//! clock whole) and [`widgets`] (registers with reset, byte-mask
//! expansion and other wiring).
pub mod async_fifo;
pub mod crc;
pub mod fifo;
pub mod snapshot;
pub mod widgets;

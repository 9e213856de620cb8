//! Small building blocks: [`crc`] (CRC-32 over a beat, the FCS engine) and
//! [`widgets`] (registers with reset, byte-mask expansion and other wiring).
pub mod crc;
pub mod widgets;

//! Layout of the `tuser` metadata word that travels with every packet.
//!
//! `tuser` is per-packet: blocks sample it on the first beat. Fields (bit
//! ranges are `[lsb +: width]`); later stages add fields above bit 40.
//!
//! | field | lsb | width | meaning |
//! |---|---|---|---|
//! | `src_port` | 0 | 8 | ingress port number |
//! | `dest_port` | 8 | 8 | egress port number; `0xFF` = drop |
//! | `length` | 16 | 16 | packet length in bytes (0 = unknown) |
//! | `flags` | 32 | 8 | reserved for trimmed / return-to-sender / PL2 / Protego |

/// Bit position of `src_port`.
pub const SRC_PORT_LSB: usize = 0;
/// Bit position of `dest_port`.
pub const DEST_PORT_LSB: usize = 8;
/// Bit position of `length`.
pub const LENGTH_LSB: usize = 16;
/// Bit position of `flags`.
pub const FLAGS_LSB: usize = 32;

/// Packs the fields this crate defines into a `tuser` value.
pub fn tuser(src_port: u8, dest_port: u8, length: u16) -> u128 {
    (src_port as u128) << SRC_PORT_LSB | (dest_port as u128) << DEST_PORT_LSB | (length as u128) << LENGTH_LSB
}

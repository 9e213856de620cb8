//! Layout of the `tuser` metadata word that travels with every packet.
//!
//! `tuser` is per-packet: blocks sample it on the first beat. Fields (bit
//! ranges are `[lsb +: width]`); later stages add fields above bit 56.
//!
//! | field | lsb | width | set by | meaning |
//! |---|---|---|---|---|
//! | `src_port` | 0 | 8 | rx | ingress port number |
//! | `dest_port` | 8 | 8 | lookup | egress port number; `0xFF` = drop |
//! | `length` | 16 | 16 | rx_fcs | packet length in bytes (0 = unknown) |
//! | `flags` | 32 | 8 | later | reserved for trimmed / return-to-sender / PL2 / Protego |
//! | `tc` | 40 | 3 | classify | traffic class |
//! | `prio` | 43 | 1 | classify | header/control queue (high priority) |
//! | `trim_ok` | 44 | 1 | classify | may be trimmed |
//! | `ndp_data` | 45 | 1 | classify | NDP data packet |
//! | `routed` | 46 | 1 | lookup | IPv4 route hit; MACs rewritten |
//! | `malformed` | 47 | 1 | lookup | a malformed packet forwarded untouched |
//! | `nexthop` | 48 | 8 | lookup | next-hop index (routed packets) |

/// Bit position of `src_port`.
pub const SRC_PORT_LSB: usize = 0;
/// Bit position of `dest_port`.
pub const DEST_PORT_LSB: usize = 8;
/// Bit position of `length`.
pub const LENGTH_LSB: usize = 16;
/// Bit position of `flags`.
pub const FLAGS_LSB: usize = 32;
/// Bit position of `tc` (3 bits).
pub const TC_LSB: usize = 40;
/// Bit positions of the one-bit classification results.
pub const PRIO_BIT: usize = 43;
pub const TRIM_OK_BIT: usize = 44;
pub const NDP_DATA_BIT: usize = 45;
pub const ROUTED_BIT: usize = 46;
pub const MALFORMED_BIT: usize = 47;
/// Bit position of `nexthop` (8 bits).
pub const NEXTHOP_LSB: usize = 48;
/// Bits of `tuser` the ingress pipeline defines.
pub const INGRESS_BITS: usize = 56;

/// Packs the fields this crate defines into a `tuser` value.
pub fn tuser(src_port: u8, dest_port: u8, length: u16) -> u128 {
    (src_port as u128) << SRC_PORT_LSB | (dest_port as u128) << DEST_PORT_LSB | (length as u128) << LENGTH_LSB
}

/// Every `tuser` field as a struct (what the ingress pipeline hands on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Meta {
    pub src_port: u8,
    pub dest_port: u8,
    pub length: u16,
    pub flags: u8,
    pub tc: u8,
    pub prio: bool,
    pub trim_ok: bool,
    pub ndp_data: bool,
    pub routed: bool,
    pub malformed: bool,
    pub nexthop: u8,
}

impl Meta {
    /// The `tuser` value (bits above [`INGRESS_BITS`] zero).
    pub fn pack(&self) -> u128 {
        tuser(self.src_port, self.dest_port, self.length)
            | (self.flags as u128) << FLAGS_LSB
            | ((self.tc & 7) as u128) << TC_LSB
            | (self.prio as u128) << PRIO_BIT
            | (self.trim_ok as u128) << TRIM_OK_BIT
            | (self.ndp_data as u128) << NDP_DATA_BIT
            | (self.routed as u128) << ROUTED_BIT
            | (self.malformed as u128) << MALFORMED_BIT
            | (self.nexthop as u128) << NEXTHOP_LSB
    }

    /// Reads the fields back from a `tuser` value.
    pub fn unpack(u: u128) -> Meta {
        let bit = |b: usize| u >> b & 1 == 1;
        Meta {
            src_port: (u >> SRC_PORT_LSB) as u8,
            dest_port: (u >> DEST_PORT_LSB) as u8,
            length: (u >> LENGTH_LSB) as u16,
            flags: (u >> FLAGS_LSB) as u8,
            tc: (u >> TC_LSB) as u8 & 7,
            prio: bit(PRIO_BIT),
            trim_ok: bit(TRIM_OK_BIT),
            ndp_data: bit(NDP_DATA_BIT),
            routed: bit(ROUTED_BIT),
            malformed: bit(MALFORMED_BIT),
            nexthop: (u >> NEXTHOP_LSB) as u8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_round_trips() {
        let m = Meta { src_port: 3, dest_port: 0xfe, length: 9014, flags: 0x81, tc: 6, prio: true, trim_ok: false, ndp_data: true, routed: true, malformed: false, nexthop: 0xa5 };
        assert_eq!(Meta::unpack(m.pack()), m);
        assert!(m.pack() >> INGRESS_BITS == 0);
    }
}

//! Protocol numbers the hardware matches on (`docs/protocols.md`), named once.
//!
//! `tdata` carries the frame's byte 0 in bits 7:0 (byte `i` in bits
//! `8i+7:8i`), so a big-endian 16-bit field taken from `tdata` with
//! `get_bits::<16>` reads byte-swapped: blocks compare it with [`wire16`] of
//! the number, held in a `Constant` field so the Verilog names it.
//!
//! The packet library of `sim/` keeps its own table on purpose: frames built
//! from it check the RTL without sharing a wrong number with it.

/// EtherTypes (IEEE 802.3; PL2 and Protego are this project's, from the IEEE
/// local experimental range).
pub mod ethertype {
    pub const IPV4: u16 = 0x0800;
    pub const IPV6: u16 = 0x86DD;
    /// 802.1Q tag.
    pub const VLAN: u16 = 0x8100;
    /// 802.1ad (Q-in-Q) tag.
    pub const QINQ: u16 = 0x88A8;
    /// PL2 RSV/GRT control frames (seed 003).
    pub const PL2: u16 = 0x88B5;
    /// Protego control frames and tags (seed 004).
    pub const PROTEGO: u16 = 0x88B6;
    /// MAC control (802.3 Annex 31B; PFC pause, 802.1Qbb).
    pub const MAC_CONTROL: u16 = 0x8808;
}

/// IP protocol numbers.
pub mod ipproto {
    pub const UDP: u8 = 17;
    /// NDP (seed 000 and ndp.p4).
    pub const NDP: u8 = 199;
}

/// PL2 message kinds (the first byte of a PL2 frame's payload; PL2-PROTEGO.md).
pub mod pl2kind {
    /// Reservation request.
    pub const RSV: u8 = 1;
    /// Grant.
    pub const GRT: u8 = 2;
}

/// Header lengths in bytes.
pub mod hlen {
    /// The fixed IPv6 header.
    pub const IPV6: u8 = 40;
    pub const UDP: u8 = 8;
    /// NDP (ndp.p4's header).
    pub const NDP: u8 = 16;
    /// A PL2 message.
    pub const PL2: u8 = 16;
}

/// A big-endian 16-bit field as `get_bits::<16>` reads it from `tdata`.
pub const fn wire16(v: u16) -> u64 {
    v.swap_bytes() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_order_is_byte_swapped() {
        // 0x8100 on the wire is byte 0x81 then 0x00: bits 7:0 = 0x81.
        assert_eq!(wire16(ethertype::VLAN), 0x0081);
        assert_eq!(wire16(ethertype::QINQ), 0xa888);
        assert_eq!(wire16(ethertype::IPV6), 0xdd86);
    }
}

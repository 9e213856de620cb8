//! Where the parser's fields are: bit positions in the header window and in
//! the aligned L3 and L4 headers, and the records one stage hands the next.
//!
//! The window holds frame byte `b` at bits `8b .. 8b + 7` (the `tdata` byte
//! order of [`crate::axis`]); a multi-byte field is in wire order, so a 16-bit
//! value is `(byte at P) << 8 | (byte at P + 8)`. The aligned L3 header ([`L3_HDR_BITS`]
//! wide) and L4 header ([`L4_HDR_BITS`]) hold their byte 0 at bit 0.
//!
//! The `#[hdl_gen]` code of the stages names these positions; the emitter
//! declares each as a `localparam` in the modules that use it
//! ([`crate::gen::emit::declare_names`]), so the Verilog reads
//! `win[(ETH_TYPE + TAG_BITS)+:16]`.
use rust_hdl::prelude::*;

/// Bits of the aligned L3 header a stage keeps (80 bytes: IPv4 with 40 bytes
/// of options and the 16 bytes of L4 header after it, or IPv6 and its L4).
pub const L3_HDR_BITS: usize = 640;
/// Bits of the aligned L4 header (UDP, NDP: 16 bytes).
pub const L4_HDR_BITS: usize = 128;
/// Bits of the IPv4 checksum's words (30 words of 16 bits: a 60-byte header).
pub const CSUM_BITS: usize = 480;
/// Bits of the checksum words S2 hands to S3 ([`PSUMS`] words of 16 bits).
pub const PSUM_BITS: usize = 128;
const _: () = assert!(CSUM_BITS == 16 * CSUM_WORDS && PSUM_BITS == 16 * PSUMS);
/// Bits of the checksum words S2 masks by IHL (after the first five header
/// words), and of what its second compressor tree takes (those and the first
/// tree's 7 words).
pub const CSUM_MASKED_BITS: usize = CSUM_BITS - CSUM_FIXED_BITS;
pub const CSUM_TREE_BITS: usize = CSUM_PRE_BITS + CSUM_MASKED_BITS;
/// Bits of the header window ([`crate::ingress::parser::WINDOW_BYTES`] bytes).
pub const WIN_BITS: usize = 1024;

crate::gen::unroll::named_indices! {
    // ---- Ethernet and its tags (IEEE 802.3, 802.1Q; Protego: PL2-PROTEGO.md) ----
    /// Destination MAC (bytes 0..5).
    ETH_DMAC = 0;
    /// Source MAC (bytes 6..11).
    ETH_SMAC = 6 * 8;
    /// The EtherType after the MAC addresses (bytes 12..13); each VLAN tag
    /// before it moves the next one on by [`TAG_BITS`].
    ETH_TYPE = 12 * 8;
    /// One VLAN tag (4 bytes).
    TAG_BITS = 4 * 8;
    /// The first VLAN tag's TCI (bytes 14..15): PCP its top three bits, VID
    /// its low twelve (four of byte 14, all of byte 15).
    VLAN_TCI = 14 * 8;
    /// PCP: bits 5..7 of byte 14.
    VLAN_PCP = 14 * 8 + 5;
    /// Low byte of the VID (byte 15).
    VLAN_VID_LO = 15 * 8;
    /// A Protego tag right after the MACs: its kind (bits 6..7 of byte 14)
    /// and the EtherType it carries (bytes 17..18); after VLAN tags both move
    /// on by [`TAG_BITS`] per tag.
    PROTEGO_KIND = 14 * 8 + 6;
    PROTEGO_TYPE = 17 * 8;
    // ---- IPv4 (RFC 791), IPv6 (RFC 8200), PL2 (PL2-PROTEGO.md), aligned ----
    /// IPv4 IHL (low nibble of byte 0); the version is the high nibble.
    IP_IHL = 0;
    IP_VER = 4;
    /// IPv4 TOS (byte 1: DSCP and ECN).
    V4_TOS = 8;
    /// IPv4 total length (bytes 2..3).
    V4_LEN = 2 * 8;
    /// IPv4 protocol (byte 9).
    V4_PROTO = 9 * 8;
    /// IPv4 destination address (bytes 16..19).
    V4_DST = 16 * 8;
    /// One IPv4 header word (4 bytes): the header is IHL words, the checksum
    /// sums its 16-bit halves.
    V4_WORD = 4 * 8;
    /// One 16-bit checksum word.
    CSUM_WORD = 16;
    /// 16-bit words of the longest IPv4 header (60 bytes) the checksum sums.
    CSUM_WORDS = 30;
    /// Words S2 reduces the checksum's 30 to ([`crate::prim::widgets::OnesSum`],
    /// four compressor levels, the IHL mask beside the first); S3's first
    /// cycle reduces them to two (four levels), its second tests those.
    PSUMS = 8;
    /// Bits of the checksum words that count whatever the IHL (the first
    /// five header words: 10 checksum words), and of those words after one
    /// compressor level (10 -> 7), which S2 reduces first.
    CSUM_FIXED_BITS = 5 * 32;
    CSUM_PRE_BITS = 7 * 16;
    /// IPv6 traffic class: bits 0..3 of byte 0 (its high nibble) and bits
    /// 4..7 of byte 1 (its low nibble).
    V6_TC_HI = 0;
    V6_TC_LO = 12;
    /// IPv6 payload length (bytes 4..5) and next header (byte 6).
    V6_LEN = 4 * 8;
    V6_NEXT = 6 * 8;
    /// The fixed IPv6 header (40 bytes).
    V6_HDR = 40 * 8;
    /// A PL2 message's first word: kind, demand, source, destination (bytes 0..3).
    PL2_KIND_AT = 0;
    PL2_DEMAND_AT = 8;
    PL2_SRC_AT = 2 * 8;
    PL2_DST_AT = 3 * 8;
    /// DSCP and ECN in the TOS / traffic class byte.
    TOS_DSCP = 2;
    TOS_ECN = 0;
    /// The first and second byte of a 16-bit field as read from the window
    /// (the first is the most significant on the wire).
    BYTE0 = 0;
    BYTE1 = 8;
    // ---- UDP (RFC 768), NDP (ndp.p4) ----
    /// UDP ports (bytes 0..1, 2..3) and length (bytes 4..5).
    UDP_SPORT = 0;
    UDP_DPORT = 2 * 8;
    UDP_LEN = 4 * 8;
    /// NDP flags (byte 0) and ports (bytes 2..3, 4..5).
    NDP_FLAGS_AT = 0;
    NDP_SPORT = 2 * 8;
    NDP_DPORT = 4 * 8;
}

/// The codes the last stage writes into the PHV ([`crate::ingress::phv`]), by
/// name.
pub mod code {
    use crate::ingress::phv::{l3, l4, malformed as m};
    crate::gen::unroll::named_values! {
        PHV_L3_IPV4 = l3::IPV4;
        PHV_L3_IPV6 = l3::IPV6;
        PHV_L3_PL2 = l3::PL2;
        PHV_L3_PCTL = l3::PROTEGO_CTL;
        PHV_L4_UDP = l4::UDP;
        PHV_L4_NDP = l4::NDP;
        MAL_L2_TRUNCATED = m::L2_TRUNCATED;
        MAL_VLAN_DEPTH = m::VLAN_DEPTH;
        MAL_IP_VERSION = m::IP_VERSION;
        MAL_IPV4_IHL = m::IPV4_IHL;
        MAL_IPV4_TRUNCATED = m::IPV4_TRUNCATED;
        MAL_IPV4_LENGTH = m::IPV4_LENGTH;
        MAL_IPV4_CHECKSUM = m::IPV4_CHECKSUM;
        MAL_IPV6_TRUNCATED = m::IPV6_TRUNCATED;
        MAL_IPV6_LENGTH = m::IPV6_LENGTH;
        MAL_L4_TRUNCATED = m::L4_TRUNCATED;
        MAL_UDP_LENGTH = m::UDP_LENGTH;
        MAL_PL2_TRUNCATED = m::PL2_TRUNCATED;
        MAL_PL2_KIND = m::PL2_KIND;
    }
}

/// What the tag-chain stage learns of the Ethernet header; carried to the
/// last stage in one register per stage.
#[derive(Default, PartialEq, Eq, LogicStruct, Copy, Clone, Debug)]
pub struct L2Info {
    /// Destination MAC, most significant byte first.
    pub dmac: Bits<48>,
    /// Source MAC, most significant byte first (a PL2 frame's GRT goes back
    /// to it).
    pub smac: Bits<48>,
    /// The ingress port (`tuser.src_port` of the first beat).
    pub port: Bits<8>,
    /// The EtherType after the tags (wire byte order).
    pub ether: Bits<16>,
    /// VLAN tags (0..2), and the first tag's PCP and VID.
    pub vlans: Bits<2>,
    pub pcp: Bits<3>,
    pub vid: Bits<12>,
    /// A Protego tag follows the VLAN tags; its kind.
    pub prot: Bit,
    pub pkind: Bits<2>,
    /// A third VLAN tag (malformed).
    pub v3: Bit,
    /// The EtherType after the tags is IPv6 and there is no third tag:
    /// computed by S1 ([`super::align::ParseAlign`]) from `ether` and `v3`,
    /// so S2's L4 alignment starts from a register (issue 14); 0 out of S0.
    pub v6: Bit,
    /// Frame length (`tuser.length`).
    pub len: Bits<16>,
}

/// What the L3 stage reads of the IP or PL2 header.
#[derive(Default, PartialEq, Eq, LogicStruct, Copy, Clone, Debug)]
pub struct L3Info {
    pub is_v4: Bit,
    pub is_v6: Bit,
    pub is_pl2: Bit,
    /// A Protego control frame (the tag's EtherType again).
    pub is_pctl: Bit,
    pub ver: Bits<4>,
    pub ihl: Bits<4>,
    /// Byte offset of the L3 header.
    pub l3_off: Bits<8>,
    /// The PL2 message's first word (wire order).
    pub pl2: Bits<32>,
    /// IPv4 TOS or IPv6 traffic class; total or payload length; protocol or
    /// next header; IPv4 destination (zero for IPv6).
    pub tos: Bits<8>,
    pub iplen: Bits<16>,
    pub proto: Bits<8>,
    pub dst: Bits<32>,
}

/// What the check stage reads of the L4 header.
#[derive(Default, PartialEq, Eq, LogicStruct, Copy, Clone, Debug)]
pub struct L4Info {
    pub is_udp: Bit,
    pub is_ndp: Bit,
    /// Byte offset of the L4 header.
    pub l4o: Bits<7>,
    /// UDP ports; NDP flags and ports.
    pub sport: Bits<16>,
    pub dport: Bits<16>,
    pub nflags: Bits<8>,
    pub ndp_sport: Bits<16>,
    pub ndp_dport: Bits<16>,
}

/// Every check of `docs/ingress.md` as a flag (set: the check fails); the
/// last stage reports the first that applies.
#[derive(Default, PartialEq, Eq, LogicStruct, Copy, Clone, Debug)]
pub struct Checks {
    pub l2: Bit,
    pub vlan: Bit,
    pub ver4: Bit,
    pub ver6: Bit,
    pub ihl: Bit,
    pub v4tr: Bit,
    pub v4len: Bit,
    pub cks: Bit,
    pub v6tr: Bit,
    pub v6len: Bit,
    pub l4tr: Bit,
    pub udp: Bit,
    pub pl2tr: Bit,
    pub pl2k: Bit,
}

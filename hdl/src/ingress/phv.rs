//! The parsed header vector (PHV): what the parser learns about a packet.
//!
//! The PHV travels beside the packet's stream as a [`PHV_BITS`]-bit side
//! channel (valid with every beat, one value per packet). This module is the
//! one definition of its layout: the RTL parser builds it, the golden model
//! builds a [`Phv`], and [`Phv::pack`]/[`Phv::unpack`] convert between them.
//! The parsing rules are in `docs/ingress.md`.

/// Width of the PHV side channel.
pub const PHV_BITS: usize = 256;

/// What follows the Ethernet header and its tags.
pub mod l3 {
    /// Any other EtherType, or none could be read.
    pub const OTHER: u8 = 0;
    pub const IPV4: u8 = 1;
    pub const IPV6: u8 = 2;
    /// PL2 RSV/GRT (EtherType 0x88B5).
    pub const PL2: u8 = 3;
    /// Protego control frame: a Protego tag followed by EtherType 0x88B6 again.
    pub const PROTEGO_CTL: u8 = 4;
}

/// What follows the IP header.
pub mod l4 {
    pub const NONE: u8 = 0;
    pub const UDP: u8 = 1;
    pub const NDP: u8 = 2;
}

/// Malformed reasons, in the order the parser checks them (the first that
/// applies is reported). 0 means well formed.
pub mod malformed {
    pub const NONE: u8 = 0;
    /// The tag chain (14 B Ethernet + 4 B per VLAN + 5 B Protego) runs past the frame.
    pub const L2_TRUNCATED: u8 = 1;
    /// A third VLAN tag (0x8100 or 0x88A8) after two.
    pub const VLAN_DEPTH: u8 = 2;
    /// EtherType IPv4 with version != 4, or IPv6 with version != 6.
    pub const IP_VERSION: u8 = 3;
    /// IPv4 IHL < 5.
    pub const IPV4_IHL: u8 = 4;
    /// The IPv4 header (4 * IHL bytes) runs past the frame.
    pub const IPV4_TRUNCATED: u8 = 5;
    /// IPv4 total length < 4 * IHL, or larger than the frame holds.
    pub const IPV4_LENGTH: u8 = 6;
    /// IPv4 header checksum wrong.
    pub const IPV4_CHECKSUM: u8 = 7;
    /// The 40-byte IPv6 header runs past the frame.
    pub const IPV6_TRUNCATED: u8 = 8;
    /// 40 + IPv6 payload length larger than the frame holds.
    pub const IPV6_LENGTH: u8 = 9;
    /// The UDP (8 B) or NDP (16 B) header runs past the end of the IP packet.
    pub const L4_TRUNCATED: u8 = 10;
    /// UDP length < 8 or larger than the IP payload.
    pub const UDP_LENGTH: u8 = 11;
    /// The 16-byte PL2 message runs past the frame.
    pub const PL2_TRUNCATED: u8 = 12;
    /// PL2 kind is neither RSV (1) nor GRT (2).
    pub const PL2_KIND: u8 = 13;
    /// Number of reason codes including NONE (counters are indexed by code).
    pub const COUNT: usize = 14;
    /// Counter names, indexed by code.
    pub const NAMES: [&str; COUNT] = [
        "none",
        "l2_truncated",
        "vlan_depth",
        "ip_version",
        "ipv4_ihl",
        "ipv4_truncated",
        "ipv4_length",
        "ipv4_checksum",
        "ipv6_truncated",
        "ipv6_length",
        "l4_truncated",
        "udp_length",
        "pl2_truncated",
        "pl2_kind",
    ];
}

/// The parsed header vector. Field meanings and the zeroing rules are in
/// `docs/ingress.md` ("PHV").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Phv {
    /// Destination MAC, first byte on the wire in bits 47:40.
    pub dst_mac: u64,
    /// The EtherType after the tags (or the offending TPID for VLAN_DEPTH).
    pub ethertype: u16,
    /// VLAN tags parsed (0..=2).
    pub vlans: u8,
    /// PCP and VID of the outer VLAN tag (0 without tags).
    pub pcp: u8,
    pub vid: u16,
    /// A Protego tag is present, and its type (0 DATA, 1 RETX, 2 ACK, 3 LOSS).
    pub protego: bool,
    pub protego_kind: u8,
    /// One of [`l3`].
    pub l3: u8,
    /// Byte offset of the L3 header: 14 + 4 * vlans + 5 * protego.
    pub l3_off: u8,
    pub dscp: u8,
    pub ecn: u8,
    /// IPv4 protocol or IPv6 next header.
    pub proto: u8,
    /// IPv4 total length or IPv6 payload length.
    pub ip_len: u16,
    /// IPv4 IHL (0 for IPv6).
    pub ihl: u8,
    /// IPv4 destination address (first byte in bits 31:24). A PL2 frame
    /// (`l3` PL2, well formed) carries its source MAC's bits 31:0 here
    /// ([`Phv::pl2_smac`]); after the PL2 stage a GRT carries its
    /// `send_timeslot` ([`field::PL2_SEND`]).
    pub ipv4_dst: u32,
    /// One of [`l4`].
    pub l4: u8,
    /// Byte offset of the L4 header (0 when `l4` is NONE).
    pub l4_off: u8,
    /// UDP source/destination port, or NDP `src_port`/`dst_port`. A PL2
    /// frame carries its source MAC's bits 47:32 in `sport` (and `dport`
    /// 0); after the PL2 stage a GRT carries its `recv_timeslot` in the two
    /// ([`field::PL2_RECV`]).
    pub sport: u16,
    pub dport: u16,
    /// NDP flags byte (0 unless `l4` is NDP).
    pub ndp_flags: u8,
    /// PL2 message bytes 0..4 (0 unless `l3` is PL2).
    pub pl2_kind: u8,
    pub pl2_demand: u8,
    pub pl2_src: u8,
    pub pl2_dst: u8,
    /// One of [`malformed`]; 0 = well formed.
    pub malformed: u8,
    /// The port the packet arrived on (`tuser.src_port`; the model's
    /// [`crate::ingress::phv`] users set it, the parser model leaves 0).
    pub in_port: u8,
}

/// `(lsb, width)` of every PHV field, in declaration order. The RTL uses the
/// same constants.
pub mod field {
    pub const DST_MAC: (usize, usize) = (0, 48);
    pub const ETHERTYPE: (usize, usize) = (48, 16);
    pub const VLANS: (usize, usize) = (64, 2);
    pub const PCP: (usize, usize) = (66, 3);
    pub const VID: (usize, usize) = (69, 12);
    pub const PROTEGO: (usize, usize) = (81, 1);
    pub const PROTEGO_KIND: (usize, usize) = (82, 2);
    pub const L3: (usize, usize) = (84, 3);
    pub const L3_OFF: (usize, usize) = (87, 7);
    pub const DSCP: (usize, usize) = (94, 6);
    pub const ECN: (usize, usize) = (100, 2);
    pub const PROTO: (usize, usize) = (102, 8);
    pub const IP_LEN: (usize, usize) = (110, 16);
    pub const IHL: (usize, usize) = (126, 4);
    pub const IPV4_DST: (usize, usize) = (130, 32);
    pub const L4: (usize, usize) = (162, 2);
    pub const L4_OFF: (usize, usize) = (164, 7);
    pub const SPORT: (usize, usize) = (171, 16);
    pub const DPORT: (usize, usize) = (187, 16);
    pub const NDP_FLAGS: (usize, usize) = (203, 8);
    pub const PL2_KIND: (usize, usize) = (211, 8);
    pub const PL2_DEMAND: (usize, usize) = (219, 8);
    pub const PL2_SRC: (usize, usize) = (227, 8);
    pub const PL2_DST: (usize, usize) = (235, 8);
    pub const MALFORMED: (usize, usize) = (243, 4);
    pub const IN_PORT: (usize, usize) = (247, 8);
    /// Overlays, for PL2 frames only (`L3` = PL2; `docs/pl2.md`). From the
    /// parser: the source MAC, bits 31:0 in `IPV4_DST` and 47:32 in `SPORT`
    /// (the GRT's destination). After the ingress PL2 stage, a GRT's
    /// `send_timeslot` in `IPV4_DST` and `recv_timeslot` in `SPORT`..`DPORT`
    /// (bits 15:0 in `SPORT`).
    pub const PL2_SMAC_LO: (usize, usize) = IPV4_DST;
    pub const PL2_SMAC_HI: (usize, usize) = SPORT;
    pub const PL2_SEND: (usize, usize) = IPV4_DST;
    pub const PL2_RECV: (usize, usize) = (SPORT.0, 32);
    const _: () = assert!(SPORT.0 + SPORT.1 == DPORT.0 && DPORT.1 == 16);
    /// The least significant bit of the fields `#[hdl_gen]` code reads by
    /// name (`s_phv.get_bits::<3>(PHV_L3_LSB)`; declared in the Verilog by the
    /// emitter, [`crate::meta::hdl_names`]).
    pub const NAMES: &[(&str, usize)] =
        &[("PHV_L3_LSB", L3.0), ("PHV_L3_OFF_LSB", L3_OFF.0), ("PHV_IHL_LSB", IHL.0), ("PHV_L4_LSB", L4.0), ("PHV_L4_OFF_LSB", L4_OFF.0)];
    pub const PHV_L3_LSB: usize = L3.0;
    pub const PHV_L3_OFF_LSB: usize = L3_OFF.0;
    pub const PHV_IHL_LSB: usize = IHL.0;
    pub const PHV_L4_LSB: usize = L4.0;
    pub const PHV_L4_OFF_LSB: usize = L4_OFF.0;
}

fn put(v: &mut [u64; 4], (lsb, w): (usize, usize), x: u64) {
    debug_assert!(w == 64 || x >> w == 0, "PHV field at {lsb} wider than {w} bits: {x:#x}");
    for i in 0..w {
        if x >> i & 1 == 1 {
            v[(lsb + i) / 64] |= 1 << ((lsb + i) % 64);
        }
    }
}

fn get(v: &[u64; 4], (lsb, w): (usize, usize)) -> u64 {
    (0..w).fold(0, |acc, i| acc | (v[(lsb + i) / 64] >> ((lsb + i) % 64) & 1) << i)
}

impl Phv {
    /// A PL2 frame's source MAC (first byte on the wire in bits 47:40), from
    /// its overlay on `ipv4_dst` and `sport` ([`field::PL2_SMAC_LO`]).
    pub fn pl2_smac(&self) -> u64 {
        (self.sport as u64) << 32 | self.ipv4_dst as u64
    }
    /// Stores a PL2 frame's source MAC in its overlay.
    pub fn set_pl2_smac(&mut self, mac: u64) {
        self.ipv4_dst = mac as u32;
        self.sport = (mac >> 32) as u16;
    }
    /// The PHV as four 64-bit words, least significant first.
    pub fn pack(&self) -> [u64; 4] {
        use field::*;
        let mut v = [0u64; 4];
        put(&mut v, DST_MAC, self.dst_mac);
        put(&mut v, ETHERTYPE, self.ethertype as u64);
        put(&mut v, VLANS, self.vlans as u64);
        put(&mut v, PCP, self.pcp as u64);
        put(&mut v, VID, self.vid as u64);
        put(&mut v, PROTEGO, self.protego as u64);
        put(&mut v, PROTEGO_KIND, self.protego_kind as u64);
        put(&mut v, L3, self.l3 as u64);
        put(&mut v, L3_OFF, self.l3_off as u64);
        put(&mut v, DSCP, self.dscp as u64);
        put(&mut v, ECN, self.ecn as u64);
        put(&mut v, PROTO, self.proto as u64);
        put(&mut v, IP_LEN, self.ip_len as u64);
        put(&mut v, IHL, self.ihl as u64);
        put(&mut v, IPV4_DST, self.ipv4_dst as u64);
        put(&mut v, L4, self.l4 as u64);
        put(&mut v, L4_OFF, self.l4_off as u64);
        put(&mut v, SPORT, self.sport as u64);
        put(&mut v, DPORT, self.dport as u64);
        put(&mut v, NDP_FLAGS, self.ndp_flags as u64);
        put(&mut v, PL2_KIND, self.pl2_kind as u64);
        put(&mut v, PL2_DEMAND, self.pl2_demand as u64);
        put(&mut v, PL2_SRC, self.pl2_src as u64);
        put(&mut v, PL2_DST, self.pl2_dst as u64);
        put(&mut v, MALFORMED, self.malformed as u64);
        put(&mut v, IN_PORT, self.in_port as u64);
        v
    }

    /// Inverse of [`Phv::pack`].
    pub fn unpack(v: &[u64; 4]) -> Phv {
        use field::*;
        Phv {
            dst_mac: get(v, DST_MAC),
            ethertype: get(v, ETHERTYPE) as u16,
            vlans: get(v, VLANS) as u8,
            pcp: get(v, PCP) as u8,
            vid: get(v, VID) as u16,
            protego: get(v, PROTEGO) == 1,
            protego_kind: get(v, PROTEGO_KIND) as u8,
            l3: get(v, L3) as u8,
            l3_off: get(v, L3_OFF) as u8,
            dscp: get(v, DSCP) as u8,
            ecn: get(v, ECN) as u8,
            proto: get(v, PROTO) as u8,
            ip_len: get(v, IP_LEN) as u16,
            ihl: get(v, IHL) as u8,
            ipv4_dst: get(v, IPV4_DST) as u32,
            l4: get(v, L4) as u8,
            l4_off: get(v, L4_OFF) as u8,
            sport: get(v, SPORT) as u16,
            dport: get(v, DPORT) as u16,
            ndp_flags: get(v, NDP_FLAGS) as u8,
            pl2_kind: get(v, PL2_KIND) as u8,
            pl2_demand: get(v, PL2_DEMAND) as u8,
            pl2_src: get(v, PL2_SRC) as u8,
            pl2_dst: get(v, PL2_DST) as u8,
            malformed: get(v, MALFORMED) as u8,
            in_port: get(v, IN_PORT) as u8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_tile_without_overlap_and_fit() {
        use field::*;
        let all = [
            DST_MAC,
            ETHERTYPE,
            VLANS,
            PCP,
            VID,
            PROTEGO,
            PROTEGO_KIND,
            L3,
            L3_OFF,
            DSCP,
            ECN,
            PROTO,
            IP_LEN,
            IHL,
            IPV4_DST,
            L4,
            L4_OFF,
            SPORT,
            DPORT,
            NDP_FLAGS,
            PL2_KIND,
            PL2_DEMAND,
            PL2_SRC,
            PL2_DST,
            MALFORMED,
            IN_PORT,
        ];
        let mut next = 0;
        for (lsb, w) in all {
            assert_eq!(lsb, next, "field at {lsb} leaves a gap or overlaps");
            next = lsb + w;
        }
        assert!(next <= PHV_BITS);
    }

    #[test]
    fn pack_unpack_round_trip() {
        let p = Phv {
            dst_mac: 0x0123_4567_89ab,
            ethertype: 0x0800,
            vlans: 2,
            pcp: 5,
            vid: 0xabc,
            protego: true,
            protego_kind: 3,
            l3: l3::IPV4,
            l3_off: 27,
            dscp: 0x2e,
            ecn: 3,
            proto: 199,
            ip_len: 0xfedc,
            ihl: 15,
            ipv4_dst: 0xc0a8_0101,
            l4: l4::NDP,
            l4_off: 87,
            sport: 0x1234,
            dport: 0xfffe,
            ndp_flags: 0x91,
            pl2_kind: 2,
            pl2_demand: 4,
            pl2_src: 7,
            pl2_dst: 9,
            malformed: malformed::PL2_KIND,
            in_port: 63,
        };
        assert_eq!(Phv::unpack(&p.pack()), p);
    }
}

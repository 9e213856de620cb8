//! Layout of the `tuser` metadata word that travels with every packet.
//!
//! `tuser` is per-packet: blocks sample it on the first beat. Fields (bit
//! ranges are `[lsb +: width]`). Bits 0..56 exist at every `user_width`; the
//! header-location fields at 56..78 exist only with `user_width = 128` (the
//! traffic manager needs them to trim at the first beat, `docs/trimming.md`).
//!
//! | field | lsb | width | set by | meaning |
//! |---|---|---|---|---|
//! | `src_port` | 0 | 8 | rx | ingress port number |
//! | `dest_port` | 8 | 8 | lookup | egress port number; `0xFF` = drop |
//! | `length` | 16 | 16 | rx_fcs | packet length in bytes (0 = unknown) |
//! | `flags` | 32 | 8 | tm, ingress | bit 0 trimmed, bit 1 returned to sender (tm), bit 2 a PL2 GRT (ingress apply) ([`flag`]); 3..7 reserved (Protego) |
//! | `tc` | 40 | 3 | classify | traffic class |
//! | `prio` | 43 | 1 | classify | header/control queue (high priority) |
//! | `trim_ok` | 44 | 1 | classify | may be trimmed |
//! | `ndp_data` | 45 | 1 | classify | NDP data packet |
//! | `routed` | 46 | 1 | lookup | IPv4 route hit; MACs rewritten |
//! | `malformed` | 47 | 1 | lookup | a malformed packet forwarded untouched |
//! | `nexthop` | 48 | 8 | lookup | next-hop index (routed packets) |
//! | `l3` | 56 | 2 | ingress | 0 other, 1 IPv4, 2 IPv6 ([`l3kind`]) |
//! | `l4` | 58 | 2 | ingress | PHV `l4`: 0 none, 1 UDP, 2 NDP |
//! | `l3_off` | 60 | 7 | ingress | byte offset of the IP header (PHV `l3_off`) |
//! | `l4_off` | 67 | 7 | ingress | byte offset of the UDP/NDP header (PHV `l4_off`, 0 if none) |
//! | `ihl` | 74 | 4 | ingress | IPv4 IHL (0 for IPv6) |
//! | `t_in` | 112 | 16 | rx | the cycle (modulo 2¹⁶) the packet's first beat entered the switch; kept only on a GRT (`flags` bit 2) |
//!
//! `t_in` is what the switch measures the RSV→GRT latency with (`docs/pl2.md`,
//! the `GRT_LAT_MIN`/`GRT_LAT_MAX` registers): rx_fcs writes it into every
//! packet, the ingress apply clears it unless the packet became a GRT, and at
//! the switch's output `now − t_in` is the GRT's latency. Inside the traffic
//! manager, from its input to admission (where `TmPre` uses bits 96..128), a
//! GRT's `t_in` rides in bits [`T_IN_LO_LSB`]..88 (its low 10 bits) and
//! [`T_IN_HI_LSB`]..96 (its high 6), which nothing else uses there;
//! admission puts it back at [`T_IN_LSB`].

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
/// Bits of `tuser` the ingress pipeline defines at every `user_width`.
pub const INGRESS_BITS: usize = 56;
/// Bit position of `l3` (2 bits, [`l3kind`]).
pub const L3_LSB: usize = 56;
/// Bit position of `l4` (2 bits, PHV `l4` codes).
pub const L4_LSB: usize = 58;
/// Bit position of `l3_off` (7 bits).
pub const L3_OFF_LSB: usize = 60;
/// Bit position of `l4_off` (7 bits).
pub const L4_OFF_LSB: usize = 67;
/// Bit position of `ihl` (4 bits).
pub const IHL_LSB: usize = 74;
/// Bits of `tuser` the ingress pipeline defines when `user_width >= 128`
/// (the header-location fields the traffic manager needs).
pub const WIDE_BITS: usize = 78;

/// Bit of `flags` the traffic manager sets on a trimmed packet ([`flag::TRIMMED`]).
pub const TRIMMED_BIT: usize = FLAGS_LSB;
/// Bit of `flags` the traffic manager sets on a packet returned to its sender
/// ([`flag::RETURNED`]).
pub const RETURNED_BIT: usize = FLAGS_LSB + 1;
/// Bit of `flags` the ingress sets on a GRT the PL2 ALU granted ([`flag::GRT`]).
pub const GRT_BIT: usize = FLAGS_LSB + 2;
/// Bit position of `t_in` (16 bits): the cycle the packet's first beat
/// entered the switch (module docs).
pub const T_IN_LSB: usize = 112;
/// Width of `t_in`.
pub const T_IN_BITS: usize = 16;
/// Inside the traffic manager, before admission: `t_in`'s low 10 bits here …
pub const T_IN_LO_LSB: usize = 78;
/// … and its high 6 bits here.
pub const T_IN_HI_LSB: usize = 90;
const _: () = assert!(T_IN_LO_LSB == WIDE_BITS && T_IN_LO_LSB + 10 == 88 && T_IN_HI_LSB + 6 == 96 && T_IN_LSB + T_IN_BITS == 128);
/// `l3` of an IPv4 packet ([`l3kind::IPV4`]), as `hdl_gen` code compares it.
pub const L3_IPV4: u64 = l3kind::IPV4 as u64;
pub const L3_IPV6: u64 = l3kind::IPV6 as u64;
/// `l4` of a UDP packet (PHV [`crate::ingress::phv::l4::UDP`]).
pub const L4_UDP: u64 = crate::ingress::phv::l4::UDP as u64;
/// `l4` of an NDP packet (PHV [`crate::ingress::phv::l4::NDP`]).
pub const L4_NDP: u64 = crate::ingress::phv::l4::NDP as u64;

/// `tuser` field positions as shift amounts (rust-hdl shifts by `u64`), for
/// blocks that place several fields in one word.
pub mod shift {
    use super::*;
    crate::gen::unroll::named_values! {
        SH_DEST_PORT = DEST_PORT_LSB;
        SH_TC = TC_LSB;
        SH_PRIO = PRIO_BIT;
        SH_ROUTED = ROUTED_BIT;
        SH_MALFORMED = MALFORMED_BIT;
        SH_NEXTHOP = NEXTHOP_LSB;
        SH_T_IN = T_IN_LSB;
        SH_T_IN_LO = T_IN_LO_LSB;
        SH_T_IN_HI = T_IN_HI_LSB;
        SH_T_IN_HI_OUT = T_IN_LSB + 10;
    }
}

/// The header-location fields (`l3`, `l4`, `l3_off`, `l4_off`, `ihl`) as
/// shifts within the word that starts at [`L3_LSB`], for blocks that build
/// the word and place it at once.
pub mod info {
    use super::*;
    crate::gen::unroll::named_values! {
        INFO_L4_SHIFT = L4_LSB - L3_LSB;
        INFO_L3_OFF_SHIFT = L3_OFF_LSB - L3_LSB;
        INFO_L4_OFF_SHIFT = L4_OFF_LSB - L3_LSB;
        INFO_IHL_SHIFT = IHL_LSB - L3_LSB;
        INFO_SHIFT = L3_LSB;
    }
}

/// The names of `tuser` bit positions and codes that `#[hdl_gen]` code may use
/// instead of numbers (`get_bit(TRIM_OK_BIT)`): in Rust they are these
/// constants; in the Verilog, the emitter declares each one a module uses as
/// a `localparam` of the same name ([`crate::gen::emit`]).
pub fn hdl_names() -> Vec<(&'static str, u64)> {
    use crate::tm::admit::{PRE_KL_LSB, PRE_W_KL_LSB, PRE_W_LEN_LSB, QUEUE_LSB, RECIRC_BIT};
    use crate::tm::meter::METER_TRIM_BIT;
    let bits = [
        ("SRC_PORT_LSB", SRC_PORT_LSB),
        ("DEST_PORT_LSB", DEST_PORT_LSB),
        ("LENGTH_LSB", LENGTH_LSB),
        ("FLAGS_LSB", FLAGS_LSB),
        ("TRIMMED_BIT", TRIMMED_BIT),
        ("RETURNED_BIT", RETURNED_BIT),
        ("GRT_BIT", GRT_BIT),
        ("T_IN_LSB", T_IN_LSB),
        ("T_IN_LO_LSB", T_IN_LO_LSB),
        ("T_IN_HI_LSB", T_IN_HI_LSB),
        ("TC_LSB", TC_LSB),
        ("PRIO_BIT", PRIO_BIT),
        ("TRIM_OK_BIT", TRIM_OK_BIT),
        ("NDP_DATA_BIT", NDP_DATA_BIT),
        ("ROUTED_BIT", ROUTED_BIT),
        ("MALFORMED_BIT", MALFORMED_BIT),
        ("NEXTHOP_LSB", NEXTHOP_LSB),
        ("L3_LSB", L3_LSB),
        ("L4_LSB", L4_LSB),
        ("L3_OFF_LSB", L3_OFF_LSB),
        ("L4_OFF_LSB", L4_OFF_LSB),
        ("IHL_LSB", IHL_LSB),
        ("QUEUE_LSB", QUEUE_LSB),
        ("METER_TRIM_BIT", METER_TRIM_BIT),
        ("RECIRC_BIT", RECIRC_BIT),
        ("PRE_KL_LSB", PRE_KL_LSB),
        ("PRE_W_KL_LSB", PRE_W_KL_LSB),
        ("PRE_W_LEN_LSB", PRE_W_LEN_LSB),
    ];
    let mut v: Vec<(&'static str, u64)> = bits.iter().map(|(n, b)| (*n, *b as u64)).collect();
    v.extend([("L3_IPV4", L3_IPV4), ("L3_IPV6", L3_IPV6), ("L4_UDP", L4_UDP), ("L4_NDP", L4_NDP)]);
    // PHV field positions, the header-location fields within their tuser
    // word, the parser's field positions and codes.
    v.extend(crate::ingress::phv::field::NAMES.iter().map(|(n, b)| (*n, *b as u64)));
    v.extend(info::VALUES.iter().copied());
    v.extend(shift::VALUES.iter().copied());
    // Register and class word layouts of classify and lookup.
    use crate::ingress::{classify, lookup};
    v.push(("FRAC_BITS", crate::tm::meter::FRAC_BITS as u64));
    v.push(("BYTES_BITS", crate::tm::meter::BYTES_BITS as u64));
    v.push(("LEVEL_BITS", crate::tm::meter::LEVEL_BITS as u64));
    for names in [
        classify::class::NAMES,
        classify::reg::NAMES,
        lookup::reg::NAMES,
        crate::tm::admit::trim_len::NAMES,
        crate::axis::arb_mux::NAMES,
        &[("FRAME_MIN", crate::ingress::regidx::FRAME_MIN), ("FRAME_MAX", crate::ingress::regidx::FRAME_MAX)],
    ] {
        v.extend(names.iter().map(|(n, b)| (*n, *b as u64)));
    }
    use crate::ingress::parser::{code, layout};
    v.extend(layout::NAMES.iter().map(|(n, b)| (*n, *b as u64)));
    v.extend(code::VALUES.iter().copied());
    v
}

/// The `l3` codes of `tuser` (the PHV's IPv4/IPv6; everything else is 0).
pub mod l3kind {
    pub const OTHER: u8 = 0;
    pub const IPV4: u8 = 1;
    pub const IPV6: u8 = 2;
}

/// Bits of the `flags` field.
pub mod flag {
    /// The traffic manager trimmed the packet.
    pub const TRIMMED: u8 = 1;
    /// The traffic manager returned the packet to its sender.
    pub const RETURNED: u8 = 2;
    /// A GRT the PL2 ALU granted (the ingress apply sets it).
    pub const GRT: u8 = 4;
}

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
    /// [`l3kind`] code (only with `user_width >= 128`, else 0).
    pub l3: u8,
    /// PHV `l4` code (only with `user_width >= 128`).
    pub l4: u8,
    /// IP header offset (only with `user_width >= 128`).
    pub l3_off: u8,
    /// UDP/NDP header offset (only with `user_width >= 128`).
    pub l4_off: u8,
    /// IPv4 IHL (only with `user_width >= 128`).
    pub ihl: u8,
}

impl Meta {
    /// The `tuser` value (bits above [`WIDE_BITS`] zero; a 64-bit `tuser` is
    /// the low 64 bits, without the header-location fields).
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
            | ((self.l3 & 3) as u128) << L3_LSB
            | ((self.l4 & 3) as u128) << L4_LSB
            | ((self.l3_off & 0x7f) as u128) << L3_OFF_LSB
            | ((self.l4_off & 0x7f) as u128) << L4_OFF_LSB
            | ((self.ihl & 15) as u128) << IHL_LSB
    }

    /// The same metadata without the fields a `user_width`-bit `tuser` lacks.
    pub fn at_width(mut self, user_width: usize) -> Meta {
        if user_width < WIDE_BITS {
            (self.l3, self.l4, self.l3_off, self.l4_off, self.ihl) = (0, 0, 0, 0, 0);
        }
        self
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
            l3: (u >> L3_LSB) as u8 & 3,
            l4: (u >> L4_LSB) as u8 & 3,
            l3_off: (u >> L3_OFF_LSB) as u8 & 0x7f,
            l4_off: (u >> L4_OFF_LSB) as u8 & 0x7f,
            ihl: (u >> IHL_LSB) as u8 & 15,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hdl_names_are_unique() {
        let names = hdl_names();
        let mut seen = std::collections::BTreeSet::new();
        for (n, _) in &names {
            assert!(seen.insert(*n), "{n} is declared twice");
        }
    }

    #[test]
    fn meta_round_trips() {
        let m = Meta {
            src_port: 3,
            dest_port: 0xfe,
            length: 9014,
            flags: 0x81,
            tc: 6,
            prio: true,
            trim_ok: false,
            ndp_data: true,
            routed: true,
            malformed: false,
            nexthop: 0xa5,
            l3: 2,
            l4: 1,
            l3_off: 0x7f,
            l4_off: 67,
            ihl: 15,
        };
        assert_eq!(Meta::unpack(m.pack()), m);
        assert!(m.pack() >> WIDE_BITS == 0);
        // A 64-bit tuser has no header-location fields: the ingress leaves
        // bits 56..64 zero there, and the model drops the fields.
        let narrow = m.at_width(64);
        assert_eq!((narrow.l3, narrow.l4, narrow.l3_off, narrow.l4_off, narrow.ihl), (0, 0, 0, 0, 0));
        assert_eq!(Meta::unpack(narrow.pack()), narrow);
        assert!(narrow.pack() >> INGRESS_BITS == 0);
        assert_eq!(m.at_width(128), m);
    }
}

//! `ts_parser`: builds the parsed header vector (PHV, [`crate::ingress::phv`]) of every
//! packet and hands it on beside the packet. Behaviour: `docs/ingress.md`,
//! "parser"; the golden model is `sim/src/model/parser.rs`.
//!
//! The first 128 bytes of a packet (16 beats at 64 bits, 2 at 512) are kept in a
//! window of per-beat slots while the packet itself streams into a small
//! cut-through FIFO. When the window is complete (its last slot or the
//! packet's last beat) a five-stage pipeline parses it:
//! - S0: the tag chain (two VLAN tags, a Protego tag), from the window masked
//!   to the frame length (`tuser.length`; bytes past it read as zero);
//! - S1: the L3 header aligned to byte 0 (six possible offsets);
//! - S2: IPv4/IPv6/PL2 fields, the IPv4 checksum in six partial sums, the L4
//!   header aligned (twelve possible offsets);
//! - S3: checksum fold, lengths and offsets, every check as a flag;
//! - S4: the first failing check in specification order, the PHV fields.
//!
//! The PHV goes into a 32-entry PHV FIFO; the output joins each packet's first
//! beat with its PHV. A new packet is admitted only while fewer than 31 are
//! between input and output, so the PHV FIFO never overflows.
//!
//! Built [`Parser::with_match`], the PHV leaves on `x_phv` instead and comes
//! back on `x_res_phv` with a match result `x_res` (classify and lookup run
//! there, on the PHV alone, while the packet waits in the FIFO: the
//! match-action layout of a switch ASIC). The PHV stages must then keep order,
//! take one PHV per cycle and never stall. Every stage takes
//! one packet per cycle: back-to-back single-beat packets flow at one per cycle.
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::pkt_fifo::PktFifo;
use crate::ingress::phv::{field, PHV_BITS};
use crate::meta::LENGTH_LSB;
use crate::prim::widgets::{vec_of, DffR, KeepExpand};
use crate::proto::{ethertype, ipproto, wire16};
use rust_hdl::prelude::*;

/// Bytes of a packet the parser reads (the deepest header stack is 103 bytes:
/// Ethernet, two VLAN tags, Protego, IPv4 with 40 bytes of options, NDP).
pub const WINDOW_BYTES: usize = 128;
/// Depth of the PHV FIFO (packets between input and output, plus one).
pub const PHV_DEPTH: usize = 32;
/// Width of the match result an external match stage returns with the PHV
/// (`m_res`; [`crate::ingress::lookup::res`]).
pub const RES_BITS: usize = 128;
/// Depth of the packet FIFO in beats.
pub const DATA_DEPTH: usize = 64;
/// Malformed reason counters (codes 1..=13 of [`crate::ingress::phv::malformed`]).
pub const REASONS: usize = crate::ingress::phv::malformed::COUNT - 1;

/// Packs the PHV fields into the [`PHV_BITS`]-bit vector at the positions of
/// [`crate::ingress::phv::field`] (pure wiring; one definition of the layout).
///
/// Ports: one input per PHV field (named as in [`crate::ingress::phv::Phv`]); `phv` out.
#[derive(LogicBlock, Default)]
pub struct PhvPack {
    pub dst_mac: Signal<In, Bits<48>>,
    pub ethertype: Signal<In, Bits<16>>,
    pub vlans: Signal<In, Bits<2>>,
    pub pcp: Signal<In, Bits<3>>,
    pub vid: Signal<In, Bits<12>>,
    pub protego: Signal<In, Bit>,
    pub protego_kind: Signal<In, Bits<2>>,
    pub l3: Signal<In, Bits<3>>,
    pub l3_off: Signal<In, Bits<7>>,
    pub dscp: Signal<In, Bits<6>>,
    pub ecn: Signal<In, Bits<2>>,
    pub proto: Signal<In, Bits<8>>,
    pub ip_len: Signal<In, Bits<16>>,
    pub ihl: Signal<In, Bits<4>>,
    pub ipv4_dst: Signal<In, Bits<32>>,
    pub l4: Signal<In, Bits<2>>,
    pub l4_off: Signal<In, Bits<7>>,
    pub sport: Signal<In, Bits<16>>,
    pub dport: Signal<In, Bits<16>>,
    pub ndp_flags: Signal<In, Bits<8>>,
    pub pl2_kind: Signal<In, Bits<8>>,
    pub pl2_demand: Signal<In, Bits<8>>,
    pub pl2_src: Signal<In, Bits<8>>,
    pub pl2_dst: Signal<In, Bits<8>>,
    pub malformed: Signal<In, Bits<4>>,
    pub phv: Signal<Out, Bits<PHV_BITS>>,
}

impl Logic for PhvPack {
    fn update(&mut self) {
        let mut v = Bits::<PHV_BITS>::default();
        v = v | (bit_cast::<PHV_BITS, 48>(self.dst_mac.val()) << field::DST_MAC.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 16>(self.ethertype.val()) << field::ETHERTYPE.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 2>(self.vlans.val()) << field::VLANS.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 3>(self.pcp.val()) << field::PCP.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 12>(self.vid.val()) << field::VID.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 1>(self.protego.val().into()) << field::PROTEGO.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 2>(self.protego_kind.val()) << field::PROTEGO_KIND.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 3>(self.l3.val()) << field::L3.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 7>(self.l3_off.val()) << field::L3_OFF.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 6>(self.dscp.val()) << field::DSCP.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 2>(self.ecn.val()) << field::ECN.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.proto.val()) << field::PROTO.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 16>(self.ip_len.val()) << field::IP_LEN.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 4>(self.ihl.val()) << field::IHL.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 32>(self.ipv4_dst.val()) << field::IPV4_DST.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 2>(self.l4.val()) << field::L4.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 7>(self.l4_off.val()) << field::L4_OFF.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 16>(self.sport.val()) << field::SPORT.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 16>(self.dport.val()) << field::DPORT.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.ndp_flags.val()) << field::NDP_FLAGS.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.pl2_kind.val()) << field::PL2_KIND.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.pl2_demand.val()) << field::PL2_DEMAND.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.pl2_src.val()) << field::PL2_SRC.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.pl2_dst.val()) << field::PL2_DST.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 4>(self.malformed.val()) << field::MALFORMED.0 as u64);
        self.phv.next = v;
    }
    fn connect(&mut self) {
        self.phv.connect();
    }
    fn hdl(&self) -> Verilog {
        let fields = [
            (field::DST_MAC, "dst_mac"),
            (field::ETHERTYPE, "ethertype"),
            (field::VLANS, "vlans"),
            (field::PCP, "pcp"),
            (field::VID, "vid"),
            (field::PROTEGO, "protego"),
            (field::PROTEGO_KIND, "protego_kind"),
            (field::L3, "l3"),
            (field::L3_OFF, "l3_off"),
            (field::DSCP, "dscp"),
            (field::ECN, "ecn"),
            (field::PROTO, "proto"),
            (field::IP_LEN, "ip_len"),
            (field::IHL, "ihl"),
            (field::IPV4_DST, "ipv4_dst"),
            (field::L4, "l4"),
            (field::L4_OFF, "l4_off"),
            (field::SPORT, "sport"),
            (field::DPORT, "dport"),
            (field::NDP_FLAGS, "ndp_flags"),
            (field::PL2_KIND, "pl2_kind"),
            (field::PL2_DEMAND, "pl2_demand"),
            (field::PL2_SRC, "pl2_src"),
            (field::PL2_DST, "pl2_dst"),
            (field::MALFORMED, "malformed"),
        ];
        let mut parts = vec![];
        let mut next = 0;
        for ((lsb, w), name) in fields {
            assert_eq!(lsb, next, "PHV fields must tile");
            parts.push(if w == 1 { name.to_string() } else { format!("{name}[{}:0]", w - 1) });
            next = lsb + w;
        }
        parts.push(format!("{}'d0", PHV_BITS - next));
        parts.reverse();
        Verilog::Custom(format!("always @(*) phv = {{{}}};\n", parts.join(", ")))
    }
}

/// The parser. Type parameters as for [`PktFifo`] (`U` at least 32: it reads
/// `tuser.length`).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (drops packets in flight, zeroes the counters).
/// - `s_tdata` … `s_tready`: packets in; `tuser.length` must hold the packet
///   length (as `ts_rx_fcs` sets it).
/// - `m_tdata` … `m_tready`: the same packets, `tuser` unchanged, and
///   `m_phv` out: the packet's PHV, valid with every beat.
/// - `m_res` out: the match result of the packet (zero without a match stage).
/// - `x_valid`, `x_phv` out: each PHV as it is built; `x_res_valid`,
///   `x_res_phv`, `x_res` in: the PHV and its result back from the match
///   stage (only with [`Parser::with_match`]; tie them low otherwise).
/// - `pkts` out: PHVs built; `malformed_<i>` out: PHVs with reason code `i + 1`
///   (32 bits, wrap). `clr_pkts`, `clr_malformed_<i>` in: zero them.
#[derive(LogicBlock)]
pub struct Parser<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub m_phv: Signal<Out, Bits<PHV_BITS>>,
    pub m_res: Signal<Out, Bits<RES_BITS>>,
    pub x_valid: Signal<Out, Bit>,
    pub x_phv: Signal<Out, Bits<PHV_BITS>>,
    pub x_res_valid: Signal<In, Bit>,
    pub x_res_phv: Signal<In, Bits<PHV_BITS>>,
    pub x_res: Signal<In, Bits<RES_BITS>>,
    pub pkts: Signal<Out, Bits<32>>,
    pub clr_pkts: Signal<In, Bit>,
    pub malformed: Vec<Signal<Out, Bits<32>>>,
    pub clr_malformed: Vec<Signal<In, Bit>>,
    // Configuration.
    nb_slots: Constant<Bits<8>>,
    last_slot: Constant<Bits<8>>,
    slot_shift: Vec<Constant<Bits<16>>>,
    all128: Constant<Bits<WINDOW_BYTES>>,
    length_lsb: Constant<Bits<16>>,
    phv_room: Constant<Bits<8>>,
    external: Constant<Bit>,
    res_shift: Constant<Bits<16>>,
    /// EtherTypes and IP protocols matched, in `tdata` byte order ([`crate::proto`]).
    et_vlan: Constant<Bits<16>>,
    et_qinq: Constant<Bits<16>>,
    et_ipv4: Constant<Bits<16>>,
    et_ipv6: Constant<Bits<16>>,
    et_protego: Constant<Bits<16>>,
    ip_udp: Constant<Bits<8>>,
    ip_ndp: Constant<Bits<8>>,
    // Blocks.
    data: PktFifo<D, K, U, M, W>,
    phvq: PktFifo<384, 48, 8, 7, 399>,
    lexp: KeepExpand<WINDOW_BYTES, 1024>,
    pack: PhvPack,
    // Front.
    first: DffR<Bit>,
    widx: DffR<Bits<8>>,
    go: DffR<Bit>,
    inflight: DffR<Bits<8>>,
    /// Window slot j holds beat j of the packet, already in place (bits j*D up).
    slots: Vec<DFF<Bits<1024>>>,
    n_pkts: DffR<Bits<32>>,
    n_malformed: Vec<DffR<Bits<32>>>,
    // Pipeline valids.
    r1_v: DffR<Bit>,
    r2_v: DffR<Bit>,
    r3_v: DffR<Bit>,
    r4_v: DffR<Bit>,
    r3_psum: Vec<DFF<Bits<20>>>,
    // Pipeline registers (data; qualified by the valids).
    len_l: DFF<Bits<16>>,
    lmask_l: DFF<Bits<128>>,
    r1_win: DFF<Bits<1024>>,
    r1_v3: DFF<Bit>,
    r1_prot: DFF<Bit>,
    r1_pkind: DFF<Bits<2>>,
    r1_ether: DFF<Bits<16>>,
    r1_vlans: DFF<Bits<2>>,
    r1_pcp: DFF<Bits<3>>,
    r1_vid: DFF<Bits<12>>,
    r1_dmac: DFF<Bits<48>>,
    r1_len: DFF<Bits<16>>,
    r2_a: DFF<Bits<640>>,
    r2_l3_off: DFF<Bits<8>>,
    r2_v3: DFF<Bit>,
    r2_prot: DFF<Bit>,
    r2_pkind: DFF<Bits<2>>,
    r2_ether: DFF<Bits<16>>,
    r2_vlans: DFF<Bits<2>>,
    r2_pcp: DFF<Bits<3>>,
    r2_vid: DFF<Bits<12>>,
    r2_dmac: DFF<Bits<48>>,
    r2_len: DFF<Bits<16>>,
    r3_is_v4: DFF<Bit>,
    r3_is_v6: DFF<Bit>,
    r3_is_pl2: DFF<Bit>,
    r3_is_pctl: DFF<Bit>,
    r3_ver: DFF<Bits<4>>,
    r3_ihl: DFF<Bits<4>>,
    r3_l4b: DFF<Bits<128>>,
    r3_v3: DFF<Bit>,
    r3_l3_off: DFF<Bits<8>>,
    r3_prot: DFF<Bit>,
    r3_pkind: DFF<Bits<2>>,
    r3_ether: DFF<Bits<16>>,
    r3_vlans: DFF<Bits<2>>,
    r3_pcp: DFF<Bits<3>>,
    r3_vid: DFF<Bits<12>>,
    r3_dmac: DFF<Bits<48>>,
    r3_len: DFF<Bits<16>>,
    r3_pl2: DFF<Bits<32>>,
    r3_tos: DFF<Bits<8>>,
    r3_iplen: DFF<Bits<16>>,
    r3_proto: DFF<Bits<8>>,
    r3_dst: DFF<Bits<32>>,
    r4_f_l2: DFF<Bit>,
    r4_f_vlan: DFF<Bit>,
    r4_f_ver4: DFF<Bit>,
    r4_f_ver6: DFF<Bit>,
    r4_f_ihl: DFF<Bit>,
    r4_f_v4tr: DFF<Bit>,
    r4_f_v4len: DFF<Bit>,
    r4_f_cks: DFF<Bit>,
    r4_f_v6tr: DFF<Bit>,
    r4_f_v6len: DFF<Bit>,
    r4_f_l4tr: DFF<Bit>,
    r4_f_udp: DFF<Bit>,
    r4_f_pl2tr: DFF<Bit>,
    r4_f_pl2k: DFF<Bit>,
    r4_is_v4: DFF<Bit>,
    r4_is_v6: DFF<Bit>,
    r4_is_pl2: DFF<Bit>,
    r4_is_pctl: DFF<Bit>,
    r4_is_udp: DFF<Bit>,
    r4_is_ndp: DFF<Bit>,
    r4_l4o: DFF<Bits<7>>,
    r4_sport: DFF<Bits<16>>,
    r4_dport: DFF<Bits<16>>,
    r4_nflags: DFF<Bits<8>>,
    r4_ndp_sport: DFF<Bits<16>>,
    r4_ndp_dport: DFF<Bits<16>>,
    r4_tos: DFF<Bits<8>>,
    r4_iplen: DFF<Bits<16>>,
    r4_proto: DFF<Bits<8>>,
    r4_ihl: DFF<Bits<4>>,
    r4_dst: DFF<Bits<32>>,
    r4_pl2: DFF<Bits<32>>,
    r4_l3_off: DFF<Bits<8>>,
    r4_prot: DFF<Bit>,
    r4_pkind: DFF<Bits<2>>,
    r4_ether: DFF<Bits<16>>,
    r4_vlans: DFF<Bits<2>>,
    r4_pcp: DFF<Bits<3>>,
    r4_vid: DFF<Bits<12>>,
    r4_dmac: DFF<Bits<48>>,
    // Combinational.
    win: Signal<Local, Bits<1024>>,
    e0: Signal<Local, Bits<16>>,
    e1: Signal<Local, Bits<16>>,
    e2: Signal<Local, Bits<16>>,
    e_tag: Signal<Local, Bits<16>>,
    e_prot: Signal<Local, Bits<16>>,
    v1: Signal<Local, Bit>,
    v2: Signal<Local, Bit>,
    v3: Signal<Local, Bit>,
    prot: Signal<Local, Bit>,
    kind_tag: Signal<Local, Bits<2>>,
    l3_off: Signal<Local, Bits<8>>,
    a: Signal<Local, Bits<640>>,
    ihl: Signal<Local, Bits<4>>,
    ver: Signal<Local, Bits<4>>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    l4b: Signal<Local, Bits<128>>,
    psum: Signal<Local, Bits<20>>,
    csum: Signal<Local, Bits<23>>,
    fold1: Signal<Local, Bits<18>>,
    hdr4: Signal<Local, Bits<18>>,
    l3o: Signal<Local, Bits<18>>,
    lenx: Signal<Local, Bits<18>>,
    iplx: Signal<Local, Bits<18>>,
    l4o: Signal<Local, Bits<18>>,
    ip_end: Signal<Local, Bits<18>>,
    l4h: Signal<Local, Bits<18>>,
    udp_len: Signal<Local, Bits<18>>,
    is_udp: Signal<Local, Bit>,
    is_ndp: Signal<Local, Bit>,
    code: Signal<Local, Bits<4>>,
    l4_ok: Signal<Local, Bit>,
    beat_in: Signal<Local, Bit>,
    gate: Signal<Local, Bit>,
    cur: Signal<Local, Bits<8>>,
    len_in: Signal<Local, Bits<16>>,
    pop_pkt: Signal<Local, Bit>,
    din_wide: Signal<Local, Bits<1024>>,
    udp_be: Signal<Local, Bits<16>>,
    dst_hi: Signal<Local, Bits<16>>,
    dst_lo: Signal<Local, Bits<16>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Default for Parser<D, K, U, M, W> {
    fn default() -> Self {
        assert!(K * 8 == D && WINDOW_BYTES.is_multiple_of(K), "Parser: D = 8K with K dividing {WINDOW_BYTES}");
        assert!(U >= LENGTH_LSB + 16, "Parser: tuser must hold length");
        let nb = WINDOW_BYTES / K;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_phv: Default::default(),
            m_res: Default::default(),
            x_valid: Default::default(),
            x_phv: Default::default(),
            x_res_valid: Default::default(),
            x_res_phv: Default::default(),
            x_res: Default::default(),
            pkts: Default::default(),
            clr_pkts: Default::default(),
            malformed: vec_of(REASONS),
            clr_malformed: vec_of(REASONS),
            nb_slots: Constant::new((nb as u64).to_bits()),
            last_slot: Constant::new(((nb - 1) as u64).to_bits()),
            slot_shift: (0..nb).map(|j| Constant::new(((j * D) as u64).to_bits())).collect(),
            all128: Constant::new(Bits::<WINDOW_BYTES>::mask()),
            length_lsb: Constant::new((LENGTH_LSB as u64).to_bits()),
            phv_room: Constant::new(((PHV_DEPTH - 1) as u64).to_bits()),
            external: Constant::new(false),
            res_shift: Constant::new((PHV_BITS as u64).to_bits()),
            et_vlan: Constant::new(wire16(ethertype::VLAN).to_bits()),
            et_qinq: Constant::new(wire16(ethertype::QINQ).to_bits()),
            et_ipv4: Constant::new(wire16(ethertype::IPV4).to_bits()),
            et_ipv6: Constant::new(wire16(ethertype::IPV6).to_bits()),
            et_protego: Constant::new(wire16(ethertype::PROTEGO).to_bits()),
            ip_udp: Constant::new((ipproto::UDP as u64).to_bits()),
            ip_ndp: Constant::new((ipproto::NDP as u64).to_bits()),
            data: PktFifo::new(DATA_DEPTH, false),
            phvq: PktFifo::new(PHV_DEPTH, false),
            lexp: Default::default(),
            pack: Default::default(),
            first: DffR::new(true),
            widx: Default::default(),
            go: Default::default(),
            inflight: Default::default(),
            slots: vec_of(nb),
            n_pkts: Default::default(),
            n_malformed: vec_of(REASONS),
            r1_v: Default::default(),
            r2_v: Default::default(),
            r3_v: Default::default(),
            r4_v: Default::default(),
            r3_psum: vec_of(6),
            len_l: Default::default(),
            lmask_l: Default::default(),
            r1_win: Default::default(),
            r1_v3: Default::default(),
            r1_prot: Default::default(),
            r1_pkind: Default::default(),
            r1_ether: Default::default(),
            r1_vlans: Default::default(),
            r1_pcp: Default::default(),
            r1_vid: Default::default(),
            r1_dmac: Default::default(),
            r1_len: Default::default(),
            r2_a: Default::default(),
            r2_l3_off: Default::default(),
            r2_v3: Default::default(),
            r2_prot: Default::default(),
            r2_pkind: Default::default(),
            r2_ether: Default::default(),
            r2_vlans: Default::default(),
            r2_pcp: Default::default(),
            r2_vid: Default::default(),
            r2_dmac: Default::default(),
            r2_len: Default::default(),
            r3_is_v4: Default::default(),
            r3_is_v6: Default::default(),
            r3_is_pl2: Default::default(),
            r3_is_pctl: Default::default(),
            r3_ver: Default::default(),
            r3_ihl: Default::default(),
            r3_l4b: Default::default(),
            r3_v3: Default::default(),
            r3_l3_off: Default::default(),
            r3_prot: Default::default(),
            r3_pkind: Default::default(),
            r3_ether: Default::default(),
            r3_vlans: Default::default(),
            r3_pcp: Default::default(),
            r3_vid: Default::default(),
            r3_dmac: Default::default(),
            r3_len: Default::default(),
            r3_pl2: Default::default(),
            r3_tos: Default::default(),
            r3_iplen: Default::default(),
            r3_proto: Default::default(),
            r3_dst: Default::default(),
            r4_f_l2: Default::default(),
            r4_f_vlan: Default::default(),
            r4_f_ver4: Default::default(),
            r4_f_ver6: Default::default(),
            r4_f_ihl: Default::default(),
            r4_f_v4tr: Default::default(),
            r4_f_v4len: Default::default(),
            r4_f_cks: Default::default(),
            r4_f_v6tr: Default::default(),
            r4_f_v6len: Default::default(),
            r4_f_l4tr: Default::default(),
            r4_f_udp: Default::default(),
            r4_f_pl2tr: Default::default(),
            r4_f_pl2k: Default::default(),
            r4_is_v4: Default::default(),
            r4_is_v6: Default::default(),
            r4_is_pl2: Default::default(),
            r4_is_pctl: Default::default(),
            r4_is_udp: Default::default(),
            r4_is_ndp: Default::default(),
            r4_l4o: Default::default(),
            r4_sport: Default::default(),
            r4_dport: Default::default(),
            r4_nflags: Default::default(),
            r4_ndp_sport: Default::default(),
            r4_ndp_dport: Default::default(),
            r4_tos: Default::default(),
            r4_iplen: Default::default(),
            r4_proto: Default::default(),
            r4_ihl: Default::default(),
            r4_dst: Default::default(),
            r4_pl2: Default::default(),
            r4_l3_off: Default::default(),
            r4_prot: Default::default(),
            r4_pkind: Default::default(),
            r4_ether: Default::default(),
            r4_vlans: Default::default(),
            r4_pcp: Default::default(),
            r4_vid: Default::default(),
            r4_dmac: Default::default(),
            win: Default::default(),
            e0: Default::default(),
            e1: Default::default(),
            e2: Default::default(),
            e_tag: Default::default(),
            e_prot: Default::default(),
            v1: Default::default(),
            v2: Default::default(),
            v3: Default::default(),
            prot: Default::default(),
            kind_tag: Default::default(),
            l3_off: Default::default(),
            a: Default::default(),
            ihl: Default::default(),
            ver: Default::default(),
            is_v4: Default::default(),
            is_v6: Default::default(),
            l4b: Default::default(),
            psum: Default::default(),
            csum: Default::default(),
            fold1: Default::default(),
            hdr4: Default::default(),
            l3o: Default::default(),
            lenx: Default::default(),
            iplx: Default::default(),
            l4o: Default::default(),
            ip_end: Default::default(),
            l4h: Default::default(),
            udp_len: Default::default(),
            is_udp: Default::default(),
            is_ndp: Default::default(),
            code: Default::default(),
            l4_ok: Default::default(),
            beat_in: Default::default(),
            gate: Default::default(),
            cur: Default::default(),
            len_in: Default::default(),
            pop_pkt: Default::default(),
            din_wide: Default::default(),
            udp_be: Default::default(),
            dst_hi: Default::default(),
            dst_lo: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Parser<D, K, U, M, W> {
    /// A parser whose PHVs go through an external match stage (module docs).
    pub fn with_match(mut self) -> Self {
        self.external = Constant::new(true);
        self
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for Parser<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            first,
            widx,
            go,
            r1_v,
            r2_v,
            r3_v,
            r4_v,
            inflight,
            n_pkts,
            len_l,
            lmask_l,
            r1_win,
            r1_v3,
            r1_prot,
            r1_pkind,
            r1_ether,
            r1_vlans,
            r1_pcp,
            r1_vid,
            r1_dmac,
            r1_len,
            r2_a,
            r2_l3_off,
            r2_v3,
            r2_prot,
            r2_pkind,
            r2_ether,
            r2_vlans,
            r2_pcp,
            r2_vid,
            r2_dmac,
            r2_len,
            r3_is_v4,
            r3_is_v6,
            r3_is_pl2,
            r3_is_pctl,
            r3_ver,
            r3_ihl,
            r3_l4b,
            r3_v3,
            r3_l3_off,
            r3_prot,
            r3_pkind,
            r3_ether,
            r3_vlans,
            r3_pcp,
            r3_vid,
            r3_dmac,
            r3_len,
            r3_pl2,
            r3_tos,
            r3_iplen,
            r3_proto,
            r3_dst,
            r4_f_l2,
            r4_f_vlan,
            r4_f_ver4,
            r4_f_ver6,
            r4_f_ihl,
            r4_f_v4tr,
            r4_f_v4len,
            r4_f_cks,
            r4_f_v6tr,
            r4_f_v6len,
            r4_f_l4tr,
            r4_f_udp,
            r4_f_pl2tr,
            r4_f_pl2k,
            r4_is_v4,
            r4_is_v6,
            r4_is_pl2,
            r4_is_pctl,
            r4_is_udp,
            r4_is_ndp,
            r4_l4o,
            r4_sport,
            r4_dport,
            r4_nflags,
            r4_ndp_sport,
            r4_ndp_dport,
            r4_tos,
            r4_iplen,
            r4_proto,
            r4_ihl,
            r4_dst,
            r4_pl2,
            r4_l3_off,
            r4_prot,
            r4_pkind,
            r4_ether,
            r4_vlans,
            r4_pcp,
            r4_vid,
            r4_dmac
        );
        self.first.reset.next = self.reset.val();
        self.widx.reset.next = self.reset.val();
        self.go.reset.next = self.reset.val();
        self.r1_v.reset.next = self.reset.val();
        self.r2_v.reset.next = self.reset.val();
        self.r3_v.reset.next = self.reset.val();
        self.r4_v.reset.next = self.reset.val();
        self.inflight.reset.next = self.reset.val();
        self.n_pkts.reset.next = self.reset.val();
        for j in 0..self.slots.len() {
            self.slots[j].clock.next = self.clock.val();
            self.slots[j].d.next = self.slots[j].q.val();
        }
        for g in 0..self.r3_psum.len() {
            self.r3_psum[g].clock.next = self.clock.val();
            self.r3_psum[g].d.next = self.r3_psum[g].q.val();
        }
        for i in 0..self.n_malformed.len() {
            self.n_malformed[i].clock.next = self.clock.val();
            self.n_malformed[i].reset.next = self.reset.val();
            self.n_malformed[i].d.next = self.n_malformed[i].q.val();
        }
        self.data.clock.next = self.clock.val();
        self.data.reset.next = self.reset.val();
        self.phvq.clock.next = self.clock.val();
        self.phvq.reset.next = self.reset.val();

        // ---- input: admission, window slots, length mask ----
        self.gate.next = !self.first.q.val() | (self.inflight.q.val() < self.phv_room.val());
        self.s.tready.next = self.data.s.tready.val() & self.gate.val() & !self.reset.val();
        self.beat_in.next = self.s.tvalid.val() & self.s.tready.val();
        self.data.s.tdata.next = self.s.tdata.val();
        self.data.s.tkeep.next = self.s.tkeep.val();
        self.data.s.tlast.next = self.s.tlast.val();
        self.data.s.tuser.next = self.s.tuser.val();
        self.data.s.tvalid.next = self.s.tvalid.val() & self.gate.val() & !self.reset.val();
        self.data.s_abort.next = false;
        self.data.clear_drops.next = false;
        self.cur.next = self.widx.q.val();
        if self.first.q.val() {
            self.cur.next = 0.into();
        }
        self.din_wide.next = bit_cast::<1024, D>(self.s.tdata.val());
        self.len_in.next = self.s.tuser.val().get_bits::<16>(self.length_lsb.val().index());
        self.go.d.next = false;
        if self.beat_in.val() {
            self.first.d.next = self.s.tlast.val();
            if self.cur.val() < self.nb_slots.val() {
                self.widx.d.next = self.cur.val() + 1;
                self.go.d.next = self.s.tlast.val() | (self.cur.val() == self.last_slot.val());
            }
            for j in 0..self.slots.len() {
                if self.cur.val().index() == j {
                    self.slots[j].d.next = self.din_wide.val() << self.slot_shift[j].val();
                }
            }
            if self.first.q.val() {
                self.len_l.d.next = self.len_in.val();
                if self.len_in.val() >= 128 {
                    self.lmask_l.d.next = self.all128.val();
                } else {
                    self.lmask_l.d.next = !(self.all128.val() << self.len_in.val().get_bits::<7>(0));
                }
            }
        }
        self.lexp.keep.next = self.lmask_l.q.val();
        self.win.next = 0.into();
        for j in 0..self.slots.len() {
            self.win.next = self.win.val() | self.slots[j].q.val();
        }
        self.win.next = self.win.val() & self.lexp.mask.val();

        // ---- S0: tag chain (window complete, masked to the frame length) ----
        self.e0.next = self.win.val().get_bits::<16>(96);
        self.e1.next = self.win.val().get_bits::<16>(128);
        self.e2.next = self.win.val().get_bits::<16>(160);
        self.v1.next = (self.e0.val() == self.et_vlan.val()) | (self.e0.val() == self.et_qinq.val());
        self.v2.next = self.v1.val() & ((self.e1.val() == self.et_vlan.val()) | (self.e1.val() == self.et_qinq.val()));
        self.v3.next = self.v2.val() & ((self.e2.val() == self.et_vlan.val()) | (self.e2.val() == self.et_qinq.val()));
        if self.v2.val() {
            self.e_tag.next = self.e2.val();
            self.kind_tag.next = self.win.val().get_bits::<2>(182);
            self.e_prot.next = self.win.val().get_bits::<16>(200);
        } else if self.v1.val() {
            self.e_tag.next = self.e1.val();
            self.kind_tag.next = self.win.val().get_bits::<2>(150);
            self.e_prot.next = self.win.val().get_bits::<16>(168);
        } else {
            self.e_tag.next = self.e0.val();
            self.kind_tag.next = self.win.val().get_bits::<2>(118);
            self.e_prot.next = self.win.val().get_bits::<16>(136);
        }
        self.prot.next = !self.v3.val() & (self.e_tag.val() == self.et_protego.val());
        self.r1_v.d.next = self.go.q.val();
        if self.go.q.val() {
            self.r1_win.d.next = self.win.val();
            self.r1_v3.d.next = self.v3.val();
            self.r1_prot.d.next = self.prot.val();
            self.r1_pkind.d.next = 0.into();
            self.r1_ether.d.next = self.e_tag.val();
            if self.prot.val() {
                self.r1_pkind.d.next = self.kind_tag.val();
                self.r1_ether.d.next = self.e_prot.val();
            }
            self.r1_vlans.d.next = 0.into();
            self.r1_pcp.d.next = 0.into();
            self.r1_vid.d.next = 0.into();
            if self.v1.val() {
                self.r1_vlans.d.next = 1.into();
                self.r1_pcp.d.next = self.win.val().get_bits::<3>(117);
                self.r1_vid.d.next =
                    (bit_cast::<12, 4>(self.win.val().get_bits::<4>(112)) << 8) | bit_cast::<12, 8>(self.win.val().get_bits::<8>(120));
            }
            if self.v2.val() {
                self.r1_vlans.d.next = 2.into();
            }
            self.r1_dmac.d.next = (bit_cast::<48, 8>(self.win.val().get_bits::<8>(0)) << 40)
                | (bit_cast::<48, 8>(self.win.val().get_bits::<8>(8)) << 32)
                | (bit_cast::<48, 8>(self.win.val().get_bits::<8>(16)) << 24)
                | (bit_cast::<48, 8>(self.win.val().get_bits::<8>(24)) << 16)
                | (bit_cast::<48, 8>(self.win.val().get_bits::<8>(32)) << 8)
                | (bit_cast::<48, 8>(self.win.val().get_bits::<8>(40)) << 0);
            self.r1_len.d.next = self.len_l.q.val();
        }
        // l3_off = 14 + 4 * vlans + 5 * protego (22 with a third tag).
        self.l3_off.next = 14.into();
        if self.r1_vlans.q.val() == 1 {
            self.l3_off.next = 18.into();
        }
        if self.r1_vlans.q.val() == 2 {
            self.l3_off.next = 22.into();
        }
        if self.r1_prot.q.val() {
            self.l3_off.next = self.l3_off.val() + 5;
        }

        // ---- S1: align the L3 header ----
        self.a.next = 0.into();
        if self.l3_off.val() == 14 {
            self.a.next = self.r1_win.q.val().get_bits::<640>(112);
        }
        if self.l3_off.val() == 18 {
            self.a.next = self.r1_win.q.val().get_bits::<640>(144);
        }
        if self.l3_off.val() == 22 {
            self.a.next = self.r1_win.q.val().get_bits::<640>(176);
        }
        if self.l3_off.val() == 19 {
            self.a.next = self.r1_win.q.val().get_bits::<640>(152);
        }
        if self.l3_off.val() == 23 {
            self.a.next = self.r1_win.q.val().get_bits::<640>(184);
        }
        if self.l3_off.val() == 27 {
            self.a.next = self.r1_win.q.val().get_bits::<640>(216);
        }
        self.r2_v.d.next = self.r1_v.q.val();
        if self.r1_v.q.val() {
            self.r2_a.d.next = self.a.val();
            self.r2_l3_off.d.next = self.l3_off.val();
            self.r2_v3.d.next = self.r1_v3.q.val();
            self.r2_prot.d.next = self.r1_prot.q.val();
            self.r2_pkind.d.next = self.r1_pkind.q.val();
            self.r2_ether.d.next = self.r1_ether.q.val();
            self.r2_vlans.d.next = self.r1_vlans.q.val();
            self.r2_pcp.d.next = self.r1_pcp.q.val();
            self.r2_vid.d.next = self.r1_vid.q.val();
            self.r2_dmac.d.next = self.r1_dmac.q.val();
            self.r2_len.d.next = self.r1_len.q.val();
        }

        // ---- S2: fields, checksum partial sums, L4 alignment ----
        self.ihl.next = self.r2_a.q.val().get_bits::<4>(0);
        self.ver.next = self.r2_a.q.val().get_bits::<4>(4);
        self.is_v4.next = !self.r2_v3.q.val() & (self.r2_ether.q.val() == self.et_ipv4.val());
        self.is_v6.next = !self.r2_v3.q.val() & (self.r2_ether.q.val() == self.et_ipv6.val());
        self.l4b.next = 0.into();
        if self.is_v6.val() {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(320);
        }
        if !self.is_v6.val() & (self.ihl.val() == 5) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(160);
        }
        if !self.is_v6.val() & (self.ihl.val() == 6) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(192);
        }
        if !self.is_v6.val() & (self.ihl.val() == 7) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(224);
        }
        if !self.is_v6.val() & (self.ihl.val() == 8) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(256);
        }
        if !self.is_v6.val() & (self.ihl.val() == 9) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(288);
        }
        if !self.is_v6.val() & (self.ihl.val() == 10) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(320);
        }
        if !self.is_v6.val() & (self.ihl.val() == 11) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(352);
        }
        if !self.is_v6.val() & (self.ihl.val() == 12) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(384);
        }
        if !self.is_v6.val() & (self.ihl.val() == 13) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(416);
        }
        if !self.is_v6.val() & (self.ihl.val() == 14) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(448);
        }
        if !self.is_v6.val() & (self.ihl.val() == 15) {
            self.l4b.next = self.r2_a.q.val().get_bits::<128>(480);
        }
        self.psum.next = 0.into();
        if self.ihl.val() > 0 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(0));
        }
        if self.ihl.val() > 0 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(16));
        }
        if self.ihl.val() > 1 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(32));
        }
        if self.ihl.val() > 1 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(48));
        }
        if self.ihl.val() > 2 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(64));
        }
        self.r3_psum[0].d.next = self.psum.val();
        self.psum.next = 0.into();
        if self.ihl.val() > 2 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(80));
        }
        if self.ihl.val() > 3 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(96));
        }
        if self.ihl.val() > 3 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(112));
        }
        if self.ihl.val() > 4 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(128));
        }
        if self.ihl.val() > 4 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(144));
        }
        self.r3_psum[1].d.next = self.psum.val();
        self.psum.next = 0.into();
        if self.ihl.val() > 5 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(160));
        }
        if self.ihl.val() > 5 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(176));
        }
        if self.ihl.val() > 6 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(192));
        }
        if self.ihl.val() > 6 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(208));
        }
        if self.ihl.val() > 7 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(224));
        }
        self.r3_psum[2].d.next = self.psum.val();
        self.psum.next = 0.into();
        if self.ihl.val() > 7 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(240));
        }
        if self.ihl.val() > 8 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(256));
        }
        if self.ihl.val() > 8 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(272));
        }
        if self.ihl.val() > 9 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(288));
        }
        if self.ihl.val() > 9 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(304));
        }
        self.r3_psum[3].d.next = self.psum.val();
        self.psum.next = 0.into();
        if self.ihl.val() > 10 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(320));
        }
        if self.ihl.val() > 10 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(336));
        }
        if self.ihl.val() > 11 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(352));
        }
        if self.ihl.val() > 11 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(368));
        }
        if self.ihl.val() > 12 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(384));
        }
        self.r3_psum[4].d.next = self.psum.val();
        self.psum.next = 0.into();
        if self.ihl.val() > 12 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(400));
        }
        if self.ihl.val() > 13 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(416));
        }
        if self.ihl.val() > 13 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(432));
        }
        if self.ihl.val() > 14 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(448));
        }
        if self.ihl.val() > 14 {
            self.psum.next = self.psum.val() + bit_cast::<20, 16>(self.r2_a.q.val().get_bits::<16>(464));
        }
        self.r3_psum[5].d.next = self.psum.val();
        self.dst_hi.next =
            (bit_cast::<16, 8>(self.r2_a.q.val().get_bits::<8>(128)) << 8) | bit_cast::<16, 8>(self.r2_a.q.val().get_bits::<8>(136));
        self.dst_lo.next =
            (bit_cast::<16, 8>(self.r2_a.q.val().get_bits::<8>(144)) << 8) | bit_cast::<16, 8>(self.r2_a.q.val().get_bits::<8>(152));
        self.r3_v.d.next = self.r2_v.q.val();
        if self.r2_v.q.val() {
            self.r3_is_v4.d.next = self.is_v4.val();
            self.r3_is_v6.d.next = self.is_v6.val();
            self.r3_is_pl2.d.next = !self.r2_v3.q.val() & (self.r2_ether.q.val() == 0xb588);
            self.r3_is_pctl.d.next = !self.r2_v3.q.val() & self.r2_prot.q.val() & (self.r2_ether.q.val() == self.et_protego.val());
            self.r3_ver.d.next = self.ver.val();
            self.r3_ihl.d.next = self.ihl.val();
            self.r3_l4b.d.next = self.l4b.val();
            self.r3_v3.d.next = self.r2_v3.q.val();
            self.r3_l3_off.d.next = self.r2_l3_off.q.val();
            self.r3_prot.d.next = self.r2_prot.q.val();
            self.r3_pkind.d.next = self.r2_pkind.q.val();
            self.r3_ether.d.next = self.r2_ether.q.val();
            self.r3_vlans.d.next = self.r2_vlans.q.val();
            self.r3_pcp.d.next = self.r2_pcp.q.val();
            self.r3_vid.d.next = self.r2_vid.q.val();
            self.r3_dmac.d.next = self.r2_dmac.q.val();
            self.r3_len.d.next = self.r2_len.q.val();
            self.r3_pl2.d.next = self.r2_a.q.val().get_bits::<32>(0);
            if self.is_v6.val() {
                self.r3_tos.d.next =
                    (bit_cast::<8, 4>(self.r2_a.q.val().get_bits::<4>(0)) << 4) | bit_cast::<8, 4>(self.r2_a.q.val().get_bits::<4>(12));
                self.r3_iplen.d.next =
                    (bit_cast::<16, 8>(self.r2_a.q.val().get_bits::<8>(32)) << 8) | bit_cast::<16, 8>(self.r2_a.q.val().get_bits::<8>(40));
                self.r3_proto.d.next = self.r2_a.q.val().get_bits::<8>(48);
                self.r3_dst.d.next = 0.into();
            } else {
                self.r3_tos.d.next = self.r2_a.q.val().get_bits::<8>(8);
                self.r3_iplen.d.next =
                    (bit_cast::<16, 8>(self.r2_a.q.val().get_bits::<8>(16)) << 8) | bit_cast::<16, 8>(self.r2_a.q.val().get_bits::<8>(24));
                self.r3_proto.d.next = self.r2_a.q.val().get_bits::<8>(72);
                self.r3_dst.d.next = (bit_cast::<32, 16>(self.dst_hi.val()) << 16) | bit_cast::<32, 16>(self.dst_lo.val());
            }
        }

        // ---- S3: checksum fold, lengths and offsets, check flags ----
        self.csum.next = bit_cast::<23, 20>(self.r3_psum[0].q.val())
            + bit_cast::<23, 20>(self.r3_psum[1].q.val())
            + bit_cast::<23, 20>(self.r3_psum[2].q.val())
            + bit_cast::<23, 20>(self.r3_psum[3].q.val())
            + bit_cast::<23, 20>(self.r3_psum[4].q.val())
            + bit_cast::<23, 20>(self.r3_psum[5].q.val());
        self.fold1.next = bit_cast::<18, 16>(self.csum.val().get_bits::<16>(0)) + bit_cast::<18, 7>(self.csum.val().get_bits::<7>(16));
        self.hdr4.next = bit_cast::<18, 4>(self.r3_ihl.q.val()) << 2;
        self.l3o.next = bit_cast::<18, 8>(self.r3_l3_off.q.val());
        self.lenx.next = bit_cast::<18, 16>(self.r3_len.q.val());
        self.iplx.next = bit_cast::<18, 16>(self.r3_iplen.q.val());
        if self.r3_is_v6.q.val() {
            self.l4o.next = self.l3o.val() + 40;
            self.ip_end.next = self.l3o.val() + 40 + self.iplx.val();
        } else {
            self.l4o.next = self.l3o.val() + self.hdr4.val();
            self.ip_end.next = self.l3o.val() + self.iplx.val();
        }
        self.is_udp.next = self.r3_proto.q.val() == self.ip_udp.val();
        self.is_ndp.next = self.r3_proto.q.val() == self.ip_ndp.val();
        self.l4h.next = 0.into();
        if self.is_udp.val() {
            self.l4h.next = 8.into();
        }
        if self.is_ndp.val() {
            self.l4h.next = 16.into();
        }
        self.udp_be.next =
            (bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(32)) << 8) | bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(40));
        self.udp_len.next = bit_cast::<18, 16>(self.udp_be.val());
        self.r4_v.d.next = self.r3_v.q.val();
        if self.r3_v.q.val() {
            self.r4_f_l2.d.next = self.l3o.val() > self.lenx.val();
            self.r4_f_vlan.d.next = self.r3_v3.q.val();
            self.r4_f_ver4.d.next = self.r3_ver.q.val() != 4;
            self.r4_f_ver6.d.next = self.r3_ver.q.val() != 6;
            self.r4_f_ihl.d.next = self.r3_ihl.q.val() < 5;
            self.r4_f_v4tr.d.next = (self.l3o.val() + self.hdr4.val()) > self.lenx.val();
            self.r4_f_v4len.d.next = (self.iplx.val() < self.hdr4.val()) | (self.ip_end.val() > self.lenx.val());
            // One fold suffices: a second end-around carry could only turn 0x1FFFE
            // (unreachable: the first fold is at most 0x1007E) into 0xFFFF.
            self.r4_f_cks.d.next = self.fold1.val() != 0xFFFF;
            self.r4_f_v6tr.d.next = (self.l3o.val() + 40) > self.lenx.val();
            self.r4_f_v6len.d.next = self.ip_end.val() > self.lenx.val();
            self.r4_f_l4tr.d.next = (self.l4o.val() + self.l4h.val()) > self.ip_end.val();
            self.r4_f_udp.d.next = (self.udp_len.val() < 8) | ((self.l4o.val() + self.udp_len.val()) > self.ip_end.val());
            self.r4_f_pl2tr.d.next = (self.l3o.val() + 16) > self.lenx.val();
            self.r4_f_pl2k.d.next = (self.r3_pl2.q.val().get_bits::<8>(0) != 1) & (self.r3_pl2.q.val().get_bits::<8>(0) != 2);
            self.r4_is_v4.d.next = self.r3_is_v4.q.val();
            self.r4_is_v6.d.next = self.r3_is_v6.q.val();
            self.r4_is_pl2.d.next = self.r3_is_pl2.q.val();
            self.r4_is_pctl.d.next = self.r3_is_pctl.q.val();
            self.r4_is_udp.d.next = self.is_udp.val();
            self.r4_is_ndp.d.next = self.is_ndp.val();
            self.r4_l4o.d.next = self.l4o.val().get_bits::<7>(0);
            self.r4_sport.d.next =
                (bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(0)) << 8) | bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(8));
            self.r4_dport.d.next =
                (bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(16)) << 8) | bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(24));
            self.r4_nflags.d.next = self.r3_l4b.q.val().get_bits::<8>(0);
            self.r4_ndp_sport.d.next =
                (bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(16)) << 8) | bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(24));
            self.r4_ndp_dport.d.next =
                (bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(32)) << 8) | bit_cast::<16, 8>(self.r3_l4b.q.val().get_bits::<8>(40));
            self.r4_tos.d.next = self.r3_tos.q.val();
            self.r4_iplen.d.next = self.r3_iplen.q.val();
            self.r4_proto.d.next = self.r3_proto.q.val();
            self.r4_ihl.d.next = self.r3_ihl.q.val();
            self.r4_dst.d.next = self.r3_dst.q.val();
            self.r4_pl2.d.next = self.r3_pl2.q.val();
            self.r4_l3_off.d.next = self.r3_l3_off.q.val();
            self.r4_prot.d.next = self.r3_prot.q.val();
            self.r4_pkind.d.next = self.r3_pkind.q.val();
            self.r4_ether.d.next = self.r3_ether.q.val();
            self.r4_vlans.d.next = self.r3_vlans.q.val();
            self.r4_pcp.d.next = self.r3_pcp.q.val();
            self.r4_vid.d.next = self.r3_vid.q.val();
            self.r4_dmac.d.next = self.r3_dmac.q.val();
        }

        // ---- S4: first failing check wins; PHV fields ----
        self.code.next = 0.into();
        self.l4_ok.next = false;
        if self.r4_f_l2.q.val() {
            self.code.next = 1.into();
        } else if self.r4_f_vlan.q.val() {
            self.code.next = 2.into();
        } else if self.r4_is_v4.q.val() {
            if self.r4_f_ver4.q.val() {
                self.code.next = 3.into();
            } else if self.r4_f_ihl.q.val() {
                self.code.next = 4.into();
            } else if self.r4_f_v4tr.q.val() {
                self.code.next = 5.into();
            } else if self.r4_f_v4len.q.val() {
                self.code.next = 6.into();
            } else if self.r4_f_cks.q.val() {
                self.code.next = 7.into();
            } else {
                self.l4_ok.next = true;
            }
        } else if self.r4_is_v6.q.val() {
            if self.r4_f_ver6.q.val() {
                self.code.next = 3.into();
            } else if self.r4_f_v6tr.q.val() {
                self.code.next = 8.into();
            } else if self.r4_f_v6len.q.val() {
                self.code.next = 9.into();
            } else {
                self.l4_ok.next = true;
            }
        } else if self.r4_is_pl2.q.val() {
            if self.r4_f_pl2tr.q.val() {
                self.code.next = 12.into();
            } else if self.r4_f_pl2k.q.val() {
                self.code.next = 13.into();
            }
        }
        if self.l4_ok.val() & (self.r4_is_udp.q.val() | self.r4_is_ndp.q.val()) {
            if self.r4_f_l4tr.q.val() {
                self.code.next = 10.into();
            } else if self.r4_is_udp.q.val() & self.r4_f_udp.q.val() {
                self.code.next = 11.into();
            }
        }
        self.pack.dst_mac.next = self.r4_dmac.q.val();
        self.pack.ethertype.next =
            (bit_cast::<16, 8>(self.r4_ether.q.val().get_bits::<8>(0)) << 8) | bit_cast::<16, 8>(self.r4_ether.q.val().get_bits::<8>(8));
        self.pack.vlans.next = self.r4_vlans.q.val();
        self.pack.pcp.next = self.r4_pcp.q.val();
        self.pack.vid.next = self.r4_vid.q.val();
        self.pack.protego.next = self.r4_prot.q.val();
        self.pack.protego_kind.next = self.r4_pkind.q.val();
        // A tag chain cut short leaves no L3 header to name (l3 = OTHER).
        self.pack.l3.next = 0.into();
        if !self.r4_f_l2.q.val() {
            if self.r4_is_v4.q.val() {
                self.pack.l3.next = 1.into();
            }
            if self.r4_is_v6.q.val() {
                self.pack.l3.next = 2.into();
            }
            if self.r4_is_pl2.q.val() {
                self.pack.l3.next = 3.into();
            }
            if self.r4_is_pctl.q.val() {
                self.pack.l3.next = 4.into();
            }
        }
        self.pack.l3_off.next = self.r4_l3_off.q.val().get_bits::<7>(0);
        self.pack.malformed.next = self.code.val();
        self.pack.dscp.next = 0.into();
        self.pack.ecn.next = 0.into();
        self.pack.proto.next = 0.into();
        self.pack.ip_len.next = 0.into();
        self.pack.ihl.next = 0.into();
        self.pack.ipv4_dst.next = 0.into();
        self.pack.l4.next = 0.into();
        self.pack.l4_off.next = 0.into();
        self.pack.sport.next = 0.into();
        self.pack.dport.next = 0.into();
        self.pack.ndp_flags.next = 0.into();
        self.pack.pl2_kind.next = 0.into();
        self.pack.pl2_demand.next = 0.into();
        self.pack.pl2_src.next = 0.into();
        self.pack.pl2_dst.next = 0.into();
        if self.code.val() == 0 {
            if self.r4_is_v4.q.val() | self.r4_is_v6.q.val() {
                self.pack.dscp.next = self.r4_tos.q.val().get_bits::<6>(2);
                self.pack.ecn.next = self.r4_tos.q.val().get_bits::<2>(0);
                self.pack.proto.next = self.r4_proto.q.val();
                self.pack.ip_len.next = self.r4_iplen.q.val();
                if self.r4_is_v4.q.val() {
                    self.pack.ihl.next = self.r4_ihl.q.val();
                    self.pack.ipv4_dst.next = self.r4_dst.q.val();
                }
                if self.r4_is_udp.q.val() {
                    self.pack.l4.next = 1.into();
                    self.pack.l4_off.next = self.r4_l4o.q.val();
                    self.pack.sport.next = self.r4_sport.q.val();
                    self.pack.dport.next = self.r4_dport.q.val();
                }
                if self.r4_is_ndp.q.val() {
                    self.pack.l4.next = 2.into();
                    self.pack.l4_off.next = self.r4_l4o.q.val();
                    self.pack.sport.next = self.r4_ndp_sport.q.val();
                    self.pack.dport.next = self.r4_ndp_dport.q.val();
                    self.pack.ndp_flags.next = self.r4_nflags.q.val();
                }
            }
            if self.r4_is_pl2.q.val() {
                self.pack.pl2_kind.next = self.r4_pl2.q.val().get_bits::<8>(0);
                self.pack.pl2_demand.next = self.r4_pl2.q.val().get_bits::<8>(8);
                self.pack.pl2_src.next = self.r4_pl2.q.val().get_bits::<8>(16);
                self.pack.pl2_dst.next = self.r4_pl2.q.val().get_bits::<8>(24);
            }
        }

        // ---- PHV FIFO, counters ----
        self.x_valid.next = self.r4_v.q.val();
        self.x_phv.next = self.pack.phv.val();
        if self.external.val() {
            self.phvq.s.tdata.next =
                bit_cast::<384, PHV_BITS>(self.x_res_phv.val()) | (bit_cast::<384, RES_BITS>(self.x_res.val()) << self.res_shift.val());
            self.phvq.s.tvalid.next = self.x_res_valid.val();
        } else {
            self.phvq.s.tdata.next = bit_cast::<384, PHV_BITS>(self.pack.phv.val());
            self.phvq.s.tvalid.next = self.r4_v.q.val();
        }
        self.phvq.s.tkeep.next = 0xFFFF_FFFF_FFFF_u64.into();
        self.phvq.s.tlast.next = true;
        self.phvq.s.tuser.next = 0.into();
        self.phvq.s_abort.next = false;
        self.phvq.clear_drops.next = false;
        if self.r4_v.q.val() {
            self.n_pkts.d.next = self.n_pkts.q.val() + 1;
            for i in 0..self.n_malformed.len() {
                if self.code.val().index() == i + 1 {
                    self.n_malformed[i].d.next = self.n_malformed[i].q.val() + 1;
                }
            }
        }
        if self.clr_pkts.val() {
            self.n_pkts.d.next = 0.into();
        }
        for i in 0..self.n_malformed.len() {
            if self.clr_malformed[i].val() {
                self.n_malformed[i].d.next = 0.into();
            }
            self.malformed[i].next = self.n_malformed[i].q.val();
        }
        self.pkts.next = self.n_pkts.q.val();

        // ---- output: each packet with its PHV ----
        self.m.tdata.next = self.data.m.tdata.val();
        self.m.tkeep.next = self.data.m.tkeep.val();
        self.m.tlast.next = self.data.m.tlast.val();
        self.m.tuser.next = self.data.m.tuser.val();
        self.m_phv.next = self.phvq.m.tdata.val().get_bits::<PHV_BITS>(0);
        self.m_res.next = self.phvq.m.tdata.val().get_bits::<RES_BITS>(self.res_shift.val().index());
        self.m.tvalid.next = self.data.m.tvalid.val() & self.phvq.m.tvalid.val();
        self.data.m.tready.next = self.m.tready.val() & self.phvq.m.tvalid.val();
        self.phvq.m.tready.next = self.m.tready.val() & self.data.m.tvalid.val() & self.data.m.tlast.val();
        self.pop_pkt.next = self.m.tvalid.val() & self.m.tready.val() & self.m.tlast.val();
        self.inflight.d.next = self.inflight.q.val() + bit_cast::<8, 1>((self.beat_in.val() & self.first.q.val()).into())
            - bit_cast::<8, 1>(self.pop_pkt.val().into());
    }
}

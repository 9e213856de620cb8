//! `Pl2Stage`: the PL2 stage of an ingress pipeline, between lookup and the
//! parser's match-result input (`lookup ─► pl2 ─► meter/TM`, the
//! specification `PL2-PROTEGO.md` A.2; `docs/pl2.md`, "In the switch").
//! Golden model: `sim/src/model/pl2_ingress.rs` with
//! `IngressModel::trace`.
//!
//! Each PHV from lookup that is an ALU op (A.3; [`Pl2Stage`] lists which)
//! leaves on `op_*` a cycle later, registered, for the switch's one
//! [`crate::pl2::alu::Pl2Alu`]; its result comes back on `res_*`
//! [`Pl2Alu::LATENCY`](crate::pl2::alu::Pl2Alu::LATENCY) cycles after that.
//! Meanwhile the PHV and its lookup result wait in a delay line, and leave
//! on `m_*` merged with the result, [`LATENCY`] cycles after they came
//! (packets that need no verdict leave sooner: "Latency" below):
//! - a grant turns the RSV into its GRT: `dest_port` := the ingress port,
//!   `routed` set and `nexthop` 0 (the egress writes the router MAC as
//!   source), the destination MAC := the RSV's source MAC (lookup's
//!   next-hop MAC field, which apply writes for a routed packet), lookup's
//!   drop cleared (its miss drop is bypassed), [`grt::GRT`] set; in the PHV
//!   `pl2_kind` 2, `pl2_demand` the granted slots, `send_timeslot` and
//!   `recv_timeslot` in their overlays ([`field::PL2_SEND`],
//!   [`field::PL2_RECV`]), which `IngressApply` writes into the frame;
//! - any other ALU code but pass drops the packet (`drop_pl2`);
//! - a pass, and a packet that is no op, go on as lookup decided.
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset
//!   (drops what is in flight, zeroes the counters).
//! - `s_valid`, `s_phv`, `s_res` in: lookup's output ([`res`]), from
//!   registers.
//! - `m_valid`, `m_phv`, `m_res` out: the same, [`LATENCY_FAST`] to
//!   [`LATENCY`] cycles later, in the order they came, merged
//!   (combinational from registers and the ALU's registered result; the
//!   parser writes them into its PHV FIFO).
//! - `enable` in: `CTRL` bit 0 (PL2 on); off, nothing is an op.
//! - `unsol_dscp` (6 bits), `unsol_dscp_en`, `unsol_pcp` (3 bits),
//!   `unsol_pcp_en` in: the marks of an unsolicited packet (A.4).
//! - `op_valid`, `op_kind`, `op_in`, `op_src`, `op_dst`, `op_demand`,
//!   `op_in_oh`, `op_dst_oh`, `op_dem_k`, `op_over_k` out (registered): the
//!   op, for one pipeline input of the ALU (`op_in` and `op_dst` one-hot,
//!   bit `p` for port `p` of the switch's ports, and the demand clamped to
//!   `k` with its "above `K`" flag, made here so the ALU's decode starts
//!   from them).
//! - `k` in: the ALU's `k_now`.
//! - `res_code`, `res_demand`, `res_send`, `res_recv` in: that input's
//!   result (`res_valid` is implied by the op this stage sent).
//! - `drop_no_port`, `drop_pl2`, `out_pkts` out (32 bits, wrap), `clr_*`
//!   in: packets dropped for want of a port (not turned into a GRT), dropped
//!   by the ALU, and leaving the pipeline; counted a cycle after they leave.
//! - `hd_req`, `hd_dst` out (registered), `peer_req_j`, `peer_dst_j` in
//!   (every pipeline's `hd_req`/`hd_dst`, this one's included), `pipe` in
//!   (this pipeline's index), `hold_ev` out (registered: the head was held
//!   in the cycle before): the cross-pipeline hold (below); `hd_req` and
//!   `hold_ev` are low in a stage built without it.
//!
//! ## Latency
//! Only an RSV, an UNSOL and a GRT from a host wait for the ALU's verdict
//! (a grant, or the code that drops them): they take [`LATENCY`] cycles, in
//! the delay line's three entries `d1`..`d3`, and meet their result in
//! `d3`. A DATA op always passes (A.3, the model's `Op::Data`) and a packet
//! that is no op has no result, so neither waits for one: such a packet
//! enters the latest entry that keeps the order, `d3` when the line is
//! empty ([`LATENCY_FAST`] cycles, two fewer), `d2` when only `d2` holds a
//! packet, else `d1`. A DATA op still goes to the ALU from the op register
//! in its first cycle (its decrements as before); its result is not read.
//! So the header of every packet that waits for no verdict takes one cycle
//! here, not three (the unloaded port-to-port latency, PL2 on or off).
//!
//! ## The cross-pipeline hold (`PL2-PROTEGO.md` A.2; switches of several pipelines)
//! `out[d]` is shared by every pipeline, and an RSV or UNSOL reads it: two
//! pipelines' RSV/UNSOL ops on one `out[d]` in one cycle would meet the
//! ALU's conflict drop. Built for several pipelines ([`Pl2Stage::new`]), the
//! stage keeps its PHVs in order in a queue ([`HOLD_DEPTH`] entries: the
//! parser has at most `PHV_DEPTH - 1` packets in flight, so it never fills)
//! and shows every other pipeline its head's request from registers:
//! `hd_req` (the head is an RSV or UNSOL op) and `hd_dst`. Each stage holds
//! its own head, in the same cycle, when a pipeline ranked above it shows a
//! request for the same `dst`: every stage decides from registers only (its
//! own and the others' `hd_*`), so no combinational path runs from one
//! block to another. The ranks rotate every cycle: pipeline `(c + r) mod P`
//! has rank `r` in cycle `c` after reset (each stage keeps the same rotating
//! counter and its registered mask of the pipelines above it). A head that
//! is not held issues: its op goes to the op register and its PHV into the
//! delay line as before. So at most one RSV/UNSOL per `out[d]` reaches the ALU in a cycle,
//! a head waits at most `pipelines - 1` cycles, and ops to different ports,
//! DATA, and packets that are no op never wait for another pipeline (only
//! behind their own pipeline's held head). The queue is a bypass register
//! plus a block RAM with a registered read: an entry that finds the queue
//! empty is the head in the next cycle, so the hold costs one cycle of
//! latency ([`LATENCY_HOLD`]).
use crate::ingress::lookup::res;
use crate::ingress::phv::{field, l3, PHV_BITS};
use crate::meta::{DEST_PORT_LSB, NEXTHOP_LSB, ROUTED_BIT};
use crate::pl2::alu::{code, kind};
use crate::prim::widgets::{vec_of, DffR, SdpRam};
use crate::proto::ethertype;
use rust_hdl::prelude::*;

/// Cycles from `s_*` to `m_*` of a packet that waits for the ALU's verdict
/// (RSV, UNSOL, GRT): one to register the op, the ALU's two.
pub const LATENCY: usize = 1 + crate::pl2::alu::Pl2Alu::LATENCY as usize;
// The delay line below has three registers: the op's, and one per ALU cycle.
const _: () = assert!(LATENCY == 3);
/// Cycles from `s_*` to `m_*` of any other packet (no op, or DATA) that
/// finds the delay line empty: its last register ("Latency").
pub const LATENCY_FAST: usize = 1;
/// [`LATENCY`] with the cross-pipeline hold and an empty queue: one more,
/// the queue's head register (a fast packet's: [`LATENCY_FAST`] + 1).
pub const LATENCY_HOLD: usize = LATENCY + 1;
/// Entries of the hold queue: at least the parser's packets in flight.
pub const HOLD_DEPTH: usize = crate::ingress::parser::PHV_DEPTH;
/// Bits of a hold-queue entry: PHV, lookup result, and the op (valid, kind,
/// in, src, dst, demand).
const EW: usize = PHV_BITS + 128 + 1 + 2 + 8 * 4;
const E_RES: usize = PHV_BITS;
const E_OP: usize = E_RES + 128;
const E_K: usize = E_OP + 1;
const E_IN: usize = E_K + 2;
const E_SRC: usize = E_IN + 8;
const E_DST: usize = E_SRC + 8;
const E_D: usize = E_DST + 8;
const _: () = assert!(E_D + 8 == EW && HOLD_DEPTH == 32);

/// Bits of the stage's lookup-result word ([`res`]) beyond lookup's own.
pub mod grt {
    /// Bit 114 of `m_res`: the packet is a GRT this switch made; apply writes
    /// the PHV's slot fields into the frame.
    pub const GRT: usize = 114;
}

#[derive(LogicBlock)]
pub struct Pl2Stage {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_phv: Signal<In, Bits<PHV_BITS>>,
    pub s_res: Signal<In, Bits<128>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_phv: Signal<Out, Bits<PHV_BITS>>,
    pub m_res: Signal<Out, Bits<128>>,
    pub enable: Signal<In, Bit>,
    pub unsol_dscp: Signal<In, Bits<6>>,
    pub unsol_dscp_en: Signal<In, Bit>,
    pub unsol_pcp: Signal<In, Bits<3>>,
    pub unsol_pcp_en: Signal<In, Bit>,
    pub op_valid: Signal<Out, Bit>,
    pub op_kind: Signal<Out, Bits<2>>,
    pub op_in: Signal<Out, Bits<8>>,
    pub op_src: Signal<Out, Bits<8>>,
    pub op_dst: Signal<Out, Bits<8>>,
    pub op_in_oh: Signal<Out, Bits<64>>,
    pub op_dst_oh: Signal<Out, Bits<64>>,
    pub op_demand: Signal<Out, Bits<8>>,
    pub op_dem_k: Signal<Out, Bits<8>>,
    pub op_over_k: Signal<Out, Bit>,
    /// The ALU's `k_now`: the `K` an op is clamped to as it is registered.
    pub k: Signal<In, Bits<8>>,
    pub res_code: Signal<In, Bits<3>>,
    pub res_demand: Signal<In, Bits<8>>,
    pub res_send: Signal<In, Bits<32>>,
    pub res_recv: Signal<In, Bits<32>>,
    pub drop_no_port: Signal<Out, Bits<32>>,
    pub drop_pl2: Signal<Out, Bits<32>>,
    pub out_pkts: Signal<Out, Bits<32>>,
    pub clr_drop_no_port: Signal<In, Bit>,
    pub clr_drop_pl2: Signal<In, Bit>,
    pub clr_out_pkts: Signal<In, Bit>,
    pub hd_req: Signal<Out, Bit>,
    pub hd_dst: Signal<Out, Bits<8>>,
    pub peer_req: Vec<Signal<In, Bit>>,
    pub peer_dst: Vec<Signal<In, Bits<8>>>,
    pub pipe: Signal<In, Bits<8>>,
    pub hold_ev: Signal<Out, Bit>,
    // Field positions.
    f_l3: Constant<Bits<16>>,
    f_ether: Constant<Bits<16>>,
    f_vlans: Constant<Bits<16>>,
    f_pcp: Constant<Bits<16>>,
    f_prot: Constant<Bits<16>>,
    f_dscp: Constant<Bits<16>>,
    f_kind: Constant<Bits<16>>,
    f_demand: Constant<Bits<16>>,
    f_src: Constant<Bits<16>>,
    f_dst: Constant<Bits<16>>,
    f_mal: Constant<Bits<16>>,
    f_in: Constant<Bits<16>>,
    f_lo: Constant<Bits<16>>,
    f_hi: Constant<Bits<16>>,
    f_recv: Constant<Bits<16>>,
    f_dport: Constant<Bits<16>>,
    c_pl2: Constant<Bits<3>>,
    c_ctl: Constant<Bits<3>>,
    c_v4: Constant<Bits<3>>,
    c_v6: Constant<Bits<3>>,
    c_rsv: Constant<Bits<8>>,
    c_macctl: Constant<Bits<16>>,
    f_pkind_hi: Constant<Bits<16>>,
    f_drop: Constant<Bits<16>>,
    f_noport: Constant<Bits<16>>,
    f_dmac: Constant<Bits<16>>,
    c_grant: Constant<Bits<3>>,
    c_pass: Constant<Bits<3>>,
    k_data: Constant<Bits<2>>,
    k_unsol: Constant<Bits<2>>,
    k_grt: Constant<Bits<2>>,
    k_rsv: Constant<Bits<2>>,
    /// A grant's constant bits: `pl2_kind` 2 in the PHV; `routed` and
    /// [`grt::GRT`] in the result. A drop's: [`res::DROP`].
    phv_grt: Constant<Bits<PHV_BITS>>,
    res_grt: Constant<Bits<128>>,
    res_drop: Constant<Bits<128>>,
    /// The PHV with a grant's fields cleared, and the result likewise.
    phv_keep: Constant<Bits<PHV_BITS>>,
    res_keep: Constant<Bits<128>>,
    /// Built with the cross-pipeline hold.
    hold_en: Constant<Bit>,
    // Hold-queue entry fields.
    e_res: Constant<Bits<16>>,
    e_op: Constant<Bits<16>>,
    e_k: Constant<Bits<16>>,
    e_in: Constant<Bits<16>>,
    e_src: Constant<Bits<16>>,
    e_dst: Constant<Bits<16>>,
    e_d: Constant<Bits<16>>,
    e_op_bit: Constant<Bits<EW>>,
    // Decode (combinational on `s_*`).
    ok: Signal<Local, Bit>,
    is_pl2: Signal<Local, Bit>,
    l3_pl2: Signal<Local, Bit>,
    is_rsv: Signal<Local, Bit>,
    ctl: Signal<Local, Bit>,
    ip: Signal<Local, Bit>,
    unsol: Signal<Local, Bit>,
    data: Signal<Local, Bit>,
    c_op: Signal<Local, Bit>,
    c_k: Signal<Local, Bits<2>>,
    c_dst: Signal<Local, Bits<8>>,
    // The hold queue: bypass register, RAM, head.
    entry: Signal<Local, Bits<EW>>,
    ram: SdpRam<Bits<EW>, 5>,
    byp: DFF<Bits<EW>>,
    h_v: DffR<Bit>,
    h_byp: DffR<Bit>,
    wr_ptr: DffR<Bits<5>>,
    rd_ptr: DffR<Bits<5>>,
    cnt: DffR<Bits<6>>,
    /// `cnt != 0`, registered.
    nz: DffR<Bit>,
    cnt_one: Constant<Bits<6>>,
    head: Signal<Local, Bits<EW>>,
    issue: Signal<Local, Bit>,
    held: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    /// The queue's requests (`RSV`/`UNSOL`, `dst`) beside the RAM, read in
    /// the cycle of the pop, and the head's, registered.
    c_req: Signal<Local, Bit>,
    opq: SdpRam<Bits<9>, 5>,
    req_bit9: Constant<Bits<9>>,
    hq_req: DffR<Bit>,
    hq_dst: DFF<Bits<8>>,
    hold_q: DffR<Bit>,
    /// The ranks (one-hot): the pipeline on top, and the mask of the
    /// pipelines above this one; `started` is low in the first cycle after
    /// reset.
    started: DffR<Bit>,
    top_oh: DffR<Bits<8>>,
    above: DffR<Bits<8>>,
    me_bit: Signal<Local, Bits<8>>,
    below_me: Signal<Local, Bits<8>>,
    pmask: Constant<Bits<8>>,
    last_pipe: Constant<Bits<8>>,
    jc: Vec<Constant<Bits<8>>>,
    jbit: Vec<Constant<Bits<8>>>,
    // The op register and the delay line (the op's flag rides along).
    r_op_v: DffR<Bit>,
    r_op_k: DFF<Bits<2>>,
    r_op_in: DFF<Bits<8>>,
    r_op_src: DFF<Bits<8>>,
    r_op_dst: DFF<Bits<8>>,
    r_op_ioh: DFF<Bits<64>>,
    r_op_doh: DFF<Bits<64>>,
    /// One entry per port of the switch: the one-hot's length.
    c_ports: Vec<Constant<Bit>>,
    r_op_d: DFF<Bits<8>>,
    r_op_dk: DFF<Bits<8>>,
    r_op_ok: DFF<Bit>,
    d1_v: DffR<Bit>,
    d1_op: DffR<Bit>,
    d1_phv: DFF<Bits<PHV_BITS>>,
    d1_res: DFF<Bits<128>>,
    d2_v: DffR<Bit>,
    d2_op: DffR<Bit>,
    d2_phv: DFF<Bits<PHV_BITS>>,
    d2_res: DFF<Bits<128>>,
    d3_v: DffR<Bit>,
    d3_op: DffR<Bit>,
    d3_phv: DFF<Bits<PHV_BITS>>,
    d3_res: DFF<Bits<128>>,
    /// The packet entering the delay line (module docs, "Latency").
    in_v: Signal<Local, Bit>,
    in_slow: Signal<Local, Bit>,
    in_phv: Signal<Local, Bits<PHV_BITS>>,
    in_res: Signal<Local, Bits<128>>,
    // Merge.
    granted: Signal<Local, Bit>,
    dropped: Signal<Local, Bit>,
    smac: Signal<Local, Bits<48>>,
    port: Signal<Local, Bits<8>>,
    // Counters: events registered, counted a cycle later.
    ev: Signal<Local, Bits<3>>,
    ev_q: DffR<Bits<3>>,
    n_no_port: DffR<Bits<32>>,
    n_pl2: DffR<Bits<32>>,
    n_out: DffR<Bits<32>>,
}

impl Default for Pl2Stage {
    /// For a switch of one pipeline: no cross-pipeline hold.
    fn default() -> Self {
        Self::new(1, 64)
    }
}

impl Pl2Stage {
    /// The stage of one of `pipes` pipelines (1..=8) of a switch of `ports`
    /// ports (1..=64); with several pipelines, the cross-pipeline hold
    /// (module documentation).
    pub fn new(pipes: usize, ports: usize) -> Self {
        assert!((1..=8).contains(&pipes), "Pl2Stage: {pipes} pipelines, at most 8");
        assert!((1..=64).contains(&ports), "Pl2Stage: {ports} ports, at most 64");
        let hold = pipes > 1;
        let c16 = |v: usize| Constant::new((v as u64).to_bits());
        let mut phv_keep = Bits::<PHV_BITS>::mask();
        for (lsb, w) in [field::PL2_KIND, field::PL2_DEMAND, field::PL2_SEND, field::PL2_RECV] {
            for b in lsb..lsb + w {
                phv_keep = phv_keep.replace_bit(b, false);
            }
        }
        let mut res_keep = Bits::<128>::mask();
        for b in (DEST_PORT_LSB..DEST_PORT_LSB + 8).chain(NEXTHOP_LSB..NEXTHOP_LSB + 8).chain(res::DMAC..res::DMAC + 48).chain([
            ROUTED_BIT,
            res::DROP,
            res::NO_PORT,
            grt::GRT,
        ]) {
            res_keep = res_keep.replace_bit(b, false);
        }
        const { assert!(grt::GRT > res::NO_PORT && grt::GRT < 128 && res::DMAC >= 64 && NEXTHOP_LSB + 8 <= 64) };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_phv: Default::default(),
            s_res: Default::default(),
            m_valid: Default::default(),
            m_phv: Default::default(),
            m_res: Default::default(),
            enable: Default::default(),
            unsol_dscp: Default::default(),
            unsol_dscp_en: Default::default(),
            unsol_pcp: Default::default(),
            unsol_pcp_en: Default::default(),
            op_valid: Default::default(),
            op_kind: Default::default(),
            op_in: Default::default(),
            op_src: Default::default(),
            op_dst: Default::default(),
            op_in_oh: Default::default(),
            op_dst_oh: Default::default(),
            op_demand: Default::default(),
            op_dem_k: Default::default(),
            op_over_k: Default::default(),
            k: Default::default(),
            res_code: Default::default(),
            res_demand: Default::default(),
            res_send: Default::default(),
            res_recv: Default::default(),
            drop_no_port: Default::default(),
            drop_pl2: Default::default(),
            out_pkts: Default::default(),
            clr_drop_no_port: Default::default(),
            clr_drop_pl2: Default::default(),
            clr_out_pkts: Default::default(),
            hd_req: Default::default(),
            hd_dst: Default::default(),
            peer_req: vec_of(pipes),
            peer_dst: vec_of(pipes),
            pipe: Default::default(),
            hold_ev: Default::default(),
            hold_en: Constant::new(hold),
            e_res: c16(E_RES),
            e_op: c16(E_OP),
            e_k: c16(E_K),
            e_in: c16(E_IN),
            e_src: c16(E_SRC),
            e_dst: c16(E_DST),
            e_d: c16(E_D),
            e_op_bit: Constant::new(Bits::<EW>::default().replace_bit(E_OP, true)),
            f_l3: c16(field::L3.0),
            f_ether: c16(field::ETHERTYPE.0),
            f_vlans: c16(field::VLANS.0),
            f_pcp: c16(field::PCP.0),
            f_prot: c16(field::PROTEGO.0),
            f_dscp: c16(field::DSCP.0),
            f_kind: c16(field::PL2_KIND.0),
            f_demand: c16(field::PL2_DEMAND.0),
            f_src: c16(field::PL2_SRC.0),
            f_dst: c16(field::PL2_DST.0),
            f_mal: c16(field::MALFORMED.0),
            f_in: c16(field::IN_PORT.0),
            f_lo: c16(field::PL2_SMAC_LO.0),
            f_hi: c16(field::PL2_SMAC_HI.0),
            f_recv: c16(field::PL2_RECV.0),
            f_dport: c16(DEST_PORT_LSB),
            c_pl2: Constant::new((l3::PL2 as u64).to_bits()),
            c_ctl: Constant::new((l3::PROTEGO_CTL as u64).to_bits()),
            c_v4: Constant::new((l3::IPV4 as u64).to_bits()),
            c_v6: Constant::new((l3::IPV6 as u64).to_bits()),
            c_rsv: Constant::new(1u64.to_bits()),
            c_macctl: Constant::new((ethertype::MAC_CONTROL as u64).to_bits()),
            f_pkind_hi: c16(field::PROTEGO_KIND.0 + 1),
            f_drop: c16(res::DROP),
            f_noport: c16(res::NO_PORT),
            f_dmac: c16(res::DMAC),
            c_grant: Constant::new((code::GRANT as u64).to_bits()),
            c_pass: Constant::new((code::PASS as u64).to_bits()),
            k_data: Constant::new((kind::DATA as u64).to_bits()),
            k_unsol: Constant::new((kind::UNSOL as u64).to_bits()),
            k_grt: Constant::new((kind::GRT as u64).to_bits()),
            k_rsv: Constant::new((kind::RSV as u64).to_bits()),
            phv_grt: Constant::new(Bits::<PHV_BITS>::default().replace_bit(field::PL2_KIND.0 + 1, true)),
            res_grt: Constant::new(Bits::<128>::default().replace_bit(ROUTED_BIT, true).replace_bit(grt::GRT, true)),
            res_drop: Constant::new(Bits::<128>::default().replace_bit(res::DROP, true)),
            phv_keep: Constant::new(phv_keep),
            res_keep: Constant::new(res_keep),
            ok: Default::default(),
            is_pl2: Default::default(),
            l3_pl2: Default::default(),
            is_rsv: Default::default(),
            ctl: Default::default(),
            ip: Default::default(),
            unsol: Default::default(),
            data: Default::default(),
            c_op: Default::default(),
            c_k: Default::default(),
            c_dst: Default::default(),
            entry: Default::default(),
            ram: SdpRam::new(HOLD_DEPTH),
            byp: Default::default(),
            h_v: Default::default(),
            h_byp: Default::default(),
            wr_ptr: Default::default(),
            rd_ptr: Default::default(),
            cnt: Default::default(),
            nz: Default::default(),
            cnt_one: Constant::new(1u64.to_bits()),
            head: Default::default(),
            issue: Default::default(),
            held: Default::default(),
            take: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            c_req: Default::default(),
            opq: SdpRam::lut(HOLD_DEPTH),
            req_bit9: Constant::new(Bits::<9>::default().replace_bit(8, true)),
            hq_req: Default::default(),
            hq_dst: Default::default(),
            hold_q: Default::default(),
            started: Default::default(),
            top_oh: Default::default(),
            above: Default::default(),
            me_bit: Default::default(),
            below_me: Default::default(),
            pmask: Constant::new(((1u64 << pipes) - 1).to_bits()),
            last_pipe: Constant::new(((pipes - 1) as u64).to_bits()),
            jc: (0..pipes).map(|j| Constant::new((j as u64).to_bits())).collect(),
            jbit: (0..pipes).map(|j| Constant::new((1u64 << j).to_bits())).collect(),
            r_op_v: Default::default(),
            r_op_k: Default::default(),
            r_op_in: Default::default(),
            r_op_src: Default::default(),
            r_op_dst: Default::default(),
            r_op_ioh: Default::default(),
            r_op_doh: Default::default(),
            c_ports: (0..ports).map(|_| Constant::new(true)).collect(),
            r_op_d: Default::default(),
            r_op_dk: Default::default(),
            r_op_ok: Default::default(),
            d1_v: Default::default(),
            d1_op: Default::default(),
            d1_phv: Default::default(),
            d1_res: Default::default(),
            d2_v: Default::default(),
            d2_op: Default::default(),
            d2_phv: Default::default(),
            d2_res: Default::default(),
            d3_v: Default::default(),
            d3_op: Default::default(),
            d3_phv: Default::default(),
            d3_res: Default::default(),
            in_v: Default::default(),
            in_slow: Default::default(),
            in_phv: Default::default(),
            in_res: Default::default(),
            granted: Default::default(),
            dropped: Default::default(),
            smac: Default::default(),
            port: Default::default(),
            ev: Default::default(),
            ev_q: Default::default(),
            n_no_port: Default::default(),
            n_pl2: Default::default(),
            n_out: Default::default(),
        }
    }
}

impl Logic for Pl2Stage {
    fn update(&mut self) {
        Self::update(self)
    }
    fn connect(&mut self) {
        Self::connect(self)
    }
    fn hdl(&self) -> Verilog {
        crate::gen::unroll::resolve(Self::hdl(self))
    }
}

impl Pl2Stage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r_op_v, r_op_k, r_op_in, r_op_src, r_op_dst, r_op_ioh, r_op_doh, r_op_d, r_op_dk, r_op_ok, d1_v, d1_op, d1_phv,
            d1_res, d2_v, d2_op, d2_phv, d2_res, d3_v, d3_op, d3_phv, d3_res, ev_q, n_no_port, n_pl2, n_out, byp, h_v, h_byp, wr_ptr,
            rd_ptr, cnt, nz, hq_req, hq_dst, hold_q, started, top_oh, above
        );
        self.opq.clock.next = self.clock.val();
        self.hq_req.reset.next = self.reset.val();
        self.hold_q.reset.next = self.reset.val();
        self.started.reset.next = self.reset.val();
        self.top_oh.reset.next = self.reset.val();
        self.above.reset.next = self.reset.val();
        self.ram.clock.next = self.clock.val();
        self.h_v.reset.next = self.reset.val();
        self.h_byp.reset.next = self.reset.val();
        self.wr_ptr.reset.next = self.reset.val();
        self.rd_ptr.reset.next = self.reset.val();
        self.cnt.reset.next = self.reset.val();
        self.nz.reset.next = self.reset.val();
        self.d1_v.reset.next = self.reset.val();
        self.d1_op.reset.next = self.reset.val();
        self.d2_v.reset.next = self.reset.val();
        self.d2_op.reset.next = self.reset.val();
        self.d3_v.reset.next = self.reset.val();
        self.d3_op.reset.next = self.reset.val();
        self.r_op_v.reset.next = self.reset.val();
        self.ev_q.reset.next = self.reset.val();
        self.n_no_port.reset.next = self.reset.val();
        self.n_pl2.reset.next = self.reset.val();
        self.n_out.reset.next = self.reset.val();
        // ---- Decode: which packets are ops (A.3; the model's `op_of`) ----
        self.ok.next = self.s_valid.val() & self.enable.val() & !self.s_phv.val().get_bits::<4>(self.f_mal.val().index()).any();
        // A PL2 frame with a Protego tag is no op at all (the model's `op_of`).
        self.l3_pl2.next = self.s_phv.val().get_bits::<3>(self.f_l3.val().index()) == self.c_pl2.val();
        self.is_pl2.next = self.l3_pl2.val() & !self.s_phv.val().get_bit(self.f_prot.val().index());
        self.is_rsv.next = self.s_phv.val().get_bits::<8>(self.f_kind.val().index()) == self.c_rsv.val();
        self.ctl.next = (self.s_phv.val().get_bits::<3>(self.f_l3.val().index()) == self.c_ctl.val())
            | (self.s_phv.val().get_bit(self.f_prot.val().index()) & self.s_phv.val().get_bit(self.f_pkind_hi.val().index()))
            | (self.s_phv.val().get_bits::<16>(self.f_ether.val().index()) == self.c_macctl.val());
        self.ip.next = (self.s_phv.val().get_bits::<3>(self.f_l3.val().index()) == self.c_v4.val())
            | (self.s_phv.val().get_bits::<3>(self.f_l3.val().index()) == self.c_v6.val());
        if self.ip.val() {
            self.unsol.next =
                self.unsol_dscp_en.val() & (self.s_phv.val().get_bits::<6>(self.f_dscp.val().index()) == self.unsol_dscp.val());
        } else {
            self.unsol.next = self.unsol_pcp_en.val()
                & self.s_phv.val().get_bits::<2>(self.f_vlans.val().index()).any()
                & (self.s_phv.val().get_bits::<3>(self.f_pcp.val().index()) == self.unsol_pcp.val());
        }
        self.data.next = !self.l3_pl2.val() & !self.ctl.val() & !self.s_res.val().get_bit(self.f_drop.val().index());
        // ---- The op ----
        self.c_op.next = self.ok.val() & (self.is_pl2.val() | self.data.val());
        self.c_k.next = self.k_data.val();
        self.c_dst.next = self.s_res.val().get_bits::<8>(self.f_dport.val().index());
        if self.unsol.val() {
            self.c_k.next = self.k_unsol.val();
        }
        if self.is_pl2.val() {
            self.c_k.next = self.k_grt.val();
            self.c_dst.next = self.s_phv.val().get_bits::<8>(self.f_dst.val().index());
            if self.is_rsv.val() {
                self.c_k.next = self.k_rsv.val();
            }
        }
        // ---- The hold queue (built with the hold only) ----
        self.entry.next = bit_cast::<EW, PHV_BITS>(self.s_phv.val())
            | (bit_cast::<EW, 128>(self.s_res.val()) << self.e_res.val())
            | (bit_cast::<EW, 2>(self.c_k.val()) << self.e_k.val())
            | (bit_cast::<EW, 8>(self.s_phv.val().get_bits::<8>(self.f_in.val().index())) << self.e_in.val())
            | (bit_cast::<EW, 8>(self.s_phv.val().get_bits::<8>(self.f_src.val().index())) << self.e_src.val())
            | (bit_cast::<EW, 8>(self.c_dst.val()) << self.e_dst.val())
            | (bit_cast::<EW, 8>(self.s_phv.val().get_bits::<8>(self.f_demand.val().index())) << self.e_d.val());
        if self.c_op.val() {
            self.entry.next = self.entry.val() | self.e_op_bit.val();
        }
        self.head.next = self.ram.read_data.val();
        if self.h_byp.q.val() {
            self.head.next = self.byp.q.val();
        }
        // ---- The ranks of the next cycle, registered ----
        // One-hot: `top_oh` the pipeline on top, `me_bit` this one. Each
        // cycle every rank drops by one and the top becomes last: the top
        // leaves the mask of those above this pipeline, or, when this one
        // was on top, every other pipeline is above it. The first cycle after
        // reset starts pipeline 0 on top (those below this index above it).
        self.me_bit.next = 0.into();
        self.below_me.next = 0.into();
        for j in 0..self.jc.len() {
            if self.pipe.val() == self.jc[j].val() {
                self.me_bit.next = self.jbit[j].val();
            }
            if self.jc[j].val() < self.pipe.val() {
                self.below_me.next = self.below_me.val() | self.jbit[j].val();
            }
        }
        self.started.d.next = true;
        self.top_oh.d.next = ((self.top_oh.q.val() << 1) & self.pmask.val()) | (self.top_oh.q.val() >> self.last_pipe.val());
        if (self.top_oh.q.val() & self.me_bit.val()).any() {
            self.above.d.next = self.pmask.val() & !self.me_bit.val();
        } else {
            self.above.d.next = self.above.q.val() & !self.top_oh.q.val();
        }
        if !self.started.q.val() {
            self.top_oh.d.next = 1.into();
            self.above.d.next = self.below_me.val();
        }
        // ---- The hold: from registers only (own head, the others' heads) ----
        self.held.next = false;
        for j in 0..self.peer_req.len() {
            if self.above.q.val().get_bit(j) & self.peer_req[j].val() & (self.peer_dst[j].val() == self.hq_dst.q.val()) {
                self.held.next = self.hq_req.q.val();
            }
        }
        self.hd_req.next = self.hold_en.val() & self.hq_req.q.val();
        self.hd_dst.next = self.hq_dst.q.val();
        self.hold_q.d.next = self.hold_en.val() & self.held.val();
        self.hold_ev.next = self.hold_q.q.val();
        self.issue.next = self.h_v.q.val() & !self.held.val();
        self.take.next = !self.h_v.q.val() | !self.held.val();
        self.pop.next = self.take.val() & self.nz.q.val();
        self.push.next = self.s_valid.val() & (self.pop.val() | !self.take.val() | self.nz.q.val());
        // Every incoming entry is written at `wr_ptr`; only a push keeps it
        // (advances `wr_ptr`): the RAMs' write enables do not wait for the hold.
        self.ram.write_enable.next = self.hold_en.val() & self.s_valid.val();
        self.ram.write_address.next = self.wr_ptr.q.val();
        self.ram.write_data.next = self.entry.val();
        self.ram.read_enable.next = self.hold_en.val() & self.pop.val();
        self.ram.read_address.next = self.rd_ptr.q.val();
        // The incoming packet asks for `out[dst]` when it is an RSV or UNSOL op.
        self.c_req.next = self.c_op.val() & ((self.c_k.val() == self.k_rsv.val()) | (self.c_k.val() == self.k_unsol.val()));
        self.opq.write_enable.next = self.hold_en.val() & self.s_valid.val();
        self.opq.write_address.next = self.wr_ptr.q.val();
        self.opq.write_data.next = bit_cast::<9, 8>(self.c_dst.val());
        if self.c_req.val() {
            self.opq.write_data.next = bit_cast::<9, 8>(self.c_dst.val()) | self.req_bit9.val();
        }
        self.opq.read_address.next = self.rd_ptr.q.val();
        self.opq.read_enable.next = true;
        self.hq_req.d.next = self.hq_req.q.val();
        self.hq_dst.d.next = self.hq_dst.q.val();
        if self.take.val() {
            self.hq_req.d.next = self.s_valid.val() & self.c_req.val();
            self.hq_dst.d.next = self.c_dst.val();
            if self.pop.val() {
                self.hq_req.d.next = self.opq.read_data.val().get_bit(8);
                self.hq_dst.d.next = self.opq.read_data.val().get_bits::<8>(0);
            }
        }
        self.byp.d.next = self.byp.q.val();
        self.h_v.d.next = self.h_v.q.val();
        self.h_byp.d.next = self.h_byp.q.val();
        if self.take.val() {
            self.h_v.d.next = self.pop.val() | self.s_valid.val();
            self.h_byp.d.next = !self.pop.val();
            self.byp.d.next = self.entry.val();
        }
        if self.push.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
        }
        if self.pop.val() {
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
        }
        if self.push.val() & !self.pop.val() {
            self.cnt.d.next = self.cnt.q.val() + 1;
            self.nz.d.next = true;
        }
        if self.pop.val() & !self.push.val() {
            self.cnt.d.next = self.cnt.q.val() - 1;
            self.nz.d.next = self.cnt.q.val() != self.cnt_one.val();
        }
        if !self.hold_en.val() {
            self.h_v.d.next = false;
            self.hq_req.d.next = false;
            self.top_oh.d.next = 0.into();
            self.wr_ptr.d.next = 0.into();
            self.rd_ptr.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.nz.d.next = false;
        }
        // ---- The op, registered: from the decode, or the issued head ----
        self.r_op_v.d.next = self.c_op.val();
        self.r_op_k.d.next = self.c_k.val();
        self.r_op_dst.d.next = self.c_dst.val();
        self.r_op_in.d.next = self.s_phv.val().get_bits::<8>(self.f_in.val().index());
        self.r_op_src.d.next = self.s_phv.val().get_bits::<8>(self.f_src.val().index());
        self.r_op_d.d.next = self.s_phv.val().get_bits::<8>(self.f_demand.val().index());
        if self.hold_en.val() {
            self.r_op_v.d.next = self.issue.val() & self.head.val().get_bit(self.e_op.val().index());
            self.r_op_k.d.next = self.head.val().get_bits::<2>(self.e_k.val().index());
            self.r_op_dst.d.next = self.head.val().get_bits::<8>(self.e_dst.val().index());
            self.r_op_in.d.next = self.head.val().get_bits::<8>(self.e_in.val().index());
            self.r_op_src.d.next = self.head.val().get_bits::<8>(self.e_src.val().index());
            self.r_op_d.d.next = self.head.val().get_bits::<8>(self.e_d.val().index());
        }
        // The demand clamped to the ALU's K (A.3), for the ALU's decode.
        self.r_op_dk.d.next = self.r_op_d.d.val();
        self.r_op_ok.d.next = self.r_op_d.d.val() > self.k.val();
        if self.r_op_ok.d.val() {
            self.r_op_dk.d.next = self.k.val();
        }
        // The op's ports one-hot, for the ALU's decode.
        self.r_op_ioh.d.next = 0.into();
        self.r_op_doh.d.next = 0.into();
        for p in 0..self.c_ports.len() {
            if self.c_ports[p].val() & (self.r_op_in.d.val().index() == p) {
                self.r_op_ioh.d.next = self.r_op_ioh.d.val().replace_bit(p, true);
            }
            if self.c_ports[p].val() & (self.r_op_dst.d.val().index() == p) {
                self.r_op_doh.d.next = self.r_op_doh.d.val().replace_bit(p, true);
            }
        }
        self.op_valid.next = self.r_op_v.q.val();
        self.op_kind.next = self.r_op_k.q.val();
        self.op_in.next = self.r_op_in.q.val();
        self.op_src.next = self.r_op_src.q.val();
        self.op_dst.next = self.r_op_dst.q.val();
        self.op_in_oh.next = self.r_op_ioh.q.val();
        self.op_dst_oh.next = self.r_op_doh.q.val();
        self.op_demand.next = self.r_op_d.q.val();
        self.op_dem_k.next = self.r_op_dk.q.val();
        self.op_over_k.next = self.r_op_ok.q.val();
        // ---- Delay line: the PHV and result wait for the ALU's verdict ----
        // The packet entering the line: lookup's, or the issued head.
        self.in_v.next = self.s_valid.val();
        self.in_slow.next = self.c_op.val() & (self.c_k.val() != self.k_data.val());
        self.in_phv.next = self.s_phv.val();
        self.in_res.next = self.s_res.val();
        if self.hold_en.val() {
            self.in_v.next = self.issue.val();
            self.in_slow.next = self.head.val().get_bit(self.e_op.val().index())
                & (self.head.val().get_bits::<2>(self.e_k.val().index()) != self.k_data.val());
            self.in_phv.next = self.head.val().get_bits::<PHV_BITS>(0);
            self.in_res.next = self.head.val().get_bits::<128>(self.e_res.val().index());
        }
        // An RSV, UNSOL or GRT enters `d1` and meets its result in `d3`. Any
        // other packet (no op, or a DATA, which always passes) enters the
        // latest entry behind every packet in the line: `d3` when the line
        // is empty, `d2` when only `d2` holds one, else `d1` (module docs,
        // "Latency"). The data selects are registers' (`d1_v`, `d2_v`): an
        // entry the packet does not take is loaded but stays invalid.
        self.d1_v.d.next = self.in_v.val() & (self.in_slow.val() | self.d1_v.q.val());
        self.d1_op.d.next = self.in_v.val() & self.in_slow.val();
        self.d1_phv.d.next = self.in_phv.val();
        self.d1_res.d.next = self.in_res.val();
        self.d2_v.d.next = self.d1_v.q.val();
        self.d2_op.d.next = self.d1_op.q.val();
        self.d2_phv.d.next = self.d1_phv.q.val();
        self.d2_res.d.next = self.d1_res.q.val();
        if !self.d1_v.q.val() {
            self.d2_v.d.next = self.in_v.val() & !self.in_slow.val() & self.d2_v.q.val();
            self.d2_op.d.next = false;
            self.d2_phv.d.next = self.in_phv.val();
            self.d2_res.d.next = self.in_res.val();
        }
        self.d3_v.d.next = self.d2_v.q.val();
        self.d3_op.d.next = self.d2_op.q.val();
        self.d3_phv.d.next = self.d2_phv.q.val();
        self.d3_res.d.next = self.d2_res.q.val();
        if !self.d1_v.q.val() & !self.d2_v.q.val() {
            self.d3_v.d.next = self.in_v.val() & !self.in_slow.val();
            self.d3_op.d.next = false;
            self.d3_phv.d.next = self.in_phv.val();
            self.d3_res.d.next = self.in_res.val();
        }
        // ---- Merge with the ALU's result ----
        self.granted.next = self.d3_op.q.val() & (self.res_code.val() == self.c_grant.val());
        self.dropped.next = self.d3_op.q.val() & (self.res_code.val() != self.c_grant.val()) & (self.res_code.val() != self.c_pass.val());
        self.smac.next = bit_cast::<48, 32>(self.d3_phv.q.val().get_bits::<32>(self.f_lo.val().index()))
            | (bit_cast::<48, 16>(self.d3_phv.q.val().get_bits::<16>(self.f_hi.val().index())) << 32);
        self.port.next = self.d3_phv.q.val().get_bits::<8>(self.f_in.val().index());
        self.m_valid.next = self.d3_v.q.val();
        self.m_phv.next = self.d3_phv.q.val();
        self.m_res.next = self.d3_res.q.val();
        if self.granted.val() {
            self.m_phv.next = (self.d3_phv.q.val() & self.phv_keep.val())
                | self.phv_grt.val()
                | (bit_cast::<PHV_BITS, 8>(self.res_demand.val()) << self.f_demand.val())
                | (bit_cast::<PHV_BITS, 32>(self.res_send.val()) << self.f_lo.val())
                | (bit_cast::<PHV_BITS, 32>(self.res_recv.val()) << self.f_recv.val());
            self.m_res.next = (self.d3_res.q.val() & self.res_keep.val())
                | (bit_cast::<128, 8>(self.port.val()) << self.f_dport.val())
                | (bit_cast::<128, 48>(self.smac.val()) << self.f_dmac.val())
                | self.res_grt.val();
        }
        if self.dropped.val() {
            self.m_res.next = self.d3_res.q.val() | self.res_drop.val();
        }
        // Events: 0 no-port drop, 1 PL2 drop, 2 out.
        self.ev.next = 0.into();
        if self.d3_v.q.val() {
            if self.dropped.val() {
                self.ev.next = 2.into();
            } else if self.granted.val() | !self.d3_res.q.val().get_bit(self.f_drop.val().index()) {
                self.ev.next = 4.into();
            } else if self.d3_res.q.val().get_bit(self.f_noport.val().index()) {
                self.ev.next = 1.into();
            }
        }
        self.ev_q.d.next = self.ev.val();
        if self.ev_q.q.val().get_bit(0) {
            self.n_no_port.d.next = self.n_no_port.q.val() + 1;
        }
        if self.ev_q.q.val().get_bit(1) {
            self.n_pl2.d.next = self.n_pl2.q.val() + 1;
        }
        if self.ev_q.q.val().get_bit(2) {
            self.n_out.d.next = self.n_out.q.val() + 1;
        }
        if self.clr_drop_no_port.val() {
            self.n_no_port.d.next = 0.into();
        }
        if self.clr_drop_pl2.val() {
            self.n_pl2.d.next = 0.into();
        }
        if self.clr_out_pkts.val() {
            self.n_out.d.next = 0.into();
        }
        self.drop_no_port.next = self.n_no_port.q.val();
        self.drop_pl2.next = self.n_pl2.q.val();
        self.out_pkts.next = self.n_out.q.val();
    }
}

//! `ts_lookup`: where every packet goes (`docs/ingress.md`, "lookup"): IPv4
//! longest-prefix match for packets to the router MAC, next-hop MAC, L2 exact
//! match for the rest, the miss action and the drops. Golden model:
//! `sim/src/model/lookup.rs`.
//!
//! A PHV-side stage like [`crate::ingress::classify`]: one PHV per cycle at most, fixed
//! latency [`LATENCY`] cycles, no backpressure. The route table is TCAM-style
//! (every entry compared in parallel) but order-free: the longest matching
//! prefix wins wherever it sits, ties to the lowest index, so a host may write
//! entries in any order. The longest length is found per length, not per
//! entry: bit `v` of a 33-bit vector says "some entry of length `v` matches",
//! whose highest set bit is the winning length; the winning entry is then the
//! lowest matching entry of that length. Both are shallow OR/priority trees,
//! each in its own pipeline stage.
//!
//! Tables are run-time registers: a change takes effect for PHVs entering after
//! it (a PHV in flight may see part of it). Which entries have which length
//! is kept in registers (`dec`, each entry's length one-hot), recomputed from
//! the route registers only in the cycle after `route_wr` or `reset`: the
//! length decode is off the packet path in hardware, and the Verilated model
//! does not redo 33 x N length compares every cycle (issue 14). Stage 2 ORs
//! the matching entries' `dec` in a 4-ary tree of named signals: a
//! per-length mask over the entries would need an N x 33 transpose, which
//! Verilator turns into one C++ function of 75 000 lines (the whole switch
//! model's build time). A route write takes effect for PHVs entering from the
//! cycle after its `wrote` pulse.
use crate::ingress::classify::class::{CLASS_PRIO, CLASS_ROUTER_HIT, CLASS_TC};
use crate::ingress::phv::{field, l3, PHV_BITS};
use crate::meta::shift::{SH_DEST_PORT, SH_MALFORMED, SH_NEXTHOP, SH_PRIO, SH_ROUTED, SH_TC};
use crate::prim::widgets::{vec_of, DffR};
use reg::{L2_PORT, L2_VALID, ROUTE_LEN, ROUTE_NH, ROUTE_PORT, ROUTE_VALID};
use rust_hdl::prelude::*;

/// Cycles from `s_valid` to `m_valid`.
pub const LATENCY: usize = 7;

/// Bits of `m_res`.
pub mod res {
    /// Bits 63:0: the `tuser` fields of [`crate::meta`] this stage decides
    /// (`dest_port`, `tc`, `prio`, `trim_ok`, `ndp_data`, `routed`, `malformed`,
    /// `nexthop`; `src_port`, `length` and `flags` zero).
    pub const META: usize = 0;
    /// Bits 111:64: the new destination MAC of a routed packet.
    pub const DMAC: usize = 64;
    /// Bit 112: drop the packet (its counter already counted it).
    pub const DROP: usize = 112;
    /// Width of `m_res`.
    pub const BITS: usize = 128;
}

/// Register word layouts of the lookup tables.
pub mod reg {
    crate::gen::unroll::named_indices! {
        /// Route word 0 is the prefix; word 1 holds `len` (6 bits, above 32
        /// acts as 32), a valid bit, `port` and `nexthop` (8 bits each).
        ROUTE_LEN = 0;
        ROUTE_VALID = 7;
        ROUTE_PORT = 8;
        ROUTE_NH = 16;
        /// L2 word 0 is MAC bits 31:0; word 1 holds MAC bits 47:32 (at 0),
        /// `port` (8 bits) and a valid bit.
        L2_PORT = 16;
        L2_VALID = 31;
    }
    /// A route entry's two words.
    pub fn route(prefix: u32, len: u8, port: u8, nexthop: u8) -> [u32; 2] {
        [prefix, (len as u32 & 0x3f) << ROUTE_LEN | 1 << ROUTE_VALID | (port as u32) << ROUTE_PORT | (nexthop as u32) << ROUTE_NH]
    }
    /// An L2 entry's two words.
    pub fn l2(mac: u64, port: u8) -> [u32; 2] {
        [mac as u32, (mac >> 32) as u32 & 0xffff | (port as u32) << L2_PORT | 1 << L2_VALID]
    }
    /// Next-hop and router MAC words: bits 31:0, then 47:32.
    pub fn mac(mac: u64) -> [u32; 2] {
        [mac as u32, (mac >> 32) as u32 & 0xffff]
    }
}

/// The lookup stage with `N` route entries, `L` L2 entries and `H` next hops.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (drops the PHVs in flight, zeroes the counters).
/// - `s_valid`, `s_phv`, `s_class` in: a PHV and its class from `ts_classify`.
/// - `m_valid`, `m_phv`, `m_res` out, [`LATENCY`] cycles later: the PHV and
///   the decision ([`res`]).
/// - `malformed_drop` in: drop malformed packets (else forward them untouched).
/// - `miss_port` in: egress of lookup misses (bits 7:0).
/// - `route_w0_<i>`, `route_w1_<i>`, `l2_w0_<i>`, `l2_w1_<i>`, `nh_w0_<i>`,
///   `nh_w1_<i>` in: the tables ([`reg`]).
/// - `route_wr` in: a route register has changed (a one-cycle pulse in or
///   after the cycle its new value appears; the register file's `wrote`).
///   The per-length masks are recomputed the next cycle; without the pulse a
///   changed length is not seen.
/// - Counters out (32 bits, wrap) with `clr_*` inputs: `routed`, `lpm_miss`,
///   `l2_hit`, `l2_miss`, `drop_malformed`, `drop_no_port`, `out_pkts`. A
///   packet is counted one cycle after its result leaves (`m_valid`).
#[derive(LogicBlock)]
pub struct Lookup {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_phv: Signal<In, Bits<PHV_BITS>>,
    pub s_class: Signal<In, Bits<8>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_phv: Signal<Out, Bits<PHV_BITS>>,
    pub m_res: Signal<Out, Bits<128>>,
    pub malformed_drop: Signal<In, Bit>,
    pub miss_port: Signal<In, Bits<32>>,
    pub route_w0: Vec<Signal<In, Bits<32>>>,
    pub route_w1: Vec<Signal<In, Bits<32>>>,
    pub l2_w0: Vec<Signal<In, Bits<32>>>,
    pub l2_w1: Vec<Signal<In, Bits<32>>>,
    pub nh_w0: Vec<Signal<In, Bits<32>>>,
    pub nh_w1: Vec<Signal<In, Bits<32>>>,
    pub route_wr: Signal<In, Bit>,
    pub routed: Signal<Out, Bits<32>>,
    pub lpm_miss: Signal<Out, Bits<32>>,
    pub l2_hit: Signal<Out, Bits<32>>,
    pub l2_miss: Signal<Out, Bits<32>>,
    pub drop_malformed: Signal<Out, Bits<32>>,
    pub drop_no_port: Signal<Out, Bits<32>>,
    pub out_pkts: Signal<Out, Bits<32>>,
    pub clr_routed: Signal<In, Bit>,
    pub clr_lpm_miss: Signal<In, Bit>,
    pub clr_l2_hit: Signal<In, Bit>,
    pub clr_l2_miss: Signal<In, Bit>,
    pub clr_drop_malformed: Signal<In, Bit>,
    pub clr_drop_no_port: Signal<In, Bit>,
    pub clr_out_pkts: Signal<In, Bit>,
    // Configuration.
    ports: Constant<Bits<8>>,
    all32: Constant<Bits<32>>,
    f_dst_mac: Constant<Bits<16>>,
    f_ipv4_dst: Constant<Bits<16>>,
    f_l3: Constant<Bits<16>>,
    f_malformed: Constant<Bits<16>>,
    c_ipv4: Constant<Bits<3>>,
    // Pipeline: valid and PHV/class through every stage.
    v: Vec<DffR<Bit>>,
    phv: Vec<DFF<Bits<PHV_BITS>>>,
    cls: Vec<DFF<Bits<8>>>,
    /// Recompute `dec` this cycle (after `route_wr` or `reset`).
    upd: DFF<Bit>,
    /// Per route entry: its length one-hot (bit `l`: length `l`; lengths
    /// above 32 count as 32).
    dec: Vec<DFF<Bits<33>>>,
    /// `1` and `1 << 32` as 33-bit constants (the length decode).
    one33: Constant<Bits<33>>,
    top33: Constant<Bits<33>>,
    // Stage 1: matches.
    rhit: DFF<Bits<256>>,
    l2hit: DFF<Bits<256>>,
    // Stage 2: matching lengths, lowest L2 match.
    any_len: DFF<Bits<33>>,
    rhit2: DFF<Bits<256>>,
    l2sel: DFF<Bits<256>>,
    // Stage 3: winning length, L2 port.
    /// The winning length, one-hot (bit `v`: length `v`).
    best: DFF<Bits<33>>,
    lpm_any: DFF<Bit>,
    rhit3: DFF<Bits<256>>,
    l2_any: DFF<Bit>,
    l2_port: DFF<Bits<8>>,
    // Stage 4: matching entries of the winning length.
    rs_q: DFF<Bits<256>>,
    lpm_any4: DFF<Bit>,
    l2_any4: DFF<Bit>,
    l2_port4: DFF<Bits<8>>,
    // Stage 5: winning entry (one-hot); whether the L2 port exists.
    rsel: DFF<Bits<256>>,
    lpm_any4b: DFF<Bit>,
    l2_any4b: DFF<Bit>,
    l2_port4b: DFF<Bits<8>>,
    l2_ok4b: DFF<Bit>,
    // Stage 6: route result.
    r_port: DFF<Bits<8>>,
    r_ok: DFF<Bit>,
    r_nh: DFF<Bits<8>>,
    lpm_any5: DFF<Bit>,
    l2_any5: DFF<Bit>,
    l2_port5: DFF<Bits<8>>,
    l2_ok5: DFF<Bit>,
    // Stage 7: decision.
    res_q: DFF<Bits<128>>,
    n_routed: DffR<Bits<32>>,
    n_lpm_miss: DffR<Bits<32>>,
    n_l2_hit: DffR<Bits<32>>,
    n_l2_miss: DffR<Bits<32>>,
    n_drop_mal: DffR<Bits<32>>,
    n_drop_port: DffR<Bits<32>>,
    n_out: DffR<Bits<32>>,
    /// The counters' events of the last decision (one-hot groups, see `update`).
    ev_q: DffR<Bits<7>>,
    // Combinational.
    dst: Signal<Local, Bits<32>>,
    rh: Signal<Local, Bits<256>>,
    lh: Signal<Local, Bits<256>>,
    /// The stage-2 OR tree, 4-ary over 256 leaves: leaf `i` is entry `i`'s
    /// `dec` if it matches (zero if not, or beyond the table), then levels of
    /// 64, 16 and 4 nodes; the root is `any_len`'s input.
    leaf: Vec<Signal<Local, Bits<33>>>,
    t1: Vec<Signal<Local, Bits<33>>>,
    t2: Vec<Signal<Local, Bits<33>>>,
    t3: Vec<Signal<Local, Bits<33>>>,
    bl: Signal<Local, Bits<33>>,
    rev: Signal<Local, Bits<33>>,
    rev_low: Signal<Local, Bits<33>>,
    rs: Signal<Local, Bits<256>>,
    lowest: Signal<Local, Bits<256>>,
    l2lowest: Signal<Local, Bits<256>>,
    lp: Signal<Local, Bits<8>>,
    rp: Signal<Local, Bits<8>>,
    rn: Signal<Local, Bits<8>>,
    /// Per route entry: its port exists (a function of its register alone).
    pok: Vec<Signal<Local, Bit>>,
    /// Per route entry: its length field.
    len6: Vec<Signal<Local, Bits<6>>>,
    rok: Signal<Local, Bit>,
    miss_ok: Signal<Local, Bit>,
    port_ok: Signal<Local, Bit>,
    nh_mac: Signal<Local, Bits<48>>,
    nh_lo: Signal<Local, Bits<32>>,
    nh_hi: Signal<Local, Bits<16>>,
    ok: Signal<Local, Bit>,
    mal: Signal<Local, Bit>,
    cand: Signal<Local, Bit>,
    port: Signal<Local, Bits<8>>,
    drop: Signal<Local, Bit>,
    is_routed: Signal<Local, Bit>,
    meta: Signal<Local, Bits<64>>,
    ev: Signal<Local, Bits<7>>,
}

impl Lookup {
    /// A lookup for a switch of `ports` ports with `routes` route entries,
    /// `l2` L2 entries and `nexthops` next hops (each 1..=256).
    pub fn new(ports: usize, routes: usize, l2: usize, nexthops: usize) -> Self {
        assert!((1..=256).contains(&routes) && (1..=256).contains(&l2) && (1..=256).contains(&nexthops));
        assert!((1..=255).contains(&ports));
        let c16 = |f: (usize, usize)| Constant::new((f.0 as u64).to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_phv: Default::default(),
            s_class: Default::default(),
            m_valid: Default::default(),
            m_phv: Default::default(),
            m_res: Default::default(),
            malformed_drop: Default::default(),
            miss_port: Default::default(),
            route_w0: vec_of(routes),
            route_w1: vec_of(routes),
            l2_w0: vec_of(l2),
            l2_w1: vec_of(l2),
            nh_w0: vec_of(nexthops),
            nh_w1: vec_of(nexthops),
            route_wr: Default::default(),
            routed: Default::default(),
            lpm_miss: Default::default(),
            l2_hit: Default::default(),
            l2_miss: Default::default(),
            drop_malformed: Default::default(),
            drop_no_port: Default::default(),
            out_pkts: Default::default(),
            clr_routed: Default::default(),
            clr_lpm_miss: Default::default(),
            clr_l2_hit: Default::default(),
            clr_l2_miss: Default::default(),
            clr_drop_malformed: Default::default(),
            clr_drop_no_port: Default::default(),
            clr_out_pkts: Default::default(),
            ports: Constant::new((ports as u64).to_bits()),
            all32: Constant::new(0xFFFF_FFFFu64.to_bits()),
            f_dst_mac: c16(field::DST_MAC),
            f_ipv4_dst: c16(field::IPV4_DST),
            f_l3: c16(field::L3),
            f_malformed: c16(field::MALFORMED),
            c_ipv4: Constant::new((l3::IPV4 as u64).to_bits()),
            upd: Default::default(),
            dec: vec_of(routes),
            one33: Constant::new(1u64.to_bits()),
            top33: Constant::new((1u64 << 32).to_bits()),
            v: vec_of(LATENCY),
            phv: vec_of(LATENCY),
            cls: vec_of(LATENCY - 1),
            rhit: Default::default(),
            l2hit: Default::default(),
            any_len: Default::default(),
            rhit2: Default::default(),
            l2sel: Default::default(),
            best: Default::default(),
            lpm_any: Default::default(),
            rhit3: Default::default(),
            l2_any: Default::default(),
            l2_port: Default::default(),
            rs_q: Default::default(),
            lpm_any4: Default::default(),
            l2_any4: Default::default(),
            l2_port4: Default::default(),
            rsel: Default::default(),
            lpm_any4b: Default::default(),
            l2_any4b: Default::default(),
            l2_port4b: Default::default(),
            l2_ok4b: Default::default(),
            r_port: Default::default(),
            r_ok: Default::default(),
            r_nh: Default::default(),
            lpm_any5: Default::default(),
            l2_any5: Default::default(),
            l2_port5: Default::default(),
            l2_ok5: Default::default(),
            res_q: Default::default(),
            n_routed: Default::default(),
            n_lpm_miss: Default::default(),
            n_l2_hit: Default::default(),
            n_l2_miss: Default::default(),
            n_drop_mal: Default::default(),
            n_drop_port: Default::default(),
            n_out: Default::default(),
            ev_q: Default::default(),
            dst: Default::default(),
            rh: Default::default(),
            lh: Default::default(),
            leaf: vec_of(256),
            t1: vec_of(64),
            t2: vec_of(16),
            t3: vec_of(4),
            bl: Default::default(),
            rev: Default::default(),
            rev_low: Default::default(),
            rs: Default::default(),
            lowest: Default::default(),
            l2lowest: Default::default(),
            lp: Default::default(),
            rp: Default::default(),
            rn: Default::default(),
            pok: vec_of(routes),
            len6: vec_of(routes),
            rok: Default::default(),
            miss_ok: Default::default(),
            port_ok: Default::default(),
            nh_mac: Default::default(),
            nh_lo: Default::default(),
            nh_hi: Default::default(),
            ok: Default::default(),
            mal: Default::default(),
            cand: Default::default(),
            port: Default::default(),
            drop: Default::default(),
            is_routed: Default::default(),
            meta: Default::default(),
            ev: Default::default(),
        }
    }
}

impl Logic for Lookup {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            upd,
            rhit,
            l2hit,
            any_len,
            rhit2,
            l2sel,
            best,
            lpm_any,
            rhit3,
            l2_any,
            l2_port,
            rs_q,
            lpm_any4,
            l2_any4,
            l2_port4,
            rsel,
            lpm_any4b,
            l2_any4b,
            l2_port4b,
            l2_ok4b,
            r_port,
            r_ok,
            r_nh,
            lpm_any5,
            l2_any5,
            l2_port5,
            l2_ok5,
            res_q,
            n_routed,
            n_lpm_miss,
            n_l2_hit,
            n_l2_miss,
            n_drop_mal,
            n_drop_port,
            n_out,
            ev_q
        );
        self.n_routed.reset.next = self.reset.val();
        self.n_lpm_miss.reset.next = self.reset.val();
        self.n_l2_hit.reset.next = self.reset.val();
        self.n_l2_miss.reset.next = self.reset.val();
        self.n_drop_mal.reset.next = self.reset.val();
        self.n_drop_port.reset.next = self.reset.val();
        self.n_out.reset.next = self.reset.val();
        self.ev_q.reset.next = self.reset.val();
        for s in 0..self.v.len() {
            self.v[s].clock.next = self.clock.val();
            self.v[s].reset.next = self.reset.val();
            self.phv[s].clock.next = self.clock.val();
        }
        for s in 0..self.cls.len() {
            self.cls[s].clock.next = self.clock.val();
        }
        self.v[0].d.next = self.s_valid.val();
        self.phv[0].d.next = self.s_phv.val();
        self.cls[0].d.next = self.s_class.val();
        for s in 1..self.v.len() {
            self.v[s].d.next = self.v[s - 1].q.val();
            self.phv[s].d.next = self.phv[s - 1].q.val();
        }
        for s in 1..self.cls.len() {
            self.cls[s].d.next = self.cls[s - 1].q.val();
        }

        // ---- stage 1: every entry compared ----
        self.dst.next = self.s_phv.val().get_bits::<32>(self.f_ipv4_dst.val().index());
        self.rh.next = 0.into();
        for i in 0..self.route_w0.len() {
            if self.route_w1[i].val().get_bit(ROUTE_VALID)
                & !((self.dst.val() ^ self.route_w0[i].val()) & !(self.all32.val() >> self.route_w1[i].val().get_bits::<6>(ROUTE_LEN)))
                    .any()
            {
                self.rh.next = self.rh.val().replace_bit(i, true);
            }
        }
        self.lh.next = 0.into();
        for i in 0..self.l2_w0.len() {
            if self.l2_w1[i].val().get_bit(L2_VALID)
                & (self.s_phv.val().get_bits::<32>(self.f_dst_mac.val().index()) == self.l2_w0[i].val())
                & (self.s_phv.val().get_bits::<16>(self.f_dst_mac.val().index() + 32) == self.l2_w1[i].val().get_bits::<16>(0))
            {
                self.lh.next = self.lh.val().replace_bit(i, true);
            }
        }
        self.rhit.d.next = self.rh.val();
        self.l2hit.d.next = self.lh.val();

        // ---- each entry's length one-hot, after a route write or reset ----
        for i in 0..self.route_w0.len() {
            self.len6[i].next = self.route_w1[i].val().get_bits::<6>(ROUTE_LEN);
        }
        self.upd.d.next = self.reset.val() | self.route_wr.val();
        for i in 0..self.dec.len() {
            self.dec[i].clock.next = self.clock.val();
            self.dec[i].d.next = self.dec[i].q.val();
        }
        if self.upd.q.val() {
            for i in 0..self.dec.len() {
                // Lengths above 32 act as 32.
                if self.len6[i].val().get_bit(5) {
                    self.dec[i].d.next = self.top33.val();
                } else {
                    self.dec[i].d.next = self.one33.val() << self.len6[i].val().get_bits::<5>(0);
                }
            }
        }

        // ---- stage 2: which lengths match; lowest L2 match ----
        // The matching entries' one-hot lengths ORed in a 4-ary tree (an
        // AND-OR per length over the entries, 4 entries a node).
        for i in 0..self.leaf.len() {
            self.leaf[i].next = 0.into();
        }
        for i in 0..self.dec.len() {
            if self.rhit.q.val().get_bit(i) {
                self.leaf[i].next = self.dec[i].q.val();
            }
        }
        for j in 0..self.t1.len() {
            self.t1[j].next = self.leaf[4 * j].val() | self.leaf[4 * j + 1].val() | self.leaf[4 * j + 2].val() | self.leaf[4 * j + 3].val();
        }
        for j in 0..self.t2.len() {
            self.t2[j].next = self.t1[4 * j].val() | self.t1[4 * j + 1].val() | self.t1[4 * j + 2].val() | self.t1[4 * j + 3].val();
        }
        for j in 0..self.t3.len() {
            self.t3[j].next = self.t2[4 * j].val() | self.t2[4 * j + 1].val() | self.t2[4 * j + 2].val() | self.t2[4 * j + 3].val();
        }
        self.any_len.d.next = self.t3[0].val() | self.t3[1].val() | self.t3[2].val() | self.t3[3].val();
        self.rhit2.d.next = self.rhit.q.val();
        self.l2lowest.next = self.l2hit.q.val() & (!self.l2hit.q.val() + 1);
        self.l2sel.d.next = self.l2lowest.val();

        // ---- stage 3: the winning length; the L2 port ----
        // The winning length one-hot: the highest set bit of `any_len`, as
        // the lowest set bit of its reverse (one carry chain, no priority
        // multiplexers; issue 14).
        self.rev.next = 0.into();
        for l in 0..33 {
            self.rev.next = self.rev.val().replace_bit(32 - l, self.any_len.q.val().get_bit(l));
        }
        self.rev_low.next = self.rev.val() & (!self.rev.val() + 1);
        self.bl.next = 0.into();
        for l in 0..33 {
            self.bl.next = self.bl.val().replace_bit(l, self.rev_low.val().get_bit(32 - l));
        }
        self.best.d.next = self.bl.val();
        self.lpm_any.d.next = self.any_len.q.val().any();
        self.rhit3.d.next = self.rhit2.q.val();
        self.lp.next = 0.into();
        for i in 0..self.l2_w0.len() {
            if self.l2sel.q.val().get_bit(i) {
                self.lp.next = self.lp.val() | self.l2_w1[i].val().get_bits::<8>(L2_PORT);
            }
        }
        self.l2_any.d.next = self.l2sel.q.val().any();
        self.l2_port.d.next = self.lp.val();

        // ---- stage 4: the matching entries of the winning length ----
        self.rs.next = 0.into();
        for i in 0..self.route_w0.len() {
            if self.rhit3.q.val().get_bit(i) & (self.dec[i].q.val() & self.best.q.val()).any() {
                self.rs.next = self.rs.val().replace_bit(i, true);
            }
        }
        self.rs_q.d.next = self.rs.val();
        self.lpm_any4.d.next = self.lpm_any.q.val();
        self.l2_any4.d.next = self.l2_any.q.val();
        self.l2_port4.d.next = self.l2_port.q.val();

        // ---- stage 5: the lowest of them (one carry chain, a stage of its
        // own: issue 14); whether the L2 port exists ----
        self.lowest.next = self.rs_q.q.val() & (!self.rs_q.q.val() + 1);
        self.rsel.d.next = self.lowest.val();
        self.lpm_any4b.d.next = self.lpm_any4.q.val();
        self.l2_any4b.d.next = self.l2_any4.q.val();
        self.l2_port4b.d.next = self.l2_port4.q.val();
        self.l2_ok4b.d.next = self.l2_port4.q.val() < self.ports.val();

        // ---- stage 6: the entry's port and next hop, whether the port exists ----
        self.rp.next = 0.into();
        self.rn.next = 0.into();
        self.rok.next = false;
        for i in 0..self.route_w0.len() {
            self.pok[i].next = self.route_w1[i].val().get_bits::<8>(ROUTE_PORT) < self.ports.val();
            if self.rsel.q.val().get_bit(i) {
                self.rp.next = self.rp.val() | self.route_w1[i].val().get_bits::<8>(ROUTE_PORT);
                self.rn.next = self.rn.val() | self.route_w1[i].val().get_bits::<8>(ROUTE_NH);
                self.rok.next = self.rok.val() | self.pok[i].val();
            }
        }
        self.r_port.d.next = self.rp.val();
        self.r_ok.d.next = self.rok.val();
        self.r_nh.d.next = self.rn.val();
        self.lpm_any5.d.next = self.lpm_any4b.q.val();
        self.l2_any5.d.next = self.l2_any4b.q.val();
        self.l2_port5.d.next = self.l2_port4b.q.val();
        self.l2_ok5.d.next = self.l2_ok4b.q.val();

        // ---- stage 7: decision, next-hop MAC, counters ----
        self.nh_lo.next = 0.into();
        self.nh_hi.next = 0.into();
        for h in 0..self.nh_w0.len() {
            if self.r_nh.q.val().index() == h {
                self.nh_lo.next = self.nh_w0[h].val();
                self.nh_hi.next = self.nh_w1[h].val().get_bits::<16>(0);
            }
        }
        self.nh_mac.next = bit_cast::<48, 32>(self.nh_lo.val()) | (bit_cast::<48, 16>(self.nh_hi.val()) << 32);
        self.ok.next = !self.phv[5].q.val().get_bits::<4>(self.f_malformed.val().index()).any();
        // (A named signal: rust-hdl widens before it inverts, so `!ok` inside a
        // cast would set every bit above.)
        self.mal.next = !self.ok.val();
        self.cand.next = self.ok.val()
            & self.cls[5].q.val().get_bit(CLASS_ROUTER_HIT)
            & (self.phv[5].q.val().get_bits::<3>(self.f_l3.val().index()) == self.c_ipv4.val());
        self.drop.next = false;
        self.is_routed.next = false;
        self.port.next = self.miss_port.val().get_bits::<8>(0);
        // Whether the chosen port exists: each candidate's test is computed
        // ahead (the miss port's is a register's), so no compare follows the
        // choice (issue 14).
        self.miss_ok.next = self.miss_port.val().get_bits::<8>(0) < self.ports.val();
        self.port_ok.next = self.miss_ok.val();
        if !self.ok.val() & self.malformed_drop.val() {
            self.drop.next = true;
        } else if self.cand.val() {
            if self.lpm_any5.q.val() {
                self.is_routed.next = true;
                self.port.next = self.r_port.q.val();
                self.port_ok.next = self.r_ok.q.val();
            }
        } else if self.l2_any5.q.val() {
            self.port.next = self.l2_port5.q.val();
            self.port_ok.next = self.l2_ok5.q.val();
        }
        if !self.drop.val() & !self.port_ok.val() {
            self.drop.next = true;
        }
        self.meta.next = (bit_cast::<64, 8>(self.port.val()) << SH_DEST_PORT)
            | (bit_cast::<64, 3>(self.cls[5].q.val().get_bits::<3>(CLASS_TC)) << SH_TC)
            | (bit_cast::<64, 3>(self.cls[5].q.val().get_bits::<3>(CLASS_PRIO)) << SH_PRIO)
            | (bit_cast::<64, 1>(self.is_routed.val().into()) << SH_ROUTED)
            | (bit_cast::<64, 1>(self.mal.val().into()) << SH_MALFORMED);
        if self.is_routed.val() {
            self.meta.next = self.meta.val() | (bit_cast::<64, 8>(self.r_nh.q.val()) << SH_NEXTHOP);
        }
        self.res_q.d.next = bit_cast::<128, 64>(self.meta.val())
            | (bit_cast::<128, 48>(self.nh_mac.val()) << 64)
            | (bit_cast::<128, 1>(self.drop.val().into()) << 112);
        // The counters' events are registered and counted a cycle later, so
        // the decision does not fan out into seven 32-bit counters' enables
        // (issue 14). Bits: 0 malformed drop, 1 routed, 2 LPM miss, 3 L2 hit,
        // 4 L2 miss, 5 no-port drop, 6 out.
        self.ev.next = 0.into();
        if self.v[5].q.val() {
            if !self.ok.val() & self.malformed_drop.val() {
                self.ev.next = 1.into();
            } else {
                if self.cand.val() {
                    if self.lpm_any5.q.val() {
                        self.ev.next = 2.into();
                    } else {
                        self.ev.next = 4.into();
                    }
                } else if self.l2_any5.q.val() {
                    self.ev.next = 8.into();
                } else {
                    self.ev.next = 16.into();
                }
                if self.drop.val() {
                    self.ev.next = self.ev.val() | 32;
                } else {
                    self.ev.next = self.ev.val() | 64;
                }
            }
        }
        self.ev_q.d.next = self.ev.val();
        if self.ev_q.q.val().get_bit(0) {
            self.n_drop_mal.d.next = self.n_drop_mal.q.val() + 1;
        }
        if self.ev_q.q.val().get_bit(1) {
            self.n_routed.d.next = self.n_routed.q.val() + 1;
        }
        if self.ev_q.q.val().get_bit(2) {
            self.n_lpm_miss.d.next = self.n_lpm_miss.q.val() + 1;
        }
        if self.ev_q.q.val().get_bit(3) {
            self.n_l2_hit.d.next = self.n_l2_hit.q.val() + 1;
        }
        if self.ev_q.q.val().get_bit(4) {
            self.n_l2_miss.d.next = self.n_l2_miss.q.val() + 1;
        }
        if self.ev_q.q.val().get_bit(5) {
            self.n_drop_port.d.next = self.n_drop_port.q.val() + 1;
        }
        if self.ev_q.q.val().get_bit(6) {
            self.n_out.d.next = self.n_out.q.val() + 1;
        }
        if self.clr_routed.val() {
            self.n_routed.d.next = 0.into();
        }
        if self.clr_lpm_miss.val() {
            self.n_lpm_miss.d.next = 0.into();
        }
        if self.clr_l2_hit.val() {
            self.n_l2_hit.d.next = 0.into();
        }
        if self.clr_l2_miss.val() {
            self.n_l2_miss.d.next = 0.into();
        }
        if self.clr_drop_malformed.val() {
            self.n_drop_mal.d.next = 0.into();
        }
        if self.clr_drop_no_port.val() {
            self.n_drop_port.d.next = 0.into();
        }
        if self.clr_out_pkts.val() {
            self.n_out.d.next = 0.into();
        }
        self.m_valid.next = self.v[6].q.val();
        self.m_phv.next = self.phv[6].q.val();
        self.m_res.next = self.res_q.q.val();
        self.routed.next = self.n_routed.q.val();
        self.lpm_miss.next = self.n_lpm_miss.q.val();
        self.l2_hit.next = self.n_l2_hit.q.val();
        self.l2_miss.next = self.n_l2_miss.q.val();
        self.drop_malformed.next = self.n_drop_mal.q.val();
        self.drop_no_port.next = self.n_drop_port.q.val();
        self.out_pkts.next = self.n_out.q.val();
    }
}

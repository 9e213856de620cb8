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
//! is kept in registers (`lm`, an entry mask per length), recomputed from the
//! route registers only in the cycle after `route_wr` or `reset`: the length
//! decode is off the packet path in hardware, and the Verilated model does not
//! redo 33 x N length compares every cycle (issue 14). The masks are built from
//! the lengths bit-sliced (6 vectors of N bits, their 2-bit groups decoded,
//! three of those ANDed per length): vector operations, where 33 x N
//! single-bit updates made Verilator write one C++ function of 75 000 lines.
//! Each entry's compared prefix bits (`care`) and, per next hop, the entries
//! that name it (`hm`, so stage 7 selects the next-hop MAC by a registered
//! one-hot) are registers recomputed with them. A route write takes effect for PHVs entering from the second cycle
//! after its `wrote` pulse.
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
    /// Bit 112: drop the packet.
    pub const DROP: usize = 112;
    /// Bit 113: the drop is for `dest_port >= ports` (not a malformed
    /// packet's); the PL2 stage after lookup counts it, or forwards a
    /// granted RSV whatever lookup decided (`docs/pl2.md`).
    pub const NO_PORT: usize = 113;
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
///   The per-length masks and compared bits are recomputed the next cycle; without the pulse a
///   changed length is not seen.
/// - Counters out (32 bits, wrap) with `clr_*` inputs: `routed`, `lpm_miss`,
///   `l2_hit`, `l2_miss`, `drop_malformed`. A packet is counted one cycle
///   after its result leaves (`m_valid`). Whether a packet leaves or is
///   dropped for want of a port is counted after the PL2 stage
///   ([`crate::pl2::stage`]), which may still turn a dropped RSV into a GRT.
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
    pub clr_routed: Signal<In, Bit>,
    pub clr_lpm_miss: Signal<In, Bit>,
    pub clr_l2_hit: Signal<In, Bit>,
    pub clr_l2_miss: Signal<In, Bit>,
    pub clr_drop_malformed: Signal<In, Bit>,
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
    /// Recompute `lm` this cycle (after `route_wr` or `reset`).
    upd: DFF<Bit>,
    /// Per length `l` (0..=32): bit `i` says route entry `i` has length `l`
    /// (lengths above 32 count as 32).
    lm: Vec<DFF<Bits<256>>>,
    /// Per route entry: the prefix bits its length compares (`!(!0 >> len)`),
    /// recomputed with `lm`: stage 1 reads a register, not a shifter.
    care: Vec<DFF<Bits<32>>>,
    /// Per next hop `h`: the route entries whose next hop is `h`,
    /// recomputed with `lm` and built the same way (`nsl`, `ndq`).
    hm: Vec<DFF<Bits<256>>>,
    nh8: Vec<Signal<Local, Bits<8>>>,
    nsl: Vec<Signal<Local, Bits<256>>>,
    ndq: Vec<Signal<Local, Bits<256>>>,
    /// While `upd`: bit `i` of `sl[k]` is bit `k` of entry `i`'s length.
    sl: Vec<Signal<Local, Bits<256>>>,
    /// While `upd`: bit `i` of `dq[4 g + v]` says bits `2g+1:2g` of entry
    /// `i`'s length equal `v`.
    dq: Vec<Signal<Local, Bits<256>>>,
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
    /// The winning entry's next hop, one-hot (zero if it is not in the
    /// table): stage 7 selects the MAC with an AND-OR, not a multiplexer
    /// behind a decoder (issue 14).
    r_nhoh: DFF<Bits<256>>,
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
    /// The counters' events of the last decision (one-hot groups, see `update`).
    ev_q: DffR<Bits<5>>,
    // Combinational.
    dst: Signal<Local, Bits<32>>,
    rh: Signal<Local, Bits<256>>,
    lh: Signal<Local, Bits<256>>,
    al: Signal<Local, Bits<33>>,
    len_hit: Vec<Signal<Local, Bit>>,
    bl: Signal<Local, Bits<33>>,
    rev: Signal<Local, Bits<33>>,
    rev_low: Signal<Local, Bits<33>>,
    rs: Signal<Local, Bits<256>>,
    lowest: Signal<Local, Bits<256>>,
    l2lowest: Signal<Local, Bits<256>>,
    lp: Signal<Local, Bits<8>>,
    rp: Signal<Local, Bits<8>>,
    rn: Signal<Local, Bits<8>>,
    rnoh: Signal<Local, Bits<256>>,
    /// Per route entry: its port exists (a function of its register alone).
    pok: Vec<Signal<Local, Bit>>,
    /// Per route entry: its length field, and whether it is above 32.
    len6: Vec<Signal<Local, Bits<6>>>,
    long: Vec<Signal<Local, Bit>>,
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
    no_port: Signal<Local, Bit>,
    is_routed: Signal<Local, Bit>,
    meta: Signal<Local, Bits<64>>,
    ev: Signal<Local, Bits<5>>,
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
            clr_routed: Default::default(),
            clr_lpm_miss: Default::default(),
            clr_l2_hit: Default::default(),
            clr_l2_miss: Default::default(),
            clr_drop_malformed: Default::default(),
            ports: Constant::new((ports as u64).to_bits()),
            all32: Constant::new(0xFFFF_FFFFu64.to_bits()),
            f_dst_mac: c16(field::DST_MAC),
            f_ipv4_dst: c16(field::IPV4_DST),
            f_l3: c16(field::L3),
            f_malformed: c16(field::MALFORMED),
            c_ipv4: Constant::new((l3::IPV4 as u64).to_bits()),
            upd: Default::default(),
            lm: vec_of(33),
            care: vec_of(routes),
            hm: vec_of(nexthops),
            nh8: vec_of(routes),
            nsl: vec_of(8),
            ndq: vec_of(16),
            sl: vec_of(6),
            dq: vec_of(12),
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
            r_nhoh: Default::default(),
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
            ev_q: Default::default(),
            dst: Default::default(),
            rh: Default::default(),
            lh: Default::default(),
            al: Default::default(),
            len_hit: vec_of(33),
            bl: Default::default(),
            rev: Default::default(),
            rev_low: Default::default(),
            rs: Default::default(),
            lowest: Default::default(),
            l2lowest: Default::default(),
            lp: Default::default(),
            rp: Default::default(),
            rn: Default::default(),
            rnoh: Default::default(),
            pok: vec_of(routes),
            len6: vec_of(routes),
            long: vec_of(routes),
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
            no_port: Default::default(),
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
            self, clock, upd, rhit, l2hit, any_len, rhit2, l2sel, best, lpm_any, rhit3, l2_any, l2_port, rs_q, lpm_any4, l2_any4, l2_port4,
            rsel, lpm_any4b, l2_any4b, l2_port4b, l2_ok4b, r_port, r_ok, r_nh, r_nhoh, lpm_any5, l2_any5, l2_port5, l2_ok5, res_q,
            n_routed, n_lpm_miss, n_l2_hit, n_l2_miss, n_drop_mal, ev_q
        );
        self.n_routed.reset.next = self.reset.val();
        self.n_lpm_miss.reset.next = self.reset.val();
        self.n_l2_hit.reset.next = self.reset.val();
        self.n_l2_miss.reset.next = self.reset.val();
        self.n_drop_mal.reset.next = self.reset.val();
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
            if self.route_w1[i].val().get_bit(ROUTE_VALID) & !((self.dst.val() ^ self.route_w0[i].val()) & self.care[i].q.val()).any() {
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

        // ---- the per-length entry masks, after a route write or reset ----
        // Lengths above 32 act as 32 (`long`: bit 5 and any bit below, LUTs
        // rather than a compare's carry chain).
        for i in 0..self.route_w0.len() {
            self.len6[i].next = self.route_w1[i].val().get_bits::<6>(ROUTE_LEN);
            self.long[i].next = self.len6[i].val().get_bit(5) & self.len6[i].val().get_bits::<5>(0).any();
        }
        self.upd.d.next = self.reset.val() | self.route_wr.val();
        for l in 0..self.lm.len() {
            self.lm[l].clock.next = self.clock.val();
            self.lm[l].d.next = self.lm[l].q.val();
        }
        for k in 0..self.sl.len() {
            self.sl[k].next = 0.into();
        }
        for j in 0..self.dq.len() {
            self.dq[j].next = 0.into();
        }
        for i in 0..self.care.len() {
            self.care[i].clock.next = self.clock.val();
            self.care[i].d.next = self.care[i].q.val();
            self.nh8[i].next = self.route_w1[i].val().get_bits::<8>(ROUTE_NH);
        }
        for h in 0..self.hm.len() {
            self.hm[h].clock.next = self.clock.val();
            self.hm[h].d.next = self.hm[h].q.val();
        }
        for k in 0..self.nsl.len() {
            self.nsl[k].next = 0.into();
        }
        for j in 0..self.ndq.len() {
            self.ndq[j].next = 0.into();
        }
        if self.upd.q.val() {
            for i in 0..self.care.len() {
                self.care[i].d.next = !(self.all32.val() >> self.len6[i].val());
            }
            for i in 0..self.route_w0.len() {
                for k in 0..6 {
                    self.sl[k].next = self.sl[k].val().replace_bit(i, self.len6[i].val().get_bit(k));
                }
            }
            for g in 0..3 {
                self.dq[4 * g].next = !self.sl[2 * g].val() & !self.sl[2 * g + 1].val();
                self.dq[4 * g + 1].next = self.sl[2 * g].val() & !self.sl[2 * g + 1].val();
                self.dq[4 * g + 2].next = !self.sl[2 * g].val() & self.sl[2 * g + 1].val();
                self.dq[4 * g + 3].next = self.sl[2 * g].val() & self.sl[2 * g + 1].val();
            }
            // Length `l` below 32: its three 2-bit groups (bit 5 clear).
            for l in 0..32 {
                self.lm[l].d.next = self.dq[l % 4].val() & self.dq[4 + (l / 4) % 4].val() & self.dq[8 + l / 16].val();
            }
            self.lm[32].d.next = self.sl[5].val();
            for i in 0..self.route_w0.len() {
                for k in 0..8 {
                    self.nsl[k].next = self.nsl[k].val().replace_bit(i, self.nh8[i].val().get_bit(k));
                }
            }
            for g in 0..4 {
                self.ndq[4 * g].next = !self.nsl[2 * g].val() & !self.nsl[2 * g + 1].val();
                self.ndq[4 * g + 1].next = self.nsl[2 * g].val() & !self.nsl[2 * g + 1].val();
                self.ndq[4 * g + 2].next = !self.nsl[2 * g].val() & self.nsl[2 * g + 1].val();
                self.ndq[4 * g + 3].next = self.nsl[2 * g].val() & self.nsl[2 * g + 1].val();
            }
            for h in 0..self.hm.len() {
                self.hm[h].d.next = self.ndq[h % 4].val()
                    & self.ndq[4 + (h / 4) % 4].val()
                    & self.ndq[8 + (h / 16) % 4].val()
                    & self.ndq[12 + h / 64].val();
            }
        }

        // ---- stage 2: which lengths match; lowest L2 match ----
        // One AND-OR per length over the entries (independent signals: a
        // single vector updated entry by entry would chain 33 x N muxes).
        for l in 0..self.len_hit.len() {
            self.len_hit[l].next = (self.rhit.q.val() & self.lm[l].q.val()).any();
        }
        self.al.next = 0.into();
        for l in 0..self.len_hit.len() {
            self.al.next = self.al.val().replace_bit(l, self.len_hit[l].val());
        }
        self.any_len.d.next = self.al.val();
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
            if self.rhit3.q.val().get_bit(i) {
                if self.long[i].val() {
                    if self.best.q.val().get_bit(32) {
                        self.rs.next = self.rs.val().replace_bit(i, true);
                    }
                } else if self.best.q.val().get_bit(self.len6[i].val().index()) {
                    self.rs.next = self.rs.val().replace_bit(i, true);
                }
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
        self.rnoh.next = 0.into();
        for h in 0..self.hm.len() {
            self.rnoh.next = self.rnoh.val().replace_bit(h, (self.rsel.q.val() & self.hm[h].q.val()).any());
        }
        self.r_nhoh.d.next = self.rnoh.val();
        self.lpm_any5.d.next = self.lpm_any4b.q.val();
        self.l2_any5.d.next = self.l2_any4b.q.val();
        self.l2_port5.d.next = self.l2_port4b.q.val();
        self.l2_ok5.d.next = self.l2_ok4b.q.val();

        // ---- stage 7: decision, next-hop MAC, counters ----
        self.nh_lo.next = 0.into();
        self.nh_hi.next = 0.into();
        for h in 0..self.nh_w0.len() {
            if self.r_nhoh.q.val().get_bit(h) {
                self.nh_lo.next = self.nh_lo.val() | self.nh_w0[h].val();
                self.nh_hi.next = self.nh_hi.val() | self.nh_w1[h].val().get_bits::<16>(0);
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
        self.no_port.next = false;
        if !self.drop.val() & !self.port_ok.val() {
            self.drop.next = true;
            self.no_port.next = true;
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
            | (bit_cast::<128, 1>(self.drop.val().into()) << 112)
            | (bit_cast::<128, 1>(self.no_port.val().into()) << 113);
        // The counters' events are registered and counted a cycle later, so
        // the decision does not fan out into seven 32-bit counters' enables
        // (issue 14). Bits: 0 malformed drop, 1 routed, 2 LPM miss, 3 L2 hit,
        // 4 L2 miss.
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
        self.m_valid.next = self.v[6].q.val();
        self.m_phv.next = self.phv[6].q.val();
        self.m_res.next = self.res_q.q.val();
        self.routed.next = self.n_routed.q.val();
        self.lpm_miss.next = self.n_lpm_miss.q.val();
        self.l2_hit.next = self.n_l2_hit.q.val();
        self.l2_miss.next = self.n_l2_miss.q.val();
        self.drop_malformed.next = self.n_drop_mal.q.val();
    }
}

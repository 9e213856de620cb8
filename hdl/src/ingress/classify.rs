//! `ts_classify`: traffic class, queue priority, trim eligibility, NDP data and
//! router-MAC hit of every packet, from its PHV and run-time registers
//! (`docs/ingress.md`, "classify"; seeds 000/001 for NDP, 002 for the DSCP
//! codepoints of Ultra Ethernet trimming). Golden model:
//! `sim/src/model/classify.rs`.
//!
//! A PHV-side stage: it works on the PHV stream that runs beside the packet
//! buffer (one PHV per `s_valid` pulse, one per cycle at most, fixed latency
//! one cycle, no backpressure), like a match-action stage of a switch ASIC.
use crate::ingress::phv::{field, l3, l4, PHV_BITS};
use crate::prim::widgets::DffR;
use class::{CLASS_NDP_DATA, CLASS_PRIO, CLASS_ROUTER_HIT, CLASS_TRIM_OK};
use reg::{DSCP_CONTROL, DSCP_EN, DSCP_TRIMMABLE, DSCP_TRIMMED, TC_DEFAULT};
use rust_hdl::prelude::*;

/// Bits of `m_class`.
pub mod class {
    crate::gen::unroll::named_indices! {
        /// `tc` in bits 2:0, then `prio`, `trim_ok` and `ndp_data` (in the
        /// order of their `tuser` bits from [`crate::meta::PRIO_BIT`] on), and
        /// whether the destination MAC is the router's.
        CLASS_TC = 0;
        CLASS_PRIO = 3;
        CLASS_TRIM_OK = 4;
        CLASS_NDP_DATA = 5;
        CLASS_ROUTER_HIT = 6;
    }
    const _: () = assert!(CLASS_TC == 0, "classify packs tc at bit 0");
}

/// Register word layouts of the classify registers.
pub mod reg {
    crate::gen::unroll::named_indices! {
        /// `DSCP`: the TRIMMABLE, TRIMMED and CONTROL codepoints (6 bits
        /// each), each with its enable bit `DSCP_EN` above the field's start.
        DSCP_TRIMMABLE = 0;
        DSCP_TRIMMED = 8;
        DSCP_CONTROL = 16;
        DSCP_EN = 7;
        /// `TC`: the traffic class of PCP `p` in bits 3p+2:3p, the default
        /// class (untagged frames) here.
        TC_DEFAULT = 24;
    }
    /// The `DSCP` word.
    pub fn dscp(trimmable: Option<u8>, trimmed: Option<u8>, control: Option<u8>) -> u32 {
        let f = |x: Option<u8>| x.map_or(0, |v| 1 << DSCP_EN | (v as u32 & 0x3f));
        f(trimmable) << DSCP_TRIMMABLE | f(trimmed) << DSCP_TRIMMED | f(control) << DSCP_CONTROL
    }
    /// The `TC` word.
    pub fn tc(pcp_tc: &[u8; 8], default_tc: u8) -> u32 {
        pcp_tc.iter().enumerate().fold(0, |w, (p, t)| w | (*t as u32 & 7) << (3 * p)) | (default_tc as u32 & 7) << TC_DEFAULT
    }
}

/// The classify stage.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (drops the PHV in flight, zeroes the counters).
/// - `s_valid`, `s_phv` in: one PHV.
/// - `m_valid`, `m_phv`, `m_class` out (registered, one cycle later): the PHV
///   and its class: `tc` \[2:0\], `prio` \[3\], `trim_ok` \[4\], `ndp_data` \[5\],
///   `router_hit` \[6\].
/// - `router_mac_lo`, `router_mac_hi` in: the router MAC (bits 31:0, 47:32).
/// - `dscp` in: codepoints ([`reg::dscp`]); `tc` in: PCP map ([`reg::tc`]).
/// - `prio_pkts`, `trim_ok_pkts`, `router_hit_pkts` out (32 bits, wrap) with
///   `clr_*` inputs: they count the registered class, so a PHV shows in them
///   a cycle after it leaves (a clear in that cycle wins).
#[derive(LogicBlock)]
pub struct Classify {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_phv: Signal<In, Bits<PHV_BITS>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_phv: Signal<Out, Bits<PHV_BITS>>,
    pub m_class: Signal<Out, Bits<8>>,
    pub router_mac_lo: Signal<In, Bits<32>>,
    pub router_mac_hi: Signal<In, Bits<32>>,
    pub dscp: Signal<In, Bits<32>>,
    pub tc: Signal<In, Bits<32>>,
    pub prio_pkts: Signal<Out, Bits<32>>,
    pub trim_ok_pkts: Signal<Out, Bits<32>>,
    pub router_hit_pkts: Signal<Out, Bits<32>>,
    pub clr_prio_pkts: Signal<In, Bit>,
    pub clr_trim_ok_pkts: Signal<In, Bit>,
    pub clr_router_hit_pkts: Signal<In, Bit>,
    f_dst_mac: Constant<Bits<16>>,
    f_vlans: Constant<Bits<16>>,
    f_pcp: Constant<Bits<16>>,
    f_l3: Constant<Bits<16>>,
    f_dscp: Constant<Bits<16>>,
    f_l4: Constant<Bits<16>>,
    f_ndp_flags: Constant<Bits<16>>,
    f_malformed: Constant<Bits<16>>,
    tc_shift: Vec<Constant<Bits<8>>>,
    c_ipv4: Constant<Bits<3>>,
    c_ipv6: Constant<Bits<3>>,
    c_pl2: Constant<Bits<3>>,
    c_pctl: Constant<Bits<3>>,
    c_ndp: Constant<Bits<2>>,
    valid: DffR<Bit>,
    phv_q: DFF<Bits<PHV_BITS>>,
    class_q: DFF<Bits<8>>,
    n_prio: DffR<Bits<32>>,
    n_trim: DffR<Bits<32>>,
    n_hit: DffR<Bits<32>>,
    ok: Signal<Local, Bit>,
    ip: Signal<Local, Bit>,
    dscp_v: Signal<Local, Bits<6>>,
    pcp: Signal<Local, Bits<3>>,
    l3v: Signal<Local, Bits<3>>,
    ndp: Signal<Local, Bit>,
    data: Signal<Local, Bit>,
    trimmed: Signal<Local, Bit>,
    ndp_data: Signal<Local, Bit>,
    is_trimmable: Signal<Local, Bit>,
    is_trimmed: Signal<Local, Bit>,
    is_control: Signal<Local, Bit>,
    tcv: Signal<Local, Bits<3>>,
    prio: Signal<Local, Bit>,
    trim_ok: Signal<Local, Bit>,
    hit: Signal<Local, Bit>,
    cls: Signal<Local, Bits<8>>,
}

impl Default for Classify {
    fn default() -> Self {
        let c16 = |f: (usize, usize)| Constant::new((f.0 as u64).to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_phv: Default::default(),
            m_valid: Default::default(),
            m_phv: Default::default(),
            m_class: Default::default(),
            router_mac_lo: Default::default(),
            router_mac_hi: Default::default(),
            dscp: Default::default(),
            tc: Default::default(),
            prio_pkts: Default::default(),
            trim_ok_pkts: Default::default(),
            router_hit_pkts: Default::default(),
            clr_prio_pkts: Default::default(),
            clr_trim_ok_pkts: Default::default(),
            clr_router_hit_pkts: Default::default(),
            f_dst_mac: c16(field::DST_MAC),
            f_vlans: c16(field::VLANS),
            f_pcp: c16(field::PCP),
            f_l3: c16(field::L3),
            f_dscp: c16(field::DSCP),
            f_l4: c16(field::L4),
            f_ndp_flags: c16(field::NDP_FLAGS),
            f_malformed: c16(field::MALFORMED),
            tc_shift: (0..8).map(|p| Constant::new(((3 * p) as u64).to_bits())).collect(),
            c_ipv4: Constant::new((l3::IPV4 as u64).to_bits()),
            c_ipv6: Constant::new((l3::IPV6 as u64).to_bits()),
            c_pl2: Constant::new((l3::PL2 as u64).to_bits()),
            c_pctl: Constant::new((l3::PROTEGO_CTL as u64).to_bits()),
            c_ndp: Constant::new((l4::NDP as u64).to_bits()),
            valid: Default::default(),
            phv_q: Default::default(),
            class_q: Default::default(),
            n_prio: Default::default(),
            n_trim: Default::default(),
            n_hit: Default::default(),
            ok: Default::default(),
            ip: Default::default(),
            dscp_v: Default::default(),
            pcp: Default::default(),
            l3v: Default::default(),
            ndp: Default::default(),
            data: Default::default(),
            trimmed: Default::default(),
            ndp_data: Default::default(),
            is_trimmable: Default::default(),
            is_trimmed: Default::default(),
            is_control: Default::default(),
            tcv: Default::default(),
            prio: Default::default(),
            trim_ok: Default::default(),
            hit: Default::default(),
            cls: Default::default(),
        }
    }
}

impl Logic for Classify {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, phv_q, class_q, n_prio, n_trim, n_hit);
        self.valid.reset.next = self.reset.val();
        self.n_prio.reset.next = self.reset.val();
        self.n_trim.reset.next = self.reset.val();
        self.n_hit.reset.next = self.reset.val();
        self.ok.next = !self.s_phv.val().get_bits::<4>(self.f_malformed.val().index()).any();
        self.l3v.next = self.s_phv.val().get_bits::<3>(self.f_l3.val().index());
        self.ip.next = self.ok.val() & ((self.l3v.val() == self.c_ipv4.val()) | (self.l3v.val() == self.c_ipv6.val()));
        self.dscp_v.next = self.s_phv.val().get_bits::<6>(self.f_dscp.val().index());
        self.is_trimmable.next = self.ip.val()
            & self.dscp.val().get_bit(DSCP_TRIMMABLE + DSCP_EN)
            & (self.dscp_v.val() == self.dscp.val().get_bits::<6>(DSCP_TRIMMABLE));
        self.is_trimmed.next = self.ip.val()
            & self.dscp.val().get_bit(DSCP_TRIMMED + DSCP_EN)
            & (self.dscp_v.val() == self.dscp.val().get_bits::<6>(DSCP_TRIMMED));
        self.is_control.next = self.ip.val()
            & self.dscp.val().get_bit(DSCP_CONTROL + DSCP_EN)
            & (self.dscp_v.val() == self.dscp.val().get_bits::<6>(DSCP_CONTROL));
        self.ndp.next = self.s_phv.val().get_bits::<2>(self.f_l4.val().index()) == self.c_ndp.val();
        self.data.next = self.s_phv.val().get_bit(self.f_ndp_flags.val().index());
        self.trimmed.next = self.s_phv.val().get_bit(self.f_ndp_flags.val().index() + 4);
        self.ndp_data.next = self.ndp.val() & self.data.val() & !self.trimmed.val();
        self.prio.next = (self.ndp.val() & (!self.data.val() | self.trimmed.val()))
            | self.is_control.val()
            | self.is_trimmed.val()
            | (self.ok.val() & ((self.l3v.val() == self.c_pl2.val()) | (self.l3v.val() == self.c_pctl.val())));
        self.trim_ok.next = self.ndp_data.val() | (!self.ndp.val() & self.is_trimmable.val());
        self.pcp.next = self.s_phv.val().get_bits::<3>(self.f_pcp.val().index());
        self.tcv.next = self.tc.val().get_bits::<3>(TC_DEFAULT);
        if self.s_phv.val().get_bits::<2>(self.f_vlans.val().index()).any() {
            for p in 0..self.tc_shift.len() {
                if self.pcp.val().index() == p {
                    self.tcv.next = self.tc.val().get_bits::<3>(self.tc_shift[p].val().index());
                }
            }
        }
        self.hit.next = (self.s_phv.val().get_bits::<32>(self.f_dst_mac.val().index()) == self.router_mac_lo.val())
            & (self.s_phv.val().get_bits::<16>(self.f_dst_mac.val().index() + 32) == self.router_mac_hi.val().get_bits::<16>(0));
        // tc at CLASS_TC = 0, then one bit each.
        self.cls.next = bit_cast::<8, 3>(self.tcv.val());
        self.cls.next = self.cls.val().replace_bit(CLASS_PRIO, self.prio.val());
        self.cls.next = self.cls.val().replace_bit(CLASS_TRIM_OK, self.trim_ok.val());
        self.cls.next = self.cls.val().replace_bit(CLASS_NDP_DATA, self.ndp_data.val());
        self.cls.next = self.cls.val().replace_bit(CLASS_ROUTER_HIT, self.hit.val());
        self.valid.d.next = self.s_valid.val();
        self.phv_q.d.next = self.s_phv.val();
        self.class_q.d.next = self.cls.val();
        // The counters count the registered class a cycle later (issue 14:
        // the classification logic ends in `class_q`, not in an adder).
        if self.valid.q.val() {
            self.n_prio.d.next = self.n_prio.q.val() + bit_cast::<32, 1>(self.class_q.q.val().get_bit(CLASS_PRIO).into());
            self.n_trim.d.next = self.n_trim.q.val() + bit_cast::<32, 1>(self.class_q.q.val().get_bit(CLASS_TRIM_OK).into());
            self.n_hit.d.next = self.n_hit.q.val() + bit_cast::<32, 1>(self.class_q.q.val().get_bit(CLASS_ROUTER_HIT).into());
        }
        if self.clr_prio_pkts.val() {
            self.n_prio.d.next = 0.into();
        }
        if self.clr_trim_ok_pkts.val() {
            self.n_trim.d.next = 0.into();
        }
        if self.clr_router_hit_pkts.val() {
            self.n_hit.d.next = 0.into();
        }
        self.m_valid.next = self.valid.q.val();
        self.m_phv.next = self.phv_q.q.val();
        self.m_class.next = self.class_q.q.val();
        self.prio_pkts.next = self.n_prio.q.val();
        self.trim_ok_pkts.next = self.n_trim.q.val();
        self.router_hit_pkts.next = self.n_hit.q.val();
    }
}

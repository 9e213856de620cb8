//! `IngressApply`: the last stage of the ingress pipeline. It applies the match
//! result that comes with each packet from the parser (`m_res`, see
//! [`crate::ingress::lookup::res`]): drops the packet, or writes the decided fields into
//! `tuser` and, for a routed packet, rewrites the destination MAC to the next
//! hop's (`docs/ingress.md`, "lookup"), and for a GRT the PL2 stage made
//! ([`crate::pl2::stage`]) writes its `kind`, `demand` and slot fields
//! into the message ([`GrtLanes`]). The source MAC stays as it arrived
//! until the egress rewrite ([`crate::egress::rewrite`]) writes the router's, so a
//! packet returned to its sender can be addressed to it.
//! The input is registered ([`AxisPipe`]: the packet with its PHV and match
//! result beside it), so the rewrite starts from flip-flops (issue 14: the
//! parser's PHV queue read -> the rewrite -> the output slice was
//! `ts_switch`'s path on the Versa, session 55); one cycle of latency. The
//! output is registered (two [`AxisSkid`] slices in lockstep: the packet,
//! and the PHV beside it).
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::skid::{AxisPipe, AxisSkid};
use crate::egress::rewrite::lanes_of;
use crate::ingress::lookup::res;
use crate::ingress::parser::code::{PHV_L3_IPV4, PHV_L3_IPV6};
use crate::ingress::phv::field::{PHV_IHL_LSB, PHV_L3_LSB, PHV_L3_OFF_LSB, PHV_L4_LSB, PHV_L4_OFF_LSB};
use crate::ingress::phv::{l3, PHV_BITS};
use crate::meta::info::{INFO_IHL_SHIFT, INFO_L3_OFF_SHIFT, INFO_L4_OFF_SHIFT, INFO_L4_SHIFT, INFO_SHIFT};
use crate::meta::l3kind;
use crate::meta::shift::{SH_T_IN_HI, SH_T_IN_LO};
use crate::meta::{
    DEST_PORT_LSB, GRT_BIT, IHL_LSB, INGRESS_BITS, L3_OFF_LSB, L4_LSB, L4_OFF_LSB, ROUTED_BIT, TC_LSB, T_IN_BITS, T_IN_LSB, WIDE_BITS,
};
use crate::pl2::grt::GrtLanes;
use crate::pl2::stage::grt::GRT;
use crate::prim::widgets::{DffR, KeepExpand, MacLanes};
use rust_hdl::prelude::*;

/// Bits of the input stage's sideband: the PHV and the 128-bit match result.
const IN_SIDE: usize = 384;
const _: () = assert!(IN_SIDE == PHV_BITS + 128);

/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset.
/// - `s_tdata` … `s_tready`, `s_phv`, `s_res` in: packets from the parser
///   with their PHV and match result (valid with every beat).
/// - `m_tdata` … `m_tready`, `m_phv` out: surviving packets, `tuser` with the
///   ingress fields of [`crate::meta`], destination MAC rewritten when routed.
#[derive(LogicBlock)]
pub struct IngressApply<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub s_phv: Signal<In, Bits<PHV_BITS>>,
    pub s_res: Signal<In, Bits<128>>,
    pub m: AxisSource<D, K, U>,
    pub m_phv: Signal<Out, Bits<PHV_BITS>>,
    user_keep: Constant<Bits<U>>,
    wide: Constant<Bit>,
    l3c: Signal<Local, Bits<2>>,
    info: Signal<Local, Bits<32>>,
    user: Signal<Local, Bits<U>>,
    stamp: Constant<Bit>,
    t_in: Signal<Local, Bits<16>>,
    grt_flag: Constant<Bits<U>>,
    mask0: Constant<Bits<K>>,
    routed_bit: Constant<Bits<16>>,
    drop_bit: Constant<Bits<16>>,
    dmac_lsb: Constant<Bits<16>>,
    /// The input stage, and the PHV and match result out of it.
    inp: AxisPipe<D, K, U, IN_SIDE>,
    phv: Signal<Local, Bits<PHV_BITS>>,
    res: Signal<Local, Bits<128>>,
    /// Where the match result sits in the input stage's sideband.
    res_lsb: Constant<Bits<16>>,
    out: AxisSkid<D, K, U>,
    side: AxisSkid<PHV_BITS, 32, 8>,
    exp0: KeepExpand<K, D>,
    /// 0 at a packet's first beat, else 1.
    bidx: DffR<Bits<1>>,
    drop: Signal<Local, Bit>,
    routed: Signal<Local, Bit>,
    dmac: Signal<Local, Bits<48>>,
    rv: Signal<Local, Bits<48>>,
    swap: MacLanes,
    data: Signal<Local, Bits<D>>,
    xfer: Signal<Local, Bit>,
    /// Beat index within the packet, saturating at 7 (for [`GrtLanes`]).
    beat: DffR<Bits<3>>,
    grt_bit: Constant<Bits<16>>,
    f_vlans: Constant<Bits<16>>,
    f_demand: Constant<Bits<16>>,
    f_send: Constant<Bits<16>>,
    f_recv: Constant<Bits<16>>,
    grt: Signal<Local, Bit>,
    lanes: GrtLanes<K, D>,
    exp1: KeepExpand<K, D>,
}

impl<const D: usize, const K: usize, const U: usize> Default for IngressApply<D, K, U> {
    fn default() -> Self {
        assert!(K * 8 == D && K >= 8 && U >= INGRESS_BITS);
        // tuser bits this stage writes: dest_port, bits 40..56 and, with a wide
        // tuser, the header-location fields 56..78 (from the PHV).
        let wide = U >= WIDE_BITS;
        let top = if wide { WIDE_BITS } else { INGRESS_BITS };
        // The PHV's IPv4/IPv6 codes are the tuser's; the widths match.
        const { assert!(l3::IPV4 == l3kind::IPV4 && l3::IPV6 == l3kind::IPV6) };
        use crate::ingress::phv::field;
        assert_eq!(
            (field::L3_OFF.1, field::IHL.1, field::L4.1, field::L4_OFF.1),
            (L4_OFF_LSB - L3_OFF_LSB, 4, L3_OFF_LSB - L4_LSB, IHL_LSB - L4_OFF_LSB)
        );
        let mut keep = Bits::<U>::mask();
        // `t_in` (rx's stamp) leaves only on a GRT, and then in the traffic
        // manager's bits for it (`crate::meta`, `t_in`).
        let stamp = U >= T_IN_LSB + T_IN_BITS;
        let t_in = if stamp { T_IN_LSB..T_IN_LSB + T_IN_BITS } else { 0..0 };
        for b in (DEST_PORT_LSB..DEST_PORT_LSB + 8).chain(TC_LSB..top).chain(t_in) {
            keep = keep.replace_bit(b, false);
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            s_phv: Default::default(),
            s_res: Default::default(),
            m: Default::default(),
            m_phv: Default::default(),
            user_keep: Constant::new(keep),
            wide: Constant::new(wide),
            l3c: Default::default(),
            info: Default::default(),
            user: Default::default(),
            stamp: Constant::new(stamp),
            t_in: Default::default(),
            grt_flag: Constant::new(Bits::<U>::default().replace_bit(GRT_BIT, true)),
            // Bytes 0..6 of the frame (the destination MAC), all in the first
            // beat (K >= 8).
            mask0: Constant::new(lanes_of::<K>(0, 0, 6)),
            routed_bit: Constant::new((ROUTED_BIT as u64).to_bits()),
            drop_bit: Constant::new((res::DROP as u64).to_bits()),
            dmac_lsb: Constant::new((res::DMAC as u64).to_bits()),
            inp: AxisPipe::with_side(),
            phv: Default::default(),
            res: Default::default(),
            res_lsb: Constant::new((PHV_BITS as u64).to_bits()),
            // Eager slices (issue 14): their data registers load whenever
            // they may, so the enables of the packet's and the PHV's
            // registers (hundreds each) do not wait for `s_tvalid`, which
            // comes from the input stage through the drop decision.
            out: AxisSkid::eager(),
            side: AxisSkid::eager(),
            exp0: Default::default(),
            bidx: Default::default(),
            drop: Default::default(),
            routed: Default::default(),
            dmac: Default::default(),
            rv: Default::default(),
            swap: Default::default(),
            data: Default::default(),
            xfer: Default::default(),
            beat: Default::default(),
            grt_bit: Constant::new((GRT as u64).to_bits()),
            f_vlans: Constant::new((field::VLANS.0 as u64).to_bits()),
            f_demand: Constant::new((field::PL2_DEMAND.0 as u64).to_bits()),
            f_send: Constant::new((field::PL2_SEND.0 as u64).to_bits()),
            f_recv: Constant::new((field::PL2_RECV.0 as u64).to_bits()),
            grt: Default::default(),
            lanes: Default::default(),
            exp1: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for IngressApply<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bidx, beat);
        self.bidx.reset.next = self.reset.val();
        self.beat.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();
        self.side.clock.next = self.clock.val();
        self.side.reset.next = self.reset.val();
        // The input stage: the packet with its PHV and match result.
        self.inp.clock.next = self.clock.val();
        self.inp.reset.next = self.reset.val();
        AxisSink::<D, K, U>::link(&mut self.s, &mut self.inp.s);
        self.inp.s_side[0].next =
            bit_cast::<IN_SIDE, PHV_BITS>(self.s_phv.val()) | (bit_cast::<IN_SIDE, 128>(self.s_res.val()) << self.res_lsb.val());
        self.phv.next = self.inp.m_side[0].val().get_bits::<PHV_BITS>(0);
        self.res.next = self.inp.m_side[0].val().get_bits::<128>(self.res_lsb.val().index());
        self.drop.next = self.res.val().get_bit(self.drop_bit.val().index());
        self.routed.next = self.res.val().get_bit(self.routed_bit.val().index());
        // Bytes 0..6 as they should read when routed: the next-hop MAC (MAC
        // values hold the first byte on the wire in bits 47:40).
        self.dmac.next = self.res.val().get_bits::<48>(self.dmac_lsb.val().index());
        self.swap.mac.next = self.dmac.val();
        self.rv.next = self.swap.lanes.val();
        self.exp0.keep.next = self.mask0.val();
        self.data.next = self.inp.m.tdata.val();
        if self.routed.val() & (self.bidx.q.val() == 0) {
            self.data.next = (self.inp.m.tdata.val() & !self.exp0.mask.val()) | (bit_cast::<D, 48>(self.rv.val()) & self.exp0.mask.val());
        }
        // A GRT's fields (the PHV carries them, valid with every beat).
        self.grt.next = self.res.val().get_bit(self.grt_bit.val().index());
        self.lanes.beat.next = self.beat.q.val();
        self.lanes.vlans.next = self.phv.val().get_bits::<2>(self.f_vlans.val().index());
        self.lanes.demand.next = self.phv.val().get_bits::<8>(self.f_demand.val().index());
        self.lanes.send.next = self.phv.val().get_bits::<32>(self.f_send.val().index());
        self.lanes.recv.next = self.phv.val().get_bits::<32>(self.f_recv.val().index());
        self.exp1.keep.next = self.lanes.mask.val();
        if self.grt.val() {
            self.data.next = (self.data.val() & !self.exp1.mask.val()) | (self.lanes.data.val() & self.exp1.mask.val());
        }
        self.out.s.tdata.next = self.data.val();
        self.out.s.tkeep.next = self.inp.m.tkeep.val();
        self.out.s.tlast.next = self.inp.m.tlast.val();
        // Header-location fields (meta.rs; PHV l3 codes IPv4 and IPv6 are
        // the tuser l3 codes, every other l3 is 0).
        self.l3c.next = 0.into();
        if (self.phv.val().get_bits::<3>(PHV_L3_LSB) == PHV_L3_IPV4) | (self.phv.val().get_bits::<3>(PHV_L3_LSB) == PHV_L3_IPV6) {
            self.l3c.next = self.phv.val().get_bits::<2>(PHV_L3_LSB);
        }
        self.info.next = bit_cast::<32, 2>(self.l3c.val())
            | (bit_cast::<32, 2>(self.phv.val().get_bits::<2>(PHV_L4_LSB)) << INFO_L4_SHIFT)
            | (bit_cast::<32, 7>(self.phv.val().get_bits::<7>(PHV_L3_OFF_LSB)) << INFO_L3_OFF_SHIFT)
            | (bit_cast::<32, 7>(self.phv.val().get_bits::<7>(PHV_L4_OFF_LSB)) << INFO_L4_OFF_SHIFT)
            | (bit_cast::<32, 4>(self.phv.val().get_bits::<4>(PHV_IHL_LSB)) << INFO_IHL_SHIFT);
        self.user.next = (self.inp.m.tuser.val() & self.user_keep.val()) | bit_cast::<U, 64>(self.res.val().get_bits::<64>(0));
        if self.wide.val() {
            self.user.next = (self.inp.m.tuser.val() & self.user_keep.val())
                | bit_cast::<U, 64>(self.res.val().get_bits::<64>(0))
                | (bit_cast::<U, 32>(self.info.val()) << INFO_SHIFT);
        }
        self.t_in.next = 0.into();
        // A GRT: `flags.grt`, and rx's `t_in` moved to where the traffic
        // manager keeps it until admission.
        if self.grt.val() {
            self.user.next = self.user.val() | self.grt_flag.val();
            if self.stamp.val() {
                self.t_in.next = self.inp.m.tuser.val().get_bits::<16>(T_IN_LSB);
                self.user.next = self.user.val()
                    | (bit_cast::<U, 10>(self.t_in.val().get_bits::<10>(0)) << SH_T_IN_LO)
                    | (bit_cast::<U, 6>(self.t_in.val().get_bits::<6>(10)) << SH_T_IN_HI);
            }
        }
        self.out.s.tuser.next = self.user.val();
        self.out.s.tvalid.next = self.inp.m.tvalid.val() & !self.drop.val();
        self.side.s.tdata.next = self.phv.val();
        self.side.s.tkeep.next = 0xFFFF_FFFF_u64.into();
        self.side.s.tlast.next = self.inp.m.tlast.val();
        self.side.s.tuser.next = 0.into();
        self.side.s.tvalid.next = self.inp.m.tvalid.val() & !self.drop.val();
        // A dropped packet is consumed at full speed.
        self.inp.m.tready.next = self.drop.val() | self.out.s.tready.val();
        self.xfer.next = self.inp.m.tvalid.val() & self.inp.m.tready.val();
        if self.xfer.val() {
            if self.inp.m.tlast.val() {
                self.bidx.d.next = 0.into();
                self.beat.d.next = 0.into();
            } else {
                self.bidx.d.next = 1.into();
                if self.beat.q.val() != 7 {
                    self.beat.d.next = self.beat.q.val() + 1;
                }
            }
        }
        AxisSource::<D, K, U>::link(&mut self.m, &mut self.out.m);
        self.m_phv.next = self.side.m.tdata.val();
        self.side.m.tready.next = self.m.tready.val();
    }
}

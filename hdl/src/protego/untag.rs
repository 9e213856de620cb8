//! `ts_protego_tag_rm`: takes Protego's 5-byte tag out of a stream and
//! reports it beside the frame, for the receiver side after `rx_fcs`
//! (`docs/protego.md`, "The RTL"; `PL2-PROTEGO.md` B.1; 004 §3.5). The
//! mirror of the inserter ([`super::tag`]). Golden model:
//! `trimswitch_sim::model::protego::{read_tag, strip_tag}`.
//!
//! The tag sits at byte `o = 12 + 4v`, `v` the frame's VLAN tags (at most
//! two, found as the inserter finds them: [`VlanScan`]), when the EtherType
//! there is 0x88B6. A frame is *tagged* when it also holds the inner
//! EtherType after the tag (at least `o + 7` bytes); then output byte `a` is
//! input byte `a` before `o` and input byte `a + 5` from there on, and the
//! frame leaves 5 bytes shorter (not padded: the egress MAC pads, and a
//! tagged frame of 65 bytes or more leaves at 60 or more). A frame with
//! 0x88B6 at `o` but shorter than that is *truncated*; it and a frame with
//! no tag pass unchanged.
//!
//! Output beat `n` needs input beat `n` and the first five bytes of beat
//! `n + 1`: the block holds one beat (`b_*`) and forms the output from it
//! and the input beat beside it. When the next beat is a last one of at most
//! five bytes, it ends the output beat before it (one output beat fewer; the
//! input beat is taken and not held).
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset
//!   (drops the beats inside and the frame under way).
//! - `s_*` in, `s_tready` out: the frames, `tkeep` packed. `s_tready` is
//!   two LUTs from `m_tready` and does not depend on `s_tvalid`.
//! - `m_*` out (registered), `m_tready` in: the frames without their tags;
//!   `tuser` as it came.
//! - Beside the output, valid with a frame's last beat (registered):
//!   `m_tagged` (the tag was taken out), `m_trunc` (0x88B6 where the tag
//!   goes, but the frame ends inside it: passed unchanged), `m_tag` (24
//!   bits: the tag's type/era byte in bits 23:16, its reserved bits 4:0 as
//!   they came, `seq` in 15:0, as the inserter's `s_tag`), `m_ctrl` (the
//!   inner EtherType is 0x88B6 too: one of Protego's own control frames),
//!   `m_vlans` (2: `v`, the VLAN tags before the tag; a LOSS frame's fields
//!   follow the inner EtherType at byte `14 + 4v` of the output). `m_tag`
//!   and `m_ctrl` mean something with `m_tagged`, `m_vlans` with `m_tagged`
//!   or `m_trunc`; all three are zero for a frame that ends before the
//!   tag's position.
//!
//! Latency: an output beat leaves the cycle after the input beat after it
//! arrives (a last beat: the cycle after it arrives); one beat per cycle.
use super::tag::{BeatStep, VlanScan, TAG_BYTES};
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::prim::widgets::DffR;
use crate::proto::{ethertype, wire16};
use rust_hdl::prelude::*;

/// Byte `o_v + i` of the frame in the window formed by the held beat that
/// holds the tag and the next beat's first five bytes, as a bit shift of
/// the held beat right (`r`) and of the next beat's bytes left (`l`), for
/// the tag at `12 + 4v` and `K`-byte beats.
fn window_shifts(k: usize, v: usize, i: usize) -> (usize, usize) {
    let at = (12 + 4 * v) % k + i;
    (8 * at, 8 * k - 8 * at)
}

/// The tag remover (module documentation).
#[derive(LogicBlock)]
pub struct ProtegoTagRm<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub m_tagged: Signal<Out, Bit>,
    pub m_trunc: Signal<Out, Bit>,
    pub m_tag: Signal<Out, Bits<24>>,
    pub m_ctrl: Signal<Out, Bit>,
    pub m_vlans: Signal<Out, Bits<2>>,
    vlans: VlanScan<D, K>,
    step: BeatStep,
    // ---- the input side: where the tag is, per beat
    /// The beat's index in its frame (held at 4); the VLAN tags an earlier
    /// beat found.
    bi: DffR<Bits<3>>,
    t1_r: DFF<Bit>,
    t2_r: DFF<Bit>,
    // ---- the held beat
    b_valid: DffR<Bit>,
    b_data: DFF<Bits<D>>,
    b_keep: DFF<Bits<K>>,
    b_last: DFF<Bit>,
    b_user: DFF<Bits<U>>,
    /// It holds the tag's position `o`, with `v` VLAN tags before it; 0x88B6
    /// is there.
    b_pt: DFF<Bit>,
    b_v: DFF<Bits<2>>,
    b_match: DFF<Bit>,
    /// Byte `o + 6` (the inner EtherType's second) is in this beat (and the
    /// beat holds `o`); else the lane of the next beat that holds it
    /// (one-hot, lanes 0..=2; zero when this beat holds it).
    b_lin: DFF<Bit>,
    b_nsel: DFF<Bits<3>>,
    // ---- the frame's tag, from the beat that held it to the last one
    // (`f_pt`: that beat has gone; a frame that ends before it reports
    // zeros)
    f_pt: DffR<Bit>,
    f_strip: DffR<Bit>,
    f_trunc: DffR<Bit>,
    f_tag: DFF<Bits<24>>,
    f_ctrl: DFF<Bit>,
    f_v: DFF<Bits<2>>,
    // ---- the output
    o_valid: DffR<Bit>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_last: DFF<Bit>,
    o_user: DFF<Bits<U>>,
    o_tagged: DFF<Bit>,
    o_trunc: DFF<Bit>,
    o_tag: DFF<Bits<24>>,
    o_ctrl: DFF<Bit>,
    o_v: DFF<Bits<2>>,
    // ---- combinational: the input side
    pt0: Signal<Local, Bit>,
    pt1: Signal<Local, Bit>,
    pt2: Signal<Local, Bit>,
    eq0: Signal<Local, Bit>,
    eq1: Signal<Local, Bit>,
    eq2: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    // ---- combinational: the output side
    /// The frame holds the tag's inner EtherType.
    long: Signal<Local, Bit>,
    /// Strip this beat / the frame is truncated / the frame's tag bytes
    /// (type/era, `seq`, inner EtherType; byte 0 in bits 7:0) and `v`.
    strip: Signal<Local, Bit>,
    trunc: Signal<Local, Bit>,
    nd: Signal<Local, Bits<D>>,
    tw0: Signal<Local, Bits<D>>,
    tw1: Signal<Local, Bits<D>>,
    tw2: Signal<Local, Bits<D>>,
    tb: Signal<Local, Bits<40>>,
    tag: Signal<Local, Bits<24>>,
    ctrl: Signal<Local, Bit>,
    fv: Signal<Local, Bits<2>>,
    /// The next input beat's first five lanes' `tkeep` (0 when the held beat
    /// is a last one).
    nk: Signal<Local, Bits<K>>,
    shifted: Signal<Local, Bits<D>>,
    sel: Signal<Local, Bits<D>>,
    data: Signal<Local, Bits<D>>,
    keep: Signal<Local, Bits<K>>,
    last: Signal<Local, Bit>,
    absorb: Signal<Local, Bit>,
    o_free: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    // ---- constants (the bus's geometry, as `Constant`s: issue 39)
    /// The beats that hold the tag's three positions, the bit offsets of
    /// those positions in them, the lanes of their second bytes.
    c_p0: Constant<Bits<3>>,
    c_p1: Constant<Bits<3>>,
    c_p2: Constant<Bits<3>>,
    c_l0: Constant<Bits<16>>,
    c_l1: Constant<Bits<16>>,
    c_l2: Constant<Bits<16>>,
    c_k0: Constant<Bits<8>>,
    c_k1: Constant<Bits<8>>,
    c_k2: Constant<Bits<8>>,
    /// Per position: bit `v` set when byte `o_v + 6` (the inner EtherType's
    /// second) is in the beat that holds `o_v`; that byte's lane there; else
    /// its lane in the next beat, one-hot (`c_n*`, zero when in the beat).
    c_in: Constant<Bits<3>>,
    c_i0: Constant<Bits<8>>,
    c_i1: Constant<Bits<8>>,
    c_i2: Constant<Bits<8>>,
    c_n0: Constant<Bits<3>>,
    c_n1: Constant<Bits<3>>,
    c_n2: Constant<Bits<3>>,
    /// The window's shifts for the tag's byte 2 at each position.
    c_r0: Constant<Bits<16>>,
    c_r1: Constant<Bits<16>>,
    c_r2: Constant<Bits<16>>,
    c_s0: Constant<Bits<16>>,
    c_s1: Constant<Bits<16>>,
    c_s2: Constant<Bits<16>>,
    /// Per position, the lanes from `o_v` on (byte masks): they take the
    /// bytes five further on in the beat that holds the tag.
    c_m0: Constant<Bits<D>>,
    c_m1: Constant<Bits<D>>,
    c_m2: Constant<Bits<D>>,
    c_ones: Constant<Bits<D>>,
    c_five: Constant<Bits<K>>,
    /// `8 (K − 5)` and `K − 5`: where the next beat's five bytes go.
    c_tsh: Constant<Bits<16>>,
    c_k5: Constant<Bits<8>>,
    c_proto: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const U: usize> Default for ProtegoTagRm<D, K, U> {
    fn default() -> Self {
        assert!(K * 8 == D && (8..=64).contains(&K), "ProtegoTagRm: K = D / 8 in 8..=64");
        let o = |v: usize| 12 + 4 * v;
        let mask = |v: usize| {
            let mut m = Bits::<D>::default();
            for i in 8 * (o(v) % K)..D {
                m = m.replace_bit(i, true);
            }
            Constant::new(m)
        };
        let inner_lane = |v: usize| Constant::new(((o(v) % K + 6) % K).to_bits());
        let next_lane = |v: usize| {
            let at = o(v) % K + 6;
            Constant::new((if at < K { 0u64 } else { 1 << (at - K) }).to_bits())
        };
        let c_in = (0..3).fold(0u64, |a, v| a | (((o(v) % K + 6 < K) as u64) << v));
        let r = |v: usize| Constant::new(window_shifts(K, v, 2).0.to_bits());
        let l = |v: usize| Constant::new(window_shifts(K, v, 2).1.to_bits());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_tagged: Default::default(),
            m_trunc: Default::default(),
            m_tag: Default::default(),
            m_ctrl: Default::default(),
            m_vlans: Default::default(),
            vlans: Default::default(),
            step: Default::default(),
            bi: Default::default(),
            t1_r: Default::default(),
            t2_r: Default::default(),
            b_valid: Default::default(),
            b_data: Default::default(),
            b_keep: Default::default(),
            b_last: Default::default(),
            b_user: Default::default(),
            b_pt: Default::default(),
            b_v: Default::default(),
            b_match: Default::default(),
            b_lin: Default::default(),
            b_nsel: Default::default(),
            f_pt: Default::default(),
            f_strip: Default::default(),
            f_trunc: Default::default(),
            f_tag: Default::default(),
            f_ctrl: Default::default(),
            f_v: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_user: Default::default(),
            o_tagged: Default::default(),
            o_trunc: Default::default(),
            o_tag: Default::default(),
            o_ctrl: Default::default(),
            o_v: Default::default(),
            pt0: Default::default(),
            pt1: Default::default(),
            pt2: Default::default(),
            eq0: Default::default(),
            eq1: Default::default(),
            eq2: Default::default(),
            take: Default::default(),
            long: Default::default(),
            strip: Default::default(),
            trunc: Default::default(),
            nd: Default::default(),
            tw0: Default::default(),
            tw1: Default::default(),
            tw2: Default::default(),
            tb: Default::default(),
            tag: Default::default(),
            ctrl: Default::default(),
            fv: Default::default(),
            nk: Default::default(),
            shifted: Default::default(),
            sel: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            absorb: Default::default(),
            o_free: Default::default(),
            emit: Default::default(),
            c_p0: Constant::new((o(0) / K).to_bits()),
            c_p1: Constant::new((o(1) / K).to_bits()),
            c_p2: Constant::new((o(2) / K).to_bits()),
            c_l0: Constant::new((8 * (o(0) % K)).to_bits()),
            c_l1: Constant::new((8 * (o(1) % K)).to_bits()),
            c_l2: Constant::new((8 * (o(2) % K)).to_bits()),
            c_k0: Constant::new((o(0) % K + 1).to_bits()),
            c_k1: Constant::new((o(1) % K + 1).to_bits()),
            c_k2: Constant::new((o(2) % K + 1).to_bits()),
            c_in: Constant::new(c_in.to_bits()),
            c_i0: inner_lane(0),
            c_i1: inner_lane(1),
            c_i2: inner_lane(2),
            c_n0: next_lane(0),
            c_n1: next_lane(1),
            c_n2: next_lane(2),
            c_r0: r(0),
            c_r1: r(1),
            c_r2: r(2),
            c_s0: l(0),
            c_s1: l(1),
            c_s2: l(2),
            c_m0: mask(0),
            c_m1: mask(1),
            c_m2: mask(2),
            c_ones: Constant::new(Bits::<D>::mask()),
            c_five: Constant::new(0x1Fu64.to_bits()),
            c_tsh: Constant::new((8 * (K - TAG_BYTES)).to_bits()),
            c_k5: Constant::new((K - TAG_BYTES).to_bits()),
            c_proto: Constant::new(wire16(ethertype::PROTEGO).to_bits()),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for ProtegoTagRm<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, bi, t1_r, t2_r, b_valid, b_data, b_keep, b_last, b_user, b_pt, b_v, b_match, b_lin, b_nsel, f_pt, f_strip,
            f_trunc, f_tag, f_ctrl, f_v, o_valid, o_data, o_keep, o_last, o_user, o_tagged, o_trunc, o_tag, o_ctrl, o_v
        );
        self.bi.reset.next = self.reset.val();
        self.b_valid.reset.next = self.reset.val();
        self.f_pt.reset.next = self.reset.val();
        self.f_strip.reset.next = self.reset.val();
        self.f_trunc.reset.next = self.reset.val();
        self.o_valid.reset.next = self.reset.val();
        // ================================================= input side
        // The VLAN tags, then whether this beat holds the tag's position for
        // them and 0x88B6 is there (both its bytes in the frame).
        self.vlans.tdata_lanes.next = self.s.tdata.val();
        self.vlans.tkeep_lanes.next = self.s.tkeep.val();
        self.vlans.bi.next = self.bi.q.val();
        self.vlans.t1_r.next = self.t1_r.q.val();
        self.vlans.t2_r.next = self.t2_r.q.val();
        self.step.a.next = self.bi.q.val();
        self.pt0.next = (self.bi.q.val() == self.c_p0.val()) & !self.vlans.t1.val();
        self.pt1.next = (self.bi.q.val() == self.c_p1.val()) & self.vlans.t1.val() & !self.vlans.t2.val();
        self.pt2.next = (self.bi.q.val() == self.c_p2.val()) & self.vlans.t1.val() & self.vlans.t2.val();
        self.eq0.next = (self.s.tdata.val().get_bits::<16>(self.c_l0.val().index()) == self.c_proto.val())
            & self.s.tkeep.val().get_bit(self.c_k0.val().index());
        self.eq1.next = (self.s.tdata.val().get_bits::<16>(self.c_l1.val().index()) == self.c_proto.val())
            & self.s.tkeep.val().get_bit(self.c_k1.val().index());
        self.eq2.next = (self.s.tdata.val().get_bits::<16>(self.c_l2.val().index()) == self.c_proto.val())
            & self.s.tkeep.val().get_bit(self.c_k2.val().index());
        // ================================================= output side
        // Does the frame hold the inner EtherType (byte `o + 6`): in the
        // held beat (found as it went in), or in the input beat after it?
        self.nk.next = 0.into();
        if !self.b_last.q.val() {
            self.nk.next = self.s.tkeep.val() & self.c_five.val();
        }
        self.long.next = self.b_lin.q.val() | (self.b_nsel.q.val() & self.nk.val().get_bits::<3>(0)).any();
        // The frame's verdict: decided at the beat that holds the position,
        // kept to its last beat.
        self.strip.next = self.f_strip.q.val();
        self.trunc.next = self.f_trunc.q.val();
        if self.b_pt.q.val() {
            self.strip.next = self.b_match.q.val() & self.long.val();
            self.trunc.next = self.b_match.q.val() & !self.long.val();
        }
        // The tag's bytes from the window (the held beat, then the input
        // beat's first five bytes), at the position's fixed offset.
        self.nd.next = bit_cast::<D, 40>(self.s.tdata.val().get_bits::<40>(0));
        self.tw0.next = (self.b_data.q.val() >> self.c_r0.val()) | (self.nd.val() << self.c_s0.val());
        self.tw1.next = (self.b_data.q.val() >> self.c_r1.val()) | (self.nd.val() << self.c_s1.val());
        self.tw2.next = (self.b_data.q.val() >> self.c_r2.val()) | (self.nd.val() << self.c_s2.val());
        self.tb.next = self.tw0.val().get_bits::<40>(0);
        if self.b_v.q.val() == 1 {
            self.tb.next = self.tw1.val().get_bits::<40>(0);
        }
        if self.b_v.q.val() == 2 {
            self.tb.next = self.tw2.val().get_bits::<40>(0);
        }
        self.tag.next = self.f_tag.q.val();
        self.ctrl.next = self.f_ctrl.q.val();
        self.fv.next = self.f_v.q.val();
        if self.b_pt.q.val() {
            self.tag.next = (bit_cast::<24, 8>(self.tb.val().get_bits::<8>(0)) << 16)
                | (bit_cast::<24, 8>(self.tb.val().get_bits::<8>(8)) << 8)
                | bit_cast::<24, 8>(self.tb.val().get_bits::<8>(16));
            self.ctrl.next = self.tb.val().get_bits::<16>(24) == self.c_proto.val();
            self.fv.next = self.b_v.q.val();
        }
        // The lanes: from the tag's position on, the bytes five further on
        // (the last five from the input beat).
        self.shifted.next = (self.b_data.q.val() >> 40) | (self.nd.val() << self.c_tsh.val());
        self.sel.next = 0.into();
        if self.strip.val() {
            self.sel.next = self.c_ones.val();
            if self.b_pt.q.val() {
                self.sel.next = self.c_m0.val();
                if self.b_v.q.val() == 1 {
                    self.sel.next = self.c_m1.val();
                }
                if self.b_v.q.val() == 2 {
                    self.sel.next = self.c_m2.val();
                }
            }
        }
        self.data.next = (self.b_data.q.val() & !self.sel.val()) | (self.shifted.val() & self.sel.val());
        self.keep.next = self.b_keep.q.val();
        self.last.next = self.b_last.q.val();
        self.absorb.next = false;
        if self.strip.val() {
            self.keep.next = (self.b_keep.q.val() >> 5) | (self.nk.val() << self.c_k5.val());
            if !self.b_last.q.val() & self.s.tlast.val() & !self.s.tkeep.val().get_bit(5) {
                // The input beat's bytes all fit in this one: it ends here.
                self.last.next = true;
                self.absorb.next = true;
            }
        }
        // ================================================= handshake
        self.o_free.next = !self.o_valid.q.val() | self.m.tready.val();
        self.emit.next = self.b_valid.q.val() & (self.b_last.q.val() | self.s.tvalid.val()) & self.o_free.val();
        self.s.tready.next = !self.b_valid.q.val() | self.o_free.val();
        self.take.next = self.s.tvalid.val() & (!self.b_valid.q.val() | self.o_free.val());
        if self.emit.val() {
            self.o_valid.d.next = true;
            self.o_data.d.next = self.data.val();
            self.o_keep.d.next = self.keep.val();
            self.o_last.d.next = self.last.val();
            self.o_user.d.next = self.b_user.q.val();
            self.o_tagged.d.next = self.strip.val();
            self.o_trunc.d.next = self.trunc.val();
            self.o_tag.d.next = 0.into();
            self.o_ctrl.d.next = false;
            self.o_v.d.next = 0.into();
            if self.b_pt.q.val() | self.f_pt.q.val() {
                self.o_tag.d.next = self.tag.val();
                self.o_ctrl.d.next = self.ctrl.val();
                self.o_v.d.next = self.fv.val();
            }
            self.f_pt.d.next = (self.b_pt.q.val() | self.f_pt.q.val()) & !self.last.val();
            self.f_strip.d.next = self.strip.val() & !self.last.val();
            self.f_trunc.d.next = self.trunc.val() & !self.last.val();
            self.f_tag.d.next = self.tag.val();
            self.f_ctrl.d.next = self.ctrl.val();
            self.f_v.d.next = self.fv.val();
            self.b_valid.d.next = false;
        } else if self.m.tready.val() {
            self.o_valid.d.next = false;
        }
        if self.take.val() {
            if !(self.emit.val() & self.absorb.val()) {
                self.b_valid.d.next = true;
                self.b_data.d.next = self.s.tdata.val();
                self.b_keep.d.next = self.s.tkeep.val();
                self.b_last.d.next = self.s.tlast.val();
                self.b_user.d.next = self.s.tuser.val();
                self.b_pt.d.next = self.pt0.val() | self.pt1.val() | self.pt2.val();
                self.b_v.d.next = 0.into();
                if self.pt1.val() {
                    self.b_v.d.next = 1.into();
                }
                if self.pt2.val() {
                    self.b_v.d.next = 2.into();
                }
                self.b_match.d.next =
                    (self.pt0.val() & self.eq0.val()) | (self.pt1.val() & self.eq1.val()) | (self.pt2.val() & self.eq2.val());
                self.b_lin.d.next = false;
                self.b_nsel.d.next = 0.into();
                if self.pt0.val() {
                    self.b_lin.d.next = self.c_in.val().get_bit(0) & self.s.tkeep.val().get_bit(self.c_i0.val().index());
                    self.b_nsel.d.next = self.c_n0.val();
                }
                if self.pt1.val() {
                    self.b_lin.d.next = self.c_in.val().get_bit(1) & self.s.tkeep.val().get_bit(self.c_i1.val().index());
                    self.b_nsel.d.next = self.c_n1.val();
                }
                if self.pt2.val() {
                    self.b_lin.d.next = self.c_in.val().get_bit(2) & self.s.tkeep.val().get_bit(self.c_i2.val().index());
                    self.b_nsel.d.next = self.c_n2.val();
                }
            }
            self.t1_r.d.next = self.vlans.t1.val();
            self.t2_r.d.next = self.vlans.t2.val();
            self.bi.d.next = self.step.y.val();
            if self.s.tlast.val() {
                self.bi.d.next = 0.into();
            }
        }
        self.m.tvalid.next = self.o_valid.q.val();
        self.m.tdata.next = self.o_data.q.val();
        self.m.tkeep.next = self.o_keep.q.val();
        self.m.tlast.next = self.o_last.q.val();
        self.m.tuser.next = self.o_user.q.val();
        self.m_tagged.next = self.o_tagged.q.val();
        self.m_trunc.next = self.o_trunc.q.val();
        self.m_tag.next = self.o_tag.q.val();
        self.m_ctrl.next = self.o_ctrl.q.val();
        self.m_vlans.next = self.o_v.q.val();
    }
}

//! `ts_xgmii_rx`: a 10G Ethernet receive MAC, a 64-bit XGMII (IEEE 802.3
//! clause 46) to AXI4-Stream (64 bits).
//!
//! A frame starts with /S/ in lane 0 or 4 (46.2.6) and the preamble and SFD
//! (4.2.5-4.2.6), and ends before the first /T/. Its bytes from the
//! destination address to the FCS come out as one AXI4-Stream packet (the
//! FCS kept: the switch's `rx_fcs` checks it again, or reads the verdict
//! this MAC gives in `tuser`), in order, with no back-pressure: a MAC
//! cannot hold a link, so whatever follows must take a beat every cycle
//! (the switch's ingress does).
//!
//! `m_tuser` on a packet's last beat is the MAC's verdict, high for a frame
//! to drop; every frame is counted once, in the first of these that holds:
//! - `errors`: a bad preamble or SFD, /E/ or another control character
//!   before /T/ (a PHY's receive error, 46.3.3), a new /S/ inside the frame;
//! - `jabbers`: longer than `max_bytes` (the FCS included): the packet is
//!   cut after the beat that passes the limit, that beat its last, and the
//!   rest of the frame dropped;
//! - `runts`: shorter than 64 bytes (4.2.4.2.2, a fragment of a collision
//!   or a cut frame);
//! - `fcs_errors`: the FCS does not match (4.2.9; [`Crc32Beat`]);
//! - `frames` and `bytes`: good frames and their bytes (the FCS included).
//!
//! The pipeline: the word registered; the aligner (a frame started on lane 4
//! is moved to lane 0: each word's low half after the previous word's high
//! half); the parse (preamble, the first /T/, the byte count, the flags) to
//! a beat; a hold of one beat, whose `tlast` is known when the next word
//! shows /T/ in lane 0; the FCS verdict, a cycle after the last beat; the
//! output register.
use super::xgmii::{PREAMBLE, SFD, START, TERMINATE};
use crate::prim::crc::Crc32Beat;
use crate::prim::widgets::DffR;
use rust_hdl::prelude::*;

/// The shortest frame, the FCS included (4.2.4.2.2).
pub const MIN_FRAME: u64 = 64;
// The runt test is written for 64: the byte count below bit 6.
const _: () = assert!(MIN_FRAME == 64);

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum St {
    Idle,
    Frame,
    /// A jabber's rest, until its /T/.
    Drop,
}

/// A 10G receive MAC (module docs).
///
/// Ports:
/// - `clock`, `reset`: the XGMII receive clock; synchronous active-high
///   reset (no frame in progress, counters zero).
/// - `rxd` (64 bits), `rxc` (8 bits) in: the XGMII word, lane `i` in `rxd`
///   bits `8 i + 7 .. 8 i`, a control character iff `rxc` bit `i`.
/// - `max_bytes` in (16 bits): the longest frame taken whole, the FCS
///   included (1 518, or 1 522 with a VLAN tag, or a jumbo size).
/// - `m_tdata`, `m_tkeep`, `m_tlast`, `m_tuser`, `m_tvalid` out,
///   registered: the frames, the FCS included; `tkeep` packed; `m_tuser` on
///   a last beat: drop this frame (module docs). There is no `m_tready`.
/// - `frames`, `bytes`, `fcs_errors`, `runts`, `jabbers`, `errors` out (32
///   bits, wrap): the counters of the module docs.
#[derive(LogicBlock)]
pub struct XgmiiRx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rxd: Signal<In, Bits<64>>,
    pub rxc: Signal<In, Bits<8>>,
    pub max_bytes: Signal<In, Bits<16>>,
    pub m_tdata: Signal<Out, Bits<64>>,
    pub m_tkeep: Signal<Out, Bits<8>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub frames: Signal<Out, Bits<32>>,
    pub bytes: Signal<Out, Bits<32>>,
    pub fcs_errors: Signal<Out, Bits<32>>,
    pub runts: Signal<Out, Bits<32>>,
    pub jabbers: Signal<Out, Bits<32>>,
    pub errors: Signal<Out, Bits<32>>,
    // The word, registered, with /S/ in lane 0 or 4.
    x_d: DffR<Bits<64>>,
    x_c: DffR<Bits<8>>,
    s0: DffR<Bit>,
    s4: DffR<Bit>,
    // The aligner.
    off: DffR<Bit>,
    hi_d: DFF<Bits<32>>,
    hi_c: DffR<Bits<4>>,
    z_d: DffR<Bits<64>>,
    z_c: DffR<Bits<8>>,
    /// Per lane of the registered word and of the aligned word: /T/ there
    /// (found before the alignment, moved with the lanes).
    x_t: DffR<Bits<8>>,
    hi_t: DffR<Bits<4>>,
    z_t: DffR<Bits<8>>,
    // The parse.
    st: DffR<St>,
    cnt: DffR<Bits<16>>,
    /// `max_bytes` less the bytes so far (0 once passed).
    left: DffR<Bits<16>>,
    ferr: DffR<Bit>,
    first: DffR<Bit>,
    /// The beat (`p_v`: with data; `p_end`: the frame ends in it or, with
    /// `p_n` 0, ended in the word before), its flags at the end.
    p_v: DffR<Bit>,
    p_end: DffR<Bit>,
    p_first: DFF<Bit>,
    p_d: DFF<Bits<64>>,
    p_k: DFF<Bits<8>>,
    p_err: DFF<Bit>,
    p_runt: DFF<Bit>,
    p_jab: DFF<Bit>,
    p_len: DFF<Bits<16>>,
    // The hold.
    h_v: DffR<Bit>,
    h_end: DFF<Bit>,
    h_first: DFF<Bit>,
    h_d: DFF<Bits<64>>,
    h_k: DFF<Bits<8>>,
    h_err: DFF<Bit>,
    h_runt: DFF<Bit>,
    h_jab: DFF<Bit>,
    h_len: DFF<Bits<16>>,
    // The beat with its `tlast` and the frame's flags.
    o_v: DffR<Bit>,
    o_last: DFF<Bit>,
    o_d: DFF<Bits<64>>,
    o_k: DFF<Bits<8>>,
    o_err: DFF<Bit>,
    o_runt: DFF<Bit>,
    o_jab: DFF<Bit>,
    o_len: DFF<Bits<16>>,
    // Out.
    q_v: DffR<Bit>,
    q_last: DFF<Bit>,
    q_d: DFF<Bits<64>>,
    q_k: DFF<Bits<8>>,
    q_u: DFF<Bit>,
    fcs_chk: Crc32Beat<64, 8>,
    n_frames: DffR<Bits<32>>,
    n_bytes: DffR<Bits<32>>,
    n_fcs: DffR<Bits<32>>,
    n_runt: DffR<Bits<32>>,
    n_jab: DffR<Bits<32>>,
    n_err: DffR<Bits<32>>,
    // Combinational.
    is_t: Signal<Local, Bits<8>>,
    /// The lowest /T/'s lane (8: none), the lanes below it, a control
    /// character among them.
    tn: Signal<Local, Bits<4>>,
    below: Signal<Local, Bits<8>>,
    ctrl_in: Signal<Local, Bit>,
    t_any: Signal<Local, Bit>,
    len_next: Signal<Local, Bits<16>>,
    over: Signal<Local, Bit>,
    lo7: Signal<Local, Bits<7>>,
    runt: Signal<Local, Bit>,
    pre_ok: Signal<Local, Bit>,
    last: Signal<Local, Bit>,
    c_pre: Constant<Bits<64>>,
    c_t: Constant<Bits<8>>,
    c_s: Constant<Bits<8>>,
    c_lane: Vec<Constant<Bits<4>>>,
    c_64: Constant<Bits<7>>,
    c_below: Vec<Constant<Bits<8>>>,
}

impl Default for XgmiiRx {
    fn default() -> Self {
        let pre = (1..7).fold(START as u64, |w, i| w | (PREAMBLE as u64) << (8 * i)) | (SFD as u64) << 56;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rxd: Default::default(),
            rxc: Default::default(),
            max_bytes: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tuser: Default::default(),
            m_tvalid: Default::default(),
            frames: Default::default(),
            bytes: Default::default(),
            fcs_errors: Default::default(),
            runts: Default::default(),
            jabbers: Default::default(),
            errors: Default::default(),
            x_d: Default::default(),
            x_c: DffR::new(0xFFu64.to_bits()),
            s0: Default::default(),
            s4: Default::default(),
            off: Default::default(),
            hi_d: Default::default(),
            hi_c: DffR::new(0xFu64.to_bits()),
            z_d: Default::default(),
            z_c: DffR::new(0xFFu64.to_bits()),
            x_t: Default::default(),
            hi_t: Default::default(),
            z_t: Default::default(),
            st: Default::default(),
            cnt: Default::default(),
            left: Default::default(),
            ferr: Default::default(),
            first: Default::default(),
            p_v: Default::default(),
            p_end: Default::default(),
            p_first: Default::default(),
            p_d: Default::default(),
            p_k: Default::default(),
            p_err: Default::default(),
            p_runt: Default::default(),
            p_jab: Default::default(),
            p_len: Default::default(),
            h_v: Default::default(),
            h_end: Default::default(),
            h_first: Default::default(),
            h_d: Default::default(),
            h_k: Default::default(),
            h_err: Default::default(),
            h_runt: Default::default(),
            h_jab: Default::default(),
            h_len: Default::default(),
            o_v: Default::default(),
            o_last: Default::default(),
            o_d: Default::default(),
            o_k: Default::default(),
            o_err: Default::default(),
            o_runt: Default::default(),
            o_jab: Default::default(),
            o_len: Default::default(),
            q_v: Default::default(),
            q_last: Default::default(),
            q_d: Default::default(),
            q_k: Default::default(),
            q_u: Default::default(),
            fcs_chk: Default::default(),
            n_frames: Default::default(),
            n_bytes: Default::default(),
            n_fcs: Default::default(),
            n_runt: Default::default(),
            n_jab: Default::default(),
            n_err: Default::default(),
            is_t: Default::default(),
            tn: Default::default(),
            below: Default::default(),
            ctrl_in: Default::default(),
            t_any: Default::default(),
            len_next: Default::default(),
            over: Default::default(),
            lo7: Default::default(),
            runt: Default::default(),
            pre_ok: Default::default(),
            last: Default::default(),
            c_pre: Constant::new(pre.to_bits()),
            c_t: Constant::new((TERMINATE as u64).to_bits()),
            c_s: Constant::new((START as u64).to_bits()),
            c_64: Constant::new(64u64.to_bits()),
            c_lane: (0..9u64).map(|n| Constant::new(n.to_bits())).collect(),
            c_below: (0..9u64).map(|n| Constant::new(((1u64 << n) - 1).to_bits())).collect(),
        }
    }
}

impl Logic for XgmiiRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, x_d, x_c, s0, s4, off, hi_d, hi_c, z_d, z_c, x_t, hi_t, z_t, st, cnt, left, ferr, first, p_v, p_end, p_first, p_d,
            p_k, p_err, p_runt, p_jab, p_len, h_v, h_end, h_first, h_d, h_k, h_err, h_runt, h_jab, h_len, o_v, o_last, o_d, o_k, o_err,
            o_runt, o_jab, o_len, q_v, q_last, q_d, q_k, q_u, n_frames, n_bytes, n_fcs, n_runt, n_jab, n_err
        );
        self.x_d.reset.next = self.reset.val();
        self.x_c.reset.next = self.reset.val();
        self.s0.reset.next = self.reset.val();
        self.s4.reset.next = self.reset.val();
        self.off.reset.next = self.reset.val();
        self.hi_c.reset.next = self.reset.val();
        self.z_d.reset.next = self.reset.val();
        self.z_c.reset.next = self.reset.val();
        self.x_t.reset.next = self.reset.val();
        self.hi_t.reset.next = self.reset.val();
        self.z_t.reset.next = self.reset.val();
        self.left.reset.next = self.reset.val();
        self.st.reset.next = self.reset.val();
        self.cnt.reset.next = self.reset.val();
        self.ferr.reset.next = self.reset.val();
        self.first.reset.next = self.reset.val();
        self.p_v.reset.next = self.reset.val();
        self.p_end.reset.next = self.reset.val();
        self.h_v.reset.next = self.reset.val();
        self.o_v.reset.next = self.reset.val();
        self.q_v.reset.next = self.reset.val();
        self.n_frames.reset.next = self.reset.val();
        self.n_bytes.reset.next = self.reset.val();
        self.n_fcs.reset.next = self.reset.val();
        self.n_runt.reset.next = self.reset.val();
        self.n_jab.reset.next = self.reset.val();
        self.n_err.reset.next = self.reset.val();
        self.fcs_chk.clock.next = self.clock.val();
        self.fcs_chk.reset.next = self.reset.val();

        // ---- the word, and where an /S/ is ----
        self.is_t.next = 0.into();
        self.x_d.d.next = self.rxd.val();
        self.x_c.d.next = self.rxc.val();
        self.s0.d.next = self.rxc.val().get_bit(0) & (self.rxd.val().get_bits::<8>(0) == self.c_s.val());
        self.s4.d.next = self.rxc.val().get_bit(4) & (self.rxd.val().get_bits::<8>(32) == self.c_s.val());

        for i in 0..8 {
            self.is_t.next =
                self.is_t.val().replace_bit(i, self.rxc.val().get_bit(i) & (self.rxd.val().get_bits::<8>(8 * i) == self.c_t.val()));
        }
        self.x_t.d.next = self.is_t.val();

        // ---- the aligner: a start in lane 4 moves the frame to lane 0 ----
        self.hi_d.d.next = self.x_d.q.val().get_bits::<32>(32);
        self.hi_c.d.next = self.x_c.q.val().get_bits::<4>(4);
        self.hi_t.d.next = self.x_t.q.val().get_bits::<4>(4);
        self.off.d.next = self.off.q.val();
        if self.s4.q.val() {
            self.off.d.next = true;
        } else if self.s0.q.val() {
            self.off.d.next = false;
        }
        if self.off.q.val() & !self.s0.q.val() {
            self.z_d.d.next = (self.x_d.q.val() << 32) | bit_cast::<64, 32>(self.hi_d.q.val());
            self.z_c.d.next = (self.x_c.q.val() << 4) | bit_cast::<8, 4>(self.hi_c.q.val());
            self.z_t.d.next = (self.x_t.q.val() << 4) | bit_cast::<8, 4>(self.hi_t.q.val());
        } else {
            self.z_d.d.next = self.x_d.q.val();
            self.z_c.d.next = self.x_c.q.val();
            self.z_t.d.next = self.x_t.q.val();
        }

        // ---- the parse ----
        self.t_any.next = self.z_t.q.val().any();
        self.tn.next = self.c_lane[8].val();
        self.below.next = self.c_below[8].val();
        for i in 0..8 {
            // Descending, so the lowest /T/ is the one kept.
            if self.z_t.q.val().get_bit(7 - i) {
                self.tn.next = self.c_lane[7 - i].val();
                self.below.next = self.c_below[7 - i].val();
            }
        }
        self.ctrl_in.next = (self.z_c.q.val() & self.below.val()).any();
        self.len_next.next = self.cnt.q.val() + bit_cast::<16, 4>(self.tn.val());
        // Longer than `max_bytes` with this word's bytes: `left < tn`, from
        // the down-counter (no compare behind the byte count's chain).
        self.over.next = !self.left.q.val().get_bits::<12>(4).any() & (self.left.q.val().get_bits::<4>(0) < self.tn.val());
        // Shorter than 64 bytes: the count's low 6 bits and this word's.
        self.lo7.next = bit_cast::<7, 6>(self.cnt.q.val().get_bits::<6>(0)) + bit_cast::<7, 4>(self.tn.val());
        self.runt.next = !self.cnt.q.val().get_bits::<10>(6).any() & (self.lo7.val() < self.c_64.val());
        self.pre_ok.next = (self.z_d.q.val() == self.c_pre.val()) & (self.z_c.q.val() == 1);

        self.st.d.next = self.st.q.val();
        self.cnt.d.next = self.cnt.q.val();
        self.left.d.next = self.left.q.val();
        self.ferr.d.next = self.ferr.q.val();
        self.first.d.next = self.first.q.val();
        self.p_v.d.next = false;
        self.p_end.d.next = false;
        self.p_first.d.next = self.first.q.val();
        self.p_d.d.next = self.z_d.q.val();
        self.p_k.d.next = self.below.val();
        self.p_err.d.next = self.ferr.q.val() | self.ctrl_in.val();
        self.p_runt.d.next = self.runt.val();
        self.p_jab.d.next = self.over.val();
        self.p_len.d.next = self.len_next.val();
        if self.st.q.val() == St::Idle {
            if self.z_c.q.val().get_bit(0) & (self.z_d.q.val().get_bits::<8>(0) == self.c_s.val()) {
                self.st.d.next = St::Frame;
                self.cnt.d.next = 0.into();
                self.left.d.next = self.max_bytes.val();
                self.ferr.d.next = !self.pre_ok.val();
                self.first.d.next = true;
            }
        } else if self.st.q.val() == St::Frame {
            self.cnt.d.next = self.len_next.val();
            self.left.d.next = self.left.q.val() - bit_cast::<16, 4>(self.tn.val());
            if self.over.val() {
                self.left.d.next = 0.into();
            }
            self.ferr.d.next = self.ferr.q.val() | self.ctrl_in.val();
            // A beat with the lanes before the first /T/ (all eight if none);
            // none for a /T/ in lane 0 (the beat before was the last).
            self.p_v.d.next = self.tn.val().any();
            if self.tn.val().any() {
                self.first.d.next = false;
            }
            if self.t_any.val() {
                self.p_end.d.next = true;
                self.st.d.next = St::Idle;
            } else if self.over.val() {
                // A jabber: this beat ends the packet, the rest is dropped.
                self.p_end.d.next = true;
                self.st.d.next = St::Drop;
            }
        } else if self.t_any.val() {
            self.st.d.next = St::Idle;
        }

        // ---- the hold: a beat's tlast is known a word later ----
        self.fcs_chk.data.next = self.p_d.q.val();
        self.fcs_chk.keep.next = self.p_k.q.val();
        self.h_v.d.next = self.p_v.q.val();
        self.h_end.d.next = self.p_end.q.val();
        self.h_d.d.next = self.p_d.q.val();
        self.h_k.d.next = self.p_k.q.val();
        self.h_err.d.next = self.p_err.q.val();
        self.h_runt.d.next = self.p_runt.q.val();
        self.h_jab.d.next = self.p_jab.q.val();
        self.h_len.d.next = self.p_len.q.val();
        self.fcs_chk.valid.next = self.h_v.q.val();
        self.h_first.d.next = self.p_first.q.val();
        self.fcs_chk.start.next = self.h_first.q.val();
        // The held beat is the last if it ends the frame, or if the word
        // after it ends the frame with /T/ in lane 0 (a beat with no data).
        self.last.next = self.h_end.q.val() | (self.p_end.q.val() & !self.p_v.q.val());
        self.o_v.d.next = self.h_v.q.val();
        self.o_last.d.next = self.last.val();
        self.o_d.d.next = self.h_d.q.val();
        self.o_k.d.next = self.h_k.q.val();
        if self.h_end.q.val() {
            self.o_err.d.next = self.h_err.q.val();
            self.o_runt.d.next = self.h_runt.q.val();
            self.o_jab.d.next = self.h_jab.q.val();
            self.o_len.d.next = self.h_len.q.val();
        } else {
            self.o_err.d.next = self.p_err.q.val();
            self.o_runt.d.next = self.p_runt.q.val();
            self.o_jab.d.next = self.p_jab.q.val();
            self.o_len.d.next = self.p_len.q.val();
        }

        // ---- the verdict (the FCS a cycle after the last beat) and out ----
        self.q_v.d.next = self.o_v.q.val();
        self.q_last.d.next = self.o_last.q.val();
        self.q_d.d.next = self.o_d.q.val();
        self.q_k.d.next = self.o_k.q.val();
        self.q_u.d.next =
            self.o_last.q.val() & (self.o_err.q.val() | self.o_runt.q.val() | self.o_jab.q.val() | !self.fcs_chk.residue_ok.val());
        self.n_frames.d.next = self.n_frames.q.val();
        self.n_bytes.d.next = self.n_bytes.q.val();
        self.n_fcs.d.next = self.n_fcs.q.val();
        self.n_runt.d.next = self.n_runt.q.val();
        self.n_jab.d.next = self.n_jab.q.val();
        self.n_err.d.next = self.n_err.q.val();
        if self.o_v.q.val() & self.o_last.q.val() {
            if self.o_err.q.val() {
                self.n_err.d.next = self.n_err.q.val() + 1;
            } else if self.o_jab.q.val() {
                self.n_jab.d.next = self.n_jab.q.val() + 1;
            } else if self.o_runt.q.val() {
                self.n_runt.d.next = self.n_runt.q.val() + 1;
            } else if !self.fcs_chk.residue_ok.val() {
                self.n_fcs.d.next = self.n_fcs.q.val() + 1;
            } else {
                self.n_frames.d.next = self.n_frames.q.val() + 1;
                self.n_bytes.d.next = self.n_bytes.q.val() + bit_cast::<32, 16>(self.o_len.q.val());
            }
        }
        self.m_tvalid.next = self.q_v.q.val();
        self.m_tlast.next = self.q_last.q.val();
        self.m_tdata.next = self.q_d.q.val();
        self.m_tkeep.next = self.q_k.q.val();
        self.m_tuser.next = self.q_u.q.val();
        self.frames.next = self.n_frames.q.val();
        self.bytes.next = self.n_bytes.q.val();
        self.fcs_errors.next = self.n_fcs.q.val();
        self.runts.next = self.n_runt.q.val();
        self.jabbers.next = self.n_jab.q.val();
        self.errors.next = self.n_err.q.val();
    }
}

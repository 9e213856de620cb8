//! Width converters between a MAC's `S`-bit stream (64 for XGMII, 8 for
//! GMII) and the switch's `D`-bit data path (issue 18, `docs/boards.md`):
//! [`AxisUpsize`] packs the receive MAC's words into beats, [`AxisDownsize`]
//! unpacks beats into words for the transmit MAC. `S` is 8 or 64 (`SK = S /
//! 8` lanes), or `D` itself (a MAC as wide as the data path, the CMAC's 512
//! bits: each converter is then a register stage, the upsizer keeping its
//! overflow handling); `D` a multiple of 64 (64 to 512 bits) and of `S`;
//! `tkeep` is packed (a run from lane 0) on both sides, partial only on a
//! last beat.
use crate::axis::bundle::AxisPlainSink;
use crate::prim::widgets::DffR;
use rust_hdl::prelude::*;

/// Filling states of [`AxisUpsize`] after its output was full.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Up {
    /// Words are packed and handed on.
    Pass,
    /// A beat was lost mid-frame: the frame's rest is dropped, then its end
    /// is marked ([`Up::Term`]).
    DropTerm,
    /// The cut frame's end is owed: an empty last beat with `tuser` set,
    /// handed on when the output has room. Words meanwhile are dropped.
    Term,
    /// A frame that started in [`Up::Term`] is dropped to its end.
    Drop,
}

/// `S`-bit words into `D`-bit beats, for a receive MAC that cannot be held.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset.
/// - `s_tdata` (`S`), `s_tkeep` (`SK`), `s_tlast`, `s_tuser`, `s_tvalid` in:
///   the MAC's words; `s_tuser` on a last word: the frame is bad.
///   `s_tready` out is always high (a receive MAC cannot be held).
/// - `m_tdata` (`D`), `m_tkeep` (`K`), `m_tlast`, `m_tuser`, `m_tvalid` out
///   (registered), `m_tready` in: the beats, `tuser` = the MAC's flag on a
///   last beat.
///   A beat is complete after `D / S` words or the frame's last.
/// - `overflows` out (32 bits, wraps): frames hit by a full output. When a
///   complete beat finds the output register still held (`m_tready` low),
///   the beat is lost and the frame's rest dropped; the frame is then ended
///   by an empty last beat with `tuser` set (so the switch's `rx_fcs` drops
///   and counts it too), and frames whose words arrive before that end is
///   handed on are dropped whole. A port is built so that this does not
///   happen in operation (`ts_xgmii_port`: the FIFO after the upsizer
///   drains faster than words arrive); it is the defined outcome when the
///   far side stops (held in reset).
#[derive(LogicBlock)]
pub struct AxisUpsize<const S: usize, const SK: usize, const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisPlainSink<S, SK>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub overflows: Signal<Out, Bits<32>>,
    /// The beat being packed: its earlier words and their `tkeep`, and the
    /// next word's index.
    acc: DFF<Bits<D>>,
    acc_keep: DFF<Bits<K>>,
    idx: DffR<Bits<8>>,
    last_idx: Constant<Bits<8>>,
    /// log2 of `S` and of `SK`: a word's offset in bits and lanes.
    s_shift: Constant<Bits<8>>,
    sk_shift: Constant<Bits<8>>,
    o_v: DffR<Bit>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_last: DFF<Bit>,
    o_user: DFF<Bit>,
    st: DffR<Up>,
    /// The input is inside a frame (a word without `tlast` came last).
    in_frame: DffR<Bit>,
    n_over: DffR<Bits<32>>,
    take: Signal<Local, Bit>,
    o_free: Signal<Local, Bit>,
    complete: Signal<Local, Bit>,
    word: Signal<Local, Bits<D>>,
    wkeep: Signal<Local, Bits<K>>,
    in_next: Signal<Local, Bit>,
}

/// The geometry both converters accept (module docs).
fn check_widths(name: &str, s: usize, sk: usize, d: usize, k: usize) {
    assert!(
        (s == 8 || s == 64 || s == d) && sk * 8 == s && d.is_multiple_of(64) && (64..=512).contains(&d) && k * 8 == d,
        "{name}: S 8, 64 or D, SK = S / 8, D a multiple of 64 in 64..=512, K = D / 8"
    );
}

impl<const S: usize, const SK: usize, const D: usize, const K: usize> Default for AxisUpsize<S, SK, D, K> {
    fn default() -> Self {
        check_widths("AxisUpsize", S, SK, D, K);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tuser: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            overflows: Default::default(),
            acc: Default::default(),
            acc_keep: Default::default(),
            idx: Default::default(),
            last_idx: Constant::new(((D / S) as u64 - 1).to_bits()),
            s_shift: Constant::new((S.trailing_zeros() as u64).to_bits()),
            sk_shift: Constant::new((SK.trailing_zeros() as u64).to_bits()),
            o_v: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_user: Default::default(),
            st: DffR::new(Up::Pass),
            in_frame: Default::default(),
            n_over: Default::default(),
            take: Default::default(),
            o_free: Default::default(),
            complete: Default::default(),
            word: Default::default(),
            wkeep: Default::default(),
            in_next: Default::default(),
        }
    }
}

impl<const S: usize, const SK: usize, const D: usize, const K: usize> Logic for AxisUpsize<S, SK, D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc, acc_keep, idx, o_v, o_data, o_keep, o_last, o_user, st, in_frame, n_over);
        self.idx.reset.next = self.reset.val();
        self.o_v.reset.next = self.reset.val();
        self.st.reset.next = self.reset.val();
        self.in_frame.reset.next = self.reset.val();
        self.n_over.reset.next = self.reset.val();

        self.s.tready.next = true;
        self.take.next = self.s.tvalid.val() & !self.reset.val();
        self.o_free.next = !self.o_v.q.val() | self.m_tready.val();
        self.complete.next = self.s.tlast.val() | (self.idx.q.val() == self.last_idx.val());
        // The word in its lanes of the beat.
        self.word.next = bit_cast::<D, S>(self.s.tdata.val()) << (bit_cast::<D, 8>(self.idx.q.val()) << self.s_shift.val());
        self.wkeep.next = bit_cast::<K, SK>(self.s.tkeep.val()) << (bit_cast::<K, 8>(self.idx.q.val()) << self.sk_shift.val());
        self.in_next.next = self.in_frame.q.val();
        if self.take.val() {
            self.in_next.next = !self.s.tlast.val();
        }
        self.in_frame.d.next = self.in_next.val();
        if self.o_v.q.val() & self.m_tready.val() {
            self.o_v.d.next = false;
        }
        match self.st.q.val() {
            Up::Pass => {
                if self.take.val() {
                    if !self.complete.val() {
                        self.acc.d.next = self.acc.q.val() | self.word.val();
                        self.acc_keep.d.next = self.acc_keep.q.val() | self.wkeep.val();
                        self.idx.d.next = self.idx.q.val() + 1;
                    } else {
                        self.acc.d.next = 0.into();
                        self.acc_keep.d.next = 0.into();
                        self.idx.d.next = 0.into();
                        if self.o_free.val() {
                            self.o_v.d.next = true;
                            self.o_data.d.next = self.acc.q.val() | self.word.val();
                            self.o_keep.d.next = self.acc_keep.q.val() | self.wkeep.val();
                            self.o_last.d.next = self.s.tlast.val();
                            self.o_user.d.next = self.s.tuser.val() & self.s.tlast.val();
                        } else {
                            self.n_over.d.next = self.n_over.q.val() + 1;
                            if self.s.tlast.val() {
                                self.st.d.next = Up::Term;
                            } else {
                                self.st.d.next = Up::DropTerm;
                            }
                        }
                    }
                }
            }
            Up::DropTerm => {
                if self.take.val() & self.s.tlast.val() {
                    self.st.d.next = Up::Term;
                }
            }
            Up::Term => {
                if self.take.val() & !self.in_frame.q.val() {
                    self.n_over.d.next = self.n_over.q.val() + 1;
                }
                if self.o_free.val() {
                    self.o_v.d.next = true;
                    self.o_keep.d.next = 0.into();
                    self.o_last.d.next = true;
                    self.o_user.d.next = true;
                    if self.in_next.val() {
                        self.st.d.next = Up::Drop;
                    } else {
                        self.st.d.next = Up::Pass;
                    }
                }
            }
            Up::Drop => {
                if self.take.val() & self.s.tlast.val() {
                    self.st.d.next = Up::Pass;
                }
            }
        }
        self.m_tdata.next = self.o_data.q.val();
        self.m_tkeep.next = self.o_keep.q.val();
        self.m_tlast.next = self.o_last.q.val();
        self.m_tuser.next = self.o_user.q.val();
        self.m_tvalid.next = self.o_v.q.val();
        self.overflows.next = self.n_over.q.val();
    }
}

/// `D`-bit beats into `S`-bit words, for a transmit MAC.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset.
/// - `s_tdata` (`D`), `s_tkeep` (`K`), `s_tlast`, `s_tuser`, `s_tvalid` in,
///   `s_tready` out: the beats; `s_tuser` (1 bit) rides on each of the
///   beat's words (for a transmit MAC: cut the frame). A beat is held in a
///   buffer while its words leave; `s_tready` is high when the buffer is
///   empty or its last word leaves this cycle (so a stream of beats leaves
///   one word per cycle).
/// - `m_tdata` (`S`), `m_tkeep` (`SK`), `m_tlast`, `m_tuser`, `m_tvalid` out
///   (registered), `m_tready` in: the words, a beat's lanes past its
///   `tkeep` left out.
#[derive(LogicBlock)]
pub struct AxisDownsize<const S: usize, const SK: usize, const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisPlainSink<D, K>,
    pub m_tdata: Signal<Out, Bits<S>>,
    pub m_tkeep: Signal<Out, Bits<SK>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    b_v: DffR<Bit>,
    b_data: DFF<Bits<D>>,
    b_keep: DFF<Bits<K>>,
    b_last: DFF<Bit>,
    b_user: DFF<Bit>,
    idx: DffR<Bits<8>>,
    last_idx: Constant<Bits<8>>,
    s_shift: Constant<Bits<8>>,
    sk_shift: Constant<Bits<8>>,
    o_v: DffR<Bit>,
    o_data: DFF<Bits<S>>,
    o_keep: DFF<Bits<SK>>,
    o_last: DFF<Bit>,
    o_user: DFF<Bit>,
    o_load: Signal<Local, Bit>,
    /// The buffer's lanes after the current word.
    rest: Signal<Local, Bits<K>>,
    at_end: Signal<Local, Bit>,
    /// The buffer shifted to the current word.
    sh_data: Signal<Local, Bits<D>>,
    sh_keep: Signal<Local, Bits<K>>,
    ready: Signal<Local, Bit>,
}

impl<const S: usize, const SK: usize, const D: usize, const K: usize> Default for AxisDownsize<S, SK, D, K> {
    fn default() -> Self {
        check_widths("AxisDownsize", S, SK, D, K);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tuser: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            b_v: Default::default(),
            b_data: Default::default(),
            b_keep: Default::default(),
            b_last: Default::default(),
            b_user: Default::default(),
            idx: Default::default(),
            last_idx: Constant::new(((D / S) as u64 - 1).to_bits()),
            s_shift: Constant::new((S.trailing_zeros() as u64).to_bits()),
            sk_shift: Constant::new((SK.trailing_zeros() as u64).to_bits()),
            o_v: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_user: Default::default(),
            o_load: Default::default(),
            rest: Default::default(),
            at_end: Default::default(),
            sh_data: Default::default(),
            sh_keep: Default::default(),
            ready: Default::default(),
        }
    }
}

impl<const S: usize, const SK: usize, const D: usize, const K: usize> Logic for AxisDownsize<S, SK, D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, b_v, b_data, b_keep, b_last, b_user, idx, o_v, o_data, o_keep, o_last, o_user);
        self.b_v.reset.next = self.reset.val();
        self.idx.reset.next = self.reset.val();
        self.o_v.reset.next = self.reset.val();

        self.o_load.next = !self.o_v.q.val() | self.m_tready.val();
        self.sh_data.next = self.b_data.q.val() >> (bit_cast::<D, 8>(self.idx.q.val()) << self.s_shift.val());
        self.sh_keep.next = self.b_keep.q.val() >> (bit_cast::<K, 8>(self.idx.q.val()) << self.sk_shift.val());
        self.rest.next = self.b_keep.q.val() >> ((bit_cast::<K, 8>(self.idx.q.val()) + 1) << self.sk_shift.val());
        self.at_end.next = (self.idx.q.val() == self.last_idx.val()) | !self.rest.val().any();
        self.ready.next = !self.reset.val() & (!self.b_v.q.val() | (self.o_load.val() & self.at_end.val()));
        self.s.tready.next = self.ready.val();
        if self.o_v.q.val() & self.m_tready.val() {
            self.o_v.d.next = false;
        }
        if self.b_v.q.val() & self.o_load.val() {
            self.o_v.d.next = true;
            self.o_data.d.next = self.sh_data.val().get_bits::<S>(0);
            self.o_keep.d.next = self.sh_keep.val().get_bits::<SK>(0);
            self.o_last.d.next = self.b_last.q.val() & self.at_end.val();
            self.o_user.d.next = self.b_user.q.val();
            self.idx.d.next = self.idx.q.val() + 1;
            if self.at_end.val() {
                self.b_v.d.next = false;
                self.idx.d.next = 0.into();
            }
        }
        if self.s.tvalid.val() & self.ready.val() {
            self.b_v.d.next = true;
            self.b_data.d.next = self.s.tdata.val();
            self.b_keep.d.next = self.s.tkeep.val();
            self.b_last.d.next = self.s.tlast.val();
            self.b_user.d.next = self.s.tuser.val();
        }
        self.m_tdata.next = self.o_data.q.val();
        self.m_tkeep.next = self.o_keep.q.val();
        self.m_tlast.next = self.o_last.q.val();
        self.m_tuser.next = self.o_user.q.val();
        self.m_tvalid.next = self.o_v.q.val();
    }
}

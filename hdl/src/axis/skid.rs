//! `ts_axis_skid`: AXI4-Stream register slice (skid buffer).
//!
//! Full throughput (one beat per cycle with `m_tready` held high), every output
//! registered and `s_tready` registered too, so it cuts every combinational path
//! between its two sides. Two entries: the output register and the skid register
//! that catches the beat accepted in the cycle `m_tready` falls.
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::prim::widgets::{vec_of, DffR, KeepCount};
use rust_hdl::prelude::*;

/// AXI4-Stream register slice.
///
/// Type parameters: `D` tdata bits, `K` tkeep bits (`D / 8`), `U` tuser bits,
/// `S` sideband bits (default 1; no port or register unless the slice is
/// built by [`AxisSkid::with_side`]).
///
/// Ports (AXI4-Stream names; `s_` is the slave input, `m_` the master output):
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset that
///   empties both entries (any beat inside is discarded).
/// - `s_tdata`, `s_tkeep`, `s_tlast`, `s_tuser`, `s_tvalid` in, `s_tready` out
///   (registered: high exactly when the skid entry is empty).
/// - `m_tdata`, `m_tkeep`, `m_tlast`, `m_tuser`, `m_tvalid` out (all registered;
///   in a slice built by [`AxisSkid::muxed`] the data outputs are a 2:1
///   multiplexer of two registered entries), `m_tready` in.
/// - `m_bytes` out (registered): the output beat's byte count, `m_tkeep`'s
///   lanes counted as a packed `tkeep` ([`KeepCount::thermo`]) at the input
///   and stored beside the beat, so a byte-counting consumer (a DRR
///   [`crate::axis::arb_mux::AxisArbMux`], on its `s_bytes_<i>`) reads a
///   flip-flop instead of counting lanes behind this slice (issue 14). Unused,
///   synthesis removes it.
/// - `s_side_0` in, `m_side_0` out (registered), only in a slice built by
///   [`AxisSkid::with_side`]: `S` bits carried beside each beat through the
///   same two entries, for a parent's per-beat state that must move exactly as
///   the beat does (the demultiplexer's decoded destination). Not part of the
///   stream's handshake.
#[derive(LogicBlock)]
pub struct AxisSkid<const D: usize, const K: usize, const U: usize, const S: usize = 1> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub m_bytes: Signal<Out, Bits<8>>,
    /// The sideband ([`AxisSkid::with_side`]): empty, or one word. A `Vec` so
    /// that a slice without it has neither the ports nor the registers.
    pub s_side: Vec<Signal<In, Bits<S>>>,
    pub m_side: Vec<Signal<Out, Bits<S>>>,
    out_side: Vec<DFF<Bits<S>>>,
    skid_side: Vec<DFF<Bits<S>>>,
    keep_count: KeepCount<K, 8>,
    out_bytes: DFF<Bits<8>>,
    skid_bytes: DFF<Bits<8>>,
    out_valid: DffR<Bit>,
    out_data: DFF<Bits<D>>,
    out_keep: DFF<Bits<K>>,
    out_last: DFF<Bit>,
    out_user: DFF<Bits<U>>,
    skid_valid: DffR<Bit>,
    skid_data: DFF<Bits<D>>,
    skid_keep: DFF<Bits<K>>,
    skid_last: DFF<Bit>,
    skid_user: DFF<Bits<U>>,
    eager: Constant<Bit>,
    /// [`AxisSkid::muxed`]: the two entries as a ring (`out_*` entry 0,
    /// `skid_*` entry 1), read by `rp`, written by `wp`; `mv` is the shown
    /// entry's valid and `full` both entries', registered.
    muxed: Constant<Bit>,
    rp: DffR<Bit>,
    wp: DffR<Bit>,
    mv: DffR<Bit>,
    full: DffR<Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    v0: Signal<Local, Bit>,
    v1: Signal<Local, Bit>,
    rp_next: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const U: usize, const S: usize> AxisSkid<D, K, U, S> {
    /// A slice whose data registers load in every cycle they may, valid beat
    /// or not (issue 14): for a slice behind a long `s_tvalid` (admission's
    /// decision, the arbiter's grant, the trimmer's passing packets), whose
    /// hundreds of enables then do not wait for it. Same beats out. Not the
    /// default: where `s_tdata` is the deep logic the wider enable logic can
    /// lengthen its paths (the trimmer before its stages were registered:
    /// Yosys depth 24 -> 26), and the demultiplexer lost 22 MHz.
    pub fn eager() -> Self {
        Self { eager: Constant::new(true), ..Default::default() }
    }

    /// A slice whose outputs are a 2:1 multiplexer of its two entries by a
    /// register (the read pointer), not an output register (issue 14): its
    /// `m_tready` reaches five flip-flops (both entries' valid flags, the
    /// read pointer, `m_tvalid` and `s_tready`), not the enables of every
    /// data register. For a slice in front of a consumer whose `s_tready`
    /// is deep logic (a traffic-manager port's scheduler grant, `ts_tm`'s
    /// path on the Versa: the grant fanning out to a queue slice's output
    /// enables across the part). Each entry's data registers load whenever
    /// the entry is empty (their enable is its valid flag); `m_tvalid` and
    /// `s_tready` stay registered; `m_tdata`, `m_tkeep`, `m_tlast`,
    /// `m_tuser`, `m_bytes` and `m_side_0` are one multiplexer level after
    /// the registers. Same beats, same throughput (one per cycle) and the
    /// same one-cycle latency as the default slice.
    pub fn muxed() -> Self {
        Self { muxed: Constant::new(true), ..Default::default() }
    }

    /// [`AxisSkid::muxed`] with [`AxisSkid::with_side`]'s sideband.
    pub fn muxed_with_side() -> Self {
        Self { muxed: Constant::new(true), ..Self::with_side() }
    }

    /// A slice that carries an `S`-bit sideband (`s_side_0` -> `m_side_0`)
    /// beside each beat, loaded and moved by the same enables as `tuser`.
    pub fn with_side() -> Self {
        Self { s_side: vec_of(1), m_side: vec_of(1), out_side: vec_of(1), skid_side: vec_of(1), ..Default::default() }
    }
}

impl<const D: usize, const K: usize, const U: usize, const S: usize> Default for AxisSkid<D, K, U, S> {
    fn default() -> Self {
        assert_eq!(K * 8, D, "AxisSkid: tkeep must have one bit per tdata byte");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_bytes: Default::default(),
            s_side: Vec::new(),
            m_side: Vec::new(),
            out_side: Vec::new(),
            skid_side: Vec::new(),
            keep_count: KeepCount::thermo(),
            out_bytes: Default::default(),
            skid_bytes: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_last: Default::default(),
            out_user: Default::default(),
            skid_valid: Default::default(),
            skid_data: Default::default(),
            skid_keep: Default::default(),
            skid_last: Default::default(),
            skid_user: Default::default(),
            eager: Constant::new(false),
            muxed: Constant::new(false),
            rp: Default::default(),
            wp: Default::default(),
            mv: Default::default(),
            full: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            v0: Default::default(),
            v1: Default::default(),
            rp_next: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize, const S: usize> Logic for AxisSkid<D, K, U, S> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, out_valid, skid_valid, out_data, out_keep, out_last, out_user, skid_data, skid_keep, skid_last, skid_user,
            out_bytes, skid_bytes, rp, wp, mv, full
        );
        self.rp.reset.next = self.reset.val();
        self.wp.reset.next = self.reset.val();
        self.mv.reset.next = self.reset.val();
        self.full.reset.next = self.reset.val();
        for j in 0..self.out_side.len() {
            self.out_side[j].clock.next = self.clock.val();
            self.skid_side[j].clock.next = self.clock.val();
            self.out_side[j].d.next = self.out_side[j].q.val();
            self.skid_side[j].d.next = self.skid_side[j].q.val();
            self.m_side[j].next = self.out_side[j].q.val();
        }
        self.keep_count.keep.next = self.s.tkeep.val();
        self.m_bytes.next = self.out_bytes.q.val();
        self.out_valid.reset.next = self.reset.val();
        self.skid_valid.reset.next = self.reset.val();
        self.s.tready.next = !self.skid_valid.q.val();
        self.push.next = false;
        self.pop.next = false;
        self.v0.next = false;
        self.v1.next = false;
        self.rp_next.next = false;
        self.m.tvalid.next = self.out_valid.q.val();
        self.m.tdata.next = self.out_data.q.val();
        self.m.tkeep.next = self.out_keep.q.val();
        self.m.tlast.next = self.out_last.q.val();
        self.m.tuser.next = self.out_user.q.val();
        if self.muxed.val() {
            // [`AxisSkid::muxed`]: entry 0 is `out_*`, entry 1 `skid_*`. A
            // beat is written to the empty entry `wp` names (in a two-entry
            // ring the entry at `wp` is empty whenever one is) and shown
            // from `rp`.
            self.s.tready.next = !self.full.q.val();
            self.m.tvalid.next = self.mv.q.val();
            if self.rp.q.val() {
                self.m.tdata.next = self.skid_data.q.val();
                self.m.tkeep.next = self.skid_keep.q.val();
                self.m.tlast.next = self.skid_last.q.val();
                self.m.tuser.next = self.skid_user.q.val();
                self.m_bytes.next = self.skid_bytes.q.val();
                for j in 0..self.m_side.len() {
                    self.m_side[j].next = self.skid_side[j].q.val();
                }
            }
            // Each entry loads while it is empty: its enable is its own
            // valid flag, not `m_tready`.
            if !self.out_valid.q.val() {
                self.out_data.d.next = self.s.tdata.val();
                self.out_keep.d.next = self.s.tkeep.val();
                self.out_last.d.next = self.s.tlast.val();
                self.out_user.d.next = self.s.tuser.val();
                self.out_bytes.d.next = self.keep_count.count.val();
                for j in 0..self.out_side.len() {
                    self.out_side[j].d.next = self.s_side[j].val();
                }
            }
            if !self.skid_valid.q.val() {
                self.skid_data.d.next = self.s.tdata.val();
                self.skid_keep.d.next = self.s.tkeep.val();
                self.skid_last.d.next = self.s.tlast.val();
                self.skid_user.d.next = self.s.tuser.val();
                self.skid_bytes.d.next = self.keep_count.count.val();
                for j in 0..self.skid_side.len() {
                    self.skid_side[j].d.next = self.s_side[j].val();
                }
            }
            self.push.next = self.s.tvalid.val() & !self.full.q.val();
            self.pop.next = self.mv.q.val() & self.m.tready.val();
            // The valid flags after this cycle: a push sets `wp`'s, a pop
            // clears `rp`'s (never the same entry: a push finds its entry
            // empty, a pop full).
            self.v0.next = (self.out_valid.q.val() & !(self.pop.val() & !self.rp.q.val())) | (self.push.val() & !self.wp.q.val());
            self.v1.next = (self.skid_valid.q.val() & !(self.pop.val() & self.rp.q.val())) | (self.push.val() & self.wp.q.val());
            self.rp_next.next = self.rp.q.val() ^ self.pop.val();
            self.out_valid.d.next = self.v0.val();
            self.skid_valid.d.next = self.v1.val();
            self.rp.d.next = self.rp_next.val();
            self.wp.d.next = self.wp.q.val() ^ self.push.val();
            self.full.d.next = self.v0.val() & self.v1.val();
            if self.rp_next.val() {
                self.mv.d.next = self.v1.val();
            } else {
                self.mv.d.next = self.v0.val();
            }
        } else {
            // The skid entry's data registers follow the input while the entry is
            // empty (what they hold matters only once `skid_valid` is set, and it
            // is set only in a cycle they load), so their enables are one
            // flip-flop, not `m_tready` (issue 14: a consumer's `s_tready`
            // fanning out to both entries' enables was `ts_tm`'s path on the
            // Versa).
            if !self.skid_valid.q.val() {
                self.skid_data.d.next = self.s.tdata.val();
                self.skid_keep.d.next = self.s.tkeep.val();
                self.skid_last.d.next = self.s.tlast.val();
                self.skid_user.d.next = self.s.tuser.val();
                self.skid_bytes.d.next = self.keep_count.count.val();
                for j in 0..self.skid_side.len() {
                    self.skid_side[j].d.next = self.s_side[j].val();
                }
            }
            if self.skid_valid.q.val() {
                // The output register is full (it always is while the skid is).
                if self.m.tready.val() {
                    self.out_data.d.next = self.skid_data.q.val();
                    self.out_keep.d.next = self.skid_keep.q.val();
                    self.out_last.d.next = self.skid_last.q.val();
                    self.out_user.d.next = self.skid_user.q.val();
                    self.out_bytes.d.next = self.skid_bytes.q.val();
                    for j in 0..self.out_side.len() {
                        self.out_side[j].d.next = self.skid_side[j].q.val();
                    }
                    self.skid_valid.d.next = false;
                }
            } else if self.s.tvalid.val() | self.eager.val() {
                // Eager ([`AxisSkid::eager`]): the data registers load whether or
                // not `s_tvalid` is high (a beat that is not valid is never
                // shown), so their enables do not wait for the logic in front
                // that computes `s_tvalid`.
                if !self.out_valid.q.val() | self.m.tready.val() {
                    self.out_data.d.next = self.s.tdata.val();
                    self.out_keep.d.next = self.s.tkeep.val();
                    self.out_last.d.next = self.s.tlast.val();
                    self.out_user.d.next = self.s.tuser.val();
                    self.out_bytes.d.next = self.keep_count.count.val();
                    for j in 0..self.out_side.len() {
                        self.out_side[j].d.next = self.s_side[j].val();
                    }
                    self.out_valid.d.next = self.s.tvalid.val();
                } else {
                    self.skid_valid.d.next = self.s.tvalid.val();
                }
            } else if self.m.tready.val() {
                self.out_valid.d.next = false;
            }
        }
    }
}

/// `ts_axis_pipe`: an AXI4-Stream pipeline register, one entry: registered
/// `m_*`, and `s_tready = !m_tvalid | m_tready` (one LUT, not registered).
/// Half the flip-flops of [`AxisSkid`], for a stage between two pieces of
/// logic inside a block whose downstream `m_tready` is itself a register (an
/// [`AxisSkid`]'s), so the ready path stays one LUT deep. Full throughput.
///
/// Ports: `clock`, `reset` (empties the entry); `s_*` in / `s_tready` out;
/// `m_*` out (registered) / `m_tready` in; `s_side_0` in / `m_side_0` out
/// (registered) only in a stage built by [`AxisPipe::with_side`]: `S` bits
/// carried beside each beat in the same entry (not part of the handshake).
#[derive(LogicBlock)]
pub struct AxisPipe<const D: usize, const K: usize, const U: usize, const S: usize = 1> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    /// The sideband ([`AxisPipe::with_side`]): empty, or one word.
    pub s_side: Vec<Signal<In, Bits<S>>>,
    pub m_side: Vec<Signal<Out, Bits<S>>>,
    side: Vec<DFF<Bits<S>>>,
    valid: DffR<Bit>,
    data: DFF<Bits<D>>,
    keep: DFF<Bits<K>>,
    last: DFF<Bit>,
    user: DFF<Bits<U>>,
}

impl<const D: usize, const K: usize, const U: usize, const S: usize> AxisPipe<D, K, U, S> {
    /// A stage that carries an `S`-bit sideband (`s_side_0` -> `m_side_0`)
    /// beside each beat, loaded by the same enable as `tdata`.
    pub fn with_side() -> Self {
        Self { s_side: vec_of(1), m_side: vec_of(1), side: vec_of(1), ..Default::default() }
    }
}

impl<const D: usize, const K: usize, const U: usize, const S: usize> Default for AxisPipe<D, K, U, S> {
    fn default() -> Self {
        assert_eq!(K * 8, D, "AxisPipe: tkeep must have one bit per tdata byte");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            s_side: Vec::new(),
            m_side: Vec::new(),
            side: Vec::new(),
            valid: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            user: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize, const S: usize> Logic for AxisPipe<D, K, U, S> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, data, keep, last, user);
        for j in 0..self.side.len() {
            self.side[j].clock.next = self.clock.val();
            self.side[j].d.next = self.side[j].q.val();
            self.m_side[j].next = self.side[j].q.val();
        }
        self.valid.reset.next = self.reset.val();
        self.m.tvalid.next = self.valid.q.val();
        self.m.tdata.next = self.data.q.val();
        self.m.tkeep.next = self.keep.q.val();
        self.m.tlast.next = self.last.q.val();
        self.m.tuser.next = self.user.q.val();
        self.s.tready.next = !self.valid.q.val() | self.m.tready.val();
        if !self.valid.q.val() | self.m.tready.val() {
            // The data load does not wait for `s_tvalid` (a beat that is
            // not valid is never shown).
            self.data.d.next = self.s.tdata.val();
            self.keep.d.next = self.s.tkeep.val();
            self.last.d.next = self.s.tlast.val();
            self.user.d.next = self.s.tuser.val();
            self.valid.d.next = self.s.tvalid.val();
            for j in 0..self.side.len() {
                self.side[j].d.next = self.s_side[j].val();
            }
        }
    }
}

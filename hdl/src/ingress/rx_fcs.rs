//! `ts_rx_fcs`: the receive check of one port (seed 002, the Silicon One Rx
//! IFG): CRC-32, runts, oversize and empty frames, FCS strip, and the port's
//! receive buffer. Behaviour: `docs/ingress.md`, "rx_fcs".
//!
//! Structure: the input beat is registered with its byte count (one cycle), then
//! goes to a [`Crc32Beat`] (which takes the beat as it comes in and registers
//! its CRC term beside it) and, one beat behind, to a
//! store-and-forward [`PktFifo`]. The one-beat hold is what makes the FCS strip
//! work when the FCS spans a beat boundary (a last beat of at most 4 bytes
//! vanishes and the beat before becomes the last), and it lines the frame's
//! last beat up with the CRC verdict, which comes one cycle after the last
//! beat in. The verdict drives the FIFO's `s_abort` on that last beat, so a bad
//! frame is discarded whole; an oversize frame is aborted as soon as it passes
//! `max_frame`, so it never fills the FIFO. The FIFO is built
//! [`PktFifo::with_length`]: `tuser.length` is valid from the first beat out.
//!
//! With [`RxFcs::with_mac_fcs`] (`ingress.fcs = "mac"`, issue 18) the MAC has
//! checked and removed the FCS already and flags a bad frame in `s_tuser` on
//! its last beat: the block then neither recomputes the CRC nor strips
//! anything, drops and counts (`drop_fcs`) the flagged frames, and applies
//! the length limits (FCS included) to the frame's length plus the 4 bytes
//! the MAC removed. In either mode a frame whose last beat carries `s_tuser`
//! is dropped as bad FCS (a MAC that keeps the FCS may still flag an error,
//! e.g. an /E/ inside the frame, whose CRC happened to hold).
use crate::axis::bundle::{AxisPlainSink, AxisSource};
use crate::axis::pkt_fifo::PktFifo;
use crate::meta::shift::SH_T_IN;
use crate::meta::{LENGTH_LSB, T_IN_BITS, T_IN_LSB};
use crate::prim::crc::Crc32Beat;
use crate::prim::widgets::{DffR, KeepCount, SumLe};
use rust_hdl::prelude::*;

/// Receive check and buffer of one port. Type parameters as for [`PktFifo`]
/// (`U` at least 32).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (abandons the frame in progress, empties the FIFO, zeroes the counters).
/// - `s_tdata`, `s_tkeep`, `s_tlast`, `s_tuser`, `s_tvalid` in, `s_tready`
///   out: frames from the MAC, FCS included (without it, with
///   [`RxFcs::with_mac_fcs`]); `s_tuser` on a last beat: the MAC's bad-frame
///   flag (read on last beats only; tie to 0 for a MAC without one).
///   `s_tready` is high out of reset: the block never back-pressures the
///   MAC (a full FIFO drops and counts).
/// - `m_tdata` … `m_tready`: good frames; `m_tuser` = `src_port` (`port_id`),
///   `length` (bytes as sent) and, with a 128-bit `tuser`, `t_in` (`now` when
///   the frame's first beat came in, [`crate::meta::T_IN_LSB`]), other fields 0. `m_bytes` out: the
///   output beat's byte count, from the FIFO's register (for the ingress
///   arbiter's DRR, issue 14).
/// - `port_id` in: this port's number, for `tuser.src_port`.
/// - `now` in: the switch's cycle counter (16 bits), for `tuser.t_in`.
/// - `min_frame`, `max_frame` in: runt and oversize limits in bytes, FCS
///   included (run-time registers). `strip_fcs` in: remove the FCS (ignored
///   with [`RxFcs::with_mac_fcs`]: there is none to remove).
/// - Counters out (32 bits, wrap): `rx_pkts`, `rx_bytes` (good frames and their
///   bytes as sent, counted at the last beat out), `drop_empty`, `drop_runt`,
///   `drop_oversize`, `drop_fcs`, `drop_overflow` (good frames the FIFO had no
///   room for). Each has a `clr_<name>` input that zeroes it (clear-on-write).
///   The four verdict counters count a frame two cycles after its last beat
///   reached the hold register (the verdict, then the registered event).
/// - `occ_bytes`, `occ_pkts` out: the receive FIFO's occupancy (see [`PktFifo`]).
#[derive(LogicBlock)]
pub struct RxFcs<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisPlainSink<D, K>,
    pub m: AxisSource<D, K, U>,
    pub m_bytes: Signal<Out, Bits<8>>,
    pub port_id: Signal<In, Bits<8>>,
    pub now: Signal<In, Bits<16>>,
    pub min_frame: Signal<In, Bits<16>>,
    pub max_frame: Signal<In, Bits<16>>,
    pub strip_fcs: Signal<In, Bit>,
    pub rx_pkts: Signal<Out, Bits<32>>,
    pub rx_bytes: Signal<Out, Bits<32>>,
    pub drop_empty: Signal<Out, Bits<32>>,
    pub drop_runt: Signal<Out, Bits<32>>,
    pub drop_oversize: Signal<Out, Bits<32>>,
    pub drop_fcs: Signal<Out, Bits<32>>,
    pub drop_overflow: Signal<Out, Bits<32>>,
    pub clr_rx_pkts: Signal<In, Bit>,
    pub clr_rx_bytes: Signal<In, Bit>,
    pub clr_drop_empty: Signal<In, Bit>,
    pub clr_drop_runt: Signal<In, Bit>,
    pub clr_drop_oversize: Signal<In, Bit>,
    pub clr_drop_fcs: Signal<In, Bit>,
    pub clr_drop_overflow: Signal<In, Bit>,
    pub occ_bytes: Signal<Out, Bits<32>>,
    pub occ_pkts: Signal<Out, Bits<32>>,
    lanes: Constant<Bits<M>>,
    /// `ingress.fcs = "mac"`: no CRC, no strip, lengths counted from 4.
    mac_fcs: Constant<Bit>,
    /// The length register's value at a frame's start: 4 with `mac_fcs`
    /// (the FCS the MAC removed), else 0.
    len_base: Constant<Bits<16>>,
    all_keep: Constant<Bits<K>>,
    length_lsb: Constant<Bits<16>>,
    fcs_crc: Crc32Beat<D, K>,
    keep_count: KeepCount<K, M>,
    fifo: PktFifo<D, K, U, M, W>,
    // The input beat, registered with its byte count and `few` (issue 14:
    // the count's LUT levels in front of the length checks).
    i_valid: DffR<Bit>,
    i_data: DFF<Bits<D>>,
    i_last: DFF<Bit>,
    /// `s_tuser` of the beat (the MAC's flag, meaningful on a last beat).
    i_user: DFF<Bit>,
    i_nb: DFF<Bits<M>>,
    i_few: DFF<Bit>,
    /// `now` when the beat in `i_*` was at the input; then beside `h_*` and
    /// `f_*` (the frame's first beat's value goes into the FIFO's `tuser`).
    i_now: DFF<Bits<16>>,
    h_now: DFF<Bits<16>>,
    f_now: DFF<Bits<16>>,
    /// `tuser` has `t_in` (`U` = 128).
    stamp: Constant<Bit>,
    first: DffR<Bit>,
    /// The frame's bytes before the current beat, modulo 2^16, and whether
    /// they reached 2^16 (such a frame is oversize: `max_frame` has 16 bits).
    /// Both are zeroed by a frame's last beat, so a first beat reads them
    /// with no multiplexer in front of the length checks (issue 14).
    len: DffR<Bits<16>>,
    big: DffR<Bit>,
    over: DffR<Bit>,
    h_valid: DffR<Bit>,
    h_last: DffR<Bit>,
    h_data: DFF<Bits<D>>,
    h_nb: DFF<Bits<M>>,
    /// The MAC's flag of the frame whose last beat is in `h_*`.
    h_bad: DFF<Bit>,
    v_empty: DFF<Bit>,
    v_runt: DFF<Bit>,
    v_over: DFF<Bit>,
    // The FIFO's input, registered (beat and verdict), so the CRC check and
    // the strip logic do not chain into the FIFO's write logic (issue 14).
    f_valid: DffR<Bit>,
    f_data: DFF<Bits<D>>,
    f_keep: DFF<Bits<K>>,
    f_last: DFF<Bit>,
    f_abort: DFF<Bit>,
    n_pkts: DffR<Bits<32>>,
    n_bytes: DffR<Bits<32>>,
    n_empty: DffR<Bits<32>>,
    n_runt: DffR<Bits<32>>,
    n_over: DffR<Bits<32>>,
    n_fcs: DffR<Bits<32>>,
    /// A frame's drop, by reason, registered before its counter adds it (the
    /// FCS verdict is a 32-bit equality: it and the counter's increment in
    /// one cycle were 7 Xilinx LUT levels; issue 14). The counters lag the
    /// verdict by a cycle.
    e_empty: DffR<Bit>,
    e_runt: DffR<Bit>,
    e_over: DffR<Bit>,
    e_fcs: DffR<Bit>,
    beat_in: Signal<Local, Bit>,
    nb_in: Signal<Local, Bits<M>>,
    strip_n: Signal<Local, Bits<M>>,
    len_next: Signal<Local, Bits<17>>,
    over_next: Signal<Local, Bit>,
    // The length checks on `len_before + nb_in`, each one carry chain.
    len_before: Signal<Local, Bits<17>>,
    nb17: Signal<Local, Bits<17>>,
    gt_max: SumLe<17>,
    lt_min: SumLe<17>,
    at_most_4: SumLe<17>,
    four: Constant<Bits<17>>,
    /// Lanes 4 and up of `tkeep`: a last beat of at most 4 bytes has none.
    keep_hi: Constant<Bits<K>>,
    merge: Signal<Local, Bit>,
    out_valid: Signal<Local, Bit>,
    bad_last: Signal<Local, Bit>,
    /// The frame in `h_*` fails its FCS: the CRC's residue (without
    /// `mac_fcs`) or the MAC's flag.
    bad_fcs: Signal<Local, Bit>,
    verdict: Signal<Local, Bit>,
    pkt_out: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> RxFcs<D, K, U, M, W> {
    /// A receive check whose FIFO holds `fifo_depth` beats; it must hold a
    /// maximum frame plus one beat (the configuration checks this).
    pub fn new(fifo_depth: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_bytes: Default::default(),
            port_id: Default::default(),
            now: Default::default(),
            min_frame: Default::default(),
            max_frame: Default::default(),
            strip_fcs: Default::default(),
            rx_pkts: Default::default(),
            rx_bytes: Default::default(),
            drop_empty: Default::default(),
            drop_runt: Default::default(),
            drop_oversize: Default::default(),
            drop_fcs: Default::default(),
            drop_overflow: Default::default(),
            clr_rx_pkts: Default::default(),
            clr_rx_bytes: Default::default(),
            clr_drop_empty: Default::default(),
            clr_drop_runt: Default::default(),
            clr_drop_oversize: Default::default(),
            clr_drop_fcs: Default::default(),
            clr_drop_overflow: Default::default(),
            occ_bytes: Default::default(),
            occ_pkts: Default::default(),
            lanes: Constant::new((K as u64).to_bits()),
            mac_fcs: Constant::new(false),
            len_base: Constant::new(0u64.to_bits()),
            all_keep: Constant::new(Bits::<K>::mask()),
            length_lsb: Constant::new((LENGTH_LSB as u64).to_bits()),
            fcs_crc: Default::default(),
            keep_count: Default::default(),
            fifo: PktFifo::new(fifo_depth, true).with_length(),
            first: DffR::new(true),
            lt_min: SumLe::lt(),
            four: Constant::new(4u64.to_bits()),
            keep_hi: Constant::new(Bits::<K>::mask() & !0xFu64.to_bits::<K>()),
            i_valid: Default::default(),
            i_data: Default::default(),
            i_last: Default::default(),
            i_user: Default::default(),
            i_nb: Default::default(),
            i_few: Default::default(),
            i_now: Default::default(),
            h_now: Default::default(),
            f_now: Default::default(),
            stamp: Constant::new(U >= T_IN_LSB + T_IN_BITS),
            len: Default::default(),
            big: Default::default(),
            over: Default::default(),
            h_valid: Default::default(),
            h_last: Default::default(),
            h_data: Default::default(),
            h_nb: Default::default(),
            h_bad: Default::default(),
            v_empty: Default::default(),
            v_runt: Default::default(),
            v_over: Default::default(),
            f_valid: Default::default(),
            f_data: Default::default(),
            f_keep: Default::default(),
            f_last: Default::default(),
            f_abort: Default::default(),
            len_before: Default::default(),
            nb17: Default::default(),
            gt_max: Default::default(),
            at_most_4: Default::default(),
            n_pkts: Default::default(),
            n_bytes: Default::default(),
            n_empty: Default::default(),
            n_runt: Default::default(),
            n_over: Default::default(),
            n_fcs: Default::default(),
            e_empty: Default::default(),
            e_runt: Default::default(),
            e_over: Default::default(),
            e_fcs: Default::default(),
            beat_in: Default::default(),
            nb_in: Default::default(),
            strip_n: Default::default(),
            len_next: Default::default(),
            over_next: Default::default(),
            merge: Default::default(),
            out_valid: Default::default(),
            bad_last: Default::default(),
            bad_fcs: Default::default(),
            verdict: Default::default(),
            pkt_out: Default::default(),
        }
    }

    /// For a MAC that checks and removes the FCS itself (`ingress.fcs =
    /// "mac"`): frames arrive without it, a bad one flagged by `s_tuser` on
    /// its last beat. No CRC is computed (Yosys removes the engine) and
    /// nothing is stripped; `min_frame`/`max_frame` still count the FCS (the
    /// frame's length + 4), so one configuration serves both kinds of MAC.
    pub fn with_mac_fcs(mut self, mac: bool) -> Self {
        self.mac_fcs = Constant::new(mac);
        let base: u64 = if mac { 4 } else { 0 };
        self.len_base = Constant::new(base.to_bits());
        self.len = DffR::new(base.to_bits());
        self
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for RxFcs<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, i_valid, i_data, i_last, i_user, i_nb, i_few, i_now, h_now, f_now, first, len, big, over, h_valid, h_last, h_data,
            h_nb, h_bad, v_empty, v_runt, v_over, f_valid, f_data, f_keep, f_last, f_abort, n_pkts, n_bytes, n_empty, n_runt, n_over,
            n_fcs, e_empty, e_runt, e_over, e_fcs
        );
        self.f_valid.reset.next = self.reset.val();
        self.i_valid.reset.next = self.reset.val();
        self.first.reset.next = self.reset.val();
        self.len.reset.next = self.reset.val();
        self.big.reset.next = self.reset.val();
        self.over.reset.next = self.reset.val();
        self.h_valid.reset.next = self.reset.val();
        self.h_last.reset.next = self.reset.val();
        self.n_pkts.reset.next = self.reset.val();
        self.n_bytes.reset.next = self.reset.val();
        self.n_empty.reset.next = self.reset.val();
        self.n_runt.reset.next = self.reset.val();
        self.n_over.reset.next = self.reset.val();
        self.n_fcs.reset.next = self.reset.val();
        self.e_empty.reset.next = self.reset.val();
        self.e_runt.reset.next = self.reset.val();
        self.e_over.reset.next = self.reset.val();
        self.e_fcs.reset.next = self.reset.val();
        self.fcs_crc.clock.next = self.clock.val();
        self.fcs_crc.reset.next = self.reset.val();
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();

        // ---- input: length, CRC ----
        self.s.tready.next = !self.reset.val();
        self.i_valid.d.next = self.s.tvalid.val() & !self.reset.val();
        self.i_data.d.next = self.s.tdata.val();
        self.i_last.d.next = self.s.tlast.val();
        self.i_user.d.next = self.s.tuser.val();
        self.i_now.d.next = self.now.val();
        self.keep_count.keep.next = self.s.tkeep.val();
        self.i_nb.d.next = self.lanes.val();
        if self.s.tlast.val() {
            self.i_nb.d.next = self.keep_count.count.val();
        }
        // A last beat holding only (part of) the FCS folds into the beat
        // before. Its count (`keep_count`) is at most 4 iff no lane from 4 up
        // is set, and 0 iff none is.
        if self.strip_fcs.val() & !self.mac_fcs.val() {
            self.i_few.d.next = !(self.s.tkeep.val() & self.keep_hi.val()).any();
        } else {
            self.i_few.d.next = !self.s.tkeep.val().any();
        }
        self.beat_in.next = self.i_valid.q.val() & !self.reset.val();
        self.nb_in.next = self.i_nb.q.val();
        // The frame's length with this beat: `len_before + nb_in`.
        self.nb17.next = bit_cast::<17, M>(self.nb_in.val());
        self.len_before.next = bit_cast::<17, 16>(self.len.q.val());
        self.over_next.next = self.over.q.val();
        self.len_next.next = self.len_before.val() + self.nb17.val();
        self.gt_max.a.next = self.len_before.val();
        self.gt_max.b.next = self.nb17.val();
        self.gt_max.c.next = bit_cast::<17, 16>(self.max_frame.val());
        self.lt_min.a.next = self.len_before.val();
        self.lt_min.b.next = self.nb17.val();
        self.lt_min.c.next = bit_cast::<17, 16>(self.min_frame.val());
        self.at_most_4.a.next = self.len_before.val();
        self.at_most_4.b.next = self.nb17.val();
        self.at_most_4.c.next = self.four.val();
        if !self.gt_max.sum_le.val() {
            self.over_next.next = true;
        }

        // ---- one-beat hold, FCS strip ----
        self.strip_n.next = 0.into();
        if self.strip_fcs.val() & !self.mac_fcs.val() {
            self.strip_n.next = 4.into();
        }
        self.merge.next = self.beat_in.val() & self.i_last.q.val() & self.h_valid.q.val() & !self.h_last.q.val() & self.i_few.q.val();
        self.out_valid.next = self.h_valid.q.val() & (self.beat_in.val() | self.h_last.q.val()) & !self.merge.val();
        if self.beat_in.val() {
            self.first.d.next = self.i_last.q.val();
            self.len.d.next = self.len_next.val().get_bits::<16>(0);
            self.big.d.next = self.big.q.val() | self.len_next.val().get_bit(16);
            self.over.d.next = self.over_next.val();
            if self.i_last.q.val() {
                self.len.d.next = self.len_base.val();
                self.big.d.next = false;
                self.over.d.next = false;
                self.h_bad.d.next = self.i_user.q.val();
                self.v_empty.d.next = !self.big.q.val() & (self.len.q.val() == self.len_base.val()) & !self.nb_in.val().any();
                self.v_runt.d.next = !self.big.q.val() & (self.lt_min.sum_le.val() | self.at_most_4.sum_le.val());
                self.v_over.d.next = self.over_next.val();
            }
            if self.merge.val() {
                self.h_last.d.next = true;
                self.h_nb.d.next = self.h_nb.q.val() + self.nb_in.val() - self.strip_n.val();
            } else {
                self.h_valid.d.next = true;
                self.h_data.d.next = self.i_data.q.val();
                self.h_now.d.next = self.i_now.q.val();
                self.h_last.d.next = self.i_last.q.val();
                self.h_nb.d.next = self.nb_in.val();
                if self.i_last.q.val() {
                    if self.nb_in.val() > self.strip_n.val() {
                        self.h_nb.d.next = self.nb_in.val() - self.strip_n.val();
                    } else {
                        self.h_nb.d.next = 0.into();
                    }
                }
            }
        } else if self.out_valid.val() {
            self.h_valid.d.next = false;
        }

        self.fcs_crc.valid.next = self.beat_in.val();
        self.fcs_crc.start.next = self.first.q.val();
        // The engine takes the beat a cycle before its `valid` (it registers
        // the beat's own CRC term), so it reads the input, not `i_data`.
        self.fcs_crc.data.next = self.s.tdata.val();
        self.fcs_crc.keep.next = self.s.tkeep.val();

        // ---- verdict on the last beat, into the FIFO ----
        self.bad_fcs.next = (!self.mac_fcs.val() & !self.fcs_crc.residue_ok.val()) | self.h_bad.q.val();
        self.bad_last.next = self.v_empty.q.val() | self.v_runt.q.val() | self.v_over.q.val() | self.bad_fcs.val();
        self.f_data.d.next = self.h_data.q.val();
        self.f_now.d.next = self.h_now.q.val();
        self.f_keep.d.next = self.all_keep.val();
        if self.h_last.q.val() {
            self.f_keep.d.next = !(self.all_keep.val() << self.h_nb.q.val());
        }
        self.f_last.d.next = self.h_last.q.val();
        self.f_valid.d.next = self.out_valid.val();
        self.f_abort.d.next = (self.h_last.q.val() & self.bad_last.val()) | (!self.h_last.q.val() & self.over.q.val());
        // The FIFO never back-pressures (store-and-forward: `s_tready` is
        // high out of reset), so this register needs no ready.
        self.fifo.s.tdata.next = self.f_data.q.val();
        self.fifo.s.tkeep.next = self.f_keep.q.val();
        self.fifo.s.tlast.next = self.f_last.q.val();
        self.fifo.s.tuser.next = bit_cast::<U, 8>(self.port_id.val());
        if self.stamp.val() {
            self.fifo.s.tuser.next = bit_cast::<U, 8>(self.port_id.val()) | (bit_cast::<U, 16>(self.f_now.q.val()) << SH_T_IN);
        }
        self.fifo.s.tvalid.next = self.f_valid.q.val();
        self.fifo.s_abort.next = self.f_abort.q.val();
        self.fifo.clear_drops.next = self.clr_drop_overflow.val();
        self.verdict.next = self.out_valid.val() & self.h_last.q.val();
        self.e_empty.d.next = self.verdict.val() & self.v_empty.q.val();
        self.e_runt.d.next = self.verdict.val() & !self.v_empty.q.val() & self.v_runt.q.val();
        self.e_over.d.next = self.verdict.val() & !self.v_empty.q.val() & !self.v_runt.q.val() & self.v_over.q.val();
        self.e_fcs.d.next = self.verdict.val() & !self.v_empty.q.val() & !self.v_runt.q.val() & !self.v_over.q.val() & self.bad_fcs.val();
        if self.e_empty.q.val() {
            self.n_empty.d.next = self.n_empty.q.val() + 1;
        }
        if self.e_runt.q.val() {
            self.n_runt.d.next = self.n_runt.q.val() + 1;
        }
        if self.e_over.q.val() {
            self.n_over.d.next = self.n_over.q.val() + 1;
        }
        if self.e_fcs.q.val() {
            self.n_fcs.d.next = self.n_fcs.q.val() + 1;
        }

        // ---- output ----
        AxisSource::<D, K, U>::link(&mut self.m, &mut self.fifo.m);
        self.m_bytes.next = self.fifo.m_bytes.val();
        self.pkt_out.next = self.m.tvalid.val() & self.m.tready.val() & self.m.tlast.val();
        if self.pkt_out.val() {
            self.n_pkts.d.next = self.n_pkts.q.val() + 1;
            self.n_bytes.d.next =
                self.n_bytes.q.val() + bit_cast::<32, 16>(self.m.tuser.val().get_bits::<16>(self.length_lsb.val().index()));
        }
        if self.clr_rx_pkts.val() {
            self.n_pkts.d.next = 0.into();
        }
        if self.clr_rx_bytes.val() {
            self.n_bytes.d.next = 0.into();
        }
        if self.clr_drop_empty.val() {
            self.n_empty.d.next = 0.into();
        }
        if self.clr_drop_runt.val() {
            self.n_runt.d.next = 0.into();
        }
        if self.clr_drop_oversize.val() {
            self.n_over.d.next = 0.into();
        }
        if self.clr_drop_fcs.val() {
            self.n_fcs.d.next = 0.into();
        }
        self.rx_pkts.next = self.n_pkts.q.val();
        self.rx_bytes.next = self.n_bytes.q.val();
        self.drop_empty.next = self.n_empty.q.val();
        self.drop_runt.next = self.n_runt.q.val();
        self.drop_oversize.next = self.n_over.q.val();
        self.drop_fcs.next = self.n_fcs.q.val();
        self.drop_overflow.next = self.fifo.drop_pkts.val();
        self.occ_bytes.next = self.fifo.occ_bytes.val();
        self.occ_pkts.next = self.fifo.occ_pkts.val();
    }
}

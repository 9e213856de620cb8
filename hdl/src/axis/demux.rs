//! `ts_axis_demux`: 1:N AXI4-Stream demultiplexer by a destination field in `tuser`.
//!
//! The destination is the 8-bit field `tuser[dest_lsb +: 8]`, read on the first
//! beat of each packet and held for the rest of it. A destination that is the
//! configured drop code (`0xFF`) or not below N sends the packet to the drop
//! destination: every beat is accepted and discarded and `drop_pkts` counts the
//! packet. Packets are never split or reordered.
//!
//! The destination is decoded in front of the input slice, one bit per output
//! (and one for the drop destination), and each beat carries its packet's
//! one-hot through the slice as its sideband ([`AxisSkid::with_side`]):
//! `m_tvalid_<i>` is an AND of two flip-flops, so no compare or first-beat
//! select lies between the slice and the block the output feeds (issue 14:
//! `ts_tm`'s path of record on the Versa ran from the select through a queue's
//! write side into its RAM).
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::skid::AxisSkid;
use crate::prim::widgets::{vec_of, DffR};
use rust_hdl::prelude::*;

/// The destination value that always means "drop".
pub const DEST_DROP: u64 = 0xFF;

/// 1:N demux (N from [`AxisDemux::new`], 1..=64 outputs).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (discards the beat held in the input slice and zeroes `drop_pkts`).
/// - `s_tdata`, `s_tkeep`, `s_tlast`, `s_tuser`, `s_tvalid` in, `s_tready` out:
///   input stream (registered through an [`AxisSkid`] slice; the destination
///   is read from the beat entering it).
/// - `m_tdata_<i>`, `m_tkeep_<i>`, `m_tlast_<i>`, `m_tuser_<i>`, `m_tvalid_<i>`
///   out, `m_tready_<i>` in: output `i`. `tdata`/`tkeep`/`tlast`/`tuser` are shared by
///   all outputs; only `m_tvalid_<i>` of the destination is high.
/// - `drop_pkts` out: packets sent to the drop destination; `clear_drops` in
///   zeroes it.
#[derive(LogicBlock)]
pub struct AxisDemux<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: Vec<AxisSource<D, K, U>>,
    pub drop_pkts: Signal<Out, Bits<32>>,
    pub clear_drops: Signal<In, Bit>,
    dest_lsb: Constant<Bits<16>>,
    /// The input slice; its sideband carries each beat's one-hot (bits
    /// 0..=63: output i) and drop flag (bit 64).
    inp: AxisSkid<D, K, U, 65>,
    /// Input side: the next beat into the slice is a first beat; the one-hot
    /// and drop flag of the packet entering it.
    in_first: DffR<Bit>,
    in_oh: DffR<Bits<64>>,
    in_drop: DffR<Bit>,
    /// Output side: the beat leaving the slice is a first beat (for the count).
    first: DffR<Bit>,
    drops: DffR<Bits<32>>,
    dest: Signal<Local, Bits<8>>,
    oh: Signal<Local, Bits<64>>,
    oh_drop: Signal<Local, Bit>,
    in_side: Signal<Local, Bits<65>>,
    to_drop: Signal<Local, Bit>,
    ready: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const U: usize> AxisDemux<D, K, U> {
    /// A demux with `n` outputs taking the destination from `tuser[dest_lsb +: 8]`.
    pub fn new(n: usize, dest_lsb: usize) -> Self {
        assert_eq!(K * 8, D, "AxisDemux: K must be D/8");
        assert!((1..=64).contains(&n), "AxisDemux: 1..=64 outputs");
        assert!(dest_lsb + 8 <= U, "AxisDemux: destination field tuser[{dest_lsb} +: 8] must fit in {U} tuser bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: vec_of(n),
            drop_pkts: Default::default(),
            clear_drops: Default::default(),
            dest_lsb: Constant::new((dest_lsb as u64).to_bits()),
            inp: AxisSkid::with_side(),
            in_first: DffR::new(true),
            in_oh: Default::default(),
            in_drop: Default::default(),
            first: DffR::new(true),
            drops: Default::default(),
            dest: Default::default(),
            oh: Default::default(),
            oh_drop: Default::default(),
            in_side: Default::default(),
            to_drop: Default::default(),
            ready: Default::default(),
            take: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for AxisDemux<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_first, in_oh, in_drop, first, drops);
        self.in_first.reset.next = self.reset.val();
        self.in_oh.reset.next = self.reset.val();
        self.in_drop.reset.next = self.reset.val();
        self.first.reset.next = self.reset.val();
        self.drops.reset.next = self.reset.val();
        self.inp.clock.next = self.clock.val();
        self.inp.reset.next = self.reset.val();
        AxisSink::<D, K, U>::link(&mut self.s, &mut self.inp.s);

        // Input side: a first beat's destination decoded, one 8-bit equality
        // per output (no magnitude compare: the drop code 0xFF is never below
        // N, at most 64); the rest of the packet's beats repeat it.
        self.dest.next = self.s.tuser.val().get_bits::<8>(self.dest_lsb.val().index());
        self.oh.next = 0.into();
        self.oh_drop.next = true;
        for i in 0..self.m.len() {
            if self.dest.val().index() == i {
                self.oh.next = self.oh.val().replace_bit(i, true);
                self.oh_drop.next = false;
            }
        }
        if !self.in_first.q.val() {
            self.oh.next = self.in_oh.q.val();
            self.oh_drop.next = self.in_drop.q.val();
        }
        self.take.next = self.s.tvalid.val() & self.s.tready.val();
        if self.take.val() {
            self.in_first.d.next = self.s.tlast.val();
            self.in_oh.d.next = self.oh.val();
            self.in_drop.d.next = self.oh_drop.val();
        }
        self.in_side.next = bit_cast::<65, 64>(self.oh.val()).replace_bit(64, self.oh_drop.val());
        self.inp.s_side[0].next = self.in_side.val();
        // Output side.
        self.to_drop.next = self.inp.m_side[0].val().get_bit(64);
        self.ready.next = self.to_drop.val();
        for i in 0..self.m.len() {
            self.m[i].tdata.next = self.inp.m.tdata.val();
            self.m[i].tkeep.next = self.inp.m.tkeep.val();
            self.m[i].tlast.next = self.inp.m.tlast.val();
            self.m[i].tuser.next = self.inp.m.tuser.val();
            self.m[i].tvalid.next = self.inp.m.tvalid.val() & self.inp.m_side[0].val().get_bit(i);
            if self.inp.m_side[0].val().get_bit(i) {
                self.ready.next = self.m[i].tready.val();
            }
        }
        self.inp.m.tready.next = self.ready.val();
        if self.inp.m.tvalid.val() & self.ready.val() {
            self.first.d.next = self.inp.m.tlast.val();
            if self.first.q.val() & self.to_drop.val() {
                self.drops.d.next = self.drops.q.val() + 1;
            }
        }
        if self.clear_drops.val() {
            self.drops.d.next = 0.into();
        }
        self.drop_pkts.next = self.drops.q.val();
    }
}

//! `ts_axis_demux`: 1:N AXI4-Stream demultiplexer by a destination field in `tuser`.
//!
//! The destination is the 8-bit field `tuser[dest_lsb +: 8]`, read on the first
//! beat of each packet and held for the rest of it. A destination that is the
//! configured drop code (`0xFF`) or not below N sends the packet to the drop
//! destination: every beat is accepted and discarded and `drop_pkts` counts the
//! packet. Packets are never split or reordered.
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
///   input stream (registered through an [`AxisSkid`] slice).
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
    inp: AxisSkid<D, K, U>,
    first: DffR<Bit>,
    dest_q: DffR<Bits<8>>,
    drops: DffR<Bits<32>>,
    dest: Signal<Local, Bits<8>>,
    to_drop: Signal<Local, Bit>,
    ready: Signal<Local, Bit>,
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
            inp: Default::default(),
            first: DffR::new(true),
            dest_q: Default::default(),
            drops: Default::default(),
            dest: Default::default(),
            to_drop: Default::default(),
            ready: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for AxisDemux<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, first, dest_q, drops);
        self.first.reset.next = self.reset.val();
        self.dest_q.reset.next = self.reset.val();
        self.drops.reset.next = self.reset.val();
        self.inp.clock.next = self.clock.val();
        self.inp.reset.next = self.reset.val();
        AxisSink::<D, K, U>::link(&mut self.s, &mut self.inp.s);

        if self.first.q.val() {
            self.dest.next = self.inp.m.tuser.val().get_bits::<8>(self.dest_lsb.val().index());
        } else {
            self.dest.next = self.dest_q.q.val();
        }
        // Drop unless the destination is one of the outputs: one 8-bit
        // equality per output (two LUT levels) instead of a magnitude compare
        // (a carry chain) in front of the ready path. The same set: the drop
        // code (0xFF) is never below N (at most 64).
        self.to_drop.next = true;
        self.ready.next = false;
        for i in 0..self.m.len() {
            self.m[i].tdata.next = self.inp.m.tdata.val();
            self.m[i].tkeep.next = self.inp.m.tkeep.val();
            self.m[i].tlast.next = self.inp.m.tlast.val();
            self.m[i].tuser.next = self.inp.m.tuser.val();
            self.m[i].tvalid.next = self.inp.m.tvalid.val() & (self.dest.val().index() == i);
            if self.dest.val().index() == i {
                self.to_drop.next = false;
                self.ready.next = self.m[i].tready.val();
            }
        }
        if self.to_drop.val() {
            self.ready.next = true;
        }
        self.inp.m.tready.next = self.ready.val();
        if self.inp.m.tvalid.val() & self.ready.val() {
            self.first.d.next = self.inp.m.tlast.val();
            self.dest_q.d.next = self.dest.val();
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

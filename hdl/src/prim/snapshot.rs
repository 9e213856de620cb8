//! `SnapshotSync`: a 32-bit value carried from one clock to another whole,
//! for counters that live on a MAC's clock and are read on the switch's
//! (issue 18: the MAC counters in a board's register map, `docs/boards.md`).
//!
//! A multi-bit value cannot go through per-bit synchronizers (its bits would
//! arrive from different moments), and a byte counter moves by more than one
//! per cycle, so Gray code does not serve either. This is the request /
//! acknowledge hand-over (Cummings, "Clock Domain Crossing (CDC) Design &
//! Verification Techniques Using SystemVerilog", SNUG 2008, the MCP
//! formulation): the source copies the value into a holding register and
//! toggles `req`; the destination sees the toggle through two flip-flops,
//! takes the holding register (which does not change until it answers) and
//! toggles `ack` back, which the source sees through two flip-flops before
//! it takes the next copy. The value read is at most a few cycles of each
//! clock old, and always one the source really had.
//!
//! Either side's reset may come alone: the holding register is not loaded
//! while the source is in reset, so a hand-over under way still reads a
//! stable copy, and the two toggles are back in step after at most one
//! more hand-over.
use crate::prim::widgets::DffR;
use rust_hdl::prelude::*;

/// One value from `src_clock` to `dst_clock` (module docs).
///
/// Ports:
/// - `src_clock`, `src_reset` (synchronous, active high); `d` in (32 bits):
///   the value, on the source clock.
/// - `dst_clock`, `dst_reset` (synchronous, active high); `q` out (32 bits,
///   registered): the last value carried over, 0 after reset until the
///   first hand-over (a few cycles).
///
/// For static timing: `snap` (the holding register) to `taken` (behind `q`) is a multi-cycle
/// path of at least two destination cycles (bound it by one with
/// `set_max_delay -datapath_only`); `sreq1` and `sack1` are the first
/// stages of the two synchronizers.
#[derive(LogicBlock, Default)]
pub struct SnapshotSync {
    pub src_clock: Signal<In, Clock>,
    pub src_reset: Signal<In, Bit>,
    pub d: Signal<In, Bits<32>>,
    pub dst_clock: Signal<In, Clock>,
    pub dst_reset: Signal<In, Bit>,
    pub q: Signal<Out, Bits<32>>,
    // Source: the holding register, the request toggle, the acknowledge
    // through two flip-flops.
    snap: DFF<Bits<32>>,
    req: DffR<Bit>,
    sack1: DFF<Bit>,
    sack2: DFF<Bit>,
    // Destination: the request through two flip-flops, the acknowledge
    // toggle, the value.
    sreq1: DFF<Bit>,
    sreq2: DFF<Bit>,
    ack: DffR<Bit>,
    taken: DffR<Bits<32>>,
}

impl Logic for SnapshotSync {
    #[hdl_gen]
    fn update(&mut self) {
        self.snap.clock.next = self.src_clock.val();
        self.req.clock.next = self.src_clock.val();
        self.sack1.clock.next = self.src_clock.val();
        self.sack2.clock.next = self.src_clock.val();
        self.sreq1.clock.next = self.dst_clock.val();
        self.sreq2.clock.next = self.dst_clock.val();
        self.ack.clock.next = self.dst_clock.val();
        self.taken.clock.next = self.dst_clock.val();
        self.req.reset.next = self.src_reset.val();
        self.ack.reset.next = self.dst_reset.val();
        self.taken.reset.next = self.dst_reset.val();

        // ---- source ----
        self.sack1.d.next = self.ack.q.val();
        self.sack2.d.next = self.sack1.q.val();
        self.snap.d.next = self.snap.q.val();
        self.req.d.next = self.req.q.val();
        if (self.sack2.q.val() == self.req.q.val()) & !self.src_reset.val() {
            self.snap.d.next = self.d.val();
            self.req.d.next = !self.req.q.val();
        }

        // ---- destination ----
        self.sreq1.d.next = self.req.q.val();
        self.sreq2.d.next = self.sreq1.q.val();
        self.ack.d.next = self.ack.q.val();
        self.taken.d.next = self.taken.q.val();
        if self.sreq2.q.val() != self.ack.q.val() {
            self.taken.d.next = self.snap.q.val();
            self.ack.d.next = self.sreq2.q.val();
        }
        self.q.next = self.taken.q.val();
    }
}

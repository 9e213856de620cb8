//! `AsyncFifo`: a FIFO between two unrelated clocks, the clock crossing of a
//! MAC (the XGMII clock, 156.25 MHz for 10G) and the switch (200 or 322
//! MHz) (issue 18, `docs/boards.md`).
//!
//! The textbook structure (Cummings, "Simulation and Synthesis Techniques for
//! Asynchronous FIFO Design", SNUG 2002): each side keeps its pointer in
//! binary and in Gray code (one bit changes per step), each reads the other's
//! Gray pointer through two flip-flops of its own clock, and each works out
//! its flag (`full` on the write side, `empty` on the read side) from its own
//! pointer's next value against the synchronized one, registered. Each side
//! also keeps its pointer plus one, in binary and Gray, in registers, so the
//! flag compares registers only and the push or fetch just picks one of two
//! compares (issue 14: the increment, its Gray code and the compare in a row
//! were 7 Xilinx LUT levels in `ts_xgmii_port`). A pointer
//! seen late only makes a flag pessimistic for a few cycles: a word is never
//! lost, duplicated or read before it is written. The memory is written on the
//! write clock and read (registered) on the read clock: one dual-clock block
//! RAM ([`DcRam`]).
use crate::prim::widgets::DffR;
use rust_hdl::prelude::*;

/// A simple dual-port RAM with a write clock and a read clock (registered
/// read with enable): the shape Yosys and Vivado map to a dual-clock block
/// RAM. Ports as [`crate::prim::widgets::SdpRam`]'s, with `write_clock` and
/// `read_clock` in place of `clock`. No reset (the FIFO's pointers qualify
/// the contents).
#[derive(LogicBlock)]
pub struct DcRam<D: Synth, const A: usize> {
    pub write_clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, D>,
    pub read_clock: Signal<In, Clock>,
    pub read_enable: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, D>,
    _mem: std::collections::BTreeMap<Bits<A>, D>,
}

impl<D: Synth, const A: usize> Default for DcRam<D, A> {
    fn default() -> Self {
        Self {
            write_clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            read_clock: Default::default(),
            read_enable: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _mem: Default::default(),
        }
    }
}

impl<D: Synth, const A: usize> Logic for DcRam<D, A> {
    fn update(&mut self) {
        if self.read_clock.pos_edge() && self.read_enable.val() {
            self.read_data.next = *self._mem.get(&self.read_address.val()).unwrap_or(&D::default());
        }
        if self.write_clock.pos_edge() && self.write_enable.val() {
            self._mem.insert(self.write_address.val(), self.write_data.val());
        }
    }
    fn connect(&mut self) {
        self.read_data.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "(* no_rw_check *) reg [{msb}:0] mem [0:{last}];\n\
             always @(posedge write_clock) begin\n   \
                if (write_enable) mem[write_address] <= write_data;\n\
             end\n\
             always @(posedge read_clock) begin\n   \
                if (read_enable) read_data <= mem[read_address];\n\
             end\n",
            msb = D::BITS - 1,
            last = (1usize << A) - 1
        ))
    }
}

/// A FIFO of `2^A` words of `W` bits between two clocks (module docs).
///
/// Ports, write side (on `wr_clock`):
/// - `wr_clock`, `wr_reset`: the write clock; synchronous active-high reset
///   of the write side.
/// - `wr_data` in, `wr_valid` in, `wr_ready` out (registered, "not full"):
///   a word is written at a rising edge with both high.
/// - `wr_last` in: the word ends a frame. Read only when built
///   [`AsyncFifo::frames`]: the read side then sees a frame's words only
///   once its last is written (so a reader never waits inside a frame:
///   what a MAC transmitter needs), and the FIFO must hold the largest
///   frame (one larger fills it and waits for ever; the builder of the
///   FIFO checks its depth).
///
/// Read side (on `rd_clock`):
/// - `rd_clock`, `rd_reset`: the read clock; synchronous active-high reset
///   of the read side.
/// - `rd_data` out, `rd_valid` out (registered), `rd_ready` in: the oldest
///   word, taken at a rising edge with both high (first-word fall-through:
///   a word is shown as soon as it has crossed, two or three read-clock
///   cycles after its write).
///
/// Reset both sides together, each for at least three cycles of the slower
/// clock (so each side's synchronizers see the other's reset pointer); a
/// side reset alone loses or repeats words.
#[derive(LogicBlock)]
pub struct AsyncFifo<const W: usize, const A: usize, const A1: usize> {
    pub wr_clock: Signal<In, Clock>,
    pub wr_reset: Signal<In, Bit>,
    pub wr_data: Signal<In, Bits<W>>,
    pub wr_valid: Signal<In, Bit>,
    pub wr_ready: Signal<Out, Bit>,
    pub wr_last: Signal<In, Bit>,
    pub rd_clock: Signal<In, Clock>,
    pub rd_reset: Signal<In, Bit>,
    pub rd_data: Signal<Out, Bits<W>>,
    pub rd_valid: Signal<Out, Bit>,
    pub rd_ready: Signal<In, Bit>,
    ram: DcRam<Bits<W>, A>,
    // Write side: the pointer in binary and Gray (A + 1 bits: the wrap bit),
    // the read pointer's Gray code through two flip-flops, `full`.
    wbin: DffR<Bits<A1>>,
    /// `wbin + 1`, and the Gray codes of `wbin` and `wbin + 1`.
    wbin1: DffR<Bits<A1>>,
    wgray: DffR<Bits<A1>>,
    wgray1: DffR<Bits<A1>>,
    rq1: DffR<Bits<A1>>,
    rq2: DffR<Bits<A1>>,
    full: DffR<Bit>,
    /// The write pointer in Gray code as the read side sees it: as it
    /// stands, or in frame mode as it stood after the last frame's last
    /// word.
    cgray: DffR<Bits<A1>>,
    frame: Constant<Bit>,
    // Read side.
    rbin: DffR<Bits<A1>>,
    rgray: DffR<Bits<A1>>,
    /// `rbin + 1` and its Gray code.
    rbin1: DffR<Bits<A1>>,
    rgray1: DffR<Bits<A1>>,
    wq1: DffR<Bits<A1>>,
    wq2: DffR<Bits<A1>>,
    /// No word to read (as of the synchronized write pointer).
    empty: DffR<Bit>,
    /// The RAM's read register holds the head word.
    out_v: DffR<Bit>,
    // Combinational.
    push: Signal<Local, Bit>,
    /// `wbin1 + 1`, `rbin1 + 1`.
    winc: Signal<Local, Bits<A1>>,
    rinc: Signal<Local, Bits<A1>>,
    wbin_n: Signal<Local, Bits<A1>>,
    wgray_n: Signal<Local, Bits<A1>>,
    /// The read pointer as the write side must see it to be full: its two
    /// top bits inverted.
    full_at: Signal<Local, Bits<A1>>,
    pop: Signal<Local, Bit>,
    fetch: Signal<Local, Bit>,
    rbin_n: Signal<Local, Bits<A1>>,
    rgray_n: Signal<Local, Bits<A1>>,
    c_top2: Constant<Bits<A1>>,
}

impl<const W: usize, const A: usize, const A1: usize> Default for AsyncFifo<W, A, A1> {
    fn default() -> Self {
        assert!(A1 == A + 1 && A >= 2, "AsyncFifo: A1 = A + 1, at least 4 words");
        Self {
            wr_clock: Default::default(),
            wr_reset: Default::default(),
            wr_data: Default::default(),
            wr_valid: Default::default(),
            wr_ready: Default::default(),
            rd_clock: Default::default(),
            rd_reset: Default::default(),
            rd_data: Default::default(),
            rd_valid: Default::default(),
            rd_ready: Default::default(),
            ram: Default::default(),
            wbin: Default::default(),
            wbin1: DffR::new(1u64.to_bits()),
            wgray: Default::default(),
            wgray1: DffR::new(1u64.to_bits()),
            winc: Default::default(),
            rinc: Default::default(),
            rq1: Default::default(),
            rq2: Default::default(),
            full: DffR::new(true),
            cgray: Default::default(),
            frame: Constant::new(false),
            wr_last: Default::default(),
            rbin: Default::default(),
            rgray: Default::default(),
            rbin1: DffR::new(1u64.to_bits()),
            rgray1: DffR::new(1u64.to_bits()),
            wq1: Default::default(),
            wq2: Default::default(),
            empty: DffR::new(true),
            out_v: Default::default(),
            push: Default::default(),
            wbin_n: Default::default(),
            wgray_n: Default::default(),
            full_at: Default::default(),
            pop: Default::default(),
            fetch: Default::default(),
            rbin_n: Default::default(),
            rgray_n: Default::default(),
            c_top2: Constant::new((3u64 << (A1 - 2)).to_bits()),
        }
    }
}

impl<const W: usize, const A: usize, const A1: usize> AsyncFifo<W, A, A1> {
    /// A FIFO in frame mode (`wr_last` commits; see the ports).
    pub fn frames() -> Self {
        Self { frame: Constant::new(true), ..Default::default() }
    }
}

impl<const W: usize, const A: usize, const A1: usize> Logic for AsyncFifo<W, A, A1> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- write side ----
        self.wbin.clock.next = self.wr_clock.val();
        self.wbin1.clock.next = self.wr_clock.val();
        self.wgray.clock.next = self.wr_clock.val();
        self.wgray1.clock.next = self.wr_clock.val();
        self.wbin1.reset.next = self.wr_reset.val();
        self.wgray.reset.next = self.wr_reset.val();
        self.wgray1.reset.next = self.wr_reset.val();
        self.rq1.clock.next = self.wr_clock.val();
        self.rq2.clock.next = self.wr_clock.val();
        self.full.clock.next = self.wr_clock.val();
        self.wbin.reset.next = self.wr_reset.val();
        self.rq1.reset.next = self.wr_reset.val();
        self.rq2.reset.next = self.wr_reset.val();
        self.full.reset.next = self.wr_reset.val();
        self.cgray.clock.next = self.wr_clock.val();
        self.cgray.reset.next = self.wr_reset.val();
        self.rq1.d.next = self.rgray.q.val();
        self.rq2.d.next = self.rq1.q.val();
        self.push.next = self.wr_valid.val() & !self.full.q.val();
        self.full_at.next = self.rq2.q.val() ^ self.c_top2.val();
        self.winc.next = self.wbin1.q.val() + 1;
        self.wbin_n.next = self.wbin.q.val();
        self.wgray_n.next = self.wgray.q.val();
        self.full.d.next = self.wgray.q.val() == self.full_at.val();
        self.wbin1.d.next = self.wbin1.q.val();
        self.wgray1.d.next = self.wgray1.q.val();
        if self.push.val() {
            self.wbin_n.next = self.wbin1.q.val();
            self.wgray_n.next = self.wgray1.q.val();
            self.full.d.next = self.wgray1.q.val() == self.full_at.val();
            self.wbin1.d.next = self.winc.val();
            self.wgray1.d.next = self.winc.val() ^ (self.winc.val() >> 1);
        }
        self.wbin.d.next = self.wbin_n.val();
        self.wgray.d.next = self.wgray_n.val();
        self.cgray.d.next = self.cgray.q.val();
        if !self.frame.val() | (self.push.val() & self.wr_last.val()) {
            self.cgray.d.next = self.wgray_n.val();
        }
        self.wr_ready.next = !self.full.q.val();
        self.ram.write_clock.next = self.wr_clock.val();
        self.ram.write_enable.next = self.push.val();
        self.ram.write_address.next = self.wbin.q.val().get_bits::<A>(0);
        self.ram.write_data.next = self.wr_data.val();

        // ---- read side ----
        self.rbin.clock.next = self.rd_clock.val();
        self.rgray.clock.next = self.rd_clock.val();
        self.rbin1.clock.next = self.rd_clock.val();
        self.rgray1.clock.next = self.rd_clock.val();
        self.rbin1.reset.next = self.rd_reset.val();
        self.rgray1.reset.next = self.rd_reset.val();
        self.wq1.clock.next = self.rd_clock.val();
        self.wq2.clock.next = self.rd_clock.val();
        self.empty.clock.next = self.rd_clock.val();
        self.out_v.clock.next = self.rd_clock.val();
        self.rbin.reset.next = self.rd_reset.val();
        self.rgray.reset.next = self.rd_reset.val();
        self.wq1.reset.next = self.rd_reset.val();
        self.wq2.reset.next = self.rd_reset.val();
        self.empty.reset.next = self.rd_reset.val();
        self.out_v.reset.next = self.rd_reset.val();
        self.wq1.d.next = self.cgray.q.val();
        self.wq2.d.next = self.wq1.q.val();
        // The head word leaves; the RAM's read register takes the next one
        // when there is one and it is free (or being freed).
        self.pop.next = self.out_v.q.val() & self.rd_ready.val();
        self.fetch.next = !self.empty.q.val() & (!self.out_v.q.val() | self.pop.val());
        self.rinc.next = self.rbin1.q.val() + 1;
        self.rbin_n.next = self.rbin.q.val();
        self.rgray_n.next = self.rgray.q.val();
        self.empty.d.next = self.rgray.q.val() == self.wq2.q.val();
        self.rbin1.d.next = self.rbin1.q.val();
        self.rgray1.d.next = self.rgray1.q.val();
        if self.fetch.val() {
            self.rbin_n.next = self.rbin1.q.val();
            self.rgray_n.next = self.rgray1.q.val();
            self.empty.d.next = self.rgray1.q.val() == self.wq2.q.val();
            self.rbin1.d.next = self.rinc.val();
            self.rgray1.d.next = self.rinc.val() ^ (self.rinc.val() >> 1);
        }
        self.rbin.d.next = self.rbin_n.val();
        self.rgray.d.next = self.rgray_n.val();
        self.out_v.d.next = self.fetch.val() | (self.out_v.q.val() & !self.pop.val());
        self.ram.read_clock.next = self.rd_clock.val();
        self.ram.read_enable.next = self.fetch.val();
        self.ram.read_address.next = self.rbin.q.val().get_bits::<A>(0);
        self.rd_data.next = self.ram.read_data.val();
        self.rd_valid.next = self.out_v.q.val();
    }
}

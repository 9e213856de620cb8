//! `ts_axis_arb_mux`: N:1 AXI4-Stream arbiter multiplexer, packet-atomic.
//!
//! Three policies, selected at run time by `drr_enable` and `strict`:
//! - **round robin**: one packet per grant, rotating over the requesting inputs.
//! - **strict priority** (`strict` high, `drr_enable` low): one packet per
//!   grant, to the lowest-numbered requesting input (the traffic manager's
//!   header queue before its data queue).
//! - **byte-based deficit round robin** (surplus variant): an input starting its
//!   turn adds its `quantum` (bytes) to its deficit; it keeps the grant for more
//!   packets while the deficit stays positive, and the bytes of every beat sent
//!   are subtracted. A packet is never split, so the deficit can go negative by
//!   less than one packet; the debt is carried into the next round. This is
//!   the DRR of Shreedhar and Varghese without needing each packet's length before
//!   it is sent (hardware cannot peek at the length of a packet still arriving).
//!   An input whose queue runs empty forfeits positive credit (as in DRR). An
//!   input whose deficit plus quantum is still not positive is skipped for the
//!   round; bandwidth shares converge to the quantum ratios. A beat's bytes
//!   are given with the beat on `s_bytes_<i>` (the lanes of its `tkeep`):
//!   a [`crate::axis::pkt_fifo::PktFifo`]'s or an [`AxisSkid`]'s `m_bytes`,
//!   a flip-flop, so no count of `tkeep`'s lanes sits between the source's
//!   registers and the deficits (issue 14: counting 32 lanes took three of
//!   the seven LUT levels of the arbiter's longest path).
//!
//! Packet classes ([`AxisArbMux::with_priority`]): an input whose waiting
//! first beat has `tuser & mask == value` is a priority packet; while one
//! waits, the policy picks among the priority packets only (the switch's port
//! merge sends the pipelines' header-queue packets before their data). With
//! [`AxisArbMux::new`] (`mask` 0) every packet is one.
//!
//! A new packet is granted in the same cycle its first beat is offered, so
//! single-beat packets stream back to back. The output goes through a
//! [`AxisSkid`] register slice.
crate::gen::unroll::named_indices! {
    /// The sign bit of a deficit ([`DEFICIT_BITS`]-bit two's complement: a
    /// packet may overdraw its input's credit, which it pays back in later
    /// turns).
    DEFICIT_SIGN = 19;
}

/// Bits of a deficit and of its sums. A deficit lies in `1 - P ..= Q` for
/// quanta `Q < 2^16` and packets of `P` bytes, and the widest sum the
/// arbiter forms is `deficit + 2 Q`, below `3 * 2^16`: 20 bits hold every
/// value for packets up to 2^19 bytes (512 KiB; the switch's are at most
/// `ingress.max_frame`). Issue 14: 32-bit sums were chains of 26-28 bits
/// after [`LateSub`]'s low part, two Xilinx levels where 16 bits are one.
pub const DEFICIT_BITS: usize = DEFICIT_SIGN + 1;
const _: () = assert!(DEFICIT_BITS == 20, "the hdl_gen code below spells 20");
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::skid::AxisSkid;
use crate::prim::widgets::{vec_of, AddSub, DffR, LateSub};
use rust_hdl::prelude::*;

/// N:1 packet-atomic arbiter mux (N from [`AxisArbMux::new`], 2..=64 inputs).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset (drops
///   any beat in the output slice, clears deficits and the rotation).
/// - `s_tdata_<i>`, `s_tkeep_<i>`, `s_tlast_<i>`, `s_tuser_<i>`, `s_tvalid_<i>`
///   in, `s_tready_<i>` out: input `i`. `s_tready_<i>` may depend on the
///   `s_tvalid` of all inputs (allowed by AXI4-Stream).
/// - `m_tdata`, `m_tkeep`, `m_tlast`, `m_tuser`, `m_tvalid` out, `m_tready` in:
///   output (registered).
/// - `drr_enable` in: 0 = round robin (or strict), 1 = byte-based deficit round robin.
/// - `strict` in: with `drr_enable` low, strict priority by input number.
/// - `s_bytes_<i>` in: the byte count of input `i`'s beat (the lanes of its
///   `tkeep`), read by DRR only (tie it to 0 for round robin and strict
///   priority).
/// - `quantum_<i>` in: bytes added to input `i`'s deficit per DRR round (use at
///   least the largest packet size for one packet per round). Bits 15:0 are
///   read (1..=65535 bytes; 0 skips the input for ever); the rest are ignored. The
///   credit test (`deficit + quantum > 0`) is a register, so a new quantum
///   decides grants from the second cycle after it is set.
#[derive(LogicBlock)]
pub struct AxisArbMux<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: Vec<AxisSink<D, K, U>>,
    pub m: AxisSource<D, K, U>,
    pub drr_enable: Signal<In, Bit>,
    pub strict: Signal<In, Bit>,
    pub quantum: Vec<Signal<In, Bits<32>>>,
    pub s_bytes: Vec<Signal<In, Bits<8>>>,
    prio_mask: Constant<Bits<U>>,
    prio_value: Constant<Bits<U>>,
    is_prio: Vec<Signal<Local, Bit>>,
    req: Vec<Signal<Local, Bit>>,
    any_prio: Signal<Local, Bit>,
    out: AxisSkid<D, K, U>,
    /// The deficit after this beat, in both variants of a turn's start: with
    /// the quantum added (`nd_add`, the first beat of a turn) and without
    /// (`nd_no`); the start only selects (issue 14: no path from the turn's
    /// state through a carry chain). A beat's bytes come in late, off the
    /// low [`low_bits`] bits ([`LateSub`]: no carry chain after another, and
    /// none of 32 bits between a beat's `tkeep` and the deficit).
    nd_add: Vec<LateSub<DEFICIT_BITS>>,
    nd_no: Vec<LateSub<DEFICIT_BITS>>,
    /// `deficit + quantum - 1` and `next deficit - 1` (both variants): their
    /// signs are the tests `credit > 0` and `next deficit > 0` straight out of
    /// a carry chain.
    credit_m1: Vec<AddSub<DEFICIT_BITS>>,
    rem_add: Vec<LateSub<DEFICIT_BITS>>,
    rem_no: Vec<LateSub<DEFICIT_BITS>>,
    /// The credit test of the deficit being written, a cycle ahead: `next
    /// deficit + quantum - 1` after a beat (`deficit + 2 * quantum - bytes -
    /// 1` at a turn's start, else `rem_add`) and `deficit + 2 * quantum - 1`
    /// after a skip.
    beat_cm1: Vec<LateSub<DEFICIT_BITS>>,
    skip_cm1: Vec<AddSub<DEFICIT_BITS>>,
    /// `deficit + quantum > 0`, registered (issue 14: no carry chain between
    /// the deficits and the grant). Exact for every deficit written, since
    /// each write also writes the test of the value written; a change of
    /// `quantum` alone reaches it one cycle later.
    cok: Vec<DFF<Bit>>,
    locked: DffR<Bit>,
    /// A DRR turn was kept at the last packet's end; it holds while the
    /// current input's deficit is positive (`turn_eff`).
    turn: DffR<Bit>,
    /// `deficit > 0` per input, registered: written with every deficit, so
    /// the end of a turn is read from a flag in the next cycle instead of
    /// the deficit's carry chain deciding it in this one (issue 14).
    pos: Vec<DffR<Bit>>,
    /// The input holding the output (a packet or a DRR turn), one-hot.
    cur: Vec<DffR<Bit>>,
    /// The order of the inputs, one row per input (issue 14: no search
    /// between the requests and the grant): bit `j` of `ord[i]` is "input
    /// `j` goes before input `i`", so `i` is picked when it requests and no
    /// input before it does, one AND-OR per input. Round robin descending
    /// from the last input served (`L`): the inputs below `L`, highest
    /// first, then the others, highest first; written when an input is
    /// served. Strict priority: lowest first. A change of `strict` or
    /// `drr_enable` orders the picks from the next cycle.
    ord: Vec<DFF<Bits<64>>>,
    /// Per input, the bits of the inputs numbered below and above it.
    lo: Vec<Constant<Bits<64>>>,
    hi: Vec<Constant<Bits<64>>>,
    deficit: Vec<DffR<Bits<DEFICIT_BITS>>>,
    // Combinational helpers.
    req_v: Signal<Local, Bits<64>>,
    /// "The input served is at or below `x`", bit `x` (a prefix OR of `sel`).
    le_last: Signal<Local, Bits<64>>,
    le_acc: Signal<Local, Bit>,
    strict_now: Signal<Local, Bit>,
    /// The arbitration, one-hot (issue 14: no index encoders and decoders
    /// between the requests and the grant).
    pick: Vec<Signal<Local, Bit>>,
    sel: Vec<Signal<Local, Bit>>,
    /// `locked` or a kept DRR turn: the current input holds the output.
    hold: Signal<Local, Bit>,
    grant: Signal<Local, Bit>,
    // Per input: granted, skipped for lack of credit, its turn ended dry,
    // a beat taken.
    gnt: Vec<Signal<Local, Bit>>,
    skip: Vec<Signal<Local, Bit>>,
    dry: Vec<Signal<Local, Bit>>,
    xfer_i: Vec<Signal<Local, Bit>>,
    credit: Vec<Signal<Local, Bits<DEFICIT_BITS>>>,
    credit_ok: Vec<Signal<Local, Bit>>,
    quantum_nz: Vec<Signal<Local, Bit>>,
    quantum2: Vec<Signal<Local, Bits<DEFICIT_BITS>>>,
    /// `quantum`'s bits 15:0, at the deficit's width.
    q16: Vec<Signal<Local, Bits<DEFICIT_BITS>>>,
    c_q16: Constant<Bits<DEFICIT_BITS>>,
    bytes: Vec<Signal<Local, Bits<8>>>,
    hold_i: Vec<Signal<Local, Bit>>,
    beat_add: Vec<Signal<Local, Bit>>,
    beat_no: Vec<Signal<Local, Bit>>,
    /// The deficit's write enable, `pick & dwe_x | dwe_y`.
    dwe_x: Vec<Signal<Local, Bit>>,
    dwe_y: Vec<Signal<Local, Bit>>,
    turn_eff: Signal<Local, Bit>,
    sel_last: Signal<Local, Bit>,
    sel_keep: Signal<Local, Bits<K>>,
    /// The output beat in both cases, the held input's (`h_*`, selected by
    /// the registered `cur`) and the picked input's (`p_*`), with `hold`
    /// choosing between them last: `hold` (the DRR turn's flags) reaches
    /// the output slice through one 2:1 multiplexer, not through every
    /// input's select and the N:1 multiplexer behind it (issue 14).
    h_data: Signal<Local, Bits<D>>,
    h_user: Signal<Local, Bits<U>>,
    h_keep: Signal<Local, Bits<K>>,
    h_last: Signal<Local, Bit>,
    p_data: Signal<Local, Bits<D>>,
    p_user: Signal<Local, Bits<U>>,
    p_keep: Signal<Local, Bits<K>>,
    p_last: Signal<Local, Bit>,
    /// Two inputs: the output beat is one 2:1 multiplexer by `sel[0]`
    /// (`hold`, the requests and the order reach it through `sel[0]`'s
    /// single LUT; issue 14: the `h_*`/`p_*` selects and `hold`'s
    /// multiplexer behind them were two levels, `ts_switch`'s path on the
    /// Versa through the traffic manager's port scheduler).
    two: Constant<Bit>,
    xfer: Signal<Local, Bit>,
    /// Write the order rows past the input served (`sel`): at every beat
    /// taken, skip and dry end. The rows are read only when no input holds
    /// the output, and every beat of a packet (and of a DRR turn) comes from
    /// the input that holds it, so rows written at a packet's first beat are
    /// those its last beat would write. Issue 14: written at the last beat
    /// only, the picked input's `tlast` (an N:1 multiplexer by `pick`) sat
    /// in the loop `ord` -> pick -> `tlast` -> `ord`.
    upd_ord: Signal<Local, Bit>,
}

/// The bits of `n` inputs.
fn mask_n(n: usize) -> u64 {
    if n == 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The low bits a beat's byte count (at most `K`, plus one) comes off:
/// `2^w > K + 1` ([`LateSub`] subtracts below `2^w`).
fn low_bits(k: usize) -> usize {
    clog2(k + 2)
}

impl<const D: usize, const K: usize, const U: usize> AxisArbMux<D, K, U> {
    /// An arbiter with `n` inputs (2..=64).
    pub fn new(n: usize) -> Self {
        Self::with_priority(n, Bits::default(), Bits::default())
    }

    /// An arbiter with `n` inputs whose packets with `tuser & mask == value`
    /// (at the first beat) go before the others (module docs).
    pub fn with_priority(n: usize, mask: Bits<U>, value: Bits<U>) -> Self {
        assert_eq!(K * 8, D, "AxisArbMux: K must be D/8");
        assert!((2..=64).contains(&n), "AxisArbMux: 2..=64 inputs");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: vec_of(n),
            m: Default::default(),
            drr_enable: Default::default(),
            strict: Default::default(),
            quantum: vec_of(n),
            s_bytes: vec_of(n),
            prio_mask: Constant::new(mask),
            prio_value: Constant::new(value),
            is_prio: vec_of(n),
            req: vec_of(n),
            any_prio: Default::default(),
            out: AxisSkid::eager(),
            nd_add: (0..n).map(|_| LateSub::new(low_bits(K), false)).collect(),
            nd_no: (0..n).map(|_| LateSub::new(low_bits(K), false)).collect(),
            credit_m1: (0..n).map(|_| AddSub::minus_one()).collect(),
            rem_add: (0..n).map(|_| LateSub::new(low_bits(K), true)).collect(),
            rem_no: (0..n).map(|_| LateSub::new(low_bits(K), true)).collect(),
            beat_cm1: (0..n).map(|_| LateSub::new(low_bits(K), true)).collect(),
            skip_cm1: (0..n).map(|_| AddSub::minus_one()).collect(),
            cok: vec_of(n),
            locked: Default::default(),
            turn: Default::default(),
            pos: vec_of(n),
            cur: vec_of(n),
            ord: vec_of(n),
            lo: (0..n).map(|i| Constant::new(((1u64 << i) - 1).to_bits())).collect(),
            hi: (0..n).map(|i| Constant::new((mask_n(n) & !((2u64 << i).wrapping_sub(1))).to_bits())).collect(),
            req_v: Default::default(),
            le_last: Default::default(),
            le_acc: Default::default(),
            strict_now: Default::default(),
            deficit: vec_of(n),
            pick: vec_of(n),
            sel: vec_of(n),
            hold: Default::default(),
            grant: Default::default(),
            gnt: vec_of(n),
            skip: vec_of(n),
            dry: vec_of(n),
            xfer_i: vec_of(n),
            credit: vec_of(n),
            credit_ok: vec_of(n),
            quantum_nz: vec_of(n),
            quantum2: vec_of(n),
            q16: vec_of(n),
            c_q16: Constant::new(0xFFFFu64.to_bits()),
            bytes: vec_of(n),
            hold_i: vec_of(n),
            beat_add: vec_of(n),
            beat_no: vec_of(n),
            dwe_x: vec_of(n),
            dwe_y: vec_of(n),
            turn_eff: Default::default(),
            sel_last: Default::default(),
            sel_keep: Default::default(),
            h_data: Default::default(),
            h_user: Default::default(),
            h_keep: Default::default(),
            h_last: Default::default(),
            p_data: Default::default(),
            p_user: Default::default(),
            p_keep: Default::default(),
            p_last: Default::default(),
            two: Constant::new(n == 2),
            xfer: Default::default(),
            upd_ord: Default::default(),
        }
    }

    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.s.len()
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for AxisArbMux<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, locked, turn);
        self.locked.reset.next = self.reset.val();
        self.turn.reset.next = self.reset.val();
        for i in 0..self.cur.len() {
            self.cur[i].clock.next = self.clock.val();
            self.cur[i].reset.next = self.reset.val();
            self.cur[i].d.next = self.cur[i].q.val();
        }
        for i in 0..self.ord.len() {
            self.ord[i].clock.next = self.clock.val();
            self.ord[i].d.next = self.ord[i].q.val();
        }
        for i in 0..self.deficit.len() {
            self.deficit[i].clock.next = self.clock.val();
            self.deficit[i].reset.next = self.reset.val();
            self.deficit[i].d.next = self.deficit[i].q.val();
            self.cok[i].clock.next = self.clock.val();
            self.pos[i].clock.next = self.clock.val();
            self.pos[i].reset.next = self.reset.val();
            self.pos[i].d.next = self.pos[i].q.val();
        }
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();

        // Requests: priority packets only, while one waits.
        self.any_prio.next = false;
        for i in 0..self.s.len() {
            self.is_prio[i].next = (self.s[i].tuser.val() & self.prio_mask.val()) == self.prio_value.val();
            self.any_prio.next = self.any_prio.val() | (self.s[i].tvalid.val() & self.is_prio[i].val());
        }
        for i in 0..self.s.len() {
            self.req[i].next = self.s[i].tvalid.val() & (self.is_prio[i].val() | !self.any_prio.val());
        }
        // Each input picked when it requests and no input before it does.
        self.req_v.next = 0.into();
        for i in 0..self.s.len() {
            self.req_v.next = self.req_v.val().replace_bit(i, self.req[i].val());
        }
        for i in 0..self.s.len() {
            self.pick[i].next = self.req[i].val() & !(self.req_v.val() & self.ord[i].q.val()).any();
        }

        // Who holds the output this cycle: per input from its own flags (the
        // packet's lock, a kept DRR turn while its deficit is positive), then
        // their OR (issue 14: the deficit updates read the holder's own flag).
        self.turn_eff.next = false;
        self.hold.next = false;
        for i in 0..self.s.len() {
            self.hold_i[i].next = self.cur[i].q.val() & (self.locked.q.val() | (self.turn.q.val() & self.pos[i].q.val()));
            self.hold.next = self.hold.val() | self.hold_i[i].val();
            self.turn_eff.next = self.turn_eff.val() | (self.cur[i].q.val() & self.pos[i].q.val());
        }
        self.turn_eff.next = self.turn_eff.val() & self.turn.q.val();
        self.turn.d.next = self.turn_eff.val();
        self.grant.next = false;
        for i in 0..self.s.len() {
            // Per input, from its own flags (issue 14: no multiplexer over the
            // inputs between the selection and the grant): a held input sends
            // while it has a beat; a new packet needs credit under DRR.
            if self.hold.val() {
                self.sel[i].next = self.cur[i].q.val();
            } else {
                self.sel[i].next = self.pick[i].val();
            }
            self.gnt[i].next = (self.hold_i[i].val() & self.s[i].tvalid.val())
                | (!self.hold.val() & self.pick[i].val() & (self.cok[i].q.val() | !self.drr_enable.val()));
            self.grant.next = self.grant.val() | self.gnt[i].val();
            // Skipped for lack of credit (`pick` implies a request), and the
            // end of a DRR turn on an input that ran dry.
            self.skip[i].next = !self.hold.val() & self.drr_enable.val() & self.pick[i].val() & !self.cok[i].q.val();
            self.dry[i].next =
                self.cur[i].q.val() & self.turn.q.val() & self.pos[i].q.val() & !self.locked.q.val() & !self.s[i].tvalid.val();
            // A DRR beat taken: the first of a turn (the quantum added) or a
            // held one.
            self.beat_add[i].next =
                !self.hold.val() & self.pick[i].val() & self.cok[i].q.val() & self.out.s.tready.val() & self.drr_enable.val();
            self.beat_no[i].next = self.hold_i[i].val() & self.s[i].tvalid.val() & self.out.s.tready.val() & self.drr_enable.val();
        }
        // Every input's DRR arithmetic runs in parallel from registers and its
        // own beat, so no adder sits behind the arbitration (issue 14): the
        // credit of a new turn (`deficit + quantum`, granted when positive)
        // and the deficit after this beat (`deficit (+ quantum at a turn's
        // start) - beat bytes`: the bytes come in late, [`LateSub`]). The
        // turn's state and the input's events pick the results afterwards.
        for i in 0..self.deficit.len() {
            self.q16[i].next = self.quantum[i].val().get_bits::<20>(0) & self.c_q16.val();
            self.credit[i].next = self.deficit[i].q.val() + self.q16[i].val();
            self.credit_m1[i].a.next = self.deficit[i].q.val();
            self.credit_m1[i].b.next = self.q16[i].val();
            self.credit_m1[i].c.next = 0.into();
            self.credit_ok[i].next = !self.credit_m1[i].add_sub.val().get_bit(DEFICIT_SIGN);
            // Unless the deficit is written below, the test of its value as
            // it stands (and of the quantum as it stands).
            self.cok[i].d.next = self.credit_ok[i].val();
            self.quantum_nz[i].next = self.q16[i].val().any();
            self.quantum2[i].next = self.q16[i].val() << 1;
            self.bytes[i].next = self.s_bytes[i].val();
            self.nd_add[i].a.next = self.deficit[i].q.val();
            self.nd_add[i].b.next = self.q16[i].val();
            self.nd_add[i].s.next = self.bytes[i].val();
            self.rem_add[i].a.next = self.deficit[i].q.val();
            self.rem_add[i].b.next = self.q16[i].val();
            self.rem_add[i].s.next = self.bytes[i].val();
            self.nd_no[i].a.next = self.deficit[i].q.val();
            self.nd_no[i].b.next = 0.into();
            self.nd_no[i].s.next = self.bytes[i].val();
            self.rem_no[i].a.next = self.deficit[i].q.val();
            self.rem_no[i].b.next = 0.into();
            self.rem_no[i].s.next = self.bytes[i].val();
            // `next deficit + quantum - 1` at a turn's start.
            self.beat_cm1[i].a.next = self.deficit[i].q.val();
            self.beat_cm1[i].b.next = self.quantum2[i].val();
            self.beat_cm1[i].s.next = self.bytes[i].val();
            self.skip_cm1[i].a.next = self.deficit[i].q.val();
            self.skip_cm1[i].b.next = self.quantum2[i].val();
            self.skip_cm1[i].c.next = 0.into();
        }
        self.h_last.next = false;
        self.h_keep.next = 0.into();
        self.h_data.next = 0.into();
        self.h_user.next = 0.into();
        self.p_last.next = false;
        self.p_keep.next = 0.into();
        self.p_data.next = 0.into();
        self.p_user.next = 0.into();
        for i in 0..self.s.len() {
            if self.cur[i].q.val() {
                self.h_last.next = self.s[i].tlast.val();
                self.h_keep.next = self.s[i].tkeep.val();
                self.h_data.next = self.s[i].tdata.val();
                self.h_user.next = self.s[i].tuser.val();
            }
            if self.pick[i].val() {
                self.p_last.next = self.s[i].tlast.val();
                self.p_keep.next = self.s[i].tkeep.val();
                self.p_data.next = self.s[i].tdata.val();
                self.p_user.next = self.s[i].tuser.val();
            }
        }
        if self.two.val() {
            // Two inputs: one 2:1 multiplexer per bit by `sel[0]` (a beat
            // that is not granted is never shown, so input 1's is as good as
            // none when neither is selected).
            if self.sel[0].val() {
                self.sel_last.next = self.s[0].tlast.val();
                self.sel_keep.next = self.s[0].tkeep.val();
                self.out.s.tdata.next = self.s[0].tdata.val();
                self.out.s.tuser.next = self.s[0].tuser.val();
            } else {
                self.sel_last.next = self.s[1].tlast.val();
                self.sel_keep.next = self.s[1].tkeep.val();
                self.out.s.tdata.next = self.s[1].tdata.val();
                self.out.s.tuser.next = self.s[1].tuser.val();
            }
        } else if self.hold.val() {
            self.sel_last.next = self.h_last.val();
            self.sel_keep.next = self.h_keep.val();
            self.out.s.tdata.next = self.h_data.val();
            self.out.s.tuser.next = self.h_user.val();
        } else {
            self.sel_last.next = self.p_last.val();
            self.sel_keep.next = self.p_keep.val();
            self.out.s.tdata.next = self.p_data.val();
            self.out.s.tuser.next = self.p_user.val();
        }
        self.out.s.tkeep.next = self.sel_keep.val();
        self.out.s.tlast.next = self.sel_last.val();
        self.out.s.tvalid.next = self.grant.val();
        self.xfer.next = self.grant.val() & self.out.s.tready.val();
        for i in 0..self.s.len() {
            self.xfer_i[i].next = self.gnt[i].val() & self.out.s.tready.val();
            self.s[i].tready.next = self.xfer_i[i].val();
        }

        // State updates.
        // State updates, per input from its own events.
        self.upd_ord.next = false;
        for i in 0..self.deficit.len() {
            if self.skip[i].val() {
                // Skipped for lack of credit: keep the banked quantum (a skip
                // is a turn's start: the quantum is added), rotate past it.
                self.pos[i].d.next = self.credit_ok[i].val();
                self.cok[i].d.next = !self.skip_cm1[i].add_sub.val().get_bit(DEFICIT_SIGN);
            }
            if self.dry[i].val() {
                // End of a DRR turn on an empty input: positive credit is forfeited.
                self.turn.d.next = false;
            }
            // A forfeit and a reset both leave the deficit 0 (below, and the
            // deficit register's own reset): the credit test is then
            // `quantum > 0` (the reset in this select, not after it: no level
            // of its own behind the chains).
            if (self.dry[i].val() & !self.deficit[i].q.val().get_bit(DEFICIT_SIGN)) | self.reset.val() {
                self.pos[i].d.next = false;
                self.cok[i].d.next = self.quantum_nz[i].val();
            }
            self.upd_ord.next = self.upd_ord.val() | self.skip[i].val() | self.dry[i].val();
            if self.beat_no[i].val() & !self.reset.val() {
                self.pos[i].d.next = !self.rem_no[i].diff.val().get_bit(DEFICIT_SIGN);
                self.cok[i].d.next = !self.rem_add[i].diff.val().get_bit(DEFICIT_SIGN);
            }
            if self.beat_add[i].val() & !self.reset.val() {
                self.pos[i].d.next = !self.rem_add[i].diff.val().get_bit(DEFICIT_SIGN);
                self.cok[i].d.next = !self.beat_cm1[i].diff.val().get_bit(DEFICIT_SIGN);
            }
            // The deficit's write enable as an OR of two terms, only one of
            // which waits for the arbitration (`pick`): a new packet's first
            // beat or a skip (`!hold`, DRR, and not a credited pick the
            // output cannot take), or a forfeit or a held beat (issue 14: in
            // `ts_fabric` the pick reached the enable through four more
            // levels). The events are exclusive: a skip and a first beat need
            // `!hold`, a forfeit and a held beat `hold`, a forfeit `!tvalid`,
            // a held beat `tvalid`. Reset is the register's own synchronous
            // reset (a flip-flop's reset pin on both families), not a term
            // of the enable.
            self.dwe_x[i].next = !self.hold.val() & self.drr_enable.val() & (!self.cok[i].q.val() | self.out.s.tready.val());
            self.dwe_y[i].next = (self.dry[i].val() & !self.deficit[i].q.val().get_bit(DEFICIT_SIGN)) | self.beat_no[i].val();
            if (self.pick[i].val() & self.dwe_x[i].val()) | self.dwe_y[i].val() {
                if self.dry[i].val() {
                    self.deficit[i].d.next = 0.into();
                } else if self.beat_no[i].val() {
                    self.deficit[i].d.next = self.nd_no[i].diff.val();
                } else if self.cok[i].q.val() {
                    self.deficit[i].d.next = self.nd_add[i].diff.val();
                } else {
                    self.deficit[i].d.next = self.credit[i].val();
                }
            }
        }
        if self.xfer.val() {
            for i in 0..self.cur.len() {
                self.cur[i].d.next = self.sel[i].val();
            }
            self.upd_ord.next = true;
            if self.sel_last.val() {
                self.locked.d.next = false;
                // DRR: keep the turn; it lasts while credit remains (`pos`).
                self.turn.d.next = self.drr_enable.val();
            } else {
                self.locked.d.next = true;
                self.turn.d.next = self.drr_enable.val();
            }
        }

        // The last input served is `sel` (`L`): the inputs below it come
        // first next time, highest first, then the others, highest first. For
        // `j > i`, `j` goes first unless `i < L <= j`; for `j < i`, when `j < L
        // <= i`. After a reset, `L` is 0 (the highest input first).
        self.le_acc.next = false;
        self.le_last.next = 0.into();
        for x in 0..self.s.len() {
            self.le_acc.next = self.le_acc.val() | self.sel[x].val();
            self.le_last.next = self.le_last.val().replace_bit(x, self.le_acc.val());
        }
        self.strict_now.next = self.strict.val() & !self.drr_enable.val();
        for i in 0..self.ord.len() {
            if self.strict_now.val() {
                self.ord[i].d.next = self.lo[i].val();
            } else if self.reset.val() {
                self.ord[i].d.next = self.hi[i].val();
            } else if self.upd_ord.val() {
                if self.le_last.val().get_bit(i) {
                    self.ord[i].d.next = (!self.le_last.val() & self.lo[i].val()) | self.hi[i].val();
                } else {
                    self.ord[i].d.next = !self.le_last.val() & self.hi[i].val();
                }
            }
        }

        AxisSource::<D, K, U>::link(&mut self.m, &mut self.out.m);
    }
}

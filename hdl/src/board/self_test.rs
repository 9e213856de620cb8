//! `ts_self_test`: a loopback self-test a board runs without a traffic
//! generator (issue 18, `docs/boards.md`, "Self-test"). While `run` is
//! high the test owns the switch's two ports: a generator sends numbered
//! frames into each port, addressed (by the configuration's L2 table) to the
//! other, and a checker on each port's output takes what the switch sends
//! and compares every byte with what was sent. Pass: every frame came back
//! whole, in order, and nothing else came out.
//!
//! A test frame (`seq` its number, `n = seq mod 182`): `8 * (8 + n)` bytes
//! and the FCS, 68 to 1 516 bytes in all (every multiple of 8 plus 4: its
//! data fills whole 64-bit beats, which the CRC-32 engine sums exactly, and
//! the FCS is a beat of 4 bytes of its own):
//! destination MAC (the host behind the other port), source MAC
//! `02:54:53:00:00:0p` (`p` the sending port), EtherType 0x9000 (the
//! Ethernet loopback test's, [`ETHERTYPE`]), `seq` (32 bits, big-endian), then byte `i` = `(seq + i)
//! mod 256`, then the FCS (the CRC-32 engine, [`Crc32Beat`]). The switch
//! strips the FCS; the checker expects each frame without it.
//!
//! Pace: after each frame a generator waits twice the frame's beats, so the
//! two directions together take two thirds of the switch's one pipeline
//! (each 1.33 Gb/s at 64 bits and 62.5 MHz, above the 1G line): no queue
//! fills, so no frame may be trimmed or dropped.
use crate::prim::crc::Crc32Beat;
use crate::prim::widgets::{vec_of, DffR};
use rust_hdl::prelude::*;

/// Frame lengths run through `8 * (8 + n)` bytes (FCS excluded), `n` in
/// `0..LEN_STEPS`: at most 1 512, 1 516 with the FCS.
pub const LEN_STEPS: u64 = 182;
/// The test's EtherType: 0x9000, the Ethernet configuration testing
/// (loopback) protocol's, which the switch forwards by its L2 table as any
/// frame it does not parse. Not IEEE 802's local experimental 0x88B5 and
/// 0x88B6: the switch parses those as PL2 and Protego frames, and a test
/// frame of 0x88B5 was dropped as a malformed PL2 frame (found by the
/// XEM7010 core's test, which runs the self-test through the switch).
pub const ETHERTYPE: u16 = 0x9000;

/// The source MAC of the frames port `p` sends.
pub fn source_mac(p: usize) -> u64 {
    0x0254_5300_0000 | p as u64
}

/// The 64-bit beat `beat` of test frame `seq` from `src` to `dst` (MACs),
/// the FCS excluded. Combinational.
#[derive(LogicBlock)]
pub struct TestBeat {
    pub seq: Signal<In, Bits<32>>,
    pub beat: Signal<In, Bits<8>>,
    pub data: Signal<Out, Bits<64>>,
    /// Beat 0 (destination MAC, two source bytes); beat 1 without `seq`
    /// (four source bytes, the EtherType).
    head0: Constant<Bits<64>>,
    head1: Constant<Bits<64>>,
    /// 0..7 as 8-bit values: lane `l`'s offset.
    lane: Vec<Constant<Bits<8>>>,
    lb: Vec<Signal<Local, Bits<8>>>,
    hi48: Constant<Bits<64>>,
    base: Signal<Local, Bits<8>>,
    patt: Signal<Local, Bits<64>>,
    seq_be: Signal<Local, Bits<32>>,
}

impl TestBeat {
    pub fn new(src: u64, dst: u64) -> Self {
        let mac = |m: u64| (0..6).map(move |i| (m >> (8 * (5 - i))) & 0xFF);
        let mut head = [0u8; 14];
        for (i, b) in mac(dst).chain(mac(src)).enumerate() {
            head[i] = b as u8;
        }
        head[12..14].copy_from_slice(&ETHERTYPE.to_be_bytes());
        let word = |bytes: &[u8]| bytes.iter().enumerate().fold(0u64, |w, (i, b)| w | (*b as u64) << (8 * i));
        Self {
            seq: Default::default(),
            beat: Default::default(),
            data: Default::default(),
            head0: Constant::new(word(&head[0..8]).to_bits()),
            head1: Constant::new(word(&head[8..14]).to_bits()),
            lane: (0..8u64).map(|l| Constant::new(l.to_bits())).collect(),
            lb: vec_of(8),
            hi48: Constant::new(0xFFFF_FFFF_FFFF_0000_u64.to_bits()),
            base: Default::default(),
            patt: Default::default(),
            seq_be: Default::default(),
        }
    }
}

impl Logic for TestBeat {
    #[hdl_gen]
    fn update(&mut self) {
        // Byte i of the pattern is seq + i (mod 256): lane l of beat b is
        // seq + 8b + l.
        self.base.next = self.seq.val().get_bits::<8>(0) + (self.beat.val() << 3);
        self.patt.next = 0.into();
        // Each lane's byte into an 8-bit signal of its own: inside one
        // 64-bit expression the Verilog would add at 64 bits and a carry
        // would reach the next lane.
        self.lb[0].next = self.base.val() + self.lane[0].val();
        self.lb[1].next = self.base.val() + self.lane[1].val();
        self.lb[2].next = self.base.val() + self.lane[2].val();
        self.lb[3].next = self.base.val() + self.lane[3].val();
        self.lb[4].next = self.base.val() + self.lane[4].val();
        self.lb[5].next = self.base.val() + self.lane[5].val();
        self.lb[6].next = self.base.val() + self.lane[6].val();
        self.lb[7].next = self.base.val() + self.lane[7].val();
        self.patt.next = bit_cast::<64, 8>(self.lb[0].val())
            | (bit_cast::<64, 8>(self.lb[1].val()) << 8)
            | (bit_cast::<64, 8>(self.lb[2].val()) << 16)
            | (bit_cast::<64, 8>(self.lb[3].val()) << 24)
            | (bit_cast::<64, 8>(self.lb[4].val()) << 32)
            | (bit_cast::<64, 8>(self.lb[5].val()) << 40)
            | (bit_cast::<64, 8>(self.lb[6].val()) << 48)
            | (bit_cast::<64, 8>(self.lb[7].val()) << 56);
        // `seq` big-endian: its most significant byte first.
        self.seq_be.next = bit_cast::<32, 8>(self.seq.val().get_bits::<8>(24))
            | (bit_cast::<32, 8>(self.seq.val().get_bits::<8>(16)) << 8)
            | (bit_cast::<32, 8>(self.seq.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<32, 8>(self.seq.val().get_bits::<8>(0)) << 24);
        self.data.next = self.patt.val();
        if self.beat.val() == 0 {
            self.data.next = self.head0.val();
        }
        if self.beat.val() == 1 {
            self.data.next = self.head1.val() | (bit_cast::<64, 16>(self.seq_be.val().get_bits::<16>(0)) << 48);
        }
        if self.beat.val() == 2 {
            self.data.next = (self.patt.val() & self.hi48.val()) | bit_cast::<64, 16>(self.seq_be.val().get_bits::<16>(16));
        }
    }
}

/// A generator of test frames (module docs) from one port to the other.
///
/// Ports: `clock`, `reset`; `start` in (a pulse: back to frame 0, counters
/// cleared); `on` in (send while high, up to `frames`; a frame started is
/// finished when `on` falls); `m_tdata` (64),
/// `m_tkeep` (8), `m_tlast`, `m_tvalid` out, `m_tready` in (every beat full
/// but the last, the FCS's 4 bytes); `sent` out (32 bits): frames sent.
#[derive(LogicBlock)]
pub struct TestGen<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub on: Signal<In, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub sent: Signal<Out, Bits<32>>,
    frames: Constant<Bits<32>>,
    last_step: Constant<Bits<8>>,
    seq: DffR<Bits<32>>,
    n: DffR<Bits<8>>,
    beat: DffR<Bits<8>>,
    gap: DffR<Bits<10>>,
    count: DffR<Bits<32>>,
    o_v: DffR<Bit>,
    o_data: DFF<Bits<64>>,
    o_last: DFF<Bit>,
    o_first: DFF<Bit>,
    /// A data beat was loaded last cycle: the engine sums it this cycle.
    loaded: DffR<Bit>,
    beats: Signal<Local, Bits<8>>,
    /// The beat on offer is the FCS (after the `8 + n` data beats).
    at_fcs: Signal<Local, Bit>,
    beat_data: Signal<Local, Bits<64>>,
    take: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    pattern: TestBeat,
    sum: Crc32Beat<64, 8>,
}

impl<const D: usize, const K: usize> TestGen<D, K> {
    /// `frames` frames from `src` to `dst` (MACs).
    pub fn new(frames: u32, src: u64, dst: u64) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            on: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            sent: Default::default(),
            frames: Constant::new((frames as u64).to_bits()),
            last_step: Constant::new((LEN_STEPS - 1).to_bits()),
            seq: Default::default(),
            n: Default::default(),
            beat: Default::default(),
            gap: Default::default(),
            count: Default::default(),
            o_v: Default::default(),
            o_data: Default::default(),
            o_last: Default::default(),
            o_first: Default::default(),
            loaded: Default::default(),
            beats: Default::default(),
            at_fcs: Default::default(),
            beat_data: Default::default(),
            take: Default::default(),
            load: Default::default(),
            pattern: TestBeat::new(src, dst),
            sum: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for TestGen<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, seq, n, beat, gap, count, o_v, o_data, o_last, o_first, loaded);
        self.seq.reset.next = self.reset.val();
        self.n.reset.next = self.reset.val();
        self.beat.reset.next = self.reset.val();
        self.gap.reset.next = self.reset.val();
        self.count.reset.next = self.reset.val();
        self.o_v.reset.next = self.reset.val();
        self.loaded.reset.next = self.reset.val();
        // The frame's data beats (8 + n), then the FCS beat.
        self.beats.next = self.n.q.val() + 8;
        self.at_fcs.next = self.beat.q.val() == self.beats.val();
        self.pattern.seq.next = self.seq.q.val();
        self.pattern.beat.next = self.beat.q.val();
        // The FCS is the engine's register, complemented, least significant
        // byte first: the register holds the frame's CRC two cycles after
        // its last data beat's load (its `valid` the cycle between), so the
        // FCS beat is loaded only when no data beat was loaded last cycle.
        self.beat_data.next = self.pattern.data.val();
        if self.at_fcs.val() {
            self.beat_data.next = bit_cast::<64, 32>(!self.sum.crc.val());
        }
        // A beat moves into the output register when it is free or taken,
        // while on and sending, or inside a frame (a frame once started is
        // finished, so the board's multiplexer can switch back after it),
        // and not waiting out a gap.
        self.take.next = self.o_v.q.val() & self.m_tready.val();
        self.load.next = ((self.on.val() & (self.count.q.val() != self.frames.val())) | self.beat.q.val().any())
            & !self.gap.q.val().any()
            & (!self.o_v.q.val() | self.take.val())
            & !(self.at_fcs.val() & self.loaded.q.val());
        if self.take.val() {
            self.o_v.d.next = false;
        }
        if self.gap.q.val().any() {
            self.gap.d.next = self.gap.q.val() - 1;
        }
        if self.load.val() {
            self.o_v.d.next = true;
            self.o_data.d.next = self.beat_data.val();
            self.o_last.d.next = self.at_fcs.val();
            self.o_first.d.next = !self.beat.q.val().any();
            self.beat.d.next = self.beat.q.val() + 1;
            if self.at_fcs.val() {
                self.beat.d.next = 0.into();
                self.seq.d.next = self.seq.q.val() + 1;
                self.n.d.next = self.n.q.val() + 1;
                if self.n.q.val() == self.last_step.val() {
                    self.n.d.next = 0.into();
                }
                self.count.d.next = self.count.q.val() + 1;
                // Twice the frame's beats of idle.
                self.gap.d.next = bit_cast::<10, 8>(self.beats.val()) << 1;
            }
        }
        if self.start.val() {
            self.seq.d.next = 0.into();
            self.n.d.next = 0.into();
            self.beat.d.next = 0.into();
            self.gap.d.next = 0.into();
            self.count.d.next = 0.into();
            self.o_v.d.next = false;
        }
        // The engine takes the beat on offer (its data one cycle before its
        // `valid`) and sums it in the cycle after a data beat's load.
        self.sum.clock.next = self.clock.val();
        self.sum.reset.next = self.reset.val();
        self.sum.data.next = self.pattern.data.val();
        self.sum.keep.next = 0xFF.into();
        self.loaded.d.next = self.load.val() & !self.at_fcs.val();
        self.sum.valid.next = self.loaded.q.val();
        self.sum.start.next = self.o_first.q.val();
        self.m_tdata.next = bit_cast::<D, 64>(self.o_data.q.val());
        self.m_tkeep.next = 0xFF.into();
        if self.o_last.q.val() {
            self.m_tkeep.next = 0x0F.into();
        }
        self.m_tlast.next = self.o_last.q.val();
        self.m_tvalid.next = self.o_v.q.val();
        self.sent.next = self.count.q.val();
    }
}

/// A checker of test frames (module docs) arriving without their FCS.
///
/// Ports: `clock`, `reset`; `start` in (a pulse: expect frame 0, counters
/// cleared); `on` in (check while high; beats meanwhile are taken and not
/// looked at); `s_tdata` (64), `s_tkeep` (8), `s_tlast`, `s_tvalid` in
/// (always taken); `good`, `bad` out (32 bits): frames equal to the next
/// expected one, and the others (each frame counts once; the expectation
/// moves on by one either way, so a lost frame makes every later one bad).
#[derive(LogicBlock)]
pub struct TestCheck<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub on: Signal<In, Bit>,
    pub s_tdata: Signal<In, Bits<D>>,
    pub s_tkeep: Signal<In, Bits<K>>,
    pub s_tlast: Signal<In, Bit>,
    pub s_tvalid: Signal<In, Bit>,
    pub good: Signal<Out, Bits<32>>,
    pub bad: Signal<Out, Bits<32>>,
    last_step: Constant<Bits<8>>,
    seq: DffR<Bits<32>>,
    n: DffR<Bits<8>>,
    beat: DffR<Bits<8>>,
    cur_bad: DffR<Bit>,
    n_good: DffR<Bits<32>>,
    n_bad: DffR<Bits<32>>,
    last: Signal<Local, Bit>,
    same: Signal<Local, Bit>,
    ok: Signal<Local, Bit>,
    want: TestBeat,
}

impl<const D: usize, const K: usize> TestCheck<D, K> {
    /// Frames from `src` to `dst` (MACs).
    pub fn new(src: u64, dst: u64) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            on: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tlast: Default::default(),
            s_tvalid: Default::default(),
            good: Default::default(),
            bad: Default::default(),
            last_step: Constant::new((LEN_STEPS - 1).to_bits()),
            seq: Default::default(),
            n: Default::default(),
            beat: Default::default(),
            cur_bad: Default::default(),
            n_good: Default::default(),
            n_bad: Default::default(),
            last: Default::default(),
            same: Default::default(),
            ok: Default::default(),
            want: TestBeat::new(src, dst),
        }
    }
}

impl<const D: usize, const K: usize> Logic for TestCheck<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, seq, n, beat, cur_bad, n_good, n_bad);
        self.seq.reset.next = self.reset.val();
        self.n.reset.next = self.reset.val();
        self.beat.reset.next = self.reset.val();
        self.cur_bad.reset.next = self.reset.val();
        self.n_good.reset.next = self.reset.val();
        self.n_bad.reset.next = self.reset.val();
        self.want.seq.next = self.seq.q.val();
        self.want.beat.next = self.beat.q.val();
        // Expected: 8 + n whole beats (the FCS stripped).
        self.last.next = self.beat.q.val() == (self.n.q.val() + 7);
        self.same.next = bit_cast::<64, D>(self.s_tdata.val()) == self.want.data.val();
        self.ok.next = self.s_tkeep.val().all() & (self.s_tlast.val() == self.last.val()) & self.same.val();
        if self.on.val() & self.s_tvalid.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            if !self.ok.val() {
                self.cur_bad.d.next = true;
            }
            if self.s_tlast.val() {
                self.beat.d.next = 0.into();
                self.cur_bad.d.next = false;
                if self.cur_bad.q.val() | !self.ok.val() {
                    self.n_bad.d.next = self.n_bad.q.val() + 1;
                } else {
                    self.n_good.d.next = self.n_good.q.val() + 1;
                }
                self.seq.d.next = self.seq.q.val() + 1;
                self.n.d.next = self.n.q.val() + 1;
                if self.n.q.val() == self.last_step.val() {
                    self.n.d.next = 0.into();
                }
            }
        }
        if self.start.val() {
            self.seq.d.next = 0.into();
            self.n.d.next = 0.into();
            self.beat.d.next = 0.into();
            self.cur_bad.d.next = false;
            self.n_good.d.next = 0.into();
            self.n_bad.d.next = 0.into();
        }
        self.good.next = self.n_good.q.val();
        self.bad.next = self.n_bad.q.val();
    }
}

/// The self-test of a two-port board (module docs), on the switch clock,
/// 64-bit data path (`D` = 64, `K` = 8: the type parameters let a board
/// generic in `D` connect it): a [`TestGen`] and a [`TestCheck`] per port.
///
/// Ports:
/// - `clock`, `reset`: the switch's clock and reset.
/// - `run` in (synchronous to `clock`): a rising edge clears the counters
///   and starts a test of `frames` frames each way; the test ends when
///   `run` falls. `active` out: the test owns the ports (the board's
///   multiplexers take `gen_*` into the switch and the switch's outputs
///   into `chk_*`, switching between frames).
/// - `gen_tdata[p]`, `gen_tkeep[p]`, `gen_tlast[p]`, `gen_tvalid[p]` out,
///   `gen_tready[p]` in: port `p`'s test frames (FCS included), into the
///   switch's input `p`; they start 2^16 cycles after `run` rises (the
///   switch drains what it held of the ports' traffic).
/// - `chk_tdata[p]`, `chk_tkeep[p]`, `chk_tlast[p]`, `chk_tvalid[p]` in
///   (always taken): what the switch's output `p` sends; looked at from the
///   first frame on.
/// - `sent[p]`, `good[p]`, `bad[p]` out (32 bits): frames port `p` sent;
///   frames port `p`'s checker found as sent and in order; the others.
/// - `done` out: both generators sent their frames and every frame came
///   back, or 2^20 cycles passed since; `pass` out: done, every frame back
///   good; `fail` out: a bad frame, or done without `pass`; `status` out
///   (32 bits): `active`, `done`, `pass`, `fail` in bits 0..3 (a board
///   window's `SELFTEST_STATUS`).
#[derive(LogicBlock)]
pub struct SelfTest<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub run: Signal<In, Bit>,
    pub active: Signal<Out, Bit>,
    pub gen_tdata: Vec<Signal<Out, Bits<D>>>,
    pub gen_tkeep: Vec<Signal<Out, Bits<K>>>,
    pub gen_tlast: Vec<Signal<Out, Bit>>,
    pub gen_tvalid: Vec<Signal<Out, Bit>>,
    pub gen_tready: Vec<Signal<In, Bit>>,
    pub chk_tdata: Vec<Signal<In, Bits<D>>>,
    pub chk_tkeep: Vec<Signal<In, Bits<K>>>,
    pub chk_tlast: Vec<Signal<In, Bit>>,
    pub chk_tvalid: Vec<Signal<In, Bit>>,
    pub sent: Vec<Signal<Out, Bits<32>>>,
    pub good: Vec<Signal<Out, Bits<32>>>,
    pub bad: Vec<Signal<Out, Bits<32>>>,
    pub done: Signal<Out, Bit>,
    pub pass: Signal<Out, Bit>,
    pub fail: Signal<Out, Bit>,
    /// The four flags as a board window's word: bit 0 active, 1 done, 2
    /// passed, 3 failed (`SELFTEST_STATUS`).
    pub status: Signal<Out, Bits<32>>,
    frames: Constant<Bits<32>>,
    run_q: DffR<Bit>,
    act: DffR<Bit>,
    /// Cycles since the start: 2^16 before the first frame; after the last
    /// frame it runs on to 2^20 unless every frame is back.
    since: DffR<Bits<21>>,
    start: Signal<Local, Bit>,
    all_sent: Signal<Local, Bit>,
    all_back: Signal<Local, Bit>,
    gen: Vec<TestGen<D, K>>,
    chk: Vec<TestCheck<D, K>>,
}

impl<const D: usize, const K: usize> SelfTest<D, K> {
    /// A test of `frames` frames each way; `dst_mac[p]` is the MAC the L2
    /// table sends to port `p` (the host behind it).
    pub fn new(frames: u32, dst_mac: [u64; 2]) -> Self {
        assert!(D == 64 && K == 8, "SelfTest: a 64-bit data path");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            run: Default::default(),
            active: Default::default(),
            gen_tdata: vec_of(2),
            gen_tkeep: vec_of(2),
            gen_tlast: vec_of(2),
            gen_tvalid: vec_of(2),
            gen_tready: vec_of(2),
            chk_tdata: vec_of(2),
            chk_tkeep: vec_of(2),
            chk_tlast: vec_of(2),
            chk_tvalid: vec_of(2),
            sent: vec_of(2),
            good: vec_of(2),
            bad: vec_of(2),
            done: Default::default(),
            pass: Default::default(),
            fail: Default::default(),
            status: Default::default(),
            frames: Constant::new((frames as u64).to_bits()),
            run_q: Default::default(),
            act: Default::default(),
            since: Default::default(),
            start: Default::default(),
            all_sent: Default::default(),
            all_back: Default::default(),
            // Port p sends to the other port's host; checker p sees the
            // other port's frames.
            gen: (0..2).map(|p| TestGen::new(frames, source_mac(p), dst_mac[1 - p])).collect(),
            chk: (0..2).map(|p| TestCheck::new(source_mac(1 - p), dst_mac[p])).collect(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for SelfTest<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, run_q, act, since);
        self.run_q.reset.next = self.reset.val();
        self.act.reset.next = self.reset.val();
        self.since.reset.next = self.reset.val();
        self.run_q.d.next = self.run.val();
        self.start.next = self.run.val() & !self.run_q.q.val();
        if self.start.val() {
            self.act.d.next = true;
            self.since.d.next = 0.into();
        }
        if !self.run.val() {
            self.act.d.next = false;
        }
        self.active.next = self.act.q.val();
        self.all_sent.next = (self.gen[0].sent.val() == self.frames.val()) & (self.gen[1].sent.val() == self.frames.val());
        self.all_back.next = ((self.chk[0].good.val() + self.chk[0].bad.val()) == self.gen[1].sent.val())
            & ((self.chk[1].good.val() + self.chk[1].bad.val()) == self.gen[0].sent.val());
        if self.act.q.val()
            & !self.start.val()
            & !self.since.q.val().get_bit(20)
            & (!self.since.q.val().get_bit(16) | (self.all_sent.val() & !self.all_back.val()))
        {
            self.since.d.next = self.since.q.val() + 1;
        }
        self.done.next = self.since.q.val().get_bit(16) & self.all_sent.val() & (self.all_back.val() | self.since.q.val().get_bit(20));
        self.pass.next = self.done.val()
            & self.all_back.val()
            & !self.chk[0].bad.val().any()
            & !self.chk[1].bad.val().any()
            & (self.chk[0].good.val() == self.frames.val())
            & (self.chk[1].good.val() == self.frames.val());
        self.fail.next = self.chk[0].bad.val().any() | self.chk[1].bad.val().any() | (self.done.val() & !self.pass.val());
        self.status.next = bit_cast::<32, 1>(self.act.q.val().into())
            | (bit_cast::<32, 1>(self.done.val().into()) << 1)
            | (bit_cast::<32, 1>(self.pass.val().into()) << 2)
            | (bit_cast::<32, 1>(self.fail.val().into()) << 3);
        for p in 0..self.gen.len() {
            self.gen[p].clock.next = self.clock.val();
            self.gen[p].reset.next = self.reset.val();
            self.gen[p].start.next = self.start.val();
            self.gen[p].on.next = self.act.q.val() & self.since.q.val().get_bit(16);
            self.gen_tdata[p].next = self.gen[p].m_tdata.val();
            self.gen_tkeep[p].next = self.gen[p].m_tkeep.val();
            self.gen_tlast[p].next = self.gen[p].m_tlast.val();
            self.gen_tvalid[p].next = self.gen[p].m_tvalid.val();
            self.gen[p].m_tready.next = self.gen_tready[p].val();
            self.sent[p].next = self.gen[p].sent.val();
            self.chk[p].clock.next = self.clock.val();
            self.chk[p].reset.next = self.reset.val();
            self.chk[p].start.next = self.start.val();
            // The checkers look from the first frame on: what the switch
            // sends before (the ports' traffic it still held) is not theirs.
            self.chk[p].on.next = self.act.q.val() & self.since.q.val().get_bit(16);
            self.chk[p].s_tdata.next = self.chk_tdata[p].val();
            self.chk[p].s_tkeep.next = self.chk_tkeep[p].val();
            self.chk[p].s_tlast.next = self.chk_tlast[p].val();
            self.chk[p].s_tvalid.next = self.chk_tvalid[p].val();
            self.good[p].next = self.chk[p].good.val();
            self.bad[p].next = self.chk[p].bad.val();
        }
    }
}

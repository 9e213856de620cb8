//! `ts_pkt_fifo`: AXI4-Stream packet FIFO in block RAM.
//!
//! Two modes, chosen when the block is built:
//! - **store-and-forward** (default): a packet becomes visible to the read side
//!   only once its last beat is written. A packet that meets a full FIFO is
//!   dropped whole: the write pointer rolls back to the packet's start, the rest
//!   of the packet is accepted and discarded, and `drop_pkts` counts it. `s_tready`
//!   is high whenever the block is out of reset: the FIFO never back-pressures
//!   its source, it drops (the behaviour of a switch buffer). `s_abort`, high
//!   with any beat, discards that packet too (a verdict of the block feeding
//!   the FIFO, e.g. a bad FCS at the last beat); aborted packets are not counted.
//! - **cut-through**: every beat is visible as soon as it is written; a full FIFO
//!   back-pressures (`s_tready` low) and nothing is ever dropped.
//!
//! Storage: one RAM word per beat holding `tdata`, a meta field (`last` bit and
//! the byte count of the last beat, so `tkeep` costs `1 + clog2(K+1)` bits
//! instead of `K`) and `tuser`. `tuser` is sampled on a packet's first beat and
//! repeated on every stored beat, so the output carries one value per packet.
//! [`PktFifo::with_length`] makes `tuser.length` (see [`crate::meta`]) carry
//! the packet's byte count as stored, valid from the first beat out: a side
//! RAM of 16-bit lengths is written at a packet's last beat at the address of
//! its first word and read beside the data, so nothing waits for it.
//! The read side is a one-cycle block-RAM read, a register right after the
//! RAM (its slow clock-to-output, 4.3 ns on ECP5, then ends in a flip-flop
//! instead of running on into the buffer's multiplexers; a FIFO deeper than
//! [`BANK_WORDS`] has one RAM and one register per bank, and the bank is
//! selected after the registers), and a four-entry
//! output buffer, a ring whose head a 4:1 multiplexer selects (a pop moves
//! a pointer, not the data). Reads are issued from the buffer's fill level and
//! the two reads in flight alone, never from `m_tready`, so `m_tready` reaches
//! only the ring's read pointer and fill level: no path from the consumer into
//! the RAM, the buffer's data or the counters, and still one beat per cycle.
//! A word is on `m_tdata` three cycles after its read was issued when the
//! buffer is empty (issue 14).
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::prim::widgets::{vec_of, AddSub, AndOr, DffR, KeepCount, SdpRam};
use rust_hdl::prelude::*;

/// Width of the FIFO's RAM address and pointers (depth at most 2^16 beats).
pub const PTR_BITS: usize = 16;
/// Width of the word counters (`used`, `readable`, a packet's words): 0..=65536.
pub const CNT_BITS: usize = PTR_BITS + 1;
/// Entries of the output buffer: the two reads in flight (RAM, register after
/// it) plus one, so a word pops every cycle while reads are issued from
/// registered state only.
pub const OBUF: usize = 4;
// The read issue's room test is written out for four entries.
const _: () = assert!(OBUF == 4);
/// The output buffer's last entry (`#[hdl_gen]` loops cannot subtract).
const OBUF_LAST: usize = OBUF - 1;
/// Words per bank of the data RAM: the deepest block-RAM shape that still
/// holds 36 bits on ECP5 (`DP16KD` 512 x 36) and 72 on Xilinx (`RAMB36`
/// 512 x 72). A deeper FIFO has one RAM per 512 words, each with its own
/// register after it, and the bank is selected after those registers: a
/// synthesized deep RAM puts its multiplexer between the block RAMs' slow
/// outputs (4.3 ns on ECP5) and that register (issue 14).
pub const BANK_WORDS: usize = 512;
const BANK_BITS: usize = 9;
const _: () = assert!(BANK_WORDS == 1 << BANK_BITS);

/// Bits needed to hold a byte count 0..=K of a `K`-lane beat.
pub const fn count_bits(k: usize) -> usize {
    clog2(k + 1)
}

/// AXI4-Stream packet FIFO.
///
/// Type parameters: `D` tdata bits, `K` tkeep bits (`D/8`), `U` tuser bits,
/// `M` meta bits (`1 + count_bits(K)`), `W` RAM word bits (`D + M + U`).
/// The redundant widths exist because stable Rust cannot compute types from
/// const parameters; [`PktFifo::new`] checks them. The depth in beats is a
/// build parameter (any value 4..=65536, not only powers of two); pointers are
/// [`PTR_BITS`] wide.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset that
///   empties the FIFO and zeroes every counter, `drop_pkts` included (read
///   counters before a reset).
/// - `s_tdata`, `s_tkeep`, `s_tlast`, `s_tuser`, `s_tvalid` in, `s_tready` out:
///   input stream. `tkeep` must be packed (all ones except on the last beat);
///   on the last beat the byte count is the highest set lane plus one.
/// - `m_tdata`, `m_tkeep`, `m_tlast`, `m_tuser`, `m_tvalid` out, `m_tready` in:
///   output stream; `m_tkeep` is regenerated packed.
/// - `m_bytes` out: the output beat's byte count (the lanes of `m_tkeep`),
///   from a flip-flop loaded with the next head's count, so a byte-counting
///   consumer (a DRR [`crate::axis::arb_mux::AxisArbMux`]: its
///   `s_bytes_<i>`) neither counts lanes nor waits for the output buffer's
///   multiplexer (issue 14). `m_tkeep` is decoded from it too.
/// - `occ_bytes` out: bytes stored and not yet read out (in store-and-forward
///   mode only committed packets count). `occ_pkts` out: whole packets stored
///   (a packet counts from its last beat in to its last beat out). Both are
///   gauges for the register file: registered, they see a packet commit and a
///   beat leave one cycle after the event (the byte count of a commit is
///   registered first, so no keep-count -> add -> add chain ends in them).
/// - `s_abort` in (store-and-forward only; ignored in cut-through): discard the
///   packet of the current beat, whatever the FIFO's room.
/// - `drop_pkts` out: packets dropped because the FIFO was full and not aborted
///   on any of their beats (counted at the last beat; wraps at 2^32).
/// - `clear_drops` in: zeroes `drop_pkts` (clear-on-write from a register file);
///   a drop counted in the same cycle survives the clear (`drop_pkts` becomes 1).
#[derive(LogicBlock)]
pub struct PktFifo<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub m_bytes: Signal<Out, Bits<8>>,
    pub occ_bytes: Signal<Out, Bits<32>>,
    pub occ_pkts: Signal<Out, Bits<32>>,
    pub drop_pkts: Signal<Out, Bits<32>>,
    pub clear_drops: Signal<In, Bit>,
    pub s_abort: Signal<In, Bit>,
    // Configuration, fixed at build time.
    store_forward: Constant<Bit>,
    set_length: Constant<Bit>,
    len_mask: Constant<Bits<W>>,
    len_shift: Constant<Bits<16>>,
    depth_m1: Constant<Bits<CNT_BITS>>,
    /// [`PktFifo::with_spare_slot`]: the data RAM is written every cycle.
    always_write: Constant<Bit>,
    /// All ones: `a + b - minus_one` is `a + b + 1`.
    minus_one: Constant<Bits<CNT_BITS>>,
    last_addr: Constant<Bits<PTR_BITS>>,
    lanes: Constant<Bits<32>>,
    all_keep: Constant<Bits<K>>,
    meta_shift: Constant<Bits<16>>,
    user_shift: Constant<Bits<16>>,
    // Storage.
    /// The data RAM's first bank (words `0 .. BANK_WORDS`), the only one
    /// when the depth is at most [`BANK_WORDS`], and the others.
    ram: SdpRam<Bits<W>, PTR_BITS>,
    ram_hi: Vec<SdpRam<Bits<W>, PTR_BITS>>,
    bank_mask: Constant<Bits<PTR_BITS>>,
    bank_shift: Constant<Bits<PTR_BITS>>,
    bank_id: Vec<Constant<Bits<PTR_BITS>>>,
    /// One bank (depth at most [`BANK_WORDS`]): the write enable is not gated
    /// by the pointer's high bits, which synthesis cannot know are zero.
    one_bank: Constant<Bit>,
    len_ram: SdpRam<Bits<16>, PTR_BITS>,
    keep_count: KeepCount<K, M>,
    // Write side.
    wr_ptr: DffR<Bits<PTR_BITS>>,
    wr_commit: DffR<Bits<PTR_BITS>>,
    pkt_words: DffR<Bits<CNT_BITS>>,
    pkt_bytes: DffR<Bits<32>>,
    dropping: DffR<Bit>,
    overflowed: DffR<Bit>,
    first: DffR<Bit>,
    user_lat: DFF<Bits<U>>,
    // Shared counters.
    used: DffR<Bits<CNT_BITS>>,
    /// `used == depth`, registered from `used`'s next value: the full test
    /// leaves the path into the RAM's write enable (issue 14).
    full_q: DffR<Bit>,
    readable: DffR<Bits<CNT_BITS>>,
    /// `readable != 0`, registered from `readable`'s next value: the read
    /// issue does not wait for a wide OR (issue 14).
    readable_nz: DffR<Bit>,
    bytes: DffR<Bits<32>>,
    pkts: DffR<Bits<32>>,
    drops: DffR<Bits<32>>,
    // Read side.
    rd_ptr: DffR<Bits<PTR_BITS>>,
    /// `pkt_words == 0` (a write-side flag, registered: a rollback of an empty
    /// packet keeps `full`).
    pkt_empty: DffR<Bit>,
    /// A read was issued last cycle: the RAM's output holds a word now.
    inflight: DffR<Bit>,
    /// The register after the RAM holds a word (issued two cycles ago).
    rd_valid: DffR<Bit>,
    rd_word: DFF<Bits<W>>,
    /// The registers after the other banks, and the bank of the read issued
    /// one and two cycles ago (the second selects among the registers).
    rd_hi: Vec<DFF<Bits<W>>>,
    rd_bank1: DFF<Bits<PTR_BITS>>,
    rd_bank2: DFF<Bits<PTR_BITS>>,
    rd_len: DFF<Bits<16>>,
    /// Words in the output buffer, 0..=4.
    ocount: DffR<Bits<3>>,
    /// The output buffer, a ring: `obuf[rd_idx]` drives the port, an arriving
    /// word goes to `obuf[wr_idx]`. Nothing moves on a pop, so `m_tready`
    /// reaches two pointers and the count, not every bit of the buffer.
    obuf: Vec<DFF<Bits<W>>>,
    rd_idx: DffR<Bits<2>>,
    wr_idx: DffR<Bits<2>>,
    /// The head word's byte count, loaded with the next head's (the word
    /// after a pop, or the arriving word when the buffer is about to be
    /// empty): `m_bytes` and `m_tkeep` come from it, not from the 4:1
    /// multiplexer of the ring (issue 14). Meaningless while `ocount` is 0.
    head_nb_q: DFF<Bits<M>>,
    /// Byte count and packet count of a commit, added to the gauges a cycle later.
    add_q: DffR<Bits<32>>,
    pkt_in_q: DffR<Bit>,
    sub_q: DffR<Bits<32>>,
    pkt_out_q: DffR<Bit>,
    rd_first: DffR<Bit>,
    len_lat: DFF<Bits<16>>,
    /// The length RAM is written a cycle after the commit, from `add_q` (issue
    /// 14: no lane count -> byte sum -> block-RAM input in one cycle) at the
    /// commit's address, `len_addr`. A read of that word in the write's cycle
    /// (the packet's first word read as soon as it became readable) gets the
    /// RAM's old word, so the sum is forwarded: `len_byp` marks that read and
    /// `len_byp_data` carries the sum, two cycles, to where `rd_len` is read.
    len_addr: DFF<Bits<PTR_BITS>>,
    len_byp1: DffR<Bit>,
    len_byp2: DffR<Bit>,
    len_byp_data1: DFF<Bits<16>>,
    len_byp_data2: DFF<Bits<16>>,
    // Combinational helpers.
    beat_in: Signal<Local, Bit>,
    nb_in: Signal<Local, Bits<M>>,
    user_in: Signal<Local, Bits<U>>,
    word_in: Signal<Local, Bits<W>>,
    wr_next: Signal<Local, Bits<PTR_BITS>>,
    full: Signal<Local, Bit>,
    /// The word counters' next values in each variant, from the registers
    /// alone; the write, read and commit decisions only select (issue 14:
    /// no carry chain after the read issue).
    used_p1: Signal<Local, Bits<CNT_BITS>>,
    used_m1: Signal<Local, Bits<CNT_BITS>>,
    used_rb: Signal<Local, Bits<CNT_BITS>>,
    /// `used - pkt_words - 1` and `readable + pkt_words + 1`, each one carry chain.
    used_rb_m1: AddSub<CNT_BITS>,
    readable_c1: AddSub<CNT_BITS>,
    /// The counters' next values selected as AND-ORs, so Yosys does not
    /// merge the variants' adders behind an operand multiplexer.
    used_sel: AndOr<CNT_BITS>,
    readable_sel: AndOr<CNT_BITS>,
    readable_m1: Signal<Local, Bits<CNT_BITS>>,
    readable_c: Signal<Local, Bits<CNT_BITS>>,
    write: Signal<Local, Bit>,
    commit: Signal<Local, Bit>,
    rollback: Signal<Local, Bit>,
    count_drop: Signal<Local, Bit>,
    len_word: Signal<Local, Bits<16>>,
    ram_word: Signal<Local, Bits<W>>,
    /// The word read two cycles ago, from its bank's register.
    rd_data: Signal<Local, Bits<W>>,
    wr_bank: Signal<Local, Bits<PTR_BITS>>,
    add_bytes: Signal<Local, Bits<32>>,
    pop: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    /// `used == depth - 1` and `readable == 1`, from the registers: with the
    /// write and read decisions they give `full_q`'s and `readable_nz`'s next
    /// values without the counters' carry chains.
    used_almost: Signal<Local, Bit>,
    readable_one: Signal<Local, Bit>,
    /// The word at the head of the output buffer.
    head: Signal<Local, Bits<W>>,
    head_meta: Signal<Local, Bits<M>>,
    head_nb: Signal<Local, Bits<M>>,
    /// Byte counts of the word after the head and of the arriving word.
    next_nb: Signal<Local, Bits<M>>,
    new_nb: Signal<Local, Bits<M>>,
    sub_bytes: Signal<Local, Bits<32>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> PktFifo<D, K, U, M, W> {
    /// A FIFO of `depth` beats; `store_forward` selects the mode (see module docs).
    pub fn new(depth: usize, store_forward: bool) -> Self {
        assert_eq!(K * 8, D, "PktFifo: K must be D/8");
        assert_eq!(M, 1 + count_bits(K), "PktFifo: M must be 1 + clog2(K+1)");
        assert_eq!(W, D + M + U, "PktFifo: W must be D + M + U");
        assert!((4..=1 << PTR_BITS).contains(&depth), "PktFifo: depth {depth} beats is outside 4..=65536");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            occ_bytes: Default::default(),
            occ_pkts: Default::default(),
            drop_pkts: Default::default(),
            clear_drops: Default::default(),
            s_abort: Default::default(),
            store_forward: Constant::new(store_forward),
            set_length: Constant::new(false),
            len_mask: Constant::new(!(bit_cast::<W, 16>(Bits::<16>::mask()) << ((D + M + crate::meta::LENGTH_LSB) as u64))),
            len_shift: Constant::new(((D + M + crate::meta::LENGTH_LSB) as u64).to_bits()),
            depth_m1: Constant::new(((depth - 1) as u64).to_bits()),
            always_write: Constant::new(false),
            minus_one: Constant::new(Bits::<CNT_BITS>::mask()),
            last_addr: Constant::new(((depth - 1) as u64).to_bits()),
            lanes: Constant::new((K as u64).to_bits()),
            all_keep: Constant::new(Bits::<K>::mask()),
            meta_shift: Constant::new((D as u64).to_bits()),
            user_shift: Constant::new(((D + M) as u64).to_bits()),
            ram: SdpRam::new(depth.min(BANK_WORDS)),
            ram_hi: (1..depth.div_ceil(BANK_WORDS)).map(|b| SdpRam::new((depth - b * BANK_WORDS).min(BANK_WORDS))).collect(),
            bank_mask: Constant::new(((BANK_WORDS - 1) as u64).to_bits()),
            bank_shift: Constant::new((BANK_BITS as u64).to_bits()),
            bank_id: (1..depth.div_ceil(BANK_WORDS)).map(|b| Constant::new((b as u64).to_bits())).collect(),
            one_bank: Constant::new(depth <= BANK_WORDS),
            len_ram: SdpRam::new(depth),
            keep_count: Default::default(),
            wr_ptr: Default::default(),
            wr_commit: Default::default(),
            pkt_words: Default::default(),
            pkt_bytes: Default::default(),
            dropping: Default::default(),
            overflowed: Default::default(),
            first: DffR::new(true),
            user_lat: Default::default(),
            used: Default::default(),
            full_q: Default::default(),
            readable: Default::default(),
            readable_nz: Default::default(),
            bytes: Default::default(),
            pkts: Default::default(),
            drops: Default::default(),
            rd_ptr: Default::default(),
            pkt_empty: DffR::new(true),
            inflight: Default::default(),
            rd_valid: Default::default(),
            rd_word: Default::default(),
            rd_hi: vec_of(depth.div_ceil(BANK_WORDS) - 1),
            rd_bank1: Default::default(),
            rd_bank2: Default::default(),
            rd_len: Default::default(),
            ocount: Default::default(),
            obuf: vec_of(OBUF),
            rd_idx: Default::default(),
            wr_idx: Default::default(),
            add_q: Default::default(),
            pkt_in_q: Default::default(),
            sub_q: Default::default(),
            pkt_out_q: Default::default(),
            rd_first: DffR::new(true),
            len_lat: Default::default(),
            len_addr: Default::default(),
            len_byp1: Default::default(),
            len_byp2: Default::default(),
            len_byp_data1: Default::default(),
            len_byp_data2: Default::default(),
            count_drop: Default::default(),
            len_word: Default::default(),
            ram_word: Default::default(),
            rd_data: Default::default(),
            wr_bank: Default::default(),
            beat_in: Default::default(),
            nb_in: Default::default(),
            user_in: Default::default(),
            word_in: Default::default(),
            wr_next: Default::default(),
            full: Default::default(),
            used_p1: Default::default(),
            used_m1: Default::default(),
            used_rb: Default::default(),
            used_rb_m1: AddSub::minus_one(),
            readable_m1: Default::default(),
            readable_c: Default::default(),
            readable_c1: Default::default(),
            used_sel: AndOr::new(4),
            readable_sel: AndOr::new(3),
            write: Default::default(),
            commit: Default::default(),
            rollback: Default::default(),
            add_bytes: Default::default(),
            pop: Default::default(),
            issue: Default::default(),
            used_almost: Default::default(),
            readable_one: Default::default(),
            head: Default::default(),
            head_meta: Default::default(),
            head_nb: Default::default(),
            next_nb: Default::default(),
            new_nb: Default::default(),
            head_nb_q: Default::default(),
            m_bytes: Default::default(),
            sub_bytes: Default::default(),
        }
    }

    /// Cut-through only: the FIFO holds `depth - 1` beats (`s_tready` drops at
    /// `depth - 1`), so the word at the write pointer is never one still to be
    /// read, and the data RAM is written there in every cycle; only the
    /// pointer waits for a beat. The RAM's write enable is then a constant
    /// (one bank) or the bank's select: the write decision no longer fans out
    /// to every bit of a wide LUT RAM (the parser's PHV queue, issue 14).
    pub fn with_spare_slot(mut self) -> Self {
        assert!(!self.store_forward.val(), "PktFifo::with_spare_slot needs cut-through mode");
        let full_at = self.depth_m1.val().index();
        assert!(full_at >= 2, "PktFifo::with_spare_slot needs a depth of 3 or more");
        self.depth_m1 = Constant::new(((full_at - 1) as u64).to_bits());
        self.always_write = Constant::new(true);
        self
    }

    /// Makes `m_tuser.length` the packet's stored byte count (see module docs).
    /// Needs `U >= 32` and store-and-forward mode.
    pub fn with_length(mut self) -> Self {
        assert!(U >= crate::meta::LENGTH_LSB + 16, "PktFifo::with_length needs tuser.length");
        assert!(self.store_forward.val(), "PktFifo::with_length needs store-and-forward mode");
        self.set_length = Constant::new(true);
        self
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for PktFifo<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            wr_ptr,
            wr_commit,
            pkt_words,
            pkt_bytes,
            dropping,
            overflowed,
            first,
            user_lat,
            used,
            full_q,
            readable,
            readable_nz,
            bytes,
            pkts,
            drops,
            rd_ptr,
            pkt_empty,
            inflight,
            rd_valid,
            rd_word,
            rd_len,
            ocount,
            rd_idx,
            wr_idx,
            add_q,
            pkt_in_q,
            sub_q,
            pkt_out_q,
            rd_first,
            len_lat,
            len_addr,
            len_byp1,
            len_byp2,
            len_byp_data1,
            len_byp_data2,
            head_nb_q,
            rd_bank1,
            rd_bank2
        );
        for b in 0..self.ram_hi.len() {
            self.ram_hi[b].clock.next = self.clock.val();
            self.rd_hi[b].clock.next = self.clock.val();
        }
        self.overflowed.reset.next = self.reset.val();
        self.rd_first.reset.next = self.reset.val();
        self.len_byp1.reset.next = self.reset.val();
        self.len_byp2.reset.next = self.reset.val();
        self.wr_ptr.reset.next = self.reset.val();
        self.wr_commit.reset.next = self.reset.val();
        self.pkt_words.reset.next = self.reset.val();
        self.pkt_bytes.reset.next = self.reset.val();
        self.dropping.reset.next = self.reset.val();
        self.first.reset.next = self.reset.val();
        self.used.reset.next = self.reset.val();
        self.full_q.reset.next = self.reset.val();
        self.readable.reset.next = self.reset.val();
        self.readable_nz.reset.next = self.reset.val();
        self.bytes.reset.next = self.reset.val();
        self.pkts.reset.next = self.reset.val();
        self.drops.reset.next = self.reset.val();
        self.rd_ptr.reset.next = self.reset.val();
        self.pkt_empty.reset.next = self.reset.val();
        self.inflight.reset.next = self.reset.val();
        self.rd_valid.reset.next = self.reset.val();
        self.ocount.reset.next = self.reset.val();
        self.rd_idx.reset.next = self.reset.val();
        self.wr_idx.reset.next = self.reset.val();
        self.add_q.reset.next = self.reset.val();
        self.pkt_in_q.reset.next = self.reset.val();
        self.sub_q.reset.next = self.reset.val();
        self.pkt_out_q.reset.next = self.reset.val();
        for j in 0..OBUF {
            self.obuf[j].clock.next = self.clock.val();
            self.obuf[j].d.next = self.obuf[j].q.val();
        }
        self.ram.clock.next = self.clock.val();
        self.len_ram.clock.next = self.clock.val();

        // ---- write side ----
        self.full.next = self.full_q.q.val();
        if self.store_forward.val() {
            self.s.tready.next = !self.reset.val();
        } else {
            self.s.tready.next = !self.reset.val() & !self.full.val();
        }
        self.beat_in.next = self.s.tvalid.val() & self.s.tready.val();
        // Byte count of this beat: K, or on the last beat the highest kept lane + 1.
        self.keep_count.keep.next = self.s.tkeep.val();
        self.nb_in.next = bit_cast::<M, 32>(self.lanes.val());
        if self.s.tlast.val() {
            self.nb_in.next = self.keep_count.count.val();
        }
        if self.first.q.val() {
            self.user_in.next = self.s.tuser.val();
        } else {
            self.user_in.next = self.user_lat.q.val();
        }
        self.word_in.next = bit_cast::<W, D>(self.s.tdata.val())
            | (bit_cast::<W, M>((self.nb_in.val() << 1) | bit_cast::<M, 1>(self.s.tlast.val().into())) << self.meta_shift.val())
            | (bit_cast::<W, U>(self.user_in.val()) << self.user_shift.val());
        self.write.next = false;
        self.commit.next = false;
        self.rollback.next = false;
        self.count_drop.next = false;
        self.add_bytes.next = 0.into();
        if self.beat_in.val() {
            self.first.d.next = self.s.tlast.val();
            if self.first.q.val() {
                self.user_lat.d.next = self.s.tuser.val();
            }
            if self.store_forward.val() {
                if self.dropping.q.val() {
                    // An abort on any beat, also after an overflow, means the
                    // packet is aborted, and aborted packets are not counted.
                    if self.s_abort.val() {
                        self.overflowed.d.next = false;
                    }
                    if self.s.tlast.val() {
                        self.dropping.d.next = false;
                        self.count_drop.next = self.overflowed.q.val() & !self.s_abort.val();
                    }
                } else if self.full.val() | self.s_abort.val() {
                    self.rollback.next = true;
                    self.dropping.d.next = !self.s.tlast.val();
                    self.overflowed.d.next = !self.s_abort.val();
                    self.count_drop.next = self.s.tlast.val() & !self.s_abort.val();
                } else {
                    self.write.next = true;
                    if self.s.tlast.val() {
                        self.commit.next = true;
                        self.add_bytes.next = self.pkt_bytes.q.val() + bit_cast::<32, M>(self.nb_in.val());
                    }
                }
            } else {
                self.write.next = true;
                self.commit.next = true;
                self.add_bytes.next = bit_cast::<32, M>(self.nb_in.val());
            }
        }
        // A commit's byte sum (`add_q`, store-and-forward: a commit is a
        // last beat, `pkt_in_q`) is written a cycle later at the commit's
        // address.
        self.len_addr.d.next = self.wr_commit.q.val();
        self.len_ram.write_enable.next = self.pkt_in_q.q.val();
        self.len_ram.write_address.next = self.len_addr.q.val();
        self.len_ram.write_data.next = bit_cast::<16, 32>(self.add_q.q.val());
        // The bank of a write comes from the write pointer (a register); the
        // write decision only gates it.
        self.wr_bank.next = self.wr_ptr.q.val() >> self.bank_shift.val();
        self.ram.write_enable.next = (self.write.val() | self.always_write.val()) & (self.one_bank.val() | !self.wr_bank.val().any());
        self.ram.write_address.next = self.wr_ptr.q.val() & self.bank_mask.val();
        self.ram.write_data.next = self.word_in.val();
        for b in 0..self.ram_hi.len() {
            self.ram_hi[b].write_enable.next = (self.write.val() | self.always_write.val()) & (self.wr_bank.val() == self.bank_id[b].val());
            self.ram_hi[b].write_address.next = self.wr_ptr.q.val() & self.bank_mask.val();
            self.ram_hi[b].write_data.next = self.word_in.val();
        }
        self.wr_next.next = self.wr_ptr.q.val() + 1;
        if self.wr_ptr.q.val() == self.last_addr.val() {
            self.wr_next.next = 0.into();
        }
        if self.write.val() {
            self.wr_ptr.d.next = self.wr_next.val();
            self.pkt_words.d.next = self.pkt_words.q.val() + 1;
            self.pkt_bytes.d.next = self.pkt_bytes.q.val() + bit_cast::<32, M>(self.nb_in.val());
        }
        if self.commit.val() {
            self.wr_commit.d.next = self.wr_next.val();
            self.pkt_words.d.next = 0.into();
            self.pkt_bytes.d.next = 0.into();
        }
        if self.rollback.val() {
            self.wr_ptr.d.next = self.wr_commit.q.val();
            self.pkt_words.d.next = 0.into();
            self.pkt_bytes.d.next = 0.into();
        }

        // ---- read side ----
        self.m.tvalid.next = self.ocount.q.val().any();
        self.pop.next = self.m.tvalid.val() & self.m.tready.val();
        // Issue a read while the buffer leaves room for it and both reads in
        // flight: ocount + inflight + rd_valid <= OBUF - 1 = 3, from registers
        // only, spelled out as LUT logic (ocount <= 4, so bit 2 means 4; an
        // adder and compare here became two carry chains).
        self.issue.next = self.readable_nz.q.val()
            & !self.ocount.q.val().get_bit(2)
            & !(self.ocount.q.val().get_bit(1) & self.ocount.q.val().get_bit(0) & (self.inflight.q.val() | self.rd_valid.q.val()))
            & !(self.ocount.q.val().get_bit(1) & !self.ocount.q.val().get_bit(0) & self.inflight.q.val() & self.rd_valid.q.val());
        self.ram.read_enable.next = self.issue.val();
        self.ram.read_address.next = self.rd_ptr.q.val() & self.bank_mask.val();
        for b in 0..self.ram_hi.len() {
            self.ram_hi[b].read_enable.next = self.issue.val();
            self.ram_hi[b].read_address.next = self.rd_ptr.q.val() & self.bank_mask.val();
        }
        self.rd_bank1.d.next = self.rd_bank1.q.val();
        if self.issue.val() {
            self.rd_bank1.d.next = self.rd_ptr.q.val() >> self.bank_shift.val();
        }
        self.rd_bank2.d.next = self.rd_bank1.q.val();
        self.len_ram.read_enable.next = self.issue.val();
        self.len_ram.read_address.next = self.rd_ptr.q.val();
        // The read meets the length's write: forward the sum.
        self.len_byp1.d.next = self.issue.val() & self.pkt_in_q.q.val() & (self.len_addr.q.val() == self.rd_ptr.q.val());
        self.len_byp_data1.d.next = bit_cast::<16, 32>(self.add_q.q.val());
        self.len_byp2.d.next = self.len_byp1.q.val();
        self.len_byp_data2.d.next = self.len_byp_data1.q.val();
        self.inflight.d.next = self.issue.val();
        if self.issue.val() {
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
            if self.rd_ptr.q.val() == self.last_addr.val() {
                self.rd_ptr.d.next = 0.into();
            }
        }
        // The register after the RAM loads the RAM's output every cycle, with
        // no enable in front of it (what it holds matters only with
        // `rd_valid`; the RAM's output itself holds between reads).
        self.rd_valid.d.next = self.inflight.q.val();
        self.rd_word.d.next = self.ram.read_data.val();
        self.rd_data.next = self.rd_word.q.val();
        for b in 0..self.ram_hi.len() {
            self.rd_hi[b].d.next = self.ram_hi[b].read_data.val();
            if self.rd_bank2.q.val() == self.bank_id[b].val() {
                self.rd_data.next = self.rd_hi[b].q.val();
            }
        }
        self.rd_len.d.next = self.len_ram.read_data.val();
        // The word leaving that register, with `tuser.length` replaced when
        // asked: the side RAM's value on a packet's first word, latched for
        // the rest of the packet.
        self.len_word.next = self.len_lat.q.val();
        if self.rd_first.q.val() & self.len_byp2.q.val() {
            self.len_word.next = self.len_byp_data2.q.val();
        } else if self.rd_first.q.val() {
            self.len_word.next = self.rd_len.q.val();
        }
        if self.rd_valid.q.val() {
            self.rd_first.d.next = self.rd_data.val().get_bit(self.meta_shift.val().index());
            self.len_lat.d.next = self.len_word.val();
        }
        self.ram_word.next = self.rd_data.val();
        if self.set_length.val() {
            self.ram_word.next =
                (self.rd_data.val() & self.len_mask.val()) | (bit_cast::<W, 16>(self.len_word.val()) << self.len_shift.val());
        }
        // Output buffer (a ring of OBUF = 4 entries). Invariant:
        // ocount + inflight + rd_valid <= OBUF, so an arriving word has room;
        // the entry it is written to depends on registers only.
        for j in 0..OBUF {
            if self.rd_valid.q.val() & (self.wr_idx.q.val().index() == j) {
                self.obuf[j].d.next = self.ram_word.val();
            }
        }
        if self.rd_valid.q.val() {
            self.wr_idx.d.next = self.wr_idx.q.val() + 1;
        }
        if self.pop.val() {
            self.rd_idx.d.next = self.rd_idx.q.val() + 1;
        }
        self.head.next = self.obuf[0].q.val();
        for j in 1..OBUF {
            if self.rd_idx.q.val().index() == j {
                self.head.next = self.obuf[j].q.val();
            }
        }
        self.ocount.d.next = self.ocount.q.val() + bit_cast::<3, 1>(self.rd_valid.q.val().into()) - bit_cast::<3, 1>(self.pop.val().into());
        self.head_meta.next = self.head.val().get_bits::<M>(self.meta_shift.val().index());
        self.head_nb.next = self.head_meta.val() >> 1;
        self.m.tdata.next = self.head.val().get_bits::<D>(0);
        self.m.tlast.next = self.head_meta.val().get_bit(0);
        self.m.tuser.next = self.head.val().get_bits::<U>(self.user_shift.val().index());
        // The next head's byte count: after a pop the word after the head,
        // else the head; the arriving word instead when it lands where the
        // head will be (the buffer holds nothing else after this cycle:
        // `wr_idx == rd_idx + ocount`, and a full buffer takes no word).
        // Every candidate comes from registers; the pop only selects.
        self.next_nb.next = self.obuf[0].q.val().get_bits::<M>(self.meta_shift.val().index()) >> 1;
        for j in 0..OBUF_LAST {
            if self.rd_idx.q.val().index() == j {
                self.next_nb.next = self.obuf[j + 1].q.val().get_bits::<M>(self.meta_shift.val().index()) >> 1;
            }
        }
        self.new_nb.next = self.rd_data.val().get_bits::<M>(self.meta_shift.val().index()) >> 1;
        if self.pop.val() {
            if self.rd_valid.q.val() & (self.ocount.q.val() == 1) {
                self.head_nb_q.d.next = self.new_nb.val();
            } else {
                self.head_nb_q.d.next = self.next_nb.val();
            }
        } else if self.rd_valid.q.val() & !self.ocount.q.val().any() {
            self.head_nb_q.d.next = self.new_nb.val();
        } else {
            self.head_nb_q.d.next = self.head_nb.val();
        }
        self.m_bytes.next = bit_cast::<8, M>(self.head_nb_q.q.val());
        // A beat's count is `K` but on a last beat, so `tkeep` needs no tlast
        // multiplexer: lane `i` is kept iff the count is above `i`, one LUT
        // of the count's bits (issue 14).
        self.m.tkeep.next = !(self.all_keep.val() << self.head_nb_q.q.val());
        self.sub_bytes.next = bit_cast::<32, M>(self.head_nb_q.q.val());
        if !self.pop.val() {
            self.sub_bytes.next = 0.into();
        }
        self.sub_q.d.next = self.sub_bytes.val();
        self.pkt_out_q.d.next = self.pop.val() & self.m.tlast.val();

        // ---- counters shared by both sides ----
        self.used_p1.next = self.used.q.val() + 1;
        self.used_m1.next = self.used.q.val() - 1;
        self.used_rb.next = self.used.q.val() - self.pkt_words.q.val();
        self.used_rb_m1.a.next = self.used.q.val();
        self.used_rb_m1.b.next = 0.into();
        self.used_rb_m1.c.next = self.pkt_words.q.val();
        // Four variants selected by two signals (one LUT6 per bit) and a hold
        // as the register's enable: a write and a read in one cycle cancel.
        self.used_sel.d[0].next = self.used_rb_m1.add_sub.val();
        self.used_sel.s[0].next = self.rollback.val() & self.issue.val();
        self.used_sel.d[1].next = self.used_rb.val();
        self.used_sel.s[1].next = self.rollback.val() & !self.issue.val();
        self.used_sel.d[2].next = self.used_p1.val();
        self.used_sel.s[2].next = !self.rollback.val() & !self.issue.val();
        self.used_sel.d[3].next = self.used_m1.val();
        self.used_sel.s[3].next = !self.rollback.val() & self.issue.val();
        if self.rollback.val() | (self.write.val() ^ self.issue.val()) {
            self.used.d.next = self.used_sel.q.val();
        }
        // `used`'s next value == depth from flags of the registered count, so the
        // write and issue decisions only select (no carry chain before the
        // compare): a write without a read fills from depth - 1; otherwise
        // the FIFO stays full only if it was full, nothing was read and (on a
        // rollback) the rolled-back packet had no words.
        self.used_almost.next = self.used.q.val() == self.depth_m1.val();
        self.full_q.d.next = self.full_q.q.val() & !self.issue.val() & (!self.rollback.val() | self.pkt_empty.q.val());
        if self.write.val() & !self.issue.val() {
            self.full_q.d.next = self.used_almost.val();
        }
        self.pkt_empty.d.next = self.pkt_empty.q.val() & !self.write.val();
        if self.commit.val() | self.rollback.val() {
            self.pkt_empty.d.next = true;
        }
        self.readable_m1.next = self.readable.q.val() - 1;
        self.readable_c.next = self.readable.q.val() + self.pkt_words.q.val();
        self.readable_c1.a.next = self.readable.q.val();
        self.readable_c1.b.next = self.pkt_words.q.val();
        self.readable_c1.c.next = self.minus_one.val();
        self.readable_sel.d[0].next = self.readable_c.val();
        self.readable_sel.s[0].next = self.commit.val() & self.issue.val();
        self.readable_sel.d[1].next = self.readable_c1.add_sub.val();
        self.readable_sel.s[1].next = self.commit.val() & !self.issue.val();
        self.readable_sel.d[2].next = self.readable_m1.val();
        self.readable_sel.s[2].next = !self.commit.val();
        if self.commit.val() | self.issue.val() {
            self.readable.d.next = self.readable_sel.q.val();
        }
        // `readable`'s next value != 0 likewise: a commit adds at least one word (and
        // a read needs one word readable), otherwise a read empties the FIFO
        // exactly when one word was readable.
        self.readable_one.next = self.readable.q.val() == 1;
        self.readable_nz.d.next = self.readable_nz.q.val() & !(self.issue.val() & self.readable_one.val());
        if self.commit.val() {
            self.readable_nz.d.next = true;
        }
        self.add_q.d.next = self.add_bytes.val();
        self.pkt_in_q.d.next = self.commit.val() & self.s.tlast.val();
        self.bytes.d.next = self.bytes.q.val() + self.add_q.q.val() - self.sub_q.q.val();
        self.pkts.d.next =
            self.pkts.q.val() + bit_cast::<32, 1>(self.pkt_in_q.q.val().into()) - bit_cast::<32, 1>(self.pkt_out_q.q.val().into());
        if self.count_drop.val() {
            self.drops.d.next = self.drops.q.val() + 1;
        }
        // A clear in the same cycle as a drop keeps that drop (clear, then count).
        if self.clear_drops.val() {
            self.drops.d.next = bit_cast::<32, 1>(self.count_drop.val().into());
        }
        self.occ_bytes.next = self.bytes.q.val();
        self.occ_pkts.next = self.pkts.q.val();
        self.drop_pkts.next = self.drops.q.val();
    }
}

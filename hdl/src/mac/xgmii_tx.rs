//! `ts_xgmii_tx`: a 10G Ethernet transmit MAC, AXI4-Stream (64 bits) to a
//! 64-bit XGMII (IEEE 802.3 clause 46; a PCS such as Xilinx's
//! `ten_gig_eth_pcs_pma` takes it at 156.25 MHz).
//!
//! A frame goes out as /S/ with the preamble and SFD (4.2.5-4.2.6), the
//! payload padded with zeros to 60 bytes (4.2.8: the minimum frame is 64
//! bytes with the FCS), the FCS (4.2.9, computed here), /T/ and idles. The
//! start is on lane 0 or lane 4 (46.2.6: /S/ on lane 0 of a 32-bit
//! transfer), and the gap to the next /S/ follows the deficit idle count of
//! 46.3.1.4: 12 bytes on average counting the /T/, 9 at least, the count of
//! deleted idles kept in 0..=3. 64-byte frames back to back therefore take
//! 10.5 words each: 14.88 Mpps at 156.25 MHz, the line rate.
//!
//! The pipeline (four registers from the input beat to the XGMII word):
//! 1. the frame's state machine takes a beat and writes a *descriptor* of
//!    one word of an unshifted stream in which every frame starts on lane 0
//!    (start word, data, the last word with its byte count, the FCS's
//!    spill, idles), and runs the CRC register over the word (a last word
//!    as a whole word, its lanes past the frame zero);
//! 2. the FCS: the CRC register after a last word, corrected for its zero
//!    lanes ([`super::zero_bytes_inverse`]), registered; beside it the
//!    word's layout (which bits take payload, which FCS byte, the constant
//!    bytes, the control flags) from its kind and byte count;
//! 3. the formatter makes the word as an AND-OR of those parts;
//! 4. the shifter puts the frame on lane 4 when its start says so: the
//!    output word is the word's low half in lanes 4..7 after the previous
//!    word's high half.
use super::xgmii::{ERROR, IDLE_WORD, START_WORD, TERM_WORD};
use super::zero_bytes_inverse;
use crate::axis::bundle::AxisSink;
use crate::prim::crc::crc32_update;
use crate::prim::widgets::{DffR, KeepCount, KeepExpand};
use rust_hdl::prelude::*;

/// Payload bytes a frame is padded to (the minimum frame, 64 bytes, less the FCS).
pub const MIN_PAYLOAD: u64 = 60;

/// The unshifted stream's word kinds (stage 1 to stage 2).
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Kind {
    Idle,
    Start,
    Data,
    /// A frame's last word of payload: its byte count in the descriptor, the
    /// FCS after it, /T/ if it fits.
    Last,
    /// The FCS bytes and /T/ a last word of 4 or more bytes could not hold.
    Spill,
    /// /E/ and /T/: the frame is cut (an underrun, or `tuser` set).
    Abort,
}

/// The state machine's states.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum St {
    Idle,
    Data,
    Pad,
    Spill,
    /// Taking and dropping the rest of a cut frame.
    Drain,
}

/// A 10G transmit MAC (module docs).
///
/// Ports:
/// - `clock`, `reset`: the XGMII clock (156.25 MHz for 10G); synchronous
///   active-high reset (idles out, counters zero, the deficit idle count 0).
/// - `s_tdata`, `s_tkeep`, `s_tlast`, `s_tuser`, `s_tvalid` in, `s_tready`
///   out: the frame without its FCS, byte 0 in bits 7:0, `tkeep` packed.
///   A frame must arrive without gaps once started (a packet FIFO in front
///   of the MAC, as the switch's egress has): a cycle with `s_tready` high
///   and `s_tvalid` low inside a frame is an *underrun*, and the frame is
///   cut. `s_tuser` bit 0 on any beat cuts the frame too (an error the
///   sender knows of). A cut frame ends in /E/ /T/ on the wire, so the
///   receiver drops it; the rest of it is taken and dropped. A frame of
///   fewer than 60 bytes is padded with zeros.
/// - `txd` (64 bits), `txc` (8 bits) out, registered: the XGMII word, lane
///   `i` in `txd` bits `8 i + 7 .. 8 i`, a control character iff `txc` bit `i`.
/// - `frames`, `bytes` out (32 bits, wrap): frames sent whole, and their
///   bytes on the wire from the destination address to the FCS (padding
///   included, preamble not). `underruns`, `errors` out (32 bits, wrap):
///   frames cut for an underrun and for `s_tuser`.
#[derive(LogicBlock)]
pub struct XgmiiTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<64, 8, 1>,
    pub txd: Signal<Out, Bits<64>>,
    pub txc: Signal<Out, Bits<8>>,
    pub frames: Signal<Out, Bits<32>>,
    pub bytes: Signal<Out, Bits<32>>,
    pub underruns: Signal<Out, Bits<32>>,
    pub errors: Signal<Out, Bits<32>>,
    // Stage 1.
    st: DffR<St>,
    /// Payload bytes of the frame before the current word.
    cnt: DffR<Bits<16>>,
    /// Bytes still to go to the padded 60: `60 - cnt`, 0 once past (a
    /// small counter, so no compare of `cnt` sits before a word's kind).
    pad_left: DffR<Bits<7>>,
    /// A whole frame's bytes on the wire: `cnt + 4` here, plus the last
    /// word's `last_n` (when `flen_add`) a cycle later in `fsum`, added to
    /// `bytes` the cycle after (each add from registers alone; the beat's
    /// byte count in front of two chains was the block's deepest path to
    /// ABC).
    flen: DFF<Bits<16>>,
    flen_add: DFF<Bit>,
    flen_v: DffR<Bit>,
    fsum: DFF<Bits<16>>,
    fsum_v: DffR<Bit>,
    crc: DffR<Bits<32>>,
    /// Idle words still owed before the next start.
    gapc: DffR<Bits<2>>,
    /// A word with /T/ went out last cycle, in lane `lt`: this cycle works
    /// out the gap (registered inputs only).
    tpend: DffR<Bit>,
    lt: DFF<Bits<3>>,
    /// The next frame's start lane is 4, and the current frame's.
    off_next: DffR<Bit>,
    off_cur: DffR<Bit>,
    /// The deficit idle count, 0..=3.
    dic: DffR<Bits<2>>,
    /// The last word's byte count, for its spill.
    last_n: DFF<Bits<4>>,
    d1_kind: DffR<Kind>,
    d1_data: DFF<Bits<64>>,
    d1_n: DFF<Bits<4>>,
    d1_off: DffR<Bit>,
    /// `d1_n` one-hot (bit `n`, 0..=8), for the FCS's correction.
    d1_noh: DFF<Bits<9>>,
    // Stage 2: the FCS, and the descriptor a cycle on.
    fcs_q: DFF<Bits<32>>,
    e_data: DFF<Bits<64>>,
    e_off: DffR<Bit>,
    /// The word's layout, worked out here from the registered kind and
    /// byte count so the formatter only selects: the bits that take the
    /// payload (`e_md`) and FCS byte `k` (`e_mf[k]`), the constant bytes
    /// (/S/, preamble, /T/, /E/, idles; zero where a lane takes payload or
    /// FCS) and the control flags.
    e_md: DFF<Bits<64>>,
    e_mf: Vec<DFF<Bits<64>>>,
    e_lk: DffR<Bits<64>>,
    e_lc: DffR<Bits<8>>,
    // Stage 3.
    d2_data: DffR<Bits<64>>,
    d2_ctrl: DffR<Bits<8>>,
    d2_off: DffR<Bit>,
    // Stage 4.
    hi_data: DffR<Bits<32>>,
    hi_ctrl: DffR<Bits<4>>,
    out_data: DffR<Bits<64>>,
    out_ctrl: DffR<Bits<8>>,
    n_frames: DffR<Bits<32>>,
    n_bytes: DffR<Bits<32>>,
    n_under: DffR<Bits<32>>,
    n_err: DffR<Bits<32>>,
    // Combinational.
    keep_count: KeepCount<8, 4>,
    k: Signal<Local, Bits<4>>,
    /// The beat's payload with the lanes past `tkeep` zero.
    masked: Signal<Local, Bits<64>>,
    /// The word stage 1 runs the CRC over (`masked`, or zeros while padding).
    cword: Signal<Local, Bits<64>>,
    crc_run: Signal<Local, Bit>,
    crc_next: Signal<Local, Bits<32>>,
    crc_base: Signal<Local, Bits<32>>,
    /// Bytes of a last word (the beat's, or up to the padded 60).
    n_last: Signal<Local, Bits<4>>,
    cnt8: Signal<Local, Bits<16>>,
    /// The padded payload ends in this word: `cnt + 8 >= 60`.
    pad_ends: Signal<Local, Bit>,
    pad_n: Signal<Local, Bits<4>>,
    k_ge: Signal<Local, Bit>,
    pad_next: Signal<Local, Bits<7>>,
    /// The gap's arithmetic (module docs, 46.3.1.4): `v` bytes from the
    /// word's lane 0 to an /S/ after exactly 12, `y` where it goes.
    v: Signal<Local, Bits<5>>,
    r: Signal<Local, Bits<2>>,
    dic_r: Signal<Local, Bits<3>>,
    y: Signal<Local, Bits<5>>,
    dic_y: Signal<Local, Bits<2>>,
    /// Idle words before the start (0..=2) and the start lane, from `y`.
    g_words: Signal<Local, Bits<2>>,
    can_start: Signal<Local, Bit>,
    start_off: Signal<Local, Bit>,
    // Stage 2's.
    fcs: Signal<Local, Bits<32>>,
    /// Stage 2's lane masks (8 bits) and their 64-bit forms; FCS byte `k`
    /// in every lane.
    lane_d: Signal<Local, Bits<8>>,
    lane_f: Vec<Signal<Local, Bits<8>>>,
    one_n: Signal<Local, Bits<16>>,
    exp_d: KeepExpand<8, 64>,
    exp_k: KeepExpand<8, 64>,
    exp_f: Vec<KeepExpand<8, 64>>,
    frep: Vec<Signal<Local, Bits<64>>>,
    one_nk: Vec<Signal<Local, Bits<16>>>,
    c_one16: Constant<Bits<16>>,
    c_k16: Vec<Constant<Bits<16>>>,
    n8: Signal<Local, Bits<7>>,
    gen_data: Signal<Local, Bits<64>>,
    gen_ctrl: Signal<Local, Bits<8>>,
    // Constants.
    init: Constant<Bits<32>>,
    state_masks: Vec<Constant<Bits<32>>>,
    data_masks: Vec<Constant<Bits<64>>>,
    /// Row `j` of the zero-byte correction for `p` = 8 - n zero lanes
    /// (0..=8): `inv_masks[32 p + j]`.
    inv_masks: Vec<Constant<Bits<32>>>,
    c_idle: Constant<Bits<64>>,
    c_start: Constant<Bits<64>>,
    c_term: Constant<Bits<64>>,
    c_min7: Constant<Bits<7>>,
    c_min_fcs: Constant<Bits<16>>,
    c_abort: Constant<Bits<64>>,
    c_ff16: Constant<Bits<16>>,
    c_lane_n: Vec<Constant<Bits<4>>>,
}

impl Default for XgmiiTx {
    fn default() -> Self {
        let word_cols = |state: u32, data: &[u8]| crc32_update(state, data);
        let zero = [0u8; 8];
        let state_cols: Vec<u32> = (0..32).map(|i| word_cols(1 << i, &zero)).collect();
        let data_cols: Vec<u32> = (0..64)
            .map(|k| {
                let mut d = zero;
                d[k / 8] = 1 << (k % 8);
                word_cols(0, &d)
            })
            .collect();
        let row32 =
            |cols: &[u32], j: usize| -> Bits<32> { (0..cols.len()).fold(0u64, |m, i| m | ((cols[i] >> j & 1) as u64) << i).to_bits() };
        let row64 =
            |cols: &[u32], j: usize| -> Bits<64> { (0..cols.len()).fold(0u64, |m, i| m | ((cols[i] >> j & 1) as u64) << i).to_bits() };
        let inv: Vec<[u32; 32]> = (0..9).map(zero_bytes_inverse).collect();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            txd: Default::default(),
            txc: Default::default(),
            frames: Default::default(),
            bytes: Default::default(),
            underruns: Default::default(),
            errors: Default::default(),
            st: Default::default(),
            cnt: Default::default(),
            pad_left: Default::default(),
            flen: Default::default(),
            flen_add: Default::default(),
            flen_v: Default::default(),
            fsum: Default::default(),
            fsum_v: Default::default(),
            crc: DffR::new(0xFFFF_FFFFu64.to_bits()),
            gapc: Default::default(),
            tpend: Default::default(),
            lt: Default::default(),
            off_next: Default::default(),
            off_cur: Default::default(),
            dic: Default::default(),
            last_n: Default::default(),
            d1_kind: Default::default(),
            d1_data: Default::default(),
            d1_n: Default::default(),
            d1_off: Default::default(),
            d1_noh: Default::default(),
            fcs_q: Default::default(),
            e_data: Default::default(),
            e_off: Default::default(),
            e_md: Default::default(),
            e_mf: (0..4).map(|_| Default::default()).collect(),
            e_lk: DffR::new(IDLE_WORD.to_bits()),
            e_lc: DffR::new(0xFFu64.to_bits()),
            lane_d: Default::default(),
            lane_f: (0..4).map(|_| Default::default()).collect(),
            one_n: Default::default(),
            exp_d: Default::default(),
            exp_k: Default::default(),
            exp_f: (0..4).map(|_| Default::default()).collect(),
            frep: (0..4).map(|_| Default::default()).collect(),
            one_nk: (0..4).map(|_| Default::default()).collect(),
            c_one16: Constant::new(1u64.to_bits()),
            c_k16: (0..4u64).map(|k| Constant::new(k.to_bits())).collect(),
            d2_data: DffR::new(IDLE_WORD.to_bits()),
            d2_ctrl: DffR::new(0xFFu64.to_bits()),
            d2_off: Default::default(),
            hi_data: DffR::new((IDLE_WORD & 0xFFFF_FFFF).to_bits()),
            hi_ctrl: DffR::new(0xFu64.to_bits()),
            out_data: DffR::new(IDLE_WORD.to_bits()),
            out_ctrl: DffR::new(0xFFu64.to_bits()),
            n_frames: Default::default(),
            n_bytes: Default::default(),
            n_under: Default::default(),
            n_err: Default::default(),
            keep_count: KeepCount::thermo(),
            k: Default::default(),
            masked: Default::default(),
            cword: Default::default(),
            crc_run: Default::default(),
            crc_next: Default::default(),
            crc_base: Default::default(),
            n_last: Default::default(),
            cnt8: Default::default(),
            pad_ends: Default::default(),
            pad_n: Default::default(),
            k_ge: Default::default(),
            pad_next: Default::default(),
            v: Default::default(),
            r: Default::default(),
            dic_r: Default::default(),
            y: Default::default(),
            dic_y: Default::default(),
            g_words: Default::default(),
            can_start: Default::default(),
            start_off: Default::default(),
            fcs: Default::default(),
            n8: Default::default(),
            gen_data: Default::default(),
            gen_ctrl: Default::default(),
            init: Constant::new(0xFFFF_FFFFu64.to_bits()),
            state_masks: (0..32).map(|j| Constant::new(row32(&state_cols, j))).collect(),
            data_masks: (0..32).map(|j| Constant::new(row64(&data_cols, j))).collect(),
            inv_masks: (0..9).flat_map(|p| (0..32).map(move |j| (p, j))).map(|(p, j)| Constant::new(row32(&inv[p], j))).collect(),
            c_idle: Constant::new(IDLE_WORD.to_bits()),
            c_start: Constant::new(START_WORD.to_bits()),
            c_term: Constant::new(TERM_WORD.to_bits()),
            c_min7: Constant::new(MIN_PAYLOAD.to_bits()),
            c_min_fcs: Constant::new((MIN_PAYLOAD + 4).to_bits()),
            c_abort: Constant::new(((TERM_WORD << 8) | ERROR as u64).to_bits()),
            c_ff16: Constant::new(0xFFu64.to_bits()),
            c_lane_n: (0..9u64).map(|n| Constant::new(n.to_bits())).collect(),
        }
    }
}

impl Logic for XgmiiTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, cnt, pad_left, flen, flen_add, flen_v, fsum, fsum_v, crc, gapc, tpend, lt, off_next, off_cur, dic, last_n,
            d1_kind, d1_data, d1_n, d1_off, d1_noh, fcs_q, e_data, e_off, e_md, e_lk, e_lc, d2_data, d2_ctrl, d2_off, hi_data, hi_ctrl,
            out_data, out_ctrl, n_frames, n_bytes, n_under, n_err
        );
        self.st.reset.next = self.reset.val();
        self.cnt.reset.next = self.reset.val();
        self.pad_left.reset.next = self.reset.val();
        self.flen_v.reset.next = self.reset.val();
        self.fsum_v.reset.next = self.reset.val();
        self.crc.reset.next = self.reset.val();
        self.gapc.reset.next = self.reset.val();
        self.tpend.reset.next = self.reset.val();
        self.off_next.reset.next = self.reset.val();
        self.off_cur.reset.next = self.reset.val();
        self.dic.reset.next = self.reset.val();
        self.d1_kind.reset.next = self.reset.val();
        self.d1_off.reset.next = self.reset.val();
        self.e_lk.reset.next = self.reset.val();
        self.e_lc.reset.next = self.reset.val();
        for k in 0..4 {
            self.e_mf[k].clock.next = self.clock.val();
        }
        self.e_off.reset.next = self.reset.val();
        self.d2_data.reset.next = self.reset.val();
        self.d2_ctrl.reset.next = self.reset.val();
        self.d2_off.reset.next = self.reset.val();
        self.hi_data.reset.next = self.reset.val();
        self.hi_ctrl.reset.next = self.reset.val();
        self.out_data.reset.next = self.reset.val();
        self.out_ctrl.reset.next = self.reset.val();
        self.n_frames.reset.next = self.reset.val();
        self.n_bytes.reset.next = self.reset.val();
        self.n_under.reset.next = self.reset.val();
        self.n_err.reset.next = self.reset.val();

        // ---- stage 1: the frame's state machine ----
        self.keep_count.keep.next = self.s.tkeep.val();
        self.k.next = self.keep_count.count.val();
        // The lanes of `tkeep` (packed), straight from its bits: no count
        // in front of the CRC's network.
        self.exp_k.keep.next = self.s.tkeep.val();
        self.masked.next = self.s.tdata.val() & self.exp_k.mask.val();
        self.cnt8.next = self.cnt.q.val() + 8;
        // The padding ends in this word (`cnt + 8 >= 60`), after `pad_n`
        // bytes of it; the beat reaches 60 itself (`cnt + k >= 60`).
        self.pad_ends.next = !self.pad_left.q.val().get_bits::<3>(4).any() & (self.pad_left.q.val().get_bits::<4>(0) <= 8);
        self.pad_n.next = self.pad_left.q.val().get_bits::<4>(0);
        self.k_ge.next = !self.pad_left.q.val().get_bits::<3>(4).any() & (self.k.val() >= self.pad_n.val());
        self.pad_next.next = 0.into();
        if self.pad_left.q.val() >= 8 {
            self.pad_next.next = self.pad_left.q.val() - 8;
        }
        // A last beat's word: its own bytes, or up to 60 when the padding
        // ends in it (the lanes past the beat are zero either way).
        self.n_last.next = self.k.val();
        if !self.k_ge.val() {
            self.n_last.next = self.pad_n.val();
        }

        // The gap after a /T/ in lane `lt` of a frame starting in lane 4
        // `off_cur`: an /S/ exactly 12 bytes on lands `v` bytes from that
        // word's lane 0; off a start lane by `r`, it comes `r` early while
        // the deficit idle count stays <= 3, else `4 - r` late.
        self.v.next = bit_cast::<5, 3>(self.lt.q.val()) + 12;
        if self.off_cur.q.val() {
            self.v.next = bit_cast::<5, 3>(self.lt.q.val()) + 16;
        }
        self.r.next = self.v.val().get_bits::<2>(0);
        self.dic_r.next = bit_cast::<3, 2>(self.dic.q.val()) + bit_cast::<3, 2>(self.r.val());
        self.y.next = self.v.val();
        self.dic_y.next = self.dic.q.val();
        if self.r.val().any() {
            if self.dic_r.val() <= 3 {
                self.y.next = self.v.val() - bit_cast::<5, 2>(self.r.val());
                self.dic_y.next = self.dic_r.val().get_bits::<2>(0);
            } else {
                self.y.next = self.v.val() + 4 - bit_cast::<5, 2>(self.r.val());
                self.dic_y.next = self.dic_r.val().get_bits::<2>(0);
            }
        }
        // y in 12..=24: (y >> 3) - 1 idle words, then the start in lane
        // 4 * y[2].
        self.g_words.next = self.y.val().get_bits::<2>(3) - 1;
        if self.tpend.q.val() {
            self.can_start.next = !self.g_words.val().any();
            self.start_off.next = self.y.val().get_bit(2);
        } else {
            self.can_start.next = !self.gapc.q.val().any();
            self.start_off.next = self.off_next.q.val();
        }

        self.st.d.next = self.st.q.val();
        self.cnt.d.next = self.cnt.q.val();
        self.pad_left.d.next = self.pad_left.q.val();
        self.flen_v.d.next = false;
        self.flen.d.next = self.cnt.q.val() + 4;
        self.flen_add.d.next = true;
        self.fsum.d.next = self.flen.q.val();
        if self.flen_add.q.val() {
            self.fsum.d.next = self.flen.q.val() + bit_cast::<16, 4>(self.last_n.q.val());
        }
        self.fsum_v.d.next = self.flen_v.q.val();
        self.tpend.d.next = false;
        self.lt.d.next = self.lt.q.val();
        self.last_n.d.next = self.last_n.q.val();
        self.off_cur.d.next = self.off_cur.q.val();
        self.gapc.d.next = self.gapc.q.val();
        if self.gapc.q.val().any() {
            self.gapc.d.next = self.gapc.q.val() - 1;
        }
        self.off_next.d.next = self.off_next.q.val();
        self.dic.d.next = self.dic.q.val();
        if self.tpend.q.val() {
            self.dic.d.next = self.dic_y.val();
            self.off_next.d.next = self.y.val().get_bit(2);
            self.gapc.d.next = 0.into();
            if self.g_words.val().any() {
                self.gapc.d.next = self.g_words.val() - 1;
            }
        }
        self.d1_kind.d.next = Kind::Idle;
        self.d1_data.d.next = self.masked.val();
        self.d1_n.d.next = 8.into();
        self.d1_off.d.next = self.off_cur.q.val();
        self.s.tready.next = (self.st.q.val() == St::Data) | (self.st.q.val() == St::Drain);
        self.crc_run.next = false;
        self.cword.next = self.masked.val();
        self.n_frames.d.next = self.n_frames.q.val();
        self.n_bytes.d.next = self.n_bytes.q.val();
        if self.fsum_v.q.val() {
            self.n_bytes.d.next = self.n_bytes.q.val() + bit_cast::<32, 16>(self.fsum.q.val());
        }
        self.n_under.d.next = self.n_under.q.val();
        self.n_err.d.next = self.n_err.q.val();

        if self.st.q.val() == St::Idle {
            if self.s.tvalid.val() & self.can_start.val() {
                self.d1_kind.d.next = Kind::Start;
                self.d1_off.d.next = self.start_off.val();
                self.off_cur.d.next = self.start_off.val();
                self.st.d.next = St::Data;
                self.cnt.d.next = 0.into();
                self.pad_left.d.next = self.c_min7.val();
            }
        } else if self.st.q.val() == St::Data {
            if !self.s.tvalid.val() {
                // Underrun: cut the frame, drop its rest.
                self.d1_kind.d.next = Kind::Abort;
                self.st.d.next = St::Drain;
                self.tpend.d.next = true;
                self.lt.d.next = 1.into();
                self.n_under.d.next = self.n_under.q.val() + 1;
            } else if self.s.tuser.val().any() {
                self.d1_kind.d.next = Kind::Abort;
                self.tpend.d.next = true;
                self.lt.d.next = 1.into();
                self.n_err.d.next = self.n_err.q.val() + 1;
                if self.s.tlast.val() {
                    self.st.d.next = St::Idle;
                } else {
                    self.st.d.next = St::Drain;
                }
            } else if !self.s.tlast.val() {
                self.d1_kind.d.next = Kind::Data;
                self.crc_run.next = true;
                self.cnt.d.next = self.cnt8.val();
                self.pad_left.d.next = self.pad_next.val();
            } else if self.pad_ends.val() | self.k_ge.val() {
                // The frame's last word (with the end of its padding).
                self.d1_kind.d.next = Kind::Last;
                self.d1_n.d.next = self.n_last.val();
                self.last_n.d.next = self.n_last.val();
                self.crc_run.next = true;
                self.n_frames.d.next = self.n_frames.q.val() + 1;
                self.flen_v.d.next = true;
                if self.n_last.val() >= 4 {
                    self.st.d.next = St::Spill;
                } else {
                    self.st.d.next = St::Idle;
                    self.tpend.d.next = true;
                    self.lt.d.next = bit_cast::<3, 4>(self.n_last.val() + 4);
                }
            } else {
                // A short frame: this word whole, then padding.
                self.d1_kind.d.next = Kind::Data;
                self.crc_run.next = true;
                self.cnt.d.next = self.cnt8.val();
                self.pad_left.d.next = self.pad_next.val();
                self.st.d.next = St::Pad;
            }
        } else if self.st.q.val() == St::Pad {
            self.cword.next = 0.into();
            self.d1_data.d.next = 0.into();
            self.crc_run.next = true;
            if self.pad_ends.val() {
                self.d1_kind.d.next = Kind::Last;
                self.d1_n.d.next = self.pad_n.val();
                self.last_n.d.next = self.pad_n.val();
                self.n_frames.d.next = self.n_frames.q.val() + 1;
                self.flen_v.d.next = true;
                self.flen.d.next = self.c_min_fcs.val();
                self.flen_add.d.next = false;
                if self.pad_n.val() >= 4 {
                    self.st.d.next = St::Spill;
                } else {
                    self.st.d.next = St::Idle;
                    self.tpend.d.next = true;
                    self.lt.d.next = bit_cast::<3, 4>(self.pad_n.val() + 4);
                }
            } else {
                self.d1_kind.d.next = Kind::Data;
                self.cnt.d.next = self.cnt8.val();
                self.pad_left.d.next = self.pad_next.val();
            }
        } else if self.st.q.val() == St::Spill {
            self.d1_kind.d.next = Kind::Spill;
            self.d1_n.d.next = self.last_n.q.val();
            self.st.d.next = St::Idle;
            self.tpend.d.next = true;
            self.lt.d.next = bit_cast::<3, 4>(self.last_n.q.val() - 4);
        } else {
            // DRAIN: take and drop the cut frame's rest.
            if self.s.tvalid.val() & self.s.tlast.val() {
                self.st.d.next = St::Idle;
            }
        }

        // The CRC register: over whole words, restarted by a frame's start.
        self.crc_base.next = self.crc.q.val();
        self.crc_next.next = 0.into();
        for j in 0..32 {
            self.crc_next.next = self.crc_next.val().replace_bit(
                j,
                (self.crc_base.val() & self.state_masks[j].val()).xor() ^ (self.cword.val() & self.data_masks[j].val()).xor(),
            );
        }
        self.crc.d.next = self.crc.q.val();
        if self.crc_run.val() {
            self.crc.d.next = self.crc_next.val();
        }
        if self.st.q.val() == St::Idle {
            self.crc.d.next = self.init.val();
        }

        // `d1_n` one-hot, registered with it.
        self.d1_noh.d.next = 0.into();
        for n in 0..9 {
            if self.d1_n.d.val() == self.c_lane_n[n].val() {
                self.d1_noh.d.next = self.d1_noh.d.val().replace_bit(n, true);
            }
        }

        // ---- stage 2: the FCS ----
        // The register run over the last word whole, less its `8 - n` zero
        // lanes (an AND-OR over the one-hot count), complemented (4.2.9:
        // bytes low first). Loaded at a last word, held for its spill.
        self.fcs.next = 0.into();
        for p in 0..9 {
            for j in 0..32 {
                self.fcs.next = self.fcs.val().replace_bit(
                    j,
                    self.fcs.val().get_bit(j)
                        | (self.d1_noh.q.val().get_bit(8 - p) & (self.crc.q.val() & self.inv_masks[32 * p + j].val()).xor()),
                );
            }
        }
        self.fcs_q.d.next = self.fcs_q.q.val();
        if self.d1_kind.q.val() == Kind::Last {
            self.fcs_q.d.next = !self.fcs.val();
        }
        self.e_data.d.next = self.d1_data.q.val();
        self.e_off.d.next = self.d1_off.q.val();
        // The layout by kind; `n` lanes of payload in a last word, the FCS
        // in lanes `n..n+4` (`1 << (n + k)`: FCS byte `k`'s lane, bits 8..15
        // for the spill's `n + k - 8`), /T/ after it.
        self.n8.next = bit_cast::<7, 4>(self.d1_n.q.val()) << 3;
        self.one_n.next = self.c_one16.val() << bit_cast::<16, 4>(self.d1_n.q.val());
        self.lane_d.next = 0.into();
        for k in 0..4 {
            self.lane_f[k].next = 0.into();
            self.one_nk[k].next = self.one_n.val() << self.c_k16[k].val();
        }
        self.e_lk.d.next = self.c_idle.val();
        self.e_lc.d.next = 0xFF.into();
        if self.d1_kind.q.val() == Kind::Start {
            self.e_lk.d.next = self.c_start.val();
            self.e_lc.d.next = 0x01.into();
        } else if self.d1_kind.q.val() == Kind::Data {
            self.lane_d.next = 0xFF.into();
            self.e_lk.d.next = 0.into();
            self.e_lc.d.next = 0.into();
        } else if self.d1_kind.q.val() == Kind::Last {
            self.lane_d.next = self.one_n.val().get_bits::<8>(0) - 1;
            if self.d1_n.q.val() == self.c_lane_n[8].val() {
                self.lane_d.next = 0xFF.into();
            }
            for k in 0..4 {
                self.lane_f[k].next = self.one_nk[k].val().get_bits::<8>(0);
            }
            self.e_lk.d.next = self.c_term.val() << (self.n8.val() + 32);
            self.e_lc.d.next = bit_cast::<8, 16>(self.c_ff16.val() << (bit_cast::<16, 4>(self.d1_n.q.val()) + 4));
        } else if self.d1_kind.q.val() == Kind::Spill {
            for k in 0..4 {
                self.lane_f[k].next = self.one_nk[k].val().get_bits::<8>(8);
            }
            self.e_lk.d.next = self.c_term.val() << (self.n8.val() - 32);
            self.e_lc.d.next = bit_cast::<8, 16>(self.c_ff16.val() << (bit_cast::<16, 4>(self.d1_n.q.val()) - 4));
        } else if self.d1_kind.q.val() == Kind::Abort {
            self.e_lk.d.next = self.c_abort.val();
        }
        self.exp_d.keep.next = self.lane_d.val();
        self.e_md.d.next = self.exp_d.mask.val();
        for k in 0..4 {
            self.exp_f[k].keep.next = self.lane_f[k].val();
            self.e_mf[k].d.next = self.exp_f[k].mask.val();
        }

        // ---- stage 3: the word, an AND-OR of its parts ----
        self.gen_data.next = (self.e_data.q.val() & self.e_md.q.val()) | self.e_lk.q.val();
        // FCS byte k in every lane (`bit_cast` is evaluated when the Verilog
        // is written, so its argument cannot use a loop index).
        self.frep[0].next = bit_cast::<64, 8>(self.fcs_q.q.val().get_bits::<8>(0));
        self.frep[1].next = bit_cast::<64, 8>(self.fcs_q.q.val().get_bits::<8>(8));
        self.frep[2].next = bit_cast::<64, 8>(self.fcs_q.q.val().get_bits::<8>(16));
        self.frep[3].next = bit_cast::<64, 8>(self.fcs_q.q.val().get_bits::<8>(24));
        for k in 0..4 {
            self.frep[k].next = self.frep[k].val() | (self.frep[k].val() << 8);
            self.frep[k].next = self.frep[k].val() | (self.frep[k].val() << 16);
            self.frep[k].next = self.frep[k].val() | (self.frep[k].val() << 32);
            self.gen_data.next = self.gen_data.val() | (self.frep[k].val() & self.e_mf[k].q.val());
        }
        self.gen_ctrl.next = self.e_lc.q.val();
        self.d2_data.d.next = self.gen_data.val();
        self.d2_ctrl.d.next = self.gen_ctrl.val();
        self.d2_off.d.next = self.e_off.q.val();

        // ---- stage 4: lane 0 or lane 4 ----
        self.hi_data.d.next = self.d2_data.q.val().get_bits::<32>(32);
        self.hi_ctrl.d.next = self.d2_ctrl.q.val().get_bits::<4>(4);
        if self.d2_off.q.val() {
            self.out_data.d.next = (self.d2_data.q.val() << 32) | bit_cast::<64, 32>(self.hi_data.q.val());
            self.out_ctrl.d.next = (self.d2_ctrl.q.val() << 4) | bit_cast::<8, 4>(self.hi_ctrl.q.val());
        } else {
            self.out_data.d.next = self.d2_data.q.val();
            self.out_ctrl.d.next = self.d2_ctrl.q.val();
        }
        self.txd.next = self.out_data.q.val();
        self.txc.next = self.out_ctrl.q.val();
        self.frames.next = self.n_frames.q.val();
        self.bytes.next = self.n_bytes.q.val();
        self.underruns.next = self.n_under.q.val();
        self.errors.next = self.n_err.q.val();
    }
}

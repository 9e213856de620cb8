//! `ts_trimmer`: cuts a packet to its kept bytes and makes it a valid frame
//! (`docs/trimming.md`, "Trim length and the trimmer"; seed 000 §3 and
//! seed 001 for NDP, seed 002 for the DSCP TRIMMABLE -> TRIMMED rewrite).
//!
//! The traffic manager's admission decides; the trimmer carries it out. A
//! packet whose `tuser.flags` has TRIMMED ([`crate::meta::flag`]) is trimmed
//! to `tuser.length` bytes (at most 128: the keep length admission computed,
//! `docs/trimming.md`); RETURNED also swaps its addresses. Every
//! other packet passes untouched. Packets leave in the order they came.
//!
//! A trimmed packet is captured, then processed in nine phases of one cycle
//! each (issue 14: every phase is a few LUT levels, so the block meets its
//! clock), then emitted:
//! 0. capture: every beat is accepted at once; the first 128 bytes are kept in
//!    `128 / K` beat registers and the bytes counted; the last beat hands the
//!    packet to processing (its `tuser`, bytes and wanted length registered);
//! 1. keep and cut from the registered byte count, both candidates of each
//!    rewritten length; [`TrimThermo`]'s thermometer codes of the offsets,
//!    `keep` and the end of the IPv4 header, and the rewrite flags;
//! 2. [`TrimSwap`] swaps a returned packet's addresses, [`TrimMask`] marks the
//!    bytes each checksum covers, [`TrimCond`] decides each byte's rewrite;
//! 3. [`TrimEdit`] rewrites the fields;
//! 4. [`TrimSumA`]: 16 partial sums of 4 bytes per checksum sum;
//! 5. [`TrimAdd`]: the partials added four by four;
//! 6. [`TrimAdd`]: those added four by four, the byte sums;
//! 7. [`TrimFoldA`]: the byte sums weighed into words (plus the UDP pseudo header);
//! 8. [`TrimFoldB`]: end-around carry and complement;
//! 9. [`TrimInsert`] puts the checksums into the emit register, once the
//!    previous packet's emit is over;
//!
//! then the emit: `ceil(keep / K)` beats, `tuser.length` = bytes kept.
//!
//! Capture, processing and emit overlap: the next trimmed packet is captured
//! while this one is processed, and processed while this one is emitted. Its
//! last beat waits until the processing is idle, and no beat is taken during
//! phase 1 (phase 2 still reads the beat registers). A passing packet waits
//! until processing and emit are idle (packets leave in the order they came)
//! and then streams at one beat per cycle. A trimmed packet's first beat out
//! leaves [`PROC_CYCLES`] = 10 cycles after its last beat in; back to back,
//! trimmed packets of `n` beats in and `m` out take `max(n + 1, 10, m + 1)`
//! cycles each (the serial trimmer before issue 14 took `n + 3 + m`).
//!
//! Contract with admission: `tuser.length` of a trimmed packet is the keep
//! length (1..=128). A packet that ends before that keeps what it has (the
//! output's `tuser.length` is always the bytes emitted).
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset.
//! - `s_tdata` … `s_tready`: input stream; `tuser` is the wide ingress `tuser`
//!   (`U >= 88`: the header-location fields of [`crate::meta`]).
//! - `m_tdata` … `m_tready`: output stream (registered).
//! - `dscp_en`, `dscp`: the DSCP TRIMMED codepoint (a run-time register) and
//!   whether it is enabled.
//! - `cut_pkts` (32): packets that lost bytes (wraps; cleared by `cut_clear`).
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::skid::AxisSkid;
use crate::meta::{
    flag, FLAGS_LSB, IHL_LSB, L3_IPV4, L3_IPV6, L3_LSB, L3_OFF_LSB, L4_LSB, L4_OFF_LSB, L4_UDP, LENGTH_LSB, RETURNED_BIT, TRIMMED_BIT,
};
use crate::prim::widgets::{DffKeep, DffR, KeepCount};
use crate::tm::trim_logic::{
    TrimAdd, TrimCond, TrimEdit, TrimFoldA, TrimFoldB, TrimInsert, TrimMask, TrimSumA, TrimSwap, TrimThermo, BUF_BITS, BUF_BYTES,
    COND_BITS, FL_COPIES, MIDS_BITS, MID_BITS, PARTS_BITS, PART_BITS,
};
use rust_hdl::prelude::*;

/// Cycles between a trimmed packet's last beat in and its first beat out,
/// with the output ready: the hand-off and phases 1-9 (module docs).
pub const PROC_CYCLES: usize = 10;
/// The last processing phase: it loads the emit register.
const LAST_PHASE: u64 = PROC_CYCLES as u64 - 1;

/// The trimmer. `D` data bits, `K = D / 8` lanes (8..=64, a divisor of 128),
/// `U` tuser bits (at least 88).
#[derive(LogicBlock)]
pub struct Trimmer<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub dscp_en: Signal<In, Bit>,
    pub dscp: Signal<In, Bits<6>>,
    pub cut_pkts: Signal<Out, Bits<32>>,
    pub cut_clear: Signal<In, Bit>,
    slot_id: Vec<Constant<Bits<8>>>,
    slot_shift: Vec<Constant<Bits<16>>>,
    nb: Constant<Bits<8>>,
    all_keep: Constant<Bits<K>>,
    k_bytes: Constant<Bits<8>>,
    k_mask: Constant<Bits<8>>,
    d_shift: Constant<Bits<16>>,
    /// [`LAST_PHASE`], and the phase before it.
    last_phase: Constant<Bits<4>>,
    pre_last: Constant<Bits<4>>,
    /// The emit's last beat leaves this cycle.
    fin: Signal<Local, Bit>,
    /// The window: the most bytes a trimmed packet keeps ([`Trimmer::with_window`]).
    win: Constant<Bits<16>>,
    /// The window's bytes of the buffer: the edited and the emitted buffer
    /// are masked with it, so synthesis removes every byte past the window.
    win_mask: Constant<Bits<BUF_BITS>>,
    len_clear: Constant<Bits<U>>,
    slot_mask: Vec<Constant<Bits<BUF_BITS>>>,
    /// Beat j's bytes, already at their place in the buffer (the flip-flops
    /// outside the beat's range have a constant input and synthesis drops them).
    slot: Vec<DFF<Bits<BUF_BITS>>>,
    wide_in: Signal<Local, Bits<BUF_BITS>>,
    // Capture.
    meta: DFF<Bits<U>>,
    in_pkt: DffR<Bit>,
    mode_trim: DffR<Bit>,
    bidx: DffR<Bits<8>>,
    total: DffR<Bits<16>>,
    // Processing (the packet handed over at its last beat).
    /// 0 idle, 1..=9 processing (9, [`LAST_PHASE`], waits while the previous
    /// packet is emitted).
    phase: DffR<Bits<4>>,
    /// `phase == 0` and `phase == 1`, kept in flip-flops beside it (written
    /// from registers, as its next value is), so `s_tready` reads them
    /// instead of comparing `phase`
    /// (issue 14: `ts_tm`'s path on the Versa ran from the phase compare
    /// through `s_tready` into admission's output slice).
    idle_q: DffR<Bit>,
    ph1_q: DffR<Bit>,
    pmeta: DFF<Bits<U>>,
    ptotal: DFF<Bits<16>>,
    /// `ptotal >= 128`, `ptotal >= 256`, loaded with it: `total`'s high bits
    /// ORed (registers) or the sum's bit 7 / 8 (a beat adds at most 64 bytes).
    ptbig: DFF<Bit>,
    ptbig8: DFF<Bit>,
    pwant: DFF<Bits<16>>,
    keep: DffR<Bits<8>>,
    cut: DffR<Bit>,
    ipt: DFF<Bits<BUF_BYTES>>,
    /// `l3_off + 40`, following the input while idle like `pmeta`.
    l3o40: DFF<Bits<8>>,
    /// `l3_off + 4 * ihl` (the end of the IPv4 header), following the input
    /// like `l3o40`, so no add precedes the thermometer codes' compares.
    ipend: DFF<Bits<9>>,
    /// Phase 1: the lengths for both outcomes of `keep = min(want, total)`
    /// (`la*` from `want`, `lb*` from `total`) and which one holds.
    la3: DFF<Bits<16>>,
    lb3: DFF<Bits<16>>,
    la6: DFF<Bits<16>>,
    lb6: DFF<Bits<16>>,
    la4: DFF<Bits<16>>,
    lb4: DFF<Bits<16>>,
    ksel: DFF<Bit>,
    lens: Signal<Local, Bits<48>>,
    /// Phase 2: `lens` registered for the edit, so the selection by `ksel`
    /// is not in front of the edit's byte multiplexers, which every bit of
    /// it fans out to (issue 14).
    lens_r: DFF<Bits<48>>,
    /// Phase 2: [`TrimCond`]'s per-byte conditions for the edit.
    ec: DFF<Bits<COND_BITS>>,
    ge3: DFF<Bits<BUF_BYTES>>,
    ge4: DFF<Bits<BUF_BYTES>>,
    kt: DFF<Bits<BUF_BYTES>>,
    fl: DFF<Bits<10>>,
    /// Copies of `fl` for [`TrimCond`], one per part of the buffer (issue 14:
    /// one flag register fanning out to 128 bytes' conditions was the path).
    fl_rep: Vec<DffKeep<Bits<10>>>,
    e0: DFF<Bits<BUF_BITS>>,
    e1: DFF<Bits<BUF_BITS>>,
    /// A copy of `e1` for the checksum's first sums (`e1` itself feeds the
    /// insert): each copy can sit by its consumer (issue 14: one 1 024-bit
    /// register between the two was 3.9 ns of routing from them).
    e1s: DffKeep<Bits<BUF_BITS>>,
    m_ip: DFF<Bits<BUF_BYTES>>,
    m_ud: DFF<Bits<BUF_BYTES>>,
    extra: DFF<Bits<17>>,
    parts: DFF<Bits<PARTS_BITS>>,
    mids: DFF<Bits<MIDS_BITS>>,
    sums: DFF<Bits<64>>,
    tsum: DFF<Bits<36>>,
    csum: DFF<Bits<32>>,
    /// Phase 2: which checksums the last phase inserts (IPv4 header changed; UDP over
    /// IPv6 cut), registered so no logic from `pmeta` (which follows the input
    /// while idle) reaches the emit register's load.
    fix4: DFF<Bit>,
    fix6: DFF<Bit>,
    // Emit (overlaps the next packet's processing).
    emitting: DffR<Bit>,
    /// Registered copies of the emit register's two enables, computed from
    /// next-state values: `adv` = `emitting & out.s_tready` (shift a beat
    /// out), `ld` = `phase == LAST_PHASE & !emitting` (load the packet). The enables
    /// fan out to every bit of `e2`; from a flip-flop rather than from the
    /// output slice's ready through logic (issue 14).
    adv: DffR<Bit>,
    ld: DffR<Bit>,
    e2: DFF<Bits<BUF_BITS>>,
    erem: DffR<Bits<8>>,
    etuser: DFF<Bits<U>>,
    elkeep: DFF<Bits<K>>,
    cut_count: DffR<Bits<32>>,
    thermo: TrimThermo,
    swap: TrimSwap,
    cond: TrimCond,
    edit: TrimEdit,
    mask: TrimMask,
    sum_a: TrimSumA,
    sum_b: TrimAdd<PARTS_BITS, PART_BITS, MIDS_BITS>,
    sum_c: TrimAdd<MIDS_BITS, MID_BITS, 64>,
    fold_a: TrimFoldA,
    fold_b: TrimFoldB,
    ins: TrimInsert,
    /// The output slice, eager ([`AxisSkid::eager`]; issue 14: the enables of
    /// its data registers do not wait for a passing packet's `s_tvalid`).
    out: AxisSkid<D, K, U>,
    keep_count: KeepCount<K, 8>,
    buf0: Signal<Local, Bits<BUF_BITS>>,
    cur_trim: Signal<Local, Bit>,
    cur_meta: Signal<Local, Bits<U>>,
    idle: Signal<Local, Bit>,
    xfer: Signal<Local, Bit>,
    final_bytes: Signal<Local, Bits<16>>,
    want: Signal<Local, Bits<16>>,
}

impl<const D: usize, const K: usize, const U: usize> Default for Trimmer<D, K, U> {
    fn default() -> Self {
        Self::with_window(BUF_BYTES)
    }
}

impl<const D: usize, const K: usize, const U: usize> Trimmer<D, K, U> {
    /// A trimmer that keeps at most `window` bytes of a trimmed packet
    /// (`tm.trim_window`: 64 or 128, a multiple of `K`): the beat registers
    /// past it are not built and every byte past it of the edit, the
    /// checksums and the emit is constant, so a 64-byte window is about half
    /// the logic (for parts as small as the ECP5-45F, `docs/boards.md`). A
    /// trimmed packet whose `tuser.length` asks for more keeps `window` bytes.
    pub fn with_window(window: usize) -> Self {
        assert!(K * 8 == D && (8..=64).contains(&K) && BUF_BYTES.is_multiple_of(K), "Trimmer: K in 8..=64 dividing 128, D = 8K");
        assert!(
            (K..=BUF_BYTES).contains(&window) && window.is_multiple_of(K),
            "Trimmer: the window ({window} B) is a multiple of K ({K}) up to {BUF_BYTES}"
        );
        assert!(U >= L3_LSB + 32, "Trimmer: tuser needs the header-location fields (user_width 128)");
        // hdl_gen needs literal bit positions: these are the meta.rs ones.
        assert_eq!((FLAGS_LSB, L3_LSB, LENGTH_LSB), (32, 56, 16));
        assert_eq!((flag::TRIMMED, flag::RETURNED), (1, 2));
        let nb = window / K;
        let mut win_mask = Bits::<BUF_BITS>::default();
        for b in 0..8 * window {
            win_mask = win_mask.replace_bit(b, true);
        }
        let mut len_clear = Bits::<U>::mask();
        for b in LENGTH_LSB..LENGTH_LSB + 16 {
            len_clear = len_clear.replace_bit(b, false);
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            dscp_en: Default::default(),
            dscp: Default::default(),
            cut_pkts: Default::default(),
            cut_clear: Default::default(),
            slot_id: (0..nb).map(|j| Constant::new((j as u64).to_bits())).collect(),
            slot_shift: (0..nb).map(|j| Constant::new(((j * D) as u64).to_bits())).collect(),
            nb: Constant::new((nb as u64).to_bits()),
            all_keep: Constant::new(Bits::<K>::mask()),
            k_bytes: Constant::new((K as u64).to_bits()),
            k_mask: Constant::new(((K - 1) as u64).to_bits()),
            d_shift: Constant::new((D as u64).to_bits()),
            len_clear: Constant::new(len_clear),
            win: Constant::new((window as u64).to_bits()),
            win_mask: Constant::new(win_mask),
            slot_mask: (0..nb)
                .map(|j| {
                    let mut m = Bits::<BUF_BITS>::default();
                    for b in j * D..(j + 1) * D {
                        m = m.replace_bit(b, true);
                    }
                    Constant::new(m)
                })
                .collect(),
            slot: (0..nb).map(|_| Default::default()).collect(),
            wide_in: Default::default(),
            meta: Default::default(),
            in_pkt: Default::default(),
            mode_trim: Default::default(),
            bidx: Default::default(),
            total: Default::default(),
            phase: Default::default(),
            last_phase: Constant::new(LAST_PHASE.to_bits()),
            pre_last: Constant::new((LAST_PHASE - 1).to_bits()),
            fin: Default::default(),
            pmeta: Default::default(),
            ptotal: Default::default(),
            ptbig: Default::default(),
            ptbig8: Default::default(),
            pwant: Default::default(),
            keep: Default::default(),
            cut: Default::default(),
            ipt: Default::default(),
            l3o40: Default::default(),
            ipend: Default::default(),
            la3: Default::default(),
            lb3: Default::default(),
            la6: Default::default(),
            lb6: Default::default(),
            la4: Default::default(),
            lb4: Default::default(),
            ksel: Default::default(),
            lens: Default::default(),
            ge3: Default::default(),
            ge4: Default::default(),
            kt: Default::default(),
            fl: Default::default(),
            e0: Default::default(),
            lens_r: Default::default(),
            ec: Default::default(),
            fl_rep: (0..FL_COPIES).map(|_| DffKeep::default()).collect(),
            e1: Default::default(),
            e1s: Default::default(),
            m_ip: Default::default(),
            m_ud: Default::default(),
            extra: Default::default(),
            parts: Default::default(),
            mids: Default::default(),
            sums: Default::default(),
            tsum: Default::default(),
            csum: Default::default(),
            fix4: Default::default(),
            fix6: Default::default(),
            emitting: Default::default(),
            idle_q: DffR::new(true),
            ph1_q: Default::default(),
            adv: Default::default(),
            ld: Default::default(),
            e2: Default::default(),
            erem: Default::default(),
            etuser: Default::default(),
            elkeep: Default::default(),
            cut_count: Default::default(),
            thermo: Default::default(),
            swap: Default::default(),
            cond: Default::default(),
            edit: Default::default(),
            mask: Default::default(),
            sum_a: Default::default(),
            sum_b: Default::default(),
            sum_c: Default::default(),
            fold_a: Default::default(),
            fold_b: Default::default(),
            ins: Default::default(),
            out: AxisSkid::eager(),
            keep_count: Default::default(),
            buf0: Default::default(),
            cur_trim: Default::default(),
            cur_meta: Default::default(),
            idle: Default::default(),
            xfer: Default::default(),
            final_bytes: Default::default(),
            want: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for Trimmer<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, meta, in_pkt, mode_trim, bidx, total, phase, pmeta, ptotal, ptbig, ptbig8, pwant, keep, cut, ipt, l3o40, ipend,
            la3, lb3, la6, lb6, la4, lb4, ksel, ge3, ge4, kt, fl, e0, lens_r, ec, e1, e1s, m_ip, m_ud, extra, parts, mids, sums, tsum,
            csum, fix4, fix6, emitting, adv, ld, e2, erem, etuser, elkeep, cut_count, idle_q, ph1_q
        );
        for j in 0..self.slot.len() {
            self.slot[j].clock.next = self.clock.val();
            self.slot[j].d.next = self.slot[j].q.val();
        }
        for j in 0..self.fl_rep.len() {
            self.fl_rep[j].clock.next = self.clock.val();
            self.fl_rep[j].d.next = self.fl_rep[j].q.val();
        }
        self.in_pkt.reset.next = self.reset.val();
        self.mode_trim.reset.next = self.reset.val();
        self.idle_q.reset.next = self.reset.val();
        self.ph1_q.reset.next = self.reset.val();
        self.bidx.reset.next = self.reset.val();
        self.total.reset.next = self.reset.val();
        self.phase.reset.next = self.reset.val();
        self.keep.reset.next = self.reset.val();
        self.cut.reset.next = self.reset.val();
        self.erem.reset.next = self.reset.val();
        self.emitting.reset.next = self.reset.val();
        self.adv.reset.next = self.reset.val();
        self.ld.reset.next = self.reset.val();
        self.cut_count.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();

        // The captured bytes as one buffer.
        self.buf0.next = 0.into();
        for j in 0..self.slot.len() {
            self.buf0.next = self.buf0.val() | (self.slot[j].q.val() & self.slot_mask[j].val());
        }
        // Phase 2: address swaps (and masks, below), the lengths selected by
        // `ksel` from phase 1's candidates; phase 3: the field rewrites.
        self.swap.buf_in.next = self.buf0.val();
        self.swap.rts.next = self.pmeta.q.val().get_bit(RETURNED_BIT);
        self.swap.info.next = self.pmeta.q.val().get_bits::<18>(L3_LSB);
        self.swap.ge3.next = self.ge3.q.val();
        self.swap.fl.next = self.fl.q.val();
        self.edit.buf_in.next = self.e0.q.val();
        self.edit.keep.next = self.keep.q.val();
        self.edit.cut.next = self.cut.q.val();
        self.edit.rts.next = self.pmeta.q.val().get_bit(RETURNED_BIT);
        self.edit.info.next = self.pmeta.q.val().get_bits::<18>(L3_LSB);
        self.edit.dscp_en.next = self.dscp_en.val();
        self.edit.dscp.next = self.dscp.val();
        if self.ksel.q.val() {
            self.lens.next = bit_cast::<48, 16>(self.lb3.q.val())
                | (bit_cast::<48, 16>(self.lb6.q.val()) << 16)
                | (bit_cast::<48, 16>(self.lb4.q.val()) << 32);
        } else {
            self.lens.next = bit_cast::<48, 16>(self.la3.q.val())
                | (bit_cast::<48, 16>(self.la6.q.val()) << 16)
                | (bit_cast::<48, 16>(self.la4.q.val()) << 32);
        }
        self.edit.lens.next = self.lens_r.q.val();
        self.edit.ec.next = self.ec.q.val();
        self.cond.ge3.next = self.ge3.q.val();
        self.cond.ge4.next = self.ge4.q.val();
        self.cond.kt.next = self.kt.q.val();
        for j in 0..self.fl_rep.len() {
            self.cond.fl[j].next = self.fl_rep[j].q.val();
        }
        // Phase 1: thermometer codes for the edit.
        self.thermo.info.next = self.pmeta.q.val().get_bits::<14>(L3_OFF_LSB);
        self.thermo.want.next = self.pwant.q.val();
        self.thermo.total.next = self.ptotal.q.val();
        self.thermo.tbig.next = self.ptbig.q.val();
        self.thermo.tbig8.next = self.ptbig8.q.val();
        self.thermo.ipend.next = self.ipend.q.val();
        self.thermo.kind.next = self.pmeta.q.val().get_bits::<4>(L3_LSB);
        self.thermo.rts.next = self.pmeta.q.val().get_bit(RETURNED_BIT);
        self.thermo.dscp_en.next = self.dscp_en.val();
        self.mask.ge3.next = self.ge3.q.val();
        self.mask.ge4.next = self.ge4.q.val();
        self.mask.kt.next = self.kt.q.val();
        self.mask.ipt.next = self.ipt.q.val();
        // Phases 4-8: the sums and the checksums, register to register.
        self.sum_a.buf_in.next = self.e1s.q.val();
        self.sum_a.m_ip.next = self.m_ip.q.val();
        self.sum_a.m_ud.next = self.m_ud.q.val();
        self.sum_b.parts.next = self.parts.q.val();
        self.sum_c.parts.next = self.mids.q.val();
        self.fold_a.sums.next = self.sums.q.val();
        self.fold_a.odd.next = self.pmeta.q.val().get_bit(L3_OFF_LSB);
        self.fold_a.extra.next = self.extra.q.val();
        self.fold_b.t.next = self.tsum.q.val();
        // The last phase: insert. IPv4 (l3 = 1) header changed; UDP (l4 = 1) over IPv6 (l3 = 2) cut.
        self.ins.buf_in.next = self.e1.q.val();
        self.ins.info.next = self.pmeta.q.val().get_bits::<14>(L3_OFF_LSB);
        self.ins.csum.next = self.csum.q.val();
        self.ins.ge3.next = self.ge3.q.val();
        self.ins.ge4.next = self.ge4.q.val();
        self.ins.fix_ip4.next = self.fix4.q.val();
        self.ins.fix_udp6.next = self.fix6.q.val();

        // Capture.
        self.wide_in.next = bit_cast::<BUF_BITS, D>(self.s.tdata.val());
        self.keep_count.keep.next = self.s.tkeep.val();
        self.idle.next = self.idle_q.q.val();
        self.cur_trim.next = self.s.tuser.val().get_bit(TRIMMED_BIT);
        self.cur_meta.next = self.s.tuser.val();
        if self.in_pkt.q.val() {
            self.cur_trim.next = self.mode_trim.q.val();
            self.cur_meta.next = self.meta.q.val();
        }
        self.final_bytes.next = self.total.q.val() + bit_cast::<16, 8>(self.keep_count.count.val());
        // Bytes to keep: tuser.length of the packet (sampled at the first beat),
        // at most the window; phase 1 takes at most what arrived.
        self.want.next = self.cur_meta.val().get_bits::<16>(LENGTH_LSB);
        if self.want.val() > self.win.val() {
            self.want.next = self.win.val();
        }

        // Defaults: output idle.
        self.out.s.tdata.next = self.s.tdata.val();
        self.out.s.tkeep.next = self.s.tkeep.val();
        self.out.s.tlast.next = self.s.tlast.val();
        self.out.s.tuser.next = self.s.tuser.val();
        self.out.s.tvalid.next = false;
        if self.cur_trim.val() {
            // No beat during phase 1 (phase 2 reads the beat registers); the
            // last beat waits until the processing is idle.
            self.s.tready.next = !self.ph1_q.q.val() & (!self.s.tlast.val() | self.idle.val());
        } else {
            // A passing packet starts only when the processing and the emit
            // are idle, so it cannot overtake a trimmed one (and no hand-off
            // happens while it streams).
            self.s.tready.next = self.out.s.tready.val() & (self.in_pkt.q.val() | (self.idle.val() & !self.emitting.q.val()));
            self.out.s.tvalid.next = self.s.tvalid.val() & (self.in_pkt.q.val() | (self.idle.val() & !self.emitting.q.val()));
        }
        self.xfer.next = self.s.tvalid.val() & self.s.tready.val();
        // The wide registers load without `xfer` in their enables (issue 14:
        // `s_tready` fanning out to a thousand flip-flops was the critical
        // path): beat register `bidx` takes the input every cycle but phase 1
        // (phase 2 still reads them), and keeps the beat that was taken when
        // `bidx` moves on; `meta` takes `tuser` until a first beat is taken;
        // the hand-off registers follow the input while the processing is
        // idle, so they hold the last beat's values when it leaves idle.
        for j in 0..self.slot.len() {
            if (self.bidx.q.val() == self.slot_id[j].val()) & !self.ph1_q.q.val() {
                self.slot[j].d.next = self.wide_in.val() << self.slot_shift[j].val();
            }
        }
        if !self.in_pkt.q.val() {
            self.meta.d.next = self.s.tuser.val();
        }
        if self.idle.val() {
            self.pmeta.d.next = self.cur_meta.val();
            self.l3o40.d.next = bit_cast::<8, 7>(self.cur_meta.val().get_bits::<7>(L3_OFF_LSB)) + 40;
            self.ipend.d.next = bit_cast::<9, 7>(self.cur_meta.val().get_bits::<7>(L3_OFF_LSB))
                + (bit_cast::<9, 4>(self.cur_meta.val().get_bits::<4>(IHL_LSB)) << 2);
            self.ptotal.d.next = self.final_bytes.val();
            self.ptbig.d.next = self.total.q.val().get_bits::<9>(7).any() | self.final_bytes.val().get_bit(7);
            self.ptbig8.d.next = self.total.q.val().get_bits::<8>(8).any() | self.final_bytes.val().get_bit(8);
            self.pwant.d.next = self.want.val();
        }
        if self.xfer.val() {
            self.in_pkt.d.next = !self.s.tlast.val();
            if !self.in_pkt.q.val() {
                self.mode_trim.d.next = self.cur_trim.val();
            }
            if self.cur_trim.val() {
                if self.bidx.q.val() != self.nb.val() {
                    self.bidx.d.next = self.bidx.q.val() + 1;
                }
                self.total.d.next = self.final_bytes.val();
                if self.s.tlast.val() {
                    // Hand-off (the processing is idle: s_tready says so).
                    self.phase.d.next = 1.into();
                    self.bidx.d.next = 0.into();
                    self.total.d.next = 0.into();
                }
            }
        }

        if self.phase.q.val() == 1 {
            self.keep.d.next = self.pwant.q.val().get_bits::<8>(0);
            if self.ptotal.q.val() < self.pwant.q.val() {
                self.keep.d.next = self.ptotal.q.val().get_bits::<8>(0);
            }
            self.cut.d.next = self.ptotal.q.val() > self.pwant.q.val();
            self.ipt.d.next = self.thermo.ipt.val();
            self.ge3.d.next = self.thermo.ge3.val();
            self.ge4.d.next = self.thermo.ge4.val();
            self.kt.d.next = self.thermo.kt.val();
            self.fl.d.next = self.thermo.fl.val();
            for j in 0..self.fl_rep.len() {
                self.fl_rep[j].d.next = self.thermo.fl.val();
            }
            // Both candidates of every length, in parallel (no chain behind the
            // keep compare); phase 2 selects by `ksel`.
            self.ksel.d.next = self.ptotal.q.val() < self.pwant.q.val();
            self.la3.d.next = self.pwant.q.val() - bit_cast::<16, 7>(self.pmeta.q.val().get_bits::<7>(L3_OFF_LSB));
            self.lb3.d.next = self.ptotal.q.val() - bit_cast::<16, 7>(self.pmeta.q.val().get_bits::<7>(L3_OFF_LSB));
            self.la6.d.next = self.pwant.q.val() - bit_cast::<16, 8>(self.l3o40.q.val());
            self.lb6.d.next = self.ptotal.q.val() - bit_cast::<16, 8>(self.l3o40.q.val());
            self.la4.d.next = self.pwant.q.val() - bit_cast::<16, 7>(self.pmeta.q.val().get_bits::<7>(L4_OFF_LSB));
            self.lb4.d.next = self.ptotal.q.val() - bit_cast::<16, 7>(self.pmeta.q.val().get_bits::<7>(L4_OFF_LSB));
            self.phase.d.next = 2.into();
        }
        if self.phase.q.val() == 2 {
            self.e0.d.next = self.swap.buf_out.val();
            self.lens_r.d.next = self.lens.val();
            self.ec.d.next = self.cond.ec.val();
            self.m_ip.d.next = self.mask.m_ip.val();
            self.m_ud.d.next = self.mask.m_ud.val();
            // The UDP length (16 bits, as the pseudo header has it) plus next header 17.
            self.extra.d.next = bit_cast::<17, 16>(self.lens.val().get_bits::<16>(32)) + 17;
            self.fix4.d.next =
                (self.pmeta.q.val().get_bits::<2>(L3_LSB) == L3_IPV4) & (self.cut.q.val() | self.pmeta.q.val().get_bit(RETURNED_BIT));
            self.fix6.d.next = (self.pmeta.q.val().get_bits::<2>(L3_LSB) == L3_IPV6)
                & (self.pmeta.q.val().get_bits::<2>(L4_LSB) == L4_UDP)
                & self.cut.q.val();
            self.phase.d.next = 3.into();
        }
        if self.phase.q.val() == 3 {
            self.e1.d.next = self.edit.buf_out.val() & self.win_mask.val();
            self.e1s.d.next = self.edit.buf_out.val() & self.win_mask.val();
            self.phase.d.next = 4.into();
        }
        if self.phase.q.val() == 4 {
            self.parts.d.next = self.sum_a.parts.val();
            self.phase.d.next = 5.into();
        }
        if self.phase.q.val() == 5 {
            self.mids.d.next = self.sum_b.sums.val();
            self.phase.d.next = 6.into();
        }
        if self.phase.q.val() == 6 {
            self.sums.d.next = self.sum_c.sums.val();
            self.phase.d.next = 7.into();
        }
        if self.phase.q.val() == 7 {
            self.tsum.d.next = self.fold_a.t.val();
            self.phase.d.next = 8.into();
        }
        if self.phase.q.val() == 8 {
            self.csum.d.next = self.fold_b.csum.val();
            self.phase.d.next = self.last_phase.val();
        }
        // The last phase hands the packet to the emit once the previous one is out.
        if self.ld.q.val() {
            self.e2.d.next = self.ins.buf_out.val() & self.win_mask.val();
        }
        if (self.phase.q.val() == self.last_phase.val()) & !self.emitting.q.val() {
            self.erem.d.next = self.keep.q.val();
            self.etuser.d.next = (self.pmeta.q.val() & self.len_clear.val()) | (bit_cast::<U, 8>(self.keep.q.val()) << 16);
            // The last beat's tkeep (used only when keep is not a multiple of K).
            self.elkeep.d.next = !(self.all_keep.val() << (self.keep.q.val() & self.k_mask.val()));
            self.emitting.d.next = true;
            self.phase.d.next = 0.into();
            if self.cut.q.val() {
                self.cut_count.d.next = self.cut_count.q.val() + 1;
            }
        }
        if self.emitting.q.val() {
            self.out.s.tdata.next = self.e2.q.val().get_bits::<D>(0);
            self.out.s.tkeep.next = self.all_keep.val();
            self.out.s.tlast.next = self.erem.q.val() <= self.k_bytes.val();
            if self.erem.q.val() < self.k_bytes.val() {
                self.out.s.tkeep.next = self.elkeep.q.val();
            }
            self.out.s.tuser.next = self.etuser.q.val();
            self.out.s.tvalid.next = true;
            if self.out.s.tready.val() {
                self.erem.d.next = self.erem.q.val() - self.k_bytes.val();
                if self.erem.q.val() <= self.k_bytes.val() {
                    self.emitting.d.next = false;
                }
            }
        }
        if self.adv.q.val() {
            self.e2.d.next = self.e2.q.val() >> self.d_shift.val();
        }
        // The enables' copies for the next cycle (their next-state values).
        // The output slice (`AxisSkid`: two entries, `s_tready` = skid entry
        // empty) is ready next cycle iff its output moves now, or its skid
        // entry is empty and stays so: it was empty and no beat arrives while
        // the output entry is full. A beat is offered now iff `emitting` (a
        // load happens only while neither an emit nor a passing packet is
        // under way). From ports that are registers or `m_tready`: no loop.
        if self.emitting.q.val() {
            self.adv.d.next = self.emitting.d.val() & (self.m.tready.val() | (self.out.s.tready.val() & !self.m.tvalid.val()));
        } else {
            self.adv.d.next = self.emitting.d.val() & (self.m.tready.val() | self.out.s.tready.val());
        }
        // `ld`'s next value is `phase.d == LAST_PHASE & !emitting.d`, written
        // from the registers (the phase before the last moves on to it; the
        // last stays while the emit runs; the emit ends with `fin`), so the
        // next-state logic of `phase` and `emitting` is not in front of it
        // (issue 14: 7 Xilinx LUT levels through `phase.d`).
        self.fin.next = self.emitting.q.val() & self.out.s.tready.val() & (self.erem.q.val() <= self.k_bytes.val());
        self.ld.d.next = ((self.phase.q.val() == self.pre_last.val()) & (!self.emitting.q.val() | self.fin.val()))
            | ((self.phase.q.val() == self.last_phase.val()) & self.fin.val());
        // `phase`'s next value compared with 0 and 1, written from registers
        // (a trimmed packet's last beat is taken only while idle, where
        // `s_tready` is 1: phase 0 -> 1; phase 1 always moves on; the last
        // phase returns to 0 when nothing is being emitted).
        self.ph1_q.d.next = self.s.tvalid.val() & self.s.tlast.val() & self.cur_trim.val() & self.idle_q.q.val();
        self.idle_q.d.next =
            (self.idle_q.q.val() & !self.ph1_q.d.val()) | ((self.phase.q.val() == self.last_phase.val()) & !self.emitting.q.val());
        if self.cut_clear.val() {
            self.cut_count.d.next = 0.into();
        }
        self.cut_pkts.next = self.cut_count.q.val();

        AxisSource::<D, K, U>::link(&mut self.m, &mut self.out.m);
    }
}

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
//! A trimmed packet goes through five phases; the input waits during the last
//! four, so the trimmer is serial:
//! 1. capture: every beat is accepted at once; the first 128 bytes are kept in
//!    `128 / K` beat registers and the bytes counted;
//! 2. edit (one cycle): [`TrimEdit`] rewrites the fields into a register;
//! 3. sum (one cycle): [`TrimSum`] sums the bytes the checksums cover;
//! 4. insert (one cycle): [`TrimInsert`] puts the checksums into the emit register;
//! 5. emit: `ceil(keep / K)` beats, `tuser.length` = bytes kept.
//!
//! A trimmed packet of `n` beats in and `m` out therefore holds the input for
//! `n + 3 + m` cycles; a passing packet streams at one beat per cycle.
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
use crate::meta::{flag, FLAGS_LSB, IHL_LSB, L3_IPV4, L3_IPV6, L3_LSB, L3_OFF_LSB, L4_LSB, L4_UDP, LENGTH_LSB, RETURNED_BIT, TRIMMED_BIT};
use crate::prim::widgets::{DffR, KeepCount};
use crate::tm::trim_logic::{TrimEdit, TrimInsert, TrimSum, BUF_BITS, BUF_BYTES};
use rust_hdl::prelude::*;

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
    d_shift: Constant<Bits<16>>,
    len_clear: Constant<Bits<U>>,
    slot_mask: Vec<Constant<Bits<BUF_BITS>>>,
    /// Beat j's bytes, already at their place in the buffer (the flip-flops
    /// outside the beat's range have a constant input and synthesis drops them).
    slot: Vec<DFF<Bits<BUF_BITS>>>,
    wide_in: Signal<Local, Bits<BUF_BITS>>,
    meta: DFF<Bits<U>>,
    e1: DFF<Bits<BUF_BITS>>,
    e2: DFF<Bits<BUF_BITS>>,
    in_pkt: DffR<Bit>,
    mode_trim: DffR<Bit>,
    /// 0 input (pass or capture), 1 edit, 2 sum, 3 insert, 4 emit.
    phase: DffR<Bits<3>>,
    bidx: DffR<Bits<8>>,
    total: DffR<Bits<16>>,
    keep: DffR<Bits<8>>,
    cut: DffR<Bit>,
    erem: DffR<Bits<8>>,
    cut_count: DffR<Bits<32>>,
    edit: TrimEdit,
    sum: TrimSum,
    ins: TrimInsert,
    sums: DFF<Bits<64>>,
    ipend: DFF<Bits<8>>,
    out: AxisSkid<D, K, U>,
    keep_count: KeepCount<K, 8>,
    buf0: Signal<Local, Bits<BUF_BITS>>,
    cur_trim: Signal<Local, Bit>,
    xfer: Signal<Local, Bit>,
    final_bytes: Signal<Local, Bits<16>>,
    want: Signal<Local, Bits<16>>,
    keep_next: Signal<Local, Bits<16>>,
}

impl<const D: usize, const K: usize, const U: usize> Default for Trimmer<D, K, U> {
    fn default() -> Self {
        assert!(K * 8 == D && (8..=64).contains(&K) && BUF_BYTES.is_multiple_of(K), "Trimmer: K in 8..=64 dividing 128, D = 8K");
        assert!(U >= L3_LSB + 32, "Trimmer: tuser needs the header-location fields (user_width 128)");
        // hdl_gen needs literal bit positions: these are the meta.rs ones.
        assert_eq!((FLAGS_LSB, L3_LSB, LENGTH_LSB), (32, 56, 16));
        assert_eq!((flag::TRIMMED, flag::RETURNED), (1, 2));
        let nb = BUF_BYTES / K;
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
            d_shift: Constant::new((D as u64).to_bits()),
            len_clear: Constant::new(len_clear),
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
            e1: Default::default(),
            e2: Default::default(),
            in_pkt: Default::default(),
            mode_trim: Default::default(),
            phase: Default::default(),
            bidx: Default::default(),
            total: Default::default(),
            keep: Default::default(),
            cut: Default::default(),
            erem: Default::default(),
            cut_count: Default::default(),
            edit: Default::default(),
            sum: Default::default(),
            ins: Default::default(),
            sums: Default::default(),
            ipend: Default::default(),
            out: Default::default(),
            keep_count: Default::default(),
            buf0: Default::default(),
            cur_trim: Default::default(),
            xfer: Default::default(),
            final_bytes: Default::default(),
            want: Default::default(),
            keep_next: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for Trimmer<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, meta, e1, e2, sums, ipend, in_pkt, mode_trim, phase, bidx, total, keep, cut, erem, cut_count);
        for j in 0..self.slot.len() {
            self.slot[j].clock.next = self.clock.val();
            self.slot[j].d.next = self.slot[j].q.val();
        }
        self.in_pkt.reset.next = self.reset.val();
        self.mode_trim.reset.next = self.reset.val();
        self.phase.reset.next = self.reset.val();
        self.bidx.reset.next = self.reset.val();
        self.total.reset.next = self.reset.val();
        self.keep.reset.next = self.reset.val();
        self.cut.reset.next = self.reset.val();
        self.erem.reset.next = self.reset.val();
        self.cut_count.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();

        // The captured bytes as one buffer.
        self.buf0.next = 0.into();
        for j in 0..self.slot.len() {
            self.buf0.next = self.buf0.val() | (self.slot[j].q.val() & self.slot_mask[j].val());
        }
        self.edit.buf_in.next = self.buf0.val();
        self.edit.keep.next = self.keep.q.val();
        self.edit.cut.next = self.cut.q.val();
        self.edit.rts.next = self.meta.q.val().get_bit(RETURNED_BIT);
        self.edit.info.next = self.meta.q.val().get_bits::<18>(L3_LSB);
        self.edit.dscp_en.next = self.dscp_en.val();
        self.edit.dscp.next = self.dscp.val();
        self.sum.buf_in.next = self.e1.q.val();
        self.sum.keep.next = self.keep.q.val();
        self.sum.info.next = self.meta.q.val().get_bits::<14>(L3_OFF_LSB);
        self.sum.ipend.next = self.ipend.q.val();
        self.ins.buf_in.next = self.e1.q.val();
        self.ins.keep.next = self.keep.q.val();
        self.ins.info.next = self.meta.q.val().get_bits::<14>(L3_OFF_LSB);
        self.ins.sums.next = self.sums.q.val();
        // IPv4 (l3 = 1) header changed; UDP (l4 = 1) over IPv6 (l3 = 2) cut.
        self.ins.fix_ip4.next =
            (self.meta.q.val().get_bits::<2>(L3_LSB) == L3_IPV4) & (self.cut.q.val() | self.meta.q.val().get_bit(RETURNED_BIT));
        self.ins.fix_udp6.next =
            (self.meta.q.val().get_bits::<2>(L3_LSB) == L3_IPV6) & (self.meta.q.val().get_bits::<2>(L4_LSB) == L4_UDP) & self.cut.q.val();

        self.wide_in.next = bit_cast::<BUF_BITS, D>(self.s.tdata.val());
        self.keep_count.keep.next = self.s.tkeep.val();
        self.cur_trim.next = self.s.tuser.val().get_bit(TRIMMED_BIT);
        if self.in_pkt.q.val() {
            self.cur_trim.next = self.mode_trim.q.val();
        }
        self.final_bytes.next = self.total.q.val() + bit_cast::<16, 8>(self.keep_count.count.val());
        // Bytes to keep: tuser.length of the packet (sampled at the first beat),
        // at most 128 and at most what arrived.
        self.want.next = self.s.tuser.val().get_bits::<16>(LENGTH_LSB);
        if self.in_pkt.q.val() {
            self.want.next = self.meta.q.val().get_bits::<16>(LENGTH_LSB);
        }
        if self.want.val() > 128 {
            self.want.next = 128.into();
        }
        self.keep_next.next = self.want.val();
        if self.final_bytes.val() < self.want.val() {
            self.keep_next.next = self.final_bytes.val();
        }

        // Defaults: input waits, output idle.
        self.s.tready.next = false;
        self.xfer.next = false;
        self.out.s.tdata.next = self.s.tdata.val();
        self.out.s.tkeep.next = self.s.tkeep.val();
        self.out.s.tlast.next = self.s.tlast.val();
        self.out.s.tuser.next = self.s.tuser.val();
        self.out.s.tvalid.next = false;

        if self.phase.q.val() == 0 {
            if self.cur_trim.val() {
                self.s.tready.next = true;
            } else {
                self.s.tready.next = self.out.s.tready.val();
                self.out.s.tvalid.next = self.s.tvalid.val();
            }
            self.xfer.next = self.s.tvalid.val() & self.s.tready.val();
            if self.xfer.val() {
                self.in_pkt.d.next = !self.s.tlast.val();
                if !self.in_pkt.q.val() {
                    self.mode_trim.d.next = self.cur_trim.val();
                    self.meta.d.next = self.s.tuser.val();
                }
                if self.cur_trim.val() {
                    for j in 0..self.slot.len() {
                        if self.bidx.q.val() == self.slot_id[j].val() {
                            self.slot[j].d.next = self.wide_in.val() << self.slot_shift[j].val();
                        }
                    }
                    if self.bidx.q.val() != self.nb.val() {
                        self.bidx.d.next = self.bidx.q.val() + 1;
                    }
                    self.total.d.next = self.final_bytes.val();
                    if self.s.tlast.val() {
                        self.phase.d.next = 1.into();
                        self.bidx.d.next = 0.into();
                        self.total.d.next = 0.into();
                        self.keep.d.next = self.keep_next.val().get_bits::<8>(0);
                        self.cut.d.next = self.final_bytes.val() > self.keep_next.val();
                    }
                }
            }
        }
        if self.phase.q.val() == 1 {
            self.e1.d.next = self.edit.buf_out.val();
            // End of the IPv4 header for the sum stage: l3_off + 4 * ihl.
            self.ipend.d.next = bit_cast::<8, 7>(self.meta.q.val().get_bits::<7>(L3_OFF_LSB))
                + (bit_cast::<8, 4>(self.meta.q.val().get_bits::<4>(IHL_LSB)) << 2);
            self.phase.d.next = 2.into();
        }
        if self.phase.q.val() == 2 {
            self.sums.d.next = self.sum.sums.val();
            self.phase.d.next = 3.into();
        }
        if self.phase.q.val() == 3 {
            self.e2.d.next = self.ins.buf_out.val();
            self.erem.d.next = self.keep.q.val();
            self.phase.d.next = 4.into();
            if self.cut.q.val() {
                self.cut_count.d.next = self.cut_count.q.val() + 1;
            }
        }
        if self.phase.q.val() == 4 {
            self.out.s.tdata.next = self.e2.q.val().get_bits::<D>(0);
            self.out.s.tkeep.next = self.all_keep.val();
            self.out.s.tlast.next = self.erem.q.val() <= self.k_bytes.val();
            if self.erem.q.val() < self.k_bytes.val() {
                self.out.s.tkeep.next = !(self.all_keep.val() << self.erem.q.val());
            }
            self.out.s.tuser.next = (self.meta.q.val() & self.len_clear.val()) | (bit_cast::<U, 8>(self.keep.q.val()) << 16);
            self.out.s.tvalid.next = true;
            if self.out.s.tready.val() {
                self.e2.d.next = self.e2.q.val() >> self.d_shift.val();
                self.erem.d.next = self.erem.q.val() - self.k_bytes.val();
                if self.erem.q.val() <= self.k_bytes.val() {
                    self.phase.d.next = 0.into();
                }
            }
        }
        if self.cut_clear.val() {
            self.cut_count.d.next = 0.into();
        }
        self.cut_pkts.next = self.cut_count.q.val();

        AxisSource::<D, K, U>::link(&mut self.m, &mut self.out.m);
    }
}

//! `ts_protego_store`: the receiver side's frame store, the mover of
//! `ts_protego_rx_seq`'s actions, and the sender side's ring
//! (`docs/protego.md`, "The RTL").
//!
//! Every frame (tag removed) is written into a ring of block RAM as it
//! arrives, in arrival order. The engine's actions then apply to the oldest
//! frame without one: DELIVER streams it out, DROP lets it go, BUFFER keeps
//! it for slot `k`; RELEASE `k` streams out the frame kept for slot `k`.
//! The sender side's three: SEND_KEEP `k` streams the oldest frame out and
//! keeps it for slot `k`, REPLAY `k` streams the frame kept for slot `k`
//! out again and keeps it, FREE `k` lets it go (two cycles of the mover:
//! the next action, a DROP excepted, is taken in its second).
//! Space is reclaimed in arrival order: the ring's tail moves past a frame
//! once it has been streamed out or dropped, so a buffered frame holds the
//! space of the frames after it until it leaves (the engine counts only the
//! buffered frames' bytes, the model's `buf_used`): size the ring for the
//! traffic of a timeout, not only the engine's `buf_bytes`. A full ring, or
//! `frames` frames in it, holds the input (`s_tready` low): the MAC side's
//! FIFO absorbs it or drops and counts. A frame longer than the ring could
//! never be whole (the configuration keeps the ring at 16 KB or more,
//! above a jumbo frame).
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset
//!   (the frames inside are forgotten; the done flags are cleared in one
//!   cycle per frame entry before the input opens).
//! - `s_*` in, `s_tready` out (registered): frames, `tkeep` packed, `tuser`
//!   per beat; the ring takes `words − 2` words and `frames − 2` frames.
//! - `a_valid`, `a_op`, `a_slot` in, `a_ready` out (follows `a_valid` and
//!   registers): the actions (`a_op`, 3 bits: `rx_seq::op`); an action for
//!   an input frame waits until the frame is whole in the ring.
//! - `m_*` out (registered), `m_tready` in: delivered and released frames,
//!   in the actions' order; a frame's beats leave back to back while
//!   `m_tready` stays high. Every beat's `tuser.length` (bits 16..32,
//!   [`crate::meta`]) is the frame's length in bytes as it is in the ring
//!   (the receiver side's tag removed: what the ingress pipeline's blocks
//!   read), the rest of `tuser` as it came. `m_bytes` (8) out: the beat's
//!   byte count (the lanes of `m_tkeep`), for an arbiter's deficit.
//! - `ring_used` (16: words in use), `held` (16: frames in the ring) out
//!   (registered, a cycle behind).
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::prim::widgets::{DffR, KeepCount, SdpRam};
use rust_hdl::prelude::*;

// `tuser.length` is stamped at bit 16 (a literal in `update`).
const _: () = assert!(crate::meta::LENGTH_LSB == 16);

/// States of the mover.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Mv {
    /// Clearing the done flags after reset (the reset state).
    Init,
    Idle,
    /// RELEASE: the slot's frame index read, then registered.
    SlotRead,
    SlotUse,
    /// The frame's entry read (its first word, its words).
    Lookup,
    /// Its words, one per cycle while the output has room.
    Stream,
}

/// The frame store (module documentation).
#[derive(LogicBlock)]
pub struct ProtegoStore<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub a_valid: Signal<In, Bit>,
    pub a_ready: Signal<Out, Bit>,
    pub a_op: Signal<In, Bits<3>>,
    pub a_slot: Signal<In, Bits<15>>,
    pub ring_used: Signal<Out, Bits<16>>,
    pub held: Signal<Out, Bits<16>>,
    pub m_bytes: Signal<Out, Bits<8>>,
    /// The ring: a frame's words (data, keep, user, last) at consecutive
    /// addresses.
    r_data: SdpRam<Bits<D>, 15>,
    r_keep: SdpRam<Bits<K>, 15>,
    r_user: SdpRam<Bits<U>, 15>,
    r_last: SdpRam<Bit, 15>,
    /// Each word's bytes (the lanes of its `tkeep`), counted as it arrives.
    r_bytes: SdpRam<Bits<8>, 15>,
    kc: KeepCount<K, 8>,
    /// Per frame (index mod `frames`): its first word, its words less one,
    /// whether it is one word, its last word's bytes (bits 33..41; for the
    /// mover), the word after its last (for the
    /// reclaimer, read in the cycle of its address), its done flag (the lap
    /// parity it was done in, inverted: a cleared flag is never done).
    f_info: SdpRam<Bits<41>, 15>,
    f_end: SdpRam<Bits<16>, 15>,
    f_done: SdpRam<Bit, 15>,
    /// Per slot: the index of the frame kept for it.
    slot_tab: SdpRam<Bits<16>, 15>,
    // ---- pointers (free-running, 16 bits; addresses are masked)
    wr_ptr: DffR<Bits<16>>,
    tail: DffR<Bits<16>>,
    f_start: DFF<Bits<16>>,
    /// Words of the frame under way written before this beat.
    wn: DFF<Bits<16>>,
    mid: DffR<Bit>,
    /// Frames written, actioned, reclaimed.
    n_wr: DffR<Bits<16>>,
    n_act: DffR<Bits<16>>,
    n_rec: DffR<Bits<16>>,
    // ---- the mover
    state: DffR<Mv>,
    /// The mover takes an action this cycle: idle, or a FREE's last step.
    take_ok: Signal<Local, Bit>,
    idx: DffR<Bits<16>>,
    /// The clearing's last step is next (`idx` at `frames - 2` in `Init`),
    /// registered: compared in the cycle of the step, `idx == frames - 1`
    /// shared the all-ones test with `idx + 1`'s carry chain, in front of
    /// the state's next-state logic (issue 14: 7 UltraScale+ LUT levels).
    init_end: DffR<Bit>,
    rp: DFF<Bits<16>>,
    /// Words of the frame after the next one read; the next is its last.
    wleft: DFF<Bits<16>>,
    at_last: DFF<Bit>,
    /// The frame's entry, registered out of the block RAM (loaded with an
    /// enable, no logic after the RAM); the first word's read comes from it.
    li: DFF<Bits<41>>,
    first: DFF<Bit>,
    /// The frame's bytes (from its entry: words less one times `K`, plus
    /// its last word's), stamped into every word's `tuser.length`.
    len_r: DFF<Bits<16>>,
    /// The slot's frame index, registered out of the block RAM.
    si: DFF<Bits<16>>,
    /// The frame streamed now stays (SEND_KEEP, REPLAY: no done flag at its
    /// end); the slot's frame is let go (FREE), not streamed.
    keep_r: DFF<Bit>,
    free_r: DFF<Bit>,
    /// A frame's done flag, written the cycle after it is dropped or its last
    /// word is read (the flags' write port fed by registers only).
    dn_v: DffR<Bit>,
    dn_a: DFF<Bits<15>>,
    dn_d: DFF<Bit>,
    /// The reclaimer's step: the oldest frame's end read and found done last
    /// cycle (a step every other cycle, so the next read sees the index
    /// moved).
    rc_ok: DffR<Bit>,
    rc_end: DFF<Bits<16>>,
    /// A whole frame waits for its action (registered; trusted in a cycle
    /// after one without an action: frames only arrive meanwhile).
    hw_r: DFF<Bit>,
    acted: DffR<Bit>,
    /// A word read last cycle (its data is at the RAMs' outputs now).
    inflight: DffR<Bit>,
    /// The ring's words and frames in use, registered; the input may write
    /// a word this cycle: registered from those, two words and two frames
    /// short of full (a cycle adds at most one of each).
    used_r: DffR<Bits<16>>,
    inr_r: DffR<Bits<16>>,
    room_r: DffR<Bit>,
    /// The words read, registered out of the block RAM.
    rv: DffR<Bit>,
    r_d: DFF<Bits<D>>,
    r_k: DFF<Bits<K>>,
    r_u: DFF<Bits<U>>,
    r_l: DFF<Bit>,
    r_b: DFF<Bits<8>>,
    /// The output queue: two words.
    o0_v: DffR<Bit>,
    o0_d: DFF<Bits<D>>,
    o0_k: DFF<Bits<K>>,
    o0_u: DFF<Bits<U>>,
    o0_l: DFF<Bit>,
    o0_b: DFF<Bits<8>>,
    o1_v: DffR<Bit>,
    o1_d: DFF<Bits<D>>,
    o1_k: DFF<Bits<K>>,
    o1_u: DFF<Bits<U>>,
    o1_l: DFF<Bit>,
    o1_b: DFF<Bits<8>>,
    // ---- combinational
    beat: Signal<Local, Bit>,
    /// The word to read now, the words after it, it is the last.
    cur_rp: Signal<Local, Bits<16>>,
    cur_wleft: Signal<Local, Bits<16>>,
    cur_last: Signal<Local, Bit>,
    /// A frame's words less one, at its last beat.
    n1: Signal<Local, Bits<16>>,
    used: Signal<Local, Bits<16>>,
    in_ring: Signal<Local, Bits<16>>,
    room: Signal<Local, Bit>,
    head_whole: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    full3: Signal<Local, Bit>,
    r_move: Signal<Local, Bit>,
    wa: Signal<Local, Bits<15>>,
    ra: Signal<Local, Bits<15>>,
    fw: Signal<Local, Bits<15>>,
    fa: Signal<Local, Bits<15>>,
    fr: Signal<Local, Bits<15>>,
    fi: Signal<Local, Bits<15>>,
    lap_a: Signal<Local, Bit>,
    lap_r: Signal<Local, Bit>,
    lap_i: Signal<Local, Bit>,
    lap_s: Signal<Local, Bit>,
    /// The action names a slot (RELEASE, REPLAY, FREE).
    slot_op: Signal<Local, Bit>,
    // ---- constants
    c_rmask: Constant<Bits<15>>,
    c_fmask: Constant<Bits<15>>,
    /// The frame index's lap bit (`frames`), the ring's words, `frames`.
    c_flap: Constant<Bits<16>>,
    c_words: Constant<Bits<16>>,
    c_frames: Constant<Bits<16>>,
    /// A one-word frame's entry: the flag (bit 32), no more words.
    c_one: Constant<Bits<41>>,
    /// `log2(K)`: a word's bytes as a shift.
    c_lgk: Constant<Bits<16>>,
    /// `tuser` without its `length` field.
    c_len_keep: Constant<Bits<U>>,
}

impl<const D: usize, const K: usize, const U: usize> ProtegoStore<D, K, U> {
    /// A store of `words` ring words (beats), at most `frames` frames in
    /// it, `slots` slots (powers of two; `words`, `frames`, `slots` up to
    /// 2^15).
    pub fn new(words: usize, frames: usize, slots: usize) -> Self {
        for (n, v) in [("words", words), ("frames", frames), ("slots", slots)] {
            assert!(v.is_power_of_two() && (2..=1 << 15).contains(&v), "ProtegoStore: {n} = {v}");
        }
        assert!(K.is_power_of_two() && K <= 64 && U >= crate::meta::LENGTH_LSB + 16, "ProtegoStore: K = {K}, U = {U}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            a_valid: Default::default(),
            a_ready: Default::default(),
            a_op: Default::default(),
            a_slot: Default::default(),
            ring_used: Default::default(),
            held: Default::default(),
            m_bytes: Default::default(),
            r_data: SdpRam::new(words),
            r_keep: SdpRam::new(words),
            r_user: SdpRam::new(words),
            r_last: SdpRam::new(words),
            r_bytes: SdpRam::new(words),
            kc: KeepCount::thermo(),
            f_info: SdpRam::new(frames),
            f_end: SdpRam::lut(frames),
            f_done: SdpRam::lut(frames),
            slot_tab: SdpRam::new(slots),
            wr_ptr: Default::default(),
            tail: Default::default(),
            f_start: Default::default(),
            wn: Default::default(),
            mid: Default::default(),
            n_wr: Default::default(),
            n_act: Default::default(),
            n_rec: Default::default(),
            state: Default::default(),
            take_ok: Default::default(),
            idx: Default::default(),
            init_end: Default::default(),
            rp: Default::default(),
            wleft: Default::default(),
            at_last: Default::default(),
            li: Default::default(),
            first: Default::default(),
            len_r: Default::default(),
            si: Default::default(),
            keep_r: Default::default(),
            free_r: Default::default(),
            dn_v: Default::default(),
            dn_a: Default::default(),
            dn_d: Default::default(),
            rc_ok: Default::default(),
            rc_end: Default::default(),
            hw_r: Default::default(),
            acted: Default::default(),
            inflight: Default::default(),
            used_r: Default::default(),
            inr_r: Default::default(),
            room_r: Default::default(),
            rv: Default::default(),
            r_d: Default::default(),
            r_k: Default::default(),
            r_u: Default::default(),
            r_l: Default::default(),
            r_b: Default::default(),
            o0_v: Default::default(),
            o0_d: Default::default(),
            o0_k: Default::default(),
            o0_u: Default::default(),
            o0_l: Default::default(),
            o0_b: Default::default(),
            o1_v: Default::default(),
            o1_d: Default::default(),
            o1_k: Default::default(),
            o1_u: Default::default(),
            o1_l: Default::default(),
            o1_b: Default::default(),
            beat: Default::default(),
            cur_rp: Default::default(),
            cur_wleft: Default::default(),
            cur_last: Default::default(),
            n1: Default::default(),
            used: Default::default(),
            in_ring: Default::default(),
            room: Default::default(),
            head_whole: Default::default(),
            issue: Default::default(),
            pop: Default::default(),
            full3: Default::default(),
            r_move: Default::default(),
            wa: Default::default(),
            ra: Default::default(),
            fw: Default::default(),
            fa: Default::default(),
            fr: Default::default(),
            fi: Default::default(),
            lap_a: Default::default(),
            lap_r: Default::default(),
            lap_i: Default::default(),
            lap_s: Default::default(),
            slot_op: Default::default(),
            c_rmask: Constant::new(((words - 1) as u64).to_bits()),
            c_fmask: Constant::new(((frames - 1) as u64).to_bits()),
            c_flap: Constant::new((frames as u64).to_bits()),
            c_words: Constant::new((words as u64).to_bits()),
            c_frames: Constant::new((frames as u64).to_bits()),
            c_one: Constant::new((1u64 << 32).to_bits()),
            c_lgk: Constant::new((K.trailing_zeros() as u64).to_bits()),
            c_len_keep: Constant::new(!(bit_cast::<U, 16>(Bits::<16>::mask()) << (crate::meta::LENGTH_LSB as u64))),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for ProtegoStore<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wr_ptr, tail, f_start, wn, mid, n_wr, n_act, n_rec, state, idx, init_end, rp, wleft, at_last, li, first, len_r,
            si, keep_r, free_r, dn_v, dn_a, dn_d, rc_ok, rc_end, hw_r, acted, inflight, used_r, inr_r, room_r, rv, r_d, r_k, r_u, r_l, r_b,
            o0_v, o0_d, o0_k, o0_u, o0_l, o0_b, o1_v, o1_d, o1_k, o1_u, o1_l, o1_b
        );
        self.wr_ptr.reset.next = self.reset.val();
        self.tail.reset.next = self.reset.val();
        self.mid.reset.next = self.reset.val();
        self.n_wr.reset.next = self.reset.val();
        self.n_act.reset.next = self.reset.val();
        self.n_rec.reset.next = self.reset.val();
        self.state.reset.next = self.reset.val();
        self.idx.reset.next = self.reset.val();
        self.init_end.reset.next = self.reset.val();
        self.inflight.reset.next = self.reset.val();
        self.room_r.reset.next = self.reset.val();
        self.used_r.reset.next = self.reset.val();
        self.inr_r.reset.next = self.reset.val();
        self.rc_ok.reset.next = self.reset.val();
        self.acted.reset.next = self.reset.val();
        self.dn_v.reset.next = self.reset.val();
        self.rv.reset.next = self.reset.val();
        self.o0_v.reset.next = self.reset.val();
        self.o1_v.reset.next = self.reset.val();
        self.r_data.clock.next = self.clock.val();
        self.r_keep.clock.next = self.clock.val();
        self.r_user.clock.next = self.clock.val();
        self.r_last.clock.next = self.clock.val();
        self.r_bytes.clock.next = self.clock.val();
        self.f_info.clock.next = self.clock.val();
        self.f_end.clock.next = self.clock.val();
        self.f_done.clock.next = self.clock.val();
        self.slot_tab.clock.next = self.clock.val();
        // ================================================= the writer
        self.used.next = self.wr_ptr.q.val() - self.tail.q.val();
        self.in_ring.next = self.n_wr.q.val() - self.n_rec.q.val();
        self.used_r.d.next = self.used.val();
        self.inr_r.d.next = self.in_ring.val();
        self.room.next = (self.used_r.q.val() < self.c_words.val() - 2) & (self.inr_r.q.val() < self.c_frames.val() - 2);
        self.room_r.d.next = self.room.val() & (self.state.q.val() != Mv::Init);
        self.s.tready.next = self.room_r.q.val();
        self.beat.next = self.s.tvalid.val() & self.room_r.q.val();
        self.wa.next = self.wr_ptr.q.val().get_bits::<15>(0) & self.c_rmask.val();
        self.fw.next = self.n_wr.q.val().get_bits::<15>(0) & self.c_fmask.val();
        self.r_data.write_enable.next = self.beat.val();
        self.r_keep.write_enable.next = self.beat.val();
        self.r_user.write_enable.next = self.beat.val();
        self.r_last.write_enable.next = self.beat.val();
        self.r_bytes.write_enable.next = self.beat.val();
        self.r_data.write_address.next = self.wa.val();
        self.r_keep.write_address.next = self.wa.val();
        self.r_user.write_address.next = self.wa.val();
        self.r_last.write_address.next = self.wa.val();
        self.r_bytes.write_address.next = self.wa.val();
        self.r_data.write_data.next = self.s.tdata.val();
        self.r_keep.write_data.next = self.s.tkeep.val();
        self.r_user.write_data.next = self.s.tuser.val();
        self.r_last.write_data.next = self.s.tlast.val();
        self.kc.keep.next = self.s.tkeep.val();
        self.r_bytes.write_data.next = self.kc.count.val();
        // A frame's first word, its words less one and its last word's
        // bytes, and the word after its last, at its last beat.
        self.f_info.write_enable.next = self.beat.val() & self.s.tlast.val();
        self.f_info.write_address.next = self.fw.val();
        self.n1.next = self.wn.q.val();
        self.f_info.write_data.next = bit_cast::<41, 16>(self.f_start.q.val())
            | (bit_cast::<41, 16>(self.n1.val()) << 16)
            | (bit_cast::<41, 8>(self.kc.count.val()) << 33);
        if !self.mid.q.val() {
            self.f_info.write_data.next =
                bit_cast::<41, 16>(self.wr_ptr.q.val()) | self.c_one.val() | (bit_cast::<41, 8>(self.kc.count.val()) << 33);
        }
        self.f_end.write_enable.next = self.beat.val() & self.s.tlast.val();
        self.f_end.write_address.next = self.fw.val();
        self.f_end.write_data.next = self.wr_ptr.q.val() + 1;
        if self.beat.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
            self.mid.d.next = !self.s.tlast.val();
            self.wn.d.next = self.wn.q.val() + 1;
            if !self.mid.q.val() {
                self.f_start.d.next = self.wr_ptr.q.val();
                self.wn.d.next = 1.into();
            }
            if self.s.tlast.val() {
                self.n_wr.d.next = self.n_wr.q.val() + 1;
            }
        }
        // ================================================= the reclaimer
        // The oldest frame, once done, gives its words back.
        self.fr.next = self.n_rec.q.val().get_bits::<15>(0) & self.c_fmask.val();
        self.lap_r.next = (self.n_rec.q.val() & self.c_flap.val()).any();
        self.f_end.read_enable.next = true;
        self.f_done.read_enable.next = true;
        self.f_end.read_address.next = self.fr.val();
        self.f_done.read_address.next = self.fr.val();
        self.rc_ok.d.next =
            !self.rc_ok.q.val() & (self.n_rec.q.val() != self.n_act.q.val()) & (self.f_done.read_data.val() != self.lap_r.val());
        self.rc_end.d.next = self.f_end.read_data.val();
        if self.rc_ok.q.val() {
            self.tail.d.next = self.rc_end.q.val();
            self.n_rec.d.next = self.n_rec.q.val() + 1;
        }
        // ================================================= the mover
        self.fa.next = self.n_act.q.val().get_bits::<15>(0) & self.c_fmask.val();
        self.fi.next = self.idx.q.val().get_bits::<15>(0) & self.c_fmask.val();
        self.lap_a.next = (self.n_act.q.val() & self.c_flap.val()).any();
        self.lap_i.next = (self.idx.q.val() & self.c_flap.val()).any();
        self.lap_s.next = (self.si.q.val() & self.c_flap.val()).any();
        self.slot_op.next = (self.a_op.val() == 3) | (self.a_op.val() == 5) | (self.a_op.val() == 6);
        self.hw_r.d.next = self.n_act.q.val() != self.n_wr.q.val();
        self.head_whole.next = self.hw_r.q.val() & !self.acted.q.val();
        self.acted.d.next = false;
        self.a_ready.next = false;
        self.f_done.write_enable.next = self.dn_v.q.val();
        self.f_done.write_address.next = self.dn_a.q.val();
        self.f_done.write_data.next = self.dn_d.q.val();
        self.dn_v.d.next = false;
        self.slot_tab.write_enable.next = false;
        self.slot_tab.write_address.next = self.a_slot.val();
        self.slot_tab.write_data.next = self.n_act.q.val();
        self.slot_tab.read_enable.next = false;
        self.slot_tab.read_address.next = self.a_slot.val();
        self.f_info.read_enable.next = false;
        self.f_info.read_address.next = self.fa.val();
        self.cur_rp.next = self.rp.q.val();
        self.cur_wleft.next = self.wleft.q.val();
        self.cur_last.next = self.at_last.q.val();
        if self.first.q.val() {
            self.cur_rp.next = self.li.q.val().get_bits::<16>(0);
            self.cur_wleft.next = self.li.q.val().get_bits::<16>(16);
            self.cur_last.next = self.li.q.val().get_bit(32);
        }
        self.ra.next = self.cur_rp.val().get_bits::<15>(0) & self.c_rmask.val();
        self.r_data.read_address.next = self.ra.val();
        self.r_keep.read_address.next = self.ra.val();
        self.r_user.read_address.next = self.ra.val();
        self.r_last.read_address.next = self.ra.val();
        self.r_bytes.read_address.next = self.ra.val();
        // A word is read while there will be room for it: the queue's two
        // words, the registered one and the one in flight are at most three;
        // three, a word leaving makes room (one word a cycle while `m_tready`
        // stays high).
        self.pop.next = self.o0_v.q.val() & self.m.tready.val();
        self.full3.next = (self.o0_v.q.val() & self.o1_v.q.val() & (self.rv.q.val() | self.inflight.q.val()))
            | (self.rv.q.val() & self.inflight.q.val() & (self.o0_v.q.val() | self.o1_v.q.val()));
        self.issue.next = (self.state.q.val() == Mv::Stream) & (!self.full3.val() | self.pop.val());
        self.r_data.read_enable.next = self.issue.val();
        self.r_keep.read_enable.next = self.issue.val();
        self.r_user.read_enable.next = self.issue.val();
        self.r_last.read_enable.next = self.issue.val();
        self.r_bytes.read_enable.next = self.issue.val();
        self.inflight.d.next = self.issue.val();
        if self.state.q.val() == Mv::Init {
            // Clear the done flags (cleared: not done in the first lap).
            self.f_done.write_enable.next = true;
            self.f_done.write_address.next = self.idx.q.val().get_bits::<15>(0) & self.c_fmask.val();
            self.f_done.write_data.next = false;
            self.idx.d.next = self.idx.q.val() + 1;
            self.init_end.d.next = self.idx.q.val() == self.c_frames.val() - 2;
            if self.init_end.q.val() {
                self.state.d.next = Mv::Idle;
            }
        }
        if (self.state.q.val() == Mv::SlotUse) & self.free_r.q.val() {
            // FREE: done, not streamed (its flag next cycle); the next
            // action may be taken in this cycle (not a DROP: its flag
            // would meet this one's).
            self.dn_v.d.next = true;
            self.dn_a.d.next = self.si.q.val().get_bits::<15>(0) & self.c_fmask.val();
            self.dn_d.d.next = !self.lap_s.val();
            self.state.d.next = Mv::Idle;
        }
        self.take_ok.next =
            (self.state.q.val() == Mv::Idle) | ((self.state.q.val() == Mv::SlotUse) & self.free_r.q.val() & (self.a_op.val() != 2));
        if self.take_ok.val() & self.a_valid.val() {
            if self.slot_op.val() {
                // RELEASE, REPLAY, FREE: the slot's frame.
                self.a_ready.next = true;
                self.slot_tab.read_enable.next = true;
                self.keep_r.d.next = self.a_op.val() == 5;
                self.free_r.d.next = self.a_op.val() == 6;
                self.state.d.next = Mv::SlotRead;
            } else if self.head_whole.val() {
                self.a_ready.next = true;
                self.acted.d.next = true;
                self.n_act.d.next = self.n_act.q.val() + 1;
                if self.a_op.val() == 2 {
                    // DROP: done (its flag written next cycle, as a streamed
                    // frame's).
                    self.dn_v.d.next = true;
                    self.dn_a.d.next = self.fa.val();
                    self.dn_d.d.next = !self.lap_a.val();
                } else if self.a_op.val() == 1 {
                    // BUFFER: kept for its slot.
                    self.slot_tab.write_enable.next = true;
                } else {
                    // DELIVER, SEND_KEEP (streamed and kept for its slot).
                    self.keep_r.d.next = self.a_op.val() == 4;
                    if self.a_op.val() == 4 {
                        self.slot_tab.write_enable.next = true;
                    }
                    self.idx.d.next = self.n_act.q.val();
                    self.f_info.read_enable.next = true;
                    self.state.d.next = Mv::Lookup;
                }
            }
        }
        if self.state.q.val() == Mv::SlotRead {
            self.si.d.next = self.slot_tab.read_data.val();
            self.state.d.next = Mv::SlotUse;
        }
        if (self.state.q.val() == Mv::SlotUse) & !self.free_r.q.val() {
            self.idx.d.next = self.si.q.val();
            self.f_info.read_enable.next = true;
            self.f_info.read_address.next = self.si.q.val().get_bits::<15>(0) & self.c_fmask.val();
            self.state.d.next = Mv::Lookup;
        }
        if self.state.q.val() == Mv::Lookup {
            self.li.d.next = self.f_info.read_data.val();
            self.first.d.next = true;
            self.state.d.next = Mv::Stream;
        }
        if self.first.q.val() {
            self.len_r.d.next =
                (self.li.q.val().get_bits::<16>(16) << self.c_lgk.val()) + bit_cast::<16, 8>(self.li.q.val().get_bits::<8>(33));
        }
        if self.issue.val() {
            self.first.d.next = false;
            self.rp.d.next = self.cur_rp.val() + 1;
            self.wleft.d.next = self.cur_wleft.val() - 1;
            self.at_last.d.next = self.cur_wleft.val() == 1;
            if self.cur_last.val() {
                // The last word read: the frame is done (its flag next
                // cycle), unless it stays (SEND_KEEP, REPLAY).
                self.dn_v.d.next = !self.keep_r.q.val();
                self.dn_a.d.next = self.fi.val();
                self.dn_d.d.next = !self.lap_i.val();
                self.state.d.next = Mv::Idle;
            }
        }
        // ================================================= the output queue
        // The registered word joins the queue's first free place (after a
        // word leaves); the word in flight takes its place.
        self.r_move.next = self.rv.q.val() & (!(self.o0_v.q.val() & self.o1_v.q.val()) | self.pop.val());
        if self.pop.val() {
            self.o0_v.d.next = self.o1_v.q.val();
            self.o0_d.d.next = self.o1_d.q.val();
            self.o0_k.d.next = self.o1_k.q.val();
            self.o0_u.d.next = self.o1_u.q.val();
            self.o0_l.d.next = self.o1_l.q.val();
            self.o0_b.d.next = self.o1_b.q.val();
            self.o1_v.d.next = false;
        }
        if self.r_move.val() {
            if !self.o0_v.q.val() | (self.pop.val() & !self.o1_v.q.val()) {
                self.o0_v.d.next = true;
                self.o0_d.d.next = self.r_d.q.val();
                self.o0_k.d.next = self.r_k.q.val();
                self.o0_u.d.next = self.r_u.q.val();
                self.o0_l.d.next = self.r_l.q.val();
                self.o0_b.d.next = self.r_b.q.val();
            } else {
                self.o1_v.d.next = true;
                self.o1_d.d.next = self.r_d.q.val();
                self.o1_k.d.next = self.r_k.q.val();
                self.o1_u.d.next = self.r_u.q.val();
                self.o1_l.d.next = self.r_l.q.val();
                self.o1_b.d.next = self.r_b.q.val();
            }
            self.rv.d.next = false;
        }
        if self.inflight.q.val() {
            self.rv.d.next = true;
            self.r_d.d.next = self.r_data.read_data.val();
            self.r_k.d.next = self.r_keep.read_data.val();
            self.r_u.d.next = (self.r_user.read_data.val() & self.c_len_keep.val()) | (bit_cast::<U, 16>(self.len_r.q.val()) << 16);
            self.r_l.d.next = self.r_last.read_data.val();
            self.r_b.d.next = self.r_bytes.read_data.val();
        }
        self.m.tvalid.next = self.o0_v.q.val();
        self.m.tdata.next = self.o0_d.q.val();
        self.m.tkeep.next = self.o0_k.q.val();
        self.m.tuser.next = self.o0_u.q.val();
        self.m.tlast.next = self.o0_l.q.val();
        self.ring_used.next = self.used_r.q.val();
        self.held.next = self.inr_r.q.val();
        self.m_bytes.next = self.o0_b.q.val();
    }
}

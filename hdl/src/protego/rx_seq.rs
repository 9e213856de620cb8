//! `ts_protego_rx_seq`: the receiver side's decisions, one frame at a time
//! (`docs/protego.md`, "The RTL"; `PL2-PROTEGO.md` B.4; 004 §3.3, §3.5,
//! App. A.1, Alg. 1-2). Golden model: `trimswitch_sim::model::protego::
//! {ProtegoPort::receive, ProtegoRx}`, decision for decision.
//!
//! It sees a descriptor per frame from the tag remover (in arrival order)
//! and answers each with one action for the frame mover: deliver it,
//! buffer it in a reordering slot, or drop it; between them it releases
//! buffered frames in `ackNo` order. Beside that: loss notifications (LOSS)
//! and the pending ACK for the local sender, PFC pause/resume events (Alg.
//! 2), `ackNoTimeout`, and the counters.
//!
//! The reordering buffer's bookkeeping is here: a slot per sequence number
//! `v17 mod slots` (occupied, length) in block RAM, the bytes in use, the
//! frames' bytes are the mover's. A frame `ackNo + d` with `d` at or beyond
//! the slots is dropped and counted (`buffer_drop`, as the model's
//! `rx_slots`). Requested numbers are kept at `v17 mod miss` (valid, the
//! number, when it went missing: the retransmission delay, and ProtegoNB's
//! duplicate test), as the model's `miss_slots`.
//!
//! Ports (registered outputs but `d_ready`, which follows `d_valid` and
//! registers):
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset; the
//!   tables are cleared after reset (one cycle per entry of the larger
//!   one) before the first descriptor is taken.
//! - `cfg_*` ([`RxConfig`], the port's registers, B.7): `rx_en` (CTRL.rx),
//!   `nb` (CTRL.nb), `ack_timeout` (cycles, 32 bits), `buf_bytes`,
//!   `pause_bytes`, `resume_bytes` (24 bits), `max_hole` (8).
//! - Descriptor in (`d_valid`, `d_ready` out): `d_pfc` (a PFC frame: ends
//!   here), `d_tagged`, `d_trunc` (0x88B6 where the tag goes, the frame
//!   ending inside it), `d_kind` (2), `d_seq` (17: era in bit 16), `d_ctrl`
//!   (inner EtherType 0x88B6), `d_ka` (a dummy asking for an ACK: decision
//!   16), `d_short` (a LOSS without its fields),
//!   `d_len` (the frame's bytes without the tag, 16).
//! - Action out (`a_valid`, `a_ready` in): `a_op` ([`op`]), `a_slot` (15).
//! - `note_*` ([`RxNotes`]), for the port's sender side: LOSS
//!   (`l_valid`, `l_ready` in): `l_first`, `l_latest` (17), `l_hole` (8:
//!   the numbers requested, at most `max_hole`); ACK: `ack_valid` (an ACK is
//!   pending and no LOSS waits: the model's `take_ack`), `ack_seq` (17:
//!   `latestRxSeqNo`), `ack_take` in (clears it); PFC (`p_valid`, `p_ready`
//!   in): `p_pause` (1 pause, 0 resume).
//! - `busy`: a descriptor is being decided or buffered frames released;
//!   `ev_timeout`: a pulse per `ackNoTimeout` expiry.
//! - `stats_*` ([`RxStats`]), state and counters (32 bits, wrapping):
//!   `expected`, `ack_no` (17), `buf_used` (24), `n_data`, `n_retx`,
//!   `n_dummy`, `n_delivered`, `n_lost`, `n_recovered`, `n_duplicates`,
//!   `n_timeouts`, `n_pauses`, `n_resumes`, `n_untagged`, `n_tag_off`,
//!   `n_truncated`, `n_resync`, `n_buffer_drop`, `buf_high`, `dly_min` (all
//!   ones until a retransmission is recovered), `dly_max`.
//!
//! Times (the delay's, a request's) are the cycles descriptors were taken,
//! as the model's `now`; the timer reloads a few cycles later than the
//! model's, so a timeout is never early (the tests check it is due).
//!
//! Rate: a descriptor takes 5 cycles (accept; the tables' entries
//! registered; the distances; the classes; execute, once the previous
//! action was taken), plus one per requested number of a LOSS, and, when
//! `ackNo` advances while frames are buffered or PFC has paused the peer,
//! four (the release loop finding the next slot empty, Alg. 2) and three per
//! released frame; two and the releases per timeout. In-order frames with
//! nothing buffered: 5 cycles each (`tests/protego/rx.rs` measures it).
//! Frames wait in the store (`ts_protego_store`) meanwhile.
use crate::prim::widgets::{DffR, SdpRam};
use rust_hdl::prelude::*;

/// Actions (`a_op`).
pub mod op {
    /// The frame at the head of the input goes out.
    pub const DELIVER: u64 = 0;
    /// The frame at the head of the input goes into slot `a_slot`.
    pub const BUFFER: u64 = 1;
    /// The frame at the head of the input is dropped.
    pub const DROP: u64 = 2;
    /// The frame in slot `a_slot` goes out (the slot is free again).
    pub const RELEASE: u64 = 3;
    /// The frame store's three for the sender side (`ts_protego_store`):
    /// the frame at the head of the input goes out and stays in slot
    /// `a_slot`.
    pub const SEND_KEEP: u64 = 4;
    /// The frame in slot `a_slot` goes out again and stays.
    pub const REPLAY: u64 = 5;
    /// The frame in slot `a_slot` is let go (not sent).
    pub const FREE: u64 = 6;
}

/// States of the engine.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum St {
    /// Clearing the tables after reset (the first variant: the reset state).
    Init,
    Idle,
    /// A descriptor: the tables' entries registered, the distances, the
    /// classes, then the execute step.
    Read,
    Dist,
    Class,
    Exec,
    /// A LOSS's requested numbers into their entries.
    LossWrite,
    /// The release loop after `ackNo` advanced.
    RelRd,
    RelWait,
    RelCheck,
    /// `ackNoTimeout`: its entry read, then the step.
    TimeoutWait,
    Timeout,
    /// A resync: every slot from `ackNo`, then the requests cleared.
    FlushRd,
    FlushWait,
    FlushCheck,
    ClearMiss,
    /// Then synced on the frame, which goes out.
    Resynced,
    /// Alg. 2 after the buffer changed.
    Pfc,
}

/// The receiver's run-time settings (`cfg_*` ports; the port's registers,
/// B.7): `rx_en` (CTRL.rx), `nb` (CTRL.nb: ProtegoNB), `tag_drop`
/// (CTRL.tag_drop: with the receiver off a tagged frame is dropped, not
/// forwarded untagged; counted either way, decision 7), `ack_timeout`
/// (cycles), `buf_bytes` (the reordering buffer), `pause_bytes` and
/// `resume_bytes` (Alg. 2), `max_hole` (the most numbers a LOSS requests).
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct RxConfig {
    pub rx_en: Signal<In, Bit>,
    pub nb: Signal<In, Bit>,
    pub tag_drop: Signal<In, Bit>,
    pub ack_timeout: Signal<In, Bits<32>>,
    pub buf_bytes: Signal<In, Bits<24>>,
    pub pause_bytes: Signal<In, Bits<24>>,
    pub resume_bytes: Signal<In, Bits<24>>,
    pub max_hole: Signal<In, Bits<8>>,
}

/// What the receiver has for its port's sender to send (`note_*` ports):
/// a LOSS (`l_valid`, `l_ready` in; the first number, `latestRxSeqNo`, the
/// numbers requested), the pending ACK (`ack_valid` while one is pending
/// and no LOSS waits, `ack_seq`, `ack_take` in: clears it), PFC (`p_valid`,
/// `p_ready` in, `p_pause`: 1 pause, 0 resume).
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "RxNotesIn"]
pub struct RxNotes {
    pub l_valid: Signal<Out, Bit>,
    pub l_ready: Signal<In, Bit>,
    pub l_first: Signal<Out, Bits<17>>,
    pub l_latest: Signal<Out, Bits<17>>,
    pub l_hole: Signal<Out, Bits<8>>,
    pub ack_valid: Signal<Out, Bit>,
    pub ack_seq: Signal<Out, Bits<17>>,
    pub ack_take: Signal<In, Bit>,
    pub p_valid: Signal<Out, Bit>,
    pub p_ready: Signal<In, Bit>,
    pub p_pause: Signal<Out, Bit>,
}

/// The sender side's end of [`RxNotes`].
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "RxNotes"]
pub struct RxNotesIn {
    pub l_valid: Signal<In, Bit>,
    pub l_ready: Signal<Out, Bit>,
    pub l_first: Signal<In, Bits<17>>,
    pub l_latest: Signal<In, Bits<17>>,
    pub l_hole: Signal<In, Bits<8>>,
    pub ack_valid: Signal<In, Bit>,
    pub ack_seq: Signal<In, Bits<17>>,
    pub ack_take: Signal<Out, Bit>,
    pub p_valid: Signal<In, Bit>,
    pub p_ready: Signal<Out, Bit>,
    pub p_pause: Signal<In, Bit>,
}

/// The receiver's state and counters (`stats_*` ports; 32-bit counters
/// wrap; the model's `RxCounters`; the registers of B.7): `expected`,
/// `ack_no`, the reordering buffer's bytes in use, frames per type, those
/// delivered, sequence numbers lost and recovered, duplicates removed,
/// timeouts, pauses and resumes sent, untagged frames and tags on a port
/// whose receiver is off, truncated control frames, resyncs, frames dropped
/// for a full buffer, the buffer's high-water mark in bytes, the
/// retransmission delay's minimum (all ones until one) and maximum in
/// cycles.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct RxStats {
    pub expected: Signal<Out, Bits<17>>,
    pub ack_no: Signal<Out, Bits<17>>,
    pub buf_used: Signal<Out, Bits<24>>,
    pub n_data: Signal<Out, Bits<32>>,
    pub n_retx: Signal<Out, Bits<32>>,
    pub n_dummy: Signal<Out, Bits<32>>,
    pub n_delivered: Signal<Out, Bits<32>>,
    pub n_lost: Signal<Out, Bits<32>>,
    pub n_recovered: Signal<Out, Bits<32>>,
    pub n_duplicates: Signal<Out, Bits<32>>,
    pub n_timeouts: Signal<Out, Bits<32>>,
    pub n_pauses: Signal<Out, Bits<32>>,
    pub n_resumes: Signal<Out, Bits<32>>,
    pub n_untagged: Signal<Out, Bits<32>>,
    pub n_tag_off: Signal<Out, Bits<32>>,
    pub n_truncated: Signal<Out, Bits<32>>,
    pub n_resync: Signal<Out, Bits<32>>,
    pub n_buffer_drop: Signal<Out, Bits<32>>,
    pub buf_high: Signal<Out, Bits<32>>,
    pub dly_min: Signal<Out, Bits<32>>,
    pub dly_max: Signal<Out, Bits<32>>,
}

/// The decision engine (module documentation).
#[derive(LogicBlock)]
pub struct ProtegoRxSeq {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub cfg: RxConfig,
    pub d_valid: Signal<In, Bit>,
    pub d_ready: Signal<Out, Bit>,
    pub d_pfc: Signal<In, Bit>,
    pub d_tagged: Signal<In, Bit>,
    pub d_trunc: Signal<In, Bit>,
    pub d_kind: Signal<In, Bits<2>>,
    pub d_seq: Signal<In, Bits<17>>,
    pub d_ctrl: Signal<In, Bit>,
    /// A dummy asking for an ACK (its first body byte's bit 0; decision 16).
    pub d_ka: Signal<In, Bit>,
    pub d_short: Signal<In, Bit>,
    pub d_len: Signal<In, Bits<16>>,
    pub a_valid: Signal<Out, Bit>,
    pub a_ready: Signal<In, Bit>,
    pub a_op: Signal<Out, Bits<2>>,
    pub a_slot: Signal<Out, Bits<15>>,
    pub note: RxNotes,
    pub busy: Signal<Out, Bit>,
    pub ev_timeout: Signal<Out, Bit>,
    pub stats: RxStats,
    /// Slots: occupied (bit 16) and the frame's length.
    slots: SdpRam<Bits<17>, 15>,
    /// Requested numbers: valid (bit 49), the number (48:32), when it went
    /// missing (31:0).
    miss: SdpRam<Bits<50>, 15>,
    // ---- state
    state: DffR<St>,
    /// A loop index (clearing, flushing), from `2^16 − n` for `n` steps: the
    /// loop ends when bit 16 sets (one bit, no compare).
    idx: DffR<Bits<17>>,
    now: DffR<Bits<32>>,
    synced: DffR<Bit>,
    exp_r: DFF<Bits<17>>,
    latest: DFF<Bits<17>>,
    pend: DffR<Bit>,
    ackn: DFF<Bits<17>>,
    /// `ackNoTimeout`: cycles left, from a reload; due at 0.
    left: DFF<Bits<32>>,
    /// `left` reloads with `ack_timeout` this cycle.
    reload: Signal<Local, Bit>,
    paused: DffR<Bit>,
    used: DffR<Bits<24>>,
    // ---- the descriptor and what the decode steps found
    q_pfc: DFF<Bit>,
    q_tagged: DFF<Bit>,
    q_trunc: DFF<Bit>,
    q_kind: DFF<Bits<2>>,
    q_seq: DFF<Bits<17>>,
    q_ctrl: DFF<Bit>,
    q_ka: DFF<Bit>,
    q_short: DFF<Bit>,
    q_len: DFF<Bits<16>>,
    /// The cycle it was taken: the time of its events (when a hole it
    /// reveals went missing, its retransmission delay), as the model's
    /// `now`, whatever the steps after wait for.
    q_now: DFF<Bits<32>>,
    /// The tables' entries for it, registered out of the block RAM.
    q_sl: DFF<Bits<17>>,
    q_ms: DFF<Bits<50>>,
    /// `dist(expected, s)` and `dist(ackNo, s)` (a first frame: 0), and the
    /// equalities; the frame syncs the receiver; `ackNo == expected`; the
    /// bytes in use with it; it was requested; the retransmission delay.
    de: DFF<Bits<17>>,
    da: DFF<Bits<17>>,
    de_zero: DFF<Bit>,
    da_zero: DFF<Bit>,
    sync: DFF<Bit>,
    closed: DFF<Bit>,
    sum: DFF<Bits<25>>,
    miss_hit: DFF<Bit>,
    dly: DFF<Bits<32>>,
    /// The classes of the execute step (module `Class` state): the receiver
    /// proper, a dummy, DATA, RETX; a hole to notify; on to Alg. 1;
    /// delivered at `ackNo`; into a slot if the bytes fit; a resync.
    f_rxp: DFF<Bit>,
    f_dummy: DFF<Bit>,
    f_data: DFF<Bit>,
    f_retx: DFF<Bit>,
    f_loss: DFF<Bit>,
    f_go: DFF<Bit>,
    f_rel: DFF<Bit>,
    f_slot: DFF<Bit>,
    f_resync: DFF<Bit>,
    /// Behind `ackNo` (a duplicate), beyond the window, slot taken, the
    /// buffer would overflow, the hole fits one LOSS, the delay's extremes.
    da_far: DFF<Bit>,
    da_out: DFF<Bit>,
    occ: DFF<Bit>,
    over: DFF<Bit>,
    de_le_max: DFF<Bit>,
    dly_lt: DFF<Bit>,
    dly_gt: DFF<Bit>,
    /// `ackNoTimeout` due, registered; valid when the cycle before was idle
    /// too (the state it was computed from has not changed since).
    due_r: DFF<Bit>,
    idle_prev: DffR<Bit>,
    /// After the execute step: a LOSS's entries to write, a release loop
    /// (`ackNo` advanced), Alg. 2 (the buffer grew).
    do_rel: DFF<Bit>,
    do_pfc: DFF<Bit>,
    /// Nothing buffered and not paused (found in `Class`): an in-order
    /// frame has nothing to release and Alg. 2 nothing to do.
    u_free: DFF<Bit>,
    /// The next requested number to write (a LOSS), or the next slot to
    /// flush (a resync); the LOSS's entries left to write, and when they
    /// went missing.
    w_first: DFF<Bits<17>>,
    w_n: DFF<Bits<8>>,
    w_t0: DFF<Bits<32>>,
    // ---- outputs
    a_v: DffR<Bit>,
    a_o: DFF<Bits<2>>,
    a_s: DFF<Bits<15>>,
    l_v: DffR<Bit>,
    l_f: DFF<Bits<17>>,
    l_l: DFF<Bits<17>>,
    l_h: DFF<Bits<8>>,
    p_v: DffR<Bit>,
    p_p: DFF<Bit>,
    ev_to: DffR<Bit>,
    c_data: DffR<Bits<32>>,
    c_retx: DffR<Bits<32>>,
    c_dummy: DffR<Bits<32>>,
    c_deliv: DffR<Bits<32>>,
    c_lost: DffR<Bits<32>>,
    c_recov: DffR<Bits<32>>,
    c_dup: DffR<Bits<32>>,
    c_to: DffR<Bits<32>>,
    c_pause: DffR<Bits<32>>,
    c_resume: DffR<Bits<32>>,
    c_untag: DffR<Bits<32>>,
    c_off: DffR<Bits<32>>,
    c_trunc: DffR<Bits<32>>,
    c_resync: DffR<Bits<32>>,
    c_bdrop: DffR<Bits<32>>,
    c_high: DffR<Bits<32>>,
    c_dmin: DffR<Bits<32>>,
    c_dmax: DffR<Bits<32>>,
    // ---- combinational
    a_free: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    due: Signal<Local, Bit>,
    due_c: Signal<Local, Bit>,
    /// Table indices (the low 15 bits, masked): the
    /// descriptor's, the loop index's, `ackNo`'s, the decoded frame's, the
    /// LOSS entry's.
    dsl: Signal<Local, Bits<15>>,
    dml: Signal<Local, Bits<15>>,
    ix_s: Signal<Local, Bits<15>>,
    ix_m: Signal<Local, Bits<15>>,
    ack_m: Signal<Local, Bits<15>>,
    qs_s: Signal<Local, Bits<15>>,
    qs_m: Signal<Local, Bits<15>>,
    w_m: Signal<Local, Bits<15>>,
    /// The classes (in the `Class` state, from the registered decode).
    rxp: Signal<Local, Bit>,
    dummy: Signal<Local, Bit>,
    data: Signal<Local, Bit>,
    retx: Signal<Local, Bit>,
    de_far: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    p_free: Signal<Local, Bit>,
    /// The slot at `ackNo`, the slot to flush.
    rel_slot: Signal<Local, Bits<15>>,
    de_c: Signal<Local, Bits<17>>,
    da_c: Signal<Local, Bits<17>>,
    fl_slot: Signal<Local, Bits<15>>,
    // ---- constants
    /// `slots − 1`, `miss − 1` (15 bits), the slots' window test mask
    /// (`!(slots − 1)`, 17 bits); the loops' first index for `slots` and
    /// `miss` steps.
    c_smask: Constant<Bits<15>>,
    c_mmask: Constant<Bits<15>>,
    c_swin: Constant<Bits<17>>,
    c_sfrom: Constant<Bits<17>>,
    c_mfrom: Constant<Bits<17>>,
    /// A requested number's entry's valid bit.
    c_valid: Constant<Bits<50>>,
}

impl ProtegoRxSeq {
    /// An engine with `slots` reordering slots and `miss` entries for
    /// requested numbers (powers of two, 2..=32768; `miss` at least 255, the
    /// largest `max_hole`).
    pub fn new(slots: usize, miss: usize) -> Self {
        assert!(slots.is_power_of_two() && (2..=1 << 15).contains(&slots), "ProtegoRxSeq: slots {slots}");
        assert!(miss.is_power_of_two() && (256..=1 << 15).contains(&miss), "ProtegoRxSeq: miss {miss}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            d_valid: Default::default(),
            d_ready: Default::default(),
            d_pfc: Default::default(),
            d_tagged: Default::default(),
            d_trunc: Default::default(),
            d_kind: Default::default(),
            d_seq: Default::default(),
            d_ctrl: Default::default(),
            d_ka: Default::default(),
            d_short: Default::default(),
            d_len: Default::default(),
            a_valid: Default::default(),
            a_ready: Default::default(),
            a_op: Default::default(),
            a_slot: Default::default(),
            note: Default::default(),
            busy: Default::default(),
            ev_timeout: Default::default(),
            stats: Default::default(),
            slots: SdpRam::new(slots),
            miss: SdpRam::new(miss),
            state: Default::default(),
            idx: DffR::new(((1u64 << 16) - slots.max(miss) as u64).to_bits()),
            now: Default::default(),
            synced: Default::default(),
            exp_r: Default::default(),
            latest: Default::default(),
            pend: Default::default(),
            ackn: Default::default(),
            left: Default::default(),
            reload: Default::default(),
            paused: Default::default(),
            used: Default::default(),
            q_pfc: Default::default(),
            q_tagged: Default::default(),
            q_trunc: Default::default(),
            q_kind: Default::default(),
            q_seq: Default::default(),
            q_ctrl: Default::default(),
            q_ka: Default::default(),
            q_short: Default::default(),
            q_len: Default::default(),
            q_now: Default::default(),
            q_sl: Default::default(),
            q_ms: Default::default(),
            de: Default::default(),
            da: Default::default(),
            de_zero: Default::default(),
            da_zero: Default::default(),
            sync: Default::default(),
            closed: Default::default(),
            sum: Default::default(),
            miss_hit: Default::default(),
            dly: Default::default(),
            f_rxp: Default::default(),
            f_dummy: Default::default(),
            f_data: Default::default(),
            f_retx: Default::default(),
            f_loss: Default::default(),
            f_go: Default::default(),
            f_rel: Default::default(),
            f_slot: Default::default(),
            f_resync: Default::default(),
            da_far: Default::default(),
            da_out: Default::default(),
            occ: Default::default(),
            over: Default::default(),
            de_le_max: Default::default(),
            dly_lt: Default::default(),
            dly_gt: Default::default(),
            due_r: Default::default(),
            idle_prev: Default::default(),
            do_rel: Default::default(),
            u_free: Default::default(),
            do_pfc: Default::default(),
            w_first: Default::default(),
            w_n: Default::default(),
            w_t0: Default::default(),
            a_v: Default::default(),
            a_o: Default::default(),
            a_s: Default::default(),
            l_v: Default::default(),
            l_f: Default::default(),
            l_l: Default::default(),
            l_h: Default::default(),
            p_v: Default::default(),
            p_p: Default::default(),
            ev_to: Default::default(),
            c_data: Default::default(),
            c_retx: Default::default(),
            c_dummy: Default::default(),
            c_deliv: Default::default(),
            c_lost: Default::default(),
            c_recov: Default::default(),
            c_dup: Default::default(),
            c_to: Default::default(),
            c_pause: Default::default(),
            c_resume: Default::default(),
            c_untag: Default::default(),
            c_off: Default::default(),
            c_trunc: Default::default(),
            c_resync: Default::default(),
            c_bdrop: Default::default(),
            c_high: Default::default(),
            c_dmin: DffR::new(Bits::<32>::mask()),
            c_dmax: Default::default(),
            a_free: Default::default(),
            take: Default::default(),
            due: Default::default(),
            due_c: Default::default(),
            dsl: Default::default(),
            dml: Default::default(),
            ix_s: Default::default(),
            ix_m: Default::default(),
            ack_m: Default::default(),
            qs_s: Default::default(),
            qs_m: Default::default(),
            w_m: Default::default(),
            rxp: Default::default(),
            dummy: Default::default(),
            data: Default::default(),
            retx: Default::default(),
            de_far: Default::default(),
            go: Default::default(),
            p_free: Default::default(),
            rel_slot: Default::default(),
            de_c: Default::default(),
            da_c: Default::default(),
            fl_slot: Default::default(),
            c_smask: Constant::new(((slots - 1) as u64).to_bits()),
            c_mmask: Constant::new(((miss - 1) as u64).to_bits()),
            c_swin: Constant::new(((!(slots as u64 - 1)) & 0x1_FFFF).to_bits()),
            c_sfrom: Constant::new(((1u64 << 16) - slots as u64).to_bits()),
            c_mfrom: Constant::new(((1u64 << 16) - miss as u64).to_bits()),
            c_valid: Constant::new((1u64 << 49).to_bits()),
        }
    }
}

impl Logic for ProtegoRxSeq {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, idx, now, synced, exp_r, latest, pend, ackn, left, paused, used, q_pfc, q_tagged, q_trunc, q_kind, q_seq,
            q_ctrl, q_ka, q_short, q_len, q_now, q_sl, q_ms, de, da, de_zero, da_zero, sync, closed, sum, miss_hit, dly, f_rxp, f_dummy,
            f_data, f_retx, f_loss, f_go, f_rel, f_slot, f_resync, da_far, da_out, occ, over, de_le_max, dly_lt, dly_gt, due_r, idle_prev,
            do_rel, do_pfc, u_free, w_first, w_n, w_t0, a_v, a_o, a_s, l_v, l_f, l_l, l_h, p_v, p_p, ev_to, c_data, c_retx, c_dummy,
            c_deliv, c_lost, c_recov, c_dup, c_to, c_pause, c_resume, c_untag, c_off, c_trunc, c_resync, c_bdrop, c_high, c_dmin, c_dmax
        );
        self.state.reset.next = self.reset.val();
        self.idx.reset.next = self.reset.val();
        self.now.reset.next = self.reset.val();
        self.synced.reset.next = self.reset.val();
        self.pend.reset.next = self.reset.val();
        self.paused.reset.next = self.reset.val();
        self.used.reset.next = self.reset.val();
        self.idle_prev.reset.next = self.reset.val();
        self.a_v.reset.next = self.reset.val();
        self.l_v.reset.next = self.reset.val();
        self.p_v.reset.next = self.reset.val();
        self.ev_to.reset.next = self.reset.val();
        self.c_data.reset.next = self.reset.val();
        self.c_retx.reset.next = self.reset.val();
        self.c_dummy.reset.next = self.reset.val();
        self.c_deliv.reset.next = self.reset.val();
        self.c_lost.reset.next = self.reset.val();
        self.c_recov.reset.next = self.reset.val();
        self.c_dup.reset.next = self.reset.val();
        self.c_to.reset.next = self.reset.val();
        self.c_pause.reset.next = self.reset.val();
        self.c_resume.reset.next = self.reset.val();
        self.c_untag.reset.next = self.reset.val();
        self.c_off.reset.next = self.reset.val();
        self.c_trunc.reset.next = self.reset.val();
        self.c_resync.reset.next = self.reset.val();
        self.c_bdrop.reset.next = self.reset.val();
        self.c_high.reset.next = self.reset.val();
        self.c_dmin.reset.next = self.reset.val();
        self.c_dmax.reset.next = self.reset.val();
        self.slots.clock.next = self.clock.val();
        self.miss.clock.next = self.clock.val();
        self.slots.write_enable.next = false;
        self.slots.write_address.next = 0.into();
        self.slots.write_data.next = 0.into();
        self.slots.read_enable.next = false;
        self.slots.read_address.next = 0.into();
        self.miss.write_enable.next = false;
        self.miss.write_address.next = 0.into();
        self.miss.write_data.next = 0.into();
        self.miss.read_enable.next = false;
        self.miss.read_address.next = 0.into();
        self.now.d.next = self.now.q.val() + 1;
        self.reload.next = false;
        if self.left.q.val().any() {
            self.left.d.next = self.left.q.val() - 1;
        }
        self.ev_to.d.next = false;
        // ================================================= outputs' handshakes
        // An action (a PFC event) waits until the one before was taken: the
        // steps that make one read these registers, not `a_ready`.
        self.a_free.next = !self.a_v.q.val();
        self.p_free.next = !self.p_v.q.val();
        if self.a_v.q.val() & self.a_ready.val() {
            self.a_v.d.next = false;
        }
        if self.l_v.q.val() & self.note.l_ready.val() {
            self.l_v.d.next = false;
        }
        if self.p_v.q.val() & self.note.p_ready.val() {
            self.p_v.d.next = false;
        }
        if self.note.ack_take.val() & self.pend.q.val() & !self.l_v.q.val() {
            self.pend.d.next = false;
        }
        // `ackNoTimeout` due (the ordered receiver, a hole open), registered;
        // trusted when the state it came from has not changed since.
        self.due_c.next = self.synced.q.val()
            & self.cfg.rx_en.val()
            & !self.cfg.nb.val()
            & (self.ackn.q.val() != self.exp_r.q.val())
            & !self.left.q.val().any();
        self.due_r.d.next = self.due_c.val();
        self.due.next = self.due_r.q.val() & self.idle_prev.q.val();
        self.take.next = (self.state.q.val() == St::Idle) & !self.due.val() & self.d_valid.val() & !self.l_v.q.val() & !self.p_v.q.val();
        self.idle_prev.d.next = (self.state.q.val() == St::Idle) & !self.take.val() & !self.due.val();
        self.d_ready.next = self.take.val();
        // ================================================= table indices
        self.dsl.next = self.d_seq.val().get_bits::<15>(0) & self.c_smask.val();
        self.dml.next = self.d_seq.val().get_bits::<15>(0) & self.c_mmask.val();
        self.ix_s.next = self.idx.q.val().get_bits::<15>(0) & self.c_smask.val();
        self.ix_m.next = self.idx.q.val().get_bits::<15>(0) & self.c_mmask.val();
        self.ack_m.next = self.ackn.q.val().get_bits::<15>(0) & self.c_mmask.val();
        self.qs_s.next = self.q_seq.q.val().get_bits::<15>(0) & self.c_smask.val();
        self.qs_m.next = self.q_seq.q.val().get_bits::<15>(0) & self.c_mmask.val();
        self.rel_slot.next = self.ackn.q.val().get_bits::<15>(0) & self.c_smask.val();
        self.de_c.next = self.q_seq.q.val() - self.exp_r.q.val();
        self.da_c.next = self.q_seq.q.val() - self.ackn.q.val();
        self.fl_slot.next = self.w_first.q.val().get_bits::<15>(0) & self.c_smask.val();
        self.w_m.next = self.w_first.q.val().get_bits::<15>(0) & self.c_mmask.val();
        // ================================================= the classes
        // (the model's `ProtegoPort::receive`, then `ProtegoRx::receive`),
        // from the registered decode, for the `Class` state.
        self.rxp.next = !self.q_pfc.q.val()
            & self.q_tagged.q.val()
            & !self.q_kind.q.val().get_bit(1)
            & self.cfg.rx_en.val()
            & !(self.sync.q.val() & self.q_kind.q.val().get_bit(0));
        self.dummy.next = self.rxp.val() & !self.q_kind.q.val().get_bit(0) & self.q_ctrl.q.val();
        self.data.next = self.rxp.val() & !self.q_kind.q.val().get_bit(0) & !self.q_ctrl.q.val();
        self.retx.next = self.rxp.val() & self.q_kind.q.val().get_bit(0);
        self.de_far.next = self.de.q.val().get_bit(16) | self.de.q.val().get_bit(15);
        self.go.next = (self.data.val() & !self.de_far.val()) | (self.retx.val() & (self.miss_hit.q.val() | !self.cfg.nb.val()));
        if self.state.q.val() == St::Init {
            // Clear both tables.
            if self.idx.q.val().get_bit(16) {
                self.state.d.next = St::Idle;
            } else {
                self.slots.write_enable.next = true;
                self.slots.write_address.next = self.ix_s.val();
                self.miss.write_enable.next = true;
                self.miss.write_address.next = self.ix_m.val();
                self.idx.d.next = self.idx.q.val() + 1;
            }
        }
        if self.state.q.val() == St::Idle {
            if self.due.val() {
                self.miss.read_enable.next = true;
                self.miss.read_address.next = self.ack_m.val();
                self.state.d.next = St::TimeoutWait;
            } else if self.take.val() {
                self.q_pfc.d.next = self.d_pfc.val();
                self.q_tagged.d.next = self.d_tagged.val();
                self.q_trunc.d.next = self.d_trunc.val();
                self.q_kind.d.next = self.d_kind.val();
                self.q_seq.d.next = self.d_seq.val();
                self.q_ctrl.d.next = self.d_ctrl.val();
                self.q_ka.d.next = self.d_ka.val();
                self.q_short.d.next = self.d_short.val();
                self.q_len.d.next = self.d_len.val();
                self.q_now.d.next = self.now.q.val();
                self.slots.read_enable.next = true;
                self.slots.read_address.next = self.dsl.val();
                self.miss.read_enable.next = true;
                self.miss.read_address.next = self.dml.val();
                self.state.d.next = St::Read;
            }
        }
        if self.state.q.val() == St::Read {
            self.q_sl.d.next = self.slots.read_data.val();
            self.q_ms.d.next = self.miss.read_data.val();
            self.state.d.next = St::Dist;
        }
        if self.state.q.val() == St::Dist {
            // Distances and equalities (a first frame syncs: both 0).
            self.sync.d.next = !self.synced.q.val();
            self.de.d.next = self.de_c.val();
            self.da.d.next = self.da_c.val();
            self.de_zero.d.next = self.q_seq.q.val() == self.exp_r.q.val();
            self.da_zero.d.next = self.q_seq.q.val() == self.ackn.q.val();
            if !self.synced.q.val() {
                self.de.d.next = 0.into();
                self.da.d.next = 0.into();
                self.de_zero.d.next = true;
                self.da_zero.d.next = true;
            }
            self.closed.d.next = self.ackn.q.val() == self.exp_r.q.val();
            self.sum.d.next = bit_cast::<25, 24>(self.used.q.val()) + bit_cast::<25, 16>(self.q_len.q.val());
            self.miss_hit.d.next = self.q_ms.q.val().get_bit(49) & (self.q_ms.q.val().get_bits::<17>(32) == self.q_seq.q.val());
            // Both times are the cycles their frames were taken.
            self.dly.d.next = self.q_now.q.val() - self.q_ms.q.val().get_bits::<32>(0);
            self.state.d.next = St::Class;
        }
        if self.state.q.val() == St::Class {
            self.f_rxp.d.next = self.rxp.val();
            self.f_dummy.d.next = self.dummy.val();
            self.f_data.d.next = self.data.val();
            self.f_retx.d.next = self.retx.val();
            self.f_resync.d.next = self.data.val() & self.de_far.val();
            self.f_loss.d.next = (self.dummy.val() | self.data.val()) & !self.de_zero.q.val() & !self.de_far.val();
            self.f_go.d.next = self.go.val();
            self.f_rel.d.next = self.go.val() & !self.cfg.nb.val() & self.da_zero.q.val();
            self.da_far.d.next = self.da.q.val().get_bit(16) | self.da.q.val().get_bit(15);
            self.da_out.d.next = (self.da.q.val() & self.c_swin.val()).any();
            self.occ.d.next = self.q_sl.q.val().get_bit(16);
            self.f_slot.d.next = self.go.val()
                & !self.cfg.nb.val()
                & !self.da_zero.q.val()
                & !self.da.q.val().get_bit(16)
                & !self.da.q.val().get_bit(15)
                & !(self.da.q.val() & self.c_swin.val()).any()
                & !self.q_sl.q.val().get_bit(16);
            self.over.d.next = self.sum.q.val() > bit_cast::<25, 24>(self.cfg.buf_bytes.val());
            self.de_le_max.d.next = self.de.q.val() <= bit_cast::<17, 8>(self.cfg.max_hole.val());
            self.dly_lt.d.next = self.dly.q.val() < self.c_dmin.q.val();
            self.dly_gt.d.next = self.dly.q.val() > self.c_dmax.q.val();
            self.u_free.d.next = !self.used.q.val().any() & !self.paused.q.val();
            self.state.d.next = St::Exec;
        }
        if (self.state.q.val() == St::Exec) & self.a_free.val() {
            self.a_v.d.next = true;
            // DROP unless decided otherwise.
            self.a_o.d.next = 2.into();
            self.a_s.d.next = self.qs_s.val();
            if !self.q_pfc.q.val() & !self.q_tagged.q.val() {
                if self.q_trunc.q.val() {
                    self.c_trunc.d.next = self.c_trunc.q.val() + 1;
                } else {
                    self.a_o.d.next = 0.into();
                    if self.cfg.rx_en.val() {
                        self.c_untag.d.next = self.c_untag.q.val() + 1;
                    }
                }
            }
            if !self.q_pfc.q.val() & self.q_tagged.q.val() {
                if self.q_kind.q.val() == 2 {
                    // ACK: for the sender side; a frame behind it goes on.
                    if !self.q_ctrl.q.val() {
                        self.a_o.d.next = 0.into();
                    }
                } else if self.q_kind.q.val() == 3 {
                    // LOSS: for the sender side.
                    if self.q_short.q.val() {
                        self.c_trunc.d.next = self.c_trunc.q.val() + 1;
                    }
                } else if !self.cfg.rx_en.val() {
                    self.c_off.d.next = self.c_off.q.val() + 1;
                    if !self.q_ctrl.q.val() & !self.cfg.tag_drop.val() {
                        self.a_o.d.next = 0.into();
                    }
                } else if self.sync.q.val() & self.q_kind.q.val().get_bit(0) {
                    // A RETX before the first number: for a loss this side
                    // never saw.
                    self.c_retx.d.next = self.c_retx.q.val() + 1;
                    self.c_dup.d.next = self.c_dup.q.val() + 1;
                }
            }
            if self.f_rxp.q.val() & self.sync.q.val() {
                self.synced.d.next = true;
                self.exp_r.d.next = self.q_seq.q.val();
                self.ackn.d.next = self.q_seq.q.val();
                self.latest.d.next = self.q_seq.q.val() + 0x1_FFFF;
                self.reload.next = true;
            }
            if self.f_dummy.q.val() {
                self.c_dummy.d.next = self.c_dummy.q.val() + 1;
                if self.f_loss.q.val() {
                    self.exp_r.d.next = self.q_seq.q.val();
                }
                // Decision 16: a keepalive's dummy asks for the ACK again.
                if self.q_ka.q.val() {
                    self.pend.d.next = true;
                }
            }
            if self.f_data.q.val() {
                self.c_data.d.next = self.c_data.q.val() + 1;
                if self.f_resync.q.val() {
                    self.c_resync.d.next = self.c_resync.q.val() + 1;
                } else {
                    self.exp_r.d.next = self.q_seq.q.val() + 1;
                    self.latest.d.next = self.q_seq.q.val();
                    self.pend.d.next = true;
                }
            }
            if self.f_retx.q.val() {
                self.c_retx.d.next = self.c_retx.q.val() + 1;
                if self.miss_hit.q.val() {
                    self.c_recov.d.next = self.c_recov.q.val() + 1;
                    if self.dly_lt.q.val() {
                        self.c_dmin.d.next = self.dly.q.val();
                    }
                    if self.dly_gt.q.val() {
                        self.c_dmax.d.next = self.dly.q.val();
                    }
                    self.miss.write_enable.next = true;
                    self.miss.write_address.next = self.qs_m.val();
                } else if self.cfg.nb.val() {
                    self.c_dup.d.next = self.c_dup.q.val() + 1;
                }
            }
            if self.f_loss.q.val() {
                // A hole of `de` from `expected`: one LOSS for at most
                // `max_hole` of it (the requested numbers' entries next).
                self.c_lost.d.next = self.c_lost.q.val() + bit_cast::<32, 17>(self.de.q.val());
                self.l_v.d.next = true;
                self.l_f.d.next = self.exp_r.q.val();
                self.l_l.d.next = self.q_seq.q.val();
                if self.f_dummy.q.val() {
                    self.l_l.d.next = self.q_seq.q.val() + 0x1_FFFF;
                }
                self.l_h.d.next = self.cfg.max_hole.val();
                self.w_n.d.next = self.cfg.max_hole.val();
                if self.de_le_max.q.val() {
                    self.l_h.d.next = self.de.q.val().get_bits::<8>(0);
                    self.w_n.d.next = self.de.q.val().get_bits::<8>(0);
                }
                self.w_first.d.next = self.exp_r.q.val();
                self.w_t0.d.next = self.q_now.q.val();
                if self.closed.q.val() {
                    self.reload.next = true;
                }
            }
            // Alg. 1 (ProtegoNB: delivered at once).
            if self.f_go.q.val() {
                if self.cfg.nb.val() {
                    self.a_o.d.next = 0.into();
                    self.c_deliv.d.next = self.c_deliv.q.val() + 1;
                } else if self.da_zero.q.val() {
                    self.a_o.d.next = 0.into();
                    self.c_deliv.d.next = self.c_deliv.q.val() + 1;
                    self.ackn.d.next = self.q_seq.q.val() + 1;
                    self.reload.next = true;
                } else if self.da_far.q.val() {
                    self.c_dup.d.next = self.c_dup.q.val() + 1;
                } else if self.da_out.q.val() | (!self.occ.q.val() & self.over.q.val()) {
                    self.c_bdrop.d.next = self.c_bdrop.q.val() + 1;
                } else if self.occ.q.val() {
                    self.c_dup.d.next = self.c_dup.q.val() + 1;
                }
            }
            if self.f_slot.q.val() & !self.over.q.val() {
                self.a_o.d.next = 1.into();
                self.slots.write_enable.next = true;
                self.slots.write_address.next = self.qs_s.val();
                self.slots.write_data.next = bit_cast::<17, 16>(self.q_len.q.val()) | 0x1_0000;
                self.used.d.next = self.sum.q.val().get_bits::<24>(0);
                if bit_cast::<32, 24>(self.sum.q.val().get_bits::<24>(0)) > self.c_high.q.val() {
                    self.c_high.d.next = bit_cast::<32, 24>(self.sum.q.val().get_bits::<24>(0));
                }
            }
            self.do_rel.d.next = self.f_rel.q.val();
            self.do_pfc.d.next = self.f_slot.q.val() & !self.over.q.val();
            self.state.d.next = St::Idle;
            if self.f_resync.q.val() {
                // The peer restarted: deliver what waits (in order), clear
                // the requests, sync on this frame (its action follows).
                self.a_v.d.next = false;
                self.idx.d.next = self.c_sfrom.val();
                self.w_first.d.next = self.ackn.q.val();
                self.state.d.next = St::FlushRd;
            } else if self.f_loss.q.val() {
                self.state.d.next = St::LossWrite;
            } else if self.f_rel.q.val() & !self.u_free.q.val() {
                // (Nothing buffered, not paused: the release loop would find
                // slot `ackNo` empty and Alg. 2 nothing to do.)
                self.state.d.next = St::RelRd;
            } else if self.f_slot.q.val() & !self.over.q.val() {
                self.state.d.next = St::Pfc;
            }
        }
        if self.state.q.val() == St::LossWrite {
            // One requested number's entry per cycle.
            self.miss.write_enable.next = true;
            self.miss.write_address.next = self.w_m.val();
            self.miss.write_data.next =
                self.c_valid.val() | (bit_cast::<50, 17>(self.w_first.q.val()) << 32) | bit_cast::<50, 32>(self.w_t0.q.val());
            self.w_first.d.next = self.w_first.q.val() + 1;
            self.w_n.d.next = self.w_n.q.val() - 1;
            if self.w_n.q.val() == 1 {
                self.state.d.next = St::Idle;
                if self.do_rel.q.val() {
                    self.state.d.next = St::RelRd;
                } else if self.do_pfc.q.val() {
                    self.state.d.next = St::Pfc;
                }
            }
        }
        if self.state.q.val() == St::RelRd {
            self.slots.read_enable.next = true;
            self.slots.read_address.next = self.rel_slot.val();
            self.state.d.next = St::RelWait;
        }
        if self.state.q.val() == St::RelWait {
            self.q_sl.d.next = self.slots.read_data.val();
            self.state.d.next = St::RelCheck;
        }
        if self.state.q.val() == St::RelCheck {
            // The frame at `ackNo` waits in its slot: release it, advance.
            if !self.q_sl.q.val().get_bit(16) {
                self.state.d.next = St::Pfc;
            } else if self.a_free.val() {
                self.a_v.d.next = true;
                self.a_o.d.next = 3.into();
                self.a_s.d.next = self.rel_slot.val();
                self.c_deliv.d.next = self.c_deliv.q.val() + 1;
                self.used.d.next = self.used.q.val() - bit_cast::<24, 16>(self.q_sl.q.val().get_bits::<16>(0));
                self.slots.write_enable.next = true;
                self.slots.write_address.next = self.rel_slot.val();
                self.ackn.d.next = self.ackn.q.val() + 1;
                self.reload.next = true;
                self.state.d.next = St::RelRd;
            }
        }
        if self.state.q.val() == St::TimeoutWait {
            self.q_ms.d.next = self.miss.read_data.val();
            self.state.d.next = St::Timeout;
        }
        if self.state.q.val() == St::Timeout {
            // `ackNoTimeout`: skip `ackNo` (its request forgotten), then
            // release what follows it.
            if self.q_ms.q.val().get_bit(49) & (self.q_ms.q.val().get_bits::<17>(32) == self.ackn.q.val()) {
                self.miss.write_enable.next = true;
                self.miss.write_address.next = self.ack_m.val();
            }
            self.c_to.d.next = self.c_to.q.val() + 1;
            self.ev_to.d.next = true;
            self.ackn.d.next = self.ackn.q.val() + 1;
            self.reload.next = true;
            self.state.d.next = St::RelRd;
        }
        if self.state.q.val() == St::FlushRd {
            self.slots.read_enable.next = true;
            self.slots.read_address.next = self.fl_slot.val();
            self.state.d.next = St::FlushWait;
            if self.idx.q.val().get_bit(16) {
                self.idx.d.next = self.c_mfrom.val();
                self.state.d.next = St::ClearMiss;
            }
        }
        if self.state.q.val() == St::FlushWait {
            self.q_sl.d.next = self.slots.read_data.val();
            self.state.d.next = St::FlushCheck;
        }
        if self.state.q.val() == St::FlushCheck {
            // Every slot from `ackNo` on, in order: release what waits.
            if !self.q_sl.q.val().get_bit(16) | self.a_free.val() {
                if self.q_sl.q.val().get_bit(16) {
                    self.a_v.d.next = true;
                    self.a_o.d.next = 3.into();
                    self.a_s.d.next = self.fl_slot.val();
                    self.c_deliv.d.next = self.c_deliv.q.val() + 1;
                    self.slots.write_enable.next = true;
                    self.slots.write_address.next = self.fl_slot.val();
                }
                self.idx.d.next = self.idx.q.val() + 1;
                self.w_first.d.next = self.w_first.q.val() + 1;
                self.state.d.next = St::FlushRd;
            }
        }
        if self.state.q.val() == St::ClearMiss {
            // The requests cleared, then the frame that restarted the
            // numbers: synced on it and delivered (`ackNo` past it).
            if self.idx.q.val().get_bit(16) {
                self.state.d.next = St::Resynced;
            } else {
                self.miss.write_enable.next = true;
                self.miss.write_address.next = self.ix_m.val();
                self.idx.d.next = self.idx.q.val() + 1;
            }
        }
        if (self.state.q.val() == St::Resynced) & self.a_free.val() {
            self.a_v.d.next = true;
            self.a_o.d.next = 0.into();
            self.c_deliv.d.next = self.c_deliv.q.val() + 1;
            self.used.d.next = 0.into();
            self.exp_r.d.next = self.q_seq.q.val() + 1;
            self.latest.d.next = self.q_seq.q.val();
            self.pend.d.next = true;
            self.ackn.d.next = self.q_seq.q.val() + 1;
            self.reload.next = true;
            self.state.d.next = St::Pfc;
        }
        if self.state.q.val() == St::Pfc {
            // Alg. 2 on the buffer's bytes.
            if self.p_free.val() {
                self.state.d.next = St::Idle;
                if !self.paused.q.val() & (self.used.q.val() >= self.cfg.pause_bytes.val()) {
                    self.paused.d.next = true;
                    self.c_pause.d.next = self.c_pause.q.val() + 1;
                    self.p_v.d.next = true;
                    self.p_p.d.next = true;
                } else if self.paused.q.val() & (self.used.q.val() <= self.cfg.resume_bytes.val()) {
                    self.paused.d.next = false;
                    self.c_resume.d.next = self.c_resume.q.val() + 1;
                    self.p_v.d.next = true;
                    self.p_p.d.next = false;
                }
            }
        }
        // The timer's reload, one select for its 32 bits (the reasons above
        // are one bit's logic).
        if self.reload.val() {
            self.left.d.next = self.cfg.ack_timeout.val();
        }
        // ================================================= outputs
        self.a_valid.next = self.a_v.q.val();
        self.a_op.next = self.a_o.q.val();
        self.a_slot.next = self.a_s.q.val();
        self.note.l_valid.next = self.l_v.q.val();
        self.note.l_first.next = self.l_f.q.val();
        self.note.l_latest.next = self.l_l.q.val();
        self.note.l_hole.next = self.l_h.q.val();
        self.note.ack_valid.next = self.pend.q.val() & !self.l_v.q.val();
        self.note.ack_seq.next = self.latest.q.val();
        self.note.p_valid.next = self.p_v.q.val();
        self.note.p_pause.next = self.p_p.q.val();
        self.busy.next = self.state.q.val() != St::Idle;
        self.ev_timeout.next = self.ev_to.q.val();
        self.stats.expected.next = self.exp_r.q.val();
        self.stats.ack_no.next = self.ackn.q.val();
        self.stats.buf_used.next = self.used.q.val();
        self.stats.n_data.next = self.c_data.q.val();
        self.stats.n_retx.next = self.c_retx.q.val();
        self.stats.n_dummy.next = self.c_dummy.q.val();
        self.stats.n_delivered.next = self.c_deliv.q.val();
        self.stats.n_lost.next = self.c_lost.q.val();
        self.stats.n_recovered.next = self.c_recov.q.val();
        self.stats.n_duplicates.next = self.c_dup.q.val();
        self.stats.n_timeouts.next = self.c_to.q.val();
        self.stats.n_pauses.next = self.c_pause.q.val();
        self.stats.n_resumes.next = self.c_resume.q.val();
        self.stats.n_untagged.next = self.c_untag.q.val();
        self.stats.n_tag_off.next = self.c_off.q.val();
        self.stats.n_truncated.next = self.c_trunc.q.val();
        self.stats.n_resync.next = self.c_resync.q.val();
        self.stats.n_buffer_drop.next = self.c_bdrop.q.val();
        self.stats.buf_high.next = self.c_high.q.val();
        self.stats.dly_min.next = self.c_dmin.q.val();
        self.stats.dly_max.next = self.c_dmax.q.val();
    }
}

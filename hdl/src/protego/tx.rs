//! `ts_protego_tx`: Protego's sender side of a port, between the traffic
//! manager and the MAC (`docs/protego.md`, "The RTL"; `PL2-PROTEGO.md` B.1,
//! B.3; 004 §3.2-3.4, Fig. 16). Golden model:
//! `trimswitch_sim::model::protego::{ProtegoTx, ProtegoPort::pick}`, pick
//! for pick.
//!
//! Normal frames are written into a ring ([`ProtegoStore`], block RAM) as
//! they arrive; beside them a descriptor per frame (its length and VLAN
//! tags, for the ring's byte count and whether it can carry a tag) waits
//! in a FIFO. Between frames the block picks what goes next by B.1's
//! priority: PFC > LOSS (this port's receiver's notes) > RETX > a normal
//! frame (DATA, tagged with the next sequence number and kept in the ring
//! for its slot `seq mod frames`; while PFC has paused the sender or the
//! ring's bytes would pass `ring_bytes`, it waits) > an explicit ACK > a
//! dummy; with both sides on an ACK pending after `ack_every` normal
//! frames goes before the next (decision 15: a frame carries one tag, so
//! with traffic both ways B.1's order would starve the ACKs). One tag inserter ([`ProtegoTagIns`]) tags what leaves: a ring
//! frame, or a control frame built from a template (PFC goes untagged).
//!
//! The head processor (Fig. 16) runs when the peer's ACK or LOSS moves
//! `leadingAck`: while the oldest kept frame is at or behind it, the frame
//! leaves the ring's byte count, and, when the oldest request range still
//! holds it (decision 14), it is queued for `copies` retransmissions
//! (REPLAY from the ring, tagged RETX, each copy a pick of its own) and then
//! let go (FREE); else it is let go at once. A pick is decided in one
//! cycle and carried out in the next; the peer's events are registered and
//! take effect a cycle later. Picks wait while the head processor has work,
//! for three cycles after a peer's event and in the cycle of one, so each
//! pick sees what the model's would.
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset.
//! - `tcfg_*` ([`TxConfig`]): the port's registers (B.7).
//! - `s_*` in, `s_tready` out: normal frames (`tkeep` packed); held while
//!   the ring is full (the traffic manager waits: nothing is dropped).
//! - `m_*` out (registered), `m_tready` in: what goes on the wire.
//! - `note_*` ([`RxNotesIn`]): this port's receiver's LOSS, pending ACK and
//!   PFC to send; `peer_*` ([`PeerNotesIn`]): the peer's ACK, LOSS, PFC.
//! - `ev_pick` (3, registered, [`pick`]): what was picked last cycle;
//!   `ev_nrm`: a normal frame was waiting at that pick; `ev_ka`: a
//!   keepalive last cycle (decision 16) (for test benches).
//! - `tstats_*` ([`TxStats`]): counters and state.
//!
//! Rate: once the store has taken a pick's action its frame streams out on
//! its own, and the next pick comes as soon as that frame's first beat is
//! in the inserter (which samples `tag_r` with it): a template (PFC, LOSS,
//! ACK, dummy) only once the store has nothing left to stream, a ring frame
//! (RETX, normal) at once, its action taken when the store's mover is free.
//! Frames let go do not go through the picks: the store takes their FREE
//! ahead of the picks' actions (the head processor lets a frame go only
//! once the store has taken its SEND_KEEP, whatever the peer acknowledges;
//! a RETX's last copy's FREE follows its REPLAY). 512-byte frames at 512
//! bits, the peer acknowledging now and then: 14.4 cycles a frame (100G at
//! 322 MHz needs 13.9; 22.3 before; docs/protego.md, "Rate").
use super::rx::PeerNotesIn;
use super::rx_seq::RxNotesIn;
use super::store::ProtegoStore;
use super::tag::{BeatStep, ProtegoTagIns, VlanScan};
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::skid::AxisSkid;
use crate::prim::fifo::SyncFifo;
use crate::prim::widgets::{DffR, KeepCount, MacLanes, SdpRam};
use rust_hdl::prelude::*;

/// What `ev_pick` reports.
pub mod pick {
    pub const NONE: u64 = 0;
    pub const PFC: u64 = 1;
    pub const LOSS: u64 = 2;
    pub const RETX: u64 = 3;
    pub const NORMAL: u64 = 4;
    pub const ACK: u64 = 5;
    pub const DUMMY: u64 = 6;
}

/// The sender side's run-time settings (`tcfg_*`; B.7): `tx_en` (CTRL.tx),
/// `rx_en` (CTRL.rx: ACKs to send), `copies` (Eq. 1; 0: a request frees
/// the frame), `dummy_max` (dummies after each DATA; 0: no limit),
/// `ring_bytes` (the ring's byte budget, as the model's `ring_bytes`),
/// `mac` (the source of control frames), `pfc_class`, `ack_every` (with
/// both sides on, normal frames after which a pending explicit ACK goes
/// first; 0: never, B.1 as written), `ka_cycles` (decision 16: after this
/// many cycles without a pick while numbers wait for their ACK, the
/// dummies start again and ask for one; the port gives `ackNoTimeout`).
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct TxConfig {
    pub tx_en: Signal<In, Bit>,
    pub rx_en: Signal<In, Bit>,
    pub copies: Signal<In, Bits<2>>,
    pub dummy_max: Signal<In, Bits<8>>,
    pub ring_bytes: Signal<In, Bits<24>>,
    pub mac: Signal<In, Bits<48>>,
    pub pfc_class: Signal<In, Bits<3>>,
    pub ack_every: Signal<In, Bits<8>>,
    pub ka_cycles: Signal<In, Bits<32>>,
}

/// The sender side's counters (`tstats_*`, 32 bits, wrapping; the model's
/// `TxCounters`) and state: DATA, RETX copies, dummies, explicit and
/// piggybacked ACKs, LOSS and PFC sent, the peer's ACKs and LOSS, LOSS for
/// frames already gone, frames freed, frames sent untagged (no EtherType),
/// frames retransmitted, cycles a normal frame waited; `ring_used` (24:
/// bytes, as the model counts them), `ring_high`, `next_seq` (17),
/// `paused`; the ring's words and frames in use (`ring_words`,
/// `ring_frames`: the store's, a cycle behind).
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct TxStats {
    pub n_data: Signal<Out, Bits<32>>,
    pub n_retx: Signal<Out, Bits<32>>,
    pub n_dummy: Signal<Out, Bits<32>>,
    pub n_ack_explicit: Signal<Out, Bits<32>>,
    pub n_ack_piggy: Signal<Out, Bits<32>>,
    pub n_loss_sent: Signal<Out, Bits<32>>,
    pub n_pfc_sent: Signal<Out, Bits<32>>,
    pub n_ack_rx: Signal<Out, Bits<32>>,
    pub n_loss_rx: Signal<Out, Bits<32>>,
    pub n_loss_stale: Signal<Out, Bits<32>>,
    pub n_freed: Signal<Out, Bits<32>>,
    pub n_untaggable: Signal<Out, Bits<32>>,
    pub n_retx_frames: Signal<Out, Bits<32>>,
    pub n_paused: Signal<Out, Bits<32>>,
    pub n_keepalive: Signal<Out, Bits<32>>,
    pub ring_used: Signal<Out, Bits<24>>,
    pub ring_high: Signal<Out, Bits<32>>,
    pub next_seq: Signal<Out, Bits<17>>,
    pub paused: Signal<Out, Bit>,
    pub ring_words: Signal<Out, Bits<16>>,
    pub ring_frames: Signal<Out, Bits<16>>,
}

/// The output's states.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Ot {
    Idle,
    /// The pick carried out.
    Dec,
    /// The store's action (SEND_KEEP, DELIVER, REPLAY) until taken; the
    /// frame then streams out of the store on its own (`fl_n`), and the
    /// next pick may come while it does.
    Act,
    /// A template's beats.
    Tpl,
}

/// The head processor's states.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Ht {
    Idle,
    /// The head frame's length read.
    Read,
    /// The oldest range's end.
    Req,
    /// Behind it (drop the range) or not; inside it.
    Dist,
    Done,
    /// A cycle for `hp_go` to see the new head.
    Wait,
}

/// The sender side (module documentation).
#[derive(LogicBlock)]
pub struct ProtegoTx<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub tcfg: TxConfig,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub note: RxNotesIn,
    pub peer: PeerNotesIn,
    pub ev_pick: Signal<Out, Bits<3>>,
    pub ev_nrm: Signal<Out, Bit>,
    pub ev_ka: Signal<Out, Bit>,
    pub tstats: TxStats,
    st: ProtegoStore<D, K, U>,
    ins: ProtegoTagIns<D, K, U>,
    skid: AxisSkid<D, K, U>,
    /// A register slice before the inserter (its `s_tready` comes from its
    /// lanes' logic); the next pick waits until a frame's first beat has
    /// gone through it into the inserter (`fl_first`), so the inserter takes
    /// each first beat with its own frame's `s_tag`.
    pre: AxisSkid<D, K, U>,
    dq: SyncFifo<Bits<18>>,
    rf: SyncFifo<Bits<25>>,
    rq: SyncFifo<Bits<17>>,
    fq: SyncFifo<Bits<15>>,
    lens: SdpRam<Bits<16>, 15>,
    vl: VlanScan<D, K>,
    step: BeatStep,
    kc: KeepCount<K, 8>,
    macl: MacLanes,
    // ---- the input's descriptors
    bi: DffR<Bits<3>>,
    t1_r: DFF<Bit>,
    t2_r: DFF<Bit>,
    nbt: DffR<Bits<16>>,
    e1_v: DffR<Bit>,
    e1_nb: DFF<Bits<16>>,
    e1_cnt: DFF<Bits<8>>,
    e1_v2: DFF<Bits<2>>,
    e2_v: DffR<Bit>,
    e2_w: DFF<Bits<18>>,
    // ---- sequence numbers, `leadingAck`, the ring's bytes
    next: DffR<Bits<17>>,
    head: DffR<Bits<17>>,
    acked: DFF<Bits<17>>,
    acked_v: DffR<Bit>,
    used: DffR<Bits<24>>,
    paused_r: DffR<Bit>,
    dummies: DffR<Bits<8>>,
    /// Decision 16: cycles since the last pick; a keepalive's dummies ask
    /// for an ACK (`ka`); its pulse for benches; the count.
    quiet: DffR<Bits<32>>,
    ka_due: DffR<Bit>,
    ka: DffR<Bit>,
    ka_ev: DffR<Bit>,
    c_ka: DffR<Bits<32>>,
    waiting: Signal<Local, Bit>,
    acked1: Signal<Local, Bits<17>>,
    /// Normal frames picked since the last explicit ACK (saturating), and
    /// an explicit ACK is due ahead of them (decision 15; registered).
    since: DffR<Bits<8>>,
    due_r: DffR<Bit>,
    hp_go_r: DffR<Bit>,
    ev_d1: DffR<Bit>,
    ev_d2: DffR<Bit>,
    /// The peer's event, registered: an ACK's or a LOSS's `latest`, a LOSS's
    /// range.
    ld_v: DffR<Bit>,
    ld_loss: DffR<Bit>,
    ld_s: DFF<Bits<17>>,
    ld_first: DFF<Bits<17>>,
    ld_hole: DFF<Bits<8>>,
    calm: DffR<Bit>,
    /// `RING_BYTES - 5` and the room it leaves beside `used` (26 bits,
    /// signed: a host may set the budget below what the ring holds).
    rb5: DFF<Bits<26>>,
    ring_room: DFF<Bits<26>>,
    fits_r: DFF<Bit>,
    tagg_r: DFF<Bit>,
    dqv_r: DffR<Bit>,
    // ---- the head processor
    hs: DffR<Ht>,
    h_len: DFF<Bits<16>>,
    h_end: DFF<Bits<17>>,
    h_first: DFF<Bits<17>>,
    h_behind: DFF<Bit>,
    h_inside: DFF<Bit>,
    /// The oldest range, as the head processor took it (valid); ranges in
    /// the FIFO (its output shows a range a few cycles after it went in:
    /// the head processor waits for it).
    h_valid: DFF<Bit>,
    rf_n: DffR<Bits<5>>,
    // ---- the output
    os: DffR<Ot>,
    a_op: DFF<Bits<3>>,
    a_slot: DFF<Bits<15>>,
    /// The action is a RETX's last copy (its FREE follows once the store
    /// has taken it); the copies of the oldest requested frame left to
    /// pick (0: none counted yet).
    o_last: DFF<Bit>,
    cp_left: DffR<Bits<2>>,
    /// Ring frames the store has taken an action for whose last beat has
    /// not yet left it (0..2: the next action goes in while the frame
    /// before streams out); a picked frame whose first beat the inserter
    /// has not yet taken (the next pick waits for it: the inserter samples
    /// `tag_r` with a first beat); the inserter's input is inside a frame.
    fl_n: DffR<Bits<2>>,
    fl_first: DffR<Bit>,
    imid: DffR<Bit>,
    /// The FREE offered to the store (ahead of the output's actions): from
    /// the last copy of a RETX (`lc_v`, kept until loaded) or else the
    /// head processor's queue `fq`.
    fv: DffR<Bit>,
    f_slot: DFF<Bits<15>>,
    lc_v: DffR<Bit>,
    lc_slot: DFF<Bits<15>>,
    /// Frames queued for retransmission (the queue's output shows the first
    /// a few cycles after it went in: picks wait for it).
    rq_n: DffR<Bits<16>>,
    rq_pend: DffR<Bit>,
    /// The descriptor FIFO's pop, a cycle after the pick that used its head
    /// (registered: the pick's logic does not reach into the FIFO).
    dq_pop: DffR<Bit>,
    rq_pop: DffR<Bit>,
    fq_pop: DffR<Bit>,
    tag_r: DFF<Bits<24>>,
    skip_r: DFF<Bit>,
    tpl: DFF<Bits<512>>,
    /// A template's beats left (this one included), this is its last, it is
    /// PFC's 60 bytes (else 55: a control frame before its tag).
    tleft: DFF<Bits<4>>,
    t_last: DFF<Bit>,
    t60: DFF<Bit>,
    ev_r: DffR<Bits<3>>,
    /// The pick (`ev_pick`'s codes; 7: a FREE) and what it saw: the notes'
    /// values, the normal frame's kind (DATA, untagged, carrying the ACK).
    ch_r: DffR<Bits<3>>,
    ch: Signal<Local, Bits<3>>,
    k_pause: DFF<Bit>,
    k_first: DFF<Bits<17>>,
    k_hole: DFF<Bits<8>>,
    k_latest: DFF<Bits<17>>,
    k_ack: DFF<Bits<17>>,
    k_data: DFF<Bit>,
    k_untag: DFF<Bit>,
    k_piggy: DFF<Bit>,
    ev_n: DFF<Bit>,
    // ---- counters
    c_data: DffR<Bits<32>>,
    c_retx: DffR<Bits<32>>,
    c_dummy: DffR<Bits<32>>,
    c_ack_x: DffR<Bits<32>>,
    c_ack_p: DffR<Bits<32>>,
    c_loss: DffR<Bits<32>>,
    c_pfc: DffR<Bits<32>>,
    c_ack_rx: DffR<Bits<32>>,
    c_loss_rx: DffR<Bits<32>>,
    c_stale: DffR<Bits<32>>,
    c_freed: DffR<Bits<32>>,
    c_untag: DffR<Bits<32>>,
    c_rframes: DffR<Bits<32>>,
    c_paused: DffR<Bits<32>>,
    c_high: DffR<Bits<32>>,
    // ---- combinational
    hs_in: Signal<Local, Bit>,
    h_fast: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    d_len: Signal<Local, Bits<16>>,
    len16: Signal<Local, Bits<16>>,
    ev_now: Signal<Local, Bit>,
    /// `ev_now` as `can_pick` sees it (the same value under its terms).
    ev_calm: Signal<Local, Bit>,
    d_v: Signal<Local, Bits<2>>,
    tagg: Signal<Local, Bit>,
    dummy_ok: Signal<Local, Bit>,
    can_pick: Signal<Local, Bit>,
    ring_ok: Signal<Local, Bit>,
    send_ok: Signal<Local, Bit>,
    lead_d: Signal<Local, Bits<17>>,
    lead_a: Signal<Local, Bits<17>>,
    hp_d: Signal<Local, Bits<17>>,
    d_he: Signal<Local, Bits<17>>,
    d_hf: Signal<Local, Bits<17>>,
    st_d: Signal<Local, Bits<17>>,
    base: Signal<Local, Bits<512>>,
    qsh: Signal<Local, Bits<16>>,
    cls1h: Signal<Local, Bits<8>>,
    beat_keep: Signal<Local, Bits<K>>,
    ins_take: Signal<Local, Bit>,
    first_in: Signal<Local, Bit>,
    st_take: Signal<Local, Bit>,
    c_fmask: Constant<Bits<15>>,
    c_ksh: Constant<Bits<16>>,
    /// A template's beats and its last beat's `tkeep`: 55 and 60 bytes.
    c_b55: Constant<Bits<4>>,
    c_b60: Constant<Bits<4>>,
    c_k55: Constant<Bits<K>>,
    c_k60: Constant<Bits<K>>,
    c_dsh: Constant<Bits<16>>,
    c_kones: Constant<Bits<K>>,
    c_dst_ctl: Constant<Bits<512>>,
    c_dst_pfc: Constant<Bits<512>>,
    /// 0x88B6 at bytes 12..14; 0x8808 and opcode 0x0101 at 12..16; a
    /// quanta's 0xFFFF; a one.
    c_et_ctl: Constant<Bits<512>>,
    c_et_pfc: Constant<Bits<512>>,
    c_quanta: Constant<Bits<512>>,
    c_one8: Constant<Bits<8>>,
}

impl<const D: usize, const K: usize, const U: usize> ProtegoTx<D, K, U> {
    /// The sender side with a ring of `words` words holding up to `frames`
    /// frames (powers of two; `frames` is also the number of sequence-number
    /// slots, and the descriptor FIFO's and the retransmission queues'
    /// depth).
    pub fn new(words: usize, frames: usize) -> Self {
        assert!(K * 8 == D && (8..=64).contains(&K), "ProtegoTx: K = D / 8 in 8..=64");
        assert!(frames.is_power_of_two() && (16..=1 << 15).contains(&frames), "ProtegoTx: frames a power of two in 16..=32768");
        let lanes = |b: [u8; 6]| b.iter().enumerate().fold(0u64, |v, (j, &x)| v | (x as u64) << (8 * j));
        let last_keep = |len: usize| {
            let n = len - (len.div_ceil(K) - 1) * K;
            (0..n).fold(Bits::<K>::default(), |k, i| k.replace_bit(i, true))
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tcfg: Default::default(),
            s: Default::default(),
            m: Default::default(),
            note: Default::default(),
            peer: Default::default(),
            ev_pick: Default::default(),
            ev_nrm: Default::default(),
            ev_ka: Default::default(),
            tstats: Default::default(),
            st: ProtegoStore::new(words, frames, frames),
            ins: Default::default(),
            skid: Default::default(),
            pre: Default::default(),
            dq: SyncFifo::new(frames, 4),
            rf: SyncFifo::new(16, 2),
            rq: SyncFifo::new(frames, 2),
            fq: SyncFifo::new(frames, 2),
            lens: SdpRam::new(frames),
            vl: Default::default(),
            step: Default::default(),
            kc: KeepCount::thermo(),
            macl: Default::default(),
            bi: Default::default(),
            t1_r: Default::default(),
            t2_r: Default::default(),
            nbt: Default::default(),
            e1_v: Default::default(),
            e1_nb: Default::default(),
            e1_cnt: Default::default(),
            e1_v2: Default::default(),
            e2_v: Default::default(),
            e2_w: Default::default(),
            next: Default::default(),
            head: Default::default(),
            acked: Default::default(),
            acked_v: Default::default(),
            used: Default::default(),
            paused_r: Default::default(),
            dummies: Default::default(),
            quiet: Default::default(),
            ka_due: Default::default(),
            ka: Default::default(),
            ka_ev: Default::default(),
            c_ka: Default::default(),
            waiting: Default::default(),
            acked1: Default::default(),
            since: Default::default(),
            due_r: Default::default(),
            hp_go_r: Default::default(),
            ev_d1: Default::default(),
            ev_d2: Default::default(),
            ld_v: Default::default(),
            ld_loss: Default::default(),
            ld_s: Default::default(),
            ld_first: Default::default(),
            ld_hole: Default::default(),
            calm: Default::default(),
            rb5: Default::default(),
            ring_room: Default::default(),
            fits_r: Default::default(),
            tagg_r: Default::default(),
            dqv_r: Default::default(),
            hs: Default::default(),
            h_len: Default::default(),
            h_end: Default::default(),
            h_first: Default::default(),
            h_behind: Default::default(),
            h_inside: Default::default(),
            h_valid: Default::default(),
            rf_n: Default::default(),
            os: Default::default(),
            a_op: Default::default(),
            a_slot: Default::default(),
            o_last: Default::default(),
            cp_left: Default::default(),
            fl_n: Default::default(),
            fl_first: Default::default(),
            imid: Default::default(),
            fv: Default::default(),
            f_slot: Default::default(),
            lc_v: Default::default(),
            lc_slot: Default::default(),
            rq_n: Default::default(),
            rq_pend: Default::default(),
            dq_pop: Default::default(),
            rq_pop: Default::default(),
            fq_pop: Default::default(),
            tag_r: Default::default(),
            skip_r: Default::default(),
            tpl: Default::default(),
            tleft: Default::default(),
            t_last: Default::default(),
            t60: Default::default(),
            ev_r: Default::default(),
            ch_r: Default::default(),
            ch: Default::default(),
            k_pause: Default::default(),
            k_first: Default::default(),
            k_hole: Default::default(),
            k_latest: Default::default(),
            k_ack: Default::default(),
            k_data: Default::default(),
            k_untag: Default::default(),
            k_piggy: Default::default(),
            ev_n: Default::default(),
            c_data: Default::default(),
            c_retx: Default::default(),
            c_dummy: Default::default(),
            c_ack_x: Default::default(),
            c_ack_p: Default::default(),
            c_loss: Default::default(),
            c_pfc: Default::default(),
            c_ack_rx: Default::default(),
            c_loss_rx: Default::default(),
            c_stale: Default::default(),
            c_freed: Default::default(),
            c_untag: Default::default(),
            c_rframes: Default::default(),
            c_paused: Default::default(),
            c_high: Default::default(),
            hs_in: Default::default(),
            h_fast: Default::default(),
            room: Default::default(),
            d_len: Default::default(),
            len16: Default::default(),
            ev_now: Default::default(),
            ev_calm: Default::default(),
            d_v: Default::default(),
            tagg: Default::default(),
            dummy_ok: Default::default(),
            can_pick: Default::default(),
            ring_ok: Default::default(),
            send_ok: Default::default(),
            lead_d: Default::default(),
            lead_a: Default::default(),
            hp_d: Default::default(),
            d_he: Default::default(),
            d_hf: Default::default(),
            st_d: Default::default(),
            base: Default::default(),
            qsh: Default::default(),
            cls1h: Default::default(),
            beat_keep: Default::default(),
            ins_take: Default::default(),
            first_in: Default::default(),
            st_take: Default::default(),
            c_fmask: Constant::new(((frames - 1) as u64).to_bits()),
            c_ksh: Constant::new((K.trailing_zeros() as u64).to_bits()),
            c_b55: Constant::new((55usize.div_ceil(K) as u64).to_bits()),
            c_b60: Constant::new((60usize.div_ceil(K) as u64).to_bits()),
            c_k55: Constant::new(last_keep(55)),
            c_k60: Constant::new(last_keep(60)),
            c_dsh: Constant::new((D as u64).to_bits()),
            c_kones: Constant::new(Bits::<K>::mask()),
            c_dst_ctl: Constant::new(lanes([0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E]).to_bits()),
            c_dst_pfc: Constant::new(lanes([0x01, 0x80, 0xC2, 0x00, 0x00, 0x01]).to_bits()),
            c_et_ctl: Constant::new(Bits::<512>::from(0xB688u64) << 96u64),
            c_et_pfc: Constant::new((Bits::<512>::from(0x0888u64) << 96u64) | (Bits::<512>::from(0x0101u64) << 112u64)),
            c_quanta: Constant::new(Bits::<512>::from(0xFFFFu64)),
            c_one8: Constant::new(1u64.to_bits()),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for ProtegoTx<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, bi, t1_r, t2_r, nbt, e1_v, e1_nb, e1_cnt, e1_v2, e2_v, e2_w, next, head, acked, acked_v, used, paused_r, dummies,
            quiet, ka_due, ka, ka_ev, c_ka, since, due_r, hp_go_r, ev_d1, ev_d2, ld_v, ld_loss, ld_s, ld_first, ld_hole, calm, rb5,
            ring_room, fits_r, tagg_r, dqv_r, hs, h_len, h_end, h_first, h_behind, h_inside, h_valid, rf_n, os, a_op, a_slot, o_last,
            cp_left, fl_n, fl_first, imid, fv, f_slot, lc_v, lc_slot, rq_pend, dq_pop, rq_pop, fq_pop, rq_n, tag_r, skip_r, tpl, tleft,
            t_last, t60, ev_r, ch_r, k_pause, k_first, k_hole, k_latest, k_ack, k_data, k_untag, k_piggy, ev_n, c_data, c_retx, c_dummy,
            c_ack_x, c_ack_p, c_loss, c_pfc, c_ack_rx, c_loss_rx, c_stale, c_freed, c_untag, c_rframes, c_paused, c_high
        );
        self.bi.reset.next = self.reset.val();
        self.nbt.reset.next = self.reset.val();
        self.e1_v.reset.next = self.reset.val();
        self.e2_v.reset.next = self.reset.val();
        self.next.reset.next = self.reset.val();
        self.head.reset.next = self.reset.val();
        self.acked_v.reset.next = self.reset.val();
        self.used.reset.next = self.reset.val();
        self.paused_r.reset.next = self.reset.val();
        self.dummies.reset.next = self.reset.val();
        self.quiet.reset.next = self.reset.val();
        self.ka_due.reset.next = self.reset.val();
        self.ka.reset.next = self.reset.val();
        self.ka_ev.reset.next = self.reset.val();
        self.c_ka.reset.next = self.reset.val();
        self.since.reset.next = self.reset.val();
        self.due_r.reset.next = self.reset.val();
        self.hp_go_r.reset.next = self.reset.val();
        self.ev_d1.reset.next = self.reset.val();
        self.ev_d2.reset.next = self.reset.val();
        self.ld_v.reset.next = self.reset.val();
        self.ld_loss.reset.next = self.reset.val();
        self.calm.reset.next = self.reset.val();
        self.dqv_r.reset.next = self.reset.val();
        self.hs.reset.next = self.reset.val();
        self.rf_n.reset.next = self.reset.val();
        self.os.reset.next = self.reset.val();
        self.cp_left.reset.next = self.reset.val();
        self.fl_n.reset.next = self.reset.val();
        self.fl_first.reset.next = self.reset.val();
        self.imid.reset.next = self.reset.val();
        self.fv.reset.next = self.reset.val();
        self.lc_v.reset.next = self.reset.val();
        self.rq_n.reset.next = self.reset.val();
        self.rq_pend.reset.next = self.reset.val();
        self.dq_pop.reset.next = self.reset.val();
        self.rq_pop.reset.next = self.reset.val();
        self.fq_pop.reset.next = self.reset.val();
        self.ev_r.reset.next = self.reset.val();
        self.ch_r.reset.next = self.reset.val();
        self.c_data.reset.next = self.reset.val();
        self.c_retx.reset.next = self.reset.val();
        self.c_dummy.reset.next = self.reset.val();
        self.c_ack_x.reset.next = self.reset.val();
        self.c_ack_p.reset.next = self.reset.val();
        self.c_loss.reset.next = self.reset.val();
        self.c_pfc.reset.next = self.reset.val();
        self.c_ack_rx.reset.next = self.reset.val();
        self.c_loss_rx.reset.next = self.reset.val();
        self.c_stale.reset.next = self.reset.val();
        self.c_freed.reset.next = self.reset.val();
        self.c_untag.reset.next = self.reset.val();
        self.c_rframes.reset.next = self.reset.val();
        self.c_paused.reset.next = self.reset.val();
        self.c_high.reset.next = self.reset.val();
        self.st.clock.next = self.clock.val();
        self.st.reset.next = self.reset.val();
        self.ins.clock.next = self.clock.val();
        self.ins.reset.next = self.reset.val();
        self.skid.clock.next = self.clock.val();
        self.skid.reset.next = self.reset.val();
        self.pre.clock.next = self.clock.val();
        self.pre.reset.next = self.reset.val();
        self.dq.clock.next = self.clock.val();
        self.dq.reset.next = self.reset.val();
        self.rf.clock.next = self.clock.val();
        self.rf.reset.next = self.reset.val();
        self.rq.clock.next = self.clock.val();
        self.rq.reset.next = self.reset.val();
        self.fq.clock.next = self.clock.val();
        self.fq.reset.next = self.reset.val();
        self.lens.clock.next = self.clock.val();
        // ================================================= the input
        // Into the ring while it and the descriptor FIFO have room; a
        // descriptor per frame: its length and VLAN tags.
        self.room.next = self.dq.s_ready.val();
        self.st.s.tdata.next = self.s.tdata.val();
        self.st.s.tkeep.next = self.s.tkeep.val();
        self.st.s.tlast.next = self.s.tlast.val();
        self.st.s.tuser.next = self.s.tuser.val();
        self.st.s.tvalid.next = self.s.tvalid.val() & self.room.val();
        self.s.tready.next = self.st.s.tready.val() & self.room.val();
        self.hs_in.next = self.s.tvalid.val() & self.st.s.tready.val() & self.room.val();
        self.vl.tdata_lanes.next = self.s.tdata.val();
        self.vl.tkeep_lanes.next = self.s.tkeep.val();
        self.vl.bi.next = self.bi.q.val();
        self.vl.t1_r.next = self.t1_r.q.val();
        self.vl.t2_r.next = self.t2_r.q.val();
        self.step.a.next = self.bi.q.val();
        self.kc.keep.next = self.s.tkeep.val();
        self.e1_v.d.next = false;
        if self.hs_in.val() {
            self.t1_r.d.next = self.vl.t1.val();
            self.t2_r.d.next = self.vl.t2.val();
            if self.s.tlast.val() {
                self.bi.d.next = 0.into();
                self.nbt.d.next = 0.into();
                self.e1_v.d.next = true;
                self.e1_nb.d.next = self.nbt.q.val();
                self.e1_cnt.d.next = self.kc.count.val();
                self.e1_v2.d.next = 0.into();
                if self.vl.t1.val() {
                    self.e1_v2.d.next = 1.into();
                    if self.vl.t2.val() {
                        self.e1_v2.d.next = 2.into();
                    }
                }
            } else {
                self.bi.d.next = self.step.y.val();
                self.nbt.d.next = self.nbt.q.val() + 1;
            }
        }
        self.e2_v.d.next = self.e1_v.q.val();
        self.len16.next = (self.e1_nb.q.val() << self.c_ksh.val()) + bit_cast::<16, 8>(self.e1_cnt.q.val());
        self.e2_w.d.next = bit_cast::<18, 16>(self.len16.val()) | (bit_cast::<18, 2>(self.e1_v2.q.val()) << 16);
        self.dq.s_valid.next = self.e2_v.q.val();
        self.dq.s_data.next = self.e2_w.q.val();
        // The frame at the head of the queue: its length, VLAN tags, whether
        // it can carry a tag (a byte at `12 + 4v`: the model's `taggable`),
        // whether its bytes fit the ring's budget (registered).
        self.d_len.next = self.dq.m_data.val().get_bits::<16>(0);
        self.d_v.next = self.dq.m_data.val().get_bits::<2>(16);
        self.tagg.next = self.d_len.val() > (bit_cast::<16, 2>(self.d_v.val()) << 2) + 12;
        self.tagg_r.d.next = self.tagg.val();
        // (`used + len + 5 <= RING_BYTES` as `len <= room`, the room a
        // register behind `used`: a pick pops the queue two cycles on, so
        // the next head meets the room its push left; a free is seen a
        // cycle later than the byte count.)
        self.rb5.d.next = bit_cast::<26, 24>(self.tcfg.ring_bytes.val()) - 5;
        self.ring_room.d.next = self.rb5.q.val() - bit_cast::<26, 24>(self.used.q.val());
        self.fits_r.d.next = !self.ring_room.q.val().get_bit(25) & (bit_cast::<26, 16>(self.d_len.val()) <= self.ring_room.q.val());
        self.dqv_r.d.next = self.dq.m_valid.val();
        // ================================================= the peer
        // An ACK's `latest` or a LOSS's moves `leadingAck` (the model's
        // `lead`: not for a number not yet sent); a LOSS's range is queued;
        // PFC pauses the normal frames.
        // A LOSS is taken once the head processor has settled (its range then
        // meets the frames as the model's `on_loss` does: pushed, then the
        // head processor), and not beside an ACK.
        self.peer.pl_ready.next = self.rf.s_ready.val()
            & !self.peer.pa_valid.val()
            & (self.hs.q.val() == Ht::Idle)
            & !self.hp_go_r.q.val()
            & !self.ev_d1.q.val()
            & !self.ev_d2.q.val()
            & (self.os.q.val() != Ot::Dec);
        // The event, registered; it takes effect the cycle after.
        self.ld_v.d.next = false;
        self.ld_loss.d.next = false;
        self.ld_s.d.next = self.peer.pa_seq.val();
        self.ld_first.d.next = self.peer.pl_first.val();
        self.ld_hole.d.next = self.peer.pl_hole.val();
        if self.peer.pa_valid.val() {
            self.ld_v.d.next = true;
            self.c_ack_rx.d.next = self.c_ack_rx.q.val() + 1;
        }
        if self.peer.pl_valid.val() & self.peer.pl_ready.val() {
            self.ld_v.d.next = true;
            self.ld_loss.d.next = true;
            self.ld_s.d.next = self.peer.pl_latest.val();
            self.c_loss_rx.d.next = self.c_loss_rx.q.val() + 1;
        }
        if self.peer.pp_valid.val() {
            self.paused_r.d.next = self.peer.pp_pause.val();
        }
        // A LOSS's range queued; stale when its first number is behind the
        // oldest kept frame (or, none kept, behind the next to send).
        self.rf.s_valid.next = self.ld_loss.q.val();
        self.rf.s_data.next = bit_cast::<25, 17>(self.ld_first.q.val()) | (bit_cast::<25, 8>(self.ld_hole.q.val()) << 17);
        self.st_d.next = self.ld_first.q.val() - self.head.q.val();
        if self.ld_loss.q.val() & self.st_d.val().get_bit(16) {
            self.c_stale.d.next = self.c_stale.q.val() + 1;
        }
        // `leadingAck` (the model's `lead`).
        self.lead_d.next = self.ld_s.q.val() - self.next.q.val();
        self.lead_a.next = self.ld_s.q.val() - self.acked.q.val();
        if self.ld_v.q.val() & (self.lead_d.val().get_bit(16) | self.lead_d.val().get_bit(15)) {
            if !self.acked_v.q.val() | !self.lead_a.val().get_bit(16) {
                self.acked.d.next = self.ld_s.q.val();
            }
            self.acked_v.d.next = true;
        }
        self.ev_now.next = self.peer.pa_valid.val() | (self.peer.pl_valid.val() & self.peer.pl_ready.val()) | self.peer.pp_valid.val();
        self.ev_d1.d.next = self.ev_now.val();
        self.ev_d2.d.next = self.ev_d1.q.val();
        // ================================================= the head processor
        // Work: a kept frame (`head != next`) at or behind `leadingAck`.
        self.hp_d.next = self.acked.q.val() - self.head.q.val();
        self.hp_go_r.d.next = self.acked_v.q.val() & (self.head.q.val() != self.next.q.val()) & !self.hp_d.val().get_bit(16);
        self.lens.read_enable.next = false;
        self.lens.read_address.next = self.head.q.val().get_bits::<15>(0) & self.c_fmask.val();
        self.rf.m_ready.next = false;
        self.rq.s_valid.next = false;
        self.rq.s_data.next = self.head.q.val();
        self.fq.s_valid.next = false;
        self.fq.s_data.next = self.head.q.val().get_bits::<15>(0) & self.c_fmask.val();
        // (Not while a pick's action waits for the store: a frame is let go
        // only once the store has taken its SEND_KEEP, whatever the peer
        // acknowledges.)
        if (self.hs.q.val() == Ht::Idle)
            & self.hp_go_r.q.val()
            & !self.ev_d1.q.val()
            & !self.ev_d2.q.val()
            & (self.os.q.val() != Ot::Dec)
            & (self.os.q.val() != Ot::Act)
        {
            self.lens.read_enable.next = true;
            self.hs.d.next = Ht::Read;
        }
        if self.hs.q.val() == Ht::Read {
            self.h_len.d.next = self.lens.read_data.val();
            self.hs.d.next = Ht::Req;
        }
        // No request range at all: the frame is let go at once (Dist and
        // Done skipped: four cycles a frame, not six).
        self.h_fast.next = (self.hs.q.val() == Ht::Req) & !self.rf.m_valid.val() & !self.rf_n.q.val().any();
        if (self.hs.q.val() == Ht::Req) & self.rf.m_valid.val() {
            self.h_valid.d.next = self.rf.m_valid.val();
            self.h_first.d.next = self.rf.m_data.val().get_bits::<17>(0);
            self.h_end.d.next = self.rf.m_data.val().get_bits::<17>(0) + bit_cast::<17, 8>(self.rf.m_data.val().get_bits::<8>(17));
            self.hs.d.next = Ht::Dist;
        }
        self.d_he.next = self.head.q.val() - self.h_end.q.val();
        self.d_hf.next = self.head.q.val() - self.h_first.q.val();
        if self.hs.q.val() == Ht::Dist {
            // Behind the range's end (`end <= s`): the range is done; inside
            // it (`first <= s < end`): requested.
            self.h_behind.d.next = !self.d_he.val().get_bit(16);
            self.h_inside.d.next = !self.d_hf.val().get_bit(16) & self.d_he.val().get_bit(16);
            self.hs.d.next = Ht::Done;
        }
        if (self.hs.q.val() == Ht::Done) & self.h_valid.q.val() & self.h_behind.q.val() {
            self.rf.m_ready.next = true;
            self.hs.d.next = Ht::Req;
        }
        if self.h_fast.val() | ((self.hs.q.val() == Ht::Done) & !(self.h_valid.q.val() & self.h_behind.q.val())) {
            // Out of the byte count; then retransmitted and let go, or let
            // go now.
            self.used.d.next = self.used.q.val() - bit_cast::<24, 16>(self.h_len.q.val()) - 5;
            self.c_freed.d.next = self.c_freed.q.val() + 1;
            if !self.h_fast.val() & self.h_valid.q.val() & self.h_inside.q.val() & self.tcfg.copies.val().any() {
                self.rq.s_valid.next = true;
                self.c_rframes.d.next = self.c_rframes.q.val() + 1;
            } else {
                self.fq.s_valid.next = true;
            }
            self.head.d.next = self.head.q.val() + 1;
            self.hs.d.next = Ht::Wait;
        }
        if self.hs.q.val() == Ht::Wait {
            self.hs.d.next = Ht::Idle;
        }
        // ================================================= picks
        // Only when the head processor and the peer's events have settled
        // (two cycles), so a pick sees what the model's sees.
        self.calm.d.next =
            (self.hs.q.val() == Ht::Idle) & !self.hp_go_r.q.val() & !self.ev_d1.q.val() & !self.ev_d2.q.val() & !self.ev_now.val();
        // (Not beside a peer's event either: the event then meets the state
        // before any pick, as the pick meets the state before the event.)
        self.due_r.d.next = self.tcfg.tx_en.val()
            & self.tcfg.rx_en.val()
            & self.tcfg.ack_every.val().any()
            & (self.since.q.val() >= self.tcfg.ack_every.val());
        self.dummy_ok.next =
            self.tcfg.tx_en.val() & (!self.tcfg.dummy_max.val().any() | (self.dummies.q.val() < self.tcfg.dummy_max.val()));
        // (The model's `pick`: with the sender side on, a frame waits for a
        // pause or the ring's bytes whether or not it can carry a tag.)
        self.send_ok.next = !self.tcfg.tx_en.val() | (!self.paused_r.q.val() & self.fits_r.q.val());
        // While a ring frame still streams out of the store only a pick
        // that will be a ring frame (RETX, a normal frame) may come: a
        // template's beats would meet the frame's.
        self.ring_ok.next = !self.note.p_valid.val()
            & !self.note.l_valid.val()
            & (self.rq.m_valid.val()
                | (!(self.due_r.q.val() & self.note.ack_valid.val()) & self.dq.m_valid.val() & self.dqv_r.q.val() & self.send_ok.val()));
        // `!ev_now` with the LOSS's ready reduced under this AND's other
        // terms (`os` idle, `calm` — so neither `ev_d1` nor `ev_d2` —, the
        // head processor idle): there `pl_ready` is `rf.s_ready &
        // !pa_valid`, so the event is `pa_valid | pp_valid | pl_valid &
        // rf.s_ready`. Issue 14: the state -> `pl_ready` -> `ev_now` ->
        // `can_pick` -> keep-alive clear chain was `ts_protego_tx`'s path.
        self.ev_calm.next = self.peer.pa_valid.val() | self.peer.pp_valid.val() | (self.peer.pl_valid.val() & self.rf.s_ready.val());
        self.can_pick.next = (self.os.q.val() == Ot::Idle)
            & self.calm.q.val()
            & !self.ev_calm.val()
            & !self.fl_first.q.val()
            & (self.hs.q.val() == Ht::Idle)
            & !self.hp_go_r.q.val()
            & (self.rq.m_valid.val() | !self.rq_pend.q.val())
            & (!self.fl_n.q.val().any() | self.ring_ok.val());
        // Templates: destination, this port's MAC, EtherType.
        self.macl.mac.next = self.tcfg.mac.val();
        self.base.next = self.c_dst_ctl.val() | (bit_cast::<512, 48>(self.macl.lanes.val()) << 48) | self.c_et_ctl.val();
        self.cls1h.next = self.c_one8.val() << self.tcfg.pfc_class.val();
        self.qsh.next = (bit_cast::<16, 3>(self.tcfg.pfc_class.val()) << 4) + 144;
        self.note.p_ready.next = false;
        self.note.l_ready.next = false;
        self.note.ack_take.next = false;
        self.dq.m_ready.next = self.dq_pop.q.val();
        self.dq_pop.d.next = false;
        // (The queues' pops registered too, a cycle after their use; the next
        // pick comes later.)
        self.rq.m_ready.next = self.rq_pop.q.val();
        self.rq_pop.d.next = false;
        self.fq.m_ready.next = self.fq_pop.q.val();
        self.fq_pop.d.next = false;
        self.lens.write_enable.next = false;
        self.lens.write_address.next = self.next.q.val().get_bits::<15>(0) & self.c_fmask.val();
        self.lens.write_data.next = self.d_len.val();
        self.ev_n.d.next = self.ev_n.q.val();
        if self.can_pick.val() {
            self.ev_n.d.next = self.dq.m_valid.val() & self.dqv_r.q.val();
        }
        // The pick: decided in one cycle (the choice, the notes' values and
        // what the normal frame will be, registered), carried out in the next
        // (`Dec`).
        self.ch.next = 0.into();
        self.ev_r.d.next = 0.into();
        if self.can_pick.val() {
            self.k_pause.d.next = self.note.p_pause.val();
            self.k_first.d.next = self.note.l_first.val();
            self.k_hole.d.next = self.note.l_hole.val();
            self.k_latest.d.next = self.note.l_latest.val();
            self.k_ack.d.next = self.note.ack_seq.val();
            self.k_data.d.next = self.tcfg.tx_en.val() & self.tagg_r.q.val();
            self.k_untag.d.next = self.tcfg.tx_en.val() & !self.tagg_r.q.val();
            self.k_piggy.d.next = !self.tcfg.tx_en.val() & self.tcfg.rx_en.val() & self.note.ack_valid.val();
            if self.note.p_valid.val() {
                self.ch.next = 1.into();
            } else if self.note.l_valid.val() {
                self.ch.next = 2.into();
            } else if self.rq.m_valid.val() {
                // A copy of the oldest requested frame.
                self.ch.next = 3.into();
            } else if self.due_r.q.val() & self.note.ack_valid.val() {
                // Decision 15: both sides on, the ACK waited `ack_every`
                // normal frames.
                self.ch.next = 5.into();
            } else if self.dq.m_valid.val() & self.dqv_r.q.val() & self.send_ok.val() {
                self.ch.next = 4.into();
            } else {
                if self.dq.m_valid.val() & self.dqv_r.q.val() {
                    self.c_paused.d.next = self.c_paused.q.val() + 1;
                }
                if self.tcfg.rx_en.val() & self.note.ack_valid.val() {
                    self.ch.next = 5.into();
                } else if self.dummy_ok.val() {
                    self.ch.next = 6.into();
                }
            }
            self.ch_r.d.next = self.ch.val();
            if self.ch.val().any() {
                self.os.d.next = Ot::Dec;
                self.fl_first.d.next = true;
            }
            // What was picked, for test benches.
            self.ev_r.d.next = self.ch.val();
        }
        // Decision 16 (the model's `ProtegoPort::pick_at`): quiet since the
        // last frame picked other than a dummy (a registered pick: a cycle
        // late); settled, after `ka_cycles` with numbers waiting for their
        // ACK (`leadingAck` behind the last number sent; due registered),
        // the dummies start again, asking.
        self.acked1.next = self.acked.q.val() + 1;
        self.waiting.next =
            (self.acked_v.q.val() & (self.acked1.val() != self.next.q.val())) | (!self.acked_v.q.val() & self.next.q.val().any());
        self.ka_due.d.next = self.waiting.val() & (self.quiet.q.val() >= self.tcfg.ka_cycles.val());
        self.ka_ev.d.next = false;
        if !self.quiet.q.val().all() {
            self.quiet.d.next = self.quiet.q.val() + 1;
        }
        if self.ev_r.q.val().any() & (self.ev_r.q.val() != 6) {
            self.quiet.d.next = 0.into();
        }
        if self.can_pick.val() & self.tcfg.tx_en.val() & self.ka_due.q.val() {
            self.quiet.d.next = 0.into();
            self.ka_due.d.next = false;
            self.dummies.d.next = 0.into();
            self.ka.d.next = true;
            self.ka_ev.d.next = true;
            self.c_ka.d.next = self.c_ka.q.val() + 1;
        }
        if self.os.q.val() == Ot::Dec {
            self.os.d.next = Ot::Idle;
            self.skip_r.d.next = false;
            self.tleft.d.next = self.c_b55.val();
            self.t_last.d.next = self.c_b55.val() == 1;
            self.t60.d.next = false;
            self.o_last.d.next = false;
            if self.ch_r.q.val() == 1 {
                self.note.p_ready.next = true;
                self.c_pfc.d.next = self.c_pfc.q.val() + 1;
                self.skip_r.d.next = true;
                self.tleft.d.next = self.c_b60.val();
                self.t_last.d.next = self.c_b60.val() == 1;
                self.t60.d.next = true;
                self.tpl.d.next = self.c_dst_pfc.val()
                    | (bit_cast::<512, 48>(self.macl.lanes.val()) << 48)
                    | self.c_et_pfc.val()
                    | (bit_cast::<512, 8>(self.cls1h.val()) << 136);
                if self.k_pause.q.val() {
                    self.tpl.d.next = self.c_dst_pfc.val()
                        | (bit_cast::<512, 48>(self.macl.lanes.val()) << 48)
                        | self.c_et_pfc.val()
                        | (bit_cast::<512, 8>(self.cls1h.val()) << 136)
                        | (self.c_quanta.val() << self.qsh.val());
                }
                self.os.d.next = Ot::Tpl;
            } else if self.ch_r.q.val() == 2 {
                self.note.l_ready.next = true;
                self.c_loss.d.next = self.c_loss.q.val() + 1;
                self.tag_r.d.next = ((bit_cast::<24, 17>(self.k_first.q.val()) & 0x1_0000) << 5)
                    | (bit_cast::<24, 17>(self.k_first.q.val()) & 0xFFFF)
                    | 0xC0_0000;
                self.tpl.d.next = self.base.val()
                    | (bit_cast::<512, 8>(self.k_hole.q.val()) << 112)
                    | (bit_cast::<512, 8>(self.k_latest.q.val().get_bits::<8>(8)) << 120)
                    | (bit_cast::<512, 8>(self.k_latest.q.val().get_bits::<8>(0)) << 128)
                    | ((bit_cast::<512, 17>(self.k_latest.q.val()) >> 16) << 136);
                self.os.d.next = Ot::Tpl;
            } else if self.ch_r.q.val() == 3 {
                // A copy of the oldest requested frame.
                self.c_retx.d.next = self.c_retx.q.val() + 1;
                self.a_op.d.next = 5.into();
                self.a_slot.d.next = self.rq.m_data.val().get_bits::<15>(0) & self.c_fmask.val();
                self.tag_r.d.next = ((bit_cast::<24, 17>(self.rq.m_data.val()) & 0x1_0000) << 5)
                    | (bit_cast::<24, 17>(self.rq.m_data.val()) & 0xFFFF)
                    | 0x40_0000;
                // Its copies counted as they are picked: the last one takes
                // it off the queue (the pop registered: the next pick comes
                // after this one's first beat) and lets it go once the store
                // has taken its REPLAY.
                self.cp_left.d.next = self.cp_left.q.val() - 1;
                if !self.cp_left.q.val().any() {
                    self.cp_left.d.next = self.tcfg.copies.val() - 1;
                }
                if (self.cp_left.q.val() == 1) | (!self.cp_left.q.val().any() & (self.tcfg.copies.val() == 1)) {
                    self.rq_pop.d.next = true;
                    self.o_last.d.next = true;
                }
                self.os.d.next = Ot::Act;
            } else if self.ch_r.q.val() == 4 {
                self.dq_pop.d.next = true;
                if self.since.q.val() != 255 {
                    self.since.d.next = self.since.q.val() + 1;
                }
                self.a_op.d.next = 0.into();
                self.skip_r.d.next = true;
                if self.k_data.q.val() {
                    // DATA: tagged, numbered, kept for its slot.
                    self.a_op.d.next = 4.into();
                    self.a_slot.d.next = self.next.q.val().get_bits::<15>(0) & self.c_fmask.val();
                    self.skip_r.d.next = false;
                    self.tag_r.d.next =
                        ((bit_cast::<24, 17>(self.next.q.val()) & 0x1_0000) << 5) | (bit_cast::<24, 17>(self.next.q.val()) & 0xFFFF);
                    self.next.d.next = self.next.q.val() + 1;
                    self.used.d.next = self.used.q.val() + bit_cast::<24, 16>(self.d_len.val()) + 5;
                    self.lens.write_enable.next = true;
                    self.c_data.d.next = self.c_data.q.val() + 1;
                    self.dummies.d.next = 0.into();
                    self.ka.d.next = false;
                } else if self.k_untag.q.val() {
                    self.c_untag.d.next = self.c_untag.q.val() + 1;
                } else if self.k_piggy.q.val() {
                    // The receiver's ACK on a normal frame.
                    self.note.ack_take.next = true;
                    self.c_ack_p.d.next = self.c_ack_p.q.val() + 1;
                    self.skip_r.d.next = false;
                    self.tag_r.d.next = ((bit_cast::<24, 17>(self.k_ack.q.val()) & 0x1_0000) << 5)
                        | (bit_cast::<24, 17>(self.k_ack.q.val()) & 0xFFFF)
                        | 0x80_0000;
                }
                self.os.d.next = Ot::Act;
            } else if self.ch_r.q.val() == 5 {
                self.note.ack_take.next = true;
                self.since.d.next = 0.into();
                self.c_ack_x.d.next = self.c_ack_x.q.val() + 1;
                self.tag_r.d.next = ((bit_cast::<24, 17>(self.k_ack.q.val()) & 0x1_0000) << 5)
                    | (bit_cast::<24, 17>(self.k_ack.q.val()) & 0xFFFF)
                    | 0x80_0000;
                self.tpl.d.next = self.base.val();
                self.os.d.next = Ot::Tpl;
            } else if self.ch_r.q.val() == 6 {
                self.dummies.d.next = self.dummies.q.val() + 1;
                self.c_dummy.d.next = self.c_dummy.q.val() + 1;
                self.tag_r.d.next =
                    ((bit_cast::<24, 17>(self.next.q.val()) & 0x1_0000) << 5) | (bit_cast::<24, 17>(self.next.q.val()) & 0xFFFF);
                // A keepalive's dummy asks for an ACK (its first body byte 1).
                self.tpl.d.next = self.base.val();
                if self.ka.q.val() {
                    self.tpl.d.next = self.base.val() | (bit_cast::<512, 8>(self.c_one8.val()) << 112);
                }
                self.os.d.next = Ot::Tpl;
            }
        }
        if bit_cast::<32, 24>(self.used.q.val()) > self.c_high.q.val() {
            self.c_high.d.next = bit_cast::<32, 24>(self.used.q.val());
        }
        // ================================================= the output
        // The store's actions: a FREE first (the head processor's, a RETX's
        // last copy's; the store takes it between frames), then the pick's
        // (SEND_KEEP, DELIVER, REPLAY), whose frame then streams out on its
        // own while the next pick is made; or the template's beats.
        if !self.fv.q.val() {
            if self.lc_v.q.val() {
                self.fv.d.next = true;
                self.f_slot.d.next = self.lc_slot.q.val();
                self.lc_v.d.next = false;
            } else if self.fq.m_valid.val() & !self.fq_pop.q.val() {
                self.fv.d.next = true;
                self.f_slot.d.next = self.fq.m_data.val();
                self.fq_pop.d.next = true;
            }
        }
        self.st.a_valid.next = self.fv.q.val() | (self.os.q.val() == Ot::Act);
        self.st.a_op.next = self.a_op.q.val();
        self.st.a_slot.next = self.a_slot.q.val();
        if self.fv.q.val() {
            self.st.a_op.next = 6.into();
            self.st.a_slot.next = self.f_slot.q.val();
        }
        self.st_take.next = self.st.m.tvalid.val() & self.pre.s.tready.val() & (self.os.q.val() != Ot::Tpl);
        if self.st_take.val() & self.st.m.tlast.val() {
            self.fl_n.d.next = self.fl_n.q.val() - 1;
        }
        if self.fv.q.val() & self.st.a_ready.val() {
            self.fv.d.next = false;
        }
        if !self.fv.q.val() & (self.os.q.val() == Ot::Act) & self.st.a_ready.val() {
            self.os.d.next = Ot::Idle;
            self.fl_n.d.next = self.fl_n.q.val() + 1;
            if self.st_take.val() & self.st.m.tlast.val() {
                self.fl_n.d.next = self.fl_n.q.val();
            }
            if self.o_last.q.val() {
                self.lc_v.d.next = true;
                self.lc_slot.d.next = self.a_slot.q.val();
            }
        }
        self.ins.s_tag.next = self.tag_r.q.val();
        self.ins.s_skip.next = self.skip_r.q.val();
        self.beat_keep.next = self.c_kones.val();
        if self.t_last.q.val() {
            self.beat_keep.next = self.c_k55.val();
            if self.t60.q.val() {
                self.beat_keep.next = self.c_k60.val();
            }
        }
        self.pre.s.tdata.next = self.st.m.tdata.val();
        self.pre.s.tkeep.next = self.st.m.tkeep.val();
        self.pre.s.tlast.next = self.st.m.tlast.val();
        self.pre.s.tuser.next = self.st.m.tuser.val();
        self.pre.s.tvalid.next = self.st.m.tvalid.val() & (self.os.q.val() != Ot::Tpl);
        self.st.m.tready.next = self.pre.s.tready.val() & (self.os.q.val() != Ot::Tpl);
        if self.os.q.val() == Ot::Tpl {
            self.pre.s.tdata.next = bit_cast::<D, 512>(self.tpl.q.val());
            self.pre.s.tkeep.next = self.beat_keep.val();
            self.pre.s.tlast.next = self.t_last.q.val();
            self.pre.s.tuser.next = 0.into();
            self.pre.s.tvalid.next = true;
        }
        self.ins_take.next = self.pre.s.tvalid.val() & self.pre.s.tready.val();
        if (self.os.q.val() == Ot::Tpl) & self.ins_take.val() {
            self.tpl.d.next = self.tpl.q.val() >> self.c_dsh.val();
            self.tleft.d.next = self.tleft.q.val() - 1;
            self.t_last.d.next = self.tleft.q.val() == 2;
            if self.t_last.q.val() {
                self.os.d.next = Ot::Idle;
            }
        }
        // A beat into the inserter; a first beat (`imid` low) lets the next
        // pick set `tag_r`.
        self.first_in.next = self.pre.m.tvalid.val() & self.ins.s.tready.val();
        if self.first_in.val() {
            self.imid.d.next = !self.pre.m.tlast.val();
            if !self.imid.q.val() {
                self.fl_first.d.next = false;
            }
        }
        if self.rf.s_valid.val() & !self.rf.m_ready.val() {
            self.rf_n.d.next = self.rf_n.q.val() + 1;
        }
        if !self.rf.s_valid.val() & self.rf.m_ready.val() {
            self.rf_n.d.next = self.rf_n.q.val() - 1;
        }
        // (Registered: a pick comes at least two cycles after a push.)
        self.rq_pend.d.next = self.rq_n.q.val().any();
        if self.rq.s_valid.val() & !self.rq.m_ready.val() {
            self.rq_n.d.next = self.rq_n.q.val() + 1;
        }
        if !self.rq.s_valid.val() & self.rq.m_ready.val() {
            self.rq_n.d.next = self.rq_n.q.val() - 1;
        }
        AxisSource::<D, K, U>::join(&mut self.pre.m, &mut self.ins.s);
        AxisSource::<D, K, U>::join(&mut self.ins.m, &mut self.skid.s);
        AxisSource::<D, K, U>::link(&mut self.m, &mut self.skid.m);
        // ================================================= outputs
        self.ev_pick.next = self.ev_r.q.val();
        self.ev_nrm.next = self.ev_n.q.val();
        self.ev_ka.next = self.ka_ev.q.val();
        self.tstats.n_data.next = self.c_data.q.val();
        self.tstats.n_retx.next = self.c_retx.q.val();
        self.tstats.n_dummy.next = self.c_dummy.q.val();
        self.tstats.n_ack_explicit.next = self.c_ack_x.q.val();
        self.tstats.n_ack_piggy.next = self.c_ack_p.q.val();
        self.tstats.n_loss_sent.next = self.c_loss.q.val();
        self.tstats.n_pfc_sent.next = self.c_pfc.q.val();
        self.tstats.n_ack_rx.next = self.c_ack_rx.q.val();
        self.tstats.n_loss_rx.next = self.c_loss_rx.q.val();
        self.tstats.n_loss_stale.next = self.c_stale.q.val();
        self.tstats.n_freed.next = self.c_freed.q.val();
        self.tstats.n_untaggable.next = self.c_untag.q.val();
        self.tstats.n_retx_frames.next = self.c_rframes.q.val();
        self.tstats.n_paused.next = self.c_paused.q.val();
        self.tstats.n_keepalive.next = self.c_ka.q.val();
        self.tstats.ring_used.next = self.used.q.val();
        self.tstats.ring_high.next = self.c_high.q.val();
        self.tstats.next_seq.next = self.next.q.val();
        self.tstats.paused.next = self.paused_r.q.val();
        self.tstats.ring_words.next = self.st.ring_used.val();
        self.tstats.ring_frames.next = self.st.held.val();
    }
}

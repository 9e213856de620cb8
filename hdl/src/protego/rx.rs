//! `ts_protego_rx`: Protego's receiver side of a port, after `rx_fcs` and
//! before the ingress pipeline (`docs/protego.md`, "The RTL";
//! `PL2-PROTEGO.md` B.4; 004 §3.3, §3.5, Alg. 1-2). Golden model:
//! `trimswitch_sim::model::protego::ProtegoPort::receive`.
//!
//! Frames go through the tag remover ([`super::untag`]) into the frame
//! store ([`super::store`]); beside them a descriptor per frame (what the
//! remover found, the frame's length, and the fields read from its first 34
//! bytes: a LOSS's request, a PFC frame's verdict) waits in a FIFO for the
//! decision engine ([`super::rx_seq`]), whose actions the store carries out.
//! Out come the frames for the ingress pipeline (tags removed, in the
//! order Protego delivers them), and for the port's sender side what the
//! peer said (its ACKs, LOSS requests and PFC) and what this side has to
//! say (the engine's LOSS notifications, pending ACK and PFC events).
//!
//! A PFC frame (MAC control, opcode 0x0101, the class `pfc_class` enabled,
//! long enough for its quanta: the model's `pfc_of`) ends here when either
//! side of Protego is on (`tx_en | rx_en`); its verdict goes to the sender
//! side (`peer_pp_*`) when that is on. **Decision** (`docs/protego.md`,
//! decision 13): with both sides off the port is today's switch, PFC frames
//! included.
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset (the
//!   frames inside are dropped; the engine and the store clear their tables,
//!   one cycle per entry, before they take the first frame).
//! - Configuration (the port's registers, B.7): `cfg_*` (the engine's,
//!   [`RxConfig`]), `tx_en` (CTRL.tx: the peer's ACK, LOSS and PFC reach the
//!   sender side), `pfc_class` (3).
//! - `s_*` in, `s_tready` out: frames from `rx_fcs` (good frames, FCS
//!   removed, `tkeep` packed). `s_tready` is low while the store is full
//!   (the MAC side's FIFO absorbs it or drops and counts).
//! - `m_*` out (registered), `m_tready` in: frames for the ingress
//!   pipeline, tags removed, `tuser` as it came but for its `length` (the
//!   frame's, tag removed); `m_bytes` (8) out: the beat's byte count, for
//!   the pipeline's arbiter.
//! - `peer_*` ([`PeerNotes`]): the peer's, for the sender side (registered,
//!   a frame's at the cycle the engine takes its descriptor): `pa_valid` (a
//!   pulse), `pa_seq` (17): an ACK's `latest`; `pl_valid`, `pl_ready` in,
//!   `pl_first`, `pl_hole`, `pl_latest`: a LOSS (the next frame's descriptor
//!   waits while one is not taken); `pp_valid` (a pulse), `pp_pause`: PFC.
//! - This side's, for the sender side to send: the engine's `note_*`
//!   ([`RxNotes`]: LOSS, the pending ACK, PFC).
//! - `d_take`: a pulse when the engine takes a frame's descriptor (a frame
//!   decided; not registered: for test benches and probes); `busy`,
//!   `ev_timeout`: the engine's.
//! - State and counters: the engine's `stats_*` ([`RxStats`]), the
//!   store's `ring_used`, `held`, and `ring_high` (16: the most words the
//!   ring has held).
//!
//! The engine's actions reach the store through a FIFO of
//! [`ACTIONS`] (the store takes one when it has streamed the frames
//! before): the engine goes on deciding while the store streams, so the
//! peer's LOSS behind a run of released frames reaches the sender side at
//! once, not after them (the retransmission delay, `docs/protego.md`,
//! "The port").
//!
//! Latency: a frame whose action is DELIVER leaves once its last beat is
//! in the store, its descriptor has gone through three stages, the FIFO,
//! the engine and the action FIFO, and the store has looked it up (two
//! cycles; then a word a cycle). Rate: the engine's, 5 cycles an in-order
//! frame (`tests/protego/rx.rs` measures it; docs/protego.md, "Rate").
use super::rx_seq::{ProtegoRxSeq, RxConfig, RxNotes, RxStats};
use super::store::ProtegoStore;
use super::untag::ProtegoTagRm;
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::prim::fifo::SyncFifo;
use crate::prim::widgets::{DffR, KeepCount};
use rust_hdl::prelude::*;

/// Bytes 12..34 of a frame, captured for its descriptor: a PFC frame's
/// opcode, class vector and quanta, a LOSS's fields after 0..2 VLAN tags.
const HDR0: usize = 12;
const HDR: usize = 22;

/// A descriptor in the FIFO (fields at literal offsets in `update`): the
/// frame's length (15:0), `seq` (32:16, era in 32), kind (34:33), tagged
/// (35), truncated (36), control (37), a LOSS short of its fields (38), PFC
/// (39), its verdict (40: pause), a LOSS's hole (48:41) and `latest`
/// (65:49).
const DESC_BITS: usize = 66;

/// Descriptors under way between the link's `tready` and the FIFO: the
/// three stages, and two for `s_ready`'s own cycle behind.
const SLACK: usize = 5;

/// Actions the engine may be ahead of the store.
pub const ACTIONS: usize = 64;

/// What the peer said, for the port's sender side (`peer_*` ports; from
/// [`ProtegoRx`], to `ts_protego_tx`): an ACK's `latest` (`pa_valid`, a
/// pulse, `pa_seq`), a LOSS (`pl_valid`, `pl_ready` in, `pl_first`,
/// `pl_hole`, `pl_latest`), PFC (`pp_valid`, a pulse, `pp_pause`).
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "PeerNotesIn"]
pub struct PeerNotes {
    pub pa_valid: Signal<Out, Bit>,
    pub pa_seq: Signal<Out, Bits<17>>,
    pub pl_valid: Signal<Out, Bit>,
    pub pl_ready: Signal<In, Bit>,
    pub pl_first: Signal<Out, Bits<17>>,
    pub pl_hole: Signal<Out, Bits<8>>,
    pub pl_latest: Signal<Out, Bits<17>>,
    pub pp_valid: Signal<Out, Bit>,
    pub pp_pause: Signal<Out, Bit>,
}

/// The sender side's end of [`PeerNotes`].
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "PeerNotes"]
pub struct PeerNotesIn {
    pub pa_valid: Signal<In, Bit>,
    pub pa_seq: Signal<In, Bits<17>>,
    pub pl_valid: Signal<In, Bit>,
    pub pl_ready: Signal<Out, Bit>,
    pub pl_first: Signal<In, Bits<17>>,
    pub pl_hole: Signal<In, Bits<8>>,
    pub pl_latest: Signal<In, Bits<17>>,
    pub pp_valid: Signal<In, Bit>,
    pub pp_pause: Signal<In, Bit>,
}

/// The receiver side (module documentation).
#[derive(LogicBlock)]
pub struct ProtegoRx<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub cfg: RxConfig,
    pub tx_en: Signal<In, Bit>,
    pub pfc_class: Signal<In, Bits<3>>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub m_bytes: Signal<Out, Bits<8>>,
    pub peer: PeerNotes,
    pub note: RxNotes,
    pub d_take: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    pub ev_timeout: Signal<Out, Bit>,
    pub stats: RxStats,
    pub ring_used: Signal<Out, Bits<16>>,
    pub held: Signal<Out, Bits<16>>,
    pub ring_high: Signal<Out, Bits<16>>,
    rm: ProtegoTagRm<D, K, U>,
    store: ProtegoStore<D, K, U>,
    seq: ProtegoRxSeq,
    dq: SyncFifo<Bits<DESC_BITS>>,
    /// The engine's actions for the store: op (16:15), slot (14:0).
    aq: SyncFifo<Bits<17>>,
    // ---- stage 0: the beats going into the store
    /// The beat's index in its frame (held at 7), the beats before it.
    bix: DffR<Bits<3>>,
    nbt: DffR<Bits<16>>,
    /// Bytes `HDR0 + j` of the frame, each from its beat as it passes.
    cap: Vec<DFF<Bits<8>>>,
    kc: KeepCount<K, 8>,
    // ---- stage 1: a frame's last beat went in
    e1_v: DffR<Bit>,
    e1_nb: DFF<Bits<16>>,
    e1_cnt: DFF<Bits<8>>,
    e1_tagged: DFF<Bit>,
    e1_trunc: DFF<Bit>,
    e1_tag: DFF<Bits<24>>,
    e1_ctrl: DFF<Bit>,
    e1_v2: DFF<Bits<2>>,
    // ---- stage 2: its length, the PFC tests, the LOSS fields
    e2_v: DffR<Bit>,
    e2_len: DFF<Bits<16>>,
    e2_tagged: DFF<Bit>,
    e2_trunc: DFF<Bit>,
    e2_tag: DFF<Bits<24>>,
    e2_ctrl: DFF<Bit>,
    e2_v2: DFF<Bits<2>>,
    /// MAC control and the PFC opcode; the class enabled; per class, its
    /// quanta not zero.
    e2_op: DFF<Bit>,
    e2_en: DFF<Bit>,
    e2_qnz: DFF<Bits<8>>,
    e2_hole: DFF<Bits<8>>,
    e2_latest: DFF<Bits<17>>,
    // ---- stage 3: the descriptor
    e3_v: DffR<Bit>,
    e3_w: DFF<Bits<DESC_BITS>>,
    // ---- the peer's events
    pa_v: DffR<Bit>,
    pa_s: DFF<Bits<17>>,
    pl_v: DffR<Bit>,
    pl_f: DFF<Bits<17>>,
    pl_h: DFF<Bits<8>>,
    pl_l: DFF<Bits<17>>,
    pp_v: DffR<Bit>,
    pp_p: DFF<Bit>,
    hi: DffR<Bits<16>>,
    // ---- combinational
    hs: Signal<Local, Bit>,
    droom: Signal<Local, Bit>,
    dword: Signal<Local, Bits<DESC_BITS>>,
    hold: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    d_tagged: Signal<Local, Bit>,
    d_kind: Signal<Local, Bits<2>>,
    d_loss: Signal<Local, Bit>,
    w: Signal<Local, Bits<DESC_BITS>>,
    seq17: Signal<Local, Bits<17>>,
    lat: Signal<Local, Bits<17>>,
    lat_era: Signal<Local, Bit>,
    qnz: Signal<Local, Bits<8>>,
    /// Per captured byte: its beat, its bit offset in that beat.
    c_cb: Vec<Constant<Bits<3>>>,
    c_cl: Vec<Constant<Bits<16>>>,
    c_ksh: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const U: usize> ProtegoRx<D, K, U> {
    /// The receiver side with its tables: `slots` reordering slots and `miss`
    /// requested numbers (the engine), a ring of `words` words holding up to
    /// `frames` frames (the store; `frames` descriptors in the FIFO).
    pub fn new(slots: usize, miss: usize, words: usize, frames: usize) -> Self {
        assert!(K * 8 == D && (8..=64).contains(&K), "ProtegoRx: K = D / 8 in 8..=64");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            tx_en: Default::default(),
            pfc_class: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_bytes: Default::default(),
            peer: Default::default(),
            note: Default::default(),
            d_take: Default::default(),
            busy: Default::default(),
            ev_timeout: Default::default(),
            stats: Default::default(),
            ring_used: Default::default(),
            held: Default::default(),
            ring_high: Default::default(),
            rm: Default::default(),
            store: ProtegoStore::new(words, frames, slots),
            seq: ProtegoRxSeq::new(slots, miss),
            dq: SyncFifo::new(frames.max(2 * SLACK), SLACK),
            aq: SyncFifo::new(ACTIONS, 2),
            bix: Default::default(),
            nbt: Default::default(),
            cap: (0..HDR).map(|_| Default::default()).collect(),
            kc: KeepCount::thermo(),
            e1_v: Default::default(),
            e1_nb: Default::default(),
            e1_cnt: Default::default(),
            e1_tagged: Default::default(),
            e1_trunc: Default::default(),
            e1_tag: Default::default(),
            e1_ctrl: Default::default(),
            e1_v2: Default::default(),
            e2_v: Default::default(),
            e2_len: Default::default(),
            e2_tagged: Default::default(),
            e2_trunc: Default::default(),
            e2_tag: Default::default(),
            e2_ctrl: Default::default(),
            e2_v2: Default::default(),
            e2_op: Default::default(),
            e2_en: Default::default(),
            e2_qnz: Default::default(),
            e2_hole: Default::default(),
            e2_latest: Default::default(),
            e3_v: Default::default(),
            e3_w: Default::default(),
            pa_v: Default::default(),
            pa_s: Default::default(),
            pl_v: Default::default(),
            pl_f: Default::default(),
            pl_h: Default::default(),
            pl_l: Default::default(),
            pp_v: Default::default(),
            pp_p: Default::default(),
            hi: Default::default(),
            hs: Default::default(),
            droom: Default::default(),
            dword: Default::default(),
            hold: Default::default(),
            take: Default::default(),
            d_tagged: Default::default(),
            d_kind: Default::default(),
            d_loss: Default::default(),
            w: Default::default(),
            seq17: Default::default(),
            lat: Default::default(),
            lat_era: Default::default(),
            qnz: Default::default(),
            c_cb: (0..HDR).map(|j| Constant::new((((HDR0 + j) / K) as u64).to_bits())).collect(),
            c_cl: (0..HDR).map(|j| Constant::new(((8 * ((HDR0 + j) % K)) as u64).to_bits())).collect(),
            c_ksh: Constant::new((K.trailing_zeros() as u64).to_bits()),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for ProtegoRx<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, bix, nbt, e1_v, e1_nb, e1_cnt, e1_tagged, e1_trunc, e1_tag, e1_ctrl, e1_v2, e2_v, e2_len, e2_tagged, e2_trunc,
            e2_tag, e2_ctrl, e2_v2, e2_op, e2_en, e2_qnz, e2_hole, e2_latest, e3_v, e3_w, pa_v, pa_s, pl_v, pl_f, pl_h, pl_l, pp_v, pp_p,
            hi
        );
        self.bix.reset.next = self.reset.val();
        self.nbt.reset.next = self.reset.val();
        self.e1_v.reset.next = self.reset.val();
        self.e2_v.reset.next = self.reset.val();
        self.e3_v.reset.next = self.reset.val();
        self.pa_v.reset.next = self.reset.val();
        self.pl_v.reset.next = self.reset.val();
        self.pp_v.reset.next = self.reset.val();
        self.hi.reset.next = self.reset.val();
        self.rm.clock.next = self.clock.val();
        self.rm.reset.next = self.reset.val();
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.seq.clock.next = self.clock.val();
        self.seq.reset.next = self.reset.val();
        self.dq.clock.next = self.clock.val();
        self.dq.reset.next = self.reset.val();
        self.aq.clock.next = self.clock.val();
        self.aq.reset.next = self.reset.val();
        // ================================================= the frames
        AxisSink::<D, K, U>::link(&mut self.s, &mut self.rm.s);
        AxisSource::<D, K, U>::link(&mut self.m, &mut self.store.m);
        self.m_bytes.next = self.store.m_bytes.val();
        // Remover -> store, held while the descriptor FIFO has no room for
        // the descriptors under way.
        self.droom.next = self.dq.s_ready.val();
        self.store.s.tdata.next = self.rm.m.tdata.val();
        self.store.s.tkeep.next = self.rm.m.tkeep.val();
        self.store.s.tlast.next = self.rm.m.tlast.val();
        self.store.s.tuser.next = self.rm.m.tuser.val();
        self.store.s.tvalid.next = self.rm.m.tvalid.val() & self.droom.val();
        self.rm.m.tready.next = self.store.s.tready.val() & self.droom.val();
        self.hs.next = self.rm.m.tvalid.val() & self.store.s.tready.val() & self.droom.val();
        // ================================================= stage 0
        // Each captured byte from its beat; the beats counted.
        for j in 0..HDR {
            self.cap[j].clock.next = self.clock.val();
            self.cap[j].d.next = self.cap[j].q.val();
            if self.hs.val() & (self.bix.q.val() == self.c_cb[j].val()) {
                self.cap[j].d.next = self.rm.m.tdata.val().get_bits::<8>(self.c_cl[j].val().index());
            }
        }
        self.kc.keep.next = self.rm.m.tkeep.val();
        self.e1_v.d.next = false;
        if self.hs.val() {
            if self.rm.m.tlast.val() {
                self.bix.d.next = 0.into();
                self.nbt.d.next = 0.into();
                self.e1_v.d.next = true;
                self.e1_nb.d.next = self.nbt.q.val();
                self.e1_cnt.d.next = self.kc.count.val();
                self.e1_tagged.d.next = self.rm.m_tagged.val();
                self.e1_trunc.d.next = self.rm.m_trunc.val();
                self.e1_tag.d.next = self.rm.m_tag.val();
                self.e1_ctrl.d.next = self.rm.m_ctrl.val();
                self.e1_v2.d.next = self.rm.m_vlans.val();
            } else {
                if !self.bix.q.val().all() {
                    self.bix.d.next = self.bix.q.val() + 1;
                }
                self.nbt.d.next = self.nbt.q.val() + 1;
            }
        }
        // ================================================= stage 1 -> 2
        // The length; MAC control 0x8808 with opcode 0x0101 at bytes 12..16
        // (checked untagged below), the class's bit in byte 17, each class's
        // quanta (bytes 18 + 2c, 19 + 2c); a LOSS's fields at 14 + 4v.
        self.e2_v.d.next = self.e1_v.q.val();
        self.e2_len.d.next = (self.e1_nb.q.val() << self.c_ksh.val()) + bit_cast::<16, 8>(self.e1_cnt.q.val());
        self.e2_tagged.d.next = self.e1_tagged.q.val();
        self.e2_trunc.d.next = self.e1_trunc.q.val();
        self.e2_tag.d.next = self.e1_tag.q.val();
        self.e2_ctrl.d.next = self.e1_ctrl.q.val();
        self.e2_v2.d.next = self.e1_v2.q.val();
        self.e2_op.d.next =
            (self.cap[0].q.val() == 0x88) & (self.cap[1].q.val() == 0x08) & (self.cap[2].q.val() == 0x01) & (self.cap[3].q.val() == 0x01);
        self.e2_en.d.next = self.cap[5].q.val().get_bit(self.pfc_class.val().index());
        self.qnz.next = 0.into();
        for c in 0..8 {
            self.qnz.next = self.qnz.val().replace_bit(c, (self.cap[6 + 2 * c].q.val() | self.cap[7 + 2 * c].q.val()).any());
        }
        self.e2_qnz.d.next = self.qnz.val();
        self.e2_hole.d.next = self.cap[2].q.val();
        self.lat.next = (bit_cast::<17, 8>(self.cap[3].q.val()) << 8) | bit_cast::<17, 8>(self.cap[4].q.val());
        self.lat_era.next = self.cap[5].q.val().get_bit(0);
        if self.e1_v2.q.val() == 1 {
            self.e2_hole.d.next = self.cap[6].q.val();
            self.lat.next = (bit_cast::<17, 8>(self.cap[7].q.val()) << 8) | bit_cast::<17, 8>(self.cap[8].q.val());
            self.lat_era.next = self.cap[9].q.val().get_bit(0);
        }
        if self.e1_v2.q.val() == 2 {
            self.e2_hole.d.next = self.cap[10].q.val();
            self.lat.next = (bit_cast::<17, 8>(self.cap[11].q.val()) << 8) | bit_cast::<17, 8>(self.cap[12].q.val());
            self.lat_era.next = self.cap[13].q.val().get_bit(0);
        }
        self.e2_latest.d.next = self.lat.val().replace_bit(16, self.lat_era.val());
        // ================================================= stage 2 -> 3
        // The descriptor: PFC when untagged with the opcode, the class
        // enabled and its quanta in the frame (20 + 2c bytes); a LOSS short
        // of its fields (18 + 4v bytes).
        self.e3_v.d.next = self.e2_v.q.val();
        self.seq17.next = bit_cast::<17, 16>(self.e2_tag.q.val().get_bits::<16>(0)).replace_bit(16, self.e2_tag.q.val().get_bit(21));
        self.w.next = bit_cast::<66, 16>(self.e2_len.q.val())
            | (bit_cast::<66, 17>(self.seq17.val()) << 16)
            | (bit_cast::<66, 2>(self.e2_tag.q.val().get_bits::<2>(22)) << 33)
            | (bit_cast::<66, 8>(self.e2_hole.q.val()) << 41)
            | (bit_cast::<66, 17>(self.e2_latest.q.val()) << 49);
        self.w.next = self.w.val().replace_bit(35, self.e2_tagged.q.val());
        self.w.next = self.w.val().replace_bit(36, self.e2_trunc.q.val());
        self.w.next = self.w.val().replace_bit(37, self.e2_ctrl.q.val());
        self.w.next = self.w.val().replace_bit(38, self.e2_len.q.val() < (bit_cast::<16, 2>(self.e2_v2.q.val()) << 2) + 18);
        self.w.next = self.w.val().replace_bit(
            39,
            !self.e2_tagged.q.val()
                & self.e2_op.q.val()
                & self.e2_en.q.val()
                & (self.e2_len.q.val() >= (bit_cast::<16, 3>(self.pfc_class.val()) << 1) + 20),
        );
        self.w.next = self.w.val().replace_bit(40, self.e2_qnz.q.val().get_bit(self.pfc_class.val().index()));
        self.e3_w.d.next = self.w.val();
        self.dq.s_valid.next = self.e3_v.q.val();
        self.dq.s_data.next = self.e3_w.q.val();
        // ================================================= the engine
        // A LOSS for the sender side waits while the one before is not taken.
        self.dword.next = self.dq.m_data.val();
        self.d_tagged.next = self.dword.val().get_bit(35);
        self.d_kind.next = self.dword.val().get_bits::<2>(33);
        self.d_loss.next = self.tx_en.val() & self.d_tagged.val() & (self.d_kind.val() == 3) & !self.dword.val().get_bit(38);
        self.hold.next = self.d_loss.val() & self.pl_v.q.val();
        self.seq.d_valid.next = self.dq.m_valid.val() & !self.hold.val();
        self.seq.d_pfc.next = self.dword.val().get_bit(39) & (self.tx_en.val() | self.cfg.rx_en.val());
        self.seq.d_tagged.next = self.d_tagged.val();
        self.seq.d_trunc.next = self.dword.val().get_bit(36);
        self.seq.d_kind.next = self.d_kind.val();
        self.seq.d_seq.next = self.dword.val().get_bits::<17>(16);
        self.seq.d_ctrl.next = self.dword.val().get_bit(37);
        // (A dummy's first body byte where a LOSS has its hole: bit 0 asks
        // for an ACK, decision 16.)
        self.seq.d_ka.next = self.dword.val().get_bit(41);
        self.seq.d_short.next = self.dword.val().get_bit(38);
        self.seq.d_len.next = self.dword.val().get_bits::<16>(0);
        self.take.next = self.dq.m_valid.val() & !self.hold.val() & self.seq.d_ready.val();
        self.dq.m_ready.next = self.take.val();
        self.d_take.next = self.take.val();
        // Its actions, through their FIFO (`s_ready` registered, two words
        // free), carried out by the store.
        self.seq.a_ready.next = self.aq.s_ready.val();
        self.aq.s_valid.next = self.seq.a_valid.val() & self.aq.s_ready.val();
        self.aq.s_data.next = bit_cast::<17, 15>(self.seq.a_slot.val()) | (bit_cast::<17, 2>(self.seq.a_op.val()) << 15);
        self.store.a_valid.next = self.aq.m_valid.val();
        self.store.a_op.next = bit_cast::<3, 2>(self.aq.m_data.val().get_bits::<2>(15));
        self.store.a_slot.next = self.aq.m_data.val().get_bits::<15>(0);
        self.aq.m_ready.next = self.store.a_ready.val();
        // ================================================= the peer's events
        self.pa_v.d.next = false;
        self.pp_v.d.next = false;
        if self.pl_v.q.val() & self.peer.pl_ready.val() {
            self.pl_v.d.next = false;
        }
        if self.take.val() {
            if self.tx_en.val() & self.d_tagged.val() & (self.d_kind.val() == 2) {
                self.pa_v.d.next = true;
                self.pa_s.d.next = self.dword.val().get_bits::<17>(16);
            }
            if self.d_loss.val() {
                self.pl_v.d.next = true;
                self.pl_f.d.next = self.dword.val().get_bits::<17>(16);
                self.pl_h.d.next = self.dword.val().get_bits::<8>(41);
                self.pl_l.d.next = self.dword.val().get_bits::<17>(49);
            }
            if self.tx_en.val() & self.dword.val().get_bit(39) {
                self.pp_v.d.next = true;
                self.pp_p.d.next = self.dword.val().get_bit(40);
            }
        }
        self.peer.pa_valid.next = self.pa_v.q.val();
        self.peer.pa_seq.next = self.pa_s.q.val();
        self.peer.pl_valid.next = self.pl_v.q.val();
        self.peer.pl_first.next = self.pl_f.q.val();
        self.peer.pl_hole.next = self.pl_h.q.val();
        self.peer.pl_latest.next = self.pl_l.q.val();
        self.peer.pp_valid.next = self.pp_v.q.val();
        self.peer.pp_pause.next = self.pp_p.q.val();
        // ================================================= this side's, and state
        self.busy.next = self.seq.busy.val();
        self.ev_timeout.next = self.seq.ev_timeout.val();
        RxConfig::link(&mut self.cfg, &mut self.seq.cfg);
        RxNotes::link(&mut self.note, &mut self.seq.note);
        RxStats::link(&mut self.stats, &mut self.seq.stats);
        self.ring_used.next = self.store.ring_used.val();
        self.held.next = self.store.held.val();
        if self.store.ring_used.val() > self.hi.q.val() {
            self.hi.d.next = self.store.ring_used.val();
        }
        self.ring_high.next = self.hi.q.val();
    }
}

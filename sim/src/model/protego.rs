//! Golden model of Protego, link-local retransmission (seed 004; the
//! specification `PL2-PROTEGO.md` part B; `docs/protego.md`), written from
//! the paper and the specification, not from the RTL.
//!
//! One [`ProtegoPort`] is one switch port's Protego: its sender side
//! ([`ProtegoTx`]: sequence numbers, the Tx ring, the head processor, RETX
//! copies, dummies) and its receiver side ([`ProtegoRx`]: loss detection,
//! the reordering buffer with de-duplication, `ackNoTimeout`, PFC
//! back-pressure, ProtegoNB), and the port's output priority
//! (PFC > LOSS > RETX > normal > explicit ACK > dummy, B.1). Frames are bytes
//! without FCS; time is a cycle count the caller passes in.
//!
//! The wire format (B.1, `docs/protocols.md`): a 5-byte tag after the VLAN
//! tags, EtherType 0x88B6, one byte (`type` in bits 7..6, `era` in bit 5),
//! `seq` (u16), then the inner EtherType. Control frames (dummy, explicit
//! ACK, LOSS) have 0x88B6 as the inner EtherType and are padded to 60 bytes
//! (64 with the FCS); a LOSS carries `hole_size` (u8), `latest` (u16) and
//! `latest`'s era (u8) after it. PFC is IEEE 802.1Qbb: EtherType 0x8808,
//! opcode 0x0101, the class enable vector, eight quanta (0xFFFF pause, 0
//! resume on the configured class).
//!
//! Decisions where the paper and the specification leave a gap are marked
//! **Decision** and listed in `docs/protego.md`.
use crate::packet::frame::{ethertype, MIN_FRAME};
use std::collections::{BTreeMap, VecDeque};

/// The tag's `type` field (B.1).
pub mod kind {
    /// An original protected frame, or a dummy (inner EtherType 0x88B6).
    pub const DATA: u8 = 0;
    /// A retransmitted copy: the original's `seq` and era.
    pub const RETX: u8 = 1;
    /// `latestRxSeqNo`: piggybacked, or explicit (inner EtherType 0x88B6).
    pub const ACK: u8 = 2;
    /// A loss notification: `seq` is the first lost sequence number.
    pub const LOSS: u8 = 3;
}

/// Bytes of the tag on the wire: EtherType, type/era byte, `seq`.
pub const TAG_LEN: usize = 5;
/// Destination of Protego's own control frames: link-local (the 802.1D
/// nearest-bridge group address, never forwarded by a bridge). **Decision:**
/// the paper gives no addresses.
pub const CONTROL_DST: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E];
/// PFC's destination (IEEE 802.3 annex 31B).
pub const PFC_DST: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
/// MAC Control opcode of a PFC frame (802.1Qbb).
pub const PFC_OPCODE: u16 = 0x0101;

/// A sequence number with its era (B.2): 17 bits in all, the era toggling
/// after seq 65535.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Seq {
    pub era: bool,
    pub seq: u16,
}

impl Seq {
    /// The 17-bit value, era in bit 16.
    pub fn v17(self) -> u32 {
        (self.era as u32) << 16 | self.seq as u32
    }

    pub fn from_v17(v: u32) -> Seq {
        Seq { era: v >> 16 & 1 == 1, seq: v as u16 }
    }

    /// `n` sequence numbers later.
    pub fn plus(self, n: u32) -> Seq {
        Seq::from_v17(self.v17().wrapping_add(n) & 0x1_FFFF)
    }

    pub fn next(self) -> Seq {
        self.plus(1)
    }

    /// How many sequence numbers `to` is after `self`, modulo 2¹⁷.
    pub fn dist(self, to: Seq) -> u32 {
        to.v17().wrapping_sub(self.v17()) & 0x1_FFFF
    }

    /// 004 §3.5's comparison: same era, unsigned; different eras, 32768
    /// subtracted from both, then unsigned. Equal to 17-bit serial
    /// arithmetic while the two are less than 2¹⁵ apart (B.2).
    pub fn lt(self, o: Seq) -> bool {
        if self.era == o.era {
            self.seq < o.seq
        } else {
            self.seq.wrapping_sub(32768) < o.seq.wrapping_sub(32768)
        }
    }

    pub fn le(self, o: Seq) -> bool {
        self == o || self.lt(o)
    }
}

/// A decoded tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    pub kind: u8,
    pub seq: Seq,
}

/// VLAN tags (802.1ad then 802.1Q) the tag may follow: two, as the switch's
/// parser reads them. **Decision:** a third TPID is the EtherType the tag
/// goes before.
pub const MAX_VLANS: usize = 2;

/// Offset of the EtherType after the MAC addresses and up to [`MAX_VLANS`]
/// 802.1Q/802.1ad tags (a tag counts when its four bytes are there).
pub fn ethertype_offset(f: &[u8]) -> usize {
    let mut o = 12;
    while o < 12 + 4 * MAX_VLANS && f.len() >= o + 4 {
        let t = u16::from_be_bytes([f[o], f[o + 1]]);
        if t != ethertype::VLAN && t != ethertype::QINQ {
            break;
        }
        o += 4;
    }
    o
}

fn be16(f: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*f.get(o)?, *f.get(o + 1)?]))
}

/// Whether [`insert_tag`] can tag `f`: it has a byte where the tag goes.
pub fn taggable(f: &[u8]) -> bool {
    f.len() > ethertype_offset(f)
}

/// The tag of a frame and its offset, if it has one (and the inner
/// EtherType after it: a shorter frame is not tagged but truncated).
pub fn read_tag(f: &[u8]) -> Option<(Tag, usize)> {
    let o = ethertype_offset(f);
    if be16(f, o)? != ethertype::PROTEGO {
        return None;
    }
    be16(f, o + TAG_LEN)?;
    let b = f[o + 2];
    Some((Tag { kind: b >> 6, seq: Seq { era: b >> 5 & 1 == 1, seq: be16(f, o + 3)? } }, o))
}

/// The inner EtherType of a tagged frame.
pub fn inner_ethertype(f: &[u8], tag_at: usize) -> u16 {
    be16(f, tag_at + TAG_LEN).unwrap_or(0)
}

/// `f` with a tag inserted after its VLAN tags (a VLAN tag counts when its
/// four bytes are there). A frame with no byte at that point (no
/// EtherType) is returned as it is: there is nowhere to put a tag
/// ([`taggable`]).
pub fn insert_tag(f: &[u8], t: Tag) -> Vec<u8> {
    let o = ethertype_offset(f);
    if f.len() <= o {
        return f.to_vec();
    }
    let mut v = Vec::with_capacity(f.len() + TAG_LEN);
    v.extend_from_slice(&f[..o]);
    v.extend_from_slice(&ethertype::PROTEGO.to_be_bytes());
    v.push(t.kind << 6 | (t.seq.era as u8) << 5);
    v.extend_from_slice(&t.seq.seq.to_be_bytes());
    v.extend_from_slice(&f[o..]);
    v
}

/// `f` without its tag (which sits at `at`). **Decision:** not padded: a
/// tagged frame of 65 bytes or more (all the sender tags) leaves at 60 or
/// more, and a shorter one is the egress MAC's to pad, as the switch does
/// with any short frame.
pub fn strip_tag(f: &[u8], at: usize) -> Vec<u8> {
    let mut v = f[..at].to_vec();
    v.extend_from_slice(&f[at + TAG_LEN..]);
    v
}

/// A control frame: the tag, 0x88B6 again, `body`, padded to 60 bytes.
pub fn control_frame(src: [u8; 6], t: Tag, body: &[u8]) -> Vec<u8> {
    let mut f = CONTROL_DST.to_vec();
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype::PROTEGO.to_be_bytes());
    let mut f = insert_tag(&f, t);
    f.extend_from_slice(body);
    f.resize(f.len().max(MIN_FRAME), 0);
    f
}

/// A PFC frame for `class`: pause (quanta 0xFFFF) or resume (0).
pub fn pfc_frame(src: [u8; 6], class: u8, pause: bool) -> Vec<u8> {
    let mut f = PFC_DST.to_vec();
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype::MAC_CONTROL.to_be_bytes());
    f.extend_from_slice(&PFC_OPCODE.to_be_bytes());
    f.extend_from_slice(&(1u16 << (class & 7)).to_be_bytes());
    for c in 0..8u8 {
        let q: u16 = if c == class && pause { 0xFFFF } else { 0 };
        f.extend_from_slice(&q.to_be_bytes());
    }
    f.resize(MIN_FRAME, 0);
    f
}

/// A PFC frame's verdict on `class`: `Some(true)` pause, `Some(false)`
/// resume, `None` not a PFC frame or the class not enabled in it.
pub fn pfc_of(f: &[u8], class: u8) -> Option<bool> {
    if be16(f, 12)? != ethertype::MAC_CONTROL || be16(f, 14)? != PFC_OPCODE {
        return None;
    }
    let class = (class & 7) as usize;
    if be16(f, 16)? >> class & 1 == 0 {
        return None;
    }
    Some(be16(f, 18 + 2 * class)? != 0)
}

/// A loss notification (B.1's LOSS, B.4): `hole` sequence numbers from
/// `first` are missing; `latest` is the receiver's `latestRxSeqNo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loss {
    pub first: Seq,
    pub hole: u8,
    pub latest: Seq,
}

impl Loss {
    pub fn frame(&self, src: [u8; 6]) -> Vec<u8> {
        let l = self.latest;
        let [h, lo] = l.seq.to_be_bytes();
        control_frame(src, Tag { kind: kind::LOSS, seq: self.first }, &[self.hole, h, lo, l.era as u8])
    }

    /// The notification a LOSS frame carries (None: truncated).
    pub fn parse(f: &[u8], tag: Tag, at: usize) -> Option<Loss> {
        let b = at + TAG_LEN + 2;
        let (hole, latest, era) = (*f.get(b)?, be16(f, b + 1)?, *f.get(b + 3)?);
        Some(Loss { first: tag.seq, hole, latest: Seq { era: era & 1 == 1, seq: latest } })
    }
}

/// Eq. 1 (004 §3.4): the RETX copies that bring a link losing `actual` of
/// its frames to `target`, `⌈log10(target) / log10(actual) − 1⌉` (0: no
/// retransmission is needed). The effective loss is `actual^(copies + 1)`.
pub fn copies_for(target: f64, actual: f64) -> Result<u32, String> {
    if !(target > 0.0 && target < 1.0 && actual > 0.0 && actual < 1.0) {
        return Err(format!("copies: target {target} and actual {actual} loss rates must lie in (0, 1)"));
    }
    // A ratio that is an integer up to rounding (log10(1e-8) / log10(1e-4))
    // must not round up by one.
    let x = target.log10() / actual.log10() - 1.0;
    Ok((x - 1e-9).ceil().max(0.0) as u32)
}

/// Run-time settings of one port's Protego (the registers of B.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProtegoConfig {
    /// Sender side on: tag what this port sends, keep it in the ring,
    /// retransmit on request (`CTRL.tx`).
    pub tx: bool,
    /// Receiver side on: detect losses, notify, reorder or forward
    /// (`CTRL.rx`).
    pub rx: bool,
    /// ProtegoNB: forward at once, no buffer, PFC or timeout (`CTRL.nb`).
    pub nb: bool,
    /// With the receiver off, a tagged frame is dropped instead of
    /// forwarded untagged (`CTRL.tag_drop`; counted either way, decision 7).
    pub tag_off_drop: bool,
    /// RETX copies per requested frame (Eq. 1; 0: a request frees the frame
    /// without retransmitting it).
    pub copies: u8,
    /// `ackNoTimeout`, cycles.
    pub ack_timeout: u64,
    /// PFC thresholds on the reordering buffer's bytes (Alg. 2).
    pub pause_bytes: u32,
    pub resume_bytes: u32,
    /// The PFC priority class Protego pauses.
    pub pfc_class: u8,
    /// Dummies after each DATA while the normal input is empty or paused;
    /// 0 = no limit (the paper's self-replenishing queue).
    pub dummy_max: u32,
    /// The largest hole one LOSS requests (the paper's five 1-bit registers:
    /// 5; at most 255, the LOSS frame's field).
    pub max_hole: u8,
    /// Tx ring size in bytes (a normal frame waits while it does not fit).
    pub ring_bytes: u32,
    /// Reordering buffer size in bytes (a frame that does not fit is
    /// dropped and counted: PFC is meant to keep it from filling).
    pub rx_buffer_bytes: u32,
    /// The reordering window in sequence numbers (a power of two, 2..=2¹⁵:
    /// the hardware's slot table, one slot per number): a frame `ackNo + d`
    /// with `d` at or beyond it is dropped and counted (`buffer_drop`).
    pub rx_slots: u32,
    /// Entries of the table of requested (missing) numbers (a power of two,
    /// at least `max_hole`): a number is kept at `v17 mod miss_slots`, a later
    /// request there replaces it (**Decision:** the hardware's table).
    pub miss_slots: u32,
    /// This port's MAC (the source of its control frames).
    pub mac: [u8; 6],
    /// With both sides on (no piggybacking, decision 4), a pending
    /// explicit ACK goes ahead of the normal input once this many normal
    /// frames have left since the last explicit ACK (0: never, B.1 as
    /// written; at most 255). **Decision** (docs/protego.md, 15): B.1 puts
    /// the explicit ACK below the normal input, which with traffic both ways
    /// starves the ACKs and fills the peer's ring.
    pub ack_every: u32,
}

impl Default for ProtegoConfig {
    /// 100G at 322.27 MHz (B.3, B.4): a 7 µs timeout, 37 KB resume, pause 2
    /// MTU above it, a 128 KB ring.
    fn default() -> Self {
        ProtegoConfig {
            tx: true,
            rx: true,
            nb: false,
            tag_off_drop: false,
            copies: 1,
            ack_timeout: 2256,
            pause_bytes: 37 * 1024 + 2 * 1538,
            resume_bytes: 37 * 1024,
            pfc_class: 3,
            dummy_max: 3,
            max_hole: 255,
            ring_bytes: 128 * 1024,
            rx_buffer_bytes: 256 * 1024,
            rx_slots: 512,
            miss_slots: 256,
            mac: [0x02, 0, 0, 0, 0, 0xFE],
            ack_every: 8,
        }
    }
}

impl ProtegoConfig {
    /// A clear error for values the hardware cannot hold or that cannot
    /// work.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_hole == 0 {
            return Err("protego.max_hole = 0: a LOSS must request at least one frame".into());
        }
        if self.ack_every > 255 {
            return Err(format!("protego.ack_every = {}: 0..=255", self.ack_every));
        }
        if self.pfc_class > 7 {
            return Err(format!("protego.pfc_class = {}: 0..=7", self.pfc_class));
        }
        if self.resume_bytes >= self.pause_bytes {
            return Err(format!(
                "protego.resume_bytes = {} must be below pause_bytes = {} (Alg. 2's hysteresis)",
                self.resume_bytes, self.pause_bytes
            ));
        }
        if self.pause_bytes > self.rx_buffer_bytes {
            return Err(format!("protego.pause_bytes = {} above the buffer ({} bytes)", self.pause_bytes, self.rx_buffer_bytes));
        }
        if self.ack_timeout == 0 && self.rx && !self.nb {
            return Err("protego.ack_timeout = 0: the ordered receiver needs a timeout".into());
        }
        if !self.rx_slots.is_power_of_two() || !(2..=1 << 15).contains(&self.rx_slots) {
            return Err(format!("protego.rx_slots = {}: a power of two in 2..=32768", self.rx_slots));
        }
        if !self.miss_slots.is_power_of_two() || self.miss_slots < self.max_hole as u32 || self.miss_slots > 1 << 15 {
            return Err(format!("protego.miss_slots = {}: a power of two from max_hole ({}) to 32768", self.miss_slots, self.max_hole));
        }
        if (self.ring_bytes as usize) < 9018 + TAG_LEN {
            return Err(format!("protego.ring_bytes = {}: below one jumbo frame", self.ring_bytes));
        }
        Ok(())
    }
}

/// Sender-side counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxCounters {
    pub data: u64,
    pub retx: u64,
    pub dummy: u64,
    pub ack_explicit: u64,
    pub ack_piggybacked: u64,
    pub loss_sent: u64,
    pub pfc_sent: u64,
    pub ack_rx: u64,
    pub loss_rx: u64,
    /// A LOSS whose first sequence number had already left the ring.
    pub loss_stale: u64,
    pub freed: u64,
    /// Normal frames too short to carry a tag, sent without one.
    pub untaggable: u64,
    /// Frames the head processor retransmitted (each `copies` times).
    pub retx_frames: u64,
    /// Cycles a normal frame waited for the ring or a pause.
    pub paused_cycles: u64,
    pub ring_high_water: u64,
    /// Keepalives (decision 16): quiet for `ackNoTimeout` with frames
    /// waiting for their ACK, the dummies started again.
    pub keepalives: u64,
}

/// Receiver-side counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxCounters {
    pub data: u64,
    pub retx: u64,
    pub dummy: u64,
    pub delivered: u64,
    /// Sequence numbers found missing (the sum of the holes).
    pub lost: u64,
    /// Missing sequence numbers whose RETX arrived.
    pub recovered: u64,
    pub duplicates: u64,
    pub timeouts: u64,
    pub pauses: u64,
    pub resumes: u64,
    /// Untagged frames on a receiving port (forwarded as they are).
    pub untagged: u64,
    /// Tagged frames on a port whose receiver is off (forwarded untagged).
    pub tag_while_off: u64,
    /// Control frames too short for their fields (dropped).
    pub truncated: u64,
    /// A DATA behind `expected` or a sequence far outside the window (the
    /// peer restarted): the receiver re-synchronises on it.
    pub resync: u64,
    /// Frames dropped because the reordering buffer was full.
    pub buffer_drop: u64,
    pub buffer_high_water: u64,
    /// Retransmission delay, loss detected -> a copy received, cycles.
    pub retx_delay_min: Option<u64>,
    pub retx_delay_max: u64,
}

/// The sender side of a port (B.3).
#[derive(Clone, Debug)]
pub struct ProtegoTx {
    cfg: ProtegoConfig,
    next: Seq,
    /// (seq, the untagged frame), oldest first.
    ring: VecDeque<(Seq, Vec<u8>)>,
    ring_used: u64,
    /// `leadingAck`; `None` before the first.
    acked: Option<Seq>,
    /// Requested ranges (first, count), oldest first (**Decision** of B.3:
    /// a range FIFO, so any hole fits).
    reqs: VecDeque<(Seq, u32)>,
    retx: VecDeque<Vec<u8>>,
    dummies: u32,
    /// **Decision** (16): dummies after a keepalive ask for an ACK.
    ka: bool,
    paused: bool,
    pub counters: TxCounters,
}

impl ProtegoTx {
    pub fn new(cfg: ProtegoConfig) -> Self {
        ProtegoTx {
            cfg,
            next: Seq::default(),
            ring: VecDeque::new(),
            ring_used: 0,
            acked: None,
            reqs: VecDeque::new(),
            retx: VecDeque::new(),
            dummies: 0,
            ka: false,
            paused: false,
            counters: TxCounters::default(),
        }
    }

    /// The next sequence number to assign.
    pub fn next_seq(&self) -> Seq {
        self.next
    }

    pub fn ring_len(&self) -> usize {
        self.ring.len()
    }

    pub fn ring_bytes(&self) -> u64 {
        self.ring_used
    }

    /// PFC paused the normal input.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// A normal frame of `len` bytes fits in the ring now.
    pub fn fits(&self, len: usize) -> bool {
        self.ring_used + (len + TAG_LEN) as u64 <= self.cfg.ring_bytes as u64
    }

    /// Tags a normal frame as DATA with the next sequence number and keeps
    /// it in the ring. A frame that cannot carry a tag (no EtherType) goes
    /// as it is, without a number, counted (`untaggable`).
    pub fn send_data(&mut self, f: &[u8]) -> Vec<u8> {
        if !taggable(f) {
            self.counters.untaggable += 1;
            return f.to_vec();
        }
        let s = self.next;
        self.next = s.next();
        let t = insert_tag(f, Tag { kind: kind::DATA, seq: s });
        self.ring_used += t.len() as u64;
        self.counters.ring_high_water = self.counters.ring_high_water.max(self.ring_used);
        self.ring.push_back((s, f.to_vec()));
        self.counters.data += 1;
        self.dummies = 0;
        self.ka = false;
        t
    }

    /// Numbers sent and not yet acknowledged (`leadingAck` behind the last
    /// number sent): the ring holds frames that wait for an ACK.
    pub fn waiting(&self) -> bool {
        match self.acked {
            None => self.next != Seq::default(),
            Some(a) => a.next() != self.next,
        }
    }

    /// **Decision** (16, keepalive): the link has been quiet for
    /// `ackNoTimeout` while frames wait for their ACK (it was lost, or the
    /// peer restarted and knows nothing of them): up to `dummy_max` more
    /// dummies may go, each asking the receiver for an ACK. Returns whether
    /// it applied (frames were waiting).
    pub fn keepalive(&mut self) -> bool {
        if !self.waiting() {
            return false;
        }
        self.dummies = 0;
        self.ka = true;
        self.counters.keepalives += 1;
        true
    }

    /// A dummy if one may go now: it reveals the next unassigned sequence
    /// number without consuming it (B.1).
    pub fn dummy(&mut self) -> Option<Vec<u8>> {
        if self.cfg.dummy_max != 0 && self.dummies >= self.cfg.dummy_max {
            return None;
        }
        self.dummies += 1;
        self.counters.dummy += 1;
        Some(control_frame(self.cfg.mac, Tag { kind: kind::DATA, seq: self.next }, &[self.ka as u8]))
    }

    /// A RETX copy waiting to go (high priority).
    pub fn pop_retx(&mut self) -> Option<Vec<u8>> {
        let f = self.retx.pop_front()?;
        self.counters.retx += 1;
        Some(f)
    }

    pub fn retx_pending(&self) -> bool {
        !self.retx.is_empty()
    }

    /// An ACK from the peer's receiver: `leadingAck = max(leadingAck,
    /// latest)`, then the head processor.
    pub fn on_ack(&mut self, latest: Seq) {
        self.counters.ack_rx += 1;
        self.lead(latest);
        self.head();
    }

    /// A LOSS from the peer's receiver: its range requested, its `latest`
    /// as an ACK.
    pub fn on_loss(&mut self, l: Loss) {
        self.counters.loss_rx += 1;
        match self.ring.front() {
            Some(&(h, _)) if l.first.lt(h) => self.counters.loss_stale += 1,
            None if l.first.lt(self.next) => self.counters.loss_stale += 1,
            _ => {}
        }
        self.reqs.push_back((l.first, l.hole as u32));
        self.lead(l.latest);
        self.head();
    }

    /// PFC from the peer: pause or resume the normal input (not RETX or
    /// control frames, §3.3).
    pub fn on_pfc(&mut self, pause: bool) {
        self.paused = pause;
    }

    fn lead(&mut self, s: Seq) {
        // An ACK for a sequence number not yet sent (a peer that restarted,
        // or garbage) moves nothing.
        if self.next.dist(s) < 1 << 15 {
            return;
        }
        self.acked = Some(match self.acked {
            Some(a) if s.lt(a) => a,
            _ => s,
        });
    }

    fn requested(&mut self, s: Seq) -> bool {
        // Drop ranges wholly behind `s`.
        while let Some(&(f, n)) = self.reqs.front() {
            if f.plus(n).le(s) {
                self.reqs.pop_front();
            } else {
                break;
            }
        }
        // **Decision** (docs/protego.md, 14): the oldest range left, as the
        // hardware's range FIFO shows it (a receiver requests holes in
        // order, so a later range never starts before an earlier one).
        self.reqs.front().is_some_and(|&(f, n)| f.le(s) && s.lt(f.plus(n)))
    }

    /// Fig. 16: while the head is at or behind `leadingAck`, retransmit it
    /// (`copies` times) if it was requested, and free it.
    fn head(&mut self) {
        let Some(a) = self.acked else { return };
        while let Some(&(s, _)) = self.ring.front() {
            if !s.le(a) {
                break;
            }
            let (s, f) = self.ring.pop_front().expect("head");
            self.ring_used -= (f.len() + TAG_LEN) as u64;
            if self.requested(s) && self.cfg.copies > 0 {
                self.counters.retx_frames += 1;
                let t = insert_tag(&f, Tag { kind: kind::RETX, seq: s });
                for _ in 0..self.cfg.copies {
                    self.retx.push_back(t.clone());
                }
            }
            self.counters.freed += 1;
        }
    }
}

/// What the receiver side does with an arriving frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RxOut {
    /// Frames for the switch's ingress, tags stripped, in order.
    pub deliver: Vec<Vec<u8>>,
}

/// The receiver side of a port (B.4).
#[derive(Clone, Debug)]
pub struct ProtegoRx {
    cfg: ProtegoConfig,
    synced: bool,
    expected: Seq,
    latest: Seq,
    pending_ack: bool,
    ack_no: Seq,
    /// The reordering buffer by 17-bit sequence number.
    buf: BTreeMap<u32, Vec<u8>>,
    buf_used: u64,
    /// Start of the current `ackNoTimeout` period.
    timer_from: u64,
    paused: bool,
    /// Requested (missing) sequence numbers by their entry `v17 mod
    /// miss_slots`: the number (v17) and when it was found missing.
    missing: BTreeMap<u32, (u32, u64)>,
    loss_q: VecDeque<Loss>,
    pfc_q: VecDeque<bool>,
    pub counters: RxCounters,
}

impl ProtegoRx {
    pub fn new(cfg: ProtegoConfig) -> Self {
        ProtegoRx {
            cfg,
            synced: false,
            expected: Seq::default(),
            latest: Seq::default(),
            pending_ack: false,
            ack_no: Seq::default(),
            buf: BTreeMap::new(),
            buf_used: 0,
            timer_from: 0,
            paused: false,
            missing: BTreeMap::new(),
            loss_q: VecDeque::new(),
            pfc_q: VecDeque::new(),
            counters: RxCounters::default(),
        }
    }

    pub fn expected(&self) -> Seq {
        self.expected
    }

    pub fn ack_no(&self) -> Seq {
        self.ack_no
    }

    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    pub fn buffer_bytes(&self) -> u64 {
        self.buf_used
    }

    /// The ACK to send (`latestRxSeqNo`) if one is pending; taking it clears
    /// `pendingAck`. None while a LOSS waits: no ACK covering a hole may
    /// leave before that hole's LOSS.
    pub fn take_ack(&mut self) -> Option<Seq> {
        if !self.pending_ack || !self.loss_q.is_empty() {
            return None;
        }
        self.pending_ack = false;
        Some(self.latest)
    }

    pub fn ack_pending(&self) -> bool {
        self.pending_ack && self.loss_q.is_empty()
    }

    /// The cycle from which `ackNoTimeout` fires (a hole open in ordered
    /// mode), if it can.
    pub fn timeout_due(&self) -> Option<u64> {
        (self.synced && !self.cfg.nb && self.ack_no != self.expected).then_some(self.timer_from + self.cfg.ack_timeout)
    }

    pub fn take_loss(&mut self) -> Option<Loss> {
        self.loss_q.pop_front()
    }

    pub fn take_pfc(&mut self) -> Option<bool> {
        self.pfc_q.pop_front()
    }

    /// A DATA, RETX or dummy frame (tag at `at`) arriving at `now`.
    pub fn receive(&mut self, f: &[u8], tag: Tag, at: usize, now: u64) -> RxOut {
        let mut out = RxOut::default();
        let s = tag.seq;
        let dummy = tag.kind == kind::DATA && inner_ethertype(f, at) == ethertype::PROTEGO;
        if !self.synced {
            // **Decision** (B.4 "Sync"): the first tagged frame after enable
            // sets `expected` and `ackNo`; a RETX is for a loss this side
            // never saw.
            if tag.kind == kind::RETX {
                self.counters.retx += 1;
                self.counters.duplicates += 1;
                return out;
            }
            self.sync_to(s, now);
        }
        match tag.kind {
            kind::DATA if dummy => {
                self.counters.dummy += 1;
                let d = self.expected.dist(s);
                if d != 0 && d < 1 << 15 {
                    self.note_loss(self.expected, d, s.plus(0x1_FFFF), now);
                    self.expected = s;
                }
                // **Decision** (16): a keepalive's dummy asks for the ACK
                // of `latest` again (its first body byte 1).
                if f.get(at + TAG_LEN + 2) == Some(&1) {
                    self.pending_ack = true;
                }
                self.release(now, &mut out);
                return out;
            }
            kind::DATA => {
                self.counters.data += 1;
                let d = self.expected.dist(s);
                if d >= 1 << 15 {
                    // Behind `expected` (a DATA never repeats) or far ahead:
                    // the peer restarted. Deliver what waits, start over.
                    self.counters.resync += 1;
                    self.flush(&mut out);
                    self.sync_to(s, now);
                } else if d != 0 {
                    self.note_loss(self.expected, d, s, now);
                }
                self.expected = s.next();
                self.latest = s;
                self.pending_ack = true;
            }
            _ => {
                self.counters.retx += 1;
                if let Some(t0) = self.take_missing(s) {
                    self.counters.recovered += 1;
                    let dt = now.saturating_sub(t0);
                    let c = &mut self.counters;
                    c.retx_delay_min = Some(c.retx_delay_min.map_or(dt, |m| m.min(dt)));
                    c.retx_delay_max = c.retx_delay_max.max(dt);
                } else if self.cfg.nb {
                    self.counters.duplicates += 1;
                    return out;
                }
            }
        }
        let inner = strip_tag(f, at);
        if self.cfg.nb {
            self.deliver(inner, &mut out);
            return out;
        }
        // Alg. 1.
        if s == self.ack_no {
            self.deliver(inner, &mut out);
            self.advance(now, &mut out);
        } else if self.ack_no.lt(s) && self.ack_no.dist(s) < 1 << 15 {
            if self.ack_no.dist(s) >= self.cfg.rx_slots {
                // Beyond the reordering window.
                self.counters.buffer_drop += 1;
            } else if self.buf.contains_key(&s.v17()) {
                self.counters.duplicates += 1;
            } else if self.buf_used + inner.len() as u64 > self.cfg.rx_buffer_bytes as u64 {
                self.counters.buffer_drop += 1;
            } else {
                self.buf_used += inner.len() as u64;
                self.counters.buffer_high_water = self.counters.buffer_high_water.max(self.buf_used);
                self.buf.insert(s.v17(), inner);
                self.pfc();
            }
        } else {
            self.counters.duplicates += 1;
        }
        out
    }

    /// Time passes: `ackNoTimeout` skips a sequence number that has not
    /// come (ordered mode; the timer reloads on every `ackNo` advance).
    pub fn tick(&mut self, now: u64) -> RxOut {
        let mut out = RxOut::default();
        if self.cfg.nb || !self.synced {
            return out;
        }
        while self.ack_no != self.expected && now >= self.timer_from + self.cfg.ack_timeout {
            self.counters.timeouts += 1;
            self.take_missing(self.ack_no);
            self.ack_no = self.ack_no.next();
            self.timer_from = now;
            self.release(now, &mut out);
        }
        out
    }

    fn sync_to(&mut self, s: Seq, now: u64) {
        self.synced = true;
        self.expected = s;
        self.ack_no = s;
        self.latest = s.plus(0x1_FFFF);
        self.timer_from = now;
        self.missing.clear();
    }

    /// A hole of `n` from `first`, found at `now` by a frame whose
    /// `latestRxSeqNo` is `latest`: one LOSS for at most `max_hole` of it.
    fn note_loss(&mut self, first: Seq, n: u32, latest: Seq, now: u64) {
        self.counters.lost += n as u64;
        let req = n.min(self.cfg.max_hole as u32);
        // The requested numbers, each at its entry of the table (replacing
        // what was there).
        for i in 0..req {
            let v = first.plus(i).v17();
            self.missing.insert(v % self.cfg.miss_slots, (v, now));
        }
        if self.ack_no == self.expected {
            self.timer_from = now;
        }
        self.loss_q.push_back(Loss { first, hole: req as u8, latest });
    }

    /// When `s` was found missing, if its entry still holds it (the entry
    /// is emptied).
    fn take_missing(&mut self, s: Seq) -> Option<u64> {
        let k = s.v17() % self.cfg.miss_slots;
        match self.missing.get(&k) {
            Some(&(v, t0)) if v == s.v17() => {
                self.missing.remove(&k);
                Some(t0)
            }
            _ => None,
        }
    }

    fn deliver(&mut self, f: Vec<u8>, out: &mut RxOut) {
        self.counters.delivered += 1;
        out.deliver.push(f);
    }

    /// `ackNo++` and the buffered frames that follow it.
    fn advance(&mut self, now: u64, out: &mut RxOut) {
        self.ack_no = self.ack_no.next();
        self.timer_from = now;
        self.release(now, out);
    }

    fn release(&mut self, now: u64, out: &mut RxOut) {
        while let Some(f) = self.buf.remove(&self.ack_no.v17()) {
            self.buf_used -= f.len() as u64;
            self.deliver(f, out);
            self.ack_no = self.ack_no.next();
            self.timer_from = now;
        }
        // A dummy or a timeout can leave `ackNo` past buffered frames that
        // are behind it now: duplicates.
        let a = self.ack_no;
        let stale: Vec<u32> = self.buf.keys().copied().filter(|&k| !a.le(Seq::from_v17(k))).collect();
        for k in stale {
            let f = self.buf.remove(&k).expect("stale");
            self.buf_used -= f.len() as u64;
            self.counters.duplicates += 1;
        }
        self.pfc();
    }

    /// Everything buffered, in order (a restart of the peer).
    fn flush(&mut self, out: &mut RxOut) {
        let a = self.ack_no.v17();
        let mut v: Vec<(u32, Vec<u8>)> = std::mem::take(&mut self.buf).into_iter().collect();
        v.sort_by_key(|(k, _)| k.wrapping_sub(a) & 0x1_FFFF);
        for (_, f) in v {
            self.deliver(f, out);
        }
        self.buf_used = 0;
        self.pfc();
    }

    /// Alg. 2 on the buffer's bytes.
    fn pfc(&mut self) {
        let b = self.buf_used;
        if !self.paused && b >= self.cfg.pause_bytes as u64 {
            self.paused = true;
            self.counters.pauses += 1;
            self.pfc_q.push_back(true);
        } else if self.paused && b <= self.cfg.resume_bytes as u64 {
            self.paused = false;
            self.counters.resumes += 1;
            self.pfc_q.push_back(false);
        }
    }
}

/// What a port puts on the wire next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pick {
    /// A frame of Protego's own (PFC, LOSS, RETX, explicit ACK, dummy).
    Control(Vec<u8>),
    /// Take the next normal frame and pass it to [`ProtegoPort::send_normal`].
    Normal,
    /// Nothing to send.
    Idle,
}

/// One port's Protego: sender and receiver sides and the output priority.
#[derive(Clone, Debug)]
pub struct ProtegoPort {
    cfg: ProtegoConfig,
    pub tx: ProtegoTx,
    pub rx: ProtegoRx,
    /// Normal frames picked since the last explicit ACK (at most 255).
    since_ack: u32,
    /// The cycle of the last frame picked or keepalive (decision 16).
    quiet_from: u64,
}

impl ProtegoPort {
    pub fn new(cfg: ProtegoConfig) -> Result<Self, String> {
        cfg.validate()?;
        Ok(ProtegoPort { cfg, tx: ProtegoTx::new(cfg), rx: ProtegoRx::new(cfg), since_ack: 0, quiet_from: 0 })
    }

    /// [`ProtegoPort::pick`] at cycle `now`, with the keepalive (decision
    /// 16): after `ackNoTimeout` cycles without a frame picked other than
    /// a dummy while frames wait for their ACK, the sender's dummies start
    /// again (or, unlimited, go on), asking for an ACK.
    pub fn pick_at(&mut self, now: u64, normal_len: Option<usize>) -> Pick {
        if self.cfg.tx && now >= self.quiet_from + self.cfg.ack_timeout.max(1) && self.tx.keepalive() {
            self.quiet_from = now;
        }
        let dummies = self.tx.counters.dummy;
        let p = self.pick(normal_len);
        if p != Pick::Idle && self.tx.counters.dummy == dummies {
            self.quiet_from = now;
        }
        p
    }

    pub fn config(&self) -> &ProtegoConfig {
        &self.cfg
    }

    /// A frame from the link at `now`: frames for the switch's ingress.
    /// ACK and LOSS go to this port's sender side, PFC pauses it, Protego's
    /// control frames end here.
    pub fn receive(&mut self, f: &[u8], now: u64) -> RxOut {
        // **Decision** (docs/protego.md, 13): PFC is Protego's while either
        // side is on; with both off the port forwards it as today's switch.
        if let Some(p) = pfc_of(f, self.cfg.pfc_class).filter(|_| self.cfg.tx || self.cfg.rx) {
            self.tx.on_pfc(p);
            return RxOut::default();
        }
        let Some((tag, at)) = read_tag(f) else {
            if be16(f, ethertype_offset(f)) == Some(ethertype::PROTEGO) {
                // The tag is there but the frame ends inside it.
                self.rx.counters.truncated += 1;
                return RxOut::default();
            }
            if self.cfg.rx {
                self.rx.counters.untagged += 1;
            }
            return RxOut { deliver: vec![f.to_vec()] };
        };
        let control = inner_ethertype(f, at) == ethertype::PROTEGO;
        match tag.kind {
            kind::ACK => {
                if self.cfg.tx {
                    self.tx.on_ack(tag.seq);
                }
                if control {
                    RxOut::default()
                } else {
                    RxOut { deliver: vec![strip_tag(f, at)] }
                }
            }
            kind::LOSS => {
                match Loss::parse(f, tag, at) {
                    Some(l) if self.cfg.tx => self.tx.on_loss(l),
                    Some(_) => {}
                    None => self.rx.counters.truncated += 1,
                }
                RxOut::default()
            }
            _ if !self.cfg.rx => {
                // **Decision:** a tag on a port whose receiver is off is
                // counted and the frame forwarded untagged, or dropped with
                // `tag_off_drop` (a dummy ends here).
                self.rx.counters.tag_while_off += 1;
                if control || self.cfg.tag_off_drop {
                    RxOut::default()
                } else {
                    RxOut { deliver: vec![strip_tag(f, at)] }
                }
            }
            _ => self.rx.receive(f, tag, at, now),
        }
    }

    /// Time passes (the receiver's timeout).
    pub fn tick(&mut self, now: u64) -> RxOut {
        self.rx.tick(now)
    }

    /// The next frame by B.1's priority: PFC > LOSS > RETX > normal
    /// (carrying a pending ACK) > explicit ACK > dummy. `normal_len` is the
    /// length of the normal frame waiting, if any.
    pub fn pick(&mut self, normal_len: Option<usize>) -> Pick {
        let mac = self.cfg.mac;
        if let Some(p) = self.rx.take_pfc() {
            self.tx.counters.pfc_sent += 1;
            return Pick::Control(pfc_frame(mac, self.cfg.pfc_class, p));
        }
        if let Some(l) = self.rx.take_loss() {
            self.tx.counters.loss_sent += 1;
            return Pick::Control(l.frame(mac));
        }
        if let Some(f) = self.tx.pop_retx() {
            return Pick::Control(f);
        }
        // **Decision** (15): with both sides on, an ACK pending for
        // `ack_every` normal frames goes first.
        let due = self.cfg.tx && self.cfg.rx && self.cfg.ack_every > 0 && self.since_ack >= self.cfg.ack_every;
        if due {
            if let Some(a) = self.rx.take_ack() {
                self.tx.counters.ack_explicit += 1;
                self.since_ack = 0;
                return Pick::Control(control_frame(mac, Tag { kind: kind::ACK, seq: a }, &[]));
            }
        }
        if let Some(len) = normal_len {
            if !self.cfg.tx || (!self.tx.paused() && self.tx.fits(len)) {
                self.since_ack = (self.since_ack + 1).min(255);
                return Pick::Normal;
            }
            self.tx.counters.paused_cycles += 1;
        }
        if self.cfg.rx && self.rx.ack_pending() {
            let a = self.rx.take_ack().expect("pending");
            self.tx.counters.ack_explicit += 1;
            self.since_ack = 0;
            return Pick::Control(control_frame(mac, Tag { kind: kind::ACK, seq: a }, &[]));
        }
        if self.cfg.tx {
            if let Some(d) = self.tx.dummy() {
                return Pick::Control(d);
            }
        }
        Pick::Idle
    }

    /// A normal frame leaving: tagged DATA when the sender side is on; else
    /// carrying the pending ACK (piggybacked) when the receiver side has
    /// one; else as it is.
    pub fn send_normal(&mut self, f: &[u8]) -> Vec<u8> {
        if self.cfg.tx {
            return self.tx.send_data(f);
        }
        if self.cfg.rx {
            if let Some(a) = self.rx.take_ack() {
                self.tx.counters.ack_piggybacked += 1;
                return insert_tag(f, Tag { kind: kind::ACK, seq: a });
            }
        }
        f.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn frame(n: u32, len: usize) -> Vec<u8> {
        let mut f = vec![0x02, 0, 0, 0, 0, 0x0B, 0x02, 0, 0, 0, 0, 0x0A, 0x08, 0x00];
        f.extend_from_slice(&n.to_be_bytes());
        f.resize(len, 0x5A);
        f
    }

    fn id(f: &[u8]) -> u32 {
        u32::from_be_bytes([f[14], f[15], f[16], f[17]])
    }

    #[test]
    fn seq_compare_is_17_bit_serial_within_the_window() {
        let mut rng = SmallRng::seed_from_u64(1);
        for _ in 0..200_000 {
            let a = Seq::from_v17(rng.gen_range(0..1 << 17));
            let d = rng.gen_range(1..1u32 << 15);
            let b = a.plus(d);
            assert!(a.lt(b) && !b.lt(a), "{a:?} {b:?}");
            assert_eq!(a.dist(b), d);
        }
        let last = Seq { era: false, seq: 65535 };
        assert_eq!(last.next(), Seq { era: true, seq: 0 });
        assert!(last.lt(last.next()));
        assert_eq!(Seq { era: true, seq: 65535 }.next(), Seq::default());
    }

    #[test]
    fn tags_round_trip_after_vlans() {
        let mut f = frame(7, 64);
        f.splice(12..12, [0x81, 0x00, 0x20, 0x05]);
        let t = Tag { kind: kind::RETX, seq: Seq { era: true, seq: 0xBEEF } };
        let g = insert_tag(&f, t);
        assert_eq!(&g[16..21], &[0x88, 0xB6, 0x60, 0xBE, 0xEF]);
        assert_eq!(read_tag(&g), Some((t, 16)));
        assert_eq!(strip_tag(&g, 16), f);
        assert_eq!(read_tag(&f), None);
        // Truncated inside the tag: not a tag.
        assert_eq!(read_tag(&g[..19]), None);
        // At most two VLAN tags: a third TPID is the EtherType the tag goes
        // before (the tag at 20).
        let mut h = frame(8, 64);
        h.splice(12..12, [0x88, 0xA8, 0, 1, 0x81, 0x00, 0, 2, 0x81, 0x00, 0, 3]);
        let hg = insert_tag(&h, t);
        assert_eq!((ethertype_offset(&h), read_tag(&hg)), (20, Some((t, 20))));
        assert_eq!(&hg[25..27], &[0x81, 0x00]);
        // Stripping does not pad: a 60-byte tagged frame leaves at 55.
        let short = insert_tag(&frame(9, 55), t);
        assert_eq!(strip_tag(&short, 12).len(), 55);
        let l = Loss { first: Seq { era: false, seq: 65535 }, hole: 2, latest: Seq { era: true, seq: 1 } };
        let lf = l.frame([2, 0, 0, 0, 0, 1]);
        assert_eq!(lf.len(), MIN_FRAME);
        let (lt, at) = read_tag(&lf).unwrap();
        assert_eq!(Loss::parse(&lf, lt, at), Some(l));
        let p = pfc_frame([2, 0, 0, 0, 0, 1], 3, true);
        assert_eq!((pfc_of(&p, 3), pfc_of(&p, 2)), (Some(true), None));
        assert_eq!(pfc_of(&pfc_frame([2, 0, 0, 0, 0, 1], 3, false), 3), Some(false));
    }

    /// A frame too short for a tag (no EtherType) goes untagged, without a
    /// sequence number, counted.
    #[test]
    fn untaggable_frames_go_as_they_are() {
        let mut tx = ProtegoTx::new(cfg2());
        for len in [0, 5, 12] {
            let f: Vec<u8> = (0..len as u8).collect();
            assert_eq!(insert_tag(&f, Tag { kind: 0, seq: s(1) }), f);
            assert_eq!(tx.send_data(&f), f);
        }
        let mut v = vec![0u8; 16];
        v[12..14].copy_from_slice(&[0x81, 0x00]);
        assert_eq!(insert_tag(&v, Tag { kind: 0, seq: s(1) }), v, "VLAN tag, nothing after it");
        assert_eq!((tx.counters.untaggable, tx.ring_len(), tx.next_seq()), (3, 0, s(0)));
        assert_eq!(tx.send_data(&frame(1, 13)).len(), 18);
    }

    /// V7: Eq. 1 for a target of 1e-8.
    #[test]
    fn v7_copies_from_eq_1() {
        let want = [(1e-5, 1), (1e-4, 1), (1e-3, 2), (1e-2, 3), (5e-2, 6), (1e-8, 0)];
        for (actual, c) in want {
            assert_eq!(copies_for(1e-8, actual), Ok(c), "actual {actual}");
            let eff = f64::powi(actual, c as i32 + 1);
            assert!(c == 0 || eff <= 1e-8 * 1.000001, "actual {actual}: effective {eff}");
        }
        assert!(copies_for(0.0, 1e-3).is_err() && copies_for(1e-8, 1.0).is_err());
    }

    #[test]
    fn config_errors_name_the_key() {
        let c = ProtegoConfig::default();
        assert!(c.validate().is_ok());
        for (bad, key) in [
            (ProtegoConfig { max_hole: 0, ..c }, "max_hole"),
            (ProtegoConfig { resume_bytes: c.pause_bytes, ..c }, "resume_bytes"),
            (ProtegoConfig { pause_bytes: c.rx_buffer_bytes + 1, ..c }, "pause_bytes"),
            (ProtegoConfig { ack_timeout: 0, ..c }, "ack_timeout"),
            (ProtegoConfig { pfc_class: 8, ..c }, "pfc_class"),
            (ProtegoConfig { ring_bytes: 4096, ..c }, "ring_bytes"),
        ] {
            let e = bad.validate().unwrap_err();
            assert!(e.contains(key), "{e}");
        }
    }

    /// Two ports joined by a link with a delay of `delay` frame times each
    /// way; port `a` sends `n` normal frames to `b`. `drop(copy, tag)`
    /// loses a frame on a → b (`copy`: how many frames with this kind and
    /// seq went before). One frame per port per step; `now` counts steps.
    struct Link {
        a: ProtegoPort,
        b: ProtegoPort,
        delay: u64,
        ab: VecDeque<(u64, Vec<u8>)>,
        ba: VecDeque<(u64, Vec<u8>)>,
        sent: BTreeMap<(u8, u32), u32>,
        delivered: Vec<u32>,
        ba_frames: Vec<Vec<u8>>,
        now: u64,
    }

    impl Link {
        fn new(ca: ProtegoConfig, cb: ProtegoConfig, delay: u64) -> Link {
            Link {
                a: ProtegoPort::new(ca).unwrap(),
                b: ProtegoPort::new(cb).unwrap(),
                delay,
                ab: VecDeque::new(),
                ba: VecDeque::new(),
                sent: BTreeMap::new(),
                delivered: vec![],
                ba_frames: vec![],
                now: 0,
            }
        }

        /// Runs `steps` steps; `normal` are a's normal frames (ids), sent
        /// as the link allows.
        fn run(&mut self, normal: &mut VecDeque<u32>, steps: u64, drop: &mut dyn FnMut(u32, Tag) -> bool) {
            for _ in 0..steps {
                self.now += 1;
                let now = self.now;
                // a -> b
                let pick = self.a.pick(normal.front().map(|_| 64));
                let f = match pick {
                    Pick::Normal => Some(self.a.send_normal(&frame(normal.pop_front().unwrap(), 64))),
                    Pick::Control(f) => Some(f),
                    Pick::Idle => None,
                };
                if let Some(f) = f {
                    let lost = match read_tag(&f) {
                        Some((t, _)) => {
                            let c = self.sent.entry((t.kind, t.seq.v17())).or_insert(0);
                            *c += 1;
                            drop(*c - 1, t)
                        }
                        None => false,
                    };
                    if !lost {
                        self.ab.push_back((now + self.delay, f));
                    }
                }
                // b -> a: b has no normal traffic.
                if let Pick::Control(f) = self.b.pick(None) {
                    self.ba_frames.push(f.clone());
                    self.ba.push_back((now + self.delay, f));
                }
                while self.ab.front().is_some_and(|(t, _)| *t <= now) {
                    let (_, f) = self.ab.pop_front().unwrap();
                    let o = self.b.receive(&f, now);
                    self.delivered.extend(o.deliver.iter().map(|f| id(f)));
                }
                let o = self.b.tick(now);
                self.delivered.extend(o.deliver.iter().map(|f| id(f)));
                while self.ba.front().is_some_and(|(t, _)| *t <= now) {
                    let (_, f) = self.ba.pop_front().unwrap();
                    assert!(self.a.receive(&f, now).deliver.is_empty(), "a control frame delivered");
                }
            }
        }

        fn losses_sent(&self) -> Vec<Loss> {
            self.ba_frames
                .iter()
                .filter_map(|f| {
                    let (t, at) = read_tag(f)?;
                    (t.kind == kind::LOSS).then(|| Loss::parse(f, t, at).unwrap())
                })
                .collect()
        }
    }

    fn cfg2() -> ProtegoConfig {
        ProtegoConfig { copies: 2, ack_timeout: 200, dummy_max: 3, ..ProtegoConfig::default() }
    }

    fn s(v: u16) -> Seq {
        Seq { era: false, seq: v }
    }

    fn data_drop(seqs: &'static [u16]) -> impl FnMut(u32, Tag) -> bool {
        move |_, t| t.kind == kind::DATA && seqs.contains(&t.seq.seq)
    }

    /// V1 (Fig. 5): 0..4 sent, 2 and the tail 4 lost.
    #[test]
    fn v1_fig5_middle_and_tail_loss() {
        let mut l = Link::new(cfg2(), cfg2(), 3);
        let mut q: VecDeque<u32> = (0..5).collect();
        // A dummy that reveals seq 5 must not itself be lost: drop DATA 2
        // and 4 only (the dummy is DATA-typed with inner 0x88B6; it is
        // frame 5, not in the list).
        l.run(&mut q, 100, &mut data_drop(&[2, 4]));
        assert_eq!(l.delivered, vec![0, 1, 2, 3, 4], "each once, in order");
        assert_eq!(l.losses_sent(), vec![Loss { first: s(2), hole: 1, latest: s(3) }, Loss { first: s(4), hole: 1, latest: s(4) }]);
        let (rx, tx) = (&l.b.rx.counters, &l.a.tx.counters);
        assert_eq!((rx.lost, rx.recovered, rx.duplicates, rx.timeouts), (2, 2, 2, 0), "{rx:?}");
        assert_eq!((tx.retx_frames, tx.retx, tx.loss_rx), (2, 4, 2), "{tx:?}");
        assert_eq!(l.a.tx.ring_len(), 0, "ring empty");
        assert_eq!(l.b.rx.buffered(), 0);
        assert!(rx.retx_delay_min.unwrap() > 0 && rx.retx_delay_max >= rx.retx_delay_min.unwrap());
    }

    /// V2: 10..14 lost, 15 received: one LOSS of 5; with `max_hole` 5 a hole
    /// of 6 ends in one timeout.
    #[test]
    fn v2_hole_of_five_and_max_hole() {
        let mut l = Link::new(cfg2(), cfg2(), 3);
        let mut q: VecDeque<u32> = (0..20).collect();
        l.run(&mut q, 200, &mut data_drop(&[10, 11, 12, 13, 14]));
        assert_eq!(l.delivered, (0..20).collect::<Vec<_>>());
        assert_eq!(l.losses_sent(), vec![Loss { first: s(10), hole: 5, latest: s(15) }]);
        assert_eq!((l.b.rx.counters.recovered, l.b.rx.counters.timeouts), (5, 0));
        let c = ProtegoConfig { max_hole: 5, ..cfg2() };
        let mut l = Link::new(c, c, 3);
        let mut q: VecDeque<u32> = (0..20).collect();
        l.run(&mut q, 600, &mut data_drop(&[10, 11, 12, 13, 14, 15]));
        assert_eq!(l.losses_sent(), vec![Loss { first: s(10), hole: 5, latest: s(16) }]);
        let rx = &l.b.rx.counters;
        assert_eq!((rx.lost, rx.recovered, rx.timeouts), (6, 5, 1), "{rx:?}");
        let want: Vec<u32> = (0..20).filter(|&i| i != 15).collect();
        assert_eq!(l.delivered, want, "15 skipped by the timeout, the rest in order");
        assert_eq!(l.b.rx.buffered(), 0);
    }

    /// V3: across the era flip, 65535 (era 0) and 0 (era 1) lost.
    #[test]
    fn v3_era_flip() {
        let mut l = Link::new(cfg2(), cfg2(), 3);
        let start = Seq { era: false, seq: 65533 };
        l.a.tx.next = start;
        let mut q: VecDeque<u32> = (0..5).collect();
        l.run(&mut q, 100, &mut |_, t| {
            t.kind == kind::DATA && (t.seq == Seq { era: false, seq: 65535 } || t.seq == Seq { era: true, seq: 0 })
        });
        assert_eq!(l.losses_sent(), vec![Loss { first: Seq { era: false, seq: 65535 }, hole: 2, latest: Seq { era: true, seq: 1 } }]);
        assert_eq!(l.delivered, vec![0, 1, 2, 3, 4]);
        assert_eq!(l.b.rx.counters.recovered, 2);
    }

    /// V4: 20 lost with both copies: after the timeout `ackNo` = 21 and the
    /// buffer drains; one timeout.
    #[test]
    fn v4_lost_with_every_copy() {
        let mut l = Link::new(cfg2(), cfg2(), 3);
        let mut q: VecDeque<u32> = (0..30).collect();
        l.run(&mut q, 400, &mut |_, t| t.seq == s(20) && t.kind != kind::ACK);
        let want: Vec<u32> = (0..30).filter(|&i| i != 20).collect();
        assert_eq!(l.delivered, want);
        let rx = &l.b.rx.counters;
        assert_eq!((rx.lost, rx.recovered, rx.timeouts), (1, 0, 1), "{rx:?}");
        assert_eq!((l.b.rx.ack_no(), l.b.rx.buffered()), (s(30), 0));
        assert_eq!(l.a.tx.counters.retx, 2, "both copies went");
    }

    /// V5: ProtegoNB, 2 lost: delivered 0, 1, 3, 4, 2; no duplicates
    /// forwarded.
    #[test]
    fn v5_nb_forwards_at_once() {
        let c = ProtegoConfig { nb: true, ..cfg2() };
        let mut l = Link::new(c, c, 3);
        let mut q: VecDeque<u32> = (0..5).collect();
        l.run(&mut q, 100, &mut data_drop(&[2]));
        assert_eq!(l.delivered, vec![0, 1, 3, 4, 2]);
        assert_eq!((l.b.rx.counters.duplicates, l.b.rx.buffered()), (1, 0));
    }

    /// V6: the buffer above `pause`, then below `resume`: one pause and one
    /// resume; the sender's normal input stops in between.
    #[test]
    fn v6_one_pause_one_resume() {
        // 64-byte frames: pause at 10 buffered, resume at 4.
        let c = ProtegoConfig { pause_bytes: 640, resume_bytes: 256, copies: 1, ..cfg2() };
        let mut l = Link::new(c, c, 20);
        let mut q: VecDeque<u32> = (0..200).collect();
        l.run(&mut q, 600, &mut data_drop(&[5]));
        assert_eq!(l.delivered, (0..200).collect::<Vec<_>>());
        let rx = &l.b.rx.counters;
        assert_eq!((rx.pauses, rx.resumes), (1, 1), "{rx:?}");
        assert!(l.a.tx.counters.paused_cycles > 0);
        let pfc: Vec<Option<bool>> = l.ba_frames.iter().map(|f| pfc_of(f, c.pfc_class)).filter(Option::is_some).collect();
        assert_eq!(pfc, vec![Some(true), Some(false)]);
        // The buffer went above pause by the frames in flight, no further.
        assert!(rx.buffer_high_water >= 640 && rx.buffer_high_water < 640 + 64 * 50, "{}", rx.buffer_high_water);
    }

    /// V8: no reverse traffic: explicit ACKs only, and the ring is empty one
    /// round trip after the last DATA.
    #[test]
    fn v8_explicit_acks_empty_the_ring() {
        let mut l = Link::new(cfg2(), cfg2(), 10);
        let mut q: VecDeque<u32> = (0..50).collect();
        l.run(&mut q, 50, &mut |_, _| false);
        assert_eq!(l.a.tx.counters.data, 50);
        l.run(&mut q, 2 * 10 + 2, &mut |_, _| false);
        assert_eq!(l.a.tx.ring_len(), 0, "one round trip after the last DATA");
        assert!(l.b.tx.counters.ack_explicit > 0 && l.b.tx.counters.ack_piggybacked == 0);
        // With reverse traffic on an unprotected direction the ACKs ride on it.
        let cb = ProtegoConfig { tx: false, ..cfg2() };
        let mut p = ProtegoPort::new(cb).unwrap();
        let t = Tag { kind: kind::DATA, seq: s(0) };
        let f = insert_tag(&frame(1, 64), t);
        let (tag, at) = read_tag(&f).unwrap();
        assert_eq!(p.receive(&f, 1).deliver.len(), 1);
        assert_eq!(p.pick(Some(64)), Pick::Normal, "normal goes before an explicit ACK");
        let g = p.send_normal(&frame(9, 64));
        assert_eq!(read_tag(&g).map(|x| x.0), Some(Tag { kind: kind::ACK, seq: tag.seq }));
        assert_eq!((p.tx.counters.ack_piggybacked, p.tx.counters.ack_explicit), (1, 0));
        assert_eq!(at, 12);
    }

    /// Decision 15: with both sides on and an ACK always pending, an
    /// explicit ACK goes after every `ack_every` normal frames; with 0 (B.1
    /// as written) never while a normal frame waits.
    #[test]
    fn d15_ack_ahead_of_normal_with_both_sides_on() {
        for (every, want) in [(0u32, "NNNNNNNNNNNN"), (4, "NNNNANNNNANN"), (1, "NANANANANANA")] {
            let mut p = ProtegoPort::new(ProtegoConfig { ack_every: every, ..cfg2() }).unwrap();
            let mut picks = String::new();
            for i in 0..12u16 {
                let f = insert_tag(&frame(i as u32, 64), Tag { kind: kind::DATA, seq: s(i) });
                assert_eq!(p.receive(&f, i as u64).deliver.len(), 1);
                match p.pick(Some(64)) {
                    Pick::Normal => {
                        p.send_normal(&frame(100 + i as u32, 64));
                        picks.push('N');
                    }
                    Pick::Control(f) => {
                        assert_eq!(read_tag(&f).map(|t| t.0), Some(Tag { kind: kind::ACK, seq: s(i) }));
                        picks.push('A');
                    }
                    Pick::Idle => panic!("a normal frame waits"),
                }
            }
            assert_eq!(picks, want, "ack_every {every}");
        }
        assert!(ProtegoPort::new(ProtegoConfig { ack_every: 256, ..cfg2() }).unwrap_err().contains("ack_every"));
    }

    /// Decision 16 (keepalive): the sender's frames wait for an ACK that
    /// was lost (and, second, for a peer that restarted and knows nothing
    /// of them); after its dummies, the link is quiet; `ackNoTimeout` later
    /// the dummies start again asking for an ACK, the receiver (re)acks
    /// `latest` (the restarted one synchronises on the dummy and acks the
    /// number before it) and the ring drains. Without frames waiting, no
    /// keepalive.
    #[test]
    fn d16_keepalive_recovers_lost_acks_and_a_restarted_peer() {
        let c = cfg2();
        for restart in [false, true] {
            let mut a = ProtegoPort::new(c).unwrap();
            let mut b = ProtegoPort::new(c).unwrap();
            // Five DATA reach B; B's ACKs are lost.
            for i in 0..5u32 {
                assert_eq!(a.pick_at(i as u64, Some(64)), Pick::Normal);
                let f = a.send_normal(&frame(i, 64));
                b.receive(&f, i as u64);
            }
            assert!(matches!(b.pick_at(10, None), Pick::Control(_)), "B's ACK (lost)");
            // A's three dummies (no ACK asked), then nothing.
            for t in 11..14 {
                let Pick::Control(d) = a.pick_at(t, None) else { panic!("a dummy") };
                assert_eq!(d[12 + TAG_LEN + 2], 0, "a plain dummy");
                b.receive(&d, t);
            }
            assert_eq!(a.pick_at(14, None), Pick::Idle);
            // B: its own dummies (lost too), no ACK: plain dummies ask nothing.
            while let Pick::Control(f) = b.pick_at(14, None) {
                assert_ne!(read_tag(&f).unwrap().0.kind, kind::ACK, "plain dummies ask nothing");
            }
            assert_eq!(a.tx.ring_len(), 5);
            if restart {
                b = ProtegoPort::new(c).unwrap();
            }
            // Quiet until ackNoTimeout after the last pick other than a
            // dummy (the DATA at 4).
            assert_eq!(a.pick_at(4 + c.ack_timeout - 1, None), Pick::Idle);
            let t = 4 + c.ack_timeout;
            let Pick::Control(d) = a.pick_at(t, None) else { panic!("a keepalive dummy") };
            assert_eq!((read_tag(&d).unwrap().0, d[12 + TAG_LEN + 2]), (Tag { kind: kind::DATA, seq: s(5) }, 1));
            b.receive(&d, t);
            let Pick::Control(ack) = b.pick_at(t + 1, None) else { panic!("restart {restart}: B acks") };
            assert_eq!(read_tag(&ack).unwrap().0, Tag { kind: kind::ACK, seq: s(4) });
            a.receive(&ack, t + 2);
            assert_eq!(a.tx.ring_len(), 0, "restart {restart}: the ring drains");
            assert_eq!(a.tx.counters.keepalives, 1);
            // Nothing waits: no keepalive, however long the quiet.
            for _ in 0..3 {
                let _ = a.pick_at(t + 3, None);
            }
            assert_eq!(a.pick_at(t + 10 * c.ack_timeout, None), Pick::Idle);
            assert_eq!(a.tx.counters.keepalives, 1);
        }
    }

    /// Random losses on both the data and the RETX copies, both directions'
    /// control frames intact: every frame delivered exactly once and in
    /// order, or skipped by a timeout; the ring drains.
    #[test]
    fn random_loss_in_order_exactly_once() {
        // Unlimited dummies: a tail loss is always found.
        let c = ProtegoConfig { dummy_max: 0, ..cfg2() };
        for (seed, p) in [(1u64, 0.02), (2, 0.1), (3, 0.2)] {
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut l = Link::new(c, c, 7);
            let n = 3000;
            let mut q: VecDeque<u32> = (0..n).collect();
            l.run(&mut q, 12_000, &mut |_, t| t.kind <= kind::RETX && rng.gen_bool(p));
            let rx = l.b.rx.counters;
            let mut last = None;
            for &d in &l.delivered {
                assert!(last.is_none_or(|x| d > x), "seed {seed}: {d} after {last:?}");
                last = Some(d);
            }
            assert_eq!(l.delivered.len() as u64 + rx.timeouts, n as u64, "seed {seed}: {rx:?}");
            assert_eq!((l.a.tx.ring_len(), l.b.rx.buffered()), (0, 0), "seed {seed}");
            assert!(rx.lost > 0 && rx.recovered > 0);
            eprintln!("p {p}: lost {} recovered {} timeouts {} duplicates {}", rx.lost, rx.recovered, rx.timeouts, rx.duplicates);
        }
    }

    fn data_at(rx: &mut ProtegoRx, v: u16, now: u64) -> Vec<u32> {
        let f = insert_tag(&frame(v as u32, 64), Tag { kind: kind::DATA, seq: s(v) });
        let (t, at) = read_tag(&f).unwrap();
        rx.receive(&f, t, at, now).deliver.iter().map(|f| id(f)).collect()
    }

    /// No ACK covering a hole leaves before the hole's LOSS; the LOSS goes
    /// first on the wire.
    #[test]
    fn ack_waits_for_the_loss() {
        let mut p = ProtegoPort::new(ProtegoConfig { tx: false, ..cfg2() }).unwrap();
        data_at(&mut p.rx, 0, 1);
        assert_eq!(p.rx.take_ack(), Some(s(0)));
        data_at(&mut p.rx, 2, 2);
        assert!(!p.rx.ack_pending());
        assert_eq!(p.rx.take_ack(), None, "the LOSS for 1 has not gone");
        let Pick::Control(f) = p.pick(Some(64)) else { panic!("LOSS first") };
        assert_eq!(read_tag(&f).unwrap().0.kind, kind::LOSS);
        assert_eq!(p.pick(Some(64)), Pick::Normal);
        let g = p.send_normal(&frame(9, 64));
        assert_eq!(read_tag(&g).unwrap().0, Tag { kind: kind::ACK, seq: s(2) });
    }

    /// Each sequence number lost with every copy costs a full timeout: the
    /// timer reloads on every `ackNo` advance, a skip included.
    #[test]
    fn timeouts_one_after_the_other() {
        let t = cfg2().ack_timeout;
        let mut rx = ProtegoRx::new(cfg2());
        assert_eq!(data_at(&mut rx, 0, 0), vec![0]);
        assert_eq!(data_at(&mut rx, 3, 10), Vec::<u32>::new(), "1 and 2 missing, 3 buffered");
        // A RETX of 3 (never requested) finds 3 in the buffer: a duplicate.
        let f = insert_tag(&frame(3, 64), Tag { kind: kind::RETX, seq: s(3) });
        let (tg, at) = read_tag(&f).unwrap();
        assert!(rx.receive(&f, tg, at, 11).deliver.is_empty(), "a second 3 is a duplicate");
        assert_eq!(rx.counters.duplicates, 1);
        assert!(rx.tick(10 + t - 1).deliver.is_empty());
        assert!(rx.tick(10 + t).deliver.is_empty());
        assert_eq!((rx.counters.timeouts, rx.ack_no()), (1, s(2)));
        assert!(rx.tick(10 + 2 * t - 1).deliver.is_empty(), "a full timeout for 2 as well");
        assert_eq!(rx.tick(10 + 2 * t).deliver.iter().map(|f| id(f)).collect::<Vec<_>>(), vec![3]);
        assert_eq!((rx.counters.timeouts, rx.ack_no(), rx.buffered()), (2, s(4), 0));
    }

    /// The peer restarts (its sequence back to 0): the receiver
    /// re-synchronises and delivers on, without a reset of its own.
    #[test]
    fn peer_restart_resyncs() {
        let mut l = Link::new(cfg2(), cfg2(), 3);
        let mut q: VecDeque<u32> = (0..10).collect();
        l.run(&mut q, 60, &mut |_, _| false);
        l.a = ProtegoPort::new(cfg2()).unwrap();
        let mut q: VecDeque<u32> = (10..20).collect();
        l.run(&mut q, 60, &mut |_, _| false);
        assert_eq!(l.delivered, (0..20).collect::<Vec<_>>());
        assert_eq!(l.b.rx.counters.resync, 1);
    }
}

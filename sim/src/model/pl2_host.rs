//! Golden model of the PL2 sender (003 §4.2.1 Eq. 1, §4.4 Algorithm 2, §5;
//! `PL2-PROTEGO.md` A.7) and a closed-loop incast that runs senders, the
//! reservation ALU of [`super::pl2`] and one egress queue together (003 §6.4;
//! A.8).
//!
//! - [`Pl2HostConfig`]: link rate, MTU, `K`, `t`, "recent" `R`, the measured
//!   RSV→GRT delay, and the decisions below that the spec leaves open;
//! - [`Pl2Host`]: one host with several flows; [`Pl2Host::schedule_burst`] and
//!   [`Pl2Host::receive_grt`] are Algorithm 2's two functions, and the host's
//!   output is a queue of timed [`HostEvent`]s a driver pops in time order
//!   ([`Pl2Host::next_time`], [`Pl2Host::pop_due`]);
//! - [`run_incast`]: `n` senders → one receiver through a [`Pl2Model`]
//!   (paper mode by default, or joint) and a finite egress queue, reported in
//!   an [`IncastReport`].
//!
//! **Time** is in whole nanoseconds (`u64`) from the start of the run.
//! Durations computed from the rate (a packet's serialisation, Eq. 1's wait)
//! are computed in `f64` and then rounded: a serialisation time up (a link
//! never sends faster than its rate), the wait to the nearest nanosecond. At
//! 100 Gb/s with a 1500-byte MTU every such duration is already whole (a slot
//! is 120 ns, 003 §4.1 fn 4, A.1).
//!
//! Decisions beyond the spec (each also at the item it concerns):
//! - **The double send of Alg. 2 l.16-18 (spec C).** Literally, l.16-18 resend
//!   whenever `chosen > t` and `lastChosen < t`, and l.11-12 also send after
//!   the GRT when the burst did not go unsolicited. A burst held back because
//!   `lastResp` was not recent, with `lastChosen < t`, would go twice. The
//!   model keeps, per flow, whether the outstanding burst *did* go
//!   unsolicited (A.7's `unsol`) and decides on that flag alone: unsolicited
//!   and `chosen > t` → one resend; not unsolicited → one send; unsolicited
//!   and `chosen <= t` → nothing. So every burst is sent once, or twice only
//!   when it went unsolicited and its GRT says it may have been dropped (the
//!   paper's accepted duplicates, §4.4).
//! - **The first burst of a flow.** A.7 sets `lastResp = −∞`, Alg. 2 l.4 sets
//!   `lastResponseTime = 0`. With `−∞` no first burst could go unsolicited and
//!   Alg. 2's `lastChosen = −1` (chosen so that `−1 < t`) would be pointless;
//!   with `0` it depends on when the flow starts. The model keeps A.7's `−∞`
//!   (`lastResp` is `None`) and lets [`Pl2HostConfig::first_burst_unsol`]
//!   (default true, Alg. 2's intent) say whether a flow that has had no GRT
//!   yet counts as recent.
//! - **`pendingBytes` of Eq. 1** ([`Pending`]): the bytes the host's NIC
//!   still has to send ahead of the burst. Measured when the GRT arrives (the
//!   literal reading, [`Pending::AtGrt`]), the burst leaves early whenever
//!   that data drains during the wait (test
//!   `literal_pending_at_grt_arrives_early`). The default [`Pending::Exact`]
//!   measures it at the hand-over, which solves Eq. 1 exactly: the burst
//!   leaves `max(0, chosen·MTU·8/rate − rsvGrtDelay)` after the GRT, or when
//!   the NIC is free if later (a timed-transmit NIC, which §4.4 says is all
//!   Alg. 2 needs), and is never early.
//! - **Control frames** (RSV, GRT; 64 B at 802.1Q priority, §5 fn 7) leave at
//!   once and take no data-link time: at 100 Gb/s one is 5 ns, and in an
//!   incast the bottleneck is the receiver's port, which they never cross.
//! - **The host NIC** is a FIFO at `rate_gbps`: a burst handed over at `h`
//!   goes out back to back from `max(h, end of what is queued)`.
//! - **A flow's next burst** (§5: "we wait to receive the GRT before
//!   transmitting the next burst"; the send call blocks until the
//!   transmission completes) starts when the previous burst's GRT has come
//!   back *and* its last packet (the resend's, if any) has left the NIC.
//!
//! What the closed loop shows (the tests at the end; figures for the default
//! 4:1 incast, 12 flows per host, 64-packet buffer):
//! - paper mode is lossless over 20 messages per flow (3840 packets, peak
//!   queue 40, goodput 0.994 of line rate), but its counters count
//!   reservations not yet arrived, with no time base and no view of the
//!   egress queue: once saturated, packets arrive at exactly line rate, so
//!   nothing drains a queue once built, and lateness (here bursts of one host
//!   meeting on its NIC, from the start-up on) lets it walk up with the run
//!   length (100 messages: 32 drops);
//! - the joint mode of A.5 (absolute slots) keeps the queue at its start-up
//!   peak (22) whatever the length, below the bound `lateness/slot + 2`;
//! - without PL2 the same load loses 2818 of 3840 packets;
//! - unsolicited bursts are safe only at low load (§4.4): 48 flows starting
//!   together unsolicited either lose bursts the ALU drops and the GRT does
//!   not ask to resend (T = 64 < t + nK = 207, A.4) or, with T = 207, flood
//!   the queue; and t = 35 makes the ALU drop more than t = 15.
use super::pl2::{DropReason, Grant, Op, Outcome, Pl2Config, Pl2Mode, Pl2Model, DEFAULT_K};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// Default `t` (003 §4.4, §6.1: 15; 10..25 behave the same).
pub const DEFAULT_SMALL_T: u32 = 15;

/// Default "recent" interval `R` in ns (A.7: undefined in the paper, 2 µs,
/// about two RSV→GRT exchanges of §5).
pub const DEFAULT_RECENT_NS: u64 = 2000;

/// Default measured RSV→GRT delay in ns (003 §5: 1 µs minimum NIC to NIC).
pub const DEFAULT_RSV_GRT_DELAY_NS: u64 = 1000;

/// How the host measures Eq. 1's `pendingBytes` (see the module
/// documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pending {
    /// The bytes still queued in the NIC when the GRT arrives; the burst is
    /// handed over `wait` later (Eq. 1 read literally). Early whenever the
    /// queued data drains during the wait.
    AtGrt,
    /// The bytes still queued in the NIC when the burst is handed over, which
    /// makes the burst leave exactly `max(0, chosen·MTU·8/rate −
    /// rsvGrtDelay)` after the GRT, or as soon as the NIC is free after that.
    #[default]
    Exact,
}

/// What a host does with its bursts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HostMode {
    /// PL2: Algorithm 2.
    #[default]
    Pl2,
    /// No PL2 (raw Ethernet, 003 §6.4's baseline): no RSV, every burst goes
    /// at once, unmarked; the next burst of a flow follows when the previous
    /// one has left the NIC. The negative control of the incast tests.
    Raw,
}

/// The sender's parameters (A.7; A.1 for `K` and `t`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pl2HostConfig {
    /// Link rate in Gb/s (bits per ns), finite and in `(0, 10000]`.
    pub rate_gbps: f64,
    /// MTU in bytes: one slot is one MTU at line rate (003 §4.1 fn 4);
    /// every data packet is this long. 64..=9216.
    pub mtu_bytes: u32,
    /// `K`: most packets per burst (one RSV each, 003 §4.3). 1..=255.
    pub k: u32,
    /// `t`: unsolicited bursts only while `lastChosen < t`; a GRT with
    /// `chosen > t` after an unsolicited burst triggers the resend (§4.4).
    pub t: u32,
    /// `R` in ns: `lastResp` is recent when `now − lastResp <= R` (A.7).
    pub recent_ns: u64,
    /// The measured RSV→GRT delay in ns that Eq. 1 subtracts (§5).
    pub rsv_grt_delay_ns: u64,
    /// Whether a flow that has had no GRT yet (`lastChosen = −1`, `lastResp =
    /// −∞`) counts as recent, i.e. sends its first burst unsolicited (Alg. 2's
    /// intent; A.7's `−∞` read literally says no).
    pub first_burst_unsol: bool,
    /// How `pendingBytes` is measured.
    pub pending: Pending,
    /// PL2 or the no-PL2 baseline.
    pub mode: HostMode,
}

impl Default for Pl2HostConfig {
    /// 100 Gb/s, 1500 B, K = 4, t = 15, R = 2 µs, RSV→GRT 1 µs, first burst
    /// unsolicited, exact pending, PL2.
    fn default() -> Pl2HostConfig {
        Pl2HostConfig {
            rate_gbps: 100.0,
            mtu_bytes: 1500,
            k: DEFAULT_K,
            t: DEFAULT_SMALL_T,
            recent_ns: DEFAULT_RECENT_NS,
            rsv_grt_delay_ns: DEFAULT_RSV_GRT_DELAY_NS,
            first_burst_unsol: true,
            pending: Pending::Exact,
            mode: HostMode::Pl2,
        }
    }
}

impl Pl2HostConfig {
    /// Checks every value; the error names the key and the allowed range.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.rate_gbps.is_finite() && self.rate_gbps > 0.0 && self.rate_gbps <= 10_000.0) {
            return Err(format!("pl2_host.rate_gbps = {}: must be a number in (0, 10000]", self.rate_gbps));
        }
        if !(64..=9216).contains(&self.mtu_bytes) {
            return Err(format!("pl2_host.mtu_bytes = {}: must be 64..=9216", self.mtu_bytes));
        }
        if self.k == 0 || self.k > 255 {
            return Err(format!("pl2_host.k = {}: must be 1..=255 (the RSV demand field is one byte)", self.k));
        }
        if self.t >= 1 << 31 {
            return Err(format!("pl2_host.t = {}: must be below 2^31", self.t));
        }
        Ok(())
    }

    /// Serialisation time of `bytes` at the link rate, rounded up to whole ns.
    pub fn tx_ns(&self, bytes: u64) -> u64 {
        let ns = bytes as f64 * 8.0 / self.rate_gbps;
        // The 1e-9 keeps an exact quotient computed a hair high from rounding up.
        (ns - 1e-9).ceil().max(0.0) as u64
    }

    /// One slot: one MTU at line rate, in ns (rounded up).
    pub fn slot_ns(&self) -> u64 {
        self.tx_ns(self.mtu_bytes as u64)
    }

    /// Eq. 1 (A.7): `max(0, chosen·MTU·8/rate − rsvGrtDelay −
    /// pendingBytes·8/rate)` in ns, rounded to the nearest ns.
    pub fn wait_ns(&self, chosen: u32, pending_bytes: u64) -> u64 {
        let slot_wait = chosen as f64 * self.mtu_bytes as f64 * 8.0 / self.rate_gbps;
        let w = slot_wait - self.rsv_grt_delay_ns as f64 - pending_bytes as f64 * 8.0 / self.rate_gbps;
        w.max(0.0).round() as u64
    }
}

/// What a host puts on its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostEventKind {
    /// A reservation request (64 B, priority; takes no data-link time).
    Rsv {
        /// Destination port.
        dst: u8,
        /// Slots asked for: the burst's packet count.
        demand: u8,
        /// Cookie the GRT echoes: `flow << 16 | burst & 0xffff`.
        cookie: u32,
    },
    /// One data packet of one MTU.
    Data {
        /// Destination port.
        dst: u8,
        /// Marked unsolicited (A.4).
        unsol: bool,
        /// The flow's burst number (from 0).
        burst: u64,
        /// Index of the packet in its burst (from 0).
        index: u8,
        /// Whether this is a second copy of the burst (the resend of l.18).
        resend: bool,
    },
}

/// One timed send: `kind` leaves host `src` (its switch port) for flow
/// `flow` at `at_ns` (a data packet's first bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostEvent {
    /// Time it leaves, ns.
    pub at_ns: u64,
    /// The sending host's switch port.
    pub src: u8,
    /// The flow.
    pub flow: usize,
    /// RSV or data.
    pub kind: HostEventKind,
}

/// A host's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostStats {
    /// RSVs sent.
    pub rsv: u64,
    /// GRTs accepted.
    pub grt: u64,
    /// Bursts sent unsolicited.
    pub unsol_bursts: u64,
    /// Bursts resent after an unsolicited try (Alg. 2 l.18).
    pub resends: u64,
    /// Data packets put on the wire (resends included).
    pub data_pkts: u64,
}

/// The burst a flow has in progress.
#[derive(Clone, Copy, Debug)]
struct Cur {
    burst: u64,
    packets: u8,
    cookie: u32,
    /// It went unsolicited.
    unsol: bool,
    /// Its GRT has come back (always true in raw mode).
    granted: bool,
    /// End of its last packet on the wire, once handed over.
    last_end: Option<u64>,
}

#[derive(Clone, Debug)]
struct Flow {
    dst: u8,
    /// `lastChosen`, −1 before the first GRT.
    last_chosen: i64,
    /// `lastResp`; `None` is −∞.
    last_resp: Option<u64>,
    /// Bursts waiting (packet counts).
    queue: VecDeque<u8>,
    cur: Option<Cur>,
    next_burst: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timer {
    /// Hand the flow's burst to the NIC (unsol: marked).
    Handover { flow: usize, unsol: bool, resend: bool },
    /// The flow's burst is done: start the next one, if any.
    Free { flow: usize },
}

/// One PL2 sender (003 Alg. 2, A.7) on switch port `port`, with one state per
/// flow and one NIC shared by its flows.
///
/// Driving it: calls carry a time `now` that must not go backwards. Between
/// calls, the driver asks [`Pl2Host::next_time`] for the host's next own
/// moment (an event to emit or an internal timer: a delayed hand-over, the
/// end of a burst) and calls [`Pl2Host::pop_due`] with the global time when
/// it is the earliest of everything; the host never acts ahead of the time it
/// is given, so a GRT can always be delivered before anything later.
#[derive(Clone, Debug)]
pub struct Pl2Host {
    cfg: Pl2HostConfig,
    port: u8,
    flows: Vec<Flow>,
    /// Internal timers by (time, sequence).
    timers: BTreeMap<(u64, u64), Timer>,
    /// Events to emit by (time, sequence).
    events: BTreeMap<(u64, u64), HostEvent>,
    seq: u64,
    /// The latest time the host has been given.
    clock: u64,
    /// When the NIC has sent everything handed to it.
    nic_free: u64,
    stats: HostStats,
}

impl Pl2Host {
    /// A host on switch port `port` with one flow per entry of `dsts` (the
    /// flow's destination port), or the error of [`Pl2HostConfig::validate`]
    /// (or about the flow count: at most 65536, the cookie's high half).
    pub fn new(cfg: Pl2HostConfig, port: u8, dsts: &[u8]) -> Result<Pl2Host, String> {
        cfg.validate()?;
        if dsts.len() > 1 << 16 {
            return Err(format!("pl2_host flows = {}: at most 65536 (the cookie's high half)", dsts.len()));
        }
        let flows = dsts
            .iter()
            .map(|&dst| Flow { dst, last_chosen: -1, last_resp: None, queue: VecDeque::new(), cur: None, next_burst: 0 })
            .collect();
        Ok(Pl2Host {
            cfg,
            port,
            flows,
            timers: BTreeMap::new(),
            events: BTreeMap::new(),
            seq: 0,
            clock: 0,
            nic_free: 0,
            stats: HostStats::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Pl2HostConfig {
        &self.cfg
    }

    /// The host's counters.
    pub fn stats(&self) -> &HostStats {
        &self.stats
    }

    /// A flow's `(lastChosen, lastResp)`; `lastResp` `None` is −∞. Panics if
    /// `flow` does not exist.
    pub fn flow_state(&self, flow: usize) -> (i64, Option<u64>) {
        (self.flows[flow].last_chosen, self.flows[flow].last_resp)
    }

    /// The destination port of flow `flow` (panics if it does not exist).
    pub fn flow_dst(&self, flow: usize) -> u8 {
        self.flows[flow].dst
    }

    /// Whether a flow has an RSV outstanding (a burst in progress) or bursts
    /// waiting.
    pub fn busy(&self, flow: usize) -> bool {
        let f = &self.flows[flow];
        f.cur.is_some() || !f.queue.is_empty()
    }

    /// Bytes the NIC still has to send at `now` of what it has been handed
    /// (Eq. 1's `pendingBytes`), rounded down.
    pub fn pending_bytes(&self, now: u64) -> u64 {
        let ns = self.nic_free.saturating_sub(now);
        (ns as f64 * self.cfg.rate_gbps / 8.0).floor() as u64
    }

    /// `scheduleBurst` (Alg. 2 l.5-13, A.7): a burst of `packets` (1..=K)
    /// packets for `flow` at `now`. If the flow has a burst in progress (its
    /// RSV outstanding or its packets not yet sent) the burst waits in the
    /// flow's queue and starts when the previous one is done (§5). Starting a
    /// burst emits its RSV at once and, if `lastChosen < t` and `lastResp` is
    /// recent (`now − lastResp <= R`; see
    /// [`Pl2HostConfig::first_burst_unsol`] for a flow without a GRT), the
    /// burst at once, marked unsolicited. In [`HostMode::Raw`] the burst goes
    /// at once, unmarked, with no RSV.
    pub fn schedule_burst(&mut self, now: u64, flow: usize, packets: u8) -> Result<(), String> {
        if flow >= self.flows.len() {
            return Err(format!("flow {flow} does not exist ({} flows)", self.flows.len()));
        }
        if packets == 0 || packets as u32 > self.cfg.k {
            return Err(format!("burst of {packets} packets: must be 1..=K ({})", self.cfg.k));
        }
        self.advance(now)?;
        self.flows[flow].queue.push_back(packets);
        if self.flows[flow].cur.is_none() {
            self.start(now, flow);
        }
        Ok(())
    }

    /// `receiveGRT` (Alg. 2 l.14-22 as A.7 states it) for `flow` at `now`:
    /// `chosen = max(send, recv)`; an unsolicited burst with `chosen > t` is
    /// resent unmarked after `wait`; a burst that did not go unsolicited is
    /// sent after `wait`; an unsolicited burst with `chosen <= t` is not sent
    /// again; then `lastChosen = chosen`, `lastResp = now`. `wait` is
    /// [`Pl2HostConfig::wait_ns`] with `pendingBytes` per
    /// [`Pl2HostConfig::pending`].
    ///
    /// Errors (and changes nothing) if `now` went backwards, the flow does not
    /// exist, has no RSV outstanding, or the cookie is not its outstanding
    /// RSV's (a stale or foreign GRT).
    pub fn receive_grt(&mut self, now: u64, flow: usize, grant: &Grant) -> Result<(), String> {
        self.advance(now)?;
        let cur = match self.flows.get(flow) {
            None => return Err(format!("flow {flow} does not exist ({} flows)", self.flows.len())),
            Some(f) => f.cur,
        };
        let Some(cur) = cur.filter(|c| !c.granted) else {
            return Err(format!("flow {flow}: no RSV outstanding"));
        };
        if cur.cookie != grant.cookie {
            return Err(format!("flow {flow}: GRT cookie {:#x} is not the outstanding RSV's {:#x}", grant.cookie, cur.cookie));
        }
        self.stats.grt += 1;
        let chosen = grant.send.max(grant.recv);
        let send = if cur.unsol { chosen > self.cfg.t } else { true };
        let f = &mut self.flows[flow];
        f.last_chosen = chosen as i64;
        f.last_resp = Some(now);
        let c = f.cur.as_mut().expect("checked above");
        c.granted = true;
        if send {
            let at = match self.cfg.pending {
                Pending::AtGrt => now + self.cfg.wait_ns(chosen, self.pending_bytes(now)),
                Pending::Exact => now + self.cfg.wait_ns(chosen, 0),
            };
            if cur.unsol {
                self.stats.resends += 1;
            }
            self.timer(at, Timer::Handover { flow, unsol: false, resend: cur.unsol });
        } else {
            // Unsolicited, not resent: done once its packets have left.
            let end = cur.last_end.expect("an unsolicited burst is handed over when it starts").max(now);
            self.timer(end, Timer::Free { flow });
        }
        Ok(())
    }

    /// The host's next own moment: its earliest event or internal timer.
    pub fn next_time(&self) -> Option<u64> {
        let e = self.events.keys().next().map(|k| k.0);
        let t = self.timers.keys().next().map(|k| k.0);
        match (e, t) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs the host's timers up to `now`, then pops its earliest event if it
    /// is due (`at_ns <= now`). Call until `None` to get every event due.
    /// Panics if `now` goes backwards (a driver bug).
    pub fn pop_due(&mut self, now: u64) -> Option<HostEvent> {
        self.advance(now).expect("pop_due: time went backwards");
        let (&k, _) = self.events.iter().next()?;
        if k.0 > now {
            return None;
        }
        self.events.remove(&k)
    }

    /// Every event due at or before `now`, in time order.
    pub fn drain_until(&mut self, now: u64) -> Vec<HostEvent> {
        std::iter::from_fn(|| self.pop_due(now)).collect()
    }

    fn advance(&mut self, now: u64) -> Result<(), String> {
        if now < self.clock {
            return Err(format!("time went backwards: {now} ns after {} ns", self.clock));
        }
        self.clock = now;
        while let Some((&k, &tm)) = self.timers.iter().next() {
            if k.0 > now {
                break;
            }
            self.timers.remove(&k);
            match tm {
                Timer::Handover { flow, unsol, resend } => self.handover(k.0, flow, unsol, resend),
                Timer::Free { flow } => {
                    self.flows[flow].cur = None;
                    if !self.flows[flow].queue.is_empty() {
                        self.start(k.0, flow);
                    }
                }
            }
        }
        Ok(())
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    fn timer(&mut self, at: u64, t: Timer) {
        let s = self.next_seq();
        self.timers.insert((at, s), t);
    }

    fn emit(&mut self, at: u64, flow: usize, kind: HostEventKind) {
        let s = self.next_seq();
        self.events.insert((at, s), HostEvent { at_ns: at, src: self.port, flow, kind });
    }

    /// Starts the flow's next queued burst at `now` (the flow is idle).
    fn start(&mut self, now: u64, flow: usize) {
        let (t, recent_ns, first, mode) = (self.cfg.t, self.cfg.recent_ns, self.cfg.first_burst_unsol, self.cfg.mode);
        let f = &mut self.flows[flow];
        let Some(packets) = f.queue.pop_front() else { return };
        let burst = f.next_burst;
        f.next_burst += 1;
        let cookie = ((flow as u32) << 16) | (burst as u32 & 0xffff);
        let recent = match f.last_resp {
            Some(r) => now - r <= recent_ns,
            None => first,
        };
        let unsol = mode == HostMode::Pl2 && f.last_chosen < t as i64 && recent;
        let raw = mode == HostMode::Raw;
        f.cur = Some(Cur { burst, packets, cookie, unsol, granted: raw, last_end: None });
        let dst = f.dst;
        if !raw {
            self.stats.rsv += 1;
            self.emit(now, flow, HostEventKind::Rsv { dst, demand: packets, cookie });
        }
        if unsol || raw {
            if unsol {
                self.stats.unsol_bursts += 1;
            }
            self.handover(now, flow, unsol, false);
        }
    }

    /// Hands the flow's burst to the NIC at `h`: its packets go back to back
    /// from `max(h, nic_free)`.
    fn handover(&mut self, h: u64, flow: usize, unsol: bool, resend: bool) {
        let cur = self.flows[flow].cur.expect("a hand-over belongs to a burst in progress");
        let dst = self.flows[flow].dst;
        let tx = self.cfg.slot_ns();
        let mut at = h.max(self.nic_free);
        for index in 0..cur.packets {
            self.emit(at, flow, HostEventKind::Data { dst, unsol, burst: cur.burst, index, resend });
            at += tx;
        }
        self.nic_free = at;
        self.stats.data_pkts += cur.packets as u64;
        let c = self.flows[flow].cur.as_mut().expect("checked");
        c.last_end = Some(at);
        if c.granted {
            self.timer(at, Timer::Free { flow });
        }
    }
}

/// Message sizes of [`run_incast`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sizes {
    /// Every message has `packets` packets.
    #[default]
    Fixed,
    /// Each message has 1..=`packets` packets, uniformly, drawn from a
    /// xorshift generator seeded with `seed` (the same run for the same
    /// seed).
    Uniform { seed: u64 },
}

/// The closed-loop incast of [`run_incast`] (003 §6.4, A.8, scaled down).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IncastConfig {
    /// Sending hosts, on switch ports `receivers..receivers + senders`.
    pub senders: usize,
    /// Receiving hosts, on ports `0..receivers` (1: an incast; several with
    /// one sender: the outcast of 003 Fig. 10). Flow `f` of the sender on
    /// port `s` goes to receiver `(f + s) mod receivers`.
    pub receivers: usize,
    /// Flows per sending host.
    pub flows: usize,
    /// Messages per flow, sent one after the other.
    pub messages: usize,
    /// Packets per message (one burst, 1..=K); with [`Sizes::Uniform`] the
    /// largest.
    pub packets: u8,
    /// How many packets each message has.
    pub sizes: Sizes,
    /// Egress queue capacity at each receiver's port, in packets (the one in
    /// transmission included); a data packet that finds it full is dropped.
    pub queue_cap: usize,
    /// One-way delay host ↔ switch in ns, for RSV, GRT and data alike.
    pub one_way_ns: u64,
    /// Every sender's configuration.
    pub host: Pl2HostConfig,
    /// The ALU's `K` and `T` (`t_drop`) and mode; `ports` and `port_en` are
    /// set by the run (`senders + 1` ports, all on).
    pub alu: Pl2Config,
}

impl Default for IncastConfig {
    /// 4:1 incast, 12 flows per host (§6.4), 20 messages of 4 packets per
    /// flow, 64-packet queue, 500 ns one way (so the true RSV→GRT delay is the
    /// host's default 1 µs), paper-mode ALU with K = 4, T = 64. The hosts are
    /// the default but with `first_burst_unsol` off (A.7's `lastResp = −∞`):
    /// 48 flows starting unsolicited at once break the rule for T (A.4 wants
    /// T ≥ 15 + 48·4) and lose packets (test
    /// `incast_unsolicited_start_of_48_flows`).
    fn default() -> IncastConfig {
        IncastConfig {
            senders: 4,
            receivers: 1,
            flows: 12,
            messages: 20,
            packets: 4,
            sizes: Sizes::Fixed,
            queue_cap: 64,
            one_way_ns: 500,
            host: Pl2HostConfig { first_burst_unsol: false, ..Pl2HostConfig::default() },
            alu: Pl2Config { mode: Pl2Mode::Paper, ..Pl2Config::default() },
        }
    }
}

/// What [`run_incast`] measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct IncastReport {
    /// Distinct packets the application sent (`senders·flows·messages·packets`).
    pub offered: u64,
    /// Distinct packets delivered at least once.
    pub delivered: u64,
    /// Extra copies delivered (an unsolicited burst that passed and was also
    /// resent, §4.4).
    pub duplicates: u64,
    /// Distinct packets never delivered.
    pub lost: u64,
    /// Data packets dropped because the egress queue was full.
    pub queue_drops: u64,
    /// Unsolicited packets the ALU dropped (`unsol_drop`).
    pub alu_unsol_drops: u64,
    /// Unsolicited packets the ALU dropped whose burst was never resent (the
    /// GRT said `chosen <= t`): what the rule for T (A.4) must prevent.
    pub never_resent_pkts: u64,
    /// Unsolicited bursts sent.
    pub unsol_bursts: u64,
    /// Bursts resent (Alg. 2 l.18).
    pub resends: u64,
    /// Largest egress queue depth in packets (the one in transmission
    /// included), over the receivers' ports.
    pub max_queue: usize,
    /// When the queue first reached `max_queue`, ns.
    pub max_queue_at_ns: u64,
    /// Largest lateness of a solicited packet at the switch against the slot
    /// its GRT gave it, ns: paper mode, the RSV's arrival + `chosen` slots
    /// (+ its index); joint mode, the start of absolute slot `now + chosen`
    /// (+ its index).
    pub max_late_ns: u64,
    /// Solicited packets that reached the switch before that slot.
    pub early_pkts: u64,
    /// `OUT_RES` high-water mark of the receivers' ports (the ALU's backlog
    /// ahead, slots; the largest).
    pub out_high_water: u32,
    /// When the last packet finished leaving a receiver's port, ns.
    pub completion_ns: u64,
    /// `delivered · slot / completion_ns`: distinct packets delivered as a
    /// fraction of what one link could carry from time 0 (one receiver's;
    /// in an outcast, the sender's).
    pub goodput: f64,
    /// Slots the receivers' links carried a packet in (duplicates included),
    /// summed over receivers, per slot between the first and the last
    /// delivery.
    pub busy: f64,
    /// Earliest and latest flow completion, ns: when a flow's last distinct
    /// packet finished leaving the receiver's port.
    pub flow_done_min_ns: u64,
    pub flow_done_max_ns: u64,
    /// Jain's fairness index over the flows' throughputs (distinct packets
    /// delivered / completion time): 1 when every flow got the same share,
    /// `1/n` when one flow got everything.
    pub jain: f64,
    /// Queueing delay of the packets the receivers' ports sent (from joining
    /// the egress queue to the start of their transmission), ns: mean,
    /// standard deviation (the jitter the switch adds), 99th percentile and
    /// largest.
    pub qdelay_mean_ns: f64,
    pub qdelay_std_ns: f64,
    pub qdelay_p99_ns: u64,
    pub qdelay_max_ns: u64,
    /// Collisions (issue 15, "joint vs paper mode"): pairs of grants whose
    /// bursts, as granted (a grant's burst occupies `[at, at + demand·slot)` at
    /// the switch, `at` its slot as in `max_late_ns`), overlap on a
    /// receiver's port (`_recv`) or on a sender's link (`_send`). Joint mode
    /// books each slot of a port once, so both are 0 there. `None` where
    /// not measured: the RTL engine cannot see the slot clock at each of the
    /// ALU's decisions, which joint mode's slots count from.
    pub collisions_recv: Option<u64>,
    pub collisions_send: Option<u64>,
}

impl IncastReport {
    /// Sets the queueing-delay fields (mean, standard deviation, p99,
    /// maximum) from the delays `d` (ns; sorted here).
    pub fn set_qdelay(&mut self, d: &mut [u64]) {
        if d.is_empty() {
            return;
        }
        d.sort_unstable();
        let n = d.len() as f64;
        self.qdelay_mean_ns = d.iter().sum::<u64>() as f64 / n;
        self.qdelay_std_ns = (d.iter().map(|&x| (x as f64 - self.qdelay_mean_ns).powi(2)).sum::<f64>() / n).sqrt();
        self.qdelay_p99_ns = d[((d.len() * 99).div_ceil(100)).saturating_sub(1)];
        self.qdelay_max_ns = *d.last().expect("not empty");
    }
}

/// Counts the bursts in `booked` that overlap `[at, end)`, then books it;
/// forgets bursts that ended by `now` (no later grant starts before `now`).
pub fn book(booked: &mut Vec<(u64, u64)>, now: u64, at: u64, end: u64) -> u64 {
    booked.retain(|&(_, e)| e > now);
    let n = booked.iter().filter(|&&(s, e)| s < end && at < e).count() as u64;
    booked.push((at, end));
    n
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// A host's RSV or data packet reaches the switch.
    AtSwitch(HostEvent),
    /// A GRT reaches host `host` (index in the host list).
    Grt { host: usize, flow: usize, grant: Grant },
    /// Receiver port `port` finished sending its head packet.
    EgressDone { port: usize },
}

type PacketId = (u8, usize, u64, u8);

/// In joint mode, runs the ALU's slot clock forward to the current slot,
/// `floor(now / slot)`, as the running clock would (A.5).
fn joint_now(alu: &mut Pl2Model, now_ns: u64, slot_ns: u64) -> &mut Pl2Model {
    if alu.config().mode == Pl2Mode::Joint {
        let slot = (now_ns / slot_ns) as u32;
        alu.advance(slot.wrapping_sub(alu.now()));
    }
    alu
}

/// Runs the closed-loop incast: every flow of every sender schedules all its
/// messages at time 0 (they go one after the other, §5); RSVs and data reach
/// the switch `one_way_ns` after leaving, GRTs reach the host `one_way_ns`
/// after the RSV reached the switch; the ALU ([`Pl2Model`], one op at a time)
/// sees every RSV and data packet; data that passes joins the receiver port's
/// queue, which sends one packet per slot. In joint mode the ALU's slot clock
/// is set to `floor(now / slot)` before each op, as a running `SLOT_NOW`
/// would read (A.5).
///
/// Ties at one time: switch-side events (arrivals, GRTs, egress) before the
/// hosts' own, each in the order they were scheduled. Deterministic, no
/// randomness. Errors on a bad configuration (naming the key).
/// Queues every host's messages at time 0: `cfg.messages` per flow, each
/// of `cfg.packets` packets or, with [`Sizes::Uniform`], 1..=`packets` from
/// the seeded generator (hosts, then flows, then messages: the same draw on
/// every engine). Returns the packets offered.
pub fn schedule_messages(hosts: &mut [Pl2Host], cfg: &IncastConfig) -> Result<u64, String> {
    let mut offered = 0u64;
    let mut rng = match cfg.sizes {
        Sizes::Uniform { seed } => seed | 1,
        Sizes::Fixed => 1,
    };
    for h in hosts.iter_mut() {
        for f in 0..cfg.flows {
            for _ in 0..cfg.messages {
                let n = match cfg.sizes {
                    Sizes::Fixed => cfg.packets,
                    Sizes::Uniform { .. } => {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        1 + (rng % cfg.packets as u64) as u8
                    }
                };
                offered += n as u64;
                h.schedule_burst(0, f, n)?;
            }
        }
    }
    Ok(offered)
}

pub fn run_incast(cfg: &IncastConfig) -> Result<IncastReport, String> {
    let ports = cfg.senders + cfg.receivers;
    if cfg.receivers == 0 || cfg.receivers >= super::pl2::MAX_PORTS {
        return Err(format!("incast.receivers = {}: must be 1..={}", cfg.receivers, super::pl2::MAX_PORTS - 1));
    }
    if cfg.senders == 0 || ports > super::pl2::MAX_PORTS {
        return Err(format!(
            "incast.senders = {}: must be 1..={} with {} receiver(s)",
            cfg.senders,
            super::pl2::MAX_PORTS - cfg.receivers,
            cfg.receivers
        ));
    }
    if cfg.queue_cap == 0 {
        return Err("incast.queue_cap = 0: must be at least 1".into());
    }
    if cfg.packets == 0 || cfg.packets as u32 > cfg.host.k {
        return Err(format!("incast.packets = {}: must be 1..=K ({})", cfg.packets, cfg.host.k));
    }
    let alu_cfg = Pl2Config { ports, port_en: if ports == 64 { u64::MAX } else { (1u64 << ports) - 1 }, ..cfg.alu };
    let mut alu = Pl2Model::new(alu_cfg)?;
    let first_sender = cfg.receivers;
    let mut hosts = (first_sender..ports)
        .map(|p| {
            let dsts: Vec<u8> = (0..cfg.flows).map(|f| ((f + p) % cfg.receivers) as u8).collect();
            Pl2Host::new(cfg.host, p as u8, &dsts)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let offered = schedule_messages(&mut hosts, cfg)?;
    let slot = cfg.host.slot_ns();
    let mut evq: BTreeMap<(u64, u64), Ev> = BTreeMap::new();
    let mut seq = 0u64;
    let mut push = |q: &mut BTreeMap<(u64, u64), Ev>, at: u64, e: Ev| {
        seq += 1;
        q.insert((at, seq), e);
    };
    // One egress queue per receiver port: each packet and when it joined.
    let mut queues: Vec<VecDeque<(PacketId, u64)>> = vec![VecDeque::new(); cfg.receivers];
    let mut qdelay: Vec<u64> = vec![];
    let mut got: HashMap<PacketId, u32> = HashMap::new();
    // Per (sender port, flow): distinct packets delivered, when the last one left.
    let mut flow_done: BTreeMap<(u8, usize), (u64, u64)> = BTreeMap::new();
    let mut r = IncastReport { offered, ..Default::default() };
    let (mut first_delivery, mut sent_slots) = (None, 0u64);
    // Where each burst is due at the switch (its GRT's slot), which bursts the
    // ALU dropped packets of, and which were resent.
    let mut sched: HashMap<(u8, usize, u64), u64> = HashMap::new();
    let mut alu_dropped: HashMap<(u8, usize, u64), u64> = HashMap::new();
    let mut resent: std::collections::HashSet<(u8, usize, u64)> = Default::default();
    // The bursts granted per receiver port and per sender link, for collisions.
    let mut on_recv: HashMap<u8, Vec<(u64, u64)>> = HashMap::new();
    let mut on_send: HashMap<u8, Vec<(u64, u64)>> = HashMap::new();
    let mut coll = (0u64, 0u64);
    loop {
        let tq = evq.keys().next().map(|k| k.0);
        let th = hosts.iter().filter_map(|h| h.next_time()).min();
        let now = match (tq, th) {
            (None, None) => break,
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).expect("one is set"),
        };
        if tq == Some(now) {
            let (_, ev) = evq.pop_first().expect("peeked");
            match ev {
                Ev::AtSwitch(e) => match e.kind {
                    HostEventKind::Rsv { dst, demand, cookie } => {
                        match joint_now(&mut alu, now, slot).rsv(e.src, e.src, dst, demand, cookie) {
                            Outcome::Grant(g) => {
                                let chosen = g.send.max(g.recv) as u64;
                                let at = match alu.config().mode {
                                    Pl2Mode::Joint => (now / slot + chosen) * slot,
                                    _ => now + chosen * slot,
                                };
                                sched.insert((e.src, e.flow, (cookie & 0xffff) as u64), at);
                                let end = at + g.demand as u64 * slot;
                                coll.0 += book(on_recv.entry(dst).or_default(), now, at, end);
                                coll.1 += book(on_send.entry(e.src).or_default(), now, at, end);
                                push(
                                    &mut evq,
                                    now + cfg.one_way_ns,
                                    Ev::Grt { host: e.src as usize - first_sender, flow: e.flow, grant: g },
                                )
                            }
                            o => return Err(format!("RSV from port {} refused: {o:?}", e.src)),
                        }
                    }
                    HostEventKind::Data { dst, unsol, burst, index, resend } => {
                        if resend {
                            resent.insert((e.src, e.flow, burst));
                        }
                        if let Some(&at) = sched.get(&(e.src, e.flow, burst & 0xffff)).filter(|_| !unsol) {
                            let due = at + index as u64 * slot;
                            r.max_late_ns = r.max_late_ns.max(now.saturating_sub(due));
                            r.early_pkts += (now < due) as u64;
                        }
                        let op = if unsol { Op::Unsol { src: e.src, dst } } else { Op::Data { src: e.src, dst } };
                        match joint_now(&mut alu, now, slot).apply(&op) {
                            Outcome::Drop(DropReason::UnsolOverT) => {
                                r.alu_unsol_drops += 1;
                                *alu_dropped.entry((e.src, e.flow, burst)).or_insert(0) += 1;
                            }
                            Outcome::Pass if queues[dst as usize].len() >= cfg.queue_cap => r.queue_drops += 1,
                            Outcome::Pass => {
                                let queue = &mut queues[dst as usize];
                                queue.push_back(((e.src, e.flow, burst, index), now));
                                if queue.len() > r.max_queue {
                                    (r.max_queue, r.max_queue_at_ns) = (queue.len(), now);
                                }
                                if queue.len() == 1 {
                                    push(&mut evq, now + slot, Ev::EgressDone { port: dst as usize });
                                }
                            }
                            o => return Err(format!("data packet from port {}: unexpected {o:?}", e.src)),
                        }
                    }
                },
                Ev::Grt { host, flow, grant } => hosts[host].receive_grt(now, flow, &grant)?,
                Ev::EgressDone { port } => {
                    let queue = &mut queues[port];
                    let (id, joined) = queue.pop_front().expect("egress busy with an empty queue");
                    qdelay.push(now - slot - joined);
                    let copies = got.entry(id).or_insert(0);
                    *copies += 1;
                    if *copies == 1 {
                        let f = flow_done.entry((id.0, id.1)).or_insert((0, 0));
                        *f = (f.0 + 1, now);
                    }
                    first_delivery.get_or_insert(now - slot);
                    sent_slots += 1;
                    r.completion_ns = now;
                    if !queue.is_empty() {
                        push(&mut evq, now + slot, Ev::EgressDone { port });
                    }
                }
            }
            continue;
        }
        for h in hosts.iter_mut() {
            while let Some(e) = h.pop_due(now) {
                push(&mut evq, e.at_ns + cfg.one_way_ns, Ev::AtSwitch(e));
            }
        }
    }
    for h in &hosts {
        if (0..cfg.flows).any(|f| h.busy(f)) {
            return Err("incast: a flow never finished (a GRT went missing)".into());
        }
        r.unsol_bursts += h.stats().unsol_bursts;
        r.resends += h.stats().resends;
    }
    (r.collisions_recv, r.collisions_send) = (Some(coll.0), Some(coll.1));
    r.never_resent_pkts = alu_dropped.iter().filter(|(b, _)| !resent.contains(b)).map(|(_, n)| n).sum();
    r.out_high_water = (0..cfg.receivers).map(|p| alu.out_high_water(p)).max().unwrap_or(0);
    r.delivered = got.len() as u64;
    r.duplicates = got.values().map(|&n| n as u64 - 1).sum();
    r.lost = r.offered - r.delivered;
    let tput: Vec<f64> = flow_done.values().filter(|(_, at)| *at > 0).map(|&(n, at)| n as f64 / at as f64).collect();
    r.jain = jain(&tput);
    r.set_qdelay(&mut qdelay);
    r.flow_done_min_ns = flow_done.values().map(|f| f.1).min().unwrap_or(0);
    r.flow_done_max_ns = flow_done.values().map(|f| f.1).max().unwrap_or(0);
    if r.completion_ns > 0 {
        r.goodput = (r.delivered * slot) as f64 / r.completion_ns as f64;
        let span = r.completion_ns - first_delivery.unwrap_or(0);
        r.busy = (sent_slots * slot) as f64 / span as f64;
    }
    Ok(r)
}

/// Jain's fairness index `(Σx)² / (n·Σx²)` of `x` (1 for an empty or
/// all-zero list).
pub fn jain(x: &[f64]) -> f64 {
    let (s, s2) = x.iter().fold((0.0, 0.0), |(s, s2), v| (s + v, s2 + v * v));
    if x.is_empty() || s2 == 0.0 {
        1.0
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_of_equal_and_skewed_shares() {
        assert_eq!(jain(&[]), 1.0);
        assert!((jain(&[2.0, 2.0, 2.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!((jain(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
    }

    /// A data event as `(at_ns, flow, unsol, resend)`.
    type DataSeen = (u64, usize, bool, bool);

    fn grant(send: u32, recv: u32, cookie: u32) -> Grant {
        Grant { demand: 4, send, recv, cookie, out_port: 1 }
    }

    fn host(cfg: Pl2HostConfig, flows: usize) -> Pl2Host {
        Pl2Host::new(cfg, 1, &vec![0u8; flows]).unwrap()
    }

    /// `(at_ns, flow, unsol, resend)` of the data events, and the RSVs'
    /// `(at_ns, flow, cookie)`.
    fn split(ev: &[HostEvent]) -> (Vec<DataSeen>, Vec<(u64, usize, u32)>) {
        let mut d = vec![];
        let mut r = vec![];
        for e in ev {
            match e.kind {
                HostEventKind::Data { unsol, resend, .. } => d.push((e.at_ns, e.flow, unsol, resend)),
                HostEventKind::Rsv { cookie, .. } => r.push((e.at_ns, e.flow, cookie)),
            }
        }
        (d, r)
    }

    fn data_at(start: u64, flow: usize, unsol: bool, resend: bool) -> Vec<DataSeen> {
        (0..4).map(|i| (start + 120 * i, flow, unsol, resend)).collect()
    }

    #[test]
    fn first_burst_goes_unsolicited() {
        let mut h = host(Pl2HostConfig::default(), 2);
        assert_eq!(h.flow_state(0), (-1, None));
        h.schedule_burst(0, 0, 4).unwrap();
        let ev = h.drain_until(0);
        assert_eq!(ev[0], HostEvent { at_ns: 0, src: 1, flow: 0, kind: HostEventKind::Rsv { dst: 0, demand: 4, cookie: 0 } });
        let (d, r) = split(&h.drain_until(1000));
        assert_eq!(r, vec![], "one RSV only");
        let mut all = split(&ev).0;
        all.extend(d);
        assert_eq!(all, data_at(0, 0, true, false), "4 unsolicited packets back to back from 0");
        assert_eq!(h.stats().unsol_bursts, 1);
        // A.7's lastResp = −∞ read literally: the first burst waits for its GRT.
        let mut h = host(Pl2HostConfig { first_burst_unsol: false, ..Default::default() }, 1);
        h.schedule_burst(0, 0, 4).unwrap();
        let (d, r) = split(&h.drain_until(10_000));
        assert_eq!((d, r), (vec![], vec![(0, 0, 0)]));
        // Raw mode: no RSV, the burst unmarked at once.
        let mut h = host(Pl2HostConfig { mode: HostMode::Raw, ..Default::default() }, 1);
        h.schedule_burst(0, 0, 4).unwrap();
        assert_eq!(split(&h.drain_until(10_000)), (data_at(0, 0, false, false), vec![]));
    }

    #[test]
    fn unsolicited_then_chosen_over_t_resends_once() {
        let mut h = host(Pl2HostConfig::default(), 1);
        h.schedule_burst(0, 0, 4).unwrap();
        h.drain_until(999);
        // chosen = max(3, 20) = 20 > t = 15: wait = 20·120 − 1000 − 0 = 1400
        // (the unsolicited burst left the NIC at 480).
        assert_eq!(h.pending_bytes(1000), 0);
        h.receive_grt(1000, 0, &grant(3, 20, 0)).unwrap();
        assert_eq!(h.flow_state(0), (20, Some(1000)));
        let (d, r) = split(&h.drain_until(1_000_000));
        assert_eq!(r, vec![]);
        assert_eq!(d, data_at(2400, 0, false, true), "one resend, unmarked, at 1000 + 1400");
        assert_eq!((h.stats().resends, h.stats().data_pkts), (1, 8));
        assert!(!h.busy(0) && h.next_time().is_none(), "nothing more");
    }

    #[test]
    fn unsolicited_then_chosen_at_t_no_resend() {
        let mut h = host(Pl2HostConfig::default(), 1);
        h.schedule_burst(0, 0, 4).unwrap();
        h.drain_until(999);
        h.receive_grt(1000, 0, &grant(15, 2, 0)).unwrap();
        assert_eq!(h.drain_until(1499), vec![], "chosen = 15 = t: no resend");
        assert_eq!((h.stats().resends, h.stats().data_pkts), (0, 4));
        assert_eq!(h.flow_state(0), (15, Some(1000)));
        assert!(!h.busy(0));
        // Next burst: lastChosen = 15 is not < t: solicited.
        h.schedule_burst(1500, 0, 2).unwrap();
        let (d, r) = split(&h.drain_until(1_000_000));
        assert_eq!((d, r), (vec![], vec![(1500, 0, 1)]));
    }

    #[test]
    fn solicited_burst_waits_eq1() {
        // Flow 0's second burst goes solicited because its GRT is stale (lastChosen
        // 10 < t): its GRT with chosen 30 > t sends it once, after Eq. 1's wait. Alg. 2
        // taken literally would also resend it (l.16-18: chosen > t, lastChosen < t).
        for (pending, hand) in [(Pending::Exact, 3600), (Pending::AtGrt, 3220)] {
            let cfg = Pl2HostConfig { pending, ..Default::default() };
            let mut h = host(cfg, 2);
            h.schedule_burst(0, 0, 4).unwrap();
            h.drain_until(0);
            h.receive_grt(1000, 0, &grant(0, 10, 0)).unwrap(); // no resend; lastChosen 10
            h.drain_until(1000);
            // Solicited next burst: lastChosen 10 < t but make it stale: now − lastResp > R.
            h.schedule_burst(3001, 0, 4).unwrap();
            let (d, r) = split(&h.drain_until(3001));
            assert_eq!((d, r), (vec![], vec![(3001, 0, 1)]), "{pending:?}: stale, so solicited");
            // Flow 1's first burst goes unsolicited at 3901: NIC busy until 4381.
            h.schedule_burst(3901, 1, 4).unwrap();
            h.drain_until(3901);
            assert_eq!(h.pending_bytes(4001), 380 * 100 / 8, "380 ns at 100 Gb/s");
            // GRT for flow 0 at 4001, chosen 30: Eq. 1 = 3600 − 1000 − 380 = 2220 with
            // the bytes pending at the GRT, 2600 with those at the hand-over (none).
            assert_eq!(cfg.wait_ns(30, 4750), 2220);
            assert_eq!(cfg.wait_ns(30, 0), 2600);
            assert_eq!(cfg.wait_ns(8, 0), 0, "960 − 1000 < 0: clamped");
            h.receive_grt(4001, 0, &grant(30, 7, 1)).unwrap();
            let (d, r) = split(&h.drain_until(1_000_000));
            assert_eq!(r, vec![]);
            let f0: Vec<_> = d.into_iter().filter(|x| x.1 == 0).collect();
            assert_eq!(f0, data_at(4001 + hand - 1000, 0, false, false), "{pending:?}: sent once");
            assert_eq!(h.stats().resends, 0);
        }
        // At 10 Gb/s a slot is 1200 ns: chosen 3 → 3600 − 1000 = 2600.
        let cfg = Pl2HostConfig { rate_gbps: 10.0, ..Default::default() };
        assert_eq!((cfg.slot_ns(), cfg.wait_ns(3, 0), cfg.wait_ns(3, 1500)), (1200, 2600, 1400));
    }

    #[test]
    fn one_rsv_outstanding_per_flow() {
        let mut h = host(Pl2HostConfig::default(), 2);
        h.schedule_burst(0, 0, 4).unwrap();
        h.schedule_burst(0, 0, 3).unwrap();
        h.schedule_burst(0, 1, 1).unwrap();
        let (d, r) = split(&h.drain_until(999));
        assert_eq!(r, vec![(0, 0, 0), (0, 1, 1 << 16)], "one RSV per flow");
        assert_eq!(d.len(), 5, "flow 0's 4 and flow 1's 1 unsolicited packets");
        assert!(h.receive_grt(1000, 0, &grant(0, 4, 1)).unwrap_err().contains("cookie"));
        assert!(h.receive_grt(1000, 5, &grant(0, 4, 0)).unwrap_err().contains("does not exist"));
        // chosen 4 <= t: no resend; the flow is free at max(1000, 480): next RSV at 1000,
        // unsolicited again (lastChosen 4 < t, lastResp = now).
        h.receive_grt(1000, 0, &grant(0, 4, 0)).unwrap();
        // A second GRT for the same RSV: the flow has started its next burst (cookie 1).
        assert!(h.receive_grt(1000, 0, &grant(0, 4, 0)).unwrap_err().contains("cookie"), "a duplicate GRT");
        let mut g = host(Pl2HostConfig::default(), 1);
        assert!(g.receive_grt(0, 0, &grant(0, 4, 0)).unwrap_err().contains("no RSV outstanding"));
        let (d, r) = split(&h.drain_until(1999));
        assert_eq!(r, vec![(1000, 0, 1)]);
        assert_eq!(d.iter().map(|x| (x.0, x.2)).collect::<Vec<_>>(), vec![(1000, true), (1120, true), (1240, true)]);
        assert!(h.schedule_burst(2000, 0, 5).unwrap_err().contains("1..=K"));
        assert!(h.schedule_burst(2000, 0, 0).is_err());
        assert!(h.schedule_burst(10, 0, 1).unwrap_err().contains("backwards"));
    }

    #[test]
    fn config_validation_names_the_key() {
        assert_eq!(Pl2HostConfig::default().validate(), Ok(()));
        let b = Pl2HostConfig::default();
        let bad = [
            (Pl2HostConfig { rate_gbps: 0.0, ..b }, "pl2_host.rate_gbps = 0"),
            (Pl2HostConfig { rate_gbps: f64::NAN, ..b }, "pl2_host.rate_gbps = NaN"),
            (Pl2HostConfig { rate_gbps: -1.0, ..b }, "pl2_host.rate_gbps = -1"),
            (Pl2HostConfig { mtu_bytes: 63, ..b }, "pl2_host.mtu_bytes = 63"),
            (Pl2HostConfig { mtu_bytes: 9217, ..b }, "pl2_host.mtu_bytes = 9217"),
            (Pl2HostConfig { k: 0, ..b }, "pl2_host.k = 0"),
            (Pl2HostConfig { k: 256, ..b }, "pl2_host.k = 256"),
            (Pl2HostConfig { t: 1 << 31, ..b }, "pl2_host.t = 2147483648"),
        ];
        for (c, want) in bad {
            let e = c.validate().unwrap_err();
            assert!(e.starts_with(want), "{e:?} should start with {want:?}");
            assert_eq!(Pl2Host::new(c, 1, &[0]).unwrap_err(), e);
        }
        let e = run_incast(&IncastConfig { queue_cap: 0, ..Default::default() }).unwrap_err();
        assert!(e.starts_with("incast.queue_cap"), "{e}");
        let e = run_incast(&IncastConfig { senders: 64, ..Default::default() }).unwrap_err();
        assert!(e.starts_with("incast.senders = 64"), "{e}");
    }

    /// The 4:1 incast of [`IncastConfig::default`] with the ALU in `mode` and
    /// `messages` messages per flow.
    fn incast(mode: Pl2Mode, messages: usize) -> IncastReport {
        let d = IncastConfig::default();
        run_incast(&IncastConfig { messages, alu: Pl2Config { mode, ..d.alu }, ..d }).unwrap()
    }

    #[test]
    fn incast_4_to_1_paper_lossless() {
        let r = incast(Pl2Mode::Paper, 20);
        eprintln!("{r:?}");
        // 4 hosts × 12 flows × 20 messages × 4 packets.
        assert_eq!(r.offered, 3840);
        assert_eq!((r.queue_drops, r.lost, r.duplicates), (0, 0, 0), "lossless, every packet once");
        assert_eq!(r.delivered, r.offered);
        // The first GRTs of the 3 flows that reserved slots 0, 4, 8 say chosen < t: those
        // flows' second bursts go unsolicited, find out[0] near 192 > T and are dropped
        // by the ALU and resent (chosen > t then).
        assert_eq!((r.unsol_bursts, r.alu_unsol_drops, r.resends, r.never_resent_pkts), (4, 16, 4, 0));
        // One RSV per flow outstanding: the ALU never holds more than n·flows·K = 192.
        assert!(r.out_high_water <= 192, "{}", r.out_high_water);
        // Paper mode has no bound of its own on the queue (see incast_paper_queue_drifts);
        // this deterministic run peaks at 40, within the 64-packet buffer.
        assert_eq!(r.max_queue, 40);
        // Goodput: the receiver's link can be busy at the earliest 1.5 µs in (RSV, GRT,
        // data one way each), so at most 460.8/(460.8 + 1.5) = 0.9968 of line rate;
        // the 16 dropped unsolicited packets cost their slots once.
        assert!(r.goodput >= 0.99 && r.goodput <= 0.9968, "{}", r.goodput);
        assert!(r.busy >= 0.99, "{}", r.busy);
    }

    #[test]
    fn incast_joint_queue_bounded_by_lateness() {
        // Joint mode books absolute slots, each at most once. No solicited packet is
        // early, each is at most L = max_late_ns late, so the packets reaching the
        // queue in (u, t] are due in (u − L, t]: at most (t − u + L)/slot + 1 of them,
        // while the link sends floor((t − u)/slot) after the last empty moment u.
        // Hence max queue <= L/slot + 2, whatever the run length.
        let short = incast(Pl2Mode::Joint, 20);
        let long = incast(Pl2Mode::Joint, 100);
        eprintln!("{short:?}\n{long:?}");
        for r in [short, long] {
            assert_eq!((r.queue_drops, r.lost, r.duplicates, r.early_pkts), (0, 0, 0, 0));
            assert_eq!(r.alu_unsol_drops, 4 * r.unsol_bursts, "no unsolicited packet reached the queue");
            let bound = r.max_late_ns / 120 + 2;
            assert!(r.max_queue as u64 <= bound, "max queue {} > L/slot + 2 = {bound}", r.max_queue);
            assert!(r.max_queue <= 24, "{}", r.max_queue);
        }
        assert_eq!(short.max_queue, long.max_queue, "the peak is at the start and does not grow");
        assert!(long.goodput >= 0.998, "{}", long.goodput);
    }

    #[test]
    fn incast_paper_queue_drifts() {
        // Paper-mode counters are backlogs with no time base and no view of the
        // egress queue: a late burst leaves a gap the queue fills, and the schedule
        // never claws it back, so the queue walks up with the run length (A.5's
        // case for the joint mode). 100 messages overflow the 64-packet buffer.
        let r = incast(Pl2Mode::Paper, 100);
        eprintln!("{r:?}");
        assert_eq!(r.max_queue, 64);
        assert!(r.queue_drops > 0 && r.lost == r.queue_drops, "{r:?}");
        assert_eq!(incast(Pl2Mode::Joint, 100).queue_drops, 0);
        assert!(incast(Pl2Mode::Paper, 50).max_queue > incast(Pl2Mode::Paper, 20).max_queue);
    }

    #[test]
    fn incast_raw_overflows() {
        // Negative control: the same load without PL2 (every burst at once) fills
        // the same queue; 4 senders at line rate into one: about 3/4 is dropped.
        let d = IncastConfig::default();
        let r = run_incast(&IncastConfig { host: Pl2HostConfig { mode: HostMode::Raw, ..d.host }, ..d }).unwrap();
        eprintln!("{r:?}");
        assert_eq!(r.max_queue, 64);
        assert!(r.queue_drops > r.offered / 2, "{r:?}");
        assert_eq!(r.delivered + r.queue_drops, r.offered);
        assert_eq!((r.alu_unsol_drops, r.unsol_bursts, r.resends), (0, 0, 0));
    }

    #[test]
    fn incast_unsolicited_start_of_48_flows() {
        // Alg. 2's first burst unsolicited, 48 flows at once. T = 64 breaks A.4's rule
        // (T >= t + nK = 15 + 48·4 = 207): the first GRTs on out[0] carry chosen 0,
        // 4, 8, 12 <= t, their bursts were dropped (out[0] ~ 192 > T), never resent.
        let d = IncastConfig::default();
        let first = Pl2HostConfig { first_burst_unsol: true, ..d.host };
        let r = run_incast(&IncastConfig { host: first, ..d }).unwrap();
        eprintln!("{r:?}");
        assert_eq!(r.queue_drops, 0);
        assert!(r.lost > 0 && r.never_resent_pkts >= r.lost, "{r:?}");
        // With T = 207 every dropped burst would be resent, but none is dropped: the
        // 192 unsolicited packets all pass and overflow the queue.
        let r = run_incast(&IncastConfig { host: first, alu: Pl2Config { t_drop: 207, ..d.alu }, ..d }).unwrap();
        eprintln!("{r:?}");
        assert_eq!((r.alu_unsol_drops, r.never_resent_pkts), (0, 0));
        assert!(r.queue_drops > 0 && r.lost > 0, "{r:?}");
    }

    #[test]
    fn t_sensitivity_and_rule_for_t() {
        // 4 hosts × 2 flows (n = 8 flows) with first bursts unsolicited, T = 20: chosen
        // reaches 4(n − 1) = 28, so with t = 35 every flow keeps going unsolicited and
        // the ALU drops more than with t = 15, where flows that saw chosen > 15 ask first.
        let d = IncastConfig::default();
        let run = |t: u32, t_drop: u32| {
            let host = Pl2HostConfig { t, first_burst_unsol: true, ..d.host };
            run_incast(&IncastConfig { flows: 2, host, alu: Pl2Config { t_drop, ..d.alu }, ..d }).unwrap()
        };
        let (r15, r35) = (run(15, 20), run(35, 20));
        eprintln!("{r15:?}\n{r35:?}");
        assert!(r35.alu_unsol_drops > r15.alu_unsol_drops, "t = 35 drops more");
        assert!(r35.unsol_bursts > r15.unsol_bursts);
        // T = 20 < t + nK: dropped bursts whose GRT said chosen <= t are lost for good.
        assert!(r15.never_resent_pkts > 0 && r35.never_resent_pkts > r15.never_resent_pkts);
        assert_eq!((r15.lost, r35.lost), (r15.never_resent_pkts, r35.never_resent_pkts));
        // (Above, out_high_water exceeds nK = 32: a dropped burst never resent leaks its
        // reservation, A.3.) A.4: T >= t + nK = 47. With no leak a paper-mode backlog
        // never exceeds nK (one RSV of at most K per flow outstanding), so the ALU drops
        // nothing and, by induction, nothing leaks; nothing is lost to the ALU (the
        // unsolicited flood then fills the queue instead: §4.4's "low loads only").
        for t in [15, 35] {
            let r = run(t, t + 32);
            assert!(r.out_high_water <= 32, "{r:?}");
            assert_eq!((r.alu_unsol_drops, r.never_resent_pkts), (0, 0), "t = {t}");
        }
    }

    #[test]
    fn literal_pending_at_grt_arrives_early() {
        // Eq. 1 with pendingBytes measured at the GRT: whenever another flow's burst
        // is still in the NIC then, the burst leaves that much early once it drains.
        // Joint mode, so the bound of incast_joint_queue_bounded_by_lateness would hold
        // if nothing were early.
        let d = IncastConfig::default();
        let alu = Pl2Config { mode: Pl2Mode::Joint, ..d.alu };
        let lit = Pl2HostConfig { pending: Pending::AtGrt, ..d.host };
        let r = run_incast(&IncastConfig { messages: 100, host: lit, alu, ..d }).unwrap();
        let exact = run_incast(&IncastConfig { messages: 100, alu, ..d }).unwrap();
        eprintln!("{r:?}\n{exact:?}");
        assert!(r.early_pkts > 0 && exact.early_pkts == 0, "{r:?}");
        assert!(r.max_queue > exact.max_queue, "{} vs {}", r.max_queue, exact.max_queue);
    }

    /// Messages of 1..=4 packets (uniform, seeded): both modes stay lossless
    /// and fair, the same seed gives the same run, another seed another.
    #[test]
    fn incast_with_uniform_message_sizes() {
        let d = IncastConfig::default();
        let run = |mode, seed| run_incast(&IncastConfig { sizes: Sizes::Uniform { seed }, alu: Pl2Config { mode, ..d.alu }, ..d }).unwrap();
        for mode in [Pl2Mode::Paper, Pl2Mode::Joint] {
            let r = run(mode, 7);
            assert!(r.offered > 4 * 12 * 20 && r.offered < 4 * 12 * 20 * 4, "{}", r.offered);
            assert_eq!((r.delivered, r.lost, r.queue_drops, r.never_resent_pkts), (r.offered, 0, 0, 0), "{mode:?}: {r:?}");
            assert!(r.jain > 0.99 && r.max_queue < 64, "{mode:?}: {r:?}");
            assert_eq!(r, run(mode, 7));
            assert_ne!(r.offered, run(mode, 8).offered);
        }
        let e = run_incast(&IncastConfig { packets: 0, ..d }).unwrap_err();
        assert!(e.contains("incast.packets"), "{e}");
    }

    /// Joint vs paper mode (issue 15): 4 senders whose flows go to 2
    /// receivers, an incast and an outcast at once. Paper mode's relative
    /// counters grant bursts that overlap on a port; joint mode's absolute
    /// slots never do; the literal `max(in, out)` with decrements (the J2
    /// mutant) does again.
    #[test]
    fn collisions_paper_vs_joint_under_incast_and_outcast() {
        let d = IncastConfig::default();
        let run = |mode| run_incast(&IncastConfig { receivers: 2, alu: Pl2Config { mode, ..d.alu }, ..d }).unwrap();
        let (paper, joint, j2) = (run(Pl2Mode::Paper), run(Pl2Mode::Joint), run(Pl2Mode::JointWithDecrements));
        eprintln!("paper {paper:?}\njoint {joint:?}\nJ2 {j2:?}");
        let c = |r: &IncastReport| (r.collisions_recv.unwrap(), r.collisions_send.unwrap());
        assert!(c(&paper).0 > 0 && c(&paper).1 > 0, "{paper:?}");
        assert_eq!(c(&joint), (0, 0), "{joint:?}");
        assert!(c(&j2).0 + c(&j2).1 > 0, "{j2:?}");
        // A single sender to a single receiver cannot collide with itself.
        let one = run_incast(&IncastConfig { senders: 1, flows: 1, ..d }).unwrap();
        assert_eq!(c(&one), (0, 0), "{one:?}");
    }

    #[test]
    fn incast_is_deterministic() {
        assert_eq!(incast(Pl2Mode::Paper, 5), incast(Pl2Mode::Paper, 5));
        assert_eq!(incast(Pl2Mode::Joint, 5), incast(Pl2Mode::Joint, 5));
    }
}

//! AXI-Stream agents: a packet source ([`AxisSource`]), a checking sink
//! ([`AxisSink`]) and a packet comparison ([`check_packets`]).
//!
//! Beats are little-endian: byte 0 of a beat is `tdata[7:0]`. `tkeep` is all
//! ones except on the last beat of a packet, where it covers the low lanes
//! only. `tuser` carries per-packet metadata, constant over the packet.
//! Data widths of 8..=64 bytes (64..=512 bits) are supported.

use crate::harness::tb::Agent;
use crate::harness::verilator::{Model, Port};
use anyhow::{bail, ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Port names of one AXI-Stream interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisPorts {
    /// Data, 64..=512 bits.
    pub tdata: String,
    /// Byte enables, one bit per data byte; absent means full beats only.
    pub tkeep: Option<String>,
    /// End of packet.
    pub tlast: String,
    /// Per-packet metadata, up to 128 bits; absent means 0.
    pub tuser: Option<String>,
    /// Source has a beat.
    pub tvalid: String,
    /// Sink accepts the beat.
    pub tready: String,
    /// The beat's byte count beside it (the lanes of `tkeep`; a sideband of
    /// this project's FIFOs, slices and DRR arbiter, not AXI4-Stream): a
    /// source drives it, a sink checks it against `tkeep`. Absent by
    /// default ([`AxisPorts::with_bytes`]).
    pub tbytes: Option<String>,
}

impl AxisPorts {
    fn with_suffix(prefix: &str, suffix: &str) -> AxisPorts {
        let n = |sig: &str| format!("{prefix}_{sig}{suffix}");
        AxisPorts {
            tdata: n("tdata"),
            tkeep: Some(n("tkeep")),
            tlast: n("tlast"),
            tuser: Some(n("tuser")),
            tvalid: n("tvalid"),
            tready: n("tready"),
            tbytes: None,
        }
    }

    /// The DUT's slave (input) interface `<prefix>_tdata`, `<prefix>_tkeep`, ...
    pub fn slave(prefix: &str) -> AxisPorts {
        Self::with_suffix(prefix, "")
    }

    /// The DUT's master (output) interface; named exactly like [`AxisPorts::slave`].
    pub fn master(prefix: &str) -> AxisPorts {
        Self::with_suffix(prefix, "")
    }

    /// Interface number `index` of an array: `<prefix>_tdata_<index>`, ...
    pub fn indexed(prefix: &str, index: usize) -> AxisPorts {
        Self::with_suffix(prefix, &format!("_{index}"))
    }

    /// Drops `tkeep` (every beat is full).
    pub fn without_tkeep(mut self) -> AxisPorts {
        self.tkeep = None;
        self
    }

    /// Drops `tuser` (packets carry `user == 0`).
    pub fn without_tuser(mut self) -> AxisPorts {
        self.tuser = None;
        self
    }

    /// Adds the byte-count sideband `name` ([`AxisPorts::tbytes`]).
    pub fn with_bytes(mut self, name: &str) -> AxisPorts {
        self.tbytes = Some(name.to_string());
        self
    }
}

/// Resolved ports and derived sizes of one interface.
struct Bus {
    tdata: Port,
    tkeep: Option<Port>,
    tlast: Port,
    tuser: Option<Port>,
    tvalid: Port,
    tready: Port,
    tbytes: Option<Port>,
    /// Beat width in bytes.
    bytes: usize,
    /// `tkeep` value of a full beat.
    full_keep: u64,
}

impl Bus {
    fn resolve(m: &Model, names: &AxisPorts) -> Result<Bus> {
        let one_bit = |name: &str| -> Result<Port> {
            let p = m.port(name)?;
            ensure!(p.width() == 1, "port `{name}` must be 1 bit, is {}", p.width());
            Ok(p)
        };
        let tdata = m.port(&names.tdata)?;
        let w = tdata.width();
        ensure!(
            w % 8 == 0 && (64..=512).contains(&w),
            "port `{}`: tdata must be 64..=512 bits and a whole number of bytes, is {w}",
            names.tdata
        );
        let bytes = (w / 8) as usize;
        let tkeep = match &names.tkeep {
            Some(n) => {
                let p = m.port(n)?;
                ensure!(p.width() as usize == bytes, "port `{n}`: tkeep must be {bytes} bits, is {}", p.width());
                Some(p)
            }
            None => None,
        };
        let tuser = match &names.tuser {
            Some(n) => {
                let p = m.port(n)?;
                ensure!(p.width() <= 128, "port `{n}`: tuser may be at most 128 bits, is {}", p.width());
                Some(p)
            }
            None => None,
        };
        let tbytes = match &names.tbytes {
            Some(n) => {
                let p = m.port(n)?;
                ensure!(p.width() >= 7 && p.width() <= 64, "port `{n}`: tbytes must hold 0..=64, is {} bits", p.width());
                Some(p)
            }
            None => None,
        };
        Ok(Bus {
            tdata,
            tkeep,
            tbytes,
            tlast: one_bit(&names.tlast)?,
            tuser,
            tvalid: one_bit(&names.tvalid)?,
            tready: one_bit(&names.tready)?,
            bytes,
            full_keep: u64::MAX >> (64 - bytes),
        })
    }

    fn user_width(&self) -> u32 {
        self.tuser.map_or(0, |p| p.width())
    }
}

/// A packet: payload bytes plus its `tuser` metadata.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Packet {
    /// Payload, in wire order.
    pub data: Vec<u8>,
    /// `tuser` value, constant over the packet.
    pub user: u128,
}

impl Packet {
    /// A packet with the given payload and metadata.
    pub fn new(data: Vec<u8>, user: u128) -> Packet {
        Packet { data, user }
    }
}

/// Drives packets into an AXI-Stream slave interface of the model.
pub struct AxisSource {
    bus: Bus,
    queue: VecDeque<Packet>,
    /// Per queued packet: the cycle before which it may not start (0: any).
    not_before: VecDeque<u64>,
    /// Bytes of the front packet already transferred.
    offset: usize,
    /// Payload bytes of the beat currently offered (tvalid high), if any
    /// (`Some(0)` is the single `tkeep = 0` beat of an empty packet).
    in_flight: Option<usize>,
    /// Probability, per cycle, of not offering a new beat when one could be
    /// offered (an offered beat is always held until accepted).
    pub idle_prob: f64,
    /// Wire pacing, as a MAC receiving at line rate delivers: at most this
    /// many bytes per cycle on average, each packet costing its length plus
    /// [`AxisSource::wire_overhead`]; beats are spread out, not burst, and
    /// idle time earns no burst. `None`: as fast as `idle_prob` allows.
    pub pace: Option<f64>,
    /// Bytes a packet costs on the wire besides its own (preamble 8 + IFG 12
    /// = 20 for Ethernet whose FCS is part of the frame).
    pub wire_overhead: usize,
    credit: f64,
    rng: SmallRng,
    beats: u64,
    packets: u64,
    /// Cycle in which each packet's first beat was accepted, in order.
    pub first_cycles: Vec<u64>,
}

impl AxisSource {
    /// A source on the model's interface `ports`, with random gaps drawn from
    /// a generator seeded with `seed`. `idle_prob` starts at 0.
    pub fn new(m: &Model, ports: &AxisPorts, seed: u64) -> Result<AxisSource> {
        Ok(AxisSource {
            bus: Bus::resolve(m, ports)?,
            queue: VecDeque::new(),
            not_before: VecDeque::new(),
            offset: 0,
            in_flight: None,
            idle_prob: 0.0,
            pace: None,
            wire_overhead: 20,
            credit: 0.0,
            rng: SmallRng::seed_from_u64(seed),
            beats: 0,
            packets: 0,
            first_cycles: vec![],
        })
    }

    /// Queues a packet. An empty packet is sent as one beat with `tkeep = 0`
    /// and `tlast` (what a MAC does for a frame aborted at once; only on
    /// interfaces with `tkeep`). Panics if it is empty without `tkeep`, if its `user` does not fit the
    /// `tuser` port (or is non-zero without one), or if it needs several
    /// beats on an interface without `tkeep` and is not a whole number of beats.
    pub fn push(&mut self, packet: Packet) {
        assert!(!packet.data.is_empty() || self.bus.tkeep.is_some(), "AxisSource::push: empty packets need a tkeep port");
        let uw = self.bus.user_width();
        assert!(uw >= 128 || packet.user >> uw == 0, "AxisSource::push: user {:#x} does not fit the {uw}-bit tuser", packet.user);
        let partial = packet.data.len() % self.bus.bytes;
        assert!(
            self.bus.tkeep.is_some() || partial == 0,
            "AxisSource::push: without tkeep, packets must be whole beats of {} bytes \
             ({} bytes leave {partial} in the last beat)",
            self.bus.bytes,
            packet.data.len()
        );
        self.queue.push_back(packet);
        self.not_before.push_back(0);
    }

    /// Width of the interface's `tuser` in bits (0 without one).
    pub fn user_width(&self) -> u32 {
        self.bus.user_width()
    }

    /// Queues a packet that may not start before cycle `cycle` (a sender's
    /// schedule: start offsets and gaps); pacing still applies. Panics as
    /// [`AxisSource::push`].
    pub fn push_at(&mut self, packet: Packet, cycle: u64) {
        self.push(packet);
        *self.not_before.back_mut().expect("just pushed") = cycle;
    }

    /// Forgets every queued packet and the one in progress, as a source does
    /// when its side is reset; `tvalid` goes low from the next cycle.
    pub fn abort(&mut self) {
        self.queue.clear();
        self.not_before.clear();
        self.offset = 0;
        self.in_flight = None;
    }

    /// Packets queued or in progress.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Beats transferred so far.
    pub fn beats(&self) -> u64 {
        self.beats
    }

    /// Packets fully transferred so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Beat width in bytes.
    pub fn beat_bytes(&self) -> usize {
        self.bus.bytes
    }
}

impl Agent for AxisSource {
    fn drive(&mut self, m: &mut Model, cycle: u64) {
        if let Some(rate) = self.pace {
            // Credit up to one beat plus the per-packet overhead plus one
            // cycle's earning: enough for any single step without losing
            // the fraction earned in the cycle it became enough; never a
            // burst.
            self.credit = (self.credit + rate).min((self.bus.bytes + self.wire_overhead) as f64 + rate);
        }
        if self.in_flight.is_none() {
            if let Some(pkt) = self.queue.front() {
                let n = (pkt.data.len() - self.offset).min(self.bus.bytes);
                let cost = n + if self.offset == 0 { self.wire_overhead } else { 0 };
                let due = self.offset > 0 || self.not_before.front().is_none_or(|&c| c <= cycle);
                let paced = due && self.pace.is_none_or(|_| self.credit >= cost as f64);
                if paced && (self.idle_prob <= 0.0 || !self.rng.gen_bool(self.idle_prob)) {
                    let b = &self.bus;
                    m.set_bytes(&b.tdata, &pkt.data[self.offset..self.offset + n]);
                    if let Some(k) = &b.tkeep {
                        m.set(k, b.full_keep.checked_shr((b.bytes - n) as u32).unwrap_or(0));
                    }
                    if let Some(c) = &b.tbytes {
                        m.set(c, n as u64);
                    }
                    m.set(&b.tlast, (self.offset + n == pkt.data.len()) as u64);
                    if let Some(u) = &b.tuser {
                        m.set_wide(u, &[pkt.user as u64, (pkt.user >> 64) as u64]);
                    }
                    self.in_flight = Some(n);
                }
            }
        }
        m.set(&self.bus.tvalid, self.in_flight.is_some() as u64);
    }

    fn sample(&mut self, m: &Model, cycle: u64) {
        let Some(n) = self.in_flight else { return };
        if m.get(&self.bus.tready) == 0 {
            return;
        }
        if self.pace.is_some() {
            self.credit -= (n + if self.offset == 0 { self.wire_overhead } else { 0 }) as f64;
        }
        if self.offset == 0 {
            self.first_cycles.push(cycle);
        }
        self.beats += 1;
        self.offset += n;
        self.in_flight = None;
        if self.offset == self.queue.front().map_or(0, |p| p.data.len()) {
            self.queue.pop_front();
            self.not_before.pop_front();
            self.offset = 0;
            self.packets += 1;
        }
    }

    fn idle(&self) -> bool {
        self.queue.is_empty()
    }
}

/// At most this many error messages are kept in [`AxisSink::errors`];
/// [`AxisSink::error_count`] counts all of them.
pub const MAX_ERROR_MESSAGES: usize = 100;

/// Snapshot of the control signals of a beat.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct BeatCtl {
    keep: u64,
    last: bool,
    user: u128,
}

/// Receives packets from an AXI-Stream master interface of the model,
/// applying random backpressure and checking the protocol.
///
/// Recorded errors: `tkeep` not all ones on a non-last beat or not a
/// non-empty contiguous run from lane 0 on the last beat; `tuser` changing
/// within a packet; `tvalid` dropped, or `tdata`/`tkeep`/`tlast`/`tuser`
/// changed, while a beat waits for `tready`.
pub struct AxisSink {
    bus: Bus,
    /// Probability of asserting `tready` in a cycle (1.0: always ready).
    pub ready_prob: f64,
    /// Wire pacing, as a MAC transmitting at line rate takes data: at most
    /// this many bytes per cycle on average, each packet costing its length
    /// plus [`AxisSink::wire_overhead`]. `None`: `ready_prob` alone.
    pub pace: Option<f64>,
    /// Bytes a packet costs on the wire besides its own: 20 (preamble and
    /// gap), plus 4 when the MAC appends the FCS.
    pub wire_overhead: usize,
    credit: f64,
    rng: SmallRng,
    /// Completed packets, oldest first; the test drains them.
    pub packets: VecDeque<Packet>,
    /// Cycle of each completed packet's last beat, in order (never drained by
    /// the sink; a test that drains `packets` may drain this too).
    pub last_cycles: VecDeque<u64>,
    /// Cycle of each completed packet's first beat, in order (kept like
    /// `last_cycles`).
    pub first_cycles: VecDeque<u64>,
    current_first: u64,
    /// The first [`MAX_ERROR_MESSAGES`] protocol errors.
    pub errors: Vec<String>,
    error_count: u64,
    received: u64,
    expected: u64,
    ready: bool,
    current: Vec<u8>,
    current_user: u128,
    in_packet: bool,
    /// Data of the current beat (scratch).
    beat: Vec<u8>,
    /// Whether a beat was offered but not accepted in the previous cycle,
    /// and that beat's contents.
    stalled: bool,
    stalled_data: Vec<u8>,
    stalled_ctl: BeatCtl,
    beats: u64,
}

impl AxisSink {
    /// A sink on the model's interface `ports`, with backpressure drawn from
    /// a generator seeded with `seed`. `ready_prob` starts at 1.0.
    pub fn new(m: &Model, ports: &AxisPorts, seed: u64) -> Result<AxisSink> {
        let bus = Bus::resolve(m, ports)?;
        let bytes = bus.bytes;
        Ok(AxisSink {
            bus,
            ready_prob: 1.0,
            pace: None,
            wire_overhead: 24,
            credit: 0.0,
            rng: SmallRng::seed_from_u64(seed),
            packets: VecDeque::new(),
            errors: Vec::new(),
            error_count: 0,
            received: 0,
            expected: 0,
            ready: false,
            current: Vec::new(),
            current_user: 0,
            in_packet: false,
            last_cycles: VecDeque::new(),
            first_cycles: VecDeque::new(),
            current_first: 0,
            beat: vec![0; bytes],
            stalled: false,
            stalled_data: vec![0; bytes],
            stalled_ctl: BeatCtl::default(),
            beats: 0,
        })
    }

    /// Total number of protocol errors seen.
    pub fn error_count(&self) -> u64 {
        self.error_count
    }

    /// Beats received so far.
    pub fn beats(&self) -> u64 {
        self.beats
    }

    /// Packets received so far (including ones already taken from `packets`).
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Discards a partly received packet and any stalled beat, as a receiver
    /// does when the link is reset; completed packets are kept.
    pub fn abort(&mut self) {
        self.current.clear();
        self.in_packet = false;
        self.stalled = false;
    }

    /// Announces `n` more packets: [`Agent::idle`] stays false until that
    /// many have been received in total, so [`crate::harness::tb::Tb::run_until_idle`]
    /// waits for packets still inside the DUT.
    pub fn expect(&mut self, n: u64) {
        self.expected += n;
    }

    fn error(&mut self, cycle: u64, msg: String) {
        self.error_count += 1;
        if self.errors.len() < MAX_ERROR_MESSAGES {
            self.errors.push(format!("cycle {cycle}: {msg}"));
        }
    }

    fn read_ctl(&self, m: &Model) -> BeatCtl {
        let b = &self.bus;
        let mut user = [0u64; 2];
        if let Some(u) = &b.tuser {
            m.get_wide(u, &mut user);
        }
        BeatCtl {
            keep: b.tkeep.map_or(b.full_keep, |k| m.get(&k)),
            last: m.get(&b.tlast) != 0,
            user: user[0] as u128 | (user[1] as u128) << 64,
        }
    }
}

impl Agent for AxisSink {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        self.ready = self.ready_prob >= 1.0 || self.rng.gen_bool(self.ready_prob.max(0.0));
        if let Some(rate) = self.pace {
            // Ready once a full beat (plus the overhead at a packet's start)
            // is paid for; the credit keeps fractions and earns no burst.
            let step = (self.bus.bytes + if self.in_packet { 0 } else { self.wire_overhead }) as f64;
            self.credit = (self.credit + rate).min((self.bus.bytes + self.wire_overhead) as f64 + rate);
            self.ready &= self.credit >= step;
        }
        m.set(&self.bus.tready, self.ready as u64);
    }

    fn sample(&mut self, m: &Model, cycle: u64) {
        let valid = m.get(&self.bus.tvalid) != 0;
        if !valid {
            if self.stalled {
                self.error(cycle, "tvalid dropped before the beat was accepted".into());
            }
            self.stalled = false;
            return;
        }
        m.get_bytes(&self.bus.tdata, &mut self.beat);
        let ctl = self.read_ctl(m);
        if self.stalled {
            if ctl != self.stalled_ctl {
                let msg = format!("tkeep/tlast/tuser changed while stalled: {:?} -> {ctl:?}", self.stalled_ctl);
                self.error(cycle, msg);
            }
            if self.beat != self.stalled_data {
                self.error(cycle, "tdata changed while stalled".into());
            }
        }
        if !self.ready {
            self.stalled = true;
            std::mem::swap(&mut self.beat, &mut self.stalled_data);
            self.stalled_ctl = ctl;
            return;
        }
        self.stalled = false;
        self.beats += 1;
        if self.pace.is_some() {
            let n = ctl.keep.count_ones() as usize;
            self.credit -= (n + if self.in_packet { 0 } else { self.wire_overhead }) as f64;
        }

        let keep = ctl.keep;
        if let Some(c) = &self.bus.tbytes {
            let n = m.get(c);
            if n != keep.count_ones() as u64 {
                self.error(cycle, format!("tbytes {n} is not the lanes of tkeep {keep:#x}"));
            }
        }
        let contiguous = keep != 0 && keep & keep.wrapping_add(1) == 0;
        if !ctl.last && keep != self.bus.full_keep {
            self.error(cycle, format!("tkeep {keep:#x} is not all ones on a beat without tlast"));
        } else if ctl.last && !contiguous {
            self.error(cycle, format!("tkeep {keep:#x} on the last beat is not a contiguous run from lane 0"));
        }
        if !self.in_packet {
            self.in_packet = true;
            self.current_user = ctl.user;
            self.current_first = cycle;
        } else if ctl.user != self.current_user {
            let msg = format!("tuser changed within a packet: {:#x} -> {:#x}", self.current_user, ctl.user);
            self.error(cycle, msg);
        }
        if contiguous {
            self.current.extend_from_slice(&self.beat[..keep.count_ones() as usize]);
        } else {
            let kept = self.beat.iter().enumerate().filter(|(i, _)| keep >> i & 1 != 0).map(|(_, b)| *b);
            self.current.extend(kept);
        }
        if ctl.last {
            let data = std::mem::take(&mut self.current);
            self.packets.push_back(Packet { data, user: self.current_user });
            self.last_cycles.push_back(cycle);
            self.first_cycles.push_back(self.current_first);
            self.in_packet = false;
            self.received += 1;
        }
    }

    fn idle(&self) -> bool {
        !self.in_packet && !self.stalled && self.received >= self.expected
    }
}

/// Compares received packets against the expected ones, in order; the error
/// describes the first difference (count, length, tuser or first bad byte).
pub fn check_packets<'a>(expected: impl IntoIterator<Item = &'a Packet>, got: impl IntoIterator<Item = &'a Packet>) -> Result<()> {
    let mut exp = expected.into_iter();
    let mut got = got.into_iter();
    let mut i = 0usize;
    loop {
        match (exp.next(), got.next()) {
            (None, None) => return Ok(()),
            (Some(_), None) => bail!("packet {i}: expected more packets ({} missing)", 1 + exp.count()),
            (None, Some(_)) => bail!("packet {i}: {} unexpected extra packet(s)", 1 + got.count()),
            (Some(e), Some(g)) => {
                if let Some(pos) = e.data.iter().zip(&g.data).position(|(a, b)| a != b) {
                    bail!(
                        "packet {i}: byte {pos} is {:#04x}, expected {:#04x} (lengths {} / expected {})",
                        g.data[pos],
                        e.data[pos],
                        g.data.len(),
                        e.data.len()
                    );
                }
                ensure!(g.data.len() == e.data.len(), "packet {i}: length {}, expected {}", g.data.len(), e.data.len());
                ensure!(g.user == e.user, "packet {i}: tuser {:#x}, expected {:#x}", g.user, e.user);
            }
        }
        i += 1;
    }
}

/// Records a side-channel port (such as the parser's `m_phv`) at the first
/// beat of every packet transferred on an AXI-Stream master interface (or at
/// the last: [`AxisSideTap::at_last`]); use it beside an [`AxisSink`] on the
/// same interface.
pub struct AxisSideTap {
    valid: Port,
    ready: Port,
    last: Port,
    side: Port,
    words: usize,
    first: bool,
    at_last: bool,
    /// One value per packet, in order (little-endian 64-bit words).
    pub values: VecDeque<Vec<u64>>,
}

impl AxisSideTap {
    /// A tap on the interface named by `ports` (`tvalid`, `tready`, `tlast`)
    /// recording the port `side`.
    pub fn new(m: &Model, ports: &AxisPorts, side: &str) -> Result<AxisSideTap> {
        let side = m.port(side)?;
        let words = m.port_info(&side).width.div_ceil(64) as usize;
        Ok(AxisSideTap {
            valid: m.port(&ports.tvalid)?,
            ready: m.port(&ports.tready)?,
            last: m.port(&ports.tlast)?,
            side,
            words,
            first: true,
            at_last: false,
            values: VecDeque::new(),
        })
    }

    /// A tap that records `side` at the last beat of every packet (a
    /// verdict that comes with the end of the frame).
    pub fn at_last(m: &Model, ports: &AxisPorts, side: &str) -> Result<AxisSideTap> {
        Ok(AxisSideTap { at_last: true, ..AxisSideTap::new(m, ports, side)? })
    }
}

impl Agent for AxisSideTap {
    fn drive(&mut self, _m: &mut Model, _cycle: u64) {}

    fn sample(&mut self, m: &Model, _cycle: u64) {
        if m.get(&self.valid) == 1 && m.get(&self.ready) == 1 {
            let last = m.get(&self.last) == 1;
            if if self.at_last { last } else { self.first } {
                let mut v = vec![0u64; self.words];
                m.get_wide(&self.side, &mut v);
                self.values.push_back(v);
            }
            self.first = last;
        }
    }
}

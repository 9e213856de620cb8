//! Two whole switches back to back in Verilator (seed 004's testbed, Fig. 7,
//! reduced; issue 16): host A - S1.p0, S1.p1 = lossy link = S2.p1, S2.p0 -
//! host B, both `ts_switch` with Protego built on port 1, clocked in
//! lockstep. The RTL engine of `topology = "back-to-back"` scenarios and
//! the bench of `tests/protego/switch.rs`.
//!
//! The link paces each direction to the line rate (the switch's egress
//! feeds a MAC), appends each frame's FCS and, for a frame its loss model
//! picks (per frame, every kind: DATA, RETX, dummies, ACK, LOSS, PFC),
//! flips a bit ([`corrupt`]), so the receiving switch's `rx_fcs` drops and
//! counts it, as a corrupting link would; then it delivers the frame a
//! fixed delay later. Every frame on the link is classified
//! ([`wire_kind`]) as it leaves and as it arrives.
use crate::agents::axis::Packet;
use crate::harness::tb::Agent;
use crate::model::lossy::{corrupt, LossModel, LossyLink};
use crate::model::protego::{inner_ethertype, kind, pfc_of, read_tag, strip_tag};
use crate::model::protego_link::LinkResult;
use crate::packet::crc::append_fcs;
use crate::packet::frame::ethertype;
use crate::rtl::switch::{line_bytes_per_cycle, SwitchBench};
use crate::scenario::{ndp_frame, Flow};
use anyhow::{ensure, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use trimswitch_hdl::config::{Config, RouteEntry};
use trimswitch_hdl::protego::port::PortRegs;

/// Each switch's port to its host.
pub const HOST: usize = 0;
/// Each switch's port to the link (Protego built on it).
pub const LINK: usize = 1;

/// A frame on a Protego link by kind: `data`, `dummy`, `retx`, `ack`,
/// `ack_piggy`, `loss`, `pfc` (class `pfc_class`), `untagged`.
pub fn wire_kind(f: &[u8], pfc_class: u8) -> &'static str {
    match read_tag(f) {
        None if pfc_of(f, pfc_class).is_some() => "pfc",
        None => "untagged",
        Some((t, at)) => {
            let ctrl = inner_ethertype(f, at) == ethertype::PROTEGO;
            match (t.kind, ctrl) {
                (kind::DATA, false) => "data",
                (kind::DATA, true) => "dummy",
                (kind::RETX, _) => "retx",
                (kind::ACK, true) => "ack",
                (kind::ACK, false) => "ack_piggy",
                _ => "loss",
            }
        }
    }
}

/// S1's and S2's configurations from `cfg` (its sizes, clock and widths):
/// Protego built on port [`LINK`] (off at reset unless `protego.enable`),
/// host A's 10.0.0.0/24 behind S1.p0, host B's 10.0.2.0/24 behind S2.p0,
/// each switch routing the other host's prefix over the link to next hop
/// 1, the other switch (the router MAC both share); no L2 entries. Both
/// switches are built from element 0 (the tables are loaded at run time,
/// so one Verilated model serves both).
pub fn pair_configs(cfg: &Config) -> Result<[Config; 2]> {
    let f = cfg.source.display();
    ensure!(cfg.datapath.ports >= 2, "{f}: datapath.ports = {}: two switches back to back need ports 0 and 1", cfg.datapath.ports);
    ensure!(cfg.ingress.nexthops >= 2, "{f}: ingress.nexthops = {}: the pair needs next hops 0 and 1", cfg.ingress.nexthops);
    ensure!(cfg.ingress.lpm_entries >= 2, "{f}: ingress.lpm_entries = {}: the pair needs two routes", cfg.ingress.lpm_entries);
    let route = |p: &str, port: u32| RouteEntry { prefix: p.into(), port, nexthop: port };
    let mut out = [cfg.clone(), cfg.clone()];
    for (i, c) in out.iter_mut().enumerate() {
        let (here, there) = if i == 0 { ("10.0.0.0/24", "10.0.2.0/24") } else { ("10.0.2.0/24", "10.0.0.0/24") };
        c.protego.ports = vec![LINK as u32];
        c.ingress.route = vec![route(here, HOST as u32), route(there, LINK as u32)];
        c.ingress.l2 = vec![];
        c.ingress.nexthop_mac = vec![format!("02:00:00:00:01:0{i}"), c.ingress.router_mac.clone()];
        c.validate().with_context(|| format!("{f}: the back-to-back pair's switch {}", i + 1))?;
    }
    Ok(out)
}

/// Protego's mode on both link ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Off,
    Ordered,
    Nb,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "off" => Some(Mode::Off),
            "ordered" => Some(Mode::Ordered),
            "nb" => Some(Mode::Nb),
            _ => None,
        }
    }
}

/// One run of the pair.
#[derive(Clone, Debug)]
pub struct PairSetup {
    /// Frames each host sends (host B only with `reverse`).
    pub frames: usize,
    /// Their size with FCS; `None`: uniform in 64..600.
    pub frame_bytes: Option<usize>,
    /// Each host's rate, a share of the line rate.
    pub load: f64,
    pub loss_fwd: LossModel,
    pub loss_rev: LossModel,
    pub mode: Mode,
    pub copies: u32,
    /// Host B sends to host A too.
    pub reverse: bool,
    /// The link's delay each way, cycles.
    pub delay_cycles: u64,
    pub seed: u64,
    /// The peer restarting: at this many cycles after the first frame is
    /// offered the link goes down for the second many cycles (frames on it
    /// lost), S2 is reset and configured again (tables, Protego's registers)
    /// and the link comes back; S1 keeps running.
    pub outage: Option<(u64, u64)>,
    /// Protego registers ([`PortRegs`] names: `ACKNO_TIMEOUT`, `BUF_BYTES`,
    /// ...) written on both link ports before `CTRL`; the others keep
    /// their reset values (the configuration's).
    pub regs: Vec<(&'static str, u32)>,
}

/// One direction of the link: what it carried.
#[derive(Debug)]
pub struct LinkLog {
    loss: LossyLink,
    pfc_class: u8,
    /// Frames by kind: (sent, arrived uncorrupted).
    pub kinds: BTreeMap<&'static str, (u64, u64)>,
    pub corrupted: u64,
    /// Frames sent while the link was down (lost with it).
    pub down_lost: u64,
    /// The length of `data` when the link came back up (0 without an outage).
    pub up_at: usize,
    /// DATA and RETX frames, tag removed (the egress's bytes): (bytes, a
    /// DATA, arrived uncorrupted).
    pub data: Vec<(Vec<u8>, bool, bool)>,
}

impl LinkLog {
    /// Frames of kind `k` sent and arrived.
    pub fn kind(&self, k: &str) -> (u64, u64) {
        self.kinds.get(k).copied().unwrap_or_default()
    }
    /// Every frame sent and arrived.
    pub fn total(&self) -> (u64, u64) {
        self.kinds.values().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Moves what `from` sent on its link port onto `to`'s, `delay` cycles
    /// on (nowhere while the link is `down`).
    fn carry(&mut self, from: &mut SwitchBench, to: &mut SwitchBench, delay: u64, down: bool) {
        let now = from.tb.cycle();
        while let Some(p) = from.sinks[LINK].packets.pop_front() {
            let k = wire_kind(&p.data, self.pfc_class);
            self.kinds.entry(k).or_default().0 += 1;
            if down {
                self.down_lost += 1;
                continue;
            }
            let inner = (k == "data" || k == "retx").then(|| strip_tag(&p.data, read_tag(&p.data).expect("tagged").1));
            let mut w = p.data;
            append_fcs(&mut w);
            let lost = self.loss.lose(&w, w.len() + 20);
            if lost {
                self.corrupted += 1;
                w = corrupt(&w);
            } else {
                self.kinds.entry(k).or_default().1 += 1;
            }
            if let Some(f) = inner {
                self.data.push((f, k == "data", !lost));
            }
            to.srcs[LINK].push_at(Packet::new(w, 0), now + delay);
        }
    }
}

/// What a run gave.
pub struct PairOutcome {
    /// Per switch: its link port's Protego registers by name
    /// ([`PortRegs::RO`]).
    pub regs: [BTreeMap<&'static str, u64>; 2],
    /// Per switch: its link port's `rx_fcs` drops (`RX_DROP_FCS`).
    pub fcs_drops: [u64; 2],
    /// Per direction (0: A -> B, S1 -> S2).
    pub links: [LinkLog; 2],
    /// Per host: what it sent (wire frames with FCS) and what it got.
    pub sent: [Vec<Vec<u8>>; 2],
    pub got: [Vec<Vec<u8>>; 2],
    /// Per host: the cycle of the last frame it got.
    pub last_got: [u64; 2],
    /// Cycles from the first frame offered to the end.
    pub cycles: u64,
    pub clock_mhz: f64,
    pub gbps: f64,
}

/// Loads a switch's tables, waits for Protego's tables to clear after
/// reset (a cycle an entry) and writes the run's registers and `CTRL`.
fn bring_up(x: &mut SwitchBench, cfg: &Config, s: &PairSetup) -> Result<()> {
    x.configure(cfg)?;
    x.run(cfg.protego.rx_slots.max(cfg.protego.tx_frames) as u64 + 100);
    let w = x.map.window(&format!("protego{LINK}")).clone();
    x.write(w.addr("COPIES", 0), s.copies)?;
    for (n, v) in &s.regs {
        ensure!(w.reg(n).is_some(), "PairSetup.regs: Protego has no register {n}");
        x.write(w.addr(n, 0), *v)?;
    }
    let ctrl = match s.mode {
        Mode::Off => 0,
        Mode::Ordered => PortRegs::CTRL_TX | PortRegs::CTRL_RX,
        Mode::Nb => PortRegs::CTRL_TX | PortRegs::CTRL_RX | PortRegs::CTRL_NB,
    };
    x.write(w.addr("CTRL", 0), ctrl)
}

/// Runs the pair built from `cfgs` ([`pair_configs`]) until both hosts
/// have sent everything and nothing has moved for three `ackNoTimeout`s.
pub fn run_pair(cfgs: &[Config; 2], s: &PairSetup) -> Result<PairOutcome> {
    ensure!(s.outage.is_none() || !s.reverse, "PairSetup: an outage run has no reverse traffic (host B would restart with its switch)");
    let mut b = [SwitchBench::new(&cfgs[0], s.seed)?, SwitchBench::new(&cfgs[0], s.seed + 50)?];
    let line = line_bytes_per_cycle(&cfgs[0]);
    let timeout = match s.regs.iter().find(|r| r.0 == "ACKNO_TIMEOUT") {
        Some(r) => r.1 as u64,
        None => (cfgs[0].protego.ack_timeout_us * cfgs[0].target.clock_mhz).round() as u64,
    };
    for (x, cfg) in b.iter_mut().zip(cfgs) {
        for k in &mut x.sinks {
            k.ready_prob = 1.0;
        }
        // The link's MAC sends at line rate and appends the FCS.
        x.sinks[LINK].pace = Some(line);
        x.sinks[LINK].wire_overhead = 24;
        x.srcs[HOST].pace = Some(line * s.load);
        bring_up(x, cfg, s)?;
    }
    // Line up the two clocks.
    let (c0, c1) = (b[0].tb.cycle(), b[1].tb.cycle());
    b[0].run(c1.saturating_sub(c0));
    b[1].run(c0.saturating_sub(c1));
    let mut rng = StdRng::seed_from_u64(s.seed);
    let mut frames = |src: usize, dst: usize, n: usize, cfg: &Config| -> Vec<Vec<u8>> {
        let flow = Flow { id: src, src, dst, load: s.load };
        (0..n).map(|i| ndp_frame(cfg, &flow, i as u32, s.frame_bytes.unwrap_or_else(|| rng.gen_range(64..600)))).collect()
    };
    let sent = [frames(0, 2, s.frames, &cfgs[0]), if s.reverse { frames(2, 0, s.frames, &cfgs[1]) } else { vec![] }];
    let start = b[0].tb.cycle();
    for (x, fs) in b.iter_mut().zip(&sent) {
        for f in fs {
            x.srcs[HOST].push(Packet::new(f.clone(), 0));
        }
    }
    let link = |m: &LossModel, seed: u64| -> Result<LinkLog> {
        Ok(LinkLog {
            loss: LossyLink::new(m.clone(), seed).map_err(anyhow::Error::msg)?,
            pfc_class: cfgs[0].protego.pfc_class as u8,
            kinds: BTreeMap::new(),
            corrupted: 0,
            down_lost: 0,
            up_at: 0,
            data: vec![],
        })
    };
    let mut links = [link(&s.loss_fwd, s.seed + 100)?, link(&s.loss_rev, s.seed + 101)?];
    // Ten times the frames' time on the wire, and room for timeouts (at
    // worst one a frame: a receiver dropping frames for room skips each).
    let wire_cycles: f64 = sent.iter().flatten().map(|f| (f.len() + 24) as f64 / line).sum();
    let n_sent = sent.iter().map(|v| v.len() as u64).sum::<u64>();
    let budget = (10.0 * wire_cycles) as u64 + (n_sent + 100) * timeout + 50_000;
    let (mut seen, mut last) = (0, 0);
    let mut down = false;
    for c in 0.. {
        if let Some((at, len)) = s.outage {
            if c == at {
                // The peer goes away: the link drops, S2 resets (what it
                // held is lost) and comes back configured, S1 running on.
                down = true;
                let x = &mut b[1];
                x.srcs[LINK].abort();
                for k in &mut x.sinks {
                    k.abort();
                }
                let t0 = x.tb.cycle();
                x.tb.reset(4);
                bring_up(x, &cfgs[1], s)?;
                let spent = x.tb.cycle() - t0;
                let [x, y] = &mut b;
                for _ in 0..spent {
                    x.run(1);
                    links[0].carry(x, y, s.delay_cycles, true);
                }
            }
            if c == at + len {
                down = false;
                for l in &mut links {
                    l.up_at = l.data.len();
                }
            }
        }
        ensure!(
            c < budget,
            "no end after {c} cycles: {} + {} frames delivered",
            b[0].sinks[HOST].packets.len(),
            b[1].sinks[HOST].packets.len()
        );
        b[0].run(1);
        b[1].run(1);
        let [x, y] = &mut b;
        links[0].carry(x, y, s.delay_cycles, down);
        links[1].carry(y, x, s.delay_cycles, down);
        let moved = b.iter().map(|x| x.sinks.iter().map(|k| k.beats()).sum::<u64>()).sum::<u64>();
        if moved != seen || b.iter().any(|x| x.srcs.iter().any(|q| !q.idle())) {
            (seen, last) = (moved, c);
        }
        if c - last > 3 * timeout + 2 * s.delay_cycles + 200 {
            // Quiet: the end, unless an ordered receiver still holds frames
            // or waits for a number (holes in a row are skipped a timeout
            // each, with nothing moving between them).
            if s.mode != Mode::Ordered || !receivers_wait(&mut b)? {
                break;
            }
            last = c;
        }
    }
    let cycles = b[0].tb.cycle() - start;
    for x in &b {
        for k in &x.sinks {
            ensure!(k.errors.is_empty(), "AXI-Stream protocol errors at a switch output: {:?}", k.errors);
        }
    }
    let mut regs = [BTreeMap::new(), BTreeMap::new()];
    let mut fcs_drops = [0; 2];
    for (i, x) in b.iter_mut().enumerate() {
        let w = x.map.window(&format!("protego{LINK}")).clone();
        for n in PortRegs::RO {
            regs[i].insert(n, x.read(w.addr(&n.to_ascii_uppercase(), 0))? as u64);
        }
        // The link port's receive counters are its pipeline's (local port
        // `LINK % per`).
        let per = cfgs[0].datapath.ports / cfgs[0].datapath.pipelines;
        let ing = x.map.window(&format!("ingress{}", LINK / per)).clone();
        fcs_drops[i] = x.read(ing.addr("RX_DROP_FCS", LINK % per))? as u64;
    }
    let last_got = [
        b[0].sinks[HOST].last_cycles.back().map_or(start, |c| *c) - start,
        b[1].sinks[HOST].last_cycles.back().map_or(start, |c| *c) - start,
    ];
    let got = [b[0].sinks[HOST].packets.drain(..).map(|p| p.data).collect(), b[1].sinks[HOST].packets.drain(..).map(|p| p.data).collect()];
    Ok(PairOutcome {
        regs,
        fcs_drops,
        links,
        sent,
        got,
        last_got,
        cycles,
        clock_mhz: cfgs[0].target.clock_mhz,
        gbps: cfgs[0].datapath.port_gbps,
    })
}

/// An ordered receiver on the link port holds frames or waits for a
/// number (`rx_held`, `rx_ack_no` against `rx_expected`). The reads run
/// each switch's clock on; the two are lined up again after them.
fn receivers_wait(b: &mut [SwitchBench; 2]) -> Result<bool> {
    let mut waiting = false;
    for x in b.iter_mut() {
        let w = x.map.window(&format!("protego{LINK}")).clone();
        let held = x.read(w.addr("RX_HELD", 0))?;
        let (ack, exp) = (x.read(w.addr("RX_ACK_NO", 0))?, x.read(w.addr("RX_EXPECTED", 0))?);
        waiting |= held > 0 || ack != exp;
    }
    let (c0, c1) = (b[0].tb.cycle(), b[1].tb.cycle());
    b[0].run(c1.saturating_sub(c0));
    b[1].run(c0.saturating_sub(c1));
    Ok(waiting)
}

impl PairOutcome {
    /// The direction A -> B in the model engine's terms
    /// ([`LinkResult`]: A sent, B on the link, C good at S2, D delivered).
    /// `in_order` compares host B's frames' NDP sequence numbers;
    /// `s1_queue_high_water` is not measured on the RTL (0).
    pub fn link_result(&self) -> LinkResult {
        let (tx, rx, l) = (&self.regs[0], &self.regs[1], &self.links[0]);
        let (b, c) = l.total();
        let a = self.sent[0].len() as u64;
        let d = self.got[1].len() as u64;
        // The NDP sequence number (host A's frame index) of each frame B got.
        let seqs: Vec<u32> =
            self.got[1].iter().filter_map(|f| f.get(42..46).map(|s| u32::from_be_bytes(s.try_into().expect("4 bytes")))).collect();
        let bytes: u64 = self.got[1].iter().map(|f| f.len() as u64 + 24).sum();
        let secs = self.last_got[1].max(1) as f64 / (self.clock_mhz * 1e6);
        LinkResult {
            a_sent: a,
            b_link_frames: b,
            c_good: c,
            d_delivered: d,
            actual_loss: if b == 0 { 0.0 } else { 1.0 - c as f64 / b as f64 },
            effective_loss: if a == 0 { 0.0 } else { 1.0 - d as f64 / a as f64 },
            effective_gbps: bytes as f64 * 8.0 / secs / 1e9,
            in_order: seqs.windows(2).all(|p| p[0] < p[1]),
            retx_copies: tx["tx_retx"],
            lost: rx["rx_lost"],
            recovered: rx["rx_recovered"],
            timeouts: rx["rx_timeouts"],
            pauses: rx["rx_pauses"],
            retx_delay_min_cycles: (rx["rx_dly_min"] != u32::MAX as u64).then_some(rx["rx_dly_min"]),
            retx_delay_max_cycles: rx["rx_dly_max"],
            tx_ring_high_water: tx["tx_ring_high"],
            rx_buffer_high_water: rx["rx_buf_high"],
            s1_queue_high_water: 0,
            trimmed: self.got[1].len() as u64 - d,
            cycles: self.cycles,
            effective_loss_is: None,
        }
    }
}

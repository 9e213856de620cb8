//! The whole switch on the golden models, frame by frame (`engine="model"`
//! of the Python package, `docs/python.md`): the ingress pipelines
//! ([`IngressModel`]: receive check, parser, classify, lookup, PL2), the
//! traffic manager's admission with exact byte and word occupancy
//! ([`TmModel`]: whole, trimmed, returned to sender, dropped) and a strict
//! priority egress at the port's rate, with the egress rewrite.
//!
//! What it decides is the models' own: every frame's bytes, where it goes
//! and how the traffic manager treats it given the order of admissions and
//! departures. The timing is a model of the RTL's, not the RTL's:
//! - a port receives one frame at a time, at its line rate (frame + 20
//!   bytes of preamble and gap) or, without `line_rate`, at a beat per
//!   cycle; a frame is seen whole (store and forward, as the RTL's receive
//!   check), at its last beat (a beat goes when the rate has carried the
//!   bytes before it, as the agents pace them);
//! - the ports of a pipeline take its bus a frame at a time, a beat a
//!   cycle, in deficit round robin (`arbiter.quantum`) or round robin, as
//!   the RTL's input arbiter; `latency` cycles after a frame took the bus
//!   it is admitted (the ingress pipeline and the traffic manager's input;
//!   default [`DEFAULT_LATENCY`], which gives the RTL's unloaded
//!   port-to-port latency); frames due in the same cycle are admitted in
//!   port order;
//! - each egress port sends the head of its header queue, else of its data
//!   queue (strict priority), at its line rate (+ 20 bytes, + 4 more for the
//!   FCS the MAC appends when the switch strips it) or a beat per cycle; a
//!   packet's space is freed in the cycle of its last beat, after that
//!   cycle's admissions (an admission sees the departures of earlier cycles,
//!   as [`TmModel`] defines).
//!
//! The constructor refuses what it does not model: meter mode (`tm.mode =
//! "meter"`: the meter bank and the deflect-on-drop path run on the event
//! model of `trimswitch sim --model`) and the DRR egress scheduler. Left out
//! as well: the receive FIFOs (no overflow), the cross-pipeline fabric's own
//! timing, Protego's link-local retransmission.
//!
//! Measured against the RTL (`py/tests/test_switch.py`, netfpga-sume, MACs at
//! line rate): uncongested traffic leaves with the same bytes on the same
//! ports in the same order; the unloaded latency is the RTL's (52 cycles for
//! a paced 64-byte frame); a 3:1 incast of 100 x 1500 B per sender trims 201
//! frames where the RTL trims 200; with 64, 200 and 1500-byte frames mixed,
//! 131 against 107, and 1000 and 64 bytes, 114 against 103 (of 300): the
//! fates of a congested queue follow the cycle-level interleaving of
//! arrivals and departures, which the model approximates.
use crate::model::lookup::egress_rewrite;
use crate::model::tm::{Fate, Queue, TmModel, TmSettings};
use crate::model::IngressModel;
use anyhow::{ensure, Result};
use std::collections::{BTreeMap, VecDeque};
use trimswitch_hdl::config::Config;

/// Cycles from a frame taking its pipeline's bus (at its last beat in,
/// when the bus is free) to its admission, by default: the RTL's unloaded
/// port-to-port latency on netfpga-sume (47 cycles first beat in to first
/// beat out for a 64-byte frame of two beats, README "Results") less the
/// frame's second beat.
pub const DEFAULT_LATENCY: u64 = 46;

/// A port's wire at its line rate, beat by beat, as the MAC agents pace
/// them (`crate::agents::axis`): a credit earns `rate` bytes a cycle, up to
/// one beat plus the overhead plus a cycle's earning; a beat goes when the
/// credit pays for it (the sink: for a full beat), the overhead paid with a
/// packet's first beat. `rate` `None`: a beat every cycle.
#[derive(Clone, Copy, Debug)]
struct Wire {
    rate: Option<f64>,
    overhead: usize,
    beat: usize,
    credit: f64,
}

impl Wire {
    fn new(rate: Option<f64>, overhead: usize, beat: usize) -> Wire {
        Wire { rate, overhead, beat, credit: 0.0 }
    }

    /// A cycle: earns the credit; whether a beat of `need` bytes (with the
    /// overhead when `first`) may go.
    fn tick(&mut self, need: usize, first: bool) -> bool {
        let Some(rate) = self.rate else { return true };
        self.credit = (self.credit + rate).min((self.beat + self.overhead) as f64 + rate);
        self.credit >= (need + if first { self.overhead } else { 0 }) as f64
    }

    /// A beat of `n` bytes went.
    fn pay(&mut self, n: usize, first: bool) {
        if self.rate.is_some() {
            self.credit -= (n + if first { self.overhead } else { 0 }) as f64;
        }
    }
}

/// A pipeline's input: its ports' frames take its bus one at a time, a
/// beat a cycle, in deficit round robin (`arbiter.policy = "drr"`: each
/// visit adds `quantum` bytes, frames go while they fit) or round robin (a
/// frame a visit).
struct Arb {
    ports: std::ops::Range<usize>,
    quantum: Option<u64>,
    cur: usize,
    credited: bool,
    deficit: Vec<u64>,
    /// The cycle the bus is free.
    free: u64,
}

impl Arb {
    /// The port whose frame takes the bus next, by `len` of each port's head.
    fn pick(&mut self, head: impl Fn(usize) -> Option<usize>) -> Option<usize> {
        let n = self.ports.len();
        if self.ports.clone().all(|p| head(p).is_none()) {
            return None;
        }
        loop {
            let p = self.ports.start + self.cur;
            let i = self.cur;
            match (head(p), self.quantum) {
                (None, _) => {
                    self.deficit[i] = 0;
                }
                (Some(_), None) => {
                    self.cur = (self.cur + 1) % n;
                    return Some(p);
                }
                (Some(len), Some(q)) => {
                    if !self.credited {
                        self.deficit[i] += q;
                        self.credited = true;
                    }
                    if len as u64 <= self.deficit[i] {
                        self.deficit[i] -= len as u64;
                        return Some(p);
                    }
                }
            }
            self.credited = false;
            self.cur = (self.cur + 1) % n;
        }
    }
}

/// A frame on a wire: its bytes, the bytes gone and, leaving, its `tuser`.
struct OnWire {
    frame: Vec<u8>,
    user: u128,
    offset: usize,
}

/// The switch on the golden models (see the module's documentation).
pub struct SwitchModel {
    ingress: IngressModel,
    tm: TmModel,
    ports: usize,
    beat: usize,
    latency: u64,
    now: u64,
    /// Per port: frames waiting to be received, with their earliest cycle.
    inq: Vec<VecDeque<(Vec<u8>, u64)>>,
    rx: Vec<(Wire, Option<OnWire>)>,
    /// Per port: frames received whole, waiting for their pipeline's bus.
    rxd: Vec<VecDeque<Vec<u8>>>,
    pipes: Vec<Arb>,
    /// Frames on their way through the pipelines, by the cycle they are due
    /// at admission, then port.
    due: BTreeMap<(u64, usize, u64), Vec<u8>>,
    seq: u64,
    tx: Vec<(Wire, Option<OnWire>)>,
    /// Per port: frames that left, with their first byte's cycle.
    out: Vec<Vec<(Vec<u8>, u64)>>,
    /// Frames that left, per port, in all.
    sent: Vec<u64>,
}

impl SwitchModel {
    /// The switch of `cfg` at its reset values, its ingress tables loaded;
    /// `line_rate` as the Python `Switch`'s MAC agents; `latency` cycles from
    /// a frame taking its pipeline's bus to its admission. Errors name the key a
    /// configuration needs that the model does not model.
    pub fn new(cfg: &Config, line_rate: bool, latency: u64) -> Result<SwitchModel> {
        let f = cfg.source.display();
        ensure!(
            cfg.tm.mode == "ideal",
            "{f}: tm.mode = {:?}: the frame-level model has the ideal traffic manager only; meter mode runs on the event model (`trimswitch sim --model`) or the RTL",
            cfg.tm.mode
        );
        ensure!(cfg.tm.scheduler == "strict", "{f}: tm.scheduler = {:?}: the frame-level model has strict priority only", cfg.tm.scheduler);
        let ports = cfg.datapath.ports;
        let beat = cfg.datapath.data_width / 8;
        let line = line_rate.then(|| crate::rtl::switch::line_bytes_per_cycle(cfg));
        let out_overhead = if cfg.ingress.strip_fcs { 24 } else { 20 };
        let per = ports / cfg.datapath.pipelines;
        let quantum = (cfg.arbiter.policy == "drr").then_some(cfg.arbiter.quantum.max(1) as u64);
        Ok(SwitchModel {
            ingress: IngressModel::new(cfg),
            tm: TmModel::new(TmSettings::from_config(cfg)),
            ports,
            beat,
            latency,
            now: 0,
            inq: vec![VecDeque::new(); ports],
            rx: (0..ports).map(|_| (Wire::new(line, 20, beat), None)).collect(),
            rxd: vec![VecDeque::new(); ports],
            pipes: (0..cfg.datapath.pipelines)
                .map(|n| Arb { ports: n * per..(n + 1) * per, quantum, cur: 0, credited: false, deficit: vec![0; per], free: 0 })
                .collect(),
            due: BTreeMap::new(),
            seq: 0,
            tx: (0..ports).map(|_| (Wire::new(line, out_overhead, beat), None)).collect(),
            out: vec![vec![]; ports],
            sent: vec![0; ports],
        })
    }

    pub fn ports(&self) -> usize {
        self.ports
    }

    /// The current cycle.
    pub fn cycle(&self) -> u64 {
        self.now
    }

    /// Queues `wire` (a frame with its FCS) on `port`, not before cycle `at`.
    pub fn send(&mut self, port: usize, wire: Vec<u8>, at: Option<u64>) {
        self.inq[port].push_back((wire, at.unwrap_or(0)));
    }

    /// Runs `cycles` cycles.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    fn step(&mut self) {
        let t = self.now;
        // Receive: the next frame once it is due, a beat when the wire has
        // carried it; a frame is seen at its last beat.
        for p in 0..self.ports {
            let (wire, cur) = &mut self.rx[p];
            if cur.is_none() && self.inq[p].front().is_some_and(|(_, at)| *at <= t) {
                let (frame, _) = self.inq[p].pop_front().unwrap();
                *cur = Some(OnWire { frame, user: 0, offset: 0 });
            }
            let Some(f) = cur else {
                wire.tick(self.beat, true);
                continue;
            };
            let n = (f.frame.len() - f.offset).min(self.beat);
            if wire.tick(n, f.offset == 0) {
                wire.pay(n, f.offset == 0);
                f.offset += n;
                if f.offset == f.frame.len() {
                    self.rxd[p].push_back(cur.take().unwrap().frame);
                }
            }
        }
        // Each pipeline's bus: the next frame when the last has passed.
        for a in self.pipes.iter_mut() {
            if a.free <= t {
                let rxd = &self.rxd;
                if let Some(p) = a.pick(|p| rxd[p].front().map(|f| f.len())) {
                    let f = self.rxd[p].pop_front().unwrap();
                    a.free = t + f.len().div_ceil(self.beat) as u64;
                    self.due.insert((t + self.latency, p, self.seq), f);
                    self.seq += 1;
                }
            }
        }
        // Admission of every frame due now (the ingress models first).
        while let Some(e) = self.due.first_entry() {
            if e.key().0 > t {
                break;
            }
            let ((_, p, _), wire) = e.remove_entry();
            if let Some(o) = self.ingress.process(p, &wire) {
                if let Fate::Deflected(_) = self.tm.admit(&o.frame, &o.meta) {
                    unreachable!("meter mode is refused at construction");
                }
            }
        }
        // Egress: strict priority, one packet at a time per port, a beat
        // when the wire takes a full one; its space freed at its last beat.
        for d in 0..self.ports {
            let (wire, cur) = &mut self.tx[d];
            let ready = wire.tick(self.beat, cur.is_none());
            if !ready {
                continue;
            }
            if cur.is_none() {
                let Some((frame, m)) = self.tm.head(d as u8) else { continue };
                let mut f = frame.to_vec();
                egress_rewrite(&mut f, m.routed, self.ingress.settings());
                self.out[d].push((f, t));
                *cur = Some(OnWire { frame: frame.to_vec(), user: m.pack(), offset: 0 });
            }
            let f = cur.as_mut().unwrap();
            let n = (f.frame.len() - f.offset).min(self.beat);
            wire.pay(n, f.offset == 0);
            f.offset += n;
            if f.offset == f.frame.len() {
                let f = cur.take().unwrap();
                self.tm.depart(d as u8, &f.frame, f.user).expect("the head of a queue departs");
                self.sent[d] += 1;
            }
        }
        self.now += 1;
    }

    /// Whether nothing is waiting, in flight or queued.
    pub fn idle(&self) -> bool {
        self.inq.iter().all(|q| q.is_empty())
            && self.rx.iter().all(|(_, f)| f.is_none())
            && self.rxd.iter().all(|q| q.is_empty())
            && self.due.is_empty()
            && self.tx.iter().all(|(_, f)| f.is_none())
            && self.tm.queued() == 0
    }

    /// Frames that left `port` since the last call, with their first byte's cycle.
    pub fn recv(&mut self, port: usize) -> Vec<(Vec<u8>, u64)> {
        std::mem::take(&mut self.out[port])
    }

    /// The models' counters: the ingress model's (`pipeN.<name>`,
    /// `portP.<name>`, as `trimswitch replay --model` writes them), the
    /// traffic manager's (`tm.<name>`) and the frames each port sent
    /// (`portP.tx_pkts`).
    pub fn counters(&self) -> BTreeMap<String, u64> {
        let mut c: BTreeMap<String, u64> = self.ingress.counters().iter().map(|(k, v)| (k.clone(), *v)).collect();
        c.extend(self.tm.counters().iter().map(|(k, v)| (format!("tm.{k}"), *v)));
        c.extend(self.sent.iter().enumerate().map(|(p, n)| (format!("port{p}.tx_pkts"), *n)));
        c
    }

    /// Bytes and words in (port, queue) now.
    pub fn occupancy(&self, port: u8, q: Queue) -> (u32, u32) {
        self.tm.occupancy(port, q)
    }
}

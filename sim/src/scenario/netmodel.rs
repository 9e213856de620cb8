//! The scenario engine on the model (`trimswitch sim --model`): the switch's
//! trimming rules as an event-driven simulation at any scale, for the paper's
//! 64 ports in 4 pipelines at 100G (seed 000 §6), where the RTL (16 ports at
//! most in Verilator, `sim-16x100g`) would be too slow.
//!
//! What it models, per the RTL's specification (`docs/trimming.md`):
//! - hosts: port `s`'s host sends its flows' windows at `line × load`, every
//!   frame costing its bytes plus 20 (preamble, gap); a flow starts at a random
//!   offset below one frame time (seeded), so synchronized senders are not
//!   phase-locked to the picosecond;
//! - ingress (store and forward: a packet is seen once fully received), one
//!   pipeline per `ports / pipelines` ports. In meter modes a byte meter per
//!   (pipeline, egress port) at 1, 1/2 or 1/4 of the meter rate by the port's
//!   mode (bucket `meter_burst_bytes`, charged wire bytes only when green,
//!   `min(L + R·dt, C)`); not green → trimmed at ingress (seed 001);
//! - the traffic manager: per egress port a header queue and a data queue with
//!   exact byte limits (`queue_h_bytes`, `queue_d_bytes`), admission at
//!   arrival. Ideal mode: a data packet the data queue cannot take is trimmed
//!   into the header queue, else returned to its sender if enabled, else
//!   dropped. Meter modes: it is deflected (DoD) to the recirculation port of
//!   its egress port's pipeline, which sends it at line rate; `recirc_us`
//!   after that it comes back and takes the trim path. A deflection notifies
//!   the port mode machine of the egress port in every pipeline (send-to-all):
//!   pessimistic for T0, halftimistic for T1, then optimistic; a notify
//!   restarts T0. `meter-no-notify` leaves every port optimistic;
//! - egress: strict priority, header queue first, at line rate (frame + 20,
//!   + 4 when the FCS was stripped and the MAC appends it).
//!
//! Not modelled: the ingress pipeline's parsing and latency (a few hundred
//! nanoseconds, the same for every packet), the receive FIFOs, DRR, a bound
//! on the DoD queue (the model keeps every deflected packet and reports the
//! largest backlog: that is the figure the paper's claim is about).
use crate::scenario::{Conservation, FlowMetrics, Metrics, Report, Scenario, Spread, MODES};
use anyhow::{ensure, Result};
use rand::{Rng, SeedableRng};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use trimswitch_hdl::config::Config;

/// Picoseconds.
type Ps = u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// Packet `seq` of flow `flow` fully received at the ingress.
    Arrive {
        flow: usize,
        seq: u32,
    },
    /// A deflected packet back from recirculation.
    Readmit {
        flow: usize,
        seq: u32,
    },
    /// The recirculation port of a pipeline finished sending.
    RecircDone {
        pipe: usize,
    },
    /// Port `port` finished sending its current packet.
    TxDone {
        port: usize,
    },
    /// A port's mode may change now (T0 or T1 ended): settle its meters.
    ModeTick {
        port: usize,
    },
    Sample,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Whole,
    Trimmed,
    Returned,
}

#[derive(Clone, Copy, Debug)]
struct Pkt {
    flow: usize,
    seq: u32,
    /// Bytes in the queue and on the wire without preamble and gap.
    len: u64,
    kind: Kind,
}

struct Bucket {
    level: f64,
    at: Ps,
}

struct Port {
    h: VecDeque<Pkt>,
    d: VecDeque<Pkt>,
    occ_h: u64,
    occ_d: u64,
    busy: bool,
    current: Option<Pkt>,
    /// The last notify and whether there was one.
    notified: Option<Ps>,
    /// Time in each mode (optimistic, halftimistic, pessimistic) so far, up
    /// to `mode_at`.
    mode_ps: [Ps; 3],
    mode_at: Ps,
    first_tx: Option<Ps>,
    last_tx: Ps,
    tx_bytes: u64,
}

struct Sim<'a> {
    sc: &'a Scenario,
    mode: &'a str,
    ppp: usize,
    /// Picoseconds per byte at line rate.
    ps_byte: f64,
    overhead_out: u64,
    /// Bytes the ingress strips from every frame (the FCS, or 0).
    strip: usize,
    trim_len: u64,
    limit_h: u64,
    limit_d: u64,
    rts: bool,
    t0: Ps,
    t1: Ps,
    recirc: Ps,
    /// Meter rates in bytes per picosecond: optimistic, halftimistic, pessimistic.
    rate: [f64; 3],
    burst: f64,
    flows: Vec<crate::scenario::Flow>,
    q: BinaryHeap<Reverse<(Ps, u64, Ev)>>,
    n: u64,
    port: Vec<Port>,
    bucket: Vec<Vec<Bucket>>,
    dod: Vec<VecDeque<Pkt>>,
    dod_busy: Vec<bool>,
    dod_bytes: Vec<u64>,
    max_dod_bytes: u64,
    max_dod_pkts: u64,
    first_in: BTreeMap<(usize, u32), Ps>,
    counters: BTreeMap<String, u64>,
    /// (time, port, kind, flow, seq) of every packet delivered.
    out: Vec<(Ps, usize, Kind, usize, u32)>,
}

impl Sim<'_> {
    fn at(&mut self, t: Ps, e: Ev) {
        self.n += 1;
        self.q.push(Reverse((t, self.n, e)));
    }
    fn count(&mut self, k: &str) {
        *self.counters.entry(k.to_string()).or_default() += 1;
    }
    /// The mode of `port` at `t` (0 optimistic, 1 halftimistic, 2 pessimistic).
    fn mode_of(&self, port: usize, t: Ps) -> usize {
        match self.port[port].notified {
            Some(n) if t < n + self.t0 => 2,
            Some(n) if t < n + self.t0 + self.t1 => 1,
            _ => 0,
        }
    }
    /// Accounts time per mode of `port` up to `t` (the mode is constant
    /// between ticks).
    fn settle_mode(&mut self, port: usize, t: Ps) {
        let m = self.mode_of(port, self.port[port].mode_at);
        let p = &mut self.port[port];
        p.mode_ps[m] += t.saturating_sub(p.mode_at);
        p.mode_at = p.mode_at.max(t);
    }
    /// Refills the meters of egress `port` in every pipeline up to `t` at the
    /// rate of the mode since their last update.
    fn settle_meters(&mut self, port: usize, t: Ps) {
        for pipe in 0..self.bucket.len() {
            let m = self.mode_of(port, self.bucket[pipe][port].at);
            let b = &mut self.bucket[pipe][port];
            b.level = (b.level + self.rate[m] * t.saturating_sub(b.at) as f64).min(self.burst);
            b.at = b.at.max(t);
        }
    }
    /// Packet `seq` of flow `flow` as the switch keeps and sends it (its
    /// FCS stripped when the ingress strips it).
    fn out_len(&self, flow: usize, seq: u32) -> u64 {
        (self.sc.frame_len(flow, seq) - self.strip) as u64
    }

    fn wire(&self, bytes: u64) -> Ps {
        (bytes as f64 * self.ps_byte).round() as Ps
    }

    fn arrive(&mut self, t: Ps, flow: usize, seq: u32) {
        let (src, dst) = (self.flows[flow].src, self.flows[flow].dst);
        self.count("tm.IN_PKTS");
        let mut marked = false;
        if self.mode != "ideal" {
            let pipe = src / self.ppp;
            self.settle_meters(dst, t);
            let cost = (self.sc.frame_len(flow, seq) + 20) as f64;
            let b = &mut self.bucket[pipe][dst];
            if b.level >= cost {
                b.level -= cost;
            } else {
                marked = true;
                self.count("tm.INGRESS_TRIM_PACKETS");
            }
        }
        let pkt = Pkt { flow, seq, len: self.out_len(flow, seq), kind: Kind::Whole };
        if !marked && self.port[dst].occ_d + pkt.len <= self.limit_d {
            self.count("tm.ENQ_D_PKTS");
            self.port[dst].occ_d += pkt.len;
            self.port[dst].d.push_back(pkt);
            self.kick(t, dst);
        } else if !marked && self.mode != "ideal" {
            self.deflect(t, pkt, dst);
        } else {
            self.trim_path(t, pkt);
        }
    }

    /// Deflect on drop: into the recirculation port of `dst`'s pipeline, and
    /// notify `dst`'s mode machine in every pipeline.
    fn deflect(&mut self, t: Ps, pkt: Pkt, dst: usize) {
        self.count("tm.DOD_TRIM_PACKETS");
        let pipe = dst / self.ppp;
        self.dod_bytes[pipe] += pkt.len;
        self.dod[pipe].push_back(pkt);
        self.max_dod_bytes = self.max_dod_bytes.max(self.dod_bytes.iter().copied().max().unwrap_or(0));
        self.max_dod_pkts = self.max_dod_pkts.max(self.dod.iter().map(|q| q.len() as u64).max().unwrap_or(0));
        if self.mode == "meter" {
            self.settle_meters(dst, t);
            self.settle_mode(dst, t);
            self.port[dst].notified = Some(t);
            self.count("tm.NOTIFIES");
            let (a, b) = (t + self.t0, t + self.t0 + self.t1);
            self.at(a, Ev::ModeTick { port: dst });
            self.at(b, Ev::ModeTick { port: dst });
        }
        if !self.dod_busy[pipe] {
            self.recirc_next(t, pipe);
        }
    }

    fn recirc_next(&mut self, t: Ps, pipe: usize) {
        let Some(p) = self.dod[pipe].front().copied() else {
            self.dod_busy[pipe] = false;
            return;
        };
        self.dod_busy[pipe] = true;
        let done = t + self.wire(p.len + self.overhead_out);
        self.at(done, Ev::RecircDone { pipe });
        self.at(done + self.recirc, Ev::Readmit { flow: p.flow, seq: p.seq });
    }

    /// Trim into the header queue, else return to sender, else drop.
    fn trim_path(&mut self, t: Ps, pkt: Pkt) {
        let (src, dst) = (self.flows[pkt.flow].src, self.flows[pkt.flow].dst);
        let len = self.trim_len.min(pkt.len);
        if self.port[dst].occ_h + len <= self.limit_h {
            self.count("tm.TRIM_PACKETS");
            self.port[dst].occ_h += len;
            self.port[dst].h.push_back(Pkt { len, kind: Kind::Trimmed, ..pkt });
            self.kick(t, dst);
        } else if self.rts && self.port[src].occ_h + len <= self.limit_h {
            self.count("tm.RTS_PACKETS");
            self.port[src].occ_h += len;
            self.port[src].h.push_back(Pkt { len, kind: Kind::Returned, ..pkt });
            self.kick(t, src);
        } else {
            self.count("tm.DROPPED_TRIM_PACKETS");
        }
    }

    /// Starts sending on an idle port: header queue first.
    fn kick(&mut self, t: Ps, port: usize) {
        let p = &mut self.port[port];
        if p.busy {
            return;
        }
        let pkt = if let Some(x) = p.h.pop_front() {
            p.occ_h -= x.len;
            x
        } else if let Some(x) = p.d.pop_front() {
            p.occ_d -= x.len;
            x
        } else {
            return;
        };
        p.busy = true;
        p.current = Some(pkt);
        p.first_tx.get_or_insert(t);
        p.tx_bytes += pkt.len + self.overhead_out;
        let done = t + self.wire(pkt.len + self.overhead_out);
        self.at(done, Ev::TxDone { port });
    }
}

/// Runs `sc` in every one of its modes on the model.
pub fn run_all_model(cfg: &Config, sc: &Scenario) -> Result<Report> {
    sc.validate_model(cfg)?;
    let mut runs = vec![];
    for mode in sc.modes(cfg) {
        runs.push(run_model(cfg, sc, &mode)?);
    }
    Ok(Report { scenario: sc.clone(), config: cfg.source.display().to_string(), engine: "model".into(), runs })
}

/// Runs `sc` in `mode` on the model of the switch `cfg` (scaled to the
/// scenario's `ports` and `pipelines` when it sets them).
pub fn run_model(cfg: &Config, sc: &Scenario, mode: &str) -> Result<Metrics> {
    ensure!(MODES.contains(&mode), "mode {mode:?} is not one of {MODES:?}");
    let (ports, pipelines) = sc.scale(cfg);
    let flows = sc.flows(ports, pipelines);
    let mhz = cfg.target.clock_mhz;
    let gbps = cfg.datapath.port_gbps;
    let ps_byte = 8000.0 / gbps;
    let strip = cfg.ingress.strip_fcs;
    let t = &cfg.tm;
    let us = |x: f64| (x * 1e6).round() as Ps;
    let meter = t.meter_gbps / 8000.0; // bytes per ps
    let mut sim = Sim {
        sc,
        mode,
        ppp: ports / pipelines,
        ps_byte,
        overhead_out: 20 + if strip { 4 } else { 0 },
        strip: if strip { 4 } else { 0 },
        trim_len: t.trim_len_ndp as u64,
        limit_h: t.queue_h_bytes as u64,
        limit_d: t.queue_d_bytes as u64,
        rts: t.return_to_sender,
        t0: us(t.t0_us),
        t1: us(t.t1_us),
        recirc: us(sc.recirc_us),
        rate: [meter, meter / 2.0, meter / 4.0],
        burst: t.meter_burst_bytes as f64,
        flows: flows.clone(),
        q: BinaryHeap::new(),
        n: 0,
        port: (0..ports)
            .map(|_| Port {
                h: VecDeque::new(),
                d: VecDeque::new(),
                occ_h: 0,
                occ_d: 0,
                busy: false,
                current: None,
                notified: None,
                mode_ps: [0; 3],
                mode_at: 0,
                first_tx: None,
                last_tx: 0,
                tx_bytes: 0,
            })
            .collect(),
        bucket: (0..pipelines).map(|_| (0..ports).map(|_| Bucket { level: t.meter_burst_bytes as f64, at: 0 }).collect()).collect(),
        dod: vec![VecDeque::new(); pipelines],
        dod_busy: vec![false; pipelines],
        dod_bytes: vec![0; pipelines],
        max_dod_bytes: 0,
        max_dod_pkts: 0,
        first_in: BTreeMap::new(),
        counters: BTreeMap::new(),
        out: vec![],
    };
    // Senders: each port's flows share its line; a flow's packets go out
    // back to back, flows of one port round robin.
    let mut rng = rand::rngs::SmallRng::seed_from_u64(sc.seed);
    // Each packet costs its wire time at the flow's load, plus the
    // scenario's gap jitter; a sender starts at a random offset below one
    // frame time, plus the start jitter.
    let frame_wire = sim.wire(sc.frame_bytes as u64 + 20);
    let mut by_src: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for f in &flows {
        by_src.entry(f.src).or_default().push(f.id);
    }
    for (&src, ids) in &by_src {
        let load = flows[ids[0]].load;
        let mut first: Ps = rng.gen_range(0..frame_wire.max(1)) + sc.start_jitter_ps(src);
        let mut k = 0u64;
        for seq in 0..sc.packets as u32 {
            for &id in ids {
                let len = sc.frame_len(id, seq) as u64;
                sim.first_in.insert((id, seq), first);
                sim.at(first + sim.wire(len), Ev::Arrive { flow: id, seq });
                first += (sim.wire(len + 20) as f64 / load).round() as Ps + sc.gap_jitter_ps(src, k);
                k += 1;
            }
        }
    }
    let receivers: Vec<usize> = {
        let mut v: Vec<usize> = flows.iter().map(|f| f.dst).collect();
        v.sort();
        v.dedup();
        v
    };
    let sample_cycles = 250u64;
    let sample: Ps = (sample_cycles as f64 * 1e6 / mhz).round() as Ps;
    sim.at(0, Ev::Sample);
    let (mut occupancy, mut mode_samples) = (vec![], vec![]);
    let cyc = |t: Ps| (t as f64 * mhz / 1e6).round() as u64;
    let (mut max_h, mut max_d) = (vec![0u64; ports], vec![0u64; ports]);
    let wall = std::time::Instant::now();
    let mut now: Ps = 0;
    while let Some(Reverse((t, _, e))) = sim.q.pop() {
        now = t;
        match e {
            Ev::Arrive { flow, seq } => sim.arrive(t, flow, seq),
            Ev::Readmit { flow, seq } => {
                let pkt = Pkt { flow, seq, len: sim.out_len(flow, seq), kind: Kind::Whole };
                let pipe = sim.flows[flow].dst / sim.ppp;
                sim.dod_bytes[pipe] -= pkt.len;
                sim.trim_path(t, pkt);
            }
            Ev::RecircDone { pipe } => {
                sim.dod[pipe].pop_front();
                sim.recirc_next(t, pipe);
            }
            Ev::TxDone { port } => {
                let p = &mut sim.port[port];
                let pkt = p.current.take().expect("a packet was on the wire");
                p.busy = false;
                p.last_tx = t;
                sim.out.push((t, port, pkt.kind, pkt.flow, pkt.seq));
                sim.kick(t, port);
            }
            Ev::ModeTick { port } => {
                sim.settle_meters(port, t);
                sim.settle_mode(port, t);
            }
            Ev::Sample => {
                for &p in &receivers {
                    let (h, d) = (sim.port[p].occ_h, sim.port[p].occ_d);
                    max_h[p] = max_h[p].max(h);
                    max_d[p] = max_d[p].max(d);
                    occupancy.push((cyc(t), p, h, d));
                    mode_samples.push((cyc(t), p, sim.mode_of(p, t) as u32));
                }
                // Keep sampling while anything is pending besides samples.
                if !sim.q.is_empty() {
                    sim.at(t + sample, Ev::Sample);
                }
            }
        }
    }
    for p in 0..ports {
        sim.settle_mode(p, now);
    }
    // The run ends with the last packet delivered (mode timers may tick on).
    let end = sim.out.iter().map(|o| o.0).max().unwrap_or(0);
    let seconds = wall.elapsed().as_secs_f64();
    finish(cfg, sc, &sim, mode, end, seconds, occupancy, mode_samples, max_h, max_d, sample_cycles)
}

#[allow(clippy::too_many_arguments)]
fn finish(
    cfg: &Config,
    sc: &Scenario,
    sim: &Sim,
    mode: &str,
    end: Ps,
    seconds: f64,
    occupancy: Vec<(u64, usize, u64, u64)>,
    mode_samples: Vec<(u64, usize, u32)>,
    max_h: Vec<u64>,
    max_d: Vec<u64>,
    sample_cycles: u64,
) -> Result<Metrics> {
    let mhz = cfg.target.clock_mhz;
    let cyc = |t: Ps| (t as f64 * mhz / 1e6).round() as u64;
    let cycles = cyc(end);
    let mut fm: Vec<FlowMetrics> = sim
        .flows
        .iter()
        .map(|f| FlowMetrics {
            id: f.id,
            src: f.src,
            dst: f.dst,
            sent: sc.packets,
            whole: 0,
            trimmed: 0,
            returned: 0,
            lost: 0,
            first_in: u64::MAX,
            last_out: 0,
            goodput_gbps: 0.0,
        })
        .collect();
    for (&(f, _), &t) in &sim.first_in {
        fm[f].first_in = fm[f].first_in.min(cyc(t));
    }
    let bin_cycles = (cycles / 40).max(1000);
    let mut flow_gbps = vec![vec![0.0; (cycles / bin_cycles + 1) as usize]; sim.flows.len()];
    let gbps_per_byte = 8.0 * mhz * 1e6 / bin_cycles as f64 / 1e9;
    let (mut header_arrivals, mut hl, mut dl) = (vec![], vec![], vec![]);
    let mut whole_bytes = vec![0u64; sim.flows.len()];
    for &(t, _port, kind, flow, seq) in &sim.out {
        let out = cyc(t);
        let lat = out - cyc(sim.first_in[&(flow, seq)]);
        let f = &mut fm[flow];
        f.last_out = f.last_out.max(out);
        match kind {
            Kind::Whole => {
                f.whole += 1;
                let len = sim.out_len(flow, seq);
                whole_bytes[flow] += len;
                flow_gbps[flow][(out / bin_cycles) as usize] += len as f64 * gbps_per_byte;
                dl.push(lat);
            }
            Kind::Trimmed => {
                f.trimmed += 1;
                header_arrivals.push(out);
                hl.push(lat);
            }
            Kind::Returned => f.returned += 1,
        }
    }
    header_arrivals.sort_unstable();
    for (f, wb) in fm.iter_mut().zip(&whole_bytes) {
        f.lost = f.sent - f.whole - f.trimmed - f.returned;
        if f.last_out > f.first_in {
            f.goodput_gbps = *wb as f64 * 8.0 / ((f.last_out - f.first_in) as f64 / (mhz * 1e6)) / 1e9;
        }
    }
    let c = |k: &str| sim.counters.get(k).copied().unwrap_or(0);
    let mut trims = BTreeMap::new();
    trims.insert("total".to_string(), c("tm.TRIM_PACKETS"));
    trims.insert("ingress".to_string(), c("tm.INGRESS_TRIM_PACKETS"));
    trims.insert("dod".to_string(), c("tm.DOD_TRIM_PACKETS"));
    trims.insert("returned".to_string(), c("tm.RTS_PACKETS"));
    let drops: BTreeMap<String, u64> = [("tm.DROPPED_TRIM_PACKETS", c("tm.DROPPED_TRIM_PACKETS"))]
        .into_iter()
        .filter(|x| x.1 > 0)
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let sum = |g: &dyn Fn(&FlowMetrics) -> usize| fm.iter().map(g).sum::<usize>() as u64;
    let mut cons = Conservation {
        sent: (sim.flows.len() * sc.packets) as u64,
        whole: sum(&|f| f.whole),
        trimmed: sum(&|f| f.trimmed),
        returned: sum(&|f| f.returned),
        dropped: drops.values().sum(),
        ok: false,
    };
    cons.ok = cons.sent == cons.whole + cons.trimmed + cons.returned + cons.dropped;
    let line = cfg.datapath.port_gbps / 8.0; // bytes per ns
    let port_utilization = sim
        .port
        .iter()
        .map(|p| match p.first_tx {
            Some(f) if p.last_tx > f => p.tx_bytes as f64 / (line * (p.last_tx - f) as f64 / 1000.0),
            _ => 0.0,
        })
        .collect();
    let word = (cfg.datapath.data_width / 8) as u64;
    let jain = crate::model::pl2_host::jain(&fm.iter().map(|f| f.goodput_gbps).collect::<Vec<_>>());
    Ok(Metrics {
        jain,
        mode: mode.to_string(),
        clock_mhz: mhz,
        line_gbps: cfg.datapath.port_gbps,
        cycles,
        cycles_per_second: cycles as f64 / seconds.max(1e-9),
        flows: fm,
        trims,
        header_arrivals,
        header_latency: Spread::of(&hl),
        data_latency: Spread::of(&dl),
        sample_cycles,
        max_occ_h_bytes: max_h,
        max_occ_d_bytes: max_d,
        max_dod_words: sim.max_dod_bytes.div_ceil(word),
        occupancy,
        mode_samples,
        bin_cycles,
        flow_gbps,
        mode_cycles: sim.port.iter().map(|p| p.mode_ps.map(cyc)).collect(),
        port_utilization,
        drops,
        conservation: cons,
        counters: sim
            .counters
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .chain([("model.MAX_DOD_PACKETS".to_string(), sim.max_dod_pkts), ("model.MAX_DOD_BYTES".to_string(), sim.max_dod_bytes)])
            .collect(),
    })
}

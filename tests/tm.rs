//! `ts_tm` (ideal mode) in Verilator against the golden model
//! (`sim/src/model/tm.rs`, `docs/trimming.md`), on the default 4-port
//! configuration (256 bits).
//!
//! The bench records when each packet's first beat entered and when each
//! packet's last beat left an egress port; the model replays those events in
//! cycle order. So every admission decision (whole into H or D, trimmed,
//! returned, dropped by reason) is checked against exact occupancy, every
//! output packet must be the head of one of its port's queues in the model
//! (per-queue order, bytes and `tuser`), and every counter read over
//! AXI-Lite must equal the model's. Conservation is checked in every test:
//! each packet in is delivered whole, delivered trimmed, returned, or dropped
//! with a reason, exactly once.
mod common;
use anyhow::{ensure, Context, Result};
use common::*;
use rand::{Rng, SeedableRng};
use std::path::Path;
use trimswitch_hdl::config::Config;
use trimswitch_hdl::meta::Meta;
use trimswitch_hdl::tm::{TmRegs, TrafficManager};
use trimswitch_hdl::tm_admit::QUEUE_LSB;
use trimswitch_sim::axil::{axil_read, axil_write, AxilMaster};
use trimswitch_sim::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::dut::model_of;
use trimswitch_sim::model::gen::{random_frame, GenOpts};
use trimswitch_sim::model::tm::{Fate, Queue, TmModel, TmSettings, TrimParams};
use trimswitch_sim::model::{IngressModel, Settings};
use trimswitch_sim::tb::{Agent, Tb};

const PORTS: usize = 4;
const BEAT: usize = 32;

fn config() -> Config {
    Config::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/netfpga-sume.toml"))).expect("default config")
}

/// Ingress outputs (wide `tuser`) of random frames, with destinations and
/// sources chosen by `route(i, meta) -> (src, dest)`.
fn traffic(n: usize, max_size: usize, seed: u64, route: &mut dyn FnMut(usize, &Meta) -> (u8, u8)) -> Vec<(Vec<u8>, Meta)> {
    let cfg = config();
    let mut ing = IngressModel::new(&cfg);
    let mut o = GenOpts::from_settings(&Settings::from_config(&cfg));
    o.max_size = max_size;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = vec![];
    while out.len() < n {
        let port = rng.gen_range(0..PORTS);
        let Some(x) = ing.process(port, &random_frame(&mut rng, &o)) else { continue };
        let mut m = x.meta;
        (m.src_port, m.dest_port) = route(out.len(), &m);
        out.push((x.frame, m));
    }
    out
}

/// Run-time settings of a test (written over AXI-Lite).
#[derive(Clone, Copy, Debug)]
struct Knobs {
    limit_h: u32,
    limit_d: u32,
    rts: bool,
    drr: bool,
}

struct Outcome {
    /// (first beat in, last beat out, fate, bytes out) per delivered packet.
    latencies: Vec<(u64, u64, Fate)>,
    counters: std::collections::BTreeMap<&'static str, u64>,
    cycles: u64,
}

fn run(pkts: &[(Vec<u8>, Meta)], k: Knobs, idle: f64, ready: &[f64], seed: u64) -> Result<Outcome> {
    let cfg = config();
    let mut dut = TrafficManager::<256, 32, 128, 7, 391>::new(&cfg);
    let m = model_of(&mut dut, "ts_tm", "netfpga")?.instantiate();
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    let mut sinks: Vec<AxisSink> = (0..PORTS).map(|p| AxisSink::new(&m, &AxisPorts::indexed("m", p), seed + 1 + p as u64)).collect::<Result<_>>()?;
    let mut host = AxilMaster::new(&m, "s_axil", seed + 9)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(4);
    let dscp = cfg.ingress.dscp_trimmed;
    let ctrl = k.rts as u32 | (k.drr as u32) << 1 | ((dscp >= 0) as u32) << 2;
    for (a, v) in [(TmRegs::CTRL, ctrl), (TmRegs::LIMIT_H, k.limit_h), (TmRegs::LIMIT_D, k.limit_d)] {
        axil_write(&mut tb, &mut host, a as u64, v, &mut [])?;
    }
    src.idle_prob = idle;
    for (s, r) in sinks.iter_mut().zip(ready) {
        s.ready_prob = *r;
    }
    for (f, m) in pkts {
        src.push(Packet::new(f.clone(), m.pack()));
    }
    let start = tb.cycle();
    {
        let mut agents: Vec<&mut dyn Agent> = vec![&mut src];
        for s in sinks.iter_mut() {
            agents.push(s);
        }
        tb.run_until(&mut agents, 400 * MIN_CYCLES, |_, a| a[0].idle())?;
        // Drain: every queue empties at the sinks' pace.
        for _ in 0..100 {
            tb.run(&mut agents, 2000);
        }
    }
    let cycles = tb.cycle() - start;
    for s in &sinks {
        no_protocol_errors(s)?;
    }

    // Replay in cycle order: admissions see departures of earlier cycles.
    let t = &cfg.tm;
    let settings = TmSettings {
        ports: PORTS,
        beat: BEAT,
        depth_h: t.queue_h_words,
        depth_d: t.queue_d_words,
        limit_h: k.limit_h,
        limit_d: k.limit_d,
        rts: k.rts,
        trim: TrimParams {
            len_ndp: t.trim_len_ndp as u16,
            len_ipv4: t.trim_len_ipv4 as u16,
            len_ipv6: t.trim_len_ipv6 as u16,
            dscp_trimmed: (dscp >= 0).then_some(dscp as u8),
        },
    };
    let mut model = TmModel::new(settings);
    ensure!(src.first_cycles.len() == pkts.len(), "{} of {} packets entered", src.first_cycles.len(), pkts.len());
    // (cycle, 0 = admission / 1 = departure, index, port)
    let mut ev: Vec<(u64, u8, usize, usize)> = src.first_cycles.iter().enumerate().map(|(i, c)| (*c, 0, i, 0)).collect();
    for (p, s) in sinks.iter().enumerate() {
        ensure!(s.last_cycles.len() == s.packets.len());
        ev.extend(s.last_cycles.iter().enumerate().map(|(j, c)| (*c, 1, j, p)));
    }
    ev.sort();
    let mut admitted_at = vec![0u64; pkts.len()];
    let mut fates: std::collections::VecDeque<(u64, Fate)> = Default::default();
    let mut pending: Vec<std::collections::HashMap<(u128, Vec<u8>), std::collections::VecDeque<(u64, Fate)>>> = vec![Default::default(); PORTS];
    let mut latencies = vec![];
    let mask = !(0xffu128 << QUEUE_LSB);
    for (cycle, kind, i, p) in ev {
        if kind == 0 {
            let (f, m) = &pkts[i];
            let fate = model.admit(f, m);
            admitted_at[i] = cycle;
            fates.push_back((cycle, fate));
            if !matches!(fate, Fate::Dropped(_)) {
                // Remember when it came in, keyed by what will leave.
                let (port, out) = match fate {
                    Fate::Whole(d, _) => (d as usize, (m.pack(), f.clone())),
                    Fate::Trimmed(d) | Fate::Returned(d) => {
                        let (tf, tm) = trimswitch_sim::model::tm::trim(f, m, &model.settings.trim, matches!(fate, Fate::Returned(_)));
                        (d as usize, (tm.pack(), tf))
                    }
                    Fate::Dropped(_) => unreachable!(),
                };
                pending[port].entry(out).or_default().push_back((cycle, fate));
            }
        } else {
            let g = &sinks[p].packets[i];
            let user = g.user & mask;
            let (q, _) = model.depart(p as u8, &g.data, user).map_err(|e| anyhow::anyhow!("cycle {cycle}: {e}"))?;
            let qbit = (g.user >> QUEUE_LSB) & 1;
            ensure!((qbit == 0) == (q == Queue::H), "port {p}: packet from {q:?} carries queue bit {qbit}");
            let (t_in, fate) = pending[p].get_mut(&(user, g.data.clone())).and_then(|v| v.pop_front()).context("departure without admission")?;
            latencies.push((t_in, cycle, fate));
        }
    }
    ensure!(model.queued() == 0, "{} packets never left the model's queues (the RTL did not send them)", model.queued());

    // Counters over AXI-Lite equal the model's; conservation.
    let regs = TmRegs { ports: PORTS };
    let mut counters = model.counters().clone();
    let mut read = |a: u32| -> Result<u64> { Ok(axil_read(&mut tb, &mut host, a as u64, &mut [])?.0 as u64) };
    for name in TmRegs::COUNTERS {
        let got = read(regs.counter(name).unwrap())?;
        if name == "cut_pkts" {
            continue;
        }
        let want = counters.get(name).copied().context(name)?;
        ensure!(got == want, "counter {name} = {got}, model {want}");
    }
    let mut tx_trim = 0;
    for p in 0..PORTS {
        tx_trim += read(regs.port_reg(p, "tx_trim_packets").unwrap())?;
        for q in ["occ_h_bytes", "occ_d_bytes"] {
            let v = read(regs.port_reg(p, q).unwrap())?;
            ensure!(v == 0, "port {p} {q} = {v} after draining");
        }
    }
    ensure!(tx_trim == counters["tx_trim_packets"], "TX_TRIM_PACKETS {tx_trim}, model {}", counters["tx_trim_packets"]);
    let c = &counters;
    let fates_sum: u64 = ["enq_h_pkts", "enq_d_pkts", "trim_packets", "rts_packets", "drop_bad_pkts", "drop_ctrl_pkts", "drop_data_pkts", "dropped_trim_packets"]
        .iter()
        .map(|k| c[k])
        .sum();
    ensure!(fates_sum == c["in_pkts"] && c["in_pkts"] == pkts.len() as u64, "conservation: {fates_sum} fates for {} packets in", c["in_pkts"]);
    let delivered: usize = sinks.iter().map(|s| s.packets.len()).sum();
    ensure!(
        delivered as u64 == c["enq_h_pkts"] + c["enq_d_pkts"] + c["trim_packets"] + c["rts_packets"],
        "delivered {delivered}, admitted {}",
        c["enq_h_pkts"] + c["enq_d_pkts"] + c["trim_packets"] + c["rts_packets"]
    );
    ensure!(c["tx_trim_packets"] == c["trim_packets"] + c["rts_packets"]);
    counters.insert("cycles", cycles);
    Ok(Outcome { latencies, counters, cycles })
}

/// Random traffic to random ports, congested egress (random readiness),
/// small queues: every fate occurs, and the RTL matches the model.
#[test]
fn differential_random() -> Result<()> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let pkts = traffic(6000, 3000, 41, &mut |_, m| (m.src_port, if rng.gen_bool(0.01) { 7 } else { rng.gen_range(0..PORTS as u8) }));
    for (k, ready, seed) in [
        (Knobs { limit_h: 300, limit_d: 5000, rts: true, drr: false }, [0.12, 0.2, 0.1, 0.6], 1),
        (Knobs { limit_h: 250, limit_d: 4000, rts: false, drr: true }, [0.1, 0.15, 0.3, 0.2], 2),
    ] {
        let o = run(&pkts, k, 0.05, &ready, seed).with_context(|| format!("{k:?}"))?;
        let c = &o.counters;
        eprintln!("{k:?}: {} cycles, {c:?}", o.cycles);
        for name in ["enq_h_pkts", "enq_d_pkts", "trim_packets", "drop_bad_pkts", "drop_data_pkts", "dropped_trim_packets"] {
            ensure!(c[name] > 0, "{name} never happened: {c:?}");
        }
        if k.rts {
            ensure!(c["rts_packets"] > 0, "no return to sender: {c:?}");
        }
    }
    Ok(())
}

/// 4:1 incast at line rate: four NDP-style senders (behind ports 1, 2, 3 and
/// 3) each offer a 10G port's rate to the receiver behind port 0. The input
/// runs at 4 x 10G of the 51.2 Gb/s pipeline, egress port 0 at 10G (ready
/// one cycle in 5.12). No packet is unaccounted, the trims are the model's
/// ideal count, and trimmed headers overtake queued data.
#[test]
fn incast_4_to_1() -> Result<()> {
    let src = [1u8, 2, 3, 3];
    let pkts = traffic(4000, 1500, 77, &mut |i, _| (src[i % 4], 0));
    let cfg = config();
    let k = Knobs { limit_h: cfg.tm.queue_h_bytes, limit_d: cfg.tm.queue_d_bytes, rts: true, drr: false };
    let o = run(&pkts, k, 1.0 - 40.0 / 51.2, &[10.0 / 51.2, 1.0, 1.0, 1.0], 5)?;
    let c = &o.counters;
    ensure!(c["trim_packets"] > 100, "incast should trim: {c:?}");
    let lat = |want: &dyn Fn(&Fate) -> bool| -> (usize, f64, u64) {
        let v: Vec<u64> = o.latencies.iter().filter(|(_, _, f)| want(f)).map(|(a, b, _)| b - a).collect();
        (v.len(), v.iter().sum::<u64>() as f64 / v.len().max(1) as f64, v.iter().copied().max().unwrap_or(0))
    };
    let (nh, h_mean, h_max) = lat(&|f| matches!(f, Fate::Trimmed(_)));
    let (nd, d_mean, d_max) = lat(&|f| matches!(f, Fate::Whole(0, Queue::D)));
    eprintln!(
        "incast 4:1: {} packets in {} cycles; {c:?}\n trimmed headers: {nh}, latency mean {h_mean:.0} max {h_max} cycles; data: {nd}, mean {d_mean:.0} max {d_max} cycles",
        pkts.len(),
        o.cycles
    );
    ensure!(nh > 0 && nd > 0 && h_mean * 4.0 < d_mean, "headers must overtake queued data: header mean {h_mean:.0}, data mean {d_mean:.0}");
    Ok(())
}

/// A queue's memory bounds admission too: with a byte limit larger than the
/// memory, packets are refused by words, not lost (the queue never
/// back-pressures), and the model's word accounting agrees.
#[test]
fn word_limit_bounds_admission() -> Result<()> {
    let pkts = traffic(1500, 200, 9, &mut |_, m| (m.src_port, 2));
    let cfg = config();
    let words = cfg.tm.queue_d_words as u32;
    let o = run(&pkts, Knobs { limit_h: 1 << 20, limit_d: 1 << 23, rts: false, drr: false }, 0.0, &[1.0, 1.0, 0.05, 1.0], 8)?;
    let c = &o.counters;
    ensure!(c["trim_packets"] + c["drop_data_pkts"] > 0, "the {words}-word data queue never filled: {c:?}");
    Ok(())
}

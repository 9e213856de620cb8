//! Smoke run of `ts_fabric` in Verilator: the primitives together, configured
//! through AXI-Lite as a host would, under random traffic and backpressure.
//!
//! The check is the switch invariant: every packet sent is delivered exactly
//! once (unchanged, in order within its source/destination pair) or dropped
//! and counted, by the ingress FIFO (full) or by the demux (no such port).
use crate::agents::axil::{axil_read, axil_write, AxilMaster};
use crate::agents::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use crate::harness::dut::Traffic;
use crate::harness::tb::{Agent, Tb};
use crate::harness::verilator::{build_model, BuildOptions};
use anyhow::{ensure, Context, Result};
use rand::Rng;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;
use trimswitch_hdl::axis::demux::DEST_DROP;
use trimswitch_hdl::config::Config;
use trimswitch_hdl::meta::{tuser, DEST_PORT_LSB};
use trimswitch_hdl::top::fabric::FabricRegs;

/// What a smoke run measured.
#[derive(Clone, Debug, Serialize)]
pub struct SmokeReport {
    pub config: String,
    pub ports: usize,
    pub data_width: usize,
    pub cycles: u64,
    pub packets_sent: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    pub fifo_drops: u64,
    pub demux_drops: u64,
    /// Wall-clock seconds of the simulation loop (not the model build).
    pub seconds: f64,
    pub cycles_per_second: f64,
    /// Seconds spent building the Verilated model, if it was built now.
    pub model_build_seconds: Option<f64>,
}

/// Runs `ts_fabric` from `verilog` (emitted for `cfg`) with `cycles` cycles
/// of traffic (plus the drain) and checks the invariant; errors name the first violation.
pub fn run(cfg: &Config, verilog: &Path, cycles: u64, seed: u64) -> Result<SmokeReport> {
    let ports = cfg.datapath.ports;
    let lib = build_model(&[verilog.to_path_buf()], "ts_fabric", &BuildOptions::default())
        .with_context(|| format!("building the Verilated model of {}", verilog.display()))?;
    let m = lib.instantiate();
    let mut srcs = (0..ports).map(|p| AxisSource::new(&m, &AxisPorts::indexed("s", p), seed + p as u64)).collect::<Result<Vec<_>>>()?;
    let mut sinks =
        (0..ports).map(|p| AxisSink::new(&m, &AxisPorts::indexed("m", p), seed + 100 + p as u64)).collect::<Result<Vec<_>>>()?;
    let mut host = AxilMaster::new(&m, "s_axil", seed + 200)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(4);

    // Configure as a host would: DRR on, quanta of one MTU, and read back.
    let regs = FabricRegs { ports };
    ensure!(axil_write(&mut tb, &mut host, FabricRegs::ARB_POLICY as u64, 1, &mut [])? == 0, "write ARB_POLICY failed");
    for p in 0..ports {
        ensure!(axil_write(&mut tb, &mut host, regs.arb_quantum(p) as u64, 1536, &mut [])? == 0, "write ARB_QUANTUM_{p} failed");
    }
    ensure!(axil_read(&mut tb, &mut host, FabricRegs::ARB_POLICY as u64, &mut [])? == (1, 0), "ARB_POLICY did not read back");

    // Traffic: Ethernet-sized packets, one in 20 to a port that does not exist.
    // Every source is kept topped up for `cycles` cycles, then the fabric drains.
    let beat = cfg.datapath.data_width / 8;
    let mut t = Traffic::new(seed);
    let mut sent: Vec<Vec<Packet>> = vec![vec![]; ports];
    let mut seq: u128 = 0;
    for s in srcs.iter_mut() {
        s.idle_prob = 0.4;
    }
    for s in sinks.iter_mut() {
        s.ready_prob = 0.8;
    }

    let started = Instant::now();
    let start_cycle = tb.cycle();
    // Drain: stop once traffic has ended and no output has moved for 2000
    // cycles (longer than any packet's stay in the fabric).
    let mut quiet = 0u64;
    let mut last_beats = 0u64;
    let limit = start_cycle + 2 * cycles + 100_000;
    while quiet < 2000 {
        ensure!(tb.cycle() < limit, "fabric did not drain within {} cycles", limit - start_cycle);
        let feeding = tb.cycle() - start_cycle < cycles;
        if feeding {
            for (p, src) in srcs.iter_mut().enumerate() {
                if src.pending() < 2 {
                    let len = t.length(60, 1518, beat);
                    let dest = if t.rng.gen_range(0..20) == 0 { DEST_DROP as u8 } else { t.rng.gen_range(0..ports) as u8 };
                    let pkt = t.packet(len, tuser(p as u8, dest, len as u16) | seq << 40);
                    seq += 1;
                    src.push(pkt.clone());
                    sent[p].push(pkt);
                }
            }
        }
        let mut agents: Vec<&mut dyn Agent> = srcs.iter_mut().map(|s| s as &mut dyn Agent).collect();
        agents.extend(sinks.iter_mut().map(|s| s as &mut dyn Agent));
        tb.step(&mut agents);
        let b: u64 = sinks.iter().map(|s| s.beats()).sum();
        let sources_done = !feeding && srcs.iter().all(|s| s.idle());
        quiet = if sources_done && b == last_beats { quiet + 1 } else { 0 };
        last_beats = b;
    }
    let seconds = started.elapsed().as_secs_f64();
    let sim_cycles = tb.cycle() - start_cycle;

    // Counters, read over AXI-Lite.
    let demux_drops = axil_read(&mut tb, &mut host, regs.demux_drop_pkts() as u64, &mut [])?.0 as u64;
    let mut fifo_drops = 0;
    for p in 0..ports {
        fifo_drops += axil_read(&mut tb, &mut host, regs.fifo_drop_pkts(p) as u64, &mut [])?.0 as u64;
        let occ = axil_read(&mut tb, &mut host, regs.fifo_occ_bytes(p) as u64, &mut [])?.0;
        ensure!(occ == 0, "FIFO {p} still holds {occ} bytes after the drain");
    }

    // The invariant.
    let mut delivered = 0u64;
    let mut bytes = 0u64;
    for (q, sink) in sinks.iter_mut().enumerate() {
        ensure!(sink.error_count() == 0, "output {q}: protocol errors: {:?}", sink.errors.first());
        let got: Vec<Packet> = sink.packets.drain(..).collect();
        for (p, sent_p) in sent.iter().enumerate().take(ports) {
            let want: Vec<&Packet> = sent_p.iter().filter(|k| dest_of(k) == q).collect();
            let mine: Vec<&Packet> = got.iter().filter(|k| (k.user & 0xff) as usize == p).collect();
            let mut i = 0;
            for g in &mine {
                while i < want.len() && want[i] != *g {
                    i += 1;
                }
                ensure!(i < want.len(), "output {q}: packet from {p} (seq {}) was not sent there, or arrived out of order", g.user >> 40);
                i += 1;
            }
        }
        ensure!(got.iter().all(|k| dest_of(k) == q), "output {q} received a packet for another port");
        delivered += got.len() as u64;
        bytes += got.iter().map(|k| k.data.len() as u64).sum::<u64>();
    }
    let total: u64 = sent.iter().map(|s| s.len() as u64).sum();
    ensure!(
        delivered + fifo_drops + demux_drops == total,
        "conservation: sent {total} != delivered {delivered} + FIFO drops {fifo_drops} + demux drops {demux_drops}"
    );
    ensure!(demux_drops > 0 && delivered > 0, "the run exercised too little (delivered {delivered}, demux drops {demux_drops})");
    Ok(SmokeReport {
        config: cfg.target.name.clone(),
        ports,
        data_width: cfg.datapath.data_width,
        cycles: sim_cycles,
        packets_sent: total,
        packets_delivered: delivered,
        bytes_delivered: bytes,
        fifo_drops,
        demux_drops,
        seconds,
        cycles_per_second: sim_cycles as f64 / seconds.max(1e-9),
        model_build_seconds: lib.freshly_built().then(|| lib.build_time()).flatten(),
    })
}

fn dest_of(p: &Packet) -> usize {
    ((p.user >> DEST_PORT_LSB) & 0xff) as usize
}

//! The ingress pipeline (`ts_ingress`) in Verilator, driven like the golden
//! model ([`crate::model::run_model`]): frames per port in, packets and
//! counters out. A host configures it over AXI-Lite first (every run-time
//! register and table from [`Settings`]), as the switch's driver would, and
//! reads every counter back over AXI-Lite at the end.
use crate::agents::axil::{axil_read, axil_write, AxilMaster};
use crate::agents::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use crate::harness::dut::model_of_verilog;
use crate::harness::tb::{Agent, Tb};
use crate::harness::verilator::{Model, ModelLib, Port};
use crate::model::{Counters, IngressOut, Settings};
use anyhow::{ensure, Context, Result};
use trimswitch_hdl::config::Config;
use trimswitch_hdl::gen::catalog::emit_ingress;
use trimswitch_hdl::ingress::classify::reg as creg;
use trimswitch_hdl::ingress::lookup::reg as lreg;
use trimswitch_hdl::ingress::IngressRegs;
use trimswitch_hdl::meta::Meta;

/// How the testbench drives the pipeline.
#[derive(Clone, Debug)]
pub struct RtlOpts {
    /// Seed of the random gaps and backpressure.
    pub seed: u64,
    /// Probability that a port's source idles in a cycle (0 = line rate).
    pub idle_prob: f64,
    /// Probability that the output is ready in a cycle.
    pub ready_prob: f64,
}

impl Default for RtlOpts {
    fn default() -> RtlOpts {
        RtlOpts { seed: 1, idle_prob: 0.0, ready_prob: 1.0 }
    }
}

/// What a run measured besides packets and counters.
#[derive(Clone, Debug, Default)]
pub struct RtlStats {
    /// Cycles simulated (all pipelines, configuration included).
    pub cycles: u64,
    /// Wall-clock seconds of simulation (information only, never asserted).
    pub seconds: f64,
    /// Pipeline 0: cycles from the first beat into local port 0 to the first
    /// beat out (the latency of a packet through an empty pipeline, when port
    /// 0's first frame survives).
    pub first_latency: Option<u64>,
    /// Pipeline 0: packets out, and cycles from the first beat out to the
    /// last (inclusive): the sustained output rate.
    pub out_pkts: u64,
    pub out_span: u64,
}

/// Records when beats pass: the first beat into port 0, every output beat.
struct Watch {
    in_valid: Port,
    in_ready: Port,
    out_valid: Port,
    out_ready: Port,
    out_last: Port,
    first_in: Option<u64>,
    first_out: Option<u64>,
    last_out: Option<u64>,
    pkts: u64,
}

impl Agent for Watch {
    fn drive(&mut self, _m: &mut Model, _cycle: u64) {}
    fn sample(&mut self, m: &Model, cycle: u64) {
        if self.first_in.is_none() && m.get(&self.in_valid) == 1 && m.get(&self.in_ready) == 1 {
            self.first_in = Some(cycle);
        }
        if m.get(&self.out_valid) == 1 && m.get(&self.out_ready) == 1 {
            self.first_out.get_or_insert(cycle);
            self.last_out = Some(cycle);
            self.pkts += m.get(&self.out_last);
        }
    }
}

/// Builds (or reuses) the Verilated `ts_ingress` of `cfg`.
pub fn ingress_model(cfg: &Config) -> Result<ModelLib> {
    model_of_verilog(&emit_ingress(cfg)?.verilog, "ts_ingress", &cfg.hash())
}

/// The register writes that load `s` into a pipeline of `cfg` (byte address,
/// value), in order: control window, then every table row (empty rows
/// written as zero, so a reused pipeline forgets old entries).
pub fn register_writes(cfg: &Config, s: &Settings) -> Vec<(u32, u32)> {
    let ports = cfg.datapath.ports / cfg.datapath.pipelines;
    let r = IngressRegs { ports };
    let mut w = vec![
        (IngressRegs::CTRL, s.strip_fcs as u32 | (s.malformed_drop as u32) << 1),
        (IngressRegs::FRAME, s.min_frame as u32 | (s.max_frame as u32) << 16),
        (IngressRegs::MISS_PORT, s.miss_port as u32),
        (IngressRegs::ROUTER_MAC_LO, lreg::mac(s.router_mac)[0]),
        (IngressRegs::ROUTER_MAC_HI, lreg::mac(s.router_mac)[1]),
        (IngressRegs::DSCP, creg::dscp(s.dscp_trimmable, s.dscp_trimmed, s.dscp_control)),
        (IngressRegs::TC, creg::tc(&s.pcp_tc, s.default_tc)),
        (IngressRegs::ARB_POLICY, (cfg.arbiter.policy == "drr") as u32),
    ];
    for p in 0..ports.max(2) {
        w.push((r.arb_quantum(p), cfg.arbiter.quantum));
    }
    for (i, e) in s.routes.iter().enumerate() {
        let v = e.map_or([0, 0], |e| lreg::route(e.prefix, e.len, e.port, e.nexthop));
        w.push((r.route(i), v[0]));
        w.push((r.route(i) + 4, v[1]));
    }
    for (i, e) in s.l2.iter().enumerate() {
        let v = e.map_or([0, 0], |e| lreg::l2(e.mac, e.port));
        w.push((r.l2(i), v[0]));
        w.push((r.l2(i) + 4, v[1]));
    }
    for (i, m) in s.nexthop_mac.iter().enumerate() {
        let v = lreg::mac(*m);
        w.push((r.nexthop(i), v[0]));
        w.push((r.nexthop(i) + 4, v[1]));
    }
    w
}

/// Runs `inputs[p]` (switch port `p`'s frames, FCS included) through the
/// Verilated pipelines of `cfg` configured with `s`, one pipeline after the
/// other (they share nothing), and returns the packets that left (in order
/// per pipeline), the counters under the golden model's names, and the
/// cycle count. Ends when every frame is in and the pipeline has been quiet
/// long enough for the largest frame to have left.
pub fn run_rtl(cfg: &Config, s: &Settings, inputs: &[Vec<Vec<u8>>], opts: &RtlOpts) -> Result<(Vec<IngressOut>, Counters, RtlStats)> {
    ensure!(inputs.len() <= cfg.datapath.ports, "{} input ports for a {}-port switch", inputs.len(), cfg.datapath.ports);
    let lib = ingress_model(cfg)?;
    let per = cfg.datapath.ports / cfg.datapath.pipelines;
    let beat = cfg.datapath.data_width / 8;
    let quiet_cycles = 500 + 4 * (s.max_frame as u64 / beat as u64 + 1);
    let mut out = vec![];
    let mut counters = Counters::new();
    let mut stats = RtlStats::default();
    let t0 = std::time::Instant::now();
    for pipe in 0..cfg.datapath.pipelines {
        let m = lib.instantiate();
        let mut host = AxilMaster::new(&m, "s_axil", opts.seed)?;
        let mut srcs = (0..per)
            .map(|p| AxisSource::new(&m, &AxisPorts::indexed("s", p).without_tuser(), opts.seed + 10 + p as u64))
            .collect::<Result<Vec<_>>>()?;
        let mut sink = AxisSink::new(&m, &AxisPorts::master("m"), opts.seed + 1)?;
        let mut watch = Watch {
            in_valid: m.port("s_tvalid_0")?,
            in_ready: m.port("s_tready_0")?,
            out_valid: m.port("m_tvalid")?,
            out_ready: m.port("m_tready")?,
            out_last: m.port("m_tlast")?,
            first_in: None,
            first_out: None,
            last_out: None,
            pkts: 0,
        };
        let mut tb = Tb::new(m, "clock", Some("reset"))?;
        let base = tb.model.port("port_base")?;
        tb.model.set(&base, (pipe * per) as u64);
        tb.reset(4);
        for (addr, v) in register_writes(cfg, s) {
            let resp = axil_write(&mut tb, &mut host, addr as u64, v, &mut [])?;
            ensure!(resp == 0, "register write {addr:#06x} = {v:#x} answered {resp}");
        }
        for (p, src) in srcs.iter_mut().enumerate() {
            src.idle_prob = opts.idle_prob;
            if let Some(frames) = inputs.get(pipe * per + p) {
                for f in frames {
                    src.push(Packet::new(f.clone(), 0));
                }
            }
        }
        sink.ready_prob = opts.ready_prob;
        // Run until the sources are empty and nothing has left for a while.
        let (mut last_beats, mut quiet) = (0u64, 0u64);
        loop {
            {
                let mut agents: Vec<&mut dyn Agent> = srcs.iter_mut().map(|s| s as &mut dyn Agent).collect();
                agents.push(&mut sink);
                agents.push(&mut watch);
                tb.run(&mut agents, 100);
            }
            let busy = srcs.iter().any(|s| !s.idle());
            if sink.beats() != last_beats || busy {
                last_beats = sink.beats();
                quiet = 0;
            } else {
                quiet += 100;
                if quiet >= quiet_cycles {
                    break;
                }
            }
            ensure!(tb.cycle() < 2_000_000_000, "pipeline {pipe} never went quiet");
        }
        ensure!(sink.error_count() == 0, "AXI-Stream protocol errors at the output: {:?}", sink.errors.first());
        // Counters, over AXI-Lite.
        let regs = IngressRegs { ports: per };
        for name in IngressRegs::COUNTERS {
            let a = regs.counter(name).expect("listed counter");
            let (v, resp) = axil_read(&mut tb, &mut host, a as u64, &mut [])?;
            ensure!(resp == 0, "counter {name} read answered {resp}");
            counters.insert(format!("pipe{pipe}.{name}"), v as u64);
        }
        for p in 0..per {
            for name in IngressRegs::PORT_COUNTERS {
                let a = regs.port_counter(p, name).expect("listed counter");
                let (v, resp) = axil_read(&mut tb, &mut host, a as u64, &mut [])?;
                ensure!(resp == 0, "counter {name} read answered {resp}");
                counters.insert(format!("port{}.{name}", pipe * per + p), v as u64);
            }
        }
        stats.cycles += tb.cycle();
        if pipe == 0 {
            if let (Some(i), Some(f), Some(l)) = (watch.first_in, watch.first_out, watch.last_out) {
                stats.first_latency = Some(f - i);
                stats.out_span = l - f + 1;
                stats.out_pkts = watch.pkts;
            }
        }
        out.extend(sink.packets.drain(..).map(|p| IngressOut { meta: Meta::unpack(p.user), frame: p.data }));
    }
    stats.seconds = t0.elapsed().as_secs_f64();
    Ok((out, counters, stats))
}

/// Splits outputs by source port, keeping their order (the unit in which the
/// RTL and the model agree: the arbiter interleaves ports differently).
pub fn by_source(out: &[IngressOut], ports: usize) -> Vec<Vec<&IngressOut>> {
    let mut v = vec![vec![]; ports];
    for o in out {
        if let Some(q) = v.get_mut(o.meta.src_port as usize) {
            q.push(o);
        }
    }
    v
}

/// Compares RTL and model results: per source port, packet by packet (bytes
/// and every `tuser` field), then every counter. Errors name the first
/// difference.
pub fn compare(ports: usize, rtl: &[IngressOut], model: &[IngressOut], rc: &Counters, mc: &Counters) -> Result<()> {
    ensure!(rtl.len() == model.len(), "RTL sent {} packets, the model {}", rtl.len(), model.len());
    for (p, (r, m)) in by_source(rtl, ports).iter().zip(by_source(model, ports)).enumerate() {
        ensure!(r.len() == m.len(), "port {p}: RTL sent {} packets, the model {}", r.len(), m.len());
        for (i, (a, b)) in r.iter().zip(&m).enumerate() {
            ensure!(a.meta == b.meta, "port {p} packet {i}: tuser\n  rtl   {:?}\n  model {:?}", a.meta, b.meta);
            ensure!(
                a.frame == b.frame,
                "port {p} packet {i} ({} bytes): bytes differ at {:?}",
                a.frame.len(),
                a.frame.iter().zip(&b.frame).position(|(x, y)| x != y)
            );
        }
    }
    for (k, v) in mc {
        let r = rc.get(k).with_context(|| format!("the RTL has no counter {k}"))?;
        ensure!(r == v, "counter {k}: RTL {r}, model {v}");
    }
    Ok(())
}

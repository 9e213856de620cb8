//! `ts_switch`, the whole data path of the default configuration
//! (`netfpga-sume`: 4 ports, one 256-bit pipeline), and of `alveo-u250`
//! (2 x 100G, two 512-bit pipelines sharing the ports' queue limits), in
//! Verilator.
//!
//! - The register map (`trimswitch_hdl::top::regmap`, what `trimswitch regs`
//!   publishes) is the hardware's: every read/write register reads its
//!   documented reset value through the switch's one AXI4-Lite port and
//!   reads back what is written; counters clear on a write; addresses past a
//!   window's registers answer DECERR. The generated C header compiles and
//!   its addresses equal the map's; so do the Python module's.
//! - Frames in at the MAC side, out at the MAC side, configured by a host
//!   over AXI-Lite through the map: every packet out is one input packet,
//!   whole (the ingress golden model's bytes and `tuser`), trimmed or
//!   returned (the traffic manager model's `trim`), each at most once and in
//!   order per source and queue; every packet in is accounted for by an
//!   output or exactly one drop counter (conservation); every ingress counter
//!   equals the golden model's, and the traffic manager's counters equal the
//!   fates seen at the outputs.
use crate::common;
use anyhow::{bail, ensure, Context, Result};
use common::*;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashMap};
use trimswitch_hdl::config::Config;
use trimswitch_hdl::meta::{flag, Meta};
use trimswitch_hdl::tm::admit::QUEUE_LSB;
use trimswitch_hdl::top::regmap::{Access, SwitchMap};
use trimswitch_sim::agents::axil::{axil_read, axil_write, AxilMaster};
use trimswitch_sim::agents::axis::Packet;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::model::gen::{random_frame, GenOpts};
use trimswitch_sim::model::lookup::egress_rewrite;
use trimswitch_sim::model::tm::{trim, TrimParams};
use trimswitch_sim::model::{IngressModel, Settings};
use trimswitch_sim::rtl::switch::{switch_model, SwitchBench};
use trimswitch_sim::scenario::{ndp_frame, Flow};

/// A fresh, reset `ts_switch` of `cfg` with a host on its AXI-Lite port.
fn switch(cfg: &Config, seed: u64) -> Result<(Tb, AxilMaster)> {
    let m = switch_model(cfg)?.instantiate();
    let host = AxilMaster::new(&m, "s_axil", seed)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(4);
    Ok((tb, host))
}

#[test]
fn register_map_is_the_hardware() -> Result<()> {
    register_map(&config(), 3)
}

/// Every element of `cfg`'s map reads its reset value through the switch
/// and reads back what is written; addresses past each window's registers,
/// and past the last window, answer DECERR. With Protego, the slots of the
/// ports without it read 0 at offset 0 (`CTRL` off), DECERR after.
pub fn register_map(cfg: &Config, seed: u64) -> Result<()> {
    let cfg = cfg.clone();
    let map = SwitchMap::new(&cfg);
    map.check().map_err(anyhow::Error::msg)?;
    let (mut tb, mut host) = switch(&cfg, seed)?;
    // Reset values, and no DECERR anywhere in the map.
    let mut n = 0;
    for (w, r, i, a) in map.elements() {
        let (v, resp) = axil_read(&mut tb, &mut host, a as u64, &mut [])?;
        ensure!(resp == 0, "{}.{}[{i}] at {a:#x}: read answered {resp}", w.name, r.name);
        if r.access == Access::Rw {
            ensure!(v == r.reset[i], "{}.{}[{i}] at {a:#x}: reset value {v:#x}, map says {:#x}", w.name, r.name, r.reset[i]);
        } else if r.access == Access::Rc && !r.name.starts_with("CYCLES_") {
            // Counters 0; a minimum (GRT_LAT_MIN) its "none yet" value.
            ensure!(v == r.reset[i], "{}.{}[{i}]: {v:#x} after reset, map says {:#x}", w.name, r.name, r.reset[i]);
        }
        n += 1;
    }
    ensure!(n > 300, "only {n} registers in the map");
    // Writes read back (a different value per register, so an aliased
    // address shows up as the wrong value).
    let rw: Vec<_> = map.elements().filter(|e| e.1.access == Access::Rw).map(|e| e.3).collect();
    let val = |a: u32| (a.wrapping_mul(0x9E37_79B9) ^ 0x5A5A_0000) | 1;
    for a in &rw {
        let resp = axil_write(&mut tb, &mut host, *a as u64, val(*a), &mut [])?;
        ensure!(resp == 0, "write {a:#x} answered {resp}");
    }
    for a in &rw {
        let (v, _) = axil_read(&mut tb, &mut host, *a as u64, &mut [])?;
        ensure!(v == val(*a), "register at {a:#x} reads {v:#x} after writing {:#x}", val(*a));
    }
    // Past the last register of each window, and past the last window:
    // DECERR (3), for reads and writes.
    let mut holes = vec![];
    for w in &map.windows {
        let end = w.regs.iter().map(|r| r.at(r.count - 1)).max().unwrap_or(0) + 4;
        holes.push(w.base + end);
        holes.push(w.base + w.span - 4);
    }
    holes.push(map.end());
    if !cfg.protego.ports.is_empty() {
        let pg = (2 * cfg.datapath.pipelines as u32 + 1) << trimswitch_hdl::top::regmap::SWITCH_WINDOW_BITS;
        for q in (0..cfg.datapath.ports as u32).filter(|q| !cfg.protego.ports.contains(q)) {
            let slot = pg + (q << trimswitch_hdl::protego::port::PORT_REG_BITS);
            axil_write(&mut tb, &mut host, slot as u64, 7, &mut [])?;
            let (v, resp) = axil_read(&mut tb, &mut host, slot as u64, &mut [])?;
            ensure!(resp == 0 && v == 0, "port {q} (no Protego): CTRL at {slot:#x} read {v:#x}, response {resp}");
            holes.push(slot + 4);
        }
    }
    for a in holes {
        let (_, resp) = axil_read(&mut tb, &mut host, a as u64, &mut [])?;
        ensure!(resp == 3, "read of unmapped {a:#x} answered {resp}, not DECERR");
        let resp = axil_write(&mut tb, &mut host, a as u64, 1, &mut [])?;
        ensure!(resp == 3, "write of unmapped {a:#x} answered {resp}, not DECERR");
    }
    eprintln!("{n} registers ({} read/write) checked through ts_switch", rw.len());
    Ok(())
}

/// The generated C header and Python module give the map's addresses.
#[test]
fn generated_c_header_and_python_module_agree() -> Result<()> {
    header_and_module(&config(), "test-regs")?;
    // With a Protego port's window (`TS_PROTEGO1_CTRL`).
    header_and_module(&protego_switch_configs()?[0], "test-regs-protego")
}

fn header_and_module(cfg: &Config, out: &str) -> Result<()> {
    let map = SwitchMap::new(cfg);
    let dir = trimswitch_sim::harness::verilator::build_dir().join(out);
    let files = trimswitch::flows::regs(cfg, None, &dir)?;
    ensure!(files.len() == 3);
    let md = std::fs::read_to_string(dir.join("regs.md"))?;
    // Every element's address, from C and from Python, in one list each.
    let mut c = String::from("#include <stdio.h>\n#include \"trimswitch_regs.h\"\nint main(void) {\n");
    let mut py = String::from("import sys\nsys.path.insert(0, sys.argv[1])\nimport trimswitch_regs as r\n");
    let mut want = String::new();
    for w in &map.windows {
        for reg in &w.regs {
            let n = format!("{}_{}", w.name.to_ascii_uppercase(), reg.name);
            ensure!(md.contains(&format!("`{}`", reg.name)), "regs.md lacks {}", reg.name);
            if reg.count == 1 {
                c += &format!("  printf(\"%u\\n\", (unsigned)TS_{n});\n");
                py += &format!("print(r.{n})\n");
                want += &format!("{}\n", w.base + reg.offset);
            } else {
                for i in [0, reg.count - 1] {
                    c += &format!("  printf(\"%u\\n\", (unsigned)TS_{n}({i}));\n");
                    py += &format!("print(r.{n}({i}))\n");
                    want += &format!("{}\n", w.base + reg.at(i));
                }
            }
        }
    }
    c += "  return 0;\n}\n";
    py += &format!("assert len(r.REGS) == {}\n", map.windows.iter().map(|w| w.regs.len()).sum::<usize>());
    std::fs::write(dir.join("check.c"), c)?;
    std::fs::write(dir.join("check.py"), py)?;
    let cc = std::process::Command::new("cc")
        .args(["-std=c99", "-Wall", "-Werror", "-o"])
        .arg(dir.join("check"))
        .arg(dir.join("check.c"))
        .arg("-I")
        .arg(&dir)
        .output()?;
    ensure!(cc.status.success(), "the C header does not compile: {}", String::from_utf8_lossy(&cc.stderr));
    let out = std::process::Command::new(dir.join("check")).output()?;
    ensure!(String::from_utf8_lossy(&out.stdout) == want, "C addresses differ from the map");
    let out = std::process::Command::new("python3").arg(dir.join("check.py")).arg(&dir).output()?;
    ensure!(out.status.success(), "the Python module fails: {}", String::from_utf8_lossy(&out.stderr));
    ensure!(String::from_utf8_lossy(&out.stdout) == want, "Python addresses differ from the map");
    // Out-of-range elements are refused in Python.
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import sys; sys.path.insert(0, {:?}); import trimswitch_regs as r; r.TM0_TX_TRIM_PACKETS({})",
            dir.display().to_string(),
            cfg.datapath.ports
        ))
        .output()?;
    ensure!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("IndexError"), "element past the end accepted");
    Ok(())
}

/// What one traffic run gave.
struct Run {
    /// Packets out per port, with their first- and last-beat cycles.
    out: Vec<Vec<(Packet, u64, u64)>>,
    /// First-beat cycle of each input frame, per port.
    in_first: Vec<Vec<u64>>,
    /// Every counter of the map, `window.NAME[i]`.
    counters: BTreeMap<String, u64>,
    /// Cycles simulated, and wall-clock seconds (information only).
    cycles: u64,
    seconds: f64,
}

/// Configures the switch as a host would (ingress tables and registers from
/// the configuration, written through the map), sends `inputs[p]` into port
/// `p` with idle probability `idle`, drains the outputs with ready
/// probabilities `ready`, and reads every counter.
fn run(cfg: &Config, inputs: &[Vec<Vec<u8>>], idle: f64, ready: &[f64], seed: u64) -> Result<Run> {
    run_paced(cfg, inputs, idle, None, ready, seed)
}

/// [`run`] with every source paced to `pace` bytes per cycle on the wire
/// (frame + 20 bytes of preamble and gap), as a MAC delivers.
fn run_paced(cfg: &Config, inputs: &[Vec<Vec<u8>>], idle: f64, pace: Option<f64>, ready: &[f64], seed: u64) -> Result<Run> {
    run_full(cfg, inputs, idle, pace, None, ready, seed, &[])
}

/// [`run_paced`] with the sinks paced too: `sink_pace` bytes per cycle on
/// the wire (packet + FCS + 20 B), as a MAC takes them; `tm_writes` are
/// written into every traffic manager after the configuration.
#[allow(clippy::too_many_arguments)]
fn run_full(
    cfg: &Config,
    inputs: &[Vec<Vec<u8>>],
    idle: f64,
    pace: Option<f64>,
    sink_pace: Option<f64>,
    ready: &[f64],
    seed: u64,
    tm_writes: &[(&str, u32)],
) -> Result<Run> {
    let ports = cfg.datapath.ports;
    let mut b = SwitchBench::new(cfg, seed)?;
    b.configure(cfg)?;
    for (name, v) in tm_writes {
        b.write_tms(name, *v)?;
    }
    for (p, s) in b.srcs.iter_mut().enumerate() {
        s.idle_prob = idle;
        s.pace = pace;
        for f in &inputs[p] {
            s.push(Packet::new(f.clone(), 0));
        }
    }
    for (s, r) in b.sinks.iter_mut().zip(ready) {
        s.ready_prob = *r;
        s.pace = sink_pace;
        s.wire_overhead = if cfg.ingress.strip_fcs { 24 } else { 20 };
    }
    let total: usize = inputs.iter().map(|v| v.len()).sum();
    let (c0, t0) = (b.tb.cycle(), std::time::Instant::now());
    {
        let SwitchBench { tb, srcs, sinks, .. } = &mut b;
        let mut agents: Vec<&mut dyn Agent> =
            srcs.iter_mut().map(|s| s as &mut dyn Agent).chain(sinks.iter_mut().map(|s| s as &mut dyn Agent)).collect();
        tb.run_until(&mut agents, 2000 * total as u64 + 100_000, |_, a| a[..ports].iter().all(|s| s.idle()))?;
        // Drain: the slowest queue (data limit at the slowest sink) empties.
        let slowest = ready.iter().cloned().fold(1.0, f64::min).max(0.05);
        let drain = (cfg.tm.queue_d_bytes + cfg.tm.queue_h_bytes) as f64 / (cfg.datapath.data_width / 8) as f64 / slowest;
        tb.run(&mut agents, 20_000 + 4 * drain as u64);
    }
    let (cycles, seconds) = (b.tb.cycle() - c0, t0.elapsed().as_secs_f64());
    for s in &b.sinks {
        no_protocol_errors(s)?;
        ensure!(s.idle(), "a packet is still leaving after the drain");
    }
    let counters = b.read_counters()?;
    let in_first = b.srcs.iter().map(|s| s.first_cycles.clone()).collect();
    let out = b
        .sinks
        .into_iter()
        .map(|s| s.packets.into_iter().zip(s.first_cycles).zip(s.last_cycles).map(|((p, f), l)| (p, f, l)).collect())
        .collect();
    Ok(Run { out, in_first, counters, cycles, seconds })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Whole,
    Trimmed,
    Returned,
}

/// What the checks found.
#[derive(Debug, Default)]
struct Tally {
    inputs: usize,
    ingress_out: usize,
    whole: usize,
    trimmed: usize,
    returned: usize,
    /// Returned packets that had been routed (their MACs checked).
    returned_routed: usize,
    tm_drops: u64,
    tm_drop_reasons: Vec<(String, u64)>,
}

/// The key of element `i` of register array `reg` (`window.NAME`) in a
/// run's counters: `window.NAME[i]`, or `window.NAME` for a one-element array.
fn elem(r: &Run, reg: &str, i: usize) -> String {
    let k = format!("{reg}[{i}]");
    if i == 0 && !r.counters.contains_key(&k) {
        reg.to_string()
    } else {
        k
    }
}

/// Traffic-manager register `name` (`NAME` or `NAME[i]`) summed over the
/// pipelines' windows `tm0`, `tm1`, ...
fn tm_counter(cfg: &Config, r: &Run, name: &str) -> u64 {
    (0..cfg.datapath.pipelines).map(|n| r.counters[&format!("tm{n}.{name}")]).sum()
}

/// A packet as it may leave: (egress port, tuser, bytes).
type OutKey = (usize, u128, Vec<u8>);

/// Checks a run against the golden models: see the file's doc comment.
fn check(cfg: &Config, inputs: &[Vec<Vec<u8>>], r: &Run) -> Result<Tally> {
    let ports = cfg.datapath.ports;
    let tp = TrimParams::from_config(cfg);
    // The ingress model, and every output each of its packets may become.
    let mut ing = IngressModel::new(cfg);
    let mut cands: HashMap<OutKey, Vec<(usize, Fate)>> = HashMap::new();
    let mut tally = Tally::default();
    let mut id_src = vec![];
    // Each ingress output's source MAC as it arrived.
    let mut id_smac: Vec<Vec<u8>> = vec![];
    let rmac = ing.settings().router_mac.to_be_bytes()[2..].to_vec();
    for (p, frames) in inputs.iter().enumerate() {
        for f in frames {
            tally.inputs += 1;
            let Some(o) = ing.process(p, f) else { continue };
            let id = tally.ingress_out;
            tally.ingress_out += 1;
            id_src.push(p);
            id_smac.push(f[6..12].to_vec());
            let d = o.meta.dest_port as usize;
            // Every output passes the egress rewrite (router MAC as source of
            // routed packets).
            let egress = |mut f: Vec<u8>| {
                egress_rewrite(&mut f, o.meta.routed, ing.settings());
                f
            };
            cands.entry((d, o.meta.pack(), egress(o.frame.clone()))).or_default().push((id, Fate::Whole));
            if o.meta.trim_ok && !o.meta.prio && d < ports {
                let (tf, tm) = trim(&o.frame, &o.meta, &tp, false);
                cands.entry((d, tm.pack(), egress(tf))).or_default().push((id, Fate::Trimmed));
                let (rf, rm) = trim(&o.frame, &o.meta, &tp, true);
                cands.entry((o.meta.src_port as usize, rm.pack(), egress(rf))).or_default().push((id, Fate::Returned));
            }
        }
    }
    // Every output is one input's, once; order per (output port, queue,
    // source) follows the input order.
    let mask = !(0xffu128 << QUEUE_LSB);
    let mut fate: Vec<Option<Fate>> = vec![None; tally.ingress_out];
    let mut last: HashMap<(usize, u128, usize), usize> = HashMap::new();
    for (p, outs) in r.out.iter().enumerate() {
        let mut tx_trim = 0;
        for (j, (pkt, _, _)) in outs.iter().enumerate() {
            let user = pkt.user & mask;
            let c = cands
                .get(&(p, user, pkt.data.clone()))
                .with_context(|| format!("port {p} packet {j} ({} bytes, {:?}) is no input's", pkt.data.len(), Meta::unpack(user)))?;
            let Some(&(id, f)) = c.iter().find(|(id, _)| fate[*id].is_none()) else { bail!("port {p} packet {j}: a duplicate") };
            fate[id] = Some(f);
            let q = (pkt.user >> QUEUE_LSB) & 0xff;
            if let Some(prev) = last.insert((p, q, id_src[id]), id) {
                ensure!(prev < id, "port {p} queue {q}: input {id} after input {prev} from the same source");
            }
            if Meta::unpack(user).flags & flag::TRIMMED != 0 {
                tx_trim += 1;
            }
            // A routed packet returned to its sender is addressed to the MAC
            // it came from, from the router (seed 000 §2, step 3).
            if f == Fate::Returned && Meta::unpack(user).routed {
                ensure!(
                    pkt.data[..6] == id_smac[id][..] && pkt.data[6..12] == rmac[..],
                    "port {p} packet {j}: returned routed packet with MACs {:02x?}, sender {:02x?}, router {rmac:02x?}",
                    &pkt.data[..12],
                    id_smac[id]
                );
                tally.returned_routed += 1;
            }
        }
        let got = tm_counter(cfg, r, &format!("TX_TRIM_PACKETS[{p}]"));
        ensure!(got == tx_trim, "port {p}: TX_TRIM_PACKETS {got}, {tx_trim} trimmed packets seen");
    }
    for f in fate.iter().flatten() {
        match f {
            Fate::Whole => tally.whole += 1,
            Fate::Trimmed => tally.trimmed += 1,
            Fate::Returned => tally.returned += 1,
        }
    }
    // Ingress counters: the golden model's (port q of the switch is local
    // port q % per of pipeline q / per).
    let per = ports / cfg.datapath.pipelines;
    for (k, v) in ing.counters() {
        let (scope, name) = k.split_once('.').context("counter name")?;
        let key = if let Some(pp) = scope.strip_prefix("port") {
            let q: usize = pp.parse()?;
            elem(r, &format!("ingress{}.{}", q / per, name.to_ascii_uppercase()), q % per)
        } else {
            let i = scope.strip_prefix("pipe").context("counter scope")?;
            format!("ingress{i}.{}", name.to_ascii_uppercase())
        };
        let got = r.counters.get(&key).with_context(|| format!("no register {key}"))?;
        ensure!(got == v, "{key}: RTL {got}, model {v}");
    }
    // Traffic manager counters (summed over the pipelines): the fates seen;
    // conservation.
    let c = |n: &str| tm_counter(cfg, r, n);
    ensure!(c("IN_PKTS") == tally.ingress_out as u64, "IN_PKTS {} for {} packets out of the ingress", c("IN_PKTS"), tally.ingress_out);
    ensure!(
        c("ENQ_H_PKTS") + c("ENQ_D_PKTS") == tally.whole as u64,
        "whole enqueues {} + {}, {} whole packets out",
        c("ENQ_H_PKTS"),
        c("ENQ_D_PKTS"),
        tally.whole
    );
    ensure!(c("TRIM_PACKETS") == tally.trimmed as u64, "TRIM_PACKETS {}, {} trimmed packets out", c("TRIM_PACKETS"), tally.trimmed);
    ensure!(c("RTS_PACKETS") == tally.returned as u64, "RTS_PACKETS {}, {} returned packets out", c("RTS_PACKETS"), tally.returned);
    ensure!(c("DOD_TRIM_PACKETS") == 0, "DoD deflections in ideal mode");
    let drops = ["DROP_BAD_PKTS", "DROP_CTRL_PKTS", "DROP_DATA_PKTS", "DROPPED_TRIM_PACKETS", "DROP_DOD_PKTS"];
    tally.tm_drops = drops.iter().map(|n| c(n)).sum();
    tally.tm_drop_reasons = drops.iter().map(|n| (n.to_string(), c(n))).filter(|x| x.1 > 0).collect();
    let lost = fate.iter().filter(|f| f.is_none()).count() as u64;
    ensure!(
        lost == tally.tm_drops,
        "{lost} packets left the ingress and never came out, the traffic manager counted {} drops",
        tally.tm_drops
    );
    for p in 0..ports {
        // Every window shows the port's total occupancy: 0 after draining.
        for q in ["OCC_H_BYTES", "OCC_D_BYTES"] {
            for n in 0..cfg.datapath.pipelines {
                ensure!(r.counters[&format!("tm{n}.{q}[{p}]")] == 0, "port {p}: tm{n}.{q} not 0 after draining");
            }
        }
        // The high-water marks are the port's total, exact: every pipeline
        // saw the same, and it is within the limit.
        for (q, limit) in [("MAX_OCC_H_BYTES", cfg.tm.queue_h_bytes), ("MAX_OCC_D_BYTES", cfg.tm.queue_d_bytes)] {
            let hw: Vec<u64> = (0..cfg.datapath.pipelines).map(|n| r.counters[&format!("tm{n}.{q}[{p}]")]).collect();
            ensure!(hw.iter().all(|v| *v == hw[0]) && hw[0] <= limit as u64, "port {p}: {q} {hw:?} (limit {limit})");
        }
    }
    Ok(tally)
}

/// Random frames per port (wire format, FCS included): `n` in all, a
/// `fault` share of them bad, good ones routed by `prefixes`; of the frames
/// the ingress passes as not trimmable, only a `plain` share is kept (the
/// rest are drawn again).
fn frames(
    cfg: &Config,
    n: usize,
    max_size: usize,
    fault: f64,
    prefixes: Option<Vec<(u32, u8)>>,
    plain: f64,
    seed: u64,
) -> Vec<Vec<Vec<u8>>> {
    let mut o = GenOpts::from_settings(&Settings::from_config(cfg));
    o.max_size = max_size;
    o.fault_rate = fault;
    if let Some(p) = prefixes {
        o.prefixes = p;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut ing = IngressModel::new(cfg);
    let mut v = vec![vec![]; cfg.datapath.ports];
    let mut k = 0;
    while k < n {
        let p = rng.gen_range(0..cfg.datapath.ports);
        let f = random_frame(&mut rng, &o);
        let trimmable = ing.process(p, &f).is_some_and(|x| x.meta.trim_ok && !x.meta.prio);
        if trimmable || rng.gen_bool(plain) {
            v[p].push(f);
            k += 1;
        }
    }
    v
}

/// Random traffic among all ports at 80% of the pipeline's beat rate in all
/// (a MAC cannot be held off: more would overflow the receive FIFOs, drops
/// the golden model does not model), frames up to 600 B, outputs always
/// ready: the traffic manager's ports drain as fast as the one pipeline
/// fills them, so every packet the ingress passes leaves whole. (Larger
/// control packets may find the header queue, sized for headers, still
/// holding the previous one: `DROP_CTRL_PKTS`, seen in the incast test.)
#[test]
fn uncongested_traffic_leaves_whole() -> Result<()> {
    let cfg = config();
    let inputs = frames(&cfg, 3000, 600, 0.1, None, 1.0, 7);
    let r = run(&cfg, &inputs, 0.8, &[1.0; 4], 7)?;
    let t = check(&cfg, &inputs, &r)?;
    eprintln!("{t:?}");
    ensure!(t.whole == t.ingress_out && t.trimmed + t.returned == 0 && t.tm_drops == 0, "congestion where none can be: {t:?}");
    ensure!(t.ingress_out > t.inputs / 2 && t.ingress_out < t.inputs, "the mix lacks drops or passes: {t:?}");
    Ok(())
}

/// All ports send to port 0 (80% of the pipeline's beat rate in all), which
/// drains at a fifth of a beat per cycle:
/// the data queue fills, trimmable packets are trimmed into the header
/// queue or returned to their sender, the rest dropped and counted. Most
/// frames are trimmable (NDP or DSCP TRIMMABLE), a fifth anything.
#[test]
fn incast_trims_returns_and_accounts_for_every_packet() -> Result<()> {
    let cfg = config();
    let inputs = frames(&cfg, 3000, 1600, 0.05, Some(vec![(0x0a00_0000, 24)]), 0.2, 11);
    let r = run(&cfg, &inputs, 0.8, &[0.2, 1.0, 1.0, 1.0], 11)?;
    let t = check(&cfg, &inputs, &r)?;
    eprintln!("{t:?}");
    ensure!(t.trimmed > 50 && t.whole > 100, "no real incast: {t:?}");
    Ok(())
}

/// Routed packets returned to their sender: ports 1..3 send routed 1500 B
/// frames to port 0 (75% of the pipeline's beat rate in all), which drains
/// at a fifth of a beat per cycle, and the header queue limit is cut to
/// 100 B (`LIMIT_H`), so trimmed headers often find it full and go back.
/// A returned routed packet must be addressed to the MAC it came from, from
/// the router MAC (the egress rewrite, `docs/switch.md`); `check` asserts
/// that for each, and the golden model for every byte of every packet.
#[test]
fn routed_returns_go_back_to_the_sender_mac() -> Result<()> {
    let cfg = config();
    let mut inputs = routed_frames(&cfg, 1500, 150, &|_| 0, 31);
    inputs[0].clear();
    let r = run_full(&cfg, &inputs, 0.75, None, None, &[0.2, 1.0, 1.0, 1.0], 31, &[("LIMIT_H", 100)])?;
    let t = check(&cfg, &inputs, &r)?;
    eprintln!("{t:?}");
    ensure!(t.returned_routed > 10, "too few routed returns to test: {t:?}");
    ensure!(t.whole > 10 && t.trimmed > 10, "no incast: {t:?}");
    Ok(())
}

/// Port-to-port latency of an unloaded switch: one 64-byte frame at a time
/// from each port to the next, first beat in to first beat out (at most 48
/// cycles, issue 14).
#[test]
fn unloaded_port_to_port_latency() -> Result<()> {
    unloaded_latency(&config())
}

/// The same on `alveo-u250` (2 x 100G, 512 bits, two pipelines).
#[test]
fn unloaded_port_to_port_latency_100g() -> Result<()> {
    unloaded_latency(&config_of("alveo-u250"))
}

fn unloaded_latency(cfg: &Config) -> Result<()> {
    let cfg = cfg.clone();
    let ports = cfg.datapath.ports;
    let s = Settings::from_config(&cfg);
    let mut o = GenOpts::from_settings(&s);
    o.min_size = 64;
    o.max_size = 64;
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let mut lat = vec![];
    for p in 0..ports {
        o.prefixes = vec![(0x0a00_0000 | (((p + 1) % ports) as u32) << 8, 24)];
        // One routed 64 B frame, alone in the switch.
        let mut ing = IngressModel::new(&cfg);
        let f = loop {
            let f = random_frame(&mut rng, &o);
            if ing.process(p, &f).is_some_and(|x| x.meta.dest_port as usize == (p + 1) % ports) {
                break f;
            }
        };
        let mut inputs = vec![vec![]; ports];
        inputs[p].push(f);
        let r = run(&cfg, &inputs, 0.0, &vec![1.0; ports], 5)?;
        check(&cfg, &inputs, &r)?;
        let out = &r.out[(p + 1) % ports];
        ensure!(out.len() == 1, "port {p}: {} packets out", out.len());
        lat.push(out[0].1 - r.in_first[p][0]);
    }
    lat.sort();
    eprintln!(
        "ts_switch {} unloaded, 64 B, first beat in -> first beat out: min {} median {} max {} cycles",
        cfg.target.name,
        lat[0],
        lat[lat.len() / 2],
        lat[lat.len() - 1]
    );
    ensure!(lat[0] == lat[lat.len() - 1], "an unloaded switch has one latency per frame size: {lat:?}");
    // Issue 14's bound: pipelining for the clock may add stages, but an
    // unloaded 64 B frame stays within 48 cycles port to port.
    ensure!(lat[0] > 10 && lat[0] <= 48, "latency {} cycles (at most 48)", lat[0]);
    Ok(())
}

/// Good data frames (not for the header queue) of `size` bytes (FCS
/// included) from every port `p` to port `dest(p)`, `n` per port, routed by
/// the configuration's tables.
fn routed_frames(cfg: &Config, size: usize, n: usize, dest: &dyn Fn(usize) -> usize, seed: u64) -> Vec<Vec<Vec<u8>>> {
    let ports = cfg.datapath.ports;
    let mut o = GenOpts::from_settings(&Settings::from_config(cfg));
    o.min_size = size;
    o.max_size = size;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut ing = IngressModel::new(cfg);
    (0..ports)
        .map(|p| {
            o.prefixes = vec![(0x0a00_0000 | (dest(p) as u32) << 8, 24)];
            let mut v = vec![];
            while v.len() < n {
                let f = random_frame(&mut rng, &o);
                if f.len() == size && ing.process(p, &f).is_some_and(|x| x.meta.dest_port as usize == dest(p) && !x.meta.prio) {
                    v.push(f);
                }
            }
            v
        })
        .collect()
}

fn percentile(v: &mut [u64], q: f64) -> u64 {
    v.sort_unstable();
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// Every port receives at line rate (100%, then 90%) from the MAC, paced on
/// the wire (frame + 20 B), and sends to the next port (a permutation: no
/// congestion): 64, 1500 and 9000 B frames. No frame may be dropped: every
/// one leaves whole, in order, and no receive FIFO overflows. The sources
/// must have kept their pace (a MAC cannot wait). Port-to-port latency,
/// first beat in to first beat out, is reported as min / median / max.
#[test]
fn line_rate_permutation_no_drops() -> Result<()> {
    line_rate(&config(), [(64, 1500), (1500, 120), (9000, 24)])
}

/// The same on `alveo-u250`: 2 x 100G at 322 MHz, 512 bits, one pipeline and
/// traffic manager per port (the two share each port's occupancy).
#[test]
fn line_rate_100g_two_pipelines_no_drops() -> Result<()> {
    line_rate(&config_of("alveo-u250"), [(64, 2000), (1500, 150), (9000, 30)])
}

fn line_rate(cfg: &Config, runs: [(usize, usize); 3]) -> Result<()> {
    let ports = cfg.datapath.ports;
    let line = cfg.datapath.port_gbps * 1e9 / 8.0 / (cfg.target.clock_mhz * 1e6);
    let mut rows = vec![];
    let per = ports / cfg.datapath.pipelines;
    for (size, n) in runs {
        for load in [1.0, 0.9] {
            let inputs = routed_frames(cfg, size, n, &|p| (p + 1) % ports, size as u64);
            let r = run_paced(cfg, &inputs, 0.0, Some(line * load), &vec![1.0; ports], 3)?;
            let t = check(cfg, &inputs, &r)?;
            ensure!(t.whole == t.inputs, "{size} B at {load}: {t:?}");
            for p in 0..ports {
                ensure!(r.counters[&elem(&r, &format!("ingress{}.RX_DROP_OVERFLOW", p / per), p % per)] == 0, "port {p} overflowed");
                // The source kept its pace: the last frame started when the
                // wire let it (the pacing credit keeps fractions: within a
                // few cycles).
                let want = ((n - 1) as f64 * (size + 20) as f64 / (line * load)) as u64;
                let got = r.in_first[p][n - 1] - r.in_first[p][0];
                ensure!(
                    got <= want + 3,
                    "{size} B at {load}: port {p} took {got} cycles for what the wire allows in {want}: back-pressured"
                );
            }
            let mut lat: Vec<u64> = vec![];
            for p in 0..ports {
                let out = &r.out[(p + 1) % ports];
                ensure!(out.len() == n);
                lat.extend(out.iter().zip(&r.in_first[p]).map(|(o, i)| o.1 - i));
            }
            let row = (size, load, percentile(&mut lat, 0.0), percentile(&mut lat, 0.5), percentile(&mut lat, 1.0));
            eprintln!(
                "{}: line rate {size} B at {:.0}%: {} frames, no drop; latency min {} median {} max {} cycles; Verilator {:.0} k cycles/s",
                cfg.target.name,
                load * 100.0,
                n * ports,
                row.2,
                row.3,
                row.4,
                r.cycles as f64 / r.seconds / 1e3
            );
            // The switch keeps up: at the smallest frames no queue builds,
            // so the slowest frame takes at most twice the fastest (a switch
            // that decides at 0.9 of the frame rate ends with a queue of
            // hundreds of frames).
            if size == runs[0].0 {
                ensure!(row.4 <= 2 * row.2, "{size} B at {load}: latency min {} max {}: a queue built up", row.2, row.4);
            }
            rows.push(row);
        }
    }
    // Full frames are stored before they leave the receive check (a bad FCS
    // drops them whole), so latency grows with the frame.
    ensure!(rows[0].2 < rows[2].2 && rows[2].2 < rows[4].2, "latency does not grow with frame size: {rows:?}");
    Ok(())
}

/// Two pipelines (`alveo-u250`): random traffic with faults, uncongested,
/// leaves whole; then both ports send to port 0, which drains at a fifth of
/// a beat per cycle: trims, returns and drops, every packet accounted for
/// against the golden models, the counters summed over both pipelines'
/// traffic managers.
#[test]
fn two_pipelines_uncongested_and_incast() -> Result<()> {
    let cfg = config_of("alveo-u250");
    let inputs = frames(&cfg, 1500, 600, 0.1, None, 1.0, 21);
    let r = run(&cfg, &inputs, 0.6, &[1.0; 2], 21)?;
    let t = check(&cfg, &inputs, &r)?;
    eprintln!("two pipelines, uncongested: {t:?}");
    ensure!(t.whole == t.ingress_out && t.trimmed + t.returned == 0 && t.tm_drops == 0, "congestion where none can be: {t:?}");
    let inputs = frames(&cfg, 2000, 1600, 0.05, Some(vec![(0x0a00_0000, 24)]), 0.2, 22);
    let r = run(&cfg, &inputs, 0.3, &[0.2, 1.0], 22)?;
    let t = check(&cfg, &inputs, &r)?;
    eprintln!("two pipelines, incast: {t:?}");
    ensure!(t.trimmed > 50 && t.whole > 100, "no real incast: {t:?}");
    for n in 0..2 {
        ensure!(r.counters[&format!("tm{n}.TRIM_PACKETS")] > 10, "pipeline {n} trimmed nothing: both send into port 0");
    }
    Ok(())
}

/// Two pipelines share each port's queue limits exactly: both ports blast
/// whole NDP data packets into port 0 at line rate (a 2:1 incast, one sender
/// per pipeline) while port 0's MAC drains it at line rate. Whatever each pipeline
/// admits counts against the one limit of port 0's data queue, so no whole
/// packet waits longer than the data and header limits take to drain, the
/// trimmed headers that overtake it meanwhile (strict priority: at most one
/// per packet arriving from the two inputs), plus the path through the
/// switch; with per-pipeline limits, the drain alone doubles.
#[test]
fn two_pipelines_share_the_port_limit() -> Result<()> {
    let cfg = config_of("alveo-u250");
    let line = cfg.datapath.port_gbps * 1e9 / 8.0 / (cfg.target.clock_mhz * 1e6);
    let (size, n) = (1500usize, 200usize);
    // NDP data packets (trimmable) from host p behind port p to host 0.
    let inputs: Vec<Vec<Vec<u8>>> =
        (0..2).map(|p| (0..n).map(|i| ndp_frame(&cfg, &Flow { id: p, src: p, dst: 0, load: 1.0 }, i as u32, size)).collect()).collect();
    let r = run_full(&cfg, &inputs, 0.0, Some(line), Some(line), &[1.0; 2], 9, &[])?;
    let t = check(&cfg, &inputs, &r)?;
    eprintln!("two pipelines, 2:1 incast at line rate: {t:?}");
    ensure!(t.trimmed > 100, "no trims: {t:?}");
    let mut lat: Vec<u64> = vec![];
    let mut header_bytes = 0usize;
    let mut in_first: HashMap<Vec<u8>, u64> = HashMap::new();
    // `p` is the input port: its frames and their first-beat cycles.
    #[allow(clippy::needless_range_loop)]
    for p in 0..2 {
        for (f, c) in inputs[p].iter().zip(&r.in_first[p]) {
            in_first.insert(f[..f.len() - 4].to_vec(), *c);
        }
    }
    for (pkt, _, last) in &r.out[0] {
        if Meta::unpack(pkt.user).flags & flag::TRIMMED != 0 {
            header_bytes = header_bytes.max(pkt.data.len());
        } else {
            // Whole packets: bytes as they went in (the MAC rewrite aside, the
            // next-hop MAC and the FCS): find by the IP packet.
            let ip = &pkt.data[14..];
            if let Some(c) = in_first.iter().find(|(k, _)| &k[14..] == ip).map(|x| *x.1) {
                lat.push(last - c);
            }
        }
    }
    ensure!(lat.len() > 100, "{} whole packets matched", lat.len());
    let hw = r.counters["tm0.MAX_OCC_D_BYTES[0]"];
    ensure!(hw + size as u64 > cfg.tm.queue_d_bytes as u64 && hw <= cfg.tm.queue_d_bytes as u64, "port 0's data queue peaked at {hw} B");
    let max = *lat.iter().max().unwrap();
    let drain = ((cfg.tm.queue_d_bytes + cfg.tm.queue_h_bytes) as f64 / line) as u64;
    // A header takes its beats plus one cycle of the scheduler's switch.
    let beat = cfg.datapath.data_width / 8;
    let overtake = (2.0 * drain as f64 / (size as f64 / line)).ceil() as u64 * (header_bytes.div_ceil(beat) as u64 + 1);
    let path = (3.0 * size as f64 / line) as u64 + 200;
    eprintln!(
        "two pipelines, 2:1 incast: whole packets first beat in -> last beat out max {max} cycles; limits drain in {drain}, \
         headers overtaking {overtake}, path {path}"
    );
    ensure!(
        max <= drain + overtake + path,
        "a whole packet waited {max} cycles: more than the one port limit allows ({drain} + {overtake} + {path})"
    );
    ensure!(max > drain, "the limits never filled: max wait {max} cycles, drain {drain}");
    Ok(())
}

/// The register map of a switch with Protego on a port (its window
/// `protego1`, the other ports' slots reading 0) is the hardware's.
#[test]
fn register_map_with_protego_is_the_hardware() -> Result<()> {
    let [cfg, _] = protego_switch_configs()?;
    ensure!(SwitchMap::new(&cfg).windows.iter().any(|w| w.name == "protego1"), "no window protego1");
    register_map(&cfg, 5)
}

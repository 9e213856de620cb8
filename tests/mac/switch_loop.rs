//! The MAC + `ts_switch` loop (issue 18): `ts_xgmii_switch` (the default
//! configuration, 4 x 10G at 256 bits and 200 MHz, each port a receive and
//! transmit MAC with its clock crossings) in Verilator on two unrelated
//! clocks (156.25 and 200 MHz, jittered). Frames go in on each port's XGMII
//! from the clause-46 encoder at line rate, routed by the configuration's
//! tables to the next port, with bad ones among them (a flipped bit, /E/,
//! runts, frames past `max_frame`); the frames on every transmit XGMII are
//! decoded and must be the golden model's: the ingress model's output for
//! each good input (the MAC rewrite of a routed frame, the egress's router
//! MAC), in order per source, with a good FCS; and every ingress counter the switch's
//! register map shows must be the model's, read over AXI4-Lite.
use crate::common;
use crate::port::Phy;
use anyhow::{ensure, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};
use trimswitch_hdl::gen::catalog::{emit_block, XGMII_SWITCH};
use trimswitch_hdl::top::regmap::{Access, SwitchMap};
use trimswitch_sim::agents::axil::{AxilMaster, AxilResult};
use trimswitch_sim::agents::xgmii::{decode, Encoder, Fault};
use trimswitch_sim::harness::clocks::TwoClocks;
use trimswitch_sim::harness::dut::model_of_verilog;
use trimswitch_sim::harness::tb::Agent;
use trimswitch_sim::model::gen::{random_frame, GenOpts};
use trimswitch_sim::model::lookup::egress_rewrite;
use trimswitch_sim::model::{IngressModel, Settings};
use trimswitch_sim::packet::crc::{append_fcs, fcs_ok};
use trimswitch_sim::rtl::ingress::register_writes;

/// What the PHY sends and what the MAC hands on: the frame (FCS
/// included), its fault, and whether the MAC flags it.
struct Input {
    frame: Vec<u8>,
    fault: Fault,
    flagged: bool,
}

/// Per port, `n` frames to port `p + 1` (routed by the configuration's
/// tables), good ones 64..1 518 B and some jumbos, and faults: a flipped bit,
/// an /E/, runts, frames past `max_frame`.
fn inputs(cfg: &trimswitch_hdl::config::Config, n: usize, seed: u64) -> Vec<Vec<Input>> {
    let ports = cfg.datapath.ports;
    let s = Settings::from_config(cfg);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut ing = IngressModel::new(cfg);
    (0..ports)
        .map(|p| {
            let dest = (p + 1) % ports;
            let mut o = GenOpts::from_settings(&s);
            o.prefixes = vec![(0x0a00_0000 | (dest as u32) << 8, 24)];
            let mut v = vec![];
            while v.len() < n {
                o.max_size = if rng.gen_bool(0.03) { 9018 } else { 1518 };
                let mut f = random_frame(&mut rng, &o);
                // Frames that reach `dest`, and some the ingress drops
                // (counted): none to another port, which could congest it
                // (the MAC side offers line rate).
                let out = ing.process(p, &f).map(|x| x.meta.dest_port as usize);
                if out.is_some_and(|d| d != dest) || (out.is_none() && rng.gen_bool(0.8)) {
                    continue;
                }
                let (fault, flagged) = match rng.gen_range(0..50) {
                    0..=3 => {
                        let bit = rng.gen_range(0..f.len() * 8);
                        f[bit / 8] ^= 1 << (bit % 8);
                        (Fault::None, true)
                    }
                    4 | 5 => (Fault::ErrorAt(rng.gen_range(0..f.len())), true),
                    6 | 7 => {
                        f.truncate(rng.gen_range(20..60));
                        append_fcs(&mut f);
                        (Fault::None, true)
                    }
                    8 => {
                        f.truncate(f.len() - 4);
                        f.resize(rng.gen_range(9020..9100), 0x5a);
                        append_fcs(&mut f);
                        (Fault::None, true)
                    }
                    _ => (Fault::None, false),
                };
                v.push(Input { frame: f, fault, flagged });
            }
            v
        })
        .collect()
}

/// Runs the host's queued transactions to the end (the MACs idle).
fn host_until_idle(clk: &mut TwoClocks, host: &mut AxilMaster) -> Result<()> {
    for _ in 0..2_000_000 {
        if host.idle() {
            return Ok(());
        }
        clk.step(&mut [], &mut [host]);
    }
    anyhow::bail!("AXI4-Lite transactions not done after 2 000 000 edges")
}

/// Frames in at line rate on all four ports, each routed to the next port;
/// out on the XGMII exactly as the golden model says; the ingress counters
/// the model's.
#[test]
fn frames_in_on_xgmii_out_on_xgmii_as_the_model_says() -> Result<()> {
    let cfg = common::config_with("netfpga-sume", &[])?;
    let ports = cfg.datapath.ports;
    let v = emit_block(&cfg, XGMII_SWITCH)?.verilog;
    let lib = model_of_verilog(&v, XGMII_SWITCH, &cfg.hash())?;
    let m = lib.instantiate();
    let mut phys: Vec<Phy> = (0..ports)
        .map(|p| Phy { rx: vec![], next: 0, ports: ["rxd", "rxc", "txd", "txc"].map(|n| m.port(&format!("{n}_{p}")).unwrap()), tx: vec![] })
        .collect();
    let mut host = AxilMaster::new(&m, "s_axil", 5)?;
    let mut clk = TwoClocks::new(m, ["mac_clock", "clock"], ["mac_reset", "reset"], [6400, 5000], 9)?;
    clk.reset(4);

    // The host loads the tables and registers, as a driver does.
    let map = SwitchMap::new(&cfg);
    let base = map.window("ingress0").base;
    for (a, v) in register_writes(&cfg, &Settings::from_config(&cfg)) {
        host.write((base + a) as u64, v);
    }
    host_until_idle(&mut clk, &mut host)?;
    ensure!(host.errors.is_empty(), "configuration: {:?}", host.errors);
    ensure!(host.results.iter().all(|r| matches!(r, AxilResult::Write { resp: 0, .. })), "a configuration write failed");
    host.results.clear();

    // Frames: the PHYs' words, the model's expectations.
    let ins = inputs(&cfg, 250, 31);
    let mut ing = IngressModel::new(&cfg);
    // Per output port, per source port: the frames in order.
    let mut want: Vec<Vec<VecDeque<Vec<u8>>>> = vec![vec![VecDeque::new(); ports]; ports];
    for (p, frames) in ins.iter().enumerate() {
        let mut enc = Encoder::new(true);
        for i in frames {
            enc.frame(&i.frame, 0, i.fault);
            if let Some(o) = ing.trace_flagged(p, &i.frame, i.flagged).out {
                let mut f = o.frame.clone();
                egress_rewrite(&mut f, o.meta.routed, ing.settings());
                f.resize(f.len().max(60), 0);
                append_fcs(&mut f);
                want[o.meta.dest_port as usize][p].push_back(f);
            }
        }
        phys[p].rx = enc.finish();
    }
    let longest = phys.iter().map(|p| p.rx.len()).max().unwrap_or(0);
    // Run until every PHY has sent its words and every transmit wire has
    // been idle for 2 000 MAC cycles (more than a jumbo's way through).
    {
        let mut a: Vec<&mut dyn Agent> = phys.iter_mut().map(|p| p as &mut dyn Agent).collect();
        let mut idle_since = 0u64;
        let mut steps = 0u64;
        while steps < 40 * longest as u64 + 200_000 {
            let d = clk.step(&mut a, &mut []);
            steps += 1;
            if d == 0 {
                let c = clk.cycles[0];
                let busy = (0..ports).any(|p| {
                    let w = clk.model.port(&format!("txc_{p}")).unwrap();
                    clk.model.get(&w) != 0xff
                });
                if busy {
                    idle_since = c;
                }
                if c > longest as u64 + 100 && c - idle_since > 2000 {
                    break;
                }
            }
        }
    }
    let mut outs = vec![0usize; ports];
    for (p, phy) in phys.iter().enumerate() {
        ensure!(phy.next >= phy.rx.len(), "port {p}: {} of {} words sent", phy.next, phy.rx.len());
        let got = decode(&phy.tx).with_context(|| format!("port {p}'s transmit XGMII"))?;
        // Each frame out is the next of one source's frames for this port.
        let mut left = want[p].clone();
        for (i, g) in got.iter().enumerate() {
            ensure!(!g.error && fcs_ok(&g.bytes), "port {p} frame {i}: bad on the wire");
            let src = left.iter().position(|q| q.front() == Some(&g.bytes));
            let src = src.with_context(|| format!("port {p} frame {i} ({} B) is no source's next frame", g.bytes.len()))?;
            left[src].pop_front();
        }
        let missing: usize = left.iter().map(|q| q.len()).sum();
        ensure!(missing == 0, "port {p}: {missing} of the model's frames never came out ({} out)", got.len());
        outs[p] = got.len();
    }
    // The ingress counters through the register map.
    let per = ports / cfg.datapath.pipelines;
    let addr: BTreeMap<String, u32> = map
        .elements()
        .filter(|e| e.1.access != Access::Rw)
        .map(|(w, r, i, a)| (if r.count == 1 { format!("{}.{}", w.name, r.name) } else { format!("{}.{}[{i}]", w.name, r.name) }, a))
        .collect();
    let mut names = vec![];
    for (k, v) in ing.counters() {
        let (scope, name) = k.split_once('.').context("counter name")?;
        let key = if let Some(pp) = scope.strip_prefix("port") {
            let q: usize = pp.parse()?;
            format!("ingress{}.{}[{}]", q / per, name.to_ascii_uppercase(), q % per)
        } else {
            format!("ingress{}.{}", scope.strip_prefix("pipe").context("counter scope")?, name.to_ascii_uppercase())
        };
        let a = *addr.get(&key).with_context(|| format!("no register {key}"))?;
        host.read(a as u64);
        names.push((key, *v));
    }
    host_until_idle(&mut clk, &mut host)?;
    ensure!(host.errors.is_empty() && host.results.len() == names.len(), "counter reads: {:?}", host.errors);
    let mut checked = 0;
    for ((key, want), r) in names.iter().zip(&host.results) {
        let AxilResult::Read { data, resp: 0, .. } = r else { anyhow::bail!("{key}: read answered {r:?}") };
        ensure!(*data as u64 == *want, "{key}: switch {data}, model {want}");
        checked += 1;
    }
    let mac = |n: &str, p: usize| {
        let port = clk.model.port(&format!("{n}_{p}")).unwrap();
        clk.model.get(&port)
    };
    for (p, &n) in outs.iter().enumerate() {
        ensure!(mac("tx_underruns", p) == 0 && mac("rx_overflows", p) == 0, "port {p}: underruns / overflows");
        ensure!(mac("tx_frames", p) == n as u64, "port {p}: tx_frames {}", mac("tx_frames", p));
    }
    let flagged: usize = ins.iter().flatten().filter(|i| i.flagged).count();
    let out: usize = outs.iter().sum();
    ensure!(flagged > 30 && out > 600, "the mix lost its edge: {flagged} bad frames, {out} out");
    eprintln!(
        "xgmii_switch loop: {} frames in ({flagged} bad), {out} out as the model says, {checked} ingress counters equal; cycles {:?} (MAC, switch)",
        ins.iter().map(|v| v.len()).sum::<usize>(),
        clk.cycles
    );
    Ok(())
}

//! `ts_ingress` (receive checks, arbiter, parser, classify, lookup, apply)
//! in Verilator against the golden model: random frames of every header mix
//! and size (64..9018 B) with faults, under random gaps and backpressure,
//! configured over AXI-Lite; outputs identical packet by packet per source
//! port, counters identical. Also the malformed corpus and LPM semantics.
use crate::common;
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use trimswitch_hdl::config::Config;
use trimswitch_sim::model::gen::{malformed_corpus, random_frame, Expect, GenOpts};
use trimswitch_sim::model::{run_model, Route, Settings};
use trimswitch_sim::rtl::ingress::{compare, run_rtl, RtlOpts};

/// `n` random frames per port (sizes up to `max_size`, a share `faults` of
/// them faulty), generated for `s`.
fn inputs(s: &Settings, ports: usize, n: usize, max_size: usize, faults: f64, seed: u64) -> Vec<Vec<Vec<u8>>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut o = GenOpts::from_settings(s).with_faults(faults);
    o.max_size = max_size;
    (0..ports).map(|_| (0..n).map(|_| random_frame(&mut rng, &o)).collect()).collect()
}

fn differential(cfg: &Config, s: &Settings, inputs: &[Vec<Vec<u8>>], opts: &RtlOpts) -> Result<u64> {
    let (mo, mc) = run_model(cfg, s, inputs);
    let (ro, rc, st) = run_rtl(cfg, s, inputs, opts)?;
    compare(cfg.datapath.ports, &ro, &mo, &rc, &mc)?;
    let n: usize = inputs.iter().map(|v| v.len()).sum();
    eprintln!(
        "{}: {n} frames in, {} out, {} cycles ({:.1} s); routed {}, l2 {}, malformed dropped {}",
        cfg.target.name,
        mo.len(),
        st.cycles,
        st.seconds,
        mc.iter().filter(|(k, _)| k.ends_with("lookup_routed")).map(|(_, v)| v).sum::<u64>(),
        mc.iter().filter(|(k, _)| k.ends_with("lookup_l2_hit")).map(|(_, v)| v).sum::<u64>(),
        mc.iter().filter(|(k, _)| k.ends_with("drop_malformed")).map(|(_, v)| v).sum::<u64>(),
    );
    Ok(st.cycles)
}

/// The default configuration (4 x 10G, 256 bits, one pipeline), its own
/// tables, frames of every size up to 9018 B.
#[test]
fn differential_netfpga_sume() -> Result<()> {
    let cfg = common::config_with("netfpga-sume", &[])?;
    let s = Settings::from_config(&cfg);
    let inp = inputs(&s, 4, 10000, 9018, 0.15, 1);
    differential(&cfg, &s, &inp, &RtlOpts { seed: 2, idle_prob: 0.85, ready_prob: 0.8 })?;
    Ok(())
}

/// The 64-bit datapath (the width of one 10G port): headers span up to 13
/// beats. `fifo.depth` grows so a 9018-byte frame fits the receive FIFO.
#[test]
fn differential_64_bit() -> Result<()> {
    let cfg = common::config_with("netfpga-sume", &["datapath.data_width=64", "fifo.depth=2048", "tm.queue_d_words=1200"])?;
    let s = Settings::from_config(&cfg);
    let inp = inputs(&s, 4, 5000, 9018, 0.15, 3);
    differential(&cfg, &s, &inp, &RtlOpts { seed: 4, idle_prob: 0.85, ready_prob: 0.8 })?;
    Ok(())
}

/// The 512-bit datapath, two pipelines of one 100G port each (alveo-u250).
#[test]
fn differential_512_bit_two_pipelines() -> Result<()> {
    let cfg = common::config_with("alveo-u250", &[])?;
    let s = Settings::from_config(&cfg);
    let inp = inputs(&s, 2, 20000, 9018, 0.15, 5);
    differential(&cfg, &s, &inp, &RtlOpts { seed: 6, idle_prob: 0.3, ready_prob: 0.8 })?;
    Ok(())
}

/// The malformed corpus, each case followed by a good frame, with malformed
/// packets dropped and then forwarded, FCS stripped and then kept: every
/// case gets its defined outcome and counter, nothing stalls, every good
/// frame after a bad one passes.
#[test]
fn malformed_corpus_outcomes() -> Result<()> {
    let cfg = common::config_with("netfpga-sume", &[])?;
    for (drop, strip) in [(true, true), (false, false)] {
        let mut s = Settings::from_config(&cfg);
        s.malformed_drop = drop;
        s.strip_fcs = strip;
        let corpus = malformed_corpus(&s);
        let mut rng = SmallRng::seed_from_u64(7);
        let mut o = GenOpts::from_settings(&s);
        o.max_size = 300;
        // A good frame that always leaves: to an L2 MAC of the table.
        let (good, good_out) = loop {
            let f = random_frame(&mut rng, &o);
            let (out, _) = run_model(&cfg, &s, &[vec![f.clone()]]);
            if out.len() == 1 {
                break (f, out[0].frame.clone());
            }
        };
        let mut port0 = vec![];
        for c in &corpus {
            port0.push(c.wire.clone());
            port0.push(good.clone());
        }
        let inp = vec![port0, vec![], vec![], vec![]];
        let (mo, mc) = run_model(&cfg, &s, &inp);
        let (ro, rc, _) = run_rtl(&cfg, &s, &inp, &RtlOpts { seed: 8, idle_prob: 0.0, ready_prob: 0.7 })?;
        compare(4, &ro, &mo, &rc, &mc)?;
        // Every good frame came out (in order, between the corpus cases).
        let n_good = ro.iter().filter(|o| o.frame == good_out).count();
        ensure!(n_good == corpus.len(), "{n_good} of {} good frames passed", corpus.len());
        // Each expectation is counted.
        let mut want = std::collections::BTreeMap::<String, u64>::new();
        for c in &corpus {
            let key = match c.expect {
                Expect::RxDrop(r) => format!("port0.{}", r.counter()),
                Expect::Malformed(code) => format!("pipe0.malformed_{}", trimswitch_hdl::ingress::phv::malformed::NAMES[code as usize]),
                Expect::Ok => continue,
            };
            *want.entry(key).or_default() += 1;
        }
        for (k, v) in &want {
            ensure!(rc.get(k) == Some(v), "{k}: RTL {:?}, corpus expects {v}", rc.get(k));
        }
        ensure!(want.len() >= 12, "corpus covers only {} outcomes", want.len());
        eprintln!("corpus (drop={drop}, strip={strip}): {} cases, {} outcomes, all good frames passed", corpus.len(), want.len());
    }
    Ok(())
}

/// LPM semantics on the RTL, entries written in a scrambled order: longest
/// prefix wins, overlapping entries, equal lengths go to the lowest index,
/// a /32 host route, lengths above 32 (acting as 32), the default route, and
/// a miss (dropped and counted, or sent to the miss port).
#[test]
fn lpm_semantics() -> Result<()> {
    use trimswitch_sim::packet::{Frame, Ipv4, Udp, L3, L4};
    let cfg = common::config_with("netfpga-sume", &[])?;
    let mut s = Settings::from_config(&cfg);
    for r in s.routes.iter_mut() {
        *r = None;
    }
    let ip = |a: u8, b: u8, c: u8, d: u8| u32::from_be_bytes([a, b, c, d]);
    let route = |p: u32, len: u8, port: u8, nexthop: u8| Some(Route { prefix: p, len, port, nexthop });
    s.routes[9] = route(ip(10, 0, 0, 0), 8, 1, 1);
    s.routes[2] = route(ip(10, 1, 0, 0), 16, 2, 2);
    s.routes[5] = route(ip(10, 1, 2, 0), 24, 3, 3);
    s.routes[0] = route(ip(10, 1, 2, 3), 32, 0, 4);
    s.routes[7] = route(ip(192, 168, 0, 0), 16, 1, 5);
    s.routes[3] = route(ip(192, 168, 0, 0), 16, 2, 6);
    // Lengths above 32 act as 32: index 8 beats the /24, index 1 ties with
    // the /32 at index 0 and loses.
    s.routes[8] = route(ip(10, 1, 2, 9), 40, 2, 8);
    s.routes[1] = route(ip(10, 1, 2, 3), 33, 1, 9);
    let rmac = s.router_mac.to_be_bytes();
    let frame = |dst: u32| -> Vec<u8> {
        Frame {
            dst: [rmac[2], rmac[3], rmac[4], rmac[5], rmac[6], rmac[7]],
            src: [2, 0, 0, 0, 0, 9],
            vlans: vec![],
            protego: None,
            l3: L3::Ipv4(Ipv4 {
                dscp: 0,
                ecn: 0,
                id: 1,
                dont_fragment: true,
                ttl: 64,
                protocol: 17,
                src: [10, 9, 9, 9],
                dst: dst.to_be_bytes(),
                options: vec![],
            }),
            l4: L4::Udp(Udp { sport: 1, dport: 2 }),
            payload: vec![0; 40],
        }
        .to_wire()
    };
    // (destination, expected egress port and next hop; None = miss)
    let cases: Vec<(u32, Option<(u8, u8)>)> = vec![
        (ip(10, 7, 7, 7), Some((1, 1))),
        (ip(10, 1, 7, 7), Some((2, 2))),
        (ip(10, 1, 2, 7), Some((3, 3))),
        (ip(10, 1, 2, 3), Some((0, 4))),
        (ip(10, 1, 2, 9), Some((2, 8))),
        (ip(192, 168, 3, 4), Some((2, 6))), // equal /16s: index 3 beats index 7
        (ip(11, 0, 0, 1), None),
    ];
    let inp = vec![cases.iter().map(|(d, _)| frame(*d)).collect::<Vec<_>>()];
    for (default, miss_port) in [(false, 255u8), (false, 3), (true, 255)] {
        s.routes[60] = if default { route(0, 0, 2, 7) } else { None };
        s.miss_port = miss_port;
        let (ro, rc, _) = run_rtl(&cfg, &s, &inp, &RtlOpts::default())?;
        let (mo, mc) = run_model(&cfg, &s, &inp);
        compare(4, &ro, &mo, &rc, &mc)?;
        let mut out = ro.iter();
        for (dst, want) in &cases {
            let want = match (want, default) {
                (Some(w), _) => Some((w.0, w.1, true)),
                (None, true) => Some((2, 7, true)),
                (None, false) if miss_port < 4 => Some((miss_port, 0, false)),
                (None, false) => None,
            };
            if let Some((port, nh, routed)) = want {
                let o = out.next().ok_or_else(|| anyhow::anyhow!("{dst:#010x}: no packet"))?;
                ensure!(
                    (o.meta.dest_port, o.meta.nexthop, o.meta.routed) == (port, nh, routed),
                    "{dst:#010x}: port {} nexthop {} routed {}, expected {port} {nh} {routed}",
                    o.meta.dest_port,
                    o.meta.nexthop,
                    o.meta.routed
                );
                if routed {
                    let mac = s.nexthop_mac[nh as usize].to_be_bytes();
                    // The source MAC stays for the egress rewrite (docs/switch.md).
                    ensure!(o.frame[..6] == mac[2..], "{dst:#010x}: destination MAC not rewritten");
                    ensure!(o.frame[6..12] == [2, 0, 0, 0, 0, 9], "{dst:#010x}: source MAC changed at ingress");
                }
            }
        }
        ensure!(out.next().is_none(), "more packets than expected");
        let miss = rc["pipe0.lookup_lpm_miss"];
        ensure!(miss == (!default) as u64, "lpm_miss = {miss}");
        ensure!(rc["pipe0.drop_no_port"] == (!default && miss_port == 255) as u64, "drop_no_port = {}", rc["pipe0.drop_no_port"]);
    }
    Ok(())
}

/// Line rate at 512 bits (alveo-u250, one 100G port per pipeline): 64-byte
/// frames back to back, the output always ready. 100G needs one frame every
/// 2.16 cycles at 322 MHz; the pipeline takes one per cycle. Also the latency
/// from a frame's first beat in to its first beat out, through an empty
/// pipeline.
#[test]
fn line_rate_64_byte_frames_512_bit() -> Result<()> {
    let cfg = common::config_with("alveo-u250", &[])?;
    let s = Settings::from_config(&cfg);
    let mut rng = SmallRng::seed_from_u64(9);
    let mut o = GenOpts::from_settings(&s);
    o.max_size = 64;
    let mut frames = vec![];
    while frames.len() < 5000 {
        let f = random_frame(&mut rng, &o);
        // Only frames that leave, so the output rate is the pipeline's.
        if f.len() == 64 && run_model(&cfg, &s, &[vec![f.clone()]]).0.len() == 1 {
            frames.push(f);
        }
    }
    let inp = vec![frames, vec![]];
    let (mo, mc) = run_model(&cfg, &s, &inp);
    let (ro, rc, st) = run_rtl(&cfg, &s, &inp, &RtlOpts { seed: 10, idle_prob: 0.0, ready_prob: 1.0 })?;
    compare(2, &ro, &mo, &rc, &mc)?;
    let rate = st.out_pkts as f64 / st.out_span as f64;
    let lat = st.first_latency.unwrap_or(u64::MAX);
    eprintln!(
        "line rate 512: {} packets in {} cycles = {rate:.4} packets/cycle; first-beat latency {lat} cycles",
        st.out_pkts, st.out_span
    );
    ensure!(st.out_pkts == 5000 && st.out_span <= 5000 + 4, "5000 64-byte frames left in {} cycles", st.out_span);
    ensure!(lat <= 40, "latency {lat} cycles");
    Ok(())
}

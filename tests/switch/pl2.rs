//! PL2 in the whole switch (issue 15; `docs/pl2.md`, "In the switch"): the
//! default configuration's `ts_switch` with PL2 switched on through its
//! register window, one frame at a time against the ingress golden model
//! with its PL2 stage (`IngressModel`):
//! - an RSV comes back out of its ingress port as its GRT: destination MAC
//!   the RSV's source, source MAC the router's, `kind`, `demand` and the slot
//!   fields written, `src_port`, `dst_port` and the cookie as they were,
//!   with 0, 1 and 2 VLAN tags, whatever lookup decided for the RSV (the
//!   router MAC it is addressed to is no L2 entry);
//! - data packets pass and give slots back; an unsolicited one is dropped
//!   above `T`; a GRT from a host, an RSV to a bad port and one with demand 0
//!   are counted drops; an RSV with a Protego tag is no op (forwarded as any
//!   frame);
//! - `IN_RES`/`OUT_RES` of every port, every PL2 counter and the ingress
//!   fate counters equal the model's; a host write of `OUT_RES` lands;
//! - a packet that waits for the ALU's verdict (an RSV, an UNSOL) takes two
//!   cycles more through the switch than a data packet of its size; a DATA
//!   op takes as many cycles as with PL2 off (it never waits for the ALU);
//! - a burst of mixed ops back to back from one port (RSVs, DATA, UNSOL,
//!   GRTs and packets that are no op, of 64 to 146 bytes) leaves in order,
//!   every byte the model's, on both configurations (one pipeline, and two
//!   with the cross-pipeline hold).
use crate::common::*;
use anyhow::{ensure, Context, Result};
use trimswitch_hdl::config::Config;
use trimswitch_hdl::pl2::alu::Pl2Alu;
use trimswitch_hdl::pl2::block::Pl2Regs;
use trimswitch_sim::agents::axis::Packet;
use trimswitch_sim::harness::tb::Agent;
use trimswitch_sim::model::lookup::egress_rewrite;
use trimswitch_sim::model::{IngressModel, Settings};
use trimswitch_sim::packet::{Frame, Ipv4, Pl2, Protego, Vlan, L3, L4};
use trimswitch_sim::rtl::switch::SwitchBench;

const ROUTER: [u8; 6] = [2, 0, 0, 0, 0, 0xfe];

fn host(p: u8) -> [u8; 6] {
    [2, 0, 0, 0, 0, p]
}

fn tags(n: usize) -> Vec<Vlan> {
    (0..n).map(|i| Vlan { tpid: 0x8100, pcp: 0, dei: false, vid: 10 + i as u16 }).collect()
}

/// An RSV from the host behind `port`, addressed to the switch.
fn rsv(port: u8, src_field: u8, dst: u8, demand: u8, cookie: u32, vlans: usize) -> Vec<u8> {
    let m = Pl2 { kind: Pl2::RSV, demand, src_port: src_field, dst_port: dst, cookie, ..Pl2::default() };
    Frame { dst: ROUTER, src: host(port), vlans: tags(vlans), protego: None, l3: L3::Pl2(m), l4: L4::None, payload: vec![] }.to_wire()
}

/// An IPv4 packet from the host behind `from` to the one behind `to` (an L2
/// hit), with DSCP `dscp`: 146 bytes.
fn data(from: u8, to: u8, dscp: u8) -> Vec<u8> {
    data_sized(from, to, dscp, 100)
}

/// [`data`] with `payload` bytes after the IPv4 header.
fn data_sized(from: u8, to: u8, dscp: u8, payload: usize) -> Vec<u8> {
    let ip = Ipv4 {
        dscp,
        ecn: 0,
        id: 1,
        dont_fragment: false,
        ttl: 64,
        protocol: 253,
        src: [10, 0, from, 1],
        dst: [10, 0, to, 1],
        options: vec![],
    };
    Frame { dst: host(to), src: host(from), vlans: vec![], protego: None, l3: L3::Ipv4(ip), l4: L4::None, payload: vec![7; payload] }
        .to_wire()
}

/// Sends `frame` into `port` alone and waits until the switch is quiet;
/// returns what left (port, packet, cycles from the input's first beat to
/// the output's).
fn one(b: &mut SwitchBench, port: usize, frame: &[u8]) -> Result<Vec<(usize, Packet, u64)>> {
    b.srcs[port].push(Packet::new(frame.to_vec(), 0));
    b.run(400);
    let sent = *b.srcs[port].first_cycles.last().context("frame not taken")?;
    let mut out = vec![];
    for (p, s) in b.sinks.iter_mut().enumerate() {
        no_protocol_errors(s)?;
        while !s.packets.is_empty() {
            let pkt = s.packets.pop_front().context("packet")?;
            let first = s.first_cycles.pop_front().context("first cycle")?;
            s.last_cycles.pop_front();
            out.push((p, pkt, first - sent));
        }
    }
    Ok(out)
}

#[test]
fn rsv_becomes_its_grt_and_every_count_is_the_models() -> Result<()> {
    let cfg: Config = config();
    let ports = cfg.datapath.ports;
    let mut b = SwitchBench::new(&cfg, 7)?;
    b.configure(&cfg)?;
    let pl2 = b.map.window("pl2").clone();
    let mut settings = Settings::from_config(&cfg);
    let mut model = IngressModel::with_settings(&cfg, settings.clone());
    let data_latency = |b: &mut SwitchBench, model: &mut IngressModel| -> Result<u64> {
        let out = one(b, 3, &data(3, 2, 0))?;
        model.process(3, &data(3, 2, 0));
        ensure!(out.len() == 1 && out[0].0 == 2, "data 3 -> 2: {:?}", out.iter().map(|o| o.0).collect::<Vec<_>>());
        Ok(out[0].2)
    };
    // A data packet with PL2 off (no op), then on (a DATA op): the same
    // latency, as a DATA op never waits for the ALU's verdict.
    let off_latency = data_latency(&mut b, &mut model)?;
    b.write(pl2.addr("CTRL", 0), Pl2Regs::CTRL_ENABLE | Pl2Regs::CTRL_SLOT_RUN)?;
    settings.pl2.enable = true;
    model.settings_mut().pl2.enable = true;
    let data_latency = data_latency(&mut b, &mut model)?;
    ensure!(data_latency == off_latency, "a DATA op took {data_latency} cycles, the same packet with PL2 off {off_latency}");
    let cases: Vec<(&str, usize, Vec<u8>)> = vec![
        ("RSV 0 -> 2, demand 3", 0, rsv(0, 0, 2, 3, 0x1111_0000, 0)),
        ("RSV 1 -> 2, demand 9 (clamped), one tag", 1, rsv(1, 1, 2, 9, 0x2222_0000, 1)),
        ("data 3 -> 2 (in[3] underflows)", 3, data(3, 2, 0)),
        ("RSV 0 -> 1, src_port field 5, two tags", 0, rsv(0, 5, 1, 2, 0x3333_0000, 2)),
        ("GRT from a host", 2, {
            let m = Pl2 { kind: Pl2::GRT, demand: 1, src_port: 2, dst_port: 0, ..Pl2::default() };
            Frame { dst: ROUTER, src: host(2), vlans: vec![], protego: None, l3: L3::Pl2(m), l4: L4::None, payload: vec![] }.to_wire()
        }),
        ("RSV to port 9", 1, rsv(1, 1, 9, 1, 0, 0)),
        ("RSV demand 0", 1, rsv(1, 1, 3, 0, 0, 0)),
        ("unsolicited 2 -> 0, passes", 2, data(2, 0, 14)),
        // A Protego tag on a port without Protego (issue 16): no PL2 op, the
        // frame goes where lookup sends it and touches no counter.
        ("RSV with a Protego tag, to host 2's MAC", 1, {
            let m = Pl2 { kind: Pl2::RSV, demand: 2, src_port: 1, dst_port: 2, ..Pl2::default() };
            let tag = Some(Protego { kind: 0, era: false, seq: 1 });
            Frame { dst: host(2), src: host(1), vlans: vec![], protego: tag, l3: L3::Pl2(m), l4: L4::None, payload: vec![] }.to_wire()
        }),
        ("RSV 3 -> 2 after the decrements", 3, rsv(3, 3, 2, 1, 0x4444_0000, 0)),
    ];
    let mut grt_latency = vec![];
    let mut grt_ports: Vec<(usize, u64)> = vec![];
    let mut case_latency: Vec<(String, u64)> = vec![];
    let mut run_case = |b: &mut SwitchBench, model: &mut IngressModel, what: &str, port: usize, frame: &[u8]| -> Result<()> {
        let t = model.trace(port, frame);
        let got = one(b, port, frame).with_context(|| what.to_string())?;
        // On a mismatch, the switch's nonzero counters say where it went.
        let seen = |b: &mut SwitchBench| -> String {
            let c = b.read_counters().unwrap_or_default();
            c.iter()
                .filter(|(k, v)| **v != 0 && !k.contains("SLOT_NOW") && !k.starts_with("tm"))
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        match t.out {
            None => ensure!(got.is_empty(), "{what}: the model drops it ({:?}), the switch sent {} packet(s)", t.fate, got.len()),
            Some(o) => {
                ensure!(
                    got.len() == 1,
                    "{what}: {} packets out, the model sends one to port {}; switch counters: {}",
                    got.len(),
                    o.meta.dest_port,
                    seen(b)
                );
                let (p, pkt, lat) = &got[0];
                case_latency.push((what.to_string(), *lat));
                let mut want = o.frame.clone();
                egress_rewrite(&mut want, o.meta.routed, &settings);
                ensure!(*p == o.meta.dest_port as usize, "{what}: out of port {p}, the model says {}", o.meta.dest_port);
                ensure!(pkt.data == want, "{what}: bytes\n  rtl   {:02x?}\n  model {:02x?}", &pkt.data[..40], &want[..40]);
                if matches!(t.pl2, Some((_, trimswitch_sim::model::pl2::Outcome::Grant(_)))) {
                    ensure!(*p == port && pkt.data[..6] == host(port as u8) && pkt.data[6..12] == ROUTER, "{what}: GRT addresses");
                    grt_latency.push(*lat);
                    grt_ports.push((*p, *lat));
                }
            }
        }
        Ok(())
    };
    for (what, port, frame) in &cases {
        run_case(&mut b, &mut model, what, *port, frame)?;
    }
    // A host clears a failed host's slots from outside, or adds some: an
    // unsolicited packet to port 1 then finds 100 > T = 64 slots ahead.
    b.write(pl2.addr("OUT_RES", 1), 100)?;
    model.pl2_mut().set_out_res(1, 100);
    run_case(&mut b, &mut model, "unsolicited 3 -> 1 over T", 3, &data(3, 1, 14))?;
    // State and counters.
    same_state_as_model(&mut b, &model, ports)?;
    let mc = model.pl2().counters();
    for (name, want) in
        [("rsv_ok", 4), ("rsv_pkts", 6), ("grt_from_host", 1), ("unsol_drop", 1), ("unsol_pass", 1), ("rsv_demand_clamped", 1)]
    {
        ensure!(mc[name] == want, "the model's {name} is {}, the test expects {want}", mc[name]);
    }
    ensure!(model.counters()["pipe0.drop_pl2"] == 4, "four PL2 drops expected");
    // An RSV and an UNSOL wait for the ALU's verdict, two cycles more than
    // a DATA op or a packet that is no op (`Pl2Stage`, "Latency"): the
    // passing unsolicited packet has the data packet's size and takes two
    // cycles more; a DATA op that underflows takes none.
    let lat_of = |what: &str| case_latency.iter().find(|c| c.0 == what).map(|c| c.1);
    let (lo, hi) = (*grt_latency.iter().min().unwrap(), *grt_latency.iter().max().unwrap());
    eprintln!(
        "pl2 switch: RSV -> GRT {lo}..{hi} cycles (first beat in to first beat out), a 146-byte data packet {data_latency} (PL2 off: {off_latency}), unsolicited {:?}",
        lat_of("unsolicited 2 -> 0, passes")
    );
    ensure!(grt_latency.len() == 4 && hi <= data_latency, "RSV -> GRT {grt_latency:?} cycles, data {data_latency}");
    ensure!(
        lat_of("unsolicited 2 -> 0, passes") == Some(data_latency + 2) && lat_of("data 3 -> 2 (in[3] underflows)") == Some(data_latency),
        "unsolicited / DATA latencies {case_latency:?}, a data packet {data_latency}"
    );
    // The switch's own RSV->GRT latency registers agree with the bench's
    // clock: GRTs left ports 0 (two), 1 and 3; ports without one read
    // "none" (0xFFFF, 0). Then a write clears them.
    let mut per_port = vec![vec![]; ports];
    for (p, l) in &grt_ports {
        per_port[*p].push(*l);
    }
    for (p, lats) in per_port.iter().enumerate() {
        let (mn, mx) = (b.read(pl2.addr("GRT_LAT_MIN", p))?, b.read(pl2.addr("GRT_LAT_MAX", p))?);
        let want = match (lats.iter().min(), lats.iter().max()) {
            (Some(a), Some(z)) => (*a as u32, *z as u32),
            _ => (0xFFFF, 0),
        };
        ensure!((mn, mx) == want, "port {p}: GRT_LAT_MIN/MAX ({mn}, {mx}), the bench measured {lats:?}");
    }
    ensure!(per_port[0].len() == 2, "two GRTs out of port 0: {grt_ports:?}");
    b.write(pl2.addr("GRT_LAT_MAX", 2), 0)?;
    b.run(4);
    for p in 0..ports {
        let (mn, mx) = (b.read(pl2.addr("GRT_LAT_MIN", p))?, b.read(pl2.addr("GRT_LAT_MAX", p))?);
        ensure!((mn, mx) == (0xFFFF, 0), "port {p}: GRT_LAT_MIN/MAX ({mn}, {mx}) after the clear");
    }
    Ok(())
}

/// The PL2 stage's two ways (`Pl2Stage`, "Latency"): packets that wait for
/// the ALU's verdict (RSV, UNSOL, a GRT from a host) and packets that need
/// none (DATA, lookup's drops) back to back from port 0, 64 to 146 bytes,
/// so a packet that needs no verdict enters the stage's delay line behind
/// one that does, one or two cycles later, and in an empty line. Every
/// packet leaves as the model says, in order per output port, every byte
/// the model's (a packet merged with another's result, or two PHVs
/// swapped, would put one packet's header on another's payload); the
/// reservations and every PL2 and ingress counter end at the model's.
fn mixed_burst_keeps_order(cfg: &Config, seed: u64) -> Result<()> {
    use rand::{Rng, SeedableRng};
    let ports = cfg.datapath.ports;
    let mut b = SwitchBench::new(cfg, seed)?;
    b.configure(cfg)?;
    let pl2 = b.map.window("pl2").clone();
    b.write(pl2.addr("CTRL", 0), Pl2Regs::CTRL_ENABLE | Pl2Regs::CTRL_SLOT_RUN)?;
    let mut settings = Settings::from_config(cfg);
    settings.pl2.enable = true;
    let mut model = IngressModel::with_settings(cfg, settings.clone());
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    // Few and small demands: the reservations stay far below `T`, whose
    // verdict reads the counters of two cycles before (`docs/pl2.md`).
    let mut frames = vec![];
    let mut kinds = [0usize; 6];
    for i in 0..60u32 {
        let dst = rng.gen_range(1..ports) as u8;
        let k = rng.gen_range(0..6);
        kinds[k] += 1;
        frames.push(match k {
            0 => rsv(0, 0, dst, rng.gen_range(1..=2), 0x5000_0000 | i, rng.gen_range(0..3)),
            1 => data_sized(0, dst, 14, rng.gen_range(18..=100)),
            2 => {
                let m = Pl2 { kind: Pl2::GRT, demand: 1, src_port: 0, dst_port: dst, ..Pl2::default() };
                Frame { dst: ROUTER, src: host(0), vlans: vec![], protego: None, l3: L3::Pl2(m), l4: L4::None, payload: vec![] }.to_wire()
            }
            // To a host no table knows: lookup drops it, no op.
            3 => data_sized(0, 0x77, 0, 18),
            _ => data_sized(0, dst, 0, rng.gen_range(18..=100)),
        });
    }
    let mut want: Vec<Vec<Vec<u8>>> = vec![vec![]; ports];
    for f in &frames {
        let t = model.trace(0, f);
        if let Some(o) = t.out {
            let mut w = o.frame.clone();
            egress_rewrite(&mut w, o.meta.routed, &settings);
            want[o.meta.dest_port as usize].push(w);
        }
        b.srcs[0].push(Packet::new(f.clone(), 0));
    }
    b.run(3000);
    ensure!(b.srcs[0].idle(), "port 0 still has frames to send");
    for (p, s) in b.sinks.iter_mut().enumerate() {
        no_protocol_errors(s)?;
        let got: Vec<Vec<u8>> = s.packets.drain(..).map(|k| k.data).collect();
        ensure!(got.len() == want[p].len(), "port {p}: {} packets out, the model sends {}", got.len(), want[p].len());
        for (j, (g, w)) in got.iter().zip(&want[p]).enumerate() {
            ensure!(g == w, "port {p} packet {j}:\n  rtl   {:02x?}\n  model {:02x?}", &g[..g.len().min(48)], &w[..w.len().min(48)]);
        }
    }
    same_state_as_model(&mut b, &model, ports)?;
    let mc = model.pl2().counters();
    eprintln!(
        "pl2 mixed burst on {}: kinds {kinds:?}, out per port {:?}, rsv_ok {}, unsol_pass {}, data {}",
        cfg.target.name,
        want.iter().map(|w| w.len()).collect::<Vec<_>>(),
        mc["rsv_ok"],
        mc["unsol_pass"],
        mc["data_pkts"]
    );
    ensure!(mc["rsv_ok"] >= 5 && mc["unsol_pass"] >= 5 && mc["data_pkts"] >= 10, "the mix lacks a kind: {kinds:?}");
    Ok(())
}

/// `IN_RES`/`OUT_RES` of every port, every PL2 counter (the switch never
/// meets the conflict drop with one pipeline or the hold) and pipeline 0's
/// PL2 fate counters equal the model's.
fn same_state_as_model(b: &mut SwitchBench, model: &IngressModel, ports: usize) -> Result<()> {
    let pl2 = b.map.window("pl2").clone();
    for p in 0..ports {
        let (i, o) = (b.read(pl2.addr("IN_RES", p))?, b.read(pl2.addr("OUT_RES", p))?);
        ensure!(
            (i, o) == (model.pl2().in_res(p), model.pl2().out_res(p)),
            "port {p}: IN_RES/OUT_RES ({i}, {o}), the model's ({}, {})",
            model.pl2().in_res(p),
            model.pl2().out_res(p)
        );
    }
    let mc = model.pl2().counters();
    for name in Pl2Alu::COUNTERS {
        let v = b.read(pl2.addr(&name.to_ascii_uppercase(), 0))? as u64;
        let want = if name == "conflict_drop" { 0 } else { mc[name] };
        ensure!(v == want, "pl2 counter {name} = {v}, the model's {want}");
    }
    let w = b.map.window("ingress0").clone();
    for name in ["drop_pl2", "drop_no_port", "ingress_out_pkts", "drop_malformed"] {
        let v = b.read(w.addr(&name.to_ascii_uppercase(), 0))? as u64;
        ensure!(
            v == model.counters()[&format!("pipe0.{name}")],
            "ingress0 {name} = {v}, the model's {}",
            model.counters()[&format!("pipe0.{name}")]
        );
    }
    Ok(())
}

/// [`mixed_burst_keeps_order`] on netfpga-sume (one pipeline).
#[test]
fn mixed_ops_back_to_back_keep_order_one_pipeline() -> Result<()> {
    mixed_burst_keeps_order(&config(), 11)
}

/// [`mixed_burst_keeps_order`] on alveo-u250 (two pipelines: the stage's
/// hold queue before its delay line).
#[test]
fn mixed_ops_back_to_back_keep_order_two_pipelines() -> Result<()> {
    mixed_burst_keeps_order(&config_of("alveo-u250"), 12)
}

/// The cross-pipeline hold (`PL2-PROTEGO.md` A.2; `docs/pl2.md`), on
/// `alveo-u250` (two ports, one per pipeline): two RSVs for the same
/// `out[1]` reach the two pipelines' PL2 stages in the same cycle. One is
/// held a cycle and both come back as GRTs (no conflict drop): the second's
/// `recv_timeslot` counts the first's demand, as the model gives for one of
/// the two orders, `OUT_RES[1]` holds both demands and `HOLD_CYCLES` the one
/// cycle of waiting. Then an RSV on one pipeline beside a data packet on the
/// other, for the same port: DATA never waits (no hold cycle).
#[test]
fn two_pipelines_rsvs_for_one_port_are_serialised_not_dropped() -> Result<()> {
    let cfg = config_of("alveo-u250");
    ensure!(cfg.datapath.pipelines == 2 && cfg.datapath.ports == 2, "alveo-u250: 2 ports in 2 pipelines");
    let mut b = SwitchBench::new(&cfg, 7)?;
    b.configure(&cfg)?;
    let pl2 = b.map.window("pl2").clone();
    b.write(pl2.addr("CTRL", 0), Pl2Regs::CTRL_ENABLE | Pl2Regs::CTRL_SLOT_RUN)?;
    let frames = [rsv(0, 0, 1, 3, 0xaaaa_0000, 0), rsv(1, 1, 1, 2, 0xbbbb_0000, 0)];
    for (p, f) in frames.iter().enumerate() {
        b.srcs[p].push(Packet::new(f.clone(), 0));
    }
    b.run(600);
    let mut got = vec![];
    for (p, s) in b.sinks.iter_mut().enumerate() {
        no_protocol_errors(s)?;
        ensure!(s.packets.len() == 1, "port {p}: {} packets out, one GRT expected", s.packets.len());
        got.push(s.packets.pop_front().context("GRT")?.data);
    }
    // The model in both orders: the switch's GRTs must be one order's.
    let mut settings = Settings::from_config(&cfg);
    settings.pl2.enable = true;
    let mut orders = vec![];
    for order in [[0usize, 1], [1, 0]] {
        let mut model = IngressModel::with_settings(&cfg, settings.clone());
        let mut want = vec![vec![]; 2];
        for p in order {
            let t = model.trace(p, &frames[p]);
            let o = t.out.with_context(|| format!("the model drops the RSV of port {p}: {:?}", t.fate))?;
            ensure!(o.meta.dest_port as usize == p, "the model's GRT for port {p} leaves by {}", o.meta.dest_port);
            let mut w = o.frame.clone();
            egress_rewrite(&mut w, o.meta.routed, &settings);
            want[p] = w;
        }
        orders.push((order, want, model.pl2().out_res(1)));
    }
    let Some((order, _, out_res)) = orders.iter().find(|(_, want, _)| *want == got) else {
        anyhow::bail!("the GRTs match neither order of the model:\n  rtl {:02x?}\n      {:02x?}", &got[0][..40], &got[1][..40]);
    };
    eprintln!("pl2 hold: port {} went first", order[0]);
    ensure!(*out_res == 5 && b.read(pl2.addr("OUT_RES", 1))? == 5, "OUT_RES[1] = {}, want 3 + 2", b.read(pl2.addr("OUT_RES", 1))?);
    ensure!(b.read(pl2.addr("CONFLICT_DROP", 0))? == 0, "an RSV met the ALU's conflict drop");
    ensure!(b.read(pl2.addr("RSV_OK", 0))? == 2, "RSV_OK {}", b.read(pl2.addr("RSV_OK", 0))?);
    ensure!(b.read(pl2.addr("HOLD_CYCLES", 0))? == 1, "HOLD_CYCLES = {}, want 1", b.read(pl2.addr("HOLD_CYCLES", 0))?);
    // DATA beside an RSV for the same port: no hold. Port 0's packet to
    // host 1 and port 1's RSV for out[1] (its own port) in the same cycle.
    b.srcs[0].push(Packet::new(data(0, 1, 0), 0));
    b.srcs[1].push(Packet::new(rsv(1, 1, 1, 1, 0xcccc_0000, 0), 0));
    b.run(600);
    let n: Vec<usize> = b.sinks.iter().map(|s| s.packets.len()).collect();
    ensure!(n == [0, 2], "packets out per port {n:?}: the data packet and the GRT both to port 1");
    ensure!(b.read(pl2.addr("HOLD_CYCLES", 0))? == 1, "DATA was held: HOLD_CYCLES = {}", b.read(pl2.addr("HOLD_CYCLES", 0))?);
    ensure!(b.read(pl2.addr("RSV_OK", 0))? == 3 && b.read(pl2.addr("CONFLICT_DROP", 0))? == 0, "third RSV");
    Ok(())
}

/// A GRT as the storm test sees it: (src, dst, demand, send, recv).
type GrantSeen = (u8, u8, u8, u32, u32);

/// The hold under contention (`alveo-u250`, two pipelines): 40 RSVs from
/// each port back to back, each for a random port with a random demand
/// (1..=K) and 0..2 VLAN tags, so the two pipelines' RSVs meet on one
/// `out[d]` in some cycles and not in others. Every RSV comes back out of
/// its port as its GRT (demand, ports and cookie kept); per destination the
/// GRTs' `recv_timeslot`s, in order, each add the one before's demand from
/// 0 (no two RSVs read `out[d]` in one cycle: a lost update would break the
/// chain), per source the `send_timeslot`s likewise; `OUT_RES`/`IN_RES` end
/// at the sums, `CONFLICT_DROP` is 0 and the hold was used.
#[test]
fn two_pipelines_rsv_storm_grants_every_rsv_in_one_order() -> Result<()> {
    use rand::{Rng, SeedableRng};
    use std::collections::HashMap;
    let cfg = config_of("alveo-u250");
    let mut b = SwitchBench::new(&cfg, 11)?;
    b.configure(&cfg)?;
    let pl2 = b.map.window("pl2").clone();
    b.write(pl2.addr("CTRL", 0), Pl2Regs::CTRL_ENABLE | Pl2Regs::CTRL_SLOT_RUN)?;
    let k = cfg.pl2.k as u8;
    let n = 40u32;
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let mut sent: HashMap<u32, (u8, u8, u8)> = HashMap::new();
    for p in 0..2u8 {
        for i in 0..n {
            let (dst, d, vl) = (rng.gen_range(0..2u8), rng.gen_range(1..=k), rng.gen_range(0..=2usize));
            let cookie = ((p as u32) << 16) | i;
            sent.insert(cookie, (p, dst, d));
            b.srcs[p as usize].push(Packet::new(rsv(p, p, dst, d, cookie, vl), 0));
        }
    }
    b.run(8000);
    let mut grants: Vec<GrantSeen> = vec![];
    let mut bench_lat = vec![];
    for (p, s) in b.sinks.iter_mut().enumerate() {
        no_protocol_errors(s)?;
        ensure!(s.packets.len() == n as usize, "port {p}: {} packets out, {n} GRTs expected", s.packets.len());
        // A port's GRTs leave in its RSVs' order: each one's latency, first
        // beat in to first beat out, as the bench's clock saw it.
        let ins = &b.srcs[p].first_cycles;
        ensure!(ins.len() == n as usize && s.first_cycles.len() == n as usize, "port {p}: cycles recorded");
        let lats: Vec<u64> = s.first_cycles.iter().zip(ins.iter()).map(|(o, i)| o - i).collect();
        bench_lat.push((*lats.iter().min().unwrap(), *lats.iter().max().unwrap()));
        while let Some(pkt) = s.packets.pop_front() {
            let f = &pkt.data;
            let vl = (0..2).take_while(|&v| f[12 + 4 * v..14 + 4 * v] == [0x81, 0x00]).count();
            let m = Pl2::parse(&f[14 + 4 * vl..]).context("a GRT message")?;
            let cookie = m.cookie;
            let &(src, dst, d) = sent.get(&cookie).with_context(|| format!("port {p}: GRT with unknown cookie {cookie:#x}"))?;
            ensure!(
                m.kind == Pl2::GRT && m.demand == d && m.src_port == src && m.dst_port == dst && src as usize == p,
                "port {p}: GRT {m:?} for RSV {src}->{dst} d{d}"
            );
            ensure!(f[..6] == host(src) && f[6..12] == ROUTER, "GRT addresses");
            grants.push((src, dst, d, m.send_timeslot, m.recv_timeslot));
        }
    }
    let chain = |key: &dyn Fn(&GrantSeen) -> u8, slot: &dyn Fn(&GrantSeen) -> u32, port: u8| -> Result<u32> {
        let mut g: Vec<(u32, u8)> = grants.iter().filter(|x| key(x) == port).map(|x| (slot(x), x.2)).collect();
        g.sort();
        let mut acc = 0u32;
        for (s, d) in g {
            ensure!(s == acc, "port {port}: slot {s} where the chain of grants is at {acc}");
            acc += d as u32;
        }
        Ok(acc)
    };
    for p in 0..2u8 {
        let out = chain(&|x| x.1, &|x| x.4, p).context("recv_timeslot per destination")?;
        let inn = chain(&|x| x.0, &|x| x.3, p).context("send_timeslot per source")?;
        ensure!(
            b.read(pl2.addr("OUT_RES", p as usize))? == out,
            "OUT_RES[{p}] = {}, the grants sum to {out}",
            b.read(pl2.addr("OUT_RES", p as usize))?
        );
        ensure!(
            b.read(pl2.addr("IN_RES", p as usize))? == inn,
            "IN_RES[{p}] = {}, the grants sum to {inn}",
            b.read(pl2.addr("IN_RES", p as usize))?
        );
    }
    ensure!(b.read(pl2.addr("CONFLICT_DROP", 0))? == 0, "an RSV met the ALU's conflict drop");
    ensure!(b.read(pl2.addr("RSV_OK", 0))? == 2 * n, "RSV_OK {}", b.read(pl2.addr("RSV_OK", 0))?);
    let held = b.read(pl2.addr("HOLD_CYCLES", 0))?;
    eprintln!("pl2 RSV storm on two pipelines: {} GRTs, {held} hold cycles", grants.len());
    ensure!(held > 0, "no RSVs met: the test did not exercise the hold");
    // The switch's RSV->GRT latency registers: what the bench measured.
    for (p, want) in bench_lat.iter().enumerate() {
        let got = (b.read(pl2.addr("GRT_LAT_MIN", p))? as u64, b.read(pl2.addr("GRT_LAT_MAX", p))? as u64);
        ensure!(got == *want, "port {p}: GRT_LAT_MIN/MAX {got:?}, the bench measured {want:?}");
    }
    eprintln!("pl2 RSV storm: RSV -> GRT latency per port (min, max) {bench_lat:?} cycles");
    ensure!(bench_lat.iter().any(|(a, z)| z > a), "every GRT took the same time: the storm queued nothing");
    Ok(())
}

/// The ranks rotate (`alveo-u250`): 24 pairs of RSVs for the same port, the
/// two of a pair entering both pipelines together, pairs apart by a random
/// number of idle cycles. Each pair meets in the hold; which pipeline goes
/// first (the lower `recv_timeslot`) depends on the cycle, and each must go
/// first in some pairs (a fixed priority would always pick pipeline 0).
#[test]
fn two_pipelines_hold_rotates_which_goes_first() -> Result<()> {
    use rand::{Rng, SeedableRng};
    let cfg = config_of("alveo-u250");
    let mut b = SwitchBench::new(&cfg, 13)?;
    b.configure(&cfg)?;
    let pl2 = b.map.window("pl2").clone();
    b.write(pl2.addr("CTRL", 0), Pl2Regs::CTRL_ENABLE | Pl2Regs::CTRL_SLOT_RUN)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let mut first = [0usize; 2];
    let mut out_res = 0u32;
    for i in 0..24u32 {
        b.run(rng.gen_range(40..60));
        for p in 0..2u8 {
            b.srcs[p as usize].push(Packet::new(rsv(p, p, 1, 1, (i << 8) | p as u32, 0), 0));
        }
        b.run(300);
        let mut recv = [0u32; 2];
        for (p, s) in b.sinks.iter_mut().enumerate() {
            no_protocol_errors(s)?;
            ensure!(s.packets.len() == 1, "pair {i}: port {p}: {} packets out, one GRT expected", s.packets.len());
            let f = s.packets.pop_front().context("GRT")?.data;
            recv[p] = u32::from_be_bytes([f[22], f[23], f[24], f[25]]);
        }
        let mut got = recv;
        got.sort();
        ensure!(got == [out_res, out_res + 1], "pair {i}: recv {recv:?}, OUT_RES[1] was {out_res}");
        first[if recv[0] < recv[1] { 0 } else { 1 }] += 1;
        out_res += 2;
    }
    let held = b.read(pl2.addr("HOLD_CYCLES", 0))?;
    eprintln!("pl2 hold: pipeline 0 first in {} pairs, pipeline 1 in {}; {held} hold cycles", first[0], first[1]);
    ensure!(held == 24, "HOLD_CYCLES {held}: every pair should meet once");
    ensure!(first[0] >= 4 && first[1] >= 4, "one pipeline always goes first: {first:?}");
    Ok(())
}

/// `trimswitch replay` carries PL2 (issue 15) on both engines, with 003
/// Fig. 2 as the capture (`PL2-PROTEGO.md` A.6 P1-P4 on netfpga-sume's four
/// ports; hosts H1..H4 on ports 0..3): H1 holds 4 slots of its input (an RSV
/// to H3), H2's output 5 (RSVs from H4, d4, and H3, d1); H1's RSV for H2,
/// d4, then comes back as GRT(send 4, recv 5): "H1 transmits at the maximum
/// of the two timeslots, T = 5". Four data packets H1 -> H2 give 4 slots of
/// `in[0]` and `out[1]` back, a GRT from a host is a counted drop, and H1's
/// next RSV for H2 gets GRT(4, 5) again. Each GRT is in its sender's port
/// pcap with the fields the model predicts; the model and the RTL (the
/// whole switch, frame by frame) write the same files and counters.
#[test]
fn replay_carries_pl2_fig2_on_model_and_rtl() -> Result<()> {
    use std::collections::BTreeMap;
    use trimswitch_sim::packet::pcap::{self, PcapWriter};
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-pl2-fig2");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let host_grt = {
        let m = Pl2 { kind: Pl2::GRT, demand: 1, src_port: 3, dst_port: 0, ..Pl2::default() };
        Frame { dst: ROUTER, src: host(3), vlans: vec![], protego: None, l3: L3::Pl2(m), l4: L4::None, payload: vec![] }.to_wire()
    };
    let mut capture: Vec<(usize, Vec<u8>)> =
        vec![(0, rsv(0, 0, 2, 4, 1, 0)), (3, rsv(3, 3, 1, 4, 2, 0)), (2, rsv(2, 2, 1, 1, 3, 0)), (0, rsv(0, 0, 1, 4, 4, 0))];
    capture.extend((0..4).map(|_| (0, data(0, 1, 0))));
    capture.push((3, host_grt));
    capture.push((0, rsv(0, 0, 1, 4, 10, 0)));
    // One file per port, capture times in the order above (the order the
    // ALU must see them in); the FCS removed, as tcpdump captures.
    let mut writers: BTreeMap<usize, PcapWriter> = BTreeMap::new();
    for (i, (p, f)) in capture.iter().enumerate() {
        let w = match writers.entry(*p) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => e.insert(PcapWriter::create(&dir.join(format!("in{p}.pcap")))?),
        };
        w.write(1_000 * (i as u64 + 1), &f[..f.len() - 4])?;
    }
    for (_, w) in writers {
        w.finish()?;
    }
    let input = [0, 2, 3].map(|p| format!("{p}={}", dir.join(format!("in{p}.pcap")).display())).join(",");
    let mut runs = vec![];
    for (engine, flag) in [("model", Some("--model")), ("rtl", None)] {
        let out = dir.join(engine);
        let mut args = vec!["replay", "--config", "configs/netfpga-sume.toml", "--set", "pl2.enable=true", "--in", &input, "--out-dir"];
        let o = out.to_string_lossy().into_owned();
        args.push(&o);
        args.extend(flag);
        let r =
            std::process::Command::new(env!("CARGO_BIN_EXE_trimswitch")).args(&args).current_dir(env!("CARGO_MANIFEST_DIR")).output()?;
        let (so, se) = (String::from_utf8_lossy(&r.stdout), String::from_utf8_lossy(&r.stderr));
        eprintln!("{engine}:\n{so}{se}");
        ensure!(r.status.success(), "{engine}: replay failed: {se}");
        runs.push(out);
    }
    // The GRTs, from the files: (port, cookie) -> (kind, demand, send, recv).
    let grts = |out: &std::path::Path, p: usize| -> Result<Vec<(u32, u8, u32, u32)>> {
        let mut v = vec![];
        for rec in pcap::read(&out.join(format!("port{p}.pcap")))? {
            let f = &rec.data;
            if f[12..14] != trimswitch_sim::packet::frame::ethertype::PL2.to_be_bytes() {
                continue;
            }
            let m = Pl2::parse(&f[14..]).context("a PL2 message")?;
            ensure!(
                m.kind == Pl2::GRT && f[..6] == host(p as u8) && f[6..12] == ROUTER,
                "port {p}: not a GRT to its host: {:02x?}",
                &f[..20]
            );
            v.push((m.cookie, m.demand, m.send_timeslot, m.recv_timeslot));
        }
        Ok(v)
    };
    for out in &runs {
        ensure!(grts(out, 0)? == vec![(1, 4, 0, 0), (4, 4, 4, 5), (10, 4, 4, 5)], "port 0 GRTs {:?}", grts(out, 0)?);
        ensure!(grts(out, 3)? == vec![(2, 4, 0, 0)], "port 3 GRTs {:?}", grts(out, 3)?);
        ensure!(grts(out, 2)? == vec![(3, 1, 0, 4)], "port 2 GRTs {:?}", grts(out, 2)?);
        ensure!(pcap::read(&out.join("port1.pcap"))?.len() == 4, "the four data packets to H2");
    }
    for n in 0..4 {
        let f = format!("port{n}.pcap");
        ensure!(std::fs::read(runs[0].join(&f))? == std::fs::read(runs[1].join(&f))?, "{f}: model and RTL files differ");
    }
    let counters = |out: &std::path::Path| -> Result<BTreeMap<String, u64>> {
        let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("counters.json"))?)?;
        Ok(serde_json::from_value(j["counters"].clone())?)
    };
    let (m, r) = (counters(&runs[0])?, counters(&runs[1])?);
    ensure!(m == r, "counters.json: model and RTL differ");
    for (k, want) in [("pl2.rsv_ok", 5), ("pl2.grt_from_host", 1), ("pl2.data_pkts", 4), ("pl2.conflict_drop", 0)] {
        ensure!(m.get(k) == Some(&want), "{k} = {:?}, want {want}", m.get(k));
    }
    Ok(())
}

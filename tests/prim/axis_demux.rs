//! `ts_axis_demux` in Verilator at 64 and 512 bits.
use crate::common;
use anyhow::{ensure, Context, Result};
use common::*;
use rand::Rng;
use trimswitch_hdl::axis::demux::{AxisDemux, DEST_DROP};
use trimswitch_hdl::meta::tuser;
use trimswitch_sim::agents::axis::{check_packets, AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::{model_of, Traffic};
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::ModelLib;

const N: usize = 4;

/// Golden model: where each packet goes (`None` = drop destination).
fn route(p: &Packet) -> Option<usize> {
    let dest = ((p.user >> trimswitch_hdl::meta::DEST_PORT_LSB) & 0xff) as usize;
    (dest as u64 != DEST_DROP && dest < N).then_some(dest)
}

fn random(width: usize) -> Result<()> {
    random_in(width, 0.2, [0.9, 0.5, 0.3, 1.0], MIN_CYCLES as usize / 3, MIN_CYCLES)
}

/// `beats` beats of random packets to every destination, the source idling
/// `idle` of its cycles, output `i` ready `ready[i]` of its cycles.
/// The demux with N outputs at `width` bits (64-bit `tuser`).
fn model(width: usize) -> Result<ModelLib> {
    with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| model_of(
        &mut AxisDemux::<D, K, U>::new(N, 8),
        "ts_axis_demux",
        &format!("d{D}_u{U}_n4")
    ))
    .context("a tested width")?
}

fn random_in(width: usize, idle: f64, ready: [f64; N], min_beats: usize, min_cycles: u64) -> Result<()> {
    let lib = model(width)?;
    let m = lib.instantiate();
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), 1)?;
    let mut sinks = (0..N).map(|i| AxisSink::new(&m, &AxisPorts::indexed("m", i), 10 + i as u64)).collect::<Result<Vec<_>>>()?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    src.idle_prob = idle;
    for (i, s) in sinks.iter_mut().enumerate() {
        s.ready_prob = ready[i];
    }
    let beat = width / 8;
    let mut t = Traffic::new(2);
    let mut sent = vec![];
    let mut beats = 0;
    while beats < min_beats {
        let len = t.length(1, 16 * beat, beat);
        beats += len.div_ceil(beat);
        // Destinations 0..N plus invalid ones: N, 200 and the drop code.
        let dest = [0u8, 1, 2, 3, 0, 1, 2, 3, N as u8, 200, DEST_DROP as u8][t.rng.gen_range(0..11)];
        sent.push(t.packet(len, tuser(0, dest, len as u16) | (sent.len() as u128) << 40));
    }
    let mut expected: Vec<Vec<Packet>> = vec![vec![]; N];
    let mut drops = 0;
    for p in &sent {
        match route(p) {
            Some(d) => expected[d].push(p.clone()),
            None => drops += 1,
        }
    }
    push_all(&mut src, sent.clone());
    for (s, e) in sinks.iter_mut().zip(&expected) {
        s.expect(e.len() as u64);
    }
    let mut agents: Vec<&mut dyn Agent> = vec![&mut src];
    agents.extend(sinks.iter_mut().map(|s| s as &mut dyn Agent));
    run_for(&mut tb, &mut agents, min_cycles, 20 * MIN_CYCLES)?;
    for (i, s) in sinks.iter_mut().enumerate() {
        no_protocol_errors(s)?;
        let got: Vec<Packet> = s.packets.drain(..).collect();
        check_packets(&expected[i], &got).map_err(|e| e.context(format!("output {i}")))?;
    }
    let dp = tb.model.port("drop_pkts")?;
    ensure!(tb.model.get(&dp) == drops, "drop_pkts {} expected {drops}", tb.model.get(&dp));
    ensure!(drops > 0 && expected.iter().all(|e| !e.is_empty()), "every destination must be exercised");
    Ok(())
}

/// Idle gaps x backpressure on every output ([`MATRIX`]) at both widths.
#[test]
fn matrix() -> Result<()> {
    for w in [64, 512] {
        for_matrix(|c| random_in(w, c.idle_prob, [c.ready_prob; N], 3000, 0))?;
    }
    Ok(())
}

#[test]
fn random_64() -> Result<()> {
    random(64)
}

#[test]
fn random_512() -> Result<()> {
    random(512)
}

/// A reset in the middle of a packet (held in the input slice) discards it,
/// zeroes the drop counter, and the next packets route exactly.
#[test]
fn reset_mid_packet() -> Result<()> {
    let lib = model(64)?;
    let m = lib.instantiate();
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), 3)?;
    let mut sinks = (0..N).map(|i| AxisSink::new(&m, &AxisPorts::indexed("m", i), 30 + i as u64)).collect::<Result<Vec<_>>>()?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    let mut t = Traffic::new(4);
    src.push(t.packet(8, tuser(0, DEST_DROP as u8, 8)));
    src.push(t.packet(100, tuser(0, 2, 100)));
    for s in sinks.iter_mut() {
        s.ready_prob = 0.0;
    }
    let mut agents: Vec<&mut dyn Agent> = vec![&mut src];
    agents.extend(sinks.iter_mut().map(|s| s as &mut dyn Agent));
    tb.run(&mut agents, 6);
    src.abort();
    for s in sinks.iter_mut() {
        s.abort();
        s.ready_prob = 0.7;
    }
    tb.reset(1);
    let dp = tb.model.port("drop_pkts")?;
    ensure!(tb.model.get(&dp) == 0, "drop counter survived reset");
    let mut expected: Vec<Vec<Packet>> = vec![vec![]; N];
    for k in 0..60u128 {
        let dest = (k % 5) as u8; // 4 is not a port: dropped
        let p = t.packet(1 + (k as usize * 13) % 90, tuser(0, dest, 0) | k << 40);
        if let Some(d) = route(&p) {
            expected[d].push(p.clone());
        }
        src.push(p);
    }
    for (s, e) in sinks.iter_mut().zip(&expected) {
        s.expect(e.len() as u64);
    }
    let mut agents: Vec<&mut dyn Agent> = vec![&mut src];
    agents.extend(sinks.iter_mut().map(|s| s as &mut dyn Agent));
    tb.run_until_idle(&mut agents, 100_000)?;
    for (i, s) in sinks.iter_mut().enumerate() {
        no_protocol_errors(s)?;
        let got: Vec<Packet> = s.packets.drain(..).collect();
        check_packets(&expected[i], &got).map_err(|e| e.context(format!("output {i}")))?;
    }
    ensure!(tb.model.get(&dp) == 12, "drop_pkts {} after reset, expected 12", tb.model.get(&dp));
    Ok(())
}

/// The destination is read on a packet's first beat only: later beats that
/// name another output (or the drop code) follow the first, and a packet
/// whose first beat names the drop code is dropped whole and counted once.
#[test]
fn destination_is_held_from_the_first_beat() -> Result<()> {
    let lib = model(64)?;
    let m = lib.instantiate();
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    let p = |n: &str| tb.model.port(n);
    let (sv, sd, sk, sl, su, sr) = (p("s_tvalid")?, p("s_tdata")?, p("s_tkeep")?, p("s_tlast")?, p("s_tuser")?, p("s_tready")?);
    let mv = (0..N).map(|i| p(&format!("m_tvalid_{i}"))).collect::<Result<Vec<_>>>()?;
    let ml = (0..N).map(|i| p(&format!("m_tlast_{i}"))).collect::<Result<Vec<_>>>()?;
    let dp = p("drop_pkts")?;
    for i in 0..N {
        let r = tb.model.port(&format!("m_tready_{i}"))?;
        tb.model.set(&r, 1);
    }
    // (destination in tuser, tlast) per beat: three packets.
    let drop = DEST_DROP as u8;
    let mut beats: std::collections::VecDeque<(u8, bool)> =
        [(1, false), (3, false), (drop, true), (drop, false), (0, true), (2, true)].into_iter().collect();
    let mut out = [0u32; N];
    let mut lasts = [0u32; N];
    for _ in 0..40 {
        let head = beats.front().copied();
        tb.model.set(&sv, head.is_some() as u64);
        let (dest, last) = head.unwrap_or((0, false));
        tb.model.set(&sd, 0x0123_4567_89ab_cdef);
        tb.model.set(&sk, 0xff);
        tb.model.set(&sl, last as u64);
        tb.model.set(&su, tuser(0, dest, 8) as u64);
        let taken = head.is_some() && tb.model.get(&sr) == 1;
        for i in 0..N {
            if tb.model.get(&mv[i]) == 1 {
                out[i] += 1;
                lasts[i] += tb.model.get(&ml[i]) as u32;
            }
        }
        tb.step(&mut []);
        if taken {
            beats.pop_front();
        }
    }
    ensure!(beats.is_empty(), "{} beats were not taken", beats.len());
    ensure!(
        out == [0, 3, 1, 0] && lasts == [0, 1, 1, 0],
        "beats per output {out:?} (last beats {lasts:?}), expected [0, 3, 1, 0] ([0, 1, 1, 0])"
    );
    ensure!(tb.model.get(&dp) == 1, "drop_pkts {}, expected 1", tb.model.get(&dp));
    Ok(())
}

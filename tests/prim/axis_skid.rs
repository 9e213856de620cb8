//! `ts_axis_skid` in Verilator at 64 and 512 bits.
use crate::common;
use anyhow::{ensure, Context, Result};
use common::*;
use trimswitch_hdl::axis::skid::AxisSkid;
use trimswitch_sim::agents::axis::{check_packets, AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::{model_of, Traffic};
use trimswitch_sim::harness::tb::Tb;

fn bench(width: usize, seed: u64) -> Result<(Tb, AxisSource, AxisSink)> {
    let lib = with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| model_of(
        &mut AxisSkid::<D, K, U>::default(),
        "ts_axis_skid",
        &format!("d{D}_u{U}")
    ))
    .context("a tested width")??;
    let m = lib.instantiate();
    let src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    let sink = AxisSink::new(&m, &AxisPorts::master("m").with_bytes("m_bytes"), seed + 1)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    Ok((tb, src, sink))
}

/// Random packets, random idle gaps and random backpressure for at least
/// MIN_CYCLES: the output equals the input packet by packet.
fn random(width: usize) -> Result<()> {
    random_in(width, Cell { idle_prob: 0.3, ready_prob: 0.5 }, MIN_CYCLES as usize / 2, MIN_CYCLES)
}

/// Random packets of `beats` beats in all through the slice in `cell`.
fn random_in(width: usize, cell: Cell, beats: usize, min_cycles: u64) -> Result<()> {
    let (mut tb, mut src, mut sink) = bench(width, 1)?;
    src.idle_prob = cell.idle_prob;
    sink.ready_prob = cell.ready_prob;
    let beat = width / 8;
    let mut t = Traffic::new(2);
    let sent = t.packets_for_beats(beats, beat, 1, 24 * beat, |i| 0xabc0_0000 | i as u128);
    let beats: usize = sent.iter().map(|p| p.data.len().div_ceil(beat)).sum();
    push_all(&mut src, sent.clone());
    sink.expect(sent.len() as u64);
    let cycles = run_for(&mut tb, &mut [&mut src, &mut sink], min_cycles, 10 * MIN_CYCLES)?;
    no_protocol_errors(&sink)?;
    let got: Vec<Packet> = sink.packets.drain(..).collect();
    check_packets(&sent, &got)?;
    eprintln!("skid/{width}: {} packets, {beats} beats in {cycles} cycles", sent.len());
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

/// Idle gaps x backpressure ([`MATRIX`]) at both widths.
#[test]
fn matrix() -> Result<()> {
    for w in [64, 512] {
        for_matrix(|c| random_in(w, c, 3000, 0))?;
    }
    Ok(())
}

/// Full throughput and fixed latency: with the sink always ready, N beats take
/// N + 1 cycles (one register stage), and the sink's readiness toggling every
/// cycle still moves one beat per ready cycle.
#[test]
fn throughput_and_latency() -> Result<()> {
    let (mut tb, mut src, mut sink) = bench(512, 3)?;
    let mut t = Traffic::new(4);
    let n = 2000;
    let sent = push_all(&mut src, (0..n).map(|i| t.packet(64, i as u128)).collect());
    sink.expect(n);
    let cycles = tb.run_until_idle(&mut [&mut src, &mut sink], 10 * n)?;
    ensure!(cycles == n + 1, "{n} beats took {cycles} cycles, expected {}", n + 1);
    let got: Vec<Packet> = sink.packets.drain(..).collect();
    check_packets(&sent, &got)
}

/// A reset in the middle of a packet discards what the slice holds; the
/// next packets pass untouched.
#[test]
fn reset_mid_packet() -> Result<()> {
    let (mut tb, mut src, mut sink) = bench(64, 5)?;
    let mut t = Traffic::new(6);
    sink.ready_prob = 0.0;
    src.push(t.packet(200, 1));
    tb.run(&mut [&mut src, &mut sink], 5);
    src.abort();
    sink.abort();
    tb.reset(1);
    let valid = tb.model.port("m_tvalid")?;
    ensure!(tb.model.get(&valid) == 0, "output still valid after reset");
    sink.ready_prob = 0.6;
    let sent = push_all(&mut src, (0..40).map(|i| t.packet(1 + 13 * i, 100 + i as u128)).collect());
    sink.expect(sent.len() as u64);
    tb.run_until_idle(&mut [&mut src, &mut sink], 10_000)?;
    no_protocol_errors(&sink)?;
    let got: Vec<Packet> = sink.packets.drain(..).collect();
    check_packets(&sent, &got)
}

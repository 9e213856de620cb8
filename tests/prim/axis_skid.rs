//! `ts_axis_skid` in Verilator at 64 and 512 bits, as the default slice
//! (output registers) and as [`AxisSkid::muxed`] (a two-entry ring read
//! through a multiplexer).
use crate::common;
use anyhow::{ensure, Context, Result};
use common::*;
use trimswitch_hdl::axis::skid::AxisSkid;
use trimswitch_sim::agents::axis::{check_packets, AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::{model_of, Traffic};
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};

fn bench(width: usize, seed: u64, muxed: bool) -> Result<(Tb, AxisSource, AxisSink)> {
    let lib = with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| if muxed {
        model_of(&mut AxisSkid::<D, K, U>::muxed(), "ts_axis_skid", &format!("d{D}_u{U}_muxed"))
    } else {
        model_of(&mut AxisSkid::<D, K, U>::default(), "ts_axis_skid", &format!("d{D}_u{U}"))
    })
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
fn random(width: usize, muxed: bool) -> Result<()> {
    random_in(width, muxed, Cell { idle_prob: 0.3, ready_prob: 0.5 }, MIN_CYCLES as usize / 2, MIN_CYCLES)
}

/// Random packets of `beats` beats in all through the slice in `cell`.
fn random_in(width: usize, muxed: bool, cell: Cell, beats: usize, min_cycles: u64) -> Result<()> {
    let (mut tb, mut src, mut sink) = bench(width, 1, muxed)?;
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
    eprintln!("skid/{width}{}: {} packets, {beats} beats in {cycles} cycles", if muxed { "/muxed" } else { "" }, sent.len());
    Ok(())
}

#[test]
fn random_64() -> Result<()> {
    random(64, false)
}

#[test]
fn random_512() -> Result<()> {
    random(512, false)
}

#[test]
fn random_muxed_64() -> Result<()> {
    random(64, true)
}

#[test]
fn random_muxed_512() -> Result<()> {
    random(512, true)
}

/// Idle gaps x backpressure ([`MATRIX`]) at both widths, both kinds.
#[test]
fn matrix() -> Result<()> {
    for muxed in [false, true] {
        for w in [64, 512] {
            for_matrix(|c| random_in(w, muxed, c, 3000, 0))?;
        }
    }
    Ok(())
}

/// Full throughput and fixed latency: with the sink always ready, N beats take
/// N + 1 cycles (one register stage), and the sink's readiness toggling every
/// cycle still moves one beat per ready cycle. Both kinds.
#[test]
fn throughput_and_latency() -> Result<()> {
    for muxed in [false, true] {
        let (mut tb, mut src, mut sink) = bench(512, 3, muxed)?;
        let mut t = Traffic::new(4);
        let n = 2000;
        let sent = push_all(&mut src, (0..n).map(|i| t.packet(64, i as u128)).collect());
        sink.expect(n);
        let cycles = tb.run_until_idle(&mut [&mut src, &mut sink], 10 * n)?;
        ensure!(cycles == n + 1, "muxed {muxed}: {n} beats took {cycles} cycles, expected {}", n + 1);
        let got: Vec<Packet> = sink.packets.drain(..).collect();
        check_packets(&sent, &got)?;
    }
    Ok(())
}

/// A reset in the middle of a packet discards what the slice holds; the
/// next packets pass untouched.
#[test]
fn reset_mid_packet() -> Result<()> {
    reset_mid_packet_in(false)
}

/// [`reset_mid_packet`] for [`AxisSkid::muxed`].
#[test]
fn reset_mid_packet_muxed() -> Result<()> {
    reset_mid_packet_in(true)
}

fn reset_mid_packet_in(muxed: bool) -> Result<()> {
    let (mut tb, mut src, mut sink) = bench(64, 5, muxed)?;
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

/// The sideband a beat enters with, folded from its data and `tlast`.
fn side_of(data: u64, last: u64) -> u64 {
    (data ^ (data >> 16) ^ (data >> 32) ^ (data >> 48) ^ (last << 15)) & 0xffff
}

/// Drives `s_side_0` from the beat offered on `s_*` (after the source has
/// driven it) and checks that every beat leaving on `m_*` carries the
/// sideband it entered with.
struct SideCheck {
    /// `s_tdata`, `s_tlast`, `s_side_0`.
    s: [Port; 3],
    /// `m_tvalid`, `m_tready`, `m_tdata`, `m_tlast`, `m_side_0`.
    m: [Port; 5],
    beats: u64,
    wrong: Vec<String>,
}

impl Agent for SideCheck {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let side = side_of(m.get(&self.s[0]), m.get(&self.s[1]));
        m.set(&self.s[2], side);
    }
    fn sample(&mut self, m: &Model, cycle: u64) {
        if m.get(&self.m[0]) == 1 && m.get(&self.m[1]) == 1 {
            self.beats += 1;
            let (want, got) = (side_of(m.get(&self.m[2]), m.get(&self.m[3])), m.get(&self.m[4]));
            if want != got && self.wrong.len() < 5 {
                self.wrong.push(format!("cycle {cycle}: m_side_0 {got:#06x}, the beat entered with {want:#06x}"));
            }
        }
    }
}

/// A slice with a 16-bit sideband ([`AxisSkid::with_side`]) across the
/// matrix of idle gaps and backpressure: the packets pass untouched and each
/// beat leaves with the sideband it entered with (the demultiplexer carries
/// its decoded destination this way). Both kinds.
#[test]
fn sideband_moves_with_its_beat() -> Result<()> {
    let plain = model_of(&mut AxisSkid::<64, 8, 64, 16>::with_side(), "ts_axis_skid", "d64_u64_side16")?;
    let muxed = model_of(&mut AxisSkid::<64, 8, 64, 16>::muxed_with_side(), "ts_axis_skid", "d64_u64_side16_muxed")?;
    for lib in [plain, muxed] {
        for_matrix(|cell| {
            let m = lib.instantiate();
            let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), 11)?;
            let mut sink = AxisSink::new(&m, &AxisPorts::master("m"), 12)?;
            src.idle_prob = cell.idle_prob;
            sink.ready_prob = cell.ready_prob;
            let p = |n: &str| m.port(n);
            let mut side = SideCheck {
                s: [p("s_tdata")?, p("s_tlast")?, p("s_side_0")?],
                m: [p("m_tvalid")?, p("m_tready")?, p("m_tdata")?, p("m_tlast")?, p("m_side_0")?],
                beats: 0,
                wrong: vec![],
            };
            let mut tb = Tb::new(m, "clock", Some("reset"))?;
            tb.reset(2);
            let mut t = Traffic::new(13);
            let sent = t.packets_for_beats(3000, 8, 1, 24 * 8, |i| i as u128);
            let beats: u64 = sent.iter().map(|p| p.data.len().div_ceil(8) as u64).sum();
            push_all(&mut src, sent.clone());
            sink.expect(sent.len() as u64);
            tb.run_until_idle(&mut [&mut src, &mut sink, &mut side], 100 * beats)?;
            no_protocol_errors(&sink)?;
            let got: Vec<Packet> = sink.packets.drain(..).collect();
            check_packets(&sent, &got)?;
            ensure!(side.wrong.is_empty(), "{}", side.wrong.join("; "));
            ensure!(side.beats == beats, "the sideband was checked on {} beats of {beats}", side.beats);
            Ok(())
        })?;
    }
    Ok(())
}

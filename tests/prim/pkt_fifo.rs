//! `ts_pkt_fifo` in Verilator, at 64 and 512 bits, both modes.
use crate::common;
use anyhow::{ensure, Context, Result};
use common::*;
use trimswitch_hdl::axis::pkt_fifo::{PktFifo, OBUF};
use trimswitch_sim::agents::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::{model_of, Traffic};
use trimswitch_sim::harness::tb::Tb;
use trimswitch_sim::harness::verilator::ModelLib;

const USER: u128 = 0x5eed_0000_0000;

fn model(width: usize, depth: usize, store_forward: bool) -> Result<ModelLib> {
    model_spare(width, depth, store_forward, false)
}

/// `spare`: [`PktFifo::with_spare_slot`] (cut-through).
fn model_spare(width: usize, depth: usize, store_forward: bool, spare: bool) -> Result<ModelLib> {
    let tag = format!("d{width}_n{depth}_{}{}", if store_forward { "sf" } else { "ct" }, if spare { "_spare" } else { "" });
    with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| {
        let f = PktFifo::<D, K, U, M, W>::new(depth, store_forward);
        model_of(&mut if spare { f.with_spare_slot() } else { f }, "ts_pkt_fifo", &tag)
    })
    .context("a tested width")?
}

struct Bench {
    tb: Tb,
    src: AxisSource,
    sink: AxisSink,
    beat: usize,
}

fn bench(width: usize, depth: usize, sf: bool, seed: u64) -> Result<Bench> {
    bench_of(model(width, depth, sf)?, width, seed)
}

fn bench_of(lib: ModelLib, width: usize, seed: u64) -> Result<Bench> {
    let m = lib.instantiate();
    let src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    let sink = AxisSink::new(&m, &AxisPorts::master("m").with_bytes("m_bytes"), seed + 1)?;
    let beat = width / 8;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(4);
    Ok(Bench { tb, src, sink, beat })
}

impl Bench {
    fn get(&self, port: &str) -> u64 {
        let p = self.tb.model.port(port).unwrap();
        self.tb.model.get(&p)
    }
    fn set(&mut self, port: &str, v: u64) {
        let p = self.tb.model.port(port).unwrap();
        self.tb.model.set(&p, v);
    }
    /// Runs until the source is drained and the FIFO is empty.
    fn drain(&mut self, min_cycles: u64, max_cycles: u64) -> Result<u64> {
        let occ = self.tb.model.port("occ_pkts")?;
        let valid = self.tb.model.port("m_tvalid")?;
        let start = self.tb.cycle();
        let (src, sink) = (&mut self.src, &mut self.sink);
        self.tb.run_until(&mut [src, sink], max_cycles, |tb, agents| {
            tb.cycle() - start >= min_cycles && agents.iter().all(|a| a.idle()) && tb.model.get(&occ) == 0 && tb.model.get(&valid) == 0
        })
    }
}

/// Store-and-forward under heavy random backpressure: every packet comes out
/// whole and in order or is dropped whole, and `drop_pkts` counts exactly the
/// missing ones.
fn sf_conservation(width: usize) -> Result<()> {
    let depth = 48;
    let mut b = bench(width, depth, true, 11)?;
    b.src.idle_prob = 0.2;
    b.sink.ready_prob = 0.4;
    let mut t = Traffic::new(7);
    // Enough traffic for ~MIN_CYCLES at the source's pace; some packets are
    // larger than the whole FIFO and can never be admitted.
    let max_len = depth * b.beat + 2 * b.beat;
    let sent = t.packets_for_beats(MIN_CYCLES as usize * 8 / 10, b.beat, 1, max_len, |i| USER | i as u128);
    push_all(&mut b.src, sent.clone());
    let cycles = b.drain(MIN_CYCLES, 40 * MIN_CYCLES)?;
    no_protocol_errors(&b.sink)?;
    let got: Vec<Packet> = b.sink.packets.drain(..).collect();
    let missing = subsequence(&sent, &got)?;
    ensure!(missing.len() as u64 == b.get("drop_pkts"), "{} packets missing, drop_pkts = {}", missing.len(), b.get("drop_pkts"));
    ensure!(
        !missing.is_empty() && got.len() > sent.len() / 4,
        "test did not exercise both outcomes: {} dropped of {}",
        missing.len(),
        sent.len()
    );
    ensure!(b.get("occ_bytes") == 0 && b.get("occ_pkts") == 0, "occupancy not zero when empty");
    eprintln!("sf_conservation/{width}: {cycles} cycles, {} packets, {} dropped", sent.len(), missing.len());
    Ok(())
}

#[test]
fn sf_conservation_64() -> Result<()> {
    sf_conservation(64)
}

#[test]
fn sf_conservation_512() -> Result<()> {
    sf_conservation(512)
}

/// With the output stalled, which packets fit is exactly predictable: a
/// packet of `n` beats is admitted iff the beats in RAM plus `n` do not exceed
/// the depth. Up to `OBUF` beats of the head packet leave RAM for the output
/// buffer (read-ahead), so the model counts them out.
fn sf_stalled_model(width: usize) -> Result<()> {
    let depth = 16;
    let mut b = bench(width, depth, true, 21)?;
    // The sink takes no part until the drain: the output stays stalled.
    b.set("m_tready", 0);
    let mut t = Traffic::new(3);
    let (mut stored_beats, mut stored, mut dropped) = (0usize, vec![], 0u64);
    for i in 0..40 {
        let len = t.length(1, (depth + OBUF) * b.beat, b.beat);
        let p = t.packet(len, USER | i);
        let beats = len.div_ceil(b.beat);
        let in_ram = stored_beats - stored_beats.min(OBUF);
        if in_ram + beats <= depth {
            stored_beats += beats;
            stored.push(p.clone());
        } else {
            dropped += 1;
        }
        b.src.push(p);
        b.tb.run_until_idle(&mut [&mut b.src], 10_000)?;
        b.tb.run(&mut [&mut b.src], 4);
        let bytes: usize = stored.iter().map(|p| p.data.len()).sum();
        ensure!(b.get("drop_pkts") == dropped, "after packet {i} ({beats} beats): drop_pkts {} expected {dropped}", b.get("drop_pkts"));
        ensure!(b.get("occ_pkts") == stored.len() as u64, "after packet {i}: occ_pkts {} expected {}", b.get("occ_pkts"), stored.len());
        ensure!(b.get("occ_bytes") == bytes as u64, "after packet {i}: occ_bytes {} expected {bytes}", b.get("occ_bytes"));
    }
    ensure!(dropped > 5 && stored.len() > 2, "model exercised too little: {dropped} dropped, {} stored", stored.len());
    b.sink.expect(stored.len() as u64);
    b.drain(0, 10_000)?;
    let got: Vec<Packet> = b.sink.packets.drain(..).collect();
    trimswitch_sim::agents::axis::check_packets(&stored, &got)?;
    // Clear-on-write of the drop counter.
    b.set("clear_drops", 1);
    b.tb.run(&mut [], 1);
    b.set("clear_drops", 0);
    b.tb.run(&mut [], 1);
    ensure!(b.get("drop_pkts") == 0, "clear_drops did not zero drop_pkts");
    Ok(())
}

#[test]
fn sf_stalled_model_64() -> Result<()> {
    sf_stalled_model(64)
}

#[test]
fn sf_stalled_model_512() -> Result<()> {
    sf_stalled_model(512)
}

/// Cut-through never drops: under random idle gaps and backpressure the
/// output is exactly the input.
fn ct_exact(width: usize) -> Result<()> {
    ct_exact_in(width, Cell { idle_prob: 0.3, ready_prob: 0.5 }, MIN_CYCLES as usize / 3, MIN_CYCLES)
}

/// Cut-through, `beats` beats of random packets in `cell`: output = input.
fn ct_exact_in(width: usize, cell: Cell, beats: usize, min_cycles: u64) -> Result<()> {
    let mut b = bench(width, 16, false, 31)?;
    b.src.idle_prob = cell.idle_prob;
    b.sink.ready_prob = cell.ready_prob;
    let mut t = Traffic::new(5);
    let sent = t.packets_for_beats(beats, b.beat, 1, 40 * b.beat, |i| USER | i as u128);
    push_all(&mut b.src, sent.clone());
    b.sink.expect(sent.len() as u64);
    b.drain(min_cycles, 20 * MIN_CYCLES)?;
    no_protocol_errors(&b.sink)?;
    let got: Vec<Packet> = b.sink.packets.drain(..).collect();
    trimswitch_sim::agents::axis::check_packets(&sent, &got)?;
    ensure!(b.get("drop_pkts") == 0, "cut-through dropped");
    Ok(())
}

/// [`PktFifo::with_spare_slot`] (the parser's PHV queue): with the output
/// stalled it takes exactly one beat less than the plain cut-through FIFO of
/// the same depth, and under idle gaps and backpressure its output is its
/// input, though its RAM is written in every cycle.
#[test]
fn ct_spare_slot() -> Result<()> {
    let mut taken = vec![];
    for spare in [false, true] {
        let mut b = bench_of(model_spare(64, 16, false, spare)?, 64, 7)?;
        b.sink.ready_prob = 0.0;
        let mut t = Traffic::new(9);
        push_all(&mut b.src, t.packets_for_beats(40, b.beat, 1, b.beat, |i| USER | i as u128));
        b.tb.run(&mut [&mut b.src, &mut b.sink], 200);
        ensure!(b.get("s_tready") == 0, "spare {spare}: still ready with the output stalled");
        taken.push(b.src.first_cycles.len());
    }
    ensure!(taken[1] + 1 == taken[0], "beats taken with the output stalled: plain {}, spare slot {}", taken[0], taken[1]);
    for c in [Cell { idle_prob: 0.0, ready_prob: 0.3 }, Cell { idle_prob: 0.3, ready_prob: 0.5 }, Cell { idle_prob: 0.5, ready_prob: 1.0 }]
    {
        let mut b = bench_of(model_spare(64, 16, false, true)?, 64, 31)?;
        b.src.idle_prob = c.idle_prob;
        b.sink.ready_prob = c.ready_prob;
        let mut t = Traffic::new(5);
        let sent = t.packets_for_beats(2000, b.beat, 1, 40 * b.beat, |i| USER | i as u128);
        push_all(&mut b.src, sent.clone());
        b.sink.expect(sent.len() as u64);
        b.drain(0, 20 * MIN_CYCLES)?;
        no_protocol_errors(&b.sink)?;
        let got: Vec<Packet> = b.sink.packets.drain(..).collect();
        trimswitch_sim::agents::axis::check_packets(&sent, &got)?;
    }
    Ok(())
}

/// Cut-through under idle gaps x backpressure ([`MATRIX`]) at both widths.
#[test]
fn ct_matrix() -> Result<()> {
    for w in [64, 512] {
        for_matrix(|c| ct_exact_in(w, c, 3000, 0))?;
    }
    Ok(())
}

#[test]
fn ct_exact_64() -> Result<()> {
    ct_exact(64)
}

#[test]
fn ct_exact_512() -> Result<()> {
    ct_exact(512)
}

/// Cycle counts: cut-through forwards the first beat before the last one
/// arrives; store-and-forward only after. Back-to-back single-beat packets
/// stream at one beat per cycle in both modes.
#[test]
fn latency_and_throughput() -> Result<()> {
    for sf in [false, true] {
        let mut b = bench(512, 64, sf, 41)?;
        let mut t = Traffic::new(9);
        b.sink.expect(1);
        b.src.push(t.packet(10 * 64, USER));
        let start = b.tb.cycle();
        let valid = b.tb.model.port("m_tvalid")?;
        let first_out = b.tb.run_until(&mut [&mut b.src, &mut b.sink], 100, |tb, _| tb.model.get(&valid) == 1)?;
        b.drain(0, 100)?;
        let _ = start;
        if sf {
            ensure!(first_out >= 10, "store-and-forward: first beat out after {first_out} cycles, before the 10th beat in");
        } else {
            ensure!(first_out <= 4, "cut-through: first beat out after {first_out} cycles");
        }
        eprintln!("latency {} first beat: {first_out} cycles", if sf { "store-and-forward" } else { "cut-through" });
        // Throughput: 1000 one-beat packets, source and sink never idle.
        let n = 1000u64;
        for i in 0..n {
            b.src.push(t.packet(64, USER | i as u128));
        }
        b.sink.expect(n);
        let cycles = b.drain(0, 10 * n)?;
        ensure!(cycles <= n + 8, "{n} single-beat packets took {cycles} cycles (mode sf={sf})");
        b.sink.packets.clear();
    }
    Ok(())
}

/// A reset in the middle of a packet empties the FIFO, zeroes the counters,
/// and the next packets pass untouched.
fn reset_mid_packet(sf: bool) -> Result<()> {
    let mut b = bench(64, 32, sf, 51)?;
    let mut t = Traffic::new(13);
    b.sink.ready_prob = 0.0;
    b.src.push(t.packet(100, USER));
    b.src.push(t.packet(20 * 8, USER | 1));
    b.tb.run(&mut [&mut b.src, &mut b.sink], 16 + 5); // first packet in, second half-way
    ensure!(b.get("occ_pkts") >= 1, "first packet not stored before the reset");
    b.src.abort();
    b.sink.abort();
    b.tb.reset(3);
    ensure!(b.get("occ_pkts") == 0 && b.get("occ_bytes") == 0 && b.get("m_tvalid") == 0, "reset left state behind");
    // Packets that always fit (at most 13 of 32 beats, sink always ready), so
    // nothing may be dropped after the reset.
    let sent: Vec<Packet> = (0..50).map(|i| t.packet(1 + 2 * i, USER | (100 + i as u128))).collect();
    push_all(&mut b.src, sent.clone());
    b.sink.ready_prob = 1.0;
    b.sink.expect(sent.len() as u64);
    b.drain(0, 100_000)?;
    no_protocol_errors(&b.sink)?;
    let got: Vec<Packet> = b.sink.packets.drain(..).collect();
    ensure!(b.get("drop_pkts") == 0, "dropped after reset");
    trimswitch_sim::agents::axis::check_packets(&sent, &got)
}

#[test]
fn reset_mid_packet_sf() -> Result<()> {
    reset_mid_packet(true)
}

#[test]
fn reset_mid_packet_ct() -> Result<()> {
    reset_mid_packet(false)
}

//! `ts_rx_fcs` in Verilator at 64 and 512 bits: every frame gets its verdict
//! (good, empty, runt, oversize, bad FCS, overflow) and its counter, good
//! frames leave whole with the FCS stripped or kept and `tuser.length` set.
use crate::common;
use anyhow::{ensure, Context, Result};
use common::*;
use rand::Rng;
use trimswitch_hdl::ingress::rx_fcs::RxFcs;
use trimswitch_hdl::meta::tuser;
use trimswitch_sim::agents::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::{model_of, Traffic};
use trimswitch_sim::harness::tb::Tb;
use trimswitch_sim::harness::verilator::ModelLib;
use trimswitch_sim::model::{rx_fcs, RxDrop, Settings};
use trimswitch_sim::packet::crc::append_fcs;

const PORT: u8 = 5;

fn model(width: usize, depth: usize) -> Result<ModelLib> {
    let tag = format!("d{width}_n{depth}");
    with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| model_of(&mut RxFcs::<D, K, U, M, W>::new(depth), "ts_rx_fcs", &tag))
        .context("a tested width")?
}

struct Bench {
    tb: Tb,
    src: AxisSource,
    sink: AxisSink,
}

fn bench(width: usize, depth: usize, min: u64, max: u64, strip: bool, seed: u64) -> Result<Bench> {
    let m = model(width, depth)?.instantiate();
    let src = AxisSource::new(&m, &AxisPorts::slave("s").without_tuser(), seed)?;
    let sink = AxisSink::new(&m, &AxisPorts::master("m"), seed + 1)?;
    let tb = Tb::new(m, "clock", Some("reset"))?;
    let mut b = Bench { tb, src, sink };
    for (p, v) in [("port_id", PORT as u64), ("min_frame", min), ("max_frame", max), ("strip_fcs", strip as u64)] {
        b.set(p, v);
    }
    b.tb.reset(4);
    Ok(b)
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
}

/// Random wire frames of every kind: good ones of every last-beat length, bad
/// FCS (one flipped bit), runts, empty frames and oversize ones.
fn frames(t: &mut Traffic, n_beats: usize, beat: usize, max: usize) -> Vec<Vec<u8>> {
    let mut out = vec![];
    let mut beats = 0;
    while beats < n_beats {
        let kind = t.rng.gen_range(0..20);
        let len = match kind {
            0 => 0,
            1 => t.rng.gen_range(1..64),
            2 => t.rng.gen_range(max + 1..=max + 3 * beat),
            _ => t.length(64, max, beat),
        };
        let mut f = if len >= 4 {
            let mut f = t.packet(len - 4, 0).data;
            append_fcs(&mut f);
            f
        } else {
            t.packet(len, 0).data
        };
        if kind == 3 && len > 0 {
            let bit = t.rng.gen_range(0..len * 8);
            f[bit / 8] ^= 1 << (bit % 8);
        }
        beats += len.div_ceil(beat).max(1);
        out.push(f);
    }
    out
}

/// Random frames under random input gaps and output backpressure: the good
/// frames leave in order (some dropped whole when the FIFO is full, exactly
/// as many as `drop_overflow` says), every drop reason is counted exactly, and
/// `rx_pkts`/`rx_bytes` match what left.
fn random_mix(width: usize, strip: bool, cell: Cell, seed: u64) -> Result<()> {
    let ready_prob = cell.ready_prob;
    let beat = width / 8;
    let depth = if width == 64 { 64 } else { 16 };
    let max = depth * beat - beat - 7; // the largest frame the FIFO must hold
    let mut b = bench(width, depth, 64, max as u64, strip, seed)?;
    b.src.idle_prob = cell.idle_prob;
    b.sink.ready_prob = ready_prob;
    let mut t = Traffic::new(seed);
    let wire = frames(&mut t, MIN_CYCLES as usize, beat, max);
    // The golden model's rx_fcs (`docs/ingress.md`) says what happens to each frame.
    let s = Settings { min_frame: 64, max_frame: max as u16, strip_fcs: strip, ..Settings::default() };
    let verdicts: Vec<Result<Vec<u8>, RxDrop>> = wire.iter().map(|f| rx_fcs(f, &s)).collect();
    for f in &wire {
        b.src.push(Packet::new(f.clone(), 0));
    }
    let cycles = run_for(&mut b.tb, &mut [&mut b.src, &mut b.sink], MIN_CYCLES, 50 * MIN_CYCLES)?;
    // Drain what is still buffered.
    // Drain what is still buffered: the last frame commits a few cycles after
    // its last beat in, then takes its length in beats to leave.
    let (occ, valid) = (b.tb.model.port("occ_pkts")?, b.tb.model.port("m_tvalid")?);
    b.sink.ready_prob = 1.0;
    b.tb.run(&mut [&mut b.src, &mut b.sink], 8);
    b.tb.run_until(&mut [&mut b.src, &mut b.sink], 100_000, |tb, _| tb.model.get(&occ) == 0 && tb.model.get(&valid) == 0)?;
    no_protocol_errors(&b.sink)?;
    let good: Vec<Packet> = verdicts
        .iter()
        .filter_map(|v| match v {
            Ok(f) => Some(Packet::new(f.clone(), tuser(PORT, 0, f.len() as u16))),
            _ => None,
        })
        .collect();
    let got: Vec<Packet> = b.sink.packets.drain(..).collect();
    let missing = subsequence(&good, &got)?;
    let count = |d: RxDrop| verdicts.iter().filter(|x| **x == Err(d)).count() as u64;
    let expect = [
        ("drop_empty", count(RxDrop::Empty)),
        ("drop_runt", count(RxDrop::Runt)),
        ("drop_oversize", count(RxDrop::Oversize)),
        ("drop_fcs", count(RxDrop::Fcs)),
        ("drop_overflow", missing.len() as u64),
        ("rx_pkts", got.len() as u64),
        ("rx_bytes", got.iter().map(|p| p.data.len() as u64).sum()),
    ];
    for (name, want) in expect {
        ensure!(b.get(name) == want, "{name} = {}, expected {want}", b.get(name));
    }
    if ready_prob >= 1.0 {
        ensure!(missing.is_empty(), "{} frames lost with the output always ready", missing.len());
    } else {
        ensure!(!missing.is_empty(), "backpressure never overflowed the FIFO: the test lost its edge");
    }
    for (name, _) in expect {
        ensure!(b.get(name) > 0 || name == "drop_overflow", "{name} never happened: the mix lost a case");
    }
    eprintln!("rx_fcs/{width} strip={strip}: {} frames, {cycles} cycles, {:?}", wire.len(), expect);
    Ok(())
}

/// The stream matrix (`common::MATRIX`), FCS stripped in half the cells and
/// kept in the others.
#[test]
fn matrix_64() -> Result<()> {
    let mut seed = 0;
    for_matrix(|c| {
        seed += 1;
        random_mix(64, seed % 2 == 1, c, seed)
    })
}

#[test]
fn matrix_512() -> Result<()> {
    let mut seed = 10;
    for_matrix(|c| {
        seed += 1;
        random_mix(512, seed % 2 == 0, c, seed)
    })
}

/// Line rate at 512 bits: 64-byte frames back to back leave one per cycle;
/// the first beat of a frame leaves a fixed number of cycles after its last
/// beat came in.
#[test]
fn throughput_and_latency_512() -> Result<()> {
    let mut b = bench(512, 64, 64, 9018, true, 7)?;
    let mut t = Traffic::new(8);
    let mk = |t: &mut Traffic, len: usize| {
        let mut f = t.packet(len - 4, 0).data;
        append_fcs(&mut f);
        f
    };
    // Latency of one 3-beat frame (190 B): from its first beat in to its first beat out.
    b.src.push(Packet::new(mk(&mut t, 190), 0));
    let valid = b.tb.model.port("m_tvalid")?;
    let lat = b.tb.run_until(&mut [&mut b.src, &mut b.sink], 100, |tb, _| tb.model.get(&valid) == 1)?;
    // 3 beats in, the input register, the CRC verdict, the FIFO (issue 14).
    ensure!(lat <= 3 + 6, "first beat out {lat} cycles after the first beat in");
    b.tb.run(&mut [&mut b.src, &mut b.sink], 10);
    b.sink.packets.clear();
    let n = 1000u64;
    for _ in 0..n {
        b.src.push(Packet::new(mk(&mut t, 64), 0));
    }
    b.sink.expect(n + 1);
    let cycles = run_for(&mut b.tb, &mut [&mut b.src, &mut b.sink], 0, 10 * n)?;
    ensure!(b.sink.packets.len() as u64 == n && cycles <= n + 8, "{n} 64-byte frames took {cycles} cycles");
    ensure!(b.sink.packets.iter().all(|p| p.data.len() == 60), "FCS not stripped");
    eprintln!("rx_fcs/512: latency {lat} cycles first beat in to first beat out (3-beat frame); {n} frames in {cycles} cycles");
    Ok(())
}

/// A reset in the middle of a frame: nothing of it leaves, the counters are
/// zero, and the next frames pass.
#[test]
fn reset_mid_frame() -> Result<()> {
    let mut b = bench(64, 64, 64, 400, true, 9)?;
    let mut t = Traffic::new(10);
    let mut f = t.packet(300, 0).data;
    append_fcs(&mut f);
    b.src.push(Packet::new(f.clone(), 0));
    b.tb.run(&mut [&mut b.src, &mut b.sink], 20);
    b.src.abort();
    b.tb.reset(2);
    for name in ["rx_pkts", "drop_fcs", "occ_pkts", "m_tvalid"] {
        ensure!(b.get(name) == 0, "{name} = {} after reset", b.get(name));
    }
    for _ in 0..20 {
        b.src.push(Packet::new(f.clone(), 0));
    }
    b.sink.expect(20);
    run_for(&mut b.tb, &mut [&mut b.src, &mut b.sink], 0, 10_000)?;
    ensure!(b.get("rx_pkts") == 20 && b.sink.packets.iter().all(|p| p.data == f[..300]), "frames after reset damaged");
    Ok(())
}

/// Frames longer than 2^16 bytes (the length register keeps 16 bits and a
/// sticky "reached 2^16" bit): each is oversize, never a runt or empty frame
/// by a wrapped length, and the good frame after them passes.
#[test]
fn frames_beyond_64k_are_oversize() -> Result<()> {
    let (width, depth) = (512, 16);
    let mut b = bench(width, depth, 64, 65535, true, 21)?;
    let mut t = Traffic::new(22);
    // Modulo 2^16 these are a runt (10 bytes), one beat, and 16 bytes past
    // 2^17; then a good frame. Without the sticky bit the first is a runt.
    let lens = [65536 + 10, 65536 + 64, 131072 + 16, 100];
    let s = Settings { min_frame: 64, max_frame: 65535, strip_fcs: true, ..Settings::default() };
    let mut good = vec![];
    for len in lens {
        let mut f = t.packet(len - 4, 0).data;
        append_fcs(&mut f);
        let v = rx_fcs(&f, &s);
        ensure!(v == Err(RxDrop::Oversize) || len == 100, "the model's verdict on {len} bytes: {v:?}");
        if let Ok(g) = v {
            good.push(g);
        }
        b.src.push(Packet::new(f, 0));
    }
    b.sink.expect(1);
    run_for(&mut b.tb, &mut [&mut b.src, &mut b.sink], 0, 20_000)?;
    for (name, want) in [("drop_oversize", 3), ("drop_runt", 0), ("drop_empty", 0), ("drop_fcs", 0), ("drop_overflow", 0), ("rx_pkts", 1)] {
        ensure!(b.get(name) == want, "{name} = {}, expected {want}", b.get(name));
    }
    ensure!(b.sink.packets.len() == 1 && b.sink.packets[0].data == good[0], "the good frame after the long ones damaged");
    Ok(())
}

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
use trimswitch_sim::model::rx_fcs::residue_ok;
use trimswitch_sim::model::{rx_fcs, rx_fcs_flagged, RxDrop, Settings};
use trimswitch_sim::packet::crc::append_fcs;

const PORT: u8 = 5;

fn model(width: usize, depth: usize, mac: bool) -> Result<ModelLib> {
    let tag = format!("d{width}_n{depth}{}", if mac { "_mac" } else { "" });
    with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| model_of(
        &mut RxFcs::<D, K, U, M, W>::new(depth).with_mac_fcs(mac),
        "ts_rx_fcs",
        &tag
    ))
    .context("a tested width")?
}

struct Bench {
    tb: Tb,
    src: AxisSource,
    sink: AxisSink,
}

fn bench(width: usize, depth: usize, min: u64, max: u64, strip: bool, seed: u64) -> Result<Bench> {
    bench_of(width, depth, min, max, strip, false, seed)
}

/// [`bench`] of the block built for `ingress.fcs = "mac"` when `mac`. The
/// source drives `s_tuser` (the MAC's flag) with each packet's `user`.
fn bench_of(width: usize, depth: usize, min: u64, max: u64, strip: bool, mac: bool, seed: u64) -> Result<Bench> {
    let m = model(width, depth, mac)?.instantiate();
    let src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
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
    mix(width, strip, Fcs::Check, cell, seed)
}

/// Who checks the FCS in [`mix`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fcs {
    /// The block (`ingress.fcs = "check"`); no flags.
    Check,
    /// The block, and the MAC flags one frame in 16 as well (an error
    /// whose CRC holds): those are dropped as bad FCS whatever their CRC.
    CheckFlagged,
    /// The MAC (`ingress.fcs = "mac"`): frames without their FCS, the MAC's
    /// flag set on those whose FCS failed and on one in 16 of the others.
    Mac,
}

fn mix(width: usize, strip: bool, fcs: Fcs, cell: Cell, seed: u64) -> Result<()> {
    let ready_prob = cell.ready_prob;
    let beat = width / 8;
    let depth = if width == 64 { 64 } else { 16 };
    let max = depth * beat - beat - 7; // the largest frame the FIFO must hold
    let mac = fcs == Fcs::Mac;
    let mut b = bench_of(width, depth, 64, max as u64, strip, mac, seed)?;
    b.src.idle_prob = cell.idle_prob;
    b.sink.ready_prob = ready_prob;
    let mut t = Traffic::new(seed);
    let wire = frames(&mut t, MIN_CYCLES as usize, beat, max);
    // What the MAC hands on: the frame (without its FCS when the MAC
    // checks) and the flag.
    let input: Vec<(Vec<u8>, bool)> = wire
        .iter()
        .map(|f| match fcs {
            Fcs::Check => (f.clone(), false),
            Fcs::CheckFlagged => (f.clone(), t.rng.gen_range(0..16) == 0),
            Fcs::Mac => {
                let bad = f.len() < 4 || !residue_ok(f) || t.rng.gen_range(0..16) == 0;
                (f[..f.len().saturating_sub(4)].to_vec(), bad)
            }
        })
        .collect();
    // The golden model's rx_fcs (`docs/ingress.md`) says what happens to each frame.
    let s = Settings { min_frame: 64, max_frame: max as u16, strip_fcs: strip, mac_fcs: mac, ..Settings::default() };
    let verdicts: Vec<Result<Vec<u8>, RxDrop>> = input.iter().map(|(f, flag)| rx_fcs_flagged(f, *flag, &s)).collect();
    if fcs != Fcs::Check {
        // The flag decides some verdicts the CRC alone would not (and, in
        // mac mode, all of them): else the test could not see it ignored.
        let flag_only = input.iter().filter(|(f, flag)| *flag && rx_fcs(f, &Settings { mac_fcs: false, ..s.clone() }).is_ok());
        ensure!(fcs == Fcs::Mac || flag_only.count() > 10, "too few frames dropped by the flag alone");
    }
    for (f, flag) in &input {
        b.src.push(Packet::new(f.clone(), *flag as u128));
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
    eprintln!("rx_fcs/{width} strip={strip} {fcs:?}: {} frames, {cycles} cycles, {:?}", wire.len(), expect);
    Ok(())
}

/// `ingress.fcs = "mac"` (issue 18) at 64 and 512 bits: frames without FCS,
/// the MAC's flag the only FCS verdict, lengths counted with the 4 bytes the
/// MAC removed, nothing stripped whatever `strip_fcs` says; and the flag
/// honoured in check mode too. Two cells of the matrix each.
#[test]
fn mac_flag() -> Result<()> {
    let cells = [Cell { idle_prob: 0.0, ready_prob: 1.0 }, Cell { idle_prob: 0.3, ready_prob: 0.5 }];
    for (i, (width, fcs)) in [(64, Fcs::Mac), (512, Fcs::Mac), (64, Fcs::CheckFlagged)].into_iter().enumerate() {
        for (j, c) in cells.iter().enumerate() {
            mix(width, (i + j) % 2 == 0, fcs, *c, 40 + 2 * i as u64 + j as u64)?;
        }
    }
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

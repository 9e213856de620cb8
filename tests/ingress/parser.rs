//! `ts_parser` in Verilator at 64 and 512 bits against the golden parser
//! (`sim/src/model/parser.rs`): every packet leaves unchanged, in order, with
//! exactly the PHV the model computes, under random gaps and backpressure;
//! the malformed counters match the model's reasons.
use crate::common;
use anyhow::{ensure, Context, Result};
use common::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::ingress::parser::{Parser, REASONS};
use trimswitch_hdl::ingress::phv::{malformed, Phv};
use trimswitch_hdl::meta::tuser;
use trimswitch_sim::agents::axis::{AxisPorts, AxisSideTap, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::Tb;
use trimswitch_sim::harness::verilator::ModelLib;
use trimswitch_sim::model::gen::{malformed_corpus, random_frame, GenOpts};
use trimswitch_sim::model::parser::parse;
use trimswitch_sim::model::rx_fcs::rx_fcs;
use trimswitch_sim::model::Settings;

fn model(width: usize) -> Result<ModelLib> {
    with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| model_of(
        &mut Parser::<D, K, U, M, W>::default(),
        "ts_parser",
        &format!("d{D}")
    ))
    .context("a tested width")?
}

struct Bench {
    tb: Tb,
    src: AxisSource,
    sink: AxisSink,
    tap: AxisSideTap,
}

fn bench(width: usize, seed: u64) -> Result<Bench> {
    let m = model(width)?.instantiate();
    let src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    let sink = AxisSink::new(&m, &AxisPorts::master("m"), seed + 1)?;
    let tap = AxisSideTap::new(&m, &AxisPorts::master("m"), "m_phv")?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(4);
    Ok(Bench { tb, src, sink, tap })
}

impl Bench {
    fn get(&self, port: &str) -> u64 {
        let p = self.tb.model.port(port).unwrap();
        self.tb.model.get(&p)
    }
}

/// Frames as the parser receives them: random header mixes (with malformed
/// ones) after the model's rx_fcs, the malformed corpus, and a few random
/// byte strings.
fn frames(rng: &mut SmallRng, min_beats: usize, beat: usize) -> Vec<Vec<u8>> {
    let s = Settings::default();
    let mut o = GenOpts::from_settings(&s).with_faults(0.3);
    o.max_size = 2000;
    let mut out: Vec<Vec<u8>> = malformed_corpus(&s).into_iter().filter_map(|c| rx_fcs(&c.wire, &s).ok()).collect();
    // Short frames only a parser without rx_fcs in front can see: a cut-short
    // Ethernet header and a cut-short PL2 message.
    out.push(vec![0x02; 10]);
    let mut pl2 = vec![0x02; 12];
    pl2.extend_from_slice(&[0x88, 0xB5, 1, 2, 3]);
    out.push(pl2);
    let mut beats = 0;
    while beats < min_beats {
        let f = if rng.gen_bool(0.05) {
            let n = rng.gen_range(1..=200);
            (0..n).map(|_| rng.gen()).collect()
        } else {
            match rx_fcs(&random_frame(rng, &o), &s) {
                Ok(f) => f,
                Err(_) => continue,
            }
        };
        beats += f.len().div_ceil(beat);
        out.push(f);
    }
    out
}

fn against_model(width: usize, idle: f64, ready: f64, seed: u64) -> Result<()> {
    let mut b = bench(width, seed)?;
    b.src.idle_prob = idle;
    b.sink.ready_prob = ready;
    let mut rng = SmallRng::seed_from_u64(seed);
    let wire = frames(&mut rng, MIN_CYCLES as usize / 2, width / 8);
    let sent: Vec<Packet> = wire.iter().enumerate().map(|(i, f)| Packet::new(f.clone(), tuser((i % 7) as u8, 0, f.len() as u16))).collect();
    // The PHV carries the ingress port (`tuser.src_port`), which the parser
    // model leaves to its caller.
    let want: Vec<Phv> = wire.iter().enumerate().map(|(i, f)| Phv { in_port: (i % 7) as u8, ..parse(f, f.len()) }).collect();
    push_all(&mut b.src, sent.clone());
    b.sink.expect(sent.len() as u64);
    let cycles = run_for(&mut b.tb, &mut [&mut b.src, &mut b.sink, &mut b.tap], MIN_CYCLES, 50 * MIN_CYCLES)?;
    no_protocol_errors(&b.sink)?;
    let got: Vec<Packet> = b.sink.packets.drain(..).collect();
    trimswitch_sim::agents::axis::check_packets(&sent, &got)?;
    ensure!(b.tap.values.len() == want.len(), "{} PHVs for {} packets", b.tap.values.len(), want.len());
    for (i, (v, w)) in b.tap.values.iter().zip(&want).enumerate() {
        let got = Phv::unpack(&[v[0], v[1], v[2], v[3]]);
        ensure!(
            got == *w,
            "packet {i} ({} bytes, {:02x?}...): PHV\n  rtl   {got:?}\n  model {w:?}",
            wire[i].len(),
            &wire[i][..wire[i].len().min(64)]
        );
    }
    ensure!(b.get("pkts") == want.len() as u64, "pkts = {}", b.get("pkts"));
    let mut seen = 0;
    for code in 1..=REASONS {
        let n = want.iter().filter(|p| p.malformed as usize == code).count() as u64;
        let c = b.get(&format!("malformed_{}", code - 1));
        ensure!(c == n, "malformed_{} ({}) = {c}, model says {n}", code - 1, malformed::NAMES[code]);
        seen += (n > 0) as usize;
    }
    ensure!(seen == REASONS, "only {seen} of {REASONS} malformed reasons exercised");
    eprintln!("parser/{width}: {} packets, {cycles} cycles, all {REASONS} reasons seen", want.len());
    Ok(())
}

/// The stream matrix (`common::MATRIX`: idle gaps x backpressure), each cell
/// with its own frames.
#[test]
fn matrix_64() -> Result<()> {
    let mut seed = 10;
    for_matrix(|c| {
        seed += 1;
        against_model(64, c.idle_prob, c.ready_prob, seed)
    })
}

#[test]
fn matrix_512() -> Result<()> {
    let mut seed = 20;
    for_matrix(|c| {
        seed += 1;
        against_model(512, c.idle_prob, c.ready_prob, seed)
    })
}

/// 64-byte frames back to back at 512 bits: one per cycle, and the latency
/// from a frame's first beat in to its first beat out.
#[test]
fn throughput_and_latency_512() -> Result<()> {
    let mut b = bench(512, 5)?;
    let s = Settings::default();
    let mut rng = SmallRng::seed_from_u64(6);
    let mut o = GenOpts::from_settings(&s);
    o.max_size = 64;
    let f = rx_fcs(&random_frame(&mut rng, &o), &s).unwrap();
    b.src.push(Packet::new(f.clone(), tuser(0, 0, f.len() as u16)));
    let valid = b.tb.model.port("m_tvalid")?;
    let lat = b.tb.run_until(&mut [&mut b.src, &mut b.sink, &mut b.tap], 100, |tb, _| tb.model.get(&valid) == 1)?;
    b.tb.run(&mut [&mut b.src, &mut b.sink, &mut b.tap], 4);
    let n = 1000u64;
    for _ in 0..n {
        b.src.push(Packet::new(f.clone(), tuser(0, 0, f.len() as u16)));
    }
    b.sink.expect(n + 1);
    let cycles = run_for(&mut b.tb, &mut [&mut b.src, &mut b.sink, &mut b.tap], 0, 10 * n)?;
    ensure!(b.sink.packets.len() as u64 == n + 1 && cycles <= n + lat + 4, "{n} 60-byte frames took {cycles} cycles (latency {lat})");
    eprintln!("parser/512: latency {lat} cycles; {n} frames in {cycles} cycles");
    Ok(())
}

/// The admission gate: with the output stalled, the parser takes packets
/// until `PHV_DEPTH - 1` are in flight and holds the next one at its first
/// beat; released, every packet leaves with its PHV. At 512 bits a 60-byte
/// frame is one beat, so the data FIFO (`DATA_DEPTH` beats) is not what stops
/// the input.
#[test]
fn admission_gate_holds_at_phv_depth_minus_one() -> Result<()> {
    use trimswitch_hdl::ingress::parser::{DATA_DEPTH, PHV_DEPTH};
    const { assert!(DATA_DEPTH > PHV_DEPTH) };
    let mut b = bench(512, 7)?;
    let s = Settings::default();
    let mut rng = SmallRng::seed_from_u64(8);
    let mut o = GenOpts::from_settings(&s);
    o.max_size = 64;
    let wire: Vec<Vec<u8>> = (0..PHV_DEPTH + 9).map(|_| rx_fcs(&random_frame(&mut rng, &o), &s).unwrap()).collect();
    let sent: Vec<Packet> = wire.iter().map(|f| Packet::new(f.clone(), tuser(0, 0, f.len() as u16))).collect();
    push_all(&mut b.src, sent.clone());
    b.sink.ready_prob = 0.0;
    b.tb.run(&mut [&mut b.src, &mut b.sink, &mut b.tap], 300);
    ensure!(
        b.src.packets() == (PHV_DEPTH - 1) as u64,
        "with the output stalled the parser took {} packets, expected {}",
        b.src.packets(),
        PHV_DEPTH - 1
    );
    b.sink.ready_prob = 1.0;
    b.sink.expect(sent.len() as u64);
    run_for(&mut b.tb, &mut [&mut b.src, &mut b.sink, &mut b.tap], 0, 2000)?;
    no_protocol_errors(&b.sink)?;
    let got: Vec<Packet> = b.sink.packets.drain(..).collect();
    trimswitch_sim::agents::axis::check_packets(&sent, &got)?;
    ensure!(b.tap.values.len() == wire.len(), "{} PHVs for {} packets", b.tap.values.len(), wire.len());
    for (i, (v, f)) in b.tap.values.iter().zip(&wire).enumerate() {
        ensure!(Phv::unpack(&[v[0], v[1], v[2], v[3]]) == parse(f, f.len()), "packet {i}: PHV differs from the model's");
    }
    Ok(())
}

//! `ts_protego_tag_ins` in Verilator at 64, 256 and 512 bits: every frame
//! comes out as the golden model's `insert_tag` makes it.
use crate::common;
use crate::{at_every_width, frame, over_the_matrix};
use anyhow::{ensure, Context, Result};
use common::*;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::protego::tag::ProtegoTagIns;
use trimswitch_sim::agents::axis::{check_packets, AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};
use trimswitch_sim::model::protego::{insert_tag, Seq, Tag};

/// The source, with `s_tag` and `s_skip` set for the frame at its front
/// (sampled with the frame's first beat).
struct Tagged {
    src: AxisSource,
    tags: Vec<Tag>,
    skips: Vec<bool>,
    port: Port,
    skip: Port,
}

impl Agent for Tagged {
    fn drive(&mut self, m: &mut Model, cycle: u64) {
        let t = self.tags.get(self.src.packets() as usize).copied().unwrap_or(Tag { kind: 0, seq: Seq::default() });
        m.set(&self.port, ((t.kind as u64) << 6 | (t.seq.era as u64) << 5) << 16 | t.seq.seq as u64);
        let skip = self.skips.get(self.src.packets() as usize).copied().unwrap_or(false);
        m.set(&self.skip, skip as u64);
        self.src.drive(m, cycle);
    }
    fn sample(&mut self, m: &Model, cycle: u64) {
        self.src.sample(m, cycle)
    }
    fn idle(&self) -> bool {
        self.src.idle()
    }
}

fn bench(width: usize, seed: u64) -> Result<(Tb, Tagged, AxisSink)> {
    let lib = trimswitch_hdl::with_geometry!(width, 64, [(64, 64), (256, 64), (512, 64)], |D, K, U, M, W| model_of(
        &mut ProtegoTagIns::<D, K, U>::default(),
        "ts_protego_tag_ins",
        &format!("d{D}_u{U}")
    ))
    .context("a tested width")??;
    let m = lib.instantiate();
    let src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    let sink = AxisSink::new(&m, &AxisPorts::master("m"), seed + 1)?;
    let (port, skip) = (m.port("s_tag")?, m.port("s_skip")?);
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    Ok((tb, Tagged { src, tags: vec![], skips: vec![], port, skip }, sink))
}

/// Random frames (24..=300 and MTU-sized, 0..2 VLAN tags, random tags,
/// random idle and backpressure): each leaves tagged as the model tags it,
/// or, a fifth of them, unchanged (`s_skip`), with no `untagged` pulse.
fn random(width: usize, cell: Cell, n: usize, seed: u64) -> Result<()> {
    let (mut tb, mut src, mut sink) = bench(width, seed)?;
    src.src.idle_prob = cell.idle_prob;
    sink.ready_prob = cell.ready_prob;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut want = vec![];
    for i in 0..n {
        let len = if rng.gen_bool(0.1) { 1514 } else { rng.gen_range(24..=300) };
        let vlans = rng.gen_range(0..=2);
        let f = frame(&mut rng, len, vlans, i as u32);
        let t = Tag { kind: rng.gen_range(0..4), seq: Seq { era: rng.gen(), seq: rng.gen() } };
        let skip = rng.gen_bool(0.2);
        want.push(Packet::new(if skip { f.clone() } else { insert_tag(&f, t) }, 0));
        src.tags.push(t);
        src.skips.push(skip);
        src.src.push(Packet::new(f, 0));
    }
    sink.expect(n as u64);
    let cycles = tb.run_until_idle(&mut [&mut src, &mut sink], 200 * n as u64 + 10_000)?;
    no_protocol_errors(&sink)?;
    let got: Vec<Packet> = sink.packets.drain(..).collect();
    check_packets(&want, &got)?;
    ensure!(tb.model.get(&tb.model.port("untagged")?) == 0, "an untagged pulse");
    eprintln!("tag_ins/{width}: {n} frames in {cycles} cycles");
    Ok(())
}

#[test]
fn random_frames_every_width() -> Result<()> {
    at_every_width(10, random)
}

/// Idle gaps x backpressure (`MATRIX`) at 64 and 512 bits.
#[test]
fn matrix() -> Result<()> {
    over_the_matrix(100, random)
}

/// Full throughput: with the sink always ready, back-to-back frames take
/// their output beats in cycles (one cycle more per frame whose tag makes
/// its last beat overflow), plus two of latency.
#[test]
fn throughput_one_beat_per_cycle() -> Result<()> {
    for w in [64, 512] {
        let (mut tb, mut src, mut sink) = bench(w, 7)?;
        sink.ready_prob = 1.0;
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let bytes = w / 8;
        let mut out_beats = 0u64;
        let n = 400;
        for i in 0..n {
            let len = rng.gen_range(60..=200);
            let f = frame(&mut rng, len, 0, i);
            out_beats += (len + 5).div_ceil(bytes) as u64;
            src.tags.push(Tag { kind: 0, seq: Seq { era: false, seq: i as u16 } });
            src.src.push(Packet::new(f, 0));
        }
        sink.expect(n as u64);
        let cycles = tb.run_until_idle(&mut [&mut src, &mut sink], 100_000)?;
        ensure!(cycles == out_beats + 2, "{w} bits: {out_beats} output beats took {cycles} cycles");
    }
    Ok(())
}

/// Frames of 1..=40 bytes with random VLAN TPIDs at bytes 12 and 16, at
/// every width: a frame with a byte at its insertion point leaves as the
/// model tags it, a shorter one unchanged with an `untagged` pulse each; a
/// third of them skipped (`s_skip`): unchanged, no pulse.
#[test]
fn runts_at_every_width() -> Result<()> {
    for w in [64, 256, 512] {
        let (mut tb, mut src, mut sink) = bench(w, 21)?;
        sink.ready_prob = 0.8;
        let mut rng = rand::rngs::StdRng::seed_from_u64(w as u64);
        let (mut want, mut untagged) = (vec![], 0u64);
        for i in 0..400u32 {
            let len = rng.gen_range(1..=40);
            let mut f: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            for o in [12, 16] {
                if f.len() >= o + 2 && rng.gen_bool(0.6) {
                    f[o..o + 2].copy_from_slice(&[0x81, 0x00]);
                }
            }
            let t = Tag { kind: 2, seq: Seq { era: false, seq: i as u16 } };
            // The model's insertion point (after the VLAN tags whose four
            // bytes are there); no byte there: unchanged.
            // A skipped one (`s_skip`) leaves unchanged, without a pulse.
            let tagged = insert_tag(&f, t);
            let skip = rng.gen_bool(0.3);
            untagged += (!skip && tagged == f) as u64;
            want.push(Packet::new(if skip { f.clone() } else { tagged }, 0));
            src.tags.push(t);
            src.skips.push(skip);
            src.src.push(Packet::new(f, 0));
        }
        sink.expect(want.len() as u64);
        let up = tb.model.port("untagged")?;
        let mut pulses = 0;
        for _ in 0..20_000 {
            tb.step(&mut [&mut src, &mut sink]);
            pulses += tb.model.get(&up);
            if sink.packets.len() == want.len() {
                break;
            }
        }
        tb.run(&mut [&mut src, &mut sink], 4);
        pulses += tb.model.get(&up);
        no_protocol_errors(&sink)?;
        let got: Vec<Packet> = sink.packets.drain(..).collect();
        check_packets(&want, &got).with_context(|| format!("{w} bits"))?;
        ensure!(untagged > 50 && pulses == untagged, "{w} bits: {pulses} untagged pulses, {untagged} untagged frames");
    }
    Ok(())
}

/// A frame that ends before its insertion point passes unchanged, counted
/// by an `untagged` pulse; the next frame is tagged as usual.
#[test]
fn short_frame_passes_untagged() -> Result<()> {
    let (mut tb, mut src, mut sink) = bench(64, 9)?;
    sink.ready_prob = 1.0;
    let short: Vec<u8> = (1..=10).collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let f = frame(&mut rng, 64, 1, 7);
    let t = Tag { kind: 1, seq: Seq { era: true, seq: 0xBEEF } };
    src.tags = vec![Tag { kind: 0, seq: Seq::default() }, t];
    src.src.push(Packet::new(short.clone(), 0));
    src.src.push(Packet::new(f.clone(), 0));
    sink.expect(2);
    let mut pulses = 0;
    let sp = tb.model.port("untagged")?;
    for _ in 0..40 {
        tb.step(&mut [&mut src, &mut sink]);
        pulses += tb.model.get(&sp);
    }
    ensure!(pulses == 1, "{pulses} untagged pulses");
    let got: Vec<Packet> = sink.packets.drain(..).collect();
    check_packets(&[Packet::new(short, 0), Packet::new(insert_tag(&f, t), 0)], &got)?;
    Ok(())
}

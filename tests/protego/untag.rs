//! `ts_protego_tag_rm` in Verilator at 64, 256 and 512 bits: every frame
//! leaves as the golden model's `read_tag`/`strip_tag` say, with the tag,
//! the control-frame flag and the VLAN count beside its last beat.
use crate::common;
use crate::{at_every_width, frame, over_the_matrix};
use anyhow::{ensure, Context, Result};
use common::*;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::protego::untag::ProtegoTagRm;
use trimswitch_sim::agents::axis::{check_packets, AxisPorts, AxisSideTap, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::Tb;
use trimswitch_sim::model::protego::{control_frame, ethertype_offset, inner_ethertype, insert_tag, kind, read_tag, strip_tag, Seq, Tag};
use trimswitch_sim::packet::frame::ethertype;

/// What the remover reports beside a frame's last beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Verdict {
    tagged: bool,
    trunc: bool,
    /// The tag (type/era byte in 23:16, `seq` in 15:0), control flag and
    /// VLAN count: checked for tagged frames (zero for untouched ones).
    tag: u32,
    ctrl: bool,
    vlans: u8,
}

/// The model's verdict on `f` and the frame that leaves.
fn expect(f: &[u8]) -> (Vec<u8>, Verdict) {
    let o = ethertype_offset(f);
    let none = Verdict { tagged: false, trunc: false, tag: 0, ctrl: false, vlans: 0 };
    match read_tag(f) {
        Some((t, at)) => (
            strip_tag(f, at),
            Verdict {
                tagged: true,
                trunc: false,
                tag: ((t.kind as u32) << 6 | (t.seq.era as u32) << 5) << 16 | t.seq.seq as u32,
                ctrl: inner_ethertype(f, at) == ethertype::PROTEGO,
                vlans: ((at - 12) / 4) as u8,
            },
        ),
        None if f.len() >= o + 2 && f[o..o + 2] == ethertype::PROTEGO.to_be_bytes() => {
            (f.to_vec(), Verdict { trunc: true, vlans: ((o - 12) / 4) as u8, ..none })
        }
        None => (f.to_vec(), none),
    }
}

struct Bench {
    tb: Tb,
    src: AxisSource,
    sink: AxisSink,
    taps: Vec<AxisSideTap>,
}

impl Bench {
    fn new(width: usize, seed: u64) -> Result<Bench> {
        let lib = trimswitch_hdl::with_geometry!(width, 64, [(64, 64), (256, 64), (512, 64)], |D, K, U, M, W| model_of(
            &mut ProtegoTagRm::<D, K, U>::default(),
            "ts_protego_tag_rm",
            &format!("d{D}_u{U}")
        ))
        .context("a tested width")??;
        let m = lib.instantiate();
        let src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
        let sink = AxisSink::new(&m, &AxisPorts::master("m"), seed + 1)?;
        let taps = ["m_tagged", "m_trunc", "m_tag", "m_ctrl", "m_vlans"]
            .iter()
            .map(|p| AxisSideTap::at_last(&m, &AxisPorts::master("m"), p))
            .collect::<Result<Vec<_>>>()?;
        let mut tb = Tb::new(m, "clock", Some("reset"))?;
        tb.reset(2);
        Ok(Bench { tb, src, sink, taps })
    }

    /// Sends `frames`, runs until all have left, and checks each against the
    /// model (`check_side`: also the tag, control flag and VLAN count of the
    /// tagged ones). Returns the cycles.
    fn run(&mut self, frames: &[Vec<u8>], max_cycles: u64) -> Result<u64> {
        let mut want = vec![];
        let mut verdicts = vec![];
        for (i, f) in frames.iter().enumerate() {
            let (g, v) = expect(f);
            want.push(Packet::new(g, i as u128 & 0xFF));
            verdicts.push(v);
            self.src.push(Packet::new(f.clone(), i as u128 & 0xFF));
        }
        self.sink.expect(frames.len() as u64);
        let [a, b, c, d, e] = &mut self.taps[..] else { unreachable!() };
        let cycles = self.tb.run_until_idle(&mut [&mut self.src, &mut self.sink, a, b, c, d, e], max_cycles)?;
        no_protocol_errors(&self.sink)?;
        let got: Vec<Packet> = self.sink.packets.drain(..).collect();
        check_packets(&want, &got)?;
        for (i, v) in verdicts.iter().enumerate() {
            let mut side = self.taps.iter_mut().map(|t| t.values.pop_front().map(|w| w[0]));
            let mut next = || side.next().flatten().context("a side value per frame");
            let g = Verdict { tagged: next()? == 1, trunc: next()? == 1, tag: next()? as u32, ctrl: next()? == 1, vlans: next()? as u8 };
            // The type/era byte's reserved bits 4:0 leave as they came.
            let g = Verdict { tag: g.tag & 0xE0_FFFF, ..g };
            let g = if v.tagged { g } else { Verdict { tag: 0, ctrl: false, ..g } };
            let g = if v.tagged || v.trunc { g } else { Verdict { vlans: 0, ..g } };
            ensure!(
                g == *v,
                "frame {i} ({} bytes, {:02x?}...): {g:?}, model {v:?}",
                frames[i].len(),
                &frames[i][..frames[i].len().min(24)]
            );
        }
        Ok(cycles)
    }
}

fn random_tag(rng: &mut impl Rng) -> Tag {
    Tag { kind: rng.gen_range(0..4), seq: Seq { era: rng.gen(), seq: rng.gen() } }
}

/// A mix: tagged frames (24..=300 bytes and MTU-sized, 0..2 VLAN tags),
/// control frames, untagged ones, ones cut inside their tag or just after
/// it, and a third VLAN TPID where the tag goes.
fn mix(rng: &mut impl Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let len = if rng.gen_bool(0.1) { 1514 } else { rng.gen_range(24..=300) };
            let vlans = rng.gen_range(0..=2);
            let f = frame(rng, len, vlans, i as u32);
            match rng.gen_range(0..10) {
                0..=4 => insert_tag(&f, random_tag(rng)),
                5 => control_frame([2, 0, 0, 0, 0, 1], random_tag(rng), &[rng.gen(), rng.gen(), rng.gen(), rng.gen()]),
                6 => f,
                7 | 8 => {
                    // Cut 2..=8 bytes after the tag's position: inside the
                    // tag (truncated), or just holding its inner EtherType.
                    let mut g = insert_tag(&f, random_tag(rng));
                    g.truncate(ethertype_offset(&f) + rng.gen_range(2..=8));
                    g
                }
                _ => {
                    // A third TPID where the tag goes (two VLAN tags before
                    // it): the tag is at 20, the TPID is its inner EtherType.
                    let mut g = frame(rng, len.max(40), 2, i as u32);
                    g[20..22].copy_from_slice(&[0x81, 0x00]);
                    insert_tag(&g, random_tag(rng))
                }
            }
        })
        .collect()
}

/// The mix with random idle and backpressure: each frame leaves as the
/// model says.
fn random(width: usize, cell: Cell, n: usize, seed: u64) -> Result<()> {
    let mut b = Bench::new(width, seed)?;
    b.src.idle_prob = cell.idle_prob;
    b.sink.ready_prob = cell.ready_prob;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let frames = mix(&mut rng, n);
    let tagged = frames.iter().filter(|f| read_tag(f).is_some()).count();
    ensure!(tagged > n / 3 && tagged < n, "{tagged} tagged of {n}: the mix lost a kind");
    let cycles = b.run(&frames, 200 * n as u64 + 10_000)?;
    eprintln!("tag_rm/{width}: {n} frames ({tagged} tagged) in {cycles} cycles");
    Ok(())
}

#[test]
fn random_frames_every_width() -> Result<()> {
    at_every_width(30, random)
}

/// Idle gaps x backpressure (`MATRIX`) at 64 and 512 bits.
#[test]
fn matrix() -> Result<()> {
    over_the_matrix(200, random)
}

/// Every length of 1..=48 bytes with random TPIDs at bytes 12 and 16 and
/// 0x88B6 at one of the three positions: a runt leaves unchanged (or
/// stripped, when it holds its tag and inner EtherType), flagged as the
/// model reads it; the stream never stalls.
#[test]
fn runts_at_every_width() -> Result<()> {
    for w in [64, 256, 512] {
        let mut b = Bench::new(w, 41)?;
        b.sink.ready_prob = 0.8;
        let mut rng = rand::rngs::StdRng::seed_from_u64(w as u64 + 3);
        let mut frames = vec![];
        for i in 0..600 {
            let len = 1 + i % 48;
            let mut f: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            for o in [12, 16] {
                if f.len() >= o + 2 && rng.gen_bool(0.6) {
                    f[o..o + 2].copy_from_slice(&[0x88, 0xA8]);
                }
            }
            let o = [12, 16, 20][rng.gen_range(0..3)];
            if f.len() >= o + 2 {
                f[o..o + 2].copy_from_slice(&ethertype::PROTEGO.to_be_bytes());
            }
            frames.push(f);
        }
        let (tagged, trunc) = frames.iter().map(|f| expect(f).1).fold((0, 0), |(a, b), v| (a + v.tagged as u32, b + v.trunc as u32));
        ensure!(tagged > 50 && trunc > 20, "{w}: {tagged} tagged and {trunc} truncated: the runts miss a case");
        b.run(&frames, 100_000)?;
    }
    Ok(())
}

/// Full throughput: with the sink always ready, back-to-back frames take one
/// cycle per input beat (a stripped frame's last output beat may absorb the
/// last input beat), plus two of latency.
#[test]
fn throughput_one_beat_per_cycle() -> Result<()> {
    for w in [64, 512] {
        let mut b = Bench::new(w, 7)?;
        b.sink.ready_prob = 1.0;
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let bytes = w / 8;
        let (mut frames, mut in_beats) = (vec![], 0u64);
        for i in 0..400 {
            let len = rng.gen_range(60..=200);
            let f = frame(&mut rng, len, 0, i);
            let t = Tag { kind: kind::DATA, seq: Seq { era: false, seq: i as u16 } };
            let f = if i % 4 == 3 { f } else { insert_tag(&f, t) };
            in_beats += f.len().div_ceil(bytes) as u64;
            frames.push(f);
        }
        let cycles = b.run(&frames, 100_000)?;
        ensure!(cycles == in_beats + 2, "{w} bits: {in_beats} input beats took {cycles} cycles");
    }
    Ok(())
}

//! `ts_xgmii_tx` in Verilator: frames from an AXI4-Stream source, the XGMII
//! words decoded by the clause-46 agent and checked byte for byte (padding
//! to 60, the FCS, /S/ on lanes 0 and 4, the deficit idle count), the line
//! rate of minimum frames counted in cycles, and cut frames (underruns,
//! `tuser`) ending in /E/ with their counters.
use crate::common;
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::mac::xgmii_tx::XgmiiTx;
use trimswitch_sim::agents::axis::{AxisPorts, AxisSource, Packet};
use trimswitch_sim::agents::xgmii::{decode, RxFrame, Word};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, ModelLib, Port};
use trimswitch_sim::packet::crc::{append_fcs, fcs_ok};

/// Records the XGMII word of every cycle.
struct Wire {
    txd: Port,
    txc: Port,
    words: Vec<Word>,
}

impl Agent for Wire {
    fn drive(&mut self, _m: &mut Model, _cycle: u64) {}
    fn sample(&mut self, m: &Model, _cycle: u64) {
        self.words.push(Word { data: m.get(&self.txd), ctrl: m.get(&self.txc) as u8 });
    }
}

fn lib() -> Result<ModelLib> {
    model_of(&mut XgmiiTx::default(), "ts_xgmii_tx", "x64")
}

/// What the wire must carry for a payload: padded to 60 bytes, its FCS.
fn on_wire(payload: &[u8]) -> Vec<u8> {
    let mut f = payload.to_vec();
    f.resize(f.len().max(60), 0);
    append_fcs(&mut f);
    f
}

pub(crate) struct Run {
    pub(crate) words: Vec<Word>,
    frames: Vec<RxFrame>,
    counters: [u64; 4],
    cycles: u64,
}

/// Sends `packets` (back to back unless `idle_prob`), runs until the
/// source is empty and the wire idle, decodes the wire.
pub(crate) fn run(packets: &[Packet], idle_prob: f64, seed: u64) -> Result<Run> {
    let lib = lib()?;
    let m = lib.instantiate();
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    src.idle_prob = idle_prob;
    for p in packets {
        src.push(p.clone());
    }
    let mut wire = Wire { txd: m.port("txd")?, txc: m.port("txc")?, words: vec![] };
    let counters = ["frames", "bytes", "underruns", "errors"].map(|p| m.port(p).unwrap());
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    let bytes: usize = packets.iter().map(|p| p.data.len().max(60) + 30).sum();
    let limit = (bytes as u64 / 8 + 100) * if idle_prob > 0.0 { 4 } else { 1 };
    let mut cycles = 0;
    while (src.pending() > 0 || cycles < 20) && cycles < limit {
        tb.step(&mut [&mut src, &mut wire]);
        cycles += 1;
    }
    ensure!(src.pending() == 0, "{} packets left after {cycles} cycles", src.pending());
    tb.run(&mut [&mut src, &mut wire], 20);
    let counters = counters.map(|p| tb.model.get(&p));
    let frames = decode(&wire.words).map_err(|e| {
        let first = wire.words.iter().position(|w| w.ctrl != 0xff).unwrap_or(0);
        let dump: Vec<String> =
            wire.words[first..(first + 24).min(wire.words.len())].iter().map(|w| format!("{:016x}/{:02x}", w.data, w.ctrl)).collect();
        e.context(format!("the wire from word {first}: {}", dump.join(" ")))
    })?;
    Ok(Run { words: wire.words, frames, counters, cycles })
}

/// Random payloads from 1 byte (padded) to 1 514 and some 9 000-byte jumbos,
/// back to back: every frame exactly as sent, its FCS good, the gap at
/// least 9 bytes and 12 on average (46.3.1.4), the counters.
#[test]
fn frames_as_sent_at_line_rate() -> Result<()> {
    let mut rng = SmallRng::seed_from_u64(18);
    let mut packets = vec![];
    let mut wire_bytes = 0u64;
    while wire_bytes < 8 * 2 * common::MIN_CYCLES / 2 {
        let len = match rng.gen_range(0..20) {
            0 => rng.gen_range(8990..=9014),
            1..=6 => rng.gen_range(1..=64),
            _ => rng.gen_range(1..=1514),
        };
        let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        wire_bytes += len.max(60) as u64 + 24;
        packets.push(Packet::new(data, 0));
    }
    let r = run(&packets, 0.0, 1)?;
    ensure!(r.frames.len() == packets.len(), "{} frames on the wire, {} sent", r.frames.len(), packets.len());
    for (i, (f, p)) in r.frames.iter().zip(&packets).enumerate() {
        ensure!(!f.error, "frame {i}: marked bad");
        ensure!(f.bytes == on_wire(&p.data), "frame {i} ({} bytes): {} bytes on the wire, differing", p.data.len(), f.bytes.len());
        ensure!(fcs_ok(&f.bytes), "frame {i}: FCS");
    }
    let gaps: Vec<usize> = r.frames.iter().filter_map(|f| f.gap).collect();
    let avg = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
    ensure!(
        gaps.iter().all(|&g| (9..=15).contains(&g)),
        "gaps outside 9..=15: {:?}",
        gaps.iter().filter(|&&g| !(9..=15).contains(&g)).collect::<Vec<_>>()
    );
    ensure!((avg - 12.0).abs() < 0.01, "average gap {avg} bytes");
    ensure!(r.frames.iter().any(|f| f.lane == 4) && r.frames.iter().any(|f| f.lane == 0), "starts on both lanes");
    let bytes: u64 = packets.iter().map(|p| p.data.len().max(60) as u64 + 4).sum();
    ensure!(r.counters == [packets.len() as u64, bytes, 0, 0], "counters (frames, bytes, underruns, errors) {:?}", r.counters);
    ensure!(r.cycles >= common::MIN_CYCLES / 2, "ran {} cycles", r.cycles);
    Ok(())
}

/// 64-byte frames (60 bytes of payload and the FCS) back to back: one every
/// 10.5 words, 14.88 Mpps at 156.25 MHz, with a gap of exactly 12.
#[test]
fn minimum_frames_at_14_88_mpps() -> Result<()> {
    let n = 2000;
    let packets: Vec<Packet> = (0..n).map(|i| Packet::new(vec![i as u8; 60], 0)).collect();
    let r = run(&packets, 0.0, 2)?;
    ensure!(r.frames.len() == n, "{} frames", r.frames.len());
    ensure!(r.frames.iter().filter_map(|f| f.gap).all(|g| g == 12), "a gap other than 12");
    let span = r.frames[n - 1].word * 8 + r.frames[n - 1].lane - (r.frames[0].word * 8 + r.frames[0].lane);
    ensure!(span == (n - 1) * 84, "{span} bytes from the first /S/ to the last, expected {}", (n - 1) * 84);
    let mpps: f64 = 156.25 * 8.0 / 84.0;
    ensure!((mpps - 14.880952).abs() < 1e-5, "{mpps}");
    Ok(())
}

/// A source with random gaps: a gap inside a frame is an underrun, the frame
/// ends in /E/ /T/ and its rest is dropped; frames with `tuser` set are cut
/// at their first beat. The whole frames are exactly the others, the
/// counters count both kinds.
#[test]
fn cut_frames_end_in_error() -> Result<()> {
    let mut rng = SmallRng::seed_from_u64(7);
    let packets: Vec<Packet> =
        (0..3000).map(|i| Packet::new((0..rng.gen_range(1..=300)).map(|_| rng.gen()).collect(), (i % 10 == 3) as u128)).collect();
    let r = run(&packets, 0.15, 3)?;
    ensure!(r.frames.len() == packets.len(), "{} frames on the wire, {} sent", r.frames.len(), packets.len());
    let (mut whole, mut cut, mut flagged) = (0u64, 0u64, 0u64);
    for (i, (f, p)) in r.frames.iter().zip(&packets).enumerate() {
        if p.user == 1 {
            ensure!(f.error && f.bytes == [0xFE], "frame {i}: tuser set, {} bytes, error {}", f.bytes.len(), f.error);
            flagged += 1;
        } else if f.error {
            let sent = on_wire(&p.data);
            let n = f.bytes.len() - 1;
            ensure!(
                f.bytes[n] == 0xFE && n % 8 == 0 && sent[..n] == f.bytes[..n],
                "frame {i}: cut at {n}, not at a word boundary of the sent bytes"
            );
            cut += 1;
        } else {
            ensure!(f.bytes == on_wire(&p.data), "frame {i}: differs");
            whole += 1;
        }
    }
    ensure!(cut > 100 && whole > 100, "{cut} cut, {whole} whole");
    ensure!(
        r.counters[0] == whole && r.counters[2] == cut && r.counters[3] == flagged,
        "counters {:?}: whole {whole}, cut {cut}, tuser {flagged}",
        r.counters
    );
    Ok(())
}

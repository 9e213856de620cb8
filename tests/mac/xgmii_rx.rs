//! `ts_xgmii_rx` in Verilator: XGMII words from the clause-46 agent's
//! encoder (/S/ on lanes 0 and 4, the deficit idle count, extra idles) in,
//! AXI4-Stream packets out, each checked byte for byte with its verdict
//! (`tuser` on the last beat) and counted: good frames, bad FCS, runts,
//! jabbers (cut after the beat that passes `max_bytes`), /E/ and bad SFDs.
use crate::common;
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::mac::xgmii_rx::XgmiiRx;
use trimswitch_sim::agents::xgmii::{Encoder, Fault, Word};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};
use trimswitch_sim::packet::crc::append_fcs;

/// Drives one word per cycle, then idles.
struct Phy {
    words: Vec<Word>,
    next: usize,
    rxd: Port,
    rxc: Port,
}

impl Agent for Phy {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let w = self.words.get(self.next).copied().unwrap_or(Word::IDLE);
        self.next += 1;
        m.set(&self.rxd, w.data);
        m.set(&self.rxc, w.ctrl as u64);
    }
    fn sample(&mut self, _m: &Model, _cycle: u64) {}
}

/// Collects packets: bytes (by `tkeep`) and the last beat's `tuser`.
struct Catch {
    ports: [Port; 5], // tdata, tkeep, tlast, tuser, tvalid
    cur: Vec<u8>,
    got: Caught,
    errors: Vec<String>,
}

impl Agent for Catch {
    fn drive(&mut self, _m: &mut Model, _cycle: u64) {}
    fn sample(&mut self, m: &Model, cycle: u64) {
        let [d, k, l, u, v] = self.ports;
        if m.get(&v) == 0 {
            return;
        }
        let keep = m.get(&k);
        let n = keep.trailing_ones() as usize;
        if keep != (1u64 << n) - 1 || (n == 0) || (n < 8 && m.get(&l) == 0) {
            self.errors.push(format!("cycle {cycle}: tkeep {keep:#x}, tlast {}", m.get(&l)));
        }
        let data = m.get(&d).to_le_bytes();
        self.cur.extend_from_slice(&data[..n]);
        if m.get(&l) == 1 {
            self.got.push((std::mem::take(&mut self.cur), m.get(&u) == 1));
        }
    }
}

/// A packet's bytes and its verdict (`tuser` on the last beat).
type Caught = Vec<(Vec<u8>, bool)>;

const COUNTERS: [&str; 6] = ["frames", "bytes", "fcs_errors", "runts", "jabbers", "errors"];

/// Runs `words` through the MAC; the packets and the counters.
fn run(words: Vec<Word>, max_bytes: u64) -> Result<(Caught, [u64; 6])> {
    let lib = model_of(&mut XgmiiRx::default(), "ts_xgmii_rx", "x64")?;
    let mut m = lib.instantiate();
    let mb = m.port("max_bytes")?;
    m.set(&mb, max_bytes);
    let n = words.len() as u64;
    let mut phy = Phy { words, next: 0, rxd: m.port("rxd")?, rxc: m.port("rxc")? };
    let mut catch = Catch {
        ports: ["m_tdata", "m_tkeep", "m_tlast", "m_tuser", "m_tvalid"].map(|p| m.port(p).unwrap()),
        cur: vec![],
        got: vec![],
        errors: vec![],
    };
    let counters = COUNTERS.map(|p| m.port(p).unwrap());
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    tb.run(&mut [&mut phy, &mut catch], n + 20);
    ensure!(catch.errors.is_empty(), "{} bad beats, first {}", catch.errors.len(), catch.errors[0]);
    ensure!(catch.cur.is_empty(), "a packet without its last beat ({} bytes)", catch.cur.len());
    Ok((catch.got, counters.map(|p| tb.model.get(&p))))
}

/// A frame of `lo..=hi` bytes, its FCS included.
fn frame(rng: &mut SmallRng, lo: usize, hi: usize) -> Vec<u8> {
    let len = rng.gen_range(lo..=hi);
    let mut f: Vec<u8> = (0..len - 4).map(|_| rng.gen()).collect();
    append_fcs(&mut f);
    f
}

/// Good frames of every length from 64 to 1 518 and jumbos to 9 022, back
/// to back at the deficit idle count's 12 bytes or with extra idles, on
/// both start lanes: each comes out whole, unflagged, in order; a run of
/// 64-byte frames back to back (14.88 Mpps) among them.
#[test]
fn frames_from_the_wire() -> Result<()> {
    let mut rng = SmallRng::seed_from_u64(81);
    let mut enc = Encoder::new(true);
    let mut sent = vec![];
    while enc.words.len() < common::MIN_CYCLES as usize / 2 {
        let f = match rng.gen_range(0..30) {
            0 => frame(&mut rng, 9000, 9022),
            1..=5 => frame(&mut rng, 64, 64),
            _ => frame(&mut rng, 64, 1518),
        };
        let extra = if rng.gen_bool(0.8) { 0 } else { rng.gen_range(1..40) };
        enc.frame(&f, extra, Fault::None);
        sent.push(f);
    }
    for _ in 0..500 {
        let f = frame(&mut rng, 64, 64);
        enc.frame(&f, 0, Fault::None);
        sent.push(f);
    }
    let (got, counters) = run(enc.finish(), 9022)?;
    ensure!(got.len() == sent.len(), "{} packets, {} frames sent", got.len(), sent.len());
    for (i, ((g, bad), s)) in got.iter().zip(&sent).enumerate() {
        ensure!(g == s && !bad, "frame {i} ({} bytes): {} bytes out, flagged {bad}", s.len(), g.len());
    }
    let bytes: u64 = sent.iter().map(|f| f.len() as u64).sum();
    ensure!(counters == [sent.len() as u64, bytes & 0xffff_ffff, 0, 0, 0, 0], "counters {counters:?}");
    Ok(())
}

/// Bad frames among good ones: a flipped bit (FCS), runts with a good FCS,
/// jabbers, /E/ in place of a byte, a bad SFD. Each packet is flagged as
/// its kind, counted once under it, and the good frames around are intact.
#[test]
fn bad_frames_are_flagged_and_counted() -> Result<()> {
    let max = 1518usize;
    let mut rng = SmallRng::seed_from_u64(82);
    let mut enc = Encoder::new(true);
    // Per frame: what comes out, whether flagged, its counter.
    let mut want: Vec<(Vec<u8>, bool, usize)> = vec![];
    for _ in 0..4000 {
        let kind = rng.gen_range(0..8);
        let extra = rng.gen_range(0..3) * rng.gen_range(0..20);
        match kind {
            0 => {
                let mut f = frame(&mut rng, 64, 300);
                let bit = rng.gen_range(0..f.len() * 8);
                f[bit / 8] ^= 1 << (bit % 8);
                enc.frame(&f, extra, Fault::None);
                want.push((f, true, 2));
            }
            1 => {
                let f = frame(&mut rng, 5, 64 - 1);
                enc.frame(&f, extra, Fault::None);
                want.push((f, true, 3));
            }
            2 => {
                let f = frame(&mut rng, max + 1, max + 40);
                enc.frame(&f, extra, Fault::None);
                // Cut after the beat that passes the limit.
                let cut = (max / 8 + 1) * 8;
                want.push((f[..cut.min(f.len())].to_vec(), true, 4));
            }
            3 => {
                let mut f = frame(&mut rng, 64, 300);
                let at = rng.gen_range(0..f.len());
                enc.frame(&f, extra, Fault::ErrorAt(at));
                f[at] = 0xFE;
                want.push((f, true, 5));
            }
            4 => {
                let f = frame(&mut rng, 64, 300);
                enc.frame(&f, extra, Fault::BadSfd);
                want.push((f, true, 5));
            }
            _ => {
                let f = frame(&mut rng, 64, max);
                enc.frame(&f, extra, Fault::None);
                want.push((f, false, 0));
            }
        }
    }
    let (got, counters) = run(enc.finish(), max as u64)?;
    ensure!(got.len() == want.len(), "{} packets, {} frames sent", got.len(), want.len());
    let mut count = [0u64; 6];
    for (i, ((g, bad), (w, wbad, c))) in got.iter().zip(&want).enumerate() {
        ensure!(g == w && bad == wbad, "frame {i} (kind {c}): {} bytes out (want {}), flagged {bad} (want {wbad})", g.len(), w.len());
        count[*c] += 1;
        if *c == 0 {
            count[1] += w.len() as u64;
        }
    }
    ensure!(count.iter().all(|&n| n > 100), "{count:?}");
    ensure!(counters == count, "counters {counters:?}, expected {count:?} ({COUNTERS:?})");
    Ok(())
}

/// The transmit MAC's wire into the receive MAC: every frame, padded and
/// with the FCS the transmitter computed, comes out whole and good (the
/// two MACs share no code but the CRC table).
#[test]
fn transmit_into_receive() -> Result<()> {
    use trimswitch_sim::agents::axis::Packet;
    let mut rng = SmallRng::seed_from_u64(83);
    let packets: Vec<Packet> = (0..3000).map(|_| Packet::new((0..rng.gen_range(1..=1514)).map(|_| rng.gen()).collect(), 0)).collect();
    let tx = crate::xgmii_tx::run(&packets, 0.0, 4)?;
    let (got, counters) = run(tx.words, 1518)?;
    ensure!(got.len() == packets.len(), "{} packets", got.len());
    for (i, ((g, bad), p)) in got.iter().zip(&packets).enumerate() {
        let mut f = p.data.clone();
        f.resize(f.len().max(60), 0);
        append_fcs(&mut f);
        ensure!(*g == f && !bad, "frame {i}");
    }
    ensure!(counters[0] == packets.len() as u64 && counters[2..].iter().all(|&n| n == 0), "{counters:?}");
    Ok(())
}

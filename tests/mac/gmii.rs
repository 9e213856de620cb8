//! The 1G MACs on GMII (`ts_gmii_tx`, `ts_gmii_rx`) in Verilator against the
//! clause-35 agent of `trimswitch_sim::agents::gmii`: transmit frames exact
//! (preamble, padding, FCS) with 12-byte gaps and minimum frames at 1.488
//! Mpps, cut frames marked with TX_ER; receive frames of every preamble
//! length out whole, bad ones (FCS, runts, jabbers, RX_ER, bad preambles)
//! flagged and counted; the transmitter's wire into the receiver.
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use trimswitch_hdl::mac::gmii::{GmiiRx, GmiiTx};
use trimswitch_sim::agents::axis::Packet;
use trimswitch_sim::agents::gmii::{decode, Encoder, Fault, Sym};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};
use trimswitch_sim::packet::crc::{append_fcs, fcs_ok};

/// Records the transmitter's GMII every cycle.
struct TxWire {
    ports: [Port; 3],
    syms: Vec<Sym>,
}

impl Agent for TxWire {
    fn drive(&mut self, _m: &mut Model, _cycle: u64) {}
    fn sample(&mut self, m: &Model, _cycle: u64) {
        let [d, en, er] = self.ports;
        self.syms.push(Sym { d: m.get(&d) as u8, en: m.get(&en) == 1, er: m.get(&er) == 1 });
    }
}

/// A byte-wide AXI4-Stream source: each packet's bytes, `tuser` = its
/// `user` on every byte, `tvalid` low in a cycle with `idle_prob`.
struct ByteSource {
    ports: [Port; 5], // tdata, tlast, tuser, tvalid, tready
    q: VecDeque<(Packet, usize)>,
    idle_prob: f64,
    rng: SmallRng,
    valid: bool,
}

impl ByteSource {
    fn pending(&self) -> usize {
        self.q.len()
    }
}

impl Agent for ByteSource {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let [d, l, u, v, _] = self.ports;
        self.valid = !self.q.is_empty() && !self.rng.gen_bool(self.idle_prob);
        if let Some((p, i)) = self.q.front() {
            m.set(&d, p.data[*i] as u64);
            m.set(&l, (*i + 1 == p.data.len()) as u64);
            m.set(&u, p.user as u64);
        }
        m.set(&v, self.valid as u64);
    }
    fn sample(&mut self, m: &Model, _cycle: u64) {
        if self.valid && m.get(&self.ports[4]) == 1 {
            let done = {
                let (p, i) = self.q.front_mut().expect("a packet");
                *i += 1;
                *i == p.data.len()
            };
            if done {
                self.q.pop_front();
            }
        }
    }
}

struct TxRun {
    syms: Vec<Sym>,
    counters: [u64; 4],
}

/// Frames through the transmitter (its source idle `idle_prob` of cycles).
fn tx(packets: &[Packet], idle_prob: f64, seed: u64) -> Result<TxRun> {
    let m = model_of(&mut GmiiTx::default(), "ts_gmii_tx", "g")?.instantiate();
    let mut src = ByteSource {
        ports: ["s_tdata", "s_tlast", "s_tuser", "s_tvalid", "s_tready"].map(|p| m.port(p).unwrap()),
        q: packets.iter().map(|p| (p.clone(), 0)).collect(),
        idle_prob,
        rng: SmallRng::seed_from_u64(seed),
        valid: false,
    };
    let mut wire = TxWire { ports: ["txd", "tx_en", "tx_er"].map(|p| m.port(p).unwrap()), syms: vec![] };
    let counters = ["frames", "bytes", "underruns", "errors"].map(|p| m.port(p).unwrap());
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    let limit: u64 = packets.iter().map(|p| p.data.len().max(60) as u64 + 30).sum::<u64>() * if idle_prob > 0.0 { 4 } else { 1 } + 100;
    let mut n = 0;
    while src.pending() > 0 && n < limit {
        tb.step(&mut [&mut src, &mut wire]);
        n += 1;
    }
    ensure!(src.pending() == 0, "{} packets left after {n} cycles", src.pending());
    tb.run(&mut [&mut src, &mut wire], 40);
    Ok(TxRun { syms: wire.syms, counters: counters.map(|p| tb.model.get(&p)) })
}

fn on_wire(payload: &[u8]) -> Vec<u8> {
    let mut f = payload.to_vec();
    f.resize(f.len().max(60), 0);
    append_fcs(&mut f);
    f
}

/// Random payloads 1..1 514 B and jumbos back to back: every frame exact,
/// every gap exactly 12; then 2 000 minimum frames at 84 byte times each.
#[test]
fn tx_frames_exact_at_line_rate() -> Result<()> {
    let mut rng = SmallRng::seed_from_u64(5);
    let packets: Vec<Packet> = (0..700)
        .map(|i| {
            let len = if i % 50 == 0 { rng.gen_range(8990..=9014) } else { rng.gen_range(1..=1514) };
            Packet::new((0..len).map(|_| rng.gen()).collect(), 0)
        })
        .collect();
    let r = tx(&packets, 0.0, 6)?;
    let frames = decode(&r.syms)?;
    ensure!(frames.len() == packets.len(), "{} frames, {} sent", frames.len(), packets.len());
    for (i, (f, p)) in frames.iter().zip(&packets).enumerate() {
        ensure!(!f.error && f.bytes == on_wire(&p.data) && fcs_ok(&f.bytes), "frame {i} ({} B)", p.data.len());
    }
    ensure!(
        frames.iter().filter_map(|f| f.gap).all(|g| g == 12),
        "gaps {:?}",
        frames.iter().filter_map(|f| f.gap).filter(|g| *g != 12).collect::<Vec<_>>()
    );
    let bytes: u64 = packets.iter().map(|p| p.data.len().max(60) as u64 + 4).sum();
    ensure!(r.counters == [packets.len() as u64, bytes, 0, 0], "counters {:?}", r.counters);
    // Minimum frames: preamble 8 + 64 + gap 12 = 84 byte times each.
    let mins: Vec<Packet> = (0..2000).map(|_| Packet::new((0..60).map(|_| rng.gen()).collect(), 0)).collect();
    let r = tx(&mins, 0.0, 7)?;
    let f = decode(&r.syms)?;
    let per = (f[1999].start - f[0].start) as f64 / 1999.0;
    ensure!(f.len() == 2000 && per == 84.0, "{} frames, {per} byte times each", f.len());
    eprintln!("gmii_tx: 2000 minimum frames at {per} byte times each = {:.6} Mpps at 125 MHz", 125e6 / per / 1e6);
    Ok(())
}

/// A source idle in 0.5% of cycles, a tenth of the packets flagged in `tuser`:
/// each gap inside a frame and each flagged frame end with TX_ER; whole
/// frames exact; the counters match.
#[test]
fn tx_cut_frames_carry_tx_er() -> Result<()> {
    let mut rng = SmallRng::seed_from_u64(8);
    let packets: Vec<Packet> =
        (0..1500).map(|_| Packet::new((0..rng.gen_range(1..300)).map(|_| rng.gen()).collect(), rng.gen_bool(0.1) as u128)).collect();
    let r = tx(&packets, 0.005, 9)?;
    let frames = decode(&r.syms)?;
    ensure!(frames.len() == packets.len(), "{} frames, {} sent", frames.len(), packets.len());
    let (mut whole, mut cut, mut flagged) = (0u64, 0u64, 0u64);
    for (i, (f, p)) in frames.iter().zip(&packets).enumerate() {
        if p.user == 1 {
            ensure!(f.error && f.bytes.len() == 1, "frame {i}: flagged, {} bytes, error {}", f.bytes.len(), f.error);
            flagged += 1;
        } else if f.error {
            ensure!(f.bytes.len() <= p.data.len(), "frame {i}: cut longer than sent");
            cut += 1;
        } else {
            ensure!(f.bytes == on_wire(&p.data), "frame {i} damaged");
            whole += 1;
        }
    }
    ensure!(cut > 100 && whole > 100, "the mix lost its edge: {cut} cut, {whole} whole");
    ensure!(r.counters[0] == whole && r.counters[2] == cut && r.counters[3] == flagged, "counters {:?}", r.counters);
    Ok(())
}

/// Collects the receiver's packets and verdicts.
struct Catch {
    ports: [Port; 4],
    cur: Vec<u8>,
    got: Vec<(Vec<u8>, bool)>,
}

impl Agent for Catch {
    fn drive(&mut self, _m: &mut Model, _cycle: u64) {}
    fn sample(&mut self, m: &Model, _cycle: u64) {
        let [d, l, u, v] = self.ports;
        if m.get(&v) == 1 {
            self.cur.push(m.get(&d) as u8);
            if m.get(&l) == 1 {
                self.got.push((std::mem::take(&mut self.cur), m.get(&u) == 1));
            }
        }
    }
}

/// Drives the receiver with `syms`.
struct Phy {
    syms: Vec<Sym>,
    next: usize,
    ports: [Port; 3],
}

impl Agent for Phy {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let s = self.syms.get(self.next).copied().unwrap_or_default();
        self.next += 1;
        m.set(&self.ports[0], s.d as u64);
        m.set(&self.ports[1], s.en as u64);
        m.set(&self.ports[2], s.er as u64);
    }
    fn sample(&mut self, _m: &Model, _cycle: u64) {}
}

const RX_COUNTERS: [&str; 6] = ["frames", "bytes", "fcs_errors", "runts", "jabbers", "errors"];

/// Packets with their verdicts, and the counters.
type RxRun = (Vec<(Vec<u8>, bool)>, [u64; 6]);

fn rx(syms: Vec<Sym>, max: u64) -> Result<RxRun> {
    let mut m = model_of(&mut GmiiRx::default(), "ts_gmii_rx", "g")?.instantiate();
    let mb = m.port("max_bytes")?;
    m.set(&mb, max);
    let n = syms.len() as u64;
    let mut phy = Phy { syms, next: 0, ports: ["rxd", "rx_dv", "rx_er"].map(|p| m.port(p).unwrap()) };
    let mut catch = Catch { ports: ["m_tdata", "m_tlast", "m_tuser", "m_tvalid"].map(|p| m.port(p).unwrap()), cur: vec![], got: vec![] };
    let counters = RX_COUNTERS.map(|p| m.port(p).unwrap());
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    tb.run(&mut [&mut phy, &mut catch], n + 20);
    ensure!(catch.cur.is_empty(), "a packet without its last byte");
    Ok((catch.got, counters.map(|p| tb.model.get(&p))))
}

fn frame(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len - 4).map(|_| rng.gen()).collect();
    append_fcs(&mut f);
    f
}

/// Good frames with preambles of 1..7 bytes and gaps of 12 and more among
/// bad ones: every good frame out whole and unflagged, each bad one flagged
/// as its kind and counted once under it.
#[test]
fn rx_frames_flagged_and_counted() -> Result<()> {
    let max = 1518usize;
    let mut rng = SmallRng::seed_from_u64(11);
    let mut e = Encoder::new();
    // (packet expected: bytes, flagged), or None (no packet)
    let mut want: Vec<(Vec<u8>, bool)> = vec![];
    let mut counts = [0u64; 6];
    for _ in 0..2500 {
        let gap = 12 + if rng.gen_bool(0.3) { rng.gen_range(1..20) } else { 0 };
        let pre = rng.gen_range(1..=7);
        match rng.gen_range(0..12) {
            0 => {
                let mut f = {
                    let n = rng.gen_range(64..=max);
                    frame(&mut rng, n)
                };
                let i = rng.gen_range(0..f.len());
                f[i] ^= 0x20;
                e.frame(&f, gap, pre, Fault::None);
                want.push((f, true));
                counts[2] += 1;
            }
            1 => {
                let f = {
                    let n = rng.gen_range(5..64);
                    frame(&mut rng, n)
                };
                e.frame(&f, gap, pre, Fault::None);
                want.push((f, true));
                counts[3] += 1;
            }
            2 => {
                let f = {
                    let n = rng.gen_range(max + 2..max + 200);
                    frame(&mut rng, n)
                };
                e.frame(&f, gap, pre, Fault::None);
                // Cut: the byte past the limit is the packet's last.
                want.push((f[..max + 1].to_vec(), true));
                counts[4] += 1;
            }
            3 => {
                let f = {
                    let n = rng.gen_range(64..=max);
                    frame(&mut rng, n)
                };
                e.frame(&f, gap, pre, Fault::ErrorAt(rng.gen_range(0..f.len())));
                want.push((f, true));
                counts[5] += 1;
            }
            4 => {
                let f = {
                    let n = rng.gen_range(64..=max);
                    frame(&mut rng, n)
                };
                e.frame(&f, gap, pre.max(2), Fault::BadPreamble);
                counts[5] += 1;
            }
            _ => {
                let f = {
                    let n = rng.gen_range(64..=max);
                    frame(&mut rng, n)
                };
                e.frame(&f, gap, pre, Fault::None);
                counts[0] += 1;
                counts[1] += f.len() as u64;
                want.push((f, false));
            }
        }
    }
    e.idle(20);
    let (got, counters) = rx(e.syms, max as u64)?;
    ensure!(got.len() == want.len(), "{} packets, {} expected", got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        ensure!(g == w, "packet {i}: {} B flagged {}, expected {} B flagged {}", g.0.len(), g.1, w.0.len(), w.1);
    }
    ensure!(counters == counts, "counters {counters:?}, expected {counts:?}");
    ensure!(counts.iter().all(|c| *c > 100), "the mix lost a case: {counts:?}");
    Ok(())
}

/// The transmitter's wire into the receiver: 2 000 frames, all good.
#[test]
fn tx_into_rx() -> Result<()> {
    let mut rng = SmallRng::seed_from_u64(12);
    let packets: Vec<Packet> = (0..2000).map(|_| Packet::new((0..rng.gen_range(1..=1514)).map(|_| rng.gen()).collect(), 0)).collect();
    let r = tx(&packets, 0.0, 13)?;
    let (got, counters) = rx(r.syms, 1518)?;
    ensure!(got.len() == packets.len() && counters[0] == packets.len() as u64, "{} of {} frames", got.len(), packets.len());
    for (i, ((g, bad), p)) in got.iter().zip(&packets).enumerate() {
        ensure!(!bad && *g == on_wire(&p.data), "frame {i}");
    }
    Ok(())
}

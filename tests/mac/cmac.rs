//! `ts_cmac_port` (`CmacPort`, the Alveo U250's 100G port on the CMAC's
//! 512-bit AXI4-Stream) in Verilator on two unrelated clocks, each edge
//! jittered: the CMAC's 3.100 ns and the switch's 3.110 ns (0.3% slower,
//! far beyond two oscillators' 200 ppm).
//!
//! Receive: the CMAC has no back-pressure. Frames arrive at 100 Gb/s as
//! the CMAC delivers them, each frame's beats in consecutive cycles and the
//! frame's wire time (its bytes, the FCS the CMAC removed, preamble and
//! gap) before the next; the switch side takes a beat every cycle (the
//! switch's `s_tready` is `!reset`: `rx_fcs`). Every frame must reach the
//! switch clock whole, in order, flagged exactly when the CMAC flagged it,
//! with no overflow. With the switch clock at half speed the FIFO does
//! overflow: every frame is then either delivered as sent or counted in
//! `rx_overflows`, never passed on damaged and unflagged.
//!
//! Transmit: the CMAC must never see `tvalid` fall inside a packet (it
//! would underrun); frames below 60 bytes are padded with zeros (the CMAC
//! appends the FCS but does not pad); at line rate a minimum frame leaves
//! every CMAC cycle the switch side fills.
use crate::port::Catch;
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::mac::cmac::{CmacPort, MIN_PAYLOAD};
use trimswitch_sim::agents::axis::{AxisPorts, AxisSource, Packet};
use trimswitch_sim::harness::clocks::TwoClocks;
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::Agent;
use trimswitch_sim::harness::verilator::{Model, Port};

const CMAC_PS: u64 = 3100;
const SWITCH_PS: u64 = 3110;
/// 100 Gb/s in bytes per CMAC cycle.
const LINE_BYTES_PER_CYCLE: f64 = 100e9 / 8.0 * CMAC_PS as f64 * 1e-12;

fn model() -> Result<Model> {
    // D 512, K 64, M = count_bits(64) = 8, F = D + M + 2, a 16 KiB
    // transmit FIFO of 2^8 beats.
    Ok(model_of(&mut CmacPort::<512, 64, 8, 522, 8, 9>::default(), "ts_cmac_port", "d512")?.instantiate())
}

/// One beat of the CMAC's receive side.
#[derive(Clone)]
struct RxBeat {
    data: [u64; 8],
    keep: u64,
    last: bool,
    user: bool,
}

/// The CMAC's receive side: one scheduled beat (or none) per CMAC cycle.
struct CmacRx {
    beats: Vec<Option<RxBeat>>,
    next: usize,
    ports: [Port; 5], // rx_tdata, rx_tkeep, rx_tlast, rx_tuser, rx_tvalid
}

impl CmacRx {
    /// Frames at 100 Gb/s: each frame's beats back to back, then idle
    /// cycles until its wire time (bytes + 4 FCS + 20) has passed.
    fn schedule(frames: &[(Vec<u8>, bool)], ports: [Port; 5]) -> CmacRx {
        let mut beats = vec![];
        let mut due = 0.0f64;
        for (f, bad) in frames {
            let chunks: Vec<&[u8]> = f.chunks(64).collect();
            for (i, c) in chunks.iter().enumerate() {
                let mut bytes = [0u8; 64];
                bytes[..c.len()].copy_from_slice(c);
                let mut data = [0u64; 8];
                for (w, d) in data.iter_mut().enumerate() {
                    *d = u64::from_le_bytes(bytes[w * 8..w * 8 + 8].try_into().unwrap());
                }
                let last = i + 1 == chunks.len();
                let keep = if c.len() == 64 { u64::MAX } else { (1u64 << c.len()) - 1 };
                beats.push(Some(RxBeat { data, keep, last, user: last && *bad }));
            }
            due += (f.len() + 24) as f64 / LINE_BYTES_PER_CYCLE;
            while (beats.len() as f64) < due {
                beats.push(None);
            }
        }
        CmacRx { beats, next: 0, ports }
    }
}

impl Agent for CmacRx {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let b = self.beats.get(self.next).cloned().flatten();
        self.next += 1;
        let [d, k, l, u, v] = self.ports;
        match b {
            Some(b) => {
                m.set_wide(&d, &b.data);
                m.set(&k, b.keep);
                m.set(&l, b.last as u64);
                m.set(&u, b.user as u64);
                m.set(&v, 1);
            }
            None => m.set(&v, 0),
        }
    }
    fn sample(&mut self, _m: &Model, _cycle: u64) {}
}

/// The CMAC's transmit side: ready with `ready_prob` each cycle; records
/// frames and every cycle `tvalid` was low inside a frame (an underrun on
/// the wire).
struct CmacTx {
    ports: [Port; 6], // tx_tdata, tx_tkeep, tx_tlast, tx_tuser, tx_tvalid, tx_tready
    ready: bool,
    ready_prob: f64,
    rng: SmallRng,
    cur: Vec<u8>,
    frames: Vec<(Vec<u8>, bool)>,
    gaps: u64,
    bad_keep: u64,
    /// CMAC cycles of the first and the last beat taken.
    first: Option<u64>,
    last: u64,
}

impl Agent for CmacTx {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        self.ready = self.ready_prob >= 1.0 || self.rng.gen_bool(self.ready_prob);
        m.set(&self.ports[5], self.ready as u64);
    }
    fn sample(&mut self, m: &Model, cycle: u64) {
        let [d, k, l, u, v, _] = self.ports;
        if m.get(&v) == 0 {
            self.gaps += !self.cur.is_empty() as u64;
            return;
        }
        if !self.ready {
            return;
        }
        self.first.get_or_insert(cycle);
        self.last = cycle;
        let keep = m.get(&k);
        let n = keep.count_ones() as usize;
        let last = m.get(&l) == 1;
        if keep != u64::MAX >> (64 - n.max(1)) || n == 0 || (n < 64 && !last) {
            self.bad_keep += 1;
        }
        let mut data = [0u64; 8];
        m.get_wide(&d, &mut data);
        let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.cur.extend_from_slice(&bytes[..n]);
        if last {
            self.frames.push((std::mem::take(&mut self.cur), m.get(&u) == 1));
        }
    }
    fn idle(&self) -> bool {
        self.cur.is_empty()
    }
}

fn catch(m: &Model, seed: u64) -> Catch {
    Catch {
        ports: ["m_tdata", "m_tkeep", "m_tlast", "m_tuser", "m_tvalid", "m_tready"].map(|p| m.port(p).unwrap()),
        lanes: 64,
        ready: true,
        ready_prob: 1.0,
        rng: SmallRng::seed_from_u64(seed),
        cur: vec![],
        got: vec![],
        errors: vec![],
    }
}

fn rx_ports(m: &Model) -> [Port; 5] {
    ["rx_tdata", "rx_tkeep", "rx_tlast", "rx_tuser", "rx_tvalid"].map(|p| m.port(p).unwrap())
}

fn tx_side(m: &Model, ready_prob: f64, seed: u64) -> CmacTx {
    CmacTx {
        ports: ["tx_tdata", "tx_tkeep", "tx_tlast", "tx_tuser", "tx_tvalid", "tx_tready"].map(|p| m.port(p).unwrap()),
        ready: true,
        ready_prob,
        rng: SmallRng::seed_from_u64(seed),
        cur: vec![],
        frames: vec![],
        gaps: 0,
        bad_keep: 0,
        first: None,
        last: 0,
    }
}

/// Received frames: a third of 60 bytes, a third of 65 (two beats for 89
/// bytes on the wire: the densest beats), the rest 60..9 014; one in ten
/// flagged bad by the CMAC.
fn rx_frames(rng: &mut SmallRng, n: usize) -> Vec<(Vec<u8>, bool)> {
    (0..n)
        .map(|_| {
            let len = match rng.gen_range(0..3) {
                0 => 60,
                1 => 65,
                _ => rng.gen_range(60..=9014),
            };
            ((0..len).map(|_| rng.gen()).collect(), rng.gen_bool(0.1))
        })
        .collect()
}

fn counter(m: &Model, name: &str) -> u64 {
    m.get(&m.port(name).unwrap())
}

/// Both ways at once: 1 500 frames in at line rate and 400 out (1..9 014
/// bytes, 30% below 60, offered in 70% of the switch's cycles) to a CMAC
/// ready in 80% of its cycles.
#[test]
fn frames_cross_at_line_rate_both_ways() -> Result<()> {
    let m = model()?;
    let mut rng = SmallRng::seed_from_u64(71);
    let want_in = rx_frames(&mut rng, 1500);
    let mut rx = CmacRx::schedule(&want_in, rx_ports(&m));
    let mut sw = catch(&m, 72);
    let mut tx = tx_side(&m, 0.8, 73);
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s").without_tuser(), 74)?;
    src.idle_prob = 0.3;
    let mut want_out = vec![];
    for _ in 0..400 {
        let len = if rng.gen_bool(0.3) { rng.gen_range(1..MIN_PAYLOAD) } else { rng.gen_range(MIN_PAYLOAD..=9014) };
        let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        src.push(Packet::new(data.clone(), 0));
        let mut padded = data;
        padded.resize(padded.len().max(MIN_PAYLOAD), 0);
        want_out.push(padded);
    }
    let mut clk = TwoClocks::new(m, ["cmac_clock", "clock"], ["cmac_reset", "reset"], [CMAC_PS, SWITCH_PS], 75)?;
    clk.reset(4);
    let mut edges = 0u64;
    while rx.next < rx.beats.len() + 50 || tx.frames.len() < want_out.len() || !sw.idle() {
        clk.step(&mut [&mut rx, &mut tx], &mut [&mut src, &mut sw]);
        edges += 1;
        ensure!(
            edges < 2_000_000,
            "not done: {} of {} beats in, {} of {} frames out",
            rx.next,
            rx.beats.len(),
            tx.frames.len(),
            want_out.len()
        );
    }
    ensure!(sw.errors.is_empty(), "{} bad beats on the switch side, first {}", sw.errors.len(), sw.errors[0]);
    ensure!(sw.got.len() == want_in.len(), "{} frames on the switch clock, {} received", sw.got.len(), want_in.len());
    for (n, ((g, gbad), (w, wbad))) in sw.got.iter().zip(&want_in).enumerate() {
        ensure!(g == w && gbad == wbad, "frame {n} ({} B, bad {wbad}): {} B, flagged {gbad}", w.len(), g.len());
    }
    let m = &clk.model;
    ensure!(counter(m, "rx_overflows") == 0, "{} overflows", counter(m, "rx_overflows"));
    ensure!(counter(m, "rx_frames") == want_in.len() as u64, "rx_frames {}", counter(m, "rx_frames"));
    let bad = want_in.iter().filter(|f| f.1).count() as u64;
    ensure!(counter(m, "rx_errors") == bad, "rx_errors {} of {bad}", counter(m, "rx_errors"));
    ensure!(tx.gaps == 0, "tvalid fell {} times inside a frame", tx.gaps);
    ensure!(tx.bad_keep == 0, "{} beats with a bad tkeep", tx.bad_keep);
    ensure!(tx.frames.len() == want_out.len(), "{} frames to the CMAC, {} sent", tx.frames.len(), want_out.len());
    for (n, ((g, gbad), w)) in tx.frames.iter().zip(&want_out).enumerate() {
        ensure!(g == w && !gbad, "frame {n} out ({} B): {} B, tuser {gbad}", w.len(), g.len());
    }
    ensure!(counter(m, "tx_frames") == want_out.len() as u64, "tx_frames {}", counter(m, "tx_frames"));
    let in_bytes: usize = want_in.iter().map(|f| f.0.len() + 24).sum();
    eprintln!(
        "cmac_port: {} frames in at {:.1} Gb/s offered, {} out, {:?} cycles (CMAC, switch)",
        want_in.len(),
        in_bytes as f64 * 8.0 / (rx.beats.len() as f64 * CMAC_PS as f64 * 1e-3),
        want_out.len(),
        clk.cycles
    );
    Ok(())
}

/// With the switch clock at half the CMAC's, 65-byte frames at line rate
/// (0.87 beats per CMAC cycle) overflow the receive FIFO. The outcome is
/// defined: each frame reaches the switch side as sent (data and flag) or
/// is counted in `rx_overflows`; a cut frame ends flagged, so no damaged
/// frame passes unflagged, and the counts add up exactly.
#[test]
fn a_slow_switch_side_costs_counted_frames() -> Result<()> {
    let m = model()?;
    let mut rng = SmallRng::seed_from_u64(81);
    let want: Vec<(Vec<u8>, bool)> = (0..600).map(|_| ((0..65).map(|_| rng.gen()).collect(), rng.gen_bool(0.1))).collect();
    let mut rx = CmacRx::schedule(&want, rx_ports(&m));
    let mut sw = catch(&m, 82);
    let mut tx = tx_side(&m, 1.0, 83);
    let mut idle = AxisSource::new(&m, &AxisPorts::slave("s").without_tuser(), 84)?;
    let mut clk = TwoClocks::new(m, ["cmac_clock", "clock"], ["cmac_reset", "reset"], [CMAC_PS, 2 * CMAC_PS], 85)?;
    clk.reset(4);
    while rx.next < rx.beats.len() + 200 {
        clk.step(&mut [&mut rx, &mut tx], &mut [&mut idle, &mut sw]);
    }
    let over = counter(&clk.model, "rx_overflows");
    ensure!(over > 0, "no overflow at half speed: the test does not reach the case");
    // Unflagged frames out are exactly the unflagged frames sent, in order,
    // less those lost; each frame sent is delivered as sent or counted.
    let mut next = 0usize;
    let mut intact = 0u64;
    for (g, gbad) in &sw.got {
        let at = want[next..].iter().position(|(w, wbad)| w == g && wbad == gbad);
        match at {
            Some(i) => {
                next += i + 1;
                intact += 1;
            }
            None => ensure!(*gbad, "a {}-byte frame passed unflagged that was not sent so", g.len()),
        }
    }
    ensure!(intact + over == want.len() as u64, "{intact} frames intact + {over} counted != {} sent", want.len());
    eprintln!("cmac_port at half speed: {} frames, {intact} intact, {over} counted in rx_overflows", want.len());
    Ok(())
}

/// Minimum frames back to back: with the CMAC always ready, a 60-byte
/// frame leaves on every CMAC cycle the switch side fills (its clock 0.3%
/// slower): far above 100G's 148.8 Mpps.
#[test]
fn minimum_frames_leave_at_line_rate() -> Result<()> {
    let m = model()?;
    let mut tx = tx_side(&m, 1.0, 91);
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s").without_tuser(), 92)?;
    let n = 3000usize;
    for i in 0..n {
        src.push(Packet::new(vec![i as u8; MIN_PAYLOAD], 0));
    }
    let mut rx = CmacRx { beats: vec![], next: 0, ports: rx_ports(&m) };
    let mut sw = catch(&m, 93);
    let mut clk = TwoClocks::new(m, ["cmac_clock", "clock"], ["cmac_reset", "reset"], [CMAC_PS, SWITCH_PS], 94)?;
    clk.reset(4);
    let mut edges = 0u64;
    while tx.frames.len() < n {
        clk.step(&mut [&mut rx, &mut tx], &mut [&mut src, &mut sw]);
        edges += 1;
        ensure!(edges < 100_000, "{} of {n} frames out", tx.frames.len());
    }
    ensure!(tx.gaps == 0, "tvalid fell inside a frame {} times", tx.gaps);
    let cycles = tx.last - tx.first.unwrap_or(0) + 1;
    let mpps = n as f64 / (cycles as f64 * CMAC_PS as f64 * 1e-6);
    ensure!(n as f64 / cycles as f64 >= 0.99, "{n} frames in {cycles} CMAC cycles");
    ensure!(tx.frames.iter().enumerate().all(|(i, f)| f.0 == vec![i as u8; MIN_PAYLOAD]), "a frame out differs from its frame in");
    eprintln!("cmac_port: {n} minimum frames in {cycles} CMAC cycles: {mpps:.1} Mpps (100G needs 148.8)");
    Ok(())
}

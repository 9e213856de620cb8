//! `ts_xgmii_port`, and the core of every port (`MacPort`) at the 1G MAC's
//! byte width, in Verilator on two unrelated clocks (the XGMII's 6.4 ns
//! against the switch's 5.0 ns, each edge jittered, random phase): frames
//! from the clause-46 encoder cross into the switch clock as `D`-bit beats
//! with the MAC's verdict; frames from the switch side leave on the XGMII
//! padded, with their FCS, at line rate and without an underrun; a switch
//! side that stops taking beats costs counted, flagged frames, and the
//! port recovers.
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::mac::port::XgmiiPort;
use trimswitch_sim::agents::axis::{AxisPorts, AxisSource, Packet};
use trimswitch_sim::agents::xgmii::{decode, Encoder, Fault, Word};
use trimswitch_sim::harness::clocks::TwoClocks;
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::Agent;
use trimswitch_sim::harness::verilator::{Model, ModelLib, Port};
use trimswitch_sim::packet::crc::{append_fcs, fcs_ok};

const MAC_PS: u64 = 6400;
const SWITCH_PS: u64 = 5000;

fn lib(width: usize) -> Result<ModelLib> {
    match width {
        64 => model_of(&mut XgmiiPort::<64, 8, 5, 71, 11, 12>::default(), "ts_xgmii_port", "d64"),
        256 => model_of(&mut XgmiiPort::<256, 32, 7, 265, 9, 10>::default(), "ts_xgmii_port", "d256"),
        _ => anyhow::bail!("no port build at {width} bits"),
    }
}

/// The PHY: drives the receive XGMII one word per MAC cycle (idles after
/// its words), records the transmit XGMII (also the loop test's, one per
/// port).
pub(crate) struct Phy {
    pub(crate) rx: Vec<Word>,
    pub(crate) next: usize,
    pub(crate) ports: [Port; 4], // rxd, rxc, txd, txc
    pub(crate) tx: Vec<Word>,
}

impl Agent for Phy {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let w = self.rx.get(self.next).copied().unwrap_or(Word::IDLE);
        self.next += 1;
        m.set(&self.ports[0], w.data);
        m.set(&self.ports[1], w.ctrl as u64);
    }
    fn sample(&mut self, m: &Model, _cycle: u64) {
        self.tx.push(Word { data: m.get(&self.ports[2]), ctrl: m.get(&self.ports[3]) as u8 });
    }
}

/// The switch's receive side: takes `m_*` beats (ready with `ready_prob`
/// each cycle), collecting packets and the last beat's `tuser`; checks
/// `tkeep` (packed, full but on a last beat).
pub(crate) struct Catch {
    pub(crate) ports: [Port; 6], // tdata, tkeep, tlast, tuser, tvalid, tready
    pub(crate) lanes: usize,
    pub(crate) ready: bool,
    pub(crate) ready_prob: f64,
    pub(crate) rng: SmallRng,
    pub(crate) cur: Vec<u8>,
    pub(crate) got: Vec<(Vec<u8>, bool)>,
    pub(crate) errors: Vec<String>,
}

impl Agent for Catch {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        self.ready = self.ready_prob >= 1.0 || self.rng.gen_bool(self.ready_prob);
        m.set(&self.ports[5], self.ready as u64);
    }
    fn sample(&mut self, m: &Model, cycle: u64) {
        let [d, k, l, u, v, _] = self.ports;
        if m.get(&v) == 0 || !self.ready {
            return;
        }
        let mut keep = vec![0u64; self.lanes.div_ceil(64)];
        m.get_wide(&k, &mut keep);
        let n: usize = keep.iter().map(|w| w.count_ones() as usize).sum();
        let last = m.get(&l) == 1;
        let packed = (0..self.lanes).all(|i| (keep[i / 64] >> (i % 64)) & 1 == (i < n) as u64);
        if !packed || (n < self.lanes && !last) {
            self.errors.push(format!("cycle {cycle}: {n} lanes, tlast {last}"));
        }
        let mut data = vec![0u64; self.lanes / 8];
        m.get_wide(&d, &mut data);
        let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.cur.extend_from_slice(&bytes[..n]);
        if last {
            self.got.push((std::mem::take(&mut self.cur), m.get(&u) == 1));
        }
    }
    fn idle(&self) -> bool {
        self.cur.is_empty()
    }
}

struct Bench {
    clk: TwoClocks,
    phy: Phy,
    catch: Catch,
    src: AxisSource,
    /// Frames pushed into `src`: the run waits for as many on the wire.
    pushed: u64,
    tx_done: [Port; 3],
}

impl Bench {
    fn new(width: usize, seed: u64) -> Result<Bench> {
        let m = lib(width)?.instantiate();
        let mb = m.port("max_bytes")?;
        let phy = Phy { rx: vec![], next: 0, ports: ["rxd", "rxc", "txd", "txc"].map(|p| m.port(p).unwrap()), tx: vec![] };
        let catch = Catch {
            ports: ["m_tdata", "m_tkeep", "m_tlast", "m_tuser", "m_tvalid", "m_tready"].map(|p| m.port(p).unwrap()),
            lanes: width / 8,
            ready: true,
            ready_prob: 1.0,
            rng: SmallRng::seed_from_u64(seed + 1),
            cur: vec![],
            got: vec![],
            errors: vec![],
        };
        let src = AxisSource::new(&m, &AxisPorts::slave("s").without_tuser(), seed + 2)?;
        let mut clk = TwoClocks::new(m, ["mac_clock", "clock"], ["mac_reset", "reset"], [MAC_PS, SWITCH_PS], seed)?;
        clk.model.set(&mb, 9022);
        clk.reset(4);
        let tx_done = ["tx_frames", "tx_underruns", "tx_errors"].map(|p| clk.model.port(p).unwrap());
        Ok(Bench { clk, phy, catch, src, pushed: 0, tx_done })
    }

    /// Pushes a frame into the switch-side source.
    fn push(&mut self, data: Vec<u8>) {
        self.src.push(Packet::new(data, 0));
        self.pushed += 1;
    }

    /// Runs until the PHY's words are out, every pushed frame has left
    /// the transmit MAC (whole or cut) and the wire has been idle for 64
    /// words.
    fn run(&mut self, max_edges: u64) -> Result<()> {
        let Bench { clk, phy, catch, src, pushed, tx_done } = self;
        for _ in 0..max_edges {
            let idle_tail = phy.tx.len() >= 64 && phy.tx[phy.tx.len() - 64..].iter().all(|w| *w == Word::IDLE);
            let sent: u64 = tx_done.iter().map(|p| clk.model.get(p)).sum();
            if phy.next > phy.rx.len() + 64 && sent >= *pushed && catch.idle() && idle_tail {
                return Ok(());
            }
            clk.step(&mut [phy], &mut [src, catch]);
        }
        anyhow::bail!("not done after {max_edges} edges: {} of {} words in, {} packets to send", phy.next, phy.rx.len(), src.pending())
    }

    fn get(&self, name: &str) -> u64 {
        let p = self.clk.model.port(name).unwrap();
        self.clk.model.get(&p)
    }
}

/// A frame of `len` bytes, FCS included.
fn frame(rng: &mut SmallRng, len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len - 4).map(|_| rng.gen()).collect();
    append_fcs(&mut f);
    f
}

/// Both ways at once, at 64 and 256 bits. In: good frames 64..1 518 B and
/// jumbos (a burst of minimum frames back to back among them), bad FCS,
/// runts and /E/ frames: each packet out whole and in order on the switch
/// clock, flagged exactly when bad. Out: payloads of 1..9 014 B offered in
/// 70% of the switch's cycles, each on the wire padded with its FCS, no
/// underrun, the counters exact.
#[test]
fn frames_cross_both_ways() -> Result<()> {
    for (i, width) in [64usize, 256].into_iter().enumerate() {
        let seed = 100 + 10 * i as u64;
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut b = Bench::new(width, seed)?;
        let mut enc = Encoder::new(true);
        let mut want_in = vec![];
        while enc.words.len() < 30_000 {
            let kind = rng.gen_range(0..20);
            let len = match kind {
                0 => rng.gen_range(9000..=9022),
                1..=4 => 64,
                5 => rng.gen_range(20..64),
                _ => rng.gen_range(64..=1518),
            };
            let mut f = frame(&mut rng, len);
            let mut fault = Fault::None;
            let mut bad = len < 64;
            if kind == 6 {
                f[rng.gen_range(0..len)] ^= 0x10;
                bad = true;
            }
            if kind == 7 {
                fault = Fault::ErrorAt(rng.gen_range(0..len));
                bad = true;
            }
            let burst = if kind == 8 { 40 } else { 1 };
            for _ in 0..burst {
                enc.frame(&f, if rng.gen_bool(0.8) { 0 } else { rng.gen_range(1..30) }, fault);
                // A frame with /E/ comes out with the /E/ lane's byte as is.
                want_in.push((f.clone(), bad));
            }
        }
        b.phy.rx = enc.finish();
        // The switch side offers a beat 70% of cycles: at 64 bits that is
        // 8.96 Gb/s, below the line, so only the frame FIFO (a frame shown
        // once whole) keeps the MAC from underrunning.
        b.src.idle_prob = 0.3;
        let mut want_out = vec![];
        let mut wire = 0usize;
        while wire < 30_000 * 8 {
            let len = match rng.gen_range(0..20) {
                0 => rng.gen_range(8990..=9014),
                1..=5 => rng.gen_range(1..=60),
                _ => rng.gen_range(61..=1514),
            };
            let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            wire += len.max(60) + 24;
            b.push(data.clone());
            want_out.push(data);
        }
        b.run(2_000_000)?;
        ensure!(b.catch.errors.is_empty(), "{width} bits: {} bad beats, first {}", b.catch.errors.len(), b.catch.errors[0]);
        ensure!(b.catch.got.len() == want_in.len(), "{width} bits: {} packets in, {} frames sent", b.catch.got.len(), want_in.len());
        for (n, ((g, gbad), (w, wbad))) in b.catch.got.iter().zip(&want_in).enumerate() {
            ensure!(gbad == wbad, "{width} bits: packet {n} ({} B) flagged {gbad}, expected {wbad}", w.len());
            // A frame with /E/ differs in the /E/ lane; the others are exact.
            ensure!(*gbad || g == w, "{width} bits: packet {n}: {} B out, {} B sent, differing", g.len(), w.len());
        }
        let frames = decode(&b.phy.tx)?;
        ensure!(frames.len() == want_out.len(), "{width} bits: {} frames on the wire, {} sent", frames.len(), want_out.len());
        for (n, (f, p)) in frames.iter().zip(&want_out).enumerate() {
            let mut exp = p.clone();
            exp.resize(exp.len().max(60), 0);
            append_fcs(&mut exp);
            ensure!(!f.error && f.bytes == exp && fcs_ok(&f.bytes), "{width} bits: frame {n} ({} B) on the wire differs", p.len());
        }
        let out_bytes: u64 = want_out.iter().map(|p| p.len().max(60) as u64 + 4).sum();
        let good = want_in.iter().filter(|(_, bad)| !bad).count() as u64;
        for (name, want) in [
            ("tx_frames", want_out.len() as u64),
            ("tx_bytes", out_bytes),
            ("tx_underruns", 0),
            ("tx_errors", 0),
            ("rx_frames", good),
            ("rx_overflows", 0),
        ] {
            ensure!(b.get(name) == want, "{width} bits: {name} = {}, expected {want}", b.get(name));
        }
        eprintln!(
            "xgmii_port/{width}: {} frames in ({good} good), {} out, {:?} cycles (MAC, switch)",
            want_in.len(),
            want_out.len(),
            b.clk.cycles
        );
    }
    Ok(())
}

/// Line rate out of the switch side: 3 000 minimum payloads (60 B) pushed
/// back to back leave one per 84 bytes on the wire (a /S/ every 10.5 words,
/// 14.880952 Mpps at 156.25 MHz): the frame FIFO and the downsizer never
/// hold the MAC back. And 3 000 minimum frames in: none lost, none
/// flagged.
#[test]
fn line_rate_both_ways() -> Result<()> {
    let mut b = Bench::new(256, 7)?;
    let mut rng = SmallRng::seed_from_u64(8);
    let n = 3000;
    let mut enc = Encoder::new(true);
    for _ in 0..n {
        let f = frame(&mut rng, 64);
        enc.frame(&f, 0, Fault::None);
        b.push(f[..60].to_vec());
    }
    b.phy.rx = enc.finish();
    b.run(2_000_000)?;
    ensure!(b.catch.got.len() == n && b.catch.got.iter().all(|(_, bad)| !bad), "{} of {n} frames in", b.catch.got.len());
    let frames = decode(&b.phy.tx)?;
    ensure!(frames.len() == n, "{} of {n} frames out", frames.len());
    // Words from the first /S/ to the last, over the frames between them;
    // the first frames wait for the FIFO to fill, so from frame 100 on.
    let span = (frames[n - 1].word * 8 + frames[n - 1].lane) - (frames[100].word * 8 + frames[100].lane);
    let per = span as f64 / (n - 101) as f64;
    ensure!((per - 84.0).abs() < 0.01, "{per} bytes per minimum frame on the wire (84 at line rate)");
    ensure!(b.get("tx_underruns") == 0 && b.get("rx_overflows") == 0, "underruns / overflows");
    eprintln!("xgmii_port/256: {per} bytes per frame out = {:.6} Mpps at 156.25 MHz", 156.25e6 * 8.0 / per / 1e6);
    Ok(())
}

/// The switch side stops taking beats for 4 000 cycles while minimum and
/// longer frames arrive: the receive FIFO fills, the upsizer cuts and
/// counts (`rx_overflows`), every cut frame that reaches the switch side is
/// flagged, every unflagged packet is a sent frame whole and in order, and
/// the frames after the stall all pass.
#[test]
fn a_stalled_switch_side_costs_counted_frames() -> Result<()> {
    let mut b = Bench::new(64, 21)?;
    let mut rng = SmallRng::seed_from_u64(22);
    let mut enc = Encoder::new(true);
    let mut sent = vec![];
    for i in 0..3000 {
        let len = if i % 3 == 0 { rng.gen_range(65..600) } else { 64 };
        let f = frame(&mut rng, len);
        enc.frame(&f, 0, Fault::None);
        sent.push(f);
    }
    b.phy.rx = enc.finish();
    // Stall from switch cycle 2 000 to 6 000.
    b.catch.ready_prob = 1.0;
    while b.clk.cycles[1] < 2000 {
        let Bench { clk, phy, catch, src, .. } = &mut b;
        clk.step(&mut [phy], &mut [src, catch]);
    }
    b.catch.ready_prob = 0.0;
    while b.clk.cycles[1] < 6000 {
        let Bench { clk, phy, catch, src, .. } = &mut b;
        clk.step(&mut [phy], &mut [src, catch]);
    }
    b.catch.ready_prob = 1.0;
    b.run(2_000_000)?;
    ensure!(b.catch.errors.is_empty(), "{} bad beats, first {}", b.catch.errors.len(), b.catch.errors[0]);
    let over = b.get("rx_overflows");
    ensure!(over > 100, "rx_overflows = {over}: the stall lost no frame");
    let mut next = 0;
    let mut flagged = 0;
    for (g, bad) in &b.catch.got {
        if *bad {
            flagged += 1;
            continue;
        }
        let at = sent[next..]
            .iter()
            .position(|s| s == g)
            .ok_or_else(|| anyhow::anyhow!("an unflagged packet ({} B) is no sent frame in order", g.len()))?;
        next += at + 1;
    }
    let whole = b.catch.got.len() as u64 - flagged;
    ensure!(whole + over >= sent.len() as u64, "{whole} whole + {over} overflows < {} sent", sent.len());
    // The last 500 frames came after the stall: all whole.
    let tail: Vec<&Vec<u8>> = b.catch.got.iter().rev().take(500).map(|(g, _)| g).collect();
    ensure!(tail.iter().rev().zip(&sent[sent.len() - 500..]).all(|(g, s)| *g == s), "frames after the stall damaged");
    eprintln!("xgmii_port/64 stall: {whole} whole, {flagged} flagged, {over} overflows of {} frames", sent.len());
    Ok(())
}

/// The MAC side of [`MacPort`] at GMII width (`S` = 8): drives received
/// bytes, one per cycle while `rx` has them (`None`: an idle cycle), and
/// takes transmitted bytes like the 1G transmit MAC: ready during a frame,
/// then not for 20 cycles (preamble and gap). A frame that stops while the
/// MAC is ready is an underrun.
struct GmiiSide {
    rx: Vec<Option<(u8, bool, bool)>>,
    next: usize,
    ports: [Port; 9], // rx_tdata, rx_tkeep, rx_tlast, rx_tuser, rx_tvalid, tx_tdata, tx_tlast, tx_tvalid, tx_tready
    rest: u32,
    in_frame: bool,
    cur: Vec<u8>,
    tx: Vec<Vec<u8>>,
    underruns: u64,
}

impl Agent for GmiiSide {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let b = self.rx.get(self.next).copied().flatten();
        self.next += 1;
        let [d, k, l, u, v, _, _, _, r] = self.ports;
        m.set(&d, b.map_or(0, |b| b.0 as u64));
        m.set(&k, 1);
        m.set(&l, b.is_some_and(|b| b.1) as u64);
        m.set(&u, b.is_some_and(|b| b.2) as u64);
        m.set(&v, b.is_some() as u64);
        m.set(&r, (self.rest == 0) as u64);
    }
    fn sample(&mut self, m: &Model, _cycle: u64) {
        let [_, _, _, _, _, d, l, v, _] = self.ports;
        if self.rest > 0 {
            self.rest -= 1;
            return;
        }
        if m.get(&v) == 0 {
            self.underruns += self.in_frame as u64;
            return;
        }
        self.in_frame = true;
        self.cur.push(m.get(&d) as u8);
        if m.get(&l) == 1 {
            self.tx.push(std::mem::take(&mut self.cur));
            self.in_frame = false;
            self.rest = 20;
        }
    }
}

/// [`MacPort`] at GMII width (`S` = 8, `ts_rgmii_port`'s core) on two
/// unrelated clocks, 8 ns (the MACs' 125 MHz, receive and transmit) and
/// 16 ns (the ECP5 board's 62.5 MHz switch clock), 64 bits: received bytes
/// (frames 20..1 522 B back to back with 20-cycle gaps, some flagged bad
/// on their last byte) come out as packed beats, whole, in order, flagged
/// exactly when sent so; the switch side's packets (1..1 518 B, offered in
/// 70% of its cycles) leave as bytes, whole, with no underrun (frame mode).
#[test]
fn gmii_words_cross_both_ways() -> Result<()> {
    use trimswitch_hdl::mac::port::MacPort;
    let m = model_of(&mut MacPort::<8, 1, 64, 8, 5, 71, 11, 12>::default(), "ts_mac_port", "s8-d64")?.instantiate();
    let mut rng = SmallRng::seed_from_u64(41);
    let mut gmii = GmiiSide {
        rx: vec![],
        next: 0,
        ports: ["rx_tdata", "rx_tkeep", "rx_tlast", "rx_tuser", "rx_tvalid", "tx_tdata", "tx_tlast", "tx_tvalid", "tx_tready"]
            .map(|p| m.port(p).unwrap()),
        rest: 0,
        in_frame: false,
        cur: vec![],
        tx: vec![],
        underruns: 0,
    };
    let mut want_in = vec![];
    while gmii.rx.len() < 120_000 {
        let len = if rng.gen_bool(0.3) { 64 } else { rng.gen_range(20..=1522) };
        let f: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let bad = rng.gen_bool(0.1);
        for (i, b) in f.iter().enumerate() {
            gmii.rx.push(Some((*b, i + 1 == len, bad && i + 1 == len)));
        }
        gmii.rx.extend(std::iter::repeat_n(None, 20));
        want_in.push((f, bad));
    }
    let mut catch = Catch {
        ports: ["m_tdata", "m_tkeep", "m_tlast", "m_tuser", "m_tvalid", "m_tready"].map(|p| m.port(p).unwrap()),
        lanes: 8,
        ready: true,
        ready_prob: 1.0,
        rng: SmallRng::seed_from_u64(42),
        cur: vec![],
        got: vec![],
        errors: vec![],
    };
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s").without_tuser(), 43)?;
    src.idle_prob = 0.3;
    let mut want_out = vec![];
    for _ in 0..150 {
        let len = if rng.gen_bool(0.3) { rng.gen_range(1..=60) } else { rng.gen_range(61..=1518) };
        let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        src.push(Packet::new(data.clone(), 0));
        want_out.push(data);
    }
    let mut clk = TwoClocks::new(m, ["rx_clock", "clock"], ["rx_reset", "reset"], [8000, 16000], 44)?.also(0, "tx_clock", "tx_reset")?;
    clk.reset(4);
    let mut edges = 0u64;
    while gmii.next < gmii.rx.len() + 100 || gmii.tx.len() < want_out.len() || !catch.idle() {
        clk.step(&mut [&mut gmii], &mut [&mut src, &mut catch]);
        edges += 1;
        ensure!(
            edges < 3_000_000,
            "not done: {} of {} bytes in, {} of {} packets out",
            gmii.next,
            gmii.rx.len(),
            gmii.tx.len(),
            want_out.len()
        );
    }
    ensure!(catch.errors.is_empty(), "{} bad beats, first {}", catch.errors.len(), catch.errors[0]);
    ensure!(catch.got.len() == want_in.len(), "{} packets in, {} frames sent", catch.got.len(), want_in.len());
    for (n, ((g, gbad), (w, wbad))) in catch.got.iter().zip(&want_in).enumerate() {
        ensure!(gbad == wbad && g == w, "packet {n} ({} B, bad {wbad}): {} B out, flagged {gbad}", w.len(), g.len());
    }
    ensure!(
        gmii.tx == want_out,
        "{} of {} packets out as sent",
        gmii.tx.iter().zip(&want_out).filter(|(a, b)| a == b).count(),
        want_out.len()
    );
    ensure!(gmii.underruns == 0, "{} underruns", gmii.underruns);
    let over = clk.model.port("rx_overflows")?;
    ensure!(clk.model.get(&over) == 0, "rx_overflows");
    eprintln!("mac_port/8->64: {} frames in, {} out, {:?} cycles (MAC, switch)", want_in.len(), want_out.len(), clk.cycles);
    Ok(())
}

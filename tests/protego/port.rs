//! `ts_protego_port` twice in Verilator, joined by a lossy link (the
//! model's `LossyLink`, a delay in cycles each way): port A's host sends
//! numbered frames (and, with reverse traffic, B's host too); the link
//! loses frames of every kind (DATA, RETX, dummies, LOSS, ACK); every
//! frame on the wire is classified, and at the end each side's registers
//! (read over AXI4-Lite) must equal what the wire carried, and the frames
//! B's host gets must be those A's sent: in ordered mode each exactly once
//! and in order or skipped by a counted timeout, in ProtegoNB each that
//! reached B exactly once, with Protego off the link's survivors untouched.
use crate::common::*;
use crate::frame;
use anyhow::{ensure, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use trimswitch_hdl::config::Config;
use trimswitch_hdl::protego::port::{PortRegs, ProtegoPort};
use trimswitch_sim::agents::axil::{axil_read, axil_write, AxilMaster};
use trimswitch_sim::agents::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::ModelLib;
use trimswitch_sim::model::lossy::{LossModel, LossyLink};
use trimswitch_sim::model::protego::{read_tag, strip_tag, Loss};
use trimswitch_sim::rtl::protego::wire_kind;

/// `tuser` of a frame from `rx_fcs` in these tests: source port 5, its
/// length at bits 16..32.
fn user_of(len: usize) -> u128 {
    5 | (len as u128) << 16
}

/// One port with its four streams and its register master.
struct End {
    tb: Tb,
    host_in: AxisSource,
    wire_out: AxisSink,
    wire_in: AxisSource,
    host_out: AxisSink,
    axil: AxilMaster,
}

impl End {
    fn new(lib: &ModelLib, seed: u64) -> Result<End> {
        let m = lib.instantiate();
        let host_in = AxisSource::new(&m, &AxisPorts::slave("tx_s"), seed)?;
        let mut wire_out = AxisSink::new(&m, &AxisPorts::master("tx_m"), seed + 1)?;
        let wire_in = AxisSource::new(&m, &AxisPorts::slave("rx_s"), seed + 2)?;
        let mut host_out = AxisSink::new(&m, &AxisPorts::master("rx_m"), seed + 3)?;
        let axil = AxilMaster::new(&m, "s_axil", seed + 4)?;
        wire_out.ready_prob = 1.0;
        host_out.ready_prob = 0.9;
        let mut tb = Tb::new(m, "clock", Some("reset"))?;
        tb.reset(2);
        Ok(End { tb, host_in, wire_out, wire_in, host_out, axil })
    }

    fn step(&mut self) {
        self.tb.step(&mut [&mut self.host_in, &mut self.wire_out, &mut self.wire_in, &mut self.host_out, &mut self.axil]);
    }

    fn reg(&mut self, addr: u32) -> Result<u32> {
        let others: &mut [&mut dyn Agent] = &mut [&mut self.host_in, &mut self.wire_out, &mut self.wire_in, &mut self.host_out];
        let (v, resp) = axil_read(&mut self.tb, &mut self.axil, addr as u64, others)?;
        ensure!(resp == 0, "register {addr:#x}: response {resp}");
        Ok(v)
    }

    fn ro(&mut self, name: &str) -> Result<u64> {
        self.reg(PortRegs::ro(name).with_context(|| format!("no register {name}"))?).map(|v| v as u64)
    }

    fn set(&mut self, addr: u32, v: u32) -> Result<()> {
        let others: &mut [&mut dyn Agent] = &mut [&mut self.host_in, &mut self.wire_out, &mut self.wire_in, &mut self.host_out];
        let resp = axil_write(&mut self.tb, &mut self.axil, addr as u64, v, others)?;
        ensure!(resp == 0, "register {addr:#x}: response {resp}");
        Ok(())
    }
}

/// What one direction of the wire carried: frames by kind, sent (`.0`)
/// and arrived (`.1`), and per host frame number the copies (DATA or
/// RETX) that arrived.
#[derive(Default, Debug)]
struct Wire {
    kinds: BTreeMap<&'static str, (u64, u64)>,
    copies: BTreeMap<u32, u64>,
    /// The highest `latest` (17 bits) an ACK or LOSS that arrived carried.
    latest: Option<u32>,
}

/// A frame on the link by kind (`trimswitch_sim::rtl::protego::wire_kind`).
fn classify(f: &[u8]) -> &'static str {
    wire_kind(f, 3)
}

/// The number a host frame carries in its last four bytes.
fn number(f: &[u8]) -> u32 {
    u32::from_be_bytes(f[f.len() - 4..].try_into().unwrap())
}

/// Moves the frames `from` sent onto `to`'s input, `delay` cycles on,
/// unless the link loses them.
fn carry(from: &mut End, to: &mut End, link: &mut LossyLink, wire: &mut Wire, delay: u64) {
    let now = from.tb.cycle();
    while let Some(p) = from.wire_out.packets.pop_front() {
        let k = classify(&p.data);
        wire.kinds.entry(k).or_default().0 += 1;
        if link.lose(&p.data, p.data.len() + 24) {
            continue;
        }
        wire.kinds.entry(k).or_default().1 += 1;
        if k == "data" || k == "retx" {
            let at = read_tag(&p.data).unwrap().1;
            *wire.copies.entry(number(&strip_tag(&p.data, at))).or_default() += 1;
        }
        if let (true, Some((t, at))) = (k == "ack" || k == "loss", read_tag(&p.data)) {
            let l = if k == "ack" { t.seq } else { Loss::parse(&p.data, t, at).expect("a whole LOSS").latest };
            wire.latest = wire.latest.max(Some(l.v17()));
        }
        let len = p.data.len();
        to.wire_in.push_at(Packet::new(p.data, user_of(len)), now + delay);
    }
}

#[derive(Clone, Copy, Debug)]
struct Run {
    frames: usize,
    /// Loss on A -> B and on B -> A (Bernoulli per frame).
    p: f64,
    p_back: f64,
    copies: u32,
    nb: bool,
    /// Protego on (`CTRL` tx and rx, written at run time: the
    /// configuration has it off).
    on: bool,
    /// B's host sends too.
    reverse: bool,
    delay: u64,
    seed: u64,
}

/// The ports' configuration: 64 bits, 16 KB rings of 64 frames, a 3 µs
/// timeout (600 cycles), a 12 KB buffer.
fn cfg() -> Result<Config> {
    let cfg = config_with("netfpga-sume", &PROTEGO_PORT_SETS)?;
    ensure!(!cfg.protego.enable, "the tests turn Protego on at run time");
    Ok(cfg)
}

fn lib() -> Result<ModelLib> {
    model_of(&mut ProtegoPort::<64, 8, 128>::new(&cfg()?), "ts_protego_port", "d64_r16k_f64")
}

/// Host frames: 60..400 bytes, numbered, a tenth with a VLAN tag.
fn host_frames(rng: &mut StdRng, n: usize, base: u32) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let (len, vlans) = (rng.gen_range(60..400), rng.gen_bool(0.1) as usize);
            frame(rng, len, vlans, base + i as u32)
        })
        .collect()
}

/// What a run gives: per side its registers by name, the wires, the
/// frames each host got.
struct Outcome {
    regs: [BTreeMap<&'static str, u64>; 2],
    wire: [Wire; 2],
    got: [Vec<Packet>; 2],
    sent: [Vec<Vec<u8>>; 2],
}

fn run(r: Run) -> Result<Outcome> {
    let lib = lib()?;
    let mut e = [End::new(&lib, r.seed)?, End::new(&lib, r.seed + 10)?];
    // Both sides clear their tables (a cycle per entry) first.
    for x in &mut e {
        for _ in 0..600 {
            x.step();
        }
        if r.on {
            x.set(PortRegs::COPIES, r.copies)?;
            x.set(PortRegs::CTRL, PortRegs::CTRL_TX | PortRegs::CTRL_RX | if r.nb { PortRegs::CTRL_NB } else { 0 })?;
        }
    }
    // Line up the two clocks (the register writes stepped each alone).
    let (c0, c1) = (e[0].tb.cycle(), e[1].tb.cycle());
    for _ in c0..c1.max(c0) {
        e[0].step();
    }
    for _ in c1..c0.max(c1) {
        e[1].step();
    }
    let mut rng = StdRng::seed_from_u64(r.seed);
    let sent = [host_frames(&mut rng, r.frames, 0), if r.reverse { host_frames(&mut rng, r.frames, 1 << 20) } else { vec![] }];
    let start = e[0].tb.cycle();
    for (x, frames) in e.iter_mut().zip(&sent) {
        // Offered at about the link's rate with gaps.
        let mut at = start + 10;
        for f in frames {
            x.host_in.push_at(Packet::new(f.clone(), 0), at);
            at += f.len().div_ceil(8) as u64 + rng.gen_range(0..20);
        }
    }
    let mut links = [
        LossyLink::new(LossModel::Bernoulli { p: r.p }, r.seed + 100).map_err(anyhow::Error::msg)?,
        LossyLink::new(LossModel::Bernoulli { p: r.p_back }, r.seed + 101).map_err(anyhow::Error::msg)?,
    ];
    let mut wire = [Wire::default(), Wire::default()];
    let want: usize = sent.iter().map(|s| s.len()).sum();
    let budget = 40 * sent.iter().flatten().map(|f| f.len() as u64 / 8 + 20).sum::<u64>() + 50_000;
    // Done once the hosts have sent everything and the wire has been still
    // for three timeouts (600 cycles) and more.
    let (mut seen, mut last) = (0, 0);
    for c in 0.. {
        ensure!(
            c < budget,
            "no end after {c} cycles: {} + {} of {want} frames delivered",
            e[0].host_out.packets.len(),
            e[1].host_out.packets.len()
        );
        e[0].step();
        e[1].step();
        let [a, b] = &mut e;
        carry(a, b, &mut links[0], &mut wire[0], r.delay);
        carry(b, a, &mut links[1], &mut wire[1], r.delay);
        let moved = e.iter().map(|x| x.wire_out.beats() + x.host_out.beats()).sum::<u64>();
        if moved != seen || e.iter().any(|x| !x.host_in.idle() || !x.wire_in.idle()) {
            (seen, last) = (moved, c);
        }
        if c - last > 3 * 600 + 2 * r.delay + 200 {
            break;
        }
    }
    for x in &e {
        no_protocol_errors(&x.host_out)?;
        no_protocol_errors(&x.wire_out)?;
    }
    let mut regs = [BTreeMap::new(), BTreeMap::new()];
    for (x, regs) in e.iter_mut().zip(&mut regs) {
        for n in PortRegs::RO {
            regs.insert(n, x.ro(n)?);
        }
    }
    let got = [e[0].host_out.packets.drain(..).collect(), e[1].host_out.packets.drain(..).collect()];
    Ok(Outcome { regs, wire, got, sent })
}

/// The checks of a protected direction: `tx` the sending side's registers,
/// `rx` the receiving side's, `w` its wire, `back` the wire back (LOSS,
/// ACK), `sent` the host frames, `got` what the other host got.
fn check_direction(
    r: &Run,
    tx: &BTreeMap<&str, u64>,
    rx: &BTreeMap<&str, u64>,
    w: &Wire,
    back: &Wire,
    sent: &[Vec<u8>],
    got: &[Packet],
) -> Result<String> {
    let k = |w: &Wire, n: &str| w.kinds.get(n).copied().unwrap_or_default();
    // The sender's counters are what the wire carried; the receiver's what arrived.
    ensure!(
        tx["tx_data"] == sent.len() as u64 && k(w, "data").0 == tx["tx_data"],
        "DATA: {} sent, wire {:?}, host {}",
        tx["tx_data"],
        k(w, "data"),
        sent.len()
    );
    ensure!(k(w, "retx").0 == tx["tx_retx"], "RETX: register {}, wire {:?}", tx["tx_retx"], k(w, "retx"));
    ensure!(k(w, "dummy").0 == tx["tx_dummy"], "dummies: register {}, wire {:?}", tx["tx_dummy"], k(w, "dummy"));
    ensure!(k(w, "untagged").0 == 0 && k(w, "ack_piggy").0 == 0, "untagged or piggybacked frames on a protected wire: {:?}", w.kinds);
    ensure!(rx["rx_data"] == k(w, "data").1, "DATA arrived: register {}, wire {:?}", rx["rx_data"], k(w, "data"));
    ensure!(rx["rx_retx"] == k(w, "retx").1, "RETX arrived: register {}, wire {:?}", rx["rx_retx"], k(w, "retx"));
    ensure!(rx["rx_dummy"] == k(w, "dummy").1, "dummies arrived: register {}, wire {:?}", rx["rx_dummy"], k(w, "dummy"));
    ensure!(rx["tx_loss_sent"] == k(back, "loss").0, "LOSS sent: register {}, wire {:?}", rx["tx_loss_sent"], k(back, "loss"));
    ensure!(rx["tx_ack_explicit"] == k(back, "ack").0, "ACKs sent: register {}, wire {:?}", rx["tx_ack_explicit"], k(back, "ack"));
    ensure!(tx["tx_loss_rx"] == k(back, "loss").1, "LOSS arrived: register {}, wire {:?}", tx["tx_loss_rx"], k(back, "loss"));
    ensure!(tx["tx_ack_rx"] == k(back, "ack").1, "ACKs arrived: register {}, wire {:?}", tx["tx_ack_rx"], k(back, "ack"));
    // PFC (Alg. 2): one frame per pause and per resume of the receiver.
    ensure!(
        rx["tx_pfc_sent"] == k(back, "pfc").0 && rx["tx_pfc_sent"] == rx["rx_pauses"] + rx["rx_resumes"],
        "PFC: {} sent, wire {:?}, {} pauses, {} resumes",
        rx["tx_pfc_sent"],
        k(back, "pfc"),
        rx["rx_pauses"],
        rx["rx_resumes"]
    );
    // Frames: each tag removed, `tuser.length` the frame's.
    let numbers: Vec<u32> = got.iter().map(|p| number(&p.data)).collect();
    let by_number: BTreeMap<u32, &Vec<u8>> = sent.iter().map(|f| (number(f), f)).collect();
    for p in got {
        let f =
            by_number.get(&number(&p.data)).with_context(|| format!("a frame no host sent: {:02x?}", &p.data[..16.min(p.data.len())]))?;
        ensure!(&p.data == *f, "frame {} changed on the way", number(f));
        ensure!(p.user == user_of(f.len()), "frame {}: tuser {:#x}, want {:#x}", number(f), p.user, user_of(f.len()));
    }
    let mut uniq = numbers.clone();
    uniq.sort_unstable();
    uniq.dedup();
    ensure!(uniq.len() == numbers.len(), "{} duplicates delivered", numbers.len() - uniq.len());
    ensure!(rx["rx_delivered"] == got.len() as u64, "delivered: register {}, host {}", rx["rx_delivered"], got.len());
    let never: Vec<u32> = by_number.keys().filter(|n| !w.copies.contains_key(n)).copied().collect();
    if r.nb {
        // Every frame one copy of which arrived, once.
        let want: Vec<u32> = w.copies.keys().copied().collect();
        ensure!(uniq == want, "NB delivered {} distinct frames, {} arrived", uniq.len(), want.len());
    } else {
        crate::ordered_accounting(&numbers, sent.len() as u64 - got.len() as u64, rx)?;
        ensure!(never.iter().all(|n| !uniq.contains(n)), "a frame delivered that never arrived");
        ensure!(rx["rx_buf_used"] == 0 && rx["rx_ring_used"] == 0 && rx["rx_held"] == 0, "receiver not empty at the end: {rx:?}");
    }
    // The sender's ring keeps exactly the frames after the highest `latest`
    // that reached it (one explicit ACK per new `latest`, decision 3: a
    // lost last ACK leaves the frames after the one before until traffic
    // resumes); empty when it got the last.
    let left = tx["tx_next_seq"] - back.latest.map_or(0, |l| l as u64 + 1);
    ensure!(
        tx["tx_ring_frames"] == left,
        "sender's ring: {} frames at the end, {left} after the last ACK that arrived: {tx:?}",
        tx["tx_ring_frames"]
    );
    ensure!((tx["tx_ring_used"] == 0) == (left == 0) && (tx["tx_ring_words"] == 0) == (left == 0), "sender's ring: {tx:?}");
    if r.p_back == 0.0 {
        ensure!(left == 0, "no loss back, yet {left} frames unacknowledged");
    }
    if rx["rx_recovered"] > 0 {
        ensure!(
            rx["rx_dly_min"] >= 2 * r.delay && rx["rx_dly_min"] <= rx["rx_dly_max"],
            "retransmission delay {}..{} with a {}-cycle link",
            rx["rx_dly_min"],
            rx["rx_dly_max"],
            r.delay
        );
    }
    Ok(format!(
        "{} sent, {} delivered, lost {} recovered {} timeouts {} duplicates {}, RETX {} LOSS {} ACK {} dummies {}, delay {}..{} cycles, rings {}/{} words high",
        sent.len(),
        got.len(),
        rx["rx_lost"],
        rx["rx_recovered"],
        rx["rx_timeouts"],
        rx["rx_duplicates"],
        tx["tx_retx"],
        k(back, "loss").0,
        k(back, "ack").0,
        tx["tx_dummy"],
        rx["rx_dly_min"],
        rx["rx_dly_max"],
        rx["rx_ring_high"],
        tx["tx_ring_high"],
    ))
}

/// Ordered mode, 5% loss each way with one copy, then 10% with two copies
/// and traffic both ways: every frame exactly once and in order, or
/// skipped by a counted timeout; every counter equal to the wire.
#[test]
fn ordered_over_a_lossy_link() -> Result<()> {
    for r in [
        Run { frames: 1500, p: 0.05, p_back: 0.05, copies: 1, nb: false, on: true, reverse: false, delay: 40, seed: 1 },
        Run { frames: 800, p: 0.10, p_back: 0.10, copies: 2, nb: false, on: true, reverse: true, delay: 100, seed: 2 },
    ] {
        let o = run(r)?;
        let s = check_direction(&r, &o.regs[0], &o.regs[1], &o.wire[0], &o.wire[1], &o.sent[0], &o.got[1]).context("A -> B")?;
        eprintln!("port/ordered p {} copies {}: A -> B {s}", r.p, r.copies);
        if r.reverse {
            let s = check_direction(&r, &o.regs[1], &o.regs[0], &o.wire[1], &o.wire[0], &o.sent[1], &o.got[0]).context("B -> A")?;
            eprintln!("port/ordered p {} copies {}: B -> A {s}", r.p, r.copies);
        }
    }
    Ok(())
}

/// ProtegoNB: every frame a copy of which reached B, exactly once.
#[test]
fn nb_over_a_lossy_link() -> Result<()> {
    let r = Run { frames: 1000, p: 0.05, p_back: 0.02, copies: 1, nb: true, on: true, reverse: false, delay: 40, seed: 3 };
    let o = run(r)?;
    let s = check_direction(&r, &o.regs[0], &o.regs[1], &o.wire[0], &o.wire[1], &o.sent[0], &o.got[1]).context("A -> B")?;
    eprintln!("port/nb p {}: {s}", r.p);
    Ok(())
}

/// Protego off (the configuration's reset values): the wire carries the
/// host frames untouched, the survivors arrive untouched, nothing else
/// moves; the registers read back the configuration's values.
#[test]
fn off_is_a_plain_link() -> Result<()> {
    let r = Run { frames: 300, p: 0.05, p_back: 0.0, copies: 1, nb: false, on: false, reverse: false, delay: 10, seed: 4 };
    let o = run(r)?;
    let w = &o.wire[0];
    ensure!(w.kinds.keys().all(|k| *k == "untagged"), "Protego off, yet on the wire: {:?}", w.kinds);
    let (sent, arrived) = w.kinds["untagged"];
    ensure!(sent == r.frames as u64 && o.got[1].len() as u64 == arrived, "{sent} sent, {arrived} arrived, {} delivered", o.got[1].len());
    ensure!(o.wire[1].kinds.is_empty(), "frames back: {:?}", o.wire[1].kinds);
    ensure!(o.regs[1]["rx_ring_high"] > 0, "the frames passed the receiver's store");
    let mut i = 0;
    for p in &o.got[1] {
        while o.sent[0][i] != p.data {
            i += 1;
            ensure!(i < o.sent[0].len(), "a frame delivered that was not sent, or out of order");
        }
        ensure!(p.user == user_of(p.data.len()), "tuser {:#x}", p.user);
    }
    for side in &o.regs {
        for (n, v) in side {
            let may = ["rx_dly_min", "rx_expected", "rx_ack_no", "rx_ring_high"];
            ensure!(*v == 0 || may.contains(n), "{n} = {v} with Protego off");
        }
    }
    // The registers' reset values: the configuration's (`tag_off = "drop"`
    // sets CTRL.tag_drop, `mode = "nb"` CTRL.nb).
    let mut c = cfg()?;
    c.protego.tag_off = "drop".into();
    c.protego.mode = "nb".into();
    ensure!(PortRegs::rw_reset(&c)[0] == PortRegs::CTRL_TAG_DROP | PortRegs::CTRL_NB, "CTRL {:#x}", PortRegs::rw_reset(&c)[0]);
    let mut x = End::new(&lib()?, 9)?;
    let want = PortRegs::rw_reset(&cfg()?);
    ensure!(want[(PortRegs::ACKNO_TIMEOUT / 4) as usize] == 600, "3 us at 200 MHz");
    for (i, w) in want.iter().enumerate() {
        let a = 4 * i as u32;
        let got = x.reg(a)?;
        ensure!(got == *w, "register {a:#x}: {got:#x}, want {w:#x}");
    }
    Ok(())
}

//! `ts_protego_rx`, the receiver side (remover, store, engine, descriptor
//! FIFO), in Verilator against the golden model's `ProtegoPort::receive`:
//! the link's frames in on `s`, and out come the model's delivered frames
//! (tags removed, in order), its LOSS, ACK and PFC events for this side's
//! sender, the peer's ACK, LOSS and PFC for it, and the same counters.
use super::rx_seq::{model_counters, payload, setup, tagged, traffic, Notes, Setup, COUNTERS, MAC};
use crate::common::*;
use anyhow::{bail, ensure, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};
use trimswitch_hdl::protego::rx::ProtegoRx;
use trimswitch_sim::agents::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};
use trimswitch_sim::model::protego::{kind, pfc_frame, pfc_of, read_tag, Loss, ProtegoPort, Seq};

/// What the sender side hears of the peer (`pa_*`, `pl_*`, `pp_*`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Peer {
    Ack(u32),
    Loss(u32, u8, u32),
    Pfc(bool),
}

/// The peer's events in a frame, as `ProtegoPort::receive` hands them to
/// its sender side (which is on: `tx`).
fn peer_events(f: &[u8], tx: bool, rx: bool, class: u8) -> Option<Peer> {
    if let Some(p) = pfc_of(f, class) {
        // Protego's while either side is on (decision 13): the sender hears
        // it when on; else the frame passes, as any untagged one.
        if tx || rx {
            return tx.then_some(Peer::Pfc(p));
        }
    }
    let (t, at) = read_tag(f)?;
    match t.kind {
        kind::ACK if tx => Some(Peer::Ack(t.seq.v17())),
        kind::LOSS if tx => Loss::parse(f, t, at).map(|l| Peer::Loss(l.first.v17(), l.hole, l.latest.v17())),
        _ => None,
    }
}

/// The block's side ports; the model; checks as the handshakes happen.
struct Side {
    p: BTreeMap<&'static str, Port>,
    rng: StdRng,
    model: ProtegoPort,
    tx: bool,
    rx: bool,
    class: u8,
    /// Frames sent whose descriptors the engine has not taken, in order.
    sent: VecDeque<Vec<u8>>,
    want: Vec<Vec<u8>>,
    peer_want: Vec<Peer>,
    peer_got: Vec<Peer>,
    ready: f64,
    pl_ready: bool,
    notes: Notes,
    ring_max: u64,
    /// The cycles descriptors were taken.
    takes: Vec<u64>,
    errors: Vec<String>,
}

const PORTS: [&str; 2] = ["d_take", "ring_used"];

/// The receiver side's `peer_*` ports and the sender side's (`PeerNotes`,
/// `PeerNotesIn`).
pub const PEER_PORTS: [&str; 9] = [
    "peer_pa_valid",
    "peer_pa_seq",
    "peer_pl_valid",
    "peer_pl_ready",
    "peer_pl_first",
    "peer_pl_hole",
    "peer_pl_latest",
    "peer_pp_valid",
    "peer_pp_pause",
];

impl Side {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok && self.errors.len() < 10 {
            self.errors.push(what());
        }
    }
}

impl Agent for Side {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        self.notes.drive(m, &mut self.rng, self.ready);
        self.pl_ready = self.rng.gen_bool(self.ready);
        m.set(&self.p["peer_pl_ready"], self.pl_ready as u64);
    }

    fn sample(&mut self, m: &Model, cycle: u64) {
        let ports = self.p.clone();
        let g = |n: &str| m.get(&ports[n]);
        self.ring_max = self.ring_max.max(g("ring_used"));
        let taken = g("d_take") == 1;
        for e in self.notes.sample(m, cycle, taken, &mut self.model, &mut self.want) {
            self.check(false, || e);
        }
        if g("peer_pa_valid") == 1 {
            self.peer_got.push(Peer::Ack(g("peer_pa_seq") as u32));
        }
        if g("peer_pl_valid") == 1 && self.pl_ready {
            self.peer_got.push(Peer::Loss(g("peer_pl_first") as u32, g("peer_pl_hole") as u8, g("peer_pl_latest") as u32));
        }
        if g("peer_pp_valid") == 1 {
            self.peer_got.push(Peer::Pfc(g("peer_pp_pause") == 1));
        }
        if taken {
            self.takes.push(cycle);
            match self.sent.pop_front() {
                Some(f) => {
                    self.peer_want.extend(peer_events(&f, self.tx, self.rx, self.class));
                    let out = self.model.receive(&f, cycle);
                    self.want.extend(out.deliver);
                }
                None => self.check(false, || format!("cycle {cycle}: a descriptor taken with no frame sent")),
            }
        }
    }

    fn idle(&self) -> bool {
        self.sent.is_empty()
    }
}

/// Side ports, per test: the settings and the backpressure.
struct Run {
    setup: Setup,
    tx: bool,
    width: usize,
    cell: Cell,
    ring_bytes: usize,
    frames: usize,
}

/// Sends `frames` (each after `gap` idle cycles) and compares everything;
/// returns the counters and the cycles the descriptors were taken.
fn run(r: &Run, seed: u64, frames: Vec<(u64, Vec<u8>)>) -> Result<(BTreeMap<&'static str, u64>, Vec<u64>)> {
    let s = &r.setup;
    let lib = trimswitch_hdl::with_geometry!(r.width, 64, [(64, 64), (256, 64), (512, 64)], |D, K, U, M, W| model_of(
        &mut ProtegoRx::<D, K, U>::new(s.slots, s.miss, r.ring_bytes / K, r.frames),
        "ts_protego_rx",
        &format!("d{D}_s{}_m{}_r{}_f{}", s.slots, s.miss, r.ring_bytes, r.frames)
    ))
    .context("a tested width")??;
    let mut m = lib.instantiate();
    for (n, v) in [
        ("tx_en", r.tx as u64),
        ("cfg_rx_en", s.rx as u64),
        ("cfg_nb", s.nb as u64),
        ("cfg_tag_drop", s.tag_drop as u64),
        ("cfg_ack_timeout", s.ack_timeout),
        ("cfg_buf_bytes", s.buf_bytes as u64),
        ("cfg_pause_bytes", s.pause as u64),
        ("cfg_resume_bytes", s.resume as u64),
        ("cfg_max_hole", s.max_hole as u64),
        ("pfc_class", s.class as u64),
    ] {
        let port = m.port(n)?;
        m.set(&port, v);
    }
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    let mut sink = AxisSink::new(&m, &AxisPorts::master("m"), seed + 1)?;
    src.idle_prob = r.cell.idle_prob;
    sink.ready_prob = r.cell.ready_prob;
    let mut p = BTreeMap::new();
    for n in PORTS.into_iter().chain(PEER_PORTS) {
        p.insert(n, m.port(n)?);
    }
    let counters: Vec<Port> = COUNTERS.iter().map(|n| m.port(n)).collect::<Result<_>>()?;
    let notes = Notes::new(&m)?;
    let mut cfg = s.model();
    cfg.tx = r.tx;
    let mut side = Side {
        p,
        rng: StdRng::seed_from_u64(seed + 2),
        model: ProtegoPort::new(cfg).map_err(anyhow::Error::msg)?,
        tx: r.tx,
        rx: s.rx,
        class: s.class,
        sent: VecDeque::new(),
        want: vec![],
        peer_want: vec![],
        peer_got: vec![],
        ready: r.cell.ready_prob,
        pl_ready: false,
        notes,
        ring_max: 0,
        takes: vec![],
        errors: vec![],
    };
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    // The engine and the store clear their tables first.
    let mut at = 2 * s.slots.max(s.miss).max(r.frames) as u64 + 20;
    let bytes = r.width / 8;
    let n = frames.len();
    for (gap, f) in frames {
        at += gap;
        src.push_at(Packet::new(f.clone(), 0), at);
        at += f.len().div_ceil(bytes) as u64;
        side.sent.push_back(f);
    }
    let cycles =
        tb.run_until_idle(&mut [&mut src, &mut side, &mut sink], 50 * at + 100_000).with_context(|| format!("{:?}", side.errors))?;
    for _ in 0..3 * s.ack_timeout + 4_000 {
        tb.step(&mut [&mut src, &mut side, &mut sink]);
    }
    no_protocol_errors(&sink)?;
    ensure!(side.errors.is_empty(), "{} mismatches:\n{}", side.errors.len(), side.errors.join("\n"));
    ensure!(side.model.rx.take_loss().is_none() && side.model.rx.take_pfc().is_none(), "the model has notifications the block never sent");
    let got: Vec<Vec<u8>> = sink.packets.drain(..).map(|p| p.data).collect();
    if got != side.want {
        let first = got.iter().zip(&side.want).position(|(a, b)| a != b).unwrap_or(got.len().min(side.want.len()));
        bail!("delivered {} frames, the model {}; first difference at {first}", got.len(), side.want.len());
    }
    ensure!(side.peer_got == side.peer_want, "peer events {:?}\n model {:?}", side.peer_got, side.peer_want);
    let want = model_counters(&side.model.rx.counters);
    let mut c = BTreeMap::new();
    for ((name, port), want) in COUNTERS.iter().zip(&counters).zip(want) {
        let got = tb.model.get(port);
        ensure!(got == want, "{name}: {got}, model {want}");
        c.insert(*name, got);
    }
    let (used, held) = (tb.model.get(&tb.model.port("ring_used")?), tb.model.get(&tb.model.port("held")?));
    let high = tb.model.get(&tb.model.port("ring_high")?);
    ensure!(used == 0 && held == 0, "ring not empty at the end: {used} words, {held} frames");
    ensure!(high == side.ring_max && high > 0, "ring_high {high}, ring_used reached {}", side.ring_max);
    eprintln!(
        "rx/{}: {n} frames, {} delivered, {} peer events, ACK/LOSS/PFC/timeouts {:?}, ring high {high} words, {cycles} cycles",
        r.width,
        got.len(),
        side.peer_got.len(),
        side.notes.counts
    );
    Ok((c, side.takes))
}

/// The engine's setup with PFC thresholds this traffic crosses (its
/// buffer reaches about 4 KB).
fn base(width: usize) -> Run {
    let setup = Setup { pause: 3_000, resume: 1_500, ..setup() };
    Run { setup, tx: true, width, cell: Cell { idle_prob: 0.1, ready_prob: 0.8 }, ring_bytes: 16 * 1024, frames: 64 }
}

/// A link's traffic with random loss (ordered mode), at 64, 256 and 512
/// bits: the model's frames, events and counters.
#[test]
fn ordered_random_loss_every_width() -> Result<()> {
    let mut reached: BTreeMap<&str, u64> = BTreeMap::new();
    for (i, w) in [64, 256, 512].into_iter().enumerate() {
        let r = base(w);
        let mut rng = StdRng::seed_from_u64(70 + i as u64);
        let frames = traffic(&mut rng, &r.setup, Seq { era: true, seq: 65_300 }, 500, 0.1, 2);
        for (n, v) in run(&r, 70 + i as u64, frames)?.0 {
            *reached.entry(n).or_insert(0) += v;
        }
    }
    for n in ["stats_n_recovered", "stats_n_timeouts", "stats_n_duplicates", "stats_n_truncated", "stats_n_untagged", "stats_n_pauses"] {
        ensure!(reached[n] > 0, "{n} never counted: {reached:?}");
    }
    Ok(())
}

/// ProtegoNB, the receiver off (tags counted, frames forwarded untagged),
/// the sender side off (the peer's ACK, LOSS and PFC not passed on), and
/// idle x backpressure.
#[test]
fn modes_and_backpressure() -> Result<()> {
    let mut rng = StdRng::seed_from_u64(80);
    let frames = traffic(&mut rng, &setup(), Seq { era: false, seq: 10 }, 250, 0.1, 1);
    let nb = Run { setup: Setup { nb: true, ..setup() }, ..base(64) };
    ensure!(run(&nb, 81, frames.clone())?.0["stats_n_recovered"] > 0);
    let off = Run { setup: Setup { rx: false, ..setup() }, ..base(512) };
    ensure!(run(&off, 82, frames.clone())?.0["stats_n_tag_off"] > 200);
    let drop = Run { setup: Setup { rx: false, tag_drop: true, ..setup() }, ..base(64) };
    ensure!(run(&drop, 84, frames.clone())?.0["stats_n_tag_off"] > 200);
    run(&Run { tx: false, ..base(256) }, 83, frames.clone())?;
    let mut s = 0;
    for_matrix(|cell| {
        s += 1;
        run(&Run { cell, ..base(64) }, 90 + s, frames.clone()).map(|_| ())
    })
}

/// `f` with `v` VLAN tags (802.1Q, then 802.1ad) after its MAC addresses.
fn with_vlans(f: &[u8], v: usize) -> Vec<u8> {
    let mut g = f[..12].to_vec();
    for k in 0..v {
        g.extend_from_slice(if k == 0 { &[0x88, 0xA8, 0, 5] } else { &[0x81, 0x00, 0, 7] });
    }
    g.extend_from_slice(&f[12..]);
    g
}

/// Both sides off: the port is today's switch (every frame out as it came,
/// PFC frames too: decision 13); PFC for another class passes with either
/// side on; LOSS and PFC frames cut short.
#[test]
fn off_and_cut_control_frames() -> Result<()> {
    let class = setup().class;
    let mut frames = vec![];
    for i in 0..40u32 {
        frames.push((3, payload(i, 64 + i as usize)));
        frames.push((0, pfc_frame(MAC, class, i % 2 == 0)));
        frames.push((1, pfc_frame(MAC, (class + 1) % 8, true)));
        let mut cut = pfc_frame(MAC, class, true);
        cut.truncate(20 + 2 * class as usize - (i as usize % 2));
        frames.push((2, cut));
        let l = Loss { first: Seq { era: false, seq: i as u16 }, hole: 3, latest: Seq { era: true, seq: 7 } };
        let mut lf = l.frame(MAC);
        lf.truncate(17 + 4 + (i as usize % 4));
        frames.push((0, lf));
        frames.push((0, l.frame(MAC)));
        frames.push((1, tagged(kind::ACK, Seq { era: false, seq: 3 * i as u16 }, i, 90)));
        // Behind one or two VLAN tags: the LOSS's fields four or eight
        // bytes further on (whole and cut), a DATA, a PFC frame (not one).
        let v = 1 + i as usize % 2;
        let l = Loss { first: Seq { era: true, seq: 100 + i as u16 }, hole: 1 + i as u8, latest: Seq { era: false, seq: 9 * i as u16 } };
        frames.push((0, with_vlans(&l.frame(MAC), v)));
        let mut lf = with_vlans(&l.frame(MAC), v);
        lf.truncate(17 + 4 * v + (i as usize % 3));
        frames.push((0, lf));
        frames.push((2, with_vlans(&tagged(kind::DATA, Seq { era: false, seq: i as u16 }, i, 100), v)));
        frames.push((0, with_vlans(&pfc_frame(MAC, class, true), v)));
    }
    let off = Run { setup: Setup { rx: false, ..setup() }, tx: false, ..base(64) };
    let (c, _) = run(&off, 5, frames.clone())?;
    ensure!(c["stats_n_untagged"] == 0 && c["stats_n_truncated"] > 0, "{c:?}");
    run(&base(256), 6, frames)?;
    Ok(())
}

/// Rate, measured: back-to-back minimum DATA frames in order, always
/// ready, at 256 bits (a frame every 3 cycles): the engine takes a
/// descriptor every 5 cycles (docs/protego.md, "Rate").
#[test]
fn rate_of_minimum_frames() -> Result<()> {
    let n = 300u32;
    let frames: Vec<(u64, Vec<u8>)> = (0..n).map(|i| (0, tagged(kind::DATA, Seq { era: false, seq: i as u16 }, i, 60))).collect();
    let r = Run { cell: Cell { idle_prob: 0.0, ready_prob: 1.0 }, ..base(256) };
    let (c, takes) = run(&r, 3, frames)?;
    ensure!(c["stats_n_delivered"] == n as u64, "{c:?}");
    let span = takes.last().context("takes")? - takes[0];
    eprintln!("rx/256: {n} minimum frames decided in {span} cycles");
    ensure!(span == 5 * (n as u64 - 1), "{n} descriptors over {span} cycles, not 5 each");
    Ok(())
}

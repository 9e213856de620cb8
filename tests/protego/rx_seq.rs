//! `ts_protego_rx_seq` in Verilator against the golden model's receiver
//! (`ProtegoPort::receive`, `ProtegoRx`): the same frames, one descriptor
//! each, give the same actions (the frames delivered, in order), the same
//! LOSS notifications, ACKs and PFC events, and the same counters.
use anyhow::{bail, ensure, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};
use trimswitch_hdl::protego::rx_seq::{op, ProtegoRxSeq};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};
use trimswitch_sim::model::protego::{
    control_frame, ethertype_offset, insert_tag, kind, pfc_frame, pfc_of, read_tag, strip_tag, Loss, ProtegoConfig, ProtegoPort,
    RxCounters, Seq, Tag,
};
use trimswitch_sim::packet::frame::ethertype;

/// What the tag remover and the frame parser tell the engine about a frame,
/// and the frame as the mover holds it (tag removed).
#[derive(Clone, Debug)]
struct Desc {
    pfc: bool,
    tagged: bool,
    trunc: bool,
    kind: u8,
    seq: u32,
    ctrl: bool,
    short: bool,
    body: Vec<u8>,
}

/// `on`: a side of Protego is on (PFC is Protego's: decision 13; the
/// engine's tests have the sender side off, so `rx`).
fn describe(f: &[u8], class: u8, on: bool) -> Desc {
    let pfc = on && pfc_of(f, class).is_some();
    let none = Desc { pfc, tagged: false, trunc: false, kind: 0, seq: 0, ctrl: false, short: false, body: f.to_vec() };
    match read_tag(f) {
        Some((t, at)) => {
            let ctrl = f.get(at + 5..at + 7) == Some(&ethertype::PROTEGO.to_be_bytes()[..]);
            let short = t.kind == kind::LOSS && Loss::parse(f, t, at).is_none();
            Desc { tagged: true, kind: t.kind, seq: t.seq.v17(), ctrl, short, body: strip_tag(f, at), ..none }
        }
        None => {
            let o = ethertype_offset(f);
            let trunc = f.get(o..o + 2) == Some(&ethertype::PROTEGO.to_be_bytes()[..]);
            Desc { trunc, ..none }
        }
    }
}

/// The engine's configuration, and the model's.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub slots: usize,
    pub miss: usize,
    pub nb: bool,
    pub rx: bool,
    /// With the receiver off, tagged frames dropped (CTRL.tag_drop).
    pub tag_drop: bool,
    pub ack_timeout: u64,
    pub buf_bytes: u32,
    pub pause: u32,
    pub resume: u32,
    pub max_hole: u8,
    pub class: u8,
}

impl Setup {
    pub fn model(&self) -> ProtegoConfig {
        ProtegoConfig {
            tx: false,
            rx: self.rx,
            nb: self.nb,
            tag_off_drop: self.tag_drop,
            ack_timeout: self.ack_timeout,
            pause_bytes: self.pause,
            resume_bytes: self.resume,
            pfc_class: self.class,
            max_hole: self.max_hole,
            rx_buffer_bytes: self.buf_bytes,
            rx_slots: self.slots as u32,
            miss_slots: self.miss as u32,
            ..Default::default()
        }
    }
}

/// The engine's ports, the frames to send, the model beside it, and the
/// checks made as the handshakes happen.
struct Harness {
    p: BTreeMap<&'static str, Port>,
    rng: StdRng,
    model: ProtegoPort,
    /// (cycles to wait before it, the frame)
    todo: VecDeque<(u64, Desc, Vec<u8>)>,
    wait: u64,
    /// Frames whose descriptors the engine took, waiting for their action.
    input: VecDeque<Vec<u8>>,
    slots: BTreeMap<u64, Vec<u8>>,
    got: Vec<Vec<u8>>,
    want: Vec<Vec<u8>>,
    ready: f64,
    a_ready: bool,
    notes: Notes,
    errors: Vec<String>,
}

const PORTS: [&str; 16] = [
    "d_valid",
    "d_ready",
    "d_pfc",
    "d_tagged",
    "d_trunc",
    "d_kind",
    "d_seq",
    "d_ctrl",
    "d_short",
    "d_len",
    "a_valid",
    "a_ready",
    "a_op",
    "a_slot",
    "busy",
    "stats_ack_no",
];

/// This side's notes for its sender (`note_*`: LOSS, the pending ACK, PFC),
/// taken at random and checked against the model's as they are taken, and
/// the engine's timeouts (`ev_timeout`) stepped in the model: for the
/// engine's tests and the receiver side's.
pub struct Notes {
    p: BTreeMap<&'static str, Port>,
    pub ack_take: bool,
    l_ready: bool,
    p_ready: bool,
    /// ACKs, LOSS and PFC taken, timeouts.
    pub counts: [u64; 4],
    /// The latest a timeout fired after the model said it was due.
    pub late_max: u64,
}

impl Notes {
    pub fn new(m: &Model) -> Result<Notes> {
        let mut p = BTreeMap::new();
        for n in ["busy", "ev_timeout", "note_l_valid", "note_l_ready", "note_l_first", "note_l_latest", "note_l_hole"] {
            p.insert(n, m.port(n)?);
        }
        for n in ["note_ack_valid", "note_ack_seq", "note_ack_take", "note_p_valid", "note_p_ready", "note_p_pause"] {
            p.insert(n, m.port(n)?);
        }
        Ok(Notes { p, ack_take: false, l_ready: false, p_ready: false, counts: [0; 4], late_max: 0 })
    }

    /// The ready and take inputs: an ACK is taken only while the engine is
    /// level with the model (idle, no descriptor this cycle), so both give
    /// the same one.
    pub fn drive(&mut self, m: &mut Model, rng: &mut StdRng, ready: f64) {
        self.ack_take = m.get(&self.p["busy"]) == 0 && rng.gen_bool(0.3);
        self.l_ready = rng.gen_bool(ready);
        self.p_ready = rng.gen_bool(ready);
        m.set(&self.p["note_l_ready"], self.l_ready as u64);
        m.set(&self.p["note_p_ready"], self.p_ready as u64);
        m.set(&self.p["note_ack_take"], self.ack_take as u64);
    }

    /// This cycle's notes and timeout against `model`, before the frame
    /// whose descriptor was `taken` this cycle (if one) reaches it; frames
    /// a timeout releases go to `want`.
    pub fn sample(&mut self, m: &Model, cycle: u64, taken: bool, model: &mut ProtegoPort, want: &mut Vec<Vec<u8>>) -> Vec<String> {
        let g = |n: &str| m.get(&self.p[n]);
        let mut errors = vec![];
        let mut check = |ok: bool, what: String| {
            if !ok {
                errors.push(what);
            }
        };
        // ACK: when the engine has caught up with the model (idle, nothing
        // taken), both agree whether one is pending and which.
        let (av, aseq) = (g("note_ack_valid") == 1, g("note_ack_seq"));
        if g("busy") == 0 && !taken {
            let mp = model.rx.ack_pending();
            check(av == mp, format!("cycle {cycle}: ack_valid {av}, model pending {mp}"));
        }
        if av && self.ack_take {
            self.counts[0] += 1;
            let w = model.rx.take_ack().map(|s| s.v17() as u64);
            check(w == Some(aseq), format!("cycle {cycle}: ACK {aseq:#x}, model {w:x?}"));
        }
        if g("note_l_valid") == 1 && self.l_ready {
            self.counts[1] += 1;
            let got = (g("note_l_first"), g("note_l_hole"), g("note_l_latest"));
            let w = model.rx.take_loss().map(|l| (l.first.v17() as u64, l.hole as u64, l.latest.v17() as u64));
            check(w == Some(got), format!("cycle {cycle}: LOSS {got:x?}, model {w:x?}"));
        }
        if g("note_p_valid") == 1 && self.p_ready {
            self.counts[2] += 1;
            let got = g("note_p_pause") == 1;
            let w = model.rx.take_pfc();
            check(w == Some(got), format!("cycle {cycle}: PFC pause {got}, model {w:?}"));
        }
        if g("ev_timeout") == 1 {
            // The engine's timeout step ran last cycle: the model must have
            // been due (not early), one step.
            self.counts[3] += 1;
            let due = model.rx.timeout_due();
            let before = model.rx.counters.timeouts;
            want.extend(model.tick(cycle).deliver);
            let fired = model.rx.counters.timeouts - before;
            check(fired == 1, format!("cycle {cycle}: a timeout; the model (due {due:?}) fired {fired}"));
            if let Some(d) = due {
                self.late_max = self.late_max.max(cycle.saturating_sub(d));
            }
        }
        errors
    }
}

impl Harness {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok && self.errors.len() < 10 {
            self.errors.push(what());
        }
    }
}

impl Agent for Harness {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        self.notes.drive(m, &mut self.rng, self.ready);
        let head = if self.wait == 0 && !self.notes.ack_take { self.todo.front().map(|t| t.1.clone()) } else { None };
        let set = |m: &mut Model, p: &Port, v: u64| m.set(p, v);
        set(m, &self.p["d_valid"], head.is_some() as u64);
        if let Some(d) = head {
            set(m, &self.p["d_pfc"], d.pfc as u64);
            set(m, &self.p["d_tagged"], d.tagged as u64);
            set(m, &self.p["d_trunc"], d.trunc as u64);
            set(m, &self.p["d_kind"], d.kind as u64);
            set(m, &self.p["d_seq"], d.seq as u64);
            set(m, &self.p["d_ctrl"], d.ctrl as u64);
            set(m, &self.p["d_short"], d.short as u64);
            set(m, &self.p["d_len"], d.body.len() as u64);
        }
        self.a_ready = self.rng.gen_bool(self.ready);
        set(m, &self.p["a_ready"], self.a_ready as u64);
    }

    fn sample(&mut self, m: &Model, cycle: u64) {
        let ports = self.p.clone();
        let g = |n: &str| m.get(&ports[n]);
        let (busy, taken) = (g("busy") == 1, g("d_valid") == 1 && g("d_ready") == 1);
        for e in self.notes.sample(m, cycle, taken, &mut self.model, &mut self.want) {
            self.check(false, || e);
        }
        if g("a_valid") == 1 && self.a_ready {
            let (o, slot) = (g("a_op"), g("a_slot"));
            match o {
                op::RELEASE => match self.slots.remove(&slot) {
                    Some(f) => self.got.push(f),
                    None => self.check(false, || format!("cycle {cycle}: release of empty slot {slot}")),
                },
                _ => match self.input.pop_front() {
                    Some(f) if o == op::DELIVER => self.got.push(f),
                    Some(f) if o == op::BUFFER => {
                        let prev = self.slots.insert(slot, f);
                        self.check(prev.is_none(), || format!("cycle {cycle}: slot {slot} buffered twice"));
                    }
                    Some(_) => {}
                    None => self.check(false, || format!("cycle {cycle}: action {o} with no frame")),
                },
            }
        }
        if taken {
            let (_, d, f) = self.todo.pop_front().expect("a frame was driven");
            self.input.push_back(d.body);
            let out = self.model.receive(&f, cycle);
            self.want.extend(out.deliver);
            self.wait = self.todo.front().map_or(0, |t| t.0);
        } else if self.wait > 0 && !busy {
            self.wait -= 1;
        }
    }

    fn idle(&self) -> bool {
        self.todo.is_empty() && self.input.is_empty()
    }
}

fn bench(setup: Setup, seed: u64) -> Result<(Tb, Harness)> {
    let lib = model_of(&mut ProtegoRxSeq::new(setup.slots, setup.miss), "ts_protego_rx_seq", &format!("s{}_m{}", setup.slots, setup.miss))?;
    let mut m = lib.instantiate();
    let mut p = BTreeMap::new();
    for n in PORTS {
        p.insert(n, m.port(n)?);
    }
    for (n, v) in [
        ("cfg_rx_en", setup.rx as u64),
        ("cfg_nb", setup.nb as u64),
        ("cfg_tag_drop", setup.tag_drop as u64),
        ("cfg_ack_timeout", setup.ack_timeout),
        ("cfg_buf_bytes", setup.buf_bytes as u64),
        ("cfg_pause_bytes", setup.pause as u64),
        ("cfg_resume_bytes", setup.resume as u64),
        ("cfg_max_hole", setup.max_hole as u64),
    ] {
        let port = m.port(n)?;
        m.set(&port, v);
    }
    let notes = Notes::new(&m)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    let model = ProtegoPort::new(setup.model()).map_err(anyhow::Error::msg)?;
    let h = Harness {
        p,
        rng: StdRng::seed_from_u64(seed),
        model,
        todo: VecDeque::new(),
        wait: 0,
        input: VecDeque::new(),
        slots: BTreeMap::new(),
        got: vec![],
        want: vec![],
        ready: 0.8,
        a_ready: false,
        notes,
        errors: vec![],
    };
    Ok((tb, h))
}

/// The counters (`stats_*` ports) compared with the model's receiver's
/// ([`model_counters`], in this order).
pub const COUNTERS: [&str; 18] = [
    "stats_n_data",
    "stats_n_retx",
    "stats_n_dummy",
    "stats_n_delivered",
    "stats_n_lost",
    "stats_n_recovered",
    "stats_n_duplicates",
    "stats_n_timeouts",
    "stats_n_pauses",
    "stats_n_resumes",
    "stats_n_untagged",
    "stats_n_tag_off",
    "stats_n_truncated",
    "stats_n_resync",
    "stats_n_buffer_drop",
    "stats_buf_high",
    "stats_dly_min",
    "stats_dly_max",
];

/// The engine's counters.
fn counters(tb: &Tb) -> Result<Vec<(&'static str, u64)>> {
    COUNTERS.iter().map(|n| Ok((*n, tb.model.get(&tb.model.port(n)?)))).collect()
}

pub fn model_counters(c: &RxCounters) -> Vec<u64> {
    vec![
        c.data,
        c.retx,
        c.dummy,
        c.delivered,
        c.lost,
        c.recovered,
        c.duplicates,
        c.timeouts,
        c.pauses,
        c.resumes,
        c.untagged,
        c.tag_while_off,
        c.truncated,
        c.resync,
        c.buffer_drop,
        c.buffer_high_water,
        c.retx_delay_min.unwrap_or(u32::MAX as u64),
        c.retx_delay_max,
    ]
}

/// Runs the frames through both and compares everything; returns the
/// counters.
fn run(setup: Setup, seed: u64, frames: Vec<(u64, Vec<u8>)>, ready: f64) -> Result<Vec<(&'static str, u64)>> {
    let (mut tb, mut h) = bench(setup, seed)?;
    h.ready = ready;
    for (gap, f) in frames {
        let d = describe(&f, setup.class, setup.rx);
        h.todo.push_back((gap, d, f));
    }
    h.wait = h.todo.front().map_or(0, |t| t.0);
    let n = h.todo.len() as u64;
    tb.run_until_idle(&mut [&mut h], 400 * n + 50_000).with_context(|| format!("{:?}", h.errors))?;
    // Let every timeout and release finish.
    let quiet = 3 * setup.ack_timeout + 2_000;
    for _ in 0..quiet {
        tb.step(&mut [&mut h]);
    }
    ensure!(h.errors.is_empty(), "{} mismatches:\n{}", h.errors.len(), h.errors.join("\n"));
    ensure!(h.model.rx.take_loss().is_none() && h.model.rx.take_pfc().is_none(), "the model has notifications the engine never sent");
    if h.got != h.want {
        let first = h.got.iter().zip(&h.want).position(|(a, b)| a != b).unwrap_or(h.got.len().min(h.want.len()));
        bail!("delivered {} frames, the model {}; first difference at {first}", h.got.len(), h.want.len());
    }
    let c = counters(&tb)?;
    let want = model_counters(&h.model.rx.counters);
    for ((name, got), want) in c.iter().zip(want) {
        ensure!(*got == want, "{name}: {got}, model {want} (counters {c:?})");
    }
    eprintln!(
        "rx_seq: {n} frames, {} delivered, {} LOSS, {} ACK taken, {} PFC, {} timeouts (at most {} cycles after due); {c:?}",
        h.got.len(),
        h.notes.counts[1],
        h.notes.counts[0],
        h.notes.counts[2],
        h.notes.counts[3],
        h.notes.late_max
    );
    Ok(c)
}

/// A frame numbered `n` in its payload.
pub fn payload(n: u32, len: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 0x0B, 0x02, 0, 0, 0, 0, 0x0A, 0x08, 0x00];
    f.resize(len.max(18), 0x5A);
    let l = f.len();
    f[l - 4..].copy_from_slice(&n.to_be_bytes());
    f
}

pub fn tagged(kind: u8, s: Seq, n: u32, len: usize) -> Vec<u8> {
    insert_tag(&payload(n, len), Tag { kind, seq: s })
}

pub const MAC: [u8; 6] = [2, 0, 0, 0, 0, 9];

/// A link's worth of traffic from a Protego sender: DATA numbered from
/// `start`, each lost with `p`; a lost one's RETX copies (each lost with
/// `p` too) some frames later; dummies; now and then an untagged frame, an
/// ACK (alone or on a DATA's copy), a LOSS (whole or cut), a truncated tag,
/// a PFC frame; idle gaps, some longer than the timeout.
pub fn traffic(rng: &mut StdRng, setup: &Setup, start: Seq, n: usize, p: f64, copies: u32) -> Vec<(u64, Vec<u8>)> {
    let mut out = vec![];
    let mut later: Vec<(usize, Vec<u8>)> = vec![];
    let mut s = start;
    let gap = |rng: &mut StdRng| -> u64 {
        match rng.gen_range(0..100) {
            0 => setup.ack_timeout + rng.gen_range(0..50),
            1..=40 => 0,
            _ => rng.gen_range(0..6),
        }
    };
    for i in 0..n {
        let len = if rng.gen_bool(0.2) { rng.gen_range(600..1500) } else { rng.gen_range(60..200) };
        let f = tagged(kind::DATA, s, i as u32, len);
        if rng.gen_bool(p) {
            for _ in 0..copies {
                if !rng.gen_bool(p) {
                    later.push((i + rng.gen_range(1..12), tagged(kind::RETX, s, i as u32, len)));
                }
            }
        } else {
            out.push((gap(rng), f));
        }
        s = s.next();
        later.sort_by_key(|x| x.0);
        while later.first().is_some_and(|x| x.0 <= i) {
            let (_, f) = later.remove(0);
            out.push((gap(rng), f));
        }
        match rng.gen_range(0..60) {
            0 | 1 => out.push((gap(rng), control_frame(MAC, Tag { kind: kind::DATA, seq: s }, &[]))),
            2 => out.push((gap(rng), payload(90_000 + i as u32, 80))),
            3 => out.push((gap(rng), control_frame(MAC, Tag { kind: kind::ACK, seq: start }, &[]))),
            4 => out.push((gap(rng), tagged(kind::ACK, start, 80_000 + i as u32, 100))),
            5 => {
                let l = Loss { first: start, hole: 2, latest: start };
                let mut f = l.frame(MAC);
                if rng.gen_bool(0.5) {
                    f.truncate(19 + rng.gen_range(0..3));
                }
                out.push((gap(rng), f));
            }
            6 => {
                let mut f = tagged(kind::DATA, s, 0, 80);
                f.truncate(13 + rng.gen_range(1..5));
                out.push((gap(rng), f));
            }
            7 => out.push((gap(rng), pfc_frame(MAC, setup.class, rng.gen_bool(0.5)))),
            _ => {}
        }
    }
    for (_, f) in later {
        out.push((gap(rng), f));
    }
    out
}

pub fn setup() -> Setup {
    Setup {
        slots: 64,
        miss: 256,
        nb: false,
        rx: true,
        tag_drop: false,
        ack_timeout: 400,
        buf_bytes: 24_000,
        pause: 12_000,
        resume: 6_000,
        max_hole: 255,
        class: 3,
    }
}

/// Ordered mode: random loss of DATA and RETX (5%, 20%; one and two
/// copies), across the era wrap, with backpressure on every output.
#[test]
fn ordered_random_loss_matches_the_model() -> Result<()> {
    let mut reached = BTreeMap::new();
    for (i, (p, copies, ready)) in [(0.05, 1, 0.8), (0.2, 2, 0.6), (0.2, 1, 1.0)].into_iter().enumerate() {
        let s = setup();
        let mut rng = StdRng::seed_from_u64(40 + i as u64);
        let start = Seq { era: true, seq: 65_000 + rng.gen_range(0..400) };
        let frames = traffic(&mut rng, &s, start, 1_500, p, copies);
        for (n, v) in run(s, 40 + i as u64, frames, ready)? {
            *reached.entry(n).or_insert(0) += v;
        }
    }
    for n in [
        "stats_n_recovered",
        "stats_n_timeouts",
        "stats_n_duplicates",
        "stats_n_pauses",
        "stats_n_resumes",
        "stats_n_buffer_drop",
        "stats_n_truncated",
        "stats_n_untagged",
    ] {
        ensure!(reached[n] > 0, "{n} never counted: {reached:?}");
    }
    Ok(())
}

/// ProtegoNB: delivered at once, duplicates by the requested numbers.
#[test]
fn nb_random_loss_matches_the_model() -> Result<()> {
    let s = Setup { nb: true, ..setup() };
    let mut rng = StdRng::seed_from_u64(7);
    let frames = traffic(&mut rng, &s, Seq { era: false, seq: 100 }, 1_500, 0.1, 2);
    let c = run(s, 7, frames, 0.8)?;
    let get = |n: &str| c.iter().find(|x| x.0 == n).map_or(0, |x| x.1);
    ensure!(get("stats_n_recovered") > 20 && get("stats_n_duplicates") > 0 && get("stats_n_timeouts") == 0, "{c:?}");
    Ok(())
}

/// Holes larger than `max_hole` (5) in a window of 16 slots: the requested
/// numbers' RETX come, the rest time out (an idle gap long enough after
/// each hole), the frames behind the hole wait and leave in order.
#[test]
fn max_hole_and_small_tables() -> Result<()> {
    let s = Setup { max_hole: 5, slots: 16, miss: 256, ..setup() };
    let mut rng = StdRng::seed_from_u64(9);
    let mut seq = Seq { era: false, seq: 10 };
    let mut frames = vec![(0, tagged(kind::DATA, seq, 0, 100))];
    seq = seq.next();
    let (mut unrequested, mut requested) = (0, 0);
    for burst in 1..40u32 {
        let hole = rng.gen_range(1..=9u32);
        let first = seq;
        seq = seq.plus(hole);
        for k in 0..6 {
            frames.push((rng.gen_range(0..3), tagged(kind::DATA, seq, burst * 100 + k, 100)));
            seq = seq.next();
        }
        for r in 0..hole.min(5) {
            frames.push((rng.gen_range(0..3), tagged(kind::RETX, first.plus(r), burst * 100 + 50 + r, 100)));
        }
        requested += hole.min(5) as u64;
        unrequested += hole.saturating_sub(5) as u64;
        frames.push((hole.saturating_sub(5) as u64 * (s.ack_timeout + 20) + 50, tagged(kind::DATA, seq, burst * 100 + 99, 100)));
        seq = seq.next();
    }
    let c = run(s, 9, frames, 0.9)?;
    let get = |n: &str| c.iter().find(|x| x.0 == n).map_or(0, |x| x.1);
    ensure!(get("stats_n_timeouts") == unrequested && get("stats_n_recovered") == requested && get("stats_n_buffer_drop") == 0, "{c:?}");
    Ok(())
}

/// The peer restarting (its numbers start over) and a receiver that is
/// off (tags counted, frames forwarded untagged, or dropped with
/// `tag_drop`).
#[test]
fn restart_and_receiver_off() -> Result<()> {
    let s = setup();
    let mut rng = StdRng::seed_from_u64(11);
    let mut frames = traffic(&mut rng, &s, Seq { era: false, seq: 5_000 }, 300, 0.1, 1);
    frames.extend(traffic(&mut rng, &s, Seq { era: false, seq: 20 }, 300, 0.1, 1));
    let c = run(s, 11, frames.clone(), 0.8)?;
    ensure!(c.iter().any(|x| x.0 == "stats_n_resync" && x.1 == 1), "{c:?}");
    let c = run(Setup { rx: false, ..s }, 12, frames.clone(), 0.8)?;
    ensure!(c.iter().any(|x| x.0 == "stats_n_tag_off" && x.1 > 500), "{c:?}");
    // (The frames delivered, none here, are held to the model's.)
    let c = run(Setup { rx: false, tag_drop: true, ..s }, 13, frames, 0.8)?;
    ensure!(c.iter().any(|x| x.0 == "stats_n_tag_off" && x.1 > 500), "{c:?}");
    Ok(())
}

/// The buffer's bound: frames fill it to exactly `buf_bytes` (kept), the
/// next is dropped and counted; PFC pauses on the way up and resumes when
/// the hole's RETX releases them.
#[test]
fn buffer_fills_to_its_last_byte() -> Result<()> {
    let s = Setup { buf_bytes: 1_000, pause: 800, resume: 400, ..setup() };
    let mut frames = vec![(0, tagged(kind::DATA, Seq::default(), 0, 100))];
    for n in 2..=12u16 {
        frames.push((1, tagged(kind::DATA, Seq { era: false, seq: n }, n as u32, 100)));
    }
    frames.push((5, tagged(kind::RETX, Seq { era: false, seq: 1 }, 1, 100)));
    let c = run(s, 3, frames, 1.0)?;
    let get = |n: &str| c.iter().find(|x| x.0 == n).map_or(0, |x| x.1);
    ensure!(get("stats_n_buffer_drop") == 1 && get("stats_buf_high") == 1_000, "{c:?}");
    ensure!(get("stats_n_pauses") == 1 && get("stats_n_resumes") == 1 && get("stats_n_delivered") == 12, "{c:?}");
    Ok(())
}

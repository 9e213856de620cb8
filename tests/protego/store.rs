//! `ts_protego_store` in Verilator at 64 and 512 bits: frames in, a random
//! engine's actions (the receiver's deliver, drop, keep for a slot, release
//! a slot; the sender's send and keep, replay, free), and out come exactly
//! the frames those send, in the actions' order, with the ring empty at the
//! end; every beat's `tuser.length` the frame's bytes and `m_bytes` its
//! own.
use crate::common::*;
use anyhow::{ensure, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeSet, VecDeque};
use trimswitch_hdl::protego::rx_seq::op;
use trimswitch_hdl::protego::store::ProtegoStore;
use trimswitch_sim::agents::axis::{check_packets, AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};

/// Plays an engine: for each frame, in arrival order, an action (deliver,
/// drop, keep for a free slot), releases of kept slots between them.
struct Engine {
    rng: StdRng,
    valid: Port,
    ready: Port,
    op: Port,
    slot: Port,
    /// Frames not yet actioned, and how many have been written whole (an
    /// action waits for its frame, as the real engine's descriptor does).
    frames: VecDeque<usize>,
    whole: usize,
    s_valid: Port,
    s_ready: Port,
    s_last: Port,
    kept: Vec<(u64, usize)>,
    free: BTreeSet<u64>,
    cur: Option<(u64, u64, Option<usize>)>,
    /// The frames in the order they must leave.
    pub order: Vec<usize>,
    idle_prob: f64,
    /// `m_bytes` against the lanes of `m_tkeep`, on every beat out.
    m_valid: Port,
    m_keep: Port,
    m_bytes: Port,
    bytes_wrong: u64,
}

impl Engine {
    /// An engine on `m`'s action and input ports, with `slots` slots to keep
    /// frames in.
    fn new(m: &Model, seed: u64, idle_prob: f64, slots: u64) -> Result<Engine> {
        Ok(Engine {
            rng: StdRng::seed_from_u64(seed),
            valid: m.port("a_valid")?,
            ready: m.port("a_ready")?,
            op: m.port("a_op")?,
            slot: m.port("a_slot")?,
            frames: VecDeque::new(),
            whole: 0,
            s_valid: m.port("s_tvalid")?,
            s_ready: m.port("s_tready")?,
            s_last: m.port("s_tlast")?,
            kept: vec![],
            free: (0..slots).collect(),
            cur: None,
            order: vec![],
            idle_prob,
            m_valid: m.port("m_tvalid")?,
            m_keep: m.port("m_tkeep")?,
            m_bytes: m.port("m_bytes")?,
            bytes_wrong: 0,
        })
    }

    fn next(&mut self) -> Option<(u64, u64, Option<usize>)> {
        let head_whole = self.frames.front().is_some_and(|&f| f < self.whole);
        let release = !self.kept.is_empty() && (!head_whole || self.rng.gen_bool(0.25));
        if release {
            // The receiver's RELEASE; the sender's REPLAY (out again, kept)
            // and FREE (let go, not out).
            let i = self.rng.gen_range(0..self.kept.len());
            let (slot, f) = self.kept[i];
            let o = [op::RELEASE, op::REPLAY, op::FREE][self.rng.gen_range(0..3)];
            if o != op::REPLAY {
                self.kept.swap_remove(i);
                self.free.insert(slot);
            }
            return Some((o, slot, (o != op::FREE).then_some(f)));
        }
        if !head_whole {
            return None;
        }
        let f = self.frames.pop_front()?;
        match self.rng.gen_range(0..10) {
            0..=3 => Some((op::DELIVER, 0, Some(f))),
            4 | 5 => Some((op::DROP, self.rng.gen_range(0..16), None)),
            // The sender's SEND_KEEP: out now and kept; else BUFFER.
            k => match self.free.pop_first() {
                Some(slot) => {
                    self.kept.push((slot, f));
                    if k == 6 {
                        Some((op::SEND_KEEP, slot, Some(f)))
                    } else {
                        Some((op::BUFFER, slot, None))
                    }
                }
                None => Some((op::DELIVER, 0, Some(f))),
            },
        }
    }
}

impl Agent for Engine {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        if self.cur.is_none() && !self.rng.gen_bool(self.idle_prob) {
            self.cur = self.next();
        }
        m.set(&self.valid, self.cur.is_some() as u64);
        if let Some((o, s, _)) = self.cur {
            m.set(&self.op, o);
            m.set(&self.slot, s);
        }
    }
    fn sample(&mut self, m: &Model, _cycle: u64) {
        if m.get(&self.m_valid) == 1 && m.get(&self.m_bytes) != m.get(&self.m_keep).count_ones() as u64 {
            self.bytes_wrong += 1;
        }
        if m.get(&self.s_valid) == 1 && m.get(&self.s_ready) == 1 && m.get(&self.s_last) == 1 {
            self.whole += 1;
        }
        if m.get(&self.valid) == 1 && m.get(&self.ready) == 1 {
            if let Some((_, _, Some(f))) = self.cur.take() {
                self.order.push(f);
            }
        }
    }
    fn idle(&self) -> bool {
        self.cur.is_none() && self.frames.is_empty() && self.kept.is_empty()
    }
}

/// `big`: a tenth of the frames 600..1500 bytes (else 1..200).
fn run(width: usize, words: usize, big: bool, cell: Cell, n: usize, seed: u64) -> Result<u64> {
    let lib = trimswitch_hdl::with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| model_of(
        &mut ProtegoStore::<D, K, U>::new(words, 32, 16),
        "ts_protego_store",
        &format!("d{D}_w{words}")
    ))
    .context("a tested width")??;
    let m = lib.instantiate();
    let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), seed)?;
    let mut sink = AxisSink::new(&m, &AxisPorts::master("m"), seed + 1)?;
    src.idle_prob = cell.idle_prob;
    sink.ready_prob = cell.ready_prob;
    let mut eng = Engine::new(&m, seed + 2, cell.idle_prob, 16)?;
    let (used, held) = (m.port("ring_used")?, m.port("held")?);
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut frames = vec![];
    for i in 0..n {
        let len = if big && rng.gen_bool(0.1) { rng.gen_range(600..1500) } else { rng.gen_range(1..200) };
        let mut f: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        if len >= 4 {
            f[..4].copy_from_slice(&(i as u32).to_be_bytes());
        }
        frames.push(Packet::new(f, rng.gen::<u64>() as u128));
        src.push(frames[i].clone());
        eng.frames.push_back(i);
    }
    let cycles = tb.run_until_idle(&mut [&mut src, &mut eng, &mut sink], 2_000 * n as u64 + 10_000)?;
    // The reclaimer gives a frame back every other cycle.
    for _ in 0..2 * n + 50 {
        tb.step(&mut [&mut src, &mut eng, &mut sink]);
    }
    no_protocol_errors(&sink)?;
    // Out, `tuser.length` (bits 16..32) is the frame's length.
    let stamp = |p: &Packet| Packet::new(p.data.clone(), p.user & !(0xFFFF << 16) | (p.data.len() as u128) << 16);
    let want: Vec<Packet> = eng.order.iter().map(|&i| stamp(&frames[i])).collect();
    let got: Vec<Packet> = sink.packets.drain(..).collect();
    check_packets(&want, &got)?;
    ensure!(tb.model.get(&used) == 0 && tb.model.get(&held) == 0, "ring not empty at the end");
    ensure!(eng.bytes_wrong == 0, "{} beats with m_bytes not the lanes of m_tkeep", eng.bytes_wrong);
    eprintln!("store/{width} ({words} words): {n} frames, {} out, {cycles} cycles", want.len());
    Ok(cycles)
}

/// Random frames and actions with idle and backpressure: rings of 16 KB
/// with frames up to 1 500 bytes, and small rings (1 KB at 64 bits, 4 KB
/// at 512: full and wrapping all the time) with frames up to 200.
#[test]
fn random_actions_every_width() -> Result<()> {
    for (w, words, big) in [(64, 2048, true), (512, 256, true), (64, 128, false), (512, 64, false)] {
        run(w, words, big, Cell { idle_prob: 0.2, ready_prob: 0.7 }, 400, 3 + words as u64)?;
    }
    Ok(())
}

/// Idle gaps x backpressure.
#[test]
fn matrix() -> Result<()> {
    let mut s = 0;
    for_matrix(|c| {
        s += 1;
        run(512, 128, false, c, 150, 50 + s).map(|_| ())
    })
}

/// The mover's rate, measured: with every frame delivered and the sink
/// always ready, a frame of `n` words leaves in `n + 2` cycles (the action
/// taken, its first and last words looked up, then one word a cycle): a
/// minimum frame every 3 cycles at 512 bits (docs/protego.md, "Rate").
#[test]
fn delivery_rate_words_plus_two() -> Result<()> {
    for w in [64, 512] {
        let lib = trimswitch_hdl::with_geometry!(w, 64, [(64, 64), (512, 64)], |D, K, U, M, W| model_of(
            &mut ProtegoStore::<D, K, U>::new(1024, 64, 16),
            "ts_protego_store",
            &format!("d{D}_w1024_f64")
        ))
        .context("a tested width")??;
        let m = lib.instantiate();
        let mut src = AxisSource::new(&m, &AxisPorts::slave("s"), 1)?;
        let mut sink = AxisSink::new(&m, &AxisPorts::master("m"), 2)?;
        sink.ready_prob = 1.0;
        let mut eng = Engine::new(&m, 3, 0.0, 0)?;
        let mut tb = Tb::new(m, "clock", Some("reset"))?;
        tb.reset(2);
        // Fill the ring first (the actions wait for whole frames), then time
        // the output alone.
        let mut rng = StdRng::seed_from_u64(9);
        let (n, bytes) = (60, w / 8);
        let mut words = 0;
        for i in 0..n {
            let len: usize = rng.gen_range(1..=4 * bytes);
            words += len.div_ceil(bytes) as u64;
            src.push(Packet::new(vec![i as u8; len], 0));
        }
        for _ in 0..2_000 {
            tb.step(&mut [&mut src]);
        }
        eng.frames = (0..n).collect();
        eng.whole = n;
        let mut delivered = 0;
        let mut first = None;
        let mut last = 0;
        for c in 0..10_000u64 {
            if eng.cur.is_none() {
                eng.cur = eng.frames.pop_front().map(|f| (op::DELIVER, 0, Some(f)));
            }
            tb.step(&mut [&mut eng, &mut sink]);
            if sink.beats() > 0 && first.is_none() {
                first = Some(c);
            }
            if sink.received() as usize > delivered {
                delivered = sink.received() as usize;
                last = c;
            }
            if delivered == n {
                break;
            }
        }
        ensure!(delivered == n, "{w}: {delivered} of {n} delivered");
        let span = last - first.context("a first beat")? + 1;
        let want = words + 2 * (n as u64 - 1);
        eprintln!("store/{w}: {n} frames of {words} words left in {span} cycles");
        ensure!(span == want, "{w} bits: {n} frames of {words} words took {span} cycles, not {want}");
    }
    Ok(())
}

//! Two whole switches back to back in Verilator (seed 004's testbed, Fig.
//! 7, reduced; issue 16): host A - S1.p0, S1.p1 = lossy link = S2.p1,
//! S2.p0 - host B, both `ts_switch` with Protego built on port 1
//! ([`protego_switch_configs`]), clocked in lockstep.
//!
//! The link appends each frame's FCS and, for a frame the loss model
//! picks (Bernoulli per frame, both directions, every kind of frame),
//! flips a bit ([`corrupt`]), so the receiving switch's `rx_fcs` drops and
//! counts it, as a corrupting link would. Checked on every run:
//! - what each host gets is what the golden models say the two switches
//!   make of what the other host sent (S1's ingress and egress rewrite,
//!   then S2's), byte for byte;
//! - ordered mode: each frame exactly once and in order, the missing ones
//!   exactly the receiver's counted timeouts; ProtegoNB: each at most once,
//!   every frame a copy of which arrived; Protego off: exactly the frames
//!   the link did not corrupt, in order (the switch without Protego);
//! - the receiving switch's `RX_DROP_FCS` equals the frames corrupted, and
//!   each side's Protego counters (read through the switch's register map)
//!   equal what the wire carried: DATA, RETX, dummies, LOSS and ACK, sent
//!   and arrived; frames on the link, tag removed, are the egress's bytes.
use crate::common::*;
use crate::port::{classify, Wire};
use anyhow::{ensure, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashMap};
use trimswitch_hdl::config::Config;
use trimswitch_hdl::protego::port::PortRegs;
use trimswitch_sim::agents::axis::Packet;
use trimswitch_sim::harness::tb::Agent;
use trimswitch_sim::model::lookup::egress_rewrite;
use trimswitch_sim::model::lossy::{corrupt, LossModel, LossyLink};
use trimswitch_sim::model::protego::{read_tag, strip_tag};
use trimswitch_sim::model::IngressModel;
use trimswitch_sim::packet::crc::append_fcs;
use trimswitch_sim::rtl::switch::SwitchBench;
use trimswitch_sim::scenario::{ndp_frame, Flow};

const HOST: usize = 0;
const LINK: usize = 1;
/// `ackNoTimeout` of [`protego_switch_configs`], cycles.
const TIMEOUT: u64 = 600;

#[derive(Clone, Copy, Debug)]
struct Run {
    frames: usize,
    /// Loss on S1 -> S2 and S2 -> S1 (Bernoulli per frame).
    p: f64,
    p_back: f64,
    copies: u32,
    nb: bool,
    on: bool,
    /// Host B sends to host A too.
    reverse: bool,
    /// The link's delay each way, cycles.
    delay: u64,
    seed: u64,
}

/// One direction of the link: its loss, what it carried, the frames it
/// corrupted.
struct Link {
    loss: LossyLink,
    wire: Wire,
    corrupted: u64,
    /// DATA and RETX frames on it, tag removed (the egress's bytes): (bytes,
    /// a DATA, arrived uncorrupted).
    data: Vec<(Vec<u8>, bool, bool)>,
}

/// Moves what `from` sent on its link port onto `to`'s link port,
/// `delay` cycles on, with its FCS (corrupted when the link loses it).
fn carry(from: &mut SwitchBench, to: &mut SwitchBench, l: &mut Link, delay: u64) {
    let now = from.tb.cycle();
    while let Some(p) = from.sinks[LINK].packets.pop_front() {
        let k = classify(&p.data);
        l.wire.kinds.entry(k).or_default().0 += 1;
        let inner = (k == "data" || k == "retx").then(|| strip_tag(&p.data, read_tag(&p.data).expect("tagged").1));
        let mut w = p.data;
        append_fcs(&mut w);
        let lost = l.loss.lose(&w, w.len() + 20);
        if lost {
            l.corrupted += 1;
            w = corrupt(&w);
        } else {
            l.wire.kinds.entry(k).or_default().1 += 1;
        }
        if let Some(f) = inner {
            l.data.push((f, k == "data", !lost));
        }
        to.srcs[LINK].push_at(Packet::new(w, 0), now + delay);
    }
}

/// Host frames from `src` to `dst` (switch-side numbering: host A is 0,
/// host B is 2): NDP data, 64..600 bytes with FCS, numbered by their IPv4
/// identification and NDP sequence.
fn host_frames(cfg: &Config, rng: &mut StdRng, n: usize, src: usize, dst: usize) -> Vec<Vec<u8>> {
    let flow = Flow { id: src, src, dst, load: 1.0 };
    (0..n).map(|i| ndp_frame(cfg, &flow, i as u32, rng.gen_range(64..600))).collect()
}

/// What the golden models say host `to` gets for each frame the other
/// host sent: S-in's ingress and egress rewrite, the link's FCS, S-out's.
fn expected(cfgs: &[Config; 2], sent: &[Vec<u8>], s_in: usize) -> Result<Frames2> {
    let (mut a, mut b) = (IngressModel::new(&cfgs[s_in]), IngressModel::new(&cfgs[1 - s_in]));
    let (mut on_link, mut out) = (vec![], vec![]);
    for (i, f) in sent.iter().enumerate() {
        let o = a.process(HOST, f).with_context(|| format!("frame {i}: the first switch's model drops it"))?;
        ensure!(o.meta.dest_port as usize == LINK, "frame {i}: the first switch's model sends it to port {}", o.meta.dest_port);
        let mut w = o.frame;
        egress_rewrite(&mut w, o.meta.routed, a.settings());
        on_link.push(w.clone());
        append_fcs(&mut w);
        let o = b.process(LINK, &w).with_context(|| format!("frame {i}: the second switch's model drops it"))?;
        ensure!(o.meta.dest_port as usize == HOST, "frame {i}: the second switch's model sends it to port {}", o.meta.dest_port);
        let mut w = o.frame;
        egress_rewrite(&mut w, o.meta.routed, b.settings());
        out.push(w);
    }
    Ok((on_link, out))
}

/// The frames on the link and at the far host, by host frame.
type Frames2 = (Vec<Vec<u8>>, Vec<Vec<u8>>);

struct Outcome {
    /// Per switch: its Protego registers by name, its ingress's link-port
    /// FCS drops.
    regs: [BTreeMap<&'static str, u64>; 2],
    fcs_drops: [u64; 2],
    /// Per direction (0: A -> B over S1 -> S2).
    links: [Link; 2],
    sent: [Vec<Vec<u8>>; 2],
    got: [Vec<Vec<u8>>; 2],
    cycles: u64,
}

fn run(r: Run) -> Result<Outcome> {
    let cfgs = protego_switch_configs()?;
    let mut s = [SwitchBench::new(&cfgs[0], r.seed)?, SwitchBench::new(&cfgs[0], r.seed + 50)?];
    for (b, cfg) in s.iter_mut().zip(&cfgs) {
        b.configure(cfg)?;
        for k in &mut b.sinks {
            k.ready_prob = 1.0;
        }
        // Protego's tables clear themselves after reset (a cycle an entry).
        b.run(600);
        let w = b.map.window(&format!("protego{LINK}")).clone();
        b.write(w.addr("COPIES", 0), r.copies)?;
        if r.on {
            b.write(w.addr("CTRL", 0), PortRegs::CTRL_TX | PortRegs::CTRL_RX | if r.nb { PortRegs::CTRL_NB } else { 0 })?;
        }
    }
    // Line up the two clocks.
    let (c0, c1) = (s[0].tb.cycle(), s[1].tb.cycle());
    s[0].run(c1.saturating_sub(c0));
    s[1].run(c0.saturating_sub(c1));
    let mut rng = StdRng::seed_from_u64(r.seed);
    let sent =
        [host_frames(&cfgs[0], &mut rng, r.frames, 0, 2), if r.reverse { host_frames(&cfgs[1], &mut rng, r.frames, 2, 0) } else { vec![] }];
    let start = s[0].tb.cycle() + 10;
    for (b, frames) in s.iter_mut().zip(&sent) {
        // About half the link's 8 bytes a cycle, with gaps.
        let mut at = start;
        for f in frames {
            b.srcs[HOST].push_at(Packet::new(f.clone(), 0), at);
            at += f.len() as u64 / 4 + rng.gen_range(0..20);
        }
    }
    let link = |p: f64, seed: u64| -> Result<Link> {
        Ok(Link {
            loss: LossyLink::new(LossModel::Bernoulli { p }, seed).map_err(anyhow::Error::msg)?,
            wire: Wire::default(),
            corrupted: 0,
            data: vec![],
        })
    };
    let mut links = [link(r.p, r.seed + 100)?, link(r.p_back, r.seed + 101)?];
    let budget = 20 * sent.iter().flatten().map(|f| f.len() as u64 / 4 + 20).sum::<u64>() + 50_000;
    // Done once the hosts have sent everything and nothing has moved for
    // three timeouts and more.
    let (mut seen, mut last) = (0, 0);
    for c in 0.. {
        ensure!(
            c < budget,
            "no end after {c} cycles: {} + {} frames delivered",
            s[0].sinks[HOST].packets.len(),
            s[1].sinks[HOST].packets.len()
        );
        s[0].run(1);
        s[1].run(1);
        let [a, b] = &mut s;
        let [l0, l1] = &mut links;
        carry(a, b, l0, r.delay);
        carry(b, a, l1, r.delay);
        let moved = s.iter().map(|b| b.sinks.iter().map(|k| k.beats()).sum::<u64>()).sum::<u64>();
        if moved != seen || s.iter().any(|b| b.srcs.iter().any(|x| !x.idle())) {
            (seen, last) = (moved, c);
        }
        if c - last > 3 * TIMEOUT + 2 * r.delay + 200 {
            break;
        }
    }
    let cycles = s[0].tb.cycle() - start;
    for b in &s {
        for k in &b.sinks {
            no_protocol_errors(k)?;
        }
    }
    let mut regs = [BTreeMap::new(), BTreeMap::new()];
    let mut fcs_drops = [0; 2];
    for (i, b) in s.iter_mut().enumerate() {
        let w = b.map.window(&format!("protego{LINK}")).clone();
        for n in PortRegs::RO {
            regs[i].insert(n, b.read(w.addr(&n.to_ascii_uppercase(), 0))? as u64);
        }
        let ing = b.map.window("ingress0").clone();
        fcs_drops[i] = b.read(ing.addr("RX_DROP_FCS", LINK))? as u64;
    }
    let got = [s[0].sinks[HOST].packets.drain(..).map(|p| p.data).collect(), s[1].sinks[HOST].packets.drain(..).map(|p| p.data).collect()];
    Ok(Outcome { regs, fcs_drops, links, sent, got, cycles })
}

/// Checks one direction: `d` 0 is A -> B (S1 sends, S2 receives), 1 the
/// way back. Returns a line for the log.
fn check(r: &Run, o: &Outcome, cfgs: &[Config; 2], d: usize) -> Result<String> {
    let (tx, rx) = (&o.regs[d], &o.regs[1 - d]);
    let (w, back) = (&o.links[d].wire, &o.links[1 - d].wire);
    let sent = &o.sent[d];
    let got = &o.got[1 - d];
    let (on_link, want) = expected(cfgs, sent, d)?;
    // The receiving switch's rx_fcs dropped and counted every frame the link corrupted.
    ensure!(o.fcs_drops[1 - d] == o.links[d].corrupted, "RX_DROP_FCS {} for {} corrupted", o.fcs_drops[1 - d], o.links[d].corrupted);
    // Each data frame on the link, tag removed, is one the egress made.
    let index: HashMap<&Vec<u8>, usize> = want.iter().enumerate().map(|(i, f)| (f, i)).collect();
    let on: HashMap<&Vec<u8>, usize> = on_link.iter().enumerate().map(|(i, f)| (f, i)).collect();
    let (mut order, mut reached) = (vec![], vec![]);
    for (f, data, arrived) in &o.links[d].data {
        let i = *on.get(f).with_context(|| format!("a frame on the link no egress made: {:02x?}", &f[..32.min(f.len())]))?;
        if *data {
            order.push(i);
        }
        if *arrived {
            reached.push(i);
        }
    }
    reached.sort_unstable();
    reached.dedup();
    let mut numbers = vec![];
    for f in got {
        numbers.push(*index.get(f).with_context(|| format!("host got a frame the models do not make: {:02x?}", &f[..32.min(f.len())]))?);
    }
    let mut uniq = numbers.clone();
    uniq.sort_unstable();
    uniq.dedup();
    ensure!(uniq.len() == numbers.len(), "{} duplicates delivered", numbers.len() - uniq.len());
    let missing = sent.len() - numbers.len();
    ensure!(uniq.iter().all(|i| reached.binary_search(i).is_ok()) || !r.on, "a frame delivered none of whose copies arrived");
    if !r.on {
        // The switch without Protego: untagged frames, the corrupted ones gone.
        ensure!(w.kinds.keys().all(|k| *k == "untagged"), "Protego off, yet the link carried {:?}", w.kinds);
        ensure!(numbers.windows(2).all(|p| p[0] < p[1]), "out of order with Protego off");
        ensure!(missing as u64 == o.links[d].corrupted, "{missing} missing, {} corrupted", o.links[d].corrupted);
        // Frames pass through the receiver's store (its high-water mark
        // moves); no counter does, the delay minimum stays "none".
        for (n, v) in rx.iter().chain(tx.iter()) {
            let want = match *n {
                "rx_dly_min" => Some(u32::MAX as u64),
                "rx_ring_high" => None,
                _ => Some(0),
            };
            ensure!(want.is_none_or(|x| x == *v), "Protego off, yet {n} = {v}");
        }
        return Ok(format!("off: {} of {} delivered, {} corrupted", numbers.len(), sent.len(), o.links[d].corrupted));
    }
    ensure!(
        order.len() as u64 == tx["tx_data"] && tx["tx_data"] == sent.len() as u64,
        "DATA: {} sent, {} on the link",
        tx["tx_data"],
        order.len()
    );
    ensure!(order.windows(2).all(|p| p[0] < p[1]), "DATA left out of order");
    for (kind, t, rr) in [("data", "tx_data", "rx_data"), ("retx", "tx_retx", "rx_retx"), ("dummy", "tx_dummy", "rx_dummy")] {
        ensure!(w.kind(kind) == (tx[t], rx[rr]), "{kind}: wire {:?}, registers {} sent, {} arrived", w.kind(kind), tx[t], rx[rr]);
    }
    ensure!(
        back.kind("loss") == (rx["tx_loss_sent"], tx["tx_loss_rx"]),
        "LOSS: wire {:?}, registers {} / {}",
        back.kind("loss"),
        rx["tx_loss_sent"],
        tx["tx_loss_rx"]
    );
    ensure!(
        back.kind("ack") == (rx["tx_ack_explicit"], tx["tx_ack_rx"]),
        "ACK: wire {:?}, registers {} / {}",
        back.kind("ack"),
        rx["tx_ack_explicit"],
        tx["tx_ack_rx"]
    );
    let line = if r.nb {
        // Every frame a copy of which reached the receiver, once.
        ensure!(uniq == reached, "NB: {} delivered, copies of {} arrived", numbers.len(), reached.len());
        format!("NB: {} of {} delivered", numbers.len(), sent.len())
    } else {
        ensure!(numbers.windows(2).all(|p| p[0] < p[1]), "out of order in ordered mode");
        ensure!(missing as u64 == rx["rx_timeouts"], "{missing} missing, {} timeouts", rx["rx_timeouts"]);
        ensure!(
            rx["rx_lost"] == rx["rx_recovered"] + rx["rx_timeouts"],
            "lost {} != recovered {} + timeouts {}",
            rx["rx_lost"],
            rx["rx_recovered"],
            rx["rx_timeouts"]
        );
        format!(
            "ordered: {} of {} delivered, lost {} recovered {} timeouts {}, delay {}..{} cycles",
            numbers.len(),
            sent.len(),
            rx["rx_lost"],
            rx["rx_recovered"],
            rx["rx_timeouts"],
            rx["rx_dly_min"],
            rx["rx_dly_max"]
        )
    };
    Ok(format!("{line}; link: {:?}, {} corrupted", w.kinds, o.links[d].corrupted))
}

fn run_and_check(r: Run) -> Result<Vec<String>> {
    let cfgs = protego_switch_configs()?;
    let o = run(r)?;
    let mut lines = vec![check(&r, &o, &cfgs, 0).context("A -> B")?];
    if r.reverse {
        lines.push(check(&r, &o, &cfgs, 1).context("B -> A")?);
    }
    for l in &lines {
        eprintln!("{r:?}: {l} ({} cycles)", o.cycles);
    }
    Ok(lines)
}

#[test]
fn protego_off_is_the_switch_without_it() -> Result<()> {
    run_and_check(Run { frames: 300, p: 0.03, p_back: 0.0, copies: 1, nb: false, on: false, reverse: false, delay: 40, seed: 1 })?;
    Ok(())
}

#[test]
fn two_switches_ordered_mode_over_a_lossy_link() -> Result<()> {
    // 2% each way with traffic both ways, 1 copy; then 5% one way, 2 copies.
    run_and_check(Run { frames: 600, p: 0.02, p_back: 0.02, copies: 1, nb: false, on: true, reverse: true, delay: 40, seed: 2 })?;
    run_and_check(Run { frames: 600, p: 0.05, p_back: 0.05, copies: 2, nb: false, on: true, reverse: false, delay: 40, seed: 3 })?;
    Ok(())
}

#[test]
fn two_switches_protego_nb_over_a_lossy_link() -> Result<()> {
    run_and_check(Run { frames: 600, p: 0.05, p_back: 0.02, copies: 1, nb: true, on: true, reverse: false, delay: 40, seed: 4 })?;
    Ok(())
}

//! Two whole switches back to back in Verilator (seed 004's testbed, Fig.
//! 7, reduced; issue 16): host A - S1.p0, S1.p1 = lossy link = S2.p1,
//! S2.p0 - host B, both `ts_switch` with Protego built on port 1
//! ([`protego_switch_configs`]: 2 ports x 64 bits), clocked in lockstep
//! (`trimswitch_sim::rtl::protego`, the scenario simulator's RTL engine:
//! the link paced to line rate, corrupting the frames its loss model picks
//! so `rx_fcs` drops them). Checked on every run:
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
use anyhow::{ensure, Context, Result};
use std::collections::HashMap;
use trimswitch_hdl::config::Config;
use trimswitch_sim::model::lookup::egress_rewrite;
use trimswitch_sim::model::lossy::LossModel;
use trimswitch_sim::model::IngressModel;
use trimswitch_sim::packet::crc::append_fcs;
use trimswitch_sim::rtl::protego::{run_pair, Mode, PairOutcome, PairSetup, HOST, LINK};
use trimswitch_sim::scenario::protego::{self, ProtegoRun};
use trimswitch_sim::scenario::Scenario;

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

/// Checks one direction: `d` 0 is A -> B (S1 sends, S2 receives), 1 the
/// way back. Returns a line for the log.
fn check(r: &PairSetup, o: &PairOutcome, cfgs: &[Config; 2], d: usize) -> Result<String> {
    let (tx, rx) = (&o.regs[d], &o.regs[1 - d]);
    let (w, back) = (&o.links[d], &o.links[1 - d]);
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
    ensure!(uniq.iter().all(|i| reached.binary_search(i).is_ok()) || r.mode == Mode::Off, "a frame delivered none of whose copies arrived");
    if r.mode == Mode::Off {
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
    let line = if r.mode == Mode::Nb {
        // Every frame a copy of which reached the receiver, once.
        ensure!(uniq == reached, "NB: {} delivered, copies of {} arrived", numbers.len(), reached.len());
        format!("NB: {} of {} delivered", numbers.len(), sent.len())
    } else {
        crate::ordered_accounting(&numbers, missing as u64, rx)?;
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

fn run_and_check(r: PairSetup) -> Result<Vec<String>> {
    let cfgs = protego_switch_configs()?;
    let o = run_pair(&cfgs, &r)?;
    let mut lines = vec![check(&r, &o, &cfgs, 0).context("A -> B")?];
    if r.reverse {
        lines.push(check(&r, &o, &cfgs, 1).context("B -> A")?);
    }
    for l in &lines {
        eprintln!("{:?} {:?} copies {} reverse {}: {l} ({} cycles)", r.mode, r.loss_fwd, r.copies, r.reverse, o.cycles);
    }
    Ok(lines)
}

/// Random sizes at 60% of the line rate, a 40-cycle link.
fn setup(frames: usize, p: f64, p_back: f64, mode: Mode, copies: u32, reverse: bool, seed: u64) -> PairSetup {
    PairSetup {
        frames,
        frame_bytes: None,
        load: 0.6,
        loss_fwd: LossModel::Bernoulli { p },
        loss_rev: LossModel::Bernoulli { p: p_back },
        mode,
        copies,
        reverse,
        delay_cycles: 40,
        seed,
        outage: None,
        regs: vec![],
    }
}

#[test]
fn protego_off_is_the_switch_without_it() -> Result<()> {
    run_and_check(setup(300, 0.03, 0.0, Mode::Off, 1, false, 1))?;
    Ok(())
}

#[test]
fn two_switches_ordered_mode_over_a_lossy_link() -> Result<()> {
    // 2% each way with traffic both ways, 1 copy; then 5% one way, 2 copies.
    run_and_check(setup(600, 0.02, 0.02, Mode::Ordered, 1, true, 2))?;
    run_and_check(setup(600, 0.05, 0.05, Mode::Ordered, 2, false, 3))?;
    Ok(())
}

#[test]
fn two_switches_protego_nb_over_a_lossy_link() -> Result<()> {
    run_and_check(setup(600, 0.05, 0.02, Mode::Nb, 1, false, 4))?;
    Ok(())
}

/// The scenario `protego_link_rtl` on both engines with `f` applied to it:
/// (model, RTL) results per mode.
fn both_engines(f: impl Fn(&mut Scenario)) -> Result<Vec<(ProtegoRun, ProtegoRun)>> {
    let cfg = config_with("netfpga-sume", &protego_pair_sets())?;
    let mut sc = Scenario::load("protego_link_rtl")?;
    f(&mut sc);
    let (m, r) = (protego::run_all(&cfg, &sc)?, protego::run_all_rtl(&cfg, &sc)?);
    for (a, b) in m.runs.iter().zip(&r.runs) {
        eprint!("model{}RTL  {}", a.summary(), b.summary());
    }
    Ok(m.runs.into_iter().zip(r.runs).collect())
}

/// Directed losses (the same DATA sequence numbers on both engines: holes
/// of 1, 2 and 5): the model and the RTL lose, recover and deliver the
/// same frames, in order in ordered mode, with the same RETX copies.
#[test]
fn rtl_and_model_agree_on_directed_losses() -> Result<()> {
    let runs = both_engines(|sc| {
        sc.packets = 400;
        sc.modes = vec!["ordered".into(), "nb".into()];
        let p = sc.protego.as_mut().unwrap();
        p.loss = "directed".into();
        p.seqs = vec![3, 40, 41, 100, 101, 102, 103, 104, 250];
        p.copies = Some(2);
    })?;
    for (m, r) in &runs {
        let (a, b) = (&m.result, &r.result);
        ensure!(
            (a.a_sent, a.d_delivered, a.lost, a.recovered, a.timeouts, a.retx_copies)
                == (b.a_sent, b.d_delivered, b.lost, b.recovered, b.timeouts, b.retx_copies),
            "{}: model {a:?}\nRTL {b:?}",
            m.mode
        );
        ensure!(b.lost == 9 && b.d_delivered == 400, "{}: {b:?}", m.mode);
        ensure!(m.mode == "nb" || (a.in_order && b.in_order), "ordered mode out of order");
    }
    Ok(())
}

/// Bernoulli losses of 1e-2 and 5e-2 with 1 and 2 copies, ordered mode, the
/// same seeds on both engines: each delivers in order every frame but its
/// counted timeouts; each engine's losses are its link's (within 4 sigma
/// of the frames on the link times p) and the effective loss is of the
/// order p^(copies + 1) (at most 4 sigma above it, and three frames).
#[test]
fn rtl_and_model_agree_on_random_losses() -> Result<()> {
    for (p, copies) in [(0.01, 1u8), (0.05, 1), (0.05, 2)] {
        let runs = both_engines(|sc| {
            sc.packets = 1500;
            sc.modes = vec!["ordered".into()];
            let pr = sc.protego.as_mut().unwrap();
            pr.p = p;
            pr.copies = Some(copies);
        })?;
        for (m, r) in &runs {
            for (engine, x) in [("model", &m.result), ("RTL", &r.result)] {
                ensure!(x.in_order && x.d_delivered + x.timeouts == x.a_sent, "{engine} p {p} copies {copies}: {x:?}");
                let lost = x.b_link_frames - x.c_good;
                let (mean, sd) = (x.b_link_frames as f64 * p, (x.b_link_frames as f64 * p * (1.0 - p)).sqrt());
                ensure!((lost as f64 - mean).abs() <= 4.0 * sd, "{engine} p {p}: {lost} of {} frames lost", x.b_link_frames);
                let eff = x.a_sent as f64 * p.powi(copies as i32 + 1);
                ensure!(
                    (x.timeouts as f64) <= eff + 4.0 * eff.sqrt() + 3.0,
                    "{engine} p {p} copies {copies}: {} timeouts, about {eff:.1} expected",
                    x.timeouts
                );
            }
        }
    }
    Ok(())
}

/// The peer restarting (issue 16's bad input; B.4 [D] Sync): mid-run the
/// link goes down for 3 000 cycles, S2 is reset and configured again
/// (Protego's receiver synchronises on the first tagged frame it sees), the
/// link comes back; S1 is never reset. Host B's frames stay in order and
/// unduplicated; every DATA that reached S2 after the link came back is
/// delivered; the restarted receiver counts no loss; S1's sender ring
/// drains (the new ACKs free what the outage took).
#[test]
fn the_link_recovers_when_the_peer_restarts() -> Result<()> {
    let cfgs = protego_switch_configs()?;
    let mut r = setup(800, 0.0, 0.0, Mode::Ordered, 1, false, 9);
    r.outage = Some((25_000, 3_000));
    let o = run_pair(&cfgs, &r)?;
    let (on_link, want) = expected(&cfgs, &o.sent[0], 0)?;
    let index: HashMap<&Vec<u8>, usize> = want.iter().enumerate().map(|(i, f)| (f, i)).collect();
    let on: HashMap<&Vec<u8>, usize> = on_link.iter().enumerate().map(|(i, f)| (f, i)).collect();
    let mut got = vec![];
    for f in &o.got[1] {
        got.push(*index.get(f).context("host B got a frame the models do not make")?);
    }
    ensure!(got.windows(2).all(|p| p[0] < p[1]), "out of order or duplicated across the restart");
    let l = &o.links[0];
    ensure!(
        l.down_lost > 0 && l.up_at > 0 && l.up_at < l.data.len(),
        "the outage did not fall inside the run: {} lost, {} of {}",
        l.down_lost,
        l.up_at,
        l.data.len()
    );
    let mut after = vec![];
    for (f, data, arrived) in &l.data[l.up_at..] {
        if *data && *arrived {
            after.push(*on.get(f).context("a frame on the link no egress made")?);
        }
    }
    let missing: Vec<usize> = after.iter().filter(|i| got.binary_search(i).is_err()).copied().collect();
    ensure!(missing.is_empty(), "{} DATA frames reached the restarted S2 and never reached host B: {missing:?}", missing.len());
    let (tx, rx) = (&o.regs[0], &o.regs[1]);
    ensure!(rx["rx_lost"] == 0 && rx["rx_timeouts"] == 0, "the restarted receiver counted loss: {rx:?}");
    ensure!(
        tx["tx_ring_used"] == 0 && tx["tx_ring_frames"] == 0,
        "S1's ring did not drain: {} bytes, {} frames",
        tx["tx_ring_used"],
        tx["tx_ring_frames"]
    );
    ensure!(tx["tx_data"] == 800, "S1 sent {} DATA", tx["tx_data"]);
    eprintln!(
        "peer restart: {} of 800 delivered, {} frames lost with the link, {} DATA after it came back (all delivered), S1 freed {}",
        got.len(),
        l.down_lost,
        after.len(),
        tx["tx_freed"]
    );
    Ok(())
}

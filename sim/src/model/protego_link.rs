//! Seed 004's testbed reduced (Fig. 7; `PL2-PROTEGO.md` B.7) on the model
//! engine: host A -> S1.p0, S1.p1 =(lossy link)= S2.p1, S2.p0 -> host B,
//! Protego on the link (S1.p1 sends, S2.p1 receives), both directions of
//! the link at line rate with a propagation delay, in clock cycles.
//!
//! Host A offers `frames` frames at `load` of the line rate; S1 queues them
//! for p1 without limit (the switch's buffer: a pause or the ring holds
//! them there). What the specification counts: A = sent by host A, B = sent
//! by S1.p1 on the link (every frame: DATA, RETX, dummies), C = received
//! good by S2.p1, D = delivered to host B; actual loss `1 − C/B`, effective
//! loss `1 − D/A`, effective link speed = D's bits over the time they took.
use crate::model::lossy::{LossModel, LossyLink};
use crate::model::protego::{kind, read_tag, strip_tag, Pick, ProtegoConfig, ProtegoPort};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// One experiment.
#[derive(Clone, Debug)]
pub struct LinkSetup {
    /// Line rate, Gb/s.
    pub gbps: f64,
    pub clock_mhz: f64,
    /// Host A's frames on the wire, FCS included (64..=9018).
    pub frame_bytes: usize,
    pub frames: u64,
    /// Host A's rate, a share of the line rate (0 < load <= 1).
    pub load: f64,
    /// Propagation delay of the link, each way, cycles.
    pub delay_cycles: u64,
    /// Each side's latency from a frame's arrival to Protego acting on it
    /// (and from a decision to the frame's first byte), cycles.
    pub proc_cycles: u64,
    pub loss_fwd: LossModel,
    pub loss_rev: LossModel,
    /// Protego's registers (S1.p1 gets the sender side, S2.p1 the receiver
    /// side); `None`: the same link without Protego.
    pub protego: Option<ProtegoConfig>,
    /// Host B sends to host A at the same load (the ACKs ride on it).
    pub reverse_traffic: bool,
    pub seed: u64,
    /// A run that has not drained by then is an error.
    pub max_cycles: u64,
    /// Importance sampling of rare end-to-end losses (a Bernoulli forward
    /// link only): host A's DATA frames are lost with `.0` and their RETX
    /// copies with `.1` instead of `p`, and each frame lost end to end
    /// counts with its likelihood ratio (`p/.0` or `(1-p)/(1-.0)` for its
    /// DATA, the same with `.1` for each copy): an unbiased estimate of the
    /// effective loss at `p` ([`LinkResult::effective_loss_is`]) from
    /// `1/(.0 .1^copies)` times fewer frames. A frame's fate depends only on
    /// its own frames' fates as long as no frame is dropped for room (the
    /// receive buffer holds what a timeout holds back).
    pub bias: Option<(f64, f64)>,
}

impl LinkSetup {
    /// 100G at 322.27 MHz, 1518-byte frames, 20 m of fibre.
    pub fn default_100g() -> Self {
        LinkSetup {
            gbps: 100.0,
            clock_mhz: 322.265625,
            frame_bytes: 1518,
            frames: 10_000,
            load: 1.0,
            delay_cycles: 32,
            proc_cycles: 3,
            loss_fwd: LossModel::None,
            loss_rev: LossModel::None,
            protego: Some(ProtegoConfig::default()),
            reverse_traffic: false,
            bias: None,
            seed: 1,
            max_cycles: 50_000_000,
        }
    }

    fn validate(&self) -> Result<(), String> {
        if !(self.gbps > 0.0 && self.clock_mhz > 0.0) {
            return Err(format!("protego link: gbps {} and clock_mhz {} must be positive", self.gbps, self.clock_mhz));
        }
        if !(64..=9018).contains(&self.frame_bytes) {
            return Err(format!("protego link: frame_bytes = {}: 64..=9018", self.frame_bytes));
        }
        if !(self.load > 0.0 && self.load <= 1.0) {
            return Err(format!("protego link: load = {}: 0 < load <= 1", self.load));
        }
        if let Some(c) = &self.protego {
            c.validate()?;
        }
        Ok(())
    }
}

/// What one experiment measured.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct LinkResult {
    pub a_sent: u64,
    pub b_link_frames: u64,
    pub c_good: u64,
    pub d_delivered: u64,
    pub actual_loss: f64,
    pub effective_loss: f64,
    /// Host A's frames delivered per second, as bits on the wire (frame,
    /// preamble and gap), over the time from the first sent to the last
    /// delivered.
    pub effective_gbps: f64,
    /// Delivered in order, each at most once.
    pub in_order: bool,
    pub retx_copies: u64,
    pub lost: u64,
    pub recovered: u64,
    pub timeouts: u64,
    pub pauses: u64,
    pub retx_delay_min_cycles: Option<u64>,
    pub retx_delay_max_cycles: u64,
    pub tx_ring_high_water: u64,
    pub rx_buffer_high_water: u64,
    /// S1's queue for p1, frames (the switch's buffer).
    pub s1_queue_high_water: u64,
    /// Frames host B got trimmed (the RTL's traffic manager trims when S1's
    /// queue for the link passes its limit; the model's queue has none): not
    /// in `d_delivered`.
    pub trimmed: u64,
    pub cycles: u64,
    /// With [`LinkSetup::bias`]: the effective loss at the link's `p`
    /// estimated from the weighted frames lost end to end, and its standard
    /// error.
    pub effective_loss_is: Option<(f64, f64)>,
}

/// A frame on the wire (without FCS) from host `from`, numbered `n`.
fn host_frame(from: u8, n: u32, len: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 0x0B - from, 0x02, 0, 0, 0, 0, 0x0A + from, 0x08, 0x00];
    f.extend_from_slice(&n.to_be_bytes());
    f.resize(len, 0x5A);
    f
}

/// One direction of the link.
struct Wire {
    free_at: f64,
    flight: VecDeque<(u64, Vec<u8>)>,
    loss: LossyLink,
    /// Importance sampling ([`LinkSetup::bias`]): `p`, the DATA's and the
    /// copies' loss, their generator, and host A's frames' weights by id.
    bias: Option<(f64, f64, f64, SmallRng)>,
    weight: Vec<f64>,
}

impl Wire {
    /// Puts `f` on the wire at cycle `t`: `bpc` bytes per cycle, preamble,
    /// FCS and gap (24 bytes) added; back to back with the frame before if
    /// that one ended within the last cycle (the wire's time is fractional,
    /// the decisions are per cycle). Lost, or in flight until its last byte
    /// has crossed and `latency` more cycles.
    fn send(&mut self, f: Vec<u8>, t: u64, bpc: f64, latency: u64) {
        let wire = f.len() + 24;
        let start = if self.free_at > t as f64 - 1.0 { self.free_at } else { t as f64 };
        self.free_at = start + wire as f64 / bpc;
        // A host frame's DATA or RETX (not a dummy) under importance
        // sampling: lost with the biased probability, its weight updated.
        let host = self.bias.as_ref().and_then(|_| {
            let (tag, at) = read_tag(&f)?;
            let inner = strip_tag(&f, at);
            let data = tag.kind == kind::DATA || tag.kind == kind::RETX;
            (data && inner.len() >= 18 && inner[12..14] == [0x08, 0x00])
                .then(|| (tag.kind, u32::from_be_bytes([inner[14], inner[15], inner[16], inner[17]]) as usize))
        });
        let lost = match (host, self.bias.as_mut()) {
            (Some((k, id)), Some((p, pd, pr, rng))) => {
                let q = if k == kind::DATA { *pd } else { *pr };
                let lost = rng.gen_bool(q);
                if self.weight.len() <= id {
                    self.weight.resize(id + 1, 1.0);
                }
                self.weight[id] *= if lost { *p / q } else { (1.0 - *p) / (1.0 - q) };
                lost
            }
            _ => self.loss.lose(&f, wire),
        };
        if !lost {
            self.flight.push_back((self.free_at.ceil() as u64 + latency, f));
        }
    }

    fn free(&self, t: u64) -> bool {
        self.free_at <= t as f64
    }
}

/// Runs one experiment to its end: every frame of host A delivered or
/// given up, the ring and the buffer empty.
pub fn run(s: &LinkSetup) -> Result<LinkResult, String> {
    s.validate()?;
    let bpc = s.gbps * 1e9 / 8.0 / (s.clock_mhz * 1e6);
    let len = s.frame_bytes - 4;
    let gap = (s.frame_bytes + 20) as f64 / bpc / s.load;
    let (mut s1, mut s2) = match &s.protego {
        Some(c) => (
            Some(ProtegoPort::new(ProtegoConfig { tx: true, rx: false, ..*c })?),
            Some(ProtegoPort::new(ProtegoConfig { tx: false, rx: true, ..*c })?),
        ),
        None => (None, None),
    };
    let bias = match (s.bias, &s.loss_fwd) {
        (None, _) => None,
        (Some((pd, pr)), LossModel::Bernoulli { p }) => {
            if !(*p > 0.0 && pd > 0.0 && pd < 1.0 && pr > 0.0 && pr < 1.0) {
                return Err(format!("protego link: bias ({pd}, {pr}) with p = {p}: each must lie in (0, 1)"));
            }
            Some((*p, pd, pr, SmallRng::seed_from_u64(s.seed ^ 0xB1A5)))
        }
        (Some(_), _) => return Err("protego link: bias needs a Bernoulli forward link".into()),
    };
    let mut fwd = Wire { free_at: 0.0, flight: VecDeque::new(), loss: LossyLink::new(s.loss_fwd.clone(), s.seed)?, bias, weight: vec![] };
    let mut rev = Wire {
        free_at: 0.0,
        flight: VecDeque::new(),
        loss: LossyLink::new(s.loss_rev.clone(), s.seed ^ 0x5EED)?,
        bias: None,
        weight: vec![],
    };
    let mut got = vec![false; s.frames as usize];
    let mark = |got: &mut Vec<bool>, id: u32| {
        if let Some(g) = got.get_mut(id as usize) {
            *g = true;
        }
    };
    let mut q1: VecDeque<Vec<u8>> = VecDeque::new();
    let mut r = LinkResult { in_order: true, ..Default::default() };
    let (mut next_a, mut next_b, mut b_sent) = (0.0f64, 0.0f64, 0u64);
    let mut last_id: Option<u32> = None;
    let mut last_delivery = 0u64;
    let mut t = 0u64;
    let deliver = |r: &mut LinkResult, last_id: &mut Option<u32>, last: &mut u64, f: &[u8], t: u64| {
        let id = u32::from_be_bytes([f[14], f[15], f[16], f[17]]);
        if last_id.is_some_and(|l| id <= l) {
            r.in_order = false;
        }
        *last_id = Some(id);
        r.d_delivered += 1;
        *last = t;
        id
    };
    loop {
        // Host A into S1's queue for p1 (and host B's reverse traffic,
        // offered to S2.p1 as its normal input).
        while r.a_sent < s.frames && next_a <= t as f64 {
            q1.push_back(host_frame(0, r.a_sent as u32, len));
            r.a_sent += 1;
            next_a += gap;
        }
        r.s1_queue_high_water = r.s1_queue_high_water.max(q1.len() as u64);
        let b_ready = s.reverse_traffic && b_sent < s.frames && next_b <= t as f64;
        // S1.p1 onto the link.
        if fwd.free(t) {
            let f = match s1.as_mut() {
                Some(p) => match p.pick_at(t, q1.front().map(Vec::len)) {
                    Pick::Normal => Some(p.send_normal(&q1.pop_front().expect("normal"))),
                    Pick::Control(f) => Some(f),
                    Pick::Idle => None,
                },
                None => q1.pop_front(),
            };
            if let Some(f) = f {
                r.b_link_frames += 1;
                fwd.send(f, t, bpc, s.proc_cycles + s.delay_cycles);
            }
        }
        // S2.p1 back.
        if rev.free(t) {
            let normal = b_ready.then_some(len);
            let (f, took) = match s2.as_mut() {
                Some(p) => match p.pick_at(t, normal) {
                    Pick::Normal => (Some(p.send_normal(&host_frame(1, b_sent as u32, len))), true),
                    Pick::Control(f) => (Some(f), false),
                    Pick::Idle => (None, false),
                },
                None => (normal.map(|_| host_frame(1, b_sent as u32, len)), normal.is_some()),
            };
            if took {
                b_sent += 1;
                next_b += gap;
            }
            if let Some(f) = f {
                rev.send(f, t, bpc, s.proc_cycles + s.delay_cycles);
            }
        }
        // Arrivals at S2.p1, then its timeout; at S1.p1.
        while fwd.flight.front().is_some_and(|(a, _)| a + s.proc_cycles <= t) {
            let (_, f) = fwd.flight.pop_front().expect("arrival");
            r.c_good += 1;
            match s2.as_mut() {
                Some(p) => {
                    for d in p.receive(&f, t).deliver {
                        let id = deliver(&mut r, &mut last_id, &mut last_delivery, &d, t);
                        mark(&mut got, id);
                    }
                }
                None => {
                    let id = deliver(&mut r, &mut last_id, &mut last_delivery, &f, t);
                    mark(&mut got, id);
                }
            }
        }
        if let Some(p) = s2.as_mut() {
            for d in p.tick(t).deliver {
                let id = deliver(&mut r, &mut last_id, &mut last_delivery, &d, t);
                mark(&mut got, id);
            }
        }
        while rev.flight.front().is_some_and(|(a, _)| a + s.proc_cycles <= t) {
            let (_, f) = rev.flight.pop_front().expect("arrival");
            if let Some(p) = s1.as_mut() {
                p.receive(&f, t);
            }
        }
        // Done: everything sent, nothing in flight, ring and buffer empty.
        let settled = match (&s1, &s2) {
            // (ProtegoNB keeps no order: nothing waits at the receiver.)
            (Some(a), Some(b)) => {
                a.tx.ring_len() == 0
                    && !a.tx.retx_pending()
                    && (b.config().nb || (b.rx.buffered() == 0 && b.rx.ack_no() == b.rx.expected()))
            }
            _ => true,
        };
        if r.a_sent == s.frames && q1.is_empty() && fwd.flight.is_empty() && rev.flight.is_empty() && settled && fwd.free(t) {
            break;
        }
        t += 1;
        if t > s.max_cycles {
            return Err(format!("protego link: not drained after {} cycles ({} of {} delivered)", s.max_cycles, r.d_delivered, s.frames));
        }
    }
    r.cycles = t;
    r.actual_loss = 1.0 - r.c_good as f64 / r.b_link_frames.max(1) as f64;
    r.effective_loss = 1.0 - r.d_delivered as f64 / r.a_sent.max(1) as f64;
    let ns = last_delivery as f64 / s.clock_mhz * 1e3;
    r.effective_gbps = r.d_delivered as f64 * (s.frame_bytes + 20) as f64 * 8.0 / ns.max(1e-9);
    if fwd.bias.is_some() {
        // The mean over host A's frames of weight x (lost end to end).
        let n = r.a_sent.max(1) as f64;
        let (mut sum, mut sq) = (0.0, 0.0);
        for (id, g) in got.iter().enumerate() {
            if !g {
                let w = fwd.weight.get(id).copied().unwrap_or(1.0);
                sum += w;
                sq += w * w;
            }
        }
        let mean = sum / n;
        r.effective_loss_is = Some((mean, ((sq / n - mean * mean).max(0.0) / n).sqrt()));
    }
    if let (Some(a), Some(b)) = (&s1, &s2) {
        r.retx_copies = a.tx.counters.retx;
        r.tx_ring_high_water = a.tx.counters.ring_high_water;
        let c = &b.rx.counters;
        (r.lost, r.recovered, r.timeouts, r.pauses) = (c.lost, c.recovered, c.timeouts, c.pauses);
        (r.retx_delay_min_cycles, r.retx_delay_max_cycles) = (c.retx_delay_min, c.retx_delay_max);
        r.rx_buffer_high_water = c.buffer_high_water;
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(p: f64, copies: u8, frames: u64) -> LinkSetup {
        LinkSetup {
            frames,
            loss_fwd: LossModel::Bernoulli { p },
            protego: Some(ProtegoConfig { copies, ..ProtegoConfig::default() }),
            ..LinkSetup::default_100g()
        }
    }

    /// Importance sampling: Eq. 1's rare effective losses measured
    /// (`p^(copies+1)` within four standard errors, each under 5% of the
    /// estimate), and at 1e-2, where the unbiased run can count them, the
    /// same figure.
    #[test]
    fn importance_sampling_measures_rare_losses() {
        for (p, copies, want) in [(1e-3, 1, 1e-6), (1e-3, 2, 1e-9), (1e-5, 1, 1e-10)] {
            let r = run(&LinkSetup { bias: Some((0.05, 0.5)), ..setup(p, copies, 50_000) }).unwrap();
            let (m, se) = r.effective_loss_is.unwrap();
            assert!((m - want).abs() < 4.0 * se && se < 0.05 * m, "p {p}, copies {copies}: {m:e} ± {se:e}, want {want:e}");
        }
        let direct = run(&setup(1e-2, 1, 200_000)).unwrap();
        let r = run(&LinkSetup { bias: Some((0.05, 0.5)), ..setup(1e-2, 1, 50_000) }).unwrap();
        let (m, _) = r.effective_loss_is.unwrap();
        // (The direct count: about 20 frames, a relative error near 25%.)
        assert!((m - direct.effective_loss).abs() < 0.5 * direct.effective_loss, "{m:e} vs {:e}", direct.effective_loss);
    }

    #[test]
    fn without_protego_the_loss_is_the_links() {
        let r = run(&LinkSetup { protego: None, ..setup(0.01, 1, 50_000) }).unwrap();
        assert!((r.effective_loss - 0.01).abs() < 0.002, "{r:?}");
        assert!((r.actual_loss - r.effective_loss).abs() < 1e-12);
        assert!(r.in_order);
        // At line rate: 100G less nothing.
        assert!(r.effective_gbps > 98.0 * 0.99 && r.effective_gbps < 100.1, "{}", r.effective_gbps);
    }

    /// B.7: copies = 1 at p = 1e-2 gives about p², in order, at nearly the
    /// line rate (the paper's Tofino lost 8% of its speed at 1e-3).
    #[test]
    fn protego_squares_the_loss() {
        let r = run(&setup(0.01, 1, 100_000)).unwrap();
        eprintln!("p 1e-2, copies 1: {r:?}");
        assert!(r.in_order && r.d_delivered + r.timeouts == r.a_sent, "{r:?}");
        assert!(r.effective_loss > 0.0 && r.effective_loss < 4e-4, "effective {} (p² = 1e-4)", r.effective_loss);
        assert!(r.actual_loss > 0.008 && r.actual_loss < 0.012);
        assert!(r.effective_gbps > 95.0, "{} Gb/s", r.effective_gbps);
        // Retransmission delay, detection -> copy received: the LOSS and the
        // RETX each wait for at most one frame on their wire.
        let max_ns = r.retx_delay_max_cycles as f64 / 322.265625 * 1e3;
        assert!(max_ns < 1000.0, "{max_ns} ns");
        // Two copies at 5e-2: about p³ = 1.25e-4.
        let r = run(&setup(0.05, 2, 100_000)).unwrap();
        assert!(r.in_order && r.effective_loss < 6e-4, "{r:?}");
    }

    #[test]
    fn reverse_traffic_carries_the_acks() {
        let r = run(&LinkSetup { reverse_traffic: true, ..setup(0.01, 1, 20_000) }).unwrap();
        assert!(r.in_order && r.effective_loss < 1e-3, "{r:?}");
        assert!(r.tx_ring_high_water > 0);
    }

    #[test]
    fn bad_setups_are_errors() {
        assert!(run(&LinkSetup { frame_bytes: 63, ..setup(0.0, 1, 1) }).unwrap_err().contains("frame_bytes"));
        assert!(run(&LinkSetup { load: 0.0, ..setup(0.0, 1, 1) }).unwrap_err().contains("load"));
        assert!(run(&LinkSetup { bias: Some((0.05, 1.0)), ..setup(1e-3, 1, 1) }).unwrap_err().contains("bias"));
        let ge = LinkSetup { loss_fwd: LossModel::Ber { ber: 1e-12 }, bias: Some((0.05, 0.5)), ..setup(0.0, 1, 1) };
        assert!(run(&ge).unwrap_err().contains("Bernoulli"));
    }
}

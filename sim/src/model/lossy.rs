//! A lossy link's loss models (`PL2-PROTEGO.md` B.7; issue 16), seeded:
//! Bernoulli per frame, a bit-error rate (a frame's loss by its length),
//! Gilbert-Elliott bursts, and a directed list of Protego sequence numbers.
//! The model engine drops the frames it loses; the RTL harness flips a bit
//! in them ([`corrupt`]) so that `rx_fcs` drops and counts them.
use crate::model::protego::{kind, read_tag};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;

/// How a link loses frames.
#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    /// Each frame lost with probability `p`.
    Bernoulli {
        p: f64,
    },
    /// Each bit in error with probability `ber`: a frame of `L` bytes on the
    /// wire is lost with `1 − (1 − ber)^(8L)` (004 §4 fn 2: 1e-12 is about
    /// 1e-8 per MTU).
    Ber {
        ber: f64,
    },
    /// Two states: `good` loses with `loss_good`, `bad` with `loss_bad`;
    /// after each frame the state moves good → bad with `p_gb`, bad → good
    /// with `p_bg`.
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    /// The first transmissions (DATA) of these sequence numbers (era
    /// ignored), nothing else.
    Directed {
        seqs: BTreeSet<u16>,
    },
}

impl LossModel {
    /// Gilbert-Elliott with every frame lost in the bad state and none in
    /// the good, fitted to a mean loss `rate` and to bursts (holes) of at
    /// most `max_hole` frames in a share `coverage` of the loss events (004
    /// App. B.2: holes of at most 5 cover 99.9999% of the events at 5%).
    pub fn gilbert_elliott_fitted(rate: f64, max_hole: u32, coverage: f64) -> Result<LossModel, String> {
        if !(rate > 0.0 && rate < 1.0) || max_hole == 0 || !(coverage > 0.0 && coverage < 1.0) {
            return Err(format!("gilbert-elliott: rate {rate} and coverage {coverage} in (0, 1), max_hole {max_hole} >= 1"));
        }
        // A burst is geometric: P(length > h) = (1 − p_bg)^h.
        let p_bg = 1.0 - (1.0 - coverage).powf(1.0 / max_hole as f64);
        let p_gb = rate * p_bg / (1.0 - rate);
        if p_gb >= 1.0 {
            return Err(format!("gilbert-elliott: rate {rate} too high for holes of {max_hole}"));
        }
        Ok(LossModel::GilbertElliott { p_gb, p_bg, loss_good: 0.0, loss_bad: 1.0 })
    }

    /// The long-run share of frames lost (of `wire_bytes`-byte frames for a
    /// BER; a directed list has none).
    pub fn mean_loss(&self, wire_bytes: usize) -> f64 {
        match *self {
            LossModel::None | LossModel::Directed { .. } => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::Ber { ber } => 1.0 - (1.0 - ber).powf(8.0 * wire_bytes as f64),
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                let bad = p_gb / (p_gb + p_bg);
                bad * loss_bad + (1.0 - bad) * loss_good
            }
        }
    }

    fn validate(&self) -> Result<(), String> {
        let prob =
            |n: &str, v: f64| if (0.0..=1.0).contains(&v) { Ok(()) } else { Err(format!("loss model: {n} = {v}: must lie in [0, 1]")) };
        match *self {
            LossModel::Bernoulli { p } => prob("p", p),
            LossModel::Ber { ber } => prob("ber", ber),
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                prob("p_gb", p_gb)?;
                prob("p_bg", p_bg)?;
                prob("loss_good", loss_good)?;
                prob("loss_bad", loss_bad)
            }
            _ => Ok(()),
        }
    }
}

/// One direction of a link: its model, its generator and its counts.
#[derive(Clone, Debug)]
pub struct LossyLink {
    model: LossModel,
    rng: SmallRng,
    bad: bool,
    pub frames: u64,
    pub lost: u64,
}

impl LossyLink {
    pub fn new(model: LossModel, seed: u64) -> Result<Self, String> {
        model.validate()?;
        Ok(LossyLink { model, rng: SmallRng::seed_from_u64(seed), bad: false, frames: 0, lost: 0 })
    }

    /// Whether `frame` (`wire_bytes` on the wire) is lost.
    pub fn lose(&mut self, frame: &[u8], wire_bytes: usize) -> bool {
        self.frames += 1;
        let lost = match &self.model {
            LossModel::None => false,
            LossModel::Bernoulli { p } => self.rng.gen_bool(*p),
            LossModel::Ber { .. } => {
                let p = self.model.mean_loss(wire_bytes);
                self.rng.gen_bool(p)
            }
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                let l = self.rng.gen_bool(if self.bad { *loss_bad } else { *loss_good });
                let flip = self.rng.gen_bool(if self.bad { *p_bg } else { *p_gb });
                self.bad ^= flip;
                l
            }
            LossModel::Directed { seqs } => match read_tag(frame) {
                Some((t, at)) => {
                    t.kind == kind::DATA
                        && crate::model::protego::inner_ethertype(frame, at) != crate::packet::frame::ethertype::PROTEGO
                        && seqs.contains(&t.seq.seq)
                }
                None => false,
            },
        };
        self.lost += lost as u64;
        lost
    }
}

/// `frame` with one bit flipped (byte 14, the first after the addresses
/// and the EtherType, so the FCS no longer matches and the addresses
/// stay; the last byte of a shorter frame; an empty frame stays empty).
pub fn corrupt(frame: &[u8]) -> Vec<u8> {
    let mut f = frame.to_vec();
    // Byte 14, or the last one of a shorter frame (none of an empty one).
    let i = if f.len() > 14 { 14 } else { f.len().wrapping_sub(1) };
    if let Some(b) = f.get_mut(i) {
        *b ^= 0x10;
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::protego::{insert_tag, Seq, Tag};

    fn rate(m: LossModel, n: u64, bytes: usize) -> (f64, u32) {
        let mut l = LossyLink::new(m, 7).unwrap();
        let f = vec![0u8; bytes];
        let (mut run, mut longest) = (0u32, 0u32);
        for _ in 0..n {
            if l.lose(&f, bytes) {
                run += 1;
                longest = longest.max(run);
            } else {
                run = 0;
            }
        }
        (l.lost as f64 / n as f64, longest)
    }

    #[test]
    fn bernoulli_and_ber_rates() {
        let (r, _) = rate(LossModel::Bernoulli { p: 0.01 }, 400_000, 64);
        assert!((r - 0.01).abs() < 0.001, "{r}");
        // BER 1e-12 on an MTU frame (1538 B on the wire): about 1.2e-8.
        let m = LossModel::Ber { ber: 1e-12 };
        let p = m.mean_loss(1538);
        assert!((p - 1.2304e-8).abs() < 1e-11, "{p}");
        let (r, _) = rate(LossModel::Ber { ber: 1e-6 }, 200_000, 1538);
        let want = 1.0 - (1.0f64 - 1e-6).powf(8.0 * 1538.0);
        assert!((r - want).abs() < 0.003, "{r} vs {want}");
        let (r64, _) = rate(LossModel::Ber { ber: 1e-6 }, 200_000, 64);
        assert!(r64 < r / 10.0, "short frames lose less: {r64} vs {r}");
    }

    /// Fitted to 004 App. B.2: 5% loss, holes of at most 5 in 99.9999% of
    /// the events.
    #[test]
    fn gilbert_elliott_fit() {
        let m = LossModel::gilbert_elliott_fitted(0.05, 5, 0.999_999).unwrap();
        assert!((m.mean_loss(0) - 0.05).abs() < 1e-12);
        let LossModel::GilbertElliott { p_bg, .. } = m else { unreachable!() };
        assert!(((1.0 - p_bg).powi(5) - 1e-6).abs() < 1e-12, "P(hole > 5)");
        let (r, longest) = rate(m, 1_000_000, 64);
        assert!((r - 0.05).abs() < 0.003, "{r}");
        assert!((2..=6).contains(&longest), "longest hole {longest}");
        assert!(LossModel::gilbert_elliott_fitted(0.0, 5, 0.9).is_err());
        assert!(LossyLink::new(LossModel::Bernoulli { p: 1.5 }, 1).unwrap_err().contains("p = 1.5"));
    }

    #[test]
    fn directed_drops_first_transmissions_only() {
        let m = LossModel::Directed { seqs: [2u16, 4].into_iter().collect() };
        let mut l = LossyLink::new(m, 1).unwrap();
        let f = vec![0x02u8; 60];
        let tagged = |k: u8, s: u16| insert_tag(&f, Tag { kind: k, seq: Seq { era: false, seq: s } });
        assert!(l.lose(&tagged(kind::DATA, 2), 70));
        assert!(!l.lose(&tagged(kind::DATA, 3), 70));
        assert!(!l.lose(&tagged(kind::RETX, 2), 70), "a copy goes through");
        assert!(!l.lose(&f, 64), "untagged");
        assert_eq!((l.frames, l.lost), (4, 1));
        assert_ne!(corrupt(&f), f);
        assert_ne!(corrupt(&[1, 2]), vec![1, 2]);
        assert!(corrupt(&[]).is_empty());
    }
}

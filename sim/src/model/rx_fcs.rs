//! Golden model of `rx_fcs`, the per-port receive check (`docs/ingress.md`,
//! "rx_fcs"): empty, runt, oversize and bad-FCS frames are dropped; good frames
//! leave with their FCS removed when `strip_fcs` is set.
//!
//! The `overflow` verdict (row 5 of the table) never occurs here: the model's
//! receive FIFO is unbounded. The differential tests keep the RTL FIFO from
//! overflowing (they pace the inputs and never stall the pipeline long enough to
//! fill `fifo.depth` beats), so the RTL's `rx_drop_overflow` must stay zero there
//! too and the counter is compared like every other.
use super::Settings;
use crate::packet::crc::{crc32_update, RESIDUE};

/// Why `rx_fcs` dropped a frame (`docs/ingress.md`, "rx_fcs", the verdict table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RxDrop {
    /// `L == 0`: a `tlast` beat with no bytes.
    Empty,
    /// `L < min_frame`, or `L <= 4` whatever `min_frame` says (a frame no
    /// longer than its FCS).
    Runt,
    /// `L > max_frame`.
    Oversize,
    /// The CRC-32 residue check failed.
    Fcs,
    /// Good, but the receive FIFO had no room (never produced by the model).
    Overflow,
}

impl RxDrop {
    /// Every reason, in the table's order.
    pub const ALL: [RxDrop; 5] = [RxDrop::Empty, RxDrop::Runt, RxDrop::Oversize, RxDrop::Fcs, RxDrop::Overflow];

    /// The per-port counter this reason increments (`rx_drop_empty`, ...), without
    /// the `port{p}.` prefix.
    pub fn counter(self) -> &'static str {
        match self {
            RxDrop::Empty => "rx_drop_empty",
            RxDrop::Runt => "rx_drop_runt",
            RxDrop::Oversize => "rx_drop_oversize",
            RxDrop::Fcs => "rx_drop_fcs",
            RxDrop::Overflow => "rx_drop_overflow",
        }
    }
}

/// True when the CRC register run over all of `wire` (FCS included) from
/// 0xFFFFFFFF ends at the residue 0xDEBB20E3 (`docs/protocols.md`, "Ethernet FCS").
///
/// No length precondition: frames of at most 4 bytes never get this far, as
/// they are runts whatever `min_frame` says. (Of those, only the 4-byte FCS of
/// an empty frame reaches the residue; a unit test checks all 16.8 million
/// frames of 1 to 3 bytes.)
pub fn residue_ok(wire: &[u8]) -> bool {
    crc32_update(0xFFFF_FFFF, wire) == RESIDUE
}

/// The `rx_fcs` verdict for one received frame `wire` (FCS included), per
/// `docs/ingress.md`, "rx_fcs": the first of empty, runt (`L < min_frame` or
/// `L <= 4`), oversize (`L > max_frame`) and bad FCS that applies drops the frame;
/// otherwise the frame is returned, without its last 4 bytes when
/// `s.strip_fcs` is set. Never returns [`RxDrop::Overflow`] (see the module
/// documentation). Never panics. The frame as a MAC without an error flag
/// delivers it: [`rx_fcs_flagged`] with the flag clear.
pub fn rx_fcs(wire: &[u8], s: &Settings) -> Result<Vec<u8>, RxDrop> {
    rx_fcs_flagged(wire, false, s)
}

/// The `rx_fcs` verdict for a frame the MAC delivered with its bad-frame
/// flag (`s_tuser` on the last beat; issue 18). With `s.mac_fcs`
/// (`ingress.fcs = "mac"`) `frame` has no FCS (the MAC removed it): its
/// length for the limits is `frame.len() + 4`, no CRC is checked, nothing is
/// stripped, and a flagged frame is [`RxDrop::Fcs`]. Without it, as
/// [`rx_fcs`], and a flagged frame is [`RxDrop::Fcs`] too. The order of the
/// verdicts is the table's in both modes (an empty, runt or oversize frame
/// is counted as that, flagged or not).
pub fn rx_fcs_flagged(frame: &[u8], flag: bool, s: &Settings) -> Result<Vec<u8>, RxDrop> {
    let l = frame.len() + if s.mac_fcs { 4 } else { 0 };
    if frame.is_empty() {
        Err(RxDrop::Empty)
    } else if l < s.min_frame as usize || l <= 4 {
        Err(RxDrop::Runt)
    } else if l > s.max_frame as usize {
        Err(RxDrop::Oversize)
    } else if flag || (!s.mac_fcs && !residue_ok(frame)) {
        Err(RxDrop::Fcs)
    } else if s.strip_fcs && !s.mac_fcs {
        Ok(frame[..l - 4].to_vec())
    } else {
        Ok(frame.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::crc::append_fcs;

    fn settings(min: u16, max: u16, strip: bool) -> Settings {
        Settings { min_frame: min, max_frame: max, strip_fcs: strip, ..Settings::default() }
    }

    #[test]
    fn verdicts_in_table_order() {
        let s = settings(64, 100, true);
        let mut good: Vec<u8> = (0..60u8).collect();
        append_fcs(&mut good);
        assert_eq!(rx_fcs(&[], &s), Err(RxDrop::Empty));
        assert_eq!(rx_fcs(&good[..63], &s), Err(RxDrop::Runt));
        assert_eq!(rx_fcs(&good, &s).unwrap(), good[..60].to_vec());
        assert_eq!(rx_fcs(&good, &settings(64, 100, false)).unwrap(), good);
        // Exactly max_frame is good; one more is oversize even with a good FCS.
        let mut f: Vec<u8> = (0..96u8).collect();
        append_fcs(&mut f);
        assert_eq!(rx_fcs(&f, &s).map(|v| v.len()), Ok(96));
        let mut g: Vec<u8> = (0..97u8).collect();
        append_fcs(&mut g);
        assert_eq!(rx_fcs(&g, &s), Err(RxDrop::Oversize));
        // A runt with a bad FCS is a runt (order), a good-length one is bad FCS.
        let mut bad = good.clone();
        bad[5] ^= 1;
        assert_eq!(rx_fcs(&bad, &s), Err(RxDrop::Fcs));
        assert_eq!(rx_fcs(&bad[..10], &s), Err(RxDrop::Runt));
        // Whatever min_frame says, a frame of at most 4 bytes is a runt, even
        // the 4-byte FCS of an empty frame, which passes the residue check.
        let zero = settings(0, 100, true);
        let mut fcs_only = vec![];
        append_fcs(&mut fcs_only);
        assert!(residue_ok(&fcs_only));
        assert_eq!(rx_fcs(&fcs_only, &zero), Err(RxDrop::Runt));
        assert_eq!(rx_fcs(&[0x55], &zero), Err(RxDrop::Runt));
        let mut five = vec![0xa5];
        append_fcs(&mut five);
        assert_eq!(rx_fcs(&five, &zero), Ok(vec![0xa5]));
        assert_eq!(rx_fcs(&five, &settings(0, 100, false)), Ok(five.clone()));
        five[0] ^= 1;
        assert_eq!(rx_fcs(&five, &zero), Err(RxDrop::Fcs));
    }

    /// `ingress.fcs = "mac"`: lengths count the 4 bytes the MAC removed, the
    /// flag is the only FCS verdict, nothing is stripped; a flag in check
    /// mode drops a frame whose CRC holds.
    #[test]
    fn mac_mode_verdicts() {
        let s = Settings { mac_fcs: true, ..settings(64, 100, true) };
        let frame: Vec<u8> = (0..60u8).collect();
        assert_eq!(rx_fcs_flagged(&frame, false, &s), Ok(frame.clone()));
        assert_eq!(rx_fcs_flagged(&frame, true, &s), Err(RxDrop::Fcs));
        assert_eq!(rx_fcs_flagged(&frame[..59], false, &s), Err(RxDrop::Runt));
        assert_eq!(rx_fcs_flagged(&frame[..59], true, &s), Err(RxDrop::Runt));
        assert_eq!(rx_fcs_flagged(&[], true, &s), Err(RxDrop::Empty));
        let long: Vec<u8> = (0..97u8).collect();
        assert_eq!(rx_fcs_flagged(&long[..96], false, &s).map(|v| v.len()), Ok(96));
        assert_eq!(rx_fcs_flagged(&long, false, &s), Err(RxDrop::Oversize));
        let zero = Settings { mac_fcs: true, ..settings(0, 100, true) };
        assert_eq!(rx_fcs_flagged(&[7], false, &zero), Ok(vec![7]));
        let mut good = frame.clone();
        append_fcs(&mut good);
        let check = settings(64, 100, true);
        assert_eq!(rx_fcs_flagged(&good, false, &check), Ok(frame.clone()));
        assert_eq!(rx_fcs_flagged(&good, true, &check), Err(RxDrop::Fcs));
    }

    #[test]
    fn no_short_frame_reaches_the_residue() {
        let mut checked = 0u32;
        for n in 1..=3usize {
            for v in 0u32..1 << (8 * n) {
                let b = v.to_le_bytes();
                assert!(!residue_ok(&b[..n]), "{:02x?}", &b[..n]);
                checked += 1;
            }
        }
        assert_eq!(checked, 256 + 65536 + (1 << 24));
    }
}

//! A GMII agent written from IEEE 802.3 clause 35 (the 1000 Mb/s
//! media-independent interface) and clause 4's frame, independent of the
//! MACs in `hdl/src/mac/gmii.rs`: an [`Encoder`] that makes what a PHY's
//! receive side presents (`RXD`, `RX_DV`, `RX_ER` per cycle, 35.2.2.6-8),
//! and [`decode`], which reads a transmitter's output (`TXD`, `TX_EN`,
//! `TX_ER`, 35.2.2.3-5) and refuses what no transmitter may send.
//!
//! Own constants (the MAC's are not used): the preamble byte 0x55, the SFD
//! 0xD5 (4.2.5-4.2.6), the minimum inter-frame gap of 12 byte times (96
//! bit times, 4.4.2).

/// The preamble byte and the start frame delimiter.
const PREAMBLE: u8 = 0x55;
const SFD: u8 = 0xD5;
/// The shortest gap between frames, in byte times.
pub const IFG: usize = 12;

/// One cycle of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Sym {
    pub d: u8,
    /// `TX_EN` / `RX_DV`.
    pub en: bool,
    /// `TX_ER` / `RX_ER`.
    pub er: bool,
}

/// What to do to a frame on its way out of the [`Encoder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    None,
    /// `RX_ER` with byte `n` of the frame (a PHY's receive error, 35.2.2.8).
    ErrorAt(usize),
    /// A preamble byte other than 0x55.
    BadPreamble,
}

/// Frames to receive-side cycles.
#[derive(Default)]
pub struct Encoder {
    pub syms: Vec<Sym>,
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder::default()
    }

    /// `n` idle cycles (`RX_DV` low).
    pub fn idle(&mut self, n: usize) {
        self.syms.extend(std::iter::repeat_n(Sym::default(), n));
    }

    /// `gap` idle cycles, `pre` preamble bytes (clause 35 lets a PHY lose
    /// some of the seven), the SFD, then `frame` (its FCS included).
    pub fn frame(&mut self, frame: &[u8], gap: usize, pre: usize, fault: Fault) {
        self.idle(gap);
        for i in 0..pre {
            let d = if fault == Fault::BadPreamble && i == pre / 2 { 0x54 } else { PREAMBLE };
            self.syms.push(Sym { d, en: true, er: false });
        }
        self.syms.push(Sym { d: SFD, en: true, er: false });
        for (i, &d) in frame.iter().enumerate() {
            self.syms.push(Sym { d, en: true, er: fault == Fault::ErrorAt(i) });
        }
    }
}

/// A frame read from a transmitter's cycles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxFrame {
    /// The bytes after the SFD (the FCS included).
    pub bytes: Vec<u8>,
    /// `TX_ER` was high in one of its cycles.
    pub error: bool,
    /// Idle cycles before it since the previous frame; `None` for the first.
    pub gap: Option<usize>,
    /// The cycle of its first preamble byte.
    pub start: usize,
}

/// Reads frames from a transmitter's output. Fails on what no transmitter
/// may send: a preamble other than seven 0x55 and the SFD, `TX_ER` outside
/// a frame (without carrier extension, which a full-duplex MAC does not
/// use), a gap below 12 byte times, a frame cut off at the end of `syms`.
pub fn decode(syms: &[Sym]) -> anyhow::Result<Vec<TxFrame>> {
    use anyhow::bail;
    let mut out: Vec<TxFrame> = vec![];
    let mut i = 0;
    let mut idle = 0usize;
    let mut seen = false;
    while i < syms.len() {
        let s = syms[i];
        if !s.en {
            if s.er {
                bail!("cycle {i}: TX_ER without TX_EN");
            }
            idle += 1;
            i += 1;
            continue;
        }
        if seen && idle < IFG {
            bail!("cycle {i}: a gap of {idle} byte times (at least {IFG})");
        }
        let start = i;
        let run: Vec<Sym> = syms[i..].iter().take_while(|s| s.en).copied().collect();
        if i + run.len() == syms.len() {
            bail!("cycle {i}: a frame without its end");
        }
        if run.len() < 8 || run[..7].iter().any(|s| s.d != PREAMBLE) || run[7].d != SFD {
            bail!("cycle {i}: preamble {:02x?}", run.iter().take(8).map(|s| s.d).collect::<Vec<_>>());
        }
        out.push(TxFrame {
            bytes: run[8..].iter().map(|s| s.d).collect(),
            error: run.iter().any(|s| s.er),
            gap: seen.then_some(idle),
            start,
        });
        seen = true;
        idle = 0;
        i += run.len();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame through the encoder reads back through the decoder (the
    /// encoder's preamble of seven bytes is what a transmitter sends).
    #[test]
    fn encoder_into_decoder() {
        let mut e = Encoder::new();
        e.frame(&[1, 2, 3], 0, 7, Fault::None);
        e.frame(&[4; 70], 12, 7, Fault::ErrorAt(5));
        e.idle(1);
        let f = decode(&e.syms).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].bytes.clone(), f[0].error, f[0].gap), (vec![1, 2, 3], false, None));
        assert_eq!((f[1].bytes.len(), f[1].error, f[1].gap), (70, true, Some(12)));
        let mut short = Encoder::new();
        short.frame(&[1], 0, 7, Fault::None);
        short.frame(&[1], 11, 7, Fault::None);
        short.idle(1);
        assert!(decode(&short.syms).unwrap_err().to_string().contains("gap of 11"));
        let mut pre = Encoder::new();
        pre.frame(&[1], 0, 6, Fault::None);
        pre.idle(1);
        assert!(decode(&pre.syms).is_err());
    }
}

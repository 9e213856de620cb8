//! XGMII, IEEE 802.3 clause 46, in the 64-bit single-data-rate form FPGA
//! PCS cores use (two 32-bit XGMII transfers per clock: lanes 0..3, then
//! 4..7; byte `i` of a word in bits `8 i ..`, its control flag in bit `i`).
//! Written from the standard, independently of the MACs it checks:
//!
//! - [`Encoder`]: frames (with their FCS) to words, as a transmitting MAC
//!   or the receive side of a PHY makes them: /S/ in lane 0 or 4 (46.2.6:
//!   "Start ... aligned to lane 0" of a 32-bit transfer, so lane 0 or 4 of a
//!   64-bit word), six preamble bytes and the SFD (clause 4.2.5), the frame,
//!   /T/, and idles. The inter-frame gap is the deficit idle count of
//!   46.3.1.4: 12 bytes on average (from /T/ included to /S/ excluded),
//!   never below 9, the count of deleted idles kept in 0..=3. Errors for
//!   the receive tests: /E/ in place of a byte, a bad SFD.
//! - [`decode`]: words to frames, checking what a receiver relies on: /S/
//!   in lane 0 or 4 only, the preamble and SFD, no control character
//!   inside a frame other than its /T/, idles (and /T/ only after a frame)
//!   between frames; each frame with its gap before it.
// The control characters of Table 46-3, defined here again rather than
// taken from `trimswitch_hdl::mac::xgmii`: a wrong value there must not
// pass its own check.

/// Idle (/I/), a control character.
pub const IDLE: u8 = 0x07;
/// Start (/S/).
pub const START: u8 = 0xFB;
/// Terminate (/T/).
pub const TERMINATE: u8 = 0xFD;
/// Error (/E/).
pub const ERROR: u8 = 0xFE;
/// A preamble byte.
pub const PREAMBLE: u8 = 0x55;
/// Start frame delimiter.
pub const SFD: u8 = 0xD5;

/// One 64-bit XGMII word: 8 lanes, lane `i` in `data` bits `8 i + 7 .. 8 i`,
/// a control character iff bit `i` of `ctrl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    pub data: u64,
    pub ctrl: u8,
}

impl Word {
    /// Eight idles.
    pub const IDLE: Word = Word { data: 0x0707_0707_0707_0707, ctrl: 0xff };

    /// Lane `i`: its byte and whether it is a control character.
    pub fn lane(&self, i: usize) -> (u8, bool) {
        ((self.data >> (8 * i)) as u8, self.ctrl >> i & 1 == 1)
    }

    /// A word from eight lanes.
    pub fn from_lanes(lanes: &[(u8, bool); 8]) -> Word {
        let mut w = Word { data: 0, ctrl: 0 };
        for (i, &(b, c)) in lanes.iter().enumerate() {
            w.data |= (b as u64) << (8 * i);
            w.ctrl |= (c as u8) << i;
        }
        w
    }
}

/// What to do to a frame on its way out of the [`Encoder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Nothing: a well-formed frame.
    None,
    /// Byte `n` of the frame replaced by /E/ (a PHY's receive error).
    ErrorAt(usize),
    /// The SFD replaced by a preamble byte.
    BadSfd,
}

/// Frames to XGMII words (module docs). Bytes accumulate in a lane buffer;
/// whole words are in [`Encoder::words`].
pub struct Encoder {
    /// Start lanes allowed: `true` for 0 and 4 (line rate with minimum
    /// frames), `false` for lane 0 only.
    pub lane4: bool,
    /// The deficit idle count (46.3.1.4), 0..=3.
    dic: usize,
    /// Idle bytes since the last /T/ (the /T/ included), or `None` before
    /// the first frame.
    gap: Option<usize>,
    lanes: Vec<(u8, bool)>,
    /// The words made so far.
    pub words: Vec<Word>,
}

impl Encoder {
    /// An encoder starting on idles.
    pub fn new(lane4: bool) -> Encoder {
        Encoder { lane4, dic: 0, gap: None, lanes: Vec::new(), words: Vec::new() }
    }

    fn put(&mut self, b: u8, c: bool) {
        self.lanes.push((b, c));
        if let Some(g) = self.gap.as_mut() {
            if c && b == IDLE {
                *g += 1;
            }
        }
        if self.lanes.len() == 8 {
            let l: [(u8, bool); 8] = self.lanes[..].try_into().expect("8 lanes");
            self.words.push(Word::from_lanes(&l));
            self.lanes.clear();
        }
    }

    /// `n` idle bytes.
    pub fn idles(&mut self, n: usize) {
        for _ in 0..n {
            self.put(IDLE, true);
        }
    }

    /// One frame (its FCS included), after at least `extra` idle bytes more
    /// than the gap needs.
    pub fn frame(&mut self, frame: &[u8], extra: usize, fault: Fault) {
        // The gap so far (the /T/ counted); 12 on average: an /S/ that would
        // need `r` more idles to reach a start lane may come `4 - r` early
        // (46.3.1.4's deletion) while the count of deleted idles stays <= 3.
        let step = if self.lane4 { 4 } else { 8 };
        if let Some(g) = self.gap {
            let mut need = 12usize.saturating_sub(g);
            let pos = (self.lanes.len() + need) % step;
            if pos != 0 {
                let short = pos.min(need);
                if self.lane4 && self.dic + short <= 3 && short == pos {
                    need -= short;
                    self.dic += short;
                } else {
                    let more = step - pos;
                    need += more;
                    self.dic = self.dic.saturating_sub(more);
                }
            }
            self.idles(need);
        }
        self.idles(extra);
        while !self.lanes.len().is_multiple_of(step) {
            self.put(IDLE, true);
        }
        self.gap = None;
        self.put(START, true);
        for _ in 0..6 {
            self.put(PREAMBLE, false);
        }
        self.put(if fault == Fault::BadSfd { PREAMBLE } else { SFD }, false);
        for (i, &b) in frame.iter().enumerate() {
            if fault == Fault::ErrorAt(i) {
                self.put(ERROR, true);
            } else {
                self.put(b, false);
            }
        }
        self.put(TERMINATE, true);
        self.gap = Some(1);
    }

    /// Fills the last word with idles and returns every word.
    pub fn finish(mut self) -> Vec<Word> {
        while !self.lanes.is_empty() {
            self.put(IDLE, true);
        }
        self.words
    }
}

/// A frame read from XGMII words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxFrame {
    /// The bytes between the SFD and /T/ (the FCS included).
    pub bytes: Vec<u8>,
    /// The word and lane of its /S/.
    pub word: usize,
    pub lane: usize,
    /// Idle bytes before its /S/ since the previous frame's /T/ (the /T/
    /// included); `None` for the first frame.
    pub gap: Option<usize>,
    /// Whether an /E/ or a bad SFD was in it.
    pub error: bool,
}

/// Reads frames from `words`. Fails on what no transmitter may send: an /S/
/// outside lanes 0 and 4, a control character other than /T/ and /E/ inside
/// a frame or other than /I/ between frames, a frame without /T/.
pub fn decode(words: &[Word]) -> anyhow::Result<Vec<RxFrame>> {
    use anyhow::bail;
    let mut out = Vec::new();
    let mut cur: Option<RxFrame> = None;
    // Bytes of the preamble still expected (7: six 0x55 and the SFD).
    let mut pre = 0usize;
    let mut gap: Option<usize> = None;
    for (w, word) in words.iter().enumerate() {
        for lane in 0..8 {
            let (b, c) = word.lane(lane);
            match cur.as_mut() {
                None => {
                    if c && b == START {
                        if lane % 4 != 0 {
                            bail!("word {w}: /S/ in lane {lane}");
                        }
                        cur = Some(RxFrame { bytes: vec![], word: w, lane, gap, error: false });
                        pre = 7;
                    } else if c && b == IDLE {
                        if let Some(g) = gap.as_mut() {
                            *g += 1;
                        }
                    } else {
                        bail!("word {w} lane {lane}: {b:#04x} (control {c}) between frames");
                    }
                }
                Some(f) => {
                    if pre > 0 {
                        let want = if pre == 1 { SFD } else { PREAMBLE };
                        if c {
                            bail!("word {w} lane {lane}: control {b:#04x} in the preamble");
                        }
                        if b != want {
                            f.error = true;
                        }
                        pre -= 1;
                    } else if c && b == TERMINATE {
                        out.push(cur.take().expect("in a frame"));
                        gap = Some(1);
                    } else if c && b == ERROR {
                        f.error = true;
                        f.bytes.push(b);
                    } else if c {
                        bail!("word {w} lane {lane}: control {b:#04x} inside a frame");
                    } else {
                        f.bytes.push(b);
                    }
                }
            }
        }
    }
    if let Some(f) = cur {
        bail!("a frame from word {} has no /T/ ({} bytes)", f.word, f.bytes.len());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Minimum frames back to back: the gap is 12 on average and at least
    /// 9, the starts alternate between lanes 0 and 4, and 64-byte frames
    /// take 10.5 words each (14.88 Mpps at 156.25 MHz).
    #[test]
    fn minimum_frames_at_line_rate() {
        let mut e = Encoder::new(true);
        for _ in 0..100 {
            e.frame(&[0xAA; 64], 0, Fault::None);
        }
        let words = e.finish();
        let frames = decode(&words).unwrap();
        assert_eq!(frames.len(), 100);
        let gaps: Vec<usize> = frames.iter().filter_map(|f| f.gap).collect();
        assert!(gaps.iter().all(|&g| g == 12), "{gaps:?}");
        assert_eq!(frames[99].word - frames[1].word, 98 * 21 / 2);
        assert_eq!(frames[1].lane, 4);
        assert_eq!(frames[2].lane, 0);
    }

    /// Other lengths: the deficit idle count keeps the average at 12 and no
    /// gap below 9 (46.3.1.4).
    #[test]
    fn deficit_idle_count() {
        for len in 64..72 {
            let mut e = Encoder::new(true);
            for _ in 0..400 {
                e.frame(&vec![1; len], 0, Fault::None);
            }
            let frames = decode(&e.finish()).unwrap();
            let gaps: Vec<usize> = frames.iter().filter_map(|f| f.gap).collect();
            let avg = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
            assert!(gaps.iter().all(|&g| (9..=15).contains(&g)), "{len}: {gaps:?}");
            assert!((avg - 12.0).abs() < 0.02, "{len}: average gap {avg}");
        }
    }

    #[test]
    fn faults_are_seen() {
        let mut e = Encoder::new(true);
        e.frame(&[1; 64], 0, Fault::ErrorAt(10));
        e.frame(&[2; 64], 3, Fault::BadSfd);
        e.frame(&[3; 64], 0, Fault::None);
        let f = decode(&e.finish()).unwrap();
        assert_eq!(f.iter().map(|f| f.error).collect::<Vec<_>>(), [true, true, false]);
        assert_eq!(f[2].bytes, [3; 64]);
    }
}

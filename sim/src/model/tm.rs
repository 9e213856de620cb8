//! Golden model of the trimming traffic manager (`docs/trimming.md`): the
//! trimmer's rewrite as a pure function ([`trim`]) and the ideal-mode
//! admission ([`TmModel`]) with exact byte and word occupancy per queue.
//!
//! The model has no clock. The RTL's admissions and departures are events the
//! test bench observes (a packet's first beat accepted at the traffic
//! manager's input; its last beat leaving an egress port, which is when the
//! RTL frees its occupancy); the test replays them in cycle order
//! ([`TmModel::admit`], [`TmModel::depart`]) and the model says what each
//! admission must decide and which packet each departure must be. An
//! admission sees every departure of an earlier cycle.
use crate::packet::checksum;
use std::collections::{BTreeMap, VecDeque};
use trimswitch_hdl::ingress::phv::l4;
use trimswitch_hdl::meta::{flag, l3kind, Meta};
use trimswitch_hdl::tm::admit::{COUNTER_NAMES, N_COUNTERS};

/// The trimmer's run-time registers (`docs/trimming.md`, "Trim length and the trimmer").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrimParams {
    /// Bytes kept of an NDP packet (ndp.p4's clone length, 80).
    pub len_ndp: u16,
    /// Bytes kept of other IPv4 traffic (64, Ultra Ethernet style).
    pub len_ipv4: u16,
    /// Bytes kept of other IPv6 traffic (128).
    pub len_ipv6: u16,
    /// DSCP written into a trimmed non-NDP packet (`None`: left alone).
    pub dscp_trimmed: Option<u8>,
    /// The trimmer's window (`tm.trim_window`, build time): the most bytes a
    /// trimmed packet keeps, [`MAX_KEEP`] or less.
    pub window: u16,
}

impl Default for TrimParams {
    fn default() -> TrimParams {
        TrimParams { len_ndp: 80, len_ipv4: 64, len_ipv6: 128, dscp_trimmed: Some(12), window: MAX_KEEP }
    }
}

impl TrimParams {
    /// The reset values of a configuration: `tm.trim_len_*` and
    /// `ingress.dscp_trimmed` (-1: `None`).
    pub fn from_config(cfg: &trimswitch_hdl::config::Config) -> TrimParams {
        let t = &cfg.tm;
        TrimParams {
            len_ndp: t.trim_len_ndp as u16,
            len_ipv4: t.trim_len_ipv4 as u16,
            len_ipv6: t.trim_len_ipv6 as u16,
            dscp_trimmed: (cfg.ingress.dscp_trimmed >= 0).then_some(cfg.ingress.dscp_trimmed as u8),
            window: t.trim_window as u16,
        }
    }
}

/// Largest number of bytes a trimmed packet keeps (the trimmer's buffer; the
/// parser's window): trim lengths are at most this, and headers end within it.
pub const MAX_KEEP: u16 = 128;

/// End of the headers the trimmer must keep: the UDP (8 B) or NDP (16 B)
/// header's end, else the IP header's.
pub fn header_end(m: &Meta) -> u16 {
    let l3_end = m.l3_off as u16 + if m.l3 == l3kind::IPV4 { 4 * m.ihl as u16 } else { 40 };
    match m.l4 {
        l4::UDP => m.l4_off as u16 + 8,
        l4::NDP => m.l4_off as u16 + 16,
        _ => l3_end,
    }
}

/// Bytes a trimmed packet keeps: its trim length (NDP, else by IP version),
/// at least its headers, at most the trimmer's window ([`MAX_KEEP`] unless
/// `tm.trim_window` is smaller: headers past it are cut) and at most the packet.
pub fn keep_len(m: &Meta, p: &TrimParams) -> u16 {
    let t = if m.l4 == l4::NDP {
        p.len_ndp
    } else if m.l3 == l3kind::IPV4 {
        p.len_ipv4
    } else {
        p.len_ipv6
    };
    t.max(header_end(m)).min(p.window).min(m.length)
}

/// The trimmer's rewrite of `frame` (no FCS) with metadata `m` (the ingress
/// `tuser`), returned to its sender when `rts`. Returns the frame and its new
/// metadata: `length` the bytes kept, `flags` TRIMMED (every trim decision;
/// the wire marking only when bytes were cut) and RETURNED, and for `rts`
/// `dest_port` = `src_port`.
///
/// Wire changes (only when bytes were cut, or for `rts`):
/// - cut: IPv4 total length and IPv6 payload length; UDP length; NDP TRIMMED
///   flag or DSCP TRIMMABLE -> TRIMMED; UDP checksum 0 over IPv4, recomputed
///   over IPv6;
/// - `rts`: MACs and IP addresses swapped, NDP RETURNED flag;
/// - IPv4 header checksum recomputed whenever the header changed.
pub fn trim(frame: &[u8], m: &Meta, p: &TrimParams, rts: bool) -> (Vec<u8>, Meta) {
    assert_eq!(frame.len(), m.length as usize, "tuser.length must be the frame's length");
    let keep = keep_len(m, p) as usize;
    let cut = keep < frame.len();
    let mut f = frame[..keep].to_vec();
    let (l3o, l4o) = (m.l3_off as usize, m.l4_off as usize);
    let v4 = m.l3 == l3kind::IPV4;
    let v6 = m.l3 == l3kind::IPV6;
    if rts {
        for i in 0..6 {
            f.swap(i, i + 6);
        }
        let (a, n) = if v4 { (l3o + 12, 4) } else { (l3o + 8, 16) };
        if v4 || v6 {
            for i in 0..n {
                f.swap(a + i, a + n + i);
            }
        }
    }
    if m.l4 == l4::NDP {
        f[l4o] |= if cut { 1 << 4 } else { 0 } | if rts { 1 << 5 } else { 0 };
    } else if let (true, Some(d)) = (cut, p.dscp_trimmed) {
        if v4 {
            f[l3o + 1] = d << 2 | (f[l3o + 1] & 3);
        } else if v6 {
            f[l3o] = (f[l3o] & 0xf0) | d >> 2;
            f[l3o + 1] = (d & 3) << 6 | (f[l3o + 1] & 0x3f);
        }
    }
    if cut {
        if v4 {
            f[l3o + 2..l3o + 4].copy_from_slice(&((keep - l3o) as u16).to_be_bytes());
        } else if v6 {
            f[l3o + 4..l3o + 6].copy_from_slice(&((keep - l3o - 40) as u16).to_be_bytes());
        }
        if m.l4 == l4::UDP {
            f[l4o + 4..l4o + 6].copy_from_slice(&((keep - l4o) as u16).to_be_bytes());
            f[l4o + 6..l4o + 8].copy_from_slice(&[0, 0]);
            if v6 {
                let src: [u8; 16] = f[l3o + 8..l3o + 24].try_into().unwrap();
                let dst: [u8; 16] = f[l3o + 24..l3o + 40].try_into().unwrap();
                let c = checksum::udp_ipv6(src, dst, &f[l4o..]);
                f[l4o + 6..l4o + 8].copy_from_slice(&c.to_be_bytes());
            }
        }
    }
    if v4 && (cut || rts) {
        let hl = 4 * m.ihl as usize;
        f[l3o + 10..l3o + 12].copy_from_slice(&[0, 0]);
        let c = checksum::ipv4_header(&f[l3o..l3o + hl]);
        f[l3o + 10..l3o + 12].copy_from_slice(&c.to_be_bytes());
    }
    let mut out = *m;
    out.length = keep as u16;
    out.flags |= flag::TRIMMED | if rts { flag::RETURNED } else { 0 };
    if rts {
        out.dest_port = m.src_port;
    }
    (f, out)
}

/// The two queues of an egress port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Queue {
    /// Header/control queue (high priority).
    H,
    /// Data queue (low priority).
    D,
}

/// Queue sizes and run-time limits of the traffic manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmSettings {
    /// Egress ports.
    pub ports: usize,
    /// Bytes per beat (`data_width / 8`): a packet of L bytes takes ceil(L / beat) words.
    pub beat: usize,
    /// Memory words of each H and D queue (build time).
    pub depth_h: usize,
    pub depth_d: usize,
    /// Byte limits of the H and D queues (run time).
    pub limit_h: u32,
    pub limit_d: u32,
    /// Return to sender when the header queue is full.
    pub rts: bool,
    pub trim: TrimParams,
    /// Meter mode (`CTRL` bit 3): a data packet the data queue refuses is
    /// deflected into the DoD FIFO instead of trimmed at once.
    pub meter: bool,
    /// Words the DoD FIFO admits (`tm.dod_words`).
    pub depth_dod: usize,
}

impl TmSettings {
    /// The traffic manager of a configuration at its reset values.
    pub fn from_config(cfg: &trimswitch_hdl::config::Config) -> TmSettings {
        let t = &cfg.tm;
        TmSettings {
            ports: cfg.datapath.ports,
            beat: cfg.datapath.data_width / 8,
            depth_h: t.queue_h_words,
            depth_d: t.queue_d_words,
            limit_h: t.queue_h_bytes,
            limit_d: t.queue_d_bytes,
            rts: t.return_to_sender,
            trim: TrimParams::from_config(cfg),
            meter: t.mode == "meter",
            depth_dod: t.dod_words,
        }
    }
}

/// What the traffic manager did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Enqueued whole in (port, queue).
    Whole(u8, Queue),
    /// Trimmed into the header queue of its egress port.
    Trimmed(u8),
    /// Trimmed and returned into the header queue of its source port.
    Returned(u8),
    /// Meter mode: trimmed into the DoD FIFO (destination port); it comes
    /// back through [`TmModel::readmit`].
    Deflected(u8),
    /// Dropped; the counter that counts it.
    Dropped(&'static str),
}

/// The counters the model keeps: the traffic manager's fate counters and
/// `in_pkts`, named and ordered as its register map has them
/// ([`trimswitch_hdl::tm::admit::COUNTER_NAMES`], one source for both), then
/// `tx_trim_packets` (in the hardware, the sum of the per-port registers).
pub const COUNTERS: [&str; N_COUNTERS + 1] = {
    let mut c = [""; N_COUNTERS + 1];
    let mut i = 0;
    while i < N_COUNTERS {
        c[i] = COUNTER_NAMES[i];
        i += 1;
    }
    c[N_COUNTERS] = "tx_trim_packets";
    c
};

#[derive(Clone, Debug, Default)]
struct Q {
    bytes: u32,
    words: u32,
    pkts: VecDeque<(Vec<u8>, Meta)>,
}

/// The traffic manager's ideal-mode admission with exact occupancy.
#[derive(Clone, Debug)]
pub struct TmModel {
    pub settings: TmSettings,
    queues: BTreeMap<(u8, Queue), Q>,
    dod: Q,
    counters: BTreeMap<&'static str, u64>,
}

impl TmModel {
    pub fn new(settings: TmSettings) -> TmModel {
        let mut queues = BTreeMap::new();
        for p in 0..settings.ports as u8 {
            queues.insert((p, Queue::H), Q::default());
            queues.insert((p, Queue::D), Q::default());
        }
        TmModel { settings, queues, dod: Q::default(), counters: COUNTERS.iter().map(|c| (*c, 0)).collect() }
    }

    fn words(&self, len: u32) -> u32 {
        len.div_ceil(self.settings.beat as u32)
    }

    /// Whether `len` bytes fit in (port, q) now.
    pub fn fits(&self, port: u8, q: Queue, len: u32) -> bool {
        let s = &self.settings;
        let (limit, depth) = match q {
            Queue::H => (s.limit_h, s.depth_h),
            Queue::D => (s.limit_d, s.depth_d),
        };
        let x = &self.queues[&(port, q)];
        x.bytes + len <= limit && (x.words + self.words(len)) as usize <= depth
    }

    fn push(&mut self, port: u8, q: Queue, frame: Vec<u8>, meta: Meta) {
        let w = self.words(frame.len() as u32);
        let x = self.queues.get_mut(&(port, q)).unwrap();
        x.bytes += frame.len() as u32;
        x.words += w;
        x.pkts.push_back((frame, meta));
    }

    fn bump(&mut self, c: &'static str) {
        *self.counters.get_mut(c).expect("counter in COUNTERS") += 1;
    }

    /// Admits a packet (`docs/trimming.md`, "Enqueue decision"), enqueues what
    /// it becomes, and returns its fate.
    /// Admission of a packet from the input (ideal mode, or meter mode without
    /// a meter mark): [`TmModel::admit_marked`] with `marked` false.
    pub fn admit(&mut self, frame: &[u8], m: &Meta) -> Fate {
        self.admit_marked(frame, m, false)
    }

    /// The metadata admission works with and a packet leaves with: `m`,
    /// with `trim_ok` cleared when its headers end past the trimmer's
    /// window (`TmPre`; `docs/trimming.md`, "The window").
    pub fn admitted(&self, m: &Meta) -> Meta {
        let mut a = *m;
        a.trim_ok = m.trim_ok && header_end(m) <= self.settings.trim.window;
        a
    }

    /// Admission of a packet from the input; `marked`: the meters answered
    /// "not green" (`docs/trimming.md`, "Meter mode"), so a trimmable data
    /// packet takes the trim path without trying the data queue.
    pub fn admit_marked(&mut self, frame: &[u8], m: &Meta, marked: bool) -> Fate {
        self.bump("in_pkts");
        let ports = self.settings.ports as u8;
        let len = frame.len() as u32;
        if m.dest_port >= ports || m.length as u32 != len || len == 0 {
            self.bump("drop_bad_pkts");
            return Fate::Dropped("drop_bad_pkts");
        }
        let d = m.dest_port;
        let meta = self.admitted(m);
        let m = &meta;
        let trim_ok = m.trim_ok;
        if marked && trim_ok && !m.prio {
            return self.trim_path(frame, m);
        }
        if m.prio {
            if self.fits(d, Queue::H, len) {
                self.bump("enq_h_pkts");
                self.push(d, Queue::H, frame.to_vec(), *m);
                return Fate::Whole(d, Queue::H);
            }
            self.bump("drop_ctrl_pkts");
            return Fate::Dropped("drop_ctrl_pkts");
        }
        if self.fits(d, Queue::D, len) {
            self.bump("enq_d_pkts");
            self.push(d, Queue::D, frame.to_vec(), *m);
            return Fate::Whole(d, Queue::D);
        }
        if !trim_ok {
            self.bump("drop_data_pkts");
            return Fate::Dropped("drop_data_pkts");
        }
        if self.settings.meter {
            let kl = keep_len(m, &self.settings.trim) as u32;
            if self.dod.words + self.words(kl) <= self.settings.depth_dod as u32 {
                self.bump("dod_trim_packets");
                let (f, mm) = trim(frame, m, &self.settings.trim, false);
                self.dod.words += self.words(f.len() as u32);
                self.dod.bytes += f.len() as u32;
                self.dod.pkts.push_back((f, mm));
                return Fate::Deflected(d);
            }
            self.bump("drop_dod_pkts");
            return Fate::Dropped("drop_dod_pkts");
        }
        self.trim_path(frame, m)
    }

    /// The next packet of the DoD FIFO comes back to admission (not counted
    /// in `in_pkts`) and takes the trim path. Returns its frame and `tuser`
    /// as it came back, and its fate; `None` if the FIFO is empty.
    pub fn readmit(&mut self) -> Option<(Vec<u8>, Meta, Fate)> {
        let (f, m) = self.dod.pkts.pop_front()?;
        self.dod.words -= self.words(f.len() as u32);
        self.dod.bytes -= f.len() as u32;
        let fate = self.trim_path(&f, &m);
        Some((f, m, fate))
    }

    /// Words the DoD FIFO holds reserved.
    pub fn dod_words(&self) -> u32 {
        self.dod.words
    }

    /// Trim into the destination's header queue, else return to sender, else
    /// drop (steps 4 to 6 of the decision).
    fn trim_path(&mut self, frame: &[u8], m: &Meta) -> Fate {
        let (d, ports) = (m.dest_port, self.settings.ports as u8);
        let kl = keep_len(m, &self.settings.trim) as u32;
        if self.fits(d, Queue::H, kl) {
            self.bump("trim_packets");
            let (f, mm) = trim(frame, m, &self.settings.trim, false);
            self.push(d, Queue::H, f, mm);
            return Fate::Trimmed(d);
        }
        let s = m.src_port;
        if self.settings.rts && s < ports && self.fits(s, Queue::H, kl) {
            self.bump("rts_packets");
            let (f, mm) = trim(frame, m, &self.settings.trim, true);
            self.push(s, Queue::H, f, mm);
            return Fate::Returned(s);
        }
        self.bump("dropped_trim_packets");
        Fate::Dropped("dropped_trim_packets")
    }

    /// A packet left egress `port` whole: it must be the head of one of the
    /// port's queues. Frees its space and returns it with its queue, or says
    /// why it cannot be.
    pub fn depart(&mut self, port: u8, frame: &[u8], user: u128) -> Result<(Queue, Meta), String> {
        for q in [Queue::H, Queue::D] {
            let beat = self.settings.beat as u32;
            let x = self.queues.get_mut(&(port, q)).ok_or(format!("no port {port}"))?;
            if let Some((f, m)) = x.pkts.front() {
                if f == frame && m.pack() == user {
                    let (f, m) = x.pkts.pop_front().unwrap();
                    x.bytes -= f.len() as u32;
                    x.words -= (f.len() as u32).div_ceil(beat);
                    if m.flags & flag::TRIMMED != 0 {
                        self.bump("tx_trim_packets");
                    }
                    return Ok((q, m));
                }
            }
        }
        let heads: Vec<String> = [Queue::H, Queue::D]
            .iter()
            .map(|q| match self.queues[&(port, *q)].pkts.front() {
                Some((f, m)) => format!("{q:?}: {} B user {:#x}", f.len(), m.pack()),
                None => format!("{q:?}: empty"),
            })
            .collect();
        Err(format!("port {port} sent {} B user {user:#x}, which heads no queue ({})", frame.len(), heads.join(", ")))
    }

    /// The packet `port` sends next under strict priority: the head of its
    /// header queue, else of its data queue.
    pub fn head(&self, port: u8) -> Option<(&[u8], &Meta)> {
        [Queue::H, Queue::D].iter().find_map(|q| self.queues.get(&(port, *q))?.pkts.front().map(|(f, m)| (f.as_slice(), m)))
    }

    /// Bytes and words in (port, q).
    pub fn occupancy(&self, port: u8, q: Queue) -> (u32, u32) {
        let x = &self.queues[&(port, q)];
        (x.bytes, x.words)
    }

    /// Packets still queued, all queues.
    pub fn queued(&self) -> usize {
        self.queues.values().map(|q| q.pkts.len()).sum()
    }

    pub fn counters(&self) -> &BTreeMap<&'static str, u64> {
        &self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gen::{random_frame, GenOpts};
    use crate::model::{parse, IngressModel, Settings};
    use rand::{Rng, SeedableRng};
    use trimswitch_hdl::config::Config;
    use trimswitch_hdl::ingress::phv::malformed;

    /// Trimmable packets out of the ingress model (default config, wide tuser).
    fn trimmable(n: usize, seed: u64) -> Vec<(Vec<u8>, Meta)> {
        let cfg =
            Config::parse(include_str!("../../../configs/netfpga-sume.toml"), std::path::Path::new("configs/netfpga-sume.toml")).unwrap();
        let mut m = IngressModel::new(&cfg);
        let o = GenOpts::from_settings(&Settings::from_config(&cfg));
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut out = vec![];
        while out.len() < n {
            let port = rng.gen_range(0..4);
            if let Some(x) = m.process(port, &random_frame(&mut rng, &o)) {
                if x.meta.trim_ok {
                    out.push((x.frame, x.meta));
                }
            }
        }
        out
    }

    #[test]
    fn trimmed_packets_are_valid_frames() {
        let p = TrimParams::default();
        let (mut cut, mut whole, mut v6udp) = (0, 0, 0);
        for (i, (f, m)) in trimmable(3000, 7).into_iter().enumerate() {
            let rts = i % 3 == 0;
            let (t, tm) = trim(&f, &m, &p, rts);
            assert_eq!(t.len(), tm.length as usize);
            assert!(t.len() >= header_end(&m) as usize && t.len() <= MAX_KEEP as usize || t == f || rts);
            let phv = parse(&t, t.len());
            assert_eq!(phv.malformed, malformed::NONE, "trimmed frame {i} malformed: {t:02x?}");
            assert_eq!((phv.l3_off, phv.l4_off, phv.l4), (m.l3_off, m.l4_off, m.l4));
            if t.len() < f.len() {
                cut += 1;
                if m.l4 == l4::NDP {
                    assert_eq!(phv.ndp_flags & 0x10, 0x10);
                } else {
                    assert_eq!(Some(phv.dscp), p.dscp_trimmed);
                }
                if m.l4 == l4::UDP && m.l3 == l3kind::IPV6 {
                    let o = m.l4_off as usize;
                    let l3 = m.l3_off as usize;
                    let mut u = t[o..].to_vec();
                    let c = u16::from_be_bytes([u[6], u[7]]);
                    u[6..8].copy_from_slice(&[0, 0]);
                    let want = checksum::udp_ipv6(t[l3 + 8..l3 + 24].try_into().unwrap(), t[l3 + 24..l3 + 40].try_into().unwrap(), &u);
                    assert_eq!(c, want, "frame {i}: IPv6 UDP checksum");
                    v6udp += 1;
                }
            } else {
                whole += 1;
                if !rts {
                    assert_eq!(t, f, "an uncut, unreturned packet is unchanged");
                }
            }
            if rts {
                assert_eq!(t[0..6], f[6..12]);
                assert_eq!(tm.dest_port, m.src_port);
                if m.l4 == l4::NDP {
                    assert_eq!(phv.ndp_flags & 0x20, 0x20);
                }
            }
        }
        assert!(cut > 1000 && whole > 10 && v6udp > 20, "coverage: cut {cut}, whole {whole}, IPv6 UDP {v6udp}");
    }

    #[test]
    fn admission_prefers_data_then_trims_then_returns() {
        let s = TmSettings {
            ports: 4,
            beat: 32,
            depth_h: 64,
            depth_d: 64,
            limit_h: 300,
            limit_d: 3000,
            rts: true,
            trim: TrimParams::default(),
            meter: false,
            depth_dod: 16,
        };
        let mut tm = TmModel::new(s);
        let pk = trimmable(400, 9);
        let to0: Vec<_> = pk
            .into_iter()
            .filter(|(f, m)| f.len() > 200 && m.src_port != 0)
            .map(|(f, mut m)| {
                m.dest_port = 0;
                (f, m)
            })
            .collect();
        let mut fates = vec![];
        for (f, m) in &to0 {
            fates.push(tm.admit(f, m));
        }
        let c = tm.counters();
        assert!(c["enq_d_pkts"] > 0 && c["trim_packets"] > 0 && c["rts_packets"] > 0 && c["dropped_trim_packets"] > 0, "{c:?}");
        assert_eq!(c["in_pkts"] as usize, to0.len());
        let fates_counted: u64 = c.iter().filter(|(k, _)| !["in_pkts", "tx_trim_packets"].contains(k)).map(|(_, v)| v).sum();
        assert_eq!(fates_counted, c["in_pkts"], "every packet counted exactly once: {c:?}");
        // Nothing departs, so D fills first: after the first trim no packet
        // that is at least as long goes whole.
        let first_trim = fates.iter().position(|f| matches!(f, Fate::Trimmed(_))).unwrap();
        let min_trimmed = to0[first_trim].0.len();
        for ((f, _), fate) in to0.iter().zip(&fates).skip(first_trim) {
            assert!(!(matches!(fate, Fate::Whole(..)) && f.len() >= min_trimmed), "{fate:?} after the queue refused {min_trimmed} B");
        }
        assert!(tm.occupancy(0, Queue::D).0 <= 3000 && tm.occupancy(0, Queue::H).0 <= 300);
    }
}

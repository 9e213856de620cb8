//! Target configuration: one TOML file per target in `configs/`.
//!
//! Every value that shapes the hardware lives here (Corundum's per-board
//! `config.tcl` plays the same role). Loading checks every key and reports the
//! file, the key and the reason on error; unknown keys are errors too, so a typo
//! never silently falls back to a default.
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// tdata widths the blocks are built for (bits).
pub const DATA_WIDTHS: [usize; 4] = [64, 128, 256, 512];
/// tuser widths the switch is built for (bits). 128 only: the traffic manager
/// needs the header-location fields above bit 56 (`hdl/src/meta.rs`).
/// Primitives are generic and their tests also use 64.
pub const USER_WIDTHS: [usize; 1] = [128];

/// A whole target configuration (`configs/<name>.toml`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub target: Target,
    pub datapath: Datapath,
    pub fifo: Fifo,
    pub arbiter: Arbiter,
    pub ingress: Ingress,
    pub tm: Tm,
    /// PL2 (seed 003, `docs/pl2.md`); absent: the defaults of [`Pl2`], PL2 off.
    #[serde(default)]
    pub pl2: Pl2,
    /// Protego (seed 004, `docs/protego.md`); absent: the defaults of
    /// [`Protego`].
    #[serde(default)]
    pub protego: Protego,
    /// Where this configuration was read from (not part of the file).
    #[serde(skip)]
    pub source: PathBuf,
}

/// Board, device and clock.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// Short name, used for `build/<name>/`.
    pub name: String,
    /// Human description (board, ports, speed).
    pub description: String,
    /// FPGA part number for the vendor flow.
    pub part: String,
    /// The FPGA family: `xc7` or `xcup` (Yosys `synth_xilinx -family`, the
    /// Vivado flows), or `ecp5` (Lattice ECP5: the open flow, `make
    /// bitstream`).
    pub family: String,
    /// Datapath clock in MHz.
    pub clock_mhz: f64,
}

/// Widths and port counts.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Datapath {
    /// Number of Ethernet ports.
    pub ports: usize,
    /// Ingress pipelines (ports are split evenly between them). The fabric of
    /// this stage is one shared pipeline; the ingress stage uses this.
    pub pipelines: usize,
    /// tdata width of the shared pipeline in bits (64, 128, 256 or 512).
    pub data_width: usize,
    /// tuser (per-packet metadata) width in bits (128).
    pub user_width: usize,
    /// Line rate of one port in Gb/s (for line-rate checks and scenarios).
    pub port_gbps: f64,
}

/// Per-port packet FIFO.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Fifo {
    /// Depth in beats of `data_width` bits (4..=65536).
    pub depth: usize,
    /// `true`: store-and-forward with whole-packet drop; `false`: cut-through.
    pub store_forward: bool,
}

/// Input arbiter of each pipeline.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Arbiter {
    /// `"rr"` (round robin) or `"drr"` (byte-based deficit round robin); the
    /// reset value of the run-time policy register.
    pub policy: String,
    /// Reset value of every input's DRR quantum, in bytes (1..=65535).
    pub quantum: u32,
}

/// The ingress pipeline (`docs/ingress.md`): build-time table sizes, reset
/// values of the run-time registers, and the table contents a host loads over
/// AXI-Lite at start (tables reset empty).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ingress {
    /// Frames shorter than this (bytes, FCS included) are runts (reset value; run time).
    pub min_frame: u32,
    /// Frames longer than this (bytes, FCS included) are oversize (reset value; run time).
    pub max_frame: u32,
    /// Strip the 4-byte FCS from good frames (reset value; run time).
    pub strip_fcs: bool,
    /// Who checks the FCS (build time; issue 18): `"check"` (the default),
    /// `rx_fcs` recomputes the CRC of frames that arrive with their FCS; or
    /// `"mac"`, the MAC has checked and removed it and flags a bad frame in
    /// `s_tuser` on its last beat, which `rx_fcs` drops and counts in
    /// `rx_drop_fcs` (frames then arrive without FCS, so `strip_fcs` must
    /// be true; `min_frame`/`max_frame` still count the 4 FCS bytes).
    #[serde(default = "fcs_check")]
    pub fcs: String,
    /// Drop malformed packets (`true`) or forward them untouched (reset value; run time).
    pub malformed_drop: bool,
    /// Egress port for lookup misses; 255 drops them (reset value; run time).
    pub miss_port: u32,
    /// The switch's router MAC, `"aa:bb:cc:dd:ee:ff"` (reset value; run time).
    pub router_mac: String,
    /// DSCP codepoints (0..=63; -1 disables) for TRIMMABLE, TRIMMED and CONTROL
    /// traffic (reset values; run time).
    pub dscp_trimmable: i32,
    pub dscp_trimmed: i32,
    pub dscp_control: i32,
    /// Traffic class of each PCP 0..=7 for tagged frames (reset values; run time).
    pub pcp_tc: Vec<u32>,
    /// Traffic class of untagged frames (reset value; run time).
    pub default_tc: u32,
    /// Longest-prefix-match entries (build time, 1..=256).
    pub lpm_entries: usize,
    /// L2 exact-match entries (build time, 1..=256).
    pub l2_entries: usize,
    /// Next-hop table entries (build time, a power of two in 1..=256).
    pub nexthops: usize,
    /// IPv4 routes loaded at start: `prefix = "10.1.0.0/16"`, `port`, `nexthop`.
    #[serde(default)]
    pub route: Vec<RouteEntry>,
    /// L2 entries loaded at start: `mac`, `port`.
    #[serde(default)]
    pub l2: Vec<L2Entry>,
    /// Next-hop destination MACs loaded at start, index order.
    #[serde(default)]
    pub nexthop_mac: Vec<String>,
}

/// The trimming traffic manager (`docs/trimming.md`). Limits, lengths and the
/// scheduler are reset values of run-time registers; the `*_words` memory
/// sizes are build time.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Tm {
    /// How trims are decided (reset value of `CTRL` bit 3): `"ideal"` (exact
    /// occupancy at enqueue) or `"meter"` (ndp.p4: per-port meters decide at
    /// the traffic manager's input, overflow goes to the DoD path).
    pub mode: String,
    /// Header/control queue limit per port in bytes (run time).
    pub queue_h_bytes: u32,
    /// Data queue limit per port in bytes (run time).
    pub queue_d_bytes: u32,
    /// Header queue memory per port in beats (build time).
    pub queue_h_words: usize,
    /// Data queue memory per port in beats (build time).
    pub queue_d_words: usize,
    /// Bytes an NDP packet keeps when trimmed (1..=128; at least its headers are kept).
    pub trim_len_ndp: u32,
    /// Bytes other trimmable IPv4 traffic keeps (1..=128).
    pub trim_len_ipv4: u32,
    /// Bytes other trimmable IPv6 traffic keeps (1..=128).
    pub trim_len_ipv6: u32,
    /// The trimmer's window in bytes (build time; 64..=128, a multiple of
    /// `data_width / 8`; default 128): the most a trimmed packet keeps, its
    /// headers included (a packet whose headers end past it is cut there, as
    /// past 128 by default). The trimmer's logic grows with it: 64 is about
    /// half of 128 (for small parts, `docs/boards.md`). The `trim_len_*`
    /// must not exceed it.
    #[serde(default = "trim_window_default")]
    pub trim_window: usize,
    /// Return a trimmed header to its sender when its header queue is full.
    pub return_to_sender: bool,
    /// Egress scheduler between the header and data queue: `"strict"` or `"drr"`.
    pub scheduler: String,
    /// DRR quanta in bytes of the header and data queue (1..=65535).
    pub quantum_h: u32,
    pub quantum_d: u32,
    /// Meter mode: the optimistic meter's rate in Gb/s of wire bytes (the
    /// port's line rate); halftimistic and pessimistic get 1/2 and 1/4 (run
    /// time, `RATE_*` registers, 16.16 bytes per cycle at `target.clock_mhz`).
    pub meter_gbps: f64,
    /// Meter mode: every meter's bucket capacity in bytes (run time,
    /// `BURST_*`; at least `ingress.max_frame` + 24 so a full bucket passes a
    /// largest frame).
    pub meter_burst_bytes: u32,
    /// Meter mode: pessimistic time after a notify, microseconds (run time,
    /// `T0` in cycles; seed 001 default 6).
    pub t0_us: f64,
    /// Meter mode: halftimistic time after pessimistic, microseconds (run
    /// time, `T1` in cycles; seed 001 default 24).
    pub t1_us: f64,
    /// Meter mode: words (beats) of trimmed packets the deflect-on-drop FIFO
    /// holds (build time; at least one 128-byte header).
    pub dod_words: usize,
    /// Build meter mode (build time; default true): the meter stage, the
    /// meter bank, the port modes, the deflect-on-drop FIFO and its
    /// recirculation. `false` builds ideal mode only (for small parts,
    /// `docs/boards.md`): the input goes straight to admission, `CTRL` bit 3
    /// is stored but does nothing, `mode` must be `"ideal"`.
    #[serde(default = "yes")]
    pub meters: bool,
}

impl Tm {
    /// Line rate of the optimistic meter in bytes per cycle at `clock_mhz`.
    pub fn meter_bytes_per_cycle(&self, clock_mhz: f64) -> f64 {
        self.meter_gbps * 1000.0 / 8.0 / clock_mhz
    }
    /// `t_us` microseconds in cycles at `clock_mhz`, rounded up.
    pub fn cycles(t_us: f64, clock_mhz: f64) -> u64 {
        (t_us * clock_mhz - 1e-9).ceil().max(0.0) as u64
    }
}

/// PL2, the timeslot reservation ALU (seed 003; the specification
/// `PL2-PROTEGO.md` part A; `docs/pl2.md`): reset values of its run-time
/// registers. Every key may be left out.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Pl2 {
    /// `CTRL` bit 0: PL2 on. Off, RSV and GRT frames are forwarded as any
    /// other Ethernet frame and data packets change nothing.
    pub enable: bool,
    /// `CTRL` bit 1: `"paper"` (003 §4.1.1 Alg. 1, counters of slots) or
    /// `"joint"` (003 §4.2's wish, A.5: absolute slots and a slot clock).
    pub mode: String,
    /// `K`: most slots one RSV reserves; larger demands are clamped (1..=255).
    pub k: u32,
    /// `T`: unsolicited bursts are dropped when more than `T` slots are
    /// reserved ahead of them (003 §4.4; below 2^31).
    pub t_drop: u32,
    /// Ports with PL2 on (`PORT_EN`); absent: every port.
    pub ports: Option<Vec<u32>>,
    /// Clock cycles per timeslot (`SLOT_CYCLES`, 16.16 fixed point, 1 to
    /// below 16384); absent: one 1500-byte frame at `datapath.port_gbps`
    /// (003 §4.1 fn 4: 240 cycles at 10G and 200 MHz).
    pub slot_cycles: Option<f64>,
    /// DSCP codepoint marking an IP packet unsolicited (003 §4.4, A.4;
    /// 0..=63, -1 disables).
    pub dscp_unsol: i32,
    /// PCP marking a VLAN-tagged non-IP frame unsolicited (raw Ethernet,
    /// A.4; 0..=7, -1 disables).
    pub pcp_unsol: i32,
}

impl Default for Pl2 {
    /// PL2 off; the paper's `K` = 4, the specification's `T` = 64, paper
    /// mode, every port, the slot length from the line rate, DSCP 14 marks
    /// unsolicited IP packets, no PCP.
    fn default() -> Pl2 {
        Pl2 { enable: false, mode: "paper".into(), k: 4, t_drop: 64, ports: None, slot_cycles: None, dscp_unsol: 14, pcp_unsol: -1 }
    }
}

/// Protego, link-local retransmission (seed 004; `PL2-PROTEGO.md` part B;
/// `docs/protego.md`): the sizes of both sides' tables and rings (build
/// time), and the reset values of each port's registers (B.7; the host
/// changes them at run time, `crate::protego::port::PortRegs`). Every key
/// may be left out.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Protego {
    /// The reordering window in sequence numbers: one slot (occupied,
    /// length) per number, a frame at or beyond `ackNo + rx_slots` is dropped
    /// and counted (a power of two, 2..=32768).
    pub rx_slots: u32,
    /// Entries of the table of requested numbers (when each went missing:
    /// the retransmission delay, and ProtegoNB's duplicate test; a power of
    /// two, 256..=32768: one LOSS requests at most 255).
    pub miss_slots: u32,
    /// Bytes of the receiver's frame store, a ring of block RAM every
    /// arriving frame is written into (buffered frames and, behind them in
    /// arrival order, the frames that left while they waited): at least 16
    /// KB, `data_width / 8` times a power of two of words up to 32768.
    pub rx_ring_bytes: u32,
    /// Frames the ring may hold at once (a power of two, 2..=32768).
    pub rx_frames: u32,
    /// Bytes of the sender's ring (block RAM): the normal frames waiting to
    /// go and those sent and not yet acknowledged (link rate x
    /// `ackNoTimeout` + MTU: about 87.5 KB at 100G); as `rx_ring_bytes`.
    pub tx_ring_bytes: u32,
    /// Frames the sender's ring may hold at once, and its sequence-number
    /// slots (a power of two, 16..=32768).
    pub tx_frames: u32,
    /// Both sides on at reset (`CTRL` tx and rx); off, the port is today's
    /// switch.
    pub enable: bool,
    /// `"ordered"` (004 Alg. 1: reorder buffer, de-duplication) or `"nb"`
    /// (ProtegoNB: forward at once).
    pub mode: String,
    /// A tagged frame on a port whose receiver is off (decision 7; counted
    /// either way): `"forward"` (untagged) or `"drop"` (`CTRL.tag_drop`).
    pub tag_off: String,
    /// RETX copies per requested frame (Eq. 1), 0..=3.
    pub copies: u32,
    /// `ackNoTimeout` in microseconds (§3.5), converted to cycles at
    /// `target.clock_mhz`: 1 to below 2^32 cycles.
    pub ack_timeout_us: f64,
    /// The reordering buffer's bytes; PFC pause above `pause_bytes`, resume
    /// at or below `resume_bytes` (Alg. 2): `resume_bytes < pause_bytes <=
    /// buffer_bytes < 2^24`.
    pub buffer_bytes: u32,
    pub pause_bytes: u32,
    pub resume_bytes: u32,
    /// The PFC class Protego pauses and obeys, 0..=7.
    pub pfc_class: u32,
    /// Dummies after each DATA while the normal input is empty or paused
    /// (0: no limit, the paper's self-replenishing queue), 0..=255.
    pub dummy_max: u32,
    /// The largest hole one LOSS requests, 1..=255.
    pub max_hole: u32,
    /// With both sides on, normal frames after which a pending explicit
    /// ACK goes first (0: never, B.1 as written), 0..=255 (decision 15).
    pub ack_every: u32,
    /// The switch ports built with Protego (build time; empty: none, the
    /// switch as before). Frames leave those ports without FCS (the MAC
    /// appends it), so `ingress.strip_fcs` must be true.
    pub ports: Vec<u32>,
}

impl Default for Protego {
    /// 1 024 slots (7 µs of 84-byte frames at 100 Gb/s, the default
    /// `ackNoTimeout`, is 1 042 numbers), 256 requested numbers, a 64 KB ring
    /// for 256 frames; the same for the sender.
    /// Registers: off, ordered mode, 1 copy, a 7 µs timeout (B.3), a 48 KB
    /// buffer pausing 2 MTU above a 37 KB resume (B.4), class 3, 3
    /// dummies, holes up to 255, an explicit ACK at least every 8 normal
    /// frames.
    fn default() -> Protego {
        Protego {
            rx_slots: 1024,
            miss_slots: 256,
            rx_ring_bytes: 64 * 1024,
            rx_frames: 256,
            tx_ring_bytes: 64 * 1024,
            tx_frames: 256,
            enable: false,
            mode: "ordered".into(),
            tag_off: "forward".into(),
            copies: 1,
            ack_timeout_us: 7.0,
            buffer_bytes: 48 * 1024,
            pause_bytes: 37 * 1024 + 2 * 1538,
            resume_bytes: 37 * 1024,
            pfc_class: 3,
            dummy_max: 3,
            max_hole: 255,
            ack_every: 8,
            ports: Vec::new(),
        }
    }
}

/// Bytes of one PL2 timeslot on the wire: one MTU frame (003 §4.1 fn 4).
pub const PL2_SLOT_BYTES: f64 = 1500.0;

impl Config {
    /// `SLOT_CYCLES` in 16.16 fixed point: `pl2.slot_cycles`, or one
    /// [`PL2_SLOT_BYTES`] frame at `datapath.port_gbps` and `target.clock_mhz`.
    pub fn pl2_slot_cycles(&self) -> u32 {
        let cycles = self.pl2.slot_cycles.unwrap_or(PL2_SLOT_BYTES * 8.0 / self.datapath.port_gbps * self.target.clock_mhz / 1000.0);
        (cycles * 65536.0).round().clamp(0.0, u32::MAX as f64) as u32
    }
    /// `PORT_EN`: bit `p` set for each port with PL2 on.
    pub fn pl2_port_en(&self) -> u64 {
        match &self.pl2.ports {
            None => u64::MAX >> (64 - self.datapath.ports.min(64)),
            Some(v) => v.iter().filter(|p| **p < 64).fold(0, |m, p| m | 1 << p),
        }
    }
}

/// One IPv4 route of [`Ingress::route`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RouteEntry {
    /// `"a.b.c.d/len"`, len 0..=32; host bits must be zero.
    pub prefix: String,
    /// Egress port (255 = drop).
    pub port: u32,
    /// Next-hop table index.
    pub nexthop: u32,
}

/// One entry of [`Ingress::l2`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct L2Entry {
    /// `"aa:bb:cc:dd:ee:ff"`.
    pub mac: String,
    /// Egress port (255 = drop).
    pub port: u32,
}

/// Parses `"aa:bb:cc:dd:ee:ff"` into a 48-bit value (first byte most significant).
pub fn parse_mac(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return None;
    }
    parts.iter().try_fold(0u64, |acc, p| {
        if p.len() != 2 {
            return None;
        }
        u8::from_str_radix(p, 16).ok().map(|b| acc << 8 | b as u64)
    })
}

/// Parses `"a.b.c.d/len"` into `(prefix, len)`; host bits must be zero.
pub fn parse_prefix(s: &str) -> Option<(u32, u8)> {
    let (addr, len) = s.split_once('/')?;
    let len: u8 = len.parse().ok().filter(|l| *l <= 32)?;
    let a: std::net::Ipv4Addr = addr.parse().ok()?;
    let v = u32::from(a);
    let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
    (v & !mask == 0).then_some((v, len))
}

/// Where and why a TOML text did not deserialize: [`from_toml`]'s error.
#[derive(Clone, Debug, PartialEq)]
pub struct TomlError {
    /// 1-based line of the error, when the text locates it.
    pub line: Option<usize>,
    /// Dotted key (`datapath.ports`, `ingress.route[2].prefix`), when the
    /// error belongs to one.
    pub key: Option<String>,
    /// What is wrong, in words (`invalid type: string "four", expected an
    /// integer`, `missing key`, `unknown key, expected one of ...`).
    pub reason: String,
}

/// Formats as `:LINE: KEY: REASON`, each part there only when known, so that
/// `format!("{}{e}", file)` reads `configs/x.toml:12: datapath.ports: ...`.
impl std::fmt::Display for TomlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        match &self.key {
            Some(k) => write!(f, ": {k}: {}", self.reason),
            None => write!(f, ": {}", self.reason),
        }
    }
}

/// Deserializes TOML text, naming in an error the line, the dotted key and the
/// reason (serde's messages name the Rust type, `expected usize`; ours say
/// `expected an integer`). Used for configurations and scenario files alike.
pub fn from_toml<T: serde::de::DeserializeOwned>(text: &str) -> std::result::Result<T, TomlError> {
    serde_path_to_error::deserialize(toml::Deserializer::new(text)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let line = inner.span().filter(|r| r.start <= text.len()).map(|r| text[..r.start].matches('\n').count() + 1);
        let msg = inner.message().trim().replace('\n', " ");
        let mut key = (path != "." && !path.is_empty()).then_some(path);
        let reason = if let Some(field) = backticked(&msg, "missing field ") {
            key = Some(join_key(key.as_deref(), &field));
            "missing key".to_string()
        } else if let Some(field) = backticked(&msg, "unknown field ") {
            key = Some(join_key(key.as_deref(), &field));
            let rest = msg.split_once(", expected").map_or(String::new(), |(_, r)| format!(", expected{r}"));
            format!("unknown key{}", rest.replace("`", "").replace("one of ", "one of: "))
        } else {
            plain_types(&msg)
        };
        TomlError { line, key, reason }
    })
}

/// `ingress.fcs`'s default: `rx_fcs` computes the CRC.
fn fcs_check() -> String {
    "check".into()
}

fn trim_window_default() -> usize {
    128
}

fn yes() -> bool {
    true
}

/// The name in backticks after `prefix` at the start of `msg`.
fn backticked(msg: &str, prefix: &str) -> Option<String> {
    let rest = msg.strip_prefix(prefix)?.strip_prefix('`')?;
    Some(rest.split('`').next()?.to_string())
}

/// `parent.field`, unless the path already ends with the field (serde names
/// an unknown key in the path, a missing one only in the message).
fn join_key(parent: Option<&str>, field: &str) -> String {
    match parent {
        Some(p) if p == field || p.ends_with(&format!(".{field}")) => p.to_string(),
        Some(p) => format!("{p}.{field}"),
        None => field.to_string(),
    }
}

/// serde names Rust types (`expected usize`); a configuration's author thinks
/// in TOML's (`expected an integer`).
fn plain_types(msg: &str) -> String {
    let mut m = msg.to_string();
    for t in ["usize", "u64", "u32", "u16", "u8"] {
        m = m.replace(&format!("expected {t}"), "expected a non-negative integer");
    }
    for t in ["isize", "i64", "i32", "i16", "i8"] {
        m = m.replace(&format!("expected {t}"), "expected an integer");
    }
    m.replace("expected f64", "expected a number").replace("expected f32", "expected a number")
}

impl Config {
    /// Reads and validates a configuration file.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
        Self::parse(&text, path)
    }

    /// Reads a configuration file and applies `key=value` overrides (dotted
    /// keys such as `datapath.data_width=64`; values in TOML syntax, bare words
    /// taken as strings) before validating.
    pub fn load_with(path: &Path, overrides: &[String]) -> Result<Config> {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
        if overrides.is_empty() {
            return Self::parse(&text, path);
        }
        let mut doc: toml::Table = text.parse().map_err(|e: toml::de::Error| anyhow::anyhow!("{}: {}", path.display(), e.message()))?;
        for o in overrides {
            let Some((key, raw)) = o.split_once('=') else { bail!("--set {o:?}: expected KEY=VALUE") };
            let value = format!("v = {raw}")
                .parse::<toml::Table>()
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(raw.to_string()));
            let parts: Vec<&str> = key.trim().split('.').collect();
            let (last, parents) = parts.split_last().expect("split yields one part");
            let mut table = &mut doc;
            for part in parents {
                table = match table.get_mut(*part) {
                    Some(toml::Value::Table(t)) => t,
                    _ => bail!("--set {o:?}: {} has no section {part:?}", path.display()),
                };
            }
            if !table.contains_key(*last) {
                bail!("--set {o:?}: {} has no key {key:?}", path.display());
            }
            table.insert(last.to_string(), value);
        }
        // A value that came from `--set` is named by its argument, not by a
        // place in a file the user did not write it in.
        let text = toml::to_string(&doc)?;
        let mut cfg: Config = from_toml(&text).map_err(|e| {
            let named = e.key.as_deref().and_then(|k| overrides.iter().find(|o| o.split_once('=').is_some_and(|(ok, _)| ok.trim() == k)));
            match named {
                Some(o) => anyhow::anyhow!("--set {o}: {}", e.reason),
                None => anyhow::anyhow!("{}{}", path.display(), TomlError { line: None, ..e }),
            }
        })?;
        cfg.source = path.to_path_buf();
        cfg.validate().map_err(|e| {
            let msg = e.to_string();
            match overrides.iter().find(|o| o.split_once('=').is_some_and(|(k, _)| msg.contains(&format!("{} =", k.trim())))) {
                Some(o) => anyhow::anyhow!("{msg} (from --set {o})"),
                None => e,
            }
        })?;
        Ok(cfg)
    }

    /// Parses and validates configuration text; `path` is used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        let mut cfg: Config = from_toml(text).map_err(|e| anyhow::anyhow!("{}{e}", path.display()))?;
        cfg.source = path.to_path_buf();
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn validate(&self) -> Result<()> {
        let f = self.source.display();
        let err = |key: &str, value: String, why: &str| -> Result<()> { bail!("{f}: {key} = {value}: {why}") };
        if self.target.name.is_empty() || !self.target.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            err("target.name", format!("{:?}", self.target.name), "must be non-empty and use only letters, digits, '-' and '_'")?;
        }
        if !["xc7", "xcup", "ecp5"].contains(&self.target.family.as_str()) {
            err("target.family", format!("{:?}", self.target.family), "must be \"xc7\", \"xcup\" or \"ecp5\"")?;
        }
        if !(self.target.clock_mhz > 0.0 && self.target.clock_mhz <= 1000.0) {
            err("target.clock_mhz", self.target.clock_mhz.to_string(), "must be in (0, 1000]")?;
        }
        let d = &self.datapath;
        if !(2..=64).contains(&d.ports) {
            err("datapath.ports", d.ports.to_string(), "must be in 2..=64")?;
        }
        if d.pipelines == 0 || !d.ports.is_multiple_of(d.pipelines) {
            err("datapath.pipelines", d.pipelines.to_string(), &format!("must be at least 1 and divide datapath.ports ({})", d.ports))?;
        }
        if !DATA_WIDTHS.contains(&d.data_width) {
            err("datapath.data_width", d.data_width.to_string(), &format!("must be one of {DATA_WIDTHS:?}"))?;
        }
        if !USER_WIDTHS.contains(&d.user_width) {
            err(
                "datapath.user_width",
                d.user_width.to_string(),
                &format!(
                    "must be one of {USER_WIDTHS:?} (the traffic manager's trimmer needs the header-location fields of tuser bits 56..78)"
                ),
            )?;
        }
        if d.port_gbps.is_nan() || d.port_gbps <= 0.0 {
            err("datapath.port_gbps", d.port_gbps.to_string(), "must be positive")?;
        }
        if !(4..=65536).contains(&self.fifo.depth) {
            err("fifo.depth", self.fifo.depth.to_string(), "must be in 4..=65536 beats")?;
        }
        if !["rr", "drr"].contains(&self.arbiter.policy.as_str()) {
            err("arbiter.policy", format!("{:?}", self.arbiter.policy), "must be \"rr\" or \"drr\"")?;
        }
        if !(1..=65535).contains(&self.arbiter.quantum) {
            err("arbiter.quantum", self.arbiter.quantum.to_string(), "must be in 1..=65535 bytes")?;
        }
        self.validate_ingress()?;
        self.validate_tm()?;
        self.validate_pl2()?;
        self.validate_protego()
    }

    fn validate_protego(&self) -> Result<()> {
        let f = self.source.display();
        let p = &self.protego;
        if !p.rx_slots.is_power_of_two() || !(2..=1 << 15).contains(&p.rx_slots) {
            bail!("{f}: protego.rx_slots = {}: must be a power of two in 2..=32768", p.rx_slots);
        }
        if !p.miss_slots.is_power_of_two() || !(256..=1 << 15).contains(&p.miss_slots) {
            bail!("{f}: protego.miss_slots = {}: must be a power of two in 256..=32768 (a LOSS requests up to 255)", p.miss_slots);
        }
        let beat = (self.datapath.data_width as u32 / 8).max(1);
        for (key, bytes) in [("rx_ring_bytes", p.rx_ring_bytes), ("tx_ring_bytes", p.tx_ring_bytes)] {
            let words = bytes / beat;
            if bytes < 16 * 1024 || !words.is_power_of_two() || words > 1 << 15 || !bytes.is_multiple_of(beat) {
                bail!("{f}: protego.{key} = {bytes}: must be at least 16384 and data_width / 8 ({beat}) times a power of two up to 32768");
            }
        }
        if !p.rx_frames.is_power_of_two() || !(2..=1 << 15).contains(&p.rx_frames) {
            bail!("{f}: protego.rx_frames = {}: must be a power of two in 2..=32768", p.rx_frames);
        }
        if !p.tx_frames.is_power_of_two() || !(16..=1 << 15).contains(&p.tx_frames) {
            bail!("{f}: protego.tx_frames = {}: must be a power of two in 16..=32768", p.tx_frames);
        }
        if p.mode != "ordered" && p.mode != "nb" {
            bail!("{f}: protego.mode = {:?}: must be \"ordered\" or \"nb\"", p.mode);
        }
        if p.tag_off != "forward" && p.tag_off != "drop" {
            bail!("{f}: protego.tag_off = {:?}: must be \"forward\" or \"drop\"", p.tag_off);
        }
        for (key, v, lo, hi) in [
            ("copies", p.copies, 0, 3),
            ("pfc_class", p.pfc_class, 0, 7),
            ("dummy_max", p.dummy_max, 0, 255),
            ("max_hole", p.max_hole, 1, 255),
            ("ack_every", p.ack_every, 0, 255),
        ] {
            if !(lo..=hi).contains(&v) {
                bail!("{f}: protego.{key} = {v}: must be in {lo}..={hi}");
            }
        }
        let cycles = p.ack_timeout_us * self.target.clock_mhz;
        if !(1.0..4_294_967_296.0).contains(&cycles) {
            bail!("{f}: protego.ack_timeout_us = {}: must be 1 to below 2^32 cycles at {} MHz", p.ack_timeout_us, self.target.clock_mhz);
        }
        for (i, &port) in p.ports.iter().enumerate() {
            if port as usize >= self.datapath.ports {
                bail!("{f}: protego.ports[{i}] = {port}: must be below datapath.ports ({})", self.datapath.ports);
            }
            if p.ports[..i].contains(&port) {
                bail!("{f}: protego.ports[{i}] = {port}: is listed twice");
            }
        }
        if !p.ports.is_empty() && !self.ingress.strip_fcs {
            bail!("{f}: protego.ports = {:?}: needs ingress.strip_fcs = true (a tagged frame's FCS is the MAC's to append)", p.ports);
        }
        if !(p.resume_bytes < p.pause_bytes && p.pause_bytes <= p.buffer_bytes && p.buffer_bytes < 1 << 24) {
            bail!(
                "{f}: protego: resume_bytes = {}, pause_bytes = {}, buffer_bytes = {}: must be resume < pause <= buffer < 2^24",
                p.resume_bytes,
                p.pause_bytes,
                p.buffer_bytes
            );
        }
        Ok(())
    }

    fn validate_pl2(&self) -> Result<()> {
        let f = self.source.display();
        let err = |key: &str, value: String, why: &str| -> Result<()> { bail!("{f}: pl2.{key} = {value}: {why}") };
        let p = &self.pl2;
        if !["paper", "joint"].contains(&p.mode.as_str()) {
            err("mode", format!("{:?}", p.mode), "must be \"paper\" or \"joint\"")?;
        }
        if !(1..=255).contains(&p.k) {
            err("k", p.k.to_string(), "must be in 1..=255 (the RSV's demand field is one byte)")?;
        }
        if p.t_drop >= 1 << 31 {
            err("t_drop", p.t_drop.to_string(), "must be below 2^31")?;
        }
        if let Some(v) = &p.ports {
            for (i, port) in v.iter().enumerate() {
                if *port as usize >= self.datapath.ports {
                    err(&format!("ports[{i}]"), port.to_string(), &format!("must be below datapath.ports ({})", self.datapath.ports))?;
                }
                if v[..i].contains(port) {
                    err(&format!("ports[{i}]"), port.to_string(), "is listed twice")?;
                }
            }
        }
        if let Some(c) = p.slot_cycles {
            if !(1.0..16384.0).contains(&c) {
                err("slot_cycles", c.to_string(), "must be in 1..16384 cycles (16.16 fixed point, a step per cycle at most)")?;
            }
        } else {
            let c = self.pl2_slot_cycles() as f64 / 65536.0;
            if !(1.0..16384.0).contains(&c) {
                err(
                    "slot_cycles",
                    "(absent)".into(),
                    &format!("one 1500-byte slot at datapath.port_gbps is {c:.2} cycles, outside 1..16384: set pl2.slot_cycles"),
                )?;
            }
        }
        if !(-1..=63).contains(&p.dscp_unsol) {
            err("dscp_unsol", p.dscp_unsol.to_string(), "must be a DSCP value 0..=63, or -1 to disable")?;
        }
        let g = &self.ingress;
        for (key, v) in [("dscp_trimmable", g.dscp_trimmable), ("dscp_trimmed", g.dscp_trimmed), ("dscp_control", g.dscp_control)] {
            if p.dscp_unsol >= 0 && p.dscp_unsol == v {
                err("dscp_unsol", p.dscp_unsol.to_string(), &format!("must differ from ingress.{key}"))?;
            }
        }
        if !(-1..=7).contains(&p.pcp_unsol) {
            err("pcp_unsol", p.pcp_unsol.to_string(), "must be a PCP value 0..=7, or -1 to disable")?;
        }
        Ok(())
    }

    fn validate_tm(&self) -> Result<()> {
        let f = self.source.display();
        let err = |key: &str, value: String, why: &str| -> Result<()> { bail!("{f}: tm.{key} = {value}: {why}") };
        let t = &self.tm;
        let k = self.datapath.data_width / 8;
        if !["ideal", "meter"].contains(&t.mode.as_str()) {
            err("mode", format!("{:?}", t.mode), "must be \"ideal\" or \"meter\"")?;
        }
        if !t.meters && t.mode == "meter" {
            err("mode", format!("{:?}", t.mode), "meter mode is not built (tm.meters = false): must be \"ideal\"")?;
        }
        let mhz = self.target.clock_mhz;
        let bpc = t.meter_bytes_per_cycle(mhz);
        if !(t.meter_gbps > 0.0 && bpc < 65536.0) {
            err("meter_gbps", t.meter_gbps.to_string(), &format!("must be above 0 and below 65536 bytes per cycle at {mhz} MHz"))?;
        }
        let max = self.ingress.max_frame;
        if t.meter_burst_bytes < max + 24 || t.meter_burst_bytes >= 1 << 24 {
            err(
                "meter_burst_bytes",
                t.meter_burst_bytes.to_string(),
                &format!("must be in ingress.max_frame + 24 ({})..2^24 bytes (a full bucket passes a largest frame)", max + 24),
            )?;
        }
        for (key, v) in [("t0_us", t.t0_us), ("t1_us", t.t1_us)] {
            if !(v >= 0.0 && Tm::cycles(v, mhz) < 1 << 32) {
                err(key, v.to_string(), &format!("must be at least 0 and below 2^32 cycles at {mhz} MHz"))?;
            }
        }
        if t.dod_words < 128usize.div_ceil(k) || t.dod_words > 4096 {
            err(
                "dod_words",
                t.dod_words.to_string(),
                &format!("must be in {}..=4096 beats (at least a 128-byte header of {k} B beats)", 128usize.div_ceil(k)),
            )?;
        }
        if !["strict", "drr"].contains(&t.scheduler.as_str()) {
            err("scheduler", format!("{:?}", t.scheduler), "must be \"strict\" or \"drr\"")?;
        }
        if !(64..=128).contains(&t.trim_window) || !t.trim_window.is_multiple_of(k) {
            err("trim_window", t.trim_window.to_string(), &format!("must be in 64..=128 bytes and a multiple of data_width / 8 ({k})"))?;
        }
        for (key, v) in [("trim_len_ndp", t.trim_len_ndp), ("trim_len_ipv4", t.trim_len_ipv4), ("trim_len_ipv6", t.trim_len_ipv6)] {
            if !(1..=t.trim_window as u32).contains(&v) {
                err(
                    key,
                    v.to_string(),
                    &format!("must be in 1..={} bytes (tm.trim_window: the trimmer keeps at most that)", t.trim_window),
                )?;
            }
        }
        for (key, v) in [("quantum_h", t.quantum_h), ("quantum_d", t.quantum_d)] {
            if !(1..=65535).contains(&v) {
                err(key, v.to_string(), "must be in 1..=65535 bytes")?;
            }
        }
        if !(4..=65536).contains(&t.queue_h_words) {
            err("queue_h_words", t.queue_h_words.to_string(), "must be in 4..=65536 beats")?;
        }
        if !(4..=65536).contains(&t.queue_d_words) {
            err("queue_d_words", t.queue_d_words.to_string(), "must be in 4..=65536 beats")?;
        }
        if t.queue_h_bytes < 128 || t.queue_h_bytes >= 1 << 24 {
            err("queue_h_bytes", t.queue_h_bytes.to_string(), "must be in 128..2^24 bytes (at least one trimmed header)")?;
        }
        let max = self.ingress.max_frame as usize;
        if (t.queue_d_bytes as usize) < max || t.queue_d_bytes >= 1 << 24 {
            err(
                "queue_d_bytes",
                t.queue_d_bytes.to_string(),
                &format!("must be in ingress.max_frame ({max})..2^24 bytes (at least one largest frame)"),
            )?;
        }
        if t.queue_d_words < max.div_ceil(k) {
            err(
                "queue_d_words",
                t.queue_d_words.to_string(),
                &format!("must hold a largest frame ({max} B = {} beats of {k} B)", max.div_ceil(k)),
            )?;
        }
        if t.queue_h_words < 128usize.div_ceil(k) {
            err(
                "queue_h_words",
                t.queue_h_words.to_string(),
                &format!("must hold a 128-byte header ({} beats of {k} B)", 128usize.div_ceil(k)),
            )?;
        }
        Ok(())
    }

    fn validate_ingress(&self) -> Result<()> {
        let f = self.source.display();
        let err = |key: &str, value: String, why: &str| -> Result<()> { bail!("{f}: ingress.{key} = {value}: {why}") };
        let g = &self.ingress;
        if g.fcs != "check" && g.fcs != "mac" {
            err("fcs", format!("{:?}", g.fcs), "must be \"check\" (rx_fcs computes the CRC) or \"mac\" (the MAC did, flag in s_tuser)")?;
        }
        if g.fcs == "mac" && !g.strip_fcs {
            err("strip_fcs", "false".into(), "must be true with ingress.fcs = \"mac\" (the MAC removed the FCS already)")?;
        }
        if !(1..=16383).contains(&g.max_frame) {
            err("max_frame", g.max_frame.to_string(), "must be in 1..=16383 bytes")?;
        }
        if g.min_frame > g.max_frame {
            err("min_frame", g.min_frame.to_string(), &format!("must not exceed ingress.max_frame ({})", g.max_frame))?;
        }
        let lane_bytes = self.datapath.data_width / 8;
        if self.fifo.depth * lane_bytes < g.max_frame as usize + lane_bytes {
            err(
                "max_frame",
                g.max_frame.to_string(),
                &format!(
                    "the receive FIFO (fifo.depth {} beats of {lane_bytes} B) must hold a maximum frame plus one beat",
                    self.fifo.depth
                ),
            )?;
        }
        if g.miss_port > 255 {
            err("miss_port", g.miss_port.to_string(), "must be in 0..=255 (255 drops)")?;
        }
        if parse_mac(&g.router_mac).is_none() {
            err("router_mac", format!("{:?}", g.router_mac), "must look like \"02:00:00:00:00:01\"")?;
        }
        for (k, v) in [("dscp_trimmable", g.dscp_trimmable), ("dscp_trimmed", g.dscp_trimmed), ("dscp_control", g.dscp_control)] {
            if !(-1..=63).contains(&v) {
                err(k, v.to_string(), "must be a DSCP value 0..=63, or -1 to disable")?;
            }
        }
        if g.pcp_tc.len() != 8 || g.pcp_tc.iter().any(|t| *t > 7) {
            err("pcp_tc", format!("{:?}", g.pcp_tc), "must list 8 traffic classes, each 0..=7")?;
        }
        if g.default_tc > 7 {
            err("default_tc", g.default_tc.to_string(), "must be in 0..=7")?;
        }
        for (k, v) in [("lpm_entries", g.lpm_entries), ("l2_entries", g.l2_entries)] {
            if !(1..=256).contains(&v) {
                err(k, v.to_string(), "must be in 1..=256")?;
            }
        }
        if !(1..=256).contains(&g.nexthops) || !g.nexthops.is_power_of_two() {
            err("nexthops", g.nexthops.to_string(), "must be a power of two in 1..=256")?;
        }
        if g.route.len() > g.lpm_entries {
            err("route", format!("[{} entries]", g.route.len()), &format!("more than ingress.lpm_entries ({})", g.lpm_entries))?;
        }
        for (i, r) in g.route.iter().enumerate() {
            if parse_prefix(&r.prefix).is_none() {
                err(
                    &format!("route[{i}].prefix"),
                    format!("{:?}", r.prefix),
                    "must be \"a.b.c.d/len\" with len 0..=32 and zero host bits",
                )?;
            }
            if r.port > 255 {
                err(&format!("route[{i}].port"), r.port.to_string(), "must be in 0..=255 (255 drops)")?;
            }
            if r.nexthop as usize >= g.nexthops {
                err(&format!("route[{i}].nexthop"), r.nexthop.to_string(), &format!("must be below ingress.nexthops ({})", g.nexthops))?;
            }
        }
        if g.l2.len() > g.l2_entries {
            err("l2", format!("[{} entries]", g.l2.len()), &format!("more than ingress.l2_entries ({})", g.l2_entries))?;
        }
        for (i, e) in g.l2.iter().enumerate() {
            if parse_mac(&e.mac).is_none() {
                err(&format!("l2[{i}].mac"), format!("{:?}", e.mac), "must look like \"02:00:00:00:00:01\"")?;
            }
            if e.port > 255 {
                err(&format!("l2[{i}].port"), e.port.to_string(), "must be in 0..=255 (255 drops)")?;
            }
        }
        if g.nexthop_mac.len() > g.nexthops {
            err("nexthop_mac", format!("[{} entries]", g.nexthop_mac.len()), &format!("more than ingress.nexthops ({})", g.nexthops))?;
        }
        for (i, m) in g.nexthop_mac.iter().enumerate() {
            if parse_mac(m).is_none() {
                err(&format!("nexthop_mac[{i}]"), format!("{m:?}"), "must look like \"02:00:00:00:00:01\"")?;
            }
        }
        Ok(())
    }

    /// SHA-256 of the configuration's canonical serialization (independent of
    /// comments, key order and formatting in the file), first 16 hex digits.
    pub fn hash(&self) -> String {
        let canon = toml::to_string(self).expect("config serializes");
        let digest = Sha256::digest(canon.as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[target]
name = "t"
description = "test"
part = "xc7vx690tffg1761-3"
family = "xc7"
clock_mhz = 200.0
[datapath]
ports = 4
pipelines = 1
data_width = 256
user_width = 128
port_gbps = 10.0
[fifo]
depth = 512
store_forward = true
[arbiter]
policy = "drr"
quantum = 1600
[ingress]
min_frame = 64
max_frame = 9018
strip_fcs = true
malformed_drop = true
miss_port = 255
router_mac = "02:00:00:00:00:01"
dscp_trimmable = 10
dscp_trimmed = 12
dscp_control = 48
pcp_tc = [0, 1, 2, 3, 4, 5, 6, 7]
default_tc = 0
lpm_entries = 64
l2_entries = 16
nexthops = 16
[tm]
mode = "ideal"
queue_d_bytes = 18000
queue_h_bytes = 3072
queue_d_words = 600
queue_h_words = 128
trim_len_ndp = 80
trim_len_ipv4 = 64
trim_len_ipv6 = 128
trim_window = 128
return_to_sender = true
scheduler = "strict"
quantum_h = 1536
quantum_d = 1536
meter_gbps = 10.0
meter_burst_bytes = 18000
t0_us = 6.0
t1_us = 24.0
dod_words = 16
[[ingress.route]]
prefix = "10.0.0.0/8"
port = 1
nexthop = 1
"#;

    #[test]
    fn good_config_parses_and_hash_ignores_formatting() {
        let a = Config::parse(GOOD, Path::new("a.toml")).unwrap();
        let b = Config::parse(&GOOD.replace("ports = 4", "ports   =   4 # four"), Path::new("b.toml")).unwrap();
        assert_eq!(a.hash(), b.hash());
        let c = Config::parse(&GOOD.replace("depth = 512", "depth = 1024"), Path::new("c.toml")).unwrap();
        assert_ne!(a.hash(), c.hash());
    }

    #[test]
    fn bad_values_name_file_key_and_reason() {
        let e = Config::parse(&GOOD.replace("data_width = 256", "data_width = 100"), Path::new("x.toml")).unwrap_err();
        assert_eq!(e.to_string(), "x.toml: datapath.data_width = 100: must be one of [64, 128, 256, 512]");
        let e = Config::parse(&GOOD.replace("pipelines = 1", "pipelines = 3"), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().starts_with("x.toml: datapath.pipelines = 3: must be at least 1 and divide"), "{e}");
        let e = Config::parse(&GOOD.replace("policy = \"drr\"", "policy = \"wfq\""), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().contains("arbiter.policy = \"wfq\""), "{e}");
    }

    #[test]
    fn bad_ingress_values_name_file_key_and_reason() {
        let cases = [
            ("max_frame = 9018", "max_frame = 20000", "x.toml: ingress.max_frame = 20000: must be in 1..=16383 bytes"),
            ("min_frame = 64", "min_frame = 10000", "x.toml: ingress.min_frame = 10000: must not exceed ingress.max_frame (9018)"),
            ("strip_fcs = true", "strip_fcs = true\nfcs = \"crc\"", "x.toml: ingress.fcs = \"crc\": must be \"check\" (rx_fcs computes the CRC) or \"mac\" (the MAC did, flag in s_tuser)"),
            ("strip_fcs = true", "strip_fcs = false\nfcs = \"mac\"", "x.toml: ingress.strip_fcs = false: must be true with ingress.fcs = \"mac\" (the MAC removed the FCS already)"),
            ("dscp_control = 48", "dscp_control = 64", "x.toml: ingress.dscp_control = 64: must be a DSCP value 0..=63, or -1 to disable"),
            ("nexthops = 16", "nexthops = 12", "x.toml: ingress.nexthops = 12: must be a power of two in 1..=256"),
            ("prefix = \"10.0.0.0/8\"", "prefix = \"10.0.0.1/8\"", "x.toml: ingress.route[0].prefix = \"10.0.0.1/8\": must be \"a.b.c.d/len\" with len 0..=32 and zero host bits"),
            ("nexthop = 1", "nexthop = 16", "x.toml: ingress.route[0].nexthop = 16: must be below ingress.nexthops (16)"),
            ("pcp_tc = [0, 1, 2, 3, 4, 5, 6, 7]", "pcp_tc = [0, 1]", "x.toml: ingress.pcp_tc = [0, 1]: must list 8 traffic classes, each 0..=7"),
            ("router_mac = \"02:00:00:00:00:01\"", "router_mac = \"02:00:00:00:01\"", "x.toml: ingress.router_mac = \"02:00:00:00:01\": must look like \"02:00:00:00:00:01\""),
            ("mode = \"ideal\"", "mode = \"red\"", "x.toml: tm.mode = \"red\": must be \"ideal\" or \"meter\""),
            ("meter_gbps = 10.0", "meter_gbps = 0.0", "x.toml: tm.meter_gbps = 0: must be above 0 and below 65536 bytes per cycle at 200 MHz"),
            ("meter_burst_bytes = 18000", "meter_burst_bytes = 9000", "x.toml: tm.meter_burst_bytes = 9000: must be in ingress.max_frame + 24 (9042)..2^24 bytes (a full bucket passes a largest frame)"),
            ("t0_us = 6.0", "t0_us = -1.0", "x.toml: tm.t0_us = -1: must be at least 0 and below 2^32 cycles at 200 MHz"),
            ("dod_words = 16", "dod_words = 2", "x.toml: tm.dod_words = 2: must be in 4..=4096 beats (at least a 128-byte header of 32 B beats)"),
            ("trim_window = 128", "trim_window = 48", "x.toml: tm.trim_window = 48: must be in 64..=128 bytes and a multiple of data_width / 8 (32)"),
            ("trim_window = 128", "trim_window = 80", "x.toml: tm.trim_window = 80: must be in 64..=128 bytes and a multiple of data_width / 8 (32)"),
            ("trim_window = 128", "trim_window = 64", "x.toml: tm.trim_len_ndp = 80: must be in 1..=64 bytes (tm.trim_window: the trimmer keeps at most that)"),
            ("mode = \"ideal\"", "mode = \"meter\"\nmeters = false", "x.toml: tm.mode = \"meter\": meter mode is not built (tm.meters = false): must be \"ideal\""),
        ];
        for (from, to, want) in cases {
            assert!(GOOD.contains(from), "{from}");
            let e = Config::parse(&GOOD.replace(from, to), Path::new("x.toml")).unwrap_err();
            assert_eq!(e.to_string(), want);
        }
        let e = Config::parse(&GOOD.replace("depth = 512", "depth = 64"), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().contains("ingress.max_frame = 9018: the receive FIFO (fifo.depth 64 beats of 32 B) must hold"), "{e}");
        assert_eq!(parse_prefix("0.0.0.0/0"), Some((0, 0)));
        assert_eq!(parse_prefix("192.168.1.0/24"), Some((0xc0a8_0100, 24)));
        assert_eq!(parse_prefix("1.2.3.4/33"), None);
        assert_eq!(parse_mac("02:00:00:00:00:fe"), Some(0x0200_0000_00fe));
    }

    #[test]
    fn pl2_section_defaults_and_checks() {
        let c = Config::parse(GOOD, Path::new("x.toml")).unwrap();
        assert_eq!(c.pl2, Pl2::default());
        assert!(!c.pl2.enable);
        // One 1500-byte frame at 10 Gb/s and 200 MHz: 240 cycles (A.1).
        assert_eq!(c.pl2_slot_cycles(), 240 << 16);
        assert_eq!(c.pl2_port_en(), 0b1111);
        let on = format!("{GOOD}\n[pl2]\nenable = true\nmode = \"joint\"\nports = [1, 3]\nslot_cycles = 38.67\n");
        let c = Config::parse(&on, Path::new("x.toml")).unwrap();
        assert!(c.pl2.enable && c.pl2.mode == "joint");
        assert_eq!((c.pl2_port_en(), c.pl2_slot_cycles()), (0b1010, (38.67f64 * 65536.0).round() as u32));
        let cases = [
            ("mode = \"both\"", "x.toml: pl2.mode = \"both\": must be \"paper\" or \"joint\""),
            ("k = 0", "x.toml: pl2.k = 0: must be in 1..=255 (the RSV's demand field is one byte)"),
            ("t_drop = 2147483648", "x.toml: pl2.t_drop = 2147483648: must be below 2^31"),
            ("ports = [0, 4]", "x.toml: pl2.ports[1] = 4: must be below datapath.ports (4)"),
            ("ports = [2, 2]", "x.toml: pl2.ports[1] = 2: is listed twice"),
            (
                "slot_cycles = 0.5",
                "x.toml: pl2.slot_cycles = 0.5: must be in 1..16384 cycles (16.16 fixed point, a step per cycle at most)",
            ),
            ("dscp_unsol = 10", "x.toml: pl2.dscp_unsol = 10: must differ from ingress.dscp_trimmable"),
            ("dscp_unsol = 64", "x.toml: pl2.dscp_unsol = 64: must be a DSCP value 0..=63, or -1 to disable"),
            ("pcp_unsol = 8", "x.toml: pl2.pcp_unsol = 8: must be a PCP value 0..=7, or -1 to disable"),
        ];
        for (line, want) in cases {
            let e = Config::parse(&format!("{GOOD}\n[pl2]\n{line}\n"), Path::new("x.toml")).unwrap_err();
            assert_eq!(e.to_string(), want);
        }
        // A slot the line rate makes too short must be set by hand.
        let e = Config::parse(&GOOD.replace("port_gbps = 10.0", "port_gbps = 40000.0"), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().contains("pl2.slot_cycles = (absent): one 1500-byte slot at datapath.port_gbps is 0.06 cycles"), "{e}");
        let e = Config::parse(&format!("{GOOD}\n[pl2]\nenabled = true\n"), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().contains("pl2.enabled: unknown key"), "{e}");
    }

    #[test]
    fn protego_section_defaults_and_checks() {
        let c = Config::parse(GOOD, Path::new("x.toml")).unwrap();
        assert_eq!((c.protego.rx_slots, c.protego.miss_slots), (1024, 256));
        let c = Config::parse(&format!("{GOOD}\n[protego]\nrx_slots = 64\nmiss_slots = 512\n"), Path::new("x.toml")).unwrap();
        assert_eq!((c.protego.rx_slots, c.protego.miss_slots), (64, 512));
        for (line, want) in [
            ("rx_slots = 100", "x.toml: protego.rx_slots = 100: must be a power of two in 2..=32768"),
            ("rx_slots = 65536", "x.toml: protego.rx_slots = 65536: must be a power of two in 2..=32768"),
            ("miss_slots = 128", "x.toml: protego.miss_slots = 128: must be a power of two in 256..=32768 (a LOSS requests up to 255)"),
            (
                "rx_ring_bytes = 40000",
                "x.toml: protego.rx_ring_bytes = 40000: must be at least 16384 and data_width / 8 (32) times a power of two up to 32768",
            ),
            ("rx_frames = 3", "x.toml: protego.rx_frames = 3: must be a power of two in 2..=32768"),
            (
                "tx_ring_bytes = 8192",
                "x.toml: protego.tx_ring_bytes = 8192: must be at least 16384 and data_width / 8 (32) times a power of two up to 32768",
            ),
            ("tx_frames = 8", "x.toml: protego.tx_frames = 8: must be a power of two in 16..=32768"),
            ("mode = \"fast\"", "x.toml: protego.mode = \"fast\": must be \"ordered\" or \"nb\""),
            ("tag_off = \"keep\"", "x.toml: protego.tag_off = \"keep\": must be \"forward\" or \"drop\""),
            ("copies = 4", "x.toml: protego.copies = 4: must be in 0..=3"),
            ("pfc_class = 8", "x.toml: protego.pfc_class = 8: must be in 0..=7"),
            ("dummy_max = 256", "x.toml: protego.dummy_max = 256: must be in 0..=255"),
            ("max_hole = 0", "x.toml: protego.max_hole = 0: must be in 1..=255"),
            ("ack_timeout_us = 0.0", "x.toml: protego.ack_timeout_us = 0: must be 1 to below 2^32 cycles at 200 MHz"),
            ("ports = [9]", "x.toml: protego.ports[0] = 9: must be below datapath.ports (4)"),
            ("ports = [1, 1]", "x.toml: protego.ports[1] = 1: is listed twice"),
            (
                "pause_bytes = 1000",
                "x.toml: protego: resume_bytes = 37888, pause_bytes = 1000, buffer_bytes = 49152: must be resume < pause <= buffer < 2^24",
            ),
        ] {
            let e = Config::parse(&format!("{GOOD}\n[protego]\n{line}\n"), Path::new("x.toml")).unwrap_err();
            assert_eq!(e.to_string(), want);
        }
    }

    #[test]
    fn overrides_apply_and_are_checked() {
        let dir = std::env::temp_dir().join(format!("ts-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.toml");
        std::fs::write(&path, GOOD).unwrap();
        let c = Config::load_with(&path, &["datapath.data_width=512".into(), "arbiter.policy=rr".into()]).unwrap();
        assert_eq!((c.datapath.data_width, c.arbiter.policy.as_str()), (512, "rr"));
        let e = Config::load_with(&path, &["datapath.widht=64".into()]).unwrap_err();
        assert!(e.to_string().contains("has no key \"datapath.widht\""), "{e}");
        let e = Config::load_with(&path, &["datapath.data_width=100".into()]).unwrap_err();
        assert!(e.to_string().contains("datapath.data_width = 100: must be one of"), "{e}");
        assert!(e.to_string().ends_with("(from --set datapath.data_width=100)"), "{e}");
        // A value of the wrong type is named by its --set argument, not by a
        // byte offset in a file it is not in.
        let e = Config::load_with(&path, &["datapath.ports=four".into()]).unwrap_err();
        assert_eq!(e.to_string(), "--set datapath.ports=four: invalid type: string \"four\", expected a non-negative integer");
        let e = Config::load_with(&path, &["fifo.depth=-3".into()]).unwrap_err();
        assert_eq!(e.to_string(), "--set fifo.depth=-3: invalid value: integer `-3`, expected a non-negative integer");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The line of `needle` in `GOOD`, 1-based.
    fn line_of(needle: &str) -> usize {
        GOOD.lines().position(|l| l.starts_with(needle)).expect("needle in GOOD") + 1
    }

    #[test]
    fn unknown_and_missing_keys_are_errors() {
        let e = Config::parse(&GOOD.replace("depth = 512", "depht = 512"), Path::new("x.toml")).unwrap_err();
        assert_eq!(e.to_string(), format!("x.toml:{}: fifo.depht: unknown key, expected depth or store_forward", line_of("depth = 512")));
        let e = Config::parse(&GOOD.replace("quantum = 1600", ""), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().starts_with("x.toml:") && e.to_string().ends_with(": arbiter.quantum: missing key"), "{e}");
    }

    #[test]
    fn type_and_syntax_errors_name_line_and_key() {
        let e = Config::parse(&GOOD.replace("ports = 4", "ports = \"four\""), Path::new("x.toml")).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("x.toml:{}: datapath.ports: invalid type: string \"four\", expected a non-negative integer", line_of("ports = 4"))
        );
        let e = Config::parse(&GOOD.replace("clock_mhz = ", "clock_mhz = \"fast\" # "), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().contains(": target.clock_mhz: invalid type: string \"fast\", expected a number"), "{e}");
        let e = Config::parse(&GOOD.replace("ports = 4", "ports = = 4"), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().starts_with(&format!("x.toml:{}: ", line_of("ports = 4"))), "{e}");
    }
}

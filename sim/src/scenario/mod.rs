//! Scenarios: the traffic of the paper's experiments (seed 000 §6) as TOML
//! files (`sim/scenarios/*.toml`; users write their own), run on the
//! Verilated switch with a MAC per port: senders blast their initial window
//! at line rate, receivers drain at line rate and count whole, trimmed and
//! returned packets per flow.
//!
//! File format (every key but `name`, `traffic`, `packets`, `frame_bytes`
//! optional):
//!
//! ```toml
//! name = "incast"
//! description = "3:1 incast onto port 0"
//! traffic = "incast"      # or "permutation": port p sends to (p + 1) % ports,
//!                         # or "cross-incast" (several pipelines, two ports each or more),
//!                         # or "flows": a [[flow]] list (src, dst, load)
//! receiver = 0            # incast: the port everybody sends to
//! senders = [1, 2, 3]     # incast: default every other port
//! packets = 200           # per flow: the initial window
//! frame_bytes = 1500      # on the wire, FCS included (64..=max_frame)
//! load = 1.0              # sender rate, share of line rate (0 < load <= 1)
//! modes = ["ideal", "meter", "meter-no-notify"]  # one run each; default
//!                         # the configuration's tm.mode
//! seed = 1
//! # model engine only (trimswitch sim --model):
//! ports = 64              # switch size, default the configuration's
//! pipelines = 4
//! recirc_us = 1.0         # recirculation delay of a deflected packet
//! hosts = "ndp"           # or "pl2": PL2 senders with a [pl2] table ([`pl2`])
//! ```
//!
//! Every packet is an NDP data packet (IPv4, protocol 199) from host `s`
//! (10.0.s.1, behind port `s`) to host `d` (10.0.d.1): trimmable. The NDP
//! header's `src_port` carries the flow number and `seq` the packet's index,
//! so a trimmed header still says which packet it was.
pub mod netmodel;
pub mod pl2;
pub mod pl2_rtl;
pub mod protego;

use crate::agents::axis::Packet;
use crate::harness::tb::Agent;
use crate::packet::frame::{Frame, Ipv4, Ndp, L3, L4};
use crate::rtl::switch::{line_bytes_per_cycle, SwitchBench};
use anyhow::{bail, ensure, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use trimswitch_hdl::config::{from_toml, parse_mac, Config};
use trimswitch_hdl::meta::{flag, Meta};
use trimswitch_hdl::tm::TmRegs;

fn one() -> f64 {
    1.0
}
fn seed() -> u64 {
    1
}

/// A scenario file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// `incast` or `permutation`.
    pub traffic: String,
    /// Incast: the ports that send (default: every port but the receiver).
    #[serde(default)]
    pub senders: Vec<usize>,
    /// Incast: the port every sender sends to.
    #[serde(default)]
    pub receiver: usize,
    /// Outcast (`hosts = "pl2"`, `traffic = "outcast"`): the ports the one
    /// sender sends to (default every other port); `traffic = "mix"`: the
    /// ports the senders spread their flows over.
    #[serde(default)]
    pub receivers: Vec<usize>,
    /// `traffic = "flows"`: the flows, each with its own rate (a mix of an
    /// incast and background traffic, or anything else); one per sending
    /// port.
    #[serde(default, rename = "flow")]
    pub flow_list: Vec<FlowSpec>,
    /// Packets per flow (the initial window, sent at once).
    pub packets: usize,
    /// Frame size on the wire, FCS included.
    pub frame_bytes: usize,
    /// Sender rate as a share of line rate.
    #[serde(default = "one")]
    pub load: f64,
    /// Traffic manager modes, one run each: `ideal`, `meter` (meters with
    /// the DoD notify loop), `meter-no-notify` (meters, notifies change
    /// nothing: `T0 = T1 = 0`). Default: the configuration's `tm.mode`.
    #[serde(default)]
    pub modes: Vec<String>,
    #[serde(default = "seed")]
    pub seed: u64,
    /// Model engine only: the switch's size, default the configuration's
    /// (`datapath.ports`, `datapath.pipelines`); the paper's is 64 and 4.
    #[serde(default)]
    pub ports: Option<usize>,
    #[serde(default)]
    pub pipelines: Option<usize>,
    /// Model engine only: the recirculation delay of a deflected packet, in
    /// microseconds (the paper's Tofino: about 1).
    #[serde(default = "one")]
    pub recirc_us: f64,
    /// The hosts: `ndp` (default: the trimming scenarios' senders above) or
    /// `pl2` (PL2 senders, 003 Alg. 2, with the `[pl2]` table; model engine
    /// only; [`pl2`]).
    #[serde(default)]
    pub hosts: Option<String>,
    /// `hosts = "pl2"`: the hosts' and the ALU's parameters ([`pl2::Pl2Hosts`]).
    #[serde(default)]
    pub pl2: Option<pl2::Pl2Hosts>,
    /// `switch` (default: one switch, the scenarios above) or `back-to-back`
    /// (two switches joined by a lossy link, Protego's testbed, with the
    /// `[protego]` table; model engine only; [`protego`]).
    #[serde(default)]
    pub topology: Option<String>,
    /// `topology = "back-to-back"`: the link and Protego's registers
    /// ([`protego::ProtegoScenario`]).
    #[serde(default)]
    pub protego: Option<protego::ProtegoScenario>,
    /// Frame sizes (`[frame_sizes]`, [`FrameSizes`]); default every frame
    /// `frame_bytes`.
    #[serde(default)]
    pub frame_sizes: Option<FrameSizes>,
    /// Each sender starts after a random delay below this (ns, uniform,
    /// seeded; per sending port): senders that are not phase-locked.
    #[serde(default)]
    pub start_jitter_ns: f64,
    /// Each gap between a sender's packets grows by a random delay below
    /// this (ns, uniform, seeded).
    #[serde(default)]
    pub gap_jitter_ns: f64,
    /// The file it came from.
    #[serde(skip)]
    pub source: PathBuf,
}

impl Scenario {
    /// `topology` is `switch` or `back-to-back`; `[protego]` only with the
    /// latter.
    fn validate_topology(&self) -> Result<()> {
        let f = self.source.display();
        match self.topology.as_deref() {
            None | Some("switch") => {}
            Some(t) => bail!("{f}: topology = {t:?}: must be \"switch\" or \"back-to-back\""),
        }
        ensure!(self.protego.is_none(), "{f}: protego: the [protego] table needs topology = \"back-to-back\"");
        Ok(())
    }
}

/// Where the project's scenario files live.
pub fn scenario_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

/// Frame sizes of the trimming senders (`[frame_sizes]` in the file). Each
/// packet's size is drawn from `dist`, seeded by the scenario's `seed`, the
/// flow and the packet's index, so both engines send the same sizes:
/// - `fixed`: every frame `frame_bytes`;
/// - `weighted`: `list = [[bytes, weight], ...]` (e.g. `[[64, 3], [1500, 1]]`);
/// - `uniform`: `min..=max` bytes;
/// - `bimodal`: `large` bytes with probability `large_share`, else `small`.
///
/// Sizes are on the wire with the FCS, 64..=`ingress.max_frame`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FrameSizes {
    pub dist: String,
    #[serde(default)]
    pub list: Vec<(usize, f64)>,
    #[serde(default)]
    pub min: usize,
    #[serde(default)]
    pub max: usize,
    #[serde(default)]
    pub small: usize,
    #[serde(default)]
    pub large: usize,
    #[serde(default)]
    pub large_share: f64,
}

/// A uniform draw in `[0, 1)` from `(seed, a, b)` (splitmix64): the same on
/// every engine and in any order.
pub fn unit_draw(seed: u64, a: u64, b: u64) -> f64 {
    let mut z = seed ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// One flow of `traffic = "flows"` (`[[flow]]` in the file).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub src: usize,
    pub dst: usize,
    /// Share of line rate; default the scenario's `load`.
    #[serde(default)]
    pub load: Option<f64>,
}

/// The traffic manager modes a scenario can run (seed 000 §6, Fig. 5: ideal,
/// meter only, meter + notify).
pub const MODES: [&str; 3] = ["ideal", "meter", "meter-no-notify"];

/// One flow: `packets` packets from port `src` to port `dst`.
#[derive(Clone, Debug, Serialize)]
pub struct Flow {
    pub id: usize,
    pub src: usize,
    pub dst: usize,
    /// Share of line rate its sender sends at.
    pub load: f64,
}

impl Scenario {
    /// Loads `name_or_path`: a file path, or the name of a file in
    /// [`scenario_dir`]. Errors name the file, the key and the reason.
    pub fn load(name_or_path: &str) -> Result<Scenario> {
        let p = Path::new(name_or_path);
        let path = if p.extension().is_some_and(|e| e == "toml") || p.components().count() > 1 {
            p.to_path_buf()
        } else {
            scenario_dir().join(format!("{name_or_path}.toml"))
        };
        let text = std::fs::read_to_string(&path).with_context(|| {
            let names: Vec<String> = std::fs::read_dir(scenario_dir())
                .map(|d| d.flatten().filter_map(|e| e.path().file_stem().map(|s| s.to_string_lossy().into_owned())).collect())
                .unwrap_or_default();
            format!("cannot read scenario {} (scenarios here: {names:?})", path.display())
        })?;
        let mut s: Scenario = from_toml(&text).map_err(|e| anyhow::anyhow!("{}{e}", path.display()))?;
        // The name becomes a directory under the output directory: keep it one
        // plain path component.
        ensure!(
            !s.name.is_empty()
                && s.name.len() <= 64
                && s.name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
                && !s.name.starts_with('.'),
            "{}: name = {:?}: must be 1..64 letters, digits, '_', '-' or '.', not starting with '.' (it names the output directory)",
            path.display(),
            s.name
        );
        s.source = path;
        Ok(s)
    }

    /// The switch size the scenario runs on: its `ports` and `pipelines`, or
    /// the configuration's.
    pub fn scale(&self, cfg: &Config) -> (usize, usize) {
        (self.ports.unwrap_or(cfg.datapath.ports), self.pipelines.unwrap_or(cfg.datapath.pipelines))
    }

    /// Checks the scenario for the RTL engine (the switch `cfg` as built);
    /// errors name the file, the key and the reason.
    pub fn validate(&self, cfg: &Config) -> Result<()> {
        let f = self.source.display();
        if self.is_back_to_back() {
            return protego::validate_rtl(cfg, self);
        }
        self.validate_topology()?;
        ensure!(
            self.ports.is_none() && self.pipelines.is_none(),
            "{f}: ports, pipelines: only the model engine (--model) resizes the switch; the RTL is the configuration's"
        );
        if self.is_pl2() {
            self.validate_pl2(cfg)?;
            ensure!(
                self.pl2.as_ref().is_none_or(|p| p.queue_packets.is_none()),
                "{f}: pl2.queue_packets: only the model engine (--model) counts the receiver's queue in packets; on the RTL it is the traffic manager's (tm.queue_d_bytes in the configuration, or --set)"
            );
            return pl2_rtl::rtl_ports(self, cfg).map(|_| ());
        }
        self.validate_at(cfg, cfg.datapath.ports, cfg.datapath.pipelines)
    }

    /// Checks the scenario for the model engine.
    pub fn validate_model(&self, cfg: &Config) -> Result<()> {
        let f = self.source.display();
        if self.is_back_to_back() {
            return self.validate_back_to_back(cfg);
        }
        self.validate_topology()?;
        let (ports, pipes) = self.scale(cfg);
        ensure!((2..=1024).contains(&ports), "{f}: ports = {ports}: must be 2..=1024");
        ensure!(pipes >= 1 && ports % pipes == 0, "{f}: pipelines = {pipes}: must divide ports = {ports}");
        ensure!(self.recirc_us >= 0.0 && self.recirc_us <= 1000.0, "{f}: recirc_us = {}: must be 0..=1000", self.recirc_us);
        if self.is_pl2() {
            return self.validate_pl2(cfg);
        }
        self.validate_at(cfg, ports, pipes)
    }

    fn validate_at(&self, cfg: &Config, ports: usize, pipelines: usize) -> Result<()> {
        let f = self.source.display();
        match self.hosts.as_deref() {
            None | Some("ndp") => {
                ensure!(self.pl2.is_none(), "{f}: pl2: the [pl2] table needs hosts = \"pl2\"");
                ensure!(self.receivers.is_empty(), "{f}: receivers: only with hosts = \"pl2\" and traffic = \"outcast\" or \"mix\"");
            }
            Some(h) => ensure!(h == "pl2", "{f}: hosts = {h:?}: must be \"ndp\" or \"pl2\""),
        }
        match self.traffic.as_str() {
            "incast" => {
                ensure!(self.receiver < ports, "{f}: receiver = {}: the switch has ports 0..{}", self.receiver, ports - 1);
                for s in &self.senders {
                    ensure!(*s < ports, "{f}: senders: port {s} does not exist (ports 0..{})", ports - 1);
                    ensure!(*s != self.receiver, "{f}: senders: port {s} is the receiver");
                }
                let mut v = self.senders.clone();
                v.sort();
                v.dedup();
                ensure!(v.len() == self.senders.len(), "{f}: senders: a port is listed twice");
            }
            "permutation" | "cross-incast" => {
                ensure!(self.senders.is_empty(), "{f}: senders: not used by traffic = {:?} (every port sends)", self.traffic)
            }
            "flows" => {
                ensure!(!self.flow_list.is_empty(), "{f}: flow: traffic = \"flows\" needs at least one [[flow]]");
                for (i, fl) in self.flow_list.iter().enumerate() {
                    ensure!(
                        fl.src < ports && fl.dst < ports,
                        "{f}: flow {i}: src = {}, dst = {}: the switch has ports 0..{}",
                        fl.src,
                        fl.dst,
                        ports - 1
                    );
                    ensure!(fl.src != fl.dst, "{f}: flow {i}: src = dst = {}", fl.src);
                    ensure!(
                        !self.flow_list[..i].iter().any(|o| o.src == fl.src),
                        "{f}: flow {i}: port {} already sends a flow (one per sending port)",
                        fl.src
                    );
                    if let Some(l) = fl.load {
                        ensure!(l > 0.0 && l <= 1.0, "{f}: flow {i}: load = {l}: must be in (0, 1]");
                    }
                }
            }
            t => bail!("{f}: traffic = {t:?}: must be \"incast\", \"permutation\", \"cross-incast\" or \"flows\""),
        }
        ensure!(self.traffic == "flows" || self.flow_list.is_empty(), "{f}: flow: [[flow]] needs traffic = \"flows\"");
        if self.traffic == "cross-incast" {
            ensure!(pipelines >= 2, "{f}: traffic = \"cross-incast\": needs several pipelines, the switch has {pipelines}");
            ensure!(ports / pipelines >= 2, "{f}: traffic = \"cross-incast\": needs two ports per pipeline");
        }
        ensure!(ports >= 2, "{f}: the switch needs two ports");
        ensure!(self.packets >= 1 && self.packets <= 1_000_000, "{f}: packets = {}: must be 1..=1000000", self.packets);
        let max = cfg.ingress.max_frame as usize;
        ensure!(
            self.frame_bytes >= 64 && self.frame_bytes <= max,
            "{f}: frame_bytes = {}: must be 64..={max} (ingress.max_frame)",
            self.frame_bytes
        );
        ensure!(self.load > 0.0 && self.load <= 1.0, "{f}: load = {}: must be in (0, 1]", self.load);
        self.validate_traffic_shape(cfg)?;
        for (i, m) in self.modes.iter().enumerate() {
            ensure!(MODES.contains(&m.as_str()), "{f}: modes: {m:?} is not one of {MODES:?}");
            ensure!(!self.modes[..i].contains(m), "{f}: modes: {m:?} is listed twice");
        }
        Ok(())
    }

    /// Checks `[frame_sizes]`, `start_jitter_ns` and `gap_jitter_ns`.
    fn validate_traffic_shape(&self, cfg: &Config) -> Result<()> {
        let f = self.source.display();
        let max = cfg.ingress.max_frame as usize;
        let size_ok = |k: &str, b: usize| -> Result<()> {
            ensure!((64..=max).contains(&b), "{f}: frame_sizes.{k} = {b}: must be 64..={max} bytes (ingress.max_frame)");
            Ok(())
        };
        if let Some(fs) = &self.frame_sizes {
            match fs.dist.as_str() {
                "fixed" => {}
                "weighted" => {
                    ensure!(!fs.list.is_empty(), "{f}: frame_sizes.list: dist = \"weighted\" needs [[bytes, weight], ...]");
                    for &(b, w) in &fs.list {
                        size_ok("list", b)?;
                        ensure!(w.is_finite() && w > 0.0, "{f}: frame_sizes.list: weight {w} of {b} bytes must be above 0");
                    }
                }
                "uniform" => {
                    size_ok("min", fs.min)?;
                    size_ok("max", fs.max)?;
                    ensure!(fs.min <= fs.max, "{f}: frame_sizes.min = {} is above max = {}", fs.min, fs.max);
                }
                "bimodal" => {
                    size_ok("small", fs.small)?;
                    size_ok("large", fs.large)?;
                    ensure!((0.0..=1.0).contains(&fs.large_share), "{f}: frame_sizes.large_share = {}: must be in [0, 1]", fs.large_share);
                }
                d => bail!("{f}: frame_sizes.dist = {d:?}: must be \"fixed\", \"weighted\", \"uniform\" or \"bimodal\""),
            }
        }
        for (k, v) in [("start_jitter_ns", self.start_jitter_ns), ("gap_jitter_ns", self.gap_jitter_ns)] {
            ensure!(v.is_finite() && (0.0..=1e9).contains(&v), "{f}: {k} = {v}: must be 0..=1e9 ns");
        }
        Ok(())
    }

    /// The size on the wire (FCS included) of packet `seq` of flow `flow`.
    pub fn frame_len(&self, flow: usize, seq: u32) -> usize {
        let Some(fs) = &self.frame_sizes else { return self.frame_bytes };
        let u = unit_draw(self.seed, flow as u64 + 1, seq as u64);
        match fs.dist.as_str() {
            "weighted" => {
                let total: f64 = fs.list.iter().map(|x| x.1).sum();
                let mut acc = 0.0;
                for &(bytes, w) in &fs.list {
                    acc += w / total;
                    if u < acc {
                        return bytes;
                    }
                }
                fs.list.last().map_or(self.frame_bytes, |x| x.0)
            }
            "uniform" => fs.min + ((u * (fs.max - fs.min + 1) as f64) as usize).min(fs.max - fs.min),
            "bimodal" => {
                if u < fs.large_share {
                    fs.large
                } else {
                    fs.small
                }
            }
            _ => self.frame_bytes,
        }
    }

    /// The largest frame the scenario sends.
    pub fn max_frame_len(&self) -> usize {
        match &self.frame_sizes {
            Some(fs) if fs.dist == "weighted" => fs.list.iter().map(|x| x.0).max().unwrap_or(self.frame_bytes),
            Some(fs) if fs.dist == "uniform" => fs.max,
            Some(fs) if fs.dist == "bimodal" => fs.large.max(fs.small),
            _ => self.frame_bytes,
        }
    }

    /// Sending port `port`'s start delay (`start_jitter_ns`), ps.
    pub fn start_jitter_ps(&self, port: usize) -> u64 {
        (unit_draw(self.seed ^ 0x5354_4152_5400, port as u64, 0) * self.start_jitter_ns * 1000.0) as u64
    }

    /// The extra gap before sending port `port`'s packet `k` (`gap_jitter_ns`), ps.
    pub fn gap_jitter_ps(&self, port: usize, k: u64) -> u64 {
        (unit_draw(self.seed ^ 0x4741_5000, port as u64, k) * self.gap_jitter_ns * 1000.0) as u64
    }

    /// Whether senders follow a jittered schedule (else they send paced from
    /// time 0).
    pub fn jittered(&self) -> bool {
        self.start_jitter_ns > 0.0 || self.gap_jitter_ns > 0.0
    }

    /// The runs to make: [`Scenario::modes`], or the configuration's mode.
    pub fn modes(&self, cfg: &Config) -> Vec<String> {
        if self.modes.is_empty() {
            vec![cfg.tm.mode.clone()]
        } else {
            self.modes.clone()
        }
    }

    /// The flows of the scenario on `ports` ports in `pipelines` pipelines.
    /// `cross-incast` is seed 000 §6's worst case: port `p` of every pipeline
    /// sends to port `(p + 1) mod n` of pipeline 0 (`n` ports per pipeline):
    /// `n` parallel incasts, each with one sender per pipeline.
    pub fn flows(&self, ports: usize, pipelines: usize) -> Vec<Flow> {
        let pairs: Vec<(usize, usize)> = match self.traffic.as_str() {
            "incast" => {
                let s = if self.senders.is_empty() { (0..ports).filter(|p| *p != self.receiver).collect() } else { self.senders.clone() };
                s.into_iter().map(|s| (s, self.receiver)).collect()
            }
            "cross-incast" => {
                let n = ports / pipelines;
                (0..ports).map(|s| (s, (s % n + 1) % n)).collect()
            }
            "flows" => {
                return self
                    .flow_list
                    .iter()
                    .enumerate()
                    .map(|(id, f)| Flow { id, src: f.src, dst: f.dst, load: f.load.unwrap_or(self.load) })
                    .collect();
            }
            _ => (0..ports).map(|p| (p, (p + 1) % ports)).collect(),
        };
        pairs.into_iter().enumerate().map(|(id, (src, dst))| Flow { id, src, dst, load: self.load }).collect()
    }
}

/// A MAC address held in the low 48 bits of `m` (first byte on the wire in
/// bits 47:40) as its six bytes.
pub fn mac(m: u64) -> [u8; 6] {
    std::array::from_fn(|i| (m >> (8 * (5 - i))) as u8)
}

/// Packet `seq` of flow `f` on the wire (FCS included), `bytes` long.
pub fn ndp_frame(cfg: &Config, f: &Flow, seq: u32, bytes: usize) -> Vec<u8> {
    let router = parse_mac(&cfg.ingress.router_mac).expect("validated router_mac");
    let headers = 14 + 20 + Ndp::LEN + 4;
    let frame = Frame {
        dst: mac(router),
        src: mac(0x0200_0000_0000 | f.src as u64),
        vlans: vec![],
        protego: None,
        l3: L3::Ipv4(Ipv4 {
            dscp: 0,
            ecn: 0,
            id: seq as u16,
            dont_fragment: true,
            ttl: 64,
            protocol: 0,
            src: [10, 0, f.src as u8, 1],
            dst: [10, 0, f.dst as u8, 1],
            options: vec![],
        }),
        l4: L4::Ndp(Ndp { flags: Ndp::DATA, src_port: f.id as u16, dst_port: f.dst as u16, path_id: 0, seq, ack_or_pull: 0 }),
        payload: (0..bytes.saturating_sub(headers)).map(|i| (i as u32 ^ seq) as u8).collect(),
    };
    let w = frame.to_wire();
    debug_assert_eq!(w.len(), bytes.max(64));
    w
}

/// Minimum, median and maximum of a sample (all 0 when empty).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Spread {
    pub n: usize,
    pub min: u64,
    pub median: u64,
    pub max: u64,
    pub mean: f64,
}

impl Spread {
    pub fn of(v: &[u64]) -> Spread {
        if v.is_empty() {
            return Spread::default();
        }
        let mut s = v.to_vec();
        s.sort_unstable();
        Spread { n: s.len(), min: s[0], median: s[s.len() / 2], max: s[s.len() - 1], mean: s.iter().sum::<u64>() as f64 / s.len() as f64 }
    }
}

/// What one flow saw.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FlowMetrics {
    pub id: usize,
    pub src: usize,
    pub dst: usize,
    pub sent: usize,
    pub whole: usize,
    pub trimmed: usize,
    pub returned: usize,
    /// Neither delivered nor returned (dropped: see `drops`).
    pub lost: usize,
    /// Cycle of the first beat of the flow's first packet in, and of the
    /// last beat of its last packet out (whole, trimmed or returned): the
    /// flow's lifetime.
    pub first_in: u64,
    pub last_out: u64,
    /// Bytes of whole packets delivered per second of the flow's lifetime,
    /// in Gb/s (frame bytes, without preamble and gap).
    pub goodput_gbps: f64,
}

/// The conservation check: every packet sent is delivered whole, delivered
/// trimmed, returned, or dropped with a reason, exactly once.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Conservation {
    pub sent: u64,
    pub whole: u64,
    pub trimmed: u64,
    pub returned: u64,
    pub dropped: u64,
    pub ok: bool,
}

/// Everything a run measured; written as `metrics.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Metrics {
    pub mode: String,
    pub clock_mhz: f64,
    pub line_gbps: f64,
    /// Cycles from the first packet in to the end of the drain (RTL), or to
    /// the last packet delivered (model).
    pub cycles: u64,
    /// Simulated cycles per wall-clock second (information only).
    pub cycles_per_second: f64,
    pub flows: Vec<FlowMetrics>,
    /// Jain's index of the flows' goodputs (1: every flow the same share).
    #[serde(default)]
    pub jain: f64,
    /// Trims: `total` (`TRIM_PACKETS`: every packet put trimmed into a header
    /// queue), of which the meters marked `ingress` (not-green answers) and
    /// `dod` were deflected through the DoD FIFO (meter mode); `returned` to
    /// the sender.
    pub trims: BTreeMap<String, u64>,
    /// Cycles (from the start) at which each trimmed header's last beat
    /// reached its receiver, sorted: the header arrival CDF.
    pub header_arrivals: Vec<u64>,
    /// First beat in to last beat out, per packet kind.
    pub header_latency: Spread,
    pub data_latency: Spread,
    /// Largest sampled occupancy per port (bytes), and of the DoD FIFO
    /// (words); sampled over AXI-Lite every `sample_cycles`.
    pub sample_cycles: u64,
    pub max_occ_h_bytes: Vec<u64>,
    pub max_occ_d_bytes: Vec<u64>,
    pub max_dod_words: u64,
    /// Occupancy samples: (cycle, port, header bytes, data bytes) of every
    /// receiving port.
    pub occupancy: Vec<(u64, usize, u64, u64)>,
    /// Mode samples: (cycle, port, mode: 0 optimistic, 1 halftimistic, 2
    /// pessimistic) of every port that receives traffic.
    pub mode_samples: Vec<(u64, usize, u32)>,
    /// Throughput of whole packets per flow over time: `flow_gbps[f][i]` is
    /// flow `f`'s whole-packet bytes leaving in cycles `i * bin_cycles ..
    /// (i + 1) * bin_cycles`, in Gb/s.
    pub bin_cycles: u64,
    pub flow_gbps: Vec<Vec<f64>>,
    /// Cycles per meter mode per port: [optimistic, halftimistic, pessimistic].
    pub mode_cycles: Vec<[u64; 3]>,
    /// Per port: the share of line rate its output used from its first
    /// packet's first beat to its last packet's last beat (wire bytes incl.
    /// preamble, gap and FCS); 0 for a port nothing left.
    pub port_utilization: Vec<f64>,
    /// Drops by counter (non-zero ones).
    pub drops: BTreeMap<String, u64>,
    pub conservation: Conservation,
    /// Every counter of the register map at the end.
    pub counters: BTreeMap<String, u64>,
}

impl Metrics {
    /// A few lines for a terminal: flows, trims, latencies, occupancy, drops
    /// and the conservation check.
    pub fn summary(&self, sc: &Scenario) -> String {
        use std::fmt::Write as _;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "  mode {}, {} flows x {} packets of {} B, load {:.2}, {:.1} Gb/s ports at {} MHz",
            self.mode,
            self.flows.len(),
            sc.packets,
            match &sc.frame_sizes {
                Some(fs) if fs.dist != "fixed" => format!("{} sizes up to {}", fs.dist, sc.max_frame_len()),
                _ => sc.frame_bytes.to_string(),
            },
            sc.load,
            self.line_gbps,
            self.clock_mhz
        );
        let _ = writeln!(
            o,
            "  {:>4} {:>9} {:>7} {:>7} {:>8} {:>5} {:>13}",
            "flow", "src->dst", "whole", "trimmed", "returned", "lost", "goodput Gb/s"
        );
        for f in &self.flows {
            let _ = writeln!(
                o,
                "  {:>4} {:>9} {:>7} {:>7} {:>8} {:>5} {:>13.2}",
                f.id,
                format!("{}->{}", f.src, f.dst),
                f.whole,
                f.trimmed,
                f.returned,
                f.lost,
                f.goodput_gbps
            );
        }
        let _ = writeln!(o, "  per-flow goodput: Jain's index {:.3}", self.jain);
        let t = |k: &str| self.trims.get(k).copied().unwrap_or(0);
        let _ = writeln!(
            o,
            "  trims: {} (meters said not green: {}, deflected through the DoD FIFO: {}); {} returned to sender",
            t("total"),
            t("ingress"),
            t("dod"),
            t("returned")
        );
        let sp = |s: &Spread| if s.n == 0 { "none".to_string() } else { format!("{}/{}/{} cycles (n {})", s.min, s.median, s.max, s.n) };
        let _ = writeln!(o, "  latency min/median/max: headers {}, whole {}", sp(&self.header_latency), sp(&self.data_latency));
        let occ: Vec<String> = (0..self.max_occ_d_bytes.len())
            .filter(|&p| self.max_occ_h_bytes[p] + self.max_occ_d_bytes[p] > 0)
            .map(|p| format!("port {p} {}+{}", self.max_occ_h_bytes[p], self.max_occ_d_bytes[p]))
            .collect();
        let _ = writeln!(
            o,
            "  max occupancy (header+data bytes, every {} cycles): {}; DoD FIFO {} words",
            self.sample_cycles,
            if occ.is_empty() { "0".to_string() } else { occ.join(", ") },
            self.max_dod_words
        );
        let util: Vec<String> =
            self.port_utilization.iter().enumerate().filter(|x| *x.1 > 0.0).map(|(p, u)| format!("port {p} {:.1}%", 100.0 * u)).collect();
        let _ = writeln!(o, "  output busy (share of line rate while sending): {}", util.join(", "));
        let drops: Vec<String> = self.drops.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(o, "  drops: {}", if drops.is_empty() { "none".to_string() } else { drops.join(", ") });
        let c = &self.conservation;
        let _ = writeln!(
            o,
            "  conservation: {} sent = {} whole + {} trimmed + {} returned + {} dropped: {}",
            c.sent,
            c.whole,
            c.trimmed,
            c.returned,
            c.dropped,
            if c.ok { "ok" } else { "BROKEN" }
        );
        o
    }
}

/// Whether a counter of the map (`window.NAME[i]`) counts dropped packets.
fn is_drop(key: &str) -> bool {
    let name = key.split_once('.').map_or(key, |x| x.1);
    name.starts_with("RX_DROP_") || name.starts_with("DROP_") || name == "DROPPED_TRIM_PACKETS"
}

/// What `trimswitch sim` writes as `metrics.json`: the scenario and one run
/// per mode.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub scenario: Scenario,
    pub config: String,
    /// `rtl`: the Verilated `ts_switch`.
    pub engine: String,
    pub runs: Vec<Metrics>,
}

/// Runs `sc` in every one of its modes on the Verilated switch.
pub fn run_all_rtl(cfg: &Config, sc: &Scenario, progress: bool) -> Result<Report> {
    sc.validate(cfg)?;
    let mut runs = vec![];
    for mode in sc.modes(cfg) {
        if progress {
            eprintln!("  mode {mode}:");
        }
        runs.push(run_rtl(cfg, sc, &mode, progress)?);
    }
    Ok(Report { scenario: sc.clone(), config: cfg.source.display().to_string(), engine: "rtl".into(), runs })
}

/// Runs `sc` in `mode` (one of [`MODES`]) on the Verilated `ts_switch` of
/// `cfg`; `progress` prints a progress bar on standard error.
pub fn run_rtl(cfg: &Config, sc: &Scenario, mode: &str, progress: bool) -> Result<Metrics> {
    sc.validate(cfg)?;
    let ports = cfg.datapath.ports;
    let flows = sc.flows(ports, cfg.datapath.pipelines);
    let mut b = SwitchBench::new(cfg, sc.seed)?;
    b.configure(cfg)?;
    // One traffic manager per pipeline; the mode is set in all of them. The
    // port modes are the same in every pipeline (notifies go to all, with
    // the same T0 and T1), so pipeline 0's stand for all.
    let tms: Vec<_> = (0..cfg.datapath.pipelines).map(|n| b.map.window(&format!("tm{n}")).clone()).collect();
    let tm = tms[0].clone();
    ensure!(MODES.contains(&mode), "mode {mode:?} is not one of {MODES:?}");
    let ctrl = b.read(tm.addr("CTRL", 0))?;
    let ctrl = if mode == "ideal" { ctrl & !TmRegs::CTRL_METER } else { ctrl | TmRegs::CTRL_METER };
    b.write_tms("CTRL", ctrl)?;
    if mode == "meter-no-notify" {
        // A notify with T0 = T1 = 0 leaves the port optimistic (ts_port_mode).
        b.write_tms("T0", 0)?;
        b.write_tms("T1", 0)?;
    }
    let line = line_bytes_per_cycle(cfg);
    // Let the meter buckets fill after reset.
    b.run(2000);
    // Senders: each port's packets in flow order (one flow per sender here).
    // With jitter, each packet may not start before its scheduled cycle
    // (the model engine's schedule: start delay, then per packet its wire
    // time at the flow's load plus a gap delay); pacing still applies.
    let mut order: Vec<Vec<(usize, u32)>> = vec![vec![]; ports];
    let now0 = b.tb.cycle();
    let ps_byte = 8000.0 / cfg.datapath.port_gbps;
    for f in &flows {
        let mut t_ps = sc.start_jitter_ps(f.src) as f64;
        for i in 0..sc.packets {
            let len = sc.frame_len(f.id, i as u32);
            let pkt = Packet::new(ndp_frame(cfg, f, i as u32, len), 0);
            if sc.jittered() {
                b.srcs[f.src].push_at(pkt, now0 + (t_ps * cfg.target.clock_mhz / 1e6).ceil() as u64);
                t_ps += (len + 20) as f64 * ps_byte / f.load + sc.gap_jitter_ps(f.src, i as u64) as f64;
            } else {
                b.srcs[f.src].push(pkt);
            }
            order[f.src].push((f.id, i as u32));
        }
    }
    for s in b.srcs.iter_mut() {
        s.pace = Some(line * sc.load);
        s.wire_overhead = 20;
    }
    for f in &flows {
        b.srcs[f.src].pace = Some(line * f.load);
    }
    for s in b.sinks.iter_mut() {
        s.pace = Some(line);
        s.wire_overhead = if cfg.ingress.strip_fcs { 24 } else { 20 };
    }
    let total = flows.len() * sc.packets;
    let dests: Vec<usize> = {
        let mut d: Vec<usize> = flows.iter().map(|f| f.dst).chain(flows.iter().map(|f| f.src)).collect();
        d.sort();
        d.dedup();
        d
    };
    let sample_cycles = 250u64;
    let mut max_dod = 0u64;
    let (mut occupancy, mut mode_samples) = (vec![], vec![]);
    let start = b.tb.cycle();
    let t0 = std::time::Instant::now();
    // Drain: the largest queue at line rate, plus margin.
    let quiet_needed =
        ((cfg.tm.queue_d_bytes + cfg.tm.queue_h_bytes) as f64 / line) as u64 + 4 * (sc.max_frame_len() as f64 / line) as u64 + 2000;
    let (mut quiet, mut last_beats, mut shown) = (0u64, 0u64, usize::MAX);
    loop {
        b.run(sample_cycles);
        let now = b.tb.cycle() - start;
        let mut dod = 0u64;
        for w in &tms {
            dod += b.read(w.addr("OCC_DOD_WORDS", 0))? as u64;
        }
        max_dod = max_dod.max(dod);
        for &p in &dests {
            // Any pipeline's window shows the port's total.
            let h = b.read(tm.addr("OCC_H_BYTES", p))? as u64;
            let d = b.read(tm.addr("OCC_D_BYTES", p))? as u64;
            occupancy.push((now, p, h, d));
            mode_samples.push((now, p, b.read(tm.addr("MODE", p))?));
        }
        let sent: usize = b.srcs.iter().map(|s| s.first_cycles.len()).sum();
        if progress {
            let pct = sent * 100 / total.max(1);
            if pct / 5 != shown {
                shown = pct / 5;
                let bar: String = (0..20).map(|i| if i < pct / 5 { '#' } else { '.' }).collect();
                eprint!("\r  [{bar}] {pct:3}% sent, cycle {now}");
                let _ = std::io::stderr().flush();
            }
        }
        let beats: u64 = b.sinks.iter().map(|s| s.beats()).sum();
        let busy = b.srcs.iter().any(|s| !s.idle()) || beats != last_beats;
        last_beats = beats;
        quiet = if busy { 0 } else { quiet + sample_cycles };
        if quiet >= quiet_needed {
            break;
        }
        ensure!(now < 500_000_000, "{}: the switch never went quiet", sc.name);
    }
    if progress {
        eprintln!();
    }
    let cycles = b.tb.cycle() - start;
    let seconds = t0.elapsed().as_secs_f64();
    for s in &b.sinks {
        ensure!(s.error_count() == 0, "AXI-Stream protocol error at an output: {:?}", s.errors.first());
    }
    let counters = b.read_counters()?;
    // The queues' high-water marks, exact to the cycle (the port's total).
    let hw = |n: &str, p: usize| counters.get(&format!("tm0.{n}[{p}]")).or(counters.get(&format!("tm0.{n}"))).copied().unwrap_or(0);
    let max_h: Vec<u64> = (0..ports).map(|p| hw("MAX_OCC_H_BYTES", p)).collect();
    let max_d: Vec<u64> = (0..ports).map(|p| hw("MAX_OCC_D_BYTES", p)).collect();

    // Outputs: which packet of which flow each was, and how it came.
    let mut fm: Vec<FlowMetrics> = flows
        .iter()
        .map(|f| FlowMetrics {
            id: f.id,
            src: f.src,
            dst: f.dst,
            sent: sc.packets,
            whole: 0,
            trimmed: 0,
            returned: 0,
            lost: 0,
            first_in: u64::MAX,
            last_out: 0,
            goodput_gbps: 0.0,
        })
        .collect();
    let mut t_in: BTreeMap<(usize, u32), u64> = BTreeMap::new();
    for (p, o) in order.iter().enumerate() {
        ensure!(b.srcs[p].first_cycles.len() == o.len(), "port {p}: {} of {} packets entered", b.srcs[p].first_cycles.len(), o.len());
        for (k, c) in o.iter().zip(&b.srcs[p].first_cycles) {
            t_in.insert(*k, c - start);
            fm[k.0].first_in = fm[k.0].first_in.min(c - start);
        }
    }
    let mut seen = std::collections::HashSet::new();
    let (mut header_arrivals, mut hl, mut dl) = (vec![], vec![], vec![]);
    let mut whole_bytes = vec![0u64; flows.len()];
    let bin_cycles = (cycles / 40).max(1000);
    let mut flow_gbps = vec![vec![0.0; (cycles / bin_cycles + 1) as usize]; flows.len()];
    let gbps_per_byte = 8.0 * cfg.target.clock_mhz * 1e6 / bin_cycles as f64 / 1e9;
    for (port, s) in b.sinks.iter().enumerate() {
        for ((pkt, _first), last) in s.packets.iter().zip(&s.first_cycles).zip(&s.last_cycles) {
            let m = Meta::unpack(pkt.user);
            let d = &pkt.data;
            ensure!(d.len() >= 14 + 20 + 16 && d[23] == 199, "port {port}: a packet that is not one of the scenario's ({} bytes)", d.len());
            let flow = u16::from_be_bytes([d[36], d[37]]) as usize;
            let seq = u32::from_be_bytes([d[42], d[43], d[44], d[45]]);
            ensure!(
                flow < flows.len() && (seq as usize) < sc.packets,
                "port {port}: flow {flow} packet {seq} is not one of the scenario's"
            );
            ensure!(seen.insert((flow, seq)), "flow {flow} packet {seq} came out twice");
            let out = last - start;
            let lat = out - t_in[&(flow, seq)];
            let f = &mut fm[flow];
            f.last_out = f.last_out.max(out);
            if m.flags & flag::RETURNED != 0 {
                ensure!(port == f.src, "flow {flow} packet {seq} returned to port {port}, not its sender {}", f.src);
                f.returned += 1;
            } else if m.flags & flag::TRIMMED != 0 {
                ensure!(port == f.dst, "flow {flow} packet {seq} trimmed to port {port}, not {}", f.dst);
                f.trimmed += 1;
                header_arrivals.push(out);
                hl.push(lat);
            } else {
                let want = sc.frame_len(flow, seq) - if cfg.ingress.strip_fcs { 4 } else { 0 };
                ensure!(
                    port == f.dst && d.len() == want,
                    "flow {flow} packet {seq}: whole but {} bytes at port {port} (want {want} at port {})",
                    d.len(),
                    f.dst
                );
                f.whole += 1;
                whole_bytes[flow] += d.len() as u64;
                flow_gbps[flow][(out / bin_cycles) as usize] += d.len() as f64 * gbps_per_byte;
                dl.push(lat);
            }
        }
    }
    header_arrivals.sort_unstable();
    let overhead = 20 + if cfg.ingress.strip_fcs { 4 } else { 0 };
    let port_utilization = b
        .sinks
        .iter()
        .map(|s| match (s.first_cycles.front(), s.last_cycles.back()) {
            (Some(f), Some(l)) if l > f => {
                s.packets.iter().map(|p| (p.data.len() + overhead) as f64).sum::<f64>() / (line * (l + 1 - f) as f64)
            }
            _ => 0.0,
        })
        .collect();
    let mhz = cfg.target.clock_mhz;
    for (f, wb) in fm.iter_mut().zip(&whole_bytes) {
        f.lost = f.sent - f.whole - f.trimmed - f.returned;
        if f.last_out > f.first_in {
            f.goodput_gbps = *wb as f64 * 8.0 / ((f.last_out - f.first_in) as f64 / (mhz * 1e6)) / 1e9;
        }
    }
    let c = |k: &str| counters.get(k).copied().unwrap_or(0);
    // A traffic-manager counter summed over the pipelines (`tm.NAME`).
    let ct = |k: &str| (0..tms.len()).map(|n| c(&k.replacen("tm.", &format!("tm{n}."), 1))).sum::<u64>();
    let mut trims = BTreeMap::new();
    trims.insert("total".to_string(), ct("tm.TRIM_PACKETS"));
    trims.insert("ingress".to_string(), (0..ports).map(|p| ct(&format!("tm.INGRESS_TRIM_PACKETS[{p}]"))).sum());
    trims.insert("dod".to_string(), ct("tm.DOD_TRIM_PACKETS"));
    trims.insert("returned".to_string(), ct("tm.RTS_PACKETS"));
    let drops: BTreeMap<String, u64> = counters.iter().filter(|(k, v)| is_drop(k) && **v > 0).map(|(k, v)| (k.clone(), *v)).collect();
    let sum = |f: &dyn Fn(&FlowMetrics) -> usize| fm.iter().map(f).sum::<usize>() as u64;
    let cons = Conservation {
        sent: total as u64,
        whole: sum(&|f| f.whole),
        trimmed: sum(&|f| f.trimmed),
        returned: sum(&|f| f.returned),
        dropped: drops.values().sum(),
        ok: false,
    };
    let ok = cons.sent == cons.whole + cons.trimmed + cons.returned + cons.dropped;
    let mode_cycles = (0..ports)
        .map(|p| {
            [
                c(&format!("tm0.CYCLES_OPTIMISTIC[{p}]")),
                c(&format!("tm0.CYCLES_HALFTIMISTIC[{p}]")),
                c(&format!("tm0.CYCLES_PESSIMISTIC[{p}]")),
            ]
        })
        .collect();
    let jain = crate::model::pl2_host::jain(&fm.iter().map(|f| f.goodput_gbps).collect::<Vec<_>>());
    Ok(Metrics {
        jain,
        mode: mode.to_string(),
        clock_mhz: mhz,
        line_gbps: cfg.datapath.port_gbps,
        cycles,
        cycles_per_second: cycles as f64 / seconds.max(1e-9),
        flows: fm,
        trims,
        header_arrivals,
        header_latency: Spread::of(&hl),
        data_latency: Spread::of(&dl),
        sample_cycles,
        max_occ_h_bytes: max_h,
        max_occ_d_bytes: max_d,
        max_dod_words: max_dod,
        occupancy,
        mode_samples,
        bin_cycles,
        flow_gbps,
        mode_cycles,
        port_utilization,
        drops,
        conservation: Conservation { ok, ..cons },
        counters,
    })
}

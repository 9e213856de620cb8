//! PL2 scenarios (`hosts = "pl2"`, issue 15): senders that run 003 §4.4
//! Algorithm 2 ([`crate::model::pl2_host`]) against the reservation ALU
//! ([`crate::model::pl2`]) and the receiver's egress queue, in the closed
//! loop of [`run_incast`] (003 §6.4; `PL2-PROTEGO.md` A.8).
//!
//! File format: a scenario file (`super`'s keys) with `hosts = "pl2"`,
//! `traffic = "incast"` (`senders` → `receiver`), `"outcast"` (one sender
//! → `receivers`, 003 Fig. 10) or `"mix"` (`senders` → `receivers`, each
//! sender's flows spread over the receivers: an incast and an outcast at
//! once), and a `[pl2]` table; `packets` is the packets per
//! message (one burst: 1..=`k`), `frame_bytes` the MTU every data packet has
//! (one slot is one MTU at the configuration's `datapath.port_gbps`):
//!
//! ```toml
//! name = "pl2_incast"
//! traffic = "incast"
//! hosts = "pl2"
//! receiver = 0
//! senders = [1, 2, 3, 4]     # default every other port; only the count matters
//! packets = 4                # per message, 1..=k
//! frame_bytes = 1500
//! modes = ["pl2-paper", "pl2-joint", "no-pl2"]   # default: the configuration's pl2.mode
//! [pl2]
//! k = 4                      # the ALU's K and the hosts' (1..=255)
//! t = 15                     # the hosts' t: unsolicited while the last grant was below it
//! t_drop = 64                # the ALU's T: an unsolicited packet is dropped above it
//! flows = 12                 # flows per sender
//! messages = 20              # messages per flow, one after the other
//! queue_packets = 64         # the receiver port's egress queue, packets; model engine only
//! one_way_ns = 500           # host <-> switch, each way
//! rsv_grt_delay_ns = 1000    # what the hosts subtract in Eq. 1
//! first_burst_unsol = false  # may a flow's first burst go unsolicited (Alg. 2) or not (A.7)
//! sizes = "fixed"            # or "uniform": each message 1..=packets packets (seeded by `seed`)
//! ```
//!
//! Modes: `pl2-paper` (the ALU of 003 §4.1.1 Alg. 1), `pl2-joint` (A.5's
//! absolute slots), `no-pl2` (the same hosts sending at once, no RSV: the
//! baseline of 003 §6.4). On the model engine (`trimswitch sim --model`,
//! [`run_all`]) or around the Verilated switch ([`run_all_rtl`],
//! [`super::pl2_rtl`]).
use super::Scenario;
use crate::model::pl2::{Pl2Config, Pl2Mode};
use crate::model::pl2_host::{run_incast, HostMode, IncastConfig, IncastReport, Pl2HostConfig, Sizes, DEFAULT_RSV_GRT_DELAY_NS};
use anyhow::{anyhow, ensure, Result};
use serde::{Deserialize, Serialize};
use trimswitch_hdl::config::Config;

/// The modes a PL2 scenario can run.
pub const PL2_MODES: [&str; 3] = ["pl2-paper", "pl2-joint", "no-pl2"];

fn k() -> u32 {
    4
}
fn t() -> u32 {
    crate::model::pl2_host::DEFAULT_SMALL_T
}
fn t_drop() -> u32 {
    64
}
/// The model engine's receiver queue, packets, when `[pl2] queue_packets`
/// is not set.
pub const QUEUE_PACKETS: usize = 64;
fn flows() -> usize {
    12
}
fn messages() -> usize {
    20
}
fn one_way_ns() -> u64 {
    500
}
fn rsv_grt_delay_ns() -> u64 {
    DEFAULT_RSV_GRT_DELAY_NS
}
fn sizes() -> String {
    "fixed".into()
}

/// The `[pl2]` table of a scenario (defaults: 003 §6.4's incast, A.1).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pl2Hosts {
    #[serde(default = "k")]
    pub k: u32,
    #[serde(default = "t")]
    pub t: u32,
    #[serde(default = "t_drop")]
    pub t_drop: u32,
    #[serde(default = "flows")]
    pub flows: usize,
    #[serde(default = "messages")]
    pub messages: usize,
    /// The receiver port's egress queue in packets, model engine only (the
    /// RTL's is the traffic manager's `tm.queue_d_bytes`; set here for an RTL
    /// run it is an error, not ignored). Default [`QUEUE_PACKETS`].
    #[serde(default)]
    pub queue_packets: Option<usize>,
    #[serde(default = "one_way_ns")]
    pub one_way_ns: u64,
    #[serde(default = "rsv_grt_delay_ns")]
    pub rsv_grt_delay_ns: u64,
    #[serde(default)]
    pub first_burst_unsol: bool,
    /// `fixed` (every message `packets` packets) or `uniform` (1..=`packets`,
    /// seeded by the scenario's `seed`).
    #[serde(default = "sizes")]
    pub sizes: String,
}

impl Default for Pl2Hosts {
    fn default() -> Self {
        Pl2Hosts {
            k: k(),
            t: t(),
            t_drop: t_drop(),
            flows: flows(),
            messages: messages(),
            queue_packets: None,
            one_way_ns: one_way_ns(),
            rsv_grt_delay_ns: rsv_grt_delay_ns(),
            first_burst_unsol: false,
            sizes: sizes(),
        }
    }
}

/// One mode's run.
#[derive(Clone, Debug, Serialize)]
pub struct Pl2Run {
    pub mode: String,
    /// The closed loop's configuration, as run.
    pub senders: usize,
    pub receivers: usize,
    pub rate_gbps: f64,
    pub slot_ns: u64,
    pub report: IncastReport,
}

/// Every mode of a PL2 scenario (`pl2.json`).
#[derive(Clone, Debug, Serialize)]
pub struct Pl2Report {
    pub scenario: Scenario,
    pub config: String,
    /// `model` ([`run_incast`]) or `rtl` ([`super::pl2_rtl::run_rtl`]).
    pub engine: String,
    pub runs: Vec<Pl2Run>,
}

impl Pl2Run {
    /// Two lines for the terminal.
    pub fn summary(&self) -> String {
        let r = &self.report;
        format!(
            "  {:<10} {} of {} packets delivered, {} lost ({} queue drops, {} ALU unsolicited drops, {} never resent), {} duplicates\n  \
             {:<10} peak queue {} packets at {} ns, goodput {:.3} of line rate, {} unsolicited bursts, {} resends, OUT_RES high water {}\n  \
             {:<10} flows done in {:.1}..{:.1} us, Jain's index {:.3}; queueing delay mean {:.0} ns, jitter (std) {:.0} ns, p99 {} ns, max {} ns\n  \
             {:<10} collisions (grants overlapping on a port): {}\n",
            self.mode,
            r.delivered,
            r.offered,
            r.lost,
            r.queue_drops,
            r.alu_unsol_drops,
            r.never_resent_pkts,
            r.duplicates,
            "",
            r.max_queue,
            r.max_queue_at_ns,
            r.goodput,
            r.unsol_bursts,
            r.resends,
            r.out_high_water,
            "",
            r.flow_done_min_ns as f64 / 1e3,
            r.flow_done_max_ns as f64 / 1e3,
            r.jain,
            r.qdelay_mean_ns,
            r.qdelay_std_ns,
            r.qdelay_p99_ns,
            r.qdelay_max_ns,
            "",
            match (r.collisions_recv, r.collisions_send) {
                (Some(a), Some(b)) => format!("{a} at receivers, {b} at senders"),
                _ => "not measured (RTL engine: the slot clock at each ALU decision is not visible)".into(),
            },
        )
    }
}

impl Scenario {
    /// Whether the scenario's hosts are PL2 senders (`hosts = "pl2"`).
    pub fn is_pl2(&self) -> bool {
        self.hosts.as_deref() == Some("pl2")
    }

    /// The `[pl2]` table, or its defaults.
    pub fn pl2_hosts(&self) -> Pl2Hosts {
        self.pl2.clone().unwrap_or_default()
    }

    /// Checks a `hosts = "pl2"` scenario for the model engine; errors name
    /// the file, the key and the reason.
    pub fn validate_pl2(&self, cfg: &Config) -> Result<()> {
        let f = self.source.display();
        ensure!(self.is_pl2(), "{f}: hosts = {:?}: not a PL2 scenario", self.hosts);
        let (ports, _) = self.scale(cfg);
        match self.traffic.as_str() {
            "incast" => {
                ensure!(self.receiver < ports, "{f}: receiver = {}: the switch has ports 0..{}", self.receiver, ports - 1);
                ensure!(self.receivers.is_empty(), "{f}: receivers: only with traffic = \"outcast\"");
            }
            "outcast" => {
                ensure!(self.senders.len() == 1, "{f}: senders: traffic = \"outcast\" has one sender (senders = [s])");
                for r in &self.receivers {
                    ensure!(
                        *r < ports && *r != self.senders[0],
                        "{f}: receivers: port {r} is the sender or does not exist (ports 0..{})",
                        ports - 1
                    );
                }
            }
            "mix" => {
                ensure!(self.receivers.len() >= 2, "{f}: receivers: traffic = \"mix\" needs at least two receivers");
                ensure!(self.senders.len() >= 2, "{f}: senders: traffic = \"mix\" needs at least two senders");
                for r in &self.receivers {
                    ensure!(
                        *r < ports && !self.senders.contains(r),
                        "{f}: receivers: port {r} is a sender or does not exist (ports 0..{})",
                        ports - 1
                    );
                }
            }
            t => anyhow::bail!("{f}: traffic = {t:?}: PL2 hosts run \"incast\", \"outcast\" or \"mix\""),
        }
        let (n, m) = (self.pl2_senders(cfg), self.pl2_receivers(cfg));
        ensure!(
            n >= 1 && m >= 1 && n + m <= crate::model::pl2::MAX_PORTS,
            "{f}: senders, receivers: {n} senders and {m} receivers: at most {} ports in all",
            crate::model::pl2::MAX_PORTS
        );
        let p = self.pl2_hosts();
        ensure!((1..=255).contains(&p.k), "{f}: pl2.k = {}: must be 1..=255 (the RSV demand field is one byte)", p.k);
        ensure!(p.t < 1 << 31, "{f}: pl2.t = {}: must be below 2^31", p.t);
        ensure!(p.t_drop < 1 << 31, "{f}: pl2.t_drop = {}: must be below 2^31", p.t_drop);
        ensure!((1..=4096).contains(&p.flows), "{f}: pl2.flows = {}: must be 1..=4096", p.flows);
        ensure!((1..=100_000).contains(&p.messages), "{f}: pl2.messages = {}: must be 1..=100000", p.messages);
        if let Some(q) = p.queue_packets {
            ensure!((1..=1_000_000).contains(&q), "{f}: pl2.queue_packets = {q}: must be 1..=1000000");
        }
        ensure!(p.one_way_ns <= 1_000_000_000, "{f}: pl2.one_way_ns = {}: must be at most 1 s", p.one_way_ns);
        ensure!(p.rsv_grt_delay_ns <= 1_000_000_000, "{f}: pl2.rsv_grt_delay_ns = {}: must be at most 1 s", p.rsv_grt_delay_ns);
        ensure!(
            self.packets >= 1 && self.packets <= p.k as usize,
            "{f}: packets = {}: with hosts = \"pl2\" the packets per message, 1..=pl2.k ({})",
            self.packets,
            p.k
        );
        ensure!((64..=9216).contains(&self.frame_bytes), "{f}: frame_bytes = {}: the hosts' MTU, must be 64..=9216", self.frame_bytes);
        ensure!(p.sizes == "fixed" || p.sizes == "uniform", "{f}: pl2.sizes = {:?}: must be \"fixed\" or \"uniform\"", p.sizes);
        ensure!(self.load == 1.0, "{f}: load = {}: PL2 hosts send at line rate (their grants pace them); leave load out", self.load);
        ensure!(self.flow_list.is_empty(), "{f}: flow: not used by hosts = \"pl2\"");
        ensure!(
            self.frame_sizes.is_none() && self.start_jitter_ns == 0.0 && self.gap_jitter_ns == 0.0,
            "{f}: frame_sizes, start_jitter_ns, gap_jitter_ns: not used by hosts = \"pl2\" (their data packets are one MTU, `frame_bytes`; message sizes are [pl2] sizes)"
        );
        for (i, m) in self.modes.iter().enumerate() {
            ensure!(PL2_MODES.contains(&m.as_str()), "{f}: modes: {m:?} is not one of {PL2_MODES:?} (hosts = \"pl2\")");
            ensure!(!self.modes[..i].contains(m), "{f}: modes: {m:?} is listed twice");
        }
        Ok(())
    }

    /// The number of senders: `senders`, or every port but the receiver.
    pub fn pl2_senders(&self, cfg: &Config) -> usize {
        if self.senders.is_empty() {
            self.scale(cfg).0 - 1
        } else {
            self.senders.len()
        }
    }

    /// The number of receivers: 1 for an incast; an outcast's `receivers`,
    /// or every port but the sender.
    pub fn pl2_receivers(&self, cfg: &Config) -> usize {
        match (self.traffic.as_str(), self.receivers.len()) {
            ("outcast", 0) => self.scale(cfg).0 - 1,
            ("outcast", n) | ("mix", n) => n,
            _ => 1,
        }
    }

    /// The runs of a PL2 scenario: `modes`, or `pl2-<the configuration's pl2.mode>`.
    pub fn pl2_modes(&self, cfg: &Config) -> Vec<String> {
        if self.modes.is_empty() {
            vec![format!("pl2-{}", cfg.pl2.mode)]
        } else {
            self.modes.clone()
        }
    }

    /// The closed loop [`run_incast`] runs for `mode`.
    pub fn pl2_incast(&self, cfg: &Config, mode: &str) -> Result<IncastConfig> {
        let p = self.pl2_hosts();
        let (alu_mode, host_mode) = match mode {
            "pl2-paper" => (Pl2Mode::Paper, HostMode::Pl2),
            "pl2-joint" => (Pl2Mode::Joint, HostMode::Pl2),
            "no-pl2" => (Pl2Mode::Paper, HostMode::Raw),
            m => return Err(anyhow!("{}: mode {m:?} is not one of {PL2_MODES:?}", self.source.display())),
        };
        let host = Pl2HostConfig {
            rate_gbps: cfg.datapath.port_gbps,
            mtu_bytes: self.frame_bytes as u32,
            k: p.k,
            t: p.t,
            rsv_grt_delay_ns: p.rsv_grt_delay_ns,
            first_burst_unsol: p.first_burst_unsol,
            mode: host_mode,
            ..Pl2HostConfig::default()
        };
        host.validate().map_err(|e| anyhow!("{}: {e}", self.source.display()))?;
        Ok(IncastConfig {
            senders: self.pl2_senders(cfg),
            receivers: self.pl2_receivers(cfg),
            flows: p.flows,
            messages: p.messages,
            packets: self.packets as u8,
            sizes: if p.sizes == "uniform" { Sizes::Uniform { seed: self.seed } } else { Sizes::Fixed },
            queue_cap: p.queue_packets.unwrap_or(QUEUE_PACKETS),
            one_way_ns: p.one_way_ns,
            host,
            alu: Pl2Config { mode: alu_mode, k: p.k, t_drop: p.t_drop, ..Pl2Config::default() },
        })
    }
}

/// Runs a `hosts = "pl2"` scenario in every one of its modes on the
/// Verilated switch of `cfg` ([`super::pl2_rtl`]).
pub fn run_all_rtl(cfg: &Config, sc: &Scenario) -> Result<Pl2Report> {
    sc.validate(cfg)?;
    let mut runs = vec![];
    for mode in sc.pl2_modes(cfg) {
        runs.push(super::pl2_rtl::run_rtl(cfg, sc, &mode)?);
    }
    Ok(Pl2Report { scenario: sc.clone(), config: cfg.source.display().to_string(), engine: "rtl".into(), runs })
}

/// Runs a `hosts = "pl2"` scenario in every one of its modes on the model.
pub fn run_all(cfg: &Config, sc: &Scenario) -> Result<Pl2Report> {
    sc.validate_pl2(cfg)?;
    let mut runs = vec![];
    for mode in sc.pl2_modes(cfg) {
        let ic = sc.pl2_incast(cfg, &mode)?;
        let report = run_incast(&ic).map_err(|e| anyhow!("{}: mode {mode}: {e}", sc.source.display()))?;
        runs.push(Pl2Run {
            mode,
            senders: ic.senders,
            receivers: ic.receivers,
            rate_gbps: ic.host.rate_gbps,
            slot_ns: ic.host.slot_ns(),
            report,
        });
    }
    Ok(Pl2Report { scenario: sc.clone(), config: cfg.source.display().to_string(), engine: "model".into(), runs })
}

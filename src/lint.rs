//! Verilator lint as a check.
//!
//! [`lint`] runs
//!
//! ```text
//! verilator --lint-only -Wall --top-module <top> [<waivers.vlt>] <file.v>
//! ```
//!
//! on one emitted Verilog file and collects the `%Warning-…` and `%Error…` lines
//! into a [`LintReport`].
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
    let warnings: Vec<String> = output.lines().filter(|l| l.starts_with("%Warning")).map(str::to_owned).collect();
    let errors: Vec<String> =
        output.lines().filter(|l| l.starts_with("%Error") && !l.starts_with("%Error: Exiting due to")).map(str::to_owned).collect();
    let ok = run.status.success() && warnings.is_empty() && errors.is_empty();
    Ok(LintReport { ok, warnings, errors, command, output })
}

/// Absolute form of an existing file's path (symlinks resolved).
fn absolute(path: &Path) -> Result<PathBuf> {
    if !path.is_file() {
        bail!("{} does not exist or is not a file", path.display());
    }
    Ok(path.canonicalize()?)
}

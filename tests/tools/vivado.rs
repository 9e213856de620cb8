//! The out-of-context Vivado flow (`trimswitch vivado`,
//! `bitstreams/vivado_ooc.tcl`), without Vivado: `tclsh` runs the script and
//! the generated constraints against stand-ins for Vivado's commands that
//! record their arguments, so the tests check what Vivado would be asked to
//! do: read the emitted top, constrain its real `clock` port at the
//! configuration's frequency, synthesize out of context for the
//! configuration's part, place, route, and write every report; and that a
//! wrong call stops with an error instead of running.
use anyhow::{ensure, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs `trimswitch vivado` for `config` into a fresh directory; returns it.
fn generate(config: &str, tag: &str) -> Result<PathBuf> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("vivado-{tag}"));
    let _ = std::fs::remove_dir_all(&out);
    let r = Command::new(env!("CARGO_BIN_EXE_trimswitch"))
        .args(["vivado", "--config", config, "--out"])
        .arg(&out)
        .current_dir(ROOT)
        .output()?;
    ensure!(r.status.success(), "trimswitch vivado failed: {}", String::from_utf8_lossy(&r.stderr));
    Ok(out.join("vivado"))
}

/// The port names of module `top` in `verilog`.
fn ports(verilog: &str, top: &str) -> Result<Vec<String>> {
    let head = verilog.split(&format!("module {top}(")).nth(1).context("no module header")?;
    Ok(head.split(')').next().unwrap_or("").split(',').map(|p| p.trim().to_string()).collect())
}

/// Runs `body` in tclsh after defining recording stand-ins for the Vivado
/// commands; returns (exit code, stdout, stderr). `get_ports NAME` fails
/// unless NAME is one of `ports`.
fn tcl(ports: &[String], body: &str) -> Result<(i32, String, String)> {
    let stubs = format!(
        r#"set ::calls {{}}
set ::ports {{{}}}
foreach cmd {{read_verilog read_xdc synth_design report_utilization opt_design place_design phys_opt_design route_design report_timing_summary report_design_analysis write_checkpoint create_clock set_input_delay set_output_delay}} {{
    proc $cmd args "lappend ::calls \[list $cmd {{*}}\$args\]; return {{}}"
}}
proc get_ports args {{
    if {{[lindex $args 0] eq "-filter"}} {{ return [list filtered [lindex $args 1]] }}
    foreach p $args {{ if {{[lsearch -exact $::ports $p] < 0}} {{ error "no port $p" }} }}
    return $args
}}
proc get_timing_paths args {{ return path }}
proc get_property {{name obj}} {{ return 0.250 }}
"#,
        ports.join(" ")
    );
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let script = dir.join(format!("vivado-driver-{}.tcl", std::process::id()));
    std::fs::write(&script, format!("{stubs}\n{body}\nforeach c $::calls {{ puts \"CALL $c\" }}\n"))?;
    let r = Command::new("tclsh").arg(&script).current_dir(ROOT).output().context("tclsh (apt-get install tcl; make toolchain)")?;
    Ok((r.status.code().unwrap_or(-1), String::from_utf8_lossy(&r.stdout).into_owned(), String::from_utf8_lossy(&r.stderr).into_owned()))
}

fn calls(stdout: &str) -> Vec<String> {
    stdout.lines().filter_map(|l| l.strip_prefix("CALL ")).map(String::from).collect()
}

/// Checks the generated files of `config` (top `top`, `part`, clock period
/// `period` ns) by running them through the stand-ins.
fn check(config: &str, tag: &str, top: &str, part: &str, period: &str) -> Result<()> {
    let dir = generate(config, tag)?;
    let verilog = std::fs::read_to_string(dir.join(format!("{top}.v")))?;
    let ports = ports(&verilog, top)?;
    ensure!(ports.iter().any(|p| p == "clock"), "{top} has no clock port: {ports:?}");
    // The constraints: valid Tcl, the real clock port, the configured period.
    let xdc = dir.join(format!("{top}_ooc.xdc"));
    let (code, out, err) = tcl(&ports, &format!("source {{{}}}", xdc.display()))?;
    ensure!(code == 0, "{}: {err}", xdc.display());
    let c = calls(&out);
    ensure!(
        c.iter().any(|l| l == &format!("create_clock -period {period} -name clock clock")),
        "no {period} ns clock on port clock: {c:?}"
    );
    ensure!(
        c.iter().any(|l| l.starts_with("set_input_delay -clock clock") && l.contains("DIRECTION == IN && NAME != clock")),
        "input delays: {c:?}"
    );
    ensure!(c.iter().any(|l| l.starts_with("set_output_delay -clock clock") && l.contains("DIRECTION == OUT")), "output delays: {c:?}");
    // The run: the command line of run_vivado.sh, through the script.
    let sh = std::fs::read_to_string(dir.join("run_vivado.sh"))?;
    let args = sh.split("-tclargs ").nth(1).context("no -tclargs in run_vivado.sh")?.trim();
    ensure!(args == format!("{top}.v {top} {part} {top}_ooc.xdc reports"), "run_vivado.sh arguments: {args}");
    ensure!(
        sh.contains(&format!("-source {}", Path::new(ROOT).join("bitstreams/vivado_ooc.tcl").display())),
        "run_vivado.sh does not source the script"
    );
    let body = format!("cd {{{}}}\nset argv {{{args}}}\nsource {{{ROOT}/bitstreams/vivado_ooc.tcl}}", dir.display());
    let (code, out, err) = tcl(&ports, &body)?;
    ensure!(code == 0, "vivado_ooc.tcl: {err}");
    let c = calls(&out);
    let order: Vec<&str> = c.iter().map(|l| l.split(' ').next().unwrap_or("")).collect();
    ensure!(
        order
            == [
                "read_verilog",
                "read_xdc",
                "synth_design",
                "report_utilization",
                "opt_design",
                "place_design",
                "phys_opt_design",
                "route_design",
                "report_timing_summary",
                "report_utilization",
                "report_design_analysis",
                "write_checkpoint"
            ],
        "command order: {order:?}"
    );
    ensure!(c[0] == format!("read_verilog {top}.v"), "{}", c[0]);
    ensure!(c[1] == format!("read_xdc -mode out_of_context {top}_ooc.xdc"), "{}", c[1]);
    ensure!(c[2] == format!("synth_design -top {top} -part {part} -mode out_of_context"), "{}", c[2]);
    for r in ["synth_utilization.rpt", "timing_summary.rpt", "utilization.rpt", "logic_levels.rpt", &format!("{top}.dcp")] {
        ensure!(c.iter().any(|l| l.ends_with(&format!("reports/{r}"))), "no report {r}: {c:?}");
    }
    ensure!(out.contains(&format!("trimswitch: {top} on {part}: WNS 0.250 ns")), "no WNS line: {out}");
    ensure!(dir.join("reports").is_dir(), "report directory not created");
    Ok(())
}

#[test]
fn netfpga_sume_switch_out_of_context() -> Result<()> {
    check("configs/netfpga-sume.toml", "sume", "ts_switch", "xc7vx690tffg1761-3", "5.000")
}

#[test]
fn alveo_u250_top_out_of_context() -> Result<()> {
    // Two pipelines; the clock is 322.265625 MHz.
    check("configs/alveo-u250.toml", "u250", "ts_switch", "xcu250-figd2104-2L-e", "3.103")
}

#[test]
fn wrong_calls_stop_with_an_error() -> Result<()> {
    let ports = vec!["clock".to_string()];
    let script = format!("{ROOT}/bitstreams/vivado_ooc.tcl");
    let (code, _, err) = tcl(&ports, &format!("set argv {{a b c}}\nsource {{{script}}}"))?;
    ensure!(code == 2 && err.contains("usage"), "3 arguments: exit {code}, {err}");
    let (code, out, err) = tcl(&ports, &format!("set argv {{missing.v top xc7 missing.xdc reports}}\nsource {{{script}}}"))?;
    ensure!(code == 2 && err.contains("missing.v: no such file") && calls(&out).is_empty(), "missing file: exit {code}, {err}");
    // A constraint on a port the block does not have fails.
    let (code, _, err) = tcl(&ports, "create_clock -period 5 -name clock [get_ports clk]")?;
    ensure!(code != 0 && err.contains("no port clk"), "stand-in get_ports accepted a wrong port: {err}");
    Ok(())
}

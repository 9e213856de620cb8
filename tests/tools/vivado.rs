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
/// commands; returns (exit code, stdout, stderr). `get_ports NAMES` fails
/// unless each name (a glob, brackets literal as Vivado's bus bits) matches
/// one of `ports`.
fn tcl(ports: &[String], body: &str) -> Result<(i32, String, String)> {
    let stubs = format!(
        r#"set ::calls {{}}
set ::ports {{{}}}
foreach cmd {{read_verilog read_xdc synth_design report_utilization opt_design place_design phys_opt_design route_design report_timing_summary report_design_analysis write_checkpoint create_clock set_input_delay set_output_delay}} {{
    proc $cmd args "lappend ::calls \[list $cmd {{*}}\$args\]; return {{}}"
}}
proc get_ports args {{
    if {{[lindex $args 0] eq "-filter"}} {{ return [list filtered [lindex $args 1]] }}
    set names [concat {{*}}$args]
    foreach p $names {{
        set g [string map {{[ \\[ ] \\]}} $p]
        set hit 0
        foreach q $::ports {{ if {{[string match $g $q]}} {{ set hit 1 }} }}
        if {{!$hit}} {{ error "no port $p" }}
    }}
    return $names
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

/// A board of `trimswitch vivado --board` and what its project must hold.
struct Board {
    board: &'static str,
    /// The configuration and its `--set`s the board is built with.
    config: &'static str,
    sets: &'static [&'static str],
    part: &'static str,
    /// Switch ports (each with its MAC counters in the board window).
    ports: usize,
    top: &'static str,
    core: &'static str,
    /// Top-level port bits.
    bits: usize,
    /// Name prefixes of the transceiver pins (a package pin, no I/O standard).
    mgt: &'static [&'static str],
    /// Clock input ports and their periods.
    clocks: &'static [(&'static str, &'static str)],
    /// The crossings' bound (ns; the Gray pointers', the hand-overs'): one
    /// period of the faster clock, and how many paths the XDC bounds so
    /// (none: the clocks are asynchronous groups instead).
    gray_ns: &'static str,
    bounds: usize,
    /// Stand-ins of the vendor's modules beside `boards/stubs/xilinx.v`.
    stubs: &'static [&'static str],
    /// The FrontPanel HDL directory the build reads (`FRONTPANEL_HDL`).
    frontpanel: bool,
    /// IP cores created: (IP, module).
    ips: &'static [(&'static str, &'static str)],
    /// IP settings that must be made: (module, "CONFIG.KEY VALUE").
    settings: &'static [(&'static str, &'static str)],
    /// Yosys `synth_xilinx -family`.
    family: &'static str,
    /// Black-box cells of the synthesized top and their counts.
    cells: &'static [(&'static str, u64)],
}

const SUME: Board = Board {
    board: "netfpga-sume",
    config: "configs/netfpga-sume.toml",
    sets: &[],
    part: "xc7vx690tffg1761-3",
    ports: 4,
    top: "sume_top",
    core: "ts_sume_switch",
    bits: 47,
    mgt: &["sfp_rx_", "sfp_tx_p", "sfp_tx_n", "sfp_refclk"],
    clocks: &[("sysclk_p", "5.000"), ("sfp_refclk_p", "6.400")],
    gray_ns: "5.000",
    bounds: 3,
    stubs: &[],
    frontpanel: false,
    ips: &[("ten_gig_eth_pcs_pma", "ten_gig_eth_pcs_pma_0"), ("ten_gig_eth_pcs_pma", "ten_gig_eth_pcs_pma_1"), ("jtag_axi", "jtag_axi_0")],
    settings: &[
        ("ten_gig_eth_pcs_pma_0", "CONFIG.SupportLevel 1"),
        ("ten_gig_eth_pcs_pma_1", "CONFIG.SupportLevel 0"),
        ("ten_gig_eth_pcs_pma_0", "CONFIG.base_kr BASE-R"),
        ("jtag_axi_0", "CONFIG.PROTOCOL 2"),
    ],
    family: "xc7",
    cells: &[
        ("ten_gig_eth_pcs_pma_0", 1),
        ("ten_gig_eth_pcs_pma_1", 3),
        ("jtag_axi_0", 1),
        ("MMCME2_BASE", 1),
        ("IOBUF", 2),
        ("ts_sume_switch", 1),
    ],
};

const U250: Board = Board {
    board: "alveo-u250",
    config: "configs/alveo-u250.toml",
    sets: &["ingress.fcs=mac"],
    part: "xcu250-figd2104-2L-e",
    ports: 2,
    top: "u250_top",
    core: "ts_u250_switch",
    bits: 47,
    mgt: &["qsfp0_rx_", "qsfp0_tx_p", "qsfp0_tx_n", "qsfp0_refclk", "qsfp1_rx_", "qsfp1_tx_p", "qsfp1_tx_n", "qsfp1_refclk"],
    clocks: &[("sysclk_p", "3.333"), ("qsfp0_refclk_p", "6.400"), ("qsfp1_refclk_p", "6.400")],
    gray_ns: "3.103",
    bounds: 3,
    stubs: &[],
    frontpanel: false,
    ips: &[
        ("cmac_usplus", "cmac_usplus_0"),
        ("cmac_usplus", "cmac_usplus_1"),
        ("jtag_axi", "jtag_axi_0"),
        ("axi_clock_converter", "axi_clock_converter_0"),
    ],
    settings: &[
        ("cmac_usplus_0", "CONFIG.CMAC_CORE_SELECT CMACE4_X0Y8"),
        ("cmac_usplus_0", "CONFIG.GT_GROUP_SELECT X1Y44~X1Y47"),
        ("cmac_usplus_1", "CONFIG.CMAC_CORE_SELECT CMACE4_X0Y7"),
        ("cmac_usplus_1", "CONFIG.GT_GROUP_SELECT X1Y40~X1Y43"),
        ("cmac_usplus_0", "CONFIG.USER_INTERFACE AXIS"),
        ("cmac_usplus_1", "CONFIG.INCLUDE_RS_FEC 1"),
        ("cmac_usplus_0", "CONFIG.GT_REF_CLK_FREQ 156.25"),
        ("cmac_usplus_1", "CONFIG.GT_DRP_CLK 100"),
        ("cmac_usplus_0", "CONFIG.ENABLE_AXI_INTERFACE 0"),
        ("jtag_axi_0", "CONFIG.PROTOCOL 2"),
        ("axi_clock_converter_0", "CONFIG.PROTOCOL AXI4LITE"),
    ],
    family: "xcup",
    cells: &[
        ("cmac_usplus_0", 1),
        ("cmac_usplus_1", 1),
        ("jtag_axi_0", 1),
        ("axi_clock_converter_0", 1),
        ("MMCME4_BASE", 1),
        ("BUFGCE_DIV", 1),
        ("ts_u250_switch", 1),
    ],
};

const XEM7010: Board = Board {
    board: "opalkelly-xem7010",
    config: "configs/opalkelly-xem7010.toml",
    sets: &[],
    part: "xc7a75tfgg484-1",
    ports: 2,
    top: "xem7010_top",
    core: "ts_xem7010_switch",
    bits: 38,
    mgt: &[],
    clocks: &[("sys_clk_p", "5.000"), ("hi_in[0]", "20.830")],
    gray_ns: "-",
    bounds: 0,
    stubs: &["boards/stubs/opalkelly.v"],
    frontpanel: true,
    ips: &[],
    settings: &[],
    family: "xc7",
    cells: &[
        ("okHost", 1),
        ("okWireOR", 1),
        ("okWireIn", 5),
        ("okWireOut", 3),
        ("okTriggerIn", 1),
        ("okTriggerOut", 1),
        ("MMCME2_BASE", 1),
        ("ts_xem7010_switch", 1),
    ],
};

/// Runs `trimswitch vivado --board` for `b` into a fresh directory of the
/// check `check` (each check its own: tests run in parallel, and one
/// removes a file); returns it.
fn generate_board(b: &Board, check: &str) -> Result<PathBuf> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("vivado-board-{}-{check}", b.board));
    let _ = std::fs::remove_dir_all(&out);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_trimswitch"));
    cmd.args(["vivado", "--board", b.board, "--config", b.config]);
    for s in b.sets {
        cmd.args(["--set", s]);
    }
    let r = cmd.arg("--out").arg(&out).current_dir(ROOT).output()?;
    ensure!(r.status.success(), "trimswitch vivado --board {} failed: {}", b.board, String::from_utf8_lossy(&r.stderr));
    Ok(out.join(format!("vivado-{}", b.board)))
}

/// The ports of a hand-written Verilog module, one name per bit
/// (`sfp_rx_p[0]`..), with their direction.
fn port_bits(verilog: &str, top: &str) -> Result<Vec<(String, String)>> {
    let head = verilog.split(&format!("module {top} (")).nth(1).context("no module header")?;
    let head = head.split(");").next().unwrap_or("");
    let mut out = vec![];
    for line in head.lines() {
        let code = line.split("//").next().unwrap_or("").trim().trim_end_matches(',');
        let words: Vec<&str> = code.split_whitespace().collect();
        let Some(dir) = words.first().filter(|d| ["input", "output", "inout"].contains(d)) else { continue };
        let name = words.last().context("port name")?.to_string();
        match words.iter().find(|w| w.starts_with('[')) {
            Some(range) => {
                let (hi, lo) = range.trim_matches(|c| c == '[' || c == ']').split_once(':').context("range")?;
                for i in lo.parse::<usize>()?..=hi.parse::<usize>()? {
                    out.push((format!("{name}[{i}]"), dir.to_string()));
                }
            }
            None => out.push((name, dir.to_string())),
        }
    }
    Ok(out)
}

/// Every top-level port of the board's top has one package pin of its own
/// and, unless it is a transceiver pin, an I/O standard; each clock input
/// has its period; the Gray pointers' crossings are bounded (not cut); the
/// constraints are valid Tcl against the real port names.
fn pins_and_clocks(b: &Board) -> Result<()> {
    let dir = generate_board(b, "pins")?;
    let top = std::fs::read_to_string(dir.join(format!("{}.v", b.top)))?;
    let bits = port_bits(&top, b.top)?;
    ensure!(bits.len() == b.bits, "{} port bits: {bits:?}", bits.len());
    let names: Vec<String> = bits.iter().map(|b| b.0.clone()).collect();
    let body = format!(
        r#"proc set_property args {{
    if {{[lindex $args 0] eq "-dict"}} {{ set d [lindex $args 1]; set objs [lindex $args 2] }} else {{ set d [list [lindex $args 0] [lindex $args 1]]; set objs [lindex $args 2] }}
    foreach o $objs {{ foreach {{k v}} $d {{ lappend ::calls [list prop $o $k $v] }} }}
}}
proc current_design args {{ return design }}
proc get_cells args {{ return cells }}
proc set_max_delay args {{ lappend ::calls [list set_max_delay {{*}}$args] }}
proc set_false_path args {{ lappend ::calls [list set_false_path {{*}}$args] }}
proc set_multicycle_path args {{ lappend ::calls [list set_multicycle_path {{*}}$args] }}
proc set_clock_groups args {{ lappend ::calls [list set_clock_groups {{*}}$args] }}
proc get_clocks args {{ return $args }}
source {{{}}}"#,
        dir.join(format!("{}.xdc", b.top)).display()
    );
    let (code, out, err) = tcl(&names, &body)?;
    ensure!(code == 0, "{}.xdc: {err}", b.top);
    let c = calls(&out);
    let prop = |port: &str, key: &str| -> Vec<String> {
        c.iter()
            .filter_map(|l| {
                let w: Vec<&str> = l.splitn(4, ' ').collect();
                (w.len() == 4 && w[0] == "prop" && w[1].trim_matches(|x| x == '{' || x == '}') == port && w[2] == key)
                    .then(|| w[3].to_string())
            })
            .collect()
    };
    let mut pins = std::collections::BTreeMap::new();
    for (name, _) in &bits {
        let p = prop(name, "PACKAGE_PIN");
        ensure!(p.len() == 1, "{name}: package pins {p:?}");
        if let Some(other) = pins.insert(p[0].clone(), name.clone()) {
            bail_dup(&p[0], &other, name)?;
        }
        let mgt = b.mgt.iter().any(|m| name.starts_with(m));
        let io = prop(name, "IOSTANDARD");
        ensure!(mgt == io.is_empty(), "{name}: I/O standard {io:?} (transceiver pin: {mgt})");
    }
    for (clock, period) in b.clocks {
        ensure!(
            c.iter().any(|l| l.starts_with(&format!("create_clock -period {period}")) && l.replace(['{', '}', '\\'], "").ends_with(clock)),
            "no {period} ns clock on {clock}"
        );
    }
    // The pointer crossings and the hand-overs are bounded, not cut.
    let bound = format!("set_max_delay -datapath_only {}", b.gray_ns);
    ensure!(c.iter().filter(|l| l.starts_with(&bound)).count() == b.bounds, "Gray pointer and hand-over constraints: {c:?}");
    // A board whose crossings are all quasi-static or inside the vendor's
    // modules declares its clocks asynchronous instead.
    if b.bounds == 0 {
        ensure!(c.iter().any(|l| l.starts_with("set_clock_groups -asynchronous")), "no asynchronous clock groups: {c:?}");
    }
    Ok(())
}

fn bail_dup(pin: &str, a: &str, b: &str) -> Result<()> {
    anyhow::bail!("pin {pin} given to {a} and {b}")
}

/// The board's build script, run in tclsh against recording stand-ins (and
/// the register map beside it, with the board window): it
/// creates the IP cores with their settings, synthesizes the top for the
/// part, implements, reports, writes the bitstream; a negative slack stops
/// it before the bitstream, and a missing input before anything.
fn build_script(b: &Board) -> Result<()> {
    let dir = generate_board(b, "build")?;
    // The project carries the register map as the board's core decodes it:
    // the switch's map and, from 0x40000, every port's MAC counters.
    let h = std::fs::read_to_string(dir.join("trimswitch_regs.h"))?;
    ensure!(h.contains("#define TS_ADDR_BITS 19u") && h.contains("#define TS_BOARD_BASE 0x40000u"), "board window missing: {h}");
    let w = trimswitch_hdl::board::board_window(b.board).context("no board window")?;
    let ports = b.ports;
    let before = w.controls.len() + w.globals.len();
    for (i, (name, _)) in w.per_port.iter().enumerate() {
        let n = name.to_ascii_uppercase();
        ensure!(
            h.contains(&format!("#define TS_BOARD_{n}(i) (0x{:05x}u + (i) * 0x{:x}u)", 0x40000 + 4 * (before + i), 4 * w.per_port.len())),
            "TS_BOARD_{n}"
        );
        ensure!(h.contains(&format!("#define TS_BOARD_{n}_COUNT {ports}u")), "TS_BOARD_{n} count");
    }
    let sh = std::fs::read_to_string(dir.join("run_vivado.sh"))?;
    ensure!(sh.contains(&format!("-source build.tcl -tclargs {} reports", b.part)), "run_vivado.sh: {sh}");
    // FrontPanel's HDL, as the SDK has it: a stand-in directory.
    let fp = dir.join("frontpanel-hdl");
    std::fs::create_dir_all(&fp)?;
    std::fs::write(fp.join("okLibrary.v"), "// stand-in\n")?;
    let env = |fp: &Path| if b.frontpanel { format!("set ::env(FRONTPANEL_HDL) {{{}}}\n", fp.display()) } else { String::new() };
    let stubs = |slack: &str| {
        format!(
            r#"{}foreach cmd {{create_project create_ip set_property generate_target synth_ip opt_design place_design phys_opt_design route_design report_timing_summary report_utilization report_clock_interaction write_bitstream current_project}} {{
    proc $cmd args "lappend ::calls \[list $cmd {{*}}\$args\]; return {{}}"
}}
proc get_ips args {{ return $args }}
proc get_property {{name obj}} {{ return {slack} }}
cd {{{}}}
set argv {{{} reports}}
source build.tcl"#,
            env(&fp),
            dir.display(),
            b.part
        )
    };
    let (code, out, err) = tcl(&[], &stubs("0.120"))?;
    ensure!(code == 0, "build.tcl: {err}");
    let c = calls(&out);
    let ips: Vec<&String> = c.iter().filter(|l| l.starts_with("create_ip")).collect();
    ensure!(ips.len() == b.ips.len(), "{ips:?}");
    for (ip, module) in b.ips {
        ensure!(ips.iter().any(|l| l.contains(&format!("-name {ip} ")) && l.ends_with(&format!("-module_name {module}"))), "no {module}");
    }
    let cfg = |module: &str, kv: &str| c.iter().any(|l| l.starts_with("set_property -dict") && l.contains(kv) && l.ends_with(module));
    for (module, kv) in b.settings {
        ensure!(cfg(module, kv), "{module}: no {kv}: {c:?}");
    }
    let order: Vec<&str> = c
        .iter()
        .map(|l| l.split(' ').next().unwrap_or(""))
        .filter(|w| !["create_ip", "set_property", "current_project"].contains(w))
        .collect();
    // The IP cores are generated first; FrontPanel's modules read first.
    let first: &[&str] = match (b.ips.is_empty(), b.frontpanel) {
        (false, false) => &["create_project", "generate_target", "synth_ip"],
        (true, true) => &["create_project", "read_verilog"],
        _ => anyhow::bail!("{}: a board with both IP cores and FrontPanel is not checked", b.board),
    };
    ensure!(order.starts_with(first), "command order: {order:?}");
    if b.frontpanel {
        let lib = fp.join("okLibrary.v");
        ensure!(c.iter().any(|l| l == &format!("read_verilog {}", lib.display())), "FrontPanel's HDL not read: {c:?}");
    }
    ensure!(
        order[first.len()..]
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
                "report_clock_interaction",
                "write_bitstream"
            ],
        "command order: {order:?}"
    );
    ensure!(c.iter().any(|l| l == &format!("read_verilog {{{}.v {}.v}}", b.core, b.top)), "{c:?}");
    ensure!(c.iter().any(|l| l == &format!("synth_design -top {} -part {}", b.top, b.part)), "{c:?}");
    ensure!(c.iter().any(|l| l == &format!("write_bitstream -force reports/{}.bit", b.top)), "{c:?}");
    // A negative slack stops before the bitstream.
    let (code, out, err) = tcl(&[], &stubs("-0.050"))?;
    ensure!(
        code == 1 && err.contains("timing not met") && !calls(&out).iter().any(|l| l.starts_with("write_bitstream")),
        "negative slack: {code} {err}"
    );
    if b.frontpanel {
        // Without FrontPanel's HDL, or with a directory that lacks it: stops
        // before anything, naming what is missing.
        let (code, out, err) = tcl(&[], &stubs("0.1").replace(&env(&fp), ""))?;
        ensure!(code == 2 && err.contains("FRONTPANEL_HDL is not set") && calls(&out).is_empty(), "no FRONTPANEL_HDL: {code} {err}");
        let (code, out, err) = tcl(&[], &stubs("0.1").replace(&env(&fp), &env(&dir.join("nowhere"))))?;
        ensure!(code == 2 && err.contains("no okLibrary.v there") && calls(&out).is_empty(), "wrong FRONTPANEL_HDL: {code} {err}");
    }
    std::fs::remove_file(dir.join(format!("{}.xdc", b.top)))?;
    let (code, out, err) = tcl(&[], &stubs("0.1"))?;
    ensure!(code == 2 && err.contains(&format!("{}.xdc: no such file", b.top)) && calls(&out).is_empty(), "missing XDC: {code} {err}");
    Ok(())
}

/// The board top lints clean (Verilator -Wall) with the switch it wraps and
/// the stand-ins of the vendor primitives and IP: every instance's ports
/// exist and are of the right widths. The one lint of the board's core and
/// of the switch inside it (each a whole switch: linting them apart too
/// costs CI 15 s each).
fn lints_against_the_vendor_stubs(b: &Board) -> Result<()> {
    let dir = generate_board(b, "lint")?;
    let mut files: Vec<PathBuf> = [&"boards/stubs/xilinx.v"].into_iter().chain(b.stubs).map(|s| Path::new(ROOT).join(s)).collect();
    files.push(dir.join(format!("{}.v", b.top)));
    files.push(dir.join(format!("{}.v", b.core)));
    let waivers = Path::new(ROOT).join("hdl/lint/verilator_waivers.vlt");
    let files: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let r = trimswitch::lint::lint_files(&files, b.top, Some(&waivers))?;
    ensure!(r.ok, "{:?} {:?}", r.errors, r.warnings);
    Ok(())
}

/// The board top synthesizes in Yosys (Debian's native 0.23, `synth_xilinx`)
/// with the vendor primitives and IP cores as black boxes
/// (`boards/stubs/xilinx.v`) and the board's core as one too (its ports
/// only: the switch's own synthesis is the catalogue's, `trimswitch synth`):
/// every instance resolves against its box, and the netlist holds each
/// expected cell as often as expected.
fn synthesizes_with_the_ip_as_black_boxes(b: &Board) -> Result<()> {
    let dir = generate_board(b, "synth")?;
    // The core as a black box: its module header and port declarations.
    let v = std::fs::read_to_string(dir.join(format!("{}.v", b.core)))?;
    let body = &v[v.find(&format!("module {}(", b.core)).with_context(|| format!("no {} module", b.core))?..];
    let head = &body[..=body.find(';').context("module header")?];
    let decls: Vec<String> = body[head.len()..]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .take_while(|l| l.starts_with("input ") || l.starts_with("output "))
        .map(|l| l.replace("output reg", "output wire"))
        .collect();
    let names = head.split('(').nth(1).unwrap_or("").split(',').count();
    ensure!(decls.len() == names, "{} port declarations for the {names} ports of {head}", decls.len());
    let bb = dir.join(format!("{}_box.v", b.core));
    std::fs::write(&bb, format!("(* blackbox *)\n{head}\n{}\nendmodule\n", decls.join("\n")))?;
    let script = dir.join("box.ys");
    std::fs::write(
        &script,
        format!(
            "read_verilog -lib {ROOT}/boards/stubs/xilinx.v\n{}read_verilog -lib {}\nread_verilog {}\nhierarchy -check -top {top}\nsynth_xilinx -family {} -top {top}\nstat\n",
            b.stubs.iter().map(|s| format!("read_verilog -lib {ROOT}/{s}\n")).collect::<String>(),
            bb.display(),
            dir.join(format!("{}.v", b.top)).display(),
            b.family,
            top = b.top
        ),
    )?;
    let log = dir.join("box.log");
    let r =
        Command::new("yosys").arg("-q").arg("-l").arg(&log).arg("-s").arg(&script).output().context("yosys (Debian's; make toolchain)")?;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    ensure!(r.status.success(), "yosys failed: {}", text.lines().rev().take(5).collect::<Vec<_>>().join(" | "));
    let count = |cell: &str| -> u64 {
        text.lines()
            .filter_map(|l| l.split_whitespace().collect::<Vec<_>>().get(..2).map(|w| (w[0].to_string(), w[1].to_string())))
            .find(|(c, _)| c == cell)
            .and_then(|(_, n)| n.parse().ok())
            .unwrap_or(0)
    };
    for (cell, n) in b.cells {
        ensure!(count(cell) == *n, "{cell}: {} cells, {n} expected", count(cell));
    }
    Ok(())
}

/// The NetFPGA-SUME project (issue 18).
#[test]
fn sume_board_every_port_has_a_pin_and_every_clock_a_period() -> Result<()> {
    pins_and_clocks(&SUME)
}

#[test]
fn sume_board_build_script() -> Result<()> {
    build_script(&SUME)
}

#[test]
fn sume_board_top_lints_against_the_vendor_stubs() -> Result<()> {
    lints_against_the_vendor_stubs(&SUME)
}

#[test]
fn sume_board_top_synthesizes_with_the_ip_as_black_boxes() -> Result<()> {
    synthesizes_with_the_ip_as_black_boxes(&SUME)
}

/// The Alveo U250 project (issue 18): the same checks, and its clocks'
/// arithmetic.
#[test]
fn u250_board_every_port_has_a_pin_and_every_clock_a_period() -> Result<()> {
    pins_and_clocks(&U250)
}

#[test]
fn u250_board_build_script() -> Result<()> {
    build_script(&U250)
}

#[test]
fn u250_board_top_lints_against_the_vendor_stubs() -> Result<()> {
    lints_against_the_vendor_stubs(&U250)
}

#[test]
fn u250_board_top_synthesizes_with_the_ip_as_black_boxes() -> Result<()> {
    synthesizes_with_the_ip_as_black_boxes(&U250)
}

/// The Opal Kelly XEM7010 project (issue 18): the same checks, and its
/// clock's arithmetic.
#[test]
fn xem7010_board_every_port_has_a_pin_and_every_clock_a_period() -> Result<()> {
    pins_and_clocks(&XEM7010)
}

#[test]
fn xem7010_board_build_script() -> Result<()> {
    build_script(&XEM7010)
}

#[test]
fn xem7010_board_top_lints_against_the_vendor_stubs() -> Result<()> {
    lints_against_the_vendor_stubs(&XEM7010)
}

#[test]
fn xem7010_board_top_synthesizes_with_the_ip_as_black_boxes() -> Result<()> {
    synthesizes_with_the_ip_as_black_boxes(&XEM7010)
}

/// The XEM7010 top's MMCM makes exactly the configuration's clock from
/// the 200 MHz oscillator, its VCO in the Artix-7 -1 MMCME2's range
/// (600..1200 MHz) and its phase detector at 10 MHz or more; the core
/// refuses another clock, naming the key.
#[test]
fn xem7010_board_clock_is_exact() -> Result<()> {
    let top = std::fs::read_to_string(Path::new(ROOT).join("boards/opalkelly-xem7010/xem7010_top.v"))?;
    let param = |name: &str| -> Result<f64> {
        let at = top.find(&format!(".{name}(")).with_context(|| format!("no {name} in xem7010_top.v"))?;
        let rest = &top[at + name.len() + 2..];
        Ok(rest[..rest.find(')').context("parameter")?].parse()?)
    };
    let (period, d, m, o) = (param("CLKIN1_PERIOD")?, param("DIVCLK_DIVIDE")?, param("CLKFBOUT_MULT_F")?, param("CLKOUT0_DIVIDE_F")?);
    let osc = 1000.0 / period;
    ensure!((osc - trimswitch_hdl::board::xem7010::OSC_MHZ).abs() < 0.01, "CLKIN1_PERIOD {period}: not the 200 MHz oscillator");
    let (pfd, vco) = (osc / d, osc * m / d);
    ensure!(pfd >= 10.0 && (600.0..=1200.0).contains(&vco), "PFD {pfd} MHz, VCO {vco} MHz");
    let cfg = trimswitch_hdl::config::Config::load(Path::new(ROOT).join(XEM7010.config).as_path())?;
    ensure!(vco / o == cfg.target.clock_mhz, "the MMCM makes {} MHz, the configuration says {}", vco / o, cfg.target.clock_mhz);
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vivado-board-xem7010-check");
    let r = Command::new(env!("CARGO_BIN_EXE_trimswitch"))
        .args(["vivado", "--board", "opalkelly-xem7010", "--config", XEM7010.config, "--set", "target.clock_mhz=125", "--out"])
        .arg(&out)
        .current_dir(ROOT)
        .output()?;
    let err = String::from_utf8_lossy(&r.stderr);
    ensure!(
        !r.status.success() && err.contains("target.clock_mhz = 125") && err.contains("MMCM"),
        "another clock accepted or unclear: {err}"
    );
    Ok(())
}

/// The U250 top's clocks are what the core and the CMACs are built for:
/// the MMCM makes exactly the configuration's switch clock (322.265625
/// MHz) from the 300 MHz system clock with its VCO and phase detector in
/// the MMCME4's ranges (800..1600 MHz, >= 10 MHz) and its multiplier on the
/// 1/8 grid; the management clock (300 / BUFGCE_DIVIDE) is the CMACs'
/// `GT_DRP_CLK`. The core refuses a configuration whose FCS is not the
/// CMAC's to remove, naming the key and the fix.
#[test]
fn u250_board_clocks_are_exact_and_the_fcs_mode_checked() -> Result<()> {
    let top = std::fs::read_to_string(Path::new(ROOT).join("boards/alveo-u250/u250_top.v"))?;
    let param = |name: &str| -> Result<f64> {
        let at = top.find(&format!(".{name}(")).with_context(|| format!("no {name} in u250_top.v"))?;
        let rest = &top[at + name.len() + 2..];
        Ok(rest[..rest.find(')').context("parameter")?].parse()?)
    };
    let (period, d, m, o) = (param("CLKIN1_PERIOD")?, param("DIVCLK_DIVIDE")?, param("CLKFBOUT_MULT_F")?, param("CLKOUT0_DIVIDE_F")?);
    let sys = 300.0;
    ensure!((1000.0 / period - sys).abs() < 0.1, "CLKIN1_PERIOD {period} is not the 300 MHz clock's");
    let (pfd, vco) = (sys / d, sys * m / d);
    ensure!(pfd >= 10.0 && (800.0..=1600.0).contains(&vco), "PFD {pfd} MHz, VCO {vco} MHz");
    ensure!((m * 8.0).fract() == 0.0 && (o * 8.0).fract() == 0.0, "M {m}, O {o}: not on the 1/8 grid");
    let cfg = trimswitch_hdl::config::Config::load(Path::new(ROOT).join(U250.config).as_path())?;
    ensure!(vco / o == cfg.target.clock_mhz, "the MMCM makes {} MHz, the configuration says {}", vco / o, cfg.target.clock_mhz);
    let div = param("BUFGCE_DIVIDE")?;
    let tcl = std::fs::read_to_string(Path::new(ROOT).join("boards/alveo-u250/build.tcl"))?;
    ensure!(tcl.contains(&format!("CONFIG.GT_DRP_CLK {{{}}}", sys / div)), "the management clock is {} MHz", sys / div);
    // Without `--set ingress.fcs=mac`: refused, naming the key.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vivado-board-u250-check");
    let r = Command::new(env!("CARGO_BIN_EXE_trimswitch"))
        .args(["vivado", "--board", "alveo-u250", "--config", U250.config, "--out"])
        .arg(&out)
        .current_dir(ROOT)
        .output()?;
    let err = String::from_utf8_lossy(&r.stderr);
    ensure!(
        !r.status.success() && err.contains("ingress.fcs = \"check\"") && err.contains("--set ingress.fcs=mac"),
        "fcs = check accepted or unclear: {err}"
    );
    Ok(())
}

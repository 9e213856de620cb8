//! SymbiYosys proofs of `ts_pkt_fifo` and bounded checks of the traffic
//! manager's admission on `ts_tm_core` (see `src/formal.rs`, `formal/` and
//! docs/verification.md "Formal"). Runs every job of `trimswitch formal`, two
//! at a time: the proofs must PASS, and the mutants (a wrong design or a wrong
//! property) must FAIL on the assertion they break, so this test can fail.
//! Needs the tools of `scripts/toolchain.sh` (yowasp-sby, yices-smt2 in .venv);
//! without them it fails naming the missing tool. About 4 minutes on 2 cores.
use std::path::Path;
use std::time::Duration;
use trimswitch::formal::{check_tools, jobs, run_jobs, Expect};

#[test]
fn pkt_fifo_proofs_pass_and_mutants_fail() {
    check_tools().unwrap_or_else(|e| panic!("formal tools missing: {e:#}"));
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("formal");
    let jobs = jobs();
    assert!(jobs.iter().any(|j| j.expect == Expect::Pass) && jobs.iter().any(|j| j.expect == Expect::Fail));
    // A job's limit only guards against a hung solver: the slowest (tm_bmc,
    // about 100 s of CPU alone) took over 420 s of wall time beside other
    // tests and place-and-route on 2 cores (2026-11-27), so a loaded machine
    // must not fail it. nextest stops the whole test after 20 minutes.
    let results = run_jobs(&jobs, &work, Duration::from_secs(900)).expect("jobs ran");
    let mut bad = vec![];
    for (j, r) in jobs.iter().zip(&results) {
        println!("{:<22} {:?} depth {:<3} {:<8} {:>6.1} s  failed: {:?}", r.name, r.mode, r.depth, r.status, r.seconds, r.failed);
        if !r.ok() {
            bad.push(format!("{}: {} but expected {:?} (log {})", r.name, r.status, j.expect, r.dir.join("sby.log").display()));
        }
        // A mutant must fail for the reason it was made, not for a broken setup.
        let want: &[&str] = match j.name {
            "mut_depth" => &["pkt_fifo_inv.svh"],
            "mut_abort_ignored" => &["axis_pkt_props.svh"],
            "mut_prop_last" => &["axis_pkt_props.svh"],
            "tm_mut_word_limit" => &["tm_props.svh"],
            "tm_mut_free_per_beat" => &["tm_props.svh"],
            "tm_mut_occ_floor" => &["tm_props.svh"],
            "tm_mut_no_bypass" => &["tm_props.svh"],
            _ => &[],
        };
        for w in want {
            if !r.failed.iter().any(|f| f.starts_with(w)) {
                bad.push(format!("{}: no failed assertion in {w}: {:?}", r.name, r.failed));
            }
        }
        if j.expect == Expect::Pass && !r.failed.is_empty() {
            bad.push(format!("{}: passed but lists failed assertions {:?}", r.name, r.failed));
        }
    }
    assert!(bad.is_empty(), "formal jobs:\n{}", bad.join("\n"));
}

#[test]
fn prepare_adds_probe_and_includes_and_drops_initial_blocks() {
    let v = trimswitch::formal::emit_small_pkt_fifo().unwrap();
    assert!(v.contains("initial begin"), "rust-hdl DFFs emit initial blocks");
    let p = trimswitch::formal::prepare(&v, "ts_pkt_fifo", "localparam F_X = 1;\n", &["a.svh", "b.svh"]).unwrap();
    assert!(!p.contains("initial begin"));
    assert!(p.contains("module ts_pkt_fifo__ram(clock,write_enable,write_address,write_data,read_enable,read_address,read_data,f_mem);"));
    assert!(p.contains("output wire [215:0] f_mem;"), "8 words of 27 bits");
    assert!(p.contains("wire [215:0] ram__f_mem;") && p.contains(".f_mem(ram__f_mem)"));
    assert!(p.contains(".f_mem(len_ram__f_mem)"), "every RAM gets the probe");
    let inc = "`ifdef FORMAL\nlocalparam F_X = 1;\n`include \"a.svh\"\n`include \"b.svh\"\n`endif\nendmodule // ts_pkt_fifo\n";
    assert!(p.contains(inc));
    assert!(trimswitch::formal::prepare(&v, "ts_other", "", &[]).is_err());
}

#[test]
fn tm_core_emits_and_prepares() {
    let v = trimswitch::formal::emit_small_tm_core().unwrap();
    std::fs::write(Path::new(env!("CARGO_TARGET_TMPDIR")).join("ts_tm_core.v"), &v).unwrap();
    let p = trimswitch::formal::prepare_tm_core(&v).unwrap();
    assert!(!p.contains("initial begin"));
    assert_eq!(p.matches("`include \"tm_fifo_inv.svh\"").count(), 4, "one per queue FIFO");
    assert_eq!(p.matches("`include \"tm_props.svh\"").count(), 1);
}

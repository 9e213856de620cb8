//! The Python package (issue 17, `py/`, `docs/python.md`): its pytest suite
//! (`py/tests`) run as one test, against the package `make py` installed
//! into `.venv` (`make test` does that first).
use std::path::Path;
use std::process::Command;

/// `pytest py/tests`: the switch driven with scapy frames and checked
/// against the golden model from Python, the registers by name, pcap files,
/// and every bad input raising an exception that names it.
#[test]
fn pytest_suite_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join(".venv/bin/python");
    let import = Command::new(&python).args(["-c", "import trimswitch._native"]).current_dir(root).output();
    let import = import.unwrap_or_else(|e| panic!("{}: {e} (`make toolchain`)", python.display()));
    assert!(
        import.status.success(),
        "the Python package is not installed in .venv (`make py` builds it):\n{}",
        String::from_utf8_lossy(&import.stderr)
    );
    let out = Command::new(&python)
        .args(["-m", "pytest", "py/tests", "-q", "-p", "no:cacheprovider", "-r", "fEs"])
        .current_dir(root)
        .output()
        .expect("running pytest");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{text}");
    assert!(out.status.success(), "pytest failed ({}):\n{text}", out.status);
    // Every test ran: a skipped or deselected test is not a pass.
    let summary = text.lines().rev().find(|l| l.contains(" passed")).unwrap_or_default();
    assert!(!summary.contains("skipped") && !summary.contains("deselected") && !summary.contains("xfail"), "{summary}");
}

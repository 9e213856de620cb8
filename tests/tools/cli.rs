//! The command line as a new user meets it: the README's command table against
//! every subcommand's `--help`, and bad input named by file, line, key or
//! argument.
use anyhow::{ensure, Context, Result};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn trimswitch(args: &[&str]) -> Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_trimswitch")).args(args).current_dir(root()).output().context("running trimswitch")
}

/// The long options a `--help` text lists (`--config`, `--set`, ...).
fn options_of_help(text: &str) -> BTreeSet<String> {
    let mut v = BTreeSet::new();
    for line in text.lines() {
        let t = line.trim_start();
        let t = t.strip_prefix("-h, ").unwrap_or(t);
        if let Some(rest) = t.strip_prefix("--") {
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
            v.insert(format!("--{name}"));
        }
    }
    v
}

/// The subcommands `trimswitch --help` lists.
fn subcommands() -> Result<Vec<String>> {
    let out = trimswitch(&["--help"])?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut v = vec![];
    let mut in_cmds = false;
    for line in text.lines() {
        if line.starts_with("Commands:") {
            in_cmds = true;
        } else if in_cmds && line.starts_with("  ") {
            let name = line.split_whitespace().next().unwrap_or_default().to_string();
            if name != "help" {
                v.push(name);
            }
        } else if in_cmds {
            break;
        }
    }
    ensure!(v.len() >= 10, "too few subcommands in --help: {v:?}");
    Ok(v)
}

/// Every subcommand has a row in the README's command table, and that row
/// names exactly the options its `--help` lists, beyond the ones the
/// sentence under the table promises (`--out` for all, `--config` and `--set`
/// for all but `formal` and `bench`).
#[test]
fn readme_command_table_matches_help() -> Result<()> {
    let readme = std::fs::read_to_string(root().join("README.md"))?;
    let table: Vec<&str> =
        readme.lines().skip_while(|l| !l.starts_with("## Commands")).filter(|l| l.starts_with("| `trimswitch ")).collect();
    for cmd in subcommands()? {
        let row = table
            .iter()
            .find(|l| l.starts_with(&format!("| `trimswitch {cmd}`")) || l.starts_with(&format!("| `trimswitch {cmd} ")))
            .with_context(|| format!("README's command table has no row for `trimswitch {cmd}`"))?;
        let usage = row.split('`').nth(1).unwrap_or_default();
        let in_row: BTreeSet<String> = usage
            .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
            .filter(|w| w.starts_with("--"))
            .map(|w| w.to_string())
            .collect();
        let help = trimswitch(&[cmd.as_str(), "--help"])?;
        ensure!(help.status.success(), "trimswitch {cmd} --help failed");
        let mut in_help = options_of_help(&String::from_utf8_lossy(&help.stdout));
        in_help.remove("--help");
        let global: &[&str] = match cmd.as_str() {
            "formal" | "bench" => &["--out"],
            "ok" => &[],
            _ => &["--out", "--config", "--set"],
        };
        for g in global {
            ensure!(in_help.remove(*g), "trimswitch {cmd} does not take {g}, which the README says every such command does");
        }
        let missing: Vec<_> = in_help.difference(&in_row).collect();
        let extra: Vec<_> = in_row.difference(&in_help).filter(|o| !global.contains(&o.as_str())).collect();
        ensure!(missing.is_empty(), "README row of `trimswitch {cmd}` lacks {missing:?}");
        ensure!(extra.is_empty(), "README row of `trimswitch {cmd}` names {extra:?}, which --help does not list");
    }
    Ok(())
}

/// `trimswitch ok` names a bad command or number before it looks for a
/// device; built without the `opalkelly` feature (as the CI builds it), a
/// good command says what to build and what it needs.
#[test]
fn ok_names_bad_input() -> Result<()> {
    for (args, want) in [
        (&["ok"][..], "expected `read ADDR` or `write ADDR DATA`"),
        (&["ok", "read"][..], "expected `read ADDR` or `write ADDR DATA`"),
        (&["ok", "peek", "0x10"][..], "expected `read ADDR` or `write ADDR DATA`"),
        (&["ok", "read", "0x1_0000"][..], "address \"0x1_0000\": not a 32-bit number"),
        (&["ok", "write", "16", "0x100000000"][..], "data \"0x100000000\": not a 32-bit number"),
        (&["ok", "--load", "no/such.bit", "read", "0x10"][..], "--load no/such.bit: no such file"),
        (&["ok", "read", "0x40004"][..], "built without FrontPanel: build it with `cargo build --release --features opalkelly`"),
    ] {
        let out = trimswitch(args)?;
        let err = String::from_utf8_lossy(&out.stderr);
        ensure!(!out.status.success() && err.contains(want), "trimswitch {args:?}: {err}");
    }
    Ok(())
}

/// The `opalkelly` feature (FrontPanel through rust-hdl-ok-frontpanel-sys:
/// `trimswitch ok`'s device; the XEM7010's BSP) against a stand-in of
/// Opal Kelly's SDK (`tests/fixtures/frontpanel-standin/`: our declarations
/// of the C API and definitions that fail every call, built here into
/// `libokFrontPanel.so`; bindgen needs libclang, `make toolchain`): the code
/// behind the feature passes clippy, and its unit tests run: the BSP's pin
/// list equals `boards/opalkelly-xem7010/xem7010_top.xdc`'s, and a missing
/// device is an error. The BSP reads `VIVADO_PATH` and `FP_PATH` when it
/// compiles; nothing here uses them.
#[test]
fn opalkelly_feature_builds_and_checks_against_a_stand_in_sdk() -> Result<()> {
    let sdk = Path::new(env!("CARGO_TARGET_TMPDIR")).join("frontpanel-standin");
    std::fs::create_dir_all(&sdk)?;
    let src = root().join("tests/fixtures/frontpanel-standin");
    std::fs::copy(src.join("okFrontPanel.h"), sdk.join("okFrontPanel.h"))?;
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-Wall", "-Werror", "-o"])
        .arg(sdk.join("libokFrontPanel.so"))
        .arg("-I")
        .arg(&src)
        .arg(src.join("okFrontPanel.c"))
        .output()
        .context("cc")?;
    ensure!(cc.status.success(), "cc okFrontPanel.c: {}", String::from_utf8_lossy(&cc.stderr));
    let cargo = |args: &[&str]| -> Result<Output> {
        Command::new(env!("CARGO"))
            .args(args)
            .env("OK_FRONTPANEL_DIR", &sdk)
            .env("LD_LIBRARY_PATH", &sdk)
            .env("VIVADO_PATH", "/nonexistent/vivado")
            .env("FP_PATH", "/nonexistent/FrontPanelHDL")
            .current_dir(root())
            .output()
            .with_context(|| format!("cargo {args:?}"))
    };
    let short = |o: &Output| {
        let err = String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout);
        err.lines().filter(|l| !l.starts_with("   ")).take(40).collect::<Vec<_>>().join("\n")
    };
    let out = cargo(&["clippy", "--locked", "--features", "opalkelly", "--lib", "--bin", "trimswitch", "--", "-D", "warnings"])?;
    ensure!(out.status.success(), "cargo clippy --features opalkelly: {}", short(&out));
    let out = cargo(&["test", "--locked", "--features", "opalkelly", "--lib", "ok_host::"])?;
    let text = String::from_utf8_lossy(&out.stdout);
    ensure!(out.status.success() && text.contains("test result: ok. 2 passed"), "cargo test --features opalkelly: {}", short(&out));
    Ok(())
}

/// Bad configurations and scenarios are named the way a user can act on.
#[test]
fn bad_input_is_named() -> Result<()> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-bad-input");
    std::fs::create_dir_all(&dir)?;
    let good = std::fs::read_to_string(root().join("configs/netfpga-sume.toml"))?;
    let line_of = |needle: &str| good.lines().position(|l| l.starts_with(needle)).map(|i| i + 1).expect("key in the default config");
    let err = |args: &[&str]| -> Result<String> {
        let out = trimswitch(args)?;
        ensure!(!out.status.success(), "{args:?} succeeded");
        Ok(String::from_utf8_lossy(&out.stderr).trim().to_string())
    };
    // A type error names the file, the line and the key.
    let x = dir.join("x.toml");
    std::fs::write(&x, good.replacen("ports = 4", "ports = \"four\"", 1))?;
    let e = err(&["emit", "--config", x.to_str().unwrap(), "--out", dir.join("o").to_str().unwrap()])?;
    let want =
        format!("{}:{}: datapath.ports: invalid type: string \"four\", expected a non-negative integer", x.display(), line_of("ports = 4"));
    ensure!(e.ends_with(&want), "got {e:?}, want it to end with {want:?}");
    // A missing key names it.
    std::fs::write(&x, good.replacen("quantum = ", "# quantum = ", 1))?;
    let e = err(&["emit", "--config", x.to_str().unwrap()])?;
    ensure!(e.contains(": arbiter.quantum: missing key"), "{e}");
    // A bad --set value names the argument, not a place in the file.
    let e = err(&["emit", "--set", "datapath.ports=four"])?;
    ensure!(e.ends_with("--set datapath.ports=four: invalid type: string \"four\", expected a non-negative integer"), "{e}");
    ensure!(!e.contains("byte"), "{e}");
    // A scenario syntax error names its line; a name that would leave the
    // output directory is rejected before anything runs.
    let s = dir.join("s.toml");
    std::fs::write(&s, "name = \"s\"\ntraffic = \"incast\"\npackets = = 10\nframe_bytes = 1500\n")?;
    let e = err(&["sim", "--model", "--no-plots", "--scenario", s.to_str().unwrap()])?;
    ensure!(e.contains(&format!("{}:3: ", s.display())), "{e}");
    std::fs::write(&s, "name = \"../../../tmp/escape\"\ntraffic = \"incast\"\npackets = 10\nframe_bytes = 1500\n")?;
    let e = err(&["sim", "--model", "--no-plots", "--scenario", s.to_str().unwrap()])?;
    ensure!(e.contains("name = \"../../../tmp/escape\": must be"), "{e}");
    // A build for a MAC that strips the FCS is not what the frame-level
    // tools drive; an unknown board and a board the configuration does not
    // fit are named.
    let e = err(&["replay", "--set", "ingress.fcs=\"mac\"", "--in", "0=/dev/null", "--out", dir.join("r").to_str().unwrap()])?;
    ensure!(e.contains("ingress.fcs = \"mac\": `trimswitch replay` sends frames with their FCS"), "{e}");
    let e = err(&["vivado", "--board", "versa", "--out", dir.join("v").to_str().unwrap()])?;
    ensure!(e.contains("--board \"versa\": boards are [\"netfpga-sume\", \"alveo-u250\", \"opalkelly-xem7010\"]"), "{e}");
    let e = err(&["vivado", "--board", "netfpga-sume", "--config", "configs/alveo-u250.toml", "--out", dir.join("v").to_str().unwrap()])?;
    ensure!(e.contains("datapath.ports = 2: the NetFPGA-SUME has 4 SFP+ ports"), "{e}");
    let e = err(&["vivado", "--board", "alveo-u250", "--out", dir.join("v").to_str().unwrap()])?;
    ensure!(e.contains("datapath.ports = 4: the Alveo U250 has 2 QSFP28 cages"), "{e}");
    // A block synthesis asked for by a name the generator does not know
    // stops before Yosys, naming the blocks.
    let e = err(&["synth", "--block", "ts_nonesuch", "--out", dir.join("s").to_str().unwrap()])?;
    ensure!(e.contains("unknown block \"ts_nonesuch\"; blocks are"), "{e}");
    Ok(())
}

/// The serial-line host tool (`scripts/uart_regs.py`; the bridge's own
/// test drives its encodings through `ts_uart_axil`) names bad input.
#[test]
fn uart_tool_names_bad_input() -> Result<()> {
    let run = |args: &[&str]| -> Result<Output> {
        Command::new("python3").arg("scripts/uart_regs.py").args(args).current_dir(root()).output().context("python3")
    };
    let out = run(&["--encode", "read", "0x3e"])?;
    let err = String::from_utf8_lossy(&out.stderr);
    ensure!(!out.status.success() && err.contains("address 0x3e: a word-aligned 32-bit address"), "{err}");
    let out = run(&["--decode", "72", "00"])?;
    let err = String::from_utf8_lossy(&out.stderr);
    ensure!(!out.status.success() && err.contains("not an answer: 72 00"), "{err}");
    let out = run(&["--decode", "77", "03"])?;
    ensure!(out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "write DECERR", "{out:?}");
    let out = run(&["--encode", "write", "0x10"])?;
    ensure!(
        !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("expected: read ADDR [COUNT] or write ADDR DATA"),
        "{out:?}"
    );
    Ok(())
}

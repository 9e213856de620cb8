//! The ECP5-5G Versa board (`configs/ecp5-versa.toml`, `boards/ecp5-versa/`,
//! `hdl/src/board/versa.rs`) without place-and-route (`make bitstream` runs
//! that, more than half an hour): its pin constraints cover every port bit of the
//! emitted top exactly once with an I/O standard, and every clock input has
//! a frequency; the top lints clean against the stand-ins of the ECP5
//! primitives; bad configurations are refused with the file and key.
use anyhow::{ensure, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use trimswitch_hdl::config::Config;
use trimswitch_hdl::gen::catalog;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn versa() -> Result<Config> {
    Config::load(&Path::new(ROOT).join("configs/ecp5-versa.toml"))
}

/// Every bit of the top module's ports: `name` or `name[i]`, with whether
/// it is an input.
fn port_bits(verilog: &str, top: &str) -> Result<Vec<(String, bool)>> {
    let body = &verilog[verilog.find(&format!("module {top}(")).context("no top module")?..];
    let mut bits = vec![];
    for l in body.lines().skip(1) {
        let l = l.trim();
        let input = l.starts_with("input ");
        if !input && !l.starts_with("output ") {
            if l.is_empty() || l.starts_with("//") {
                continue;
            }
            break;
        }
        let decl = l.trim_end_matches(';');
        let name = decl.split_whitespace().last().context("a port name")?.to_string();
        match decl.find('[') {
            Some(i) => {
                let range = &decl[i + 1..decl.find(']').context("a range")?];
                let (hi, lo) = range.split_once(':').context("hi:lo")?;
                for b in lo.trim().parse::<usize>()?..=hi.trim().parse::<usize>()? {
                    bits.push((format!("{name}[{b}]"), input));
                }
            }
            None => bits.push((name, input)),
        }
    }
    Ok(bits)
}

/// What is wrong with `lpf` for a top with `bits` whose clocks are
/// `clocks`: empty when every bit has one site and an I/O standard, no site
/// is taken twice, no constraint names a port the top does not have, and
/// every clock has a frequency.
fn lpf_problems(lpf: &str, bits: &[(String, bool)], clocks: &[&str]) -> Vec<String> {
    let quoted = |l: &str| l.split('"').nth(1).map(str::to_string);
    let (mut sites, mut io, mut freq) = (BTreeMap::<String, Vec<String>>::new(), BTreeSet::new(), BTreeSet::new());
    let mut problems = vec![];
    for l in lpf.lines().map(str::trim).filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let Some(name) = quoted(l) else {
            problems.push(format!("unreadable line {l:?}"));
            continue;
        };
        if l.starts_with("LOCATE COMP") {
            let site = l.split("SITE").nth(1).and_then(quoted).unwrap_or_default();
            sites.entry(name).or_default().push(site);
        } else if l.starts_with("IOBUF PORT") && l.contains("IO_TYPE=") {
            io.insert(name);
        } else if l.starts_with("FREQUENCY PORT") {
            freq.insert(name);
        } else {
            problems.push(format!("unknown constraint {l:?}"));
        }
    }
    let names: BTreeSet<&str> = bits.iter().map(|(b, _)| b.as_str()).collect();
    for (b, _) in bits {
        match sites.get(b).map(Vec::len) {
            Some(1) => {}
            Some(n) => problems.push(format!("{b}: {n} sites")),
            None => problems.push(format!("{b}: no site")),
        }
        if !io.contains(b) {
            problems.push(format!("{b}: no IO_TYPE"));
        }
    }
    for n in sites.keys().chain(&io).chain(&freq) {
        if !names.contains(n.as_str()) {
            problems.push(format!("{n}: not a port of the top"));
        }
    }
    let mut taken = BTreeMap::new();
    for (n, s) in sites.iter().flat_map(|(n, v)| v.iter().map(move |s| (n, s))) {
        if let Some(other) = taken.insert(s.clone(), n.clone()) {
            problems.push(format!("site {s}: {other} and {n}"));
        }
    }
    for c in clocks {
        if !freq.contains(*c) {
            problems.push(format!("clock {c}: no FREQUENCY"));
        }
    }
    problems
}

/// Every port bit of `ts_versa_switch` has one site and an I/O standard in
/// `boards/ecp5-versa/versa.lpf`, every clock input a frequency; a
/// constraint removed, a port renamed or a site doubled is found.
#[test]
fn versa_pins_cover_every_port() -> Result<()> {
    let v = catalog::emit_block(&versa()?, catalog::VERSA_SWITCH)?.verilog;
    let bits = port_bits(&v, catalog::VERSA_SWITCH)?;
    ensure!(bits.len() == 3 + 2 * (1 + 4 + 1 + 1 + 4 + 1 + 1) + 8 + 2, "{} port bits: {bits:?}", bits.len());
    let clocks = ["clk100", "eth_rxc_0", "eth_rxc_1"];
    ensure!(clocks.iter().all(|c| bits.iter().any(|(b, i)| b == c && *i)), "clock inputs {clocks:?} in {bits:?}");
    let lpf = std::fs::read_to_string(Path::new(ROOT).join("boards/ecp5-versa/versa.lpf"))?;
    let p = lpf_problems(&lpf, &bits, &clocks);
    ensure!(p.is_empty(), "{p:#?}");
    // The check finds what it is for.
    let without = lpf.replace("LOCATE COMP \"eth_txd_1[2]\" SITE \"D19\";\n", "");
    ensure!(lpf_problems(&without, &bits, &clocks) == ["eth_txd_1[2]: no site"], "a removed site");
    let twice = lpf.replace("SITE \"D19\"", "SITE \"D20\"");
    ensure!(lpf_problems(&twice, &bits, &clocks).iter().any(|p| p.starts_with("site D20")), "a doubled site");
    let renamed = lpf.replace("\"led[7]\"", "\"led_7\"");
    ensure!(lpf_problems(&renamed, &bits, &clocks).len() == 4, "a renamed port: {:?}", lpf_problems(&renamed, &bits, &clocks));
    let no_freq = lpf.replace("FREQUENCY PORT \"eth_rxc_1\" 125 MHZ;\n", "");
    ensure!(lpf_problems(&no_freq, &bits, &clocks) == ["clock eth_rxc_1: no FREQUENCY"]);
    Ok(())
}

/// `ts_versa_switch` lints clean (Verilator -Wall) with the switch, the RGMII
/// MACs, the PLL and the DDR primitives (their stand-ins,
/// `boards/stubs/lattice.v`: every instance's ports exist and have the
/// right widths).
#[test]
fn versa_switch_lints_against_the_lattice_stubs() -> Result<()> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("versa-lint");
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("ts_versa_switch.v");
    std::fs::write(&file, catalog::emit_block(&versa()?, catalog::VERSA_SWITCH)?.verilog)?;
    let stubs = Path::new(ROOT).join("boards/stubs/lattice.v");
    let r = trimswitch::lint::lint_files(&[&stubs, &file], catalog::VERSA_SWITCH, Some(&trimswitch::flows::waiver_file()))?;
    ensure!(r.ok, "{:#?} {:#?}", r.errors, r.warnings);
    Ok(())
}

/// A configuration the board cannot have is refused, naming the file and
/// the key: another port count, a switch clock no PLL output makes exactly,
/// one too slow to drain a port, a MAC without the FCS; and the open flow
/// refuses a Xilinx target.
#[test]
fn versa_refuses_what_the_board_cannot_do() -> Result<()> {
    let path = Path::new(ROOT).join("configs/ecp5-versa.toml");
    for (set, want) in [
        ("datapath.ports=4", "datapath.ports = 4: the ECP5-5G Versa has 2 RGMII PHYs"),
        ("target.clock_mhz=77.7", "target.clock_mhz: no ECP5 PLL plan makes exactly 125 MHz and 77.7 MHz from 100 MHz"),
        ("target.clock_mhz=15.625", "target.clock_mhz = 15.625: a port's receive FIFO must drain"),
        ("datapath.port_gbps=10.0", "datapath.port_gbps = 10: RGMII ports are 1G"),
    ] {
        let cfg = Config::load_with(&path, &[set.to_string()])?;
        let e = catalog::emit_block(&cfg, catalog::VERSA_SWITCH).err().with_context(|| format!("{set} accepted"))?;
        let msg = format!("{e:#}");
        ensure!(msg.contains("ecp5-versa.toml") && msg.contains(want), "{set}: {msg}");
    }
    let sume = Config::load(&Path::new(ROOT).join("configs/netfpga-sume.toml"))?;
    let e = trimswitch::bitstream::board_of(&sume).unwrap_err().to_string();
    ensure!(e.contains("target.family = \"xc7\": the open bitstream flow is for ECP5 boards"), "{e}");
    Ok(())
}

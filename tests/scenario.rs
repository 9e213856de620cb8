//! The scenario simulator (`trimswitch sim`, `trimswitch_sim::scenario`) on
//! the Verilated `ts_switch` of the default configuration (4 x 10G):
//!
//! - 3:1 incast at line rate, ideal mode, through the CLI: `metrics.json`
//!   says every packet is accounted for, the receiver's link stays busy, the
//!   data queue never passes its limit, headers overtake queued data (seed
//!   000 §3), every sender gets whole packets through.
//! - The same incast in meter mode (seed 001): the meters trim at ingress,
//!   and meter mode trims at most 10% more than ideal (seed 000 §6's claim).
//! - Permutation at line rate: no trim, no drop, every output busy.
//! - Scenario files with a mistake fail with the file, the key and the
//!   reason.
use anyhow::{ensure, Context, Result};
use std::path::Path;
use trimswitch_hdl::config::Config;
use trimswitch_sim::scenario::{run_rtl, Metrics, Scenario};

fn config() -> Config {
    Config::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/netfpga-sume.toml"))).expect("default config")
}

/// Checks that hold for every run: conservation, occupancy within the
/// limits, per-flow counts add up.
fn common_checks(cfg: &Config, m: &Metrics) -> Result<()> {
    let c = &m.conservation;
    ensure!(c.ok && c.sent == c.whole + c.trimmed + c.returned + c.dropped, "conservation: {c:?}");
    for f in &m.flows {
        ensure!(f.whole + f.trimmed + f.returned + f.lost == f.sent, "flow {}: counts do not add up: {f:?}", f.id);
    }
    ensure!(m.flows.iter().map(|f| f.lost as u64).sum::<u64>() == c.dropped, "lost packets {} vs drop counters {}", m.flows.iter().map(|f| f.lost).sum::<usize>(), c.dropped);
    for p in 0..cfg.datapath.ports {
        ensure!(m.max_occ_d_bytes[p] <= cfg.tm.queue_d_bytes as u64, "port {p}: data queue {} B over its limit", m.max_occ_d_bytes[p]);
        ensure!(m.max_occ_h_bytes[p] <= cfg.tm.queue_h_bytes as u64, "port {p}: header queue {} B over its limit", m.max_occ_h_bytes[p]);
    }
    ensure!(m.header_arrivals.len() as u64 == c.trimmed, "{} header arrivals for {} trimmed packets", m.header_arrivals.len(), c.trimmed);
    ensure!(m.header_arrivals.windows(2).all(|w| w[0] <= w[1]), "header arrivals not sorted");
    Ok(())
}

#[test]
fn incast_ideal_through_the_cli() -> Result<()> {
    let cfg = config();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scenario-incast");
    let _ = std::fs::remove_dir_all(&out);
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_trimswitch"))
        .args(["sim", "--config", "configs/netfpga-sume.toml", "--scenario", "incast", "--out"])
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()?;
    let stdout = String::from_utf8_lossy(&run.stdout);
    ensure!(run.status.success(), "trimswitch sim failed:\n{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    ensure!(stdout.contains("conservation: 600 sent"), "no conservation line in:\n{stdout}");
    let text = std::fs::read_to_string(out.join("metrics.json")).context("metrics.json")?;
    let j: serde_json::Value = serde_json::from_str(&text)?;
    ensure!(j["engine"] == "rtl" && j["mode"] == "ideal", "engine {} mode {}", j["engine"], j["mode"]);
    let m: Metrics = serde_json::from_value(j)?;
    common_checks(&cfg, &m)?;
    let c = &m.conservation;
    eprintln!("{}", m.summary());
    // 3 senders x 200 x 1500 B into one 10G port: two thirds of the data
    // cannot fit, so most packets are trimmed; with a 12-packet data queue
    // and header priority nothing needs dropping or returning.
    ensure!(c.sent == 600 && c.dropped == 0 && c.returned == 0, "{c:?}");
    ensure!(c.trimmed >= 300 && c.whole >= 150, "trimmed {} whole {}", c.trimmed, c.whole);
    ensure!(m.trims["total"] == c.trimmed && m.trims["ingress"] == 0 && m.trims["dod"] == 0, "trims {:?}", m.trims);
    ensure!(m.flows.iter().all(|f| f.whole > 0), "a sender got nothing through: {:?}", m.flows);
    // Trimming keeps the bottleneck busy: whole packets and headers fill
    // port 0's line while the burst lasts.
    ensure!(m.port_utilization[0] >= 0.98, "port 0 busy {:.3} of line rate", m.port_utilization[0]);
    // The data queue filled up (that is when trimming starts).
    ensure!(m.max_occ_d_bytes[0] + 1500 > cfg.tm.queue_d_bytes as u64, "data queue peaked at {} B", m.max_occ_d_bytes[0]);
    // Headers overtake queued data: their latency is far below a full data
    // queue's.
    ensure!(m.header_latency.median * 3 < m.data_latency.median, "header median {} vs data median {} cycles", m.header_latency.median, m.data_latency.median);
    Ok(())
}

/// The incast of `incast.toml` in `mode`.
fn incast(cfg: &Config, mode: &str) -> Result<Metrics> {
    let mut sc = Scenario::load("incast")?;
    sc.mode = Some(mode.into());
    let m = run_rtl(cfg, &sc, false)?;
    common_checks(cfg, &m)?;
    Ok(m)
}

#[test]
fn incast_meter_mode_trims_close_to_ideal() -> Result<()> {
    let cfg = config();
    let ideal = incast(&cfg, "ideal")?;
    let meter = incast(&cfg, "meter")?;
    eprintln!("{}", meter.summary());
    let (ti, tm) = (ideal.trims["total"], meter.trims["total"]);
    eprintln!("3:1 incast trims: ideal {ti}, meter {tm} ({} not green at ingress, {} DoD), ratio {:.3}", meter.trims["ingress"], meter.trims["dod"], tm as f64 / ti as f64);
    ensure!(meter.mode == "meter" && meter.trims["ingress"] > 0, "the meters trimmed nothing: {:?}", meter.trims);
    ensure!(meter.conservation.dropped == 0, "drops in meter mode: {:?}", meter.drops);
    // Seed 000 §6: meter + notify trims at most 10% more than ideal.
    ensure!(tm * 10 <= ti * 11, "meter mode trims {tm}, ideal {ti}: more than 10% over");
    ensure!(meter.port_utilization[0] >= 0.98, "port 0 busy {:.3} of line rate", meter.port_utilization[0]);
    // Time per mode adds up to the run on the receiving port and the
    // pessimistic mode was entered (a deflection happened) or never needed.
    let [o, h, p] = meter.mode_cycles[0];
    ensure!(o + h + p > 0, "no mode time counted");
    ensure!((meter.trims["dod"] > 0) == (p > 0), "DoD trims {} but {p} pessimistic cycles", meter.trims["dod"]);
    Ok(())
}

#[test]
fn permutation_at_line_rate_trims_nothing() -> Result<()> {
    let cfg = config();
    let m = run_rtl(&cfg, &Scenario::load("permutation")?, false)?;
    common_checks(&cfg, &m)?;
    let c = &m.conservation;
    ensure!(c.sent == 800 && c.whole == 800, "{c:?} drops {:?}", m.drops);
    ensure!(m.trims["total"] == 0, "trims {:?}", m.trims);
    for p in 0..4 {
        ensure!(m.port_utilization[p] >= 0.98, "port {p} busy {:.3} of line rate", m.port_utilization[p]);
    }
    // A flow's goodput is its share of the wire: frame / (frame + 20) of
    // 10 Gb/s, less the pipeline's latency at either end.
    for f in &m.flows {
        ensure!(f.goodput_gbps >= 0.97 * 10.0 * 1500.0 / 1520.0 && f.goodput_gbps <= 10.0, "flow {}: {:.2} Gb/s", f.id, f.goodput_gbps);
    }
    Ok(())
}

/// Writes `text` as a scenario file and returns the error loading and
/// validating it gives.
fn error_of(name: &str, text: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad-scenarios");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("write");
    match Scenario::load(path.to_str().expect("utf-8")).and_then(|s| s.validate(&config())) {
        Ok(()) => panic!("{name}: accepted"),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn bad_scenario_files_name_file_key_and_reason() {
    let ok = "name = \"x\"\ntraffic = \"incast\"\npackets = 10\nframe_bytes = 1500\n";
    let cases = [
        ("unknown_key", format!("{ok}windows = 3\n"), "windows"),
        ("bad_traffic", ok.replace("incast", "alltoall"), "traffic"),
        ("receiver_range", format!("{ok}receiver = 9\n"), "receiver"),
        ("sender_is_receiver", format!("{ok}senders = [0, 1]\n"), "senders"),
        ("sender_twice", format!("{ok}receiver = 3\nsenders = [1, 1]\n"), "senders"),
        ("frame_small", ok.replace("1500", "40"), "frame_bytes"),
        ("frame_big", ok.replace("1500", "20000"), "frame_bytes"),
        ("load_zero", format!("{ok}load = 0.0\n"), "load"),
        ("bad_mode", format!("{ok}mode = \"fast\"\n"), "mode"),
        ("no_packets", ok.replace("packets = 10\n", ""), "packets"),
        ("wrong_type", ok.replace("packets = 10", "packets = \"ten\""), "packets"),
    ];
    for (name, text, key) in cases {
        let e = error_of(name, &text);
        assert!(e.contains(&format!("{name}.toml")), "{name}: error does not name the file: {e}");
        assert!(e.contains(key), "{name}: error does not name `{key}`: {e}");
    }
    let e = Scenario::load("no_such_scenario").map(|_| ()).unwrap_err();
    assert!(format!("{e:#}").contains("no_such_scenario.toml") && format!("{e:#}").contains("incast"), "{e:#}");
}

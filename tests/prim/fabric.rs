//! `ts_fabric`, the primitives together, in Verilator on the real target
//! configurations: configured over AXI-Lite, random traffic with invalid
//! destinations, overload and backpressure; the switch invariant must hold.
use anyhow::{ensure, Result};
use std::path::Path;
use trimswitch_hdl::config::Config;

fn smoke(config: &str, cycles: u64) -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cfg = Config::load(&root.join(config))?;
    let dir = trimswitch_sim::harness::verilator::build_dir().join("test-fabric").join(&cfg.target.name);
    let m = trimswitch::flows::emit(&cfg, &dir)?;
    ensure!(m.files.iter().any(|f| f.0 == "ts_fabric"), "ts_fabric not emitted");
    let r = trimswitch_sim::rtl::smoke::run(&cfg, &dir.join("ts_fabric.v"), cycles, 7)?;
    ensure!(r.cycles >= cycles, "ran {} cycles", r.cycles);
    ensure!(r.fifo_drops > 0, "overload never filled a FIFO");
    eprintln!("{config}: {r:?}");
    Ok(())
}

#[test]
fn netfpga_sume_4x256() -> Result<()> {
    smoke("configs/netfpga-sume.toml", 100_000)
}

#[test]
fn alveo_u250_2x512() -> Result<()> {
    smoke("configs/alveo-u250.toml", 100_000)
}

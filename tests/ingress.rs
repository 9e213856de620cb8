//! `ts_ingress` (receive checks, arbiter, parser, classify, lookup, apply)
//! in Verilator against the golden model: random frames of every header mix
//! and size (64..9018 B) with faults, under random gaps and backpressure,
//! configured over AXI-Lite; outputs identical packet by packet per source
//! port, counters identical. Also the malformed corpus and LPM semantics.
mod common;
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::path::Path;
use trimswitch_hdl::config::Config;
use trimswitch_sim::ingress_rtl::{compare, run_rtl, RtlOpts};
use trimswitch_sim::model::gen::{malformed_corpus, random_frame, Expect, GenOpts};
use trimswitch_sim::model::{run_model, Route, Settings};

fn config(file: &str, overrides: &[&str]) -> Result<Config> {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    Config::load_with(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs").join(file), &o)
}

/// `n` random frames per port (sizes up to `max_size`, a share `faults` of
/// them faulty), generated for `s`.
fn inputs(s: &Settings, ports: usize, n: usize, max_size: usize, faults: f64, seed: u64) -> Vec<Vec<Vec<u8>>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut o = GenOpts::from_settings(s).with_faults(faults);
    o.max_size = max_size;
    (0..ports).map(|_| (0..n).map(|_| random_frame(&mut rng, &o)).collect()).collect()
}

fn differential(cfg: &Config, s: &Settings, inputs: &[Vec<Vec<u8>>], opts: &RtlOpts) -> Result<u64> {
    let (mo, mc) = run_model(cfg, s, inputs);
    let (ro, rc, st) = run_rtl(cfg, s, inputs, opts)?;
    compare(cfg.datapath.ports, &ro, &mo, &rc, &mc)?;
    let n: usize = inputs.iter().map(|v| v.len()).sum();
    eprintln!(
        "{}: {n} frames in, {} out, {} cycles ({:.1} s); routed {}, l2 {}, malformed dropped {}",
        cfg.target.name,
        mo.len(),
        st.cycles,
        st.seconds,
        mc.iter().filter(|(k, _)| k.ends_with("lookup_routed")).map(|(_, v)| v).sum::<u64>(),
        mc.iter().filter(|(k, _)| k.ends_with("lookup_l2_hit")).map(|(_, v)| v).sum::<u64>(),
        mc.iter().filter(|(k, _)| k.ends_with("drop_malformed")).map(|(_, v)| v).sum::<u64>(),
    );
    Ok(st.cycles)
}

/// The default configuration (4 x 10G, 256 bits, one pipeline), its own
/// tables, frames of every size up to 9018 B.
#[test]
fn differential_netfpga_sume() -> Result<()> {
    let cfg = config("netfpga-sume.toml", &[])?;
    let s = Settings::from_config(&cfg);
    let inp = inputs(&s, 4, 6000, 9018, 0.15, 1);
    differential(&cfg, &s, &inp, &RtlOpts { seed: 2, idle_prob: 0.85, ready_prob: 0.8 })?;
    Ok(())
}

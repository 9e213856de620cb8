//! Shared helpers of the block tests (each test file is one block).
#![allow(dead_code)]
use anyhow::{ensure, Result};
use std::path::{Path, PathBuf};
use trimswitch_hdl::config::Config;
#[allow(unused_imports)]
pub use trimswitch_hdl::with_geometry;
use trimswitch_sim::agents::axis::{AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::tb::{Agent, Tb};

/// Cycles every randomized test runs at least (the foundation issue's bar).
pub const MIN_CYCLES: u64 = 100_000;

/// Runs `tb` with the agents until at least `min_cycles` have passed and every
/// agent is idle; fails rather than hangs after `max_cycles`.
pub fn run_for(tb: &mut Tb, agents: &mut [&mut dyn Agent], min_cycles: u64, max_cycles: u64) -> Result<u64> {
    let start = tb.cycle();
    tb.run_until(agents, max_cycles, |tb, agents| tb.cycle() - start >= min_cycles && agents.iter().all(|a| a.idle()))
}

/// Asserts a sink saw no AXI-Stream protocol error.
pub fn no_protocol_errors(sink: &AxisSink) -> Result<()> {
    ensure!(sink.error_count() == 0, "{} protocol errors, first: {:?}", sink.error_count(), sink.errors.first());
    Ok(())
}

/// Queues packets into a source and returns copies for the scoreboard.
pub fn push_all(src: &mut AxisSource, packets: Vec<Packet>) -> Vec<Packet> {
    for p in &packets {
        src.push(p.clone());
    }
    packets
}

/// Checks that `got` is `sent` with some whole packets removed, in order, and
/// returns the indices of the removed ones. A packet that is altered, split,
/// reordered or duplicated fails the check.
pub fn subsequence(sent: &[Packet], got: &[Packet]) -> Result<Vec<usize>> {
    let mut missing = vec![];
    let mut g = 0;
    for (i, p) in sent.iter().enumerate() {
        if g < got.len() && got[g] == *p {
            g += 1;
        } else {
            missing.push(i);
        }
    }
    ensure!(
        g == got.len(),
        "received packet {g} (len {}, user {:#x}) matches no remaining sent packet in order",
        got[g].data.len(),
        got[g].user
    );
    Ok(missing)
}

/// The repository root (where `configs/` and `build/` are).
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `configs/<name>.toml`.
pub fn config_path(name: &str) -> PathBuf {
    repo().join("configs").join(format!("{name}.toml"))
}

/// `configs/<name>.toml` with `--set`-style overrides (`"datapath.data_width=64"`).
pub fn config_with(name: &str, overrides: &[&str]) -> Result<Config> {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    Config::load_with(&config_path(name), &o)
}

/// A target's configuration as shipped (`netfpga-sume`, `alveo-u250`, ...).
pub fn config_of(name: &str) -> Config {
    config_with(name, &[]).unwrap_or_else(|e| panic!("configs/{name}.toml: {e:#}"))
}

/// The default configuration, `configs/netfpga-sume.toml`.
pub fn config() -> Config {
    config_of("netfpga-sume")
}

/// One cell of the stream-test matrix (the practice of the Forencich/taxi
/// cocotb benches): the share of cycles a source idles between beats, and the
/// share of cycles a sink is ready.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub idle_prob: f64,
    pub ready_prob: f64,
}

/// Idle gaps off and on, times backpressure off and on.
pub const MATRIX: [Cell; 4] = [
    Cell { idle_prob: 0.0, ready_prob: 1.0 },
    Cell { idle_prob: 0.3, ready_prob: 1.0 },
    Cell { idle_prob: 0.0, ready_prob: 0.5 },
    Cell { idle_prob: 0.3, ready_prob: 0.5 },
];

/// Runs `case` in every cell of [`MATRIX`]; an error names its cell.
pub fn for_matrix(mut case: impl FnMut(Cell) -> Result<()>) -> Result<()> {
    for c in MATRIX {
        case(c).map_err(|e| {
            e.context(format!("matrix cell: source idle {:.0}%, sink ready {:.0}%", 100.0 * c.idle_prob, 100.0 * c.ready_prob))
        })?;
    }
    Ok(())
}

/// Two switches joined by a Protego link (seed 004 Fig. 7 reduced;
/// `trimswitch_sim::rtl::protego::pair_configs`): `netfpga-sume` at 2 ports x
/// 64 bits ([`protego_pair_sets`]), Protego built on port 1 (off at reset:
/// tests turn it on at run time).
pub fn protego_switch_configs() -> Result<[Config; 2]> {
    trimswitch_sim::rtl::protego::pair_configs(&config_with("netfpga-sume", &protego_pair_sets())?)
}

/// The overrides of [`protego_switch_configs`] (also given to `trimswitch
/// sim --set`, so the CLI's RTL runs share its Verilated model): two ports
/// (no L2 entries for the others) and [`PROTEGO_PORT_SETS`].
pub fn protego_pair_sets() -> Vec<&'static str> {
    let mut v = vec!["datapath.ports=2", "ingress.l2=[]"];
    v.extend(PROTEGO_PORT_SETS);
    v
}

/// Protego's test settings: 64 bits, 16 KB rings of 64 frames, a 3 µs
/// `ackNoTimeout` (600 cycles), a 12 KB reordering buffer.
pub const PROTEGO_PORT_SETS: [&str; 12] = [
    "datapath.data_width=64",
    "fifo.depth=2048",
    "tm.queue_d_words=1200",
    "protego.rx_ring_bytes=16384",
    "protego.tx_ring_bytes=16384",
    "protego.rx_frames=64",
    "protego.tx_frames=64",
    "protego.rx_slots=256",
    "protego.ack_timeout_us=3.0",
    "protego.buffer_bytes=12288",
    "protego.pause_bytes=10000",
    "protego.resume_bytes=6000",
];

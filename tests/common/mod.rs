//! Shared helpers of the block tests (each test file is one block).
#![allow(dead_code)]
use anyhow::{ensure, Result};
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

//! Protego (seed 004): the sender and receiver sides' blocks against the
//! golden model (`trimswitch_sim::model::protego`).
//!
//! One test binary per subsystem (`cargo test --test protego <module>::<test>`);
//! each module is one block's tests.
#[path = "../common/mod.rs"]
mod common;
mod port;
mod rx;
mod rx_seq;
mod store;
mod switch;
mod tag;
mod tx;
mod untag;

use anyhow::{ensure, Result};
use common::{for_matrix, Cell};
use rand::Rng;
use std::collections::BTreeMap;

/// A frame of `len` bytes (without FCS) with `vlans` tags (802.1Q or
/// 802.1ad), numbered `n` in its last bytes.
pub fn frame(rng: &mut impl Rng, len: usize, vlans: usize, n: u32) -> Vec<u8> {
    let mut f: Vec<u8> = (0..12).map(|_| rng.gen()).collect();
    for _ in 0..vlans {
        f.extend_from_slice(if rng.gen_bool(0.5) { &[0x81, 0x00] } else { &[0x88, 0xA8] });
        f.extend_from_slice(&[rng.gen(), rng.gen()]);
    }
    f.extend_from_slice(&[0x08, 0x00]);
    while f.len() < len {
        f.push(rng.gen());
    }
    f.truncate(len);
    let l = f.len();
    f[l - 4..].copy_from_slice(&n.to_be_bytes());
    f
}

/// A block's random test (`random(width, cell, frames, seed)`) at 64, 256
/// and 512 bits with some idle and backpressure, 600 frames each.
pub fn at_every_width(seed: u64, random: impl Fn(usize, Cell, usize, u64) -> Result<()>) -> Result<()> {
    for (i, w) in [64, 256, 512].into_iter().enumerate() {
        random(w, Cell { idle_prob: 0.2, ready_prob: 0.7 }, 600, seed + i as u64)?;
    }
    Ok(())
}

/// The same over idle gaps x backpressure (`MATRIX`) at 64 and 512 bits,
/// 150 frames each.
pub fn over_the_matrix(seed: u64, random: impl Fn(usize, Cell, usize, u64) -> Result<()>) -> Result<()> {
    for w in [64, 512] {
        let mut s = 0;
        for_matrix(|c| {
            s += 1;
            random(w, c, 150, seed + s)
        })?;
    }
    Ok(())
}

/// Ordered mode's accounting at a receiver (`rx`: its registers by name):
/// what was delivered (`numbers`, in delivery order) is in order, each
/// missing frame is a counted timeout, and every lost number was recovered
/// or timed out.
pub fn ordered_accounting<T: Ord>(numbers: &[T], missing: u64, rx: &BTreeMap<&str, u64>) -> Result<()> {
    ensure!(numbers.windows(2).all(|p| p[0] < p[1]), "out of order in ordered mode");
    ensure!(missing == rx["rx_timeouts"], "{missing} frames missing, {} timeouts", rx["rx_timeouts"]);
    ensure!(
        rx["rx_lost"] == rx["rx_recovered"] + rx["rx_timeouts"],
        "lost {} != recovered {} + timeouts {}",
        rx["rx_lost"],
        rx["rx_recovered"],
        rx["rx_timeouts"]
    );
    Ok(())
}

//! Devices under test: emit a rust-hdl block as Verilog and build its
//! Verilated model (cached by content), plus random traffic for tests.
use crate::agents::axis::Packet;
use crate::harness::verilator::{build_dir, build_model, BuildOptions, ModelLib};
use anyhow::{Context, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::Block;
use std::path::PathBuf;

/// Emits `block` as `module_name` and builds (or reuses) its Verilated model.
/// The Verilog goes to `build/verilator-src/<module_name>-<tag>.v`, where `tag`
/// names the variant (for example `d512_u64`); the model cache is keyed by the
/// file's content, so an unchanged block is never rebuilt.
pub fn model_of<B: Block>(block: &mut B, module_name: &str, tag: &str) -> Result<ModelLib> {
    let verilog = trimswitch_hdl::gen::emit::emit_verilog(block, module_name, &[format!("test variant {tag}")])?;
    model_of_verilog(&verilog, module_name, tag)
}

/// Builds (or reuses) the model of already emitted Verilog `verilog` whose top
/// is `module_name`, written to `build/verilator-src/<module_name>-<tag>.v`.
pub fn model_of_verilog(verilog: &str, module_name: &str, tag: &str) -> Result<ModelLib> {
    let dir = build_dir().join("verilator-src");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path: PathBuf = dir.join(format!("{module_name}-{tag}.v"));
    // Write through a temporary file so parallel tests never see a half-written file.
    if std::fs::read_to_string(&path).map(|t| t != verilog).unwrap_or(true) {
        let tmp = dir.join(format!(".{module_name}-{tag}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, verilog)?;
        std::fs::rename(&tmp, &path)?;
    }
    build_model(&[path], module_name, &BuildOptions::default())
}

/// Seeded random traffic.
pub struct Traffic {
    pub rng: SmallRng,
}

impl Traffic {
    pub fn new(seed: u64) -> Traffic {
        Traffic { rng: SmallRng::seed_from_u64(seed) }
    }

    /// A packet of `len` random bytes carrying `user`.
    pub fn packet(&mut self, len: usize, user: u128) -> Packet {
        let mut data = vec![0u8; len];
        self.rng.fill(&mut data[..]);
        Packet::new(data, user)
    }

    /// Random packets of [`Traffic::length`] in `lo..=hi` bytes, numbered from
    /// 0 (`user(i)` gives packet `i`'s tuser), until they fill at least
    /// `min_beats` beats of `beat` bytes.
    pub fn packets_for_beats(&mut self, min_beats: usize, beat: usize, lo: usize, hi: usize, user: impl Fn(usize) -> u128) -> Vec<Packet> {
        let mut out = vec![];
        let mut beats = 0;
        while beats < min_beats {
            let len = self.length(lo, hi, beat);
            beats += len.div_ceil(beat);
            out.push(self.packet(len, user(out.len())));
        }
        out
    }

    /// A length in `lo..=hi`, biased so that a quarter of packets are minimal
    /// and a quarter end one byte past a beat boundary (the corner cases).
    pub fn length(&mut self, lo: usize, hi: usize, beat: usize) -> usize {
        match self.rng.gen_range(0..4) {
            0 => lo,
            1 => {
                let beats = self.rng.gen_range(1..=(hi / beat).max(1));
                (beats * beat + 1).clamp(lo, hi)
            }
            _ => self.rng.gen_range(lo..=hi),
        }
    }
}

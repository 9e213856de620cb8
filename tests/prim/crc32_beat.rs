//! `Crc32Beat` (the FCS engine of rx_fcs) in Verilator at 64 and 512 bits
//! against the bytewise reference, on every last-beat length. A beat's data
//! goes in a cycle before its `valid`; the verdict is registered: it is
//! checked in the cycle after each frame's last beat.
use crate::common;
use anyhow::{ensure, Context, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use trimswitch_hdl::prim::crc::{crc32_update, Crc32Beat};
use trimswitch_hdl::with_geometry;
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};
use trimswitch_sim::packet::crc::{append_fcs, fcs_ok};

/// Feeds frames beat by beat (with random idle cycles) and checks the verdict
/// and the CRC register on every last beat. Data and keep go one cycle ahead
/// of `valid`/`start`: `(pidx, poff)` is the next beat to present, `staged`
/// the beat presented last cycle (its `start`), valid this cycle.
struct Feeder {
    frames: VecDeque<(Vec<u8>, bool)>,
    lanes: usize,
    offset: usize,
    pidx: usize,
    poff: usize,
    staged: Option<bool>,
    driving: bool,
    ports: [Port; 6], // valid, start, data, keep, next, residue_ok
    crc: Port,
    rng: SmallRng,
    /// A finished frame whose registered verdict is due this cycle:
    /// (length, CRC register expected, FCS good).
    due: Option<(usize, u32, bool)>,
    checked: u64,
    good: u64,
    errors: Vec<String>,
}

impl Agent for Feeder {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let [valid, start, data, keep, _, _] = self.ports;
        let staged = self.staged.take();
        self.driving = staged.is_some();
        m.set(&valid, self.driving as u64);
        m.set(&start, staged.unwrap_or(false) as u64);
        // The next beat's data, or junk on a cycle before an idle one: a beat
        // in flight must not be disturbed by the data that follows it.
        let mut beat: Vec<u8> = (0..self.lanes).map(|_| self.rng.gen()).collect();
        let mut k = self.rng.gen::<u64>();
        if self.pidx < self.frames.len() && !self.rng.gen_bool(0.2) {
            let f = &self.frames[self.pidx].0;
            let n = (f.len() - self.poff).min(self.lanes);
            // Junk in the lanes past keep must be ignored.
            beat[..n].copy_from_slice(&f[self.poff..self.poff + n]);
            k = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            self.staged = Some(self.poff == 0);
            self.poff += self.lanes;
            if self.poff >= f.len() {
                self.pidx += 1;
                self.poff = 0;
            }
        }
        m.set_bytes(&data, &beat);
        m.set(&keep, k);
    }

    fn sample(&mut self, m: &Model, _cycle: u64) {
        let [_, _, _, _, next, ok] = self.ports;
        if let Some((len, want, good)) = self.due.take() {
            if m.get(&self.crc) as u32 != want {
                self.errors.push(format!("frame of {len} bytes: crc register {:#x}, expected {want:#x}", m.get(&self.crc)));
            }
            if (m.get(&ok) == 1) != good {
                self.errors.push(format!("frame of {len} bytes: residue_ok {}, expected {good}", m.get(&ok)));
            }
            self.checked += 1;
            self.good += good as u64;
        }
        if !self.driving {
            return;
        }
        let (f, expect_ok) = self.frames.front().expect("driving implies a frame").clone();
        self.offset += self.lanes;
        if self.offset >= f.len() {
            let pad = (self.lanes - f.len() % self.lanes) % self.lanes;
            let mut padded = f.clone();
            padded.extend(std::iter::repeat_n(0, pad));
            let want = crc32_update(0xFFFF_FFFF, &padded);
            if m.get(&next) as u32 != want {
                self.errors.push(format!("frame of {} bytes: next {:#x}, expected {want:#x}", f.len(), m.get(&next)));
            }
            self.due = Some((f.len(), want, expect_ok));
            self.frames.pop_front();
            self.pidx -= 1;
            self.offset = 0;
        }
    }

    fn idle(&self) -> bool {
        self.frames.is_empty() && self.due.is_none()
    }
}

fn run(width: usize) -> Result<()> {
    let lib = with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| model_of(
        &mut Crc32Beat::<D, K>::default(),
        "ts_crc32_beat",
        &format!("d{D}")
    ))
    .context("a tested width")??;
    let m = lib.instantiate();
    let ports = ["valid", "start", "data", "keep", "next", "residue_ok"].map(|p| m.port(p).unwrap());
    let lanes = width / 8;
    let mut rng = SmallRng::seed_from_u64(width as u64);
    let mut frames = VecDeque::new();
    let mut beats = 0;
    while beats < common::MIN_CYCLES as usize {
        // Every length modulo the beat, from runts to a few beats.
        let len = rng.gen_range(1..=4 * lanes + 8);
        let mut f: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        append_fcs(&mut f);
        let corrupt = rng.gen_bool(0.5);
        if corrupt {
            let bit = rng.gen_range(0..f.len() * 8);
            f[bit / 8] ^= 1 << (bit % 8);
        }
        debug_assert_eq!(fcs_ok(&f), !corrupt);
        beats += f.len().div_ceil(lanes);
        frames.push_back((f, !corrupt));
    }
    let n = frames.len() as u64;
    let crc = m.port("crc")?;
    let mut feeder = Feeder {
        frames,
        lanes,
        offset: 0,
        pidx: 0,
        poff: 0,
        staged: None,
        driving: false,
        ports,
        crc,
        rng: SmallRng::seed_from_u64(9),
        due: None,
        checked: 0,
        good: 0,
        errors: vec![],
    };
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    let cycles = tb.run_until_idle(&mut [&mut feeder], 10 * common::MIN_CYCLES)?;
    ensure!(feeder.errors.is_empty(), "{} mismatches, first: {:?}", feeder.errors.len(), feeder.errors.first());
    ensure!(feeder.checked == n && feeder.good > 0 && feeder.good < n, "checked {} of {n}, {} good", feeder.checked, feeder.good);
    ensure!(cycles >= common::MIN_CYCLES, "ran {cycles} cycles");
    Ok(())
}

/// Verilator -Wall with the project's waivers is clean on the engine at 64 and
/// 512 bits (the catalogue lint covers the configurations' widths only).
#[test]
fn lint_clean() -> Result<()> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let waivers = root.join("hdl/lint/verilator_waivers.vlt");
    let dir = trimswitch_sim::harness::verilator::build_dir().join("test-crc-lint");
    std::fs::create_dir_all(&dir)?;
    for width in [64, 512] {
        let tag = format!("d{width}");
        let v = with_geometry!(width, 64, [(64, 64), (512, 64)], |D, K, U, M, W| trimswitch_hdl::gen::emit::emit_verilog(
            &mut Crc32Beat::<D, K>::default(),
            "ts_crc32_beat",
            &[]
        ))
        .context("a tested width")??;
        let path = dir.join(format!("ts_crc32_beat-{tag}.v"));
        std::fs::write(&path, v)?;
        let r = trimswitch::lint::lint(&path, "ts_crc32_beat", Some(&waivers))?;
        ensure!(r.ok, "{tag}: {:?} {:?}", r.errors, r.warnings);
    }
    Ok(())
}

#[test]
fn matches_reference_64() -> Result<()> {
    run(64)
}

#[test]
fn matches_reference_512() -> Result<()> {
    run(512)
}

//! Simulation speed: rust-hdl's own event simulator against the Verilator
//! harness, on the same block and the same traffic.
//!
//! The design is the 512-bit store-and-forward [`PktFifo`] of depth
//! [`DEPTH`]. The traffic is a saturated stream of back-to-back packets of
//! [`BEATS_PER_PACKET`] full beats (`tkeep` all ones, `tlast` on every
//! [`BEATS_PER_PACKET`]th beat, `s_tvalid` always high) with random data,
//! and `m_tready` always high, so one beat enters and one leaves per cycle.
//! Both runs check every output beat (data, `tlast`) against the input
//! stream and fail if nothing came out.
//!
//! Measure with `trimswitch bench` (writes `build/bench.json`; build with
//! `--release` and keep the machine otherwise idle for repeatable numbers;
//! leave `TS_WAVES` unset).
use crate::harness::dut::model_of;
use crate::harness::tb::{Agent, Tb};
use crate::harness::verilator::{build_model, BuildOptions, Model, Port};
use anyhow::{anyhow, bail, ensure, Context, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use trimswitch_hdl::axis::pkt_fifo::PktFifo;

/// The block under test: 512-bit data, 64-bit `tuser`.
type Fifo512 = PktFifo<512, 64, 64, 8, 584>;

/// FIFO depth in beats.
pub const DEPTH: usize = 1024;
/// Beats per packet of the generated traffic.
pub const BEATS_PER_PACKET: u64 = 4;
/// Module name of the emitted Verilog.
const MODULE: &str = "ts_pkt_fifo";
/// Variant tag for [`model_of`]; the same as the `ts_pkt_fifo` block tests
/// use, so the cached model is shared with them.
const TAG: &str = "d512_n1024_sf";
/// Rising edges with reset high before the measured cycles.
const RESET_CYCLES: u64 = 4;
/// Distinct random beats; beat `i` of the stream carries `pool[i % POOL_BEATS]`,
/// so no random numbers are drawn while the clock runs.
const POOL_BEATS: usize = 64;
/// rust-hdl clock: half a period, in rust-hdl time units (picoseconds).
const HALF_PERIOD: u64 = 5;

/// What [`fifo_sim_speed`] measured.
#[derive(Clone, Debug, Serialize)]
pub struct SimSpeedReport {
    /// The block and its configuration.
    pub design: String,
    /// Clock cycles simulated by rust-hdl (after reset).
    pub rust_hdl_cycles: u64,
    /// Wall-clock seconds of those cycles.
    pub rust_hdl_seconds: f64,
    pub rust_hdl_cycles_per_second: f64,
    /// Clock cycles simulated by the Verilated model (after reset).
    pub verilator_cycles: u64,
    /// Wall-clock seconds of those cycles: the stepping loop only, not the
    /// model build.
    pub verilator_seconds: f64,
    pub verilator_cycles_per_second: f64,
    /// `verilator_cycles_per_second / rust_hdl_cycles_per_second`.
    pub speedup: f64,
    /// Wall-clock seconds of a clean build of the Verilated model (verilate,
    /// compile, link and load, nothing cached).
    pub model_build_seconds: f64,
}

/// Simulates the 512-bit store-and-forward `PktFifo` (depth [`DEPTH`]) under
/// saturated traffic (see the module documentation) for `rust_hdl_cycles`
/// cycles in rust-hdl's simulator and `verilator_cycles` cycles in the
/// Verilator harness, and times a clean build of the Verilated model.
///
/// Errors if either simulator lets no beat through or delivers a wrong one.
/// The Verilator model is built (or taken from the cache) before its timed
/// loop; the clean build is an extra, uncached build whose cache entry is
/// removed afterwards. With `TS_WAVES` set the Verilator run writes a
/// waveform and the speed is meaningless.
pub fn fifo_sim_speed(rust_hdl_cycles: u64, verilator_cycles: u64) -> Result<SimSpeedReport> {
    ensure!(rust_hdl_cycles > 0 && verilator_cycles > 0, "fifo_sim_speed: cycle counts must be positive");
    let pool = beat_pool();
    let rust_hdl_seconds = run_rust_hdl(&pool, rust_hdl_cycles).context("rust-hdl simulation")?;
    let verilator_seconds = run_verilator(&pool, verilator_cycles).context("Verilator simulation")?;
    let model_build_seconds = clean_build_seconds().context("clean model build")?;
    let rust_hdl_cycles_per_second = rust_hdl_cycles as f64 / rust_hdl_seconds;
    let verilator_cycles_per_second = verilator_cycles as f64 / verilator_seconds;
    Ok(SimSpeedReport {
        design: format!("{MODULE} 512-bit store-and-forward, depth {DEPTH}, {BEATS_PER_PACKET}-beat packets"),
        rust_hdl_cycles,
        rust_hdl_seconds,
        rust_hdl_cycles_per_second,
        verilator_cycles,
        verilator_seconds,
        verilator_cycles_per_second,
        speedup: verilator_cycles_per_second / rust_hdl_cycles_per_second,
        model_build_seconds,
    })
}

/// One random 512-bit beat as little-endian 64-bit words.
type Beat = [u64; 8];

/// [`POOL_BEATS`] random beats from a fixed seed.
fn beat_pool() -> Vec<Beat> {
    let mut rng = SmallRng::seed_from_u64(0x5eed);
    (0..POOL_BEATS).map(|_| rng.gen()).collect()
}

/// Whether beat `i` of the stream ends its packet.
fn is_last(i: u64) -> bool {
    i % BEATS_PER_PACKET == BEATS_PER_PACKET - 1
}

/// Beats in and out of the FIFO and the first wrong output beat, if any.
#[derive(Debug, Default)]
struct Flow {
    sent: u64,
    received: u64,
    error: Option<String>,
}

impl Flow {
    /// Records output beat number `self.received`; `data_ok` and `last` are
    /// what the FIFO delivered, compared by the caller against the stream.
    fn receive(&mut self, data_ok: bool, last: bool) {
        let i = self.received;
        if self.error.is_none() && !data_ok {
            self.error = Some(format!("output beat {i}: wrong tdata"));
        }
        if self.error.is_none() && last != is_last(i) {
            self.error = Some(format!("output beat {i}: tlast {last}, expected {}", is_last(i)));
        }
        self.received += 1;
    }

    /// Fails unless beats came out and all of them were right.
    fn check(&self) -> Result<()> {
        if let Some(e) = &self.error {
            bail!("{e}");
        }
        ensure!(self.received > 0, "no beat came out of the FIFO ({} went in)", self.sent);
        Ok(())
    }
}

/// Runs `cycles` cycles of traffic in rust-hdl's simulator; returns the
/// wall-clock seconds of those cycles (reset and set-up excluded).
fn run_rust_hdl(pool: &[Beat], cycles: u64) -> Result<f64> {
    let pool: Arc<Vec<Bits<512>>> = Arc::new(
        pool.iter()
            .map(|words| {
                let mut b = Bits::<512>::default();
                for (i, w) in words.iter().enumerate() {
                    b.set_bits::<64>(64 * i, bits(*w));
                }
                b
            })
            .collect(),
    );
    let outcome = Arc::new(Mutex::new((Flow::default(), 0.0f64)));
    let mut sim = Simulation::<Fifo512>::new();
    sim.add_clock(HALF_PERIOD, |x: &mut Box<Fifo512>| x.clock.next = !x.clock.val());
    let tb_outcome = outcome.clone();
    sim.add_testbench(move |mut sim: Sim<Fifo512>| {
        let mut x = sim.init()?;
        x.reset.next = true;
        x.s.tvalid.next = false;
        x.s.tkeep.next = Bits::<64>::mask();
        x.m.tready.next = true;
        x.clear_drops.next = false;
        wait_clock_cycles!(sim, clock, x, RESET_CYCLES);
        x.reset.next = false;
        let mut flow = Flow::default();
        let started = Instant::now();
        for _ in 0..cycles {
            // Just after the rising edge: drive this cycle's beat (held until accepted).
            wait_clock_true!(sim, clock, x);
            let i = flow.sent;
            x.s.tdata.next = pool[i as usize % POOL_BEATS];
            x.s.tlast.next = is_last(i);
            x.s.tuser.next = bits(i / BEATS_PER_PACKET);
            x.s.tvalid.next = true;
            // Half a cycle later the logic has settled: these are the values
            // the next rising edge sees.
            wait_clock_false!(sim, clock, x);
            if x.s.tready.val() {
                flow.sent += 1;
            }
            if x.m.tvalid.val() {
                let data_ok = x.m.tdata.val() == pool[flow.received as usize % POOL_BEATS];
                flow.receive(data_ok, x.m.tlast.val());
            }
        }
        *tb_outcome.lock().unwrap() = (flow, started.elapsed().as_secs_f64());
        sim.done(x)
    });
    let mut fifo = Fifo512::new(DEPTH, true);
    fifo.connect_all();
    let max_time = (RESET_CYCLES + cycles + 2) * 2 * HALF_PERIOD;
    sim.run(Box::new(fifo), max_time).map_err(|e| anyhow!("rust-hdl simulation failed: {e:?}"))?;
    let (flow, seconds) = std::mem::take(&mut *outcome.lock().unwrap());
    flow.check()?;
    Ok(seconds)
}

/// Drives the traffic into the Verilated FIFO and checks what comes out.
struct VerilatorTraffic<'a> {
    pool: &'a [Beat],
    s_tdata: Port,
    s_tkeep: Port,
    s_tlast: Port,
    s_tuser: Port,
    s_tvalid: Port,
    s_tready: Port,
    m_tdata: Port,
    m_tlast: Port,
    m_tvalid: Port,
    m_tready: Port,
    flow: Flow,
    /// Scratch for the output beat.
    out: Beat,
}

impl<'a> VerilatorTraffic<'a> {
    fn new(m: &Model, pool: &'a [Beat]) -> Result<VerilatorTraffic<'a>> {
        Ok(VerilatorTraffic {
            pool,
            s_tdata: m.port("s_tdata")?,
            s_tkeep: m.port("s_tkeep")?,
            s_tlast: m.port("s_tlast")?,
            s_tuser: m.port("s_tuser")?,
            s_tvalid: m.port("s_tvalid")?,
            s_tready: m.port("s_tready")?,
            m_tdata: m.port("m_tdata")?,
            m_tlast: m.port("m_tlast")?,
            m_tvalid: m.port("m_tvalid")?,
            m_tready: m.port("m_tready")?,
            flow: Flow::default(),
            out: Beat::default(),
        })
    }
}

impl Agent for VerilatorTraffic<'_> {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let i = self.flow.sent;
        m.set_wide(&self.s_tdata, &self.pool[i as usize % POOL_BEATS]);
        m.set(&self.s_tkeep, u64::MAX);
        m.set(&self.s_tlast, is_last(i) as u64);
        m.set(&self.s_tuser, i / BEATS_PER_PACKET);
        m.set(&self.s_tvalid, 1);
        m.set(&self.m_tready, 1);
    }

    fn sample(&mut self, m: &Model, _cycle: u64) {
        if m.get(&self.s_tready) != 0 {
            self.flow.sent += 1;
        }
        if m.get(&self.m_tvalid) != 0 {
            m.get_wide(&self.m_tdata, &mut self.out);
            let data_ok = self.out == self.pool[self.flow.received as usize % POOL_BEATS];
            self.flow.receive(data_ok, m.get(&self.m_tlast) != 0);
        }
    }
}

/// Runs `cycles` cycles of traffic on the (cached) Verilated model through
/// [`Tb`]; returns the wall-clock seconds of the stepping loop.
fn run_verilator(pool: &[Beat], cycles: u64) -> Result<f64> {
    let lib = model_of(&mut Fifo512::new(DEPTH, true), MODULE, TAG)?;
    let m = lib.instantiate();
    let mut traffic = VerilatorTraffic::new(&m, pool)?;
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(RESET_CYCLES);
    let started = Instant::now();
    tb.run(&mut [&mut traffic], cycles);
    let seconds = started.elapsed().as_secs_f64();
    traffic.flow.check()?;
    Ok(seconds)
}

/// Times a build of the FIFO's model that cannot hit the cache: the Verilog
/// carries a unique header line, so its cache key is new. (Pointing
/// `TS_BUILD_DIR` at an empty directory would do the same, but changing the
/// environment of a multi-threaded test process would move the builds of
/// tests running beside this one.) The Verilog and the cache entry are
/// removed afterwards.
fn clean_build_seconds() -> Result<f64> {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    let nonce = format!("{}-{nanos}", std::process::id());
    let verilog =
        trimswitch_hdl::gen::emit::emit_verilog(&mut Fifo512::new(DEPTH, true), MODULE, &[format!("clean-build timing probe {nonce}")])?;
    let src_dir = std::env::temp_dir().join(format!("ts-sim-speed-{nonce}"));
    std::fs::create_dir_all(&src_dir).with_context(|| format!("creating {}", src_dir.display()))?;
    let src = src_dir.join(format!("{MODULE}.v"));
    let built = std::fs::write(&src, verilog).with_context(|| format!("writing {}", src.display())).and_then(|()| {
        let started = Instant::now();
        let lib = build_model(&[src], MODULE, &BuildOptions::default())?;
        Ok((lib, started.elapsed().as_secs_f64()))
    });
    std::fs::remove_dir_all(&src_dir).with_context(|| format!("removing {}", src_dir.display()))?;
    let (lib, seconds) = built?;
    ensure!(lib.freshly_built(), "the probe model was found in the cache at {}", lib.dir().display());
    let cache = lib.dir().to_path_buf();
    drop(lib);
    std::fs::remove_dir_all(&cache).with_context(|| format!("removing {}", cache.display()))?;
    Ok(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both simulators run and pass data (checked inside `fifo_sim_speed`);
    /// speeds are not asserted, wall time being noisy on shared machines.
    #[test]
    fn fifo_sim_speed_runs() -> Result<()> {
        let r = fifo_sim_speed(2_000, 20_000)?;
        assert!(r.rust_hdl_cycles_per_second > 0.0, "{r:?}");
        assert!(r.verilator_cycles_per_second > 0.0, "{r:?}");
        assert!(r.model_build_seconds > 0.0, "{r:?}");
        Ok(())
    }
}

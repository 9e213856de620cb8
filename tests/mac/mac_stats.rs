//! `MacStats`, a board's MAC counters in its register map (issue 18,
//! `docs/boards.md`, "The board window"), in Verilator on two unrelated
//! clocks: six counters on a MAC clock of 6.4 ns (some counting frames, one
//! at a time, some counting bytes, up to 1 518 at a time), the host on the
//! switch's 5.0 ns. Every value read is one the counter really had, no
//! older than 12 MAC cycles, never going backwards; once the counters stop,
//! every read is exact. (That all 32 bits of a value cross together is the
//! hand-over's construction, `SnapshotSync`: a two-state simulation cannot
//! show a torn read; a hand-over that stalls or skips fails this test.) Addresses below 0x40000 reach the switch's map unchanged; a write
//! to a counter changes nothing; past the counters: DECERR.
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::board::mac_stats::{MacStats, BOARD_WINDOW};
use trimswitch_sim::agents::axil::{AxilMaster, AxilResult};
use trimswitch_sim::harness::clocks::TwoClocks;
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::Agent;
use trimswitch_sim::harness::verilator::{Model, Port};

const WORDS: usize = 6;

/// The MAC side: each counter steps by 0..=`step[k]` per MAC cycle while
/// `running`; `seen[k]` every value it had, with the MAC cycle it took it.
struct Macs {
    ports: Vec<Port>,
    step: [u32; WORDS],
    value: [u64; WORDS],
    seen: Vec<Vec<(u64, u64)>>,
    running: bool,
    rng: SmallRng,
}

impl Agent for Macs {
    fn drive(&mut self, m: &mut Model, cycle: u64) {
        for k in 0..WORDS {
            if self.running && self.rng.gen_bool(0.5) {
                self.value[k] += self.rng.gen_range(1..=self.step[k]) as u64;
                self.seen[k].push((cycle, self.value[k]));
            }
            m.set(&self.ports[k], self.value[k] & 0xFFFF_FFFF);
        }
    }
    fn sample(&mut self, _m: &Model, _cycle: u64) {}
}

/// An AXI4-Lite slave (the switch's port behind the window, or behind a
/// bridge): takes every write (recording it) and answers a read of `a`
/// with `0xC0DE0000 | a`.
pub(crate) struct SwitchSide {
    p: [Port; 17],
    aw: Option<u64>,
    w: Option<u64>,
    bvalid: bool,
    rvalid: Option<u64>,
    pub(crate) writes: Vec<(u64, u64)>,
    /// Addresses from here on answer DECERR (nothing mapped).
    pub(crate) decerr_from: u64,
    bresp: u64,
}

impl SwitchSide {
    /// The slave on the model's `<prefix>_*` master ports.
    pub(crate) fn new(m: &Model, prefix: &str) -> SwitchSide {
        SwitchSide {
            p: SW.map(|s| m.port(&format!("{prefix}_{s}")).unwrap()),
            aw: None,
            w: None,
            bvalid: false,
            rvalid: None,
            writes: vec![],
            decerr_from: u64::MAX,
            bresp: 0,
        }
    }
}

const SW: [&str; 17] = [
    "awaddr", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready", "bresp", "bvalid", "bready", "araddr", "arvalid", "arready",
    "rdata", "rresp", "rvalid", "rready",
];

impl Agent for SwitchSide {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let [_, _, awready, _, _, _, wready, bresp, bvalid, _, _, _, arready, rdata, rresp, rvalid, _] = self.p;
        m.set(&awready, self.aw.is_none() as u64);
        m.set(&wready, self.w.is_none() as u64);
        m.set(&bvalid, self.bvalid as u64);
        m.set(&bresp, self.bresp);
        m.set(&arready, self.rvalid.is_none() as u64);
        m.set(&rvalid, self.rvalid.is_some() as u64);
        m.set(&rdata, 0xC0DE_0000 | self.rvalid.unwrap_or(0));
        m.set(&rresp, if self.rvalid.unwrap_or(0) >= self.decerr_from { 3 } else { 0 });
    }
    fn sample(&mut self, m: &Model, _cycle: u64) {
        let [awaddr, awvalid, _, wdata, _, wvalid, _, _, _, bready, araddr, arvalid, _, _, _, _, rready] = self.p;
        if self.bvalid && m.get(&bready) == 1 {
            self.bvalid = false;
        }
        if self.rvalid.is_some() && m.get(&rready) == 1 {
            self.rvalid = None;
        } else if self.rvalid.is_none() && m.get(&arvalid) == 1 {
            self.rvalid = Some(m.get(&araddr));
        }
        if self.aw.is_none() && m.get(&awvalid) == 1 {
            self.aw = Some(m.get(&awaddr));
        }
        if self.w.is_none() && m.get(&wvalid) == 1 {
            self.w = Some(m.get(&wdata));
        }
        if let (Some(a), Some(d), false) = (self.aw, self.w, self.bvalid) {
            self.bresp = if a >= self.decerr_from { 3 } else { 0 };
            if self.bresp == 0 {
                self.writes.push((a, d));
            }
            (self.aw, self.w, self.bvalid) = (None, None, true);
        }
    }
}

#[test]
fn counters_cross_whole_and_the_switch_map_passes_through() -> Result<()> {
    let m = model_of(&mut MacStats::new(1, WORDS), "ts_mac_stats", "c1-w6")?.instantiate();
    let mut macs = Macs {
        ports: (0..WORDS).map(|k| m.port(&format!("word_{k}")).unwrap()).collect(),
        step: [1, 1, 1518, 1518, 1, 64],
        value: [0; WORDS],
        seen: vec![vec![(0, 0)]; WORDS],
        running: true,
        rng: SmallRng::seed_from_u64(5),
    };
    let mut sw = SwitchSide::new(&m, "m_switch");
    let mut host = AxilMaster::new(&m, "s_axil", 6)?;
    let mut clk = TwoClocks::new(m, ["word_clock_0", "clock"], ["word_reset_0", "reset"], [6400, 5000], 7)?;
    for k in 1..WORDS {
        clk = clk.also(0, &format!("word_clock_{k}"), &format!("word_reset_{k}"))?;
    }
    clk.reset(4);
    let bad = |e: &str| anyhow::anyhow!("{e}");
    // One transaction at a time; returns its result and the MAC cycle it
    // was issued in.
    let run = |clk: &mut TwoClocks, host: &mut AxilMaster, macs: &mut Macs, sw: &mut SwitchSide| -> Result<(AxilResult, u64)> {
        let issued = clk.cycles[0];
        for _ in 0..2000 {
            clk.step(&mut [macs], &mut [host, sw]);
            if let Some(r) = host.results.pop_front() {
                return Ok((r, issued));
            }
        }
        Err(bad("no AXI4-Lite response in 2 000 edges"))
    };
    // While the counters run: 400 reads, each a value the counter had,
    // at most 12 MAC cycles older than the read, never going back.
    let mut last = [0u64; WORDS];
    let mut rng = SmallRng::seed_from_u64(8);
    // The control register: read/write, reset 0, on the `control_0` port.
    let control = clk.model.port("control_0")?;
    host.read(BOARD_WINDOW as u64);
    let (r, _) = run(&mut clk, &mut host, &mut macs, &mut sw)?;
    ensure!(matches!(r, AxilResult::Read { data: 0, resp: 0, .. }), "control at reset: {r:?}");
    host.write(BOARD_WINDOW as u64, 0x5);
    let (r, _) = run(&mut clk, &mut host, &mut macs, &mut sw)?;
    ensure!(matches!(r, AxilResult::Write { resp: 0, .. }) && clk.model.get(&control) == 5, "control write: {r:?}");
    // The words follow the control register.
    let word = |k: usize| BOARD_WINDOW as u64 + 4 + 4 * k as u64;
    for _ in 0..400 {
        let k = rng.gen_range(0..WORDS);
        host.read(word(k));
        let (r, issued) = run(&mut clk, &mut host, &mut macs, &mut sw)?;
        let AxilResult::Read { data, resp: 0, .. } = r else { anyhow::bail!("word {k}: {r:?}") };
        let at = macs.seen[k].iter().position(|&(_, v)| v & 0xFFFF_FFFF == data as u64);
        let Some(at) = at else { anyhow::bail!("word {k}: {data:#x} is no value the counter had") };
        let (_, v) = macs.seen[k][at];
        let then = macs.seen[k].iter().rev().find(|(c, _)| *c + 12 <= issued).map_or(0, |&(_, v)| v);
        ensure!(v >= then, "word {k}: read {v}, but the counter was {then} 12 MAC cycles before the read");
        ensure!(v >= last[k], "word {k}: read {v} after {}", last[k]);
        last[k] = v;
    }
    // Stopped: exact.
    macs.running = false;
    for _ in 0..40 {
        clk.step(&mut [&mut macs], &mut [&mut host, &mut sw]);
    }
    for k in 0..WORDS {
        host.read(word(k));
        let (r, _) = run(&mut clk, &mut host, &mut macs, &mut sw)?;
        ensure!(r == AxilResult::Read { addr: word(k), data: macs.value[k] as u32, resp: 0 }, "word {k}: {r:?}, counter {}", macs.value[k]);
    }
    // A write to a counter is taken and changes nothing; past the last: DECERR.
    host.write(word(2), 0);
    let (r, _) = run(&mut clk, &mut host, &mut macs, &mut sw)?;
    ensure!(matches!(r, AxilResult::Write { resp: 0, .. }), "write to a counter: {r:?}");
    host.read(word(2));
    let (r, _) = run(&mut clk, &mut host, &mut macs, &mut sw)?;
    ensure!(
        matches!(r, AxilResult::Read { data, resp: 0, .. } if data as u64 == macs.value[2] & 0xFFFF_FFFF),
        "counter 2 after a write: {r:?}"
    );
    host.read(word(WORDS));
    let (r, _) = run(&mut clk, &mut host, &mut macs, &mut sw)?;
    ensure!(matches!(r, AxilResult::Read { resp: 3, .. }), "past the counters: {r:?}");
    // The switch's map below the window, its addresses unchanged.
    host.write(0x1_2344, 0xABCD);
    let (r, _) = run(&mut clk, &mut host, &mut macs, &mut sw)?;
    ensure!(matches!(r, AxilResult::Write { resp: 0, .. }) && sw.writes == [(0x1_2344, 0xABCD)], "switch write: {r:?}, {:?}", sw.writes);
    host.read(0x3_FFFC);
    let (r, _) = run(&mut clk, &mut host, &mut macs, &mut sw)?;
    ensure!(r == AxilResult::Read { addr: 0x3_FFFC, data: 0xC0DE_0000 | 0x3_FFFC, resp: 0 }, "switch read: {r:?}");
    ensure!(host.errors.is_empty(), "{:?}", host.errors);
    eprintln!("mac_stats: 400 reads under way, {WORDS} exact after, {:?} cycles (MAC, switch)", clk.cycles);
    Ok(())
}

//! `ts_meter_bank` and `ts_port_mode` in Verilator, cycle by cycle against the
//! golden models (`sim/src/model/meter.rs`) and against closed-form
//! expectations written here from the specification (`hdl/src/tm/meter.rs`).
//! Every output is compared in every cycle; nothing depends on wall-clock time.
use crate::common;
use anyhow::{ensure, Result};
use common::MIN_CYCLES;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use trimswitch_hdl::tm::meter::{mode, rate_fixed, MeterBank, PortMode};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::Tb;
use trimswitch_sim::harness::verilator::Port;
use trimswitch_sim::model::meter::{MeterBankModel, MeterInputs, MeterReq, PortModeModel, FRAC};

const LATENCY: u64 = MeterBank::LATENCY;
/// Largest wire size of a request: a 9018-byte jumbo frame plus 24.
const MAX_WIRE: u16 = 9018 + 24;

// ---------------------------------------------------------------- port mode

struct ModeDut {
    tb: Tb,
    model: PortModeModel,
    n: usize,
    reset: Port,
    notify: Vec<Port>,
    t0: Port,
    t1: Port,
    mode: Vec<Port>,
    cycles: Vec<[Port; 3]>,
    notifies: Vec<Port>,
    clr: Vec<[Port; 4]>,
}

impl ModeDut {
    fn new(n: usize) -> Result<ModeDut> {
        let lib = model_of(&mut PortMode::new(n), "ts_port_mode", &format!("n{n}"))?;
        let m = lib.instantiate();
        let ports = |name: &str| (0..n).map(|p| m.port(&format!("{name}_{p}"))).collect::<Result<Vec<_>>>();
        let (opt, half, pess) = (ports("cycles_opt")?, ports("cycles_half")?, ports("cycles_pess")?);
        let dut = ModeDut {
            reset: m.port("reset")?,
            notify: ports("notify")?,
            t0: m.port("t0")?,
            t1: m.port("t1")?,
            mode: ports("mode")?,
            cycles: (0..n).map(|p| [opt[p], half[p], pess[p]]).collect(),
            notifies: ports("notifies")?,
            clr: {
                let c = [ports("clr_cycles_opt")?, ports("clr_cycles_half")?, ports("clr_cycles_pess")?, ports("clr_notifies")?];
                (0..n).map(|p| [c[0][p], c[1][p], c[2][p], c[3][p]]).collect()
            },
            tb: Tb::new(m, "clock", None)?,
            model: PortModeModel::new(n),
            n,
        };
        Ok(dut)
    }

    /// Checks every output against the model, then runs one cycle with these
    /// inputs in both. Returns the modes of this cycle.
    fn cycle(&mut self, reset: bool, notify: &[bool], t0: u32, t1: u32) -> Result<Vec<u8>> {
        self.cycle_clr(reset, notify, &[], t0, t1)
    }

    /// [`ModeDut::cycle`] with counter clears (`clr[p]` as in
    /// [`PortModeModel::clock`]).
    fn cycle_clr(&mut self, reset: bool, notify: &[bool], clr: &[u8], t0: u32, t1: u32) -> Result<Vec<u8>> {
        let c = self.tb.cycle();
        let mut modes = vec![];
        for p in 0..self.n {
            let m = &self.tb.model;
            let got = m.get(&self.mode[p]) as u8;
            ensure!(got == self.model.mode(p), "cycle {c} port {p}: mode {got}, model {}", self.model.mode(p));
            let cyc = [0, 1, 2].map(|k| m.get(&self.cycles[p][k]) as u32);
            ensure!(cyc == self.model.cycles(p), "cycle {c} port {p}: mode cycles {cyc:?}, model {:?}", self.model.cycles(p));
            let nn = m.get(&self.notifies[p]) as u32;
            ensure!(nn == self.model.notifies(p), "cycle {c} port {p}: notifies {nn}, model {}", self.model.notifies(p));
            modes.push(got);
        }
        let m = &mut self.tb.model;
        m.set(&self.reset, reset as u64);
        // `p` indexes the per-port notify, clear and mode ports alike.
        #[allow(clippy::needless_range_loop)]
        for p in 0..self.n {
            m.set(&self.notify[p], notify[p] as u64);
            let c = clr.get(p).copied().unwrap_or(0);
            for k in 0..4 {
                m.set(&self.clr[p][k], (c >> k & 1) as u64);
            }
        }
        m.set(&self.t0, t0 as u64);
        m.set(&self.t1, t1 as u64);
        self.tb.step(&mut []);
        self.model.clock(reset, notify, clr, t0, t1);
        Ok(modes)
    }

    fn reset(&mut self) -> Result<()> {
        let idle = vec![false; self.n];
        for _ in 0..2 {
            self.cycle(true, &idle, 0, 0)?;
        }
        Ok(())
    }
}

/// The specified mode of a port in cycle `c`, from its notify cycles alone:
/// the last notify `n < c` gives pessimistic for `c - n <= t0`, halftimistic
/// for `c - n <= t0 + t1`, else optimistic.
fn expected_mode(notifies: &[u64], c: u64, t0: u64, t1: u64) -> u8 {
    match notifies.iter().rev().find(|&&n| n < c) {
        None => mode::OPTIMISTIC,
        Some(&n) if c - n <= t0 => mode::PESSIMISTIC,
        Some(&n) if c - n <= t0 + t1 => mode::HALFTIMISTIC,
        _ => mode::OPTIMISTIC,
    }
}

/// Directed notify schedules for four ports, for every (T0, T1) pair below:
/// - port 0: one notify: pessimistic exactly T0 cycles, halftimistic exactly
///   T1, then optimistic;
/// - port 1: a second notify in the middle of halftimistic restarts T0;
/// - port 2: a second notify in the middle of pessimistic restarts T0, and a
///   third one in the next cycle (back to back);
/// - port 3: notified in the same cycles as port 0 and port 1 (simultaneous
///   notifies on several ports, in different modes);
/// - then all four at once, some still in a phase.
///
/// Each cycle's mode must equal [`expected_mode`] and the model; at the end
/// the per-mode cycle counters and notify counts must equal the closed form.
#[test]
fn mode_fsm_timing() -> Result<()> {
    let mut d = ModeDut::new(4)?;
    let pairs: [(u32, u32); 10] = [(1, 1), (1, 0), (0, 1), (0, 0), (2, 3), (5, 1), (1, 7), (17, 40), (0, 9), (938, 3750)];
    let mut cycles_run = 0;
    for (t0, t1) in pairs {
        d.reset()?;
        let start = d.tb.cycle();
        let (t0u, t1u) = (t0 as u64, t1 as u64);
        let c0 = start + 10;
        let c_half = c0 + t0u + 1 + t1u / 2; // in halftimistic when t1 > 0
        let c_pess = c0 + t0u.div_ceil(2).max(1); // in pessimistic when t0 > 0
        let c_all = c0 + 2 * (t0u + t1u) + 20;
        let sched: [Vec<u64>; 4] = [vec![c0, c_all], vec![c0, c_half, c_all], vec![c0, c_pess, c_pess + 1, c_all], vec![c0, c_half, c_all]];
        let end = c_all + t0u + t1u + 10;
        let mut seen = [[0u64; 3]; 4];
        // Port 0's first episode, for the exact-length check.
        let mut first = [0u64; 3];
        while d.tb.cycle() < end {
            let c = d.tb.cycle();
            let notify: Vec<bool> = sched.iter().map(|s| s.contains(&c)).collect();
            let modes = d.cycle(false, &notify, t0, t1)?;
            for p in 0..4 {
                let want = expected_mode(&sched[p], c, t0u, t1u);
                ensure!(modes[p] == want, "t0 {t0} t1 {t1} cycle {} port {p}: mode {}, expected {want}", c - start, modes[p]);
                seen[p][want as usize] += 1;
            }
            if c < c_all {
                first[modes[0] as usize] += 1;
            }
        }
        ensure!(
            first[mode::PESSIMISTIC as usize] == t0u && first[mode::HALFTIMISTIC as usize] == t1u,
            "t0 {t0} t1 {t1}: port 0 phases {first:?}"
        );
        for p in 0..4 {
            let got = d.model.cycles(p).map(u64::from);
            ensure!(got == seen[p], "t0 {t0} t1 {t1} port {p}: model counters {got:?}, closed form {:?}", seen[p]);
            let n = sched[p].iter().filter(|&&c| c < end).count() as u32;
            ensure!(d.model.notifies(p) == n, "port {p}: {} notifies counted, {n} sent", d.model.notifies(p));
        }
        // One more cycle so the counters of the last cycle are compared too.
        d.cycle(false, &[false; 4], t0, t1)?;
        cycles_run += d.tb.cycle() - start;
    }
    eprintln!("mode_fsm_timing: {cycles_run} cycles over {} (T0, T1) pairs", pairs.len());
    Ok(())
}

/// Random notifies (bursty, several ports at once) with T0 and T1 changed at
/// random times, including 0 and 1 and changes in the middle of phases, random
/// counter clears, and a reset in the middle: every output equals the model
/// in every cycle.
#[test]
fn mode_fsm_random() -> Result<()> {
    let n = 5;
    let mut d = ModeDut::new(n)?;
    let mut rng = SmallRng::seed_from_u64(11);
    d.reset()?;
    let (mut t0, mut t1) = (6, 24);
    let mut p_notify = 0.01;
    let mut changes = 0;
    let mut modes_seen = [0u64; 3];
    for i in 0..MIN_CYCLES + 20_000 {
        if rng.gen_bool(0.002) {
            let pick = |rng: &mut SmallRng| match rng.gen_range(0..4) {
                0 => rng.gen_range(0..=2),
                1 => rng.gen_range(3..40),
                2 => rng.gen_range(40..400),
                _ => rng.gen_range(0..8),
            };
            (t0, t1) = (pick(&mut rng), pick(&mut rng));
            p_notify = [0.0005, 0.005, 0.02, 0.2][rng.gen_range(0..4)];
            changes += 1;
        }
        let reset = i == MIN_CYCLES / 2 || i == MIN_CYCLES / 2 + 1;
        let notify: Vec<bool> = (0..n).map(|_| rng.gen_bool(p_notify)).collect();
        let clr: Vec<u8> = (0..n).map(|_| if rng.gen_bool(0.001) { rng.gen_range(1..16) } else { 0 }).collect();
        for m in d.cycle_clr(reset, &notify, &clr, t0, t1)? {
            modes_seen[m as usize] += 1;
        }
    }
    ensure!(changes > 100 && modes_seen.iter().all(|&c| c > 10_000), "weak stimulus: {changes} changes, modes {modes_seen:?}");
    eprintln!("mode_fsm_random: {} cycles, {changes} T0/T1 changes, port-cycles per mode {modes_seen:?}", d.tb.cycle());
    Ok(())
}

// --------------------------------------------------------------- meter bank

struct BankDut {
    tb: Tb,
    model: MeterBankModel,
    n: usize,
    reset: Port,
    rate: [Port; 3],
    burst: [Port; 3],
    req: [Port; 4],  // valid, port, bytes, mode
    resp: [Port; 2], // valid, green
    green: Vec<Port>,
    not_green: Vec<Port>,
    clr: [Vec<Port>; 2],
    /// Requests waiting for their answers, with the cycle they were made.
    pending: VecDeque<(u64, MeterReq)>,
    /// Answers seen: (request, green).
    answers: Vec<(MeterReq, bool)>,
}

impl BankDut {
    fn new(n: usize) -> Result<BankDut> {
        let lib = model_of(&mut MeterBank::new(n), "ts_meter_bank", &format!("n{n}"))?;
        let m = lib.instantiate();
        let ports = |name: &str| (0..n).map(|p| m.port(&format!("{name}_{p}"))).collect::<Result<Vec<_>>>();
        let three = |name: &str| -> Result<[Port; 3]> {
            Ok([m.port(&format!("{name}_0"))?, m.port(&format!("{name}_1"))?, m.port(&format!("{name}_2"))?])
        };
        Ok(BankDut {
            reset: m.port("reset")?,
            rate: three("rate")?,
            burst: three("burst")?,
            req: [m.port("req_valid")?, m.port("req_port")?, m.port("req_bytes")?, m.port("req_mode")?],
            resp: [m.port("resp_valid")?, m.port("resp_green")?],
            green: ports("green_pkts")?,
            not_green: ports("not_green_pkts")?,
            clr: [ports("clr_green_pkts")?, ports("clr_not_green_pkts")?],
            tb: Tb::new(m, "clock", None)?,
            model: MeterBankModel::new(n),
            n,
            pending: VecDeque::new(),
            answers: vec![],
        })
    }

    /// Checks every output against the model (and the answer's timing against
    /// the request log), then runs one cycle with `i` in both.
    fn cycle(&mut self, i: &MeterInputs) -> Result<()> {
        let c = self.tb.cycle();
        let m = &self.tb.model;
        let resp = (m.get(&self.resp[0]) == 1).then(|| m.get(&self.resp[1]) == 1);
        ensure!(resp == self.model.resp(), "cycle {c}: answer {resp:?}, model {:?}", self.model.resp());
        if let Some(g) = resp {
            let (at, r) = self.pending.pop_front().ok_or_else(|| anyhow::anyhow!("cycle {c}: answer without a request"))?;
            ensure!(c == at + LATENCY, "cycle {c}: answer to the request of cycle {at}");
            self.answers.push((r, g));
        }
        ensure!(
            self.pending.front().is_none_or(|(at, _)| c < at + LATENCY),
            "cycle {c}: request of cycle {} unanswered",
            self.pending[0].0
        );
        for p in 0..self.n {
            let (g, ng) = (m.get(&self.green[p]) as u32, m.get(&self.not_green[p]) as u32);
            ensure!(
                (g, ng) == (self.model.green_pkts(p), self.model.not_green_pkts(p)),
                "cycle {c} port {p}: green/not green {g}/{ng}, model {}/{}",
                self.model.green_pkts(p),
                self.model.not_green_pkts(p)
            );
        }
        let m = &mut self.tb.model;
        m.set(&self.reset, i.reset as u64);
        for k in 0..3 {
            m.set(&self.rate[k], i.rate[k] as u64);
            m.set(&self.burst[k], i.burst[k] as u64);
        }
        let r = i.req.unwrap_or_default();
        m.set(&self.req[0], i.req.is_some() as u64);
        m.set(&self.req[1], r.port as u64);
        m.set(&self.req[2], r.bytes as u64);
        m.set(&self.req[3], r.mode as u64);
        for p in 0..self.n {
            m.set(&self.clr[0][p], i.clr_green >> p & 1);
            m.set(&self.clr[1][p], i.clr_not_green >> p & 1);
        }
        self.tb.step(&mut []);
        self.model.clock(i);
        if i.reset {
            self.pending.clear();
        } else if let Some(r) = i.req {
            self.pending.push_back((c, r));
        }
        Ok(())
    }

    /// Reset for two cycles with `cfg`'s rates and bursts (buckets full).
    fn reset(&mut self, cfg: &MeterInputs) -> Result<()> {
        let r = MeterInputs { reset: true, req: None, ..*cfg };
        self.cycle(&r)?;
        self.cycle(&r)
    }

    /// Idle cycles until every answer is in.
    fn drain(&mut self, cfg: &MeterInputs) -> Result<()> {
        let idle = MeterInputs { reset: false, req: None, ..*cfg };
        for _ in 0..=LATENCY {
            self.cycle(&idle)?;
        }
        ensure!(self.pending.is_empty(), "answers missing");
        Ok(())
    }
}

/// Directed, with rate 0 so levels only go down, expectations written out:
/// - the answer comes exactly `LATENCY` cycles after its request;
/// - back-to-back requests to one port see each other's charge;
/// - every request charges all three meters of its port that hold its bytes,
///   and only those (a mode-0 request drains the pessimistic meter too);
/// - another port's buckets are untouched; an out-of-range port is answered
///   not green and counted nowhere.
#[test]
fn meter_bank_directed() -> Result<()> {
    let mut d = BankDut::new(3)?;
    let cfg = MeterInputs { burst: [1000, 1000, 500], ..Default::default() };
    d.reset(&cfg)?;
    let rq = |port: u8, bytes: u16, mode: u8| MeterInputs { req: Some(MeterReq { port, bytes, mode }), ..cfg };
    // Back to back on port 1, then port 0, then out of range.
    let reqs = [
        (rq(1, 600, 0), true),  // opt, half 1000 -> 400; pess 500 < 600: not charged
        (rq(1, 600, 0), false), // sees the previous charge: 400 < 600
        (rq(1, 450, 2), true),  // pess 500 -> 50; opt, half 400 < 450: not charged
        (rq(1, 400, 1), true),  // half 400 -> 0, opt too; pess 50: not charged
        (rq(1, 1, 0), false),   // opt is empty; pess still passes 1 byte: 50 -> 49
        (rq(1, 49, 3), true),   // mode 3 is pessimistic: 49 -> 0
        (rq(0, 1000, 1), true), // port 0 untouched so far
        (rq(7, 64, 0), false),  // out of range
    ];
    for (r, _) in &reqs {
        d.cycle(r)?;
    }
    d.drain(&cfg)?;
    let got: Vec<bool> = d.answers.iter().map(|a| a.1).collect();
    let want: Vec<bool> = reqs.iter().map(|r| r.1).collect();
    ensure!(got == want, "answers {got:?}, expected {want:?}");
    ensure!((d.model.green_pkts(1), d.model.not_green_pkts(1)) == (4, 2), "port 1 counters");
    ensure!((d.model.green_pkts(0), d.model.not_green_pkts(0), d.model.green_pkts(2)) == (1, 0, 0), "port 0/2 counters");
    for k in 0..3 {
        ensure!(d.model.level(1, k) == 0, "port 1 bucket {k} not empty");
    }
    ensure!(d.model.level(2, 0) == 1000 << FRAC, "port 2 was charged");
    Ok(())
}

/// Random requests for ≥ 100k cycles: random ports (back to back on one port
/// often, out of range sometimes), sizes 64..=9042 (and 0, 1, 65535), all four
/// mode codes, rates and bursts changed at random times (sometimes in
/// consecutive cycles), idle gaps, random counter clears, two mid-run resets. Every answer and
/// counter equals the model in every cycle.
#[test]
fn meter_bank_random() -> Result<()> {
    let n = 5;
    let mut d = BankDut::new(n)?;
    let mut rng = SmallRng::seed_from_u64(5);
    let random_cfg = |rng: &mut SmallRng, load: f64| -> MeterInputs {
        // Demand per port about load * 3000 B/cycle; rates around it.
        let demand = (load * 3000.0 / 5.0).max(1.0);
        let rate = |rng: &mut SmallRng| match rng.gen_range(0..8) {
            0 => 0,
            1 => rng.gen(),
            _ => rate_fixed(rng.gen_range(0.0..2.0 * demand).min(65535.0)),
        };
        let burst = |rng: &mut SmallRng| match rng.gen_range(0..8) {
            0 => rng.gen_range(0..200),
            1 => (1 << 24) - 1,
            _ => rng.gen_range(64..4 * MAX_WIRE as u32),
        };
        MeterInputs { rate: [rate(rng), rate(rng), rate(rng)], burst: [burst(rng), burst(rng), burst(rng)], ..Default::default() }
    };
    let mut load = 0.5;
    let mut cfg = random_cfg(&mut rng, load);
    d.reset(&cfg)?;
    let mut last_port = 0u8;
    let cycles = MIN_CYCLES + 20_000;
    for i in 0..cycles {
        if rng.gen_bool(0.0005) {
            load = rng.gen_range(0.02..1.0);
            cfg = random_cfg(&mut rng, load);
        } else if rng.gen_bool(0.001) {
            // One field changes, possibly again in the next cycles.
            let k = rng.gen_range(0..3);
            if rng.gen() {
                cfg.rate[k] = random_cfg(&mut rng, load).rate[k];
            } else {
                cfg.burst[k] = random_cfg(&mut rng, load).burst[k];
            }
        }
        let mut inp = cfg;
        if rng.gen_bool(0.002) {
            (inp.clr_green, inp.clr_not_green) = (rng.gen_range(0..32), rng.gen_range(0..32));
        }
        if i == cycles / 3 || i == 2 * cycles / 3 {
            d.reset(&cfg)?;
        }
        if rng.gen_bool(load) {
            let port = match rng.gen_range(0..10) {
                0..=3 => last_port,
                4 => rng.gen_range(n as u8..=255),
                _ => rng.gen_range(0..n as u8),
            };
            let bytes = match rng.gen_range(0..40) {
                0 => 0,
                1 => 1,
                2 => u16::MAX,
                3..=20 => rng.gen_range(64..=1524),
                _ => rng.gen_range(64..=MAX_WIRE),
            };
            inp.req = Some(MeterReq { port, bytes, mode: rng.gen_range(0..4) });
            last_port = port;
        }
        d.cycle(&inp)?;
    }
    d.drain(&cfg)?;
    let green = d.answers.iter().filter(|a| a.1).count();
    let total = d.answers.len();
    ensure!(total > 40_000 && green > total / 20 && green < total * 19 / 20, "weak stimulus: {green} green of {total}");
    eprintln!("meter_bank_random: {} cycles, {total} requests, {green} green", d.tb.cycle());
    Ok(())
}

/// A saturating stream (one request every cycle, 64..=9042 wire bytes) on one
/// port in each mode in turn, with the three kinds at fractional rates r, r/2
/// and r/4: the green bytes over C cycles are within one burst of the selected
/// rate times C (and equal the model's, cycle by cycle).
#[test]
fn meter_bank_rate() -> Result<()> {
    let mut d = BankDut::new(4)?;
    let r = 7.3;
    let rates = [rate_fixed(r), rate_fixed(r / 2.0), rate_fixed(r / 4.0)];
    let burst = 2 * MAX_WIRE as u32 + 64;
    let cfg = MeterInputs { rate: rates, burst: [burst; 3], ..Default::default() };
    let mut rng = SmallRng::seed_from_u64(3);
    let c = MIN_CYCLES;
    let mut got = [0.0; 3];
    for k in 0..3u8 {
        d.reset(&cfg)?;
        d.answers.clear();
        for _ in 0..c {
            let req = MeterReq { port: 2, bytes: rng.gen_range(64..=MAX_WIRE), mode: k };
            d.cycle(&MeterInputs { req: Some(req), ..cfg })?;
        }
        d.drain(&cfg)?;
        let green: u64 = d.answers.iter().filter(|a| a.1).map(|a| a.0.bytes as u64).sum();
        let want = rates[k as usize] as f64 / (1u64 << FRAC) as f64 * c as f64;
        ensure!(
            (green as f64 - want).abs() <= burst as f64,
            "mode {k}: {green} green bytes in {c} cycles, rate x cycles = {want:.0}, burst {burst}"
        );
        ensure!(d.model.green_pkts(2) as usize == d.answers.iter().filter(|a| a.1).count(), "counter");
        ensure!((0..4).filter(|&p| p != 2).all(|p| d.model.green_pkts(p) + d.model.not_green_pkts(p) == 0), "other ports counted");
        got[k as usize] = green as f64;
        eprintln!("meter_bank_rate: mode {} ({}): {green} green bytes in {c} cycles, rate x cycles {want:.0}", k, mode::NAMES[k as usize]);
    }
    Ok(())
}

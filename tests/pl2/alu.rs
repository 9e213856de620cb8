//! `ts_pl2_alu` in Verilator: the specification's vectors (`PL2-PROTEGO.md`
//! A.6) asserted on the RTL's own outputs, and long random op streams compared
//! with the golden model (`sim/src/model/pl2.rs`) in every cycle: every
//! result, `IN_RES`/`OUT_RES` of every port and the slot clock each cycle,
//! the counters and the high-water marks one cycle later (their pipeline,
//! `hdl/src/pl2/alu.rs`). Host writes reach the model a cycle after they
//! reach the ALU's inputs (the ALU registers them).
use anyhow::{ensure, Context, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, VecDeque};
use trimswitch_hdl::pl2::alu::{code, kind, Pl2Alu};
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::Tb;
use trimswitch_sim::harness::verilator::Port;
use trimswitch_sim::model::pl2::{DropReason, Op, Outcome, Pl2Config, Pl2Mode, Pl2Model, Rsv, SLOT_ONE};

/// A host write of the ALU's state (A.3, A.9).
#[derive(Clone, Copy, Debug)]
enum Write {
    In(usize, u32),
    Out(usize, u32),
    Now(u32),
}

/// What the model had after one step, for the lagged comparisons.
struct Snap {
    counters: BTreeMap<String, u64>,
    hw: Vec<(u32, u32)>,
}

struct AluDut {
    tb: Tb,
    model: Pl2Model,
    cfg: Pl2Config,
    n: usize,
    p: usize,
    /// Per pipeline: valid, kind, in, src, dst, demand, in and dst one-hot,
    /// the demand clamped to `k_now` and whether it was above.
    op: Vec<[Port; 10]>,
    /// Per pipeline: valid, code, demand, send, recv.
    res: Vec<[Port; 5]>,
    joint: Port,
    k: Port,
    k_now: Port,
    t_drop: Port,
    port_en: Port,
    slot_cycles: Port,
    slot_run: Port,
    wr: [Port; 4],
    hw_clear: Port,
    in_res: Vec<Port>,
    out_res: Vec<Port>,
    in_hw: Vec<Port>,
    out_hw: Vec<Port>,
    now: Port,
    counters: Vec<Port>,
    clear: Vec<Port>,
    /// The ops presented in the previous step (executed in this one).
    prev: Vec<Option<Op>>,
    /// The host write presented in the previous step: the ALU registers it
    /// and it lands at the end of this step's cycle.
    pending: Option<Write>,
    /// A configuration the model takes after this step's cycle.
    pending_cfg: Option<Pl2Config>,
    hist: VecDeque<Snap>,
    /// Outcomes seen, by result code (coverage of the random tests).
    seen: [u64; 8],
    /// The last steps' inputs, for a failure's message.
    trail: VecDeque<String>,
}

/// A port one-hot, as the PL2 stage registers it with the op (none for 64
/// and above).
fn one_hot(p: u8) -> u64 {
    if p < 64 {
        1 << p
    } else {
        0
    }
}

fn op_fields(op: &Op) -> (u8, u8, u8, u8, u8) {
    match *op {
        Op::Rsv(r) => (kind::RSV, r.ingress_port, r.src_port, r.dst_port, r.demand),
        Op::GrtFromHost => (kind::GRT, 0, 0, 0, 0),
        Op::Data { src, dst } => (kind::DATA, src, src, dst, 1),
        Op::Unsol { src, dst } => (kind::UNSOL, src, src, dst, 1),
    }
}

fn outcome_code(o: &Outcome) -> u8 {
    match o {
        Outcome::Grant(_) => code::GRANT,
        Outcome::Pass => code::PASS,
        Outcome::Drop(DropReason::DisabledIngress) => code::DROP_DISABLED_INGRESS,
        Outcome::Drop(DropReason::BadPort) => code::DROP_BAD_PORT,
        Outcome::Drop(DropReason::DemandZero) => code::DROP_DEMAND_ZERO,
        Outcome::Drop(DropReason::GrtFromHost) => code::DROP_GRT_FROM_HOST,
        Outcome::Drop(DropReason::UnsolOverT) => code::DROP_UNSOL,
    }
}

impl AluDut {
    fn new(ports: usize, pipelines: usize, cfg: Pl2Config) -> Result<AluDut> {
        let lib = model_of(&mut Pl2Alu::new(ports, pipelines), "ts_pl2_alu", &format!("p{ports}n{pipelines}"))?;
        let m = lib.instantiate();
        let per = |name: &str, n: usize| (0..n).map(|i| m.port(&format!("{name}_{i}"))).collect::<Result<Vec<_>>>();
        let opn = ["op_valid", "op_kind", "op_in", "op_src", "op_dst", "op_demand", "op_in_oh", "op_dst_oh", "op_dem_k", "op_over_k"];
        let resn = ["res_valid", "res_code", "res_demand", "res_send", "res_recv"];
        let op = (0..pipelines)
            .map(|i| Ok(opn.map(|n| m.port(&format!("{n}_{i}"))).into_iter().collect::<Result<Vec<_>>>()?.try_into().unwrap()));
        let res = (0..pipelines)
            .map(|i| Ok(resn.map(|n| m.port(&format!("{n}_{i}"))).into_iter().collect::<Result<Vec<_>>>()?.try_into().unwrap()));
        let mut d = AluDut {
            op: op.collect::<Result<Vec<[Port; 10]>>>()?,
            res: res.collect::<Result<Vec<[Port; 5]>>>()?,
            joint: m.port("joint")?,
            k: m.port("k")?,
            k_now: m.port("k_now")?,
            t_drop: m.port("t_drop")?,
            port_en: m.port("port_en")?,
            slot_cycles: m.port("slot_cycles")?,
            slot_run: m.port("slot_run")?,
            wr: [m.port("wr_en")?, m.port("wr_sel")?, m.port("wr_port")?, m.port("wr_data")?],
            hw_clear: m.port("hw_clear")?,
            in_res: per("in_res", ports)?,
            out_res: per("out_res", ports)?,
            in_hw: per("in_hw", ports)?,
            out_hw: per("out_hw", ports)?,
            now: m.port("now")?,
            counters: per("counters", Pl2Alu::COUNTERS.len())?,
            clear: per("clear", Pl2Alu::COUNTERS.len())?,
            tb: Tb::new(m, "clock", Some("reset"))?,
            model: Pl2Model::new(cfg).map_err(anyhow::Error::msg)?,
            cfg,
            n: pipelines,
            p: ports,
            prev: vec![None; pipelines],
            pending: None,
            pending_cfg: None,
            hist: VecDeque::new(),
            seen: [0; 8],
            trail: VecDeque::new(),
        };
        d.drive_config();
        d.reset()?;
        Ok(d)
    }

    fn drive_config(&mut self) {
        let (c, m) = (self.cfg, &mut self.tb.model);
        m.set(&self.joint, (c.mode == Pl2Mode::Joint) as u64);
        m.set(&self.k, c.k as u64);
        m.set(&self.t_drop, c.t_drop as u64);
        m.set(&self.port_en, c.port_en);
        m.set(&self.slot_cycles, c.slot_cycles as u64);
        m.set(&self.slot_run, c.slot_run as u64);
    }

    /// Reset: the ALU and a fresh model of the current configuration.
    fn reset(&mut self) -> Result<()> {
        self.idle_inputs();
        self.tb.reset(2);
        self.model = Pl2Model::new(self.cfg).map_err(anyhow::Error::msg)?;
        self.prev = vec![None; self.n];
        self.pending = None;
        self.hist.clear();
        Ok(())
    }

    fn idle_inputs(&mut self) {
        let m = &mut self.tb.model;
        for o in &self.op {
            m.set(&o[0], 0);
        }
        m.set(&self.wr[0], 0);
        m.set(&self.hw_clear, 0);
        for c in &self.clear {
            m.set(c, 0);
        }
    }

    /// New run-time registers, between ops (the previous step idle): the
    /// ALU registers them in an idle cycle and uses them from the next one,
    /// which the model runs with the old ones too (the ALU's slot clock
    /// takes them a cycle later still, and a mode change clears the state at
    /// the end of that second cycle).
    fn configure(&mut self, cfg: Pl2Config) -> Result<()> {
        ensure!(self.prev.iter().all(Option::is_none), "configure: ops in flight");
        self.cfg = cfg;
        self.drive_config();
        self.step(&vec![None; self.n], None)?;
        self.pending_cfg = Some(cfg);
        self.step(&vec![None; self.n], None)?;
        let k_now = self.tb.model.get(&self.k_now);
        ensure!(k_now == cfg.k as u64, "k_now {k_now} two cycles after K = {} was written", cfg.k);
        Ok(())
    }

    /// One clock cycle: presents `ops` (pipeline `i` = `ops[i]`) and the host
    /// write, runs the model's cycle of the ops presented a step before, and
    /// checks everything the RTL shows after the edge. Returns the outcomes of
    /// the ops executed (the previous step's).
    fn step(&mut self, ops: &[Option<Op>], wr: Option<Write>) -> Result<Vec<Option<Outcome>>> {
        self.trail.push_back(format!("cycle {}: {ops:?} {wr:?} now {}", self.tb.cycle() + 1, self.model.now()));
        if self.trail.len() > 16 {
            self.trail.pop_front();
        }
        let r = self.step_checked(ops, wr);
        r.with_context(|| format!("last inputs:\n{}", self.trail.iter().cloned().collect::<Vec<_>>().join("\n")))
    }

    fn step_checked(&mut self, ops: &[Option<Op>], wr: Option<Write>) -> Result<Vec<Option<Outcome>>> {
        let m = &mut self.tb.model;
        // The PL2 stage clamps the demand to the ALU's `k_now` as it
        // registers the op (a configuration changes between ops: `k_now`
        // is the same then as a cycle before).
        let k_now = m.get(&self.k_now) as u8;
        for (i, o) in self.op.iter().enumerate() {
            match ops.get(i).copied().flatten() {
                Some(op) => {
                    let (k, a, s, d, dem) = op_fields(&op);
                    let clamp = [dem.min(k_now) as u64, (dem > k_now) as u64];
                    for (port, v) in
                        o.iter().zip([1, k, a, s, d, dem].map(u64::from).into_iter().chain([one_hot(a), one_hot(d)]).chain(clamp))
                    {
                        m.set(port, v);
                    }
                }
                None => m.set(&o[0], 0),
            }
        }
        match wr {
            Some(w) => {
                let (sel, port, v) = match w {
                    Write::In(p, v) => (0, p, v),
                    Write::Out(p, v) => (1, p, v),
                    Write::Now(v) => (2, 0, v),
                };
                for (port_, x) in self.wr.iter().zip([1, sel, port as u64, v as u64]) {
                    m.set(port_, x);
                }
            }
            None => m.set(&self.wr[0], 0),
        }
        self.tb.step(&mut []);
        let c = self.tb.cycle();
        let outs = self.model.cycle(&self.prev);
        match self.pending.take() {
            Some(Write::In(p, v)) => _ = self.model.set_in_res(p, v),
            Some(Write::Out(p, v)) => _ = self.model.set_out_res(p, v),
            Some(Write::Now(v)) => self.model.set_now(v),
            None => {}
        }
        self.pending = wr;
        if let Some(cfg) = self.pending_cfg.take() {
            self.model.set_config(cfg).map_err(anyhow::Error::msg)?;
        }
        let m = &self.tb.model;
        #[allow(clippy::needless_range_loop)] // `i` indexes the result ports, the ops and the outcomes alike
        for i in 0..self.n {
            let r = &self.res[i];
            let valid = m.get(&r[0]) == 1;
            match (&self.prev[i], &outs[i]) {
                (Some(op), Some(o)) => {
                    ensure!(valid, "cycle {c} pipeline {i}: no result for {op:?}");
                    let got = m.get(&r[1]) as u8;
                    ensure!(got == outcome_code(o), "cycle {c} pipeline {i}: {op:?} gave code {got}, model {o:?}");
                    self.seen[got as usize] += 1;
                    if let Outcome::Grant(g) = o {
                        let f = (m.get(&r[2]) as u8, m.get(&r[3]) as u32, m.get(&r[4]) as u32);
                        ensure!(
                            f == (g.demand, g.send, g.recv),
                            "cycle {c} pipeline {i}: {op:?} granted (demand, send, recv) {f:?}, model {g:?}"
                        );
                    }
                }
                _ => ensure!(!valid, "cycle {c} pipeline {i}: a result with no op"),
            }
        }
        for p in 0..self.p {
            let (a, b) = (m.get(&self.in_res[p]) as u32, m.get(&self.out_res[p]) as u32);
            ensure!(
                (a, b) == (self.model.in_res(p), self.model.out_res(p)),
                "cycle {c} port {p}: IN_RES/OUT_RES {a}/{b}, model {}/{} (mode {:?})",
                self.model.in_res(p),
                self.model.out_res(p),
                self.cfg.mode
            );
        }
        let now = m.get(&self.now) as u32;
        ensure!(now == self.model.now(), "cycle {c}: now {now}, model {}", self.model.now());
        // Lagged: each counter by its lag, the high-water marks one step.
        self.hist.push_front(Snap {
            counters: self.model.counters(),
            hw: (0..self.p).map(|p| (self.model.in_high_water(p), self.model.out_high_water(p))).collect(),
        });
        self.hist.truncate(9);
        for (j, name) in Pl2Alu::COUNTERS.iter().enumerate() {
            if let Some(s) = self.hist.get(Pl2Alu::counter_lag(j) as usize) {
                let want = if *name == "conflict_drop" { s.counters["serialized"] } else { s.counters[*name] };
                let got = m.get(&self.counters[j]);
                ensure!(got == want & 0xFFFF_FFFF, "cycle {c}: counter {name} {got}, model {want}");
            }
        }
        if let Some(s) = self.hist.get(1) {
            for p in 0..self.p {
                let got = (m.get(&self.in_hw[p]) as u32, m.get(&self.out_hw[p]) as u32);
                ensure!(got == s.hw[p], "cycle {c} port {p}: high-water marks {got:?}, model {:?}", s.hw[p]);
            }
        }
        self.prev = ops.to_vec();
        self.prev.resize(self.n, None);
        Ok(outs)
    }

    /// One op on pipeline 0, then idle until its result: the result.
    fn one(&mut self, op: Op) -> Result<Outcome> {
        let mut ops = vec![None; self.n];
        ops[0] = Some(op);
        self.step(&ops, None)?;
        let o = self.step(&vec![None; self.n], None)?;
        Ok(o[0].expect("the op's outcome"))
    }

    fn idle(&mut self, cycles: usize) -> Result<()> {
        for _ in 0..cycles {
            self.step(&vec![None; self.n], None)?;
        }
        Ok(())
    }

    /// A host write, landed: two cycles.
    fn write(&mut self, w: Write) -> Result<()> {
        self.step(&vec![None; self.n], Some(w))?;
        self.step(&vec![None; self.n], None)?;
        Ok(())
    }

    fn state(&self, p: usize) -> (u32, u32) {
        let m = &self.tb.model;
        (m.get(&self.in_res[p]) as u32, m.get(&self.out_res[p]) as u32)
    }

    fn counter(&self, name: &str) -> u64 {
        let j = Pl2Alu::COUNTERS.iter().position(|n| *n == name).expect("counter name");
        self.tb.model.get(&self.counters[j])
    }
}

/// The vectors' setting (A.6): host h on port h, K = 4, T = 20.
fn vec_cfg(mode: Pl2Mode) -> Pl2Config {
    Pl2Config { ports: 8, k: 4, t_drop: 20, mode, port_en: 0xff, slot_cycles: SLOT_ONE, slot_run: false }
}

fn rsv(src: u8, dst: u8, demand: u8) -> Op {
    Op::Rsv(Rsv { ingress_port: src, src_port: src, dst_port: dst, demand, cookie: 0 })
}

fn grant_of(o: Outcome) -> Result<(u8, u32, u32)> {
    match o {
        Outcome::Grant(g) => Ok((g.demand, g.send, g.recv)),
        other => anyhow::bail!("expected a GRT, got {other:?}"),
    }
}

/// A.6 P1-P9 and U1-U5 in paper mode, on the RTL: each GRT's fields and the
/// state after each row are the specification's numbers (the model is
/// checked against the RTL in every cycle on the way).
#[test]
fn vectors_paper() -> Result<()> {
    let mut d = AluDut::new(8, 1, vec_cfg(Pl2Mode::Paper))?;
    // P1-P4 (P4 is 003 Fig. 2).
    ensure!(grant_of(d.one(rsv(1, 3, 4))?)? == (4, 0, 0), "P1");
    ensure!(d.state(1).0 == 4 && d.state(3).1 == 4, "P1 state");
    ensure!(grant_of(d.one(rsv(4, 2, 4))?)? == (4, 0, 0), "P2");
    ensure!(grant_of(d.one(rsv(5, 2, 1))?)? == (1, 0, 4), "P3");
    ensure!(d.state(5).0 == 1 && d.state(2).1 == 5, "P3 state");
    ensure!(grant_of(d.one(rsv(1, 2, 4))?)? == (4, 4, 5), "P4 (Fig. 2)");
    ensure!(d.state(1).0 == 8 && d.state(2).1 == 9, "P4 state");
    // P5-P7: data decrements, back to back.
    let data = |s, t| Some(Op::Data { src: s, dst: t });
    for _ in 0..4 {
        d.step(&[data(1, 3)], None)?;
    }
    d.idle(10)?;
    ensure!(d.state(1).0 == 4 && d.state(3).1 == 0, "P5 state {:?} {:?}", d.state(1), d.state(3));
    for s in [4, 4, 4, 4, 5] {
        d.step(&[data(s, 2)], None)?;
    }
    d.idle(10)?;
    ensure!(d.state(4).0 == 0 && d.state(5).0 == 0 && d.state(2).1 == 4, "P6 state");
    for _ in 0..4 {
        d.step(&[data(1, 2)], None)?;
    }
    d.idle(10)?;
    ensure!((0..8).all(|p| d.state(p) == (0, 0)), "P7: all 0");
    // P8: underflow, counted once per counter hit.
    ensure!(d.one(Op::Data { src: 1, dst: 2 })? == Outcome::Pass, "P8");
    d.idle(10)?;
    ensure!((0..8).all(|p| d.state(p) == (0, 0)) && d.counter("data_underflow") == 2, "P8: underflow +2");
    // P9: demand 7 -> 4, demand 0 and dst 99 dropped.
    ensure!(grant_of(d.one(rsv(1, 3, 7))?)?.0 == 4, "P9 clamp");
    ensure!(d.one(rsv(1, 3, 0))? == Outcome::Drop(DropReason::DemandZero), "P9 demand 0");
    ensure!(d.one(rsv(1, 99, 4))? == Outcome::Drop(DropReason::BadPort), "P9 dst 99");
    d.idle(10)?;
    ensure!(d.counter("rsv_demand_clamped") == 1 && d.counter("rsv_demand_zero") == 1 && d.counter("rsv_bad_port") == 1, "P9 counters");
    // U1-U3: out2 = 18, an RSV, the unsolicited burst dropped, the resend.
    d.reset()?;
    d.write(Write::Out(2, 18))?;
    ensure!(grant_of(d.one(rsv(1, 2, 4))?)? == (4, 0, 18), "U1");
    // The burst from a cycle later: a paper-mode UNSOL compares the counters
    // at the start of the cycle two before its own (`docs/pl2.md`,
    // decision 2), and on the wire the RSV is a 64-byte frame ahead (more
    // than two cycles at 100G).
    d.idle(1)?;
    let unsol = Some(Op::Unsol { src: 1, dst: 2 });
    for _ in 0..4 {
        d.step(&[unsol], None)?;
    }
    d.idle(10)?;
    ensure!(d.state(1).0 == 4 && d.state(2).1 == 22 && d.counter("unsol_drop") == 4, "U2: dropped, unchanged");
    for _ in 0..4 {
        d.step(&[data(1, 2)], None)?;
    }
    d.idle(10)?;
    ensure!(d.state(1).0 == 0 && d.state(2).1 == 18, "U3");
    // U4: out2 = 10: the burst passes and drains its own reservation.
    d.write(Write::Out(2, 10))?;
    ensure!(grant_of(d.one(rsv(1, 2, 4))?)? == (4, 0, 10), "U4 GRT");
    for _ in 0..4 {
        d.step(&[unsol], None)?;
    }
    d.idle(10)?;
    ensure!(d.state(1).0 == 0 && d.state(2).1 == 10 && d.counter("unsol_pass") == 4, "U4 state");
    // U5: max = T passes, T + 1 drops (the UNSOL a cycle after the write
    // has landed: it compares the counters of the cycle two before its own).
    d.write(Write::Out(2, 20))?;
    d.idle(1)?;
    ensure!(d.one(Op::Unsol { src: 1, dst: 2 })? == Outcome::Pass, "U5 at T");
    d.write(Write::Out(2, 21))?;
    d.idle(1)?;
    ensure!(d.one(Op::Unsol { src: 1, dst: 2 })? == Outcome::Drop(DropReason::UnsolOverT), "U5 above T");
    Ok(())
}

/// A.6 J1 and J3 in joint mode on the RTL, and the time-based design's answer
/// to J2's traffic: no backlog once `now` has passed the grants.
#[test]
fn vectors_joint() -> Result<()> {
    let mut d = AluDut::new(8, 1, vec_cfg(Pl2Mode::Joint))?;
    // J1: now 0, in1 4, out2 5.
    d.write(Write::In(1, 4))?;
    d.write(Write::Out(2, 5))?;
    ensure!(grant_of(d.one(rsv(1, 2, 4))?)? == (4, 5, 5), "J1");
    ensure!(d.state(1).0 == 9 && d.state(2).1 == 9, "J1 state");
    // J3: now 100, in1 0 (behind), out2 103.
    d.reset()?;
    d.write(Write::Now(100))?;
    d.write(Write::Out(2, 103))?;
    ensure!(grant_of(d.one(rsv(1, 2, 4))?)? == (4, 3, 3), "J3");
    ensure!(d.state(1).0 == 107 && d.state(2).1 == 107, "J3 state");
    // J2's traffic: RSV 3->2, RSV 1->2, then the data. The grants are 0 and
    // 4 slots ahead; data changes nothing; once now passes 8 nothing is
    // reserved (the literal mutant leaves in1 stuck at 4: the model's J2).
    d.reset()?;
    ensure!(grant_of(d.one(rsv(3, 2, 4))?)? == (4, 0, 0), "J2 first");
    ensure!(grant_of(d.one(rsv(1, 2, 4))?)? == (4, 4, 4), "J2 second");
    for s in [3, 3, 3, 3, 1, 1, 1, 1] {
        d.step(&[Some(Op::Data { src: s, dst: 2 })], None)?;
    }
    d.idle(10)?;
    d.configure(Pl2Config { slot_run: true, ..vec_cfg(Pl2Mode::Joint) })?;
    d.idle(20)?;
    let now = d.tb.model.get(&d.now) as u32;
    ensure!(now >= 8, "now {now}");
    ensure!(d.model.in_backlog(1) == 0 && d.model.out_backlog(2) == 0, "backlog left after now passed the grants");
    Ok(())
}

/// Random op streams against the model, every cycle, through mode, K, T,
/// port enables, slot lengths and host writes (near 0, near 2^32 - 1, near
/// now + 2^31): `steps` cycles at `ports` x `pipelines`. Pipeline `i` owns
/// ports `i * ports / pipelines ..`; at most one RSV or UNSOL per `out[d]`
/// per cycle (what the switch's hold guarantees).
fn differential(ports: usize, pipelines: usize, seed: u64, steps: usize) -> Result<()> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let base = Pl2Config {
        ports,
        k: 4,
        t_drop: 20,
        mode: Pl2Mode::Paper,
        port_en: (1u64 << ports) - 1,
        slot_cycles: 3 * SLOT_ONE / 2,
        slot_run: true,
    };
    let mut d = AluDut::new(ports, pipelines, base)?;
    let per = ports / pipelines;
    let mut cfg = base;
    let mut step = 0;
    while step < steps {
        // A new configuration every 1500 cycles or so, between ops.
        if step > 0 && rng.gen_ratio(1, 1500) {
            d.idle(1)?;
            cfg.mode = if rng.gen_bool(0.5) { Pl2Mode::Joint } else { Pl2Mode::Paper };
            cfg.k = [1, 2, 4, 4, 8, 255][rng.gen_range(0..6)];
            cfg.t_drop = rng.gen_range(0..40);
            cfg.port_en = if rng.gen_bool(0.6) { (1u64 << ports) - 1 } else { rng.gen::<u64>() & ((1u64 << ports) - 1) };
            cfg.slot_cycles = rng.gen_range(SLOT_ONE..5 * SLOT_ONE);
            cfg.slot_run = rng.gen_ratio(7, 8);
            d.configure(cfg)?;
        }
        // A host write now and then (state exactness at the edges).
        let wr = if rng.gen_ratio(1, 60) {
            let now = d.model.now();
            let v = match rng.gen_range(0..6) {
                0 => 0,
                1 => rng.gen_range(0..30),
                2 => u32::MAX - rng.gen_range(0..6),
                3 => now.wrapping_add(1 << 31).wrapping_sub(rng.gen_range(0..300)),
                4 => now.wrapping_add(rng.gen_range(0..40)),
                _ => now.wrapping_sub(rng.gen_range(0..40)),
            };
            let p = rng.gen_range(0..ports);
            Some(match rng.gen_range(0..9) {
                0..=3 => Write::In(p, v),
                4..=7 => Write::Out(p, v),
                _ => Write::Now(v),
            })
        } else {
            None
        };
        // Ops: dense bursts and quiet stretches.
        let density = if (step / 400) % 3 == 0 { 0.95 } else { 0.5 };
        let on = |p: u8| (p as usize) < ports && cfg.port_en >> p & 1 == 1;
        let mut out_read = 0u64;
        let mut ops = vec![None; pipelines];
        for (i, slot) in ops.iter_mut().enumerate() {
            if !rng.gen_bool(density) {
                continue;
            }
            let src = if rng.gen_ratio(1, 50) { (ports + rng.gen_range(0..3)) as u8 } else { (i * per + rng.gen_range(0..per)) as u8 };
            let dst = if rng.gen_ratio(1, 30) { (ports + rng.gen_range(0..200)) as u8 } else { rng.gen_range(0..ports) as u8 };
            let mut op = match rng.gen_range(0..20) {
                0..=6 => {
                    let demand = if rng.gen_ratio(1, 15) { rng.gen() } else { rng.gen_range(0..6) };
                    let src_port = if rng.gen_ratio(1, 20) { rng.gen() } else { src };
                    Op::Rsv(Rsv { ingress_port: src, src_port, dst_port: dst, demand, cookie: 0 })
                }
                7 => Op::GrtFromHost,
                8..=15 => Op::Data { src, dst },
                _ => Op::Unsol { src, dst },
            };
            let touches = match op {
                Op::Rsv(r) => on(r.ingress_port) && on(r.dst_port) && r.demand > 0,
                Op::Unsol { dst, .. } => on(dst),
                _ => false,
            };
            if touches {
                if out_read >> dst & 1 == 1 {
                    op = Op::Data { src, dst };
                } else {
                    out_read |= 1 << dst;
                }
            }
            *slot = Some(op);
        }
        d.step(&ops, wr).with_context(|| format!("step {step} ({cfg:?})"))?;
        step += 1;
    }
    d.idle(3)?;
    ensure!(d.model.counter_values().serialized == 0, "the generator let two ops read one out[d] in a cycle");
    // Every outcome happened (the stream is not trivially passing).
    let names = ["pass", "grant", "disabled ingress", "bad port", "demand 0", "grt from host", "unsol over T"];
    for (c, n) in names.iter().enumerate() {
        ensure!(d.seen[c] > 0, "no op ended as {n}: {:?}", d.seen);
    }
    let cs = d.model.counter_values();
    ensure!(cs.data_underflow > 0 && cs.saturate > 0 && cs.data_dec > 0, "coverage: {cs:?}");
    eprintln!("{ports} ports x {pipelines} pipelines, {steps} cycles: outcomes {:?}, counters {:?}", d.seen, cs);
    Ok(())
}

/// netfpga-sume's shape: 4 ports, one pipeline.
#[test]
fn differential_4_ports_1_pipeline() -> Result<()> {
    differential(4, 1, 0x5EED_0401, 40_000)
}

/// alveo-u250's shape: 2 ports, two pipelines (`out[d]` shared).
#[test]
fn differential_2_ports_2_pipelines() -> Result<()> {
    differential(2, 2, 0x5EED_0202, 40_000)
}

/// sim-16x100g's pipelines at half its ports: 8 ports, four pipelines.
#[test]
fn differential_8_ports_4_pipelines() -> Result<()> {
    differential(8, 4, 0x5EED_0804, 40_000)
}

/// One RSV per cycle per pipeline, sustained, with data decrements from the
/// other pipelines in the same cycles, in paper and joint mode: every op has
/// its result exactly [`Pl2Alu::LATENCY`] cycles later, equal to the model's
/// (the ALU's throughput figure, `docs/pl2.md`).
#[test]
fn one_rsv_per_cycle_per_pipeline() -> Result<()> {
    for mode in [Pl2Mode::Paper, Pl2Mode::Joint] {
        one_rsv_per_cycle(mode).with_context(|| format!("{mode:?}"))?;
    }
    Ok(())
}

/// [`one_rsv_per_cycle_per_pipeline`] in one mode (joint mode: every RSV
/// reads the counters its predecessor wrote a cycle before, forwarded).
fn one_rsv_per_cycle(mode: Pl2Mode) -> Result<()> {
    let cfg = Pl2Config { ports: 8, k: 4, t_drop: 64, mode, port_en: 0xff, slot_cycles: 3 * SLOT_ONE / 2, slot_run: true };
    let mut d = AluDut::new(8, 4, cfg)?;
    let idle = vec![None; 4];
    // Every pipeline reserves every cycle: pipeline i from port 2i to port
    // (2i + 1 + c) % 8, four different out[d] in each cycle.
    let cycles = 1000;
    let mut grants = 0;
    for c in 0..=cycles {
        let ops: Vec<Option<Op>> = if c < cycles {
            (0..4).map(|i| Some(rsv(2 * i as u8, ((2 * i + 1 + c) % 8) as u8, 1 + (c % 4) as u8))).collect()
        } else {
            idle.clone()
        };
        let outs = d.step(&ops, None)?;
        grants += outs.iter().flatten().filter(|o| matches!(o, Outcome::Grant(_))).count();
    }
    ensure!(grants == 4 * cycles, "grants {grants}");
    // Pipeline 0 reserves to port 0 every cycle while pipelines 1-3 send
    // data to port 0 in the same cycles.
    let (mut passes, mut grants) = (0, 0);
    for c in 0..=cycles {
        let ops: Vec<Option<Op>> = if c < cycles {
            let mut v: Vec<Option<Op>> = (1..4).map(|i| Some(Op::Data { src: 2 * i as u8, dst: 0 })).collect();
            v.insert(0, Some(rsv(0, 0, 1 + (c % 4) as u8)));
            v
        } else {
            idle.clone()
        };
        let outs = d.step(&ops, None)?;
        passes += outs.iter().flatten().filter(|o| matches!(o, Outcome::Pass)).count();
        grants += outs.iter().flatten().filter(|o| matches!(o, Outcome::Grant(_))).count();
    }
    ensure!(passes == 3 * cycles && grants == cycles, "passes {passes}, grants {grants}");
    d.idle(3)?;
    ensure!(d.counter("rsv_ok") == 4 * cycles as u64 + cycles as u64, "rsv_ok {}", d.counter("rsv_ok"));
    Ok(())
}

/// Two RSVs on one `out[d]` in a cycle (the caller's hold failed): the lower
/// rank is granted, the higher is dropped with `DROP_CONFLICT` and counted,
/// and nothing else changes.
#[test]
fn same_cycle_conflict_is_a_counted_drop() -> Result<()> {
    let lib = model_of(&mut Pl2Alu::new(2, 2), "ts_pl2_alu", "p2n2")?;
    let m = lib.instantiate();
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    let port = |tb: &Tb, n: &str| tb.model.port(n);
    for (n, v) in [("k", 4u64), ("t_drop", 64), ("port_en", 3), ("slot_cycles", SLOT_ONE as u64), ("slot_run", 0), ("joint", 0)] {
        let p = port(&tb, n)?;
        tb.model.set(&p, v);
    }
    tb.reset(2);
    for (i, src) in [(0, 0u64), (1, 1)] {
        for (n, v) in [
            ("op_valid", 1u64),
            ("op_kind", kind::RSV as u64),
            ("op_in", src),
            ("op_src", src),
            ("op_dst", 1),
            ("op_demand", 3),
            ("op_dem_k", 3),
            ("op_over_k", 0),
            ("op_in_oh", 1 << src),
            ("op_dst_oh", 2),
        ] {
            let p = port(&tb, &format!("{n}_{i}"))?;
            tb.model.set(&p, v);
        }
    }
    tb.step(&mut []);
    for i in 0..2 {
        let p = port(&tb, &format!("op_valid_{i}"))?;
        tb.model.set(&p, 0);
    }
    tb.step(&mut []);
    let get = |tb: &Tb, n: &str| -> Result<u64> { Ok(tb.model.get(&port(tb, n)?)) };
    ensure!(get(&tb, "res_valid_0")? == 1 && get(&tb, "res_code_0")? == code::GRANT as u64, "rank 0 granted");
    ensure!(get(&tb, "res_valid_1")? == 1 && get(&tb, "res_code_1")? == code::DROP_CONFLICT as u64, "rank 1 dropped");
    tb.step(&mut []);
    let conflict = Pl2Alu::COUNTERS.iter().position(|n| *n == "conflict_drop").unwrap();
    let ok = Pl2Alu::COUNTERS.iter().position(|n| *n == "rsv_ok").unwrap();
    ensure!(get(&tb, &format!("counters_{conflict}"))? == 1 && get(&tb, &format!("counters_{ok}"))? == 1, "counters");
    ensure!(get(&tb, "out_res_1")? == 3 && get(&tb, "in_res_0")? == 3 && get(&tb, "in_res_1")? == 0, "only rank 0 reserved");
    Ok(())
}

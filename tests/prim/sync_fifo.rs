//! `SyncFifo` (`trimswitch_hdl::prim::fifo`) in Verilator: words leave in
//! order, none lost, while a writer with `slack − 2` words under way
//! respects `s_ready`; one word a cycle in and out.
use anyhow::{ensure, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::Bits;
use std::collections::VecDeque;
use trimswitch_hdl::prim::fifo::SyncFifo;
use trimswitch_sim::harness::dut::model_of;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::harness::verilator::{Model, Port};

/// A writer that decides from `s_ready` and writes `lag` cycles later (a
/// pipeline after its decision), and a reader with random `m_ready`.
struct Ends {
    rng: StdRng,
    ports: [Port; 6],
    lag: usize,
    pipe: VecDeque<Option<u64>>,
    next: u64,
    n: u64,
    want: VecDeque<u64>,
    got: u64,
    write_prob: f64,
    read_prob: f64,
    m_ready: bool,
    errors: Vec<String>,
}

impl Agent for Ends {
    fn drive(&mut self, m: &mut Model, _cycle: u64) {
        let [s_valid, s_ready, s_data, _, m_ready, _] = &self.ports;
        let go = self.next < self.n && m.get(s_ready) == 1 && self.rng.gen_bool(self.write_prob);
        self.pipe.push_back(go.then_some(self.next));
        if go {
            self.next += 1;
        }
        let w = if self.pipe.len() > self.lag { self.pipe.pop_front().flatten() } else { None };
        m.set(s_valid, w.is_some() as u64);
        if let Some(v) = w {
            m.set(s_data, v);
            self.want.push_back(v);
        }
        self.m_ready = self.rng.gen_bool(self.read_prob);
        m.set(m_ready, self.m_ready as u64);
    }
    fn sample(&mut self, m: &Model, cycle: u64) {
        let [_, _, _, m_valid, _, m_data] = &self.ports;
        if m.get(m_valid) == 1 && self.m_ready {
            let v = m.get(m_data);
            let w = self.want.pop_front();
            if w != Some(v) && self.errors.len() < 5 {
                self.errors.push(format!("cycle {cycle}: read {v}, expected {w:?}"));
            }
            self.got += 1;
        }
    }
    fn idle(&self) -> bool {
        self.got == self.n
    }
}

fn run(depth: usize, slack: usize, n: u64, write_prob: f64, read_prob: f64, seed: u64) -> Result<u64> {
    let lib = model_of(&mut SyncFifo::<Bits<16>>::new(depth, slack), "ts_sync_fifo", &format!("d{depth}_s{slack}"))?;
    let m = lib.instantiate();
    let ports = ["s_valid", "s_ready", "s_data", "m_valid", "m_ready", "m_data"].map(|p| m.port(p).expect(p));
    let mut tb = Tb::new(m, "clock", Some("reset"))?;
    tb.reset(2);
    let mut e = Ends {
        rng: StdRng::seed_from_u64(seed),
        ports,
        lag: slack - 2,
        pipe: VecDeque::new(),
        next: 0,
        n,
        want: VecDeque::new(),
        got: 0,
        write_prob,
        read_prob,
        m_ready: false,
        errors: vec![],
    };
    let cycles = tb.run_until_idle(&mut [&mut e], 100 * n + 1_000)?;
    ensure!(e.errors.is_empty(), "{:?}", e.errors);
    ensure!(e.want.is_empty(), "{} words written never read", e.want.len());
    Ok(cycles)
}

/// A slow reader: the FIFO fills to `s_ready`'s limit again and again, the
/// writer's late words still fit, every word comes out once, in order.
#[test]
fn full_and_slack_keep_every_word() -> Result<()> {
    for (depth, slack, seed) in [(8, 2, 1), (8, 4, 2), (16, 5, 3), (64, 5, 4)] {
        run(depth, slack, 3_000, 0.9, 0.3, seed)?;
        run(depth, slack, 3_000, 0.5, 0.5, seed + 10)?;
    }
    Ok(())
}

/// One word a cycle: a writer and a reader always ready move `n` words in
/// `n` cycles plus the FIFO's latency (4) and the writer's lag.
#[test]
fn one_word_a_cycle() -> Result<()> {
    let n = 2_000;
    let cycles = run(16, 4, n, 1.0, 1.0, 5)?;
    ensure!(cycles <= n + 8, "{n} words took {cycles} cycles");
    Ok(())
}

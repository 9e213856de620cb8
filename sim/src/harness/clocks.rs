//! A testbench with two unrelated clocks (issue 18): a MAC's clock and the
//! switch's, each with its own agents ([`crate::harness::tb::Agent`]), run
//! edge by edge in time order. Each rising edge is placed at its period plus
//! a jitter of up to 1% either way, from a random phase, so the two clocks'
//! edges meet at every relative phase over a run (what a clock-domain
//! crossing must survive).
//!
//! At an edge of domain `d`: the clock falls and the model settles, `d`'s
//! agents sample, the clock rises and the model settles, `d`'s agents drive
//! their inputs for the next cycle of `d`, and the model settles again (so
//! the other domain's next sample sees them). The other domain's inputs are
//! left as its agents last drove them.
use super::tb::Agent;
use super::verilator::{Model, Port};
use anyhow::{bail, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A model run on two clocks (module docs).
pub struct TwoClocks {
    pub model: Model,
    clocks: [Port; 2],
    resets: [Port; 2],
    /// Periods in picoseconds.
    period: [u64; 2],
    /// The next rising edge of each clock (ps).
    next: [u64; 2],
    /// Rising edges so far, per domain.
    pub cycles: [u64; 2],
    rng: SmallRng,
    /// More clock and reset ports of each domain ([`TwoClocks::also`]).
    extra: [Vec<(Port, Port)>; 2],
}

impl TwoClocks {
    /// `model` with clock ports `clocks` and their synchronous resets
    /// `resets`, periods `period_ps`; the phase and the jitter from `seed`.
    pub fn new(model: Model, clocks: [&str; 2], resets: [&str; 2], period_ps: [u64; 2], seed: u64) -> Result<TwoClocks> {
        if period_ps.iter().any(|p| *p < 100) {
            bail!("TwoClocks: periods {period_ps:?} ps: each must be at least 100 ps");
        }
        let mut rng = SmallRng::seed_from_u64(seed);
        let next = [rng.gen_range(0..period_ps[0]), rng.gen_range(0..period_ps[1])];
        let clocks = [model.port(clocks[0])?, model.port(clocks[1])?];
        let resets = [model.port(resets[0])?, model.port(resets[1])?];
        Ok(TwoClocks { model, clocks, resets, period: period_ps, next, cycles: [0, 0], rng, extra: [vec![], vec![]] })
    }

    /// Drives `clock` and `reset` too as domain `domain`'s (a block with two
    /// clock ports on one clock: a port's receive and transmit MAC clocks).
    pub fn also(mut self, domain: usize, clock: &str, reset: &str) -> Result<TwoClocks> {
        if domain > 1 {
            bail!("TwoClocks::also: domain {domain}: there are two, 0 and 1");
        }
        let ports = (self.model.port(clock)?, self.model.port(reset)?);
        self.extra[domain].push(ports);
        Ok(self)
    }

    /// Holds both resets high until each domain has seen `cycles` rising
    /// edges with it; no agents run meanwhile.
    pub fn reset(&mut self, cycles: u64) {
        for r in self.resets.iter().chain(self.extra.iter().flatten().map(|(_, r)| r)) {
            self.model.set(r, 1);
        }
        let start = self.cycles;
        while self.cycles[0] - start[0] < cycles || self.cycles[1] - start[1] < cycles {
            self.step(&mut [], &mut []);
        }
        for r in self.resets.iter().chain(self.extra.iter().flatten().map(|(_, r)| r)) {
            self.model.set(r, 0);
        }
        self.model.eval();
    }

    /// Runs the next rising edge of either clock with that domain's agents
    /// (`a` for clock 0, `b` for clock 1); returns the domain.
    pub fn step<'a>(&mut self, a: &mut [&'a mut dyn Agent], b: &mut [&'a mut dyn Agent]) -> usize {
        let d = if self.next[0] <= self.next[1] { 0 } else { 1 };
        let agents = if d == 0 { a } else { b };
        let clk = self.clocks[d];
        let c = self.cycles[d];
        self.model.set(&clk, 0);
        for (x, _) in &self.extra[d] {
            self.model.set(x, 0);
        }
        self.model.eval();
        for ag in agents.iter_mut() {
            ag.sample(&self.model, c);
        }
        self.model.set(&clk, 1);
        for (x, _) in &self.extra[d] {
            self.model.set(x, 1);
        }
        self.model.eval();
        self.cycles[d] += 1;
        for ag in agents.iter_mut() {
            ag.drive(&mut self.model, c + 1);
        }
        self.model.eval();
        let p = self.period[d];
        self.next[d] += p - p / 100 + self.rng.gen_range(0..=p / 50);
        d
    }

    /// Steps until `pred` holds (checked before every edge); fails after
    /// `max_edges` edges of both clocks together.
    pub fn run_until<'a>(
        &mut self,
        a: &mut [&'a mut dyn Agent],
        b: &mut [&'a mut dyn Agent],
        max_edges: u64,
        mut pred: impl FnMut(&TwoClocks) -> bool,
    ) -> Result<()> {
        for _ in 0..max_edges {
            if pred(self) {
                return Ok(());
            }
            self.step(a, b);
        }
        bail!("TwoClocks: the condition did not hold within {max_edges} edges (cycles {:?})", self.cycles)
    }
}

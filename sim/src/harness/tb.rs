//! Cycle-based testbench: a clock, an optional synchronous reset and a set of
//! [`Agent`]s that drive and observe the model once per clock cycle.
//!
//! Each [`Tb::step`] is one clock cycle:
//! 1. every agent's [`Agent::drive`] sets its inputs for this cycle;
//! 2. the clock falls and the model is evaluated (the inputs settle);
//! 3. every agent's [`Agent::sample`] observes the settled signals; a
//!    handshake happens in this cycle iff `valid && ready` as seen here,
//!    just before the rising edge;
//! 4. the clock rises and the model is evaluated.
//!
//! Two `eval()` per cycle: every emitted block is clocked on the rising edge
//! only (`always @(posedge clock)`; none has a `negedge`), so the falling
//! edge is folded into the evaluation of step 2 instead of a third
//! evaluation of its own. With the model's C++ at `-O3`, the Verilated
//! `ts_switch` (netfpga-sume, incast) went from 115.0 k to 77.8 k
//! instructions per cycle in `eval()` (callgrind, `docs/toolchain.md`).
//! Between steps the clock is high and every output shows the state
//! after the rising edge.
//!
//! # Waveforms
//!
//! With the environment variable `TS_WAVES` set, models are built with FST
//! tracing (see [`crate::harness::verilator::BuildOptions`]) and [`Tb::new`] writes
//! `<build>/waves/<name>.fst`, where `<name>` is the test's thread name (the
//! test path, `::` replaced by `__`) or the name given to [`Tb::with_name`]:
//!
//! ```text
//! TS_WAVES=1 cargo test -p trimswitch-sim --test sim harness_selftest::skid512
//! gtkwave build/waves/harness_selftest__skid512_random_packets.fst
//! ```
//!
//! Cycle `c` is dumped at time `2c` (inputs settled, clock low) and `2c+1`
//! (after the rising edge), with a 1 ns time unit.

use crate::harness::verilator::{build_dir, waves_requested, Model, Port};
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};

/// Something that takes part in every clock cycle: a bus driver, a monitor,
/// a scoreboard.
pub trait Agent {
    /// Sets this agent's model inputs for cycle `cycle` (before the clock edge).
    fn drive(&mut self, m: &mut Model, cycle: u64);
    /// Observes the settled signals of cycle `cycle`, just before the rising
    /// edge; a transfer happens iff valid and ready are both high here.
    fn sample(&mut self, m: &Model, cycle: u64);
    /// True when the agent has nothing left to do (no queued or in-flight work).
    fn idle(&self) -> bool {
        true
    }
}

/// A clocked testbench around one [`Model`].
pub struct Tb {
    /// The simulated model; set or read ports directly between steps.
    pub model: Model,
    clock: Port,
    reset: Option<Port>,
    cycle: u64,
    waves: Option<PathBuf>,
}

/// Waveform file name for the current thread: the test name, sanitized.
fn thread_wave_name() -> String {
    let name = std::thread::current().name().unwrap_or("tb").replace("::", "__");
    let name: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || "_-.".contains(c) { c } else { '_' }).collect();
    if name.is_empty() || name == "main" {
        "tb".into()
    } else {
        name
    }
}

impl Tb {
    /// Wraps `model` with clock port `clock` and optional active-high
    /// synchronous reset port `reset`. Waveforms (if `TS_WAVES` is set) are
    /// named after the current thread, i.e. the test.
    pub fn new(model: Model, clock: &str, reset: Option<&str>) -> Result<Tb> {
        Self::with_name(model, &thread_wave_name(), clock, reset)
    }

    /// Like [`Tb::new`], naming the waveform file `<build>/waves/<name>.fst`.
    pub fn with_name(mut model: Model, name: &str, clock: &str, reset: Option<&str>) -> Result<Tb> {
        let clock = model.port(clock)?;
        let reset = reset.map(|r| model.port(r)).transpose()?;
        let mut waves = None;
        if waves_requested() {
            let path = build_dir().join("waves").join(format!("{name}.fst"));
            match model.trace_open(&path) {
                Ok(()) => waves = Some(path),
                Err(e) => {
                    eprintln!("TS_WAVES is set but no waveform is written for `{name}`: {e:#}")
                }
            }
        }
        model.set(&clock, 0);
        model.eval();
        Ok(Tb { model, clock, reset, cycle: 0, waves })
    }

    /// Number of clock cycles stepped so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Path of the waveform being written, if any.
    pub fn waves(&self) -> Option<&Path> {
        self.waves.as_deref()
    }

    /// Holds reset high for `cycles` rising edges, then releases it. No agents
    /// run meanwhile. Panics if the testbench has no reset port.
    pub fn reset(&mut self, cycles: u64) {
        let reset = self.reset.expect("Tb::reset: no reset port was configured");
        self.model.set(&reset, 1);
        for _ in 0..cycles {
            self.step(&mut []);
        }
        self.model.set(&reset, 0);
    }

    /// Simulates one clock cycle (see the module documentation).
    pub fn step(&mut self, agents: &mut [&mut dyn Agent]) {
        let c = self.cycle;
        for a in agents.iter_mut() {
            a.drive(&mut self.model, c);
        }
        self.model.set(&self.clock, 0);
        self.model.set_time(2 * c);
        self.model.eval();
        self.model.trace_dump();
        for a in agents.iter_mut() {
            a.sample(&self.model, c);
        }
        self.model.set(&self.clock, 1);
        self.model.set_time(2 * c + 1);
        self.model.eval();
        self.model.trace_dump();
        self.cycle += 1;
    }

    /// Steps `cycles` cycles.
    pub fn run(&mut self, agents: &mut [&mut dyn Agent], cycles: u64) {
        for _ in 0..cycles {
            self.step(agents);
        }
    }

    /// Steps until `pred` holds (checked before every step), returning the
    /// number of cycles stepped; errors if it still fails after `max_cycles`.
    pub fn run_until(
        &mut self,
        agents: &mut [&mut dyn Agent],
        max_cycles: u64,
        mut pred: impl FnMut(&Tb, &[&mut dyn Agent]) -> bool,
    ) -> Result<u64> {
        for n in 0..=max_cycles {
            if pred(self, agents) {
                return Ok(n);
            }
            if n < max_cycles {
                self.step(agents);
            }
        }
        let busy: Vec<usize> = agents.iter().enumerate().filter(|(_, a)| !a.idle()).map(|(i, _)| i).collect();
        bail!("condition not reached within {max_cycles} cycles (now at cycle {}; agents not idle: {busy:?})", self.cycle)
    }

    /// Steps until every agent is [`Agent::idle`]; see [`Tb::run_until`].
    pub fn run_until_idle(&mut self, agents: &mut [&mut dyn Agent], max_cycles: u64) -> Result<u64> {
        self.run_until(agents, max_cycles, |_, agents| agents.iter().all(|a| a.idle()))
    }
}

/// Records the values of some output ports in every cycle a strobe port is
/// high (an event trace such as `ts_tm`'s `dec_valid` / `dec_code`).
pub struct Strobe {
    strobe: Port,
    ports: Vec<Port>,
    /// `(cycle, values in the order of the port names)` per strobe.
    pub events: Vec<(u64, Vec<u64>)>,
}

impl Strobe {
    /// A recorder of `ports` (each at most 64 bits) whenever `strobe` is 1.
    pub fn new(m: &Model, strobe: &str, ports: &[&str]) -> Result<Strobe> {
        let ports = ports.iter().map(|p| m.port(p)).collect::<Result<Vec<_>>>()?;
        for p in &ports {
            anyhow::ensure!(m.port_info(p).width <= 64, "Strobe: port {} is wider than 64 bits", m.port_info(p).name);
        }
        Ok(Strobe { strobe: m.port(strobe)?, ports, events: vec![] })
    }
}

impl Agent for Strobe {
    fn drive(&mut self, _m: &mut Model, _cycle: u64) {}

    fn sample(&mut self, m: &Model, cycle: u64) {
        if m.get(&self.strobe) == 1 {
            self.events.push((cycle, self.ports.iter().map(|p| m.get(p)).collect()));
        }
    }
}

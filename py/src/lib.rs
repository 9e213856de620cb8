//! `trimswitch._native`: the Rust side of the Python package (issue 17,
//! `docs/python.md`). Everything runs here; Python calls in per transaction
//! (a frame queued, a run of cycles, a register access), never per cycle, and
//! the GIL is released while the Verilated model runs.
//!
//! Errors are Python exceptions naming the argument and the reason:
//! `ValueError` for a bad value (a configuration, a register name, a frame),
//! `IndexError` for a port that does not exist, `TimeoutError` for a run that
//! did not go idle, `OSError` for files; a panic in Rust arrives as pyo3's
//! `PanicException`, never as a crash of the interpreter.
use anyhow::Context;
use pyo3::exceptions::{PyIndexError, PyOSError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::path::PathBuf;
use trimswitch_hdl::config::Config;
use trimswitch_hdl::top::regmap::Access;
use trimswitch_sim::agents::axil::{AxilMaster, AxilResult};
use trimswitch_sim::agents::axis::{AxisPorts, AxisSink, AxisSource, Packet};
use trimswitch_sim::harness::dut::model_of_verilog;
use trimswitch_sim::harness::tb::{Agent, Tb};
use trimswitch_sim::model::IngressModel;
use trimswitch_sim::packet::crc::append_fcs;
use trimswitch_sim::rtl::switch::{line_bytes_per_cycle, SwitchBench, QUIET_CYCLES};

/// An error of `what` as a `ValueError`, with the whole cause chain.
fn value_err(what: &str, e: anyhow::Error) -> PyErr {
    PyValueError::new_err(format!("{what}: {e:#}"))
}

/// Loads `config` with `set` (`{"datapath.data_width": 512}`) as the CLI's
/// `--set key=value` overrides.
fn load_config(config: &str, set: Option<&Bound<'_, PyDict>>) -> PyResult<Config> {
    let mut sets = Vec::new();
    if let Some(d) = set {
        for (k, v) in d.iter() {
            let key: String = k.extract().map_err(|_| PyValueError::new_err(format!("set: key {k} is not a string")))?;
            // Python's True/False and lists as TOML writes them.
            let value = if let Ok(b) = v.extract::<bool>() {
                b.to_string()
            } else if v.is_instance_of::<PyList>() {
                let items: Vec<String> = v
                    .extract::<Vec<i64>>()
                    .map_err(|_| PyValueError::new_err(format!("set: {key}: a list of integers is the only list a configuration holds")))?
                    .iter()
                    .map(|i| i.to_string())
                    .collect();
                format!("[{}]", items.join(","))
            } else {
                v.str()?.to_string()
            };
            sets.push(format!("{key}={value}"));
        }
    }
    Config::load_with(&PathBuf::from(config), &sets).map_err(|e| value_err(&format!("config {config}"), e))
}

/// `T` moved across [`Python::detach`]: the switch is an `unsendable`
/// class, so pyo3 keeps every use of it on the thread that made it; the
/// closure runs on that same thread with the GIL released.
struct OnThisThread<T>(T);
// SAFETY: see the type's documentation: `detach` runs its closure on the
// calling thread, the only thread an `unsendable` pyclass is used from.
unsafe impl<T> Send for OnThisThread<T> {}

/// `frame` as a MAC source sends it (`Switch.send`'s `fcs` and `oversize`),
/// or a `ValueError` naming the argument.
fn wire_frame(cfg: &Config, frame: &[u8], fcs: &str, oversize: bool) -> PyResult<Vec<u8>> {
    let mut f = frame.to_vec();
    match fcs {
        "append" => append_fcs(&mut f),
        "none" => {}
        "bad" => {
            append_fcs(&mut f);
            let n = f.len();
            f[n - 1] ^= 0xff;
        }
        _ => return Err(PyValueError::new_err(format!("fcs {fcs:?}: one of \"append\", \"none\", \"bad\""))),
    }
    if f.is_empty() {
        return Err(PyValueError::new_err("frame: empty"));
    }
    let max = cfg.ingress.max_frame as usize;
    if f.len() > max && !oversize {
        return Err(PyValueError::new_err(format!(
            "frame: {} bytes with its FCS, above the configuration's ingress.max_frame ({max}); oversize=True sends it to be dropped and counted",
            f.len()
        )));
    }
    if f.len() > 65_535 {
        return Err(PyValueError::new_err(format!("frame: {} bytes, above 65 535 (what a source can send)", f.len())));
    }
    Ok(f)
}

/// The port index `port` of a switch of `n` ports, or an `IndexError`.
fn port_index(port: i64, n: usize) -> PyResult<usize> {
    if port < 0 || port as usize >= n {
        return Err(PyIndexError::new_err(format!("port {port}: the switch has ports 0..{n}")));
    }
    Ok(port as usize)
}

/// The whole switch (`ts_switch` of a configuration) in Verilator, with a MAC
/// source and sink per port and a host on its AXI4-Lite port.
///
/// `Switch(config, engine="rtl", set=None, seed=1, line_rate=True)`:
/// `config` is a TOML file (`configs/netfpga-sume.toml`), `set` overrides
/// its keys; the model is built on first use of a configuration (cached
/// under `build/`), then the switch is reset and its ingress tables loaded
/// from the configuration, as `trimswitch replay` does. With `line_rate`
/// the MAC agents send and take frames at the port's line rate (preamble,
/// gap and FCS counted), as real MACs do; without, as fast as the bus
/// allows (more than the switch sustains on every port at once: the
/// receive FIFOs overflow and count it).
#[pyclass(unsendable, module = "trimswitch._native")]
struct Switch {
    bench: SwitchBench,
    cfg: Config,
}

impl Switch {
    fn port(&self, port: i64) -> PyResult<usize> {
        port_index(port, self.cfg.datapath.ports)
    }

    /// (window, register, element) of a name `window.REG` or `window.REG[i]`.
    fn resolve(&self, name: &str) -> PyResult<(u32, Access)> {
        let (win, rest) = name
            .split_once('.')
            .ok_or_else(|| PyValueError::new_err(format!("register {name:?}: not `window.NAME` or `window.NAME[i]`")))?;
        let (reg, index) = match rest.split_once('[') {
            Some((r, i)) => {
                let i = i
                    .strip_suffix(']')
                    .and_then(|i| i.parse::<usize>().ok())
                    .ok_or_else(|| PyValueError::new_err(format!("register {name:?}: the index is not `[number]`")))?;
                (r, Some(i))
            }
            None => (rest, None),
        };
        let map = &self.bench.map;
        let w = map.windows.iter().find(|w| w.name == win).ok_or_else(|| {
            PyValueError::new_err(format!(
                "register {name:?}: no window {win:?}; windows are {:?}",
                map.windows.iter().map(|w| w.name.as_str()).collect::<Vec<_>>()
            ))
        })?;
        let r = w.reg(reg).ok_or_else(|| {
            PyValueError::new_err(format!(
                "register {name:?}: window {win} has no register {reg:?}; it has {:?}",
                w.regs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>()
            ))
        })?;
        let i = match (index, r.count) {
            (None, 1) => 0,
            (None, n) => {
                return Err(PyValueError::new_err(format!("register {name:?}: an array of {n}; name an element, `{win}.{reg}[i]`")))
            }
            (Some(i), n) if i < n => i,
            (Some(i), n) => return Err(PyValueError::new_err(format!("register {name:?}: element {i} of an array of {n}"))),
        };
        Ok((w.base + r.at(i), r.access))
    }
}

#[pymethods]
impl Switch {
    #[new]
    #[pyo3(signature = (config, engine = "rtl", set = None, seed = 1, line_rate = true))]
    fn new(py: Python<'_>, config: &str, engine: &str, set: Option<&Bound<'_, PyDict>>, seed: u64, line_rate: bool) -> PyResult<Self> {
        if engine != "rtl" {
            return Err(PyValueError::new_err(format!(
                "engine {engine:?}: the engines are \"rtl\" (the Verilated switch) and \"model\" (the golden models, trimswitch.Switch)"
            )));
        }
        let cfg = load_config(config, set)?;
        let c = cfg.clone();
        let bench = py
            .detach(move || -> anyhow::Result<SwitchBench> {
                let mut b = SwitchBench::new(&c, seed).context("building the switch model")?;
                b.configure(&c).context("loading the ingress tables")?;
                Ok(b)
            })
            .map_err(|e| value_err(&format!("config {config}"), e))?;
        let mut bench = bench;
        if line_rate {
            // As the MACs: frames arrive and leave at the port's line rate,
            // each costing its bytes plus preamble and gap (and the FCS the
            // transmitting MAC appends when the switch strips it).
            let line = line_bytes_per_cycle(&cfg);
            for s in bench.srcs.iter_mut() {
                s.pace = Some(line);
                s.wire_overhead = 20;
            }
            for s in bench.sinks.iter_mut() {
                s.pace = Some(line);
                s.wire_overhead = if cfg.ingress.strip_fcs { 24 } else { 20 };
            }
        }
        Ok(Switch { bench, cfg })
    }

    /// Number of ports.
    #[getter]
    fn ports(&self) -> usize {
        self.cfg.datapath.ports
    }

    /// The current clock cycle (cycles since the model was made, reset included).
    #[getter]
    fn cycle(&self) -> u64 {
        self.bench.tb.cycle()
    }

    /// Largest frame the switch takes, FCS included (`ingress.max_frame`).
    #[getter]
    fn max_frame(&self) -> u32 {
        self.cfg.ingress.max_frame
    }

    /// Queues `frame` on `port`'s MAC source. `fcs`: `"append"` adds the
    /// Ethernet FCS (scapy's `bytes(Ether()/...)` has none), `"none"` sends
    /// the bytes as they are (they end in an FCS already), `"bad"` appends an
    /// FCS with its bits flipped (the switch drops and counts it).
    /// `at_cycle`: not before that cycle. A frame above `max_frame` (with its
    /// FCS) is refused unless `oversize=True`, which sends it so the
    /// switch's receive check drops and counts it.
    #[pyo3(signature = (port, frame, at_cycle = None, fcs = "append", oversize = false))]
    fn send(&mut self, port: i64, frame: &[u8], at_cycle: Option<u64>, fcs: &str, oversize: bool) -> PyResult<()> {
        let p = self.port(port)?;
        let f = wire_frame(&self.cfg, frame, fcs, oversize)?;
        let src = &mut self.bench.srcs[p];
        match at_cycle {
            Some(c) => src.push_at(Packet::new(f, 0), c),
            None => src.push(Packet::new(f, 0)),
        }
        Ok(())
    }

    /// Runs `cycles` clock cycles (the GIL released).
    fn run(&mut self, py: Python<'_>, cycles: u64) {
        let b = OnThisThread(&mut self.bench);
        py.detach(move || {
            let b = b;
            b.0.run(cycles);
        });
    }

    /// Runs until every queued frame has gone in and no frame has left any
    /// port for 256 cycles; returns the cycles run. `TimeoutError` when that
    /// does not happen within `max_cycles`.
    #[pyo3(signature = (max_cycles = 1_000_000))]
    fn run_until_idle(&mut self, py: Python<'_>, max_cycles: u64) -> PyResult<u64> {
        let b = OnThisThread(&mut self.bench);
        let r = py.detach(move || {
            let b = b;
            let bench = b.0;
            let start = bench.tb.cycle();
            let (mut beats, mut quiet) = (u64::MAX, 0);
            while quiet < QUIET_CYCLES {
                if bench.tb.cycle() - start >= max_cycles {
                    return Err(bench.tb.cycle() - start);
                }
                bench.run(16);
                let now: u64 = bench.sinks.iter().map(|s| s.beats()).sum();
                if now != beats || bench.srcs.iter().any(|s| !s.idle()) {
                    (beats, quiet) = (now, 0);
                } else {
                    quiet += 16;
                }
            }
            Ok(bench.tb.cycle() - start)
        });
        r.map_err(|n| PyTimeoutError::new_err(format!("run_until_idle: not idle after {n} cycles (max_cycles)")))
    }

    /// The frames that left `port` since the last call, as `(bytes, cycle)`
    /// with the cycle of each frame's first beat, oldest first. With
    /// `ingress.strip_fcs` (the configurations' default) the bytes have no
    /// FCS: the transmitting MAC appends it.
    fn recv<'py>(&mut self, py: Python<'py>, port: i64) -> PyResult<Vec<(Bound<'py, PyBytes>, u64)>> {
        let p = self.port(port)?;
        let sink = &mut self.bench.sinks[p];
        if let Some(e) = sink.errors.first() {
            return Err(PyValueError::new_err(format!("port {p}: AXI4-Stream protocol error at the output: {e}")));
        }
        let out = sink.packets.drain(..).zip(sink.first_cycles.drain(..)).map(|(pkt, c)| (PyBytes::new(py, &pkt.data), c)).collect();
        sink.last_cycles.clear();
        Ok(out)
    }

    /// Reads a register by its map name (`tm0.TRIM_PACKETS`, `ingress0.RX_PKTS[2]`;
    /// `trimswitch regs` lists them) through the AXI4-Lite host; the MAC
    /// agents keep running during the transaction.
    fn read_reg(&mut self, name: &str) -> PyResult<u32> {
        let (addr, _) = self.resolve(name)?;
        self.bench.read(addr).map_err(|e| value_err(&format!("register {name}"), e))
    }

    /// Writes a register by its map name: a read/write register or a piece
    /// of hardware state (`rws`) takes the value, a counter (`rc`) is
    /// cleared by any write; a gauge (`ro`) cannot be written.
    fn write_reg(&mut self, name: &str, value: u64) -> PyResult<()> {
        let (addr, access) = self.resolve(name)?;
        if access == Access::Ro {
            return Err(PyValueError::new_err(format!("register {name}: a read-only gauge (ro); a write would be ignored")));
        }
        let v = u32::try_from(value).map_err(|_| PyValueError::new_err(format!("register {name}: value {value} does not fit 32 bits")))?;
        self.bench.write(addr, v).map_err(|e| value_err(&format!("register {name}"), e))
    }

    /// Every register name of the map (`window.NAME`, arrays as `window.NAME[i]`).
    fn reg_names(&self) -> Vec<String> {
        self.bench
            .map
            .elements()
            .map(|(w, r, i, _)| if r.count == 1 { format!("{}.{}", w.name, r.name) } else { format!("{}.{}[{i}]", w.name, r.name) })
            .collect()
    }

    /// Every counter and gauge of the map (`window.NAME`, arrays as
    /// `window.NAME[i]`), read through the host: `counters.json` of a run.
    fn counters(&mut self, py: Python<'_>) -> PyResult<std::collections::BTreeMap<String, u64>> {
        let b = OnThisThread(&mut self.bench);
        py.detach(move || {
            let b = b;
            b.0.read_counters()
        })
        .map_err(|e| value_err("counters", e))
    }
}

/// The whole switch on the golden models, frame by frame
/// (`trimswitch_sim::model::switch`): `Switch(config, engine="model")`.
/// The same calls as the Verilated switch; its timing is a model of the
/// RTL's (paced MACs, the pipelines' input arbiters, a fixed `latency` from
/// the arbiter to admission), its decisions the models' own.
#[pyclass(unsendable, module = "trimswitch._native")]
struct ModelSwitch {
    model: trimswitch_sim::model::switch::SwitchModel,
    cfg: Config,
}

#[pymethods]
impl ModelSwitch {
    #[new]
    #[pyo3(signature = (config, set = None, line_rate = true, latency = None))]
    fn new(config: &str, set: Option<&Bound<'_, PyDict>>, line_rate: bool, latency: Option<u64>) -> PyResult<Self> {
        let cfg = load_config(config, set)?;
        let latency = latency.unwrap_or(trimswitch_sim::model::switch::DEFAULT_LATENCY);
        let model = trimswitch_sim::model::switch::SwitchModel::new(&cfg, line_rate, latency)
            .map_err(|e| value_err(&format!("config {config}"), e))?;
        Ok(ModelSwitch { model, cfg })
    }

    #[getter]
    fn ports(&self) -> usize {
        self.model.ports()
    }

    #[getter]
    fn cycle(&self) -> u64 {
        self.model.cycle()
    }

    #[getter]
    fn max_frame(&self) -> u32 {
        self.cfg.ingress.max_frame
    }

    #[pyo3(signature = (port, frame, at_cycle = None, fcs = "append", oversize = false))]
    fn send(&mut self, port: i64, frame: &[u8], at_cycle: Option<u64>, fcs: &str, oversize: bool) -> PyResult<()> {
        let p = port_index(port, self.model.ports())?;
        let f = wire_frame(&self.cfg, frame, fcs, oversize)?;
        self.model.send(p, f, at_cycle);
        Ok(())
    }

    fn run(&mut self, py: Python<'_>, cycles: u64) {
        let m = OnThisThread(&mut self.model);
        py.detach(move || {
            let m = m;
            m.0.run(cycles);
        });
    }

    /// Runs until nothing is waiting, in flight or queued, then
    /// `QUIET_CYCLES` more (as the RTL's); returns the cycles run.
    #[pyo3(signature = (max_cycles = 1_000_000))]
    fn run_until_idle(&mut self, py: Python<'_>, max_cycles: u64) -> PyResult<u64> {
        let m = OnThisThread(&mut self.model);
        let r = py.detach(move || {
            let m = m;
            let model = m.0;
            let start = model.cycle();
            while !model.idle() {
                if model.cycle() - start >= max_cycles {
                    return Err(model.cycle() - start);
                }
                model.run(16);
            }
            model.run(QUIET_CYCLES);
            Ok(model.cycle() - start)
        });
        r.map_err(|n| PyTimeoutError::new_err(format!("run_until_idle: not idle after {n} cycles (max_cycles)")))
    }

    fn recv<'py>(&mut self, py: Python<'py>, port: i64) -> PyResult<Vec<(Bound<'py, PyBytes>, u64)>> {
        let p = port_index(port, self.model.ports())?;
        Ok(self.model.recv(p).into_iter().map(|(f, c)| (PyBytes::new(py, &f), c)).collect())
    }

    /// The models' counters (`tm.<name>`, `pipeN.<name>`, `portP.<name>`).
    fn counters(&self) -> std::collections::BTreeMap<String, u64> {
        self.model.counters()
    }
}

/// One block of the catalogue (`ts_axis_skid`, `ts_trimmer`, ... `trimswitch
/// emit` lists them) in Verilator, with agents attached by port prefix: the
/// base of `trimswitch.Block` and of the cocotb-style layer. Handshakes run
/// in the Rust agents; Python queues frames and transactions and runs cycles.
///
/// Agents are numbered in the order they are attached, per kind.
#[pyclass(unsendable, module = "trimswitch._native")]
struct Block {
    tb: Tb,
    name: String,
    srcs: Vec<AxisSource>,
    sinks: Vec<AxisSink>,
    masters: Vec<AxilMaster>,
    /// Agents' seeds are derived from it.
    seed: u64,
}

impl Block {
    fn agents(&mut self) -> (&mut Tb, Vec<&mut dyn Agent>) {
        let Block { tb, srcs, sinks, masters, .. } = self;
        let agents = srcs
            .iter_mut()
            .map(|s| s as &mut dyn Agent)
            .chain(sinks.iter_mut().map(|s| s as &mut dyn Agent))
            .chain(masters.iter_mut().map(|s| s as &mut dyn Agent))
            .collect();
        (tb, agents)
    }

    fn port(&self, name: &str) -> PyResult<trimswitch_sim::harness::verilator::Port> {
        self.tb.model.port(name).map_err(|_| {
            PyValueError::new_err(format!(
                "{}: no port {name:?}; its ports are {:?}",
                self.name,
                self.tb.model.ports().iter().map(|p| p.name.as_str()).collect::<Vec<_>>()
            ))
        })
    }

    /// The AXI4-Stream ports of prefix `prefix` this block has (`tkeep`,
    /// `tuser` optional).
    /// The AXI4-Stream interface `prefix`: ports `<prefix>_tdata`, ... or,
    /// for a prefix `<base>_<n>`, the indexed ports `<base>_tdata_<n>`, ...
    /// (the switch's `s_tdata_0`: prefix `s_0`).
    fn axis_ports(&self, prefix: &str) -> PyResult<AxisPorts> {
        let port = |n: &str| self.tb.model.port(n).is_ok();
        let indexed = prefix.rsplit_once('_').and_then(|(b, n)| Some(AxisPorts::indexed(b, n.parse().ok()?)));
        let found = [Some(AxisPorts::slave(prefix)), indexed]
            .into_iter()
            .flatten()
            .find(|p| [&p.tdata, &p.tvalid, &p.tready, &p.tlast].iter().all(|n| port(n)));
        let Some(mut p) = found else {
            return Err(PyValueError::new_err(format!(
                "{}: no AXI4-Stream interface {prefix:?} (`{prefix}_tdata`, `_tvalid`, `_tready`, `_tlast`, or `<base>_tdata_<n>` for a prefix `<base>_<n>`); its ports are {:?}",
                self.name,
                self.tb.model.ports().iter().map(|p| p.name.as_str()).collect::<Vec<_>>()
            )));
        };
        if !p.tkeep.as_deref().is_some_and(port) {
            p = p.without_tkeep();
        }
        if !p.tuser.as_deref().is_some_and(port) {
            p = p.without_tuser();
        }
        Ok(p)
    }

    fn index<T>(v: &[T], i: usize, what: &str) -> PyResult<()> {
        if i >= v.len() {
            return Err(PyIndexError::new_err(format!("{what} {i}: {} attached", v.len())));
        }
        Ok(())
    }

    /// Runs until one of `conds` holds (checked before each cycle) or
    /// `max_cycles` have run; returns the cycles run.
    fn step_until(&mut self, conds: &[Cond], max_cycles: u64) -> u64 {
        let mut n = 0;
        loop {
            if conds.iter().any(|c| self.holds_cond(c)) || n >= max_cycles {
                return n;
            }
            let (tb, mut agents) = self.agents();
            tb.step(&mut agents);
            n += 1;
        }
    }

    fn holds_cond(&self, c: &Cond) -> bool {
        match *c {
            Cond::SourceIdle(i) => self.srcs[i].idle(),
            Cond::SinkFrames(i, n) => self.sinks[i].packets.len() >= n,
            Cond::MasterIdle(i) => self.masters[i].idle(),
            Cond::MasterResults(i, n) => self.masters[i].results.len() >= n,
        }
    }

    /// A condition from its Python form `(kind, i, n)`.
    fn cond(&self, kind: &str, i: usize, n: usize) -> PyResult<Cond> {
        Ok(match kind {
            "source_idle" => {
                Block::index(&self.srcs, i, "source")?;
                Cond::SourceIdle(i)
            }
            "sink_frames" => {
                Block::index(&self.sinks, i, "sink")?;
                Cond::SinkFrames(i, n)
            }
            "master_idle" => {
                Block::index(&self.masters, i, "master")?;
                Cond::MasterIdle(i)
            }
            "master_results" => {
                Block::index(&self.masters, i, "master")?;
                Cond::MasterResults(i, n)
            }
            _ => return Err(PyValueError::new_err(format!("condition {kind:?}: source_idle, sink_frames, master_idle or master_results"))),
        })
    }
}

/// A condition the scheduler of the cocotb-style layer waits on.
#[derive(Clone, Copy, Debug)]
enum Cond {
    /// Source `i` has sent every queued frame.
    SourceIdle(usize),
    /// Sink `i` holds at least `n` frames.
    SinkFrames(usize, usize),
    /// Master `i` has finished every queued transaction.
    MasterIdle(usize),
    /// Master `i` holds at least `n` results not yet taken.
    MasterResults(usize, usize),
}

#[pymethods]
impl Block {
    /// `Block(name, config, set=None, seed=1)`: block `name` of the
    /// configuration's catalogue, emitted and Verilated (cached under
    /// `build/`), its clock at 0. Call `reset()` to reset it.
    #[new]
    #[pyo3(signature = (name, config, set = None, seed = 1))]
    fn new(py: Python<'_>, name: &str, config: &str, set: Option<&Bound<'_, PyDict>>, seed: u64) -> PyResult<Self> {
        let cfg = load_config(config, set)?;
        let all = trimswitch_hdl::gen::catalog::blocks();
        if !all.contains(&name) {
            return Err(PyValueError::new_err(format!("block {name:?}: not in the catalogue {all:?}")));
        }
        let (n, c) = (name.to_string(), cfg.clone());
        let lib = py
            .detach(move || -> anyhow::Result<_> {
                let v = trimswitch_hdl::gen::catalog::emit_block(&c, &n)?;
                model_of_verilog(&v.verilog, &n, &c.hash())
            })
            .map_err(|e| value_err(&format!("block {name}"), e))?;
        let m = lib.instantiate();
        let has_reset = m.port("reset").is_ok();
        let tb = Tb::new(m, "clock", has_reset.then_some("reset")).map_err(|e| value_err(&format!("block {name}"), e))?;
        Ok(Block { tb, name: name.to_string(), srcs: vec![], sinks: vec![], masters: vec![], seed })
    }

    /// `(name, "in" | "out", bits)` of every top-level port.
    fn ports(&self) -> Vec<(String, &'static str, u32)> {
        use trimswitch_sim::harness::verilator::Direction;
        self.tb
            .model
            .ports()
            .iter()
            .map(|p| (p.name.clone(), if p.direction == Direction::Input { "in" } else { "out" }, p.width))
            .collect()
    }

    #[getter]
    fn cycle(&self) -> u64 {
        self.tb.cycle()
    }

    /// Holds `reset` high for `cycles` clock edges (no agents run).
    #[pyo3(signature = (cycles = 4))]
    fn reset(&mut self, cycles: u64) -> PyResult<()> {
        if self.tb.model.port("reset").is_err() {
            return Err(PyValueError::new_err(format!("{}: no reset port", self.name)));
        }
        self.tb.reset(cycles);
        Ok(())
    }

    /// The value of a port (inputs as last set), as an integer of its width.
    fn get<'py>(&self, py: Python<'py>, port: &str) -> PyResult<Bound<'py, PyAny>> {
        let p = self.port(port)?;
        let mut bytes = vec![0u8; p.bytes()];
        self.tb.model.get_bytes(&p, &mut bytes);
        let int = py.get_type::<pyo3::types::PyInt>();
        int.call_method1("from_bytes", (PyBytes::new(py, &bytes), "little"))
    }

    /// Sets an input port to `value` (it holds until set again; an agent on
    /// the port drives it every cycle).
    fn set(&mut self, port: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        use trimswitch_sim::harness::verilator::Direction;
        let p = self.port(port)?;
        if self.tb.model.port_info(&p).direction != Direction::Input {
            return Err(PyValueError::new_err(format!("{}: port {port} is an output", self.name)));
        }
        let width = p.width();
        let bits: u32 = value
            .call_method0("bit_length")
            .and_then(|b| b.extract())
            .map_err(|_| PyValueError::new_err(format!("{port}: {value} is not an integer")))?;
        if value.lt(0)? || bits > width {
            return Err(PyValueError::new_err(format!("{port}: {value} does not fit its {width} bits unsigned")));
        }
        let b: Vec<u8> = value.call_method1("to_bytes", (p.bytes(), "little"))?.extract()?;
        self.tb.model.set_bytes(&p, &b);
        self.tb.model.eval();
        Ok(())
    }

    /// Attaches an AXI4-Stream source to the input interface `prefix`
    /// (`prefix_tdata`, ...); returns its number.
    fn add_axis_source(&mut self, prefix: &str) -> PyResult<usize> {
        let p = self.axis_ports(prefix)?;
        let s = AxisSource::new(&self.tb.model, &p, self.seed + 10 + self.srcs.len() as u64).map_err(|e| value_err(prefix, e))?;
        self.srcs.push(s);
        Ok(self.srcs.len() - 1)
    }

    /// Attaches an AXI4-Stream sink to the output interface `prefix`.
    fn add_axis_sink(&mut self, prefix: &str) -> PyResult<usize> {
        let p = self.axis_ports(prefix)?;
        let s = AxisSink::new(&self.tb.model, &p, self.seed + 20 + self.sinks.len() as u64).map_err(|e| value_err(prefix, e))?;
        self.sinks.push(s);
        Ok(self.sinks.len() - 1)
    }

    /// Attaches an AXI4-Lite master to the slave interface `prefix`
    /// (`prefix_awaddr`, ...).
    fn add_axil_master(&mut self, prefix: &str) -> PyResult<usize> {
        let m = AxilMaster::new(&self.tb.model, prefix, self.seed + 30 + self.masters.len() as u64)
            .map_err(|e| value_err(&format!("{}: AXI4-Lite interface {prefix:?}", self.name), e))?;
        self.masters.push(m);
        Ok(self.masters.len() - 1)
    }

    /// Queues a frame (`tuser` constant over it) on source `i`.
    #[pyo3(signature = (i, data, user = 0))]
    fn axis_send(&mut self, i: usize, data: &[u8], user: u128) -> PyResult<()> {
        Block::index(&self.srcs, i, "source")?;
        if data.is_empty() {
            return Err(PyValueError::new_err("frame: empty"));
        }
        let s = &mut self.srcs[i];
        let uw = s.user_width();
        if uw < 128 && user >> uw != 0 {
            return Err(PyValueError::new_err(format!("tuser {user:#x}: wider than the interface's {uw} bits")));
        }
        s.push(Packet::new(data.to_vec(), user));
        Ok(())
    }

    /// The frames sink `i` received since the last call: `(bytes, tuser,
    /// cycle of the last beat)`.
    fn axis_recv<'py>(&mut self, py: Python<'py>, i: usize) -> PyResult<Vec<(Bound<'py, PyBytes>, u128, u64)>> {
        Block::index(&self.sinks, i, "sink")?;
        let s = &mut self.sinks[i];
        if let Some(e) = s.errors.first() {
            return Err(PyValueError::new_err(format!("sink {i}: AXI4-Stream protocol error: {e}")));
        }
        s.first_cycles.clear();
        Ok(s.packets.drain(..).zip(s.last_cycles.drain(..)).map(|(p, c)| (PyBytes::new(py, &p.data), p.user, c)).collect())
    }

    /// Frames waiting in sink `i`.
    fn axis_pending(&self, i: usize) -> PyResult<usize> {
        Block::index(&self.sinks, i, "sink")?;
        Ok(self.sinks[i].packets.len())
    }

    /// Sets sink `i`'s probability of `tready` per cycle (back-pressure) and
    /// source `i`'s of an idle cycle between beats.
    fn axis_sink_ready_prob(&mut self, i: usize, p: f64) -> PyResult<()> {
        Block::index(&self.sinks, i, "sink")?;
        self.sinks[i].ready_prob = p;
        Ok(())
    }

    fn axis_source_idle_prob(&mut self, i: usize, p: f64) -> PyResult<()> {
        Block::index(&self.srcs, i, "source")?;
        self.srcs[i].idle_prob = p;
        Ok(())
    }

    /// Queues an AXI4-Lite write (all byte lanes, or `strb`) on master `i`.
    #[pyo3(signature = (i, addr, data, strb = 0xf))]
    fn axil_write(&mut self, i: usize, addr: u64, data: u32, strb: u8) -> PyResult<()> {
        Block::index(&self.masters, i, "master")?;
        self.masters[i].write_strb(addr, data, strb);
        Ok(())
    }

    /// Queues an AXI4-Lite read on master `i`.
    fn axil_read(&mut self, i: usize, addr: u64) -> PyResult<()> {
        Block::index(&self.masters, i, "master")?;
        self.masters[i].read(addr);
        Ok(())
    }

    /// Completed transactions of master `i`, oldest first: `("w", addr,
    /// resp, 0)` or `("r", addr, resp, data)`.
    fn axil_results(&mut self, i: usize) -> PyResult<Vec<(&'static str, u64, u8, u32)>> {
        Block::index(&self.masters, i, "master")?;
        let m = &mut self.masters[i];
        if let Some(e) = m.errors.first() {
            return Err(PyValueError::new_err(format!("master {i}: AXI4-Lite protocol error: {e}")));
        }
        Ok(m.results
            .drain(..)
            .map(|r| match r {
                AxilResult::Write { addr, resp } => ("w", addr, resp, 0),
                AxilResult::Read { addr, data, resp } => ("r", addr, resp, data),
            })
            .collect())
    }

    /// Runs `cycles` cycles with every agent (the GIL released).
    fn run(&mut self, py: Python<'_>, cycles: u64) {
        let b = OnThisThread(self);
        py.detach(move || {
            let b = b;
            let (tb, mut agents) = b.0.agents();
            tb.run(&mut agents, cycles);
        });
    }

    /// Whether condition `(kind, i, n)` holds now (see `run_until_any`).
    #[pyo3(signature = (kind, i, n = 0))]
    fn holds(&self, kind: &str, i: usize, n: usize) -> PyResult<bool> {
        Ok(self.holds_cond(&self.cond(kind, i, n)?))
    }

    /// Runs until one of `conds` holds or `max_cycles` ran; returns the
    /// cycles run. A condition `(kind, i, n)`: `("source_idle", i, 0)`,
    /// `("sink_frames", i, n)`: at least `n` frames waiting, `("master_idle",
    /// i, 0)`, `("master_results", i, n)`: at least `n` results waiting. The scheduler of `trimswitch.cocotb` calls
    /// this once per wake-up of its coroutines.
    fn run_until_any(&mut self, py: Python<'_>, conds: Vec<(String, usize, usize)>, max_cycles: u64) -> PyResult<u64> {
        let cs = conds.iter().map(|(k, i, n)| self.cond(k, *i, *n)).collect::<PyResult<Vec<_>>>()?;
        let b = OnThisThread(self);
        Ok(py.detach(move || {
            let b = b;
            b.0.step_until(&cs, max_cycles)
        }))
    }
}

/// The golden model of one ingress pipeline set (`IngressModel`) of a
/// configuration: what the switch does with a frame when nothing congests.
#[pyclass(unsendable, module = "trimswitch._native")]
struct IngressModelPy {
    model: IngressModel,
    ports: usize,
    trim: trimswitch_sim::model::tm::TrimParams,
}

#[pymethods]
impl IngressModelPy {
    #[new]
    #[pyo3(signature = (config, set = None))]
    fn new(config: &str, set: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let cfg = load_config(config, set)?;
        Ok(IngressModelPy {
            ports: cfg.datapath.ports,
            model: IngressModel::new(&cfg),
            trim: trimswitch_sim::model::tm::TrimParams::from_config(&cfg),
        })
    }

    /// The frame `frame` (with its FCS) entering `port`: `(out_port, bytes)`,
    /// or `None` when the ingress drops it. With `egress` (the default) the
    /// bytes are those that leave the switch when nothing congests (the
    /// egress rewrite applied: a routed frame's source MAC becomes the
    /// router's); without, those that leave the ingress pipeline.
    #[pyo3(signature = (port, frame, egress = true))]
    fn process<'py>(&mut self, py: Python<'py>, port: i64, frame: &[u8], egress: bool) -> PyResult<Option<(usize, Bound<'py, PyBytes>)>> {
        port_index(port, self.ports)?;
        Ok(self.model.process(port as usize, frame).map(|mut o| {
            if egress {
                trimswitch_sim::model::lookup::egress_rewrite(&mut o.frame, o.meta.routed, self.model.settings());
            }
            (o.meta.dest_port as usize, PyBytes::new(py, &o.frame))
        }))
    }

    /// The frame `frame` (with its FCS) entering `port` as the traffic
    /// manager's trimmer would cut it (`docs/trimming.md`, "Trim length and
    /// the trimmer"; the trim lengths and DSCP of the configuration): its
    /// headers and at most the trim length kept, lengths and checksums
    /// rewritten; with `rts`, returned to its sender (addresses swapped,
    /// out of `port`). `(out_port, bytes)` as it leaves the switch (with
    /// `egress`, the default) or the trimmer; `None` when the ingress drops
    /// the frame or the packet may not be trimmed (not IP, or not
    /// trimmable by its DSCP or NDP header: the switch drops it instead).
    #[pyo3(signature = (port, frame, rts = false, egress = true))]
    fn trim<'py>(
        &mut self,
        py: Python<'py>,
        port: i64,
        frame: &[u8],
        rts: bool,
        egress: bool,
    ) -> PyResult<Option<(usize, Bound<'py, PyBytes>)>> {
        port_index(port, self.ports)?;
        let Some(o) = self.model.process(port as usize, frame).filter(|o| o.meta.trim_ok && !o.meta.prio) else {
            return Ok(None);
        };
        let (mut f, m) = trimswitch_sim::model::tm::trim(&o.frame, &o.meta, &self.trim, rts);
        if egress {
            trimswitch_sim::model::lookup::egress_rewrite(&mut f, m.routed, self.model.settings());
        }
        Ok(Some((m.dest_port as usize, PyBytes::new(py, &f))))
    }

    /// The model's counters (`pipeN.<name>`, `portP.<name>`).
    fn counters(&self) -> std::collections::BTreeMap<String, u64> {
        self.model.counters().iter().map(|(k, v)| (k.clone(), *v)).collect()
    }
}

/// The parser's header vector of `frame` (the golden model, `docs/ingress.md`
/// "PHV") as a dict of its fields.
#[pyfunction]
fn parse(py: Python<'_>, frame: &[u8]) -> PyResult<Py<PyAny>> {
    let phv = trimswitch_sim::model::parser::parse(frame, frame.len());
    let text = serde_json::to_string(&phv).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// `sim(config, scenario, engine="rtl", set=None) -> dict`: runs a scenario
/// (`sim/scenarios/<name>.toml` by name, or a path) in every one of its
/// modes, as `trimswitch sim` does, and returns its report: `metrics.json`
/// (trimming scenarios), `pl2.json` (`hosts = "pl2"`) or `protego.json`
/// (`topology = "back-to-back"`), parsed. `engine="model"` runs the
/// event-driven model (`trimswitch sim --model`). The GIL is released
/// while it runs.
#[pyfunction]
#[pyo3(signature = (config, scenario, engine = "rtl", set = None))]
fn sim(py: Python<'_>, config: &str, scenario: &str, engine: &str, set: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
    use trimswitch_sim::scenario::{self as s, Scenario};
    let model = match engine {
        "rtl" => false,
        "model" => true,
        _ => return Err(PyValueError::new_err(format!("engine {engine:?}: one of \"rtl\" (the Verilated switch), \"model\""))),
    };
    let cfg = load_config(config, set)?;
    let sc = Scenario::load(scenario).map_err(|e| value_err("scenario", e))?;
    if model { sc.validate_model(&cfg) } else { sc.validate(&cfg) }.map_err(|e| value_err("scenario", e))?;
    let text = py
        .detach(move || -> anyhow::Result<String> {
            Ok(match (sc.is_back_to_back(), sc.is_pl2(), model) {
                (true, _, true) => serde_json::to_string(&s::protego::run_all(&cfg, &sc)?)?,
                (true, _, false) => serde_json::to_string(&s::protego::run_all_rtl(&cfg, &sc)?)?,
                (false, true, true) => serde_json::to_string(&s::pl2::run_all(&cfg, &sc)?)?,
                (false, true, false) => serde_json::to_string(&s::pl2::run_all_rtl(&cfg, &sc)?)?,
                (false, false, true) => serde_json::to_string(&s::netmodel::run_all_model(&cfg, &sc)?)?,
                (false, false, false) => serde_json::to_string(&s::run_all_rtl(&cfg, &sc, false)?)?,
            })
        })
        .map_err(|e| value_err(&format!("scenario {scenario}"), e))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// The register writes that load a configuration's ingress tables and
/// registers into every ingress pipeline, as `(byte address, value)` on the
/// switch's AXI4-Lite port: what `Switch` does after reset, for a testbench
/// that drives the port itself (the cocotb benchmark).
#[pyfunction]
#[pyo3(signature = (config, set = None))]
fn config_writes(config: &str, set: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(u32, u32)>> {
    let cfg = load_config(config, set)?;
    let map = trimswitch_hdl::top::regmap::SwitchMap::new(&cfg);
    let writes = trimswitch_sim::rtl::ingress::register_writes(&cfg, &trimswitch_sim::model::Settings::from_config(&cfg));
    let mut out = vec![];
    for n in 0..cfg.datapath.pipelines {
        let base = map.window(&format!("ingress{n}")).base;
        out.extend(writes.iter().map(|&(a, v)| (base + a, v)));
    }
    Ok(out)
}

/// `(verilator_args, opt_fast, opt_slow, make_args)`: the flags the harness
/// builds a model with (Verilator's arguments besides top, directory,
/// tracing and files; the makefile's `OPT_FAST` and `OPT_SLOW`; the
/// variables every make of it sets), so another testbench can build the
/// same Verilog the same way.
#[pyfunction]
fn model_flags() -> PyResult<(Vec<String>, String, String, Vec<&'static str>)> {
    let (args, fast, slow) = trimswitch_sim::harness::verilator::model_flags().map_err(|e| value_err("model flags", e))?;
    Ok((args, fast, slow, trimswitch_sim::harness::verilator::MAKE_ARGS.to_vec()))
}

/// The frames of a pcap file as `(time_ns, bytes)`.
#[pyfunction]
fn read_pcap<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Vec<(u64, Bound<'py, PyBytes>)>> {
    let recs = trimswitch_sim::packet::pcap::read(&path).map_err(|e| PyOSError::new_err(format!("{}: {e:#}", path.display())))?;
    Ok(recs.into_iter().map(|r| (r.time_ns, PyBytes::new(py, &r.data))).collect())
}

/// Writes `frames` (`(time_ns, bytes)`) as a pcap file.
#[pyfunction]
fn write_pcap(path: PathBuf, frames: Vec<(u64, Vec<u8>)>) -> PyResult<()> {
    let io = |e: anyhow::Error| PyOSError::new_err(format!("{}: {e:#}", path.display()));
    let mut w = trimswitch_sim::packet::pcap::PcapWriter::create(&path).map_err(io)?;
    for (t, f) in &frames {
        w.write(*t, f).map_err(io)?;
    }
    w.finish().map_err(io)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Switch>()?;
    m.add_class::<ModelSwitch>()?;
    m.add_class::<IngressModelPy>()?;
    m.add_class::<Block>()?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(sim, m)?)?;
    m.add_function(wrap_pyfunction!(config_writes, m)?)?;
    m.add_function(wrap_pyfunction!(model_flags, m)?)?;
    m.add_function(wrap_pyfunction!(read_pcap, m)?)?;
    m.add_function(wrap_pyfunction!(write_pcap, m)?)?;
    Ok(())
}

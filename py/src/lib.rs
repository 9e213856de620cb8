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
use trimswitch_sim::agents::axis::Packet;
use trimswitch_sim::harness::tb::Agent;
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
        let n = self.cfg.datapath.ports;
        if port < 0 || port as usize >= n {
            return Err(PyIndexError::new_err(format!("port {port}: the switch has ports 0..{n}")));
        }
        Ok(port as usize)
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

    fn agents(bench: &mut SwitchBench) -> (&mut trimswitch_sim::harness::tb::Tb, Vec<&mut dyn Agent>) {
        let SwitchBench { tb, srcs, sinks, .. } = bench;
        let agents = srcs.iter_mut().map(|s| s as &mut dyn Agent).chain(sinks.iter_mut().map(|s| s as &mut dyn Agent)).collect();
        (tb, agents)
    }
}

#[pymethods]
impl Switch {
    #[new]
    #[pyo3(signature = (config, engine = "rtl", set = None, seed = 1, line_rate = true))]
    fn new(py: Python<'_>, config: &str, engine: &str, set: Option<&Bound<'_, PyDict>>, seed: u64, line_rate: bool) -> PyResult<Self> {
        if engine != "rtl" {
            return Err(PyValueError::new_err(format!("engine {engine:?}: the engines are \"rtl\" (the Verilated switch)")));
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
        let max = self.cfg.ingress.max_frame as usize;
        if f.len() > max && !oversize {
            return Err(PyValueError::new_err(format!(
                "frame: {} bytes with its FCS, above the configuration's ingress.max_frame ({max}); oversize=True sends it to be dropped and counted",
                f.len()
            )));
        }
        if f.len() > 65_535 {
            return Err(PyValueError::new_err(format!("frame: {} bytes, above 65 535 (what a source can send)", f.len())));
        }
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
            let (tb, mut agents) = Switch::agents(b.0);
            tb.run(&mut agents, cycles);
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
                let (tb, mut agents) = Switch::agents(bench);
                tb.run(&mut agents, 16);
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
    /// with the cycle of each frame's first beat, oldest first. The bytes
    /// are what the MAC would send before appending its FCS.
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

/// The golden model of one ingress pipeline set (`IngressModel`) of a
/// configuration: what the switch does with a frame when nothing congests.
#[pyclass(unsendable, module = "trimswitch._native")]
struct IngressModelPy {
    model: IngressModel,
    ports: usize,
}

#[pymethods]
impl IngressModelPy {
    #[new]
    #[pyo3(signature = (config, set = None))]
    fn new(config: &str, set: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let cfg = load_config(config, set)?;
        Ok(IngressModelPy { ports: cfg.datapath.ports, model: IngressModel::new(&cfg) })
    }

    /// The frame `frame` (with its FCS) entering `port`: `(out_port, bytes)`,
    /// or `None` when the ingress drops it. With `egress` (the default) the
    /// bytes are those that leave the switch when nothing congests (the
    /// egress rewrite applied: a routed frame's source MAC becomes the
    /// router's); without, those that leave the ingress pipeline.
    #[pyo3(signature = (port, frame, egress = true))]
    fn process<'py>(&mut self, py: Python<'py>, port: i64, frame: &[u8], egress: bool) -> PyResult<Option<(usize, Bound<'py, PyBytes>)>> {
        if port < 0 || port as usize >= self.ports {
            return Err(PyIndexError::new_err(format!("port {port}: the switch has ports 0..{}", self.ports)));
        }
        Ok(self.model.process(port as usize, frame).map(|mut o| {
            if egress {
                trimswitch_sim::model::lookup::egress_rewrite(&mut o.frame, o.meta.routed, self.model.settings());
            }
            (o.meta.dest_port as usize, PyBytes::new(py, &o.frame))
        }))
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
    m.add_class::<IngressModelPy>()?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(read_pcap, m)?)?;
    m.add_function(wrap_pyfunction!(write_pcap, m)?)?;
    Ok(())
}

//! `ts_switch` in Verilator with a host on its AXI4-Lite port and one MAC
//! source and sink per port: the bench the switch tests and the scenario
//! simulator ([`crate::scenario`]) share.
//!
//! The host configures the switch through the register map
//! ([`trimswitch_hdl::top::regmap::SwitchMap`]), as a driver would: the ingress
//! tables and registers from the configuration, written into the ingress
//! window. Registers can be read and written while traffic runs (the MAC
//! agents keep running during a transaction).
use crate::agents::axil::{axil_read, axil_write, AxilMaster};
use crate::agents::axis::{AxisPorts, AxisSink, AxisSource};
use crate::harness::dut::model_of_verilog;
use crate::harness::tb::{Agent, Tb};
use crate::harness::verilator::ModelLib;
use crate::model::Settings;
use crate::rtl::ingress::register_writes;
use anyhow::{ensure, Context, Result};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};
use trimswitch_hdl::config::Config;
use trimswitch_hdl::gen::catalog::emit_block;
use trimswitch_hdl::top::regmap::{Access, SwitchMap};

/// Builds (or reuses) the Verilated `ts_switch` of `cfg`. Within a process
/// the model of a configuration (by its hash) is emitted and loaded once:
/// the scenario simulator runs one switch per mode, and emitting `ts_switch`
/// with rust-hdl costs seconds of CPU each time.
pub fn switch_model(cfg: &Config) -> Result<ModelLib> {
    static MODELS: OnceLock<Mutex<HashMap<String, ModelLib>>> = OnceLock::new();
    let models = MODELS.get_or_init(Default::default);
    let key = cfg.hash();
    if let Some(m) = models.lock().expect("model cache").get(&key) {
        return Ok(m.clone());
    }
    let lib = model_of_verilog(&emit_block(cfg, "ts_switch")?.verilog, "ts_switch", &key)?;
    models.lock().expect("model cache").insert(key, lib.clone());
    Ok(lib)
}

/// Line rate of one port in bytes per clock cycle.
pub fn line_bytes_per_cycle(cfg: &Config) -> f64 {
    cfg.datapath.port_gbps * 1e9 / 8.0 / (cfg.target.clock_mhz * 1e6)
}

/// The switch, a host, and a source (`s_*_p`, no `tuser`) and sink (`m_*_p`)
/// per port.
pub struct SwitchBench {
    pub tb: Tb,
    pub host: AxilMaster,
    pub srcs: Vec<AxisSource>,
    pub sinks: Vec<AxisSink>,
    pub map: SwitchMap,
}

impl SwitchBench {
    /// A fresh switch of `cfg`, reset; agents seeded from `seed`; nothing
    /// configured yet ([`SwitchBench::configure`]).
    pub fn new(cfg: &Config, seed: u64) -> Result<SwitchBench> {
        let lib = switch_model(cfg)?;
        let m = lib.instantiate();
        let ports = cfg.datapath.ports;
        let host = AxilMaster::new(&m, "s_axil", seed)?;
        let srcs = (0..ports)
            .map(|p| AxisSource::new(&m, &AxisPorts::indexed("s", p).without_tuser(), seed + 10 + p as u64))
            .collect::<Result<_>>()?;
        let sinks = (0..ports).map(|p| AxisSink::new(&m, &AxisPorts::indexed("m", p), seed + 20 + p as u64)).collect::<Result<_>>()?;
        let mut tb = Tb::new(m, "clock", Some("reset"))?;
        tb.reset(4);
        Ok(SwitchBench { tb, host, srcs, sinks, map: SwitchMap::new(cfg) })
    }

    /// Loads the ingress tables and registers of `cfg` into every ingress
    /// pipeline through the map (the traffic managers keep their reset
    /// values, the configuration's).
    pub fn configure(&mut self, cfg: &Config) -> Result<()> {
        let writes = register_writes(cfg, &Settings::from_config(cfg));
        for n in 0..cfg.datapath.pipelines {
            let base = self.map.window(&format!("ingress{n}")).base;
            for &(a, v) in &writes {
                self.write(base + a, v)?;
            }
        }
        Ok(())
    }

    /// Writes `v` into register `name` of every pipeline's traffic manager
    /// (`tm0`, `tm1`, ...), as a driver sets a switch-wide setting.
    pub fn write_tms(&mut self, name: &str, v: u32) -> Result<()> {
        let addrs: Vec<u32> = self.map.windows.iter().filter(|w| w.name.starts_with("tm")).map(|w| w.addr(name, 0)).collect();
        for a in addrs {
            self.write(a, v)?;
        }
        Ok(())
    }

    /// Writes a register (byte address) while the MAC agents keep running;
    /// fails on an error response.
    pub fn write(&mut self, addr: u32, v: u32) -> Result<()> {
        let SwitchBench { tb, host, srcs, sinks, .. } = self;
        let mut agents: Vec<&mut dyn Agent> =
            srcs.iter_mut().map(|s| s as &mut dyn Agent).chain(sinks.iter_mut().map(|s| s as &mut dyn Agent)).collect();
        let resp = axil_write(tb, host, addr as u64, v, &mut agents)?;
        ensure!(resp == 0, "register write {addr:#07x} = {v:#x} answered {resp}");
        Ok(())
    }

    /// Reads a register (byte address) while the MAC agents keep running.
    pub fn read(&mut self, addr: u32) -> Result<u32> {
        let SwitchBench { tb, host, srcs, sinks, .. } = self;
        let mut agents: Vec<&mut dyn Agent> =
            srcs.iter_mut().map(|s| s as &mut dyn Agent).chain(sinks.iter_mut().map(|s| s as &mut dyn Agent)).collect();
        let (v, resp) = axil_read(tb, host, addr as u64, &mut agents)?;
        ensure!(resp == 0, "register read {addr:#07x} answered {resp}");
        Ok(v)
    }

    /// Runs `cycles` cycles with every MAC agent.
    pub fn run(&mut self, cycles: u64) {
        let SwitchBench { tb, srcs, sinks, .. } = self;
        let mut agents: Vec<&mut dyn Agent> =
            srcs.iter_mut().map(|s| s as &mut dyn Agent).chain(sinks.iter_mut().map(|s| s as &mut dyn Agent)).collect();
        tb.run(&mut agents, cycles);
    }

    /// Every counter and gauge of the map (not the read/write registers), as
    /// `window.NAME` or `window.NAME[i]`.
    pub fn read_counters(&mut self) -> Result<BTreeMap<String, u64>> {
        let elems: Vec<(String, u32)> = self
            .map
            .elements()
            .filter(|e| e.1.access != Access::Rw)
            .map(|(w, r, i, a)| (if r.count == 1 { format!("{}.{}", w.name, r.name) } else { format!("{}.{}[{i}]", w.name, r.name) }, a))
            .collect();
        let mut out = BTreeMap::new();
        for (k, a) in elems {
            out.insert(k.clone(), self.read(a).with_context(|| k)? as u64);
        }
        Ok(out)
    }
}

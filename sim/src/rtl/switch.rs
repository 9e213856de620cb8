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
use crate::model::{Counters, IngressOut, Settings};
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

/// What [`replay_switch`] saw: the packets that left, in the order their
/// first beats left (the output `tuser` as [`IngressOut::meta`], with
/// `dest_port` the port it left by), the counters in the golden model's
/// names, and the cycles simulated.
pub struct SwitchReplay {
    pub out: Vec<IngressOut>,
    pub counters: Counters,
    pub cycles: u64,
}

/// Cycles without an output beat after which a frame is taken to be through
/// the switch (or dropped): more than a 64-byte frame's 48-cycle path and the
/// receive check's store-and-forward of the frame just taken.
pub const QUIET_CYCLES: u64 = 256;

/// Replays frames through the whole switch one at a time, in the order
/// given (`(port, wire frame)`): each frame goes in once the one before has
/// left every port (or was dropped) and the switch has been quiet for
/// [`QUIET_CYCLES`]. The ALU's decisions then happen in exactly this order,
/// which the golden model can follow (PL2's reservations are shared by all
/// ports, so a model that reads the ports one after the other would predict
/// other grants than a switch that interleaves them). PL2 is on as `cfg`
/// says, with the slot clock stopped (`SLOT_RUN` = 0: a capture carries no
/// clock the switch could follow; the model does the same).
///
/// Counters: `pipeN.<name>` and `portP.<name>` (the ingress windows, as the
/// ingress replay names them) and `pl2.<name>` (the ALU's and
/// `hold_cycles`).
pub fn replay_switch(cfg: &Config, frames: &[(usize, Vec<u8>)], seed: u64) -> Result<SwitchReplay> {
    use crate::agents::axis::Packet;
    use trimswitch_hdl::ingress::IngressRegs;
    use trimswitch_hdl::pl2::alu::Pl2Alu;
    use trimswitch_hdl::pl2::block::Pl2Regs;
    let ports = cfg.datapath.ports;
    // The hardware does not depend on `pl2.enable` (only `CTRL`'s reset
    // value does, and `CTRL` is written below): build the switch without it,
    // so a configuration with PL2 switched on shares its Verilated model with
    // the one without.
    let mut hw = cfg.clone();
    hw.pl2.enable = false;
    let mut b = SwitchBench::new(&hw, seed)?;
    b.configure(cfg)?;
    let pl2 = b.map.window("pl2").clone();
    let ctrl = Pl2Regs::rw_reset(cfg)[0] & !Pl2Regs::CTRL_SLOT_RUN;
    b.write(pl2.addr("CTRL", 0), ctrl)?;
    for (n, (p, f)) in frames.iter().enumerate() {
        ensure!(*p < ports, "frame {n}: port {p} does not exist");
        b.srcs[*p].push(Packet::new(f.clone(), 0));
        let (mut beats, mut quiet) = (u64::MAX, 0);
        while quiet < QUIET_CYCLES {
            b.run(16);
            let now: u64 = b.sinks.iter().map(|s| s.beats()).sum();
            if now != beats || !b.srcs[*p].idle() {
                (beats, quiet) = (now, 0);
            } else {
                quiet += 16;
            }
            ensure!(b.tb.cycle() < 2_000_000_000, "frame {n} from port {p}: the switch never went quiet");
        }
    }
    let mut out = vec![];
    for (p, s) in b.sinks.iter_mut().enumerate() {
        ensure!(s.error_count() == 0, "port {p}: AXI-Stream protocol errors at the output: {:?}", s.errors.first());
        ensure!(s.first_cycles.len() == s.packets.len(), "port {p}: a packet without its first cycle");
        for (pkt, at) in s.packets.drain(..).zip(s.first_cycles.drain(..)) {
            let mut meta = trimswitch_hdl::meta::Meta::unpack(pkt.user);
            meta.dest_port = p as u8;
            out.push((at, IngressOut { meta, frame: pkt.data }));
        }
    }
    out.sort_by_key(|(at, _)| *at);
    let out = out.into_iter().map(|(_, o)| o).collect();
    let mut counters = Counters::new();
    let per = ports / cfg.datapath.pipelines;
    for n in 0..cfg.datapath.pipelines {
        let w = b.map.window(&format!("ingress{n}")).clone();
        for name in IngressRegs::COUNTERS {
            counters.insert(format!("pipe{n}.{name}"), b.read(w.addr(&name.to_ascii_uppercase(), 0))? as u64);
        }
        for p in 0..per {
            for name in IngressRegs::PORT_COUNTERS {
                counters.insert(format!("port{}.{name}", n * per + p), b.read(w.addr(&name.to_ascii_uppercase(), p))? as u64);
            }
        }
    }
    for name in Pl2Alu::COUNTERS.iter().copied().chain(["hold_cycles"]) {
        counters.insert(format!("pl2.{name}"), b.read(pl2.addr(&name.to_ascii_uppercase(), 0))? as u64);
    }
    Ok(SwitchReplay { out, counters, cycles: b.tb.cycle() })
}

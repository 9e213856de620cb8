//! `ts_protego_shim`: a switch port's place for Protego (`docs/protego.md`,
//! "In the switch"): between the port's `rx_fcs` and the ingress arbiter,
//! and between its egress rewrite and the MAC. A port listed in `[protego]
//! ports` holds a [`ProtegoPort`]; any other port passes both ways by wire
//! (the switch without Protego, cycle for cycle) and its register window
//! reads 0 (`CTRL` off) and ignores writes.
//!
//! Ports:
//! - `clock`, `reset`: as [`ProtegoPort`]'s.
//! - `s_axil_*`: the port's register window ([`super::port::PortRegs`]).
//! - `rx_s_*` in, `rx_s_tready` out, `rx_s_bytes` (8) in: from `rx_fcs`
//!   (its `m_bytes`); `rx_m_*` out, `rx_m_tready` in, `rx_m_bytes` (8) out:
//!   to the ingress arbiter.
//! - `tx_s_*` in, `tx_s_tready` out: from the egress rewrite; `tx_m_*` out,
//!   `tx_m_tready` in: to the MAC.
use super::port::{ProtegoPort, PORT_REG_BITS};
use crate::axil::bundle::AxilSlave;
use crate::axil::regs::AxilRegs;
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::config::Config;
use rust_hdl::prelude::*;

/// A port's place for Protego (module documentation).
#[derive(LogicBlock)]
pub struct ProtegoShim<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil: AxilSlave<PORT_REG_BITS>,
    pub rx_s: AxisSink<D, K, U>,
    pub rx_s_bytes: Signal<In, Bits<8>>,
    pub rx_m: AxisSource<D, K, U>,
    pub rx_m_bytes: Signal<Out, Bits<8>>,
    pub tx_s: AxisSink<D, K, U>,
    pub tx_m: AxisSource<D, K, U>,
    /// Protego (one), or a register file that reads 0 (one).
    pg: Vec<ProtegoPort<D, K, U>>,
    none: Vec<AxilRegs<PORT_REG_BITS>>,
}

impl<const D: usize, const K: usize, const U: usize> ProtegoShim<D, K, U> {
    /// Port `port` of the switch `cfg` describes: Protego when `[protego]
    /// ports` lists it.
    pub fn new(cfg: &Config, port: usize) -> Self {
        let on = cfg.protego.ports.contains(&(port as u32));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            rx_s: Default::default(),
            rx_s_bytes: Default::default(),
            rx_m: Default::default(),
            rx_m_bytes: Default::default(),
            tx_s: Default::default(),
            tx_m: Default::default(),
            pg: if on { vec![ProtegoPort::new(cfg)] } else { Vec::new() },
            none: if on { Vec::new() } else { vec![AxilRegs::new(&[], 1)] },
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for ProtegoShim<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        for z in 0..self.pg.len() {
            self.pg[z].clock.next = self.clock.val();
            self.pg[z].reset.next = self.reset.val();
            AxilSlave::<PORT_REG_BITS>::link(&mut self.s_axil, &mut self.pg[z].s_axil);
            AxisSink::<D, K, U>::link(&mut self.rx_s, &mut self.pg[z].rx_s);
            AxisSource::<D, K, U>::link(&mut self.rx_m, &mut self.pg[z].rx_m);
            self.rx_m_bytes.next = self.pg[z].rx_m_bytes.val();
            AxisSink::<D, K, U>::link(&mut self.tx_s, &mut self.pg[z].tx_s);
            AxisSource::<D, K, U>::link(&mut self.tx_m, &mut self.pg[z].tx_m);
        }
        for z in 0..self.none.len() {
            self.none[z].clock.next = self.clock.val();
            self.none[z].reset.next = self.reset.val();
            AxilSlave::<PORT_REG_BITS>::link(&mut self.s_axil, &mut self.none[z].s_axil);
            self.none[z].ro[0].next = 0.into();
            // By wire, both ways.
            self.rx_m.tdata.next = self.rx_s.tdata.val();
            self.rx_m.tkeep.next = self.rx_s.tkeep.val();
            self.rx_m.tlast.next = self.rx_s.tlast.val();
            self.rx_m.tuser.next = self.rx_s.tuser.val();
            self.rx_m.tvalid.next = self.rx_s.tvalid.val();
            self.rx_s.tready.next = self.rx_m.tready.val();
            self.rx_m_bytes.next = self.rx_s_bytes.val();
            self.tx_m.tdata.next = self.tx_s.tdata.val();
            self.tx_m.tkeep.next = self.tx_s.tkeep.val();
            self.tx_m.tlast.next = self.tx_s.tlast.val();
            self.tx_m.tuser.next = self.tx_s.tuser.val();
            self.tx_m.tvalid.next = self.tx_s.tvalid.val();
            self.tx_s.tready.next = self.tx_m.tready.val();
        }
    }
}

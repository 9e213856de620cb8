//! `ts_xgmii_switch`: the switch with a 10G MAC on every port, XGMII in
//! and out (issue 18, `docs/boards.md`): what a board with 10G PHYs (the
//! NetFPGA-SUME's SFP+ cages through the PCS/PMA) wraps in its top.
//!
//! Each port is a [`XgmiiPort`] (receive MAC, 64-to-`D` upsizer, clock
//! crossing; clock crossing in frame mode, downsizer, transmit MAC) on the
//! one MAC clock (the PCS/PMA's core clock, 156.25 MHz, which its receive
//! elastic buffers retime the receive XGMII to), in front of a [`Switch`]
//! on the switch clock. The MACs keep the FCS (`ingress.fcs = "check"`:
//! the switch checks it again and also drops what the MAC flags), and
//! their jabber limit is `ingress.max_frame` (a longer frame is cut and
//! flagged by the MAC, counted oversize by the switch).
use crate::axil::bundle::AxilSlave;
use crate::config::Config;
use crate::mac::port::XgmiiPort;
use crate::prim::widgets::vec_of;
use crate::top::regmap::SWITCH_ADDR_BITS;
use crate::top::switch::Switch;
use anyhow::{ensure, Result};
use rust_hdl::prelude::*;

/// The MAC clock: XGMII at 10 Gb/s (802.3 46.1.3).
pub const XGMII_MHZ: f64 = 156.25;

/// The switch with XGMII ports (module docs).
///
/// Ports:
/// - `mac_clock`, `mac_reset`: the MACs' clock (156.25 MHz) and its
///   synchronous active-high reset; `clock`, `reset`: the switch's. Reset
///   both together, each for at least three cycles of the slower clock.
/// - `rxd[p]` (64), `rxc[p]` (8) in, `txd[p]`, `txc[p]` out: port `p`'s
///   XGMII, on the MAC clock.
/// - `s_axil_*`: the switch's AXI4-Lite slave (its register map), on the
///   switch clock.
/// - Per port, the port's counters ([`XgmiiPort`]; 32 bits, wrap, on the
///   MAC clock: for a lab's logic analyser, or a synchronizer into a
///   register map): `rx_frames[p]`, `rx_bytes[p]`, `rx_fcs_errors[p]`,
///   `rx_runts[p]`, `rx_jabbers[p]`, `rx_errors[p]`, `rx_overflows[p]`,
///   `tx_frames[p]`, `tx_bytes[p]`, `tx_underruns[p]`, `tx_errors[p]`.
#[derive(LogicBlock)]
pub struct XgmiiSwitch<
    const D: usize,
    const K: usize,
    const U: usize,
    const M: usize,
    const W: usize,
    const F: usize,
    const A: usize,
    const A1: usize,
> {
    pub mac_clock: Signal<In, Clock>,
    pub mac_reset: Signal<In, Bit>,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rxd: Vec<Signal<In, Bits<64>>>,
    pub rxc: Vec<Signal<In, Bits<8>>>,
    pub txd: Vec<Signal<Out, Bits<64>>>,
    pub txc: Vec<Signal<Out, Bits<8>>>,
    pub s_axil: AxilSlave<SWITCH_ADDR_BITS>,
    pub rx_frames: Vec<Signal<Out, Bits<32>>>,
    pub rx_bytes: Vec<Signal<Out, Bits<32>>>,
    pub rx_fcs_errors: Vec<Signal<Out, Bits<32>>>,
    pub rx_runts: Vec<Signal<Out, Bits<32>>>,
    pub rx_jabbers: Vec<Signal<Out, Bits<32>>>,
    pub rx_errors: Vec<Signal<Out, Bits<32>>>,
    pub rx_overflows: Vec<Signal<Out, Bits<32>>>,
    pub tx_frames: Vec<Signal<Out, Bits<32>>>,
    pub tx_bytes: Vec<Signal<Out, Bits<32>>>,
    pub tx_underruns: Vec<Signal<Out, Bits<32>>>,
    pub tx_errors: Vec<Signal<Out, Bits<32>>>,
    port: Vec<XgmiiPort<D, K, M, F, A, A1>>,
    switch: Switch<D, K, U, M, W>,
    max_bytes: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize, const F: usize, const A: usize, const A1: usize>
    XgmiiSwitch<D, K, U, M, W, F, A, A1>
{
    /// The switch of `cfg` with a 10G port per switch port. Errors (naming
    /// the file and key) when the ports are not 10G or the switch clock
    /// cannot take a 64-bit word per MAC cycle at `D` bits.
    pub fn new(cfg: &Config) -> Result<Self> {
        let f = cfg.source.display();
        let ports = cfg.datapath.ports;
        ensure!(cfg.datapath.port_gbps == 10.0, "{f}: datapath.port_gbps = {}: XGMII ports are 10G", cfg.datapath.port_gbps);
        ensure!(
            cfg.target.clock_mhz * D as f64 >= XGMII_MHZ * 64.0,
            "{f}: target.clock_mhz = {}: a port's receive FIFO must drain {D}-bit beats at least as fast as 64-bit words arrive at {XGMII_MHZ} MHz",
            cfg.target.clock_mhz
        );
        ensure!(cfg.ingress.fcs == "check", "{f}: ingress.fcs = {:?}: the XGMII MACs keep the FCS (\"check\")", cfg.ingress.fcs);
        Ok(Self {
            mac_clock: Default::default(),
            mac_reset: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            rxd: vec_of(ports),
            rxc: vec_of(ports),
            txd: vec_of(ports),
            txc: vec_of(ports),
            s_axil: Default::default(),
            rx_frames: vec_of(ports),
            rx_bytes: vec_of(ports),
            rx_fcs_errors: vec_of(ports),
            rx_runts: vec_of(ports),
            rx_jabbers: vec_of(ports),
            rx_errors: vec_of(ports),
            rx_overflows: vec_of(ports),
            tx_frames: vec_of(ports),
            tx_bytes: vec_of(ports),
            tx_underruns: vec_of(ports),
            tx_errors: vec_of(ports),
            port: (0..ports).map(|_| XgmiiPort::default()).collect(),
            switch: Switch::new(cfg)?,
            max_bytes: Constant::new((cfg.ingress.max_frame as u64).to_bits()),
        })
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize, const F: usize, const A: usize, const A1: usize> Logic
    for XgmiiSwitch<D, K, U, M, W, F, A, A1>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.switch.clock.next = self.clock.val();
        self.switch.reset.next = self.reset.val();
        AxilSlave::<SWITCH_ADDR_BITS>::link(&mut self.s_axil, &mut self.switch.s_axil);
        for p in 0..self.port.len() {
            self.port[p].mac_clock.next = self.mac_clock.val();
            self.port[p].mac_reset.next = self.mac_reset.val();
            self.port[p].clock.next = self.clock.val();
            self.port[p].reset.next = self.reset.val();
            self.port[p].max_bytes.next = self.max_bytes.val();
            self.port[p].rxd.next = self.rxd[p].val();
            self.port[p].rxc.next = self.rxc[p].val();
            self.txd[p].next = self.port[p].txd.val();
            self.txc[p].next = self.port[p].txc.val();
            // Received frames into the switch.
            self.switch.s[p].tdata.next = self.port[p].m_tdata.val();
            self.switch.s[p].tkeep.next = self.port[p].m_tkeep.val();
            self.switch.s[p].tlast.next = self.port[p].m_tlast.val();
            self.switch.s[p].tuser.next = self.port[p].m_tuser.val();
            self.switch.s[p].tvalid.next = self.port[p].m_tvalid.val();
            self.port[p].m_tready.next = self.switch.s[p].tready.val();
            // The switch's frames out (its `tuser` metadata stays inside).
            self.port[p].s.tdata.next = self.switch.m[p].tdata.val();
            self.port[p].s.tkeep.next = self.switch.m[p].tkeep.val();
            self.port[p].s.tlast.next = self.switch.m[p].tlast.val();
            self.port[p].s.tuser.next = false;
            self.port[p].s.tvalid.next = self.switch.m[p].tvalid.val();
            self.switch.m[p].tready.next = self.port[p].s.tready.val();
            self.rx_frames[p].next = self.port[p].rx_frames.val();
            self.rx_bytes[p].next = self.port[p].rx_bytes.val();
            self.rx_fcs_errors[p].next = self.port[p].rx_fcs_errors.val();
            self.rx_runts[p].next = self.port[p].rx_runts.val();
            self.rx_jabbers[p].next = self.port[p].rx_jabbers.val();
            self.rx_errors[p].next = self.port[p].rx_errors.val();
            self.rx_overflows[p].next = self.port[p].rx_overflows.val();
            self.tx_frames[p].next = self.port[p].tx_frames.val();
            self.tx_bytes[p].next = self.port[p].tx_bytes.val();
            self.tx_underruns[p].next = self.port[p].tx_underruns.val();
            self.tx_errors[p].next = self.port[p].tx_errors.val();
        }
    }
}

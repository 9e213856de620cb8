//! `ts_switch`: the whole switch data path of one configuration, as the
//! design guide draws it (`../shared/docs/DESIGN.md` §2): per port the
//! receive check, the ingress pipeline (arbiter, parser, classify, lookup,
//! MAC rewrite), the traffic manager (meter stage, admission, trimmer, header
//! and data queues, scheduler), and out to the MAC's transmit side.
//!
//! One AXI4-Lite port reaches every register ([`crate::regmap`]): window 0 is
//! the ingress pipeline, window 1 the traffic manager.
//!
//! Built for configurations with one ingress pipeline (`netfpga-sume`). A
//! switch of several pipelines needs a traffic manager that admits one
//! packet per pipeline per cycle into shared per-port queues
//! (`docs/switch.md`, "Several pipelines"); until it exists, [`Switch::new`]
//! refuses such a configuration with an error naming `datapath.pipelines`.
use crate::config::Config;
use crate::ingress::Ingress;
use crate::regmap::{SWITCH_ADDR_BITS, SWITCH_WINDOW_BITS};
use crate::axil_split::AxilSplit;
use crate::tm::TrafficManager;
use crate::widgets::vec_of;
use anyhow::{ensure, Result};
use rust_hdl::prelude::*;

/// The switch. Type parameters as for [`crate::pkt_fifo::PktFifo`].
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset of
///   every block (registers return to the configuration's values, tables
///   empty, queues empty, counters zero).
/// - `s_tdata[p]`, `s_tkeep[p]`, `s_tlast[p]`, `s_tvalid[p]` in,
///   `s_tready[p]` out: frames from the MAC of port `p`, FCS included
///   (checked, then stripped or kept as `CTRL` says).
/// - `m_tdata[p]` … `m_tvalid[p]` out, `m_tready[p]` in: frames for the MAC
///   of port `p`, without FCS when the ingress strips it (the MAC appends
///   it); `m_tuser[p]` carries the packet's metadata ([`crate::meta`]:
///   length, ports, queue, TRIMMED/RETURNED flags) for a monitor, the MAC
///   ignores it.
/// - `s_axil_*`: the AXI4-Lite slave, [`SWITCH_ADDR_BITS`]-bit byte
///   addresses ([`crate::regmap::SwitchMap`]).
#[derive(LogicBlock)]
pub struct Switch<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_tdata: Vec<Signal<In, Bits<D>>>,
    pub s_tkeep: Vec<Signal<In, Bits<K>>>,
    pub s_tlast: Vec<Signal<In, Bit>>,
    pub s_tvalid: Vec<Signal<In, Bit>>,
    pub s_tready: Vec<Signal<Out, Bit>>,
    pub m_tdata: Vec<Signal<Out, Bits<D>>>,
    pub m_tkeep: Vec<Signal<Out, Bits<K>>>,
    pub m_tlast: Vec<Signal<Out, Bit>>,
    pub m_tuser: Vec<Signal<Out, Bits<U>>>,
    pub m_tvalid: Vec<Signal<Out, Bit>>,
    pub m_tready: Vec<Signal<In, Bit>>,
    pub s_axil_awaddr: Signal<In, Bits<SWITCH_ADDR_BITS>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<SWITCH_ADDR_BITS>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    port_base: Constant<Bits<8>>,
    ingress: Ingress<D, K, U, M, W>,
    tm: TrafficManager<D, K, U, M, W>,
    split: AxilSplit<SWITCH_ADDR_BITS, SWITCH_WINDOW_BITS>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Switch<D, K, U, M, W> {
    /// The switch `cfg` describes; an error for a configuration of several
    /// ingress pipelines (not built yet).
    pub fn new(cfg: &Config) -> Result<Self> {
        ensure!(
            cfg.datapath.pipelines == 1,
            "{}: datapath.pipelines = {}: ts_switch is built for one ingress pipeline so far (the traffic manager admits one packet per cycle; docs/switch.md, \"Several pipelines\")",
            cfg.source.display(),
            cfg.datapath.pipelines
        );
        let ports = cfg.datapath.ports;
        Ok(Self {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: vec_of(ports),
            s_tkeep: vec_of(ports),
            s_tlast: vec_of(ports),
            s_tvalid: vec_of(ports),
            s_tready: vec_of(ports),
            m_tdata: vec_of(ports),
            m_tkeep: vec_of(ports),
            m_tlast: vec_of(ports),
            m_tuser: vec_of(ports),
            m_tvalid: vec_of(ports),
            m_tready: vec_of(ports),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            port_base: Constant::new(0u64.to_bits()),
            ingress: Ingress::new(cfg),
            tm: TrafficManager::new(cfg),
            split: AxilSplit::new(2),
        })
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for Switch<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.ingress.clock.next = self.clock.val();
        self.ingress.reset.next = self.reset.val();
        self.tm.clock.next = self.clock.val();
        self.tm.reset.next = self.reset.val();
        self.split.clock.next = self.clock.val();
        self.split.reset.next = self.reset.val();
        self.ingress.port_base.next = self.port_base.val();
        for p in 0..self.s_tvalid.len() {
            self.ingress.s_tdata[p].next = self.s_tdata[p].val();
            self.ingress.s_tkeep[p].next = self.s_tkeep[p].val();
            self.ingress.s_tlast[p].next = self.s_tlast[p].val();
            self.ingress.s_tvalid[p].next = self.s_tvalid[p].val();
            self.s_tready[p].next = self.ingress.s_tready[p].val();
            self.m_tdata[p].next = self.tm.m_tdata[p].val();
            self.m_tkeep[p].next = self.tm.m_tkeep[p].val();
            self.m_tlast[p].next = self.tm.m_tlast[p].val();
            self.m_tuser[p].next = self.tm.m_tuser[p].val();
            self.m_tvalid[p].next = self.tm.m_tvalid[p].val();
            self.tm.m_tready[p].next = self.m_tready[p].val();
            // One pipeline: the traffic manager's own deflections are the
            // only notifies (it feeds them to its mode machines itself).
            self.tm.notify_in[p].next = false;
        }
        // Ingress -> traffic manager (the PHV stays behind: the traffic
        // manager reads the header locations from tuser).
        self.tm.s_tdata.next = self.ingress.m_tdata.val();
        self.tm.s_tkeep.next = self.ingress.m_tkeep.val();
        self.tm.s_tlast.next = self.ingress.m_tlast.val();
        self.tm.s_tuser.next = self.ingress.m_tuser.val();
        self.tm.s_tvalid.next = self.ingress.m_tvalid.val();
        self.ingress.m_tready.next = self.tm.s_tready.val();
        // Register map: window 0 the ingress pipeline, window 1 the traffic manager.
        self.split.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.split.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.split.s_axil_awready.val();
        self.split.s_axil_wdata.next = self.s_axil_wdata.val();
        self.split.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.split.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.split.s_axil_wready.val();
        self.s_axil_bresp.next = self.split.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.split.s_axil_bvalid.val();
        self.split.s_axil_bready.next = self.s_axil_bready.val();
        self.split.s_axil_araddr.next = self.s_axil_araddr.val();
        self.split.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.split.s_axil_arready.val();
        self.s_axil_rdata.next = self.split.s_axil_rdata.val();
        self.s_axil_rresp.next = self.split.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.split.s_axil_rvalid.val();
        self.split.s_axil_rready.next = self.s_axil_rready.val();
        self.ingress.s_axil_awaddr.next = self.split.m_axil_awaddr[0].val();
        self.ingress.s_axil_awvalid.next = self.split.m_axil_awvalid[0].val();
        self.split.m_axil_awready[0].next = self.ingress.s_axil_awready.val();
        self.ingress.s_axil_wdata.next = self.split.m_axil_wdata[0].val();
        self.ingress.s_axil_wstrb.next = self.split.m_axil_wstrb[0].val();
        self.ingress.s_axil_wvalid.next = self.split.m_axil_wvalid[0].val();
        self.split.m_axil_wready[0].next = self.ingress.s_axil_wready.val();
        self.split.m_axil_bresp[0].next = self.ingress.s_axil_bresp.val();
        self.split.m_axil_bvalid[0].next = self.ingress.s_axil_bvalid.val();
        self.ingress.s_axil_bready.next = self.split.m_axil_bready[0].val();
        self.ingress.s_axil_araddr.next = self.split.m_axil_araddr[0].val();
        self.ingress.s_axil_arvalid.next = self.split.m_axil_arvalid[0].val();
        self.split.m_axil_arready[0].next = self.ingress.s_axil_arready.val();
        self.split.m_axil_rdata[0].next = self.ingress.s_axil_rdata.val();
        self.split.m_axil_rresp[0].next = self.ingress.s_axil_rresp.val();
        self.split.m_axil_rvalid[0].next = self.ingress.s_axil_rvalid.val();
        self.ingress.s_axil_rready.next = self.split.m_axil_rready[0].val();
        self.tm.s_axil_awaddr.next = self.split.m_axil_awaddr[1].val();
        self.tm.s_axil_awvalid.next = self.split.m_axil_awvalid[1].val();
        self.split.m_axil_awready[1].next = self.tm.s_axil_awready.val();
        self.tm.s_axil_wdata.next = self.split.m_axil_wdata[1].val();
        self.tm.s_axil_wstrb.next = self.split.m_axil_wstrb[1].val();
        self.tm.s_axil_wvalid.next = self.split.m_axil_wvalid[1].val();
        self.split.m_axil_wready[1].next = self.tm.s_axil_wready.val();
        self.split.m_axil_bresp[1].next = self.tm.s_axil_bresp.val();
        self.split.m_axil_bvalid[1].next = self.tm.s_axil_bvalid.val();
        self.tm.s_axil_bready.next = self.split.m_axil_bready[1].val();
        self.tm.s_axil_araddr.next = self.split.m_axil_araddr[1].val();
        self.tm.s_axil_arvalid.next = self.split.m_axil_arvalid[1].val();
        self.split.m_axil_arready[1].next = self.tm.s_axil_arready.val();
        self.split.m_axil_rdata[1].next = self.tm.s_axil_rdata.val();
        self.split.m_axil_rresp[1].next = self.tm.s_axil_rresp.val();
        self.split.m_axil_rvalid[1].next = self.tm.s_axil_rvalid.val();
        self.tm.s_axil_rready.next = self.split.m_axil_rready[1].val();
    }
}

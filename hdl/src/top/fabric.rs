//! `ts_fabric`: the primitives wired into a shared-pipeline crossbar.
//!
//! Each of the N ports has a store-and-forward [`PktFifo`]; an N:1
//! [`AxisArbMux`] (round robin or DRR) feeds one shared pipeline of
//! `data_width` bits, and an [`AxisDemux`] sends every packet to the output
//! named by `tuser.dest_port` (see [`crate::meta`]). An [`AxilRegs`] register
//! file holds the arbiter policy and quanta and exposes every drop counter.
//! It is the skeleton the switch of later stages grows from, and the design
//! `make` runs its smoke test on.
//!
//! Register map (byte addresses):
//!
//! | addr | name | access | meaning |
//! |---|---|---|---|
//! | 0x00 | `ARB_POLICY` | rw | bit 0: 1 = DRR, 0 = round robin |
//! | 0x04 + 4p | `ARB_QUANTUM_p` | rw | DRR quantum of port p in bytes (bits 15:0) |
//! | R = 0x04 + 4N | `DEMUX_DROP_PKTS` | ro, clear on write | packets with no valid destination |
//! | R + 4 + 12p | `FIFO_DROP_PKTS_p` | ro, clear on write | packets port p's FIFO dropped (full) |
//! | R + 8 + 12p | `FIFO_OCC_BYTES_p` | ro | bytes in port p's FIFO |
//! | R + 12 + 12p | `FIFO_OCC_PKTS_p` | ro | whole packets in port p's FIFO |
//!
//! (N ports. Per-port registers are interleaved because rust-hdl resolves
//! vector indices from loop variables and literals only.)
use crate::axil::regs::AxilRegs;
use crate::axis::arb_mux::AxisArbMux;
use crate::axis::demux::AxisDemux;
use crate::axis::pkt_fifo::PktFifo;
use crate::meta::DEST_PORT_LSB;
use crate::prim::widgets::vec_of;
use rust_hdl::prelude::*;

/// AXI-Lite address width of the fabric's register file.
pub const REG_ADDR_BITS: usize = 12;

/// Register addresses of a fabric with `ports` ports.
pub struct FabricRegs {
    pub ports: usize,
}

impl FabricRegs {
    pub const ARB_POLICY: u32 = 0x00;
    pub fn arb_quantum(&self, p: usize) -> u32 {
        (4 + 4 * p) as u32
    }
    pub fn demux_drop_pkts(&self) -> u32 {
        (4 + 4 * self.ports) as u32
    }
    pub fn fifo_drop_pkts(&self, p: usize) -> u32 {
        self.demux_drop_pkts() + 4 + 12 * p as u32
    }
    pub fn fifo_occ_bytes(&self, p: usize) -> u32 {
        self.demux_drop_pkts() + 8 + 12 * p as u32
    }
    pub fn fifo_occ_pkts(&self, p: usize) -> u32 {
        self.demux_drop_pkts() + 12 + 12 * p as u32
    }
}

/// The fabric. Type parameters as for [`PktFifo`].
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock, synchronous active-high reset of every block.
/// - `s_tdata_<p>` … `s_tready_<p>`: ingress stream of port p (`tuser.dest_port` selects the egress).
/// - `m_tdata_<p>` … `m_tready_<p>`: egress stream of port p.
/// - `s_axil_*`: AXI4-Lite slave of the register file (map in the module docs).
#[derive(LogicBlock)]
pub struct Fabric<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_tdata: Vec<Signal<In, Bits<D>>>,
    pub s_tkeep: Vec<Signal<In, Bits<K>>>,
    pub s_tlast: Vec<Signal<In, Bit>>,
    pub s_tuser: Vec<Signal<In, Bits<U>>>,
    pub s_tvalid: Vec<Signal<In, Bit>>,
    pub s_tready: Vec<Signal<Out, Bit>>,
    pub m_tdata: Vec<Signal<Out, Bits<D>>>,
    pub m_tkeep: Vec<Signal<Out, Bits<K>>>,
    pub m_tlast: Vec<Signal<Out, Bit>>,
    pub m_tuser: Vec<Signal<Out, Bits<U>>>,
    pub m_tvalid: Vec<Signal<Out, Bit>>,
    pub m_tready: Vec<Signal<In, Bit>>,
    pub s_axil_awaddr: Signal<In, Bits<REG_ADDR_BITS>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<REG_ADDR_BITS>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    fifo: Vec<PktFifo<D, K, U, M, W>>,
    arb: AxisArbMux<D, K, U>,
    demux: AxisDemux<D, K, U>,
    regs: AxilRegs<REG_ADDR_BITS>,
    quantum_mask: Constant<Bits<32>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Fabric<D, K, U, M, W> {
    /// A fabric of `ports` ports (2..=64) with FIFOs of `fifo_depth` beats.
    /// `drr` and `quantum` are the reset values of the arbiter registers.
    pub fn new(ports: usize, fifo_depth: usize, store_forward: bool, drr: bool, quantum: u32) -> Self {
        assert!((2..=64).contains(&ports), "Fabric: 2..=64 ports");
        let mut rw = vec![drr as u32];
        rw.extend(std::iter::repeat_n(quantum, ports));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: vec_of(ports),
            s_tkeep: vec_of(ports),
            s_tlast: vec_of(ports),
            s_tuser: vec_of(ports),
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
            fifo: (0..ports).map(|_| PktFifo::new(fifo_depth, store_forward)).collect(),
            arb: AxisArbMux::new(ports),
            demux: AxisDemux::new(ports, DEST_PORT_LSB),
            regs: AxilRegs::new(&rw, 3 * ports + 1),
            quantum_mask: Constant::new(0xffffu64.to_bits()),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for Fabric<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.regs.clock.next = self.clock.val();
        self.regs.reset.next = self.reset.val();
        self.arb.clock.next = self.clock.val();
        self.arb.reset.next = self.reset.val();
        self.demux.clock.next = self.clock.val();
        self.demux.reset.next = self.reset.val();
        // Register file.
        self.regs.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.regs.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.regs.s_axil_awready.val();
        self.regs.s_axil_wdata.next = self.s_axil_wdata.val();
        self.regs.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.regs.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.regs.s_axil_wready.val();
        self.s_axil_bresp.next = self.regs.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.regs.s_axil_bvalid.val();
        self.regs.s_axil_bready.next = self.s_axil_bready.val();
        self.regs.s_axil_araddr.next = self.s_axil_araddr.val();
        self.regs.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.regs.s_axil_arready.val();
        self.s_axil_rdata.next = self.regs.s_axil_rdata.val();
        self.s_axil_rresp.next = self.regs.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.regs.s_axil_rvalid.val();
        self.regs.s_axil_rready.next = self.s_axil_rready.val();
        self.arb.drr_enable.next = self.regs.rw[0].val().get_bit(0);
        self.arb.strict.next = false;
        // Ports: ingress FIFO -> arbiter input p; demux output p -> egress.
        for p in 0..self.fifo.len() {
            self.fifo[p].clock.next = self.clock.val();
            self.fifo[p].reset.next = self.reset.val();
            self.fifo[p].s_tdata.next = self.s_tdata[p].val();
            self.fifo[p].s_tkeep.next = self.s_tkeep[p].val();
            self.fifo[p].s_tlast.next = self.s_tlast[p].val();
            self.fifo[p].s_tuser.next = self.s_tuser[p].val();
            self.fifo[p].s_tvalid.next = self.s_tvalid[p].val();
            self.s_tready[p].next = self.fifo[p].s_tready.val();
            self.arb.s_tdata[p].next = self.fifo[p].m_tdata.val();
            self.arb.s_tkeep[p].next = self.fifo[p].m_tkeep.val();
            self.arb.s_tlast[p].next = self.fifo[p].m_tlast.val();
            self.arb.s_tuser[p].next = self.fifo[p].m_tuser.val();
            self.arb.s_tvalid[p].next = self.fifo[p].m_tvalid.val();
            self.fifo[p].m_tready.next = self.arb.s_tready[p].val();
            self.arb.quantum[p].next = self.regs.rw[p + 1].val() & self.quantum_mask.val();
            self.fifo[p].clear_drops.next = self.regs.ro_clear[3 * p + 1].val();
            self.fifo[p].s_abort.next = false;
            self.regs.ro[3 * p + 1].next = self.fifo[p].drop_pkts.val();
            self.regs.ro[3 * p + 2].next = self.fifo[p].occ_bytes.val();
            self.regs.ro[3 * p + 3].next = self.fifo[p].occ_pkts.val();
            self.m_tdata[p].next = self.demux.m_tdata[p].val();
            self.m_tkeep[p].next = self.demux.m_tkeep[p].val();
            self.m_tlast[p].next = self.demux.m_tlast[p].val();
            self.m_tuser[p].next = self.demux.m_tuser[p].val();
            self.m_tvalid[p].next = self.demux.m_tvalid[p].val();
            self.demux.m_tready[p].next = self.m_tready[p].val();
        }
        self.demux.s_tdata.next = self.arb.m_tdata.val();
        self.demux.s_tkeep.next = self.arb.m_tkeep.val();
        self.demux.s_tlast.next = self.arb.m_tlast.val();
        self.demux.s_tuser.next = self.arb.m_tuser.val();
        self.demux.s_tvalid.next = self.arb.m_tvalid.val();
        self.arb.m_tready.next = self.demux.s_tready.val();
        self.demux.clear_drops.next = self.regs.ro_clear[0].val();
        self.regs.ro[0].next = self.demux.drop_pkts.val();
    }
}

//! `ts_fabric`: the primitives wired into a shared-pipeline crossbar.
//!
//! Each of the N ports has a store-and-forward [`PktFifo`], then a register
//! slice ([`AxisSkid`]: the arbiter's pick reads flip-flops, not the FIFO's
//! output buffer, and the FIFO's read side sees a registered ready; issue 14);
//! an N:1 [`AxisArbMux`] (round robin or DRR) feeds one shared pipeline of
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
use crate::axil::bundle::AxilSlave;
use crate::axil::regs::AxilRegs;
use crate::axis::arb_mux::AxisArbMux;
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::demux::AxisDemux;
use crate::axis::pkt_fifo::PktFifo;
use crate::axis::skid::AxisSkid;
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
    pub s: Vec<AxisSink<D, K, U>>,
    pub m: Vec<AxisSource<D, K, U>>,
    pub s_axil: AxilSlave<REG_ADDR_BITS>,
    fifo: Vec<PktFifo<D, K, U, M, W>>,
    fifo_out: Vec<AxisSkid<D, K, U>>,
    arb: AxisArbMux<D, K, U>,
    demux: AxisDemux<D, K, U>,
    regs: AxilRegs<REG_ADDR_BITS>,
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
            s: vec_of(ports),
            m: vec_of(ports),
            s_axil: Default::default(),
            fifo: (0..ports).map(|_| PktFifo::new(fifo_depth, store_forward)).collect(),
            fifo_out: (0..ports).map(|_| AxisSkid::default()).collect(),
            arb: AxisArbMux::new(ports),
            demux: AxisDemux::new(ports, DEST_PORT_LSB),
            regs: AxilRegs::new(&rw, 3 * ports + 1),
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
        AxilSlave::<REG_ADDR_BITS>::link(&mut self.s_axil, &mut self.regs.s_axil);
        self.arb.drr_enable.next = self.regs.rw[0].val().get_bit(0);
        self.arb.strict.next = false;
        // Ports: ingress FIFO -> slice -> arbiter input p; demux output p -> egress.
        for p in 0..self.fifo.len() {
            self.fifo[p].clock.next = self.clock.val();
            self.fifo[p].reset.next = self.reset.val();
            AxisSink::<D, K, U>::link(&mut self.s[p], &mut self.fifo[p].s);
            self.fifo_out[p].clock.next = self.clock.val();
            self.fifo_out[p].reset.next = self.reset.val();
            AxisSource::<D, K, U>::join(&mut self.fifo[p].m, &mut self.fifo_out[p].s);
            AxisSource::<D, K, U>::join(&mut self.fifo_out[p].m, &mut self.arb.s[p]);
            // The beat's byte count from the slice's register.
            self.arb.s_bytes[p].next = self.fifo_out[p].m_bytes.val();
            // The arbiter reads bits 15:0 of a quantum itself.
            self.arb.quantum[p].next = self.regs.rw[p + 1].val();
            self.fifo[p].clear_drops.next = self.regs.ro_clear[3 * p + 1].val();
            self.fifo[p].s_abort.next = false;
            self.regs.ro[3 * p + 1].next = self.fifo[p].drop_pkts.val();
            self.regs.ro[3 * p + 2].next = self.fifo[p].occ_bytes.val();
            self.regs.ro[3 * p + 3].next = self.fifo[p].occ_pkts.val();
            AxisSource::<D, K, U>::link(&mut self.m[p], &mut self.demux.m[p]);
        }
        AxisSource::<D, K, U>::join(&mut self.arb.m, &mut self.demux.s);
        self.demux.clear_drops.next = self.regs.ro_clear[0].val();
        self.regs.ro[0].next = self.demux.drop_pkts.val();
    }
}

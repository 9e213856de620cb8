//! `ts_axil_regs`: AXI4-Lite register file primitive.
//!
//! The control plane of the switch is built from this block: read/write
//! configuration registers, read-only status and counter inputs, and a
//! clear-on-write pulse per read-only register so a host zeroes a counter by
//! writing it (any value).
//!
//! Address map (byte addresses, 32-bit registers, word aligned): register `i`
//! of the read/write set is at `4*i`; read-only register `j` is at
//! `4*(n_rw + j)`. Any other address answers `DECERR` (`0b11`) and reads 0.
//! Writes honour `wstrb`. One write and one read may be outstanding; AW and W
//! are accepted independently. A read is answered three cycles after its AR
//! handshake: the address is registered, then the read multiplexer has two
//! registered stages ([`RegReadMux`]; issue 14).
use crate::axil::bundle::AxilSlave;
use crate::prim::widgets::{vec_of, DffR, RegReadMux};
use rust_hdl::prelude::*;

/// AXI4-Lite response codes.
pub const RESP_OKAY: u64 = 0b00;
/// Decode error: no register at that address.
pub const RESP_DECERR: u64 = 0b11;

/// AXI4-Lite register file with `AW` address bits.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset that
///   returns every read/write register to its reset value and abandons any
///   transaction in flight.
/// - `s_axil_awaddr`, `s_axil_awvalid` in, `s_axil_awready` out; `s_axil_wdata`,
///   `s_axil_wstrb`, `s_axil_wvalid` in, `s_axil_wready` out; `s_axil_bresp`,
///   `s_axil_bvalid` out, `s_axil_bready` in; `s_axil_araddr`, `s_axil_arvalid`
///   in, `s_axil_arready` out; `s_axil_rdata`, `s_axil_rresp`, `s_axil_rvalid`
///   out, `s_axil_rready` in: the AXI4-Lite slave (no `prot` signals).
/// - `rw_<i>` out: value of read/write register `i`.
/// - `rw_wr_<i>` out: one-cycle pulse in the cycle register `i` is written.
/// - `wrote` out (registered): one-cycle pulse in the cycle after any write
///   (to any address), the first cycle a written read/write register shows
///   its new value on `rw`: for a block that keeps registered state derived
///   from the file and recomputes it only then (`ts_lookup`'s per-length
///   route masks).
/// - `ro_<j>` in: value returned for read-only register `j`.
/// - `ro_clear_<j>` out: one-cycle pulse when read-only register `j` is written
///   (clear-on-write for counters).
/// - `wdata` out: the data of the write, valid in the cycle of its
///   `rw_wr`/`ro_clear` pulse (all 32 bits, whatever `wstrb`): a read-only
///   register whose write means more than a clear (`ts_pl2`'s `IN_RES[p]`)
///   takes its value from here.
#[derive(LogicBlock)]
pub struct AxilRegs<const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil: AxilSlave<AW>,
    pub rw: Vec<Signal<Out, Bits<32>>>,
    pub rw_wr: Vec<Signal<Out, Bit>>,
    pub wrote: Signal<Out, Bit>,
    pub ro: Vec<Signal<In, Bits<32>>>,
    pub ro_clear: Vec<Signal<Out, Bit>>,
    pub wdata: Signal<Out, Bits<32>>,
    ro_base: Constant<Bits<AW>>,
    /// Byte lane `b` of a register word, as a mask (`wstrb` bit `b`).
    lane: Vec<Constant<Bits<32>>>,
    regs: Vec<DffR<Bits<32>>>,
    aw_full: DffR<Bit>,
    aw_addr: DFF<Bits<AW>>,
    w_full: DffR<Bit>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    bvalid: DffR<Bit>,
    bresp: DFF<Bits<2>>,
    /// The read pipeline: the AR address (`ar_v`, `ar_idx`), the
    /// multiplexer's first stage loaded (`rd_v`), the answer (`rvalid`).
    ar_v: DffR<Bit>,
    ar_idx: DFF<Bits<AW>>,
    rd_v: DffR<Bit>,
    rvalid: DffR<Bit>,
    rmux: RegReadMux<AW>,
    wrote_q: DffR<Bit>,
    do_write: Signal<Local, Bit>,
    widx: Signal<Local, Bits<AW>>,
    wmask: Signal<Local, Bits<32>>,
    whit: Signal<Local, Bit>,
}

impl<const AW: usize> AxilRegs<AW> {
    /// A register file with one read/write register per entry of `rw_reset`
    /// (its reset value) and `n_ro` read-only registers.
    pub fn new(rw_reset: &[u32], n_ro: usize) -> Self {
        let n_rw = rw_reset.len();
        assert!(n_rw + n_ro >= 1, "AxilRegs: at least one register");
        assert!((4 * (n_rw + n_ro) as u64) <= (1u64 << AW), "AxilRegs: {} registers do not fit in {AW} address bits", n_rw + n_ro);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            rw: vec_of(n_rw),
            rw_wr: vec_of(n_rw),
            wrote: Default::default(),
            ro: vec_of(n_ro),
            ro_clear: vec_of(n_ro),
            wdata: Default::default(),
            ro_base: Constant::new((n_rw as u64).to_bits()),
            lane: (0..4).map(|b| Constant::new((0xFFu64 << (8 * b)).to_bits())).collect(),
            regs: rw_reset.iter().map(|&v| DffR::new((v as u64).to_bits())).collect(),
            aw_full: Default::default(),
            aw_addr: Default::default(),
            w_full: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            bvalid: Default::default(),
            bresp: Default::default(),
            ar_v: Default::default(),
            ar_idx: Default::default(),
            rd_v: Default::default(),
            rvalid: Default::default(),
            rmux: RegReadMux::new(n_rw, n_ro),
            wrote_q: Default::default(),
            do_write: Default::default(),
            widx: Default::default(),
            wmask: Default::default(),
            whit: Default::default(),
        }
    }
}

impl<const AW: usize> Logic for AxilRegs<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, aw_full, aw_addr, w_full, w_data, w_strb, bvalid, bresp, ar_v, ar_idx, rd_v, rvalid, wrote_q);
        self.aw_full.reset.next = self.reset.val();
        self.w_full.reset.next = self.reset.val();
        self.bvalid.reset.next = self.reset.val();
        self.rvalid.reset.next = self.reset.val();
        self.ar_v.reset.next = self.reset.val();
        self.rd_v.reset.next = self.reset.val();
        self.wrote_q.reset.next = self.reset.val();
        for i in 0..self.regs.len() {
            self.regs[i].clock.next = self.clock.val();
            self.regs[i].reset.next = self.reset.val();
            self.regs[i].d.next = self.regs[i].q.val();
            self.rw[i].next = self.regs[i].q.val();
            self.rw_wr[i].next = false;
        }
        for j in 0..self.ro_clear.len() {
            self.ro_clear[j].next = false;
        }

        // Write channel: hold AW and W until both are here, then answer on B.
        self.s_axil.awready.next = !self.aw_full.q.val();
        self.s_axil.wready.next = !self.w_full.q.val();
        if self.s_axil.awvalid.val() & !self.aw_full.q.val() {
            self.aw_full.d.next = true;
            self.aw_addr.d.next = self.s_axil.awaddr.val();
        }
        if self.s_axil.wvalid.val() & !self.w_full.q.val() {
            self.w_full.d.next = true;
            self.w_data.d.next = self.s_axil.wdata.val();
            self.w_strb.d.next = self.s_axil.wstrb.val();
        }
        self.do_write.next = self.aw_full.q.val() & self.w_full.q.val() & !self.bvalid.q.val();
        self.widx.next = self.aw_addr.q.val() >> 2;
        self.wmask.next = 0.into();
        for b in 0..self.lane.len() {
            if self.w_strb.q.val().get_bit(b) {
                self.wmask.next = self.wmask.val() | self.lane[b].val();
            }
        }
        // Address decode by equality with each register's constant index
        // (`ro_base + j` folds to a constant): no subtractor or magnitude
        // compare between the address and the register multiplexer. The
        // response is OKAY iff some register matched.
        self.whit.next = false;
        for i in 0..self.regs.len() {
            if self.widx.val().index() == i {
                self.whit.next = true;
            }
        }
        for j in 0..self.ro_clear.len() {
            if self.widx.val() == self.ro_base.val() + j.to_bits() {
                self.whit.next = true;
            }
        }
        if self.do_write.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.bvalid.d.next = true;
            if self.whit.val() {
                self.bresp.d.next = 0.into();
            } else {
                self.bresp.d.next = 3.into();
            }
            for i in 0..self.regs.len() {
                if self.widx.val().index() == i {
                    self.regs[i].d.next = (self.regs[i].q.val() & !self.wmask.val()) | (self.w_data.q.val() & self.wmask.val());
                    self.rw_wr[i].next = true;
                }
            }
            for j in 0..self.ro_clear.len() {
                if self.widx.val() == self.ro_base.val() + j.to_bits() {
                    self.ro_clear[j].next = true;
                }
            }
        }
        if self.bvalid.q.val() & self.s_axil.bready.val() {
            self.bvalid.d.next = false;
        }
        self.wrote_q.d.next = self.do_write.val();
        self.wrote.next = self.wrote_q.q.val();
        self.wdata.next = self.w_data.q.val();
        self.s_axil.bvalid.next = self.bvalid.q.val();
        self.s_axil.bresp.next = self.bresp.q.val();

        // Read channel: one read at a time, answered three cycles after AR.
        self.s_axil.arready.next = !(self.ar_v.q.val() | self.rd_v.q.val() | self.rvalid.q.val());
        self.ar_v.d.next = self.s_axil.arvalid.val() & self.s_axil.arready.val();
        if self.s_axil.arvalid.val() & self.s_axil.arready.val() {
            self.ar_idx.d.next = self.s_axil.araddr.val() >> 2;
        }
        self.rmux.clock.next = self.clock.val();
        for i in 0..self.regs.len() {
            self.rmux.a[i].next = self.regs[i].q.val();
        }
        for j in 0..self.ro.len() {
            self.rmux.b[j].next = self.ro[j].val();
        }
        self.rmux.idx.next = self.ar_idx.q.val();
        self.rmux.ld1.next = self.ar_v.q.val();
        self.rmux.ld2.next = self.rd_v.q.val();
        self.rd_v.d.next = self.ar_v.q.val();
        if self.rd_v.q.val() {
            self.rvalid.d.next = true;
        }
        if self.rvalid.q.val() & self.s_axil.rready.val() {
            self.rvalid.d.next = false;
        }
        self.s_axil.rvalid.next = self.rvalid.q.val();
        self.s_axil.rdata.next = self.rmux.q.val();
        self.s_axil.rresp.next = 0.into();
        if !self.rmux.hit.val() {
            self.s_axil.rresp.next = 3.into();
        }
    }
}

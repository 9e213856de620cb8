//! `AxilSplit`: AXI4-Lite 1:N address decoder. Slave `i` owns the window of
//! `2^SW` bytes at `i * 2^SW`; it sees the address bits below `SW`. An address
//! in no window answers `DECERR` and reads 0. One write and one read are in
//! flight at a time (enough for a control plane, and it keeps the block
//! small). With it a register map is made of independent register files, so
//! every table starts at register 0 of its own window.
use crate::axil::regs::RESP_DECERR;
use crate::prim::widgets::{vec_of, DffR};
use rust_hdl::prelude::*;

/// The decoder: `AW` address bits on the master side, `SW` per slave window.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (abandons transactions in flight).
/// - `s_axil_*`: the AXI4-Lite slave port (from the host), `AW`-bit addresses.
/// - `m_axil_*_<i>`: master port `i` (to register file `i`), `SW`-bit addresses.
#[derive(LogicBlock)]
pub struct AxilSplit<const AW: usize, const SW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil_awaddr: Signal<In, Bits<AW>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<AW>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    pub m_axil_awaddr: Vec<Signal<Out, Bits<SW>>>,
    pub m_axil_awvalid: Vec<Signal<Out, Bit>>,
    pub m_axil_awready: Vec<Signal<In, Bit>>,
    pub m_axil_wdata: Vec<Signal<Out, Bits<32>>>,
    pub m_axil_wstrb: Vec<Signal<Out, Bits<4>>>,
    pub m_axil_wvalid: Vec<Signal<Out, Bit>>,
    pub m_axil_wready: Vec<Signal<In, Bit>>,
    pub m_axil_bresp: Vec<Signal<In, Bits<2>>>,
    pub m_axil_bvalid: Vec<Signal<In, Bit>>,
    pub m_axil_bready: Vec<Signal<Out, Bit>>,
    pub m_axil_araddr: Vec<Signal<Out, Bits<SW>>>,
    pub m_axil_arvalid: Vec<Signal<Out, Bit>>,
    pub m_axil_arready: Vec<Signal<In, Bit>>,
    pub m_axil_rdata: Vec<Signal<In, Bits<32>>>,
    pub m_axil_rresp: Vec<Signal<In, Bits<2>>>,
    pub m_axil_rvalid: Vec<Signal<In, Bit>>,
    pub m_axil_rready: Vec<Signal<Out, Bit>>,
    sw: Constant<Bits<8>>,
    n: Constant<Bits<AW>>,
    decerr: Constant<Bits<2>>,
    // Write: address taken (wa), address passed on (wa_sent), data passed on (wd_sent), waiting for B.
    wa: DffR<Bit>,
    wa_sent: DffR<Bit>,
    wd_sent: DffR<Bit>,
    wsel: DFF<Bits<AW>>,
    waddr: DFF<Bits<SW>>,
    // Read: address taken (ra), passed on (ra_sent).
    ra: DffR<Bit>,
    ra_sent: DffR<Bit>,
    rsel: DFF<Bits<AW>>,
    raddr: DFF<Bits<SW>>,
    wbad: Signal<Local, Bit>,
    rbad: Signal<Local, Bit>,
}

impl<const AW: usize, const SW: usize> AxilSplit<AW, SW> {
    /// A decoder with `n` slave windows (1..=2^(AW-SW)).
    pub fn new(n: usize) -> Self {
        assert!(SW < AW && n >= 1 && n <= 1 << (AW - SW), "AxilSplit: {n} windows of 2^{SW} bytes do not fit {AW} address bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
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
            m_axil_awaddr: vec_of(n),
            m_axil_awvalid: vec_of(n),
            m_axil_awready: vec_of(n),
            m_axil_wdata: vec_of(n),
            m_axil_wstrb: vec_of(n),
            m_axil_wvalid: vec_of(n),
            m_axil_wready: vec_of(n),
            m_axil_bresp: vec_of(n),
            m_axil_bvalid: vec_of(n),
            m_axil_bready: vec_of(n),
            m_axil_araddr: vec_of(n),
            m_axil_arvalid: vec_of(n),
            m_axil_arready: vec_of(n),
            m_axil_rdata: vec_of(n),
            m_axil_rresp: vec_of(n),
            m_axil_rvalid: vec_of(n),
            m_axil_rready: vec_of(n),
            sw: Constant::new((SW as u64).to_bits()),
            n: Constant::new((n as u64).to_bits()),
            decerr: Constant::new(RESP_DECERR.to_bits()),
            wa: Default::default(),
            wa_sent: Default::default(),
            wd_sent: Default::default(),
            wsel: Default::default(),
            waddr: Default::default(),
            ra: Default::default(),
            ra_sent: Default::default(),
            rsel: Default::default(),
            raddr: Default::default(),
            wbad: Default::default(),
            rbad: Default::default(),
        }
    }
}

impl<const AW: usize, const SW: usize> Logic for AxilSplit<AW, SW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wa, wa_sent, wd_sent, wsel, waddr, ra, ra_sent, rsel, raddr);
        self.wa.reset.next = self.reset.val();
        self.wa_sent.reset.next = self.reset.val();
        self.wd_sent.reset.next = self.reset.val();
        self.ra.reset.next = self.reset.val();
        self.ra_sent.reset.next = self.reset.val();
        self.wbad.next = self.wsel.q.val() >= self.n.val();
        self.rbad.next = self.rsel.q.val() >= self.n.val();

        // ---- write ----
        self.s_axil_awready.next = !self.wa.q.val() & !self.reset.val();
        if self.s_axil_awvalid.val() & !self.wa.q.val() {
            self.wa.d.next = true;
            self.wsel.d.next = self.s_axil_awaddr.val() >> self.sw.val();
            self.waddr.d.next = self.s_axil_awaddr.val().get_bits::<SW>(0);
        }
        self.s_axil_wready.next = false;
        self.s_axil_bvalid.next = false;
        self.s_axil_bresp.next = self.decerr.val();
        if self.wa.q.val() & self.wbad.val() {
            // No such window: take the data, answer DECERR.
            self.s_axil_wready.next = !self.wd_sent.q.val();
            if self.s_axil_wvalid.val() & !self.wd_sent.q.val() {
                self.wd_sent.d.next = true;
            }
            self.s_axil_bvalid.next = self.wd_sent.q.val();
            if self.wd_sent.q.val() & self.s_axil_bready.val() {
                self.wa.d.next = false;
                self.wd_sent.d.next = false;
            }
        }
        for i in 0..self.m_axil_awvalid.len() {
            self.m_axil_awaddr[i].next = self.waddr.q.val();
            self.m_axil_wdata[i].next = self.s_axil_wdata.val();
            self.m_axil_wstrb[i].next = self.s_axil_wstrb.val();
            self.m_axil_awvalid[i].next = false;
            self.m_axil_wvalid[i].next = false;
            self.m_axil_bready[i].next = false;
            if self.wa.q.val() & (self.wsel.q.val().index() == i) {
                self.m_axil_awvalid[i].next = !self.wa_sent.q.val();
                if self.m_axil_awready[i].val() & !self.wa_sent.q.val() {
                    self.wa_sent.d.next = true;
                }
                self.m_axil_wvalid[i].next = self.s_axil_wvalid.val() & !self.wd_sent.q.val();
                self.s_axil_wready.next = self.m_axil_wready[i].val() & !self.wd_sent.q.val();
                if self.s_axil_wvalid.val() & self.m_axil_wready[i].val() & !self.wd_sent.q.val() {
                    self.wd_sent.d.next = true;
                }
                self.s_axil_bvalid.next = self.m_axil_bvalid[i].val();
                self.s_axil_bresp.next = self.m_axil_bresp[i].val();
                self.m_axil_bready[i].next = self.s_axil_bready.val();
                if self.m_axil_bvalid[i].val() & self.s_axil_bready.val() {
                    self.wa.d.next = false;
                    self.wa_sent.d.next = false;
                    self.wd_sent.d.next = false;
                }
            }
        }

        // ---- read ----
        self.s_axil_arready.next = !self.ra.q.val() & !self.reset.val();
        if self.s_axil_arvalid.val() & !self.ra.q.val() {
            self.ra.d.next = true;
            self.rsel.d.next = self.s_axil_araddr.val() >> self.sw.val();
            self.raddr.d.next = self.s_axil_araddr.val().get_bits::<SW>(0);
        }
        self.s_axil_rvalid.next = false;
        self.s_axil_rdata.next = 0.into();
        self.s_axil_rresp.next = self.decerr.val();
        if self.ra.q.val() & self.rbad.val() {
            self.s_axil_rvalid.next = true;
            if self.s_axil_rready.val() {
                self.ra.d.next = false;
            }
        }
        for i in 0..self.m_axil_arvalid.len() {
            self.m_axil_araddr[i].next = self.raddr.q.val();
            self.m_axil_arvalid[i].next = false;
            self.m_axil_rready[i].next = false;
            if self.ra.q.val() & (self.rsel.q.val().index() == i) {
                self.m_axil_arvalid[i].next = !self.ra_sent.q.val();
                if self.m_axil_arready[i].val() & !self.ra_sent.q.val() {
                    self.ra_sent.d.next = true;
                }
                self.s_axil_rvalid.next = self.m_axil_rvalid[i].val();
                self.s_axil_rdata.next = self.m_axil_rdata[i].val();
                self.s_axil_rresp.next = self.m_axil_rresp[i].val();
                self.m_axil_rready[i].next = self.s_axil_rready.val();
                if self.m_axil_rvalid[i].val() & self.s_axil_rready.val() {
                    self.ra.d.next = false;
                    self.ra_sent.d.next = false;
                }
            }
        }
    }
}

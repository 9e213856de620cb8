//! `AxilSplit`: AXI4-Lite 1:N address decoder. Slave `i` owns the window of
//! `2^SW` bytes at `i * 2^SW`; it sees the address bits below `SW`. An address
//! in no window answers `DECERR` and reads 0. One write and one read are in
//! flight at a time (enough for a control plane, and it keeps the block
//! small). With it a register map is made of independent register files, so
//! every table starts at register 0 of its own window.
use crate::axil::bundle::{AxilMaster, AxilSlave};
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
    pub s_axil: AxilSlave<AW>,
    pub m_axil: Vec<AxilMaster<SW>>,
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
            s_axil: Default::default(),
            m_axil: vec_of(n),
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
        self.s_axil.awready.next = !self.wa.q.val() & !self.reset.val();
        if self.s_axil.awvalid.val() & !self.wa.q.val() {
            self.wa.d.next = true;
            self.wsel.d.next = self.s_axil.awaddr.val() >> self.sw.val();
            self.waddr.d.next = self.s_axil.awaddr.val().get_bits::<SW>(0);
        }
        self.s_axil.wready.next = false;
        self.s_axil.bvalid.next = false;
        self.s_axil.bresp.next = self.decerr.val();
        if self.wa.q.val() & self.wbad.val() {
            // No such window: take the data, answer DECERR.
            self.s_axil.wready.next = !self.wd_sent.q.val();
            if self.s_axil.wvalid.val() & !self.wd_sent.q.val() {
                self.wd_sent.d.next = true;
            }
            self.s_axil.bvalid.next = self.wd_sent.q.val();
            if self.wd_sent.q.val() & self.s_axil.bready.val() {
                self.wa.d.next = false;
                self.wd_sent.d.next = false;
            }
        }
        for i in 0..self.m_axil.len() {
            self.m_axil[i].awaddr.next = self.waddr.q.val();
            self.m_axil[i].wdata.next = self.s_axil.wdata.val();
            self.m_axil[i].wstrb.next = self.s_axil.wstrb.val();
            self.m_axil[i].awvalid.next = false;
            self.m_axil[i].wvalid.next = false;
            self.m_axil[i].bready.next = false;
            if self.wa.q.val() & (self.wsel.q.val().index() == i) {
                self.m_axil[i].awvalid.next = !self.wa_sent.q.val();
                if self.m_axil[i].awready.val() & !self.wa_sent.q.val() {
                    self.wa_sent.d.next = true;
                }
                self.m_axil[i].wvalid.next = self.s_axil.wvalid.val() & !self.wd_sent.q.val();
                self.s_axil.wready.next = self.m_axil[i].wready.val() & !self.wd_sent.q.val();
                if self.s_axil.wvalid.val() & self.m_axil[i].wready.val() & !self.wd_sent.q.val() {
                    self.wd_sent.d.next = true;
                }
                self.s_axil.bvalid.next = self.m_axil[i].bvalid.val();
                self.s_axil.bresp.next = self.m_axil[i].bresp.val();
                self.m_axil[i].bready.next = self.s_axil.bready.val();
                if self.m_axil[i].bvalid.val() & self.s_axil.bready.val() {
                    self.wa.d.next = false;
                    self.wa_sent.d.next = false;
                    self.wd_sent.d.next = false;
                }
            }
        }

        // ---- read ----
        self.s_axil.arready.next = !self.ra.q.val() & !self.reset.val();
        if self.s_axil.arvalid.val() & !self.ra.q.val() {
            self.ra.d.next = true;
            self.rsel.d.next = self.s_axil.araddr.val() >> self.sw.val();
            self.raddr.d.next = self.s_axil.araddr.val().get_bits::<SW>(0);
        }
        self.s_axil.rvalid.next = false;
        self.s_axil.rdata.next = 0.into();
        self.s_axil.rresp.next = self.decerr.val();
        if self.ra.q.val() & self.rbad.val() {
            self.s_axil.rvalid.next = true;
            if self.s_axil.rready.val() {
                self.ra.d.next = false;
            }
        }
        for i in 0..self.m_axil.len() {
            self.m_axil[i].araddr.next = self.raddr.q.val();
            self.m_axil[i].arvalid.next = false;
            self.m_axil[i].rready.next = false;
            if self.ra.q.val() & (self.rsel.q.val().index() == i) {
                self.m_axil[i].arvalid.next = !self.ra_sent.q.val();
                if self.m_axil[i].arready.val() & !self.ra_sent.q.val() {
                    self.ra_sent.d.next = true;
                }
                self.s_axil.rvalid.next = self.m_axil[i].rvalid.val();
                self.s_axil.rdata.next = self.m_axil[i].rdata.val();
                self.s_axil.rresp.next = self.m_axil[i].rresp.val();
                self.m_axil[i].rready.next = self.s_axil.rready.val();
                if self.m_axil[i].rvalid.val() & self.s_axil.rready.val() {
                    self.ra.d.next = false;
                    self.ra_sent.d.next = false;
                }
            }
        }
    }
}

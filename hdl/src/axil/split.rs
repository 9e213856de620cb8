//! `AxilSplit`: AXI4-Lite 1:N address decoder. Slave `i` owns the window of
//! `2^SW` bytes at `i * 2^SW`; it sees the address bits below `SW`. An address
//! in no window answers `DECERR` and reads 0. One write and one read are in
//! flight at a time (enough for a control plane, and it keeps the block
//! small). With it a register map is made of independent register files, so
//! every table starts at register 0 of its own window.
//!
//! Every channel is registered in the split, in both directions: the address
//! and the write data are taken into flip-flops before a slave sees them, and
//! the slave's B and R responses are taken into flip-flops before the host
//! sees them (`m_bready`/`m_rready` are `!full` flags). So no logic of a
//! register file behind it depends combinationally on the host's signals:
//! in hardware the host's wires end in the split, and in the Verilated switch
//! the register files' logic is evaluated once per clock edge instead of at
//! every input change (issue 14: it was a fifth of the model's instructions).
//! A write takes two cycles more than with pass-through data and responses, a
//! read one.
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
    // Write: address taken (wa), data taken (wd), each passed on (wa_sent,
    // wd_sent), the response held for the host (b_full).
    wa: DffR<Bit>,
    wd: DffR<Bit>,
    wa_sent: DffR<Bit>,
    wd_sent: DffR<Bit>,
    b_full: DffR<Bit>,
    wsel: DFF<Bits<AW>>,
    waddr: DFF<Bits<SW>>,
    wdata: DFF<Bits<32>>,
    wstrb: DFF<Bits<4>>,
    bresp: DFF<Bits<2>>,
    // Read: address taken (ra), passed on (ra_sent), the response held (r_full).
    ra: DffR<Bit>,
    ra_sent: DffR<Bit>,
    r_full: DffR<Bit>,
    rsel: DFF<Bits<AW>>,
    raddr: DFF<Bits<SW>>,
    rdata: DFF<Bits<32>>,
    rresp: DFF<Bits<2>>,
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
            wd: Default::default(),
            wa_sent: Default::default(),
            wd_sent: Default::default(),
            b_full: Default::default(),
            wsel: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            bresp: Default::default(),
            ra: Default::default(),
            ra_sent: Default::default(),
            r_full: Default::default(),
            rsel: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            wbad: Default::default(),
            rbad: Default::default(),
        }
    }
}

impl<const AW: usize, const SW: usize> Logic for AxilSplit<AW, SW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wa, wd, wa_sent, wd_sent, b_full, wsel, waddr, wdata, wstrb, bresp, ra, ra_sent, r_full, rsel, raddr, rdata, rresp
        );
        self.wa.reset.next = self.reset.val();
        self.wd.reset.next = self.reset.val();
        self.wa_sent.reset.next = self.reset.val();
        self.wd_sent.reset.next = self.reset.val();
        self.b_full.reset.next = self.reset.val();
        self.ra.reset.next = self.reset.val();
        self.ra_sent.reset.next = self.reset.val();
        self.r_full.reset.next = self.reset.val();
        self.wbad.next = self.wsel.q.val() >= self.n.val();
        self.rbad.next = self.rsel.q.val() >= self.n.val();

        // ---- write: AW and W taken independently, passed on from the
        // registers, the response held until the host takes it ----
        self.s_axil.awready.next = !self.wa.q.val() & !self.reset.val();
        if self.s_axil.awvalid.val() & !self.wa.q.val() {
            self.wa.d.next = true;
            self.wsel.d.next = self.s_axil.awaddr.val() >> self.sw.val();
            self.waddr.d.next = self.s_axil.awaddr.val().get_bits::<SW>(0);
        }
        self.s_axil.wready.next = !self.wd.q.val() & !self.reset.val();
        if self.s_axil.wvalid.val() & !self.wd.q.val() {
            self.wd.d.next = true;
            self.wdata.d.next = self.s_axil.wdata.val();
            self.wstrb.d.next = self.s_axil.wstrb.val();
        }
        if self.wa.q.val() & self.wd.q.val() & self.wbad.val() & !self.b_full.q.val() {
            // No such window: answer DECERR.
            self.b_full.d.next = true;
            self.bresp.d.next = self.decerr.val();
        }
        for i in 0..self.m_axil.len() {
            self.m_axil[i].awaddr.next = self.waddr.q.val();
            self.m_axil[i].wdata.next = self.wdata.q.val();
            self.m_axil[i].wstrb.next = self.wstrb.q.val();
            self.m_axil[i].awvalid.next = false;
            self.m_axil[i].wvalid.next = false;
            self.m_axil[i].bready.next = false;
            if self.wa.q.val() & (self.wsel.q.val().index() == i) {
                self.m_axil[i].awvalid.next = !self.wa_sent.q.val();
                if self.m_axil[i].awready.val() & !self.wa_sent.q.val() {
                    self.wa_sent.d.next = true;
                }
                self.m_axil[i].wvalid.next = self.wd.q.val() & !self.wd_sent.q.val();
                if self.wd.q.val() & self.m_axil[i].wready.val() & !self.wd_sent.q.val() {
                    self.wd_sent.d.next = true;
                }
                self.m_axil[i].bready.next = !self.b_full.q.val();
                if self.m_axil[i].bvalid.val() & !self.b_full.q.val() {
                    self.b_full.d.next = true;
                    self.bresp.d.next = self.m_axil[i].bresp.val();
                }
            }
        }
        self.s_axil.bvalid.next = self.b_full.q.val();
        self.s_axil.bresp.next = self.bresp.q.val();
        if self.b_full.q.val() & self.s_axil.bready.val() {
            self.b_full.d.next = false;
            self.wa.d.next = false;
            self.wd.d.next = false;
            self.wa_sent.d.next = false;
            self.wd_sent.d.next = false;
        }

        // ---- read: the same, with the data held in `rdata` ----
        self.s_axil.arready.next = !self.ra.q.val() & !self.reset.val();
        if self.s_axil.arvalid.val() & !self.ra.q.val() {
            self.ra.d.next = true;
            self.rsel.d.next = self.s_axil.araddr.val() >> self.sw.val();
            self.raddr.d.next = self.s_axil.araddr.val().get_bits::<SW>(0);
        }
        if self.ra.q.val() & self.rbad.val() & !self.r_full.q.val() {
            self.r_full.d.next = true;
            self.rdata.d.next = 0.into();
            self.rresp.d.next = self.decerr.val();
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
                self.m_axil[i].rready.next = !self.r_full.q.val();
                if self.m_axil[i].rvalid.val() & !self.r_full.q.val() {
                    self.r_full.d.next = true;
                    self.rdata.d.next = self.m_axil[i].rdata.val();
                    self.rresp.d.next = self.m_axil[i].rresp.val();
                }
            }
        }
        self.s_axil.rvalid.next = self.r_full.q.val();
        self.s_axil.rdata.next = self.rdata.q.val();
        self.s_axil.rresp.next = self.rresp.q.val();
        if self.r_full.q.val() & self.s_axil.rready.val() {
            self.r_full.d.next = false;
            self.ra.d.next = false;
            self.ra_sent.d.next = false;
        }
    }
}

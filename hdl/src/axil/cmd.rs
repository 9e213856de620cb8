//! One AXI4-Lite command at a time, for a host bridge (the serial line's
//! `ts_uart_axil`, FrontPanel's `ts_ok_axil`; issue 18): a start pulse
//! with the address, the direction and the data; the transaction with its
//! handshakes (a write's address and data each offered until taken, in
//! either order); the response and the data read, held until the next
//! command. Nothing waits for ever but the slave's answer, which the
//! switch's map always gives (DECERR where nothing is mapped).
use crate::axil::bundle::AxilMaster;
use crate::prim::widgets::DffR;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Ax {
    /// No command.
    Idle,
    /// The address (and data) offered.
    Bus,
    /// Waiting for the response.
    Resp,
}

/// The command sequencer (module docs). `AW` address bits of the master
/// (the low `AW` bits of `addr`).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset.
/// - `start` in: a command starts (taken only while `busy` is low), with
///   `read` (1 read, 0 write), `addr` and `wdata` in (32 bits), taken in
///   that cycle.
/// - `busy` out (from a register): a command is under way.
/// - `done` out (registered): one cycle as a command completes; `resp`
///   out (2 bits) and `rdata` out (32 bits, the data of a read, else
///   unchanged) registered with it and held until the next completes.
/// - `m_axil_*`: the AXI4-Lite master; the write strobes are all four
///   lanes.
#[derive(LogicBlock, Default)]
pub struct AxilCmd<const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub read: Signal<In, Bit>,
    pub addr: Signal<In, Bits<32>>,
    pub wdata: Signal<In, Bits<32>>,
    pub busy: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub resp: Signal<Out, Bits<2>>,
    pub rdata: Signal<Out, Bits<32>>,
    pub m_axil: AxilMaster<AW>,
    st: DffR<Ax>,
    read_q: DffR<Bit>,
    addr_q: DffR<Bits<32>>,
    data_q: DffR<Bits<32>>,
    aw_done: DffR<Bit>,
    w_done: DffR<Bit>,
    done_q: DffR<Bit>,
    resp_q: DffR<Bits<2>>,
    rdata_q: DffR<Bits<32>>,
}

impl<const AW: usize> Logic for AxilCmd<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, st, read_q, addr_q, data_q, aw_done, w_done, done_q, resp_q, rdata_q);
        self.st.reset.next = self.reset.val();
        self.read_q.reset.next = self.reset.val();
        self.addr_q.reset.next = self.reset.val();
        self.data_q.reset.next = self.reset.val();
        self.aw_done.reset.next = self.reset.val();
        self.w_done.reset.next = self.reset.val();
        self.done_q.reset.next = self.reset.val();
        self.resp_q.reset.next = self.reset.val();
        self.rdata_q.reset.next = self.reset.val();
        self.done_q.d.next = false;
        self.m_axil.awaddr.next = self.addr_q.q.val().get_bits::<AW>(0);
        self.m_axil.araddr.next = self.addr_q.q.val().get_bits::<AW>(0);
        self.m_axil.wdata.next = self.data_q.q.val();
        self.m_axil.wstrb.next = 15.into();
        self.m_axil.awvalid.next = false;
        self.m_axil.wvalid.next = false;
        self.m_axil.arvalid.next = false;
        self.m_axil.bready.next = false;
        self.m_axil.rready.next = false;
        match self.st.q.val() {
            Ax::Idle => {
                if self.start.val() {
                    self.read_q.d.next = self.read.val();
                    self.addr_q.d.next = self.addr.val();
                    self.data_q.d.next = self.wdata.val();
                    self.aw_done.d.next = false;
                    self.w_done.d.next = false;
                    self.st.d.next = Ax::Bus;
                }
            }
            Ax::Bus => {
                if self.read_q.q.val() {
                    self.m_axil.arvalid.next = true;
                    if self.m_axil.arready.val() {
                        self.st.d.next = Ax::Resp;
                    }
                } else {
                    self.m_axil.awvalid.next = !self.aw_done.q.val();
                    self.m_axil.wvalid.next = !self.w_done.q.val();
                    if self.m_axil.awready.val() {
                        self.aw_done.d.next = true;
                    }
                    if self.m_axil.wready.val() {
                        self.w_done.d.next = true;
                    }
                    if (self.aw_done.q.val() | self.m_axil.awready.val()) & (self.w_done.q.val() | self.m_axil.wready.val()) {
                        self.st.d.next = Ax::Resp;
                    }
                }
            }
            Ax::Resp => {
                if self.read_q.q.val() {
                    self.m_axil.rready.next = true;
                    if self.m_axil.rvalid.val() {
                        self.rdata_q.d.next = self.m_axil.rdata.val();
                        self.resp_q.d.next = self.m_axil.rresp.val();
                        self.done_q.d.next = true;
                        self.st.d.next = Ax::Idle;
                    }
                } else {
                    self.m_axil.bready.next = true;
                    if self.m_axil.bvalid.val() {
                        self.resp_q.d.next = self.m_axil.bresp.val();
                        self.done_q.d.next = true;
                        self.st.d.next = Ax::Idle;
                    }
                }
            }
        }
        self.busy.next = self.st.q.val() != Ax::Idle;
        self.done.next = self.done_q.q.val();
        self.resp.next = self.resp_q.q.val();
        self.rdata.next = self.rdata_q.q.val();
    }
}

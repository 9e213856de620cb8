//! `ts_rgmii_mac`: a 1G MAC on RGMII (the Reduced Gigabit Media
//! Independent Interface, v2.0: GMII's byte as two nibbles on both edges of
//! a 125 MHz clock), for boards with RGMII PHYs such as the ECP5-5G Versa's
//! (issue 18). [`GmiiTx`] and [`GmiiRx`] inside; the DDR I/O is the
//! vendor's primitive per family, named black boxes ([`DdrFamily`]), or a
//! behavioural model for simulation.
//!
//! Receive (on the PHY's `rgmii_rxc`): a byte's bits 3:0 and `RX_DV` on the
//! rising edge, bits 7:4 and `RX_DV xor RX_ER` on the falling edge (RGMII
//! v2.0, 3.0). Transmit (on `tx_clock`): the same on `rgmii_txd` and
//! `rgmii_tx_ctl`, and the clock forwarded on `rgmii_txc` by a DDR output
//! (1 then 0): the PHY must add the 2 ns clock delay of RGMII-ID (the Versa's
//! 88E1512 is strapped so), and the receive clock is taken as the PHY gives
//! it, delayed.
use crate::mac::gmii::{GmiiRx, GmiiTx};
use rust_hdl::prelude::*;

/// Which DDR primitives [`DdrIn`] and [`DdrOut`] instantiate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DdrFamily {
    /// Behavioural registers on both edges (Verilator).
    Sim,
    /// Lattice ECP5: `IDDRX1F`, `ODDRX1F`.
    Ecp5,
    /// Xilinx 7-series: `IDDR` (same-edge pipelined), `ODDR` (same edge).
    Xilinx7,
}

/// One DDR input: `q0` the pin at a rising edge of `clock`, `q1` at the
/// falling edge after it, both shown from the next rising edge.
#[derive(LogicBlock)]
pub struct DdrIn {
    pub clock: Signal<In, Clock>,
    pub d: Signal<In, Bit>,
    pub q0: Signal<Out, Bit>,
    pub q1: Signal<Out, Bit>,
    _family: DdrFamily,
}

impl DdrIn {
    pub fn new(family: DdrFamily) -> Self {
        Self { clock: Default::default(), d: Default::default(), q0: Default::default(), q1: Default::default(), _family: family }
    }
}

impl Logic for DdrIn {
    fn update(&mut self) {
        // rust-hdl's simulator is not used for this block.
        if self.clock.pos_edge() {
            self.q0.next = self.d.val();
            self.q1.next = self.d.val();
        }
    }
    fn connect(&mut self) {
        self.q0.connect();
        self.q1.connect();
    }
    fn hdl(&self) -> Verilog {
        match self._family {
            DdrFamily::Sim => Verilog::Custom(
                "reg r0, f0;\n\
                 always @(posedge clock) r0 <= d;\n\
                 always @(negedge clock) f0 <= d;\n\
                 always @(posedge clock) begin q0 <= r0; q1 <= f0; end\n"
                    .into(),
            ),
            DdrFamily::Ecp5 => Verilog::Wrapper(Wrapper {
                code: "IDDRX1F ddr (.D(d), .SCLK(clock), .RST(1'b0), .Q0(q0), .Q1(q1));\n".into(),
                cores: String::new(),
            }),
            DdrFamily::Xilinx7 => Verilog::Wrapper(Wrapper {
                code: "IDDR #(.DDR_CLK_EDGE(\"SAME_EDGE_PIPELINED\")) ddr (.Q1(q0), .Q2(q1), .C(clock), .CE(1'b1), .D(d), .R(1'b0), .S(1'b0));\n"
                    .into(),
                cores: String::new(),
            }),
        }
    }
}

/// One DDR output: `d0` on the pin while `clock` is high, `d1` while low,
/// both taken at a rising edge.
#[derive(LogicBlock)]
pub struct DdrOut {
    pub clock: Signal<In, Clock>,
    pub d0: Signal<In, Bit>,
    pub d1: Signal<In, Bit>,
    pub q: Signal<Out, Bit>,
    _family: DdrFamily,
}

impl DdrOut {
    pub fn new(family: DdrFamily) -> Self {
        Self { clock: Default::default(), d0: Default::default(), d1: Default::default(), q: Default::default(), _family: family }
    }
}

impl Logic for DdrOut {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = self.d0.val();
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        match self._family {
            DdrFamily::Sim => Verilog::Custom(
                "reg r0, r1;\n\
                 always @(posedge clock) begin r0 <= d0; r1 <= d1; end\n\
                 always @(*) q = clock ? r0 : r1;\n"
                    .into(),
            ),
            DdrFamily::Ecp5 => Verilog::Wrapper(Wrapper {
                code: "ODDRX1F ddr (.D0(d0), .D1(d1), .SCLK(clock), .RST(1'b0), .Q(q));\n".into(),
                cores: String::new(),
            }),
            DdrFamily::Xilinx7 => Verilog::Wrapper(Wrapper {
                code: "ODDR #(.DDR_CLK_EDGE(\"SAME_EDGE\")) ddr (.Q(q), .C(clock), .CE(1'b1), .D1(d0), .D2(d1), .R(1'b0), .S(1'b0));\n"
                    .into(),
                cores: String::new(),
            }),
        }
    }
}

/// A 1G MAC on RGMII (module docs).
///
/// Ports:
/// - `tx_clock`, `tx_reset`: the transmit clock (125 MHz) and its
///   synchronous reset; `rx_reset`: the receive side's reset, synchronous
///   to `rgmii_rxc` (the board top synchronizes it).
/// - `rgmii_rxc`, `rgmii_rxd` (4), `rgmii_rx_ctl` in; `rgmii_txc`,
///   `rgmii_txd` (4), `rgmii_tx_ctl` out: the RGMII pins.
/// - `s_tdata` (8), `s_tlast`, `s_tuser`, `s_tvalid` in, `s_tready` out, on
///   `tx_clock`: frames to send ([`GmiiTx`]).
/// - `m_tdata` (8), `m_tlast`, `m_tuser`, `m_tvalid` out, on `rgmii_rxc`:
///   frames received ([`GmiiRx`]); `max_bytes` in: its jabber limit.
/// - Counters (32 bits, wrap; `tx_*` on `tx_clock`, `rx_*` on `rgmii_rxc`):
///   `tx_frames`, `tx_bytes`, `tx_underruns`, `tx_errors`, `rx_frames`,
///   `rx_bytes`, `rx_fcs_errors`, `rx_runts`, `rx_jabbers`, `rx_errors`.
#[derive(LogicBlock)]
pub struct RgmiiMac {
    pub tx_clock: Signal<In, Clock>,
    pub tx_reset: Signal<In, Bit>,
    pub rx_reset: Signal<In, Bit>,
    pub rgmii_rxc: Signal<In, Clock>,
    pub rgmii_rxd: Signal<In, Bits<4>>,
    pub rgmii_rx_ctl: Signal<In, Bit>,
    pub rgmii_txc: Signal<Out, Bit>,
    pub rgmii_txd: Signal<Out, Bits<4>>,
    pub rgmii_tx_ctl: Signal<Out, Bit>,
    pub s_tdata: Signal<In, Bits<8>>,
    pub s_tlast: Signal<In, Bit>,
    pub s_tuser: Signal<In, Bit>,
    pub s_tvalid: Signal<In, Bit>,
    pub s_tready: Signal<Out, Bit>,
    pub m_tdata: Signal<Out, Bits<8>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub max_bytes: Signal<In, Bits<16>>,
    pub tx_frames: Signal<Out, Bits<32>>,
    pub tx_bytes: Signal<Out, Bits<32>>,
    pub tx_underruns: Signal<Out, Bits<32>>,
    pub tx_errors: Signal<Out, Bits<32>>,
    pub rx_frames: Signal<Out, Bits<32>>,
    pub rx_bytes: Signal<Out, Bits<32>>,
    pub rx_fcs_errors: Signal<Out, Bits<32>>,
    pub rx_runts: Signal<Out, Bits<32>>,
    pub rx_jabbers: Signal<Out, Bits<32>>,
    pub rx_errors: Signal<Out, Bits<32>>,
    tx: GmiiTx,
    rx: GmiiRx,
    /// Receive: the four data pins and the control pin.
    rx_ddr: Vec<DdrIn>,
    /// Transmit: the four data pins, the control pin, the clock.
    tx_ddr: Vec<DdrOut>,
}

impl RgmiiMac {
    pub fn new(family: DdrFamily) -> Self {
        Self {
            tx_clock: Default::default(),
            tx_reset: Default::default(),
            rx_reset: Default::default(),
            rgmii_rxc: Default::default(),
            rgmii_rxd: Default::default(),
            rgmii_rx_ctl: Default::default(),
            rgmii_txc: Default::default(),
            rgmii_txd: Default::default(),
            rgmii_tx_ctl: Default::default(),
            s_tdata: Default::default(),
            s_tlast: Default::default(),
            s_tuser: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            m_tdata: Default::default(),
            m_tlast: Default::default(),
            m_tuser: Default::default(),
            m_tvalid: Default::default(),
            max_bytes: Default::default(),
            tx_frames: Default::default(),
            tx_bytes: Default::default(),
            tx_underruns: Default::default(),
            tx_errors: Default::default(),
            rx_frames: Default::default(),
            rx_bytes: Default::default(),
            rx_fcs_errors: Default::default(),
            rx_runts: Default::default(),
            rx_jabbers: Default::default(),
            rx_errors: Default::default(),
            tx: Default::default(),
            rx: Default::default(),
            rx_ddr: (0..5).map(|_| DdrIn::new(family)).collect(),
            tx_ddr: (0..6).map(|_| DdrOut::new(family)).collect(),
        }
    }
}

impl Logic for RgmiiMac {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- receive ----
        for i in 0..5 {
            self.rx_ddr[i].clock.next = self.rgmii_rxc.val();
        }
        for i in 0..4 {
            self.rx_ddr[i].d.next = self.rgmii_rxd.val().get_bit(i);
        }
        self.rx_ddr[4].d.next = self.rgmii_rx_ctl.val();
        self.rx.clock.next = self.rgmii_rxc.val();
        self.rx.reset.next = self.rx_reset.val();
        self.rx.rxd.next = bit_cast::<8, 1>(self.rx_ddr[0].q0.val().into())
            | (bit_cast::<8, 1>(self.rx_ddr[1].q0.val().into()) << 1)
            | (bit_cast::<8, 1>(self.rx_ddr[2].q0.val().into()) << 2)
            | (bit_cast::<8, 1>(self.rx_ddr[3].q0.val().into()) << 3)
            | (bit_cast::<8, 1>(self.rx_ddr[0].q1.val().into()) << 4)
            | (bit_cast::<8, 1>(self.rx_ddr[1].q1.val().into()) << 5)
            | (bit_cast::<8, 1>(self.rx_ddr[2].q1.val().into()) << 6)
            | (bit_cast::<8, 1>(self.rx_ddr[3].q1.val().into()) << 7);
        self.rx.rx_dv.next = self.rx_ddr[4].q0.val();
        self.rx.rx_er.next = self.rx_ddr[4].q0.val() ^ self.rx_ddr[4].q1.val();
        self.rx.max_bytes.next = self.max_bytes.val();
        self.m_tdata.next = self.rx.m_tdata.val();
        self.m_tlast.next = self.rx.m_tlast.val();
        self.m_tuser.next = self.rx.m_tuser.val();
        self.m_tvalid.next = self.rx.m_tvalid.val();

        // ---- transmit ----
        self.tx.clock.next = self.tx_clock.val();
        self.tx.reset.next = self.tx_reset.val();
        self.tx.s_tdata.next = self.s_tdata.val();
        self.tx.s_tlast.next = self.s_tlast.val();
        self.tx.s_tuser.next = self.s_tuser.val();
        self.tx.s_tvalid.next = self.s_tvalid.val();
        self.s_tready.next = self.tx.s_tready.val();
        for i in 0..6 {
            self.tx_ddr[i].clock.next = self.tx_clock.val();
        }
        for i in 0..4 {
            self.tx_ddr[i].d0.next = self.tx.txd.val().get_bit(i);
            self.tx_ddr[i].d1.next = self.tx.txd.val().get_bit(i + 4);
        }
        self.tx_ddr[4].d0.next = self.tx.tx_en.val();
        self.tx_ddr[4].d1.next = self.tx.tx_en.val() ^ self.tx.tx_er.val();
        self.tx_ddr[5].d0.next = true;
        self.tx_ddr[5].d1.next = false;
        self.rgmii_txd.next = bit_cast::<4, 1>(self.tx_ddr[0].q.val().into())
            | (bit_cast::<4, 1>(self.tx_ddr[1].q.val().into()) << 1)
            | (bit_cast::<4, 1>(self.tx_ddr[2].q.val().into()) << 2)
            | (bit_cast::<4, 1>(self.tx_ddr[3].q.val().into()) << 3);
        self.rgmii_tx_ctl.next = self.tx_ddr[4].q.val();
        self.rgmii_txc.next = self.tx_ddr[5].q.val();

        self.tx_frames.next = self.tx.frames.val();
        self.tx_bytes.next = self.tx.bytes.val();
        self.tx_underruns.next = self.tx.underruns.val();
        self.tx_errors.next = self.tx.errors.val();
        self.rx_frames.next = self.rx.frames.val();
        self.rx_bytes.next = self.rx.bytes.val();
        self.rx_fcs_errors.next = self.rx.fcs_errors.val();
        self.rx_runts.next = self.rx.runts.val();
        self.rx_jabbers.next = self.rx.jabbers.val();
        self.rx_errors.next = self.rx.errors.val();
    }
}

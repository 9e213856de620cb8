//! AXI4-Lite interface bundles (no `prot` signals): [`AxilSlave`] is the port a
//! register file or decoder takes from the host, [`AxilMaster`] the one a
//! decoder drives towards a register file. A block names its port `s_axil`
//! (or `m_axil`, `Vec` for several); the emitted Verilog keeps the flat names
//! `s_axil_awaddr`, `m_axil_rdata_2` ([`crate::gen::emit`]).
//!
//! Wiring in `#[hdl_gen]` code: `AxilSlave::link(&mut self.s_axil, &mut
//! self.regs.s_axil)` passes a block's own port through to a child;
//! `AxilMaster::join(&mut self.split.m_axil[i], &mut self.regs.s_axil)` joins a
//! decoder's window to a register file.
//!
//! `AW` is the byte-address width; data is 32 bits with 4 strobes.
use rust_hdl::prelude::*;

/// The slave (host-facing) side of an AXI4-Lite port.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxilMaster"]
pub struct AxilSlave<const AW: usize> {
    /// Write address (byte address) and its handshake.
    pub awaddr: Signal<In, Bits<AW>>,
    pub awvalid: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    /// Write data, byte strobes and handshake.
    pub wdata: Signal<In, Bits<32>>,
    pub wstrb: Signal<In, Bits<4>>,
    pub wvalid: Signal<In, Bit>,
    pub wready: Signal<Out, Bit>,
    /// Write response (`OKAY` 0b00, `DECERR` 0b11) and handshake.
    pub bresp: Signal<Out, Bits<2>>,
    pub bvalid: Signal<Out, Bit>,
    pub bready: Signal<In, Bit>,
    /// Read address and handshake.
    pub araddr: Signal<In, Bits<AW>>,
    pub arvalid: Signal<In, Bit>,
    pub arready: Signal<Out, Bit>,
    /// Read data, response and handshake.
    pub rdata: Signal<Out, Bits<32>>,
    pub rresp: Signal<Out, Bits<2>>,
    pub rvalid: Signal<Out, Bit>,
    pub rready: Signal<In, Bit>,
}

/// The master side of an AXI4-Lite port: the mirror of [`AxilSlave`].
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxilSlave"]
pub struct AxilMaster<const AW: usize> {
    /// Write address and handshake.
    pub awaddr: Signal<Out, Bits<AW>>,
    pub awvalid: Signal<Out, Bit>,
    pub awready: Signal<In, Bit>,
    /// Write data, strobes and handshake.
    pub wdata: Signal<Out, Bits<32>>,
    pub wstrb: Signal<Out, Bits<4>>,
    pub wvalid: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    /// Write response and handshake.
    pub bresp: Signal<In, Bits<2>>,
    pub bvalid: Signal<In, Bit>,
    pub bready: Signal<Out, Bit>,
    /// Read address and handshake.
    pub araddr: Signal<Out, Bits<AW>>,
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    /// Read data, response and handshake.
    pub rdata: Signal<In, Bits<32>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
}

//! AXI4-Stream interface bundles: one field per signal, so a block declares a
//! stream port in one line and wires it to another block in one statement.
//!
//! A block names its ports `s` (a sink: data in, `tready` out) and `m` (a
//! source: data out, `tready` in), or `s: Vec<AxisSink<..>>` for one per port.
//! [`crate::gen::emit`] flattens the bundle names, so the emitted Verilog keeps
//! the flat AXI4-Stream names: `s_tdata`, `m_tready`, and `s_tdata_3` for
//! element 3 of a vector (the element index last, as before bundles).
//!
//! Wiring in `#[hdl_gen]` code:
//! - `AxisSource::join(&mut self.fifo.m, &mut self.arb.s[p])`: a child's
//!   source to another child's sink (the two directions are mirrored);
//! - `AxisSink::link(&mut self.s, &mut self.fifo.s)` and
//!   `AxisSource::link(&mut self.m, &mut self.demux.m)`: a block's own port
//!   passed through to a child's port of the same direction.
//!
//! Type parameters: `D` tdata bits, `K` tkeep bits (`D / 8`), `U` tuser bits.
use rust_hdl::prelude::*;

/// The source side of an AXI4-Stream (the `m_` port of a block): `tdata`,
/// `tkeep`, `tlast`, `tuser`, `tvalid` out and `tready` in.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxisSink"]
pub struct AxisSource<const D: usize, const K: usize, const U: usize> {
    /// Payload, byte 0 in bits 7:0.
    pub tdata: Signal<Out, Bits<D>>,
    /// One bit per byte of `tdata`: all ones but on the last beat, contiguous
    /// from lane 0 there.
    pub tkeep: Signal<Out, Bits<K>>,
    /// The last beat of a packet.
    pub tlast: Signal<Out, Bit>,
    /// Per-packet metadata, valid on the first beat ([`crate::meta`]).
    pub tuser: Signal<Out, Bits<U>>,
    /// A beat is offered.
    pub tvalid: Signal<Out, Bit>,
    /// The sink takes the beat at the rising edge when `tvalid & tready`.
    pub tready: Signal<In, Bit>,
}

/// The sink side of an AXI4-Stream (the `s_` port of a block): the mirror of
/// [`AxisSource`].
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxisSource"]
pub struct AxisSink<const D: usize, const K: usize, const U: usize> {
    /// Payload, byte 0 in bits 7:0.
    pub tdata: Signal<In, Bits<D>>,
    /// One bit per byte of `tdata`.
    pub tkeep: Signal<In, Bits<K>>,
    /// The last beat of a packet.
    pub tlast: Signal<In, Bit>,
    /// Per-packet metadata, valid on the first beat.
    pub tuser: Signal<In, Bits<U>>,
    /// A beat is offered.
    pub tvalid: Signal<In, Bit>,
    /// This block takes the beat at the rising edge when `tvalid & tready`.
    pub tready: Signal<Out, Bit>,
}

/// A stream as a MAC delivers it, `tuser` only its 1-bit bad-frame flag:
/// the source side.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxisPlainSink"]
pub struct AxisPlainSource<const D: usize, const K: usize> {
    /// Payload, byte 0 in bits 7:0.
    pub tdata: Signal<Out, Bits<D>>,
    /// One bit per byte of `tdata`.
    pub tkeep: Signal<Out, Bits<K>>,
    /// The last beat of a packet.
    pub tlast: Signal<Out, Bit>,
    /// On a last beat: the MAC found the frame bad (its FCS, or an error
    /// inside it); 0 from a MAC without such a flag.
    pub tuser: Signal<Out, Bit>,
    /// A beat is offered.
    pub tvalid: Signal<Out, Bit>,
    /// The sink takes the beat at the rising edge when `tvalid & tready`.
    pub tready: Signal<In, Bit>,
}

/// A stream as a MAC delivers it, `tuser` only its 1-bit bad-frame flag:
/// the sink side (the `s_` port of the FCS check, the ingress pipeline and
/// the switch).
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "AxisPlainSource"]
pub struct AxisPlainSink<const D: usize, const K: usize> {
    /// Payload, byte 0 in bits 7:0.
    pub tdata: Signal<In, Bits<D>>,
    /// One bit per byte of `tdata`.
    pub tkeep: Signal<In, Bits<K>>,
    /// The last beat of a packet.
    pub tlast: Signal<In, Bit>,
    /// On a last beat: the MAC found the frame bad (its FCS, or an error
    /// inside it); 0 from a MAC without such a flag.
    pub tuser: Signal<In, Bit>,
    /// A beat is offered.
    pub tvalid: Signal<In, Bit>,
    /// This block takes the beat at the rising edge when `tvalid & tready`.
    pub tready: Signal<Out, Bit>,
}

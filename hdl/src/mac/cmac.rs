//! `ts_cmac_port`: a 100G port on the UltraScale+ integrated MAC, the
//! CMAC (`cmac_usplus`, PG203), for the Alveo U250 (issue 18,
//! `boards/alveo-u250/`, `docs/boards.md`).
//!
//! The CMAC is the MAC: its user side is a 512-bit AXI4-Stream on its own
//! clock (`gt_txusrclk2`, 322.265625 MHz, the receive side's `rx_clk` tied
//! to it), as wide as the switch's data path. Its defaults, which the board
//! keeps: the receive side removes the FCS and flags a bad frame with
//! `rx_axis_tuser` on its last beat (the switch is built with
//! `ingress.fcs = "mac"`), and has no `tready`; the transmit side appends
//! the FCS, must never see `tvalid` fall inside a packet (it would
//! underrun: PG203 "TX AXI4-Stream interface"), and does not pad, so
//! frames below 60 bytes (64 with the FCS) are padded here.
//!
//! [`CmacPort`] is [`MacPort`] at the CMAC's width (`S = D = 512`: the
//! converters are register stages, the receive side keeping its overflow
//! handling) with the padding in front of its transmit FIFO:
//!
//! - Receive: CMAC beats -> a register stage -> an [`AsyncFifo`](crate::prim::async_fifo::AsyncFifo) of 16
//!   beats into the switch clock. The switch takes a beat every cycle
//!   (`rx_fcs` never holds its input) at a clock no slower than the CMAC's
//!   nominal one, and the CMAC delivers at most 100 Gb/s: at most 2 beats
//!   per 89 bytes on the wire (a 65-byte frame), 2.29 of its cycles. The
//!   FIFO does not fill (tested with the switch clock 0.3% slower and
//!   every frame's beats back to back); if it does, the frame is cut,
//!   flagged and counted (`rx_overflows`).
//! - Transmit: the padding -> an [`AsyncFifo`](crate::prim::async_fifo::AsyncFifo) in frame mode holding 16 KiB
//!   (a frame is shown to the CMAC side only once whole, so `tvalid` never
//!   falls inside it) -> a register slice -> a register stage -> the CMAC.
use crate::axis::bundle::AxisPlainSink;
use crate::mac::port::MacPort;
use crate::prim::widgets::{DffR, KeepExpand};
use rust_hdl::prelude::*;

/// The CMAC's user-side width (PG203: the AXI4-Stream interface).
pub const CMAC_BITS: usize = 512;
/// The CMAC's user clock at 100 Gb/s, MHz (PG203: `gt_txusrclk2`).
pub const CMAC_MHZ: f64 = 322.265625;
/// Bytes a frame has at least before the CMAC appends its FCS (802.3 4.2.3.3
/// pads to the 64-byte minimum).
pub const MIN_PAYLOAD: usize = 60;

/// A 100G port on a CMAC (module docs). `D` = 512 (the CMAC's width), `K`
/// = 64, `M`, `F`, `A`, `A1` as [`MacPort`]'s.
///
/// Ports, CMAC clock:
/// - `cmac_clock`, `cmac_reset`: the CMAC's `gt_txusrclk2` and a
///   synchronous active-high reset on it (reset with the switch side: both
///   domains together, each at least three cycles).
/// - `rx_tdata` (512), `rx_tkeep` (64), `rx_tlast`, `rx_tuser`,
///   `rx_tvalid` in: the CMAC's `rx_axis_*` (no back-pressure; `tuser` on
///   a last beat: a bad frame).
/// - `tx_tdata`, `tx_tkeep`, `tx_tlast`, `tx_tuser`, `tx_tvalid` out,
///   `tx_tready` in: the CMAC's `tx_axis_*` (`tuser`: send the frame with
///   a bad FCS); `tvalid` stays high from a frame's first beat to its last.
/// - Counters (32 bits, wrap): `rx_frames` (frames the CMAC delivered),
///   `rx_errors` (of those, flagged bad), `rx_overflows` (cut: the receive
///   FIFO was full), `tx_frames` (frames handed to the CMAC).
///
/// Switch clock:
/// - `clock`, `reset`: the switch's clock and synchronous reset.
/// - `m_*` out, `m_tready` in: received frames for the switch's `s_*`
///   port, without FCS, `tuser` on a last beat = the CMAC's verdict.
/// - `s_*` in, `s_tready` out: frames from the switch's `m_*` port,
///   without FCS; `s_tuser` (1 bit): send the frame with a bad FCS.
#[derive(LogicBlock)]
pub struct CmacPort<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> {
    pub cmac_clock: Signal<In, Clock>,
    pub cmac_reset: Signal<In, Bit>,
    pub rx_tdata: Signal<In, Bits<D>>,
    pub rx_tkeep: Signal<In, Bits<K>>,
    pub rx_tlast: Signal<In, Bit>,
    pub rx_tuser: Signal<In, Bit>,
    pub rx_tvalid: Signal<In, Bit>,
    pub tx_tdata: Signal<Out, Bits<D>>,
    pub tx_tkeep: Signal<Out, Bits<K>>,
    pub tx_tlast: Signal<Out, Bit>,
    pub tx_tuser: Signal<Out, Bit>,
    pub tx_tvalid: Signal<Out, Bit>,
    pub tx_tready: Signal<In, Bit>,
    pub rx_frames: Signal<Out, Bits<32>>,
    pub rx_errors: Signal<Out, Bits<32>>,
    pub rx_overflows: Signal<Out, Bits<32>>,
    pub tx_frames: Signal<Out, Bits<32>>,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub s: AxisPlainSink<D, K>,
    core: MacPort<D, K, D, K, M, F, A, A1>,
    /// Switch clock: the switch's stream is inside a frame.
    in_frame: DffR<Bit>,
    /// The beat's lanes as a bit mask (to zero the padding).
    lanes: KeepExpand<K, D>,
    /// Lanes `0..MIN_PAYLOAD`.
    pad_keep: Constant<Bits<K>>,
    /// A one-beat frame shorter than [`MIN_PAYLOAD`].
    short: Signal<Local, Bit>,
    n_rx: DffR<Bits<32>>,
    n_rx_bad: DffR<Bits<32>>,
    n_tx: DffR<Bits<32>>,
}

impl<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> Default
    for CmacPort<D, K, M, F, A, A1>
{
    fn default() -> Self {
        assert!(D == CMAC_BITS && K * 8 == D, "CmacPort: D = {CMAC_BITS} (the CMAC's width), K = D / 8");
        Self {
            cmac_clock: Default::default(),
            cmac_reset: Default::default(),
            rx_tdata: Default::default(),
            rx_tkeep: Default::default(),
            rx_tlast: Default::default(),
            rx_tuser: Default::default(),
            rx_tvalid: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tuser: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            rx_frames: Default::default(),
            rx_errors: Default::default(),
            rx_overflows: Default::default(),
            tx_frames: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tuser: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            s: Default::default(),
            core: Default::default(),
            in_frame: Default::default(),
            lanes: Default::default(),
            pad_keep: Constant::new(Bits::<K>::mask() >> ((K - MIN_PAYLOAD) as u64)),
            short: Default::default(),
            n_rx: Default::default(),
            n_rx_bad: Default::default(),
            n_tx: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> Logic
    for CmacPort<D, K, M, F, A, A1>
{
    #[hdl_gen]
    fn update(&mut self) {
        // ---- CMAC clock ----
        self.core.rx_clock.next = self.cmac_clock.val();
        self.core.rx_reset.next = self.cmac_reset.val();
        self.core.tx_clock.next = self.cmac_clock.val();
        self.core.tx_reset.next = self.cmac_reset.val();
        self.core.rx_tdata.next = self.rx_tdata.val();
        self.core.rx_tkeep.next = self.rx_tkeep.val();
        self.core.rx_tlast.next = self.rx_tlast.val();
        self.core.rx_tuser.next = self.rx_tuser.val();
        self.core.rx_tvalid.next = self.rx_tvalid.val();
        self.tx_tdata.next = self.core.tx_tdata.val();
        self.tx_tkeep.next = self.core.tx_tkeep.val();
        self.tx_tlast.next = self.core.tx_tlast.val();
        self.tx_tuser.next = self.core.tx_tuser.val();
        self.tx_tvalid.next = self.core.tx_tvalid.val();
        self.core.tx_tready.next = self.tx_tready.val();
        self.n_rx.clock.next = self.cmac_clock.val();
        self.n_rx_bad.clock.next = self.cmac_clock.val();
        self.n_tx.clock.next = self.cmac_clock.val();
        self.n_rx.reset.next = self.cmac_reset.val();
        self.n_rx_bad.reset.next = self.cmac_reset.val();
        self.n_tx.reset.next = self.cmac_reset.val();
        self.n_rx.d.next = self.n_rx.q.val();
        self.n_rx_bad.d.next = self.n_rx_bad.q.val();
        self.n_tx.d.next = self.n_tx.q.val();
        if self.rx_tvalid.val() & self.rx_tlast.val() {
            self.n_rx.d.next = self.n_rx.q.val() + 1;
            if self.rx_tuser.val() {
                self.n_rx_bad.d.next = self.n_rx_bad.q.val() + 1;
            }
        }
        if self.core.tx_tvalid.val() & self.tx_tready.val() & self.core.tx_tlast.val() {
            self.n_tx.d.next = self.n_tx.q.val() + 1;
        }
        self.rx_frames.next = self.n_rx.q.val();
        self.rx_errors.next = self.n_rx_bad.q.val();
        self.rx_overflows.next = self.core.rx_overflows.val();
        self.tx_frames.next = self.n_tx.q.val();

        // ---- switch clock ----
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.m_tdata.next = self.core.m_tdata.val();
        self.m_tkeep.next = self.core.m_tkeep.val();
        self.m_tlast.next = self.core.m_tlast.val();
        self.m_tuser.next = self.core.m_tuser.val();
        self.m_tvalid.next = self.core.m_tvalid.val();
        self.core.m_tready.next = self.m_tready.val();
        // The padding: a frame's only beat with at most MIN_PAYLOAD lanes
        // (none above lane 59) gets lanes 0..=59, the added ones zero.
        self.in_frame.clock.next = self.clock.val();
        self.in_frame.reset.next = self.reset.val();
        self.in_frame.d.next = self.in_frame.q.val();
        if self.s.tvalid.val() & self.core.s.tready.val() {
            self.in_frame.d.next = !self.s.tlast.val();
        }
        self.lanes.keep.next = self.s.tkeep.val();
        self.short.next = !self.in_frame.q.val() & self.s.tlast.val() & !(self.s.tkeep.val() & !self.pad_keep.val()).any();
        self.core.s.tdata.next = self.s.tdata.val();
        self.core.s.tkeep.next = self.s.tkeep.val();
        if self.short.val() {
            self.core.s.tdata.next = self.s.tdata.val() & self.lanes.mask.val();
            self.core.s.tkeep.next = self.pad_keep.val();
        }
        self.core.s.tlast.next = self.s.tlast.val();
        self.core.s.tuser.next = self.s.tuser.val();
        self.core.s.tvalid.next = self.s.tvalid.val();
        self.s.tready.next = self.core.s.tready.val();
    }
}

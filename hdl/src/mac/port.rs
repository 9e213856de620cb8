//! `ts_xgmii_port`: one 10G port of a board, everything between an XGMII
//! (the PCS/PMA's, on the MAC clock) and a switch port (on the switch
//! clock) (issue 18, `docs/boards.md`).
//!
//! Receive: [`XgmiiRx`] (FCS kept, its verdict in `tuser`) -> [`AxisUpsize`]
//! (64-bit words into `D`-bit beats) -> `tkeep` as a byte count -> an
//! [`AsyncFifo`] of 16 beats into the switch clock -> the switch's
//! `s_*` port (`tkeep` rebuilt). The switch takes a beat every cycle
//! (`rx_fcs` never holds its input), and `D` bits at the switch clock are
//! more than 64 at the MAC clock (the configuration's clock is checked
//! against it), so the FIFO does not fill; if it does (the switch held in
//! reset), the upsizer cuts and counts (`rx_overflows`).
//!
//! Transmit: the switch's `m_*` port -> an [`AsyncFifo`] in frame mode
//! holding 16 KiB (a frame is shown to the MAC side only once whole, so the
//! MAC never underruns; the largest frame, `ingress.max_frame` <= 16 383 B,
//! fits) -> a register slice -> [`AxisDownsize`] -> [`XgmiiTx`] (padding,
//! FCS, the gap).
//!
//! Type parameters: `D`, `K`, `M` the data path's width, lanes and
//! count bits (as [`crate::axis::pkt_fifo::PktFifo`]); `F` = `D + M + 2`,
//! the FIFOs' word (data, byte count, `tlast`, `tuser`); `A`, `A1` the
//! transmit FIFO's address bits (`16384 / (D / 8)` words) and `A + 1`.
use crate::axis::bundle::AxisPlainSink;
use crate::axis::skid::AxisSkid;
use crate::axis::width::{AxisDownsize, AxisUpsize};
use crate::mac::xgmii_rx::XgmiiRx;
use crate::mac::xgmii_tx::XgmiiTx;
use crate::prim::async_fifo::AsyncFifo;
use crate::prim::widgets::KeepCount;
use rust_hdl::prelude::*;

/// One 10G port (module docs).
///
/// Ports, MAC clock:
/// - `mac_clock`, `mac_reset`: the XGMII clock (156.25 MHz) and its
///   synchronous active-high reset (synchronized to it by the board top).
/// - `rxd`, `rxc` in, `txd`, `txc` out: the XGMII (64-bit data, 8 control
///   bits; [`XgmiiRx`], [`XgmiiTx`]).
/// - `max_bytes` in (16 bits, quasi-static): the receive MAC's jabber limit,
///   FCS included.
/// - Counters out (32 bits, wrap; MAC clock domain: read through a
///   synchronizer or with the link idle): `rx_frames`, `rx_bytes`,
///   `rx_fcs_errors`, `rx_runts`, `rx_jabbers`, `rx_errors` (the receive
///   MAC's), `rx_overflows` (frames the receive FIFO had no room for, see
///   [`AxisUpsize`]), `tx_frames`, `tx_bytes`, `tx_underruns`, `tx_errors`
///   (the transmit MAC's).
///
/// Switch clock:
/// - `clock`, `reset`: the switch's clock and synchronous reset. Reset both
///   domains together (each at least three cycles of the slower clock).
/// - `m_tdata`, `m_tkeep`, `m_tlast`, `m_tuser`, `m_tvalid` out, `m_tready`
///   in: received frames for the switch's `s_*` port, FCS included,
///   `tuser` on a last beat = the MAC's verdict (drop). The switch holds
///   `m_tready` high (out of reset).
/// - `s_tdata`, `s_tkeep`, `s_tlast`, `s_tuser`, `s_tvalid` in, `s_tready`
///   out: frames from the switch's `m_*` port, without FCS (the MAC
///   appends it); `s_tuser` (1 bit) on any beat: cut the frame on the wire
///   with /E/ (counted in `tx_errors`).
#[derive(LogicBlock)]
pub struct XgmiiPort<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> {
    pub mac_clock: Signal<In, Clock>,
    pub mac_reset: Signal<In, Bit>,
    pub rxd: Signal<In, Bits<64>>,
    pub rxc: Signal<In, Bits<8>>,
    pub txd: Signal<Out, Bits<64>>,
    pub txc: Signal<Out, Bits<8>>,
    pub max_bytes: Signal<In, Bits<16>>,
    pub rx_frames: Signal<Out, Bits<32>>,
    pub rx_bytes: Signal<Out, Bits<32>>,
    pub rx_fcs_errors: Signal<Out, Bits<32>>,
    pub rx_runts: Signal<Out, Bits<32>>,
    pub rx_jabbers: Signal<Out, Bits<32>>,
    pub rx_errors: Signal<Out, Bits<32>>,
    pub rx_overflows: Signal<Out, Bits<32>>,
    pub tx_frames: Signal<Out, Bits<32>>,
    pub tx_bytes: Signal<Out, Bits<32>>,
    pub tx_underruns: Signal<Out, Bits<32>>,
    pub tx_errors: Signal<Out, Bits<32>>,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub s: AxisPlainSink<D, K>,
    rx: XgmiiRx,
    up: AxisUpsize<D, K>,
    rx_count: KeepCount<K, M>,
    rx_fifo: AsyncFifo<F, 4, 5>,
    tx_count: KeepCount<K, M>,
    tx_fifo: AsyncFifo<F, A, A1>,
    /// A register slice between the FIFO and the downsizer: the MAC's
    /// ready no longer reaches the FIFO's read pointer through the
    /// downsizer (9 Xilinx LUT levels at 256 bits before).
    tx_skid: AxisSkid<D, K, 1>,
    down: AxisDownsize<D, K>,
    tx: XgmiiTx,
    all_keep: Constant<Bits<K>>,
    /// Where the byte count, `tlast` and `tuser` sit in a FIFO word.
    at_count: Constant<Bits<16>>,
    at_last: Constant<Bits<16>>,
    at_user: Constant<Bits<16>>,
    rx_word: Signal<Local, Bits<F>>,
    tx_word: Signal<Local, Bits<F>>,
}

impl<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> Default
    for XgmiiPort<D, K, M, F, A, A1>
{
    fn default() -> Self {
        assert!(F == D + M + 2, "XgmiiPort: F = D + M + 2");
        assert!((1usize << A) * (D / 8) >= 16384 && A1 == A + 1, "XgmiiPort: the transmit FIFO holds 16 KiB, A1 = A + 1");
        Self {
            mac_clock: Default::default(),
            mac_reset: Default::default(),
            rxd: Default::default(),
            rxc: Default::default(),
            txd: Default::default(),
            txc: Default::default(),
            max_bytes: Default::default(),
            rx_frames: Default::default(),
            rx_bytes: Default::default(),
            rx_fcs_errors: Default::default(),
            rx_runts: Default::default(),
            rx_jabbers: Default::default(),
            rx_errors: Default::default(),
            rx_overflows: Default::default(),
            tx_frames: Default::default(),
            tx_bytes: Default::default(),
            tx_underruns: Default::default(),
            tx_errors: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tuser: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            s: Default::default(),
            rx: Default::default(),
            up: Default::default(),
            rx_count: Default::default(),
            rx_fifo: Default::default(),
            tx_count: Default::default(),
            tx_fifo: AsyncFifo::frames(),
            tx_skid: Default::default(),
            down: Default::default(),
            tx: Default::default(),
            all_keep: Constant::new(Bits::<K>::mask()),
            at_count: Constant::new((D as u64).to_bits()),
            at_last: Constant::new(((D + M) as u64).to_bits()),
            at_user: Constant::new(((D + M + 1) as u64).to_bits()),
            rx_word: Default::default(),
            tx_word: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> Logic
    for XgmiiPort<D, K, M, F, A, A1>
{
    #[hdl_gen]
    fn update(&mut self) {
        // ---- receive: MAC clock ----
        self.rx.clock.next = self.mac_clock.val();
        self.rx.reset.next = self.mac_reset.val();
        self.rx.rxd.next = self.rxd.val();
        self.rx.rxc.next = self.rxc.val();
        self.rx.max_bytes.next = self.max_bytes.val();
        self.up.clock.next = self.mac_clock.val();
        self.up.reset.next = self.mac_reset.val();
        self.up.s.tdata.next = self.rx.m_tdata.val();
        self.up.s.tkeep.next = self.rx.m_tkeep.val();
        self.up.s.tlast.next = self.rx.m_tlast.val();
        self.up.s.tuser.next = self.rx.m_tuser.val();
        self.up.s.tvalid.next = self.rx.m_tvalid.val();
        self.rx_count.keep.next = self.up.m_tkeep.val();
        // The word: data, byte count, tlast, tuser (low to high).
        self.rx_word.next = bit_cast::<F, D>(self.up.m_tdata.val())
            | (bit_cast::<F, M>(self.rx_count.count.val()) << self.at_count.val())
            | (bit_cast::<F, 1>(self.up.m_tlast.val().into()) << self.at_last.val())
            | (bit_cast::<F, 1>(self.up.m_tuser.val().into()) << self.at_user.val());
        self.rx_fifo.wr_clock.next = self.mac_clock.val();
        self.rx_fifo.wr_reset.next = self.mac_reset.val();
        self.rx_fifo.wr_data.next = self.rx_word.val();
        self.rx_fifo.wr_valid.next = self.up.m_tvalid.val();
        self.rx_fifo.wr_last.next = self.up.m_tlast.val();
        self.up.m_tready.next = self.rx_fifo.wr_ready.val();
        // ---- receive: switch clock ----
        self.rx_fifo.rd_clock.next = self.clock.val();
        self.rx_fifo.rd_reset.next = self.reset.val();
        self.m_tdata.next = self.rx_fifo.rd_data.val().get_bits::<D>(0);
        self.m_tkeep.next = !(self.all_keep.val() << self.rx_fifo.rd_data.val().get_bits::<M>(self.at_count.val().index()));
        self.m_tlast.next = self.rx_fifo.rd_data.val().get_bit(self.at_last.val().index());
        self.m_tuser.next = self.rx_fifo.rd_data.val().get_bit(self.at_user.val().index());
        self.m_tvalid.next = self.rx_fifo.rd_valid.val();
        self.rx_fifo.rd_ready.next = self.m_tready.val();

        // ---- transmit: switch clock ----
        self.tx_count.keep.next = self.s.tkeep.val();
        self.tx_word.next = bit_cast::<F, D>(self.s.tdata.val())
            | (bit_cast::<F, M>(self.tx_count.count.val()) << self.at_count.val())
            | (bit_cast::<F, 1>(self.s.tlast.val().into()) << self.at_last.val())
            | (bit_cast::<F, 1>(self.s.tuser.val().into()) << self.at_user.val());
        self.tx_fifo.wr_clock.next = self.clock.val();
        self.tx_fifo.wr_reset.next = self.reset.val();
        self.tx_fifo.wr_data.next = self.tx_word.val();
        self.tx_fifo.wr_valid.next = self.s.tvalid.val();
        self.tx_fifo.wr_last.next = self.s.tlast.val();
        self.s.tready.next = self.tx_fifo.wr_ready.val();
        // ---- transmit: MAC clock ----
        self.tx_fifo.rd_clock.next = self.mac_clock.val();
        self.tx_fifo.rd_reset.next = self.mac_reset.val();
        self.tx_skid.clock.next = self.mac_clock.val();
        self.tx_skid.reset.next = self.mac_reset.val();
        self.tx_skid.s.tdata.next = self.tx_fifo.rd_data.val().get_bits::<D>(0);
        self.tx_skid.s.tkeep.next = !(self.all_keep.val() << self.tx_fifo.rd_data.val().get_bits::<M>(self.at_count.val().index()));
        self.tx_skid.s.tlast.next = self.tx_fifo.rd_data.val().get_bit(self.at_last.val().index());
        self.tx_skid.s.tuser.next = bit_cast::<1, 1>(self.tx_fifo.rd_data.val().get_bit(self.at_user.val().index()).into());
        self.tx_skid.s.tvalid.next = self.tx_fifo.rd_valid.val();
        self.tx_fifo.rd_ready.next = self.tx_skid.s.tready.val();
        self.down.clock.next = self.mac_clock.val();
        self.down.reset.next = self.mac_reset.val();
        self.down.s.tdata.next = self.tx_skid.m.tdata.val();
        self.down.s.tkeep.next = self.tx_skid.m.tkeep.val();
        self.down.s.tlast.next = self.tx_skid.m.tlast.val();
        self.down.s.tuser.next = self.tx_skid.m.tuser.val().any();
        self.down.s.tvalid.next = self.tx_skid.m.tvalid.val();
        self.tx_skid.m.tready.next = self.down.s.tready.val();
        self.tx.clock.next = self.mac_clock.val();
        self.tx.reset.next = self.mac_reset.val();
        self.tx.s.tdata.next = self.down.m_tdata.val();
        self.tx.s.tkeep.next = self.down.m_tkeep.val();
        self.tx.s.tlast.next = self.down.m_tlast.val();
        self.tx.s.tuser.next = bit_cast::<1, 1>(self.down.m_tuser.val().into());
        self.tx.s.tvalid.next = self.down.m_tvalid.val();
        self.down.m_tready.next = self.tx.s.tready.val();
        self.txd.next = self.tx.txd.val();
        self.txc.next = self.tx.txc.val();

        self.rx_frames.next = self.rx.frames.val();
        self.rx_bytes.next = self.rx.bytes.val();
        self.rx_fcs_errors.next = self.rx.fcs_errors.val();
        self.rx_runts.next = self.rx.runts.val();
        self.rx_jabbers.next = self.rx.jabbers.val();
        self.rx_errors.next = self.rx.errors.val();
        self.rx_overflows.next = self.up.overflows.val();
        self.tx_frames.next = self.tx.frames.val();
        self.tx_bytes.next = self.tx.bytes.val();
        self.tx_underruns.next = self.tx.underruns.val();
        self.tx_errors.next = self.tx.errors.val();
    }
}

//! A board's MAC ports: everything between a PHY interface (on MAC
//! clocks) and a switch port (on the switch clock) (issue 18,
//! `docs/boards.md`). [`MacPort`] is the part every MAC shares (width
//! conversion and clock crossings); `ts_xgmii_port` ([`XgmiiPort`]) puts
//! the 10G MACs on XGMII around it, `ts_rgmii_port` ([`RgmiiPort`]) the 1G
//! MAC on RGMII.
//!
//! `ts_xgmii_port`:
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
//! `ts_rgmii_port`: the same around [`RgmiiMac`] (GMII bytes: `S` = 8):
//! the receive side on the PHY's receive clock, the transmit side on the
//! board's 125 MHz transmit clock.
//!
//! Type parameters: `S`, `SK` the MAC's word (64 and 8 lanes for XGMII, 8
//! and 1 for GMII); `D`, `K`, `M` the data path's width, lanes and
//! count bits (as [`crate::axis::pkt_fifo::PktFifo`]); `F` = `D + M + 2`,
//! the FIFOs' word (data, byte count, `tlast`, `tuser`); `A`, `A1` the
//! transmit FIFO's address bits (`16384 / (D / 8)` words) and `A + 1`.
use crate::axis::bundle::AxisPlainSink;
use crate::axis::skid::AxisSkid;
use crate::axis::width::{AxisDownsize, AxisUpsize};
use crate::mac::rgmii::{DdrFamily, RgmiiMac};
use crate::mac::xgmii_rx::XgmiiRx;
use crate::mac::xgmii_tx::XgmiiTx;
use crate::prim::async_fifo::AsyncFifo;
use crate::prim::widgets::KeepCount;
use rust_hdl::prelude::*;

/// What every MAC port shares (module docs): `S`-bit words of the receive
/// MAC packed into `D`-bit beats and carried into the switch clock; the
/// switch's beats carried into the transmit clock in frame mode and
/// unpacked into words for the transmit MAC.
///
/// Ports:
/// - `rx_clock`, `rx_reset`: the receive MAC's clock and synchronous reset.
/// - `rx_tdata` (`S`), `rx_tkeep` (`SK`), `rx_tlast`, `rx_tuser`,
///   `rx_tvalid` in: the receive MAC's words (no back-pressure; `tuser` on
///   a last word: the frame is bad).
/// - `rx_overflows` out (32 bits, wraps; receive clock): frames the receive
///   FIFO had no room for ([`AxisUpsize`]).
/// - `tx_clock`, `tx_reset`: the transmit MAC's clock and synchronous reset.
/// - `tx_tdata` (`S`), `tx_tkeep` (`SK`), `tx_tlast`, `tx_tuser`,
///   `tx_tvalid` out, `tx_tready` in: words for the transmit MAC (`tuser`:
///   cut the frame).
/// - `clock`, `reset`: the switch's clock and reset. Reset all three
///   domains together (each at least three cycles of the slowest clock).
/// - `m_*` out, `m_tready` in: received frames for the switch ([`XgmiiPort`]'s
///   `m_*`); `s_*` in, `s_tready` out: frames from the switch.
#[derive(LogicBlock)]
pub struct MacPort<
    const S: usize,
    const SK: usize,
    const D: usize,
    const K: usize,
    const M: usize,
    const F: usize,
    const A: usize,
    const A1: usize,
> {
    pub rx_clock: Signal<In, Clock>,
    pub rx_reset: Signal<In, Bit>,
    pub rx_tdata: Signal<In, Bits<S>>,
    pub rx_tkeep: Signal<In, Bits<SK>>,
    pub rx_tlast: Signal<In, Bit>,
    pub rx_tuser: Signal<In, Bit>,
    pub rx_tvalid: Signal<In, Bit>,
    pub rx_overflows: Signal<Out, Bits<32>>,
    pub tx_clock: Signal<In, Clock>,
    pub tx_reset: Signal<In, Bit>,
    pub tx_tdata: Signal<Out, Bits<S>>,
    pub tx_tkeep: Signal<Out, Bits<SK>>,
    pub tx_tlast: Signal<Out, Bit>,
    pub tx_tuser: Signal<Out, Bit>,
    pub tx_tvalid: Signal<Out, Bit>,
    pub tx_tready: Signal<In, Bit>,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub s: AxisPlainSink<D, K>,
    up: AxisUpsize<S, SK, D, K>,
    rx_count: KeepCount<K, M>,
    rx_fifo: AsyncFifo<F, 4, 5>,
    tx_count: KeepCount<K, M>,
    tx_fifo: AsyncFifo<F, A, A1>,
    /// A register slice between the FIFO and the downsizer: the MAC's
    /// ready no longer reaches the FIFO's read pointer through the
    /// downsizer (9 Xilinx LUT levels at 256 bits before).
    tx_skid: AxisSkid<D, K, 1>,
    down: AxisDownsize<S, SK, D, K>,
    all_keep: Constant<Bits<K>>,
    /// Where the byte count, `tlast` and `tuser` sit in a FIFO word.
    at_count: Constant<Bits<16>>,
    at_last: Constant<Bits<16>>,
    at_user: Constant<Bits<16>>,
    rx_word: Signal<Local, Bits<F>>,
    tx_word: Signal<Local, Bits<F>>,
}

impl<const S: usize, const SK: usize, const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize>
    Default for MacPort<S, SK, D, K, M, F, A, A1>
{
    fn default() -> Self {
        assert!(F == D + M + 2, "MacPort: F = D + M + 2");
        assert!((1usize << A) * (D / 8) >= 16384 && A1 == A + 1, "MacPort: the transmit FIFO holds 16 KiB, A1 = A + 1");
        Self {
            rx_clock: Default::default(),
            rx_reset: Default::default(),
            rx_tdata: Default::default(),
            rx_tkeep: Default::default(),
            rx_tlast: Default::default(),
            rx_tuser: Default::default(),
            rx_tvalid: Default::default(),
            rx_overflows: Default::default(),
            tx_clock: Default::default(),
            tx_reset: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tuser: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tuser: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            s: Default::default(),
            up: Default::default(),
            rx_count: Default::default(),
            rx_fifo: Default::default(),
            tx_count: Default::default(),
            tx_fifo: AsyncFifo::frames(),
            tx_skid: Default::default(),
            down: Default::default(),
            all_keep: Constant::new(Bits::<K>::mask()),
            at_count: Constant::new((D as u64).to_bits()),
            at_last: Constant::new(((D + M) as u64).to_bits()),
            at_user: Constant::new(((D + M + 1) as u64).to_bits()),
            rx_word: Default::default(),
            tx_word: Default::default(),
        }
    }
}

impl<const S: usize, const SK: usize, const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> Logic
    for MacPort<S, SK, D, K, M, F, A, A1>
{
    #[hdl_gen]
    fn update(&mut self) {
        // ---- receive: MAC clock ----
        self.up.clock.next = self.rx_clock.val();
        self.up.reset.next = self.rx_reset.val();
        self.up.s.tdata.next = self.rx_tdata.val();
        self.up.s.tkeep.next = self.rx_tkeep.val();
        self.up.s.tlast.next = self.rx_tlast.val();
        self.up.s.tuser.next = self.rx_tuser.val();
        self.up.s.tvalid.next = self.rx_tvalid.val();
        self.rx_count.keep.next = self.up.m_tkeep.val();
        // The word: data, byte count, tlast, tuser (low to high).
        self.rx_word.next = bit_cast::<F, D>(self.up.m_tdata.val())
            | (bit_cast::<F, M>(self.rx_count.count.val()) << self.at_count.val())
            | (bit_cast::<F, 1>(self.up.m_tlast.val().into()) << self.at_last.val())
            | (bit_cast::<F, 1>(self.up.m_tuser.val().into()) << self.at_user.val());
        self.rx_fifo.wr_clock.next = self.rx_clock.val();
        self.rx_fifo.wr_reset.next = self.rx_reset.val();
        self.rx_fifo.wr_data.next = self.rx_word.val();
        self.rx_fifo.wr_valid.next = self.up.m_tvalid.val();
        self.rx_fifo.wr_last.next = self.up.m_tlast.val();
        self.up.m_tready.next = self.rx_fifo.wr_ready.val();
        self.rx_overflows.next = self.up.overflows.val();
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
        self.tx_fifo.rd_clock.next = self.tx_clock.val();
        self.tx_fifo.rd_reset.next = self.tx_reset.val();
        self.tx_skid.clock.next = self.tx_clock.val();
        self.tx_skid.reset.next = self.tx_reset.val();
        self.tx_skid.s.tdata.next = self.tx_fifo.rd_data.val().get_bits::<D>(0);
        self.tx_skid.s.tkeep.next = !(self.all_keep.val() << self.tx_fifo.rd_data.val().get_bits::<M>(self.at_count.val().index()));
        self.tx_skid.s.tlast.next = self.tx_fifo.rd_data.val().get_bit(self.at_last.val().index());
        self.tx_skid.s.tuser.next = bit_cast::<1, 1>(self.tx_fifo.rd_data.val().get_bit(self.at_user.val().index()).into());
        self.tx_skid.s.tvalid.next = self.tx_fifo.rd_valid.val();
        self.tx_fifo.rd_ready.next = self.tx_skid.s.tready.val();
        self.down.clock.next = self.tx_clock.val();
        self.down.reset.next = self.tx_reset.val();
        self.down.s.tdata.next = self.tx_skid.m.tdata.val();
        self.down.s.tkeep.next = self.tx_skid.m.tkeep.val();
        self.down.s.tlast.next = self.tx_skid.m.tlast.val();
        self.down.s.tuser.next = self.tx_skid.m.tuser.val().any();
        self.down.s.tvalid.next = self.tx_skid.m.tvalid.val();
        self.tx_skid.m.tready.next = self.down.s.tready.val();
        self.tx_tdata.next = self.down.m_tdata.val();
        self.tx_tkeep.next = self.down.m_tkeep.val();
        self.tx_tlast.next = self.down.m_tlast.val();
        self.tx_tuser.next = self.down.m_tuser.val();
        self.tx_tvalid.next = self.down.m_tvalid.val();
        self.down.m_tready.next = self.tx_tready.val();
    }
}

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
    core: MacPort<64, 8, D, K, M, F, A, A1>,
    tx: XgmiiTx,
}

impl<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> Default
    for XgmiiPort<D, K, M, F, A, A1>
{
    fn default() -> Self {
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
            core: Default::default(),
            tx: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> Logic
    for XgmiiPort<D, K, M, F, A, A1>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.rx.clock.next = self.mac_clock.val();
        self.rx.reset.next = self.mac_reset.val();
        self.rx.rxd.next = self.rxd.val();
        self.rx.rxc.next = self.rxc.val();
        self.rx.max_bytes.next = self.max_bytes.val();
        self.core.rx_clock.next = self.mac_clock.val();
        self.core.rx_reset.next = self.mac_reset.val();
        self.core.rx_tdata.next = self.rx.m_tdata.val();
        self.core.rx_tkeep.next = self.rx.m_tkeep.val();
        self.core.rx_tlast.next = self.rx.m_tlast.val();
        self.core.rx_tuser.next = self.rx.m_tuser.val();
        self.core.rx_tvalid.next = self.rx.m_tvalid.val();
        self.core.tx_clock.next = self.mac_clock.val();
        self.core.tx_reset.next = self.mac_reset.val();
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.m_tdata.next = self.core.m_tdata.val();
        self.m_tkeep.next = self.core.m_tkeep.val();
        self.m_tlast.next = self.core.m_tlast.val();
        self.m_tuser.next = self.core.m_tuser.val();
        self.m_tvalid.next = self.core.m_tvalid.val();
        self.core.m_tready.next = self.m_tready.val();
        AxisPlainSink::<D, K>::link(&mut self.s, &mut self.core.s);
        self.tx.clock.next = self.mac_clock.val();
        self.tx.reset.next = self.mac_reset.val();
        self.tx.s.tdata.next = self.core.tx_tdata.val();
        self.tx.s.tkeep.next = self.core.tx_tkeep.val();
        self.tx.s.tlast.next = self.core.tx_tlast.val();
        self.tx.s.tuser.next = bit_cast::<1, 1>(self.core.tx_tuser.val().into());
        self.tx.s.tvalid.next = self.core.tx_tvalid.val();
        self.core.tx_tready.next = self.tx.s.tready.val();
        self.txd.next = self.tx.txd.val();
        self.txc.next = self.tx.txc.val();

        self.rx_frames.next = self.rx.frames.val();
        self.rx_bytes.next = self.rx.bytes.val();
        self.rx_fcs_errors.next = self.rx.fcs_errors.val();
        self.rx_runts.next = self.rx.runts.val();
        self.rx_jabbers.next = self.rx.jabbers.val();
        self.rx_errors.next = self.rx.errors.val();
        self.rx_overflows.next = self.core.rx_overflows.val();
        self.tx_frames.next = self.tx.frames.val();
        self.tx_bytes.next = self.tx.bytes.val();
        self.tx_underruns.next = self.tx.underruns.val();
        self.tx_errors.next = self.tx.errors.val();
    }
}

/// One 1G port on RGMII (module docs): [`RgmiiMac`] and [`MacPort`].
///
/// Ports:
/// - `tx_clock`, `tx_reset`: the transmit clock (125 MHz, the board's) and
///   its synchronous reset; `rx_reset`: the receive side's reset,
///   synchronous to `rgmii_rxc`.
/// - `rgmii_*`: the RGMII pins ([`RgmiiMac`]); `max_bytes` in: the receive
///   MAC's jabber limit (FCS included).
/// - `clock`, `reset`, `m_*`, `s_*`: the switch side, as [`XgmiiPort`]'s.
/// - Counters (32 bits, wrap): `rx_*` on `rgmii_rxc` (`rx_overflows` too),
///   `tx_*` on `tx_clock`, as [`XgmiiPort`]'s.
#[derive(LogicBlock)]
pub struct RgmiiPort<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> {
    pub tx_clock: Signal<In, Clock>,
    pub tx_reset: Signal<In, Bit>,
    pub rx_reset: Signal<In, Bit>,
    pub rgmii_rxc: Signal<In, Clock>,
    pub rgmii_rxd: Signal<In, Bits<4>>,
    pub rgmii_rx_ctl: Signal<In, Bit>,
    pub rgmii_txc: Signal<Out, Bit>,
    pub rgmii_txd: Signal<Out, Bits<4>>,
    pub rgmii_tx_ctl: Signal<Out, Bit>,
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
    mac: RgmiiMac,
    core: MacPort<8, 1, D, K, M, F, A, A1>,
}

impl<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> RgmiiPort<D, K, M, F, A, A1> {
    /// A port whose DDR I/O is `family`'s ([`DdrFamily`]).
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
            mac: RgmiiMac::new(family),
            core: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const M: usize, const F: usize, const A: usize, const A1: usize> Logic
    for RgmiiPort<D, K, M, F, A, A1>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.mac.tx_clock.next = self.tx_clock.val();
        self.mac.tx_reset.next = self.tx_reset.val();
        self.mac.rx_reset.next = self.rx_reset.val();
        self.mac.rgmii_rxc.next = self.rgmii_rxc.val();
        self.mac.rgmii_rxd.next = self.rgmii_rxd.val();
        self.mac.rgmii_rx_ctl.next = self.rgmii_rx_ctl.val();
        self.rgmii_txc.next = self.mac.rgmii_txc.val();
        self.rgmii_txd.next = self.mac.rgmii_txd.val();
        self.rgmii_tx_ctl.next = self.mac.rgmii_tx_ctl.val();
        self.mac.max_bytes.next = self.max_bytes.val();
        self.core.rx_clock.next = self.rgmii_rxc.val();
        self.core.rx_reset.next = self.rx_reset.val();
        self.core.rx_tdata.next = self.mac.m_tdata.val();
        self.core.rx_tkeep.next = true.into();
        self.core.rx_tlast.next = self.mac.m_tlast.val();
        self.core.rx_tuser.next = self.mac.m_tuser.val();
        self.core.rx_tvalid.next = self.mac.m_tvalid.val();
        self.core.tx_clock.next = self.tx_clock.val();
        self.core.tx_reset.next = self.tx_reset.val();
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.m_tdata.next = self.core.m_tdata.val();
        self.m_tkeep.next = self.core.m_tkeep.val();
        self.m_tlast.next = self.core.m_tlast.val();
        self.m_tuser.next = self.core.m_tuser.val();
        self.m_tvalid.next = self.core.m_tvalid.val();
        self.core.m_tready.next = self.m_tready.val();
        AxisPlainSink::<D, K>::link(&mut self.s, &mut self.core.s);
        self.mac.s_tdata.next = self.core.tx_tdata.val();
        self.mac.s_tlast.next = self.core.tx_tlast.val();
        self.mac.s_tuser.next = self.core.tx_tuser.val();
        self.mac.s_tvalid.next = self.core.tx_tvalid.val();
        self.core.tx_tready.next = self.mac.s_tready.val();

        self.rx_frames.next = self.mac.rx_frames.val();
        self.rx_bytes.next = self.mac.rx_bytes.val();
        self.rx_fcs_errors.next = self.mac.rx_fcs_errors.val();
        self.rx_runts.next = self.mac.rx_runts.val();
        self.rx_jabbers.next = self.mac.rx_jabbers.val();
        self.rx_errors.next = self.mac.rx_errors.val();
        self.rx_overflows.next = self.core.rx_overflows.val();
        self.tx_frames.next = self.mac.tx_frames.val();
        self.tx_bytes.next = self.mac.tx_bytes.val();
        self.tx_underruns.next = self.mac.tx_underruns.val();
        self.tx_errors.next = self.mac.tx_errors.val();
    }
}

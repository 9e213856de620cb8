//! `ts_sume_switch`: everything of the NetFPGA-SUME design that is not a
//! vendor primitive or IP (issue 18, `boards/netfpga-sume/`,
//! `docs/boards.md`). The board's thin Verilog top (`sume_top.v`) puts
//! around it the clock buffers, the four 10GBASE-R PCS/PMA cores (Xilinx
//! `ten_gig_eth_pcs_pma`, XGMII at 156.25 MHz), the open-drain I2C pins and
//! the JTAG-to-AXI master.
//!
//! Inside: [`XgmiiSwitch`] (the switch, a MAC port on each of its four
//! ports); the start-up programmer [`I2cInit`] running
//! [`si5324::sume_program`] (the Si5324 behind the I2C switch makes the
//! SFP+ reference clock); the resets: a power-on reset of 2^16 cycles, the
//! push button synchronized, the switch's reset from both, the PCS/PMA's and
//! the MAC clock's reset held until the clock chip is programmed; the
//! LEDs: per port the PCS's block lock and frame activity (stretched to
//! 54 ms), a ready LED and a heartbeat.
use crate::axil::bundle::{AxilMaster, AxilSlave};
use crate::board::i2c_init::I2cInit;
use crate::board::mac_stats::{MacStats, BOARD_ADDR_BITS};
use crate::board::si5324;
use crate::config::Config;
use crate::prim::widgets::{vec_of, DffR};
use crate::top::regmap::SWITCH_ADDR_BITS;
use crate::top::xgmii_switch::XgmiiSwitch;
use anyhow::{ensure, Result};
use rust_hdl::prelude::*;

/// Each port's MAC counters in the board window, in this order (word `11 p
/// + i`; [`crate::mac::port::XgmiiPort`]'s counters, on the MAC clock).
pub const SUME_COUNTERS: [(&str, &str); 11] = [
    ("rx_frames", "good frames received"),
    ("rx_bytes", "bytes of the good frames received, the FCS included"),
    ("rx_fcs_errors", "frames received with a bad FCS"),
    ("rx_runts", "frames received shorter than 64 bytes"),
    ("rx_jabbers", "frames received longer than ingress.max_frame (cut and flagged)"),
    ("rx_errors", "frames received with a bad preamble or SFD, /E/ or another control character inside"),
    ("rx_overflows", "frames received that the port's FIFO had no room for (cut and flagged)"),
    ("tx_frames", "frames sent whole"),
    ("tx_bytes", "bytes of the frames sent whole, destination address to FCS, padding included"),
    ("tx_underruns", "frames cut on the wire for an underrun"),
    ("tx_errors", "frames cut on the wire on the switch's request (tuser)"),
];

/// The board core (module docs).
///
/// Ports, switch clock (`clock`, 200 MHz from the board's oscillator):
/// - `clock` in; `arst` in: the reset button, asynchronous, active high.
/// - `s_axil_*`: the register map (from the JTAG-to-AXI master),
///   [`BOARD_ADDR_BITS`]-bit addresses: the switch's map, and above it the
///   board window ([`MacStats`]): port `p`'s MAC counters
///   ([`SUME_COUNTERS`], 32 bits, wrap, read only) at `0x40000 + 4 (11 p +
///   i)`; `axil_resetn` out: that master's reset, active low.
/// - `scl_low`, `sda_low` out, `scl_in`, `sda_in` in: the I2C bus, open
///   drain (the top pulls a pin low while `*_low` is set).
/// - `clk_rst` out: the Si5324's reset (active high at the pin);
///   `mux_rst` out: the I2C switch's reset (active high at the pin).
/// - `pcs_reset` out: the PCS/PMA cores' reset (active high), until the
///   clock chip is programmed and has settled.
/// - `sfp_tx_disable[p]` out: the SFP+ transmitters off until then;
///   `sfp_rs0[p]`, `sfp_rs1[p]` out: rate select, high (full rate).
/// - `led[0]` ready (the start-up program done), `led[1]` a heartbeat
///   (0.75 Hz); `i2c_nacks` out: transactions the I2C devices refused.
///
/// MAC clock (`mac_clock`, the PCS/PMA's 156.25 MHz core clock):
/// - `rxd[p]`, `rxc[p]` in, `txd[p]`, `txc[p]` out: each port's XGMII.
/// - `block_lock[p]` in: the PCS's receive block lock (the link is up).
/// - `pcs_areset` out: `pcs_reset` synchronized to the MAC clock (for the
///   PCS/PMA cores without the shared logic), and the MACs' own reset.
/// - `led_link[p]`, `led_act[p]` out: block lock; a frame in or out in the
///   last 54 ms.
#[derive(LogicBlock)]
pub struct SumeSwitch<
    const D: usize,
    const K: usize,
    const U: usize,
    const M: usize,
    const W: usize,
    const F: usize,
    const A: usize,
    const A1: usize,
> {
    pub clock: Signal<In, Clock>,
    pub arst: Signal<In, Bit>,
    pub mac_clock: Signal<In, Clock>,
    pub rxd: Vec<Signal<In, Bits<64>>>,
    pub rxc: Vec<Signal<In, Bits<8>>>,
    pub txd: Vec<Signal<Out, Bits<64>>>,
    pub txc: Vec<Signal<Out, Bits<8>>>,
    pub block_lock: Vec<Signal<In, Bit>>,
    pub s_axil: AxilSlave<BOARD_ADDR_BITS>,
    pub axil_resetn: Signal<Out, Bit>,
    pub scl_low: Signal<Out, Bit>,
    pub sda_low: Signal<Out, Bit>,
    pub scl_in: Signal<In, Bit>,
    pub sda_in: Signal<In, Bit>,
    pub clk_rst: Signal<Out, Bit>,
    pub mux_rst: Signal<Out, Bit>,
    pub pcs_reset: Signal<Out, Bit>,
    pub pcs_areset: Signal<Out, Bit>,
    pub sfp_tx_disable: Vec<Signal<Out, Bit>>,
    pub sfp_rs0: Vec<Signal<Out, Bit>>,
    pub sfp_rs1: Vec<Signal<Out, Bit>>,
    pub led: Vec<Signal<Out, Bit>>,
    pub led_link: Vec<Signal<Out, Bit>>,
    pub led_act: Vec<Signal<Out, Bit>>,
    pub i2c_nacks: Signal<Out, Bits<8>>,
    xsw: XgmiiSwitch<D, K, U, M, W, F, A, A1>,
    stats: MacStats,
    init: I2cInit<7>,
    // Switch clock: power-on count, the button through two flip-flops, the
    // reset, the I2C lines through two flip-flops, the MAC side's hold.
    por: DFF<Bits<17>>,
    btn1: DFF<Bit>,
    btn2: DFF<Bit>,
    rst: DFF<Bit>,
    scl1: DFF<Bit>,
    scl2: DFF<Bit>,
    sda1: DFF<Bit>,
    sda2: DFF<Bit>,
    hold: DFF<Bit>,
    beat: DffR<Bits<28>>,
    // MAC clock: the hold through three flip-flops; per port the lock, the
    // frame counters' low bits and the activity stretch.
    mh1: DFF<Bit>,
    mh2: DFF<Bit>,
    mrst: DFF<Bit>,
    lock_q: Vec<DffR<Bit>>,
    rx_lsb: Vec<DffR<Bit>>,
    tx_lsb: Vec<DffR<Bit>>,
    act: Vec<DffR<Bits<23>>>,
    act_full: Constant<Bits<23>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize, const F: usize, const A: usize, const A1: usize>
    SumeSwitch<D, K, U, M, W, F, A, A1>
{
    /// The core of `cfg`: four 10G ports at 200 MHz (the board's), else an
    /// error naming the key.
    pub fn new(cfg: &Config) -> Result<Self> {
        let f = cfg.source.display();
        ensure!(cfg.datapath.ports == 4, "{f}: datapath.ports = {}: the NetFPGA-SUME has 4 SFP+ ports", cfg.datapath.ports);
        ensure!(
            cfg.target.clock_mhz == 200.0,
            "{f}: target.clock_mhz = {}: the SUME core runs on the board's 200 MHz",
            cfg.target.clock_mhz
        );
        let steps = si5324::sume_program(&si5324::Plan::SUME_156M25)?;
        let ports = cfg.datapath.ports;
        Ok(Self {
            clock: Default::default(),
            arst: Default::default(),
            mac_clock: Default::default(),
            rxd: vec_of(ports),
            rxc: vec_of(ports),
            txd: vec_of(ports),
            txc: vec_of(ports),
            block_lock: vec_of(ports),
            s_axil: Default::default(),
            axil_resetn: Default::default(),
            scl_low: Default::default(),
            sda_low: Default::default(),
            scl_in: Default::default(),
            sda_in: Default::default(),
            clk_rst: Default::default(),
            mux_rst: Default::default(),
            pcs_reset: Default::default(),
            pcs_areset: Default::default(),
            sfp_tx_disable: vec_of(ports),
            sfp_rs0: vec_of(ports),
            sfp_rs1: vec_of(ports),
            led: vec_of(2),
            led_link: vec_of(ports),
            led_act: vec_of(ports),
            i2c_nacks: Default::default(),
            xsw: XgmiiSwitch::new(cfg)?,
            stats: MacStats::new(0, ports * SUME_COUNTERS.len()),
            // 100 kHz (standard mode) from 200 MHz.
            init: I2cInit::new(&steps, cfg.target.clock_mhz * 1e6, 100e3, false)?,
            por: Default::default(),
            btn1: Default::default(),
            btn2: Default::default(),
            rst: Default::default(),
            scl1: Default::default(),
            scl2: Default::default(),
            sda1: Default::default(),
            sda2: Default::default(),
            hold: Default::default(),
            beat: Default::default(),
            mh1: Default::default(),
            mh2: Default::default(),
            mrst: Default::default(),
            lock_q: vec_of(ports),
            rx_lsb: vec_of(ports),
            tx_lsb: vec_of(ports),
            act: vec_of(ports),
            act_full: Constant::new(Bits::<23>::mask()),
        })
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize, const F: usize, const A: usize, const A1: usize> Logic
    for SumeSwitch<D, K, U, M, W, F, A, A1>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, por, btn1, btn2, rst, scl1, scl2, sda1, sda2, hold, beat);
        self.mh1.clock.next = self.mac_clock.val();
        self.mh2.clock.next = self.mac_clock.val();
        self.mrst.clock.next = self.mac_clock.val();

        // ---- resets (switch clock) ----
        // Registers start at 0 when the FPGA is configured: `por` counts to
        // 2^16 and holds the reset until then.
        if !self.por.q.val().get_bit(16) {
            self.por.d.next = self.por.q.val() + 1;
        }
        self.btn1.d.next = self.arst.val();
        self.btn2.d.next = self.btn1.q.val();
        self.rst.d.next = !self.por.q.val().get_bit(16) | self.btn2.q.val();
        self.xsw.clock.next = self.clock.val();
        self.xsw.reset.next = self.rst.q.val();
        self.axil_resetn.next = !self.rst.q.val();
        self.stats.clock.next = self.clock.val();
        self.stats.reset.next = self.rst.q.val();
        AxilSlave::<BOARD_ADDR_BITS>::link(&mut self.s_axil, &mut self.stats.s_axil);
        AxilMaster::<SWITCH_ADDR_BITS>::join(&mut self.stats.m_switch, &mut self.xsw.s_axil);

        // ---- the clock chip ----
        self.init.clock.next = self.clock.val();
        self.init.reset.next = self.rst.q.val();
        self.scl1.d.next = self.scl_in.val();
        self.scl2.d.next = self.scl1.q.val();
        self.sda1.d.next = self.sda_in.val();
        self.sda2.d.next = self.sda1.q.val();
        self.init.scl_in.next = self.scl2.q.val();
        self.init.sda_in.next = self.sda2.q.val();
        self.scl_low.next = self.init.scl_low.val();
        self.sda_low.next = self.init.sda_low.val();
        self.clk_rst.next = !self.init.pin.val();
        self.mux_rst.next = self.rst.q.val();
        self.i2c_nacks.next = self.init.nacks.val();
        self.hold.d.next = self.rst.q.val() | !self.init.done.val();
        self.pcs_reset.next = self.hold.q.val();
        self.beat.reset.next = self.rst.q.val();
        self.beat.d.next = self.beat.q.val() + 1;
        self.led[0].next = self.init.done.val();
        self.led[1].next = self.beat.q.val().get_bit(27);

        // ---- the MAC clock: its reset, the LEDs ----
        self.mh1.d.next = self.hold.q.val();
        self.mh2.d.next = self.mh1.q.val();
        self.mrst.d.next = self.mh2.q.val();
        self.xsw.mac_clock.next = self.mac_clock.val();
        self.xsw.mac_reset.next = self.mrst.q.val();
        self.pcs_areset.next = self.mrst.q.val();
        for p in 0..self.rxd.len() {
            self.xsw.rxd[p].next = self.rxd[p].val();
            self.xsw.rxc[p].next = self.rxc[p].val();
            self.txd[p].next = self.xsw.txd[p].val();
            self.txc[p].next = self.xsw.txc[p].val();
            self.sfp_tx_disable[p].next = self.hold.q.val();
            self.sfp_rs0[p].next = true;
            self.sfp_rs1[p].next = true;
            self.lock_q[p].clock.next = self.mac_clock.val();
            self.rx_lsb[p].clock.next = self.mac_clock.val();
            self.tx_lsb[p].clock.next = self.mac_clock.val();
            self.act[p].clock.next = self.mac_clock.val();
            self.lock_q[p].reset.next = self.mrst.q.val();
            self.rx_lsb[p].reset.next = self.mrst.q.val();
            self.tx_lsb[p].reset.next = self.mrst.q.val();
            self.act[p].reset.next = self.mrst.q.val();
            self.lock_q[p].d.next = self.block_lock[p].val();
            self.rx_lsb[p].d.next = self.xsw.rx_frames[p].val().get_bit(0);
            self.tx_lsb[p].d.next = self.xsw.tx_frames[p].val().get_bit(0);
            self.act[p].d.next = self.act[p].q.val();
            if self.act[p].q.val().any() {
                self.act[p].d.next = self.act[p].q.val() - 1;
            }
            if (self.rx_lsb[p].q.val() != self.xsw.rx_frames[p].val().get_bit(0))
                | (self.tx_lsb[p].q.val() != self.xsw.tx_frames[p].val().get_bit(0))
            {
                self.act[p].d.next = self.act_full.val();
            }
            self.led_link[p].next = self.lock_q[p].q.val();
            // The MAC counters into the board window, in SUME_COUNTERS' order.
            for k in 0..11 {
                self.stats.word_clock[p * 11 + k].next = self.mac_clock.val();
                self.stats.word_reset[p * 11 + k].next = self.mrst.q.val();
            }
            self.stats.word[p * 11].next = self.xsw.rx_frames[p].val();
            self.stats.word[p * 11 + 1].next = self.xsw.rx_bytes[p].val();
            self.stats.word[p * 11 + 2].next = self.xsw.rx_fcs_errors[p].val();
            self.stats.word[p * 11 + 3].next = self.xsw.rx_runts[p].val();
            self.stats.word[p * 11 + 4].next = self.xsw.rx_jabbers[p].val();
            self.stats.word[p * 11 + 5].next = self.xsw.rx_errors[p].val();
            self.stats.word[p * 11 + 6].next = self.xsw.rx_overflows[p].val();
            self.stats.word[p * 11 + 7].next = self.xsw.tx_frames[p].val();
            self.stats.word[p * 11 + 8].next = self.xsw.tx_bytes[p].val();
            self.stats.word[p * 11 + 9].next = self.xsw.tx_underruns[p].val();
            self.stats.word[p * 11 + 10].next = self.xsw.tx_errors[p].val();
            self.led_act[p].next = self.act[p].q.val().any();
        }
    }
}

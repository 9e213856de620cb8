//! `ts_u250_switch`: everything of the Alveo U250 design that is not a
//! vendor primitive or IP (issue 18, `boards/alveo-u250/`,
//! `docs/boards.md`). The board's thin Verilog top (`u250_top.v`) puts
//! around it the 300 MHz system clock's buffer and the `MMCME4_BASE` that
//! makes the switch clock, the two CMACs (`cmac_usplus`, one per QSFP28
//! cage, RS-FEC on, their GTs inside) and the JTAG-to-AXI master.
//!
//! Inside: the switch, a [`CmacPort`] per port (each on its CMAC's clock);
//! the resets: a start-up count of 2^16 switch cycles restarted while the
//! MMCM is unlocked, holding the switch, the CMACs (`sys_reset`) and the
//! QSFP28 modules (`resetl`) in reset; each CMAC clock's side of its port
//! out of reset three of its cycles after the switch's (a chain of three
//! flip-flops that power up at 0 = in reset, so a CMAC clock that starts
//! late still finds its side held); the CMAC's link bring-up (PG203: send
//! remote-fault indications, transmitter off, until the receiver is
//! aligned); the LEDs.
use crate::axil::bundle::{AxilMaster, AxilSlave};
use crate::board::mac_stats::{MacStats, BOARD_ADDR_BITS};
use crate::config::Config;
use crate::mac::cmac::{CmacPort, CMAC_BITS, CMAC_MHZ};
use crate::prim::widgets::{vec_of, DffR};
use crate::top::regmap::SWITCH_ADDR_BITS;
use crate::top::switch::Switch;
use anyhow::{ensure, Result};
use rust_hdl::prelude::*;

/// Each port's counters in the board window, in this order (word `4 p + i`;
/// [`CmacPort`]'s, on the port's CMAC clock).
pub const U250_COUNTERS: [(&str, &str); 4] = [
    ("rx_frames", "frames the CMAC delivered, good or bad"),
    ("rx_errors", "of those, frames the CMAC flagged bad (FCS, length, code errors)"),
    ("rx_overflows", "frames received that the port's FIFO had no room for (cut and flagged)"),
    ("tx_frames", "frames handed to the CMAC"),
];

/// The board core (module docs).
///
/// Ports, switch clock (`clock`: 322.265625 MHz from the top's MMCM):
/// - `clock` in; `locked` in: the MMCM is locked (asynchronous).
/// - `cmac_sys_reset` out: both CMACs' `sys_reset` (active high), during
///   start-up.
/// - `s_axil_*`: the register map (from the JTAG-to-AXI master through an
///   AXI clock converter), [`BOARD_ADDR_BITS`]-bit addresses: the switch's
///   map, and above it the board window ([`MacStats`]): port `p`'s CMAC
///   port counters ([`U250_COUNTERS`], 32 bits, wrap, read only) at
///   `0x40000 + 4 (4 p + i)`; `axil_resetn` out: the converter's
///   switch-side reset, active low.
///
/// Management clock (`mgmt_clock`: the top's 100 MHz, the CMACs' `init_clk`,
/// the JTAG master's clock): `mgmt_resetn` out: the JTAG master's and the
/// converter's reset there, active low (the start-up reset through three
/// flip-flops that power up at 0).
///
/// Switch clock, QSFP28 and LEDs:
/// - `qsfp_resetl[p]` out: QSFP28 module `p`'s reset (active low), low
///   during start-up; `qsfp_lpmode[p]` out: low (full power);
///   `qsfp_modsell[p]` out: high (the module's management interface is not
///   used).
/// - `led_beat` out: a heartbeat (1.2 Hz); `led_link[p]` out: port `p`'s
///   receiver is aligned (the link is up), dark for 52 ms after each frame
///   in or out.
///
/// CMAC clock of port `p` (`cmac_clock[p]`, its `gt_txusrclk2`, also its
/// `rx_clk`):
/// - `rx_tdata[p]` (512), `rx_tkeep[p]` (64), `rx_tlast[p]`, `rx_tuser[p]`,
///   `rx_tvalid[p]` in: the CMAC's `rx_axis_*`.
/// - `tx_tdata[p]`, `tx_tkeep[p]`, `tx_tlast[p]`, `tx_tuser[p]`,
///   `tx_tvalid[p]` out, `tx_tready[p]` in: its `tx_axis_*`.
/// - `rx_aligned[p]` in: its `stat_rx_aligned`; `ctl_tx_enable[p]`,
///   `ctl_tx_send_rfi[p]` out: the transmitter on once the receiver is
///   aligned, remote-fault indications until then (PG203, "Core bring-up").
/// - Counters (32 bits, wrap; [`CmacPort`]): `rx_frames[p]`,
///   `rx_errors[p]`, `rx_overflows[p]`, `tx_frames[p]`.
#[derive(LogicBlock)]
pub struct U250Switch<
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
    pub locked: Signal<In, Bit>,
    pub cmac_sys_reset: Signal<Out, Bit>,
    pub s_axil: AxilSlave<BOARD_ADDR_BITS>,
    pub axil_resetn: Signal<Out, Bit>,
    pub mgmt_clock: Signal<In, Clock>,
    pub mgmt_resetn: Signal<Out, Bit>,
    pub qsfp_resetl: Vec<Signal<Out, Bit>>,
    pub qsfp_lpmode: Vec<Signal<Out, Bit>>,
    pub qsfp_modsell: Vec<Signal<Out, Bit>>,
    pub led_beat: Signal<Out, Bit>,
    pub led_link: Vec<Signal<Out, Bit>>,
    pub cmac_clock: Vec<Signal<In, Clock>>,
    pub rx_tdata: Vec<Signal<In, Bits<D>>>,
    pub rx_tkeep: Vec<Signal<In, Bits<K>>>,
    pub rx_tlast: Vec<Signal<In, Bit>>,
    pub rx_tuser: Vec<Signal<In, Bit>>,
    pub rx_tvalid: Vec<Signal<In, Bit>>,
    pub tx_tdata: Vec<Signal<Out, Bits<D>>>,
    pub tx_tkeep: Vec<Signal<Out, Bits<K>>>,
    pub tx_tlast: Vec<Signal<Out, Bit>>,
    pub tx_tuser: Vec<Signal<Out, Bit>>,
    pub tx_tvalid: Vec<Signal<Out, Bit>>,
    pub tx_tready: Vec<Signal<In, Bit>>,
    pub rx_aligned: Vec<Signal<In, Bit>>,
    pub ctl_tx_enable: Vec<Signal<Out, Bit>>,
    pub ctl_tx_send_rfi: Vec<Signal<Out, Bit>>,
    pub rx_frames: Vec<Signal<Out, Bits<32>>>,
    pub rx_errors: Vec<Signal<Out, Bits<32>>>,
    pub rx_overflows: Vec<Signal<Out, Bits<32>>>,
    pub tx_frames: Vec<Signal<Out, Bits<32>>>,
    port: Vec<CmacPort<D, K, M, F, A, A1>>,
    switch: Switch<D, K, U, M, W>,
    stats: MacStats,
    // Switch clock: the lock through two flip-flops, the start-up count,
    // the reset, the heartbeat; per port the alignment and the frame
    // counters' low bits through two flip-flops, the activity stretch.
    lock1: DFF<Bit>,
    lock2: DFF<Bit>,
    start: DFF<Bits<17>>,
    rst: DFF<Bit>,
    beat: DffR<Bits<28>>,
    al_s1: Vec<DFF<Bit>>,
    al_s2: Vec<DFF<Bit>>,
    rx_s1: Vec<DFF<Bit>>,
    rx_s2: Vec<DFF<Bit>>,
    rx_s3: Vec<DFF<Bit>>,
    tx_s1: Vec<DFF<Bit>>,
    tx_s2: Vec<DFF<Bit>>,
    tx_s3: Vec<DFF<Bit>>,
    act: Vec<DffR<Bits<24>>>,
    act_full: Constant<Bits<24>>,
    // Each CMAC clock: "run" (out of reset) through three flip-flops; the
    // alignment through two.
    run1: Vec<DFF<Bit>>,
    run2: Vec<DFF<Bit>>,
    run3: Vec<DFF<Bit>>,
    al1: Vec<DFF<Bit>>,
    al2: Vec<DFF<Bit>>,
    // Management clock: "run" through three flip-flops.
    m1: DFF<Bit>,
    m2: DFF<Bit>,
    m3: DFF<Bit>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize, const F: usize, const A: usize, const A1: usize>
    U250Switch<D, K, U, M, W, F, A, A1>
{
    /// The core of `cfg`: two 100G ports, 512 bits at the CMAC's clock,
    /// the FCS removed by the CMAC; else an error naming the file and key.
    pub fn new(cfg: &Config) -> Result<Self> {
        let f = cfg.source.display();
        let ports = cfg.datapath.ports;
        ensure!(ports == 2, "{f}: datapath.ports = {ports}: the Alveo U250 has 2 QSFP28 cages (one CMAC each)");
        ensure!(cfg.datapath.port_gbps == 100.0, "{f}: datapath.port_gbps = {}: the CMAC ports are 100G", cfg.datapath.port_gbps);
        ensure!(D == CMAC_BITS, "{f}: datapath.data_width = {D}: the CMAC's AXI4-Stream is {CMAC_BITS} bits");
        ensure!(
            cfg.target.clock_mhz == CMAC_MHZ,
            "{f}: target.clock_mhz = {}: the U250 top's MMCM makes {CMAC_MHZ} MHz (the CMAC's clock: the switch must take its beats as fast as they come)",
            cfg.target.clock_mhz
        );
        ensure!(
            cfg.ingress.fcs == "mac",
            "{f}: ingress.fcs = {:?}: the CMAC removes the FCS and flags bad frames (PG203 defaults); build the board with ingress.fcs = \"mac\" (`--set ingress.fcs=mac`)",
            cfg.ingress.fcs
        );
        Ok(Self {
            clock: Default::default(),
            locked: Default::default(),
            cmac_sys_reset: Default::default(),
            s_axil: Default::default(),
            axil_resetn: Default::default(),
            mgmt_clock: Default::default(),
            mgmt_resetn: Default::default(),
            qsfp_resetl: vec_of(ports),
            qsfp_lpmode: vec_of(ports),
            qsfp_modsell: vec_of(ports),
            led_beat: Default::default(),
            led_link: vec_of(ports),
            cmac_clock: vec_of(ports),
            rx_tdata: vec_of(ports),
            rx_tkeep: vec_of(ports),
            rx_tlast: vec_of(ports),
            rx_tuser: vec_of(ports),
            rx_tvalid: vec_of(ports),
            tx_tdata: vec_of(ports),
            tx_tkeep: vec_of(ports),
            tx_tlast: vec_of(ports),
            tx_tuser: vec_of(ports),
            tx_tvalid: vec_of(ports),
            tx_tready: vec_of(ports),
            rx_aligned: vec_of(ports),
            ctl_tx_enable: vec_of(ports),
            ctl_tx_send_rfi: vec_of(ports),
            rx_frames: vec_of(ports),
            rx_errors: vec_of(ports),
            rx_overflows: vec_of(ports),
            tx_frames: vec_of(ports),
            port: vec_of(ports),
            switch: Switch::new(cfg)?,
            stats: MacStats::new(0, ports * U250_COUNTERS.len()),
            lock1: Default::default(),
            lock2: Default::default(),
            start: Default::default(),
            rst: Default::default(),
            beat: Default::default(),
            al_s1: vec_of(ports),
            al_s2: vec_of(ports),
            rx_s1: vec_of(ports),
            rx_s2: vec_of(ports),
            rx_s3: vec_of(ports),
            tx_s1: vec_of(ports),
            tx_s2: vec_of(ports),
            tx_s3: vec_of(ports),
            act: vec_of(ports),
            act_full: Constant::new(Bits::<24>::mask()),
            run1: vec_of(ports),
            run2: vec_of(ports),
            run3: vec_of(ports),
            al1: vec_of(ports),
            al2: vec_of(ports),
            m1: Default::default(),
            m2: Default::default(),
            m3: Default::default(),
        })
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize, const F: usize, const A: usize, const A1: usize> Logic
    for U250Switch<D, K, U, M, W, F, A, A1>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lock1, lock2, start, rst, beat);

        // ---- start-up (switch clock) ----
        // Registers start at 0 when the FPGA is configured: `start` counts
        // to 2^16 once the MMCM is locked and holds the reset until then.
        self.lock1.d.next = self.locked.val();
        self.lock2.d.next = self.lock1.q.val();
        if !self.start.q.val().get_bit(16) {
            self.start.d.next = self.start.q.val() + 1;
        }
        if !self.lock2.q.val() {
            self.start.d.next = 0.into();
        }
        self.rst.d.next = !self.start.q.val().get_bit(16);
        self.cmac_sys_reset.next = self.rst.q.val();
        self.axil_resetn.next = !self.rst.q.val();
        self.m1.clock.next = self.mgmt_clock.val();
        self.m2.clock.next = self.mgmt_clock.val();
        self.m3.clock.next = self.mgmt_clock.val();
        self.m1.d.next = !self.rst.q.val();
        self.m2.d.next = self.m1.q.val();
        self.m3.d.next = self.m2.q.val();
        self.mgmt_resetn.next = self.m3.q.val();
        self.switch.clock.next = self.clock.val();
        self.switch.reset.next = self.rst.q.val();
        self.stats.clock.next = self.clock.val();
        self.stats.reset.next = self.rst.q.val();
        AxilSlave::<BOARD_ADDR_BITS>::link(&mut self.s_axil, &mut self.stats.s_axil);
        AxilMaster::<SWITCH_ADDR_BITS>::join(&mut self.stats.m_switch, &mut self.switch.s_axil);
        self.beat.reset.next = self.rst.q.val();
        self.beat.d.next = self.beat.q.val() + 1;
        self.led_beat.next = self.beat.q.val().get_bit(27);

        for p in 0..self.port.len() {
            self.qsfp_resetl[p].next = !self.rst.q.val();
            self.qsfp_lpmode[p].next = false;
            self.qsfp_modsell[p].next = true;

            // ---- the CMAC clock: its reset, the link bring-up ----
            self.run1[p].clock.next = self.cmac_clock[p].val();
            self.run2[p].clock.next = self.cmac_clock[p].val();
            self.run3[p].clock.next = self.cmac_clock[p].val();
            self.al1[p].clock.next = self.cmac_clock[p].val();
            self.al2[p].clock.next = self.cmac_clock[p].val();
            self.run1[p].d.next = !self.rst.q.val();
            self.run2[p].d.next = self.run1[p].q.val();
            self.run3[p].d.next = self.run2[p].q.val();
            self.al1[p].d.next = self.rx_aligned[p].val() & self.run3[p].q.val();
            self.al2[p].d.next = self.al1[p].q.val();
            self.ctl_tx_enable[p].next = self.al2[p].q.val();
            self.ctl_tx_send_rfi[p].next = !self.al2[p].q.val();

            self.port[p].cmac_clock.next = self.cmac_clock[p].val();
            self.port[p].cmac_reset.next = !self.run3[p].q.val();
            self.port[p].rx_tdata.next = self.rx_tdata[p].val();
            self.port[p].rx_tkeep.next = self.rx_tkeep[p].val();
            self.port[p].rx_tlast.next = self.rx_tlast[p].val();
            self.port[p].rx_tuser.next = self.rx_tuser[p].val();
            self.port[p].rx_tvalid.next = self.rx_tvalid[p].val();
            self.tx_tdata[p].next = self.port[p].tx_tdata.val();
            self.tx_tkeep[p].next = self.port[p].tx_tkeep.val();
            self.tx_tlast[p].next = self.port[p].tx_tlast.val();
            self.tx_tuser[p].next = self.port[p].tx_tuser.val();
            self.tx_tvalid[p].next = self.port[p].tx_tvalid.val();
            self.port[p].tx_tready.next = self.tx_tready[p].val();
            self.rx_frames[p].next = self.port[p].rx_frames.val();
            self.rx_errors[p].next = self.port[p].rx_errors.val();
            self.rx_overflows[p].next = self.port[p].rx_overflows.val();
            self.tx_frames[p].next = self.port[p].tx_frames.val();
            // The counters into the board window, in U250_COUNTERS' order.
            for k in 0..4 {
                self.stats.word_clock[p * 4 + k].next = self.cmac_clock[p].val();
                self.stats.word_reset[p * 4 + k].next = !self.run3[p].q.val();
            }
            self.stats.word[p * 4].next = self.port[p].rx_frames.val();
            self.stats.word[p * 4 + 1].next = self.port[p].rx_errors.val();
            self.stats.word[p * 4 + 2].next = self.port[p].rx_overflows.val();
            self.stats.word[p * 4 + 3].next = self.port[p].tx_frames.val();

            // ---- the switch side ----
            self.port[p].clock.next = self.clock.val();
            self.port[p].reset.next = self.rst.q.val();
            self.switch.s[p].tdata.next = self.port[p].m_tdata.val();
            self.switch.s[p].tkeep.next = self.port[p].m_tkeep.val();
            self.switch.s[p].tlast.next = self.port[p].m_tlast.val();
            self.switch.s[p].tuser.next = self.port[p].m_tuser.val();
            self.switch.s[p].tvalid.next = self.port[p].m_tvalid.val();
            self.port[p].m_tready.next = self.switch.s[p].tready.val();
            self.port[p].s.tdata.next = self.switch.m[p].tdata.val();
            self.port[p].s.tkeep.next = self.switch.m[p].tkeep.val();
            self.port[p].s.tlast.next = self.switch.m[p].tlast.val();
            self.port[p].s.tuser.next = false;
            self.port[p].s.tvalid.next = self.switch.m[p].tvalid.val();
            self.switch.m[p].tready.next = self.port[p].s.tready.val();

            // ---- LEDs: the link, and activity (switch clock) ----
            self.al_s1[p].clock.next = self.clock.val();
            self.al_s2[p].clock.next = self.clock.val();
            self.rx_s1[p].clock.next = self.clock.val();
            self.rx_s2[p].clock.next = self.clock.val();
            self.rx_s3[p].clock.next = self.clock.val();
            self.tx_s1[p].clock.next = self.clock.val();
            self.tx_s2[p].clock.next = self.clock.val();
            self.tx_s3[p].clock.next = self.clock.val();
            self.act[p].clock.next = self.clock.val();
            self.act[p].reset.next = self.rst.q.val();
            self.al_s1[p].d.next = self.al2[p].q.val();
            self.al_s2[p].d.next = self.al_s1[p].q.val();
            self.rx_s1[p].d.next = self.port[p].rx_frames.val().get_bit(0);
            self.rx_s2[p].d.next = self.rx_s1[p].q.val();
            self.rx_s3[p].d.next = self.rx_s2[p].q.val();
            self.tx_s1[p].d.next = self.port[p].tx_frames.val().get_bit(0);
            self.tx_s2[p].d.next = self.tx_s1[p].q.val();
            self.tx_s3[p].d.next = self.tx_s2[p].q.val();
            self.act[p].d.next = self.act[p].q.val();
            if self.act[p].q.val().any() {
                self.act[p].d.next = self.act[p].q.val() - 1;
            }
            if (self.rx_s3[p].q.val() != self.rx_s2[p].q.val()) | (self.tx_s3[p].q.val() != self.tx_s2[p].q.val()) {
                self.act[p].d.next = self.act_full.val();
            }
            self.led_link[p].next = self.al_s2[p].q.val() & !self.act[p].q.val().any();
        }
    }
}

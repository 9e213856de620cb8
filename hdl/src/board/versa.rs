//! `ts_versa_switch`: the whole FPGA design of the Lattice ECP5-5G Versa board
//! (LFE5UM5G-45F, two 1G RGMII PHYs; issue 18, `boards/ecp5-versa/`,
//! `docs/boards.md`), the switch with a [`RgmiiPort`] on each port, for
//! the open flow (`make bitstream`: Yosys `synth_ecp5`, `nextpnr-ecp5`,
//! `ecppack`). Its ports are the board's pins (`boards/ecp5-versa/versa.lpf`).
//!
//! Clocks: the board's 100 MHz oscillator into an `EHXPLLL` ([`Ecp5Pll`]):
//! 125 MHz for the RGMII transmit side (`CLKOP`) and the switch clock
//! (`CLKOS`, `target.clock_mhz`); each PHY's receive clock for its receive
//! MAC.
//!
//! Resets: a start-up count on the oscillator (2^20 cycles, 10.5 ms, the
//! 88E1512's minimum reset pulse is 10 ms) restarted while the PLL is not
//! locked or the reset button is pressed; while it runs the PHYs are held
//! in reset (`eth_rst_n` low) and so is everything else, each clock domain
//! through its own three-flip-flop synchronizer.
//!
//! LEDs (active low, `led[7:0]`): 0 ready (out of reset), 1 a heartbeat
//! (the switch clock / 2^26), 2 and 3 a frame received on port 0 / 1, 4 and
//! 5 a frame sent on port 0 / 1 (each stretched to 2^22 switch cycles), 6
//! and 7 a frame with a bad FCS or a receive error seen on port 0 / 1
//! (stays on until reset). During a self-test, 0 is "done", 6 "passed"
//! and 7 "failed".
//!
//! Host access (`uart_rx`, `uart_tx`: the FT2232H's channel B, the board's
//! USB port): the board window over the serial line at [`UART_BAUD`]
//! ([`UartAxil`], `docs/boards.md`, "Host access over a serial line";
//! [`MacStats`]: the self-test's control, status and counts,
//! [`VERSA_CONTROLS`], [`VERSA_GLOBALS`], [`VERSA_PER_PORT`]). The switch's
//! own map is not reachable here (it would not fit the 45F: its register
//! files, read multiplexers and tables are constants while no host writes
//! them); it keeps its reset values, the configuration's, tables included.
//!
//! Self-test (`selftest`, DIP switch 4, or the board window's `SELFTEST`:
//! either on starts it, both off ends it;
//! [`SelfTest`], `docs/boards.md`): the switch's ports are taken from the
//! MACs at the next frame boundary of each stream; 65 536 test frames go
//! each way through the switch (by the configuration's L2 table) and are
//! checked byte by byte. The MACs' received frames are discarded meanwhile
//! (their counters still count them) and nothing is sent to the PHYs.
use crate::axil::bundle::AxilMaster;
use crate::axil::regs::AxilRegs;
use crate::board::ecp5_pll::{Ecp5Pll, PllPlan};
use crate::board::mac_stats::{MacStats, BOARD_ADDR_BITS};
use crate::board::self_test::SelfTest;
use crate::board::uart_axil::UartAxil;
use crate::config::{parse_mac, Config};
use crate::mac::port::RgmiiPort;
use crate::mac::rgmii::DdrFamily;
use crate::prim::widgets::{vec_of, DffR};
use crate::top::regmap::SWITCH_ADDR_BITS;
use crate::top::switch::Switch;
use anyhow::{anyhow, ensure, Result};
use rust_hdl::prelude::*;

/// The board's oscillator, MHz.
pub const OSC_MHZ: f64 = 100.0;
/// RGMII at 1 Gb/s: GMII bytes at 125 MHz.
pub const GMII_MHZ: f64 = 125.0;
/// The serial line's rate (the FT2232H's and every terminal's default).
pub const UART_BAUD: f64 = 115_200.0;
/// The board window's control register (`docs/boards.md`, "The board
/// window"): the self-test from the host.
pub const VERSA_CONTROLS: [(&str, &str); 1] =
    [("selftest", "bit 0: run the loopback self-test (with DIP switch 4: either on runs it; a rise starts a test, a fall ends it)")];
/// The board window's word that is not per port.
pub const VERSA_GLOBALS: [(&str, &str); 1] =
    [("selftest_status", "the self-test: bit 0 active (the test owns the ports), 1 done, 2 passed, 3 failed")];
/// The board window's words of each port: the self-test's counts.
pub const VERSA_PER_PORT: [(&str, &str); 3] = [
    ("selftest_sent", "frames the self-test sent into the switch on this port"),
    ("selftest_good", "frames the self-test's checker took from this port's output as sent and in order"),
    ("selftest_bad", "other frames the checker took from this port's output"),
];
/// Frames each way of a self-test.
pub const SELF_TEST_FRAMES: u32 = 65536;

/// The board design (module docs). Ports (the LPF's names):
/// - `clk100` in: the 100 MHz oscillator (LVDS); `rst_n` in: the reset
///   button (active low).
/// - Per PHY `p` (0, 1): `eth_rxc_p`, `eth_rxd_p` (4), `eth_rx_ctl_p` in;
///   `eth_txc_p`, `eth_txd_p` (4), `eth_tx_ctl_p` out (RGMII, the PHY adds
///   the clock delays); `eth_rst_n_p` out (the PHY's reset).
/// - `led` (8) out, active low (module docs).
/// - `selftest` in: DIP switch 4, the self-test (module docs).
/// - `uart_rx` in, `uart_tx` out: the serial line to the host (module docs).
#[derive(LogicBlock)]
pub struct VersaSwitch<
    const D: usize,
    const K: usize,
    const U: usize,
    const M: usize,
    const W: usize,
    const F: usize,
    const A: usize,
    const A1: usize,
> {
    pub clk100: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    pub eth_rxc: Vec<Signal<In, Clock>>,
    pub eth_rxd: Vec<Signal<In, Bits<4>>>,
    pub eth_rx_ctl: Vec<Signal<In, Bit>>,
    pub eth_txc: Vec<Signal<Out, Bit>>,
    pub eth_txd: Vec<Signal<Out, Bits<4>>>,
    pub eth_tx_ctl: Vec<Signal<Out, Bit>>,
    pub eth_rst_n: Vec<Signal<Out, Bit>>,
    pub led: Signal<Out, Bits<8>>,
    pub selftest: Signal<In, Bit>,
    pub uart_rx: Signal<In, Bit>,
    pub uart_tx: Signal<Out, Bit>,
    pll: Ecp5Pll,
    host: UartAxil<BOARD_ADDR_BITS>,
    stats: MacStats,
    no_map: AxilRegs<SWITCH_ADDR_BITS>,
    test: SelfTest<D, K>,
    st1: DFF<Bit>,
    st2: DFF<Bit>,
    /// Per port: the switch's input taken from the test (else the MAC),
    /// and its output given to the test; whether each stream is inside a
    /// frame (a switch happens only between frames).
    sel_in: Vec<DffR<Bit>>,
    sel_out: Vec<DffR<Bit>>,
    mac_in_frame: Vec<DffR<Bit>>,
    gen_in_frame: Vec<DffR<Bit>>,
    out_in_frame: Vec<DffR<Bit>>,
    port: Vec<RgmiiPort<D, K, M, F, A, A1>>,
    switch: Switch<D, K, U, M, W>,
    max_bytes: Constant<Bits<16>>,
    // Oscillator: the button through two flip-flops, the start-up count.
    btn1: DFF<Bit>,
    btn2: DFF<Bit>,
    lock1: DFF<Bit>,
    lock2: DFF<Bit>,
    start: DFF<Bits<21>>,
    hold: DFF<Bit>,
    // Each domain's reset: `hold` through three flip-flops.
    s1: DFF<Bit>,
    s2: DFF<Bit>,
    srst: DFF<Bit>,
    t1: DFF<Bit>,
    t2: DFF<Bit>,
    trst: DFF<Bit>,
    r1: Vec<DFF<Bit>>,
    r2: Vec<DFF<Bit>>,
    rrst: Vec<DFF<Bit>>,
    // Switch clock: the LEDs. A counter's low bit from another domain
    // through two flip-flops, its last value, the stretch.
    beat: DffR<Bits<27>>,
    rx_s1: Vec<DFF<Bit>>,
    rx_s2: Vec<DFF<Bit>>,
    rx_s3: Vec<DFF<Bit>>,
    tx_s1: Vec<DFF<Bit>>,
    tx_s2: Vec<DFF<Bit>>,
    tx_s3: Vec<DFF<Bit>>,
    err_s1: Vec<DFF<Bit>>,
    err_s2: Vec<DFF<Bit>>,
    rx_act: Vec<DffR<Bits<22>>>,
    tx_act: Vec<DffR<Bits<22>>>,
    err_seen: Vec<DffR<Bit>>,
    act_full: Constant<Bits<22>>,
    leds: Signal<Local, Bits<8>>,
    ready: Signal<Local, Bit>,
    not_led0: Constant<Bits<8>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize, const F: usize, const A: usize, const A1: usize>
    VersaSwitch<D, K, U, M, W, F, A, A1>
{
    /// The design of `cfg`: two 1G ports, the switch clock a PLL output
    /// next to 125 MHz; else an error naming the file and key.
    pub fn new(cfg: &Config) -> Result<Self> {
        let f = cfg.source.display();
        let ports = cfg.datapath.ports;
        ensure!(ports == 2, "{f}: datapath.ports = {ports}: the ECP5-5G Versa has 2 RGMII PHYs");
        ensure!(cfg.datapath.port_gbps == 1.0, "{f}: datapath.port_gbps = {}: RGMII ports are 1G", cfg.datapath.port_gbps);
        ensure!(
            cfg.target.clock_mhz * D as f64 >= GMII_MHZ * 8.0 * 1.25,
            "{f}: target.clock_mhz = {}: a port's receive FIFO must drain {D}-bit beats faster than bytes arrive at {GMII_MHZ} MHz (with a quarter to spare)",
            cfg.target.clock_mhz
        );
        ensure!(cfg.ingress.fcs == "check", "{f}: ingress.fcs = {:?}: the RGMII MACs keep the FCS (\"check\")", cfg.ingress.fcs);
        let plan = PllPlan::new(OSC_MHZ, GMII_MHZ, cfg.target.clock_mhz).map_err(|e| anyhow!("{f}: target.clock_mhz: {e}"))?;
        ensure!(D == 64, "{f}: datapath.data_width = {D}: the board runs a 64-bit data path (its self-test does)");
        // The self-test addresses each port's frames by the L2 table.
        let mut dst = [0u64; 2];
        for (p, d) in dst.iter_mut().enumerate() {
            let e = cfg.ingress.l2.iter().find(|e| e.port == p as u32).ok_or_else(|| {
                anyhow!("{f}: ingress.l2: no entry for port {p} (the self-test sends to the MAC the table gives each port)")
            })?;
            *d = parse_mac(&e.mac).expect("validated L2 MAC");
        }
        Ok(Self {
            clk100: Default::default(),
            rst_n: Default::default(),
            eth_rxc: vec_of(ports),
            eth_rxd: vec_of(ports),
            eth_rx_ctl: vec_of(ports),
            eth_txc: vec_of(ports),
            eth_txd: vec_of(ports),
            eth_tx_ctl: vec_of(ports),
            eth_rst_n: vec_of(ports),
            led: Default::default(),
            selftest: Default::default(),
            uart_rx: Default::default(),
            uart_tx: Default::default(),
            pll: Ecp5Pll::new(plan),
            no_map: AxilRegs::new(&[], 1),
            stats: MacStats::new(VERSA_CONTROLS.len(), VERSA_GLOBALS.len() + ports * VERSA_PER_PORT.len()),
            host: UartAxil::new(cfg.target.clock_mhz * 1e6, UART_BAUD)
                .map_err(|e| anyhow!("{f}: target.clock_mhz: the serial line: {e}"))?,
            test: SelfTest::new(SELF_TEST_FRAMES, dst),
            st1: Default::default(),
            st2: Default::default(),
            sel_in: vec_of(ports),
            sel_out: vec_of(ports),
            mac_in_frame: vec_of(ports),
            gen_in_frame: vec_of(ports),
            out_in_frame: vec_of(ports),
            port: (0..ports).map(|_| RgmiiPort::new(DdrFamily::Ecp5)).collect(),
            switch: Switch::new(cfg)?,
            max_bytes: Constant::new((cfg.ingress.max_frame as u64).to_bits()),
            btn1: Default::default(),
            btn2: Default::default(),
            lock1: Default::default(),
            lock2: Default::default(),
            start: Default::default(),
            hold: Default::default(),
            s1: Default::default(),
            s2: Default::default(),
            srst: Default::default(),
            t1: Default::default(),
            t2: Default::default(),
            trst: Default::default(),
            r1: vec_of(ports),
            r2: vec_of(ports),
            rrst: vec_of(ports),
            beat: Default::default(),
            rx_s1: vec_of(ports),
            rx_s2: vec_of(ports),
            rx_s3: vec_of(ports),
            tx_s1: vec_of(ports),
            tx_s2: vec_of(ports),
            tx_s3: vec_of(ports),
            err_s1: vec_of(ports),
            err_s2: vec_of(ports),
            rx_act: vec_of(ports),
            tx_act: vec_of(ports),
            err_seen: vec_of(ports),
            act_full: Constant::new(Bits::<22>::mask()),
            leds: Default::default(),
            ready: Default::default(),
            not_led0: Constant::new(0xFEu64.to_bits()),
        })
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize, const F: usize, const A: usize, const A1: usize> Logic
    for VersaSwitch<D, K, U, M, W, F, A, A1>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk100, btn1, btn2, lock1, lock2, start, hold);
        self.pll.clki.next = self.clk100.val();

        // ---- oscillator: the start-up count and the hold ----
        // Registers start at 0 when the FPGA is configured.
        self.btn1.d.next = !self.rst_n.val();
        self.btn2.d.next = self.btn1.q.val();
        self.lock1.d.next = self.pll.lock.val();
        self.lock2.d.next = self.lock1.q.val();
        if !self.start.q.val().get_bit(20) {
            self.start.d.next = self.start.q.val() + 1;
        }
        if self.btn2.q.val() | !self.lock2.q.val() {
            self.start.d.next = 0.into();
        }
        self.hold.d.next = !self.start.q.val().get_bit(20);

        // ---- each domain's reset ----
        self.s1.clock.next = self.pll.clkos.val();
        self.s2.clock.next = self.pll.clkos.val();
        self.srst.clock.next = self.pll.clkos.val();
        self.s1.d.next = self.hold.q.val();
        self.s2.d.next = self.s1.q.val();
        self.srst.d.next = self.s2.q.val();
        self.t1.clock.next = self.pll.clkop.val();
        self.t2.clock.next = self.pll.clkop.val();
        self.trst.clock.next = self.pll.clkop.val();
        self.t1.d.next = self.hold.q.val();
        self.t2.d.next = self.t1.q.val();
        self.trst.d.next = self.t2.q.val();

        self.switch.clock.next = self.pll.clkos.val();
        self.switch.reset.next = self.srst.q.val();
        // The host over the serial line (the map keeps its reset values,
        // the configuration's, until a host writes).
        self.host.clock.next = self.pll.clkos.val();
        self.host.reset.next = self.srst.q.val();
        self.host.rx.next = self.uart_rx.val();
        self.uart_tx.next = self.host.tx.val();
        self.stats.clock.next = self.pll.clkos.val();
        self.stats.reset.next = self.srst.q.val();
        AxilMaster::<BOARD_ADDR_BITS>::join(&mut self.host.m_axil, &mut self.stats.s_axil);
        // The switch's own map is not reachable on this board: a live map
        // (its register files, read multiplexers and tables no longer
        // constants) measured 47.3 k LUT4 against the 45F's 43.8 k. It keeps
        // its reset values, the configuration's; the host's accesses below
        // the board window reach a one-word stand-in (0 at 0, DECERR else).
        AxilMaster::<SWITCH_ADDR_BITS>::join(&mut self.stats.m_switch, &mut self.no_map.s_axil);
        self.no_map.clock.next = self.pll.clkos.val();
        self.no_map.reset.next = self.srst.q.val();
        self.no_map.ro[0].next = 0.into();
        self.switch.s_axil.awaddr.next = 0.into();
        self.switch.s_axil.awvalid.next = false;
        self.switch.s_axil.wdata.next = 0.into();
        self.switch.s_axil.wstrb.next = 0.into();
        self.switch.s_axil.wvalid.next = false;
        self.switch.s_axil.bready.next = true;
        self.switch.s_axil.araddr.next = 0.into();
        self.switch.s_axil.arvalid.next = false;
        self.switch.s_axil.rready.next = true;
        // The board window's words, all on the switch clock: the status,
        // then per port the self-test's counts.
        for k in 0..self.stats.word.len() {
            self.stats.word_clock[k].next = self.pll.clkos.val();
            self.stats.word_reset[k].next = self.srst.q.val();
        }
        self.stats.word[0].next = self.test.status.val();

        // The self-test: its switch through two flip-flops.
        self.st1.clock.next = self.pll.clkos.val();
        self.st2.clock.next = self.pll.clkos.val();
        self.st1.d.next = self.selftest.val();
        self.st2.d.next = self.st1.q.val();
        self.test.clock.next = self.pll.clkos.val();
        self.test.reset.next = self.srst.q.val();
        self.test.run.next = self.st2.q.val() | self.stats.control[0].val().get_bit(0);

        self.beat.clock.next = self.pll.clkos.val();
        self.beat.reset.next = self.srst.q.val();
        self.beat.d.next = self.beat.q.val() + 1;
        self.leds.next = 0.into();
        // "Ready" as a bit of its own: `!` inside the 8-bit expression would
        // invert the widened value in Verilog (every LED lit).
        self.ready.next = !self.srst.q.val();
        self.leds.next = bit_cast::<8, 1>(self.ready.val().into()) | (bit_cast::<8, 1>(self.beat.q.val().get_bit(26).into()) << 1);

        for p in 0..self.port.len() {
            // The receive domain's reset.
            self.r1[p].clock.next = self.eth_rxc[p].val();
            self.r2[p].clock.next = self.eth_rxc[p].val();
            self.rrst[p].clock.next = self.eth_rxc[p].val();
            self.r1[p].d.next = self.hold.q.val();
            self.r2[p].d.next = self.r1[p].q.val();
            self.rrst[p].d.next = self.r2[p].q.val();
            self.eth_rst_n[p].next = !self.hold.q.val();

            self.port[p].tx_clock.next = self.pll.clkop.val();
            self.port[p].tx_reset.next = self.trst.q.val();
            self.port[p].rx_reset.next = self.rrst[p].q.val();
            self.port[p].rgmii_rxc.next = self.eth_rxc[p].val();
            self.port[p].rgmii_rxd.next = self.eth_rxd[p].val();
            self.port[p].rgmii_rx_ctl.next = self.eth_rx_ctl[p].val();
            self.eth_txc[p].next = self.port[p].rgmii_txc.val();
            self.eth_txd[p].next = self.port[p].rgmii_txd.val();
            self.eth_tx_ctl[p].next = self.port[p].rgmii_tx_ctl.val();
            self.port[p].max_bytes.next = self.max_bytes.val();
            self.port[p].clock.next = self.pll.clkos.val();
            self.port[p].reset.next = self.srst.q.val();
            // Received frames into the switch, or the self-test's; the
            // switch's frames out, or to the self-test.
            self.sel_in[p].clock.next = self.pll.clkos.val();
            self.sel_out[p].clock.next = self.pll.clkos.val();
            self.mac_in_frame[p].clock.next = self.pll.clkos.val();
            self.gen_in_frame[p].clock.next = self.pll.clkos.val();
            self.out_in_frame[p].clock.next = self.pll.clkos.val();
            self.sel_in[p].reset.next = self.srst.q.val();
            self.sel_out[p].reset.next = self.srst.q.val();
            self.mac_in_frame[p].reset.next = self.srst.q.val();
            self.gen_in_frame[p].reset.next = self.srst.q.val();
            self.out_in_frame[p].reset.next = self.srst.q.val();
            self.sel_in[p].d.next = self.sel_in[p].q.val();
            self.sel_out[p].d.next = self.sel_out[p].q.val();
            self.mac_in_frame[p].d.next = self.mac_in_frame[p].q.val();
            self.gen_in_frame[p].d.next = self.gen_in_frame[p].q.val();
            self.out_in_frame[p].d.next = self.out_in_frame[p].q.val();
            self.switch.s[p].tdata.next = self.port[p].m_tdata.val();
            self.switch.s[p].tkeep.next = self.port[p].m_tkeep.val();
            self.switch.s[p].tlast.next = self.port[p].m_tlast.val();
            self.switch.s[p].tuser.next = self.port[p].m_tuser.val();
            self.switch.s[p].tvalid.next = self.port[p].m_tvalid.val();
            self.port[p].m_tready.next = self.switch.s[p].tready.val();
            self.test.gen_tready[p].next = false;
            if self.sel_in[p].q.val() {
                self.switch.s[p].tdata.next = self.test.gen_tdata[p].val();
                self.switch.s[p].tkeep.next = self.test.gen_tkeep[p].val();
                self.switch.s[p].tlast.next = self.test.gen_tlast[p].val();
                self.switch.s[p].tuser.next = false;
                self.switch.s[p].tvalid.next = self.test.gen_tvalid[p].val();
                self.test.gen_tready[p].next = self.switch.s[p].tready.val();
                self.port[p].m_tready.next = true;
            }
            self.port[p].s.tdata.next = self.switch.m[p].tdata.val();
            self.port[p].s.tkeep.next = self.switch.m[p].tkeep.val();
            self.port[p].s.tlast.next = self.switch.m[p].tlast.val();
            self.port[p].s.tuser.next = false;
            self.port[p].s.tvalid.next = self.switch.m[p].tvalid.val() & !self.sel_out[p].q.val();
            self.switch.m[p].tready.next = self.port[p].s.tready.val() | self.sel_out[p].q.val();
            self.test.chk_tdata[p].next = self.switch.m[p].tdata.val();
            self.test.chk_tkeep[p].next = self.switch.m[p].tkeep.val();
            self.test.chk_tlast[p].next = self.switch.m[p].tlast.val();
            self.test.chk_tvalid[p].next = self.switch.m[p].tvalid.val() & self.sel_out[p].q.val();
            // Each stream's framing, from its handshakes.
            if self.port[p].m_tvalid.val() & self.port[p].m_tready.val() {
                self.mac_in_frame[p].d.next = !self.port[p].m_tlast.val();
            }
            if self.test.gen_tvalid[p].val() & self.test.gen_tready[p].val() {
                self.gen_in_frame[p].d.next = !self.test.gen_tlast[p].val();
            }
            if self.switch.m[p].tvalid.val() & self.switch.m[p].tready.val() {
                self.out_in_frame[p].d.next = !self.switch.m[p].tlast.val();
            }
            // The selections move to the test (or back) between frames.
            if self.test.active.val() & !self.mac_in_frame[p].q.val() {
                self.sel_in[p].d.next = true;
            }
            if !self.test.active.val() & !self.gen_in_frame[p].q.val() {
                self.sel_in[p].d.next = false;
            }
            if !self.out_in_frame[p].q.val() {
                self.sel_out[p].d.next = self.test.active.val();
            }

            self.stats.word[1 + 3 * p].next = self.test.sent[p].val();
            self.stats.word[2 + 3 * p].next = self.test.good[p].val();
            self.stats.word[3 + 3 * p].next = self.test.bad[p].val();
            // Activity and errors, into the switch clock.
            self.rx_s1[p].clock.next = self.pll.clkos.val();
            self.rx_s2[p].clock.next = self.pll.clkos.val();
            self.rx_s3[p].clock.next = self.pll.clkos.val();
            self.tx_s1[p].clock.next = self.pll.clkos.val();
            self.tx_s2[p].clock.next = self.pll.clkos.val();
            self.tx_s3[p].clock.next = self.pll.clkos.val();
            self.err_s1[p].clock.next = self.pll.clkos.val();
            self.err_s2[p].clock.next = self.pll.clkos.val();
            self.rx_act[p].clock.next = self.pll.clkos.val();
            self.tx_act[p].clock.next = self.pll.clkos.val();
            self.err_seen[p].clock.next = self.pll.clkos.val();
            self.rx_act[p].reset.next = self.srst.q.val();
            self.tx_act[p].reset.next = self.srst.q.val();
            self.err_seen[p].reset.next = self.srst.q.val();
            self.rx_s1[p].d.next = self.port[p].rx_frames.val().get_bit(0);
            self.rx_s2[p].d.next = self.rx_s1[p].q.val();
            self.rx_s3[p].d.next = self.rx_s2[p].q.val();
            self.tx_s1[p].d.next = self.port[p].tx_frames.val().get_bit(0);
            self.tx_s2[p].d.next = self.tx_s1[p].q.val();
            self.tx_s3[p].d.next = self.tx_s2[p].q.val();
            self.err_s1[p].d.next = self.port[p].rx_fcs_errors.val().any() | self.port[p].rx_errors.val().any();
            self.err_s2[p].d.next = self.err_s1[p].q.val();
            self.rx_act[p].d.next = self.rx_act[p].q.val();
            if self.rx_act[p].q.val().any() {
                self.rx_act[p].d.next = self.rx_act[p].q.val() - 1;
            }
            if self.rx_s3[p].q.val() != self.rx_s2[p].q.val() {
                self.rx_act[p].d.next = self.act_full.val();
            }
            self.tx_act[p].d.next = self.tx_act[p].q.val();
            if self.tx_act[p].q.val().any() {
                self.tx_act[p].d.next = self.tx_act[p].q.val() - 1;
            }
            if self.tx_s3[p].q.val() != self.tx_s2[p].q.val() {
                self.tx_act[p].d.next = self.act_full.val();
            }
            self.err_seen[p].d.next = self.err_seen[p].q.val() | self.err_s2[p].q.val();
        }
        self.leds.next = self.leds.val()
            | (bit_cast::<8, 1>(self.rx_act[0].q.val().any().into()) << 2)
            | (bit_cast::<8, 1>(self.rx_act[1].q.val().any().into()) << 3)
            | (bit_cast::<8, 1>(self.tx_act[0].q.val().any().into()) << 4)
            | (bit_cast::<8, 1>(self.tx_act[1].q.val().any().into()) << 5);
        if self.test.active.val() {
            self.leds.next = (self.leds.val() & self.not_led0.val())
                | bit_cast::<8, 1>(self.test.done.val().into())
                | (bit_cast::<8, 1>(self.test.pass.val().into()) << 6)
                | (bit_cast::<8, 1>(self.test.fail.val().into()) << 7);
        } else {
            self.leds.next = self.leds.val()
                | (bit_cast::<8, 1>(self.err_seen[0].q.val().into()) << 6)
                | (bit_cast::<8, 1>(self.err_seen[1].q.val().into()) << 7);
        }
        self.led.next = !self.leds.val();
    }
}

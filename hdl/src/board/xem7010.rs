//! `ts_xem7010_switch`: the switch on an Opal Kelly XEM7010-A75 (Artix-7
//! XC7A75T, FrontPanel over USB 2.0; issue 18, `boards/opalkelly-xem7010/`,
//! `docs/boards.md`, "Opal Kelly host access"), but for FrontPanel's own
//! modules (`okHost` and the endpoints, from Opal Kelly's FrontPanel HDL),
//! the clock primitive and the LEDs' drivers, which the Verilog top
//! (`xem7010_top.v`) instantiates around it.
//!
//! The module has no Ethernet: it is a lab board for the host side. The
//! switch's two ports belong to the loopback self-test ([`SelfTest`]):
//! the host starts a test through the board window's `SELFTEST` register
//! and reads its status and counts, and reads and writes the switch's
//! whole register map (tables, counters, trimming and PL2 settings)
//! through FrontPanel ([`OkAxil`]: `trimswitch ok`, cargo feature
//! `opalkelly`). A 2-port, 64-bit configuration
//! (`configs/opalkelly-xem7010.toml`) at 100 MHz.
//!
//! Clock: one, `clock` (the top's MMCM: 200 MHz oscillator x 5 / 10);
//! the trigger endpoints run on it (`ep_clk`), the wires are quasi-static
//! ([`OkAxil`]). Reset: a start-up count of 2^16 cycles restarted while
//! the MMCM is not locked, or while the host holds bit 0 of WireIn
//! [`WI_RESET`]; each through two flip-flops.
//!
//! LEDs (`led` bit `i` = 1 lights LED `i`; the top drives them active low):
//! 0 ready (out of reset), 1 a heartbeat (`clock` / 2^26), 2 a self-test
//! under way, 3 done, 4 passed, 5 failed, 6 toggles with each host
//! command, 7 a host trigger was ignored (since reset).
use crate::axil::bundle::AxilMaster;
use crate::board::mac_stats::{MacStats, BOARD_ADDR_BITS};
use crate::board::ok_axil::OkAxil;
use crate::board::self_test::SelfTest;
use crate::board::versa::{SELF_TEST_FRAMES, VERSA_CONTROLS, VERSA_GLOBALS, VERSA_PER_PORT};
use crate::config::{parse_mac, Config};
use crate::prim::widgets::DffR;
use crate::top::switch::Switch;
use anyhow::{anyhow, ensure, Result};
use rust_hdl::prelude::*;

/// The module's oscillator, MHz (LVDS, K4/J4).
pub const OSC_MHZ: f64 = 200.0;
/// The switch clock the top's MMCM makes (`MMCME2_BASE`: M 5, D 1, VCO
/// 1 000 MHz, O 10).
pub const CLOCK_MHZ: f64 = 100.0;
/// The WireIn whose bit 0 holds the design in reset while set.
pub const WI_RESET: u8 = 0x10;
/// The board window: the Versa's (the same self-test, its control,
/// status and counts).
pub const XEM_CONTROLS: &[(&str, &str)] = &VERSA_CONTROLS;
pub const XEM_GLOBALS: &[(&str, &str)] = &VERSA_GLOBALS;
pub const XEM_PER_PORT: &[(&str, &str)] = &VERSA_PER_PORT;

/// The board core (module docs). Ports:
/// - `clock` in: the switch clock; `locked` in: the MMCM's lock (any
///   clock: two flip-flops).
/// - `wi_addr_lo`, `wi_addr_hi`, `wi_data_lo`, `wi_data_hi`, `wi_reset`
///   in (16 bits): WireIns `0x00`..`0x03` and [`WI_RESET`].
/// - `ti_cmd` in (16 bits): TriggerIn `0x40` (`ep_clk` = `clock`).
/// - `wo_rdata_lo`, `wo_rdata_hi`, `wo_status` out: WireOuts
///   `0x20`..`0x22`; `to_done` out: TriggerOut `0x60` (`ep_clk` =
///   `clock`). [`OkAxil`] has the protocol.
/// - `led` out (8 bits, 1 = lit; module docs).
#[derive(LogicBlock)]
pub struct Xem7010Switch<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub locked: Signal<In, Bit>,
    pub wi_addr_lo: Signal<In, Bits<16>>,
    pub wi_addr_hi: Signal<In, Bits<16>>,
    pub wi_data_lo: Signal<In, Bits<16>>,
    pub wi_data_hi: Signal<In, Bits<16>>,
    pub wi_reset: Signal<In, Bits<16>>,
    pub ti_cmd: Signal<In, Bits<16>>,
    pub wo_rdata_lo: Signal<Out, Bits<16>>,
    pub wo_rdata_hi: Signal<Out, Bits<16>>,
    pub wo_status: Signal<Out, Bits<16>>,
    pub to_done: Signal<Out, Bits<16>>,
    pub led: Signal<Out, Bits<8>>,
    host: OkAxil<BOARD_ADDR_BITS>,
    stats: MacStats,
    test: SelfTest<D, K>,
    switch: Switch<D, K, U, M, W>,
    // The lock and the host's reset bit through two flip-flops; the
    // start-up count; the reset.
    lock1: DFF<Bit>,
    lock2: DFF<Bit>,
    hr1: DFF<Bit>,
    hr2: DFF<Bit>,
    start: DFF<Bits<17>>,
    rst: DFF<Bit>,
    beat: DffR<Bits<27>>,
    cmd_led: DffR<Bit>,
    ign_led: DffR<Bit>,
    /// Out of reset (a signal of its own: `!` inside a wider expression
    /// would invert the widened value in Verilog).
    ready: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Xem7010Switch<D, K, U, M, W> {
    /// The design of `cfg`: two ports, 64 bits, the MMCM's clock; else an
    /// error naming the file and key.
    pub fn new(cfg: &Config) -> Result<Self> {
        Self::with_frames(cfg, SELF_TEST_FRAMES)
    }

    /// As [`Xem7010Switch::new`] with a self-test of `frames` frames each
    /// way (the tests' shorter runs).
    pub fn with_frames(cfg: &Config, frames: u32) -> Result<Self> {
        let f = cfg.source.display();
        let ports = cfg.datapath.ports;
        ensure!(ports == 2, "{f}: datapath.ports = {ports}: the XEM7010's self-test drives 2 ports");
        ensure!(D == 64, "{f}: datapath.data_width = {D}: the board runs a 64-bit data path (its self-test does)");
        ensure!(
            cfg.target.clock_mhz == CLOCK_MHZ,
            "{f}: target.clock_mhz = {}: the XEM7010 top's MMCM makes {CLOCK_MHZ} MHz from the {OSC_MHZ} MHz oscillator",
            cfg.target.clock_mhz
        );
        ensure!(cfg.target.family == "xc7", "{f}: target.family = {:?}: the XEM7010 is an Artix-7 (\"xc7\")", cfg.target.family);
        ensure!(cfg.ingress.fcs == "check", "{f}: ingress.fcs = {:?}: the self-test's frames carry their FCS (\"check\")", cfg.ingress.fcs);
        let mut dst = [0u64; 2];
        for (p, d) in dst.iter_mut().enumerate() {
            let e = cfg.ingress.l2.iter().find(|e| e.port == p as u32).ok_or_else(|| {
                anyhow!("{f}: ingress.l2: no entry for port {p} (the self-test sends to the MAC the table gives each port)")
            })?;
            *d = parse_mac(&e.mac).expect("validated L2 MAC");
        }
        Ok(Self {
            clock: Default::default(),
            locked: Default::default(),
            wi_addr_lo: Default::default(),
            wi_addr_hi: Default::default(),
            wi_data_lo: Default::default(),
            wi_data_hi: Default::default(),
            wi_reset: Default::default(),
            ti_cmd: Default::default(),
            wo_rdata_lo: Default::default(),
            wo_rdata_hi: Default::default(),
            wo_status: Default::default(),
            to_done: Default::default(),
            led: Default::default(),
            host: OkAxil::default(),
            stats: MacStats::new(XEM_CONTROLS.len(), XEM_GLOBALS.len() + ports * XEM_PER_PORT.len()),
            test: SelfTest::new(frames, dst),
            switch: Switch::new(cfg)?,
            lock1: Default::default(),
            lock2: Default::default(),
            hr1: Default::default(),
            hr2: Default::default(),
            start: Default::default(),
            rst: Default::default(),
            beat: Default::default(),
            cmd_led: Default::default(),
            ign_led: Default::default(),
            ready: Default::default(),
        })
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for Xem7010Switch<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lock1, lock2, hr1, hr2, start, rst, beat, cmd_led, ign_led);
        // ---- the reset: registers start at 0 when the FPGA is configured ----
        self.lock1.d.next = self.locked.val();
        self.lock2.d.next = self.lock1.q.val();
        self.hr1.d.next = self.wi_reset.val().get_bit(0);
        self.hr2.d.next = self.hr1.q.val();
        if !self.start.q.val().get_bit(16) {
            self.start.d.next = self.start.q.val() + 1;
        }
        if self.hr2.q.val() | !self.lock2.q.val() {
            self.start.d.next = 0.into();
        }
        self.rst.d.next = !self.start.q.val().get_bit(16);
        self.beat.reset.next = self.rst.q.val();
        self.cmd_led.reset.next = self.rst.q.val();
        self.ign_led.reset.next = self.rst.q.val();

        // ---- the host: FrontPanel's endpoints -> the board window -> the
        // switch's map ----
        self.host.clock.next = self.clock.val();
        self.host.reset.next = self.rst.q.val();
        self.host.wi_addr_lo.next = self.wi_addr_lo.val();
        self.host.wi_addr_hi.next = self.wi_addr_hi.val();
        self.host.wi_data_lo.next = self.wi_data_lo.val();
        self.host.wi_data_hi.next = self.wi_data_hi.val();
        self.host.ti_cmd.next = self.ti_cmd.val();
        self.wo_rdata_lo.next = self.host.wo_rdata_lo.val();
        self.wo_rdata_hi.next = self.host.wo_rdata_hi.val();
        self.wo_status.next = self.host.wo_status.val();
        self.to_done.next = self.host.to_done.val();
        self.stats.clock.next = self.clock.val();
        self.stats.reset.next = self.rst.q.val();
        AxilMaster::<BOARD_ADDR_BITS>::join(&mut self.host.m_axil, &mut self.stats.s_axil);
        self.switch.clock.next = self.clock.val();
        self.switch.reset.next = self.rst.q.val();
        AxilMaster::<{ crate::top::regmap::SWITCH_ADDR_BITS }>::join(&mut self.stats.m_switch, &mut self.switch.s_axil);

        // ---- the self-test owns both ports ----
        self.test.clock.next = self.clock.val();
        self.test.reset.next = self.rst.q.val();
        self.test.run.next = self.stats.control[0].val().get_bit(0);
        for k in 0..self.stats.word.len() {
            self.stats.word_clock[k].next = self.clock.val();
            self.stats.word_reset[k].next = self.rst.q.val();
        }
        self.stats.word[0].next = self.test.status.val();
        for p in 0..self.test.gen_tdata.len() {
            self.switch.s[p].tdata.next = self.test.gen_tdata[p].val();
            self.switch.s[p].tkeep.next = self.test.gen_tkeep[p].val();
            self.switch.s[p].tlast.next = self.test.gen_tlast[p].val();
            self.switch.s[p].tuser.next = false;
            self.switch.s[p].tvalid.next = self.test.gen_tvalid[p].val();
            self.test.gen_tready[p].next = self.switch.s[p].tready.val();
            self.test.chk_tdata[p].next = self.switch.m[p].tdata.val();
            self.test.chk_tkeep[p].next = self.switch.m[p].tkeep.val();
            self.test.chk_tlast[p].next = self.switch.m[p].tlast.val();
            self.test.chk_tvalid[p].next = self.switch.m[p].tvalid.val();
            self.switch.m[p].tready.next = true;
            self.stats.word[1 + 3 * p].next = self.test.sent[p].val();
            self.stats.word[2 + 3 * p].next = self.test.good[p].val();
            self.stats.word[3 + 3 * p].next = self.test.bad[p].val();
        }

        // ---- LEDs ----
        self.beat.d.next = self.beat.q.val() + 1;
        if self.host.to_done.val().get_bit(0) {
            self.cmd_led.d.next = !self.cmd_led.q.val();
        }
        if self.host.ignored.val().any() {
            self.ign_led.d.next = true;
        }
        self.ready.next = !self.rst.q.val();
        self.led.next = bit_cast::<8, 1>(self.ready.val().into())
            | (bit_cast::<8, 1>(self.beat.q.val().get_bit(26).into()) << 1)
            | (bit_cast::<8, 1>(self.test.active.val().into()) << 2)
            | (bit_cast::<8, 1>(self.test.done.val().into()) << 3)
            | (bit_cast::<8, 1>(self.test.pass.val().into()) << 4)
            | (bit_cast::<8, 1>(self.test.fail.val().into()) << 5)
            | (bit_cast::<8, 1>(self.cmd_led.q.val().into()) << 6)
            | (bit_cast::<8, 1>(self.ign_led.q.val().into()) << 7);
    }
}

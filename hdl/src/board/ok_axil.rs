//! `ts_ok_axil`: host access through Opal Kelly FrontPanel endpoints, for a
//! lab board whose link to the PC is FrontPanel's USB host interface (the
//! Opal Kelly XEM7010; issue 18, `docs/boards.md`, "Opal Kelly host
//! access").
//!
//! The endpoints (FrontPanel's `okWireIn`, `okTriggerIn`, `okWireOut`,
//! `okTriggerOut`, 16 bits each on a USB 2.0 module), by address:
//!
//! | endpoint | address | meaning |
//! |---|---|---|
//! | WireIn | `0x00`, `0x01` | the register's address, low and high half |
//! | WireIn | `0x02`, `0x03` | the data to write, low and high half |
//! | TriggerIn | `0x40` | bit 0 write, bit 1 read |
//! | WireOut | `0x20`, `0x21` | the data read, low and high half |
//! | WireOut | `0x22` | status: bits 1..0 the response (0 OKAY, 3 DECERR), bit 2 busy, bit 3 the last command read, bits 15..8 commands done (mod 256) |
//! | TriggerOut | `0x60` | bit 0: a command is done |
//!
//! The host sets the wires (`SetWireInValue`, `UpdateWireIns`), fires the
//! trigger (`ActivateTriggerIn`), waits for the done trigger
//! (`UpdateTriggerOuts`, `IsTriggered`) or for the count to step, and reads
//! the answer (`UpdateWireOuts`, `GetWireOutValue`). `trimswitch ok`
//! (cargo feature `opalkelly`) does this.
//!
//! Clocks: everything here runs on `clock`, the switch's: the trigger
//! endpoints take it as their `ep_clk`, so a trigger arrives as a one-cycle
//! pulse of this clock. The WireIn values come from FrontPanel's interface
//! clock and are quasi-static: the host changes them only between
//! commands, in a USB transfer of its own before the trigger's, so they are
//! registered here each cycle and taken at the trigger (many cycles after
//! they last changed). The WireOut values change only when a command
//! completes, before its done trigger, and the host reads them after it
//! (the top's constraints make the two clocks asynchronous,
//! `boards/opalkelly-xem7010/`).
//!
//! Bad input: a trigger with both bits, or one that arrives while a command
//! is under way, is dropped and counted (`ignored`). The AXI4-Lite side
//! writes all four byte lanes; nothing waits for ever but the slave's
//! answer, which the switch's map always gives (DECERR where nothing is
//! mapped).
use crate::axil::bundle::AxilMaster;
use crate::axil::cmd::AxilCmd;
use crate::prim::widgets::DffR;
use rust_hdl::prelude::*;

/// The endpoints' addresses (module docs).
pub const WI_ADDR_LO: u8 = 0x00;
pub const WI_ADDR_HI: u8 = 0x01;
pub const WI_DATA_LO: u8 = 0x02;
pub const WI_DATA_HI: u8 = 0x03;
pub const TI_CMD: u8 = 0x40;
pub const WO_RDATA_LO: u8 = 0x20;
pub const WO_RDATA_HI: u8 = 0x21;
pub const WO_STATUS: u8 = 0x22;
pub const TO_DONE: u8 = 0x60;
/// The trigger's bits: a write, a read.
pub const CMD_WRITE: u16 = 1;
pub const CMD_READ: u16 = 2;
/// The status word's fields.
pub const STATUS_BUSY: u16 = 1 << 2;
pub const STATUS_READ: u16 = 1 << 3;
pub const STATUS_COUNT_LSB: u32 = 8;

/// The bridge (module docs). `AW` address bits of the AXI4-Lite master
/// (the low `AW` bits of the host's 32-bit address).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock (the trigger endpoints' `ep_clk`);
///   synchronous active-high reset.
/// - `wi_addr_lo`, `wi_addr_hi`, `wi_data_lo`, `wi_data_hi` in (16 bits
///   each): the WireIns `0x00`..`0x03` (`ep_dataout`), quasi-static.
/// - `ti_cmd` in (16 bits): the TriggerIn `0x40` (`ep_trigger`), pulses.
/// - `wo_rdata_lo`, `wo_rdata_hi`, `wo_status` out (16 bits each, from
///   registers): the WireOuts `0x20`..`0x22` (`ep_datain`).
/// - `to_done` out (16 bits, registered): the TriggerOut `0x60`
///   (`ep_trigger`): bit 0 for one cycle as a command completes.
/// - `m_axil_*`: the AXI4-Lite master.
/// - `ignored` out (8 bits, saturating): triggers dropped (both bits, or
///   while busy).
#[derive(LogicBlock, Default)]
pub struct OkAxil<const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub wi_addr_lo: Signal<In, Bits<16>>,
    pub wi_addr_hi: Signal<In, Bits<16>>,
    pub wi_data_lo: Signal<In, Bits<16>>,
    pub wi_data_hi: Signal<In, Bits<16>>,
    pub ti_cmd: Signal<In, Bits<16>>,
    pub wo_rdata_lo: Signal<Out, Bits<16>>,
    pub wo_rdata_hi: Signal<Out, Bits<16>>,
    pub wo_status: Signal<Out, Bits<16>>,
    pub to_done: Signal<Out, Bits<16>>,
    pub m_axil: AxilMaster<AW>,
    pub ignored: Signal<Out, Bits<8>>,
    /// The wires in this clock (quasi-static: no synchronizer needed, one
    /// register so nothing else sees the other clock's nets).
    w_addr: DFF<Bits<32>>,
    w_data: DFF<Bits<32>>,
    /// The AXI4-Lite side.
    cmd: AxilCmd<AW>,
    last_read: DffR<Bit>,
    count: DffR<Bits<8>>,
    n_ignored: DffR<Bits<8>>,
    /// The trigger's two command bits.
    wr: Signal<Local, Bit>,
    rd: Signal<Local, Bit>,
}

impl<const AW: usize> Logic for OkAxil<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, w_addr, w_data, last_read, count, n_ignored);
        self.last_read.reset.next = self.reset.val();
        self.count.reset.next = self.reset.val();
        self.n_ignored.reset.next = self.reset.val();
        self.cmd.clock.next = self.clock.val();
        self.cmd.reset.next = self.reset.val();
        AxilMaster::<AW>::link(&mut self.m_axil, &mut self.cmd.m_axil);

        self.w_addr.d.next = bit_cast::<32, 16>(self.wi_addr_lo.val()) | (bit_cast::<32, 16>(self.wi_addr_hi.val()) << 16);
        self.w_data.d.next = bit_cast::<32, 16>(self.wi_data_lo.val()) | (bit_cast::<32, 16>(self.wi_data_hi.val()) << 16);
        self.wr.next = self.ti_cmd.val().get_bit(0);
        self.rd.next = self.ti_cmd.val().get_bit(1);
        // A trigger with one bit starts a command while none is under way;
        // both bits, or any while busy, start nothing and are counted.
        self.cmd.start.next = (self.wr.val() ^ self.rd.val()) & !self.cmd.busy.val();
        self.cmd.read.next = self.rd.val();
        self.cmd.addr.next = self.w_addr.q.val();
        self.cmd.wdata.next = self.w_data.q.val();
        if ((self.wr.val() & self.rd.val()) | ((self.wr.val() | self.rd.val()) & self.cmd.busy.val())) & (self.n_ignored.q.val() != 255) {
            self.n_ignored.d.next = self.n_ignored.q.val() + 1;
        }
        if self.cmd.start.val() {
            self.last_read.d.next = self.rd.val();
        }
        if self.cmd.done.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        self.wo_rdata_lo.next = self.cmd.rdata.val().get_bits::<16>(0);
        self.wo_rdata_hi.next = self.cmd.rdata.val().get_bits::<16>(16);
        self.wo_status.next = bit_cast::<16, 2>(self.cmd.resp.val())
            | (bit_cast::<16, 1>(self.cmd.busy.val().into()) << 2)
            | (bit_cast::<16, 1>(self.last_read.q.val().into()) << 3)
            | (bit_cast::<16, 8>(self.count.q.val()) << 8);
        self.to_done.next = bit_cast::<16, 1>(self.cmd.done.val().into());
        self.ignored.next = self.n_ignored.q.val();
    }
}

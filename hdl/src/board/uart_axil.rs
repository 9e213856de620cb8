//! `ts_uart_axil`: host access over a serial line, for a board whose only
//! link to a lab PC is a USB serial port (the ECP5-5G Versa's FT2232H
//! channel B; issue 18, `docs/boards.md`, "Host access over a serial
//! line").
//!
//! The line: 8 data bits, no parity, one stop bit, least significant bit
//! first, idle high, at `baud` (the divider is the nearest whole number of
//! clock cycles per bit; [`UartAxil::new`] refuses a clock that misses the
//! rate by more than 1%). The protocol, bytes in order, numbers big-endian:
//!
//! | host sends | the bridge answers |
//! |---|---|
//! | `'W'` (0x57), address (4 bytes), data (4 bytes) | `'w'` (0x77), `bresp` (1 byte: 0 OKAY, 3 DECERR) |
//! | `'R'` (0x52), address (4 bytes) | `'r'` (0x72), `rresp` (1 byte), data (4 bytes) |
//!
//! One command at a time: the host waits for the answer before the next.
//! A byte that starts no command is dropped and counted (`junk`); a
//! command whose bytes stop coming for [`GAP_BITS`] bit times is dropped
//! and counted (`timeouts`), so a host that lost track starts afresh after
//! a pause; a byte whose stop bit is low is dropped and counted
//! (`framing`). The AXI4-Lite side writes all four byte lanes. Nothing
//! waits for ever but the answer of the AXI4-Lite slave, which the switch's
//! map always gives (DECERR where nothing is mapped).
use crate::axil::bundle::AxilMaster;
use crate::axil::cmd::AxilCmd;
use crate::prim::widgets::DffR;
use anyhow::{ensure, Result};
use rust_hdl::prelude::*;

/// Bit times of silence that end a partial command.
pub const GAP_BITS: u64 = 2000;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Rx {
    Idle,
    Start,
    Data,
    Stop,
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Cmd {
    /// Waiting for a command byte.
    Op,
    /// Taking the command's bytes.
    Args,
    /// The AXI4-Lite transaction ([`AxilCmd`]): started, then its answer.
    Bus,
    /// Sending the answer.
    Answer,
}

/// The bridge (module docs). `AW` address bits of the AXI4-Lite master (the
/// low `AW` bits of the host's 32-bit address).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset.
/// - `rx` in: the serial line from the host (asynchronous: two flip-flops);
///   `tx` out (registered): the line to the host.
/// - `m_axil_*`: the AXI4-Lite master.
/// - `junk`, `timeouts`, `framing` out (8 bits each, saturating): bytes
///   outside a command, commands cut by silence, bytes with a bad stop bit.
#[derive(LogicBlock)]
pub struct UartAxil<const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rx: Signal<In, Bit>,
    pub tx: Signal<Out, Bit>,
    pub m_axil: AxilMaster<AW>,
    pub junk: Signal<Out, Bits<8>>,
    pub timeouts: Signal<Out, Bits<8>>,
    pub framing: Signal<Out, Bits<8>>,
    /// Clock cycles per bit, and half of it.
    per_bit: Constant<Bits<16>>,
    half: Constant<Bits<16>>,
    gap: Constant<Bits<32>>,
    /// The answers' first bytes, `'r'` and `'w'`, in the answer's top byte.
    ans_r: Constant<Bits<48>>,
    ans_w: Constant<Bits<48>>,
    /// A stop bit in a frame's bit 9.
    stop: Constant<Bits<10>>,
    // The receiver: the line through two flip-flops, its state, the bit
    // timer, the bits taken, the byte.
    rx1: DFF<Bit>,
    rx2: DFF<Bit>,
    /// The line a cycle earlier: a start is a falling edge (a line held low,
    /// a break or a low stop bit, starts nothing until it has been high).
    rx3: DFF<Bit>,
    rst: DffR<Rx>,
    rtime: DffR<Bits<16>>,
    rbits: DffR<Bits<4>>,
    rbyte: DffR<Bits<8>>,
    /// A byte arrived (one cycle).
    got: DffR<Bit>,
    // The command: its state, whether it reads, the bytes still owed, the
    // address and data shifted in, the silence timer, the response.
    cst: DffR<Cmd>,
    read: DffR<Bit>,
    left: DffR<Bits<4>>,
    args: DffR<Bits<64>>,
    quiet: DffR<Bits<32>>,
    /// The command's first cycle on the bus (starts the sequencer).
    go: DffR<Bit>,
    /// The AXI4-Lite side.
    cmd: AxilCmd<AW>,
    // The transmitter: the answer's bytes (up to six, first in the high
    // byte), how many, the frame being sent (start, 8 data, stop), its bit
    // timer and bits left.
    ans: DffR<Bits<48>>,
    ans_n: DffR<Bits<3>>,
    tframe: DffR<Bits<10>>,
    tbits: DffR<Bits<4>>,
    ttime: DffR<Bits<16>>,
    txq: DffR<Bit>,
    n_junk: DffR<Bits<8>>,
    n_timeout: DffR<Bits<8>>,
    n_framing: DffR<Bits<8>>,
}

impl<const AW: usize> UartAxil<AW> {
    /// A bridge at `baud` on a `clock_hz` clock; an error when the nearest
    /// divider misses the rate by more than 1% or is below 16.
    pub fn new(clock_hz: f64, baud: f64) -> Result<Self> {
        let div = (clock_hz / baud).round();
        ensure!((16.0..65536.0).contains(&div), "{baud} baud at {clock_hz} Hz: {div} cycles per bit (16..=65535 supported)");
        let err = (clock_hz / div - baud).abs() / baud;
        ensure!(err <= 0.01, "{baud} baud at {clock_hz} Hz: {div} cycles per bit is {:.2}% off", err * 100.0);
        let div = div as u64;
        Ok(Self {
            clock: Default::default(),
            reset: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            m_axil: Default::default(),
            junk: Default::default(),
            timeouts: Default::default(),
            framing: Default::default(),
            per_bit: Constant::new(div.to_bits()),
            half: Constant::new((div / 2).to_bits()),
            gap: Constant::new((div * GAP_BITS).to_bits()),
            ans_r: Constant::new((0x72u64 << 40).to_bits()),
            ans_w: Constant::new((0x77u64 << 40).to_bits()),
            stop: Constant::new((1u64 << 9).to_bits()),
            rx1: Default::default(),
            rx2: Default::default(),
            rx3: Default::default(),
            rst: DffR::new(Rx::Idle),
            rtime: Default::default(),
            rbits: Default::default(),
            rbyte: Default::default(),
            got: Default::default(),
            cst: DffR::new(Cmd::Op),
            read: Default::default(),
            left: Default::default(),
            args: Default::default(),
            quiet: Default::default(),
            go: Default::default(),
            cmd: Default::default(),
            ans: Default::default(),
            ans_n: Default::default(),
            tframe: DffR::new(Bits::<10>::mask()),
            tbits: Default::default(),
            ttime: Default::default(),
            txq: DffR::new(true),
            n_junk: Default::default(),
            n_timeout: Default::default(),
            n_framing: Default::default(),
        })
    }
}

impl<const AW: usize> Logic for UartAxil<AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rx1, rx2, rx3, rst, rtime, rbits, rbyte, got, cst, read, left, args, quiet, go, ans, ans_n, tframe, tbits, ttime,
            txq, n_junk, n_timeout, n_framing
        );
        self.rst.reset.next = self.reset.val();
        self.rtime.reset.next = self.reset.val();
        self.rbits.reset.next = self.reset.val();
        self.rbyte.reset.next = self.reset.val();
        self.got.reset.next = self.reset.val();
        self.cst.reset.next = self.reset.val();
        self.read.reset.next = self.reset.val();
        self.left.reset.next = self.reset.val();
        self.args.reset.next = self.reset.val();
        self.quiet.reset.next = self.reset.val();
        self.go.reset.next = self.reset.val();
        self.cmd.clock.next = self.clock.val();
        self.cmd.reset.next = self.reset.val();
        AxilMaster::<AW>::link(&mut self.m_axil, &mut self.cmd.m_axil);
        self.ans.reset.next = self.reset.val();
        self.ans_n.reset.next = self.reset.val();
        self.tframe.reset.next = self.reset.val();
        self.tbits.reset.next = self.reset.val();
        self.ttime.reset.next = self.reset.val();
        self.txq.reset.next = self.reset.val();
        self.n_junk.reset.next = self.reset.val();
        self.n_timeout.reset.next = self.reset.val();
        self.n_framing.reset.next = self.reset.val();

        // ---- receiver: a falling edge starts a byte; each bit is sampled
        // in its middle ----
        self.rx1.d.next = self.rx.val();
        self.rx2.d.next = self.rx1.q.val();
        self.rx3.d.next = self.rx2.q.val();
        self.got.d.next = false;
        self.rtime.d.next = self.rtime.q.val() + 1;
        match self.rst.q.val() {
            Rx::Idle => {
                self.rtime.d.next = 0.into();
                if !self.rx2.q.val() & self.rx3.q.val() {
                    self.rst.d.next = Rx::Start;
                }
            }
            Rx::Start => {
                if self.rtime.q.val() == self.half.val() {
                    self.rtime.d.next = 0.into();
                    self.rbits.d.next = 0.into();
                    // A start bit gone high again was a glitch.
                    if self.rx2.q.val() {
                        self.rst.d.next = Rx::Idle;
                    } else {
                        self.rst.d.next = Rx::Data;
                    }
                }
            }
            Rx::Data => {
                if self.rtime.q.val() + 1 == self.per_bit.val() {
                    self.rtime.d.next = 0.into();
                    self.rbyte.d.next = (self.rbyte.q.val() >> 1) | (bit_cast::<8, 1>(self.rx2.q.val().into()) << 7);
                    self.rbits.d.next = self.rbits.q.val() + 1;
                    if self.rbits.q.val() == 7 {
                        self.rst.d.next = Rx::Stop;
                    }
                }
            }
            Rx::Stop => {
                if self.rtime.q.val() + 1 == self.per_bit.val() {
                    self.rst.d.next = Rx::Idle;
                    if self.rx2.q.val() {
                        self.got.d.next = true;
                    } else if self.n_framing.q.val() != 255 {
                        self.n_framing.d.next = self.n_framing.q.val() + 1;
                    }
                }
            }
        }

        // ---- the command ----
        // Write: address in the args' high word, data in the low; read:
        // the address in the low word.
        self.cmd.start.next = self.go.q.val() & !self.cmd.busy.val();
        self.cmd.read.next = self.read.q.val();
        self.cmd.wdata.next = self.args.q.val().get_bits::<32>(0);
        if self.read.q.val() {
            self.cmd.addr.next = self.args.q.val().get_bits::<32>(0);
        } else {
            self.cmd.addr.next = self.args.q.val().get_bits::<32>(32);
        }
        self.go.d.next = false;
        self.quiet.d.next = 0.into();
        match self.cst.q.val() {
            Cmd::Op => {
                if self.got.q.val() {
                    if self.rbyte.q.val() == 0x57 {
                        self.read.d.next = false;
                        self.left.d.next = 8.into();
                        self.cst.d.next = Cmd::Args;
                    } else if self.rbyte.q.val() == 0x52 {
                        self.read.d.next = true;
                        self.left.d.next = 4.into();
                        self.cst.d.next = Cmd::Args;
                    } else if self.n_junk.q.val() != 255 {
                        self.n_junk.d.next = self.n_junk.q.val() + 1;
                    }
                }
            }
            Cmd::Args => {
                self.quiet.d.next = self.quiet.q.val() + 1;
                if self.got.q.val() {
                    self.quiet.d.next = 0.into();
                    self.args.d.next = (self.args.q.val() << 8) | bit_cast::<64, 8>(self.rbyte.q.val());
                    self.left.d.next = self.left.q.val() - 1;
                    if self.left.q.val() == 1 {
                        self.go.d.next = true;
                        self.cst.d.next = Cmd::Bus;
                    }
                } else if self.quiet.q.val() == self.gap.val() {
                    self.cst.d.next = Cmd::Op;
                    if self.n_timeout.q.val() != 255 {
                        self.n_timeout.d.next = self.n_timeout.q.val() + 1;
                    }
                }
            }
            Cmd::Bus => {
                if self.cmd.done.val() {
                    if self.read.q.val() {
                        // 'r', rresp, data.
                        self.ans.d.next =
                            self.ans_r.val() | (bit_cast::<48, 2>(self.cmd.resp.val()) << 32) | bit_cast::<48, 32>(self.cmd.rdata.val());
                        self.ans_n.d.next = 6.into();
                    } else {
                        // 'w', bresp.
                        self.ans.d.next = self.ans_w.val() | (bit_cast::<48, 2>(self.cmd.resp.val()) << 32);
                        self.ans_n.d.next = 2.into();
                    }
                    self.cst.d.next = Cmd::Answer;
                }
            }
            Cmd::Answer => {
                if self.ans_n.q.val() == 0 {
                    self.cst.d.next = Cmd::Op;
                }
            }
        }

        // ---- transmitter: the answer's bytes, high byte first ----
        self.ttime.d.next = self.ttime.q.val() + 1;
        if self.tbits.q.val() == 0 {
            self.ttime.d.next = 0.into();
            if (self.cst.q.val() == Cmd::Answer) & self.ans_n.q.val().any() {
                // Stop (1), the byte, start (0): sent from bit 0.
                self.tframe.d.next = self.stop.val() | (bit_cast::<10, 8>(self.ans.q.val().get_bits::<8>(40)) << 1);
                self.tbits.d.next = 10.into();
                self.ans.d.next = self.ans.q.val() << 8;
                self.ans_n.d.next = self.ans_n.q.val() - 1;
            }
        } else if self.ttime.q.val() + 1 == self.per_bit.val() {
            self.ttime.d.next = 0.into();
            self.tframe.d.next = (self.tframe.q.val() >> 1) | self.stop.val();
            self.tbits.d.next = self.tbits.q.val() - 1;
        }
        self.txq.d.next = self.tframe.q.val().get_bit(0) | (self.tbits.q.val() == 0);
        self.tx.next = self.txq.q.val();
        self.junk.next = self.n_junk.q.val();
        self.timeouts.next = self.n_timeout.q.val();
        self.framing.next = self.n_framing.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dividers_within_one_percent() {
        // The Versa: 62.5 MHz at 115 200 baud, 543 cycles per bit (0.08% off).
        assert!(UartAxil::<18>::new(62.5e6, 115_200.0).is_ok());
        // Fewer than 16 cycles per bit, and a divider 2.9% off, are refused.
        let e = UartAxil::<18>::new(1e6, 115_200.0).err().expect("9 cycles per bit").to_string();
        assert!(e.contains("9 cycles per bit (16..=65535 supported)"), "{e}");
        let e = UartAxil::<18>::new(1.65e6, 100e3).err().expect("16.5 cycles per bit").to_string();
        assert!(e.contains("% off"), "{e}");
    }
}

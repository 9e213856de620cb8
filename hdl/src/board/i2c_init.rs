//! `ts_i2c_init`: a board's start-up programmer (issue 18): after reset it
//! runs a fixed program of I2C writes, delays and pin changes, then holds
//! `done`. What a board needs before its links come up: the NetFPGA-SUME's
//! Si5324 jitter cleaner behind its I2C switch makes the SFP+ reference
//! clock only once programmed.
//!
//! The bus: an I2C controller (UM10204 rev. 7, 3.1), open drain: `scl_low`
//! and `sda_low` pull a line low (the board top drives each pin low while
//! set and releases it otherwise), `scl_in` and `sda_in` read the lines.
//! A bit takes four quarter periods of `quarter` clock cycles each (SDA set
//! while SCL is low, SCL released, the line sampled while SCL is high, SCL
//! pulled low); a released SCL that a target holds low (clock stretching,
//! 3.1.9) waits. START and STOP change SDA while SCL is high; nothing else
//! does.
//!
//! The program ([`Step`]) is a ROM of 16-bit words: `1 B` START then byte
//! `B`, `2 B` byte `B`, `3` STOP, `4 N` wait `N` times `unit` cycles, `5 V`
//! `pin` := `V`, `0` end. A byte a target does not acknowledge (NACK) ends
//! its transaction at once with a STOP; the rest of the transaction in the
//! program is skipped, `nacks` counts it, and the program goes on: a
//! missing device costs its own writes only, and the programmer always
//! reaches `done`.
use crate::prim::widgets::DffR;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// One step of a start-up program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// One write transaction: START, the 7-bit address with R/W = 0, the
    /// bytes, STOP.
    Write { addr: u8, bytes: Vec<u8> },
    /// Wait this many microseconds (rounded up to the programmer's unit).
    DelayUs(u32),
    /// Set the `pin` output (e.g. a clock chip's reset, active low).
    Pin(bool),
}

/// Program words (module docs).
mod op {
    pub const END: u16 = 0;
    pub const START: u16 = 1;
    pub const BYTE: u16 = 2;
    pub const STOP: u16 = 3;
    pub const WAIT: u16 = 4;
    pub const PIN: u16 = 5;
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Ist {
    Fetch,
    Start,
    Byte,
    Stop,
    Wait,
    Done,
}

/// The programmer (module docs). `A` address bits of the program ROM (it
/// holds at most `2^A` words).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (the program starts again; the bus released, `pin` at its reset value).
/// - `scl_low`, `sda_low` out (registered): pull SCL / SDA low.
/// - `scl_in`, `sda_in` in: the lines as they are (synchronize them to
///   `clock` in the board top).
/// - `pin` out (registered): set by the program; `pin_reset` its value out
///   of reset.
/// - `done` out: the program has ended. `nacks` out (8 bits, saturating):
///   transactions cut by a NACK.
#[derive(LogicBlock)]
pub struct I2cInit<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub scl_low: Signal<Out, Bit>,
    pub sda_low: Signal<Out, Bit>,
    pub scl_in: Signal<In, Bit>,
    pub sda_in: Signal<In, Bit>,
    pub pin: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub nacks: Signal<Out, Bits<8>>,
    rom: ROM<Bits<16>, A>,
    quarter: Constant<Bits<16>>,
    unit: Constant<Bits<16>>,
    st: DffR<Ist>,
    pc: DffR<Bits<A>>,
    /// Quarter-period counter and the phase (0..=3) within a bit.
    tq: DffR<Bits<16>>,
    phase: DffR<Bits<2>>,
    /// The byte being sent (MSB first) and the bit (0..=7 data, 8 ACK).
    shift: DffR<Bits<8>>,
    nbit: DffR<Bits<4>>,
    /// Wait: units left, cycles left in this unit.
    wunits: DffR<Bits<12>>,
    wcyc: DffR<Bits<16>>,
    /// A NACK cut the transaction: skip to after its STOP.
    skip: DffR<Bit>,
    scl_q: DffR<Bit>,
    sda_q: DffR<Bit>,
    pin_q: DffR<Bit>,
    n_nack: DffR<Bits<8>>,
    tick: Signal<Local, Bit>,
    word: Signal<Local, Bits<16>>,
    code: Signal<Local, Bits<4>>,
    arg: Signal<Local, Bits<12>>,
}

impl<const A: usize> I2cInit<A> {
    /// The programmer of `steps` at `clock_hz`, the bus at about `scl_hz`
    /// (at most; a quarter period is rounded up to whole cycles), the wait
    /// unit 100 µs, `pin` reset to `pin_reset`. Errors when the program
    /// does not fit `2^A` words, a write has no bytes or a wait is longer
    /// than 409.5 ms.
    pub fn new(steps: &[Step], clock_hz: f64, scl_hz: f64, pin_reset: bool) -> anyhow::Result<Self> {
        let words = program(steps)?;
        anyhow::ensure!(words.len() <= 1 << A, "I2cInit: a program of {} words does not fit {} words", words.len(), 1usize << A);
        let quarter = (clock_hz / scl_hz / 4.0).ceil().max(2.0) as u64;
        let unit = (clock_hz * 100e-6).ceil() as u64;
        anyhow::ensure!(quarter < 1 << 16 && unit < 1 << 16, "I2cInit: a clock of {clock_hz} Hz needs counters wider than 16 bits");
        let rom: BTreeMap<Bits<A>, Bits<16>> =
            words.iter().enumerate().map(|(i, w)| ((i as u64).to_bits(), (*w as u64).to_bits())).collect();
        Ok(Self {
            clock: Default::default(),
            reset: Default::default(),
            scl_low: Default::default(),
            sda_low: Default::default(),
            scl_in: Default::default(),
            sda_in: Default::default(),
            pin: Default::default(),
            done: Default::default(),
            nacks: Default::default(),
            rom: ROM::new(rom),
            quarter: Constant::new((quarter - 1).to_bits()),
            unit: Constant::new((unit - 1).to_bits()),
            st: DffR::new(Ist::Fetch),
            pc: Default::default(),
            tq: Default::default(),
            phase: Default::default(),
            shift: Default::default(),
            nbit: Default::default(),
            wunits: Default::default(),
            wcyc: Default::default(),
            skip: Default::default(),
            scl_q: Default::default(),
            sda_q: Default::default(),
            pin_q: DffR::new(pin_reset),
            n_nack: Default::default(),
            tick: Default::default(),
            word: Default::default(),
            code: Default::default(),
            arg: Default::default(),
        })
    }
}

/// The ROM words of `steps` (module docs), ending in END.
pub fn program(steps: &[Step]) -> anyhow::Result<Vec<u16>> {
    let mut w = vec![];
    for (i, s) in steps.iter().enumerate() {
        match s {
            Step::Write { addr, bytes } => {
                anyhow::ensure!(*addr < 0x80 && !bytes.is_empty(), "step {i}: a write needs a 7-bit address and at least one byte");
                w.push(op::START << 12 | (*addr as u16) << 1);
                w.extend(bytes.iter().map(|b| op::BYTE << 12 | *b as u16));
                w.push(op::STOP << 12);
            }
            Step::DelayUs(us) => {
                let units = us.div_ceil(100);
                anyhow::ensure!(units < 1 << 12, "step {i}: a wait of {us} us is longer than 409.5 ms (split it)");
                if units > 0 {
                    w.push(op::WAIT << 12 | units as u16);
                }
            }
            Step::Pin(v) => w.push(op::PIN << 12 | *v as u16),
        }
    }
    w.push(op::END << 12);
    Ok(w)
}

impl<const A: usize> Logic for I2cInit<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, st, pc, tq, phase, shift, nbit, wunits, wcyc, skip, scl_q, sda_q, pin_q, n_nack);
        self.st.reset.next = self.reset.val();
        self.pc.reset.next = self.reset.val();
        self.tq.reset.next = self.reset.val();
        self.phase.reset.next = self.reset.val();
        self.shift.reset.next = self.reset.val();
        self.nbit.reset.next = self.reset.val();
        self.wunits.reset.next = self.reset.val();
        self.wcyc.reset.next = self.reset.val();
        self.skip.reset.next = self.reset.val();
        self.scl_q.reset.next = self.reset.val();
        self.sda_q.reset.next = self.reset.val();
        self.pin_q.reset.next = self.reset.val();
        self.n_nack.reset.next = self.reset.val();

        self.rom.address.next = self.pc.q.val();
        self.word.next = self.rom.data.val();
        self.code.next = self.word.val().get_bits::<4>(12);
        self.arg.next = self.word.val().get_bits::<12>(0);
        // The quarter-period tick; it waits while SCL is released but held
        // low by a target (stretching).
        self.tick.next = false;
        if self.tq.q.val() == self.quarter.val() {
            self.tq.d.next = 0.into();
            self.tick.next = true;
        } else {
            self.tq.d.next = self.tq.q.val() + 1;
        }
        if !self.scl_q.q.val() & !self.scl_in.val() {
            self.tq.d.next = self.tq.q.val();
            self.tick.next = false;
        }

        match self.st.q.val() {
            Ist::Fetch => {
                self.tq.d.next = 0.into();
                self.phase.d.next = 0.into();
                if self.code.val() == 0 {
                    self.st.d.next = Ist::Done;
                } else if self.skip.q.val() {
                    // Skip the cut transaction, its STOP included.
                    self.pc.d.next = self.pc.q.val() + 1;
                    if self.code.val() == 3 {
                        self.skip.d.next = false;
                    }
                } else if self.code.val() == 1 {
                    self.st.d.next = Ist::Start;
                    self.shift.d.next = self.arg.val().get_bits::<8>(0);
                } else if self.code.val() == 2 {
                    self.st.d.next = Ist::Byte;
                    self.shift.d.next = self.arg.val().get_bits::<8>(0);
                    self.nbit.d.next = 0.into();
                } else if self.code.val() == 3 {
                    self.st.d.next = Ist::Stop;
                } else if self.code.val() == 4 {
                    self.st.d.next = Ist::Wait;
                    self.wunits.d.next = self.arg.val();
                    self.wcyc.d.next = self.unit.val();
                } else {
                    self.pin_q.d.next = self.arg.val().get_bit(0);
                    self.pc.d.next = self.pc.q.val() + 1;
                }
            }
            Ist::Start => {
                // Both lines released, SDA falls, SCL falls.
                if self.tick.val() {
                    self.phase.d.next = self.phase.q.val() + 1;
                    if self.phase.q.val() == 0 {
                        self.scl_q.d.next = false;
                        self.sda_q.d.next = false;
                    }
                    if self.phase.q.val() == 1 {
                        self.sda_q.d.next = true;
                    }
                    if self.phase.q.val() == 2 {
                        self.scl_q.d.next = true;
                        self.phase.d.next = 0.into();
                        self.nbit.d.next = 0.into();
                        self.st.d.next = Ist::Byte;
                    }
                }
            }
            Ist::Byte => {
                if self.tick.val() {
                    self.phase.d.next = self.phase.q.val() + 1;
                    if self.phase.q.val() == 0 {
                        // SDA for this bit (released for the ACK).
                        self.sda_q.d.next = !self.shift.q.val().get_bit(7) & (self.nbit.q.val() != 8);
                    }
                    if self.phase.q.val() == 1 {
                        self.scl_q.d.next = false;
                    }
                    if self.phase.q.val() == 2 {
                        self.shift.d.next = self.shift.q.val() << 1;
                        if (self.nbit.q.val() == 8) & self.sda_in.val() {
                            // NACK: cut the transaction.
                            self.skip.d.next = true;
                            if self.n_nack.q.val() != 255 {
                                self.n_nack.d.next = self.n_nack.q.val() + 1;
                            }
                        }
                    }
                    if self.phase.q.val() == 3 {
                        self.scl_q.d.next = true;
                        self.phase.d.next = 0.into();
                        self.nbit.d.next = self.nbit.q.val() + 1;
                        if self.nbit.q.val() == 8 {
                            self.nbit.d.next = 0.into();
                            if self.skip.q.val() {
                                self.st.d.next = Ist::Stop;
                            } else {
                                self.pc.d.next = self.pc.q.val() + 1;
                                self.st.d.next = Ist::Fetch;
                            }
                        }
                    }
                }
            }
            Ist::Stop => {
                // SDA low while SCL is low, SCL released, SDA released.
                if self.tick.val() {
                    self.phase.d.next = self.phase.q.val() + 1;
                    if self.phase.q.val() == 0 {
                        self.sda_q.d.next = true;
                    }
                    if self.phase.q.val() == 1 {
                        self.scl_q.d.next = false;
                    }
                    if self.phase.q.val() == 2 {
                        self.sda_q.d.next = false;
                    }
                    if self.phase.q.val() == 3 {
                        self.phase.d.next = 0.into();
                        self.st.d.next = Ist::Fetch;
                        // A cut transaction goes on skipping from the word
                        // after the cut byte; a programmed STOP is done.
                        self.pc.d.next = self.pc.q.val() + 1;
                    }
                }
            }
            Ist::Wait => {
                if self.wcyc.q.val() == 0 {
                    self.wcyc.d.next = self.unit.val();
                    self.wunits.d.next = self.wunits.q.val() - 1;
                    if self.wunits.q.val() == 1 {
                        self.pc.d.next = self.pc.q.val() + 1;
                        self.st.d.next = Ist::Fetch;
                    }
                } else {
                    self.wcyc.d.next = self.wcyc.q.val() - 1;
                }
            }
            Ist::Done => {}
        }
        self.scl_low.next = self.scl_q.q.val();
        self.sda_low.next = self.sda_q.q.val();
        self.pin.next = self.pin_q.q.val();
        self.done.next = self.st.q.val() == Ist::Done;
        self.nacks.next = self.n_nack.q.val();
    }
}

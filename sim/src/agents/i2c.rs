//! An I2C target on an open-drain bus, written from the I2C-bus
//! specification (NXP UM10204 rev. 7, 3.1): for testing a controller such
//! as `ts_i2c_init`. It watches the lines once per clock cycle: START (SDA
//! falls while SCL is high), STOP (SDA rises while SCL is high), a data bit
//! on each SCL rise (MSB first), the acknowledge in the ninth clock, which it
//! gives (SDA low from the eighth fall to the ninth) to the addresses it
//! answers and to their data bytes up to a limit. It can stretch the clock
//! (hold SCL low for a while after each fall, 3.1.9). It records every
//! transaction and every protocol error it sees (a START or STOP inside a
//! byte, a transaction without its STOP).
use crate::harness::tb::Agent;
use crate::harness::verilator::{Model, Port};
use anyhow::Result;

/// A write transaction as the target saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Txn {
    /// The 7-bit address.
    pub addr: u8,
    /// The R/W bit was 1 (a read; this target answers writes only).
    pub read: bool,
    /// The data bytes received (a byte the target did not acknowledge is
    /// included: it was on the bus).
    pub bytes: Vec<u8>,
    /// The address was acknowledged.
    pub acked: bool,
}

/// The target (module docs). Port names: the controller's `scl_low`,
/// `sda_low` (outputs, pull low) and `scl_in`, `sda_in` (inputs).
pub struct I2cTarget {
    ports: [Port; 4],
    /// Addresses answered, and how many data bytes each acknowledges
    /// (`usize::MAX`: all).
    pub answers: Vec<(u8, usize)>,
    /// Cycles SCL is held low after each of its falls (0: no stretching).
    pub stretch: u32,
    prev_scl: bool,
    prev_sda: bool,
    /// Bits of the current byte seen (0..=8), and 9 during the ACK clock.
    bits: u8,
    byte: u8,
    /// The next byte is an address byte (a START came last).
    addr_next: bool,
    /// SDA at the last SCL rise, until SCL falls.
    sampled: Option<bool>,
    ack_drive: bool,
    hold: u32,
    cur: Option<Txn>,
    /// Data bytes the current transaction may still have acknowledged.
    left: usize,
    /// Completed transactions, in order.
    pub txns: Vec<Txn>,
    /// Protocol errors, with their cycle.
    pub errors: Vec<String>,
    /// Cycles of every SCL rise.
    pub scl_rises: Vec<u64>,
    /// The lines as resolved in the last cycle.
    pub scl: bool,
    pub sda: bool,
}

impl I2cTarget {
    /// A target on `m`'s controller ports, answering `answers`.
    pub fn new(m: &Model, answers: &[(u8, usize)]) -> Result<I2cTarget> {
        let ports = [m.port("scl_low")?, m.port("sda_low")?, m.port("scl_in")?, m.port("sda_in")?];
        Ok(I2cTarget {
            ports,
            answers: answers.to_vec(),
            stretch: 0,
            prev_scl: true,
            prev_sda: true,
            bits: 0,
            byte: 0,
            addr_next: false,
            sampled: None,
            ack_drive: false,
            hold: 0,
            cur: None,
            left: 0,
            txns: vec![],
            errors: vec![],
            scl_rises: vec![],
            scl: true,
            sda: true,
        })
    }

    /// The bus is idle: no transaction open.
    pub fn quiet(&self) -> bool {
        self.cur.is_none()
    }
}

impl Agent for I2cTarget {
    fn drive(&mut self, m: &mut Model, cycle: u64) {
        let [scl_low, sda_low, scl_in, sda_in] = self.ports;
        let scl = !(m.get(&scl_low) != 0 || self.hold > 0);
        let sda = !(m.get(&sda_low) != 0 || self.ack_drive);
        if scl && self.prev_scl && sda != self.prev_sda {
            if (1..=8).contains(&self.bits) {
                self.errors.push(format!("cycle {cycle}: {} after {} bits of a byte", if sda { "STOP" } else { "START" }, self.bits));
            }
            if let Some(t) = self.cur.take() {
                if sda {
                    self.txns.push(t);
                } else {
                    self.errors.push(format!("cycle {cycle}: a repeated START (the controller writes only)"));
                    self.txns.push(t);
                }
            }
            if !sda {
                // START: an address byte follows.
                self.cur = Some(Txn { addr: 0, read: false, bytes: vec![], acked: false });
                self.addr_next = true;
            }
            self.bits = 0;
            self.byte = 0;
            self.sampled = None;
        } else if scl && !self.prev_scl {
            self.scl_rises.push(cycle);
            // A bit is SDA while SCL is high; it counts once SCL falls again
            // (the SCL rise of a STOP carries none).
            self.sampled = Some(sda);
        } else if !scl && self.prev_scl {
            self.hold = self.stretch;
            if let Some(b) = self.sampled.take() {
                if self.cur.is_some() && self.bits < 8 {
                    self.byte = self.byte << 1 | b as u8;
                    self.bits += 1;
                }
            }
            if self.bits == 8 {
                let b = self.byte;
                if let Some(t) = self.cur.as_mut() {
                    if self.addr_next {
                        self.addr_next = false;
                        t.addr = b >> 1;
                        t.read = b & 1 == 1;
                        let ans = self.answers.iter().find(|(a, _)| *a == t.addr);
                        t.acked = ans.is_some() && !t.read;
                        self.left = ans.map_or(0, |a| a.1);
                        self.ack_drive = t.acked;
                    } else {
                        t.bytes.push(b);
                        self.ack_drive = t.acked && self.left > 0;
                        self.left = self.left.saturating_sub(1);
                    }
                }
                self.bits = 9;
            } else if self.bits == 9 {
                self.ack_drive = false;
                self.bits = 0;
                self.byte = 0;
            }
        } else if self.hold > 0 {
            self.hold -= 1;
        }
        // The edges of the next cycle are against the lines as they were
        // at this one's start; the controller reads them with this
        // cycle's changes of the target (an ACK, a stretch) in.
        self.prev_scl = scl;
        self.prev_sda = sda;
        self.scl = !(m.get(&scl_low) != 0 || self.hold > 0);
        self.sda = !(m.get(&sda_low) != 0 || self.ack_drive);
        m.set(&scl_in, self.scl as u64);
        m.set(&sda_in, self.sda as u64);
    }

    fn sample(&mut self, _m: &Model, _cycle: u64) {}

    fn idle(&self) -> bool {
        self.cur.is_none()
    }
}

//! Cycle-level golden models of `ts_meter_bank` and `ts_port_mode`
//! (`hdl/src/tm/meter.rs`; `docs/trimming.md`, "Meter bank and port mode:
//! implementation"). Each model is a set of registers with one
//! [`MeterBankModel::clock`] / [`PortModeModel::clock`] per rising edge, taking
//! the inputs of that cycle; its getters are the outputs of the current cycle
//! (both blocks register every output). The arithmetic is the specification's
//! (`min(L - charged + R, C)` on plain integers), not the RTL's threshold form,
//! so the differential tests check one against the other.
use trimswitch_hdl::tm::meter::mode;

/// Fractional bits of a rate and of a bucket level.
pub const FRAC: u32 = trimswitch_hdl::tm::meter::FRAC_BITS as u32;

/// One meter request (`req_port`, `req_bytes`, `req_mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeterReq {
    /// Egress port; `>= ports` is out of range (not green, nothing charged).
    pub port: u8,
    /// Wire bytes.
    pub bytes: u16,
    /// The port's mode (0 optimistic, 1 halftimistic, 2 or 3 pessimistic).
    pub mode: u8,
}

/// The inputs of `ts_meter_bank` in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeterInputs {
    pub reset: bool,
    /// `rate_<k>`: 16.16 bytes per cycle.
    pub rate: [u32; 3],
    /// `burst_<k>`: bytes (24 bits).
    pub burst: [u32; 3],
    /// `req_valid` with the request.
    pub req: Option<MeterReq>,
    /// `clr_green_pkts_<p>` (bit p).
    pub clr_green: u64,
    /// `clr_not_green_pkts_<p>` (bit p).
    pub clr_not_green: u64,
}

/// The meter kind a mode selects (3 counts as pessimistic).
pub fn kind_of(mode: u8) -> usize {
    match mode {
        mode::OPTIMISTIC => 0,
        mode::HALFTIMISTIC => 1,
        _ => 2,
    }
}

/// `ts_meter_bank` with `ports` egress ports.
#[derive(Clone, Debug)]
pub struct MeterBankModel {
    ports: usize,
    /// `(rate, burst)` of the previous cycle and of the one before.
    cfg1: ([u32; 3], [u32; 3]),
    cfg2: ([u32; 3], [u32; 3]),
    /// The request registered last cycle, decided this cycle.
    stage: Option<MeterReq>,
    /// Bucket levels, 24.16 bytes, `level[p][k]`.
    level: Vec<[u64; 3]>,
    resp: Option<bool>,
    green: Vec<u32>,
    not_green: Vec<u32>,
}

impl MeterBankModel {
    /// A model in an arbitrary state (empty buckets, zero rates): reset it
    /// first, as the hardware must be.
    pub fn new(ports: usize) -> MeterBankModel {
        MeterBankModel {
            ports,
            cfg1: Default::default(),
            cfg2: Default::default(),
            stage: None,
            level: vec![[0; 3]; ports],
            resp: None,
            green: vec![0; ports],
            not_green: vec![0; ports],
        }
    }

    /// Number of egress ports.
    pub fn ports(&self) -> usize {
        self.ports
    }

    /// `resp_valid` / `resp_green` this cycle: `Some(green)` when valid.
    pub fn resp(&self) -> Option<bool> {
        self.resp
    }

    /// `green_pkts_<p>` this cycle.
    pub fn green_pkts(&self, p: usize) -> u32 {
        self.green[p]
    }

    /// `not_green_pkts_<p>` this cycle.
    pub fn not_green_pkts(&self, p: usize) -> u32 {
        self.not_green[p]
    }

    /// Level of port `p`'s kind-`k` bucket (24.16 bytes) this cycle.
    pub fn level(&self, p: usize, k: usize) -> u64 {
        self.level[p][k]
    }

    /// One rising edge with the inputs `i` of the current cycle.
    ///
    /// - Reset: every bucket full at `i.burst`, no request in flight, no
    ///   answer, counters zero.
    /// - Otherwise the request registered last cycle is decided against the
    ///   current levels: each of its port's three meters with `L >= bytes`
    ///   is charged `bytes`; the answer is the verdict of the meter its mode
    ///   selects. Then every bucket becomes `min(L - charged + R, C)` with
    ///   the rate and burst of two cycles ago.
    /// - The rate/burst pipeline shifts and the request of this cycle is
    ///   registered (reset or not: during reset the request is dropped).
    pub fn clock(&mut self, i: &MeterInputs) {
        if i.reset {
            for l in &mut self.level {
                for (v, b) in l.iter_mut().zip(&i.burst) {
                    *v = (*b as u64) << FRAC;
                }
            }
            self.stage = None;
            self.resp = None;
            self.green.iter_mut().for_each(|c| *c = 0);
            self.not_green.iter_mut().for_each(|c| *c = 0);
        } else {
            let (rate, burst) = self.cfg2;
            let mut charged = [0u64; 3];
            let mut target = None;
            self.resp = None;
            if let Some(r) = self.stage {
                let p = r.port as usize;
                let mut green = false;
                if p < self.ports {
                    let need = (r.bytes as u64) << FRAC;
                    let conform: [bool; 3] = std::array::from_fn(|k| self.level[p][k] >= need);
                    charged = conform.map(|c| if c { need } else { 0 });
                    target = Some(p);
                    green = conform[kind_of(r.mode)];
                    if green {
                        self.green[p] = self.green[p].wrapping_add(1);
                    } else {
                        self.not_green[p] = self.not_green[p].wrapping_add(1);
                    }
                }
                self.resp = Some(green);
            }
            for (p, l) in self.level.iter_mut().enumerate() {
                for k in 0..3 {
                    let c = if target == Some(p) { charged[k] } else { 0 };
                    let cap = (burst[k] as u64) << FRAC;
                    l[k] = (l[k] - c + rate[k] as u64).min(cap);
                }
            }
            self.stage = i.req;
            for p in 0..self.ports {
                if i.clr_green >> p & 1 == 1 {
                    self.green[p] = 0;
                }
                if i.clr_not_green >> p & 1 == 1 {
                    self.not_green[p] = 0;
                }
            }
        }
        self.cfg2 = self.cfg1;
        self.cfg1 = (i.rate, i.burst);
    }
}

/// `ts_port_mode` with `ports` egress ports.
#[derive(Clone, Debug)]
pub struct PortModeModel {
    mode: Vec<u8>,
    /// Cycles left in the current timed phase, this one included.
    left: Vec<u32>,
    cycles: Vec<[u32; 3]>,
    notifies: Vec<u32>,
}

impl PortModeModel {
    /// A model just after reset: every port optimistic.
    pub fn new(ports: usize) -> PortModeModel {
        PortModeModel { mode: vec![mode::OPTIMISTIC; ports], left: vec![0; ports], cycles: vec![[0; 3]; ports], notifies: vec![0; ports] }
    }

    /// `mode_<p>` this cycle.
    pub fn mode(&self, p: usize) -> u8 {
        self.mode[p]
    }

    /// `cycles_opt_<p>`, `cycles_half_<p>`, `cycles_pess_<p>` this cycle (by mode value).
    pub fn cycles(&self, p: usize) -> [u32; 3] {
        self.cycles[p]
    }

    /// `notifies_<p>` this cycle.
    pub fn notifies(&self, p: usize) -> u32 {
        self.notifies[p]
    }

    /// One rising edge with this cycle's inputs. A notify enters the first
    /// non-empty phase of (pessimistic for `t0`, halftimistic for `t1`,
    /// optimistic); a timed phase ends after its count of cycles and moves to
    /// the next non-empty one. `clr[p]` holds port `p`'s counter clears: bit
    /// 0/1/2 `clr_cycles_opt/half/pess`, bit 3 `clr_notifies` (empty = none).
    pub fn clock(&mut self, reset: bool, notify: &[bool], clr: &[u8], t0: u32, t1: u32) {
        if reset {
            *self = PortModeModel::new(self.mode.len());
            return;
        }
        // `p` indexes the per-port modes, timers, counters and notifies alike.
        #[allow(clippy::needless_range_loop)]
        for p in 0..self.mode.len() {
            self.cycles[p][self.mode[p] as usize] = self.cycles[p][self.mode[p] as usize].wrapping_add(1);
            let enter_half = |m: &mut u8, l: &mut u32| {
                if t1 > 0 {
                    (*m, *l) = (mode::HALFTIMISTIC, t1);
                } else {
                    (*m, *l) = (mode::OPTIMISTIC, 0);
                }
            };
            if notify[p] {
                self.notifies[p] = self.notifies[p].wrapping_add(1);
            }
            let c = clr.get(p).copied().unwrap_or(0);
            for k in 0..3 {
                if c >> k & 1 == 1 {
                    self.cycles[p][k] = 0;
                }
            }
            if c & 8 != 0 {
                self.notifies[p] = 0;
            }
            if notify[p] {
                if t0 > 0 {
                    (self.mode[p], self.left[p]) = (mode::PESSIMISTIC, t0);
                } else {
                    enter_half(&mut self.mode[p], &mut self.left[p]);
                }
                continue;
            }
            match self.mode[p] {
                mode::PESSIMISTIC => {
                    self.left[p] -= 1;
                    if self.left[p] == 0 {
                        enter_half(&mut self.mode[p], &mut self.left[p]);
                    }
                }
                mode::HALFTIMISTIC => {
                    self.left[p] -= 1;
                    if self.left[p] == 0 {
                        self.mode[p] = mode::OPTIMISTIC;
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bank_charges_all_conforming_meters() {
        let mut m = MeterBankModel::new(2);
        let i = MeterInputs { reset: true, burst: [1000, 1000, 500], ..Default::default() };
        m.clock(&i);
        m.clock(&i);
        let run = |m: &mut MeterBankModel, bytes: u16, mode: u8| {
            let req = MeterInputs { req: Some(MeterReq { port: 1, bytes, mode }), reset: false, ..i };
            m.clock(&req);
            m.clock(&MeterInputs { reset: false, ..i });
            m.resp()
        };
        // Opt and half (1000) pass 600 and are charged; pess (500) does not and is not.
        assert_eq!(run(&mut m, 600, 0), Some(true));
        assert_eq!(m.level(1, 0), 400 << FRAC);
        assert_eq!(m.level(1, 2), 500 << FRAC);
        // Each meter follows its own verdict: pess (500) passes 450, opt and half (400) do not.
        assert_eq!(run(&mut m, 450, 2), Some(true));
        assert_eq!([m.level(1, 0), m.level(1, 1), m.level(1, 2)], [400 << FRAC, 400 << FRAC, 50 << FRAC]);
        assert_eq!(run(&mut m, 400, 1), Some(true));
        assert_eq!(run(&mut m, 100, 2), Some(false));
        assert_eq!([m.level(1, 0), m.level(1, 1), m.level(1, 2)], [0, 0, 50 << FRAC]);
        assert_eq!(m.level(0, 0), 1000 << FRAC);
        assert_eq!((m.green_pkts(1), m.not_green_pkts(1)), (3, 1));
    }

    #[test]
    fn mode_phases() {
        let mut m = PortModeModel::new(1);
        m.clock(false, &[true], &[], 2, 3);
        let seq: Vec<u8> = (0..7)
            .map(|_| {
                let x = m.mode(0);
                m.clock(false, &[false], &[], 2, 3);
                x
            })
            .collect();
        assert_eq!(seq, [2, 2, 1, 1, 1, 0, 0]);
    }
}

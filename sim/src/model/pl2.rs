//! Golden model of the PL2 reservation ALU `ts_pl2_alu`, written from the
//! specification (`PL2-PROTEGO.md` part A, sections A.1-A.6, A.9 and C, in the
//! shared design notes beside `DESIGN.md`) and the PL2 paper (seed 003: §4.1.1
//! Algorithm 1, §4.2, §4.4, §4.5, §5). There is no RTL yet; this model is what
//! it will be held to.
//!
//! The model works on operations, not bytes: the parser has already put
//! `pl2_kind`, `pl2_demand`, `pl2_src` and `pl2_dst` into the PHV
//! (`hdl/src/ingress/phv.rs`; frame format in `docs/protocols.md`, "PL2
//! reservation frames"), classify has marked unsolicited data, and lookup
//! has chosen the data packet's `dest_port`. One [`Op`] is one packet reaching
//! the ALU.
//!
//! - [`Pl2Config`]: the run-time registers (`CTRL` mode, `K`, `T`,
//!   `SLOT_CYCLES`, `SLOT_RUN`, `PORT_EN`) and the build-time port count;
//! - [`Pl2Model`]: the state (`IN_RES[p]`, `OUT_RES[p]`, `SLOT_NOW`, high-water
//!   marks), the operations ([`Pl2Model::rsv`], [`Pl2Model::grt_from_host`],
//!   [`Pl2Model::data`], [`Pl2Model::unsol`], [`Pl2Model::tick`]) and the multi-pipeline clock [`Pl2Model::cycle`];
//! - [`Pl2Counters`]: one counter per row of A.3 and per drop reason.
//!
//! Three modes ([`Pl2Mode`]):
//! - **Paper** (A.3): Algorithm 1 of §4.1.1 literally, with the unsolicited
//!   drop rule of §4.4 and saturating counters;
//! - **Joint** (A.5): the FPGA's version of the §4.2 wish, with absolute slot
//!   numbers against a slot clock `now`, kept as backlogs (slots ahead of
//!   `now`);
//! - **JointWithDecrements**: the literal §4.2 "max(inReservation,
//!   outReservation)" with Algorithm 1's per-packet decrements. It is a mutant
//!   kept to show the leak of vector J2; do not build it.
//!
//! Not modelled: the RTL's timing (the at most 2 added cycles of A.9, the
//! RSV→GRT latency min/max registers, the `TmAdmit` hold cycles, which
//! [`Pl2Counters::serialized`] stands in for), the frame rewrite of A.2 (MACs,
//! `dest_port`, `prio`), and `DSCP_PL2_UNSOL` (classify's business: the model
//! gets [`Op::Unsol`] already marked).
use std::collections::BTreeMap;

/// 1.0 in the 16.16 fixed point of [`Pl2Config::slot_cycles`].
pub const SLOT_ONE: u32 = 1 << 16;

/// `SLOT_CYCLES` for 100G at 322.27 MHz: one 1500-byte MTU at line rate is
/// 120 ns (003 §4.1 fn 4) = 38.67 cycles, i.e. `round(38.67 * 65536)` in 16.16
/// (A.1). It is 38.66999817 cycles, so after `n` ticks `now` is
/// `floor(n / 38.67)` for every `n` below 38 670, and
/// `floor(n * 65536 / 2534277)` always.
pub const SLOT_CYCLES_100G: u32 = 2_534_277;

/// The bound `SLOT_CYCLES` stays below: 16384 cycles per slot (the ALU keeps
/// the slot fraction in 32 bits). A 1500-byte slot at 1 Gb/s and 322 MHz
/// is 3 867 cycles.
pub const SLOT_CYCLES_LIMIT: u32 = 1 << 30;

/// `SLOT_CYCLES` for 10G at 200 MHz: 1.2 µs = 240 cycles (A.1).
pub const SLOT_CYCLES_10G: u32 = 240 << 16;

/// Largest number of ports (003 §5: 64-entry register arrays).
pub const MAX_PORTS: usize = 64;

/// Default `K`, the most slots one RSV may reserve (003 §4.3, §6.1, fn 6).
pub const DEFAULT_K: u32 = 4;

/// Default `T`, the switch's unsolicited drop threshold (A.4: covers 12
/// senders per port with t = 15 and K = 4; the paper only says "T >> t").
pub const DEFAULT_T: u32 = 64;

/// `a >= b` on slot numbers modulo 2³² (A.5): `(a - b) mod 2³² < 2³¹`.
pub fn slot_ge(a: u32, b: u32) -> bool {
    a.wrapping_sub(b) < 1 << 31
}

/// The ALU's mode (`CTRL`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pl2Mode {
    /// A.3: 003 §4.1.1 Algorithm 1 (RSV l.8-11, DATA l.14-15), the §4.4
    /// unsolicited rule, counters saturating at 0 and at 2³²−1.
    #[default]
    Paper,
    /// A.5, the FPGA joint mode: `s = max(now, in[src], out[dst])`,
    /// `in[src] = out[dst] = s + d`, the GRT carries `s − now` twice; DATA
    /// changes nothing; UNSOL drops when `max(now, in, out) − now > T`.
    ///
    /// **Decision** (`docs/pl2.md`): each counter is kept as its backlog `b =
    /// v − now`, the slots it holds ahead of the slot clock, and every slot
    /// tick takes one off every nonzero backlog. Then `s − now = max(b_in,
    /// b_out)`, an RSV sets both to that plus `d` (saturating, counted), and
    /// no compare is modular. It is the specification's absolute design with
    /// its background scrub done for every counter in every cycle: a slot in
    /// the past never holds a reservation, and no counter can drift 2³¹
    /// slots behind and look ahead again. `IN_RES`/`OUT_RES` read `now + b`;
    /// a host write of `v` stores `v − now` if `v` is ahead (modulo 2³²),
    /// else 0.
    Joint,
    /// The mutant of vector J2: §4.2's literal `s = max(in[src], out[dst])`,
    /// `in[src] = out[dst] = s + d`, the GRT carries `s` twice, with paper-mode
    /// DATA and UNSOL (per-packet decrements). It leaks `s − in[src]` slots into
    /// the input counter on every RSV whose output was busier than its input.
    JointWithDecrements,
}

/// The ALU's registers (A.9) and its port count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pl2Config {
    /// Number of ports (build time), 1..=64; ports `>= ports` are invalid.
    pub ports: usize,
    /// `K`: most slots one RSV reserves; larger demands are clamped (1..=255,
    /// the RSV's `demand` field is one byte).
    pub k: u32,
    /// `T`: unsolicited bursts are dropped when the reservation ahead of them
    /// is above `T` slots (003 §4.4; A.4). Below 2³¹, for joint mode's
    /// modular compare.
    pub t_drop: u32,
    /// `CTRL` mode.
    pub mode: Pl2Mode,
    /// `PORT_EN`: bit `p` set = PL2 on at port `p`. Bits at or above `ports`
    /// must be zero. A port with PL2 off has its counters neither read nor
    /// changed by traffic (003 Alg. 1 l.14-15 "if PL2 is on at that port", A.3).
    pub port_en: u64,
    /// `SLOT_CYCLES`: clock cycles per slot, 16.16 fixed point, at least 1.0
    /// ([`SLOT_ONE`]) and below [`SLOT_CYCLES_LIMIT`]; see
    /// [`SLOT_CYCLES_100G`], [`SLOT_CYCLES_10G`].
    pub slot_cycles: u32,
    /// `SLOT_RUN`: the slot clock `now` advances; when false it is frozen
    /// (a test hook, A.5).
    pub slot_run: bool,
}

impl Default for Pl2Config {
    /// The paper's switch: 64 ports all with PL2 on, K = 4, T = 64, paper
    /// mode, the 100G slot clock running.
    fn default() -> Pl2Config {
        Pl2Config {
            ports: MAX_PORTS,
            k: DEFAULT_K,
            t_drop: DEFAULT_T,
            mode: Pl2Mode::Paper,
            port_en: u64::MAX,
            slot_cycles: SLOT_CYCLES_100G,
            slot_run: true,
        }
    }
}

impl Pl2Config {
    /// Checks every value; the error names the register and the allowed range.
    pub fn validate(&self) -> Result<(), String> {
        if self.ports == 0 || self.ports > MAX_PORTS {
            return Err(format!("pl2.ports = {}: must be 1..={MAX_PORTS}", self.ports));
        }
        if self.k == 0 || self.k > 255 {
            return Err(format!("pl2.k = {}: must be 1..=255 (the RSV demand field is one byte)", self.k));
        }
        if self.t_drop >= 1 << 31 {
            return Err(format!("pl2.t_drop = {}: must be below 2^31 (joint mode compares slots modulo 2^32)", self.t_drop));
        }
        if self.slot_cycles < SLOT_ONE {
            return Err(format!(
                "pl2.slot_cycles = {:#x}: must be at least 1.0 (0x10000 in 16.16): the slot clock steps at most once per cycle",
                self.slot_cycles
            ));
        }
        if self.slot_cycles >= SLOT_CYCLES_LIMIT {
            return Err(format!(
                "pl2.slot_cycles = {:#x}: must be below 16384.0 (0x4000_0000 in 16.16; the ALU's slot fraction is 32 bits)",
                self.slot_cycles
            ));
        }
        let valid = if self.ports == MAX_PORTS { u64::MAX } else { (1u64 << self.ports) - 1 };
        if self.port_en & !valid != 0 {
            return Err(format!("pl2.port_en = {:#x}: bits set at or above ports ({})", self.port_en, self.ports));
        }
        Ok(())
    }
}

/// An RSV as the ALU sees it (`pl2_kind` 1, well formed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rsv {
    /// The physical port the RSV arrived on: the source the ALU uses.
    pub ingress_port: u8,
    /// The RSV's `src_port` field: only compared with `ingress_port` (A.3).
    pub src_port: u8,
    /// The RSV's `dst_port` field.
    pub dst_port: u8,
    /// The RSV's `demand` field, in slots.
    pub demand: u8,
    /// The RSV's `cookie`, echoed in the GRT (the RTL leaves it in place when
    /// it rewrites the RSV into its GRT, A.2).
    pub cookie: u32,
}

/// One packet reaching the ALU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A reservation request (A.3 row 1).
    Rsv(Rsv),
    /// A GRT sent by a host (A.3 row 2): always dropped.
    GrtFromHost,
    /// A data packet from `src` (ingress port) to `dst` (lookup's
    /// `dest_port`), not PL2, not Protego control, not PFC (A.3 row 3).
    Data {
        /// Ingress port.
        src: u8,
        /// Egress port.
        dst: u8,
    },
    /// A data packet marked unsolicited (A.3 row 4, A.4).
    Unsol {
        /// Ingress port.
        src: u8,
        /// Egress port.
        dst: u8,
    },
}

/// The GRT an RSV becomes (A.2, A.3; `docs/protocols.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    /// Slots granted: the RSV's demand clamped to `K`.
    pub demand: u8,
    /// `send_timeslot`: paper mode `in[src]` before the RSV (Alg. 1 l.8);
    /// joint mode `s − now`; mutant `s`.
    pub send: u32,
    /// `recv_timeslot`: paper mode `out[dst]` before the RSV (Alg. 1 l.10);
    /// joint modes the same value as `send`.
    pub recv: u32,
    /// The RSV's cookie.
    pub cookie: u32,
    /// The port the GRT leaves by: the RSV's ingress port.
    pub out_port: u8,
}

/// Why the ALU dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// An RSV arrived on a port that does not exist or has PL2 off.
    DisabledIngress,
    /// An RSV's `dst_port` does not exist or has PL2 off (`bad_port`).
    BadPort,
    /// An RSV with demand 0.
    DemandZero,
    /// A GRT sent by a host.
    GrtFromHost,
    /// An unsolicited packet found more than `T` slots reserved ahead of it.
    UnsolOverT,
}

impl DropReason {
    /// The counter ([`Pl2Counters::list`]) this drop increments.
    pub fn counter(self) -> &'static str {
        match self {
            DropReason::DisabledIngress => "rsv_disabled_ingress",
            DropReason::BadPort => "rsv_bad_port",
            DropReason::DemandZero => "rsv_demand_zero",
            DropReason::GrtFromHost => "grt_from_host",
            DropReason::UnsolOverT => "unsol_drop",
        }
    }
}

/// What the ALU did with one [`Op`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The RSV became this GRT.
    Grant(Grant),
    /// The data packet goes on to the traffic manager.
    Pass,
    /// The packet is dropped.
    Drop(DropReason),
}

/// The ALU's counters (A.9: one per row of A.3 and per drop reason). Every
/// RSV lands in `rsv_pkts` and in exactly one of `rsv_ok`,
/// `rsv_disabled_ingress`, `rsv_bad_port`, `rsv_demand_zero`; every UNSOL in
/// exactly one of `unsol_pass`, `unsol_drop`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pl2Counters {
    /// RSVs seen.
    pub rsv_pkts: u64,
    /// RSVs granted (turned into a GRT).
    pub rsv_ok: u64,
    /// Granted RSVs whose demand was above `K` and was clamped to `K`.
    pub rsv_demand_clamped: u64,
    /// Granted RSVs whose `src_port` field differs from the ingress port (the
    /// ingress port was used).
    pub rsv_src_mismatch: u64,
    /// RSVs dropped: arrived on a non-existent or PL2-disabled port.
    pub rsv_disabled_ingress: u64,
    /// RSVs dropped: `dst_port` non-existent or PL2-disabled.
    pub rsv_bad_port: u64,
    /// RSVs dropped: demand 0.
    pub rsv_demand_zero: u64,
    /// GRTs from hosts, dropped.
    pub grt_from_host: u64,
    /// DATA packets seen (unsolicited ones not included).
    pub data_pkts: u64,
    /// DATA or UNSOL packets naming a port `>= ports` (that side is ignored).
    pub data_bad_port: u64,
    /// Counter decrements that took effect, from DATA and passing UNSOL
    /// (paper mode and mutant): up to two per packet.
    pub data_dec: u64,
    /// Decrements that found their counter at 0 and left it there, one per
    /// counter hit (a decision of A.3; vector P8).
    pub data_underflow: u64,
    /// UNSOL packets passed.
    pub unsol_pass: u64,
    /// UNSOL packets dropped (more than `T` slots ahead).
    pub unsol_drop: u64,
    /// Increments clamped at 2³²−1, one per counter hit (paper mode and mutant).
    pub saturate: u64,
    /// RSV or UNSOL ops of a [`Pl2Model::cycle`] that found an RSV or UNSOL of
    /// a lower rank on the same `out[dst]` in the same cycle: in the RTL
    /// these wait in `TmAdmit`'s hold (A.2).
    pub serialized: u64,
}

impl Pl2Counters {
    /// Every counter as (name, value), in a fixed order (the register map's).
    pub fn list(&self) -> [(&'static str, u64); 16] {
        [
            ("rsv_pkts", self.rsv_pkts),
            ("rsv_ok", self.rsv_ok),
            ("rsv_demand_clamped", self.rsv_demand_clamped),
            ("rsv_src_mismatch", self.rsv_src_mismatch),
            ("rsv_disabled_ingress", self.rsv_disabled_ingress),
            ("rsv_bad_port", self.rsv_bad_port),
            ("rsv_demand_zero", self.rsv_demand_zero),
            ("grt_from_host", self.grt_from_host),
            ("data_pkts", self.data_pkts),
            ("data_bad_port", self.data_bad_port),
            ("data_dec", self.data_dec),
            ("data_underflow", self.data_underflow),
            ("unsol_pass", self.unsol_pass),
            ("unsol_drop", self.unsol_drop),
            ("saturate", self.saturate),
            ("serialized", self.serialized),
        ]
    }
}

/// Applies a cycle's merged increments `incs` (paper-mode RSVs) and
/// decrements `decs` to `vals` at once, clamped to `0..=2³²−1`, and clears
/// them. A counter going below 0 takes the decrements it can (`data_dec`) and
/// counts the rest (`data_underflow`); one going above 2³²−1 stops there
/// (`saturate`, once per counter). **Decision:** the clamp applies to the
/// cycle's net change (the RTL adds `inc − dec` in one carry chain), so a
/// counter at 2³²−1 that gets an RSV and a DATA in one cycle ends at 2³²−1,
/// where clamping each change on its own would give 2³²−2. Only a host's
/// write gets a counter near 2³².
fn apply_changes(vals: &mut [u32], incs: &mut [u32], decs: &mut [u32], c: &mut Pl2Counters) {
    for ((v, i), d) in vals.iter_mut().zip(incs.iter_mut()).zip(decs.iter_mut()) {
        let t = *v as i64 + *i as i64 - *d as i64;
        if t > u32::MAX as i64 {
            *v = u32::MAX;
            c.saturate += 1;
            c.data_dec += *d as u64;
        } else if t < 0 {
            let took = *v as u64 + *i as u64;
            c.data_dec += took;
            c.data_underflow += *d as u64 - took;
            *v = 0;
        } else {
            *v = t as u32;
            c.data_dec += *d as u64;
        }
        *i = 0;
        *d = 0;
    }
}

/// The PL2 reservation ALU of one switch.
///
/// Two ways to drive it:
/// - one packet at a time ([`Pl2Model::apply`] and the per-kind methods): the
///   op runs alone and its decrements land at once; the slot clock only
///   moves when [`Pl2Model::tick`] is called;
/// - one clock cycle at a time ([`Pl2Model::cycle`]), as the RTL sees it,
///   with at most one op per pipeline.
///
/// Same-cycle semantics of [`Pl2Model::cycle`] (A.2, "Model order: (cycle,
/// rank)"), where the rank of an op is its pipeline's index:
/// - ops run in rank order; an RSV or UNSOL reads the start-of-cycle values
///   plus the increments of the RSVs of lower rank in the same cycle. This is
///   the model of A.2's serialisation: two RSV/UNSOL ops on one `out[d]` in a
///   cycle are applied lower rank first, and the later one sees the earlier
///   one's reservation (it is counted in [`Pl2Counters::serialized`]). In the
///   RTL the later one waits up to P−1 cycles in `TmAdmit`'s hold, so the RTL
///   never presents both in one cycle; a differential test must compare the
///   RTL's ALU-input sequence, not the traffic manager's;
/// - decrements (DATA, passing UNSOL) are merged per counter and land at the
///   end of the cycle, after every op of the cycle has read: no op sees a
///   decrement of its own cycle. A counter with `n` merged decrements and
///   value `v` ends at `v − min(n, v)` with `n − min(n, v)` underflows,
///   exactly what `n` single decrements give;
/// - a paper-mode UNSOL compares the counters at the start of the cycle two
///   before its own with `T` (a decision for the RTL's timing,
///   [`Pl2Model::unsol`]);
/// - then one [`Pl2Model::tick`]: every op of a cycle sees the same `now`;
///   the high-water marks follow the state after the tick.
#[derive(Clone, Debug)]
pub struct Pl2Model {
    cfg: Pl2Config,
    /// Paper mode and the mutant: the counters. Joint mode: each counter's
    /// backlog, the slots it holds ahead of `now` (A.5, see [`Pl2Mode::Joint`]).
    in_res: Vec<u32>,
    out_res: Vec<u32>,
    /// The state at the start of the cycle two before: what a paper-mode
    /// UNSOL compares with `T` (see [`Pl2Model::unsol`]).
    lag_in: Vec<u32>,
    lag_out: Vec<u32>,
    /// The state at the start of the previous cycle (the next cycle's `lag_*`).
    lag1_in: Vec<u32>,
    lag1_out: Vec<u32>,
    /// The slot clock `SLOT_NOW`.
    now: u32,
    /// Fraction of the current slot elapsed, 16.16 cycles, `< slot_cycles`.
    acc: u32,
    hw_in: Vec<u32>,
    hw_out: Vec<u32>,
    /// Decrements staged in the current cycle, per port.
    dec_in: Vec<u32>,
    dec_out: Vec<u32>,
    /// Paper mode: increments staged in the current cycle, per port.
    inc_in: Vec<u32>,
    inc_out: Vec<u32>,
    counters: Pl2Counters,
}

impl Pl2Model {
    /// A model after reset (all counters, `now` and the high-water marks 0),
    /// or the error of [`Pl2Config::validate`].
    pub fn new(cfg: Pl2Config) -> Result<Pl2Model, String> {
        cfg.validate()?;
        let n = cfg.ports;
        Ok(Pl2Model {
            cfg,
            in_res: vec![0; n],
            out_res: vec![0; n],
            lag_in: vec![0; n],
            lag_out: vec![0; n],
            lag1_in: vec![0; n],
            lag1_out: vec![0; n],
            now: 0,
            acc: 0,
            hw_in: vec![0; n],
            hw_out: vec![0; n],
            dec_in: vec![0; n],
            dec_out: vec![0; n],
            inc_in: vec![0; n],
            inc_out: vec![0; n],
            counters: Pl2Counters::default(),
        })
    }

    /// The current registers.
    pub fn config(&self) -> &Pl2Config {
        &self.cfg
    }

    /// Writes the registers (between ops). `ports` is a build-time value and
    /// cannot change. A new `slot_cycles` restarts the current slot (the
    /// fraction is cleared). A change of mode clears `IN_RES`/`OUT_RES`: a
    /// counter means a number of slots in paper mode and a backlog behind
    /// the slot clock in joint mode, so neither carries over (the host
    /// reloads them if it wants to). Counters and high-water marks are kept.
    pub fn set_config(&mut self, cfg: Pl2Config) -> Result<(), String> {
        cfg.validate()?;
        if cfg.ports != self.cfg.ports {
            return Err(format!("pl2.ports = {}: fixed at build time ({})", cfg.ports, self.cfg.ports));
        }
        if cfg.slot_cycles != self.cfg.slot_cycles {
            self.acc = 0;
        }
        if cfg.mode != self.cfg.mode {
            for v in [&mut self.in_res, &mut self.out_res, &mut self.lag_in, &mut self.lag_out, &mut self.lag1_in, &mut self.lag1_out] {
                v.iter_mut().for_each(|x| *x = 0);
            }
        }
        self.cfg = cfg;
        Ok(())
    }

    /// `IN_RES[p]` (0 for a port that does not exist, like an unmapped read):
    /// the counter; in joint mode the absolute next-free slot `now + backlog`.
    pub fn in_res(&self, p: usize) -> u32 {
        self.in_res.get(p).map_or(0, |b| self.absolute(*b))
    }

    /// `OUT_RES[p]` (0 for a port that does not exist), as [`Pl2Model::in_res`].
    pub fn out_res(&self, p: usize) -> u32 {
        self.out_res.get(p).map_or(0, |b| self.absolute(*b))
    }

    fn absolute(&self, v: u32) -> u32 {
        if self.cfg.mode == Pl2Mode::Joint {
            self.now.wrapping_add(v)
        } else {
            v
        }
    }

    /// What a host write of `v` stores: `v` itself, in joint mode the
    /// backlog of slot `v` (`v − now` if `v` is ahead of `now` modulo 2³²,
    /// else 0: a slot in the past reserves nothing).
    fn stored(&self, v: u32) -> u32 {
        match self.cfg.mode {
            Pl2Mode::Joint if slot_ge(v, self.now) => v.wrapping_sub(self.now),
            Pl2Mode::Joint => 0,
            _ => v,
        }
    }

    /// Host write of `IN_RES[p]`, e.g. to remove a failed host's slots (003
    /// §4.5). Returns false (and writes nothing) for a port that does not
    /// exist. Does not move the high-water mark.
    pub fn set_in_res(&mut self, p: usize, v: u32) -> bool {
        let v = self.stored(v);
        self.in_res.get_mut(p).map(|x| *x = v).is_some()
    }

    /// Host write of `OUT_RES[p]`; as [`Pl2Model::set_in_res`].
    pub fn set_out_res(&mut self, p: usize, v: u32) -> bool {
        let v = self.stored(v);
        self.out_res.get_mut(p).map(|x| *x = v).is_some()
    }

    /// `SLOT_NOW`, the slot clock.
    pub fn now(&self) -> u32 {
        self.now
    }

    /// Host write of `SLOT_NOW` (a test hook, A.5). Starts a fresh slot: the
    /// next step comes `slot_cycles` after the write. Joint mode's backlogs
    /// are kept: a reservation is a number of slots ahead, and `IN_RES` /
    /// `OUT_RES` (`now + backlog`) move with the clock. To let time pass, see
    /// [`Pl2Model::advance`].
    pub fn set_now(&mut self, v: u32) {
        self.now = v;
        self.acc = 0;
    }

    /// `slots` slot ticks at once, as the running clock would give them: `now`
    /// moves forward by `slots` and every joint-mode backlog shrinks by as
    /// many (to 0 at least). The fraction of the current slot is kept.
    pub fn advance(&mut self, slots: u32) {
        self.now = self.now.wrapping_add(slots);
        if self.cfg.mode == Pl2Mode::Joint {
            for b in self.in_res.iter_mut().chain(self.out_res.iter_mut()) {
                *b = b.saturating_sub(slots);
            }
        }
    }

    /// Fraction of the current slot elapsed (16.16 cycles, below `slot_cycles`).
    pub fn slot_fraction(&self) -> u32 {
        self.acc
    }

    /// Slots reserved ahead at port `p`'s input: `IN_RES[p]` in paper mode
    /// and the mutant, `IN_RES[p] − now` (the backlog) in joint mode.
    pub fn in_backlog(&self, p: usize) -> u32 {
        self.in_res.get(p).copied().unwrap_or(0)
    }

    /// Slots reserved ahead at port `p`'s output, as [`Pl2Model::in_backlog`].
    pub fn out_backlog(&self, p: usize) -> u32 {
        self.out_res.get(p).copied().unwrap_or(0)
    }

    /// High-water mark of [`Pl2Model::in_backlog`] as the ALU left it after
    /// each op or cycle (after the cycle's slot tick; host writes are not
    /// counted).
    pub fn in_high_water(&self, p: usize) -> u32 {
        self.hw_in.get(p).copied().unwrap_or(0)
    }

    /// High-water mark of [`Pl2Model::out_backlog`], as
    /// [`Pl2Model::in_high_water`].
    pub fn out_high_water(&self, p: usize) -> u32 {
        self.hw_out.get(p).copied().unwrap_or(0)
    }

    /// Clears every high-water mark.
    pub fn clear_high_water(&mut self) {
        self.hw_in.iter_mut().chain(self.hw_out.iter_mut()).for_each(|h| *h = 0);
    }

    /// The counters.
    pub fn counter_values(&self) -> &Pl2Counters {
        &self.counters
    }

    /// The counters by name (every name of [`Pl2Counters::list`] present).
    pub fn counters(&self) -> BTreeMap<String, u64> {
        self.counters.list().iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    /// One clock cycle of the slot clock: when `slot_run`, the fraction
    /// advances by one cycle and `now` steps (modulo 2³²) each time it reaches
    /// `slot_cycles`, so after `n` ticks from a fresh slot `now` has advanced
    /// by `floor(n * 65536 / slot_cycles)`. Runs in every mode; in joint
    /// mode each step takes one slot off every backlog (a slot that has come
    /// is no longer reserved; a backlog stays at 0 at least).
    pub fn tick(&mut self) {
        if !self.cfg.slot_run {
            return;
        }
        let a = self.acc as u64 + SLOT_ONE as u64;
        let sc = self.cfg.slot_cycles as u64;
        if a >= sc {
            self.acc = (a - sc) as u32;
            self.now = self.now.wrapping_add(1);
            if self.cfg.mode == Pl2Mode::Joint {
                for b in self.in_res.iter_mut().chain(self.out_res.iter_mut()) {
                    *b = b.saturating_sub(1);
                }
            }
        } else {
            self.acc = a as u32;
        }
    }

    /// An RSV arriving on `ingress_port` with the given fields (A.3 row 1 in
    /// paper mode, A.5 in joint mode), on its own. Checks in order:
    /// - ingress port non-existent or PL2 off → drop (`rsv_disabled_ingress`).
    ///   **Decision** (the spec leaves it open): that host is no PL2
    ///   participant; its DATA never decrements `in[src]`, so a grant would
    ///   leak into `in[src]` for ever;
    /// - `dst_port` non-existent or PL2 off → drop (`rsv_bad_port`);
    /// - demand 0 → drop (`rsv_demand_zero`); above `K` → `K`
    ///   (`rsv_demand_clamped`);
    /// - `src_port` field ≠ ingress port → `rsv_src_mismatch`, the ingress
    ///   port is used;
    ///
    /// then the reservation of the mode ([`Pl2Mode`]) and a GRT back to the
    /// ingress port with the cookie echoed (`rsv_ok`). Paper mode: `send =
    /// in[src]; in[src] += d; recv = out[dst]; out[dst] += d` (Alg. 1
    /// l.8-11), saturating at 2³²−1 (`saturate`).
    pub fn rsv(&mut self, ingress_port: u8, src_port: u8, dst_port: u8, demand: u8, cookie: u32) -> Outcome {
        self.apply(&Op::Rsv(Rsv { ingress_port, src_port, dst_port, demand, cookie }))
    }

    /// A GRT from a host (A.3 row 2): dropped, `grt_from_host` (a decision of
    /// the spec: only the switch makes GRTs).
    pub fn grt_from_host(&mut self) -> Outcome {
        self.apply(&Op::GrtFromHost)
    }

    /// A data packet `src` → `dst` (A.3 row 3), on its own; always passes.
    /// Paper mode and mutant: `in[src] −= 1` if PL2 is on at `src`, `out[dst]
    /// −= 1` if on at `dst` (Alg. 1 l.14-15), one slot per packet whatever its
    /// size (003 fn 4), flooring at 0 with one `data_underflow` per counter
    /// hit. Joint mode: nothing changes (A.5).
    pub fn data(&mut self, src: u8, dst: u8) -> Outcome {
        self.apply(&Op::Data { src, dst })
    }

    /// An unsolicited data packet `src` → `dst` (A.3 row 4, 003 §4.4), on its
    /// own. Ports that do not exist or have PL2 off take no part.
    /// - Paper mode and mutant: `max(in[src], out[dst]) > T` → drop with no
    ///   decrement; else as [`Pl2Model::data`]. **Decision:** within
    ///   [`Pl2Model::cycle`] the counters compared are those at the start of
    ///   the cycle *two before* the op's (the RTL compares every counter
    ///   with `T` into a register a cycle ahead of its decode stage, so the
    ///   test is off the state's one-cycle loop and off the decode's port
    ///   select; `docs/pl2.md`). An op on its own ([`Pl2Model::apply`]) sees
    ///   the current counters, as after idle cycles.
    /// - Joint mode: `max(backlog(in[src]), backlog(out[dst])) > T`, i.e.
    ///   `max(now, in, out) − now > T`: a counter behind `now` reserves
    ///   nothing; pass with no change, drop otherwise.
    pub fn unsol(&mut self, src: u8, dst: u8) -> Outcome {
        self.apply(&Op::Unsol { src, dst })
    }

    /// One op on its own: it runs, its decrements land, the high-water marks
    /// follow. The slot clock does not move.
    pub fn apply(&mut self, op: &Op) -> Outcome {
        let mut touched = 0u64;
        self.settle_lag();
        let o = self.exec(op, &mut touched);
        self.end_of_ops();
        self.follow_high_water();
        self.settle_lag();
        o
    }

    /// One clock cycle: `ops[i]` is pipeline `i`'s op (rank `i`), `None` for
    /// none; returns each op's outcome at its index. Same-cycle semantics in
    /// [`Pl2Model`]'s documentation: ops in rank order reading start-of-cycle
    /// values plus lower ranks' reservations (a paper-mode UNSOL: those of
    /// the start of the cycle two before), merged decrements at the end, then one
    /// [`Pl2Model::tick`], then the high-water marks.
    pub fn cycle(&mut self, ops: &[Option<Op>]) -> Vec<Option<Outcome>> {
        let mut touched = 0u64;
        let (start_in, start_out) = (self.in_res.clone(), self.out_res.clone());
        let out = ops.iter().map(|op| op.as_ref().map(|o| self.exec(o, &mut touched))).collect();
        self.end_of_ops();
        self.tick();
        self.follow_high_water();
        self.lag_in = std::mem::replace(&mut self.lag1_in, start_in);
        self.lag_out = std::mem::replace(&mut self.lag1_out, start_out);
        out
    }

    /// The lagged copies of the state made current (an op on its own, as
    /// after idle cycles).
    fn settle_lag(&mut self) {
        for (l, v) in [
            (&mut self.lag_in, &self.in_res),
            (&mut self.lag1_in, &self.in_res),
            (&mut self.lag_out, &self.out_res),
            (&mut self.lag1_out, &self.out_res),
        ] {
            l.clone_from(v);
        }
    }

    /// PL2 is on at port `p` (and `p` exists).
    fn on(&self, p: u8) -> bool {
        (p as usize) < self.cfg.ports && (self.cfg.port_en >> p) & 1 == 1
    }

    /// `v + d` clamped at 2³²−1, counting a clamp in `saturate`.
    fn sat_add(&mut self, v: u32, d: u32) -> u32 {
        v.checked_add(d).unwrap_or_else(|| {
            self.counters.saturate += 1;
            u32::MAX
        })
    }

    /// Notes that an RSV or UNSOL reads `out[dst]` this cycle; counts
    /// `serialized` if one of lower rank already did. `dst` is a valid port.
    fn note_out_read(&mut self, dst: u8, touched: &mut u64) {
        let bit = 1u64 << dst;
        if *touched & bit != 0 {
            self.counters.serialized += 1;
        }
        *touched |= bit;
    }

    /// Counts `data_bad_port` once if either port does not exist.
    fn count_bad_ports(&mut self, src: u8, dst: u8) {
        if src as usize >= self.cfg.ports || dst as usize >= self.cfg.ports {
            self.counters.data_bad_port += 1;
        }
    }

    /// Stages the decrements of one DATA (or passing UNSOL) for the end of
    /// the cycle.
    fn stage_decrements(&mut self, src: u8, dst: u8) {
        if self.on(src) {
            let d = &mut self.dec_in[src as usize];
            *d = d.saturating_add(1);
        }
        if self.on(dst) {
            let d = &mut self.dec_out[dst as usize];
            *d = d.saturating_add(1);
        }
    }

    /// Runs one op within the current cycle (decrements staged).
    fn exec(&mut self, op: &Op, touched: &mut u64) -> Outcome {
        match *op {
            Op::Rsv(r) => self.exec_rsv(&r, touched),
            Op::GrtFromHost => {
                self.counters.grt_from_host += 1;
                Outcome::Drop(DropReason::GrtFromHost)
            }
            Op::Data { src, dst } => {
                self.counters.data_pkts += 1;
                self.count_bad_ports(src, dst);
                if self.cfg.mode != Pl2Mode::Joint {
                    self.stage_decrements(src, dst);
                }
                Outcome::Pass
            }
            Op::Unsol { src, dst } => self.exec_unsol(src, dst, touched),
        }
    }

    fn exec_rsv(&mut self, r: &Rsv, touched: &mut u64) -> Outcome {
        self.counters.rsv_pkts += 1;
        let drop = if !self.on(r.ingress_port) {
            Some(DropReason::DisabledIngress)
        } else if !self.on(r.dst_port) {
            Some(DropReason::BadPort)
        } else if r.demand == 0 {
            Some(DropReason::DemandZero)
        } else {
            None
        };
        if let Some(reason) = drop {
            match reason {
                DropReason::DisabledIngress => self.counters.rsv_disabled_ingress += 1,
                DropReason::BadPort => self.counters.rsv_bad_port += 1,
                _ => self.counters.rsv_demand_zero += 1,
            }
            return Outcome::Drop(reason);
        }
        let mut d = r.demand as u32;
        if d > self.cfg.k {
            d = self.cfg.k;
            self.counters.rsv_demand_clamped += 1;
        }
        if r.src_port != r.ingress_port {
            self.counters.rsv_src_mismatch += 1;
        }
        self.note_out_read(r.dst_port, touched);
        let (s, t) = (r.ingress_port as usize, r.dst_port as usize);
        let (send, recv) = match self.cfg.mode {
            Pl2Mode::Paper => {
                // The increments land with the cycle's decrements (a lower
                // rank's in the same cycle is read).
                let send = self.in_res[s].saturating_add(self.inc_in[s]);
                let recv = self.out_res[t].saturating_add(self.inc_out[t]);
                self.inc_in[s] = self.inc_in[s].saturating_add(d);
                self.inc_out[t] = self.inc_out[t].saturating_add(d);
                (send, recv)
            }
            Pl2Mode::JointWithDecrements => {
                let slot = self.in_res[s].max(self.out_res[t]);
                self.in_res[s] = self.sat_add(slot, d);
                self.out_res[t] = self.sat_add(slot, d);
                (slot, slot)
            }
            Pl2Mode::Joint => {
                // Backlogs: s - now = max(now, in, out) - now.
                let wait = self.in_res[s].max(self.out_res[t]);
                let next = self.sat_add(wait, d);
                self.in_res[s] = next;
                self.out_res[t] = next;
                (wait, wait)
            }
        };
        self.counters.rsv_ok += 1;
        Outcome::Grant(Grant { demand: d as u8, send, recv, cookie: r.cookie, out_port: r.ingress_port })
    }

    fn exec_unsol(&mut self, src: u8, dst: u8, touched: &mut u64) -> Outcome {
        self.count_bad_ports(src, dst);
        let (on_s, on_d) = (self.on(src), self.on(dst));
        if on_d {
            self.note_out_read(dst, touched);
        }
        // Joint mode: the backlogs now; paper mode: the counters at the
        // start of the cycle two before.
        let (vin, vout) = if self.cfg.mode == Pl2Mode::Joint { (&self.in_res, &self.out_res) } else { (&self.lag_in, &self.lag_out) };
        let in_v = if on_s { vin[src as usize] } else { 0 };
        let out_v = if on_d { vout[dst as usize] } else { 0 };
        let over = in_v.max(out_v) > self.cfg.t_drop;
        if over {
            self.counters.unsol_drop += 1;
            return Outcome::Drop(DropReason::UnsolOverT);
        }
        self.counters.unsol_pass += 1;
        if self.cfg.mode != Pl2Mode::Joint {
            self.stage_decrements(src, dst);
        }
        Outcome::Pass
    }

    /// End of a cycle's ops: the merged decrements land.
    fn end_of_ops(&mut self) {
        apply_changes(&mut self.in_res, &mut self.inc_in, &mut self.dec_in, &mut self.counters);
        apply_changes(&mut self.out_res, &mut self.inc_out, &mut self.dec_out, &mut self.counters);
    }

    /// The high-water marks follow the backlogs.
    fn follow_high_water(&mut self) {
        for (h, v) in self.hw_in.iter_mut().zip(&self.in_res).chain(self.hw_out.iter_mut().zip(&self.out_res)) {
            *h = (*h).max(*v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// The vectors' setting (A.6): 8 ports all on, K = 4, T = 20, slot clock
    /// at 1.0 cycle per slot and frozen.
    fn cfg(mode: Pl2Mode) -> Pl2Config {
        Pl2Config { ports: 8, k: 4, t_drop: 20, mode, port_en: 0xff, slot_cycles: SLOT_ONE, slot_run: false }
    }

    fn model(mode: Pl2Mode) -> Pl2Model {
        Pl2Model::new(cfg(mode)).unwrap()
    }

    /// The GRT host `src` gets for an RSV to `dst` (cookie `0xC0DE_0000 + 16 src + dst`).
    fn grt(src: u8, dst: u8, demand: u8, send: u32, recv: u32) -> Outcome {
        Outcome::Grant(Grant { demand, send, recv, cookie: cookie(src, dst), out_port: src })
    }

    fn cookie(src: u8, dst: u8) -> u32 {
        0xC0DE_0000 + 16 * src as u32 + dst as u32
    }

    /// RSV from host `src` (on port `src`, its `src_port` field right) to `dst`.
    fn rsv(m: &mut Pl2Model, src: u8, dst: u8, demand: u8) -> Outcome {
        m.rsv(src, src, dst, demand, cookie(src, dst))
    }

    fn rsv_op(src: u8, dst: u8, demand: u8) -> Option<Op> {
        Some(Op::Rsv(Rsv { ingress_port: src, src_port: src, dst_port: dst, demand, cookie: cookie(src, dst) }))
    }

    /// Every `in`/`out` counter of an 8-port model: those listed, all others 0.
    #[track_caller]
    /// The ports listed have these `IN_RES`/`OUT_RES`; every other port
    /// holds nothing (0; in joint mode `now`, a backlog of 0).
    fn assert_state(m: &Pl2Model, ins: &[(usize, u32)], outs: &[(usize, u32)], row: &str) {
        let empty = if m.config().mode == Pl2Mode::Joint { m.now() } else { 0 };
        assert_state_or(m, empty, ins, outs, row)
    }

    /// As [`assert_state`], every other port reading `empty`.
    fn assert_state_or(m: &Pl2Model, empty: u32, ins: &[(usize, u32)], outs: &[(usize, u32)], row: &str) {
        let expect = |l: &[(usize, u32)]| {
            let mut v = vec![empty; 8];
            for &(p, x) in l {
                v[p] = x;
            }
            v
        };
        let got_in: Vec<u32> = (0..8).map(|p| m.in_res(p)).collect();
        let got_out: Vec<u32> = (0..8).map(|p| m.out_res(p)).collect();
        assert_eq!(got_in, expect(ins), "{row}: in[]");
        assert_eq!(got_out, expect(outs), "{row}: out[]");
    }

    fn c(m: &Pl2Model, name: &str) -> u64 {
        m.counters()[name]
    }

    /// Rows P1-P9 of A.6 in order, asserting every output and the whole state
    /// after each row. P9 uses host 4 → port 3 so that U1 starts with in1 = 0.
    fn run_p_vectors(m: &mut Pl2Model) {
        assert_eq!(rsv(m, 1, 3, 4), grt(1, 3, 4, 0, 0), "P1");
        assert_state(m, &[(1, 4)], &[(3, 4)], "P1");
        assert_eq!(rsv(m, 4, 2, 4), grt(4, 2, 4, 0, 0), "P2");
        assert_state(m, &[(1, 4), (4, 4)], &[(2, 4), (3, 4)], "P2");
        assert_eq!(rsv(m, 5, 2, 1), grt(5, 2, 1, 0, 4), "P3");
        assert_state(m, &[(1, 4), (4, 4), (5, 1)], &[(2, 5), (3, 4)], "P3");
        // P4 is 003 Fig. 2: slot 4 at the input, 5 at the output; the host sends at max = 5.
        let p4 = rsv(m, 1, 2, 4);
        assert_eq!(p4, grt(1, 2, 4, 4, 5), "P4");
        let Outcome::Grant(g) = p4 else { unreachable!() };
        assert_eq!(g.send.max(g.recv), 5, "P4: chosen slot");
        assert_state(m, &[(1, 8), (4, 4), (5, 1)], &[(2, 9), (3, 4)], "P4");
        for _ in 0..4 {
            assert_eq!(m.data(1, 3), Outcome::Pass, "P5");
        }
        assert_state(m, &[(1, 4), (4, 4), (5, 1)], &[(2, 9)], "P5");
        for _ in 0..4 {
            assert_eq!(m.data(4, 2), Outcome::Pass, "P6");
        }
        assert_eq!(m.data(5, 2), Outcome::Pass, "P6");
        assert_state(m, &[(1, 4)], &[(2, 4)], "P6");
        for _ in 0..4 {
            assert_eq!(m.data(1, 2), Outcome::Pass, "P7");
        }
        assert_state(m, &[], &[], "P7");
        assert_eq!(c(m, "data_underflow"), 0, "P7: no underflow yet");
        assert_eq!(m.data(1, 2), Outcome::Pass, "P8");
        assert_state(m, &[], &[], "P8");
        assert_eq!(c(m, "data_underflow"), 2, "P8: underflow +2");
        assert_eq!(rsv(m, 4, 3, 7), grt(4, 3, 4, 0, 0), "P9: d7 granted as d4");
        assert_eq!(rsv(m, 4, 3, 0), Outcome::Drop(DropReason::DemandZero), "P9: d0");
        assert_eq!(rsv(m, 4, 99, 4), Outcome::Drop(DropReason::BadPort), "P9: dst 99");
        assert_state(m, &[(4, 4)], &[(3, 4)], "P9");
        let want = [
            ("rsv_pkts", 7),
            ("rsv_ok", 5),
            ("rsv_demand_clamped", 1),
            ("rsv_demand_zero", 1),
            ("rsv_bad_port", 1),
            ("rsv_disabled_ingress", 0),
            ("rsv_src_mismatch", 0),
            ("data_pkts", 14),
            ("data_dec", 26),
            ("data_underflow", 2),
            ("saturate", 0),
        ];
        for (n, v) in want {
            assert_eq!(c(m, n), v, "P9: counter {n}");
        }
    }

    #[test]
    fn vectors_p1_to_p9_paper_mode() {
        let mut m = model(Pl2Mode::Paper);
        run_p_vectors(&mut m);
    }

    #[test]
    fn vectors_u1_to_u5_unsolicited() {
        let mut m = model(Pl2Mode::Paper);
        run_p_vectors(&mut m);
        let p9 = [(4usize, 4u32)];
        // U1
        assert!(m.set_out_res(2, 18));
        assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 4, 0, 18), "U1");
        assert_state(&m, &[(1, 4), p9[0]], &[(2, 22), (3, 4)], "U1");
        // U2: 22 > T = 20: dropped, nothing decremented.
        for _ in 0..4 {
            assert_eq!(m.unsol(1, 2), Outcome::Drop(DropReason::UnsolOverT), "U2");
        }
        assert_state(&m, &[(1, 4), p9[0]], &[(2, 22), (3, 4)], "U2");
        assert_eq!((c(&m, "unsol_drop"), c(&m, "unsol_pass")), (4, 0), "U2 counters");
        // U3: the resend.
        for _ in 0..4 {
            assert_eq!(m.data(1, 2), Outcome::Pass, "U3");
        }
        assert_state(&m, &[p9[0]], &[(2, 18), (3, 4)], "U3");
        // U4
        assert!(m.set_out_res(2, 10));
        assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 4, 0, 10), "U4");
        assert_state(&m, &[(1, 4), p9[0]], &[(2, 14), (3, 4)], "U4 after the RSV");
        for i in 1..=4u32 {
            assert_eq!(m.unsol(1, 2), Outcome::Pass, "U4 UNSOL {i}");
            assert_state(&m, &[(1, 4 - i), p9[0]], &[(2, 14 - i), (3, 4)], "U4");
        }
        assert_eq!((c(&m, "unsol_drop"), c(&m, "unsol_pass")), (4, 4), "U4 counters");
        // U5: max = T passes (and decrements; in1 is 0 and underflows); T + 1 drops.
        let under = c(&m, "data_underflow");
        assert!(m.set_out_res(2, 20));
        assert_eq!(m.unsol(1, 2), Outcome::Pass, "U5 at T");
        assert_state(&m, &[p9[0]], &[(2, 19), (3, 4)], "U5");
        assert_eq!(c(&m, "data_underflow"), under + 1, "U5: in1 underflow");
        assert!(m.set_out_res(2, 21));
        assert_eq!(m.unsol(1, 2), Outcome::Drop(DropReason::UnsolOverT), "U5 at T + 1");
        assert_state(&m, &[p9[0]], &[(2, 21), (3, 4)], "U5 at T + 1");
        assert_eq!((c(&m, "unsol_drop"), c(&m, "unsol_pass")), (5, 5), "U5 counters");
    }

    #[test]
    fn vector_j1_joint() {
        let mut m = model(Pl2Mode::Joint);
        m.set_now(0);
        m.set_in_res(1, 4);
        m.set_out_res(2, 5);
        assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 4, 5, 5), "J1");
        assert_state(&m, &[(1, 9)], &[(2, 9)], "J1");
    }

    /// The J2 sequence: RSV 3→2 d4, RSV 1→2 d4, 4 × DATA 3→2, 4 × DATA 1→2.
    fn j2_sequence(m: &mut Pl2Model) -> (Outcome, Outcome) {
        let a = rsv(m, 3, 2, 4);
        let b = rsv(m, 1, 2, 4);
        for (s, d) in [(3, 2), (1, 2)] {
            for _ in 0..4 {
                assert_eq!(m.data(s, d), Outcome::Pass);
            }
        }
        (a, b)
    }

    #[test]
    fn vector_j2_mutant_leaks() {
        let mut m = model(Pl2Mode::JointWithDecrements);
        let (a, b) = j2_sequence(&mut m);
        assert_eq!(a, grt(3, 2, 4, 0, 0), "J2 first GRT");
        assert_eq!(b, grt(1, 2, 4, 4, 4), "J2 second GRT");
        assert_state(&m, &[(1, 4)], &[], "J2: in1 stuck at 4");
        // Stuck: each further round of RSV + 4 DATA from host 1 leaves in1 at 4
        // (and now out2 at 4 too), and every GRT asks host 1 to wait 4 slots,
        // for ever.
        for round in 0..3 {
            assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 4, 4, 4), "J2 round {round}");
            for _ in 0..4 {
                m.data(1, 2);
            }
            assert_state(&m, &[(1, 4)], &[(2, 4)], "J2 after a round: out2 leaks too");
        }
        assert_eq!(c(&m, "data_underflow"), 0, "J2: the leak is not an underflow");
    }

    #[test]
    fn vector_j2_slot_clock_no_backlog() {
        let mut m = Pl2Model::new(Pl2Config { slot_run: true, ..cfg(Pl2Mode::Joint) }).unwrap();
        let (a, b) = j2_sequence(&mut m);
        assert_eq!(a, grt(3, 2, 4, 0, 0), "J2 first GRT");
        assert_eq!(b, grt(1, 2, 4, 4, 4), "J2 second GRT");
        // DATA changed nothing: the counters read as absolute slot numbers.
        assert_state(&m, &[(1, 8), (3, 4)], &[(2, 8)], "J2 joint");
        assert_eq!(c(&m, "data_dec") + c(&m, "data_underflow"), 0);
        for _ in 0..7 {
            m.tick();
        }
        assert_eq!(m.now(), 7);
        assert_eq!((m.in_backlog(1), m.out_backlog(2), m.in_backlog(3)), (1, 1, 0), "now = 7");
        m.tick();
        assert_eq!(m.now(), 8);
        for p in 0..8 {
            assert_eq!((m.in_backlog(p), m.out_backlog(p)), (0, 0), "now = 8: port {p} has a backlog");
        }
        assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 4, 0, 0), "J2: no backlog once now >= 8");
        assert_state(&m, &[(1, 12)], &[(2, 12)], "J2 joint after (in3's slot 4 has passed: reads now)");
    }

    #[test]
    fn vector_j3_joint_now_100() {
        let mut m = model(Pl2Mode::Joint);
        m.set_now(100);
        m.set_in_res(1, 0);
        m.set_out_res(2, 103);
        assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 4, 3, 3), "J3");
        assert_state(&m, &[(1, 107)], &[(2, 107)], "J3");
    }

    #[test]
    fn config_validation_errors() {
        assert_eq!(Pl2Config::default().validate(), Ok(()));
        let base = cfg(Pl2Mode::Paper);
        assert_eq!(base.validate(), Ok(()));
        let bad = [
            (Pl2Config { k: 0, ..base }, "pl2.k = 0"),
            (Pl2Config { k: 256, ..base }, "pl2.k = 256"),
            (Pl2Config { ports: 0, port_en: 0, ..base }, "pl2.ports = 0"),
            (Pl2Config { ports: 65, ..base }, "pl2.ports = 65"),
            (Pl2Config { slot_cycles: SLOT_ONE - 1, ..base }, "pl2.slot_cycles = 0xffff"),
            (Pl2Config { slot_cycles: 0, ..base }, "pl2.slot_cycles = 0x0"),
            (Pl2Config { slot_cycles: SLOT_CYCLES_LIMIT, ..base }, "pl2.slot_cycles = 0x40000000"),
            (Pl2Config { t_drop: 1 << 31, ..base }, "pl2.t_drop = 2147483648"),
            (Pl2Config { port_en: 0x1ff, ..base }, "pl2.port_en = 0x1ff"),
        ];
        for (c, want) in bad {
            let e = c.validate().unwrap_err();
            assert!(e.starts_with(want), "{c:?}: error {e:?} should start with {want:?}");
            assert_eq!(Pl2Model::new(c).unwrap_err(), e);
        }
        let good = [
            Pl2Config { k: 255, ..base },
            Pl2Config { k: 1, ..base },
            Pl2Config { ports: 64, port_en: u64::MAX, ..base },
            Pl2Config { ports: 1, port_en: 1, ..base },
            Pl2Config { slot_cycles: SLOT_ONE, ..base },
            Pl2Config { t_drop: (1 << 31) - 1, ..base },
            Pl2Config { port_en: 0, ..base },
        ];
        for c in good {
            assert_eq!(c.validate(), Ok(()), "{c:?}");
        }
        let mut m = model(Pl2Mode::Paper);
        assert!(m.set_config(Pl2Config { ports: 16, port_en: 0xffff, ..base }).unwrap_err().contains("fixed at build time"));
        assert!(m.set_config(Pl2Config { k: 0, ..base }).is_err());
        assert_eq!(m.config().k, 4, "a rejected config leaves the registers alone");
        assert_eq!(m.set_config(Pl2Config { k: 2, ..base }), Ok(()));
        assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 2, 0, 0), "new K = 2 applies");
    }

    #[test]
    fn paper_saturation_at_u32_max() {
        let mut m = model(Pl2Mode::Paper);
        m.set_in_res(1, u32::MAX - 2);
        assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 4, u32::MAX - 2, 0));
        assert_state(&m, &[(1, u32::MAX)], &[(2, 4)], "first");
        assert_eq!(c(&m, "saturate"), 1);
        assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 4, u32::MAX, 4));
        assert_state(&m, &[(1, u32::MAX)], &[(2, 8)], "second");
        assert_eq!(c(&m, "saturate"), 2);
        m.set_out_res(3, u32::MAX);
        assert_eq!(rsv(&mut m, 1, 3, 1), grt(1, 3, 1, u32::MAX, u32::MAX));
        assert_eq!(c(&m, "saturate"), 4, "both counters clamped");
        m.data(1, 3);
        assert_state(&m, &[(1, u32::MAX - 1)], &[(2, 8), (3, u32::MAX - 1)], "decrement from the top");
        // The mutant saturates too, once per counter.
        let mut j = model(Pl2Mode::JointWithDecrements);
        j.set_in_res(1, u32::MAX - 1);
        assert_eq!(rsv(&mut j, 1, 2, 4), grt(1, 2, 4, u32::MAX - 1, u32::MAX - 1));
        assert_state(&j, &[(1, u32::MAX)], &[(2, u32::MAX)], "mutant");
        assert_eq!(c(&j, "saturate"), 2);
        // Joint mode wraps instead: slot numbers are modular.
        let mut k = model(Pl2Mode::Joint);
        k.set_now(u32::MAX - 1);
        k.set_in_res(1, u32::MAX - 1);
        k.set_out_res(2, u32::MAX);
        assert_eq!(rsv(&mut k, 1, 2, 4), grt(1, 2, 4, 1, 1));
        assert_state(&k, &[(1, 3)], &[(2, 3)], "joint wraps");
        assert_eq!(c(&k, "saturate"), 0);
    }

    /// Paper mode clamps the cycle's net change: an RSV and a DATA on a
    /// counter one below 2³²−1 in one cycle end at 2³²−1 (one `saturate`,
    /// the decrement taken); on their own, one after the other, at 2³²−2.
    #[test]
    fn paper_clamp_of_the_net_change() {
        let mut m = model(Pl2Mode::Paper);
        m.set_out_res(2, u32::MAX - 1);
        let out = m.cycle(&[rsv_op(1, 2, 4), Some(Op::Data { src: 3, dst: 2 })]);
        assert_eq!(out[0], Some(grt(1, 2, 4, 0, u32::MAX - 1)));
        assert_eq!(m.out_res(2), u32::MAX);
        assert_eq!((c(&m, "saturate"), c(&m, "data_dec"), c(&m, "data_underflow")), (1, 1, 1), "in3 was 0");
        let mut s = model(Pl2Mode::Paper);
        s.set_out_res(2, u32::MAX - 1);
        rsv(&mut s, 1, 2, 4);
        s.data(3, 2);
        assert_eq!((s.out_res(2), c(&s, "saturate")), (u32::MAX - 1, 1));
    }

    #[test]
    fn joint_modular_compare_across_wrap() {
        assert!(slot_ge(5, 5));
        assert!(slot_ge(0, u32::MAX) && !slot_ge(u32::MAX, 0));
        assert!(slot_ge(0x7fff_ffff, 0) && !slot_ge(0x8000_0000, 0));
        let mut m = model(Pl2Mode::Joint);
        // Ahead across the wrap: now = 2^32 - 2, in1 = 2^32 - 1 (+1), out2 = 2 (+4).
        m.set_now(u32::MAX - 1);
        m.set_in_res(1, u32::MAX);
        m.set_out_res(2, 2);
        assert_eq!(rsv(&mut m, 1, 2, 4), grt(1, 2, 4, 4, 4), "out2 = 2 is 4 slots ahead");
        assert_state(&m, &[(1, 6)], &[(2, 6)], "ahead");
        assert_eq!(m.out_backlog(2), 8);
        // Behind across the wrap: now = 3, in4 = 2^32 - 6 (9 behind), out5 = 1 (2 behind).
        m.set_now(3);
        m.set_in_res(4, u32::MAX - 5);
        m.set_out_res(5, 1);
        assert_eq!((m.in_backlog(4), m.out_backlog(5)), (0, 0));
        assert_eq!(rsv(&mut m, 4, 5, 2), grt(4, 5, 2, 0, 0), "both behind: s = now");
        assert_eq!((m.in_res(4), m.out_res(5)), (5, 5));
        // UNSOL across the wrap: now = 2^32 - 10, out6 = 10 is 20 ahead = T: pass; 11: drop.
        m.set_now(u32::MAX - 9);
        m.set_out_res(6, 10);
        assert_eq!(m.unsol(7, 6), Outcome::Pass, "20 ahead = T");
        m.set_out_res(6, 11);
        assert_eq!(m.unsol(7, 6), Outcome::Drop(DropReason::UnsolOverT), "21 ahead > T");
        assert_eq!((m.out_res(6), m.in_res(7)), (11, u32::MAX - 9), "joint UNSOL changes nothing (in7 holds nothing: now)");
    }

    #[test]
    fn slot_clock_fractional_38_67() {
        let mut m = Pl2Model::new(Pl2Config { slot_cycles: SLOT_CYCLES_100G, slot_run: true, ..cfg(Pl2Mode::Joint) }).unwrap();
        assert_eq!(SLOT_CYCLES_100G, (38.67f64 * 65536.0).round() as u32);
        for n in 1..=100_000u64 {
            m.tick();
            assert_eq!(m.now() as u64, n * 65536 / SLOT_CYCLES_100G as u64, "n = {n}");
            if n < 38_670 {
                assert_eq!(m.now() as u64, n * 100 / 3867, "n = {n}: floor(n / 38.67)");
            }
            assert!(m.slot_fraction() < SLOT_CYCLES_100G);
        }
        assert_eq!(m.now(), 2585);
        // Frozen: SLOT_RUN = 0 stops both `now` and the fraction.
        let frac = m.slot_fraction();
        m.set_config(Pl2Config { slot_run: false, ..*m.config() }).unwrap();
        for _ in 0..1000 {
            m.tick();
        }
        assert_eq!((m.now(), m.slot_fraction()), (2585, frac), "frozen");
        // A SLOT_NOW write starts a fresh slot: 38 ticks stay, the 39th steps.
        m.set_config(Pl2Config { slot_run: true, ..*m.config() }).unwrap();
        m.set_now(500);
        for _ in 0..38 {
            m.tick();
        }
        assert_eq!(m.now(), 500);
        m.tick();
        assert_eq!(m.now(), 501);
        // 10G at 200 MHz: 240 cycles per slot.
        let mut t = Pl2Model::new(Pl2Config { slot_cycles: SLOT_CYCLES_10G, slot_run: true, ..cfg(Pl2Mode::Joint) }).unwrap();
        for _ in 0..239 {
            t.tick();
        }
        assert_eq!(t.now(), 0);
        t.tick();
        assert_eq!(t.now(), 1);
        // The clock wraps modulo 2^32.
        t.set_config(Pl2Config { slot_cycles: SLOT_ONE, ..*t.config() }).unwrap();
        t.set_now(u32::MAX);
        t.tick();
        assert_eq!(t.now(), 0);
    }

    /// Joint mode keeps backlogs: a slot written in the past reads as `now`
    /// at once (what the specification's background scrub does port by port),
    /// and however long a counter idles it never looks ahead again.
    #[test]
    fn joint_backlogs_never_fall_behind() {
        let mut m = Pl2Model::new(Pl2Config { ports: 4, port_en: 0xf, ..cfg(Pl2Mode::Joint) }).unwrap();
        m.set_now(1000);
        for (p, i, o) in [(0, 5, 1005), (1, 1000, 999), (2, 0, 0), (3, 2000, 0)] {
            m.set_in_res(p, i);
            m.set_out_res(p, o);
        }
        let state = |m: &Pl2Model| (0..4).map(|p| (m.in_res(p), m.out_res(p))).collect::<Vec<_>>();
        assert_eq!(state(&m), vec![(1000, 1005), (1000, 1000), (1000, 1000), (2000, 1000)]);
        assert_eq!((m.in_backlog(3), m.out_backlog(0), m.out_backlog(1)), (1000, 5, 0));
        // Time passing keeps each reservation's absolute slot.
        m.advance(3);
        assert_eq!(state(&m), vec![(1003, 1005), (1003, 1003), (1003, 1003), (2000, 1003)]);
        // Writing the clock keeps the backlogs.
        m.set_now(10);
        assert_eq!(state(&m), vec![(10, 12), (10, 10), (10, 10), (1007, 10)]);
        // Paper mode ignores the clock.
        let mut p = model(Pl2Mode::Paper);
        p.set_in_res(0, 5);
        p.set_now(1000);
        assert_eq!(p.in_res(0), 5);
        // A counter idle for more than 2^31 slots does not look ahead again.
        let mut a = model(Pl2Mode::Joint);
        a.set_now(10);
        for q in 0..8 {
            a.set_in_res(q, 10);
            a.set_out_res(q, 10);
        }
        a.advance(1 << 30);
        a.advance((1 << 30) + 2);
        assert_eq!(rsv(&mut a, 1, 2, 1), grt(1, 2, 1, 0, 0), "no bogus wait");
    }

    #[test]
    fn cycle_same_dst_rsvs_serialized_by_rank() {
        let mut m = model(Pl2Mode::Paper);
        let out = m.cycle(&[rsv_op(1, 2, 4), None, rsv_op(3, 2, 2)]);
        assert_eq!(out, vec![Some(grt(1, 2, 4, 0, 0)), None, Some(grt(3, 2, 2, 0, 4))]);
        assert_state(&m, &[(1, 4), (3, 2)], &[(2, 6)], "rank 0 first");
        assert_eq!(c(&m, "serialized"), 1);
        // The rank decides, not the port number.
        let mut m = model(Pl2Mode::Paper);
        let out = m.cycle(&[rsv_op(3, 2, 2), rsv_op(1, 2, 4)]);
        assert_eq!(out, vec![Some(grt(3, 2, 2, 0, 0)), Some(grt(1, 2, 4, 0, 2))]);
        assert_state(&m, &[(1, 4), (3, 2)], &[(2, 6)], "rank 0 = host 3");
        assert_eq!(c(&m, "serialized"), 1);
        // Different destinations: no serialisation; three on one: two wait.
        let mut m = model(Pl2Mode::Paper);
        m.cycle(&[rsv_op(1, 2, 1), rsv_op(3, 4, 1)]);
        assert_eq!(c(&m, "serialized"), 0);
        let out = m.cycle(&[rsv_op(5, 6, 1), rsv_op(3, 6, 2), rsv_op(1, 6, 3)]);
        assert_eq!(out, vec![Some(grt(5, 6, 1, 0, 0)), Some(grt(3, 6, 2, 1, 1)), Some(grt(1, 6, 3, 1, 3))]);
        assert_eq!(c(&m, "serialized"), 2);
        assert_state(&m, &[(1, 4), (3, 3), (5, 1)], &[(2, 1), (4, 1), (6, 6)], "three on out6");
    }

    #[test]
    fn cycle_data_decrements_merge() {
        let setup = |m: &mut Pl2Model| {
            m.set_out_res(2, 2);
            m.set_in_res(1, 1);
            m.set_in_res(5, 1);
        };
        let ops = [Op::Data { src: 1, dst: 2 }, Op::Data { src: 3, dst: 2 }, Op::Data { src: 5, dst: 2 }];
        let mut m = model(Pl2Mode::Paper);
        setup(&mut m);
        let out = m.cycle(&ops.map(Some));
        assert_eq!(out, vec![Some(Outcome::Pass); 3]);
        assert_state(&m, &[], &[], "merged");
        assert_eq!((c(&m, "data_dec"), c(&m, "data_underflow")), (4, 2), "out2: 2 + 1 underflow; in3: 1 underflow");
        // The same as three packets one at a time.
        let mut s = model(Pl2Mode::Paper);
        setup(&mut s);
        for op in &ops {
            s.apply(op);
        }
        assert_eq!(s.counter_values(), m.counter_values());
        assert_state(&s, &[], &[], "sequential");
        // Joint mode: DATA merges into nothing.
        let mut j = model(Pl2Mode::Joint);
        setup(&mut j);
        j.cycle(&ops.map(Some));
        assert_state(&j, &[(1, 1), (5, 1)], &[(2, 2)], "joint");
        assert_eq!(c(&j, "data_pkts"), 3);
    }

    #[test]
    fn cycle_reads_see_start_of_cycle_values() {
        // RSV after a DATA on the same out[d] in one cycle: reads 4, not 3.
        let mut m = model(Pl2Mode::Paper);
        m.set_out_res(2, 4);
        let out = m.cycle(&[Some(Op::Data { src: 3, dst: 2 }), rsv_op(1, 2, 4)]);
        assert_eq!(out, vec![Some(Outcome::Pass), Some(grt(1, 2, 4, 0, 4))]);
        assert_state(&m, &[(1, 4)], &[(2, 7)], "4 + 4 - 1");
        assert_eq!(c(&m, "data_underflow"), 1, "in3 was 0");
        // One at a time the RSV would have seen the decrement.
        let mut s = model(Pl2Mode::Paper);
        s.set_out_res(2, 4);
        s.data(3, 2);
        assert_eq!(rsv(&mut s, 1, 2, 4), grt(1, 2, 4, 0, 3));
        // UNSOL after a DATA: sees 21 > T and drops; the next two cycles
        // still see 21 (the start of the cycle two before), the one after 20
        // passes.
        let mut m = model(Pl2Mode::Paper);
        m.set_out_res(2, 21);
        m.cycle(&[None, None]);
        assert_eq!(
            m.cycle(&[None, Some(Op::Unsol { src: 1, dst: 2 })]),
            vec![None, Some(Outcome::Pass)],
            "one idle cycle after the write: sees 0"
        );
        assert_eq!(m.out_res(2), 20);
        m.set_out_res(2, 21);
        m.cycle(&[None, None]);
        m.cycle(&[None, None]);
        let out = m.cycle(&[Some(Op::Data { src: 3, dst: 2 }), Some(Op::Unsol { src: 1, dst: 2 })]);
        assert_eq!(out, vec![Some(Outcome::Pass), Some(Outcome::Drop(DropReason::UnsolOverT))]);
        assert_eq!(m.out_res(2), 20);
        for n in 0..2 {
            assert_eq!(
                m.cycle(&[None, Some(Op::Unsol { src: 1, dst: 2 })]),
                vec![None, Some(Outcome::Drop(DropReason::UnsolOverT))],
                "{n}"
            );
        }
        assert_eq!(m.cycle(&[None, Some(Op::Unsol { src: 1, dst: 2 })]), vec![None, Some(Outcome::Pass)]);
        assert_eq!(m.out_res(2), 19);
        // Two UNSOLs in one cycle both read the start value; both decrements land.
        let mut m = model(Pl2Mode::Paper);
        m.set_out_res(2, 20);
        m.cycle(&[None, None]);
        m.cycle(&[None, None]);
        let out = m.cycle(&[Some(Op::Unsol { src: 1, dst: 2 }), Some(Op::Unsol { src: 3, dst: 2 })]);
        assert_eq!(out, vec![Some(Outcome::Pass); 2]);
        assert_eq!(m.out_res(2), 18);
        assert_eq!(c(&m, "serialized"), 1);
    }

    #[test]
    fn cycle_unsol_serialized_after_rsv() {
        // Same cycle: the paper-mode UNSOL compares the counters of the
        // start of the cycle two before (18), not the RSV's 22.
        let mut m = model(Pl2Mode::Paper);
        m.set_out_res(2, 18);
        m.cycle(&[None, None]);
        m.cycle(&[None, None]);
        let out = m.cycle(&[rsv_op(1, 2, 4), Some(Op::Unsol { src: 3, dst: 2 })]);
        assert_eq!(out, vec![Some(grt(1, 2, 4, 0, 18)), Some(Outcome::Pass)], "UNSOL sees 18");
        assert_state(&m, &[(1, 4)], &[(2, 21)], "RSV first, the UNSOL's decrement");
        assert_eq!(c(&m, "serialized"), 1);
        // Two cycles later it still sees 18 (and passes: 20), three cycles
        // later the RSV's reservation (21 > T).
        m.cycle(&[None, None]);
        assert_eq!(m.cycle(&[None, Some(Op::Unsol { src: 3, dst: 2 })]), vec![None, Some(Outcome::Pass)]);
        assert_eq!(m.cycle(&[None, Some(Op::Unsol { src: 3, dst: 2 })]), vec![None, Some(Outcome::Drop(DropReason::UnsolOverT))]);
        let mut m = model(Pl2Mode::Paper);
        m.set_out_res(2, 18);
        m.cycle(&[None, None]);
        m.cycle(&[None, None]);
        let out = m.cycle(&[Some(Op::Unsol { src: 3, dst: 2 }), rsv_op(1, 2, 4)]);
        assert_eq!(out, vec![Some(Outcome::Pass), Some(grt(1, 2, 4, 0, 18))], "UNSOL sees 18, its decrement lands late");
        assert_state(&m, &[(1, 4)], &[(2, 21)], "UNSOL first");
        assert_eq!((c(&m, "serialized"), c(&m, "data_underflow")), (1, 1));
    }

    #[test]
    fn cycle_joint_mode_ticks() {
        let mut m = Pl2Model::new(Pl2Config { slot_run: true, ..cfg(Pl2Mode::Joint) }).unwrap();
        // Cycle 0, now 0: two RSVs to out2, serialised.
        let out = m.cycle(&[rsv_op(1, 2, 4), rsv_op(3, 2, 4)]);
        assert_eq!(out, vec![Some(grt(1, 2, 4, 0, 0)), Some(grt(3, 2, 4, 4, 4))]);
        assert_eq!(m.now(), 1, "the cycle ticked after the ops");
        // Cycle 1, now 1: s = max(1, in5 = 0, out2 = 8) = 8, wait 7.
        assert_eq!(m.cycle(&[rsv_op(5, 2, 1)]), vec![Some(grt(5, 2, 1, 7, 7))]);
        assert_eq!((m.in_res(5), m.out_res(2), m.now()), (9, 9, 2));
        // Cycles 2..=17 idle: every slot tick takes one off each backlog; by
        // now = 9 every reservation (all <= 9) has come, and each counter
        // reads now.
        for c in 2..18 {
            assert_eq!(m.cycle(&[None, None]), vec![None, None]);
            assert_eq!(m.out_res(2), (c + 1).max(9), "cycle {c}");
        }
        assert_eq!(m.now(), 18);
        assert_state(&m, &[], &[], "all reservations have come");
        assert_eq!(m.cycle(&[rsv_op(1, 2, 4)]), vec![Some(grt(1, 2, 4, 0, 0))], "s = now = 18");
        assert_eq!((m.in_res(1), m.out_res(2)), (22, 22));
    }

    #[test]
    fn cycle_single_op_matches_apply() {
        for mode in [Pl2Mode::Paper, Pl2Mode::JointWithDecrements] {
            let mut rng = SmallRng::seed_from_u64(27);
            let mut a = model(mode);
            let mut b = model(mode);
            for i in 0..5000 {
                let (s, d) = (rng.gen_range(0..10u8), rng.gen_range(0..10u8));
                let op = match rng.gen_range(0..10) {
                    0..=3 => Op::Rsv(Rsv {
                        ingress_port: s,
                        src_port: if rng.gen_bool(0.9) { s } else { d },
                        dst_port: d,
                        demand: rng.gen_range(0..7),
                        cookie: i,
                    }),
                    4 => Op::GrtFromHost,
                    5..=7 => Op::Data { src: s, dst: d },
                    _ => Op::Unsol { src: s, dst: d },
                };
                // Two idle cycles first: a paper-mode UNSOL in a cycle
                // compares the counters of the start of the cycle two before.
                b.cycle(&[None]);
                b.cycle(&[None]);
                assert_eq!(b.cycle(&[Some(op)]), vec![Some(a.apply(&op))], "{mode:?} op {i}: {op:?}");
                for p in 0..8 {
                    assert_eq!((a.in_res(p), a.out_res(p)), (b.in_res(p), b.out_res(p)), "{mode:?} op {i}");
                }
            }
            assert_eq!(a.counter_values(), b.counter_values());
            let v = a.counter_values();
            assert!(v.rsv_ok > 500 && v.unsol_drop > 0 && v.unsol_pass > 0 && v.data_underflow > 0, "{v:?}");
        }
    }

    #[test]
    fn disabled_ports() {
        let mut m = Pl2Model::new(Pl2Config { port_en: 0xff & !(1 << 6), ..cfg(Pl2Mode::Paper) }).unwrap();
        assert_eq!(rsv(&mut m, 6, 2, 4), Outcome::Drop(DropReason::DisabledIngress));
        assert_eq!(rsv(&mut m, 1, 6, 4), Outcome::Drop(DropReason::BadPort));
        assert_state(&m, &[], &[], "drops change nothing");
        assert_eq!((c(&m, "rsv_disabled_ingress"), c(&m, "rsv_bad_port"), c(&m, "rsv_ok")), (1, 1, 0));
        m.set_in_res(1, 2);
        m.set_out_res(2, 2);
        m.set_in_res(6, 7);
        m.set_out_res(6, 7);
        m.data(6, 2);
        assert_state(&m, &[(1, 2), (6, 7)], &[(2, 1), (6, 7)], "DATA 6→2: only out2");
        m.data(1, 6);
        assert_state(&m, &[(1, 1), (6, 7)], &[(2, 1), (6, 7)], "DATA 1→6: only in1");
        m.set_in_res(6, 100);
        m.set_out_res(6, 100);
        assert_eq!(m.unsol(1, 6), Outcome::Pass, "a disabled port's counter takes no part");
        assert_eq!(m.unsol(6, 2), Outcome::Pass);
        assert_state(&m, &[(6, 100)], &[(2, 0), (6, 100)], "after UNSOLs");
        assert_eq!((c(&m, "data_dec"), c(&m, "data_underflow")), (4, 0));
    }

    #[test]
    fn src_mismatch_and_grt_from_host() {
        let mut m = model(Pl2Mode::Paper);
        let g = m.rsv(1, 3, 2, 2, 77);
        assert_eq!(g, Outcome::Grant(Grant { demand: 2, send: 0, recv: 0, cookie: 77, out_port: 1 }));
        assert_state(&m, &[(1, 2)], &[(2, 2)], "the ingress port is the source");
        assert_eq!(c(&m, "rsv_src_mismatch"), 1);
        assert_eq!(m.grt_from_host(), Outcome::Drop(DropReason::GrtFromHost));
        assert_eq!(m.cycle(&[Some(Op::GrtFromHost)]), vec![Some(Outcome::Drop(DropReason::GrtFromHost))]);
        assert_state(&m, &[(1, 2)], &[(2, 2)], "GRTs change nothing");
        assert_eq!(c(&m, "grt_from_host"), 2);
        // A dropped RSV with a wrong src_port field counts only its drop.
        assert_eq!(m.rsv(1, 3, 2, 0, 1), Outcome::Drop(DropReason::DemandZero));
        assert_eq!(c(&m, "rsv_src_mismatch"), 1);
    }

    #[test]
    fn joint_data_and_unsol() {
        let mut m = model(Pl2Mode::Joint);
        m.set_now(100);
        m.set_in_res(1, 104);
        m.set_out_res(2, 110);
        for _ in 0..3 {
            assert_eq!(m.data(1, 2), Outcome::Pass);
        }
        assert_state(&m, &[(1, 104)], &[(2, 110)], "DATA changes nothing");
        assert_eq!((c(&m, "data_pkts"), c(&m, "data_dec"), c(&m, "data_underflow")), (3, 0, 0));
        m.set_out_res(2, 120);
        assert_eq!(m.unsol(1, 2), Outcome::Pass, "120 - 100 = T");
        m.set_out_res(2, 121);
        assert_eq!(m.unsol(1, 2), Outcome::Drop(DropReason::UnsolOverT), "121 - 100 > T");
        m.set_in_res(1, 5);
        m.set_out_res(2, 7);
        assert_eq!(m.unsol(1, 2), Outcome::Pass, "both behind now: nothing ahead");
        assert_state(&m, &[], &[], "slots in the past hold nothing; UNSOL changes nothing");
        assert_eq!((c(&m, "unsol_pass"), c(&m, "unsol_drop")), (2, 1));
    }

    #[test]
    fn high_water_marks() {
        let mut m = model(Pl2Mode::Paper);
        rsv(&mut m, 1, 2, 4);
        rsv(&mut m, 3, 2, 4);
        for s in [1, 3] {
            for _ in 0..4 {
                m.data(s, 2);
            }
        }
        assert_state(&m, &[], &[], "drained");
        assert_eq!((m.in_high_water(1), m.in_high_water(3), m.out_high_water(2)), (4, 4, 8));
        m.set_out_res(2, 100);
        assert_eq!(m.out_high_water(2), 8, "host writes do not count");
        m.clear_high_water();
        assert_eq!((m.in_high_water(1), m.out_high_water(2)), (0, 0));
        m.data(1, 2);
        assert_eq!(m.out_high_water(2), 99, "the ALU's next write counts");
        // Joint mode: the mark is the backlog ahead of now, not the slot number.
        let mut j = model(Pl2Mode::Joint);
        j.set_now(50);
        assert_eq!(rsv(&mut j, 1, 2, 4), grt(1, 2, 4, 0, 0));
        assert_eq!((j.in_res(1), j.in_high_water(1), j.out_high_water(2)), (54, 4, 4));
        assert_eq!((m.in_high_water(99), m.out_high_water(99)), (0, 0));
    }

    #[test]
    fn out_of_range_inputs_never_panic() {
        let mut m = model(Pl2Mode::Paper);
        assert_eq!((m.in_res(200), m.out_res(8)), (0, 0));
        assert!(!m.set_in_res(8, 1) && !m.set_out_res(200, 1));
        assert_eq!(m.data(200, 250), Outcome::Pass);
        assert_eq!(m.unsol(9, 1), Outcome::Pass);
        assert_eq!(m.rsv(200, 200, 1, 4, 0), Outcome::Drop(DropReason::DisabledIngress));
        assert_eq!(m.rsv(1, 1, 255, 255, 0), Outcome::Drop(DropReason::BadPort));
        assert_eq!(c(&m, "data_bad_port"), 2);
        assert_state(&m, &[], &[], "nothing changed");
        assert_eq!((c(&m, "data_dec"), c(&m, "data_underflow")), (0, 1), "UNSOL 9→1 hit out1 only");
        // 64 ports: port 63 works, port 64 is bad (no shift overflow).
        let mut w = Pl2Model::new(Pl2Config { ports: 64, port_en: u64::MAX, ..cfg(Pl2Mode::Paper) }).unwrap();
        assert_eq!(w.rsv(63, 63, 0, 255, 5), Outcome::Grant(Grant { demand: 4, send: 0, recv: 0, cookie: 5, out_port: 63 }));
        assert_eq!(w.rsv(0, 0, 64, 1, 5), Outcome::Drop(DropReason::BadPort));
        assert_eq!(w.rsv(64, 64, 0, 1, 5), Outcome::Drop(DropReason::DisabledIngress));
        assert_eq!(w.data(63, 64), Outcome::Pass);
        assert_eq!((w.in_res(63), w.out_res(0)), (3, 4));
        assert_eq!(w.cycle(&[]), Vec::<Option<Outcome>>::new());
    }

    #[test]
    fn counters_list_and_invariants() {
        let mut m = model(Pl2Mode::Paper);
        let names: Vec<&str> = m.counter_values().list().iter().map(|(n, _)| *n).collect();
        let map = m.counters();
        assert_eq!(map.len(), names.len(), "names are unique");
        assert!(names.iter().all(|n| map[*n] == 0));
        for r in [DropReason::DisabledIngress, DropReason::BadPort, DropReason::DemandZero, DropReason::GrtFromHost, DropReason::UnsolOverT]
        {
            assert!(names.contains(&r.counter()), "{r:?}");
        }
        let mut rng = SmallRng::seed_from_u64(3);
        for i in 0..3000 {
            let ops: Vec<Option<Op>> = (0..4)
                .map(|_| {
                    let (s, d) = (rng.gen_range(0..9u8), rng.gen_range(0..9u8));
                    match rng.gen_range(0..5) {
                        0 => rsv_op(s, d, rng.gen_range(0..6)),
                        1 => Some(Op::Data { src: s, dst: d }),
                        2 => Some(Op::Unsol { src: s, dst: d }),
                        3 => Some(Op::GrtFromHost),
                        _ => None,
                    }
                })
                .collect();
            let out = m.cycle(&ops);
            for (o, r) in ops.iter().zip(&out) {
                assert_eq!(o.is_some(), r.is_some(), "cycle {i}");
                if let (Some(Op::Rsv(_)), Some(r)) = (o, r) {
                    assert!(!matches!(r, Outcome::Pass | Outcome::Drop(DropReason::UnsolOverT | DropReason::GrtFromHost)));
                }
            }
        }
        let v = *m.counter_values();
        assert_eq!(v.rsv_pkts, v.rsv_ok + v.rsv_disabled_ingress + v.rsv_bad_port + v.rsv_demand_zero);
        assert!(v.rsv_ok > 0 && v.rsv_bad_port > 0 && v.rsv_demand_zero > 0 && v.serialized > 0);
        assert!(v.rsv_demand_clamped > 0 && v.data_bad_port > 0);
        assert_eq!(m.counters()["rsv_pkts"], v.rsv_pkts);
    }
}

//! `ts_meter_bank` and `ts_port_mode`: the meter-mode trimming decision of one
//! ingress pipeline (`docs/trimming.md`, "Meter mode (ndp.p4, seed 001)" and
//! "Meter bank and port mode: implementation"). Golden model:
//! `sim/src/model/meter.rs`.
//!
//! Seeds: 000 is Popa et al., *Implementing packet trimming support in
//! hardware* (section 4 "Trimming control loop design", section 5 "Tofino
//! implementation" with the per-packet pseudo-code and Figure 3); 001 is the
//! `ndp.p4` README ("How it works", ingress steps 2, 2.1, 2.2 and "NDP modes").
//!
//! - [`MeterBank`]: per egress port three byte token buckets (optimistic = line
//!   rate, halftimistic = 1/2, pessimistic = 1/4; the rates are inputs), one
//!   request per cycle, a green / not-green answer [`MeterBank::LATENCY`] cycles
//!   later.
//! - [`PortMode`]: per egress port the optimistic -> pessimistic -> halftimistic
//!   -> optimistic mode machine driven by DoD notifies and the timers T0 and T1.
//!
//! The mode values are shared: 0 optimistic, 1 halftimistic, 2 pessimistic
//! ([`mode`]); `MeterBank`'s per-kind inputs are indexed by the same values.
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::meta::{DEST_PORT_LSB, LENGTH_LSB, NDP_DATA_BIT, PRIO_BIT, TRIM_OK_BIT, T_IN_HI_LSB};
use crate::prim::widgets::{vec_of, DffR};
use rust_hdl::prelude::*;

/// Mode encoding of `PortMode::mode_<p>` and `MeterBank::req_mode`, and the
/// index of each meter kind in `MeterBank`'s `rate_<k>` / `burst_<k>` inputs.
pub mod mode {
    /// Meter at line rate (seed 000 section 4: "optimistic mode").
    pub const OPTIMISTIC: u8 = 0;
    /// Meter at 1/2 line rate ("half-pessimistic (aka halftimistic)", seed 000 section 5).
    pub const HALFTIMISTIC: u8 = 1;
    /// Meter at 1/4 line rate ("pessimistic mode", seed 000 section 4).
    pub const PESSIMISTIC: u8 = 2;
    /// Names, by mode value.
    pub const NAMES: [&str; 3] = ["optimistic", "halftimistic", "pessimistic"];
}

/// Fractional bits of a bucket level and of a rate (fixed point, bytes); the
/// emitter declares the name for the Verilog ([`crate::meta::hdl_names`]).
pub const FRAC_BITS: usize = 16;
/// Bits of a rate input: 16.16 fixed point, bytes per cycle (0 to 65535.99998).
pub const RATE_BITS: usize = 32;
/// Bits of a burst input: whole bytes, so a bucket holds at most 2^24 - 1 bytes.
pub const BURST_BITS: usize = 24;
/// Bits of a bucket level: 24.16 fixed point, bytes.
pub const LEVEL_BITS: usize = BURST_BITS + FRAC_BITS;
/// Bits of `req_bytes` (wire bytes of one packet).
pub const BYTES_BITS: usize = 16;
/// Bits of `req_port`.
pub const PORT_BITS: usize = 8;
/// Largest number of egress ports of either block.
pub const MAX_PORTS: usize = 64;

/// Wire overhead the caller adds to a packet's `tuser` length (FCS stripped,
/// the default `strip_fcs`) to get `req_bytes`: preamble + SFD (8), minimum
/// inter-frame gap (12) and FCS (4), as `setup_ndp.py` counts
/// (`docs/trimming.md`, "Meter mode"). With the FCS kept in the length, add 20.
pub const WIRE_OVERHEAD: u16 = 24;

/// A rate in bytes per cycle as the 16.16 value of `rate_<k>`: line rate
/// `gbps` at a `mhz` clock is `gbps * 1e3 / 8 / mhz` bytes per cycle (for
/// example 10 Gb/s at 156.25 MHz is 8.0, 100 Gb/s at 322.265625 MHz is 38.79).
/// Rounded down.
pub fn rate_fixed(bytes_per_cycle: f64) -> u32 {
    assert!((0.0..65536.0).contains(&bytes_per_cycle), "rate {bytes_per_cycle} B/cycle out of 16.16 range");
    (bytes_per_cycle * (1u64 << FRAC_BITS) as f64).floor() as u32
}

/// One ingress pipeline's meter bank: per egress port `p` (0..N) three byte
/// token buckets, kind `k` = 0 optimistic, 1 halftimistic, 2 pessimistic
/// (seed 000 section 5: "three stateful meters for each egress port:
/// meter_optimistic, meter_pessimistic and meter_halftimistic"). N is set by
/// [`MeterBank::new`] (1..=64).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset. While
///   `reset` is high every bucket is set full (level = `burst_<k>` of that
///   cycle), the request in flight is dropped and the counters are zeroed.
///   Hold it for at least 2 cycles (the rate/burst pipeline, below).
/// - `rate_<k>` in (32 bits, k = 0, 1, 2): refill of every kind-`k` bucket per
///   cycle, 16.16 fixed point in bytes per cycle ([`rate_fixed`]).
/// - `burst_<k>` in (24 bits): capacity of every kind-`k` bucket, whole bytes.
/// - `req_valid`, `req_port` (8 bits), `req_bytes` (16 bits), `req_mode` (2
///   bits) in: one request per cycle at most, never back-pressured.
///   `req_bytes` are *wire* bytes: the frame plus [`WIRE_OVERHEAD`] (plus 4
///   more if the length excludes the FCS). `req_mode` is the port's current
///   mode ([`mode`]; 3 is treated as pessimistic).
/// - `resp_valid`, `resp_green` out (registered): the answer to the request of
///   cycle `c` in cycle `c + LATENCY`, in request order, one per request.
/// - `green_pkts_<p>`, `not_green_pkts_<p>` out (32 bits, wrap): answers for
///   port `p`; they include an answer from the cycle it is on `resp_*`.
///   `clr_green_pkts_<p>`, `clr_not_green_pkts_<p>` in: clear (zero in the
///   next cycle; an answer counted in the same cycle is lost).
///
/// Semantics (level `L` in 24.16 bytes, `B` = `req_bytes` << 16, `R`, `C` the
/// rate and capacity (`burst` << 16) of the bucket's kind):
/// - **Decision.** A request for port `p` is green iff the bucket of kind
///   `req_mode` of port `p` holds `L >= B` in the cycle the request is decided
///   (`c + 1`). The answer is "not green" rather than red or yellow: ndp.p4
///   trims on `!= GREEN` (seed 001, ingress step 2.2).
/// - **All three meters are charged.** Every request executes all three
///   meters of its port, as ndp.p4 does for every packet (seed 000 section 5
///   pseudo-code: `opticolor`, `pessicolor` and `halfcolor` are all
///   `execute`d, then the mode picks one colour). Each meter follows its own
///   verdict: a meter with `L >= B` is decremented by `B`, a meter that does
///   not hold `B` is left alone (a token bucket takes no tokens from a packet
///   it does not pass). So each meter's verdicts depend only on its own rate,
///   burst and the request sizes, never on the modes.
/// - **Refill.** Every cycle every bucket becomes
///   `min(L - charged + R, C)`, the decision of that cycle using `L` from
///   before it. Back-to-back requests to one port therefore see each other:
///   a request decided in cycle `c + 1` sees every charge up to cycle `c`.
/// - **Rate and burst inputs** are pipelined: the refill, cap and charge of
///   cycle `t` use `rate_<k>`/`burst_<k>` as they were in cycle `t - 2`
///   (reset uses `burst_<k>` of its own cycle). This keeps the decision and
///   update within one carry chain (see `docs/trimming.md`).
/// - **Out-of-range port** (`req_port >= N`): answered not green, no meter
///   charged, no counter changed. `req_bytes = 0` is always green and charges
///   nothing.
#[derive(LogicBlock)]
pub struct MeterBank {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rate: Vec<Signal<In, Bits<RATE_BITS>>>,
    pub burst: Vec<Signal<In, Bits<BURST_BITS>>>,
    pub req_valid: Signal<In, Bit>,
    pub req_port: Signal<In, Bits<PORT_BITS>>,
    pub req_bytes: Signal<In, Bits<BYTES_BITS>>,
    pub req_mode: Signal<In, Bits<2>>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_green: Signal<Out, Bit>,
    pub green_pkts: Vec<Signal<Out, Bits<32>>>,
    pub not_green_pkts: Vec<Signal<Out, Bits<32>>>,
    pub clr_green_pkts: Vec<Signal<In, Bit>>,
    pub clr_not_green_pkts: Vec<Signal<In, Bit>>,
    c_half: Constant<Bits<2>>,
    c_opt: Constant<Bits<2>>,
    // Rate/burst pipeline: stage 1 (inputs of the previous cycle, with
    // `C - R` and `R < C` registered apart: the compare's chain and the
    // subtract's chain side by side, the select after the register; issue
    // 14), stage 2 (a copy of stage 1 with the saturation threshold
    // `max(C - R, 0)` selected).
    rate1: Vec<DFF<Bits<RATE_BITS>>>,
    burst1: Vec<DFF<Bits<BURST_BITS>>>,
    diff1: Vec<DFF<Bits<LEVEL_BITS>>>,
    lt1: Vec<DFF<Bit>>,
    rate2: Vec<DFF<Bits<RATE_BITS>>>,
    burst2: Vec<DFF<Bits<BURST_BITS>>>,
    thr2: Vec<DFF<Bits<LEVEL_BITS>>>,
    // Request stage (the request of the previous cycle).
    valid_q: DffR<Bit>,
    /// The request's port one-hot (`req_valid` and `req_port == p`; an
    /// out-of-range port sets none), so the decision cycle has no port
    /// decoder in front of the buckets' enables (issue 14).
    hit_q: Vec<DffR<Bit>>,
    bytes_q: DFF<Bits<BYTES_BITS>>,
    mode_q: DFF<Bits<2>>,
    /// Per kind: `R - B` (mod 2^40), the change of a charged bucket.
    delta_q: Vec<DFF<Bits<LEVEL_BITS>>>,
    /// Per kind: `max(C - R, 0) + B`; a charged bucket saturates iff `L >= it`.
    thrb_q: Vec<DFF<Bits<41>>>,
    // Buckets: `level[3 p + k]`.
    level: Vec<DFF<Bits<LEVEL_BITS>>>,
    // Answer and counters.
    resp_valid_q: DffR<Bit>,
    resp_green_q: DffR<Bit>,
    n_green: Vec<DffR<Bits<32>>>,
    n_not_green: Vec<DffR<Bits<32>>>,
    // Combinational.
    cap_in: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    rate_in: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    bytes_fx: Signal<Local, Bits<LEVEL_BITS>>,
    bytes_fx41: Signal<Local, Bits<41>>,
    rate1w: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    /// Stage 1's `max(C - R, 0)`, from its registers.
    thr1: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    thr1w: Vec<Signal<Local, Bits<41>>>,
    rate2w: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    thrb_lo: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    thrb_hi: Vec<Signal<Local, Bit>>,
    cap2: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    /// The capacity a saturating bucket takes: `burst` (stage 2), or
    /// `burst` as it is under reset (one multiplexer from registers, so the
    /// reset adds no level behind the bucket arithmetic; issue 14).
    cap_sel: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    // Per bucket `3 p + k`, in parallel: holds the request, level if charged
    // (`charged_b`, before saturation), charging saturates (`sat_c`),
    // refilling saturates (`sat_r`), the bucket takes its capacity
    // (`use_cap`).
    conf_b: Vec<Signal<Local, Bit>>,
    charged_b: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    sat_c: Vec<Signal<Local, Bit>>,
    sat_r: Vec<Signal<Local, Bit>>,
    charge: Vec<Signal<Local, Bit>>,
    use_cap: Vec<Signal<Local, Bit>>,
    hit: Vec<Signal<Local, Bit>>,
    green_p: Vec<Signal<Local, Bit>>,
    refilled: Vec<Signal<Local, Bits<LEVEL_BITS>>>,
    green: Signal<Local, Bit>,
}

impl MeterBank {
    /// Cycles from a request (`req_valid` high in cycle `c`) to its answer
    /// (`resp_valid` high in cycle `c + LATENCY`): one cycle in the request
    /// register, one to decide and update the buckets.
    pub const LATENCY: u64 = 2;

    /// A bank for `n` egress ports (1..=64).
    pub fn new(n: usize) -> Self {
        assert!((1..=MAX_PORTS).contains(&n), "MeterBank: 1..={MAX_PORTS} ports");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rate: vec_of(3),
            burst: vec_of(3),
            req_valid: Default::default(),
            req_port: Default::default(),
            req_bytes: Default::default(),
            req_mode: Default::default(),
            resp_valid: Default::default(),
            resp_green: Default::default(),
            green_pkts: vec_of(n),
            not_green_pkts: vec_of(n),
            clr_green_pkts: vec_of(n),
            clr_not_green_pkts: vec_of(n),
            c_half: Constant::new((mode::HALFTIMISTIC as u64).to_bits()),
            c_opt: Constant::new((mode::OPTIMISTIC as u64).to_bits()),
            rate1: vec_of(3),
            burst1: vec_of(3),
            diff1: vec_of(3),
            lt1: vec_of(3),
            thr1: vec_of(3),
            rate2: vec_of(3),
            burst2: vec_of(3),
            thr2: vec_of(3),
            valid_q: Default::default(),
            hit_q: vec_of(n),
            bytes_q: Default::default(),
            mode_q: Default::default(),
            delta_q: vec_of(3),
            thrb_q: vec_of(3),
            level: vec_of(3 * n),
            resp_valid_q: Default::default(),
            resp_green_q: Default::default(),
            n_green: vec_of(n),
            n_not_green: vec_of(n),
            cap_in: vec_of(3),
            rate_in: vec_of(3),
            bytes_fx: Default::default(),
            bytes_fx41: Default::default(),
            rate1w: vec_of(3),
            thr1w: vec_of(3),
            rate2w: vec_of(3),
            thrb_lo: vec_of(3),
            thrb_hi: vec_of(3),
            cap2: vec_of(3),
            cap_sel: vec_of(3),
            conf_b: vec_of(3 * n),
            charged_b: vec_of(3 * n),
            sat_c: vec_of(3 * n),
            sat_r: vec_of(3 * n),
            charge: vec_of(3 * n),
            use_cap: vec_of(3 * n),
            hit: vec_of(n),
            green_p: vec_of(n),
            refilled: vec_of(3 * n),
            green: Default::default(),
        }
    }

    /// Number of egress ports.
    pub fn ports(&self) -> usize {
        self.green_pkts.len()
    }
}

impl Logic for MeterBank {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid_q, bytes_q, mode_q, resp_valid_q, resp_green_q);
        self.valid_q.reset.next = self.reset.val();
        self.resp_valid_q.reset.next = self.reset.val();
        self.resp_green_q.reset.next = self.reset.val();

        // Widening casts, one line per kind: `bit_cast` is evaluated when the
        // Verilog is generated, so its argument cannot use a loop index.
        self.cap_in[0].next = bit_cast::<LEVEL_BITS, BURST_BITS>(self.burst[0].val()) << 16;
        self.cap_in[1].next = bit_cast::<LEVEL_BITS, BURST_BITS>(self.burst[1].val()) << 16;
        self.cap_in[2].next = bit_cast::<LEVEL_BITS, BURST_BITS>(self.burst[2].val()) << 16;
        self.rate_in[0].next = bit_cast::<LEVEL_BITS, RATE_BITS>(self.rate[0].val());
        self.rate_in[1].next = bit_cast::<LEVEL_BITS, RATE_BITS>(self.rate[1].val());
        self.rate_in[2].next = bit_cast::<LEVEL_BITS, RATE_BITS>(self.rate[2].val());
        self.rate1w[0].next = bit_cast::<LEVEL_BITS, RATE_BITS>(self.rate1[0].q.val());
        self.rate1w[1].next = bit_cast::<LEVEL_BITS, RATE_BITS>(self.rate1[1].q.val());
        self.rate1w[2].next = bit_cast::<LEVEL_BITS, RATE_BITS>(self.rate1[2].q.val());
        self.rate2w[0].next = bit_cast::<LEVEL_BITS, RATE_BITS>(self.rate2[0].q.val());
        self.rate2w[1].next = bit_cast::<LEVEL_BITS, RATE_BITS>(self.rate2[1].q.val());
        self.rate2w[2].next = bit_cast::<LEVEL_BITS, RATE_BITS>(self.rate2[2].q.val());
        self.cap2[0].next = bit_cast::<LEVEL_BITS, BURST_BITS>(self.burst2[0].q.val()) << 16;
        self.cap2[1].next = bit_cast::<LEVEL_BITS, BURST_BITS>(self.burst2[1].q.val()) << 16;
        self.cap2[2].next = bit_cast::<LEVEL_BITS, BURST_BITS>(self.burst2[2].q.val()) << 16;
        self.bytes_fx.next = bit_cast::<LEVEL_BITS, BYTES_BITS>(self.req_bytes.val()) << 16;
        self.bytes_fx41.next = bit_cast::<41, BYTES_BITS>(self.req_bytes.val()) << 16;

        // Rate/burst pipeline (no reset: loaded every cycle).
        for k in 0..3 {
            self.rate1[k].clock.next = self.clock.val();
            self.burst1[k].clock.next = self.clock.val();
            self.diff1[k].clock.next = self.clock.val();
            self.lt1[k].clock.next = self.clock.val();
            self.rate2[k].clock.next = self.clock.val();
            self.burst2[k].clock.next = self.clock.val();
            self.thr2[k].clock.next = self.clock.val();
            self.delta_q[k].clock.next = self.clock.val();
            self.thrb_q[k].clock.next = self.clock.val();
            self.rate1[k].d.next = self.rate[k].val();
            self.burst1[k].d.next = self.burst[k].val();
            self.diff1[k].d.next = self.cap_in[k].val() - self.rate_in[k].val();
            self.lt1[k].d.next = self.rate_in[k].val() < self.cap_in[k].val();
            self.thr1[k].next = 0.into();
            if self.lt1[k].q.val() {
                self.thr1[k].next = self.diff1[k].q.val();
            }
            self.rate2[k].d.next = self.rate1[k].q.val();
            self.burst2[k].d.next = self.burst1[k].q.val();
            self.thr2[k].d.next = self.thr1[k].val();
        }

        // (After `thr1` is written: one combinational block reads it.)
        self.thr1w[0].next = bit_cast::<41, LEVEL_BITS>(self.thr1[0].val());
        self.thr1w[1].next = bit_cast::<41, LEVEL_BITS>(self.thr1[1].val());
        self.thr1w[2].next = bit_cast::<41, LEVEL_BITS>(self.thr1[2].val());

        // Request stage: register the request with the arithmetic that only
        // depends on it and on stage 1 of the rate/burst pipeline.
        self.valid_q.d.next = self.req_valid.val();
        self.bytes_q.d.next = self.req_bytes.val();
        self.mode_q.d.next = self.req_mode.val();
        for p in 0..self.green_pkts.len() {
            self.hit_q[p].clock.next = self.clock.val();
            self.hit_q[p].reset.next = self.reset.val();
            self.hit_q[p].d.next = self.req_valid.val() & (self.req_port.val().index() == p);
        }
        for k in 0..3 {
            self.delta_q[k].d.next = self.rate1w[k].val() - self.bytes_fx.val();
            self.thrb_q[k].d.next = self.thr1w[k].val() + self.bytes_fx41.val();
        }

        // Decision. Every bucket computes in parallel whether it holds the
        // request and its level if charged (the charge and the refill); the
        // requested port's verdicts are selected afterwards, so no port
        // multiplexer sits in front of the 40-bit arithmetic (issue 14).
        self.thrb_lo[0].next = self.thrb_q[0].q.val().get_bits::<LEVEL_BITS>(0);
        self.thrb_lo[1].next = self.thrb_q[1].q.val().get_bits::<LEVEL_BITS>(0);
        self.thrb_lo[2].next = self.thrb_q[2].q.val().get_bits::<LEVEL_BITS>(0);
        self.thrb_hi[0].next = self.thrb_q[0].q.val().get_bit(LEVEL_BITS);
        self.thrb_hi[1].next = self.thrb_q[1].q.val().get_bit(LEVEL_BITS);
        self.thrb_hi[2].next = self.thrb_q[2].q.val().get_bit(LEVEL_BITS);
        self.green.next = false;
        for p in 0..self.green_pkts.len() {
            self.hit[p].next = self.hit_q[p].q.val();
            for k in 0..3 {
                // L >= B on whole bytes; B has 16 bits, so 16-bit compare.
                self.conf_b[3 * p + k].next = self.level[3 * p + k].q.val().get_bits::<8>(FRAC_BITS + BYTES_BITS).any()
                    | (self.level[3 * p + k].q.val().get_bits::<BYTES_BITS>(FRAC_BITS) >= self.bytes_q.q.val());
                self.charged_b[3 * p + k].next = self.level[3 * p + k].q.val() + self.delta_q[k].q.val();
                // A charged bucket saturates iff L >= max(C - R, 0) + B (41 bits).
                self.sat_c[3 * p + k].next = !self.thrb_hi[k].val() & (self.level[3 * p + k].q.val() >= self.thrb_lo[k].val());
            }
            // The verdict port p would give (its counters need no port multiplexer).
            if self.mode_q.q.val() == self.c_opt.val() {
                self.green_p[p].next = self.conf_b[3 * p].val();
            } else if self.mode_q.q.val() == self.c_half.val() {
                self.green_p[p].next = self.conf_b[3 * p + 1].val();
            } else {
                self.green_p[p].next = self.conf_b[3 * p + 2].val();
            }
            // The answer: an AND-OR over the one-hot `hit` (an out-of-range
            // port hits none and is not green).
            self.green.next = self.green.val() | (self.hit[p].val() & self.green_p[p].val());
        }
        self.resp_valid_q.d.next = self.valid_q.q.val();
        self.resp_green_q.d.next = self.green.val();

        // Every bucket: refill, or the charged value if it is the requested
        // one; either saturates at the capacity, which reset also loads. One
        // 3:1 multiplexer behind the arithmetic (issue 14).
        for k in 0..3 {
            self.cap_sel[k].next = self.cap2[k].val();
            if self.reset.val() {
                self.cap_sel[k].next = self.cap_in[k].val();
            }
        }
        for p in 0..self.green_pkts.len() {
            for k in 0..3 {
                self.level[3 * p + k].clock.next = self.clock.val();
                self.refilled[3 * p + k].next = self.level[3 * p + k].q.val() + self.rate2w[k].val();
                self.sat_r[3 * p + k].next = self.level[3 * p + k].q.val() >= self.thr2[k].q.val();
                self.charge[3 * p + k].next = self.hit[p].val() & self.conf_b[3 * p + k].val();
                self.use_cap[3 * p + k].next = self.reset.val() | self.sat_r[3 * p + k].val();
                if self.charge[3 * p + k].val() {
                    self.use_cap[3 * p + k].next = self.reset.val() | self.sat_c[3 * p + k].val();
                }
                if self.use_cap[3 * p + k].val() {
                    self.level[3 * p + k].d.next = self.cap_sel[k].val();
                } else if self.charge[3 * p + k].val() {
                    self.level[3 * p + k].d.next = self.charged_b[3 * p + k].val();
                } else {
                    self.level[3 * p + k].d.next = self.refilled[3 * p + k].val();
                }
            }
            self.n_green[p].clock.next = self.clock.val();
            self.n_green[p].reset.next = self.reset.val();
            self.n_not_green[p].clock.next = self.clock.val();
            self.n_not_green[p].reset.next = self.reset.val();
            self.n_green[p].d.next = self.n_green[p].q.val();
            self.n_not_green[p].d.next = self.n_not_green[p].q.val();
            if self.hit[p].val() {
                if self.green_p[p].val() {
                    self.n_green[p].d.next = self.n_green[p].q.val() + 1;
                } else {
                    self.n_not_green[p].d.next = self.n_not_green[p].q.val() + 1;
                }
            }
            if self.clr_green_pkts[p].val() {
                self.n_green[p].d.next = 0.into();
            }
            if self.clr_not_green_pkts[p].val() {
                self.n_not_green[p].d.next = 0.into();
            }
            self.green_pkts[p].next = self.n_green[p].q.val();
            self.not_green_pkts[p].next = self.n_not_green[p].q.val();
        }
        self.resp_valid.next = self.resp_valid_q.q.val();
        self.resp_green.next = self.resp_green_q.q.val();
    }
}

/// Per egress port the trimming mode (seed 000 section 5 and Figure 3; seed
/// 001 "NDP modes"). N is set by [`PortMode::new`] (1..=64).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (every port optimistic, timers and counters zero).
/// - `notify_<p>` in: a DoD notify for port `p` this cycle (a level, sampled
///   every cycle; one cycle high is one notify).
/// - `t0`, `t1` in (32 bits): the pessimistic and halftimistic durations in
///   cycles. Defaults 6 us and 24 us: at a clock of f MHz that is `6 f` and
///   `24 f` cycles, rounded up (938 and 3750 at 156.25 MHz, 1200 and 4800 at
///   200 MHz, 1934 and 7735 at 322.265625 MHz). A value is read when its
///   phase starts (`t0` at a notify, `t1` when T0 ends); a change does not
///   alter a phase already running.
/// - `mode_<p>` out (2 bits, registered): 0 optimistic, 1 halftimistic, 2
///   pessimistic ([`mode`]).
/// - `cycles_opt_<p>`, `cycles_half_<p>`, `cycles_pess_<p>` out (32 bits,
///   wrap): cycles with `mode_<p>` at that value since reset, up to the
///   previous cycle. `notifies_<p>` out (32 bits, wrap): cycles with
///   `notify_<p>` high, up to the previous cycle. `clr_cycles_opt_<p>`,
///   `clr_cycles_half_<p>`, `clr_cycles_pess_<p>`, `clr_notifies_<p>` in:
///   clear (zero in the next cycle; a count of the same cycle is lost).
///
/// Timing (exact): with `notify_<p>` high in cycle `c` (and no further
/// notify), `mode_<p>` is pessimistic in cycles `c+1 ..= c+T0`, halftimistic
/// in `c+T0+1 ..= c+T0+T1`, optimistic from `c+T0+T1+1`. A notify in any mode,
/// including pessimistic, restarts this from its own cycle (seed 000 section
/// 5: "Any congestion notification causes a transition to pessimistic and
/// restarts the t0 timeout"). A phase of length 0 is skipped: `t0 = 0` makes
/// a notify go straight to halftimistic, `t0 = t1 = 0` makes notifies change
/// nothing. The machine never waits on anything but its own counter, so no
/// value hangs it.
///
/// T1 is the *length* of the halftimistic phase, as in seed 001 ("A port
/// remains in halftimistic mode for T1 ns") and seed 000 Figure 3. The ndp.p4
/// pseudo-code of seed 000 section 5 instead sets `t1_reg = now() + T1` at the
/// notify, so there halftimistic lasts T1 - T0 (6 and 24 us give the "6us
/// pessimistic mode followed by 18us halftimistic mode" of section 6.3); to
/// reproduce it, set `t1` to T1 - T0.
#[derive(LogicBlock)]
pub struct PortMode {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub notify: Vec<Signal<In, Bit>>,
    pub t0: Signal<In, Bits<32>>,
    pub t1: Signal<In, Bits<32>>,
    pub mode: Vec<Signal<Out, Bits<2>>>,
    pub cycles_opt: Vec<Signal<Out, Bits<32>>>,
    pub cycles_half: Vec<Signal<Out, Bits<32>>>,
    pub cycles_pess: Vec<Signal<Out, Bits<32>>>,
    pub notifies: Vec<Signal<Out, Bits<32>>>,
    pub clr_cycles_opt: Vec<Signal<In, Bit>>,
    pub clr_cycles_half: Vec<Signal<In, Bit>>,
    pub clr_cycles_pess: Vec<Signal<In, Bit>>,
    pub clr_notifies: Vec<Signal<In, Bit>>,
    c_opt: Constant<Bits<2>>,
    c_half: Constant<Bits<2>>,
    c_pess: Constant<Bits<2>>,
    state: Vec<DffR<Bits<2>>>,
    /// Cycles left in the current phase, this one included (0 when optimistic).
    left: Vec<DffR<Bits<32>>>,
    n_opt: Vec<DffR<Bits<32>>>,
    n_half: Vec<DffR<Bits<32>>>,
    n_pess: Vec<DffR<Bits<32>>>,
    n_notify: Vec<DffR<Bits<32>>>,
    t0_nz: Signal<Local, Bit>,
    t1_nz: Signal<Local, Bit>,
    last: Vec<Signal<Local, Bit>>,
}

impl PortMode {
    /// A mode machine for `n` egress ports (1..=64).
    pub fn new(n: usize) -> Self {
        assert!((1..=MAX_PORTS).contains(&n), "PortMode: 1..={MAX_PORTS} ports");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            notify: vec_of(n),
            t0: Default::default(),
            t1: Default::default(),
            mode: vec_of(n),
            cycles_opt: vec_of(n),
            cycles_half: vec_of(n),
            cycles_pess: vec_of(n),
            notifies: vec_of(n),
            clr_cycles_opt: vec_of(n),
            clr_cycles_half: vec_of(n),
            clr_cycles_pess: vec_of(n),
            clr_notifies: vec_of(n),
            c_opt: Constant::new((mode::OPTIMISTIC as u64).to_bits()),
            c_half: Constant::new((mode::HALFTIMISTIC as u64).to_bits()),
            c_pess: Constant::new((mode::PESSIMISTIC as u64).to_bits()),
            state: vec_of(n),
            left: vec_of(n),
            n_opt: vec_of(n),
            n_half: vec_of(n),
            n_pess: vec_of(n),
            n_notify: vec_of(n),
            t0_nz: Default::default(),
            t1_nz: Default::default(),
            last: vec_of(n),
        }
    }

    /// Number of egress ports.
    pub fn ports(&self) -> usize {
        self.mode.len()
    }
}

impl Logic for PortMode {
    #[hdl_gen]
    fn update(&mut self) {
        self.t0_nz.next = self.t0.val().any();
        self.t1_nz.next = self.t1.val().any();
        for p in 0..self.mode.len() {
            self.state[p].clock.next = self.clock.val();
            self.state[p].reset.next = self.reset.val();
            self.left[p].clock.next = self.clock.val();
            self.left[p].reset.next = self.reset.val();
            self.n_opt[p].clock.next = self.clock.val();
            self.n_opt[p].reset.next = self.reset.val();
            self.n_half[p].clock.next = self.clock.val();
            self.n_half[p].reset.next = self.reset.val();
            self.n_pess[p].clock.next = self.clock.val();
            self.n_pess[p].reset.next = self.reset.val();
            self.n_notify[p].clock.next = self.clock.val();
            self.n_notify[p].reset.next = self.reset.val();

            // Last cycle of the current phase (`left` <= 1; 0 cannot occur in
            // a timed phase, and ends it too).
            self.last[p].next = self.left[p].q.val() <= 1;
            self.state[p].d.next = self.state[p].q.val();
            self.left[p].d.next = self.left[p].q.val() - 1;
            if self.state[p].q.val() == self.c_pess.val() {
                if self.last[p].val() {
                    if self.t1_nz.val() {
                        self.state[p].d.next = self.c_half.val();
                        self.left[p].d.next = self.t1.val();
                    } else {
                        self.state[p].d.next = self.c_opt.val();
                        self.left[p].d.next = 0.into();
                    }
                }
            } else if self.state[p].q.val() == self.c_half.val() {
                if self.last[p].val() {
                    self.state[p].d.next = self.c_opt.val();
                    self.left[p].d.next = 0.into();
                }
            } else {
                // Optimistic (and the unused code 3, which leaves at once).
                self.state[p].d.next = self.c_opt.val();
                self.left[p].d.next = 0.into();
            }
            if self.notify[p].val() {
                if self.t0_nz.val() {
                    self.state[p].d.next = self.c_pess.val();
                    self.left[p].d.next = self.t0.val();
                } else if self.t1_nz.val() {
                    self.state[p].d.next = self.c_half.val();
                    self.left[p].d.next = self.t1.val();
                } else {
                    self.state[p].d.next = self.c_opt.val();
                    self.left[p].d.next = 0.into();
                }
            }

            self.n_opt[p].d.next = self.n_opt[p].q.val();
            self.n_half[p].d.next = self.n_half[p].q.val();
            self.n_pess[p].d.next = self.n_pess[p].q.val();
            self.n_notify[p].d.next = self.n_notify[p].q.val();
            if self.state[p].q.val() == self.c_opt.val() {
                self.n_opt[p].d.next = self.n_opt[p].q.val() + 1;
            }
            if self.state[p].q.val() == self.c_half.val() {
                self.n_half[p].d.next = self.n_half[p].q.val() + 1;
            }
            if self.state[p].q.val() == self.c_pess.val() {
                self.n_pess[p].d.next = self.n_pess[p].q.val() + 1;
            }
            if self.notify[p].val() {
                self.n_notify[p].d.next = self.n_notify[p].q.val() + 1;
            }
            if self.clr_cycles_opt[p].val() {
                self.n_opt[p].d.next = 0.into();
            }
            if self.clr_cycles_half[p].val() {
                self.n_half[p].d.next = 0.into();
            }
            if self.clr_cycles_pess[p].val() {
                self.n_pess[p].d.next = 0.into();
            }
            if self.clr_notifies[p].val() {
                self.n_notify[p].d.next = 0.into();
            }
            self.mode[p].next = self.state[p].q.val();
            self.cycles_opt[p].next = self.n_opt[p].q.val();
            self.cycles_half[p].next = self.n_half[p].q.val();
            self.cycles_pess[p].next = self.n_pess[p].q.val();
            self.notifies[p].next = self.n_notify[p].q.val();
        }
    }
}

/// The `tuser` bits that enter the traffic manager from outside (the
/// others are its own and are cleared at its input: [`MeterStage`]'s ports).
pub fn user_in_mask<const U: usize>() -> Bits<U> {
    (0..88).chain(T_IN_HI_LSB..T_IN_HI_LSB + 6).fold(Bits::<U>::default(), |b, i| b.replace_bit(i, true))
}

/// Bit of `tuser` (internal to the traffic manager) that [`MeterStage`] sets
/// on a packet whose meter answered "not green": trim it at ingress (seed 001,
/// ingress step 2.2).
pub const METER_TRIM_BIT: usize = 88;

/// `ts_meter_stage`: the meter-mode ingress decision of one pipeline (seed 001,
/// "How it works" steps 2 to 2.2), an AXI4-Stream stage in front of the
/// traffic manager's admission.
///
/// At the first beat of an NDP data packet (`tuser` `ndp_data` and `trim_ok`
/// set, `prio` clear) and with `enable` high, it asks the meter bank
/// (`req_*`: `dest_port`, `length` + [`WIRE_OVERHEAD`] wire bytes, the
/// destination's current mode from `mode[p]`) and holds the beat until the
/// answer ([`MeterBank::LATENCY`] cycles after the request); a "not green"
/// answer sets [`METER_TRIM_BIT`] in the packet's `tuser`. Every other beat
/// passes through one register. Cost: one idle cycle per metered packet
/// (the beat waits in the register for the answer); otherwise one beat per
/// cycle.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock, synchronous active-high reset (the
///   held beat is discarded; reset the meter bank with it).
/// - `s_*` in, `m_*` out: AXI4-Stream, wide `tuser` ([`crate::meta`]);
///   `s_tready` follows `m_tready` combinationally. Input `tuser` bits 88,
///   89 and 96 up belong to the traffic manager and are cleared here, so
///   nothing from outside can pose as a meter mark or a packet coming back
///   from the DoD FIFO; bits 78..88 and 90..96 pass (a GRT's `t_in`,
///   [`crate::meta`]).
/// - `enable` in: meter mode (`CTRL` bit 3 of the traffic manager).
/// - `mode[p]` in (2 bits): port `p`'s mode ([`PortMode`]).
/// - `req_valid`, `req_port`, `req_bytes`, `req_mode` out; `resp_valid`,
///   `resp_green` in: [`MeterBank`]'s request and answer.
#[derive(LogicBlock)]
pub struct MeterStage<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub enable: Signal<In, Bit>,
    pub mode: Vec<Signal<In, Bits<2>>>,
    pub req_valid: Signal<Out, Bit>,
    pub req_port: Signal<Out, Bits<PORT_BITS>>,
    pub req_bytes: Signal<Out, Bits<BYTES_BITS>>,
    pub req_mode: Signal<Out, Bits<2>>,
    pub resp_valid: Signal<In, Bit>,
    pub resp_green: Signal<In, Bit>,
    port_id: Vec<Constant<Bits<8>>>,
    mark: Constant<Bits<U>>,
    user_in: Constant<Bits<U>>,
    overhead: Constant<Bits<16>>,
    v: DffR<Bit>,
    pend: DffR<Bit>,
    in_pkt: DffR<Bit>,
    data: DFF<Bits<D>>,
    keep: DFF<Bits<K>>,
    last: DFF<Bit>,
    user: DFF<Bits<U>>,
    metered: Signal<Local, Bit>,
    out_valid: Signal<Local, Bit>,
    xfer_in: Signal<Local, Bit>,
    not_green: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const U: usize> MeterStage<D, K, U> {
    /// A stage for `n` egress ports (1..=64).
    pub fn new(n: usize) -> Self {
        assert!((1..=MAX_PORTS).contains(&n), "MeterStage: 1..={MAX_PORTS} ports");
        assert!(K * 8 == D && U > METER_TRIM_BIT, "MeterStage: D = 8K, U > {METER_TRIM_BIT}");
        // hdl_gen needs literal bit positions; these are meta.rs's.
        assert_eq!(
            (
                crate::meta::DEST_PORT_LSB,
                crate::meta::LENGTH_LSB,
                crate::meta::PRIO_BIT,
                crate::meta::TRIM_OK_BIT,
                crate::meta::NDP_DATA_BIT
            ),
            (8, 16, 43, 44, 45)
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            enable: Default::default(),
            mode: vec_of(n),
            req_valid: Default::default(),
            req_port: Default::default(),
            req_bytes: Default::default(),
            req_mode: Default::default(),
            resp_valid: Default::default(),
            resp_green: Default::default(),
            port_id: (0..n).map(|p| Constant::new((p as u64).to_bits())).collect(),
            mark: Constant::new(Bits::<U>::default().replace_bit(METER_TRIM_BIT, true)),
            user_in: Constant::new(user_in_mask()),
            overhead: Constant::new((WIRE_OVERHEAD as u64).to_bits()),
            v: Default::default(),
            pend: Default::default(),
            in_pkt: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            user: Default::default(),
            metered: Default::default(),
            out_valid: Default::default(),
            xfer_in: Default::default(),
            not_green: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for MeterStage<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, v, pend, in_pkt, data, keep, last, user);
        self.v.reset.next = self.reset.val();
        self.pend.reset.next = self.reset.val();
        self.in_pkt.reset.next = self.reset.val();
        // A held first beat waiting for its answer is not valid until the
        // answer arrives (it is on resp_* in that cycle and marks the beat).
        self.not_green.next = self.pend.q.val() & self.resp_valid.val() & !self.resp_green.val();
        self.out_valid.next = self.v.q.val() & (!self.pend.q.val() | self.resp_valid.val());
        self.m.tvalid.next = self.out_valid.val();
        self.m.tdata.next = self.data.q.val();
        self.m.tkeep.next = self.keep.q.val();
        self.m.tlast.next = self.last.q.val();
        self.m.tuser.next = self.user.q.val();
        if self.not_green.val() {
            self.m.tuser.next = self.user.q.val() | self.mark.val();
        }
        self.s.tready.next = !self.v.q.val() | (self.out_valid.val() & self.m.tready.val());
        self.xfer_in.next = self.s.tvalid.val() & self.s.tready.val();
        self.metered.next = self.enable.val()
            & !self.in_pkt.q.val()
            & self.s.tuser.val().get_bit(NDP_DATA_BIT)
            & self.s.tuser.val().get_bit(TRIM_OK_BIT)
            & !self.s.tuser.val().get_bit(PRIO_BIT);
        // The request: the destination, its wire bytes, its mode.
        self.req_valid.next = self.xfer_in.val() & self.metered.val();
        self.req_port.next = self.s.tuser.val().get_bits::<8>(DEST_PORT_LSB);
        self.req_bytes.next = self.s.tuser.val().get_bits::<16>(LENGTH_LSB) + self.overhead.val();
        self.req_mode.next = 0.into();
        for p in 0..self.port_id.len() {
            if self.s.tuser.val().get_bits::<8>(DEST_PORT_LSB) == self.port_id[p].val() {
                self.req_mode.next = self.mode[p].val();
            }
        }
        // The answer arrives while the beat is held: keep it in the beat.
        if self.pend.q.val() & self.resp_valid.val() {
            self.pend.d.next = false;
            self.user.d.next = self.m.tuser.val();
        }
        if self.out_valid.val() & self.m.tready.val() {
            self.v.d.next = false;
        }
        if self.xfer_in.val() {
            self.v.d.next = true;
            self.pend.d.next = self.metered.val();
            self.in_pkt.d.next = !self.s.tlast.val();
            self.data.d.next = self.s.tdata.val();
            self.keep.d.next = self.s.tkeep.val();
            self.last.d.next = self.s.tlast.val();
            self.user.d.next = self.s.tuser.val() & self.user_in.val();
        }
    }
}

//! `ts_pl2_alu`: the PL2 reservation ALU (seed 003 §4.1.1 Algorithm 1, §4.2,
//! §4.4, §4.5; the specification `PL2-PROTEGO.md` part A beside `DESIGN.md`;
//! decisions in `docs/pl2.md`). Golden model: `sim/src/model/pl2.rs`, which
//! this block matches op for op and cycle for cycle (`tests/pl2/alu.rs`).
//!
//! The ALU works on operations, not bytes: the parser has put the RSV's
//! fields into the PHV, lookup has chosen a data packet's `dest_port`, and
//! the caller presents one op per pipeline per cycle:
//!
//! | `op_kind` | op | effect |
//! |---|---|---|
//! | 0 | RSV (`pl2_kind` 1) | checks, then paper mode: `send = in[src]; in[src] += d; recv = out[dst]; out[dst] += d` (Alg. 1 l.8-11; with the cycle's decrements, clamped to `0..=2³²−1`); joint mode: `s = max(now, in[src], out[dst])`, both set to `s + d`, `send = recv = s − now` (A.5) |
//! | 1 | GRT from a host | dropped, counted |
//! | 2 | DATA | paper mode: `in[src] −= 1`, `out[dst] −= 1` where PL2 is on, flooring at 0 (Alg. 1 l.14-15); joint mode: nothing |
//! | 3 | UNSOL (data marked unsolicited, §4.4) | dropped when the reservation ahead exceeds `T` (paper mode: the counters at the start of the cycle two before the op's), else as DATA |
//!
//! `src` is always the physical ingress port `op_in`; an RSV's own
//! `src_port` field (`op_src`) is only compared with it.
//!
//! ## State
//! Paper mode keeps the counters. Joint mode keeps each counter as its
//! backlog `b = v − now`, the slots it holds ahead of the slot clock: an RSV
//! takes `s − now = max(b_in, b_out)`, and every slot tick takes one off each
//! nonzero backlog (the specification's scrub, for every counter in every
//! cycle; no compare is modular). `IN_RES`/`OUT_RES` read `now + b`.
//!
//! ## Timing (issue 14's budget: 6 LUT levels; not met yet, `docs/pl2.md`)
//! Two stages, two cycles from an op to its result (A.9: "at most 2 cycles
//! added to ingress"), one op per pipeline per cycle:
//! - **decode** (from the `op_*` inputs, which must come from registers): the
//!   checks, the conflicts (the clamp to `K` is the caller's, as it registers
//!   the op: `op_dem_k`, `op_over_k` from `k_now`); per port the cycle's change
//!   less one (`inc − dec − 1` in 10 bits, sign-extended; joint mode: minus
//!   the slot step, less one) and one-hot writer selects; paper mode's UNSOL
//!   test against `T`, from the counters as they are in this cycle (one
//!   compare per counter, the op's port selecting a bit; so it stays off the
//!   state's one-cycle loop; the model does the same); in joint mode the two
//!   backlogs the op reads, as they will be after this cycle: the state less
//!   this cycle's slot step, or the value a host write lands, or the value
//!   the op in execute (of any pipeline) writes, which is forwarded into the
//!   register as the last input of its multiplexer;
//! - **execute** (the op's cycle, the model's `cycle`): per counter one
//!   32-bit carry chain, `v + (change − 1) + !hit` ([`AddCarry`]: a passing
//!   UNSOL's one less is the carry in), whose carry out clamps it (the
//!   change's sign, known a cycle early, says which way); joint mode's
//!   `max(b_in, b_out)` from the carry out of `a + !b + 1`, the two sums
//!   `b + (d − tick)` (the decode registers `d − tick` from the next
//!   cycle's slot step) and their clamps (`b + d > 2³² − 1`) each a chain
//!   from registers; the state's sources selected early, as masks, so the
//!   late signals meet in the last two levels.
//!
//! The op counters settle one cycle after the op's execute cycle;
//! `data_dec`, `data_underflow` and `saturate` (per counter events summed by a
//! [`SumTree`]) after [`Pl2Alu::counter_lag`]; the high-water marks one
//! cycle after the execute cycle.
//!
//! ## Several pipelines
//! Pipeline `i`'s op has rank `i`. `in[p]` is touched only by ops whose
//! `op_in` is `p`, which the caller keeps in one pipeline (a port belongs to
//! one pipeline). `out[d]` is shared: DATA decrements from every pipeline
//! merge (they commute), but at most one RSV or UNSOL may read `out[d]` in a
//! cycle (A.2: the switch holds the others, as it holds admission
//! decisions). An op that breaks that rule is dropped (`conflict_drop`, code
//! [`code::DROP_CONFLICT`]): the lower rank goes first, as in the model,
//! and the higher rank is not executed.
//!
//! ## Ports
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset (state,
//!   slot clock, counters and high-water marks to 0).
//! - Per pipeline `i`: `op_valid_i`, `op_kind_i` (2 bits, [`kind`]),
//!   `op_in_i` (ingress port), `op_src_i` (the RSV's `src_port` field),
//!   `op_dst_i` (RSV: `dst_port` field; DATA/UNSOL: the packet's
//!   `dest_port`), `op_demand_i` (the RSV's `demand`), all 8 bits; and
//!   `op_in_oh_i`, `op_dst_oh_i` (64 bits): `op_in_i` and `op_dst_i`
//!   one-hot (bit `p` set when the port is `p`; none for 64 and above),
//!   which the caller decodes as it registers the op, so the decode stage
//!   starts from per-port bits (bits at or above `ports` are not read);
//!   `op_dem_k_i` (8 bits: `min(op_demand_i, k_now)`) and `op_over_k_i`
//!   (`op_demand_i > k_now`), which the caller computes as it registers the
//!   op, from `k_now` out (the `k` registered here), so the compare is not
//!   in the decode stage (a `K` written takes effect for the ops registered
//!   after `k_now` shows it: two cycles after the write).
//! - Per pipeline `i`, [`Pl2Alu::LATENCY`] cycles later: `res_valid_i`,
//!   `res_code_i` ([`code`]), and for a grant `res_demand_i` (clamped to
//!   `K`), `res_send_i`, `res_recv_i` (the GRT's `send_timeslot`,
//!   `recv_timeslot`).
//! - Run-time registers: `joint` (mode: 0 paper, 1 joint; a change clears
//!   the state), `k` (1..=255), `t_drop` (`T`, below 2³¹), `port_en` (bit
//!   `p`: PL2 on at port `p`), `slot_cycles` (16.16 cycles per slot, 1.0 to
//!   below 16384), `slot_run`. Registered: a setting takes effect a cycle
//!   after it is written, the slot clock's a cycle later still (a new
//!   `slot_cycles` starts a fresh slot). Change them while no op is in
//!   flight.
//! - Host writes (A.3, 003 §4.5: a failed host's slots are removed from
//!   outside): `wr_en` with `wr_sel` (0 `IN_RES`, 1 `OUT_RES`, 2 `SLOT_NOW`),
//!   `wr_port`, `wr_data`, registered: the write lands at the end of the next
//!   cycle and wins over that cycle's ops. `SLOT_NOW` starts a fresh slot
//!   and keeps the backlogs; an `IN_RES`/`OUT_RES` write in joint mode stores
//!   the backlog of the slot written (0 for a slot in the past).
//! - `in_res_p`, `out_res_p` out: `IN_RES`/`OUT_RES`; `in_hw_p`, `out_hw_p`:
//!   the high-water marks of the reservation ahead (the counter in paper
//!   mode, the backlog in joint mode), cleared by `hw_clear`; `now`: the slot
//!   clock.
//! - `counters_c` out, `clear_c` in: [`Pl2Alu::COUNTERS`], 32 bits, wrapping.
use crate::prim::widgets::{vec_of, AddCarry, AddSub, DffR, SumTree, Zext};
use ctr::*;
use rust_hdl::prelude::*;

/// `op_kind` encoding.
pub mod kind {
    pub const RSV: u8 = 0;
    pub const GRT: u8 = 1;
    pub const DATA: u8 = 2;
    pub const UNSOL: u8 = 3;
}

/// `res_code` encoding: what became of the op.
pub mod code {
    /// DATA, or UNSOL within `T`: the packet goes on.
    pub const PASS: u8 = 0;
    /// The RSV became its GRT (`res_demand`, `res_send`, `res_recv`).
    pub const GRANT: u8 = 1;
    /// RSV on a port that does not exist or has PL2 off.
    pub const DROP_DISABLED_INGRESS: u8 = 2;
    /// RSV whose `dst_port` does not exist or has PL2 off.
    pub const DROP_BAD_PORT: u8 = 3;
    /// RSV with demand 0.
    pub const DROP_DEMAND_ZERO: u8 = 4;
    /// A GRT sent by a host.
    pub const DROP_GRT_FROM_HOST: u8 = 5;
    /// UNSOL with more than `T` slots reserved ahead.
    pub const DROP_UNSOL: u8 = 6;
    /// RSV or UNSOL on an `out[d]` a lower-ranked pipeline's RSV or UNSOL
    /// reads in the same cycle (the caller's hold failed).
    pub const DROP_CONFLICT: u8 = 7;
}

/// Largest number of ports.
pub const MAX_PORTS: usize = 64;
/// Largest number of pipelines.
pub const MAX_PIPELINES: usize = 8;

/// Indices of [`Pl2Alu::COUNTERS`] (resolved in the Verilog by
/// [`crate::gen::unroll`]).
mod ctr {
    crate::gen::unroll::named_indices! {
        RSV_PKTS = 0;
        RSV_OK = 1;
        RSV_CLAMPED = 2;
        RSV_MISMATCH = 3;
        RSV_DISABLED = 4;
        RSV_BAD_PORT = 5;
        RSV_DZ = 6;
        GRT = 7;
        DATA = 8;
        DATA_BAD = 9;
        DEC = 10;
        UNDER = 11;
        UNSOL_PASS = 12;
        UNSOL_DROP = 13;
        SAT = 14;
        CONFLICT = 15;
        N = 16;
    }
}

/// The PL2 reservation ALU of a switch of `ports` ports and `pipelines`
/// pipelines (module documentation).
#[derive(LogicBlock)]
pub struct Pl2Alu {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub op_valid: Vec<Signal<In, Bit>>,
    pub op_kind: Vec<Signal<In, Bits<2>>>,
    pub op_in: Vec<Signal<In, Bits<8>>>,
    pub op_src: Vec<Signal<In, Bits<8>>>,
    pub op_dst: Vec<Signal<In, Bits<8>>>,
    pub op_demand: Vec<Signal<In, Bits<8>>>,
    /// `op_demand` clamped to `k_now` (`min(demand, K)`) and whether it was
    /// above (`demand > K`), from the caller's op register.
    pub op_dem_k: Vec<Signal<In, Bits<8>>>,
    pub op_over_k: Vec<Signal<In, Bit>>,
    /// `op_in` and `op_dst` one-hot, from the caller's op register.
    pub op_in_oh: Vec<Signal<In, Bits<64>>>,
    pub op_dst_oh: Vec<Signal<In, Bits<64>>>,
    pub res_valid: Vec<Signal<Out, Bit>>,
    pub res_code: Vec<Signal<Out, Bits<3>>>,
    pub res_demand: Vec<Signal<Out, Bits<8>>>,
    pub res_send: Vec<Signal<Out, Bits<32>>>,
    pub res_recv: Vec<Signal<Out, Bits<32>>>,
    pub joint: Signal<In, Bit>,
    pub k: Signal<In, Bits<8>>,
    /// `k` as registered here: the `K` the caller clamps its next op with.
    pub k_now: Signal<Out, Bits<8>>,
    pub t_drop: Signal<In, Bits<32>>,
    pub port_en: Signal<In, Bits<64>>,
    pub slot_cycles: Signal<In, Bits<32>>,
    pub slot_run: Signal<In, Bit>,
    pub wr_en: Signal<In, Bit>,
    pub wr_sel: Signal<In, Bits<2>>,
    pub wr_port: Signal<In, Bits<8>>,
    pub wr_data: Signal<In, Bits<32>>,
    pub hw_clear: Signal<In, Bit>,
    pub in_res: Vec<Signal<Out, Bits<32>>>,
    pub out_res: Vec<Signal<Out, Bits<32>>>,
    pub in_hw: Vec<Signal<Out, Bits<32>>>,
    pub out_hw: Vec<Signal<Out, Bits<32>>>,
    pub now: Signal<Out, Bits<32>>,
    pub counters: Vec<Signal<Out, Bits<32>>>,
    pub clear: Vec<Signal<In, Bit>>,
    // ---- constants
    /// Bit `j` set for every `j < i`: the pipelines ranked before `i`.
    lower: Vec<Constant<Bits<8>>>,
    c_ports: Constant<Bits<8>>,
    /// The port-number bits that select a port (`ports` rounded up to a
    /// power of two, minus one): the state's read multiplexers use only
    /// these, a port number at or above `ports` reads some port's value,
    /// which no op with that port uses.
    c_pmask: Constant<Bits<8>>,
    c_pm64: Constant<Bits<64>>,
    c_one: Constant<Bits<33>>,
    c_max: Constant<Bits<32>>,
    c_max1: Constant<Bits<32>>,
    // ---- configuration registers: copies of the inputs (also in reset, so
    // the first cycle after reset sees no change)
    c_joint: DFF<Bit>,
    c_k: DFF<Bits<8>>,
    c_t: DFF<Bits<32>>,
    c_en: DFF<Bits<64>>,
    c_sc: DFF<Bits<32>>,
    c_run: DFF<Bit>,
    c_jchg: DFF<Bit>,
    c_scchg: DFF<Bit>,
    w_now: DFF<Bit>,
    t_q: DFF<Bits<32>>,
    joint_q: DFF<Bit>,
    run_q: DFF<Bit>,
    sc_q: DFF<Bits<32>>,
    // ---- host write, registered
    w_v: DffR<Bit>,
    w_sel: DffR<Bits<2>>,
    w_port: DffR<Bits<8>>,
    w_data: DffR<Bits<32>>,
    /// The write's target, decoded as it is registered: `IN_RES[p]`,
    /// `OUT_RES[p]`.
    w_h: Vec<DffR<Bit>>,
    w_back: AddSub<32>,
    w_b: Signal<Local, Bits<32>>,
    // ---- slot clock
    now_r: DffR<Bits<32>>,
    /// The slot clock's fraction against a slot, `acc + 1.0 − slot_cycles`
    /// (16.16, signed; `slot_cycles` below 2³⁰ keeps it in 32 bits): the
    /// clock steps at the end of a cycle that starts with it at 0 or above.
    dl: DFF<Bits<32>>,
    dl_tick: AddSub<32>,
    dl_next: Signal<Local, Bits<32>>,
    /// A fresh slot's `dl`, `1.0 − slot_cycles`, registered beside `c_sc`
    /// (equal to `1.0 − c_sc` in every cycle), so a fresh slot's step is a
    /// register's sign bit, not a subtraction after the reset.
    dl_fresh: DFF<Bits<32>>,
    /// This cycle's slot step (reset: the first cycle's, from the inputs).
    tick_q: DFF<Bit>,
    tick_next: Signal<Local, Bit>,
    // ---- decode (combinational)
    d_on_in: Vec<Signal<Local, Bit>>,
    d_on_dst: Vec<Signal<Local, Bit>>,
    d_in_oh: Vec<Signal<Local, Bits<64>>>,
    d_dst_oh: Vec<Signal<Local, Bits<64>>>,
    d_dem: Vec<Signal<Local, Bits<8>>>,
    d_code: Vec<Signal<Local, Bits<3>>>,
    d_ok: Vec<Signal<Local, Bit>>,
    d_unsol: Vec<Signal<Local, Bit>>,
    d_touch: Vec<Signal<Local, Bit>>,
    d_conf: Vec<Signal<Local, Bit>>,
    d_a: Vec<Signal<Local, Bits<32>>>,
    d_b: Vec<Signal<Local, Bits<32>>>,
    // ---- stage-1 registers, per pipeline
    r_v: Vec<DffR<Bit>>,
    r_kind: Vec<DFF<Bits<2>>>,
    r_code: Vec<DFF<Bits<3>>>,
    r_ok: Vec<DffR<Bit>>,
    r_unsol: Vec<DffR<Bit>>,
    r_data: Vec<DffR<Bit>>,
    r_clamp: Vec<DFF<Bit>>,
    r_mism: Vec<DFF<Bit>>,
    r_badp: Vec<DFF<Bit>>,
    r_on_in: Vec<DFF<Bit>>,
    r_on_dst: Vec<DFF<Bit>>,
    r_d: Vec<DFF<Bits<8>>>,
    r_in: Vec<DFF<Bits<8>>>,
    r_dst: Vec<DFF<Bits<8>>>,
    /// The same one-hot (the forwarding tests are AND-ORs, not compares).
    r_in_oh: Vec<DFF<Bits<64>>>,
    r_dst_oh: Vec<DFF<Bits<64>>>,
    /// Joint mode: the backlogs read, a tick older (`max(b − tick, 0)`).
    r_a: Vec<DFF<Bits<32>>>,
    r_b: Vec<DFF<Bits<32>>>,
    /// `!r_b`, registered beside it: the compare's operand without an
    /// inverter in front of its chain.
    r_bn: Vec<DFF<Bits<32>>>,
    /// Forwarding into `r_a`/`r_b` (joint mode): `in[src]` written by a
    /// host write landing in this cycle, by this pipeline's op in execute;
    /// `out[dst]` by the host write, by pipeline `j`'s op in execute (bit
    /// `j`). The op's value is the execute stage's last signal, so it enters
    /// the registers' multiplexer last.
    f_aw: Vec<Signal<Local, Bit>>,
    f_aop: Vec<Signal<Local, Bit>>,
    f_bw: Vec<Signal<Local, Bit>>,
    f_bop: Vec<Signal<Local, Bits<8>>>,
    // ---- stage-1 registers, per port
    /// Per counter (`2p`: `IN_RES[p]`, `2p + 1`: `OUT_RES[p]`): the DATA
    /// decrements and the change less one (sign-extended; joint mode: minus
    /// the slot step, less one).
    cdec: Vec<DFF<Bits<4>>>,
    cdm1: Vec<DFF<Bits<32>>>,
    s_mtick: Signal<Local, Bits<32>>,
    s_ndec: Signal<Local, Bits<10>>,
    s_dm1: Signal<Local, Bits<10>>,
    c_sext: Constant<Bits<32>>,
    s_inc_i: Signal<Local, Bits<8>>,
    s_dec_i: Signal<Local, Bits<4>>,
    s_inc_o: Signal<Local, Bits<8>>,
    s_dec_o: Signal<Local, Bits<4>>,
    /// Bit `i`: pipeline `i`'s op writes this counter (joint RSV) or may
    /// pass as an UNSOL that decrements it (paper).
    cjw: Vec<DFF<Bits<8>>>,
    /// Paper mode: a passing UNSOL decrements this counter (decided here:
    /// its test reads the counters at the start of the cycle before the
    /// decode's, two before the op's execute cycle).
    chit: Vec<DFF<Bit>>,
    /// `!chit`, registered beside it: the chain's carry in without an
    /// inverter in front of it.
    cnoh: Vec<DFF<Bit>>,
    // ---- state
    /// The counters (`2p`: `IN_RES[p]`, `2p + 1`: `OUT_RES[p]`).
    st: Vec<DffR<Bits<32>>>,
    /// Whether counter `c` is an `IN_RES`.
    is_in: Vec<Constant<Bit>>,
    // ---- execute (combinational), per pipeline
    x_a: Vec<Signal<Local, Bits<32>>>,
    x_b: Vec<Signal<Local, Bits<32>>>,
    x_pa: Vec<Signal<Local, Bits<32>>>,
    x_pb: Vec<Signal<Local, Bits<32>>>,
    x_ge: Vec<Signal<Local, Bit>>,
    x_d32: Vec<Zext<8, 32>>,
    /// `b + d − tick` as `b + r_dt`: one chain from registers (the tick
    /// is folded into `r_dt` a cycle early, so it is not the chain's carry
    /// in).
    x_add_a: Vec<AddCarry<32>>,
    x_add_b: Vec<AddCarry<32>>,
    /// The clamped demand less one (an RSV that executes has `d >= 1`).
    r_dm1: Vec<DFF<Bits<8>>>,
    /// The clamped demand less the execute cycle's slot step (`d − tick`,
    /// from `tick_next` as the decode registers the op): the joint sums'
    /// addend, so `tick_q`'s fan-out is not in front of their chains.
    r_dt: Vec<DFF<Bits<8>>>,
    x_dt32: Vec<Zext<8, 32>>,
    x_sa: Vec<Signal<Local, Bits<32>>>,
    x_sb: Vec<Signal<Local, Bits<32>>>,
    x_sat_a: Vec<Signal<Local, Bit>>,
    /// `b + (d − 1) + 1`: its carry out is `b + d > 2³² − 1`, the clamp, from
    /// a chain of its own beside the sum's (which has the tick as carry in).
    x_ova: Vec<AddCarry<32>>,
    x_ovb: Vec<AddCarry<32>>,
    x_sat_b: Vec<Signal<Local, Bit>>,
    x_m: Vec<Signal<Local, Bits<32>>>,
    x_jv: Vec<Signal<Local, Bits<32>>>,
    /// `a + !b + 1`: its carry out is `a >= b`, straight from the chain.
    x_ab: Vec<AddCarry<32>>,
    x_sap: Vec<Signal<Local, Bits<32>>>,
    x_sbp: Vec<Signal<Local, Bits<32>>>,
    x_maxt: Signal<Local, Bits<32>>,
    x_jsat: Vec<Signal<Local, Bit>>,
    x_over: Vec<Signal<Local, Bit>>,
    x_pass: Vec<Signal<Local, Bit>>,
    d_over: Vec<Signal<Local, Bit>>,
    /// Paper mode: counter `c` above `T`, one compare per counter (so the
    /// op's port selects a bit, not a 32-bit value before a compare),
    /// registered a cycle ahead of the decode stage that reads it.
    g_t: Vec<DFF<Bit>>,
    d_ga: Vec<Signal<Local, Bit>>,
    d_gb: Vec<Signal<Local, Bit>>,
    r_ppass: Vec<DFF<Bit>>,
    x_code: Vec<Signal<Local, Bits<3>>>,
    // ---- execute, per counter (scalars reused for each)
    y_dec: Signal<Local, Bits<4>>,
    y_satx: Signal<Local, Bit>,
    y_sel_j: Signal<Local, Bit>,
    y_wv: Signal<Local, Bits<32>>,
    y_jm: Signal<Local, Bits<32>>,
    y_zero5: Signal<Local, Bits<5>>,
    /// Per counter: `v + (change - 1) + !hit`.
    y_add: Vec<AddCarry<32>>,
    y_s: Signal<Local, Bits<32>>,
    y_co: Signal<Local, Bit>,
    y_neg: Signal<Local, Bit>,
    y_co32: Signal<Local, Bits<32>>,
    y_keep: Signal<Local, Bit>,
    y_k0: Signal<Local, Bits<32>>,
    y_k1: Signal<Local, Bits<32>>,
    y_decx: Signal<Local, Bits<5>>,
    y_und: Signal<Local, Bit>,
    y_hit: Signal<Local, Bit>,
    y_jw: Signal<Local, Bit>,
    y_jv: Signal<Local, Bits<32>>,
    y_nx: Signal<Local, Bits<32>>,
    y_under: Signal<Local, Bits<5>>,
    y_took: Signal<Local, Bits<5>>,
    y_wr: Signal<Local, Bit>,
    // ---- results
    q_v: Vec<DffR<Bit>>,
    q_code: Vec<DFF<Bits<3>>>,
    q_d: Vec<DFF<Bits<8>>>,
    q_send: Vec<DFF<Bits<32>>>,
    q_recv: Vec<DFF<Bits<32>>>,
    // ---- counter events (from execute) and counters
    e_ops: Vec<DffR<Bits<16>>>,
    /// Per counter (`2p` in, `2p + 1` out): decrements taken, refused, and
    /// clamps at 2³²−1 (a joint RSV's at its `in[src]`), summed by trees.
    /// The events' ingredients, registered in the execute cycle: the
    /// decrements asked (paper mode), the sum's low bits and whether it went
    /// below 0 (paper mode), a clamp at 2³² − 1; the counts follow a cycle
    /// later (no chain after the state's).
    p_decx: Vec<DffR<Bits<5>>>,
    p_low: Vec<DffR<Bits<5>>>,
    p_und: Vec<DffR<Bit>>,
    p_sat: Vec<DffR<Bit>>,
    e_took: Vec<DffR<Bits<16>>>,
    e_under: Vec<DffR<Bits<16>>>,
    e_sat: Vec<DffR<Bits<16>>>,
    t_took: SumTree,
    t_under: SumTree,
    t_sat: SumTree,
    e_sum: Vec<Signal<Local, Bits<16>>>,
    zx_e: Vec<Zext<16, 32>>,
    cnt: Vec<DffR<Bits<32>>>,
    // ---- high-water marks: the state after each cycle (before a host write)
    nx: Vec<DffR<Bits<32>>>,
    hw: Vec<DffR<Bits<32>>>,
}

impl Pl2Alu {
    /// Counter outputs `counters_c`, in order: the model's names
    /// (`Pl2Counters::list`), with `conflict_drop` where the model has
    /// `serialized` (the model applies same-cycle RSVs on one `out[d]` in rank
    /// order; the ALU requires the caller to hold them and drops a violation).
    pub const COUNTERS: [&'static str; ctr::N] = [
        "rsv_pkts",
        "rsv_ok",
        "rsv_demand_clamped",
        "rsv_src_mismatch",
        "rsv_disabled_ingress",
        "rsv_bad_port",
        "rsv_demand_zero",
        "grt_from_host",
        "data_pkts",
        "data_bad_port",
        "data_dec",
        "data_underflow",
        "unsol_pass",
        "unsol_drop",
        "saturate",
        "conflict_drop",
    ];

    /// Cycles from an op at the inputs to its result at `res_*`.
    pub const LATENCY: u64 = 2;

    /// Cycles after an op's execute cycle (the one after it is presented)
    /// until counter `c` shows it: one for the op counters, more for the
    /// per-counter ones (`data_dec`, `data_underflow`, `saturate`: their
    /// ingredients registered, the counts, then a [`SumTree`]).
    pub fn counter_lag(c: usize) -> u64 {
        if [DEC, UNDER, SAT].contains(&c) {
            2 + SumTree::LATENCY
        } else {
            1
        }
    }

    /// An ALU for `ports` ports (1..=64) and `pipelines` op inputs (1..=8).
    pub fn new(ports: usize, pipelines: usize) -> Self {
        assert!((1..=MAX_PORTS).contains(&ports), "pl2 alu: ports {ports} not in 1..={MAX_PORTS}");
        assert!((1..=MAX_PIPELINES).contains(&pipelines), "pl2 alu: pipelines {pipelines} not in 1..={MAX_PIPELINES}");
        let (n, p) = (pipelines, ports);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            op_valid: vec_of(n),
            op_kind: vec_of(n),
            op_in: vec_of(n),
            op_src: vec_of(n),
            op_dst: vec_of(n),
            op_demand: vec_of(n),
            op_dem_k: vec_of(n),
            op_over_k: vec_of(n),
            op_in_oh: vec_of(n),
            op_dst_oh: vec_of(n),
            res_valid: vec_of(n),
            res_code: vec_of(n),
            res_demand: vec_of(n),
            res_send: vec_of(n),
            res_recv: vec_of(n),
            joint: Default::default(),
            k: Default::default(),
            k_now: Default::default(),
            t_drop: Default::default(),
            port_en: Default::default(),
            slot_cycles: Default::default(),
            slot_run: Default::default(),
            wr_en: Default::default(),
            wr_sel: Default::default(),
            wr_port: Default::default(),
            wr_data: Default::default(),
            hw_clear: Default::default(),
            in_res: vec_of(p),
            out_res: vec_of(p),
            in_hw: vec_of(p),
            out_hw: vec_of(p),
            now: Default::default(),
            counters: vec_of(ctr::N),
            clear: vec_of(ctr::N),
            lower: (0..n).map(|i| Constant::new(((1u64 << i) - 1).to_bits())).collect(),
            c_ports: Constant::new((p as u64).to_bits()),
            c_pmask: Constant::new(((p.next_power_of_two() - 1) as u64).to_bits()),
            c_pm64: Constant::new((if p == 64 { u64::MAX } else { (1u64 << p) - 1 }).to_bits()),
            c_one: Constant::new((1u64 << 16).to_bits()),
            c_max: Constant::new(0xFFFF_FFFFu64.to_bits()),
            c_max1: Constant::new(0xFFFF_FFFEu64.to_bits()),
            c_joint: Default::default(),
            c_k: Default::default(),
            c_t: Default::default(),
            c_en: Default::default(),
            c_sc: Default::default(),
            c_run: Default::default(),
            c_jchg: Default::default(),
            c_scchg: Default::default(),
            w_now: Default::default(),
            t_q: Default::default(),
            joint_q: Default::default(),
            run_q: Default::default(),
            sc_q: Default::default(),
            w_v: Default::default(),
            w_sel: Default::default(),
            w_port: Default::default(),
            w_data: Default::default(),
            w_h: vec_of(2 * p),
            w_back: Default::default(),
            w_b: Default::default(),
            now_r: Default::default(),
            dl: Default::default(),
            dl_tick: Default::default(),
            dl_next: Default::default(),
            dl_fresh: Default::default(),
            tick_q: Default::default(),
            tick_next: Default::default(),
            d_on_in: vec_of(n),
            d_on_dst: vec_of(n),
            d_in_oh: vec_of(n),
            d_dst_oh: vec_of(n),
            d_dem: vec_of(n),
            d_code: vec_of(n),
            d_ok: vec_of(n),
            d_unsol: vec_of(n),
            d_touch: vec_of(n),
            d_conf: vec_of(n),
            d_a: vec_of(n),
            d_b: vec_of(n),
            r_v: vec_of(n),
            r_kind: vec_of(n),
            r_code: vec_of(n),
            r_ok: vec_of(n),
            r_unsol: vec_of(n),
            r_data: vec_of(n),
            r_clamp: vec_of(n),
            r_mism: vec_of(n),
            r_badp: vec_of(n),
            r_on_in: vec_of(n),
            r_on_dst: vec_of(n),
            r_d: vec_of(n),
            r_in: vec_of(n),
            r_dst: vec_of(n),
            r_in_oh: vec_of(n),
            r_dst_oh: vec_of(n),
            r_a: vec_of(n),
            r_b: vec_of(n),
            r_bn: vec_of(n),
            f_aw: vec_of(n),
            f_aop: vec_of(n),
            f_bw: vec_of(n),
            f_bop: vec_of(n),
            cdec: vec_of(2 * p),
            cdm1: vec_of(2 * p),
            s_mtick: Default::default(),
            s_ndec: Default::default(),
            s_dm1: Default::default(),
            c_sext: Constant::new(0xFFFF_FC00u64.to_bits()),
            s_inc_i: Default::default(),
            s_dec_i: Default::default(),
            s_inc_o: Default::default(),
            s_dec_o: Default::default(),
            cjw: vec_of(2 * p),
            chit: vec_of(2 * p),
            cnoh: vec_of(2 * p),
            st: vec_of(2 * p),
            is_in: (0..2 * p).map(|c| Constant::new(c % 2 == 0)).collect(),
            x_a: vec_of(n),
            x_b: vec_of(n),
            x_pa: vec_of(n),
            x_pb: vec_of(n),
            x_ge: vec_of(n),
            x_d32: vec_of(n),
            x_add_a: vec_of(n),
            x_add_b: vec_of(n),
            r_dm1: vec_of(n),
            r_dt: vec_of(n),
            x_dt32: vec_of(n),
            x_sa: vec_of(n),
            x_sb: vec_of(n),
            x_sat_a: vec_of(n),
            x_ova: vec_of(n),
            x_ovb: vec_of(n),
            x_sat_b: vec_of(n),
            x_m: vec_of(n),
            x_jv: vec_of(n),
            x_ab: vec_of(n),
            x_sap: vec_of(n),
            x_sbp: vec_of(n),
            x_maxt: Default::default(),
            x_jsat: vec_of(n),
            x_over: vec_of(n),
            x_pass: vec_of(n),
            d_over: vec_of(n),
            g_t: vec_of(2 * p),
            d_ga: vec_of(n),
            d_gb: vec_of(n),
            r_ppass: vec_of(n),
            x_code: vec_of(n),
            y_dec: Default::default(),
            y_satx: Default::default(),
            y_sel_j: Default::default(),
            y_wv: Default::default(),
            y_jm: Default::default(),
            y_zero5: Default::default(),
            y_add: vec_of(2 * p),
            y_s: Default::default(),
            y_co: Default::default(),
            y_neg: Default::default(),
            y_co32: Default::default(),
            y_keep: Default::default(),
            y_k0: Default::default(),
            y_k1: Default::default(),
            y_decx: Default::default(),
            y_und: Default::default(),
            y_hit: Default::default(),
            y_jw: Default::default(),
            y_jv: Default::default(),
            y_nx: Default::default(),
            y_under: Default::default(),
            y_took: Default::default(),
            y_wr: Default::default(),
            q_v: vec_of(n),
            q_code: vec_of(n),
            q_d: vec_of(n),
            q_send: vec_of(n),
            q_recv: vec_of(n),
            e_ops: vec_of(ctr::N),
            p_decx: vec_of(2 * p),
            p_low: vec_of(2 * p),
            p_und: vec_of(2 * p),
            p_sat: vec_of(2 * p),
            e_took: vec_of(2 * p),
            e_under: vec_of(2 * p),
            e_sat: vec_of(2 * p),
            t_took: Default::default(),
            t_under: Default::default(),
            t_sat: Default::default(),
            e_sum: vec_of(ctr::N),
            zx_e: vec_of(ctr::N),
            cnt: vec_of(ctr::N),
            nx: vec_of(2 * p),
            hw: vec_of(2 * p),
        }
    }
}

impl Logic for Pl2Alu {
    fn update(&mut self) {
        Self::update(self)
    }
    fn connect(&mut self) {
        Self::connect(self)
    }
    // Counter indices are names ([`ctr`]), resolved with the loops.
    fn hdl(&self) -> Verilog {
        crate::gen::unroll::resolve_with(Self::hdl(self), ctr::NAMES)
    }
}

impl Pl2Alu {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, c_joint, c_k, c_t, c_en, c_sc, c_run, c_jchg, c_scchg, w_now, t_q, joint_q, run_q, sc_q, w_v, w_sel, w_port,
            w_data, now_r, dl, tick_q
        );
        self.w_v.reset.next = self.reset.val();
        self.w_sel.reset.next = self.reset.val();
        self.w_port.reset.next = self.reset.val();
        self.w_data.reset.next = self.reset.val();
        self.now_r.reset.next = self.reset.val();
        // ================================================= configuration
        // The inputs, registered (a setting takes effect a cycle after it is
        // written), and whether the mode or the slot length just changed.
        self.c_joint.d.next = self.joint.val();
        self.c_k.d.next = self.k.val();
        self.k_now.next = self.c_k.q.val();
        self.c_t.d.next = self.t_drop.val();
        self.c_en.d.next = self.port_en.val();
        self.c_sc.d.next = self.slot_cycles.val();
        self.c_run.d.next = self.slot_run.val();
        self.c_jchg.d.next = self.joint.val() != self.c_joint.q.val();
        self.c_scchg.d.next = self.slot_cycles.val() != self.c_sc.q.val();
        self.w_now.d.next = self.wr_en.val() & (self.wr_sel.val() == 2);
        self.t_q.d.next = self.c_t.q.val();
        self.joint_q.d.next = self.c_joint.q.val();
        self.run_q.d.next = self.c_run.q.val();
        self.sc_q.d.next = self.c_sc.q.val();
        // ================================================= host write
        self.w_v.d.next = self.wr_en.val();
        self.w_sel.d.next = self.wr_sel.val();
        self.w_port.d.next = self.wr_port.val();
        self.w_data.d.next = self.wr_data.val();
        for p in 0..self.in_res.len() {
            self.w_h[2 * p].clock.next = self.clock.val();
            self.w_h[2 * p].reset.next = self.reset.val();
            self.w_h[2 * p + 1].clock.next = self.clock.val();
            self.w_h[2 * p + 1].reset.next = self.reset.val();
            self.w_h[2 * p].d.next = self.wr_en.val() & (self.wr_sel.val() == 0) & (self.wr_port.val().index() == p);
            self.w_h[2 * p + 1].d.next = self.wr_en.val() & (self.wr_sel.val() == 1) & (self.wr_port.val().index() == p);
        }
        // Joint mode stores the backlog of the slot written, against the
        // clock after this cycle's tick: data + (-tick) - now.
        self.w_back.a.next = self.w_data.q.val();
        self.w_back.b.next = 0.into();
        if self.tick_q.q.val() {
            self.w_back.b.next = self.c_max.val();
        }
        self.w_back.c.next = self.now_r.q.val();
        self.w_b.next = self.w_back.add_sub.val();
        if self.w_back.add_sub.val().get_bit(31) {
            self.w_b.next = 0.into();
        }
        // ================================================= slot clock
        // `tick_q` is this cycle's step (the model's `tick`, at the end of the
        // cycle); the next one is the sign of `dl`'s next value.
        self.dl_tick.a.next = self.dl.q.val();
        self.dl_tick.b.next = self.c_one.val().get_bits::<32>(0);
        self.dl_tick.c.next = self.sc_q.q.val();
        self.dl_next.next = self.dl.q.val();
        if self.tick_q.q.val() {
            self.dl_next.next = self.dl_tick.add_sub.val();
            self.now_r.d.next = self.now_r.q.val() + 1;
        } else if self.run_q.q.val() {
            self.dl_next.next = self.dl.q.val() + self.c_one.val().get_bits::<32>(0);
        }
        // A fresh slot: after reset, a new `slot_cycles` or a `SLOT_NOW` write.
        if self.c_scchg.q.val() | self.w_now.q.val() | self.reset.val() {
            self.dl_next.next = self.dl_fresh.q.val();
        }
        if self.w_v.q.val() & (self.w_sel.q.val() == 2) {
            self.now_r.d.next = self.w_data.q.val();
        }
        self.dl_fresh.clock.next = self.clock.val();
        self.dl_fresh.d.next = self.c_one.val().get_bits::<32>(0) - self.slot_cycles.val();
        self.dl.d.next = self.dl_next.val();
        self.tick_next.next = self.c_run.q.val() & !self.dl_next.val().get_bit(31);
        self.tick_q.d.next = self.tick_next.val();
        self.now.next = self.now_r.q.val();
        // ================================================= decode
        for c in 0..self.st.len() {
            self.g_t[c].clock.next = self.clock.val();
            // (`T` as the configuration registers hold it a cycle before
            // `t_q`: the compare is a cycle ahead of the decode; a mode
            // change's clear at the end of this cycle leaves nothing above.)
            self.g_t[c].d.next = (self.st[c].q.val() > self.c_t.q.val()) & !self.c_jchg.q.val();
        }
        for i in 0..self.op_valid.len() {
            self.r_v[i].clock.next = self.clock.val();
            self.r_v[i].reset.next = self.reset.val();
            self.r_kind[i].clock.next = self.clock.val();
            self.r_code[i].clock.next = self.clock.val();
            self.r_ok[i].clock.next = self.clock.val();
            self.r_ok[i].reset.next = self.reset.val();
            self.r_unsol[i].clock.next = self.clock.val();
            self.r_unsol[i].reset.next = self.reset.val();
            self.r_data[i].clock.next = self.clock.val();
            self.r_data[i].reset.next = self.reset.val();
            self.r_clamp[i].clock.next = self.clock.val();
            self.r_mism[i].clock.next = self.clock.val();
            self.r_badp[i].clock.next = self.clock.val();
            self.r_on_in[i].clock.next = self.clock.val();
            self.r_on_dst[i].clock.next = self.clock.val();
            self.r_d[i].clock.next = self.clock.val();
            self.r_in[i].clock.next = self.clock.val();
            self.r_dst[i].clock.next = self.clock.val();
            self.r_a[i].clock.next = self.clock.val();
            self.r_b[i].clock.next = self.clock.val();
            self.q_v[i].clock.next = self.clock.val();
            self.q_v[i].reset.next = self.reset.val();
            self.q_code[i].clock.next = self.clock.val();
            self.q_d[i].clock.next = self.clock.val();
            self.q_send[i].clock.next = self.clock.val();
            self.q_recv[i].clock.next = self.clock.val();
            // One-hot ports, from the caller (a port >= ports sets no bit
            // that is read: PL2 off there).
            self.d_in_oh[i].next = self.op_in_oh[i].val() & self.c_pm64.val();
            self.d_dst_oh[i].next = self.op_dst_oh[i].val() & self.c_pm64.val();
            self.d_on_in[i].next = (self.d_in_oh[i].val() & self.c_en.q.val()).any();
            self.d_on_dst[i].next = (self.d_dst_oh[i].val() & self.c_en.q.val()).any();
            self.d_unsol[i].next = self.op_valid[i].val() & (self.op_kind[i].val() == 3);
            // The demand, clamped to K (A.3) by the caller, from `k_now`.
            self.d_dem[i].next = self.op_dem_k[i].val();
            // The RSV's checks, in the model's order.
            self.d_code[i].next = 1.into();
            if !self.op_demand[i].val().any() {
                self.d_code[i].next = 4.into();
            }
            if !self.d_on_dst[i].val() {
                self.d_code[i].next = 3.into();
            }
            if !self.d_on_in[i].val() {
                self.d_code[i].next = 2.into();
            }
            if self.op_kind[i].val() == 1 {
                self.d_code[i].next = 5.into();
            }
            if self.op_kind[i].val().get_bit(1) {
                self.d_code[i].next = 0.into();
            }
            self.d_ok[i].next = self.op_valid[i].val()
                & (self.op_kind[i].val() == 0)
                & self.d_on_in[i].val()
                & self.d_on_dst[i].val()
                & self.op_demand[i].val().any();
            // Ops reading out[dst]; a lower rank reading the same one is a
            // conflict.
            self.d_touch[i].next = self.d_ok[i].val() | (self.d_unsol[i].val() & self.d_on_dst[i].val());
            // Joint mode: the backlogs, as they will be after this cycle's
            // tick (the op ahead and a host write are forwarded below).
            self.d_a[i].next = 0.into();
            self.d_b[i].next = 0.into();
            for p in 0..self.in_res.len() {
                if (self.op_in[i].val() & self.c_pmask.val()).index() == p {
                    self.d_a[i].next = self.st[2 * p].q.val();
                }
                if (self.op_dst[i].val() & self.c_pmask.val()).index() == p {
                    self.d_b[i].next = self.st[2 * p + 1].q.val();
                }
            }
            self.r_a[i].d.next = self.d_a[i].val();
            if self.tick_q.q.val() & self.d_a[i].val().any() {
                self.r_a[i].d.next = self.d_a[i].val() - 1;
            }
            self.r_b[i].d.next = self.d_b[i].val();
            if self.tick_q.q.val() & self.d_b[i].val().any() {
                self.r_b[i].d.next = self.d_b[i].val() - 1;
            }
            // A host write landing in this cycle wins over the state read
            // (and over the op in execute, below).
            // (One-hot: the write's target as registered, `w_h`, against
            // the op's ports.)
            self.f_aw[i].next = false;
            self.f_bw[i].next = false;
            for p in 0..self.in_res.len() {
                if self.w_h[2 * p].q.val() & self.d_in_oh[i].val().get_bit(p) {
                    self.f_aw[i].next = true;
                }
                if self.w_h[2 * p + 1].q.val() & self.d_dst_oh[i].val().get_bit(p) {
                    self.f_bw[i].next = true;
                }
            }
            if self.f_aw[i].val() {
                self.r_a[i].d.next = self.w_b.val();
            }
            if self.f_bw[i].val() {
                self.r_b[i].d.next = self.w_b.val();
            }
            self.f_aop[i].next = self.r_ok[i].q.val() & (self.r_in_oh[i].q.val() & self.d_in_oh[i].val()).any() & !self.f_aw[i].val();
        }
        for i in 0..self.op_valid.len() {
            self.d_conf[i].next = false;
            self.f_bop[i].next = 0.into();
            for j in 0..self.op_valid.len() {
                // (`d_touch` implies a port of the switch with PL2 on: the
                // one-hot ports compare as the numbers do.)
                if self.lower[i].val().get_bit(j) & self.d_touch[j].val() & (self.d_dst_oh[j].val() & self.d_dst_oh[i].val()).any() {
                    self.d_conf[i].next = self.d_touch[i].val();
                }
                if self.r_ok[j].q.val() & (self.r_dst_oh[j].q.val() & self.d_dst_oh[i].val()).any() & !self.f_bw[i].val() {
                    self.f_bop[i].next = self.f_bop[i].val().replace_bit(j, true);
                }
            }
            self.r_v[i].d.next = self.op_valid[i].val();
            self.r_kind[i].d.next = self.op_kind[i].val();
            self.r_code[i].d.next = self.d_code[i].val();
            if self.d_conf[i].val() {
                self.r_code[i].d.next = 7.into();
            }
            self.r_ok[i].d.next = self.d_ok[i].val() & !self.d_conf[i].val();
            self.r_unsol[i].d.next = self.d_unsol[i].val() & !self.d_conf[i].val();
            self.r_data[i].d.next = self.op_valid[i].val() & (self.op_kind[i].val() == 2);
            self.r_clamp[i].d.next = self.op_over_k[i].val();
            self.r_mism[i].d.next = self.op_src[i].val() != self.op_in[i].val();
            self.r_badp[i].d.next = self.op_valid[i].val()
                & self.op_kind[i].val().get_bit(1)
                & ((self.op_in[i].val() >= self.c_ports.val()) | (self.op_dst[i].val() >= self.c_ports.val()));
            self.r_on_in[i].d.next = self.d_on_in[i].val();
            self.r_on_dst[i].d.next = self.d_on_dst[i].val();
            self.r_d[i].d.next = self.d_dem[i].val();
            self.r_dm1[i].clock.next = self.clock.val();
            self.r_dm1[i].d.next = self.d_dem[i].val() - 1;
            self.r_dt[i].clock.next = self.clock.val();
            self.r_dt[i].d.next = self.d_dem[i].val();
            if self.tick_next.val() {
                self.r_dt[i].d.next = self.d_dem[i].val() - 1;
            }
            self.r_in[i].d.next = self.op_in[i].val();
            self.r_dst[i].d.next = self.op_dst[i].val();
            self.r_in_oh[i].clock.next = self.clock.val();
            self.r_dst_oh[i].clock.next = self.clock.val();
            self.r_in_oh[i].d.next = self.d_in_oh[i].val();
            self.r_dst_oh[i].d.next = self.d_dst_oh[i].val();
            // Paper mode's UNSOL test: the counters compared with `T` a
            // cycle ago, at the start of the cycle two before the op's
            // (A.4; the model's decision).
            self.d_ga[i].next = false;
            self.d_gb[i].next = false;
            for p in 0..self.in_res.len() {
                if (self.op_in[i].val() & self.c_pmask.val()).index() == p {
                    self.d_ga[i].next = self.g_t[2 * p].q.val();
                }
                if (self.op_dst[i].val() & self.c_pmask.val()).index() == p {
                    self.d_gb[i].next = self.g_t[2 * p + 1].q.val();
                }
            }
            self.d_over[i].next = (self.d_on_in[i].val() & self.d_ga[i].val()) | (self.d_on_dst[i].val() & self.d_gb[i].val());
            self.r_ppass[i].clock.next = self.clock.val();
            self.r_ppass[i].d.next = !self.d_over[i].val();
        }
        // Joint mode: minus the next cycle's slot step, less one.
        self.s_mtick.next = self.c_max.val();
        if self.tick_next.val() {
            self.s_mtick.next = self.c_max1.val();
        }
        // Per port: the cycle's increment and decrement count (paper mode),
        // `inc − dec − 1` for the execute stage's one-chain update (joint
        // mode: −1, the tick enters as the carry), and the ops that write
        // (joint RSV) or decrement as a passing UNSOL (paper) each counter.
        for p in 0..self.in_res.len() {
            self.cdec[2 * p].clock.next = self.clock.val();
            self.cdm1[2 * p].clock.next = self.clock.val();
            self.cdec[2 * p + 1].clock.next = self.clock.val();
            self.cdm1[2 * p + 1].clock.next = self.clock.val();
            self.cjw[2 * p].clock.next = self.clock.val();
            self.cjw[2 * p + 1].clock.next = self.clock.val();
            self.chit[2 * p].clock.next = self.clock.val();
            self.chit[2 * p + 1].clock.next = self.clock.val();
            self.s_inc_i.next = 0.into();
            self.s_dec_i.next = 0.into();
            self.s_inc_o.next = 0.into();
            self.s_dec_o.next = 0.into();
            self.cjw[2 * p].d.next = 0.into();
            self.cjw[2 * p + 1].d.next = 0.into();
            self.chit[2 * p].d.next = false;
            self.chit[2 * p + 1].d.next = false;
            if self.c_joint.q.val() {
                for i in 0..self.op_valid.len() {
                    if self.d_ok[i].val() & !self.d_conf[i].val() & self.d_in_oh[i].val().get_bit(p) {
                        self.cjw[2 * p].d.next = self.cjw[2 * p].d.val().replace_bit(i, true);
                    }
                    if self.d_ok[i].val() & !self.d_conf[i].val() & self.d_dst_oh[i].val().get_bit(p) {
                        self.cjw[2 * p + 1].d.next = self.cjw[2 * p + 1].d.val().replace_bit(i, true);
                    }
                }
            } else {
                for i in 0..self.op_valid.len() {
                    if self.d_ok[i].val() & !self.d_conf[i].val() & self.d_in_oh[i].val().get_bit(p) {
                        self.s_inc_i.next = self.s_inc_i.val() | self.d_dem[i].val();
                    }
                    if self.d_ok[i].val() & !self.d_conf[i].val() & self.d_dst_oh[i].val().get_bit(p) {
                        self.s_inc_o.next = self.s_inc_o.val() | self.d_dem[i].val();
                    }
                    if self.op_valid[i].val()
                        & (self.op_kind[i].val() == 2)
                        & self.d_in_oh[i].val().get_bit(p)
                        & self.c_en.q.val().get_bit(p)
                    {
                        self.s_dec_i.next = 1.into();
                    }
                    if self.op_valid[i].val()
                        & (self.op_kind[i].val() == 2)
                        & self.d_dst_oh[i].val().get_bit(p)
                        & self.c_en.q.val().get_bit(p)
                    {
                        self.s_dec_o.next = self.s_dec_o.val() + 1;
                    }
                    // A passing UNSOL (written out: at its own port
                    // the op's counter is this one, no multiplexer).
                    if self.d_unsol[i].val()
                        & !self.d_conf[i].val()
                        & self.d_in_oh[i].val().get_bit(p)
                        & self.c_en.q.val().get_bit(p)
                        & !self.g_t[2 * p].q.val()
                        & !(self.d_on_dst[i].val() & self.d_gb[i].val())
                    {
                        self.chit[2 * p].d.next = true;
                    }
                    if self.d_unsol[i].val()
                        & !self.d_conf[i].val()
                        & self.d_dst_oh[i].val().get_bit(p)
                        & self.c_en.q.val().get_bit(p)
                        & !self.g_t[2 * p + 1].q.val()
                        & !(self.d_on_in[i].val() & self.d_ga[i].val())
                    {
                        self.chit[2 * p + 1].d.next = true;
                    }
                }
            }
            self.cnoh[2 * p].clock.next = self.clock.val();
            self.cnoh[2 * p + 1].clock.next = self.clock.val();
            self.cnoh[2 * p].d.next = !self.chit[2 * p].d.val();
            self.cnoh[2 * p + 1].d.next = !self.chit[2 * p + 1].d.val();
            self.cdec[2 * p].d.next = self.s_dec_i.val();
            self.cdec[2 * p + 1].d.next = self.s_dec_o.val();
            // The change of the counter less one (joint mode: minus the slot
            // step, less one); the execute stage adds the one back unless a
            // passing UNSOL (paper mode) takes it. (10 bits, `inc + !dec`,
            // sign-extended: no 32-bit chain.)
            self.s_ndec.next = !bit_cast::<10, 4>(self.s_dec_i.val());
            self.s_dm1.next = bit_cast::<10, 8>(self.s_inc_i.val()) + self.s_ndec.val();
            self.cdm1[2 * p].d.next = bit_cast::<32, 10>(self.s_dm1.val());
            if self.s_dm1.val().get_bit(9) {
                self.cdm1[2 * p].d.next = bit_cast::<32, 10>(self.s_dm1.val()) | self.c_sext.val();
            }
            self.s_ndec.next = !bit_cast::<10, 4>(self.s_dec_o.val());
            self.s_dm1.next = bit_cast::<10, 8>(self.s_inc_o.val()) + self.s_ndec.val();
            self.cdm1[2 * p + 1].d.next = bit_cast::<32, 10>(self.s_dm1.val());
            if self.s_dm1.val().get_bit(9) {
                self.cdm1[2 * p + 1].d.next = bit_cast::<32, 10>(self.s_dm1.val()) | self.c_sext.val();
            }
            if self.c_joint.q.val() {
                self.cdm1[2 * p].d.next = self.s_mtick.val();
                self.cdm1[2 * p + 1].d.next = self.s_mtick.val();
            }
        }

        // ================================================= execute
        // Joint mode: this cycle's slot step comes off every backlog.
        self.x_maxt.next = self.c_max.val();
        if self.tick_q.q.val() {
            self.x_maxt.next = self.c_max1.val();
        }
        for i in 0..self.op_valid.len() {
            // Paper mode: the counters (the GRT fields).
            self.x_pa[i].next = 0.into();
            self.x_pb[i].next = 0.into();
            for p in 0..self.in_res.len() {
                if (self.r_in[i].q.val() & self.c_pmask.val()).index() == p {
                    self.x_pa[i].next = self.st[2 * p].q.val();
                }
                if (self.r_dst[i].q.val() & self.c_pmask.val()).index() == p {
                    self.x_pb[i].next = self.st[2 * p + 1].q.val();
                }
            }
            // Joint mode: the backlogs (forwarded as they were registered).
            self.x_a[i].next = self.r_a[i].q.val();
            self.x_b[i].next = self.r_b[i].q.val();
            // s - now = max(b_in, b_out); both become that + d (saturating),
            // less this cycle's tick. a >= b: the carry out of a + !b + 1.
            self.x_ab[i].a.next = self.x_a[i].val();
            self.x_ab[i].b.next = self.r_bn[i].q.val();
            self.x_ab[i].cin.next = true;
            self.x_ge[i].next = self.x_ab[i].cout.val();
            self.x_d32[i].a.next = self.r_dm1[i].q.val();
            self.x_dt32[i].a.next = self.r_dt[i].q.val();
            self.x_add_a[i].a.next = self.x_a[i].val();
            self.x_add_a[i].b.next = self.x_dt32[i].y.val();
            self.x_add_a[i].cin.next = false;
            self.x_add_b[i].a.next = self.x_b[i].val();
            self.x_add_b[i].b.next = self.x_dt32[i].y.val();
            self.x_add_b[i].cin.next = false;
            self.x_sa[i].next = self.x_add_a[i].sum.val();
            self.x_sb[i].next = self.x_add_b[i].sum.val();
            // Above 2^32 - 1 (before the tick).
            self.x_ova[i].a.next = self.x_a[i].val();
            self.x_ova[i].b.next = self.x_d32[i].y.val();
            self.x_ova[i].cin.next = true;
            self.x_ovb[i].a.next = self.x_b[i].val();
            self.x_ovb[i].b.next = self.x_d32[i].y.val();
            self.x_ovb[i].cin.next = true;
            self.x_sat_a[i].next = self.x_ova[i].cout.val();
            self.x_sat_b[i].next = self.x_ovb[i].cout.val();
            // Each sum clamped at 2^32 - 1 (less the tick) before the select,
            // so the compare's result is the last input of the state's
            // multiplexer.
            self.x_sap[i].next = self.x_sa[i].val();
            if self.x_sat_a[i].val() {
                self.x_sap[i].next = self.x_maxt.val();
            }
            self.x_sbp[i].next = self.x_sb[i].val();
            if self.x_sat_b[i].val() {
                self.x_sbp[i].next = self.x_maxt.val();
            }
            if self.x_ge[i].val() {
                self.x_m[i].next = self.x_a[i].val();
                self.x_jsat[i].next = self.x_sat_a[i].val();
                self.x_jv[i].next = self.x_sap[i].val();
            } else {
                self.x_m[i].next = self.x_b[i].val();
                self.x_jsat[i].next = self.x_sat_b[i].val();
                self.x_jv[i].next = self.x_sbp[i].val();
            }
            // UNSOL (A.4): the reservation ahead against T.
            if self.joint_q.q.val() {
                self.x_over[i].next = (self.r_on_in[i].q.val() & (self.x_a[i].val() > self.t_q.q.val()))
                    | (self.r_on_dst[i].q.val() & (self.x_b[i].val() > self.t_q.q.val()));
            } else {
                self.x_over[i].next = !self.r_ppass[i].q.val();
            }
            self.x_pass[i].next = self.r_unsol[i].q.val() & !self.x_over[i].val();
            self.x_code[i].next = self.r_code[i].q.val();
            if self.r_unsol[i].q.val() & self.x_over[i].val() {
                self.x_code[i].next = 6.into();
            }
            // Results.
            self.q_v[i].d.next = self.r_v[i].q.val();
            self.q_code[i].d.next = self.x_code[i].val();
            self.q_d[i].d.next = self.r_d[i].q.val();
            if self.joint_q.q.val() {
                self.q_send[i].d.next = self.x_m[i].val();
                self.q_recv[i].d.next = self.x_m[i].val();
            } else {
                self.q_send[i].d.next = self.x_pa[i].val();
                self.q_recv[i].d.next = self.x_pb[i].val();
            }
            self.res_valid[i].next = self.q_v[i].q.val();
            self.res_code[i].next = self.q_code[i].q.val();
            self.res_demand[i].next = self.q_d[i].q.val();
            self.res_send[i].next = self.q_send[i].q.val();
            self.res_recv[i].next = self.q_recv[i].q.val();
        }
        // The next op's backlogs, forwarded from the ops in execute (their
        // value is the joint loop's last signal).
        for i in 0..self.op_valid.len() {
            if self.f_aop[i].val() {
                self.r_a[i].d.next = self.x_jv[i].val();
            }
            for j in 0..self.op_valid.len() {
                if self.f_bop[i].val().get_bit(j) {
                    self.r_b[i].d.next = self.x_jv[j].val();
                }
            }
            self.r_bn[i].clock.next = self.clock.val();
            self.r_bn[i].d.next = !self.r_b[i].d.val();
        }
        // ---- the state, per counter (`2p`: IN_RES[p], `2p + 1`: OUT_RES[p]).
        self.y_zero5.next = 0.into();
        for c in 0..self.st.len() {
            self.st[c].clock.next = self.clock.val();
            self.st[c].reset.next = self.reset.val();
            self.nx[c].clock.next = self.clock.val();
            self.nx[c].reset.next = self.reset.val();
            self.y_dec.next = self.cdec[c].q.val();
            self.y_hit.next = self.chit[c].q.val();
            self.y_jw.next = false;
            self.y_jv.next = 0.into();
            for i in 0..self.op_valid.len() {
                if self.cjw[c].q.val().get_bit(i) {
                    self.y_jw.next = true;
                    self.y_jv.next = self.x_jv[i].val();
                }
            }
            // One 32-bit carry chain: v + (change - 1) + 1, or + 0 for a
            // passing UNSOL (paper mode), the carry in riding as an extra low
            // bit. The change's sign (known a cycle early) says which way the
            // carry out clamps: a positive change that carries out went above
            // 2^32 - 1, a negative one that does not went below 0.
            self.y_add[c].a.next = self.st[c].q.val();
            self.y_add[c].b.next = self.cdm1[c].q.val();
            self.y_add[c].cin.next = self.cnoh[c].q.val();
            self.y_s.next = self.y_add[c].sum.val();
            self.y_co.next = self.y_add[c].cout.val();
            self.y_neg.next = self.cdm1[c].q.val().get_bit(31);
            self.y_und.next = self.y_neg.val() & !self.y_co.val();
            self.y_satx.next = !self.y_neg.val() & self.y_co.val();
            self.y_co32.next = 0.into();
            if self.y_co.val() {
                self.y_co32.next = self.c_max.val();
            }
            // The state's sources, selected early (registers): a host write,
            // the clear of a mode change, a joint RSV's value, else the sum
            // clamped. As masks, so the late signals (the sum, its carry, the
            // joint value) meet in the last two levels.
            self.y_wr.next = self.w_h[c].q.val();
            self.y_sel_j.next = self.joint_q.q.val() & self.y_jw.val() & !self.y_wr.val() & !self.c_jchg.q.val();
            self.y_keep.next = !self.y_wr.val() & !self.c_jchg.q.val() & !(self.joint_q.q.val() & self.y_jw.val());
            self.y_k0.next = 0.into();
            self.y_k1.next = 0.into();
            if self.y_keep.val() & self.y_neg.val() {
                self.y_k0.next = self.c_max.val();
            }
            if self.y_keep.val() & !self.y_neg.val() {
                self.y_k1.next = self.c_max.val();
            }
            self.y_wv.next = 0.into();
            if self.y_wr.val() {
                self.y_wv.next = self.w_data.q.val();
                if self.joint_q.q.val() {
                    self.y_wv.next = self.w_b.val();
                }
            }
            self.y_jm.next = 0.into();
            if self.y_sel_j.val() {
                self.y_jm.next = self.y_jv.val();
            }
            self.st[c].d.next = (self.y_k0.val() & self.y_co32.val() & self.y_s.val())
                | (self.y_k1.val() & (self.y_co32.val() | self.y_s.val()))
                | self.y_wv.val()
                | self.y_jm.val();
            // The state after the cycle's ops, before a host write or a
            // clear (the high-water marks).
            self.y_nx.next = self.y_s.val();
            if self.y_und.val() {
                self.y_nx.next = 0.into();
            }
            if self.y_satx.val() {
                self.y_nx.next = self.c_max.val();
            }
            if self.joint_q.q.val() & self.y_jw.val() {
                self.y_nx.next = self.y_jv.val();
            }
            self.nx[c].d.next = self.y_nx.val();
            // Paper-mode events: the decrements taken and refused.
            self.y_decx.next = bit_cast::<5, 4>(self.y_dec.val());
            if self.y_hit.val() {
                self.y_decx.next = bit_cast::<5, 4>(self.y_dec.val()) + 1;
            }
            self.p_decx[c].d.next = 0.into();
            if !self.joint_q.q.val() {
                self.p_decx[c].d.next = self.y_decx.val();
            }
            self.p_low[c].d.next = self.y_s.val().get_bits::<5>(0);
            self.p_und[c].d.next = !self.joint_q.q.val() & self.y_und.val();
            self.p_sat[c].d.next = !self.joint_q.q.val() & self.y_satx.val();
            // A joint RSV's clamp, counted once (at its in[src]).
            for i in 0..self.op_valid.len() {
                if self.is_in[c].val() & self.joint_q.q.val() & self.cjw[c].q.val().get_bit(i) & self.x_jsat[i].val() {
                    self.p_sat[c].d.next = true;
                }
            }
        }
        // A cycle later: the decrements taken and refused (paper mode).
        for c in 0..self.st.len() {
            self.p_decx[c].clock.next = self.clock.val();
            self.p_decx[c].reset.next = self.reset.val();
            self.p_low[c].clock.next = self.clock.val();
            self.p_low[c].reset.next = self.reset.val();
            self.p_und[c].clock.next = self.clock.val();
            self.p_und[c].reset.next = self.reset.val();
            self.p_sat[c].clock.next = self.clock.val();
            self.p_sat[c].reset.next = self.reset.val();
            self.y_under.next = 0.into();
            if self.p_und[c].q.val() {
                self.y_under.next = self.y_zero5.val() - self.p_low[c].q.val();
            }
            self.y_took.next = self.p_decx[c].q.val() - self.y_under.val();
            self.e_took[c].d.next = bit_cast::<16, 5>(self.y_took.val());
            self.e_under[c].d.next = bit_cast::<16, 5>(self.y_under.val());
            self.e_sat[c].d.next = 0.into();
            if self.p_sat[c].q.val() {
                self.e_sat[c].d.next = 1.into();
            }
        }
        // Read-outs: joint mode's backlogs as slot numbers.
        for p in 0..self.in_res.len() {
            self.in_res[p].next = self.st[2 * p].q.val();
            self.out_res[p].next = self.st[2 * p + 1].q.val();
            if self.joint_q.q.val() {
                self.in_res[p].next = self.now_r.q.val() + self.st[2 * p].q.val();
                self.out_res[p].next = self.now_r.q.val() + self.st[2 * p + 1].q.val();
            }
        }
        // ---- counter events of the cycle, then the counters.
        for c in 0..self.cnt.len() {
            self.e_ops[c].clock.next = self.clock.val();
            self.e_ops[c].reset.next = self.reset.val();
            self.cnt[c].clock.next = self.clock.val();
            self.cnt[c].reset.next = self.reset.val();
            self.e_ops[c].d.next = 0.into();
        }
        self.t_took.clock.next = self.clock.val();
        self.t_took.reset.next = self.reset.val();
        self.t_under.clock.next = self.clock.val();
        self.t_under.reset.next = self.reset.val();
        self.t_sat.clock.next = self.clock.val();
        self.t_sat.reset.next = self.reset.val();
        for e in 0..self.t_took.t.len() {
            self.t_took.t[e].next = 0.into();
            self.t_under.t[e].next = 0.into();
            self.t_sat.t[e].next = 0.into();
        }
        for e in 0..self.e_took.len() {
            self.e_took[e].clock.next = self.clock.val();
            self.e_took[e].reset.next = self.reset.val();
            self.e_under[e].clock.next = self.clock.val();
            self.e_under[e].reset.next = self.reset.val();
            self.e_sat[e].clock.next = self.clock.val();
            self.e_sat[e].reset.next = self.reset.val();
            self.t_took.t[e].next = self.e_took[e].q.val();
            self.t_under.t[e].next = self.e_under[e].q.val();
            self.t_sat.t[e].next = self.e_sat[e].q.val();
        }
        for i in 0..self.op_valid.len() {
            if self.r_v[i].q.val() & (self.r_kind[i].q.val() == 0) {
                self.e_ops[RSV_PKTS].d.next = self.e_ops[RSV_PKTS].d.val() + 1;
                if self.r_code[i].q.val() == 2 {
                    self.e_ops[RSV_DISABLED].d.next = self.e_ops[RSV_DISABLED].d.val() + 1;
                }
                if self.r_code[i].q.val() == 3 {
                    self.e_ops[RSV_BAD_PORT].d.next = self.e_ops[RSV_BAD_PORT].d.val() + 1;
                }
                if self.r_code[i].q.val() == 4 {
                    self.e_ops[RSV_DZ].d.next = self.e_ops[RSV_DZ].d.val() + 1;
                }
            }
            if self.r_ok[i].q.val() {
                self.e_ops[RSV_OK].d.next = self.e_ops[RSV_OK].d.val() + 1;
                if self.r_clamp[i].q.val() {
                    self.e_ops[RSV_CLAMPED].d.next = self.e_ops[RSV_CLAMPED].d.val() + 1;
                }
                if self.r_mism[i].q.val() {
                    self.e_ops[RSV_MISMATCH].d.next = self.e_ops[RSV_MISMATCH].d.val() + 1;
                }
            }
            if self.r_v[i].q.val() & (self.r_kind[i].q.val() == 1) {
                self.e_ops[GRT].d.next = self.e_ops[GRT].d.val() + 1;
            }
            if self.r_data[i].q.val() {
                self.e_ops[DATA].d.next = self.e_ops[DATA].d.val() + 1;
            }
            if self.r_badp[i].q.val() {
                self.e_ops[DATA_BAD].d.next = self.e_ops[DATA_BAD].d.val() + 1;
            }
            if self.x_pass[i].val() {
                self.e_ops[UNSOL_PASS].d.next = self.e_ops[UNSOL_PASS].d.val() + 1;
            }
            if self.r_unsol[i].q.val() & self.x_over[i].val() {
                self.e_ops[UNSOL_DROP].d.next = self.e_ops[UNSOL_DROP].d.val() + 1;
            }
            if self.r_v[i].q.val() & (self.r_code[i].q.val() == 7) {
                self.e_ops[CONFLICT].d.next = self.e_ops[CONFLICT].d.val() + 1;
            }
        }
        for c in 0..self.cnt.len() {
            self.e_sum[c].next = self.e_ops[c].q.val();
        }
        self.e_sum[DEC].next = self.t_took.sum.val();
        self.e_sum[UNDER].next = self.t_under.sum.val();
        self.e_sum[SAT].next = self.t_sat.sum.val();
        for c in 0..self.cnt.len() {
            self.zx_e[c].a.next = self.e_sum[c].val();
            self.cnt[c].d.next = self.cnt[c].q.val() + self.zx_e[c].y.val();
            if self.clear[c].val() {
                self.cnt[c].d.next = 0.into();
            }
            self.counters[c].next = self.cnt[c].q.val();
        }
        // ---- high-water marks: the state after each cycle (its ops and its
        // tick, before a host write).
        for p in 0..self.in_res.len() {
            self.hw[2 * p].clock.next = self.clock.val();
            self.hw[2 * p].reset.next = self.reset.val();
            self.hw[2 * p + 1].clock.next = self.clock.val();
            self.hw[2 * p + 1].reset.next = self.reset.val();
            self.hw[2 * p].d.next = self.hw[2 * p].q.val();
            self.hw[2 * p + 1].d.next = self.hw[2 * p + 1].q.val();
            if self.nx[2 * p].q.val() > self.hw[2 * p].q.val() {
                self.hw[2 * p].d.next = self.nx[2 * p].q.val();
            }
            if self.nx[2 * p + 1].q.val() > self.hw[2 * p + 1].q.val() {
                self.hw[2 * p + 1].d.next = self.nx[2 * p + 1].q.val();
            }
            if self.hw_clear.val() {
                self.hw[2 * p].d.next = 0.into();
                self.hw[2 * p + 1].d.next = 0.into();
            }
            self.in_hw[p].next = self.hw[2 * p].q.val();
            self.out_hw[p].next = self.hw[2 * p + 1].q.val();
        }
    }
}

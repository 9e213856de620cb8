//! `ts_pl2_alu`: the PL2 reservation ALU (seed 003 §4.1.1 Algorithm 1, §4.2,
//! §4.4, §4.5; the specification `PL2-PROTEGO.md` part A beside `DESIGN.md`;
//! decisions in `docs/pl2.md`). Golden model: `sim/src/model/pl2.rs`, which
//! this block matches op for op and cycle for cycle
//! (`tests/pl2/alu.rs`).
//!
//! The ALU works on operations, not bytes: the parser has put the RSV's
//! fields into the PHV, lookup has chosen a data packet's `dest_port`, and
//! the caller presents one op per pipeline per cycle:
//!
//! | `op_kind` | op | effect |
//! |---|---|---|
//! | 0 | RSV (`pl2_kind` 1) | checks, then paper mode: `send = in[src]; in[src] += d; recv = out[dst]; out[dst] += d` (Alg. 1 l.8-11, saturating); joint mode: `s = max(now, in[src], out[dst])` modulo 2³², both set to `s + d`, `send = recv = s − now` (A.5) |
//! | 1 | GRT from a host | dropped, counted |
//! | 2 | DATA | paper mode: `in[src] −= 1`, `out[dst] −= 1` where PL2 is on, flooring at 0 (Alg. 1 l.14-15); joint mode: nothing |
//! | 3 | UNSOL (data marked unsolicited, §4.4) | dropped when the reservation ahead exceeds `T`, else as DATA |
//!
//! `src` is always the physical ingress port `op_in`; an RSV's own
//! `src_port` field (`op_src`) is only compared with it.
//!
//! ## Timing
//! Two stages, two cycles from an op to its result (A.9: "at most 2 cycles
//! added to ingress"):
//! - **decode** (combinational from the `op_*` inputs, which must come from
//!   registers, into the stage-1 registers): the checks (ports on, demand 0,
//!   clamp to `K`), the one-hot port selects, and per port the increments and
//!   decrement counts of the cycle;
//! - **execute** (the op's cycle, the model's `cycle`): reads `in[src]` and
//!   `out[dst]` from the state registers (so every op sees every earlier op,
//!   with no forwarding), decides UNSOL, computes the joint slot, updates the
//!   state and registers the result.
//!
//! Counters settle two cycles after the op's execute cycle, the high-water
//! marks three.
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
//!   `dest_port`), `op_demand_i` (the RSV's `demand`), all 8 bits.
//! - Per pipeline `i`, two cycles later: `res_valid_i`, `res_code_i` ([`code`]),
//!   and for a grant `res_demand_i` (clamped to `K`), `res_send_i`,
//!   `res_recv_i` (the GRT's `send_timeslot`, `recv_timeslot`).
//! - Run-time registers: `joint` (mode: 0 paper, 1 joint), `k` (1..=255),
//!   `t_drop` (`T`, below 2³¹), `port_en` (bit `p`: PL2 on at port `p`),
//!   `slot_cycles` (16.16 cycles per slot, at least 1.0), `slot_run`.
//! - Host writes (A.3, 003 §4.5: a failed host's slots are removed from
//!   outside): `wr_en` with `wr_sel` (0 `IN_RES`, 1 `OUT_RES`, 2 `SLOT_NOW`),
//!   `wr_port`, `wr_data`. The write lands at the end of the cycle and wins
//!   over the cycle's ops; `SLOT_NOW` starts a fresh slot.
//! - `in_res_p`, `out_res_p` out: the state; `in_hw_p`, `out_hw_p`: the
//!   high-water marks of the reservation ahead (the counter in paper mode,
//!   `v − now` or 0 in joint mode), cleared by `hw_clear`; `now`: the slot
//!   clock.
//! - `counters_c` out, `clear_c` in: [`Pl2Alu::COUNTERS`], 32 bits, wrapping.
use crate::prim::widgets::{vec_of, DffR, Zext};
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
        SCRUB = 16;
        N = 17;
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
    pub res_valid: Vec<Signal<Out, Bit>>,
    pub res_code: Vec<Signal<Out, Bits<3>>>,
    pub res_demand: Vec<Signal<Out, Bits<8>>>,
    pub res_send: Vec<Signal<Out, Bits<32>>>,
    pub res_recv: Vec<Signal<Out, Bits<32>>>,
    pub joint: Signal<In, Bit>,
    pub k: Signal<In, Bits<8>>,
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
    c_one: Constant<Bits<33>>,
    c_max: Constant<Bits<32>>,
    // ---- decode (combinational)
    d_rsv: Vec<Signal<Local, Bit>>,
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
    r_in_oh: Vec<DFF<Bits<64>>>,
    r_dst_oh: Vec<DFF<Bits<64>>>,
    // ---- stage-1 registers, per port
    pi_inc: Vec<DFF<Bits<33>>>,
    pi_dec: Vec<DFF<Bit>>,
    po_inc: Vec<DFF<Bits<33>>>,
    po_dec: Vec<DFF<Bits<4>>>,
    // ---- state
    in_r: Vec<DffR<Bits<32>>>,
    out_r: Vec<DffR<Bits<32>>>,
    now_r: DffR<Bits<32>>,
    acc: DffR<Bits<32>>,
    sc_prev: DffR<Bits<32>>,
    scrub: DffR<Bits<8>>,
    // ---- execute (combinational)
    x_a: Vec<Signal<Local, Bits<32>>>,
    x_b: Vec<Signal<Local, Bits<32>>>,
    x_dab: Vec<Signal<Local, Bits<32>>>,
    x_dna: Vec<Signal<Local, Bits<32>>>,
    x_dnb: Vec<Signal<Local, Bits<32>>>,
    x_ge_ab: Vec<Signal<Local, Bit>>,
    x_ge_na: Vec<Signal<Local, Bit>>,
    x_ge_nb: Vec<Signal<Local, Bit>>,
    x_s: Vec<Signal<Local, Bits<32>>>,
    x_v: Vec<Signal<Local, Bits<32>>>,
    x_over: Vec<Signal<Local, Bit>>,
    x_pass: Vec<Signal<Local, Bit>>,
    x_m1a: Vec<Signal<Local, Bit>>,
    x_mb: Vec<Signal<Local, Bit>>,
    x_code: Vec<Signal<Local, Bits<3>>>,
    // per port
    y_dec: Signal<Local, Bits<4>>,
    y_a: Signal<Local, Bits<33>>,
    y_sat: Signal<Local, Bit>,
    y_av: Signal<Local, Bits<32>>,
    y_took: Signal<Local, Bits<4>>,
    y_jw: Signal<Local, Bit>,
    y_jv: Signal<Local, Bits<32>>,
    y_raise: Signal<Local, Bit>,
    y_diff: Signal<Local, Bits<32>>,
    h_diff: Signal<Local, Bits<32>>,
    tick_a: Signal<Local, Bits<33>>,
    tick_r: Signal<Local, Bits<33>>,
    // ---- results
    q_v: Vec<DffR<Bit>>,
    q_code: Vec<DFF<Bits<3>>>,
    q_d: Vec<DFF<Bits<8>>>,
    q_send: Vec<DFF<Bits<32>>>,
    q_recv: Vec<DFF<Bits<32>>>,
    // ---- counter events (from execute) and counters
    e_ops: Vec<DffR<Bits<8>>>,
    e_took_in: Vec<DffR<Bit>>,
    e_under_in: Vec<DffR<Bit>>,
    e_sat_in: Vec<DffR<Bit>>,
    e_took_out: Vec<DffR<Bits<8>>>,
    e_under_out: Vec<DffR<Bits<8>>>,
    e_sat_out: Vec<DffR<Bit>>,
    e_raise: DffR<Bits<2>>,
    e_sum: Vec<Signal<Local, Bits<8>>>,
    cnt: Vec<DffR<Bits<32>>>,
    // ---- widenings of vector elements
    zx_dem: Vec<Zext<8, 33>>,
    zx_d: Vec<Zext<8, 32>>,
    zx_in: Vec<Zext<32, 33>>,
    zx_out: Vec<Zext<32, 33>>,
    zx_e: Vec<Zext<8, 32>>,
    // ---- high-water marks
    now_prev: DffR<Bits<32>>,
    joint_prev: DffR<Bit>,
    /// The state after the cycle's ops, before a host write.
    nx_in: Vec<DffR<Bits<32>>>,
    nx_out: Vec<DffR<Bits<32>>>,
    b_in: Vec<DffR<Bits<32>>>,
    b_out: Vec<DffR<Bits<32>>>,
    hw_in: Vec<DffR<Bits<32>>>,
    hw_out: Vec<DffR<Bits<32>>>,
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
        "scrub_raised",
    ];

    /// Cycles from an op at the inputs to its result at `res_*`.
    pub const LATENCY: u64 = 2;

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
            res_valid: vec_of(n),
            res_code: vec_of(n),
            res_demand: vec_of(n),
            res_send: vec_of(n),
            res_recv: vec_of(n),
            joint: Default::default(),
            k: Default::default(),
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
            c_one: Constant::new((1u64 << 16).to_bits()),
            c_max: Constant::new(0xFFFF_FFFFu64.to_bits()),
            d_rsv: vec_of(n),
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
            r_in_oh: vec_of(n),
            r_dst_oh: vec_of(n),
            pi_inc: vec_of(p),
            pi_dec: vec_of(p),
            po_inc: vec_of(p),
            po_dec: vec_of(p),
            in_r: vec_of(p),
            out_r: vec_of(p),
            now_r: Default::default(),
            acc: Default::default(),
            sc_prev: Default::default(),
            scrub: Default::default(),
            x_a: vec_of(n),
            x_b: vec_of(n),
            x_dab: vec_of(n),
            x_dna: vec_of(n),
            x_dnb: vec_of(n),
            x_ge_ab: vec_of(n),
            x_ge_na: vec_of(n),
            x_ge_nb: vec_of(n),
            x_s: vec_of(n),
            x_v: vec_of(n),
            x_over: vec_of(n),
            x_pass: vec_of(n),
            x_m1a: vec_of(n),
            x_mb: vec_of(n),
            x_code: vec_of(n),
            y_dec: Default::default(),
            y_a: Default::default(),
            y_sat: Default::default(),
            y_av: Default::default(),
            y_took: Default::default(),
            y_jw: Default::default(),
            y_jv: Default::default(),
            y_raise: Default::default(),
            y_diff: Default::default(),
            h_diff: Default::default(),
            tick_a: Default::default(),
            tick_r: Default::default(),
            q_v: vec_of(n),
            q_code: vec_of(n),
            q_d: vec_of(n),
            q_send: vec_of(n),
            q_recv: vec_of(n),
            e_ops: vec_of(ctr::N),
            e_took_in: vec_of(p),
            e_under_in: vec_of(p),
            e_sat_in: vec_of(p),
            e_took_out: vec_of(p),
            e_under_out: vec_of(p),
            e_sat_out: vec_of(p),
            e_raise: Default::default(),
            e_sum: vec_of(ctr::N),
            cnt: vec_of(ctr::N),
            zx_dem: vec_of(n),
            zx_d: vec_of(n),
            zx_in: vec_of(p),
            zx_out: vec_of(p),
            zx_e: vec_of(ctr::N),
            now_prev: Default::default(),
            joint_prev: Default::default(),
            nx_in: vec_of(p),
            nx_out: vec_of(p),
            b_in: vec_of(p),
            b_out: vec_of(p),
            hw_in: vec_of(p),
            hw_out: vec_of(p),
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
        dff_setup!(self, clock, now_r, acc, sc_prev, scrub, e_raise, now_prev, joint_prev);
        self.joint_prev.reset.next = self.reset.val();
        self.now_r.reset.next = self.reset.val();
        self.acc.reset.next = self.reset.val();
        self.sc_prev.reset.next = self.reset.val();
        self.scrub.reset.next = self.reset.val();
        self.e_raise.reset.next = self.reset.val();
        self.now_prev.reset.next = self.reset.val();
        // ================================================= decode
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
            self.r_in_oh[i].clock.next = self.clock.val();
            self.r_dst_oh[i].clock.next = self.clock.val();
            self.q_v[i].clock.next = self.clock.val();
            self.q_v[i].reset.next = self.reset.val();
            self.q_code[i].clock.next = self.clock.val();
            self.q_d[i].clock.next = self.clock.val();
            self.q_send[i].clock.next = self.clock.val();
            self.q_recv[i].clock.next = self.clock.val();
            // One-hot ports and whether PL2 is on there (a port >= ports
            // matches no bit: off).
            self.d_in_oh[i].next = 0.into();
            self.d_dst_oh[i].next = 0.into();
            for p in 0..self.in_r.len() {
                if self.op_in[i].val().index() == p {
                    self.d_in_oh[i].next = self.d_in_oh[i].val().replace_bit(p, true);
                }
                if self.op_dst[i].val().index() == p {
                    self.d_dst_oh[i].next = self.d_dst_oh[i].val().replace_bit(p, true);
                }
            }
            self.d_on_in[i].next = (self.d_in_oh[i].val() & self.port_en.val()).any();
            self.d_on_dst[i].next = (self.d_dst_oh[i].val() & self.port_en.val()).any();
            self.d_rsv[i].next = self.op_valid[i].val() & (self.op_kind[i].val() == 0);
            self.d_unsol[i].next = self.op_valid[i].val() & (self.op_kind[i].val() == 3);
            // The demand, clamped to K (A.3).
            self.d_dem[i].next = self.op_demand[i].val();
            if self.op_demand[i].val() > self.k.val() {
                self.d_dem[i].next = self.k.val();
            }
            // The RSV's checks, in the model's order.
            self.zx_dem[i].a.next = self.d_dem[i].val();
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
            self.d_ok[i].next = self.d_rsv[i].val() & (self.d_code[i].val() == 1);
            // Ops reading out[dst]; a lower rank reading the same one is a
            // conflict.
            self.d_touch[i].next = self.d_ok[i].val() | (self.d_unsol[i].val() & self.d_on_dst[i].val());
        }
        for i in 0..self.op_valid.len() {
            self.d_conf[i].next = false;
            for j in 0..self.op_valid.len() {
                if self.lower[i].val().get_bit(j) & self.d_touch[j].val() & (self.op_dst[j].val() == self.op_dst[i].val()) {
                    self.d_conf[i].next = self.d_touch[i].val();
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
            self.r_clamp[i].d.next = self.op_demand[i].val() > self.k.val();
            self.r_mism[i].d.next = self.op_src[i].val() != self.op_in[i].val();
            self.r_badp[i].d.next = self.op_valid[i].val()
                & self.op_kind[i].val().get_bit(1)
                & ((self.op_in[i].val() >= self.c_ports.val()) | (self.op_dst[i].val() >= self.c_ports.val()));
            self.r_on_in[i].d.next = self.d_on_in[i].val();
            self.r_on_dst[i].d.next = self.d_on_dst[i].val();
            self.r_d[i].d.next = self.d_dem[i].val();
            self.r_in_oh[i].d.next = self.d_in_oh[i].val();
            self.r_dst_oh[i].d.next = self.d_dst_oh[i].val();
        }
        // Per port: the cycle's increments and DATA decrements.
        for p in 0..self.in_r.len() {
            self.pi_inc[p].clock.next = self.clock.val();
            self.pi_dec[p].clock.next = self.clock.val();
            self.po_inc[p].clock.next = self.clock.val();
            self.po_dec[p].clock.next = self.clock.val();
            self.pi_inc[p].d.next = 0.into();
            self.pi_dec[p].d.next = false;
            self.po_inc[p].d.next = 0.into();
            self.po_dec[p].d.next = 0.into();
            for i in 0..self.op_valid.len() {
                if self.d_ok[i].val() & !self.d_conf[i].val() & self.d_in_oh[i].val().get_bit(p) {
                    self.pi_inc[p].d.next = self.zx_dem[i].y.val();
                }
                if self.d_ok[i].val() & !self.d_conf[i].val() & self.d_dst_oh[i].val().get_bit(p) {
                    self.po_inc[p].d.next = self.zx_dem[i].y.val();
                }
                if self.op_valid[i].val() & (self.op_kind[i].val() == 2) & self.d_in_oh[i].val().get_bit(p) & self.port_en.val().get_bit(p)
                {
                    self.pi_dec[p].d.next = true;
                }
                if self.op_valid[i].val() & (self.op_kind[i].val() == 2) & self.d_dst_oh[i].val().get_bit(p) & self.port_en.val().get_bit(p)
                {
                    self.po_dec[p].d.next = self.po_dec[p].d.val() + 1;
                }
            }
        }
        // ================================================= execute
        for i in 0..self.op_valid.len() {
            // Reads of the state (every earlier op included).
            self.x_a[i].next = 0.into();
            self.x_b[i].next = 0.into();
            for p in 0..self.in_r.len() {
                if self.r_in_oh[i].q.val().get_bit(p) {
                    self.x_a[i].next = self.x_a[i].val() | self.in_r[p].q.val();
                }
                if self.r_dst_oh[i].q.val().get_bit(p) {
                    self.x_b[i].next = self.x_b[i].val() | self.out_r[p].q.val();
                }
            }
            // Joint mode (A.5): s = max(now, max(in, out)) modulo 2^32.
            self.x_dab[i].next = self.x_a[i].val() - self.x_b[i].val();
            self.x_dna[i].next = self.now_r.q.val() - self.x_a[i].val();
            self.x_dnb[i].next = self.now_r.q.val() - self.x_b[i].val();
            self.x_ge_ab[i].next = !self.x_dab[i].val().get_bit(31);
            self.x_ge_na[i].next = !self.x_dna[i].val().get_bit(31);
            self.x_ge_nb[i].next = !self.x_dnb[i].val().get_bit(31);
            if self.x_ge_ab[i].val() {
                self.x_s[i].next = self.x_a[i].val();
                if self.x_ge_na[i].val() {
                    self.x_s[i].next = self.now_r.q.val();
                }
            } else {
                self.x_s[i].next = self.x_b[i].val();
                if self.x_ge_nb[i].val() {
                    self.x_s[i].next = self.now_r.q.val();
                }
            }
            self.zx_d[i].a.next = self.r_d[i].q.val();
            self.x_v[i].next = self.x_s[i].val() + self.zx_d[i].y.val();
            // UNSOL (A.4): paper mode max(in, out) > T over the ports with PL2
            // on; joint mode max(now, in, out) - now > T, folded from now as
            // the model does.
            if self.joint.val() {
                self.x_m1a[i].next = self.r_on_in[i].q.val() & !self.x_ge_na[i].val();
                if self.x_m1a[i].val() {
                    self.x_mb[i].next = self.r_on_dst[i].q.val() & !self.x_ge_ab[i].val();
                } else {
                    self.x_mb[i].next = self.r_on_dst[i].q.val() & !self.x_ge_nb[i].val();
                }
                if self.x_mb[i].val() {
                    self.x_over[i].next = (self.x_b[i].val() - self.now_r.q.val()) > self.t_drop.val();
                } else if self.x_m1a[i].val() {
                    self.x_over[i].next = (self.x_a[i].val() - self.now_r.q.val()) > self.t_drop.val();
                } else {
                    self.x_over[i].next = false;
                }
            } else {
                self.x_m1a[i].next = false;
                self.x_mb[i].next = false;
                self.x_over[i].next = (self.r_on_in[i].q.val() & (self.x_a[i].val() > self.t_drop.val()))
                    | (self.r_on_dst[i].q.val() & (self.x_b[i].val() > self.t_drop.val()));
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
            if self.joint.val() {
                self.q_send[i].d.next = self.x_s[i].val() - self.now_r.q.val();
                self.q_recv[i].d.next = self.x_s[i].val() - self.now_r.q.val();
            } else {
                self.q_send[i].d.next = self.x_a[i].val();
                self.q_recv[i].d.next = self.x_b[i].val();
            }
            self.res_valid[i].next = self.q_v[i].q.val();
            self.res_code[i].next = self.q_code[i].q.val();
            self.res_demand[i].next = self.q_d[i].q.val();
            self.res_send[i].next = self.q_send[i].q.val();
            self.res_recv[i].next = self.q_recv[i].q.val();
        }
        // State, per port.
        self.e_raise.d.next = 0.into();
        for p in 0..self.in_r.len() {
            self.in_r[p].clock.next = self.clock.val();
            self.in_r[p].reset.next = self.reset.val();
            self.out_r[p].clock.next = self.clock.val();
            self.out_r[p].reset.next = self.reset.val();
            self.in_r[p].d.next = self.in_r[p].q.val();
            self.out_r[p].d.next = self.out_r[p].q.val();
            self.e_took_in[p].clock.next = self.clock.val();
            self.e_took_in[p].reset.next = self.reset.val();
            self.e_under_in[p].clock.next = self.clock.val();
            self.e_under_in[p].reset.next = self.reset.val();
            self.e_sat_in[p].clock.next = self.clock.val();
            self.e_sat_in[p].reset.next = self.reset.val();
            self.e_took_out[p].clock.next = self.clock.val();
            self.e_took_out[p].reset.next = self.reset.val();
            self.e_under_out[p].clock.next = self.clock.val();
            self.e_under_out[p].reset.next = self.reset.val();
            self.e_sat_out[p].clock.next = self.clock.val();
            self.e_sat_out[p].reset.next = self.reset.val();
            // ---- in[p], paper mode: one op at most (the port's pipeline).
            self.y_dec.next = 0.into();
            if self.pi_dec[p].q.val() {
                self.y_dec.next = 1.into();
            }
            for i in 0..self.op_valid.len() {
                if self.x_pass[i].val() & self.r_on_in[i].q.val() & self.r_in_oh[i].q.val().get_bit(p) {
                    self.y_dec.next = 1.into();
                }
            }
            self.zx_in[p].a.next = self.in_r[p].q.val();
            self.y_a.next = self.zx_in[p].y.val() + self.pi_inc[p].q.val();
            self.y_sat.next = self.y_a.val().get_bit(32);
            self.y_av.next = self.y_a.val().get_bits::<32>(0);
            if self.y_sat.val() {
                self.y_av.next = self.c_max.val();
            }
            self.y_took.next = self.y_dec.val();
            if !self.y_av.val().any() {
                self.y_took.next = 0.into();
            }
            self.e_took_in[p].d.next = self.y_took.val().get_bit(0) & !self.joint.val();
            self.e_under_in[p].d.next = self.y_dec.val().get_bit(0) & !self.y_took.val().get_bit(0) & !self.joint.val();
            self.e_sat_in[p].d.next = self.y_sat.val() & !self.joint.val();
            // ---- in[p], joint mode: the RSV's s + d, else the scrub.
            self.y_jw.next = false;
            self.y_jv.next = 0.into();
            for i in 0..self.op_valid.len() {
                if self.r_ok[i].q.val() & self.r_in_oh[i].q.val().get_bit(p) {
                    self.y_jw.next = true;
                    self.y_jv.next = self.x_v[i].val();
                }
            }
            self.y_diff.next = self.in_r[p].q.val() - self.now_r.q.val();
            self.y_raise.next = self.joint.val() & (self.scrub.q.val().index() == p) & !self.y_jw.val() & self.y_diff.val().get_bit(31);
            if self.joint.val() {
                if self.y_jw.val() {
                    self.in_r[p].d.next = self.y_jv.val();
                } else if self.y_raise.val() {
                    self.in_r[p].d.next = self.now_r.q.val();
                }
            } else {
                self.in_r[p].d.next = self.y_av.val() - bit_cast::<32, 4>(self.y_took.val());
            }
            self.nx_in[p].d.next = self.in_r[p].d.val();
            if self.wr_en.val() & (self.wr_sel.val() == 0) & (self.wr_port.val().index() == p) {
                self.in_r[p].d.next = self.wr_data.val();
            }
            if self.y_raise.val() {
                self.e_raise.d.next = self.e_raise.d.val() + 1;
            }
            // ---- out[p], paper mode: one RSV or UNSOL, merged DATA.
            self.y_dec.next = self.po_dec[p].q.val();
            for i in 0..self.op_valid.len() {
                if self.x_pass[i].val() & self.r_on_dst[i].q.val() & self.r_dst_oh[i].q.val().get_bit(p) {
                    self.y_dec.next = self.po_dec[p].q.val() + 1;
                }
            }
            self.zx_out[p].a.next = self.out_r[p].q.val();
            self.y_a.next = self.zx_out[p].y.val() + self.po_inc[p].q.val();
            self.y_sat.next = self.y_a.val().get_bit(32);
            self.y_av.next = self.y_a.val().get_bits::<32>(0);
            if self.y_sat.val() {
                self.y_av.next = self.c_max.val();
            }
            self.y_took.next = self.y_dec.val();
            if self.y_av.val() < bit_cast::<32, 4>(self.y_dec.val()) {
                self.y_took.next = self.y_av.val().get_bits::<4>(0);
            }
            self.e_took_out[p].d.next = bit_cast::<8, 4>(self.y_took.val());
            self.e_under_out[p].d.next = bit_cast::<8, 4>(self.y_dec.val() - self.y_took.val());
            if self.joint.val() {
                self.e_took_out[p].d.next = 0.into();
                self.e_under_out[p].d.next = 0.into();
            }
            self.e_sat_out[p].d.next = self.y_sat.val() & !self.joint.val();
            // ---- out[p], joint mode.
            self.y_jw.next = false;
            self.y_jv.next = 0.into();
            for i in 0..self.op_valid.len() {
                if self.r_ok[i].q.val() & self.r_dst_oh[i].q.val().get_bit(p) {
                    self.y_jw.next = true;
                    self.y_jv.next = self.x_v[i].val();
                }
            }
            self.y_diff.next = self.out_r[p].q.val() - self.now_r.q.val();
            self.y_raise.next = self.joint.val() & (self.scrub.q.val().index() == p) & !self.y_jw.val() & self.y_diff.val().get_bit(31);
            if self.joint.val() {
                if self.y_jw.val() {
                    self.out_r[p].d.next = self.y_jv.val();
                } else if self.y_raise.val() {
                    self.out_r[p].d.next = self.now_r.q.val();
                }
            } else {
                self.out_r[p].d.next = self.y_av.val() - bit_cast::<32, 4>(self.y_took.val());
            }
            self.nx_out[p].d.next = self.out_r[p].d.val();
            if self.wr_en.val() & (self.wr_sel.val() == 1) & (self.wr_port.val().index() == p) {
                self.out_r[p].d.next = self.wr_data.val();
            }
            if self.y_raise.val() {
                self.e_raise.d.next = self.e_raise.d.val() + 1;
            }
            self.in_res[p].next = self.in_r[p].q.val();
            self.out_res[p].next = self.out_r[p].q.val();
        }
        // ---- counter events of the cycle, then the counters.
        for c in 0..self.cnt.len() {
            self.e_ops[c].clock.next = self.clock.val();
            self.e_ops[c].reset.next = self.reset.val();
            self.cnt[c].clock.next = self.clock.val();
            self.cnt[c].reset.next = self.reset.val();
            self.e_ops[c].d.next = 0.into();
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
        for p in 0..self.in_r.len() {
            self.e_sum[DEC].next = self.e_sum[DEC].val() + self.e_took_out[p].q.val();
            if self.e_took_in[p].q.val() {
                self.e_sum[DEC].next = self.e_sum[DEC].val() + 1;
            }
            self.e_sum[UNDER].next = self.e_sum[UNDER].val() + self.e_under_out[p].q.val();
            if self.e_under_in[p].q.val() {
                self.e_sum[UNDER].next = self.e_sum[UNDER].val() + 1;
            }
            if self.e_sat_in[p].q.val() {
                self.e_sum[SAT].next = self.e_sum[SAT].val() + 1;
            }
            if self.e_sat_out[p].q.val() {
                self.e_sum[SAT].next = self.e_sum[SAT].val() + 1;
            }
        }
        self.e_sum[SCRUB].next = bit_cast::<8, 2>(self.e_raise.q.val());
        for c in 0..self.cnt.len() {
            self.zx_e[c].a.next = self.e_sum[c].val();
            self.cnt[c].d.next = self.cnt[c].q.val() + self.zx_e[c].y.val();
            if self.clear[c].val() {
                self.cnt[c].d.next = 0.into();
            }
            self.counters[c].next = self.cnt[c].q.val();
        }
        // ---- high-water marks: the state after each cycle's ops (before a
        // host write) against that cycle's now.
        self.now_prev.d.next = self.now_r.q.val();
        self.joint_prev.d.next = self.joint.val();
        for p in 0..self.in_r.len() {
            self.nx_in[p].clock.next = self.clock.val();
            self.nx_in[p].reset.next = self.reset.val();
            self.nx_out[p].clock.next = self.clock.val();
            self.nx_out[p].reset.next = self.reset.val();
            self.b_in[p].clock.next = self.clock.val();
            self.b_in[p].reset.next = self.reset.val();
            self.b_out[p].clock.next = self.clock.val();
            self.b_out[p].reset.next = self.reset.val();
            self.hw_in[p].clock.next = self.clock.val();
            self.hw_in[p].reset.next = self.reset.val();
            self.hw_out[p].clock.next = self.clock.val();
            self.hw_out[p].reset.next = self.reset.val();
            self.hw_in[p].d.next = self.hw_in[p].q.val();
            self.hw_out[p].d.next = self.hw_out[p].q.val();
            self.b_in[p].d.next = self.nx_in[p].q.val();
            self.b_out[p].d.next = self.nx_out[p].q.val();
            if self.joint_prev.q.val() {
                self.h_diff.next = self.nx_in[p].q.val() - self.now_prev.q.val();
                self.b_in[p].d.next = self.h_diff.val();
                if self.h_diff.val().get_bit(31) {
                    self.b_in[p].d.next = 0.into();
                }
                self.h_diff.next = self.nx_out[p].q.val() - self.now_prev.q.val();
                self.b_out[p].d.next = self.h_diff.val();
                if self.h_diff.val().get_bit(31) {
                    self.b_out[p].d.next = 0.into();
                }
            }
            if self.b_in[p].q.val() > self.hw_in[p].q.val() {
                self.hw_in[p].d.next = self.b_in[p].q.val();
            }
            if self.b_out[p].q.val() > self.hw_out[p].q.val() {
                self.hw_out[p].d.next = self.b_out[p].q.val();
            }
            if self.hw_clear.val() {
                self.hw_in[p].d.next = 0.into();
                self.hw_out[p].d.next = 0.into();
            }
            self.in_hw[p].next = self.hw_in[p].q.val();
            self.out_hw[p].next = self.hw_out[p].q.val();
        }
        // ---- the scrub pointer (joint mode), the slot clock.
        if self.joint.val() {
            self.scrub.d.next = self.scrub.q.val() + 1;
            if self.scrub.q.val() == self.c_ports.val() - 1 {
                self.scrub.d.next = 0.into();
            }
        }
        self.tick_a.next = bit_cast::<33, 32>(self.acc.q.val()) + self.c_one.val();
        if self.slot_cycles.val() != self.sc_prev.q.val() {
            self.tick_a.next = self.c_one.val();
        }
        self.sc_prev.d.next = self.slot_cycles.val();
        if self.slot_run.val() {
            if self.tick_a.val() >= bit_cast::<33, 32>(self.slot_cycles.val()) {
                self.tick_r.next = self.tick_a.val() - bit_cast::<33, 32>(self.slot_cycles.val());
                self.acc.d.next = self.tick_r.val().get_bits::<32>(0);
                self.now_r.d.next = self.now_r.q.val() + 1;
            } else {
                self.acc.d.next = self.tick_a.val().get_bits::<32>(0);
            }
        } else if self.slot_cycles.val() != self.sc_prev.q.val() {
            self.acc.d.next = 0.into();
        }
        if self.wr_en.val() & (self.wr_sel.val() == 2) {
            self.now_r.d.next = self.wr_data.val();
            self.acc.d.next = 0.into();
        }
        self.now.next = self.now_r.q.val();
    }
}

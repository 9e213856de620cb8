//! `ts_pl2`: the switch's PL2 block (`docs/pl2.md`): the reservation ALU
//! ([`Pl2Alu`]) behind its AXI4-Lite register window ([`Pl2Regs`]; A.9 of
//! the specification `PL2-PROTEGO.md`). Each ingress pipeline's
//! [`crate::pl2::stage::Pl2Stage`] sends its ops here and gets the results
//! back; the registers that the stages need (`CTRL` enable, the unsolicited
//! marks) leave on outputs.
use crate::axil::bundle::AxilSlave;
use crate::axil::regs::AxilRegs;
use crate::config::Config;
use crate::gen::unroll;
use crate::pl2::alu::Pl2Alu;
use crate::prim::widgets::{vec_of, DffR};
use crate::top::regmap::SWITCH_WINDOW_BITS;
use pidx::*;
use rust_hdl::prelude::*;

/// The PL2 window's registers (byte offsets; `P` = ports). Read/write:
///
/// | offset | name | bits |
/// |---|---|---|
/// | 0x00 | `CTRL` | 0 enable, 1 joint mode (a change clears `IN_RES`/`OUT_RES`), 2 slot clock runs |
/// | 0x04 | `K` | \[7:0\] most slots per RSV (1..=255) |
/// | 0x08 | `T` | unsolicited drop threshold in slots (below 2³¹) |
/// | 0x0C | `SLOT_CYCLES` | cycles per slot, 16.16 (1.0 to below 16384.0) |
/// | 0x10, 0x14 | `PORT_EN_LO`, `PORT_EN_HI` | bit `p`: PL2 on at port `p` (ports 0..31, 32..63) |
/// | 0x18 | `UNSOL` | \[5:0\] DSCP, 6 DSCP on, \[10:8\] PCP, 11 PCP on: the marks of an unsolicited packet |
///
/// Then, from 0x1C: `SLOT_NOW` (the slot clock; a write sets it), `IN_RES[p]`
/// and `OUT_RES[p]` (the reservation counters, joint mode the slot each
/// reserves up to; a write sets one: a failed host's slots are removed from
/// outside, 003 §4.5), `IN_HW[p]`, `OUT_HW[p]` (high-water marks of the
/// reservation ahead; a write to any clears them all), `GRT_LAT_MIN[p]` and
/// `GRT_LAT_MAX[p]` (the fewest and most cycles from an RSV's first beat into
/// port `p` to its GRT's first beat out of port `p`, modulo 2¹⁶; 0xFFFF and
/// 0 until a GRT left; a write to any clears them all), the counters
/// [`Pl2Alu::COUNTERS`] and `HOLD_CYCLES` (clear on write).
pub struct Pl2Regs {
    pub ports: usize,
}

impl Pl2Regs {
    pub const CTRL: u32 = 0x00;
    pub const K: u32 = 0x04;
    pub const T: u32 = 0x08;
    pub const SLOT_CYCLES: u32 = 0x0C;
    pub const PORT_EN_LO: u32 = 0x10;
    pub const PORT_EN_HI: u32 = 0x14;
    pub const UNSOL: u32 = 0x18;
    /// `CTRL` bits.
    pub const CTRL_ENABLE: u32 = 1;
    pub const CTRL_JOINT: u32 = 2;
    pub const CTRL_SLOT_RUN: u32 = 4;
    /// `UNSOL` bits.
    pub const UNSOL_DSCP_EN: u32 = 1 << 6;
    pub const UNSOL_PCP_LSB: u32 = 8;
    pub const UNSOL_PCP_EN: u32 = 1 << 11;
    /// Read/write registers.
    pub const N_RW: usize = 7;
    /// `SLOT_NOW`, the first read-only register.
    pub const SLOT_NOW: u32 = 4 * Self::N_RW as u32;

    /// `IN_RES[p]`.
    pub fn in_res(&self, p: usize) -> u32 {
        Self::SLOT_NOW + 4 * (1 + p) as u32
    }
    /// `OUT_RES[p]`.
    pub fn out_res(&self, p: usize) -> u32 {
        self.in_res(self.ports + p)
    }
    /// `IN_HW[p]`.
    pub fn in_hw(&self, p: usize) -> u32 {
        self.in_res(2 * self.ports + p)
    }
    /// `OUT_HW[p]`.
    pub fn out_hw(&self, p: usize) -> u32 {
        self.in_res(3 * self.ports + p)
    }
    /// `GRT_LAT_MIN[p]`: the fewest cycles from an RSV's first beat into
    /// port `p` to its GRT's first beat out (0xFFFF: none yet).
    pub fn grt_lat_min(&self, p: usize) -> u32 {
        self.in_res(4 * self.ports + p)
    }
    /// `GRT_LAT_MAX[p]`: the most such cycles (0: none yet).
    pub fn grt_lat_max(&self, p: usize) -> u32 {
        self.in_res(5 * self.ports + p)
    }
    /// Counter `name` of [`Pl2Alu::COUNTERS`].
    pub fn counter(&self, name: &str) -> Option<u32> {
        Pl2Alu::COUNTERS.iter().position(|n| *n == name).map(|i| self.in_res(6 * self.ports + i))
    }
    /// `HOLD_CYCLES`: cycles in which the cross-pipeline hold kept a
    /// pipeline's RSV/UNSOL from the ALU (A.9, "hold cycles").
    pub fn hold_cycles(&self) -> u32 {
        self.in_res(6 * self.ports + Pl2Alu::COUNTERS.len())
    }
    /// Read-only registers.
    pub fn n_ro(&self) -> usize {
        2 + 6 * self.ports + Pl2Alu::COUNTERS.len()
    }

    /// Reset values of the read/write registers, from `cfg.pl2`.
    pub fn rw_reset(cfg: &Config) -> Vec<u32> {
        let p = &cfg.pl2;
        let en = cfg.pl2_port_en();
        let mut unsol = 0;
        if p.dscp_unsol >= 0 {
            unsol |= p.dscp_unsol as u32 | Self::UNSOL_DSCP_EN;
        }
        if p.pcp_unsol >= 0 {
            unsol |= ((p.pcp_unsol as u32) << Self::UNSOL_PCP_LSB) | Self::UNSOL_PCP_EN;
        }
        vec![
            (p.enable as u32 * Self::CTRL_ENABLE) | ((p.mode == "joint") as u32 * Self::CTRL_JOINT) | Self::CTRL_SLOT_RUN,
            p.k,
            p.t_drop,
            cfg.pl2_slot_cycles(),
            en as u32,
            (en >> 32) as u32,
            unsol,
        ]
    }
}

/// Register-file indices by name, for the `#[hdl_gen]` code.
mod pidx {
    use super::Pl2Regs as R;
    crate::gen::unroll::named_indices! {
        RW_CTRL = (R::CTRL / 4) as usize;
        RW_K = (R::K / 4) as usize;
        RW_T = (R::T / 4) as usize;
        RW_SLOT = (R::SLOT_CYCLES / 4) as usize;
        RW_EN_LO = (R::PORT_EN_LO / 4) as usize;
        RW_EN_HI = (R::PORT_EN_HI / 4) as usize;
        RW_UNSOL = (R::UNSOL / 4) as usize;
        CTRL_ENABLE_BIT = R::CTRL_ENABLE.trailing_zeros() as usize;
        CTRL_JOINT_BIT = R::CTRL_JOINT.trailing_zeros() as usize;
        CTRL_RUN_BIT = R::CTRL_SLOT_RUN.trailing_zeros() as usize;
        UNSOL_DSCP_EN_BIT = R::UNSOL_DSCP_EN.trailing_zeros() as usize;
        UNSOL_PCP_LSB = R::UNSOL_PCP_LSB as usize;
        UNSOL_PCP_EN_BIT = R::UNSOL_PCP_EN.trailing_zeros() as usize;
    }
    const _: () = assert!(R::SLOT_NOW as usize == 4 * R::N_RW && RW_UNSOL + 1 == R::N_RW);
}

/// The PL2 block.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock, synchronous active-high reset
///   (registers to the configuration's values; ALU state, slot clock,
///   counters to 0).
/// - `s_axil_*`: the register window ([`Pl2Regs`]).
/// - Per pipeline `i`: `op_*_i` in, `res_*_i` out, as on [`Pl2Alu`].
/// - `enable`, `unsol_dscp`, `unsol_dscp_en`, `unsol_pcp`, `unsol_pcp_en`
///   out: `CTRL` bit 0 and `UNSOL`, for every pipeline's stage; `k_now`
///   out: the ALU's registered `K`, which each stage clamps its ops to.
/// - Per pipeline `i`: `hold_ev_i` in: the stage's head was held (the
///   cross-pipeline hold, `crate::pl2::stage`, A.2), counted in
///   `HOLD_CYCLES` (cycles in which some pipeline's head was held).
/// - Per port `p`: `grt_v_p`, `grt_lat_p` (32 bits, below 2¹⁶) in: a GRT's first beat
///   left port `p` after `grt_lat_p` cycles (the switch measures it from
///   `tuser.t_in`, [`crate::meta`]); kept in `GRT_LAT_MIN[p]`/`GRT_LAT_MAX[p]`
///   a cycle later.
///
/// A host write of `SLOT_NOW`, `IN_RES[p]` or `OUT_RES[p]` reaches the ALU
/// two cycles after the register file takes it (registered here, then in
/// the ALU). The register file stores what is written: a value outside the
/// ranges above (which `trimswitch` checks in configurations) is the host's
/// error; the ALU uses `K`'s low 8 bits.
#[derive(LogicBlock)]
pub struct Pl2Block {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil: AxilSlave<SWITCH_WINDOW_BITS>,
    pub op_valid: Vec<Signal<In, Bit>>,
    pub op_kind: Vec<Signal<In, Bits<2>>>,
    pub op_in: Vec<Signal<In, Bits<8>>>,
    pub op_src: Vec<Signal<In, Bits<8>>>,
    pub op_dst: Vec<Signal<In, Bits<8>>>,
    pub op_demand: Vec<Signal<In, Bits<8>>>,
    pub op_dem_k: Vec<Signal<In, Bits<8>>>,
    pub op_over_k: Vec<Signal<In, Bit>>,
    /// The ALU's `k_now` (the callers clamp their ops' demand to it).
    pub k_now: Signal<Out, Bits<8>>,
    pub op_in_oh: Vec<Signal<In, Bits<64>>>,
    pub op_dst_oh: Vec<Signal<In, Bits<64>>>,
    pub res_code: Vec<Signal<Out, Bits<3>>>,
    pub res_demand: Vec<Signal<Out, Bits<8>>>,
    pub res_send: Vec<Signal<Out, Bits<32>>>,
    pub res_recv: Vec<Signal<Out, Bits<32>>>,
    pub enable: Signal<Out, Bit>,
    pub unsol_dscp: Signal<Out, Bits<6>>,
    pub unsol_dscp_en: Signal<Out, Bit>,
    pub unsol_pcp: Signal<Out, Bits<3>>,
    pub unsol_pcp_en: Signal<Out, Bit>,
    pub hold_ev: Vec<Signal<In, Bit>>,
    pub grt_v: Vec<Signal<In, Bit>>,
    pub grt_lat: Vec<Signal<In, Bits<32>>>,
    // Held in 32 bits (below 2^16): hdl_gen cannot widen a vector element.
    lat_min: Vec<DffR<Bits<32>>>,
    lat_max: Vec<DffR<Bits<32>>>,
    lat_clear: Signal<Local, Bit>,
    regs: AxilRegs<SWITCH_WINDOW_BITS>,
    alu: Pl2Alu,
    port_id: Vec<Constant<Bits<8>>>,
    /// Host writes, registered: enable, select, port, data; `hw_clear`.
    r_wr: DffR<Bit>,
    r_sel: DffR<Bits<2>>,
    r_port: DffR<Bits<8>>,
    r_data: DffR<Bits<32>>,
    r_hwc: DffR<Bit>,
    wr: Signal<Local, Bit>,
    sel: Signal<Local, Bits<2>>,
    port: Signal<Local, Bits<8>>,
    hwc: Signal<Local, Bit>,
    any_held: Signal<Local, Bit>,
    held_q: DffR<Bit>,
    n_hold: DffR<Bits<32>>,
}

impl Pl2Block {
    /// The PL2 block of the switch `cfg` describes: `datapath.ports` ports,
    /// one op input per pipeline.
    pub fn new(cfg: &Config) -> Self {
        let (ports, pipes) = (cfg.datapath.ports, cfg.datapath.pipelines);
        let r = Pl2Regs { ports };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            op_valid: vec_of(pipes),
            op_kind: vec_of(pipes),
            op_in: vec_of(pipes),
            op_src: vec_of(pipes),
            op_dst: vec_of(pipes),
            op_demand: vec_of(pipes),
            op_dem_k: vec_of(pipes),
            op_over_k: vec_of(pipes),
            k_now: Default::default(),
            op_in_oh: vec_of(pipes),
            op_dst_oh: vec_of(pipes),
            res_code: vec_of(pipes),
            res_demand: vec_of(pipes),
            res_send: vec_of(pipes),
            res_recv: vec_of(pipes),
            enable: Default::default(),
            unsol_dscp: Default::default(),
            unsol_dscp_en: Default::default(),
            unsol_pcp: Default::default(),
            unsol_pcp_en: Default::default(),
            regs: AxilRegs::new(&Pl2Regs::rw_reset(cfg), r.n_ro()),
            alu: Pl2Alu::new(ports, pipes),
            port_id: (0..ports).map(|p| Constant::new((p as u64).to_bits())).collect(),
            r_wr: Default::default(),
            r_sel: Default::default(),
            r_port: Default::default(),
            r_data: Default::default(),
            r_hwc: Default::default(),
            wr: Default::default(),
            sel: Default::default(),
            port: Default::default(),
            hwc: Default::default(),
            hold_ev: vec_of(pipes),
            grt_v: vec_of(ports),
            grt_lat: vec_of(ports),
            lat_min: (0..ports).map(|_| DffR::new(0xFFFFu64.to_bits())).collect(),
            lat_max: vec_of(ports),
            lat_clear: Default::default(),
            any_held: Default::default(),
            held_q: Default::default(),
            n_hold: Default::default(),
        }
    }
}

impl Logic for Pl2Block {
    fn update(&mut self) {
        Self::update(self)
    }
    fn connect(&mut self) {
        Self::connect(self)
    }
    fn hdl(&self) -> Verilog {
        unroll::resolve_with(Self::hdl(self), pidx::NAMES)
    }
}

impl Pl2Block {
    #[hdl_gen]
    fn update(&mut self) {
        self.regs.clock.next = self.clock.val();
        self.regs.reset.next = self.reset.val();
        self.alu.clock.next = self.clock.val();
        self.alu.reset.next = self.reset.val();
        dff_setup!(self, clock, r_wr, r_sel, r_port, r_data, r_hwc, held_q, n_hold);
        self.held_q.reset.next = self.reset.val();
        self.n_hold.reset.next = self.reset.val();
        self.r_wr.reset.next = self.reset.val();
        self.r_sel.reset.next = self.reset.val();
        self.r_port.reset.next = self.reset.val();
        self.r_data.reset.next = self.reset.val();
        self.r_hwc.reset.next = self.reset.val();
        AxilSlave::<SWITCH_WINDOW_BITS>::link(&mut self.s_axil, &mut self.regs.s_axil);
        // Run-time settings.
        self.alu.joint.next = self.regs.rw[RW_CTRL].val().get_bit(CTRL_JOINT_BIT);
        self.alu.slot_run.next = self.regs.rw[RW_CTRL].val().get_bit(CTRL_RUN_BIT);
        self.alu.k.next = self.regs.rw[RW_K].val().get_bits::<8>(0);
        self.alu.t_drop.next = self.regs.rw[RW_T].val();
        self.alu.slot_cycles.next = self.regs.rw[RW_SLOT].val();
        self.alu.port_en.next = bit_cast::<64, 32>(self.regs.rw[RW_EN_LO].val()) | (bit_cast::<64, 32>(self.regs.rw[RW_EN_HI].val()) << 32);
        self.enable.next = self.regs.rw[RW_CTRL].val().get_bit(CTRL_ENABLE_BIT);
        self.k_now.next = self.alu.k_now.val();
        self.unsol_dscp.next = self.regs.rw[RW_UNSOL].val().get_bits::<6>(0);
        self.unsol_dscp_en.next = self.regs.rw[RW_UNSOL].val().get_bit(UNSOL_DSCP_EN_BIT);
        self.unsol_pcp.next = self.regs.rw[RW_UNSOL].val().get_bits::<3>(UNSOL_PCP_LSB);
        self.unsol_pcp_en.next = self.regs.rw[RW_UNSOL].val().get_bit(UNSOL_PCP_EN_BIT);
        // The pipelines' ops and results.
        for i in 0..self.op_valid.len() {
            self.alu.op_valid[i].next = self.op_valid[i].val();
            self.alu.op_kind[i].next = self.op_kind[i].val();
            self.alu.op_in[i].next = self.op_in[i].val();
            self.alu.op_src[i].next = self.op_src[i].val();
            self.alu.op_dst[i].next = self.op_dst[i].val();
            self.alu.op_demand[i].next = self.op_demand[i].val();
            self.alu.op_dem_k[i].next = self.op_dem_k[i].val();
            self.alu.op_over_k[i].next = self.op_over_k[i].val();
            self.alu.op_in_oh[i].next = self.op_in_oh[i].val();
            self.alu.op_dst_oh[i].next = self.op_dst_oh[i].val();
            self.res_code[i].next = self.alu.res_code[i].val();
            self.res_demand[i].next = self.alu.res_demand[i].val();
            self.res_send[i].next = self.alu.res_send[i].val();
            self.res_recv[i].next = self.alu.res_recv[i].val();
        }
        // The cross-pipeline hold's cycles.
        self.any_held.next = false;
        for i in 0..self.hold_ev.len() {
            if self.hold_ev[i].val() {
                self.any_held.next = true;
            }
        }
        self.held_q.d.next = self.any_held.val();
        if self.held_q.q.val() {
            self.n_hold.d.next = self.n_hold.q.val() + 1;
        }
        // Read-only registers: SLOT_NOW, IN_RES, OUT_RES, IN_HW, OUT_HW,
        // counters, HOLD_CYCLES. A write to SLOT_NOW, IN_RES[p] or OUT_RES[p] sets it.
        self.regs.ro[0].next = self.alu.now.val();
        self.wr.next = self.regs.ro_clear[0].val();
        self.sel.next = 2.into();
        self.port.next = 0.into();
        self.hwc.next = false;
        self.lat_clear.next = false;
        for np in (self.port_id.len())..(self.port_id.len() + 1) {
            for p in 0..self.port_id.len() {
                self.regs.ro[1 + p].next = self.alu.in_res[p].val();
                self.regs.ro[1 + np + p].next = self.alu.out_res[p].val();
                self.regs.ro[1 + 2 * np + p].next = self.alu.in_hw[p].val();
                self.regs.ro[1 + 3 * np + p].next = self.alu.out_hw[p].val();
                if self.regs.ro_clear[1 + p].val() {
                    self.wr.next = true;
                    self.sel.next = 0.into();
                    self.port.next = self.port_id[p].val();
                }
                if self.regs.ro_clear[1 + np + p].val() {
                    self.wr.next = true;
                    self.sel.next = 1.into();
                    self.port.next = self.port_id[p].val();
                }
                if self.regs.ro_clear[1 + 2 * np + p].val() | self.regs.ro_clear[1 + 3 * np + p].val() {
                    self.hwc.next = true;
                }
                // RSV->GRT latency: a GRT's cycles from in to out.
                self.regs.ro[1 + 4 * np + p].next = self.lat_min[p].q.val();
                self.regs.ro[1 + 5 * np + p].next = self.lat_max[p].q.val();
                if self.regs.ro_clear[1 + 4 * np + p].val() | self.regs.ro_clear[1 + 5 * np + p].val() {
                    self.lat_clear.next = true;
                }
            }
            for c in 0..self.alu.counters.len() {
                self.regs.ro[1 + 6 * np + c].next = self.alu.counters[c].val();
                self.alu.clear[c].next = self.regs.ro_clear[1 + 6 * np + c].val();
            }
            for nc in (self.alu.counters.len())..(self.alu.counters.len() + 1) {
                self.regs.ro[1 + 6 * np + nc].next = self.n_hold.q.val();
                if self.regs.ro_clear[1 + 6 * np + nc].val() {
                    self.n_hold.d.next = 0.into();
                }
            }
        }
        for p in 0..self.lat_min.len() {
            self.lat_min[p].clock.next = self.clock.val();
            self.lat_min[p].reset.next = self.reset.val();
            self.lat_max[p].clock.next = self.clock.val();
            self.lat_max[p].reset.next = self.reset.val();
            self.lat_min[p].d.next = self.lat_min[p].q.val();
            self.lat_max[p].d.next = self.lat_max[p].q.val();
            if self.grt_v[p].val() & (self.grt_lat[p].val() < self.lat_min[p].q.val()) {
                self.lat_min[p].d.next = self.grt_lat[p].val();
            }
            if self.grt_v[p].val() & (self.grt_lat[p].val() > self.lat_max[p].q.val()) {
                self.lat_max[p].d.next = self.grt_lat[p].val();
            }
            if self.lat_clear.val() {
                self.lat_min[p].d.next = 0xFFFF.into();
                self.lat_max[p].d.next = 0.into();
            }
        }
        self.r_wr.d.next = self.wr.val();
        self.r_sel.d.next = self.sel.val();
        self.r_port.d.next = self.port.val();
        self.r_data.d.next = self.regs.wdata.val();
        self.r_hwc.d.next = self.hwc.val();
        self.alu.wr_en.next = self.r_wr.q.val();
        self.alu.wr_sel.next = self.r_sel.q.val();
        self.alu.wr_port.next = self.r_port.q.val();
        self.alu.wr_data.next = self.r_data.q.val();
        self.alu.hw_clear.next = self.r_hwc.q.val();
    }
}

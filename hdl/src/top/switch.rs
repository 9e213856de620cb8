//! `ts_switch`: the whole switch data path of one configuration, as the
//! design guide draws it (`../shared/docs/DESIGN.md` §2): per port the
//! receive check, the ingress pipeline (arbiter, parser, classify, lookup,
//! next-hop MAC rewrite), the traffic manager (meter stage, admission,
//! trimmer, header and data queues, scheduler), the egress rewrite (router
//! MAC as source of routed packets, [`crate::egress::rewrite`]) and out to the MAC's
//! transmit side.
//!
//! One AXI4-Lite port reaches every register ([`crate::top::regmap`]): windows
//! `0..P` are the ingress pipelines, windows `P..2P` their traffic managers,
//! window `2P` the PL2 block ([`Pl2Block`]: the reservation ALU every
//! pipeline's PL2 stage asks, `docs/pl2.md`).
//!
//! With several ingress pipelines (`alveo-u250`, `sim-16x100g`; seed 000 §3,
//! the Tofino's), each pipeline has its own traffic manager: its own meters
//! and port modes (a pipeline meters only its own traffic, as in the paper),
//! its own DoD FIFO, trimmer and a header and a data queue per egress port.
//! What the pipelines share is each port's occupancy: admission decides on
//! the port's total over all pipelines, exact, so the queue limits hold per
//! port as in one pipeline (ideal mode stays ideal). Two pipelines must not
//! reserve the same queue in the same cycle, so a rotating-priority check
//! holds a pipeline's decision for a cycle while a higher-priority pipeline
//! wants a port it touches (destination, or source for a return to sender),
//! and for a cycle after another pipeline reserved in a queue its packet may
//! take (admission's fit tests are registered a cycle ahead and include only
//! its own pipeline's last reservation, [`crate::tm::admit`]).
//! A deflection's notify reaches the port's mode machine in every pipeline
//! (send to all, seed 000 §5). Per egress port a round-robin arbiter merges
//! the pipelines' scheduled outputs, header-queue packets first. The egress
//! rewrite of a port takes the router MAC of the pipeline the port belongs
//! to (`ingressN` for ports `N * per ..`).
//! `docs/switch.md`, "Several pipelines", has the reasoning.
use crate::axil::bundle::{AxilMaster, AxilSlave};
use crate::axil::split::AxilSplit;
use crate::axis::arb_mux::AxisArbMux;
use crate::axis::bundle::{AxisPlainSink, AxisSource};
use crate::config::Config;
use crate::egress::rewrite::EgressRewrite;
use crate::gen::unroll;
use crate::ingress::Ingress;
use crate::meta::{GRT_BIT, T_IN_LSB};
use crate::pl2::block::Pl2Block;
use crate::prim::widgets::{vec_of, DffKeep, DffR};
use crate::protego::port::PORT_REG_BITS;
use crate::protego::shim::ProtegoShim;
use crate::tm::admit::QUEUE_LSB;
use crate::tm::TrafficManager;
use crate::top::regmap::{SWITCH_ADDR_BITS, SWITCH_WINDOW_BITS};
use anyhow::{ensure, Result};
use rust_hdl::prelude::*;

/// The switch. Type parameters as for [`crate::axis::pkt_fifo::PktFifo`].
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset of
///   every block (registers return to the configuration's values, tables
///   empty, queues empty, counters zero). The pin is registered once
///   (`rst`) and the blocks see the register, so the reset net starts at a
///   flip-flop and no block's logic depends on the pin combinationally (in
///   the Verilated switch such logic is evaluated at every input change:
///   issue 14), and a copy of that register per part of the switch
///   (`rst_in`, `rst_port`, `rst_top`, and each traffic manager's own per
///   part) drives each part; a reset takes effect two cycles after the pin
///   rises and ends two cycles after it falls (the traffic managers'
///   register files, one cycle).
/// - `s_tdata[p]`, `s_tkeep[p]`, `s_tlast[p]`, `s_tuser[p]`, `s_tvalid[p]`
///   in, `s_tready[p]` out: frames from the MAC of port `p`, FCS included
///   (checked, then stripped or kept as `CTRL` says; without it with
///   `ingress.fcs = "mac"`); `s_tuser[p]` on a last beat: the MAC's
///   bad-frame flag (the frame is dropped, `RX_DROP_FCS`), 0 for none.
/// - `m_tdata[p]` … `m_tvalid[p]` out, `m_tready[p]` in: frames for the MAC
///   of port `p`, without FCS when the ingress strips it (the MAC appends
///   it); `m_tuser[p]` carries the packet's metadata ([`crate::meta`]:
///   length, ports, queue, TRIMMED/RETURNED flags) for a monitor, the MAC
///   ignores it.
/// - `s_axil_*`: the AXI4-Lite slave, [`SWITCH_ADDR_BITS`]-bit byte
///   addresses ([`crate::top::regmap::SwitchMap`]).
#[derive(LogicBlock)]
pub struct Switch<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: Vec<AxisPlainSink<D, K>>,
    pub m: Vec<AxisSource<D, K, U>>,
    pub s_axil: AxilSlave<SWITCH_ADDR_BITS>,
    port_base: Vec<Constant<Bits<8>>>,
    ingress: Vec<Ingress<D, K, U, M, W>>,
    tm: Vec<TrafficManager<D, K, U, M, W>>,
    pl2: Pl2Block,
    split: AxilSplit<SWITCH_ADDR_BITS, SWITCH_WINDOW_BITS>,
    /// `reset`, registered.
    rst: DFF<Bit>,
    /// Copies of `rst`, each loaded from it and driving one part of the
    /// switch: each pipeline's ingress (`rst_in`), each port's egress side
    /// (`rst_port`), and the rest of the top (`rst_top`); each traffic
    /// manager takes `rst` itself and makes its own copy per part (its
    /// queues, its admission, ...: [`TrafficManager`]'s data path leaves
    /// reset a cycle after its `reset`, with the others). One register whose
    /// net reached every block was the whole switch's critical path on the
    /// ECP5 (issue 14: its routing to a block across the die), and one copy
    /// per traffic manager was again in session 55; a copy is placed near
    /// its loads. `DffKeep`, so synthesis does not merge the copies back
    /// into one.
    rst_in: Vec<DffKeep<Bit>>,
    rst_port: Vec<DffKeep<Bit>>,
    rst_top: DffKeep<Bit>,
    notify_all: Vec<Signal<Local, Bit>>,
    // One pipeline: `zero` has one element (the other pipelines' occupancy).
    zero: Vec<Constant<Bits<32>>>,
    // Several pipelines (each vector empty with one).
    rot: Vec<DffR<Bits<8>>>,
    pipes: Vec<Constant<Bits<8>>>,
    pipe_id: Vec<Constant<Bits<8>>>,
    /// Every pipeline's index, for its PL2 stage's hold.
    pl2_pipe_id: Vec<Constant<Bits<8>>>,
    rank: Vec<Signal<Local, Bits<8>>>,
    // Per pipeline: it reserved last cycle (`r_res`) in queue `r_q`; a
    // pipeline whose packet may reserve in that queue waits (`hazard`).
    r_res: Vec<DffR<Bit>>,
    r_q: Vec<DffR<Bits<8>>>,
    hq_dest: Vec<Signal<Local, Bits<8>>>,
    hq_src: Vec<Signal<Local, Bits<8>>>,
    hazard: Vec<Signal<Local, Bit>>,
    top_waits: Vec<Signal<Local, Bit>>,
    tot_b: Vec<Signal<Local, Bits<32>>>,
    tot_w: Vec<Signal<Local, Bits<32>>>,
    merge: Vec<AxisArbMux<D, K, U>>,
    egress: Vec<EgressRewrite<D, K, U>>,
    /// With Protego (`[protego] ports` not empty): a shim per port (Protego
    /// or a wire, `crate::protego::shim`) between `rx_fcs` and the arbiter
    /// and between the egress rewrite and the MAC, and the window that
    /// holds their registers (`pg_split`, one); without, `pg_off` (one).
    shim: Vec<ProtegoShim<D, K, U>>,
    pg_split: Vec<AxilSplit<SWITCH_WINDOW_BITS, PORT_REG_BITS>>,
    pg_off: Vec<Constant<Bit>>,
    /// The cycle counter whose low 16 bits `tuser.t_in` is taken from (each
    /// ingress pipeline keeps its own, in lockstep from the same reset).
    now: DffR<Bits<32>>,
    lat_mask: Constant<Bits<32>>,
    /// Per port: a packet's later beats are leaving (`o_mid`); a GRT's first
    /// beat left `o_lat` cycles after its RSV's came in (`o_grt`).
    o_mid: Vec<DffR<Bit>>,
    o_grt: Vec<DffR<Bit>>,
    o_lat: Vec<DffR<Bits<32>>>,
    o_go: Vec<Signal<Local, Bit>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Switch<D, K, U, M, W> {
    /// The switch `cfg` describes: `datapath.pipelines` ingress pipelines
    /// and traffic managers (one AXI4-Lite window each, 16 windows at most).
    pub fn new(cfg: &Config) -> Result<Self> {
        let ports = cfg.datapath.ports;
        let pipes = cfg.datapath.pipelines;
        ensure!(
            2 * pipes + 1 < 1 << (SWITCH_ADDR_BITS - SWITCH_WINDOW_BITS),
            "{}: datapath.pipelines = {pipes}: the switch's register map has room for {} pipelines (two windows each, and PL2's)",
            cfg.source.display(),
            ((1 << (SWITCH_ADDR_BITS - SWITCH_WINDOW_BITS)) - 1) / 2
        );
        let per = ports / pipes;
        let multi = pipes > 1;
        let pg = !cfg.protego.ports.is_empty();
        Ok(Self {
            clock: Default::default(),
            reset: Default::default(),
            s: vec_of(ports),
            m: vec_of(ports),
            s_axil: Default::default(),
            port_base: (0..pipes).map(|n| Constant::new(((n * per) as u64).to_bits())).collect(),
            ingress: (0..pipes).map(|_| Ingress::new(cfg)).collect(),
            tm: (0..pipes).map(|_| TrafficManager::new(cfg)).collect(),
            pl2: Pl2Block::new(cfg),
            split: AxilSplit::new(2 * pipes + 1 + pg as usize),
            rst: Default::default(),
            rst_in: vec_of(pipes),
            rst_port: vec_of(ports),
            rst_top: Default::default(),
            notify_all: vec_of(ports),
            zero: if multi { Vec::new() } else { vec![Constant::new(0u64.to_bits())] },
            rot: vec_of(multi as usize),
            pipes: if multi { vec![Constant::new((pipes as u64).to_bits())] } else { Vec::new() },
            pl2_pipe_id: (0..pipes).map(|n| Constant::new((n as u64).to_bits())).collect(),
            pipe_id: if multi { (0..pipes).map(|n| Constant::new((n as u64).to_bits())).collect() } else { Vec::new() },
            rank: vec_of(if multi { pipes } else { 0 }),
            r_res: vec_of(if multi { pipes } else { 0 }),
            r_q: vec_of(if multi { pipes } else { 0 }),
            hq_dest: vec_of(if multi { pipes } else { 0 }),
            hq_src: vec_of(if multi { pipes } else { 0 }),
            hazard: vec_of(if multi { pipes } else { 0 }),
            top_waits: vec_of(multi as usize),
            tot_b: vec_of(if multi { 2 * ports } else { 0 }),
            tot_w: vec_of(if multi { 2 * ports } else { 0 }),
            // Header-queue packets (queue index even) before data.
            merge: if multi {
                (0..ports)
                    .map(|_| AxisArbMux::with_priority(pipes, Bits::<U>::default().replace_bit(QUEUE_LSB, true), Bits::default()))
                    .collect()
            } else {
                Vec::new()
            },
            egress: vec_of(ports),
            shim: if pg { (0..ports).map(|p| ProtegoShim::new(cfg, p)).collect() } else { Vec::new() },
            pg_split: if pg { vec![AxilSplit::new(ports)] } else { Vec::new() },
            pg_off: if pg { Vec::new() } else { vec![Constant::new(true)] },
            now: Default::default(),
            lat_mask: Constant::new(0xFFFFu64.to_bits()),
            o_mid: vec_of(ports),
            o_grt: vec_of(ports),
            o_lat: vec_of(ports),
            o_go: vec_of(ports),
        })
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for Switch<D, K, U, M, W> {
    fn update(&mut self) {
        Self::update(self)
    }
    fn connect(&mut self) {
        Self::connect(self)
    }
    // The wiring indexes vector ports of blocks in vectors
    // (`self.tm[i].m[p].tdata`), which rust-hdl's Verilog writer cannot
    // resolve by itself (`crate::gen::unroll`).
    fn hdl(&self) -> Verilog {
        unroll::resolve(Self::hdl(self))
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Switch<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.rst.clock.next = self.clock.val();
        self.rst.d.next = self.reset.val();
        self.rst_top.clock.next = self.clock.val();
        self.rst_top.d.next = self.rst.q.val();
        for i in 0..self.rst_in.len() {
            self.rst_in[i].clock.next = self.clock.val();
            self.rst_in[i].d.next = self.rst.q.val();
        }
        for p in 0..self.rst_port.len() {
            self.rst_port[p].clock.next = self.clock.val();
            self.rst_port[p].d.next = self.rst.q.val();
        }
        self.split.clock.next = self.clock.val();
        self.split.reset.next = self.rst_top.q.val();
        // The pipelines' ports: pipeline i has switch ports i * per .. (i + 1) * per.
        for per in (self.ingress[0].s.len())..(self.ingress[0].s.len() + 1) {
            for i in 0..self.ingress.len() {
                self.ingress[i].clock.next = self.clock.val();
                self.ingress[i].reset.next = self.rst_in[i].q.val();
                self.tm[i].clock.next = self.clock.val();
                self.tm[i].reset.next = self.rst.q.val();
                self.ingress[i].port_base.next = self.port_base[i].val();
                for k in 0..self.ingress[0].s.len() {
                    AxisPlainSink::<D, K>::link(&mut self.s[i * per + k], &mut self.ingress[i].s[k]);
                    // A port's egress rewrite takes the router MAC of the
                    // pipeline the port belongs to.
                    self.egress[i * per + k].router_mac_lo.next = self.ingress[i].router_mac_lo.val();
                    self.egress[i * per + k].router_mac_hi.next = self.ingress[i].router_mac_hi.val();
                }
                // Ingress -> its traffic manager (the PHV stays behind: the
                // traffic manager reads the header locations from tuser).
                AxisSource::<D, K, U>::join(&mut self.ingress[i].m, &mut self.tm[i].s);
            }
        }

        // PL2: every pipeline's stage asks the one ALU.
        self.pl2.clock.next = self.clock.val();
        self.pl2.reset.next = self.rst_top.q.val();
        for i in 0..self.ingress.len() {
            self.pl2.op_valid[i].next = self.ingress[i].pl2_op_valid.val();
            self.pl2.op_kind[i].next = self.ingress[i].pl2_op_kind.val();
            self.pl2.op_in[i].next = self.ingress[i].pl2_op_in.val();
            self.pl2.op_src[i].next = self.ingress[i].pl2_op_src.val();
            self.pl2.op_dst[i].next = self.ingress[i].pl2_op_dst.val();
            self.pl2.op_demand[i].next = self.ingress[i].pl2_op_demand.val();
            self.pl2.op_dem_k[i].next = self.ingress[i].pl2_op_dem_k.val();
            self.pl2.op_over_k[i].next = self.ingress[i].pl2_op_over_k.val();
            self.ingress[i].pl2_k.next = self.pl2.k_now.val();
            self.pl2.op_in_oh[i].next = self.ingress[i].pl2_op_in_oh.val();
            self.pl2.op_dst_oh[i].next = self.ingress[i].pl2_op_dst_oh.val();
            self.ingress[i].pl2_res_code.next = self.pl2.res_code[i].val();
            self.ingress[i].pl2_res_demand.next = self.pl2.res_demand[i].val();
            self.ingress[i].pl2_res_send.next = self.pl2.res_send[i].val();
            self.ingress[i].pl2_res_recv.next = self.pl2.res_recv[i].val();
            self.pl2.hold_ev[i].next = self.ingress[i].pl2_hold_ev.val();
            self.ingress[i].pl2_pipe.next = self.pl2_pipe_id[i].val();
            for j in 0..self.ingress.len() {
                self.ingress[i].pl2_peer_req[j].next = self.ingress[j].pl2_hd_req.val();
                self.ingress[i].pl2_peer_dst[j].next = self.ingress[j].pl2_hd_dst.val();
            }
            self.ingress[i].pl2_enable.next = self.pl2.enable.val();
            self.ingress[i].pl2_unsol_dscp.next = self.pl2.unsol_dscp.val();
            self.ingress[i].pl2_unsol_dscp_en.next = self.pl2.unsol_dscp_en.val();
            self.ingress[i].pl2_unsol_pcp.next = self.pl2.unsol_pcp.val();
            self.ingress[i].pl2_unsol_pcp_en.next = self.pl2.unsol_pcp_en.val();
        }

        // Send to all: a deflection for port p in any pipeline notifies port
        // p's mode machine in every pipeline (with one pipeline, its own
        // deflections come back to it: its mode machines take the OR).
        for p in 0..self.notify_all.len() {
            self.notify_all[p].next = false;
            for i in 0..self.tm.len() {
                self.notify_all[p].next = self.notify_all[p].val() | self.tm[i].notify_out[p].val();
            }
            for i in 0..self.tm.len() {
                self.tm[i].notify_in[p].next = self.notify_all[p].val();
            }
        }

        // Each port: the egress rewrite, then the MAC. A GRT's first beat
        // out gives its RSV->GRT latency (`tuser.t_in`, crate::meta) to the
        // PL2 block, registered.
        self.now.clock.next = self.clock.val();
        self.now.reset.next = self.rst_top.q.val();
        self.now.d.next = self.now.q.val() + 1;
        for p in 0..self.m.len() {
            self.egress[p].clock.next = self.clock.val();
            self.egress[p].reset.next = self.rst_port[p].q.val();
            self.o_mid[p].clock.next = self.clock.val();
            self.o_mid[p].reset.next = self.rst_port[p].q.val();
            self.o_grt[p].clock.next = self.clock.val();
            self.o_grt[p].reset.next = self.rst_port[p].q.val();
            self.o_lat[p].clock.next = self.clock.val();
            self.o_lat[p].reset.next = self.rst_port[p].q.val();
            self.o_go[p].next = self.m[p].tvalid.val() & self.m[p].tready.val();
            self.o_mid[p].d.next = self.o_mid[p].q.val();
            if self.o_go[p].val() {
                self.o_mid[p].d.next = !self.m[p].tlast.val();
            }
            self.o_grt[p].d.next = self.o_go[p].val() & !self.o_mid[p].q.val() & self.m[p].tuser.val().get_bit(GRT_BIT);
            // `t_in` as the top half of bits 96..128 (hdl_gen cannot widen
            // a vector element's field), the difference modulo 2^16.
            self.o_lat[p].d.next = (self.now.q.val() - (self.m[p].tuser.val().get_bits::<32>(T_IN_LSB - 16) >> 16)) & self.lat_mask.val();
            self.pl2.grt_v[p].next = self.o_grt[p].q.val();
            self.pl2.grt_lat[p].next = self.o_lat[p].q.val();
        }

        // Each port's MAC: straight from the egress rewrite, or through its
        // Protego shim, whose frames from `rx_fcs` come back into the
        // arbiter (registers: window 2P + 1, 256 bytes a port).
        for _z in 0..self.pg_off.len() {
            for p in 0..self.m.len() {
                AxisSource::<D, K, U>::link(&mut self.m[p], &mut self.egress[p].m);
            }
        }
        for z in 0..self.pg_split.len() {
            self.pg_split[z].clock.next = self.clock.val();
            self.pg_split[z].reset.next = self.rst_top.q.val();
            for p in 0..self.m.len() {
                self.shim[p].clock.next = self.clock.val();
                self.shim[p].reset.next = self.rst_port[p].q.val();
                AxisSource::<D, K, U>::join(&mut self.egress[p].m, &mut self.shim[p].tx_s);
                AxisSource::<D, K, U>::link(&mut self.m[p], &mut self.shim[p].tx_m);
                AxilMaster::<PORT_REG_BITS>::join(&mut self.pg_split[z].m_axil[p], &mut self.shim[p].s_axil);
            }
            for per in (self.ingress[0].s.len())..(self.ingress[0].s.len() + 1) {
                for i in 0..self.ingress.len() {
                    for k in 0..self.ingress[0].s.len() {
                        AxisSource::<D, K, U>::join(&mut self.ingress[i].rx_out[k], &mut self.shim[i * per + k].rx_s);
                        self.shim[i * per + k].rx_s_bytes.next = self.ingress[i].rx_out_bytes[k].val();
                        AxisSource::<D, K, U>::join(&mut self.shim[i * per + k].rx_m, &mut self.ingress[i].arb_in[k]);
                        self.ingress[i].arb_in_bytes[k].next = self.shim[i * per + k].rx_m_bytes.val();
                    }
                }
            }
            for np in (self.ingress.len())..(self.ingress.len() + 1) {
                AxilMaster::<SWITCH_WINDOW_BITS>::join(&mut self.split.m_axil[2 * np + 1], &mut self.pg_split[z].s_axil);
            }
        }

        // One pipeline: its traffic manager is the switch's, alone.
        for z in 0..self.zero.len() {
            for p in 0..self.m.len() {
                AxisSource::<D, K, U>::join(&mut self.tm[z].m[p], &mut self.egress[p].s);
            }
            for q in 0..self.tm[0].occ_ext_b.len() {
                self.tm[z].occ_ext_b[q].next = self.zero[z].val();
                self.tm[z].occ_ext_w[q].next = self.zero[z].val();
            }
            self.tm[z].hold.next = false;
        }

        // Several pipelines.
        for z in 0..self.rot.len() {
            self.rot[z].clock.next = self.clock.val();
            self.rot[z].reset.next = self.rst_top.q.val();
            // Each port: the pipelines' outputs merged round robin.
            for p in 0..self.m.len() {
                self.merge[p].clock.next = self.clock.val();
                self.merge[p].reset.next = self.rst_port[p].q.val();
                self.merge[p].drr_enable.next = false;
                self.merge[p].strict.next = false;
                for i in 0..self.tm.len() {
                    self.merge[p].quantum[i].next = 0.into();
                    self.merge[p].s_bytes[i].next = 0.into();
                    AxisSource::<D, K, U>::join(&mut self.tm[i].m[p], &mut self.merge[p].s[i]);
                }
                AxisSource::<D, K, U>::join(&mut self.merge[p].m, &mut self.egress[p].s);
            }
            // Each queue's total occupancy; a pipeline decides on the others'
            // part plus its own.
            for q in 0..self.tot_b.len() {
                self.tot_b[q].next = 0.into();
                self.tot_w[q].next = 0.into();
                for i in 0..self.tm.len() {
                    self.tot_b[q].next = self.tot_b[q].val() + self.tm[i].occ_b_out[q].val();
                    self.tot_w[q].next = self.tot_w[q].val() + self.tm[i].occ_w_out[q].val();
                }
                for i in 0..self.tm.len() {
                    self.tm[i].occ_ext_b[q].next = self.tot_b[q].val() - self.tm[i].occ_b_out[q].val();
                    self.tm[i].occ_ext_w[q].next = self.tot_w[q].val() - self.tm[i].occ_w_out[q].val();
                }
            }
            // One decision per port per cycle: pipeline rot has the highest
            // priority this cycle, then rot + 1, ... (rank 0 first). A pipeline
            // is held while a higher-ranked one wants a port it touches, and
            // for a cycle after another pipeline reserved in a queue of a
            // port it touches: admission's fit tests are registered a cycle
            // ahead and include only its own pipeline's reservation of the
            // cycle before (`TmAdmit`). Queues, not ports: a permutation
            // (pipeline 0 to port 1, pipeline 1 to port 0) reserves in data
            // queues the other pipeline's packets never take. The rotation waits while the first
            // pipeline is held that way, so each pipeline gets its turn.
            for i in 0..self.tm.len() {
                self.r_res[i].clock.next = self.clock.val();
                self.r_res[i].reset.next = self.rst_top.q.val();
                self.r_q[i].clock.next = self.clock.val();
                self.r_q[i].reset.next = self.rst_top.q.val();
                // Codes 1 and 3 reserve in the header queue of the
                // destination, 2 in its data queue, 4 (return to sender) in
                // the header queue of the source (queue 2 * port + data).
                self.r_res[i].d.next = self.tm[i].dec_valid.val() & (self.tm[i].dec_code.val() >= 1) & (self.tm[i].dec_code.val() <= 4);
                self.r_q[i].d.next = self.tm[i].dec_port.val() << 1;
                if self.tm[i].dec_code.val() == 2 {
                    self.r_q[i].d.next = (self.tm[i].dec_port.val() << 1) | 1;
                }
                if self.tm[i].dec_code.val() == 4 {
                    self.r_q[i].d.next = self.tm[i].want_src.val() << 1;
                }
                self.hq_dest[i].next = self.tm[i].want_dest.val() << 1;
                self.hq_src[i].next = self.tm[i].want_src.val() << 1;
            }
            for i in 0..self.tm.len() {
                self.hazard[i].next = false;
                for j in 0..self.tm.len() {
                    if (self.pipe_id[j].val() != self.pipe_id[i].val())
                        & self.r_res[j].q.val()
                        & ((self.r_q[j].q.val() == self.hq_dest[i].val())
                            | (self.r_q[j].q.val() == (self.hq_dest[i].val() | 1))
                            | (self.r_q[j].q.val() == self.hq_src[i].val()))
                    {
                        self.hazard[i].next = true;
                    }
                }
            }
            self.top_waits[z].next = false;
            for i in 0..self.tm.len() {
                if (self.pipe_id[i].val() == self.rot[z].q.val()) & self.tm[i].want.val() & self.hazard[i].val() {
                    self.top_waits[z].next = true;
                }
            }
            self.rot[z].d.next = self.rot[z].q.val();
            if !self.top_waits[z].val() {
                self.rot[z].d.next = self.rot[z].q.val() + 1;
                if self.rot[z].q.val() + 1 == self.pipes[z].val() {
                    self.rot[z].d.next = 0.into();
                }
            }
            for i in 0..self.tm.len() {
                self.rank[i].next = self.pipe_id[i].val() + self.pipes[z].val() - self.rot[z].q.val();
                if self.pipe_id[i].val() >= self.rot[z].q.val() {
                    self.rank[i].next = self.pipe_id[i].val() - self.rot[z].q.val();
                }
            }
            for i in 0..self.tm.len() {
                self.tm[i].hold.next = self.hazard[i].val();
                for j in 0..self.tm.len() {
                    if self.tm[j].want.val()
                        & (self.rank[j].val() < self.rank[i].val())
                        & ((self.tm[j].want_dest.val() == self.tm[i].want_dest.val())
                            | (self.tm[j].want_dest.val() == self.tm[i].want_src.val())
                            | (self.tm[j].want_src.val() == self.tm[i].want_dest.val()))
                    {
                        self.tm[i].hold.next = true;
                    }
                }
            }
        }

        // Register map: windows 0..P the ingress pipelines, P..2P their
        // traffic managers, 2P the PL2 block.
        AxilSlave::<SWITCH_ADDR_BITS>::link(&mut self.s_axil, &mut self.split.s_axil);
        for np in (self.ingress.len())..(self.ingress.len() + 1) {
            for i in 0..self.ingress.len() {
                AxilMaster::<SWITCH_WINDOW_BITS>::join(&mut self.split.m_axil[i], &mut self.ingress[i].s_axil);
                AxilMaster::<SWITCH_WINDOW_BITS>::join(&mut self.split.m_axil[np + i], &mut self.tm[i].s_axil);
            }
            AxilMaster::<SWITCH_WINDOW_BITS>::join(&mut self.split.m_axil[2 * np], &mut self.pl2.s_axil);
        }
    }
}

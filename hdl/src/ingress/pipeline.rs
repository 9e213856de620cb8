//! `ts_ingress`: one ingress pipeline (`docs/ingress.md`): a receive check per
//! port ([`RxFcs`]), the input arbiter ([`AxisArbMux`]), the parser
//! ([`Parser`]) whose PHVs run through classify ([`Classify`]) and lookup
//! ([`Lookup`]) while the packets wait, and the stage that applies the result
//! ([`IngressApply`]). One AXI4-Lite register map ([`IngressRegs`]) holds every
//! run-time setting, table and counter.
//!
//! The switch has `datapath.pipelines` of these; pipeline `n` serves ports
//! `n * P .. (n + 1) * P` with `P = ports / pipelines`.
use crate::axil::bundle::{AxilMaster, AxilSlave};
use crate::axil::regs::AxilRegs;
use crate::axil::split::AxilSplit;
use crate::axis::arb_mux::AxisArbMux;
use crate::axis::bundle::{AxisPlainSink, AxisSink, AxisSource};
use crate::config::{parse_mac, Config};
use crate::gen::unroll;
use crate::ingress::apply::IngressApply;
use crate::ingress::classify::{reg as creg, Classify};
use crate::ingress::lookup::Lookup;
use crate::ingress::parser::Parser;
use crate::ingress::phv::PHV_BITS;
use crate::ingress::rx_fcs::RxFcs;
use crate::pl2::stage::Pl2Stage;
use crate::prim::widgets::{vec_of, DffR};
use regidx::*;
use rust_hdl::prelude::*;

/// AXI-Lite address bits of the ingress register map.
pub const REG_ADDR_BITS: usize = 14;
/// Address bits of one window of the map (2 KiB, 512 registers).
pub const WINDOW_BITS: usize = 11;

/// The register map of one ingress pipeline (byte addresses). Five windows of
/// 2 KiB, each its own register file behind an [`AxilSplit`]:
///
/// | window | base | registers |
/// |---|---|---|
/// | control | 0x0000 | `CTRL` (bit 0 strip FCS, bit 1 drop malformed), `FRAME` (min \[15:0\], max \[31:16\]), `MISS_PORT` \[7:0\], `ROUTER_MAC_LO`/`_HI`, `DSCP` ([`creg::dscp`]), `TC` ([`creg::tc`]), `ARB_POLICY` (bit 0 DRR), `ARB_QUANTUM_p` from 0x20 |
/// | routes | 0x0800 | route `i`: two words ([`crate::ingress::lookup::reg::route`]) |
/// | L2 | 0x1000 | L2 entry `i`: two words ([`crate::ingress::lookup::reg::l2`]) |
/// | next hops | 0x1800 | next hop `i`: two words ([`crate::ingress::lookup::reg::mac`]) |
/// | counters | 0x2000 | `SCRATCH` (read/write), then read-only, clear on write: [`IngressRegs::COUNTERS`], then per port [`IngressRegs::PORT_COUNTERS`] and [`IngressRegs::PORT_GAUGES`] |
pub struct IngressRegs {
    /// Ports of this pipeline.
    pub ports: usize,
}

impl IngressRegs {
    pub const CTRL: u32 = 0x00;
    pub const FRAME: u32 = 0x04;
    pub const MISS_PORT: u32 = 0x08;
    pub const ROUTER_MAC_LO: u32 = 0x0C;
    pub const ROUTER_MAC_HI: u32 = 0x10;
    pub const DSCP: u32 = 0x14;
    pub const TC: u32 = 0x18;
    pub const ARB_POLICY: u32 = 0x1C;
    /// `ARB_QUANTUM_p` of arbiter input `p` is at `ARB_QUANTUM + 4p`.
    pub const ARB_QUANTUM: u32 = 0x20;
    /// `CTRL` bits: strip the FCS (0), drop malformed packets (1).
    pub const CTRL_STRIP_FCS: u32 = 1;
    pub const CTRL_MALFORMED_DROP: u32 = 2;
    pub const ROUTES: u32 = 0x0800;
    pub const L2: u32 = 0x1000;
    pub const NEXTHOPS: u32 = 0x1800;
    /// A read/write scratch register (host bus checks), first of the counter window.
    pub const SCRATCH: u32 = 0x2000;
    /// The first counter.
    pub const COUNTER_BASE: u32 = 0x2004;
    /// Pipeline counters, in address order from [`IngressRegs::COUNTER_BASE`]
    /// (the golden model's names, `docs/ingress.md`).
    pub const COUNTERS: [&'static str; 25] = [
        "parser_pkts",
        "malformed_l2_truncated",
        "malformed_vlan_depth",
        "malformed_ip_version",
        "malformed_ipv4_ihl",
        "malformed_ipv4_truncated",
        "malformed_ipv4_length",
        "malformed_ipv4_checksum",
        "malformed_ipv6_truncated",
        "malformed_ipv6_length",
        "malformed_l4_truncated",
        "malformed_udp_length",
        "malformed_pl2_truncated",
        "malformed_pl2_kind",
        "class_prio_pkts",
        "class_trim_ok_pkts",
        "class_router_hit_pkts",
        "lookup_routed",
        "lookup_lpm_miss",
        "lookup_l2_hit",
        "lookup_l2_miss",
        "drop_malformed",
        "drop_no_port",
        "drop_pl2",
        "ingress_out_pkts",
    ];
    /// Per-port counters, in address order after [`IngressRegs::COUNTERS`]
    /// (the golden model's names).
    pub const PORT_COUNTERS: [&'static str; 7] =
        ["rx_pkts", "rx_bytes", "rx_drop_empty", "rx_drop_runt", "rx_drop_oversize", "rx_drop_fcs", "rx_drop_overflow"];
    /// Per-port gauges (receive FIFO occupancy), after each port's counters.
    pub const PORT_GAUGES: [&'static str; 2] = ["rx_occ_bytes", "rx_occ_pkts"];

    /// Inputs of the pipeline's arbiter: its ports, at least 2 (one
    /// `ARB_QUANTUM_p` register each).
    pub fn arb_inputs(&self) -> usize {
        self.ports.max(2)
    }
    /// Reset values of the control window (`CTRL` … `ARB_QUANTUM_p`), from
    /// `cfg`'s `[ingress]` and `[arbiter]`.
    pub fn ctl_reset(cfg: &Config) -> Vec<u32> {
        let g = &cfg.ingress;
        let cp = |v: i32| u8::try_from(v).ok();
        let rmac = parse_mac(&g.router_mac).expect("validated router_mac");
        let pcp: [u8; 8] = std::array::from_fn(|i| g.pcp_tc[i] as u8);
        let mut ctl = vec![
            (g.strip_fcs as u32 * IngressRegs::CTRL_STRIP_FCS) | (g.malformed_drop as u32 * IngressRegs::CTRL_MALFORMED_DROP),
            g.min_frame << FRAME_MIN | g.max_frame << FRAME_MAX,
            g.miss_port,
            rmac as u32,
            (rmac >> 32) as u32,
            creg::dscp(cp(g.dscp_trimmable), cp(g.dscp_trimmed), cp(g.dscp_control)),
            creg::tc(&pcp, g.default_tc as u8),
            (cfg.arbiter.policy == "drr") as u32,
        ];
        let ports = cfg.datapath.ports / cfg.datapath.pipelines;
        ctl.extend(std::iter::repeat_n(cfg.arbiter.quantum, IngressRegs { ports }.arb_inputs()));
        ctl
    }
    /// The tables' reset values, as a host would write them: the route
    /// table from `[[ingress.route]]`, the L2 table from `[[ingress.l2]]`,
    /// the next hops from `ingress.nexthop_mac` (two words per row, rows
    /// past the listed entries zero: invalid). So a board without a host
    /// (the ECP5 board, `docs/boards.md`) forwards from its configuration,
    /// and a host may still rewrite every row.
    pub fn table_reset(cfg: &Config) -> [Vec<u32>; 3] {
        use crate::config::parse_prefix;
        use crate::ingress::lookup::reg as lreg;
        let g = &cfg.ingress;
        let mut routes = vec![0; 2 * g.lpm_entries];
        for (i, r) in g.route.iter().enumerate() {
            let (prefix, len) = parse_prefix(&r.prefix).expect("validated route prefix");
            routes[2 * i..2 * i + 2].copy_from_slice(&lreg::route(prefix, len, r.port as u8, r.nexthop as u8));
        }
        let mut l2 = vec![0; 2 * g.l2_entries];
        for (i, e) in g.l2.iter().enumerate() {
            l2[2 * i..2 * i + 2].copy_from_slice(&lreg::l2(parse_mac(&e.mac).expect("validated L2 MAC"), e.port as u8));
        }
        let mut nh = vec![0; 2 * g.nexthops];
        for (i, m) in g.nexthop_mac.iter().enumerate() {
            nh[2 * i..2 * i + 2].copy_from_slice(&lreg::mac(parse_mac(m).expect("validated next-hop MAC")));
        }
        [routes, l2, nh]
    }
    pub fn arb_quantum(&self, p: usize) -> u32 {
        Self::ARB_QUANTUM + 4 * p as u32
    }
    pub fn route(&self, i: usize) -> u32 {
        Self::ROUTES + 8 * i as u32
    }
    pub fn l2(&self, i: usize) -> u32 {
        Self::L2 + 8 * i as u32
    }
    pub fn nexthop(&self, i: usize) -> u32 {
        Self::NEXTHOPS + 8 * i as u32
    }
    /// Address of pipeline counter `name` (one of [`IngressRegs::COUNTERS`]).
    pub fn counter(&self, name: &str) -> Option<u32> {
        Self::COUNTERS.iter().position(|n| *n == name).map(|i| Self::COUNTER_BASE + 4 * i as u32)
    }
    /// Address of counter or gauge `name` ([`IngressRegs::PORT_COUNTERS`],
    /// [`IngressRegs::PORT_GAUGES`]) of local port `p`.
    pub fn port_counter(&self, p: usize, name: &str) -> Option<u32> {
        Self::PORT_COUNTERS
            .iter()
            .chain(Self::PORT_GAUGES.iter())
            .position(|n| *n == name)
            .filter(|_| p < self.ports)
            .map(|i| Self::COUNTER_BASE + 4 * (Self::COUNTERS.len() + 9 * p + i) as u32)
    }
}

/// Indices into the control window's `rw` and the counter window's `ro`, by
/// name, for the pipeline's `#[hdl_gen]` code; each is derived from
/// [`IngressRegs`]' address map and counter lists, and
/// [`crate::gen::unroll`] resolves them in the Verilog ([`NAMES`]).
pub mod regidx {
    use super::IngressRegs as R;
    use crate::gen::unroll::position;

    use crate::gen::unroll::word as rw;
    const fn ctr(name: &str) -> usize {
        position(&R::COUNTERS, name)
    }

    crate::gen::unroll::named_indices! {
        RW_CTRL = rw(R::CTRL);
        RW_FRAME = rw(R::FRAME);
        /// Fields of the `FRAME` word: the smallest and largest frame
        /// accepted (16 bits each).
        FRAME_MIN = 0;
        FRAME_MAX = 16;
        RW_MISS_PORT = rw(R::MISS_PORT);
        RW_ROUTER_MAC_LO = rw(R::ROUTER_MAC_LO);
        RW_ROUTER_MAC_HI = rw(R::ROUTER_MAC_HI);
        RW_DSCP = rw(R::DSCP);
        RW_TC = rw(R::TC);
        RW_ARB_POLICY = rw(R::ARB_POLICY);
        /// `ARB_QUANTUM_p` is `RW_ARB_QUANTUM + p`.
        RW_ARB_QUANTUM = rw(R::ARB_QUANTUM);
        CTRL_STRIP_FCS_BIT = R::CTRL_STRIP_FCS.trailing_zeros() as usize;
        CTRL_MALFORMED_DROP_BIT = R::CTRL_MALFORMED_DROP.trailing_zeros() as usize;
        RO_PARSER_PKTS = ctr("parser_pkts");
        /// The parser's malformed reasons, in order: `RO_MALFORMED + m`.
        RO_MALFORMED = ctr("malformed_l2_truncated");
        RO_CLASS_PRIO = ctr("class_prio_pkts");
        RO_CLASS_TRIM_OK = ctr("class_trim_ok_pkts");
        RO_CLASS_ROUTER_HIT = ctr("class_router_hit_pkts");
        RO_LOOKUP_ROUTED = ctr("lookup_routed");
        RO_LOOKUP_LPM_MISS = ctr("lookup_lpm_miss");
        RO_LOOKUP_L2_HIT = ctr("lookup_l2_hit");
        RO_LOOKUP_L2_MISS = ctr("lookup_l2_miss");
        RO_DROP_MALFORMED = ctr("drop_malformed");
        RO_DROP_NO_PORT = ctr("drop_no_port");
        RO_DROP_PL2 = ctr("drop_pl2");
        RO_OUT_PKTS = ctr("ingress_out_pkts");
        /// Per port `p`: `RO_PORT0 + RO_PER_PORT * p + P_*`.
        RO_PORT0 = R::COUNTERS.len();
        RO_PER_PORT = R::PORT_COUNTERS.len() + R::PORT_GAUGES.len();
        P_RX_PKTS = position(&R::PORT_COUNTERS, "rx_pkts");
        P_RX_BYTES = position(&R::PORT_COUNTERS, "rx_bytes");
        P_DROP_EMPTY = position(&R::PORT_COUNTERS, "rx_drop_empty");
        P_DROP_RUNT = position(&R::PORT_COUNTERS, "rx_drop_runt");
        P_DROP_OVERSIZE = position(&R::PORT_COUNTERS, "rx_drop_oversize");
        P_DROP_FCS = position(&R::PORT_COUNTERS, "rx_drop_fcs");
        P_DROP_OVERFLOW = position(&R::PORT_COUNTERS, "rx_drop_overflow");
        P_OCC_BYTES = R::PORT_COUNTERS.len() + position(&R::PORT_GAUGES, "rx_occ_bytes");
        P_OCC_PKTS = R::PORT_COUNTERS.len() + position(&R::PORT_GAUGES, "rx_occ_pkts");
    }

    // The malformed counters are the parser's reasons, one after another.
    const _: () = assert!(RO_MALFORMED + crate::ingress::parser::REASONS == RO_CLASS_PRIO);
}

/// One ingress pipeline. Type parameters as for [`crate::axis::pkt_fifo::PktFifo`].
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset of
///   every block (registers return to the configuration's values, tables empty).
/// - `s_tdata_<p>`, `s_tkeep_<p>`, `s_tlast_<p>`, `s_tvalid_<p>` in,
///   `s_tready_<p>` out: frames from the MAC of local port `p`, FCS included.
/// - `m_tdata` … `m_tready`, `m_phv`: packets for the traffic manager, `tuser`
///   as in [`crate::meta`], the PHV beside them.
/// - `s_axil_*`: the register map ([`IngressRegs`]).
/// - `port_base` in: the switch port number of local port 0 (`tuser.src_port`
///   of local port `p` is `port_base + p`); tie it to `n * P` for pipeline `n`.
/// - `router_mac_lo`, `router_mac_hi` out: the `ROUTER_MAC_LO`/`_HI`
///   registers, for the egress rewrite ([`crate::egress::rewrite`]), which writes the
///   router MAC as the source MAC of routed packets.
/// - PL2 ([`Pl2Stage`] between lookup and the parser, `docs/pl2.md`; the
///   switch's [`crate::pl2::alu::Pl2Alu`] answers): `pl2_enable`,
///   `pl2_unsol_dscp`, `pl2_unsol_dscp_en`, `pl2_unsol_pcp`,
///   `pl2_unsol_pcp_en` in (the PL2 registers); `pl2_op_valid`,
///   `pl2_op_kind`, `pl2_op_in`, `pl2_op_src`, `pl2_op_dst`, `pl2_op_demand`,
///   `pl2_op_in_oh`, `pl2_op_dst_oh`, `pl2_op_dem_k`, `pl2_op_over_k` out
///   (registered; the demand clamped to `pl2_k` in, the ALU's `k_now`), and `pl2_res_code`, `pl2_res_demand`,
///   `pl2_res_send`, `pl2_res_recv` in: one op input of the ALU and its
///   result. Without an ALU tie `pl2_enable` low. The cross-pipeline hold
///   (`crate::pl2::stage`, built when the switch has several pipelines):
///   `pl2_hd_req`, `pl2_hd_dst` out (registered), `pl2_peer_req_j`,
///   `pl2_peer_dst_j` in (pipeline `j`'s `pl2_hd_*`, this one's included),
///   `pl2_pipe` in (this pipeline's index), `pl2_hold_ev` out (registered).
#[derive(LogicBlock)]
pub struct Ingress<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: Vec<AxisPlainSink<D, K>>,
    pub m: AxisSource<D, K, U>,
    pub m_phv: Signal<Out, Bits<PHV_BITS>>,
    pub s_axil: AxilSlave<REG_ADDR_BITS>,
    pub port_base: Signal<In, Bits<8>>,
    pub router_mac_lo: Signal<Out, Bits<32>>,
    pub router_mac_hi: Signal<Out, Bits<32>>,
    pub pl2_enable: Signal<In, Bit>,
    pub pl2_unsol_dscp: Signal<In, Bits<6>>,
    pub pl2_unsol_dscp_en: Signal<In, Bit>,
    pub pl2_unsol_pcp: Signal<In, Bits<3>>,
    pub pl2_unsol_pcp_en: Signal<In, Bit>,
    pub pl2_op_valid: Signal<Out, Bit>,
    pub pl2_op_kind: Signal<Out, Bits<2>>,
    pub pl2_op_in: Signal<Out, Bits<8>>,
    pub pl2_op_src: Signal<Out, Bits<8>>,
    pub pl2_op_dst: Signal<Out, Bits<8>>,
    pub pl2_op_demand: Signal<Out, Bits<8>>,
    pub pl2_op_dem_k: Signal<Out, Bits<8>>,
    pub pl2_op_over_k: Signal<Out, Bit>,
    pub pl2_k: Signal<In, Bits<8>>,
    pub pl2_op_in_oh: Signal<Out, Bits<64>>,
    pub pl2_op_dst_oh: Signal<Out, Bits<64>>,
    pub pl2_res_code: Signal<In, Bits<3>>,
    pub pl2_res_demand: Signal<In, Bits<8>>,
    pub pl2_res_send: Signal<In, Bits<32>>,
    pub pl2_res_recv: Signal<In, Bits<32>>,
    pub pl2_hd_req: Signal<Out, Bit>,
    pub pl2_hd_dst: Signal<Out, Bits<8>>,
    pub pl2_peer_req: Vec<Signal<In, Bit>>,
    pub pl2_peer_dst: Vec<Signal<In, Bits<8>>>,
    pub pl2_pipe: Signal<In, Bits<8>>,
    pub pl2_hold_ev: Signal<Out, Bit>,
    /// With Protego in the switch (`[protego] ports` not empty), each
    /// port's checked frames leave (`rx_out_*`, `rx_out_bytes`) for the
    /// switch's `ts_protego_shim` and come back (`arb_in_*`,
    /// `arb_in_bytes`) into the arbiter; otherwise (`direct`) they go
    /// straight in, as before.
    pub rx_out: Vec<AxisSource<D, K, U>>,
    pub rx_out_bytes: Vec<Signal<Out, Bits<8>>>,
    pub arb_in: Vec<AxisSink<D, K, U>>,
    pub arb_in_bytes: Vec<Signal<In, Bits<8>>>,
    direct: Vec<Constant<Bit>>,
    port_offs: Vec<Constant<Bits<8>>>,
    /// The cycle counter for `tuser.t_in` (16 bits, from 0 at reset; the
    /// switch's own counter, which measures the RSV→GRT latency at its
    /// outputs, runs in lockstep from the same reset).
    now: DffR<Bits<16>>,
    quantum_mask: Constant<Bits<32>>,
    rx: Vec<RxFcs<D, K, U, M, W>>,
    arb: AxisArbMux<D, K, U>,
    parser: Parser<D, K, U, M, W>,
    classify: Classify,
    lookup: Lookup,
    pl2: Pl2Stage,
    apply: IngressApply<D, K, U>,
    split: AxilSplit<REG_ADDR_BITS, WINDOW_BITS>,
    ctl: AxilRegs<WINDOW_BITS>,
    routes: AxilRegs<WINDOW_BITS>,
    l2t: AxilRegs<WINDOW_BITS>,
    nht: AxilRegs<WINDOW_BITS>,
    ctr: AxilRegs<WINDOW_BITS>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Ingress<D, K, U, M, W> {
    /// An ingress pipeline of the switch `cfg` describes (every pipeline is
    /// the same block; `port_base` tells them apart). The registers reset to
    /// the configuration's values, the tables to empty (a host loads them).
    pub fn new(cfg: &Config) -> Self {
        let ports = cfg.datapath.ports / cfg.datapath.pipelines;
        let g = &cfg.ingress;
        let arb_inputs = ports.max(2);
        let ctl = IngressRegs::ctl_reset(cfg);
        let tables = IngressRegs::table_reset(cfg);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: vec_of(ports),
            m: Default::default(),
            m_phv: Default::default(),
            s_axil: Default::default(),
            port_base: Default::default(),
            router_mac_lo: Default::default(),
            router_mac_hi: Default::default(),
            pl2_enable: Default::default(),
            pl2_unsol_dscp: Default::default(),
            pl2_unsol_dscp_en: Default::default(),
            pl2_unsol_pcp: Default::default(),
            pl2_unsol_pcp_en: Default::default(),
            pl2_op_valid: Default::default(),
            pl2_op_kind: Default::default(),
            pl2_op_in: Default::default(),
            pl2_op_src: Default::default(),
            pl2_op_dst: Default::default(),
            pl2_op_demand: Default::default(),
            pl2_op_dem_k: Default::default(),
            pl2_op_over_k: Default::default(),
            pl2_k: Default::default(),
            pl2_op_in_oh: Default::default(),
            pl2_op_dst_oh: Default::default(),
            pl2_res_code: Default::default(),
            pl2_res_demand: Default::default(),
            pl2_res_send: Default::default(),
            pl2_res_recv: Default::default(),
            pl2_hd_req: Default::default(),
            pl2_hd_dst: Default::default(),
            pl2_peer_req: vec_of(cfg.datapath.pipelines),
            pl2_peer_dst: vec_of(cfg.datapath.pipelines),
            pl2_pipe: Default::default(),
            pl2_hold_ev: Default::default(),
            rx_out: vec_of(if cfg.protego.ports.is_empty() { 0 } else { ports }),
            rx_out_bytes: vec_of(if cfg.protego.ports.is_empty() { 0 } else { ports }),
            arb_in: vec_of(if cfg.protego.ports.is_empty() { 0 } else { ports }),
            arb_in_bytes: vec_of(if cfg.protego.ports.is_empty() { 0 } else { ports }),
            direct: if cfg.protego.ports.is_empty() { (0..ports).map(|_| Constant::new(true)).collect() } else { Vec::new() },
            port_offs: (0..ports).map(|p| Constant::new((p as u64).to_bits())).collect(),
            now: Default::default(),
            quantum_mask: Constant::new(0xFFFFu64.to_bits()),
            rx: (0..ports).map(|_| RxFcs::new(cfg.fifo.depth).with_mac_fcs(cfg.ingress.fcs == "mac")).collect(),
            arb: AxisArbMux::new(arb_inputs),
            parser: Parser::default().with_match(),
            classify: Default::default(),
            lookup: Lookup::new(cfg.datapath.ports, g.lpm_entries, g.l2_entries, g.nexthops),
            pl2: Pl2Stage::new(cfg.datapath.pipelines, cfg.datapath.ports),
            apply: Default::default(),
            split: AxilSplit::new(5),
            ctl: AxilRegs::new(&ctl, 0),
            routes: AxilRegs::new(&tables[0], 0),
            l2t: AxilRegs::new(&tables[1], 0),
            nht: AxilRegs::new(&tables[2], 0),
            ctr: AxilRegs::new(&[0], IngressRegs::COUNTERS.len() + RO_PER_PORT * ports),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for Ingress<D, K, U, M, W> {
    fn update(&mut self) {
        Self::update(self)
    }
    fn connect(&mut self) {
        Self::connect(self)
    }
    // Register indices are names ([`regidx`]), which rust-hdl's Verilog
    // writer cannot evaluate: `unroll` resolves them with the loops.
    fn hdl(&self) -> Verilog {
        unroll::resolve_with(Self::hdl(self), regidx::NAMES)
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Ingress<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.split.clock.next = self.clock.val();
        self.split.reset.next = self.reset.val();
        dff_setup!(self, clock, now);
        self.now.reset.next = self.reset.val();
        self.now.d.next = self.now.q.val() + 1;
        self.ctl.clock.next = self.clock.val();
        self.ctl.reset.next = self.reset.val();
        self.routes.clock.next = self.clock.val();
        self.routes.reset.next = self.reset.val();
        self.l2t.clock.next = self.clock.val();
        self.l2t.reset.next = self.reset.val();
        self.nht.clock.next = self.clock.val();
        self.nht.reset.next = self.reset.val();
        self.ctr.clock.next = self.clock.val();
        self.ctr.reset.next = self.reset.val();
        self.arb.clock.next = self.clock.val();
        self.arb.reset.next = self.reset.val();
        self.parser.clock.next = self.clock.val();
        self.parser.reset.next = self.reset.val();
        self.classify.clock.next = self.clock.val();
        self.classify.reset.next = self.reset.val();
        self.lookup.clock.next = self.clock.val();
        self.lookup.reset.next = self.reset.val();
        self.pl2.clock.next = self.clock.val();
        self.pl2.reset.next = self.reset.val();
        self.apply.clock.next = self.clock.val();
        self.apply.reset.next = self.reset.val();
        // Register map.
        AxilSlave::<REG_ADDR_BITS>::link(&mut self.s_axil, &mut self.split.s_axil);
        AxilMaster::<WINDOW_BITS>::join(&mut self.split.m_axil[0], &mut self.ctl.s_axil);
        AxilMaster::<WINDOW_BITS>::join(&mut self.split.m_axil[1], &mut self.routes.s_axil);
        AxilMaster::<WINDOW_BITS>::join(&mut self.split.m_axil[2], &mut self.l2t.s_axil);
        AxilMaster::<WINDOW_BITS>::join(&mut self.split.m_axil[3], &mut self.nht.s_axil);
        AxilMaster::<WINDOW_BITS>::join(&mut self.split.m_axil[4], &mut self.ctr.s_axil);
        // Ports: receive check -> arbiter.
        for p in 0..self.rx.len() {
            self.rx[p].clock.next = self.clock.val();
            self.rx[p].reset.next = self.reset.val();
            AxisPlainSink::<D, K>::link(&mut self.s[p], &mut self.rx[p].s);
            self.rx[p].port_id.next = self.port_base.val() + self.port_offs[p].val();
            self.rx[p].now.next = self.now.q.val();
            self.rx[p].strip_fcs.next = self.ctl.rw[RW_CTRL].val().get_bit(CTRL_STRIP_FCS_BIT);
            self.rx[p].min_frame.next = self.ctl.rw[RW_FRAME].val().get_bits::<16>(FRAME_MIN);
            self.rx[p].max_frame.next = self.ctl.rw[RW_FRAME].val().get_bits::<16>(FRAME_MAX);
            self.ctr.ro[RO_PORT0 + RO_PER_PORT * p + P_RX_PKTS].next = self.rx[p].rx_pkts.val();
            self.rx[p].clr_rx_pkts.next = self.ctr.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_RX_PKTS].val();
            self.ctr.ro[RO_PORT0 + RO_PER_PORT * p + P_RX_BYTES].next = self.rx[p].rx_bytes.val();
            self.rx[p].clr_rx_bytes.next = self.ctr.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_RX_BYTES].val();
            self.ctr.ro[RO_PORT0 + RO_PER_PORT * p + P_DROP_EMPTY].next = self.rx[p].drop_empty.val();
            self.rx[p].clr_drop_empty.next = self.ctr.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_DROP_EMPTY].val();
            self.ctr.ro[RO_PORT0 + RO_PER_PORT * p + P_DROP_RUNT].next = self.rx[p].drop_runt.val();
            self.rx[p].clr_drop_runt.next = self.ctr.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_DROP_RUNT].val();
            self.ctr.ro[RO_PORT0 + RO_PER_PORT * p + P_DROP_OVERSIZE].next = self.rx[p].drop_oversize.val();
            self.rx[p].clr_drop_oversize.next = self.ctr.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_DROP_OVERSIZE].val();
            self.ctr.ro[RO_PORT0 + RO_PER_PORT * p + P_DROP_FCS].next = self.rx[p].drop_fcs.val();
            self.rx[p].clr_drop_fcs.next = self.ctr.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_DROP_FCS].val();
            self.ctr.ro[RO_PORT0 + RO_PER_PORT * p + P_DROP_OVERFLOW].next = self.rx[p].drop_overflow.val();
            self.rx[p].clr_drop_overflow.next = self.ctr.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_DROP_OVERFLOW].val();
            self.ctr.ro[RO_PORT0 + RO_PER_PORT * p + P_OCC_BYTES].next = self.rx[p].occ_bytes.val();
            self.ctr.ro[RO_PORT0 + RO_PER_PORT * p + P_OCC_PKTS].next = self.rx[p].occ_pkts.val();
        }
        for p in 0..self.direct.len() {
            AxisSource::<D, K, U>::join(&mut self.rx[p].m, &mut self.arb.s[p]);
            self.arb.s_bytes[p].next = self.rx[p].m_bytes.val();
        }
        for p in 0..self.rx_out.len() {
            AxisSource::<D, K, U>::link(&mut self.rx_out[p], &mut self.rx[p].m);
            self.rx_out_bytes[p].next = self.rx[p].m_bytes.val();
            AxisSink::<D, K, U>::link(&mut self.arb_in[p], &mut self.arb.s[p]);
            self.arb.s_bytes[p].next = self.arb_in_bytes[p].val();
        }
        // A single-port pipeline still has a two-input arbiter: input 1 idles.
        for i in self.rx.len()..self.arb.s.len() {
            self.arb.s[i].tdata.next = 0.into();
            self.arb.s[i].tkeep.next = 0.into();
            self.arb.s[i].tlast.next = false;
            self.arb.s[i].tuser.next = 0.into();
            self.arb.s[i].tvalid.next = false;
            self.arb.s_bytes[i].next = 0.into();
        }
        self.arb.drr_enable.next = self.ctl.rw[RW_ARB_POLICY].val().get_bit(0);
        self.arb.strict.next = false;
        for i in 0..self.arb.quantum.len() {
            self.arb.quantum[i].next = self.ctl.rw[RW_ARB_QUANTUM + i].val() & self.quantum_mask.val();
        }
        // Arbiter -> parser; the PHVs loop through classify and lookup.
        AxisSource::<D, K, U>::join(&mut self.arb.m, &mut self.parser.s);
        self.classify.s_valid.next = self.parser.x_valid.val();
        self.classify.s_phv.next = self.parser.x_phv.val();
        self.classify.router_mac_lo.next = self.ctl.rw[RW_ROUTER_MAC_LO].val();
        self.classify.router_mac_hi.next = self.ctl.rw[RW_ROUTER_MAC_HI].val();
        self.classify.dscp.next = self.ctl.rw[RW_DSCP].val();
        self.classify.tc.next = self.ctl.rw[RW_TC].val();
        self.lookup.s_valid.next = self.classify.m_valid.val();
        self.lookup.s_phv.next = self.classify.m_phv.val();
        self.lookup.s_class.next = self.classify.m_class.val();
        self.lookup.malformed_drop.next = self.ctl.rw[RW_CTRL].val().get_bit(CTRL_MALFORMED_DROP_BIT);
        self.lookup.miss_port.next = self.ctl.rw[RW_MISS_PORT].val();
        for i in 0..self.lookup.route_w0.len() {
            self.lookup.route_w0[i].next = self.routes.rw[2 * i].val();
            self.lookup.route_w1[i].next = self.routes.rw[2 * i + 1].val();
        }
        self.lookup.route_wr.next = self.routes.wrote.val();
        for i in 0..self.lookup.l2_w0.len() {
            self.lookup.l2_w0[i].next = self.l2t.rw[2 * i].val();
            self.lookup.l2_w1[i].next = self.l2t.rw[2 * i + 1].val();
        }
        for i in 0..self.lookup.nh_w0.len() {
            self.lookup.nh_w0[i].next = self.nht.rw[2 * i].val();
            self.lookup.nh_w1[i].next = self.nht.rw[2 * i + 1].val();
        }
        // Lookup -> PL2 (the switch's ALU answers) -> back to the parser.
        self.pl2.s_valid.next = self.lookup.m_valid.val();
        self.pl2.s_phv.next = self.lookup.m_phv.val();
        self.pl2.s_res.next = self.lookup.m_res.val();
        self.pl2.enable.next = self.pl2_enable.val();
        self.pl2.unsol_dscp.next = self.pl2_unsol_dscp.val();
        self.pl2.unsol_dscp_en.next = self.pl2_unsol_dscp_en.val();
        self.pl2.unsol_pcp.next = self.pl2_unsol_pcp.val();
        self.pl2.unsol_pcp_en.next = self.pl2_unsol_pcp_en.val();
        self.pl2_op_valid.next = self.pl2.op_valid.val();
        self.pl2_op_kind.next = self.pl2.op_kind.val();
        self.pl2_op_in.next = self.pl2.op_in.val();
        self.pl2_op_src.next = self.pl2.op_src.val();
        self.pl2_op_dst.next = self.pl2.op_dst.val();
        self.pl2_op_demand.next = self.pl2.op_demand.val();
        self.pl2_op_dem_k.next = self.pl2.op_dem_k.val();
        self.pl2_op_over_k.next = self.pl2.op_over_k.val();
        self.pl2.k.next = self.pl2_k.val();
        self.pl2_op_in_oh.next = self.pl2.op_in_oh.val();
        self.pl2_op_dst_oh.next = self.pl2.op_dst_oh.val();
        self.pl2.res_code.next = self.pl2_res_code.val();
        self.pl2.res_demand.next = self.pl2_res_demand.val();
        self.pl2.res_send.next = self.pl2_res_send.val();
        self.pl2.res_recv.next = self.pl2_res_recv.val();
        self.pl2_hd_req.next = self.pl2.hd_req.val();
        self.pl2_hd_dst.next = self.pl2.hd_dst.val();
        self.pl2_hold_ev.next = self.pl2.hold_ev.val();
        self.pl2.pipe.next = self.pl2_pipe.val();
        for j in 0..self.pl2_peer_req.len() {
            self.pl2.peer_req[j].next = self.pl2_peer_req[j].val();
            self.pl2.peer_dst[j].next = self.pl2_peer_dst[j].val();
        }
        self.parser.x_res_valid.next = self.pl2.m_valid.val();
        self.parser.x_res_phv.next = self.pl2.m_phv.val();
        self.parser.x_res.next = self.pl2.m_res.val();
        // Parser -> apply -> out.
        AxisSource::<D, K, U>::join(&mut self.parser.m, &mut self.apply.s);
        self.apply.s_phv.next = self.parser.m_phv.val();
        self.apply.s_res.next = self.parser.m_res.val();
        self.router_mac_lo.next = self.ctl.rw[RW_ROUTER_MAC_LO].val();
        self.router_mac_hi.next = self.ctl.rw[RW_ROUTER_MAC_HI].val();
        AxisSource::<D, K, U>::link(&mut self.m, &mut self.apply.m);
        self.m_phv.next = self.apply.m_phv.val();
        // Pipeline counters.
        self.ctr.ro[RO_PARSER_PKTS].next = self.parser.pkts.val();
        self.parser.clr_pkts.next = self.ctr.ro_clear[RO_PARSER_PKTS].val();
        for m in 0..self.parser.malformed.len() {
            self.ctr.ro[RO_MALFORMED + m].next = self.parser.malformed[m].val();
            self.parser.clr_malformed[m].next = self.ctr.ro_clear[RO_MALFORMED + m].val();
        }
        self.ctr.ro[RO_CLASS_PRIO].next = self.classify.prio_pkts.val();
        self.classify.clr_prio_pkts.next = self.ctr.ro_clear[RO_CLASS_PRIO].val();
        self.ctr.ro[RO_CLASS_TRIM_OK].next = self.classify.trim_ok_pkts.val();
        self.classify.clr_trim_ok_pkts.next = self.ctr.ro_clear[RO_CLASS_TRIM_OK].val();
        self.ctr.ro[RO_CLASS_ROUTER_HIT].next = self.classify.router_hit_pkts.val();
        self.classify.clr_router_hit_pkts.next = self.ctr.ro_clear[RO_CLASS_ROUTER_HIT].val();
        self.ctr.ro[RO_LOOKUP_ROUTED].next = self.lookup.routed.val();
        self.lookup.clr_routed.next = self.ctr.ro_clear[RO_LOOKUP_ROUTED].val();
        self.ctr.ro[RO_LOOKUP_LPM_MISS].next = self.lookup.lpm_miss.val();
        self.lookup.clr_lpm_miss.next = self.ctr.ro_clear[RO_LOOKUP_LPM_MISS].val();
        self.ctr.ro[RO_LOOKUP_L2_HIT].next = self.lookup.l2_hit.val();
        self.lookup.clr_l2_hit.next = self.ctr.ro_clear[RO_LOOKUP_L2_HIT].val();
        self.ctr.ro[RO_LOOKUP_L2_MISS].next = self.lookup.l2_miss.val();
        self.lookup.clr_l2_miss.next = self.ctr.ro_clear[RO_LOOKUP_L2_MISS].val();
        self.ctr.ro[RO_DROP_MALFORMED].next = self.lookup.drop_malformed.val();
        self.lookup.clr_drop_malformed.next = self.ctr.ro_clear[RO_DROP_MALFORMED].val();
        self.ctr.ro[RO_DROP_NO_PORT].next = self.pl2.drop_no_port.val();
        self.pl2.clr_drop_no_port.next = self.ctr.ro_clear[RO_DROP_NO_PORT].val();
        self.ctr.ro[RO_DROP_PL2].next = self.pl2.drop_pl2.val();
        self.pl2.clr_drop_pl2.next = self.ctr.ro_clear[RO_DROP_PL2].val();
        self.ctr.ro[RO_OUT_PKTS].next = self.pl2.out_pkts.val();
        self.pl2.clr_out_pkts.next = self.ctr.ro_clear[RO_OUT_PKTS].val();
    }
}

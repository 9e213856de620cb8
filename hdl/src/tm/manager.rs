//! `ts_tm`: the trimming traffic manager of one pipeline, ideal and meter
//! mode (`docs/trimming.md`; seed 000 §3.1, §4-5; seed 001; seed 002).
//!
//! ```text
//! s_* ─► MeterStage ─► recirc ─► TmPre ─► TmAdmit ─► Trimmer ─► demux by queue ─► 2 queues per port ─► scheduler per port ─► m_*[p]
//!        │  ▲ mode     mux  ▲      ▲  enq (reserve)       │              (PktFifo,            (AxisArbMux: strict
//!        ▼  │              │      └── occupancy ◄────────┼────────────── cut-through)         or byte DRR, H first)
//!   MeterBank PortMode ◄───┼── notify (DoD) ◄── TmAdmit   │
//!                          └──────── DoD FIFO ◄───────────┘ (queue 2N)
//! ```
//!
//! Meter mode (`CTRL` bit 3): [`MeterStage`] asks the port's meter (of the
//! mode [`PortMode`] holds) about each NDP data packet and marks the ones not
//! green, which admission trims into the header queue. A data packet the data
//! queue cannot take is deflected (DoD): trimmed into the DoD FIFO, and its
//! port gets a notify (pessimistic for T0, then halftimistic for T1); the
//! trimmed packet comes back to admission through the recirculation mux (DoD
//! FIFO first) and takes the trim path (header queue, return to sender, or
//! dropped). `notify_out[p]` carries the notifies to other pipelines and
//! `notify_in[p]` takes theirs (send-to-all, seed 000 §5). Built with
//! `tm.meters = false` (ideal mode only, for small parts) the input goes
//! straight to [`TmPre`] (its `tuser` masked as [`MeterStage`] masks it) and
//! the meter stage, the DoD FIFO, the recirculation mux and the port modes
//! see no traffic, so synthesis removes them; `CTRL` bit 3 does nothing.
//!
//! [`TmAdmit`] decides every packet at its first beat from the exact
//! occupancy of the queues: occupancy is reserved at admission and freed when
//! the packet's last beat leaves the port (so it includes the scheduler's
//! output register), so a queue never receives more
//! than its byte limit and its memory can never overflow (its `s_tready`
//! never falls). [`Trimmer`] cuts the packets admission marked. Each port
//! has a header/control queue (input 0 of its scheduler) and a data queue
//! (input 1).
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset: the
//!   register file at once, the data path (queues, occupancy, meters, every
//!   packet inside) a cycle later through a copy of the reset per part; the
//!   input's `s_tready` is low until the data path is out of reset.
//! - `s_*`: input from the ingress pipeline (wide `tuser`, [`crate::meta`]).
//! - `m_*[p]`: egress port `p`; `tuser` as admitted (flags TRIMMED/RETURNED,
//!   `length` the bytes sent, queue index at [`QUEUE_LSB`]).
//! - `s_axil_*`: AXI4-Lite register file ([`TmRegs`]).
//! - `notify_out[p]` out: a deflection for port `p` this cycle; `notify_in[p]`
//!   in: a notify for port `p` from another pipeline (tie low when alone).
//! - `dec_valid`, `dec_code` (4 bits, [`crate::tm::admit`]'s fate codes),
//!   `dec_recirc`, `dec_port` out: the decision trace, one cycle per packet at
//!   admission (for telemetry, mirroring, and the tests' replay).
//! - Sharing the ports with other pipelines (`docs/switch.md`, "Several
//!   pipelines"; tie the inputs low when alone): `occ_b_out[q]`,
//!   `occ_w_out[q]` out, the bytes and words this traffic manager holds in
//!   queue `q` (`2p` header, `2p + 1` data of port `p`); `occ_ext_b[q]`,
//!   `occ_ext_w[q]` in, what the other pipelines hold there (admission
//!   decides on the sum; read only when built for several pipelines,
//!   `datapath.pipelines > 1`); `want`, `want_dest`, `want_src` out and `hold` in,
//!   admission's request and stall ([`TmAdmit`]).
use crate::axil::bundle::AxilSlave;
use crate::axil::regs::AxilRegs;
use crate::axis::arb_mux::AxisArbMux;
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::demux::AxisDemux;
use crate::axis::pkt_fifo::PktFifo;
use crate::axis::skid::AxisSkid;
use crate::config::{Config, Tm};
use crate::gen::unroll;
use crate::meta::{LENGTH_LSB, TRIMMED_BIT};
use crate::prim::widgets::{vec_of, AddSubBorrow, DffKeep, DffR};
use crate::tm::admit::{trim_len, TmAdmit, TmPre, COUNTER_NAMES, N_COUNTERS, QUEUE_LSB};
use crate::tm::meter::{rate_fixed, user_in_mask, MeterBank, MeterStage, PortMode};
use crate::tm::occupancy::TmOcc;
use crate::tm::trimmer::Trimmer;
use regidx::*;
use rust_hdl::prelude::*;

/// AXI-Lite address width of the traffic manager's register file.
pub const REG_ADDR_BITS: usize = 14;

/// The register map of `ts_tm` (byte addresses). Read-write registers first:
///
/// | addr | name | meaning (reset value from `[tm]`) |
/// |---|---|---|
/// | 0x00 | `CTRL` | bit 0 return to sender, bit 1 DRR scheduler (else strict), bit 2 DSCP TRIMMED rewrite on |
/// | 0x04 | `LIMIT_H` | header queue limit, bytes (bits 23:0) |
/// | 0x08 | `LIMIT_D` | data queue limit, bytes (bits 23:0) |
/// | 0x0C | `TRIM_LEN` | bytes kept: `[7:0]` NDP, `[15:8]` IPv4, `[23:16]` IPv6 (1..=128) |
/// | 0x10 | `DSCP_TRIMMED` | DSCP written into trimmed non-NDP packets (bits 5:0) |
/// | 0x14 | `QUANTUM_H` | DRR quantum of the header queue, bytes, bits 15:0 (1..=65535; the bits above are ignored) |
/// | 0x18 | `QUANTUM_D` | DRR quantum of the data queue, bytes, bits 15:0 (1..=65535; the bits above are ignored) |
/// | 0x1C, 0x20, 0x24 | `RATE_OPT`, `RATE_HALF`, `RATE_PESS` | meter refill per cycle, 16.16 bytes |
/// | 0x28, 0x2C, 0x30 | `BURST_OPT`, `BURST_HALF`, `BURST_PESS` | meter bucket capacity, bytes (bits 23:0) |
/// | 0x34, 0x38 | `T0`, `T1` | pessimistic and halftimistic time, cycles |
///
/// `CTRL` bit 3 selects meter mode. Then read-only from
/// [`TmRegs::COUNTERS_BASE`]: [`TmRegs::COUNTERS`] in order (write clears),
/// `OCC_DOD_WORDS` (the DoD FIFO's reserved words), then per port `p` the
/// [`TmRegs::PORT_REGS`]: `TX_TRIM_PACKETS`, the header and data queue
/// occupancy in bytes, the mode (0 optimistic, 1 halftimistic, 2
/// pessimistic), green and not-green meter answers (= ingress trims), the
/// cycles spent in each mode and the notifies received (counters: write
/// clears), and the header and data queues' high-water marks in bytes
/// (write clears). Occupancy and high-water marks are the port's total over
/// all pipelines (what admission decides on), exact to the cycle.
pub struct TmRegs {
    pub ports: usize,
}

impl TmRegs {
    pub const CTRL: u32 = 0x00;
    pub const LIMIT_H: u32 = 0x04;
    pub const LIMIT_D: u32 = 0x08;
    pub const TRIM_LEN: u32 = 0x0C;
    pub const DSCP_TRIMMED: u32 = 0x10;
    pub const QUANTUM_H: u32 = 0x14;
    pub const QUANTUM_D: u32 = 0x18;
    pub const RATE_OPT: u32 = 0x1C;
    pub const RATE_HALF: u32 = 0x20;
    pub const RATE_PESS: u32 = 0x24;
    pub const BURST_OPT: u32 = 0x28;
    pub const BURST_HALF: u32 = 0x2C;
    pub const BURST_PESS: u32 = 0x30;
    pub const T0: u32 = 0x34;
    pub const T1: u32 = 0x38;
    /// `CTRL` bits.
    pub const CTRL_RTS: u32 = 1;
    pub const CTRL_DRR: u32 = 2;
    pub const CTRL_DSCP: u32 = 4;
    pub const CTRL_METER: u32 = 8;
    /// Read-write registers.
    pub const N_RW: usize = 15;
    pub const COUNTERS_BASE: u32 = 0x3C;
    /// The DoD FIFO's reserved words (read only), after the counters.
    pub const OCC_DOD_WORDS: u32 = Self::COUNTERS_BASE + 4 * Self::COUNTERS.len() as u32;
    /// Counters of the whole traffic manager, in address order: admission's
    /// fates and `in_pkts`, then the trimmer's `cut_pkts`.
    pub const COUNTERS: [&'static str; N_COUNTERS + 1] = [
        COUNTER_NAMES[0],
        COUNTER_NAMES[1],
        COUNTER_NAMES[2],
        COUNTER_NAMES[3],
        COUNTER_NAMES[4],
        COUNTER_NAMES[5],
        COUNTER_NAMES[6],
        COUNTER_NAMES[7],
        COUNTER_NAMES[8],
        COUNTER_NAMES[9],
        COUNTER_NAMES[10],
        "cut_pkts",
    ];
    /// Per-port read-only registers, in address order.
    pub const PORT_REGS: [&'static str; 12] = [
        "tx_trim_packets",
        "occ_h_bytes",
        "occ_d_bytes",
        "mode",
        "meter_green_pkts",
        "ingress_trim_packets",
        "cycles_optimistic",
        "cycles_halftimistic",
        "cycles_pessimistic",
        "notifies",
        "max_occ_h_bytes",
        "max_occ_d_bytes",
    ];
    /// Read-only registers before the per-port ones.
    pub const N_GLOBAL_RO: usize = N_COUNTERS + 2;

    pub fn counter(&self, name: &str) -> Option<u32> {
        Self::COUNTERS.iter().position(|c| *c == name).map(|i| Self::COUNTERS_BASE + 4 * i as u32)
    }
    pub fn port_reg(&self, p: usize, name: &str) -> Option<u32> {
        let base = Self::COUNTERS_BASE + 4 * Self::N_GLOBAL_RO as u32;
        let n = Self::PORT_REGS.len();
        Self::PORT_REGS.iter().position(|c| *c == name).map(|i| base + 4 * (n * p + i) as u32)
    }
    /// Number of read-only registers.
    pub fn n_ro(&self) -> usize {
        Self::N_GLOBAL_RO + Self::PORT_REGS.len() * self.ports
    }
    /// Reset values of the read-write registers for `cfg`.
    pub fn rw_reset(cfg: &Config) -> Vec<u32> {
        let t = &cfg.tm;
        let dscp = cfg.ingress.dscp_trimmed;
        let mhz = cfg.target.clock_mhz;
        let bpc = t.meter_bytes_per_cycle(mhz);
        let b = t.meter_burst_bytes;
        vec![
            (t.return_to_sender as u32 * Self::CTRL_RTS)
                | ((t.scheduler == "drr") as u32 * Self::CTRL_DRR)
                | ((dscp >= 0) as u32 * Self::CTRL_DSCP)
                | ((t.mode == "meter") as u32 * Self::CTRL_METER),
            t.queue_h_bytes,
            t.queue_d_bytes,
            t.trim_len_ndp << trim_len::TRIM_LEN_NDP
                | t.trim_len_ipv4 << trim_len::TRIM_LEN_IPV4
                | t.trim_len_ipv6 << trim_len::TRIM_LEN_IPV6,
            dscp.max(0) as u32,
            t.quantum_h,
            t.quantum_d,
            rate_fixed(bpc),
            rate_fixed(bpc / 2.0),
            rate_fixed(bpc / 4.0),
            b,
            b,
            b,
            Tm::cycles(t.t0_us, mhz) as u32,
            Tm::cycles(t.t1_us, mhz) as u32,
        ]
    }
}

/// Indices into the register file's `rw` and `ro` vectors, by name, for the
/// traffic manager's `#[hdl_gen]` code (`self.regs.ro[RO_PORT0 + RO_PER_PORT *
/// p + P_TX_TRIM]`). Each is derived from [`TmRegs`]' address map, so the
/// wiring and the published map cannot disagree; [`crate::gen::unroll`]
/// resolves them in the Verilog ([`NAMES`]).
pub mod regidx {
    use super::TmRegs;

    use crate::gen::unroll::word as rw;

    /// Position of `name` in [`TmRegs::PORT_REGS`] (compile time).
    const fn port(name: &str) -> usize {
        crate::gen::unroll::position(&TmRegs::PORT_REGS, name)
    }

    crate::gen::unroll::named_indices! {
        RW_CTRL = rw(TmRegs::CTRL);
        RW_LIMIT_H = rw(TmRegs::LIMIT_H);
        RW_LIMIT_D = rw(TmRegs::LIMIT_D);
        RW_TRIM_LEN = rw(TmRegs::TRIM_LEN);
        RW_DSCP_TRIMMED = rw(TmRegs::DSCP_TRIMMED);
        RW_QUANTUM_H = rw(TmRegs::QUANTUM_H);
        RW_QUANTUM_D = rw(TmRegs::QUANTUM_D);
        /// `RATE_OPT`, `RATE_HALF`, `RATE_PESS` follow each other: `RW_RATE + k`.
        RW_RATE = rw(TmRegs::RATE_OPT);
        /// `BURST_OPT`, `_HALF`, `_PESS`: `RW_BURST + k`.
        RW_BURST = rw(TmRegs::BURST_OPT);
        RW_T0 = rw(TmRegs::T0);
        RW_T1 = rw(TmRegs::T1);
        /// `CTRL` bits.
        CTRL_RTS_BIT = TmRegs::CTRL_RTS.trailing_zeros() as usize;
        CTRL_DRR_BIT = TmRegs::CTRL_DRR.trailing_zeros() as usize;
        CTRL_DSCP_BIT = TmRegs::CTRL_DSCP.trailing_zeros() as usize;
        CTRL_METER_BIT = TmRegs::CTRL_METER.trailing_zeros() as usize;
        /// `ro`: admission's counters are `0..N_COUNTERS` (`COUNTERS` order),
        /// then the trimmer's `cut_pkts`, the DoD occupancy, and per port
        /// `RO_PER_PORT` registers from `RO_PORT0`.
        RO_CUT_PKTS = N_COUNTERS;
        RO_OCC_DOD_WORDS = ((TmRegs::OCC_DOD_WORDS - TmRegs::COUNTERS_BASE) / 4) as usize;
        RO_PORT0 = TmRegs::N_GLOBAL_RO;
        RO_PER_PORT = TmRegs::PORT_REGS.len();
        P_TX_TRIM = port("tx_trim_packets");
        P_OCC_H = port("occ_h_bytes");
        P_OCC_D = port("occ_d_bytes");
        P_MODE = port("mode");
        P_GREEN = port("meter_green_pkts");
        P_NOT_GREEN = port("ingress_trim_packets");
        P_CYCLES_OPT = port("cycles_optimistic");
        P_CYCLES_HALF = port("cycles_halftimistic");
        P_CYCLES_PESS = port("cycles_pessimistic");
        P_NOTIFIES = port("notifies");
        P_MAX_OCC_H = port("max_occ_h_bytes");
        P_MAX_OCC_D = port("max_occ_d_bytes");
    }

    use crate::tm::admit::N_COUNTERS;

    // The wiring frees a queue's pair of registers as `P_OCC_H + q % 2`.
    const _: () = assert!(P_OCC_D == P_OCC_H + 1 && P_MAX_OCC_D == P_MAX_OCC_H + 1);
}

#[derive(LogicBlock)]
pub struct TrafficManager<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: Vec<AxisSource<D, K, U>>,
    pub s_axil: AxilSlave<REG_ADDR_BITS>,
    pub notify_out: Vec<Signal<Out, Bit>>,
    pub notify_in: Vec<Signal<In, Bit>>,
    pub dec_valid: Signal<Out, Bit>,
    pub dec_code: Signal<Out, Bits<4>>,
    pub dec_recirc: Signal<Out, Bit>,
    pub dec_port: Signal<Out, Bits<8>>,
    pub occ_b_out: Vec<Signal<Out, Bits<32>>>,
    pub occ_w_out: Vec<Signal<Out, Bits<32>>>,
    pub occ_ext_b: Vec<Signal<In, Bits<32>>>,
    pub occ_ext_w: Vec<Signal<In, Bits<32>>>,
    pub want: Signal<Out, Bit>,
    pub want_dest: Signal<Out, Bits<8>>,
    pub want_src: Signal<Out, Bits<8>>,
    pub hold: Signal<In, Bit>,
    meter: MeterStage<D, K, U>,
    bank: MeterBank,
    pmode: PortMode,
    recirc: AxisArbMux<D, K, U>,
    dod: PktFifo<D, K, U, M, W>,
    occ_dod: DffR<Bits<32>>,
    /// `occ_dod` less a returning packet's words, one chain (as [`TmOcc`]'s
    /// counts); the decisions select after it.
    nw_dod: AddSubBorrow<32>,
    /// `tm.meters`: meter mode built (else its blocks see no traffic).
    meters_c: Constant<Bit>,
    /// `datapath.pipelines > 1`: admission decides on this traffic
    /// manager's occupancy plus `occ_ext_*`. With one pipeline the inputs
    /// are not read, and no adder sits between the occupancy registers and
    /// admission's fit tests (issue 14: the adder and the fit test's chain
    /// in series were `ts_tm`'s path on the Versa, 97.1 MHz).
    shared: Constant<Bit>,
    /// The reset, one copy per part (issue 14: one reset net reaching the
    /// whole traffic manager was `ts_switch`'s path on the Versa, 4.4 ns of
    /// routing to the demultiplexer): the input side (meter stage and bank,
    /// port modes, DoD FIFO, recirculation, precompute), admission with the
    /// occupancy and the trimmer, the demultiplexer, and each port. `DffKeep`,
    /// so synthesis keeps the copies apart. The parts leave (and enter) reset
    /// a cycle after `reset`; the register file follows `reset` itself (a
    /// host's access right after a reset is not lost), and `s_tready` is low
    /// while the input side is in reset, so no beat is taken and dropped.
    rst_in: DffKeep<Bit>,
    rst_adm: DffKeep<Bit>,
    rst_dmx: DffKeep<Bit>,
    rst_port: Vec<DffKeep<Bit>>,
    /// The `tuser` bits from outside (the meter stage's input mask).
    user_in: Constant<Bits<U>>,
    port_id: Vec<Constant<Bits<8>>>,
    notify: Vec<Signal<Local, Bit>>,
    enq_dod: Signal<Local, Bit>,
    deq_dod: Signal<Local, Bit>,
    deq_dod_w: Signal<Local, Bits<32>>,
    pre: TmPre<D, K, U>,
    admit: TmAdmit<D, K, U>,
    trimmer: Trimmer<D, K, U>,
    demux: AxisDemux<D, K, U>,
    port: Vec<TmPort<D, K, U, M, W>>,
    regs: AxilRegs<REG_ADDR_BITS>,
    occ: TmOcc<K>,
    tx_trim: Vec<DffR<Bits<32>>>,
    k_low: Constant<Bits<32>>,
    mask24: Constant<Bits<32>>,
    k_shift: Constant<Bits<32>>,
    tot_b: Vec<Signal<Local, Bits<32>>>,
    tot_w: Vec<Signal<Local, Bits<32>>>,
    hw_b: Vec<DffR<Bits<32>>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> TrafficManager<D, K, U, M, W> {
    /// The traffic manager of `cfg` (`datapath.ports` egress ports, `[tm]`).
    pub fn new(cfg: &Config) -> Self {
        let ports = cfg.datapath.ports;
        let t = &cfg.tm;
        let regs = TmRegs { ports };
        let nq = 2 * ports;
        // The DoD FIFO admits `dod_words`; a packet's words are freed when
        // its first beat comes back to admission, while up to 128 / K - 1 of
        // its beats may still be inside.
        let dod_depth = t.dod_words + 128usize.div_ceil(K);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: vec_of(ports),
            s_axil: Default::default(),
            notify_out: vec_of(ports),
            notify_in: vec_of(ports),
            dec_valid: Default::default(),
            dec_code: Default::default(),
            dec_recirc: Default::default(),
            dec_port: Default::default(),
            occ_b_out: vec_of(nq),
            occ_w_out: vec_of(nq),
            occ_ext_b: vec_of(nq),
            occ_ext_w: vec_of(nq),
            want: Default::default(),
            want_dest: Default::default(),
            want_src: Default::default(),
            hold: Default::default(),
            meter: MeterStage::new(ports),
            bank: MeterBank::new(ports),
            pmode: PortMode::new(ports),
            recirc: AxisArbMux::new(2),
            dod: PktFifo::new(dod_depth, false),
            occ_dod: Default::default(),
            nw_dod: Default::default(),
            meters_c: Constant::new(t.meters),
            shared: Constant::new(cfg.datapath.pipelines > 1),
            rst_in: Default::default(),
            rst_adm: Default::default(),
            rst_dmx: Default::default(),
            rst_port: vec_of(ports),
            user_in: Constant::new(user_in_mask()),
            port_id: (0..ports).map(|p| Constant::new((p as u64).to_bits())).collect(),
            notify: vec_of(ports),
            enq_dod: Default::default(),
            deq_dod: Default::default(),
            deq_dod_w: Default::default(),
            pre: TmPre::with_window(t.trim_window),
            admit: TmAdmit::new(ports, t.queue_h_words, t.queue_d_words, t.dod_words),
            trimmer: Trimmer::with_window(t.trim_window),
            demux: AxisDemux::new(nq + 1, QUEUE_LSB),
            port: (0..ports).map(|_| TmPort::new(t.queue_h_words, t.queue_d_words)).collect(),
            regs: AxilRegs::new(&TmRegs::rw_reset(cfg), regs.n_ro()),
            occ: TmOcc::new(nq),
            tx_trim: vec_of(ports),
            k_low: Constant::new(((K - 1) as u64).to_bits()),
            mask24: Constant::new(0xff_ffffu64.to_bits()),
            k_shift: Constant::new((K.trailing_zeros() as u64).to_bits()),
            tot_b: vec_of(nq),
            tot_w: vec_of(nq),
            hw_b: vec_of(nq),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for TrafficManager<D, K, U, M, W> {
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

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> TrafficManager<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.rst_in.clock.next = self.clock.val();
        self.rst_in.d.next = self.reset.val();
        self.rst_adm.clock.next = self.clock.val();
        self.rst_adm.d.next = self.reset.val();
        self.rst_dmx.clock.next = self.clock.val();
        self.rst_dmx.d.next = self.reset.val();
        for p in 0..self.rst_port.len() {
            self.rst_port[p].clock.next = self.clock.val();
            self.rst_port[p].d.next = self.reset.val();
        }
        self.admit.clock.next = self.clock.val();
        self.admit.reset.next = self.rst_adm.q.val();
        self.trimmer.clock.next = self.clock.val();
        self.trimmer.reset.next = self.rst_adm.q.val();
        self.demux.clock.next = self.clock.val();
        self.demux.reset.next = self.rst_dmx.q.val();
        self.regs.clock.next = self.clock.val();
        self.regs.reset.next = self.reset.val();
        // Register file.
        AxilSlave::<REG_ADDR_BITS>::link(&mut self.s_axil, &mut self.regs.s_axil);

        // Input -> meter stage -> recirculation mux (DoD FIFO first) ->
        // admission -> trimmer -> demux by queue index.
        self.meter.clock.next = self.clock.val();
        self.meter.reset.next = self.rst_in.q.val();
        self.bank.clock.next = self.clock.val();
        self.bank.reset.next = self.rst_in.q.val();
        self.pmode.clock.next = self.clock.val();
        self.pmode.reset.next = self.rst_in.q.val();
        self.recirc.clock.next = self.clock.val();
        self.recirc.reset.next = self.rst_in.q.val();
        self.dod.clock.next = self.clock.val();
        self.dod.reset.next = self.rst_in.q.val();
        self.occ_dod.clock.next = self.clock.val();
        self.occ_dod.reset.next = self.rst_in.q.val();
        // Without meter mode (`tm.meters = false`) the input goes straight
        // to admission and the meter stage, the DoD FIFO and the
        // recirculation mux see no traffic (synthesis removes them).
        self.meter.s.tdata.next = self.s.tdata.val();
        self.meter.s.tkeep.next = self.s.tkeep.val();
        self.meter.s.tuser.next = self.s.tuser.val();
        self.meter.s.tlast.next = self.s.tlast.val();
        self.meter.s.tvalid.next = self.s.tvalid.val() & self.meters_c.val();
        self.s.tready.next = self.meter.s.tready.val() & !self.rst_in.q.val();
        if !self.meters_c.val() {
            self.s.tready.next = self.pre.s.tready.val() & !self.rst_in.q.val();
        }
        self.meter.enable.next = self.regs.rw[RW_CTRL].val().get_bit(CTRL_METER_BIT) & self.meters_c.val();
        self.bank.req_valid.next = self.meter.req_valid.val();
        self.bank.req_port.next = self.meter.req_port.val();
        self.bank.req_bytes.next = self.meter.req_bytes.val();
        self.bank.req_mode.next = self.meter.req_mode.val();
        self.meter.resp_valid.next = self.bank.resp_valid.val();
        self.meter.resp_green.next = self.bank.resp_green.val();
        for k in 0..3 {
            self.bank.rate[k].next = self.regs.rw[RW_RATE + k].val();
            self.bank.burst[k].next = self.regs.rw[RW_BURST + k].val().get_bits::<24>(0);
        }
        self.pmode.t0.next = self.regs.rw[RW_T0].val();
        self.pmode.t1.next = self.regs.rw[RW_T1].val();
        self.recirc.drr_enable.next = false;
        self.recirc.strict.next = true;
        self.recirc.quantum[0].next = 0.into();
        self.recirc.quantum[1].next = 0.into();
        // Strict priority: no byte counts.
        self.recirc.s_bytes[0].next = 0.into();
        self.recirc.s_bytes[1].next = 0.into();
        AxisSource::<D, K, U>::join(&mut self.dod.m, &mut self.recirc.s[0]);
        AxisSource::<D, K, U>::join(&mut self.meter.m, &mut self.recirc.s[1]);
        self.pre.clock.next = self.clock.val();
        self.pre.reset.next = self.rst_in.q.val();
        self.pre.s.tdata.next = self.recirc.m.tdata.val();
        self.pre.s.tkeep.next = self.recirc.m.tkeep.val();
        self.pre.s.tuser.next = self.recirc.m.tuser.val();
        self.pre.s.tlast.next = self.recirc.m.tlast.val();
        self.pre.s.tvalid.next = self.recirc.m.tvalid.val();
        self.recirc.m.tready.next = self.pre.s.tready.val();
        if !self.meters_c.val() {
            self.pre.s.tdata.next = self.s.tdata.val();
            self.pre.s.tkeep.next = self.s.tkeep.val();
            self.pre.s.tuser.next = self.s.tuser.val() & self.user_in.val();
            self.pre.s.tlast.next = self.s.tlast.val();
            self.pre.s.tvalid.next = self.s.tvalid.val();
            self.recirc.m.tready.next = false;
        }
        self.pre.trim_len.next = self.regs.rw[RW_TRIM_LEN].val().get_bits::<24>(0);
        AxisSource::<D, K, U>::join(&mut self.pre.m, &mut self.admit.s);
        self.admit.rts_en.next = self.regs.rw[RW_CTRL].val().get_bit(CTRL_RTS_BIT);
        self.admit.meter_en.next = self.regs.rw[RW_CTRL].val().get_bit(CTRL_METER_BIT) & self.meters_c.val();
        self.dec_valid.next = self.admit.dec_valid.val();
        self.dec_code.next = self.admit.dec_code.val();
        self.dec_recirc.next = self.admit.dec_recirc.val();
        self.dec_port.next = self.admit.dec_port.val();
        self.want.next = self.admit.want.val();
        self.want_dest.next = self.admit.want_dest.val();
        self.want_src.next = self.admit.want_src.val();
        self.admit.hold.next = self.hold.val();
        // DoD FIFO: demux output 2N (a one-pass loop names the index).
        for q in (2usize * self.port.len())..(2usize * self.port.len() + 1usize) {
            self.dod.s.tdata.next = self.demux.m[q].tdata.val();
            self.dod.s.tkeep.next = self.demux.m[q].tkeep.val();
            self.dod.s.tuser.next = self.demux.m[q].tuser.val();
            self.dod.s.tlast.next = self.demux.m[q].tlast.val();
            self.dod.s.tvalid.next = self.demux.m[q].tvalid.val() & self.meters_c.val();
            self.demux.m[q].tready.next = self.dod.s.tready.val() | !self.meters_c.val();
        }
        self.dod.s_abort.next = false;
        self.dod.clear_drops.next = false;
        // DoD occupancy: reserved at a deflection, freed when the packet's
        // first beat comes back to admission.
        self.admit.occ_dod_words.next = self.occ_dod.q.val();
        self.enq_dod.next = self.admit.enq_dod.val();
        self.deq_dod.next = self.admit.dec_valid.val() & self.admit.dec_recirc.val();
        // A packet's words, `ceil(bytes / K)`: `bytes >> log2 K` and a borrow
        // when the low bits are not 0, subtracted in one chain from registers.
        // A deflection and a return in one cycle leave the count as it is.
        self.deq_dod_w.next = bit_cast::<32, 16>(self.admit.dec_bytes.val()) >> self.k_shift.val();
        self.nw_dod.a.next = self.occ_dod.q.val();
        self.nw_dod.b.next = 0.into();
        self.nw_dod.c.next = self.deq_dod_w.val();
        self.nw_dod.borrow.next = (bit_cast::<32, 16>(self.admit.dec_bytes.val()) & self.k_low.val()).any();
        self.occ_dod.d.next = self.occ_dod.q.val();
        if self.enq_dod.val() & !self.deq_dod.val() {
            // A deflected packet is trimmed: it takes its kept length's
            // words (`enq_w_kl`, not the decision's selection of it).
            self.occ_dod.d.next = self.occ_dod.q.val() + self.admit.enq_w_kl.val();
        }
        if !self.enq_dod.val() & self.deq_dod.val() {
            self.occ_dod.d.next = self.nw_dod.add_sub.val();
        }
        // Notifies: a deflection for port p, or one from another pipeline.
        for p in 0..self.port_id.len() {
            self.notify[p].next =
                self.admit.dec_valid.val() & (self.admit.dec_code.val() == 8) & (self.admit.dec_port.val() == self.port_id[p].val());
            self.notify_out[p].next = self.notify[p].val();
            self.pmode.notify[p].next = (self.notify[p].val() | self.notify_in[p].val()) & self.meters_c.val();
            self.meter.mode[p].next = self.pmode.mode[p].val();
        }
        self.admit.limit_h.next = self.regs.rw[RW_LIMIT_H].val() & self.mask24.val();
        self.admit.limit_d.next = self.regs.rw[RW_LIMIT_D].val() & self.mask24.val();
        AxisSource::<D, K, U>::join(&mut self.admit.m, &mut self.trimmer.s);
        self.trimmer.dscp_en.next = self.regs.rw[RW_CTRL].val().get_bit(CTRL_DSCP_BIT);
        self.trimmer.dscp.next = self.regs.rw[RW_DSCP_TRIMMED].val().get_bits::<6>(0);
        AxisSource::<D, K, U>::join(&mut self.trimmer.m, &mut self.demux.s);
        self.demux.clear_drops.next = false;

        // Counters (TmRegs order): admission's, cut_pkts, OCC_DOD_WORDS.
        for c in 0..self.admit.clear.len() {
            self.admit.clear[c].next = self.regs.ro_clear[c].val();
            self.regs.ro[c].next = self.admit.counters[c].val();
        }
        self.trimmer.cut_clear.next = self.regs.ro_clear[RO_CUT_PKTS].val();
        self.regs.ro[RO_CUT_PKTS].next = self.trimmer.cut_pkts.val();
        self.regs.ro[RO_OCC_DOD_WORDS].next = self.occ_dod.q.val();

        // Ports (queues and schedulers); demux output 2p is port p's header
        // queue, 2p + 1 its data queue.
        for p in 0..self.port.len() {
            self.port[p].clock.next = self.clock.val();
            self.port[p].reset.next = self.rst_port[p].q.val();
            AxisSource::<D, K, U>::join(&mut self.demux.m[2 * p], &mut self.port[p].h);
            AxisSource::<D, K, U>::join(&mut self.demux.m[2 * p + 1], &mut self.port[p].d);
            self.port[p].drr_enable.next = self.regs.rw[RW_CTRL].val().get_bit(CTRL_DRR_BIT);
            self.port[p].strict.next = !self.regs.rw[RW_CTRL].val().get_bit(CTRL_DRR_BIT);
            self.port[p].quantum_h.next = self.regs.rw[RW_QUANTUM_H].val();
            self.port[p].quantum_d.next = self.regs.rw[RW_QUANTUM_D].val();
            AxisSource::<D, K, U>::link(&mut self.m[p], &mut self.port[p].m);
            self.occ.deq[2 * p].next = self.port[p].deq_h.val();
            self.occ.deq[2 * p + 1].next = self.port[p].deq_d.val();
            self.occ.deq_bytes[2 * p].next = self.port[p].deq_h_bytes.val();
            self.occ.deq_bytes[2 * p + 1].next = self.port[p].deq_d_bytes.val();
            // TX_TRIM_PACKETS: trimmed packets leaving the port.
            self.tx_trim[p].clock.next = self.clock.val();
            self.tx_trim[p].reset.next = self.rst_port[p].q.val();
            self.tx_trim[p].d.next = self.tx_trim[p].q.val();
            if self.m[p].tvalid.val() & self.m[p].tready.val() & self.m[p].tlast.val() & self.m[p].tuser.val().get_bit(TRIMMED_BIT) {
                self.tx_trim[p].d.next = self.tx_trim[p].q.val() + 1;
            }
            // Per port, TmRegs::PORT_REGS order (regidx).
            if self.regs.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_TX_TRIM].val() {
                self.tx_trim[p].d.next = 0.into();
            }
            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_TX_TRIM].next = self.tx_trim[p].q.val();
            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_MAX_OCC_H].next = self.hw_b[2 * p].q.val();
            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_MAX_OCC_D].next = self.hw_b[2 * p + 1].q.val();

            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_MODE].next = 0.into();
            if self.pmode.mode[p].val() == 1 {
                self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_MODE].next = 1.into();
            }
            if self.pmode.mode[p].val() == 2 {
                self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_MODE].next = 2.into();
            }
            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_GREEN].next = self.bank.green_pkts[p].val();
            self.bank.clr_green_pkts[p].next = self.regs.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_GREEN].val();
            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_NOT_GREEN].next = self.bank.not_green_pkts[p].val();
            self.bank.clr_not_green_pkts[p].next = self.regs.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_NOT_GREEN].val();
            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_CYCLES_OPT].next = self.pmode.cycles_opt[p].val();
            self.pmode.clr_cycles_opt[p].next = self.regs.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_CYCLES_OPT].val();
            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_CYCLES_HALF].next = self.pmode.cycles_half[p].val();
            self.pmode.clr_cycles_half[p].next = self.regs.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_CYCLES_HALF].val();
            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_CYCLES_PESS].next = self.pmode.cycles_pess[p].val();
            self.pmode.clr_cycles_pess[p].next = self.regs.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_CYCLES_PESS].val();
            self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_NOTIFIES].next = self.pmode.notifies[p].val();
            self.pmode.clr_notifies[p].next = self.regs.ro_clear[RO_PORT0 + RO_PER_PORT * p + P_NOTIFIES].val();
        }
        // Exact occupancy (TmOcc): reserved at admission, freed at departure.
        self.occ.clock.next = self.clock.val();
        self.occ.reset.next = self.rst_adm.q.val();
        self.occ.enq.next = self.admit.enq.val();
        self.occ.enq_q.next = self.admit.enq_q.val();
        self.occ.enq_trim.next = self.admit.enq_trim.val();
        self.occ.enq_len.next = self.admit.enq_len.val();
        self.occ.enq_kl.next = self.admit.enq_kl.val();
        self.occ.enq_w_len.next = self.admit.enq_w_len.val();
        self.occ.enq_w_kl.next = self.admit.enq_w_kl.val();
        for q in 0..self.hw_b.len() {
            self.tot_b[q].next = self.occ.occ_bytes[q].val();
            self.tot_w[q].next = self.occ.occ_words[q].val();
            if self.shared.val() {
                self.tot_b[q].next = self.occ.occ_bytes[q].val() + self.occ_ext_b[q].val();
                self.tot_w[q].next = self.occ.occ_words[q].val() + self.occ_ext_w[q].val();
            }
            self.admit.occ_bytes[q].next = self.tot_b[q].val();
            // High-water mark of the port's total.
            self.hw_b[q].clock.next = self.clock.val();
            self.hw_b[q].reset.next = self.rst_adm.q.val();
            self.hw_b[q].d.next = self.hw_b[q].q.val();
            if self.tot_b[q].val() > self.hw_b[q].q.val() {
                self.hw_b[q].d.next = self.tot_b[q].val();
            }
            // OCC_H_BYTES[p], MAX_OCC_H_BYTES[p] (q = 2p) and OCC_D_BYTES[p],
            // MAX_OCC_D_BYTES[p] (q = 2p + 1).
            self.regs.ro[RO_PORT0 + RO_PER_PORT * (q / 2) + P_OCC_H + q % 2].next = self.tot_b[q].val();
            if self.regs.ro_clear[RO_PORT0 + RO_PER_PORT * (q / 2) + P_MAX_OCC_H + q % 2].val() {
                self.hw_b[q].d.next = 0.into();
            }
            self.admit.occ_words[q].next = self.tot_w[q].val();
            self.occ_b_out[q].next = self.occ.occ_bytes[q].val();
            self.occ_w_out[q].next = self.occ.occ_words[q].val();
        }
    }
}

/// One egress port of the traffic manager: its header queue (scheduler input
/// 0) and data queue (input 1), both cut-through [`PktFifo`]s each behind a
/// register slice ([`AxisSkid`]), and the scheduler between them. A sub-block because rust-hdl cannot index a vector
/// port of a vector of blocks.
///
/// Ports: `h_*` and `d_*` the queues' inputs; `m_*` the port's output;
/// `drr_enable`, `strict`, `quantum_h`, `quantum_d` the scheduler
/// ([`AxisArbMux`]); `deq_h`/`deq_d` (one cycle) a packet of `deq_h_bytes`/
/// `deq_d_bytes` bytes left the port (its last beat was sent).
#[derive(LogicBlock)]
pub struct TmPort<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub h: AxisSink<D, K, U>,
    pub d: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub drr_enable: Signal<In, Bit>,
    pub strict: Signal<In, Bit>,
    pub quantum_h: Signal<In, Bits<32>>,
    pub quantum_d: Signal<In, Bits<32>>,
    pub deq_h: Signal<Out, Bit>,
    pub deq_d: Signal<Out, Bit>,
    pub deq_h_bytes: Signal<Out, Bits<32>>,
    pub deq_d_bytes: Signal<Out, Bits<32>>,
    hq: PktFifo<D, K, U, M, W>,
    dq: PktFifo<D, K, U, M, W>,
    /// Register slices between the queues and the scheduler: a queue's read
    /// logic sees a registered ready, not the scheduler's grant (issue 14).
    /// [`AxisSkid::muxed`]: the grant (the scheduler's `s_tready`, several
    /// levels from its state) reaches five flip-flops of each slice, not
    /// the enables of its output registers (`ts_tm`'s path on the Versa,
    /// session 56: the grant fanned out to `hq_out`'s data enables, 5.7 ns
    /// of routing).
    hq_out: AxisSkid<D, K, U>,
    dq_out: AxisSkid<D, K, U>,
    sched: AxisArbMux<D, K, U>,
    mask16: Constant<Bits<32>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> TmPort<D, K, U, M, W> {
    pub fn new(depth_h: usize, depth_d: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            h: Default::default(),
            d: Default::default(),
            m: Default::default(),
            drr_enable: Default::default(),
            strict: Default::default(),
            quantum_h: Default::default(),
            quantum_d: Default::default(),
            deq_h: Default::default(),
            deq_d: Default::default(),
            deq_h_bytes: Default::default(),
            deq_d_bytes: Default::default(),
            hq: PktFifo::new(depth_h, false),
            dq: PktFifo::new(depth_d, false),
            hq_out: AxisSkid::muxed(),
            dq_out: AxisSkid::muxed(),
            sched: AxisArbMux::new(2),
            mask16: Constant::new(0xffffu64.to_bits()),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for TmPort<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.hq.clock.next = self.clock.val();
        self.hq.reset.next = self.reset.val();
        self.dq.clock.next = self.clock.val();
        self.dq.reset.next = self.reset.val();
        self.sched.clock.next = self.clock.val();
        self.sched.reset.next = self.reset.val();
        self.hq_out.clock.next = self.clock.val();
        self.hq_out.reset.next = self.reset.val();
        self.dq_out.clock.next = self.clock.val();
        self.dq_out.reset.next = self.reset.val();
        AxisSink::<D, K, U>::link(&mut self.h, &mut self.hq.s);
        self.hq.s_abort.next = false;
        self.hq.clear_drops.next = false;
        AxisSink::<D, K, U>::link(&mut self.d, &mut self.dq.s);
        self.dq.s_abort.next = false;
        self.dq.clear_drops.next = false;
        self.sched.drr_enable.next = self.drr_enable.val();
        self.sched.strict.next = self.strict.val();
        self.sched.quantum[0].next = self.quantum_h.val();
        self.sched.quantum[1].next = self.quantum_d.val();
        AxisSource::<D, K, U>::join(&mut self.hq.m, &mut self.hq_out.s);
        AxisSource::<D, K, U>::join(&mut self.dq.m, &mut self.dq_out.s);
        AxisSource::<D, K, U>::join(&mut self.hq_out.m, &mut self.sched.s[0]);
        AxisSource::<D, K, U>::join(&mut self.dq_out.m, &mut self.sched.s[1]);
        // The beats' byte counts from the slices' registers (issue 14).
        self.sched.s_bytes[0].next = self.hq_out.m_bytes.val();
        self.sched.s_bytes[1].next = self.dq_out.m_bytes.val();
        AxisSource::<D, K, U>::link(&mut self.m, &mut self.sched.m);
        // A packet leaves at its last beat out of the port (so the scheduler's
        // output register counts as queue: occupancy is what the port still
        // has to send); its queue is bit 0 of the queue index, its bytes
        // tuser.length.
        self.deq_h.next = self.m.tvalid.val() & self.m.tready.val() & self.m.tlast.val() & !self.m.tuser.val().get_bit(QUEUE_LSB);
        self.deq_d.next = self.m.tvalid.val() & self.m.tready.val() & self.m.tlast.val() & self.m.tuser.val().get_bit(QUEUE_LSB);
        self.deq_h_bytes.next = self.m.tuser.val().get_bits::<32>(LENGTH_LSB) & self.mask16.val();
        self.deq_d_bytes.next = self.deq_h_bytes.val();
    }
}

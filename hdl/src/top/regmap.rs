//! The switch's one AXI4-Lite register map, as data: every register of every
//! window with its address, access, reset value and meaning. `trimswitch regs`
//! writes it as Markdown, a C header and a Python module (as NetFPGA publishes
//! its register maps); the test harness configures the switch through it.
//!
//! The map is built from the blocks' own register descriptions
//! ([`IngressRegs`], [`TmRegs`]), so it cannot drift from the hardware:
//! `tests/switch/switch.rs` reads every read/write register's reset value through
//! `ts_switch` and checks that writes read back.
//!
//! Layout ([`SwitchMap`]): 16 KiB windows. Window `n` (`n` < `pipelines`) is
//! ingress pipeline `n` ([`IngressRegs`]); window `pipelines + n` is pipeline
//! `n`'s traffic manager ([`TmRegs`]: its meters, admission, trimmer, DoD FIFO
//! and counters; the queues' limits apply to each port's total over all
//! pipelines, so a host writes the same limits into every one); window
//! `2 * pipelines` is PL2 ([`Pl2Regs`]). With Protego (`[protego] ports`),
//! window `2 * pipelines + 1` holds 256 bytes per switch port: a Protego
//! port's are its [`PortRegs`] (window `protego<p>`); any other port's read
//! 0 at offset 0 (`CTRL`: off) and are not in the map. An address inside a
//! window but past its last register answers DECERR.
use crate::config::Config;
use crate::ingress::IngressRegs;
use crate::pl2::alu::Pl2Alu;
use crate::pl2::block::Pl2Regs;
use crate::protego::port::{PortRegs, PORT_REG_BITS};
use crate::tm::TmRegs;

/// Address bits of the switch's AXI4-Lite port (256 KiB: up to 16 windows).
pub const SWITCH_ADDR_BITS: usize = 18;
/// Address bits of one window (16 KiB).
pub const SWITCH_WINDOW_BITS: usize = 14;

/// How the host may use a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read/write, reset to [`Reg::reset`].
    Rw,
    /// Read only, a gauge (a write is accepted and ignored).
    Ro,
    /// Read only, a counter: 32 bits, wraps; a write clears it.
    Rc,
    /// Hardware state: a read gives its current value, a write sets it
    /// (PL2's `IN_RES[p]`, `OUT_RES[p]`, `SLOT_NOW`).
    State,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Rw => "rw",
            Access::Ro => "ro",
            Access::Rc => "rc",
            Access::State => "rws",
        }
    }
}

/// One register, or an array of `count` registers `stride` bytes apart
/// (table entries, per-port counters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reg {
    /// Upper-case identifier, unique in its window (`CTRL`, `RX_PKTS`).
    pub name: String,
    /// Byte offset of element 0 from the window base.
    pub offset: u32,
    /// Elements (1 for a plain register).
    pub count: usize,
    /// Bytes between elements (0 when `count` is 1).
    pub stride: u32,
    pub access: Access,
    /// Reset value of each element (read/write registers; 0 otherwise).
    pub reset: Vec<u32>,
    /// What the bits mean.
    pub doc: String,
}

impl Reg {
    fn one(name: &str, offset: u32, access: Access, reset: u32, doc: &str) -> Self {
        Reg { name: name.into(), offset, count: 1, stride: 0, access, reset: vec![reset], doc: doc.into() }
    }
    fn array(name: &str, offset: u32, count: usize, stride: u32, access: Access, reset: Vec<u32>, doc: &str) -> Self {
        assert_eq!(reset.len(), count, "{name}: one reset value per element");
        Reg { name: name.into(), offset, count, stride, access, reset, doc: doc.into() }
    }
    /// Byte offset of element `i`.
    pub fn at(&self, i: usize) -> u32 {
        assert!(i < self.count, "{}: element {i} of {}", self.name, self.count);
        self.offset + self.stride * i as u32
    }
}

/// One window of the map.
#[derive(Clone, Debug)]
pub struct Window {
    /// Lower-case identifier (`ingress0`, `tm`).
    pub name: String,
    /// Byte address of the window.
    pub base: u32,
    /// Bytes the window spans from `base` (16 KiB for a block; 256 for a
    /// Protego port, whose windows share one 16 KiB window).
    pub span: u32,
    pub doc: String,
    pub regs: Vec<Reg>,
}

impl Window {
    /// The register called `name`.
    pub fn reg(&self, name: &str) -> Option<&Reg> {
        self.regs.iter().find(|r| r.name == name)
    }
    /// Absolute address of element `i` of register `name`; panics on a name
    /// the window does not have (a harness bug, not a run-time condition).
    pub fn addr(&self, name: &str, i: usize) -> u32 {
        let r = self.reg(name).unwrap_or_else(|| panic!("window {} has no register {name}", self.name));
        self.base + r.at(i)
    }
}

/// The register map of the switch `cfg` describes.
#[derive(Clone, Debug)]
pub struct SwitchMap {
    pub target: String,
    pub config_hash: String,
    /// Byte-address bits: [`SWITCH_ADDR_BITS`], one more on a board with
    /// its window ([`SwitchMap::with_board`]).
    pub addr_bits: usize,
    pub windows: Vec<Window>,
}

fn upper(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// Ingress pipeline registers, offsets within the pipeline's window.
pub fn ingress_regs(cfg: &Config) -> Vec<Reg> {
    use Access::*;
    let ports = cfg.datapath.ports / cfg.datapath.pipelines;
    let ir = IngressRegs { ports };
    let g = &cfg.ingress;
    let ctl = IngressRegs::ctl_reset(cfg);
    let t = IngressRegs::table_reset(cfg);
    // Word `w` of every row of a table.
    let col = |t: &[u32], w: usize| t.iter().skip(w).step_by(2).copied().collect::<Vec<u32>>();
    let mut v = vec![
        Reg::one("CTRL", IngressRegs::CTRL, Rw, ctl[0], "bit 0 strip the FCS; bit 1 drop malformed packets (else forward them untouched, never trimmed)"),
        Reg::one("FRAME", IngressRegs::FRAME, Rw, ctl[1], "frame limits with FCS, bytes: minimum [15:0], maximum [31:16]; shorter or longer frames are dropped and counted"),
        Reg::one("MISS_PORT", IngressRegs::MISS_PORT, Rw, ctl[2], "egress port of lookup misses [7:0]; a port number the switch does not have drops and counts them"),
        Reg::one("ROUTER_MAC_LO", IngressRegs::ROUTER_MAC_LO, Rw, ctl[3], "the router's MAC, bits 31:0: IPv4 packets to it are routed, and routed packets leave this pipeline's ports with it as source MAC (egress rewrite)"),
        Reg::one("ROUTER_MAC_HI", IngressRegs::ROUTER_MAC_HI, Rw, ctl[4], "the router's MAC, bits 47:32 in [15:0]"),
        Reg::one("DSCP", IngressRegs::DSCP, Rw, ctl[5], "DSCP codepoints: TRIMMABLE [5:0] (enable bit 7), TRIMMED [13:8] (enable 15), CONTROL [21:16] (enable 23)"),
        Reg::one("TC", IngressRegs::TC, Rw, ctl[6], "traffic class of PCP p in bits 3p+2:3p; untagged packets' class in [26:24]"),
        Reg::one("ARB_POLICY", IngressRegs::ARB_POLICY, Rw, ctl[7], "input arbiter: bit 0 byte DRR (else round robin)"),
        Reg::array("ARB_QUANTUM", ir.arb_quantum(0), ir.arb_inputs(), 4, Rw, ctl[8..].to_vec(), "DRR quantum of local input port p, bytes [15:0]"),
        Reg::array("ROUTE_W0", ir.route(0), g.lpm_entries, 8, Rw, col(&t[0], 0), "route i: IPv4 prefix (any order: the longest match wins, ties to the lowest i); reset: `[[ingress.route]]`"),
        Reg::array("ROUTE_W1", ir.route(0) + 4, g.lpm_entries, 8, Rw, col(&t[0], 1), "route i: prefix length [5:0], valid [7], egress port [15:8], next hop [23:16]"),
        Reg::array("L2_W0", ir.l2(0), g.l2_entries, 8, Rw, col(&t[1], 0), "L2 entry i: MAC bits 31:0; reset: `[[ingress.l2]]`"),
        Reg::array("L2_W1", ir.l2(0) + 4, g.l2_entries, 8, Rw, col(&t[1], 1), "L2 entry i: MAC bits 47:32 [15:0], egress port [23:16], valid [31]"),
        Reg::array("NEXTHOP_W0", ir.nexthop(0), g.nexthops, 8, Rw, col(&t[2], 0), "next hop i: destination MAC bits 31:0; reset: `ingress.nexthop_mac`"),
        Reg::array("NEXTHOP_W1", ir.nexthop(0) + 4, g.nexthops, 8, Rw, col(&t[2], 1), "next hop i: destination MAC bits 47:32 [15:0]"),
        Reg::one("SCRATCH", IngressRegs::SCRATCH, Rw, 0, "scratch register for host bus checks"),
    ];
    for n in IngressRegs::COUNTERS {
        v.push(Reg::one(&upper(n), ir.counter(n).expect("listed"), Rc, 0, &format!("pipeline counter `{n}` (docs/ingress.md)")));
    }
    {
        let stride = 4 * (IngressRegs::PORT_COUNTERS.len() + IngressRegs::PORT_GAUGES.len()) as u32;
        for n in IngressRegs::PORT_COUNTERS {
            v.push(Reg::array(
                &upper(n),
                ir.port_counter(0, n).expect("listed"),
                ports,
                stride,
                Rc,
                vec![0; ports],
                &format!("local port p's counter `{n}` (switch port = pipeline * {ports} + p)"),
            ));
        }
        for n in IngressRegs::PORT_GAUGES {
            v.push(Reg::array(
                &upper(n),
                ir.port_counter(0, n).expect("listed"),
                ports,
                stride,
                Ro,
                vec![0; ports],
                &format!("local port p's receive FIFO gauge `{n}`"),
            ));
        }
    }
    v
}

/// Traffic manager registers, offsets within its window.
pub fn tm_regs(cfg: &Config) -> Vec<Reg> {
    use Access::*;
    let ports = cfg.datapath.ports;
    let tr = TmRegs { ports };
    let rw = TmRegs::rw_reset(cfg);
    let docs: [(&str, u32, &str); TmRegs::N_RW] = [
        ("CTRL", TmRegs::CTRL, "bit 0 return to sender; bit 1 DRR scheduler (else strict header > data); bit 2 rewrite DSCP TRIMMABLE -> TRIMMED; bit 3 meter mode (else ideal; stored but without effect where `tm.meters = false`)"),
        ("LIMIT_H", TmRegs::LIMIT_H, "header queue limit per port, bytes [23:0]"),
        ("LIMIT_D", TmRegs::LIMIT_D, "data queue limit per port, bytes [23:0]"),
        ("TRIM_LEN", TmRegs::TRIM_LEN, "bytes kept by a trim: NDP [7:0], IPv4 [15:8], IPv6 [23:16] (1..=128)"),
        ("DSCP_TRIMMED", TmRegs::DSCP_TRIMMED, "DSCP written into trimmed non-NDP packets [5:0]"),
        ("QUANTUM_H", TmRegs::QUANTUM_H, "DRR quantum of the header queue, bytes [15:0] (1..=65535)"),
        ("QUANTUM_D", TmRegs::QUANTUM_D, "DRR quantum of the data queue, bytes [15:0] (1..=65535)"),
        ("RATE_OPT", TmRegs::RATE_OPT, "optimistic meter refill per cycle, 16.16 bytes (line rate, wire bytes)"),
        ("RATE_HALF", TmRegs::RATE_HALF, "halftimistic meter refill per cycle, 16.16 bytes"),
        ("RATE_PESS", TmRegs::RATE_PESS, "pessimistic meter refill per cycle, 16.16 bytes"),
        ("BURST_OPT", TmRegs::BURST_OPT, "optimistic meter bucket, bytes [23:0]"),
        ("BURST_HALF", TmRegs::BURST_HALF, "halftimistic meter bucket, bytes [23:0]"),
        ("BURST_PESS", TmRegs::BURST_PESS, "pessimistic meter bucket, bytes [23:0]"),
        ("T0", TmRegs::T0, "time in pessimistic mode after a notify, cycles (ndp.p4 T0)"),
        ("T1", TmRegs::T1, "time in halftimistic mode after T0, cycles (ndp.p4 T1)"),
    ];
    let mut v: Vec<Reg> = docs.iter().zip(&rw).map(|((n, a, d), r)| Reg::one(n, *a, Rw, *r, d)).collect();
    for n in TmRegs::COUNTERS {
        v.push(Reg::one(&upper(n), tr.counter(n).expect("listed"), Rc, 0, &format!("counter `{n}` (docs/trimming.md)")));
    }
    v.push(Reg::one("OCC_DOD_WORDS", TmRegs::OCC_DOD_WORDS, Ro, 0, "words reserved in the deflect-on-drop FIFO"));
    let stride = 4 * TmRegs::PORT_REGS.len() as u32;
    for n in TmRegs::PORT_REGS {
        let access = match n {
            "occ_h_bytes" | "occ_d_bytes" | "mode" => Ro,
            _ => Rc,
        };
        let doc = match n {
            "mode" => "egress port p's meter mode: 0 optimistic, 1 halftimistic, 2 pessimistic".to_string(),
            "occ_h_bytes" | "occ_d_bytes" => format!("egress port p's queue occupancy `{n}`, bytes: the port's total over all pipelines"),
            "max_occ_h_bytes" | "max_occ_d_bytes" => format!("egress port p's queue high-water mark `{n}`, bytes, the port's total over all pipelines, exact to the cycle (write clears)"),
            _ => format!("egress port p's counter `{n}`"),
        };
        v.push(Reg::array(&upper(n), tr.port_reg(0, n).expect("listed"), ports, stride, access, vec![0; ports], &doc));
    }
    v
}

/// PL2 registers ([`Pl2Regs`], `docs/pl2.md`), offsets within its window.
pub fn pl2_regs(cfg: &Config) -> Vec<Reg> {
    use Access::*;
    let ports = cfg.datapath.ports;
    let r = Pl2Regs { ports };
    let rw = Pl2Regs::rw_reset(cfg);
    let docs: [(&str, u32, &str); Pl2Regs::N_RW] = [
        ("CTRL", Pl2Regs::CTRL, "bit 0 PL2 on (RSVs become GRTs, data packets give slots back); bit 1 joint mode (else paper mode; a change clears IN_RES/OUT_RES); bit 2 the slot clock runs"),
        ("K", Pl2Regs::K, "most slots one RSV reserves [7:0], 1..=255; larger demands are clamped (003 §4.3)"),
        ("T", Pl2Regs::T, "unsolicited packets are dropped when more than T slots are reserved ahead of them (003 §4.4), below 2^31"),
        ("SLOT_CYCLES", Pl2Regs::SLOT_CYCLES, "cycles per timeslot, 16.16 fixed point, 1.0 to below 16384.0 (one MTU at line rate, 003 §4.1)"),
        ("PORT_EN_LO", Pl2Regs::PORT_EN_LO, "bit p: PL2 on at port p (ports 0..31)"),
        ("PORT_EN_HI", Pl2Regs::PORT_EN_HI, "bit p: PL2 on at port 32 + p"),
        ("UNSOL", Pl2Regs::UNSOL, "the marks of an unsolicited packet (A.4): IP DSCP [5:0] (on: bit 6); tagged non-IP PCP [10:8] (on: bit 11)"),
    ];
    let mut v: Vec<Reg> = docs.iter().zip(&rw).map(|((n, a, d), x)| Reg::one(n, *a, Rw, *x, d)).collect();
    v.push(Reg::one("SLOT_NOW", Pl2Regs::SLOT_NOW, State, 0, "the slot clock (joint mode's `now`); a write sets it (a test hook, A.5)"));
    v.push(Reg::array("IN_RES", r.in_res(0), ports, 4, State, vec![0; ports], "port p's inReservation: paper mode the slots reserved, joint mode the last slot reserved; a write sets it (a failed host's slots are removed from outside, 003 §4.5)"));
    v.push(Reg::array("OUT_RES", r.out_res(0), ports, 4, State, vec![0; ports], "port p's outReservation, as IN_RES"));
    v.push(Reg::array(
        "IN_HW",
        r.in_hw(0),
        ports,
        4,
        Rc,
        vec![0; ports],
        "high-water mark of port p's reservation ahead (slots); a write to any IN_HW or OUT_HW clears them all",
    ));
    v.push(Reg::array("OUT_HW", r.out_hw(0), ports, 4, Rc, vec![0; ports], "high-water mark of port p's outReservation ahead, as IN_HW"));
    v.push(Reg::array(
        "GRT_LAT_MIN",
        r.grt_lat_min(0),
        ports,
        4,
        Rc,
        vec![0xFFFF; ports],
        "the fewest cycles from an RSV's first beat into port p to its GRT's first beat out of port p (the whole switch, modulo 2^16); 0xFFFF until a GRT left; a write to any GRT_LAT_MIN or GRT_LAT_MAX clears them all",
    ));
    v.push(Reg::array(
        "GRT_LAT_MAX",
        r.grt_lat_max(0),
        ports,
        4,
        Rc,
        vec![0; ports],
        "the most such cycles at port p, as GRT_LAT_MIN (0 until a GRT left)",
    ));
    for n in Pl2Alu::COUNTERS {
        v.push(Reg::one(&upper(n), r.counter(n).expect("listed"), Rc, 0, &format!("PL2 counter `{n}` (docs/pl2.md)")));
    }
    v.push(Reg::one(
        "HOLD_CYCLES",
        r.hold_cycles(),
        Rc,
        0,
        "cycles in which the cross-pipeline hold kept an RSV or UNSOL from the ALU: another pipeline's, ranked above it, asked for the same out[d] (A.2; always 0 with one pipeline)",
    ));
    v
}

/// A Protego port's registers ([`PortRegs`], `docs/protego.md` "The
/// port"), offsets within its 256-byte window. The read-only ones are
/// `ro`: counters wrap and are not cleared by a write.
pub fn protego_regs(cfg: &Config) -> Vec<Reg> {
    use Access::*;
    let rw = PortRegs::rw_reset(cfg);
    let docs: [(&str, u32, &str); PortRegs::N_RW] = [
        ("CTRL", PortRegs::CTRL, "bit 0 sender side on (tag, ring, retransmit), bit 1 receiver side on (detect, reorder, LOSS/ACK/PFC), bit 2 ProtegoNB (else ordered, Alg. 1), bit 3 tag_drop (receiver off: a tagged frame dropped, else forwarded untagged; counted either way)"),
        ("COPIES", PortRegs::COPIES, "RETX copies per requested frame [1:0] (Eq. 1)"),
        ("ACKNO_TIMEOUT", PortRegs::ACKNO_TIMEOUT, "ackNoTimeout in cycles (004 §3.5): a hole older than this is skipped and counted"),
        ("BUF_BYTES", PortRegs::BUF_BYTES, "reordering buffer bytes [23:0] (a frame that does not fit is dropped and counted)"),
        ("PAUSE_B", PortRegs::PAUSE_B, "PFC pause above these buffered bytes [23:0] (Alg. 2)"),
        ("RESUME_B", PortRegs::RESUME_B, "PFC resume at or below these buffered bytes [23:0]"),
        ("PFC_CLASS", PortRegs::PFC_CLASS, "the PFC class Protego pauses and obeys [2:0]"),
        ("DUMMY_MAX", PortRegs::DUMMY_MAX, "dummies after each DATA while the normal queue is empty [7:0] (0: no limit)"),
        ("MAX_HOLE", PortRegs::MAX_HOLE, "the largest hole one LOSS requests [7:0]; a larger one ends in timeouts"),
        ("RING_BYTES", PortRegs::RING_BYTES, "the sender's ring budget in bytes [23:0] (a normal frame waits while it does not fit)"),
        ("MAC_LO", PortRegs::MAC_LO, "the port's MAC [31:0] (source of its control frames)"),
        ("MAC_HI", PortRegs::MAC_HI, "the port's MAC [47:32]"),
        ("ACK_EVERY", PortRegs::ACK_EVERY, "with both sides on, normal frames after which a pending explicit ACK goes first [7:0] (0: never; decision 15)"),
    ];
    let mut v: Vec<Reg> = docs.iter().zip(&rw).map(|((n, a, d), x)| Reg::one(n, *a, Rw, *x, d)).collect();
    for (n, d) in PortRegs::RO.iter().zip(PortRegs::RO_DOC) {
        v.push(Reg::one(&upper(n), PortRegs::ro(n).expect("listed"), Ro, 0, d));
    }
    v
}

impl SwitchMap {
    /// The map of `cfg`'s switch.
    pub fn new(cfg: &Config) -> Self {
        let pipes = cfg.datapath.pipelines;
        let win = 1u32 << SWITCH_WINDOW_BITS;
        let mut windows: Vec<Window> = (0..pipes)
            .map(|n| {
                let per = cfg.datapath.ports / pipes;
                Window {
                    name: format!("ingress{n}"),
                    base: n as u32 * win,
                    span: win,
                    doc: format!("ingress pipeline {n}: switch ports {}..{}", n * per, (n + 1) * per - 1),
                    regs: ingress_regs(cfg),
                }
            })
            .collect();
        for n in 0..pipes {
            windows.push(Window {
                name: format!("tm{n}"),
                base: (pipes + n) as u32 * win,
                span: win,
                doc: format!("traffic manager of pipeline {n}: meters, admission, trimmer, its queues of every port, scheduler"),
                regs: tm_regs(cfg),
            });
        }
        windows.push(Window {
            name: "pl2".into(),
            base: (2 * pipes) as u32 * win,
            doc: "PL2 (seed 003, docs/pl2.md): the timeslot reservation ALU every pipeline asks, its state and counters".into(),
            span: win,
            regs: pl2_regs(cfg),
        });
        let pg = (2 * pipes + 1) as u32 * win;
        for p in &cfg.protego.ports {
            windows.push(Window {
                name: format!("protego{p}"),
                base: pg + (p << PORT_REG_BITS),
                span: 1 << PORT_REG_BITS,
                doc: format!(
                    "Protego (seed 004, docs/protego.md) on switch port {p}: both sides' registers, counters and high-water marks"
                ),
                regs: protego_regs(cfg),
            });
        }
        SwitchMap { target: cfg.target.name.clone(), config_hash: cfg.hash(), addr_bits: SWITCH_ADDR_BITS, windows }
    }

    /// The map as a board core decodes it (`crate::board::mac_stats`): the
    /// switch's map, and the board window `board` above it at
    /// `2^SWITCH_ADDR_BITS`: the controls (read/write, reset 0), the words
    /// that are not per port, then each of `ports` ports' words (word `n p +
    /// i` of those for word `i` of port `p`, `n` per port); the words are
    /// read only, 32 bits, wrapping, a few cycles late.
    /// A board whose host cannot reach the switch's map (`switch_map` false)
    /// has the board window only.
    pub fn with_board(mut self, board: &str, w: &crate::board::mac_stats::BoardWindow, ports: usize) -> Self {
        if !w.switch_map {
            self.windows.clear();
        }
        let (nc, ng, n) = (w.controls.len() as u32, w.globals.len() as u32, w.per_port.len() as u32);
        let mut regs: Vec<Reg> =
            w.controls.iter().enumerate().map(|(i, (name, doc))| Reg::one(&upper(name), 4 * i as u32, Access::Rw, 0, doc)).collect();
        for (j, (name, doc)) in w.globals.iter().enumerate() {
            regs.push(Reg::one(
                &upper(name),
                4 * (nc + j as u32),
                Access::Ro,
                0,
                &format!("{doc} (read a few cycles late; not cleared by a write)"),
            ));
        }
        for (i, (name, doc)) in w.per_port.iter().enumerate() {
            regs.push(Reg::array(
                &upper(name),
                4 * (nc + ng + i as u32),
                ports,
                4 * n,
                Access::Ro,
                vec![0; ports],
                &format!("port p's {doc} (32 bits, wraps; read a few cycles late; not cleared by a write)"),
            ));
        }
        self.windows.push(Window {
            name: "board".into(),
            base: 1 << SWITCH_ADDR_BITS,
            span: 1 << SWITCH_ADDR_BITS,
            doc: format!("the {board} board's window: its controls and counters (docs/boards.md, \"The board window\")"),
            regs,
        });
        self.addr_bits = SWITCH_ADDR_BITS + 1;
        self
    }

    /// The window called `name`.
    pub fn window(&self, name: &str) -> &Window {
        self.windows.iter().find(|w| w.name == name).unwrap_or_else(|| panic!("no window {name}"))
    }

    /// Every element of every register: (window, register, element, absolute
    /// address).
    pub fn elements(&self) -> impl Iterator<Item = (&Window, &Reg, usize, u32)> {
        self.windows.iter().flat_map(|w| w.regs.iter().flat_map(move |r| (0..r.count).map(move |i| (w, r, i, w.base + r.at(i)))))
    }

    /// The first byte past the last 16 KiB window any window lies in
    /// (everything from there answers DECERR).
    pub fn end(&self) -> u32 {
        let win = 1u32 << SWITCH_WINDOW_BITS;
        self.windows.iter().map(|w| (w.base / win + 1) * win).max().unwrap_or(0)
    }

    /// Checks the map is consistent: addresses word aligned, inside their
    /// window, no two elements at one address.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = std::collections::BTreeMap::new();
        for (w, r, i, a) in self.elements() {
            if a % 4 != 0 || a < w.base || a >= w.base + w.span {
                return Err(format!("{}.{}[{i}] at {a:#x} is outside its window or unaligned", w.name, r.name));
            }
            if let Some(prev) = seen.insert(a, format!("{}.{}[{i}]", w.name, r.name)) {
                return Err(format!("{}.{}[{i}] and {prev} share address {a:#x}", w.name, r.name));
            }
        }
        if self.end() > 1 << self.addr_bits {
            return Err(format!("the windows end at {:#x}, past {} address bits", self.end(), self.addr_bits));
        }
        Ok(())
    }

    /// The map as Markdown: one table per window.
    pub fn markdown(&self) -> String {
        let mut s = format!(
            "# trimswitch register map: {}\n\nGenerated by `trimswitch regs` from configuration hash `{}`. AXI4-Lite, 32-bit registers, {}-bit byte addresses, one {} KiB window per block (a Protego port: 256 bytes of a window they share). Access: `rw` read/write (reset value shown), `ro` read only, `rc` counter (32 bits, wraps, a write clears it; a minimum or maximum returns to its reset value), `rws` hardware state (a read gives its current value, a write sets it). An array `NAME[i]` has its element `i` at `offset + i * stride`. Unmapped addresses answer DECERR.\n",
            self.target,
            self.config_hash,
            self.addr_bits,
            1 << (SWITCH_WINDOW_BITS - 10)
        );
        for w in &self.windows {
            s += &format!("\n## `{}` at {:#07x}\n\n{}\n\n| address | name | elements | stride | access | reset | meaning |\n|---|---|---:|---:|---|---|---|\n", w.name, w.base, w.doc);
            for r in &w.regs {
                let reset = if r.access != Access::Rw && r.reset.iter().all(|x| *x == 0) {
                    "–".to_string()
                } else if r.reset.iter().all(|x| *x == r.reset[0]) {
                    format!("{:#x}", r.reset[0])
                } else {
                    r.reset.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>().join(", ")
                };
                let stride = if r.count > 1 { format!("{:#x}", r.stride) } else { "–".into() };
                s += &format!(
                    "| {:#07x} | `{}` | {} | {} | {} | {} | {} |\n",
                    w.base + r.offset,
                    r.name,
                    r.count,
                    stride,
                    r.access.as_str(),
                    reset,
                    r.doc
                );
            }
        }
        s
    }

    /// The map as a C header: `TS_<WINDOW>_<REG>` addresses, and for arrays
    /// a `TS_<WINDOW>_<REG>(i)` macro plus `_COUNT` and `_STRIDE`.
    pub fn c_header(&self) -> String {
        let guard = format!("TRIMSWITCH_REGS_{}_H", self.target.to_ascii_uppercase().replace(['-', '.'], "_"));
        let mut s = format!("/* trimswitch register map: {} (configuration hash {}).\n * Generated by `trimswitch regs`; do not edit. */\n#ifndef {guard}\n#define {guard}\n\n#define TS_ADDR_BITS {}u\n#define TS_WINDOW_BITS {SWITCH_WINDOW_BITS}u\n", self.target, self.config_hash, self.addr_bits);
        for w in &self.windows {
            let p = format!("TS_{}", w.name.to_ascii_uppercase());
            s += &format!("\n/* {}: {} */\n#define {p}_BASE 0x{:05x}u\n", w.name, w.doc, w.base);
            for r in &w.regs {
                let n = format!("{p}_{}", r.name);
                if r.count == 1 {
                    s += &format!("#define {n} 0x{:05x}u /* {}{} */\n", w.base + r.offset, r.access.as_str(), reset_note(r));
                } else {
                    s += &format!(
                        "#define {n}(i) (0x{:05x}u + (i) * 0x{:x}u) /* {} */\n#define {n}_COUNT {}u\n#define {n}_STRIDE 0x{:x}u\n",
                        w.base + r.offset,
                        r.stride,
                        r.access.as_str(),
                        r.count,
                        r.stride
                    );
                }
                if r.access == Access::Rw && r.count == 1 {
                    s += &format!("#define {n}_RESET 0x{:08x}u\n", r.reset[0]);
                }
            }
        }
        s += &format!("\n#endif /* {guard} */\n");
        s
    }

    /// The map as a Python module: `<WINDOW>_<REG>` addresses, arrays as
    /// functions of the element, and `REGS`, a list of every register.
    pub fn python(&self) -> String {
        let mut s = format!("\"\"\"trimswitch register map: {} (configuration hash {}).\n\nGenerated by `trimswitch regs`; do not edit.\n\"\"\"\n\nADDR_BITS = {}\nWINDOW_BITS = {SWITCH_WINDOW_BITS}\nTARGET = {:?}\nCONFIG_HASH = {:?}\n", self.target, self.config_hash, self.addr_bits, self.target, self.config_hash);
        let mut all = vec![];
        for w in &self.windows {
            let p = w.name.to_ascii_uppercase();
            s += &format!("\n# {}: {}\n{p}_BASE = 0x{:05x}\n", w.name, w.doc, w.base);
            for r in &w.regs {
                let n = format!("{p}_{}", r.name);
                if r.count == 1 {
                    s += &format!("{n} = 0x{:05x}\n", w.base + r.offset);
                } else {
                    s += &format!("{n}_COUNT = {}\n{n}_STRIDE = 0x{:x}\n\n\ndef {n}(i):\n    \"\"\"Address of element i of {n} (0 <= i < {}).\"\"\"\n    if not 0 <= i < {n}_COUNT:\n        raise IndexError(\"{n}: element %d of {}\" % i)\n    return 0x{:05x} + i * 0x{:x}\n\n\n", r.count, r.stride, r.count, r.count, w.base + r.offset, r.stride);
                }
                all.push(format!(
                    "    ({:?}, {:?}, 0x{:05x}, {}, 0x{:x}, {:?}, [{}]),\n",
                    w.name,
                    r.name,
                    w.base + r.offset,
                    r.count,
                    r.stride,
                    r.access.as_str(),
                    r.reset.iter().map(|x| format!("0x{x:x}")).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        s += "\n# (window, name, address of element 0, elements, stride, access, reset values)\nREGS = [\n";
        for a in all {
            s += &a;
        }
        s += "]\n";
        s
    }
}

fn reset_note(r: &Reg) -> String {
    if r.access == Access::Rw {
        format!(", reset 0x{:x}", r.reset[0])
    } else {
        String::new()
    }
}

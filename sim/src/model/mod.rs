//! Golden software model of the ingress pipeline (`docs/ingress.md`): per-port
//! [`rx_fcs()`], then per pipeline [`parse()`], [`classify()`] and
//! [`lookup()`], with every counter of the spec. The RTL (`hdl/src/{rx_fcs,parser,classify,lookup,ingress}.rs`)
//! is held to it packet by packet (bytes and `tuser`) and counter by counter.
//!
//! - [`Settings`]: run-time register values and table contents;
//! - [`IngressModel`]: the whole pipeline with its counters; [`run_model`] feeds
//!   it many ports' frames;
//! - [`gen`]: seeded frame generators and the malformed-frame corpus.
//!
//! What the model does not model: timing, the input arbiter's interleaving
//! (outputs are only ordered per source port) and FIFO overflow (the model's
//! receive FIFO is unbounded, see the [`rx_fcs`](mod@rx_fcs) module).
pub mod classify;
pub mod gen;
pub mod lookup;
pub mod lossy;
pub mod meter;
pub mod parser;
pub mod pl2;
pub mod pl2_host;
pub mod pl2_ingress;
pub mod protego;
pub mod protego_link;
pub mod rx_fcs;
pub mod switch;
pub mod tm;

pub use classify::{classify, Class};
pub use lookup::{lookup, Lookup, Path, Route, L2};
pub use parser::parse;
pub use rx_fcs::{rx_fcs, rx_fcs_flagged, RxDrop};

use std::collections::BTreeMap;
use trimswitch_hdl::config::{parse_mac, parse_prefix, Config};
use trimswitch_hdl::ingress::phv::{malformed, Phv};
use trimswitch_hdl::ingress::IngressRegs;
use trimswitch_hdl::meta::{l3kind, Meta};

/// The 48 bits of a MAC address held in a `u64`.
pub const MAC_MASK: u64 = (1 << 48) - 1;

/// Counter values by name: `"port{p}.{name}"` for the per-port `rx_fcs`
/// counters ([`PORT_COUNTERS`]) and `"pipe{i}.{name}"` for the per-pipeline ones
/// ([`pipe_counter_names`]), as listed in `docs/ingress.md`.
pub type Counters = BTreeMap<String, u64>;

/// The per-port counters of `rx_fcs` (`docs/ingress.md`, "rx_fcs"): the same
/// list the hardware's register map reads them in.
pub const PORT_COUNTERS: [&str; 7] = IngressRegs::PORT_COUNTERS;

/// The per-pipeline counters (`docs/ingress.md`, "parser", "classify",
/// "lookup"), in register-map order ([`IngressRegs::COUNTERS`]).
pub fn pipe_counter_names() -> Vec<String> {
    IngressRegs::COUNTERS.iter().map(|n| n.to_string()).collect()
}

/// Every counter of a `ports`-port, `pipelines`-pipeline switch, all zero.
pub fn zero_counters(ports: usize, pipelines: usize) -> Counters {
    let mut c = Counters::new();
    for p in 0..ports {
        for n in PORT_COUNTERS {
            c.insert(format!("port{p}.{n}"), 0);
        }
    }
    for i in 0..pipelines {
        for n in pipe_counter_names() {
            c.insert(format!("pipe{i}.{n}"), 0);
        }
    }
    c
}

/// The run-time registers and table contents of the ingress pipeline
/// (`docs/ingress.md`; keys and reset values in `[ingress]` of `configs/*.toml`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Number of ports (`datapath.ports`): `dest_port >= ports` drops.
    pub ports: usize,
    /// Frames shorter than this (FCS included) are runts.
    pub min_frame: u16,
    /// Frames longer than this (FCS included) are oversize.
    pub max_frame: u16,
    /// Remove the 4-byte FCS from good frames.
    pub strip_fcs: bool,
    /// `ingress.fcs = "mac"` (build time): frames arrive without FCS, the
    /// MAC's flag is the FCS verdict ([`rx_fcs_flagged`]).
    pub mac_fcs: bool,
    /// Drop malformed packets (else forward them untouched, `tuser.malformed` set).
    pub malformed_drop: bool,
    /// Egress port of lookup misses (255 drops).
    pub miss_port: u8,
    /// The router MAC (48 bits, first byte on the wire in bits 47:40).
    pub router_mac: u64,
    /// DSCP codepoint TRIMMABLE; `None` disables it (the config's -1).
    pub dscp_trimmable: Option<u8>,
    /// DSCP codepoint TRIMMED; `None` disables it.
    pub dscp_trimmed: Option<u8>,
    /// DSCP codepoint CONTROL; `None` disables it.
    pub dscp_control: Option<u8>,
    /// Traffic class of each PCP for tagged frames.
    pub pcp_tc: [u8; 8],
    /// Traffic class of untagged frames.
    pub default_tc: u8,
    /// The LPM table, `lpm_entries` rows; `None` = invalid row.
    pub routes: Vec<Option<Route>>,
    /// The L2 table, `l2_entries` rows; `None` = invalid row.
    pub l2: Vec<Option<L2>>,
    /// Next-hop MACs, `nexthops` rows (0 where not loaded).
    pub nexthop_mac: Vec<u64>,
    /// PL2's registers (`[pl2]`; `docs/pl2.md`).
    pub pl2: pl2_ingress::Pl2Settings,
}

impl Default for Settings {
    /// The reset values of the shipped configurations (`configs/*.toml`) for a
    /// 4-port switch, with empty tables of the shipped sizes (64 routes, 16 L2
    /// entries, 16 next hops).
    fn default() -> Settings {
        Settings {
            ports: 4,
            min_frame: 64,
            max_frame: 9018,
            strip_fcs: true,
            mac_fcs: false,
            malformed_drop: true,
            miss_port: 255,
            router_mac: 0x0200_0000_00fe,
            dscp_trimmable: Some(10),
            dscp_trimmed: Some(12),
            dscp_control: Some(48),
            pcp_tc: [0, 1, 2, 3, 4, 5, 6, 7],
            default_tc: 0,
            routes: vec![None; 64],
            l2: vec![None; 16],
            nexthop_mac: vec![0; 16],
            pl2: pl2_ingress::Pl2Settings::off(4),
        }
    }
}

impl Settings {
    /// The reset values of `cfg.ingress` and its tables as the host loads them
    /// at start: `route[i]` into LPM row `i`, `l2[i]` into L2 row `i`,
    /// `nexthop_mac[i]` into next-hop row `i`; every other row invalid (zero MAC
    /// for next hops). Table sizes are `lpm_entries`, `l2_entries`, `nexthops`.
    ///
    /// Expects a validated configuration ([`Config::load`] or [`Config::parse`]);
    /// panics, naming the key, on a value validation rejects.
    pub fn from_config(cfg: &Config) -> Settings {
        let g = &cfg.ingress;
        let cp = |v: i32, key: &str| -> Option<u8> {
            assert!((-1..=63).contains(&v), "ingress.{key} = {v}: not validated");
            (v >= 0).then_some(v as u8)
        };
        let port = |v: u32, key: &str| -> u8 { u8::try_from(v).unwrap_or_else(|_| panic!("ingress.{key} = {v}: not validated")) };
        let mac = |m: &str, key: &str| parse_mac(m).unwrap_or_else(|| panic!("ingress.{key} = {m:?}: not validated"));
        assert_eq!(g.pcp_tc.len(), 8, "ingress.pcp_tc: not validated");
        let mut routes = vec![None; g.lpm_entries];
        for (i, r) in g.route.iter().enumerate() {
            let (prefix, len) =
                parse_prefix(&r.prefix).unwrap_or_else(|| panic!("ingress.route[{i}].prefix = {:?}: not validated", r.prefix));
            routes[i] = Some(Route { prefix, len, port: port(r.port, "route.port"), nexthop: port(r.nexthop, "route.nexthop") });
        }
        let mut l2 = vec![None; g.l2_entries];
        for (i, e) in g.l2.iter().enumerate() {
            l2[i] = Some(L2 { mac: mac(&e.mac, "l2.mac"), port: port(e.port, "l2.port") });
        }
        let mut nexthop_mac = vec![0; g.nexthops];
        for (i, m) in g.nexthop_mac.iter().enumerate() {
            nexthop_mac[i] = mac(m, "nexthop_mac");
        }
        Settings {
            ports: cfg.datapath.ports,
            min_frame: u16::try_from(g.min_frame).expect("ingress.min_frame: not validated"),
            max_frame: u16::try_from(g.max_frame).expect("ingress.max_frame: not validated"),
            strip_fcs: g.strip_fcs,
            mac_fcs: g.fcs == "mac",
            malformed_drop: g.malformed_drop,
            miss_port: port(g.miss_port, "miss_port"),
            router_mac: mac(&g.router_mac, "router_mac"),
            dscp_trimmable: cp(g.dscp_trimmable, "dscp_trimmable"),
            dscp_trimmed: cp(g.dscp_trimmed, "dscp_trimmed"),
            dscp_control: cp(g.dscp_control, "dscp_control"),
            pcp_tc: std::array::from_fn(|i| port(g.pcp_tc[i], "pcp_tc") & 7),
            default_tc: port(g.default_tc, "default_tc") & 7,
            routes,
            l2,
            nexthop_mac,
            pl2: pl2_ingress::Pl2Settings::from_config(cfg),
        }
    }
}

/// A packet leaving the ingress pipeline: its `tuser` (`hdl/src/meta.rs`,
/// `docs/ingress.md`, "tuser on the way out") and its bytes (FCS stripped or
/// not, MACs rewritten if routed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IngressOut {
    /// The outgoing `tuser` fields.
    pub meta: Meta,
    /// The outgoing bytes; `meta.length` is their count.
    pub frame: Vec<u8>,
}

/// What became of one input frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Dropped by `rx_fcs`.
    RxDrop(RxDrop),
    /// Malformed, dropped by lookup (`drop_malformed`).
    DropMalformed,
    /// `dest_port >= ports` after lookup (`drop_no_port`).
    DropNoPort,
    /// Dropped by the PL2 ALU (`drop_pl2`, and the ALU's counter of the reason).
    DropPl2(pl2::DropReason),
    /// Left the pipeline (`ingress_out_pkts`).
    Out,
}

/// Everything the model decided for one frame (for tests and mismatch reports).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Where the frame ended.
    pub fate: Fate,
    /// The parser's PHV; set unless `rx_fcs` dropped the frame.
    pub phv: Option<Phv>,
    /// classify's result; set unless `rx_fcs` dropped the frame.
    pub class: Option<Class>,
    /// lookup's result; set unless `rx_fcs` dropped the frame.
    pub lookup: Option<Lookup>,
    /// The PL2 ALU's op and outcome, when the packet was one (`docs/pl2.md`).
    pub pl2: Option<(pl2::Op, pl2::Outcome)>,
    /// Set when `fate` is [`Fate::Out`].
    pub out: Option<IngressOut>,
}

/// The ingress pipeline of a whole switch (`docs/ingress.md`): `ports` ports,
/// each with its `rx_fcs`, feeding `pipelines` pipelines (port `p` feeds
/// pipeline `p / (ports / pipelines)`), with all counters.
#[derive(Clone, Debug)]
pub struct IngressModel {
    settings: Settings,
    ports: usize,
    pipelines: usize,
    user_width: usize,
    counters: Counters,
    pl2: pl2::Pl2Model,
}

impl IngressModel {
    /// A model with `cfg`'s reset values and tables ([`Settings::from_config`]).
    pub fn new(cfg: &Config) -> IngressModel {
        Self::with_settings(cfg, Settings::from_config(cfg))
    }

    /// A model with `cfg`'s port and pipeline counts and the given settings.
    /// Panics if `settings.ports` differs from `datapath.ports`, or if the
    /// pipelines do not divide the ports.
    pub fn with_settings(cfg: &Config, settings: Settings) -> IngressModel {
        let (ports, pipelines) = (cfg.datapath.ports, cfg.datapath.pipelines);
        assert_eq!(settings.ports, ports, "Settings::ports must equal datapath.ports");
        assert!(pipelines > 0 && ports % pipelines == 0, "datapath.pipelines ({pipelines}) must divide datapath.ports ({ports})");
        let pl2 = pl2::Pl2Model::new(settings.pl2.alu).unwrap_or_else(|e| panic!("PL2 settings: {e}"));
        IngressModel { settings, ports, pipelines, user_width: cfg.datapath.user_width, counters: zero_counters(ports, pipelines), pl2 }
    }

    /// The current settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The settings, to change between packets (a host writing registers or
    /// tables over AXI-Lite). `ports` must not change.
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    /// The pipeline port `port` feeds: `port / (ports / pipelines)`.
    pub fn pipeline_of(&self, port: usize) -> usize {
        port / (self.ports / self.pipelines)
    }

    /// All counters (every key present from the start).
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The PL2 ALU (its state and counters). The ingress model is untimed:
    /// the ALU's slot clock moves only when the owner ticks it
    /// ([`IngressModel::pl2_mut`], [`pl2::Pl2Model::tick`]).
    pub fn pl2(&self) -> &pl2::Pl2Model {
        &self.pl2
    }

    /// The PL2 ALU, to tick its slot clock or write `IN_RES`/`OUT_RES`.
    pub fn pl2_mut(&mut self) -> &mut pl2::Pl2Model {
        &mut self.pl2
    }

    /// Runs one frame `wire` (as received, FCS included) from port `port`
    /// through rx_fcs, parser, classify and lookup; returns what leaves, if
    /// anything. Never panics on any bytes; panics if `port >= ports`.
    pub fn process(&mut self, port: usize, wire: &[u8]) -> Option<IngressOut> {
        self.trace(port, wire).out
    }

    /// [`IngressModel::process`] with every intermediate result.
    ///
    /// Counting (each input frame lands in exactly one of an `rx_drop_*`,
    /// `drop_malformed`, `drop_no_port`, `ingress_out_pkts`):
    /// - rx_fcs: one `rx_drop_*`, or `rx_pkts` and `rx_bytes` += the length as
    ///   it leaves rx_fcs;
    /// - parser: `parser_pkts`, and `malformed_<name>` when malformed;
    /// - classify: `class_prio_pkts`, `class_trim_ok_pkts`,
    ///   `class_router_hit_pkts` for every parsed packet with the bit set,
    ///   including packets lookup then drops;
    /// - lookup: one of `drop_malformed`, `lookup_routed`, `lookup_lpm_miss`,
    ///   `lookup_l2_hit`, `lookup_l2_miss`; then for the four lookup paths one of
    ///   `drop_no_port`, `drop_pl2`, `ingress_out_pkts`.
    /// - PL2 (`docs/pl2.md`, [`pl2_ingress::op_of`]): a packet that is an ALU
    ///   op runs through [`pl2::Pl2Model::apply`]. A grant turns the RSV into
    ///   its GRT ([`pl2_ingress::grt_rewrite`]), sent back out of its ingress
    ///   port (`dest_port` = the ingress port, `routed` so the egress writes
    ///   the router MAC as source, `nexthop` 0) whatever lookup decided; a
    ///   drop counts `drop_pl2`; a pass goes on as lookup decided.
    ///
    /// The output `tuser`: `src_port` = `port`, `dest_port`, `length` = output
    /// length, `flags` 0, `tc`/`prio`/`trim_ok`/`ndp_data` from classify (also
    /// for forwarded malformed packets), `routed`, `malformed` (only a
    /// forwarded malformed packet has it), `nexthop` (0 unless routed).
    pub fn trace(&mut self, port: usize, wire: &[u8]) -> Trace {
        self.trace_flagged(port, wire, false)
    }

    /// [`IngressModel::trace`] of a frame the MAC delivered with its
    /// bad-frame flag `flag` (`s_tuser`; without FCS when
    /// [`Settings::mac_fcs`]): the receive check is [`rx_fcs_flagged`].
    pub fn trace_flagged(&mut self, port: usize, wire: &[u8], flag: bool) -> Trace {
        assert!(port < self.ports, "port {port} out of range (ports = {})", self.ports);
        let pipe = self.pipeline_of(port);
        let frame = match rx_fcs_flagged(wire, flag, &self.settings) {
            Err(d) => {
                self.bump(format!("port{port}.{}", d.counter()), 1);
                return Trace { fate: Fate::RxDrop(d), phv: None, class: None, lookup: None, pl2: None, out: None };
            }
            Ok(f) => f,
        };
        self.bump(format!("port{port}.rx_pkts"), 1);
        self.bump(format!("port{port}.rx_bytes"), frame.len() as u64);

        let phv = Phv { in_port: port as u8, ..parse(&frame, frame.len()) };
        self.bump(format!("pipe{pipe}.parser_pkts"), 1);
        if phv.malformed != 0 {
            let name = malformed::NAMES.get(phv.malformed as usize).copied().unwrap_or("none");
            self.bump(format!("pipe{pipe}.malformed_{name}"), 1);
        }

        let class = classify(&phv, &self.settings);
        for (on, name) in
            [(class.prio, "class_prio_pkts"), (class.trim_ok, "class_trim_ok_pkts"), (class.router_hit, "class_router_hit_pkts")]
        {
            if on {
                self.bump(format!("pipe{pipe}.{name}"), 1);
            }
        }

        let lk = lookup(&phv, &class, &self.settings);
        self.bump(format!("pipe{pipe}.{}", lk.path.counter()), 1);
        let mut base = Trace { fate: Fate::DropMalformed, phv: Some(phv), class: Some(class), lookup: Some(lk), pl2: None, out: None };
        if lk.path == Path::DropMalformed {
            return base;
        }
        let mut lk = lk;
        let mut frame = frame;
        if self.pl2.config() != &self.settings.pl2.alu {
            self.pl2.set_config(self.settings.pl2.alu).unwrap_or_else(|e| panic!("PL2 settings: {e}"));
        }
        if let Some(op) = pl2_ingress::op_of(&phv, &lk, port as u8, &frame, &self.settings.pl2) {
            let outcome = self.pl2.apply(&op);
            base.pl2 = Some((op, outcome));
            match outcome {
                pl2::Outcome::Drop(why) => {
                    self.bump(format!("pipe{pipe}.drop_pl2"), 1);
                    return Trace { fate: Fate::DropPl2(why), ..base };
                }
                pl2::Outcome::Grant(g) => {
                    pl2_ingress::grt_rewrite(&mut frame, &phv, &g);
                    lk = Lookup { dest_port: port as u8, nexthop: 0, routed: true, forward: true, ..lk };
                }
                pl2::Outcome::Pass => {}
            }
        }
        if !lk.forward {
            self.bump(format!("pipe{pipe}.drop_no_port"), 1);
            return Trace { fate: Fate::DropNoPort, ..base };
        }
        self.bump(format!("pipe{pipe}.ingress_out_pkts"), 1);
        if lk.routed && !matches!(base.pl2, Some((_, pl2::Outcome::Grant(_)))) {
            lookup::rewrite_dst_mac(&mut frame, lk.nexthop, &self.settings);
        }
        let meta = Meta {
            src_port: port as u8,
            dest_port: lk.dest_port,
            length: frame.len() as u16,
            flags: 0,
            tc: class.tc,
            prio: class.prio,
            trim_ok: class.trim_ok,
            ndp_data: class.ndp_data,
            routed: lk.routed,
            malformed: phv.malformed != 0,
            nexthop: lk.nexthop,
            l3: match phv.l3 {
                trimswitch_hdl::ingress::phv::l3::IPV4 => l3kind::IPV4,
                trimswitch_hdl::ingress::phv::l3::IPV6 => l3kind::IPV6,
                _ => l3kind::OTHER,
            },
            l4: phv.l4,
            l3_off: phv.l3_off,
            l4_off: phv.l4_off,
            ihl: phv.ihl,
        }
        .at_width(self.user_width);
        Trace { fate: Fate::Out, out: Some(IngressOut { meta, frame }), ..base }
    }

    fn bump(&mut self, key: String, by: u64) {
        *self.counters.entry(key).or_insert(0) += by;
    }
}

/// Runs `inputs[p]` (port `p`'s frames, as received, FCS included) through a
/// fresh [`IngressModel`] with `settings`, port by port (all of port 0's frames,
/// then port 1's, ...), and returns the outputs and the final counters.
///
/// Outputs are in order *per source port* (`meta.src_port`); the order between
/// ports is this port-major interleave, not the RTL arbiter's, so compare
/// per source port. Panics if `inputs` has more entries than `datapath.ports`.
pub fn run_model(cfg: &Config, settings: &Settings, inputs: &[Vec<Vec<u8>>]) -> (Vec<IngressOut>, Counters) {
    let mut m = IngressModel::with_settings(cfg, settings.clone());
    let mut out = vec![];
    for (port, frames) in inputs.iter().enumerate() {
        for f in frames {
            out.extend(m.process(port, f));
        }
    }
    (out, m.counters)
}

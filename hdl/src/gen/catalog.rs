//! The catalogue of emitted blocks: builds every block at a configuration's
//! widths and emits one self-contained Verilog file per block.
use crate::axil::regs::AxilRegs;
use crate::axil::split::AxilSplit;
use crate::axis::arb_mux::AxisArbMux;
use crate::axis::demux::AxisDemux;
use crate::axis::pkt_fifo::PktFifo;
use crate::axis::skid::AxisSkid;
use crate::board::ok_axil::OkAxil;
use crate::board::sume::SumeSwitch;
use crate::board::u250::U250Switch;
use crate::board::uart_axil::UartAxil;
use crate::board::versa::VersaSwitch;
use crate::board::xem7010::Xem7010Switch;
use crate::config::Config;
use crate::gen::emit::emit_verilog;
use crate::ingress::classify::Classify;
use crate::ingress::lookup::Lookup;
use crate::ingress::parser::Parser;
use crate::ingress::rx_fcs::RxFcs;
use crate::ingress::{Ingress, REG_ADDR_BITS as INGRESS_REG_BITS, WINDOW_BITS};
use crate::mac::cmac::{CmacPort, CMAC_BITS};
use crate::mac::gmii::{GmiiRx, GmiiTx};
use crate::mac::port::XgmiiPort;
use crate::mac::xgmii_rx::XgmiiRx;
use crate::mac::xgmii_tx::XgmiiTx;
use crate::meta::DEST_PORT_LSB;
use crate::pl2::alu::Pl2Alu;
use crate::prim::crc::Crc32Beat;
use crate::protego::port::ProtegoPort;
use crate::protego::rx::ProtegoRx;
use crate::protego::rx_seq::ProtegoRxSeq;
use crate::protego::store::ProtegoStore;
use crate::protego::tag::ProtegoTagIns;
use crate::protego::tx::ProtegoTx;
use crate::protego::untag::ProtegoTagRm;
use crate::tm::admit::{TmAdmit, TmPre};
use crate::tm::meter::{MeterBank, MeterStage, PortMode};
use crate::tm::trimmer::Trimmer;
use crate::tm::{TmPort, TrafficManager};
use crate::top::fabric::{Fabric, REG_ADDR_BITS};
use crate::top::switch::Switch;
use crate::top::xgmii_switch::XgmiiSwitch;
use anyhow::{bail, ensure, Result};

/// Names of the blocks every configuration emits, top last.
pub const BLOCKS: [&str; 34] = [
    "ts_axis_skid",
    "ts_pkt_fifo",
    "ts_axis_arb_mux",
    "ts_axis_demux",
    "ts_axil_regs",
    "ts_axil_split",
    "ts_crc32_beat",
    "ts_rx_fcs",
    "ts_parser",
    "ts_classify",
    "ts_lookup",
    "ts_meter_bank",
    "ts_port_mode",
    "ts_meter_stage",
    "ts_pl2_alu",
    "ts_protego_tag_ins",
    "ts_protego_tag_rm",
    "ts_protego_rx_seq",
    "ts_protego_store",
    "ts_protego_rx",
    "ts_protego_tx",
    "ts_protego_port",
    "ts_xgmii_tx",
    "ts_xgmii_rx",
    "ts_xgmii_port",
    "ts_gmii_tx",
    "ts_gmii_rx",
    "ts_ingress",
    "ts_fabric",
    "ts_trimmer",
    "ts_tm_pre",
    "ts_tm_admit",
    "ts_tm_port",
    "ts_tm",
];

/// The whole switch, emitted after [`BLOCKS`] ([`crate::top::switch`]): the
/// top of every configuration's design.
pub const SWITCH: &str = "ts_switch";

/// Every configuration emits the same blocks (at its own widths and sizes),
/// top last: [`BLOCKS`], then [`SWITCH`].
pub fn blocks() -> Vec<&'static str> {
    let mut v = BLOCKS.to_vec();
    v.push(SWITCH);
    v
}

/// Blocks that only wire other catalogue blocks together: the ingress
/// pipeline, the traffic manager, Protego's port (both sides and their
/// registers) and the switch. `trimswitch synth` synthesizes the leaves
/// ([`default_synth`]); asked by name (`--block ts_tm`), it synthesizes a
/// composition too; `make synth-top` synthesizes the flattened switch, with
/// no time limit.
pub const COMPOSITIONS: [&str; 4] = ["ts_protego_port", "ts_ingress", "ts_tm", "ts_switch"];

/// The Ethernet MACs ([`crate::mac`], issue 18): 64-bit XGMII and 8-bit GMII
/// at every configuration, and a whole 10G port (MACs, width converters,
/// clock-domain crossing) at the configuration's width (a board's top puts them between
/// its PHYs and the switch). Emitted and linted with the rest, synthesized and timed by the
/// CI gates and by `trimswitch synth --block`; `make` leaves them out of
/// its synthesis (its 10 minutes on two cores).
pub const MACS: [&str; 5] = ["ts_xgmii_tx", "ts_xgmii_rx", "ts_xgmii_port", "ts_gmii_tx", "ts_gmii_rx"];

/// What `trimswitch synth` synthesizes by default: every leaf block but the
/// MACs (no composition). The flattened switch takes 20 minutes and more
/// on two cores (`make synth-top`), so `make` does not wait for it.
pub fn default_synth() -> Vec<&'static str> {
    blocks().into_iter().filter(|b| !COMPOSITIONS.contains(b) && !MACS.contains(b)).collect()
}

/// One emitted Verilog file.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// Module (and file stem) name, e.g. `ts_pkt_fifo`.
    pub name: String,
    /// Complete file text.
    pub verilog: String,
}

/// Header lines recording where a file came from.
fn provenance(cfg: &Config) -> Vec<String> {
    vec![format!(
        "config: {} ({}), sha256/64 {}; data_width {} user_width {} ports {}",
        cfg.target.name,
        cfg.source.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
        cfg.hash(),
        cfg.datapath.data_width,
        cfg.datapath.user_width,
        cfg.datapath.ports
    )]
}

/// The stream geometry of a block: from the data width `D` and the user width
/// `U`, the bytes per beat `K = D / 8`, the width `M` of a byte count within
/// a beat ([`count_bits`]) and the packet FIFO's word `W = D + M + U`.
pub const fn count_bits(k: usize) -> usize {
    k.trailing_zeros() as usize + 2
}

/// Runs `body` with `D, K, U, M, W` bound to the geometry of the data width
/// and user width given, if they are one of the `(D, U)` pairs listed (every
/// width a caller builds is listed once; the rest is derived, never written
/// by hand): `Some(body)`, or `None` for a pair not listed.
///
/// ```
/// use trimswitch_hdl::with_geometry;
/// let w = with_geometry!(512, 64, [(64, 64), (512, 64)], |D, K, U, M, W| (K, M, W));
/// assert_eq!(w, Some((64, 8, 584)));
/// assert_eq!(with_geometry!(128, 64, [(64, 64)], |D, K, U, M, W| D), None);
/// ```
#[macro_export]
macro_rules! with_geometry {
    ($d:expr, $u:expr, [$(($dv:literal, $uv:literal)),+ $(,)?], |$D:ident, $K:ident, $U:ident, $M:ident, $W:ident| $body:expr) => {
        match ($d, $u) {
            $(($dv, $uv) => {
                #[allow(dead_code, non_snake_case)]
                const $D: usize = $dv;
                #[allow(dead_code, non_snake_case)]
                const $K: usize = $dv / 8;
                #[allow(dead_code, non_snake_case)]
                const $U: usize = $uv;
                #[allow(dead_code, non_snake_case)]
                const $M: usize = $crate::gen::catalog::count_bits($dv / 8);
                #[allow(dead_code, non_snake_case)]
                const $W: usize = $dv + $M + $uv;
                Some($body)
            })+
            _ => None,
        }
    };
}

/// The switch with a 10G MAC on every port ([`crate::top::xgmii_switch`]):
/// emitted by name for a configuration of 10G ports (a board's core), not
/// one of [`BLOCKS`].
pub const XGMII_SWITCH: &str = "ts_xgmii_switch";

/// The NetFPGA-SUME's board core ([`crate::board::sume`]): emitted by name
/// for the `netfpga-sume` configuration (`trimswitch vivado --board`).
pub const SUME_SWITCH: &str = "ts_sume_switch";

/// The ECP5-5G Versa board's whole design ([`crate::board::versa`]):
/// emitted by name for the `ecp5-versa` configuration (`make bitstream`).
pub const VERSA_SWITCH: &str = "ts_versa_switch";

/// A 100G port on the UltraScale+ CMAC ([`crate::mac::cmac`]): emitted by
/// name at 512 bits (the CMAC's width; the U250's core has one per port).
pub const CMAC_PORT: &str = "ts_cmac_port";

/// The register map over a serial line ([`crate::board::uart_axil`]):
/// emitted by name at the configuration's clock and 115 200 baud.
pub const UART_AXIL: &str = "ts_uart_axil";

/// The Alveo U250's board core ([`crate::board::u250`]): emitted by name
/// for the `alveo-u250` configuration with `ingress.fcs = "mac"`
/// (`trimswitch vivado --board alveo-u250`).
pub const U250_SWITCH: &str = "ts_u250_switch";

/// The register map through Opal Kelly FrontPanel endpoints
/// ([`crate::board::ok_axil`]): emitted by name.
pub const OK_AXIL: &str = "ts_ok_axil";

/// The Opal Kelly XEM7010's board core ([`crate::board::xem7010`]): emitted
/// by name for the `opalkelly-xem7010` configuration (`trimswitch vivado
/// --board opalkelly-xem7010`).
pub const XEM7010_SWITCH: &str = "ts_xem7010_switch";

/// A port's FIFO geometry at `D` bits ([`XgmiiPort`]): the word `F = D + M
/// + 2` bits (`M` as [`with_geometry`] has it), the transmit FIFO `2^A`
/// words = 16 KiB, `A1 = A + 1`.
macro_rules! with_port_fifo {
    ($d:expr, |$F:ident, $A:ident, $A1:ident| $body:expr) => {
        match $d {
            64 => {
                const $F: usize = 64 + count_bits(64 / 8) + 2;
                const $A: usize = 11;
                const $A1: usize = 12;
                $body
            }
            128 => {
                const $F: usize = 128 + count_bits(128 / 8) + 2;
                const $A: usize = 10;
                const $A1: usize = 11;
                $body
            }
            256 => {
                const $F: usize = 256 + count_bits(256 / 8) + 2;
                const $A: usize = 9;
                const $A1: usize = 10;
                $body
            }
            512 => {
                const $F: usize = 512 + count_bits(512 / 8) + 2;
                const $A: usize = 8;
                const $A1: usize = 9;
                $body
            }
            other => bail!("no XGMII port build at {other} bits"),
        }
    };
}

/// Emits one block of the catalogue at the configuration's widths.
pub fn emit_block(cfg: &Config, name: &str) -> Result<Emitted> {
    let (d, u) = (cfg.datapath.data_width, cfg.datapath.user_width);
    match crate::with_geometry!(d, u, [(64, 128), (128, 128), (256, 128), (512, 128)], |D, K, U, M, W| emit_sized::<D, K, U, M, W>(
        cfg, name
    )) {
        Some(e) => e,
        None => bail!("{}: no block build for data_width {d} with user_width {u}", cfg.source.display()),
    }
}

/// Emits one ingress pipeline (`ts_ingress`) for `cfg` (same as
/// `emit_block(cfg, "ts_ingress")`).
pub fn emit_ingress(cfg: &Config) -> Result<Emitted> {
    emit_block(cfg, "ts_ingress")
}

/// Emits every block of the catalogue ([`blocks`]).
pub fn emit_all(cfg: &Config) -> Result<Vec<Emitted>> {
    blocks().iter().map(|b| emit_block(cfg, b)).collect()
}

fn emit_sized<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize>(cfg: &Config, name: &str) -> Result<Emitted> {
    let prov = provenance(cfg);
    let ports = cfg.datapath.ports;
    let drr = cfg.arbiter.policy == "drr";
    let verilog = match name {
        "ts_axis_skid" => emit_verilog(&mut AxisSkid::<D, K, U>::default(), name, &prov)?,
        "ts_pkt_fifo" => emit_verilog(&mut PktFifo::<D, K, U, M, W>::new(cfg.fifo.depth, cfg.fifo.store_forward), name, &prov)?,
        "ts_axis_arb_mux" => emit_verilog(&mut AxisArbMux::<D, K, U>::new(ports), name, &prov)?,
        "ts_axis_demux" => emit_verilog(&mut AxisDemux::<D, K, U>::new(ports, DEST_PORT_LSB), name, &prov)?,
        "ts_axil_regs" => {
            let mut rw = vec![drr as u32];
            rw.extend(std::iter::repeat_n(cfg.arbiter.quantum, ports));
            emit_verilog(&mut AxilRegs::<REG_ADDR_BITS>::new(&rw, 3 * ports + 1), name, &prov)?
        }
        "ts_crc32_beat" => emit_verilog(&mut Crc32Beat::<D, K>::default(), name, &prov)?,
        "ts_parser" => emit_verilog(&mut Parser::<D, K, U, M, W>::default(), name, &prov)?,
        "ts_classify" => emit_verilog(&mut Classify::default(), name, &prov)?,
        "ts_lookup" => {
            let g = &cfg.ingress;
            emit_verilog(&mut Lookup::new(ports, g.lpm_entries, g.l2_entries, g.nexthops), name, &prov)?
        }
        // One ingress pipeline's meters and modes, one per egress port; rates,
        // bursts and T0/T1 are input ports (run-time registers, wired by the
        // integration).
        "ts_meter_bank" => emit_verilog(&mut MeterBank::new(ports), name, &prov)?,
        "ts_port_mode" => emit_verilog(&mut PortMode::new(ports), name, &prov)?,
        "ts_meter_stage" => emit_verilog(&mut MeterStage::<D, K, U>::new(ports), name, &prov)?,
        // The switch's one PL2 ALU: every port, one op input per pipeline.
        "ts_pl2_alu" => emit_verilog(&mut Pl2Alu::new(ports, cfg.datapath.pipelines), name, &prov)?,
        // Protego's tag inserter (the sender side before the MAC).
        "ts_protego_tag_ins" => emit_verilog(&mut ProtegoTagIns::<D, K, U>::default(), name, &prov)?,
        // Its tag remover (the receiver side after `rx_fcs`).
        "ts_protego_tag_rm" => emit_verilog(&mut ProtegoTagRm::<D, K, U>::default(), name, &prov)?,
        // The receiver side's decisions, its tables sized by `[protego]`.
        "ts_protego_rx_seq" => {
            let p = &cfg.protego;
            emit_verilog(&mut ProtegoRxSeq::new(p.rx_slots as usize, p.miss_slots as usize), name, &prov)?
        }
        // Its frame store, the mover of the engine's actions.
        "ts_protego_store" => {
            let p = &cfg.protego;
            let words = (p.rx_ring_bytes as usize) / K;
            emit_verilog(&mut ProtegoStore::<D, K, U>::new(words, p.rx_frames as usize, p.rx_slots as usize), name, &prov)?
        }
        // The receiver side: remover, store, engine, descriptor FIFO.
        "ts_protego_rx" => {
            let p = &cfg.protego;
            let words = (p.rx_ring_bytes as usize) / K;
            let (slots, miss, frames) = (p.rx_slots as usize, p.miss_slots as usize, p.rx_frames as usize);
            emit_verilog(&mut ProtegoRx::<D, K, U>::new(slots, miss, words, frames), name, &prov)?
        }
        // The sender side: its ring, the picks, the head processor.
        "ts_protego_tx" => {
            let p = &cfg.protego;
            emit_verilog(&mut ProtegoTx::<D, K, U>::new(p.tx_ring_bytes as usize / K, p.tx_frames as usize), name, &prov)?
        }
        // Both sides of a port and its registers (B.7).
        "ts_protego_port" => emit_verilog(&mut ProtegoPort::<D, K, U>::new(cfg), name, &prov)?,
        "ts_xgmii_tx" => emit_verilog(&mut XgmiiTx::default(), name, &prov)?,
        "ts_xgmii_rx" => emit_verilog(&mut XgmiiRx::default(), name, &prov)?,
        "ts_gmii_tx" => emit_verilog(&mut GmiiTx::default(), name, &prov)?,
        "ts_gmii_rx" => emit_verilog(&mut GmiiRx::default(), name, &prov)?,
        "ts_xgmii_port" => with_port_fifo!(D, |F, A, A1| emit_verilog(&mut XgmiiPort::<D, K, M, F, A, A1>::default(), name, &prov)?),
        XGMII_SWITCH => with_port_fifo!(D, |F, A, A1| emit_verilog(&mut XgmiiSwitch::<D, K, U, M, W, F, A, A1>::new(cfg)?, name, &prov)?),
        SUME_SWITCH => with_port_fifo!(D, |F, A, A1| emit_verilog(&mut SumeSwitch::<D, K, U, M, W, F, A, A1>::new(cfg)?, name, &prov)?),
        CMAC_PORT => {
            ensure!(D == CMAC_BITS, "{}: datapath.data_width = {D}: {CMAC_PORT} is the CMAC's {CMAC_BITS} bits", cfg.source.display());
            with_port_fifo!(D, |F, A, A1| emit_verilog(&mut CmacPort::<D, K, M, F, A, A1>::default(), name, &prov)?)
        }
        UART_AXIL => emit_verilog(
            &mut UartAxil::<{ crate::top::regmap::SWITCH_ADDR_BITS }>::new(cfg.target.clock_mhz * 1e6, crate::board::versa::UART_BAUD)?,
            name,
            &prov,
        )?,
        U250_SWITCH => with_port_fifo!(D, |F, A, A1| emit_verilog(&mut U250Switch::<D, K, U, M, W, F, A, A1>::new(cfg)?, name, &prov)?),
        OK_AXIL => emit_verilog(&mut OkAxil::<{ crate::board::mac_stats::BOARD_ADDR_BITS }>::default(), name, &prov)?,
        XEM7010_SWITCH => emit_verilog(&mut Xem7010Switch::<D, K, U, M, W>::new(cfg)?, name, &prov)?,
        VERSA_SWITCH => with_port_fifo!(D, |F, A, A1| emit_verilog(&mut VersaSwitch::<D, K, U, M, W, F, A, A1>::new(cfg)?, name, &prov)?),
        "ts_ingress" => emit_verilog(&mut Ingress::<D, K, U, M, W>::new(cfg), name, &prov)?,
        "ts_axil_split" => emit_verilog(&mut AxilSplit::<{ INGRESS_REG_BITS }, { WINDOW_BITS }>::new(5), name, &prov)?,
        "ts_rx_fcs" => emit_verilog(&mut RxFcs::<D, K, U, M, W>::new(cfg.fifo.depth).with_mac_fcs(cfg.ingress.fcs == "mac"), name, &prov)?,
        "ts_fabric" => emit_verilog(
            &mut Fabric::<D, K, U, M, W>::new(ports, cfg.fifo.depth, cfg.fifo.store_forward, drr, cfg.arbiter.quantum),
            name,
            &prov,
        )?,
        "ts_trimmer" => emit_verilog(&mut Trimmer::<D, K, U>::with_window(cfg.tm.trim_window), name, &prov)?,
        "ts_tm_pre" => emit_verilog(&mut TmPre::<D, K, U>::with_window(cfg.tm.trim_window), name, &prov)?,
        "ts_tm_admit" => {
            emit_verilog(&mut TmAdmit::<D, K, U>::new(ports, cfg.tm.queue_h_words, cfg.tm.queue_d_words, cfg.tm.dod_words), name, &prov)?
        }
        "ts_tm_port" => emit_verilog(&mut TmPort::<D, K, U, M, W>::new(cfg.tm.queue_h_words, cfg.tm.queue_d_words), name, &prov)?,
        "ts_tm" => emit_verilog(&mut TrafficManager::<D, K, U, M, W>::new(cfg), name, &prov)?,
        "ts_switch" => emit_verilog(&mut Switch::<D, K, U, M, W>::new(cfg)?, name, &prov)?,
        other => bail!("unknown block {other:?}; blocks are {:?}", blocks()),
    };
    Ok(Emitted { name: name.to_string(), verilog })
}

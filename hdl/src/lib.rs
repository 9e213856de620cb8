//! trimswitch hardware blocks, written in rust-hdl and emitted as Verilog.
//!
//! Every block is an AXI4-Stream stage (`tdata`/`tkeep`/`tlast`/`tuser`/`tvalid`/
//! `tready`) with a rising-edge `clock` and a synchronous active-high `reset`.
//! `tuser` is per-packet metadata (layout in [`meta`]): a block samples it on the
//! first beat of a packet. `tkeep` is packed: all ones on every beat but the
//! last, and contiguous from lane 0 on the last.
//!
//! Primitives: [`axis_skid`], [`pkt_fifo`], [`axis_arb_mux`], [`axis_demux`],
//! [`axil_regs`], [`axil_split`], [`crc`]. Ingress (`docs/ingress.md`):
//! [`rx_fcs`], [`parser`] (to the [`phv`]), [`classify`], [`lookup`],
//! [`ingress_apply`], and the pipeline top [`ingress`]. Traffic manager
//! (`docs/trimming.md`): [`trimmer`] with [`trim_logic`]. The whole switch is
//! [`switch`] with its register map [`regmap`]. The foundation's
//! crossbar top is [`fabric`]. [`catalog`] builds them for a
//! [`config::Config`] and [`emit`] writes the Verilog; [`unroll`] lets a block
//! index vector ports of blocks in vectors (rust-hdl's writer cannot).
pub mod axil_regs;
pub mod axil_split;
pub mod axis_arb_mux;
pub mod axis_demux;
pub mod axis_skid;
pub mod catalog;
pub mod classify;
pub mod config;
pub mod crc;
pub mod egress;
pub mod emit;
pub mod fabric;
pub mod ingress;
pub mod ingress_apply;
pub mod lookup;
pub mod meter;
pub mod meta;
pub mod parser;
pub mod phv;
pub mod pkt_fifo;
pub mod regmap;
pub mod rx_fcs;
pub mod switch;
pub mod trim_logic;
pub mod tm;
pub mod tm_admit;
pub mod trimmer;
pub mod unroll;
pub mod widgets;

//! trimswitch hardware blocks, written in rust-hdl and emitted as Verilog.
//!
//! Every block is an AXI4-Stream stage (`tdata`/`tkeep`/`tlast`/`tuser`/`tvalid`/
//! `tready`) with a rising-edge `clock` and a synchronous active-high `reset`.
//! `tuser` is per-packet metadata (layout in [`meta`]): a block samples it on the
//! first beat of a packet. `tkeep` is packed: all ones on every beat but the
//! last, and contiguous from lane 0 on the last.
//!
//! The folders follow the data path (`docs/blocks.md` draws it):
//! - [`axis`]: AXI4-Stream primitives (skid buffer, packet FIFO, arbiter, demux);
//! - [`axil`]: AXI4-Lite register file and address split;
//! - [`prim`]: the CRC-32 beat engine and small wiring widgets;
//! - [`ingress`]: FCS check, parser to the PHV, classify, lookup, apply, and the
//!   pipeline top (`docs/ingress.md`);
//! - [`tm`]: the traffic manager: meters and port modes, admission, queues, the
//!   trimmer (`docs/trimming.md`);
//! - [`egress`]: the egress rewrite after the scheduler;
//! - [`pl2`]: the PL2 reservation ALU and its ingress stage;
//! - [`protego`]: Protego's sender and receiver sides around the MAC;
//! - [`mac`]: Ethernet MACs (10G on XGMII) and a whole port with its clock
//!   crossings;
//! - [`board`]: board support (a start-up I2C programmer);
//! - [`top`]: the whole switch, its register map, and the foundation's crossbar;
//! - [`gen`]: the catalogue of emitted blocks, Verilog emission, and [`gen::unroll`],
//!   which lets a block index vector ports of blocks in vectors (rust-hdl's writer
//!   cannot).
//!
//! [`config`] is the configuration model (one TOML per target) and [`meta`] the
//! `tuser` layout every block shares; [`proto`] names the protocol numbers the
//! hardware matches on.
pub mod axil;
pub mod axis;
pub mod board;
pub mod config;
pub mod egress;
pub mod gen;
pub mod ingress;
pub mod mac;
pub mod meta;
pub mod pl2;
pub mod prim;
pub mod protego;
pub mod proto;
pub mod tm;
pub mod top;

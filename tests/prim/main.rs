//! Stream and register primitives: skid buffer, packet FIFO, arbiter, demux, AXI4-Lite register file, CRC-32 beat engine, the fabric smoke run.
//!
//! One test binary per subsystem (`cargo test --test prim <module>::<test>`);
//! each module is one block's or one tool's tests.
#[path = "../common/mod.rs"]
mod common;
mod axis_skid;
mod pkt_fifo;
mod axis_arb_mux;
mod axis_demux;
mod axil_regs;
mod crc32_beat;
mod fabric;

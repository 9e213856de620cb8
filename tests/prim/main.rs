//! Stream and register primitives: one-carry-chain arithmetic, skid buffer, packet FIFO, the descriptor FIFO (`SyncFifo`), arbiter, demux, AXI4-Lite register file, CRC-32 beat engine, the fabric smoke run.
//!
//! One test binary per subsystem (`cargo test --test prim <module>::<test>`);
//! each module is one block's or one tool's tests.
mod arith;
mod async_fifo;
mod axil_regs;
mod axis_arb_mux;
mod axis_demux;
mod axis_skid;
#[path = "../common/mod.rs"]
mod common;
mod crc32_beat;
mod fabric;
mod pkt_fifo;
mod sync_fifo;

//! AXI4-Stream primitives: [`skid`] (register slice), [`pkt_fifo`] (packet
//! FIFO, cut-through or store-and-forward), [`arb_mux`] (N:1 packet arbiter,
//! round robin or byte DRR) and [`demux`] (1:N by a `tuser` field).
pub mod arb_mux;
pub mod demux;
pub mod pkt_fifo;
pub mod skid;

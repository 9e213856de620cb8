//! AXI4-Stream: the interface [`bundle`]s every block's stream ports are made
//! of, and the primitives [`skid`] (register slice), [`pkt_fifo`] (packet
//! FIFO, cut-through or store-and-forward), [`arb_mux`] (N:1 packet arbiter,
//! round robin or byte DRR) and [`demux`] (1:N by a `tuser` field).
pub mod arb_mux;
pub mod bundle;
pub mod demux;
pub mod pkt_fifo;
pub mod skid;
pub mod width;

//! The traffic manager (`docs/trimming.md`): [`meter`] (ndp.p4 meter banks,
//! port modes, the meter stage), [`admit`] (precompute and the admission
//! decision), [`trimmer`] with [`trim_logic`], and [`manager`] (per-port
//! queues and the whole traffic manager, re-exported here), [`occupancy`] (exact
//! queue occupancy, shared with the formal proofs).
pub mod admit;
pub mod manager;
pub mod meter;
pub mod occupancy;
pub mod trim_logic;
pub mod trimmer;

pub use manager::*;

//! The ingress pipeline (`docs/ingress.md`), in data-path order: [`rx_fcs`]
//! (per-port FCS check and receive FIFO), [`parser`] (headers to the [`phv`]),
//! [`classify`], [`lookup`] (LPM, next hops, L2), [`apply`] (the decision onto
//! the packet), and the pipeline top [`pipeline`] (re-exported here).
pub mod apply;
pub mod classify;
pub mod lookup;
pub mod parser;
pub mod phv;
pub mod pipeline;
pub mod rx_fcs;

pub use pipeline::*;

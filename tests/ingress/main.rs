//! The ingress pipeline: FCS check, parser, the whole pipeline against the golden model, pcap replay.
//!
//! One test binary per subsystem (`cargo test --test ingress <module>::<test>`);
//! each module is one block's or one tool's tests.
#[path = "../common/mod.rs"]
mod common;
mod ingress;
mod parser;
mod replay;
mod rx_fcs;

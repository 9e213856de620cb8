//! Verilated designs as the tools run them: [`ingress`] (the pipeline against
//! the golden model), [`switch`] (the switch bench), [`smoke`] (the fabric
//! smoke run), [`bench`](mod@bench) (simulation speed).
pub mod bench;
pub mod ingress;
pub mod protego;
pub mod smoke;
pub mod switch;

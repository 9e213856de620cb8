//! The simulation crate's own tests: the Verilator harness, the packet library, the ingress golden model.
mod harness_selftest;
mod model_ingress;
mod packet;

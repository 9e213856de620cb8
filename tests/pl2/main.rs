//! PL2 (seed 003): the reservation ALU against its golden model and the
//! specification's vectors.
//!
//! One test binary per subsystem (`cargo test --test pl2 <module>::<test>`);
//! each module is one block's or one tool's tests.
mod alu;

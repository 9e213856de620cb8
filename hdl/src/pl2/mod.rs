//! PL2 (seed 003): the timeslot reservation ALU ([`alu::Pl2Alu`]).
pub mod alu;
pub mod block;
pub mod grt;
pub mod stage;

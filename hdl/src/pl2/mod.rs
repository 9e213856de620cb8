//! PL2 (seed 003): the timeslot reservation ALU ([`alu::Pl2Alu`]).
pub mod alu;

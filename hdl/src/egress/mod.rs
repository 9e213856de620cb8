//! After the scheduler: [`rewrite`] (the router MAC as a routed packet's
//! source).
pub mod rewrite;

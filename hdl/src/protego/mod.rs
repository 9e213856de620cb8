//! Protego, link-local retransmission (seed 004; `PL2-PROTEGO.md` part B;
//! `docs/protego.md`): the sender and receiver sides of a port, around the
//! MAC. Golden model: `trimswitch_sim::model::protego`.
//! - [`tag`]: the tag inserter of the sender side.
//! - [`untag`]: the tag remover of the receiver side.
//! - [`rx_seq`]: the receiver side's decisions (loss detection, Alg. 1-2).
//! - [`store`]: the receiver side's frame store, the mover of its actions.
//! - [`rx`]: the receiver side: the three above and a descriptor FIFO.
//! - [`tx`]: the sender side: a store as its ring, the inserter, B.1's pick.
//! - [`port`]: both sides of a port and its registers (B.7).
//! - [`shim`]: a switch port's place for Protego (a port, or a wire).
pub mod port;
pub mod rx;
pub mod rx_seq;
pub mod shim;
pub mod store;
pub mod tag;
pub mod tx;
pub mod untag;

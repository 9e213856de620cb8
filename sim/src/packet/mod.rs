//! The packet library: Ethernet FCS, Internet checksums, frames of every
//! header this project handles (standard ones and our NDP, PL2 and Protego
//! formats from `docs/protocols.md`), a one-line describer, and pcap files.
pub mod checksum;
pub mod crc;
pub mod describe;
pub mod frame;
pub mod pcap;

pub use describe::describe;
pub use frame::{Frame, Ipv4, Ipv6, Ndp, Pl2, Protego, Udp, Vlan, L3, L4};

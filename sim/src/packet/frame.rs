//! Frames as data: build any mix of the headers in `docs/protocols.md` and
//! serialize them with correct lengths and checksums.
use super::checksum;
use super::crc::append_fcs;

/// A MAC address.
pub type Mac = [u8; 6];

/// EtherTypes this project knows.
pub mod ethertype {
    pub const IPV4: u16 = 0x0800;
    pub const IPV6: u16 = 0x86DD;
    pub const VLAN: u16 = 0x8100;
    pub const QINQ: u16 = 0x88A8;
    pub const PL2: u16 = 0x88B5;
    pub const PROTEGO: u16 = 0x88B6;
    pub const MAC_CONTROL: u16 = 0x8808;
}

/// IP protocol numbers this project knows.
pub mod ipproto {
    pub const UDP: u8 = 17;
    pub const NDP: u8 = 199;
}

/// Smallest Ethernet frame without FCS (64 bytes on the wire with it).
pub const MIN_FRAME: usize = 60;

/// An 802.1Q (TPID 0x8100) or 802.1ad (0x88A8) tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vlan {
    pub tpid: u16,
    /// Priority code point (0..=7): the traffic class (seed 002).
    pub pcp: u8,
    pub dei: bool,
    /// VLAN id (0..=4095).
    pub vid: u16,
}

/// IPv4 header fields; lengths and the checksum are computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv4 {
    pub dscp: u8,
    pub ecn: u8,
    pub id: u16,
    pub dont_fragment: bool,
    pub ttl: u8,
    /// Protocol; taken from the L4 header when that is UDP or NDP.
    pub protocol: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// Options (a multiple of 4 bytes, at most 40).
    pub options: Vec<u8>,
}

/// IPv6 header fields; the payload length is computed. No extension headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv6 {
    pub dscp: u8,
    pub ecn: u8,
    pub flow_label: u32,
    pub hop_limit: u8,
    /// Next header; taken from the L4 header when that is UDP or NDP.
    pub next_header: u8,
    pub src: [u8; 16],
    pub dst: [u8; 16],
}

/// UDP ports; length and checksum are computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Udp {
    pub sport: u16,
    pub dport: u16,
}

/// The NDP header (IP protocol 199).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Ndp {
    pub flags: u8,
    pub src_port: u16,
    pub dst_port: u16,
    pub path_id: u16,
    pub seq: u32,
    pub ack_or_pull: u32,
}

impl Ndp {
    pub const DATA: u8 = 1 << 0;
    pub const ACK: u8 = 1 << 1;
    pub const NACK: u8 = 1 << 2;
    pub const PULL: u8 = 1 << 3;
    pub const TRIMMED: u8 = 1 << 4;
    pub const RETURNED: u8 = 1 << 5;
    pub const LAST: u8 = 1 << 6;
    /// Header length in bytes.
    pub const LEN: usize = 16;
}

/// A PL2 RSV or GRT message (EtherType 0x88B5).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Pl2 {
    /// [`Pl2::RSV`] or [`Pl2::GRT`].
    pub kind: u8,
    pub demand: u8,
    pub src_port: u8,
    pub dst_port: u8,
    pub send_timeslot: u32,
    pub recv_timeslot: u32,
    pub cookie: u32,
}

impl Pl2 {
    pub const RSV: u8 = 1;
    pub const GRT: u8 = 2;
    /// Message bytes before padding.
    pub const LEN: usize = 16;

    /// The message at the start of `m` (the bytes after the EtherType, as
    /// [`Frame::to_wire`] writes them), or `None` if `m` is shorter than
    /// [`Pl2::LEN`].
    pub fn parse(m: &[u8]) -> Option<Pl2> {
        let m = m.get(..Self::LEN)?;
        let be = |o: usize| u32::from_be_bytes([m[o], m[o + 1], m[o + 2], m[o + 3]]);
        Some(Pl2 { kind: m[0], demand: m[1], src_port: m[2], dst_port: m[3], send_timeslot: be(4), recv_timeslot: be(8), cookie: be(12) })
    }
}

/// The Protego tag (EtherType 0x88B6 + 3 bytes).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Protego {
    /// 0 DATA, 1 RETX, 2 ACK, 3 LOSS.
    pub kind: u8,
    pub era: bool,
    pub seq: u16,
}

/// What follows the Ethernet header (and tags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum L3 {
    Ipv4(Ipv4),
    Ipv6(Ipv6),
    Pl2(Pl2),
    /// Any other EtherType; the payload follows directly.
    Other(u16),
}

/// What follows the IP header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum L4 {
    Udp(Udp),
    Ndp(Ndp),
    /// NDP inside UDP is not used; this is any other protocol's bytes.
    None,
}

/// A whole frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub dst: Mac,
    pub src: Mac,
    pub vlans: Vec<Vlan>,
    pub protego: Option<Protego>,
    pub l3: L3,
    pub l4: L4,
    pub payload: Vec<u8>,
}

impl Frame {
    /// Serializes without FCS, zero-padded to [`MIN_FRAME`] bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut f = Vec::with_capacity(64 + self.payload.len());
        f.extend_from_slice(&self.dst);
        f.extend_from_slice(&self.src);
        for v in &self.vlans {
            f.extend_from_slice(&v.tpid.to_be_bytes());
            let tci = (v.pcp as u16 & 7) << 13 | (v.dei as u16) << 12 | (v.vid & 0x0fff);
            f.extend_from_slice(&tci.to_be_bytes());
        }
        if let Some(p) = &self.protego {
            f.extend_from_slice(&ethertype::PROTEGO.to_be_bytes());
            f.push((p.kind & 3) << 6 | (p.era as u8) << 5);
            f.extend_from_slice(&p.seq.to_be_bytes());
        }
        let l4 = self.l4_bytes();
        match &self.l3 {
            L3::Ipv4(ip) => {
                f.extend_from_slice(&ethertype::IPV4.to_be_bytes());
                f.extend_from_slice(&self.ipv4_bytes(ip, &l4));
                f.extend_from_slice(&l4);
            }
            L3::Ipv6(ip) => {
                f.extend_from_slice(&ethertype::IPV6.to_be_bytes());
                f.extend_from_slice(&self.ipv6_bytes(ip, &l4));
                f.extend_from_slice(&l4);
            }
            L3::Pl2(m) => {
                f.extend_from_slice(&ethertype::PL2.to_be_bytes());
                f.extend_from_slice(&[m.kind, m.demand, m.src_port, m.dst_port]);
                f.extend_from_slice(&m.send_timeslot.to_be_bytes());
                f.extend_from_slice(&m.recv_timeslot.to_be_bytes());
                f.extend_from_slice(&m.cookie.to_be_bytes());
                f.extend_from_slice(&self.payload);
            }
            L3::Other(t) => {
                f.extend_from_slice(&t.to_be_bytes());
                f.extend_from_slice(&self.payload);
            }
        }
        if f.len() < MIN_FRAME {
            f.resize(MIN_FRAME, 0);
        }
        f
    }

    /// Serializes with the FCS appended (what travels on the wire).
    pub fn to_wire(&self) -> Vec<u8> {
        let mut f = self.to_bytes();
        append_fcs(&mut f);
        f
    }

    /// The L4 header and payload, with the UDP checksum left zero (it needs the
    /// IP addresses, filled in by `ipv4_bytes`/`ipv6_bytes`' callers).
    fn l4_bytes(&self) -> Vec<u8> {
        let mut b = vec![];
        match &self.l4 {
            L4::Udp(u) => {
                b.extend_from_slice(&u.sport.to_be_bytes());
                b.extend_from_slice(&u.dport.to_be_bytes());
                b.extend_from_slice(&((8 + self.payload.len()) as u16).to_be_bytes());
                b.extend_from_slice(&[0, 0]);
                b.extend_from_slice(&self.payload);
                let c = match &self.l3 {
                    L3::Ipv4(ip) => checksum::udp_ipv4(ip.src, ip.dst, &b),
                    L3::Ipv6(ip) => checksum::udp_ipv6(ip.src, ip.dst, &b),
                    _ => 0,
                };
                b[6..8].copy_from_slice(&c.to_be_bytes());
            }
            L4::Ndp(n) => {
                b.extend_from_slice(&[n.flags, 0]);
                b.extend_from_slice(&n.src_port.to_be_bytes());
                b.extend_from_slice(&n.dst_port.to_be_bytes());
                b.extend_from_slice(&n.path_id.to_be_bytes());
                b.extend_from_slice(&n.seq.to_be_bytes());
                b.extend_from_slice(&n.ack_or_pull.to_be_bytes());
                b.extend_from_slice(&self.payload);
            }
            L4::None => b.extend_from_slice(&self.payload),
        }
        b
    }

    fn protocol(&self, given: u8) -> u8 {
        match self.l4 {
            L4::Udp(_) => ipproto::UDP,
            L4::Ndp(_) => ipproto::NDP,
            L4::None => given,
        }
    }

    fn ipv4_bytes(&self, ip: &Ipv4, l4: &[u8]) -> Vec<u8> {
        assert!(ip.options.len().is_multiple_of(4) && ip.options.len() <= 40, "IPv4 options must be a multiple of 4 bytes, at most 40");
        let ihl = 5 + ip.options.len() / 4;
        let total = (4 * ihl + l4.len()) as u16;
        let mut h = vec![(4 << 4) | ihl as u8, (ip.dscp & 0x3f) << 2 | (ip.ecn & 3)];
        h.extend_from_slice(&total.to_be_bytes());
        h.extend_from_slice(&ip.id.to_be_bytes());
        h.extend_from_slice(&(if ip.dont_fragment { 0x4000u16 } else { 0 }).to_be_bytes());
        h.extend_from_slice(&[ip.ttl, self.protocol(ip.protocol), 0, 0]);
        h.extend_from_slice(&ip.src);
        h.extend_from_slice(&ip.dst);
        h.extend_from_slice(&ip.options);
        let c = checksum::ipv4_header(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        h
    }

    fn ipv6_bytes(&self, ip: &Ipv6, l4: &[u8]) -> Vec<u8> {
        let tc = (ip.dscp & 0x3f) << 2 | (ip.ecn & 3);
        let w = 6u32 << 28 | (tc as u32) << 20 | (ip.flow_label & 0xf_ffff);
        let mut h = w.to_be_bytes().to_vec();
        h.extend_from_slice(&(l4.len() as u16).to_be_bytes());
        h.extend_from_slice(&[self.protocol(ip.next_header), ip.hop_limit]);
        h.extend_from_slice(&ip.src);
        h.extend_from_slice(&ip.dst);
        h
    }
}

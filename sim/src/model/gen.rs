//! Seeded frame generators for the ingress tests (`docs/ingress.md`): random
//! wire frames of every header mix the packet library builds, with a
//! configurable share of faults, and a corpus of frames that each fail exactly
//! one chosen check.
//!
//! Every frame is built with the packet library ([`Frame`]) and then, for the
//! malformed ones, corrupted at known offsets; the IPv4 header checksum is fixed
//! up after corrupting any other header field, so the intended check is the
//! first that fails (`docs/ingress.md`, "parser (PHV)": the first failing check
//! wins). The malformed frames are built to fail the same way whether or not
//! the FCS is stripped before the parser (`L` one FCS longer or not).
use super::{RxDrop, Settings, MAC_MASK};
use crate::packet::checksum;
use crate::packet::crc::append_fcs;
use crate::packet::frame::{ethertype, Mac};
use crate::packet::{Frame, Ipv4, Ipv6, Ndp, Pl2, Protego, Udp, Vlan, L3, L4};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::ingress::phv::malformed;

/// What [`random_frame`] draws from.
#[derive(Clone, Debug, PartialEq)]
pub struct GenOpts {
    /// Smallest wire size (FCS included) of a good frame; default 64.
    pub min_size: usize,
    /// Largest wire size (FCS included) of a good frame; default 9018.
    pub max_size: usize,
    /// Probability (0..=1) that a frame is a fault: bad FCS, runt, empty,
    /// oversize or malformed. Default 0.
    pub fault_rate: f64,
    /// The router MAC: IPv4 frames to it are routed.
    pub router_mac: u64,
    /// L2 table MACs to address often.
    pub l2_macs: Vec<u64>,
    /// Route prefixes `(prefix, len)` to aim IPv4 destinations into.
    pub prefixes: Vec<(u32, u8)>,
    /// DSCP values to draw often (the enabled codepoints).
    pub dscp: Vec<u8>,
    /// `min_frame`: injected runts are shorter (FCS included).
    pub min_frame: usize,
    /// `max_frame`: injected oversize frames are longer (FCS included).
    pub max_frame: usize,
}

impl Default for GenOpts {
    /// 64..=9018-byte frames without faults, for [`Settings::default`]
    /// (router MAC 02:00:00:00:00:fe, codepoints 10, 12, 48, empty tables).
    fn default() -> GenOpts {
        GenOpts::from_settings(&Settings::default())
    }
}

impl GenOpts {
    /// Options aimed at `s`: its router MAC, the valid L2 MACs and route
    /// prefixes, the enabled codepoints, and good sizes within
    /// `max(64, min_frame)..=min(9018, max_frame)`. No faults.
    pub fn from_settings(s: &Settings) -> GenOpts {
        GenOpts {
            min_size: (s.min_frame as usize).max(64),
            max_size: (s.max_frame as usize).min(9018),
            fault_rate: 0.0,
            router_mac: s.router_mac & MAC_MASK,
            l2_macs: s.l2.iter().flatten().map(|e| e.mac & MAC_MASK).collect(),
            prefixes: s.routes.iter().flatten().map(|r| (r.prefix, r.len.min(32))).collect(),
            dscp: [s.dscp_trimmable, s.dscp_trimmed, s.dscp_control].into_iter().flatten().collect(),
            min_frame: s.min_frame as usize,
            max_frame: s.max_frame as usize,
        }
    }

    /// The same options with fault probability `rate`.
    pub fn with_faults(mut self, rate: f64) -> GenOpts {
        self.fault_rate = rate;
        self
    }
}

/// The expected outcome of a [`CorpusCase`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expect {
    /// Dropped by `rx_fcs` for this reason.
    RxDrop(RxDrop),
    /// Passes `rx_fcs`; the parser reports this code of `phv::malformed`.
    Malformed(u8),
    /// Passes `rx_fcs` and parses well formed (lookup then decides).
    Ok,
}

/// One frame of [`malformed_corpus`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusCase {
    /// A short identifier (`ipv4_bad_checksum`, ...), unique in the corpus.
    pub name: &'static str,
    /// The frame as received, FCS included.
    pub wire: Vec<u8>,
    /// What the model (and the RTL) must do with it.
    pub expect: Expect,
}

fn mac_bytes(m: u64) -> Mac {
    let b = m.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

fn random_bytes<R: Rng + ?Sized>(rng: &mut R, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill(&mut v[..]);
    v
}

fn with_fcs(mut b: Vec<u8>) -> Vec<u8> {
    append_fcs(&mut b);
    b
}

/// The Ethernet part of a frame: addresses and tags.
#[derive(Clone, Debug)]
struct Shape {
    dst: Mac,
    src: Mac,
    vlans: Vec<Vlan>,
    protego: Option<Protego>,
}

impl Shape {
    fn l3_off(&self) -> usize {
        14 + 4 * self.vlans.len() + if self.protego.is_some() { 5 } else { 0 }
    }

    fn frame(&self, l3: L3, l4: L4, payload: Vec<u8>) -> Frame {
        Frame { dst: self.dst, src: self.src, vlans: self.vlans.clone(), protego: self.protego.clone(), l3, l4, payload }
    }
}

fn random_vlan<R: Rng + ?Sized>(rng: &mut R) -> Vlan {
    let tpid = if rng.gen_bool(0.25) { ethertype::QINQ } else { ethertype::VLAN };
    Vlan { tpid, pcp: rng.gen_range(0..8), dei: rng.gen_bool(0.1), vid: rng.gen_range(0..4096) }
}

fn random_protego<R: Rng + ?Sized>(rng: &mut R) -> Protego {
    Protego { kind: rng.gen_range(0..4), era: rng.gen(), seq: rng.gen() }
}

/// A destination MAC: the router's with probability `p_router`, else an L2
/// table MAC or a random one (sometimes broadcast).
fn random_dst<R: Rng + ?Sized>(rng: &mut R, o: &GenOpts, p_router: f64) -> u64 {
    if rng.gen_bool(p_router) {
        o.router_mac
    } else if !o.l2_macs.is_empty() && rng.gen_bool(0.6) {
        o.l2_macs[rng.gen_range(0..o.l2_macs.len())]
    } else if rng.gen_bool(0.1) {
        MAC_MASK
    } else {
        rng.gen::<u64>() & MAC_MASK
    }
}

fn random_shape<R: Rng + ?Sized>(rng: &mut R, dst: u64, vlans: usize, protego: bool) -> Shape {
    Shape {
        dst: mac_bytes(dst),
        src: mac_bytes(rng.gen::<u64>() & MAC_MASK & !(1 << 40)),
        vlans: (0..vlans).map(|_| random_vlan(rng)).collect(),
        protego: protego.then(|| random_protego(rng)),
    }
}

fn random_dscp<R: Rng + ?Sized>(rng: &mut R, o: &GenOpts) -> u8 {
    if !o.dscp.is_empty() && rng.gen_bool(0.5) {
        o.dscp[rng.gen_range(0..o.dscp.len())]
    } else {
        rng.gen_range(0..64)
    }
}

/// IP protocols other than UDP and NDP (none an IPv6 extension header, so an
/// independent parser reads the same next header).
const OTHER_PROTOS: [u8; 6] = [1, 2, 47, 89, 103, 132];

fn random_ipv4<R: Rng + ?Sized>(rng: &mut R, o: &GenOpts) -> Ipv4 {
    let dst = if !o.prefixes.is_empty() && rng.gen_bool(0.6) {
        let (p, len) = o.prefixes[rng.gen_range(0..o.prefixes.len())];
        let mask = if len == 0 { 0 } else { u32::MAX << (32 - len as u32) };
        (p & mask) | (rng.gen::<u32>() & !mask)
    } else {
        rng.gen()
    };
    let options = if rng.gen_bool(0.25) { vec![1u8; 4 * rng.gen_range(1..=10)] } else { vec![] };
    Ipv4 {
        dscp: random_dscp(rng, o),
        ecn: rng.gen_range(0..4),
        id: rng.gen(),
        dont_fragment: rng.gen(),
        ttl: rng.gen_range(1..=255),
        protocol: OTHER_PROTOS[rng.gen_range(0..OTHER_PROTOS.len())],
        src: rng.gen(),
        dst: dst.to_be_bytes(),
        options,
    }
}

fn random_ipv6<R: Rng + ?Sized>(rng: &mut R, o: &GenOpts) -> Ipv6 {
    Ipv6 {
        dscp: random_dscp(rng, o),
        ecn: rng.gen_range(0..4),
        flow_label: rng.gen_range(0..1 << 20),
        hop_limit: rng.gen(),
        next_header: OTHER_PROTOS[rng.gen_range(0..OTHER_PROTOS.len())],
        src: rng.gen(),
        dst: rng.gen(),
    }
}

fn random_ndp<R: Rng + ?Sized>(rng: &mut R) -> Ndp {
    let flags = match rng.gen_range(0..10) {
        0..=3 => Ndp::DATA | if rng.gen() { Ndp::LAST } else { 0 } | if rng.gen_bool(0.1) { Ndp::RETURNED } else { 0 },
        4..=5 => Ndp::DATA | Ndp::TRIMMED | if rng.gen_bool(0.2) { Ndp::RETURNED } else { 0 },
        6..=8 => [Ndp::ACK, Ndp::NACK, Ndp::PULL, Ndp::ACK | Ndp::PULL, Ndp::NACK | Ndp::PULL][rng.gen_range(0..5)],
        _ => rng.gen(),
    };
    Ndp { flags, src_port: rng.gen(), dst_port: rng.gen(), path_id: rng.gen(), seq: rng.gen(), ack_or_pull: rng.gen() }
}

fn random_l4<R: Rng + ?Sized>(rng: &mut R) -> L4 {
    match rng.gen_range(0..10) {
        0..=3 => L4::Udp(Udp { sport: rng.gen(), dport: rng.gen() }),
        4..=7 => L4::Ndp(random_ndp(rng)),
        _ => L4::None,
    }
}

fn l4_len(l4: &L4) -> usize {
    match l4 {
        L4::Udp(_) => 8,
        L4::Ndp(_) => Ndp::LEN,
        L4::None => 0,
    }
}

/// A wire size in `lo..=hi` biased to both ends: 15% exactly `lo`, 35% up to
/// 128, 30% up to 1518, 20% above.
fn random_size<R: Rng + ?Sized>(rng: &mut R, lo: usize, hi: usize) -> usize {
    let hi = hi.max(lo);
    let (a, b) = match rng.gen_range(0..100) {
        0..=14 => (lo, lo),
        15..=49 => (lo, 128),
        50..=79 => (129, 1518),
        _ => (1519, hi),
    };
    let (a, b) = (a.clamp(lo, hi), b.clamp(lo, hi));
    if a <= b {
        rng.gen_range(a..=b)
    } else {
        rng.gen_range(lo..=hi)
    }
}

/// A well-formed frame of roughly `size` wire bytes (exactly, unless its
/// headers alone are longer).
fn good_frame<R: Rng + ?Sized>(rng: &mut R, o: &GenOpts, size: usize) -> Frame {
    let vlans = [0, 0, 0, 1, 1, 2][rng.gen_range(0..6)];
    let tagged = rng.gen_bool(0.2);
    let kind = rng.gen_range(0..100);
    let (l3, l4, protego, p_router) = match kind {
        0..=44 => (L3::Ipv4(random_ipv4(rng, o)), random_l4(rng), tagged, 0.5),
        45..=69 => (L3::Ipv6(random_ipv6(rng, o)), random_l4(rng), tagged, 0.15),
        70..=77 => {
            let m = Pl2 {
                kind: if rng.gen() { Pl2::RSV } else { Pl2::GRT },
                demand: rng.gen_range(1..=4),
                src_port: rng.gen(),
                dst_port: rng.gen(),
                send_timeslot: rng.gen(),
                recv_timeslot: rng.gen(),
                cookie: rng.gen(),
            };
            (L3::Pl2(m), L4::None, tagged, 0.1)
        }
        78..=84 => (L3::Other(ethertype::PROTEGO), L4::None, true, 0.1),
        _ => {
            let t = match rng.gen_range(0..6) {
                0 => 0x0806,
                1 => ethertype::MAC_CONTROL,
                2 => [0x88cc, 0x88f7, 0x8809, 0x0842, 0x1234, 0x22f0][rng.gen_range(0..6)],
                _ => loop {
                    let t: u16 = rng.gen();
                    let known = [0x0800, 0x86dd, 0x8100, 0x88a8, 0x88b5, 0x88b6, 0x9100, 0x88e5];
                    if !known.contains(&t) {
                        break t;
                    }
                },
            };
            (L3::Other(t), L4::None, tagged, 0.1)
        }
    };
    let dst = random_dst(rng, o, p_router);
    let shape = random_shape(rng, dst, vlans, protego);
    let l3_len = match &l3 {
        L3::Ipv4(ip) => 20 + ip.options.len(),
        L3::Ipv6(_) => 40,
        L3::Pl2(_) => Pl2::LEN,
        L3::Other(_) => 0,
    };
    let headers = shape.l3_off() + l3_len + l4_len(&l4);
    // PL2 and Protego control frames are minimum-size messages most of the time.
    let size = if matches!(l3, L3::Pl2(_) | L3::Other(ethertype::PROTEGO)) && rng.gen_bool(0.8) { o.min_size } else { size };
    let n = size.saturating_sub(4 + headers);
    let payload = match &l3 {
        L3::Other(0x8808) => {
            // PFC (IEEE 802.1Qbb): opcode 0x0101, class-enable vector, 8 pause times.
            let mut p = vec![0x01, 0x01, 0, rng.gen()];
            p.extend(random_bytes(rng, 16));
            p.resize(n.max(p.len()), 0);
            p
        }
        L3::Pl2(_) | L3::Other(ethertype::PROTEGO) => vec![0; n],
        _ => random_bytes(rng, n),
    };
    shape.frame(l3, l4, payload)
}

/// A random wire frame (FCS included) per `o`, see the module documentation.
///
/// Good frames (probability `1 - fault_rate`) are `o.min_size..=o.max_size`
/// bytes, biased to both small (64–128 B) and large sizes, and mix 0..=2 VLAN
/// tags (0x8100 or 0x88A8), an optional Protego tag, IPv4 (with options) and
/// IPv6 carrying UDP, NDP (data, trimmed data, control, random flags) or other
/// protocols, PL2 RSV/GRT, Protego control frames, ARP, PFC and other
/// EtherTypes. DSCP values hit `o.dscp` half the time; IPv4 destinations fall in
/// `o.prefixes` 60% of the time; destination MACs are the router MAC (half of
/// the IPv4 frames), an L2 MAC or random.
///
/// Faults: 50% malformed (every reason `o.min_frame`/`o.max_frame` leave room
/// for, see [`malformed_corpus`]), 20% bad FCS (a burst of at most 8 bits,
/// always detected), 15% runts (a real frame cut to `1..max(min_frame, 5)`
/// bytes, half of them with a correct FCS), 10% oversize (`max_frame + 1..=64`
/// bytes, correct FCS), 5% empty. A malformed fault the settings leave no room
/// for becomes a bad FCS.
pub fn random_frame<R: Rng + ?Sized>(rng: &mut R, o: &GenOpts) -> Vec<u8> {
    if o.fault_rate > 0.0 && rng.gen_bool(o.fault_rate.min(1.0)) {
        return fault(rng, o);
    }
    good_wire(rng, o)
}

fn good_wire<R: Rng + ?Sized>(rng: &mut R, o: &GenOpts) -> Vec<u8> {
    for _ in 0..16 {
        let size = random_size(rng, o.min_size, o.max_size);
        let w = good_frame(rng, o, size).to_wire();
        if w.len() <= o.max_size.max(64) {
            return w;
        }
    }
    // Headers longer than `max_size` every time: a bare minimum-size frame.
    Shape { dst: mac_bytes(o.router_mac), src: [2, 0, 0, 0, 0, 0xaa], vlans: vec![], protego: None }
        .frame(L3::Other(0x1234), L4::None, vec![])
        .to_wire()
}

/// A frame exactly `size` wire bytes long (at least 64): IPv4/UDP to `dst`, padded.
fn sized_wire<R: Rng + ?Sized>(rng: &mut R, o: &GenOpts, dst: u64, size: usize) -> Vec<u8> {
    let shape = random_shape(rng, dst, 0, false);
    let ip = Ipv4 { options: vec![], ..random_ipv4(rng, o) };
    let n = size.saturating_sub(4 + 14 + 20 + 8);
    shape.frame(L3::Ipv4(ip), L4::Udp(Udp { sport: rng.gen(), dport: rng.gen() }), random_bytes(rng, n)).to_wire()
}

fn fault<R: Rng + ?Sized>(rng: &mut R, o: &GenOpts) -> Vec<u8> {
    let pick = rng.gen_range(0..100);
    if pick < 50 {
        for _ in 0..8 {
            let m = Mal::ALL[rng.gen_range(0..Mal::ALL.len())];
            let (dst, vlans, protego) = (random_dst(rng, o, 0.3), rng.gen_range(0..=2), rng.gen_bool(0.2));
            let shape = random_shape(rng, dst, vlans, protego);
            if let Some((b, _)) = m.build(rng, o, shape) {
                let w = with_fcs(b);
                if w.len() >= o.min_frame && w.len() <= o.max_frame {
                    return w;
                }
            }
        }
    }
    if (70..85).contains(&pick) {
        // Runt: a real frame cut short (below min_frame, or to at most 4
        // bytes), with a correct FCS half the time.
        let n = rng.gen_range(1..o.min_frame.max(5));
        let mut w = good_wire(rng, o);
        if n > 4 && rng.gen() {
            w.truncate(n - 4);
            return with_fcs(w);
        }
        w.truncate(n);
        return w;
    }
    if (85..95).contains(&pick) {
        let (dst, size) = (random_dst(rng, o, 0.3), o.max_frame + rng.gen_range(1..=64));
        return sized_wire(rng, o, dst, size);
    }
    if pick >= 95 {
        return vec![];
    }
    // Bad FCS: a burst of at most 8 bits anywhere, always detected.
    let mut w = good_wire(rng, o);
    let i = rng.gen_range(0..w.len());
    w[i] ^= rng.gen_range(1..=255u8);
    w
}

/// The malformations, each aimed at one parser check (`docs/ingress.md`,
/// "parser (PHV)").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mal {
    L2Truncated,
    VlanDepth,
    Ipv4Version,
    Ipv6Version,
    Ipv4Ihl,
    Ipv4Truncated,
    Ipv4LengthLarge,
    Ipv4LengthSmall,
    Ipv4Checksum,
    Ipv6Truncated,
    Ipv6Length,
    L4TruncatedUdp4,
    L4TruncatedNdp4,
    L4TruncatedUdp6,
    L4TruncatedNdp6,
    UdpLengthSmall,
    UdpLengthLarge,
    Pl2Truncated,
    Pl2Kind,
}

impl Mal {
    const ALL: [Mal; 19] = [
        Mal::L2Truncated,
        Mal::VlanDepth,
        Mal::Ipv4Version,
        Mal::Ipv6Version,
        Mal::Ipv4Ihl,
        Mal::Ipv4Truncated,
        Mal::Ipv4LengthLarge,
        Mal::Ipv4LengthSmall,
        Mal::Ipv4Checksum,
        Mal::Ipv6Truncated,
        Mal::Ipv6Length,
        Mal::L4TruncatedUdp4,
        Mal::L4TruncatedNdp4,
        Mal::L4TruncatedUdp6,
        Mal::L4TruncatedNdp6,
        Mal::UdpLengthSmall,
        Mal::UdpLengthLarge,
        Mal::Pl2Truncated,
        Mal::Pl2Kind,
    ];

    /// Builds the frame (without FCS) and its expected code. `shape` gives the
    /// addresses and tags; cases that need particular tags override them.
    /// `None` when `o` leaves no room (a cut-short frame can only be a runt).
    fn build<R: Rng + ?Sized>(self, rng: &mut R, o: &GenOpts, mut shape: Shape) -> Option<(Vec<u8>, u8)> {
        let payload_len = if rng.gen_bool(0.7) { rng.gen_range(0..64) } else { rng.gen_range(0..1200) };
        let mut payload = random_bytes(rng, payload_len);
        let ip4 = |rng: &mut R| Ipv4 { options: if rng.gen() { vec![1; 4 * rng.gen_range(1..=4)] } else { vec![] }, ..random_ipv4(rng, o) };
        let udp = |rng: &mut R| L4::Udp(Udp { sport: rng.gen(), dport: rng.gen() });
        let b = shape.l3_off();
        // Both ways the parser can see the frame: FCS stripped or kept.
        let l_max = |bytes: &[u8]| bytes.len() + 4;
        Some(match self {
            Mal::L2Truncated => {
                // dst, src, two tags, 0x88B6: l3_off = 27 > L, even with the FCS kept.
                shape.vlans = vec![random_vlan(rng), random_vlan(rng)];
                shape.protego = Some(random_protego(rng));
                let mut f = shape.frame(L3::Other(0x0800), L4::None, vec![]).to_bytes();
                f.truncate(22);
                (f, malformed::L2_TRUNCATED)
            }
            Mal::VlanDepth => {
                shape.vlans = vec![random_vlan(rng), random_vlan(rng), random_vlan(rng)];
                (shape.frame(L3::Ipv4(ip4(rng)), udp(rng), payload).to_bytes(), malformed::VLAN_DEPTH)
            }
            Mal::Ipv4Version => {
                let mut f = shape.frame(L3::Ipv4(ip4(rng)), random_l4(rng), payload).to_bytes();
                let v = [0u8, 1, 2, 3, 5, 6, 7, 8, 15][rng.gen_range(0..9)];
                f[b] = v << 4 | (f[b] & 15);
                (f, malformed::IP_VERSION)
            }
            Mal::Ipv6Version => {
                let mut f = shape.frame(L3::Ipv6(random_ipv6(rng, o)), random_l4(rng), payload).to_bytes();
                let v = [0u8, 4, 5, 7, 15][rng.gen_range(0..5)];
                f[b] = v << 4 | (f[b] & 15);
                (f, malformed::IP_VERSION)
            }
            Mal::Ipv4Ihl => {
                let mut f = shape.frame(L3::Ipv4(ip4(rng)), random_l4(rng), payload).to_bytes();
                f[b] = 0x40 | rng.gen_range(0..5);
                (f, malformed::IPV4_IHL)
            }
            Mal::Ipv4Truncated => {
                // A header-only IPv4 packet padded to 60 bytes, whose IHL claims
                // more than the frame (with or without FCS) holds.
                let ip = Ipv4 { options: vec![], ..random_ipv4(rng, o) };
                let mut f = shape.frame(L3::Ipv4(ip), L4::None, vec![]).to_bytes();
                let need = (l_max(&f) - b) / 4 + 1;
                if need > 15 {
                    return None;
                }
                f[b] = 0x40 | rng.gen_range(need as u8..=15);
                fix_ipv4_checksum(&mut f, b);
                (f, malformed::IPV4_TRUNCATED)
            }
            Mal::Ipv4LengthLarge => {
                let mut f = shape.frame(L3::Ipv4(ip4(rng)), random_l4(rng), payload).to_bytes();
                let total = (l_max(&f) - b + rng.gen_range(1..=100)).min(0xffff);
                f[b + 2..b + 4].copy_from_slice(&(total as u16).to_be_bytes());
                fix_ipv4_checksum(&mut f, b);
                (f, malformed::IPV4_LENGTH)
            }
            Mal::Ipv4LengthSmall => {
                let mut f = shape.frame(L3::Ipv4(ip4(rng)), random_l4(rng), payload).to_bytes();
                let hl = 4 * (f[b] & 15) as u16;
                f[b + 2..b + 4].copy_from_slice(&rng.gen_range(0..hl).to_be_bytes());
                fix_ipv4_checksum(&mut f, b);
                (f, malformed::IPV4_LENGTH)
            }
            Mal::Ipv4Checksum => {
                let mut f = shape.frame(L3::Ipv4(ip4(rng)), random_l4(rng), payload).to_bytes();
                let hl = 4 * (f[b] & 15) as usize;
                // 0x0000 and 0xffff are both "zero" in one's complement: retry
                // until the sum really is wrong.
                loop {
                    let c: u16 = rng.gen();
                    f[b + 10..b + 12].copy_from_slice(&c.to_be_bytes());
                    if checksum::ones_sum(0, &f[b..b + hl]) != 0xffff {
                        break;
                    }
                }
                (f, malformed::IPV4_CHECKSUM)
            }
            Mal::Ipv6Truncated => {
                // l3_off = 27 (two tags and Protego); 60 bytes: 27 + 40 > 64.
                shape.vlans = vec![random_vlan(rng), random_vlan(rng)];
                shape.protego = Some(random_protego(rng));
                let mut f = shape.frame(L3::Ipv6(random_ipv6(rng, o)), L4::None, vec![]).to_bytes();
                f.truncate(60);
                (f, malformed::IPV6_TRUNCATED)
            }
            Mal::Ipv6Length => {
                let mut f = shape.frame(L3::Ipv6(random_ipv6(rng, o)), random_l4(rng), payload).to_bytes();
                let plen = (l_max(&f) - b - 40 + rng.gen_range(1..=100)).min(0xffff);
                f[b + 4..b + 6].copy_from_slice(&(plen as u16).to_be_bytes());
                (f, malformed::IPV6_LENGTH)
            }
            Mal::L4TruncatedUdp4 | Mal::L4TruncatedNdp4 => {
                let l4 = if self == Mal::L4TruncatedUdp4 { udp(rng) } else { L4::Ndp(random_ndp(rng)) };
                let short = rng.gen_range(0..l4_len(&l4)) as u16;
                let mut f = shape.frame(L3::Ipv4(ip4(rng)), l4, payload).to_bytes();
                let hl = 4 * (f[b] & 15) as u16;
                f[b + 2..b + 4].copy_from_slice(&(hl + short).to_be_bytes());
                fix_ipv4_checksum(&mut f, b);
                (f, malformed::L4_TRUNCATED)
            }
            Mal::L4TruncatedUdp6 | Mal::L4TruncatedNdp6 => {
                let l4 = if self == Mal::L4TruncatedUdp6 { udp(rng) } else { L4::Ndp(random_ndp(rng)) };
                let short = rng.gen_range(0..l4_len(&l4)) as u16;
                let mut f = shape.frame(L3::Ipv6(random_ipv6(rng, o)), l4, payload).to_bytes();
                f[b + 4..b + 6].copy_from_slice(&short.to_be_bytes());
                (f, malformed::L4_TRUNCATED)
            }
            Mal::UdpLengthSmall | Mal::UdpLengthLarge => {
                let v6 = rng.gen();
                let l3 = if v6 { L3::Ipv6(random_ipv6(rng, o)) } else { L3::Ipv4(ip4(rng)) };
                let mut f = shape.frame(l3, udp(rng), payload).to_bytes();
                let l4_off = if v6 { b + 40 } else { b + 4 * (f[b] & 15) as usize };
                // The library sets UDP length = e - l4_off.
                let room = u16::from_be_bytes([f[l4_off + 4], f[l4_off + 5]]);
                let ulen = if self == Mal::UdpLengthSmall { rng.gen_range(0..8) } else { room.saturating_add(rng.gen_range(1..=100)) };
                f[l4_off + 4..l4_off + 6].copy_from_slice(&ulen.to_be_bytes());
                (f, malformed::UDP_LENGTH)
            }
            Mal::Pl2Truncated => {
                // l3_off = 27; 27..=38 bytes: 27 + 16 > L even with the FCS kept.
                shape.vlans = vec![random_vlan(rng), random_vlan(rng)];
                shape.protego = Some(random_protego(rng));
                let m = Pl2 { kind: Pl2::RSV, demand: 1, ..Pl2::default() };
                let mut f = shape.frame(L3::Pl2(m), L4::None, vec![]).to_bytes();
                f.truncate(rng.gen_range(27..=38));
                (f, malformed::PL2_TRUNCATED)
            }
            Mal::Pl2Kind => {
                let kind = loop {
                    let k: u8 = rng.gen();
                    if k != Pl2::RSV && k != Pl2::GRT {
                        break k;
                    }
                };
                payload.clear();
                let m = Pl2 { kind, demand: rng.gen_range(1..=4), src_port: rng.gen(), dst_port: rng.gen(), ..Pl2::default() };
                (shape.frame(L3::Pl2(m), L4::None, payload).to_bytes(), malformed::PL2_KIND)
            }
        })
    }
}

/// Recomputes the IPv4 header checksum at `b` (for IHL >= 5 headers that fit).
fn fix_ipv4_checksum(f: &mut [u8], b: usize) {
    let hl = 4 * (f[b] & 15) as usize;
    if hl < 20 || b + hl > f.len() {
        return;
    }
    f[b + 10..b + 12].copy_from_slice(&[0, 0]);
    let c = checksum::ipv4_header(&f[b..b + hl]);
    f[b + 10..b + 12].copy_from_slice(&c.to_be_bytes());
}

/// A fixed corpus of frames (deterministic), each failing exactly one chosen
/// check or none, with its expected outcome under `s`:
///
/// - rx_fcs: bad FCS (a flipped bit; a corrupted FCS byte), runt
///   (`max(min_frame, 5) - 1` bytes, correct FCS; and with a bad FCS: still a
///   runt; the 4-byte FCS of an empty frame), empty, oversize (`max_frame + 1` bytes and a jumbo of `max_frame + 982`,
///   correct FCS);
/// - parser: L2 truncated (a 26-byte frame, only when `min_frame` allows),
///   triple VLAN, IP version mismatch (IPv4 and IPv6), IHL < 5 (4 and 0),
///   truncated IPv4 header (IHL 13..=15 in a 64-byte frame), IPv4 total length
///   larger than the frame and smaller than 4 * IHL, bad IPv4 checksum,
///   truncated IPv6 header (64-byte frame with two VLANs and Protego), IPv6
///   payload length too large, UDP and NDP headers cut by the IP length (over
///   IPv4 and IPv6), UDP length < 8 and larger than the IP payload, PL2
///   truncated (only when `min_frame` allows), PL2 kinds 0, 3 and 255;
/// - well formed: ARP, PFC (0x8808), unknown EtherTypes, IPv4 padded past its
///   total length, IPv4 with a 60-byte header, UDP length shorter than the IP
///   payload, IPv6/NDP, PL2 RSV and GRT, Protego control and Protego-tagged IP,
///   QinQ, a frame of exactly `min_frame` (at least 64) and of `max_frame` bytes.
///
/// Frames go to the first valid L2 entry's MAC (else 02:00:00:00:00:00), so
/// with `malformed_drop` clear the malformed ones are forwarded. Cases whose
/// size falls outside `min_frame..=max_frame` under `s` are left out (they
/// would be runts or oversize instead).
pub fn malformed_corpus(s: &Settings) -> Vec<CorpusCase> {
    let mut rng = SmallRng::seed_from_u64(0x7a11_c0de);
    let o = GenOpts { dscp: vec![], prefixes: vec![], ..GenOpts::from_settings(s) };
    let dst = s.l2.iter().flatten().find(|e| (e.port as usize) < s.ports).map_or(0x0200_0000_0000, |e| e.mac & MAC_MASK);
    let shape = |rng: &mut SmallRng, vlans: usize, protego: bool| random_shape(rng, dst, vlans, protego);
    let v4 = |rng: &mut SmallRng| Ipv4 { dscp: 0, ecn: 0, options: vec![], protocol: 253, ..random_ipv4(rng, &o) };
    let v6 = |rng: &mut SmallRng| Ipv6 { dscp: 0, ecn: 0, next_header: 253, ..random_ipv6(rng, &o) };
    let udp = |rng: &mut SmallRng| L4::Udp(Udp { sport: rng.gen(), dport: rng.gen() });
    let (min, max) = (s.min_frame as usize, s.max_frame as usize);
    let mut out = vec![];
    let mut push = |name: &'static str, wire: Vec<u8>, expect: Expect| {
        let fits = wire.len() > 4 && wire.len() >= min && wire.len() <= max;
        if matches!(expect, Expect::RxDrop(_)) || fits {
            out.push(CorpusCase { name, wire, expect });
        }
    };

    // rx_fcs.
    let mut w = shape(&mut rng, 0, false).frame(L3::Ipv4(v4(&mut rng)), udp(&mut rng), random_bytes(&mut rng, 82)).to_wire();
    w[40] ^= 0x10;
    if w.len() >= min && w.len() <= max {
        push("bad_fcs_flipped_bit", w, Expect::RxDrop(RxDrop::Fcs));
    }
    let mut w = shape(&mut rng, 0, false).frame(L3::Other(0x0806), L4::None, vec![]).to_wire();
    let n = w.len();
    w[n - 1] ^= 0xff;
    if n >= min && n <= max {
        push("bad_fcs_in_fcs", w, Expect::RxDrop(RxDrop::Fcs));
    }
    // Runts: one byte short of min_frame (or of 5 bytes), with a correct FCS
    // and with a bad one; and the 4-byte FCS of an empty frame, which passes
    // the residue check but is a runt whatever min_frame says.
    let mut good = shape(&mut rng, 0, false).frame(L3::Ipv4(v4(&mut rng)), udp(&mut rng), random_bytes(&mut rng, 100)).to_bytes();
    good.truncate(min.max(5) - 5);
    let w = with_fcs(good);
    let mut bad = w.clone();
    bad[0] ^= 1;
    push("runt_min_minus_1", w, Expect::RxDrop(RxDrop::Runt));
    push("runt_bad_fcs", bad, Expect::RxDrop(RxDrop::Runt));
    push("runt_fcs_only", with_fcs(vec![]), Expect::RxDrop(RxDrop::Runt));
    push("empty", vec![], Expect::RxDrop(RxDrop::Empty));
    push("oversize_max_plus_1", sized_wire(&mut rng, &o, dst, max + 1), Expect::RxDrop(RxDrop::Oversize));
    push("jumbo_oversize", sized_wire(&mut rng, &o, dst, max + 982), Expect::RxDrop(RxDrop::Oversize));
    push("size_min_frame", sized_wire(&mut rng, &o, dst, min.max(64)), Expect::Ok);
    push("size_max_frame", sized_wire(&mut rng, &o, dst, max), Expect::Ok);

    // Parser: one case per check, built by the same code as the random faults.
    let cases: [(&'static str, Mal, usize, bool); 18] = [
        ("l2_truncated", Mal::L2Truncated, 2, true),
        ("triple_vlan", Mal::VlanDepth, 0, false),
        ("ipv4_version_mismatch", Mal::Ipv4Version, 1, false),
        ("ipv6_version_mismatch", Mal::Ipv6Version, 0, true),
        ("ipv4_ihl_below_5", Mal::Ipv4Ihl, 0, false),
        ("ipv4_header_truncated", Mal::Ipv4Truncated, 0, false),
        ("ipv4_total_length_too_large", Mal::Ipv4LengthLarge, 1, false),
        ("ipv4_total_length_below_header", Mal::Ipv4LengthSmall, 0, false),
        ("ipv4_bad_checksum", Mal::Ipv4Checksum, 0, true),
        ("ipv6_header_truncated", Mal::Ipv6Truncated, 2, true),
        ("ipv6_payload_length_too_large", Mal::Ipv6Length, 2, false),
        ("udp_header_truncated_ipv4", Mal::L4TruncatedUdp4, 0, false),
        ("ndp_header_truncated_ipv4", Mal::L4TruncatedNdp4, 1, true),
        ("udp_header_truncated_ipv6", Mal::L4TruncatedUdp6, 0, false),
        ("ndp_header_truncated_ipv6", Mal::L4TruncatedNdp6, 0, false),
        ("udp_length_below_8", Mal::UdpLengthSmall, 0, false),
        ("udp_length_too_large", Mal::UdpLengthLarge, 1, false),
        ("pl2_truncated", Mal::Pl2Truncated, 2, true),
    ];
    for (name, m, vlans, protego) in cases {
        let sh = shape(&mut rng, vlans, protego);
        if let Some((f, code)) = m.build(&mut rng, &o, sh) {
            push(name, with_fcs(f), Expect::Malformed(code));
        }
    }
    // Fixed values where the random builders would pick one.
    let mut f = shape(&mut rng, 0, false).frame(L3::Ipv4(v4(&mut rng)), udp(&mut rng), vec![]).to_bytes();
    f[14] = 0x40;
    push("ipv4_ihl_zero", with_fcs(f), Expect::Malformed(malformed::IPV4_IHL));
    for (name, kind) in [("pl2_kind_0", 0u8), ("pl2_kind_3", 3), ("pl2_kind_255", 255)] {
        let m = Pl2 { kind, demand: 1, ..Pl2::default() };
        push(name, shape(&mut rng, 0, false).frame(L3::Pl2(m), L4::None, vec![]).to_wire(), Expect::Malformed(malformed::PL2_KIND));
    }

    // Well formed.
    let other = |rng: &mut SmallRng, t: u16, n: usize| {
        let body = random_bytes(rng, n);
        shape(rng, 0, false).frame(L3::Other(t), L4::None, body).to_wire()
    };
    let mut arp = other(&mut rng, 0x0806, 28);
    arp[14..22].copy_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    push("arp", with_fcs(arp[..arp.len() - 4].to_vec()), Expect::Ok);
    let mut pfc = other(&mut rng, ethertype::MAC_CONTROL, 20);
    pfc[14..18].copy_from_slice(&[0x01, 0x01, 0, 0xff]);
    push("pfc_8808", with_fcs(pfc[..pfc.len() - 4].to_vec()), Expect::Ok);
    push("unknown_ethertype_1234", other(&mut rng, 0x1234, 30), Expect::Ok);
    push("unknown_ethertype_88b7", other(&mut rng, 0x88b7, 30), Expect::Ok);
    push("llc_length_field", other(&mut rng, 0x002e, 46), Expect::Ok);
    push(
        "ipv4_padded_past_total_length",
        shape(&mut rng, 0, false).frame(L3::Ipv4(v4(&mut rng)), udp(&mut rng), vec![]).to_wire(),
        Expect::Ok,
    );
    let ip = Ipv4 { options: vec![1; 40], ..v4(&mut rng) };
    push("ipv4_ihl_15_udp", shape(&mut rng, 2, true).frame(L3::Ipv4(ip), udp(&mut rng), random_bytes(&mut rng, 40)).to_wire(), Expect::Ok);
    let mut f = shape(&mut rng, 1, false).frame(L3::Ipv4(v4(&mut rng)), udp(&mut rng), random_bytes(&mut rng, 50)).to_bytes();
    f[18 + 20 + 4..18 + 20 + 6].copy_from_slice(&20u16.to_be_bytes());
    push("udp_length_below_ip_payload", with_fcs(f), Expect::Ok);
    let ndp = Ndp { flags: Ndp::DATA, src_port: 1, dst_port: 2, path_id: 3, seq: 4, ack_or_pull: 0 };
    push(
        "ipv6_ndp_data",
        shape(&mut rng, 1, false).frame(L3::Ipv6(v6(&mut rng)), L4::Ndp(ndp), random_bytes(&mut rng, 100)).to_wire(),
        Expect::Ok,
    );
    let ndp = Ndp { flags: Ndp::ACK, ..Ndp::default() };
    push("ipv4_ndp_ack_exact", shape(&mut rng, 0, false).frame(L3::Ipv4(v4(&mut rng)), L4::Ndp(ndp), vec![]).to_wire(), Expect::Ok);
    for (name, kind) in [("pl2_rsv", Pl2::RSV), ("pl2_grt", Pl2::GRT)] {
        let m = Pl2 { kind, demand: 4, src_port: 1, dst_port: 2, send_timeslot: 9, recv_timeslot: 9, cookie: 0xfeed };
        push(name, shape(&mut rng, 0, false).frame(L3::Pl2(m), L4::None, vec![]).to_wire(), Expect::Ok);
    }
    push("protego_control", shape(&mut rng, 0, true).frame(L3::Other(ethertype::PROTEGO), L4::None, vec![]).to_wire(), Expect::Ok);
    push(
        "protego_ipv6_udp",
        shape(&mut rng, 2, true).frame(L3::Ipv6(v6(&mut rng)), udp(&mut rng), random_bytes(&mut rng, 10)).to_wire(),
        Expect::Ok,
    );
    let mut sh = shape(&mut rng, 2, false);
    sh.vlans[0].tpid = ethertype::QINQ;
    push("qinq_ipv4_udp", sh.frame(L3::Ipv4(v4(&mut rng)), udp(&mut rng), random_bytes(&mut rng, 1000)).to_wire(), Expect::Ok);
    push(
        "ipv4_proto_253",
        shape(&mut rng, 0, false).frame(L3::Ipv4(v4(&mut rng)), L4::None, random_bytes(&mut rng, 7)).to_wire(),
        Expect::Ok,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{parse, rx_fcs};

    /// Every builder yields its code on every shape it accepts, whether or not
    /// the FCS is stripped.
    #[test]
    fn builders_hit_their_check() {
        let mut rng = SmallRng::seed_from_u64(9);
        let o = GenOpts { min_frame: 0, ..GenOpts::default() };
        for strip in [true, false] {
            let s = Settings { strip_fcs: strip, min_frame: 0, ..Settings::default() };
            for m in Mal::ALL {
                for _ in 0..300 {
                    let (vlans, protego) = (rng.gen_range(0..=2), rng.gen());
                    let shape = random_shape(&mut rng, 0x0200_0000_0001, vlans, protego);
                    let Some((f, code)) = m.build(&mut rng, &o, shape) else { continue };
                    let w = with_fcs(f);
                    let frame = rx_fcs(&w, &s).expect("good FCS");
                    let p = parse(&frame, frame.len());
                    assert_eq!(p.malformed, code, "{m:?} strip {strip}: {:02x?}", &frame[..frame.len().min(80)]);
                }
            }
        }
    }
}

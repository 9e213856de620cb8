//! Golden model of the parser (`docs/ingress.md`, "parser (PHV)"): one frame in,
//! one [`Phv`] out, with the first failing check as the malformed reason.
//!
//! Reads are positional and never fail: a byte at or past the frame length `L`
//! (or past [`MAX_READ`]) reads as zero, exactly as the hardware sees the lanes
//! past `tkeep`. The deepest byte any rule reads is at offset 92 (the end of
//! the UDP length or NDP `dst_port` after two VLAN tags, a Protego tag and a
//! 60-byte IPv4 header), so the 128-byte window never changes a result; it is
//! modelled anyway.
use crate::packet::checksum::ones_sum;
use crate::packet::frame::{ethertype, ipproto, Ndp, Pl2};
use trimswitch_hdl::ingress::phv::{l3, l4, malformed, Phv};

/// The parser looks at no byte at or past this offset (`docs/ingress.md`,
/// "parser (PHV)": "reads at most the first 128 bytes").
pub const MAX_READ: usize = 128;

/// Byte reader with the spec's zero-fill rule.
struct Reader<'a> {
    frame: &'a [u8],
    len: usize,
}

impl Reader<'_> {
    fn b(&self, i: usize) -> u8 {
        if i < self.len && i < MAX_READ {
            self.frame.get(i).copied().unwrap_or(0)
        } else {
            0
        }
    }

    fn w(&self, i: usize) -> u16 {
        u16::from_be_bytes([self.b(i), self.b(i + 1)])
    }

    fn d(&self, i: usize) -> u32 {
        u32::from_be_bytes([self.b(i), self.b(i + 1), self.b(i + 2), self.b(i + 3)])
    }
}

fn is_tpid(t: u16) -> bool {
    t == ethertype::VLAN || t == ethertype::QINQ
}

/// Parses `frame` as the parser sees it, `len` being its length `L`
/// (`tuser.length`: after the optional FCS strip). Follows `docs/ingress.md`,
/// "parser (PHV)", steps 1 to 9, to the letter:
///
/// - bytes at or past `len` (and past the end of `frame`, should `frame` be
///   shorter than `len`) read as zero; nothing at or past [`MAX_READ`] is read;
/// - the first failing check sets [`Phv::malformed`] and parsing stops there;
/// - a malformed PHV keeps the L2 fields (`dst_mac` to `protego_kind`), `l3` and
///   `l3_off`; every field from `dscp` on is zero.
///
/// Choices where the text leaves room (the RTL matches them):
/// - **L2_TRUNCATED** stops before step 5, so `l3` = OTHER (phv.rs: "none could
///   be read": `l3_off > L` means the EtherType itself is cut short); `ethertype`,
///   the VLAN and Protego fields and `l3_off` keep what was read (zero-filled).
/// - **VLAN_DEPTH**: `ethertype` is the third TPID, `l3` = OTHER, `l3_off` = 22
///   (`o + 2` with `o` = 20, the third TPID's offset), no Protego step.
/// - OTHER and PROTEGO_CTL frames parse nothing past the EtherType: every field
///   from `dscp` on is zero, and they are well formed.
/// - `l4_off` is 0 whenever `l4` is NONE (any protocol but 17 and 199).
///
/// Never panics, whatever the bytes and `len`.
pub fn parse(frame: &[u8], len: usize) -> Phv {
    let r = Reader { frame, len };
    let mut p = Phv::default();
    match headers(&r, &mut p) {
        Ok(()) => p,
        Err(code) => Phv {
            dst_mac: p.dst_mac,
            ethertype: p.ethertype,
            vlans: p.vlans,
            pcp: p.pcp,
            vid: p.vid,
            protego: p.protego,
            protego_kind: p.protego_kind,
            l3: p.l3,
            l3_off: p.l3_off,
            malformed: code,
            ..Phv::default()
        },
    }
}

/// Steps 1 to 9; `Err` carries the malformed code of the first failing check.
fn headers(r: &Reader, p: &mut Phv) -> Result<(), u8> {
    let len = r.len;
    // 1. Destination MAC and the first EtherType.
    p.dst_mac = (0..6).fold(0u64, |acc, i| acc << 8 | r.b(i) as u64);
    let mut o = 12usize;
    p.ethertype = r.w(o);
    // 2. Up to two VLAN tags; the outer one gives PCP and VID.
    while is_tpid(p.ethertype) && p.vlans < 2 {
        if p.vlans == 0 {
            let tci = r.w(o + 2);
            p.pcp = (tci >> 13) as u8;
            p.vid = tci & 0x0fff;
        }
        p.vlans += 1;
        o += 4;
        p.ethertype = r.w(o);
    }
    let vlan_depth = is_tpid(p.ethertype);
    // 3. One Protego tag.
    if p.ethertype == ethertype::PROTEGO {
        p.protego = true;
        p.protego_kind = r.b(o + 2) >> 6;
        o += 5;
        p.ethertype = r.w(o);
    }
    // 4. L3 offset; truncation is checked before VLAN depth.
    let b = o + 2;
    p.l3_off = b as u8;
    if b > len {
        return Err(malformed::L2_TRUNCATED);
    }
    if vlan_depth {
        return Err(malformed::VLAN_DEPTH);
    }
    // 5. L3 kind.
    p.l3 = match p.ethertype {
        ethertype::IPV4 => l3::IPV4,
        ethertype::IPV6 => l3::IPV6,
        ethertype::PL2 => l3::PL2,
        ethertype::PROTEGO if p.protego => l3::PROTEGO_CTL,
        _ => l3::OTHER,
    };
    match p.l3 {
        l3::IPV4 => {
            // 6. IPv4.
            let v = r.b(b);
            if v >> 4 != 4 {
                return Err(malformed::IP_VERSION);
            }
            let ihl = v & 15;
            if ihl < 5 {
                return Err(malformed::IPV4_IHL);
            }
            let hl = 4 * ihl as usize;
            if b + hl > len {
                return Err(malformed::IPV4_TRUNCATED);
            }
            let ip_len = r.w(b + 2);
            if (ip_len as usize) < hl || b + ip_len as usize > len {
                return Err(malformed::IPV4_LENGTH);
            }
            let header: Vec<u8> = (b..b + hl).map(|i| r.b(i)).collect();
            if ones_sum(0, &header) != 0xffff {
                return Err(malformed::IPV4_CHECKSUM);
            }
            let tos = r.b(b + 1);
            p.dscp = tos >> 2;
            p.ecn = tos & 3;
            p.proto = r.b(b + 9);
            p.ip_len = ip_len;
            p.ihl = ihl;
            p.ipv4_dst = r.d(b + 16);
            transport(r, p, b + hl, b + ip_len as usize)
        }
        l3::IPV6 => {
            // 7. IPv6 (no extension headers are followed).
            if r.b(b) >> 4 != 6 {
                return Err(malformed::IP_VERSION);
            }
            if b + 40 > len {
                return Err(malformed::IPV6_TRUNCATED);
            }
            let ip_len = r.w(b + 4);
            if b + 40 + ip_len as usize > len {
                return Err(malformed::IPV6_LENGTH);
            }
            let tc = (r.w(b) >> 4) as u8;
            p.dscp = tc >> 2;
            p.ecn = tc & 3;
            p.proto = r.b(b + 6);
            p.ip_len = ip_len;
            transport(r, p, b + 40, b + 40 + ip_len as usize)
        }
        l3::PL2 => {
            // 9. PL2.
            if b + Pl2::LEN > len {
                return Err(malformed::PL2_TRUNCATED);
            }
            p.pl2_kind = r.b(b);
            // The source MAC rides in fields a PL2 frame does not use: the
            // GRT's destination (`Phv::pl2_smac`, docs/pl2.md).
            let smac = (6..12).fold(0u64, |acc, i| acc << 8 | r.b(i) as u64);
            p.set_pl2_smac(smac);
            p.pl2_demand = r.b(b + 1);
            p.pl2_src = r.b(b + 2);
            p.pl2_dst = r.b(b + 3);
            if p.pl2_kind != Pl2::RSV && p.pl2_kind != Pl2::GRT {
                return Err(malformed::PL2_KIND);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Step 8: the L4 header at `l4_off` of an IP packet ending at `e`.
fn transport(r: &Reader, p: &mut Phv, l4_off: usize, e: usize) -> Result<(), u8> {
    let (kind, hdr) = match p.proto {
        ipproto::UDP => (l4::UDP, 8),
        ipproto::NDP => (l4::NDP, Ndp::LEN),
        _ => return Ok(()),
    };
    p.l4 = kind;
    p.l4_off = l4_off as u8;
    if l4_off + hdr > e {
        return Err(malformed::L4_TRUNCATED);
    }
    if kind == l4::UDP {
        p.sport = r.w(l4_off);
        p.dport = r.w(l4_off + 2);
        let ulen = r.w(l4_off + 4) as usize;
        if ulen < 8 || ulen > e - l4_off {
            return Err(malformed::UDP_LENGTH);
        }
    } else {
        p.ndp_flags = r.b(l4_off);
        p.sport = r.w(l4_off + 2);
        p.dport = r.w(l4_off + 4);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Frame, Ipv4, Protego, Udp, Vlan, L3, L4};

    fn tagged(vlans: usize, protego: bool, l3: L3, l4: L4) -> Frame {
        Frame {
            dst: [2, 0, 0, 0, 0, 1],
            src: [2, 0, 0, 0, 0, 9],
            vlans: (0..vlans).map(|i| Vlan { tpid: ethertype::VLAN, pcp: 5 - i as u8, dei: false, vid: 100 + i as u16 }).collect(),
            protego: protego.then_some(Protego { kind: 3, era: true, seq: 7 }),
            l3,
            l4,
            payload: vec![0xab; 20],
        }
    }

    fn v4() -> Ipv4 {
        Ipv4 { dscp: 46, ecn: 1, id: 0, dont_fragment: true, ttl: 64, protocol: 0, src: [10, 0, 0, 1], dst: [10, 0, 1, 2], options: vec![] }
    }

    #[test]
    fn well_formed_udp_over_two_vlans_and_protego() {
        let b = tagged(2, true, L3::Ipv4(v4()), L4::Udp(Udp { sport: 1000, dport: 2000 })).to_bytes();
        let p = parse(&b, b.len());
        assert_eq!((p.malformed, p.l3, p.l3_off, p.vlans, p.pcp, p.vid), (0, l3::IPV4, 27, 2, 5, 100));
        assert_eq!((p.protego, p.protego_kind, p.ethertype), (true, 3, 0x0800));
        assert_eq!((p.dscp, p.ecn, p.proto, p.ip_len, p.ihl, p.ipv4_dst), (46, 1, 17, 48, 5, 0x0a00_0102));
        assert_eq!((p.l4, p.l4_off, p.sport, p.dport), (l4::UDP, 47, 1000, 2000));
    }

    #[test]
    fn l2_truncated_beats_vlan_depth_and_keeps_l2_fields() {
        // Three TPIDs, but the frame ends inside the second tag.
        let mut b = vec![0xff; 12];
        b.extend_from_slice(&[0x81, 0x00, 0xa0, 0x05, 0x88, 0xa8, 0, 1, 0x81, 0x00, 0, 0, 0x08, 0x00]);
        let p = parse(&b, 21);
        assert_eq!((p.malformed, p.l3, p.vlans, p.pcp, p.vid), (malformed::L2_TRUNCATED, l3::OTHER, 2, 5, 5));
        assert_eq!((p.l3_off, p.ethertype), (22, 0x8100), "byte 21 lies past L and reads as zero");
        let p = parse(&b, 20);
        assert_eq!((p.malformed, p.l3_off, p.ethertype), (malformed::L2_TRUNCATED, 22, 0));
        let p = parse(&b, 22);
        assert_eq!((p.malformed, p.l3, p.l3_off, p.ethertype), (malformed::VLAN_DEPTH, l3::OTHER, 22, 0x8100));
        // The EtherType itself cut in half: byte 12 = 0x08, byte 13 past L.
        let p = parse(&[0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00], 13);
        assert_eq!(
            (p.malformed, p.ethertype, p.l3, p.l3_off, p.dst_mac),
            (malformed::L2_TRUNCATED, 0x0800, l3::OTHER, 14, 0x0001_0203_0405)
        );
        assert_eq!(parse(&[], 0).malformed, malformed::L2_TRUNCATED);
    }

    #[test]
    fn pl2_checks_and_zeroing() {
        let mut b = vec![0u8; 12];
        b.extend_from_slice(&[0x88, 0xb5, 2, 4, 1, 3]);
        b.resize(60, 0);
        let p = parse(&b, 60);
        assert_eq!((p.malformed, p.l3, p.pl2_kind, p.pl2_demand, p.pl2_src, p.pl2_dst), (0, l3::PL2, 2, 4, 1, 3));
        assert_eq!(parse(&b, 29).malformed, malformed::PL2_TRUNCATED);
        assert_eq!(parse(&b, 30).malformed, 0);
        b[14] = 3;
        let p = parse(&b, 60);
        assert_eq!((p.malformed, p.l3, p.l3_off, p.pl2_kind, p.pl2_demand), (malformed::PL2_KIND, l3::PL2, 14, 0, 0));
    }

    #[test]
    fn protego_control_and_other_are_well_formed() {
        let b = tagged(1, true, L3::Other(ethertype::PROTEGO), L4::None).to_bytes();
        let p = parse(&b, b.len());
        assert_eq!((p.malformed, p.l3, p.l3_off, p.protego, p.ethertype), (0, l3::PROTEGO_CTL, 23, true, 0x88b6));
        let b = tagged(0, false, L3::Other(0x0806), L4::None).to_bytes();
        let p = parse(&b, b.len());
        assert_eq!(p, Phv { dst_mac: 0x0200_0000_0001, ethertype: 0x0806, l3_off: 14, ..Phv::default() });
        // A VLAN TPID after a Protego tag is just another EtherType.
        let b = tagged(0, true, L3::Other(ethertype::VLAN), L4::None).to_bytes();
        let p = parse(&b, b.len());
        assert_eq!((p.malformed, p.l3, p.ethertype), (0, l3::OTHER, 0x8100));
    }

    #[test]
    fn bytes_past_len_read_as_zero() {
        // An IPv4 frame whose IP packet exactly fills L; any byte past L is ignored.
        let mut b = tagged(0, false, L3::Ipv4(v4()), L4::None).to_bytes();
        b.truncate(14 + 20 + 20);
        let good = parse(&b, b.len());
        assert_eq!(good.malformed, 0);
        b.extend_from_slice(&[0xee; 100]);
        assert_eq!(parse(&b, 54), good);
        assert_eq!(parse(&b, 53).malformed, malformed::IPV4_LENGTH);
        // `len` past the end of the slice: missing bytes read as zero.
        assert_eq!(parse(&b[..54], 200), parse(&[&b[..54], &[0u8; 146][..]].concat(), 200));
    }
}

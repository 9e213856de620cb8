//! A one-line human description of a frame, for logs and test failures. It is
//! lenient: it says where it stops when a header is cut short. (The parser's
//! golden model, with its exact malformed reasons, is a separate thing.)
use super::frame::{ethertype, ipproto, Ndp, Pl2};
use std::fmt::Write;

fn mac(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(":")
}

fn ndp_flags(f: u8) -> String {
    let names = [
        (Ndp::DATA, "DATA"),
        (Ndp::ACK, "ACK"),
        (Ndp::NACK, "NACK"),
        (Ndp::PULL, "PULL"),
        (Ndp::TRIMMED, "TRIMMED"),
        (Ndp::RETURNED, "RETURNED"),
        (Ndp::LAST, "LAST"),
    ];
    let set: Vec<&str> = names.iter().filter(|(b, _)| f & b != 0).map(|(_, n)| *n).collect();
    if set.is_empty() {
        "-".into()
    } else {
        set.join("|")
    }
}

/// Describes `frame` (without FCS) in one line.
pub fn describe(frame: &[u8]) -> String {
    let mut s = String::new();
    if frame.len() < 14 {
        return format!("runt: {} bytes", frame.len());
    }
    let _ = write!(s, "{} > {}", mac(&frame[6..12]), mac(&frame[0..6]));
    let mut off = 12;
    let mut et = u16::from_be_bytes([frame[12], frame[13]]);
    loop {
        match et {
            ethertype::VLAN | ethertype::QINQ if frame.len() >= off + 6 => {
                let tci = u16::from_be_bytes([frame[off + 2], frame[off + 3]]);
                let _ = write!(s, " | vlan {} pcp {}", tci & 0xfff, tci >> 13);
                off += 4;
            }
            ethertype::PROTEGO if frame.len() >= off + 7 => {
                let b = frame[off + 2];
                let kind = ["DATA", "RETX", "ACK", "LOSS"][(b >> 6) as usize];
                let _ = write!(s, " | protego {kind} era {} seq {}", (b >> 5) & 1, u16::from_be_bytes([frame[off + 3], frame[off + 4]]));
                off += 5;
            }
            _ => break,
        }
        et = u16::from_be_bytes([frame[off], frame[off + 1]]);
    }
    off += 2;
    let rest = &frame[off..];
    let (proto, l4) = match et {
        ethertype::IPV4 => {
            if rest.len() < 20 {
                let _ = write!(s, " | IPv4 truncated ({} bytes)", rest.len());
                return s;
            }
            let ihl = (rest[0] & 15) as usize * 4;
            let _ = write!(
                s,
                " | IPv4 {} > {} dscp {} len {} proto {}",
                rest[12..16].iter().map(u8::to_string).collect::<Vec<_>>().join("."),
                rest[16..20].iter().map(u8::to_string).collect::<Vec<_>>().join("."),
                rest[1] >> 2,
                u16::from_be_bytes([rest[2], rest[3]]),
                rest[9]
            );
            (rest[9], rest.get(ihl.max(20)..).unwrap_or(&[]))
        }
        ethertype::IPV6 => {
            if rest.len() < 40 {
                let _ = write!(s, " | IPv6 truncated ({} bytes)", rest.len());
                return s;
            }
            let tc = (u16::from_be_bytes([rest[0], rest[1]]) >> 4) as u8;
            let _ = write!(s, " | IPv6 dscp {} plen {} nh {}", tc >> 2, u16::from_be_bytes([rest[4], rest[5]]), rest[6]);
            (rest[6], &rest[40..])
        }
        ethertype::PL2 => {
            if rest.len() < Pl2::LEN {
                let _ = write!(s, " | PL2 truncated ({} bytes)", rest.len());
            } else {
                let kind = match rest[0] {
                    Pl2::RSV => "RSV".to_string(),
                    Pl2::GRT => "GRT".to_string(),
                    k => format!("kind {k}?"),
                };
                let word = |o: usize| u32::from_be_bytes(rest[o..o + 4].try_into().unwrap());
                let _ = write!(s, " | PL2 {kind} demand {} {} > {} slots {}/{}", rest[1], rest[2], rest[3], word(4), word(8));
            }
            return s;
        }
        other => {
            let _ = write!(s, " | ethertype {other:#06x}, {} bytes", rest.len());
            return s;
        }
    };
    match proto {
        ipproto::UDP if l4.len() >= 8 => {
            let _ = write!(
                s,
                " | UDP {} > {} len {}",
                u16::from_be_bytes([l4[0], l4[1]]),
                u16::from_be_bytes([l4[2], l4[3]]),
                u16::from_be_bytes([l4[4], l4[5]])
            );
        }
        ipproto::NDP if l4.len() >= Ndp::LEN => {
            let _ = write!(
                s,
                " | NDP {} seq {} path {}",
                ndp_flags(l4[0]),
                u32::from_be_bytes(l4[8..12].try_into().unwrap()),
                u16::from_be_bytes([l4[6], l4[7]])
            );
        }
        ipproto::UDP | ipproto::NDP => {
            let _ = write!(s, " | L4 truncated ({} bytes)", l4.len());
        }
        _ => {}
    }
    s
}

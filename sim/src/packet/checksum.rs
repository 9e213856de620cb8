//! Internet checksums (RFC 1071): IPv4 header, UDP over IPv4 and IPv6.

/// One's-complement sum of 16-bit big-endian words (an odd last byte is
/// padded with zero), folded to 16 bits, not complemented.
pub fn ones_sum(mut acc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc
}

/// The checksum to store: the complement of the folded sum.
pub fn finish(acc: u32) -> u16 {
    !(ones_sum(acc, &[]) as u16)
}

/// IPv4 header checksum of `header` (whose checksum field must be zero or is
/// included: a header with a correct checksum sums to 0xffff).
pub fn ipv4_header(header: &[u8]) -> u16 {
    finish(ones_sum(0, header))
}

/// UDP checksum over IPv4 (pseudo-header of source, destination, protocol 17,
/// UDP length) of `udp` (header with checksum zero, plus payload). A computed
/// 0 is sent as 0xffff (RFC 768).
pub fn udp_ipv4(src: [u8; 4], dst: [u8; 4], udp: &[u8]) -> u16 {
    let mut acc = ones_sum(0, &src);
    acc = ones_sum(acc, &dst);
    acc += 17 + udp.len() as u32;
    nonzero(finish(ones_sum(acc, udp)))
}

/// UDP checksum over IPv6 (RFC 8200 pseudo-header).
pub fn udp_ipv6(src: [u8; 16], dst: [u8; 16], udp: &[u8]) -> u16 {
    let mut acc = ones_sum(0, &src);
    acc = ones_sum(acc, &dst);
    acc += udp.len() as u32 + 17;
    nonzero(finish(ones_sum(acc, udp)))
}

fn nonzero(c: u16) -> u16 {
    if c == 0 {
        0xffff
    } else {
        c
    }
}

//! Ethernet FCS: CRC-32 of IEEE 802.3 (see `docs/protocols.md`).

/// Reflected polynomial 0x04C11DB7.
const POLY: u32 = 0xEDB8_8320;

/// What the CRC register holds after running over a frame *and* its correct
/// FCS, before the final complement (the check `rx_fcs` makes).
pub const RESIDUE: u32 = 0xDEBB_20E3;

const fn table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

static TABLE: [u32; 256] = table();

/// Runs the CRC register over `data` from `state` (no final complement).
pub fn crc32_update(mut state: u32, data: &[u8]) -> u32 {
    for &b in data {
        state = TABLE[((state ^ b as u32) & 0xff) as usize] ^ (state >> 8);
    }
    state
}

/// The Ethernet CRC-32 of `data` (initial 0xFFFFFFFF, final complement).
pub fn crc32(data: &[u8]) -> u32 {
    !crc32_update(0xFFFF_FFFF, data)
}

/// Appends the FCS to a frame (least significant byte first, as on the wire).
pub fn append_fcs(frame: &mut Vec<u8>) {
    let c = crc32(frame);
    frame.extend_from_slice(&c.to_le_bytes());
}

/// True when the last four bytes of `frame` are its correct FCS.
pub fn fcs_ok(frame: &[u8]) -> bool {
    frame.len() >= 4 && crc32_update(0xFFFF_FFFF, frame) == RESIDUE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_value_and_residue() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let mut f: Vec<u8> = (0..60u8).collect();
        append_fcs(&mut f);
        assert!(fcs_ok(&f));
        assert_eq!(crc32(&f), 0x2144_DF1C);
        f[10] ^= 0x04;
        assert!(!fcs_ok(&f));
    }
}

//! Ethernet FCS: CRC-32 of IEEE 802.3 (see `docs/protocols.md`). The bytewise
//! reference lives in `trimswitch_hdl::prim::crc`, next to the hardware that uses it.

pub use trimswitch_hdl::prim::crc::{crc32_update, RESIDUE};

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

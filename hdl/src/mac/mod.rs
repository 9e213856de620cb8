//! Ethernet MACs between the switch's AXI4-Stream ports and a PHY's
//! interface (issue 18, `docs/boards.md`).
//!
//! - [`xgmii_tx`]: `ts_xgmii_tx`, 10G transmit on a 64-bit XGMII;
//! - [`xgmii_rx`]: `ts_xgmii_rx`, 10G receive from a 64-bit XGMII;
//! - [`port`]: `ts_xgmii_port`, a 10G port: both MACs, width converters and
//!   the clock crossings to the switch;
//! - [`gmii`]: `ts_gmii_tx`, `ts_gmii_rx`, 1G on GMII (clause 35);
//! - [`rgmii`]: `ts_rgmii_mac`, the 1G MAC on RGMII (DDR I/O per family);
//! - [`cmac`]: `ts_cmac_port`, a 100G port on the UltraScale+ CMAC (its
//!   512-bit AXI4-Stream, the clock crossings, padding).
//!
//! Clause numbers are IEEE 802.3's: 4.2 (the MAC frame: preamble, SFD,
//! padding to the minimum size, FCS), 46 (XGMII: lanes, control characters,
//! the start on lane 0 or 4, the deficit idle count).
pub mod cmac;
pub mod gmii;
pub mod port;
pub mod rgmii;
pub mod xgmii_rx;
pub mod xgmii_tx;

use crate::prim::crc::crc32_update;

/// XGMII control characters (46.2.6, Table 46-3).
pub mod xgmii {
    /// Idle (/I/).
    pub const IDLE: u8 = 0x07;
    /// Start (/S/).
    pub const START: u8 = 0xFB;
    /// Terminate (/T/).
    pub const TERMINATE: u8 = 0xFD;
    /// Error (/E/).
    pub const ERROR: u8 = 0xFE;
    /// A preamble byte and the start frame delimiter (4.2.5, 4.2.6).
    pub const PREAMBLE: u8 = 0x55;
    pub const SFD: u8 = 0xD5;
    /// Eight idles as a 64-bit word.
    pub const IDLE_WORD: u64 = 0x0707_0707_0707_0707;
    /// The start word: /S/ in lane 0, six preamble bytes, the SFD.
    pub const START_WORD: u64 = 0xD555_5555_5555_55FB;
    /// /T/ in lane 0, idles after it.
    pub const TERM_WORD: u64 = 0x0707_0707_0707_07FD;
}

/// The CRC register's change by `p` zero bytes, inverted: column `i` is the
/// register that `p` zero bytes turn into the register with only bit `i`
/// set. One zero byte is linear and invertible on the register (the CRC-32
/// polynomial has a constant term), so a register run over a frame and `p`
/// zero bytes gives the frame's own register through this matrix (the TX
/// MAC runs its last word as a whole word, the lanes past the frame zero).
pub fn zero_bytes_inverse(p: usize) -> [u32; 32] {
    // Columns of Z^p, then Gauss-Jordan over GF(2) on [Z^p | I].
    let fwd: Vec<u32> = (0..32).map(|i| crc32_update(1 << i, &vec![0u8; p])).collect();
    // Row r of Z^p: bit i is bit r of column i.
    let mut rows: Vec<(u32, u32)> = (0..32).map(|r| ((0..32).fold(0u32, |m, i| m | ((fwd[i] >> r & 1) << i)), 1u32 << r)).collect();
    for col in 0..32 {
        let piv = (col..32).find(|&r| rows[r].0 >> col & 1 == 1).expect("a zero byte is invertible on the CRC register");
        rows.swap(col, piv);
        for r in 0..32 {
            if r != col && rows[r].0 >> col & 1 == 1 {
                rows[r].0 ^= rows[col].0;
                rows[r].1 ^= rows[col].1;
            }
        }
    }
    // rows[r].1 is row r of the inverse; return its columns.
    let mut cols = [0u32; 32];
    for (r, &(_, inv)) in rows.iter().enumerate() {
        for (i, c) in cols.iter_mut().enumerate() {
            *c |= (inv >> i & 1) << r;
        }
    }
    cols
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Undoing `p` zero bytes gives the register of the frame alone.
    #[test]
    fn inverse_undoes_zero_bytes() {
        let frame: Vec<u8> = (0..37u8).map(|i| i.wrapping_mul(29) ^ 0x5a).collect();
        let own = crc32_update(0xFFFF_FFFF, &frame);
        for p in 0..8 {
            let mut padded = frame.clone();
            padded.extend(std::iter::repeat_n(0u8, p));
            let run = crc32_update(0xFFFF_FFFF, &padded);
            let inv = zero_bytes_inverse(p);
            let back = (0..32).filter(|&i| run >> i & 1 == 1).fold(0u32, |m, i| m ^ inv[i]);
            assert_eq!(back, own, "p = {p}");
        }
    }
}

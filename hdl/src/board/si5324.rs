//! The Si5324 jitter-attenuating clock multiplier (Silicon Labs, "Any-
//! Frequency Precision Clocks Si5319, Si5323, Si5324, Si5326, Si5327,
//! Si5368, Si5369, Si5374, Si5375 Family Reference Manual", rev. 0.6): the
//! register writes that make a frequency from its crystal in free run, as a
//! start-up program for [`super::i2c_init`].
//!
//! The plan: the crystal (114.285 MHz on the NetFPGA-SUME) divided by N31
//! gives the phase detector's f3; the oscillator runs at f3 x N2_HS x N2_LS
//! (4.85 to 5.67 GHz); the output is the oscillator divided by N1_HS x
//! NC1_LS. Field encodings (reference manual, the register map): register
//! 25 bits 7:5 hold N1_HS less 4; registers 31-33 hold NC1_LS less 1 (20
//! bits); register 40 bits 7:5 hold N2_HS less 4, and registers 40-42 N2_LS
//! less 1 (20 bits); registers 43-45 and 46-48 hold N31 and N32 less 1 (19
//! bits each). Then the internal calibration (register 136 bit 6, ICAL).
use super::i2c_init::Step;

/// A frequency plan (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The crystal or reference, Hz.
    pub f_ref: f64,
    pub n31: u32,
    pub n32: u32,
    pub n2_hs: u32,
    pub n2_ls: u32,
    pub n1_hs: u32,
    pub nc1_ls: u32,
}

impl Plan {
    /// 156.25 MHz from the NetFPGA-SUME's 114.285 MHz crystal: f3 = 3.75
    /// kHz (N31 = 30 476), the oscillator 5.625 GHz (N2 = 10 x 150 000),
    /// 156.25 MHz out (N1 = 9 x 4).
    pub const SUME_156M25: Plan = Plan { f_ref: 114.285e6, n31: 30476, n32: 30476, n2_hs: 10, n2_ls: 150_000, n1_hs: 9, nc1_ls: 4 };

    /// The phase detector's frequency, the oscillator's and the output's (Hz).
    pub fn frequencies(&self) -> (f64, f64, f64) {
        let f3 = self.f_ref / self.n31 as f64;
        let fosc = f3 * (self.n2_hs * self.n2_ls) as f64;
        (f3, fosc, fosc / (self.n1_hs * self.nc1_ls) as f64)
    }

    /// Checks the plan against the device's ranges (reference manual: f3
    /// 2 kHz to 2 MHz, the oscillator 4.85 to 5.67 GHz, N1_HS and N2_HS 4
    /// to 11, NC1_LS 1 or even up to 2^20, N2_LS even up to 2^20, N3 up to
    /// 2^19).
    pub fn check(&self) -> anyhow::Result<()> {
        let (f3, fosc, _) = self.frequencies();
        anyhow::ensure!((2e3..=2e6).contains(&f3), "Si5324: f3 = {f3} Hz outside 2 kHz..2 MHz");
        anyhow::ensure!((4.85e9..=5.67e9).contains(&fosc), "Si5324: the oscillator at {fosc} Hz outside 4.85..5.67 GHz");
        anyhow::ensure!((4..=11).contains(&self.n1_hs) && (4..=11).contains(&self.n2_hs), "Si5324: N1_HS and N2_HS must be 4..=11");
        anyhow::ensure!(
            self.nc1_ls == 1 || (self.nc1_ls.is_multiple_of(2) && self.nc1_ls <= 1 << 20),
            "Si5324: NC1_LS must be 1 or even up to 2^20"
        );
        anyhow::ensure!(self.n2_ls.is_multiple_of(2) && self.n2_ls <= 1 << 20, "Si5324: N2_LS must be even up to 2^20");
        anyhow::ensure!((1..=1 << 19).contains(&self.n31) && (1..=1 << 19).contains(&self.n32), "Si5324: N31 and N32 must be 1..=2^19");
        Ok(())
    }

    /// The (register, value) writes of the plan: the control registers for
    /// free run from the crystal with output 1 on and output 2 off, the
    /// dividers, then ICAL.
    pub fn registers(&self) -> anyhow::Result<Vec<(u8, u8)>> {
        self.check()?;
        let b = |v: u32, s: u32| (v >> s) as u8;
        let (nc1, n2, n31, n32) = (self.nc1_ls - 1, self.n2_ls - 1, self.n31 - 1, self.n32 - 1);
        Ok(vec![
            // Free run (the crystal as reference), the output on while
            // calibrating; clock priorities; loop bandwidth; CKIN1 selected
            // with squelch during ICAL; automatic reference selection off.
            (0, 0x54),
            (1, 0xE4),
            (2, 0x12),
            (3, 0x15),
            (4, 0x92),
            // Output 2 disabled, CKIN2 powered down.
            (10, 0x08),
            (11, 0x40),
            (25, ((self.n1_hs - 4) << 5) as u8),
            (31, b(nc1, 16) & 0x0F),
            (32, b(nc1, 8)),
            (33, b(nc1, 0)),
            (40, ((self.n2_hs - 4) << 5) as u8 | (b(n2, 16) & 0x0F)),
            (41, b(n2, 8)),
            (42, b(n2, 0)),
            (43, b(n31, 16) & 0x07),
            (44, b(n31, 8)),
            (45, b(n31, 0)),
            (46, b(n32, 16) & 0x07),
            (47, b(n32, 8)),
            (48, b(n32, 0)),
            // ICAL: calibrate with the new settings.
            (136, 0x40),
        ])
    }
}

/// The I2C switch (an 8-channel PCA9548-type) in front of the Si5324 on the
/// NetFPGA-SUME, its address and the Si5324's channel (4).
pub const SUME_I2C_SWITCH: u8 = 0x74;
pub const SUME_SI5324_CHANNEL: u8 = 4;
/// The Si5324's I2C address.
pub const SI5324_ADDR: u8 = 0x68;

/// The NetFPGA-SUME's start-up program: the Si5324 held in reset 10 ms
/// (`pin` low = reset: the board top inverts it onto the active-high reset
/// pin), released, 20 ms to wake; its channel selected on the I2C switch;
/// the plan written one register per transaction; 50 ms for the
/// calibration and the lock before `done` lets the PCS/PMA out of reset.
pub fn sume_program(plan: &Plan) -> anyhow::Result<Vec<Step>> {
    let mut s = vec![Step::Pin(false), Step::DelayUs(10_000), Step::Pin(true), Step::DelayUs(20_000)];
    s.push(Step::Write { addr: SUME_I2C_SWITCH, bytes: vec![1 << SUME_SI5324_CHANNEL] });
    for (r, v) in plan.registers()? {
        s.push(Step::Write { addr: SI5324_ADDR, bytes: vec![r, v] });
    }
    s.push(Step::DelayUs(50_000));
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SUME plan makes 156.25 MHz (within 1 ppm of the crystal's
    /// nominal value) with the oscillator in range, and its dividers land
    /// in the documented fields.
    #[test]
    fn sume_plan_is_156_25_mhz() {
        let p = Plan::SUME_156M25;
        let (f3, fosc, out) = p.frequencies();
        assert!((out - 156.25e6).abs() < 156.25, "{out}");
        assert!((f3 - 3750.0).abs() < 1.0 && (fosc - 5.625e9).abs() < 1e5, "{f3} {fosc}");
        let r: std::collections::BTreeMap<u8, u8> = p.registers().unwrap().into_iter().collect();
        assert_eq!(r[&25] >> 5, 9 - 4);
        assert_eq!(u32::from(r[&31] & 0xF) << 16 | u32::from(r[&32]) << 8 | u32::from(r[&33]), 4 - 1);
        assert_eq!(r[&40] >> 5, 10 - 4);
        assert_eq!(u32::from(r[&40] & 0xF) << 16 | u32::from(r[&41]) << 8 | u32::from(r[&42]), 150_000 - 1);
        assert_eq!(u32::from(r[&43]) << 16 | u32::from(r[&44]) << 8 | u32::from(r[&45]), 30476 - 1);
        assert_eq!(r[&136], 0x40);
    }

    #[test]
    fn bad_plans_are_refused() {
        let p = Plan { n2_ls: 100_000, ..Plan::SUME_156M25 };
        assert!(p.registers().unwrap_err().to_string().contains("oscillator"));
        let p = Plan { nc1_ls: 3, ..Plan::SUME_156M25 };
        assert!(p.registers().unwrap_err().to_string().contains("NC1_LS"));
    }

    /// The program: reset, the switch channel, 21 registers, waits; it fits
    /// the 128-word ROM of the board core.
    #[test]
    fn sume_program_fits() {
        let s = sume_program(&Plan::SUME_156M25).unwrap();
        let words = crate::board::i2c_init::program(&s).unwrap();
        assert_eq!(s.iter().filter(|x| matches!(x, Step::Write { addr: SI5324_ADDR, .. })).count(), 21);
        assert!(words.len() <= 128, "{} words", words.len());
    }
}

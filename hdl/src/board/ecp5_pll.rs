//! The Lattice ECP5 PLL (`EHXPLLL`) as a named black box with its dividers
//! computed from the frequencies (issue 18, the ECP5 board,
//! `docs/boards.md`). The ECP5 sysCLOCK PLL multiplies the input by
//! `CLKFB_DIV / CLKI_DIV` at the primary output `CLKOP` (the feedback
//! path), from a VCO of `CLKOP x CLKOP_DIV`; a secondary output `CLKOS` is
//! the VCO divided by `CLKOS_DIV`. Limits (Lattice FPGA-TN-02200, "ECP5 and
//! ECP5-5G sysCLOCK PLL/DLL Design and Usage Guide"): VCO 400..=800 MHz,
//! phase detector input 3.125..=400 MHz, dividers 1..=128.
use anyhow::{bail, Result};
use rust_hdl::prelude::*;

/// The dividers of an exact plan (every output exactly its frequency).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PllPlan {
    pub fin_mhz: f64,
    pub clki_div: u32,
    pub clkfb_div: u32,
    pub clkop_div: u32,
    pub clkos_div: u32,
}

impl PllPlan {
    /// The plan for `fin` -> `op` (primary) and `os` (secondary), MHz, with
    /// both outputs exact; the lowest VCO that works (the lowest power).
    /// Errors name what cannot be made.
    pub fn new(fin: f64, op: f64, os: f64) -> Result<PllPlan> {
        let exact = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.max(1.0);
        for clkop_div in 1..=128u32 {
            let vco = op * clkop_div as f64;
            if !(400.0..=800.0).contains(&vco) {
                continue;
            }
            let clkos_div = (vco / os).round() as u32;
            if !(1..=128).contains(&clkos_div) || !exact(vco / clkos_div as f64, os) {
                continue;
            }
            for clki_div in 1..=128u32 {
                let pfd = fin / clki_div as f64;
                if pfd < 3.125 {
                    break;
                }
                if pfd > 400.0 {
                    continue;
                }
                let clkfb_div = (op / pfd).round() as u32;
                if (1..=128).contains(&clkfb_div) && exact(pfd * clkfb_div as f64, op) {
                    return Ok(PllPlan { fin_mhz: fin, clki_div, clkfb_div, clkop_div, clkos_div });
                }
            }
        }
        bail!("no ECP5 PLL plan makes exactly {op} MHz and {os} MHz from {fin} MHz (a VCO of 400..=800 MHz divided by 1..=128)")
    }

    pub fn vco_mhz(&self) -> f64 {
        self.op_mhz() * self.clkop_div as f64
    }
    pub fn op_mhz(&self) -> f64 {
        self.fin_mhz / self.clki_div as f64 * self.clkfb_div as f64
    }
    pub fn os_mhz(&self) -> f64 {
        self.vco_mhz() / self.clkos_div as f64
    }

    /// The `EHXPLLL` instance: both outputs at phase 0 (the coarse phase
    /// at half the primary divider, the secondary's the same, as Project
    /// Trellis' `ecppll` sets them), feedback from `CLKOP`.
    fn verilog(&self) -> String {
        let cphase = (self.clkop_div - 1) / 2;
        format!(
            "(* FREQUENCY_PIN_CLKI=\"{fin}\" *) (* FREQUENCY_PIN_CLKOP=\"{op}\" *) (* FREQUENCY_PIN_CLKOS=\"{os}\" *)\n\
             (* ICP_CURRENT=\"12\" *) (* LPF_RESISTOR=\"8\" *) (* MFG_ENABLE_FILTEROPAMP=\"1\" *) (* MFG_GMCREF_SEL=\"2\" *)\n\
             EHXPLLL #(.PLLRST_ENA(\"DISABLED\"), .INTFB_WAKE(\"DISABLED\"), .STDBY_ENABLE(\"DISABLED\"), .DPHASE_SOURCE(\"DISABLED\"),\n\
             \x20   .OUTDIVIDER_MUXA(\"DIVA\"), .OUTDIVIDER_MUXB(\"DIVB\"), .OUTDIVIDER_MUXC(\"DIVC\"), .OUTDIVIDER_MUXD(\"DIVD\"),\n\
             \x20   .CLKI_DIV({ci}), .CLKFB_DIV({cf}), .FEEDBK_PATH(\"CLKOP\"),\n\
             \x20   .CLKOP_ENABLE(\"ENABLED\"), .CLKOP_DIV({cop}), .CLKOP_CPHASE({cphase}), .CLKOP_FPHASE(0),\n\
             \x20   .CLKOS_ENABLE(\"ENABLED\"), .CLKOS_DIV({cos}), .CLKOS_CPHASE({cphase}), .CLKOS_FPHASE(0))\n\
             pll (.RST(1'b0), .STDBY(1'b0), .CLKI(clki), .CLKFB(clkop), .CLKOP(clkop), .CLKOS(clkos), .CLKOS2(), .CLKOS3(), .CLKINTFB(),\n\
             \x20   .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1), .PHASELOADREG(1'b1),\n\
             \x20   .PLLWAKESYNC(1'b0), .ENCLKOP(1'b0), .ENCLKOS(1'b0), .ENCLKOS2(1'b0), .ENCLKOS3(1'b0), .LOCK(lock), .INTLOCK(), .REFCLK());\n",
            fin = self.fin_mhz,
            op = self.op_mhz(),
            os = self.os_mhz(),
            ci = self.clki_div,
            cf = self.clkfb_div,
            cop = self.clkop_div,
            cos = self.clkos_div,
        )
    }
}

/// An `EHXPLLL`: `clki` in; `clkop`, `clkos` out (the plan's); `lock` out
/// (high once both are stable).
#[derive(LogicBlock)]
pub struct Ecp5Pll {
    pub clki: Signal<In, Clock>,
    pub clkop: Signal<Out, Clock>,
    pub clkos: Signal<Out, Clock>,
    pub lock: Signal<Out, Bit>,
    _plan: PllPlan,
}

impl Ecp5Pll {
    pub fn new(plan: PllPlan) -> Self {
        Self { clki: Default::default(), clkop: Default::default(), clkos: Default::default(), lock: Default::default(), _plan: plan }
    }
}

impl Logic for Ecp5Pll {
    fn update(&mut self) {
        // rust-hdl's simulator is not used for this block.
        self.clkop.next = self.clki.val();
        self.clkos.next = self.clki.val();
        self.lock.next = true;
    }
    fn connect(&mut self) {
        self.clkop.connect();
        self.clkos.connect();
        self.lock.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Wrapper(Wrapper { code: self._plan.verilog(), cores: String::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_exact_and_within_limits() {
        for (op, os) in [(125.0, 62.5), (125.0, 100.0), (125.0, 125.0), (125.0, 50.0)] {
            let p = PllPlan::new(100.0, op, os).unwrap();
            assert_eq!((p.op_mhz(), p.os_mhz()), (op, os), "{p:?}");
            assert!((400.0..=800.0).contains(&p.vco_mhz()) && p.fin_mhz / p.clki_div as f64 >= 3.125, "{p:?}");
        }
        // 100 -> 125 and 62.5: the lowest VCO, 500 MHz.
        let p = PllPlan::new(100.0, 125.0, 62.5).unwrap();
        assert_eq!((p.clki_div, p.clkfb_div, p.clkop_div, p.clkos_div), (4, 5, 4, 8));
        let e = PllPlan::new(100.0, 125.0, 77.7).unwrap_err();
        assert!(e.to_string().contains("exactly 125 MHz and 77.7 MHz from 100 MHz"), "{e}");
    }
}

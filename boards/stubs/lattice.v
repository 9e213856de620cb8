// Stand-ins for the Lattice ECP5 primitives the 1G MAC's RGMII layer
// (ts_rgmii_mac built for ECP5) and the ECP5 board's design (ts_versa_switch:
// the PLL) use, their ports as the vendor's (FPGA Libraries Reference
// Guide): black boxes for the lint; Yosys's synth_ecp5 and nextpnr know the
// real ones.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off UNDRIVEN */
`default_nettype none

(* blackbox *)
module IDDRX1F (input wire D, input wire SCLK, input wire RST, output wire Q0, output wire Q1);
endmodule

(* blackbox *)
module ODDRX1F (input wire D0, input wire D1, input wire SCLK, input wire RST, output wire Q);
endmodule

(* blackbox *)
module EHXPLLL #(
    parameter CLKI_DIV = 1, parameter CLKFB_DIV = 1, parameter CLKOP_DIV = 8, parameter CLKOS_DIV = 8,
    parameter CLKOS2_DIV = 8, parameter CLKOS3_DIV = 8, parameter CLKOP_ENABLE = "ENABLED",
    parameter CLKOS_ENABLE = "DISABLED", parameter CLKOS2_ENABLE = "DISABLED", parameter CLKOS3_ENABLE = "DISABLED",
    parameter CLKOP_CPHASE = 0, parameter CLKOS_CPHASE = 0, parameter CLKOS2_CPHASE = 0, parameter CLKOS3_CPHASE = 0,
    parameter CLKOP_FPHASE = 0, parameter CLKOS_FPHASE = 0, parameter CLKOS2_FPHASE = 0, parameter CLKOS3_FPHASE = 0,
    parameter FEEDBK_PATH = "CLKOP", parameter CLKOP_TRIM_POL = "RISING", parameter CLKOP_TRIM_DELAY = 0,
    parameter CLKOS_TRIM_POL = "RISING", parameter CLKOS_TRIM_DELAY = 0, parameter OUTDIVIDER_MUXA = "DIVA",
    parameter OUTDIVIDER_MUXB = "DIVB", parameter OUTDIVIDER_MUXC = "DIVC", parameter OUTDIVIDER_MUXD = "DIVD",
    parameter PLL_LOCK_MODE = 0, parameter PLL_LOCK_DELAY = 200, parameter STDBY_ENABLE = "DISABLED",
    parameter REFIN_RESET = "DISABLED", parameter SYNC_ENABLE = "DISABLED", parameter INT_LOCK_STICKY = "ENABLED",
    parameter DPHASE_SOURCE = "DISABLED", parameter PLLRST_ENA = "DISABLED", parameter INTFB_WAKE = "DISABLED"
) (
    input wire CLKI, input wire CLKFB, input wire PHASESEL1, input wire PHASESEL0, input wire PHASEDIR,
    input wire PHASESTEP, input wire PHASELOADREG, input wire STDBY, input wire PLLWAKESYNC, input wire RST,
    input wire ENCLKOP, input wire ENCLKOS, input wire ENCLKOS2, input wire ENCLKOS3,
    output wire CLKOP, output wire CLKOS, output wire CLKOS2, output wire CLKOS3, output wire LOCK,
    output wire INTLOCK, output wire REFCLK, output wire CLKINTFB
);
endmodule

`default_nettype wire
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */

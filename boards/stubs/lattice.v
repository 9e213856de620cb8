// Stand-ins for the Lattice ECP5 primitives the 1G MAC's RGMII layer uses
// (ts_rgmii_mac built for ECP5), their ports as the vendor's (FPGA
// Libraries Reference Guide): black boxes for the lint; Yosys's synth_ecp5
// and nextpnr know the real ones.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
`default_nettype none

(* blackbox *)
module IDDRX1F (input wire D, input wire SCLK, input wire RST, output wire Q0, output wire Q1);
endmodule

(* blackbox *)
module ODDRX1F (input wire D0, input wire D1, input wire SCLK, input wire RST, output wire Q);
endmodule

`default_nettype wire
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDSIGNAL */

// Stand-ins for Opal Kelly's FrontPanel HDL modules (USB 2.0 modules such
// as the XEM7010: a 16-bit host interface; the okHost and endpoint ports
// as FrontPanel's user's manual documents them). Black boxes: the lint
// (Verilator) checks xem7010_top against them, Yosys synthesizes it with
// them as boxes (boards/README.md); Vivado uses Opal Kelly's own, from the
// FrontPanel SDK ($FRONTPANEL_HDL, boards/opalkelly-xem7010/README.md).
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
/* verilator lint_off UNUSEDPARAM */
`default_nettype none

(* blackbox *)
module okHost (
    input wire [7:0] hi_in, output wire [1:0] hi_out, inout wire [15:0] hi_inout, inout wire hi_aa,
    output wire ti_clk, output wire [30:0] ok1, input wire [16:0] ok2
);
endmodule

(* blackbox *)
module okWireOR #(parameter integer N = 1) (output wire [16:0] ok2, input wire [N*17-1:0] ok2s);
endmodule

(* blackbox *)
module okWireIn (input wire [30:0] ok1, input wire [7:0] ep_addr, output wire [15:0] ep_dataout);
endmodule

(* blackbox *)
module okWireOut (input wire [30:0] ok1, output wire [16:0] ok2, input wire [7:0] ep_addr, input wire [15:0] ep_datain);
endmodule

(* blackbox *)
module okTriggerIn (input wire [30:0] ok1, input wire [7:0] ep_addr, input wire ep_clk, output wire [15:0] ep_trigger);
endmodule

(* blackbox *)
module okTriggerOut (
    input wire [30:0] ok1, output wire [16:0] ok2, input wire [7:0] ep_addr, input wire ep_clk, input wire [15:0] ep_trigger
);
endmodule

`default_nettype wire

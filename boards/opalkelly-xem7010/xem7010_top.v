// xem7010_top: the Opal Kelly XEM7010 top (issue 18,
// boards/opalkelly-xem7010/README.md).
//
// A thin wrapper: FrontPanel's modules and a clock primitive around
// ts_xem7010_switch (emitted by `trimswitch vivado --board
// opalkelly-xem7010`), which holds every piece of logic of the design.
// Here only:
// - the 200 MHz oscillator (LVDS): an MMCM makes the switch clock, 100 MHz
//   = 200 x 5 / 10 (VCO 1000 MHz: in the Artix-7 -1 MMCME2's 600..1200);
// - FrontPanel's host interface (okHost, USB 2.0: 16-bit hi_inout, the
//   48 MHz interface clock on hi_in[0]; its ti_clk drives nothing here) and
//   its endpoints, the modules of
//   Opal Kelly's FrontPanel HDL (not part of this repository: build.tcl
//   reads them from $FRONTPANEL_HDL): WireIns 0x00..0x03 (address, data)
//   and 0x10 (bit 0 holds the design in reset), TriggerIn 0x40 (bit 0
//   write, bit 1 read), WireOuts 0x20..0x22 (data read, status),
//   TriggerOut 0x60 (bit 0 done); the triggers on the switch clock
//   (ep_clk), so the core sees one-cycle pulses of its own clock;
// - the LEDs, lit by driving them low and left floating otherwise (as
//   Opal Kelly's samples drive them).
// Port names follow Opal Kelly's pin list; pins and I/O standards are in
// xem7010_top.xdc.
`default_nettype none

module xem7010_top (
    input  wire [7:0]  hi_in,      // FrontPanel host interface (hi_in[0]: the 48 MHz host clock)
    output wire [1:0]  hi_out,
    inout  wire [15:0] hi_inout,
    inout  wire        hi_aa,
    output wire        hi_muxsel,
    input  wire        sys_clk_p,  // 200 MHz oscillator
    input  wire        sys_clk_n,
    output wire [7:0]  led         // active low
);

    // ---- the switch clock ----
    wire clk200, clk_mmcm, clk, mmcm_fb, mmcm_locked;
    IBUFDS sysclk_ibuf (.I(sys_clk_p), .IB(sys_clk_n), .O(clk200));
    MMCME2_BASE #(
        .CLKIN1_PERIOD(5.000), .DIVCLK_DIVIDE(1), .CLKFBOUT_MULT_F(5.000), .CLKOUT0_DIVIDE_F(10.000)
    ) clk_mmcm_i (
        .CLKIN1(clk200), .CLKFBIN(mmcm_fb), .CLKFBOUT(mmcm_fb), .CLKOUT0(clk_mmcm),
        .RST(1'b0), .PWRDWN(1'b0), .LOCKED(mmcm_locked),
        .CLKFBOUTB(), .CLKOUT0B(), .CLKOUT1(), .CLKOUT1B(), .CLKOUT2(), .CLKOUT2B(),
        .CLKOUT3(), .CLKOUT3B(), .CLKOUT4(), .CLKOUT5(), .CLKOUT6()
    );
    BUFG clk_bufg (.I(clk_mmcm), .O(clk));

    // ---- FrontPanel ----
    wire [30:0] ok1;
    wire [16:0] ok2;
    wire [4*17-1:0] ok2x;
    assign hi_muxsel = 1'b0;
    okHost host (
        .hi_in(hi_in), .hi_out(hi_out), .hi_inout(hi_inout), .hi_aa(hi_aa),
        .ti_clk(), .ok1(ok1), .ok2(ok2)
    );
    okWireOR #(.N(4)) wire_or (.ok2(ok2), .ok2s(ok2x));

    wire [15:0] wi_addr_lo, wi_addr_hi, wi_data_lo, wi_data_hi, wi_reset, ti_cmd;
    wire [15:0] wo_rdata_lo, wo_rdata_hi, wo_status, to_done;
    okWireIn wi00 (.ok1(ok1), .ep_addr(8'h00), .ep_dataout(wi_addr_lo));
    okWireIn wi01 (.ok1(ok1), .ep_addr(8'h01), .ep_dataout(wi_addr_hi));
    okWireIn wi02 (.ok1(ok1), .ep_addr(8'h02), .ep_dataout(wi_data_lo));
    okWireIn wi03 (.ok1(ok1), .ep_addr(8'h03), .ep_dataout(wi_data_hi));
    okWireIn wi10 (.ok1(ok1), .ep_addr(8'h10), .ep_dataout(wi_reset));
    okTriggerIn ti40 (.ok1(ok1), .ep_addr(8'h40), .ep_clk(clk), .ep_trigger(ti_cmd));
    okWireOut wo20 (.ok1(ok1), .ok2(ok2x[0*17 +: 17]), .ep_addr(8'h20), .ep_datain(wo_rdata_lo));
    okWireOut wo21 (.ok1(ok1), .ok2(ok2x[1*17 +: 17]), .ep_addr(8'h21), .ep_datain(wo_rdata_hi));
    okWireOut wo22 (.ok1(ok1), .ok2(ok2x[2*17 +: 17]), .ep_addr(8'h22), .ep_datain(wo_status));
    okTriggerOut to60 (.ok1(ok1), .ok2(ok2x[3*17 +: 17]), .ep_addr(8'h60), .ep_clk(clk), .ep_trigger(to_done));

    // ---- the design ----
    wire [7:0] led_on;
    ts_xem7010_switch core (
        .clock(clk), .locked(mmcm_locked),
        .wi_addr_lo(wi_addr_lo), .wi_addr_hi(wi_addr_hi), .wi_data_lo(wi_data_lo), .wi_data_hi(wi_data_hi),
        .wi_reset(wi_reset), .ti_cmd(ti_cmd),
        .wo_rdata_lo(wo_rdata_lo), .wo_rdata_hi(wo_rdata_hi), .wo_status(wo_status), .to_done(to_done),
        .led(led_on)
    );
    genvar i;
    generate
        for (i = 0; i < 8; i = i + 1) begin : leds
            assign led[i] = led_on[i] ? 1'b0 : 1'bz;
        end
    endgenerate

endmodule

`default_nettype wire

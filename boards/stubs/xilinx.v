// Stand-ins for the Xilinx primitives and IP cores the board tops use,
// their ports as the vendor's (the UNISIM library; the IP cores'
// generated stubs, ten_gig_eth_pcs_pma v6.0 for 7-series GTH with and
// without the shared logic, jtag_axi in AXI4-Lite mode, cmac_usplus 3.1
// with the AXI4-Stream interface, RS-FEC, no AXI4-Lite and no flow
// control, axi_clock_converter in AXI4-Lite mode). Black boxes:
// the lint (Verilator) checks a top against them, Yosys synthesizes it with them
// as boxes (boards/README.md); Vivado uses the real ones.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
/* verilator lint_off UNUSEDPARAM */
`default_nettype none

(* blackbox *)
module IBUFDS (input wire I, input wire IB, output wire O);
endmodule

(* blackbox *)
module BUFG (input wire I, output wire O);
endmodule

(* blackbox *)
module IOBUF (input wire I, input wire T, output wire O, inout wire IO);
endmodule

(* blackbox *)
module MMCME2_BASE #(
    parameter real CLKIN1_PERIOD = 0.0,
    parameter integer DIVCLK_DIVIDE = 1,
    parameter real CLKFBOUT_MULT_F = 5.0,
    parameter real CLKOUT0_DIVIDE_F = 1.0
) (
    input wire CLKIN1, input wire CLKFBIN, input wire RST, input wire PWRDWN,
    output wire CLKFBOUT, output wire CLKFBOUTB,
    output wire CLKOUT0, output wire CLKOUT0B, output wire CLKOUT1, output wire CLKOUT1B,
    output wire CLKOUT2, output wire CLKOUT2B, output wire CLKOUT3, output wire CLKOUT3B,
    output wire CLKOUT4, output wire CLKOUT5, output wire CLKOUT6, output wire LOCKED
);
endmodule

(* blackbox *)
module MMCME4_BASE #(
    parameter real CLKIN1_PERIOD = 0.0,
    parameter integer DIVCLK_DIVIDE = 1,
    parameter real CLKFBOUT_MULT_F = 5.0,
    parameter real CLKOUT0_DIVIDE_F = 1.0
) (
    input wire CLKIN1, input wire CLKFBIN, input wire RST, input wire PWRDWN,
    output wire CLKFBOUT, output wire CLKFBOUTB,
    output wire CLKOUT0, output wire CLKOUT0B, output wire CLKOUT1, output wire CLKOUT1B,
    output wire CLKOUT2, output wire CLKOUT2B, output wire CLKOUT3, output wire CLKOUT3B,
    output wire CLKOUT4, output wire CLKOUT5, output wire CLKOUT6, output wire LOCKED
);
endmodule

(* blackbox *)
module BUFGCE_DIV #(parameter integer BUFGCE_DIVIDE = 1) (input wire I, input wire CE, input wire CLR, output wire O);
endmodule

// 100G CMAC (cmac_usplus): one module per core build (cmac_usplus_0 for
// QSFP28 cage 0, cmac_usplus_1 for cage 1), the same ports.
`define CMAC_USPLUS_PORTS \
    input wire [3:0] gt_rxp_in, input wire [3:0] gt_rxn_in, \
    output wire [3:0] gt_txp_out, output wire [3:0] gt_txn_out, \
    input wire gt_ref_clk_p, input wire gt_ref_clk_n, output wire gt_ref_clk_out, \
    output wire gt_txusrclk2, output wire gt_rxusrclk2, output wire [3:0] gt_rxrecclkout, \
    output wire [3:0] gt_powergoodout, input wire [11:0] gt_loopback_in, \
    input wire gtwiz_reset_tx_datapath, input wire gtwiz_reset_rx_datapath, \
    input wire init_clk, input wire sys_reset, \
    input wire rx_clk, input wire core_rx_reset, input wire core_tx_reset, \
    output wire usr_rx_reset, output wire usr_tx_reset, \
    input wire core_drp_reset, input wire drp_clk, input wire [9:0] drp_addr, input wire [15:0] drp_di, \
    input wire drp_en, input wire drp_we, output wire [15:0] drp_do, output wire drp_rdy, \
    output wire rx_axis_tvalid, output wire [511:0] rx_axis_tdata, output wire [63:0] rx_axis_tkeep, \
    output wire rx_axis_tlast, output wire rx_axis_tuser, output wire [55:0] rx_preambleout, \
    output wire tx_axis_tready, input wire tx_axis_tvalid, input wire [511:0] tx_axis_tdata, \
    input wire [63:0] tx_axis_tkeep, input wire tx_axis_tlast, input wire tx_axis_tuser, \
    input wire [55:0] tx_preamblein, output wire tx_ovfout, output wire tx_unfout, \
    input wire ctl_rx_enable, input wire ctl_rx_force_resync, input wire ctl_rx_test_pattern, \
    input wire ctl_rsfec_ieee_error_indication_mode, input wire ctl_rx_rsfec_enable, \
    input wire ctl_rx_rsfec_enable_correction, input wire ctl_rx_rsfec_enable_indication, \
    input wire ctl_tx_enable, input wire ctl_tx_send_rfi, input wire ctl_tx_send_lfi, \
    input wire ctl_tx_send_idle, input wire ctl_tx_test_pattern, input wire ctl_tx_rsfec_enable, \
    output wire stat_rx_aligned, output wire stat_rx_status

(* blackbox *)
module cmac_usplus_0 (`CMAC_USPLUS_PORTS);
endmodule

(* blackbox *)
module cmac_usplus_1 (`CMAC_USPLUS_PORTS);
endmodule

// AXI clock converter, AXI4-Lite, 32-bit addresses and data.
(* blackbox *)
module axi_clock_converter_0 (
    input wire s_axi_aclk, input wire s_axi_aresetn,
    input wire [31:0] s_axi_awaddr, input wire [2:0] s_axi_awprot, input wire s_axi_awvalid,
    output wire s_axi_awready,
    input wire [31:0] s_axi_wdata, input wire [3:0] s_axi_wstrb, input wire s_axi_wvalid,
    output wire s_axi_wready,
    output wire [1:0] s_axi_bresp, output wire s_axi_bvalid, input wire s_axi_bready,
    input wire [31:0] s_axi_araddr, input wire [2:0] s_axi_arprot, input wire s_axi_arvalid,
    output wire s_axi_arready,
    output wire [31:0] s_axi_rdata, output wire [1:0] s_axi_rresp, output wire s_axi_rvalid,
    input wire s_axi_rready,
    input wire m_axi_aclk, input wire m_axi_aresetn,
    output wire [31:0] m_axi_awaddr, output wire [2:0] m_axi_awprot, output wire m_axi_awvalid,
    input wire m_axi_awready,
    output wire [31:0] m_axi_wdata, output wire [3:0] m_axi_wstrb, output wire m_axi_wvalid,
    input wire m_axi_wready,
    input wire [1:0] m_axi_bresp, input wire m_axi_bvalid, output wire m_axi_bready,
    output wire [31:0] m_axi_araddr, output wire [2:0] m_axi_arprot, output wire m_axi_arvalid,
    input wire m_axi_arready,
    input wire [31:0] m_axi_rdata, input wire [1:0] m_axi_rresp, input wire m_axi_rvalid,
    output wire m_axi_rready
);
endmodule

// 10GBASE-R PCS/PMA with the shared logic (SupportLevel 1).
(* blackbox *)
module ten_gig_eth_pcs_pma_0 (
    input wire dclk, input wire refclk_p, input wire refclk_n, input wire sim_speedup_control,
    input wire reset,
    output wire rxrecclk_out, output wire coreclk_out, output wire qplloutclk_out,
    output wire qplloutrefclk_out, output wire qplllock_out, output wire txusrclk_out,
    output wire txusrclk2_out, output wire areset_datapathclk_out, output wire gttxreset_out,
    output wire gtrxreset_out, output wire txuserrdy_out, output wire reset_counter_done_out,
    output wire resetdone_out,
    input wire [63:0] xgmii_txd, input wire [7:0] xgmii_txc,
    output wire [63:0] xgmii_rxd, output wire [7:0] xgmii_rxc,
    output wire txp, output wire txn, input wire rxp, input wire rxn,
    input wire [535:0] configuration_vector, output wire [447:0] status_vector,
    output wire [7:0] core_status,
    input wire signal_detect, input wire tx_fault, input wire [2:0] pma_pmd_type,
    output wire tx_disable,
    output wire drp_req, input wire drp_gnt,
    output wire drp_den_o, output wire drp_dwe_o, output wire [15:0] drp_daddr_o,
    output wire [15:0] drp_di_o, output wire drp_drdy_o, output wire [15:0] drp_drpdo_o,
    input wire drp_den_i, input wire drp_dwe_i, input wire [15:0] drp_daddr_i,
    input wire [15:0] drp_di_i, input wire drp_drdy_i, input wire [15:0] drp_drpdo_i
);
endmodule

// 10GBASE-R PCS/PMA without the shared logic (SupportLevel 0).
(* blackbox *)
module ten_gig_eth_pcs_pma_1 (
    input wire dclk, input wire coreclk, input wire txusrclk, input wire txusrclk2,
    output wire txoutclk, input wire areset, input wire areset_coreclk,
    input wire gttxreset, input wire gtrxreset, input wire txuserrdy,
    input wire qplllock, input wire qplloutclk, input wire qplloutrefclk,
    input wire reset_counter_done, input wire sim_speedup_control,
    output wire tx_resetdone, output wire rx_resetdone,
    input wire [63:0] xgmii_txd, input wire [7:0] xgmii_txc,
    output wire [63:0] xgmii_rxd, output wire [7:0] xgmii_rxc,
    output wire txp, output wire txn, input wire rxp, input wire rxn,
    input wire [535:0] configuration_vector, output wire [447:0] status_vector,
    output wire [7:0] core_status,
    input wire signal_detect, input wire tx_fault, input wire [2:0] pma_pmd_type,
    output wire tx_disable,
    output wire drp_req, input wire drp_gnt,
    output wire drp_den_o, output wire drp_dwe_o, output wire [15:0] drp_daddr_o,
    output wire [15:0] drp_di_o, output wire drp_drdy_o, output wire [15:0] drp_drpdo_o,
    input wire drp_den_i, input wire drp_dwe_i, input wire [15:0] drp_daddr_i,
    input wire [15:0] drp_di_i, input wire drp_drdy_i, input wire [15:0] drp_drpdo_i
);
endmodule

// JTAG to AXI master, AXI4-Lite (PROTOCOL 2), 32-bit addresses and data.
(* blackbox *)
module jtag_axi_0 (
    input wire aclk, input wire aresetn,
    output wire [31:0] m_axi_awaddr, output wire [2:0] m_axi_awprot, output wire m_axi_awvalid,
    input wire m_axi_awready,
    output wire [31:0] m_axi_wdata, output wire [3:0] m_axi_wstrb, output wire m_axi_wvalid,
    input wire m_axi_wready,
    input wire [1:0] m_axi_bresp, input wire m_axi_bvalid, output wire m_axi_bready,
    output wire [31:0] m_axi_araddr, output wire [2:0] m_axi_arprot, output wire m_axi_arvalid,
    input wire m_axi_arready,
    input wire [31:0] m_axi_rdata, input wire [1:0] m_axi_rresp, input wire m_axi_rvalid,
    output wire m_axi_rready
);
endmodule

`default_nettype wire
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on UNUSEDPARAM */

// 7-series DDR I/O (ts_rgmii_mac built for Xilinx 7-series).
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
/* verilator lint_off UNUSEDPARAM */
(* blackbox *)
module IDDR #(parameter DDR_CLK_EDGE = "OPPOSITE_EDGE") (
    output wire Q1, output wire Q2, input wire C, input wire CE, input wire D, input wire R, input wire S
);
endmodule

(* blackbox *)
module ODDR #(parameter DDR_CLK_EDGE = "OPPOSITE_EDGE") (
    output wire Q, input wire C, input wire CE, input wire D1, input wire D2, input wire R, input wire S
);
endmodule
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on UNUSEDPARAM */

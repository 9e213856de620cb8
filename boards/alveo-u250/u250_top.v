// u250_top: the Alveo U250 top (issue 18, boards/alveo-u250/README.md).
//
// A thin wrapper: vendor primitives and IP around ts_u250_switch (emitted
// by `trimswitch vivado --board alveo-u250`), which holds every piece of
// logic of the design. Here only:
// - the 300 MHz system clock (differential): an MMCM makes the switch
//   clock, 322.265625 MHz = 300 x 103.125 / 24 / 4 (VCO 1289.0625 MHz, PFD
//   12.5 MHz: in the MMCME4's ranges), and a BUFGCE_DIV the 100 MHz
//   management clock (300 / 3: the CMACs' init_clk and DRP clock, the JTAG
//   master's clock);
// - two 100G CMACs (cmac_usplus, PG203: CAUI-4 with RS-FEC, the GTs
//   inside, the AXI4-Stream user interface at 322.265625 MHz, created by
//   build.tcl as cmac_usplus_0 for QSFP28 cage 0, cmac_usplus_1 for cage
//   1), each with its receive clock tied to its transmit user clock (the
//   CMAC's receive FIFO crosses), both on their cage's 156.25 MHz
//   reference clock;
// - the JTAG-to-AXI master (jtag_axi, AXI4-Lite) on the management clock,
//   and an AXI clock converter into the switch clock for the register map.
// Port names follow the board's nets; pins and I/O standards are in
// u250_top.xdc.
`default_nettype none

module u250_top (
    input  wire       sysclk_p,       // 300 MHz (the DDR4 channel 0 clock)
    input  wire       sysclk_n,
    input  wire       qsfp0_refclk_p, // 156.25 MHz, MGTREFCLK0 of quad 231
    input  wire       qsfp0_refclk_n,
    input  wire [3:0] qsfp0_rx_p,     // QSFP28 cage 0 (port 0), lanes 1..4
    input  wire [3:0] qsfp0_rx_n,
    output wire [3:0] qsfp0_tx_p,
    output wire [3:0] qsfp0_tx_n,
    output wire       qsfp0_resetl,
    output wire       qsfp0_lpmode,
    output wire       qsfp0_modsell,
    input  wire       qsfp1_refclk_p, // 156.25 MHz, MGTREFCLK0 of quad 230
    input  wire       qsfp1_refclk_n,
    input  wire [3:0] qsfp1_rx_p,     // QSFP28 cage 1 (port 1)
    input  wire [3:0] qsfp1_rx_n,
    output wire [3:0] qsfp1_tx_p,
    output wire [3:0] qsfp1_tx_n,
    output wire       qsfp1_resetl,
    output wire       qsfp1_lpmode,
    output wire       qsfp1_modsell,
    output wire [2:0] led             // heartbeat, link of port 0, of port 1
);

    // ---- clocks ----
    wire clk300, clk_mmcm, clk, mmcm_fb, mmcm_locked, mgmt_clk;
    IBUFDS sysclk_ibuf (.I(sysclk_p), .IB(sysclk_n), .O(clk300));
    MMCME4_BASE #(
        .CLKIN1_PERIOD(3.333), .DIVCLK_DIVIDE(24), .CLKFBOUT_MULT_F(103.125), .CLKOUT0_DIVIDE_F(4.0)
    ) clk_mmcm_i (
        .CLKIN1(clk300), .CLKFBIN(mmcm_fb), .CLKFBOUT(mmcm_fb), .CLKOUT0(clk_mmcm),
        .RST(1'b0), .PWRDWN(1'b0), .LOCKED(mmcm_locked),
        .CLKFBOUTB(), .CLKOUT0B(), .CLKOUT1(), .CLKOUT1B(), .CLKOUT2(), .CLKOUT2B(),
        .CLKOUT3(), .CLKOUT3B(), .CLKOUT4(), .CLKOUT5(), .CLKOUT6()
    );
    BUFG clk_bufg (.I(clk_mmcm), .O(clk));
    BUFGCE_DIV #(.BUFGCE_DIVIDE(3)) mgmt_bufg (.I(clk300), .CE(1'b1), .CLR(1'b0), .O(mgmt_clk));

    // ---- the switch and its start-up logic ----
    wire [1:0]   cmac_clk, rx_tvalid, rx_tlast, rx_tuser, tx_tvalid, tx_tlast, tx_tuser, tx_tready;
    wire [1:0]   rx_aligned, tx_enable, tx_send_rfi;
    wire [511:0] rx_tdata [0:1];
    wire [63:0]  rx_tkeep [0:1];
    wire [511:0] tx_tdata [0:1];
    wire [63:0]  tx_tkeep [0:1];
    wire         cmac_sys_reset, axil_resetn, mgmt_resetn;
    // The JTAG master's 32-bit addresses: the core decodes 19 bits, the
    // switch's map below 0x40000 and the board window (the MAC counters)
    // from it; the map of a wider address repeats.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] awaddr, araddr;
    /* verilator lint_on UNUSEDSIGNAL */
    wire        awvalid, awready, wvalid, wready, bvalid, bready, arvalid, arready, rvalid, rready;
    wire [31:0] wdata, rdata;
    wire [3:0]  wstrb;
    wire [1:0]  bresp, rresp;

    ts_u250_switch core (
        .clock(clk), .locked(mmcm_locked), .cmac_sys_reset(cmac_sys_reset),
        .s_axil_awaddr(awaddr[18:0]), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
        .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
        .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
        .s_axil_araddr(araddr[18:0]), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
        .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
        .axil_resetn(axil_resetn), .mgmt_clock(mgmt_clk), .mgmt_resetn(mgmt_resetn),
        .qsfp_resetl_0(qsfp0_resetl), .qsfp_resetl_1(qsfp1_resetl),
        .qsfp_lpmode_0(qsfp0_lpmode), .qsfp_lpmode_1(qsfp1_lpmode),
        .qsfp_modsell_0(qsfp0_modsell), .qsfp_modsell_1(qsfp1_modsell),
        .led_beat(led[0]), .led_link_0(led[1]), .led_link_1(led[2]),
        .cmac_clock_0(cmac_clk[0]), .cmac_clock_1(cmac_clk[1]),
        .rx_tdata_0(rx_tdata[0]), .rx_tdata_1(rx_tdata[1]),
        .rx_tkeep_0(rx_tkeep[0]), .rx_tkeep_1(rx_tkeep[1]),
        .rx_tlast_0(rx_tlast[0]), .rx_tlast_1(rx_tlast[1]),
        .rx_tuser_0(rx_tuser[0]), .rx_tuser_1(rx_tuser[1]),
        .rx_tvalid_0(rx_tvalid[0]), .rx_tvalid_1(rx_tvalid[1]),
        .tx_tdata_0(tx_tdata[0]), .tx_tdata_1(tx_tdata[1]),
        .tx_tkeep_0(tx_tkeep[0]), .tx_tkeep_1(tx_tkeep[1]),
        .tx_tlast_0(tx_tlast[0]), .tx_tlast_1(tx_tlast[1]),
        .tx_tuser_0(tx_tuser[0]), .tx_tuser_1(tx_tuser[1]),
        .tx_tvalid_0(tx_tvalid[0]), .tx_tvalid_1(tx_tvalid[1]),
        .tx_tready_0(tx_tready[0]), .tx_tready_1(tx_tready[1]),
        .rx_aligned_0(rx_aligned[0]), .rx_aligned_1(rx_aligned[1]),
        .ctl_tx_enable_0(tx_enable[0]), .ctl_tx_enable_1(tx_enable[1]),
        .ctl_tx_send_rfi_0(tx_send_rfi[0]), .ctl_tx_send_rfi_1(tx_send_rfi[1]),
        .rx_frames_0(), .rx_frames_1(), .rx_errors_0(), .rx_errors_1(),
        .rx_overflows_0(), .rx_overflows_1(), .tx_frames_0(), .tx_frames_1()
    );

    // ---- the CMACs: cage 0 and cage 1 ----
    cmac_usplus_0 cmac_0 (
        .gt_rxp_in(qsfp0_rx_p), .gt_rxn_in(qsfp0_rx_n), .gt_txp_out(qsfp0_tx_p), .gt_txn_out(qsfp0_tx_n),
        .gt_ref_clk_p(qsfp0_refclk_p), .gt_ref_clk_n(qsfp0_refclk_n), .gt_ref_clk_out(),
        .gt_txusrclk2(cmac_clk[0]), .gt_rxusrclk2(), .gt_rxrecclkout(), .gt_powergoodout(),
        .gt_loopback_in(12'd0), .gtwiz_reset_tx_datapath(1'b0), .gtwiz_reset_rx_datapath(1'b0),
        .init_clk(mgmt_clk), .sys_reset(cmac_sys_reset),
        .rx_clk(cmac_clk[0]), .core_rx_reset(1'b0), .core_tx_reset(1'b0), .usr_rx_reset(), .usr_tx_reset(),
        .core_drp_reset(1'b0), .drp_clk(mgmt_clk), .drp_addr(10'd0), .drp_di(16'd0), .drp_en(1'b0),
        .drp_we(1'b0), .drp_do(), .drp_rdy(),
        .rx_axis_tvalid(rx_tvalid[0]), .rx_axis_tdata(rx_tdata[0]), .rx_axis_tkeep(rx_tkeep[0]),
        .rx_axis_tlast(rx_tlast[0]), .rx_axis_tuser(rx_tuser[0]), .rx_preambleout(),
        .tx_axis_tready(tx_tready[0]), .tx_axis_tvalid(tx_tvalid[0]), .tx_axis_tdata(tx_tdata[0]),
        .tx_axis_tkeep(tx_tkeep[0]), .tx_axis_tlast(tx_tlast[0]), .tx_axis_tuser(tx_tuser[0]),
        .tx_preamblein(56'd0), .tx_ovfout(), .tx_unfout(),
        .ctl_rx_enable(1'b1), .ctl_rx_force_resync(1'b0), .ctl_rx_test_pattern(1'b0),
        .ctl_rsfec_ieee_error_indication_mode(1'b0), .ctl_rx_rsfec_enable(1'b1),
        .ctl_rx_rsfec_enable_correction(1'b1), .ctl_rx_rsfec_enable_indication(1'b1),
        .ctl_tx_enable(tx_enable[0]), .ctl_tx_send_rfi(tx_send_rfi[0]), .ctl_tx_send_lfi(1'b0),
        .ctl_tx_send_idle(1'b0), .ctl_tx_test_pattern(1'b0), .ctl_tx_rsfec_enable(1'b1),
        .stat_rx_aligned(rx_aligned[0]), .stat_rx_status()
    );
    cmac_usplus_1 cmac_1 (
        .gt_rxp_in(qsfp1_rx_p), .gt_rxn_in(qsfp1_rx_n), .gt_txp_out(qsfp1_tx_p), .gt_txn_out(qsfp1_tx_n),
        .gt_ref_clk_p(qsfp1_refclk_p), .gt_ref_clk_n(qsfp1_refclk_n), .gt_ref_clk_out(),
        .gt_txusrclk2(cmac_clk[1]), .gt_rxusrclk2(), .gt_rxrecclkout(), .gt_powergoodout(),
        .gt_loopback_in(12'd0), .gtwiz_reset_tx_datapath(1'b0), .gtwiz_reset_rx_datapath(1'b0),
        .init_clk(mgmt_clk), .sys_reset(cmac_sys_reset),
        .rx_clk(cmac_clk[1]), .core_rx_reset(1'b0), .core_tx_reset(1'b0), .usr_rx_reset(), .usr_tx_reset(),
        .core_drp_reset(1'b0), .drp_clk(mgmt_clk), .drp_addr(10'd0), .drp_di(16'd0), .drp_en(1'b0),
        .drp_we(1'b0), .drp_do(), .drp_rdy(),
        .rx_axis_tvalid(rx_tvalid[1]), .rx_axis_tdata(rx_tdata[1]), .rx_axis_tkeep(rx_tkeep[1]),
        .rx_axis_tlast(rx_tlast[1]), .rx_axis_tuser(rx_tuser[1]), .rx_preambleout(),
        .tx_axis_tready(tx_tready[1]), .tx_axis_tvalid(tx_tvalid[1]), .tx_axis_tdata(tx_tdata[1]),
        .tx_axis_tkeep(tx_tkeep[1]), .tx_axis_tlast(tx_tlast[1]), .tx_axis_tuser(tx_tuser[1]),
        .tx_preamblein(56'd0), .tx_ovfout(), .tx_unfout(),
        .ctl_rx_enable(1'b1), .ctl_rx_force_resync(1'b0), .ctl_rx_test_pattern(1'b0),
        .ctl_rsfec_ieee_error_indication_mode(1'b0), .ctl_rx_rsfec_enable(1'b1),
        .ctl_rx_rsfec_enable_correction(1'b1), .ctl_rx_rsfec_enable_indication(1'b1),
        .ctl_tx_enable(tx_enable[1]), .ctl_tx_send_rfi(tx_send_rfi[1]), .ctl_tx_send_lfi(1'b0),
        .ctl_tx_send_idle(1'b0), .ctl_tx_test_pattern(1'b0), .ctl_tx_rsfec_enable(1'b1),
        .stat_rx_aligned(rx_aligned[1]), .stat_rx_status()
    );

    // ---- host access: JTAG to AXI4-Lite, into the switch clock ----
    wire [31:0] j_awaddr, j_araddr, j_wdata, j_rdata;
    wire [2:0]  j_awprot, j_arprot;
    wire [3:0]  j_wstrb;
    wire [1:0]  j_bresp, j_rresp;
    wire        j_awvalid, j_awready, j_wvalid, j_wready, j_bvalid, j_bready;
    wire        j_arvalid, j_arready, j_rvalid, j_rready;
    jtag_axi_0 jtag_axi (
        .aclk(mgmt_clk), .aresetn(mgmt_resetn),
        .m_axi_awaddr(j_awaddr), .m_axi_awprot(j_awprot), .m_axi_awvalid(j_awvalid), .m_axi_awready(j_awready),
        .m_axi_wdata(j_wdata), .m_axi_wstrb(j_wstrb), .m_axi_wvalid(j_wvalid), .m_axi_wready(j_wready),
        .m_axi_bresp(j_bresp), .m_axi_bvalid(j_bvalid), .m_axi_bready(j_bready),
        .m_axi_araddr(j_araddr), .m_axi_arprot(j_arprot), .m_axi_arvalid(j_arvalid), .m_axi_arready(j_arready),
        .m_axi_rdata(j_rdata), .m_axi_rresp(j_rresp), .m_axi_rvalid(j_rvalid), .m_axi_rready(j_rready)
    );
    axi_clock_converter_0 axil_cdc (
        .s_axi_aclk(mgmt_clk), .s_axi_aresetn(mgmt_resetn),
        .s_axi_awaddr(j_awaddr), .s_axi_awprot(j_awprot), .s_axi_awvalid(j_awvalid), .s_axi_awready(j_awready),
        .s_axi_wdata(j_wdata), .s_axi_wstrb(j_wstrb), .s_axi_wvalid(j_wvalid), .s_axi_wready(j_wready),
        .s_axi_bresp(j_bresp), .s_axi_bvalid(j_bvalid), .s_axi_bready(j_bready),
        .s_axi_araddr(j_araddr), .s_axi_arprot(j_arprot), .s_axi_arvalid(j_arvalid), .s_axi_arready(j_arready),
        .s_axi_rdata(j_rdata), .s_axi_rresp(j_rresp), .s_axi_rvalid(j_rvalid), .s_axi_rready(j_rready),
        .m_axi_aclk(clk), .m_axi_aresetn(axil_resetn),
        .m_axi_awaddr(awaddr), .m_axi_awprot(), .m_axi_awvalid(awvalid), .m_axi_awready(awready),
        .m_axi_wdata(wdata), .m_axi_wstrb(wstrb), .m_axi_wvalid(wvalid), .m_axi_wready(wready),
        .m_axi_bresp(bresp), .m_axi_bvalid(bvalid), .m_axi_bready(bready),
        .m_axi_araddr(araddr), .m_axi_arprot(), .m_axi_arvalid(arvalid), .m_axi_arready(arready),
        .m_axi_rdata(rdata), .m_axi_rresp(rresp), .m_axi_rvalid(rvalid), .m_axi_rready(rready)
    );

endmodule

`default_nettype wire

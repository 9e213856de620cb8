// sume_top: the NetFPGA-SUME top (issue 18, boards/netfpga-sume/README.md).
//
// A thin wrapper: vendor primitives and IP around ts_sume_switch (emitted
// by `trimswitch vivado --board netfpga-sume`), which holds every piece of
// logic of the design. Here only:
// - the 200 MHz board clock (differential, buffered) for the switch, and a
//   125 MHz clock from an MMCM for the PCS/PMA cores' DRP/management (dclk);
// - four Xilinx 10GBASE-R PCS/PMA cores (ten_gig_eth_pcs_pma, PG068): port
//   0's core holds the shared logic (the quad PLL, the 156.25 MHz core
//   clock that is the MACs' clock), ports 1 to 3 share it; their XGMII to
//   and from the switch's MACs; block lock (status_vector[256]) per port;
// - the open-drain I2C pins (IOBUF) of the start-up programmer;
// - the JTAG-to-AXI master (jtag_axi, AXI4-Lite) on the register map.
// Port names follow the board's schematic nets; pins and I/O standards are
// in sume_top.xdc.
`default_nettype none

module sume_top (
    input  wire       sysclk_p,       // 200 MHz oscillator
    input  wire       sysclk_n,
    input  wire       btn0,           // push button: reset (active high)
    input  wire       sfp_refclk_p,   // 156.25 MHz from the Si5324
    input  wire       sfp_refclk_n,
    input  wire [3:0] sfp_rx_p,       // SFP+ cages 1..4 (ports 0..3)
    input  wire [3:0] sfp_rx_n,
    output wire [3:0] sfp_tx_p,
    output wire [3:0] sfp_tx_n,
    output wire [3:0] sfp_tx_disable,
    output wire [3:0] sfp_rs0,
    output wire [3:0] sfp_rs1,
    output wire [3:0] sfp_led_link,   // green: block lock
    output wire [3:0] sfp_led_act,    // yellow: frames in or out
    output wire [1:0] led,            // ready, heartbeat
    inout  wire       i2c_scl,
    inout  wire       i2c_sda,
    output wire       si5324_rst,     // active high at the pin
    output wire       i2c_mux_rst     // active high at the pin
);

    // ---- clocks ----
    wire clk200_ibuf, clk200, dclk_mmcm, dclk, mmcm_fb, mmcm_locked;
    IBUFDS sysclk_ibuf (.I(sysclk_p), .IB(sysclk_n), .O(clk200_ibuf));
    BUFG sysclk_bufg (.I(clk200_ibuf), .O(clk200));
    MMCME2_BASE #(
        .CLKIN1_PERIOD(5.0), .DIVCLK_DIVIDE(1), .CLKFBOUT_MULT_F(5.0), .CLKOUT0_DIVIDE_F(8.0)
    ) dclk_mmcm_i (
        .CLKIN1(clk200_ibuf), .CLKFBIN(mmcm_fb), .CLKFBOUT(mmcm_fb), .CLKOUT0(dclk_mmcm),
        .RST(1'b0), .PWRDWN(1'b0), .LOCKED(mmcm_locked),
        .CLKFBOUTB(), .CLKOUT0B(), .CLKOUT1(), .CLKOUT1B(), .CLKOUT2(), .CLKOUT2B(),
        .CLKOUT3(), .CLKOUT3B(), .CLKOUT4(), .CLKOUT5(), .CLKOUT6()
    );
    BUFG dclk_bufg (.I(dclk_mmcm), .O(dclk));

    // ---- the switch and its start-up logic ----
    wire        coreclk;
    wire [63:0] rxd [0:3];
    wire [7:0]  rxc [0:3];
    wire [63:0] txd [0:3];
    wire [7:0]  txc [0:3];
    wire [3:0]  block_lock;
    wire        pcs_reset, pcs_areset, axil_resetn;
    wire        scl_low, sda_low, scl_in, sda_in, clk_rst, mux_rst;
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

    ts_sume_switch core (
        .clock(clk200), .arst(btn0 | ~mmcm_locked), .mac_clock(coreclk),
        .rxd_0(rxd[0]), .rxd_1(rxd[1]), .rxd_2(rxd[2]), .rxd_3(rxd[3]),
        .rxc_0(rxc[0]), .rxc_1(rxc[1]), .rxc_2(rxc[2]), .rxc_3(rxc[3]),
        .txd_0(txd[0]), .txd_1(txd[1]), .txd_2(txd[2]), .txd_3(txd[3]),
        .txc_0(txc[0]), .txc_1(txc[1]), .txc_2(txc[2]), .txc_3(txc[3]),
        .block_lock_0(block_lock[0]), .block_lock_1(block_lock[1]),
        .block_lock_2(block_lock[2]), .block_lock_3(block_lock[3]),
        .s_axil_awaddr(awaddr[18:0]), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
        .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
        .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
        .s_axil_araddr(araddr[18:0]), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
        .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
        .axil_resetn(axil_resetn),
        .scl_low(scl_low), .sda_low(sda_low), .scl_in(scl_in), .sda_in(sda_in),
        .clk_rst(clk_rst), .mux_rst(mux_rst), .pcs_reset(pcs_reset), .pcs_areset(pcs_areset),
        .sfp_tx_disable_0(sfp_tx_disable[0]), .sfp_tx_disable_1(sfp_tx_disable[1]),
        .sfp_tx_disable_2(sfp_tx_disable[2]), .sfp_tx_disable_3(sfp_tx_disable[3]),
        .sfp_rs0_0(sfp_rs0[0]), .sfp_rs0_1(sfp_rs0[1]), .sfp_rs0_2(sfp_rs0[2]), .sfp_rs0_3(sfp_rs0[3]),
        .sfp_rs1_0(sfp_rs1[0]), .sfp_rs1_1(sfp_rs1[1]), .sfp_rs1_2(sfp_rs1[2]), .sfp_rs1_3(sfp_rs1[3]),
        .led_0(led[0]), .led_1(led[1]),
        .led_link_0(sfp_led_link[0]), .led_link_1(sfp_led_link[1]),
        .led_link_2(sfp_led_link[2]), .led_link_3(sfp_led_link[3]),
        .led_act_0(sfp_led_act[0]), .led_act_1(sfp_led_act[1]),
        .led_act_2(sfp_led_act[2]), .led_act_3(sfp_led_act[3]),
        .i2c_nacks()
    );
    assign si5324_rst = clk_rst;
    assign i2c_mux_rst = mux_rst;

    // ---- I2C: open drain ----
    IOBUF scl_iobuf (.I(1'b0), .T(~scl_low), .O(scl_in), .IO(i2c_scl));
    IOBUF sda_iobuf (.I(1'b0), .T(~sda_low), .O(sda_in), .IO(i2c_sda));

    // ---- 10GBASE-R PCS/PMA: port 0 with the shared logic ----
    wire        qplllock, qplloutclk, qplloutrefclk, txusrclk, txusrclk2;
    wire        gttxreset, gtrxreset, txuserrdy, areset_datapathclk, reset_counter_done;
    wire [447:0] status [0:3];

    ten_gig_eth_pcs_pma_0 pcs_0 (
        .dclk(dclk), .refclk_p(sfp_refclk_p), .refclk_n(sfp_refclk_n),
        .sim_speedup_control(1'b0), .reset(pcs_reset),
        .rxrecclk_out(), .coreclk_out(coreclk),
        .qplloutclk_out(qplloutclk), .qplloutrefclk_out(qplloutrefclk), .qplllock_out(qplllock),
        .txusrclk_out(txusrclk), .txusrclk2_out(txusrclk2),
        .areset_datapathclk_out(areset_datapathclk), .gttxreset_out(gttxreset),
        .gtrxreset_out(gtrxreset), .txuserrdy_out(txuserrdy),
        .reset_counter_done_out(reset_counter_done), .resetdone_out(),
        .xgmii_txd(txd[0]), .xgmii_txc(txc[0]), .xgmii_rxd(rxd[0]), .xgmii_rxc(rxc[0]),
        .txp(sfp_tx_p[0]), .txn(sfp_tx_n[0]), .rxp(sfp_rx_p[0]), .rxn(sfp_rx_n[0]),
        .configuration_vector(536'd0), .status_vector(status[0]), .core_status(),
        .signal_detect(1'b1), .tx_fault(1'b0), .pma_pmd_type(3'd0), .tx_disable(),
        .drp_req(), .drp_gnt(1'b1),
        .drp_den_o(), .drp_dwe_o(), .drp_daddr_o(), .drp_di_o(), .drp_drdy_o(), .drp_drpdo_o(),
        .drp_den_i(1'b0), .drp_dwe_i(1'b0), .drp_daddr_i(16'd0), .drp_di_i(16'd0),
        .drp_drdy_i(1'b0), .drp_drpdo_i(16'd0)
    );

    // ---- ports 1..3: without the shared logic ----
    genvar p;
    generate
        for (p = 1; p < 4; p = p + 1) begin : pcs
            ten_gig_eth_pcs_pma_1 pcs_i (
                .dclk(dclk), .coreclk(coreclk), .txusrclk(txusrclk), .txusrclk2(txusrclk2),
                .txoutclk(), .areset(pcs_areset), .areset_coreclk(areset_datapathclk),
                .gttxreset(gttxreset), .gtrxreset(gtrxreset), .txuserrdy(txuserrdy),
                .qplllock(qplllock), .qplloutclk(qplloutclk), .qplloutrefclk(qplloutrefclk),
                .reset_counter_done(reset_counter_done), .sim_speedup_control(1'b0),
                .tx_resetdone(), .rx_resetdone(),
                .xgmii_txd(txd[p]), .xgmii_txc(txc[p]), .xgmii_rxd(rxd[p]), .xgmii_rxc(rxc[p]),
                .txp(sfp_tx_p[p]), .txn(sfp_tx_n[p]), .rxp(sfp_rx_p[p]), .rxn(sfp_rx_n[p]),
                .configuration_vector(536'd0), .status_vector(status[p]), .core_status(),
                .signal_detect(1'b1), .tx_fault(1'b0), .pma_pmd_type(3'd0), .tx_disable(),
                .drp_req(), .drp_gnt(1'b1),
                .drp_den_o(), .drp_dwe_o(), .drp_daddr_o(), .drp_di_o(), .drp_drdy_o(), .drp_drpdo_o(),
                .drp_den_i(1'b0), .drp_dwe_i(1'b0), .drp_daddr_i(16'd0), .drp_di_i(16'd0),
                .drp_drdy_i(1'b0), .drp_drpdo_i(16'd0)
            );
        end
        for (p = 0; p < 4; p = p + 1) begin : lock
            assign block_lock[p] = status[p][256];
        end
    endgenerate

    // ---- host access: JTAG to AXI4-Lite ----
    jtag_axi_0 jtag_axi (
        .aclk(clk200), .aresetn(axil_resetn),
        .m_axi_awaddr(awaddr), .m_axi_awprot(), .m_axi_awvalid(awvalid), .m_axi_awready(awready),
        .m_axi_wdata(wdata), .m_axi_wstrb(wstrb), .m_axi_wvalid(wvalid), .m_axi_wready(wready),
        .m_axi_bresp(bresp), .m_axi_bvalid(bvalid), .m_axi_bready(bready),
        .m_axi_araddr(araddr), .m_axi_arprot(), .m_axi_arvalid(arvalid), .m_axi_arready(arready),
        .m_axi_rdata(rdata), .m_axi_rresp(rresp), .m_axi_rvalid(rvalid), .m_axi_rready(rready)
    );

endmodule

`default_nettype wire

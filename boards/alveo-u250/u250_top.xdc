# Alveo U250 (xcu250-figd2104-2L-e): pins, I/O standards and clocks of
# u250_top.v (boards/alveo-u250/README.md). Pin facts: the board's public
# reference designs (Xilinx open-nic-shell, corundum) and UG1289.

set_property CFGBVS GND [current_design]
set_property CONFIG_VOLTAGE 1.8 [current_design]
set_property BITSTREAM.GENERAL.COMPRESS true [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4 [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 63.8 [current_design]

# 300 MHz system clock (the DDR4 channel 0 reference), LVDS.
set_property -dict {PACKAGE_PIN AY37 IOSTANDARD LVDS} [get_ports sysclk_p]
set_property -dict {PACKAGE_PIN AY38 IOSTANDARD LVDS} [get_ports sysclk_n]
create_clock -period 3.333 -name sysclk [get_ports sysclk_p]

# QSFP28 cage 0: GTY quad 231 (GTYE4_CHANNEL_X1Y44..X1Y47, CMACE4_X0Y8),
# its 156.25 MHz reference clock on MGTREFCLK0 of the quad.
set_property PACKAGE_PIN M11 [get_ports qsfp0_refclk_p]
set_property PACKAGE_PIN M10 [get_ports qsfp0_refclk_n]
create_clock -period 6.400 -name qsfp0_refclk [get_ports qsfp0_refclk_p]
set_property PACKAGE_PIN N4 [get_ports {qsfp0_rx_p[0]}]
set_property PACKAGE_PIN N3 [get_ports {qsfp0_rx_n[0]}]
set_property PACKAGE_PIN N9 [get_ports {qsfp0_tx_p[0]}]
set_property PACKAGE_PIN N8 [get_ports {qsfp0_tx_n[0]}]
set_property PACKAGE_PIN M2 [get_ports {qsfp0_rx_p[1]}]
set_property PACKAGE_PIN M1 [get_ports {qsfp0_rx_n[1]}]
set_property PACKAGE_PIN M7 [get_ports {qsfp0_tx_p[1]}]
set_property PACKAGE_PIN M6 [get_ports {qsfp0_tx_n[1]}]
set_property PACKAGE_PIN L4 [get_ports {qsfp0_rx_p[2]}]
set_property PACKAGE_PIN L3 [get_ports {qsfp0_rx_n[2]}]
set_property PACKAGE_PIN L9 [get_ports {qsfp0_tx_p[2]}]
set_property PACKAGE_PIN L8 [get_ports {qsfp0_tx_n[2]}]
set_property PACKAGE_PIN K2 [get_ports {qsfp0_rx_p[3]}]
set_property PACKAGE_PIN K1 [get_ports {qsfp0_rx_n[3]}]
set_property PACKAGE_PIN K7 [get_ports {qsfp0_tx_p[3]}]
set_property PACKAGE_PIN K6 [get_ports {qsfp0_tx_n[3]}]
set_property -dict {PACKAGE_PIN BE17 IOSTANDARD LVCMOS12} [get_ports qsfp0_resetl]
set_property -dict {PACKAGE_PIN BD18 IOSTANDARD LVCMOS12} [get_ports qsfp0_lpmode]
set_property -dict {PACKAGE_PIN BE16 IOSTANDARD LVCMOS12} [get_ports qsfp0_modsell]

# QSFP28 cage 1: GTY quad 230 (GTYE4_CHANNEL_X1Y40..X1Y43, CMACE4_X0Y7).
set_property PACKAGE_PIN T11 [get_ports qsfp1_refclk_p]
set_property PACKAGE_PIN T10 [get_ports qsfp1_refclk_n]
create_clock -period 6.400 -name qsfp1_refclk [get_ports qsfp1_refclk_p]
set_property PACKAGE_PIN U4 [get_ports {qsfp1_rx_p[0]}]
set_property PACKAGE_PIN U3 [get_ports {qsfp1_rx_n[0]}]
set_property PACKAGE_PIN U9 [get_ports {qsfp1_tx_p[0]}]
set_property PACKAGE_PIN U8 [get_ports {qsfp1_tx_n[0]}]
set_property PACKAGE_PIN T2 [get_ports {qsfp1_rx_p[1]}]
set_property PACKAGE_PIN T1 [get_ports {qsfp1_rx_n[1]}]
set_property PACKAGE_PIN T7 [get_ports {qsfp1_tx_p[1]}]
set_property PACKAGE_PIN T6 [get_ports {qsfp1_tx_n[1]}]
set_property PACKAGE_PIN R4 [get_ports {qsfp1_rx_p[2]}]
set_property PACKAGE_PIN R3 [get_ports {qsfp1_rx_n[2]}]
set_property PACKAGE_PIN R9 [get_ports {qsfp1_tx_p[2]}]
set_property PACKAGE_PIN R8 [get_ports {qsfp1_tx_n[2]}]
set_property PACKAGE_PIN P2 [get_ports {qsfp1_rx_p[3]}]
set_property PACKAGE_PIN P1 [get_ports {qsfp1_rx_n[3]}]
set_property PACKAGE_PIN P7 [get_ports {qsfp1_tx_p[3]}]
set_property PACKAGE_PIN P6 [get_ports {qsfp1_tx_n[3]}]
set_property -dict {PACKAGE_PIN BC18 IOSTANDARD LVCMOS12} [get_ports qsfp1_resetl]
set_property -dict {PACKAGE_PIN AV22 IOSTANDARD LVCMOS12} [get_ports qsfp1_lpmode]
set_property -dict {PACKAGE_PIN AY20 IOSTANDARD LVCMOS12} [get_ports qsfp1_modsell]

# User LEDs: heartbeat, link of port 0, link of port 1.
set_property -dict {PACKAGE_PIN BC21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN BB21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN BA20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]

# Clock-domain crossings (docs/boards.md). Each port's FIFOs pass
# Gray-coded pointers through two flip-flops between the switch clock and
# its CMAC's clock, both 3.103 ns: a pointer may take at most one period to
# arrive (Cummings, SNUG 2002). The CMAC sides' and the management clock's
# resets are levels through three flip-flops of their clocks; the MMCM's
# lock goes through two.
set_max_delay -datapath_only 3.103 -from [get_cells -hierarchical -filter {NAME =~ */cgray/q_reg*}] -to [get_cells -hierarchical -filter {NAME =~ */wq1/q_reg*}]
set_max_delay -datapath_only 3.103 -from [get_cells -hierarchical -filter {NAME =~ */rgray/q_reg*}] -to [get_cells -hierarchical -filter {NAME =~ */rq1/q_reg*}]
# The MAC counters' hand-over into the switch clock (the board window):
# the holding register is read at least two switch cycles after it was
# loaded; its request and acknowledge go through two flip-flops.
set_max_delay -datapath_only 3.103 -from [get_cells -hierarchical -filter {NAME =~ */snap/q_reg*}] -to [get_cells -hierarchical -filter {NAME =~ */taken/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */sreq1/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */sack1/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */run1*/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */m1/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */lock1/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */al_s1*/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */rx_s1*/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */tx_s1*/q_reg*}]

# Slow pins: LEDs and QSFP28 control.
set_false_path -to [get_ports {led[*] qsfp0_resetl qsfp0_lpmode qsfp0_modsell qsfp1_resetl qsfp1_lpmode qsfp1_modsell}]

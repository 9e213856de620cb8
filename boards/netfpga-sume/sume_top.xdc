# NetFPGA-SUME (xc7vx690tffg1761-3): pins, I/O standards and clocks of
# sume_top.v (boards/netfpga-sume/README.md). Pin facts: the board's
# reference designs (the Digilent master XDC, NetFPGA-SUME-live, corundum).

set_property CFGBVS GND [current_design]
set_property CONFIG_VOLTAGE 1.8 [current_design]
set_property BITSTREAM.GENERAL.COMPRESS true [current_design]

# 200 MHz system clock (FPGA_SYSCLK).
set_property -dict {PACKAGE_PIN H19 IOSTANDARD LVDS} [get_ports sysclk_p]
set_property -dict {PACKAGE_PIN G18 IOSTANDARD LVDS} [get_ports sysclk_n]
create_clock -period 5.000 -name sysclk [get_ports sysclk_p]

# BTN0: reset, active high.
set_property -dict {PACKAGE_PIN AR13 IOSTANDARD LVCMOS15} [get_ports btn0]

# SFP+ reference clock, 156.25 MHz from the Si5324 (MGTREFCLK0 of quad 118).
set_property PACKAGE_PIN E10 [get_ports sfp_refclk_p]
set_property PACKAGE_PIN E9 [get_ports sfp_refclk_n]
create_clock -period 6.400 -name sfp_refclk [get_ports sfp_refclk_p]

# SFP+ cages 1..4 = ports 0..3, GTH quad 119 (GTHE2_CHANNEL_X1Y39..X1Y36).
set_property PACKAGE_PIN A6 [get_ports {sfp_rx_p[0]}]
set_property PACKAGE_PIN A5 [get_ports {sfp_rx_n[0]}]
set_property PACKAGE_PIN B4 [get_ports {sfp_tx_p[0]}]
set_property PACKAGE_PIN B3 [get_ports {sfp_tx_n[0]}]
set_property PACKAGE_PIN B8 [get_ports {sfp_rx_p[1]}]
set_property PACKAGE_PIN B7 [get_ports {sfp_rx_n[1]}]
set_property PACKAGE_PIN C2 [get_ports {sfp_tx_p[1]}]
set_property PACKAGE_PIN C1 [get_ports {sfp_tx_n[1]}]
set_property PACKAGE_PIN C6 [get_ports {sfp_rx_p[2]}]
set_property PACKAGE_PIN C5 [get_ports {sfp_rx_n[2]}]
set_property PACKAGE_PIN D4 [get_ports {sfp_tx_p[2]}]
set_property PACKAGE_PIN D3 [get_ports {sfp_tx_n[2]}]
set_property PACKAGE_PIN D8 [get_ports {sfp_rx_p[3]}]
set_property PACKAGE_PIN D7 [get_ports {sfp_rx_n[3]}]
set_property PACKAGE_PIN E2 [get_ports {sfp_tx_p[3]}]
set_property PACKAGE_PIN E1 [get_ports {sfp_tx_n[3]}]

# SFP+ control: transmitter disable, rate selects.
set_property -dict {PACKAGE_PIN M18 IOSTANDARD LVCMOS15} [get_ports {sfp_tx_disable[0]}]
set_property -dict {PACKAGE_PIN B31 IOSTANDARD LVCMOS15} [get_ports {sfp_tx_disable[1]}]
set_property -dict {PACKAGE_PIN J38 IOSTANDARD LVCMOS15} [get_ports {sfp_tx_disable[2]}]
set_property -dict {PACKAGE_PIN L21 IOSTANDARD LVCMOS15} [get_ports {sfp_tx_disable[3]}]
set_property -dict {PACKAGE_PIN N19 IOSTANDARD LVCMOS15} [get_ports {sfp_rs0[0]}]
set_property -dict {PACKAGE_PIN P20 IOSTANDARD LVCMOS15} [get_ports {sfp_rs0[1]}]
set_property -dict {PACKAGE_PIN F39 IOSTANDARD LVCMOS15} [get_ports {sfp_rs0[2]}]
set_property -dict {PACKAGE_PIN H38 IOSTANDARD LVCMOS15} [get_ports {sfp_rs0[3]}]
set_property -dict {PACKAGE_PIN P18 IOSTANDARD LVCMOS15} [get_ports {sfp_rs1[0]}]
set_property -dict {PACKAGE_PIN N20 IOSTANDARD LVCMOS15} [get_ports {sfp_rs1[1]}]
set_property -dict {PACKAGE_PIN G36 IOSTANDARD LVCMOS15} [get_ports {sfp_rs1[2]}]
set_property -dict {PACKAGE_PIN G38 IOSTANDARD LVCMOS15} [get_ports {sfp_rs1[3]}]

# SFP+ LEDs: green (link), yellow (activity).
set_property -dict {PACKAGE_PIN G13 IOSTANDARD LVCMOS15} [get_ports {sfp_led_link[0]}]
set_property -dict {PACKAGE_PIN AL22 IOSTANDARD LVCMOS15} [get_ports {sfp_led_link[1]}]
set_property -dict {PACKAGE_PIN AY18 IOSTANDARD LVCMOS15} [get_ports {sfp_led_link[2]}]
set_property -dict {PACKAGE_PIN P31 IOSTANDARD LVCMOS15} [get_ports {sfp_led_link[3]}]
set_property -dict {PACKAGE_PIN L15 IOSTANDARD LVCMOS15} [get_ports {sfp_led_act[0]}]
set_property -dict {PACKAGE_PIN BA20 IOSTANDARD LVCMOS15} [get_ports {sfp_led_act[1]}]
set_property -dict {PACKAGE_PIN AY17 IOSTANDARD LVCMOS15} [get_ports {sfp_led_act[2]}]
set_property -dict {PACKAGE_PIN K32 IOSTANDARD LVCMOS15} [get_ports {sfp_led_act[3]}]

# User LEDs: ready, heartbeat.
set_property -dict {PACKAGE_PIN AR22 IOSTANDARD LVCMOS15} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN AR23 IOSTANDARD LVCMOS15} [get_ports {led[1]}]

# I2C (the PCA9548 switch at 0x74; the Si5324 at 0x68 on its channel 4),
# the Si5324's and the switch's resets (active high at the pins).
set_property -dict {PACKAGE_PIN AK24 IOSTANDARD LVCMOS18 PULLUP true} [get_ports i2c_scl]
set_property -dict {PACKAGE_PIN AK25 IOSTANDARD LVCMOS18 PULLUP true} [get_ports i2c_sda]
set_property -dict {PACKAGE_PIN BA29 IOSTANDARD LVCMOS18} [get_ports si5324_rst]
set_property -dict {PACKAGE_PIN AM39 IOSTANDARD LVCMOS15} [get_ports i2c_mux_rst]

# Clock-domain crossings (docs/boards.md). The ports' FIFOs pass Gray-coded
# pointers through two flip-flops: each pointer may take at most one period
# of the faster clock to arrive (Cummings, SNUG 2002). The MAC side's reset
# is a level through three flip-flops of the MAC clock.
set_max_delay -datapath_only 5.000 -from [get_cells -hierarchical -filter {NAME =~ */cgray/q_reg*}] -to [get_cells -hierarchical -filter {NAME =~ */wq1/q_reg*}]
set_max_delay -datapath_only 5.000 -from [get_cells -hierarchical -filter {NAME =~ */rgray/q_reg*}] -to [get_cells -hierarchical -filter {NAME =~ */rq1/q_reg*}]
# The MAC counters' hand-over into the switch clock (the board window):
# the holding register is read at least two switch cycles after it was
# loaded; its request and acknowledge go through two flip-flops.
set_max_delay -datapath_only 5.000 -from [get_cells -hierarchical -filter {NAME =~ */snap/q_reg*}] -to [get_cells -hierarchical -filter {NAME =~ */taken/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */sreq1/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */sack1/q_reg*}]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ */mh1/q_reg*}]

# Asynchronous pins: the button and I2C inputs go through two flip-flops;
# LEDs, SFP+ control, resets and I2C outputs are slow.
set_false_path -from [get_ports {btn0 i2c_scl i2c_sda}]
set_false_path -to [get_ports {led[*] sfp_led_link[*] sfp_led_act[*] sfp_tx_disable[*] sfp_rs0[*] sfp_rs1[*] si5324_rst i2c_mux_rst i2c_scl i2c_sda}]

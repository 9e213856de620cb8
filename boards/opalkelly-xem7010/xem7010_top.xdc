# Opal Kelly XEM7010-A75 (xc7a75tfgg484-1; the A50's pins are the same): pins, I/O standards and clocks of
# xem7010_top.v (boards/opalkelly-xem7010/README.md). Pin facts: Opal
# Kelly's XEM7010 pin list, as the rust-hdl board-support package
# (rust-hdl-bsp-ok-xem7010, rust-hdl-ok-core) records them; the host
# interface's timing is FrontPanel's (USB 2.0: 48 MHz, data sampled over
# two cycles).

set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
set_property BITSTREAM.GENERAL.COMPRESS true [current_design]

# 200 MHz oscillator, LVDS.
set_property -dict {PACKAGE_PIN K4 IOSTANDARD LVDS_25} [get_ports sys_clk_p]
set_property -dict {PACKAGE_PIN J4 IOSTANDARD LVDS_25} [get_ports sys_clk_n]
create_clock -period 5.000 -name sys_clk [get_ports sys_clk_p]

# FrontPanel host interface (the USB 2.0 controller), LVCMOS33.
set_property -dict {PACKAGE_PIN Y18 IOSTANDARD LVCMOS33 SLEW FAST} [get_ports {hi_in[0]}]
set_property -dict {PACKAGE_PIN V17 IOSTANDARD LVCMOS33 SLEW FAST} [get_ports {hi_in[1]}]
set_property -dict {PACKAGE_PIN AA19 IOSTANDARD LVCMOS33 SLEW FAST} [get_ports {hi_in[2]}]
set_property -dict {PACKAGE_PIN V20 IOSTANDARD LVCMOS33 SLEW FAST} [get_ports {hi_in[3]}]
set_property -dict {PACKAGE_PIN W17 IOSTANDARD LVCMOS33 SLEW FAST} [get_ports {hi_in[4]}]
set_property -dict {PACKAGE_PIN AB20 IOSTANDARD LVCMOS33 SLEW FAST} [get_ports {hi_in[5]}]
set_property -dict {PACKAGE_PIN V19 IOSTANDARD LVCMOS33 SLEW FAST} [get_ports {hi_in[6]}]
set_property -dict {PACKAGE_PIN AA18 IOSTANDARD LVCMOS33 SLEW FAST} [get_ports {hi_in[7]}]
set_property -dict {PACKAGE_PIN Y21 IOSTANDARD LVCMOS33} [get_ports {hi_out[0]}]
set_property -dict {PACKAGE_PIN U20 IOSTANDARD LVCMOS33} [get_ports {hi_out[1]}]
set_property -dict {PACKAGE_PIN AB22 IOSTANDARD LVCMOS33} [get_ports {hi_inout[0]}]
set_property -dict {PACKAGE_PIN AB21 IOSTANDARD LVCMOS33} [get_ports {hi_inout[1]}]
set_property -dict {PACKAGE_PIN Y22 IOSTANDARD LVCMOS33} [get_ports {hi_inout[2]}]
set_property -dict {PACKAGE_PIN AA21 IOSTANDARD LVCMOS33} [get_ports {hi_inout[3]}]
set_property -dict {PACKAGE_PIN AA20 IOSTANDARD LVCMOS33} [get_ports {hi_inout[4]}]
set_property -dict {PACKAGE_PIN W22 IOSTANDARD LVCMOS33} [get_ports {hi_inout[5]}]
set_property -dict {PACKAGE_PIN W21 IOSTANDARD LVCMOS33} [get_ports {hi_inout[6]}]
set_property -dict {PACKAGE_PIN T20 IOSTANDARD LVCMOS33} [get_ports {hi_inout[7]}]
set_property -dict {PACKAGE_PIN R19 IOSTANDARD LVCMOS33} [get_ports {hi_inout[8]}]
set_property -dict {PACKAGE_PIN P19 IOSTANDARD LVCMOS33} [get_ports {hi_inout[9]}]
set_property -dict {PACKAGE_PIN U21 IOSTANDARD LVCMOS33} [get_ports {hi_inout[10]}]
set_property -dict {PACKAGE_PIN T21 IOSTANDARD LVCMOS33} [get_ports {hi_inout[11]}]
set_property -dict {PACKAGE_PIN R21 IOSTANDARD LVCMOS33} [get_ports {hi_inout[12]}]
set_property -dict {PACKAGE_PIN P21 IOSTANDARD LVCMOS33} [get_ports {hi_inout[13]}]
set_property -dict {PACKAGE_PIN R22 IOSTANDARD LVCMOS33} [get_ports {hi_inout[14]}]
set_property -dict {PACKAGE_PIN P22 IOSTANDARD LVCMOS33} [get_ports {hi_inout[15]}]
set_property -dict {PACKAGE_PIN V22 IOSTANDARD LVCMOS33} [get_ports hi_aa]
set_property -dict {PACKAGE_PIN P20 IOSTANDARD LVCMOS33} [get_ports hi_muxsel]

# The host interface's clock and I/O timing (FrontPanel, USB 2.0).
create_clock -period 20.830 -name okHostClk [get_ports {hi_in[0]}]
set_input_delay -add_delay -max -clock [get_clocks okHostClk] 6.700 [get_ports {hi_in[*]}]
set_input_delay -add_delay -min -clock [get_clocks okHostClk] 0.000 [get_ports {hi_in[*]}]
set_multicycle_path -setup -from [get_ports {hi_in[*]}] 2
set_input_delay -add_delay -max -clock [get_clocks okHostClk] 11.000 [get_ports {hi_inout[*]}]
set_input_delay -add_delay -min -clock [get_clocks okHostClk] 0.000 [get_ports {hi_inout[*]}]
set_multicycle_path -setup -from [get_ports {hi_inout[*]}] 2
set_output_delay -add_delay -clock [get_clocks okHostClk] 8.900 [get_ports {hi_out[*]}]
set_output_delay -add_delay -clock [get_clocks okHostClk] 9.200 [get_ports {hi_inout[*]}]

# LEDs, active low (driven low or left floating).
set_property -dict {PACKAGE_PIN N13 IOSTANDARD LVCMOS33} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN N14 IOSTANDARD LVCMOS33} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN P15 IOSTANDARD LVCMOS33} [get_ports {led[2]}]
set_property -dict {PACKAGE_PIN P16 IOSTANDARD LVCMOS33} [get_ports {led[3]}]
set_property -dict {PACKAGE_PIN N17 IOSTANDARD LVCMOS33} [get_ports {led[4]}]
set_property -dict {PACKAGE_PIN P17 IOSTANDARD LVCMOS33} [get_ports {led[5]}]
set_property -dict {PACKAGE_PIN R16 IOSTANDARD LVCMOS33} [get_ports {led[6]}]
set_property -dict {PACKAGE_PIN R17 IOSTANDARD LVCMOS33} [get_ports {led[7]}]

# Clock-domain crossings (docs/boards.md, "Opal Kelly host access"). The
# switch clock and FrontPanel's interface clock are unrelated: asynchronous
# groups. The triggers cross inside okTriggerIn/okTriggerOut (ep_clk is the
# switch clock). The WireIns are quasi-static: the host changes them in a USB
# transfer of its own, microseconds before the trigger that uses them, and
# ts_ok_axil registers them every cycle (w_addr, w_data; the reset bit's
# hr1, and hr2 after it) and takes them at the trigger. The WireOuts change
# only as a command completes, before its done trigger, and okWireOut
# samples them when the host asks, after it. The MMCM's lock goes through
# two flip-flops.
set_clock_groups -asynchronous -group [get_clocks -include_generated_clocks okHostClk] -group [get_clocks -include_generated_clocks sys_clk]
set_false_path -to [get_cells -hierarchical -filter {NAME =~ core/lock1/q_reg*}]

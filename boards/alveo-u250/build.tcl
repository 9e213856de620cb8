# Builds the Alveo U250 bitstream in Vivado's non-project mode
# (boards/alveo-u250/README.md). Run by run_vivado.sh, written by
# `trimswitch vivado --board alveo-u250`, in the directory holding
# ts_u250_switch.v, u250_top.v and u250_top.xdc:
#   vivado -mode batch -source build.tcl -tclargs <part> <out_dir>
# Creates the IP cores (a 100G CMAC per QSFP28 cage, JTAG to AXI4-Lite, an
# AXI4-Lite clock converter), synthesizes, places, routes, reports timing
# and utilization, and writes <out_dir>/u250_top.bit. Fails when timing is
# not met (a negative setup or hold slack) or an input is missing.

if {![file exists implement.tcl]} {
    puts stderr "implement.tcl: no such file (run trimswitch vivado --board alveo-u250)"
    exit 2
}
source implement.tcl
lassign [board_inputs $argv alveo-u250 {ts_u250_switch.v u250_top.v u250_top.xdc}] part out

create_project -in_memory -part $part
set_property target_language Verilog [current_project]

# 100G CMAC (PG203), one per cage: CAUI-4 (4 x 25.78 Gb/s) with RS-FEC,
# the AXI4-Stream user interface, no AXI4-Lite (ctl_* ports), no pause
# frames; the 156.25 MHz reference clocks; init/DRP clock 100 MHz. Receive
# removes the FCS and flags bad frames, transmit appends it (defaults).
file mkdir ip
foreach {module core gts lane1} {
    cmac_usplus_0 CMACE4_X0Y8 X1Y44~X1Y47 X1Y44
    cmac_usplus_1 CMACE4_X0Y7 X1Y40~X1Y43 X1Y40
} {
    create_ip -name cmac_usplus -vendor xilinx.com -library ip -dir ip -module_name $module
    set_property -dict [list CONFIG.CMAC_CAUI4_MODE {1} CONFIG.NUM_LANES {4x25} CONFIG.GT_REF_CLK_FREQ {156.25} \
        CONFIG.USER_INTERFACE {AXIS} CONFIG.GT_DRP_CLK {100} CONFIG.ENABLE_AXI_INTERFACE {0} \
        CONFIG.INCLUDE_RS_FEC {1} CONFIG.TX_FLOW_CONTROL {0} CONFIG.RX_FLOW_CONTROL {0} \
        CONFIG.RX_MAX_PACKET_LEN {16383} CONFIG.CMAC_CORE_SELECT $core CONFIG.GT_GROUP_SELECT $gts \
        CONFIG.LANE1_GT_LOC $lane1] [get_ips $module]
}
# JTAG to AXI master, AXI4-Lite, and the clock converter into the switch clock.
create_ip -name jtag_axi -vendor xilinx.com -library ip -dir ip -module_name jtag_axi_0
set_property -dict [list CONFIG.PROTOCOL {2} CONFIG.M_AXI_ADDR_WIDTH {32} CONFIG.M_AXI_DATA_WIDTH {32}] [get_ips jtag_axi_0]
create_ip -name axi_clock_converter -vendor xilinx.com -library ip -dir ip -module_name axi_clock_converter_0
set_property -dict [list CONFIG.PROTOCOL {AXI4LITE} CONFIG.ADDR_WIDTH {32} CONFIG.DATA_WIDTH {32}] [get_ips axi_clock_converter_0]
generate_target all [get_ips]
synth_ip [get_ips]

implement u250_top $part $out {ts_u250_switch.v u250_top.v}

# Builds the NetFPGA-SUME bitstream in Vivado's non-project mode
# (boards/netfpga-sume/README.md). Run by run_vivado.sh, written by
# `trimswitch vivado --board netfpga-sume`, in the directory holding
# ts_sume_switch.v, sume_top.v and sume_top.xdc:
#   vivado -mode batch -source build.tcl -tclargs <part> <out_dir>
# Creates the IP cores (10GBASE-R PCS/PMA with and without the shared
# logic, JTAG to AXI4-Lite), synthesizes, places, routes, reports timing and
# utilization, and writes <out_dir>/sume_top.bit. Fails when timing is not
# met (a negative setup or hold slack) or an input is missing.

if {![file exists implement.tcl]} {
    puts stderr "implement.tcl: no such file (run trimswitch vivado --board netfpga-sume)"
    exit 2
}
source implement.tcl
lassign [board_inputs $argv netfpga-sume {ts_sume_switch.v sume_top.v sume_top.xdc}] part out

create_project -in_memory -part $part
set_property target_language Verilog [current_project]

# 10GBASE-R PCS/PMA (PG068): port 0 with the shared logic, ports 1-3 without.
file mkdir ip
create_ip -name ten_gig_eth_pcs_pma -vendor xilinx.com -library ip -dir ip -module_name ten_gig_eth_pcs_pma_0
set_property -dict [list CONFIG.MDIO_Management {false} CONFIG.base_kr {BASE-R} CONFIG.SupportLevel {1} CONFIG.DClkRate {125}] [get_ips ten_gig_eth_pcs_pma_0]
create_ip -name ten_gig_eth_pcs_pma -vendor xilinx.com -library ip -dir ip -module_name ten_gig_eth_pcs_pma_1
set_property -dict [list CONFIG.MDIO_Management {false} CONFIG.base_kr {BASE-R} CONFIG.SupportLevel {0} CONFIG.DClkRate {125}] [get_ips ten_gig_eth_pcs_pma_1]
# JTAG to AXI master, AXI4-Lite.
create_ip -name jtag_axi -vendor xilinx.com -library ip -dir ip -module_name jtag_axi_0
set_property -dict [list CONFIG.PROTOCOL {2} CONFIG.M_AXI_ADDR_WIDTH {32} CONFIG.M_AXI_DATA_WIDTH {32}] [get_ips jtag_axi_0]
generate_target all [get_ips]
synth_ip [get_ips]

implement sume_top $part $out {ts_sume_switch.v sume_top.v}

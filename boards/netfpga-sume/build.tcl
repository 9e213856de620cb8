# Builds the NetFPGA-SUME bitstream in Vivado's non-project mode
# (boards/netfpga-sume/README.md). Run by run_vivado.sh, written by
# `trimswitch vivado --board netfpga-sume`, in the directory holding
# ts_sume_switch.v, sume_top.v and sume_top.xdc:
#   vivado -mode batch -source build.tcl -tclargs <part> <out_dir>
# Creates the IP cores (10GBASE-R PCS/PMA with and without the shared
# logic, JTAG to AXI4-Lite), synthesizes, places, routes, reports timing and
# utilization, and writes <out_dir>/sume_top.bit. Fails when timing is not
# met (a negative setup or hold slack) or an input is missing.

if {[llength $argv] != 2} {
    puts stderr "usage: vivado -mode batch -source build.tcl -tclargs <part> <out_dir>"
    exit 2
}
lassign $argv part out
foreach f {ts_sume_switch.v sume_top.v sume_top.xdc} {
    if {![file exists $f]} {
        puts stderr "$f: no such file (run trimswitch vivado --board netfpga-sume)"
        exit 2
    }
}
file mkdir $out

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

read_verilog {ts_sume_switch.v sume_top.v}
read_xdc sume_top.xdc
synth_design -top sume_top -part $part
report_utilization -file $out/synth_utilization.rpt
opt_design
place_design
phys_opt_design
route_design
report_timing_summary -file $out/timing_summary.rpt
report_utilization -file $out/utilization.rpt
report_clock_interaction -file $out/clock_interaction.rpt
set setup [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
set hold [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -hold]]
puts "trimswitch: sume_top on $part: WNS $setup ns, WHS $hold ns"
if {$setup < 0 || $hold < 0} {
    puts stderr "trimswitch: timing not met (WNS $setup ns, WHS $hold ns): see $out/timing_summary.rpt"
    exit 1
}
write_bitstream -force $out/sume_top.bit
puts "trimswitch: wrote $out/sume_top.bit"

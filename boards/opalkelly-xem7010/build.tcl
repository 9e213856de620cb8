# Builds the Opal Kelly XEM7010 bitstream in Vivado's non-project mode
# (boards/opalkelly-xem7010/README.md). Run by run_vivado.sh, written by
# `trimswitch vivado --board opalkelly-xem7010`, in the directory holding
# ts_xem7010_switch.v, xem7010_top.v and xem7010_top.xdc:
#   FRONTPANEL_HDL=<dir> vivado -mode batch -source build.tcl -tclargs <part> <out_dir>
# FRONTPANEL_HDL is the FrontPanel SDK's HDL directory for this module and
# Vivado (Opal Kelly's okHost and endpoints: okLibrary.v and the files
# beside it; not part of this repository). Synthesizes, places, routes,
# reports timing and utilization, and writes <out_dir>/xem7010_top.bit.
# Fails when timing is not met (a negative setup or hold slack) or an
# input is missing.

if {![file exists implement.tcl]} {
    puts stderr "implement.tcl: no such file (run trimswitch vivado --board opalkelly-xem7010)"
    exit 2
}
source implement.tcl
lassign [board_inputs $argv opalkelly-xem7010 {ts_xem7010_switch.v xem7010_top.v xem7010_top.xdc}] part out
if {![info exists ::env(FRONTPANEL_HDL)]} {
    puts stderr "FRONTPANEL_HDL is not set: the FrontPanel SDK's HDL directory for the XEM7010 (boards/opalkelly-xem7010/README.md)"
    exit 2
}
set fp $::env(FRONTPANEL_HDL)
if {![file exists [file join $fp okLibrary.v]]} {
    puts stderr "FRONTPANEL_HDL=$fp: no okLibrary.v there (the FrontPanel SDK's HDL directory for the XEM7010 and Vivado)"
    exit 2
}

create_project -in_memory -part $part
set_property target_language Verilog [current_project]
# FrontPanel's modules: its Verilog, and the netlists a release may ship.
read_verilog [glob -directory $fp *.v]
foreach n [glob -nocomplain -directory $fp *.edf] {
    read_edif $n
}

implement xem7010_top $part $out {ts_xem7010_switch.v xem7010_top.v}

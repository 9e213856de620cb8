# Out-of-context implementation of one trimswitch block in Vivado (non-project
# mode): synthesis, placement and routing against the block's own clock, then
# timing, utilization and logic-level reports. No board wrapper, MAC or PHY:
# it answers "does the data path meet the target clock on this part, and what
# does it use", which Yosys here cannot (no open place-and-route for Xilinx).
#
# `trimswitch vivado --config <toml>` writes the constraints and the command
# line (build/<target>/vivado/run_vivado.sh); by hand:
#
#   vivado -mode batch -source bitstreams/vivado_ooc.tcl \
#     -tclargs <verilog file> <top module> <part> <xdc file> <report dir>
#
# Reports in <report dir>: synth_utilization.rpt, utilization.rpt,
# timing_summary.rpt, logic_levels.rpt, <top>.dcp; the last line printed is
# "trimswitch: <top> on <part>: WNS <ns> ns".

if {[llength $argv] != 5} {
    puts stderr "usage: vivado -mode batch -source vivado_ooc.tcl -tclargs <verilog> <top> <part> <xdc> <report dir>"
    exit 2
}
lassign $argv verilog top part xdc outdir
foreach f [list $verilog $xdc] {
    if {![file exists $f]} {
        puts stderr "vivado_ooc.tcl: $f: no such file (run `trimswitch vivado` first)"
        exit 2
    }
}
file mkdir $outdir

read_verilog $verilog
read_xdc -mode out_of_context $xdc
synth_design -top $top -part $part -mode out_of_context
report_utilization -file [file join $outdir synth_utilization.rpt]

opt_design
place_design
phys_opt_design
route_design

report_timing_summary -max_paths 20 -file [file join $outdir timing_summary.rpt]
report_utilization -file [file join $outdir utilization.rpt]
report_design_analysis -logic_level_distribution -file [file join $outdir logic_levels.rpt]
write_checkpoint -force [file join $outdir $top.dcp]

set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
puts "trimswitch: $top on $part: WNS $wns ns"

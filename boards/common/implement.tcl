# The implementation flow every Vivado board build shares (boards/README.md),
# sourced first by a board's build.tcl:
#   lassign [board_inputs $argv <board> <files>] part out
# checks the arguments and the board's files, and once its IP cores exist
#   implement <top> <part> <out_dir> <verilog files>
# Reads the board's Verilog and <top>.xdc, synthesizes, places, routes,
# writes the reports (synth_utilization, timing_summary, utilization,
# clock_interaction) and <out_dir>/<top>.bit. A negative setup or hold slack
# fails the build (exit 1) before the bitstream.
proc implement {top part out sources} {
    read_verilog $sources
    read_xdc $top.xdc
    synth_design -top $top -part $part
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
    puts "trimswitch: $top on $part: WNS $setup ns, WHS $hold ns"
    if {$setup < 0 || $hold < 0} {
        puts stderr "trimswitch: timing not met (WNS $setup ns, WHS $hold ns): see $out/timing_summary.rpt"
        exit 1
    }
    write_bitstream -force $out/$top.bit
    puts "trimswitch: wrote $out/$top.bit"
}

# The arguments (<part> <out_dir>) and the files of `trimswitch vivado
# --board <board>`: the usage or the first missing file, exit 2, before
# anything is built. Returns the arguments; creates <out_dir>.
proc board_inputs {argv board files} {
    if {[llength $argv] != 2} {
        puts stderr "usage: vivado -mode batch -source build.tcl -tclargs <part> <out_dir>"
        exit 2
    }
    foreach f $files {
        if {![file exists $f]} {
            puts stderr "$f: no such file (run trimswitch vivado --board $board)"
            exit 2
        }
    }
    file mkdir [lindex $argv 1]
    return $argv
}

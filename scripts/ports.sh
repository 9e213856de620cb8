#!/usr/bin/env bash
# Prints every module's ports (direction, width, name) of the Verilog files in a
# directory, one line per port: the interface a reshape must keep. The net type
# (`wire`/`reg`) is left out: an output driven by a child's port directly is a
# wire, one assigned in the module's own logic a reg, and both are the same port.
# Usage: scripts/ports.sh build/netfpga-sume/verilog > ports.txt; compare two
# runs with `diff <(sort a) <(sort b)`.
set -euo pipefail
dir=${1:?usage: scripts/ports.sh <verilog dir>}
for f in "$dir"/*.v; do
  awk -v f="$(basename "$f")" '
    /^module /{m=$2; sub(/\(.*/,"",m)}
    /^ *(input|output|inout) /{sub(/^ +/,""); sub(/ (wire|reg) /," "); gsub(/ +/," "); print f": "m": "$0}' "$f"
done

#!/usr/bin/env bash
# Prints every module's port declarations of the Verilog files in a directory,
# one line per port, sorted by file: the interface that a reshape must keep.
# Usage: scripts/ports.sh build/netfpga-sume/verilog > ports.txt
# (compare two runs with diff).
set -euo pipefail
dir=${1:?usage: scripts/ports.sh <verilog dir>}
for f in "$dir"/*.v; do
  awk -v f="$(basename "$f")" '/^module /{m=$2; sub(/\(.*/,"",m)} /^ *(input|output|inout) /{sub(/^ +/,""); print f": "m": "$0}' "$f"
done

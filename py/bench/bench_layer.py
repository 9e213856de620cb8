"""The benchmark's third side (py/bench/run.py runs it): cocotb's testbench,
py/bench/bench_cocotb.py, unchanged but for its imports, on trimswitch's
cocotb-style layer (`trimswitch.cocotb`) and the Verilated `ts_switch` of the
Rust harness (`trimswitch.Block`): what porting a cocotb testbench buys."""
import os
import sys
import time

t_process = time.perf_counter()
os.environ["BENCH_LAYER"] = "trimswitch"
import trimswitch as ts  # noqa: E402
from trimswitch import cocotb  # noqa: E402

import bench_cocotb  # noqa: E402


def main(config: str):
    block = ts.Block("ts_switch", config=config)
    cocotb.run(bench_cocotb.bench, block)
    print(f"model load and import: {time.perf_counter() - t_process:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])

"""The benchmark's cocotb side (py/bench/run.py builds and runs it): the same
workload through the same switch with cocotbext-axi's sources, sinks and
AXI4-Lite master, every frame checked against the same golden model
(trimswitch.model) as it leaves, the output pcaps written.

With BENCH_LAYER=trimswitch the same testbench runs on trimswitch's
cocotb-style layer instead (py/bench/bench_layer.py): the imports change,
and the stream ports are the switch's own (`s_0` for `s_tdata_0`, where
cocotb sees the benchmark top's `s0_tdata`); nothing else."""
import json
import os
import time
from pathlib import Path

LAYER = os.environ.get("BENCH_LAYER", "cocotb")
# BENCH_PER_EDGE=1: the senders wait for their frames' slots edge by edge
# (`RisingEdge` in a loop) instead of with one `ClockCycles`.
PER_EDGE = os.environ.get("BENCH_PER_EDGE") == "1"

if LAYER == "trimswitch":
    from trimswitch import cocotb  # noqa: E402
    from trimswitch.cocotb import (AxiLiteBus, AxiLiteMaster, AxiStreamBus, AxiStreamSink,  # noqa: E402
                                   AxiStreamSource, Clock, ClockCycles, Combine, RisingEdge, get_sim_time)
    SEP = "_"
else:
    import cocotb  # noqa: E402
    from cocotb.clock import Clock  # noqa: E402
    from cocotb.triggers import ClockCycles, Combine, RisingEdge  # noqa: E402
    from cocotb.utils import get_sim_time  # noqa: E402
    from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiStreamBus, AxiStreamSink, AxiStreamSource  # noqa: E402
    SEP = ""

import trimswitch as ts  # noqa: E402
from workload import PORTS, workload  # noqa: E402

PERIOD_NS = 5


def cycle():
    return int(get_sim_time(unit="ns")) // PERIOD_NS


# A frame that never arrives fails the run instead of hanging it: every
# frame is scheduled within 250 cycles a frame per port, plus a margin.
_LIMIT_NS = (int(os.environ.get("BENCH_PER_PORT", "0")) * 250 + 100_000) * PERIOD_NS


@cocotb.test(timeout_time=_LIMIT_NS, timeout_unit="ns")
async def bench(dut):
    config, out = os.environ["BENCH_CONFIG"], Path(os.environ["BENCH_OUT"])
    per_port, seed = int(os.environ["BENCH_PER_PORT"]), int(os.environ["BENCH_SEED"])
    t0 = time.perf_counter()
    cocotb.start_soon(Clock(dut.clock, PERIOD_NS, unit="ns").start())
    dut.reset.value = 1
    await ClockCycles(dut.clock, 4)
    dut.reset.value = 0
    await RisingEdge(dut.clock)
    host = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clock, dut.reset)
    for a, v in ts.model.config_writes(config):
        await host.write_dword(a, v)
    srcs = [AxiStreamSource(AxiStreamBus.from_prefix(dut, f"s{SEP}{p}"), dut.clock, dut.reset) for p in range(PORTS)]
    sinks = [AxiStreamSink(AxiStreamBus.from_prefix(dut, f"m{SEP}{p}"), dut.clock, dut.reset) for p in range(PORTS)]
    model = ts.model.Ingress(config)
    wl = workload(seed, per_port)
    t1 = time.perf_counter()
    c0 = cycle()
    got = {p: [] for p in range(PORTS)}

    async def send(p):
        for f, at in wl[p]:
            now = cycle() - c0
            if at > now and PER_EDGE:
                for _ in range(at - now):
                    await RisingEdge(dut.clock)
            elif at > now:
                await ClockCycles(dut.clock, at - now)
            await srcs[p].send(f)

    async def check(d):
        src = (d - 1) % PORTS
        for k in range(per_port):
            rx = await sinks[d].recv()
            data = bytes(rx.tdata)
            want = model.process(src, wl[src][k][0])
            assert want is not None and want[0] == d and data == want[1], f"port {d} frame {k}"
            got[d].append(data)

    for p in range(PORTS):
        cocotb.start_soon(send(p))
    await Combine(*[cocotb.start_soon(check(d)) for d in range(PORTS)])
    t2 = time.perf_counter()
    for d in range(PORTS):
        ts.write_pcap(out / f"port{d}.pcap", [(1000 * i, f) for i, f in enumerate(got[d])])
    (out / "result.json").write_text(json.dumps({"side": LAYER, "checked": sum(len(g) for g in got.values()),
                                                 "cycles": cycle() - c0, "run_s": t2 - t1, "startup_s": t1 - t0}))

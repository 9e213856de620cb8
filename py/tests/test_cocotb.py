"""The cocotb-style layer (trimswitch.cocotb) on single blocks and on the
whole switch (the benchmark's cocotb testbench).

`run_test_frames` below is written as cocotbext-axi's own FIFO testbenches
are (a TB class with a source and a sink from bus prefixes, a reset
coroutine, `await source.send(...)`, `await sink.recv()`, idle and
back-pressure insertion, `tuser` checks): porting it from cocotb changed
only its imports and the bus prefixes (`s`/`m`, the blocks' port names)."""
import itertools
from pathlib import Path

import pytest

import trimswitch as ts
from trimswitch import cocotb
from trimswitch.cocotb import (
    AxiLiteBus,
    AxiLiteMaster,
    AxiStreamBus,
    AxiStreamFrame,
    AxiStreamSink,
    AxiStreamSource,
    Clock,
    ClockCycles,
    ReadOnly,
    RisingEdge,
    Timer,
)

CONFIG = str(Path(__file__).resolve().parents[2] / "configs" / "netfpga-sume.toml")


class TB:
    def __init__(self, dut):
        self.dut = dut
        cocotb.start_soon(Clock(dut.clock, 5, units="ns").start())
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s"), dut.clock, dut.reset)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m"), dut.clock, dut.reset)

    def set_idle_generator(self, p):
        self.source.set_idle_prob(p)

    def set_backpressure_generator(self, p):
        self.sink.set_ready_prob(1.0 - p)

    async def reset(self):
        self.dut.reset.setimmediatevalue(0)
        await RisingEdge(self.dut.clock)
        await RisingEdge(self.dut.clock)
        self.dut.reset.value = 1
        await ClockCycles(self.dut.clock, 4)
        self.dut.reset.value = 0
        await RisingEdge(self.dut.clock)


def incrementing_payload(length):
    return bytearray(itertools.islice(itertools.cycle(range(256)), length))


@cocotb.test()
async def run_test_frames(dut, payload_lengths=None, idle_inserter=0.0, backpressure_inserter=0.0):
    tb = TB(dut)
    await tb.reset()
    tb.set_idle_generator(idle_inserter)
    tb.set_backpressure_generator(backpressure_inserter)

    test_frames = []
    for k, length in enumerate(payload_lengths):
        test_frame = AxiStreamFrame(incrementing_payload(length), tuser=k + 1)
        test_frames.append(test_frame)
        await tb.source.send(test_frame)

    for test_frame in test_frames:
        rx_frame = await tb.sink.recv()
        assert rx_frame.tdata == test_frame.tdata
        assert rx_frame.tuser == test_frame.tuser

    assert tb.sink.empty()
    await ClockCycles(dut.clock, 8)
    return dut._block.cycle


LENGTHS = [1, 2, 31, 32, 33, 64, 100, 255, 256, 257, 1500, 60]


@pytest.mark.parametrize("block", ["ts_axis_skid", "ts_pkt_fifo"])
@pytest.mark.parametrize("idle, back", [(0.0, 0.0), (0.3, 0.0), (0.0, 0.5), (0.4, 0.4)])
def test_frames_through_a_block(block, idle, back):
    end = cocotb.run(run_test_frames, ts.Block(block, config=CONFIG), payload_lengths=LENGTHS, idle_inserter=idle, backpressure_inserter=back)
    # 12 frames of 2 562 bytes at 32 bytes a beat: at least 86 beats.
    assert end > 86


@cocotb.test()
async def axil_registers(dut):
    cocotb.start_soon(Clock(dut.clock, 5, units="ns").start())
    master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clock, dut.reset)
    dut.reset.value = 1
    await Timer(20, "ns")  # 4 cycles at 5 ns
    dut.reset.value = 0
    await master.write_dword(0x4, 0x12345678)
    assert dut.rw_1.value == 0x12345678
    assert await master.read_dword(0x4) == 0x12345678
    dut.ro_2.value = 0xCAFE
    await RisingEdge(dut.clock)
    n_rw = sum(1 for p in dut._block.ports() if p[0].startswith("rw_") and not p[0].startswith("rw_wr"))
    assert await master.read_dword(4 * (n_rw + 2)) == 0xCAFE
    r = await master.read(0xFFC, 4)
    assert r.resp == 3 and r.data == bytes(4)  # DECERR outside the map
    w = await master.write(0x0, (7).to_bytes(4, "little"))
    assert w.resp == 0 and dut.rw_0.value == 7


def test_axil_master_on_the_register_file():
    cocotb.run(axil_registers, ts.Block("ts_axil_regs", config=CONFIG))


async def _count_edges(dut, n, box):
    for _ in range(n):
        await RisingEdge(dut.clock)
        box.append(dut._block.cycle)


@cocotb.test()
async def concurrent_coroutines(dut):
    """start_soon runs coroutines side by side; awaiting a task joins it."""
    box = []
    t = cocotb.start_soon(_count_edges(dut, 5, box))
    await ClockCycles(dut.clock, 2)
    await ReadOnly()  # after every coroutine woken by this edge has run
    assert len(box) == 2
    await t
    assert box == list(range(box[0], box[0] + 5))


def test_coroutines_run_side_by_side():
    cocotb.run(concurrent_coroutines, ts.Block("ts_axis_skid", config=CONFIG))


@cocotb.test()
async def waits_forever(dut):
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m"), dut.clock, dut.reset)
    await sink.recv()


def test_a_frame_that_never_comes_times_out():
    with pytest.raises(TimeoutError, match="max_cycles"):
        cocotb.run(waits_forever, ts.Block("ts_axis_skid", config=CONFIG), max_cycles=500)


def test_block_errors_name_the_argument():
    with pytest.raises(ValueError, match="not in the catalogue"):
        ts.Block("ts_nope", config=CONFIG)
    b = ts.Block("ts_axis_skid", config=CONFIG)
    with pytest.raises(ValueError, match="no AXI4-Stream interface"):
        b.source("q")
    with pytest.raises(ValueError, match="no port"):
        b.get("nope")
    with pytest.raises(ValueError, match="an output"):
        b.set("m_tvalid", 1)
    with pytest.raises(ValueError, match="does not fit"):
        b.set("s_tkeep", 1 << 32)
    with pytest.raises(ValueError, match="AXI4-Lite"):
        b.axil("s_axil")
    with pytest.raises(AttributeError, match="no port"):
        cocotb.Dut(b).nope


def test_block_without_the_cocotb_layer():
    b = ts.Block("ts_pkt_fifo", config=CONFIG)
    b.reset()
    src, snk = b.source("s"), b.sink("m")
    for i in range(3):
        src.send(bytes(range(i, i + 70)), user=i)
    b.run_until_frames(snk, 3)
    got = snk.recv()
    assert [(d, u) for d, u, _ in got] == [(bytes(range(i, i + 70)), i) for i in range(3)]
    b.run(2)  # the occupancy gauges are registered
    assert b.get("occ_pkts") == 0 and b.get("occ_bytes") == 0 and b.get("drop_pkts") == 0


def test_cocotb_layer_on_the_switch(tmp_path, monkeypatch):
    """The benchmark's cocotb testbench (py/bench/bench_cocotb.py, written
    for cocotb 2 and cocotbext-axi) on the cocotb-style layer and the whole
    switch, as `make bench-python` runs it (its imports switched by
    BENCH_LAYER): the tables loaded by an AxiLiteMaster, every port sending
    to the next through AxiStreamSource/AxiStreamSink on the switch's
    indexed ports (`s_0` for `s_tdata_0`), each frame checked against the
    golden model inside the testbench, one pcap per port written."""
    import importlib
    import json

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "bench"))
    env = {"BENCH_LAYER": "trimswitch", "BENCH_CONFIG": CONFIG, "BENCH_OUT": str(tmp_path), "BENCH_PER_PORT": "10", "BENCH_SEED": "3"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    import bench_cocotb

    bench_cocotb = importlib.reload(bench_cocotb)
    cocotb.run(bench_cocotb.bench, ts.Block("ts_switch", config=CONFIG))
    r = json.loads((tmp_path / "result.json").read_text())
    assert r["side"] == "trimswitch" and r["checked"] == 40 and r["cycles"] > 10 * 100
    assert [len(ts.read_pcap(tmp_path / f"port{d}.pcap")) for d in range(4)] == [10] * 4

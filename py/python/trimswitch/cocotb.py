"""A cocotb-style layer on trimswitch's Rust harness (issue 17; docs/python.md).

Testbenches written for cocotb and cocotbext-axi port by changing their
imports::

    from trimswitch import cocotb
    from trimswitch.cocotb import (Clock, ClockCycles, RisingEdge, Timer,
        AxiStreamBus, AxiStreamFrame, AxiStreamSource, AxiStreamSink,
        AxiLiteBus, AxiLiteMaster)

    @cocotb.test()
    async def run_test(dut):
        cocotb.start_soon(Clock(dut.clock, 5, units="ns").start())
        source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s"), dut.clock, dut.reset)
        sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m"), dut.clock, dut.reset)
        dut.reset.value = 1
        await ClockCycles(dut.clock, 4)
        dut.reset.value = 0
        await source.send(AxiStreamFrame(b"hello world, sixty-four bytes or fewer"))
        rx = await sink.recv()
        assert rx.tdata == b"hello world, sixty-four bytes or fewer"

    cocotb.run(run_test, trimswitch.Block("ts_axis_skid", "configs/netfpga-sume.toml"))

What differs from cocotb: the design is a catalogue block (``trimswitch.Block``)
with one clock, ``clock``, which the Rust testbench drives (``Clock(...).start()``
is accepted and does nothing but set the period ``Timer`` converts with);
the handshakes run in Rust agents, so a coroutine that awaits
``source.wait()``, ``sink.recv()``, ``master.read_dword()`` or
``ClockCycles(clk, n)`` costs one call into Rust per wake-up, not one per
cycle. ``RisingEdge`` (and ``ReadOnly``, ``ReadWrite``, ``Timer``) are the
per-cycle fallback: one wake-up per cycle. ``FallingEdge`` and signal
triggers (``Edge(dut.x)``) do not exist: the clock's low phase is internal to
a cycle.
"""
from __future__ import annotations

import inspect
import math
from collections import deque
from dataclasses import dataclass, field

__all__ = [
    "test", "start_soon", "run", "Dut", "Clock", "ClockCycles", "RisingEdge", "ReadOnly", "ReadWrite", "Timer",
    "Combine", "get_sim_time",
    "AxiStreamBus", "AxiStreamFrame", "AxiStreamSource", "AxiStreamSink", "AxiLiteBus", "AxiLiteMaster",
    "AxiLiteReadResp", "AxiLiteWriteResp",
]

#: Cycles a run may take when a test gives no limit: a test that waits on a
#: frame that never comes fails instead of hanging.
DEFAULT_MAX_CYCLES = 10_000_000


# ---------------------------------------------------------------- triggers
class _Trigger:
    def __await__(self):
        return (yield self)


class ClockCycles(_Trigger):
    """Resume after ``n`` rising edges of the clock."""

    def __init__(self, clock, num_cycles: int, rising: bool = True):
        if num_cycles < 1:
            raise ValueError(f"ClockCycles: num_cycles {num_cycles}, at least 1")
        if not rising:
            raise ValueError("ClockCycles: falling edges are internal to a cycle here (rising=True only)")
        self.n = int(num_cycles)


class RisingEdge(ClockCycles):
    """Resume after the next rising edge (one wake-up per cycle: the
    per-cycle fallback)."""

    def __init__(self, clock):
        super().__init__(clock, 1)


class ReadOnly(_Trigger):
    """Resume in the same cycle: every value has settled already."""

    n = 0


class ReadWrite(ReadOnly):
    pass


class Timer(_Trigger):
    """Resume after ``time`` in ``units`` (ns, us, ps), rounded up to whole
    clock cycles of the period a ``Clock`` was started with."""

    _scale = {"fs": 1e-6, "ps": 1e-3, "ns": 1.0, "us": 1e3, "ms": 1e6, "sec": 1e9}

    def __init__(self, time, units: str = "ns", unit: str | None = None):
        units = unit or units  # cocotb 2 spells it `unit`
        if units not in self._scale:
            raise ValueError(f"Timer: units {units!r}, one of {sorted(self._scale)}")
        self.ns = float(time) * self._scale[units]


class Combine:
    """Resume when every one of ``triggers`` (tasks from ``start_soon``) has
    finished, as cocotb's ``Combine``."""

    def __init__(self, *triggers):
        for t in triggers:
            if not isinstance(t, _Task):
                raise TypeError(f"Combine: tasks from start_soon, not {type(t).__name__}")
        self.triggers = triggers

    def __await__(self):
        for t in self.triggers:
            yield from t.__await__()


class _Cond(_Trigger):
    """Resume when a condition the Rust agents evaluate holds."""

    def __init__(self, kind: str, index: int, count: int = 0):
        self.cond = (kind, index, count)


# ---------------------------------------------------------------- scheduler
class _Task:
    def __init__(self, coro, name: str):
        self.coro, self.name = coro, name
        self.trigger = None  # None: ready
        self.at = None  # cycle to wake at (cycle triggers)
        self.done = False
        self.result = None
        self.waiters: list[_Task] = []

    def __await__(self):
        if not self.done:
            yield _Join(self)
        return self.result


class _Join(_Trigger):
    def __init__(self, task):
        self.task = task


_current: "_Scheduler | None" = None


class _Scheduler:
    def __init__(self, dut: "Dut", max_cycles: int):
        self.dut, self.block = dut, dut._block
        self.tasks: list[_Task] = []
        self.limit = self.block.cycle + max_cycles
        self.max_cycles = max_cycles
        self.period_ns = None

    def spawn(self, coro, name: str = "") -> _Task:
        if not inspect.iscoroutine(coro):
            raise TypeError(f"start_soon: a coroutine, not {type(coro).__name__}")
        t = _Task(coro, name or getattr(coro, "__qualname__", "task"))
        self.tasks.append(t)
        return t

    def _step(self, t: _Task):
        try:
            trig = t.coro.send(None)
        except StopIteration as e:
            t.done, t.result, t.trigger = True, e.value, None
            for w in t.waiters:
                w.trigger = None
            t.waiters.clear()
            return
        now = self.block.cycle
        if isinstance(trig, ClockCycles) or isinstance(trig, ReadOnly):
            t.trigger, t.at = trig, now + trig.n
        elif isinstance(trig, Timer):
            if self.period_ns is None:
                raise RuntimeError(f"{t.name}: Timer needs a clock period: start Clock(dut.clock, period, units) first")
            t.trigger, t.at = trig, now + max(1, math.ceil(trig.ns / self.period_ns - 1e-9))
        elif isinstance(trig, _Cond):
            t.trigger, t.at = trig, None
        elif isinstance(trig, _Join):
            if trig.task.done:
                t.trigger = None
            else:
                t.trigger, t.at = trig, None
                trig.task.waiters.append(t)
        else:
            raise TypeError(f"{t.name}: awaited {trig!r}, not a trigger of trimswitch.cocotb")

    def _ready(self, t: _Task) -> bool:
        if t.done:
            return False
        if t.trigger is None:
            return True
        if t.at is not None:
            return self.block.cycle >= t.at
        if isinstance(t.trigger, _Cond):
            return self._holds(t.trigger.cond)
        return False

    def _holds(self, cond) -> bool:
        return self.block.holds(*cond)

    def run(self, main: _Task):
        while not main.done:
            ran = True
            while ran:
                ran = False
                for t in list(self.tasks):
                    if self._ready(t):
                        self._step(t)
                        ran = True
                self.tasks = [t for t in self.tasks if not t.done]
            if main.done:
                break
            now = self.block.cycle
            timers = [t.at for t in self.tasks if t.at is not None]
            conds = [t.trigger.cond for t in self.tasks if isinstance(t.trigger, _Cond)]
            if not timers and not conds:
                waiting = [t.name for t in self.tasks]
                raise RuntimeError(f"deadlock: {waiting} wait on one another and nothing else")
            until = min(timers) if timers else self.limit
            if now >= self.limit:
                raise TimeoutError(f"the test ran its {self.max_cycles} cycles (max_cycles) and still waits: {[t.name for t in self.tasks]}")
            self.block.run_until_any(conds, min(until, self.limit) - now)
        return main.result


def get_sim_time(unit: str = "ns", units: str | None = None) -> float:
    """The simulated time: the cycles run times the period a ``Clock`` was
    started with, in ``unit`` (cocotb's ``cocotb.utils.get_sim_time``)."""
    unit = units or unit
    if _current is None or _current.period_ns is None:
        raise RuntimeError("get_sim_time: no test with a started Clock is running")
    if unit not in Timer._scale:
        raise ValueError(f"get_sim_time: unit {unit!r}, one of {sorted(Timer._scale)}")
    return _current.block.cycle * _current.period_ns / Timer._scale[unit]


def start_soon(coro) -> _Task:
    """Runs ``coro`` beside the test (cocotb.start_soon)."""
    if _current is None:
        raise RuntimeError("start_soon: no test is running")
    return _current.spawn(coro)


start = start_soon


def run(test_fn, block, max_cycles: int = DEFAULT_MAX_CYCLES, **kwargs):
    """Runs the coroutine function ``test_fn(dut, **kwargs)`` on ``block`` (a
    ``trimswitch.Block``) to its end; returns its result. Raises what the
    test raises, ``TimeoutError`` after ``max_cycles`` cycles."""
    global _current
    dut = block if isinstance(block, Dut) else Dut(block)
    prev, _current = _current, _Scheduler(dut, max_cycles)
    try:
        return _current.run(_current.spawn(test_fn(dut, **kwargs), getattr(test_fn, "__name__", "test")))
    finally:
        for t in _current.tasks:
            t.coro.close()
        _current = prev


def test(*args, **kwargs):
    """``@test()`` (or ``@test``): marks a coroutine function as a test, as
    ``cocotb.test``; ``run`` runs it (pytest calls ``run`` with a block)."""

    def mark(fn):
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"@test: {fn.__name__} is not an async function")
        fn._trimswitch_test = kwargs
        return fn

    if len(args) == 1 and callable(args[0]) and not kwargs:
        return mark(args[0])
    return mark


# ---------------------------------------------------------------- the design
class _Handle:
    """``dut.<port>``: ``.value`` reads the port (an int), assigning it sets an input."""

    def __init__(self, block, name: str):
        self._block, self._name = block, name

    @property
    def value(self) -> int:
        return self._block.get(self._name)

    @value.setter
    def value(self, v) -> None:
        self._block.set(self._name, int(v))

    def setimmediatevalue(self, v) -> None:
        self.value = v

    def __int__(self):
        return self.value

    def __repr__(self):
        return f"<{self._name}>"


class Dut:
    """A ``trimswitch.Block`` seen as cocotb's ``dut``: its ports as
    attributes (``dut.clock``, ``dut.reset``, ``dut.s_tdata``)."""

    def __init__(self, block):
        block = getattr(block, "_n", block)  # a trimswitch.Block: its native block
        object.__setattr__(self, "_block", block)
        object.__setattr__(self, "_ports", {p[0]: p for p in block.ports()})

    def __getattr__(self, name):
        if name in self._ports:
            return _Handle(self._block, name)
        raise AttributeError(f"{self._block!r} has no port {name!r}; its ports are {sorted(self._ports)}")

    def __setattr__(self, name, value):
        raise AttributeError(f"dut.{name} = ...: set a port's value with dut.{name}.value = ...")


class Clock:
    """cocotb's ``Clock``: the Rust testbench drives ``clock``; ``start()``
    records the period (for ``Timer``) and returns at once."""

    def __init__(self, signal, period, units: str = "step", unit: str | None = None):
        self.period_ns = float(period) * Timer._scale.get(unit or units, 1.0)

    def start(self, start_high: bool = True):
        """The period counts from this call (``Timer`` right after
        ``start_soon(clock.start())`` converts with it); the coroutine
        returned does nothing."""
        if _current is not None:
            _current.period_ns = self.period_ns
        return _nothing()


async def _nothing():
    return None


# ---------------------------------------------------------------- AXI4-Stream
@dataclass
class AxiStreamFrame:
    """A frame: ``tdata`` bytes and a ``tuser`` constant over the frame."""

    tdata: bytes = b""
    tkeep: object = None
    tid: object = None
    tdest: object = None
    tuser: int = 0
    sim_time_start: int | None = None
    sim_time_end: int | None = None

    def __post_init__(self):
        self.tdata = bytes(self.tdata)

    def __bytes__(self):
        return self.tdata

    def __len__(self):
        return len(self.tdata)


@dataclass
class AxiStreamBus:
    """The ports of one interface, by prefix (``from_prefix(dut, "s")``:
    ``s_tdata``, ``s_tvalid``, ...)."""

    dut: Dut
    prefix: str

    @classmethod
    def from_prefix(cls, dut, prefix: str) -> "AxiStreamBus":
        return cls(dut, prefix)


def _dut(bus_or_dut):
    return bus_or_dut.dut if isinstance(bus_or_dut, (AxiStreamBus, AxiLiteBus)) else bus_or_dut


class AxiStreamSource:
    """Sends frames into an input interface (cocotbext-axi's ``AxiStreamSource``)."""

    def __init__(self, bus: AxiStreamBus, clock=None, reset=None, reset_active_level: bool = True, **kwargs):
        self._b = bus.dut._block
        self._i = self._b.add_axis_source(bus.prefix)
        self._sent = 0

    async def send(self, frame) -> None:
        self.send_nowait(frame)

    def send_nowait(self, frame) -> None:
        if not isinstance(frame, AxiStreamFrame):
            frame = AxiStreamFrame(bytes(frame))
        self._b.axis_send(self._i, frame.tdata, int(frame.tuser or 0))
        self._sent += 1

    async def wait(self) -> None:
        """Until every queued frame has gone."""
        await _Cond("source_idle", self._i)

    def idle(self) -> bool:
        return self._b.holds("source_idle", self._i, 0)

    def empty(self) -> bool:
        return self.idle()

    def set_pause_generator(self, generator=None) -> None:
        """Only a constant probability is supported: use ``set_idle_prob``."""
        raise NotImplementedError("pause generators run per cycle in Python; use set_idle_prob(p): the Rust source's idle cycles")

    def set_idle_prob(self, p: float) -> None:
        self._b.axis_source_idle_prob(self._i, float(p))


class AxiStreamSink:
    """Receives frames from an output interface (cocotbext-axi's ``AxiStreamSink``)."""

    def __init__(self, bus: AxiStreamBus, clock=None, reset=None, reset_active_level: bool = True, **kwargs):
        self._b = bus.dut._block
        self._i = self._b.add_axis_sink(bus.prefix)
        self._q: deque[AxiStreamFrame] = deque()

    def _pull(self):
        for data, user, cycle in self._b.axis_recv(self._i):
            self._q.append(AxiStreamFrame(data, tuser=user, sim_time_end=cycle))

    async def recv(self) -> AxiStreamFrame:
        self._pull()
        if not self._q:
            await _Cond("sink_frames", self._i, 1)
            self._pull()
        return self._q.popleft()

    def recv_nowait(self) -> AxiStreamFrame:
        self._pull()
        if not self._q:
            raise IndexError("AxiStreamSink.recv_nowait: no frame")
        return self._q.popleft()

    def empty(self) -> bool:
        self._pull()
        return not self._q

    def count(self) -> int:
        self._pull()
        return len(self._q)

    async def wait(self) -> None:
        self._pull()
        if not self._q:
            await _Cond("sink_frames", self._i, 1)

    def set_pause_generator(self, generator=None) -> None:
        raise NotImplementedError("pause generators run per cycle in Python; use set_ready_prob(p): the Rust sink's back-pressure")

    def set_ready_prob(self, p: float) -> None:
        self._b.axis_sink_ready_prob(self._i, float(p))


# ---------------------------------------------------------------- AXI4-Lite
@dataclass
class AxiLiteBus:
    dut: Dut
    prefix: str

    @classmethod
    def from_prefix(cls, dut, prefix: str) -> "AxiLiteBus":
        return cls(dut, prefix)


@dataclass
class AxiLiteWriteResp:
    address: int
    length: int
    resp: int


@dataclass
class AxiLiteReadResp:
    address: int
    data: bytes
    resp: int


@dataclass
class _Ops:
    issued: int = 0
    done: list = field(default_factory=list)


class AxiLiteMaster:
    """AXI4-Lite master (cocotbext-axi's ``AxiLiteMaster``): 32-bit words,
    one transaction at a time in issue order."""

    def __init__(self, bus: AxiLiteBus, clock=None, reset=None, reset_active_level: bool = True, **kwargs):
        self._b = bus.dut._block
        self._i = self._b.add_axil_master(bus.prefix)
        self._ops = _Ops()

    def _pull(self):
        self._ops.done.extend(self._b.axil_results(self._i))

    async def _complete(self, k: int):
        self._pull()
        while len(self._ops.done) <= k:
            await _Cond("master_results", self._i, k + 1 - len(self._ops.done))
            self._pull()
        return self._ops.done[k]

    async def write_dword(self, address: int, data: int) -> AxiLiteWriteResp:
        if address % 4:
            raise ValueError(f"write_dword: address {address:#x} is not 4-byte aligned")
        k = self._ops.issued
        self._b.axil_write(self._i, address, int(data) & 0xFFFFFFFF)
        self._ops.issued += 1
        _, addr, resp, _ = await self._complete(k)
        return AxiLiteWriteResp(addr, 4, resp)

    async def read_dword(self, address: int) -> int:
        r = await self.read(address, 4)
        return int.from_bytes(r.data, "little")

    async def write(self, address: int, data: bytes) -> AxiLiteWriteResp:
        """Writes ``data`` (whole aligned 32-bit words)."""
        if address % 4 or len(data) % 4:
            raise ValueError("write: whole aligned 32-bit words only")
        resp = 0
        for o in range(0, len(data), 4):
            r = await self.write_dword(address + o, int.from_bytes(data[o:o + 4], "little"))
            resp = resp or r.resp
        return AxiLiteWriteResp(address, len(data), resp)

    async def read(self, address: int, length: int) -> AxiLiteReadResp:
        """Reads ``length`` bytes (whole aligned 32-bit words)."""
        if address % 4 or length % 4:
            raise ValueError("read: whole aligned 32-bit words only")
        out, resp = bytearray(), 0
        for o in range(0, length, 4):
            k = self._ops.issued
            self._b.axil_read(self._i, address + o)
            self._ops.issued += 1
            _, _, r, data = await self._complete(k)
            out += int(data).to_bytes(4, "little")
            resp = resp or r
        return AxiLiteReadResp(address, bytes(out), resp)

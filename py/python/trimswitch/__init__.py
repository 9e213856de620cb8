"""trimswitch from Python (issue 17; docs/python.md).

The switch runs in Rust (the Verilated ``ts_switch`` and its MAC and host
agents); Python calls in per transaction -- a frame queued, a run of
cycles, a register access -- and the GIL is released while the model runs.

    import trimswitch as ts
    sw = ts.Switch("configs/netfpga-sume.toml")
    sw.send(0, bytes(Ether(dst=...)/IP(dst="10.0.0.2")/UDP()/payload))
    sw.run_until_idle()
    for frame, cycle in sw.recv(1):
        print(cycle, Ether(frame).summary())

Bad input raises: ``IndexError`` for a port that does not exist,
``ValueError`` for a bad configuration, register name or frame (the message
names the argument and the reason), ``TimeoutError`` for a run that does not
go idle, ``OSError`` for files.
"""
from os import PathLike as _PathLike

from . import _native, cocotb, model
from ._native import read_pcap, write_pcap

__all__ = ["Switch", "Block", "Registers", "model", "sim", "read_pcap", "write_pcap"]


def sim(config, scenario, engine: str = "rtl", set=None) -> dict:
    """Runs a scenario (a name of ``sim/scenarios/`` or a TOML path) in
    every one of its modes, as ``trimswitch sim`` does, and returns its
    report as a dict: ``metrics.json`` for trimming scenarios, ``pl2.json``
    for PL2 hosts, ``protego.json`` for a back-to-back link.
    ``engine="model"``: the event-driven model (``trimswitch sim
    --model``). A bad scenario or configuration raises ``ValueError``
    naming the file, the key and the reason."""
    return _native.sim(str(config), str(scenario), engine, set)


class Registers:
    """The switch's registers by their map names (``trimswitch regs``):
    ``window.NAME`` or ``window.NAME[i]`` for an element of an array, e.g.
    ``tm0.MODE``, ``ingress0.RX_PKTS[2]``. Each access is an AXI4-Lite
    transaction of the host agent; traffic keeps running meanwhile."""

    def __init__(self, native):
        self._n = native

    def read(self, name: str) -> int:
        return self._n.read_reg(name)

    def write(self, name: str, value: int) -> None:
        self._n.write_reg(name, value)

    def names(self) -> list[str]:
        """Every register and array element of the map."""
        return self._n.reg_names()

    __getitem__ = read
    __setitem__ = write


class _NoRegisters:
    """``Switch(engine="model").regs``: the models have no register map."""

    def _refuse(self, *_):
        raise NotImplementedError(
            "engine \"model\" has no register map: the models run at the configuration's reset values "
            "(change them with set={...}); registers are the RTL's (engine=\"rtl\")")

    read = write = names = __getitem__ = __setitem__ = _refuse


class Switch:
    """The whole switch of a configuration.

    ``engine="rtl"``: the Verilated ``ts_switch`` with a MAC source and sink
    per port and a host on its AXI4-Lite port. The model is built on first
    use of a configuration and cached under ``build/``; the switch comes out
    of reset with its ingress tables loaded from the configuration.

    ``engine="model"``: the golden models, frame by frame (ingress, the
    ideal traffic manager with exact occupancy, strict priority egress),
    no Verilator, 16 times faster (docs/python.md): the models' frames and
    decisions on a model of the RTL's timing (MACs paced as the agents, the
    pipelines' input arbiters, a fixed ``latency`` from the arbiter to
    admission whose default gives the RTL's unloaded latency). Uncongested traffic leaves
    as on the RTL; under congestion the fates follow the model's
    interleaving (a 3:1 incast: 201 trims where the RTL has 200).
    Counters by the models' names; no registers (``regs`` raises
    ``NotImplementedError``); meter mode and the DRR egress scheduler
    refused (``ValueError``).

    ``config``: a TOML file of ``configs/``; ``set``: overrides of its keys,
    ``{"datapath.data_width": 512}``; ``seed``: the RTL agents' random seed;
    ``line_rate``: frames are sent and taken at the port's line rate, as
    real MACs (else as fast as the bus allows)."""

    def __init__(self, config, engine: str = "rtl", set: dict | None = None, seed: int = 1, line_rate: bool = True,
                 latency: int | None = None):
        if isinstance(config, _PathLike):
            config = str(config)
        if not isinstance(config, str):
            raise TypeError(f"config: a path, not {type(config).__name__}")
        if engine == "model":
            self._n = _native.ModelSwitch(config, set, line_rate, latency)
            self.regs = _NoRegisters()
            return
        if latency is not None:
            raise ValueError("latency: a parameter of engine=\"model\"; the RTL has its own")
        self._n = _native.Switch(config, engine, set, seed, line_rate)
        self.regs = Registers(self._n)

    @property
    def ports(self) -> int:
        return self._n.ports

    @property
    def cycle(self) -> int:
        """Clock cycles since the model was made."""
        return self._n.cycle

    @property
    def max_frame(self) -> int:
        """Largest frame the switch takes, FCS included."""
        return self._n.max_frame

    def send(self, port: int, frame: bytes, at_cycle: int | None = None, fcs: str = "append", oversize: bool = False) -> None:
        """Queues ``frame`` on ``port``. ``fcs``: ``"append"`` (scapy frames
        have none), ``"none"`` (the bytes end in their FCS), ``"bad"`` (a
        wrong FCS: the switch drops and counts it). ``at_cycle``: not before
        that cycle. Frames above ``max_frame`` raise unless ``oversize``."""
        self._n.send(port, bytes(frame), at_cycle, fcs, oversize)

    def run(self, cycles: int) -> None:
        """Runs ``cycles`` clock cycles."""
        self._n.run(cycles)

    def run_until_idle(self, max_cycles: int = 1_000_000) -> int:
        """Runs until every queued frame went in and nothing left the switch
        for 256 cycles; returns the cycles run."""
        return self._n.run_until_idle(max_cycles)

    def recv(self, port: int) -> list[tuple[bytes, int]]:
        """Frames that left ``port`` since the last call: ``(bytes, cycle of
        the first beat)``; with ``ingress.strip_fcs`` (the configurations'
        default) without FCS, which the transmitting MAC appends."""
        return self._n.recv(port)

    def counters(self) -> dict[str, int]:
        """RTL: every counter and gauge of the register map, read through
        the host (the names of ``counters.json``). Model: the models'
        counters (``tm.<name>``, ``pipeN.<name>``, ``portP.<name>``)."""
        return self._n.counters()


class _Source:
    def __init__(self, n, i):
        self._n, self._i = n, i

    def send(self, data: bytes, user: int = 0) -> None:
        """Queues a frame; ``user`` is its ``tuser``."""
        self._n.axis_send(self._i, bytes(data), user)

    def idle(self) -> bool:
        return self._n.holds("source_idle", self._i, 0)

    def idle_prob(self, p: float) -> None:
        """Probability of an idle cycle before each beat (0 by default)."""
        self._n.axis_source_idle_prob(self._i, p)


class _Sink:
    def __init__(self, n, i):
        self._n, self._i = n, i

    def recv(self) -> list[tuple[bytes, int, int]]:
        """Frames received since the last call: ``(bytes, tuser, cycle of the last beat)``."""
        return self._n.axis_recv(self._i)

    def pending(self) -> int:
        return self._n.axis_pending(self._i)

    def ready_prob(self, p: float) -> None:
        """Probability of ``tready`` per cycle (1 by default)."""
        self._n.axis_sink_ready_prob(self._i, p)


class _Master:
    def __init__(self, n, i, max_cycles):
        self._n, self._i, self._max = n, i, max_cycles

    def _one(self):
        ran = self._n.run_until_any([("master_results", self._i, 1)], self._max)
        got = self._n.axil_results(self._i)
        if not got:
            raise TimeoutError(f"AXI4-Lite transaction not answered within {ran} cycles")
        return got[0]

    def read(self, addr: int) -> int:
        """Reads a 32-bit register (runs the block until the answer; the
        other agents keep running). ``ValueError`` on an error response."""
        self._n.axil_read(self._i, addr)
        _, _, resp, data = self._one()
        if resp:
            raise ValueError(f"read {addr:#x}: response {resp}")
        return data

    def write(self, addr: int, value: int) -> None:
        self._n.axil_write(self._i, addr, value)
        _, _, resp, _ = self._one()
        if resp:
            raise ValueError(f"write {addr:#x}: response {resp}")


class Block:
    """One block of the catalogue (``trimswitch emit`` lists them) in
    Verilator, with agents attached by port prefix::

        b = ts.Block("ts_axis_skid", config="configs/netfpga-sume.toml")
        b.reset()
        src, snk = b.source("s"), b.sink("m")     # s_tdata..., m_tdata...
        src.send(b"x" * 100, user=5)
        b.run_until_frames(snk, 1)
        [(data, user, cycle)] = snk.recv()

    ``trimswitch.cocotb`` runs cocotb-style coroutines on it."""

    def __init__(self, name: str, config, set: dict | None = None, seed: int = 1):
        if isinstance(config, _PathLike):
            config = str(config)
        self._n = _native.Block(name, config, set, seed)
        self.name = name

    def ports(self) -> list[tuple[str, str, int]]:
        """``(name, "in" | "out", bits)`` of every port."""
        return self._n.ports()

    @property
    def cycle(self) -> int:
        return self._n.cycle

    def reset(self, cycles: int = 4) -> None:
        self._n.reset(cycles)

    def run(self, cycles: int) -> None:
        self._n.run(cycles)

    def get(self, port: str) -> int:
        return self._n.get(port)

    def set(self, port: str, value: int) -> None:
        self._n.set(port, value)

    def source(self, prefix: str) -> _Source:
        return _Source(self._n, self._n.add_axis_source(prefix))

    def sink(self, prefix: str) -> _Sink:
        return _Sink(self._n, self._n.add_axis_sink(prefix))

    def axil(self, prefix: str = "s_axil", max_cycles: int = 10_000) -> _Master:
        return _Master(self._n, self._n.add_axil_master(prefix), max_cycles)

    def run_until_frames(self, sink: _Sink, n: int, max_cycles: int = 1_000_000) -> int:
        """Runs until ``sink`` holds ``n`` frames; returns the cycles run."""
        ran = self._n.run_until_any([("sink_frames", sink._i, n)], max_cycles)
        if sink.pending() < n:
            raise TimeoutError(f"{sink.pending()} of {n} frames after {ran} cycles")
        return ran

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

from . import _native, model
from ._native import read_pcap, write_pcap

__all__ = ["Switch", "Registers", "model", "read_pcap", "write_pcap"]


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


class Switch:
    """The whole switch of a configuration in Verilator (``engine="rtl"``).

    ``config``: a TOML file of ``configs/``; ``set``: overrides of its keys,
    ``{"datapath.data_width": 512}``; ``seed``: the agents' random seed;
    ``line_rate``: the MAC agents send and take frames at the port's line
    rate, as real MACs (else as fast as the bus allows). The model is built
    on first use of a configuration and cached under ``build/``; the switch
    comes out of reset with its ingress tables loaded from the
    configuration."""

    def __init__(self, config, engine: str = "rtl", set: dict | None = None, seed: int = 1, line_rate: bool = True):
        if isinstance(config, _PathLike):
            config = str(config)
        if not isinstance(config, str):
            raise TypeError(f"config: a path, not {type(config).__name__}")
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
        the first beat)``, without FCS (the MAC appends it)."""
        return self._n.recv(port)

    def counters(self) -> dict[str, int]:
        """Every counter and gauge of the register map, read through the
        host (the names of ``counters.json``)."""
        return self._n.counters()

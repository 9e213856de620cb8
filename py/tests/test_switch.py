"""The switch driven from Python with scapy frames (issue 17), checked
against the golden model from Python. The default configuration
(netfpga-sume: 4 ports, 256 bits), whose Verilated model the Rust switch
tests share (built once, cached under build/)."""
import random
from pathlib import Path

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import trimswitch as ts

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "configs" / "netfpga-sume.toml")
ROUTER = "02:00:00:00:00:fe"


def host_mac(h: int) -> str:
    return f"02:00:00:00:00:{h:02x}"


def routed(src: int, dst: int, size: int, seq: int, tos: int = 0) -> bytes:
    """An IPv4/UDP frame from host `src` to host `dst` through the router,
    `size` bytes without FCS."""
    hdr = Ether(dst=ROUTER, src=host_mac(src)) / IP(src=f"10.0.{src}.1", dst=f"10.0.{dst}.1", tos=tos) / UDP(sport=1000 + seq, dport=2000)
    return bytes(hdr / Raw(bytes((seq + i) % 256 for i in range(size - len(hdr)))))


def with_fcs(frame: bytes) -> bytes:
    import zlib

    return frame + zlib.crc32(frame).to_bytes(4, "little")


@pytest.fixture(scope="module")
def sw():
    return ts.Switch(CONFIG)


def drain(sw):
    return {p: sw.recv(p) for p in range(sw.ports)}


def test_uncongested_permutation_matches_the_golden_model(sw):
    """Each port sends 12 frames of random size to the next port: every frame
    leaves where the model says, with the model's bytes, in order."""
    rng = random.Random(5)
    model = ts.model.Ingress(CONFIG)
    want = {p: [] for p in range(sw.ports)}
    for p in range(sw.ports):
        for i in range(12):
            f = routed(p, (p + 1) % sw.ports, rng.choice([60, 64, 200, 1000, 1500]), i)
            out = model.process(p, with_fcs(f))
            assert out is not None, "the model routes it"
            want[out[0]].append(out[1])
            sw.send(p, f)
    sw.run_until_idle()
    got = drain(sw)
    for p in range(sw.ports):
        assert [f for f, _ in got[p]] == want[p], f"port {p}"
        cycles = [c for _, c in got[p]]
        assert cycles == sorted(cycles) and all(c > 0 for c in cycles)
    # Routed: the destination MAC is the next hop's, the source the router's.
    first = Ether(got[1][0][0])
    assert (first.dst, first.src) == ("02:00:00:00:01:01", ROUTER)


def test_bad_frames_are_dropped_and_counted(sw):
    """A bad FCS and a runt: nothing leaves, each counted by its reason."""
    before = sw.counters()
    sw.send(2, routed(2, 3, 100, 1), fcs="bad")
    sw.send(2, bytes(Ether(dst=ROUTER, src=host_mac(2)) / Raw(b"x" * 20)))  # 38 B + FCS
    sw.run_until_idle()
    assert all(not v for v in drain(sw).values())
    after = sw.counters()
    assert after["ingress0.RX_DROP_FCS[2]"] - before["ingress0.RX_DROP_FCS[2]"] == 1
    assert after["ingress0.RX_DROP_RUNT[2]"] - before["ingress0.RX_DROP_RUNT[2]"] == 1


def test_incast_trims_instead_of_dropping(sw):
    """Three ports send trimmable (DSCP 10) 1500-byte frames to port 0 at
    once: the port's queue fills, later frames are trimmed to their headers
    (64 bytes, DSCP 12) instead of being dropped, and the trim counter says
    how many."""
    before = sw.counters()
    n = 20
    for src in (1, 2, 3):
        for i in range(n):
            sw.send(src, routed(src, 0, 1500, i, tos=10 << 2))
    sw.run_until_idle()
    out = [Ether(f) for f, _ in sw.recv(0)]
    assert len(out) == 3 * n, "every frame leaves, whole or trimmed"
    trimmed = [f for f in out if len(bytes(f)) < 1500]
    assert trimmed, "the incast trims"
    for f in trimmed:
        assert len(bytes(f)) == 64 and f[IP].tos >> 2 == 12, f.summary()
    after = sw.counters()
    assert after["tm0.TRIM_PACKETS"] - before["tm0.TRIM_PACKETS"] == len(trimmed)


def test_registers_by_name(sw):
    old = sw.regs.read("tm0.DSCP_TRIMMED")
    assert old == 12
    sw.regs.write("tm0.DSCP_TRIMMED", 13)
    assert sw.regs["tm0.DSCP_TRIMMED"] == 13
    sw.regs["tm0.DSCP_TRIMMED"] = old
    assert "ingress0.RX_PKTS[3]" in sw.regs.names()
    assert sw.cycle > 0


def test_pcap_round_trip(tmp_path):
    frames = [(1000 * i, routed(0, 1, 64 + i, i)) for i in range(5)]
    path = tmp_path / "x.pcap"
    ts.write_pcap(path, frames)
    assert ts.read_pcap(path) == frames
    phv = ts.model.parse(with_fcs(frames[0][1]))
    assert phv["ipv4_dst"] == 0x0A000101 and phv["dport"] == 2000 and phv["malformed"] == 0


@pytest.mark.parametrize(
    "call, kind, words",
    [
        (lambda sw: sw.send(7, b"x" * 60), IndexError, ["port 7", "0..4"]),
        (lambda sw: sw.recv(-1), IndexError, ["port -1"]),
        (lambda sw: sw.send(0, b"x" * 9100), ValueError, ["max_frame", "9018"]),
        (lambda sw: sw.send(0, b"", fcs="none"), ValueError, ["empty"]),
        (lambda sw: sw.send(0, b"x" * 60, fcs="maybe"), ValueError, ["fcs", "append"]),
        (lambda sw: sw.regs.read("tm0.NOPE"), ValueError, ["NOPE", "TRIM_PACKETS"]),
        (lambda sw: sw.regs.read("nowhere.CTRL"), ValueError, ["nowhere", "ingress0"]),
        (lambda sw: sw.regs.read("ingress0.RX_PKTS"), ValueError, ["array of 4"]),
        (lambda sw: sw.regs.read("ingress0.RX_PKTS[4]"), ValueError, ["element 4"]),
        (lambda sw: sw.regs.write("tm0.MODE[0]", 1), ValueError, ["read-only"]),
        (lambda sw: sw.regs.write("tm0.DSCP_TRIMMED", 1 << 32), ValueError, ["32 bits"]),
        (lambda sw: sw.run_until_idle(max_cycles=0) if not sw.send(0, routed(0, 1, 64, 0)) else None, TimeoutError, ["not idle"]),
    ],
)
def test_bad_input_raises_naming_the_argument(sw, call, kind, words):
    with pytest.raises(kind) as e:
        call(sw)
    for w in words:
        assert w in str(e.value), str(e.value)
    sw.run_until_idle()
    drain(sw)


def test_bad_configuration_raises():
    with pytest.raises(ValueError, match="no-such.toml"):
        ts.Switch(str(ROOT / "configs" / "no-such.toml"))
    with pytest.raises(ValueError, match="data_width"):
        ts.Switch(CONFIG, set={"datapath.data_width": 100})
    with pytest.raises(ValueError, match="engines"):
        ts.Switch(CONFIG, engine="spice")
    with pytest.raises(TypeError):
        ts.Switch(42)

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


@pytest.fixture(scope="module", params=["rtl", "model"])
def any_sw(request, sw):
    """The switch on either engine: the Verilated one (the module's) or the
    golden models (`engine="model"`)."""
    return sw if request.param == "rtl" else ts.Switch(CONFIG, engine="model")


def counter(sw, rtl: str, model: str) -> int:
    """A counter by its register map name (RTL) or its model name."""
    return sw.counters()[model if isinstance(sw._n, ts._native.ModelSwitch) else rtl]


def drain(sw):
    return {p: sw.recv(p) for p in range(sw.ports)}


def test_uncongested_permutation_matches_the_golden_model(any_sw):
    """Each port sends 12 frames of random size to the next port: every frame
    leaves where the model says, with the model's bytes, in order."""
    sw = any_sw
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


def test_bad_frames_are_dropped_and_counted(any_sw):
    """A bad FCS and a runt: nothing leaves, each counted by its reason."""
    sw = any_sw
    names = [("ingress0.RX_DROP_FCS[2]", "port2.rx_drop_fcs"), ("ingress0.RX_DROP_RUNT[2]", "port2.rx_drop_runt")]
    before = [counter(sw, *n) for n in names]
    sw.send(2, routed(2, 3, 100, 1), fcs="bad")
    sw.send(2, bytes(Ether(dst=ROUTER, src=host_mac(2)) / Raw(b"x" * 20)))  # 38 B + FCS
    sw.run_until_idle()
    assert all(not v for v in drain(sw).values())
    assert [counter(sw, *n) - b for n, b in zip(names, before)] == [1, 1]


def test_incast_trims_instead_of_dropping(any_sw):
    """Three ports send trimmable (DSCP 10) 1500-byte frames to port 0 at
    once: the port's queue fills, later frames are trimmed to their headers
    (64 bytes, DSCP 12) instead of being dropped, and the trim counter says
    how many. Every frame that leaves is the golden model's: either the
    frame whole (`model.process`) or trimmed (`model.trim`), each input
    exactly once."""
    sw = any_sw
    model = ts.model.Ingress(CONFIG)
    name = ("tm0.TRIM_PACKETS", "tm.trim_packets")
    before = counter(sw, *name)
    n = 20
    whole, cut = {}, {}
    for src in (1, 2, 3):
        for i in range(n):
            f = routed(src, 0, 1500, i, tos=10 << 2)
            w, t = model.process(src, with_fcs(f)), model.trim(src, with_fcs(f))
            assert w[0] == 0 and t[0] == 0 and len(t[1]) == 64
            whole[w[1]] = cut[t[1]] = (src, i)
            sw.send(src, f)
    sw.run_until_idle()
    out = [f for f, _ in sw.recv(0)]
    assert len(out) == 3 * n, "every frame leaves, whole or trimmed"
    seen = [whole.get(f) or cut.get(f) for f in out]
    assert None not in seen, "a frame the model does not produce"
    assert sorted(seen) == sorted(whole.values()), "each input once"
    trimmed = [Ether(f) for f in out if f in cut]
    assert trimmed and len(trimmed) < 3 * n, "the incast trims some, not all"
    for f in trimmed:
        assert f[IP].tos >> 2 == 12 and f[IP].len == 50 and f[UDP].len == 30, f.summary()
    assert counter(sw, *name) - before == len(trimmed)


def pl2_rsv(port: int, dst: int, demand: int, cookie: int) -> bytes:
    """A PL2 RSV (EtherType 0x88B5, docs/pl2.md) from the host behind `port`
    to the switch: `demand` slots towards port `dst`."""
    msg = bytes([1, demand, port, dst]) + bytes(8) + cookie.to_bytes(4, "big")
    return bytes(Ether(dst=ROUTER, src=host_mac(port), type=0x88B5) / Raw(msg + bytes(46 - len(msg))))


def test_pl2_rsv_comes_back_as_its_grt(any_sw):
    """PL2 switched on (the RTL through its register window, the model by
    configuration): an RSV from port 1 for 3 slots towards port 0 comes back
    out of port 1 as the golden model's GRT (kind 2, the router's source MAC,
    the cookie kept), and both reservations grow by the demand."""
    rtl = not isinstance(any_sw._n, ts._native.ModelSwitch)
    sw = any_sw if rtl else ts.Switch(CONFIG, engine="model", set={"pl2.enable": True})
    if rtl:
        sw.regs.write("pl2.CTRL", 1)
    try:
        f = pl2_rsv(1, 0, 3, 0xC0FFEE)
        want = ts.model.Ingress(CONFIG, set={"pl2.enable": True}).process(1, with_fcs(f))
        assert want is not None and want[0] == 1
        sw.send(1, f)
        sw.run_until_idle()
        got = drain(sw)
        assert [g for g, _ in got[1]] == [want[1]] and not any(got[p] for p in (0, 2, 3)), got
        grt = Ether(got[1][0][0])
        assert grt.type == 0x88B5 and (grt.dst, grt.src) == (host_mac(1), ROUTER)
        msg = bytes(grt.payload)
        assert (msg[0], msg[1], msg[12:16]) == (2, 3, (0xC0FFEE).to_bytes(4, "big"))
        if rtl:
            assert (sw.regs["pl2.IN_RES[1]"], sw.regs["pl2.OUT_RES[0]"], sw.regs["pl2.RSV_OK"]) == (3, 3, 1)
    finally:
        if rtl:
            sw.regs.write("pl2.CTRL", 0)
            sw.regs.write("pl2.IN_RES[1]", 0)
            sw.regs.write("pl2.OUT_RES[0]", 0)


def test_trim_model_cuts_headers_and_returns_to_sender():
    """`ts.model.trim` on its own: the trim length of the configuration
    (64 B for IPv4), the return-to-sender variant (addresses swapped, out of
    the ingress port), and `None` where the switch would not trim."""
    f = with_fcs(routed(2, 1, 1000, 7, tos=10 << 2))
    port, cut = ts.model.trim(CONFIG, 2, f)
    e = Ether(cut)
    assert port == 1 and len(cut) == 64 and e[IP].tos >> 2 == 12 and e[UDP].sport == 1007
    port, back = ts.model.trim(CONFIG, 2, f, rts=True)
    e = Ether(back)
    assert port == 2 and (e[IP].src, e[IP].dst) == ("10.0.1.1", "10.0.2.1")
    assert ts.model.trim(CONFIG, 2, f[:-1] + bytes([f[-1] ^ 1])) is None, "bad FCS: dropped at ingress"
    with pytest.raises(IndexError, match="port 9"):
        ts.model.trim(CONFIG, 9, f)


def test_sim_runs_a_scenario_and_returns_its_report():
    """`ts.sim` on the model engine: the `incast` scenario's report (3:1 at line rate) as
    `trimswitch sim --model` writes it, one run per mode, packets
    conserved; a bad engine or scenario raises naming it."""
    r = ts.sim(CONFIG, "incast", engine="model")
    assert r["engine"] == "model" and r["scenario"]["name"] == "incast"
    assert [m["mode"] for m in r["runs"]] == ["ideal", "meter-no-notify", "meter"]
    for m in r["runs"]:
        c = m["conservation"]
        assert c["ok"] and c["sent"] == c["whole"] + c["trimmed"] + c["returned"] + c["dropped"] > 0, m["mode"]
        assert c["trimmed"] > 0, f"{m['mode']}: a 3:1 incast at line rate trims"
    with pytest.raises(ValueError, match="engine"):
        ts.sim(CONFIG, "incast", engine="spice")
    with pytest.raises(ValueError, match="no_such_scenario"):
        ts.sim(CONFIG, "no_such_scenario", engine="model")


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


def test_model_engine_keeps_the_rtl_latency_and_incast():
    """`engine="model"` against the RTL: an unloaded 64-byte frame takes the
    same cycles port to port, and a 3:1 incast of 1500-byte frames at line
    rate leaves as many frames, trimming within 2 of the RTL's count
    (the fates of a congested queue follow the cycle-level interleaving,
    which the model approximates: sim/src/model/switch.rs)."""
    got = {}
    for eng in ("rtl", "model"):
        sw = ts.Switch(CONFIG, engine=eng)
        c0 = sw.cycle + 10
        sw.send(0, routed(0, 1, 60, 0), at_cycle=c0)
        sw.run_until_idle()
        (_, c), = sw.recv(1)
        for src in (1, 2, 3):
            for i in range(60):
                sw.send(src, routed(src, 0, 1500, i, tos=10 << 2))
        sw.run_until_idle()
        out = [f for f, _ in sw.recv(0)]
        got[eng] = (c - c0, len(out), sum(len(f) == 64 for f in out))
    (lat, n, trims), (mlat, mn, mtrims) = got["rtl"], got["model"]
    assert mlat == lat and 40 < lat < 60, got
    assert mn == n == 180 and 50 < trims and abs(mtrims - trims) <= 2, got


def test_model_engine_refuses_what_it_does_not_model():
    sw = ts.Switch(CONFIG, engine="model")
    with pytest.raises(NotImplementedError, match="register map"):
        sw.regs.read("tm0.MODE")
    with pytest.raises(ValueError, match="tm.mode"):
        ts.Switch(CONFIG, engine="model", set={"tm.mode": "meter"})
    with pytest.raises(ValueError, match="tm.scheduler"):
        ts.Switch(CONFIG, engine="model", set={"tm.scheduler": "drr"})
    with pytest.raises(ValueError, match="latency"):
        ts.Switch(CONFIG, latency=10)
    with pytest.raises(IndexError, match="port 4"):
        sw.send(4, routed(0, 1, 60, 0))

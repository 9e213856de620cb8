"""The benchmark's workload (py/bench/run.py): seeded, the same on both sides.

Every port sends to the next (a permutation, so no port congests and the
golden model predicts every frame), `PER_PORT` frames each, 64 or 1500 bytes
with FCS, IPv4/UDP through the router; frame k of a port may not start
before cycle `at`, its line-rate slot at 10G (6.25 bytes a cycle at 200 MHz,
preamble and gap counted). Standard library only: the cocotb side imports it
too."""
import random
import struct
import zlib

PORTS = 4
PER_PORT = 5000
SIZES = (64, 1500)
ROUTER = bytes.fromhex("0200000000fe")
BYTES_PER_CYCLE = 10e9 / 8 / 200e6
START = 64


def _ipv4_checksum(h: bytes) -> int:
    s = sum(struct.unpack("!10H", h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def frame(src: int, dst: int, size: int, seq: int) -> bytes:
    """An Ethernet/IPv4/UDP frame of `size` bytes with its FCS."""
    payload_len = size - 4 - 14 - 20 - 8
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 8 + payload_len, seq & 0xFFFF, 0, 64, 17, 0,
                     bytes([10, 0, src, 1]), bytes([10, 0, dst, 1]))
    ip = ip[:10] + struct.pack("!H", _ipv4_checksum(ip)) + ip[12:]
    udp = struct.pack("!HHHH", 1000 + src, 2000 + dst, 8 + payload_len, 0)
    payload = bytes((seq + i) & 0xFF for i in range(payload_len))
    f = ROUTER + bytes([2, 0, 0, 0, 0, src]) + b"\x08\x00" + ip + udp + payload
    return f + zlib.crc32(f).to_bytes(4, "little")


def workload(seed: int = 1, per_port: int = PER_PORT):
    """Per port: a list of (frame with FCS, not-before cycle)."""
    rng = random.Random(seed)
    out = []
    for p in range(PORTS):
        at, frames = START, []
        for k in range(per_port):
            f = frame(p, (p + 1) % PORTS, rng.choice(SIZES), k)
            frames.append((f, at))
            at += -(-(len(f) + 20) // BYTES_PER_CYCLE)
        out.append([(f, int(t)) for f, t in frames])
    return out

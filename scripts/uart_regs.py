#!/usr/bin/env python3
"""Read and write a board's register map over its serial line.

The bridge is ts_uart_axil (hdl/src/board/uart_axil.rs; docs/boards.md, "Host
access over a serial line"): 8N1 at 115 200 baud on the ECP5-5G Versa (its USB
port's second channel, e.g. /dev/ttyUSB1). Addresses are the register map's
(`trimswitch regs --board ecp5-versa`, or regs.md beside the bitstream); on the
Versa the board window from 0x40000 (the self-test).

    uart_regs.py /dev/ttyUSB1 write 0x40000 1       # start the self-test
    uart_regs.py /dev/ttyUSB1 read 0x40004 7        # its status and counts
    uart_regs.py --encode read 0x3c               # the command's bytes, no port
    uart_regs.py --decode 72 00 c0 de 00 10       # what an answer says

Talking to a port needs pyserial (`pip install pyserial`); --encode and
--decode need nothing but Python.
"""
import argparse
import struct
import sys

RESP = {0: "OKAY", 1: "EXOKAY", 2: "SLVERR", 3: "DECERR"}


def encode(op, addr, data=0):
    """The bytes of a command: 'W', address, data or 'R', address (big-endian)."""
    if not 0 <= addr < 1 << 32 or addr % 4:
        raise ValueError(f"address {addr:#x}: a word-aligned 32-bit address")
    if op == "write":
        if not 0 <= data < 1 << 32:
            raise ValueError(f"data {data:#x}: 32 bits")
        return b"W" + struct.pack(">II", addr, data)
    if op == "read":
        return b"R" + struct.pack(">I", addr)
    raise ValueError(f"{op!r}: read or write")


def decode(answer):
    """(kind, resp, data) of an answer: b'w' + resp, or b'r' + resp + 4 data bytes."""
    if len(answer) == 2 and answer[:1] == b"w":
        return "write", answer[1], None
    if len(answer) == 6 and answer[:1] == b"r":
        return "read", answer[1], struct.unpack(">I", answer[2:])[0]
    raise ValueError(f"not an answer: {answer.hex(' ')}")


def transact(port, command, timeout_s=1.0):
    """Sends one command on an open pyserial port and returns its decoded answer."""
    port.write(command)
    n = 6 if command[:1] == b"R" else 2
    answer = port.read(n)
    if len(answer) < n:
        raise TimeoutError(f"{len(answer)} of {n} answer bytes in {timeout_s} s: is the board configured and the port right?")
    return decode(answer)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baud", type=int, default=115200)
    p.add_argument("--encode", action="store_true", help="print the command's bytes and exit")
    p.add_argument("--decode", nargs="+", metavar="HEX", help="print what an answer's bytes say and exit")
    p.add_argument("args", nargs="*", help="PORT read ADDR [COUNT] | PORT write ADDR DATA (without PORT with --encode)")
    a = p.parse_args(argv)
    if a.decode:
        kind, resp, data = decode(bytes(int(x, 16) for x in a.decode))
        print(f"{kind} {RESP.get(resp, resp)}" + ("" if data is None else f" {data:#010x}"))
        return 0
    args = list(a.args)
    port_name = None if a.encode else (args.pop(0) if args else None)
    if len(args) < 2 or args[0] not in ("read", "write") or (args[0] == "write" and len(args) != 3):
        p.error("expected: read ADDR [COUNT] or write ADDR DATA")
    op, addr = args[0], int(args[1], 0)
    if a.encode:
        print(encode(op, addr, int(args[2], 0) if op == "write" else 0).hex(" "))
        return 0
    if port_name is None:
        p.error("a serial port is needed (or --encode)")
    import serial  # pyserial

    with serial.Serial(port_name, a.baud, timeout=1.0) as port:
        if op == "write":
            _, resp, _ = transact(port, encode("write", addr, int(args[2], 0)))
            print(f"{addr:#07x} <- {int(args[2], 0):#010x} {RESP.get(resp, resp)}")
            return 0 if resp == 0 else 1
        bad = 0
        for i in range(int(args[2], 0) if len(args) > 2 else 1):
            _, resp, data = transact(port, encode("read", addr + 4 * i))
            print(f"{addr + 4 * i:#07x} = {data:#010x} {RESP.get(resp, resp)}")
            bad += resp != 0
        return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ValueError, TimeoutError) as e:
        print(f"uart_regs.py: error: {e}", file=sys.stderr)
        sys.exit(2)

"""The benchmark's trimswitch side (py/bench/run.py runs it): the workload
through `trimswitch.Switch`, every frame checked against the golden model
as it leaves, the output pcaps written. Prints one JSON line."""
import json
import sys
import time
from pathlib import Path

t_process = time.perf_counter()
import trimswitch as ts  # noqa: E402
from workload import PORTS, workload  # noqa: E402


def main(config: str, out: Path, per_port: int, seed: int):
    t0 = time.perf_counter()
    sw = ts.Switch(config, line_rate=False)  # reset, ingress tables loaded over AXI4-Lite
    model = ts.model.Ingress(config)
    wl = workload(seed, per_port)
    t1 = time.perf_counter()
    c0 = sw.cycle
    for p in range(PORTS):
        for f, at in wl[p]:
            sw.send(p, f, at_cycle=c0 + at, fcs="none")
    got = {p: [] for p in range(PORTS)}
    total = PORTS * per_port
    last = max(at for frames in wl for _, at in frames)
    checked = 0
    while checked < total:
        sw.run(2048)
        for d in range(PORTS):
            src = (d - 1) % PORTS
            for data, _ in sw.recv(d):
                k = len(got[d])
                want = model.process(src, wl[src][k][0])
                assert want is not None and want[0] == d and data == want[1], f"port {d} frame {k}"
                got[d].append(data)
                checked += 1
        if sw.cycle - c0 > last + 100_000:
            raise TimeoutError(f"{checked} of {total} frames by cycle {sw.cycle - c0}")
    t2 = time.perf_counter()
    cycles = sw.cycle - c0
    for d in range(PORTS):
        ts.write_pcap(out / f"port{d}.pcap", [(1000 * i, f) for i, f in enumerate(got[d])])
    print(json.dumps({"side": "trimswitch", "checked": checked, "cycles": cycles, "run_s": t2 - t1,
                      "startup_s": t1 - t0, "import_s": t0 - t_process}))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))

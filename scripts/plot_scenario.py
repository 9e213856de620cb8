#!/usr/bin/env python3
"""Plots of a `trimswitch sim` run: plot_scenario.py METRICS.json OUT_DIR.

Reads the report `trimswitch sim` writes (the scenario and one run per
traffic-manager mode) and writes, as PNG and SVG, into OUT_DIR:

- throughput: whole-packet goodput per flow over time, one panel per mode;
- header_cdf: arrival times of trimmed headers at the receivers, one curve
  per mode (seed 000 Fig. 5: ideal, meter only, meter + notify);
- modes: the mode of every receiving port over time in the meter runs
  (seed 000 Fig. 7: 0 optimistic, 1 halftimistic, 2 pessimistic);
- occupancy: header and data queue bytes of every receiving port over time.

Prints the path of every file written, one per line.
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODE_LABEL = {"ideal": "ideal", "meter": "meter + notify", "meter-no-notify": "meter only"}


def save(fig, out, name, written):
    fig.tight_layout()
    for ext in ("png", "svg"):
        p = out / f"{name}.{ext}"
        fig.savefig(p, dpi=120)
        written.append(p)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_scenario.py METRICS.json OUT_DIR")
    path, out = Path(sys.argv[1]), Path(sys.argv[2])
    try:
        report = json.loads(path.read_text())
        runs, sc = report["runs"], report["scenario"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"{path}: not a trimswitch sim report: {e}")
    out.mkdir(parents=True, exist_ok=True)
    title = f"{sc['name']} on {Path(report['config']).stem}"
    written = []

    # Throughput per flow over time.
    fig, axes = plt.subplots(len(runs), 1, figsize=(8, 2.6 * len(runs)), sharex=True, squeeze=False)
    for ax, r in zip(axes[:, 0], runs):
        us = r["bin_cycles"] / r["clock_mhz"]
        for f, series in zip(r["flows"], r["flow_gbps"]):
            ax.step([i * us for i in range(len(series))], series, where="post", label=f"flow {f['id']} ({f['src']}->{f['dst']})")
        ax.set_ylabel("Gb/s (whole)")
        ax.set_title(f"{title}: {MODE_LABEL.get(r['mode'], r['mode'])}")
        ax.set_ylim(0, r["line_gbps"] * 1.05)
        if len(r["flows"]) <= 8:
            ax.legend(fontsize="small", loc="upper right")
    axes[-1, 0].set_xlabel("time (us)")
    save(fig, out, "throughput", written)

    # Header arrival CDF per mode.
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in runs:
        t = [c / r["clock_mhz"] for c in r["header_arrivals"]]
        if t:
            ax.step(t, [(i + 1) / len(t) for i in range(len(t))], where="post", label=f"{MODE_LABEL.get(r['mode'], r['mode'])} ({len(t)} headers)")
    ends = [r["header_arrivals"][-1] / r["clock_mhz"] for r in runs if r["header_arrivals"]]
    if ends and max(ends) > 20 * min(ends):
        ax.set_xscale("log")  # one mechanism takes far longer: show both
    ax.set_xlabel("arrival time at the receiver (us)")
    ax.set_ylabel("CDF of trimmed headers")
    ax.set_title(f"{title}: header arrivals")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize="small")
    save(fig, out, "header_cdf", written)

    # Mode timeline per receiving port (meter runs).
    meter = [r for r in runs if r["mode"] != "ideal"]
    if meter:
        fig, axes = plt.subplots(len(meter), 1, figsize=(8, 2.4 * len(meter)), sharex=True, squeeze=False)
        for ax, r in zip(axes[:, 0], meter):
            for p in sorted({s[1] for s in r["mode_samples"]}):
                pts = [(c / r["clock_mhz"], m) for c, q, m in r["mode_samples"] if q == p]
                if any(m for _, m in pts):
                    ax.step([x for x, _ in pts], [m for _, m in pts], where="post", label=f"port {p}")
            ax.set_yticks([0, 1, 2], ["optimistic", "halftimistic", "pessimistic"])
            ax.set_title(f"{title}: port modes, {MODE_LABEL.get(r['mode'], r['mode'])}")
            n = len(ax.get_legend_handles_labels()[0])
            if 0 < n <= 8:
                ax.legend(fontsize="small", loc="upper right")
            elif n > 8:
                ax.text(0.99, 0.9, f"{n} ports", transform=ax.transAxes, ha="right")
            else:
                ax.text(0.5, 0.5, "every port optimistic throughout", transform=ax.transAxes, ha="center")
        axes[-1, 0].set_xlabel("time (us)")
        save(fig, out, "modes", written)

    # Queue occupancy per receiving port.
    fig, axes = plt.subplots(len(runs), 1, figsize=(8, 2.6 * len(runs)), sharex=True, squeeze=False)
    for ax, r in zip(axes[:, 0], runs):
        ports = sorted({s[1] for s in r["occupancy"]})
        for p in ports:
            pts = [(c / r["clock_mhz"], h, d) for c, q, h, d in r["occupancy"] if q == p]
            if any(h or d for _, h, d in pts):
                ax.plot([x for x, _, _ in pts], [d / 1000 for _, _, d in pts], label=f"port {p} data")
                ax.plot([x for x, _, _ in pts], [h / 1000 for _, h, _ in pts], linestyle="--", label=f"port {p} header")
        ax.set_ylabel("kB queued")
        ax.set_title(f"{title}: queues, {MODE_LABEL.get(r['mode'], r['mode'])}")
        n = len(ax.get_legend_handles_labels()[0])
        if 0 < n <= 8:
            ax.legend(fontsize="small", loc="upper right")
        elif n > 8:
            ax.text(0.99, 0.9, f"{n // 2} ports", transform=ax.transAxes, ha="right")
    axes[-1, 0].set_xlabel("time (us)")
    save(fig, out, "occupancy", written)

    for p in written:
        print(p)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot bench_purgatory's per-rate sweep: sustained rate against target rate.

Usage:
  build/tests/bench/bench_purgatory --sweep --benchmark_filter=sweep \\
      --benchmark_min_time=0.2 --benchmark_out=sweep.json \\
      --benchmark_out_format=json
  /usr/bin/python3 devtools/plot_purgatory.py sweep.json docs/guides/purgatory_sweep.png

Reads the BM_purgatory_sweep/<impl>/<scenario>/<rate> entries of Google
Benchmark's JSON output and draws, for both designs (ewyk, heap) and both
scenarios (low, high), the sustained rate (counter sustained_rate) against
the target rate, log-log, with the line y = x (keeping up). Also prints the
table the guide quotes.
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        data = json.load(f)
    series = {}
    for b in data["benchmarks"]:
        name = b["name"].replace("/manual_time", "")
        parts = name.split("/")
        if parts[0] != "BM_purgatory_sweep" or b.get("run_type") == "aggregate":
            continue
        impl, scen, rate = parts[1], parts[2], int(parts[3])
        series.setdefault((impl, scen), []).append((rate, b))
    for v in series.values():
        v.sort(key=lambda x: x[0])
    return data.get("context", {}), series


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_purgatory.py SWEEP.json OUT.png")
    ctx, series = load(sys.argv[1])
    if not series:
        sys.exit("no BM_purgatory_sweep entries (run the bench with --sweep)")
    style = {
        ("ewyk", "low"): ("tab:blue", "o", "-"),
        ("ewyk", "high"): ("tab:blue", "s", "--"),
        ("heap", "low"): ("tab:red", "o", "-"),
        ("heap", "high"): ("tab:red", "s", "--"),
    }
    label = {"ewyk": "lib/purgatory (timer wheel)",
             "heap": "old design (heap + threshold purge)"}
    fig, ax = plt.subplots(figsize=(8, 5.5))
    lo, hi = None, None
    for key in sorted(series):
        pts = series[key]
        xs = [r for r, _ in pts]
        ys = [b["sustained_rate"] for _, b in pts]
        c, m, ls = style.get(key, ("gray", "x", ":"))
        ax.plot(xs, ys, color=c, marker=m, linestyle=ls,
                label="%s, %s timeout" % (label.get(key[0], key[0]), key[1]))
        lo = min(xs) if lo is None else min(lo, min(xs))
        hi = max(xs) if hi is None else max(hi, max(xs))
    ax.plot([lo, hi], [lo, hi], color="gray", linewidth=0.8, linestyle=":",
            label="target (keeps up)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("target rate (requests/s)")
    ax.set_ylabel("sustained rate on one core (requests/s)")
    ax.set_title("Purgatory: sustained vs target rate, 200 ms timeout")
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize=8)
    host = ctx.get("host_name", "")
    date = ctx.get("date", "")
    fig.text(0.01, 0.01, "bench_purgatory --sweep, %s %s" % (host, date),
             fontsize=6, color="gray")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)

    print("| design | scenario | target | sustained | req/CPU-s | CPU ns/req"
          " | outstanding | stale watchers | timer entries | purge scans |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (impl, scen) in sorted(series):
        for rate, b in series[(impl, scen)]:
            print("| %s | %s | %d | %.0f | %.0f | %.0f | %d | %d | %d | %d |" % (
                impl, scen, rate, b["sustained_rate"],
                b["requests_per_cpu_second"], b["cpu_ns_per_request"],
                b["outstanding_at_end"], b["stale_watchers_at_end"],
                b["timer_entries_at_end"], b["purge_scans"]))


if __name__ == "__main__":
    main()

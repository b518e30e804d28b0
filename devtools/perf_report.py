# SPDX-License-Identifier: BSD-3-Clause
"""docs/perf/README.md and perf.png from devtools/perf.py's results."""

import datetime
import json
import os
import platform
import subprocess


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True,
                              text=True).stdout.strip()
    except Exception:  # noqa: BLE001
        return "?"


def machine():
    cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip()
    mem = 0
    with open("/proc/meminfo") as f:
        for ln in f:
            if ln.startswith("MemTotal:"):
                mem = int(ln.split()[1]) / 1048576
    return {
        "machine": f"{cpu}, {os.cpu_count()} CPUs, {mem:.0f} GiB",
        "kernel": platform.release(),
        "dpdk": sh("dpkg-query -W -f '${Version}' libdpdk-dev") or "?",
        "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
        "load": sh("cat /proc/loadavg | cut -d' ' -f1-3"),
    }


def limit_of(r):
    """Who ran out of CPU first (busy shares of the two sides)."""
    s, c = r.get("server_busy_pct"), r.get("busy_pct")
    if s is None or c is None:
        return ""
    if c >= 90 and s < 90:
        return "**client** (loadgen busy, server not)"
    if s >= 90 and c < 90:
        return "server"
    if s >= 90 and c >= 90:
        return "both busy"
    return "neither (< 90 % busy: CPU taken by other load, or round trips)"


def fmt(v, nd=0):
    if v is None:
        return "–"
    return f"{v:,.{nd}f}"


def plot(results, order, path):
    names = [n for n in order]
    rps = [results[n]["rps"] for n in names]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        data = path + ".dat"
        with open(data, "w") as f:
            for n, v in zip(names, rps):
                f.write(f"\"{n}\" {v}\n")
        sh(f"gnuplot -e \"set terminal png size 1000,500; set output '{path}';"
           f" set style fill solid; set boxwidth 0.6; set xtics rotate by -30;"
           f" set ylabel 'req/s'; plot '{data}' using 2:xtic(1) with boxes"
           f" notitle\"")
        os.unlink(data)
        return
    fig, ax = plt.subplots(figsize=(11, 5))
    colors = ["#2b7bba" if n.startswith("ewyk") else "#999999"
              for n in names]
    bars = ax.bar(range(len(names)), rps, color=colors)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("requests/s (median of runs)")
    ax.set_title("HTTP/1.1 GET / 'hello world\\n', 1 server core vs 1 client "
                 "core (ewyk: memif; peers: wrk over loopback)")
    for b, v in zip(bars, rps):
        ax.text(b.get_x() + b.get_width() / 2, v, f"{v / 1000:.0f}k",
                ha="center", va="bottom", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


PCTS = [("p50_us", "p50"), ("p90_us", "p90"), ("p99_us", "p99"),
        ("p999_us", "p99.9")]


def plot_latency(results, order, path):
    """Percentiles per case, log scale: one group of bars per case."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [n for n in order if results[n].get("p99_us")]
    if not names:
        return False
    fig, ax = plt.subplots(figsize=(12, 5))
    width = 0.8 / len(PCTS)
    shades = ["#9ecae1", "#4292c6", "#08519c", "#08306b"]
    for k, ((key, label), col) in enumerate(zip(PCTS, shades)):
        xs = [i + (k - (len(PCTS) - 1) / 2) * width
              for i, n in enumerate(names) if results[n].get(key)]
        ys = [results[n][key] for n in names if results[n].get(key)]
        ax.bar(xs, ys, width, label=label, color=col)
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("latency, µs (log scale)")
    ax.set_title("Latency percentiles per case (medians of runs; ewyk: "
                 "ewyk-loadgen's histogram; peers: wrk / h2load)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def breakdown(results, order):
    """(case, stages) of every case with a profiled run."""
    out = []
    for n in order:
        run = results[n].get("profile_run") or {}
        st = run.get("stages")
        if st:
            out.append((n, st, run))
    return out


def plot_cycles(rows, path):
    """Server cycles per request by stage, one stacked bar per case."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from perf import STAGE_NAMES as stages
    fig, ax = plt.subplots(figsize=(12, 2.5 + 0.45 * len(rows)))
    cmap = plt.get_cmap("tab20")
    left = [0.0] * len(rows)
    for k, st in enumerate(stages):
        vals = [r[1].get(st, 0.0) for r in rows]
        if not any(vals):
            continue
        ax.barh(range(len(rows)), vals, left=left, color=cmap(k % 20),
                label=st)
        left = [a + v for a, v in zip(left, vals)]
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("server core cycles per request (perf samples of "
                  "ewyk-httpd × the run's core cycles/request)")
    ax.set_title("Where the server's cycles go, per case (one profiled run of each)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def breakdown_section(rows):
    from perf import STAGE_NAMES as stages
    used = [st for st in stages if any(r[1].get(st) for r in rows)]
    out = ["\n## Where the server's cycles go, per case\n\n"
           "![cycles per request by stage](cycles.png)\n\n"
           "`--profile`: `perf record -p <ewyk-httpd>` (cycles sampling) "
           "for a few seconds in the measured window of one more run of "
           "each ewyk case, left out of the table's medians (sampling "
           "costs the server cycles). A stage's cycles/request = its share of the samples "
           "× that run's server core cycles per request, so the stages add "
           "up to the core cycles per request, the poll loop's empty polls "
           "(the idle share) included; symbols under 0.1 % of the samples "
           "are left out. Stages are named from symbols by the patterns of "
           "`STAGES` in devtools/perf.py: a function is counted where it "
           "is, not where its caller is (a checksum called by TCP is "
           "\"checksums\").\n\n"
           "| case | core cycles/req | "
           + " | ".join(used) + " |\n|---|---:|"
           + "---:|" * len(used) + "\n"]
    for n, st, run in rows:
        out.append(f"| {n} | {fmt(run.get('server_cycles_per_req'))} | "
                   + " | ".join(fmt(st.get(u)) for u in used) + " |\n")
    return "".join(out)


def strategy_table(results, order):
    """Jetty's seed benchmark: the BLOCKING no-op rows side by side, with
    throughput and requests per busy CPU-second relative to pc."""
    rows = [n for n in order if n.startswith("ewyk BLOCKING no-op, ")]
    pc = results.get("ewyk BLOCKING no-op, pc")
    if not rows or not pc:
        return ""

    def per_cpu(r):
        c = r.get("server_busy_cycles_per_req")
        return r["tsc_hz"] / c if c else None

    out = ("\n### Strategies on a BLOCKING route that does no work\n\n"
           "`GET /sleep/0` at full load, one reserved lcore: the dispatch "
           "overhead of each strategy alone (Jetty measured PC about 8x "
           "PEC's throughput). Requests per busy CPU-second are the TSC rate "
           "over the busy cycles per request of every server lcore, the "
           "reserved one included.\n\n"
           "| strategy | req/s | x pc | busy cycles/req | req per busy "
           "CPU-s | x pc |\n|---|---|---|---|---|---|\n")
    for n in rows:
        r = results[n]
        a, b = per_cpu(r), per_cpu(pc)
        out += (f"| {n.split(', ', 1)[1]} | {fmt(r['rps'])} | "
                f"{r['rps'] / pc['rps']:.2f} | "
                f"{fmt(r.get('server_busy_cycles_per_req'))} | "
                f"{fmt(a)} | "
                f"{(a / b) if a and b else float('nan'):.2f} |\n")
    return out + "\n"


def iter_quantile(hist, q):
    """The upper bound (us) of the log2 bucket of the server loop's
    packets-by-iteration histogram that holds quantile q; None if empty."""
    total = sum(hist)
    if not total:
        return None
    seen = 0
    for i, n in enumerate(hist):
        seen += n
        if seen >= q * total:
            return 1 << i if i < len(hist) - 1 else float("inf")
    return None


def open_loop_table(results, order):
    """Where the tail comes from, run by run: the loadgen's lateness in
    sending and the share of time the kernel took either loop, against
    what the server's loop itself held a packet; and the tail of the
    responses whose request no stall held. Every open-loop row, and every
    other ewyk row whose loadgen split its tail by stalls."""
    rows = [n for n in order if n.startswith("ewyk open loop") or (
        n.startswith("ewyk") and any("stall_spanned" in r for r in
                                     results[n].get("runs", [])))]
    if not rows:
        return ""
    out = ("\n### Where the tail comes from\n\n"
           "Per run: the latency (open loop: counted from the intended "
           "send time); how late ewyk-loadgen sent (its own loop, from the "
           "intended time); the share of each loop's time in stalls "
           "(iterations of 200 µs or more: the kernel ran something else "
           "on that core) and the loadgen's longest; the server's packets "
           "by the length of the loop iteration that took them (poll to "
           "next poll: RX to TX in the loop, the stalls included), as the "
           "bucket bound at p99 and the share of packets in iterations of "
           "256 µs or more. Then the tail split by stalls: the share of "
           "responses whose request was due or in flight while the "
           "loadgen's loop stalled, and the percentiles of the others; "
           "the same with the peer's gaps too (200 µs or more with "
           "requests in flight and nothing answered while the loadgen's "
           "loop ran: the server descheduled, or holding every request), "
           "their count beside. What is left without them is what the two "
           "programs do, the recovery from a stall's backlog included.\n\n"
           "| case | run | p99 µs | p99.9 µs | loadgen send lag p50 / p99 "
           "µs | loadgen stalled % (longest µs) | server stalled ms | "
           "server in-loop p99 ≤ µs | server pkts in ≥ 256 µs iterations "
           "% | spanned a loadgen stall % | p99 / p99.9 µs without | "
           "spanned a stall or peer gap % (gaps) | p99 / p99.9 µs "
           "without |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
           "---:|\n")
    for n in rows:
        for i, r in enumerate(results[n].get("runs", [])):
            h = r.get("server_pkts_by_iter_log2_us") or []
            long_ = (100.0 * sum(h[9:]) / sum(h)) if sum(h) else None
            req = max(r.get("requests") or 0, 1)
            sp = r.get("stall_spanned")
            gp = r.get("gap_spanned")
            out += (f"| {n} | {i + 1} | {fmt(r.get('p99_us'), 1)} | "
                    f"{fmt(r.get('p999_us'), 1)} | "
                    f"{fmt(r.get('send_lag_p50_us'), 1)} / "
                    f"{fmt(r.get('send_lag_p99_us'), 1)} | "
                    f"{fmt(r.get('loop_stall_pct'), 1)} "
                    f"({fmt(r.get('loop_stall_max_us'))}) | "
                    f"{fmt(r.get('server_loop_stall_ms'), 1)} | "
                    f"{fmt(iter_quantile(h, 0.99))} | {fmt(long_, 2)} | "
                    f"{fmt(None if sp is None else 100.0 * sp / req, 2)} | "
                    f"{fmt(r.get('p99_nostall_us'), 1)} / "
                    f"{fmt(r.get('p999_nostall_us'), 1)} | "
                    f"{fmt(None if gp is None else 100.0 * gp / req, 2)} "
                    f"({fmt(r.get('peer_gaps'))}) | "
                    f"{fmt(r.get('p99_nogap_us'), 1)} / "
                    f"{fmt(r.get('p999_nogap_us'), 1)} |\n")
    return out + "\n"


def loss_lines(results, order):
    """Every ewyk row whose server or loadgen retransmitted, timed out or
    dropped a frame at a full TX in any run, or whose loadgen counted a
    request timeout: loss is never silent."""
    out = []
    for n in order:
        for i, r in enumerate(results[n].get("runs", [])):
            loss = {k: v for k, v in (r.get("server_loss") or {}).items()
                    if v}
            loss.update({f"loadgen {k}": v for k, v in
                         (r.get("loss") or {}).items() if v})
            tmo = (r.get("errors_by_kind") or {}).get("timeout", 0)
            if tmo:
                loss["loadgen timeouts"] = tmo
            if loss:
                out.append(f"- {n}, run {i + 1}: " + ", ".join(
                    f"{k} {v:,}" for k, v in sorted(loss.items())) + "\n")
    if not out:
        return ""
    return ("\nLoss and recovery (ewyk-httpd's counters and, prefixed, "
            "ewyk-loadgen's, whole run; `tx_blocked`: data held back at a "
            "full TX, not lost):\n\n"
            + "".join(out) + "\n")


def write_report(a, b, results, order, cmdline):
    os.makedirs(a.out, exist_ok=True)
    m = machine()
    png = os.path.join(a.out, "perf.png")
    lat = False
    rows = breakdown(results, order)
    if order:
        plot(results, order, png)
        try:
            lat = plot_latency(results, order,
                               os.path.join(a.out, "latency.png"))
            if rows:
                plot_cycles(rows, os.path.join(a.out, "cycles.png"))
        except ImportError:  # no matplotlib: the tables carry the figures
            lat, rows = False, []
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"machine": m, "command": cmdline, "hugepages": a.huge,
                   "results": {n: results[n] for n in order}}, f, indent=1)
    lines = []
    ka = results.get("ewyk keep-alive")
    ng = results.get("nginx keep-alive")
    head = "# Per-core HTTP throughput\n\n"
    if ka:
        head += (f"**ewyk-httpd, one core, keep-alive: {ka['rps']:,.0f} req/s"
                 f" (median of {a.runs})**")
        if ng:
            head += (f"; nginx on the same core: {ng['rps']:,.0f} req/s "
                     f"({ka['rps'] / ng['rps']:.1f}x)")
        head += f" — limited by: {limit_of(ka) or '?'}.\n\n"
    lines.append(head)
    lines.append(
        f"- machine: {m['machine']}\n- kernel: {m['kernel']}\n"
        f"- DPDK: {m['dpdk']} (Debian)\n- date: {m['date']}\n"
        f"- command: `{cmdline}`\n"
        f"- memory: {'hugepages (--in-memory)' if a.huge else '--no-huge'}\n"
        f"- server cores {b.srv_cores}, client cores {b.cli_cores}"
        f"{(', reserved lcore on core ' + str(a.reserved_core)) if a.reserved_core >= 0 else ''}; "
        f"{a.conns} connections, {a.duration} s measured "
        f"(+{a.warmup} s warm-up for ewyk-loadgen), median of {a.runs} runs\n"
        f"- load average when the report was written: {m['load']} "
        "(the machine is shared: other builds and tests ran at the same "
        "time; compare rows of one report, not absolute figures)\n\n"
        "Caveat: the ewyk processes busy-poll and so keep their cores' "
        "time slices; nginx, h2o and wrk sleep in epoll and lose more of "
        "their time to the machine's other load, so on a loaded machine the "
        "ratio to the peers overstates ewyk's lead (nginx did ~125 k "
        "req/s per core here on a quiet machine).\n\n"
        "![req/s](perf.png)\n\n"
        + ("![latency percentiles](latency.png)\n\n" if lat else ""))
    lines.append(
        "| case | req/s | p50 µs | p99 µs | p99.9 µs | errors | server busy % "
        "| server busy cycles/req | server core cycles/req | loadgen busy % "
        "| loadgen busy cycles/req | counts agree (1 %) | limit |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
    for n in order:
        r = results[n]
        ew = n.startswith("ewyk")
        lines.append(
            f"| {n} | {fmt(r['rps'])} | {fmt(r.get('p50_us'), 1)} | "
            f"{fmt(r.get('p99_us'), 1)} | {fmt(r.get('p999_us'), 1)} | "
            f"{fmt(r.get('errors'))} | {fmt(r.get('server_busy_pct'), 1)} | "
            f"{fmt(r.get('server_busy_cycles_per_req'))} | "
            f"{fmt(r.get('server_cycles_per_req'))} | "
            f"{fmt(r.get('busy_pct'), 1)} | "
            f"{fmt(r.get('busy_cycles_per_req'))} | "
            f"{('yes' if r['count_agree'] else '**NO**') if ew else '–'} | "
            f"{limit_of(r) if ew else r.get('tool', 'wrk')} |\n")
    lines.append(strategy_table(results, order))
    if rows:
        lines.append(breakdown_section(rows))
    lines.append(open_loop_table(results, order))
    lines.append(loss_lines(results, order))
    lines.append("""
How to read it:

- ewyk rows: ewyk-httpd on the server cores ⟷ `net_memif` (rings of
  4,096 descriptors, `rsize=12`) ⟷ ewyk-loadgen
  on the client cores; `GET /` (`hello world\\n`), keep-alive unless said.
  Percentiles come from ewyk-loadgen's histogram (≤ 0.4 % error).
  "server busy cycles/req" is the server cores' cycles spent in loop
  iterations that received packets (ewyk-httpd's per-lcore `busy_cycles`,
  telemetry `/ewyk/stats`, read before and after the loadgen run) divided
  by the requests of that run; "server busy %" is that times the measured
  req/s over the cores' cycles per second; "server core
  cycles/req" is all the server cores' cycles (busy or idle) per request:
  the inverse of the per-core rate. The same for the loadgen from its own
  counters. "counts agree": ewyk-httpd's `http: requests=` line (its own
  per-shard counters) against every response the loadgen counted over the
  whole run (warm-up and drain included), within 1 %.
- limit: the side whose cores were busy ≥ 90 % while the other's were not.
  When it says **client**, the figure is the load generator's, not the
  server's ceiling. Busy shares are of wall-clock cycles: on a shared
  machine a process that the kernel descheduled is neither busy nor idle
  in its own loop, and when neither side reaches 90 % that lost time (or
  the round trip between the two) is what bounds the figure.
- `/sleep/1` row: 1 % of the requests go to `/sleep/1`, a BLOCKING route
  (1 ms in the handler). ewyk-httpd then runs with `--reserved 1`, and the
  reserved lcore is pinned to the (last) server core, beside the worker
  (`--lcores 0@0,1@0`): the server still has one core.
- open loop: ewyk-loadgen `--rate` at half the keep-alive median; latency
  counted from each request's intended send time (no coordinated omission).
- peers: Debian nginx (`worker_processes` = server cores, `return 200
  "hello world\\n"`) and h2o (`num-threads` = server cores, an mruby handler
  returning the same body), pinned with taskset to the server cores; wrk
  (`-t` = client cores) pinned to the client cores, over kernel loopback,
  `--latency` (wrk's percentiles are not corrected for coordinated
  omission); "new conn/req" is `-H 'Connection: close'`. errors: wrk's
  socket errors plus non-2xx. The errors column is the sum over all runs
  of a case (ewyk-loadgen's by kind are in results.json), not a median.
- h2 rows: HTTP/2 over cleartext with prior knowledge, {a.h2_conns}
  connections with {a.h2_streams} streams open on each: ewyk-loadgen
  `--h2 --streams {a.h2_streams}` against ewyk-httpd over memif; h2load
  `-c {a.h2_conns} -m {a.h2_streams}` (`-t` = client cores, `-D`, its
  warm-up) against nginx (`listen ... http2`) and h2o over loopback.
  h2load's percentiles come from its `--log-file` (one line per request,
  written by h2load as it runs); its errors are failed, errored and timed
  out requests plus non-2xx.
""".format(a=a))
    crashed = [f"{n}, run {i + 1}" for n in order
               for i, r in enumerate(results[n]["runs"])
               if r.get("server_crashed")]
    skipped = getattr(b, "skipped", [])
    if skipped:
        lines.append("\n## Cases skipped\n\n")
        for c in skipped:
            lines.append(f"- {c}\n")
    if crashed or b.failures:
        lines.append("\n## Runs that failed\n\n")
        for c in crashed:
            lines.append(f"- {c}: ewyk-httpd died when ewyk-loadgen "
                         "closed its memif port (SIGSEGV in "
                         "librte_net_memif, see below); its count was "
                         "read from telemetry when the loadgen printed "
                         "its line\n")
        for f in b.failures:
            lines.append(f"- {f}\n")
        if crashed:
            lines.append(
                "\nThe kernel logs these as `segfault ... in "
                "librte_net_memif.so.23.0`: the memif PMD (DPDK "
                f"{m['dpdk']}) of the server side faults in its data path "
                "when the client disconnects while the server's lcore is "
                "polling the port. It hits after the measurement; the "
                "figures above are not affected, only ewyk-httpd's final "
                "stats are lost.\n")
    for n, _, run in rows:
        if n not in ("ewyk keep-alive", "ewyk pipeline 16",
                     "ewyk new conn/req", "ewyk h2"):
            continue
        lines.append(
            f"\n### Top symbols: {n}\n\n"
            "The same profile by symbol (the poll loop's empty polls "
            "included); cycles/req = share × that run's server core cycles "
            f"per request ({fmt(run.get('server_cycles_per_req'))})."
            "\n\n| share | object | symbol | cycles/req |\n"
            "|---:|---|---|---:|\n")
        for t in run["profile"][:20]:
            lines.append(f"| {t['pct']:.1f} % | {t['dso']} | `{t['sym']}` "
                         f"| {t['cycles_per_req']:,.0f} |\n")
    with open(os.path.join(a.out, "README.md"), "w") as f:
        f.write("".join(lines))
        f.write(TWO_MACHINES)


TWO_MACHINES = """
## Re-running it

    sudo devtools/perf.sh                       # this machine: 1 + 1 cores
    sudo devtools/perf.sh --server-lcores 4 --client-lcores 4 --first-core 2
    sudo devtools/perf.sh --only 'ewyk keep-alive,nginx keep-alive' --runs 5

`--server-lcores N` gives ewyk-httpd N worker lcores (N shards, one
queue pair of the memif port each) and nginx/h2o N workers; `--client-lcores M` gives ewyk-loadgen M lcores and wrk M threads.
`--h2-conns C --h2-streams M` size the HTTP/2 rows (`ewyk h2`, `nginx h2c`,
`h2o h2c`: C connections with M streams open on each; ewyk-loadgen `--h2
--streams M`, h2load `-c C -m M`); the `ewyk h2` row is skipped, and the
report says so, while ewyk-httpd is not linked with libnghttp2.
On a machine with the cores, run it for N = 1, 2, 4, 8 to get the scaling
table: per-core req/s (req/s ÷ N) should stay flat.

## Two machines with real NICs

ewyk-loadgen and ewyk-httpd each drive a NIC bound to `vfio-pci`:

1. On both: reserve hugepages (`echo 2048 >
   /proc/sys/vm/nr_hugepages`), bind the port (`dpdk-devbind.py -b vfio-pci
   0000:81:00.0`), isolate the cores you will use (`isolcpus=`,
   `nohz_full=` on the kernel command line), and turn the CPU governor to
   `performance`.
2. Server: `ewyk-httpd -l 2-5 -a 0000:81:00.0 -- --ip 192.0.2.1/24
   --port 80 --stats-interval 5` (one RX/TX queue per lcore, symmetric
   RSS spreads the flows).
3. Client: `ewyk-loadgen -l 2-9 -a 0000:81:00.0 -- --ip 192.0.2.2/24
   --target 192.0.2.1:80 --conns 1024 --duration 30 --warmup 5` (give the
   client at least as many cores as the server, and check in the table
   above that the client is not the limit: its busy % stays under 90).
   With RSS the loadgen picks source ports whose return traffic lands on
   the lcore that opened the connection (`ewyk_tcp_flow_shard`).
4. Compare the loadgen's `responses_total` with the server's `http:
   requests=` line, and read the per-lcore cycles in the server's stats.
   For a kernel peer on the server machine, run nginx/h2o there and wrk on
   the client machine, each pinned to the same core counts.
"""

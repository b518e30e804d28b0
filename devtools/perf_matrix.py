#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmarks for a machine with many cores, each case on cores of its own:
A/B of two builds alternating, IPv4 against IPv6, scaling over lcores,
the strategies with the reserved lcore on a core of its own, open-loop
tails, and the other rows once. Runs devtools/perf.py's ewyk runs (its
Bench: ewyk-httpd <-> net_memif <-> ewyk-loadgen), one at a time, and
writes every run as it ends, so a run cut short keeps what it had.

Steps (--steps, in this order):
  ab        each build with its own loadgen, --pairs pairs, alternating
            (A B, B A, A B, ...: drift of the machine falls on both)
  servers   the two servers with one loadgen (--new's), --server-pairs
  v6        keep-alive over IPv4 against IPv6 (--new), --v6-pairs pairs
  scale     keep-alive with N server lcores against N loadgen lcores for
            each N of --scale (--conns per server lcore), --new
  openloop  open loop at --rates (fractions of the keep-alive maximum:
            the median of --new's own runs in this invocation, or
            --max-rps)
  strategy  GET /sleep/0 (a BLOCKING route doing no work), one reserved
            lcore on a core of its own, each --strategies, --new
  rows      pipeline 16, a new connection per request, h2 (16 x 64), once
  cross     (not by default) every server with every loadgen of --base and
            --new, --cross-rounds rounds, the order of the four rotated
            by one each round: which side a difference follows
Every run but scale uses one server core and one loadgen core (the first
two of --first-core...), the reserved lcore the third (--reserved-core). The machine needs
--first-core + 2 x max(--scale) cores.

Writes into --out: results.jsonl (a JSON object per run, perf.py's row
plus step, label, builds and cores) and summary.md (the tables, rewritten
after every run). Run as root; in a bundle (devtools/bundle.sh), after
`. env.sh`:

  python3 devtools/perf_matrix.py --build base=builds/base \\
      --build new=builds/new --base base --new new --out /tmp/m
"""

import argparse
import json
import os
import shutil
import signal
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf  # noqa: E402

STEPS = ("ab", "servers", "v6", "scale", "openloop", "strategy", "rows",
         "cross")

# Fields of a run kept in results.jsonl beside perf.py's flat numbers.
KEEP_NESTED = ("server_loss", "loss", "errors_by_kind")


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout("run took too long")


def kill_children():
    """SIGKILL what this process started and left behind (a loadgen whose
    run was cut short is not in Bench's list)."""
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


class Matrix:
    def __init__(self, a):
        self.a = a
        self.builds = {}
        for spec in a.build:
            name, _, path = spec.partition("=")
            self.builds[name] = os.path.abspath(path)
        self.t0 = time.monotonic()
        os.makedirs(a.out, exist_ok=True)
        self.jsonl = open(os.path.join(a.out, "results.jsonl"), "a")
        self.rows = []
        self.est = a.duration + a.warmup + 4.0  # a run's wall time, first

    def reserved_core(self):
        if self.a.reserved_core >= 0:
            return self.a.reserved_core
        return self.a.first_core + 2

    def left(self):
        return self.a.budget - (time.monotonic() - self.t0)

    def run(self, step, label, srv, lg=None, lcores=1, extra=(), v6=False,
            reserved=False, strategy=None, conns=None, h2=False):
        """One ewyk run; its row (or its failure) is appended to
        results.jsonl at once. None when it failed or did not fit."""
        a = self.a
        if self.left() < self.est + 2:
            perf.log(f"matrix: {step} {label}: skipped, "
                     f"{self.left():.0f} s of the budget left")
            self.record({"step": step, "label": label, "skipped": True})
            return None
        lg = lg or srv
        ns = argparse.Namespace(
            build=self.builds[srv], loadgen_build=self.builds[lg],
            eal_args=a.eal_args, server_lcores=lcores,
            client_lcores=lcores, first_core=a.first_core,
            conns=conns or a.conns, duration=a.duration, warmup=a.warmup,
            runs=1, reserved_core=(self.reserved_core() if reserved
                                   else -1),
            h2_conns=16, h2_streams=64, huge=a.huge == "yes", only="",
            profile=False, out=a.out)
        b = perf.Bench(ns)
        head = {"step": step, "label": label, "server_build": srv,
                "loadgen_build": lg, "lcores": lcores,
                "server_cores": b.srv_cores, "loadgen_cores": b.cli_cores,
                "reserved_core": ns.reserved_core if reserved else None,
                "conns": ns.conns, "extra": list(extra), "v6": v6,
                "strategy": strategy}
        perf.log(f"matrix: {step} {label}: server {srv} on "
                 f"{b.srv_cores}, loadgen {lg} on {b.cli_cores}"
                 f"{' v6' if v6 else ''} {' '.join(extra)}")
        t = time.monotonic()
        signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(int(a.duration + a.warmup + a.run_timeout))
        r = None
        try:
            if h2:
                r = b.ewyk_h2_run()
            else:
                r = b.ewyk_run(list(extra), reserved=reserved,
                               strategy=strategy, v6=v6)
        except Exception as e:  # noqa: BLE001 - record it, go on
            why = str(e)
            tail = ""
            for name in ("httpd.log", "loadgen.err"):
                try:
                    tail += f"--- {name}\n" + b.read(name)[-1500:]
                except OSError:
                    pass
            perf.log(f"matrix: {step} {label}: failed: {why}\n{tail}")
            head.update({"failed": why.splitlines()[0] if why else
                         type(e).__name__, "log_tail": tail})
        finally:
            signal.alarm(0)
            try:
                b.cleanup()
            except Exception:  # noqa: BLE001
                pass
            kill_children()
            shutil.rmtree(b.tmp, ignore_errors=True)
        wall = time.monotonic() - t
        self.est = max(self.est, wall)
        head["wall_s"] = round(wall, 1)
        if r is not None:
            for k, v in r.items():
                if isinstance(v, (int, float, str, bool)) or v is None \
                        or k in KEEP_NESTED:
                    head[k] = v
            perf.log(f"matrix:   {r['rps']:,.0f} req/s, p99 "
                     f"{r.get('p99_us', 0):.0f} us, server busy "
                     f"{r.get('server_busy_cycles_per_req', 0):.0f} "
                     f"cycles/req, loadgen "
                     f"{r.get('busy_cycles_per_req', 0):.0f}, "
                     f"{wall:.1f} s")
        self.record(head)
        self.summary()
        return head if r is not None else None

    def record(self, row):
        row["t_s"] = round(time.monotonic() - self.t0, 1)
        self.rows.append(row)
        self.jsonl.write(json.dumps(row) + "\n")
        self.jsonl.flush()

    # -- the steps -------------------------------------------------------
    def step_ab(self):
        a = self.a
        for i in range(a.pairs):
            order = (a.base, a.new) if i % 2 == 0 else (a.new, a.base)
            for bld in order:
                self.run("ab", f"pair {i + 1}: {bld}", bld)

    def step_servers(self):
        a = self.a
        for i in range(a.server_pairs):
            order = (a.base, a.new) if i % 2 == 0 else (a.new, a.base)
            for bld in order:
                self.run("servers", f"pair {i + 1}: server {bld}", bld,
                         lg=a.new)

    def step_v6(self):
        a = self.a
        for i in range(a.v6_pairs):
            order = (False, True) if i % 2 == 0 else (True, False)
            for v6 in order:
                self.run("v6", f"pair {i + 1}: IPv{6 if v6 else 4}", a.new,
                         v6=v6)

    def step_scale(self):
        a = self.a
        for n in a.scale:
            self.run("scale", f"{n} + {n} lcores", a.new, lcores=n,
                     conns=a.conns * n)

    def step_cross(self):
        a = self.a
        combos = [(a.base, a.base), (a.base, a.new), (a.new, a.new),
                  (a.new, a.base)]
        for i in range(a.cross_rounds):
            k = i % len(combos)
            for srv, lg in combos[k:] + combos[:k]:
                self.run("cross", f"round {i + 1}: server {srv}, loadgen "
                         f"{lg}", srv, lg=lg)

    def ka_max(self):
        """The keep-alive maximum of --new, one lcore, IPv4: the median of
        this invocation's runs of it, else --max-rps."""
        v = [r["rps"] for r in self.rows if "rps" in r and
             r.get("server_build") == self.a.new and
             r.get("loadgen_build") == self.a.new and
             r.get("lcores") == 1 and not r.get("v6") and
             not r.get("extra") and not r.get("strategy") and
             r["step"] in ("ab", "v6", "scale")]
        if v:
            return statistics.median(v), len(v)
        return self.a.max_rps, 0

    def step_openloop(self):
        top, n = self.ka_max()
        if not top:
            perf.log("matrix: openloop: no keep-alive maximum "
                     "(run ab, v6 or scale first, or give --max-rps)")
            return
        for frac in self.a.rates:
            rate = round(top * frac)
            self.run("openloop", f"{frac:.0%} of {top:,.0f} "
                     f"(median of {n}): {rate} req/s", self.a.new,
                     extra=["--rate", str(rate)])

    def step_strategy(self):
        for st in self.a.strategies:
            self.run("strategy", st, self.a.new, extra=["--path",
                                                        "/sleep/0"],
                     reserved=True, strategy=st)

    def step_rows(self):
        self.run("rows", "pipeline 16", self.a.new,
                 extra=["--pipeline", "16"])
        self.run("rows", "new conn/req", self.a.new, extra=["--new-conn"])
        self.run("rows", "h2 16 x 64", self.a.new, h2=True)

    # -- summary ---------------------------------------------------------
    def summary(self):
        cols = [("req/s", "rps", "{:,.0f}"), ("p50 µs", "p50_us", "{:.1f}"),
                ("p99 µs", "p99_us", "{:.1f}"),
                ("p99.9 µs", "p999_us", "{:.1f}"),
                ("server busy %", "server_busy_pct", "{:.1f}"),
                ("server busy cyc/req", "server_busy_cycles_per_req",
                 "{:,.0f}"),
                ("loadgen busy %", "busy_pct", "{:.1f}"),
                ("loadgen busy cyc/req", "busy_cycles_per_req", "{:,.0f}"),
                ("server stalls", "server_loop_stalls", "{}"),
                ("loadgen stalls", "loop_stalls", "{}"),
                ("p99 no-stall µs", "p99_nostall_us", "{:.1f}"),
                ("errors", "errors", "{}"), ("agree", "count_agree", "{}")]
        out = ["# perf_matrix summary", "",
               f"{len(self.rows)} rows, {time.monotonic() - self.t0:.0f} s",
               ""]
        for step in STEPS:
            rows = [r for r in self.rows if r["step"] == step]
            if not rows:
                continue
            out += [f"## {step}", "",
                    "| run | server | loadgen | cores | " +
                    " | ".join(c[0] for c in cols) + " |",
                    "|---|---|---|---|" + "---:|" * len(cols)]
            for r in rows:
                if "rps" not in r:
                    why = "skipped" if r.get("skipped") else \
                        "failed: " + r.get("failed", "?")
                    out.append(f"| {r['label']} | {why} |")
                    continue
                cells = []
                for _, k, fmt in cols:
                    v = r.get(k)
                    cells.append("–" if v is None else fmt.format(v))
                cores = f"{r['server_cores']} / {r['loadgen_cores']}"
                if r.get("reserved_core") is not None:
                    cores += f" + {r['reserved_core']}"
                out.append(f"| {r['label']} | {r['server_build']} | "
                           f"{r['loadgen_build']} | {cores} | " +
                           " | ".join(cells) + " |")
            out.append("")
        with open(os.path.join(self.a.out, "summary.md"), "w") as f:
            f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", action="append", required=True,
                    help="NAME=DIR, a build (DIR/app/httpd/ewyk-httpd, "
                    "DIR/app/loadgen/ewyk-loadgen); repeat")
    ap.add_argument("--base", help="the build A/B'd against --new")
    ap.add_argument("--new", required=True,
                    help="the build every other step runs")
    ap.add_argument("--steps", default=",".join(STEPS),
                    help="default: all but cross")
    ap.add_argument("--pairs", type=int, default=4)
    ap.add_argument("--server-pairs", type=int, default=3)
    ap.add_argument("--v6-pairs", type=int, default=4)
    ap.add_argument("--cross-rounds", type=int, default=3)
    ap.add_argument("--scale", default="1,2,4,7")
    ap.add_argument("--rates", default="0.5,0.25",
                    help="open-loop rates, fractions of the keep-alive "
                    "maximum")
    ap.add_argument("--max-rps", type=float, default=0,
                    help="keep-alive maximum when no run of this "
                    "invocation gives it")
    ap.add_argument("--strategies", default="pc,pec,epc,adaptive")
    ap.add_argument("--first-core", type=int, default=0)
    ap.add_argument("--reserved-core", type=int, default=-1,
                    help="core of the strategy step's reserved lcore "
                    "(default: --first-core + 2)")
    ap.add_argument("--conns", type=int, default=256,
                    help="connections (per server lcore in scale)")
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--warmup", type=float, default=1)
    ap.add_argument("--run-timeout", type=float, default=90,
                    help="seconds a run may take beyond its duration and "
                    "warm-up before it is killed and recorded as failed")
    ap.add_argument("--budget", type=float, default=3600,
                    help="seconds for the whole invocation: no run starts "
                    "that would end after it (estimated from the "
                    "slowest run so far)")
    ap.add_argument("--huge", choices=("yes", "no"), default="no")
    ap.add_argument("--eal-args", default=os.environ.get("EWYK_EAL_ARGS",
                                                          ""))
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    a.scale = [int(x) for x in a.scale.split(",") if x]
    a.rates = [float(x) for x in a.rates.split(",") if x]
    a.strategies = [x for x in a.strategies.split(",") if x]
    steps = [s for s in a.steps.split(",") if s]
    if a.steps == ",".join(STEPS):
        steps.remove("cross")
    for s in steps:
        if s not in STEPS:
            ap.error(f"unknown step {s} (steps: {', '.join(STEPS)})")
    if ({"ab", "servers", "cross"} & set(steps)) and not a.base:
        ap.error("steps ab, servers and cross need --base")
    m = Matrix(a)
    for name, path in m.builds.items():
        for prog in ("app/httpd/ewyk-httpd", "app/loadgen/ewyk-loadgen"):
            if not os.access(os.path.join(path, prog), os.X_OK):
                ap.error(f"build {name}: {path}/{prog} missing")
    for s in steps:
        perf.log(f"matrix: step {s} at {time.monotonic() - m.t0:.0f} s")
        try:
            getattr(m, "step_" + s)()
        except Exception as e:  # noqa: BLE001 - the next step may work
            perf.log(f"matrix: step {s} broke: {e}")
    m.summary()
    perf.log(f"matrix: done in {time.monotonic() - m.t0:.0f} s; "
             f"{a.out}/summary.md")


if __name__ == "__main__":
    main()

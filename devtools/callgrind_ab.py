#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instructions per request of ewyk-httpd builds, counted by callgrind.

Cycle counts on a shared VM move by 10-15 % from run to run; instruction
counts do not. Each build's ewyk-httpd runs under `valgrind
--tool=callgrind` on one end of a veth pair (net_af_packet: memif's shared
memory does not work under valgrind), ewyk-loadgen (native, from the first
build) drives `GET /` on the other end, twice, for a short and a long
duration. The worker lcore (producer_loop(), everything it runs) costs
a*loops + b*requests instructions; the
two runs give a (per idle loop iteration) and b (per request), and the
inclusive cost of ewyk_net_input() per request (packets in through TCP,
HTTP and the handler) is printed beside them. Run as root:

  devtools/callgrind_ab.py build /path/to/other/build [--short 3 --long 12]
      [--new-conn | --pipeline N]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import time

# Per process, so that runs by several people on one machine do not share
# a veth pair or an EAL file prefix.
TAG = f"cg{os.getpid() % 100000}"
VETH = (TAG + "a", TAG + "b")


def sh(cmd, check=True):
    return subprocess.run(cmd, shell=True, check=check, text=True,
                          capture_output=True).stdout


def one_run(build, loadgen, seconds, tmp, tag, extra):
    d = os.path.join(tmp, tag)
    os.makedirs(d)
    out = os.path.join(d, "cg.out")
    eal = ["--no-pci", "--no-huge", "-m", "1024",
           "--log-level=lib.eal:warning"]
    srv = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         os.path.join(build, "app/httpd/ewyk-httpd"), "-l", "0",
         f"--file-prefix={TAG}-s-{tag}", f"--vdev=net_af_packet0,iface={VETH[0]}"]
        + eal + ["--", "--ip", "10.9.0.1/24", "--port", "80",
                 "--stats-interval", "0"],
        stdout=open(os.path.join(d, "s.log"), "w"), stderr=subprocess.STDOUT)
    end = time.monotonic() + 120
    while "polling" not in open(os.path.join(d, "s.log")).read():
        if srv.poll() is not None or time.monotonic() > end:
            raise RuntimeError(f"ewyk-httpd under valgrind did not start "
                               f"(see {d}/s.log)")
        time.sleep(0.5)
    lg = subprocess.run(
        ["taskset", "-c", "1", loadgen, "-l", "1",
         f"--file-prefix={TAG}-c-{tag}", f"--vdev=net_af_packet0,iface={VETH[1]}"]
        + eal + ["--", "--ip", "10.9.0.2/24", "--target", "10.9.0.1:80",
                 "--conns", "32", "--duration", str(seconds),
                 "--timeout", "20000", "--quiet"] + extra,
        capture_output=True, text=True, timeout=seconds + 120)
    res = json.loads(lg.stdout.splitlines()[0])
    srv.send_signal(2)
    srv.wait(timeout=600)
    log = open(os.path.join(d, "s.log")).read()
    m = re.search(r"^\d+\s+worker s0\s+(\d+)", log, re.M)
    r = re.search(r"^http: requests=(\d+)", log, re.M)
    if m is None or r is None:
        raise RuntimeError(f"no loop or request count in {d}/s.log")
    incl = sh(f"callgrind_annotate --inclusive=yes {out}")

    def ir(fn):
        m = re.search(r"^\s*([\d,]+) .*\?\?\?:" + fn + r" \[", incl, re.M)
        return int(m.group(1).replace(",", "")) if m else 0

    return {"loops": int(m.group(1)), "requests": int(r.group(1)),
            "loadgen_responses": res["responses_total"],
            "worker": ir("producer_loop"),
            "net_input": ir("ewyk_net_input")}


def fit(s, l):
    """Solve a*loops + b*requests = worker instructions over the runs."""
    det = s["loops"] * l["requests"] - l["loops"] * s["requests"]
    a = (s["worker"] * l["requests"] -
         l["worker"] * s["requests"]) / det
    b = (s["loops"] * l["worker"] -
         l["loops"] * s["worker"]) / det
    return a, b


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--short", type=float, default=3)
    ap.add_argument("--long", type=float, default=12)
    ap.add_argument("--new-conn", action="store_true",
                    help="a new connection per request (ewyk-loadgen "
                    "--new-conn) instead of keep-alive")
    ap.add_argument("--pipeline", type=int, default=1,
                    help="requests in flight per connection (ewyk-loadgen "
                    "--pipeline N)")
    a = ap.parse_args()
    sh(f"ip link del {VETH[0]}", check=False)
    sh(f"ip link add {VETH[0]} type veth peer name {VETH[1]}")
    tmp = tempfile.mkdtemp(prefix="ewyk-cgab-")
    loadgen = os.path.join(a.builds[0], "app/loadgen/ewyk-loadgen")
    try:
        for v in VETH:
            sh(f"sysctl -qw net.ipv6.conf.{v}.disable_ipv6=1")
            sh(f"ip link set {v} up")
        print("build | instructions/request (loop) | per idle loop | "
              "ewyk_net_input()/request | requests (short, long)")
        for i, b in enumerate(a.builds):
            extra = ["--new-conn"] if a.new_conn else []
            if a.pipeline > 1:
                extra += ["--pipeline", str(a.pipeline)]
            s = one_run(b, loadgen, a.short, tmp, f"{i}s", extra)
            lo = one_run(b, loadgen, a.long, tmp, f"{i}l", extra)
            for r in (s, lo):
                if r["requests"] != r["loadgen_responses"]:
                    raise RuntimeError(f"counts disagree: {r}")
            per_loop, per_req = fit(s, lo)
            print(f"{b} | {per_req:,.0f} | {per_loop:,.0f} | "
                  f"{lo['net_input'] / lo['requests']:,.0f} | "
                  f"{s['requests']}, {lo['requests']}")
    finally:
        sh(f"ip link del {VETH[0]}", check=False)
    print(f"(callgrind outputs in {tmp})")


if __name__ == "__main__":
    main()

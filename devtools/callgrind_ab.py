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

  devtools/callgrind_ab.py build [/path/to/other/build] [--short 3 --long 12]
      [--new-conn | --pipeline N | --h2 [--streams 16] [--conns 8]]
      [--rate R]
      [--v6 | --family 4|6|both]
      [--server-args '--tcp-max-conns 16384'] [--mem MiB]

--h2 drives the same `GET /` over HTTP/2 (h2c, prior knowledge:
ewyk-loadgen --h2 --streams M on --conns connections), and the requests
are lib/http2's count; the per-request figure is then an HTTP/2 stream's
instructions, everything of its connection's frames included.

With --v6 each build is measured over IPv4 and then over IPv6 on the same
veth (--ip6 on both ends, --target [fd00:9::1]:80) and the difference per
request is printed: what the second family costs, on one build. --family 6
measures IPv6 only.

--rate R drives an open loop (ewyk-loadgen --rate): the short run at R
requests/s, the long one at 2R, so that requests and loop iterations
(about the same number per second at either rate, the loops mostly idle
under callgrind) are independent enough for the fit. R must be far
below what the slower side does under callgrind (a few thousand).

--side loadgen measures ewyk-loadgen instead: each build's ewyk-loadgen
runs under callgrind and drives ewyk-httpd (native, from the first build);
its loop's instructions are fitted the same way over its own loop count
(the JSON's loops_total) and its responses. --side both runs both under
callgrind in the same run (the server from the first build, the loadgen
from each build) and prints both figures and their ratio: the loadgen's
instructions per request against the server's, from one run.

--sim adds valgrind's cache and branch simulation (--cache-sim=yes
--branch-sim=yes, the host's cache sizes) to the measured side and prints,
per request of the long run, ewyk_net_input()'s inclusive L1 data misses
(reads + writes), last-level data misses and mispredicted branches
(conditional + indirect), then the same for each function of the
listed --sim-fns (self cost): where one build or family touches more
cache lines than another, which instruction counts do not show.

--dual-stack gives the server its IPv6 address in the IPv4 runs as well.
Without it the IPv4 server has no IPv6 and runs no neighbour or path MTU
housekeeping; under valgrind a request takes so long that that
housekeeping (every 10 ms) weighs on each one, in instructions and in the
cache lines it evicts.
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import time

# Names of this run alone: several runs at once (other checkouts on the
# same machine) must not share a veth pair or an EAL file prefix.
RUN = f"cg{os.getpid() % 1000000}"
VETH = (RUN + "A", RUN + "B")

SRV = {4: ["--ip", "10.9.0.1/24"],
       6: ["--ip", "10.9.0.1/24", "--ip6", "fd00:9::1/64"]}
CLI = {4: ["--ip", "10.9.0.2/24", "--target", "10.9.0.1:80"],
       6: ["--ip", "10.9.0.2/24", "--ip6", "fd00:9::2/64",
           "--target", "[fd00:9::1]:80"]}


def sh(cmd, check=True):
    return subprocess.run(cmd, shell=True, check=check, text=True,
                          capture_output=True).stdout


def cg_ir(out, fn):
    """Inclusive instructions of function fn in a callgrind output."""
    incl = sh(f"callgrind_annotate --inclusive=yes --auto=no --show=Ir "
              f"{out}")
    # "???:fn" without debug information, "path/file.c:fn" with it.
    m = re.search(r"^\s*([\d,]+) \([^)]*\)\s+\S*:" + fn + r" \[", incl,
                  re.M)
    return int(m.group(1).replace(",", "")) if m else 0


SIM_EVENTS = ("Ir", "D1mr", "D1mw", "DLmr", "DLmw", "Bcm", "Bim")


def cg_events(out, fn, inclusive=True):
    """The simulated events (SIM_EVENTS) of function fn, inclusive or
    self, in a callgrind output made with --cache-sim and --branch-sim."""
    txt = sh(f"callgrind_annotate --inclusive={'yes' if inclusive else 'no'}"
             f" --auto=no --threshold=100 --show={','.join(SIM_EVENTS)} "
             f"{out}")
    for ln in txt.splitlines():
        m = re.match(r"^\s*(.*?)\s+\S*:" + re.escape(fn) + r" \[", ln)
        if m:
            # "1,234 (0.5%)" per event, or "." for none.
            nums = re.findall(r"([\d,]+|\.)(?: \([^)]*\))?", m.group(1))
            vals = [0 if v == "." else int(v.replace(",", ""))
                    for v in nums]
            if len(vals) == len(SIM_EVENTS):
                return dict(zip(SIM_EVENTS, vals))
    return dict.fromkeys(SIM_EVENTS, 0)


def sim_row(ev, n):
    """Per-request D1 misses, LL data misses and mispredicts."""
    return (f"Ir {ev['Ir'] / n:,.0f}, D1 miss {(ev['D1mr'] + ev['D1mw']) / n:.2f}"
            f" (r {ev['D1mr'] / n:.2f}, w {ev['D1mw'] / n:.2f}), "
            f"LLd miss {(ev['DLmr'] + ev['DLmw']) / n:.2f}, "
            f"mispredicts {(ev['Bcm'] + ev['Bim']) / n:.2f}")


def one_run(build, loadgen, seconds, tmp, tag, extra, fam=4, srv_args=(),
            mem=1024, conns=32, h2=False, srv_cg=True, lg_cg=False,
            sim=False, dual=False):
    d = os.path.join(tmp, tag)
    os.makedirs(d)
    out = os.path.join(d, "cg.out")
    lg_out = os.path.join(d, "cg-loadgen.out")
    eal = ["--no-pci", "--no-huge", "-m", str(mem),
           "--log-level=lib.eal:warning"]
    cg = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    if sim:
        cg += ["--cache-sim=yes", "--branch-sim=yes"]
    srv = subprocess.Popen(
        (cg if srv_cg else ["taskset", "-c", "0"]) +
        [os.path.join(build, "app/httpd/ewyk-httpd"), "-l", "0",
         f"--file-prefix={RUN}-s-{tag}", f"--vdev=net_af_packet0,iface={VETH[0]}"]
        + eal + ["--"] + SRV[6 if dual else fam] + ["--port", "80",
                 "--stats-interval", "0"] + list(srv_args),
        stdout=open(os.path.join(d, "s.log"), "w"), stderr=subprocess.STDOUT)
    # A large --tcp-max-conns builds its pools under valgrind: minutes.
    end = time.monotonic() + 600
    while "polling" not in open(os.path.join(d, "s.log")).read():
        if srv.poll() is not None or time.monotonic() > end:
            raise RuntimeError(f"ewyk-httpd under valgrind did not start "
                               f"(see {d}/s.log)")
        time.sleep(0.5)
    lg_pre = ["taskset", "-c", "1"]
    if lg_cg:
        lg_pre += ["valgrind", "--tool=callgrind",
                   f"--callgrind-out-file={lg_out}"] + (
                       ["--cache-sim=yes", "--branch-sim=yes"] if sim else [])
    lg = subprocess.run(
        lg_pre + [loadgen, "-l", "1",
         f"--file-prefix={RUN}-c-{tag}", f"--vdev=net_af_packet0,iface={VETH[1]}"]
        + eal + ["--"] + CLI[fam] + ["--conns", str(conns),
                 "--duration", str(seconds),
                 "--timeout", "20000", "--quiet"] + extra,
        capture_output=True, text=True,
        timeout=seconds + (600 if lg_cg else 120))
    res = json.loads(lg.stdout.splitlines()[0])
    srv.send_signal(2)
    srv.wait(timeout=600)
    log = open(os.path.join(d, "s.log")).read()
    m = re.search(r"^\d+\s+worker s0\s+(\d+)", log, re.M)
    r = re.search(r"^http2: requests=(\d+)" if h2 else
                  r"^http: requests=(\d+)", log, re.M)
    if m is None or r is None:
        raise RuntimeError(f"no loop or request count in {d}/s.log")
    got = {"loops": int(m.group(1)), "requests": int(r.group(1)),
           "loadgen_responses": res["responses_total"],
           "lg": {"loops": res["loops_total"],
                  "requests": res["responses_total"]}}
    if srv_cg:
        got["worker"] = cg_ir(out, "producer_loop")
        got["net_input"] = cg_ir(out, "ewyk_net_input")
        got["out"] = out
    if lg_cg:
        got["lg"]["worker"] = cg_ir(lg_out, "producer_loop")
        got["lg"]["net_input"] = cg_ir(lg_out, "ewyk_net_input")
        got["lg"]["out"] = lg_out
    return got


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
    ap.add_argument("--rate", type=float, default=0,
                    help="open loop: the short run at RATE requests/s, "
                    "the long one at twice that (ewyk-loadgen --rate; "
                    "with --new-conn or --pipeline too)")
    ap.add_argument("--h2", action="store_true",
                    help="HTTP/2 streams (ewyk-loadgen --h2) instead of "
                    "HTTP/1.1")
    ap.add_argument("--streams", type=int, default=16,
                    help="with --h2: streams per connection (default 16)")
    ap.add_argument("--conns", type=int, default=0,
                    help="connections (default 32; 8 with --h2)")
    ap.add_argument("--v6", action="store_true",
                    help="measure each build over IPv4 and over IPv6 and "
                    "print the difference (same as --family both)")
    ap.add_argument("--family", choices=("4", "6", "both"), default="4",
                    help="address family of the requests (default 4)")
    ap.add_argument("--server-args", default="",
                    help="more ewyk-httpd options, one string (e.g. "
                    "'--tcp-max-conns 16384'), for every build")
    ap.add_argument("--mem", type=int, default=1024,
                    help="MiB of memory for each process (-m)")
    ap.add_argument("--side", choices=("server", "loadgen", "both"),
                    default="server",
                    help="whose instructions: ewyk-httpd's (default), "
                    "ewyk-loadgen's, or both in the same run")
    ap.add_argument("--dual-stack", action="store_true",
                    help="the server has its IPv6 address in the IPv4 runs "
                    "too (its IPv6 housekeeping then runs in both), so "
                    "that the families differ in their traffic alone")
    ap.add_argument("--sim", action="store_true",
                    help="cache and branch simulation: L1/LL data misses "
                    "and mispredicts per request (slower)")
    ap.add_argument("--sim-fns", default="",
                    help="with --sim: comma-separated functions whose "
                    "self misses per request are printed too")
    a = ap.parse_args()
    fams = {"4": [4], "6": [6], "both": [4, 6]}[
        "both" if a.v6 else a.family]
    extra = ["--new-conn"] if a.new_conn else []
    if a.pipeline > 1:
        extra += ["--pipeline", str(a.pipeline)]
    if a.h2:
        extra = ["--h2", "--streams", str(a.streams)]
    conns = a.conns or (8 if a.h2 else 32)
    sh(f"ip link del {VETH[0]}", check=False)
    sh(f"ip link add {VETH[0]} type veth peer name {VETH[1]}")
    tmp = tempfile.mkdtemp(prefix="ewyk-cgab-")
    loadgen = os.path.join(a.builds[0], "app/loadgen/ewyk-loadgen")
    try:
        for v in VETH:
            # The kernel's own IPv6 on the pair (DAD, router solicitations)
            # stays out of the counts; the two ends speak it themselves.
            sh(f"sysctl -qw net.ipv6.conf.{v}.disable_ipv6=1")
            sh(f"ip link set {v} up")
        print("build | side | family | instructions/request (loop) | "
              "per idle loop | ewyk_net_input()/request | "
              "requests (short, long)")
        sides = {"server": ["server"], "loadgen": ["loadgen"],
                 "both": ["server", "loadgen"]}[a.side]
        for i, b in enumerate(a.builds):
            got = {}
            for fam in fams:
                kw = dict(fam=fam, srv_args=a.server_args.split(),
                          mem=a.mem, conns=conns, h2=a.h2,
                          srv_cg="server" in sides,
                          lg_cg="loadgen" in sides, sim=a.sim,
                          dual=a.dual_stack)
                # The server of the first build when it is not the
                # one measured; each build's loadgen when it is.
                srv_b = b if a.side == "server" else a.builds[0]
                lg_bin = (os.path.join(b, "app/loadgen/ewyk-loadgen")
                          if a.side != "server" else loadgen)
                rs_, rl_ = ((["--rate", str(a.rate)],
                             ["--rate", str(2 * a.rate)]) if a.rate > 0
                            else ([], []))
                s = one_run(srv_b, lg_bin, a.short, tmp, f"{i}s{fam}",
                            extra + rs_, **kw)
                lo = one_run(srv_b, lg_bin, a.long, tmp, f"{i}l{fam}",
                             extra + rl_, **kw)
                for r in (s, lo):
                    if r["requests"] != r["loadgen_responses"]:
                        raise RuntimeError(f"counts disagree: {r}")
                per = {}
                for side in sides:
                    rs, rl = ((s, lo) if side == "server" else
                              (s["lg"], lo["lg"]))
                    per_loop, per_req = fit(rs, rl)
                    ni = rl["net_input"] / rl["requests"]
                    per[side] = per_req
                    if side == "server":
                        got[fam] = (per_req, ni)
                    print(f"{b} | {side} | IPv{fam} | {per_req:,.0f} | "
                          f"{per_loop:,.0f} | {ni:,.0f} | "
                          f"{rs['requests']}, {rl['requests']}",
                          flush=True)
                    if a.sim:
                        n = rl["requests"]
                        ev = cg_events(rl["out"], "ewyk_net_input")
                        print(f"  ewyk_net_input() inclusive per request: "
                              f"{sim_row(ev, n)}", flush=True)
                        for fn in filter(None, a.sim_fns.split(",")):
                            ev = cg_events(rl["out"], fn, inclusive=False)
                            print(f"  {fn} self per request: "
                                  f"{sim_row(ev, n)}", flush=True)
                if len(per) == 2:
                    print(f"{b} | loadgen / server | IPv{fam} | "
                          f"{per['loadgen'] / per['server']:.2f} | | | ",
                          flush=True)
            if len(got) == 2:
                d, dn = (got[6][0] - got[4][0], got[6][1] - got[4][1])
                print(f"{b} | server | IPv6 - IPv4 | {d:+,.0f} "
                      f"({got[6][0] / got[4][0]:.3f}x) | | {dn:+,.0f} | ",
                      flush=True)
    finally:
        sh(f"ip link del {VETH[0]}", check=False)
    print(f"(callgrind outputs in {tmp})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The per-core HTTP benchmark: ewyk-httpd <-> net_memif <->
ewyk-loadgen, beside nginx and h2o driven by wrk over kernel loopback, on
the same cores, same body ("hello world\\n"), connections and duration.
HTTP/2 rows (h2c, prior knowledge) the same way: ewyk-loadgen --h2
--streams M against ewyk-httpd, h2load -m M against nginx and h2o, with
--h2-conns connections (skipped for ewyk-httpd while it has no HTTP/2).
Writes docs/perf/README.md (table of medians of --runs runs) and
docs/perf/perf.png. Run as root from the repository (devtools/perf.sh).

Cores: the server gets --server-lcores cores starting at --first-core,
the client the --client-lcores cores after them (defaults: server core 0,
client core 1).

On a machine without DPDK installed, run it from a bundle made by
devtools/bundle.sh (its env.sh sets EWYK_EAL_ARGS, the EAL options both
processes get beside perf.py's own, e.g. `-d DIR` for the PMD plugins).
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "dts"))
from framework import telemetry  # noqa: E402

BODY = "hello world\n"
IP_SRV, IP_CLI = "10.88.0.1", "10.88.0.2"
# The IPv6 rows: the same ports with these addresses too (unique local).
IP6_SRV, IP6_CLI = "fd88::1", "fd88::2"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Bench:
    def __init__(self, a):
        self.a = a
        self.build = a.build
        # ewyk-loadgen may come from another build (A/B of the servers
        # with one load generator).
        self.loadgen_build = a.loadgen_build or a.build
        self.eal_extra = a.eal_args.split()
        self.tmp = tempfile.mkdtemp(prefix="ewyk-perf-")
        os.chmod(self.tmp, 0o755)  # h2o drops to nobody
        self.tag = str(os.getpid())
        ncores = a.server_lcores + a.client_lcores
        self.srv_cores = list(range(a.first_core,
                                    a.first_core + a.server_lcores))
        self.cli_cores = list(range(a.first_core + a.server_lcores,
                                    a.first_core + ncores))
        self.huge = a.huge
        self.procs = []
        self.keep_tmp = False
        self.profile_next = False  # profile the next ewyk run
        self.failures = []
        self.skipped = []
        self.tel_requests = None
        self.httpd = None
        self.httpd_result = (None, None)

    # -- helpers ---------------------------------------------------------
    def mem(self, mb):
        if self.huge:
            return ["--in-memory", "-m", str(mb)]
        return ["--no-huge", "-m", str(mb), "--no-shconf"]

    def spawn(self, argv, logname):
        f = open(os.path.join(self.tmp, logname), "w")
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def stop(self, p, sig=signal.SIGINT):
        if p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        if p in self.procs:
            self.procs.remove(p)

    def cleanup(self):
        for p in list(self.procs):
            self.stop(p, signal.SIGKILL)

    def read(self, name):
        with open(os.path.join(self.tmp, name)) as f:
            return f.read()

    # -- ewyk ------------------------------------------------------------
    def httpd_start(self, reserved=False, strategy=None, v6=False, args=(),
                    mem=1024):
        self.prefix = f"ewyk-perf-{self.tag}-httpd"
        self.sock = os.path.join(self.tmp, "memif.sock")
        if os.path.exists(self.sock):  # left by a server that crashed
            os.unlink(self.sock)
        cores = ",".join(map(str, self.srv_cores))
        if reserved:
            # The reserved lcore shares the last server core: the server
            # still gets exactly its cores.
            # With --reserved-core it gets a core of its own.
            n = len(self.srv_cores)
            lc = ",".join(f"{i}@{c}" for i, c in enumerate(self.srv_cores))
            rc = self.a.reserved_core
            if rc >= 0:
                cores += f",{rc}"
            eal = ["--lcores",
                   f"{lc},{n}@{rc if rc >= 0 else self.srv_cores[-1]}"]
        else:
            eal = ["-l", cores]
        # memif rings of 4,096 descriptors (rsize=12), a NIC's usual
        # size; memif's default 1,024 overflows whenever one side is
        # descheduled for a moment, and each frame lost costs TCP an RTO.
        argv = (["taskset", "-c", cores,
                 os.path.join(self.build, "app/httpd/ewyk-httpd")] + eal +
                ["--no-pci", f"--file-prefix={self.prefix}",
                 f"--vdev=net_memif0,role=server,socket={self.sock},"
                 "socket-abstract=no,rsize=12",
                 "--log-level=lib.eal:warning"] + self.mem(mem) +
                self.eal_extra +
                ["--", "--ip", f"{IP_SRV}/24", "--port", "80",
                 "--stats-interval", "0"] +
                (["--ip6", f"{IP6_SRV}/64"] if v6 else []) +
                (["--reserved", "1"] if reserved else []) +
                (["--strategy", strategy] if strategy else []) + list(args))
        self.httpd = self.spawn(argv, "httpd.log")
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if "polling" in self.read("httpd.log"):
                return
            if self.httpd.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError("ewyk-httpd did not start:\n" +
                           self.read("httpd.log"))

    def httpd_busy(self):
        """Busy cycles of the server lcores (telemetry /ewyk/stats), and
        the HTTP requests counted (total.http_requests)."""
        st = None
        for _ in range(20):
            try:
                st = telemetry.query(self.prefix, "/ewyk/stats")
                break
            except Exception as e:  # noqa: BLE001 - busy machine: retry
                err = e
                time.sleep(0.25)
        if st is None:
            log(f"perf: telemetry of ewyk-httpd: {err}")
            return None
        total = 0
        # The loops' stalls and packets by iteration length, summed over
        # the server lcores (what the server's loop adds to a request).
        self.tel_loop = {"stalls": 0, "stall_cycles": 0, "hist": []}
        for k, v in st.items():
            if k.startswith("lcore_") and isinstance(v, dict):
                total += v.get("busy_cycles", 0)
                tl = self.tel_loop
                tl["stalls"] += v.get("loop_stalls", 0)
                tl["stall_cycles"] += v.get("loop_stall_cycles", 0)
                h = v.get("pkts_by_iter_log2_us", [])
                tl["hist"] = [a + b for a, b in zip(
                    tl["hist"] or [0] * len(h), h)]
        self.tel_requests = st.get("total", {}).get("http_requests")
        # Memory per connection, TCP and HTTP (shard 0's, as every
        # shard's), and the connections idle when read.
        sh0 = st.get("shard_0", {})
        self.tel_conn_mem = sh0.get("conn_mem_bytes")
        self.tel_idle = sum(v.get("http_conns_idle", 0) for k, v in
                            st.items() if k.startswith("shard_")
                            and isinstance(v, dict))
        return total

    def httpd_stop(self):
        self.stop(self.httpd)
        text = self.read("httpd.log")
        m = re.search(r"^http: requests=(\d+) resp_2xx=(\d+)", text, re.M)
        if not m:
            log(f"perf: no http line in ewyk-httpd's stats (exit "
                f"{self.httpd.returncode}; log kept in {self.tmp}):\n" +
                text[-1500:])
            self.keep_tmp = True
            return None, None
        requests, ok = int(m.group(1)), int(m.group(2))
        # Loss and its recovery, server side, whole run: TCP's
        # retransmissions and timeouts and back-pressure stops (its
        # `tcp:` line), lib/net's frames dropped at a full TX (drops by
        # reason, all shards).
        self.httpd_loss = {}
        m = re.search(r"^tcp:(.*)$", text, re.M)
        for k, v in re.findall(r" (\w+)=(\d+)", m.group(1) if m else ""):
            if k in ("retrans_segs", "fast_retrans", "rto", "tx_blocked"):
                self.httpd_loss[k] = int(v)
        m = re.search(r"^\s+drop_tx_full\s+(\d+)", text, re.M)
        self.httpd_loss["drop_tx_full"] = int(m.group(1)) if m else 0
        # HTTP/2 streams are counted on their own line.
        m = re.search(r"^http2: requests=(\d+) resp_2xx=(\d+)", text, re.M)
        if m:
            requests += int(m.group(1))
            ok += int(m.group(2))
        return requests, ok

    def loadgen(self, extra, on_json=True, conns=None, v6=False, mem=1024,
                marks=False):
        """marks: --window-marks, and the server's busy cycles read as the
        measured window opens and closes (r["_busy_window"])."""
        cores = ",".join(map(str, self.cli_cores))
        argv = (["taskset", "-c", cores,
                 os.path.join(self.loadgen_build,
                              "app/loadgen/ewyk-loadgen"),
                 "-l", cores, "--no-pci",
                 f"--file-prefix=ewyk-perf-{self.tag}-loadgen",
                 f"--vdev=net_memif0,role=client,socket={self.sock},"
                 "socket-abstract=no,rsize=12",
                 "--log-level=lib.eal:warning"] + self.mem(mem) +
                self.eal_extra + ["--", "--ip", f"{IP_CLI}/24"] +
                (["--ip6", f"{IP6_CLI}/64", "--target", f"[{IP6_SRV}]:80"]
                 if v6 else ["--target", f"{IP_SRV}:80"]) +
                ["--conns", str(conns or self.a.conns), "--duration",
                 str(self.a.duration), "--warmup", str(self.a.warmup),
                 "--quiet", "--hold"] +
                (["--window-marks"] if marks else []) + extra)
        errf = open(os.path.join(self.tmp, "loadgen.err"), "w")
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errf,
                             text=True)
        # The JSON line comes once every connection is closed, before the
        # loadgen lets go of its port: the server's counters are final
        # then, and it is still up (a memif server may crash when its peer
        # disconnects: see the report).
        window = {}
        line = p.stdout.readline()
        while line.startswith('{"window"'):
            window[json.loads(line)["window"]] = self.httpd_busy()
            line = p.stdout.readline()
        busy = self.httpd_busy() if on_json else None
        # --hold: the loadgen keeps its port up until the server is gone,
        # so the memif server never polls a departing peer.
        if self.httpd is not None:
            self.httpd_result = self.httpd_stop()
        p.send_signal(signal.SIGINT)
        rest = p.stdout.read()
        p.wait(timeout=60)
        errf.close()
        with open(os.path.join(self.tmp, "loadgen.log"), "a") as f:
            f.write(" ".join(argv) + "\n" + self.read("loadgen.err") +
                    line + rest)
        if p.returncode != 0 or not line:
            raise RuntimeError(f"ewyk-loadgen exited {p.returncode}:\n"
                               + self.read("loadgen.err")[-2000:])
        assert rest == "", rest
        r = json.loads(line)
        r["_busy_at_json"] = busy
        r["_busy_window"] = (window.get("open"), window.get("closed"))
        return r

    def perf_record_start(self):
        """linux-perf on the server cores, in the measured window."""
        if not shutil.which("perf"):
            log("perf: no perf (linux-perf): no profile")
            return None
        self.perf_data = os.path.join(self.tmp, "perf.data")
        delay = 2.5 + self.a.warmup  # the loadgen's start-up, its warm-up
        secs = max(1, min(3, self.a.duration - 1))
        # The server process only: its cores are shared with whatever else
        # the machine runs.
        return self.spawn(["sh", "-c", f"sleep {delay}; exec perf record "
                           f"-q -p {self.httpd.pid} -o {self.perf_data} -- "
                           f"sleep {secs}"], "perf-record.log")

    def perf_top(self, proc, cycles_per_req):
        """The profile of one run: every symbol with at least 0.1 % of the
        server's samples, heaviest first, each with its share of the
        run's server core cycles per request."""
        proc.wait(timeout=60)
        out = subprocess.run(["perf", "report", "-i", self.perf_data,
                              "--no-children", "--sort", "dso,sym",
                              "--stdio", "--percent-limit", "0.1"],
                             capture_output=True, text=True).stdout
        top = []
        for ln in out.splitlines():
            m = re.match(r"^\s+([\d.]+)%\s+(\S+)\s+\[.\]\s+(.+?)\s*$", ln)
            if m:
                pct = float(m.group(1))
                top.append({"pct": pct, "dso": m.group(2),
                            "sym": m.group(3),
                            "cycles_per_req": pct / 100 * cycles_per_req})
        return top

    def ewyk_run(self, extra, reserved=False, profile=None, strategy=None,
                 conns=None, v6=False, idle=0):
        """One run; v6: over IPv6 (both ends get an --ip6, the loadgen
        targets the server's IPv6 address), the rest as over IPv4; idle:
        that many idle keep-alive connections held beside the run."""
        if self.a.client_lcores > self.a.server_lcores:
            # memif: the client asks for a queue per lcore, and a client
            # with more queues than its server never comes up.
            raise RuntimeError("ewyk rows need --client-lcores <= "
                               "--server-lcores (one memif queue each)")
        srv_args, srv_mem, cli_mem = [], 1024, 1024
        if idle:
            # Room for the idle set beside the measuring connections, a
            # source address per 25,000 (a quarter of 28,232 local ports
            # spare), keep-alive beyond the run; memory at ~1 KiB a
            # connection on each side, beside 1 GiB.
            cap = 1 << max(idle + 2 * self.a.conns + 1024, 4096).bit_length()
            cap = min(cap, 1 << 20)
            mb = 1024 + cap // 1024
            srv_args = ["--tcp-max-conns", str(cap),
                        "--keepalive-timeout", "3600"]
            srv_mem = cli_mem = mb
            # The server's per-source shares (a quarter of the capacity,
            # TCP's at most 65,535) hold: enough sources that each stays
            # at three quarters of its share, and within an address's
            # local ports.
            share = min(cap // 4, 65535) * 3 // 4
            nsrc = min(64, max(idle // 25000,
                               (idle + self.a.conns) // share) + 1)
            extra = extra + ["--idle", str(idle), "--src-addrs", str(nsrc),
                             "--timeout", "30000"]
        self.httpd_start(reserved, strategy, v6, srv_args, srv_mem)
        b0 = self.httpd_busy()
        if profile is None:
            profile = self.profile_next
        loop0 = getattr(self, "tel_loop", None)
        prof = self.perf_record_start() if profile else None
        r = self.loadgen(extra, conns=conns, v6=v6, mem=cli_mem,
                         marks=bool(idle))
        if idle:
            # Read by httpd_busy() when the JSON came: the idle set is
            # closed by then (after its second request), so the idle count
            # there is 0; the memory per connection is a size, the same.
            r["conn_mem_bytes"] = getattr(self, "tel_conn_mem", None)
        b1 = r.pop("_busy_at_json")
        loop1 = getattr(self, "tel_loop", None)
        if loop0 is not None and loop1 is not None and b1 is not None:
            # Over the whole run: the server loop's stalls (iterations of
            # 200 us or more: the kernel ran something else) as a share of
            # the run, and its packets by the length of the iteration that
            # took them (log2 us buckets: < 1, [1, 2), [2, 4), ...).
            hist = [a - b for a, b in zip(loop1["hist"], loop0["hist"])]
            r["server_loop_stalls"] = loop1["stalls"] - loop0["stalls"]
            r["server_loop_stall_ms"] = 1000.0 * (
                loop1["stall_cycles"] - loop0["stall_cycles"]) / r["tsc_hz"]
            r["server_pkts_by_iter_log2_us"] = hist
        w0, w1 = r.pop("_busy_window")
        tel_requests = self.tel_requests
        requests, ok2xx = self.httpd_result
        r["server_loss"] = getattr(self, "httpd_loss", {})
        r["server_crashed"] = requests is None
        if requests is None and b1 is not None:
            # Its counters as read when the loadgen printed its line.
            requests = tel_requests
        r["server_requests"] = requests
        r["server_2xx"] = ok2xx
        # The server's count over the whole run against the loadgen's:
        # the server also answered the idle set's requests (one when each
        # connection opened, one when it was used again), which the
        # loadgen counts apart from its measured responses_total.
        lg = r["responses_total"]
        idle_set = r.get("idle", {})
        lg_all = lg + idle_set.get("answered", 0) + idle_set.get("reused", 0)
        r["count_agree"] = requests is not None and \
            abs(requests - lg_all) <= 0.01 * max(lg_all, 1)
        if idle and w0 is not None and w1 is not None:
            # The measured window only: the idle set's opening (a million
            # connections and their requests) and its reuse after the
            # window are not the 256 connections' requests. The window's
            # requests are the loadgen's (its edges are read by telemetry
            # a few milliseconds late, at both ends alike).
            r["server_busy_cycles_per_req"] = (w1 - w0) / max(
                r["requests"], 1)
            r["server_busy_pct"] = min(100.0, 100.0 * (w1 - w0) /
                                       (r["tsc_hz"] * len(self.srv_cores) *
                                        r["duration_s"]))
        elif b0 is not None and b1 is not None:
            # Busy cycles per request over the whole run; the busy share
            # in the measured window is that times the measured rate (the
            # run also holds the loadgen's start-up, when nothing comes).
            r["server_busy_cycles_per_req"] = (b1 - b0) / max(lg, 1)
            r["server_busy_pct"] = min(100.0, 100.0 * r["rps"] *
                                       r["server_busy_cycles_per_req"] /
                                       (r["tsc_hz"] * len(self.srv_cores)))
        r["server_cycles_per_req"] = (
            r["tsc_hz"] * len(self.srv_cores) * r["duration_s"] /
            max(r["requests"], 1))
        if prof is not None:
            top = self.perf_top(prof, r["server_cycles_per_req"])
            r["profile"] = top
            r["stages"] = stages_of(top)
        return r

    def httpd_h2(self):
        """Why ewyk-httpd cannot take the h2 rows, or None when it can: it
        serves h2c once it is linked with libnghttp2 (lib/http2)."""
        path = os.path.join(self.build, "app/httpd/ewyk-httpd")
        out = subprocess.run(["ldd", path], capture_output=True,
                             text=True).stdout
        if "libnghttp2" in out:
            return None
        return (f"{path} has no HTTP/2 (not linked with libnghttp2): "
                "the ewyk h2 row needs lib/http2")

    def ewyk_h2_run(self):
        why = self.httpd_h2()
        if why is not None:
            raise Skipped(why)
        return self.ewyk_run(["--h2", "--streams", str(self.a.h2_streams)],
                             conns=self.a.h2_conns)

    # -- peers -----------------------------------------------------------
    def nginx_start(self, port, h2=False):
        conf = os.path.join(self.tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""worker_processes {len(self.srv_cores)};
daemon off;
pid {self.tmp}/nginx.pid;
error_log {self.tmp}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    server {{
        listen 127.0.0.1:{port}{" http2" if h2 else ""} backlog=4096 reuseport;
        keepalive_requests 100000000;
        location / {{ return 200 "hello world\\n"; }}
    }}
}}
""")
        return self.spawn(["taskset", "-c",
                           ",".join(map(str, self.srv_cores)), "nginx",
                           "-c", conf], "nginx.log")

    def h2o_start(self, port):
        conf = os.path.join(self.tmp, "h2o.conf")
        with open(conf, "w") as f:
            f.write(f"""num-threads: {len(self.srv_cores)}
listen:
  host: 127.0.0.1
  port: {port}
error-log: {self.tmp}/h2o-error.log
http1-request-timeout: 60
hosts:
  default:
    paths:
      /:
        mruby.handler: |
          Proc.new do |env|
            [200, {{"content-type" => "text/plain"}}, ["hello world\\n"]]
          end
""")
        return self.spawn(["taskset", "-c",
                           ",".join(map(str, self.srv_cores)), "h2o",
                           "-c", conf], "h2o.log")

    def wrk(self, port, close):
        cores = ",".join(map(str, self.cli_cores))
        argv = ["taskset", "-c", cores, "wrk", "-t",
                str(len(self.cli_cores)), "-c", str(self.a.conns), "-d",
                f"{self.a.duration}s", "--latency"]
        if close:
            argv += ["-H", "Connection: close"]
        argv.append(f"http://127.0.0.1:{port}/")
        p = subprocess.run(argv, capture_output=True, text=True,
                           timeout=self.a.duration + 60)
        out = p.stdout
        m = re.search(r"Requests/sec:\s+([\d.]+)", out)
        if not m:
            raise RuntimeError("wrk: " + out + p.stderr)
        r = {"rps": float(m.group(1))}
        for q, k in (("50", "p50_us"), ("90", "p90_us"), ("99", "p99_us")):
            mm = re.search(rf"^\s+{q}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
            if mm:
                v = float(mm.group(1))
                r[k] = v * {"us": 1, "ms": 1e3, "s": 1e6}[mm.group(2)]
        e = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        s = re.search(r"Socket errors: connect (\d+), read (\d+), write "
                      r"(\d+), timeout (\d+)", out)
        r["errors"] = (int(e.group(1)) if e else 0) + (
            sum(int(x) for x in s.groups()) if s else 0)
        return r

    def h2load(self, port):
        """h2load (h2c, prior knowledge): --h2-conns connections, -m
        --h2-streams; percentiles from its per-request log."""
        cores = ",".join(map(str, self.cli_cores))
        logf = os.path.join(self.tmp, "h2load-requests.log")
        argv = ["taskset", "-c", cores, "h2load", "-t",
                str(len(self.cli_cores)), "-c", str(self.a.h2_conns), "-m",
                str(self.a.h2_streams), "-D", str(self.a.duration),
                f"--warm-up-time={int(self.a.warmup * 1000)}ms",
                f"--log-file={logf}",
                f"http://127.0.0.1:{port}/"]
        p = subprocess.run(argv, capture_output=True, text=True,
                           timeout=self.a.duration + self.a.warmup + 60)
        out = p.stdout
        m = re.search(r"finished in [\d.]+\w*, ([\d.]+) req/s", out)
        q = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, "
                      r"(\d+) succeeded, (\d+) failed, (\d+) errored, "
                      r"(\d+) timeout", out)
        if not m or not q:
            raise RuntimeError("h2load: " + out + p.stderr)
        st = re.search(r"status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, "
                       r"(\d+) 5xx", out)
        ok = int(q.group(4))
        r = {"rps": float(m.group(1)), "tool": "h2load",
             "errors": int(q.group(5)) + int(q.group(6)) + int(q.group(7))
             + (sum(int(x) for x in st.groups()) if st else 0)}
        lat = []
        with open(logf) as f:
            for ln in f:
                parts = ln.split("\t")
                if len(parts) >= 3 and parts[1] == "200":
                    lat.append(float(parts[2]))
        os.unlink(logf)
        lat.sort()
        for qq, k in ((0.5, "p50_us"), (0.9, "p90_us"), (0.99, "p99_us"),
                      (0.999, "p999_us")):
            if lat:
                r[k] = lat[min(len(lat) - 1, int(qq * len(lat)))]
        r["requests"] = ok
        return r

    def peer_run(self, name, close, h2=False):
        port = 18080 if name == "nginx" else 18081
        p = self.nginx_start(port, h2) if name == "nginx" else \
            self.h2o_start(port)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            c = subprocess.run(["curl", "-s", "-m", "1"] +
                               (["--http2-prior-knowledge"] if h2 else []) +
                               [f"http://127.0.0.1:{port}/"],
                               capture_output=True, text=True)
            if c.stdout == BODY:
                break
            time.sleep(0.2)
        else:
            self.stop(p, signal.SIGKILL)
            raise RuntimeError(f"{name} did not answer")
        try:
            time.sleep(0.2)
            return self.h2load(port) if h2 else self.wrk(port, close)
        finally:
            self.stop(p, signal.SIGQUIT if name == "nginx" else
                      signal.SIGTERM)


class Skipped(Exception):
    """A case that cannot run with this build (said in the report)."""


# Where a server cycle goes: the first stage whose object (dso) or
# symbol pattern matches names it. Order matters: checksums and timers
# before the layers whose functions call them.
STAGES = [
    # (stage, pattern on the object, pattern on the symbol)
    ("kernel", r"^\[kernel", None),
    ("memif driver", r"^librte_(net_memif|mempool|mbuf|ethdev)",
     r"^rte_eth_|memif"),
    ("checksums", None, r"cksum|csum"),
    ("timers", None, r"twheel|purgatory|rt_timer"),
    ("HTTP/2", r"^libnghttp2", r"nghttp2|http2|^h2_|rt_h2"),
    ("HTTP parse", None, r"http_parse|parse_machine|http_method|"
     r"http_target"),
    ("HTTP response, routes, handlers", None,
     r"http|route|handler|rt_job|task"),
    ("TCP", None, r"tcp"),
    ("poll loop", None, r"loop|poll|lcore|rdtsc|inbox|strategy|^rt_"),
    ("IP, ARP, ND, Ethernet, TX batches", None,
     r"net_|ip4|ip6|ipv4|ipv6|arp|^nd_|icmp|eth|^txb_|tx_"),
    ("libc (memset, memcpy, ...)", r"^libc", r"@plt$"),
]


# Every stage's name, in the order of the plots and tables.
STAGE_NAMES = [name for name, _, _ in STAGES] + ["other"]


def stage_of(dso, sym):
    for name, dso_re, sym_re in STAGES:
        if (dso_re and re.search(dso_re, dso)) or \
           (sym_re and re.search(sym_re, sym)):
            return name
    return "other"


def stages_of(top):
    """Cycles per request per stage from a profile (perf_top's list): the
    symbols under 0.1 % of the samples are left out, so the stages sum to
    a little less than the run's server core cycles per request."""
    out = {}
    for t in top:
        stage = stage_of(t["dso"], t["sym"])
        out[stage] = out.get(stage, 0.0) + t["cycles_per_req"]
    return out


def median_row(runs):
    keys = set(runs[0])
    row = {}
    for k in keys:
        vals = [r[k] for r in runs if isinstance(r.get(k), (int, float))
                and not isinstance(r.get(k), bool)]
        if len(vals) == len(runs):
            row[k] = statistics.median(vals)
    # Errors are not a median: every run's count, summed (nothing hidden).
    errs = [r["errors"] for r in runs if isinstance(r.get("errors"), int)]
    if errs:
        row["errors"] = sum(errs)
    row["count_agree"] = all(r.get("count_agree", True) for r in runs)
    if "tool" in runs[0]:
        row["tool"] = runs[0]["tool"]
    row["runs"] = runs
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--loadgen-build", default=None,
                    help="build whose ewyk-loadgen drives the ewyk rows "
                    "(default: --build's)")
    ap.add_argument("--eal-args", default=os.environ.get("EWYK_EAL_ARGS",
                                                          ""),
                    help="more EAL options for ewyk-httpd and "
                    "ewyk-loadgen, one string (default: $EWYK_EAL_ARGS), "
                    "e.g. '-d DIR' to load PMD plugins from DIR")
    ap.add_argument("--server-lcores", type=int, default=1)
    ap.add_argument("--client-lcores", type=int, default=1)
    ap.add_argument("--first-core", type=int, default=0)
    ap.add_argument("--conns", type=int, default=256)
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--warmup", type=float, default=1)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--reserved-core", type=int, default=-1,
                    help="core of the reserved lcore in the runs that have "
                    "one (default: it shares the last server core)")
    ap.add_argument("--h2-conns", type=int, default=16,
                    help="connections of the HTTP/2 rows (default 16)")
    ap.add_argument("--h2-streams", type=int, default=64,
                    help="streams open per connection in the HTTP/2 rows "
                    "(ewyk-loadgen --streams, h2load -m; default 64: with "
                    "16, neither ewyk-httpd nor ewyk-loadgen was busy, "
                    "round trips were the limit)")
    ap.add_argument("--huge", choices=("auto", "yes", "no"), default="auto")
    ap.add_argument("--only", default="",
                    help="comma-separated cases: a whole name selects that "
                    "case alone, a part of one every case containing it "
                    "(default all)")
    ap.add_argument("--profile", action="store_true",
                    help="linux-perf profile of ewyk-httpd in one more run "
                    "of every ewyk case (left out of the median): top "
                    "costs per request, and the cycles-per-request "
                    "breakdown plot (cycles.png)")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "perf"))
    a = ap.parse_args()
    if a.huge == "auto":
        free = 0
        try:
            with open("/sys/kernel/mm/hugepages/hugepages-2048kB/"
                      "free_hugepages") as f:
                free = int(f.read())
        except OSError:
            pass
        a.huge = free >= 1100  # two 1 GiB processes
    else:
        a.huge = a.huge == "yes"
    b = Bench(a)
    results = {}
    order = []
    try:
        cases = [
            ("ewyk keep-alive", lambda: b.ewyk_run([])),
            ("ewyk keep-alive IPv6", lambda: b.ewyk_run([], v6=True)),
            ("ewyk pipeline 16", lambda: b.ewyk_run(["--pipeline", "16"])),
            ("ewyk new conn/req", lambda: b.ewyk_run(["--new-conn"])),
            ("ewyk new conn/req IPv6",
             lambda: b.ewyk_run(["--new-conn"], v6=True)),
            ("ewyk keep-alive + 1% /sleep/1",
             lambda: b.ewyk_run(["--mix-path", "/sleep/1",
                                 "--mix-percent", "1"], reserved=True)),
            ("ewyk open loop 50%", None),
            # Keep-alive beside idle connections (--idle): req/s and p99
            # of --conns with 1k..1M others held silent (memory per
            # connection from the server's telemetry in the JSON row).
            ("ewyk keep-alive + 1k idle",
             lambda: b.ewyk_run([], idle=1000)),
            ("ewyk keep-alive + 10k idle",
             lambda: b.ewyk_run([], idle=10000)),
            ("ewyk keep-alive + 100k idle",
             lambda: b.ewyk_run([], idle=100000)),
            ("ewyk keep-alive + 1M idle",
             lambda: b.ewyk_run([], idle=1000000)),
        ] + [
            # Jetty's seed benchmark on real HTTP: a BLOCKING route doing no
            # work (/sleep/0), full load, one reserved lcore, per strategy.
            (f"ewyk BLOCKING no-op, {st}",
             lambda st=st: b.ewyk_run(["--path", "/sleep/0"], reserved=True,
                                      strategy=st))
            for st in ("pc", "pec", "epc", "adaptive")
        ] + [
            ("nginx keep-alive", lambda: b.peer_run("nginx", False)),
            ("nginx new conn/req", lambda: b.peer_run("nginx", True)),
            ("h2o keep-alive", lambda: b.peer_run("h2o", False)),
            ("h2o new conn/req", lambda: b.peer_run("h2o", True)),
            ("ewyk h2", b.ewyk_h2_run),
            ("nginx h2c", lambda: b.peer_run("nginx", False, h2=True)),
            ("h2o h2c", lambda: b.peer_run("h2o", False, h2=True)),
        ]
        only = [s.strip() for s in a.only.split(",") if s.strip()]
        names = {n for n, _ in cases}
        for name, fn in cases:
            # A name given whole selects that case alone; a part of a
            # name selects every case that contains it.
            if only and not any(o == name or (o in name and o not in names)
                                for o in only):
                continue
            if name == "ewyk open loop 50%":
                ka = results.get("ewyk keep-alive")
                if ka is None:
                    continue
                rate = round(ka["rps"] * 0.5)
                fn = (lambda rate=rate:
                      b.ewyk_run(["--rate", str(rate)]))
                name = f"ewyk open loop {rate} req/s (50%)"
            runs, prof_run = [], None
            # --profile: one more run of every ewyk case, first, under
            # perf record; it gives the case's profile and is left out
            # of the median (sampling costs the server cycles).
            first = -1 if a.profile and name.startswith("ewyk") else 0
            for i in range(first, a.runs):
                log(f"perf: {name}: " + (f"run {i + 1}/{a.runs}" if i >= 0
                                         else "profiled run (not counted)"))
                try:
                    b.profile_next = i < 0
                    r = fn()
                    if i < 0:
                        prof_run = r
                        continue
                except Skipped as e:
                    log(f"perf: {name}: skipped: {e}")
                    b.skipped.append(f"{name}: {e}")
                    break
                except Exception as e:  # noqa: BLE001 - report, go on
                    log(f"perf: {name}: run {i + 1} failed: {e}")
                    b.failures.append(f"{name}, run {i + 1}: "
                                      f"{str(e).splitlines()[0]}")
                    b.keep_tmp = True
                    continue
                log(f"perf:   {r['rps']:.0f} req/s, p99 "
                    f"{r.get('p99_us', 0):.0f} us, errors {r['errors']}")
                runs.append(r)
            if runs:
                results[name] = median_row(runs)
                if prof_run is not None:
                    results[name]["profile_run"] = prof_run
                order.append(name)
    finally:
        b.cleanup()
    from perf_report import write_report  # noqa: E402
    write_report(a, b, results, order, " ".join(sys.argv))
    if not b.keep_tmp:
        shutil.rmtree(b.tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()

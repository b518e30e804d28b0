# SPDX-License-Identifier: BSD-3-Clause
"""ewyk-httpd against malformed, slow and heavy clients on the kernel peer.

ewyk-httpd runs on lcores 0 and 1 (one worker, one reserved lcore,
adaptive strategy) with ``--root`` over a directory of test files and a
short header timeout; the kernel peer's clients run on core 1. Checked:

- the malformed-request corpus (tests/http_corpus/requests.txt, shared
  with the unit tests): each request gets its status and a close, and the
  4xx/5xx counters move;
- ``/metrics``: every family present, promtool clean, counters moving
  with traffic;
- ``--root``: content types, lengths, directory indexes, HEAD,
  If-Modified-Since, 404/403, and no escape from the root (``..``,
  encoded, symlinks);
- wrk, ab and h2load against ``/`` without errors;
- slowloris: 200 connections dribbling a head, all ended by the header
  timeout while curl is still served;
- ``/sleep/100`` does not hold ``/`` behind it with the adaptive
  strategy, and does with pc: one client thread asks /sleep/100 on one
  connection and / back to back on another until the sleep's answer is
  readable; the / answers completed meanwhile are counted (a count of
  answers between two events, not a time; latencies printed only).

Split from TestSuite_http.py, which checks the HTTP/1.1 basics with curl
and a raw-socket client.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import time

from framework import http_corpus
from framework.ewyk import EWYK_IP, EwykHttpd, Testbed, have, log_dir
from framework.node import wait_for
from framework.test_suite import TestSuite

HTTP_PORT = 80
PY = "/usr/bin/python3"
URL = f"http://{EWYK_IP}:{HTTP_PORT}"
HEADER_TIMEOUT_S = 2
# The peer's slowloris, and the client that counts / answers during a
# /sleep/<ms> (run in the peer namespace).
SLOWLORIS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "http_slowloris.py")
COUNT = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "hello_http_load.py")


def _wrk_latency(out, pct="99%"):
    """A latency percentile of wrk --latency's output, in ms."""
    m = re.search(r"^\s*" + re.escape(pct) + r"\s+([\d.]+)(us|ms|s)\s*$",
                   out, re.M)
    if not m:
        raise AssertionError(f"no {pct} in wrk output:\n{out}")
    v = float(m.group(1))
    return v / 1000 if m.group(2) == "us" else v * 1000 if m.group(2) == "s" else v


def _wrk_max(out):
    """The largest latency of wrk's thread stats, in ms."""
    m = re.search(r"^\s*Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)\b", out,
                   re.M)
    if not m:
        raise AssertionError(f"no Latency line in wrk output:\n{out}")
    v = float(m.group(1))
    return v / 1000 if m.group(2) == "us" else v * 1000 if m.group(2) == "s" else v


def _metrics_sum(text, name):
    """Sum of every sample of a metric in a Prometheus text."""
    tot = 0
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            tot += float(line.rsplit(" ", 1)[1])
    return tot


class TestSuite_http_robustness(TestSuite):
    """The malformed corpus, /metrics, --root, load and slow clients.

    ewyk-httpd runs on lcores 0 and 1 (one worker, one reserved lcore,
    adaptive strategy) with --root over a directory of test files and a
    short header timeout; the kernel peer's clients run on core 1.
    """

    def _app_args(self, strategy="adaptive"):
        return ["--stats-interval", "0", "--reserved", "1",
                "--strategy", strategy, "--root", self.root,
                "--header-timeout", str(HEADER_TIMEOUT_S),
                "--max-body", "1048576"]

    def _start(self, strategy="adaptive", name="http-robust"):
        app = EwykHttpd(self.tb, lcores="0,1",
                         app_args=self._app_args(strategy),
                         log_name=name).start()
        # A new process may have a new MAC: the peer learns it again.
        self.tb.peer("ip neigh flush all", check=False)
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
        return app

    def set_up_all(self):
        self.dir = log_dir()
        tag = self.node.tag
        self.root = os.path.join(self.dir, f"http_root_{tag}")
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(os.path.join(self.root, "sub", "deeper"))
        os.makedirs(os.path.join(self.root, "noindex"))
        files = {
            "index.html": b"<html>root index</html>\n",
            "style.css": b"body { color: red }\n",
            "app.js": b"console.log(1);\n",
            "data.json": b"{\"a\": 1}\n",
            "pixel.png": bytes(range(256)) * 4,
            "notes.txt": b"plain\n",
            "blob.unknownext": b"\x00\x01\x02",
            "empty.txt": b"",
            "sub/index.html": b"<html>sub index</html>\n",
            "sub/deeper/x.txt": b"deep\n",
            "noindex/a.txt": b"a\n",
        }
        for p, b in files.items():
            with open(os.path.join(self.root, p), "wb") as f:
                f.write(b)
        self.files = files
        self.big = os.urandom(48 * 1000 * 1000)
        with open(os.path.join(self.root, "big.bin"), "wb") as f:
            f.write(self.big)
        self.big_sha = hashlib.sha256(self.big).hexdigest()
        # Symlinks: one inside the root (served), one out of it (403),
        # one to a directory out of it (403).
        os.symlink("style.css", os.path.join(self.root, "link_in.css"))
        os.symlink("/etc/hostname", os.path.join(self.root, "link_out"))
        os.symlink("/etc", os.path.join(self.root, "etc_out"))
        # A file beside the root that an escape would reach.
        self.secret = os.path.join(self.dir, f"http_secret_{tag}.txt")
        with open(self.secret, "w") as f:
            f.write("secret\n")
        self.tb = Testbed(self.node)
        self.app = self._start()
        self.slowloris = SLOWLORIS
        self.count = COUNT

    def tear_down_all(self):
        shutil.rmtree(getattr(self, "root", ""), ignore_errors=True)
        p = getattr(self, "secret", None)
        if p and os.path.exists(p):
            os.unlink(p)

    # -- helpers ----------------------------------------------------------
    def _curl(self, args, check=True, timeout=30):
        return self.tb.peer(f"curl -sS --max-time 20 {args}", check=check,
                            timeout=timeout)

    def _status(self, path, extra=""):
        out = self._curl(f"-o /dev/null -w '%{{http_code}}' {extra} "
                         f"--path-as-is '{URL}{path}'").stdout
        return int(out.strip())

    def _head(self, path, extra="", body=False):
        """(status, {lower-case field: value}, body text or "") of a GET."""
        keep = "-i" if body else "-D - -o /dev/null"
        out = self._curl(f"{keep} --path-as-is {extra} '{URL}{path}'").stdout
        # (text mode: CRLF arrives as LF)
        head, _, body = out.replace("\r\n", "\n").partition("\n\n")
        lines = head.split("\n")
        fields = {}
        for ln in lines[1:]:
            k, _, v = ln.partition(":")
            fields[k.strip().lower()] = v.strip()
        return int(lines[0].split()[1]), fields, body

    def _metrics(self):
        return self._curl(f"'{URL}/metrics'").stdout

    def _hello_ok(self):
        assert self._status("/") == 200, self.app.log()[-3000:]

    # -- the malformed corpus --------------------------------------------
    def test_malformed_corpus(self):
        corpus = http_corpus.CORPUS
        before = self._metrics()
        out = self.tb.peer(f"{PY} {http_corpus.__file__} {corpus} "
                           f"{EWYK_IP} {HTTP_PORT}", timeout=600).stdout
        res = json.loads(out.strip().splitlines()[-1])["results"]
        assert len(res) >= 40, res
        bad = [r for r in res if r["status"] != r["expect"] or not r["closed"]]
        assert not bad, bad
        # Every error was counted; the server still serves. (A page is
        # rendered at most once a second: wait for a fresh one.)
        time.sleep(1.1)
        after = self._metrics()
        n_err = sum(1 for r in res if r["expect"] >= 400)
        d4 = (_metrics_sum(after, "ewyk_http_resp_4xx_total")
              + _metrics_sum(after, "ewyk_http_resp_5xx_total")
              - _metrics_sum(before, "ewyk_http_resp_4xx_total")
              - _metrics_sum(before, "ewyk_http_resp_5xx_total"))
        assert d4 >= n_err, (d4, n_err)
        self._hello_ok()
        print(f"{len(res)} malformed requests: each got its status and a "
              f"close; 4xx+5xx counters moved by {d4:.0f}")

    # -- /metrics -----------------------------------------------------------
    def test_metrics_promtool(self):
        text = self._metrics()
        for name in ("ewyk_net_rx_pkts_total", "ewyk_tcp_seg_in_total",
                     "ewyk_http_requests_total", "ewyk_twheel_armed_total",
                     "ewyk_pool_capacity", "ewyk_strategy_handoffs_total",
                     "ewyk_rt_mbufs_in_use", "ewyk_rt_http_conns",
                     "ewyk_rt_tasks_total", "ewyk_rt_lcore_tasks_total"):
            assert f"\n# TYPE {name} " in text, name
        if have("promtool"):
            p = subprocess.run(["promtool", "check", "metrics"], input=text,
                                capture_output=True, text=True, timeout=30)
            assert p.returncode == 0, (p.stdout, p.stderr)
        # The counters move with traffic: 50 more requests, more packets.
        req0 = _metrics_sum(text, "ewyk_http_requests_total")
        ok0 = _metrics_sum(text, "ewyk_http_resp_2xx_total")
        rx0 = _metrics_sum(text, "ewyk_net_rx_pkts_total")
        self._curl(" ".join(f"-o /dev/null '{URL}/'" for _ in range(50)))
        time.sleep(1.1)  # a page is rendered at most once a second
        text = self._metrics()
        dreq = _metrics_sum(text, "ewyk_http_requests_total") - req0
        dok = _metrics_sum(text, "ewyk_http_resp_2xx_total") - ok0
        drx = _metrics_sum(text, "ewyk_net_rx_pkts_total") - rx0
        # 50 requests and the /metrics request itself.
        assert dreq >= 51 and dok >= 51, (dreq, dok)
        assert drx >= 51, drx
        print(f"/metrics: {len(text)} bytes, promtool clean; after 50 "
              f"requests: requests +{dreq:.0f}, 2xx +{dok:.0f}, "
              f"rx_pkts +{drx:.0f}")

    # -- --root -------------------------------------------------------------
    def test_static_types_and_bodies(self):
        want = {
            "/index.html": "text/html",
            "/style.css": "text/css",
            "/app.js": "text/javascript",
            "/data.json": "application/json",
            "/pixel.png": "image/png",
            "/notes.txt": "text/plain",
            "/blob.unknownext": "application/octet-stream",
            "/link_in.css": "text/css",
        }
        for path, ctype in want.items():
            st, f, body = self._head(path)
            assert st == 200, (path, st, f)
            assert f["content-type"].startswith(ctype), (path, f)
            assert "last-modified" in f, (path, f)
            name = "style.css" if path == "/link_in.css" else path[1:]
            assert int(f["content-length"]) == len(self.files[name]), (path, f)
        # Directories: their index.html, or 403 without one.
        st, f, body = self._head("/sub/", body=True)
        assert st == 200 and "sub index" in body, (st, body)
        assert self._status("/noindex/") == 403
        assert self._status("/empty.txt") == 200
        # HEAD: the length, no body.
        out = self._curl(f"-I '{URL}/pixel.png'").stdout
        assert "200" in out.splitlines()[0], out
        assert f"Content-Length: {len(self.files['pixel.png'])}" in out, out
        # Routes take precedence over files: / is the hello route, not
        # index.html; /metrics is the metrics page.
        out = self._curl(f"'{URL}/'").stdout
        assert out == "hello world\n", out
        # 48 MB verified.
        out = self.tb.peer(f"sh -c \"curl -sS --max-time 60 '{URL}/big.bin'"
                           f" | sha256sum\"", timeout=90).stdout
        assert out.split()[0] == self.big_sha, out

    def test_static_not_modified(self):
        st, f, _ = self._head("/style.css")
        lm = f["last-modified"]
        assert self._status("/style.css", f"-H 'If-Modified-Since: {lm}'") == 304
        assert self._status("/style.css",
                            "-H 'If-Modified-Since: Sat, 01 Jan 2000 "
                            "00:00:00 GMT'") == 200
        assert self._status("/style.css",
                            "-H 'If-Modified-Since: garbage'") == 200

    def test_static_404_403(self):
        assert self._status("/nope.html") == 404
        assert self._status("/sub/nope") == 404
        secret = os.path.basename(self.secret)
        # Escapes: raw .. (refused by the parser: 400), encoded ones and
        # symlinks out of the root (403). None serves the file beside it.
        st = self._status(f"/../{secret}")
        assert st in (400, 403), st
        for path in (f"/%2e%2e/{secret}", f"/%2E%2E/{secret}",
                     f"/sub/%2e%2e/%2e%2e/{secret}", f"/sub%2f..%2f..%2f{secret}",
                     f"/.%2e/{secret}", "/link_out", "/etc_out/hostname",
                     "/%2e", "/a%00b"):
            assert self._status(path) == 403, path
        self._hello_ok()

    # -- load -------------------------------------------------------------
    def test_wrk_ab_h2load(self):
        if not have("wrk"):
            print("wrk missing")
        else:
            out = self.tb.peer(f"wrk -t2 -c50 -d10s --latency {URL}/",
                               timeout=60).stdout
            assert "Socket errors" not in out, out
            assert "Non-2xx" not in out, out
            rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
            print(f"wrk -t2 -c50 -d10s /: {rps:.0f} req/s, p99 "
                  f"{_wrk_latency(out):.2f} ms")
        if have("ab"):
            out = self.tb.peer(f"ab -k -q -n 20000 -c 50 {URL}/",
                               timeout=120).stdout
            assert re.search(r"Failed requests:\s+0\b", out), out
            assert "Non-2xx" not in out, out
            rps = float(re.search(r"Requests per second:\s+([\d.]+)",
                                   out).group(1))
            print(f"ab -k -n 20000 -c 50 /: {rps:.0f} req/s, 0 failed")
        if have("h2load"):
            out = self.tb.peer(f"h2load --h1 -n 20000 -c 50 {URL}/",
                               check=False, timeout=120).stdout
            m = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, "
                           r"(\d+) succeeded, (\d+) failed, (\d+) errored",
                           out)
            assert m, out
            assert int(m.group(3)) == 20000 and int(m.group(4)) == 0, out
            print(f"h2load --h1 -n 20000 -c 50 /: {m.group(0)}")
        self._hello_ok()

    # -- slowloris ----------------------------------------------------------
    def test_slowloris(self):
        before = self._metrics()
        t0 = _metrics_sum(before, "ewyk_http_timeout_header_total")
        conns0 = _metrics_sum(before, "ewyk_rt_http_conns")
        tel0 = self.app.telemetry("/ewyk/http/stats,0")
        log = os.path.join(self.dir, f"http_slowloris_{self.node.tag}.log")
        # A line every 0.5 s: each keeps the connection busy, none ends the
        # head; the header timeout (2 s from the first byte) ends them.
        proc = self.node.spawn(
            ["taskset", "-c", "1", PY, self.slowloris, EWYK_IP,
             str(HTTP_PORT), "200", "0.5", str(6 * HEADER_TIMEOUT_S)],
            ns=self.tb.ns_peer, log_path=log)
        assert wait_for(lambda: os.path.exists(log)
                         and "opened" in open(log).read(), timeout=30)
        # curl is served while they dribble.
        served = 0
        while proc.poll() is None:
            assert self._status("/") == 200
            served += 1
            time.sleep(0.3)
        res = json.loads(open(log).read().strip().splitlines()[-1])
        os.unlink(log)
        assert res["closed"] == 200, res
        after = self._metrics()
        dt = _metrics_sum(after, "ewyk_http_timeout_header_total") - t0
        assert dt >= 200, dt
        tel = self.app.telemetry("/ewyk/http/stats,0")
        assert tel["timeout_header"] - tel0["timeout_header"] >= 200, tel
        # Connection objects back to where they were (telemetry, and the
        # /metrics gauge, which counts the /metrics request itself).
        assert wait_for(lambda: self.app.telemetry("/ewyk/http/stats,0")
                         ["conns_in_use"] <= tel0["conns_in_use"], timeout=10)
        assert wait_for(lambda: _metrics_sum(self._metrics(),
                                              "ewyk_rt_http_conns")
                         <= conns0, timeout=10)
        print(f"slowloris 200 connections: all closed by the header "
              f"timeout ({res['status_408']} with a 408), "
              f"timeout_header +{dt:.0f}; {served} curls served meanwhile")

    # -- blocking routes and the strategy ----------------------------------
    def _during_sleep(self, secs=3):
        """One client thread, two keep-alive connections: GET /sleep/100
        on one, GET / back to back on the other until the sleep's answer
        is readable (hello_http_load.py). (The / answers completed during
        each /sleep/100, sorted; the run's JSON.)"""
        r = self.tb.peer(f"{PY} {self.count} {EWYK_IP} {HTTP_PORT} {secs} "
                         f"/sleep/100 / 'hello world\\n'",
                         timeout=secs + 30)
        res = json.loads(r.stdout.strip().splitlines()[-1])
        assert res["errors"] == [] and res["bad"] == 0, res
        during = sorted(res["during_slow"])
        assert len(during) >= 10, res  # 100 ms sleeps back to back
        assert res["slow"]["status"] == {"200": len(during)}, res
        return during, res

    def test_sleep_head_of_line(self):
        try:
            a, ares = self._during_sleep()
            self.app.stop()
            pc = self._start("pc", "http-robust-pc")
            p, pres = self._during_sleep()
            pc.stop()
        finally:
            if not self.app.alive():
                type(self).app = self._start(name="http-robust-2")
        for k, d, r in (("adaptive", a, ares), ("pc", p, pres)):
            print(f"strategy {k:8s}: / answered during a /sleep/100, "
                  f"median {d[len(d) // 2]}, min {d[0]}, max {d[-1]} "
                  f"(n={len(d)}); / p50 {r['p50'] * 1e3:.2f} ms p99 "
                  f"{r['p99'] * 1e3:.2f} ms")
        # adaptive runs the sleep off the worker's poller (EPC:
        # production moves to the reserved lcore; PEC: the task does):
        # / is answered while it runs, many times on a quiet machine, a
        # few when other load takes the reserved lcore's core.
        assert a[len(a) // 2] >= 2, ares
        # pc runs it on the worker, the only poller: no / request that
        # arrives while it runs is answered before it (at most the one
        # that came in the same receive pass as the sleep's request).
        assert p[-1] <= 1, pres

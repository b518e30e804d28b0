# SPDX-License-Identifier: BSD-3-Clause
"""ewyk-httpd's HTTP/1.1 against real clients on the kernel peer.

ewyk-httpd serves HTTP on port 80 on one end of a veth pair through
net_af_packet (lcore 0); curl and a raw-socket client (``HTTP_CLIENT``
below, run in the peer namespace, pinned to core 1) talk to it. Checked:

- curl: GET, HEAD, 404, 405 with ``Allow``, HTTP/1.0 with and without
  keep-alive, an upload with ``Expect: 100-continue``;
- 100 requests on one keep-alive connection (one connection accepted);
- 200 pipelined requests in one write: 200 responses, in order;
- out-of-order completion: ``/sleep/50`` then ``/`` pipelined on one
  connection: ``/``'s response comes second;
- a 30 MB upload to ``/sha256`` (Content-Length and chunked) and to
  ``/echo`` (both framings), verified;
- a 200 MB ``/bytes`` download verified byte for byte by a reader that
  stalls 2 s in the middle (the server stops producing, then goes on);
- with a reserved lcore: ``/sha256`` hashes in EPC/PIC tasks and a 30 MB
  upload is still right, ``/echo`` too; ``/sleep/<ms>`` beyond ``--task-timeout`` is
  answered 504 while the worker still sleeps; ``--strategy pec`` with a
  2-slot PEC ring and 8 concurrent ``/sleep`` requests: some 503;
- ``/ewyk/http/list`` and ``/ewyk/http/stats`` over telemetry; bad option
  values are refused with a clear message.

Reusable pieces for other HTTP suites: ``start_httpd()`` (ewyk-httpd with
HTTP options on a testbed), ``HttpSuiteBase`` (testbed, client script,
``curl()``, ``client()``, ``restarted()``).
"""

import contextlib
import hashlib
import json
import os
import re
import subprocess

from framework.ewyk import EWYK_IP, EwykHttpd, Testbed, eal_mem_args, \
    httpd_binary, log_dir
from framework.test_suite import TestSuite

PY = "/usr/bin/python3"
BASE = f"http://{EWYK_IP}"
UPLOAD = 30 * 1000 * 1000
DOWNLOAD = 200 * 1000 * 1000

# The peer's raw HTTP client (written to the output dir, run in the peer
# namespace). Each command prints one JSON line.
HTTP_CLIENT = r'''
import hashlib, json, re, socket, sys, time

def conn(host):
    s = socket.create_connection((host, 80), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s

class Reader:
    def __init__(self, s):
        self.s, self.buf, self.eof = s, bytearray(), False
    def fill(self):
        d = self.s.recv(1 << 20)
        if not d:
            self.eof = True
        self.buf += d
        return bool(d)
    def head(self):
        while b"\r\n\r\n" not in self.buf:
            if not self.fill():
                return None
        i = self.buf.index(b"\r\n\r\n")
        h = bytes(self.buf[:i]).decode("latin-1")
        del self.buf[:i + 4]
        lines = h.split("\r\n")
        status = int(lines[0].split()[1])
        fields = {}
        for l in lines[1:]:
            k, v = l.split(":", 1)
            fields[k.strip().lower()] = v.strip()
        return status, fields, lines[0]
    def body(self, n):
        while len(self.buf) < n:
            if not self.fill():
                break
        b = bytes(self.buf[:n])
        del self.buf[:n]
        return b
    def response(self, head_only=False):
        h = self.head()
        if h is None:
            return None
        status, fields, line = h
        n = 0 if head_only else int(fields.get("content-length", "0"))
        return {"status": status, "fields": fields, "line": line,
                "body": self.body(n)}

def out(d):
    print(json.dumps(d))

def pattern(off, n):
    return bytes((off + i) & 255 for i in range(n))

def cmd_keepalive(host, n):
    s = conn(host); r = Reader(s)
    ok = 0
    for i in range(n):
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        p = r.response()
        ok += p is not None and p["status"] == 200 and p["body"] == b"hello world\n"
    out({"ok": ok})

def cmd_pipeline(host, n):
    s = conn(host); r = Reader(s)
    s.sendall(b"".join(b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\n\r\n" % i
                       for i in range(n)))
    order = []
    for i in range(n):
        p = r.response()
        if p is None:
            break
        order.append(len(p["body"]) if p["body"] == pattern(0, len(p["body"]))
                     else -1)
    out({"order": order})

def cmd_raw(host, data, nresp, head_only):
    """Send raw bytes, read nresp responses, then whether the server closed."""
    s = conn(host); r = Reader(s)
    s.sendall(data.encode().decode("unicode_escape").encode("latin-1"))
    resps = []
    for i in range(nresp):
        p = r.response(head_only)
        if p is None:
            break
        resps.append({"status": p["status"], "fields": p["fields"],
                      "line": p["line"],
                      "body": p["body"].decode("latin-1")})
    s.settimeout(2)
    closed = False
    try:
        closed = not r.buf and not s.recv(1)
    except socket.timeout:
        closed = False
    except OSError:
        closed = True
    out({"resps": resps, "closed": closed})

def cmd_download(host, n, stall_at, stall_s):
    s = conn(host)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
    r = Reader(s)
    s.sendall(b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\n\r\n" % n)
    status, fields, _ = r.head()
    pat = pattern(0, 256 * 4096)
    got, bad, stalled = 0, -1, False
    t0 = time.monotonic()
    data = r.buf
    while True:
        if data:
            k = len(data)
            at = got & 255
            exp = (pat[at:] + pat[:at]) if at else pat
            while len(exp) < k:
                exp = exp + exp
            if bad < 0 and bytes(data) != exp[:k]:
                for i in range(k):
                    if data[i] != exp[i]:
                        bad = got + i
                        break
            got += k
        if got >= n:
            break
        if not stalled and got >= stall_at:
            stalled = True
            time.sleep(stall_s)
        data = s.recv(1 << 20)
        if not data:
            break
    out({"status": status, "length": fields.get("content-length"),
         "got": got, "bad": bad, "stalled": stalled,
         "secs": time.monotonic() - t0})

def main():
    c, host = sys.argv[1], sys.argv[2]
    if c == "keepalive":
        cmd_keepalive(host, int(sys.argv[3]))
    elif c == "pipeline":
        cmd_pipeline(host, int(sys.argv[3]))
    elif c == "raw":
        cmd_raw(host, sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1")
    elif c == "download":
        cmd_download(host, int(sys.argv[3]), int(sys.argv[4]),
                     float(sys.argv[5]))

main()
'''


def start_httpd(tb, lcores="0", http_args=(), log_name="ewyk-httpd-http"):
    """ewyk-httpd with HTTP on port 80 (plus ``http_args``), started."""
    return EwykHttpd(tb, lcores=lcores,
                     app_args=["--stats-interval", "0", "--port", "80"]
                     + list(http_args),
                     log_name=log_name).start()


class HttpSuiteBase(TestSuite):
    """A testbed, ewyk-httpd serving HTTP, and the peer's clients."""

    APP_ARGS = ("--task-timeout", "2000")
    LOG_NAME = "ewyk-httpd-http"

    def set_up_all(self):
        self.tb = Testbed(self.node)
        self.app = start_httpd(self.tb, http_args=self.APP_ARGS,
                               log_name=self.LOG_NAME)
        self.dir = log_dir()
        self.client_py = os.path.join(self.dir,
                                      f"http_client_{self.node.tag}.py")
        with open(self.client_py, "w") as f:
            f.write(HTTP_CLIENT)
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")

    def tear_down_all(self):
        p = getattr(self, "client_py", None)
        if p and os.path.exists(p):
            os.unlink(p)

    def curl(self, args, timeout=120):
        """curl on the peer; returns CompletedProcess (stdout text)."""
        return self.tb.peer(f"curl -sS --max-time {timeout - 5} {args}",
                            timeout=timeout)

    def client(self, *args, timeout=120):
        q = " ".join("'" + str(a).replace("'", "'\\''") + "'" for a in args)
        out = self.tb.peer(f"{PY} {self.client_py} {q}",
                           timeout=timeout).stdout
        return json.loads(out.strip().splitlines()[-1])

    @contextlib.contextmanager
    def restarted(self, lcores, http_args, log_name):
        """Run the body against another ewyk-httpd, then restore ours."""
        self.app.stop()
        other = start_httpd(self.tb, lcores=lcores, http_args=http_args,
                            log_name=log_name)
        try:
            self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
            yield other
        finally:
            rc = other.stop()
            self.app.start()
            self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
        assert rc == 0, other.log()[-3000:]


def _http_stats(app):
    return app.telemetry("/ewyk/http/stats")


class TestSuite_http(HttpSuiteBase):

    def set_up_all(self):
        super().set_up_all()
        self.blob = os.path.join(self.dir, f"http_blob_{self.node.tag}.bin")
        with open(self.blob, "wb") as f:
            f.write(os.urandom(UPLOAD))
        with open(self.blob, "rb") as f:
            self.blob_sha = hashlib.sha256(f.read()).hexdigest()

    def tear_down_all(self):
        if os.path.exists(getattr(self, "blob", "")):
            os.unlink(self.blob)
        super().tear_down_all()

    # -- curl -------------------------------------------------------------
    def test_curl_get(self):
        r = self.curl(f"-i {BASE}/")
        # (text mode: CRLF reads as LF)
        head, body = r.stdout.split("\n\n", 1)
        assert head.startswith("HTTP/1.1 200 OK"), r.stdout
        assert "\nServer: ewyk" in head and "\nDate: " in head, head
        assert "Content-Length: 12" in head, head
        assert body == "hello world\n", body

    def test_curl_head(self):
        r = self.curl(f"-I {BASE}/")
        assert r.stdout.startswith("HTTP/1.1 200 OK"), r.stdout
        assert "Content-Length: 12" in r.stdout, r.stdout
        assert not r.stdout.split("\n\n", 1)[1], r.stdout

    def test_curl_404(self):
        r = self.curl(f"-o /dev/null -w '%{{http_code}}' {BASE}/nope")
        assert r.stdout == "404", r.stdout

    def test_curl_405_allow(self):
        r = self.curl(f"-i -X DELETE {BASE}/")
        assert r.stdout.startswith("HTTP/1.1 405"), r.stdout
        assert "Allow: GET, HEAD\n" in r.stdout, r.stdout

    def test_bytes_bad_length(self):
        for bad in ("x", "-1", "1099511627777", "12a"):
            r = self.curl(f"-o /dev/null -w '%{{http_code}}' {BASE}/bytes/{bad}")
            assert r.stdout == "400", (bad, r.stdout)

    def test_http10(self):
        # Without keep-alive: one response, then the server closes.
        r = self.client("raw", EWYK_IP, r"GET / HTTP/1.0\r\n\r\n", 1, 0)
        assert [p["status"] for p in r["resps"]] == [200], r
        assert r["resps"][0]["line"].startswith("HTTP/1.1 200"), r
        assert r["closed"], r
        # With keep-alive: two responses on one connection, kept open.
        req = r"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
        r = self.client("raw", EWYK_IP, req + req, 2, 0)
        assert [p["status"] for p in r["resps"]] == [200, 200], r
        for p in r["resps"]:
            assert p["fields"].get("connection", "").lower() == "keep-alive", r
            assert p["body"] == "hello world\n", r
        assert not r["closed"], r
        # curl --http1.0 as well.
        r = self.curl(f"--http1.0 {BASE}/")
        assert r.stdout == "hello world\n", r.stdout

    def test_expect_100_continue(self):
        r = self.tb.peer(
            f"curl -sS -v --max-time 60 -H 'Expect: 100-continue' "
            f"--data-binary @{self.blob} {BASE}/sha256", timeout=70)
        assert r.stdout.strip() == self.blob_sha, r.stdout
        assert "HTTP/1.1 100 Continue" in r.stderr, r.stderr[-2000:]

    # -- connections ------------------------------------------------------
    def test_keepalive_100(self):
        before = _http_stats(self.app)
        r = self.client("keepalive", EWYK_IP, 100)
        after = _http_stats(self.app)
        assert r["ok"] == 100, r
        assert after["conn_accepted"] - before["conn_accepted"] == 1, \
            (before, after)
        assert after["requests"] - before["requests"] == 100, (before, after)

    def test_pipeline_200(self):
        r = self.client("pipeline", EWYK_IP, 200)
        assert r["order"] == list(range(200)), r

    def test_out_of_order_completion(self):
        req = r"GET /sleep/50 HTTP/1.1\r\nHost: x\r\n\r\n" \
              r"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        r = self.client("raw", EWYK_IP, req, 2, 0)
        bodies = [p["body"] for p in r["resps"]]
        assert bodies == ["slept 50 ms\n", "hello world\n"], r

    # -- bodies -----------------------------------------------------------
    def test_sha256_30mb_length(self):
        r = self.curl(f"--data-binary @{self.blob} {BASE}/sha256")
        assert r.stdout == self.blob_sha + "\n", r.stdout

    def test_sha256_30mb_chunked(self):
        r = self.curl(f"-H 'Transfer-Encoding: chunked' "
                      f"--data-binary @{self.blob} {BASE}/sha256")
        assert r.stdout == self.blob_sha + "\n", r.stdout

    def test_sha256_empty(self):
        r = self.curl(f"-X POST {BASE}/sha256")
        assert r.stdout == hashlib.sha256(b"").hexdigest() + "\n", r.stdout

    def _echo(self, extra):
        r = self.tb.peer(f"sh -c \"curl -sS --max-time 100 {extra} "
                         f"--data-binary @{self.blob} {BASE}/echo | "
                         f"sha256sum\"", timeout=110)
        assert r.stdout.split()[0] == self.blob_sha, r.stdout

    def test_echo_30mb_length(self):
        self._echo("")

    def test_echo_30mb_chunked(self):
        self._echo("-H 'Transfer-Encoding: chunked'")

    def test_bytes_200mb_stalled_reader(self):
        r = self.client("download", EWYK_IP, DOWNLOAD, DOWNLOAD // 2, 2,
                        timeout=300)
        assert r["status"] == 200 and r["length"] == str(DOWNLOAD), r
        assert r["stalled"] and r["got"] == DOWNLOAD and r["bad"] == -1, r

    # -- dispatch: deadline and refusal -----------------------------------
    def test_sleep_past_task_timeout_504(self):
        with self.restarted("0-1", ["--reserved", "1", "--task-timeout",
                                    "500"], "ewyk-httpd-http-504") as app:
            r = self.curl(f"-i {BASE}/sleep/3000", timeout=30)
            assert r.stdout.startswith("HTTP/1.1 504"), r.stdout
            # Served while the worker still sleeps (production moved).
            r = self.curl(f"{BASE}/")
            assert r.stdout == "hello world\n", r.stdout
            r = self.curl(f"{BASE}/sleep/20", timeout=30)
            assert r.stdout in ("slept 20 ms\n", "Gateway Timeout\n"), r.stdout
        log = app.log()
        assert "Final per-lcore stats" in log, log[-2000:]

    def test_pec_ring_full_503(self):
        with self.restarted("0-1", ["--reserved", "1", "--strategy", "pec",
                                    "--pec-ring", "2", "--task-timeout",
                                    "10000"], "ewyk-httpd-http-503"):
            codes = self.tb.peer(
                "sh -c 'for i in 1 2 3 4 5 6 7 8; do curl -sS -o /dev/null "
                f"-w \"%{{http_code}}\\n\" --max-time 30 {BASE}/sleep/700 & "
                "done; wait'", timeout=60).stdout.split()
            assert len(codes) == 8, codes
            assert set(codes) <= {"200", "503"}, codes
            assert "503" in codes and "200" in codes, codes

    def test_sha256_echo_with_reserved_lcore(self):
        # Hashing tasks go EPC (or PIC) when a reserved lcore exists.
        with self.restarted("0-1", ["--reserved", "1"],
                            "ewyk-httpd-http-epc") as app:
            r = self.curl(f"--data-binary @{self.blob} {BASE}/sha256")
            assert r.stdout == self.blob_sha + "\n", r.stdout
            self._echo("-H 'Transfer-Encoding: chunked'")
        log = app.log()
        m = re.search(r"strategy adaptive: pc=(\d+) pic=(\d+) epc=(\d+)", log)
        assert m and int(m.group(2)) + int(m.group(3)) > 0, log[-3000:]

    # -- telemetry and options --------------------------------------------
    def test_telemetry_http(self):
        self.curl(f"{BASE}/")
        lst = self.app.telemetry("/ewyk/http/list")
        assert lst == ["0"], lst
        st = _http_stats(self.app)
        assert st["objects"] == 1 and st["requests"] >= 1, st
        one = self.app.telemetry("/ewyk/http/stats,0")
        assert one["name"] == "0" and one["requests"] >= 1, one
        tot = self.app.telemetry("/ewyk/stats")["total"]
        assert tot["http_requests"] >= 1, tot

    def test_bad_options(self):
        for opt, val in (("--port", "70000"), ("--max-body", "0"),
                         ("--header-timeout", "x"),
                         ("--keepalive-timeout", "0")):
            p = subprocess.run(
                [httpd_binary(), "-l", "0", "--no-pci",
                 f"--file-prefix=ewyk-dts-opt-{self.node.tag}",
                 "--vdev=net_null0", "--log-level=lib.eal:error"]
                + eal_mem_args() + ["--", "--ip", "10.0.0.2/24", opt, val],
                capture_output=True, text=True, timeout=60)
            assert p.returncode == 2, (opt, p.returncode, p.stderr)
            assert f"error: {opt} '{val}'" in p.stderr, (opt, p.stderr)


# --- robustness, metrics, static files (http-tests) ---

import hashlib as _hashlib
import json as _json
import os as _os
import re as _re
import shutil as _shutil
import subprocess as _subprocess
import time as _time

import pytest as _pytest

from framework import http_corpus as _http_corpus
from framework.ewyk import (EWYK_IP as _EWYK_IP, EwykHttpd as _EwykHttpd,
                            Testbed as _Testbed, have as _have,
                            log_dir as _log_dir)
from framework.node import wait_for as _wait_for
from framework.test_suite import TestSuite as _TestSuite

_HTTP_PORT = 80
_PY = "/usr/bin/python3"
_URL = f"http://{_EWYK_IP}:{_HTTP_PORT}"
_HEADER_TIMEOUT_S = 2

# The peer's slowloris: N connections each sending the start of a head,
# then one more header line every INTERVAL s, until DUR s have passed or the
# server closed it. Prints how many the server closed (and how many got a
# 408 first).
_SLOWLORIS = r'''
import json, socket, sys, time
host, port, n, interval, dur = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
socks = []
for i in range(n):
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    s.setblocking(False)
    socks.append({"s": s, "closed": False, "got": b""})
print(json.dumps({"opened": len(socks)}), flush=True)
end = time.monotonic() + dur
while time.monotonic() < end and not all(c["closed"] for c in socks):
    for c in socks:
        if c["closed"]:
            continue
        try:
            d = c["s"].recv(4096)
            if not d:
                c["closed"] = True
            c["got"] += d
        except BlockingIOError:
            pass
        except OSError:
            c["closed"] = True
        if not c["closed"]:
            try:
                c["s"].send(b"X-Drip: a\r\n")
            except BlockingIOError:
                pass
            except OSError:
                c["closed"] = True
    time.sleep(interval)
closed = sum(1 for c in socks if c["closed"])
s408 = sum(1 for c in socks if c["got"].startswith(b"HTTP/1.1 408"))
for c in socks:
    c["s"].close()
print(json.dumps({"closed": closed, "status_408": s408}), flush=True)
'''

# GET /sleep/<ms> every PERIOD s for DUR s, one connection each.
_SLEEPER = r'''
import socket, sys, time
host, port, ms, period, dur = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
end = time.monotonic() + dur
n = ok = 0
while time.monotonic() < end:
    t = time.monotonic()
    try:
        s = socket.create_connection((host, port), timeout=10)
        s.sendall(b"GET /sleep/%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % ms)
        s.settimeout(10)
        buf = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            buf += d
        s.close()
        n += 1
        ok += buf.startswith(b"HTTP/1.1 200")
    except OSError:
        n += 1
    time.sleep(max(0.0, period - (time.monotonic() - t)))
print(n, ok)
'''


def _wrk_latency(out, pct="99%"):
    """A latency percentile of wrk --latency's output, in ms."""
    m = _re.search(r"^\s*" + _re.escape(pct) + r"\s+([\d.]+)(us|ms|s)\s*$",
                   out, _re.M)
    if not m:
        raise AssertionError(f"no {pct} in wrk output:\n{out}")
    v = float(m.group(1))
    return v / 1000 if m.group(2) == "us" else v * 1000 if m.group(2) == "s" else v


def _wrk_max(out):
    """The largest latency of wrk's thread stats, in ms."""
    m = _re.search(r"^\s*Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)\b", out,
                   _re.M)
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


class TestSuite_http_robustness(_TestSuite):
    """The malformed corpus, /metrics, --root, load and slow clients.

    ewyk-httpd runs on lcores 0 and 1 (one worker, one reserved lcore,
    adaptive strategy) with --root over a directory of test files and a
    short header timeout; the kernel peer's clients run on core 1.
    """

    def _app_args(self, strategy="adaptive"):
        return ["--stats-interval", "0", "--reserved", "1",
                "--strategy", strategy, "--root", self.root,
                "--header-timeout", str(_HEADER_TIMEOUT_S),
                "--max-body", "1048576"]

    def _start(self, strategy="adaptive", name="http-robust"):
        app = _EwykHttpd(self.tb, lcores="0,1",
                         app_args=self._app_args(strategy),
                         log_name=name).start()
        # A new process may have a new MAC: the peer learns it again.
        self.tb.peer("ip neigh flush all", check=False)
        self.tb.peer(f"ping -c 1 -W 3 {_EWYK_IP}")
        return app

    def set_up_all(self):
        self.dir = _log_dir()
        tag = self.node.tag
        self.root = _os.path.join(self.dir, f"http_root_{tag}")
        _shutil.rmtree(self.root, ignore_errors=True)
        _os.makedirs(_os.path.join(self.root, "sub", "deeper"))
        _os.makedirs(_os.path.join(self.root, "noindex"))
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
            with open(_os.path.join(self.root, p), "wb") as f:
                f.write(b)
        self.files = files
        self.big = _os.urandom(48 * 1000 * 1000)
        with open(_os.path.join(self.root, "big.bin"), "wb") as f:
            f.write(self.big)
        self.big_sha = _hashlib.sha256(self.big).hexdigest()
        # Symlinks: one inside the root (served), one out of it (403),
        # one to a directory out of it (403).
        _os.symlink("style.css", _os.path.join(self.root, "link_in.css"))
        _os.symlink("/etc/hostname", _os.path.join(self.root, "link_out"))
        _os.symlink("/etc", _os.path.join(self.root, "etc_out"))
        # A file beside the root that an escape would reach.
        self.secret = _os.path.join(self.dir, f"http_secret_{tag}.txt")
        with open(self.secret, "w") as f:
            f.write("secret\n")
        self.tb = _Testbed(self.node)
        self.app = self._start()
        self.slowloris = _os.path.join(self.dir, f"http_slowloris_{tag}.py")
        with open(self.slowloris, "w") as f:
            f.write(_SLOWLORIS)
        self.sleeper = _os.path.join(self.dir, f"http_sleeper_{tag}.py")
        with open(self.sleeper, "w") as f:
            f.write(_SLEEPER)

    def tear_down_all(self):
        _shutil.rmtree(getattr(self, "root", ""), ignore_errors=True)
        for p in (getattr(self, "secret", None),
                  getattr(self, "slowloris", None),
                  getattr(self, "sleeper", None)):
            if p and _os.path.exists(p):
                _os.unlink(p)

    # -- helpers ----------------------------------------------------------
    def _curl(self, args, check=True, timeout=30):
        return self.tb.peer(f"curl -sS --max-time 20 {args}", check=check,
                            timeout=timeout)

    def _status(self, path, extra=""):
        out = self._curl(f"-o /dev/null -w '%{{http_code}}' {extra} "
                         f"--path-as-is '{_URL}{path}'").stdout
        return int(out.strip())

    def _head(self, path, extra="", body=False):
        """(status, {lower-case field: value}, body text or "") of a GET."""
        keep = "-i" if body else "-D - -o /dev/null"
        out = self._curl(f"{keep} --path-as-is {extra} '{_URL}{path}'").stdout
        # (text mode: CRLF arrives as LF)
        head, _, body = out.replace("\r\n", "\n").partition("\n\n")
        lines = head.split("\n")
        fields = {}
        for ln in lines[1:]:
            k, _, v = ln.partition(":")
            fields[k.strip().lower()] = v.strip()
        return int(lines[0].split()[1]), fields, body

    def _metrics(self):
        return self._curl(f"'{_URL}/metrics'").stdout

    def _hello_ok(self):
        assert self._status("/") == 200, self.app.log()[-3000:]

    def _http_stats(self):
        return self.app.telemetry("/ewyk/http/stats")

    # -- the malformed corpus --------------------------------------------
    def test_malformed_corpus(self):
        corpus = _http_corpus.CORPUS
        before = self._metrics()
        out = self.tb.peer(f"{_PY} {_http_corpus.__file__} {corpus} "
                           f"{_EWYK_IP} {_HTTP_PORT}", timeout=600).stdout
        res = _json.loads(out.strip().splitlines()[-1])["results"]
        assert len(res) >= 40, res
        bad = [r for r in res if r["status"] != r["expect"] or not r["closed"]]
        assert not bad, bad
        # Every error was counted; the server still serves.
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
                     "ewyk_httpd_mbufs_in_use", "ewyk_httpd_http_conns",
                     "ewyk_httpd_tasks_total", "ewyk_httpd_lcore_tasks_total"):
            assert f"\n# TYPE {name} " in text, name
        if _have("promtool"):
            p = _subprocess.run(["promtool", "check", "metrics"], input=text,
                                capture_output=True, text=True, timeout=30)
            assert p.returncode == 0, (p.stdout, p.stderr)
        # The counters move with traffic: 50 more requests, more packets.
        req0 = _metrics_sum(text, "ewyk_http_requests_total")
        ok0 = _metrics_sum(text, "ewyk_http_resp_2xx_total")
        rx0 = _metrics_sum(text, "ewyk_net_rx_pkts_total")
        self._curl(" ".join(f"-o /dev/null '{_URL}/'" for _ in range(50)))
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
        out = self._curl(f"-I '{_URL}/pixel.png'").stdout
        assert "200" in out.splitlines()[0], out
        assert f"Content-Length: {len(self.files['pixel.png'])}" in out, out
        # Routes take precedence over files: / is the hello route, not
        # index.html; /metrics is the metrics page.
        out = self._curl(f"'{_URL}/'").stdout
        assert out == "hello world\n", out
        # 48 MB verified.
        out = self.tb.peer(f"sh -c \"curl -sS --max-time 60 '{_URL}/big.bin'"
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
        secret = _os.path.basename(self.secret)
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
        if not _have("wrk"):
            print("wrk missing")
        else:
            out = self.tb.peer(f"wrk -t2 -c50 -d10s --latency {_URL}/",
                               timeout=60).stdout
            assert "Socket errors" not in out, out
            assert "Non-2xx" not in out, out
            rps = float(_re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
            print(f"wrk -t2 -c50 -d10s /: {rps:.0f} req/s, p99 "
                  f"{_wrk_latency(out):.2f} ms")
        if _have("ab"):
            out = self.tb.peer(f"ab -k -q -n 20000 -c 50 {_URL}/",
                               timeout=120).stdout
            assert _re.search(r"Failed requests:\s+0\b", out), out
            assert "Non-2xx" not in out, out
            rps = float(_re.search(r"Requests per second:\s+([\d.]+)",
                                   out).group(1))
            print(f"ab -k -n 20000 -c 50 /: {rps:.0f} req/s, 0 failed")
        if _have("h2load"):
            out = self.tb.peer(f"h2load --h1 -n 20000 -c 50 {_URL}/",
                               check=False, timeout=120).stdout
            m = _re.search(r"requests: (\d+) total, \d+ started, (\d+) done, "
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
        conns0 = _metrics_sum(before, "ewyk_httpd_http_conns")
        tel0 = self.app.telemetry("/ewyk/http/stats,0")
        log = _os.path.join(self.dir, f"http_slowloris_{self.node.tag}.log")
        # A line every 0.5 s: each keeps the connection busy, none ends the
        # head; the header timeout (2 s from the first byte) ends them.
        proc = self.node.spawn(
            ["taskset", "-c", "1", _PY, self.slowloris, _EWYK_IP,
             str(_HTTP_PORT), "200", "0.5", str(6 * _HEADER_TIMEOUT_S)],
            ns=self.tb.ns_peer, log_path=log)
        assert _wait_for(lambda: _os.path.exists(log)
                         and "opened" in open(log).read(), timeout=30)
        # curl is served while they dribble.
        served = 0
        while proc.poll() is None:
            assert self._status("/") == 200
            served += 1
            _time.sleep(0.3)
        res = _json.loads(open(log).read().strip().splitlines()[-1])
        _os.unlink(log)
        assert res["closed"] == 200, res
        after = self._metrics()
        dt = _metrics_sum(after, "ewyk_http_timeout_header_total") - t0
        assert dt >= 200, dt
        tel = self.app.telemetry("/ewyk/http/stats,0")
        assert tel["timeout_header"] - tel0["timeout_header"] >= 200, tel
        # Connection objects back to where they were (telemetry, and the
        # /metrics gauge, which counts the /metrics request itself).
        assert _wait_for(lambda: self.app.telemetry("/ewyk/http/stats,0")
                         ["conns_in_use"] <= tel0["conns_in_use"], timeout=10)
        assert _wait_for(lambda: _metrics_sum(self._metrics(),
                                              "ewyk_httpd_http_conns")
                         <= conns0, timeout=10)
        print(f"slowloris 200 connections: all closed by the header "
              f"timeout ({res['status_408']} with a 408), "
              f"timeout_header +{dt:.0f}; {served} curls served meanwhile")

    # -- blocking routes and the strategy ----------------------------------
    def _wrk_p99(self, sleeps, secs=8):
        """/'s p99 (ms) under wrk, with /sleep/100 twice a second or not."""
        proc = None
        if sleeps:
            proc = self.node.spawn(
                ["taskset", "-c", "1", _PY, self.sleeper, _EWYK_IP,
                 str(_HTTP_PORT), "100", "0.5", str(secs + 1)],
                ns=self.tb.ns_peer)
        out = self.tb.peer(f"wrk -t1 -c10 -d{secs}s --latency {_URL}/",
                           timeout=secs + 60).stdout
        if proc is not None:
            proc.wait(timeout=30)
        assert "Socket errors" not in out, out
        return _wrk_latency(out), _wrk_latency(out, "50%"), _wrk_max(out)

    def _figures(self, reps=3, secs=6):
        """Median (p99, p50, max) of / without and with the sleeps,
        measured alternately reps times each."""
        runs = {False: [], True: []}
        for _ in range(reps):
            for sleeps in (False, True):
                runs[sleeps].append(self._wrk_p99(sleeps, secs))
        med = {}
        for sleeps, r in runs.items():
            med[sleeps] = tuple(sorted(x[i] for x in r)[len(r) // 2]
                                for i in range(3))
        return med

    def test_sleep_head_of_line(self):
        if not _have("wrk"):
            print("wrk missing: not run")
            return
        fig = {}
        try:
            med = self._figures()
            fig["adaptive", False], fig["adaptive", True] = med[False], med[True]
            self.app.stop()
            pc = self._start("pc", "http-robust-pc")
            med = self._figures()
            fig["pc", False], fig["pc", True] = med[False], med[True]
            pc.stop()
        finally:
            if not self.app.alive():
                type(self).app = self._start(name="http-robust-2")
        for (k, s), (p99, p50, mx) in sorted(fig.items()):
            print(f"strategy {k:8s} /sleep/100 at 2/s: {'yes' if s else 'no ':3s}"
                  f"  / p50 {p50:8.2f} ms  p99 {p99:8.2f} ms  max {mx:8.2f} ms"
                  f"  (medians of 3 runs of wrk -t1 -c10 -d6s)")
        a0, a1 = fig["adaptive", False][0], fig["adaptive", True][0]
        p0 = fig["pc", False][0]
        p1, p1max = fig["pc", True][0], fig["pc", True][2]
        if max(a0, p0) > 50:
            # Without any sleep, / already has a p99 beyond half of
            # the 100 ms being looked for: the machine (2 cores, shared)
            # is too loaded for either relation to mean anything.
            with open("/proc/loadavg") as f:
                load = f.read().split()[0]
            _pytest.skip(f"too loaded to measure (p99 without sleeps: "
                         f"adaptive {a0:.1f} ms, pc {p0:.1f} ms; load "
                         f"average {load}): {fig}")
        # pc runs the sleep on the worker: requests behind it wait up to
        # 100 ms (p99 shows it unless / is so fast that fewer than 1% of
        # its requests queue behind a sleep: then the largest does).
        assert p1 >= 80 or p1max >= 90, fig
        # adaptive runs it off the worker (EPC: production moves to the
        # reserved lcore; PEC: the task does): / is not held behind it.
        assert a1 <= 2 * max(a0, 1.0) or a1 < p1 / 2, fig

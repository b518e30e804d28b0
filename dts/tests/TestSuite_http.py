# SPDX-License-Identifier: BSD-3-Clause
"""ewyk-httpd's HTTP/1.1 against real clients on the kernel peer.

ewyk-httpd serves HTTP on port 80 on one end of a veth pair through
net_af_packet (lcore 0); curl and a raw-socket client
(``framework/http_client.py``, run in the peer namespace, pinned to core
1) talk to it. Checked:

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
# The peer's raw HTTP client, run in the peer namespace.
HTTP_CLIENT = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "http_client.py")


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
        self.client_py = HTTP_CLIENT
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")

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
        st = self.app.telemetry("/ewyk/stats")
        tot = st["total"]
        assert tot["http_requests"] >= 1, tot
        # Every packet the loop took is in one bucket of the histogram by
        # iteration length (idle now: both were read at rest).
        lc = st["lcore_0"]
        hist = lc["pkts_by_iter_log2_us"]
        assert len(hist) == 16 and sum(hist) == lc["busy_pkts"] >= 1, lc
        assert lc["loop_stalls"] >= 0 and lc["loop_stall_cycles"] >= 0, lc

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

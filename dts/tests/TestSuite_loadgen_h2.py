# SPDX-License-Identifier: BSD-3-Clause
"""ewyk-loadgen --h2: an HTTP/2 client (h2c, prior knowledge; one nghttp2
session per connection, --streams open on each) on ewyk's stack, checked
against servers that count what they answered.

- nginx (Debian nginx-light, ``listen PORT http2`` on a cleartext
  listener) in the peer namespace, ewyk-loadgen on the veth's other end
  (net_af_packet): nginx's request count (stub_status) moves by exactly
  the responses the loadgen counted, with 10 streams per connection; a
  4 MiB body per stream (DATA against content-length, flow control);
  a server limit of 4 concurrent streams under --streams 10 (a stream over
  the limit would be refused with RST_STREAM: none is); nginx's GOAWAY
  after 50 requests per connection (the loadgen reconnects; streams above
  the GOAWAY's last id are counted, not lost silently);
- errors counted by kind against a python3-h2 server that misbehaves on
  purpose (dts/framework/h2_bad_server.py): RST_STREAM, GOAWAY, a body
  shorter than its content-length, no SETTINGS at all (timeouts), one
  stream never answered among answered ones (a timeout), and an
  HTTP/1.1 server answering the preface; every run ends cleanly with its
  JSON line.

Short runs (about a second each); nothing here asserts a speed.
"""

import json
import os
import re
import shutil
import sys

import pytest

from framework.ewyk import EWYK_IP, PEER_IP, PREFIX, Testbed, log_dir
from framework.loadgen import loadgen_binary, parse_json, run_loadgen
from framework.node import wait_for
from framework.test_suite import TestSuite

H1_PORT = 8080     # HTTP/1.1: stub_status, and the "not h2" case
H2_PORT = 8082     # h2c
H2_LIMIT_PORT = 8083   # h2c, http2_max_concurrent_streams 4
H2_GOAWAY_PORT = 8084  # h2c, keepalive_requests 50 (GOAWAY after 50)
BAD_PORT = 8090
BIG = 4 * 1024 * 1024

NGINX_CONF = """worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    server {{
        listen {ip}:{h1} backlog=1024;
        listen {ip}:{h2} http2 backlog=1024;
        location / {{ return 200 "hello world\\n"; }}
        location /err {{ return 500 "oops\\n"; }}
        location /big/ {{ root {d}; }}
        location = /status {{ stub_status; }}
    }}
    server {{
        listen {ip}:{lim} http2;
        http2_max_concurrent_streams 4;
        location / {{ return 200 "hello world\\n"; }}
    }}
    server {{
        listen {ip}:{ga} http2;
        keepalive_requests 50;
        location / {{ return 200 "hello world\\n"; }}
    }}
}}
"""


class TestSuite_loadgen_h2(TestSuite):

    def set_up_all(self):
        if shutil.which("nginx") is None:
            pytest.skip("nginx (nginx-light) not installed")
        self.bin = loadgen_binary()
        self.tb = Testbed(self.node)
        self.ndir = os.path.join(log_dir(), f"loadgen-h2-{self.node.tag}")
        os.makedirs(os.path.join(self.ndir, "big"), exist_ok=True)
        os.chmod(self.ndir, 0o755)
        with open(os.path.join(self.ndir, "big", "4m"), "wb") as f:
            f.write(bytes(range(256)) * (BIG // 256))
        with open(os.path.join(self.ndir, "nginx.conf"), "w") as f:
            f.write(NGINX_CONF.format(d=self.ndir, ip=PEER_IP, h1=H1_PORT,
                                      h2=H2_PORT, lim=H2_LIMIT_PORT,
                                      ga=H2_GOAWAY_PORT))
        self.nginx = self.node.spawn(
            ["taskset", "-c", "1", "nginx", "-c",
             os.path.join(self.ndir, "nginx.conf")],
            ns=self.tb.ns_peer, log_path=os.path.join(self.ndir, "out.log"))
        ok = wait_for(lambda: self.tb.peer(
            f"curl -s -m 1 --http2-prior-knowledge "
            f"http://{PEER_IP}:{H2_PORT}/", check=False).stdout ==
            "hello world\n", timeout=10)
        assert ok, "nginx (h2c) did not answer"

    def nginx_requests(self):
        """nginx's count of requests (stub_status), this one included."""
        out = self.tb.peer(f"curl -s -m 5 http://{PEER_IP}:{H1_PORT}"
                           "/status").stdout
        m = re.search(r"^\s*\d+\s+\d+\s+(\d+)\s*$", out, re.M)
        assert m, out
        return int(m.group(1))

    def loadgen(self, port, args, timeout=60, **kw):
        p = run_loadgen(self.node, self.tb, self.bin,
                        f"--ip {EWYK_IP}/{PREFIX} --target {PEER_IP}:{port} "
                        f"--quiet --h2 {args}", timeout=timeout, **kw)
        return parse_json(p.stdout), p

    def nginx_run(self, port, args, **kw):
        before = self.nginx_requests()
        r, p = self.loadgen(port, args, **kw)
        # Less the status request of the second reading.
        r["nginx_requests"] = self.nginx_requests() - before - 1
        return r, p

    def check_counts(self, r, status_errors=False):
        """Every stream came to one outcome, and nginx answered exactly the
        responses the loadgen counted (it waits for every stream). A
        response that is not 2xx is a response and a status error."""
        lost = 0 if status_errors else r["errors_total"]
        assert r["sent_total"] == r["responses_total"] + lost, r
        assert r["responses_total"] == r["nginx_requests"], r

    def test_nginx_streams(self):
        r, p = self.nginx_run(H2_PORT, "--conns 4 --streams 10 --duration 1")
        assert "HTTP/2" in p.stderr, p.stderr
        assert r["errors"] == 0 and r["errors_total"] == 0, r
        assert r["requests"] > 0 and r["rps"] > 0, r
        assert r["connects"] == 4, r
        assert 0 < r["p50_us"] <= r["p99_us"] <= r["max_us"], r
        self.check_counts(r)

    def test_nginx_open_loop(self):
        r, _ = self.nginx_run(H2_PORT, "--conns 4 --streams 4 --rate 2000 "
                              "--duration 1")
        assert r["errors_total"] == 0, r
        # Open loop: what was asked for, not what the server could do.
        assert 1000 <= r["requests"] <= 2100, r
        self.check_counts(r)

    def test_nginx_two_lcores(self):
        """Connections over two lcores (two af_packet queue pairs), each
        with its sessions and its output chain."""
        r, p = self.nginx_run(H2_PORT, "--conns 6 --streams 10 --duration 1",
                              lcores="0,1", vdev_args=",qpairs=2")
        assert r["lcores"] == 2 and r["errors_total"] == 0, r
        assert r["connects"] == 6, r
        per = re.findall(r"^loadgen: lcore (\d+): (\d+) req", p.stderr,
                         re.M)
        assert len(per) == 2 and all(int(n) > 0 for _, n in per), p.stderr
        self.check_counts(r)

    def test_nginx_big_bodies(self):
        """4 MiB per stream: DATA frames against content-length, windows
        opened by the loadgen's WINDOW_UPDATEs."""
        r, _ = self.nginx_run(H2_PORT, "--conns 2 --streams 4 --duration 1 "
                              "--path /big/4m")
        assert r["errors_total"] == 0 and r["requests"] > 0, r
        self.check_counts(r)

    def test_nginx_status_counted(self):
        r, _ = self.nginx_run(H2_PORT, "--conns 2 --streams 10 --duration 1 "
                              "--path /err")
        assert r["requests"] == 0 and r["errors_by_kind"]["status"] > 0, r
        assert r["errors"] == r["errors_by_kind"]["status"], r
        assert r["errors_total"] == r["sent_total"], r
        self.check_counts(r, status_errors=True)

    def test_nginx_concurrency_limit(self):
        """--streams 10 against a limit of 4: never more than 4 open (nginx
        refuses a fifth with RST_STREAM, which would count)."""
        r, _ = self.loadgen(H2_LIMIT_PORT, "--conns 2 --streams 10 "
                            "--duration 1")
        assert r["errors_total"] == 0 and r["requests"] > 0, r
        assert r["sent_total"] == r["responses_total"], r

    def test_nginx_goaway_reconnects(self):
        """nginx sends GOAWAY after 50 requests on a connection: the loadgen
        reconnects; streams it had opened above the GOAWAY's last stream
        id are counted as goaway errors, nothing else is lost."""
        r, _ = self.nginx_run(H2_GOAWAY_PORT, "--conns 2 --streams 10 "
                              "--duration 1")
        assert r["connects"] > 2 and r["requests"] > 0, r
        kinds = {k for k, v in r["errors_by_kind"].items() if v}
        assert kinds <= {"goaway"}, r
        self.check_counts(r)

    def bad_server(self, mode, k=3):
        """The python3-h2 server in the peer namespace; returns a stop
        function giving its counts."""
        script = os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "framework", "h2_bad_server.py")
        logp = os.path.join(self.ndir, f"bad-{mode}.log")
        proc = self.node.spawn(["taskset", "-c", "1", sys.executable,
                                script, mode, PEER_IP, str(BAD_PORT),
                                str(k)],
                               ns=self.tb.ns_peer, log_path=logp)

        def text():
            with open(logp) as f:
                return f.read()
        assert wait_for(lambda: "listening" in text()
                        or proc.poll() is not None, timeout=10), text()

        def stop():
            self.node.stop(proc)
            lines = [ln for ln in text().splitlines() if ln.startswith("{")]
            assert lines, text()
            return json.loads(lines[-1])
        return stop

    def test_bad_rst_stream(self):
        stop = self.bad_server("rst")
        try:
            r, _ = self.loadgen(BAD_PORT, "--conns 2 --streams 10 "
                                "--duration 1")
        finally:
            c = stop()
        assert r["requests"] > 0 and r["errors_by_kind"]["rst_stream"] > 0, r
        assert r["errors"] == r["errors_by_kind"]["rst_stream"], r
        assert r["responses_total"] == c["answered"], (r, c)
        assert r["errors_total"] == c["reset"], (r, c)
        assert r["sent_total"] == c["requests"], (r, c)

    def test_bad_goaway(self):
        stop = self.bad_server("goaway", k=3)
        try:
            r, _ = self.loadgen(BAD_PORT, "--conns 2 --streams 10 "
                                "--duration 1")
        finally:
            c = stop()
        assert r["requests"] > 0 and r["errors_by_kind"]["goaway"] > 0, r
        assert r["errors"] == r["errors_by_kind"]["goaway"], r
        # Three answers per connection, the rest of each connection's
        # streams lost to its GOAWAY and counted.
        assert r["responses_total"] == c["answered"], (r, c)
        # (Connections the drain caught before their streams opened
        # answered nothing.)
        assert 3 * (r["connects"] - 2) <= r["responses_total"] <= \
            3 * r["connects"], (r, c)
        assert r["sent_total"] == r["responses_total"] + r["errors_total"], r

    def test_bad_content_length(self):
        stop = self.bad_server("badlen")
        try:
            r, _ = self.loadgen(BAD_PORT, "--conns 2 --streams 4 "
                                "--duration 0.5")
        finally:
            stop()
        assert r["responses_total"] == 0 and r["requests"] == 0, r
        assert r["errors_by_kind"]["framing"] > 0, r
        assert r["errors"] == r["errors_by_kind"]["framing"], r

    def test_bad_silent_times_out(self):
        stop = self.bad_server("silent")
        try:
            r, _ = self.loadgen(BAD_PORT, "--conns 2 --streams 4 "
                                "--duration 1 --timeout 200")
        finally:
            c = stop()
        assert r["sent_total"] == 0 and r["responses_total"] == 0, r
        assert r["errors_by_kind"]["timeout"] > 0, r
        assert r["errors"] == r["errors_by_kind"]["timeout"], r
        assert c["connections"] >= 2, c

    def test_bad_stalled_stream(self):
        """One stream of each connection never answered while the others
        are: it times out on its own clock (the connection is given up,
        its streams in flight counted as timeouts)."""
        stop = self.bad_server("stall", k=3)
        try:
            r, _ = self.loadgen(BAD_PORT, "--conns 2 --streams 4 "
                                "--duration 1.5 --timeout 300")
        finally:
            c = stop()
        assert r["requests"] > 0, r
        assert r["errors_by_kind"]["timeout"] > 0, r
        assert r["errors"] == r["errors_by_kind"]["timeout"], r
        assert c["stalled"] >= 2, c
        # Answers on their way when a connection was given up are the
        # server's, not the loadgen's: they are among its timeouts.
        assert r["responses_total"] <= c["answered"] <= \
            r["responses_total"] + r["errors_total"], (r, c)
        assert r["sent_total"] == r["responses_total"] + r["errors_total"], r

    def test_http1_server(self):
        """The preface to an HTTP/1.1 server: its answer is not HTTP/2,
        counted framing, and the run ends cleanly."""
        r, _ = self.loadgen(H1_PORT, "--conns 2 --streams 4 --duration 0.5")
        assert r["responses_total"] == 0 and r["requests"] == 0, r
        assert r["errors_by_kind"]["framing"] > 0, r
        assert r["errors"] == r["errors_by_kind"]["framing"], r

    def test_bad_options(self):
        base = (f"--ip {EWYK_IP}/{PREFIX} --target {PEER_IP}:{H2_PORT} "
                "--conns 1 --duration 1")
        for args, msg in ((f"{base} --streams 4", "--streams needs --h2"),
                          (f"{base} --h2 --streams 0", "--streams '0'"),
                          (f"{base} --h2 --streams 1025", "--streams"),
                          (f"{base} --h2 --pipeline 2", "--pipeline"),
                          (f"{base} --h2 --new-conn", "--new-conn")):
            p = run_loadgen(self.node, self.tb, self.bin, args, expect_rc=2)
            assert "error" in p.stderr and msg in p.stderr, (msg, p.stderr)
            assert p.stdout == "", p.stdout

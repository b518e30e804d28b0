# SPDX-License-Identifier: BSD-3-Clause
"""Request heads as large as the parser accepts, on every kind of route.

A dispatched route (BLOCKING or EITHER) gets a copy of the request head.
That copy was a fixed 4 KiB with 32 fields, so a head the parser had
accepted (16 KiB of header section and 64 fields by default) was answered
431 only because its route was dispatched. Now a head that does not fit in
the task itself takes one of the shard's large copies, sized from the
server's limits; with all of them in use the answer is 503 (counted
task_head_busy), and a head over the parser's limits is 431 on every
route, in place or dispatched.

ewyk-httpd runs on lcores 0 and 1 (one worker, one reserved lcore, the
adaptive strategy) with --root; the raw client runs in the peer namespace.
"""

import json
import os
import shutil

from framework.ewyk import EWYK_IP, EwykHttpd, Testbed, log_dir
from framework.test_suite import TestSuite

PY = "/usr/bin/python3"
MAX_HEADER_BYTES = 16384  # EWYK_HTTP_DEF_MAX_HEADER_BYTES
MAX_HEADERS = 64  # EWYK_HTTP_DEF_MAX_HEADERS
# The peer's client: N connections at once, each sends one head.
CLIENT = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "http_heads_client.py")


class TestSuite_http_heads(TestSuite):

    def set_up_all(self):
        self.dir = log_dir()
        tag = self.node.tag
        self.root = os.path.join(self.dir, f"http_heads_root_{tag}")
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        with open(os.path.join(self.root, "f.txt"), "wb") as f:
            f.write(b"file\n")
        self.client = CLIENT
        self.tb = Testbed(self.node)
        self.app = EwykHttpd(self.tb, lcores="0,1",
                             app_args=["--stats-interval", "0", "--port",
                                       "80", "--reserved", "1", "--root",
                                       self.root, "--task-timeout", "3000"],
                             log_name="ewyk-httpd-heads").start()
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")

    def tear_down_all(self):
        shutil.rmtree(getattr(self, "root", ""), ignore_errors=True)

    def _send(self, method, path, fields, pad, body="-", n=1):
        out = self.tb.peer(f"{PY} {self.client} {EWYK_IP} {n} {method} "
                           f"'{path}' {fields} {pad} '{body}'",
                           timeout=120).stdout
        return json.loads(out.strip().splitlines()[-1])

    def _shard(self):
        return self.app.telemetry("/ewyk/stats")["shard_0"]

    # Every kind of route: in place, BLOCKING (sleep, a file), EITHER.
    ROUTES = [("GET", "/", "-", "hello world\n"),
              ("GET", "/sleep/1", "-", "slept 1 ms\n"),
              ("GET", "/f.txt", "-", "file\n"),
              ("POST", "/sha256", "abc",
               "ba7816bf8f01cfea414140de5dae2223"
               "b00361a396177a9cb410ff61f20015ad\n")]

    def test_large_head_every_route(self):
        # 12 KiB of header section in 60 fields (61 with Host, 62 with
        # Content-Length): within the parser's limits, far over 4 KiB.
        t0 = self._shard()
        for method, path, body, want in self.ROUTES:
            r = self._send(method, path, 60, 195, body)
            assert 12 * 1024 <= r["head_bytes"] < MAX_HEADER_BYTES, r
            assert r["status"] == [200], (path, r)
            assert r["body"] == want, (path, r)
        t1 = self._shard()
        print(f"12 KiB heads with 60 fields: 200 on {len(self.ROUTES)} "
              f"routes; dispatched "
              f"+{t1['task_dispatched'] - t0['task_dispatched']}")
        assert t1["task_dispatched"] - t0["task_dispatched"] >= 2
        assert t1["task_head_busy"] == t0["task_head_busy"]

    def test_over_limits_431_every_route(self):
        for method, path, body, _ in self.ROUTES:
            # header section over max_header_bytes
            r = self._send(method, path, 60, 300, body)
            assert r["head_bytes"] > MAX_HEADER_BYTES, r
            assert r["status"] == [431], (path, r)
            # more fields than the parser keeps
            r = self._send(method, path, MAX_HEADERS, 4, body)
            assert r["status"] == [431], (path, r)
        r = self._send("GET", "/", 0, 0)
        assert r["status"] == [200], r

    def test_large_heads_exhausted_503(self):
        # 80 dispatched requests with 6 KiB heads at once: the task itself
        # holds 4 KiB, so each takes a large copy while its 1 s sleep waits
        # for the one reserved lcore; the shard has 64 (HTTPD_REQ_LARGE),
        # of which one source (the peer) may hold a quarter
        # (ewyk_http_quota): the rest are answered 503 and counted, none
        # 431; the copies come back (a large head is served afterwards).
        n, large = 80, 64 // 4
        t0 = self._shard()
        r = self._send("GET", "/sleep/1000", 30, 200, n=n)
        t1 = self._shard()
        st = r["status"]
        busy = t1["task_head_busy"] - t0["task_head_busy"]
        print(f"{n} dispatched 6 KiB heads at once: "
              f"{ {s: st.count(s) for s in set(st)} }, head_busy +{busy}")
        assert len(st) == n and set(st) <= {200, 503, 504}, st
        assert st.count(503) >= n - large, st
        assert busy == st.count(503), (busy, st)
        r = self._send("GET", "/sleep/1", 60, 195)
        assert r["status"] == [200], r

# SPDX-License-Identifier: BSD-3-Clause
"""One address cannot take every HTTP connection object of a shard.

ewyk-httpd's HTTP connection objects were a fixed 2048 per shard while
lib/tcp let one source hold 4096 connections: one address holding 2047
idle keep-alive connections left new clients refused. Now (lib/http's
http_slots.c, docs/guides/http.md "Connection objects and head leases"):

- one peer address holds at most its share of the objects
  (--http-max-per-src); beyond it its connections are reset
  (conn_src_refused) while another address in the peer namespace is
  served;
- with every object held by idle keep-alive connections, a new client is
  served all the same: the oldest idle connection is closed (FIN,
  idle_reclaimed) and its object taken, and the others stay.

ewyk-httpd runs on lcore 0 with small limits so that the test is quick;
the kernel peer's clients run on core 1, from 198.18.0.1 and from more
addresses added on the peer's veth.
"""

import json
import os

from framework.ewyk import EWYK_IP, PEER_IP, PREFIX, EwykHttpd, Testbed
from framework.test_suite import TestSuite

PY = "/usr/bin/python3"
# More addresses of the peer (its veth), as other sources.
OTHER_IPS = ["198.18.0.3", "198.18.0.4"]

FRAMEWORK = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework")
# The peer's tools (their usage in their docstrings).
CLIENT = os.path.join(FRAMEWORK, "slots_client.py")
UPLOADS = os.path.join(FRAMEWORK, "slots_uploads.py")


class TestSuite_http_slots(TestSuite):

    def set_up_all(self):
        self.client = CLIENT
        self.uploads = UPLOADS
        self.tb = Testbed(self.node)
        for ip in OTHER_IPS:
            self.node.run(f"ip addr add {ip}/{PREFIX} dev {self.tb.if_peer}",
                          ns=self.tb.ns_peer)

    def _start(self, name, *opts):
        app = EwykHttpd(self.tb, lcores="0",
                        app_args=["--stats-interval", "0"] + list(opts),
                        log_name=name).start()
        self.tb.peer("ip neigh flush all", check=False)
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
        return app

    def _run(self, src, n, new):
        out = self.tb.peer(f"{PY} {self.client} {EWYK_IP} {src} {n} "
                           f"'{','.join(new)}'", timeout=120).stdout
        return json.loads(out.strip().splitlines()[-1])

    @staticmethod
    def _http(app):
        return app.telemetry("/ewyk/http/stats,0")

    def test_per_source_share(self):
        # 4096 objects (as many hash buckets: two addresses share one
        # with odds 1/4096, so two other addresses are tried), 16 per
        # source.
        app = self._start("http-slots-share", "--http-max-conns", "4096",
                          "--http-max-per-src", "16")
        try:
            r = self._run(PEER_IP, 40, OTHER_IPS)
            h = self._http(app)
        finally:
            assert app.stop() == 0
        print(f"one source: {r['ok']} of 40 served, others {r['others']}, "
              f"conn_src_refused {h['conn_src_refused']}")
        assert r["ok"] == 16, r
        assert 200 in r["others"].values(), r
        assert h["conn_src_refused"] >= 24, h
        assert h["conn_refused"] == 0 and h["idle_reclaimed"] == 0, h
        assert r["closed"] == [] and r["last_alive_status"] == 200, r

    def test_defaults_one_source(self):
        # The defaults: an object per TCP connection (from the memory:
        # 65536 with -m 512), a quarter
        # per source. One source holding 2100 idle connections (more than
        # the 2048 objects there were) leaves other sources served.
        app = self._start("http-slots-defaults")
        try:
            r = self._run(PEER_IP, 2100, OTHER_IPS[:1])
            h = self._http(app)
        finally:
            assert app.stop() == 0
        print(f"one source: {r['ok']} of 2100 served, others {r['others']}")
        assert r["ok"] == 2100, r
        assert r["others"] == {OTHER_IPS[0]: 200}, r
        assert h["conn_refused"] == 0 and h["conn_src_refused"] == 0, h

    def test_idle_reclaimed(self):
        # 32 objects, all of them one source's: every one idle, a new
        # client is served by closing the oldest. A share of all 32 is no
        # per-source limit: a new address whose bucket (one of 32, keyed
        # at random) is the first source's is served all the same (it was
        # refused, one run in 32 per address).
        app = self._start("http-slots-lru", "--http-max-conns", "32",
                          "--http-max-per-src", "32")
        try:
            r = self._run(PEER_IP, 32, OTHER_IPS)
            h = self._http(app)
            t = app.tcp_stats()
        finally:
            assert app.stop() == 0
        print(f"32 idle of one source, then {len(OTHER_IPS)} new clients: "
              f"{r['others']}; closed {r['closed']}; idle_reclaimed "
              f"{h['idle_reclaimed']}")
        print("tcp:", {k: v for k, v in t.items() if v})
        print("http:", {k: v for k, v in h.items() if v})
        assert r["ok"] == 32, r
        assert list(r["others"].values()) == [200] * len(OTHER_IPS), r
        assert h["idle_reclaimed"] == len(OTHER_IPS), h
        # the oldest went, in order; the newest is still served
        assert r["closed"] == list(range(len(OTHER_IPS))), r
        assert r["last_alive_status"] == 200, r
        assert h["conn_refused"] == 0, h
        assert h["conn_src_refused"] == 0, h

    def _uploads(self, path):
        """70 endless uploads to PATH from one source, then one from
        another: (statuses, the other's status, http counters)."""
        app = self._start("http-slots-" + path.strip("/"))
        try:
            out = self.tb.peer(f"{PY} {self.uploads} {EWYK_IP} {PEER_IP} "
                               f"70 1.5 {OTHER_IPS[0]} {path}",
                               timeout=120).stdout
            r = json.loads(out.strip().splitlines()[-1])
            h = self._http(app)
        finally:
            assert app.stop() == 0
        st = r["status"]
        print(f"70 endless {path} uploads from one source: "
              f"{ {s: st.count(s) for s in set(st)} }, quota_refused "
              f"{h.get('quota_refused')}; another source: {r['other']}")
        return st, r["other"], h

    def test_sha256_states_per_source(self):
        # 256 /sha256 states per shard, 64 per source (ewyk_http_quota):
        # the last 6 of 70 endless uploads from one source are answered
        # 503 at once and counted; another source still gets a state.
        st, other, h = self._uploads("/sha256")
        assert st[64:] == [503] * 6 and st[:64] == [0] * 64, st
        assert other == 0, other  # a state taken, waiting for its body
        assert h["quota_refused"] == 6, h

    def test_echo_states_per_source(self):
        # The same for /echo's 256 states (its response starts at once).
        st, other, h = self._uploads("/echo")
        assert st[64:] == [503] * 6 and st[:64] == [200] * 64, st
        assert other == 200, other
        assert h["quota_refused"] == 6, h

# SPDX-License-Identifier: BSD-3-Clause
"""HTTP/2 (h2c) of ewyk-httpd against the kernel peer's clients.

ewyk-httpd runs on two lcores (a worker and one ``--reserved`` lcore),
over net_af_packet; the clients run in the peer namespace on core 1:

- ``curl --http2-prior-knowledge`` (the preface on the HTTP port) and
  ``curl --http2`` (HTTP/1.1 ``Upgrade: h2c``, answered 101, the request
  becoming stream 1), on every route of ewyk-httpd;
- ``nghttp -nv`` with 100 concurrent streams on one connection, and
  ``h2load -c 10 -m 100 -n 100000`` without one error;
- a 100 MB ``/bytes`` download and a 30 MB ``/sha256`` upload, verified;
- the starvation case: with the reserved lcore busy in ``/sleep``, a
  ``POST /sha256`` whose body trickles in completes, because the
  connection (the producer) keeps reading DATA and granting
  WINDOW_UPDATEs whatever the lcores do;
- a blocking stream beside 99 fast ones on one connection: the fast
  ones are answered first;
- per-source shares: one address holding every stream it can gets a
  quarter of the shard's, the rest REFUSED_STREAM, and another address
  is served meanwhile;
- the body budget: with ``--h2-body-budget`` 16 MiB, one address
  uploading more than its quarter on 8 streams stalls on a zero window
  (no more window than its share and one connection window), the
  shard's held bytes stay within the budget, counted, and another
  address's 3 MB ``POST /sha256`` completes meanwhile;
- frame-level cases with python3-h2 (dts/framework/h2_peer.py): bad
  preface, frames on idle and closed streams, window overflow, rapid
  reset, CONTINUATION flood, HPACK bomb, each answered as RFC 9113 says,
  and the server keeps serving.
"""

import hashlib
import json
import os
import re
import threading
import time

from framework.ewyk import EWYK_IP, EwykHttpd, Testbed, have
from framework.node import wait_for
from framework.test_suite import TestSuite

PY = "/usr/bin/python3"
URL = f"http://{EWYK_IP}"
PEER2_IP = "198.18.0.3"  # a second address of the peer (another source)
PEER = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "h2_peer.py")


def _pattern_sha(n):
    """SHA-256 of /bytes/<n>: byte i is i % 256."""
    h = hashlib.sha256()
    block = bytes(range(256)) * 4096
    while n > 0:
        k = min(n, len(block))
        h.update(block[:k])
        n -= k
    return h.hexdigest()


class TestSuite_http2(TestSuite):

    def set_up_all(self):
        assert have("curl") and have("nghttp") and have("h2load")
        self.tb = Testbed(self.node)
        self.app = EwykHttpd(self.tb, lcores="0,1",
                             app_args=["--stats-interval", "0",
                                       "--reserved", "1",
                                       "--task-timeout", "20000"],
                             log_name="ewyk-httpd-http2").start()
        self.tb.peer("ip neigh flush all", check=False)
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")

    # -- helpers ----------------------------------------------------------
    def _curl(self, args, timeout=60):
        r = self.tb.peer(f"curl -sS --max-time {timeout} "
                         f"-w '\\n%{{http_version}} %{{http_code}}' {args}",
                         check=False, timeout=timeout + 10)
        body, _, tail = r.stdout.rpartition("\n")
        ver, _, code = tail.partition(" ")
        return ver, int(code or 0), body.rstrip("\n"), r.stderr

    def _h2(self):
        return self.app.telemetry("/ewyk/http2/stats")

    def _peer(self, case, timeout=60):
        r = self.tb.peer(f"{PY} {PEER} {EWYK_IP} {case}", check=False,
                         timeout=timeout)
        assert r.returncode == 0, (case, r.stdout, r.stderr)
        return json.loads(r.stdout.strip().splitlines()[-1])

    def _still_serves(self):
        ver, code, body, err = self._curl(f"--http2-prior-knowledge {URL}/")
        assert (ver, code, body) == ("2", 200, "hello world"), (ver, code,
                                                                err)

    # -- curl ---------------------------------------------------------------
    def test_curl_prior_knowledge(self):
        ver, code, body, err = self._curl(f"--http2-prior-knowledge {URL}/")
        assert (ver, code, body) == ("2", 200, "hello world"), (ver, code,
                                                                 body, err)
        r = self.tb.peer(f"curl -sS --http2-prior-knowledge {URL}/bytes/1000"
                         " | sha256sum")
        assert r.stdout.split()[0] == _pattern_sha(1000)
        ver, code, body, _ = self._curl(
            f"--http2-prior-knowledge -d 'hello echo' {URL}/echo")
        assert (ver, code, body) == ("2", 200, "hello echo"), (ver, code,
                                                                body)
        ver, code, body, _ = self._curl(
            f"--http2-prior-knowledge -d abc {URL}/sha256")
        assert code == 200 and body == hashlib.sha256(b"abc").hexdigest()
        ver, code, body, _ = self._curl(
            f"--http2-prior-knowledge {URL}/sleep/10")
        assert (ver, code, body) == ("2", 200, "slept 10 ms"), (ver, code,
                                                                 body)
        ver, code, body, _ = self._curl(
            f"--http2-prior-knowledge {URL}/metrics")
        assert code == 200 and "ewyk_http2_requests_total" in body
        ver, code, body, _ = self._curl(
            f"--http2-prior-knowledge {URL}/nothing-here")
        assert (ver, code) == ("2", 404)
        ver, code, body, _ = self._curl(
            f"--http2-prior-knowledge -X DELETE {URL}/echo")
        assert (ver, code) == ("2", 405)
        assert self._h2()["conn_prior_knowledge"] >= 8

    def test_curl_upgrade(self):
        ver, code, body, err = self._curl(f"--http2 {URL}/")
        assert (ver, code, body) == ("2", 200, "hello world"), (ver, code,
                                                                 body, err)
        r = self.tb.peer(f"curl -sS --http2 {URL}/bytes/100000 | sha256sum")
        assert r.stdout.split()[0] == _pattern_sha(100000)
        # A request with a body is served as HTTP/1.1 (no upgrade).
        ver, code, body, _ = self._curl(f"--http2 -d xyz {URL}/echo")
        assert (ver, code, body) == ("1.1", 200, "xyz"), (ver, code, body)
        assert self._h2()["conn_upgraded"] >= 2

    # -- many streams -------------------------------------------------------
    def test_nghttp_100_streams(self):
        urls = " ".join(f"{URL}/bytes/{1000 + i}" for i in range(100))
        r = self.tb.peer(f"nghttp -nv -m 1 {urls}", check=False, timeout=60)
        assert r.returncode == 0, r.stderr[-2000:]
        heads = re.findall(r"recv HEADERS frame <.*?stream_id=(\d+)>",
                           r.stdout)
        statuses = re.findall(r":status: (\d+)", r.stdout)
        assert len(statuses) == 100 and set(statuses) == {"200"}, statuses
        assert len(set(heads)) == 100
        # one connection, 100 concurrent streams allowed by SETTINGS
        assert "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):100" in r.stdout

    def test_h2load(self):
        r = self.tb.peer(f"h2load -c 10 -m 100 -n 100000 {URL}/",
                         check=False, timeout=180)
        print(r.stdout[-1500:])
        assert r.returncode == 0, r.stderr
        m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, "
                      r"(\d+) succeeded, (\d+) failed, (\d+) errored",
                      r.stdout)
        assert m, r.stdout
        total, _, done, ok, failed, errored = map(int, m.groups())
        assert (done, ok, failed, errored) == (100000, 100000, 0, 0), m.group(0)
        assert "status codes: 100000 2xx" in r.stdout
        rs = re.search(r"finished in [^,]+, ([\d.]+) req/s", r.stdout)
        print(f"h2load over af_packet (shared machine): {rs.group(1)} req/s")

    # -- large bodies ---------------------------------------------------------
    def test_big_download_and_upload(self):
        n = 100 * 1000 * 1000
        r = self.tb.peer(f"curl -sS --http2-prior-knowledge --max-time 170 "
                         f"{URL}/bytes/{n} | sha256sum", timeout=180)
        assert r.stdout.split()[0] == _pattern_sha(n)
        up = 30 * 1000 * 1000
        r = self.tb.peer(
            f"sh -c 'head -c {up} /dev/zero | tr \"\\000\" x > /tmp/h2up-{self.node.tag} && "
            f"curl -sS --http2-prior-knowledge --max-time 170 "
            f"--data-binary @/tmp/h2up-{self.node.tag} {URL}/sha256; "
            f"rm -f /tmp/h2up-{self.node.tag}'", timeout=180)
        assert r.stdout.strip() == hashlib.sha256(b"x" * up).hexdigest(), \
            r.stdout

    # -- chaining ---------------------------------------------------------------
    def test_starvation_trickled_upload(self):
        """The reserved lcore sleeps; a trickled POST /sha256 completes."""
        res = {}

        def sleeper():
            res["s"] = self._curl(f"--http2-prior-knowledge {URL}/sleep/6000")

        th = threading.Thread(target=sleeper)
        th.start()
        time.sleep(0.5)
        out = self._peer("trickle", timeout=60)
        th.join(30)
        print(f"trickled upload: {out}; sleep: {res['s'][:3]}")
        assert out["status"] == 200
        assert out["digest"] == out["expect"]
        # the body took several seconds to come, window updates included
        assert out["window_updates"] > 0
        assert res["s"][1] == 200

    def test_blocking_beside_fast_streams(self):
        out = self._peer("mixed", timeout=60)
        print(out)
        assert out["fast_ok"] == 99
        assert out["slow_status"] == 200
        assert out["slow_rank"] == 99, out  # answered last

    # -- the body budget ------------------------------------------------------------
    def test_body_budget(self):
        """A server with a 16 MiB body budget (4 MiB an address): one
        address uploading 8 x 1 MiB to /echo (whose body is gathered)
        gets no window beyond its share (and its connection's 1 MiB
        window), the shard holds no more than the budget, and another
        address's POST /sha256 of 3 MB (streamed) completes."""
        budget, share, conn_win = 16 << 20, 4 << 20, 1 << 20
        self.app.stop()
        app = EwykHttpd(self.tb, lcores="0,1",
                        app_args=["--stats-interval", "0",
                                  "--reserved", "1",
                                  "--h2-body-budget", str(budget)],
                        log_name="ewyk-httpd-http2-budget").start()
        ns = self.tb.ns_peer
        self.node.run(f"ip addr add {PEER2_IP}/24 dev {self.tb.if_peer}",
                      ns=ns, check=False)
        res, peak = {}, {"held": 0, "granted": 0, "waiting": 0}

        def run():
            res["out"] = self._peer(f"budget {PEER2_IP} 8 {1 << 20} 3",
                                    timeout=120)

        try:
            before = app.telemetry("/ewyk/http2/stats")
            th = threading.Thread(target=run)
            th.start()
            while th.is_alive():
                st = app.telemetry("/ewyk/http2/stats")
                peak["held"] = max(peak["held"], st["body_held"])
                peak["granted"] = max(peak["granted"],
                                      st["body_held"] - st["body_owed"])
                peak["waiting"] = max(peak["waiting"], st["body_waiting"])
                time.sleep(0.1)
            th.join()
            out = res["out"]
            after = app.telemetry("/ewyk/http2/stats")
            print(out, peak, {k: after[k] - before[k] for k in
                              ("body_src_wait", "body_budget_wait")})
            # the stalled source: its share and one connection window
            assert share <= out["sent"] <= out["conn_window"], out
            assert out["conn_window"] <= share + conn_win, out
            assert out["sent"] < 8 * (1 << 20), out
            assert peak["granted"] <= budget, peak
            assert peak["held"] <= budget + 2 * conn_win, peak
            assert peak["waiting"] >= 1, peak
            assert after["body_src_wait"] - before["body_src_wait"] >= 1
            # the other address was served meanwhile
            assert out["other_status"] == 200, out
            assert out["other_digest"] == out["other_expect"], out
            # reset: every byte given back
            assert wait_for(lambda: app.telemetry(
                "/ewyk/http2/stats")["body_held"] == 0), \
                app.telemetry("/ewyk/http2/stats")
        finally:
            self.node.run(f"ip addr del {PEER2_IP}/24 dev "
                          f"{self.tb.if_peer}", ns=ns, check=False)
            app.stop()
            self.app.start()

    # -- frame-level cases --------------------------------------------------------
    def test_frames(self):
        for case, want in (("bad_preface", "PROTOCOL_ERROR"),
                           ("idle_stream", "PROTOCOL_ERROR"),
                           ("closed_stream", "STREAM_CLOSED"),
                           ("window_overflow", "FLOW_CONTROL_ERROR"),
                           ("rapid_reset", "ENHANCE_YOUR_CALM"),
                           ("continuation_flood", "ENHANCE_YOUR_CALM"),
                           ("ping_flood", "ENHANCE_YOUR_CALM")):
            out = self._peer(case)
            print(case, out)
            assert out["code"] == want, (case, out)
            self._still_serves()
        out = self._peer("hpack_bomb")
        assert out["status"] == 431, out
        st = self._h2()
        print({k: v for k, v in st.items() if isinstance(v, int) and v})
        assert st["rapid_reset"] >= 1 and st["header_list_large"] >= 1
        assert st["ctrl_flood"] >= 1
        # nghttp2's own connection errors are counted too
        assert st["protocol_error"] >= 4 and st["continuation_flood"] >= 1
        self._still_serves()

    # -- per-source shares --------------------------------------------------------
    def test_source_share(self):
        """One address takes every stream object it can (its responses
        stalled on a zero window): it gets its share (a quarter of the
        shard's streams), the rest REFUSED_STREAM, counted, and a client
        from another address is served meanwhile."""
        ns = self.tb.ns_peer
        self.node.run(f"ip addr add {PEER2_IP}/24 dev {self.tb.if_peer}",
                      ns=ns, check=False)
        before = self._h2()
        try:
            out = self._peer(f"share {PEER2_IP} 45", timeout=120)
        finally:
            self.node.run(f"ip addr del {PEER2_IP}/24 dev "
                          f"{self.tb.if_peer}", ns=ns, check=False)
        after = self._h2()
        print(out, {k: after[k] - before[k] for k in
                    ("stream_src_refused", "stream_refused")})
        # 4,096 stream objects a shard, a quarter of them a source
        assert out["held"] == 1024, out
        assert out["refused"] == 45 * 100 - 1024, out
        assert after["stream_src_refused"] - before["stream_src_refused"] \
            == out["refused"]
        assert (out["other_status"], out["other_body"]) == \
            (200, "hello world\n"), out
        # reset, the first source's streams are given back: served again
        self._still_serves()

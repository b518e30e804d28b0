# SPDX-License-Identifier: BSD-3-Clause
"""ewyk-httpd under attack, against the Linux kernel peer
(docs/guides/security.md).

ewyk-httpd serves its TCP echo on PORT and HTTP on HTTP_PORT on core 0
through net_af_packet; the attackers and an honest client run in the peer
namespace. What holds:

- SYN flood (``hping3 --flood -S --rand-source``) at the echo and at the
  HTTP port: an honest client's echoes, or curl GET /, keep succeeding
  (>= 95%), SYN cookies are sent, mbufs in use stay under the pool (the
  HTTP connections do not grow: a cookie holds none), and return to the
  baseline afterwards;
- blind injection (scapy, the 4-tuple known, sequence numbers guessed):
  RSTs, SYNs, data, ACKs and TS.Recent poisoning during an echo transfer
  and during a /bytes/<n> download, both byte-exact; challenge ACKs
  counted;
- buffer exhaustion: connections sending one-byte out-of-order segments
  (scapy, the kernel's RSTs to them dropped by nftables), zero-window
  readers of the echo and of /bytes/<n> (a 2 KB receive buffer, nothing
  read): ping and an echo client or curl keep working, the drops are
  counted, mbufs in use stay under the TCP budget (half the pool),
  --write-timeout ends the HTTP readers, and mbufs in use and HTTP
  connections return to the baseline after the attackers leave; the same
  for readers of a --root file (a dispatched request streamed from its
  task's result);
- connection exhaustion: more connections than --tcp-max-conns: refused
  and counted, the held ones keep working, service recovers;
- idle connections are reset by --tcp-idle-ms;
- bad option values stop ewyk-httpd with an error naming the option.

Slowloris against HTTP (header dribblers ended by --header-timeout, curl
served meanwhile, HTTP connections back to the baseline) is
TestSuite_http_robustness.test_slowloris; the soak (dts/soak_hardening.py)
runs it with the rest for minutes.

No timing is asserted: rates and durations only size the load.
"""

import json
import os
import select
import shutil
import signal
import subprocess
import time

from framework.ewyk import (EWYK_IP, PEER_IP, EwykHttpd, Testbed, have,
                            httpd_binary, log_dir)
from framework.node import wait_for
from framework.telemetry import counter_delta
from framework.test_suite import TestSuite

PORT = 7  # the attacked TCP echo
HTTP_PORT = 80  # ewyk-httpd's HTTP (its default --port)
WRITE_TIMEOUT_S = 3  # --write-timeout: ends the zero-window readers
PY = "/usr/bin/python3"
READY_TIMEOUT_S = 60  # the blind injector up and listening (its "ready" line)
NB_MBUFS = 8191
# A flood lasts until its client made this many attempts (10 s at least).
FLOOD_MIN_TRIES = 10
# mbufs that may sit in the per-lcore cache of the pool (cache 256 plus a
# flush threshold) and in the RX path: the slack of "back to the baseline"
CACHE_SLACK = 600

# The peer's tools, run in the peer namespace.
PEER_PY = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "hardening_peer.py")


class TestSuite_hardening(TestSuite):

    def set_up_all(self):
        self.tb = Testbed(self.node)
        self.dir = log_dir()
        self.peer_py = PEER_PY
        self.app = self._app("ewyk-httpd-hard")
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
        out = self.tb.peer(f"ip neigh show {EWYK_IP}").stdout.split()
        self.ewyk_mac = out[out.index("lladdr") + 1]
        self.peer_mac = self.tb.peer_mac()

    def tear_down_all(self):
        for a in type(self)._started:
            if a.alive():
                a.stop()

    # -- helpers ----------------------------------------------------------
    # Every ewyk-httpd this suite started. pytest gives each test method
    # an instance of its own, so an app a test starts (self.app = ...) is
    # not seen by the next test: they are tracked on the class.
    _started = []

    def _app(self, name, *extra):
        # Two ewyk-httpd on one veth would both answer: whatever ran
        # before steps aside (the suite's own one, for the tests that
        # need other limits, which run last; or such a test's own).
        for a in type(self)._started:
            if a.alive():
                assert a.stop() == 0, a.log()[-2000:]
        app = EwykHttpd(self.tb, lcores="0", app_args=[
            "--stats-interval", "0", "--echo-port", str(PORT),
            "--mbufs", str(NB_MBUFS), "--port", str(HTTP_PORT),
            "--write-timeout", str(WRITE_TIMEOUT_S)] + list(extra),
            log_name=name).start()
        type(self)._started.append(app)
        return app

    def _peer_cmd(self, *args):
        return (f"{PY} {self.peer_py} " + " ".join(str(a) for a in args))

    def _peer(self, *args, timeout=120):
        out = self.tb.peer(self._peer_cmd(*args), timeout=timeout).stdout
        return json.loads(out.strip().splitlines()[-1])

    def _spawn(self, *args):
        """A peer tool in the background; its JSON comes from _join."""
        return subprocess.Popen(
            ["ip", "netns", "exec", self.tb.ns_peer, "taskset", "-c", "1",
             PY, self.peer_py] + [str(a) for a in args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def _spawn_blind(self, port, sport):
        """The blind injector against (port, sport), started and ready
        (imported, its capture socket open) before the flow it aims at is:
        it waits for the flow's first segment, then injects."""
        # Not pinned beside the flow's client (_spawn): unpinned, as when
        # it ran in the foreground.
        p = subprocess.Popen(
            ["ip", "netns", "exec", self.tb.ns_peer, PY, self.peer_py,
             "blind", self.tb.if_peer, self.ewyk_mac, self.peer_mac,
             EWYK_IP, PEER_IP, str(port), str(sport), "5000"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self._ready_line(p, READY_TIMEOUT_S)
        assert json.loads(line).get("ready"), (line, p.stderr.read())
        return p

    @staticmethod
    def _ready_line(p, timeout):
        """The first line P writes, read with a deadline (select on the
        pipe, a byte at a time so that nothing after it is taken from
        _join): P killed and its stderr shown when it writes none, hung
        or crashed."""
        fd = p.stdout.fileno()
        end = time.monotonic() + timeout
        buf = b""
        while not buf.endswith(b"\n"):
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            b = os.read(fd, 1)
            if not b:
                break  # EOF: it exited
            buf += b
        line = buf.decode(errors="replace")
        if not line.endswith("\n"):
            p.kill()
            _, err = p.communicate(timeout=30)
            assert line, ("no ready line from the blind injector in "
                          f"{timeout} s (rc {p.returncode})", err[-2000:])
            assert False, ("a partial ready line from the blind injector",
                           line, err[-2000:])
        return line

    @staticmethod
    def _join(p, timeout=180):
        out, err = p.communicate(timeout=timeout)
        assert p.returncode == 0, err[-2000:]
        lines = out.strip().splitlines()
        return json.loads(lines[-1]) if lines else None

    def _stopfile(self, tag):
        path = os.path.join(self.dir, f"hard_stop_{self.node.tag}_{tag}")
        for p in (path, path + ".tried"):
            if os.path.exists(p):
                os.unlink(p)
        return path

    def _back_to(self, app, base, timeout=20):
        """mbufs in use back to the baseline (within the cache slack)."""
        ok = wait_for(lambda: app.shard_stats()["mbufs_in_use"] <= base + CACHE_SLACK,
                      timeout=timeout, interval=0.3)
        assert ok, (base, app.shard_stats())

    # -- tests ------------------------------------------------------------
    def test_bad_options(self):
        for args, word in (
                (["--tcp-max-per-src", "1048577"], "--tcp-max-per-src"),
                (["--tcp-mbuf-budget", "9000"], "--tcp-mbuf-budget"),
                (["--tcp-conn-mbufs", "5000"], "--tcp-conn-mbufs"),
                (["--tcp-idle-ms", "soon"], "--tcp-idle-ms"),
                (["--tcp-max-conns", "64", "--tcp-max-per-src", "65"],
                 "--tcp-max-per-src")):
            r = subprocess.run(
                [httpd_binary(), "--no-pci", "--no-huge", "-m", "64",
                 "--no-shconf", f"--file-prefix=ewyk-hard-opt-{self.node.tag}",
                 "--log-level=lib.eal:warning", "--", "--ip", "10.0.0.1/24",
                 "--mbufs", str(NB_MBUFS)] + args,
                capture_output=True, text=True, timeout=60)
            assert r.returncode != 0, (args, r.stdout, r.stderr)
            assert "error:" in r.stderr and word in r.stderr, (args, r.stderr)

    def _syn_flood(self, port, client):
        """hping3 --flood at PORT while CLIENT (peer tool args, with {stop}
        for the stop file) runs: for 10 s, and on until the client has
        made FLOOD_MIN_TRIES attempts (a loaded machine starts curl
        slowly), 60 s at most; returns (client's JSON, tcp counters
        before, after, mbufs base, peak, HTTP conns base, peak)."""
        if not have("hping3"):
            raise AssertionError("hping3 missing")
        app = self.app
        base = app.shard_stats()["mbufs_in_use"]
        hbase = app.http_stats()["conns_in_use"]
        t0 = app.tcp_stats()
        stop = self._stopfile("flood")
        flood = subprocess.Popen(
            ["ip", "netns", "exec", self.tb.ns_peer, "taskset", "-c", "1",
             "timeout", "-s", "INT", "60", "hping3", "--flood", "-S",
             "--rand-source", "-p", str(port), EWYK_IP],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc = self._spawn(*[stop if a == "{stop}" else a for a in client])
        peak = hpeak = 0
        start = time.monotonic()
        while flood.poll() is None:
            peak = max(peak, app.shard_stats()["mbufs_in_use"])
            hpeak = max(hpeak, app.http_stats()["conns_in_use"])
            if time.monotonic() - start >= 10 and \
                    self._tries(stop) >= FLOOD_MIN_TRIES:
                flood.send_signal(signal.SIGINT)
                flood.wait(timeout=10)
                break
            time.sleep(0.5)
        open(stop, "w").close()
        r = self._join(proc)
        os.unlink(stop)
        if os.path.exists(stop + ".tried"):
            os.unlink(stop + ".tried")
        t1 = app.tcp_stats()
        return r, t0, t1, base, peak, hbase, hpeak

    @staticmethod
    def _tries(stop):
        """The attempts a flood's client has made so far (0: none yet)."""
        try:
            with open(stop + ".tried") as f:
                return int(f.read() or 0)
        except (OSError, ValueError):
            return 0

    def test_syn_flood(self):
        app = self.app
        r, t0, t1, base, peak, _, _ = self._syn_flood(
            PORT, ("client", EWYK_IP, PORT, 100000, "{stop}"))
        print(f"syn flood: client {r}, cookies sent "
              f"{t1['syncookies_sent'] - t0['syncookies_sent']}, "
              f"segments in {t1['seg_in'] - t0['seg_in']}, mbufs in use "
              f"base {base} peak {peak}")
        assert r["tried"] >= FLOOD_MIN_TRIES and \
            r["ok"] >= 0.95 * r["tried"], r
        assert t1["syncookies_sent"] > t0["syncookies_sent"], (t0, t1)
        assert peak < NB_MBUFS, peak
        self._back_to(app, base)

    def test_syn_flood_http(self):
        # The same flood at the HTTP port; curl GET / from the peer.
        app = self.app
        r, t0, t1, base, peak, hbase, hpeak = self._syn_flood(
            HTTP_PORT, ("curl", EWYK_IP, HTTP_PORT, 100000, "{stop}", "/"))
        print(f"syn flood at HTTP: curl {r}, cookies sent "
              f"{t1['syncookies_sent'] - t0['syncookies_sent']}, "
              f"segments in {t1['seg_in'] - t0['seg_in']}, mbufs in use "
              f"base {base} peak {peak}, HTTP conns base {hbase} "
              f"peak {hpeak}")
        assert r["tried"] >= FLOOD_MIN_TRIES and \
            r["ok"] >= 0.95 * r["tried"], r
        assert t1["syncookies_sent"] > t0["syncookies_sent"], (t0, t1)
        assert peak < NB_MBUFS // 2 + CACHE_SLACK, peak
        # A cookie makes no HTTP connection: only curl's (one at a time).
        assert hpeak <= hbase + 4, (hbase, hpeak)
        self._back_to(app, base)
        assert wait_for(lambda: app.http_stats()["conns_in_use"] <= hbase,
                        timeout=10), app.http_stats()

    def test_blind_injection(self):
        app = self.app
        t0 = app.tcp_stats()
        sport = 45123
        inj = self._spawn_blind(PORT, sport)
        xfer = self._spawn("transfer", EWYK_IP, PORT, sport, 4000000, 8)
        r = self._join(xfer)
        inj = self._join(inj)
        t1 = app.tcp_stats()
        d = counter_delta(t0, t1)
        print(f"blind: injected {inj}, transfer {r}, counters {d}")
        assert r["ok"] and r["err"] is None, r
        # RSTs aimed inside the window (sent before any noise spends the
        # per-connection answer budget): challenged, not obeyed.
        assert inj["aimed"] >= 1, inj  # the flow was seen
        assert d.get("challenge_acks", 0) >= 1, d
        assert d.get("drop_rst", 0) >= 1, d
        assert d.get("conn_reset", 0) == 0, d

    def test_buffer_exhaustion(self):
        app = self.app
        base = app.shard_stats()["mbufs_in_use"]
        t0 = app.tcp_stats()
        # The kernel does not know the scapy connections: its RSTs to
        # ewyk's SYN-ACKs would end them.
        self.node.run("nft add table inet ewykhard", ns=self.tb.ns_peer)
        self.node.run("nft 'add chain inet ewykhard out { type filter hook "
                      "output priority 0; }'", ns=self.tb.ns_peer)
        self.node.run("nft add rule inet ewykhard out tcp sport 50000-50999 "
                      "tcp flags rst drop", ns=self.tb.ns_peer)
        stop = self._stopfile("hold")
        try:
            ooo = self._spawn("ooo", self.tb.if_peer, self.ewyk_mac,
                              self.peer_mac, EWYK_IP, PEER_IP, PORT, 40, 300, 4)
            hold = self._spawn("hold", EWYK_IP, PORT, 20, 8000, stop)
            # Both report once their segments are out; the buffers are
            # held from then on (the OOO tool waits 3 s before its RSTs).
            o = json.loads(ooo.stdout.readline())
            h = json.loads(hold.stdout.readline())
            mid = app.shard_stats()["mbufs_in_use"]
            ping = self.tb.peer(f"ping -c 5 -i 0.2 -W 2 {EWYK_IP}", check=False)
            c = self._peer("client", EWYK_IP, PORT, 20, "/nonexistent")
            self._join(ooo)
        finally:
            open(stop, "w").close()
            self._join(hold)
            os.unlink(stop)
            self.node.run("nft delete table inet ewykhard", ns=self.tb.ns_peer,
                          check=False)
        t1 = app.tcp_stats()
        d = counter_delta(t0, t1)
        print(f"buffers: ooo {o}, hold {h}, mbufs base {base} during {mid}, "
              f"client {c}, counters {d}")
        assert ping.returncode == 0, ping.stdout
        assert c["ok"] == c["tried"] == 20, c
        assert o["conns"] >= 30, o
        # Each OOO connection may pin --tcp-conn-mbufs (default: a
        # sixteenth of half the pool); beyond that they are dropped.
        assert d.get("drop_ooo_budget", 0) > 0, d
        assert mid < NB_MBUFS // 2 + CACHE_SLACK, mid
        self._back_to(app, base, timeout=30)

    def test_zero_window_http(self):
        # Readers of /bytes/<n> that stop reading (2 KB receive buffer):
        # each connection may pin --tcp-conn-mbufs, all of them together
        # the TCP budget (half the pool); --write-timeout ends them.
        app = self.app
        base = app.shard_stats()["mbufs_in_use"]
        hbase = app.http_stats()["conns_in_use"]
        h0 = app.http_stats()
        stop = self._stopfile("zw")
        n = 40
        zw = self._spawn("zw", EWYK_IP, HTTP_PORT, n, 1 << 30, stop)
        try:
            z = json.loads(zw.stdout.readline())
            peak = app.shard_stats()["mbufs_in_use"]
            ping = self.tb.peer(f"ping -c 5 -i 0.2 -W 2 {EWYK_IP}",
                                check=False)
            c = self._peer("curl", EWYK_IP, HTTP_PORT, 10, "/nonexistent",
                           "/bytes/100000")
            peak = max(peak, app.shard_stats()["mbufs_in_use"])
            # Ended by the write timeout while the readers still hold
            # their sockets.
            ended = wait_for(lambda: app.http_stats()["timeout_write"]
                             - h0["timeout_write"] >= n, timeout=60,
                             interval=0.5)
            mid = app.http_stats()
        finally:
            open(stop, "w").close()
            r = self._join(zw)
            os.unlink(stop)
        print(f"zero-window HTTP readers: {z} -> {r}, mbufs in use base "
              f"{base} peak {peak}, HTTP conns base {hbase}, curl {c}, "
              f"timeout_write +{mid['timeout_write'] - h0['timeout_write']}")
        assert z["conns"] == n, z
        assert ping.returncode == 0, ping.stdout
        assert c["ok"] == c["tried"] == 10, c
        assert peak < NB_MBUFS // 2 + CACHE_SLACK, peak
        assert ended, (h0, mid)
        assert r["ended_by_server"] == n, r
        self._back_to(app, base, timeout=30)
        assert wait_for(lambda: app.http_stats()["conns_in_use"] <= hbase,
                        timeout=10), app.http_stats()

    def test_blind_injection_http(self):
        # The blind injection of test_blind_injection during a paced
        # download of /bytes/<n>: the body arrives byte-exact.
        app = self.app
        t0 = app.tcp_stats()
        sport = 45124
        inj = self._spawn_blind(HTTP_PORT, sport)
        dl = self._spawn("download", EWYK_IP, HTTP_PORT, sport, 40000000, 8)
        r = self._join(dl)
        inj = self._join(inj)
        t1 = app.tcp_stats()
        d = counter_delta(t0, t1)
        print(f"blind at HTTP: injected {inj}, download {r}, counters {d}")
        assert r["ok"] and r["err"] is None, r
        assert inj["aimed"] >= 1, inj  # the flow was seen
        assert d.get("challenge_acks", 0) >= 1, d
        assert d.get("conn_reset", 0) == 0, d

    def test_conn_exhaustion(self):
        app = self._app("ewyk-httpd-hard-conns", "--tcp-max-conns", "32",
                        "--tcp-max-per-src", "0")
        try:
            t0 = app.tcp_stats()
            r = self._peer("conns", EWYK_IP, PORT, 48, timeout=300)
            t1 = app.tcp_stats()
            d = counter_delta(t0, t1)
            print(f"conns: {r}, counters {d}")
            assert 24 <= r["opened"] <= 32 and r["again"] == r["opened"], r
            assert r["refused"] >= 16, r
            refusals = sum(d.get(k, 0) for k in (
                "drop_no_conn_mem", "drop_backlog", "drop_cookie"))
            assert refusals > 0, d
            assert wait_for(lambda: app.tcp_stats()["state_established"] == 0,
                            timeout=10)
            r2 = self._peer("conns", EWYK_IP, PORT, 8)
            assert r2["opened"] == r2["again"] == 8, r2
        finally:
            rc = app.stop()
        assert rc == 0, app.log()[-2000:]

    def test_per_source_limit(self):
        app = self._app("ewyk-httpd-hard-src", "--tcp-max-per-src", "10")
        try:
            t0 = app.tcp_stats()
            r = self._peer("conns", EWYK_IP, PORT, 14, timeout=120)
            t1 = app.tcp_stats()
            d = counter_delta(t0, t1)
            print(f"per-source: {r}; counters {d}")
            assert r["opened"] == r["again"] == 10 and r["refused"] == 4, r
            assert d.get("drop_src_limit", 0) >= 4, d
            assert wait_for(lambda: app.tcp_stats()["state_established"] == 0,
                            timeout=10)
            r2 = self._peer("conns", EWYK_IP, PORT, 10)
            assert r2["opened"] == r2["again"] == 10, r2
        finally:
            rc = app.stop()
        assert rc == 0, app.log()[-2000:]

    def test_idle_timeout(self):
        app = self._app("ewyk-httpd-hard-idle", "--tcp-idle-ms", "1000")
        try:
            t0 = app.tcp_stats()
            i = self._peer("idle", EWYK_IP, PORT, 20, 3, timeout=60)
            t1 = app.tcp_stats()
            d = counter_delta(t0, t1)
            print(f"idle: {i}; counters {d}")
            assert i["closed_by_server"] == 20, i
            assert d.get("idle_timeout", 0) == 20, d
            assert app.tcp_stats()["state_established"] == 0
        finally:
            rc = app.stop()
        assert rc == 0, app.log()[-2000:]

    def _get(self, path):
        """curl GET from the peer: (status, head, body)."""
        out = self.tb.peer(f"curl -s -i --max-time 10 "
                           f"http://{EWYK_IP}:{HTTP_PORT}{path}",
                           check=False).stdout
        out = out.replace("\r\n", "\n")
        head, _, body = out.partition("\n\n")
        status = int(head.split(" ")[1]) if head.startswith("HTTP/") else 0
        return status, head, body

    def test_zero_window_metrics(self):
        # Readers of GET /metrics that stop reading (2 KB receive buffer),
        # with a per-connection TCP budget (--tcp-conn-mbufs) smaller than
        # the page, as a 512 KiB page would be with the default budget.
        # Each 200 streams its own page snapshot under flow control: what
        # it pins is its TCP budget and one mbuf, not the page; the shard
        # has SNAPSHOTS of them, the other readers get 503 (counted).
        # Before, every reader's page was copied into mbufs whole and, TCP
        # refusing it, kept outside TCP's budget: n whole pages.
        snapshots = 4  # HTTPD_METRICS_SNAPSHOTS
        conn_mbufs = 8
        app = self.app = self._app("ewyk-httpd-hard-zwm", "--tcp-conn-mbufs",
                                   str(conn_mbufs))
        st, _, page = self._get("/metrics")
        assert st == 200, st
        page_mbufs = len(page) // 2048 + 1
        assert page_mbufs > 2 * conn_mbufs, len(page)
        base = app.shard_stats()["mbufs_in_use"]
        h0 = app.http_stats()
        stop = self._stopfile("zwm")
        n = 40
        zw = self._spawn("zw", EWYK_IP, HTTP_PORT, n, "/metrics", stop)
        try:
            z = json.loads(zw.stdout.readline())
            # every reader answered (a 200 under way, or a 503)
            answered = wait_for(lambda: app.http_stats()["resp_2xx"]
                                + app.http_stats()["resp_5xx"] - h0["resp_2xx"]
                                - h0["resp_5xx"] >= n, timeout=20,
                                interval=0.3)
            peak = app.shard_stats()["mbufs_in_use"]
            busy = self._get("/metrics")
            peak = max(peak, app.shard_stats()["mbufs_in_use"])
            # the write timeout ends the stalled 200s, freeing snapshots
            ended = wait_for(lambda: app.http_stats()["timeout_write"]
                             - h0["timeout_write"] >= snapshots,
                             timeout=30, interval=0.5)
            st, _, text = self._get("/metrics")
            mid = app.http_stats()
        finally:
            open(stop, "w").close()
            r = self._join(zw)
            os.unlink(stop)
        n503 = mid["resp_503"] - h0["resp_503"]
        print(f"zero-window /metrics readers: {z} -> {r}, page "
              f"{len(page)} bytes ({page_mbufs} mbufs), mbufs in use base "
              f"{base} peak {peak} (+{peak - base}; whole pages: "
              f"+{n * page_mbufs}), 503 {n503}, curl while busy "
              f"{busy[0]}, after {st}")
        assert z["conns"] == n, z
        assert answered, (h0, app.http_stats())
        # SNAPSHOTS streams of conn_mbufs + 1 each and n small 503s, with
        # room for the RX path: far below n whole pages.
        bound = snapshots * (conn_mbufs + 2) + 2 * n + CACHE_SLACK // 2
        assert peak - base <= bound < n * page_mbufs, (peak, base, bound)
        assert busy[0] == 503 and "Retry-After: 1" in busy[1], busy[:2]
        assert ended, (h0, mid)
        assert n503 >= n - snapshots, n503
        assert st == 200, st
        if have("promtool"):
            p = subprocess.run(["promtool", "check", "metrics"], input=text,
                               capture_output=True, text=True, timeout=30)
            assert p.returncode == 0, (p.stdout, p.stderr)
        got = sum(float(line.split()[-1]) for line in text.splitlines()
                  if line.startswith("ewyk_rt_metrics_busy_total{"))
        assert got >= n - snapshots + 1, got
        self._back_to(app, base, timeout=30)

    def _fetch_big(self):
        """curl GET /big.bin from the peer: "status bytes"."""
        return self.tb.peer(f"curl -sS -o /dev/null -w '%{{http_code}} "
                            f"%{{size_download}}' --max-time 30 "
                            f"http://{EWYK_IP}:{HTTP_PORT}/big.bin",
                            check=False).stdout.strip()

    def test_zero_window_root(self):
        # Readers of a --root file that stop reading (2 KB receive
        # buffer). The file is a dispatched request: a task's result,
        # streamed from it under flow control while lib/http keeps the
        # request pending. --write-timeout resets each reader, and the
        # request must end there: HTTP connections and mbufs back to the
        # baseline, the server still serving. Before, a pending request
        # whose stream we reset ourselves was kept for a response nobody
        # would make: every reader leaked its connection object, its
        # unsent mbufs and its task for good.
        root = os.path.join(self.dir, f"hard_root_{self.node.tag}")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        with open(os.path.join(root, "big.bin"), "wb") as f:
            f.write(os.urandom(4 << 20))
        try:
            app = self.app = self._app("ewyk-httpd-hard-zwr", "--root", root)
            assert self._fetch_big() == "200 %d" % (4 << 20)
            base = app.shard_stats()["mbufs_in_use"]
            hbase = app.http_stats()["conns_in_use"]
            h0 = app.http_stats()
            stop = self._stopfile("zwr")
            n = 8
            zw = self._spawn("zw", EWYK_IP, HTTP_PORT, n, "/big.bin", stop)
            try:
                z = json.loads(zw.stdout.readline())
                ended = wait_for(lambda: app.http_stats()["timeout_write"]
                                 - h0["timeout_write"] >= n, timeout=60,
                                 interval=0.5)
                mid = app.http_stats()
            finally:
                open(stop, "w").close()
                r = self._join(zw)
                os.unlink(stop)
            back = wait_for(lambda: app.http_stats()["conns_in_use"] <= hbase,
                            timeout=10)
            after = app.http_stats()
            print(f"zero-window --root readers: {z} -> {r}, HTTP conns base "
                  f"{hbase} after {after['conns_in_use']}, timeout_write "
                  f"+{mid['timeout_write'] - h0['timeout_write']}")
            assert z["conns"] == n, z
            assert ended, (h0, mid)
            assert r["ended_by_server"] == n, r
            assert back, (hbase, after)
            self._back_to(app, base, timeout=30)
            assert self._fetch_big() == "200 %d" % (4 << 20)
        finally:
            shutil.rmtree(root, ignore_errors=True)

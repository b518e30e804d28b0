# SPDX-License-Identifier: BSD-3-Clause
"""ewyk-loadgen: an HTTP/1.1 client on ewyk's stack, checked against
servers that count what they answered.

- nginx (Debian nginx-light, ``return 200 "hello world\\n"``) in the peer
  namespace, ewyk-loadgen on the veth's other end (net_af_packet): nginx's
  request count (stub_status) moves by exactly what the loadgen counted;
  keep-alive, pipelining, a new connection per request and the open loop;
- errors counted by kind: a 500 (status), a closed port (connect);
- ewyk-httpd over net_memif: its own HTTP counters agree with the
  loadgen's (within 1 %);
- the JSON line is the last line of stdout and well-formed; bad options are
  refused with a clear message.

Short runs (about a second each); nothing here asserts a speed.
"""

import os
import re
import shutil
import signal
import subprocess
import threading
import time

import pytest

from framework.ewyk import (EWYK_IP, PEER_IP, PREFIX, Testbed, build_dir,
                            eal_mem_args, log_dir)
from framework.loadgen import loadgen_binary, parse_json, run_loadgen
from framework.node import wait_for
from framework.test_suite import TestSuite

NGINX_PORT = 8080
CLOSED_PORT = 8081
MEMIF_HTTPD_IP = "10.77.0.1"
MEMIF_LOADGEN_IP = "10.77.0.2"


def httpd_binary():
    return os.path.join(build_dir(), "app", "httpd", "ewyk-httpd")


NGINX_CONF = """worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    server {{
        listen {ip}:{port} backlog=1024;
        keepalive_requests 1000000;
        location / {{ return 200 "hello world\\n"; }}
        location /err {{ return 500 "oops\\n"; }}
        location = /status {{ stub_status; }}
    }}
}}
"""


class TestSuite_loadgen(TestSuite):

    def set_up_all(self):
        if shutil.which("nginx") is None:
            pytest.skip("nginx (nginx-light) not installed")
        self.bin = loadgen_binary()
        self.tb = Testbed(self.node)
        self.ndir = os.path.join(log_dir(), f"loadgen-nginx-{self.node.tag}")
        os.makedirs(self.ndir, exist_ok=True)
        with open(os.path.join(self.ndir, "nginx.conf"), "w") as f:
            f.write(NGINX_CONF.format(d=self.ndir, ip=PEER_IP,
                                      port=NGINX_PORT))
        self.nginx = None
        self.start_nginx()

    def start_nginx(self):
        self.nginx = self.node.spawn(
            ["taskset", "-c", "1", "nginx", "-c",
             os.path.join(self.ndir, "nginx.conf")],
            ns=self.tb.ns_peer, log_path=os.path.join(self.ndir, "out.log"))
        ok = wait_for(lambda: self.tb.peer(
            f"curl -s -m 1 http://{PEER_IP}:{NGINX_PORT}/",
            check=False).stdout == "hello world\n", timeout=10)
        assert ok, "nginx did not answer"

    def nginx_requests(self):
        """nginx's count of requests (stub_status), this one included."""
        out = self.tb.peer(f"curl -s -m 5 http://{PEER_IP}:{NGINX_PORT}"
                           "/status").stdout
        m = re.search(r"^\s*\d+\s+\d+\s+(\d+)\s*$", out, re.M)
        assert m, out
        return int(m.group(1))

    def loadgen(self, args, root=False, vdev=None, expect_rc=0, timeout=60,
                lcores="0"):
        """Run it (in the server namespace, or the root one for memif)."""
        return run_loadgen(self.node, self.tb, self.bin, args,
                           expect_rc=expect_rc, timeout=timeout,
                           lcores=lcores, vdev=vdev, root=root)

    def nginx_run(self, extra, path="/"):
        before = self.nginx_requests()
        p = self.loadgen(f"--ip {EWYK_IP}/{PREFIX} --target "
                         f"{PEER_IP}:{NGINX_PORT} --duration 1 --quiet "
                         f"--path {path} {extra}")
        r = parse_json(p.stdout)
        # Less the status request of the second reading.
        r["nginx_requests"] = self.nginx_requests() - before - 1
        return r, p

    def check_against_nginx(self, r):
        # Every request got its answer before the loadgen left (it waits
        # for them), so nginx counted exactly what the loadgen did.
        assert r["responses_total"] == r["nginx_requests"], r
        assert r["sent_total"] == r["responses_total"], r

    def test_nginx_keepalive(self):
        r, p = self.nginx_run("--conns 8")
        assert r["errors"] == 0, r
        assert r["requests"] > 0 and r["rps"] > 0, r
        assert r["conns"] == 8 and r["lcores"] == 1, r
        assert r["connects"] == 8, r
        assert 0 < r["p50_us"] <= r["p90_us"] <= r["p99_us"] <= \
            r["p999_us"] <= r["max_us"], r
        # The timed window is never cut short (it ends at the first loop
        # after its end: how late depends on the host, so no upper
        # bound), and the rate is the requests over that window.
        assert r["duration_s"] >= 0.99, r
        assert abs(r["rps"] * r["duration_s"] - r["requests"]) <= \
            max(1.0, r["requests"] * 1e-3), r
        # nginx's heads change only with their Date: most responses were
        # taken by comparison with a head the parser accepted.
        assert r["responses_total"] // 2 <= r["known_head_responses"] <= \
            r["responses_total"], r
        self.check_against_nginx(r)

    def test_nginx_two_heads(self):
        """Responses of two kinds (200 and 500) interleaved on the same
        connections: each is counted as what its own head says, whether
        it was parsed or taken as a known head."""
        r, _ = self.nginx_run("--conns 4 --pipeline 4 --mix-path /err "
                              "--mix-percent 30")
        kinds = r["errors_by_kind"]
        assert r["requests"] > 0 and kinds["status"] > 0, r
        assert r["errors"] == kinds["status"], r
        # About 30 % were 500s (a run of a few thousand requests).
        share = kinds["status"] / (kinds["status"] + r["requests"])
        assert 0.2 < share < 0.4, r
        assert 0 < r["known_head_responses"] <= r["responses_total"], r
        self.check_against_nginx(r)

    def test_nginx_pipeline(self):
        r, _ = self.nginx_run("--conns 4 --pipeline 8")
        assert r["errors"] == 0 and r["requests"] > 0, r
        self.check_against_nginx(r)

    def test_nginx_new_conn(self):
        r, _ = self.nginx_run("--conns 4 --new-conn")
        assert r["errors"] == 0 and r["requests"] > 0, r
        # One connection per request.
        assert r["connects"] == r["responses_total"], r
        self.check_against_nginx(r)

    def test_nginx_open_loop(self):
        r, _ = self.nginx_run("--conns 8 --rate 2000")
        assert r["errors"] == 0, r
        # Open loop: what was asked for, not what the server could do.
        assert 1000 <= r["requests"] <= 2100, r
        self.check_against_nginx(r)

    def test_peer_stall_counted(self):
        """A peer that answers nothing for a while, twice (nginx stopped
        for 300 ms during an open-loop run): the loadgen counts the gaps,
        the responses that spanned them, and the tail without them."""
        pids = [self.nginx.pid]
        with open(f"/proc/{self.nginx.pid}/task/{self.nginx.pid}/"
                  "children") as f:
            pids += [int(p) for p in f.read().split()]
        stopped = []

        def conns():
            """nginx's established connections, as (local, peer)
            address:port pairs."""
            out = self.tb.peer("ss -Htn state established "
                               f"'( sport = :{NGINX_PORT} )'",
                               check=False).stdout
            return {tuple(ln.split()[2:4]) for ln in out.splitlines()
                    if len(ln.split()) >= 4}

        # Connections an earlier run left established (the loadgen
        # ends without closing them all) are not this run's.
        before = conns()

        def pause():
            # Once this run's connections are up (the loadgen's start
            # takes a while on a loaded machine).
            if not wait_for(lambda: len(conns() - before) >= 8,
                            timeout=30):
                return
            for _ in range(2):
                time.sleep(0.3)
                for p in pids:
                    os.kill(p, signal.SIGSTOP)
                time.sleep(0.3)
                for p in pids:
                    os.kill(p, signal.SIGCONT)
                stopped.append(1)

        t = threading.Thread(target=pause)
        t.start()
        try:
            r, _ = self.nginx_run("--conns 8 --rate 2000 --duration 3")
        finally:
            t.join()
            for p in pids:
                os.kill(p, signal.SIGCONT)
        assert len(stopped) == 2
        assert r["errors"] == 0, r
        # Every gap held requests for at least the stop's 300 ms.
        assert r["max_us"] >= 250000, r
        assert r["peer_gaps"] + r["loop_stalls"] >= 2, r
        assert 1 <= r["stall_spanned"] + r["gap_spanned"], r
        assert r["stall_spanned"] <= r["gap_spanned"] <= r["requests"], r
        # What the gaps held is the tail; without them it is shorter.
        assert r["max_nogap_us"] < r["max_us"], r
        assert r["max_nostall_us"] <= r["max_us"], r
        self.check_against_nginx(r)

    def test_nginx_two_lcores(self):
        """Connections spread over two lcores, each its own shard (two
        af_packet queue pairs, flows steered in software)."""
        before = self.nginx_requests()
        p = self.loadgen(f"--ip {EWYK_IP}/{PREFIX} --target "
                         f"{PEER_IP}:{NGINX_PORT} --duration 1 --conns 6",
                         lcores="0,1",
                         vdev=f"net_af_packet0,iface={self.tb.if_srv},"
                         "qpairs=2")
        r = parse_json(p.stdout)
        r["nginx_requests"] = self.nginx_requests() - before - 1
        assert r["lcores"] == 2 and r["errors"] == 0, r
        assert r["connects"] == 6, r
        per = re.findall(r"^loadgen: lcore (\d+): (\d+) req", p.stderr, re.M)
        assert len(per) == 2 and all(int(n) > 0 for _, n in per), p.stderr
        self.check_against_nginx(r)

    def test_nginx_500_counted(self):
        r, _ = self.nginx_run("--conns 2", path="/err")
        assert r["requests"] == 0 and r["rps"] == 0, r
        assert r["errors_by_kind"]["status"] > 0, r
        assert r["errors"] == r["errors_by_kind"]["status"], r
        self.check_against_nginx(r)

    def test_closed_port_counted(self):
        p = self.loadgen(f"--ip {EWYK_IP}/{PREFIX} --target "
                         f"{PEER_IP}:{CLOSED_PORT} --conns 2 --duration 0.5 "
                         "--quiet")
        r = parse_json(p.stdout)
        assert r["requests"] == 0 and r["responses_total"] == 0, r
        assert r["errors_by_kind"]["connect"] > 0, r
        assert r["errors"] == r["errors_by_kind"]["connect"], r

    def test_live_line(self):
        p = self.loadgen(f"--ip {EWYK_IP}/{PREFIX} --target "
                         f"{PEER_IP}:{NGINX_PORT} --conns 2 --duration 2.5")
        live = [ln for ln in p.stderr.splitlines()
                if re.search(r"req/s, \d+ errors, p99 [\d.]+ us", ln)]
        assert len(live) >= 2, p.stderr
        assert re.search(r" \d+:\d+%", live[-1]), live[-1]
        parse_json(p.stdout)

    def test_bad_options(self):
        base = f"--ip {EWYK_IP}/{PREFIX} --target {PEER_IP}:{NGINX_PORT}"
        for args, msg in (
                (f"{base} --duration 1", "--conns"),
                (f"{base} --conns 0 --duration 1", "--conns '0'"),
                (f"{base} --conns 1 --duration x", "--duration 'x'"),
                (f"--ip 1.2.3/8 --target {PEER_IP}:80 --conns 1 "
                 "--duration 1", "--ip '1.2.3/8'"),
                (f"--ip {EWYK_IP}/24 --target {PEER_IP} --conns 1 "
                 "--duration 1", "--target"),
                (f"{base} --conns 1 --duration 1 --path nope", "--path"),
                (f"{base} --conns 1 --duration 1 --new-conn --pipeline 2",
                 "--pipeline must be 1"),
                (f"{base} --conns 1 --duration 1 --mix-percent 5",
                 "--mix-path"),
                (f"{base} --conns 1 --duration 1 --bogus", "")):
            p = self.loadgen(args, expect_rc=2)
            assert "error" in p.stderr or "unrecognized" in p.stderr, \
                p.stderr
            assert msg in p.stderr, (msg, p.stderr)
            assert p.stdout == "", p.stdout

    def test_no_answer_is_an_error(self):
        """A target nothing answers for (here an address no host has) is a
        failed run, not a run of zeros: exit 1 and an error line."""
        p = self.loadgen(f"--ip {EWYK_IP}/{PREFIX} --target 198.18.0.77:80 "
                         "--conns 4 --duration 1 --quiet", expect_rc=1)
        assert "error: no connection to the target opened" in p.stderr, \
            p.stderr[-2000:]
        assert '"connects": 0' in p.stdout, p.stdout

    def httpd_and_loadgen(self, lg_args):
        """ewyk-httpd <-> net_memif <-> ewyk-loadgen --hold: the JSON, then
        ewyk-httpd stopped first (its final stats), then the loadgen (so
        that the memif server is never left polling a departing peer)."""
        tag = f"{self.node.tag}-{len(lg_args)}"
        sock = f"/run/ewyk-dts-memif-{tag}.sock"
        if os.path.exists(sock):
            os.unlink(sock)
        hlog = os.path.join(log_dir(), f"loadgen-httpd-{tag}.log")
        argv = ["taskset", "-c", "1", httpd_binary(), "-l", "1", "--no-pci",
                f"--file-prefix=ewyk-dts-{tag}-lghttpd",
                f"--vdev=net_memif0,role=server,socket={sock},"
                "socket-abstract=no",
                "--log-level=lib.eal:warning"] + eal_mem_args() + [
                "--", "--ip", f"{MEMIF_HTTPD_IP}/24", "--port", "80",
                "--stats-interval", "0"]
        httpd = self.node.spawn(argv, log_path=hlog)

        def hlog_text():
            with open(hlog) as f:
                return f.read()
        assert wait_for(lambda: "polling" in hlog_text()
                        or httpd.poll() is not None, timeout=20), hlog_text()
        lg = subprocess.Popen(
            ["taskset", "-c", "0", self.bin, "-l", "0", "--no-pci",
             f"--file-prefix=ewyk-dts-{tag}-lgclient",
             f"--vdev=net_memif0,role=client,socket={sock},"
             "socket-abstract=no", "--log-level=lib.eal:warning"] +
            eal_mem_args() + ["--", "--ip", f"{MEMIF_LOADGEN_IP}/24",
                              "--target", f"{MEMIF_HTTPD_IP}:80", "--quiet",
                              "--hold"] + lg_args,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = lg.stdout.readline()
            assert self.node.stop(httpd) == 0, hlog_text()
        finally:
            lg.send_signal(signal.SIGINT)
            rest, err = lg.communicate(timeout=30)
        assert lg.returncode == 0, err[-3000:]
        r = parse_json(line + rest)
        m = re.search(r"^http: requests=(\d+) resp_2xx=(\d+) resp_4xx=(\d+)",
                      hlog_text(), re.M)
        assert m, hlog_text()[-3000:]
        return r, [int(x) for x in m.groups()]

    def test_zz_ewyk_httpd(self):
        """ewyk-httpd's own HTTP counters agree with the loadgen's."""
        if not os.access(httpd_binary(), os.X_OK):
            pytest.skip("ewyk-httpd not built")
        for args in (["--conns", "16", "--pipeline", "4", "--duration", "1",
                      "--mix-path", "/nope", "--mix-percent", "20"],
                     ["--conns", "8", "--new-conn", "--duration", "1"]):
            r, (requests, ok, c4xx) = self.httpd_and_loadgen(args)
            assert r["requests"] > 0, r
            assert r["sent_total"] == r["responses_total"], r
            nf = r["errors_by_kind"]["status"]
            assert r["errors"] == nf, r
            if "--mix-path" in args:
                assert nf > 0, r
            else:
                assert nf == 0, r
                assert r["connects"] == r["responses_total"], r
            # Every response the loadgen counted (warm-up and drain
            # included) against the server's counters: within 1 % (in
            # practice equal, the loadgen waits for every answer).
            lg = r["responses_total"]
            assert abs(requests - lg) <= 0.01 * lg, (requests, r)
            assert ok + c4xx == requests, (ok, c4xx, requests)
            # The 404s of the measured window are among the server's,
            # which are among the loadgen's responses that were not
            # 2xx-in-the-window.
            assert nf <= c4xx <= lg - r["requests"], (c4xx, r)

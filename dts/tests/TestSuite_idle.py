# SPDX-License-Identifier: BSD-3-Clause
"""Many idle keep-alive connections, a kilobyte each.

ewyk-httpd (lcore 1) has two ports: net_memif (10.77.0.1/24) to
ewyk-loadgen in the root namespace (lcore 0), and net_af_packet on the
testbed's veth (198.18.0.2) to the kernel peer. The loadgen opens
``--idle`` keep-alive connections (100,000 by default) from 8 source
addresses (``--src-addrs 8``: its port answers ARP for all of them, the
server's ARP cache learns them), one request each, and holds them silent
while 16 connections measure for the hold time; then every idle
connection carries one more request. Meanwhile:

- the server's telemetry (/ewyk/stats, per shard) shows the connections
  idle, no head lease held by them, and the memory per connection, TCP
  and HTTP from their pools' and tables' own sizes, at most 1 KiB;
- the kernel peer's clients (curl) keep being served over the veth.

At the end every idle connection was answered twice (the loadgen's JSON),
the server refused and reclaimed nothing, and the kernel peer was served.

The idle set is held 60 s (EWYK_DTS_IDLE_HOLD changes it,
EWYK_DTS_IDLE_CONNS the number). Nothing here asserts a speed: the memory
figure is a size.
"""

import json
import os
import signal
import subprocess
import time

import pytest

from framework.ewyk import (EWYK_IP, EwykHttpd, Testbed, build_dir,
                            eal_mem_args, log_dir)
from framework.node import wait_for
from framework.test_suite import TestSuite

MEMIF_HTTPD_IP = "10.77.0.1"
MEMIF_LOADGEN_IP = "10.77.0.10"
SRC_ADDRS = 8
IDLE = int(os.environ.get("EWYK_DTS_IDLE_CONNS", "100000"))
HOLD_S = float(os.environ.get("EWYK_DTS_IDLE_HOLD", "60"))
CONN_BYTES_MAX = 1024


def loadgen_binary():
    path = os.path.join(build_dir(), "app", "loadgen", "ewyk-loadgen")
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"{path} not built (set EWYK_BUILD)")
    return path


class TestSuite_idle(TestSuite):

    def set_up_all(self):
        self.tb = Testbed(self.node)
        self.lg_bin = loadgen_binary()

    def start_httpd(self, sock):
        # Room for the idle set and the measuring connections: 131072
        # connections (a quarter per source: 32768, over the 12,500 each
        # of the 8 sources holds), keep-alive longer than the hold.
        app = EwykHttpd(self.tb, lcores="1", log_name="idle-httpd",
                        app_args=["--ip", f"{MEMIF_HTTPD_IP}/24",
                                  "--stats-interval", "0",
                                  "--tcp-max-conns", "131072",
                                  "--keepalive-timeout",
                                  str(int(HOLD_S) + 120)])
        # The memif port after the af_packet one: port 1, the second --ip.
        i = app.argv.index("--log-level=lib.eal:warning")
        app.argv.insert(i, f"--vdev=net_memif0,role=server,socket={sock},"
                        "socket-abstract=no")
        app.argv[0:0] = ["taskset", "-c", "1"]
        return app.start()

    def test_idle_100k(self):
        sock = f"/run/ewyk-dts-idle-{self.node.tag}.sock"
        if os.path.exists(sock):
            os.unlink(sock)
        app = self.start_httpd(sock)
        self.tb.peer("ip neigh flush all", check=False)
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
        lglog = os.path.join(log_dir(), f"idle-loadgen-{self.node.tag}.log")
        lgerr = open(lglog, "w")
        lg = subprocess.Popen(
            ["taskset", "-c", "0", self.lg_bin, "-l", "0", "--no-pci",
             f"--file-prefix=ewyk-dts-{self.node.tag}-idle-lg",
             f"--vdev=net_memif0,role=client,socket={sock},"
             "socket-abstract=no", "--log-level=lib.eal:warning"] +
            eal_mem_args() +
            ["--", "--ip", f"{MEMIF_LOADGEN_IP}/24", "--target",
             f"{MEMIF_HTTPD_IP}:80", "--quiet", "--hold", "--conns", "16",
             "--duration", str(HOLD_S), "--idle", str(IDLE),
             "--src-addrs", str(SRC_ADDRS), "--timeout", "10000"],
            stdout=subprocess.PIPE, stderr=lgerr, text=True)
        try:
            self.hold_and_check(app, lg)
            line = lg.stdout.readline()
        finally:
            if app.alive():
                assert app.stop() == 0, app.log()[-3000:]
            if lg.poll() is None:
                lg.send_signal(signal.SIGINT)
            rest, _ = lg.communicate(timeout=60)
            lgerr.close()
        assert lg.returncode == 0, open(lglog).read()[-3000:]
        self.check_result(line + rest)

    def hold_and_check(self, app, lg):
        """While the idle set is held: telemetry and the kernel peer."""
        def shard():
            return app.shard_stats(0)

        def held():
            assert lg.poll() is None, "ewyk-loadgen ended early"
            return shard().get("http_conns_idle", 0) >= IDLE
        # The set opens first (bounded SYNs in flight), then the run.
        assert wait_for(held, timeout=240, interval=1), shard()
        st = shard()
        print(f"idle: {st['http_conns_idle']} idle connections, "
              f"{st['conn_mem_bytes']} bytes each (TCP and HTTP), "
              f"{st['http_leases_in_use']} leases in use, "
              f"{st['http_lease_mem_bytes']} bytes of leases in all")
        assert st["conn_mem_bytes"] <= CONN_BYTES_MAX, st
        assert st["conn_mem_bytes"] > 0, st
        # Idle connections hold no lease: what is leased is the
        # measuring connections' (16) and the kernel peer's at most.
        assert st["http_leases_in_use"] <= 32, st
        assert st["http_lease_failures"] == 0, st
        # The kernel peer is served meanwhile, a few times during the hold.
        served = 0
        deadline = time.monotonic() + HOLD_S / 2
        while served < 5 or time.monotonic() < deadline:
            out = self.tb.peer(f"curl -s -m 5 -o /dev/null -w '%{{http_code}}'"
                               f" http://{EWYK_IP}/", check=False).stdout
            assert out == "200", out
            served += 1
            time.sleep(1)
        # Half-way through the hold, none of them has gone (no timer of
        # theirs ran out, nothing reclaimed them).
        st = shard()
        assert st["http_conns_idle"] >= IDLE, st
        http = app.http_stats(0)
        assert http["conn_refused"] == 0, http
        assert http["idle_reclaimed"] == 0, http

    def check_result(self, out):
        r = json.loads(out.strip().splitlines()[-1])
        idle = r["idle"]
        print(f"idle: {idle}; measured {r['rps']:.0f} req/s beside them, "
              f"p99 {r['p99_us']} us")
        assert idle["conns"] == IDLE, idle
        assert idle["errors"] == 0, (idle, r["idle_errors"])
        assert idle["opened"] == IDLE, idle
        assert idle["answered"] == IDLE, idle
        # All of them used once more after the hold.
        assert idle["reused"] == IDLE, idle
        assert r["errors"] == 0 and r["requests"] > 0, r


if __name__ == "__main__":
    pytest.main([__file__])

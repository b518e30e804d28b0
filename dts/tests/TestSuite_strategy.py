# SPDX-License-Identifier: BSD-3-Clause
"""lib/strategy in ewyk-httpd's packet path, against the kernel peer.

ewyk-httpd runs on 2 lcores, 1 worker (lcore 0, the home of the only
shard) and 1 reserved lcore (lcore 1, ``--reserved 1``), with the fast TCP
echo (``--echo-port``) and the slow echo (``--slow-echo-port``: every chunk
a BLOCKING task that really blocks its lcore ``--slow-ms`` ms). The peer's
client runs in the peer namespace on core 0: the worker sleeps in the
blocking tasks there, while the reserved lcore busy-polls core 1. Checked:

- head-of-line blocking: 10 slow connections each sending once per 100 ms
  and 20 fast connections ping-ponging 64 bytes, for 10 s, with
  ``--slow-ms 100``, adaptive then ``--strategy pc``. Every echo
  byte-exact. PC: the fast p99 is at least --slow-ms (the worker blocks in
  the tasks). Adaptive: the counters show EPC and PEC tasks and hand-offs,
  the fast p99 is at least 10x below PC's and below --slow-ms, the fast
  median 10x below --slow-ms (a "p99 under 5 ms" aim is printed,
  not asserted: on the shared 2-core machine a preempted lcore or client
  costs scheduler slices of several ms);
- a slow task past its deadline (``--task-timeout 300 --slow-ms 1500``):
  the connection is reset and counted, the late result dropped and
  counted, the fast echo serves meanwhile, and the pools, mbufs, purgatory
  and inbox reservations are back to their start (telemetry);
- SIGINT while tasks run on the reserved lcore (``--strategy pec``,
  ``--slow-ms 1500``): exit 0, final table printed.

Timing bounds are ratios to --slow-ms (10x apart), robust on a loaded
2-core machine; the measured figures are printed.
"""

import json
import os
import time

from framework.ewyk import EWYK_IP, EwykHttpd, Testbed
from framework.node import wait_for
from framework.test_suite import TestSuite

FAST_PORT = 7
SLOW_PORT = 9
PY = "/usr/bin/python3"
# The peer's load (fast and slow echo connections) and its deadline
# client, run in the peer namespace.
LOAD = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "strategy_load.py")
DEADLINE = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "strategy_deadline.py")


class TestSuite_strategy(TestSuite):

    def set_up_all(self):
        self.tb = Testbed(self.node)
        self.load = LOAD
        self.deadline = DEADLINE

    def _app(self, name, *args):
        return EwykHttpd(self.tb, lcores="0-1", log_name=name, app_args=[
            "--reserved", "1", "--echo-port", str(FAST_PORT),
            "--slow-echo-port", str(SLOW_PORT), "--stats-interval", "0",
            *args]).start()

    def _client(self, script, *args, timeout=60):
        # Core 0: the worker sleeps in the blocking tasks there, while the
        # reserved lcore busy-polls core 1.
        out = self.node.run(f"taskset -c 0 {PY} {script} {EWYK_IP} "
                            f"{FAST_PORT} {SLOW_PORT} "
                            + " ".join(str(a) for a in args),
                            ns=self.tb.ns_peer, timeout=timeout).stdout
        return json.loads(out.strip().splitlines()[-1])

    def _hol_run(self, strategy, slow_ms=100):
        app = self._app(f"ewyk-httpd-strategy-{strategy}",
                        "--strategy", strategy, "--slow-ms", str(slow_ms))
        try:
            res = self._client(self.load, 20, 10, 10, 0.1, timeout=120)
            st = app.telemetry("/ewyk/stats")
        finally:
            rc = app.stop()
        assert rc == 0, app.log()
        print(f"{strategy}: fast n={res['fast']['n']} "
              f"p50={res['fast']['p50'] * 1e3:.2f} ms "
              f"p99={res['fast']['p99'] * 1e3:.2f} ms; slow "
              f"n={res['slow']['n']} p50={res['slow']['p50'] * 1e3:.1f} ms; "
              f"strategy {json.dumps(st['strategy'])}")
        for kind in ("fast", "slow"):
            assert res[kind]["bad"] == 0, res
            assert not res[kind]["errors"], res
            assert res[kind]["per_conn_min"] >= 1, res
        return res, st

    def test_head_of_line_blocking(self):
        """Adaptive vs PC, side by side in one test."""
        slow_ms = 100
        res, st = self._hol_run("adaptive", slow_ms)
        s = st["strategy"]
        assert s["tasks_epc"] >= 1 and s["tasks_pec"] >= 1, s
        assert s["handoffs"] >= 1, s
        assert st["shard_0"]["task_timed_out"] == 0, st["shard_0"]
        pc, pst = self._hol_run("pc", slow_ms)
        p = pst["strategy"]
        assert p["tasks_epc"] == 0 and p["tasks_pec"] == 0, p
        assert p["tasks_pc"] >= 1, p
        a99, p99 = res["fast"]["p99"] * 1e3, pc["fast"]["p99"] * 1e3
        print(f"fast echo p99: adaptive {a99:.2f} ms, pc {p99:.2f} ms, "
              f"ratio {p99 / a99:.1f}")
        # PC: the worker blocks in the tasks, fast round trips wait for them.
        assert p99 >= slow_ms, pc["fast"]
        # Adaptive: the fast echo never waits for a task. On a loaded
        # 2-core box a preempted lcore or client costs a few scheduler
        # slices, so the bounds are ratios: 10x below PC's p99, the
        # median 10x below --slow-ms, the p99 below --slow-ms.
        assert a99 * 10 <= p99, (res["fast"], pc["fast"])
        assert res["fast"]["p50"] * 1e3 * 10 < slow_ms, res["fast"]
        assert a99 < slow_ms, res["fast"]

    def test_deadline_resets_and_nothing_leaks(self):
        app = self._app("ewyk-httpd-strategy-deadline", "--task-timeout",
                        "300", "--slow-ms", "1500")
        try:
            time.sleep(0.5)
            before = app.telemetry("/ewyk/stats")["shard_0"]
            res = self._client(self.deadline)
            print(f"deadline: {res}")
            assert res["slow"] is not None and res["slow"].startswith("rst"), res
            assert res["fast_ok"] >= 10 and res["fast_bad"] == 0, res
            # The task finishes after its deadline: its result is dropped.
            ok = wait_for(lambda: app.telemetry("/ewyk/stats")["shard_0"]
                          ["task_late"] >= 1, timeout=10)
            assert ok, app.telemetry("/ewyk/stats")["shard_0"]

            def settled():
                sh = app.telemetry("/ewyk/stats")["shard_0"]
                return (sh["mbufs_in_use"] == before["mbufs_in_use"]
                        and sh["conns_held"] == 0 and sh["tasks_held"] == 0
                        and sh["purgatory_ops"] == 0
                        and sh["inbox_reserved"] == 0) and sh
            sh = wait_for(settled, timeout=10)
            after = app.telemetry("/ewyk/stats")["shard_0"]
            assert sh, (before, after)
            assert after["task_timed_out"] == 1, after
            assert after["tcp_rst_out"] >= 1, after
        finally:
            rc = app.stop()
        assert rc == 0, app.log()

    def test_sigint_while_tasks_run(self):
        app = self._app("ewyk-httpd-strategy-sigint", "--strategy", "pec",
                        "--slow-ms", "1500")
        cmd = (f"taskset -c 0 {PY} -c \"import socket, time; "
               f"s = [socket.create_connection(('{EWYK_IP}', {SLOW_PORT})) "
               f"for _ in range(3)]; [x.sendall(b'y' * 10) for x in s]; "
               f"time.sleep(5)\"")
        client = self.node.spawn(["sh", "-c", cmd], ns=self.tb.ns_peer)
        try:
            ok = wait_for(lambda: app.telemetry("/ewyk/stats")["lcore_1"]
                          ["task_pec"] + app.telemetry("/ewyk/stats")
                          ["strategy"]["pec_queued"] >= 1
                          or app.telemetry("/ewyk/stats")["shard_0"]
                          ["task_dispatched"] >= 3, timeout=5)
            assert ok
            time.sleep(0.3)
            t0 = time.monotonic()
            rc = app.stop()
            took = time.monotonic() - t0
        finally:
            self.node.stop(client, timeout=5)
        log = app.log()
        print(f"SIGINT with tasks running: exit {rc} after {took:.2f} s")
        assert rc == 0, log
        assert "Final per-lcore stats" in log
        assert "ewyk-httpd: stopped" in log

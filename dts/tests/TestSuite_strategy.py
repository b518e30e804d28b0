# SPDX-License-Identifier: BSD-3-Clause
"""lib/strategy in ewyk-httpd's packet path, against the kernel peer.

ewyk-httpd runs on 2 lcores, 1 worker (lcore 0, the home of the only
shard) and 1 reserved lcore (lcore 1, ``--reserved 1``), with the fast TCP
echo (``--echo-port``) and the slow echo (``--slow-echo-port``: every chunk
a BLOCKING task that really blocks its lcore ``--slow-ms`` ms). The peer's
client runs in the peer namespace on core 0: the worker sleeps in the
blocking tasks there, while the reserved lcore busy-polls core 1. Checked:

- head-of-line blocking, with ``--slow-ms 100``, adaptive then
  ``--strategy pc``. First one client thread with one slow and one fast
  connection: for each slow chunk, the fast round trips completed before
  its echo is readable (select() looks at the slow socket first). A count
  of answers between two events, not a time: under adaptive the worker
  hands production to the reserved lcore and runs the task, so the fast
  echo is served meanwhile (median count well above 1); under PC the task
  holds the only poller (every count 0 or 1: the runtime reads a whole
  receive pass before it runs the jobs that pass dispatched, so a fast
  chunk that arrived with the slow one is echoed first). Then 10 slow
  connections each sending once per 100 ms and 20 fast connections
  ping-ponging 64 bytes, for 3 s: every echo byte-exact, every connection
  answered, and the counters show EPC and PEC tasks and hand-offs under
  adaptive, only PC tasks under pc, no task timed out. Latency figures are
  printed, not asserted;
- a slow task past its deadline (``--task-timeout 300 --slow-ms 1500``):
  the connection is reset and counted, the late result dropped and
  counted, the fast echo serves meanwhile (round trips completed before
  the reset is readable: a count) and after, and the pools, mbufs,
  purgatory and inbox reservations are back to their start (telemetry);
- SIGINT while tasks run on the reserved lcore (``--strategy pec``,
  ``--slow-ms 1500``): exit 0, final table printed.

Nothing asserts a time: the measured latencies are printed for the log.
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
# The peer's clients, run in the peer namespace: the round-trip count
# during slow chunks, the load (fast and slow echo connections) and the
# deadline client.
FRAMEWORK = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework")
COUNT = os.path.join(FRAMEWORK, "strategy_count.py")
LOAD = os.path.join(FRAMEWORK, "strategy_load.py")
DEADLINE = os.path.join(FRAMEWORK, "strategy_deadline.py")


class TestSuite_strategy(TestSuite):

    def set_up_all(self):
        self.tb = Testbed(self.node)
        self.count = COUNT
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
        """The round-trip count during slow chunks, then the 20-fast /
        10-slow load, on one ewyk-httpd: (median count, count run, load
        run, telemetry)."""
        app = self._app(f"ewyk-httpd-strategy-{strategy}",
                        "--strategy", strategy, "--slow-ms", str(slow_ms))
        try:
            cnt = self._client(self.count, 3, timeout=60)
            res = self._client(self.load, 20, 10, 3, 0.1, timeout=60)
            st = app.telemetry("/ewyk/stats")
        finally:
            rc = app.stop()
        assert rc == 0, app.log()
        assert cnt["errors"] == [], cnt
        assert cnt["fast"]["bad"] == 0 and cnt["slow"]["bad"] == 0, cnt
        during = sorted(cnt["during_slow"])
        # 100 ms chunks back to back for 3 s: about 30.
        assert len(during) >= 10, cnt
        med = during[len(during) // 2]
        print(f"{strategy}: fast round trips during a slow chunk: median "
              f"{med}, min {during[0]}, max {during[-1]}, "
              f"n={len(during)}: {during}")
        print(f"{strategy}: count run fast p50="
              f"{cnt['fast']['p50'] * 1e3:.2f} ms p99="
              f"{cnt['fast']['p99'] * 1e3:.2f} ms; load fast "
              f"n={res['fast']['n']} p50={res['fast']['p50'] * 1e3:.2f} ms "
              f"p99={res['fast']['p99'] * 1e3:.2f} ms; slow "
              f"n={res['slow']['n']} p50={res['slow']['p50'] * 1e3:.1f} ms; "
              f"strategy {json.dumps(st['strategy'])}")
        for kind in ("fast", "slow"):
            assert res[kind]["bad"] == 0, res
            assert not res[kind]["errors"], res
            assert res[kind]["per_conn_min"] >= 1, res
        assert st["shard_0"]["task_timed_out"] == 0, st["shard_0"]
        return med, cnt, st

    def test_head_of_line_blocking(self):
        """Adaptive vs PC, side by side in one test."""
        served, cnt, st = self._hol_run("adaptive")
        s = st["strategy"]
        assert s["tasks_epc"] >= 1 and s["tasks_pec"] >= 1, s
        assert s["handoffs"] >= 1, s
        # Adaptive: the fast echo is served while a task blocks the
        # worker. A 100 ms task: a client pinging back to back completes
        # hundreds of round trips on a quiet machine, still tens when
        # other load takes the reserved lcore's core for ms at a time.
        assert served >= 5, cnt
        stalled, cnt, pst = self._hol_run("pc")
        p = pst["strategy"]
        assert p["tasks_epc"] == 0 and p["tasks_pec"] == 0, p
        assert p["tasks_pc"] >= 1, p
        # PC: the task holds the only poller. The runtime reads a whole
        # receive pass before it runs the jobs that pass dispatched, so
        # the fast chunk sent right behind the slow one, when it arrives
        # in the same pass, is echoed first: at most that one. None
        # that arrives while the task runs is answered before it.
        assert stalled <= 1 and max(cnt["during_slow"]) <= 1, cnt

    def test_deadline_resets_and_nothing_leaks(self):
        app = self._app("ewyk-httpd-strategy-deadline", "--task-timeout",
                        "300", "--slow-ms", "1500")
        try:
            time.sleep(0.5)
            before = app.telemetry("/ewyk/stats")["shard_0"]
            res = self._client(self.deadline)
            print(f"deadline: {res}")
            assert res["slow"] is not None and res["slow"].startswith("rst"), res
            # The fast echo is served while the task blocks (it blocks
            # 5x past its deadline: every round trip before the reset
            # ran beside it), and after the reset.
            assert res["fast_bad"] == 0, res
            assert res["fast_during"] >= 2, res
            assert res["fast_ok"] == res["fast_during"] + 10, res
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

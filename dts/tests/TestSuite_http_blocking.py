# SPDX-License-Identifier: BSD-3-Clause
"""Blocking work, signals and /metrics in ewyk-httpd's default configuration.

ewyk-httpd runs on one lcore (``-l 0``: one worker, no ``--reserved``
lcore: the default) with ``--root`` and a short ``--task-timeout``; the
kernel peer's clients run on core 1. Checked:

- a blocking route does not hold the worker: ``GET /`` and a static file
  from other clients are answered while ``/sleep/2500`` runs, before its
  answer (the shared reserved lcores, ``--shared-reserved``, run it);
- ``/sleep/<ms>`` never runs past its task's deadline: ``/sleep/3600000``
  is answered 504 at ``--task-timeout`` and the task ends there (counted
  ``late``; with ``--reserved 1`` the next blocking request finds its
  lcore free), an absurd ms is a 400 that says the range;
- ``kill -BUS`` from a local user leaves the SIGBUS guard of ``--root`` in
  place: a file truncated under a reader afterwards still costs that
  response only, and the server goes on;
- ``/metrics`` is rendered at most once a second per shard: two reads
  within the second get the same page (the render counter says so), a
  read after it sees fresh counters.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time

import pytest

from framework.ewyk import EWYK_IP, EwykHttpd, Testbed, asan_build, log_dir
from framework.node import wait_for
from framework.test_suite import TestSuite

PY = "/usr/bin/python3"
URL = f"http://{EWYK_IP}"
TASK_TIMEOUT_MS = 4000
BIG = 32 * 1000 * 1000

# On the peer: GET a file, read a little, stall, then read to the end
# (the same reader as TestSuite_http_review's).
STALL_READER = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "http_stall_reader.py")


def _metric(text, name, labels=None):
    """Sum of the samples of a metric (whose labels contain `labels`)."""
    tot = 0.0
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)$", line)
        if m and m.group(1) == name and (labels is None
                                         or labels in (m.group(2) or "")):
            tot += float(m.group(3))
    return tot


class TestSuite_http_blocking(TestSuite):

    def _start(self, name, extra=()):
        app = EwykHttpd(self.tb, lcores="0",
                        app_args=["--stats-interval", "0", "--root",
                                  self.root, "--task-timeout",
                                  str(TASK_TIMEOUT_MS)] + list(extra),
                        log_name=name).start()
        self.tb.peer("ip neigh flush all", check=False)
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
        return app

    def set_up_all(self):
        self.dir = log_dir()
        tag = self.node.tag
        self.root = os.path.join(self.dir, f"http_blocking_root_{tag}")
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        with open(os.path.join(self.root, "page.html"), "wb") as f:
            f.write(b"<html>static page</html>\n")
        self.reader = STALL_READER
        self.tb = Testbed(self.node)
        self.app = self._start("ewyk-httpd-blocking")

    def tear_down_all(self):
        shutil.rmtree(getattr(self, "root", ""), ignore_errors=True)

    # -- helpers ----------------------------------------------------------
    def _timed(self, path, max_time=20):
        """(status, body, seconds) of one curl GET from the peer."""
        t0 = time.monotonic()
        r = self.tb.peer(f"curl -sS --max-time {max_time} -w '\\n%{{http_code}}'"
                         f" '{URL}{path}'", check=False, timeout=max_time + 10)
        dt = time.monotonic() - t0
        body, _, code = r.stdout.rpartition("\n")
        return int(code or 0), body, dt

    def _in_background(self, path, max_time=20):
        res = {}

        def run():
            res["r"] = self._timed(path, max_time)

        th = threading.Thread(target=run)
        th.start()
        return th, res

    def _shard_stats(self, app=None):
        return (app or self.app).telemetry("/ewyk/stats")["shard_0"]

    # -- 1: a blocking route does not hold the worker -----------------------
    def test_sleep_does_not_hold_worker(self):
        d0 = self._shard_stats()["task_dispatched"]
        th, res = self._in_background("/sleep/2500")
        # The sleep has been dispatched and runs.
        assert wait_for(lambda: self._shard_stats()["task_dispatched"] > d0,
                        timeout=10, interval=0.05), self._shard_stats()
        # Each answer, and whether /sleep/2500 was still unanswered when
        # it came: a server whose worker held the sleep would answer
        # these only after it (an order of events, not a time).
        fast = [(self._timed("/"), "r" not in res) for _ in range(3)]
        page = (self._timed("/page.html"), "r" not in res)
        th.join(30)
        st, body, dt = res["r"]
        print(f"/sleep/2500: {st} in {dt:.2f} s; meanwhile / in "
              f"{', '.join(f'{x[0][2]:.2f}' for x in fast)} s, a static "
              f"file in {page[0][2]:.2f} s")
        assert st == 200 and body == "slept 2500 ms\n", res
        assert dt >= 2.4, dt
        for (s, b, _), before_sleep in fast:
            assert s == 200 and b == "hello world\n", (s, b)
            assert before_sleep, fast
        # A static file (BLOCKING too) is served in the default
        # configuration, beside the sleep, not behind it.
        (s, b, _), before_sleep = page
        assert s == 200 and b == "<html>static page</html>\n", page
        assert before_sleep, page

    def test_sleep_ends_at_task_timeout(self):
        late0 = self._shard_stats()["task_late"]
        t0 = time.monotonic()
        st, body, dt = self._timed("/sleep/3600000", max_time=30)
        print(f"/sleep/3600000 with --task-timeout {TASK_TIMEOUT_MS}: {st} "
              f"in {dt:.2f} s")
        # The 504 is the deadline's answer (curl's own limit, 30 s, is
        # far off), and never before the deadline.
        assert st == 504, (st, body)
        assert dt >= TASK_TIMEOUT_MS / 1000 - 0.5, dt
        # The task itself woke at the deadline: its late result was
        # dropped (counted) right after the 504, not an hour later.
        assert wait_for(lambda: self._shard_stats()["task_late"] > late0,
                        timeout=30), (time.monotonic() - t0,
                                      self._shard_stats())
        # An absurd duration is a 400 that says what is allowed.
        for path in ("/sleep/3600001", "/sleep/99999999999999999999999",
                     "/sleep/-1", "/sleep/1e3"):
            st, body, dt = self._timed(path)
            assert st == 400 and "0..3600000" in body, (path, st, body)
        st, body, _ = self._timed("/sleep/10")
        assert st == 200 and body == "slept 10 ms\n", (st, body)

    def test_sleep_frees_reserved_lcore_at_deadline(self):
        # With a reserved lcore (EPC: the worker runs the sleep, the
        # reserved lcore polls the shard) the sleep ends at the deadline
        # too: the next blocking request finds a free lcore at once.
        # Before, the first sleep kept its lcore an hour after its 504,
        # and the next one waited, queued, until its own deadline (504).
        self.app.stop()
        app = EwykHttpd(self.tb, lcores="0,1",
                        app_args=["--stats-interval", "0", "--reserved", "1",
                                  "--task-timeout", "2000"],
                        log_name="ewyk-httpd-blocking-res").start()
        try:
            self.tb.peer("ip neigh flush all", check=False)
            self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
            st, _, dt = self._timed("/sleep/3600000", max_time=30)
            st2, body2, dt2 = self._timed("/sleep/100", max_time=30)
            print(f"--reserved 1, --task-timeout 2000: /sleep/3600000 {st} "
                  f"in {dt:.2f} s, then /sleep/100 {st2} in {dt2:.2f} s")
            # The first sleep's 504 comes from its deadline. Had its lcore
            # stayed in the hour-long sleep, the second would have waited
            # for a free one until its own deadline and been a 504 too:
            # its 200 says it found the lcore free.
            assert st == 504, (st, dt)
            assert st2 == 200 and body2 == "slept 100 ms\n", (st2, body2)
        finally:
            app.stop()
            type(self).app = self._start("ewyk-httpd-blocking-3")

    # -- 2: kill -BUS does not switch the SIGBUS guard off -----------------
    def _httpd_pid(self, app):
        """The pid of ewyk-httpd itself (ip netns exec execs it)."""
        pid = app.proc.pid
        with open(f"/proc/{pid}/comm") as f:
            assert f.read().strip().startswith("ewyk-httpd"), pid
        return pid

    def test_sigbus_from_kill_keeps_guard(self):
        # A process of its own (one at a time on the testbed). In an
        # ASan build the handler before ours is ASan's, to which a
        # kill -BUS is chained, and ASan ends the process: plain builds
        # only (devtools/test.sh runs DTS on build/).
        if asan_build():
            pytest.skip("kill -BUS ends an ASan build (ASan's handler)")
        self.app.stop()
        app = self._start("ewyk-httpd-sigbus")
        try:
            pid = self._httpd_pid(app)
            os.kill(pid, signal.SIGBUS)
            time.sleep(0.2)
            assert app.alive(), app.log()[-3000:]
            st, body, _ = self._timed("/")
            assert st == 200, (st, body)
            # Now a file shrinks under a reader: the guard must still
            # catch the fault (before: the first kill had reset SIGBUS to
            # its default action, and this killed the server).
            path = os.path.join(self.root, "shrinks.bin")
            with open(path, "wb") as f:
                f.write(os.urandom(BIG))
            mark = path + ".stalled"
            res = {}

            def read():
                res["out"] = self.tb.peer(
                    f"{PY} {self.reader} {EWYK_IP} /shrinks.bin 1000000 2 "
                    f"{mark}", check=False, timeout=60)

            th = threading.Thread(target=read)
            th.start()
            deadline = time.monotonic() + 40
            while not os.path.exists(mark) and time.monotonic() < deadline \
                    and th.is_alive():
                time.sleep(0.05)
            assert os.path.exists(mark), res
            os.truncate(path, 4096)
            th.join(70)
            out = res["out"].stdout
            assert app.alive(), \
                ("ewyk-httpd died (SIGBUS)", out, app.log()[-3000:])
            line = json.loads(out.strip().splitlines()[-1])
            assert line["status"] == 200 and line["length"] == BIG, out
            assert line["got"] < BIG, out
            st, body, _ = self._timed("/")
            assert st == 200 and body == "hello world\n", (st, body)
            text = self.tb.peer(f"curl -sS --max-time 10 '{URL}/metrics'",
                                timeout=20).stdout
            ign = _metric(text, "ewyk_httpd_sigbus_ignored_total")
            print(f"kill -BUS: ignored {ign:.0f}; then a file truncated "
                  f"under its reader: {line}; server alive")
            assert ign == 1, ign
        finally:
            app.stop()
            type(self).app = self._start("ewyk-httpd-blocking-2")
            for p in ("shrinks.bin", "shrinks.bin.stalled"):
                try:
                    os.unlink(os.path.join(self.root, p))
                except FileNotFoundError:
                    pass

    # -- 3: /metrics is rendered at most once a second ---------------------
    def _reads(self, n):
        """n /metrics pages read back to back on one connection, and the
        seconds the n took."""
        names = [os.path.join(self.dir, f"http_blocking_m{i}_{self.node.tag}")
                 for i in range(n)]
        args = " ".join(f"-o {x} '{URL}/metrics'" for x in names)
        t0 = time.monotonic()
        self.tb.peer(f"curl -sS --max-time 20 {args}", timeout=30)
        dt = time.monotonic() - t0
        pages = []
        for x in names:
            with open(x) as f:
                pages.append(f.read())
            os.unlink(x)
        return pages, dt

    def test_metrics_rendered_once_per_interval(self):
        # Eight reads back to back: the page is rendered at most once a
        # second, so the eight span at most 1 + (their seconds) renders,
        # whatever the host's speed; pages of one render are the same
        # bytes although each read is itself one more HTTP request.
        renders = "ewyk_rt_metrics_renders_total"
        pages, dt = self._reads(8)
        counts = [_metric(p, renders) for p in pages]
        print(f"eight /metrics reads in {dt:.2f} s: renders {counts}")
        assert counts[0] >= 1, pages[0][:2000]
        assert counts == sorted(counts), counts
        assert counts[-1] - counts[0] <= int(dt) + 1, (counts, dt)
        for p, c in zip(pages, counts):
            assert p == pages[counts.index(c)], counts
        pa, ra = pages[-1], counts[-1]
        # After the interval: a new render, with the counters of now.
        req_a = _metric(pa, "ewyk_http_requests_total")
        self._timed("/")
        time.sleep(1.2)
        pc = self.tb.peer(f"curl -sS --max-time 10 '{URL}/metrics'",
                          timeout=20).stdout
        rc = _metric(pc, renders)
        req_c = _metric(pc, "ewyk_http_requests_total")
        print(f"after 1.2 s: renders {rc:.0f}, requests {req_a:.0f} -> "
              f"{req_c:.0f}")
        assert rc == ra + 1, (ra, rc)
        # At least the / and this one (and any of the eight reads that
        # came after the last page's render).
        assert req_c >= req_a + 2, (req_a, req_c)
        if shutil.which("promtool"):
            p = subprocess.run(["promtool", "check", "metrics"], input=pc,
                               capture_output=True, text=True, timeout=30)
            assert p.returncode == 0, (p.stdout, p.stderr)

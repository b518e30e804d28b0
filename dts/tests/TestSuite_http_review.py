# SPDX-License-Identifier: BSD-3-Clause
"""Findings of the adversarial review of ewyk-httpd's HTTP serving code.

Each test is a scenario that broke the server before its fix:

- a static file truncated while it is being streamed: the token holder's
  copy out of the mapping raised SIGBUS and killed the whole server; now
  that connection is cut short of its Content-Length and the server goes
  on serving.
- If-Modified-Since with a date in the future: answered 304, so a cache
  that once sent such a date never saw the file change again; RFC 9110
  13.1.3 makes such a date invalid, to be ignored: 200.
- docs/guides/http.md said a symlink that stays inside DIR is followed;
  under openat2(RESOLVE_BENEATH) an absolute one never is (403): the doc
  now says so and test_absolute_symlink_inside_root pins it.
- /sleep/<ms> past --task-timeout when the task ran in place on the
  token holder (the default before shared reserved lcores): the result
  claimed its op before the holder's wheel could see the deadline, so the
  answer was 200 however late, not the documented 504. (Now the default
  runs it on a shared reserved lcore, and the sleep ends at the deadline:
  TestSuite_http_blocking.)
"""

import os
import shutil
import threading
import time

from framework.ewyk import EWYK_IP, EwykHttpd, Testbed, log_dir
from framework.test_suite import TestSuite

PY = "/usr/bin/python3"
BIG = 32 * 1000 * 1000
# The peer's reader that stalls in the middle of a download.
STALL_READER = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "http_stall_reader.py")


class TestSuite_http_review(TestSuite):

    def set_up_all(self):
        self.dir = log_dir()
        tag = self.node.tag
        self.root = os.path.join(self.dir, f"http_review_root_{tag}")
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        self.reader = STALL_READER
        self.tb = Testbed(self.node)
        self.app = EwykHttpd(self.tb, lcores="0",
                             app_args=["--stats-interval", "0", "--port",
                                       "80", "--root", self.root,
                                       "--task-timeout", "1000"],
                             log_name="ewyk-httpd-review").start()
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")

    def tear_down_all(self):
        shutil.rmtree(getattr(self, "root", ""), ignore_errors=True)

    def _hello(self):
        return self.tb.peer(f"curl -sS --max-time 10 http://{EWYK_IP}/",
                            check=False, timeout=20)

    def test_static_file_truncated_while_streamed(self):
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
        # The reader has its first MB and stalls 2 s: cut the file then.
        deadline = time.monotonic() + 40
        while not os.path.exists(mark) and time.monotonic() < deadline \
                and th.is_alive():
            time.sleep(0.05)
        assert os.path.exists(mark), res
        os.truncate(path, 4096)
        th.join(70)
        out = res["out"].stdout
        assert self.app.alive(), \
            ("ewyk-httpd died (SIGBUS?)", out, self.app.log()[-3000:])
        line = out.strip().splitlines()[-1]
        assert '"status": 200' in line and f'"length": {BIG}' in line, out
        got = int(line.split('"got": ')[1].split(",")[0])
        assert got < BIG, out  # cut short: nothing past the new end
        r = self._hello()
        assert r.returncode == 0 and r.stdout == "hello world\n", \
            (r.stdout, r.stderr, self.app.log()[-3000:])

    def test_if_modified_since_future_ignored(self):
        path = os.path.join(self.root, "page.txt")
        with open(path, "wb") as f:
            f.write(b"page\n")
        url = f"http://{EWYK_IP}/page.txt"

        def status(ims):
            r = self.tb.peer(f"curl -sS --max-time 10 -o /dev/null -w "
                             f"'%{{http_code}}' -H 'If-Modified-Since: {ims}' "
                             f"'{url}'", timeout=20)
            return int(r.stdout.strip())

        # A past date after the file's mtime is honoured...
        now = time.time()
        os.utime(path, (now - 3600, now - 3600))
        past = time.strftime("%a, %d %b %Y %H:%M:%S GMT",
                             time.gmtime(now - 60))
        assert status(past) == 304
        # ...a date in the future is not.
        assert status("Fri, 01 Jan 2100 00:00:00 GMT") == 200

    def test_absolute_symlink_inside_root(self):
        with open(os.path.join(self.root, "target.txt"), "wb") as f:
            f.write(b"target\n")
        os.symlink("target.txt", os.path.join(self.root, "rel_link.txt"))
        os.symlink(os.path.join(self.root, "target.txt"),
                   os.path.join(self.root, "abs_link.txt"))

        def status(p):
            r = self.tb.peer(f"curl -sS --max-time 10 -o /dev/null -w "
                             f"'%{{http_code}}' 'http://{EWYK_IP}{p}'",
                             timeout=20)
            return int(r.stdout.strip())

        assert status("/rel_link.txt") == 200
        # RESOLVE_BENEATH refuses every absolute link, even one that
        # stays inside the root (docs/guides/http.md, --root).
        assert status("/abs_link.txt") == 403

    def test_sleep_past_timeout_in_place_504(self):
        # One lcore, strategy pc: the sleep runs on the token holder.
        r = self.tb.peer(f"curl -sS --max-time 20 -o /dev/null -w "
                         f"'%{{http_code}}' 'http://{EWYK_IP}/sleep/1500'",
                         timeout=30)
        assert r.stdout.strip() == "504", r.stdout
        r = self.tb.peer(f"curl -sS --max-time 20 "
                         f"'http://{EWYK_IP}/sleep/10'", timeout=30)
        assert r.stdout == "slept 10 ms\n", r.stdout

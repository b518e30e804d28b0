# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_strategy: is the fast echo
served while a slow (BLOCKING) echo chunk runs?

Two connections, one to the slow echo port, one to the fast echo port,
each with one 64-byte chunk outstanding at a time; count_during.py says
how the fast round trips per slow chunk are counted and why they are the
measure.

Every echo is checked byte for byte. One JSON line: "during_slow" (the
count per slow chunk), per kind the round trips, their p50 and p99 in
seconds (for the log: nothing asserts a time), bad echoes, and errors.

    python3 strategy_count.py HOST FAST_PORT SLOW_PORT SECS
"""
import json, os, socket, sys, time

from count_during import count_during

host, fast_port, slow_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
secs = float(sys.argv[4])


class Conn:
    """An echo connection with one message outstanding at a time."""

    def __init__(self, port, kind):
        self.s = socket.create_connection((host, port), timeout=10)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.kind, self.seq, self.want = kind, 0, b""
        self.t0, self.rtts, self.bad = 0.0, [], 0

    def send(self):
        msg = ("%s-%08d-" % (self.kind, self.seq)).encode()
        self.want = (msg + os.urandom(32).hex().encode())[:64]
        self.seq += 1
        self.t0 = time.perf_counter()
        self.s.sendall(self.want)

    def read(self):
        """Read the whole echo of the outstanding message and check it."""
        got = b""
        while len(got) < len(self.want):
            d = self.s.recv(len(self.want) - len(got))
            if not d:
                raise ConnectionError("%s: closed" % self.kind)
            got += d
        self.rtts.append(time.perf_counter() - self.t0)
        if got != self.want:
            self.bad += 1


during, errors = [], []
slow = fast = None
try:
    slow, fast = Conn(slow_port, "slow"), Conn(fast_port, "fast")
    during = count_during(slow, fast, secs)
except OSError as e:
    errors.append(repr(e))


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else None


out = {"during_slow": during, "errors": errors}
for c in (slow, fast):
    if c is not None:
        out[c.kind] = {"n": len(c.rtts), "p50": pct(c.rtts, 0.50),
                       "p99": pct(c.rtts, 0.99), "bad": c.bad}
        c.s.close()
print(json.dumps(out))

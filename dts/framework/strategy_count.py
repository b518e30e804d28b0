# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_strategy: is the fast echo
served while a slow (BLOCKING) echo chunk runs?

One thread, two connections: one to the slow echo port, one to the fast
echo port. For SECS seconds: send one 64-byte chunk on the slow
connection, then ping-pong 64 bytes on the fast one until the slow echo
is readable (select() looks at the slow socket first, so an echo that
came first is seen first). The count of fast round trips completed in
that time is the measure for that slow chunk: a server whose only poller
runs the blocking task completes none (the slow chunk left first on the
same path, so it reached the worker first); one that moves production to
a reserved lcore completes several. One client thread does both, so its
own descheduling stops both sides alike and cannot add round trips to a
window.

Every echo is checked byte for byte. One JSON line: "during_slow" (the
count per slow chunk), per kind the round trips, their p50 and p99 in
seconds (for the log: nothing asserts a time), bad echoes, and errors.

    python3 strategy_count.py HOST FAST_PORT SLOW_PORT SECS
"""
import json, os, select, socket, sys, time

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

    def echo(self):
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
    end = time.monotonic() + secs
    while time.monotonic() < end:
        slow.send()
        n, pending = 0, False
        while True:
            if not pending:
                fast.send()
                pending = True
            r, _, _ = select.select([slow.s, fast.s], [], [], 10)
            if not r:
                raise TimeoutError("no echo in 10 s")
            if slow.s in r:
                break
            fast.echo()
            pending = False
            n += 1
        slow.echo()
        during.append(n)
        if pending:  # its echo comes after the slow one's: not counted
            fast.echo()
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

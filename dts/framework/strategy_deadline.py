# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_strategy: one slow chunk that
outlives its deadline (ewyk-httpd resets that connection), while the fast
echo is served.

One thread: send the slow chunk, open the fast connection and ping-pong
on it until the slow connection is readable (select() looks at the slow
socket first), then read what the slow connection saw; then AFTER more
fast round trips. The task blocks far longer than its deadline, so every
fast round trip completed before the reset was served while the task
ran: a count of answers between two events, not a time. One JSON line:
fast echoes right before the reset ("fast_during") and in all
("fast_ok"), wrong ones, and what the slow connection saw.

    python3 strategy_deadline.py HOST FAST_PORT SLOW_PORT [AFTER]
"""
import json, select, socket, sys, time

host, fast_port, slow_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
after = int(sys.argv[4]) if len(sys.argv) > 4 else 10
slow = socket.create_connection((host, slow_port), timeout=5)
slow.sendall(b"x" * 100)
t0 = time.monotonic()
fast = socket.create_connection((host, fast_port), timeout=5)
fast.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
ok = bad = 0


def ping():
    """One fast round trip, checked byte for byte."""
    global ok, bad
    msg = b"f%07d" % (ok + bad)
    fast.sendall(msg)
    got = b""
    while len(got) < len(msg):
        d = fast.recv(64)
        if not d:
            raise ConnectionError("fast: closed")
        got += d
    if got == msg:
        ok += 1
    else:
        bad += 1


reset, during = None, None
try:
    while True:
        r, _, _ = select.select([slow], [], [], 0)
        if r:
            break
        ping()
        if time.monotonic() - t0 > 30:  # a guard, not a measure
            raise TimeoutError("slow: nothing in 30 s")
    during = ok
    try:
        d = slow.recv(200)
        reset = "eof" if not d else "data"
    except ConnectionResetError:
        reset = "rst after %.3f s" % (time.monotonic() - t0)
    for _ in range(after):
        ping()
except OSError as e:
    reset = reset or repr(e)
fast.close()
slow.close()
print(json.dumps({"fast_during": during, "fast_ok": ok, "fast_bad": bad,
                  "slow": reset}))

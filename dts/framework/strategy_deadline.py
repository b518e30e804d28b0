# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_strategy: one slow chunk that
outlives its deadline (ewyk-httpd resets that connection), while the fast
echo keeps being served for a second. One JSON line: fast echoes right and
wrong, and what the slow connection saw.

    python3 strategy_deadline.py HOST FAST_PORT SLOW_PORT
"""
import json, socket, sys, time

host, fast_port, slow_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
slow = socket.create_connection((host, slow_port), timeout=5)
slow.sendall(b"x" * 100)
t0 = time.monotonic()
fast = socket.create_connection((host, fast_port), timeout=5)
fast.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
ok = bad = 0
slow.settimeout(0.001)
reset = None
while time.monotonic() - t0 < 1.0:
    msg = b"f%07d" % ok
    fast.sendall(msg)
    got = b""
    while len(got) < len(msg):
        got += fast.recv(64)
    if got == msg:
        ok += 1
    else:
        bad += 1
    if reset is None:
        try:
            d = slow.recv(200)
            reset = "eof" if not d else "data"
        except socket.timeout:
            pass
        except ConnectionResetError:
            reset = "rst after %.3f s" % (time.monotonic() - t0)
fast.close()
slow.close()
print(json.dumps({"fast_ok": ok, "fast_bad": bad, "slow": reset}))

# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_http_robustness: GET
/sleep/<MS> every PERIOD s for DUR s, one connection each. Prints the
requests sent and the 200s received.

    python3 http_sleeper.py HOST PORT MS PERIOD DUR
"""
import socket, sys, time
host, port, ms, period, dur = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
end = time.monotonic() + dur
n = ok = 0
while time.monotonic() < end:
    t = time.monotonic()
    try:
        s = socket.create_connection((host, port), timeout=10)
        s.sendall(b"GET /sleep/%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % ms)
        s.settimeout(10)
        buf = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            buf += d
        s.close()
        n += 1
        ok += buf.startswith(b"HTTP/1.1 200")
    except OSError:
        n += 1
    time.sleep(max(0.0, period - (time.monotonic() - t)))
print(n, ok)

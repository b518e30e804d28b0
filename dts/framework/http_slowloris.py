# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_http_robustness: N connections
each sending the start of a head, then one more header line every
INTERVAL s, until DUR s have passed or the server closed it. Prints how
many the server closed (and how many got a 408 first), as one JSON line.

    python3 http_slowloris.py HOST PORT N INTERVAL DUR
"""
import json, socket, sys, time
host, port, n, interval, dur = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
socks = []
for i in range(n):
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    s.setblocking(False)
    socks.append({"s": s, "closed": False, "got": b""})
print(json.dumps({"opened": len(socks)}), flush=True)
end = time.monotonic() + dur
while time.monotonic() < end and not all(c["closed"] for c in socks):
    for c in socks:
        if c["closed"]:
            continue
        try:
            d = c["s"].recv(4096)
            if not d:
                c["closed"] = True
            c["got"] += d
        except BlockingIOError:
            pass
        except OSError:
            c["closed"] = True
        if not c["closed"]:
            try:
                c["s"].send(b"X-Drip: a\r\n")
            except BlockingIOError:
                pass
            except OSError:
                c["closed"] = True
    time.sleep(interval)
closed = sum(1 for c in socks if c["closed"])
s408 = sum(1 for c in socks if c["got"].startswith(b"HTTP/1.1 408"))
for c in socks:
    c["s"].close()
print(json.dumps({"closed": closed, "status_408": s408}), flush=True)

# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_hello_http: open N keep-alive
connections, send GET PATH on each, print "sent" once every request is
written, then wait up to TIMEOUT s for each answer. One JSON line: per
connection, the status (0: the connection was reset or closed) and the
seconds from "sent" to the outcome, None when nothing came in TIMEOUT.

    python3 hello_http_inflight.py HOST PORT PATH N TIMEOUT
"""
import json, selectors, socket, sys, time

host, port, path, n, timeout = (sys.argv[1], int(sys.argv[2]), sys.argv[3],
                                 int(sys.argv[4]), float(sys.argv[5]))
sel = selectors.DefaultSelector()
conns = []
for i in range(n):
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(b"GET %s HTTP/1.1\r\nHost: t\r\n\r\n" % path.encode())
    s.setblocking(False)
    c = {"s": s, "buf": b"", "status": None, "secs": None}
    sel.register(s, selectors.EVENT_READ, c)
    conns.append(c)
print("sent", flush=True)
t0 = time.monotonic()
left = n
while left > 0 and time.monotonic() < t0 + timeout:
    for key, _ in sel.select(timeout=0.05):
        c = key.data
        try:
            d = c["s"].recv(65536)
        except BlockingIOError:
            continue
        except OSError:
            d = b""
        if d:
            c["buf"] += d
            if b"\r\n" not in c["buf"]:
                continue
            c["status"] = int(c["buf"].split(b"\r\n")[0].split()[1])
        else:
            c["status"] = 0
        c["secs"] = time.monotonic() - t0
        sel.unregister(c["s"])
        left -= 1
print(json.dumps([[c["status"], c["secs"]] for c in conns]), flush=True)

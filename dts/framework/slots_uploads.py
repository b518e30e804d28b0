#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Peer tool of TestSuite_http_slots, run in the peer namespace:

    slots_uploads.py HOST SRC N WAIT SRC2 PATH

N connections from SRC, then one from SRC2, each start a POST PATH whose
body never ends (a tenth of it sent), then read for WAIT s: the statuses
of the answers that came (0: none; /sha256 answers at the body's end,
/echo at once). One JSON line.
"""
import json, socket, sys, time
host, src, n, wait, src2, path = sys.argv[1], sys.argv[2], \
    int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
socks = []
for i in range(n + 1):
    s = socket.socket()
    s.bind((src if i < n else src2, 0))
    s.connect((host, 80))
    s.sendall(b"POST " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + b"a" * 100)
    s.setblocking(False)
    socks.append(s)
got = [b""] * (n + 1)
end = time.monotonic() + wait
while time.monotonic() < end:
    for i, s in enumerate(socks):
        try:
            got[i] += s.recv(4096)
        except (BlockingIOError, OSError):
            pass
    time.sleep(0.05)
st = [int(g.split()[1]) if g else 0 for g in got]
for s in socks:
    s.close()
print(json.dumps({"status": st[:n], "other": st[n]}))

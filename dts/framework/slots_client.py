#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Peer tool of TestSuite_http_slots, run in the peer namespace:

    slots_client.py HOST SRC N NEW_ADDRS

N keep-alive connections from SRC, one GET / on each; then, with those
still open, one connection from each address of NEW_ADDRS (comma
separated), one GET / each. Then which of the first ones the server
closed (FIN or reset), and whether the last of them is still served.
One JSON line.
"""
import json, resource, socket, sys, time
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
host, src, n, new = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
REQ = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"

def get(s):
    """Status of one GET / on s, 0 when the connection is gone."""
    try:
        s.sendall(REQ)
        buf = b""
        while b"hello world\n" not in buf:
            d = s.recv(4096)
            if not d:
                return 0
            buf += d
        return int(buf.split()[1])
    except OSError:
        return 0

def conn(src):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
    s.settimeout(5)
    s.bind((src, 0))
    try:
        s.connect((host, 80))
    except OSError:
        return s, 0
    return s, get(s)

first = [conn(src) for _ in range(n)]
ok = [st for _, st in first].count(200)
others, kept = {}, []
for a in [x for x in new.split(",") if x]:
    s, st = conn(a)
    others[a] = st
    kept.append(s)  # open: each new client needs an object of its own
time.sleep(0.3)
closed = []
for i, (s, st) in enumerate(first):
    if st != 200:
        continue
    s.setblocking(False)
    try:
        gone = s.recv(1) == b""
    except BlockingIOError:
        gone = False
    except OSError:
        gone = True
    s.setblocking(True)
    if gone:
        closed.append(i)
alive = [i for i, (_, st) in enumerate(first) if st == 200 and i not in closed]
last = get(first[alive[-1]][0]) if alive else 0
for s in [s for s, _ in first] + kept:
    s.close()
print(json.dumps({"ok": ok, "others": others, "closed": closed,
                  "last_alive_status": last}))

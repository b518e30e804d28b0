# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_http_heads: N connections at
once (all established first), each sends METHOD PATH with FIELDS padding
fields of PAD bytes each (and BODY, with its Content-Length, when METHOD
is POST), then reads one response. One JSON line: the status of each,
and the first body.

    python3 http_heads_client.py HOST N METHOD PATH FIELDS PAD BODY
"""
import json, socket, sys
host, n, method, path, fields, pad, body = sys.argv[1], int(sys.argv[2]), \
    sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), \
    sys.argv[7].encode()
head = "%s %s HTTP/1.1\r\nHost: x\r\n" % (method, path)
for i in range(fields):
    head += "X-Pad-%02d: %s\r\n" % (i, "v" * pad)
if method == "POST":
    head += "Content-Length: %d\r\n" % len(body)
req = head.encode() + b"\r\n" + (body if method == "POST" else b"")
# Every connection is established before the first head is sent: the heads
# then leave back to back, not spread over N handshakes (on a loaded
# machine those took longer than the server holds a head's copy, and the
# copies given back let later heads in).
socks = [socket.create_connection((host, 80), timeout=30) for i in range(n)]
for s in socks:
    s.sendall(req)
out, first = [], None
for s in socks:
    buf = b""
    try:
        while b"\r\n\r\n" not in buf:
            d = s.recv(65536)
            if not d:
                break
            buf += d
        h, _, b = buf.partition(b"\r\n\r\n")
        lines = h.decode("latin-1").split("\r\n")
        st = int(lines[0].split()[1]) if lines[0] else 0
        clen = 0
        for ln in lines[1:]:
            k, _, v = ln.partition(":")
            if k.strip().lower() == "content-length":
                clen = int(v)
        while len(b) < clen:
            d = s.recv(65536)
            if not d:
                break
            b += d
    except OSError:
        st, b = 0, b""
    out.append(st)
    if first is None:
        first = b.decode("latin-1")
    s.close()
print(json.dumps({"status": out, "body": first, "head_bytes": len(head) + 2}))

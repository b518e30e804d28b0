# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_http_review: GET a file, read
FIRST bytes, stall STALL seconds (the server stops under flow control, most
of the file unsent; MARK is a file it creates when the stall begins, the
test's cue), then read to the end. One JSON line: status, Content-Length,
bytes of body received.

    python3 http_stall_reader.py HOST PATH FIRST STALL MARK
"""
import json, socket, sys, time
host, path, first, stall, mark = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
s = socket.create_connection((host, 80), timeout=20)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())
buf = b""
while b"\r\n\r\n" not in buf:
    d = s.recv(65536)
    if not d:
        break
    buf += d
head, _, body = buf.partition(b"\r\n\r\n")
lines = head.decode("latin-1").split("\r\n")
status = int(lines[0].split()[1]) if lines and lines[0] else 0
clen = -1
for ln in lines[1:]:
    k, _, v = ln.partition(":")
    if k.strip().lower() == "content-length":
        clen = int(v.strip())
got = len(body)
while got < first:
    d = s.recv(65536)
    if not d:
        break
    got += len(d)
open(mark, "w").close()  # the test cuts the file now
time.sleep(stall)
err = ""
try:
    while got < clen:
        d = s.recv(1 << 20)
        if not d:
            break
        got += len(d)
except OSError as e:
    err = str(e)
print(json.dumps({"status": status, "length": clen, "got": got, "err": err}))

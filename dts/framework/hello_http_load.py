# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_hello_http: one keep-alive
connection asks GET /hello back to back for SECS seconds and times every
answer, while N_SLOW other keep-alive connections ask GET /slow back to
back (the blocking route loaded). One JSON line: the fast route's count,
p50 and p99 in seconds, the slow route's answers by status, and errors.

    python3 hello_http_load.py HOST PORT SECS N_SLOW
"""
import json, socket, sys, threading, time

host, port, secs, n_slow = (sys.argv[1], int(sys.argv[2]),
                            float(sys.argv[3]), int(sys.argv[4]))


def request(s, path, buf):
    """One GET on a keep-alive socket: (status, body, leftover bytes)."""
    s.sendall(b"GET %s HTTP/1.1\r\nHost: t\r\n\r\n" % path.encode())
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            raise ConnectionError("closed")
        buf += d
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    n = 0
    for ln in lines[1:]:
        k, _, v = ln.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v)
    while len(rest) < n:
        d = s.recv(65536)
        if not d:
            raise ConnectionError("closed in body")
        rest += d
    return status, rest[:n], rest[n:]


def connect():
    s = socket.create_connection((host, port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


end = time.monotonic() + secs
slow = {"status": {}, "errors": []}
lock = threading.Lock()


def slow_loop():
    try:
        s, buf = connect(), b""
        while time.monotonic() < end:
            st, _, buf = request(s, "/slow", buf)
            with lock:
                slow["status"][st] = slow["status"].get(st, 0) + 1
        s.close()
    except OSError as e:
        with lock:
            slow["errors"].append(repr(e))


threads = [threading.Thread(target=slow_loop) for _ in range(n_slow)]
for t in threads:
    t.start()
lat, errors, bad = [], [], 0
try:
    s, buf = connect(), b""
    time.sleep(0.2)  # the slow load runs first
    while time.monotonic() < end:
        t0 = time.perf_counter()
        st, body, buf = request(s, "/hello", buf)
        lat.append(time.perf_counter() - t0)
        if st != 200 or body != b"hello\n":
            bad += 1
    s.close()
except OSError as e:
    errors.append(repr(e))
for t in threads:
    t.join()
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] if lat else None
print(json.dumps({"fast": len(lat), "p50": q(0.50), "p99": q(0.99),
                  "bad": bad, "errors": errors, "slow": slow}))

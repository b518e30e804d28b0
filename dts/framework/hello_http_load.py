# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_hello_http: does the server
answer its fast route while a blocking call runs?

Two keep-alive connections: GET SLOW on the first, GET FAST back to back
on the second; count_during.py says how the fast round trips per slow
request are counted and why they are the measure.

One JSON line: "during_slow" (the count per /slow request), the slow
route's answers by status, the fast route's count, p50 and p99 in seconds
(for the log: nothing asserts a time), bad answers and errors.

    python3 hello_http_load.py HOST PORT SECS [SLOW FAST FAST_BODY]

SLOW, FAST and FAST_BODY (the paths, and the fast route's exact body)
default to /slow, /hello and "hello\\n"; a FAST_BODY's "\\n" is a newline.
"""
import json, socket, sys, time

from count_during import count_during

host, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
slow_path, fast_path, fast_body = (sys.argv[4:7] if len(sys.argv) > 6
                                   else ("/slow", "/hello", "hello\\n"))
fast_body = fast_body.replace("\\n", "\n").encode()


class Conn:
    """A keep-alive connection that frames one response at a time."""

    def __init__(self):
        self.s = socket.create_connection((host, port), timeout=10)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def send_get(self, path):
        self.s.sendall(b"GET %s HTTP/1.1\r\nHost: t\r\n\r\n" % path.encode())

    def response(self):
        """Read one whole response: (status, body)."""
        while b"\r\n\r\n" not in self.buf:
            self._more()
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        n = 0
        for ln in lines[1:]:
            k, _, v = ln.partition(b":")
            if k.strip().lower() == b"content-length":
                n = int(v)
        self.buf = rest
        while len(self.buf) < n:
            self._more()
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, body

    def _more(self):
        d = self.s.recv(65536)
        if not d:
            raise ConnectionError("closed")
        self.buf += d


during, lat, errors = [], [], []
slow = {"status": {}}


class Slow(Conn):
    def send(self):
        self.send_get(slow_path)

    def read(self):
        st, _ = self.response()
        slow["status"][st] = slow["status"].get(st, 0) + 1


class Fast(Conn):
    bad = 0

    def send(self):
        self.t0 = time.perf_counter()
        self.send_get(fast_path)

    def read(self):
        st, body = self.response()
        lat.append(time.perf_counter() - self.t0)
        if st != 200 or body != fast_body:
            Fast.bad += 1


try:
    during = count_during(Slow(), Fast(), secs)
except OSError as e:
    errors.append(repr(e))
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] if lat else None
print(json.dumps({"during_slow": during, "slow": slow, "fast": len(lat),
                  "p50": q(0.50), "p99": q(0.99), "bad": Fast.bad,
                  "errors": errors}))

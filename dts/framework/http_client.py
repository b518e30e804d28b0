# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_http: a raw-socket HTTP/1.1
client for what curl cannot do (many requests on one connection, a
pipelined burst, bytes as written, a download that stalls). Each command
prints one JSON line.

    python3 http_client.py keepalive HOST N
    python3 http_client.py pipeline HOST N
    python3 http_client.py raw HOST REQUEST NB_RESPONSES HALF_CLOSE(0|1)
    python3 http_client.py download HOST BYTES STALL_AT STALL_SECONDS
"""
import json, socket, sys, time

def conn(host):
    s = socket.create_connection((host, 80), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s

class Reader:
    def __init__(self, s):
        self.s, self.buf, self.eof = s, bytearray(), False
    def fill(self):
        d = self.s.recv(1 << 20)
        if not d:
            self.eof = True
        self.buf += d
        return bool(d)
    def head(self):
        while b"\r\n\r\n" not in self.buf:
            if not self.fill():
                return None
        i = self.buf.index(b"\r\n\r\n")
        h = bytes(self.buf[:i]).decode("latin-1")
        del self.buf[:i + 4]
        lines = h.split("\r\n")
        status = int(lines[0].split()[1])
        fields = {}
        for l in lines[1:]:
            k, v = l.split(":", 1)
            fields[k.strip().lower()] = v.strip()
        return status, fields, lines[0]
    def body(self, n):
        while len(self.buf) < n:
            if not self.fill():
                break
        b = bytes(self.buf[:n])
        del self.buf[:n]
        return b
    def response(self, head_only=False):
        h = self.head()
        if h is None:
            return None
        status, fields, line = h
        n = 0 if head_only else int(fields.get("content-length", "0"))
        return {"status": status, "fields": fields, "line": line,
                "body": self.body(n)}

def out(d):
    print(json.dumps(d))

def pattern(off, n):
    return bytes((off + i) & 255 for i in range(n))

def cmd_keepalive(host, n):
    s = conn(host); r = Reader(s)
    ok = 0
    for i in range(n):
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        p = r.response()
        ok += p is not None and p["status"] == 200 and p["body"] == b"hello world\n"
    out({"ok": ok})

def cmd_pipeline(host, n):
    s = conn(host); r = Reader(s)
    s.sendall(b"".join(b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\n\r\n" % i
                       for i in range(n)))
    order = []
    for i in range(n):
        p = r.response()
        if p is None:
            break
        order.append(len(p["body"]) if p["body"] == pattern(0, len(p["body"]))
                     else -1)
    out({"order": order})

def cmd_raw(host, data, nresp, head_only):
    """Send raw bytes, read nresp responses, then whether the server closed."""
    s = conn(host); r = Reader(s)
    s.sendall(data.encode().decode("unicode_escape").encode("latin-1"))
    resps = []
    for i in range(nresp):
        p = r.response(head_only)
        if p is None:
            break
        resps.append({"status": p["status"], "fields": p["fields"],
                      "line": p["line"],
                      "body": p["body"].decode("latin-1")})
    s.settimeout(2)
    closed = False
    try:
        closed = not r.buf and not s.recv(1)
    except socket.timeout:
        closed = False
    except OSError:
        closed = True
    out({"resps": resps, "closed": closed})

def cmd_download(host, n, stall_at, stall_s):
    s = conn(host)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
    r = Reader(s)
    s.sendall(b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\n\r\n" % n)
    status, fields, _ = r.head()
    pat = pattern(0, 256 * 4096)
    got, bad, stalled = 0, -1, False
    t0 = time.monotonic()
    data = r.buf
    while True:
        if data:
            k = len(data)
            at = got & 255
            exp = (pat[at:] + pat[:at]) if at else pat
            while len(exp) < k:
                exp = exp + exp
            if bad < 0 and bytes(data) != exp[:k]:
                for i in range(k):
                    if data[i] != exp[i]:
                        bad = got + i
                        break
            got += k
        if got >= n:
            break
        if not stalled and got >= stall_at:
            stalled = True
            time.sleep(stall_s)
        data = s.recv(1 << 20)
        if not data:
            break
    out({"status": status, "length": fields.get("content-length"),
         "got": got, "bad": bad, "stalled": stalled,
         "secs": time.monotonic() - t0})

def main():
    c, host = sys.argv[1], sys.argv[2]
    if c == "keepalive":
        cmd_keepalive(host, int(sys.argv[3]))
    elif c == "pipeline":
        cmd_pipeline(host, int(sys.argv[3]))
    elif c == "raw":
        cmd_raw(host, sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1")
    elif c == "download":
        cmd_download(host, int(sys.argv[3]), int(sys.argv[4]),
                     float(sys.argv[5]))

main()

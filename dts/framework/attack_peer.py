# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_http_attack (and imported by
soak_peer.py): the attacks on ewyk-httpd's HTTP and TCP, and the honest
clients measured beside them. Each mode prints one JSON object on its last
line.

    python3 attack_peer.py MODE ARGS...

Modes (kernel sockets unless said):

- ``rstup HOST PORT N SECS PARTIAL``: N times, POST /sha256 with
  Content-Length 100000 and PARTIAL bytes of body, then RST (SO_LINGER 0),
  spread over about SECS;
- ``finup HOST PORT N SIZE SENT``: N times, POST /sha256 with
  Content-Length SIZE and SENT bytes of it (all or part), then
  shutdown(SHUT_WR) and close at once;
- ``trickle HOST PORT SRC N INTERVAL LENGTH SECS``: N uploads (POST
  /sha256, Content-Length LENGTH) from address SRC, one body byte every
  INTERVAL s, for at most SECS; how long each lived and how it ended;
- ``post HOST PORT SRC SIZE``: one honest POST /sha256 of SIZE bytes from
  SRC: status, and whether the digest is right;
- ``get HOST PORT SRC PATH``: one GET: status;
- ``gets HOST PORT SRC PATH N GAP``: N GETs (a connection each), GAP s
  apart: how many were answered 200;
- ``pipefin HOST PORT KIND N``: a first request (KIND bytes: GET
  /bytes/N; KIND echo: POST /echo of N bytes) and GET / pipelined in one
  write, then SHUT_WR, then read to EOF: the responses parsed;
- ``raw SRC DST DPORT SPORT``: a TCP connection of our own over a raw
  socket (one byte per segment when asked), driven by commands on stdin,
  one JSON line answered each (see RawConn and raw_session()). The
  kernel's RSTs to the server's segments must be dropped by the caller
  (nftables: those from our ports without the mark RAW_MARK), as it knows
  nothing of this connection.
"""

import hashlib
import json
import os
import random
import select
import socket
import struct
import sys
import threading
import time


# -- a TCP of our own over a raw IP socket ---------------------------------
def _csum(b):
    if len(b) % 2:
        b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16:
        t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff


M32 = 1 << 32
# The mark of our own segments: the caller's nftables rule drops the
# kernel's RSTs from our ports, never ours (which carry this mark).
RAW_MARK = 0x77
SYN, RST, PSH, ACK, FIN = 0x02, 0x04, 0x08, 0x10, 0x01


class RawConn:
    """One client connection whose segments we cut ourselves: the kernel
    would coalesce tiny writes. Sequence numbers are kept as absolute
    counters from the ISN (no wrap inside), sent modulo 2^32."""

    def __init__(self, src, dst, dport, sport):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                               socket.IPPROTO_TCP)
        self.s.bind((src, 0))
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        self.s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_MARK", 36),
                          RAW_MARK)
        self.src, self.dst = socket.inet_aton(src), socket.inet_aton(dst)
        self.dhost, self.dport, self.sport = dst, dport, sport
        self.iss = random.getrandbits(31)
        self.snd_una = self.snd_nxt = self.snd_max = 0  # offsets from iss
        self.irs = None
        self.rcv_nxt = 0  # offset from irs
        self.wnd = 0
        self.rx = bytearray()
        self.fin = self.rst = False
        self.segs_sent = 0

    def close(self):
        self.s.close()

    def _send(self, flags, seq_off, data=b"", opts=b""):
        ack = (self.irs + self.rcv_nxt) % M32 if self.irs is not None else 0
        off = (20 + len(opts)) // 4
        tcp = struct.pack("!HHIIBBHHH", self.sport, self.dport,
                          (self.iss + seq_off) % M32, ack, off << 4,
                          flags | (ACK if self.irs is not None else 0),
                          65535, 0, 0) + opts + data
        c = _csum(self.src + self.dst + struct.pack("!BBH", 0, 6, len(tcp))
                  + tcp)
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
        self.s.sendto(tcp, (self.dhost, 0))

    def _input(self, pkt):
        ihl = (pkt[0] & 0x0f) * 4
        if pkt[12:16] != self.dst or len(pkt) < ihl + 20:
            return False
        sport, dport, seq, ack, doff, flags, wnd = struct.unpack(
            "!HHIIBBH", pkt[ihl:ihl + 16])
        if (sport, dport) != (self.dport, self.sport):
            return False
        data = pkt[ihl + (doff >> 4) * 4:]
        if flags & RST:
            self.rst = True
            return True
        if flags & SYN:
            if self.irs is None and flags & ACK:
                self.irs = (seq + 1) % M32
                self.snd_una = 1
                self.wnd = wnd
            return True
        if flags & ACK:
            a = (ack - self.iss - self.snd_una) % M32
            if 0 < a <= self.snd_max - self.snd_una:
                self.snd_una += a
            self.wnd = wnd
        need_ack = False
        rel = (seq - self.irs - self.rcv_nxt) % M32
        if data:
            need_ack = True
            if rel == 0:
                self.rx += data
                self.rcv_nxt += len(data)
        if flags & FIN and (seq + len(data) - self.irs) % M32 == self.rcv_nxt:
            self.rcv_nxt += 1
            self.fin = need_ack = True
        if need_ack:
            self._send(0, self.snd_nxt)
        return True

    def poll(self, timeout):
        """Take what arrived within `timeout` s; True if any was ours."""
        ours = False
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            r, _, _ = select.select([self.s], [], [], max(0.0, left))
            if not r:
                return ours
            while True:
                try:
                    pkt = self.s.recv(65535, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    break
                ours |= self._input(pkt)
            if ours or left <= 0:
                return ours

    def open(self, timeout=3.0):
        self._send(SYN, 0, opts=b"\x02\x04\x05\xb4")  # MSS 1460
        self.snd_nxt = self.snd_max = 1
        end = time.monotonic() + timeout
        while self.irs is None and not self.rst and time.monotonic() < end:
            self.poll(0.05)
        if self.irs is None:
            return False
        self._send(0, 1)
        return True

    def send(self, data, seg=1, window=32, timeout=120.0):
        """`data` in segments of `seg` bytes, at most `window` segments in
        flight (and the peer's window); go back to the first unacknowledged
        byte when nothing is acknowledged for 0.5 s. Returns the bytes
        acknowledged."""
        base = self.snd_una
        end_off = base + len(data)
        self.snd_nxt = base
        last_progress = time.monotonic()
        deadline = last_progress + timeout
        una = self.snd_una
        while self.snd_una < end_off and not self.rst:
            now = time.monotonic()
            if now > deadline:
                break
            limit = min(window * seg, max(self.wnd, 1))
            while (self.snd_nxt < end_off and
                   self.snd_nxt - self.snd_una < limit):
                i = self.snd_nxt - base
                piece = data[i:i + seg]
                self._send(PSH, self.snd_nxt, piece)
                self.segs_sent += 1
                self.snd_nxt += len(piece)
                self.snd_max = max(self.snd_max, self.snd_nxt)
            self.poll(0.02)
            if self.snd_una != una:
                una, last_progress = self.snd_una, time.monotonic()
            elif time.monotonic() - last_progress > 0.5:
                self.snd_nxt = self.snd_una  # go back N
                last_progress = time.monotonic()
        return self.snd_una - base

    def finish(self):
        self._send(FIN, self.snd_nxt)
        self.snd_nxt += 1
        self.snd_max = max(self.snd_max, self.snd_nxt)

    def reset(self):
        self._send(RST, self.snd_nxt)

    def read(self, secs, until=None):
        """Wait up to `secs` for `until` bytes in all (or FIN or RST)."""
        end = time.monotonic() + secs
        while time.monotonic() < end and not (self.fin or self.rst):
            if until is not None and len(self.rx) >= until:
                break
            self.poll(0.05)


def raw_session(argv):
    """Commands on stdin, one JSON answer line each:
    ``open`` | ``send FILE START END SEG`` (bytes START..END of FILE) |
    ``sendhex HEX SEG`` | ``read SECS [BYTES] [OUTFILE]`` | ``fin`` |
    ``rst`` | ``quit``."""
    src, dst, dport, sport = argv[0], argv[1], int(argv[2]), int(argv[3])
    c = RawConn(src, dst, dport, sport)
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        r = {"cmd": w[0]}
        if w[0] == "open":
            r["ok"] = c.open()
        elif w[0] in ("send", "sendhex"):
            if w[0] == "send":
                with open(w[1], "rb") as f:
                    data = f.read()[int(w[2]):int(w[3])]
                seg = int(w[4])
            else:
                data, seg = bytes.fromhex(w[1]), int(w[2])
            t0 = time.monotonic()
            r["acked"] = c.send(data, seg=seg)
            r["secs"] = round(time.monotonic() - t0, 3)
        elif w[0] == "read":
            c.read(float(w[1]), int(w[2]) if len(w) > 2 else None)
            if len(w) > 3:
                with open(w[3], "wb") as f:
                    f.write(bytes(c.rx))
            r["head"] = bytes(c.rx[:200]).decode("latin-1")
        elif w[0] == "fin":
            c.finish()
            c.poll(0.2)
        elif w[0] == "rst":
            c.reset()
        elif w[0] == "quit":
            print(json.dumps(r), flush=True)
            break
        else:
            r["error"] = "unknown command"
        r.update({"rx": len(c.rx), "fin": c.fin, "rst": c.rst,
                  "segs_sent": c.segs_sent})
        print(json.dumps(r), flush=True)
    c.close()


# -- kernel-socket clients ----------------------------------------------------
def _linger_rst(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                 struct.pack("ii", 1, 0))
    s.close()


def _status(buf):
    """The status code of the first response head in buf, or None."""
    if not buf.startswith(b"HTTP/1."):
        return None
    try:
        return int(buf.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def rstup(host, port, n, secs, partial):
    head = (b"POST /sha256 HTTP/1.1\r\nHost: x\r\n"
            b"Content-Length: 100000\r\n\r\n")
    body = b"b" * partial
    done = errors = 0
    gap = secs / max(n, 1)
    for _ in range(n):
        t = time.monotonic()
        try:
            s = socket.create_connection((host, port), timeout=5)
            s.sendall(head + body)
            # Let the server take the head and the piece of body.
            time.sleep(0.01)
            _linger_rst(s)
            done += 1
        except OSError:
            errors += 1
        time.sleep(max(0.0, gap - (time.monotonic() - t)))
    return {"resets": done, "errors": errors}


def finup(host, port, n, size, sent):
    body = b"f" * sent
    head = (b"POST /sha256 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
            % size)
    done = errors = 0
    for _ in range(n):
        try:
            s = socket.create_connection((host, port), timeout=5)
            s.sendall(head + body)
            s.shutdown(socket.SHUT_WR)
            s.close()
            done += 1
        except OSError:
            errors += 1
        time.sleep(0.01)
    return {"fins": done, "errors": errors}


def trickle(host, port, src, n, interval, length, secs):
    """N uploads dribbling a byte each INTERVAL s; per connection, how long
    it lived (s) and how it ended (a status, 'eof', 'reset' or 'alive')."""
    head = (b"POST /sha256 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
            % length)
    conns = []
    for _ in range(n):
        try:
            s = socket.socket()
            s.bind((src, 0))
            s.settimeout(5)
            s.connect((host, port))
            s.sendall(head)
            s.setblocking(False)
            conns.append({"s": s, "t0": time.monotonic(), "sent": 0,
                          "got": b"", "end": None, "how": None})
        except OSError:
            pass
    print(json.dumps({"opened": len(conns)}), flush=True)
    t_end = time.monotonic() + secs
    next_byte = time.monotonic() + interval
    while time.monotonic() < t_end and any(c["how"] is None for c in conns):
        live = [c for c in conns if c["how"] is None]
        r, _, _ = select.select([c["s"] for c in live], [], [],
                                max(0.0, min(next_byte, t_end)
                                    - time.monotonic()))
        for c in live:
            if c["s"] not in r:
                continue
            try:
                d = c["s"].recv(4096)
            except OSError:
                d = None
            if d:
                c["got"] += d
                if b"\r\n\r\n" not in c["got"]:
                    continue
                c["how"] = _status(c["got"])
            else:
                c["how"] = "eof" if d == b"" else "reset"
            c["end"] = time.monotonic()
        if time.monotonic() >= next_byte:
            next_byte += interval
            for c in conns:
                if c["how"] is None and c["sent"] < length:
                    try:
                        c["s"].send(b"t")
                        c["sent"] += 1
                    except OSError:
                        c["how"], c["end"] = "reset", time.monotonic()
    hows, lived = {}, []
    for c in conns:
        how = c["how"] if c["how"] is not None else "alive"
        hows[str(how)] = hows.get(str(how), 0) + 1
        lived.append(round((c["end"] or time.monotonic()) - c["t0"], 2))
        c["s"].close()
    return {"opened": len(conns), "ended": hows,
            "max_lived": max(lived) if lived else None,
            "min_lived": min(lived) if lived else None,
            "bytes_sent": max((c["sent"] for c in conns), default=0)}


def _read_response(s, timeout=10):
    """(status, body) of one response with Content-Length, or (None, b'')."""
    s.settimeout(timeout)
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            return None, buf
        buf += d
    head, _, body = buf.partition(b"\r\n\r\n")
    n = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v)
    while len(body) < n:
        d = s.recv(65536)
        if not d:
            break
        body += d
    return _status(head), body


def post(host, port, src, size):
    body = os.urandom(size)
    try:
        s = socket.socket()
        s.bind((src, 0))
        s.settimeout(10)
        s.connect((host, port))
        s.sendall(b"POST /sha256 HTTP/1.1\r\nHost: x\r\nContent-Length: "
                  b"%d\r\n\r\n" % size + body)
        st, got = _read_response(s)
        s.close()
    except OSError as e:
        return {"status": None, "err": repr(e)}
    return {"status": st,
            "digest_ok": got.strip() == hashlib.sha256(body).hexdigest()
            .encode()}


def get(host, port, src, path):
    try:
        s = socket.socket()
        s.bind((src, 0))
        s.settimeout(10)
        s.connect((host, port))
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())
        st, body = _read_response(s)
        s.close()
    except OSError as e:
        return {"status": None, "err": repr(e)}
    return {"status": st, "body": body[:100].decode("latin-1")}


def gets(host, port, src, path, n, gap):
    codes = {}
    for _ in range(n):
        st = get(host, port, src, path)["status"]
        codes[str(st)] = codes.get(str(st), 0) + 1
        time.sleep(gap)
    return {"tried": n, "ok": codes.get("200", 0), "codes": codes}


def parse_responses(buf):
    """The responses in buf, each {status, length, complete}, in order;
    Content-Length framing only (what the routes used answer with)."""
    out = []
    while buf:
        head, sep, rest = buf.partition(b"\r\n\r\n")
        if not sep:
            out.append({"status": _status(head), "complete": False,
                        "length": None, "got": 0})
            break
        n = None
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                n = int(v)
        got = len(rest) if n is None else min(n, len(rest))
        out.append({"status": _status(head), "length": n, "got": got,
                    "complete": n is not None and len(rest) >= n})
        buf = rest[got:] if n is not None else b""
    return out


def pipefin(host, port, kind, n):
    if kind == "bytes":
        reqs = b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\n\r\n" % n
    else:
        reqs = (b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d"
                b"\r\n\r\n" % n) + b"e" * n
    reqs += b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
    s = socket.create_connection((host, port), timeout=10)
    buf, err = bytearray(), []

    def reader():
        try:
            while True:
                d = s.recv(1 << 20)
                if not d:
                    break
                buf.extend(d)
        except OSError as e:
            err.append(repr(e))
    # Read while writing: an echo answers as the body comes.
    t = threading.Thread(target=reader)
    t.start()
    s.sendall(reqs)
    s.shutdown(socket.SHUT_WR)
    t.join(60)
    s.close()
    err = err[0] if err else None
    return {"bytes": len(buf), "err": err,
            "responses": parse_responses(bytes(buf))}


def main():
    mode, a = sys.argv[1], sys.argv[2:]
    if mode == "raw":
        raw_session(a)
        return
    if mode == "rstup":
        r = rstup(a[0], int(a[1]), int(a[2]), float(a[3]), int(a[4]))
    elif mode == "finup":
        r = finup(a[0], int(a[1]), int(a[2]), int(a[3]), int(a[4]))
    elif mode == "trickle":
        r = trickle(a[0], int(a[1]), a[2], int(a[3]), float(a[4]),
                    int(a[5]), float(a[6]))
    elif mode == "post":
        r = post(a[0], int(a[1]), a[2], int(a[3]))
    elif mode == "get":
        r = get(a[0], int(a[1]), a[2], a[3])
    elif mode == "gets":
        r = gets(a[0], int(a[1]), a[2], a[3], int(a[4]), float(a[5]))
    elif mode == "pipefin":
        r = pipefin(a[0], int(a[1]), a[2], int(a[3]))
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()

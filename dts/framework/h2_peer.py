# SPDX-License-Identifier: BSD-3-Clause
"""HTTP/2 peer of TestSuite_http2, run in the peer namespace.

    h2_peer.py HOST CASE

Prints one JSON line. Cases with python3-h2 (a well-behaved client):
``trickle`` (a POST /sha256 whose body trickles in, flow control obeyed),
``mixed`` (one blocking stream beside 99 fast ones). Cases with raw frames
(what a client must not send), each reporting the error code of the first
GOAWAY or RST_STREAM: ``bad_preface``, ``idle_stream``, ``closed_stream``,
``window_overflow``, ``rapid_reset``, ``continuation_flood``,
``ping_flood``; ``hpack_bomb`` reports the status it got. ``share
OTHER_SRC [CONNS]``: one source holds all the streams it may, another
(OTHER_SRC) is then served. ``budget OTHER_SRC [STREAMS] [EACH] [HOLD]``:
one source uploads more than its share of the body budget and stalls;
another (OTHER_SRC) uploads a few MB to /sha256 meanwhile.
"""

import hashlib
import json
import socket
import struct
import sys
import time

import h2.config
import h2.connection
import h2.events
import hpack
from h2.errors import ErrorCodes

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST, SETTINGS, PUSH, PING, GOAWAY, WINUP, CONT = \
    range(10)
END_STREAM, END_HEADERS = 0x1, 0x4


def frame(ftype, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", sid) + payload


def connect(host):
    s = socket.create_connection((host, 80), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Reader:
    """Frames from the server, one at a time."""

    def __init__(self, s):
        self.s = s
        self.buf = b""
        self.dec = hpack.Decoder()

    def _need(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d:
                raise EOFError
            self.buf += d

    def next(self):
        self._need(9)
        ln = int.from_bytes(self.buf[:3], "big")
        self._need(9 + ln)
        t, fl = self.buf[3], self.buf[4]
        sid = int.from_bytes(self.buf[5:9], "big") & 0x7fffffff
        p = self.buf[9:9 + ln]
        self.buf = self.buf[9 + ln:]
        return t, fl, sid, p

    def error(self, timeout=10):
        """Code name of the first GOAWAY or RST_STREAM (or EOF)."""
        end = time.monotonic() + timeout
        try:
            while time.monotonic() < end:
                t, fl, sid, p = self.next()
                if t == GOAWAY:
                    return ErrorCodes(int.from_bytes(p[4:8], "big")).name
                if t == RST:
                    return ErrorCodes(int.from_bytes(p[:4], "big")).name
        except (EOFError, ConnectionError, socket.timeout):
            return "EOF"
        return "none"


def raw_open(host):
    s = connect(host)
    s.sendall(PREFACE + frame(SETTINGS, 0, 0))
    return s, Reader(s)


def req_block(enc, path, method="GET", extra=()):
    return enc.encode([(":method", method), (":scheme", "http"),
                       (":authority", "ewyk"), (":path", path)] +
                      list(extra))


def case_bad_preface(host):
    s = connect(host)
    # the magic, then a PING where SETTINGS must come
    s.sendall(PREFACE + frame(PING, 0, 0, b"\0" * 8))
    return {"code": Reader(s).error()}


def case_idle_stream(host):
    s, r = raw_open(host)
    s.sendall(frame(DATA, 0, 7, b"hello"))  # stream 7 was never opened
    return {"code": r.error()}


def case_closed_stream(host):
    s, r = raw_open(host)
    enc = hpack.Encoder()
    s.sendall(frame(HEADERS, END_HEADERS | END_STREAM, 1,
                    req_block(enc, "/")))
    while True:  # the whole response
        t, fl, sid, p = r.next()
        if sid == 1 and fl & END_STREAM:
            break
    s.sendall(frame(DATA, 0, 1, b"late"))
    return {"code": r.error()}


def case_window_overflow(host):
    s, r = raw_open(host)
    s.sendall(frame(WINUP, 0, 0, struct.pack(">I", 0x7fffffff)))
    return {"code": r.error()}


def case_rapid_reset(host):
    s, r = raw_open(host)
    enc = hpack.Encoder()
    out = b""
    for i in range(2000):
        sid = 1 + 2 * i
        out += frame(HEADERS, END_HEADERS | END_STREAM, sid,
                     req_block(enc, "/bytes/100000"))
        out += frame(RST, 0, sid, struct.pack(">I", ErrorCodes.CANCEL))
    try:
        s.sendall(out)
    except ConnectionError:
        pass
    return {"code": r.error(timeout=20)}


def case_continuation_flood(host):
    s, r = raw_open(host)
    enc = hpack.Encoder()
    s.sendall(frame(HEADERS, 0, 1, req_block(enc, "/")))
    try:
        for i in range(200):
            s.sendall(frame(CONT, 0, 1, enc.encode([(f"x-c{i}", "v")])))
    except ConnectionError:
        pass
    return {"code": r.error()}


def case_ping_flood(host):
    s, r = raw_open(host)
    try:
        s.sendall(frame(PING, 0, 0, b"\0" * 8) * 5000)
    except ConnectionError:
        pass
    return {"code": r.error()}


def case_hpack_bomb(host):
    s, r = raw_open(host)
    enc = hpack.Encoder()
    big = "b" * 2000
    # indexed once, then named again 400 times: 800 kB of header list
    blk = req_block(enc, "/", extra=[("x-bomb", big)] * 400)
    s.sendall(frame(HEADERS, END_HEADERS | END_STREAM, 1, blk))
    while True:
        t, fl, sid, p = r.next()
        if t == HEADERS and sid == 1:
            hdrs = dict(r.dec.decode(p))
            st = hdrs.get(":status", hdrs.get(b":status"))
            return {"status": int(st), "block_bytes": len(blk)}
        if t in (GOAWAY, RST):
            return {"status": 0, "frame": t}


# ---- with python3-h2 -------------------------------------------------------

def h2_open(host):
    s = connect(host)
    c = h2.connection.H2Connection(h2.config.H2Configuration(
        client_side=True, header_encoding="utf-8"))
    c.initiate_connection()
    s.sendall(c.data_to_send())
    return s, c


def hdrs(path, method="GET", extra=()):
    return [(":method", method), (":scheme", "http"),
            (":authority", "ewyk"), (":path", path)] + list(extra)


def _send_and_read(s, c, sid, body, piece=None, wait=0.05, limit=60):
    """Send ``body`` on stream ``sid`` as the windows allow (at most
    ``piece`` bytes a round, a round every ``wait`` seconds or as soon
    as bytes come), ending the stream, and read its response. Returns a
    dict: status, body, bytes sent, WINDOW_UPDATEs received, seconds."""
    size = len(body)
    sent, got, status, wu, done = 0, b"", 0, 0, False
    s.settimeout(wait)
    t0 = time.monotonic()
    while not done and time.monotonic() - t0 < limit:
        if sent < size:
            n = min(piece or size, size - sent,
                    c.local_flow_control_window(sid),
                    c.max_outbound_frame_size)
            if n > 0:
                c.send_data(sid, body[sent:sent + n],
                            end_stream=sent + n == size)
                sent += n
                s.sendall(c.data_to_send())
        try:
            d = s.recv(65536)
        except socket.timeout:
            continue
        if not d:
            break
        for ev in c.receive_data(d):
            if isinstance(ev, h2.events.WindowUpdated):
                wu += 1
            elif isinstance(ev, h2.events.ResponseReceived):
                status = int(dict(ev.headers)[":status"])
            elif isinstance(ev, h2.events.DataReceived):
                got += ev.data
                c.acknowledge_received_data(len(ev.data), ev.stream_id)
            elif isinstance(ev, (h2.events.StreamEnded,
                                 h2.events.StreamReset)):
                done = True
        s.sendall(c.data_to_send())
    return {"status": status, "body": got, "sent": sent,
            "window_updates": wu, "seconds": round(time.monotonic() - t0, 2)}


def case_trickle(host):
    """POST /sha256, 3 MB in 16 kB pieces every 20 ms, as the windows
    allow: the server must keep granting them."""
    size, piece = 3 * 1024 * 1024, 16384
    body = bytes((i * 7) & 0xff for i in range(size))
    s, c = h2_open(host)
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, hdrs("/sha256", "POST",
                             [("content-length", str(size))]))
    s.sendall(c.data_to_send())
    r = _send_and_read(s, c, sid, body, piece=piece, wait=0.02, limit=50)
    return {"status": r["status"], "digest": r["body"].decode().strip(),
            "expect": hashlib.sha256(body).hexdigest(), "sent": r["sent"],
            "window_updates": r["window_updates"],
            "seconds": r["seconds"]}


def case_mixed(host):
    """Stream 1 blocks (/sleep/2000); 99 fast streams follow it."""
    s, c = h2_open(host)
    slow = c.get_next_available_stream_id()
    c.send_headers(slow, hdrs("/sleep/2000"), end_stream=True)
    fast = []
    for _ in range(99):
        sid = c.get_next_available_stream_id()
        c.send_headers(sid, hdrs("/"), end_stream=True)
        fast.append(sid)
    s.sendall(c.data_to_send())
    order, status = [], {}
    while len(order) < 100:
        d = s.recv(65536)
        if not d:
            break
        for ev in c.receive_data(d):
            if isinstance(ev, h2.events.ResponseReceived):
                status[ev.stream_id] = int(dict(ev.headers)[":status"])
            elif isinstance(ev, h2.events.DataReceived):
                c.acknowledge_received_data(len(ev.data), ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded):
                order.append(ev.stream_id)
        s.sendall(c.data_to_send())
    return {"fast_ok": sum(1 for f in fast if status.get(f) == 200),
            "slow_status": status.get(slow, 0),
            "slow_rank": order.index(slow) if slow in order else -1}


def case_share(host, other_src, conns="45"):
    """One source holds every stream it can: SETTINGS_INITIAL_WINDOW_SIZE
    0 and 100 GET / on each of ``conns`` connections, so that every
    response waits for a window that never comes and its stream object
    stays taken. Then, with those held, a client from ``other_src``
    (another address of this namespace) asks GET / as usual."""
    enc = hpack.Encoder()
    held, refused, other, socks = 0, 0, 0, []
    win0 = frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 0))
    for _ in range(int(conns)):
        s = connect(host)
        s.sendall(PREFACE + win0 + frame(SETTINGS, 1, 0))
        reqs = b"".join(frame(HEADERS, END_STREAM | END_HEADERS, 2 * i + 1,
                              req_block(enc, "/")) for i in range(100))
        s.sendall(reqs)
        socks.append((s, Reader(s)))
        enc = hpack.Encoder()  # one per connection
    for s, rd in socks:
        seen = set()
        try:
            while len(seen) < 100:
                t, fl, sid, p = rd.next()
                if t == HEADERS and sid not in seen:
                    seen.add(sid)
                    held += 1
                elif t == RST and sid not in seen:
                    seen.add(sid)
                    if int.from_bytes(p[:4], "big") == \
                            ErrorCodes.REFUSED_STREAM:
                        refused += 1
        except (EOFError, ConnectionError, socket.timeout):
            pass
    # held: another source still gets its response
    s = socket.create_connection((host, 80), timeout=10,
                                 source_address=(other_src, 0))
    c = h2.connection.H2Connection(h2.config.H2Configuration(
        client_side=True, header_encoding="utf-8"))
    c.initiate_connection()
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, hdrs("/"), end_stream=True)
    s.sendall(c.data_to_send())
    body, done = b"", False
    while not done:
        d = s.recv(65536)
        if not d:
            break
        for ev in c.receive_data(d):
            if isinstance(ev, h2.events.ResponseReceived):
                other = int(dict(ev.headers)[":status"])
            elif isinstance(ev, h2.events.DataReceived):
                body += ev.data
            elif isinstance(ev, (h2.events.StreamEnded,
                                 h2.events.StreamReset)):
                done = True
        s.sendall(c.data_to_send())
    for sk, _ in socks:
        # reset: the server lets go of the streams at once (a FIN would
        # leave them to the write timeout, their windows still shut)
        sk.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                      struct.pack("ii", 1, 0))
        sk.close()
    return {"held": held, "refused": refused, "other_status": other,
            "other_body": body.decode(errors="replace")}


def _upload(s, c, sids, body, each, stall=1.0, limit=60):
    """Send the bodies of ``sids`` (``each`` bytes, not ended) as the
    windows allow, until nothing moved for ``stall`` seconds. Returns the
    bytes sent and the connection's WINDOW_UPDATE increments."""
    sent = {sid: 0 for sid in sids}
    wu_conn, last, t0 = 0, time.monotonic(), time.monotonic()
    s.settimeout(0.05)
    while time.monotonic() - last < stall and time.monotonic() - t0 < limit:
        for sid in sids:
            n = min(each - 1 - sent[sid], c.local_flow_control_window(sid),
                    c.max_outbound_frame_size)
            if n > 0:
                c.send_data(sid, body[:n])
                sent[sid] += n
                last = time.monotonic()
        s.sendall(c.data_to_send())
        try:
            d = s.recv(65536)
        except socket.timeout:
            continue
        if not d:
            break
        for ev in c.receive_data(d):
            if isinstance(ev, h2.events.WindowUpdated) and \
                    ev.stream_id == 0:
                wu_conn += ev.delta
        s.sendall(c.data_to_send())
    return sum(sent.values()), wu_conn


def case_budget(host, other_src, streams="8", each=str(1 << 20),
                hold="3", path="/echo"):
    """One source opens ``streams`` POST ``path`` (a route whose body is
    gathered) of ``each`` bytes and sends their bodies (all but the last
    byte) as the windows allow, past its share of the shard's body
    budget: it stalls on a zero window. Meanwhile a client from
    ``other_src`` uploads 3 MB to /sha256 (streamed). The first holds its
    streams ``hold`` seconds more, then resets."""
    streams, each = int(streams), int(each)
    body = b"y" * 16384
    s, c = h2_open(host)
    sids = []
    for _ in range(streams):
        sid = c.get_next_available_stream_id()
        c.send_headers(sid, hdrs(path, "POST",
                                 [("content-length", str(each))]))
        sids.append(sid)
    s.sendall(c.data_to_send())
    sent, wu_conn = _upload(s, c, sids, body, each)
    # the other source's upload, while the first is stalled
    size = 3 * 1000 * 1000
    up = bytes((i * 13) & 0xff for i in range(size))
    s2 = socket.create_connection((host, 80), timeout=30,
                                  source_address=(other_src, 0))
    c2 = h2.connection.H2Connection(h2.config.H2Configuration(
        client_side=True, header_encoding="utf-8"))
    c2.initiate_connection()
    sid2 = c2.get_next_available_stream_id()
    c2.send_headers(sid2, hdrs("/sha256", "POST",
                               [("content-length", str(size))]))
    s2.sendall(c2.data_to_send())
    r = _send_and_read(s2, c2, sid2, up)
    s2.close()
    # still stalled: nothing more granted meanwhile
    sent2, wu2 = _upload(s, c, sids, body, each, stall=0.5)
    time.sleep(float(hold))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    return {"sent": sent + sent2, "conn_window": 65535 + wu_conn + wu2,
            "other_status": r["status"],
            "other_digest": r["body"].decode().strip(),
            "other_expect": hashlib.sha256(up).hexdigest(),
            "other_seconds": r["seconds"]}


def main():
    host, case = sys.argv[1], sys.argv[2]
    out = globals()["case_" + case](host, *sys.argv[3:])
    print(json.dumps(out))


if __name__ == "__main__":
    main()

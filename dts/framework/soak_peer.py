# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by dts/soak_hardening.py: the soak's
clients and attackers, each for SECS seconds, printing one JSON object on
its last line.

    python3 soak_peer.py MODE HOST PORT SECS [ARGS...]

- ``load``: 8 threads, each a fresh connection echoing 4 KB, in a loop;
- ``slow``: 200 connections sending one byte every 2 s and reading
  nothing, and every 10 s 50 more that send nothing;
- ``hslow``: 100 connections dribbling a request head, a header line a
  second, opened again when the server ends them;
- ``noise IFACE EWYK_MAC PEER_MAC SRC``: random RSTs, SYNs, data and ACKs
  with guessed sequence numbers, ~2,000 a second;
- ``drip1 SRC SPORT0``: request heads sent one byte per TCP segment (our
  own TCP, attack_peer.RawConn, source ports SPORT0..SPORT0+99; the
  caller drops the kernel's RSTs), 2 at a time, each 4,000 bytes then a
  RST;
- ``slowpost``: 20 uploads to POST /sha256 trickled at a byte every 1.5 s,
  opened again when the server ends them;
- ``rstup``: POST /sha256 with a partial body then a RST, ~20 a second;
- ``fill SRC``: from address SRC, idle keep-alive connections (GET / then
  nothing) opened up to whatever the server allows, held, and opened again
  as the server closes them.
"""

import json
import os
import random
import resource
import select
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from attack_peer import RawConn, _csum  # noqa: E402


def load(host, port, end):
    ok = bad = 0
    why = {}
    lock = threading.Lock()

    def worker():
        nonlocal ok, bad
        while time.monotonic() < end:
            data = os.urandom(4096)
            err = None
            try:
                s = socket.create_connection((host, port), timeout=5)
                s.sendall(data)
                got = b""
                while len(got) < len(data):
                    d = s.recv(65536)
                    if not d:
                        break
                    got += d
                s.close()
                if got != data:
                    err = "short" if data.startswith(got) else "corrupt"
            except OSError as e:
                err = f"{type(e).__name__} {e.errno}"
            with lock:
                if err is None:
                    ok += 1
                else:
                    bad += 1
                    why[err] = why.get(err, 0) + 1
    ts = [threading.Thread(target=worker) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return {"ok": ok, "failed": bad, "why": why}


def slow(host, port, end):
    drip, silent = [], []
    last = 0
    while time.monotonic() < end:
        while len(drip) < 200:
            try:
                drip.append(socket.create_connection((host, port), timeout=5))
            except OSError:
                break
        if time.monotonic() - last >= 10:
            last = time.monotonic()
            for _ in range(50):
                try:
                    silent.append(socket.create_connection((host, port),
                                                           timeout=5))
                except OSError:
                    pass
        for s in list(drip):
            try:
                s.send(b"x")
            except OSError:
                drip.remove(s)
                s.close()
        time.sleep(2)
    for s in drip + silent:
        s.close()
    return {"drip": len(drip), "silent_opened": len(silent)}


def _ended(s):
    """True when the server answered or closed (a 408 and a FIN, or RST)."""
    try:
        s.recv(4096, socket.MSG_DONTWAIT)
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def hslow(host, port, end):
    socks, closed, opened = [], 0, 0
    while time.monotonic() < end:
        while len(socks) < 100:
            try:
                s = socket.create_connection((host, port), timeout=5)
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
                socks.append(s)
                opened += 1
            except OSError:
                break
        for s in list(socks):
            if not _ended(s):
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                    continue
                except OSError:
                    pass
            socks.remove(s)
            s.close()
            closed += 1
        time.sleep(1)
    for s in socks:
        s.close()
    return {"opened": opened, "closed_by_server": closed}


def noise(host, port, end, iface, emac, pmac, src):
    sip, dip = socket.inet_aton(src), socket.inet_aton(host)
    eth = (bytes.fromhex(emac.replace(":", "")) +
           bytes.fromhex(pmac.replace(":", "")) + b"\x08\x00")
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((iface, 0))
    r = random.Random(7)
    n = 0
    while time.monotonic() < end:
        for _ in range(200):
            flags = r.choice((0x04, 0x02, 0x18, 0x10))
            data = b"N" * 16 if flags == 0x18 else b""
            tcp = struct.pack("!HHIIBBHHH", r.randint(1024, 65535), port,
                              r.getrandbits(32), r.getrandbits(32), 5 << 4,
                              flags, 65535, 0, 0) + data
            c = _csum(sip + dip + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)
            tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0,
                             64, 6, 0, sip, dip)
            ip = ip[:10] + struct.pack("!H", _csum(ip)) + ip[12:]
            raw.send(eth + ip + tcp)
            n += 1
        time.sleep(0.1)
    raw.close()
    return {"frames": n}


def drip1(host, port, end, src, sport0):
    """Two connections at a time send 4,000 bytes of a head one byte per
    segment (never finished), then RST; again until the end."""
    head = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(
        b"X-Drip-%02d: %s\r\n" % (i, b"d" * 160) for i in range(40))
    heads = opened = acked = 0
    k = 0
    while time.monotonic() < end:
        conns = []
        for _ in range(2):
            c = RawConn(src, host, port, sport0 + k % 100)
            k += 1
            if c.open():
                conns.append(c)
                opened += 1
            else:
                c.close()
        # One byte each, in turn, so both are unfinished together.
        for off in range(0, 4000, 200):
            for c in conns:
                acked += c.send(head[off:off + 200], seg=1, timeout=20)
            if time.monotonic() > end:
                break
        for c in conns:
            c.reset()
            c.close()
            heads += 1
    return {"opened": opened, "heads": heads, "acked": acked}


def slowpost(host, port, end):
    head = (b"POST /sha256 HTTP/1.1\r\nHost: x\r\n"
            b"Content-Length: 100\r\n\r\n")
    socks, opened, ended = [], 0, 0
    while time.monotonic() < end:
        while len(socks) < 20:
            try:
                s = socket.create_connection((host, port), timeout=5)
                s.sendall(head)
                socks.append(s)
                opened += 1
            except OSError:
                break
        for s in list(socks):
            if not _ended(s):
                try:
                    s.send(b"s")
                    continue
                except OSError:
                    pass
            socks.remove(s)
            s.close()
            ended += 1
        time.sleep(1.5)
    for s in socks:
        s.close()
    return {"opened": opened, "ended_by_server": ended}


def rstup(host, port, end):
    head = (b"POST /sha256 HTTP/1.1\r\nHost: x\r\n"
            b"Content-Length: 100000\r\n\r\n")
    done = errors = 0
    while time.monotonic() < end:
        try:
            s = socket.create_connection((host, port), timeout=5)
            s.sendall(head + b"r" * 1000)
            time.sleep(0.01)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
            s.close()
            done += 1
        except OSError:
            errors += 1
        time.sleep(0.04)
    return {"resets": done, "errors": errors}


def fill(host, port, end, src):
    """Idle keep-alive connections from SRC, as many as the server takes
    (at most 6,000 held), each after one GET / answered."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(hard, 8192),
                                                max(hard, 8192)))
    socks, opened, refused, closed, peak = [], 0, 0, 0, 0
    while time.monotonic() < end:
        fails = 0
        while len(socks) < 6000 and fails < 3 and time.monotonic() < end:
            s = None
            try:
                s = socket.socket()
                s.bind((src, 0))
                s.settimeout(2)
                s.connect((host, port))
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                if not s.recv(4096).startswith(b"HTTP/1.1 200"):
                    raise OSError("no 200")
                socks.append(s)
                opened += 1
            except OSError:
                if s is not None:
                    s.close()
                refused += 1
                fails += 1
        peak = max(peak, len(socks))
        # poll(): thousands of descriptors, past select()'s 1024.
        p = select.poll()
        for s in socks:
            p.register(s, select.POLLIN)
        ready = {fd for fd, _ in p.poll(2000)}
        for s in [s for s in socks if s.fileno() in ready]:
            socks.remove(s)
            s.close()
            closed += 1
        time.sleep(1)
    for s in socks:
        s.close()
    return {"opened": opened, "refused": refused, "closed_by_server": closed,
            "peak_held": peak}


def main():
    mode, host, port, secs = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                              float(sys.argv[4]))
    a = sys.argv[5:]
    end = time.monotonic() + secs
    if mode == "load":
        r = load(host, port, end)
    elif mode == "slow":
        r = slow(host, port, end)
    elif mode == "hslow":
        r = hslow(host, port, end)
    elif mode == "noise":
        r = noise(host, port, end, a[0], a[1], a[2], a[3])
    elif mode == "drip1":
        r = drip1(host, port, end, a[0], int(a[1]))
    elif mode == "slowpost":
        r = slowpost(host, port, end)
    elif mode == "rstup":
        r = rstup(host, port, end)
    elif mode == "fill":
        r = fill(host, port, end, a[0])
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()

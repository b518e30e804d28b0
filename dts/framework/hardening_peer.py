# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_hardening: the attackers and
the clients it measures with (raw-socket injectors, zero-window readers,
echo and HTTP clients). Each mode prints one JSON object on its last line.

    python3 hardening_peer.py MODE ARGS...

See TestSuite_hardening's _peer() calls for the modes and their arguments.
"""
import json, os, random, socket, struct, sys, time
mode = sys.argv[1]

def progress(stop, tried):
    # How many tries so far, for a test that waits for enough of them
    # (STOP.tried; written whole, then renamed).
    tmp = stop + ".tried.tmp"
    with open(tmp, "w") as f:
        f.write(str(tried))
    os.replace(tmp, stop + ".tried")

def echo_once(host, port, size, timeout):
    data = os.urandom(size)
    try:
        s = socket.create_connection((host, port), timeout=timeout)
        s.sendall(data)
        got = b""
        while len(got) < size:
            d = s.recv(65536)
            if not d:
                break
            got += d
        s.close()
        return got == data
    except OSError:
        return False

if mode == "client":
    # N echoes, one connection each, until a stop file appears or N done.
    host, port, n, stop = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    ok = tried = 0
    while tried < n and not os.path.exists(stop):
        tried += 1
        ok += echo_once(host, port, 2000, 3.0)
        progress(stop, tried)
        time.sleep(0.02)
    print(json.dumps({"tried": tried, "ok": ok}))

elif mode == "transfer":
    # SIZE bytes echoed from source port SPORT, paced over SECS; byte-exact?
    host, port, sport, size, secs = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    data = os.urandom(size)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", sport))
    s.settimeout(60)
    s.connect((host, port))
    got = bytearray()
    chunk = max(1, size // 100)
    err = None
    try:
        for off in range(0, size, chunk):
            s.sendall(data[off:off + chunk])
            time.sleep(secs / 100)
            s.setblocking(False)
            try:
                while True:
                    d = s.recv(65536)
                    if not d:
                        break
                    got += d
            except BlockingIOError:
                pass
            s.setblocking(True)
            s.settimeout(60)
        s.shutdown(socket.SHUT_WR)
        while len(got) < size:
            d = s.recv(65536)
            if not d:
                break
            got += d
    except OSError as e:
        err = repr(e)
    s.close()
    print(json.dumps({"ok": bytes(got) == data, "received": len(got), "err": err}))

elif mode == "curl":
    # curl GET PATH, a fresh connection each, until STOP appears or N done.
    import subprocess
    host, port, n, stop, path = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
    ok = tried = 0
    codes = {}
    while tried < n and not os.path.exists(stop):
        tried += 1
        r = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                            "--max-time", "5", "http://%s:%d%s" % (host, port, path)],
                           capture_output=True, text=True)
        codes[r.stdout] = codes.get(r.stdout, 0) + 1
        ok += r.stdout == "200"
        progress(stop, tried)
        time.sleep(0.02)
    print(json.dumps({"tried": tried, "ok": ok, "codes": codes}))

elif mode == "download":
    # GET /bytes/SIZE from source port SPORT, read paced over about SECS;
    # byte-exact (byte i of the body is i & 255)?
    host, port, sport, size, secs = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
    s.bind(("0.0.0.0", sport))
    s.settimeout(60)
    s.connect((host, port))
    s.sendall(b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\n\r\n" % size)
    buf, err, status, got, bad = b"", None, None, 0, -1
    pat = bytes(range(256)) * 1024
    step = max(1, size // 100)
    mark = step
    try:
        while b"\r\n\r\n" not in buf:
            d = s.recv(65536)
            if not d:
                break
            buf += d
        head, _, data = buf.partition(b"\r\n\r\n")
        status = int(head.split(b" ")[1]) if head else None
        while True:
            if data:
                for off in range(0, len(data), len(pat) // 2):
                    part = data[off:off + len(pat) // 2]
                    at = (got + off) & 255
                    if bad < 0 and part != pat[at:at + len(part)]:
                        bad = got + off
                got += len(data)
            if got >= size:
                break
            if got >= mark:
                mark += step
                time.sleep(secs / 100)
            data = s.recv(65536)
            if not data:
                break
    except OSError as e:
        err = repr(e)
    s.close()
    print(json.dumps({"ok": status == 200 and got == size and bad < 0,
                      "status": status, "received": got, "bad": bad, "err": err}))

elif mode == "zw":
    # N zero-window readers: a tiny receive buffer, GET /bytes/SIZE, then
    # nothing read; held until STOP appears. Then: how many the server
    # ended (an RST or a FIN under the unread bytes).
    # SIZE may be a path instead (GET /metrics).
    host, port, n, size, stop = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
    path = size if size.startswith("/") else "/bytes/" + size
    socks = []
    for i in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        s.settimeout(5)
        s.connect((host, port))
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())
        socks.append(s)
    print(json.dumps({"conns": len(socks)}), flush=True)
    while not os.path.exists(stop):
        time.sleep(0.1)
    ended = 0
    for s in socks:
        s.setblocking(False)
        try:
            while True:
                d = s.recv(1 << 20)
                if not d:
                    ended += 1
                    break
        except BlockingIOError:
            pass
        except OSError:
            ended += 1
        s.close()
    print(json.dumps({"conns": len(socks), "ended_by_server": ended}))

elif mode == "hold":
    # N connections, each sends BYTES one byte per segment and reads
    # nothing (a zero-window reader of the echo); held until STOP appears.
    host, port, n, nbytes, stop = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    socks = []
    for i in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.connect((host, port))
        s.setblocking(False)
        socks.append(s)
    sent = 0
    for k in range(nbytes):
        for s in socks:
            try:
                sent += s.send(b"x")
            except BlockingIOError:
                pass
    print(json.dumps({"conns": len(socks), "sent": sent}), flush=True)
    while not os.path.exists(stop):
        time.sleep(0.1)
    for s in socks:
        s.close()

elif mode == "conns":
    # Open N connections (2 s each), echo once on each that opened, then
    # echo again on all of them and close. Prints how many opened/worked.
    host, port, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    socks, refused = [], 0
    for i in range(n):
        try:
            s = socket.create_connection((host, port), timeout=2)
            s.sendall(b"hello")
            s.settimeout(2)
            if s.recv(16) == b"hello":
                socks.append(s)
            else:
                refused += 1
                s.close()
        except OSError:
            refused += 1
    again = 0
    for s in socks:
        try:
            s.sendall(b"again")
            again += s.recv(16) == b"again"
        except OSError:
            pass
        s.close()
    print(json.dumps({"opened": len(socks), "refused": refused, "again": again}))

elif mode == "idle":
    host, port, n, secs = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    socks = [socket.create_connection((host, port), timeout=5) for _ in range(n)]
    time.sleep(secs)
    closed = 0
    for s in socks:
        s.settimeout(2)
        try:
            closed += s.recv(16) == b""
        except OSError:
            closed += 1
        s.close()
    print(json.dumps({"conns": n, "closed_by_server": closed}))

elif mode in ("blind", "ooo"):
    from scapy.all import Ether, IP, TCP, Raw, conf, srp1
    conf.verb = 0
    iface, emac, pmac = sys.argv[2], sys.argv[3], sys.argv[4]
    dst, src, port = sys.argv[5], sys.argv[6], int(sys.argv[7])
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((iface, 0))
    head = Ether(src=pmac, dst=emac) / IP(src=src, dst=dst)
    sent = 0
    if mode == "blind":
        # Known 4-tuple (source port SPORT), guessed sequence numbers.
        # Then RSTs swept through the whole sequence space, one per 64 KiB
        # (a window is larger: some land in it and must be challenged,
        # not obeyed), then N random RSTs, SYNs, data, ACKs and ACKs with
        # a TSval far ahead (TS.Recent poisoning).
        sport, n = int(sys.argv[8]), int(sys.argv[9])
        sip, dip = socket.inet_aton(src), socket.inet_aton(dst)
        eth = bytes.fromhex(emac.replace(":", "")) + bytes.fromhex(pmac.replace(":", "")) + b"\x08\x00"

        def csum(b):
            if len(b) % 2:
                b += b"\0"
            t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
            while t >> 16:
                t = (t & 0xffff) + (t >> 16)
            return ~t & 0xffff

        def frame(flags, seq, ack, data=b"", opts=b""):
            off = (20 + len(opts)) // 4
            tcp = struct.pack("!HHIIBBHHH", sport, port, seq, ack, off << 4,
                              flags, 65535, 0, 0) + opts + data
            c = csum(sip + dip + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)
            tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64,
                             6, 0, sip, dip)
            ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
            return eth + ip + tcp

        # First RSTs aimed just inside the window, as an attacker who saw
        # one segment of the flow would: seen SEQ + LEN + 1 and + 1001
        # (RFC 5961 3.2: in the window but not RCV.NXT: challenged, never
        # obeyed). The sweep below alone may miss a window that is small or
        # moving on a loaded machine; these make the challenge certain.
        # The caller starts the flow once this tool says "ready" (its
        # imports and capture socket done: on a loaded machine they took
        # longer than a whole paced transfer), so the wait for the flow's
        # first segment has a generous deadline.
        # Three rounds, 0.6 s apart: the server answers at most one
        # out-of-window segment a connection per 500 ms (oow_ratelimit_ms,
        # challenge ACKs included), and on a loaded machine a stray answer
        # (a duplicate from a retransmission) can take a round's slot;
        # the later rounds wait at most 2.5 s after the first.
        aimed, rounds, deadline = 0, 0, time.monotonic() + 60
        next_aim = 0.0
        sniff = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                              socket.htons(0x0003))  # ETH_P_ALL
        sniff.bind((iface, 0x0003))
        sniff.settimeout(0.2)
        print(json.dumps({"ready": True}), flush=True)
        while rounds < 3 and time.monotonic() < deadline:
            try:
                b = sniff.recv(2048)
            except socket.timeout:
                continue
            if time.monotonic() < next_aim:
                continue
            if len(b) < 54 or b[12:14] != b"\x08\x00" or b[23] != 6:
                continue
            ihl = (b[14] & 0x0f) * 4
            t = 14 + ihl
            if (b[26:30] != sip or
                    struct.unpack("!HH", b[t:t + 4]) != (sport, port)):
                continue
            seq = struct.unpack("!I", b[t + 4:t + 8])[0]
            plen = (struct.unpack("!H", b[16:18])[0] - ihl -
                    (b[t + 12] >> 4) * 4)
            # A data segment only: after the SYN (or a bare ACK) seq + 1
            # may be RCV.NXT itself, where a RST is obeyed (RFC 5961 3.2).
            if plen <= 0 or b[t + 13] & 0x02:
                continue
            for off in (1, 1001):
                raw.send(frame(0x04, (seq + plen + off) & 0xffffffff, 0))
                aimed += 1
            rounds += 1
            next_aim = time.monotonic() + 0.6
            if rounds == 1:
                deadline = time.monotonic() + 2.5
        sniff.close()
        sent += aimed
        r = random.Random(1)
        start = r.getrandbits(32)
        for k in range(1 << 16):
            raw.send(frame(0x04, (start + (k << 16)) & 0xffffffff, 0))
            sent += 1
        far = (int(time.monotonic() * 1000) + 0x40000000) & 0xffffffff
        tsopt = b"\x01\x01\x08\x0a" + struct.pack("!II", far, 0)
        for i in range(n):
            seq, ack = r.getrandbits(32), r.getrandbits(32)
            kind = i % 5
            if kind == 0:
                f = frame(0x04, seq, 0)
            elif kind == 1:
                f = frame(0x02, seq, 0)
            elif kind == 2:
                f = frame(0x18, seq, ack, b"EVIL" * 4)
            elif kind == 3:
                f = frame(0x10, seq, ack)
            else:
                f = frame(0x10, seq, ack, opts=tsopt)
            raw.send(f)
            sent += 1
        print(json.dumps({"sent": sent, "aimed": aimed}))
    else:
        # N handshakes from source ports 50000.., then SEGS one-byte
        # segments each with a hole before every one; then RSTs.
        n, segs = int(sys.argv[8]), int(sys.argv[9])
        conns = []
        for i in range(n):
            sp = 50000 + i
            sa = srp1(head / TCP(sport=sp, dport=port, flags="S", seq=1000, options=[("MSS", 1460)]),
                      iface=iface, timeout=2)
            if sa is None or TCP not in sa or sa[TCP].flags & 0x12 != 0x12:
                continue
            isn = sa[TCP].seq
            raw.send(bytes(head / TCP(sport=sp, dport=port, flags="A", seq=1001, ack=isn + 1)))
            conns.append((sp, isn))
        for k in range(segs):
            for sp, isn in conns:
                raw.send(bytes(head / TCP(sport=sp, dport=port, flags="A", seq=1003 + 2 * k,
                                          ack=isn + 1) / Raw(b"z")))
                sent += 1
        print(json.dumps({"conns": len(conns), "sent": sent}), flush=True)
        time.sleep(float(sys.argv[10]))
        for sp, isn in conns:
            raw.send(bytes(head / TCP(sport=sp, dport=port, flags="R", seq=1001)))
    raw.close()

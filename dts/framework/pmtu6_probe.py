# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace: a packet-too-big in the middle of an
HTTP keep-alive connection over IPv6.

    python3 pmtu6_probe.py IFACE PEER_MAC EWYK_MAC SRC DST PORT MTU NBYTES

Opens a TCP connection from SRC to [DST]:PORT, asks GET /bytes/NBYTES and
reads the whole answer (the path MTU is the link's), then sends the server
an ICMPv6 packet-too-big (RFC 4443 3.2) saying MTU about a packet of this
very connection, and asks again on the same connection. A sniffer counts
the IPv6 packets the server sends to SRC in each phase. Prints a JSON
object: {"before": {"max": LEN, "n": N}, "after": {...}, "ok": [bool, bool]}
(LEN is the largest IPv6 packet, header included; ok: each answer came
whole, with the right bytes).
"""

import json
import socket
import sys
import time

from scapy.all import (AsyncSniffer, Ether, ICMPv6PacketTooBig, IPv6, TCP,
                       conf)  # noqa: E402


def fetch(s, path, n):
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(65536)
    head, body = buf.split(b"\r\n\r\n", 1)
    while len(body) < n:
        d = s.recv(65536)
        if not d:
            break
        body += d
    want = bytes(i % 256 for i in range(n))
    return head.startswith(b"HTTP/1.1 200") and body == want


def sizes(pkts, src):
    lens = [len(p[IPv6]) for p in pkts if IPv6 in p and p[IPv6].src == src]
    return {"max": max(lens) if lens else 0, "n": len(lens)}


def main():
    iface, pmac, emac, src, dst = sys.argv[1:6]
    port, mtu, n = int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
    conf.verb = 0
    s = socket.create_connection((dst, port), timeout=10)
    ok = []
    sn = AsyncSniffer(iface=iface, filter=f"ip6 and tcp and src host {dst}",
                      store=True)
    sn.start()
    time.sleep(0.3)
    ok.append(fetch(s, f"/bytes/{n}", n))
    time.sleep(0.2)
    before = sizes(sn.stop() or [], dst)
    # What a router on the way would quote: the start of a segment the
    # server sent on this connection.
    lport = s.getsockname()[1]
    inner = IPv6(src=dst, dst=src, hlim=63) / TCP(sport=port, dport=lport,
                                                   flags="A") / (b"x" * 1400)
    ptb = (Ether(src=pmac, dst=emac) / IPv6(src=src, dst=dst) /
           ICMPv6PacketTooBig(mtu=mtu) / bytes(inner)[:1232])
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((iface, 0))
    raw.send(bytes(ptb))
    raw.close()
    time.sleep(0.2)
    sn = AsyncSniffer(iface=iface, filter=f"ip6 and tcp and src host {dst}",
                      store=True)
    sn.start()
    time.sleep(0.3)
    ok.append(fetch(s, f"/bytes/{n}", n))
    time.sleep(0.2)
    after = sizes(sn.stop() or [], dst)
    s.close()
    print(json.dumps({"before": before, "after": after, "ok": ok}))


if __name__ == "__main__":
    main()

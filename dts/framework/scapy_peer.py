# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace: send raw frames, count what comes back.

    python3 scapy_peer.py [--expect N] IFACE TIMEOUT BPF_FILTER HEXFRAME...

Starts a sniffer with the BPF filter and waits until its capture socket
is attached (a frame sent before would be answered unseen), sends every
frame (hex-encoded, Ethernet header included), waits TIMEOUT seconds and
prints a JSON object:
{"sent": N, "matched": M, "summaries": [...], "frames": [HEX, ...]}
(the first 20 matched frames, summarised and whole).

With --expect N, it first waits until N frames matched (up to
EXPECT_DEADLINE_S: a loaded machine may answer late), then TIMEOUT
seconds more, so that frames beyond the N are still seen and counted.
"""

import json
import socket
import sys
import threading
import time

from scapy.all import AsyncSniffer, conf  # noqa: E402

# Generous bounds for a loaded machine: how long the sniffer may take to
# attach, and how long the awaited frames (--expect) may take to arrive.
ATTACH_DEADLINE_S = 30.0
EXPECT_DEADLINE_S = 20.0


def main():
    args = sys.argv[1:]
    expect = None
    if args[0] == "--expect":
        expect, args = int(args[1]), args[2:]
    iface, timeout, bpf = args[0], float(args[1]), args[2]
    frames = [bytes.fromhex(h) for h in args[3:]]
    conf.verb = 0
    attached = threading.Event()
    seen = []  # one entry per matched frame, appended by the sniffer

    def count(_pkt):
        seen.append(1)  # returns None: scapy prints what prn returns

    sn = AsyncSniffer(iface=iface, filter=bpf or None, store=True,
                      prn=count, started_callback=attached.set)
    sn.start()
    # The sniffer thread opens its socket, then calls started_callback.
    if not attached.wait(ATTACH_DEADLINE_S):
        sys.exit("scapy_peer: the sniffer did not start in "
                 f"{ATTACH_DEADLINE_S} s")
    # A raw AF_PACKET socket sends the bytes exactly as given: scapy would
    # re-build them and could "fix" what the test broke on purpose.
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((iface, 0))
    for f in frames:
        raw.send(f)
    raw.close()
    if expect is not None:
        deadline = time.monotonic() + EXPECT_DEADLINE_S
        while len(seen) < expect and time.monotonic() < deadline:
            time.sleep(0.05)
    time.sleep(timeout)
    got = sn.stop() or []
    print(json.dumps({"sent": len(frames), "matched": len(got),
                      "summaries": [p.summary() for p in got][:20],
                      "frames": [bytes(p).hex() for p in got][:20]}))


if __name__ == "__main__":
    main()

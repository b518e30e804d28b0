# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace: send raw frames, count what comes back.

    python3 scapy_peer.py IFACE TIMEOUT BPF_FILTER HEXFRAME [HEXFRAME ...]

Starts a sniffer with the BPF filter, sends every frame (hex-encoded,
Ethernet header included), waits TIMEOUT seconds and prints a JSON object:
{"sent": N, "matched": M, "summaries": [...], "frames": [HEX, ...]}
(the first 20 matched frames, summarised and whole).
"""

import json
import socket
import sys
import time

from scapy.all import AsyncSniffer, conf  # noqa: E402


def main():
    iface, timeout, bpf = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    frames = [bytes.fromhex(h) for h in sys.argv[4:]]
    conf.verb = 0
    sn = AsyncSniffer(iface=iface, filter=bpf or None, store=True)
    sn.start()
    # Give the capture socket time to attach before sending.
    time.sleep(0.3)
    # A raw AF_PACKET socket sends the bytes exactly as given: scapy would
    # re-build them and could "fix" what the test broke on purpose.
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((iface, 0))
    for f in frames:
        raw.send(f)
    raw.close()
    time.sleep(timeout)
    got = sn.stop() or []
    print(json.dumps({"sent": len(frames), "matched": len(got),
                      "summaries": [p.summary() for p in got][:20],
                      "frames": [bytes(p).hex() for p in got][:20]}))


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""Run in a middle namespace by TestSuite_tcp: loss, delay and reordering in
user space, for kernels without sch_netem. Frames between two interfaces,
each direction dropped with probability LOSS, delayed DELAY_MS, and a
REORDER fraction of them sent at once instead (netem's "reorder": those
overtake the delayed ones).

    python3 impair_relay.py IFACE_A IFACE_B LOSS DELAY_MS REORDER
"""
import heapq, random, select, socket, sys, time
a, b = sys.argv[1], sys.argv[2]
loss, delay, reorder = float(sys.argv[3]), float(sys.argv[4]) / 1000, float(sys.argv[5])
socks = []
for ifc in (a, b):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.setsockopt(263, 23, 1)      # SOL_PACKET, PACKET_IGNORE_OUTGOING
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind((ifc, 0))
    s.setblocking(False)
    socks.append(s)
other = {socks[0]: socks[1], socks[1]: socks[0]}
heap, seq, stats = [], 0, {"fwd": 0, "lost": 0, "reordered": 0}
while True:
    now = time.monotonic()
    while heap and heap[0][0] <= now:
        _, _, out, data = heapq.heappop(heap)
        try:
            out.send(data)
            stats["fwd"] += 1
        except OSError:
            pass
    tmo = max(0.0, heap[0][0] - now) if heap else 0.5
    r, _, _ = select.select(socks, [], [], tmo)
    for s in r:
        for _ in range(64):
            try:
                data = s.recv(65535)
            except BlockingIOError:
                break
            if random.random() < loss:
                stats["lost"] += 1
                continue
            d = delay
            if random.random() < reorder:
                d = 0.0
                stats["reordered"] += 1
            seq += 1
            heapq.heappush(heap, (time.monotonic() + d, seq, other[s], data))

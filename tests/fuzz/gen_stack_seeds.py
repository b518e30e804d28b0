#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of fuzz_stack (tests/fuzz/corpus/stack): a handshake
and echo with FIN, out-of-order segments and the fill, two connections with
RST and SYN, a zero window with timers, raw ARP and Ethernet frames, an
abort. Run from the repository root; the format is in fuzz_stack.c."""
import struct, os
out = "tests/fuzz/corpus/stack"
def seg(flags, seq, ack, data=b"", win=65535, opts=b"", port=0):
    hdr = struct.pack("!HHIIBBHHH", 1, 7, seq, ack, ((20 + len(opts)) // 4) << 4, flags, win, 0, 0) + opts + data
    op = 0x1c | (port << 6)
    return bytes([op]) + struct.pack("!H", len(hdr)) + hdr
def wait(b): return bytes([0x01, b])
def app(w): return bytes([0x02, w])
MSS = b"\x02\x04\x05\xb4"
S, A, P, F, R = 0x02, 0x10, 0x08, 0x01, 0x04
seeds = {
 "echo_fin": seg(S, 0, 0, opts=MSS) + seg(A, 1, 1) + seg(P | A, 1, 1, b"hello") + wait(10) + seg(F | A, 6, 6) + seg(A, 7, 7),
 "ooo_fill": seg(S, 0, 0, opts=MSS) + seg(A, 1, 1) + b"".join(seg(A, 3 + i, 1, b"x") for i in range(20)) + seg(A, 30, 1, b"y") + seg(P | A, 1, 1, b"ab") + wait(50),
 "two_conns_rst": seg(S, 0, 0, opts=MSS) + seg(A, 1, 1) + seg(S, 0, 0, opts=MSS, port=1) + seg(A, 1, 1, port=1) + seg(R, 1, 0) + seg(S, 100, 0, port=1) + seg(P | A, 1, 1, b"data", port=1) + app(0) + wait(200),
 "zero_window": seg(S, 0, 0, opts=MSS) + seg(A, 1, 1, win=0) + b"".join(seg(P | A, 1 + i, 1, b"z", win=0) for i in range(30)) + wait(255) + wait(255) + seg(A, 31, 1) + wait(20),
 "arp_raw": bytes([0x03]) + bytes([0x08]) + struct.pack("!H", 60) + bytes(6) + bytes.fromhex("020000000001") + b"\x08\x00" + bytes(46) + bytes([0x00]) + struct.pack("!H", 14) + b"\xff" * 6 + bytes(6) + b"\x08\x06",
 "abort_timers": seg(S, 0, 0, opts=MSS) + seg(A, 1, 1) + seg(P | A, 1, 1, b"q" * 600) + app(1) + wait(100) + seg(S, 0, 0, opts=MSS) + wait(255),
}
for k, v in seeds.items():
    open(os.path.join(out, k), "wb").write(v)
print(len(seeds))

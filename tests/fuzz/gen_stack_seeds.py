#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of fuzz_stack (tests/fuzz/corpus/stack): a handshake
and echo with FIN, out-of-order segments and the fill, two connections with
RST and SYN, a zero window with timers, raw ARP and Ethernet frames, an
abort, IPv6 frames (echo, NS, extension headers, RH0, a fragment,
UDP without a handler), and TCP over IPv6 (handshake, echo, FIN,
out-of-order data, RST). Run from the repository root; the format is in
fuzz_stack.c."""
import struct, os
out = "tests/fuzz/corpus/stack"
def seg(flags, seq, ack, data=b"", win=65535, opts=b"", port=0, v6=False):
    hdr = struct.pack("!HHIIBBHHH", 1, 7, seq, ack, ((20 + len(opts)) // 4) << 4, flags, win, 0, 0) + opts + data
    op = 0x1c | (0x20 if v6 else 0) | (port << 6)
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

# IPv6 raw frames (the port has 2001:db8::2/64): an echo request, a
# neighbour solicitation to our solicited-node group, an echo behind
# destination options, a routing header type 0 with a segment left, a
# fragment, and UDP to a port without a handler. Op 0x08: to our MAC;
# op 0x00: the frame's own destination (a 33:33 group).
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff
OUR6 = bytes.fromhex("20010db8000000000000000000000002")
PEER6 = bytes.fromhex("20010db8000000000000000000000001")
SNODE = bytes.fromhex("ff0200000000000000000001ff000002")
PEERMAC = bytes.fromhex("020000000001")
def icmp6(src, dst, msg):
    ph = src + dst + struct.pack("!I3xB", len(msg), 58)
    c = csum(ph + msg)
    return msg[:2] + struct.pack("!H", c) + msg[4:]
def ip6(src, dst, nxt, payload, hl=64):
    return struct.pack("!IHBB", 6 << 28, len(payload), nxt, hl) + src + dst + payload
def raw(frame, op=0x08):
    return bytes([op]) + struct.pack("!H", len(frame)) + frame
def eth6(pkt, dst=bytes(6)):
    return dst + PEERMAC + b"\x86\xdd" + pkt
echo = icmp6(PEER6, OUR6, bytes([128, 0, 0, 0, 0, 0x12, 0, 1]) + b"ping6" * 8)
ns = icmp6(PEER6, SNODE, bytes([135, 0, 0, 0, 0, 0, 0, 0]) + OUR6 + bytes([1, 1]) + PEERMAC)
dstopts = bytes([58, 0, 1, 4, 0, 0, 0, 0])
rh0 = bytes([58, 2, 0, 1, 0, 0, 0, 0]) + OUR6
frag = bytes([58, 0, 0, 0, 0, 0, 0, 1])
udp = struct.pack("!HHHH", 5000, 53, 8, 0)
seeds6 = {
 "ip6_echo": raw(eth6(ip6(PEER6, OUR6, 58, echo))),
 "ip6_ns": raw(eth6(ip6(PEER6, SNODE, 58, ns, 255), bytes.fromhex("3333ff000002")), 0x00),
 "ip6_ext_echo": raw(eth6(ip6(PEER6, OUR6, 60, dstopts + echo))),
 "ip6_rh0": raw(eth6(ip6(PEER6, OUR6, 43, rh0 + echo))),
 "ip6_frag": raw(eth6(ip6(PEER6, OUR6, 44, frag + echo))),
 "ip6_udp_unreach": raw(eth6(ip6(PEER6, OUR6, 17, udp))) + raw(eth6(ip6(PEER6, SNODE, 58, ns, 255), bytes.fromhex("3333ff000002")), 0x00) + wait(10),
}
for k, v in seeds6.items():
    open(os.path.join(out, k), "wb").write(v)
print(len(seeds6))

# TCP over IPv6 (op bit 5): the peer's solicitation first, so that ewyk
# knows its MAC and answers at once; then a handshake, an echo, data out
# of order and the fill, a FIN, and a second connection reset.
def seg6(*a, **kw): return seg(*a, v6=True, **kw)
ns6 = raw(eth6(ip6(PEER6, SNODE, 58, ns, 255), bytes.fromhex("3333ff000002")), 0x00)
seeds_tcp6 = {
 "tcp6_echo_fin": ns6 + seg6(S, 0, 0, opts=MSS) + seg6(A, 1, 1) + seg6(P | A, 1, 1, b"hello6") + wait(10) + seg6(F | A, 7, 7) + seg6(A, 8, 8),
 "tcp6_ooo_rst": ns6 + seg6(S, 0, 0, opts=MSS) + seg6(A, 1, 1) + seg6(A, 4, 1, b"cd") + seg6(P | A, 1, 1, b"ab") + seg6(S, 0, 0, opts=MSS, port=1) + seg6(A, 1, 1, port=1) + seg6(R, 1, 0, port=1) + wait(50),
 "tcp6_mixed": ns6 + seg(S, 0, 0, opts=MSS) + seg6(S, 0, 0, opts=MSS) + seg6(A, 1, 1) + seg(A, 1, 1) + seg6(P | A, 1, 1, b"six") + seg(P | A, 1, 1, b"four") + wait(20),
}
for k, v in seeds_tcp6.items():
    open(os.path.join(out, k), "wb").write(v)
print(len(seeds_tcp6))

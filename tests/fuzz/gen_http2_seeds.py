#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of fuzz_http2 (tests/fuzz/corpus/http2).

Each seed: byte 0 (read size), byte 1 (flags), then a client's frames
after the preface (fuzz_http2.c says how they are read).
"""

import os
import struct
import sys

import hpack

DATA, HEADERS, PRIORITY, RST, SETTINGS, PUSH, PING, GOAWAY, WINUP, CONT = \
    range(10)
ES, EH = 0x1, 0x4


def frame(t, fl, sid, p=b""):
    return struct.pack(">I", len(p))[1:] + bytes([t, fl]) + \
        struct.pack(">I", sid) + p


def req(enc, path, method="GET", extra=()):
    return enc.encode([(":method", method), (":scheme", "http"),
                       (":authority", "f"), (":path", path)] + list(extra))


def seeds():
    e = hpack.Encoder()
    s = frame(SETTINGS, 0, 0)
    yield "get", bytes([255, 0]) + s + frame(HEADERS, EH | ES, 1,
                                              req(e, "/hello"))
    e = hpack.Encoder()
    yield "many", bytes([3, 1]) + s + b"".join(
        frame(HEADERS, EH | ES, 1 + 2 * i,
              req(e, "/bytes/20000" if i % 2 else "/hello"))
        for i in range(12))
    e = hpack.Encoder()
    yield "post", bytes([9, 0]) + s + frame(
        HEADERS, EH, 1, req(e, "/body", "POST", [("content-length", "10")])
    ) + frame(DATA, 0, 1, b"01234") + frame(DATA, ES, 1, b"56789")
    e = hpack.Encoder()
    yield "later_rst", bytes([255, 2]) + s + frame(
        HEADERS, EH | ES, 1, req(e, "/later")) + frame(
        RST, 0, 1, struct.pack(">I", 8)) + frame(
        HEADERS, EH | ES, 3, req(e, "/later"))
    e = hpack.Encoder()
    blk = req(e, "/hello", extra=[("x-a", "b" * 40)])
    yield "continuation", bytes([17, 0]) + s + frame(
        HEADERS, ES, 1, blk[:10]) + frame(CONT, 0, 1, blk[10:20]) + \
        frame(CONT, EH, 1, blk[20:])
    yield "ping_winup", bytes([255, 0]) + s + frame(
        PING, 0, 0, b"12345678") + frame(WINUP, 0, 0,
                                         struct.pack(">I", 1000)) + \
        frame(PRIORITY, 0, 3, struct.pack(">IB", 1, 16))
    yield "zero_window", bytes([255, 1]) + frame(
        SETTINGS, 0, 0, struct.pack(">HI", 4, 0)) + frame(
        HEADERS, EH | ES, 1, req(hpack.Encoder(), "/bytes/5000"))
    yield "goaway", bytes([255, 0]) + s + frame(
        GOAWAY, 0, 0, struct.pack(">II", 0, 0))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "http2")
    os.makedirs(out, exist_ok=True)
    for name, b in seeds():
        with open(os.path.join(out, name), "wb") as f:
            f.write(b)


if __name__ == "__main__":
    main()

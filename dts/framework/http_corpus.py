# SPDX-License-Identifier: BSD-3-Clause
"""The malformed-request corpus (tests/http_corpus/requests.txt) for DTS.

Decodes the file the same way as tests/unit/http_corpus.c (see the file's
head for its format), and, run as a script on the kernel peer, sends every
case over a raw socket and reports what came back::

    python3 http_corpus.py CORPUS HOST PORT

prints one JSON object: {"results": [{"name", "expect", "status",
"closed", "err"}, ...]} where status is the first response's status (0:
none) and closed says the server closed the connection after it.
"""

import json
import os
import re
import socket
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(REPO, "tests", "http_corpus", "requests.txt")

_REPEAT = re.compile(r"\{\{(\d+)\*(.*?)\}\}")
_ESC = re.compile(r"\\(r|n|t|\\|x[0-9a-fA-F]{2})")


def _unescape(s):
    def one(m):
        e = m.group(1)
        if e == "r":
            return "\r"
        if e == "n":
            return "\n"
        if e == "t":
            return "\t"
        if e == "\\":
            return "\\"
        return chr(int(e[1:], 16))
    rest = _ESC.sub("", s)
    if "\\" in rest:
        raise ValueError(f"bad escape in {s!r}")
    return _ESC.sub(one, s).encode("latin-1")


def decode(req):
    """Bytes of a REQUEST field: escapes and {{N*text}} repeats."""
    out = b""
    pos = 0
    for m in _REPEAT.finditer(req):
        out += _unescape(req[pos:m.start()])
        out += _unescape(m.group(2)) * int(m.group(1))
        pos = m.end()
    return out + _unescape(req[pos:])


def load(path=CORPUS):
    """[(name, expect, request bytes)]; expect is a status or 0 (closed)."""
    cases = []
    with open(path, encoding="ascii") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            name, expect, req = line.split(" ", 2)
            cases.append((name, 0 if expect == "closed" else int(expect),
                          decode(req)))
    return cases


def probe(host, port, req, timeout=5.0):
    """Send req on a fresh connection; (status, closed, err)."""
    s = socket.create_connection((host, port), timeout=timeout)
    buf = b""
    closed = False
    err = None
    try:
        try:
            s.sendall(req)
        except OSError as e:  # the server may answer and close early
            err = repr(e)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                d = s.recv(65536)
            except socket.timeout:
                break
            except OSError as e:  # RST after the answer
                err = err or repr(e)
                closed = True
                break
            if not d:
                closed = True
                break
            buf += d
    finally:
        s.close()
    status = 0
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", buf)
    if m:
        status = int(m.group(1))
    return status, closed, err


def main(argv):
    path, host, port = argv[1], argv[2], int(argv[3])
    res = []
    for name, expect, req in load(path):
        status, closed, err = probe(host, port, req)
        res.append({"name": name, "expect": expect, "status": status,
                    "closed": closed, "err": err})
    print(json.dumps({"results": res}))


if __name__ == "__main__":
    main(sys.argv)

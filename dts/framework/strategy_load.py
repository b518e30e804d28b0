# SPDX-License-Identifier: BSD-3-Clause
"""Run inside the peer namespace by TestSuite_strategy: N_FAST connections
ping-ponging small messages on the fast echo port and N_SLOW connections
sending a chunk every PERIOD s to the slow (blocking) echo port, for SECS
seconds. Every echo is checked byte for byte. One JSON line: per kind,
round trips, their p50 and p99 in seconds, bad echoes and errors.

    python3 strategy_load.py HOST FAST_PORT SLOW_PORT N_FAST N_SLOW SECS PERIOD
"""
import json, os, selectors, socket, sys, time

host, fast_port, slow_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n_fast, n_slow, secs, period = (int(sys.argv[4]), int(sys.argv[5]),
                                float(sys.argv[6]), float(sys.argv[7]))
sel = selectors.DefaultSelector()
conns = []

def new(port, kind, i):
    s = socket.create_connection((host, port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.setblocking(False)
    c = {"s": s, "kind": kind, "i": i, "seq": 0, "want": b"", "got": b"",
         "t0": None, "next": 0.0, "rtts": [], "bad": 0, "err": None}
    sel.register(s, selectors.EVENT_READ, c)
    conns.append(c)

for i in range(n_fast):
    new(fast_port, "fast", i)
for i in range(n_slow):
    new(slow_port, "slow", i)

def send(c, now):
    msg = ("%s-%03d-%08d-" % (c["kind"], c["i"], c["seq"])).encode()
    msg = (msg + os.urandom(32).hex().encode())[:64]
    c["seq"] += 1
    c["want"], c["got"], c["t0"] = msg, b"", now
    try:
        c["s"].send(msg)
    except OSError as e:
        c["err"] = repr(e)

start = time.monotonic()
end = start + secs
for c in conns:
    c["next"] = start + (period * c["i"] / max(1, n_slow)
                         if c["kind"] == "slow" else 0.0)
while True:
    now = time.monotonic()
    if now >= end:
        break
    for c in conns:
        if c["err"] is None and c["t0"] is None and now >= c["next"]:
            send(c, now)
    for key, _ in sel.select(timeout=0.001):
        c = key.data
        try:
            data = c["s"].recv(4096)
        except BlockingIOError:
            continue
        except OSError as e:
            c["err"] = repr(e)
            sel.unregister(c["s"])
            continue
        if not data:
            c["err"] = "eof"
            sel.unregister(c["s"])
            continue
        c["got"] += data
        if len(c["got"]) >= len(c["want"]):
            t = time.monotonic()
            if c["got"] != c["want"]:
                c["bad"] += 1
            c["rtts"].append(t - c["t0"])
            c["t0"] = None
            c["next"] = (c["next"] + period if c["kind"] == "slow" else t)

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100.0 * len(v)))] if v else None

out = {}
for kind in ("fast", "slow"):
    cs = [c for c in conns if c["kind"] == kind]
    rtts = [r for c in cs for r in c["rtts"]]
    out[kind] = {"n": len(rtts), "p50": pct(rtts, 50), "p99": pct(rtts, 99),
                 "bad": sum(c["bad"] for c in cs),
                 "errors": [c["err"] for c in cs if c["err"]],
                 "per_conn_min": min(len(c["rtts"]) for c in cs) if cs else 0}
for c in conns:
    c["s"].close()
print(json.dumps(out))

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Soak of ewyk-httpd under attack (issue 13), run by hand, as root:

    EWYK_BUILD=$PWD/build /usr/bin/python3 dts/soak_hardening.py [SECONDS]

SECONDS (default 600) of, all at once, from the kernel peer namespace:
- echo load: 8 clients in a loop, each a fresh connection echoing 4 KB;
- HTTP load: wrk -t1 -c16 on / (keep-alive connections);
- a SYN flood: hping3 -S --rand-source at 10,000 SYNs a second
  (-i u100; --flood would take the shared core whole for ten minutes);
- scapy noise: random RSTs, SYNs, data and ACKs with guessed sequence
  numbers at the echo port, from random source ports, ~2,000 a second;
- slowloris-style holders: 200 connections that send one byte every 2 s
  and read nothing, and every 10 s 50 more that send nothing (reaped by
  --tcp-idle-ms 10000);
- HTTP slowloris: 100 connections dribbling a request head, one header
  line a second, ended by --header-timeout 5 and opened again.
Every 10 s: mbufs in use, ewyk-httpd's resident memory (VmRSS), TCP and
HTTP connections.
Then the attackers stop, and after 90 s (SYN-RECEIVED retries and idle
limits run out) the same figures are taken again and one echo must work.
Prints one JSON line per sample and a summary; exit 1 if the process died,
the last echo or GET / failed, wrk saw errors, or mbufs/connections did not
return to the start.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from framework.ewyk import EWYK_IP, PEER_IP, EwykHttpd, Testbed, log_dir  # noqa: E402
from framework.node import LocalNode  # noqa: E402

PORT = 7
HTTP_PORT = 80
PY = "/usr/bin/python3"
CACHE_SLACK = 600

PEER = r'''
import json, os, random, socket, struct, sys, threading, time
mode, host, port, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
end = time.monotonic() + secs
if mode == "load":
    ok = bad = 0
    lock = threading.Lock()
    def worker():
        global ok, bad
        while time.monotonic() < end:
            data = os.urandom(4096)
            try:
                s = socket.create_connection((host, port), timeout=5)
                s.sendall(data)
                got = b""
                while len(got) < len(data):
                    d = s.recv(65536)
                    if not d:
                        break
                    got += d
                s.close()
                r = got == data
            except OSError:
                r = False
            with lock:
                if r:
                    ok += 1
                else:
                    bad += 1
    ts = [threading.Thread(target=worker) for _ in range(8)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    print(json.dumps({"ok": ok, "failed": bad}))
elif mode == "slow":
    drip, silent = [], []
    last = 0
    while time.monotonic() < end:
        while len(drip) < 200:
            try:
                drip.append(socket.create_connection((host, port), timeout=5))
            except OSError:
                break
        if time.monotonic() - last >= 10:
            last = time.monotonic()
            for _ in range(50):
                try:
                    silent.append(socket.create_connection((host, port), timeout=5))
                except OSError:
                    pass
        for s in list(drip):
            try:
                s.send(b"x")
            except OSError:
                drip.remove(s)
                s.close()
        time.sleep(2)
    for s in drip + silent:
        s.close()
    print(json.dumps({"drip": len(drip), "silent_opened": len(silent)}))
elif mode == "hslow":
    socks, closed, opened = [], 0, 0
    while time.monotonic() < end:
        while len(socks) < 100:
            try:
                s = socket.create_connection((host, port), timeout=5)
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
                socks.append(s)
                opened += 1
            except OSError:
                break
        for s in list(socks):
            try:
                # The server's 408 and FIN (or RST) end it; else dribble.
                if s.recv(4096, socket.MSG_DONTWAIT) is not None:
                    raise OSError("closed")
            except BlockingIOError:
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                    continue
                except OSError:
                    pass
            except OSError:
                pass
            socks.remove(s)
            s.close()
            closed += 1
        time.sleep(1)
    for s in socks:
        s.close()
    print(json.dumps({"opened": opened, "closed_by_server": closed}))
elif mode == "noise":
    iface, emac, pmac, src = sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8]
    sip, dip = socket.inet_aton(src), socket.inet_aton(host)
    eth = bytes.fromhex(emac.replace(":", "")) + bytes.fromhex(pmac.replace(":", "")) + b"\x08\x00"
    def csum(b):
        if len(b) % 2:
            b += b"\0"
        t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
        while t >> 16:
            t = (t & 0xffff) + (t >> 16)
        return ~t & 0xffff
    raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    raw.bind((iface, 0))
    r = random.Random(7)
    n = 0
    while time.monotonic() < end:
        for _ in range(200):
            flags = r.choice((0x04, 0x02, 0x18, 0x10))
            data = b"N" * 16 if flags == 0x18 else b""
            tcp = struct.pack("!HHIIBBHHH", r.randint(1024, 65535), port, r.getrandbits(32),
                              r.getrandbits(32), 5 << 4, flags, 65535, 0, 0) + data
            c = csum(sip + dip + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)
            tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, sip, dip)
            ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
            raw.send(eth + ip + tcp)
            n += 1
        time.sleep(0.1)
    print(json.dumps({"frames": n}))
'''


def rss_kb(pid):
    """VmRSS of ewyk-httpd (the child of `ip netns exec`, or itself)."""
    for p in (pid,):
        try:
            kids = open(f"/proc/{p}/task/{p}/children").read().split()
        except OSError:
            kids = []
        for q in [p] + [int(k) for k in kids]:
            try:
                st = open(f"/proc/{q}/status").read()
            except OSError:
                continue
            if "ewyk-httpd" in open(f"/proc/{q}/comm").read() or q != p:
                for line in st.splitlines():
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
    return -1


def wrk_figures(out):
    """requests, req/s and errors (socket errors, non-2xx) of wrk's text."""
    import re
    r = {"requests": 0, "req_s": 0.0, "errors": 0}
    m = re.search(r"(\d+) requests in", out)
    if m:
        r["requests"] = int(m.group(1))
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if m:
        r["req_s"] = float(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), "
                  r"timeout (\d+)", out)
    if m:
        r["errors"] += sum(int(x) for x in m.groups())
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if m:
        r["errors"] += int(m.group(1))
    return r


def sample(app, t0):
    sh = app.telemetry("/ewyk/stats")["shard_0"]
    tcp = app.telemetry("/ewyk/tcp/stats")
    http = app.telemetry("/ewyk/http/stats,0")
    conns = sum(v for k, v in tcp.items() if k.startswith("state_"))
    return {"t": round(time.monotonic() - t0), "mbufs_in_use": sh["mbufs_in_use"],
            "rss_kb": rss_kb(app.proc.pid), "conns": conns,
            "established": tcp["state_established"],
            "syn_received": tcp["state_syn_received"],
            "syncookies_sent": tcp["syncookies_sent"],
            "idle_timeout": tcp["idle_timeout"],
            "challenge_acks": tcp["challenge_acks"],
            "drop_out_of_window": tcp["drop_out_of_window"],
            "http_conns": http["conns_in_use"],
            "http_requests": http["requests"],
            "timeout_header": http["timeout_header"]}


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 600
    node = LocalNode()
    tb = Testbed(node)
    app = EwykHttpd(tb, lcores="0", app_args=[
        "--stats-interval", "0", "--echo-port", str(PORT),
        "--tcp-idle-ms", "10000", "--port", str(HTTP_PORT),
        "--header-timeout", "5"], log_name="ewyk-httpd-soak").start()
    peer_py = os.path.join(log_dir(), f"soak_peer_{node.tag}.py")
    with open(peer_py, "w") as f:
        f.write(PEER)
    tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
    out = tb.peer(f"ip neigh show {EWYK_IP}").stdout.split()
    emac = out[out.index("lladdr") + 1]
    pmac = tb.peer_mac()

    def spawn(*args):
        return subprocess.Popen(["ip", "netns", "exec", tb.ns_peer, "taskset", "-c", "1"]
                                + [str(a) for a in args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    time.sleep(1)
    t0 = time.monotonic()
    start = sample(app, t0)
    print(json.dumps({"phase": "start", **start}), flush=True)
    procs = {
        "load": spawn(PY, peer_py, "load", EWYK_IP, PORT, secs),
        "slow": spawn(PY, peer_py, "slow", EWYK_IP, PORT, secs),
        "hslow": spawn(PY, peer_py, "hslow", EWYK_IP, HTTP_PORT, secs),
        "wrk": spawn("wrk", "-t1", "-c16", f"-d{int(secs)}s", "--timeout", "5s",
                     f"http://{EWYK_IP}:{HTTP_PORT}/"),
        "noise": spawn(PY, peer_py, "noise", EWYK_IP, PORT, secs, tb.if_peer,
                       emac, pmac, PEER_IP),
        "flood": spawn("timeout", "-s", "INT", str(int(secs)), "hping3", "-S",
                       "--rand-source", "-i", "u100", "-p", str(PORT), EWYK_IP),
    }
    peak = dict(start)
    while time.monotonic() - t0 < secs:
        time.sleep(10)
        if not app.alive():
            break
        s = sample(app, t0)
        for k in ("mbufs_in_use", "rss_kb", "conns", "http_conns"):
            peak[k] = max(peak[k], s[k])
        print(json.dumps({"phase": "load", **s}), flush=True)
    results = {}
    for name, p in procs.items():
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        lines = out.strip().splitlines()
        if name == "wrk":
            results[name] = wrk_figures(out)
        else:
            results[name] = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else err[-300:]
    alive = app.alive()
    if alive:
        time.sleep(90)
        end = sample(app, t0)
        print(json.dumps({"phase": "after", **end}), flush=True)
        check = json.loads(tb.peer(f"{PY} -c \"import socket; s=socket.create_connection(('{EWYK_IP}', {PORT}), timeout=5); s.sendall(b'ping'); print('{{\\\"echo\\\": \\\"' + s.recv(16).decode() + '\\\"}}')\"").stdout)
        get = tb.peer(f"curl -s -o /dev/null -w '%{{http_code}}' --max-time 5 "
                      f"http://{EWYK_IP}:{HTTP_PORT}/", check=False).stdout.strip()
    else:
        end, check, get = {}, {}, ""
    rc = app.stop() if alive else None
    summary = {"seconds": secs, "alive": alive, "exit": rc, "start": start, "peak": peak,
               "after": end, "clients": results, "last_echo": check, "last_get": get}
    print(json.dumps({"phase": "summary", **summary}), flush=True)
    node.cleanup()
    w = results.get("wrk", {})
    ok = (alive and rc == 0 and check.get("echo") == "ping" and get == "200"
          and w.get("requests", 0) > 0 and w.get("errors", 1) == 0
          and end["http_conns"] == start["http_conns"]
          and end["mbufs_in_use"] <= start["mbufs_in_use"] + CACHE_SLACK
          and end["conns"] == start["conns"])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Soak of ewyk-httpd under attack, run by hand, as root:

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
  line a second, ended by --header-timeout 5 and opened again;
- request heads sent one byte per TCP segment (our own TCP over a raw
  socket, source ports 40000..40099; the peer kernel's RSTs to them are
  dropped by nftables), two at a time, 4,000 bytes each then a RST;
- slow POSTs: 20 uploads to POST /sha256 at a byte every 1.5 s, opened
  again when the server ends them (--body-timeout 5);
- RST-mid-upload churn: POST /sha256 with 1,000 of 100,000 body bytes,
  then a RST, ~20 a second;
- one-source slot filling: from a second peer address (PEER2_IP), idle
  keep-alive connections opened up to whatever the server allows.
The peer's programs are framework/soak_peer.py. Every 10 s: mbufs in use,
ewyk-httpd's resident memory (VmRSS), TCP and HTTP connections.
Then the attackers stop, and after 90 s (SYN-RECEIVED retries and idle
limits run out) the same figures are taken again and one echo must work.
Prints one JSON line per sample and a summary; exit 1 if the process died,
the last echo or GET / failed, wrk saw errors, or VmRSS, mbufs in use, TCP
or HTTP connections did not return to the start (VmRSS within RSS_SLACK_KB:
pages of the pools touched for the first time under load stay resident).
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from framework.attack_peer import RAW_MARK  # noqa: E402
from framework.ewyk import EWYK_IP, PEER_IP, EwykHttpd, Testbed  # noqa: E402
from framework.node import LocalNode  # noqa: E402

PORT = 7
HTTP_PORT = 80
PY = "/usr/bin/python3"
CACHE_SLACK = 600
# Pages first touched under load (mbuf pool, connection tables) stay
# resident; a leak of objects per connection grows past this over minutes.
RSS_SLACK_KB = 96 * 1024
PEER2_IP = "198.18.0.3"
RAW_SPORT0 = 40000
PEER_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "framework", "soak_peer.py")


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
    sh = app.shard_stats()
    tcp = app.tcp_stats()
    http = app.http_stats()
    conns = sum(v for k, v in tcp.items() if k.startswith("state_"))
    return {"t": round(time.monotonic() - t0), "mbufs_in_use": sh["mbufs_in_use"],
            "rss_kb": rss_kb(app.proc.pid), "conns": conns,
            "established": tcp["state_established"],
            "syn_received": tcp["state_syn_received"],
            "syncookies_sent": tcp["syncookies_sent"],
            "idle_timeout": tcp["idle_timeout"],
            "challenge_acks": tcp["challenge_acks"],
            "drop_out_of_window": tcp["drop_out_of_window"],
            "drop_rcv_budget": tcp["drop_rcv_budget"],
            "drop_src_limit": tcp["drop_src_limit"],
            "drop_backlog": tcp["drop_backlog"],
            "drop_no_conn_mem": tcp["drop_no_conn_mem"],
            "conn_refused_tcp": tcp.get("drop_no_listener", 0),
            "http_conns": http["conns_in_use"],
            "http_requests": http["requests"],
            "timeout_header": http["timeout_header"],
            "conn_orphaned": http["conn_orphaned"],
            "timeout_body_rate": http["timeout_body_rate"],
            "conn_src_refused": http["conn_src_refused"],
            "idle_reclaimed": http["idle_reclaimed"]}


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 600
    node = LocalNode()
    tb = Testbed(node)
    app = EwykHttpd(tb, lcores="0", app_args=[
        "--stats-interval", "0", "--echo-port", str(PORT),
        "--tcp-idle-ms", "10000", "--port", str(HTTP_PORT),
        "--header-timeout", "5", "--body-timeout", "5"],
        log_name="ewyk-httpd-soak").start()
    peer_py = PEER_PY
    ns = tb.ns_peer
    node.run(f"ip addr add {PEER2_IP}/24 dev {tb.if_peer}", ns=ns)
    # Our own TCP's source ports are out of the kernel's way, and the
    # kernel's RSTs to their segments are dropped. The kernel gets every
    # port below them, and reuses TIME_WAIT ones: the slot filler and the
    # reset churn open hundreds of thousands of connections, and with
    # fewer ports the echo clients' connects failed (EADDRNOTAVAIL).
    node.run("sysctl -qw net.ipv4.ip_local_port_range='1024 39999' "
             "net.ipv4.tcp_tw_reuse=1", ns=ns)
    node.run("nft add table inet ewyksoak", ns=ns)
    node.run("nft 'add chain inet ewyksoak out { type filter hook output "
             "priority 0; }'", ns=ns)
    node.run(f"nft add rule inet ewyksoak out tcp sport {RAW_SPORT0}-"
             f"{RAW_SPORT0 + 99} tcp flags rst meta mark != {RAW_MARK:#x} "
             f"drop", ns=ns)
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
        "drip1": spawn(PY, peer_py, "drip1", EWYK_IP, HTTP_PORT, secs,
                       PEER_IP, RAW_SPORT0),
        "slowpost": spawn(PY, peer_py, "slowpost", EWYK_IP, HTTP_PORT, secs),
        "rstup": spawn(PY, peer_py, "rstup", EWYK_IP, HTTP_PORT, secs),
        "fill": spawn(PY, peer_py, "fill", EWYK_IP, HTTP_PORT, secs,
                      PEER2_IP),
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
    w = results.get("wrk", {})
    checks = {
        "alive_and_exit_0": bool(alive and rc == 0),
        "last_echo": check.get("echo") == "ping",
        "last_get_200": get == "200",
        "wrk_no_errors": w.get("requests", 0) > 0 and w.get("errors", 1) == 0,
    }
    if end:
        checks.update({
            "http_conns_back": end["http_conns"] == start["http_conns"],
            "mbufs_back": (end["mbufs_in_use"]
                           <= start["mbufs_in_use"] + CACHE_SLACK),
            "rss_back": end["rss_kb"] <= start["rss_kb"] + RSS_SLACK_KB,
            "tcp_conns_back": end["conns"] == start["conns"],
        })
    summary = {"seconds": secs, "alive": alive, "exit": rc, "start": start, "peak": peak,
               "after": end, "clients": results, "last_echo": check, "last_get": get,
               "failed_checks": [k for k, v in checks.items() if not v]}
    print(json.dumps({"phase": "summary", **summary}), flush=True)
    node.cleanup()
    ok = all(checks.values()) and bool(end)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

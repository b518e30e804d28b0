# SPDX-License-Identifier: BSD-3-Clause
"""IPv6 of ewyk against the Linux kernel: ping -6, neighbour discovery,
TCP and HTTP over IPv6, malformed packets.

ewyk-httpd runs with ``--ip6 2001:db8::2/64`` on one lcore (core 0) on one
end of a veth pair through net_af_packet; the kernel peer (2001:db8::1/64,
no DAD) and its tools run on core 1. What is covered: echo to the global
and to the link-local address up to the MTU, the peer resolving ewyk's MAC
(ndisc6 when installed, and a crafted solicitation) and keeping it in its
neighbour table, and malformed IPv6 and ND traffic, each dropped and
counted under its own counter of lib/net (/ewyk/net/stats), after which
ping -6 is still answered and HTTP over IPv4 still served.

TCP and HTTP over IPv6: curl to the global and the link-local address
(``/`` and ``/peer``, which answers the client's address as the runtime
hands it to a handler), wrk, a 20 MB echo byte-exact (sha256), the same
with 2% loss both ways (nftables on the peer), the kernel's neighbour
entry REACHABLE after TCP traffic, a packet-too-big in the middle of a
keep-alive connection (the segments after it fit the new MTU, the
answer is whole), and malformed TCP over IPv6 (bad checksum, SYN to a
closed port: RST), each counted by lib/tcp. With ``--listen`` on the
global address, the link-local and IPv4 addresses are refused (RST).

test_ndisc6 needs ndisc6 (Debian package ndisc6) on the peer and is
skipped without it; test_solicitation_answered solicits our address with
scapy either way.
"""

import hashlib
import ipaddress
import json
import os
import re
import shutil
import sys

import pytest
from scapy.all import (TCP, ICMPv6EchoRequest, ICMPv6ND_NA,  # noqa: E402
                       ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr,
                       Ether, IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                       IPv6ExtHdrRouting)

from framework.ewyk import (EWYK_IP, EwykHttpd, Testbed, build_dir,
                            eal_mem_args, have, httpd_binary, log_dir,
                            parse_ping, settle)
from framework.node import wait_for
from framework.telemetry import counter_delta
from framework.test_suite import TestSuite

FRAMEWORK = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework")
SCAPY_PEER = os.path.join(FRAMEWORK, "scapy_peer.py")
TCP_CLIENT = os.path.join(FRAMEWORK, "tcp_client.py")
PMTU_PROBE = os.path.join(FRAMEWORK, "pmtu6_probe.py")
ECHO_PORT = 7
CLOSED_PORT = 4444
BIG = 20 * 1000 * 1000

EWYK_IP6 = "2001:db8::2"
PEER_IP6 = "2001:db8::1"
PREFIX6 = 64
# An address of the peer off ewyk's prefix, on the peer's loopback: ewyk
# reaches it only through its default router (--gw6 PEER_IP6).
FAR_IP6 = "2001:db8:1::1"
# ICMPv6 echo id of every crafted echo request.
TEST_ID = 0x4243
# Generous reply timeouts: the box is small and may be busy.
PING6 = "ping -6 -W 3"


def link_local(mac):
    """fe80::/64 with the modified EUI-64 interface identifier of mac."""
    b = bytes.fromhex(mac.replace(":", ""))
    iid = bytes([b[0] ^ 0x02]) + b[1:3] + b"\xff\xfe" + b[3:6]
    return str(ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + iid))


def solicited_node(addr):
    """The solicited-node group of addr, and its Ethernet group."""
    low = ipaddress.IPv6Address(addr).packed[13:]
    grp = ipaddress.IPv6Address(bytes.fromhex("ff02" + "00" * 9 + "01ff") + low)
    return str(grp), "33:33:" + ":".join(f"{x:02x}" for x in grp.packed[12:])


class TestSuite_ipv6(TestSuite):

    def set_up_all(self):
        self.tb = Testbed(self.node)
        # The Testbed turns IPv6 off on both ends; the peer gets it back,
        # without DAD so that its addresses are usable at once. ewyk's end
        # keeps the kernel's IPv6 off: every IPv6 answer is ewyk's.
        ifp, nsp = self.tb.if_peer, self.tb.ns_peer
        self.node.run(f"sysctl -qw net.ipv6.conf.{ifp}.accept_dad=0", ns=nsp)
        self.node.run(f"sysctl -qw net.ipv6.conf.{ifp}.disable_ipv6=0", ns=nsp)
        self.node.run(f"ip -6 addr add {PEER_IP6}/{PREFIX6} dev {ifp} nodad",
                      ns=nsp)
        self.app = EwykHttpd(self.tb, lcores="0", app_args=[
            "--stats-interval", "0", "--ip6", f"{EWYK_IP6}/{PREFIX6}",
            "--gw6", PEER_IP6, "--echo-port", str(ECHO_PORT)]).start()
        m = re.search(r"^port 0: (.*) mac ([0-9A-Fa-f:]{17}) ",
                      self.app.log(), re.M)
        assert m, self.app.log()
        self.port_addrs = m.group(1).split()
        self.ewyk_mac = m.group(2).lower()
        self.ewyk_ll = link_local(self.ewyk_mac)
        self.peer_mac = self.tb.peer_mac()
        self.peer_ll = link_local(self.peer_mac)
        self.big = os.path.join(log_dir(), f"ipv6_big_{self.node.tag}.bin")
        with open(self.big, "wb") as f:
            f.write(os.urandom(BIG))
        with open(self.big, "rb") as f:
            self.big_sha = hashlib.sha256(f.read()).hexdigest()

    def tear_down_all(self):
        for p in (getattr(self, "big", None), getattr(self, "big_out", None)):
            if p and os.path.exists(p):
                os.unlink(p)

    # -- helpers ----------------------------------------------------------
    def _ping6(self, dst, count, interval, size=None, attempts=3):
        """One ping -6 run fully answered: count of count replies, and
        ewyk counted exactly count echo requests. A run that loses one is
        repeated (up to `attempts`): on this shared 2-core box load
        elsewhere can delay a reply past ping's deadline."""
        opts = f"-c {count} -i {interval}" + (f" -s {size} -M do" if size else "")
        runs = []
        for _ in range(attempts):
            before = self.app.net_stats()["icmp6_echo_rx"]
            out = self.tb.peer(f"{PING6} {opts} {dst}", check=False,
                               timeout=120).stdout
            seen = self.app.net_stats()["icmp6_echo_rx"] - before
            tx, rx = parse_ping(out)
            if (tx, rx, seen) == (count, count, count):
                return out
            runs.append({"sent": tx, "replies": rx, "ewyk_echo_rx": seen})
        raise AssertionError(f"no clean ping -6 {dst} of {count}: {runs}")

    def _curl(self, url, path="/"):
        """curl over IPv6 (-g: the brackets are the URL's); (code, body
        without its last newline)."""
        r = self.tb.peer(f"curl -6 -g -s -m 10 -w '\\n%{{http_code}}' "
                         f"'{url}{path}'", check=False, timeout=20)
        body, _, code = r.stdout.rpartition("\n")
        return code.strip(), body.rstrip("\n")

    def _echo_big(self, tag):
        """20 MB through the echo service over IPv6, byte-exact; the
        counters lib/tcp moved."""
        self.big_out = os.path.join(log_dir(), f"ipv6_out_{self.node.tag}_{tag}.bin")
        before = self.app.tcp_stats()
        out = self.tb.peer(f"/usr/bin/python3 {TCP_CLIENT} file {EWYK_IP6} "
                           f"{ECHO_PORT} {self.big} {self.big_out} 100",
                           timeout=150).stdout
        after = self.app.tcp_stats()
        os.unlink(self.big_out)
        r = json.loads(out.strip().splitlines()[-1])
        assert r["err"] is None and r["eof"], (r, self.app.log()[-2000:])
        assert r["sent"] == BIG and r["received"] == BIG, r
        assert r["sha256"] == self.big_sha, r
        d = counter_delta(before, after)
        assert d.get("bytes_in") == BIG and d.get("bytes_out", 0) >= BIG, d
        return r, d

    def _assert_still_pinging(self):
        self._ping6(EWYK_IP6, 3, 0.05)

    def _send(self, frames, bpf, timeout=0.7):
        hexes = " ".join(bytes(f).hex() for f in frames)
        out = self.tb.node.run(
            f"{sys.executable} {SCAPY_PEER} {self.tb.if_peer} {timeout} "
            f"'{bpf}' {hexes}", ns=self.tb.ns_peer, timeout=60).stdout
        return json.loads(out)

    def _eth(self, dst=None):
        return Ether(src=self.peer_mac, dst=dst or self.ewyk_mac)

    def _ip6(self, src=PEER_IP6, dst=EWYK_IP6, **kw):
        return IPv6(src=src, dst=dst, **kw)

    def _echo(self, seq=1):
        return ICMPv6EchoRequest(id=TEST_ID, seq=seq, data=b"x" * 32)

    def _reply_filter(self):
        # What the crafted frames could provoke: echo replies with the
        # test's id, ICMPv6 errors, advertisements. Late replies to the
        # health-check pings (another id) do not count.
        return (f"ether src {self.ewyk_mac} and icmp6 and "
                f"((ip6[40] = 129 and ip6[44:2] = {TEST_ID}) "
                f"or ip6[40] < 128 or ip6[40] = 136)")

    def _assert_dropped(self, frames, counter, n=None, replies=0):
        """The frames bump `counter` by n and provoke `replies` replies;
        ewyk lives and ping -6 is answered. Returns scapy_peer's result."""
        n = len(frames) if n is None else n
        before = self.app.net_stats()
        res = self._send(frames, self._reply_filter())
        settle(0.2)
        after = self.app.net_stats()
        moved = counter_delta(before, after)
        assert res["matched"] == replies, (res["summaries"], moved)
        assert after[counter] - before[counter] == n, (
            f"{counter}: {before[counter]} -> {after[counter]}, expected +{n}; moved: {moved}")
        assert self.app.alive(), self.app.log()
        self._assert_still_pinging()
        return res

    # -- start-up ---------------------------------------------------------
    def test_port_line_shows_both_addresses(self):
        # The port line: the IPv4 address, then the IPv6 ones, the
        # link-local one (from the MAC) first.
        assert self.port_addrs == [f"{EWYK_IP}/24", f"{self.ewyk_ll}/64",
                                   f"{EWYK_IP6}/{PREFIX6}"], self.port_addrs

    # -- echo -------------------------------------------------------------
    @pytest.mark.parametrize("size", [56, 1000, 1452])
    def test_ping6_global(self, size):
        # 1452 + 8 (ICMPv6) + 40 (IPv6) = 1500: the largest the MTU allows.
        out = self._ping6(EWYK_IP6, 5, 0.05, size=size)
        assert f"{size + 8} bytes from {EWYK_IP6}" in out, out

    @pytest.mark.parametrize("size", [56, 1000, 1452])
    def test_ping6_link_local(self, size):
        dst = f"{self.ewyk_ll}%{self.tb.if_peer}"
        out = self._ping6(dst, 5, 0.05, size=size)
        assert f"{size + 8} bytes from {self.ewyk_ll}" in out, out

    def test_ping6_200(self):
        self._ping6(EWYK_IP6, 200, 0.005)

    # -- neighbour discovery ----------------------------------------------
    def test_ndisc6(self):
        if shutil.which("ndisc6") is None:
            pytest.skip("ndisc6 not installed (Debian package ndisc6)")
        before = self.app.net_stats()["nd_solicit_rx"]
        out = self.tb.peer(f"ndisc6 -1 -r 3 -w 1000 {EWYK_IP6} "
                           f"{self.tb.if_peer}", check=False).stdout
        m = re.search(r"Target link-layer address: ([0-9A-Fa-f:]{17})", out)
        assert m, out
        assert m.group(1).lower() == self.ewyk_mac
        assert self.app.net_stats()["nd_solicit_rx"] > before

    def test_solicitation_answered(self):
        # A solicitation for our global address to its solicited-node
        # group: a solicited advertisement with our MAC comes back.
        grp, grp_mac = solicited_node(EWYK_IP6)
        ns = (self._eth(grp_mac) / self._ip6(dst=grp, hlim=255) /
              ICMPv6ND_NS(tgt=EWYK_IP6) / ICMPv6NDOptSrcLLAddr(lladdr=self.peer_mac))
        before = self.app.net_stats()
        res = self._send([ns], f"ether src {self.ewyk_mac} and icmp6 and ip6[40] = 136")
        after = self.app.net_stats()
        assert res["matched"] == 1, res["summaries"]
        na = Ether(bytes.fromhex(res["frames"][0]))
        assert na[ICMPv6ND_NA].tgt == EWYK_IP6
        assert na[ICMPv6ND_NA].S == 1 and na[ICMPv6ND_NA].O == 1
        assert na[ICMPv6NDOptDstLLAddr].lladdr == self.ewyk_mac
        assert after["nd_solicit_rx"] - before["nd_solicit_rx"] == 1
        assert after["nd_advert_tx"] - before["nd_advert_tx"] >= 1

    def test_kernel_neighbour_table(self):
        # After traffic the kernel holds our address with our MAC; an
        # entry past its reachable time goes DELAY/PROBE, and ewyk's
        # answer to the probe brings it back to REACHABLE.
        self._ping6(EWYK_IP6, 3, 0.05)

        def entry():
            return self.tb.peer(f"ip -6 neigh show {EWYK_IP6} dev {self.tb.if_peer}",
                                check=False).stdout.strip()

        ok = wait_for(lambda: re.search(r"\b(REACHABLE|STALE)\b", entry()),
                      timeout=15, interval=0.2)
        out = entry()
        assert ok, out
        assert f"lladdr {self.ewyk_mac}" in out, out

    # -- malformed IPv6 ---------------------------------------------------
    def test_truncated_header(self):
        # 20 bytes where the IPv6 header needs 40.
        frame = self._eth() / bytes(self._ip6() / self._echo())[:20]
        frame[Ether].type = 0x86DD
        self._assert_dropped([frame], "drop_ip6_truncated")

    def test_payload_length_beyond_frame(self):
        frame = self._eth() / self._ip6(plen=500) / self._echo()
        self._assert_dropped([frame], "drop_ip6_len")

    def test_extension_chain_at_the_bound_answered(self):
        # Eight destination options headers: the walk takes them all and
        # the echo inside is answered.
        pkt = self._ip6()
        for _ in range(8):
            pkt = pkt / IPv6ExtHdrDestOpt()
        before = self.app.net_stats()
        res = self._send([self._eth() / pkt / self._echo()], self._reply_filter())
        after = self.app.net_stats()
        assert res["matched"] == 1, res["summaries"]
        assert after["ip6_ext"] - before["ip6_ext"] == 8

    def test_extension_chain_beyond_the_bound(self):
        pkt = self._ip6()
        for _ in range(9):
            pkt = pkt / IPv6ExtHdrDestOpt()
        self._assert_dropped([self._eth() / pkt / self._echo()],
                             "drop_ip6_ext_limit")

    def test_routing_header_type0(self):
        # Type 0 with a segment left: parameter problem, code 0
        # (erroneous header field), pointing at the routing type (byte 42
        # of the packet: 40 of IPv6 header, then next header, length).
        frame = (self._eth() / self._ip6() /
                 IPv6ExtHdrRouting(type=0, segleft=1, addresses=["2001:db8::99"]) /
                 self._echo())
        before = self.app.net_stats()
        res = self._assert_dropped([frame], "drop_ip6_rh", replies=1)
        after = self.app.net_stats()
        assert after["icmp6_err_tx"] - before["icmp6_err_tx"] == 1
        err = Ether(bytes.fromhex(res["frames"][0]))
        assert err[IPv6].src == EWYK_IP6 and err[IPv6].dst == PEER_IP6
        icmp = bytes(err[IPv6].payload)
        assert icmp[0] == 4 and icmp[1] == 0, icmp[:8].hex()
        assert int.from_bytes(icmp[4:8], "big") == 42, icmp[:8].hex()

    def test_fragment(self):
        # No reassembly: a fragment (first of two) is dropped, silently.
        frame = (self._eth() / self._ip6() / IPv6ExtHdrFragment(m=1, id=7) /
                 self._echo())
        self._assert_dropped([frame], "drop_ip6_frag")

    def test_next_header_unknown(self):
        # A protocol nobody registered over IPv6 (SCTP, 132): parameter
        # problem, code 1 (unrecognised next header), pointing at the next
        # header field.
        frame = self._eth() / self._ip6(nh=132) / (b"\0" * 12)
        before = self.app.net_stats()
        res = self._assert_dropped([frame], "drop_ip6_proto", replies=1)
        after = self.app.net_stats()
        assert after["icmp6_err_tx"] - before["icmp6_err_tx"] == 1
        icmp = bytes(Ether(bytes.fromhex(res["frames"][0]))[IPv6].payload)
        assert icmp[0] == 4 and icmp[1] == 1, icmp[:8].hex()
        assert int.from_bytes(icmp[4:8], "big") == 6, icmp[:8].hex()

    # -- TCP and HTTP over IPv6 ---------------------------------------------
    def test_curl_global(self):
        code, body = self._curl(f"http://[{EWYK_IP6}]:80")
        assert (code, body) == ("200", "hello world"), (code, body)
        # The handler sees the client's IPv6 address (the runtime's copy).
        code, body = self._curl(f"http://[{EWYK_IP6}]:80", "/peer")
        assert code == "200", (code, body)
        addr, port = body.split()
        assert addr == PEER_IP6 and 0 < int(port) < 65536, body

    def test_curl_link_local(self):
        # The zone of a link-local address is the peer's interface (%25 is
        # the URL's way of writing %).
        url = f"http://[{self.ewyk_ll}%25{self.tb.if_peer}]:80"
        code, body = self._curl(url)
        assert (code, body) == ("200", "hello world"), (code, body)
        code, body = self._curl(url, "/peer")
        assert code == "200" and body.split()[0] == self.peer_ll, (code, body)

    def test_default_router(self):
        """The kernel peer as ewyk's default router (--gw6 PEER_IP6) for a
        second prefix: FAR_IP6 sits on the peer's loopback, off ewyk's
        /64, so every answer to it goes to the router's MAC through the
        router's neighbour entry; no frame is dropped for want of a
        route. curl from FAR_IP6 gets its address back from /peer."""
        nsp = self.tb.ns_peer
        self.node.run(f"ip -6 addr replace {FAR_IP6}/128 dev lo", ns=nsp)
        try:
            before = self.app.net_stats()
            r = self.tb.peer(
                f"curl -6 -g -s -m 10 --interface {FAR_IP6} "
                f"-w '\\n%{{http_code}}' 'http://[{EWYK_IP6}]:80/peer'",
                check=False, timeout=20)
            body, _, code = r.stdout.rpartition("\n")
            assert code.strip() == "200", (r.stdout, r.stderr)
            assert body.split()[0] == FAR_IP6, body
            # ping from the far address: the echo reply goes back too.
            out = self.tb.peer(f"{PING6} -c 3 -i 0.2 -I {FAR_IP6} {EWYK_IP6}",
                               check=False, timeout=30).stdout
            assert parse_ping(out)[1] >= 1, out
            d = counter_delta(before, self.app.net_stats())
            assert d.get("drop_no_route", 0) == 0, d
            # The router is in ewyk's neighbour table, seen from its side:
            # the kernel keeps ewyk's entry too.
            nb = self.tb.peer(f"ip -6 neigh show {EWYK_IP6}", check=False)
            assert self.ewyk_mac in nb.stdout.lower(), nb.stdout
        finally:
            self.node.run(f"ip -6 addr del {FAR_IP6}/128 dev lo", ns=nsp,
                          check=False)

    def test_peer_ipv4_beside(self):
        # The same route over IPv4: the handler sees the IPv4 peer.
        r = self.tb.peer(f"curl -4 -s -m 10 http://{EWYK_IP}/peer",
                         check=False, timeout=20)
        assert r.stdout.split()[0] == "198.18.0.1", (r.stdout, r.stderr)

    def test_wrk(self):
        if not have("wrk"):
            pytest.skip("wrk not installed")
        before = self.app.tcp_stats()
        out = self.tb.peer(f"wrk -t1 -c16 -d3s http://[{EWYK_IP6}]:80/",
                           timeout=60).stdout
        d = counter_delta(before, self.app.tcp_stats())
        assert "Socket errors" not in out, out
        assert "Non-2xx" not in out, out
        n = int(re.search(r"(\d+) requests in", out).group(1))
        assert n > 100, out
        assert d.get("passive_opens", 0) >= 16, d
        print(f"wrk over IPv6, 16 connections 3 s: {n} requests")

    def test_echo_20mb(self):
        r, d = self._echo_big("clean")
        print(f"20 MB echo over IPv6 in {r['secs']} s")

    def test_echo_20mb_loss(self):
        # 2% of the TCP packets dropped at random each way, by the peer's
        # nftables (its input is what ewyk sends).
        ns = self.tb.ns_peer
        self.node.run("nft add table ip6 ewykloss", ns=ns)
        try:
            for hook in ("input", "output"):
                self.node.run(f"nft 'add chain ip6 ewykloss {hook} {{ type "
                              f"filter hook {hook} priority 0; }}'", ns=ns)
                self.node.run(f"nft add rule ip6 ewykloss {hook} meta l4proto "
                              f"tcp numgen random mod 100 lt 2 drop", ns=ns)
            r, d = self._echo_big("loss")
        finally:
            self.node.run("nft delete table ip6 ewykloss", ns=ns, check=False)
        assert d.get("retrans_segs", 0) > 0, d
        print(f"20 MB echo over IPv6, 2% loss each way, in {r['secs']} s: "
              f"retrans_segs={d.get('retrans_segs')} "
              f"fast_retrans={d.get('fast_retrans', 0)} rto={d.get('rto', 0)}")

    def test_kernel_neighbour_reachable_after_tcp(self):
        # TCP's progress confirms the neighbour on the kernel's side: right
        # after a request it holds ewyk REACHABLE with ewyk's MAC.
        def entry():
            return self.tb.peer(f"ip -6 neigh show {EWYK_IP6} dev "
                                f"{self.tb.if_peer}", check=False).stdout.strip()

        def fresh():
            self._curl(f"http://[{EWYK_IP6}]:80")
            return "REACHABLE" in entry()

        assert wait_for(fresh, timeout=15, interval=0.5), entry()
        assert f"lladdr {self.ewyk_mac}" in entry(), entry()

    def test_tcp_bad_checksum(self):
        # A SYN over IPv6 whose checksum is wrong: lib/tcp drops and counts
        # it (drop_cksum), nothing comes back.
        syn = TCP(sport=40100, dport=80, flags="S", seq=1)
        syn.chksum = 0x1234
        before = self.app.tcp_stats()
        res = self._send([self._eth() / self._ip6() / syn],
                         f"ether src {self.ewyk_mac} and ip6 and tcp")
        d = counter_delta(before, self.app.tcp_stats())
        assert res["matched"] == 0, res["summaries"]
        assert d.get("drop_cksum") == 1, d

    def test_tcp_syn_closed_port(self):
        # RFC 9293 3.10.7.1 over IPv6: RST|ACK acknowledging the SYN.
        syn = TCP(sport=40101, dport=CLOSED_PORT, flags="S", seq=1000)
        before = self.app.tcp_stats()
        res = self._send([self._eth() / self._ip6() / syn],
                         f"ether src {self.ewyk_mac} and ip6 and tcp")
        d = counter_delta(before, self.app.tcp_stats())
        assert res["matched"] == 1, res["summaries"]
        rst = Ether(bytes.fromhex(res["frames"][0]))
        assert rst[IPv6].src == EWYK_IP6 and rst[IPv6].dst == PEER_IP6
        assert rst[TCP].flags == "RA" and rst[TCP].ack == 1001, rst.summary()
        assert d.get("drop_no_listener") == 1 and d.get("rst_out") == 1, d

    def test_y_packet_too_big(self):
        # Last but one: the path MTU it sets holds for ten minutes. On a
        # keep-alive connection, a packet-too-big (MTU 1280) between two
        # answers: the second one's packets all fit 1280 and it is whole.
        before = self.app.net_stats()
        out = self.tb.node.run(
            f"{sys.executable} {PMTU_PROBE} {self.tb.if_peer} {self.peer_mac} "
            f"{self.ewyk_mac} {PEER_IP6} {EWYK_IP6} 80 1280 200000",
            ns=self.tb.ns_peer, timeout=60).stdout
        r = json.loads(out.strip().splitlines()[-1])
        after = self.app.net_stats()
        assert r["ok"] == [True, True], r
        assert r["before"]["max"] > 1280, r
        assert 0 < r["after"]["max"] <= 1280, r
        assert after["icmp6_ptb_rx"] - before["icmp6_ptb_rx"] == 1, \
            counter_delta(before, after)
        print(f"packet-too-big 1280: largest packet {r['before']['max']} -> "
              f"{r['after']['max']} bytes")

    # -- malformed and hostile neighbour discovery ------------------------
    def test_na_flood_spoofed_targets(self):
        # Unsolicited advertisements (override set) for addresses ewyk
        # never asked about: taken in (nd_advert_rx), nothing learnt.
        frames = [self._eth("33:33:00:00:00:01") /
                  self._ip6(dst="ff02::1", hlim=255) /
                  ICMPv6ND_NA(tgt=f"2001:db8::{i + 0x100:x}", R=0, S=0, O=1) /
                  ICMPv6NDOptDstLLAddr(lladdr=f"02:00:00:00:{i >> 8:02x}:{i & 0xff:02x}")
                  for i in range(64)]
        # An exchange over TCP first: its progress confirms the peer's
        # entry (REACHABLE for 15 s at least), so no probe of ewyk's own,
        # answered by an advertisement, falls into the count.
        assert self._curl(f"http://[{EWYK_IP6}]:80")[0] == "200"
        before = self.app.net_stats()
        self._assert_dropped(frames, "nd_advert_rx")
        after = self.app.net_stats()
        assert after["nd_learnt"] == before["nd_learnt"], counter_delta(before, after)

    def test_na_invalid(self):
        # Advertisements failing RFC 4861 7.1.2: hop limit not 255, and
        # solicited flag on one to a group.
        frames = [self._eth() / self._ip6(hlim=64) /
                  ICMPv6ND_NA(tgt="2001:db8::77", S=1, O=1) /
                  ICMPv6NDOptDstLLAddr(lladdr="02:00:00:00:00:77"),
                  self._eth("33:33:00:00:00:01") / self._ip6(dst="ff02::1", hlim=255) /
                  ICMPv6ND_NA(tgt="2001:db8::78", S=1, O=1) /
                  ICMPv6NDOptDstLLAddr(lladdr="02:00:00:00:00:78")]
        self._assert_dropped(frames, "drop_nd_invalid")

    def test_ns_unspecified_source_not_solicited_node(self):
        # A DAD probe (source ::) must go to the target's solicited-node
        # group: to all-nodes or to our unicast address it is invalid.
        frames = [self._eth("33:33:00:00:00:01") /
                  self._ip6(src="::", dst="ff02::1", hlim=255) /
                  ICMPv6ND_NS(tgt=EWYK_IP6),
                  self._eth() / self._ip6(src="::", hlim=255) /
                  ICMPv6ND_NS(tgt=EWYK_IP6)]
        self._assert_dropped(frames, "drop_nd_invalid")

    # -- the option ---------------------------------------------------------
    @pytest.mark.parametrize("val", ["fe80::1/64", "2001:db8::2", "2001:db8::2/129",
                                     "ff02::1/64"])
    def test_bad_ip6_refused(self, val):
        cmd = (f"{httpd_binary()} -l 0 --no-huge -m 256 --no-pci --no-shconf "
               f"--no-telemetry --log-level=lib.eal:error --file-prefix=ewyk-badip6 "
               f"--vdev=net_null0 -- --ip 10.0.0.1/24 --ip6 {val}")
        p = self.node.run(cmd, check=False, timeout=60)
        assert p.returncode != 0, p.stdout + p.stderr
        assert f"error: --ip6 '{val}'" in p.stderr, p.stderr

    @pytest.mark.parametrize("val", ["2001:db9::1", "ff02::2", "::"])
    def test_bad_gw6_refused(self, val):
        """A router off the port's prefix (and not link-local), a group or
        :: is refused at start."""
        cmd = (f"{httpd_binary()} -l 0 --no-huge -m 256 --no-pci --no-shconf "
               f"--no-telemetry --log-level=lib.eal:error --file-prefix=ewyk-badgw6 "
               f"--vdev=net_null0 -- --ip 10.0.0.1/24 --ip6 2001:db8::2/64 "
               f"--gw6 {val}")
        p = self.node.run(cmd, check=False, timeout=60)
        assert p.returncode != 0, p.stdout + p.stderr
        assert "--gw6" in p.stdout + p.stderr, p.stdout + p.stderr

    def test_z_two_shards(self):
        """Two lcores, two queues over IPv6: af_packet has no RSS with
        ewyk's key, so each shard hands the other the segments of the
        IPv6 flows it owns (ewyk_tcp_flow_shard6). The suite's server is
        restarted as it was afterwards."""
        self.app.stop()
        app = EwykHttpd(self.tb, lcores="0-1", vdev_args="qpairs=2", app_args=[
            "--stats-interval", "0", "--ip6", f"{EWYK_IP6}/{PREFIX6}",
            "--echo-port", str(ECHO_PORT)], log_name="ewyk-httpd-ipv6-2shards").start()
        try:
            out = self.tb.peer(f"/usr/bin/python3 {TCP_CLIENT} many {EWYK_IP6} "
                               f"{ECHO_PORT} 60 20000 100", timeout=150).stdout
            r = json.loads(out.strip().splitlines()[-1])
            assert r["ok"] == 60, r
            s0 = app.telemetry("/ewyk/tcp/stats,0")
            s1 = app.telemetry("/ewyk/tcp/stats,1")
            net = app.net_stats()
            assert s0["passive_opens"] > 0 and s1["passive_opens"] > 0, (s0, s1)
            assert s0["passive_opens"] + s1["passive_opens"] == 60
            assert s0["bytes_in"] + s1["bytes_in"] == 60 * 20000
            assert net["inbox_rx"] > 0, net
            print(f"two shards over IPv6: {s0['passive_opens']} + "
                  f"{s1['passive_opens']} connections, {net['inbox_rx']} "
                  "frames through the inboxes")
        finally:
            app.stop()
            self._restart_app()

    def _restart_app(self):
        # On the class: each test runs on an instance of its own.
        type(self).app = EwykHttpd(self.tb, lcores="0", app_args=[
            "--stats-interval", "0", "--ip6", f"{EWYK_IP6}/{PREFIX6}",
            "--gw6", PEER_IP6, "--echo-port", str(ECHO_PORT)]).start()

    def _loadgen(self, args):
        lg = os.path.join(build_dir(), "app/loadgen/ewyk-loadgen")
        cmd = (f"taskset -c 0 {lg} -l 0 --no-pci "
               f"--file-prefix=ewyk-dts-{self.node.tag}-lg6 "
               f"--vdev=net_af_packet0,iface={self.tb.if_srv} "
               "--log-level=lib.eal:warning " + " ".join(eal_mem_args()) +
               f" -- --ip {EWYK_IP}/24 {args}")
        return self.node.run(cmd, ns=self.tb.ns_srv, check=False, timeout=60)

    def test_z_loadgen(self):
        """ewyk-loadgen over IPv6 from ewyk's end of the veth (the suite's
        server stopped meanwhile): --ip6 as its source, --target
        [2001:db8::1]:8086, nginx on the kernel peer."""
        if shutil.which("nginx") is None:
            pytest.skip("nginx (nginx-light) not installed")
        d = os.path.join(log_dir(), f"ipv6-nginx-{self.node.tag}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "nginx.conf"), "w") as f:
            f.write("worker_processes 1;\ndaemon off;\n"
                    f"pid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n"
                    "events { worker_connections 1024; }\nhttp {\n"
                    "    access_log off;\n    server {\n"
                    f"        listen [{PEER_IP6}]:8086;\n"
                    "        keepalive_requests 1000000;\n"
                    '        location / { return 200 "hello world\\n"; }\n'
                    "    }\n}\n")
        nginx = self.node.spawn(["taskset", "-c", "1", "nginx", "-c",
                                 os.path.join(d, "nginx.conf")],
                                ns=self.tb.ns_peer,
                                log_path=os.path.join(d, "out.log"))
        self.app.stop()
        try:
            assert wait_for(lambda: self.tb.peer(
                f"curl -6 -g -s -m 1 http://[{PEER_IP6}]:8086/",
                check=False).stdout == "hello world\n", timeout=10)
            p = self._loadgen(f"--ip6 {EWYK_IP6}/{PREFIX6} --target "
                              f"[{PEER_IP6}]:8086 --conns 8 --duration 1 --quiet")
            assert p.returncode == 0, p.stderr[-2000:]
            r = json.loads(p.stdout.strip().splitlines()[-1])
            assert r["errors"] == 0 and r["responses_total"] > 100, r
            print(f"ewyk-loadgen over IPv6 against nginx: {r['rps']:.0f} req/s")
            # Without an --ip6 there is no source: refused at start.
            p = self._loadgen(f"--target [{PEER_IP6}]:8086 --conns 1 --duration 1")
            assert p.returncode != 0 and "--ip6" in p.stderr, p.stderr
            for bad in ("[2001:db8::1]", "[2001:db8::1:80", "[ff02::1]:80",
                        "[::]:80", "[2001:db8::1]:0"):
                p = self._loadgen(f"--ip6 {EWYK_IP6}/{PREFIX6} --target "
                                  f"'{bad}' --conns 1 --duration 1")
                assert p.returncode != 0 and "error: --target" in p.stderr, \
                    (bad, p.stderr)
        finally:
            self.node.stop(nginx)
            self._restart_app()

    def test_z_listen_one_address(self):
        """ewyk-httpd with ``--listen EWYK_IP6``: its HTTP listener takes
        that address only (lib/tcp's ewyk_tcp_listen6()). curl to it is
        served; to the port's link-local address and to its IPv4 address
        the SYN gets a RST (curl: connection refused), counted as
        drop_no_listener, and the server keeps serving."""
        self.app.stop()
        app = EwykHttpd(self.tb, lcores="0", log_name="ewyk-httpd-listen6",
                        app_args=["--stats-interval", "0", "--ip6",
                                  f"{EWYK_IP6}/{PREFIX6}", "--gw6", PEER_IP6,
                                  "--listen", EWYK_IP6])
        try:
            app.start()
            assert self._curl(f"http://[{EWYK_IP6}]:80") == \
                ("200", "hello world"), app.log()[-2000:]
            before = app.tcp_stats()
            ll = f"http://[{self.ewyk_ll}%25{self.tb.if_peer}]:80"
            r = self.tb.peer(f"curl -6 -g -s -m 10 '{ll}/'", check=False,
                             timeout=20)
            assert r.returncode == 7, (r.returncode, r.stdout, r.stderr)
            r = self.tb.peer(f"curl -4 -s -m 10 http://{EWYK_IP}/",
                             check=False, timeout=20)
            assert r.returncode == 7, (r.returncode, r.stdout, r.stderr)
            d = counter_delta(before, app.tcp_stats())
            assert d.get("drop_no_listener", 0) >= 2, d
            assert d.get("passive_opens", 0) == 0, d
            assert self._curl(f"http://[{EWYK_IP6}]:80") == \
                ("200", "hello world")
            assert app.stop() == 0, app.log()[-2000:]
            # Not an address of ours: refused at start.
            bad = EwykHttpd(self.tb, lcores="0", log_name="ewyk-httpd-listen6",
                            app_args=["--ip6", f"{EWYK_IP6}/{PREFIX6}",
                                      "--listen", "2001:db8::99"])
            with pytest.raises(RuntimeError):
                bad.start(timeout=15)
            bad.stop()
            assert "--listen: not an address of a port" in bad.log(), \
                bad.log()[-2000:]
        finally:
            app.stop()
            self._restart_app()

    # -- after all of it (pytest runs a class's tests in this order) ------
    def test_zz_still_serving(self):
        self._ping6(EWYK_IP6, 5, 0.05)
        self._ping6(f"{self.ewyk_ll}%{self.tb.if_peer}", 5, 0.05)
        # HTTP over both families.
        r = self.tb.peer(f"curl -s -m 10 -o /dev/null -w '%{{http_code}}' "
                         f"http://{EWYK_IP}/", check=False, timeout=15)
        assert r.stdout.strip() == "200", (r.stdout, r.stderr)
        assert self._curl(f"http://[{EWYK_IP6}]:80") == ("200", "hello world")
        assert self.app.alive(), self.app.log()

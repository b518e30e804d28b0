# SPDX-License-Identifier: BSD-3-Clause
"""L2/L3 of ewyk against the Linux kernel: ping, arping, malformed frames.

ewyk-httpd runs on one lcore (core 0) on one end of a veth pair through
net_af_packet; the kernel peer and its tools run on core 1.
"""

import json
import os
import re
import subprocess
import sys

from scapy.all import ARP, ICMP, IP, TCP, Dot1Q, Ether, Raw, fragment  # noqa: E402

from framework.ewyk import (EWYK_IP, PEER_IP, EwykHttpd, Testbed, httpd_binary,
                            parse_ping, settle)
from framework.node import wait_for
from framework.telemetry import counter_delta
from framework.test_suite import TestSuite

SCAPY_PEER = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "scapy_peer.py")
# A TCP client that makes ewyk hold many mbufs at once (peer namespace).
HOLD_CLIENT = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "hold_client.py")


# An address of the peer off ewyk's subnet, on the peer's loopback: ewyk
# reaches it only through its default gateway (--gw PEER_IP).
FAR_IP = "203.0.113.7"
# ICMP id of every crafted echo, and the sender address of crafted ARP.
TEST_ID = 0x4242
TEST_ARP_SRC = "198.18.0.50"
TEST_ARP_SRC_HEX = "0xc6120032"
# Generous reply timeouts: the box is small and may be busy; a late reply
# is still a reply.
PING = "ping -W 3"


def ping_all(tb, app, count, interval, size=None, extra="", attempts=3):
    """One ping run of `count` echoes fully answered: ping receives every
    reply and ewyk counted exactly `count` echo requests. Repeated up to
    `attempts` times when a run loses something (load elsewhere on the box
    can delay a reply past ping's deadline, or overflow af_packet's ring
    before ewyk sees the frame); returns ping's output of the clean run."""
    opts = f"-c {count} -i {interval}" + (f" -s {size}" if size else "")
    runs = []
    for _ in range(attempts):
        before = app.net_stats()["icmp_echo_rx"]
        out = tb.peer(f"{PING} {opts} {extra} {EWYK_IP}", check=False,
                      timeout=120).stdout
        seen = app.net_stats()["icmp_echo_rx"] - before
        tx, rx = parse_ping(out)
        if (tx, rx, seen) == (count, count, count):
            return out
        runs.append({"sent": tx, "replies": rx, "ewyk_echo_rx": seen})
    raise AssertionError(f"no clean run of {count} echoes in {attempts}: {runs}")


class TestSuite_l3(TestSuite):

    def set_up_all(self):
        self.tb = Testbed(self.node)
        self.app = EwykHttpd(self.tb, lcores="0",
                             app_args=["--stats-interval", "0",
                                       "--gw", PEER_IP]).start()
        self.peer_mac = self.tb.peer_mac()
        # Learn ewyk's MAC the way any host does.
        out = self.tb.peer(f"arping -c 1 -w 3 -I {self.tb.if_peer} {EWYK_IP}").stdout
        m = re.search(r"\[([0-9A-Fa-f:]{17})\]", out)
        assert m, out
        self.ewyk_mac = m.group(1).lower()

    # -- helpers ----------------------------------------------------------
    def _send(self, frames, bpf, timeout=0.7):
        hexes = " ".join(bytes(f).hex() for f in frames)
        out = self.tb.node.run(
            f"{sys.executable} {SCAPY_PEER} {self.tb.if_peer} {timeout} "
            f"'{bpf}' {hexes}", ns=self.tb.ns_peer, timeout=60).stdout
        return json.loads(out)

    def _eth(self):
        return Ether(src=self.peer_mac, dst=self.ewyk_mac)

    def _echo(self, ident=TEST_ID, **ipkw):
        return IP(src=PEER_IP, dst=EWYK_IP, **ipkw) / ICMP(id=ident, seq=1) / Raw(b"x" * 32)

    def _reply_filter(self):
        # Only what the crafted frames could provoke: echo replies with the
        # test's ICMP id, ARP replies about the test's sender address. Late
        # replies to the health-check pings must not count.
        return (f"ether src {self.ewyk_mac} and ((icmp and icmp[4:2] = {TEST_ID}) "
                f"or (arp and arp[24:4] = {TEST_ARP_SRC_HEX}))")

    def _ping_all(self, count, interval, size=None, extra="", attempts=3):
        """Every echo request of one ping run is answered: ping gets
        count of count replies and ewyk counts exactly count echo requests
        in. On this shared 2-core box a burst of load elsewhere can delay
        a reply past ping's deadline or overflow the af_packet ring before
        ewyk sees the frame; such a run is repeated (up to `attempts`),
        and one clean run of the whole flood is required."""
        return ping_all(self.tb, self.app, count, interval, size, extra,
                        attempts)

    def _assert_still_pinging(self):
        """3 of 3 echoes answered. One retry: on this 2-core box a burst of
        load from elsewhere can delay a reply past ping's timeout, which is
        not the wedged process this check is for."""
        res = parse_ping(self.tb.peer(f"{PING} -c 3 -i 0.05 {EWYK_IP}",
                                      check=False).stdout)
        if res != (3, 3):
            res = parse_ping(self.tb.peer(f"{PING} -c 3 -i 0.05 {EWYK_IP}",
                                          check=False).stdout)
        assert res == (3, 3), res

    def _assert_dropped(self, frames, counter, n=None):
        """Frames produce no reply, bump `counter` by n, app lives, ping works."""
        n = len(frames) if n is None else n
        before = self.app.net_stats()
        res = self._send(frames, self._reply_filter())
        settle(0.2)
        after = self.app.net_stats()
        assert res["matched"] == 0, f"unexpected replies: {res['summaries']}"
        moved = counter_delta(before, after)
        assert after[counter] - before[counter] == n, (
            f"{counter}: {before[counter]} -> {after[counter]}, expected +{n}; moved: {moved}")
        assert after["rx_pkts"] - before["rx_pkts"] >= n
        assert self.app.alive(), self.app.log()
        self._assert_still_pinging()

    # -- functional tests -------------------------------------------------
    def test_ping_200(self):
        self._ping_all(200, 0.005)

    def test_ping_large_payload(self):
        out = self._ping_all(20, 0.01, size=1400)
        assert "1408 bytes from" in out

    def test_ping_mtu_sized_payload(self):
        # 1472 + 8 (ICMP) + 20 (IP) = 1500: the largest echo the MTU allows.
        self._ping_all(5, 0.05, size=1472, extra="-M do")

    def test_arping(self):
        before = self.app.net_stats()
        out = self.tb.peer(f"arping -c 3 -w 5 -I {self.tb.if_peer} {EWYK_IP}").stdout
        assert "Received 3 response" in out, out
        assert self.ewyk_mac.lower() in out.lower()
        after = self.app.net_stats()
        assert after["arp_reply_tx"] - before["arp_reply_tx"] == 3

    def test_stats_telemetry_and_tool(self):
        # The counters move by the traffic this test sends: 30 echoes in,
        # 30 replies out (more only if the kernel adds ARP of its own).
        before = self.app.telemetry("/ewyk/stats")
        self._ping_all(30, 0.01)
        st = self.app.telemetry("/ewyk/stats")
        assert {"total", "lcore_0"} <= set(st), st.keys()
        for k in ("rx_pkts", "tx_pkts"):
            d = st["total"][k] - before["total"][k]
            assert d >= 30, (k, d)
            assert st["lcore_0"][k] - before["lcore_0"][k] == d, k
        assert st["lcore_0"]["loop_iterations"] > before["lcore_0"]["loop_iterations"]
        # The stock client reads the same figures.
        out = self.tb.node.run(
            f"echo /ewyk/stats | dpdk-telemetry.py -f {self.app.prefix}").stdout
        tool = json.loads(out[out.index("{"):])["/ewyk/stats"]
        assert tool["total"]["rx_pkts"] >= st["total"]["rx_pkts"], (tool, st)

    # -- malformed input: dropped, counted, no reply, still serving -------
    def test_bad_ip_checksum(self):
        p = self._eth() / self._echo(chksum=0x1234)
        self._assert_dropped([p] * 3, "drop_ip_cksum")

    def test_ihl_below_5(self):
        raw = bytearray(bytes(self._eth() / self._echo()))
        raw[14] = 0x44  # version 4, IHL 4
        self._assert_dropped([bytes(raw)], "drop_ip_ihl")

    def test_total_length_beyond_frame(self):
        p = self._eth() / self._echo(len=1200)
        self._assert_dropped([p], "drop_ip_len")

    def test_fragments(self):
        # DPDK 22.11's net_af_packet joins a PACKET_FANOUT group with
        # PACKET_FANOUT_FLAG_DEFRAG, hard-wired: the kernel reassembles
        # fragments before ewyk sees them. Over this vdev a fragmented
        # datagram therefore reaches ewyk whole (here: an unknown protocol,
        # dropped and counted as such). The drop_ip_frag path itself is
        # covered by tests/unit/test_net_malformed.c, which feeds fragments directly.
        payload = b"f" * 64
        whole = IP(src=PEER_IP, dst=EWYK_IP, proto=253, id=777) / Raw(payload)
        frags = [self._eth() / f for f in fragment(whole, fragsize=32)]
        assert len(frags) == 2
        before = self.app.net_stats()
        res = self._send(frags, self._reply_filter())
        settle(0.2)
        after = self.app.net_stats()
        assert res["matched"] == 0
        frag = after["drop_ip_frag"] - before["drop_ip_frag"]
        proto = after["drop_ip_proto"] - before["drop_ip_proto"]
        assert (frag, proto) in ((2, 0), (0, 1)), (frag, proto)
        assert self.app.alive()
        self._assert_still_pinging()

    def test_unknown_protocol(self):
        p = self._eth() / IP(src=PEER_IP, dst=EWYK_IP, proto=253) / Raw(b"z" * 20)
        self._assert_dropped([p], "drop_ip_proto")

    def test_truncated_ip_header(self):
        raw = bytes(self._eth() / self._echo())[:14 + 12]
        self._assert_dropped([raw], "drop_ip_truncated")

    def test_truncated_icmp(self):
        p = self._eth() / IP(src=PEER_IP, dst=EWYK_IP, proto=1) / Raw(b"\x08\x00\x00")
        self._assert_dropped([p], "drop_icmp_truncated")

    def test_bad_icmp_checksum(self):
        p = self._eth() / IP(src=PEER_IP, dst=EWYK_IP) / ICMP(id=TEST_ID, chksum=0xbeef) / Raw(b"q" * 8)
        self._assert_dropped([p], "drop_icmp_cksum")

    def test_ip_version_6_in_ipv4_frame(self):
        raw = bytearray(bytes(self._eth() / self._echo()))
        raw[14] = 0x65
        self._assert_dropped([bytes(raw)], "drop_ip_version")

    def test_ttl_zero(self):
        p = self._eth() / self._echo(ttl=0)
        self._assert_dropped([p], "drop_ip_ttl")

    def test_ip_for_someone_else(self):
        p = self._eth() / IP(src=PEER_IP, dst="198.18.0.77") / ICMP(id=TEST_ID) / Raw(b"y")
        self._assert_dropped([p], "drop_ip_not_ours")

    def test_unicast_to_other_mac(self):
        p = Ether(src=self.peer_mac, dst="02:00:00:00:00:99") / self._echo()
        self._assert_dropped([p], "drop_not_ours")

    def test_vlan_not_configured(self):
        p = self._eth() / Dot1Q(vlan=10) / self._echo()
        self._assert_dropped([p], "drop_vlan")

    def test_unknown_ethertype(self):
        p = self._eth() / Raw(b"\x00" * 46)
        p[Ether].type = 0x88b5  # IEEE local experimental
        self._assert_dropped([p], "drop_ethertype")

    def test_arp_for_someone_else(self):
        p = Ether(src=self.peer_mac, dst="ff:ff:ff:ff:ff:ff") / ARP(
            op=1, hwsrc=self.peer_mac, psrc=TEST_ARP_SRC, pdst="198.18.0.99")
        self._assert_dropped([p], "drop_arp_not_ours")

    def test_malformed_arp(self):
        good = Ether(src=self.peer_mac, dst="ff:ff:ff:ff:ff:ff") / ARP(
            op=1, hwsrc=self.peer_mac, psrc=TEST_ARP_SRC, pdst=EWYK_IP)
        bad_hlen = good.copy()
        bad_hlen[ARP].hwlen = 8
        truncated = bytes(good)[:14 + 20]
        self._assert_dropped([bad_hlen, truncated], "drop_arp_malformed")

    def test_arp_bad_opcode(self):
        p = Ether(src=self.peer_mac, dst="ff:ff:ff:ff:ff:ff") / ARP(
            op=9, hwsrc=self.peer_mac, psrc=TEST_ARP_SRC, pdst=EWYK_IP)
        self._assert_dropped([p], "drop_arp_op")

    def test_ethernet_header_only(self):
        # The kernel will not send a frame shorter than an Ethernet header
        # (runts are covered by the unit test); the shortest it sends is an
        # IPv4 EtherType with nothing after it.
        raw = bytes(self._eth())[:12] + b"\x08\x00"
        self._assert_dropped([raw], "drop_ip_truncated")

    def test_default_gateway(self):
        """The kernel peer as ewyk's default gateway (--gw PEER_IP) for an
        address off ewyk's subnet on the peer's loopback: every TCP segment
        to it goes to the gateway's MAC (ARP resolves the gateway, not the
        far host), so an HTTP exchange from the far address completes and
        the handler sees that address; nothing is dropped for want of a
        route."""
        nsp = self.tb.ns_peer
        self.node.run(f"ip addr replace {FAR_IP}/32 dev lo", ns=nsp)
        try:
            before = self.app.net_stats()
            r = self.tb.peer(
                f"curl -4 -s -m 10 --interface {FAR_IP} "
                f"-w '\\n%{{http_code}}' http://{EWYK_IP}/peer",
                check=False, timeout=20)
            body, _, code = r.stdout.rpartition("\n")
            assert code.strip() == "200", (r.stdout, r.stderr)
            assert body.split()[0] == FAR_IP, body
            d = counter_delta(before, self.app.net_stats())
            assert d.get("drop_no_route", 0) == 0, d
            # ewyk resolved its gateway: the kernel learnt ewyk's MAC from
            # the exchange (its ARP request, answered by the kernel).
            nb = self.tb.peer(f"ip neigh show {EWYK_IP}", check=False)
            assert self.ewyk_mac in nb.stdout.lower(), nb.stdout
        finally:
            self.node.run(f"ip addr del {FAR_IP}/32 dev lo", ns=nsp,
                          check=False)

    def test_bad_arguments(self):
        eal = (f"{httpd_binary()} -l 0 --no-huge -m 256 --no-pci --no-shconf "
               f"--no-telemetry --log-level=lib.eal:error --file-prefix=ewyk-badargs")
        null = "--vdev=net_null0"
        cases = [
            (f"{null} --", 2, "at least one --ip"),
            (f"{null} -- --ip 300.1.1.1/24", 2, "expected A.B.C.D/NN"),
            (f"{null} -- --ip 10.0.0.1/33", 2, "expected A.B.C.D/NN"),
            (f"{null} -- --ip 10.0.0.1", 2, "expected A.B.C.D/NN"),
            (f"{null} -- --ip 10.0.0.1/24 --stats-interval abc", 2, "--stats-interval"),
            (f"{null} -- --ip 10.0.0.1/24 --vlan 5000", 2, "--vlan"),
            (f"{null} -- --ip 10.0.0.1/24 --bogus", 2, "Usage"),
            (f"{null} -- --ip 10.0.0.1/24 --ip 10.0.1.1/24", 1, "1 port(s) but 2 --ip"),
            (f"{null} -- --ip 10.0.0.1/24 --gw 10.0.0", 2, "--gw '10.0.0'"),
            (f"{null} -- --ip 10.0.0.1/24 --gw 10.0.0.9/24", 2, "--gw"),
            (f"{null} -- --ip 10.0.0.1/24 --gw 10.0.0.9 --gw 10.0.0.8", 2,
             "at most one per port"),
            (f"{null} -- --ip 10.0.0.1/24 --gw 10.0.1.9", 1, "--gw 10.0.1.9"),
            (f"{null} -- --ip 10.0.0.1/24 --gw 10.0.0.1", 1, "--gw 10.0.0.1"),
            (f"{null} -- --ip 10.0.0.1/24 --gw 10.0.0.255", 1, "--gw"),
            (f"{null} -- --ip 10.0.0.1/24 --gw 224.0.0.1", 1, "--gw"),
            ("-- --ip 10.0.0.1/24", 1, "no ports"),
        ]
        for args, want_rc, want_msg in cases:
            p = self.node.run(f"{eal} {args}", check=False, timeout=60)
            out = p.stdout + p.stderr
            assert p.returncode == want_rc, (args, p.returncode, out)
            assert want_msg in out, (args, out)

    def test_zz_still_serving_and_clean_exit(self):
        # Last: after all of the above the process still answers, and
        # SIGINT gives the final stats and exit code 0.
        self._ping_all(20, 0.01)
        rc = self.app.stop()
        assert rc == 0, self.app.log()
        log = self.app.log()
        assert "Final per-lcore stats" in log
        assert "drops by reason" in log


class TestSuite_l3_multicore(TestSuite):
    """Two lcores, two af_packet queue pairs: every shard answers, ARP is
    shared, and the start-up gratuitous ARP reaches the peer."""

    def set_up_all(self):
        self.tb = Testbed(self.node)
        # Let the peer kernel create neighbour entries from gratuitous ARP
        # (arp_accept=1): the announcement ewyk sends at start-up then
        # shows up in its neighbour table, before anything else talks.
        self.node.run(f"sysctl -qw net.ipv4.conf.{self.tb.if_peer}.arp_accept=1",
                      ns=self.tb.ns_peer)
        self.app = EwykHttpd(self.tb, lcores="0-1", vdev_args="qpairs=2",
                             app_args=["--stats-interval", "0"],
                             log_name="ewyk-httpd-mc").start()

    def test_gratuitous_arp_at_start(self):
        # Runs first: no ping or arping has happened yet.
        m = re.search(r"mac ([0-9A-F:]{17})", self.app.log())
        assert m, self.app.log()
        neigh = wait_for(lambda: self.node.run(
            f"ip neigh show {EWYK_IP} dev {self.tb.if_peer}",
            ns=self.tb.ns_peer).stdout.strip(), timeout=5)
        assert m.group(1).lower() in neigh.lower(), neigh
        assert self.app.net_stats()["arp_req_tx"] >= 1

    def test_ping_both_shards(self):
        ping_all(self.tb, self.app, 100, 0.005)
        ping_all(self.tb, self.app, 20, 0.01, size=1400)

    def test_arping(self):
        out = self.tb.peer(f"arping -c 3 -w 5 -I {self.tb.if_peer} {EWYK_IP}").stdout
        assert "Received 3 response" in out, out

    def test_stats_per_lcore(self):
        # 40 echoes: the per-lcore rows add up to the total, and the total
        # moved by at least what was sent. (af_packet spreads frames over
        # its queues by its own hash: which lcore got them is not fixed.)
        before = self.app.telemetry("/ewyk/stats")
        ping_all(self.tb, self.app, 40, 0.01)
        st = self.app.telemetry("/ewyk/stats")
        assert {"lcore_0", "lcore_1", "total"} <= set(st), st.keys()
        for k in ("rx_pkts", "tx_pkts"):
            total = sum(st[lc][k] for lc in ("lcore_0", "lcore_1"))
            assert st["total"][k] == total, (k, st)
            assert total - before["total"][k] >= 40, (k, before, st)

    def test_zz_clean_exit(self):
        assert self.app.stop() == 0, self.app.log()
        log = self.app.log()
        assert "Final per-lcore stats" in log
        # One row per lcore plus the total.
        final = log[log.index("Final per-lcore stats"):]
        assert any(r.startswith("0 ") for r in final.splitlines())
        assert any(r.startswith("1 ") for r in final.splitlines())
        assert any(r.startswith("total") for r in final.splitlines())


class TestSuite_l3_vlan(TestSuite):
    """--vlan 100: frames tagged with VLAN 100 are served and answered
    tagged; untagged ones are dropped and counted. (The kernel here has no
    8021q module, so the peer's tagged frames are crafted with scapy.)"""

    def set_up_all(self):
        self.tb = Testbed(self.node)
        self.app = EwykHttpd(self.tb, app_args=["--stats-interval", "0",
                                                "--vlan", "100"],
                             log_name="ewyk-httpd-vlan").start()
        m = re.search(r"mac ([0-9A-F:]{17})", self.app.log())
        assert m, self.app.log()
        self.ewyk_mac = m.group(1).lower()
        self.peer_mac = self.tb.peer_mac()

    def _send(self, frames, bpf, expect=None):
        # expect: the number of answers awaited (up to scapy_peer's
        # deadline), then 0.7 s more in which any extra one is counted.
        hexes = " ".join(bytes(f).hex() for f in frames)
        opt = "" if expect is None else f"--expect {expect} "
        out = self.tb.node.run(
            f"{sys.executable} {SCAPY_PEER} {opt}{self.tb.if_peer} 0.7 "
            f"'{bpf}' {hexes}",
            ns=self.tb.ns_peer, timeout=90).stdout
        return json.loads(out)

    def test_tagged_arp_and_ping(self):
        eth = Ether(src=self.peer_mac, dst=self.ewyk_mac)
        arp = Ether(src=self.peer_mac, dst="ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=100) / ARP(
            op=1, hwsrc=self.peer_mac, psrc=PEER_IP, pdst=EWYK_IP)
        # (A BPF "vlan 100" misses tags the receiving kernel moved to
        # metadata; match on the source and read the tag from the decode.)
        res = self._send([arp], f"ether src {self.ewyk_mac}", expect=1)
        assert res["matched"] == 1, res
        assert res["summaries"][0].startswith("Ether / Dot1Q / ARP is at"), res
        echoes = [eth / Dot1Q(vlan=100) / IP(src=PEER_IP, dst=EWYK_IP) /
                  ICMP(id=TEST_ID, seq=i) / Raw(b"v" * 100) for i in range(5)]
        res = self._send(echoes, f"ether src {self.ewyk_mac}", expect=5)
        assert res["matched"] == 5, res
        assert all(x.startswith("Ether / Dot1Q / IP / ICMP 198.18.0.2 > 198.18.0.1 echo-reply")
                   for x in res["summaries"]), res

    @staticmethod
    def _tagged_tcp(raw):
        """A frame ewyk sent on the VLAN, decoded: tagged with 100, and
        its IPv4 and TCP checksums the ones scapy computes afresh."""
        p = Ether(bytes.fromhex(raw))
        assert p.haslayer(Dot1Q) and p[Dot1Q].vlan == 100, p.summary()
        assert p[Ether].type == 0x8100 and p[Dot1Q].type == 0x0800, p.summary()
        ip, tcp = p[IP], p[TCP]
        got = (ip.chksum, tcp.chksum)
        q = p.copy()
        del q[IP].chksum
        del q[TCP].chksum
        q = Ether(bytes(q))
        assert (q[IP].chksum, q[TCP].chksum) == got, (p.summary(), got)
        assert ip.src == EWYK_IP and ip.dst == PEER_IP and ip.ttl == 64
        return p

    def test_tagged_tcp_from_template(self):
        """TCP on the VLAN: the SYN-ACKs and the HTTP response come from
        the destination's prebuilt header (the peer's MAC is known from
        its ARP request), tagged, with right checksums and the
        timestamps option written in place."""
        eth = Ether(src=self.peer_mac, dst=self.ewyk_mac) / Dot1Q(vlan=100)
        arp = Ether(src=self.peer_mac, dst="ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=100) / ARP(
            op=1, hwsrc=self.peer_mac, psrc=PEER_IP, pdst=EWYK_IP)
        res = self._send([arp], f"ether src {self.ewyk_mac}", expect=1)
        assert res["matched"] == 1, res
        opts = [("MSS", 1460), ("SAckOK", b""), ("Timestamp", (1000, 0)),
                ("WScale", 7)]
        syns = [eth / IP(src=PEER_IP, dst=EWYK_IP) /
                TCP(sport=41000 + i, dport=80, flags="S", seq=7000 * (i + 1),
                    options=opts) for i in range(2)]
        res = self._send(syns, f"ether src {self.ewyk_mac} and tcp", expect=2)
        assert res["matched"] == 2, res
        isn = {}
        for raw in res["frames"]:
            p = self._tagged_tcp(raw)
            tcp = p[TCP]
            assert tcp.flags == "SA" and tcp.sport == 80, p.summary()
            assert tcp.ack == 7000 * (tcp.dport - 41000 + 1) + 1, p.summary()
            isn[tcp.dport] = (tcp.seq, dict(tcp.options)["Timestamp"][0])
        assert set(isn) == {41000, 41001}, isn
        # The handshake's last ACK carries the request on the first
        # connection; the second is reset.
        seq0, ts0 = isn[41000]
        req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        get = eth / IP(src=PEER_IP, dst=EWYK_IP) / TCP(
            sport=41000, dport=80, flags="PA", seq=7001, ack=seq0 + 1,
            window=4096, options=[("NOP", None), ("NOP", None),
                                  ("Timestamp", (1001, ts0))]) / Raw(req)
        rst = eth / IP(src=PEER_IP, dst=EWYK_IP) / TCP(
            sport=41001, dport=80, flags="R", seq=14001)
        res = self._send([get, rst], f"ether src {self.ewyk_mac} and tcp",
                         expect=1)
        data = [self._tagged_tcp(raw) for raw in res["frames"]]
        data = [p for p in data if len(p[TCP].payload) > 0]
        assert len(data) >= 1, res
        tcp = data[0][TCP]
        assert tcp.dport == 41000 and tcp.seq == seq0 + 1, data[0].summary()
        assert tcp.ack == 7001 + len(req), data[0].summary()
        assert tcp.options[:2] == [("NOP", None), ("NOP", None)], tcp.options
        assert dict(tcp.options)["Timestamp"][1] == 1001, tcp.options
        assert bytes(tcp.payload).startswith(b"HTTP/1.1 200"), bytes(tcp.payload)
        end = eth / IP(src=PEER_IP, dst=EWYK_IP) / TCP(
            sport=41000, dport=80, flags="R", seq=7001 + len(req))
        self._send([end], f"ether src {self.ewyk_mac}")
        assert self.app.alive()

    def test_untagged_and_other_vlan_dropped(self):
        before = self.app.net_stats()["drop_vlan"]
        eth = Ether(src=self.peer_mac, dst=self.ewyk_mac)
        frames = [eth / IP(src=PEER_IP, dst=EWYK_IP) / ICMP(id=TEST_ID) / Raw(b"u"),
                  eth / Dot1Q(vlan=200) / IP(src=PEER_IP, dst=EWYK_IP) /
                  ICMP(id=TEST_ID) / Raw(b"w")]
        res = self._send(frames, f"ether src {self.ewyk_mac}")
        assert res["matched"] == 0, res
        settle(0.2)
        assert self.app.net_stats()["drop_vlan"] - before == 2
        assert self.app.alive()


class TestSuite_l3_ewyk_mempool(TestSuite):
    """ewyk-httpd's mbufs on lib/pool through the "ewyk" mempool driver
    (--mbuf-ops ewyk): traffic passes and the pool's counters move."""

    def set_up_all(self):
        self.tb = Testbed(self.node)
        self.app = EwykHttpd(self.tb, app_args=["--stats-interval", "0",
                                                "--mbuf-ops", "ewyk",
                                                "--echo-port", "7"],
                             log_name="ewyk-httpd-mp").start()

    def test_ops_in_use(self):
        assert "mbuf pools on mempool ops 'ewyk'" in self.app.log()

    def _mbuf_pool(self):
        """The telemetry stats of the lib/pool pool behind the mbufs."""
        pools = self.app.telemetry("/ewyk/pool/list")
        names = pools if isinstance(pools, list) else list(pools)
        name = [n for n in names if "ewyk_mbuf_0" in n]
        assert len(name) == 1, pools
        return self.app.telemetry(f"/ewyk/pool/stats,{name[0]}")

    def test_ping_through_ewyk_pool(self):
        out = ping_all(self.tb, self.app, 200, 0.005)
        assert "200 received" in out
        ping_all(self.tb, self.app, 20, 0.01, size=1400)

    def test_pool_counters_move(self):
        # DPDK's per-lcore mempool cache (256 mbufs, ewyk-httpd's setting)
        # sits in front of the driver: a ping run allocates and frees one
        # mbuf at a time and never gets past it, so lib/pool's counters do
        # not move for pings. They move when ewyk holds more mbufs than the
        # cache has: here ~440 KB of echo data (~300 segments) it cannot
        # send yet, held until the client reads. Then the cache refills
        # from lib/pool (gets) and flushes back to it (puts).
        size = 450000
        before = self._mbuf_pool()
        tcp0 = self.app.telemetry("/ewyk/tcp/stats")
        proc = subprocess.Popen(
            ["ip", "netns", "exec", self.tb.ns_peer, "taskset", "-c", "1",
             "/usr/bin/python3", HOLD_CLIENT, EWYK_IP, "7", str(size)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            shut = proc.stdout.readline().strip()
            # ewyk has all the data once it has the FIN behind it.
            held = shut == "SHUT" and wait_for(
                lambda: self.app.telemetry("/ewyk/tcp/stats")[
                    "state_close_wait"] >= 1, timeout=20, interval=0.05)
            out, _ = proc.communicate(input="go\n", timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert shut == "SHUT" and held, (shut, out)
        assert int(out.strip().splitlines()[-1]) == size, out
        tcp1 = self.app.telemetry("/ewyk/tcp/stats")
        assert tcp1["bytes_in"] - tcp0["bytes_in"] == size
        after = self._mbuf_pool()
        gets = sum(after[k] - before[k] for k in ("get_hits", "get_misses"))
        puts = sum(after[k] - before[k] for k in ("put_cached", "put_shared"))
        assert gets > 0 and puts > 0, (before, after)
        assert after["exhausted"] == before["exhausted"], (before, after)
        print(f"lib/pool under the mbufs: {gets} gets, {puts} puts")

    def test_bad_ops_name(self):
        eal = (f"{httpd_binary()} -l 0 --no-huge -m 256 --no-pci --no-shconf "
               f"--no-telemetry --log-level=lib.eal:error --file-prefix=ewyk-badops "
               f"--vdev=net_null0 -- --ip 10.0.0.1/24 --mbuf-ops no_such_ops")
        p = self.node.run(eal, check=False, timeout=60)
        assert p.returncode == 1, p.stdout + p.stderr
        # A runtime error is logged through rte_log (stdout and syslog).
        assert "ops no_such_ops" in p.stdout + p.stderr, p.stdout + p.stderr

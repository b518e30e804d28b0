# SPDX-License-Identifier: BSD-3-Clause
"""lib/tcp against the Linux kernel's TCP stack.

ewyk-httpd runs its TCP echo and discard services (``--echo-port``,
``--discard-port``) on one lcore (core 0) on one end of a veth pair through
net_af_packet; the kernel peer and its clients run on core 1 in another
namespace. What is checked:

- a 20 MB echo comes back identical (sha256);
- 200 concurrent connections, each echoing 20 KB;
- half-close: the client's FIN leaves ewyk in CLOSE_WAIT still sending;
- a peer RST resets ewyk's connection; a SYN to a closed port gets a RST;
- bad segments (checksum, data offset, options, flags) are dropped and
  counted, and the process keeps serving;
- the 20 MB echo again with loss, delay and reordering both ways: data
  identical, and ewyk's counters show the retransmissions that recovered
  it. ``tc netem loss 2% delay 2ms reorder 10%`` on the kernel side and
  netem loss on ewyk's side (the af_packet vdev with ``qdisc_bypass=0``, so
  its egress goes through the qdisc) when the kernel has sch_netem; where
  it does not (CONFIG_NET_SCH_NETEM unset), a relay in a middle namespace
  applies the same impairment to both directions;
- a tshark capture of a clean session shows no malformed segment, no bad
  checksum and no expert error.
"""

import hashlib
import json
import os
import signal
import subprocess

from scapy.all import IP, TCP, Ether, Raw  # noqa: E402

from framework.ewyk import (EWYK_IP, PEER_IP, PREFIX, EwykHttpd, Testbed,
                            have, log_dir, settle)
from framework.node import wait_for
from framework.telemetry import counter_delta
from framework.test_suite import TestSuite

ECHO_PORT = 7
DISCARD_PORT = 9
CLOSED_PORT = 4444
BIG = 20 * 1000 * 1000
PY = "/usr/bin/python3"
SCAPY_PEER = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "scapy_peer.py")
# The peer's echo and discard clients, and the relay that impairs a
# middle namespace's link (loss, delay, reordering) in user space.
CLIENT = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "tcp_client.py")
RELAY = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "framework", "impair_relay.py")


class _ExtraTestbed:
    """A testbed of the suite's own, beside the main one.

    relay=False: ewyk -- S | P -- kernel (a second ewyk-httpd, e.g. on two
    lcores). relay=True: ewyk -- S | M1 [relay] M2 | P -- kernel, the
    relay impairing both directions in user space.
    """

    def __init__(self, node, tag, relay=False):
        self.node = node
        self.ns_srv = node.add_netns(f"ew{tag}s")
        self.ns_peer = node.add_netns(f"ew{tag}p")
        self.if_srv = node.name(f"e{tag}S")
        self.if_peer = node.name(f"e{tag}P")
        links = []
        if relay:
            self.ns_mid = node.add_netns(f"ew{tag}m")
            self.if_m1 = node.name(f"e{tag}A")
            self.if_m2 = node.name(f"e{tag}B")
            node.add_veth(self.if_srv, self.ns_srv, self.if_m1, self.ns_mid)
            node.add_veth(self.if_m2, self.ns_mid, self.if_peer, self.ns_peer)
            links = [(self.if_m1, self.ns_mid), (self.if_m2, self.ns_mid)]
        else:
            node.add_veth(self.if_srv, self.ns_srv, self.if_peer, self.ns_peer)
        for ifc, ns in [(self.if_srv, self.ns_srv),
                        (self.if_peer, self.ns_peer)] + links:
            node.run(f"sysctl -qw net.ipv6.conf.{ifc}.disable_ipv6=1", ns=ns,
                     check=False)
        node.run(f"ip addr add {PEER_IP}/{PREFIX} dev {self.if_peer}",
                 ns=self.ns_peer)

    def peer(self, cmd, check=True, timeout=60):
        return self.node.run(f"taskset -c 1 {cmd}", ns=self.ns_peer,
                             check=check, timeout=timeout)


def _tcp_stats(app):
    return app.telemetry("/ewyk/tcp/stats")


class TestSuite_tcp(TestSuite):

    def set_up_all(self):
        self.tb = Testbed(self.node)
        self.app = EwykHttpd(
            self.tb, lcores="0", vdev_args="qdisc_bypass=0",
            app_args=["--stats-interval", "0", "--echo-port", str(ECHO_PORT),
                      "--discard-port", str(DISCARD_PORT)],
            log_name="ewyk-httpd-tcp").start()
        self.dir = log_dir()
        self.client = CLIENT
        self.relay_py = RELAY
        self.big = os.path.join(self.dir, f"tcp_big_{self.node.tag}.bin")
        with open(self.big, "wb") as f:
            f.write(os.urandom(BIG))
        with open(self.big, "rb") as f:
            self.big_sha = hashlib.sha256(f.read()).hexdigest()
        # ARP both ways before anything is timed.
        self.tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")

    def tear_down_all(self):
        p = getattr(self, "big", None)
        if p and os.path.exists(p):
            os.unlink(p)
        for p in os.listdir(log_dir()):
            if p.startswith(f"tcp_out_{self.node.tag}"):
                os.unlink(os.path.join(log_dir(), p))

    # -- helpers ----------------------------------------------------------
    def _client(self, tb, *args, timeout=120):
        out = tb.peer(f"{PY} {self.client} " + " ".join(str(a) for a in args),
                      timeout=timeout).stdout
        return json.loads(out.strip().splitlines()[-1])

    def _echo_big(self, tb, app, tag):
        out = os.path.join(self.dir, f"tcp_out_{self.node.tag}_{tag}.bin")
        before = _tcp_stats(app)
        r = self._client(tb, "file", EWYK_IP, ECHO_PORT, self.big, out, 100,
                         timeout=150)
        after = _tcp_stats(app)
        os.unlink(out)
        assert r["err"] is None and r["eof"], (r, app.log()[-2000:])
        assert r["sent"] == BIG and r["received"] == BIG, r
        assert r["sha256"] == self.big_sha, r
        d = counter_delta(before, after)
        assert d.get("bytes_in") == BIG and d.get("bytes_out") >= BIG, d
        return r, d

    def _wait_state(self, state, n, timeout=5):
        return wait_for(lambda: _tcp_stats(self.app)[f"state_{state}"] == n,
                        timeout=timeout)

    # -- functional tests -------------------------------------------------
    def test_echo_20mb_sha256(self):
        r, d = self._echo_big(self.tb, self.app, "clean")
        assert d.get("conn_closed", 0) >= 1
        print(f"20 MB echo in {r['secs']} s; tcp counters moved: {d}")

    def test_concurrent_200x20k(self):
        before = _tcp_stats(self.app)
        r = self._client(self.tb, "many", EWYK_IP, ECHO_PORT, 200, 20000, 100,
                         timeout=150)
        after = _tcp_stats(self.app)
        assert r["ok"] == 200, r
        d = counter_delta(before, after)
        assert d.get("passive_opens", 0) >= 200 and d.get("established", 0) >= 200, d
        assert d.get("bytes_in") == 200 * 20000, d
        # Every connection closes (after the client's FIN, once echoed).
        assert self._wait_state("established", 0)
        assert self._wait_state("last_ack", 0)

    def test_half_close(self):
        # The client sends 300 KB, shuts its side and reads nothing until
        # told: ewyk, with echo data the client has no window for, sits in
        # CLOSE_WAIT, and keeps sending once the client reads. The client
        # reports when its FIN is out and waits for the test's word, so no
        # timing window is involved: ewyk must reach CLOSE_WAIT while the
        # client still holds its window shut (20 s allowed for a busy box).
        proc = subprocess.Popen(
            ["ip", "netns", "exec", self.tb.ns_peer, "taskset", "-c", "1", PY,
             self.client, "halfclose", EWYK_IP, str(ECHO_PORT), "300000"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            shut = proc.stdout.readline().strip()
            seen = shut == "SHUT" and wait_for(
                lambda: _tcp_stats(self.app)["state_close_wait"] >= 1,
                timeout=20, interval=0.05)
            out, _ = proc.communicate(input="go\n", timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        r = json.loads(out.strip().splitlines()[-1])
        assert shut == "SHUT", (shut, out)
        assert seen, "ewyk never in CLOSE_WAIT after the client's FIN"
        assert r["ok"] and r["eof"], r
        # Discard: half-close, nothing comes back, then ewyk's FIN.
        r = self._client(self.tb, "many", EWYK_IP, DISCARD_PORT, 1, 0, 10)
        assert r["ok"] == 1 and r["eof"] == 1, r

    def test_peer_rst(self):
        before = _tcp_stats(self.app)
        r = self._client(self.tb, "rst", EWYK_IP, ECHO_PORT)
        assert r["echoed"] == 1000, r
        assert wait_for(lambda: _tcp_stats(self.app)["conn_reset"]
                        > before["conn_reset"], timeout=5), counter_delta(before, _tcp_stats(self.app))
        after = _tcp_stats(self.app)
        assert after["rst_in"] > before["rst_in"]
        assert self._wait_state("established", 0)
        assert self.app.alive()

    def test_closed_port_rst(self):
        before = _tcp_stats(self.app)
        r = self._client(self.tb, "refused", EWYK_IP, CLOSED_PORT)
        assert r["result"] == "refused", r
        after = _tcp_stats(self.app)
        assert after["rst_out"] > before["rst_out"]
        assert after["drop_no_listener"] > before["drop_no_listener"]

    def test_bad_segments_dropped(self):
        peer_mac = self.tb.peer_mac()
        out = self.tb.peer(f"ip neigh show {EWYK_IP}").stdout.split()
        ewyk_mac = out[out.index("lladdr") + 1]
        head = Ether(src=peer_mac, dst=ewyk_mac) / IP(src=PEER_IP, dst=EWYK_IP)

        def syn(**kw):
            return TCP(sport=33333, dport=ECHO_PORT, seq=1000, **kw)

        frames = [
            head / syn(flags="S", chksum=0x1234),              # drop_cksum
            head / syn(flags="S", dataofs=15),                 # drop_doff
            # One word of options that lies about its length: an MSS of
            # length 3, a timestamp of length 10 in 4 bytes. drop_options.
            head / syn(flags="S", dataofs=6) / Raw(b"\x02\x03\x05\x01"),
            head / syn(flags="S", dataofs=6) / Raw(b"\x08\x0a\x00\x00"),
            head / syn(flags="SF"),                            # drop_flags
            head / syn(flags=""),                              # drop_flags
        ]
        before = _tcp_stats(self.app)
        hexes = " ".join(bytes(f).hex() for f in frames)
        res = json.loads(self.tb.node.run(
            f"{PY} {SCAPY_PEER} {self.tb.if_peer} 0.7 "
            f"'tcp and src host {EWYK_IP} and dst port 33333' {hexes}",
            ns=self.tb.ns_peer, timeout=60).stdout)
        settle(0.2)
        after = _tcp_stats(self.app)
        d = counter_delta(before, after)
        assert res["matched"] == 0, res
        assert d.get("drop_cksum") == 1, d
        assert d.get("drop_doff") == 1, d
        assert d.get("drop_options") == 2, d
        assert d.get("drop_flags") == 2, d
        assert d.get("passive_opens", 0) == 0, d
        assert self.app.alive()
        r = self._client(self.tb, "many", EWYK_IP, ECHO_PORT, 1, 5000, 10)
        assert r["ok"] == 1, r

    def test_echo_impaired(self):
        """Loss 2% both ways, delay 2 ms and 10% reordering."""
        netem = self.node.run(
            f"tc qdisc add dev {self.tb.if_peer} root netem loss 2% delay 2ms "
            f"reorder 10%", ns=self.tb.ns_peer, check=False)
        if netem.returncode == 0:
            try:
                self.node.run(f"tc qdisc add dev {self.tb.if_srv} root netem "
                              f"loss 2%", ns=self.tb.ns_srv)
                r, d = self._echo_big(self.tb, self.app, "netem")
            finally:
                self.node.run(f"tc qdisc del dev {self.tb.if_peer} root",
                              ns=self.tb.ns_peer, check=False)
                self.node.run(f"tc qdisc del dev {self.tb.if_srv} root",
                              ns=self.tb.ns_srv, check=False)
            how = "tc netem"
        else:
            print(f"sch_netem unavailable ({netem.stderr.strip()}): "
                  "impairing in a relay namespace instead")
            rtb = _ExtraTestbed(self.node, "r", relay=True)
            relay = self.node.spawn(
                ["ip", "netns", "exec", rtb.ns_mid, "taskset", "-c", "1", PY,
                 self.relay_py, rtb.if_m1, rtb.if_m2, "0.02", "2", "0.10"],
                log_path=os.path.join(self.dir, f"tcp-relay-{self.node.tag}.log"))
            settle(0.5)
            assert relay.poll() is None, "relay did not start"
            app = EwykHttpd(
                rtb, lcores="0",
                app_args=["--stats-interval", "0", "--echo-port", str(ECHO_PORT)],
                log_name="ewyk-httpd-tcp-relay").start()
            try:
                # ARP through the relay may need a retry under 2% loss.
                wait_for(lambda: rtb.peer(f"ping -c 1 -W 1 {EWYK_IP}",
                                          check=False).returncode == 0,
                         timeout=10)
                r, d = self._echo_big(rtb, app, "relay")
            finally:
                app.stop()
                self.node.stop(relay, sig=signal.SIGTERM)
            how = "relay"
        # The losses were real and TCP recovered them.
        assert d.get("retrans_segs", 0) > 0, d
        assert d.get("fast_retrans", 0) + d.get("rto", 0) > 0, d
        assert d.get("ooo_queued", 0) > 0, d
        print(f"impaired 20 MB echo ({how}) in {r['secs']} s: "
              f"retrans_segs={d.get('retrans_segs')} fast_retrans={d.get('fast_retrans', 0)} "
              f"sack_retrans={d.get('sack_retrans', 0)} rto={d.get('rto', 0)} "
              f"ooo_queued={d.get('ooo_queued')} dupacks_in={d.get('dupacks_in', 0)}")

    def test_two_shards(self):
        """Two lcores, two queues: af_packet has no RSS with ewyk's key, so
        each shard hands the other the segments of the flows it owns."""
        tb = _ExtraTestbed(self.node, "2")
        app = EwykHttpd(
            tb, lcores="0-1", vdev_args="qpairs=2",
            app_args=["--stats-interval", "0", "--echo-port", str(ECHO_PORT)],
            log_name="ewyk-httpd-tcp-2shards").start()
        try:
            tb.peer(f"ping -c 1 -W 3 {EWYK_IP}")
            r = self._client(tb, "many", EWYK_IP, ECHO_PORT, 100, 20000, 100,
                             timeout=150)
            assert r["ok"] == 100, r
            s0 = app.telemetry("/ewyk/tcp/stats,0")
            s1 = app.telemetry("/ewyk/tcp/stats,1")
            net = app.net_stats()
            assert s0["passive_opens"] > 0 and s1["passive_opens"] > 0, (s0, s1)
            assert s0["passive_opens"] + s1["passive_opens"] == 100
            assert s0["bytes_in"] + s1["bytes_in"] == 100 * 20000
            assert net["inbox_rx"] > 0, net
            print(f"two shards: {s0['passive_opens']} + {s1['passive_opens']} "
                  f"connections, {net['inbox_rx']} frames steered")
        finally:
            app.stop()

    def test_tshark_clean_session(self):
        if not have("tshark"):
            import pytest
            pytest.skip("tshark not installed")
        cap = os.path.join(self.dir, f"tcp_out_{self.node.tag}_cap.pcapng")
        proc = self.node.spawn(["ip", "netns", "exec", self.tb.ns_peer, "tshark",
                                "-i", self.tb.if_peer, "-w", cap, "-f", "tcp"],
                               log_path=os.path.join(self.dir, f"tcp-tshark-{self.node.tag}.log"))
        try:
            wait_for(lambda: os.path.exists(cap), timeout=10)
            settle(1.0)
            r = self._client(self.tb, "many", EWYK_IP, ECHO_PORT, 3, 200000, 30)
            assert r["ok"] == 3, r
            settle(0.5)
        finally:
            self.node.stop(proc, sig=signal.SIGINT)

        def count(flt):
            # check=True: a filter tshark rejects must fail the test, not
            # read as "0 frames matched".
            out = self.node.run(
                f"tshark -r {cap} -o tcp.check_checksum:TRUE "
                f"-o ip.check_checksum:TRUE -Y '{flt}' -T fields -e frame.number",
                check=True).stdout
            return len([ln for ln in out.splitlines() if ln.strip()])

        frames = count("tcp")
        assert frames > 300, frames
        assert count("_ws.malformed") == 0
        assert count("tcp.checksum.status == 0 or ip.checksum.status == 0") == 0
        assert count("tcp.checksum.status == 1") == frames
        assert count("_ws.expert.severity == error") == 0
        # Three opens, three orderly closes each way, and not one reset.
        fins = self.node.run(
            f"tshark -r {cap} -Y 'tcp.flags.fin == 1' -T fields -e frame.number "
            f"-e ip.src -e tcp.srcport -e tcp.seq -e tcp.ack -e tcp.len "
            f"-e _ws.expert.message", check=True).stdout
        assert count("tcp.flags.syn == 1 and tcp.flags.ack == 1") == 3
        assert count("tcp.flags.reset == 1") == 0
        assert count("tcp.flags.fin == 1 and !tcp.analysis.retransmission") == 6, fins
        print(f"capture: {frames} TCP frames, all checksums good, "
              f"{count('tcp.analysis.retransmission')} retransmissions, "
              f"{count('_ws.expert.severity == warning')} expert warnings")
        os.unlink(cap)

    def test_stats_telemetry(self):
        # One connection echoing 5000 bytes: the counters move by exactly
        # that traffic, and the three views (totals, the shard's, the
        # lcore row of /ewyk/stats) agree.
        before = _tcp_stats(self.app)
        lc0 = self.app.telemetry("/ewyk/stats")["lcore_0"]
        r = self._client(self.tb, "many", EWYK_IP, ECHO_PORT, 1, 5000, 30)
        assert r["ok"] == 1, r
        assert wait_for(lambda: _tcp_stats(self.app)["conn_closed"]
                        - before["conn_closed"] == 1, timeout=10)
        st = _tcp_stats(self.app)
        shard = self.app.telemetry("/ewyk/tcp/stats,0")
        lc = self.app.telemetry("/ewyk/stats")["lcore_0"]
        d = counter_delta(before, st)
        assert d.get("passive_opens") == 1, d
        assert d.get("bytes_in") == 5000 and d.get("bytes_out") == 5000, d
        # SYN, the data, the FIN and their ACKs: at least 3 each way.
        assert d.get("seg_in", 0) >= 3 and d.get("seg_out", 0) >= 3, d
        for k in ("retrans_segs", "rst_out", "drop_cksum"):
            assert k in st, k
        for k in ("seg_in", "seg_out", "bytes_in", "passive_opens"):
            assert shard[k] == st[k], (k, shard[k], st[k])
        assert lc["tcp_seg_in"] - lc0["tcp_seg_in"] == d["seg_in"], (lc0, lc, d)
        assert lc["tcp_bytes_in"] - lc0["tcp_bytes_in"] == 5000, (lc0, lc)
        assert "tcp_drops" in lc

# SPDX-License-Identifier: BSD-3-Clause
"""ewyk-httpd under test, and the two-namespace testbed it runs in.

Topology (one veth pair, two network namespaces, nothing in the root one)::

    ns "ewyks<tag>"                           ns "ewykp<tag>"
    ewyk-httpd --vdev=net_af_packet0,iface=S  Linux kernel TCP/IP stack
         S (no address, IPv6 off) <--veth--> P 198.18.0.1/24
         ewyk answers as 198.18.0.2

Keeping ewyk's side in a namespace of its own means the host kernel never
owns the address ewyk serves, so every reply the peer sees is ewyk's.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time

from . import telemetry
from .node import LocalNode, wait_for

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PEER_IP = "198.18.0.1"
EWYK_IP = "198.18.0.2"
PREFIX = 24


def build_dir():
    return os.environ.get("EWYK_BUILD", os.path.join(REPO, "build"))


def httpd_binary():
    path = os.path.join(build_dir(), "app", "httpd", "ewyk-httpd")
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"{path} not built (set EWYK_BUILD)")
    return path


def asan_build():
    """Whether ewyk-httpd was built with AddressSanitizer (-Dasan=true)."""
    out = subprocess.run(["ldd", httpd_binary()], capture_output=True,
                         text=True).stdout
    return "libasan" in out


def eal_mem_args():
    """Hugepages when the test runner reserved some, else --no-huge."""
    if os.environ.get("EWYK_HUGE") == "1":
        return ["--in-memory"]
    return ["--no-huge", "-m", "512", "--no-shconf"]


class Testbed:
    """Two namespaces joined by a veth pair; ewyk on one end."""

    def __init__(self, node: LocalNode, mtu=1500):
        self.node = node
        self.ns_srv = node.add_netns("ewyks")
        self.ns_peer = node.add_netns("ewykp")
        self.if_srv = node.name("ews")
        self.if_peer = node.name("ewp")
        node.add_veth(self.if_srv, self.ns_srv, self.if_peer, self.ns_peer)
        node.run(f"sysctl -qw net.ipv6.conf.{self.if_srv}.disable_ipv6=1",
                 ns=self.ns_srv, check=False)
        node.run(f"sysctl -qw net.ipv6.conf.{self.if_peer}.disable_ipv6=1",
                 ns=self.ns_peer, check=False)
        if mtu != 1500:
            node.run(f"ip link set {self.if_srv} mtu {mtu}", ns=self.ns_srv)
            node.run(f"ip link set {self.if_peer} mtu {mtu}", ns=self.ns_peer)
        node.run(f"ip addr add {PEER_IP}/{PREFIX} dev {self.if_peer}",
                 ns=self.ns_peer)

    def peer(self, cmd, check=True, timeout=60):
        """Run a command on the kernel peer, pinned to core 1."""
        return self.node.run(f"taskset -c 1 {cmd}", ns=self.ns_peer,
                             check=check, timeout=timeout)

    def node_dir(self):
        """A directory for this testbed's captures and logs."""
        return log_dir()

    def peer_mac(self):
        out = self.node.run(f"cat /sys/class/net/{self.if_peer}/address",
                            ns=self.ns_peer).stdout
        return out.strip()


class EwykHttpd:
    """An ewyk-httpd process on the testbed's server end."""

    def __init__(self, tb: Testbed, lcores="0", app_args=(), vdev_args="",
                 log_name="ewyk-httpd", binary=None, env=None):
        self.tb = tb
        self.node = tb.node
        self.prefix = f"ewyk-dts-{self.node.tag}-{log_name}"
        self.log_path = os.path.join(log_dir(), f"{log_name}-{self.node.tag}.log")
        vdev = f"net_af_packet0,iface={tb.if_srv}"
        if vdev_args:
            vdev += "," + vdev_args
        self.env = env
        self.argv = [binary or httpd_binary(), "-l", lcores, "--no-pci",
                     f"--file-prefix={self.prefix}", f"--vdev={vdev}",
                     "--log-level=lib.eal:warning"] + eal_mem_args() + [
                     "--", "--ip", f"{EWYK_IP}/{PREFIX}"] + list(app_args)
        self.proc = None

    def start(self, timeout=20):
        self.proc = self.node.spawn(self.argv, ns=self.tb.ns_srv,
                                    log_path=self.log_path, env=self.env)
        ok = wait_for(lambda: self.proc.poll() is not None
                      or "polling" in self.log(), timeout=timeout)
        if not ok or self.proc.poll() is not None:
            raise RuntimeError(f"ewyk-httpd did not start:\n{self.log()}")
        # The telemetry socket appears with the EAL; wait until it answers.
        wait_for(lambda: os.path.exists(telemetry.socket_path(self.prefix)),
                 timeout=5)
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        """SIGINT; return the exit code."""
        if self.proc is None:
            return None
        rc = self.node.stop(self.proc)
        return rc

    def log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def telemetry(self, cmd):
        return telemetry.query(self.prefix, cmd)

    def net_stats(self):
        return self.telemetry("/ewyk/net/stats")

    def shard_stats(self, shard=0):
        """One shard's row of /ewyk/stats (mbufs in use, ...)."""
        return self.telemetry("/ewyk/stats")[f"shard_{shard}"]

    def tcp_stats(self):
        """lib/tcp's counters, summed over the shards."""
        return self.telemetry("/ewyk/tcp/stats")

    def http_stats(self, shard=0):
        """lib/http's counters and gauges of one shard."""
        return self.telemetry(f"/ewyk/http/stats,{shard}")


def log_dir():
    d = os.environ.get("EWYK_DTS_OUTPUT",
                       os.path.join(REPO, "dts", "output"))
    os.makedirs(d, exist_ok=True)
    return d


def have(tool):
    return shutil.which(tool) is not None


def parse_ping(out):
    """(transmitted, received) from ping's summary line."""
    m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
    if not m:
        raise AssertionError(f"no ping summary in: {out}")
    return int(m.group(1)), int(m.group(2))


def settle(seconds=0.3):
    time.sleep(seconds)


def installed_examples(prefix):
    """The examples of docs/examples built against the installed libewyk:
    (folder, temporary folder to remove or None). The folder is the one
    devtools/test.sh built (beside EWYK_HELLO_BIN), else one built now the
    same way (devtools/build-example.sh). <folder>/<name>-build/<name> is
    an example, <folder>/libdir the libraries' folder."""
    hello = os.environ.get("EWYK_HELLO_BIN")
    if hello:
        return os.path.dirname(os.path.dirname(hello)), None
    tmp = tempfile.mkdtemp(prefix=prefix)
    subprocess.run([os.path.join(REPO, "devtools", "build-example.sh"),
                    build_dir(), tmp], check=True, capture_output=True,
                   text=True)
    return tmp, tmp


def example_env(folder):
    """The environment an installed example runs with (its libdir)."""
    with open(os.path.join(folder, "libdir")) as f:
        return dict(os.environ, LD_LIBRARY_PATH=f.read().strip())

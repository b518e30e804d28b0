# SPDX-License-Identifier: BSD-3-Clause
"""The local node: commands, network namespaces, veth pairs, cleanup.

Everything a suite creates is registered with the node and removed by
``cleanup()``, which runs in ``tear_down_all`` and again at interpreter exit,
so a failing or interrupted suite leaves no namespace, link or process
behind.
"""

import atexit
import os
import shlex
import signal
import subprocess
import time

__all__ = ["LocalNode", "CommandError"]


class CommandError(RuntimeError):
    """A command exited non-zero."""

    def __init__(self, cmd, rc, out, err):
        super().__init__(f"`{cmd}` exited {rc}: {err.strip() or out.strip()}")
        self.rc = rc
        self.stdout = out
        self.stderr = err


class LocalNode:
    """This machine, as root."""

    def __init__(self, tag=None):
        # A short unique tag keeps names apart when suites run side by side.
        self.tag = tag or f"{os.getpid() % 100000}"
        self._netns = []
        self._links = []
        self._procs = []
        atexit.register(self.cleanup)

    # -- commands -------------------------------------------------------
    def run(self, cmd, ns=None, check=True, timeout=60, input=None):
        """Run a shell command (in namespace ``ns`` if given).

        Returns a CompletedProcess with text stdout/stderr.
        """
        if ns is not None:
            cmd = f"ip netns exec {shlex.quote(ns)} {cmd}"
        p = subprocess.run(cmd, shell=True, capture_output=True, text=True,
                           timeout=timeout, input=input)
        if check and p.returncode != 0:
            raise CommandError(cmd, p.returncode, p.stdout, p.stderr)
        return p

    def spawn(self, argv, ns=None, log_path=None, env=None):
        """Start a long-running process; stdout+stderr go to ``log_path``."""
        if ns is not None:
            argv = ["ip", "netns", "exec", ns] + list(argv)
        log = open(log_path, "w") if log_path else subprocess.DEVNULL
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
        self._procs.append(proc)
        return proc

    def stop(self, proc, sig=signal.SIGINT, timeout=15):
        """Signal a process and wait for it; kill it if it does not go.

        Returns its exit code (negative for a signal).
        """
        if proc.poll() is None:
            try:
                proc.send_signal(sig)
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        if proc in self._procs:
            self._procs.remove(proc)
        return proc.returncode

    # -- namespaces and links --------------------------------------------
    def name(self, base):
        """A name unique to this node (interface names stay <= 15 chars)."""
        return f"{base}{self.tag}"[:15]

    def add_netns(self, base):
        ns = self.name(base)
        self.run(f"ip netns del {ns}", check=False)
        self.run(f"ip netns add {ns}")
        self._netns.append(ns)
        self.run("ip link set lo up", ns=ns)
        return ns

    def add_veth(self, a, ns_a, b, ns_b):
        """A veth pair with end ``a`` in ``ns_a`` and ``b`` in ``ns_b``."""
        self.run(f"ip link del {a}", check=False)
        self.run(f"ip link add {a} type veth peer name {b}")
        self._links.append(a)
        self.run(f"ip link set {a} netns {ns_a}")
        self.run(f"ip link set {b} netns {ns_b}")
        for ifc, ns in ((a, ns_a), (b, ns_b)):
            # Full checksums and no super-frames from the kernel side.
            self.run(f"ethtool -K {ifc} tx off tso off gso off gro off",
                     ns=ns, check=False)
            self.run(f"ip link set {ifc} up", ns=ns)

    def cleanup(self):
        for proc in list(self._procs):
            try:
                self.stop(proc, timeout=5)
            except Exception:  # noqa: BLE001 - best effort at teardown
                pass
        self._procs.clear()
        for ns in reversed(self._netns):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self._netns.clear()
        for link in self._links:
            subprocess.run(["ip", "link", "del", link], capture_output=True)
        self._links.clear()


def wait_for(pred, timeout=10.0, interval=0.1):
    """Poll ``pred()`` until it is truthy; return its last value."""
    end = time.monotonic() + timeout
    v = pred()
    while not v and time.monotonic() < end:
        time.sleep(interval)
        v = pred()
    return v

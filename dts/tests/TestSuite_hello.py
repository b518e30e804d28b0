# SPDX-License-Identifier: BSD-3-Clause
"""docs/examples/hello, built against the installed libewyk (on its
runtime), serves its hello over TCP to the kernel peer: linked with the shared libraries
(pkg-config), and with the static archives (hello-static).

The example is the one devtools/test.sh builds from a DESTDIR install
(EWYK_HELLO_BIN); run alone, the suite installs EWYK_BUILD into a
temporary DESTDIR and builds it the same way (devtools/build-example.sh).
"""

import os
import subprocess

from framework.ewyk import (EWYK_IP, PREFIX, Testbed, eal_mem_args,
                            example_env, installed_examples, log_dir,
                            parse_ping)
from framework.node import wait_for
from framework.test_suite import TestSuite

HELLO_PORT = 8080


class TestSuite_hello(TestSuite):

    binary_name = "hello"

    def set_up_all(self):
        out, self.tmp = installed_examples("ewyk-hello-")
        binary = os.path.join(out, "hello-build", self.binary_name)
        self.tb = Testbed(self.node)
        self.prefix = f"ewyk-dts-{self.node.tag}-{self.binary_name}"
        self.log_path = os.path.join(log_dir(),
                                     f"{self.binary_name}-{self.node.tag}.log")
        argv = [binary, "-l", "0", "--no-pci", f"--file-prefix={self.prefix}",
                f"--vdev=net_af_packet0,iface={self.tb.if_srv}",
                "--log-level=lib.eal:warning"] + eal_mem_args() + [
                "--", "--ip", f"{EWYK_IP}/{PREFIX}", "--hello-port",
                str(HELLO_PORT), "--stats-interval", "0"]
        env = example_env(out)
        self.proc = self.node.spawn(argv, ns=self.tb.ns_srv,
                                    log_path=self.log_path, env=env)
        ok = wait_for(lambda: self.proc.poll() is not None
                      or "serving" in self.log(), timeout=20)
        assert ok and self.proc.poll() is None, self.log()

    def tear_down_all(self):
        if self.tmp:
            subprocess.run(["rm", "-rf", self.tmp], check=False)

    def log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def test_hello_over_tcp(self):
        # ARP and ping through lib/net first, then three clients in a row.
        tx, rx = parse_ping(self.tb.peer(f"ping -c 3 -i 0.2 -W 3 {EWYK_IP}",
                                         check=False).stdout)
        assert rx >= 1, (tx, rx, self.log())
        for _ in range(3):
            out = self.tb.peer(f"socat -T 5 -u TCP:{EWYK_IP}:{HELLO_PORT} -",
                               timeout=30).stdout
            assert out == "hello from ewyk\n", out

    def test_zz_clean_exit(self):
        rc = self.node.stop(self.proc)
        assert rc == 0, self.log()
        assert "hello: stopped" in self.log()


class TestSuite_hello_static(TestSuite_hello):
    """The same, linked with the installed static archives."""

    binary_name = "hello-static"

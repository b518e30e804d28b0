# SPDX-License-Identifier: BSD-3-Clause
"""ewyk-loadgen in a DTS suite: the binary, one run on the testbed's
server end (net_af_packet on its veth), and its JSON line."""

import json
import os

from .ewyk import build_dir, eal_mem_args, log_dir

JSON_KEYS = ("rps", "p50_us", "p90_us", "p99_us", "p999_us", "errors",
             "conns", "duration_s", "lcores", "sent_total",
             "responses_total", "errors_total")


def loadgen_binary():
    path = os.path.join(build_dir(), "app", "loadgen", "ewyk-loadgen")
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"{path} not built (set EWYK_BUILD)")
    return path


def parse_json(stdout):
    """The JSON line: the last line of stdout, nothing after it."""
    assert stdout.endswith("\n"), repr(stdout[-200:])
    r = json.loads(stdout.rstrip("\n").split("\n")[-1])
    for k in JSON_KEYS:
        assert k in r, (k, r)
    assert isinstance(r["errors_by_kind"], dict), r
    assert r["errors"] == sum(r["errors_by_kind"].values()), r
    return r


def run_loadgen(node, tb, binary, args, expect_rc=0, timeout=60,
                lcores="0", vdev_args="", vdev=None, root=False):
    """Run it in the testbed's server namespace on its veth end (or on
    vdev, in the root namespace when root: a memif port); the command and
    its output are appended to loadgen-<tag>.log."""
    prefix = f"ewyk-dts-{node.tag}-loadgen"
    vdev = vdev or f"net_af_packet0,iface={tb.if_srv}{vdev_args}"
    cmd = (f"taskset -c {lcores} {binary} -l {lcores} --no-pci "
           f"--file-prefix={prefix} --vdev={vdev} "
           "--log-level=lib.eal:warning "
           + " ".join(eal_mem_args()) + " -- " + args)
    p = node.run(cmd, ns=None if root else tb.ns_srv, check=False,
                 timeout=timeout)
    with open(os.path.join(log_dir(), f"loadgen-{node.tag}.log"), "a") as f:
        f.write(f"$ {cmd}\n{p.stderr}\n{p.stdout}\n")
    assert p.returncode == expect_rc, (p.returncode, p.stderr[-3000:])
    return p

# SPDX-License-Identifier: BSD-3-Clause
"""A client of DPDK's telemetry socket (the protocol dpdk-telemetry.py speaks)."""

import json
import os
import socket

RUNTIME_DIR = "/var/run/dpdk"


def socket_path(file_prefix):
    return os.path.join(RUNTIME_DIR, file_prefix, "dpdk_telemetry.v2")


def query(file_prefix, cmd, timeout=5.0):
    """Send one command; return the decoded value of its reply."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    try:
        s.connect(socket_path(file_prefix))
        info = json.loads(s.recv(1024).decode())
        s.send(cmd.encode())
        reply = json.loads(s.recv(info.get("max_output_len", 16384)).decode())
    finally:
        s.close()
    return reply[cmd.split(",", 1)[0]]


def counter_delta(before, after):
    """The counters of `after` that moved since `before` (a counter new in
    `after` counts from 0), as {name: after - before}."""
    return {k: after[k] - before.get(k, 0) for k in after
            if after[k] != before.get(k, 0)}

# SPDX-License-Identifier: BSD-3-Clause
"""pytest configuration for ewyk's DTS suites (run as root)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def pytest_collection_modifyitems(config, items):
    # Performance methods run only when asked: EWYK_PERF=1.
    if os.environ.get("EWYK_PERF") != "1":
        skip_perf = pytest.mark.skip(reason="performance test: set EWYK_PERF=1")
        for item in items:
            if item.name.startswith("test_perf_"):
                item.add_marker(skip_perf)
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason="DTS suites need root (netns, veth, af_packet)")
        for item in items:
            item.add_marker(skip)

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The per-core HTTP benchmark: ewyk-httpd <-> net_memif <-> ewyk-loadgen,
# nginx and h2o under wrk; writes docs/perf/README.md, perf.png, latency.png
# and, with --profile, cycles.png.
# Run as root after `ninja -C build`; --help lists the options
# (--server-lcores, --client-lcores, --runs, --duration, --only, --build).
cd "$(dirname "$0")/.." || exit 1
exec python3 devtools/perf.py "$@"

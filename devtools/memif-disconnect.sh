#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Reproduce the net_memif disconnect crash (docs/perf/README.md, "The memif
# crash"): one ewyk-httpd (memif server) polls while ewyk-loadgen (memif
# client) is started N times WITHOUT --hold, so that each loadgen run ends
# by dropping its memif port under the polling server. Exit 1 when
# ewyk-httpd died (its exit status and log are printed), 0 when it lived
# through every disconnect. Run as root after `ninja -C build`.
#   devtools/memif-disconnect.sh [RUNS] [BUILD]
runs=${1:-20}
build=${2:-build}
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d /tmp/ewyk-memif-disc.XXXXXX)
sock=$tmp/memif.sock
mem="--no-huge -m 512 --no-shconf"
taskset -c 0 "$build/app/httpd/ewyk-httpd" -l 0 --no-pci \
	--file-prefix=ewyk-disc-httpd-$$ \
	--vdev=net_memif0,role=server,socket=$sock,socket-abstract=no \
	--log-level=lib.eal:warning $mem -- --ip 10.89.0.1/24 --port 80 \
	--stats-interval 0 >"$tmp/httpd.log" 2>&1 &
srv=$!
i=0
while [ $i -lt 50 ] && ! grep -q polling "$tmp/httpd.log"; do
	sleep 0.2
	i=$((i + 1))
done
rc=0
i=1
while [ "$i" -le "$runs" ]; do
	taskset -c 1 "$build/app/loadgen/ewyk-loadgen" -l 1 --no-pci \
		--file-prefix=ewyk-disc-lg-$$ \
		--vdev=net_memif0,role=client,socket=$sock,socket-abstract=no \
		--log-level=lib.eal:warning $mem -- --ip 10.89.0.2/24 \
		--target 10.89.0.1:80 --conns 64 --duration 1 --quiet \
		>"$tmp/loadgen.$i.log" 2>&1
	sleep 0.3
	if ! kill -0 $srv 2>/dev/null; then
		wait $srv
		echo "run $i: ewyk-httpd died (exit $?) after the loadgen" \
			"disconnected; log in $tmp"
		tail -20 "$tmp/httpd.log"
		rc=1
		break
	fi
	echo "run $i: ewyk-httpd alive; loadgen: $(tail -c 120 \
		"$tmp/loadgen.$i.log" | tr '\n' ' ')"
	i=$((i + 1))
done
if [ $rc -eq 0 ]; then
	kill -INT $srv
	wait $srv
	rm -rf "$tmp"
fi
exit $rc

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The main job: install, build, and run ewyk-httpd serving HTTP/1.1, drive
# it with a real client (wrk from the kernel peer), and print per-core
# requests/s beside packets/s.
#
#   ./devtools/run.sh                 # no NIC: virtual devices (veth + netns)
#   EWYK_IP=10.0.0.2/24 EWYK_PCI=0000:3b:00.0 ./devtools/run.sh   # a bound NIC
#   (EWYK_IP6=2001:db8::2/64 adds an IPv6 address to the NIC)
#
# On virtual devices ewyk also has 2001:db8::2/64: it answers ping -6, and
# serves HTTP over both families on the same port (one request over each).
#
# Environment: DURATION (seconds of load on virtual devices; default 10,
# 0 = serve until Ctrl-C), EWYK_LCORES (EAL -l, default 0), CONNS (wrk
# connections, default 50).
set -euo pipefail
. "$(dirname "$0")/common.sh"
ewyk_need_root
ewyk_install_deps
ewyk_hugepages
ewyk_build build

BIN="$EWYK_ROOT/build/app/httpd/ewyk-httpd"
LCORES=${EWYK_LCORES:-0}
DURATION=${DURATION:-10}
CONNS=${CONNS:-50}
MEM=$(ewyk_eal_mem)

if [ -n "${EWYK_PCI:-}" ]; then
	: "${EWYK_IP:?set EWYK_IP=A.B.C.D/NN for the NIC}"
	ewyk_log "serving on NIC $EWYK_PCI as $EWYK_IP (Ctrl-C stops)"
	exec "$BIN" -l "$LCORES" -a "$EWYK_PCI" $MEM -- --ip "$EWYK_IP" \
		${EWYK_IP6:+--ip6 "$EWYK_IP6"} --port 80 --stats-interval 1
fi

# No NIC: ewyk on one end of a veth pair, the Linux kernel on the other.
SRV=ewyk-run-srv PEER=ewyk-run-peer
cleanup() {
	[ -n "${PID:-}" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	ip netns del $SRV 2>/dev/null || true
	ip netns del $PEER 2>/dev/null || true
}
trap cleanup EXIT
cleanup
ip netns add $SRV
ip netns add $PEER
ip link add ewr0 type veth peer name ewr1
ip link set ewr0 netns $SRV
ip link set ewr1 netns $PEER
ip netns exec $SRV sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip netns exec $SRV ip link set ewr0 up
ip netns exec $PEER ip addr add 198.18.0.1/24 dev ewr1
ip netns exec $PEER ip -6 addr add 2001:db8::1/64 dev ewr1 nodad
ip netns exec $PEER ip link set ewr1 up
ip netns exec $PEER ethtool -K ewr1 tx off tso off gso off gro off >/dev/null

ewyk_log "ewyk-httpd on lcore(s) $LCORES, net_af_packet over veth; peer 198.18.0.1 and 2001:db8::1 (kernel) in netns $PEER"
ip netns exec $SRV "$BIN" -l "$LCORES" --no-pci $MEM --file-prefix=ewyk-run \
	--vdev=net_af_packet0,iface=ewr0 -- --ip 198.18.0.2/24 --ip6 2001:db8::2/64 \
	--port 80 --stats-interval 1 &
PID=$!
for _ in $(seq 50); do
	ip netns exec $PEER ping -c 1 -W 1 198.18.0.2 >/dev/null 2>&1 && break
	sleep 0.2
done

if [ "$DURATION" = 0 ]; then
	ewyk_log "serving HTTP on 198.18.0.2:80; from the peer: ip netns exec $PEER curl http://198.18.0.2/ (Ctrl-C stops)"
	wait "$PID"
	exit 0
fi
ewyk_log "IPv4: curl http://198.18.0.2/peer (the handler sees the client's address)"
ip netns exec $PEER curl -sS --max-time 5 http://198.18.0.2/peer
ewyk_log "IPv6: ping -6 2001:db8::2, then curl -6 http://[2001:db8::2]/peer"
ip netns exec $PEER ping -6 -c 3 -i 0.2 -W 2 2001:db8::2 || true
ip netns exec $PEER curl -6 -g -sS --max-time 5 'http://[2001:db8::2]/peer' || true
ewyk_log "HTTP load for $DURATION s from the peer (core 1): wrk -t1 -c$CONNS GET / (keep-alive); the table above counts requests/s per core"
ip netns exec $PEER taskset -c 1 wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency http://198.18.0.2/ || true
ewyk_log "telemetry /ewyk/stats and /ewyk/http/stats (dpdk-telemetry.py)"
tel=$(echo /ewyk/stats | dpdk-telemetry.py -f ewyk-run)
echo "$tel" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin)["/ewyk/stats"]; print(json.dumps(d["total"]))'
tel=$(echo /ewyk/http/stats | dpdk-telemetry.py -f ewyk-run)
echo "$tel" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin)["/ewyk/http/stats"]; print(json.dumps({k: d[k] for k in ("requests", "resp_2xx", "resp_4xx", "resp_5xx", "conn_accepted")}))'
kill -INT "$PID"
wait "$PID"
PID=

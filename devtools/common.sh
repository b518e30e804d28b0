#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Shared by run.sh and test.sh: install what is missing, reserve hugepages,
# build. Source it; it does not exit on its own.

EWYK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Debian 12 packages the build, the apps and the tests need.
EWYK_PKGS=(
	build-essential pkg-config meson ninja-build
	dpdk dpdk-dev libdpdk-dev libnuma-dev libpcap-dev
	libbenchmark-dev libcmocka-dev clang
	python3 python3-scapy python3-pytest
	iproute2 iputils-ping iputils-arping ethtool procps
	tshark socat wrk nghttp2-client apache2-utils hping3 ndisc6
	nftables nginx-light h2o prometheus linux-perf
	libssl-dev libnghttp2-dev libh2o-evloop-dev python3-h2
	libclang-rt-14-dev clang-format gnuplot-nox python3-matplotlib
)

ewyk_log() { printf '\033[1m==> %s\033[0m\n' "$*"; }

ewyk_need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "error: run as root (hugepages, network namespaces, af_packet)" >&2
		return 1
	fi
}

ewyk_install_deps() {
	local missing=() p
	for p in "${EWYK_PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		ewyk_log "packages: all ${#EWYK_PKGS[@]} present"
		return 0
	fi
	ewyk_log "packages: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections 2>/dev/null || true
	apt-get update -q || return 1
	apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Reserve 2 MB hugepages (1 GiB) and mount hugetlbfs when we can. Sets
# EWYK_HUGE=1 when hugepages are usable, 0 when runs must use --no-huge.
ewyk_hugepages() {
	local want=${EWYK_HUGEPAGES:-512} free
	EWYK_HUGE=0
	if [ -w /proc/sys/vm/nr_hugepages ]; then
		local cur
		cur=$(cat /proc/sys/vm/nr_hugepages)
		[ "$cur" -lt "$want" ] && echo "$want" > /proc/sys/vm/nr_hugepages 2>/dev/null
		if ! grep -qs ' hugetlbfs ' /proc/mounts; then
			mkdir -p /dev/hugepages
			mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || true
		fi
	fi
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if [ "${free:-0}" -ge 256 ] && grep -qs ' hugetlbfs ' /proc/mounts; then
		EWYK_HUGE=1
		ewyk_log "hugepages: $free x 2 MB free"
	else
		ewyk_log "hugepages: none usable; running with --no-huge"
	fi
	export EWYK_HUGE
}

# ewyk_build DIR [meson options...]
ewyk_build() {
	local dir=$1
	shift
	if [ ! -f "$EWYK_ROOT/$dir/build.ninja" ]; then
		meson setup "$EWYK_ROOT/$dir" "$EWYK_ROOT" "$@" >/dev/null || return 1
	else
		meson setup --reconfigure "$EWYK_ROOT/$dir" "$EWYK_ROOT" "$@" >/dev/null || return 1
	fi
	ewyk_log "build: $dir"
	ninja -C "$EWYK_ROOT/$dir" || return 1
}

# EAL memory arguments matching what ewyk_hugepages found.
ewyk_eal_mem() {
	if [ "${EWYK_HUGE:-0}" = 1 ]; then
		echo "--in-memory"
	else
		echo "--no-huge -m 512 --no-shconf"
	fi
}

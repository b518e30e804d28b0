#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Run the benchmarks of a bundle (devtools/bundle.sh) on the machine it
# was carried to, as root:
#
#   BUNDLE/devtools/bundle_run.sh RESULTS [perf_matrix.py options]
#
# Writes RESULTS/machine.txt first (cores and their topology, CPU model,
# kernel, memory, hugepages, /dev/shm, the C library, whether every
# program finds its libraries), then reserves hugepages if it can
# (raises vm.nr_hugepages to EWYK_HUGEPAGES pages of 2 MiB, default 2048,
# never lowers it and leaves it so; 0: touches nothing) and runs
# perf_matrix.py with every build of the bundle (--build NAME=builds/NAME),
# --huge yes when the pages are there and no otherwise, --out RESULTS, and
# the options given (--new, --base, --steps, ...: perf_matrix.py --help).
set -uo pipefail
if [ $# -lt 1 ] || [ "$1" = "--help" ]; then
	awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"
	exit 2
fi
BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS=$1
shift
mkdir -p "$RESULTS"
# shellcheck source=/dev/null
. "$BUNDLE/env.sh"

# EAL loads no plugin from a path with a world-writable folder in it
# (/tmp, say): say so now rather than in every run's log.
if [ -n "${EWYK_EAL_ARGS:-}" ]; then
	d=$BUNDLE/pmds
	while [ "$d" != / ]; do
		if [ -n "$(find "$d" -maxdepth 0 -perm -o+w)" ]; then
			echo "bundle_run: $d is world-writable: EAL refuses" \
				"plugins below it; move the bundle elsewhere" >&2
			exit 1
		fi
		d=$(dirname "$d")
	done
fi

pages=${EWYK_HUGEPAGES:-2048}
huge=no
if [ "$pages" -gt 0 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
	# Only ever raised: the machine may hold pages for other work.
	if [ "$(cat /proc/sys/vm/nr_hugepages)" -lt "$pages" ]; then
		echo "$pages" >/proc/sys/vm/nr_hugepages 2>/dev/null
	fi
	if ! grep -q hugetlbfs /proc/mounts; then
		mkdir -p /dev/hugepages &&
			mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null
	fi
	free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages \
		2>/dev/null || echo 0)
	# Two processes of 1 GiB each, as perf.py's own check.
	if [ "$free" -ge 1100 ] && grep -q hugetlbfs /proc/mounts; then
		huge=yes
	fi
fi

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "uname: $(uname -a)"
	echo "nproc: $(nproc)"
	grep -m1 'model name' /proc/cpuinfo
	grep -m1 'cpu MHz' /proc/cpuinfo
	grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
		grep -E '^(constant_tsc|nonstop_tsc|tsc_known_freq|hypervisor|avx2|avx512f)$' |
		tr '\n' ' '
	echo
	lscpu 2>/dev/null | grep -E '^(Thread|Core|Socket|NUMA|L[123]|Hypervisor|Virtualization)' ||
		echo "lscpu: not there"
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		s=$c/topology/thread_siblings_list
		[ -r "$s" ] && echo "${c##*/}: siblings $(cat "$s")"
	done | head -16
	grep -E '^(MemTotal|MemAvailable|HugePages_Total|HugePages_Free|Hugepagesize)' /proc/meminfo
	echo "hugetlbfs: $(grep hugetlbfs /proc/mounts || echo none); memory mode: --huge $huge"
	df -h /dev/shm 2>&1 | tail -1
	echo "load: $(cat /proc/loadavg)"
	echo "glibc: $(ldd --version 2>&1 | head -1)"
	echo "python3: $(python3 --version 2>&1)"
	echo "taskset: $(command -v taskset)"
	for f in "$BUNDLE"/builds/*/app/*/ewyk-* "$BUNDLE"/pmds/*.so; do
		miss=$(ldd "$f" 2>&1 | grep 'not found')
		echo "ldd ${f#"$BUNDLE"/}: ${miss:-all found}"
	done
	cat "$BUNDLE/MANIFEST"
} >"$RESULTS/machine.txt" 2>&1
cat "$RESULTS/machine.txt"

builds=()
for b in "$BUNDLE"/builds/*/; do
	b=${b%/}
	builds+=(--build "${b##*/}=$b")
done
exec python3 "$BUNDLE/devtools/perf_matrix.py" "${builds[@]}" \
	--huge "$huge" --out "$RESULTS" "$@"

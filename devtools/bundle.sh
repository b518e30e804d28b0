#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Pack one or more builds of ewyk-httpd and ewyk-loadgen, with everything
# they load at run time, into a folder that runs the benchmarks
# (devtools/perf.py, devtools/perf_matrix.py) on an x86-64 Linux machine
# without DPDK installed: a bigger machine, a fresh VM.
#
#   devtools/bundle.sh OUT NAME=BUILD [NAME=BUILD...]
#
#   e.g. devtools/bundle.sh ~/ewyk-bundle base=/tmp/b-base new=build
#
# OUT gets:
#   builds/NAME/app/{httpd/ewyk-httpd,loadgen/ewyk-loadgen}  each build's
#                  two programs (the layout perf.py's --build expects)
#   lib/           their shared libraries and those of the PMD plugins
#                  (DPDK, libnuma, libcrypto, ...), without the C library
#                  itself (libc, libm, libpthread, libdl, librt, ld-linux):
#                  the target's own is used, which must be as new as this
#                  machine's (glibc is backward compatible, not forward)
#   pmds/          the EAL plugins the benchmarks need: the vdev bus, the
#                  memif PMD and the ring mempool (DPDK loads plugins from
#                  a path compiled in, which a machine without DPDK lacks;
#                  `-d pmds` names them instead)
#   devtools/, dts/framework/  the benchmark scripts and the telemetry client
#   devtools/bundle_run.sh  runs it all on the target (below)
#   env.sh         sourced on the target: LD_LIBRARY_PATH, EWYK_EAL_ARGS
#                  (read by perf.py), PATH (a taskset stand-in where
#                  util-linux is missing)
#   MANIFEST       what went in, with the build's git commit when known
#
# On the target, as root, the bundle in a path without a world-writable
# folder (not under /tmp: EAL refuses plugins there; RESULTS gets
# machine.txt, results.jsonl, summary.md; bundle_run.sh --help says more):
#   OUT/devtools/bundle_run.sh RESULTS [perf_matrix.py options]
# or by hand:
#   . OUT/env.sh && python3 OUT/devtools/perf.py --build OUT/builds/NAME ...
# Hugepages are used where bundle_run.sh can reserve them, else each
# process runs --no-huge -m 1024. On a machine where DPDK is installed,
# env.sh leaves the bundle's libraries and plugins out and that DPDK is
# used (EAL loads its own plugin folder anyway, and two copies abort).
set -euo pipefail

if [ $# -lt 2 ]; then
	awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"
	exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$1
shift
PMDDIR=${EWYK_PMD_DIR:-/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0}
PMDS="librte_bus_vdev librte_net_memif librte_mempool_ring"

mkdir -p "$OUT"/{builds,lib,pmds,devtools,dts/framework}
: >"$OUT/MANIFEST"
objs=()
for spec in "$@"; do
	name=${spec%%=*}
	build=${spec#*=}
	if [ "$name" = "$spec" ] || [ -z "$name" ]; then
		echo "bundle: '$spec': NAME=BUILD expected" >&2
		exit 2
	fi
	for prog in httpd/ewyk-httpd loadgen/ewyk-loadgen; do
		src=$build/app/$prog
		if [ ! -x "$src" ]; then
			echo "bundle: $src missing (build it first)" >&2
			exit 1
		fi
		mkdir -p "$OUT/builds/$name/app/${prog%/*}"
		cp "$src" "$OUT/builds/$name/app/$prog"
		objs+=("$src")
	done
	# The source tree of a meson build dir, else the build dir itself.
	src_dir=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["directories"]["source"])' \
		"$build/meson-info/meson-info.json" 2>/dev/null || echo "$build")
	commit=$(git -C "$src_dir" rev-parse --short HEAD 2>/dev/null ||
		echo unknown)
	echo "build $name: $(cd "$build" && pwd) (source tree at $commit)" \
		>>"$OUT/MANIFEST"
done
for p in $PMDS; do
	f=$PMDDIR/$p.so
	if [ ! -e "$f" ]; then
		echo "bundle: $f missing (DPDK's PMD folder: EWYK_PMD_DIR)" >&2
		exit 1
	fi
	cp -L "$f" "$OUT/pmds/$p.so"
	objs+=("$f")
done

# The closure of every program and plugin, by the names the loader asks
# for (so libfoo.so.N, not the file it links to), C library excluded.
ldd "${objs[@]}" 2>/dev/null |
	awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
	while read -r soname path; do
		case $soname in
		libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | \
			librt.so.* | libresolv.so.* | ld-linux*) continue ;;
		esac
		cp -L "$path" "$OUT/lib/$soname"
		echo "lib $soname <- $path" >>"$OUT/MANIFEST"
	done
echo "pmds: $PMDS (from $PMDDIR)" >>"$OUT/MANIFEST"
echo "glibc here: $(ldd --version | head -1)" >>"$OUT/MANIFEST"

cp "$ROOT"/devtools/{perf.py,perf_report.py,perf_matrix.py,bundle_run.sh} \
	"$OUT/devtools/"
cp "$ROOT"/dts/framework/{__init__.py,telemetry.py} "$OUT/dts/framework/"

# taskset stand-in: perf.py pins every process with `taskset -c LIST`.
mkdir -p "$OUT/bin-fallback"
cat >"$OUT/bin-fallback/taskset" <<'EOF'
#!/usr/bin/env python3
# taskset -c LIST CMD...: a stand-in where util-linux is not installed.
import os
import sys

if len(sys.argv) < 4 or sys.argv[1] != "-c":
    sys.exit("usage: taskset -c LIST CMD...")
cpus = set()
for part in sys.argv[2].split(","):
    lo, _, hi = part.partition("-")
    cpus.update(range(int(lo), int(hi or lo) + 1))
os.sched_setaffinity(0, cpus)
os.execvp(sys.argv[3], sys.argv[3:])
EOF
chmod +x "$OUT/bin-fallback/taskset"

cat >"$OUT/env.sh" <<'EOF'
# Sourced on the machine that runs the bundle: from bash anywhere
# (`. /path/to/bundle/env.sh`), from another sh in the bundle's folder.
if [ -n "${BASH_VERSION:-}" ]; then
	EWYK_BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
else
	EWYK_BUNDLE=$(pwd)
fi
export EWYK_BUNDLE
# Where this machine has DPDK's own plugin folder, EAL loads it whatever
# else it is told, and the bundle's copies of the same plugins and
# libraries beside it abort: there, the machine's DPDK (same ABI) is used.
if [ -d PMDDIR_HERE ]; then
	export EWYK_EAL_ARGS=""
else
	export LD_LIBRARY_PATH=$EWYK_BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export EWYK_EAL_ARGS="-d $EWYK_BUNDLE/pmds"
fi
command -v taskset >/dev/null 2>&1 || PATH=$PATH:$EWYK_BUNDLE/bin-fallback
export PATH
EOF
sed -i "s|PMDDIR_HERE|$PMDDIR|" "$OUT/env.sh"
du -sh "$OUT"

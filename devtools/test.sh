#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Install, build (plain and ASan+UBSan), and run every test: unit tests
# (cmocka, both builds), the header self-containment check (part of the
# build), the DTS suites against the Linux kernel peer, and a short fuzz
# run of every libFuzzer target. Ends with one line "N passed, N failed".
#
# Environment: EWYK_SKIP_ASAN=1, EWYK_SKIP_FUZZ=1, EWYK_FUZZ_SECONDS (20),
# EWYK_DTS_ARGS (extra pytest arguments, e.g. "-k l3"). The DTS suites run
# on Debian's /usr/bin/python3, which has python3-scapy and python3-pytest.
set -uo pipefail
. "$(dirname "$0")/common.sh"
ewyk_need_root || exit 1
ewyk_install_deps || { echo "error: package install failed"; exit 1; }
ewyk_hugepages

PASSED=0
FAILED=0
SUMMARY=()
record() { # name passed failed
	PASSED=$((PASSED + $2))
	FAILED=$((FAILED + $3))
	SUMMARY+=("$(printf '%-28s %4d passed, %d failed' "$1" "$2" "$3")")
}

# meson test: count OK/FAIL lines from its summary.
run_unit() { # builddir label
	local out ok fail
	out=$(meson test -C "$EWYK_ROOT/$1" --suite unit --print-errorlogs 2>&1)
	echo "$out" | grep -vE '^\s*$' | tail -n 40
	ok=$(echo "$out" | awk '/^Ok:/ {print $2}')
	fail=$(echo "$out" | awk '/^(Fail|Timeout|Unexpected Pass):/ {s+=$2} END {print s+0}')
	record "$2" "${ok:-0}" "${fail:-0}"
}

if ewyk_build build; then
	record "build (incl. header checks)" 1 0
	ewyk_log "unit tests"
	run_unit build "unit"
else
	record "build (incl. header checks)" 0 1
fi

if [ "${EWYK_SKIP_ASAN:-0}" != 1 ]; then
	if ewyk_build build-asan -Dasan=true -Dbuildtype=debugoptimized; then
		ewyk_log "unit tests under ASan+UBSan"
		ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
			run_unit build-asan "unit (asan+ubsan)"
	else
		record "build-asan" 0 1
	fi
fi

if [ -x "$EWYK_ROOT/build/app/httpd/ewyk-httpd" ]; then
	ewyk_log "DTS suites (ewyk-httpd on core 0, kernel peer on core 1)"
	out=$(cd "$EWYK_ROOT" && EWYK_BUILD="$EWYK_ROOT/build" \
		/usr/bin/python3 -m pytest dts -v ${EWYK_DTS_ARGS:-} 2>&1)
	echo "$out" | tail -n 60
	last=$(echo "$out" | grep -E '(passed|failed|error)' | tail -n 1)
	p=$(echo "$last" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
	f=$(echo "$last" | grep -oE '[0-9]+ (failed|errors?)' | awk '{s+=$1} END {print s+0}')
	[ -z "$p" ] && [ "$f" = 0 ] && f=1   # no summary at all: count it as a failure
	record "dts" "${p:-0}" "${f:-0}"
fi

if [ "${EWYK_SKIP_FUZZ:-0}" != 1 ] && command -v clang >/dev/null; then
	if CC=clang CXX=clang++ ewyk_build build-fuzz -Dfuzz=true -Dtests=true \
			-Dbuildtype=debugoptimized >/dev/null; then
		secs=${EWYK_FUZZ_SECONDS:-20}
		for fz in "$EWYK_ROOT"/build-fuzz/tests/fuzz/fuzz_*; do
			[ -f "$fz" ] && [ -x "$fz" ] || continue
			name=$(basename "$fz")
			ewyk_log "fuzz: $name for $secs s"
			if "$fz" -max_total_time="$secs" -print_final_stats=1 \
					>"/tmp/ewyk-$name.log" 2>&1; then
				tail -n 3 "/tmp/ewyk-$name.log"
				record "fuzz $name" 1 0
			else
				tail -n 30 "/tmp/ewyk-$name.log"
				record "fuzz $name" 0 1
			fi
		done
	else
		record "build-fuzz" 0 1
	fi
fi

echo
ewyk_log "summary"
printf '  %s\n' "${SUMMARY[@]}"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]

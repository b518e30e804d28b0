#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Check that every C and C++ file under lib app drivers tests docs/examples
# is as clang-format (the repository's .clang-format) would write it.
#
#   devtools/check-format.sh          # list files that differ; exit 1 if any
#   devtools/check-format.sh --fix    # rewrite them in place
#   devtools/check-format.sh [--fix] FILE...   # only these files
#
# Uses clang-format-14 (Debian 12's), or $CLANG_FORMAT. Prints, per file
# that differs, how many of its lines clang-format would change, and the
# total at the end.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CF=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format)}
if [ -z "$CF" ] || [ ! -x "$CF" ]; then
	echo "error: clang-format not found (apt-get install clang-format)" >&2
	exit 2
fi

fix=0
if [ "${1:-}" = "--fix" ]; then
	fix=1
	shift
fi

cd "$ROOT" || exit 2
if [ $# -gt 0 ]; then
	files=("$@")
elif git rev-parse --git-dir >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files --cached --others --exclude-standard \
		-- lib app drivers tests docs/examples |
		grep -E '\.(c|h|cc|cpp|hpp)$' | sort -u)
else
	mapfile -t files < <(find lib app drivers tests docs/examples -type f \
		\( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cpp' \
		-o -name '*.hpp' \) 2>/dev/null | sort)
fi

bad=0
lines=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	# Lines of the file that clang-format would replace.
	n=$("$CF" --style=file "$f" | diff "$f" - | grep -c '^<')
	[ "$n" -eq 0 ] && continue
	bad=$((bad + 1))
	lines=$((lines + n))
	if [ "$fix" = 1 ]; then
		"$CF" --style=file -i "$f"
		printf 'fixed %-50s %5d lines\n' "$f" "$n"
	else
		printf 'differs %-50s %5d lines\n' "$f" "$n"
	fi
done
echo "${#files[@]} files checked, $bad differ, $lines lines" \
	"$([ "$fix" = 1 ] && echo rewritten || echo 'to change (--fix rewrites them)')"
[ "$fix" = 1 ] || [ "$bad" -eq 0 ]

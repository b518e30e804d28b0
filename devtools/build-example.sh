#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Install a build into a DESTDIR and build every example of docs/examples
# (hello, hello_http) against that installed tree alone (pkg-config
# libewyk), as an application outside the ewyk tree would.
#
#   devtools/build-example.sh BUILD_DIR OUT_DIR
#
# OUT_DIR/root: the installed tree; OUT_DIR/<name>-build/<name>: each
# example, linked with the shared libraries, and <name>-static with the
# static archives.
# Run it with LD_LIBRARY_PATH=$(cat OUT_DIR/libdir).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
meson install -C "$build" --destdir "$out/root" --quiet
pc=$(find "$out/root" -name libewyk.pc -path '*/pkgconfig/*' | head -n 1)
if [ -z "$pc" ]; then
	echo "error: no libewyk.pc installed" >&2
	exit 1
fi
libdir=$(dirname "$(dirname "$pc")")
for f in "$libdir"/libewyk_*.a "$libdir"/libewyk_*.so; do
	[ -e "$f" ] || { echo "error: no static and shared libraries in $libdir" >&2; exit 1; }
done
echo "$libdir" >"$out/libdir"
echo "installed: $(ls "$libdir" | grep -c '^libewyk_.*\.a$') static and" \
	"$(ls "$libdir" | grep -c '^libewyk_.*\.so$') shared libraries," \
	"$(find "$out/root" -name 'ewyk_*.h' | wc -l) headers, $pc"
# The examples see nothing of the source or build tree: only the DESTDIR.
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
# The static archives too: the same libs, as lib<name>.a (drivers whole),
# DPDK still shared.
static=()
for l in $(pkg-config --libs-only-l libewyk | tr ' ' '\n' | grep '^-lewyk_'); do
	case $l in
	-lewyk_drv_*) static+=(-Wl,--whole-archive "-l:lib${l#-l}.a" -Wl,--no-whole-archive) ;;
	*) static+=("-l:lib${l#-l}.a") ;;
	esac
done
for dir in "$ROOT"/docs/examples/*/; do
	name=$(basename "$dir")
	cp -r "$dir" "$out/$name-src"
	make -C "$out/$name-src" O="$out/$name-build"
	echo "built: $out/$name-build/$name (shared libewyk)"
	cc -O2 -D_GNU_SOURCE $(pkg-config --cflags libewyk) \
		"$out/$name-src/$name.c" -o "$out/$name-build/$name-static" \
		-L"$libdir" "${static[@]}" $(pkg-config --libs libdpdk) -lnuma -lnghttp2 \
		-pthread
	if ldd "$out/$name-build/$name-static" | grep -q libewyk_; then
		echo "error: $name-static still loads a shared libewyk" >&2
		exit 1
	fi
	echo "built: $out/$name-build/$name-static (static libewyk archives)"
done

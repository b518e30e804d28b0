#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Install a build into a DESTDIR and build docs/examples/hello against that
# installed tree alone (pkg-config libewyk), as an application outside the
# ewyk tree would.
#
#   devtools/build-example.sh BUILD_DIR OUT_DIR
#
# OUT_DIR/root: the installed tree; OUT_DIR/hello-build/hello: the example.
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
# The example sees nothing of the source or build tree: only the DESTDIR.
cp -r "$ROOT/docs/examples/hello" "$out/hello-src"
PKG_CONFIG_PATH=$(dirname "$pc") make -C "$out/hello-src" O="$out/hello-build"
echo "built: $out/hello-build/hello"

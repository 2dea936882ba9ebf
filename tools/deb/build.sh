#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/deb/build.sh - `make deb`: builds the Debian packages of debian/
# with dpkg-buildpackage -us -uc -b from a copy of the checkout's files
# (tracked and new, not ignored) in build/deb/src/, so that the checkout
# gets no build litter; leaves the .deb, .buildinfo and .changes files in
# build/deb/ and runs lintian on them: an error or a warning fails.

set -euo pipefail

usage() {
	cat <<EOF
Usage: tools/deb/build.sh [-h]

Builds ubfab-dkms, libubfab1, libubfab-ffi1, libubshmem1, libubfab-dev,
ubfab-tools and python3-ubfab into build/deb/ and runs lintian on them. Fails when debian/changelog's
version is not lib/Makefile's VERSION (add an entry: dch -v VERSION).
Log of the build: build/deb/build.log.
EOF
}

[ "${1-}" != --help ] || { usage; exit 0; }
while getopts h opt; do
	case $opt in
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/build/deb

die() { printf 'deb: %s\n' "$*" >&2; exit 1; }

missing=""
for tool in dpkg-buildpackage:dpkg-dev dh:debhelper dh_dkms:dh-dkms \
	    lintian:lintian; do
	command -v "${tool%:*}" >/dev/null || missing+=" ${tool#*:}"
done
[ -z "$missing" ] ||
	die "missing Debian packages:$missing (\`make deps\` installs them)"

cd "$ROOT"
version=$(dpkg-parsechangelog -S Version)
lib_version=$(sed -n 's/^VERSION := //p' lib/Makefile)
[ "${version%%-*}" = "$lib_version" ] ||
	die "debian/changelog is at $version, lib/Makefile at $lib_version: add an entry (dch -v $lib_version)"

rm -rf "$OUT"
src=$OUT/src/ubfab-$version
mkdir -p "$src"
files=()
while IFS= read -r -d '' f; do
	[ ! -e "$f" ] || files+=("$f")
done < <(git ls-files -z -co --exclude-standard)
tar -c "${files[@]}" | tar -x -C "$src"

echo "deb: dpkg-buildpackage -us -uc -b in ${src#"$ROOT"/}"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1 || {
	tail -n 30 "$OUT/build.log" >&2
	die "dpkg-buildpackage failed (log: ${OUT#"$ROOT"/}/build.log)"
}
mv "$OUT"/src/*.deb "$OUT"/src/*.buildinfo "$OUT"/src/*.changes "$OUT/"
rm -rf "$OUT/src"
ls "$OUT"/*.deb

echo "deb: lintian"
lintian -I --fail-on error,warning "$OUT"/*.changes

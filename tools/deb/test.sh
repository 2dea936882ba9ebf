#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/deb/test.sh - the Debian packages' test in `make check`: installs
# build/deb/*.deb (make deb) with `apt install` into a clean Debian 12 root
# that has the headers of both kernel series, so that DKMS builds ubfab.ko
# for each; then boots the test VM on each series with that module and runs
# tools/deb/guest.sh there with the packages' ubctl, ubbench and libubfab.
# The Python binding is imported in the root (no module there): it loads
# the packages' libubfab-ffi and finds every function it declares.
#
# Owns the clean root: a minbase debootstrap of bookworm with dkms, python3
# and the linux-headers packages of both releases env.sh names, kept as a
# tarball in $UBFAB_CACHE/deb/ (its name carries the releases and a hash of
# the package list) and unpacked afresh for every run. Prints KTAP; its
# last line is one "# Totals:" line for all.

set -euo pipefail

usage() {
	cat <<EOF
Usage: tools/deb/test.sh [-h]

Installs build/deb/*.deb into a clean Debian 12 root (debootstrap, cached
as a tarball in \$UBFAB_CACHE/deb/) with the headers of the 6.1 and 6.12
kernels, checks that DKMS built ubfab.ko for both, and boots the test VM on
each with that module to run the ctl selftest against the installed ubctl
and libubfab. Needs root (or sudo), network (the first run about
5 minutes on 2 cores, later runs about 3), \`make deps\`, the selftests
built and \`make deb\`.

Environment:
  UBFAB_CACHE      cache directory (default \$HOME/.cache/ubfab)
  UBFAB_DEB_MIRROR Debian mirror (default http://deb.debian.org/debian)
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
UBFAB_CACHE=${UBFAB_CACHE:-$HOME/.cache/ubfab}
MIRROR=${UBFAB_DEB_MIRROR:-http://deb.debian.org/debian}
[ -r "$UBFAB_CACHE/env.sh" ] || { echo "deb test: no $UBFAB_CACHE/env.sh: run \`make deps\`" >&2; exit 2; }
# shellcheck source=/dev/null
. "$UBFAB_CACHE/env.sh"
if [ "$(id -u)" -ne 0 ]; then
	exec sudo UBFAB_CACHE="$UBFAB_CACHE" UBFAB_DEB_MIRROR="$MIRROR" "$0"
fi

KVERS=("$UBFAB_KVER_6_1" "$UBFAB_KVER_6_12")
SERIES=(6.1 6.12)
# What the root has before the packages: what a Debian machine with
# these kernels and Python has that the packages do not bring.
ROOT_PACKAGES=(dkms python3 "linux-headers-${KVERS[0]}" "linux-headers-${KVERS[1]}")
TARBALL=$UBFAB_CACHE/deb/bookworm-${KVERS[0]}-${KVERS[1]}-$(
	echo "${ROOT_PACKAGES[*]}" | md5sum | cut -c 1-8).tar.zst

# shellcheck source=tools/deb/ktap.sh
. "$ROOT/tools/deb/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ubfab-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Runs a command in a root directory, with /proc and /dev mounted in a
# mount namespace of its own (they go with it) and a clean environment.
in_root() {
	local root=$1

	shift
	# shellcheck disable=SC2016 # the inner shell expands them
	unshare --mount --propagation private /bin/sh -ec '
		r=$1; shift
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		exec chroot "$r" /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive "$@"' sh "$root" "$@"
}

# Makes $TARBALL unless it is there (one run at a time; the other
# tarballs go): bookworm minbase, the sources of the host's kernels
# (bookworm-security has 6.12), ROOT_PACKAGES.
make_root() {
	local dir root

	[ ! -e "$TARBALL" ] || return 0
	mkdir -p "$UBFAB_CACHE/deb"
	exec 8>"$UBFAB_CACHE/deb/.lock"
	flock 8
	[ ! -e "$TARBALL" ] || return 0
	rm -rf "$UBFAB_CACHE"/deb/.tmp.* "$UBFAB_CACHE"/deb/bookworm-*.tar.zst
	dir=$(mktemp -d "$UBFAB_CACHE/deb/.tmp.XXXXXX")
	root=$dir/root
	echo "# deb test: debootstrap of bookworm into $root (once)"
	debootstrap --variant=minbase bookworm "$root" "$MIRROR" \
		>"$dir/log" 2>&1 || { tail -n 20 "$dir/log" | sed "s/^/# /"; return 1; }
	cat >"$root/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
	echo "# deb test: ${ROOT_PACKAGES[*]}"
	{ in_root "$root" apt-get -q update &&
	  in_root "$root" apt-get -y -q install --no-install-recommends \
		"${ROOT_PACKAGES[@]}" &&
	  in_root "$root" apt-get clean; } >>"$dir/log" 2>&1 ||
		{ tail -n 20 "$dir/log" | sed "s/^/# /"; return 1; }
	tar -C "$root" -c . | zstd -q -T0 -o "$dir/root.tar.zst"
	mv "$dir/root.tar.zst" "$TARBALL"
	rm -rf "$dir"
}

# Installs the packages in a fresh copy of the root, at $tmp/root: apt as a
# user would, with the lists of the tarball, updated when they are stale.
install_packages() {
	local root=$tmp/root debs=() f

	mkdir "$root"
	zstd -dcq "$TARBALL" | tar -C "$root" -x
	mkdir "$root/tmp/deb"
	cp "$ROOT"/build/deb/*.deb "$root/tmp/deb/"
	for f in "$root"/tmp/deb/*.deb; do
		debs+=("/tmp/deb/${f##*/}")
	done
	in_root "$root" apt-get -y -q install --no-install-recommends \
		"${debs[@]}" >"$tmp/apt.log" 2>&1 ||
		{ in_root "$root" apt-get -q update &&
		  in_root "$root" apt-get -y -q install \
			--no-install-recommends "${debs[@]}"; } \
		>>"$tmp/apt.log" 2>&1
}

# The module DKMS installed for a release, uncompressed, at a path of $tmp.
dkms_module() {
	local kver=$1 ko

	ko=$(find "$tmp/root/lib/modules/$kver/updates" \
		-name 'ubfab.ko*' 2>/dev/null | head -n 1)
	[ -n "$ko" ] || return 1
	case $ko in
	*.xz) xz -dc "$ko" ;;
	*.zst) zstd -dcq "$ko" ;;
	*) cat "$ko" ;;
	esac >"$tmp/ubfab-$kver.ko"
}

# Counts a VM run as tools/check.sh does: its last Totals line, plus one
# failure when there is none or when ubvm failed (kernel log reports, time
# limit) although it reports no failure.
count_vm() {
	local out=$1 rc=$2 what=$3 line p f s

	sed 's/^/# /' "$out"
	line=$(grep -aE '^# Totals: pass:[0-9]+ fail:[0-9]+' "$out" |
		tail -n 1) || true
	add_totals "$line"
	if [ -z "$line" ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		result 1 "$what (exit $rc)"
	fi
}

main() {
	local t0 rc i kver pkg status

	t0=$SECONDS
	echo "TAP version 13"
	if ! compgen -G "$ROOT/build/deb/*.deb" >/dev/null; then
		result 1 "packages installed: no build/deb/*.deb (make deb)"
	elif ! make_root; then
		result 1 "packages installed: no clean root (debootstrap failed)"
	else
		rc=0
		install_packages || rc=$?
		sed 's/^/# apt: /' "$tmp/apt.log"
		result "$rc" "apt install ./*.deb into a clean bookworm root"
	fi
	echo "# deb test: root ready and packages installed after $((SECONDS - t0)) s"
	: >"$tmp/dkms"
	if [ -d "$tmp/root/var/lib/dkms" ]; then
		in_root "$tmp/root" dkms status ubfab >"$tmp/dkms" 2>&1 || true
	fi
	status=$(cat "$tmp/dkms")
	sed 's/^/# dkms status: /' "$tmp/dkms"
	rc=1
	if [ -d "$tmp/root/usr/lib/python3/dist-packages/ubfab" ]; then
		rc=0
		in_root "$tmp/root" python3 -c 'import ubfab, ubfab._lib; print(ubfab._lib.lib.dll)' \
			2>&1 | sed 's/^/# /' || rc=1
	fi
	result "$rc" "import ubfab in the root (python3-ubfab over libubfab-ffi1)"

	# What the VM gets of the packages, under /x/pkg: only the installed
	# files, not the build tree's.
	pkg=$tmp/pkg
	mkdir -p "$pkg/bin" "$pkg/lib"
	cp "$tmp"/root/usr/bin/{ubctl,ubbench} "$pkg/bin/" 2>/dev/null || true
	cp -P "$tmp"/root/usr/lib/*/libubfab*.so.* "$pkg/lib/" 2>/dev/null || true
	cp "$ROOT/tools/deb/guest.sh" "$ROOT/tools/deb/ktap.sh" "$pkg/"
	for i in 0 1; do
		kver=${KVERS[$i]}
		rc=0
		grep -q "^ubfab/[^,]*, $kver, [^:]*: installed" <<<"$status" &&
			dkms_module "$kver" || rc=1
		result "$rc" "DKMS built and installed ubfab.ko for $kver"
		if [ "$rc" -ne 0 ]; then
			result 1 "VM on $kver: not run, no DKMS-built module"
			continue
		fi
		echo "# deb test: VM on $kver with the DKMS-built module"
		rc=0
		"$ROOT/tools/vm/ubvm" -k "${SERIES[$i]}" -t 300 \
			-M "$tmp/ubfab-$kver.ko" -x "$pkg" -- \
			/x/pkg/guest.sh >"$tmp/vm" 2>&1 || rc=$?
		count_vm "$tmp/vm" "$rc" "VM on $kver"
	done
	echo "# deb test: $((SECONDS - t0)) s"
	totals
	[ "$fail" -eq 0 ]
}

main

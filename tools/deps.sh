#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/deps.sh - installs and caches everything ubfab builds and tests need.
#
# Owns: the list of Debian packages, the choice of the newest 6.1, 6.12 and
# 6.12 PREEMPT_RT kernels in the apt archive, the kernel images and the
# kernel source files kept in $UBFAB_CACHE, and $UBFAB_CACHE/env.mk
# (env.sh) that records them.
# Idempotent: when everything is in place it only reads apt's local package
# lists (no network) and finishes in about two seconds.

set -euo pipefail

usage() {
	cat <<EOF
Usage: tools/deps.sh [-h]

Installs the Debian packages ubfab needs, the headers of the newest
Debian 6.1, 6.12 and 6.12 PREEMPT_RT (rt-amd64) kernels, extracts their
images and the 9p modules of ubvm -R (for the test VM), the kselftest
harness, checkpatch and the kernel's netlink spec tools (ynl-gen-c.py and
the genetlink schemas; from linux-source-6.12) into the cache, and writes
\$UBFAB_CACHE/env.mk and env.sh. Runs apt-get update only when something is missing. Log of apt's
output: \$UBFAB_CACHE/deps.log.

Environment:
  UBFAB_CACHE   cache directory (default \$HOME/.cache/ubfab)
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

UBFAB_CACHE=${UBFAB_CACHE:-$HOME/.cache/ubfab}

# Debian packages, by purpose.
PACKAGES=(
	build-essential make gcc pkg-config	# compilers for all parts
	libnl-3-dev libnl-genl-3-dev		# libubfab's netlink client
	abigail-tools				# libubfab's ABI check (abidiff)
	sparse perl shellcheck			# make lint (sparse, checkpatch.pl, shellcheck)
	python3-docutils			# make lint (Documentation/*.rst)
	python3-pyflakes			# make lint (python/)
	python3-yaml python3-jsonschema		# make check (tools/ynl/nlgen.py)
	qemu-system-x86 busybox-static cpio	# the test VM and its initramfs
	jq					# make bench-compare's table, check-bench
	graphviz				# host.sh lays out ubctl -f dot's graphs
	chromium				# host.sh draws a timeline headless
	python3-matplotlib			# tools/plot/ubplot's charts
	scdoc mandoc				# man pages: make man, their lint
	kmod xz-utils zstd			# depmod for the VM; unpacking kernels
	python3-numpy python3-pytest		# make check-python (python/)
	bc flex bison libelf-dev libssl-dev pahole # building a debug kernel
	debhelper dh-dkms dh-python lintian	# make deb
	debootstrap				# make check's clean root for the packages
	libpmix-dev				# libubshmem's bootstrap under mpirun
	openmpi-bin iproute2			# make check-mpi (mpirun, lo up)
)

# Kernels: "<series> <flavour>"; env.mk gets UBFAB_KVER_<series>[_<FLAVOUR>],
# e.g. UBFAB_KVER_6_12_RT for the PREEMPT_RT kernel (make check-debug).
KERNELS=("6.1 amd64" "6.12 amd64" "6.12 rt-amd64")

# The kernel source that provides the kselftest harness, checkpatch and the
# netlink spec tools.
SRC_PKG=linux-source-6.12

DL=$UBFAB_CACHE/dl
LOG=$UBFAB_CACHE/deps.log
SUDO=()
UPDATED=0
PKGNAMES=""	# apt-cache pkgnames linux-, read once per apt list state

step() { printf 'deps: %s\n' "$*"; }

die() {
	printf 'deps: error: %s\n' "$*" >&2
	if [ -s "$LOG" ]; then
		printf 'deps: last lines of %s:\n' "$LOG" >&2
		tail -n 20 "$LOG" >&2
	fi
	exit 1
}

# Runs a command with its output going to the log.
logged() {
	printf '+ %s\n' "$*" >>"$LOG"
	"$@" >>"$LOG" 2>&1
}

apt_get() {
	# Waits for another apt or dpkg to finish rather than failing.
	logged "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get -y -q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=600 \
		"$@" || die "apt-get $* failed"
}

apt_update() {
	[ "$UPDATED" -eq 0 ] || return 0
	step "apt-get update"
	apt_get update
	UPDATED=1
	PKGNAMES=""
}

# Loads the names of the linux-* packages in apt's lists into PKGNAMES.
load_pkgnames() {
	[ -n "$PKGNAMES" ] || PKGNAMES=$(apt-cache pkgnames linux-) || true
}

# Prints those of the given packages that are not installed.
missing_packages() {
	local have

	have=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" \
		2>/dev/null | awk '$1 == "ii" { print $2 }') || true
	printf '%s\n' "$@" | grep -vxF -e "$have" || true
}

# Prints the newest kernel release of a series and flavour for which both
# linux-headers-<kver> and linux-image-<kver>-unsigned are in apt's lists.
newest_kver() {
	local series=$1 flavour=$2 re

	re="${series//./\\.}\\.[0-9][^-]*(-[0-9]+)?-${flavour//./\\.}"
	load_pkgnames
	comm -12 \
		<(sed -nE "s/^linux-headers-($re)\$/\\1/p" <<<"$PKGNAMES" |
		  sort) \
		<(sed -nE "s/^linux-image-($re)-unsigned\$/\\1/p" <<<"$PKGNAMES" |
		  sort) |
		sort -V | tail -n 1
}

# Prints the candidate version of a package, or nothing.
candidate() {
	apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}

# Downloads a package version into $DL unless it is there; prints its path.
fetch_deb() {
	local pkg=$1 ver=$2 deb

	deb=$DL/${pkg}_${ver//:/%3a}_$(dpkg --print-architecture).deb
	[ -e "$deb" ] || deb=$DL/${pkg}_${ver//:/%3a}_all.deb
	if [ ! -e "$deb" ]; then
		# As root apt drops to user _apt, who cannot write to $HOME.
		(cd "$DL" && logged apt-get download -q \
			-o APT::Sandbox::User="$(id -un)" "$pkg=$ver") ||
			die "apt-get download $pkg=$ver failed"
		deb=$(ls "$DL/${pkg}_${ver//:/%3a}"_*.deb)
	fi
	printf '%s\n' "$deb"
}

ensure_packages() {
	local missing

	mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
	if [ ${#missing[@]} -eq 0 ]; then
		step "packages: ok"
		return
	fi
	apt_update
	step "packages: installing ${missing[*]}"
	apt_get install --no-install-recommends "${missing[@]}"
}

# Decompresses the vmlinux ELF image inside a bzImage. QEMU boots it
# directly (PVH entry), which saves the guest from decompressing it: 3-7 s
# per boot under emulation.
extract_vmlinux() {
	local bzimage=$1 config=$2 out=$3 magic unpack off

	grep -q '^CONFIG_PVH=y' "$config" || return 0
	case $(grep -o '^CONFIG_KERNEL_[A-Z0-9]*=y' "$config") in
	CONFIG_KERNEL_XZ=y) magic='\xfd7zXZ\x00' unpack='xz -dc --single-stream' ;;
	CONFIG_KERNEL_ZSTD=y) magic='\x28\xb5\x2f\xfd' unpack='zstd -dcq' ;;
	CONFIG_KERNEL_GZIP=y) magic='\x1f\x8b\x08' unpack='gzip -dcq' ;;
	*) return 0 ;;
	esac
	off=$(LC_ALL=C grep -obUaP "$magic" "$bzimage" | head -n 1 |
		cut -d : -f 1) || true
	[ -n "$off" ] || return 0
	# The decompressors complain about the data after the stream.
	tail -c +$((off + 1)) "$bzimage" | $unpack >"$out.tmp" 2>/dev/null ||
		true
	if [ "$(head -c 4 "$out.tmp")" = $'\x7fELF' ]; then
		mv "$out.tmp" "$out"
	else
		rm -f "$out.tmp"
	fi
}

# Extracts from a kernel's image package the modules a VM needs to mount
# the host's root over virtio-9p (ubvm -R) to $UBFAB_CACHE/kernels/<kver>/
# modules/, with the kernel's paths: 9p, netfs, fscache, virtio.
extract_vm_modules() {
	local dir=$UBFAB_CACHE/kernels/$1 deb tmp m=./lib/modules/$1/kernel
	local debs=("$DL/linux-image-$1-unsigned_"*.deb)

	[ ! -d "$dir/modules" ] || return 0
	if [ -e "${debs[0]}" ]; then
		deb=${debs[0]}
	else
		apt_update
		deb=$(fetch_deb "linux-image-$1-unsigned" \
			"$(candidate "linux-image-$1-unsigned")")
	fi
	tmp=$(mktemp -d "$UBFAB_CACHE/kernels/.tmp.XXXXXX")
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tmp" --wildcards "$m/fs/9p/*" "$m/net/9p/*" \
			"$m/fs/netfs/*" "$m/drivers/virtio/*" \
			"./lib/modules/$1/modules.builtin*" ||
		die "cannot extract the 9p modules from $deb"
	# fscache is a module in 6.1 only.
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tmp" --wildcards "$m/fs/fscache/*" 2>/dev/null ||
		true
	mv "$tmp/lib/modules/$1" "$dir/modules"
	rm -rf "$tmp"
}

# Sets KVER to the kernel of a series and flavour, installing its headers
# and extracting vmlinuz, its vmlinux and config to
# $UBFAB_CACHE/kernels/<kver>/, and the modules extract_vm_modules() names.
ensure_kernel() {
	local series=$1 flavour=$2 dir tmp deb

	KVER=$(newest_kver "$series" "$flavour")
	dir=$UBFAB_CACHE/kernels/$KVER
	if [ -n "$KVER" ] && [ -e "$dir/vmlinuz" ] &&
	   [ -z "$(missing_packages "linux-headers-$KVER")" ]; then
		[ -e "$dir/vmlinux" ] ||
			extract_vmlinux "$dir/vmlinuz" "$dir/config" "$dir/vmlinux"
		extract_vm_modules "$KVER"
		step "kernel $series ($flavour): $KVER ok"
		return
	fi
	apt_update
	KVER=$(newest_kver "$series" "$flavour")
	[ -n "$KVER" ] || die "no $series $flavour kernel in the apt archive"
	dir=$UBFAB_CACHE/kernels/$KVER
	step "kernel $series ($flavour): installing $KVER"
	if [ -n "$(missing_packages "linux-headers-$KVER")" ]; then
		apt_get install --no-install-recommends "linux-headers-$KVER"
	fi
	if [ ! -e "$dir/vmlinuz" ]; then
		deb=$(fetch_deb "linux-image-$KVER-unsigned" \
			"$(candidate "linux-image-$KVER-unsigned")")
		tmp=$(mktemp -d "$UBFAB_CACHE/kernels/.tmp.XXXXXX")
		# Only two files of the package are needed: do not unpack
		# its 400 MB of modules.
		dpkg-deb --fsys-tarfile "$deb" |
			tar -x -C "$tmp" "./boot/vmlinuz-$KVER" \
				"./boot/config-$KVER" ||
			die "cannot extract the kernel from $deb"
		extract_vmlinux "$tmp/boot/vmlinuz-$KVER" \
			"$tmp/boot/config-$KVER" "$tmp/boot/vmlinux"
		mkdir -p "$dir"
		[ ! -e "$tmp/boot/vmlinux" ] || mv "$tmp/boot/vmlinux" "$dir/vmlinux"
		mv "$tmp/boot/config-$KVER" "$dir/config"
		mv "$tmp/boot/vmlinuz-$KVER" "$dir/vmlinuz"
		rm -rf "$tmp"
	fi
	extract_vm_modules "$KVER"
}

# Sets KSRC to the kernel source tarball, kept with the kselftest harness,
# checkpatch and the netlink spec tools extracted from it; the last keep the
# source's layout under $UBFAB_CACHE/ynl (ynl-gen-c.py finds the schemas
# by it).
ensure_source() {
	local ver stamp=$UBFAB_CACHE/src/$SRC_PKG.version old="" tmp deb top

	[ -e "$stamp" ] && old=$(cat "$stamp")
	ver=$(candidate "$SRC_PKG")
	if [ -n "$old" ] && { [ -z "$ver" ] || [ "$ver" = "$old" ]; }; then
		KSRC=$UBFAB_CACHE/src/${SRC_PKG}_$old.tar.xz
		if [ -e "$KSRC" ] &&
		   [ -e "$UBFAB_CACHE/kselftest/kselftest_harness.h" ] &&
		   [ -e "$UBFAB_CACHE/checkpatch/checkpatch.pl" ] &&
		   [ -e "$UBFAB_CACHE/ynl/tools/net/ynl/ynl-gen-c.py" ]; then
			step "kernel source: $SRC_PKG $old ok"
			return
		fi
	fi
	apt_update
	ver=$(candidate "$SRC_PKG")
	[ -n "$ver" ] || die "no $SRC_PKG in the apt archive"
	step "kernel source: extracting $SRC_PKG $ver"
	deb=$(fetch_deb "$SRC_PKG" "$ver")
	KSRC=$UBFAB_CACHE/src/${SRC_PKG}_$ver.tar.xz
	tmp=$(mktemp -d "$UBFAB_CACHE/src/.tmp.XXXXXX")
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tmp" "./usr/src/$SRC_PKG.tar.xz" ||
		die "cannot extract the tarball from $deb"
	top=$(tar -tJf "$tmp/usr/src/$SRC_PKG.tar.xz" | head -n 1) || true
	top=${top%%/*}
	tar -xJf "$tmp/usr/src/$SRC_PKG.tar.xz" -C "$tmp" \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch" \
		"$top/tools/testing/selftests/kselftest.h" \
		"$top/tools/testing/selftests/kselftest_harness.h" \
		"$top/tools/net/ynl/ynl-gen-c.py" "$top/tools/net/ynl/lib" \
		--wildcards "$top/Documentation/netlink/genetlink*.yaml" ||
		die "cannot extract kselftest, checkpatch and ynl from $SRC_PKG"
	rm -rf "$UBFAB_CACHE/kselftest" "$UBFAB_CACHE/checkpatch" \
		"$UBFAB_CACHE/ynl"
	mv "$tmp/$top/tools/testing/selftests" "$UBFAB_CACHE/kselftest"
	mv "$tmp/$top/scripts" "$UBFAB_CACHE/checkpatch"
	mkdir -p "$UBFAB_CACHE/ynl/tools/net"
	mv "$tmp/$top/tools/net/ynl" "$UBFAB_CACHE/ynl/tools/net/"
	mv "$tmp/$top/Documentation" "$UBFAB_CACHE/ynl/"
	rm -f "$UBFAB_CACHE/src/${SRC_PKG}_"*.tar.xz
	mv "$tmp/usr/src/$SRC_PKG.tar.xz" "$KSRC"
	printf '%s\n' "$ver" >"$stamp"
	rm -rf "$tmp"
}

# Replaces a file only when its content changes (make restarts when the
# env.mk it includes changes).
install_if_changed() {
	if cmp -s "$1" "$2"; then
		rm -f "$1"
	else
		mv "$1" "$2"
		step "wrote $2"
	fi
}

main() {
	local spec series flavour var vars=() name

	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null ||
			die "not root and no sudo: cannot install packages"
		SUDO=(sudo)
	fi
	mkdir -p "$UBFAB_CACHE/kernels" "$UBFAB_CACHE/src" "$DL"
	# Serialise concurrent runs (several make invocations at once).
	exec 9>"$UBFAB_CACHE/.deps.lock"
	flock 9
	: >"$LOG"
	# Left over by an interrupted run.
	rm -rf "$UBFAB_CACHE"/kernels/.tmp.* "$UBFAB_CACHE"/src/.tmp.*

	# Without package lists nothing can be resolved.
	load_pkgnames
	[ -n "$PKGNAMES" ] || apt_update
	ensure_packages
	for spec in "${KERNELS[@]}"; do
		read -r series flavour <<<"$spec"
		ensure_kernel "$series" "$flavour"
		var=UBFAB_KVER_${series//./_}
		[ "$flavour" = amd64 ] ||
			var=${var}_$(tr a-z- A-Z_ <<<"${flavour%-amd64}")
		vars+=("$var=$KVER")
		vars+=("${var/KVER/KDIR}=/usr/src/linux-headers-$KVER")
	done
	ensure_source
	vars+=("UBFAB_KSELFTEST=$UBFAB_CACHE/kselftest"
	       "UBFAB_CHECKPATCH=$UBFAB_CACHE/checkpatch/checkpatch.pl"
	       "UBFAB_KSRC_6_12=$KSRC")

	{
		echo "# Generated by tools/deps.sh: do not edit."
		echo "UBFAB_CACHE := $UBFAB_CACHE"
		for var in "${vars[@]}"; do
			echo "${var%%=*} := ${var#*=}"
		done
	} >"$UBFAB_CACHE/env.mk.tmp"
	{
		echo "# Generated by tools/deps.sh: do not edit."
		printf 'UBFAB_CACHE=%q\n' "$UBFAB_CACHE"
		for var in "${vars[@]}"; do
			name=${var%%=*}
			printf '%s=%q\n' "$name" "${var#*=}"
		done
	} >"$UBFAB_CACHE/env.sh.tmp"
	install_if_changed "$UBFAB_CACHE/env.mk.tmp" "$UBFAB_CACHE/env.mk"
	install_if_changed "$UBFAB_CACHE/env.sh.tmp" "$UBFAB_CACHE/env.sh"
}

main

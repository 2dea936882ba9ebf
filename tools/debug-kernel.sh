#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/debug-kernel.sh - builds ubfab's debug kernel (KASAN, KFENCE, UBSAN,
# lockdep, kmemleak, KUnit, fault injection) from Debian's linux-source-6.12
# and caches it outside the checkout. Owns this script and the Kconfig
# fragment tools/debug-kernel.config; nothing else.
#
# Cache: ${UBFAB_CACHE:-$HOME/.cache/ubfab}/debug-kernel/<key>/ with
#   bzImage  the kernel to boot (build/vmlinux boots too, via PVH)
#   config   its .config
#   build/   the built source tree, usable as KDIR (make -C KDIR M=...);
#            object files are pruned
#   info     key, source version, kernel release, build time
#   build.log
# <key> = <source package version>-<hash of the fragment's settings (not
# its comments), the build recipe below and the compiler version>; the
# kernel release is 6.12.<n>-ubfab-debug-<first 8 hex of that hash>.
# A finished build is renamed into place in one step; only a directory
# with an info file counts as built.

set -euo pipefail

PKG=linux-source-6.12
TARBALL_MEMBER=./usr/src/$PKG.tar.xz
BUILD_DEPS=(make gcc bc flex bison libelf-dev libssl-dev xz-utils)

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FRAGMENT=$SELF_DIR/debug-kernel.config
CACHE=${UBFAB_CACHE:-$HOME/.cache/ubfab}
DK_ROOT=$CACHE/debug-kernel
DL_DIR=$CACHE/dl

usage()
{
	cat <<EOF
Usage: tools/debug-kernel.sh [--print | --help]

Build (first run only) and cache a debug kernel for ubfab's tests from
Debian's $PKG, configured as tinyconfig + tools/debug-kernel.config.

  (no option)  build unless already cached, then print the paths
  --print      print the paths of the cached kernel without building;
               exit 1 if it has not been built
  --help       show this help

Paths are printed as shell assignments on stdout:
  KVER=<kernel release>  BZIMAGE=<bzImage>  KDIR=<build tree>  CONFIG=<.config>
Progress goes to stderr. Cache root: \$UBFAB_CACHE/debug-kernel
(currently $DK_ROOT).
EOF
}

msg()
{
	printf 'debug-kernel: %s\n' "$*" >&2
}

die()
{
	msg "error: $*"
	exit 1
}

# The version apt would install, else the newest one on this machine
# (installed package, tarball from tools/deps.sh, cached .deb); empty if
# none is known.
source_version()
{
	local v f best=

	v=$(apt-cache policy "$PKG" 2>/dev/null |
	    sed -n 's/^  Candidate: //p')
	if [[ -n $v && $v != "(none)" ]]; then
		echo "$v"
		return
	fi
	if [[ -f /usr/src/$PKG.tar.xz ]]; then
		best=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null || true)
	fi
	for f in "$CACHE/src/${PKG}_"*.tar.xz "$DL_DIR/${PKG}_"*_all.deb; do
		[[ -f $f ]] || continue
		v=${f##*/"${PKG}"_}
		v=${v%.tar.xz}
		v=${v%_all.deb}
		if [[ -z $best ]] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
	done
	echo "$best"
}

# The build recipe: its text is part of the cache key.
configure_kernel()
{
	local tree=$1

	make -C "$tree" tinyconfig &&
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$FRAGMENT") &&
	make -C "$tree" olddefconfig
}

verify_config()
{
	local config=$1 line sym bad=0

	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$config" && continue
			sym=${line%%=*}
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			grep -q "^$sym=" "$config" || continue
			;;
		*)
			continue
			;;
		esac
		msg "config mismatch: wanted '$line', got '$(grep -m1 \
			-e "^$sym=" -e "^# $sym is not set" "$config" ||
			echo "$sym absent")'"
		bad=1
	done <"$FRAGMENT"
	return "$bad"
}

# The release carries the key's hash: a module built against one
# configuration cannot be loaded into a kernel built from another.
build_kernel()
{
	local tree=$1 tag=$2 stamp

	stamp=$(date -u -R -d "@$(stat -c %Y "$tree/Makefile")") || return
	make -C "$tree" -j"$(nproc)" LOCALVERSION="-$tag" \
		KBUILD_BUILD_TIMESTAMP="$stamp" KBUILD_BUILD_VERSION=1 \
		KBUILD_BUILD_USER=ubfab KBUILD_BUILD_HOST=ubfab \
		bzImage modules
}

# Object files and archives are not needed to build external modules.
prune_tree()
{
	local tree=$1

	find "$tree" -type f \( -name '*.o' -o -name '*.a' \
		-o -name '.tmp_vmlinux*' -o -name 'vmlinux.bin*' \) -delete
}

# Build a hello-world module against the tree, as a user of KDIR would.
selftest_kdir()
{
	local tree=$1 dir=$2 krel

	krel=$(cat "$tree/include/config/kernel.release") &&
	mkdir -p "$dir" &&
	cat >"$dir/hello.c" <<'EOF' &&
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>

static int __init hello_init(void)
{
	pr_info("hello: loaded\n");
	return 0;
}
module_init(hello_init);

static void __exit hello_exit(void)
{
	pr_info("hello: unloaded\n");
}
module_exit(hello_exit);

MODULE_DESCRIPTION("debug kernel KDIR self-test");
MODULE_LICENSE("GPL");
EOF
	echo 'obj-m := hello.o' >"$dir/Kbuild" &&
	make -C "$tree" M="$dir" modules &&
	grep -aq "vermagic=$krel " "$dir/hello.ko"
}

cache_key()
{
	local version=$1 hash

	hash=$({
		grep -E '^(CONFIG_|# CONFIG_)' "$FRAGMENT"
		declare -f configure_kernel verify_config build_kernel \
			prune_tree selftest_kdir
		gcc --version | head -n1
	} | sha256sum)
	printf '%s-%s\n' "${version//[^A-Za-z0-9.+_-]/_}" "${hash:0:16}"
}

print_paths()
{
	local dir=$1

	printf 'KVER=%s\n' "$(sed -n 's/^kernel_release=//p' "$dir/info")"
	printf 'BZIMAGE=%s\n' "$dir/bzImage"
	printf 'KDIR=%s\n' "$dir/build"
	printf 'CONFIG=%s\n' "$dir/config"
}

install_build_deps()
{
	local pkg missing=()

	for pkg in "${BUILD_DEPS[@]}"; do
		[[ $(dpkg-query -W -f='${db:Status-Status}' "$pkg" \
			2>/dev/null) == installed ]] || missing+=("$pkg")
	done
	((${#missing[@]})) || return 0
	[[ $EUID -eq 0 ]] ||
		die "missing build dependencies (run as root or install): ${missing[*]}"
	msg "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		-o DPkg::Lock::Timeout=600 --no-install-recommends \
		"${missing[@]}" >&2
}

# Print the path of a tarball or .deb holding source version $1: the
# tarball tools/deps.sh keeps in $CACHE/src, the installed package's, or a
# .deb in $DL_DIR, downloaded there if none of these is on this machine.
fetch_source()
{
	local version=$1 deb tmp

	if [[ -f $CACHE/src/${PKG}_$version.tar.xz ]]; then
		echo "$CACHE/src/${PKG}_$version.tar.xz"
		return
	fi
	if [[ -f /usr/src/$PKG.tar.xz &&
	      $(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null) == "$version" ]]
	then
		echo "/usr/src/$PKG.tar.xz"
		return
	fi
	deb=$DL_DIR/${PKG}_${version/#*:/}_all.deb
	if [[ ! -f $deb ]]; then
		msg "downloading $PKG=$version"
		mkdir -p "$DL_DIR"
		tmp=$(mktemp -d "$DL_DIR/.tmp.XXXXXX")
		(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root \
			"$PKG=$version") >&2 || { rm -rf "$tmp"; die "download failed"; }
		mv -f "$tmp"/*.deb "$deb"
		rmdir "$tmp"
	fi
	echo "$deb"
}

unpack_source()
{
	local src=$1 tree=$2

	mkdir -p "$tree"
	if [[ $src == *.deb ]]; then
		dpkg-deb --fsys-tarfile "$src" | tar -xO "$TARBALL_MEMBER" |
			tar -xJ -C "$tree" --strip-components=1
	else
		tar -xJf "$src" -C "$tree" --strip-components=1
	fi
}

# Run one recipe step with its output in the log; on failure show the tail.
# Steps run where errexit does not apply, so recipe functions chain with &&.
step()
{
	local name=$1 log=$2 t0=$SECONDS

	shift 2
	msg "$name ..."
	if ! "$@" >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "$name failed (log: $log)"
	fi
	msg "$name done in $((SECONDS - t0)) s"
}

build()
{
	local version=$1 key=$2 dir=$3 src tmp log t0=$SECONDS

	src=$(fetch_source "$version")
	# A fixed path (the lock is held) keeps the build reproducible. The
	# log stays beside it, so a failed build leaves it behind.
	tmp=$DK_ROOT/.tmp-$key
	BUILD_TMP=$tmp
	trap 'rm -rf "$BUILD_TMP"' EXIT
	mkdir -m 755 "$tmp"
	log=$DK_ROOT/build-$key.log
	: >"$log"
	msg "building $key (log: $log)"
	step "unpacking $src" "$log" unpack_source "$src" "$tmp/build"
	step "configuring" "$log" configure_kernel "$tmp/build"
	msg "verifying .config against ${FRAGMENT##*/}"
	verify_config "$tmp/build/.config" ||
		die "the fragment does not hold in the final .config"
	step "building bzImage modules with -j$(nproc)" "$log" \
		build_kernel "$tmp/build" "${key: -16:8}"
	step "pruning objects" "$log" prune_tree "$tmp/build"
	step "building a test module against KDIR" "$log" \
		selftest_kdir "$tmp/build" "$tmp/selftest"
	rm -rf "$tmp/selftest"
	cp "$tmp/build/arch/x86/boot/bzImage" "$tmp/bzImage"
	cp "$tmp/build/.config" "$tmp/config"
	cat >"$tmp/info" <<EOF
key=$key
source_version=$version
kernel_release=$(cat "$tmp/build/include/config/kernel.release")
build_seconds=$((SECONDS - t0))
built=$(date -u +%Y-%m-%dT%H:%M:%SZ)
EOF
	mv "$log" "$tmp/build.log"
	mv -T "$tmp" "$dir"
	trap - EXIT
	msg "built in $((SECONDS - t0)) s"
}

main()
{
	local mode=build version key dir

	case ${1-} in
	"") ;;
	--print) mode=print ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	(($# <= 1)) || { usage >&2; exit 2; }
	[[ $(uname -m) == x86_64 ]] || die "only x86_64 hosts are supported"
	[[ -f $FRAGMENT ]] || die "missing $FRAGMENT"
	[[ $CACHE != *[[:space:]:]* ]] ||
		die "UBFAB_CACHE must not contain spaces or ':' (Kbuild): $CACHE"

	# The compiler is part of the key: install it before computing that.
	if [[ $mode == build ]]; then
		install_build_deps
	elif ! command -v gcc >/dev/null; then
		die "not built yet (no gcc on this machine)"
	fi
	version=$(source_version)
	[[ -n $version ]] || die "no version of $PKG known to apt or in $DL_DIR"
	key=$(cache_key "$version")
	dir=$DK_ROOT/$key

	if [[ $mode == print ]]; then
		[[ -f $dir/info ]] ||
			die "not built yet ($dir); run tools/debug-kernel.sh"
		print_paths "$dir"
		exit 0
	fi

	if [[ ! -f $dir/info ]]; then
		mkdir -p "$DK_ROOT"
		exec 9>"$DK_ROOT/.lock"
		if ! flock -n 9; then
			msg "waiting for another build to finish"
			flock 9
		fi
		if [[ ! -f $dir/info ]]; then
			# Holding the lock: leftovers are from earlier attempts.
			rm -rf "$DK_ROOT"/.tmp-* "$DK_ROOT"/build-*.log "$dir"
			build "$version" "$key" "$dir"
		fi
		exec 9>&-
	fi
	print_paths "$dir"
}

main "$@"

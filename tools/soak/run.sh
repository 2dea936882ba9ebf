#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/soak/run.sh - host side of `make soak`: boots the test VM with
# ubfab.ko (profile=cm384), runs build/tools/soak/soak in it for the given
# minutes, unloads the module and has kmemleak scan (ubvm -l), fails on
# any kernel log report (ubvm runs tools/vm/logscan), and keeps soak's
# JSON as build/soak/soak-<release>-<UTC date>.json.

set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
SOAK=$ROOT/build/tools/soak/soak

usage() {
	cat <<EOF
Usage: tools/soak/run.sh [-k KERNEL] [-m MINUTES] [-o DIR] [-- soak options]

Runs the soak (build/tools/soak/soak, \`make soak\` builds it) in the
test VM: tools/vm/ubvm -l -p profile=cm384 (1 GiB), for MINUTES, then
unloads ubfab.ko, has kmemleak scan and scans the kernel log. Prints the
soak's summary and writes its JSON to DIR/soak-<release>-<UTC date>.json
(the path is printed). soak options (soak -h) follow the --.

  -k KERNEL  kernel to boot, as ubvm -k takes it (default debug: the
             kernel with KASAN, lockdep and kmemleak)
  -m MINUTES length of the load (default 20)
  -o DIR     where the JSON goes (default build/soak)
  -h, --help this help

Exit status: soak's or ubvm's (0 passed, 1 a soak check failed, 2 usage
or setup error, 123 the kernel log has reports or kmemleak found leaks,
124 time limit, 125 the VM did not report; see tools/vm/ubvm -h).
EOF
}

kernel=debug minutes=20 outdir=$ROOT/build/soak
while getopts "k:m:o:h-:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	m) minutes=$OPTARG ;;
	o) outdir=$OPTARG ;;
	h) usage; exit 0 ;;
	-) [[ $OPTARG == help ]] || { usage >&2; exit 2; }
	   usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $minutes =~ ^[1-9][0-9]*$ ]] || { usage >&2; exit 2; }
[[ -x $SOAK ]] || { echo "run.sh: no $SOAK: make soak builds it" >&2; exit 2; }

mkdir -p "$outdir"
tmp=$(mktemp -d "$outdir/.soak.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
args=""
(($# == 0)) || printf -v args ' %q' "$@"

# The load, its stop (up to a minute), unload, kmemleak and boot: 10
# minutes beyond the load are plenty.
"$ROOT/tools/vm/ubvm" -k "$kernel" -l -p profile=cm384 \
	-t $((minutes * 60 + 600)) -x "$SOAK" -x "$ROOT/tools/soak/guest.sh" \
	-- "sh /x/guest.sh $((minutes * 60))$args" |
	awk -v mark=--soak-json-- -v out="$tmp/soak.json" '
	$1 == mark { on = !on; next }
	on { print > out; next }
	{ print; fflush() }' && rc=0 || rc=${PIPESTATUS[0]}

if [[ ! -s $tmp/soak.json ]]; then
	echo "run.sh: soak wrote no results (exit status $rc)" >&2
	exit $((rc ? rc : 1))
fi
release=$(sed -n 's/^  "kernel": "\(.*\)",$/\1/p' "$tmp/soak.json")
out=$outdir/soak-$release-$(date -u +%Y%m%d-%H%M%S).json
mv "$tmp/soak.json" "$out"
echo "results: ${out#"$ROOT"/}"
case $rc in
0) echo "soak: passed; module unloaded, kernel log clean (and kmemleak," \
	"on a kernel that has it)" ;;
123) echo "soak: the kernel log has reports or kmemleak found leaks" \
	"(build/vm/$release.dmesg)" >&2 ;;
*) echo "soak: failed (exit status $rc)" >&2 ;;
esac
exit "$rc"

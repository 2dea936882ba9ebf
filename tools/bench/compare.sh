#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/compare.sh - `make bench-compare`: ubfab.ko of a base commit
# against ubfab.ko of the working tree, side by side in one VM with one
# ubbench. Owns building the base's module, the rounds' set-up and the
# table; the VM and the transport are tools/bench/vm.sh's and guest.sh's,
# the arithmetic tools/bench/compare.jq's.

set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
# shellcheck source=tools/bench/vm.sh
. "$ROOT/tools/bench/vm.sh"

usage() {
	cat <<EOF
Usage: tools/bench/compare.sh [-k KERNEL] [-r ROUNDS] [-o DIR] BASE
                              [-- ubbench arguments]

Measures ubfab.ko built from commit BASE ("base") against ubfab.ko built
from the working tree ("new"). Builds, for KERNEL: new's module, libubfab
and ubbench as make bench does, and base's module from a copy of BASE's
tree in build/bench/base-<commit>/ with this checkout's Makefile. Boots
one VM (tools/vm/ubvm -D) and runs ROUNDS rounds in it; each round loads,
runs ubbench with, and unloads one module and then the other, the first
of the two alternating from round to round. Both use the same ubbench
(the working tree's), so that only the module differs. ubbench options
and commands (ubbench --help) follow the --; the default is "mem queue",
the timed figures (model's are modeled times, which it does not compare).

Prints each run's table as it comes, then for each figure with a target
and each 64-byte WRITE and SEND rate: the median over the rounds for
base and new, new / base, whether each meets its target (and in how many
rounds), and whether each rate is within 5% of base's; the io_uring NOP
rate is the reference that no module changes. Writes all of it, with
every run's results, as JSON to
DIR/compare-<base>-<kernel release>-<UTC date>.json (the path is printed).

  -k KERNEL  kernel, as ubvm -k and make KVER= take it (default 6.12)
  -r ROUNDS  rounds (default 3)
  -o DIR     where the JSON goes (default build/bench)
  -h, --help this help

Exit status: 0 measured, new meets every target and every rate is within
5%; 3 measured, but not all of that; 1 a measurement failed; 2 usage or
build error; 123-125 see tools/vm/ubvm -h.
EOF
}

die() { echo "compare.sh: $*" >&2; exit 2; }

kernel=6.12 rounds=3 outdir=$ROOT/build/bench
while getopts "k:r:o:h-:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	r) rounds=$OPTARG ;;
	o) outdir=$OPTARG ;;
	h) usage; exit 0 ;;
	-) [[ $OPTARG == help ]] || { usage >&2; exit 2; }
	   usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
(($# >= 1)) || { usage >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "-r: not a number of rounds: $rounds"
command -v jq >/dev/null ||
	die "no jq: install the Debian package jq (make deps does)"
base=$(git -C "$ROOT" rev-parse --verify -q "$1^{commit}") ||
	die "not a commit: $1"
shift
(($# == 0)) || [[ $1 == -- ]] || { usage >&2; exit 2; }
(($# == 0)) || shift
(($#)) || set -- mem queue
new=$(git -C "$ROOT" describe --always --dirty --abbrev=12)

# BASE's tree, once per commit; its module with this checkout's rule.
tree=$ROOT/build/bench/base-$base
if [[ ! -d $tree ]]; then
	mkdir -p "$tree.tmp"
	git -C "$ROOT" archive "$base" | tar -x -C "$tree.tmp"
	mv "$tree.tmp" "$tree"
fi
make_() { make -C "$ROOT" -s --no-print-directory "$@"; }
make_ modules KVER="$kernel" || die "new's module did not build"
make_ modules KVER="$kernel" KMOD_TREE="$tree" MODDIR="$tree/build/$kernel" ||
	die "base's module did not build"
{ make_ lib && make_ -C tools/bench; } || die "ubbench did not build"

mkdir -p "$outdir"
tmp=$(mktemp -d "$outdir/.compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/base"
cp "$tree/build/$kernel/ubfab.ko" "$tmp/base/"

# -n: guest.sh loads the modules: base's from /x/base/, new's where ubvm
# puts it.
bench_vm "$tmp" -k "$kernel" -n -t $((900 * 2 * rounds)) -x "$tmp/base" -- \
	-r "$rounds" base=/x/base/ubfab.ko new -- "$@" && rc=0 || rc=$?
((rc == 0)) || exit "$rc"

runs() {
	local r

	for ((r = 1; r <= rounds; r++)); do
		cat "$tmp/$1-$r.json"
	done
}
release=$(bench_release "$tmp/new-1.json")
out=$outdir/compare-${base:0:12}-$release-$(date -u +%Y%m%d-%H%M%S).json
jq -n --arg base "$base" --arg new "$new" --arg kernel "$release" \
	--argjson rounds "$rounds" --argjson tolerance 0.05 \
	--slurpfile base_runs <(runs base) --slurpfile new_runs <(runs new) \
	--arg args "$*" -f "$ROOT/tools/bench/compare.jq" >"$tmp/compare.json"
mv "$tmp/compare.json" "$out"

# The table, from the JSON.
printf '\nubfab.ko %s (base) against %s (new), one ubbench, %s, rounds: %d\n' \
	"${base:0:12}" "$new" "$release" "$rounds"
printf '\n%-30s %-7s %12s %12s %8s  %-9s %s\n' "target (median of rounds)" \
	target base new new/base base new
jq -r '.figures[] | select(.target) | [.name, .op, .target, .base_median,
	.new_median, .ratio, (("base", "new") as $m | "\(if .["\($m)_met"]
	then "PASS" else "MISS" end) \(.["\($m)_rounds_met"])/\(.[$m] | length)")]
	| @tsv' "$out" |
	while IFS=$'\t' read -r name op target b n ratio bm nm; do
	printf '%-30s %-2s %4.2f %12.3f %12.3f %8.3f  %-9s %s\n' \
		"$name" "$op" "$target" "$b" "$n" "$ratio" "$bm" "$nm"
done
printf '\n%-30s %-7s %12s %12s %8s  %s\n' "64 B rate, ops/s (median)" "" \
	base new new/base "within 5%"
jq -r '.figures[] | select(.target | not) | [.name, .base_median,
	.new_median, .ratio, if .reference then "(reference)"
	elif .within then "yes" elif .ratio < 1 then "NO, slower"
	else "NO, faster" end] | @tsv' "$out" |
	while IFS=$'\t' read -r name b n ratio verdict; do
	printf '%-30s %-7s %12.0f %12.0f %8.3f  %s\n' \
		"$name" "" "$b" "$n" "$ratio" "$verdict"
done
echo "results: ${out#"$ROOT"/}"
jq -e '[.figures[] | select(.new_met == false or .within == false)]
	| length == 0' "$out" >/dev/null || exit 3

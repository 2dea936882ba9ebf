#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/run.sh - host side of `make bench`: boots the test VM without
# allocator debugging, runs ubbench in it, passes its table through and
# keeps its JSON as build/bench/ubbench-<release>-<date>.json.
#
# Owns the transport of the results out of the VM: the guest prints the
# table, then a marker line, then the JSON file; this script splits the two.

set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
MARK=--ubbench-json--

usage() {
	cat <<EOF
Usage: tools/bench/run.sh [-k KERNEL] [-o DIR] [-- ubbench arguments]

Runs build/tools/bench/ubbench in the test VM (tools/vm/ubvm -D, ubfab.ko
with its default parameters), prints its table and writes its results as
JSON to DIR/ubbench-<kernel release>-<UTC date>.json (the path is
printed). ubbench options and commands (ubbench --help) follow the --.

  -k KERNEL  kernel to boot, as ubvm -k takes it (default 6.12)
  -o DIR     where the JSON goes (default build/bench)
  -h, --help this help

Exit status: ubbench's or ubvm's (0 measured, 1 a measurement failed,
2 usage error, 123-125 see tools/vm/ubvm -h).
EOF
}

kernel=6.12 outdir=$ROOT/build/bench
while getopts "k:o:h-:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	o) outdir=$OPTARG ;;
	h) usage; exit 0 ;;
	-) [[ $OPTARG == help ]] || { usage >&2; exit 2; }
	   usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

bench=$ROOT/build/tools/bench/ubbench
[[ -x $bench ]] || { echo "run.sh: no $bench: make bench builds it" >&2; exit 2; }
mkdir -p "$outdir"
json=$(mktemp "$outdir/.ubbench.XXXXXX")
raw=$(mktemp)
trap 'rm -f "$json" "$raw"' EXIT

args=""
(($# == 0)) || printf -v args ' %q' "$@"
"$ROOT/tools/vm/ubvm" -k "$kernel" -D -t 900 -x "$bench" -- \
	"/x/ubbench --json /tmp/bench.json$args && echo $MARK &&
	 cat /tmp/bench.json" >"$raw" && rc=0 || rc=$?
# The table (or what went wrong) to stdout; what follows the marker, to
# $json.
awk -v mark="$MARK" -v json="$json" '
	$0 == mark { found = 1; next }
	found { print > json; next }
	{ print }' "$raw"
((rc == 0)) || exit "$rc"

release=$(sed -n 's/^  "kernel": "\(.*\)",$/\1/p' "$json")
[[ -n $release ]] || { echo "run.sh: ubbench wrote no results" >&2; exit 1; }
out=$outdir/ubbench-$release-$(date -u +%Y%m%d-%H%M%S).json
chmod 0644 "$json"
mv "$json" "$out"
echo "results: ${out#"$ROOT"/}"

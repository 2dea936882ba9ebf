#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/run.sh - host side of `make bench`: boots the test VM without
# allocator debugging, runs ubbench in it, passes its table through and
# keeps its JSON as build/bench/<name>-<release>-<date>.json (name
# ubbench, or -n's). The VM and the transport of the results are
# tools/bench/vm.sh's and guest.sh's.

set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
# shellcheck source=tools/bench/vm.sh
. "$ROOT/tools/bench/vm.sh"

usage() {
	cat <<EOF
Usage: tools/bench/run.sh [-k KERNEL] [-p PARAMS] [-m MEM] [-n NAME]
                          [-o DIR] [-- ubbench arguments]

Runs build/tools/bench/ubbench in the test VM (tools/vm/ubvm -D, ubfab.ko
with its default parameters or PARAMS; build/tools/ubrun beside it, for
coll and ep), prints its table and writes its results as JSON to
DIR/NAME-<kernel release>-<UTC date>.json (the path is printed). ubbench
options and commands (ubbench --help) follow the --.

  -k KERNEL  kernel to boot, as ubvm -k takes it (default 6.12)
  -p PARAMS  module parameters, as ubvm -p takes them (make bench runs
             ubbench queue scale with -p profile=cm384)
  -m MEM     the VM's memory, as ubvm -m takes it (default ubvm's, 1G;
             make bench gives ubbench ep 2G)
  -n NAME    the JSON file's name before the release (default ubbench;
             make bench names coll's and ep's so)
  -o DIR     where the JSON goes (default build/bench)
  -h, --help this help

Exit status: ubbench's or ubvm's (0 measured, 1 a measurement failed or
a model cell is beyond the tolerance, 2 usage error, 123-125 see
tools/vm/ubvm -h). The JSON is kept whenever ubbench wrote it, as it does
for a model cell beyond the tolerance.
EOF
}

kernel=6.12 outdir=$ROOT/build/bench params=() name=ubbench
while getopts "k:p:m:n:o:h-:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	p) params=(-p "$OPTARG") ;;
	m) params+=(-m "$OPTARG") ;;
	n) name=$OPTARG ;;
	o) outdir=$OPTARG ;;
	h) usage; exit 0 ;;
	-) [[ $OPTARG == help ]] || { usage >&2; exit 2; }
	   usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

mkdir -p "$outdir"
tmp=$(mktemp -d "$outdir/.ubbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

bench_vm "$tmp" -k "$kernel" "${params[@]}" -t 900 -- -- "$@" && rc=0 || rc=$?

json=$tmp/ubbench.json
release=$([[ ! -e $json ]] || bench_release "$json")
if [[ -z $release ]]; then
	((rc != 0)) || echo "run.sh: ubbench wrote no results" >&2
	exit $((rc ? rc : 1))
fi
out=$outdir/$name-$release-$(date -u +%Y%m%d-%H%M%S).json
mv "$json" "$out"
echo "results: ${out#"$ROOT"/}"
exit "$rc"

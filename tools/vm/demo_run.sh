#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/demo_run.sh - host side of `make demo`: boots the test VM with
# ubfab.ko profile=cm384 and runs tools/vm/demo.sh in it, passes what it
# prints through (ubvm's messages in their place among its lines), keeps
# the JSON files it sends in the output directory and draws the charts of
# them with tools/plot/ubplot (Documentation/plots.rst): the bandwidth of
# each plane over the scenario's modeled time (sent and received at the
# ports), the heat map of plane 0's switch links after it and the latency
# CDF of ubbench queue lat. Says where the charts are.

set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)

usage() {
	cat <<EOF
Usage: tools/vm/demo_run.sh KERNEL DIR PROGRAM...

Runs tools/vm/demo.sh in the test VM (tools/vm/ubvm -k KERNEL -D -p
profile=cm384) with the PROGRAMs in its /x/ (build/tools/vm/demo_scenario,
demo_load and build/tools/bench/ubbench), then writes the charts of what
it sent into DIR (its old *.json and *.png removed first; make demo's is
build/demo) and prints their paths. KERNEL is what ubvm -k takes (make
demo's: 6.12).

Exit status: demo.sh's or ubvm's (tools/vm/ubvm -h) if not 0, else 1 if a
chart could not be drawn; 2 usage error.
EOF
}

case ${1-} in
-h | --help) usage; exit 0 ;;
esac
(($# >= 3)) || { usage >&2; exit 2; }
kernel=$1 outdir=$2
shift 2

rm -f "$outdir"/*.json "$outdir"/*.png
mkdir -p "$outdir"
xs=(-x "$ROOT/tools/vm/demo.sh")
for prog in "$@"; do
	xs+=(-x "$prog")
done
"$ROOT/tools/vm/ubvm" -k "$kernel" -D -p profile=cm384 -t 300 "${xs[@]}" \
	-- sh /x/demo.sh 2>&1 |
	awk -v mark=--demo-json-- -v dir="$outdir" -f "$ROOT/tools/vm/files.awk"
# (pipefail: a status of ubvm's other than 0 has ended the script.)

# chart NAME INPUT UBPLOT-ARGS...: ubplot UBPLOT-ARGS DIR/INPUT.json -o
# DIR/NAME.png; says what it wrote, or that the guest did not send INPUT.
charts=0 failed=0
chart() {
	local png=$outdir/$1.png input=$outdir/$2.json

	shift 2
	if [[ ! -e $input ]]; then
		echo "demo_run.sh: the guest sent no ${input##*/}" >&2
		failed=1
	elif "$ROOT/tools/plot/ubplot" "$@" "$input" -o "$png"; then
		echo "  ${png#"$ROOT"/}"
		charts=$((charts + 1))
	else
		failed=1
	fi
}

echo
echo "=== Charts (tools/plot/ubplot; Documentation/plots.rst reads them)"
chart bandwidth-sent trace bandwidth --kind port-tx
chart bandwidth-received trace bandwidth --kind port-rx
chart links-plane0 stats-link heatmap --plane 0
chart latency-cdf lat cdf
echo "charts in ${outdir#"$ROOT"/}/: $charts"
exit "$failed"

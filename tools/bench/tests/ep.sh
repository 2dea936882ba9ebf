#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/tests/ep.sh - `ubbench ep` in the test VM, its JSON checked
# with jq: EP 8 and 16 on the default fabric (2 nodes of 16 NPU dies,
# 2 GiB of guest memory: EP 8 moves its payload), then, unless -q, EP 256
# once on profile=cm384 (4 GiB: timing-only), a VM boot each. Prints KTAP
# ending with a "# Totals:" line; exits 1 if anything failed. Run by
# tools/check.sh (make check); builds ubbench and the module first.
#
# usage: tools/bench/tests/ep.sh [-q] [-k KERNEL]   (default 6.12)

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
MAKE=${MAKE:-make}
kernel=6.12 quick=0
while getopts qk: opt; do
	case $opt in
	q) quick=1 ;;
	k) kernel=$OPTARG ;;
	*) echo "usage: $0 [-q] [-k KERNEL]" >&2; exit 2 ;;
	esac
done
cd "$ROOT" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ubfab-ep.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tools/common/ktap.sh
. "$ROOT/tools/common/ktap.sh"

# expect NAME JQ-EXPRESSION: the expression is true of the run's JSON.
expect() {
	local out

	out=$(jq -e "$2" "$tmp/ep.json" 2>&1)
	check $? "$1" "jq: $2" "${out:0:300}"
}

# run LABEL MEM PARAMS SIZES: ubbench ep in a VM, its JSON into ep.json.
run() {
	local rc=0 t0=$SECONDS

	tools/vm/ubvm -k "$kernel" -R -t 600 -m "$2" ${3:+-p "$3"} -- \
		"build/tools/bench/ubbench -n 2 -s $4 ep -j /tmp/ep.json && " \
		"echo --ep-json-- && cat /tmp/ep.json" >"$tmp/out" 2>&1 || rc=$?
	sed 's/^/# /' "$tmp/out"
	sed '1,/^--ep-json--$/d' "$tmp/out" | sed '/^ubvm: /,$d' >"$tmp/ep.json"
	check "$rc" "$1: ubbench ep ran ($((SECONDS - t0)) s)" \
		"$(tail -n 5 "$tmp/out")"
	jq -e . "$tmp/ep.json" >/dev/null 2>&1
	check $? "$1: the JSON parses"
}

# What holds for every size that ran: figures there, bytes as routed.
common() {
	local tok=128 k=8 rec=7680 row=14336

	expect "$1: the sizes asked for, none skipped" \
		"[.ep.sizes[] | .ep] == [$2] and all(.ep.sizes[]; .skipped == false)"
	expect "$1: the shape" \
		".ep.tokens == $tok and .ep.hidden == 7168 and .ep.top_k == $k and .ep.record_bytes == $rec"
	expect "$1: modeled and host times above 0, max >= mean" \
		"all(.ep.sizes[] | .dispatch, .combine; .model_ns > 0 and .model_ns_max >= .model_ns and .host_us > 0 and .gbps > 0)"
	expect "$1: dispatch sends each token to 1 .. 8 PEs" \
		"all(.ep.sizes[]; .dispatch.bytes >= $tok * $rec and .dispatch.bytes <= $tok * $k * $rec)"
	expect "$1: combine brings every output home" \
		"all(.ep.sizes[]; .combine.bytes == $tok * $k * $row)"
	expect "$1: GB/s is bytes over modeled ns" \
		"all(.ep.sizes[] | .dispatch, .combine; (.gbps - .bytes / .model_ns | fabs) < 0.001)"
}

"$MAKE" -s --no-print-directory modules KVER="$kernel" lib comm tools \
	ubbench >"$tmp/make" 2>&1
check $? "build" "$(tail -n 5 "$tmp/make")"
run "EP 8, 16" 2G "" 8,16
common "EP 8, 16" 8,16
expect "EP 8: payload moved" '.ep.sizes[0].timing_only == false'
if [ "$quick" -eq 0 ]; then
	run "EP 256" 4G profile=cm384 256
	common "EP 256" 256
	expect "EP 256: timing-only" '.ep.sizes[0].timing_only == true'
fi
ktap_report

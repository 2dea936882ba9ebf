#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/tests/coll.sh - `ubbench coll` end to end: its usage errors
# on the host, then a short run in the test VM (ubvm -R: the host's root,
# so ubbench finds ubrun beside it in build/tools) of 8 ranks spread over
# 4 nodes up to 16 KiB; its JSON must parse (jq), hold every collective
# and algorithm at every size from 8 B doubling, each time above 0 and
# algbw and busbw as documented (size / time, times nccl-tests' factor),
# and the table on stdout a row per result; then two runs with --ordered
# (the fabric model's ordered domain, up to 4 KiB): their JSON says so and
# gives the same modeled time to every row. Prints KTAP; exits nonzero if
# a check failed.
#
# Usage: tools/bench/tests/coll.sh [KERNEL]
#   KERNEL as ubvm -k takes it (default 6.12); builds ubbench (make
#   ubbench) and needs the module built for that kernel.

# shellcheck disable=SC2016 # the $ of jq programs are jq's
set -u

root=$(cd "$(dirname "$0")/../../.." && pwd)
kernel=${1:-6.12}
ubbench=build/tools/bench/ubbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mark=--coll-json--
params="nodes=4 chips_per_node=8 dies_per_chip=2 cpus_per_node=1 npu_mem=64M cpu_mem=64M"

# shellcheck source=tools/common/ktap.sh
. "$root/tools/common/ktap.sh"

# expect DESCRIPTION COMMAND...: ok if COMMAND succeeds
expect() {
	local what=$1

	shift
	"$@" >/dev/null 2>&1
	check $? "$what"
}

cd "$root" || exit 1
if ! make -s ubbench >"$tmp/make.log" 2>&1; then
	not_ok "build ubbench" "$(tail -n 5 "$tmp/make.log")"
	ktap_report
	exit
fi

# usage errors, before any module or ubrun is needed
for args in "coll mem" "-m 4 coll" "-m 257M coll" "-r 1 coll" "-r 769 coll"; do
	# shellcheck disable=SC2086 # the words of $args
	"$ubbench" $args >/dev/null 2>&1
	check $(($? != 2)) "usage error: ubbench $args"
done

rc=0
tools/vm/ubvm -k "$kernel" -R -p "$params" -t 300 -- \
	"$ubbench -r 8 -m 16K -n 1 -j /tmp/coll.json coll; echo rc=\$?;" \
	"echo $mark coll; cat /tmp/coll.json; echo $mark;" \
	"for i in 1 2; do $ubbench -O -r 8 -m 4K -n 1 -j /tmp/o\$i.json coll" \
	">/dev/null; echo rc\$i=\$?; echo $mark ordered\$i;" \
	"cat /tmp/o\$i.json; echo $mark; done" >"$tmp/out" 2>&1 ||
	rc=$?
awk -v mark=$mark -v dir="$tmp" -f tools/vm/files.awk "$tmp/out" >"$tmp/table"
check "$rc" "the VM ran (ubvm exit $rc)"
expect "ubbench coll exit 0" grep -qx 'rc=0' "$tmp/table"
json=$tmp/coll.json
if ! jq -e . "$json" >/dev/null 2>&1; then
	not_ok "the JSON parses" "$(tail -n 20 "$tmp/out")"
	ktap_report
	exit
fi
ok "the JSON parses"
expect "8 ranks, up to 16384 B" jq -e '.ranks == 8 and .max_size == 16384' "$json"
for case in broadcast/tree allgather/ring reduce_scatter/ring \
	allreduce/ring allreduce/2level alltoall/direct; do
	# every size from the first that holds a float a rank, doubling
	expect "$case: every size to 16 KiB" jq -e --arg c "${case%/*}" \
		--arg a "${case#*/}" '
		[.results[] | select(.collective == $c and .algo == $a)] as $r
		| ($r | length) > 0 and $r[-1].size == 16384
		and ([range(1; $r | length) | $r[.].size == 2 * $r[. - 1].size]
		     | all)' "$json"
done
expect "every time above 0, algbw = size / time" jq -e '[.results[] |
	.time_ns > 0 and .host_us > 0 and
	((.algbw_gbs - .size / .time_ns) | fabs) <= 1e-3 * .algbw_gbs] | all' \
	"$json"
expect "busbw = algbw x nccl-tests' factor" jq -e '[.results[] |
	(if .collective == "allreduce" then 2 * 7 / 8
	 elif .collective == "broadcast" then 1 else 7 / 8 end) as $f |
	((.busbw_gbs - .algbw_gbs * $f) | fabs) <= 1e-3 * .busbw_gbs] | all' \
	"$json"
rows=$(grep -cE '^(broadcast|allgather|reduce_scatter|allreduce|alltoall) ' \
	"$tmp/table")
expect "a table row per result ($rows)" test "$rows" -eq \
	"$(jq '.results | length' "$json")"
expect "ubbench -O coll exit 0, first run" grep -qx 'rc1=0' "$tmp/table"
expect "ubbench -O coll exit 0, second run" grep -qx 'rc2=0' "$tmp/table"
expect "--ordered: the JSON says so" jq -e '.ordered' "$tmp/ordered1.json"
expect "--ordered: the fast run's JSON says it is not" jq -e '.ordered == false' \
	"$json"
expect "--ordered: every modeled time the same in two runs" jq -e -n \
	--slurpfile a "$tmp/ordered1.json" --slurpfile b "$tmp/ordered2.json" \
	'($a[0].results | map(.time_ns)) as $x | ($x | length) > 0 and
	 $x == ($b[0].results | map(.time_ns))'
ktap_report

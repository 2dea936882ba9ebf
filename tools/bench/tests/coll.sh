#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/tests/coll.sh - `ubbench coll` end to end: its usage errors
# on the host, then a short run in the test VM (ubvm -R: the host's root,
# so ubbench finds ubrun beside it in build/tools) of 8 ranks spread over
# 4 nodes up to 16 KiB with --check; its JSON must parse (jq), hold every
# collective and algorithm at every size from 8 B doubling, each time
# above 0 and algbw and busbw as documented (size / time, times
# nccl-tests' factor), every output checked and none bad, and the table on
# stdout a row per result, each "ok"; then two runs with --ordered (the
# fabric model's ordered domain, up to 4 KiB): their JSON says so and
# gives the same modeled time to every row. In the same VM, --check must
# fail with a libubshmem whose ring all-reduce sums in another order (a
# mutant of comm/coll.c built here into build/tests/coll-mutant/: the
# chunk shift 0 for 1, still an all-reduce): exit 1, the failures printed
# (rank, allreduce ring, size, element, got and want) and only those of
# allreduce ring. Prints KTAP; exits nonzero if a check failed.
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
mutant=build/tests/coll-mutant
trap 'rm -rf "$tmp" "$root/$mutant"' EXIT
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

# A libubshmem whose ring all-reduce is an all-reduce still, but sums each
# chunk from another PE on (ring_allreduce()'s shift 0 for 1), and
# ubbench linked with it: what --check must catch, bit for bit.
build_mutant() {
	rm -rf "$mutant"
	mkdir -p "$mutant/comm"
	sed -E -e 's/(ring_reduce_scatter\(&r, scratch\(\), &sp, src, &sp, )1,/\10,/' \
		-e 's/\(r\.me \+ 1\) % r\.n\)/r.me)/' \
		-e 's/(return ring_allgather\(&r, dest, &sp, )1\)/\10)/' \
		comm/coll.c >"$mutant/coll.c" &&
		test "$(diff comm/coll.c "$mutant/coll.c" | grep -c '^>')" -eq 4 ||
		return 1
	cp build/comm/libubshmem.a "$mutant/comm/" &&
		cc -O2 -D_GNU_SOURCE -Icomm -Iinclude/uapi -Ilib \
			-c -o "$mutant/coll.o" "$mutant/coll.c" &&
		ar r "$mutant/comm/libubshmem.a" "$mutant/coll.o" &&
		make -s -C tools/bench O="$root/$mutant/bench" \
			LIBUBSHMEM_DIR="$root/$mutant/comm"
}

# usage errors, before any module or ubrun is needed
for args in "coll mem" "-m 4 coll" "-m 257M coll" "-r 1 coll" "-r 769 coll" \
	"--check" "--check mem"; do
	# shellcheck disable=SC2086 # the words of $args
	"$ubbench" $args >/dev/null 2>&1
	check $(($? != 2)) "usage error: ubbench $args"
done

build_mutant >"$tmp/mutant.log" 2>&1
check $? "a mutant of ring all-reduce's order builds" \
	"comm/coll.c changed? update build_mutant()" \
	"$(tail -n 5 "$tmp/mutant.log")"

rc=0
tools/vm/ubvm -k "$kernel" -R -p "$params" -t 300 -- \
	"$ubbench -r 8 -m 16K -n 1 -j /tmp/coll.json coll --check; echo rc=\$?;" \
	"echo $mark coll; cat /tmp/coll.json; echo $mark;" \
	"for i in 1 2; do $ubbench -O -r 8 -m 4K -n 1 -j /tmp/o\$i.json coll" \
	">/dev/null; echo rc\$i=\$?; echo $mark ordered\$i;" \
	"cat /tmp/o\$i.json; echo $mark; done;" \
	"$mutant/bench/ubbench -r 8 -m 16K -n 1 coll --check 2>/tmp/m.err" \
	">/tmp/m.out; echo mrc=\$?;" \
	"echo $mark mutant-err; cat /tmp/m.err; echo $mark;" \
	"echo $mark mutant-out; cat /tmp/m.out; echo $mark" >"$tmp/out" 2>&1 ||
	rc=$?
awk -v mark=$mark -v dir="$tmp" -f tools/vm/files.awk "$tmp/out" >"$tmp/table"
check "$rc" "the VM ran (ubvm exit $rc)"
expect "ubbench coll --check exit 0" grep -qx 'rc=0' "$tmp/table"

# the mutant (files.awk names what it cuts out *.json): caught, and only
# where it differs
expect "the mutant: --check exits 1" grep -qx 'mrc=1' "$tmp/table"
bad='^\[[0-9]+\] ubbench: coll --check: rank [0-9]+: '
grep -E "$bad" "$tmp/mutant-err.json" >"$tmp/fails"
expect "the mutant: failures printed, rank, size, element, got, want" \
	grep -qE "${bad}allreduce ring of [0-9]+ B, the warm-up op: element [0-9]+ of [0-9]+: got .*, want " \
	"$tmp/fails"
expect "the mutant: all of them allreduce ring" \
	test "$(grep -vc ' allreduce ring of ' "$tmp/fails")" -eq 0
expect "the mutant: its table says BAD on allreduce ring rows only" \
	awk '/^(broadcast|allgather|reduce_scatter|allreduce|alltoall) / {
		b = $NF == "ok" ? 0 : 1; r = $1 " " $2 == "allreduce ring"
		if (b && !r) exit 1; bad += b }
		END { exit !bad }' "$tmp/mutant-out.json"
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
expect "checked, and no rank found a bad output" jq -e '.checked == true and
	([.results[] | .bad_ranks == 0] | all)' "$json"
expect "every time above 0, algbw = size / time" jq -e '[.results[] |
	.time_ns > 0 and .host_us > 0 and
	((.algbw_gbs - .size / .time_ns) | fabs) <= 1e-3 * .algbw_gbs] | all' \
	"$json"
expect "busbw = algbw x nccl-tests' factor" jq -e '[.results[] |
	(if .collective == "allreduce" then 2 * 7 / 8
	 elif .collective == "broadcast" then 1 else 7 / 8 end) as $f |
	((.busbw_gbs - .algbw_gbs * $f) | fabs) <= 1e-3 * .busbw_gbs] | all' \
	"$json"
rows=$(grep -cE '^(broadcast|allgather|reduce_scatter|allreduce|alltoall) .* ok$' \
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

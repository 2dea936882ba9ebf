#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/tests/vm.sh - a short run of ubbench queue send (one
# repetition) where ubfab.ko is loaded, its JSON checked with jq: every
# message size and batch is there, every figure (host and modeled) is
# above 0, each p99 at least its median, and a 64 KiB message's modeled
# latency above an 8-byte one's. `make check-bench` runs it in the test
# VM in the host's root (tools/vm/ubvm -R). Prints KTAP; exits nonzero if
# a check failed.
#
# Usage: tools/bench/tests/vm.sh [UBBENCH]   (default build/tools/bench/ubbench)

set -u

root=$(cd "$(dirname "$0")/../../.." && pwd)
ubbench=${1:-$root/build/tools/bench/ubbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json=$tmp/send.json

# shellcheck source=tools/common/ktap.sh
. "$root/tools/common/ktap.sh"

# expect DESCRIPTION FILTER: ok if jq -e FILTER holds on the JSON
expect() {
	local out

	out=$(jq -e "$2" "$json" 2>&1)
	check $? "$1" "jq: $(tr -s '\n\t' '  ' <<<"$2")" "${out:0:300}"
}

"$ubbench" -n 1 --json "$json" queue send >"$tmp/out" 2>&1
check $? "ubbench queue send exits 0" "$(tail -n 5 "$tmp/out")"
if [ ! -s "$json" ]; then
	not_ok "ubbench queue send wrote its JSON"
	ktap_report
	exit
fi

sizes='[8, 64, 512, 4096, 65536]'
expect "send: latency at every size" \
	"[.queue.send.latency.sizes[].bytes] == $sizes"
expect "send: latency units us (host) and ns (modeled)" \
	'.queue.send.latency | .unit == "us" and .model_unit == "ns"'
expect "send: latency figures above 0, p99 >= median" \
	'[.queue.send.latency.sizes[] |
	  .p50.median > 0 and .model_p50.median > 0 and
	  .p99.median >= .p50.median and
	  .model_p99.median >= .model_p50.median] | all'
expect "send: modeled latency of 64 KiB above 8 B's" \
	'.queue.send.latency.sizes | last.model_p50.median >
	 first.model_p50.median'
expect "send: rate at batch 1 and 16, every size" \
	"[.queue.send.rate.batches[] | .batch] == [1, 16] and
	 ([.queue.send.rate.batches[] | [.sizes[].bytes] == $sizes] | all)"
expect "send: rate units msgs/s (host) and ns (modeled)" \
	'.queue.send.rate | .unit == "msgs/s" and .model_unit == "ns"'
expect "send: rates and modeled ns a message above 0" \
	'[.queue.send.rate.batches[].sizes[] |
	  .rate.median > 0 and .model_ns.median > 0] | all'
ktap_report

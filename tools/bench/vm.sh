# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tools/bench/vm.sh - sourced by tools/bench/run.sh and compare.sh: runs
# tools/bench/guest.sh with build/tools/bench/ubbench in the test VM and
# takes the results out of what the guest prints. Expects ROOT (the top of
# the checkout) to be set.

BENCH=$ROOT/build/tools/bench/ubbench
# ubbench coll and ep start ubrun beside ubbench: in the VM, /x/ubrun
# (linked with the libubfab the VM has in /usr/lib).
UBRUN=$ROOT/build/tools/ubrun

# bench_vm DIR [ubvm options] -- [guest.sh arguments]
#
# Boots tools/vm/ubvm -D (no allocator debugging) with ubbench, ubrun
# where it was built, and guest.sh in /x/ and runs guest.sh with the given
# arguments. What the guest prints
# goes to stdout as it comes, but for the JSON files guest.sh sends, which
# become DIR/<name>.json. Returns ubvm's status.
bench_vm() {
	local dir=$1 vmopts=() args=""

	shift
	while (($#)) && [[ $1 != -- ]]; do
		vmopts+=("$1")
		shift
	done
	(($# == 0)) || shift
	[[ -x $BENCH ]] || {
		echo "${0##*/}: no $BENCH: make bench builds it" >&2
		return 2
	}
	(($# == 0)) || printf -v args ' %q' "$@"
	[[ ! -x $UBRUN ]] || vmopts+=(-x "$UBRUN")
	"$ROOT/tools/vm/ubvm" -D "${vmopts[@]}" -x "$BENCH" \
		-x "$ROOT/tools/bench/guest.sh" -- "sh /x/guest.sh$args" |
		awk -v mark=--ubbench-json-- -v dir="$dir" \
			-f "$ROOT/tools/vm/files.awk"
	return "${PIPESTATUS[0]}"
}

# bench_release FILE: the kernel release an ubbench JSON file names.
bench_release() {
	sed -n 's/^  "kernel": "\(.*\)",$/\1/p' "$1"
}

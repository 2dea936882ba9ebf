#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/guest.sh - guest side of tools/bench/run.sh and compare.sh:
# runs /x/ubbench in the test VM, once with the module ubvm loaded, or in
# rounds that each load, measure and unload several modules in turn.
#
# Owns the guest's half of the results' transport: each run's table goes
# to stdout as ubbench prints it, then its JSON file between a line
# "--ubbench-json-- NAME" and a line "--ubbench-json--", which
# tools/bench/vm.sh cuts out into NAME.json.
#
# Usage: guest.sh [-r ROUNDS] [LABEL[=MODULE] ...] [-- ubbench arguments]
#
# Without LABELs: one run, named "ubbench". With them: ROUNDS rounds (default
# 1); in each, every LABEL's MODULE (default $UBFAB_KO, the one ubvm
# installs; run ubvm with -n) is loaded with insmod, measured and unloaded,
# named LABEL-ROUND. The round's first module rotates from round to round
# (a b, b a, a b, ...), so that neither is always first after the other.
# Exit status: the first failing command's (insmod, ubbench, rmmod).

MARK=--ubbench-json--

# run NAME [ubbench arguments]: one ubbench run, its table and its JSON,
# which it also writes when it measured everything but exits 1 for a model
# cell beyond the tolerance; ubbench's status.
run() {
	name=$1
	shift
	rm -f /tmp/bench.json
	/x/ubbench --json /tmp/bench.json "$@"
	rc=$?
	if [ -e /tmp/bench.json ]; then
		echo "$MARK $name"
		cat /tmp/bench.json
		echo "$MARK"
	fi
	return $rc
}

rounds=1
if [ "$1" = -r ]; then
	rounds=$2
	shift 2
fi
mods=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	mods="${mods:+$mods }$1"
	shift
done
[ $# -eq 0 ] || shift

if [ -z "$mods" ]; then
	run ubbench "$@"
	exit
fi

set -f # $order splits at spaces, without globbing
round=1
while [ "$round" -le "$rounds" ]; do
	# This round's order: the list rotated by round - 1.
	order=$mods
	i=1
	while [ "$i" -lt "$round" ]; do
		case $order in
		*" "*) order="${order#* } ${order%% *}" ;;
		esac
		i=$((i + 1))
	done
	for mod in $order; do
		label=${mod%%=*}
		ko=$UBFAB_KO
		[ "$label" = "$mod" ] || ko=${mod#*=}
		echo "== round $round of $rounds: $label ($ko)"
		insmod "$ko" || exit
		run "$label-$round" "$@" || exit
		rmmod ubfab || exit
	done
	round=$((round + 1))
done

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/guest.sh - guest side of tools/bench/run.sh: runs /x/ubbench
# in the test VM with the module ubvm loaded.
#
# Owns the guest's half of the results' transport: each run's table goes
# to stdout as ubbench prints it, then its JSON file between a line
# "--ubbench-json-- NAME" and a line "--ubbench-json--", which
# tools/bench/vm.sh cuts out into NAME.json.
#
# Usage: guest.sh [-- ubbench arguments]
#
# One run, named "ubbench". Exit status: ubbench's.

MARK=--ubbench-json--

# run NAME [ubbench arguments]: one ubbench run, its table and its JSON.
run() {
	name=$1
	shift
	/x/ubbench --json /tmp/bench.json "$@" || return
	echo "$MARK $name"
	cat /tmp/bench.json
	echo "$MARK"
}

[ "$1" != -- ] || shift
run ubbench "$@"

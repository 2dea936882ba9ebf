#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs every ubfab selftest in this directory (inside the test VM) and ends
# with one KTAP "# Totals:" line summing them all. A program that exits
# nonzero without reporting a failure counts as one failure. Each program's
# time (from /proc/uptime) is reported as a "# <name>: N s" line. Exit
# status is nonzero when anything failed.
#
# usage: run_all.sh [TEST ...]    (default: every *_test here)

dir=$(dirname "$0")
[ $# -gt 0 ] || set -- "$dir"/*_test
pass=0 fail=0 skip=0

for t in "$@"; do
	[ -x "$t" ] || t="$dir/$t"
	name=$(basename "$t")
	echo "# selftests: ubfab: $name"
	read -r t0 _ </proc/uptime
	out=$("$t" 2>&1)
	rc=$?
	read -r t1 _ </proc/uptime
	printf '%s\n' "$out" | sed 's/^/# /'
	totals=$(printf '%s\n' "$out" | grep '^# Totals:' | tail -n 1)
	p=$(echo "$totals" | sed -n 's/.* pass:\([0-9]*\) .*/\1/p')
	f=$(echo "$totals" | sed -n 's/.* fail:\([0-9]*\) .*/\1/p')
	s=$(echo "$totals" | sed -n 's/.* skip:\([0-9]*\) .*/\1/p')
	p=${p:-0} f=${f:-0} s=${s:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $name exited $rc without reporting a failure"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	echo "# $name: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s"
	if [ "$f" -eq 0 ]; then
		echo "ok - selftests: ubfab: $name"
	else
		echo "not ok - selftests: ubfab: $name"
	fi
done

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
[ "$fail" -eq 0 ]

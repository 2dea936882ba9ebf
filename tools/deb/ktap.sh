# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# tools/deb/ktap.sh - the KTAP counting that tools/deb/test.sh (on the
# host) and tools/deb/guest.sh (in the VM, under busybox sh) share: sourced
# by both. Keeps the counts in n, pass, fail and skip.

n=0 pass=0 fail=0 skip=0

# One KTAP result: status (0 ok), description.
result() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok $n $2"
	else
		fail=$((fail + 1))
		echo "not ok $n $2"
	fi
}

# Adds the counts of a "# Totals:" line (the argument; may be empty) and
# sets f to its failures.
add_totals() {
	p=$(echo "$1" | sed -n 's/.* pass:\([0-9]*\) .*/\1/p')
	f=$(echo "$1" | sed -n 's/.* fail:\([0-9]*\) .*/\1/p')
	s=$(echo "$1" | sed -n 's/.* skip:\([0-9]*\) .*/\1/p')
	p=${p:-0} f=${f:-0} s=${s:-0}
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

# The Totals line of everything counted.
totals() {
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
}

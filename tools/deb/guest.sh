#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/deb/guest.sh - the Debian packages' test inside the test VM:
# tools/deb/test.sh boots it with the DKMS-built ubfab.ko and puts this
# script with the installed ubctl, ubbench and libubfab under /x/pkg/.
# Checks that those, not the build tree's copies in /usr, are the ones in
# use, runs them against the module, then the ctl selftest (whose ubctl
# cases run ubctl from $PATH) with them. Prints KTAP ending in one
# "# Totals:" line, and exits nonzero on any failure.

dir=$(cd "$(dirname "$0")" && pwd)
export PATH="$dir/bin:$PATH" LD_LIBRARY_PATH="$dir/lib"
# shellcheck source=tools/deb/ktap.sh
. "$dir/ktap.sh"

echo "TAP version 13"
[ "$(command -v ubctl)" = "$dir/bin/ubctl" ]
result $? "ubctl in \$PATH is the package's: $(command -v ubctl)"
libs=$(/lib64/ld-linux-x86-64.so.2 --list "$dir/bin/ubctl" 2>&1)
printf '%s\n' "$libs" | sed 's/^/# /'
printf '%s\n' "$libs" |
	grep -q "libubfab\.so\.1 => $dir/lib/libubfab\.so\.1 "
result $? "ubctl loads the package's libubfab.so.1"

out=$(ubctl topo 2>&1)
rc=$?
printf '%s\n' "$out" | head -n 3 | sed 's/^/# /'
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^supernode: '
result $? "ubctl topo on the DKMS-built module"
out=$("$dir/bin/ubbench" model table 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 3 | sed 's/^/# /'
result "$rc" "ubbench model table on the DKMS-built module"

out=$(/selftests/ubfab/run_all.sh ctl_test 2>&1)
printf '%s\n' "$out" | sed 's/^/# /'
line=$(printf '%s\n' "$out" | grep '^# Totals:' | tail -n 1)
add_totals "$line"
[ -n "$line" ] || result 1 "ctl selftest: no Totals line"

totals
[ "$fail" -eq 0 ]

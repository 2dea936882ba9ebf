# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tools/common/ktap.sh - KTAP results for the host-side shell tests that
# source it (Documentation/man/tests/host.sh,
# tools/completion/tests/host.sh; selftests/ubfab/shmem_mpi.sh in the
# VM's chroot of the host): ok, not_ok and check record one test each,
# ktap_report prints them with the "# Totals:" line tools/check.sh counts
# and returns nonzero if one failed.

ktap_n=0 ktap_pass=0 ktap_fail=0
ktap_results=

# ok DESCRIPTION
ok() {
	ktap_n=$((ktap_n + 1)) ktap_pass=$((ktap_pass + 1))
	ktap_results+=$'\n'"ok $ktap_n - $1"
}

# not_ok DESCRIPTION [DIAGNOSTIC...]
not_ok() {
	local line

	ktap_n=$((ktap_n + 1)) ktap_fail=$((ktap_fail + 1))
	ktap_results+=$'\n'"not ok $ktap_n - $1"
	shift
	for line in "$@"; do
		ktap_results+=$'\n'"# $line"
	done
}

# check STATUS DESCRIPTION [DIAGNOSTIC...]: ok if STATUS is 0
check() {
	local rc=$1

	shift
	if [ "$rc" -eq 0 ]; then ok "$1"; else not_ok "$@"; fi
}

ktap_report() {
	echo "TAP version 13"
	echo "1..$ktap_n"
	echo "${ktap_results#?}"
	echo "# Totals: pass:$ktap_pass fail:$ktap_fail xfail:0 xpass:0 skip:0 error:0"
	[ "$ktap_fail" -eq 0 ]
}

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/soak/guest.sh - guest side of tools/soak/run.sh (busybox sh): runs
# /x/soak for SECONDS with its JSON in /tmp, then prints the JSON between
# a line "--soak-json--" and another such line, which run.sh cuts out of
# the console output into a file on the host.
#
# Usage: guest.sh SECONDS [soak options]
# Exit status: soak's.

MARK=--soak-json--
secs=$1
shift
/x/soak -t "$secs" -j /tmp/soak.json "$@"
rc=$?
if [ -e /tmp/soak.json ]; then
	echo "$MARK"
	cat /tmp/soak.json
	echo "$MARK"
fi
exit $rc

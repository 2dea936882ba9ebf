#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/check.sh - `make check`: builds everything for both kernel series,
# runs the lint, the host-side tests and the selftests in a VM on the 6.1
# and then the 6.12 kernel, and sums the results.
#
# Owns the counting rules: the build and the lint count as one test each;
# a KTAP run counts its last "# Totals:" line (xfail as passed, xpass and
# error as failed); a run without one, or one whose runner failed although
# its Totals report no failure (dirty kernel log, crash, time limit), counts
# one more failure. The last line of the output is
# "N passed, N failed, N skipped"; the exit status is 1 on any failure.

set -uo pipefail

usage() {
	cat <<EOF
Usage: tools/check.sh [-h]

What \`make check\` runs after tools/deps.sh. Environment:
  UBFAB_VM_TIMEOUT  time limit of each VM run in seconds (default 900)
EOF
}

[ "${1-}" != --help ] || { usage; exit 0; }
while getopts h opt; do
	case $opt in
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
UBFAB_CACHE=${UBFAB_CACHE:-$HOME/.cache/ubfab}
MAKE=${MAKE:-make}
VM_TIMEOUT=${UBFAB_VM_TIMEOUT:-900}
[ -r "$UBFAB_CACHE/env.sh" ] || { echo "check: run tools/deps.sh" >&2; exit 2; }
# shellcheck source=/dev/null
. "$UBFAB_CACHE/env.sh"

cd "$ROOT" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ubfab-check.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

passed=0 failed=0 skipped=0
summary=()

# Counts a step that is one test: name, exit status.
count_step() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		summary+=("ok $1")
	else
		failed=$((failed + 1))
		summary+=("not ok $1 (exit $2)")
	fi
}

# Prints the count after "<name>:" in a Totals line, 0 if it is missing.
totals_field() {
	local n

	n=$(sed -nE "s/.* $1:([0-9]+).*/\\1/p" <<<"$2")
	echo "${n:-0}"
}

# Counts a KTAP run: name, file with its output, exit status of the runner.
count_run() {
	local name=$1 out=$2 rc=$3 line p f s

	line=$(grep -aE '^# Totals: pass:[0-9]+ fail:[0-9]+' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		summary+=("not ok $name: no Totals line (exit $rc)")
		return
	fi
	p=$(($(totals_field pass "$line") + $(totals_field xfail "$line")))
	f=$(($(totals_field fail "$line") + $(totals_field xpass "$line") +
	     $(totals_field error "$line")))
	s=$(totals_field skip "$line")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		line="$line; runner failed (exit $rc)"
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	summary+=("$([ "$f" -eq 0 ] || printf 'not ')ok $name: $line")
}

echo "check: building the module for 6.1 and 6.12, lib, ubctl, selftests"
"$MAKE" -s --no-print-directory modules-all lib tools selftests
build=$?
count_step build "$build"

echo "check: lint"
tools/lint.sh
count_step lint $?

host=tools/ubctl/tests/host.sh
if [ -x "$host" ]; then
	echo "check: host tests ($host)"
	"$host" 2>&1 | tee "$tmp/host"
	count_run "host tests" "$tmp/host" "${PIPESTATUS[0]}"
else
	echo "check: no $host: no host tests"
fi

for series in 6.1 6.12; do
	var=UBFAB_KVER_${series//./_}
	kver=${!var}
	if [ "$build" -ne 0 ]; then
		failed=$((failed + 1))
		summary+=("not ok VM $kver: not run, the build failed")
		continue
	fi
	echo "check: selftests in a VM on $kver"
	tools/vm/ubvm -k "$series" -n -t "$VM_TIMEOUT" -- \
		/selftests/ubfab/run_all.sh 2>&1 | tee "$tmp/vm-$series"
	count_run "VM $kver" "$tmp/vm-$series" "${PIPESTATUS[0]}"
done

echo "check: summary"
printf '  %s\n' "${summary[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/check.sh - `make check` and `make check-debug`: builds, runs the
# lint, the host-side tests and the selftests in VMs, and sums the results.
#
# `make check` runs the stock checks (build for 6.1 and 6.12, lint, the
# netlink spec against the files made from it, host tests, selftests in a
# VM on 6.1 and on 6.12, the Debian packages: make deb with lintian, and
# tools/deb/test.sh, which installs them into a clean root where DKMS
# builds the module for 6.1 and 6.12 and boots a VM on each with it) and
# then the debug checks;
# `make check-debug` (-d) runs only the debug checks: the debug kernel
# (tools/debug-kernel.sh: KASAN, KFENCE, UBSAN, lockdep, kmemleak, KUnit),
# the selftests on it with a kmemleak scan after unloading, the module's
# KUnit suites, a 3-minute soak on it (make soak), and the selftests on
# Debian's 6.12 PREEMPT_RT kernel. The
# selftests include the fuzzer's fixed-budget run (fuzz_test) and every
# other *_test that selftests/ubfab/run_all.sh finds.
#
# The host tests are tools/ubctl/tests/host.sh, tools/plot/tests/host.py,
# Documentation/man/tests/host.sh, tools/completion/tests/host.sh,
# tools/bench/tests/coll.sh (which boots a VM of its own),
# tools/bench/tests/ep.sh (`ubbench ep` in two VMs: EP 8 and 16, then
# EP 256 on cm384) and every lib/tests program (one KTAP run each). The
# Python binding's
# tests (make check-python) run in a VM of their own on 6.1 and on 6.12
# (one KTAP run each: its conftest.py ends with a Totals line), and so
# does a short run of ubbench queue send (make check-bench,
# tools/bench/tests/vm.sh); libubshmem under Open MPI's mpirun (make
# check-mpi) in one on 6.12.
#
# Owns the counting rules: each build, the lint, the netlink spec check,
# make deb (with lintian), the debug kernel's build and the soak count as
# one test each; a KTAP run counts its
# last "# Totals:" line (xfail as passed, xpass and error as failed); a run
# without one, or one whose runner failed although its Totals report no
# failure (dirty kernel log, crash, time limit), counts one more failure.
# KUnit suites run at every load of the module, so each suite in a VM's
# kernel log counts once: its run with the most failures. The last line of
# the output is "N passed, N failed, N skipped"; the exit status is 1 on
# any failure.

set -euo pipefail

usage() {
	cat <<EOF
Usage: tools/check.sh [-d] [-h]

What \`make check\` runs after tools/deps.sh; with -d what \`make
check-debug\` runs (only the debug kernel and the PREEMPT_RT kernel).

  -d          only the debug checks
  -h, --help  this help

Environment:
  UBFAB_VM_TIMEOUT  time limit of each VM run in seconds (default 900;
                    the run on the debug kernel gets three times as long)
EOF
}

debug_only=0
while getopts dh-: opt; do
	case $opt in
	d) debug_only=1 ;;
	h) usage; exit 0 ;;
	-) [ "$OPTARG" = help ] || { usage >&2; exit 2; }
	   usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
UBFAB_CACHE=${UBFAB_CACHE:-$HOME/.cache/ubfab}
MAKE=${MAKE:-make}
VM_TIMEOUT=${UBFAB_VM_TIMEOUT:-900}
[ -r "$UBFAB_CACHE/env.sh" ] || { echo "check: no $UBFAB_CACHE/env.sh: run \`make deps\`" >&2; exit 2; }
# shellcheck source=/dev/null
. "$UBFAB_CACHE/env.sh"

cd "$ROOT"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ubfab-check.XXXXXX")
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

# Counts one failure for a step that could not run: name, reason.
not_run() {
	failed=$((failed + 1))
	summary+=("not ok $1: not run, $2")
}

# Prints the count after "<name>:" in a Totals line, 0 if it is missing.
totals_field() {
	local n

	n=$(sed -nE "s/.* $1:([0-9]+).*/\\1/p" <<<"$2")
	echo "${n:-0}"
}

# Adds to the summary, under a failed run, the lines that say which cases
# failed and where (the harness's "not ok N", its file:line reports of
# failed expectations, tests killed by a signal or the time limit, and
# run_all.sh's programs that failed without a report), so that the end of
# the output names them: at most 20, then a count.
add_failures() {
	local re='^(# )*(not ok [0-9]+ |[[:alnum:]_./-]+\.c:[0-9]+:[^:]*:Expected '
	local lines n

	re+='|.*: Test terminated |.* exited [0-9]+ without)'
	lines=$(grep -aE "$re" "$1") || return 0
	n=$(wc -l <<<"$lines")
	while IFS= read -r line; do
		summary+=("    $line")
	done < <(head -n 20 <<<"$lines")
	[ "$n" -le 20 ] || summary+=("    ... $((n - 20)) more lines like these")
}

# Counts a KTAP run: name, file with its output, exit status of the runner.
count_run() {
	local name=$1 out=$2 rc=$3 line p f s

	line=$(grep -aE '^# Totals: pass:[0-9]+ fail:[0-9]+' "$out" |
		tail -n 1) || true
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		summary+=("not ok $name: no Totals line (exit $rc)")
		add_failures "$out"
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
	[ "$f" -eq 0 ] || add_failures "$out"
}

# Builds the library's host tests (lib/tests: kselftest-harness programs
# against fake kernels) and counts each program's KTAP run.
lib_tests() {
	local t rc=0

	echo "check: library tests (lib/tests)"
	"$MAKE" -s --no-print-directory -C lib O="$ROOT/build/lib" \
		KSELFTEST="$UBFAB_KSELFTEST" tests || rc=$?
	if [ "$rc" -ne 0 ]; then
		not_run "lib tests" "their build failed"
		return
	fi
	for t in build/lib/tests/*_test; do
		rc=0
		"$t" 2>&1 | tee "$tmp/lib" || rc=${PIPESTATUS[0]}
		count_run "lib ${t##*/}" "$tmp/lib" "$rc"
	done
}

# Runs the selftests in a VM and counts their KTAP output: the kernel's
# release, then ubvm's options. Its kernel log is left in
# build/vm/<release>.dmesg (removed first: no stale log is ever read).
vm_run() {
	local kver=$1 out=$tmp/out rc=0

	shift
	echo "check: selftests in a VM on $kver"
	rm -f "build/vm/$kver.dmesg"
	tools/vm/ubvm "$@" -- /selftests/ubfab/run_all.sh 2>&1 | tee "$out" ||
		rc=${PIPESTATUS[0]}
	count_run "VM $kver" "$out" "$rc"
}

# Runs a make target whose tests run in a VM and print KTAP (check-python,
# the Python binding's tests; check-bench, a short ubbench queue send;
# check-mpi, libubshmem under mpirun) and
# counts their Totals: the name to count them under, the target, the
# kernel series, its release.
make_vm_run() {
	local out=$tmp/$2 rc=0

	echo "check: make $2 in a VM on $4"
	"$MAKE" -s --no-print-directory "$2" KVER="$3" 2>&1 |
		tee "$out" || rc=${PIPESTATUS[0]}
	count_run "$1 $4" "$out" "$rc"
}

# Counts the KUnit suites in the kernel log of the last VM run on a kernel,
# each suite once, by its run with the most failures; prints the KTAP of
# that run when it failed. Arguments: the kernel's release and its .config.
count_kunit() {
	local kver=$1 config=$2 log name out n p f s

	log=build/vm/$kver.dmesg name="KUnit on $kver"
	grep -qs '^CONFIG_KUNIT=y' "$config" || return 0
	if [ ! -s "$log" ]; then
		not_run "$name" "no kernel log came back"
		return
	fi
	# A suite's results: "# <suite>: pass:N fail:N skip:N total:N" at
	# the top level; its KTAP starts at "    # Subtest: <suite>".
	out=$(awk '
	{
		sub(/\r$/, "")
		line = $0
		sub(/^\[[ 0-9.]+\] /, "", line)
		if (line ~ /^    # Subtest: /) {
			ktap = ""
			insuite = 1
			lines = 0
		}
		# The first 200 lines of a suite are shown.
		if (insuite && ++lines <= 200)
			ktap = ktap $0 "\n"
		if (line !~ /^# [^ :]+: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+ total:[0-9]+/ ||
		    line ~ /^# Totals:/)
			next
		insuite = 0
		split(line, w, /[ :]+/)
		s = w[2]
		runs[s]++
		if (!(s in fail) || w[6] + 0 > fail[s]) {
			pass[s] = w[4] + 0; fail[s] = w[6] + 0; skip[s] = w[8] + 0
			if (fail[s])
				report[s] = ktap
		}
	}
	END {
		for (s in runs) {
			n++; p += pass[s]; f += fail[s]; k += skip[s]
			printf "check: KUnit suite %s: %d run(s), counted: pass:%d fail:%d skip:%d\n",
				s, runs[s], pass[s], fail[s], skip[s]
			if (s in report)
				printf "check: KTAP of its failed run:\n%s", report[s]
		}
		printf "%d %d %d %d\n", n, p, f, k
	}' "$log")
	sed '$d' <<<"$out"
	read -r n p f s < <(tail -n 1 <<<"$out")
	if [ "$n" -eq 0 ]; then
		not_run "$name" "no KUnit suite reported (kernel log of $kver)"
		return
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	summary+=("$([ "$f" -eq 0 ] || printf 'not ')ok $name: $n suite(s): pass:$p fail:$f skip:$s")
}

# The Debian packages: make deb (dpkg-buildpackage and lintian, one test),
# then tools/deb/test.sh (KTAP: the packages installed into a clean root,
# DKMS's builds for 6.1 and 6.12, a VM on each with the module DKMS built
# and the ctl selftest with the installed ubctl and libubfab). Argument:
# the exit status of the build of the selftests.
deb_checks() {
	local rc=0

	echo "check: Debian packages (make deb, tools/deb/test.sh)"
	"$MAKE" -s --no-print-directory deb || rc=$?
	count_step "deb packages and lintian" "$rc"
	if [ "$rc" -ne 0 ] || [ "$1" -ne 0 ]; then
		not_run "deb install" "the build failed"
		return
	fi
	rc=0
	tools/deb/test.sh 2>&1 | tee "$tmp/deb" || rc=${PIPESTATUS[0]}
	count_run "deb install" "$tmp/deb" "$rc"
}

# Build, lint, host tests, the selftests on Debian's 6.1 and 6.12, and the
# Debian packages.
stock_checks() {
	local build=0 rc=0 host=tools/ubctl/tests/host.sh series var kver

	echo "check: building the module for 6.1 and 6.12, lib, ubctl, ubrun, selftests, examples"
	"$MAKE" -s --no-print-directory modules-all lib tools selftests examples ||
		build=$?
	count_step build "$build"

	echo "check: lint"
	tools/lint.sh || rc=$?
	count_step lint "$rc"

	echo "check: netlink spec (tools/ynl/nlgen.py --check)"
	rc=0
	tools/ynl/nlgen.py --check || rc=$?
	count_step "netlink spec" "$rc"

	if [ -x "$host" ]; then
		echo "check: host tests ($host)"
		rc=0
		"$host" 2>&1 | tee "$tmp/host" || rc=${PIPESTATUS[0]}
		count_run "host tests" "$tmp/host" "$rc"
	else
		echo "check: no $host: no host tests"
	fi
	echo "check: ubplot's host tests (tools/plot/tests/host.py)"
	rc=0
	tools/plot/tests/host.py 2>&1 | tee "$tmp/plot" || rc=${PIPESTATUS[0]}
	count_run "ubplot tests" "$tmp/plot" "$rc"
	echo "check: the man pages (Documentation/man/tests/host.sh)"
	rc=0
	Documentation/man/tests/host.sh 2>&1 | tee "$tmp/man" ||
		rc=${PIPESTATUS[0]}
	count_run "man pages" "$tmp/man" "$rc"
	echo "check: ubctl's bash completion (tools/completion/tests/host.sh)"
	rc=0
	tools/completion/tests/host.sh 2>&1 | tee "$tmp/completion" ||
		rc=${PIPESTATUS[0]}
	count_run "bash completion" "$tmp/completion" "$rc"
	echo "check: ubbench coll in a VM (tools/bench/tests/coll.sh)"
	rc=0
	tools/bench/tests/coll.sh 2>&1 | tee "$tmp/coll" || rc=${PIPESTATUS[0]}
	count_run "ubbench coll" "$tmp/coll" "$rc"
	lib_tests
	echo "check: ubbench ep in VMs (tools/bench/tests/ep.sh)"
	rc=0
	tools/bench/tests/ep.sh 2>&1 | tee "$tmp/ep" || rc=${PIPESTATUS[0]}
	count_run "ubbench ep" "$tmp/ep" "$rc"

	for series in 6.1 6.12; do
		var=UBFAB_KVER_${series//./_}
		kver=${!var}
		if [ "$build" -ne 0 ]; then
			not_run "VM $kver" "the build failed"
			continue
		fi
		vm_run "$kver" -k "$series" -n -t "$VM_TIMEOUT"
		make_vm_run python check-python "$series" "$kver"
		make_vm_run "ubbench send" check-bench "$series" "$kver"
	done
	# the bootstrap under mpirun is the library's, not the kernel's: once
	if [ "$build" -eq 0 ]; then
		make_vm_run mpirun check-mpi 6.12 "$UBFAB_KVER_6_12"
	else
		not_run "mpirun $UBFAB_KVER_6_12" "the build failed"
	fi
	deb_checks "$build"
}

# The debug kernel (selftests with kmemleak, KUnit) and the PREEMPT_RT
# kernel (selftests).
debug_checks() {
	local paths rc=0 dkver="" config="" rt=$UBFAB_KVER_6_12_RT

	echo "check: the debug kernel (tools/debug-kernel.sh; first build" \
		"about 15 minutes, cached afterwards)"
	paths=$(tools/debug-kernel.sh) || rc=$?
	count_step "debug kernel" "$rc"
	if [ "$rc" -eq 0 ]; then
		dkver=$(sed -n 's/^KVER=//p' <<<"$paths")
		config=$(sed -n 's/^CONFIG=//p' <<<"$paths")
		echo "check: building the module for $dkver, lib, ubctl, selftests"
		"$MAKE" -s --no-print-directory modules KVER=debug lib tools \
			selftests || rc=$?
		count_step "build for $dkver" "$rc"
	fi
	if [ -z "$dkver" ]; then
		not_run "VM debug kernel" "no debug kernel"
	elif [ "$rc" -ne 0 ]; then
		not_run "VM $dkver" "the build failed"
	else
		vm_run "$dkver" -k debug -n -l -t $((3 * VM_TIMEOUT))
		count_kunit "$dkver" "$config"
		echo "check: a 3-minute soak on $dkver (make soak)"
		rc=0
		"$MAKE" -s --no-print-directory soak SOAK_MINUTES=3 \
			SOAK_KVER=debug || rc=$?
		count_step "soak, 3 minutes on $dkver" "$rc"
	fi

	echo "check: building the module for $rt, lib, ubctl, selftests"
	rc=0
	"$MAKE" -s --no-print-directory modules KVER=6.12-rt lib tools \
		selftests || rc=$?
	count_step "build for $rt" "$rc"
	if [ "$rc" -ne 0 ]; then
		not_run "VM $rt" "the build failed"
	else
		vm_run "$rt" -k 6.12-rt -n -t "$VM_TIMEOUT"
	fi
}

[ "$debug_only" -eq 1 ] || stock_checks
debug_checks

echo "check: summary"
printf '  %s\n' "${summary[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

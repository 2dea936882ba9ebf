#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Host-side checks of ubctl and libubfab, for a machine where ubfab.ko is
# not loaded: the command line (help, usage errors, exit codes), the
# "module not loaded" path through the real library, ubctl's output in
# text, JSON and DOT (laid out by dot(1) where graphviz is installed)
# against a stand-in libubfab with a made-up fabric (and
# what the set, reset and monitor commands ask of it and print), the
# JSON writer, trace dump's timelines (and tools/trace/view.html drawing
# one in a headless Chromium, where installed), the ABI of the library and
# of its ffi library (abidiff),
# and its install,
# exported symbols and pkg-config file. Prints KTAP; exits nonzero if a
# check failed.
#
# Usage: tools/ubctl/tests/host.sh [UBCTL]
#   UBCTL defaults to build/tools/ubctl; libubfab is found through
#   LD_LIBRARY_PATH (default build/lib).

set -u

root=$(cd "$(dirname "$0")/../../.." && pwd)
ubctl=$(realpath "${1:-$root/build/tools/ubctl}")
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-$root/build/lib}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0 pass=0 fail=0 skip=0
results=

record() {	# record STATUS DESCRIPTION [DIAGNOSTIC...]
	n=$((n + 1))
	results="$results
$1 $n - $2"
	shift 2
	for line in "$@"; do
		results="$results
# $line"
	done
}

ok() { pass=$((pass + 1)); record ok "$1"; }
skip() { skip=$((skip + 1)); record ok "$1 # SKIP $2"; }
not_ok() { fail=$((fail + 1)); record "not ok" "$@"; }

# run CMD...: run it, stdout to $tmp/out, stderr to $tmp/err, status in $rc
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect RC PATTERN DESCRIPTION CMD...: CMD exits RC and its stderr
# matches PATTERN (a fixed string; empty: anything)
expect() {
	want=$1 pattern=$2 desc=$3
	shift 3
	run "$@"
	if [ "$rc" -eq "$want" ] &&
	   { [ -z "$pattern" ] || grep -qF -- "$pattern" "$tmp/err"; }; then
		ok "$desc"
	else
		not_ok "$desc" "command: $*" "exit $rc, want $want" \
			"stderr: $(head -c 300 "$tmp/err")"
	fi
}

# expect_out DESCRIPTION PATTERN CMD...: CMD exits 0 and prints PATTERN
expect_out() {
	desc=$1 pattern=$2
	shift 2
	run "$@"
	if [ "$rc" -eq 0 ] && grep -qF -- "$pattern" "$tmp/out"; then
		ok "$desc"
	else
		not_ok "$desc" "command: $*" "exit $rc" \
			"stdout: $(head -c 300 "$tmp/out")" \
			"stderr: $(head -c 300 "$tmp/err")"
	fi
}

# The command line

run "$ubctl" --help
if [ "$rc" -eq 0 ] && grep -q "ubctl topo" "$tmp/out" &&
   grep -q "ubctl entity" "$tmp/out" && grep -q "ubctl port" "$tmp/out" &&
   grep -q "ubctl plane" "$tmp/out" && grep -q "ubctl seg" "$tmp/out" &&
   grep -q "ubctl stats" "$tmp/out" && grep -q "ubctl model" "$tmp/out" &&
   grep -q "ubctl monitor" "$tmp/out"; then
	ok "--help exits 0 and describes every object"
else
	not_ok "--help exits 0 and describes every object" \
		"exit $rc" "stderr: $(head -c 300 "$tmp/err")"
fi
expect_out "help is the same as --help" "OBJECTS AND COMMANDS" "$ubctl" help
expect_out "OBJECT help shows the object's syntax" \
	"ubctl port show [ENTITY] [plane N]" "$ubctl" port help
expect_out "-V prints the project's version (lib/Makefile's)" \
	"ubctl $(sed -n 's/^VERSION := //p' "$root/lib/Makefile") " "$ubctl" -V
expect 2 'unknown object "foo"' "unknown object exits 2" "$ubctl" foo
expect 2 "Try 'ubctl --help'" "usage errors point to --help" "$ubctl" foo
expect 2 "unknown option '--bogus'" "unknown long option exits 2" \
	"$ubctl" --bogus topo
expect 2 "unknown option '-x'" "unknown short option exits 2" \
	"$ubctl" -x topo
expect 2 "missing OBJECT" "no object exits 2" "$ubctl"
expect 2 'ambiguous object "p" (port, plane)' "ambiguous prefix exits 2" \
	"$ubctl" p
expect 2 'unknown command "bogus"' "unknown command exits 2" \
	"$ubctl" topo bogus
expect 2 'missing number after "plane"' "missing argument exits 2" \
	"$ubctl" port show plane
expect 2 'invalid eid "x"' "bad number exits 2" "$ubctl" topo show eid x
expect 2 'unexpected argument "more"' "extra argument exits 2" \
	"$ubctl" plane show 1 more
expect 2 'unknown format "svg"' "unknown format exits 2" "$ubctl" -f svg topo
expect 2 "option '--format' needs an argument" "format without its argument exits 2" \
	"$ubctl" --format
expect 2 "-f dot: port draws no graph (topo does)" "-f dot of another object exits 2" \
	"$ubctl" -f dot port show
expect 2 '-f dot: "node N" or "plane N", not "npu3"' \
	"-f dot topo show ENTITY exits 2" "$ubctl" -f dot topo show npu3
expect 2 'missing number after "node"' "-f dot topo show node without N exits 2" \
	"$ubctl" -f dot topo show node
expect 2 'unexpected argument "1"' "-f dot topo show plane N with more exits 2" \
	"$ubctl" --format=dot topo show plane 0 1
expect_out "port help shows set" \
	"ubctl port set ENTITY plane N [state STATE] [bw PERMILLE] [delay PS]" \
	"$ubctl" port help
expect_out "plane help shows set" "ubctl plane set N state STATE" \
	"$ubctl" plane help
expect_out "entity help shows reset" "ubctl entity reset ENTITY" \
	"$ubctl" entity help
expect_out "stats help shows its selections" \
	"ubctl stats [show] port [ENTITY] [plane N]" "$ubctl" stats help
expect_out "monitor help says how it ends" "SIGTERM)," "$ubctl" monitor h
expect_out "model help shows set" \
	"ubctl model set [profile PROFILE] [NAME VALUE]..." "$ubctl" model help
expect 2 'ambiguous object "mo" (model, monitor)' "mo is ambiguous" \
	"$ubctl" mo
# usage errors: before the module is looked for (it is not loaded here)
expect 2 "missing ENTITY" "port set without ENTITY exits 2" "$ubctl" port set
expect 2 'missing "plane N"' "port set without plane exits 2" \
	"$ubctl" port set npu3 state down
expect 2 'missing "state STATE" or a fault knob (bw, delay, errors)' \
	"port set without state or knob exits 2" "$ubctl" port set npu3 plane 1
expect 2 'missing STATE (up or down) after "state"' \
	"port set with state last and no value exits 2" \
	"$ubctl" port set npu3 plane 1 state
expect 2 'unknown state "sideways"' "port set with a bad state exits 2" \
	"$ubctl" port set npu3 plane 1 state sideways
expect 2 '"plane" given twice' "port set with plane twice exits 2" \
	"$ubctl" port set npu3 plane 1 state up plane 2
expect 2 'unknown keyword "speed"' "port set with an unknown keyword exits 2" \
	"$ubctl" port set npu3 speed 1
expect 2 'invalid plane "x"' "port set with a bad plane exits 2" \
	"$ubctl" port set npu3 plane x state up
expect 2 'missing number after "bw"' "port set with bw last and no value exits 2" \
	"$ubctl" port set npu3 plane 1 bw
expect 2 'invalid delay "1.5"' "port set delay not an integer exits 2" \
	"$ubctl" port set npu3 plane 1 delay 1.5
expect 2 'invalid errors "-1"' "port set negative errors exits 2" \
	"$ubctl" port set npu3 plane 1 errors -1
expect 2 'invalid bw "4294967296"' "port set bw over 32 bits exits 2" \
	"$ubctl" port set npu3 plane 1 bw 4294967296
expect 2 'invalid delay "18446744073709551616"' \
	"port set delay over 64 bits exits 2" \
	"$ubctl" port set npu3 plane 1 delay 18446744073709551616
expect 2 '"bw" given twice' "port set with bw twice exits 2" \
	"$ubctl" port set npu3 plane 1 bw 500 state up b 600
expect 2 '"state" given twice' "port set with state twice exits 2" \
	"$ubctl" port set npu3 plane 1 state up errors 1 state down
expect 2 "missing plane number" "plane set without N exits 2" \
	"$ubctl" plane set
expect 2 'missing "state STATE"' "plane set without state exits 2" \
	"$ubctl" plane set 1
expect 2 'unexpected argument "now"' "plane set with more exits 2" \
	"$ubctl" plane set 1 state up now
expect 2 "missing ENTITY" "entity reset without ENTITY exits 2" \
	"$ubctl" entity reset
expect 2 'unexpected argument "npu1"' "entity reset of two exits 2" \
	"$ubctl" entity reset npu0 npu1
expect 2 'ambiguous command "p" (plane, port)' "stats p is ambiguous" \
	"$ubctl" stats p
expect 2 'unknown object "bogus"' "stats show with a bad object exits 2" \
	"$ubctl" stats show bogus
expect 2 'unexpected argument "9"' "stats plane with two numbers exits 2" \
	"$ubctl" stats plane 1 9
expect 2 'unexpected argument "link"' "monitor takes no arguments" \
	"$ubctl" monitor link
expect 2 'invalid count "x"' "top count needs a number" "$ubctl" top count x
expect 2 'interval: at least 1 second' "top interval 0 exits 2" \
	"$ubctl" top interval 0
expect 2 'unexpected argument "bogus"' "top with a stray argument exits 2" \
	"$ubctl" top bogus
expect 2 'unexpected argument "x"' "stats link with a stray argument exits 2" \
	"$ubctl" stats link x
expect 2 'missing "profile PROFILE" or NAME VALUE' \
	"model set without arguments exits 2" "$ubctl" model set
expect 2 'missing PROFILE after "profile"' "model set profile alone exits 2" \
	"$ubctl" model set profile
expect 2 'missing VALUE after "hop-ps"' "model set NAME alone exits 2" \
	"$ubctl" model set profile cm384 hop-ps
expect 2 'invalid value "25e4" for hop-ps' "model set VALUE not an integer exits 2" \
	"$ubctl" model set hop-ps 25e4
expect 2 'invalid value "-1" for hop-ps' "model set a negative VALUE exits 2" \
	"$ubctl" model set hop-ps -1
expect 2 'invalid value "18446744073709551616" for hop-ps' \
	"model set a VALUE over 64 bits exits 2" \
	"$ubctl" model set hop-ps 18446744073709551616
expect 2 '"hop-ps" given twice' "model set NAME twice exits 2" \
	"$ubctl" model set hop-ps 1 dma-ps 2 hop-ps 3
expect 2 '"profile PROFILE" must come first' "model set profile last exits 2" \
	"$ubctl" model set hop-ps 1 profile cm384
expect 2 '"profile" given twice' "model set profile twice exits 2" \
	"$ubctl" model set profile cm384 profile cm384
expect 2 'unexpected argument "hop-ps"' "model show takes no arguments" \
	"$ubctl" model show hop-ps

# The real library, without the module

notloaded='ubctl: ubfab module not loaded (no generic netlink family "ubfab")'
expect 1 "$notloaded" "topo without the module exits 1" "$ubctl" topo
expect 1 "$notloaded" "-j topo without the module exits 1" "$ubctl" -j topo
if [ -s "$tmp/out" ]; then
	not_ok "-j topo without the module prints nothing on stdout" \
		"stdout: $(head -c 300 "$tmp/out")"
else
	ok "-j topo without the module prints nothing on stdout"
fi
expect 1 "$notloaded" "usage is checked before the module" \
	"$ubctl" entity show npu0
expect 1 "$notloaded" "port set without the module exits 1" \
	"$ubctl" port set npu0 plane 0 state down
expect 1 "$notloaded" "port set of a knob without the module exits 1" \
	"$ubctl" port set npu0 plane 0 delay 1000
expect 1 "$notloaded" "monitor without the module exits 1" "$ubctl" monitor
expect 1 "$notloaded" "model show without the module exits 1" "$ubctl" model
expect 1 "$notloaded" "model set without the module exits 1" \
	"$ubctl" model set hop-ps 1

# Test helpers: the test of the tools' JSON writer (tools/common, on the
# kselftest harness tools/deps.sh fetched) and the stand-in library

UBFAB_CACHE=${UBFAB_CACHE:-$HOME/.cache/ubfab}
# shellcheck source=/dev/null
[ ! -r "$UBFAB_CACHE/env.sh" ] || . "$UBFAB_CACHE/env.sh"
if ! make -s -C "$root/tools/ubctl" O="$tmp/tools" \
		KSELFTEST="${UBFAB_KSELFTEST-}" tests >"$tmp/make.log" 2>&1; then
	not_ok "build the test helpers" "$(tail -n 5 "$tmp/make.log")"
fi
helpers=$tmp/tools/tests/ubctl
run "$tmp/tools/tests/common/json_test"
if [ "$rc" -eq 0 ]; then
	ok "JSON writer: styles, numbers and string escaping"
else
	not_ok "JSON writer: styles, numbers and string escaping" "$(cat "$tmp/out")"
fi

# ubctl against the stand-in library (small profile, npu5 plane 3 down at a
# quarter of the bandwidth, npu5 plane 4 with added latency and errors)

fake() { LD_LIBRARY_PATH=$helpers/fake "$ubctl" "$@"; }

expect_out "topo: a line per node" \
	"node 1: npu16-npu31 (8 chips x 2 dies), cpu4-cpu7" fake topo
expect_out "topo: ports and how many are up" "280 (279 up)" fake topo
expect_out "topo: memory in human units" "64GiB HBM each, 2TiB in all" \
	fake topo
expect_out "topo show: an entity's place" \
	"npu5: eid 5, NPU die 1 of chip 2 in node 0" fake topo show npu5
expect_out "port show ENTITY plane N: one port, knobs off their defaults" \
	"npu5 plane 3: state down bw_permille 250 tx_bytes 1536 " \
	fake port show npu5 plane 3
expect_out "port show: each knob off its default" \
	"npu5 plane 4: state up delay_ps 1500000 error_ppm 100 tx_bytes 2048 " \
	fake port show npu5
expect_out "port show: no knobs at their defaults" \
	"npu5 plane 2: state up tx_bytes 1024 " fake port show npu5
expect_out "topo show: the ports' knobs off their defaults" \
	"    plane 4: state up delay_ps 1500000 error_ppm 100 tx_bytes 2048 " \
	fake topo show npu5
expect_out "port show: no knobs from an older module" \
	"npu5 plane 3: state down tx_bytes 1536 " \
	env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" port show npu5 plane 3
# -f dot: the graph's structure (one graph, braces that balance, every
# NAME given as a node), and that dot(1), where installed, lays it out
# and draws each NAME (SVG titles)
# dot_check DESCRIPTION "ARGS" NAME...
dot_check() {
	desc=$1 args=$2
	shift 2
	# shellcheck disable=SC2086 # $args is a word list
	run fake -f dot $args
	why=
	[ "$rc" -eq 0 ] || why="exit $rc"
	[ "$(grep -c '^graph ' "$tmp/out")" -eq 1 ] &&
		[ "$(tail -n 1 "$tmp/out")" = "}" ] ||
		why="$why; not one graph"
	[ "$(tr -cd '{' <"$tmp/out" | wc -c)" -eq \
	  "$(tr -cd '}' <"$tmp/out" | wc -c)" ] || why="$why; braces unbalanced"
	for name in "$@"; do
		grep -q "^	*\"$name\" \[" "$tmp/out" || why="$why; no node $name"
	done
	if [ -n "$dotcmd" ] && [ -z "$why" ]; then
		if dot -Tsvg <"$tmp/out" >"$tmp/svg" 2>"$tmp/err"; then
			for name in "$@"; do
				grep -qF "<title>$name</title>" "$tmp/svg" ||
					why="$why; $name not drawn"
			done
		else
			why="dot -Tsvg fails: $(head -c 300 "$tmp/err")"
		fi
	fi
	if [ -z "$why" ]; then
		ok "$desc"
	else
		not_ok "$desc" "${why#; }" "stdout: $(head -c 300 "$tmp/out")"
	fi
}
dotcmd=$(command -v dot)
all=
i=0
while [ $i -lt 32 ]; do all="$all npu$i"; i=$((i + 1)); done
# shellcheck disable=SC2086 # $all is a word list
dot_check "-f dot topo: every entity, L1 per node, L2 per plane" "topo" \
	$all cpu0 cpu1 cpu2 cpu3 cpu4 cpu5 cpu6 cpu7 node0.l1 node1.l1 \
	plane0.l2 plane6.l2
dot_check "-f dot topo show node 1: its entities, each plane's L1" \
	"topo show node 1" npu16 npu31 cpu4 cpu7 plane0.l1 plane6.l1
dot_check "-f dot topo show plane 3: L1s, L2s, the entity cut off" \
	"topo show plane 3" node0.l1 node1.l1 l2.0 l2.15 npu5
if [ -n "$dotcmd" ]; then
	ok "dot(1) installed: the graphs above were laid out"
else
	skip "dot(1) lays the graphs out" "graphviz not installed"
fi
run fake -f dot topo
if grep -qF '"npu5" -- "node0.l1" [label="6/7 up", color=orange];' "$tmp/out" &&
   grep -qF '"npu4" -- "node0.l1" [label="7"];' "$tmp/out" &&
   [ "$(grep -c -- '-- "plane[0-9].l2"' "$tmp/out")" -eq 14 ]; then
	ok "-f dot topo: ports per entity edge, some down in orange; L1-L2 edges"
else
	not_ok "-f dot topo: ports per entity edge, some down in orange; L1-L2 edges" \
		"stdout: $(grep -F npu5 "$tmp/out" | head -c 300)"
fi
run fake -f dot topo show node 0
if [ "$(grep -c -- '-- "plane[0-9].l1"' "$tmp/out")" -eq 140 ] &&
   grep -qF '"npu5" -- "plane3.l1" [color=red, style=dashed];' "$tmp/out" &&
   ! grep -q '"npu16"' "$tmp/out"; then
	ok "-f dot topo show node 0: every port of its own, the down one red"
else
	not_ok "-f dot topo show node 0: every port of its own, the down one red" \
		"stdout: $(head -c 300 "$tmp/out")"
fi
run fake -f dot topo show plane 3
if [ "$(grep -c -- '-- "l2\.' "$tmp/out")" -eq 32 ] &&
   grep -qF '"node0.l1" [label="node 0 L1\nports 20 (19 up)", color=orange];' "$tmp/out"; then
	ok "-f dot topo show plane 3: every L1-L2 link, ports up per L1"
else
	not_ok "-f dot topo show plane 3: every L1-L2 link, ports up per L1" \
		"stdout: $(head -c 300 "$tmp/out")"
fi
expect 1 "ubctl: node 2: no such node" "-f dot of an unknown node exits 1" \
	fake -f dot topo show node 2
expect 1 "ubctl: plane 7: no such plane" "-f dot of an unknown plane exits 1" \
	fake -f dot topo show plane 7
expect_out "-f json is -j" '"node_list":[' fake -f json topo
expect_out "-f text after -j: text" "nodes:" fake -j -f text topo

expect_out "entity show eid N" \
	"cpu1: eid 33 kind cpu node 0 socket 1 dram 256GiB ports 7" \
	fake entity show eid 33
expect_out "prefixes: pl sh 3" "plane 3: state up" fake pl sh 3
expect 1 "ubctl: npu99: no such entity" "unknown entity exits 1" \
	fake topo show npu99
expect 1 "ubctl: plane 7: no such plane" "unknown plane exits 1" \
	fake port show plane 7
expect 1 "plane 100: Invalid argument (plane id out of range)" \
	"kernel errors carry the extack message" fake plane show 100
expect_out "entity show: refused imports where reported" \
	"npu5: eid 5 kind npu node 0 chip 2 die 1 hbm 64GiB ports 7 auth_failures 2" \
	fake entity show npu5
expect_out "topo show: refused imports where reported" \
	"auth    2 refused imports of its segments" fake topo show npu5
run env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" entity show npu5
if [ "$rc" -eq 0 ] && grep -q "ports 7$" "$tmp/out"; then
	ok "entity show: no auth_failures from an older module"
else
	not_ok "entity show: no auth_failures from an older module" \
		"exit $rc" "stdout: $(head -c 300 "$tmp/out")"
fi
expect_out "seg show: a line per segment, lengths in human units" \
	"npu0 token 7 offset 0x200000 length 0x4000 (16KiB) rights r-- importers 0 pid 812" \
	fake seg show
expect_out "seg show ENTITY: its segments only" \
	"cpu1 token 1 offset 0x1000000000 length 0x1000 (4KiB) rights rwa importers 1 pid 900" \
	fake seg show cpu1
run fake seg show npu1
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ]; then
	ok "seg show ENTITY without segments prints nothing"
else
	not_ok "seg show ENTITY without segments prints nothing" "exit $rc" \
		"stdout: $(head -c 300 "$tmp/out")"
fi
expect 1 "ubctl: eid 99: no such entity" "seg show of an unknown entity exits 1" \
	fake seg show eid 99
expect 1 "does not report segments" "seg show with an older module exits 1" \
	env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" seg show

# The set and reset commands: what they ask of the library, their errors

export UBFAB_FAKE_LOG="$tmp/calls"
: >"$tmp/calls"
quiet=true
for args in "port set eid 5 state d plane 3" "pl se 2 st up" \
	    "entity reset cpu1" \
	    "port set npu5 plane 4 d 1000000000000 e 0 bw 1" \
	    "po se npu1 pl 0 errors 1000000 state up"; do
	# shellcheck disable=SC2086 # $args is a word list
	run fake $args
	{ [ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; } ||
		quiet=false
done
if $quiet && [ "$(cat "$tmp/calls")" = "port_set 5 3 state=0
plane_set 2 1
reset 33
port_set 5 4 bw=1 delay=1000000000000 errors=0
port_set 1 0 state=1 errors=1000000" ]; then
	ok "port set, plane set, entity reset: the right calls, silent, exit 0"
else
	not_ok "port set, plane set, entity reset: the right calls, silent, exit 0" \
		"exit $rc" "calls: $(cat "$tmp/calls")" \
		"stderr: $(head -c 300 "$tmp/err")"
fi
: >"$tmp/calls"
for args in "bw 0" "bw 1001" "delay 1000000000001" "errors 1000001" \
	    "state down bw 500 errors 1000001"; do
	# shellcheck disable=SC2086 # $args is a word list
	expect 1 "ubctl: npu5 plane 3: Numerical result out of range (value out of range)" \
		"port set $args: out of range, exit 1" \
		fake port set npu5 plane 3 $args
done
expect 1 "ubctl: npu5 plane 3: the loaded ubfab module has no fault knobs" \
	"port set of a knob with an older module exits 1" \
	env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" port set npu5 plane 3 state up bw 500
if [ -s "$tmp/calls" ]; then
	not_ok "port set changes nothing when it fails" \
		"calls: $(cat "$tmp/calls")"
else
	ok "port set changes nothing when it fails"
fi
expect 0 "" "port set of the state alone with an older module exits 0" \
	env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" port set npu5 plane 3 state up
unset UBFAB_FAKE_LOG
expect 1 "ubctl: npu99: no such entity" "port set of an unknown entity exits 1" \
	fake port set npu99 plane 0 state up
expect 1 "ubctl: plane 7: no such plane" "port set of an unknown plane exits 1" \
	fake port set npu5 plane 7 state up
expect 1 "ubctl: plane 7: no such plane" "plane set of an unknown plane exits 1" \
	fake plane set 7 state down
expect 1 "ubctl: eid 40: no such entity" "entity reset of an unknown EID exits 1" \
	fake entity reset eid 40
eperm="Operation not permitted (changing the fabric needs CAP_NET_ADMIN)"
expect 1 "ubctl: cpu1: $eperm" "EPERM from entity reset: exit 1, says why" \
	env UBFAB_FAKE_EPERM=1 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" entity reset cpu1
expect 1 "ubctl: npu5 plane 3: $eperm" "EPERM from port set: exit 1, says why" \
	env UBFAB_FAKE_EPERM=1 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" port set npu5 plane 3 state up
expect 1 "ubctl: npu5 plane 3: $eperm" "EPERM from port set of a knob: exit 1" \
	env UBFAB_FAKE_EPERM=1 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" port set npu5 plane 3 delay 0
expect 1 "ubctl: plane 2: $eperm" "EPERM from plane set: exit 1, says why" \
	env UBFAB_FAKE_EPERM=1 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" plane set 2 state up

# model: show, set, their errors

run fake model show
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "profile cm384
issue-ps: 200000 ps default 200000 ps range 0..1000000000000 ps
hop-ps: 187500 ps default 187500 ps range 0..1000000000000 ps
link-mbps: 28000 MB/s default 28000 MB/s range 1..1000000000 MB/s
eff-write-npu-permille: 699 permille default 699 permille range 1..1000 permille
memory total: 29176 bytes (28.5KiB)
memory links: 64 links, 1024 bytes (1KiB)
memory queues: 2 queues, 432 bytes (432B)
memory stamps: 3000 stamps, 27648 bytes (27KiB)
memory other: 72 bytes (72B)" ]; then
	ok "model show: the profile, each parameter with its unit, the memory"
else
	not_ok "model show: the profile, each parameter with its unit, the memory" \
		"exit $rc" "stdout: $(head -c 600 "$tmp/out")"
fi
run fake -j model show
if [ "$rc" -eq 0 ] && grep -qF '"memory":{"links":64,"links_bytes":1024,"queues":2,"queue_bytes":432,"stamps":3000,"stamp_bytes":27648,"other_bytes":72,"total_bytes":29176}' "$tmp/out"; then
	ok "model show -j: the memory, each figure"
else
	not_ok "model show -j: the memory, each figure" \
		"exit $rc" "stdout: $(head -c 600 "$tmp/out")"
fi
export UBFAB_FAKE_LOG="$tmp/calls"
: >"$tmp/calls"
quiet=true
for args in "model set profile cm384 hop-ps 250000 link-mbps 1" \
	    "mod se eff-write-npu-permille 1000" "model set profile cm384" \
	    "model set hop-ps 0"; do
	# shellcheck disable=SC2086 # $args is a word list
	run fake $args
	{ [ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; } ||
		quiet=false
done
if $quiet && [ "$(cat "$tmp/calls")" = "model_set cm384 hop-ps=250000 link-mbps=1
model_set - eff-write-npu-permille=1000
model_set cm384
model_set - hop-ps=0" ]; then
	ok "model set: one call with the profile and every value, silent, exit 0"
else
	not_ok "model set: one call with the profile and every value, silent, exit 0" \
		"exit $rc" "calls: $(cat "$tmp/calls")" \
		"stderr: $(head -c 300 "$tmp/err")"
fi
: >"$tmp/calls"
expect 1 "ubctl: bogus-ps: no such parameter" \
	"model set of an unknown parameter exits 1" \
	fake model set hop-ps 1 bogus-ps 2
expect 1 "ubctl: profile cm385: no such profile" \
	"model set of an unknown profile exits 1" fake model set profile cm385
expect 1 "ubctl: link-mbps: 0 MB/s out of range 1..1000000000 MB/s" \
	"model set out of range exits 1 and names the value" \
	fake model set hop-ps 1 link-mbps 0
if [ -s "$tmp/calls" ]; then
	not_ok "model set changes nothing when it fails" \
		"calls: $(cat "$tmp/calls")"
else
	ok "model set changes nothing when it fails"
fi
unset UBFAB_FAKE_LOG
expect 1 "ubctl: model: $eperm" "EPERM from model set: exit 1, says why" \
	env UBFAB_FAKE_EPERM=1 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" model set hop-ps 1
for args in "model show" "model set hop-ps 1"; do
	# shellcheck disable=SC2086 # $args is a word list
	expect 1 "ubctl: model: the loaded ubfab module has no model parameters" \
		"$args with an older module exits 1" \
		env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
		"$ubctl" $args
done

# stats

expect_out "stats port ENTITY plane N: that port's counters" \
	"npu5 plane 3: tx_bytes 1536 rx_bytes 768 tx_ops 3 rx_ops 1 errors 1" \
	fake stats port npu5 plane 3
expect_out "stats show plane N: that plane's counters" "plane 3: tx_bytes " \
	fake stats show plane 3
run fake stats
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 287 ] &&
   [ "$(grep -c '^plane ' "$tmp/out")" -eq 7 ] &&
   [ "$(head -n 1 "$tmp/out" | cut -d: -f1)" = "plane 0" ] &&
   [ "$(sed -n 8p "$tmp/out" | cut -d: -f1)" = "npu0 plane 0" ]; then
	ok "stats: every plane, then every port"
else
	not_ok "stats: every plane, then every port" "exit $rc" \
		"stdout: $(head -c 300 "$tmp/out")"
fi
expect 1 "ubctl: plane 7: no such plane" "stats plane of an unknown plane exits 1" \
	fake stats plane 7
expect_out "stats link plane N loaded: what each busy link carried" \
	"plane 1 npu3 tx: bytes 3000000 busy 108.0us idle 892.0us util 10.8%" \
	fake stats link plane 1 loaded
run fake stats link plane 1
if [ "$rc" -eq 0 ] && [ "$(grep -c '^plane 1 ' "$tmp/out")" -eq 144 ] &&
   grep -qx "plane 1 node 1 up l2 15: bytes 0 busy 0ns idle 0ns util 0.0%" "$tmp/out" &&
   head -n 1 "$tmp/out" | grep -q "^modeled time reached: 1.00ms"; then
	ok "stats link plane N: every port both ways, every L1-L2 link"
else
	not_ok "stats link plane N: every port both ways, every L1-L2 link" \
		"exit $rc" "stdout: $(head -c 300 "$tmp/out")"
fi
expect 1 "ubctl: plane 7: no such plane" "stats link of an unknown plane exits 1" \
	fake stats link plane 7
expect 1 "ubctl: links: the loaded ubfab module does not report them" \
	"stats link with an older module exits 1" \
	env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" stats link
expect_out "queue show: every queue, its flags, clock and entries" \
	"npu1 queue 1: pid 812 sq 64 cq 64 flags timing,ordered clock 0ns entries 0" \
	fake queue show
run fake queue show cpu1
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
   grep -qx "cpu1 queue 0: pid 900 sq 32 cq 32 flags - clock 2.0us entries 50" \
	"$tmp/out"; then
	ok "queue show ENTITY: that entity's queues only"
else
	not_ok "queue show ENTITY: that entity's queues only" "exit $rc" \
		"stdout: $(head -c 300 "$tmp/out")"
fi
expect 1 "ubctl: npu99: no such entity" "queue show of an unknown entity exits 1" \
	fake queue show npu99
expect 1 "ubctl: queue dump: the loaded ubfab module does not report queues" \
	"queue show with an older module exits 1" \
	env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" queue show
expect_out "jetty show: every jetty, its queues, state and counters" \
	"npu1 jetty 1: pid 812 sq 1 rq 2 state error sends 3 receives 0 rnr_naks 8 rnr_exc 1 errors 1 events 0" \
	fake jetty show
run fake jetty show cpu1
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ]; then
	ok "jetty show ENTITY: none for an entity without jetties"
else
	not_ok "jetty show ENTITY: none for an entity without jetties" \
		"exit $rc" "stdout: $(head -c 300 "$tmp/out")"
fi
expect 1 "ubctl: npu99: no such entity" "jetty show of an unknown entity exits 1" \
	fake jetty show npu99
expect 1 "ubctl: jetty dump: the loaded ubfab module does not report jetties" \
	"jetty show with an older module exits 1" \
	env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" jetty show
# top: the fake's links and queues do as much between any two dumps
run fake top count 2 lines 2
if [ "$rc" -eq 0 ] &&
   [ "$(grep -c '^ubctl top: the last 1 s; ' "$tmp/out")" -eq 2 ] &&
   [ "$(grep -c '^      1000      1.00ms  npu1 queue 0 (pid 812)$' \
	"$tmp/out")" -eq 2 ] &&
   [ "$(grep -c '^        50       2.0us  cpu1 queue 0 (pid 900)$' \
	"$tmp/out")" -eq 2 ] && ! grep -q "npu1 queue 1" "$tmp/out" &&
   [ "$(grep -c '^  14.4%        4.00  plane [0-2] npu[0-9]* [tr]x$' \
	"$tmp/out")" -eq 4 ] &&
   grep -qx '  18.0%        5.00  plane [0-2] node 0 up l2 2' "$tmp/out"; then
	ok "top count 2 lines 2: two refreshes, the busiest first"
else
	not_ok "top count 2 lines 2: two refreshes, the busiest first" \
		"exit $rc" "stdout: $(head -c 600 "$tmp/out")"
fi

# monitor: events as they come, until SIGINT or SIGTERM

# monitor_run SIGNAL ARGS...: run "ubctl ARGS... monitor" on the fake
# until it printed 6 lines (every event), then send SIGNAL; status in $rc
monitor_run() {
	sig=$1
	shift
	# Emptied first: the job truncates it only once it runs, and the
	# loop below must not count an earlier test's lines.
	: >"$tmp/out"
	env LD_LIBRARY_PATH="$helpers/fake" "$ubctl" "$@" monitor \
		>"$tmp/out" 2>"$tmp/err" &
	pid=$!
	# Its handlers are in place once it prints: a signal before that
	# would kill it, or be lost (a background job ignores SIGINT). A
	# loaded machine may take long to get there: a minute at most.
	i=0
	while [ "$(wc -l <"$tmp/out")" -lt 6 ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill "-$sig" "$pid"
	wait "$pid"
	rc=$?
}
monitor_run TERM
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "port npu5 plane 3: state down bw_permille 250
plane 2: state down
entity cpu1: reset
port eid 99 plane 0: state up
port npu5 plane 4: state up delay_ps 1500000 error_ppm 100
model: profile custom hop-ps 250000 ps (was 187500 ps)" ]; then
	ok "monitor: a line per event; SIGTERM ends it with 0"
else
	not_ok "monitor: a line per event; SIGTERM ends it with 0" "exit $rc" \
		"stdout: $(head -c 300 "$tmp/out")"
fi
if grep -qF "ubctl: events lost" "$tmp/err"; then
	ok "monitor: says when events were lost"
else
	not_ok "monitor: says when events were lost" \
		"stderr: $(head -c 300 "$tmp/err")"
fi
monitor_run INT -j
if [ "$rc" -eq 0 ] && [ "$(sed -n 3p "$tmp/out")" = \
     '{"event":"entity_reset","entity":"cpu1","eid":33}' ]; then
	ok "monitor -j: an object per line; SIGINT ends it with 0"
else
	not_ok "monitor -j: an object per line; SIGINT ends it with 0" \
		"exit $rc" "stdout: $(head -c 300 "$tmp/out")"
fi
expect 1 "ubctl: monitor: the loaded ubfab module has no events group" \
	"monitor with an older module exits 1" \
	env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
	"$ubctl" monitor

if command -v jq >/dev/null; then
	json_ok() { jq -e "$1" >/dev/null 2>&1; }
	for args in "-j topo" "-p topo" "-j topo show npu3" "-j entity show" \
		    "-j port show" "-p port show cpu0" "-j plane show" \
		    "-j plane show 0" "-j seg show" "-p seg show npu0" \
		    "-j stats" "-p stats plane 1" "-j stats port cpu0" \
		    "-j model" "-p model show" "-j stats link plane 2" \
		    "-j top count 1" "-j queue show" "-p queue show npu1" \
		    "-j jetty show" "-p jetty show npu1"; do
		# shellcheck disable=SC2086 # $args is a word list
		run fake $args
		if [ "$rc" -eq 0 ] && json_ok . <"$tmp/out"; then
			ok "ubctl $args prints valid JSON"
		else
			not_ok "ubctl $args prints valid JSON" "exit $rc" \
				"$(head -c 300 "$tmp/out")"
		fi
	done
	run fake -j topo
	if json_ok '.npus == 32 and .cpus == 8 and .ports_up == 279 and
		    (.node_list | length) == 2 and
		    .node_list[1].entities[0] == "npu16"' <"$tmp/out"; then
		ok "-j topo: the summary's keys and values"
	else
		not_ok "-j topo: the summary's keys and values" \
			"$(head -c 300 "$tmp/out")"
	fi
	run fake -j seg show
	if json_ok 'length == 3 and .[0].entity == "npu0" and
		    .[0].token_id == 1 and .[0].length == 2097152 and
		    .[0].rights == ["read", "write"] and .[0].importers == 2 and
		    .[2].eid == 33 and .[2].offset == 68719476736 and
		    .[2].pid == 900 and
		    ([.[] | keys[] | select(test("value"))] | length) == 0' \
		    <"$tmp/out"; then
		ok "-j seg show: owner, token id, range, rights; no token value"
	else
		not_ok "-j seg show: owner, token id, range, rights; no token value" \
			"$(head -c 300 "$tmp/out")"
	fi
	run fake -j jetty show npu1
	if json_ok 'length == 2 and .[0].entity == "npu1" and .[0].id == 0 and
		    .[0].state == "ready" and .[0].sends == 1000 and
		    .[0].receives == 998 and .[0].events == 12 and
		    .[1].sq == 1 and .[1].rq == 2 and .[1].state == "error" and
		    .[1].rnr_naks == 8 and .[1].rnr_exc == 1 and
		    .[1].errors == 1' <"$tmp/out"; then
		ok "-j jetty show: queues, state and counters of each jetty"
	else
		not_ok "-j jetty show: queues, state and counters of each jetty" \
			"$(head -c 300 "$tmp/out")"
	fi
	run fake -j entity show npu5
	if json_ok '.[0].auth_failures == 2' <"$tmp/out"; then
		ok "-j entity show: auth_failures"
	else
		not_ok "-j entity show: auth_failures" "$(head -c 300 "$tmp/out")"
	fi
	run fake -j port show
	if json_ok 'length == 280 and .[0].entity == "npu0" and
		    .[0].stats.tx_bytes == 0' <"$tmp/out"; then
		ok "-j port show: an array of every port"
	else
		not_ok "-j port show: an array of every port" \
			"$(head -c 300 "$tmp/out")"
	fi
	run fake -j port show npu5
	if json_ok '(.[0] | keys_unsorted) == ["entity", "eid", "plane",
		    "state", "bw_permille", "delay_ps", "error_ppm", "stats"] and
		    .[0].bw_permille == 1000 and .[0].delay_ps == 0 and
		    .[0].error_ppm == 0 and .[3].bw_permille == 250 and
		    .[4].delay_ps == 1500000 and .[4].error_ppm == 100' \
		    <"$tmp/out"; then
		ok "-j port show: every knob, at its default too"
	else
		not_ok "-j port show: every knob, at its default too" \
			"$(head -c 300 "$tmp/out")"
	fi
	run env UBFAB_FAKE_PROFILE=cm384 LD_LIBRARY_PATH="$helpers/fake" \
		"$ubctl" -j port show npu5
	if json_ok 'length == 7 and
		    ([.[] | keys[] | select(test("bw|delay|error_"))] |
		     length) == 0' <"$tmp/out"; then
		ok "-j port show: no knobs from an older module"
	else
		not_ok "-j port show: no knobs from an older module" \
			"$(head -c 300 "$tmp/out")"
	fi
	run fake -j stats
	if json_ok '(keys == ["planes", "ports"]) and (.planes | length) == 7 and
		    (.ports | length) == 280 and .planes[3].plane == 3 and
		    .ports[12].entity == "npu1" and .ports[12].plane == 5 and
		    (.ports[0].stats | keys) ==
		    ["errors", "rx_bytes", "rx_ops", "tx_bytes", "tx_ops"]' \
		    <"$tmp/out"; then
		ok "-j stats: planes and ports, each with its stats"
	else
		not_ok "-j stats: planes and ports, each with its stats" \
			"$(head -c 300 "$tmp/out")"
	fi
	run fake -j stats port npu5 plane 3
	if json_ok 'keys == ["ports"] and (.ports | length) == 1 and
		    .ports[0].eid == 5 and .ports[0].stats.tx_bytes == 1536 and
		    .ports[0].stats.errors == 1' <"$tmp/out"; then
		ok "-j stats port ENTITY plane N: only ports, that one"
	else
		not_ok "-j stats port ENTITY plane N: only ports, that one" \
			"$(head -c 300 "$tmp/out")"
	fi
	run fake -j model show
	if json_ok '.profile == "cm384" and (.params | length) == 4 and
		    .params[2] == {"name": "link-mbps", "value": 28000,
				   "unit": "MB/s", "default": 28000,
				   "minimum": 1, "maximum": 1000000000}' \
		    <"$tmp/out"; then
		ok "-j model show: the profile and every parameter's members"
	else
		not_ok "-j model show: the profile and every parameter's members" \
			"$(head -c 300 "$tmp/out")"
	fi
	monitor_run TERM -j
	if [ "$(jq -c . <"$tmp/out" | wc -l)" -eq 6 ] &&
	   jq -e -s '.[0].event == "port_state" and .[0].entity == "npu5" and
		       .[0].state == "down" and .[0].bw_permille == 250 and
		       .[0].delay_ps == 0 and .[0].error_ppm == 0 and
		       .[1].event == "plane_state" and
		       .[1].plane == 2 and .[3].eid == 99 and
		       (.[3] | has("entity") | not) and
		       .[3].bw_permille == 1000 and
		       .[4].event == "port_state" and .[4].plane == 4 and
		       .[4].delay_ps == 1500000 and .[4].error_ppm == 100 and
		       .[5].event == "model" and .[5].profile == "custom" and
		       (.[5].params | length) == 4 and
		       .[5].params[1].value == 250000 and
		       .[5].params[1].default == 187500' <"$tmp/out" >/dev/null; then
		ok "monitor -j: each line is a JSON object with its fields"
	else
		not_ok "monitor -j: each line is a JSON object with its fields" \
			"$(head -c 300 "$tmp/out")"
	fi
else
	skip "ubctl -j output is valid JSON" "jq not installed"
fi

# trace: the timeline of a trace recorded in the test VM (by
# timeline_test's workload: tools/trace/tests/sample.trace, and the file
# "ubctl trace record" wrote of it there, sample.json), converted here
# without the module (tracks named "eid N"), the conversion's errors, and
# tools/trace/view.html drawing it in a headless Chromium where installed

samples=$root/tools/trace/tests
# the events of a timeline, its entities' and links' names left out
timeline_events() {
	grep '"ph": "[Xsf]"' "$1" |
		sed 's/"peer": "[^"]*"/"peer": P/; s/"link": "[^"]*"/"link": L/'
}
expect 0 "4 entries, 28 link holds on 20 links, 1 flows" \
	"trace dump converts a recorded trace" \
	"$ubctl" trace dump -i "$samples/sample.trace" -o "$tmp/t.json"
timeline_events "$tmp/t.json" >"$tmp/t.events"
timeline_events "$samples/sample.json" >"$tmp/s.events"
if [ "$(grep -c '"cat": "op"' "$tmp/t.events")" -eq 4 ] &&
   [ "$(grep -c '"cat": "link"' "$tmp/t.events")" -eq 28 ] &&
   cmp -s "$tmp/t.events" "$tmp/s.events"; then
	ok "trace dump: the slices and flows record wrote in the VM"
else
	not_ok "trace dump: the slices and flows record wrote in the VM" \
		"$(diff "$tmp/s.events" "$tmp/t.events" | head -n 6)"
fi
expect_out "trace dump: tracks without the module are \"eid N\"" \
	'"args": {"name": "eid 17"}' cat "$tmp/t.json"
{
	echo "garbage line"
	echo " prog-1 [000] ..... 1.0: sched_switch: prev_comm=x"
	echo " prog-1 [000] ..... 1.0: ubfab_future: eid=1 what=2"
	cat "$samples/sample.trace"
} >"$tmp/noisy.trace"
run "$ubctl" trace dump -i - -o - <"$tmp/noisy.trace"
if [ "$rc" -eq 0 ] && timeline_events "$tmp/out" | cmp -s - "$tmp/t.events"
then
	ok "trace dump -i - -o -: other lines and events skipped"
else
	not_ok "trace dump -i - -o -: other lines and events skipped" \
		"exit $rc" "stderr: $(head -c 300 "$tmp/err")"
fi
ev=" prog-1 [000] ..... 1.0: ubfab_complete: eid=1 qid=0 op=EVENT_RECORD user_data=0x1 status=OK peer=-1 bytes=0 planes=0x0 host_ns=1 model_start_ns=10 model_end_ns=100 after_ns=0"
printf '%s\n%s\nCPU:1 [LOST 5 EVENTS]\n' "$ev" \
	"$(echo "$ev" | sed 's/qid=0/qid=1/; s/EVENT_RECORD/EVENT_WAIT/;
		s/model_start_ns=10/model_start_ns=0/; s/model_end_ns=100/model_end_ns=120/;
		s/after_ns=0/after_ns=100/')" >"$tmp/event.trace"
expect 0 "the trace lost 5 events" \
	"trace dump: an EVENT_WAIT's flow; lost events said" \
	"$ubctl" trace dump -i "$tmp/event.trace" -o "$tmp/e.json"
expect_out "trace dump: the flow from the EVENT_RECORD to the EVENT_WAIT" \
	'{"ph": "f", "cat": "causality", "name": "event", "id": 1, "bp": "e", "pid": 2, "tid": 1, "ts": 0.119}' \
	cat "$tmp/e.json"
expect_out "trace dump: lost events in otherData" '"lost_events": 5' \
	cat "$tmp/e.json"
# flag words: a WRITE_NOTIFY of user_data 0 is a writer; a stamp its
# queue's next entry did not make (UBFAB_IOCTL_QUEUE_STAMP) is none
pre=" prog-1 [000] ..... 1.0:"
cq="status=OK peer=-1 bytes=0 planes=0x0 host_ns=1"
{
	echo "$pre ubfab_stamp: eid=1 qid=0 user_data=0x0 owner=2 addr=0x8 stamp_ns=50"
	echo "$pre ubfab_complete: eid=1 qid=0 op=NOP user_data=0x0 $cq model_start_ns=0 model_end_ns=60 after_ns=0"
	echo "$pre ubfab_complete: eid=2 qid=0 op=WAIT_VALUE user_data=0x0 $cq model_start_ns=0 model_end_ns=50 after_ns=50"
	echo "$pre ubfab_stamp: eid=1 qid=0 user_data=0x0 owner=2 addr=0x8 stamp_ns=90"
	echo "$pre ubfab_complete: eid=1 qid=0 op=WRITE_NOTIFY user_data=0x0 $cq model_start_ns=60 model_end_ns=100 after_ns=0"
	echo "$pre ubfab_complete: eid=2 qid=0 op=WAIT_VALUE user_data=0x0 $cq model_start_ns=50 model_end_ns=90 after_ns=90"
} >"$tmp/flag.trace"
run "$ubctl" trace dump -i "$tmp/flag.trace" -o -
if [ "$rc" -eq 0 ] && [ "$(grep -c '"ph": "s"' "$tmp/out")" -eq 1 ] &&
   grep -q '"ph": "s", .*"pid": 2, "tid": 0, "ts": 0.090, .*"stamp_ns": 90' "$tmp/out" &&
   grep -q '"ph": "f", .*"pid": 3, "tid": 0, "ts": 0.089}' "$tmp/out"; then
	ok "trace dump: a flow from the writer of a flag only"
else
	not_ok "trace dump: a flow from the writer of a flag only" "exit $rc" \
		"$(grep '"ph": "[sf]"' "$tmp/out")"
fi
# holds of one link that overlap (the model lets an earlier transfer pass
# a busy period by): a lane each, as Chrome nests a thread's slices
for span in 0:2000000 1000000:2000000 2500000:1000; do
	echo " prog-1 [000] ..... 1.0: ubfab_link: eid=1 op=WRITE user_data=0x1 plane=0 link=port-tx where=1 l2=0 bytes=8 start_ps=${span%:*} dur_ps=${span#*:}"
done >"$tmp/lanes.trace"
run "$ubctl" trace dump -i "$tmp/lanes.trace" -o -
if [ "$rc" -eq 0 ] &&
   grep -q '"tid": 2, "args": {"name": "eid 1 tx (2)"}' "$tmp/out" &&
   [ "$(grep -c '"cat": "link".*"tid": 1, "ts"' "$tmp/out")" -eq 2 ] &&
   [ "$(grep -c '"cat": "link".*"tid": 2, "ts": 1.000' "$tmp/out")" -eq 1 ]
then
	ok "trace dump: overlapping holds of a link in lanes of their own"
else
	not_ok "trace dump: overlapping holds of a link in lanes of their own" \
		"exit $rc" "$(grep '"tid": [12]' "$tmp/out" | head -c 600)"
fi
echo "$ev" | sed 's/bytes=0/bytes=x/' >"$tmp/bad.trace"
expect 1 "bad.trace:1: ubfab_complete: bad bytes \"x\"" \
	"trace dump: a malformed field exits 1 naming the line" \
	"$ubctl" trace dump -i "$tmp/bad.trace" -o "$tmp/bad.json"
if [ -e "$tmp/bad.json" ]; then
	not_ok "trace dump: no file written on error"
else
	ok "trace dump: no file written on error"
fi
echo "$ev" | sed 's/ peer=-1//' >"$tmp/bad.trace"
expect 1 'ubfab_complete without field "peer"' \
	"trace dump: a missing field exits 1" \
	"$ubctl" trace dump -i "$tmp/bad.trace" -o -
printf 'a\nb\n' >"$tmp/bad.trace"
expect 1 "no ubfab event in 2 lines" "trace dump: no ubfab event exits 1" \
	"$ubctl" trace dump -i "$tmp/bad.trace" -o -
sed 's/link=l1-up/link=dma/' "$samples/sample.trace" >"$tmp/kind.trace"
expect 0 'ubfab_link events of link kinds it does not know ("dma"...) left out' \
	"trace dump: holds of a link kind it does not know left out, said" \
	"$ubctl" trace dump -i "$tmp/kind.trace" -o /dev/null
grep 'ubfab_submit\|ubfab_start' "$samples/sample.trace" >"$tmp/start.trace"
expect 0 "but no ubfab_complete, ubfab_flush or ubfab_link: were they enabled?" \
	"trace dump: only events it has no use for: an empty timeline, said" \
	"$ubctl" trace dump -i "$tmp/start.trace" -o /dev/null
printf 'x\0y' >"$tmp/bad.trace"
expect 1 "binary data" "trace dump: binary input exits 1" \
	"$ubctl" trace dump -i "$tmp/bad.trace" -o -
expect 1 "$tmp/none: No such file or directory" \
	"trace dump: a missing input exits 1" \
	"$ubctl" trace dump -i "$tmp/none" -o -
expect 2 "missing COMMAND" "trace record without COMMAND exits 2" \
	"$ubctl" trace record -o "$tmp/x.json"
expect 2 "-b: not a buffer size" "trace record -b 0 exits 2" \
	"$ubctl" trace record -b 0 -- true
expect 2 'unexpected argument "x"' "trace dump takes no arguments" \
	"$ubctl" trace dump x
expect 2 "unknown option '--input'" "trace record has no --input" \
	"$ubctl" trace record --input x -- true
expect 0 "/dev/null: 4 entries" "trace dump --input= --output=" \
	"$ubctl" trace dump --input="$samples/sample.trace" --output=/dev/null
expect_out "trace help" "ubctl trace record [-o FILE]" "$ubctl" trace help

# view.html: the page with sample.json inside, its DOM once drawn
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium" ]; then
	awk -v f="$samples/sample.json" '
	/<script id="trace" type="application\/json"><\/script>/ {
		printf "<script id=\"trace\" type=\"application/json\">"
		while ((getline l < f) > 0)
			print l
		print "</script>"
		next
	}
	{ print }' "$root/tools/trace/view.html" >"$tmp/view.html"
	run timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$tmp/chromium" --dump-dom "file://$tmp/view.html"
	# 2 queues and 20 links; 4 entries and 28 link holds; 1 flow
	if [ "$rc" -eq 0 ] &&
	   grep -q 'data-tracks="22" data-slices="32" data-flows="1"' "$tmp/out" &&
	   [ "$(grep -o 'class="track"' "$tmp/out" | wc -l)" -eq 22 ] &&
	   [ "$(grep -o 'class="slice"' "$tmp/out" | wc -l)" -eq 32 ] &&
	   [ "$(grep -o 'class="flow"' "$tmp/out" | wc -l)" -eq 1 ] &&
	   grep -q '>L2 7 -&gt; node 1<' "$tmp/out"; then
		ok "view.html in headless Chromium: 22 tracks, 32 slices, 1 flow"
	else
		not_ok "view.html in headless Chromium: 22 tracks, 32 slices, 1 flow" \
			"exit $rc" "$(grep -o 'id="summary"[^<]*' "$tmp/out")" \
			"stderr: $(tail -c 300 "$tmp/err")"
	fi
else
	skip "view.html in headless Chromium" "chromium not installed"
fi

# The library: install, exported symbols, pkg-config

libo=$tmp/lib
if make -s -C "$root/lib" O="$libo" DESTDIR="$tmp/dest" PREFIX=/usr \
		install >"$tmp/make.log" 2>&1; then
	missing=
	for f in lib/libubfab.so.1.8.0 lib/libubfab.so.1 lib/libubfab.so \
		 lib/libubfab.a lib/pkgconfig/libubfab.pc include/libubfab.h \
		 include/ubfab_urma.h \
		 lib/libubfab-ffi.so.1.8.0 lib/libubfab-ffi.so.1 \
		 lib/libubfab-ffi.so lib/pkgconfig/libubfab-ffi.pc \
		 include/ubfab/linux/ubfab.h; do
		[ -e "$tmp/dest/usr/$f" ] || missing="$missing $f"
	done
	# include/linux/ belongs to the distribution's kernel headers.
	stray=
	[ ! -e "$tmp/dest/usr/include/linux" ] || stray=" include/linux"
	if [ -z "$missing$stray" ]; then
		ok "make install DESTDIR PREFIX=/usr installs every file, none in include/linux"
	else
		not_ok "make install DESTDIR PREFIX=/usr installs every file, none in include/linux" \
			"missing:$missing" "written to:$stray"
	fi
else
	not_ok "make install DESTDIR PREFIX=/usr installs every file, none in include/linux" \
		"$(tail -n 5 "$tmp/make.log")"
fi

# The library's own tests (lib/tests) are tools/check.sh's, one run each.
run make -s -C "$root/lib" O="$libo" abi-check
if [ "$rc" -eq 0 ]; then
	ok "the ABI of libubfab and libubfab-ffi is their baselines' (abidiff)"
else
	not_ok "the ABI of libubfab and libubfab-ffi is their baselines' (abidiff)" \
		"$(grep -v '^ok' "$tmp/out" | head -n 20)" \
		"$(head -c 300 "$tmp/err")"
fi

soname=$(readelf -d "$libo/libubfab.so.1.8.0" 2>/dev/null |
	 sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" = libubfab.so.1 ]; then
	ok "soname is libubfab.so.1"
else
	not_ok "soname is libubfab.so.1" "soname: $soname"
fi
# 13 functions at UBFAB_1.0, of which the 3 entity calls have a 1.1
# default version too and the 2 port calls (get, dump) a 1.4 one, 16 new
# ones at UBFAB_1.1, 12 at UBFAB_1.2, of which ubfab_nl_event_read has a
# 1.4 default version, 1 at UBFAB_1.3, 7 new ones at UBFAB_1.4, 2 at
# UBFAB_1.5, 4 at UBFAB_1.6, 22 at UBFAB_1.7 and 8 at UBFAB_1.8
syms=$(nm -D --defined-only "$libo/libubfab.so.1.8.0" 2>/dev/null |
       awk '{ print $3 }')
others=$(echo "$syms" | grep -v -x -e 'UBFAB_1\.[012345678]' \
	 -e 'ubfab_[a-z_]*@@*UBFAB_1\.[012345678]')
count() { echo "$syms" | grep -c -x "ubfab_[a-z_]*$1"; }
entity=$(echo "$syms" | grep -c -x 'ubfab_entity_[a-z_]*@UBFAB_1\.0')
port=$(echo "$syms" | grep -c -x 'ubfab_port_\(get\|dump\)@UBFAB_1\.0')
event=$(echo "$syms" | grep -c -x 'ubfab_nl_event_read@UBFAB_1\.2')
if [ -z "$others" ] && [ "$(count '@*@UBFAB_1\.0')" -eq 13 ] &&
   [ "$entity" -eq 3 ] && [ "$port" -eq 2 ] &&
   [ "$(count '@@UBFAB_1\.1')" -eq 19 ] &&
   [ "$(count '@*@UBFAB_1\.2')" -eq 12 ] && [ "$event" -eq 1 ] &&
   [ "$(count '@@UBFAB_1\.3')" -eq 1 ] &&
   [ "$(count '@@UBFAB_1\.4')" -eq 10 ] &&
   [ "$(count '@@UBFAB_1\.5')" -eq 2 ] &&
   [ "$(count '@@UBFAB_1\.6')" -eq 4 ] &&
   [ "$(count '@@UBFAB_1\.7')" -eq 22 ] &&
   [ "$(count '@@UBFAB_1\.8')" -eq 8 ]; then
	ok "exports the API at UBFAB_1.0 to UBFAB_1.8, nothing else"
else
	not_ok "exports the API at UBFAB_1.0 to UBFAB_1.8, nothing else" \
		"symbols: $(printf '%s' "$syms" | tr '\n' ' ')"
fi

cat >"$tmp/t.c" <<'EOF'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <libubfab.h>

int main(void)
{
	struct ubfab_nl *nl;
	int err = ubfab_nl_open(&nl);

	if (!err)
		ubfab_nl_close(nl);
	printf("%d %s %s %s\n", err, ubfab_kind_name(UBFAB_ENTITY_NPU),
	       ubfab_state_name(UBFAB_STATE_UP), ubfab_nl_errmsg(NULL));
	return err != -ENOENT;
}
EOF
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# shellcheck disable=SC2086 # $flags is a word list
if make -s -C "$root/lib" O="$libo" PREFIX="$tmp/prefix" install \
		>"$tmp/make.log" 2>&1 &&
   flags=$(pkg-config --cflags --libs libubfab 2>"$tmp/cc.log") &&
   cc -Wall -Werror -o "$tmp/t" "$tmp/t.c" $flags >"$tmp/cc.log" 2>&1; then
	run env LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/t"
	if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "-2 npu up " ]; then
		ok "pkg-config build links; ubfab_nl_open is -ENOENT here"
	else
		not_ok "pkg-config build links; ubfab_nl_open is -ENOENT here" \
			"exit $rc" "stdout: $(cat "$tmp/out")"
	fi
else
	not_ok "pkg-config build links; ubfab_nl_open is -ENOENT here" \
		"$(tail -n 5 "$tmp/make.log" "$tmp/cc.log" 2>/dev/null)"
fi

# -lubfab finds libubfab.a first in a directory that holds only it
mkdir -p "$tmp/static"
cp "$tmp/prefix/lib/libubfab.a" "$tmp/static/"
# shellcheck disable=SC2086 # $flags is a word list
if flags=$(pkg-config --cflags --static --libs libubfab 2>"$tmp/cc.log") &&
   cc -Wall -Werror -o "$tmp/ts" "$tmp/t.c" -L"$tmp/static" $flags \
		>"$tmp/cc.log" 2>&1 &&
   "$tmp/ts" >/dev/null && ! ldd "$tmp/ts" | grep -q libubfab; then
	ok "static libubfab.a links with pkg-config --static"
else
	not_ok "static libubfab.a links with pkg-config --static" \
		"$(tail -n 5 "$tmp/cc.log")"
fi

if make -s -C "$root/tools/ubctl" O="$tmp/tools" LIBUBFAB_DIR="$libo" \
		DESTDIR="$tmp/dest" PREFIX=/usr install \
		>"$tmp/make.log" 2>&1 && [ -x "$tmp/dest/usr/bin/ubctl" ]; then
	ok "ubctl make install DESTDIR PREFIX=/usr"
else
	not_ok "ubctl make install DESTDIR PREFIX=/usr" \
		"$(tail -n 5 "$tmp/make.log")"
fi

echo "TAP version 13"
echo "1..$n"
echo "${results#?}"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
[ "$fail" -eq 0 ]

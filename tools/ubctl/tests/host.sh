#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Host-side checks of ubctl and libubfab, for a machine where ubfab.ko is
# not loaded: the command line (help, usage errors, exit codes), the
# "module not loaded" path through the real library, ubctl's output in
# text and JSON against a stand-in libubfab with a made-up fabric, the
# JSON writer, the library's reply handling and queue API against fake
# kernels, and its install, exported symbols and pkg-config file. Prints
# KTAP; exits nonzero if a check failed.
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
   grep -q "ubctl plane" "$tmp/out" && grep -q "ubctl seg" "$tmp/out"; then
	ok "--help exits 0 and describes topo, entity, port, plane and seg"
else
	not_ok "--help exits 0 and describes topo, entity, port, plane and seg" \
		"exit $rc" "stderr: $(head -c 300 "$tmp/err")"
fi
expect_out "help is the same as --help" "OBJECTS AND COMMANDS" "$ubctl" help
expect_out "OBJECT help shows the object's syntax" \
	"ubctl port show [ENTITY] [plane N]" "$ubctl" port help
expect_out "-V prints the version" "ubctl " "$ubctl" -V
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

# Test helpers: the JSON writer test and the stand-in library

if ! make -s -C "$root/tools/ubctl" O="$tmp/tools" tests \
		>"$tmp/make.log" 2>&1; then
	not_ok "build the test helpers" "$(tail -n 5 "$tmp/make.log")"
fi
helpers=$tmp/tools/tests/ubctl
run "$helpers/json_test"
if [ "$rc" -eq 0 ]; then
	ok "JSON writer: layout and string escaping"
else
	not_ok "JSON writer: layout and string escaping" "$(cat "$tmp/out")"
fi

# ubctl against the stand-in library (small profile, npu5 plane 3 down)

fake() { LD_LIBRARY_PATH=$helpers/fake "$ubctl" "$@"; }

expect_out "topo: a line per node" \
	"node 1: npu16-npu31 (8 chips x 2 dies), cpu4-cpu7" fake topo
expect_out "topo: ports and how many are up" "280 (279 up)" fake topo
expect_out "topo: memory in human units" "64GiB HBM each, 2TiB in all" \
	fake topo
expect_out "topo show: an entity's place" \
	"npu5: eid 5, NPU die 1 of chip 2 in node 0" fake topo show npu5
expect_out "port show ENTITY plane N: one port" \
	"npu5 plane 3: state down" fake port show npu5 plane 3
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

if command -v jq >/dev/null; then
	json_ok() { jq -e "$1" >/dev/null 2>&1; }
	for args in "-j topo" "-p topo" "-j topo show npu3" "-j entity show" \
		    "-j port show" "-p port show cpu0" "-j plane show" \
		    "-j plane show 0" "-j seg show" "-p seg show npu0"; do
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
else
	skip "ubctl -j output is valid JSON" "jq not installed"
fi

# The library: install, exported symbols, pkg-config

libo=$tmp/lib
if make -s -C "$root/lib" O="$libo" DESTDIR="$tmp/dest" PREFIX=/usr \
		install >"$tmp/make.log" 2>&1; then
	missing=
	for f in lib/libubfab.so.1.2.0 lib/libubfab.so.1 lib/libubfab.so \
		 lib/libubfab.a lib/pkgconfig/libubfab.pc include/libubfab.h \
		 include/linux/ubfab.h; do
		[ -e "$tmp/dest/usr/$f" ] || missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		ok "make install DESTDIR PREFIX=/usr installs every file"
	else
		not_ok "make install DESTDIR PREFIX=/usr installs every file" \
			"missing:$missing"
	fi
else
	not_ok "make install DESTDIR PREFIX=/usr installs every file" \
		"$(tail -n 5 "$tmp/make.log")"
fi

run make -s -C "$root/lib" O="$libo" check
if [ "$rc" -eq 0 ]; then
	ok "libubfab against fake kernels (lib/tests: nl_test, queue_test)"
else
	not_ok "libubfab against fake kernels (lib/tests: nl_test, queue_test)" \
		"$(grep -v '^ok' "$tmp/out" | head -n 20)" \
		"$(head -c 300 "$tmp/err")"
fi

soname=$(readelf -d "$libo/libubfab.so.1.2.0" 2>/dev/null |
	 sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" = libubfab.so.1 ]; then
	ok "soname is libubfab.so.1"
else
	not_ok "soname is libubfab.so.1" "soname: $soname"
fi
# 13 functions at UBFAB_1.0, of which the 3 entity calls have a 1.1
# default version too, 16 new ones at UBFAB_1.1 and 12 at UBFAB_1.2
syms=$(nm -D --defined-only "$libo/libubfab.so.1.2.0" 2>/dev/null |
       awk '{ print $3 }')
others=$(echo "$syms" | grep -v -x -e 'UBFAB_1\.[012]' \
	 -e 'ubfab_[a-z_]*@@*UBFAB_1\.[012]')
count() { echo "$syms" | grep -c -x "ubfab_[a-z_]*$1"; }
entity=$(echo "$syms" | grep -c -x 'ubfab_entity_[a-z_]*@UBFAB_1\.0')
if [ -z "$others" ] && [ "$(count '@*@UBFAB_1\.0')" -eq 13 ] &&
   [ "$entity" -eq 3 ] && [ "$(count '@@UBFAB_1\.1')" -eq 19 ] &&
   [ "$(count '@@UBFAB_1\.2')" -eq 12 ]; then
	ok "exports the API at UBFAB_1.0, UBFAB_1.1 and UBFAB_1.2, nothing else"
else
	not_ok "exports the API at UBFAB_1.0, UBFAB_1.1 and UBFAB_1.2, nothing else" \
		"symbols: $(echo $syms)"
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Documentation/man/tests/host.sh - host-side checks of the man pages:
# they build (make -C Documentation/man), each renders without a warning
# of mandoc -Tlint (errors) or of man --warnings (groff); every command
# line and option that ubctl --help, each "ubctl OBJECT help" and ubbench
# --help print is in their page, and every option of ubrun --help; every function of lib/libubfab.map and
# lib/libubfab-ffi.map is named by a library page whose SYNOPSIS holds
# its declaration as lib/libubfab.h has it, and no page names another;
# every module parameter of kmod/ and every parameter of the fabric
# model's table is in ubfab(4), with the value and source
# Documentation/model.rst gives; make install puts them where man finds
# them, a function's name included. Prints KTAP; exits nonzero if a check
# failed.
#
# Usage: Documentation/man/tests/host.sh [UBCTL [UBBENCH [UBRUN]]]
#   defaults build/tools/ubctl, build/tools/bench/ubbench, which it
#   builds (make -C tools/bench; make check builds lib, ubctl and ubrun,
#   not ubbench), and build/tools/ubrun; libubfab is found through LD_LIBRARY_PATH (default
#   build/lib): --help needs no module.

set -u

root=$(cd "$(dirname "$0")/../../.." && pwd)
ubctl=$(realpath -m "${1:-$root/build/tools/ubctl}")
ubbench=$(realpath -m "${2:-$root/build/tools/bench/ubbench}")
ubrun=$(realpath -m "${3:-$root/build/tools/ubrun}")
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-$root/build/lib}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
man=$tmp/man

# shellcheck source=tools/common/ktap.sh
. "$root/tools/common/ktap.sh"

# text PAGE: the page rendered as plain text, all white space one space
text() {
	mandoc -Tascii "$man/$1" | col -bx | tr -s ' \t\n' '   '
}

# has PAGE STRING DESCRIPTION: the rendered page holds STRING (white space
# squeezed)
has() {
	local want

	want=$(tr -s ' \t\n' '   ' <<<"$2" | sed 's/ $//')
	if grep -qF -- "$want" "$tmp/$1.txt"; then
		ok "$3"
	else
		not_ok "$3" "not in $1: $want"
	fi
}

# has_options PROGRAM HELP PAGE: each option HELP lists, by its head
# ("-f, --format FORMAT" of "  -f, --format FORMAT  text ..."), is in PAGE
has_options() {
	local opt

	sed -nE 's/^  (-[[:alnum:]], --[a-z-]+( [A-Z]+)?).*/\1/p' "$2" \
		>"$tmp/options"
	[ -s "$tmp/options" ] || not_ok "$1 --help lists options"
	while IFS= read -r opt; do
		has "$3" "$opt" "$3 has option '$opt'"
	done <"$tmp/options"
}

# Build and lint

if [ $# -lt 2 ]; then
	make -s -C "$root/tools/bench" >"$tmp/make.log" 2>&1
	check $? "make ubbench" "$(tail -n 5 "$tmp/make.log")"
fi

if make -s -C "$root/Documentation/man" O="$man" >"$tmp/make.log" 2>&1; then
	ok "make man builds the pages"
else
	not_ok "make man builds the pages" "$(tail -n 5 "$tmp/make.log")"
fi
pages=()
for src in "$root"/Documentation/man/*.scd; do
	pages+=("$(basename "$src" .scd)")
done
for p in "${pages[@]}"; do
	lint=$(mandoc -Tlint -W error "$man/$p" 2>&1)
	warn=$(man --warnings -E UTF-8 -l -Tutf8 -Z "$man/$p" 2>&1 >/dev/null)
	if [ -s "$man/$p" ] && [ -z "$lint$warn" ]; then
		ok "$p renders without errors or warnings"
	else
		not_ok "$p renders without errors or warnings" "$lint" "$warn"
	fi
	text "$p" >"$tmp/$p.txt"
done

# ubctl(8): every command line of --help and of each OBJECT help (a line
# "  ubctl ...", with its continuation lines "   [...]"), every option

# usage_lines: the command lines in the help on stdin, one a line, white
# space squeezed
usage_lines() {
	awk 'function out() { if (l != "") { gsub(/ +/, " ", l); print l }
			      l = "" }
	     /^  ubctl / { out(); l = substr($0, 3); next }
	     /^ +\[/ && l != "" { l = l " " $0; next }
	     { out() }
	     END { out() }'
}

if "$ubctl" --help >"$tmp/help" 2>&1; then
	ok "ubctl --help exits 0"
else
	not_ok "ubctl --help exits 0" "$(head -c 300 "$tmp/help")"
fi
sed -n '/^OBJECTS AND COMMANDS/,/^ARGUMENTS/p' "$tmp/help" | usage_lines \
	>"$tmp/usage"
objects=$(sed -nE 's/^ *ubctl (-f [a-z]+ )?([a-z]+).*/\2/p' "$tmp/usage" |
	sort -u)
[ "$(wc -w <<<"$objects")" -ge 10 ]
check $? "ubctl --help lists the objects" "found: $objects"
while IFS= read -r line; do
	has ubctl.8 "$line" "ubctl.8 has '$line'"
done <"$tmp/usage"
for o in $objects; do
	"$ubctl" "$o" help >"$tmp/ohelp" 2>&1 || {
		not_ok "ubctl $o help exits 0" "$(head -c 300 "$tmp/ohelp")"
		continue
	}
	count=0
	while IFS= read -r line; do
		count=$((count + 1))
		# Those of --help are checked above.
		grep -qxF -- "$line" "$tmp/usage" ||
			has ubctl.8 "$line" "ubctl.8 has '$line' (ubctl $o help)"
	done < <(sed -n '/^Usage:/,/^$/p' "$tmp/ohelp" | usage_lines)
	[ "$count" -gt 0 ]
	check $? "ubctl $o help: its command lines are in ubctl.8" \
		"no command line in: $(head -c 300 "$tmp/ohelp")"
done
has_options ubctl "$tmp/help" ubctl.8

# ubbench(1): the command line of --help, each command, every option

if "$ubbench" --help >"$tmp/bhelp" 2>&1; then
	ok "ubbench --help exits 0"
else
	not_ok "ubbench --help exits 0" "$(head -c 300 "$tmp/bhelp")"
fi
synopsis=$(sed -n '1,/^$/p' "$tmp/bhelp" | sed 's/^Usage: //' |
	tr -s ' \n' '  ')
has ubbench.1 "$synopsis" "ubbench.1 has the command line of --help"
sed -n '1,/^$/p' "$tmp/bhelp" | sed 's/^Usage: ubbench//' |
	grep -oE '\b[a-z]+\b' | grep -vx options | sort -u >"$tmp/commands"
while read -r cmd; do
	# A command is a term of COMMANDS: "mem", "queue [...", "write, read:"
	if mandoc -Tascii "$man/ubbench.1" | col -bx |
	   sed -n '/^COMMANDS/,/^OPTIONS/p' |
	   grep -qE "^ +([a-z]+, )?$cmd( |:|,|$)"; then
		ok "ubbench.1 describes command '$cmd'"
	else
		not_ok "ubbench.1 describes command '$cmd'"
	fi
done <"$tmp/commands"
has_options ubbench "$tmp/bhelp" ubbench.1

# ubrun(1): every option of --help
if "$ubrun" --help >"$tmp/rhelp" 2>&1; then
	ok "ubrun --help exits 0"
else
	not_ok "ubrun --help exits 0" "$(head -c 300 "$tmp/rhelp")"
fi
has_options ubrun "$tmp/rhelp" ubrun.1

# The library: each exported function in the NAME line of one ubfab_*.3,
# with its declaration from lib/libubfab.h (or lib/ubfab_urma.h) in that page

named=$(for p in "${pages[@]}"; do
	case $p in ubfab_*.3) ;; *) continue ;; esac
	sed -n '/^# NAME/{n;n;s/ - .*//;s/, */\n/g;p;q}' \
		"$root/Documentation/man/$p.scd" | sed "s/\$/ $p/"
done)
exported=$(sed -nE 's/^\s+(ubfab_[a-z0-9_]+);$/\1/p' "$root/lib/libubfab.map" \
	"$root/lib/libubfab-ffi.map" | sort -u)
for f in $exported; do
	p=$(awk -v f="$f" '$1 == f { print $2 }' <<<"$named")
	if [ "$(wc -w <<<"$p")" -ne 1 ]; then
		not_ok "$f is named by one library page" "pages: ${p:-none}"
		continue
	fi
	# "int ubfab_nl_open(struct ubfab_nl **nlp)", from the header
	decl=$(perl -0ne 'if (/^(?:UBFAB_INLINE )?([a-z][\w ]*?[\s*]'"$f"'\([^)]*\))/m) {
		$_ = $1; s/\s+/ /g; print }' "$root/lib/libubfab.h" \
		"$root/lib/ubfab_urma.h")
	if [ -z "$decl" ]; then
		not_ok "$f is declared in lib/libubfab.h or lib/ubfab_urma.h"
		continue
	fi
	has "$p" "$decl" "$f: $p names it and has its declaration"
done
# The pages' own names (ubfab_nl, ...) are no functions; any other name
# must be exported.
stale=$(awk '{ print $1 }' <<<"$named" | grep -vxF -f <(echo "$exported") |
	grep -vxF -f <(printf '%s\n' "${pages[@]%.3}"))
[ -z "$stale" ]
check $? "library pages name only exported functions" "not exported: $stale"

# ubfab(4): every module parameter and every parameter of the model

params=$(grep -ohE 'module_param(_cb|_named)?\([a-z_]+' "$root"/kmod/*.c |
	sed 's/.*(//' | sort -u)
[ "$(wc -w <<<"$params")" -ge 10 ] || not_ok "kmod/ has module parameters" \
	"found: $params"
for p in $params; do
	has ubfab.4 "$p=" "ubfab.4 has module parameter $p"
done
model=$(grep -ohE 'UBFAB_PARAM_[A-Z]+\("[a-z0-9-]+"' "$root/kmod/model_param.c" |
	sed -E 's/.*"(.*)"/\1/')
[ "$(wc -w <<<"$model")" -ge 20 ] || not_ok "kmod/model_param.c has its table" \
	"found: $model"
table=$(sed -n '/^# FABRIC MODEL PARAMETERS/,/^# /p' \
	"$root/Documentation/man/ubfab.4.scd" |
	sed -nE 's/^([a-z][a-z0-9-]+-(ps|mbps|permille|hops|engines|paths)) .*/\1/p')
for p in $model; do
	grep -qxF "$p" <<<"$table"
	check $? "ubfab.4 has model parameter $p"
done
# cm384's value and the source of each as Documentation/model.rst gives them
# rows QUOTE: "name value source" of the table rows on stdin, their names
# between QUOTE (reStructuredText's ``)
rows() { sed -nE "s/^$1([a-z][a-z0-9-]+)$1 +([0-9]+) +([PDE])( .*|\$)/\\1 \\2 \\3/p"; }
[ "$(rows '``' <"$root/Documentation/model.rst" | wc -l)" -ge 20 ] ||
	not_ok "Documentation/model.rst has its table of parameters"
diff=$(diff <(rows '``' <"$root/Documentation/model.rst") \
	<(sed -n '/^# FABRIC MODEL PARAMETERS/,/^# /p' \
		"$root/Documentation/man/ubfab.4.scd" | rows ''))
check $? "ubfab.4's model table has the values and sources of model.rst" "$diff"
extra=$(grep -vxF -f <(echo "$model") <<<"$table")
[ -z "$extra" ]
check $? "ubfab.4 lists no model parameter the module lacks" "$extra"

# make install: where man finds them, each function's name too

if make -s -C "$root/Documentation/man" O="$man" DESTDIR="$tmp/dest" \
		PREFIX=/usr install >"$tmp/make.log" 2>&1 &&
   [ -f "$tmp/dest/usr/share/man/man8/ubctl.8" ] &&
   [ -f "$tmp/dest/usr/share/man/man1/ubbench.1" ] &&
   [ -f "$tmp/dest/usr/share/man/man4/ubfab.4" ] &&
   [ -f "$tmp/dest/usr/share/man/man3/libubfab.3" ]; then
	ok "make install DESTDIR PREFIX=/usr puts them in share/man/manN"
else
	not_ok "make install DESTDIR PREFIX=/usr puts them in share/man/manN" \
		"$(tail -n 5 "$tmp/make.log")"
fi
missing=
for f in $exported ubctl ubbench ubfab libubfab; do
	p=$(awk -v f="$f" '$1 == f { print $2 }' <<<"$named")
	p=${p:-$f}
	man -M "$tmp/dest/usr/share/man" -P cat "$f" 2>/dev/null | head -n 1 |
		grep -qE "^${p%.*}\([1348]\)" || missing+=" $f"
done
[ -z "$missing" ]
check $? "man finds every page and every function" "not found:$missing"

ktap_report

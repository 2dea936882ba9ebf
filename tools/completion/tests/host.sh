#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/completion/tests/host.sh - host-side checks of ubctl's bash
# completion (tools/completion/ubctl.bash): sourced in bash, with
# COMP_WORDS and COMP_CWORD set as bash sets them, _ubctl offers the
# objects and options ubctl --help lists, each object's commands of
# "ubctl OBJECT help", the entity names, nodes, planes and model
# parameters of the stand-in libubfab's fabric (tools/ubctl/tests/
# fake_ubfab.c, what ubctl -j reports of it), the keywords and values
# that may come next, nothing after an unknown object, and no names
# (silently) where ubctl cannot reach the module; make install puts it where
# bash-completion finds it. Prints KTAP; exits nonzero if a check failed.
#
# Usage: tools/completion/tests/host.sh [UBCTL]
#   UBCTL defaults to build/tools/ubctl; libubfab is found through
#   LD_LIBRARY_PATH (default build/lib).

set -u

root=$(cd "$(dirname "$0")/../../.." && pwd)
ubctl=$(realpath "${1:-$root/build/tools/ubctl}")
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-$root/build/lib}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tools/common/ktap.sh
. "$root/tools/common/ktap.sh"

# The stand-in library, and "ubctl" in PATH as completion calls it: the
# ubctl under test against it
if ! make -s -C "$root/tools/ubctl" O="$tmp/tools" \
		"$tmp/tools/tests/ubctl/fake/libubfab.so.1" >"$tmp/make.log" 2>&1; then
	not_ok "build the stand-in libubfab" "$(tail -n 5 "$tmp/make.log")"
fi
# and in $tmp/real against the real library, where no module answers
mkdir -p "$tmp/bin" "$tmp/real"
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' \
	"$tmp/tools/tests/ubctl/fake" "$ubctl" >"$tmp/bin/ubctl"
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' \
	"$LD_LIBRARY_PATH" "$ubctl" >"$tmp/real/ubctl"
chmod +x "$tmp/bin/ubctl" "$tmp/real/ubctl"
fake() { "$tmp/bin/ubctl" "$@"; }

# flat WORDS: WORDS on one line
flat() { tr -s ' \n' '  ' <<<"$1" | sed 's/ $//'; }

# complete WORD...: what _ubctl offers for the last WORD of the command
# line WORD..., sorted, one a line (PATH as given)
complete_words() {
	bash -c '. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"
		_ubctl && printf "%s\n" "${COMPREPLY[@]}"' \
		complete "$root/tools/completion/ubctl.bash" "$@" | sed '/^$/d' |
		sort
}

# expect DESCRIPTION WANTED WORD...: _ubctl offers exactly WANTED (words)
expect() {
	local desc=$1 want

	want=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort)
	shift 2
	got=$(PATH=$tmp/bin:$PATH complete_words "$@")
	if [ "$got" = "$want" ]; then
		ok "$desc"
	else
		not_ok "$desc" "line: $*" "want: $(flat "$want")" "got: $(flat "$got")"
	fi
}

# offers DESCRIPTION WANTED WORD...: _ubctl offers at least WANTED
offers() {
	local desc=$1 w missing=

	shift
	got=$(PATH=$tmp/bin:$PATH complete_words "${@:2}")
	for w in $1; do
		grep -qxF -- "$w" <<<"$got" || missing+=" $w"
	done
	if [ -z "$missing" ]; then
		ok "$desc"
	else
		not_ok "$desc" "line: ${*:2}" "missing:$missing" "got: $(flat "$got")"
	fi
}

if bash -c '. "$1"; complete -p ubctl' complete \
		"$root/tools/completion/ubctl.bash" 2>&1 | grep -q -- '-F _ubctl ubctl$'; then
	ok "sourcing it registers _ubctl for ubctl"
else
	not_ok "sourcing it registers _ubctl for ubctl"
fi

# Objects, commands and options: those of ubctl's help

"$ubctl" --help >"$tmp/help"
objects=$(sed -n '/^OBJECTS AND COMMANDS/,/^ARGUMENTS/p' "$tmp/help" |
	sed -nE 's/^  ubctl (-f [a-z]+ )?([a-z]+).*/\2/p' | sort -u)
expect "the objects of ubctl --help, and help" "$objects help" ubctl ""
expect "an object's prefix: the objects it begins" "plane port" ubctl p
for o in $objects; do
	# The first word after OBJECT in each command line of its help
	cmds=$("$ubctl" "$o" help | sed -n '/^Usage:/,/^$/p' |
		sed -nE "s/^  ubctl (-f [a-z]+ )?$o \\[?([a-z]+).*/\\2/p" | sort -u)
	offers "ubctl $o: its commands of ubctl $o help${cmds:+ (}$(flat "$cmds")${cmds:+)}, and help" \
		"$cmds help" ubctl "$o" ""
done
options=$(sed -nE 's/^  (-[[:alnum:]]), (--[a-z-]+).*/\1 \2/p' "$tmp/help")
expect "options before the object: those of ubctl --help" "$options" ubctl -
expect "after -f: the formats" "text json dot" ubctl -f ""
expect "after -j, the objects again" "$objects help" ubctl -j ""

# Names from the running module (the stand-in's fabric)

names=$(fake -j entity show | grep -o '"name":"[^"]*"' | cut -d '"' -f 4)
[ "$(wc -w <<<"$names")" -eq 40 ] || not_ok "the stand-in has 40 entities" \
	"names: $(flat "$names")"
expect "port show: the 40 entities of the fabric, eid and plane" \
	"$names eid plane" \
	ubctl port show ""
expect "entity reset cp: the CPUs" "cpu0 cpu1 cpu2 cpu3 cpu4 cpu5 cpu6 cpu7" \
	ubctl entity reset cp
expect "entity show eid: its 40 EIDs" "$(seq 0 39)" ubctl entity show eid ""
expect "after an entity: plane" "plane" ubctl port show npu5 ""
expect "after plane: the 7 planes" "0 1 2 3 4 5 6" \
	ubctl port show npu5 plane ""
expect "port set: the keywords not given yet" "state bw delay errors" \
	ubctl port set npu5 plane 3 ""
expect "after state: up and down" "up down" ubctl port set npu5 plane 3 state ""
expect "a number's place: nothing" "" ubctl port set npu5 plane 3 bw ""
expect "prefixes (pl sh): the planes" "0 1 2 3 4 5 6" ubctl pl sh ""
expect "topo show node: the 2 nodes" "0 1" ubctl -f dot topo show node ""
expect "stats link: its keywords" "plane loaded" ubctl stats link ""
expect "stats plane: the planes" "0 1 2 3 4 5 6" ubctl stats plane ""
expect "top plane 1: the other keywords" "interval count lines" \
	ubctl top plane 1 ""
params=$(fake -j model show | grep -o '"name":"[^"]*"' | cut -d '"' -f 4)
expect "model set: profile and the model's parameters" "profile $params" \
	ubctl model set ""
expect "model set NAME: its value, nothing" "" ubctl model set hop-ps ""
expect "model set NAME VALUE: the next parameter" "$params profile" \
	ubctl model set hop-ps 1 ""
expect "model set profile: cm384" "cm384" ubctl model set profile ""
expect "an unknown object: nothing" "" ubctl bogus ""
expect "after help: nothing" "" ubctl help ""
expect "after OBJECT help: nothing" "" ubctl port help ""
expect "trace record -- COMMAND: commands" "ubctl" ubctl trace record -- ubc

# Without the module (the real library): no names, no error

got=$(PATH=$tmp/real:$PATH complete_words ubctl port show "" 2>&1)
if [ "$(flat "$got")" = "eid plane" ]; then
	ok "without the module: eid and plane, silently"
else
	not_ok "without the module: eid and plane, silently" "got: $(flat "$got")"
fi

if make -s -C "$root/tools/ubctl" O="$tmp/tools" DESTDIR="$tmp/dest" \
		PREFIX=/usr install >"$tmp/make.log" 2>&1 &&
   cmp -s "$root/tools/completion/ubctl.bash" \
		"$tmp/dest/usr/share/bash-completion/completions/ubctl"; then
	ok "make install puts it in PREFIX/share/bash-completion/completions/ubctl"
else
	not_ok "make install puts it in PREFIX/share/bash-completion/completions/ubctl" \
		"$(tail -n 5 "$tmp/make.log")"
fi

ktap_report

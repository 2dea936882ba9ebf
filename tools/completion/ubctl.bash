# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tools/completion/ubctl.bash - bash completion of ubctl(8): its options,
# objects, commands and their keywords, as ubctl --help gives them, and the
# names the running module has: entities, nodes and planes (ubctl -j
# topo), the fabric model's parameters (ubctl -j model show). Objects and
# commands typed as prefixes ("pl sh") are resolved as ubctl resolves
# them. Installed as share/bash-completion/completions/ubctl;
# tools/completion/tests/host.sh tests it.

# The commands of each object: the first word after it. Those of stats
# and top are keywords ("stats plane", "top interval 2").
declare -gA _ubctl_commands=(
	[topo]="show" [entity]="show reset" [port]="show set"
	[plane]="show set" [seg]="show" [queue]="show" [jetty]="show"
	[stats]="show plane port link" [model]="show set" [monitor]=""
	[top]="plane interval count lines" [trace]="record dump"
)

# What may follow "OBJECT COMMAND": keywords, ENTITY (an entity name or
# "eid"), PLANE (a plane number), PARAM (a parameter of the model), OPT
# (the options of trace).
declare -gA _ubctl_args=(
	[topo show]="ENTITY node plane" [entity show]="ENTITY"
	[entity reset]="ENTITY" [port show]="ENTITY plane"
	[port set]="ENTITY plane state bw delay errors" [plane show]="PLANE"
	[plane set]="PLANE state" [seg show]="ENTITY" [queue show]="ENTITY"
	[jetty show]="ENTITY"
	[stats show]="plane port link" [stats plane]="PLANE"
	[stats port]="ENTITY plane" [stats link]="plane loaded"
	[model set]="profile PARAM" [top plane]="plane interval count lines"
	[top interval]="plane interval count lines"
	[top count]="plane interval count lines"
	[top lines]="plane interval count lines"
	[trace record]="-o -b --" [trace dump]="-i -o"
)

# _ubctl_match WORD CANDIDATES...: the one candidate WORD is a prefix of
# (WORD itself if it is one), or nothing
_ubctl_match() {
	local w=$1 c found=

	shift
	for c in "$@"; do
		[ "$c" = "$w" ] && { echo "$c"; return; }
		[ "${c#"$w"}" != "$c" ] && found+="$c "
	done
	[ "$(wc -w <<<"$found")" -eq 1 ] && echo "${found% }"
}

# _ubctl_topo FIELD: from ubctl -j topo, the entity names ("names"), or
# the numbers 0..n-1 of the nodes, planes or entities (EIDs)
_ubctl_topo() {
	local json n

	json=$("${_ubctl_cmd:-ubctl}" -j topo 2>/dev/null) || return 0
	if [ "$1" = names ]; then
		grep -o '"entities":\[[^]]*\]' <<<"$json" | sed 's/^"entities"://' |
			grep -o '"[^"]*"' | tr -d '"'
		return
	fi
	n=$(grep -o "\"$1\":[0-9]*" <<<"$json" | head -n 1 | sed 's/.*://')
	[ -n "$n" ] && [ "$n" -gt 0 ] && seq 0 $((n - 1))
}

_ubctl() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i=1 w obj='' cmd='' words=() cands='' a
	local objects="${!_ubctl_commands[*]} help"

	_ubctl_cmd=${COMP_WORDS[0]}
	# Options before the object, then the object, its command and the
	# words after them.
	for ((; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ -z "$obj" ]; then
			case $w in
			-f | --format) i=$((i + 1)) ;;
			-*) ;;
			*) # shellcheck disable=SC2086 # a list of words
			   obj=$(_ubctl_match "$w" $objects)
			   [ -n "$obj" ] || return 0 ;;
			esac
		elif [ -z "$cmd" ]; then
			# shellcheck disable=SC2086 # a list of words
			cmd=$(_ubctl_match "$w" ${_ubctl_commands[$obj]} help list)
			[ "$cmd" = list ] && cmd=show
			[ -n "$cmd" ] || return 0
		else
			words+=("$w")
		fi
	done

	# The value of the keyword before: one after the command, or the
	# command itself where it is a keyword (stats plane, top interval)
	if [ -z "$obj" ]; then
		case $prev in
		-f | --format) cands="text json dot" ;;
		esac
	elif [ "${#words[@]}" -gt 0 ] || [ "$obj" = stats ] ||
	     [ "$obj" = top ]; then
		[ -n "$cmd" ] || prev=
	else
		prev=
	fi
	case $prev in
	state) cands="up down" ;;
	plane) cands=$(_ubctl_topo planes) ;;
	node) cands=$(_ubctl_topo nodes) ;;
	eid) cands=$(_ubctl_topo entities) ;;
	profile) [ "$cmd" = set ] && cands="cm384" ;;
	-o | -i)
		if [ "$obj" = trace ]; then
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return 0
		fi ;;
	bw | delay | errors | interval | count | lines | -b) return 0 ;;
	esac
	if [ -n "$cands" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$cands" -- "$cur")
		return 0
	fi
	# A model parameter's value
	if [ "$obj $cmd" = "model set" ] && [ "${#words[@]}" -gt 0 ] &&
	   [ "$prev" != profile ] && [ "$((${#words[@]} % 2))" -eq 1 ]; then
		return 0
	fi

	if [ "$obj" = help ]; then
		return 0
	elif [ -z "$obj" ]; then
		if [[ $cur == -* ]]; then
			cands="-j --json -f --format -p --pretty -V --version -h --help"
		else
			cands=$objects
		fi
	elif [ -z "$cmd" ]; then
		cands="${_ubctl_commands[$obj]} help"
	elif [ "$obj $cmd" = "trace record" ] &&
	     printf '%s\n' "${words[@]}" | grep -qx -- '--'; then
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
		return 0
	else
		for a in ${_ubctl_args[$obj $cmd]-}; do
			case $a in
			# An entity or a plane number comes first.
			ENTITY) [ "${#words[@]}" -gt 0 ] ||
				cands+=" $(_ubctl_topo names) eid" ;;
			PLANE) [ "${#words[@]}" -gt 0 ] ||
				cands+=" $(_ubctl_topo planes)" ;;
			PARAM) cands+=" $("$_ubctl_cmd" -j model show 2>/dev/null |
				grep -o '"name":"[^"]*"' | cut -d '"' -f 4)" ;;
			*) printf '%s\n' "$cmd" "${words[@]}" |
				grep -qxF -- "$a" || cands+=" $a" ;;
			esac
		done
	fi
	mapfile -t COMPREPLY < <(compgen -W "$cands" -- "$cur")
}

complete -F _ubctl ubctl

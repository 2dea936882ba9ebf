#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/lint.sh - `make lint`: checkpatch --strict on the module and the uAPI
# header (kernel version tests allowed in kmod/compat.h only), and a fresh
# W=1 build of the module under sparse (C=1) for the 6.1 and the 6.12
# kernel, in build/lint/<release>/kmod; a parse of every
# Documentation/*.rst with docutils; pyflakes on the Python binding
# (python/); and shellcheck on every shell script git tracks. Any report
# fails.

set -euo pipefail

usage() {
	cat <<EOF
Usage: tools/lint.sh [-h]

Runs checkpatch.pl --strict on kmod/*.[ch] and include/uapi/linux/ubfab.h
builds the module with W=1 and sparse for both kernel series, parses
Documentation/*.rst with docutils, runs pyflakes on python/ and
shellcheck -x on every tracked shell script (*.sh, or a bash/sh #! line).
Prints what they report; exits 1 if anything was reported. Run \`make deps\` first (once).
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
[ -r "$UBFAB_CACHE/env.sh" ] || { echo "lint: no $UBFAB_CACHE/env.sh: run \`make deps\`" >&2; exit 2; }
# The Debian packages it needs besides those of the build.
missing=
command -v sparse >/dev/null || missing+=" sparse"
command -v shellcheck >/dev/null || missing+=" shellcheck"
/usr/bin/python3 -c 'import docutils' 2>/dev/null ||
	missing+=" python3-docutils"
/usr/bin/python3 -c 'import pyflakes' 2>/dev/null ||
	missing+=" python3-pyflakes"
if [ -n "$missing" ]; then
	echo "lint: install the Debian packages$missing (or run \`make deps\`)" >&2
	exit 2
fi
# shellcheck source=/dev/null
. "$UBFAB_CACHE/env.sh"

cd "$ROOT"
status=0

# Debian's headers: the -common tree holds the kernel's include/, from which
# checkpatch learns the CamelCase names that are not ours.
kinc=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$UBFAB_KDIR_6_12/Makefile")

# Runs checkpatch --strict on files; extra arguments come first. It runs
# outside the git tree, where it would leave a cache file behind.
checkpatch() {
	(cd "$ROOT/build/lint" && perl "$UBFAB_CHECKPATCH" --strict --no-tree \
		--root="${kinc:-$UBFAB_KDIR_6_12}" --quiet --no-summary \
		--show-types "$@" 2>&1)
}

# kmod/compat.h is the one place for kernel version tests, which checkpatch
# always flags.
mkdir -p build/lint
files=("$ROOT/include/uapi/linux/ubfab.h")
for f in "$ROOT"/kmod/*.[ch]; do
	[ "$f" = "$ROOT/kmod/compat.h" ] || files+=("$f")
done
if out=$(checkpatch -f "${files[@]}") &&
   out=$(checkpatch --ignore LINUX_VERSION_CODE -f "$ROOT/kmod/compat.h"); then
	echo "lint: checkpatch --strict: $((${#files[@]} + 1)) files clean"
else
	echo "lint: checkpatch --strict:"
	printf '%s\n' "$out"
	status=1
fi

for series in 6.1 6.12; do
	var=UBFAB_KVER_${series//./_}
	kver=${!var}
	dir=$ROOT/build/lint/$kver/kmod
	# A fresh build: every file is compiled and checked each time.
	rm -rf "$dir"
	if ! out=$("$MAKE" -s --no-print-directory modules KVER="$series" \
			MODDIR="$dir" C=1 2>&1); then
		echo "lint: the W=1 build for $kver failed:"
		printf '%s\n' "$out"
		status=1
		continue
	fi
	if reports=$(grep -E '(warning|error):' <<<"$out"); then
		echo "lint: W=1 and sparse on $kver:"
		printf '%s\n' "$reports"
		status=1
	else
		echo "lint: W=1 and sparse on $kver: clean"
	fi
done
# reStructuredText: each document parses without a warning (Debian's
# python3-docutils, not whatever python3 comes first in PATH).
if reports=$(/usr/bin/python3 - Documentation/*.rst 2>&1 <<'EOF'
import sys
import docutils.core

bad = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        docutils.core.publish_string(
            text, source_path=path, writer_name="null",
            settings_overrides={"report_level": 2, "halt_level": 2})
    except Exception as e:
        print(e)
        bad = 1
sys.exit(bad)
EOF
); then
	echo "lint: Documentation/*.rst: clean"
else
	echo "lint: Documentation/*.rst:"
	printf '%s\n' "$reports"
	status=1
fi
# The Python binding, its tests and example: unused or undefined names.
if reports=$(/usr/bin/python3 -m pyflakes python 2>&1); then
	echo "lint: pyflakes python/: clean"
else
	echo "lint: pyflakes python/:"
	printf '%s\n' "$reports"
	status=1
fi
# Shell: every script git tracks, by name or by its #! line.
scripts=()
while IFS= read -r f; do
	case $f in
	*.sh) scripts+=("$f") ;;
	*) [ -f "$f" ] && head -n1 "$f" | grep -qE '^#!.*/(env )?(ba)?sh' &&
		scripts+=("$f") ;;
	esac
done < <(git ls-files)
if reports=$(shellcheck -x "${scripts[@]}" 2>&1); then
	echo "lint: shellcheck: ${#scripts[@]} scripts clean"
else
	echo "lint: shellcheck:"
	printf '%s\n' "$reports"
	status=1
fi
exit "$status"

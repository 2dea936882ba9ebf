# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/files.awk - cuts the files a guest sends over the console out of
# what it prints: the lines between a line "MARK NAME" and a line "MARK"
# go to DIR/NAME.json, every other line passes through as it comes. The
# guests' halves: tools/bench/guest.sh (MARK --ubbench-json--) and
# tools/vm/demo.sh (--demo-json--).
#
# Usage: awk -v mark=MARK -v dir=DIR -f tools/vm/files.awk

$1 == mark {
	if (out)
		close(out)
	out = NF > 1 ? dir "/" $2 ".json" : ""
	next
}
out { print > out; next }
{ print; fflush() }

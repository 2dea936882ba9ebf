#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/demo.sh - guest side of `make demo` (busybox sh): shows the
# fabric ubfab.ko set up (ubctl topo, its first nodes) and the fabric at
# work: /x/demo_scenario's table of modeled latency, bandwidth, incast
# and plane-down figures and the bytes per plane, and /x/ubbench's
# latency of single WRITEs. It sends tools/vm/demo_run.sh the inputs of
# the charts: the scenario's timeline (ubctl trace record), the links'
# counters after it (ubctl -j stats link) and ubbench's JSON. Then what
# loading the
# module cost, from what tools/vm/init recorded around insmod in
# /run/ubvm/: insmod's wall time and the kernel memory it took (slab,
# vmalloc, per-CPU, module image, the slab caches that grew most). Then
# the kernel memory the fabric model holds (ubctl model show's memory
# lines), idle and under the load of /x/demo_load (a queue on each of 8
# NPU dies, a page of flag words stamped on each), and whether it stays
# under 16 MiB: exits 1 if not or if the scenario fails.
#
# Usage (in the guest, module loaded by ubvm -p ...): sh /x/demo.sh

set -eu

run=/run/ubvm
if [ ! -e "$run/insmod.us" ] || [ ! -d /sys/module/ubfab ]; then
	echo "demo: ubfab.ko was not loaded by ubvm (ubvm -p PARAMS)" >&2
	exit 1
fi

# The summary and the first two nodes; the other nodes are alike.
echo "=== ubctl topo (nodes 0 and 1 of them)"
ubctl topo | awk '/^  node / && ++n > 2 { next } { print }
	END { if (n > 2) printf "  ... %d nodes in all\n", n }'
echo

# send NAME FILE: FILE to the host, between a line "--demo-json-- NAME"
# and a line "--demo-json--" (demo_run.sh keeps it as NAME.json).
send() {
	echo "--demo-json-- $1"
	cat "$2"
	echo "--demo-json--"
}

echo "=== The fabric at work: /x/demo_scenario"
ubctl trace record -o /tmp/trace.json -- /x/demo_scenario
send trace /tmp/trace.json
ubctl -j stats link >/tmp/links.json
send stats-link /tmp/links.json
echo

echo "=== Latency of single WRITEs on npu1's queues: /x/ubbench queue lat"
/x/ubbench -n 3 --json /tmp/lat.json queue lat >/tmp/lat.txt ||
	{ cat /tmp/lat.txt; exit 1; }
sed -n '/^latency:/,$p' /tmp/lat.txt
send lat /tmp/lat.json
echo

echo "=== What loading ubfab.ko cost (kernel $(uname -r))"
awk -v us="$(cat "$run/insmod.us")" \
    -v size="$(awk '$1 == "ubfab" { print $2 }' /proc/modules)" '
	function mib(kb) { return sprintf("%8.2f MiB", kb / 1024) }
	FILENAME ~ /meminfo/ { sub(":", "", $1) }
	FILENAME ~ /meminfo.before/ { before[$1] = $2 }
	FILENAME ~ /meminfo.after/ { after[$1] = $2 }
	# Slab cache sizes in kB: slabs x pages per slab.
	FILENAME ~ /slabinfo/ && $13 == "slabdata" {
		kb = $15 * $6 * 4
		if (FILENAME ~ /before/)
			slab[$1] -= kb
		else
			slab[$1] += kb
	}
	FILENAME ~ /vmallocinfo.after/ && / \[ubfab\]/ { vm += $2 / 1024 }
	END {
		printf "insmod wall time        %8.1f ms\n", us / 1000
		print "kernel memory, after minus before insmod:"
		n = split("Slab VmallocUsed Percpu", keys, " ")
		for (i = 1; i <= n; i++)
			printf "  %-21s %s\n", keys[i],
				mib(after[keys[i]] - before[keys[i]])
		printf "  %-21s %s\n", "vmalloc by ubfab", mib(vm)
		printf "  %-21s %s\n", "module image (lsmod)", mib(size / 1024)
		print "slab caches that grew most:"
		for (shown = 0; shown < 5; shown++) {
			top = ""
			for (c in slab)
				if (top == "" || slab[c] > slab[top])
					top = c
			if (top == "" || slab[top] < 64)
				break
			printf "  %-21s %s\n", top, mib(slab[top])
			delete slab[top]
		}
	}' "$run/meminfo.before" "$run/meminfo.after" \
	"$run/slabinfo.before" "$run/slabinfo.after" "$run/vmallocinfo.after"
echo "(the VM runs without slub_debug here, so these are the real sizes)"
echo

# The model's memory: the lines of ubctl model show; the verdict on the
# total under load.
limit=$((16 * 1024 * 1024))
echo "=== The fabric model's kernel memory (ubctl model show)"
echo "idle:"
ubctl model show | grep '^memory'
echo "under load: a queue on each of 8 NPU dies, 512 flag words stamped on each:"
/x/demo_load ubctl model show | grep '^memory' | tee "$run/model.mem"
awk -v limit="$limit" '$2 == "total:" { total = $3 }
	$2 == "links:" { links = $5 }
	$2 == "queues:" { queues = $5 }
	$2 == "stamps:" { stamps = $5 }
	END {
		printf "model memory: %.1f KiB (links %.1f, queues %.1f, " \
			"stamps %.1f KiB): ", total / 1024, links / 1024,
			queues / 1024, stamps / 1024
		if (total > 0 && total < limit) {
			print "under 16 MiB, as required"
			exit 0
		}
		print "NOT under 16 MiB"
		exit 1
	}' "$run/model.mem"

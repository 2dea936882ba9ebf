# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bench/compare.jq - the comparison tools/bench/compare.sh prints and
# keeps. Input (jq -n): $base_runs and $new_runs, the ubbench results
# (JSON) of the base module's runs and of the new module's, one per round;
# $base and $new, the commits; $kernel, $rounds; $tolerance, how far a rate
# may be from base's (0.05: 5%); $args, the ubbench arguments.
# Output: one object with all of these and "figures".
#
# A figure is one with a target (copy window / anonymous from 64 KiB, the
# queue targets) or a rate of 64-byte messages in operations per second:
# the WRITE and READ bandwidth of 64 B blocks (GB/s over 64 B) and the
# message rates of 64-byte WRITEs (doorbell, polling; io_uring NOP as the
# reference that no module changes) and of 64-byte SENDs into posted
# receives (queue send; not where base's module skipped it). Each has each round's median
# (ubbench's median of its repetitions), the median of those for base and
# new, new / base, and: for a target, whether each median meets it and in
# how many rounds each module met it; for a rate, whether new is within
# the tolerance of base.

def median:
	sort | length as $n
	| if $n % 2 == 1 then .[($n - 1) / 2]
	  else (.[$n / 2 - 1] + .[$n / 2]) / 2 end;

def meets($op; $target): if $op == ">" then . > $target else . >= $target end;

def size:
	if . % 1048576 == 0 then "\(. / 1048576)MiB"
	elif . % 1024 == 0 then "\(. / 1024)KiB"
	else "\(.)B" end;

# The figures of one ubbench run that are compared, each {name, value} and,
# for a target, op and target.
def figures:
	(.copy // empty | .target as $t | .blocks[] | select(.met != null)
	 | {name: "copy_\(.bytes | size)_vs_anonymous", value: .ratio.median,
	    op: ">=", target: $t.ratio}),
	(.queue.targets[]? | {name, value, op, target}),
	(("write", "read") as $dir | .queue[$dir]? // empty | .blocks[]
	 | select(.bytes == 64)
	 | {name: "bw_\($dir)_64B", value: (.queue.median * 1e9 / .bytes)}),
	(("doorbell", "polling", "uring_nop") as $mode
	 | .queue.rate.batches[]?
	 | {name: "rate_\($mode)_batch\(.batch)", value: .[$mode].median}),
	(.queue.send.rate.batches[]? | .batch as $b | .sizes[]
	 | select(.bytes == 64)
	 | {name: "send_rate_64B_batch\($b)", value: .rate.median});

def compare:
	.name as $name
	| .base = [$base_runs[] | figures | select(.name == $name) | .value]
	| .new = [$new_runs[] | figures | select(.name == $name) | .value]
	| del(.value)
	| .base_median = (.base | median)
	| .new_median = (.new | median)
	| .ratio = .new_median / .base_median
	| if .target then
		.op as $op | .target as $t
		| .base_met = (.base_median | meets($op; $t))
		| .new_met = (.new_median | meets($op; $t))
		| .base_rounds_met = ([.base[] | select(meets($op; $t))] | length)
		| .new_rounds_met = ([.new[] | select(meets($op; $t))] | length)
	  elif (.name | startswith("rate_uring_nop")) then
		.reference = true
	  else
		.within = (.ratio >= 1 - $tolerance and .ratio <= 1 + $tolerance)
	  end;

{
	tool: "compare.sh",
	date: (now | todate),
	kernel: $kernel,
	base: $base,
	new: $new,
	rounds: $rounds,
	ubbench_args: $args,
	tolerance: $tolerance,
	figures: [$base_runs[0] | figures | compare],
	runs: {base: $base_runs, new: $new_runs}
}

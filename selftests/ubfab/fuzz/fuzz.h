/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ubfab fuzzer, as its entry points (fuzz_test.c) see it: one run with
 * a seed, a number of workers and a budget. Documentation/fuzzing.rst
 * describes what it does; the engine and the op families are described at
 * the top of family.h.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/**
 * struct fuzz_config - one run
 * @seed: the run's seed; worker K draws from the stream (seed, K)
 * @workers: worker processes
 * @first_worker: index of the first worker (the others follow), so that
 *	"--worker K --workers 1" replays worker K of a larger run alone
 * @ops: operations in all, shared out among the workers; 0: no limit
 * @seconds: wall-clock limit; 0: none (one of @ops and @seconds is set)
 * @params: module parameters the run loads ubfab.ko with
 * @trace: print every operation before it runs (to @out)
 * @out: where the run reports; lines are written whole
 */
struct fuzz_config {
	uint64_t seed;
	unsigned int workers;
	unsigned int first_worker;
	uint64_t ops;
	unsigned int seconds;
	const char *params;
	bool trace;
	FILE *out;
};

/*
 * Runs the fuzzer: (re)loads the module with cfg->params, forks the
 * workers, waits for them and checks that the module unloads and loads
 * again. Returns 0 when every invariant held, 1 on a violation (already
 * reported with seed, worker, operation index and operation), or -errno
 * when the run could not be set up.
 */
int fuzz_run(const struct fuzz_config *cfg);

#endif

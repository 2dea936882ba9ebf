/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzer's reporting: lines to the run's output, each operation's
 * outcome checked against the set its documentation allows and counted,
 * violations with the seed, worker and operation and the command that
 * replays them, the trace, and the summary at the end of a run.
 */
#ifndef FUZZ_REPORT_H
#define FUZZ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fuzz_config;
struct fuzz_stats;
struct op;
struct worker;

/* In an errno set (0-terminated): success is allowed too. */
#define FUZZ_OK		(-1)
/* Counted like an errno: an access to a mapping got SIGBUS. */
#define FUZZ_SIGBUS	134
#define FUZZ_OUTCOMES	135

/* Fills a 0-terminated errno set. */
#define SET(set, ...) set_fill(set, (const int[]){ __VA_ARGS__, 0 })

static inline void set_fill(int *set, const int *from)
{
	while ((*set++ = *from++))
		;
}

/* The name of an errno (or FUZZ_SIGBUS); "0" for none. */
const char *fuzz_errname(int err);
/* One line to the run's output, written with one call. */
void fuzz_say(const struct fuzz_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* An operation as the trace and the reports show it. */
void fuzz_describe(const struct op *op, char *buf, size_t len);

/* Records a violation of the running operation; always returns false. */
bool fuzz_fail(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Counts an outcome: 0 for success, else the errno (or FUZZ_SIGBUS). */
void fuzz_count(struct worker *w, int err);
/* Counts an operation that had nothing to act on. */
void fuzz_skip(struct worker *w);
/*
 * Counts entry i of the tally of the running operation's family (struct
 * fuzz_family's @tally), e.g. a queue's completions by status.
 */
void fuzz_tally(struct worker *w, unsigned int i);
/*
 * Checks and counts a call's outcome (ret < 0: failed with err): success
 * when want is 0, else that errno.
 */
bool fuzz_expect(struct worker *w, const char *call, long ret, int err,
		 int want);
/* The same against a set of errnos, with FUZZ_OK if success may be. */
bool fuzz_expect_set(struct worker *w, const char *call, long ret, int err,
		     const int *set);

/* With --trace: the operation a worker is about to run. */
void fuzz_trace_op(const struct worker *w);
/* After a violation: the command that replays the worker. */
void fuzz_report_replay(const struct worker *w);
/*
 * At the end of a run: one line per operation, how often it ran and with
 * what outcome, and one per family tally; the workers' stats summed.
 */
void fuzz_report_summary(const struct fuzz_config *cfg,
			 const struct fuzz_stats *stats, double seconds);

#endif

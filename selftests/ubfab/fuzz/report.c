// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's reporting (report.h): every line a run writes, the checks
 * of each call's outcome and the counters they feed, violations and how
 * to replay them, the trace, and the summary.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "family.h"

const char *fuzz_errname(int err)
{
	const char *name = err ? strerrorname_np(err) : "0";

	if (err == FUZZ_SIGBUS)
		return "SIGBUS";
	return name ? name : "E?";
}

void fuzz_say(const struct fuzz_config *cfg, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	fflush(cfg->out);
	if (write(fileno(cfg->out), line, n) < 0)
		return;
}

void fuzz_describe(const struct op *op, char *buf, size_t len)
{
	const struct fuzz_op_type *t = fuzz_op_type(op->kind);
	int n = snprintf(buf, len, "%s slot %u", t->name, op->slot);
	unsigned int i;

	if (n < 0 || (size_t)n >= len)
		return;
	buf += n;
	len -= n;
	if (t->describe) {
		t->describe(op, buf, len);
		return;
	}
	n = snprintf(buf, len, " slot2 %u a", op->slot2);
	for (i = 0; i < ARRAY_SIZE(op->a) && n > 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - n, " %#llx",
			      (unsigned long long)op->a[i]);
}

bool fuzz_fail(struct worker *w, const char *fmt, ...)
{
	char what[1024], desc[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fuzz_describe(&w->op, desc, sizeof(desc));
	fuzz_say(w->cfg, "# FAIL seed %llu %s op %llu: %s",
		 (unsigned long long)w->cfg->seed, w->label,
		 (unsigned long long)w->op_index, what);
	fuzz_say(w->cfg, "#   op: %s", desc);
	w->failed = true;
	return false;
}

void fuzz_count(struct worker *w, int err)
{
	unsigned int e = err > 0 && err < FUZZ_OUTCOMES ? err : 0;

	__atomic_fetch_add(&w->stats->errs[w->op.kind][e], 1,
			   __ATOMIC_RELAXED);
	if (w->cfg->trace)
		fuzz_say(w->cfg, "# %s op %llu: -> %s", w->label,
			 (unsigned long long)w->op_index,
			 e ? fuzz_errname(e) : "ok");
}

void fuzz_skip(struct worker *w)
{
	__atomic_fetch_add(&w->stats->skipped[w->op.kind], 1,
			   __ATOMIC_RELAXED);
	if (w->cfg->trace)
		fuzz_say(w->cfg, "# %s op %llu: -> skipped", w->label,
			 (unsigned long long)w->op_index);
}

void fuzz_tally(struct worker *w, unsigned int i)
{
	__atomic_fetch_add(&w->stats->tally[fuzz_op_family(w->op.kind)][i], 1,
			   __ATOMIC_RELAXED);
}

bool fuzz_expect(struct worker *w, const char *call, long ret, int err,
		 int want)
{
	fuzz_count(w, ret < 0 ? err : 0);
	if (!want && ret < 0)
		return fuzz_fail(w, "%s failed with %s, expected success",
				 call, fuzz_errname(err));
	if (want && ret >= 0)
		return fuzz_fail(w, "%s returned %ld, expected %s", call, ret,
				 fuzz_errname(want));
	if (want && err != want)
		return fuzz_fail(w, "%s failed with %s, expected %s", call,
				 fuzz_errname(err), fuzz_errname(want));
	return true;
}

bool fuzz_expect_set(struct worker *w, const char *call, long ret, int err,
		     const int *set)
{
	const int *a;

	fuzz_count(w, ret < 0 ? err : 0);
	for (a = set; *a; a++) {
		if (ret < 0 ? *a == err : *a == FUZZ_OK)
			return true;
	}
	if (ret >= 0)
		return fuzz_fail(w, "%s returned %ld, expected an error", call,
				 ret);
	return fuzz_fail(w, "%s failed with %s, not an error it documents",
			 call, fuzz_errname(err));
}

void fuzz_trace_op(const struct worker *w)
{
	char desc[1536];

	fuzz_describe(&w->op, desc, sizeof(desc));
	fuzz_say(w->cfg, "# %s op %llu: %s", w->label,
		 (unsigned long long)w->op_index, desc);
}

void fuzz_report_replay(const struct worker *w)
{
	const struct fuzz_config *cfg = w->cfg;

	fuzz_say(cfg, "# replay: fuzz --seed %llu --worker %u --workers 1 --ops %llu --params '%s' --trace",
		 (unsigned long long)cfg->seed, w->id,
		 (unsigned long long)(worker_is_child(w) ? w->spawned_at :
							   w->op_index) + 1,
		 cfg->params);
}

/* One line of a family's tally, summed over the workers. */
static void summary_tally(const struct fuzz_config *cfg,
			  const struct fuzz_stats *stats, unsigned int fam)
{
	const struct fuzz_family *f = fuzz_families[fam];
	char line[1024];
	unsigned int e, i;
	uint64_t n;
	int len;

	len = snprintf(line, sizeof(line), "# %-12s", f->tally);
	for (e = 0; e < f->nr_tally; e++) {
		for (n = 0, i = 0; i < cfg->workers; i++)
			n += stats[i].tally[fam][e];
		len += snprintf(line + len, sizeof(line) - len, " %s %llu",
				f->tally_names[e], (unsigned long long)n);
	}
	fuzz_say(cfg, "%s", line);
}

void fuzz_report_summary(const struct fuzz_config *cfg,
			 const struct fuzz_stats *stats, double seconds)
{
	uint64_t total = 0, n, skipped;
	char line[1024];
	unsigned int k, e, i;
	int len;

	for (k = 0; k < fuzz_nr_ops(); k++) {
		n = skipped = 0;
		for (i = 0; i < cfg->workers; i++) {
			n += stats[i].ops[k];
			skipped += stats[i].skipped[k];
		}
		total += n;
		len = snprintf(line, sizeof(line), "# %-12s %7llu",
			       fuzz_op_type(k)->name, (unsigned long long)n);
		for (e = 0; e < FUZZ_OUTCOMES && len < (int)sizeof(line) - 32;
		     e++) {
			for (n = 0, i = 0; i < cfg->workers; i++)
				n += stats[i].errs[k][e];
			if (n)
				len += snprintf(line + len, sizeof(line) - len,
						" %s %llu",
						e ? fuzz_errname(e) : "ok",
						(unsigned long long)n);
		}
		if (skipped)
			snprintf(line + len, sizeof(line) - len, " skipped %llu",
				 (unsigned long long)skipped);
		fuzz_say(cfg, "%s", line);
	}
	for (k = 0; k < fuzz_nr_families; k++) {
		if (fuzz_families[k]->tally)
			summary_tally(cfg, stats, k);
	}
	fuzz_say(cfg, "# fuzz: %llu operations in %.1f s (children's included)",
		 (unsigned long long)total, seconds);
}

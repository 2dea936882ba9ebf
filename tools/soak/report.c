// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/soak/report.c - the soak run's checks and summary: sums the
 * slots, checks what must hold, prints the summary as text and writes it
 * as JSON. What must hold (Documentation/testing.rst, "Soak"):
 *
 *   - no corrupted payload, no wrong result, no hang, no status a fault
 *     cannot cause (BAD_OPCODE, BAD_ENTRY, REMOTE_RANGE, ACCESS, TIMEOUT,
 *     NOMEM), no setup failure, no failed fault request;
 *   - every byte of an OK data entry or window access is verified or its
 *     check was cut short by a fault (SIGBUS) or a kill (at most one
 *     check, SOAK_MAX_CHECK bytes, per kill): ok = verified + unverified;
 *   - bytes: the ports' tx sum equals their rx sum, and it lies between
 *     what the workers saw completed (sent) and that plus what killed
 *     workers had in flight (sent + lost): equal when nothing was killed;
 *   - kernel memory after the warm-up (soak -W; half the run by default):
 *     the least-squares growth over the rest of the run within
 *     MEM_BOUND_KB of each series;
 *   - latency: the first minute after the warm-up with MIN_PROBES probes
 *     is the base; no later minute with a p50 above 2 x the base's +
 *     2 ms, or a p99 above 3 x the base's (P99_FLOOR_US at least) +
 *     10 ms.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "soak.h"

const char *const soak_op_names[SOP_COUNT] = {
	"nop", "write", "read", "write_notify", "atomic_cas", "atomic_swap",
	"atomic_fetch_add", "atomic_fetch_and", "atomic_fetch_or",
	"atomic_fetch_xor", "copy", "fill", "compute", "event_record",
	"event_wait", "wait_value", "window_store", "window_load",
	"export_import_revoke", "probe",
};

const char *const soak_status_names[SST_COUNT] = {
	"ok", "bad_opcode", "bad_entry", "local_range", "no_import",
	"remote_range", "access", "revoked", "no_route", "timeout", "nomem",
	"flushed", "rnr_retry_exc", "remote_length", "local_length",
	"remote_op", "sigbus", "setup", "unknown",
};

/* Statuses a fault explains; any other but OK is a violation. */
static const int fault_status[SST_COUNT] = {
	[UBFAB_CQE_LOCAL_RANGE] = 1, [UBFAB_CQE_NO_IMPORT] = 1,
	[UBFAB_CQE_REVOKED] = 1, [UBFAB_CQE_NO_ROUTE] = 1,
	[UBFAB_CQE_FLUSHED] = 1, [SST_SIGBUS] = 1, [SST_SETUP] = 1,
};

/* Memory series and the growth each may show after the warm-up, in kB. */
enum { M_SLAB, M_SUNRECLAIM, M_VMALLOC, M_USED, M_KMALLOC, M_COUNT };
static const char *const mem_names[M_COUNT] = {
	"slab_kb", "sunreclaim_kb", "vmalloc_kb", "used_kb", "kmalloc_kb",
};
static const uint64_t MEM_BOUND_KB[M_COUNT] = {
	8192, 8192, 2048, 32768, 8192,
};

static uint64_t mem_val(const struct soak_mem *m, int k)
{
	const uint64_t v[M_COUNT] = {
		m->slab_kb, m->sunreclaim_kb, m->vmalloc_kb, m->used_kb,
		m->kmalloc_kb,
	};

	return v[k];
}

#define MAX_VIOL 32
/* Probes a minute needs for its percentiles to count. */
#define MIN_PROBES 100
/*
 * The least base p99 the drift bound takes, in us: in the test VM (QEMU
 * TCG) a probe's tail is the host's, a few ms on an idle host and up to
 * hundreds when the host runs other VMs, minute by minute.
 */
#define P99_FLOOR_US 100000
#define U(x) ((unsigned long long)(x))

struct sums {
	struct soak_slot t;		/* all slots summed */
	uint64_t by_status[SST_COUNT];
	uint64_t completions;
	double growth[M_COUNT];		/* kB over the post-warm-up window */
	unsigned int post;		/* samples after the warm-up */
	unsigned int minutes;		/* of the run, begun */
	unsigned int base;		/* the latency's base minute */
	uint32_t p50[SOAK_MAX_MINUTES], p99[SOAK_MAX_MINUTES];
	unsigned int nviol;
	char viol[MAX_VIOL][160];
};

static void __attribute__((format(printf, 2, 3)))
violation(struct sums *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nviol >= MAX_VIOL)
		return;
	va_start(ap, fmt);
	vsnprintf(s->viol[s->nviol++], sizeof(s->viol[0]), fmt, ap);
	va_end(ap);
}

static void add_slot(struct soak_slot *t, const struct soak_slot *s)
{
	const uint64_t *src = (const uint64_t *)s;
	uint64_t *dst = (uint64_t *)t;
	size_t i, n = offsetof(struct soak_slot, pid) / sizeof(uint64_t);

	for (i = 0; i < n; i++)
		dst[i] += src[i];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Least-squares slope of series @k over samples from @first, times span. */
static double growth(const struct soak_mem *m, unsigned int first,
		     unsigned int n, int k)
{
	double st = 0, sv = 0, stt = 0, stv = 0, c = n - first, slope;
	unsigned int i;

	for (i = first; i < n; i++) {
		st += m[i].t_s;
		sv += mem_val(&m[i], k);
		stt += (double)m[i].t_s * m[i].t_s;
		stv += (double)m[i].t_s * mem_val(&m[i], k);
	}
	if (c < 3 || stt * c == st * st)
		return 0;
	slope = (c * stv - st * sv) / (c * stt - st * st);
	return slope * (m[n - 1].t_s - m[first].t_s);
}

static void check(const struct soak_report_in *in, struct sums *s)
{
	const struct soak_shared *sh = in->sh;
	unsigned int i, k, first, base;
	uint32_t floor;
	uint64_t lo, hi;

	for (i = 0; i <= sh->workers; i++) {
		const struct soak_slot *sl = &sh->slot[i];

		add_slot(&s->t, sl);
		if (sl->setup_failures)
			fprintf(stderr, "soak: slot %u: %s\n", i, sl->err);
		if (sl->bad_results && sl->bad_op < SOP_COUNT)
			fprintf(stderr,
				"soak: slot %u (target eid %u, initiator %u): %llu wrong, the last %s: %#llx, expected %#llx\n",
				i, sl->eid[0], sl->eid[1], U(sl->bad_results),
				soak_op_names[sl->bad_op], U(sl->bad_got),
				U(sl->bad_want));
	}
	for (i = 0; i < SOP_COUNT; i++)
		for (k = 0; k < SST_COUNT; k++) {
			s->by_status[k] += s->t.ops[i][k];
			if (k < SST_SIGBUS)
				s->completions += s->t.ops[i][k];
			if (k && !fault_status[k] && s->t.ops[i][k])
				violation(s, "%llu %s completions with status "
					  "%s, which no fault explains",
					  (unsigned long long)s->t.ops[i][k],
					  soak_op_names[i],
					  soak_status_names[k]);
		}
	if (s->t.corrupt_ops)
		violation(s, "%llu ops with corrupted payload (%llu bytes)",
			  U(s->t.corrupt_ops), U(s->t.corrupt_bytes));
	if (s->t.bad_results)
		violation(s, "%llu of %llu checked results wrong",
			  U(s->t.bad_results), U(s->t.results_checked));
	if (s->t.hangs)
		violation(s, "%llu completions did not come in %d ms",
			  U(s->t.hangs), SOAK_WAIT_MS);
	if (s->t.setup_failures)
		violation(s, "%llu setup failures (see stderr)",
			  U(s->t.setup_failures));
	if (sh->fault_errors)
		violation(s, "%llu fault requests failed",
			  U(sh->fault_errors));
	if (s->t.ok_data_bytes != s->t.verified_bytes + s->t.unverified_bytes +
	    s->t.corrupt_bytes)
		violation(s, "bytes of OK ops %llu != verified + unverified "
			  "+ corrupted %llu", U(s->t.ok_data_bytes),
			  U(s->t.verified_bytes + s->t.unverified_bytes +
			    s->t.corrupt_bytes));
	if (in->fabric.tx_bytes != in->fabric.rx_bytes)
		violation(s, "fabric tx bytes %llu != rx bytes %llu",
			  U(in->fabric.tx_bytes), U(in->fabric.rx_bytes));
	lo = s->t.sent_bytes;
	hi = s->t.sent_bytes + s->t.lost_bytes;
	if (in->fabric.tx_bytes < lo || in->fabric.tx_bytes > hi)
		violation(s, "fabric bytes %llu outside sent .. sent + lost "
			  "(%llu .. %llu)", U(in->fabric.tx_bytes), U(lo),
			  U(hi));
	/* memory */
	for (first = 0; first < in->nmem &&
	     in->mem[first].t_s < in->cfg->warmup_s; first++)
		;
	s->post = in->nmem - first;
	for (k = 0; k < M_COUNT; k++) {
		s->growth[k] = growth(in->mem, first, in->nmem, k);
		if (s->growth[k] > MEM_BOUND_KB[k])
			violation(s, "kernel memory grows after the warm-up: "
				  "%s by %.0f kB", mem_names[k], s->growth[k]);
	}
	/*
	 * latency: minutes with at least MIN_PROBES probes; the first of
	 * them after the warm-up is the base of the others
	 */
	s->minutes = (in->elapsed_s + 59) / 60;
	if (s->minutes > SOAK_MAX_MINUTES)
		s->minutes = SOAK_MAX_MINUTES;
	base = s->minutes;
	for (i = 0; i < s->minutes; i++) {
		uint32_t *v = (uint32_t *)sh->probe_us[i];

		if (sh->probe_n[i] < MIN_PROBES)
			continue;
		qsort(v, sh->probe_n[i], sizeof(*v), cmp_u32);
		s->p50[i] = v[sh->probe_n[i] / 2];
		s->p99[i] = v[sh->probe_n[i] * 99 / 100];
		if (base == s->minutes && i * 60 + 59 >= in->cfg->warmup_s)
			base = i;
	}
	if (base == s->minutes) {
		violation(s, "no minute after the warm-up with %d probes",
			  MIN_PROBES);
		return;
	}
	s->base = base;
	for (i = base + 1; i < s->minutes; i++) {
		if (sh->probe_n[i] < MIN_PROBES)
			continue;
		if (s->p50[i] > 2 * s->p50[base] + 2000)
			violation(s, "probe p50 of minute %u drifted to %u us "
				  "(minute %u: %u us)", i, s->p50[i], base,
				  s->p50[base]);
		floor = s->p99[base] > P99_FLOOR_US ? s->p99[base] :
						      P99_FLOOR_US;
		if (s->p99[i] > 3 * floor + 10000)
			violation(s, "probe p99 of minute %u drifted to %u us "
				  "(minute %u: %u us)", i, s->p99[i], base,
				  s->p99[base]);
	}
}

static void text(const struct soak_report_in *in, const struct sums *s,
		 FILE *f)
{
	const struct soak_shared *sh = in->sh;
	unsigned int i, k;

	fprintf(f, "\n=== soak summary: %u s, %u workers, seed %llu, kernel %s\n",
		in->elapsed_s, sh->workers, (unsigned long long)sh->seed,
		in->kernel);
	fprintf(f, "%-22s", "op");
	for (k = 0; k < SST_COUNT; k++)
		if (s->by_status[k])
			fprintf(f, " %10s", soak_status_names[k]);
	fputc('\n', f);
	for (i = 0; i < SOP_COUNT; i++) {
		fprintf(f, "%-22s", soak_op_names[i]);
		for (k = 0; k < SST_COUNT; k++)
			if (s->by_status[k])
				fprintf(f, " %10llu",
					(unsigned long long)s->t.ops[i][k]);
		fputc('\n', f);
	}
	fprintf(f, "completions %llu; results checked %llu, wrong %llu; "
		"corrupted ops %llu\n",
		(unsigned long long)s->completions,
		(unsigned long long)s->t.results_checked,
		(unsigned long long)s->t.bad_results,
		(unsigned long long)s->t.corrupt_ops);
	fprintf(f, "payload bytes: OK %llu = verified %llu + cut short by a "
		"fault or kill %llu + corrupted %llu\n",
		(unsigned long long)s->t.ok_data_bytes,
		(unsigned long long)s->t.verified_bytes,
		(unsigned long long)s->t.unverified_bytes,
		(unsigned long long)s->t.corrupt_bytes);
	fprintf(f, "fabric bytes: ports tx %llu, rx %llu; sent %llu, lost "
		"in flight at kills <= %llu; port errors %llu\n",
		(unsigned long long)in->fabric.tx_bytes,
		(unsigned long long)in->fabric.rx_bytes,
		(unsigned long long)s->t.sent_bytes,
		(unsigned long long)s->t.lost_bytes,
		(unsigned long long)in->fabric.errors);
	fprintf(f, "faults: %llu port flaps, %llu isolations, %llu plane "
		"flaps, %llu entity resets, %llu kills (%llu failed); workers: %llu spawns, "
		"%llu rebuilds, %llu export/import/revoke cycles\n",
		(unsigned long long)sh->faults[SF_PORT_FLAP],
		(unsigned long long)sh->faults[SF_ISOLATE],
		(unsigned long long)sh->faults[SF_PLANE_FLAP],
		(unsigned long long)sh->faults[SF_ENTITY_RESET],
		(unsigned long long)sh->faults[SF_KILL],
		(unsigned long long)sh->fault_errors,
		(unsigned long long)s->t.spawns,
		(unsigned long long)s->t.rebuilds,
		(unsigned long long)s->t.cycles);
	fprintf(f, "kernel memory (kB):\n%6s", "t_s");
	for (k = 0; k < M_COUNT; k++)
		fprintf(f, " %13s", mem_names[k]);
	fputc('\n', f);
	for (i = 0; i < in->nmem; i++) {
		fprintf(f, "%6llu", (unsigned long long)in->mem[i].t_s);
		for (k = 0; k < M_COUNT; k++)
			fprintf(f, " %13llu",
				(unsigned long long)mem_val(&in->mem[i], k));
		fputc('\n', f);
	}
	fprintf(f, "growth after the warm-up (%u s, %u samples), bound:",
		in->cfg->warmup_s, s->post);
	for (k = 0; k < M_COUNT; k++)
		fprintf(f, " %s %+.0f/%llu", mem_names[k], s->growth[k],
			(unsigned long long)MEM_BOUND_KB[k]);
	fprintf(f, "\nprobe latency per minute (us; base minute %u, p50 "
		"<= 2 x + 2000, p99 <= 3 x (at least %u) + 10000):\n"
		"  minute probes failed     p50     p99\n", s->base,
		P99_FLOOR_US);
	for (i = 0; i < s->minutes; i++)
		fprintf(f, "  %6u %6u %6u %7u %7u\n", i, sh->probe_n[i],
			sh->probe_fail[i], s->p50[i], s->p99[i]);
	for (i = 0; i < s->nviol; i++)
		fprintf(f, "VIOLATION: %s\n", s->viol[i]);
	fprintf(f, "soak: %s\n", s->nviol ? "FAIL" : "PASS");
}

static void json(const struct soak_report_in *in, const struct sums *s,
		 FILE *f)
{
	const struct soak_shared *sh = in->sh;
	struct json j;
	unsigned int i, k;

	json_init(&j, f, JSON_PRETTY);
	json_object_begin(&j, NULL);
	json_string(&j, "kernel", in->kernel);
	json_uint(&j, "seed", sh->seed);
	json_uint(&j, "seconds", in->elapsed_s);
	json_uint(&j, "warmup_s", in->cfg->warmup_s);
	json_uint(&j, "workers", sh->workers);
	json_bool(&j, "pass", !s->nviol);
	json_array_begin(&j, "violations");
	for (i = 0; i < s->nviol; i++)
		json_string(&j, NULL, s->viol[i]);
	json_array_end(&j);
	json_object_begin(&j, "ops");
	for (i = 0; i < SOP_COUNT; i++) {
		json_object_begin(&j, soak_op_names[i]);
		for (k = 0; k < SST_COUNT; k++)
			if (s->t.ops[i][k])
				json_uint(&j, soak_status_names[k],
					  s->t.ops[i][k]);
		json_object_end(&j);
	}
	json_object_end(&j);
	json_object_begin(&j, "checks");
	json_uint(&j, "completions", s->completions);
	json_uint(&j, "results_checked", s->t.results_checked);
	json_uint(&j, "bad_results", s->t.bad_results);
	json_uint(&j, "corrupt_ops", s->t.corrupt_ops);
	json_uint(&j, "corrupt_bytes", s->t.corrupt_bytes);
	json_uint(&j, "ok_data_bytes", s->t.ok_data_bytes);
	json_uint(&j, "verified_bytes", s->t.verified_bytes);
	json_uint(&j, "unverified_bytes", s->t.unverified_bytes);
	json_uint(&j, "hangs", s->t.hangs);
	json_object_end(&j);
	json_object_begin(&j, "bytes");
	json_uint(&j, "fabric_tx", in->fabric.tx_bytes);
	json_uint(&j, "fabric_rx", in->fabric.rx_bytes);
	json_uint(&j, "fabric_errors", in->fabric.errors);
	json_uint(&j, "sent", s->t.sent_bytes);
	json_uint(&j, "lost_in_flight_max", s->t.lost_bytes);
	json_object_end(&j);
	json_object_begin(&j, "faults");
	json_uint(&j, "port_flaps", sh->faults[SF_PORT_FLAP]);
	json_uint(&j, "isolations", sh->faults[SF_ISOLATE]);
	json_uint(&j, "plane_flaps", sh->faults[SF_PLANE_FLAP]);
	json_uint(&j, "entity_resets", sh->faults[SF_ENTITY_RESET]);
	json_uint(&j, "kills", sh->faults[SF_KILL]);
	json_uint(&j, "failed", sh->fault_errors);
	json_uint(&j, "spawns", s->t.spawns);
	json_uint(&j, "rebuilds", s->t.rebuilds);
	json_uint(&j, "cycles", s->t.cycles);
	json_object_end(&j);
	json_object_begin(&j, "memory");
	json_object_begin(&j, "growth_kb");
	for (k = 0; k < M_COUNT; k++)
		json_fixed(&j, mem_names[k], s->growth[k], 0);
	json_object_end(&j);
	json_object_begin(&j, "bound_kb");
	for (k = 0; k < M_COUNT; k++)
		json_uint(&j, mem_names[k], MEM_BOUND_KB[k]);
	json_object_end(&j);
	json_array_begin(&j, "samples");
	for (i = 0; i < in->nmem; i++) {
		json_object_begin(&j, NULL);
		json_uint(&j, "t_s", in->mem[i].t_s);
		for (k = 0; k < M_COUNT; k++)
			json_uint(&j, mem_names[k], mem_val(&in->mem[i], k));
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_uint(&j, "latency_base_minute", s->base);
	json_array_begin(&j, "latency");
	for (i = 0; i < s->minutes; i++) {
		json_object_begin(&j, NULL);
		json_uint(&j, "minute", i);
		json_uint(&j, "probes", sh->probe_n[i]);
		json_uint(&j, "failed", sh->probe_fail[i]);
		json_uint(&j, "p50_us", s->p50[i]);
		json_uint(&j, "p99_us", s->p99[i]);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
}

int soak_report(const struct soak_report_in *in, FILE *out)
{
	struct sums *s = calloc(1, sizeof(*s));
	FILE *f;
	int bad;

	if (!s)
		return 2;
	check(in, s);
	text(in, s, out);
	if (in->cfg->json) {
		f = fopen(in->cfg->json, "w");
		if (!f) {
			perror(in->cfg->json);
			free(s);
			return 2;
		}
		json(in, s, f);
		fclose(f);
	}
	bad = s->nviol != 0;
	free(s);
	return bad;
}

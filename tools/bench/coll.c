// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench coll: libubshmem's collectives in the manner of nccl-tests. Run
 * outside a job, it re-executes itself under ubrun(1) as --ranks ranks;
 * each rank runs every collective (and each all-reduce algorithm) at
 * sizes from 8 B to --max-size, doubling, and rank 0 prints a row a size
 * (on the descriptor the launching ubbench left it, so that ubrun's rank
 * prefix does not touch the table) and writes the JSON file. With
 * --check every rank checks its output of the warm-up op and of the last
 * timed one against the CPU's reference (tools/common/coll_ref.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_ref.h"
#include "ubbench.h"
#include "ubshmem.h"

#define COLL_MAX_TOP	(256 * MiB)
#define COLL_MIN	8
#define FD_ENV		"UBBENCH_COLL_FD"

enum coll_kind { BROADCAST, ALLGATHER, REDUCE_SCATTER, ALLREDUCE, ALLTOALL };

/* A collective and algorithm a row measures. */
static const struct {
	const char *name;
	const char *algo;
	enum coll_kind kind;
	int algo_id;
} cases[] = {
	{ "broadcast", "tree", BROADCAST, 0 },
	{ "allgather", "ring", ALLGATHER, 0 },
	{ "reduce_scatter", "ring", REDUCE_SCATTER, 0 },
	{ "allreduce", "ring", ALLREDUCE, UBSHMEM_ALLREDUCE_RING },
	{ "allreduce", "2level", ALLREDUCE, UBSHMEM_ALLREDUCE_2LEVEL },
	{ "alltoall", "direct", ALLTOALL, 0 },
};

/* One row: a case at a size; @bad_ranks: of --check, on rank 0. */
struct coll_row {
	unsigned int c;
	size_t size, count;
	double time_ns, algbw, busbw, host_us;
	uint64_t bad_ranks;
};

/*
 * --check's state: the world as the reference sees it, this rank's count
 * of bad outputs, and on rank 0 the count of ranks that found one (each
 * adds 1 a row).
 */
struct coll_check {
	struct coll_ref_team world;
	unsigned int failed;
	uint64_t *bad_ranks, seen;
};

/*
 * nccl-tests' bus bandwidth factors (its doc/PERFORMANCE.md): what each
 * rank's links carry against the algorithm bandwidth, size / time.
 */
static double bus_factor(enum coll_kind kind, int n)
{
	switch (kind) {
	case ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case BROADCAST:
		return 1;
	default:
		return (double)(n - 1) / n;
	}
}

/*
 * The bytes a row moves for @size, in nccl-tests' terms (the larger of a
 * rank's buffers), and its count of floats: 0 when @size is too small for
 * one float a rank.
 */
static size_t row_size(enum coll_kind kind, size_t size, int n,
		       size_t *count)
{
	size_t per = kind == BROADCAST || kind == ALLREDUCE ? size / 4 :
		size / 4 / n;

	*count = kind == BROADCAST || kind == ALLREDUCE ? per : per * n;
	return *count * 4;
}

static int run_op(unsigned int c, void *dst, void *src, size_t count, int n)
{
	const struct ubshmem_team *w = ubshmem_team_world();

	switch (cases[c].kind) {
	case BROADCAST:
		return ubshmem_team_broadcast(w, dst, src, count * 4, 0);
	case ALLGATHER:
		return ubshmem_team_allgather(w, dst, src, count * 4 / n);
	case REDUCE_SCATTER:
		return ubshmem_team_reduce_scatter(w, dst, src, count / n,
						   UBSHMEM_FLOAT,
						   UBSHMEM_OP_SUM);
	case ALLREDUCE:
		return ubshmem_team_allreduce(w, dst, src, count,
					      UBSHMEM_FLOAT, UBSHMEM_OP_SUM,
					      cases[c].algo_id);
	default:
		return ubshmem_team_alltoall(w, dst, src, count * 4 / n);
	}
}

/* The seed of the sources of a row's @round: its case and its size. */
static uint32_t check_seed(const struct coll_row *r, unsigned int round)
{
	return (uint32_t)(r->size << 4 | r->c << 1 | round);
}

/* The elements of this rank's output of row @r. */
static size_t out_count(const struct coll_row *r, int n)
{
	return cases[r->c].kind == REDUCE_SCATTER ? r->count / n : r->count;
}

/*
 * Element @e of this rank's output of row @r in @round (all-reduce's are
 * coll_ref_allreduce()'s): the root's (PE 0) for broadcast, PE p's
 * element i for all-gather's e = p * per + i, PE p's element meant for
 * this rank for all-to-all's, this rank's block summed from the next
 * rank on for reduce-scatter's.
 */
static void want_elem(const struct coll_check *k, const struct coll_row *r,
		      unsigned int round, size_t e, void *out)
{
	const struct coll_ref_team *w = &k->world;
	const int t = UBSHMEM_FLOAT, op = UBSHMEM_OP_SUM;
	uint32_t seed = check_seed(r, round);
	size_t per = r->count / w->n;

	switch (cases[r->c].kind) {
	case BROADCAST:
		coll_ref_elem(t, op, seed, w->pes[0], e, out);
		break;
	case ALLGATHER:
		coll_ref_elem(t, op, seed, w->pes[e / per], e % per, out);
		break;
	case ALLTOALL:
		coll_ref_elem(t, op, seed, w->pes[e / per],
			      w->me * per + e % per, out);
		break;
	default:
		coll_ref_chain(t, op, seed, w->pes, w->n, w->me,
			       w->me * per + e, out);
	}
}

/*
 * Check this rank's output @dst of row @r in @round (a call of every
 * rank, ending in a barrier) and print the first bad element; returns 1
 * if there was one, 0, or an error of the library.
 */
static int check_output(struct coll_check *k, const struct coll_row *r,
			unsigned int round, const float *dst)
{
	size_t count = out_count(r, k->world.n), e = 0;
	int err = 0, kind = cases[r->c].kind, err2;
	float want;

	if (kind == ALLREDUCE)
		err = coll_ref_check_allreduce(&k->world, cases[r->c].algo_id,
					       UBSHMEM_FLOAT, UBSHMEM_OP_SUM,
					       check_seed(r, round), count,
					       dst, &e);
	else
		for (; e < count; e++) {
			want_elem(k, r, round, e, &want);
			if (memcmp(&dst[e], &want, sizeof(want)))
				break;
		}
	err2 = ubshmem_barrier_all();
	if (err || err2)
		return err ? err : err2;
	if (e == count)
		return 0;
	if (kind == ALLREDUCE)
		coll_ref_allreduce(&k->world, cases[r->c].algo_id,
				   UBSHMEM_FLOAT, UBSHMEM_OP_SUM,
				   check_seed(r, round), count, e, &want);
	else
		want_elem(k, r, round, e, &want);
	fprintf(stderr, "ubbench: coll --check: rank %d: %s %s of %zu B, %s: element %zu of %zu: got %a (%.9g), want %a (%.9g)\n",
		k->world.me, cases[r->c].name, cases[r->c].algo, r->size,
		round ? "the last timed op" : "the warm-up op", e, count,
		dst[e], dst[e], want, want);
	return 1;
}

/* Fill this rank's sources of row @r in @round and spoil its output. */
static void check_prepare(const struct coll_check *k,
			  const struct coll_row *r, unsigned int round,
			  float *dst, float *src)
{
	size_t i;

	for (i = 0; i < r->count; i++)
		coll_ref_elem(UBSHMEM_FLOAT, UBSHMEM_OP_SUM,
			      check_seed(r, round), k->world.me, i, &src[i]);
	if (!round)
		memset(dst, 0xee, r->count * sizeof(*dst));
}

/*
 * --check of row @r's output of @round: a bad one counted in @k->failed
 * and, once a row, at rank 0; returns an error of the library.
 */
static int check_round(struct coll_check *k, struct coll_row *r,
		       unsigned int round, float *dst, int *bad)
{
	int err = check_output(k, r, round, dst);

	if (err < 0)
		return err;
	*bad |= err;
	if (!round)
		return 0;
	k->failed += *bad;
	if (*bad)
		err = ubshmem_atomic_fetch_add(k->bad_ranks, 1, 0, NULL);
	if (!err)
		err = ubshmem_barrier_all();
	if (!err && k->world.me == 0)
		err = ubshmem_atomic_fetch_add(k->bad_ranks, 0, 0,
					       &r->bad_ranks);
	r->bad_ranks -= k->seen;
	k->seen += r->bad_ranks;
	return err;
}

/*
 * A warm-up op, then @iters between two barriers: the row's times. With
 * @k, the warm-up's sources are those of round 0 and its output (spoilt
 * before) is checked, the timed ops' sources those of round 1 and the
 * last one's output is checked after the times are taken.
 */
static int measure_row(struct coll_row *r, unsigned int iters, float *dst,
		       float *src, int n, struct coll_check *k)
{
	uint64_t m0, h0;
	unsigned int i;
	int err = 0, bad = 0;

	if (k) {
		check_prepare(k, r, 0, dst, src);
		err = ubshmem_barrier_all();
	}
	if (!err)
		err = run_op(r->c, dst, src, r->count, n);
	if (!err && k) {
		err = check_round(k, r, 0, dst, &bad);
		check_prepare(k, r, 1, dst, src);
	}
	if (!err)
		err = ubshmem_barrier_all();
	m0 = ubshmem_model_ns();
	h0 = now_ns();
	for (i = 0; !err && i < iters; i++)
		err = run_op(r->c, dst, src, r->count, n);
	if (!err)
		err = ubshmem_barrier_all();
	r->time_ns = (double)(ubshmem_model_ns() - m0) / iters;
	r->host_us = (double)(now_ns() - h0) / iters / 1000;
	r->algbw = r->time_ns ? r->size / r->time_ns : 0;
	r->busbw = r->algbw * bus_factor(cases[r->c].kind, n);
	if (!err && k)
		err = check_round(k, r, 1, dst, &bad);
	return err;
}

/* A row of the table; with --check (@checked) its ranks' verdict. */
static void print_row(FILE *f, const struct coll_row *r, bool checked)
{
	fprintf(f, "%-15s %-7s %11zu %10zu  float %12.0f %8.2f %8.2f %11.1f",
		cases[r->c].name, cases[r->c].algo, r->size, r->count,
		r->time_ns, r->algbw, r->busbw, r->host_us);
	if (!checked)
		fputc('\n', f);
	else if (r->bad_ranks)
		fprintf(f, "  BAD %llu\n", (unsigned long long)r->bad_ranks);
	else
		fprintf(f, "  ok\n");
	fflush(f);
}

static int write_json(const struct bench *b, const struct coll_row *rows,
		      size_t nrows, int n, unsigned int iters, size_t max,
		      bool checked)
{
	struct context ctx;
	struct json j;
	size_t i;
	FILE *f;

	context_read(&ctx);
	f = json_file_open(b, &j, "ubbench coll", &ctx);
	if (!f)
		return -EIO;
	json_break(&j);
	json_uint(&j, "ranks", n);
	json_bool(&j, "ordered", bench_ordered());
	json_uint(&j, "iters", iters);
	json_uint(&j, "max_size", max);
	json_string(&j, "type", "float");
	json_bool(&j, "checked", checked);
	json_array_begin(&j, "results");
	for (i = 0; i < nrows; i++) {
		json_break(&j);
		json_object_begin(&j, NULL);
		json_string(&j, "collective", cases[rows[i].c].name);
		json_string(&j, "algo", cases[rows[i].c].algo);
		json_uint(&j, "size", rows[i].size);
		json_uint(&j, "count", rows[i].count);
		json_double(&j, "time_ns", rows[i].time_ns);
		json_double(&j, "algbw_gbs", rows[i].algbw);
		json_double(&j, "busbw_gbs", rows[i].busbw);
		json_double(&j, "host_us", rows[i].host_us);
		if (checked)
			json_uint(&j, "bad_ranks", rows[i].bad_ranks);
		json_object_end(&j);
	}
	json_break(&j);
	json_array_end(&j);
	return json_file_close(b, &j, f);
}

/* One rank of the job: every case at every size; rank 0 reports. */
static int coll_rank(struct bench *b, const struct coll_opts *o)
{
	unsigned int iters = b->iters_given ? b->iters : COLL_ITERS, c;
	const char *fd_env = getenv(FD_ENV);
	struct coll_row *rows = NULL, r;
	struct coll_check check = { 0 }, *k = NULL;
	size_t nrows = 0, size, i;
	uint64_t bad = 0;
	FILE *out = NULL;
	float *src, *dst;
	int err, me, n;

	if (!o->max_size) {
		fprintf(stderr, "ubbench: coll in a job of ubrun: give --max-size\n");
		return 2;
	}
	err = ubshmem_init();
	if (err) {
		fail("ubshmem_init", err);
		return 1;
	}
	me = ubshmem_my_pe();
	n = ubshmem_n_pes();
	if (me == 0 && fd_env)
		out = fdopen(atoi(fd_env), "w");
	else if (fd_env)
		close(atoi(fd_env));
	src = ubshmem_malloc(o->max_size);
	dst = ubshmem_malloc(o->max_size);
	if (!src || !dst) {
		fail("ubshmem_malloc", -errno);
		return 1;
	}
	for (i = 0; i < o->max_size / 4; i++)
		src[i] = (float)(me + i % 7);
	if (o->check) {
		int *node_of = coll_ref_nodes();

		check.bad_ranks = ubshmem_malloc(sizeof(uint64_t));
		err = node_of && check.bad_ranks ?
			coll_ref_team_make(&check.world, ubshmem_team_world(),
					   node_of) : -ENOMEM;
		free(node_of);
		if (err) {
			fail("coll --check", err);
			return 1;
		}
		*check.bad_ranks = 0;	/* before the first row's barrier */
		k = &check;
	}
	if (out) {
		fprintf(out, "ubbench coll: %d ranks, %u ops a row after a warm-up, sizes %d B to %zu B, %s\n",
			n, iters, COLL_MIN, o->max_size, bench_ordered() ?
			"ordered domain (modeled times the same in every run)" :
			"fast mode (modeled times vary from run to run)");
		fprintf(out, "time: modeled, ns an op (fabric model, rank 0's clock between barriers); host: us an op\n");
		fprintf(out, "algbw = size / time, busbw = algbw x nccl-tests' factor (GB/s, modeled)\n");
		if (k)
			fprintf(out, "check: every rank's output against the CPU's, bit for bit (ok, or BAD and the ranks that found one)\n");
		fprintf(out, "%-15s %-7s %11s %10s %6s %12s %8s %8s %11s%s\n",
			"# collective", "algo", "size(B)", "count", "type",
			"time(ns)", "algbw", "busbw", "host(us)",
			k ? "  check" : "");
	}
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		/* 2level needs a regular world: the library says so at once */
		if (cases[c].kind == ALLREDUCE &&
		    run_op(c, dst, src, 0, n) == -EINVAL)
			continue;
		for (size = COLL_MIN; size <= o->max_size; size *= 2) {
			r = (struct coll_row){ .c = c };
			r.size = row_size(cases[c].kind, size, n, &r.count);
			if (!r.count)
				continue;
			err = measure_row(&r, iters, dst, src, n, k);
			if (err) {
				fprintf(stderr, "ubbench: coll %s %s of %zu B: %s\n",
					cases[c].name, cases[c].algo, r.size,
					strerror(-err));
				return 1;
			}
			if (me)
				continue;
			bad += r.bad_ranks;
			if (out)
				print_row(out, &r, k != NULL);
			rows = realloc(rows, (nrows + 1) * sizeof(*rows));
			if (!rows)
				return 1;
			rows[nrows++] = r;
		}
	}
	err = me == 0 && b->json ?
		write_json(b, rows, nrows, n, iters, o->max_size, k != NULL) : 0;
	free(rows);
	if (out)
		fclose(out);
	if (k)
		coll_ref_team_free(&check.world);
	return ubshmem_finalize() || err || check.failed || bad ? 1 : 0;
}

/*
 * The default --max-size: the largest power of two, 8 B to 256 MiB, of
 * which 3 x ranks fit in MemAvailable (src and dst in each rank's heap,
 * and room to spare).
 */
static size_t default_max(unsigned int ranks)
{
	unsigned long long kb = 0;
	char line[128];
	size_t max = COLL_MAX_TOP;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	while (max > COLL_MIN && 3ULL * ranks * max > kb * 1024)
		max /= 2;
	return max;
}

/* Re-execute this ubbench under ubrun: ubrun beside it, or in PATH. */
static int coll_launch(const struct coll_opts *o, int argc, char **argv)
{
	char self[4096], dir[4096], path[4200], np[16], pl[64], ms[48];
	char heap[32], fd[16], **args;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t max = o->max_size ? o->max_size : default_max(o->ranks);
	int i, k = 0, out;

	if (len <= 0) {
		fail("/proc/self/exe", -errno);
		return 1;
	}
	self[len] = '\0';
	snprintf(dir, sizeof(dir), "%s", self);
	*strrchr(dir, '/') = '\0';
	out = dup(STDOUT_FILENO);
	args = calloc(argc + 6, sizeof(*args));
	if (out < 0 || !args) {
		fail("ubrun's arguments", -ENOMEM);
		return 1;
	}
	snprintf(np, sizeof(np), "%u", o->ranks);
	snprintf(pl, sizeof(pl), "--placement=%s", o->placement);
	/* the ranks see the same size, given before the user's arguments */
	snprintf(ms, sizeof(ms), "--max-size=%zu", max);
	snprintf(fd, sizeof(fd), "%d", out);
	setenv(FD_ENV, fd, 1);
	snprintf(heap, sizeof(heap), "%zu", 2 * max + 8 * MiB);
	setenv("UBSHMEM_HEAP_SIZE", heap, 0);
	args[k++] = "ubrun";
	args[k++] = "-n";
	args[k++] = np;
	args[k++] = pl;
	args[k++] = self;
	args[k++] = ms;
	for (i = 1; i < argc; i++)
		args[k++] = argv[i];
	snprintf(path, sizeof(path), "%s/ubrun", dir);
	execv(path, args);
	snprintf(path, sizeof(path), "%s/../ubrun", dir);
	execv(path, args);
	execvp("ubrun", args);
	fail("exec ubrun", -errno);
	return 1;
}

int coll_main(struct bench *b, const struct coll_opts *o, int argc,
	      char **argv)
{
	return getenv("UBRUN_SOCK") ? coll_rank(b, o) :
		coll_launch(o, argc, argv);
}

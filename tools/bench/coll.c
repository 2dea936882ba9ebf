// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench coll: libubshmem's collectives in the manner of nccl-tests. Run
 * outside a job, it re-executes itself under ubrun(1) as --ranks ranks;
 * each rank runs every collective (and each all-reduce algorithm) at
 * sizes from 8 B to --max-size, doubling, and rank 0 prints a row a size
 * (on the descriptor the launching ubbench left it, so that ubrun's rank
 * prefix does not touch the table) and writes the JSON file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* One row: a case at a size. */
struct coll_row {
	unsigned int c;
	size_t size, count;
	double time_ns, algbw, busbw, host_us;
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

/* A warm-up op, then @iters between two barriers: the row's times. */
static int measure_row(struct coll_row *r, unsigned int iters, void *dst,
		       void *src, int n)
{
	uint64_t m0, h0;
	unsigned int i;
	int err;

	err = run_op(r->c, dst, src, r->count, n);
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
	return err;
}

static void print_row(FILE *f, const struct coll_row *r)
{
	fprintf(f, "%-15s %-7s %11zu %10zu  float %12.0f %8.2f %8.2f %11.1f\n",
		cases[r->c].name, cases[r->c].algo, r->size, r->count,
		r->time_ns, r->algbw, r->busbw, r->host_us);
	fflush(f);
}

static int write_json(const struct bench *b, const struct coll_row *rows,
		      size_t nrows, int n, unsigned int iters, size_t max)
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
	size_t nrows = 0, size, i;
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
	if (out) {
		fprintf(out, "ubbench coll: %d ranks, %u ops a row after a warm-up, sizes %d B to %zu B, %s\n",
			n, iters, COLL_MIN, o->max_size, bench_ordered() ?
			"ordered domain (modeled times the same in every run)" :
			"fast mode (modeled times vary from run to run)");
		fprintf(out, "time: modeled, ns an op (fabric model, rank 0's clock between barriers); host: us an op\n");
		fprintf(out, "algbw = size / time, busbw = algbw x nccl-tests' factor (GB/s, modeled)\n");
		fprintf(out, "%-15s %-7s %11s %10s %6s %12s %8s %8s %11s\n",
			"# collective", "algo", "size(B)", "count", "type",
			"time(ns)", "algbw", "busbw", "host(us)");
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
			err = measure_row(&r, iters, dst, src, n);
			if (err) {
				fprintf(stderr, "ubbench: coll %s %s of %zu B: %s\n",
					cases[c].name, cases[c].algo, r.size,
					strerror(-err));
				return 1;
			}
			if (me)
				continue;
			if (out)
				print_row(out, &r);
			rows = realloc(rows, (nrows + 1) * sizeof(*rows));
			if (!rows)
				return 1;
			rows[nrows++] = r;
		}
	}
	err = me == 0 && b->json ?
		write_json(b, rows, nrows, n, iters, o->max_size) : 0;
	free(rows);
	if (out)
		fclose(out);
	return ubshmem_finalize() || err ? 1 : 0;
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

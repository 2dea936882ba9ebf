// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench: a perftest-style benchmark of ubfab, run where the module is
 * loaded (make bench runs it in the test VM).
 *
 * Owns the command line (which parts run), the run's context (kernel,
 * CPU), the repetitions every figure is measured by, the helpers the
 * parts share, and the report around the parts' own: the table on stdout
 * and the JSON file (--json). Every timed figure is the median of --iters
 * timed repetitions that follow one untimed warm-up repetition. The parts
 * are mem.c (memory semantics), queue.c (NPU queues, with uring.c, send.c
 * (two-sided messages) and scale.c: a queue per NPU die at once) and the
 * fabric model's: model.c (its times against the published figures,
 * which are modeled, not timed) and spread.c (how much they move from run
 * to run, fast mode against ordered); coll.c (libubshmem's collectives,
 * run as ranks of ubrun, reporting on their own) and ep.c (libubshmem's
 * MoE dispatch and combine, in jobs of ranks of ubbench itself).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "match.h"
#include "num.h"
#include "ubbench.h"

#define ITERS_DEFAULT	7
#define ITERS_MAX	1000
/* model: how far from the published figure a cell may be, in percent. */
#define TOLERANCE_DEFAULT	5
#define TOLERANCE_MAX		100

enum part { PART_MEM, PART_QUEUE, PART_MODEL, PART_EP, PART_COLL,
	    NR_PARTS };

static const char *const part_names[NR_PARTS] = {
	[PART_MEM] = "mem",
	[PART_QUEUE] = "queue",
	[PART_MODEL] = "model",
	[PART_EP] = "ep",
	[PART_COLL] = "coll",
};

static const char *const queue_part_names[NR_QUEUE_PARTS] = {
	[QUEUE_WRITE] = "write",
	[QUEUE_READ] = "read",
	[QUEUE_RATE] = "rate",
	[QUEUE_LAT] = "lat",
	[QUEUE_COST] = "cost",
	[QUEUE_SCALE] = "scale",
	[QUEUE_SEND] = "send",
};

static const char *const model_part_names[NR_MODEL_PARTS] = {
	[MODEL_TABLE] = "table",
	[MODEL_SPREAD] = "spread",
};

/*
 * The measurements of each part that the word after it may name, and
 * those the part alone runs: queue scale only when named, since it wants
 * a fabric of its own (profile=cm384: a queue on each of 768 NPU dies).
 */
static const struct {
	const char *const *names;	/* NULL: none, the part is one */
	unsigned int nr;
	const char *what;
	unsigned int named_only;	/* bits not run by the part alone */
} sub_parts[NR_PARTS] = {
	[PART_MEM] = { NULL, 1, NULL, 0 },
	[PART_QUEUE] = { queue_part_names, NR_QUEUE_PARTS,
			 "queue measurement", 1U << QUEUE_SCALE },
	[PART_MODEL] = { model_part_names, NR_MODEL_PARTS,
			 "model measurement", 0 },
	/* only when named: it starts jobs of ranks with ubrun */
	[PART_EP] = { NULL, 1, NULL, 1 },
	/* only when named, and alone: it runs as ranks of ubrun */
	[PART_COLL] = { NULL, 1, NULL, 1 },
};

/* A part's measurements when it is given alone, as 1 << enum queue_part... */
#define SUB_ALL(part)	(((1U << sub_parts[part].nr) - 1) & \
			 ~sub_parts[part].named_only)

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ubbench [options] [mem]\n"
		"               [queue [write | read | rate | lat | cost | scale | send]]\n"
		"               [model [table | spread]] [ep]\n"
		"       ubbench [options] coll\n"
		"\n"
		"Measures ubfab (ubfab.ko must be loaded): the parts the commands\n"
		"name, each at most once, in this order; with no command, all but ep:\n"
		"  mem          memory semantics:\n"
		"    copy         memcpy of 4 KiB, 64 KiB and 1 MiB blocks into a\n"
		"                 peer window and into anonymous memory, GB/s and\n"
		"                 their ratio (target: >= 0.95 from 64 KiB up)\n"
		"    first touch  faults/s writing fresh pages of anonymous memory,\n"
		"                 a local mapping and a peer window\n"
		"    import cycle import, mmap, munmap and unimport of a segment\n"
		"  queue        NPU queues of the importer against a segment of the\n"
		"               exporter; with no part, all of these but scale:\n"
		"    write, read  WRITE and READ bandwidth from 64 B to 4 MiB against\n"
		"                 memcpy between the same memory (target: 1 MiB\n"
		"                 WRITE >= 0.9x memcpy)\n"
		"    rate         64-byte WRITEs per second at batch 1, 16 and 64,\n"
		"                 with the doorbell and in polling mode, against\n"
		"                 io_uring NOPs (targets at batch 16: doorbell >=\n"
		"                 0.5x NOP, polling > NOP)\n"
		"    lat          8-byte WRITE, submission to completion seen by\n"
		"                 polling the CQ: median and 99th percentile\n"
		"    cost         the fabric model's cost: 64-byte WRITEs per second\n"
		"                 at batch 1 and 16, doorbell and polling, with the\n"
		"                 model on and off (module parameter model, switched\n"
		"                 in alternating rounds and put back as it was, also\n"
		"                 on a signal), their ratio on / off (target: >= 0.9);\n"
		"                 skipped, with a message, where the module has no\n"
		"                 such parameter or ubbench is not root\n"
		"    scale        only when named: a queue on every NPU die of the\n"
		"                 loaded fabric (768 with profile=cm384), each doing\n"
		"                 %d 64-byte WRITEs to a peer die, batch 16, all at\n"
		"                 once from 1 thread and from one per online CPU,\n"
		"                 against one queue alone: ops/s, the ratio (target:\n"
		"                 all queues >= 0.5x one queue) and the modeled ns\n"
		"                 per entry\n"
		"    send         two-sided messages from 8 B to 64 KiB between the\n"
		"                 importer and the exporter, a queue and a receive\n"
		"                 queue each: SEND_IMM ping-pong, half a round trip\n"
		"                 (median and p99, host us and modeled ns), and the\n"
		"                 rate of SENDs into posted receives, reposted, at\n"
		"                 batch 1 and 16 (host msgs/s, modeled ns a message);\n"
		"                 skipped, with a message, where the module has no\n"
		"                 receive queues\n"
		"  model        the fabric model, from modeled times (the completions'\n"
		"               model_ns); with no part, both of:\n"
		"    table        against the published CloudMatrix384 table: the\n"
		"                 importer (an NPU die) READs from and WRITEs to an\n"
		"                 NPU die and a CPU of its node and of another, found\n"
		"                 by topology; the latency of one 512-byte entry on a\n"
		"                 fresh queue (ns) and the one-way bandwidth of 4\n"
		"                 entries of 16 MiB (GB/s), each beside the published\n"
		"                 figure with its error\n"
		"    spread       how much modeled times move from run to run: 5\n"
		"                 processes on NPU dies found by topology, 2 queues\n"
		"                 each, WRITE, READ and WRITE_NOTIFY into the importer,\n"
		"                 which WAIT_VALUEs, with random host delays; run %d\n"
		"                 times (--iters) in the fast mode and as many in the\n"
		"                 ordered domain (UBFAB_QUEUE_ORDERED); per mode, how\n"
		"                 many completions differed between runs and the\n"
		"                 largest and mean spread (max - min) of their model_ns\n"
		"                 in ns (the ordered domain's must be 0)\n"
		"  ep           only when named: MoE dispatch and combine of libubshmem\n"
		"               (ubshmem_ep_*) at EP 8, 16, 32, 64, 128 and 256\n"
		"               (--ep-sizes), each a job of that many ranks of ubbench\n"
		"               started with ubrun (beside ubbench, else in PATH),\n"
		"               spread over the nodes; 128 tokens a rank, hidden 7168,\n"
		"               top-8 of 256 experts; per rank the modeled ns, GB/s\n"
		"               and host us of a dispatch and of a combine (mean over\n"
		"               the ranks and largest); sizes above the fabric's NPU\n"
		"               dies are skipped (profile=cm384 has 768), those whose\n"
		"               payload would not fit in half of MemAvailable run\n"
		"               timing-only (UBSHMEM_TIMING=1, said in the table)\n"
		"  coll         only when named, and alone: libubshmem's collectives in\n"
		"               the manner of nccl-tests, run as --ranks ranks of\n"
		"               ubrun (ubbench re-executes itself under it): broadcast,\n"
		"               allgather, reduce_scatter, allreduce (ring, and 2level\n"
		"               where every node has as many ranks) and alltoall of\n"
		"               float, sizes doubling from 8 B to --max-size; a row\n"
		"               each: size (B, the larger of a rank's buffers), count\n"
		"               (floats), modeled time of an op in ns (rank 0's clock\n"
		"               between barriers, over --iters ops, default %d, after\n"
		"               a warm-up), algbw = size / time and busbw = algbw x\n"
		"               nccl-tests' factor (allreduce 2(n-1)/n, broadcast 1,\n"
		"               the others (n-1)/n) in GB/s, host time of an op in us\n"
		"Commands may be shortened to any unambiguous prefix. Each timed\n"
		"figure is the median of the timed repetitions, after one untimed\n"
		"warm-up repetition. Targets are reported (PASS/MISS), not enforced.\n"
		"Under QEMU TCG absolute figures are distorted: compare the ratios.\n"
		"model's figures are modeled times, not timed: --iters does not\n"
		"apply to them but to model spread's runs.\n"
		"\n"
		"Options:\n"
		"  -e, --exporter NAME  entity that allocates and exports, for mem and\n"
		"                       queue (default npu0)\n"
		"  -i, --importer NAME  entity that imports, maps and runs the queues\n"
		"                       (default npu1)\n"
		"  -n, --iters N        timed repetitions of each timed figure, 1..%d\n"
		"                       (default %d); model spread: runs of each mode\n"
		"                       (default %d, at least %d)\n"
		"  -t, --tolerance PCT  model: how far a cell may be from the published\n"
		"                       figure, whole percent 0..%d (default %d)\n"
		"  -s, --ep-sizes LIST  ep: the EP sizes to run, comma-separated, of\n"
		"                       8,16,32,64,128,256 (default all)\n"
		"  -j, --json FILE      also write the results to FILE as JSON\n"
		"  -r, --ranks N        coll: ranks, 2..%d (default %d)\n"
		"  -p, --placement P    coll: ubrun's placement (default spread)\n"
		"  -O, --ordered        coll, ep: the ranks' queues in the fabric\n"
		"                       model's ordered domain (UBSHMEM_ORDERED=1):\n"
		"                       the same modeled times in every run; said in\n"
		"                       the header and the JSON\n"
		"  -m, --max-size SIZE  coll: the largest size, bytes, suffixes K, M,\n"
		"                       G, 8 B..256 MiB (default: the largest power\n"
		"                       of two, at most 256 MiB, of which 3 x ranks\n"
		"                       fit in MemAvailable)\n"
		"      --check          coll: fill every rank's sources with values\n"
		"                       of its rank, the index, the size and the\n"
		"                       round, and check every rank's output of the\n"
		"                       warm-up op and of the last timed one against\n"
		"                       the CPU's reference (bit for bit, summed in\n"
		"                       the algorithm's order); a failure prints its\n"
		"                       rank, collective, size, first bad element,\n"
		"                       what it got and what it wanted, the row's\n"
		"                       \"check\" column counts the bad ranks\n"
		"  -h, --help           this help\n"
		"\n"
		"Exit status: 0 measured (and with model, every cell within the\n"
		"tolerance and the ordered domain's spread 0; a queue cost or send\n"
		"skipped is no failure); 1 a measurement (or its setup) failed, a\n"
		"model cell is beyond the tolerance, a completion of the ordered\n"
		"domain differed between runs, or coll --check found a wrong\n"
		"output; 2 usage error.\n",
		SCALE_OPS, SPREAD_RUNS, COLL_ITERS, ITERS_MAX, ITERS_DEFAULT,
		SPREAD_RUNS, SPREAD_RUNS_MIN, TOLERANCE_MAX, TOLERANCE_DEFAULT,
		COLL_RANKS_MAX, COLL_RANKS);
}

void fail(const char *what, int err)
{
	fprintf(stderr, "ubbench: %s: %s\n", what, strerror(-err));
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* @n values, n <= MEDIAN_MAX, sorted into a buffer of its own. */
static const double *sorted(const double *samples, unsigned int n)
{
	static double buf[MEDIAN_MAX];

	memcpy(buf, samples, n * sizeof(*buf));
	qsort(buf, n, sizeof(*buf), cmp_double);
	return buf;
}

/* The median of @n values, n <= MEDIAN_MAX. */
double median(const double *samples, unsigned int n)
{
	const double *s = sorted(samples, n);

	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The @pct th percentile of @n values (nearest rank), n <= MEDIAN_MAX. */
double percentile(const double *samples, unsigned int n, unsigned int pct)
{
	unsigned int rank = (n * pct + 99) / 100;

	return sorted(samples, n)[rank ? rank - 1 : 0];
}

/*
 * Runs @fn once untimed, then b->iters times, and keeps the samples of
 * its @nr figures (one value each per repetition) with their medians.
 */
int measure(struct bench *b, sample_fn fn, const void *arg,
	    struct figure **figs, unsigned int nr)
{
	double values[FIGS_MAX];
	unsigned int rep, i;
	int err;

	for (i = 0; i < nr; i++) {
		if (figs[i]->samples)
			continue;
		figs[i]->samples = calloc(b->iters, sizeof(double));
		if (!figs[i]->samples) {
			fail("allocating the samples", -ENOMEM);
			return -ENOMEM;
		}
	}
	for (rep = 0; rep <= b->iters; rep++) {
		err = fn(b, arg, values);
		if (err)
			return err;
		/* Repetition 0 is the warm-up. */
		for (i = 0; rep && i < nr; i++)
			figs[i]->samples[rep - 1] = values[i];
	}
	for (i = 0; i < nr; i++)
		figs[i]->median = median(figs[i]->samples, b->iters);
	return 0;
}

/* Nanoseconds copying @length bytes in blocks of @block. */
uint64_t copy_slice(char *dst, const char *src, size_t length, size_t block)
{
	uint64_t t0 = now_ns();
	size_t off;

	for (off = 0; off < length; off += block)
		memcpy(dst + off, src + off, block);
	return now_ns() - t0;
}

/* Anonymous memory, or NULL with errno set. */
void *map_anon(size_t length)
{
	void *p = mmap(NULL, length, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * The buffers copies move between are mapped apart: each at its own page
 * offset modulo APART_PAGES pages. Under QEMU TCG the emulated TLB is
 * direct-mapped (an entry per page number modulo its size, a power of
 * two that grows and shrinks with use): two buffers a multiple of its
 * reach apart, as two adjacent 16 MiB mappings can be, share its entries
 * page for page, and a copy between them misses on every access, up to
 * ten times slower; whether they are depends on the holes earlier
 * mappings left. Offsets that differ by fewer than APART_PAGES pages keep
 * any two buffers' distance off every multiple of APART_PAGES pages, so
 * off every multiple of the TLB's reach.
 */
#define APART_PAGES	64

/*
 * map_apart() - map @length bytes of @fd at @offset (MAP_SHARED), or with
 * @fd -1 anonymous memory, read-write and apart from the buffers mapped
 * before. Returns the address, or NULL with errno set.
 */
void *map_apart(size_t length, int fd, uint64_t offset)
{
	static unsigned int next;
	size_t page = sysconf(_SC_PAGESIZE), align = APART_PAGES * page;
	size_t span = length + 2 * align;
	int flags = fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED;
	char *span_start, *start, *p;

	/* Reserve room to place it at offset next modulo APART_PAGES. */
	span_start = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	if (span_start == MAP_FAILED)
		return NULL;
	start = (char *)(((uintptr_t)span_start + align - 1) & ~(align - 1));
	start += next++ % APART_PAGES * page;
	p = mmap(start, length, PROT_RW, flags | MAP_FIXED, fd, offset);
	if (p == MAP_FAILED) {
		munmap(span_start, span);
		return NULL;
	}
	/* What is left of the reservation, either side of it. */
	if (start > span_start)
		munmap(span_start, start - span_start);
	munmap(start + length, span_start + span - (start + length));
	return p;
}

/*
 * Imports the segment @token_id of the exporter into the importer and maps
 * it (@apart: with map_apart()); on success the caller unmaps *addr and
 * unimports *imp.
 */
int import_and_map(struct bench *b, uint32_t token_id, bool apart,
		   struct ubfab_import *imp, void **addr)
{
	int err;

	err = ubfab_dev_import(b->importer, ubfab_dev_eid(b->exporter),
			       token_id, TOKEN_VALUE, RIGHTS_RW, imp);
	if (err) {
		fail("import", err);
		return err;
	}
	if (apart) {
		*addr = map_apart(imp->length, ubfab_dev_fd(b->importer),
				  imp->mmap_offset);
		err = *addr ? 0 : -errno;
	} else {
		err = ubfab_dev_map(b->importer, imp->mmap_offset,
				    imp->length, PROT_RW, addr);
	}
	if (err) {
		fail("map of an import", err);
		ubfab_dev_unimport(b->importer, imp->mmap_offset);
	}
	return err;
}

/* A netlink session for the topology, or -errno (printed). */
int nl_open(struct ubfab_nl **nlp)
{
	int err = ubfab_nl_open(nlp);

	if (err)
		fail("netlink session", err);
	return err;
}

/* ubfab_entity_dump(), its failure printed. */
int entities_dump(struct ubfab_nl *nl, ubfab_entity_cb cb, void *arg)
{
	int err = ubfab_entity_dump(nl, cb, arg);

	if (err)
		fail("the entities' topology", err);
	return err;
}

/* A target's verdict: 1 PASS, 0 MISS, -1 (no target) "-". */
const char *pass_miss(int met)
{
	return met < 0 ? "-" : met ? "PASS" : "MISS";
}

/* A figure, on one line: {"median": M, "samples": [S, ...]}. */
void json_figure(struct json *j, const char *key, const struct figure *fig,
		 unsigned int n)
{
	unsigned int i;

	json_object_begin(j, key);
	json_double(j, "median", fig->median);
	json_array_begin(j, "samples");
	for (i = 0; i < n; i++)
		json_double(j, NULL, fig->samples[i]);
	json_array_end(j);
	json_object_end(j);
}

/* The value of "model name" in /proc/cpuinfo, or "unknown". */
static void cpu_model(char *buf, size_t len)
{
	char line[256], *colon;
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* The transparent huge page mode anonymous memory gets, or "unknown". */
static void thp_mode(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128], *start, *end = NULL;

	start = f && fgets(line, sizeof(line), f) ? strchr(line, '[') : NULL;
	if (start)
		end = strchr(++start, ']');
	if (end)
		*end = '\0';
	snprintf(buf, len, "%s", end ? start : "unknown");
	if (f)
		fclose(f);
}

static void print_table(const struct bench *b, const struct context *ctx)
{
	printf("ubbench: kernel %s, cpu \"%s\", transparent huge pages %s\n",
	       ctx->kernel, ctx->cpu, ctx->thp);
	if (b->exporter) {
		printf("exporter %s (eid %u), importer %s (eid %u); median of %u repetitions after a warm-up\n",
		       ubfab_dev_name(b->exporter),
		       ubfab_dev_eid(b->exporter),
		       ubfab_dev_name(b->importer),
		       ubfab_dev_eid(b->importer), b->iters);
		printf("note: under QEMU TCG (the test VM) absolute figures are distorted: compare the ratios\n");
	} else {
		printf("importer %s (eid %u)\n", ubfab_dev_name(b->importer),
		       ubfab_dev_eid(b->importer));
	}
	if (b->mem) {
		printf("\n");
		mem_print(b);
	}
	if (b->queue) {
		printf("\n");
		queue_print(b);
	}
	if (b->model) {
		printf("\n");
		model_print(b);
	}
	if (b->spread) {
		printf("\n");
		spread_print(b);
	}
	if (b->ep) {
		printf("\n");
		ep_print(b);
	}
}

/* An entity, on one line: {"name": N, "eid": E}. */
static void json_entity(struct json *j, const char *key,
			const struct ubfab_dev *dev)
{
	json_break(j);
	json_object_begin(j, key);
	json_string(j, "name", ubfab_dev_name(dev));
	json_uint(j, "eid", ubfab_dev_eid(dev));
	json_object_end(j);
}

void context_read(struct context *ctx)
{
	struct utsname uts;
	time_t t = time(NULL);

	uname(&uts);
	snprintf(ctx->kernel, sizeof(ctx->kernel), "%s", uts.release);
	cpu_model(ctx->cpu, sizeof(ctx->cpu));
	thp_mode(ctx->thp, sizeof(ctx->thp));
	strftime(ctx->date, sizeof(ctx->date), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&t));
}

/*
 * The file: JSON_SPACED, a line per member of the top-level object and per
 * group of figures in the parts' objects (mem_json(), coll.c's...). Its
 * top-level object is begun with @tool and @ctx; NULL if it cannot be
 * opened (printed).
 */
FILE *json_file_open(const struct bench *b, struct json *j, const char *tool,
		     const struct context *ctx)
{
	const struct {
		const char *key;
		const char *value;
	} strings[] = {
		{ "tool", tool },
		{ "date", ctx->date },
		{ "kernel", ctx->kernel },
		{ "cpu", ctx->cpu },
		{ "thp", ctx->thp },
	};
	unsigned int i;
	FILE *f = fopen(b->json, "w");

	if (!f) {
		fail(b->json, -errno);
		return NULL;
	}
	json_init(j, f, JSON_SPACED);
	json_object_begin(j, NULL);
	for (i = 0; i < ARRAY_SIZE(strings); i++) {
		json_break(j);
		json_string(j, strings[i].key, strings[i].value);
	}
	return f;
}

int json_file_close(const struct bench *b, struct json *j, FILE *f)
{
	json_break(j);
	json_object_end(j);
	if (fclose(f)) {
		fail(b->json, -errno);
		return -errno;
	}
	return 0;
}

static int write_json(const struct bench *b, const struct context *ctx)
{
	struct json j;
	FILE *f = json_file_open(b, &j, "ubbench", ctx);

	if (!f)
		return -EIO;
	if (b->exporter)
		json_entity(&j, "exporter", b->exporter);
	json_entity(&j, "importer", b->importer);
	json_break(&j);
	json_uint(&j, "iters", b->iters);
	if (b->mem)
		mem_json(b, &j);
	if (b->queue)
		queue_json(b, &j);
	if (b->model || b->spread)
		model_json(b, &j);
	if (b->ep)
		ep_json(b, &j);
	return json_file_close(b, &j, f);
}

static int report(const struct bench *b)
{
	struct context ctx;

	context_read(&ctx);
	print_table(b, &ctx);
	return b->json ? write_json(b, &ctx) : 0;
}

static int open_dev(const char *name, struct ubfab_dev **devp)
{
	int err = ubfab_dev_open(name, devp);

	if (err) {
		fprintf(stderr, "ubbench: open %s: %s%s\n", name,
			strerror(-err),
			err == -ENOENT ? " (is ubfab.ko loaded?)" : "");
	}
	return err;
}

/*
 * The index of @arg in @names, exact or an unambiguous prefix; else -1,
 * with a usage error printed.
 */
static int match(const char *arg, const char *const *names, size_t n,
		 const char *what)
{
	char candidates[128];
	int i = tool_match(arg, names, n, candidates, sizeof(candidates));

	if (i == TOOL_MATCH_AMBIGUOUS)
		fprintf(stderr, "ubbench: ambiguous %s \"%s\" (%s)\n", what,
			arg, candidates);
	else if (i < 0)
		fprintf(stderr, "ubbench: unknown %s \"%s\"\n", what, arg);
	return i < 0 ? -1 : i;
}

/*
 * A size in bytes with an optional binary suffix K, M or G, from 8 B to
 * 256 MiB, into @out; false if it is not one.
 */
static bool parse_size(const char *arg, size_t *out)
{
	static const char suffixes[] = "KMG";
	size_t len = strlen(arg);
	const char *sfx = len ? strchr(suffixes, arg[len - 1]) : NULL;
	unsigned int shift = sfx && *sfx ? 10 * (sfx - suffixes + 1) : 0;
	unsigned long long v;
	char num[32];

	len -= shift != 0;
	if (!len || len >= sizeof(num))
		return false;
	memcpy(num, arg, len);
	num[len] = '\0';
	if (!tool_parse_uint(num, 256ULL * MiB >> shift, &v) ||
	    v << shift < 8)
		return false;
	*out = v << shift;
	return true;
}

/*
 * The parts to run, each as the bits of its measurements (1 << enum
 * queue_part, 1 << enum model_part; mem: 1): 0, not run.
 */
struct parts {
	unsigned int sub[NR_PARTS];
};

/*
 * The parts the arguments after the options name: commands in the order
 * of part_names, each at most once, "queue" and "model" followed by at
 * most one of their measurements; none: all. 0 or -1 (usage error).
 */
static int parse_parts(int argc, char **argv, struct parts *p)
{
	int i, part, last = -1, sub;

	for (part = 0; part < NR_PARTS; part++)
		p->sub[part] = argc == 0 ? SUB_ALL(part) : 0;
	for (i = 0; i < argc; i++) {
		/* A measurement, if the word after its part begins one. */
		if (last >= 0 && sub_parts[last].names &&
		    p->sub[last] == SUB_ALL(last) &&
		    tool_match(argv[i], sub_parts[last].names,
			       sub_parts[last].nr, NULL, 0) !=
		    TOOL_MATCH_UNKNOWN) {
			sub = match(argv[i], sub_parts[last].names,
				    sub_parts[last].nr, sub_parts[last].what);
			if (sub < 0)
				return -1;
			p->sub[last] = 1U << sub;
			continue;
		}
		part = match(argv[i], part_names, NR_PARTS, "command");
		if (part < 0)
			return -1;
		if (part <= last) {
			fprintf(stderr, "ubbench: unexpected argument: %s\n",
				argv[i]);
			return -1;
		}
		last = part;
		/* a part of no measurements (mem, ep, coll) is one */
		p->sub[part] = sub_parts[part].names ? SUB_ALL(part) : 1;
	}
	return 0;
}

/* Whether --ordered (or the launching ubbench's) asked for the ordered domain. */
bool bench_ordered(void)
{
	const char *v = getenv("UBSHMEM_ORDERED");

	return v && !strcmp(v, "1");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "exporter", required_argument, NULL, 'e' },
		{ "importer", required_argument, NULL, 'i' },
		{ "iters", required_argument, NULL, 'n' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "ep-sizes", required_argument, NULL, 's' },
		{ "json", required_argument, NULL, 'j' },
		{ "ranks", required_argument, NULL, 'r' },
		{ "placement", required_argument, NULL, 'p' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "ordered", no_argument, NULL, 'O' },
		{ "check", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *exporter = NULL, *importer = "npu1";
	struct bench b = {
		.iters = ITERS_DEFAULT,
		.tolerance = TOLERANCE_DEFAULT,
		.ep_sizes = EP_SIZES_ALL,
	};
	struct coll_opts coll = { COLL_RANKS, "spread", 0, false };
	unsigned long long n;
	struct parts parts;
	bool mem, queue;
	int opt, status;

	if (ep_rank())
		return ep_rank_main();
	while ((opt = getopt_long(argc, argv, "e:i:n:t:s:j:r:p:m:Oh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'e':
			exporter = optarg;
			break;
		case 'i':
			importer = optarg;
			break;
		case 'n':
			if (!tool_parse_uint(optarg, ITERS_MAX, &n) || n < 1) {
				fprintf(stderr, "ubbench: --iters: not a number from 1 to %d: %s\n",
					ITERS_MAX, optarg);
				return 2;
			}
			b.iters = n;
			b.iters_given = true;
			break;
		case 't':
			if (!tool_parse_uint(optarg, TOLERANCE_MAX, &n)) {
				fprintf(stderr, "ubbench: --tolerance: not a whole percent from 0 to %d: %s\n",
					TOLERANCE_MAX, optarg);
				return 2;
			}
			b.tolerance = n;
			break;
		case 's':
			b.ep_sizes = ep_parse_sizes(optarg);
			if (!b.ep_sizes) {
				fprintf(stderr, "ubbench: --ep-sizes: not a list of 8, 16, 32, 64, 128, 256: %s\n",
					optarg);
				return 2;
			}
			break;
		case 'j':
			b.json = optarg;
			break;
		case 'r':
			if (!tool_parse_uint(optarg, COLL_RANKS_MAX, &n) ||
			    n < 2) {
				fprintf(stderr, "ubbench: --ranks: not a number from 2 to %d: %s\n",
					COLL_RANKS_MAX, optarg);
				return 2;
			}
			coll.ranks = n;
			break;
		case 'p':
			coll.placement = optarg;
			break;
		case 'm':
			if (!parse_size(optarg, &coll.max_size)) {
				fprintf(stderr, "ubbench: --max-size: not a size from 8 B to 256 MiB: %s\n",
					optarg);
				return 2;
			}
			break;
		case 'O':
			/* the ranks ubrun starts inherit it */
			setenv("UBSHMEM_ORDERED", "1", 1);
			break;
		case 'C':
			coll.check = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (parse_parts(argc - optind, argv + optind, &parts)) {
		usage(stderr);
		return 2;
	}
	if (parts.sub[PART_COLL]) {
		if (parts.sub[PART_MEM] || parts.sub[PART_QUEUE] ||
		    parts.sub[PART_MODEL] || parts.sub[PART_EP]) {
			fprintf(stderr, "ubbench: coll runs alone\n");
			return 2;
		}
		return coll_main(&b, &coll, argc, argv);
	}
	if (coll.check) {
		fprintf(stderr, "ubbench: --check: only for coll\n");
		return 2;
	}
	mem = parts.sub[PART_MEM];
	queue = parts.sub[PART_QUEUE];
	if (!mem && !queue && exporter) {
		fprintf(stderr, "ubbench: --exporter: model finds its peers by topology\n");
		return 2;
	}
	if (!exporter)
		exporter = "npu0";
	if ((mem || queue) && !strcmp(exporter, importer)) {
		fprintf(stderr, "ubbench: the exporter and the importer must differ\n");
		return 2;
	}

	b.page = sysconf(_SC_PAGESIZE);
	if (((mem || queue) && open_dev(exporter, &b.exporter)) ||
	    open_dev(importer, &b.importer))
		return 1;
	/* Exit closes the devices, which frees and unexports what is left. */
	if (mem && mem_run(&b))
		return 1;
	if (queue && queue_run(&b, parts.sub[PART_QUEUE]))
		return 1;
	if (parts.sub[PART_MODEL] & 1U << MODEL_TABLE && model_run(&b))
		return 1;
	if (parts.sub[PART_MODEL] & 1U << MODEL_SPREAD && spread_run(&b))
		return 1;
	if (parts.sub[PART_EP] && ep_run(&b))
		return 1;
	if (report(&b))
		return 1;
	status = 0;
	if (model_missed(&b)) {
		fprintf(stderr, "ubbench: model: %u cells beyond %u%% of the published figures\n",
			model_missed(&b), b.tolerance);
		status = 1;
	}
	if (spread_differed(&b)) {
		fprintf(stderr, "ubbench: model spread: %u completions of the ordered domain differed between runs: a determinism bug\n",
			spread_differed(&b));
		status = 1;
	}
	return status;
}

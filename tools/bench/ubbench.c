// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench: a perftest-style benchmark of ubfab's memory semantics, run
 * where the module is loaded (make bench runs it in the test VM).
 *
 * Owns the measurements and their report: memcpy bandwidth into a peer
 * window (the exporter allocates and exports, the importer imports and
 * maps) against anonymous memory, the first-touch fault rate of anonymous
 * memory, a local mapping and a peer window, and the rate of the segment
 * import cycle; the table on stdout and the JSON file (--json). Every
 * figure is the median of --iters timed repetitions that follow one
 * untimed warm-up repetition.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "libubfab.h"

#define KiB		1024UL
#define MiB		(1024 * KiB)

/* The most values median() takes. */
#define MEDIAN_MAX	4096

/*
 * Copies: blocks over a region larger than the caches, in passes over all
 * of it until a repetition has lasted COPY_MIN_NS (at least one pass) or
 * made MEDIAN_MAX pairs; the destinations compared take turns every
 * COPY_SLICE (or block, if larger), each turn of the two making a pair.
 */
#define COPY_REGION	(16 * MiB)
#define COPY_SLICE	(1 * MiB)
#define COPY_SLICES	(COPY_REGION / COPY_SLICE)
#define COPY_MIN_NS	100000000ULL
/* The project's target: peer window / anonymous from 64 KiB up. */
#define RATIO_TARGET	0.95
#define RATIO_FROM	(64 * KiB)

/* First touch: fresh memory, the kinds taking turns every TOUCH_CHUNK. */
#define TOUCH_LENGTH	(16 * MiB)
#define TOUCH_CHUNK	(256 * KiB)
#define TOUCH_CHUNKS	(TOUCH_LENGTH / TOUCH_CHUNK)
/* Import cycle: CYCLES imports of one segment a repetition. */
#define CYCLE_LENGTH	(1 * MiB)
#define CYCLES		500

#define ITERS_DEFAULT	7
#define ITERS_MAX	1000
#define TOKEN_VALUE	0x75626662U	/* "ubfb" */
#define RIGHTS_RW	(UBFAB_SEG_READ | UBFAB_SEG_WRITE)
#define PROT_RW		(PROT_READ | PROT_WRITE)

static const size_t copy_blocks[] = { 4 * KiB, 64 * KiB, 1 * MiB };
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_BLOCKS	ARRAY_SIZE(copy_blocks)

enum touch_kind { TOUCH_ANON, TOUCH_LOCAL, TOUCH_WINDOW, NR_TOUCH };

static const char *const touch_names[NR_TOUCH] = {
	[TOUCH_ANON] = "anonymous",
	[TOUCH_LOCAL] = "local mapping",
	[TOUCH_WINDOW] = "peer window",
};

static const char *const touch_keys[NR_TOUCH] = {
	[TOUCH_ANON] = "anonymous",
	[TOUCH_LOCAL] = "local",
	[TOUCH_WINDOW] = "window",
};

/* One measured quantity: a sample per timed repetition and their median. */
struct figure {
	double *samples;
	double median;
};

struct bench {
	unsigned int iters;
	const char *json;
	struct ubfab_dev *exporter;
	struct ubfab_dev *importer;
	size_t page;

	/* Copies: the source, and the two destinations. */
	char *src;
	char *anon;
	char *window;
	/* The exporter's range behind the window. */
	uint64_t window_off;

	/*
	 * Within a repetition the things compared take turns in small steps
	 * (slices of a copy, chunks of first touches); a repetition's ratio
	 * is the median of the ratios of those turns, so that a step that
	 * something else on the machine interrupted does not count. A
	 * figure's ratio is the median of its repetitions' ratios.
	 */
	struct figure copy_anon[NR_BLOCKS];	/* GB/s */
	struct figure copy_window[NR_BLOCKS];	/* GB/s */
	struct figure copy_ratio[NR_BLOCKS];	/* window / anonymous */
	struct figure touch[NR_TOUCH];		/* faults/s */
	struct figure touch_ratio[NR_TOUCH];	/* to anonymous; not TOUCH_ANON */
	uint64_t touch_faults[NR_TOUCH];	/* over all repetitions */
	uint64_t touch_pages[NR_TOUCH];
	struct figure cycle;			/* cycles/s */
};

/* Where the figures were measured. */
struct context {
	char kernel[sizeof(((struct utsname *)0)->release)];
	char cpu[128];		/* the model */
	char thp[16];		/* transparent huge pages: always, madvise... */
	char date[32];		/* UTC, ISO 8601 */
};

/* The most figures one sample_fn measures: rates and ratios of touch. */
#define FIGS_MAX	(2 * NR_TOUCH - 1)

/*
 * Measures one repetition of the figures measure() was given, into
 * @values in their order; returns 0 or -errno.
 */
typedef int (*sample_fn)(struct bench *b, const void *arg, double *values);

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ubbench [options]\n"
		"\n"
		"Measures ubfab's memory semantics (ubfab.ko must be loaded):\n"
		"  copy         memcpy of 4 KiB, 64 KiB and 1 MiB blocks over %lu MiB\n"
		"               into a peer window and into anonymous memory, GB/s\n"
		"               and their ratio (target: >= %.2f from 64 KiB up)\n"
		"  first touch  faults/s writing fresh pages of anonymous memory,\n"
		"               a local mapping and a peer window\n"
		"  import cycle import, mmap, munmap and unimport of a segment, per s\n"
		"Each figure is the median of the timed repetitions, after one\n"
		"untimed warm-up repetition. Under QEMU TCG absolute figures are\n"
		"distorted: compare the ratios.\n"
		"\n"
		"Options:\n"
		"  -e, --exporter NAME  entity that allocates and exports (default npu0)\n"
		"  -i, --importer NAME  entity that imports and maps (default npu1)\n"
		"  -n, --iters N        timed repetitions of each figure, 1..%d\n"
		"                       (default %d)\n"
		"  -j, --json FILE      also write the results to FILE as JSON\n"
		"  -h, --help           this help\n"
		"\n"
		"Exit status: 0 measured; 1 a measurement failed; 2 usage error.\n",
		COPY_REGION / MiB, RATIO_TARGET, ITERS_MAX, ITERS_DEFAULT);
}

static void fail(const char *what, int err)
{
	fprintf(stderr, "ubbench: %s: %s\n", what, strerror(-err));
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n values, n <= MEDIAN_MAX. */
static double median(const double *samples, unsigned int n)
{
	static double sorted[MEDIAN_MAX];

	memcpy(sorted, samples, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/*
 * Runs @fn once untimed, then b->iters times, and keeps the samples of
 * its @nr figures (one value each per repetition) with their medians.
 */
static int measure(struct bench *b, sample_fn fn, const void *arg,
		   struct figure **figs, unsigned int nr)
{
	double values[FIGS_MAX];
	unsigned int rep, i;
	int err;

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

/* Anonymous memory, or NULL with errno set. */
static void *map_anon(size_t length)
{
	void *p = mmap(NULL, length, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Nanoseconds copying @length bytes in blocks of @block. */
static uint64_t copy_slice(char *dst, const char *src, size_t length,
			   size_t block)
{
	uint64_t t0 = now_ns();
	size_t off;

	for (off = 0; off < length; off += block)
		memcpy(dst + off, src + off, block);
	return now_ns() - t0;
}

/*
 * GB/s into anonymous memory and into the window, and the median of the
 * ratios of their pairs of turns. The two take turns slice by slice, each
 * going first every other slice; they copy from different halves of the
 * source, so that neither finds what it reads in the cache because the
 * other has just read it.
 */
static int copy_sample(struct bench *b, const void *arg, double *values)
{
	size_t block = *(const size_t *)arg;
	size_t slice = block > COPY_SLICE ? block : COPY_SLICE;
	char *dst[2] = { b->anon, b->window };
	uint64_t ns[2] = { 0, 0 }, turn_ns[2], bytes = 0, start = now_ns();
	static double ratios[MEDIAN_MAX];
	unsigned int pairs = 0, i, side;
	size_t off, from;

	do {
		for (off = 0; off < COPY_REGION; off += slice, pairs++) {
			for (i = 0; i < 2; i++) {
				side = (pairs + i) % 2;
				from = (off + side * COPY_REGION / 2) %
				       COPY_REGION;
				turn_ns[side] = copy_slice(dst[side] + off,
							   b->src + from,
							   slice, block);
				ns[side] += turn_ns[side];
			}
			ratios[pairs] = (double)turn_ns[0] / turn_ns[1];
		}
		bytes += COPY_REGION;
	} while (now_ns() - start < COPY_MIN_NS &&
		 pairs + COPY_SLICES <= MEDIAN_MAX);
	values[0] = (double)bytes / ns[0];
	values[1] = (double)bytes / ns[1];
	values[2] = median(ratios, pairs);
	return 0;
}

/*
 * Sets up the copies: a source and an anonymous destination, both
 * written once so that they are backed, and the peer window: the exporter
 * allocates and exports COPY_REGION, the importer imports and maps it.
 */
static int copy_setup(struct bench *b)
{
	uint64_t length;
	uint32_t token_id;
	int err;

	b->src = map_anon(COPY_REGION);
	b->anon = b->src ? map_anon(COPY_REGION) : NULL;
	if (!b->anon) {
		err = -errno;
		fail("mmap of anonymous memory", err);
		return err;
	}
	memset(b->src, 0x5a, COPY_REGION);
	memset(b->anon, 0, COPY_REGION);

	err = ubfab_dev_alloc(b->exporter, COPY_REGION, &b->window_off);
	if (err) {
		fail("alloc of the exported range", err);
		return err;
	}
	err = ubfab_dev_export(b->exporter, b->window_off, COPY_REGION,
			       RIGHTS_RW, TOKEN_VALUE, &token_id);
	if (err) {
		fail("export", err);
		return err;
	}
	err = ubfab_dev_import_map(b->importer, ubfab_dev_eid(b->exporter),
				   token_id, TOKEN_VALUE, RIGHTS_RW, PROT_RW,
				   (void **)&b->window, &length);
	if (err) {
		fail("import and map of the peer window", err);
		return err;
	}
	return 0;
}

/* The copies went to the exporter's pages: its own mapping shows them. */
static int copy_verify(struct bench *b)
{
	void *own;
	int err, diff;

	err = ubfab_dev_map(b->exporter, b->window_off, COPY_REGION,
			    PROT_READ, &own);
	if (err) {
		fail("map of the exported range", err);
		return err;
	}
	diff = memcmp(own, b->src, COPY_REGION);
	ubfab_unmap(own, COPY_REGION);
	if (diff) {
		fprintf(stderr,
			"ubbench: the exporter does not see what was copied into the window\n");
		return -EIO;
	}
	return 0;
}

static int run_copy(struct bench *b)
{
	struct figure *figs[3];
	unsigned int i;
	int err;

	err = copy_setup(b);
	for (i = 0; !err && i < NR_BLOCKS; i++) {
		figs[0] = &b->copy_anon[i];
		figs[1] = &b->copy_window[i];
		figs[2] = &b->copy_ratio[i];
		err = measure(b, copy_sample, &copy_blocks[i], figs, 3);
	}
	return err ? err : copy_verify(b);
}

/* Memory of one kind, mapped for a first-touch repetition. */
struct touch_area {
	char *p;
	uint64_t off;		/* local, window: the exporter's range */
	uint64_t mmap_offset;	/* window: the import */
};

/*
 * Imports the segment @token_id of the exporter into the importer and maps
 * it; on success the caller unmaps *addr and unimports *imp.
 */
static int import_and_map(struct bench *b, uint32_t token_id,
			  struct ubfab_import *imp, void **addr)
{
	int err;

	err = ubfab_dev_import(b->importer, ubfab_dev_eid(b->exporter),
			       token_id, TOKEN_VALUE, RIGHTS_RW, imp);
	if (err) {
		fail("import", err);
		return err;
	}
	err = ubfab_dev_map(b->importer, imp->mmap_offset, imp->length,
			    PROT_RW, addr);
	if (err) {
		fail("map of an import", err);
		ubfab_dev_unimport(b->importer, imp->mmap_offset);
	}
	return err;
}

/* Fresh anonymous memory, in small pages like the entity's memory. */
static int touch_map_anon(struct touch_area *a)
{
	int err;

	a->p = map_anon(TOUCH_LENGTH);
	if (!a->p) {
		err = -errno;
		fail("mmap of anonymous memory", err);
		return err;
	}
	if (madvise(a->p, TOUCH_LENGTH, MADV_NOHUGEPAGE)) {
		err = -errno;
		fail("madvise(MADV_NOHUGEPAGE)", err);
		munmap(a->p, TOUCH_LENGTH);
		return err;
	}
	return 0;
}

/*
 * A fresh range of the exporter, mapped by the exporter itself (local) or
 * exported and mapped by the importer (window).
 */
static int touch_map_entity(struct bench *b, enum touch_kind kind,
			    struct touch_area *a)
{
	struct ubfab_import imp;
	uint32_t token_id;
	int err;

	err = ubfab_dev_alloc(b->exporter, TOUCH_LENGTH, &a->off);
	if (err) {
		fail("alloc", err);
		return err;
	}
	if (kind == TOUCH_LOCAL) {
		err = ubfab_dev_map(b->exporter, a->off, TOUCH_LENGTH, PROT_RW,
				    (void **)&a->p);
		if (err)
			fail("map of a local range", err);
	} else {
		err = ubfab_dev_export(b->exporter, a->off, TOUCH_LENGTH,
				       RIGHTS_RW, TOKEN_VALUE, &token_id);
		if (err)
			fail("export", err);
		else
			err = import_and_map(b, token_id, &imp,
					     (void **)&a->p);
		if (!err)
			a->mmap_offset = imp.mmap_offset;
	}
	/* Freeing unexports too. */
	if (err)
		ubfab_dev_free(b->exporter, a->off);
	return err;
}

static int touch_map(struct bench *b, enum touch_kind kind,
		     struct touch_area *a)
{
	return kind == TOUCH_ANON ? touch_map_anon(a) :
				    touch_map_entity(b, kind, a);
}

static void touch_unmap(struct bench *b, enum touch_kind kind,
			struct touch_area *a)
{
	munmap(a->p, TOUCH_LENGTH);
	if (kind == TOUCH_WINDOW)
		ubfab_dev_unimport(b->importer, a->mmap_offset);
	if (kind != TOUCH_ANON)
		ubfab_dev_free(b->exporter, a->off);
}

/*
 * Writes one byte to each page of TOUCH_CHUNK at @p; adds the time and the
 * faults that took to *ns and *faults and returns the faults per second.
 */
static double touch_chunk(struct bench *b, char *p, uint64_t *ns,
			  uint64_t *faults)
{
	uint64_t t0, t1, f0, f1;
	size_t off;

	f0 = minor_faults();
	t0 = now_ns();
	for (off = 0; off < TOUCH_CHUNK; off += b->page)
		p[off] = 1;
	t1 = now_ns();
	f1 = minor_faults();
	*ns += t1 - t0;
	*faults += f1 - f0;
	return (f1 - f0) * 1e9 / (t1 - t0);
}

/*
 * Faults/s of each kind, then the medians of the ratios of the local
 * mapping's and the window's rates to anonymous memory's, chunk by chunk.
 * The kinds take turns every chunk, in an order that rotates; only the
 * writes are timed.
 */
static int touch_sample(struct bench *b, const void *arg, double *values)
{
	uint64_t ns[NR_TOUCH] = { 0 }, faults[NR_TOUCH] = { 0 };
	double rate[NR_TOUCH], ratios[NR_TOUCH - 1][TOUCH_CHUNKS];
	struct touch_area area[NR_TOUCH];
	unsigned int chunk, i, kind;
	size_t off;
	int err;

	(void)arg;
	for (kind = 0; kind < NR_TOUCH; kind++) {
		err = touch_map(b, kind, &area[kind]);
		if (err)
			goto out_unmap;
	}
	for (chunk = 0; chunk < TOUCH_CHUNKS; chunk++) {
		off = chunk * TOUCH_CHUNK;
		for (i = 0; i < NR_TOUCH; i++) {
			kind = (chunk + i) % NR_TOUCH;
			rate[kind] = touch_chunk(b, area[kind].p + off,
						 &ns[kind], &faults[kind]);
		}
		for (kind = TOUCH_LOCAL; kind < NR_TOUCH; kind++)
			ratios[kind - 1][chunk] = rate[kind] / rate[TOUCH_ANON];
	}
	for (kind = 0; kind < NR_TOUCH; kind++) {
		values[kind] = faults[kind] * 1e9 / ns[kind];
		b->touch_faults[kind] += faults[kind];
		b->touch_pages[kind] += TOUCH_LENGTH / b->page;
	}
	for (kind = TOUCH_LOCAL; kind < NR_TOUCH; kind++)
		values[NR_TOUCH + kind - 1] = median(ratios[kind - 1],
						     TOUCH_CHUNKS);
out_unmap:
	while (kind--)
		touch_unmap(b, kind, &area[kind]);
	return err;
}

static int run_touch(struct bench *b)
{
	struct figure *figs[FIGS_MAX];
	unsigned int kind;

	for (kind = 0; kind < NR_TOUCH; kind++)
		figs[kind] = &b->touch[kind];
	for (kind = TOUCH_LOCAL; kind < NR_TOUCH; kind++)
		figs[NR_TOUCH + kind - 1] = &b->touch_ratio[kind];
	return measure(b, touch_sample, NULL, figs, FIGS_MAX);
}

static int cycle_sample(struct bench *b, const void *arg, double *values)
{
	uint32_t token_id = *(const uint32_t *)arg;
	struct ubfab_import imp;
	uint64_t t0, t1;
	unsigned int i;
	void *p;
	int err;

	t0 = now_ns();
	for (i = 0; i < CYCLES; i++) {
		err = import_and_map(b, token_id, &imp, &p);
		if (err)
			return err;
		ubfab_unmap(p, imp.length);
		err = ubfab_dev_unimport(b->importer, imp.mmap_offset);
		if (err) {
			fail("unimport", err);
			return err;
		}
	}
	t1 = now_ns();
	values[0] = CYCLES * 1e9 / (t1 - t0);
	return 0;
}

static int run_cycle(struct bench *b)
{
	struct figure *fig = &b->cycle;
	uint32_t token_id;
	uint64_t off;
	int err;

	err = ubfab_dev_alloc(b->exporter, CYCLE_LENGTH, &off);
	if (err) {
		fail("alloc", err);
		return err;
	}
	err = ubfab_dev_export(b->exporter, off, CYCLE_LENGTH, RIGHTS_RW,
			       TOKEN_VALUE, &token_id);
	if (err)
		fail("export", err);
	else
		err = measure(b, cycle_sample, &token_id, &fig, 1);
	ubfab_dev_free(b->exporter, off);
	return err;
}

/* Whether the copy of block i met the target: 1 or 0; -1: none applies. */
static int copy_met(const struct bench *b, unsigned int i)
{
	if (copy_blocks[i] < RATIO_FROM)
		return -1;
	return b->copy_ratio[i].median >= RATIO_TARGET;
}

static double faults_per_page(const struct bench *b, enum touch_kind kind)
{
	return (double)b->touch_faults[kind] / b->touch_pages[kind];
}

static void block_name(size_t block, char *buf, size_t len)
{
	if (block >= MiB)
		snprintf(buf, len, "%zu MiB", block / MiB);
	else
		snprintf(buf, len, "%zu KiB", block / KiB);
}

/*
 * The value of "model name" in /proc/cpuinfo, or "unknown"; quotes,
 * backslashes and control characters become ' so that it is a JSON string.
 */
static void cpu_model(char *buf, size_t len)
{
	char line[256], *colon, *c;
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
	for (c = buf; *c; c++)
		if (*c == '"' || *c == '\\' || (unsigned char)*c < ' ')
			*c = '\'';
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
	char name[24];
	unsigned int i;
	double rate;
	int met;

	printf("ubbench: kernel %s, cpu \"%s\", transparent huge pages %s\n",
	       ctx->kernel, ctx->cpu, ctx->thp);
	printf("exporter %s (eid %u), importer %s (eid %u); median of %u repetitions after a warm-up\n",
	       ubfab_dev_name(b->exporter), ubfab_dev_eid(b->exporter),
	       ubfab_dev_name(b->importer), ubfab_dev_eid(b->importer),
	       b->iters);
	printf("note: under QEMU TCG (the test VM) absolute figures are distorted: compare the ratios\n\n");

	printf("copy: memcpy over %lu MiB, in turns of %lu MiB, at least %llu ms a repetition\n",
	       COPY_REGION / MiB, COPY_SLICE / MiB, COPY_MIN_NS / 1000000);
	printf("  %-8s %12s %12s %8s  %s\n", "block", "anon GB/s",
	       "window GB/s", "ratio", "target >= 0.95 from 64 KiB");
	for (i = 0; i < NR_BLOCKS; i++) {
		block_name(copy_blocks[i], name, sizeof(name));
		met = copy_met(b, i);
		printf("  %-8s %12.3f %12.3f %8.3f  %s\n", name,
		       b->copy_anon[i].median, b->copy_window[i].median,
		       b->copy_ratio[i].median,
		       met < 0 ? "-" : met ? "PASS" : "MISS");
	}

	printf("\nfirst touch: a write to each page of %lu MiB fresh memory (anonymous: small pages)\n",
	       TOUCH_LENGTH / MiB);
	printf("  %-14s %12s %10s %12s %14s\n", "mapping", "faults/s",
	       "us/fault", "faults/page", "vs anonymous");
	for (i = 0; i < NR_TOUCH; i++) {
		rate = b->touch[i].median;
		printf("  %-14s %12.0f %10.2f %12.2f %14.3f\n", touch_names[i],
		       rate, 1e6 / rate, faults_per_page(b, i),
		       i == TOUCH_ANON ? 1 : b->touch_ratio[i].median);
	}

	printf("\nimport cycle: import, mmap, munmap, unimport of a %lu MiB segment, %d a repetition\n",
	       CYCLE_LENGTH / MiB, CYCLES);
	printf("  %12.0f cycles/s %10.2f us/cycle\n", b->cycle.median,
	       1e6 / b->cycle.median);
}

static void json_figure(FILE *f, const char *key, const struct figure *fig,
			unsigned int n)
{
	unsigned int i;

	fprintf(f, "\"%s\": {\"median\": %.6g, \"samples\": [", key,
		fig->median);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.6g", i ? ", " : "", fig->samples[i]);
	fprintf(f, "]}");
}

static int write_json(const struct bench *b, const struct context *ctx)
{
	unsigned int i;
	FILE *f;
	int met;

	f = fopen(b->json, "w");
	if (!f) {
		fail(b->json, -errno);
		return -errno;
	}
	fprintf(f, "{\n  \"tool\": \"ubbench\",\n  \"date\": \"%s\",\n",
		ctx->date);
	fprintf(f, "  \"kernel\": \"%s\",\n  \"cpu\": \"%s\",\n  \"thp\": \"%s\",\n",
		ctx->kernel, ctx->cpu, ctx->thp);
	fprintf(f, "  \"exporter\": {\"name\": \"%s\", \"eid\": %u},\n",
		ubfab_dev_name(b->exporter), ubfab_dev_eid(b->exporter));
	fprintf(f, "  \"importer\": {\"name\": \"%s\", \"eid\": %u},\n",
		ubfab_dev_name(b->importer), ubfab_dev_eid(b->importer));
	fprintf(f, "  \"iters\": %u,\n", b->iters);

	fprintf(f, "  \"copy\": {\n    \"region_bytes\": %lu, \"min_ns\": %llu, \"unit\": \"GB/s\",\n",
		COPY_REGION, COPY_MIN_NS);
	fprintf(f, "    \"target\": {\"ratio\": %.2f, \"from_bytes\": %lu},\n",
		RATIO_TARGET, RATIO_FROM);
	fprintf(f, "    \"blocks\": [\n");
	for (i = 0; i < NR_BLOCKS; i++) {
		met = copy_met(b, i);
		fprintf(f, "      {\"bytes\": %zu, ", copy_blocks[i]);
		json_figure(f, "anonymous", &b->copy_anon[i], b->iters);
		fprintf(f, ", ");
		json_figure(f, "window", &b->copy_window[i], b->iters);
		fprintf(f, ", ");
		json_figure(f, "ratio", &b->copy_ratio[i], b->iters);
		fprintf(f, ", \"met\": %s}%s\n",
			met < 0 ? "null" : met ? "true" : "false",
			i + 1 < NR_BLOCKS ? "," : "");
	}
	fprintf(f, "    ]\n  },\n");

	fprintf(f, "  \"first_touch\": {\n    \"bytes\": %lu, \"unit\": \"faults/s\",\n",
		TOUCH_LENGTH);
	for (i = 0; i < NR_TOUCH; i++) {
		fprintf(f, "    \"%s\": {", touch_keys[i]);
		json_figure(f, "rate", &b->touch[i], b->iters);
		if (i != TOUCH_ANON) {
			fprintf(f, ", ");
			json_figure(f, "vs_anonymous", &b->touch_ratio[i],
				    b->iters);
		}
		fprintf(f, ", \"faults_per_page\": %.4f}%s\n",
			faults_per_page(b, i), i + 1 < NR_TOUCH ? "," : "");
	}
	fprintf(f, "  },\n");

	fprintf(f, "  \"import_cycle\": {\"segment_bytes\": %lu, \"cycles\": %d, \"unit\": \"cycles/s\", ",
		CYCLE_LENGTH, CYCLES);
	json_figure(f, "rate", &b->cycle, b->iters);
	fprintf(f, "}\n}\n");
	if (fclose(f)) {
		fail(b->json, -errno);
		return -errno;
	}
	return 0;
}

static int report(const struct bench *b)
{
	struct context ctx;
	struct utsname uts;
	time_t t = time(NULL);

	uname(&uts);
	snprintf(ctx.kernel, sizeof(ctx.kernel), "%s", uts.release);
	cpu_model(ctx.cpu, sizeof(ctx.cpu));
	thp_mode(ctx.thp, sizeof(ctx.thp));
	strftime(ctx.date, sizeof(ctx.date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	print_table(b, &ctx);
	return b->json ? write_json(b, &ctx) : 0;
}

static int alloc_figures(struct bench *b)
{
	struct figure *all[3 * NR_BLOCKS + FIGS_MAX + 1];
	unsigned int i, n = 0;

	for (i = 0; i < NR_BLOCKS; i++) {
		all[n++] = &b->copy_anon[i];
		all[n++] = &b->copy_window[i];
		all[n++] = &b->copy_ratio[i];
	}
	for (i = 0; i < NR_TOUCH; i++)
		all[n++] = &b->touch[i];
	for (i = TOUCH_LOCAL; i < NR_TOUCH; i++)
		all[n++] = &b->touch_ratio[i];
	all[n++] = &b->cycle;
	for (i = 0; i < n; i++) {
		all[i]->samples = calloc(b->iters, sizeof(double));
		if (!all[i]->samples)
			return -ENOMEM;
	}
	return 0;
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "exporter", required_argument, NULL, 'e' },
		{ "importer", required_argument, NULL, 'i' },
		{ "iters", required_argument, NULL, 'n' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *exporter = "npu0", *importer = "npu1";
	struct bench b = { .iters = ITERS_DEFAULT };
	unsigned long n;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "e:i:n:j:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'e':
			exporter = optarg;
			break;
		case 'i':
			importer = optarg;
			break;
		case 'n':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || n < 1 ||
			    n > ITERS_MAX) {
				fprintf(stderr, "ubbench: --iters: not a number from 1 to %d: %s\n",
					ITERS_MAX, optarg);
				return 2;
			}
			b.iters = n;
			break;
		case 'j':
			b.json = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ubbench: unexpected argument: %s\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!strcmp(exporter, importer)) {
		fprintf(stderr, "ubbench: the exporter and the importer must differ\n");
		return 2;
	}

	b.page = sysconf(_SC_PAGESIZE);
	if (alloc_figures(&b)) {
		fail("allocating the samples", -ENOMEM);
		return 1;
	}
	if (open_dev(exporter, &b.exporter) || open_dev(importer, &b.importer))
		return 1;
	/* Exit closes the devices, which frees and unexports what is left. */
	if (run_copy(&b) || run_touch(&b) || run_cycle(&b) || report(&b))
		return 1;
	return 0;
}

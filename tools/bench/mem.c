// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench mem: the memory semantics. memcpy bandwidth into a peer window
 * (the exporter allocates and exports, the importer imports and maps)
 * against anonymous memory, the first-touch fault rate of anonymous
 * memory, a local mapping and a peer window, and the rate of the segment
 * import cycle; their table and their JSON.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "num.h"
#include "ubbench.h"

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

static const size_t copy_blocks[] = { 4 * KiB, 64 * KiB, 1 * MiB };
#define NR_BLOCKS	ARRAY_SIZE(copy_blocks)

enum touch_kind { TOUCH_ANON, TOUCH_LOCAL, TOUCH_WINDOW, NR_TOUCH };
/* First touch measures the rate of each kind and the ratios to anonymous. */
#define TOUCH_FIGS	(2 * NR_TOUCH - 1)

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

struct mem_bench {
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

static uint64_t minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
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
	char *dst[2] = { b->mem->anon, b->mem->window };
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
							   b->mem->src + from,
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
 * All three are mapped apart (map_apart()).
 */
static int copy_setup(struct bench *b)
{
	struct ubfab_import imp;
	uint32_t token_id;
	int err;

	b->mem->src = map_apart(COPY_REGION, -1, 0);
	b->mem->anon = b->mem->src ? map_apart(COPY_REGION, -1, 0) : NULL;
	if (!b->mem->anon) {
		err = -errno;
		fail("mmap of anonymous memory", err);
		return err;
	}
	memset(b->mem->src, 0x5a, COPY_REGION);
	memset(b->mem->anon, 0, COPY_REGION);

	err = ubfab_dev_alloc(b->exporter, COPY_REGION, &b->mem->window_off);
	if (err) {
		fail("alloc of the exported range", err);
		return err;
	}
	err = ubfab_dev_export(b->exporter, b->mem->window_off, COPY_REGION,
			       RIGHTS_RW, TOKEN_VALUE, &token_id);
	if (err) {
		fail("export", err);
		return err;
	}
	return import_and_map(b, token_id, true, &imp,
			      (void **)&b->mem->window);
}

/* The copies went to the exporter's pages: its own mapping shows them. */
static int copy_verify(struct bench *b)
{
	void *own;
	int err, diff;

	err = ubfab_dev_map(b->exporter, b->mem->window_off, COPY_REGION,
			    PROT_READ, &own);
	if (err) {
		fail("map of the exported range", err);
		return err;
	}
	diff = memcmp(own, b->mem->src, COPY_REGION);
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
		figs[0] = &b->mem->copy_anon[i];
		figs[1] = &b->mem->copy_window[i];
		figs[2] = &b->mem->copy_ratio[i];
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
			err = import_and_map(b, token_id, false, &imp,
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
		b->mem->touch_faults[kind] += faults[kind];
		b->mem->touch_pages[kind] += TOUCH_LENGTH / b->page;
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
	struct figure *figs[TOUCH_FIGS];
	unsigned int kind;

	for (kind = 0; kind < NR_TOUCH; kind++)
		figs[kind] = &b->mem->touch[kind];
	for (kind = TOUCH_LOCAL; kind < NR_TOUCH; kind++)
		figs[NR_TOUCH + kind - 1] = &b->mem->touch_ratio[kind];
	return measure(b, touch_sample, NULL, figs, TOUCH_FIGS);
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
		err = import_and_map(b, token_id, false, &imp, &p);
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
	struct figure *fig = &b->mem->cycle;
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
	return b->mem->copy_ratio[i].median >= RATIO_TARGET;
}

static double faults_per_page(const struct bench *b, enum touch_kind kind)
{
	return (double)b->mem->touch_faults[kind] / b->mem->touch_pages[kind];
}

int mem_run(struct bench *b)
{
	b->mem = calloc(1, sizeof(*b->mem));
	if (!b->mem) {
		fail("allocating the memory figures", -ENOMEM);
		return -ENOMEM;
	}
	if (run_copy(b) || run_touch(b) || run_cycle(b))
		return -EIO;
	return 0;
}

void mem_print(const struct bench *b)
{
	char name[24];
	unsigned int i;
	double rate;
	int met;

	printf("copy: memcpy over %lu MiB, in turns of %lu MiB, at least %llu ms a repetition\n",
	       COPY_REGION / MiB, COPY_SLICE / MiB, COPY_MIN_NS / 1000000);
	printf("  %-8s %12s %12s %8s  %s\n", "block", "anon GB/s",
	       "window GB/s", "ratio", "target >= 0.95 from 64 KiB");
	for (i = 0; i < NR_BLOCKS; i++) {
		tool_fmt_size(name, sizeof(name), copy_blocks[i], " ");
		met = copy_met(b, i);
		printf("  %-8s %12.3f %12.3f %8.3f  %s\n", name,
		       b->mem->copy_anon[i].median,
		       b->mem->copy_window[i].median,
		       b->mem->copy_ratio[i].median, pass_miss(met));
	}

	printf("\nfirst touch: a write to each page of %lu MiB fresh memory (anonymous: small pages)\n",
	       TOUCH_LENGTH / MiB);
	printf("  %-14s %12s %10s %12s %14s\n", "mapping", "faults/s",
	       "us/fault", "faults/page", "vs anonymous");
	for (i = 0; i < NR_TOUCH; i++) {
		rate = b->mem->touch[i].median;
		printf("  %-14s %12.0f %10.2f %12.2f %14.3f\n", touch_names[i],
		       rate, 1e6 / rate, faults_per_page(b, i),
		       i == TOUCH_ANON ? 1 : b->mem->touch_ratio[i].median);
	}

	printf("\nimport cycle: import, mmap, munmap, unimport of a %lu MiB segment, %d a repetition\n",
	       CYCLE_LENGTH / MiB, CYCLES);
	printf("  %12.0f cycles/s %10.2f us/cycle\n", b->mem->cycle.median,
	       1e6 / b->mem->cycle.median);
}

void mem_json(const struct bench *b, struct json *j)
{
	unsigned int i;
	int met;

	json_break(j);
	json_object_begin(j, "copy");
	json_break(j);
	json_uint(j, "region_bytes", COPY_REGION);
	json_uint(j, "min_ns", COPY_MIN_NS);
	json_string(j, "unit", "GB/s");
	json_break(j);
	json_object_begin(j, "target");
	json_fixed(j, "ratio", RATIO_TARGET, 2);
	json_uint(j, "from_bytes", RATIO_FROM);
	json_object_end(j);
	json_break(j);
	json_array_begin(j, "blocks");
	for (i = 0; i < NR_BLOCKS; i++) {
		met = copy_met(b, i);
		json_break(j);
		json_object_begin(j, NULL);
		json_uint(j, "bytes", copy_blocks[i]);
		json_figure(j, "anonymous", &b->mem->copy_anon[i], b->iters);
		json_figure(j, "window", &b->mem->copy_window[i], b->iters);
		json_figure(j, "ratio", &b->mem->copy_ratio[i], b->iters);
		if (met < 0)
			json_null(j, "met");
		else
			json_bool(j, "met", met);
		json_object_end(j);
	}
	json_break(j);
	json_array_end(j);
	json_break(j);
	json_object_end(j);

	json_break(j);
	json_object_begin(j, "first_touch");
	json_break(j);
	json_uint(j, "bytes", TOUCH_LENGTH);
	json_string(j, "unit", "faults/s");
	for (i = 0; i < NR_TOUCH; i++) {
		json_break(j);
		json_object_begin(j, touch_keys[i]);
		json_figure(j, "rate", &b->mem->touch[i], b->iters);
		if (i != TOUCH_ANON)
			json_figure(j, "vs_anonymous", &b->mem->touch_ratio[i],
				    b->iters);
		json_fixed(j, "faults_per_page", faults_per_page(b, i), 4);
		json_object_end(j);
	}
	json_break(j);
	json_object_end(j);

	json_break(j);
	json_object_begin(j, "import_cycle");
	json_uint(j, "segment_bytes", CYCLE_LENGTH);
	json_uint(j, "cycles", CYCLES);
	json_string(j, "unit", "cycles/s");
	json_figure(j, "rate", &b->mem->cycle, b->iters);
	json_object_end(j);
}

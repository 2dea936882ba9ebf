// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench ep: MoE expert-parallel dispatch and combine (libubshmem's
 * ubshmem_ep_*) at EP 8 .. 256. For each EP size the parent starts that
 * many ranks of ubbench itself under ubrun (spread over the nodes), with
 * UBBENCH_EP_RANK in their environment; each rank runs an untimed step
 * and --iters timed steps of 128 tokens, hidden 7,168, top-8 over 256
 * experts (DeepSeek-V3's), random routing from a fixed seed, and prints
 * the medians of its modeled and host times and its bytes; the parent
 * reads them back from ubrun's output and makes the table and the JSON.
 * Sizes whose payload would not fit in memory run timing-only.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ubbench.h"
#include "ubshmem_ep.h"

#define EP_TOKENS	128
#define EP_HIDDEN	7168
#define EP_TOPK		8
#define EP_EXPERTS	256
#define EP_SEED		0x5eedULL
/* A token's record: header, INT8 payload, scales, padded (ubshmem_ep.h). */
#define EP_REC		((sizeof(struct ubshmem_ep_token) + EP_HIDDEN + \
			  EP_HIDDEN / UBSHMEM_EP_GROUP * sizeof(float) + \
			  UBSHMEM_EP_ALIGN - 1) / UBSHMEM_EP_ALIGN * \
			 UBSHMEM_EP_ALIGN)
#define EP_ENV		"UBBENCH_EP_RANK"
/* A rank's result line: "ep RANK" and the EP_FIGS figures. */
#define EP_LINE		"ep-rank"

static const unsigned int ep_sizes[] = { 8, 16, 32, 64, 128, 256 };

enum { FIG_D_NS, FIG_C_NS, FIG_D_US, FIG_C_US, FIG_D_BYTES, FIG_C_BYTES,
       EP_FIGS };

struct ep_row {
	unsigned int n;
	bool skipped;		/* more ranks than NPU dies */
	bool timing;		/* timing-only: no payload moved */
	uint64_t heap;		/* UBSHMEM_HEAP_SIZE of each rank */
	double mean[EP_FIGS];	/* over ranks, of each rank's median */
	double max[EP_FIGS];
};

struct ep_bench {
	unsigned int nrows;	/* of the sizes asked for */
	unsigned int dies;
	uint64_t mem_avail;
	struct ep_row rows[ARRAY_SIZE(ep_sizes)];
};

static double gbps(double bytes, double ns)
{
	return ns > 0 ? bytes / ns : 0;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t x = (*s += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Random distinct top-k experts for every token, weights 1/k. */
static void route(int32_t *experts, float *weights, uint64_t *s)
{
	unsigned int t, k, j;

	for (t = 0; t < EP_TOKENS; t++) {
		for (k = 0; k < EP_TOPK; k++) {
			int32_t e;

			do {
				e = splitmix(s) % EP_EXPERTS;
				for (j = 0; j < k && experts[t * EP_TOPK + j] != e; j++)
					;
			} while (j < k);
			experts[t * EP_TOPK + k] = e;
			weights[t * EP_TOPK + k] = 1.0f / EP_TOPK;
		}
	}
}

/* Bytes this rank's dispatch sends: a record per token and PE it goes to. */
static double dispatch_bytes(const int32_t *experts, int n, size_t rec)
{
	unsigned int t, k, epp = EP_EXPERTS / n;
	double bytes = 0;
	int pe, hit;

	for (t = 0; t < EP_TOKENS; t++) {
		for (pe = 0; pe < n; pe++) {
			for (k = 0, hit = 0; k < EP_TOPK; k++)
				hit |= experts[t * EP_TOPK + k] / (int)epp == pe;
			bytes += hit ? rec : 0;
		}
	}
	return bytes;
}

/* A rank: its steps, then one result line. */
int ep_rank_main(void)
{
	struct ubshmem_ep_attr a = { .max_tokens = EP_TOKENS,
				     .hidden = EP_HIDDEN, .top_k = EP_TOPK };
	unsigned int iters = atoi(getenv(EP_ENV)), i, f;
	static double fig[EP_FIGS][MEDIAN_MAX];
	int32_t experts[EP_TOKENS * EP_TOPK];
	float weights[EP_TOKENS * EP_TOPK];
	struct ubshmem_ep *ep;
	int8_t *x = calloc(EP_TOKENS, EP_HIDDEN);
	float *scales = calloc(EP_TOKENS * EP_HIDDEN / UBSHMEM_EP_GROUP,
			       sizeof(float));
	uint16_t *out = calloc(EP_TOKENS * EP_HIDDEN, sizeof(uint16_t));
	uint64_t s, t0;
	int err, me, n;
	double dus = 0;

	err = ubshmem_init();
	if (err) {
		fail("ep: ubshmem_init", err);
		return 1;
	}
	me = ubshmem_my_pe();
	n = ubshmem_n_pes();
	a.experts_per_pe = EP_EXPERTS / n;
	if (!x || !scales || !out || !iters || iters > MEDIAN_MAX) {
		fail("ep", -EINVAL);
		return 1;
	}
	err = ubshmem_ep_create(&a, &ep);
	if (err) {
		fail("ep: ubshmem_ep_create", err);
		return 1;
	}
	s = EP_SEED ^ (uint64_t)me << 32;
	for (i = 0; i < EP_TOKENS * EP_HIDDEN; i++)
		x[i] = splitmix(&s);
	for (i = 0; i < EP_TOKENS * EP_HIDDEN / UBSHMEM_EP_GROUP; i++)
		scales[i] = 1.0f / 64;
	/* one untimed step, then the timed ones */
	for (i = 0; i <= iters && !err; i++) {
		route(experts, weights, &s);
		ubshmem_barrier_all();
		t0 = now_ns();
		err = ubshmem_ep_dispatch(ep, EP_TOKENS, x, scales, experts);
		if (err)
			break;
		dus = (now_ns() - t0) / 1e3;
		ubshmem_barrier_all();
		t0 = now_ns();
		err = ubshmem_ep_combine(ep, weights, out);
		if (!i)
			continue;
		fig[FIG_D_US][i - 1] = dus;
		fig[FIG_C_US][i - 1] = (now_ns() - t0) / 1e3;
		fig[FIG_D_NS][i - 1] = ubshmem_ep_dispatch_ns(ep);
		fig[FIG_C_NS][i - 1] = ubshmem_ep_combine_ns(ep);
		fig[FIG_D_BYTES][i - 1] = dispatch_bytes(experts, n, EP_REC);
		/* every output of its tokens comes home */
		fig[FIG_C_BYTES][i - 1] = (double)EP_TOKENS * EP_TOPK *
					  EP_HIDDEN * sizeof(uint16_t);
	}
	if (err) {
		fail("ep: step", err);
		return 1;
	}
	printf(EP_LINE " %d", me);
	for (f = 0; f < EP_FIGS; f++)
		printf(" %.3f", median(fig[f], iters));
	printf("\n");
	ubshmem_ep_destroy(ep);
	return ubshmem_finalize() ? 1 : 0;
}

static int count_npu(const struct ubfab_entity_info *e, void *arg)
{
	*(unsigned int *)arg += e->kind == UBFAB_ENTITY_NPU;
	return 0;
}

/* MemAvailable of /proc/meminfo in bytes; 0 if unknown. */
static uint64_t mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/*
 * The entity memory a rank's payload touches in a step, about: its
 * tokens' records, the outputs of its tokens (both buffers), the records
 * and outputs of about as many received tokens and pairs.
 */
static uint64_t payload_per_rank(size_t rec)
{
	uint64_t row = EP_HIDDEN * sizeof(uint16_t);

	return EP_TOKENS * (rec + EP_TOPK * (3 * row + 2 * rec));
}

/* ubrun beside this program, else the one in PATH. */
static void ubrun_path(char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = '\0';
	snprintf(path, len, "%s/ubrun", dirname(self));
	if (access(path, X_OK))
		snprintf(path, len, "ubrun");
}

/* One EP size: ubrun's job, its ranks' lines read into @row. */
static int run_size(struct bench *b, struct ep_row *row)
{
	char cmd[2 * PATH_MAX + 128], ubrun[PATH_MAX], self[PATH_MAX];
	char line[512], env[32];
	unsigned int got = 0, f;
	ssize_t n;
	FILE *p;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	ubrun_path(ubrun, sizeof(ubrun));
	snprintf(env, sizeof(env), "%u", b->iters);
	setenv(EP_ENV, env, 1);
	snprintf(env, sizeof(env), "%lluM",
		 (unsigned long long)(row->heap >> 20));
	setenv("UBSHMEM_HEAP_SIZE", env, 1);
	setenv("UBSHMEM_TIMING", row->timing ? "1" : "0", 1);
	snprintf(cmd, sizeof(cmd), "exec '%s' -n %u --placement=spread '%s'",
		 ubrun, row->n, self);
	fflush(stdout);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	for (f = 0; f < EP_FIGS; f++)
		row->mean[f] = row->max[f] = 0;
	while (fgets(line, sizeof(line), p)) {
		double v[EP_FIGS];
		int rank;

		if (sscanf(line, "[%*d] " EP_LINE " %d %lf %lf %lf %lf %lf %lf",
			   &rank, &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5]) != 1 + EP_FIGS)
			continue;
		got++;
		for (f = 0; f < EP_FIGS; f++) {
			row->mean[f] += v[f] / row->n;
			if (v[f] > row->max[f])
				row->max[f] = v[f];
		}
	}
	if (pclose(p) || got != row->n) {
		fprintf(stderr, "ubbench: ep %u: %u of %u ranks reported\n",
			row->n, got, row->n);
		return -EIO;
	}
	return 0;
}

int ep_run(struct bench *b)
{
	struct ubshmem_ep_attr a = { .max_tokens = EP_TOKENS,
				     .hidden = EP_HIDDEN, .top_k = EP_TOPK };
	struct ubfab_nl *nl;
	struct ep_bench *eb;
	unsigned int i;
	int err;

	eb = calloc(1, sizeof(*eb));
	if (!eb)
		return -ENOMEM;
	b->ep = eb;
	err = nl_open(&nl);
	if (err)
		return err;
	err = entities_dump(nl, count_npu, &eb->dies);
	ubfab_nl_close(nl);
	if (err)
		return err;
	eb->mem_avail = mem_available();
	for (i = 0; i < ARRAY_SIZE(ep_sizes); i++) {
		struct ep_row *row;

		if (!(b->ep_sizes & ep_sizes[i]))
			continue;
		row = &eb->rows[eb->nrows++];
		row->n = ep_sizes[i];
		row->skipped = row->n > eb->dies;
		if (row->skipped)
			continue;
		a.experts_per_pe = EP_EXPERTS / row->n;
		/* the heap: what the context needs, in MiB, 1 to spare */
		row->heap = ((ubshmem_ep_heap_size(&a, row->n) >> 20) + 2) << 20;
		row->timing = payload_per_rank(EP_REC) * row->n >
			      eb->mem_avail / 2;
		err = run_size(b, row);
		if (err)
			return err;
	}
	return 0;
}

/* A figure's mean over the ranks and its largest, in a column each. */
static void print_pair(const struct ep_row *row, int fig, int decimals)
{
	printf(" %10.*f %10.*f", decimals, row->mean[fig], decimals,
	       row->max[fig]);
}

void ep_print(const struct bench *b)
{
	const struct ep_bench *eb = b->ep;
	unsigned int i;

	printf("ep: MoE dispatch and combine (libubshmem ubshmem_ep_*), ranks spread over the nodes of %u NPU dies; %d tokens a rank, hidden %d, top-%d of %d experts; dispatch INT8 + FP32 scales a 128-group (7680-byte records), combine BF16 (%d bytes a token-expert)\n",
	       eb->dies, EP_TOKENS, EP_HIDDEN, EP_TOPK, EP_EXPERTS,
	       EP_HIDDEN * 2);
	printf("model order: %s\n", bench_ordered() ?
	       "ordered domain (modeled times the same in every run)" :
	       "fast mode (modeled times vary from run to run)");
	printf("per rank: its median of %u steps after a warm-up, then the mean over the ranks and the largest; model ns: the fabric model's time of the call on the rank's queue (memory-semantics class, UBFAB_SQE_MEMSEM); host us: wall time of the call; GB/s (10^9 B/s): dispatch the bytes the rank sends, combine the bytes its tokens get back, over the model ns\n",
	       b->iters);
	printf("%4s %-7s %10s %10s %7s %10s %10s %10s %10s %7s %10s %10s\n",
	       "EP", "payload", "disp ns", "max ns", "GB/s", "host us",
	       "max us", "comb ns", "max ns", "GB/s", "host us", "max us");
	for (i = 0; i < eb->nrows; i++) {
		const struct ep_row *row = &eb->rows[i];

		if (row->skipped) {
			printf("%4u skipped: more ranks than the fabric's %u NPU dies (load ubfab.ko with profile=cm384)\n",
			       row->n, eb->dies);
			continue;
		}
		printf("%4u %-7s", row->n, row->timing ? "timing" : "moved");
		print_pair(row, FIG_D_NS, 0);
		printf(" %7.2f", gbps(row->mean[FIG_D_BYTES],
				      row->mean[FIG_D_NS]));
		print_pair(row, FIG_D_US, 0);
		print_pair(row, FIG_C_NS, 0);
		printf(" %7.2f", gbps(row->mean[FIG_C_BYTES],
				      row->mean[FIG_C_NS]));
		print_pair(row, FIG_C_US, 0);
		printf("\n");
	}
	printf("payload \"timing\": timing-only queues (UBSHMEM_TIMING=1): modeled as any, but no payload moved, since the ranks' payload (about %llu MiB each) would not fit in half of MemAvailable (%llu MiB)\n",
	       (unsigned long long)(payload_per_rank(EP_REC) >> 20),
	       (unsigned long long)(eb->mem_avail >> 20));
}

static void json_call(struct json *j, const char *key,
		      const struct ep_row *row, int ns, int us, int bytes)
{
	json_break(j);
	json_object_begin(j, key);
	json_fixed(j, "model_ns", row->mean[ns], 0);
	json_fixed(j, "model_ns_max", row->max[ns], 0);
	json_fixed(j, "host_us", row->mean[us], 1);
	json_fixed(j, "host_us_max", row->max[us], 1);
	json_fixed(j, "bytes", row->mean[bytes], 0);
	json_fixed(j, "gbps", gbps(row->mean[bytes], row->mean[ns]), 3);
	json_object_end(j);
}

void ep_json(const struct bench *b, struct json *j)
{
	const struct ep_bench *eb = b->ep;
	unsigned int i;

	json_break(j);
	json_object_begin(j, "ep");
	json_break(j);
	json_uint(j, "tokens", EP_TOKENS);
	json_uint(j, "hidden", EP_HIDDEN);
	json_uint(j, "top_k", EP_TOPK);
	json_uint(j, "experts", EP_EXPERTS);
	json_uint(j, "record_bytes", EP_REC);
	json_uint(j, "npu_dies", eb->dies);
	json_bool(j, "ordered", bench_ordered());
	json_uint(j, "mem_available", eb->mem_avail);
	json_break(j);
	json_array_begin(j, "sizes");
	for (i = 0; i < eb->nrows; i++) {
		const struct ep_row *row = &eb->rows[i];

		json_break(j);
		json_object_begin(j, NULL);
		json_uint(j, "ep", row->n);
		json_bool(j, "skipped", row->skipped);
		if (!row->skipped) {
			json_bool(j, "timing_only", row->timing);
			json_uint(j, "heap_bytes", row->heap);
			json_call(j, "dispatch", row, FIG_D_NS, FIG_D_US,
				  FIG_D_BYTES);
			json_call(j, "combine", row, FIG_C_NS, FIG_C_US,
				  FIG_C_BYTES);
		}
		json_object_end(j);
	}
	json_break(j);
	json_array_end(j);
	json_break(j);
	json_object_end(j);
}

/* Whether this process is a rank of an ep job (ubbench ep started it). */
bool ep_rank(void)
{
	return getenv(EP_ENV) != NULL;
}

/*
 * @list, comma-separated EP sizes among 8, 16, ..., 256, as bits (the
 * sizes themselves, powers of two); 0 if malformed.
 */
unsigned int ep_parse_sizes(const char *list)
{
	unsigned int bits = 0, i;
	char *end;
	unsigned long v;

	for (;;) {
		v = strtoul(list, &end, 10);
		for (i = 0; i < ARRAY_SIZE(ep_sizes) && ep_sizes[i] != v; i++)
			;
		if (end == list || i == ARRAY_SIZE(ep_sizes))
			return 0;
		bits |= v;
		if (!*end)
			return bits;
		if (*end != ',')
			return 0;
		list = end + 1;
	}
}

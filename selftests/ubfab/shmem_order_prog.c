// SPDX-License-Identifier: GPL-2.0
/*
 * The rank program of shmem_test's ordered-domain tests: started by ubrun
 * (with UBSHMEM_ORDERED=1 or without), it runs one fixed job, sleeping a
 * random host delay of up to MAX_US microseconds (from a seed that
 * differs from run to run) before each call, and prints the modeled time
 * each call took on this PE and its clock at the end:
 *
 *   shmem_order_prog MAX_US
 *   -> "times barrier=.. ring=.. 2level=.. ag4k=.. ag64k=.. bcast=..
 *       signal=.. dispatch=.. combine=.. a2a=.. end=.."
 *
 * The job: a barrier, an all-reduce of 16 Ki int32 (64 KiB) by the ring
 * and by the 2-level algorithm, all-gathers of 4 KiB and 64 KiB a PE, a
 * broadcast, a put with signal to the right neighbour waited for with
 * UBSHMEM_CMP_NE (the CPU's or the queue's looks), a MoE dispatch and
 * combine (8 tokens a PE, hidden 7,168, top-4), an all-to-all. The sums
 * and the gathered blocks are checked; exits nonzero if one is wrong.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ubshmem_ep.h"

#define COUNT	(16 * 1024)
#define SMALL	4096
#define BIG	65536
#define TOKENS	8
#define HIDDEN	7168
#define TOPK	4

static int me, npes, failures, max_us;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s failed\n", what);
		failures++;
	}
}

/* A random host delay, then the call's start on the modeled clock. */
static uint64_t before(void)
{
	if (max_us)
		usleep(rand() % max_us);
	return ubshmem_model_ns();
}

static unsigned long long since(uint64_t t0)
{
	return ubshmem_model_ns() - t0;
}

static void allreduce(const char *name, int algo, int32_t *dst,
		      const int32_t *src)
{
	int32_t want;
	uint64_t t0;
	int i, bad = 0;

	t0 = before();
	check(!ubshmem_team_allreduce(ubshmem_team_world(), dst, src, COUNT,
				      UBSHMEM_INT32, UBSHMEM_OP_SUM, algo),
	      name);
	printf(" %s=%llu", name, since(t0));
	for (i = 0; i < COUNT; i++) {
		/* the sum over p of p * COUNT + i */
		want = (int32_t)((int64_t)npes * (npes - 1) / 2 * COUNT +
				 (int64_t)npes * i);
		bad += dst[i] != want;
	}
	check(!bad, name);
}

static void allgather(const char *name, size_t len, unsigned char *dst,
		      unsigned char *src)
{
	uint64_t t0;
	size_t i;
	int bad = 0;

	memset(src, me + 1, len);
	t0 = before();
	check(!ubshmem_allgather(dst, src, len), name);
	printf(" %s=%llu", name, since(t0));
	for (i = 0; i < len * npes; i++)
		bad += dst[i] != i / len + 1;
	check(!bad, name);
}

/* Tokens routed from a fixed seed: the same in every run. */
static void ep_step(struct ubshmem_ep *ep)
{
	static int8_t x[TOKENS * HIDDEN];
	static float scales[TOKENS * HIDDEN / UBSHMEM_EP_GROUP];
	static int32_t experts[TOKENS * TOPK];
	static float weights[TOKENS * TOPK];
	static uint16_t out[TOKENS * HIDDEN];
	unsigned int t, k, seed = 12345 + me;
	uint64_t t0;

	memset(x, me, sizeof(x));
	for (t = 0; t < sizeof(scales) / sizeof(*scales); t++)
		scales[t] = 1.0f;
	/* 4 PEs in a row from a random one, an expert of each */
	for (t = 0; t < TOKENS; t++) {
		int pe = rand_r(&seed) % npes;

		for (k = 0; k < TOPK; k++) {
			experts[t * TOPK + k] = (pe + k) % npes * 2 +
						rand_r(&seed) % 2;
			weights[t * TOPK + k] = 0.25f;
		}
	}
	t0 = before();
	check(!ubshmem_ep_dispatch(ep, TOKENS, x, scales, experts), "dispatch");
	printf(" dispatch=%llu", since(t0));
	t0 = before();
	check(!ubshmem_ep_combine(ep, weights, out), "combine");
	printf(" combine=%llu", since(t0));
}

int main(int argc, char **argv)
{
	/* 2 experts a PE; at least 4 PEs */
	struct ubshmem_ep_attr a = { .max_tokens = TOKENS, .hidden = HIDDEN,
				     .top_k = TOPK, .experts_per_pe = 2 };
	unsigned char *gsrc, *gdst;
	int32_t *src, *dst;
	uint64_t *sig, t0, seen = 0;
	struct ubshmem_ep *ep = NULL;
	int i;

	max_us = argc > 1 ? atoi(argv[1]) : 0;
	srand(time(NULL) ^ getpid());
	if (ubshmem_init()) {
		fprintf(stderr, "ubshmem_init failed\n");
		return 1;
	}
	me = ubshmem_my_pe();
	npes = ubshmem_n_pes();
	src = ubshmem_malloc(COUNT * sizeof(*src));
	dst = ubshmem_malloc(COUNT * sizeof(*dst));
	gsrc = ubshmem_malloc(BIG);
	gdst = ubshmem_malloc((size_t)BIG * npes);
	sig = ubshmem_malloc(sizeof(*sig));
	check(src && dst && gsrc && gdst && sig, "ubshmem_malloc");
	check(!ubshmem_ep_create(&a, &ep), "ubshmem_ep_create");
	if (failures)
		return 1;
	for (i = 0; i < COUNT; i++)
		src[i] = me * COUNT + i;

	printf("times");
	t0 = before();
	check(!ubshmem_barrier_all(), "barrier");
	printf(" barrier=%llu", since(t0));
	allreduce("ring", UBSHMEM_ALLREDUCE_RING, dst, src);
	allreduce("2level", UBSHMEM_ALLREDUCE_2LEVEL, dst, src);
	allgather("ag4k", SMALL, gdst, gsrc);
	allgather("ag64k", BIG, gdst, gsrc);
	t0 = before();
	check(!ubshmem_broadcast(gdst, gsrc, BIG, npes - 1), "broadcast");
	printf(" bcast=%llu", since(t0));

	/* SET, then a wait for "not 0": no WAIT_VALUE compares that way */
	t0 = before();
	check(!ubshmem_put_signal(gdst, gsrc, SMALL, sig, me + 1,
				  UBSHMEM_SIGNAL_SET, (me + 1) % npes),
	      "put_signal");
	check(!ubshmem_signal_wait_until(sig, UBSHMEM_CMP_NE, 0, &seen),
	      "signal_wait_until");
	check(seen == (uint64_t)(me + npes - 1) % npes + 1, "signal seen");
	printf(" signal=%llu", since(t0));

	ep_step(ep);
	t0 = before();
	check(!ubshmem_alltoall(gdst, gsrc, SMALL), "alltoall");
	printf(" a2a=%llu", since(t0));
	check(!ubshmem_barrier_all(), "barrier");
	printf(" end=%llu\n", (unsigned long long)ubshmem_model_ns());
	fflush(stdout);
	ubshmem_ep_destroy(ep);
	check(!ubshmem_finalize(), "finalize");
	return failures ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The rank program of shmem_test's MoE tests: started by ubrun, it runs
 * steps of ubshmem_ep_dispatch() and ubshmem_ep_combine() with random
 * routing from a fixed seed and checks, bit for bit, every token it
 * receives and every combined output against what the CPU computes from
 * the same seed; exits nonzero (printing what failed) if any check fails.
 *
 *   ep_prog check STEPS TOKENS TOPK EXPERTS_PER_PE
 *                       STEPS steps in a row (the double buffers in turn),
 *                       up to TOKENS tokens a PE a step, hidden 7,168
 *   ep_prog node|halves STEPS TOKENS TOPK EXPERTS_PER_PE
 *                       the same in several disjoint teams at once: each
 *                       node's team, or the even and the odd PEs; each
 *                       PE's data differs, so a token or output that
 *                       reached another team would fail a check
 *   ep_prog overflow    a capacity of 2 tokens a peer: PE 0 routes 4 tokens
 *                       to PE 1's experts, the others 2 to their right
 *                       neighbour's and 2 to their own; PEs 0 and 1 get
 *                       -ENOSPC, the others not; the combine still ends, without those
 *                       outputs; the next step works
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "ubshmem_ep.h"

#define HIDDEN	7168
#define GROUPS	(HIDDEN / UBSHMEM_EP_GROUP)
#define SEED	0x5eed0e9ULL

/*
 * The context's team: this PE's index and its size, and the PE numbers
 * by index (whose tokens differ: the seed takes the PE number).
 */
static int me, npes, failures;
static int *team_pes;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	failures++;
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

/* splitmix64: the random stream of (step, pe, what). */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t *s)
{
	return mix((*s)++);
}

/* What PE @pe sends at step @step, derived from the seed alone. */
struct tokens {
	unsigned int n;
	int8_t *x;
	float *scales;
	int32_t *experts;
	float *weights;
};

static void make_tokens(struct tokens *tk, int step, int pe, unsigned int max,
			unsigned int topk, unsigned int nexp)
{
	uint64_t s = mix(SEED ^ (uint64_t)step << 40 ^ (uint64_t)pe << 20);
	unsigned int t, k, j, h;

	/* a few tokens fewer now and then; PE 1 none at step 2 */
	tk->n = max - rnd(&s) % 3;
	if (pe == 1 && step == 2)
		tk->n = 0;
	for (t = 0; t < tk->n; t++) {
		for (h = 0; h < HIDDEN; h++)
			tk->x[t * HIDDEN + h] = (int8_t)rnd(&s);
		for (h = 0; h < GROUPS; h++)
			tk->scales[t * GROUPS + h] =
				(float)(rnd(&s) % 1000 + 1) / 65536.0f;
		for (k = 0; k < topk; k++) {
			int32_t e;

			do {	/* distinct experts */
				e = rnd(&s) % nexp;
				for (j = 0; j < k; j++)
					if (tk->experts[t * topk + j] == e)
						break;
			} while (j < k);
			tk->experts[t * topk + k] = e;
			tk->weights[t * topk + k] =
				(float)(rnd(&s) % 4096) / 4096.0f;
		}
	}
}

static float bf16_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Round to nearest, ties to even (no NaN here). */
static uint16_t float_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
}

/* The "expert" @e on a token: element h of its BF16 output. */
static uint16_t expert_fn(const int8_t *x, const float *scales, int32_t e,
			  unsigned int h)
{
	float v = x[h] * scales[h / UBSHMEM_EP_GROUP];

	return float_bf16(v * (1.0f + (float)e / 64.0f) + (float)(e % 7));
}

static int alloc_tokens(struct tokens *tk, unsigned int max,
			unsigned int topk)
{
	tk->x = malloc((size_t)max * HIDDEN);
	tk->scales = malloc((size_t)max * GROUPS * sizeof(float));
	tk->experts = malloc((size_t)max * topk * sizeof(int32_t));
	tk->weights = malloc((size_t)max * topk * sizeof(float));
	return tk->x && tk->scales && tk->experts && tk->weights ? 0 : -ENOMEM;
}

/* The tokens this PE must receive at @step: every PE's, in PE order. */
static void check_received(struct ubshmem_ep *ep, struct tokens *all,
			   int step, unsigned int topk, unsigned int epp,
			   int skip_src)
{
	const struct ubshmem_ep_token *tok;
	unsigned int i = 0, t, k, local, h;
	int s;

	for (s = 0; s < npes; s++) {
		struct tokens *tk = &all[s];

		if (s == skip_src)
			continue;
		for (t = 0; t < tk->n; t++) {
			const int32_t *e = tk->experts + t * topk;

			for (k = 0, local = 0; k < topk; k++)
				local += e[k] / (int32_t)epp == me;
			if (!local)
				continue;
			tok = ubshmem_ep_recv_token(ep, i);
			if (!tok) {
				fail("step %d: token %u of PE %d not received",
				     step, t, s);
				return;
			}
			CHECK(tok->src_pe == (uint32_t)s &&
			      tok->src_token == t && tok->hidden == HIDDEN &&
			      tok->top_k == topk &&
			      !memcmp(tok->expert, e, topk * sizeof(*e)),
			      "step %d: header of received token %u", step, i);
			CHECK(!memcmp(ubshmem_ep_token_data(tok),
				      tk->x + (size_t)t * HIDDEN, HIDDEN) &&
			      !memcmp(ubshmem_ep_token_scales(tok),
				      tk->scales + (size_t)t * GROUPS,
				      GROUPS * sizeof(float)),
			      "step %d: payload of token %u of PE %d", step, t,
			      s);
			/* run this PE's experts on it */
			for (k = 0, local = 0; k < topk; k++) {
				uint16_t *y;

				if (e[k] / (int32_t)epp != me)
					continue;
				y = ubshmem_ep_expert_out(ep, i, local++);
				if (!y) {
					fail("step %d: no output %u of token %u",
					     step, local - 1, i);
					return;
				}
				for (h = 0; h < HIDDEN; h++)
					y[h] = expert_fn(ubshmem_ep_token_data(tok),
							 ubshmem_ep_token_scales(tok),
							 e[k], h);
			}
			CHECK(!ubshmem_ep_expert_out(ep, i, local),
			      "step %d: output past the local experts", step);
			i++;
		}
	}
	CHECK(ubshmem_ep_recv_count(ep) == i,
	      "step %d: received %u tokens, want %u", step,
	      ubshmem_ep_recv_count(ep), i);
}

/* out against the CPU: the sum over k in order, in float, then bf16. */
static void check_combined(const struct tokens *tk, const uint16_t *out,
			   int step, unsigned int topk, int skip_pe,
			   unsigned int epp)
{
	unsigned int t, k, h, bad = 0;
	float acc;

	for (t = 0; t < tk->n; t++) {
		for (h = 0; h < HIDDEN; h++) {
			acc = 0.0f;
			for (k = 0; k < topk; k++) {
				int32_t e = tk->experts[t * topk + k];

				if ((int)(e / epp) == skip_pe)
					continue;
				acc += tk->weights[t * topk + k] *
				       bf16_float(expert_fn(tk->x + (size_t)t * HIDDEN,
							    tk->scales + (size_t)t * GROUPS,
							    e, h));
			}
			bad += out[(size_t)t * HIDDEN + h] != float_bf16(acc);
		}
	}
	CHECK(!bad, "step %d: %u combined elements differ", step, bad);
}

static int check_steps(const struct ubshmem_team *team, int steps,
		       unsigned int max, unsigned int topk, unsigned int epp)
{
	struct ubshmem_ep_attr a = { .max_tokens = max, .hidden = HIDDEN,
				     .top_k = topk, .experts_per_pe = epp };
	struct tokens *all = calloc(npes, sizeof(*all));
	uint16_t *out = malloc((size_t)max * HIDDEN * sizeof(uint16_t));
	struct ubshmem_ep *ep;
	int st, s, err;

	for (s = 0; all && s < npes; s++)
		if (alloc_tokens(&all[s], max, topk))
			return -ENOMEM;
	if (!all || !out)
		return -ENOMEM;
	err = team ? ubshmem_ep_create_team(team, &a, &ep) :
		     ubshmem_ep_create(&a, &ep);
	if (err) {
		fail("ubshmem_ep_create: %s (heap wanted %llu)", strerror(-err),
		     (unsigned long long)ubshmem_ep_heap_size(&a, npes));
		return err;
	}
	for (st = 0; st < steps; st++) {
		for (s = 0; s < npes; s++)
			make_tokens(&all[s], st, team_pes[s], max, topk,
				    epp * npes);
		err = ubshmem_ep_dispatch(ep, all[me].n, all[me].x,
					  all[me].scales, all[me].experts);
		CHECK(!err, "step %d: dispatch: %s", st, strerror(-err));
		check_received(ep, all, st, topk, epp, -1);
		err = ubshmem_ep_combine(ep, all[me].weights, out);
		CHECK(!err, "step %d: combine: %s", st, strerror(-err));
		check_combined(&all[me], out, st, topk, -1, epp);
		CHECK(ubshmem_ep_dispatch_ns(ep) > 0 &&
		      ubshmem_ep_combine_ns(ep) > 0,
		      "step %d: modeled times %llu, %llu ns", st,
		      (unsigned long long)ubshmem_ep_dispatch_ns(ep),
		      (unsigned long long)ubshmem_ep_combine_ns(ep));
	}
	/* bad routing, the same in every PE: refused before anything moves */
	all[me].experts[1] = all[me].experts[0];
	CHECK(ubshmem_ep_dispatch(ep, 1, all[me].x, all[me].scales,
				  all[me].experts) == -EINVAL, "same expert twice");
	all[me].experts[1] = epp * npes;
	CHECK(ubshmem_ep_dispatch(ep, 1, all[me].x, all[me].scales,
				  all[me].experts) == -EINVAL, "expert too big");
	CHECK(ubshmem_ep_dispatch(ep, max + 1, all[me].x, all[me].scales,
				  all[me].experts) == -EINVAL, "too many tokens");
	ubshmem_ep_destroy(ep);
	return 0;
}

/* PE 0 sends 4 tokens to PE 1 whose capacity is 2. */
static int check_overflow(void)
{
	struct ubshmem_ep_attr a = { .max_tokens = 4, .hidden = HIDDEN,
				     .top_k = 2, .experts_per_pe = 2,
				     .capacity = 2 };
	struct tokens *all = calloc(npes, sizeof(*all));
	uint16_t out[4 * HIDDEN];
	struct ubshmem_ep *ep;
	unsigned int t;
	int s, err, want;

	for (s = 0; all && s < npes; s++)
		if (alloc_tokens(&all[s], 4, 2))
			return -ENOMEM;
	if (!all)
		return -ENOMEM;
	err = ubshmem_ep_create(&a, &ep);
	if (err)
		return err;
	for (s = 0; s < npes; s++) {
		make_tokens(&all[s], 1, s, 4, 2, 2 * npes);
		all[s].n = 4;
		/* each of PE s's tokens: one expert of PE s + 1, one of PE s */
		for (t = 0; t < 4; t++) {
			all[s].experts[2 * t] = 2 * ((s + 1) % npes);
			all[s].experts[2 * t + 1] = 2 * s + 1;
		}
	}
	/* PE 0's four go to PE 1 alone, and overflow; the others send 2 */
	for (t = 0; t < 4; t++) {
		all[0].experts[2 * t] = 2;
		all[0].experts[2 * t + 1] = 3;
	}
	for (s = 1; s < npes; s++)
		all[s].n = 2;
	err = ubshmem_ep_dispatch(ep, all[me].n, all[me].x, all[me].scales,
				  all[me].experts);
	want = me == 0 || me == 1 ? -ENOSPC : 0;
	CHECK(err == want, "overflow: dispatch %d, want %d", err, want);
	check_received(ep, all, 1, 2, 2, me == 1 ? 0 : -1);
	err = ubshmem_ep_combine(ep, all[me].weights, out);
	CHECK(!err, "overflow: combine: %s", strerror(-err));
	check_combined(&all[me], out, 1, 2, me == 0 ? 1 : -1, 2);
	/* the next step, within the capacity, works */
	all[0].n = 2;
	err = ubshmem_ep_dispatch(ep, all[me].n, all[me].x, all[me].scales,
				  all[me].experts);
	CHECK(!err, "after overflow: dispatch: %s", strerror(-err));
	check_received(ep, all, 2, 2, 2, -1);
	err = ubshmem_ep_combine(ep, all[me].weights, out);
	CHECK(!err, "after overflow: combine: %s", strerror(-err));
	check_combined(&all[me], out, 2, 2, -1, 2);
	ubshmem_ep_destroy(ep);
	return 0;
}

/*
 * This PE's team for @what: the world for check, its node's for node, the
 * even or the odd PEs for halves (split by every PE, each getting one).
 * NULL (and *@split unset) if @what is none of them.
 */
static const struct ubshmem_team *pick_team(const char *what,
					    struct ubshmem_team **split)
{
	const struct ubshmem_team *w = ubshmem_team_world();
	struct ubshmem_team *even = NULL, *odd = NULL;
	int n = ubshmem_n_pes();

	if (!strcmp(what, "check"))
		return w;
	if (!strcmp(what, "node"))
		return ubshmem_team_node();
	if (strcmp(what, "halves"))
		return NULL;
	CHECK(!ubshmem_team_split_strided(w, 0, 2, (n + 1) / 2, &even) &&
	      !ubshmem_team_split_strided(w, 1, 2, n / 2, &odd) &&
	      !even != !odd, "halves: split");
	*split = even ? even : odd;
	return *split;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "check";
	const struct ubshmem_team *team;
	struct ubshmem_team *split = NULL;
	int err, i, rank, size;

	err = ubshmem_init();
	if (err) {
		fprintf(stderr, "ubshmem_init: %s\n", strerror(-err));
		return 1;
	}
	rank = ubshmem_my_pe();
	size = ubshmem_n_pes();
	team = pick_team(what, &split);
	me = ubshmem_team_my_pe(team ? team : ubshmem_team_world());
	npes = ubshmem_team_n_pes(team ? team : ubshmem_team_world());
	team_pes = calloc(npes, sizeof(*team_pes));
	for (i = 0; team_pes && i < npes; i++)
		team_pes[i] = ubshmem_team_translate_pe(team ? team :
						ubshmem_team_world(), i);
	if (!team_pes)
		err = -ENOMEM;
	else if (!strcmp(what, "overflow"))
		err = check_overflow();
	else if (team && argc == 6)
		err = check_steps(team == ubshmem_team_world() ? NULL : team,
				  atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
				  atoi(argv[5]));
	else
		err = -EINVAL;
	CHECK(!err, "%s: %s", what, strerror(-err));
	CHECK(!ubshmem_team_destroy(split), "destroy");
	CHECK(!ubshmem_finalize(), "finalize");
	if (!failures)
		printf("ok %d of %d on %s\n", rank, size,
		       getenv("UBRUN_ENTITY"));
	free(team_pes);
	return failures ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/common/coll_ref.c - the CPU's reference for libubshmem's
 * collectives (coll_ref.h): source elements, sums in the algorithms'
 * orders, and the all-reduce check that splits the work over the PEs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll_ref.h"

/* A value of element @i of PE @pe's source: differs by PE and element. */
static uint32_t hash(uint32_t seed, int pe, size_t i)
{
	uint32_t h = (uint32_t)pe * 2654435761u ^ ((uint32_t)i * 40503u + 17) ^
		seed * 2246822507u;

	h ^= h >> 15;
	h *= 2246822519u;
	return h ^ (h >> 13);
}

/* bfloat16, rounded to nearest even: the reference's own conversion. */
static uint16_t ref_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
}

static float ref_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

size_t coll_ref_esize(int type)
{
	return type == UBSHMEM_BF16 ? 2 : 4;
}

/*
 * A special float for MIN and MAX at some elements @i, else 0: NaNs of
 * their own bits from a third of the PEs (so some elements have several,
 * and the earliest in the order must win), or zeros of either sign, or
 * infinities.
 */
static int special(int pe, size_t i, float *f)
{
	uint32_t u;

	if (i % 61 == 3 && (pe + i) % 3 == 0)
		u = 0x7fc00000 | (uint32_t)pe << 16 | 1;	/* quiet NaN */
	else if (i % 53 == 7)
		u = (uint32_t)(pe & 1) << 31;		/* -0 or +0 */
	else if (i % 47 == 5 && pe % 4 == 1)
		u = 0x7f800000 | (uint32_t)(pe & 2) << 30;	/* +-inf */
	else
		return 0;
	memcpy(f, &u, 4);
	return 1;
}

/*
 * PE @pe's source element @i of @type for @op, as the bytes of that type:
 * for PROD about 1 (products of up to 16 stay finite, each rounded), for
 * AND mostly ones and for OR mostly zeros (the result not all one bit),
 * for MIN and MAX with special() values.
 */
void coll_ref_elem(int type, int op, uint32_t seed, int pe, size_t i,
		   void *out)
{
	uint32_t h = hash(seed, pe, i);
	float f = ((int32_t)(h % 2000001) - 1000000) * 1e-3f;
	uint16_t b;

	if (type == UBSHMEM_INT32) {
		if (op == UBSHMEM_OP_AND)
			h |= h >> 1 | h << 1;
		else if (op == UBSHMEM_OP_OR)
			h &= h >> 1 & h << 1;
		memcpy(out, &h, 4);
		return;
	}
	if (op == UBSHMEM_OP_PROD)
		f = 1.0f + ((int32_t)(h % 4097) - 2048) / 4096.0f;
	else if (type == UBSHMEM_BF16)
		f = ((int32_t)(h % 4097) - 2048) / 16.0f;
	if (op == UBSHMEM_OP_MIN || op == UBSHMEM_OP_MAX)
		special(pe, i, &f);
	if (type == UBSHMEM_FLOAT) {
		memcpy(out, &f, 4);
		return;
	}
	memcpy(&h, &f, 4);
	/* a NaN keeps its bits (ref_bf16 would round them) */
	b = isnan(f) ? h >> 16 : ref_bf16(f);
	memcpy(out, &b, 2);
}

/*
 * MIN or MAX of @x, the earlier, and @y, as ubshmem.h defines them: the
 * earlier NaN, else the later NaN, else the smaller (larger), -0 below +0.
 */
static int ref_later(float x, float y, int op)
{
	int below = y < x || (y == x && signbit(y) && !signbit(x));
	int above = y > x || (y == x && !signbit(y) && signbit(x));

	if (isnan(x) || isnan(y))
		return !isnan(x);
	return op == UBSHMEM_OP_MIN ? below : above;
}

/* @acc = @acc @op @b, elements of @type as the library reduces them. */
void coll_ref_op(int type, int op, void *acc, const void *b)
{
	uint32_t x, y;
	float fx, fy;
	uint16_t hx, hy;

	if (type == UBSHMEM_INT32) {
		memcpy(&x, acc, 4);
		memcpy(&y, b, 4);
		if (op == UBSHMEM_OP_SUM)
			x += y;
		else if (op == UBSHMEM_OP_PROD)
			x = (uint32_t)((uint64_t)x * y);
		else if (op == UBSHMEM_OP_MIN)
			x = (int32_t)y < (int32_t)x ? y : x;
		else if (op == UBSHMEM_OP_MAX)
			x = (int32_t)y > (int32_t)x ? y : x;
		else if (op == UBSHMEM_OP_AND)
			x &= y;
		else if (op == UBSHMEM_OP_OR)
			x |= y;
		else
			x ^= y;
		memcpy(acc, &x, 4);
	} else if (type == UBSHMEM_FLOAT) {
		memcpy(&fx, acc, 4);
		memcpy(&fy, b, 4);
		if (op == UBSHMEM_OP_SUM)
			fx += fy;
		else if (op == UBSHMEM_OP_PROD)
			fx *= fy;
		else if (ref_later(fx, fy, op))
			memcpy(&fx, b, 4);
		memcpy(acc, &fx, 4);
	} else {
		memcpy(&hx, acc, 2);
		memcpy(&hy, b, 2);
		if (op == UBSHMEM_OP_SUM)
			hx = ref_bf16(ref_float(hx) + ref_float(hy));
		else if (op == UBSHMEM_OP_PROD)
			hx = ref_bf16(ref_float(hx) * ref_float(hy));
		else if (ref_later(ref_float(hx), ref_float(hy), op))
			hx = hy;
		memcpy(acc, &hx, 2);
	}
}


int *coll_ref_nodes(void)
{
	int npes = ubshmem_n_pes();
	int *mine = ubshmem_malloc(sizeof(int));
	int *all = ubshmem_malloc(npes * sizeof(int));
	int *node_of = malloc(npes * sizeof(int));

	if (mine && all && node_of) {
		*mine = ubshmem_team_translate_pe(ubshmem_team_node(), 0);
		if (!ubshmem_allgather(all, mine, sizeof(int)))
			memcpy(node_of, all, npes * sizeof(int));
		else
			node_of = (free(node_of), NULL);
	} else {
		node_of = (free(node_of), NULL);
	}
	ubshmem_free(all);
	ubshmem_free(mine);
	return node_of;
}

int coll_ref_team_make(struct coll_ref_team *ti, const struct ubshmem_team *t,
		       const int *node_of)
{
	int i, j, *name, *fill, *first;

	memset(ti, 0, sizeof(*ti));
	ti->t = t;
	ti->n = ubshmem_team_n_pes(t);
	ti->me = ubshmem_team_my_pe(t);
	ti->pes = malloc(ti->n * sizeof(int));
	ti->node_pes = malloc(ti->n * sizeof(int));
	ti->node_first = first = calloc(ti->n + 1, sizeof(int));
	name = malloc(ti->n * sizeof(int));
	fill = malloc((ti->n + 1) * sizeof(int));
	if (!ti->pes || !ti->node_pes || !first || !name || !fill) {
		free(fill);
		free(name);
		coll_ref_team_free(ti);
		return -ENOMEM;
	}
	/* the nodes in order of first appearance, each one's count of PEs */
	for (i = 0; i < ti->n; i++) {
		ti->pes[i] = ubshmem_team_translate_pe(t, i);
		for (j = 0; j < ti->nnodes; j++)
			if (name[j] == node_of[ti->pes[i]])
				break;
		if (j == ti->nnodes)
			name[ti->nnodes++] = node_of[ti->pes[i]];
		first[j + 1]++;
	}
	ti->regular = 1;
	for (j = 0; j < ti->nnodes; j++) {
		ti->regular &= first[j + 1] == first[1];
		first[j + 1] += first[j];
	}
	/* then the PEs node by node, each node's in team order */
	memcpy(fill, first, (ti->n + 1) * sizeof(int));
	for (i = 0; i < ti->n; i++) {
		for (j = 0; name[j] != node_of[ti->pes[i]]; j++)
			;
		ti->node_pes[fill[j]++] = ti->pes[i];
	}
	free(fill);
	free(name);
	return 0;
}

void coll_ref_team_free(struct coll_ref_team *ti)
{
	free(ti->pes);
	free(ti->node_pes);
	free(ti->node_first);
	ti->pes = ti->node_pes = ti->node_first = NULL;
}

int coll_ref_auto_algo(const struct coll_ref_team *ti)
{
	return ti->regular && ti->nnodes > 1 && ti->node_first[1] > 1 ?
		UBSHMEM_ALLREDUCE_2LEVEL : UBSHMEM_ALLREDUCE_RING;
}

/* The chunk of @n over @len elements that holds element @q. */
static int chunk_of(size_t q, size_t len, int n)
{
	int k = 0;

	while (q >= len * (k + 1) / n)
		k++;
	return k;
}

void coll_ref_chain(int type, int op, uint32_t seed, const int *pes, int n,
		    int k, size_t i, void *out)
{
	unsigned char b[4];
	int j;

	coll_ref_elem(type, op, seed, pes[(k + 1) % n], i, out);
	for (j = 2; j <= n; j++) {
		coll_ref_elem(type, op, seed, pes[(k + j) % n], i, b);
		coll_ref_op(type, op, out, b);
	}
}

/*
 * In the order of ubshmem.h and Documentation/shmem.rst: pieces of
 * UBSHMEM_COLL_PIECE bytes; in a piece, RING's chunk k of n is summed
 * from PE k on (the chain from k - 1); 2LEVEL's chunk c of the L of a
 * node, sub-chunk k of the M of c, is the sum of the nodes' partial sums
 * from node k + 1 on, each partial the sum of the node's PEs from local
 * index c + 1 on (reduced by any op in the same order).
 */
void coll_ref_allreduce(const struct coll_ref_team *ti, int algo, int type,
			int op, uint32_t seed, size_t count, size_t e, void *out)
{
	size_t per = UBSHMEM_COLL_PIECE / coll_ref_esize(type);
	size_t q = e % per, pc = count - e / per * per, fc, lc;
	unsigned char part[4];
	int c, k, j, m, L = ti->node_first[1], M = ti->nnodes;

	pc = pc < per ? pc : per;
	if (algo == UBSHMEM_ALLREDUCE_RING) {
		k = chunk_of(q, pc, ti->n);
		coll_ref_chain(type, op, seed, ti->pes, ti->n,
			       (k - 1 + ti->n) % ti->n, e, out);
		return;
	}
	c = chunk_of(q, pc, L);
	fc = pc * c / L;
	lc = pc * (c + 1) / L - fc;
	k = chunk_of(q - fc, lc, M);
	for (j = 1; j <= M; j++) {
		m = (k + j) % M;
		coll_ref_chain(type, op, seed, ti->node_pes + ti->node_first[m],
			       L, c, e, j == 1 ? out : part);
		if (j > 1)
			coll_ref_op(type, op, out, part);
	}
}

int coll_ref_check_allreduce(const struct coll_ref_team *ti, int algo,
			     int type, int op, uint32_t seed, size_t count,
			     const void *dst, size_t *bad)
{
	size_t es = coll_ref_esize(type), e;
	const unsigned char *d = dst, *first = ubshmem_ptr(dst, ti->pes[0]);
	unsigned char want[4];
	int err = first ? 0 : -errno, err2;

	*bad = count;
	for (e = ti->me; e < count; e += ti->n) {
		coll_ref_allreduce(ti, algo, type, op, seed, count, e, want);
		if (memcmp(d + e * es, want, es)) {
			*bad = e;
			break;
		}
	}
	/* every PE's dst is final, and none is written before all compared */
	err2 = ubshmem_barrier(ti->t);
	for (e = 0; first && e < *bad; e++)
		if (memcmp(d + e * es, first + e * es, es))
			*bad = e;
	err = err ? err : err2;
	err2 = ubshmem_barrier(ti->t);
	return err ? err : err2;
}

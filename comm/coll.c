// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's collectives over the team of every PE: broadcast (a
 * binomial tree), all-gather (a ring), all-reduce (a ring: reduce-scatter
 * then all-gather) and all-to-all (direct puts). Built only on the
 * library's own calls (put with signal, signal waits, the barrier, the
 * symmetric heap), never on the queue directly; the algorithms are in
 * Documentation/shmem.rst "Collectives".
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* The reserved words of the heap the collectives signal on. */
static uint64_t *coll_word(uint64_t off)
{
	return (uint64_t *)(shm->heap + off);
}

/*
 * The value a step @g of the current collective sets: the call's epoch
 * above the step, so it grows from call to call and step to step.
 */
static uint64_t step_value(unsigned int g)
{
	return shm->coll_epoch << 12 | (g + 1);
}

/* Symmetric and not overlapping: what every collective asks. */
static int check_bufs(const void *dest, size_t dlen, const void *src,
		      size_t slen)
{
	uint64_t doff, soff;

	if (shm_heap_offset(dest, dlen, &doff) ||
	    shm_heap_offset(src, slen, &soff))
		return -EINVAL;
	if (doff < soff + slen && soff < doff + dlen && dest != src)
		return -EINVAL;
	return 0;
}

/*
 * Start a collective: a barrier, so that every PE is in it (its
 * destination free to be written, every earlier signal of the word
 * landed), then a new epoch.
 */
static int coll_begin(void)
{
	int err = ubshmem_barrier_all();

	shm->coll_epoch++;
	return err;
}

/* Put @len bytes of @src to @dest of @pe, then set its step word to @g. */
static int step_put(char *dest, const char *src, size_t len, unsigned int g,
		    int pe)
{
	return ubshmem_put_signal(dest, src, len, coll_word(SHM_COLL_STEP),
				  step_value(g), UBSHMEM_SIGNAL_SET, pe);
}

static int step_wait(unsigned int g)
{
	return ubshmem_signal_wait_until(coll_word(SHM_COLL_STEP),
					 UBSHMEM_CMP_GE, step_value(g), NULL);
}

int ubshmem_broadcast(void *dest, const void *src, size_t nbytes, int root)
{
	int n, v, top, bit, err;
	uint64_t off;
	const char *from = src;

	if (!shm || root < 0 || root >= shm->n ||
	    shm_heap_offset(dest, nbytes, &off) ||
	    (shm->me == root && shm_heap_offset(src, nbytes, &off)))
		return -EINVAL;
	n = shm->n;
	err = coll_begin();
	if (err)
		return err;
	/* v: the index from the root; its parent is v less its top bit */
	v = (shm->me - root + n) % n;
	for (top = 1; top <= v; top <<= 1)
		;
	if (v) {
		err = step_wait(0);
		if (err)
			return err;
		from = dest;
	} else if (dest != src) {
		memmove(dest, src, nbytes);
	}
	/* its children: v + 2^k for each 2^k >= top, the farthest first */
	for (bit = top; v + 2 * bit < n; bit <<= 1)
		;
	for (; bit >= top; bit >>= 1) {
		if (v + bit >= n)
			continue;
		err = step_put(dest, from, nbytes, 0, (root + v + bit) % n);
		if (err)
			return err;
	}
	return 0;
}

int ubshmem_allgather(void *dest, const void *src, size_t nbytes)
{
	int n, me, right, s, err;
	char *d = dest;

	if (!shm)
		return -EINVAL;
	n = shm->n;
	me = shm->me;
	right = (me + 1) % n;
	err = check_bufs(dest, nbytes * n, src, nbytes);
	if (err || (dest == src && nbytes))
		return -EINVAL;
	err = coll_begin();
	if (err)
		return err;
	memcpy(d + me * nbytes, src, nbytes);
	/* step s: block me - s to the right; block me - s - 1 from the left */
	for (s = 0; s < n - 1; s++) {
		size_t at = (size_t)((me - s + n) % n) * nbytes;

		err = step_put(d + at, d + at, nbytes, s, right);
		if (!err)
			err = step_wait(s);
		if (err)
			return err;
	}
	return 0;
}

/* Elements of chunk @k of @count split over @n PEs: [first, end). */
static size_t chunk_first(size_t count, int n, int k)
{
	return count * k / n;
}

static float bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Round to nearest, ties to even; a NaN stays a (quiet) NaN. */
static uint16_t float_to_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	if ((u & 0x7fffffff) > 0x7f800000)
		return (u >> 16) | 0x40;
	return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
}

/* acc[i] = acc[i] + mine[i] for @count elements of @type. */
static void reduce_sum(void *acc, const void *mine, size_t count, int type)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (type == UBSHMEM_INT32) {
			uint32_t *a = acc;	/* wraps, as two's complement */

			a[i] += ((const uint32_t *)mine)[i];
		} else if (type == UBSHMEM_FLOAT) {
			((float *)acc)[i] += ((const float *)mine)[i];
		} else {
			uint16_t *a = acc;

			a[i] = float_to_bf16(bf16_to_float(a[i]) +
				bf16_to_float(((const uint16_t *)mine)[i]));
		}
	}
}

static size_t type_size(int type)
{
	switch (type) {
	case UBSHMEM_INT32:
	case UBSHMEM_FLOAT:
		return 4;
	case UBSHMEM_BF16:
		return 2;
	default:
		return 0;
	}
}

/*
 * The ring: n - 1 steps of reduce-scatter, each PE adding its part to the
 * chunk its left neighbour sent into @acc and passing it on, so that PE
 * me ends with chunk me + 1 whole, in @dest; then n - 1 steps of
 * all-gather of the whole chunks into every @dest.
 */
static int ring_allreduce(char *dest, const char *src, char *acc,
			  size_t count, int type)
{
	int n = shm->n, me = shm->me, right = (me + 1) % n, s, k, err;
	size_t es = type_size(type), first, len;

	for (s = 0; s < n - 1; s++) {
		/* send chunk me - s: src at step 0, then the one just summed */
		k = (me - s + n) % n;
		first = chunk_first(count, n, k);
		len = chunk_first(count, n, k + 1) - first;
		err = step_put(acc + first * es, (s ? acc : src) + first * es,
			       len * es, s, right);
		if (!err)
			err = step_wait(s);
		if (err)
			return err;
		/* chunk me - s - 1 came from the left: add mine */
		k = (me - s - 1 + n) % n;
		first = chunk_first(count, n, k);
		len = chunk_first(count, n, k + 1) - first;
		reduce_sum(acc + first * es, src + first * es, len, type);
		if (s == n - 2)
			memcpy(dest + first * es, acc + first * es, len * es);
	}
	for (s = 0; s < n - 1; s++) {
		k = (me + 1 - s + n) % n;
		first = chunk_first(count, n, k);
		len = chunk_first(count, n, k + 1) - first;
		err = step_put(dest + first * es, dest + first * es, len * es,
			       n - 1 + s, right);
		if (!err)
			err = step_wait(n - 1 + s);
		if (err)
			return err;
	}
	return 0;
}

int ubshmem_allreduce(void *dest, const void *src, size_t count, int type,
		      int op)
{
	size_t es = type_size(type), bytes = count * es;
	char *acc;
	int err;

	if (!shm || !es || op != UBSHMEM_OP_SUM ||
	    check_bufs(dest, bytes, src, bytes) || (dest == src && bytes))
		return -EINVAL;
	if (shm->n == 1 || !count) {
		memcpy(dest, src, bytes);
		return ubshmem_barrier_all();
	}
	/* the partial sums: one place per chunk, each written once */
	acc = ubshmem_malloc(bytes);
	if (!acc)
		return -ENOMEM;
	shm->coll_epoch++;
	err = ring_allreduce(dest, src, acc, count, type);
	ubshmem_free(acc);
	return err;
}

int ubshmem_alltoall(void *dest, const void *src, size_t nbytes)
{
	int n, me, i, pe, err;
	uint64_t *word = coll_word(SHM_COLL_A2A);

	if (!shm)
		return -EINVAL;
	n = shm->n;
	me = shm->me;
	err = check_bufs(dest, nbytes * n, src, nbytes * n);
	if (err || (dest == src && nbytes))
		return -EINVAL;
	err = coll_begin();
	if (err)
		return err;
	memcpy((char *)dest + me * nbytes, (const char *)src + me * nbytes,
	       nbytes);
	/* block pe of src to block me of PE pe: the right neighbour first */
	for (i = 1; i < n; i++) {
		pe = (me + i) % n;
		err = ubshmem_put_signal((char *)dest + me * nbytes,
					 (const char *)src + pe * nbytes,
					 nbytes, word, 1, UBSHMEM_SIGNAL_ADD,
					 pe);
		if (err)
			return err;
	}
	/* every other PE added one: the word only grows, call after call */
	shm->a2a_seen += n - 1;
	return ubshmem_signal_wait_until(word, UBSHMEM_CMP_GE, shm->a2a_seen,
					 NULL);
}

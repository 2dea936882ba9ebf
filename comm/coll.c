// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's collectives over a team: broadcast (a binomial tree),
 * all-gather (a ring), reduce-scatter (a ring), all-reduce (a ring, or two
 * levels: rings inside each node and across the nodes), all-to-all and
 * all-to-all-v (direct puts), the reductions of the two that reduce (enum
 * ubshmem_op), and the world-team calls of 1.1 over them.
 * Built only on the library's own calls (put with signal, the signals
 * from PE to PE of sync.c, the team barrier, the scratch reserved in every
 * heap), never on the queue directly; the algorithms are in
 * Documentation/shmem.rst "Collectives".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * A ring of PEs: pes[(me + 1) % n] is the right neighbour, to which
 * this PE puts, pes[(me - 1) mod n] the left one, from which it receives.
 */
struct ring {
	int *pes;
	int n;
	int me;
};

/*
 * The chunks a ring cuts a buffer into, k = 0 .. n - 1: with stride 0,
 * @count elements split evenly (chunk k: count·k/n .. count·(k+1)/n - 1);
 * else chunk k is @count elements at k·stride. @es: bytes an element.
 */
struct split {
	size_t count;
	size_t stride;
	size_t es;
};

static int mod(int a, int n)
{
	return (a % n + n) % n;
}

static size_t chunk_first(const struct split *sp, int n, int k)
{
	return sp->stride ? k * sp->stride : sp->count * k / n;
}

static size_t chunk_len(const struct split *sp, int n, int k)
{
	return sp->stride ? sp->count :
		sp->count * (k + 1) / n - sp->count * k / n;
}

/* Byte offset of chunk @k. */
static size_t chunk_at(const struct split *sp, int n, int k)
{
	return chunk_first(sp, n, k) * sp->es;
}

/* This PE's signal word, the one each put_signal adds one to at its target. */
static uint64_t *my_word(void)
{
	return (uint64_t *)(shm->heap + shm->me * sizeof(uint64_t));
}

static char *scratch(void)
{
	return shm->heap + SHM_SIG_AREA(shm->n);
}

/* Put @len bytes from @src to @dest of @pe, then signal it. */
static int signal_put(void *dest, const void *src, size_t len, int pe)
{
	return ubshmem_put_signal(dest, src, len, my_word(), 1,
				  UBSHMEM_SIGNAL_ADD, pe);
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

static int member(const struct ubshmem_team *team)
{
	return shm && team && team->me >= 0;
}

static struct ring team_ring(const struct ubshmem_team *team)
{
	return (struct ring){ team->pes, team->n, team->me };
}

int ubshmem_team_broadcast(const struct ubshmem_team *team, void *dest,
			   const void *src, size_t nbytes, int root)
{
	int n, v, top, bit, err;
	uint64_t off;
	const char *from = src;

	if (!member(team) || root < 0 || root >= team->n ||
	    shm_heap_offset(dest, nbytes, &off) ||
	    (team->me == root && shm_heap_offset(src, nbytes, &off)))
		return -EINVAL;
	n = team->n;
	err = ubshmem_barrier(team);
	if (err)
		return err;
	/* v: the index from the root; its parent is v less its top bit */
	v = mod(team->me - root, n);
	for (top = 1; top <= v; top <<= 1)
		;
	if (v) {
		err = shm_wait_from(team->pes[(root + v - top / 2) % n]);
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
		err = signal_put(dest, from, nbytes,
				 team->pes[(root + v + bit) % n]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The ring's all-gather: PE me starts with chunk me + @shift of @dest
 * whole; in step s it puts chunk me + shift - s to its right neighbour's
 * @dest and receives chunk me + shift - s - 1 from its left.
 */
static int ring_allgather(const struct ring *r, char *dest,
			  const struct split *sp, int shift)
{
	int n = r->n, s, k, err;

	for (s = 0; s < n - 1; s++) {
		k = mod(r->me + shift - s, n);
		err = signal_put(dest + chunk_at(sp, n, k),
				 dest + chunk_at(sp, n, k),
				 chunk_len(sp, n, k) * sp->es,
				 r->pes[(r->me + 1) % n]);
		if (!err)
			err = shm_wait_from(r->pes[mod(r->me - 1, n)]);
		if (err)
			return err;
	}
	return 0;
}

/* The int32 @op of @a, the earlier operand, and @b (ubshmem.h). */
static uint32_t op_int32(uint32_t a, uint32_t b, int op)
{
	switch (op) {
	case UBSHMEM_OP_SUM:
		return a + b;		/* wraps, as two's complement */
	case UBSHMEM_OP_PROD:
		return a * b;		/* the low 32 bits: wraps too */
	case UBSHMEM_OP_MIN:
		return (int32_t)b < (int32_t)a ? b : a;
	case UBSHMEM_OP_MAX:
		return (int32_t)b > (int32_t)a ? b : a;
	case UBSHMEM_OP_AND:
		return a & b;
	case UBSHMEM_OP_OR:
		return a | b;
	default:
		return a ^ b;
	}
}

/*
 * MIN or MAX of floats @a, the earlier operand, and @b: 1 to take @b, 0
 * to take @a. A NaN wins, the earlier one first; -0 is below +0.
 */
static int take_later(float a, float b, int op)
{
	if (isnan(a))
		return 0;
	if (isnan(b))
		return 1;
	if (a == b)
		return op == UBSHMEM_OP_MIN ? !!signbit(b) > !!signbit(a) :
		       !!signbit(a) > !!signbit(b);
	return op == UBSHMEM_OP_MIN ? b < a : b > a;
}

/* The float @op (SUM, PROD, MIN or MAX) of @a and @b, rounded once. */
static float op_float(float a, float b, int op)
{
	if (op == UBSHMEM_OP_SUM)
		return a + b;
	if (op == UBSHMEM_OP_PROD)
		return a * b;
	return take_later(a, b, op) ? b : a;
}

/* acc[i] = acc[i] @op mine[i] for @count elements of @type. */
static void reduce(void *acc, const void *mine, size_t count, int type,
		   int op)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (type == UBSHMEM_INT32) {
			uint32_t *a = acc;

			a[i] = op_int32(a[i], ((const uint32_t *)mine)[i], op);
		} else if (type == UBSHMEM_FLOAT) {
			float *a = acc;

			a[i] = op_float(a[i], ((const float *)mine)[i], op);
		} else {
			uint16_t *a = acc, b = ((const uint16_t *)mine)[i];
			float fa = shm_bf16_float(a[i]), fb = shm_bf16_float(b);

			/* MIN and MAX take an operand as it is */
			if (op == UBSHMEM_OP_MIN || op == UBSHMEM_OP_MAX)
				a[i] = take_later(fa, fb, op) ? b : a[i];
			else
				a[i] = shm_float_bf16(op_float(fa, fb, op));
		}
	}
}

/* Whether @op reduces @type: the bitwise ones only int32. */
static int op_ok(int type, int op)
{
	return op >= UBSHMEM_OP_SUM && op <= UBSHMEM_OP_XOR &&
	       (op <= UBSHMEM_OP_MAX || type == UBSHMEM_INT32);
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
 * The ring's reduce-scatter, of chunks cut from @src by @ss into @acc cut
 * by @as (the same counts): in step s = 0 .. n - 2 PE me puts chunk
 * me + shift - 1 - s (its @src at step 0, else its @acc, where it was just
 * reduced) into the same chunk of its right neighbour's @acc, receives
 * chunk me + shift - 2 - s from its left and reduces its @src into it
 * (acc = acc @op src). It ends with chunk me + @shift the @op of every
 * PE's, in the order of the PEs me + shift + 1, me + shift + 2, ...,
 * me + shift (mod n). Each chunk of an @acc is written once, so none is
 * overwritten before it is read.
 */
static int ring_reduce_scatter(const struct ring *r, char *acc,
			       const struct split *as, const char *src,
			       const struct split *ss, int shift, int type,
			       int op)
{
	int n = r->n, s, k, err;
	size_t es = as->es;

	if (n == 1) {
		memcpy(acc + chunk_at(as, 1, 0), src + chunk_at(ss, 1, 0),
		       chunk_len(as, 1, 0) * es);
		return 0;
	}
	for (s = 0; s < n - 1; s++) {
		k = mod(r->me + shift - 1 - s, n);
		err = signal_put(acc + chunk_at(as, n, k),
				 s ? acc + chunk_at(as, n, k) :
				     src + chunk_at(ss, n, k),
				 chunk_len(as, n, k) * es,
				 r->pes[(r->me + 1) % n]);
		if (!err)
			err = shm_wait_from(r->pes[mod(r->me - 1, n)]);
		if (err)
			return err;
		k = mod(r->me + shift - 2 - s, n);
		reduce(acc + chunk_at(as, n, k), src + chunk_at(ss, n, k),
		       chunk_len(as, n, k), type, op);
	}
	return 0;
}

int ubshmem_team_allgather(const struct ubshmem_team *team, void *dest,
			   const void *src, size_t nbytes)
{
	struct split sp = { nbytes, nbytes, 1 };
	struct ring r;
	int err;

	if (!member(team))
		return -EINVAL;
	err = check_bufs(dest, nbytes * team->n, src, nbytes);
	if (err || (dest == src && nbytes))
		return -EINVAL;
	err = ubshmem_barrier(team);
	if (err)
		return err;
	memcpy((char *)dest + team->me * nbytes, src, nbytes);
	r = team_ring(team);
	return ring_allgather(&r, dest, &sp, 0);
}

int ubshmem_team_reduce_scatter(const struct ubshmem_team *team, void *dest,
				const void *src, size_t count, int type, int op)
{
	size_t es = type_size(type), per, b, pc;
	struct ring r;
	int err;

	if (!member(team) || !es || !op_ok(type, op) ||
	    check_bufs(dest, count * es, src, count * es * team->n) ||
	    (dest == src && count))
		return -EINVAL;
	if (!count)
		return ubshmem_barrier(team);
	r = team_ring(team);
	/* in pieces: block k of a piece is pc elements of src's block k */
	per = UBSHMEM_COLL_PIECE / es / team->n;
	for (b = 0; b < count; b += pc) {
		struct split as, ss;

		pc = count - b < per ? count - b : per;
		as = (struct split){ pc, pc, es };
		ss = (struct split){ pc, count, es };
		err = ubshmem_barrier(team);
		if (!err)
			err = ring_reduce_scatter(&r, scratch(), &as,
						  (const char *)src + b * es,
						  &ss, 0, type, op);
		if (err)
			return err;
		memcpy((char *)dest + b * es,
		       scratch() + chunk_at(&as, r.n, r.me), pc * es);
	}
	return 0;
}

/* The ring all-reduce of one piece: reduce-scatter, then all-gather. */
static int ring_allreduce(const struct ubshmem_team *team, char *dest,
			  const char *src, size_t count, int type, int op)
{
	struct split sp = { count, 0, type_size(type) };
	struct ring r = team_ring(team);
	size_t at;
	int err;

	err = ring_reduce_scatter(&r, scratch(), &sp, src, &sp, 1, type, op);
	if (err)
		return err;
	at = chunk_at(&sp, r.n, (r.me + 1) % r.n);
	memcpy(dest + at, scratch() + at,
	       chunk_len(&sp, r.n, (r.me + 1) % r.n) * sp.es);
	return ring_allgather(&r, dest, &sp, 1);
}

/*
 * The two levels of @team: @local, the ring of its PEs in this PE's node
 * (in team order), and @cross, the ring of the PEs with this PE's index
 * in their node's part, one a node (in the order the nodes first appear
 * in the team). 1 if the team is regular (the same number of its PEs in
 * each of its nodes), else 0; -ENOMEM.
 */
static int team_levels(const struct ubshmem_team *team, struct ring *local,
		       struct ring *cross)
{
	uint32_t mynode = shm->peers[shm->me].node;
	int *nodes, *seen, nn = 0, i, j, pe, regular = 1;

	nodes = calloc(team->n, sizeof(*nodes));
	seen = calloc(team->n, sizeof(*seen));
	local->pes = calloc(team->n, sizeof(int));
	cross->pes = calloc(team->n, sizeof(int));
	if (!nodes || !seen || !local->pes || !cross->pes) {
		free(local->pes);
		free(cross->pes);
		regular = -ENOMEM;
		goto out;
	}
	local->n = 0;
	local->me = -1;
	for (i = 0; i < team->n; i++) {
		pe = team->pes[i];
		for (j = 0; j < nn; j++)
			if (shm->peers[nodes[j]].node == shm->peers[pe].node)
				break;
		if (j == nn)
			nodes[nn++] = pe;
		seen[j]++;
		if (shm->peers[pe].node != mynode)
			continue;
		if (pe == shm->me)
			local->me = local->n;
		local->pes[local->n++] = pe;
	}
	for (j = 0; j < nn; j++)
		regular &= seen[j] == local->n;
	/* the PE of index local->me in each node's part */
	cross->n = 0;
	memset(seen, 0, team->n * sizeof(*seen));
	for (i = 0; i < team->n && regular; i++) {
		pe = team->pes[i];
		for (j = 0; shm->peers[nodes[j]].node != shm->peers[pe].node; j++)
			;
		if (seen[j]++ != local->me)
			continue;
		if (pe == shm->me)
			cross->me = cross->n;
		cross->pes[cross->n++] = pe;
	}
out:
	free(nodes);
	free(seen);
	return regular;
}

/*
 * The two-level all-reduce of one piece: a reduce-scatter of L chunks in
 * the node's ring (this PE, local index l, ends with chunk l summed over
 * its node), an all-reduce of chunk l over the ring across the nodes (a
 * reduce-scatter of M sub-chunks into the scratch's second half, then an
 * all-gather into @dest), then an all-gather of the L chunks in the node.
 */
static int twolevel_allreduce(const struct ring *local,
			      const struct ring *cross, char *dest,
			      const char *src, size_t count, int type, int op)
{
	struct split lsp = { count, 0, type_size(type) }, csp;
	char *acc = scratch(), *acc2 = acc + UBSHMEM_COLL_PIECE;
	size_t at = chunk_at(&lsp, local->n, local->me);
	int err;

	err = ring_reduce_scatter(local, acc, &lsp, src, &lsp, 0, type, op);
	if (err)
		return err;
	csp = (struct split){ chunk_len(&lsp, local->n, local->me), 0,
			      lsp.es };
	err = ring_reduce_scatter(cross, acc2, &csp, acc + at, &csp, 0, type,
				  op);
	if (err)
		return err;
	memcpy(dest + at + chunk_at(&csp, cross->n, cross->me),
	       acc2 + chunk_at(&csp, cross->n, cross->me),
	       chunk_len(&csp, cross->n, cross->me) * csp.es);
	err = ring_allgather(cross, dest + at, &csp, 0);
	return err ? err : ring_allgather(local, dest, &lsp, 0);
}

/* The algorithm UBSHMEM_ALLREDUCE_AUTO stands for (-EINVAL: bad env). */
static int pick_algo(int regular, const struct ring *local,
		     const struct ring *cross)
{
	const char *env = getenv("UBSHMEM_ALLREDUCE");

	if (env && !strcmp(env, "ring"))
		return UBSHMEM_ALLREDUCE_RING;
	if (env && !strcmp(env, "2level"))
		return UBSHMEM_ALLREDUCE_2LEVEL;
	if (env && strcmp(env, "auto"))
		return -EINVAL;
	return regular && local->n > 1 && cross->n > 1 ?
		UBSHMEM_ALLREDUCE_2LEVEL : UBSHMEM_ALLREDUCE_RING;
}

int ubshmem_team_allreduce(const struct ubshmem_team *team, void *dest,
			   const void *src, size_t count, int type, int op,
			   int algo)
{
	size_t es = type_size(type), per, b, pc;
	struct ring local, cross;
	int err, regular;

	if (!member(team) || !es || !op_ok(type, op) ||
	    algo < UBSHMEM_ALLREDUCE_AUTO || algo > UBSHMEM_ALLREDUCE_2LEVEL ||
	    check_bufs(dest, count * es, src, count * es) ||
	    (dest == src && count))
		return -EINVAL;
	regular = team_levels(team, &local, &cross);
	if (regular < 0)
		return regular;
	if (algo == UBSHMEM_ALLREDUCE_AUTO)
		algo = pick_algo(regular, &local, &cross);
	err = algo < 0 || (algo == UBSHMEM_ALLREDUCE_2LEVEL && !regular) ?
		-EINVAL : 0;
	/* in pieces of the scratch's half, each reduced as a whole */
	per = UBSHMEM_COLL_PIECE / es;
	for (b = 0; !err && b < count; b += pc) {
		pc = count - b < per ? count - b : per;
		err = ubshmem_barrier(team);
		if (err)
			break;
		if (algo == UBSHMEM_ALLREDUCE_RING)
			err = ring_allreduce(team, (char *)dest + b * es,
					     (const char *)src + b * es, pc,
					     type, op);
		else
			err = twolevel_allreduce(&local, &cross,
						 (char *)dest + b * es,
						 (const char *)src + b * es,
						 pc, type, op);
	}
	if (!err && !count)
		err = ubshmem_barrier(team);
	free(local.pes);
	free(cross.pes);
	return err;
}

int ubshmem_team_alltoall(const struct ubshmem_team *team, void *dest,
			  const void *src, size_t nbytes)
{
	int n, me, i, pe, err;

	if (!member(team))
		return -EINVAL;
	n = team->n;
	me = team->me;
	err = check_bufs(dest, nbytes * n, src, nbytes * n);
	if (err || (dest == src && nbytes))
		return -EINVAL;
	err = ubshmem_barrier(team);
	if (err)
		return err;
	memcpy((char *)dest + me * nbytes, (const char *)src + me * nbytes,
	       nbytes);
	/* block i of src to block me of team PE i: the right neighbour first */
	for (i = 1; i < n; i++) {
		pe = (me + i) % n;
		err = signal_put((char *)dest + me * nbytes,
				 (const char *)src + pe * nbytes, nbytes,
				 team->pes[pe]);
		if (err)
			return err;
	}
	for (i = 1; i < n; i++)
		shm_wait_post(team->pes[(me - i + n) % n]);
	return shm_drain(0, NULL);
}

/* What PE i tells PE j before an all-to-all-v: its place for j's bytes. */
struct a2av_hdr {
	uint64_t rdispl;	/* where in i's dest j's bytes go */
	uint64_t rcount;	/* how many i expects from j */
	uint64_t scount;	/* how many i sends j */
};

int ubshmem_team_alltoallv(const struct ubshmem_team *team, void *dest,
			   const size_t *rcounts, const size_t *rdispls,
			   const void *src, const size_t *scounts,
			   const size_t *sdispls)
{
	struct a2av_hdr *mine, *theirs;
	int n, me, i, pe, err, bad = 0;
	uint64_t off;

	if (!member(team) || !rcounts || !rdispls || !scounts || !sdispls)
		return -EINVAL;
	n = team->n;
	me = team->me;
	for (i = 0; i < n; i++)
		if (shm_heap_offset((char *)dest + rdispls[i], rcounts[i],
				    &off) ||
		    shm_heap_offset((const char *)src + sdispls[i],
				    scounts[i], &off))
			return -EINVAL;
	/* the headers, exchanged through the scratch by an all-to-all */
	mine = (struct a2av_hdr *)scratch();
	theirs = mine + n;
	for (i = 0; i < n; i++)
		mine[i] = (struct a2av_hdr){ rdispls[i], rcounts[i],
					     scounts[i] };
	err = ubshmem_team_alltoall(team, theirs, mine, sizeof(*mine));
	if (err)
		return err;
	/* counts that do not match move nothing, but still signal */
	for (i = 1; i < n; i++) {
		pe = (me + i) % n;
		if (scounts[pe] != theirs[pe].rcount ||
		    rcounts[pe] != theirs[pe].scount)
			bad = 1;
		err = signal_put((char *)dest + theirs[pe].rdispl,
				 (const char *)src + sdispls[pe],
				 scounts[pe] == theirs[pe].rcount ?
				 scounts[pe] : 0, team->pes[pe]);
		if (err)
			return err;
	}
	if (scounts[me] != rcounts[me])
		bad = 1;
	else
		memmove((char *)dest + rdispls[me],
			(const char *)src + sdispls[me], scounts[me]);
	for (i = 1; i < n; i++)
		shm_wait_post(team->pes[(me - i + n) % n]);
	err = shm_drain(0, NULL);
	return err ? err : bad ? -EINVAL : 0;
}

int ubshmem_broadcast(void *dest, const void *src, size_t nbytes, int root)
{
	return ubshmem_team_broadcast(ubshmem_team_world(), dest, src, nbytes,
				      root);
}

int ubshmem_allgather(void *dest, const void *src, size_t nbytes)
{
	return ubshmem_team_allgather(ubshmem_team_world(), dest, src, nbytes);
}

int ubshmem_allreduce(void *dest, const void *src, size_t count, int type,
		      int op)
{
	return ubshmem_team_allreduce(ubshmem_team_world(), dest, src, count,
				      type, op, UBSHMEM_ALLREDUCE_AUTO);
}

int ubshmem_alltoall(void *dest, const void *src, size_t nbytes)
{
	return ubshmem_team_alltoall(ubshmem_team_world(), dest, src, nbytes);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libubshmem: a one-sided communication layer over libubfab, in the
 * manner of OpenSHMEM and NVSHMEM, for programs of N processes ("PEs",
 * processing elements) each acting as one NPU die of the emulated UB
 * fabric. ubrun(1) starts them (Documentation/shmem.rst).
 *
 * This header owns the public API: start and end (ubshmem_init(),
 * ubshmem_finalize()), who is who (PEs and teams), the symmetric heap
 * (ubshmem_malloc(), ubshmem_free(), ubshmem_ptr()), remote memory access
 * (put, get, put with signal), atomics, waiting on signals, ordering
 * (fence, quiet), the barrier, teams split by a stride, collectives over
 * a team (barrier, broadcast, all-gather, reduce-scatter, all-reduce,
 * all-to-all, all-to-all-v) and over every PE, and the fabric model's
 * time of the calls (ubshmem_model_ns()).
 *
 * Conventions
 *   Functions returning int return 0 on success or a negative errno:
 *     -EINVAL   an address outside the symmetric heap where one is
 *               needed, a PE out of range, a bad op or comparison
 *     -EIO      a queue entry failed (its status is printed on stderr)
 *     other     what libubfab returned
 *   A "symmetric" address is one in this PE's symmetric heap, as
 *   ubshmem_malloc() returns it; it names the same bytes in every PE's
 *   heap. Every PE calls the collective functions (init, finalize,
 *   malloc, free, barrier_all and the collectives) in the same order.
 *   The library is not thread-safe: call it from one thread per PE.
 *   Link with -lubshmem (pkg-config ubshmem).
 */
#ifndef UBSHMEM_H
#define UBSHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * ubshmem_init() - join the job: the collective start of every PE
 *
 * Reads who this PE is from ubrun's environment (UBRUN_RANK, UBRUN_SIZE,
 * UBRUN_ENTITY, UBRUN_SOCK), or, started by Open MPI's mpirun (PMIX_RANK
 * and PMIX_NAMESPACE, no UBRUN_SOCK), from PMIx through libpmix.so.2,
 * loaded then, acting as its rank's entity of the placement
 * UBSHMEM_PLACEMENT (pack, spread, nodes:K or a list; default pack);
 * otherwise the job is this process alone, PE 0 of 1, acting as
 * UBRUN_ENTITY or else npu0. Opens the entity, allocates, maps and
 * exports its symmetric heap of UBSHMEM_HEAP_SIZE bytes (default 64 MiB;
 * suffixes K, M, G), creates its queue, exchanges the heaps' handles and
 * tokens with every other PE over ubrun's socket or PMIx, imports every
 * heap, and waits for all PEs. With UBSHMEM_TIMING=1 the queue is
 * timing-only (UBFAB_QUEUE_TIMING): every call is modeled as usual, but
 * puts and gets move no payload (signals, atomics and waits work), for
 * what-if runs too big for memory. With UBSHMEM_ORDERED=1 (or the module's
 * model_order=ordered) every queue of the PE is in the fabric model's
 * ordered domain: the same program models the same times in every run
 * (Documentation/shmem.rst, "Bit-identical modeled times").
 *
 * Return: 0; -EALREADY if already initialised; -EPROTO if ubrun ended
 * the rendezvous (a rank left or broke it), a PMIx call failed (a rank
 * ended) or the PEs disagree on the heap size; -ECONNREFUSED if ubrun no
 * longer listens; -EINVAL for a placement that does not fit or a heap
 * no larger than what the library reserves at its start (a signal word
 * per PE, a page at least, and the collectives' 2 * UBSHMEM_COLL_PIECE
 * of scratch); -ENOTSUP under mpirun without libpmix.so.2 or in a
 * statically linked program; or a negative errno.
 */
int ubshmem_init(void);

/**
 * ubshmem_finalize() - leave the job: a barrier, then frees everything
 *
 * Return: 0, or the error of the barrier (everything is freed anyway).
 */
int ubshmem_finalize(void);

/* This PE's number, 0 .. ubshmem_n_pes() - 1; -1 before ubshmem_init(). */
int ubshmem_my_pe(void);

/* The number of PEs in the job; 0 before ubshmem_init(). */
int ubshmem_n_pes(void);

/* The entity this PE acts as, e.g. "npu17"; "" before ubshmem_init(). */
const char *ubshmem_entity(void);

/**
 * struct ubshmem_team - an opaque ordered set of PEs
 *
 * ubshmem_team_world() holds every PE, by PE number;
 * ubshmem_team_node() the PEs whose dies sit in this PE's node, by PE
 * number. Both live from ubshmem_init() to ubshmem_finalize().
 */
struct ubshmem_team;

const struct ubshmem_team *ubshmem_team_world(void);
const struct ubshmem_team *ubshmem_team_node(void);

/* This PE's index in @team, or -1 if it is not in it (or @team NULL). */
int ubshmem_team_my_pe(const struct ubshmem_team *team);

/* The number of PEs in @team (0 for NULL). */
int ubshmem_team_n_pes(const struct ubshmem_team *team);

/* The PE number of index @idx of @team, or -1 if out of range. */
int ubshmem_team_translate_pe(const struct ubshmem_team *team, int idx);

/**
 * ubshmem_team_split_strided() - a team of some PEs of @parent: collective
 *	over @parent
 * @parent: a team this PE is in
 * @start: index in @parent of the new team's first PE
 * @stride: step between the indices in @parent, >= 1
 * @size: PEs in the new team, >= 1
 * @newteam: out: the team of @parent's indices start, start + stride, ...
 *	start + (size - 1) * stride, in that order; NULL in a PE not in it
 *
 * Every PE of @parent calls it, with the same arguments; it ends with a
 * barrier of @parent. Free the team with ubshmem_team_destroy().
 *
 * Return: 0; -EINVAL for a bad argument (this PE not in @parent, a range
 * beyond it); -ENOMEM; or the barrier's error.
 */
int ubshmem_team_split_strided(const struct ubshmem_team *parent, int start,
			       int stride, int size,
			       struct ubshmem_team **newteam);

/*
 * ubshmem_team_destroy() - free a team of ubshmem_team_split_strided()
 * (NULL: nothing). Not collective: call it once no collective of the team
 * is under way. Return: 0; -EINVAL for the world or node team.
 */
int ubshmem_team_destroy(struct ubshmem_team *team);

/**
 * ubshmem_malloc() - allocate symmetric memory: collective
 * @size: bytes (0 gives NULL)
 *
 * Every PE calls it with the same @size, in the same order of symmetric
 * allocations and frees; each gets the block at the same offset of its
 * heap, aligned to 64 bytes and zero-filled. Ends with a barrier, so that
 * no PE writes a block before its owner has it.
 *
 * Return: the local address of the block, or NULL when the heap has no
 * room (errno ENOMEM) or @size is 0.
 */
void *ubshmem_malloc(size_t size);

/**
 * ubshmem_free() - free a symmetric block: collective
 * @ptr: from ubshmem_malloc(), or NULL (then only the barrier happens)
 *
 * Starts with a barrier, so that no PE still accesses the block.
 */
void ubshmem_free(void *ptr);

/**
 * ubshmem_ptr() - a load/store pointer to a symmetric object of a peer
 * @addr: symmetric address
 * @pe: the PE whose copy is wanted
 *
 * Maps @pe's heap into this process on first use (memory semantics:
 * loads and stores through the pointer land in the peer's HBM, with no
 * queue and no modeled time).
 *
 * Return: the pointer; NULL if @addr is not symmetric or @pe is out of
 * range, or if the peer's heap cannot be mapped (errno says why).
 */
void *ubshmem_ptr(const void *addr, int pe);

/*
 * Remote memory access. @dest (put) or @src (get) is symmetric; the other
 * buffer is any memory of this process (one in the symmetric heap is used
 * in place, any other is copied through a staging buffer of the entity).
 * Each call becomes queue entries of the PE's queue: WRITE or READ
 * entries of at most UBSHMEM_STAGING bytes each.
 *
 * The blocking calls return once the data has arrived (put) or is in
 * @dest (get). The _nbi calls return once the entries are posted: a put's
 * @src and a get's @dest may be reused or read only after
 * ubshmem_quiet(), which also reports their errors.
 */
#define UBSHMEM_STAGING		(4UL << 20)

int ubshmem_put(void *dest, const void *src, size_t nbytes, int pe);
int ubshmem_get(void *dest, const void *src, size_t nbytes, int pe);
int ubshmem_put_nbi(void *dest, const void *src, size_t nbytes, int pe);
int ubshmem_get_nbi(void *dest, const void *src, size_t nbytes, int pe);

/* How ubshmem_put_signal() changes the signal word. */
enum ubshmem_signal_op {
	UBSHMEM_SIGNAL_SET,	/* store the value */
	UBSHMEM_SIGNAL_ADD,	/* add the value */
};

/**
 * ubshmem_put_signal() - put, then update a signal word of the same PE
 * @dest: symmetric destination
 * @src: source, any memory of the process
 * @nbytes: bytes
 * @sig_addr: symmetric 8-byte aligned signal word
 * @signal: the value to store or add
 * @sig_op: enum ubshmem_signal_op
 * @pe: the target PE
 *
 * The signal changes only once all the data is visible at @pe: a PE
 * waiting on it (ubshmem_signal_wait_until()) then reads the data. ADD is
 * a WRITE_NOTIFY entry; SET a WRITE then an ATOMIC SWAP, in order on the
 * queue. Blocking: returns once the signal is updated.
 *
 * Return: 0; -EINVAL for a bad @sig_op, a @dest or @sig_addr not
 * symmetric or @sig_addr unaligned; or an error as for ubshmem_put().
 */
int ubshmem_put_signal(void *dest, const void *src, size_t nbytes,
		       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

/* ubshmem_signal_wait_until()'s comparisons: word CMP value. */
enum ubshmem_cmp {
	UBSHMEM_CMP_EQ,
	UBSHMEM_CMP_NE,
	UBSHMEM_CMP_GT,
	UBSHMEM_CMP_GE,
	UBSHMEM_CMP_LT,
	UBSHMEM_CMP_LE,
};

/**
 * ubshmem_signal_wait_until() - wait until a local signal word compares
 * @sig_addr: symmetric 8-byte aligned word, this PE's copy
 * @cmp: enum ubshmem_cmp (unsigned comparison)
 * @value: what to compare with
 * @seen: out: the word's value that satisfied the wait; may be NULL
 *
 * EQ, GE and GT (GE @value + 1) are a WAIT_VALUE entry of the queue;
 * NE, LT and LE, which WAIT_VALUE does not know, poll the word with the
 * CPU, then post a WAIT_VALUE the word satisfies at once. Either way the
 * PE's modeled clock moves to no earlier than the modeled arrival of the
 * put_signal or atomic that satisfied it.
 *
 * Return: 0; -EINVAL for a bad @cmp or @sig_addr; -EIO; or a negative
 * errno.
 */
int ubshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t value,
			      uint64_t *seen);

/*
 * Atomics on a symmetric 8-byte aligned word of PE @pe: one ATOMIC entry
 * each, blocking. @fetched receives the word's old value (may be NULL).
 */
int ubshmem_atomic_fetch_add(uint64_t *dest, uint64_t value, int pe,
			     uint64_t *fetched);
int ubshmem_atomic_compare_swap(uint64_t *dest, uint64_t cond,
				uint64_t value, int pe, uint64_t *fetched);
int ubshmem_atomic_swap(uint64_t *dest, uint64_t value, int pe,
			uint64_t *fetched);
int ubshmem_atomic_fetch_and(uint64_t *dest, uint64_t value, int pe,
			     uint64_t *fetched);
int ubshmem_atomic_fetch_or(uint64_t *dest, uint64_t value, int pe,
			    uint64_t *fetched);
int ubshmem_atomic_fetch_xor(uint64_t *dest, uint64_t value, int pe,
			     uint64_t *fetched);

/**
 * ubshmem_fence() - order the puts and atomics issued before it to each
 *	PE before those issued after it
 *
 * The next entry carries UBFAB_SQE_FENCE. (A queue runs its entries one
 * after the other, so the order already holds; the fence states it.)
 */
void ubshmem_fence(void);

/**
 * ubshmem_quiet() - wait for every outstanding operation of this PE
 *
 * After it, every put has arrived and every get's buffer is filled; the
 * PE's modeled clock (ubshmem_model_ns()) is where the last one ended.
 *
 * Return: 0; -EIO if any of them failed since the last quiet.
 */
int ubshmem_quiet(void);

/**
 * ubshmem_barrier() - quiet, then wait for every PE of @team to arrive
 * @team: a team this PE is in
 *
 * A dissemination barrier over the fabric: in round k (of ceil(log2 n))
 * the PE of index i adds one with an ATOMIC to its signal word at the PE
 * of index (i + 2^k) mod n and waits (WAIT_VALUE) for that of the PE of
 * index (i - 2^k) mod n, so its modeled time is that of the fabric's
 * atomics.
 *
 * Return: 0, -EINVAL (not a member), -EIO, or a negative errno.
 */
int ubshmem_barrier(const struct ubshmem_team *team);

/* ubshmem_barrier() of the world team. */
int ubshmem_barrier_all(void);

/*
 * Collectives over a team. Every PE of @team calls them, in the same order,
 * with the same sizes (and root); each begins with a barrier of the team
 * and returns once this PE's @dest holds the result, so its time is in
 * ubshmem_model_ns() after it. @dest and @src are symmetric and do not
 * overlap (except broadcast's, which may be the same block). Those that
 * reduce work in pieces of UBSHMEM_COLL_PIECE bytes (reduce-scatter: of
 * all the blocks together), each piece reduced as a whole after a barrier,
 * through a scratch of two pieces the heap reserves. PEs and blocks are
 * numbered by their index in @team.
 * Return: 0; -EINVAL for a bad argument or a PE not in @team; or an error
 * as for ubshmem_put_signal(). A PE that fails leaves the others waiting:
 * the job should end. Documentation/shmem.rst "Collectives" gives each
 * algorithm and the order of each reduction; -EINVAL for an @op that
 * @type does not take (enum ubshmem_op).
 */
#define UBSHMEM_COLL_PIECE	(1UL << 20)

/* The element types of the reductions. */
enum ubshmem_type {
	UBSHMEM_INT32,		/* int32_t, sums and products wrap */
	UBSHMEM_FLOAT,		/* IEEE binary32 */
	/*
	 * bfloat16 in a uint16_t: summed or multiplied in float, rounded to
	 * nearest even
	 */
	UBSHMEM_BF16,
};

/*
 * The reductions: each combines the partial result a (the PEs before, in
 * the algorithm's order) with the next PE's element b, a = a op b, as the
 * types say, rounding after every operation as the hardware would:
 *  SUM, PROD: a + b, a * b; int32 wraps (two's complement: the low 32
 *	bits); float rounded to nearest even; bf16 made in float and
 *	rounded to the nearest even bf16 after each;
 *  MIN, MAX: the smaller, the larger (int32 signed), an operand as it is
 *	(bf16 compared as floats, never rounded); -0 is below +0; a NaN wins
 *	over any number (the earliest NaN in the order, its bits as they
 *	are), so one NaN element makes the result NaN;
 *  AND, OR, XOR: bitwise, int32 only (else -EINVAL).
 * libubshmem 1.3 (ubshmem_team_allreduce(), ubshmem_team_reduce_scatter()
 * and ubshmem_allreduce() of 1.2 and before take SUM only).
 */
enum ubshmem_op {
	UBSHMEM_OP_SUM,
	UBSHMEM_OP_PROD,
	UBSHMEM_OP_MIN,
	UBSHMEM_OP_MAX,
	UBSHMEM_OP_AND,
	UBSHMEM_OP_OR,
	UBSHMEM_OP_XOR,
};

/* The algorithms of ubshmem_team_allreduce(). */
enum ubshmem_allreduce_algo {
	/*
	 * UBSHMEM_ALLREDUCE=ring|2level|auto in the environment; unset or
	 * auto: 2LEVEL for a team with at least 2 of its PEs in each of at
	 * least 2 nodes, as many in each, else RING
	 */
	UBSHMEM_ALLREDUCE_AUTO,
	/* a ring over the team: reduce-scatter, then all-gather */
	UBSHMEM_ALLREDUCE_RING,
	/*
	 * rings inside each node and across the nodes; the team must have
	 * as many PEs in each of its nodes (else -EINVAL)
	 */
	UBSHMEM_ALLREDUCE_2LEVEL,
};

/*
 * ubshmem_team_broadcast() - @nbytes of @src at team PE @root (symmetric
 * there) to @dest of every PE of @team, the root's too; a binomial tree.
 */
int ubshmem_team_broadcast(const struct ubshmem_team *team, void *dest,
			   const void *src, size_t nbytes, int root);

/*
 * ubshmem_team_allgather() - every PE's @nbytes of @src to block i (@nbytes
 * at i * @nbytes, i its index in @team) of @dest of every PE; a ring.
 * @dest holds n blocks.
 */
int ubshmem_team_allgather(const struct ubshmem_team *team, void *dest,
			   const void *src, size_t nbytes);

/*
 * ubshmem_team_reduce_scatter() - @dest (@count elements of @type) of the
 * PE of index i = the @op of block i (@count elements at i * @count) of
 * every PE's @src, which holds n blocks; a ring. Block i is reduced in the
 * order of the PEs i + 1, i + 2, ..., i (mod n).
 */
int ubshmem_team_reduce_scatter(const struct ubshmem_team *team, void *dest,
				const void *src, size_t count, int type,
				int op);

/*
 * ubshmem_team_allreduce() - @dest[i] = the @op of every PE's @src[i], for
 * @count elements of @type, by @algo (enum ubshmem_allreduce_algo). RING:
 * the @op of chunk k of a piece (elements pc * k / n .. pc * (k + 1) / n - 1
 * of its pc) is made in the order src of PE k, @op that of k + 1, ..., @op
 * that of k - 1 (mod n). 2LEVEL: see Documentation/shmem.rst. Every PE's @dest
 * gets the same bytes.
 */
int ubshmem_team_allreduce(const struct ubshmem_team *team, void *dest,
			   const void *src, size_t count, int type, int op,
			   int algo);

/*
 * ubshmem_team_alltoall() - block i of @src (@nbytes at i * @nbytes) of
 * each PE of index me to block me of @dest of the PE of index i; direct
 * puts. Both hold n blocks.
 */
int ubshmem_team_alltoall(const struct ubshmem_team *team, void *dest,
			  const void *src, size_t nbytes);

/*
 * ubshmem_team_alltoallv() - as MPI_Alltoallv, in bytes: @scounts[i] bytes
 * at @src + @sdispls[i] of the PE of index me go to @dest + @rdispls[me]
 * of the PE of index i, which expects @rcounts[me] bytes from it; each
 * array has n entries. The PEs first tell each other their @rdispls and
 * counts (an all-to-all through the scratch), then put directly. Counts
 * that do not match (@scounts[i] of me against @rcounts[me] of i) move
 * nothing between the two and make both return -EINVAL, the others' bytes
 * still delivered. The regions of @dest must not overlap each other.
 */
int ubshmem_team_alltoallv(const struct ubshmem_team *team, void *dest,
			   const size_t *rcounts, const size_t *rdispls,
			   const void *src, const size_t *scounts,
			   const size_t *sdispls);

/*
 * The world team's calls of libubshmem 1.1: ubshmem_broadcast() (@root a
 * PE number), ubshmem_allgather(), ubshmem_allreduce() (with
 * UBSHMEM_ALLREDUCE_AUTO) and ubshmem_alltoall() are the team calls above
 * with ubshmem_team_world().
 */
int ubshmem_broadcast(void *dest, const void *src, size_t nbytes, int root);
int ubshmem_allgather(void *dest, const void *src, size_t nbytes);
int ubshmem_allreduce(void *dest, const void *src, size_t count, int type,
		      int op);
int ubshmem_alltoall(void *dest, const void *src, size_t nbytes);

/**
 * ubshmem_model_ns() - this PE's modeled clock
 *
 * Return: the fabric model's time, in nanoseconds, at which the last
 * completed operation of this PE ended (struct ubfab_cqe model_ns of its
 * queue, Documentation/model.rst); it only grows. 0 before any.
 */
uint64_t ubshmem_model_ns(void);

#ifdef __cplusplus
}
#endif

#endif /* UBSHMEM_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tools/common/coll_ref.h - the CPU's reference for libubshmem's
 * collectives, which shmem_test's rank program (selftests/ubfab/) and
 * `ubbench coll --check` (tools/bench/coll.c) both check against: every
 * PE's source elements, derived from the PE, the index and a seed, and
 * the reductions (every UBSHMEM_OP_*) in each algorithm's documented order
 * (Documentation/shmem.rst, "Collectives"), bit for bit.
 */
#ifndef UBFAB_TOOLS_COLL_REF_H
#define UBFAB_TOOLS_COLL_REF_H

#include <stddef.h>
#include <stdint.h>

#include "ubshmem.h"

/*
 * A team as the reference sees it: its PEs, this PE's index, and its
 * PEs node by node (nodes in the order they first appear in the team,
 * PEs in team order; node j's are node_pes[node_first[j]] ..
 * node_pes[node_first[j + 1] - 1]); regular when every node holds as many.
 */
struct coll_ref_team {
	const struct ubshmem_team *t;
	int n, me;
	int *pes;
	int nnodes;
	int *node_pes, *node_first;
	int regular;
};

/*
 * Every PE's node, named by the first PE of its node team, gathered with
 * ubshmem_allgather() (a collective call of every PE); malloc()ed, NULL
 * on failure.
 */
int *coll_ref_nodes(void);
/* @ti for team @t, from every PE's node @node_of; 0 or -ENOMEM. */
int coll_ref_team_make(struct coll_ref_team *ti, const struct ubshmem_team *t,
		       const int *node_of);
void coll_ref_team_free(struct coll_ref_team *ti);
/* What UBSHMEM_ALLREDUCE_AUTO picks (ubshmem.h), the environment unset. */
int coll_ref_auto_algo(const struct coll_ref_team *ti);

/* Bytes an element of @type. */
size_t coll_ref_esize(int type);
/*
 * PE @pe's source element @i of @type for @op under @seed, as that type's
 * bytes (values that keep @op's results meaningful: coll_ref.c).
 */
void coll_ref_elem(int type, int op, uint32_t seed, int pe, size_t i,
		   void *out);
/* @acc = @acc @op @b, elements of @type as the library reduces them. */
void coll_ref_op(int type, int op, void *acc, const void *b);
/*
 * @out = element @i of the PEs @pes[(k + 1) % n], [(k + 2) % n], ...,
 * [k] reduced by @op in that order: reduce-scatter's block k of a ring.
 */
void coll_ref_chain(int type, int op, uint32_t seed, const int *pes, int n,
		    int k, size_t i, void *out);
/* Element @e of the all-reduce by @algo and @op of @count elements. */
void coll_ref_allreduce(const struct coll_ref_team *ti, int algo, int type,
			int op, uint32_t seed, size_t count, size_t e, void *out);
/*
 * Check @dst, this PE's all-reduce by @algo of @count elements (a
 * collective call of the team): this PE checks every n-th element from its
 * index against the reference and, between two barriers, that its @dst is
 * the team's first PE's byte for byte (through ubshmem_ptr()); so every
 * element of every PE's output is checked. *@bad: the first bad element
 * found, or @count. Returns 0, or the error of a barrier or ubshmem_ptr().
 */
int coll_ref_check_allreduce(const struct coll_ref_team *ti, int algo,
			     int type, int op, uint32_t seed, size_t count,
			     const void *dst, size_t *bad);

#endif /* UBFAB_TOOLS_COLL_REF_H */

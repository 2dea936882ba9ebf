// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's atomics on 64-bit words of the symmetric heap: each one
 * ATOMIC entry of the PE's queue, waited for; the old value comes back in
 * the completion's result.
 */
#include <errno.h>

#include "internal.h"

static int atomic_op(uint32_t op, uint64_t *dest, uint64_t value,
		     uint64_t cond, int pe, uint64_t *fetched)
{
	struct ubfab_sqe *sqe;
	uint64_t off, old = 0;
	int err;

	if (shm_check_pe(pe) || shm_heap_offset(dest, 8, &off) || off % 8)
		return -EINVAL;
	sqe = shm_sqe();
	ubfab_prep_atomic(sqe, op, shm_remote(pe, off), value, cond);
	shm_post(sqe);
	err = shm_drain(shm->main.posted, &old);
	if (!err && fetched)
		*fetched = old;
	return err;
}

int ubshmem_atomic_fetch_add(uint64_t *dest, uint64_t value, int pe,
			     uint64_t *fetched)
{
	return atomic_op(UBFAB_ATOMIC_FETCH_ADD, dest, value, 0, pe, fetched);
}

int ubshmem_atomic_compare_swap(uint64_t *dest, uint64_t cond,
				uint64_t value, int pe, uint64_t *fetched)
{
	return atomic_op(UBFAB_ATOMIC_CAS, dest, value, cond, pe, fetched);
}

int ubshmem_atomic_swap(uint64_t *dest, uint64_t value, int pe,
			uint64_t *fetched)
{
	return atomic_op(UBFAB_ATOMIC_SWAP, dest, value, 0, pe, fetched);
}

int ubshmem_atomic_fetch_and(uint64_t *dest, uint64_t value, int pe,
			     uint64_t *fetched)
{
	return atomic_op(UBFAB_ATOMIC_FETCH_AND, dest, value, 0, pe, fetched);
}

int ubshmem_atomic_fetch_or(uint64_t *dest, uint64_t value, int pe,
			    uint64_t *fetched)
{
	return atomic_op(UBFAB_ATOMIC_FETCH_OR, dest, value, 0, pe, fetched);
}

int ubshmem_atomic_fetch_xor(uint64_t *dest, uint64_t value, int pe,
			     uint64_t *fetched)
{
	return atomic_op(UBFAB_ATOMIC_FETCH_XOR, dest, value, 0, pe, fetched);
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's synchronisation: waiting until a signal word of this PE
 * compares to a value (WAIT_VALUE entries, or the CPU where WAIT_VALUE
 * has no such comparison) and the barrier of all PEs (a dissemination
 * barrier of ATOMIC and WAIT_VALUE entries over the heaps' reserved
 * words).
 */
#include <errno.h>
#include <sched.h>

#include "internal.h"

/* Whether @word @cmp @value holds. */
static int compares(uint64_t word, int cmp, uint64_t value)
{
	switch (cmp) {
	case UBSHMEM_CMP_EQ:
		return word == value;
	case UBSHMEM_CMP_NE:
		return word != value;
	case UBSHMEM_CMP_GT:
		return word > value;
	case UBSHMEM_CMP_GE:
		return word >= value;
	case UBSHMEM_CMP_LT:
		return word < value;
	default:
		return word <= value;
	}
}

int ubshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t value,
			      uint64_t *seen)
{
	uint64_t off, word = 0, result = 0;
	uint32_t wait = UBFAB_WAIT_GE;
	struct ubfab_sqe *sqe;
	int err, polled = 0;

	if (!shm || shm_heap_offset(sig_addr, 8, &off) || off % 8 ||
	    cmp < UBSHMEM_CMP_EQ || cmp > UBSHMEM_CMP_LE)
		return -EINVAL;
	if (cmp == UBSHMEM_CMP_EQ) {
		wait = UBFAB_WAIT_EQ;
	} else if (cmp == UBSHMEM_CMP_GT && value != UINT64_MAX) {
		value++;
	} else if (cmp != UBSHMEM_CMP_GE) {
		/* WAIT_VALUE knows EQ and GE only: the CPU waits */
		while (!compares(word = __atomic_load_n(sig_addr,
							__ATOMIC_ACQUIRE),
				 cmp, value))
			sched_yield();
		polled = 1;
		/* satisfied at once, at the modeled time of the last write */
		value = 0;
	}
	sqe = shm_sqe();
	ubfab_prep_wait_value(sqe, shm->heap_off + off, wait, value, 0);
	shm_post(sqe);
	err = shm_drain(shm->posted, &result);
	if (!err && seen)
		*seen = polled ? word : result;
	return err;
}

int ubshmem_barrier_all(void)
{
	struct ubfab_sqe *sqe;
	uint64_t epoch, word;
	int err, err2, to, dist, k;

	if (!shm)
		return -EINVAL;
	/* every PE takes part, even one whose earlier work failed */
	err = shm_drain(0, NULL);
	epoch = ++shm->barrier_epoch;
	for (k = 0, dist = 1; dist < shm->n; k++, dist <<= 1) {
		to = (shm->me + dist) % shm->n;
		word = k * sizeof(uint64_t);
		sqe = shm_sqe();
		ubfab_prep_atomic(sqe, UBFAB_ATOMIC_FETCH_ADD,
				  shm_remote(to, word), 1, 0);
		shm_post(sqe);
		sqe = shm_sqe();
		ubfab_prep_wait_value(sqe, shm->heap_off + word, UBFAB_WAIT_GE,
				      epoch, 0);
		shm_post(sqe);
	}
	err2 = shm_drain(0, NULL);
	return err ? err : err2;
}

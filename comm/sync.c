// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's synchronisation: waiting until a signal word of this PE
 * compares to a value (WAIT_VALUE entries, or where WAIT_VALUE has no
 * such comparison the CPU, or in the ordered domain the queue's looks), the signals from PE to PE that the barrier
 * and the collectives use (an ATOMIC adding one to the receiver's word of
 * the sender, a WAIT_VALUE for the count of them awaited) and the barrier
 * of a team (a dissemination barrier of those signals).
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

/*
 * In the ordered domain the CPU does not wait (the PE's queue, idle,
 * would hold back the write it waits for): the queue looks at the word,
 * a WAIT_VALUE satisfied at once whose result is the word, at its turn
 * in the domain's order, every `issue` of modeled time, until it
 * compares.
 */
static int poll_queue(uint64_t off, int cmp, uint64_t value, uint64_t *seen)
{
	struct ubfab_sqe *sqe;
	uint64_t word;
	int err;

	do {
		word = 0;
		sqe = shm_sqe();
		ubfab_prep_wait_value(sqe, shm->heap_off + off, UBFAB_WAIT_GE,
				      0, 0);
		shm_post(sqe);
		err = shm_drain(shm->main.posted, &word);
	} while (!err && !compares(word, cmp, value));
	if (!err && seen)
		*seen = word;
	return err;
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
	} else if (cmp != UBSHMEM_CMP_GE && shm_is_ordered()) {
		return poll_queue(off, cmp, value, seen);
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
	err = shm_drain(shm->main.posted, &result);
	if (!err && seen)
		*seen = polled ? word : result;
	return err;
}

/* Add one to @pe's signal word of this PE (posted, not drained). */
void shm_signal_post(int pe)
{
	struct ubfab_sqe *sqe = shm_sqe();

	ubfab_prep_atomic(sqe, UBFAB_ATOMIC_FETCH_ADD,
			  shm_remote(pe, shm->me * sizeof(uint64_t)), 1, 0);
	shm_post(sqe);
}

/*
 * Wait for the next signal of @pe: its word here reaching one more than
 * the signals awaited from it so far (posted, not drained). A PE's entries
 * run in order, so its signals to this PE land in the order sent.
 */
void shm_wait_post(int pe)
{
	struct ubfab_sqe *sqe = shm_sqe();

	ubfab_prep_wait_value(sqe, shm->heap_off + pe * sizeof(uint64_t),
			      UBFAB_WAIT_GE, ++shm->got[pe], 0);
	shm_post(sqe);
}

int shm_wait_from(int pe)
{
	shm_wait_post(pe);
	return shm_drain(0, NULL);
}

int ubshmem_barrier(const struct ubshmem_team *team)
{
	int err, err2, n, me, dist;

	if (!shm || !team || team->me < 0)
		return -EINVAL;
	n = team->n;
	me = team->me;
	/* every PE takes part, even one whose earlier work failed */
	err = shm_drain(0, NULL);
	for (dist = 1; dist < n; dist <<= 1) {
		shm_signal_post(team->pes[(me + dist) % n]);
		shm_wait_post(team->pes[(me - dist + n) % n]);
	}
	err2 = shm_drain(0, NULL);
	return err ? err : err2;
}

int ubshmem_barrier_all(void)
{
	return shm ? ubshmem_barrier(&shm->world) : -EINVAL;
}

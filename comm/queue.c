// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's queues: how every call becomes entries of the PE's queue
 * (and MoE dispatch and combine's of their own, ep.c: struct shm_queue
 * for each). Entries are numbered in their user_data as posted; their
 * completions come back in that order and are reaped here, which keeps
 * the modeled clock (the last completion's model_ns) and the first
 * failure. Also the staging buffer for transfers from and to memory
 * outside the heap, ubshmem_quiet(), ubshmem_fence() and
 * ubshmem_model_ns().
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int shm_check_pe(int pe)
{
	return shm && pe >= 0 && pe < shm->n ? 0 : -EINVAL;
}

/* The remote address of byte @off of @pe's heap. */
uint64_t shm_remote(int pe, uint64_t off)
{
	return ubfab_import_addr(&shm->imps[pe], off);
}

/* Reap @sq's next completion; @result gets entry @want's result. */
static void reap_one(struct shm_queue *sq, uint64_t want, uint64_t *result)
{
	struct ubfab_cqe *cqe;
	int err;

	do
		err = ubfab_queue_wait_cqe(sq->q, &cqe, -1);
	while (err == -EINTR);
	if (err) {	/* the queue is gone: nothing more will complete */
		sq->error = err;
		sq->reaped = sq->posted;
		return;
	}
	if (cqe->model_ns > sq->model_ns)
		sq->model_ns = cqe->model_ns;
	if (cqe->status != UBFAB_CQE_OK && !sq->error) {
		fprintf(stderr, "ubshmem: PE %d: entry of opcode %u failed: status %u\n",
			shm->me, cqe->opcode, cqe->status);
		sq->error = -EIO;
	}
	if (cqe->user_data == want && result)
		*result = cqe->result;
	sq->reaped = cqe->user_data;
	ubfab_queue_cqe_seen(sq->q);
}

/*
 * A free entry of @sq, once fewer than its depth are in flight (so that
 * the CQ, twice as deep, never fills).
 */
struct ubfab_sqe *shm_queue_sqe(struct shm_queue *sq)
{
	struct ubfab_sqe *sqe;

	while (sq->posted - sq->reaped >= sq->depth)
		reap_one(sq, 0, NULL);
	/* the engine may publish its SQ head after the completions */
	while (!(sqe = ubfab_queue_get_sqe(sq->q)))
		sched_yield();
	return sqe;
}

/* Number the entry and submit it. */
void shm_queue_post(struct shm_queue *sq, struct ubfab_sqe *sqe)
{
	int err;

	ubfab_sqe_set_data(sqe, ++sq->posted);
	err = ubfab_queue_submit(sq->q);
	/* -EIO: the queue is in error; the entry completes, flushed */
	if (err < 0 && err != -EIO && !sq->error)
		sq->error = err;
}

/*
 * Reap every completion of @sq (@result gets entry @want's) and take it
 * out of the error state; return its first failure since the last
 * call, and forget it.
 */
int shm_queue_drain(struct shm_queue *sq, uint64_t want, uint64_t *result)
{
	int err;

	while (sq->reaped < sq->posted)
		reap_one(sq, want, result);
	if (ubfab_queue_sq_flags(sq->q) & UBFAB_SQ_ERROR)
		ubfab_queue_reset(sq->q);
	err = sq->error;
	sq->error = 0;
	return err;
}

/*
 * Reap @sq's completions up to entry @upto, leaving the later ones in
 * flight; return its first failure since the last call, and forget it.
 */
int shm_queue_reap(struct shm_queue *sq, uint64_t upto)
{
	int err;

	while (sq->reaped < upto)
		reap_one(sq, 0, NULL);
	err = sq->error;
	sq->error = 0;
	return err;
}

struct ubfab_sqe *shm_sqe(void)
{
	return shm_queue_sqe(&shm->main);
}

/* Give the entry a pending fence, and post it on the PE's queue. */
void shm_post(struct ubfab_sqe *sqe)
{
	sqe->flags |= shm->fence;
	shm->fence = 0;
	shm_queue_post(&shm->main, sqe);
}

/*
 * Reap every completion of the PE's queue, do the copies of the gets (the
 * staging buffer is then free); return the first failure since the last
 * call, and forget it.
 */
int shm_drain(uint64_t want, uint64_t *result)
{
	size_t i;
	int err = shm_queue_drain(&shm->main, want, result);

	for (i = 0; i < shm->nouts; i++)
		memcpy(shm->outs[i].dest, shm->outs[i].stage, shm->outs[i].len);
	shm->nouts = 0;
	shm->stage_used = 0;
	return err;
}

/*
 * @len bytes (at most UBSHMEM_STAGING) of the staging buffer, and their
 * offset in the entity's memory in @off; drains the queue when full.
 */
void *shm_stage(size_t len, uint64_t *off)
{
	void *p;

	/* a failure stays for the next drain's caller */
	if (shm->stage_used + len > UBSHMEM_STAGING)
		shm->main.error = shm_drain(0, NULL);
	p = shm->stage + shm->stage_used;
	*off = shm->stage_off + shm->stage_used;
	shm->stage_used = (shm->stage_used + len + SHM_ALIGN - 1) &
			  ~(SHM_ALIGN - 1);
	return p;
}

/* Copy @len bytes from @stage to @dest at the next drain. */
int shm_copyout_add(void *dest, const void *stage, size_t len)
{
	struct shm_copyout *o = shm->outs;

	if (shm->nouts == shm->outs_cap) {
		size_t cap = shm->outs_cap ? 2 * shm->outs_cap : 16;

		o = realloc(o, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		shm->outs = o;
		shm->outs_cap = cap;
	}
	o[shm->nouts++] = (struct shm_copyout){ dest, stage, len };
	return 0;
}

int ubshmem_quiet(void)
{
	return shm ? shm_drain(0, NULL) : -EINVAL;
}

void ubshmem_fence(void)
{
	if (shm)
		shm->fence = UBFAB_SQE_FENCE;
}

uint64_t ubshmem_model_ns(void)
{
	return shm ? shm->main.model_ns : 0;
}

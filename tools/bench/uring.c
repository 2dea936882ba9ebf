// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench's io_uring baseline: an io_uring instance set up with the raw
 * system calls (<linux/io_uring.h>, no liburing), and NOPs run through it
 * in batches, as the NPU queue rate is measured: the yardstick of the
 * queue's message rate.
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ubbench.h"

struct uring {
	int fd;
	/* SQ: the kernel's head, the tail, the index array, the entries. */
	uint32_t *sq_head;
	uint32_t *sq_tail;
	uint32_t *sq_array;
	uint32_t sq_mask;
	uint32_t sq_entries;
	struct io_uring_sqe *sqes;
	/* CQ: the head, the kernel's tail, the entries. */
	uint32_t *cq_head;
	uint32_t *cq_tail;
	uint32_t cq_mask;
	struct io_uring_cqe *cqes;
	/* The mappings, to unmap. */
	void *sq_ring, *cq_ring;
	size_t sq_ring_size, cq_ring_size, sqes_size;
};

static void *at(void *ring, uint32_t offset)
{
	return (char *)ring + offset;
}

static void *map_ring(int fd, size_t size, off_t offset)
{
	void *p = mmap(NULL, size, PROT_RW, MAP_SHARED | MAP_POPULATE, fd,
		       offset);

	return p == MAP_FAILED ? NULL : p;
}

int uring_open(unsigned int entries, struct uring **rp)
{
	struct io_uring_params p = { 0 };
	struct uring *r;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0) {
		err = -errno;
		free(r);
		return err;
	}
	r->sq_ring_size = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
	r->cq_ring_size = p.cq_off.cqes +
			  p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_ring_size > r->sq_ring_size)
			r->sq_ring_size = r->cq_ring_size;
		r->cq_ring_size = 0;
	}
	r->sqes_size = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sq_ring = map_ring(r->fd, r->sq_ring_size, IORING_OFF_SQ_RING);
	r->cq_ring = !r->sq_ring ? NULL : !r->cq_ring_size ? r->sq_ring :
		     map_ring(r->fd, r->cq_ring_size, IORING_OFF_CQ_RING);
	r->sqes = r->cq_ring ? map_ring(r->fd, r->sqes_size,
					IORING_OFF_SQES) : NULL;
	if (!r->sqes) {
		err = -errno;
		uring_close(r);
		return err;
	}
	r->sq_head = at(r->sq_ring, p.sq_off.head);
	r->sq_tail = at(r->sq_ring, p.sq_off.tail);
	r->sq_array = at(r->sq_ring, p.sq_off.array);
	r->sq_mask = *(uint32_t *)at(r->sq_ring, p.sq_off.ring_mask);
	r->sq_entries = p.sq_entries;
	r->cq_head = at(r->cq_ring, p.cq_off.head);
	r->cq_tail = at(r->cq_ring, p.cq_off.tail);
	r->cq_mask = *(uint32_t *)at(r->cq_ring, p.cq_off.ring_mask);
	r->cqes = at(r->cq_ring, p.cq_off.cqes);
	*rp = r;
	return 0;
}

void uring_close(struct uring *r)
{
	if (!r)
		return;
	if (r->sqes)
		munmap(r->sqes, r->sqes_size);
	if (r->cq_ring && r->cq_ring != r->sq_ring)
		munmap(r->cq_ring, r->cq_ring_size);
	if (r->sq_ring)
		munmap(r->sq_ring, r->sq_ring_size);
	close(r->fd);
	free(r);
}

static int uring_enter(struct uring *r, unsigned int submit,
		       unsigned int wait)
{
	long ret = syscall(__NR_io_uring_enter, r->fd, submit, wait,
			   wait ? IORING_ENTER_GETEVENTS : 0, NULL, 0);

	return ret < 0 ? -errno : (int)ret;
}

/* Consumes the completions there are; 0, or -EIO for a failed one. */
static int uring_reap(struct uring *r, unsigned int *inflight)
{
	uint32_t head = *r->cq_head;
	uint32_t tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
	int err = 0;

	for (; head != tail; head++, (*inflight)--)
		if (r->cqes[head & r->cq_mask].res < 0)
			err = -EIO;
	__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	return err;
}

/*
 * Runs @ops NOPs, @batch (at most the SQ's depth) a system call, keeping
 * at most the SQ's depth in flight: the submission is io_uring_enter()
 * without waiting, then the CQ is read in user space, as an NPU queue's
 * is. 0 or a negative errno.
 */
int uring_nops(struct uring *r, unsigned int ops, unsigned int batch)
{
	unsigned int posted = 0, inflight = 0, n, i;
	struct io_uring_sqe *sqe;
	uint32_t tail;
	int ret;

	while (posted < ops || inflight) {
		n = ops - posted < batch ? ops - posted : batch;
		if (n && inflight + n <= r->sq_entries) {
			tail = *r->sq_tail;
			for (i = 0; i < n; i++, tail++) {
				sqe = &r->sqes[tail & r->sq_mask];
				memset(sqe, 0, sizeof(*sqe));
				sqe->opcode = IORING_OP_NOP;
				sqe->user_data = posted + i;
				r->sq_array[tail & r->sq_mask] =
					tail & r->sq_mask;
			}
			__atomic_store_n(r->sq_tail, tail, __ATOMIC_RELEASE);
			ret = uring_enter(r, n, 0);
			if (ret < 0)
				return ret;
			if ((unsigned int)ret != n)
				return -EAGAIN;
			posted += n;
			inflight += n;
		} else if (*r->cq_head ==
			   __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
			ret = uring_enter(r, 0, 1);
			if (ret < 0)
				return ret;
		}
		ret = uring_reap(r, &inflight);
		if (ret)
			return ret;
	}
	return 0;
}

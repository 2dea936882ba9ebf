// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab queue API: creating an NPU queue on an entity and mapping its
 * rings, publishing entries and ringing the doorbell, waiting for
 * completions, resetting the queue and reading its modeled clock,
 * destroying it. Posting entries and
 * reading completions are the static inline helpers of libubfab.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* A ring the kernel described: its parts within the mapping? */
bool libubfab_ring_fits(const struct ubfab_ring_offsets *r, size_t entry_size,
			uint64_t ring_size)
{
	const uint32_t words[] = { r->head, r->tail, r->flags, r->overflow };
	size_t i;

	if (!r->entries || (r->entries & (r->entries - 1)))
		return false;
	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (words[i] % sizeof(uint32_t) ||
		    words[i] + sizeof(uint32_t) > ring_size)
			return false;
	return !(r->array % 8) &&
	       r->array + (uint64_t)r->entries * entry_size <= ring_size;
}

int ubfab_queue_create(struct ubfab_dev *dev,
		       const struct ubfab_queue_attr *attr,
		       struct ubfab_queue **qp)
{
	static const struct ubfab_queue_attr defaults = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_queue_create c;
	struct ubfab_queue *q;
	int err, devfd = ubfab_dev_fd(dev);

	if (devfd < 0 || !qp)
		return -EINVAL;
	if (!attr)
		attr = &defaults;
	c = (struct ubfab_queue_create){
		.size = sizeof(c),
		.flags = attr->flags,
		.sq_entries = attr->sq_entries,
		.cq_entries = attr->cq_entries,
		.eventfd = attr->eventfd,
		.idle_us = attr->idle_us,
	};
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	if (ioctl(devfd, UBFAB_IOCTL_QUEUE_CREATE, &c)) {
		err = -errno;
		goto err_free;
	}
	q->fd = c.fd;
	if (c.ring_size > SIZE_MAX ||
	    !libubfab_ring_fits(&c.sq, sizeof(struct ubfab_sqe), c.ring_size) ||
	    !libubfab_ring_fits(&c.cq, sizeof(struct ubfab_cqe), c.ring_size)) {
		err = -EPROTO;
		goto err_close;
	}
	q->ring_size = c.ring_size;
	q->ring = mmap(NULL, q->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       q->fd, 0);
	if (q->ring == MAP_FAILED) {
		err = -errno;
		goto err_close;
	}
	q->sqes = libubfab_at(q->ring, c.sq.array);
	q->sq_head = libubfab_at(q->ring, c.sq.head);
	q->sq_tail = libubfab_at(q->ring, c.sq.tail);
	q->sq_flags = libubfab_at(q->ring, c.sq.flags);
	q->sq_overflow = libubfab_at(q->ring, c.sq.overflow);
	q->sq_mask = c.sq.entries - 1;
	/* a new queue: the kernel's head and the tail start out equal */
	q->sq_next = __atomic_load_n(q->sq_tail, __ATOMIC_RELAXED);
	q->sq_published = q->sq_next;
	q->cqes = libubfab_at(q->ring, c.cq.array);
	q->cq_head = libubfab_at(q->ring, c.cq.head);
	q->cq_tail = libubfab_at(q->ring, c.cq.tail);
	q->cq_overflow = libubfab_at(q->ring, c.cq.overflow);
	q->cq_mask = c.cq.entries - 1;
	q->flags = attr->flags;
	q->id = c.id;
	*qp = q;
	return 0;

err_close:
	close(q->fd);
err_free:
	free(q);
	return err;
}

void ubfab_queue_destroy(struct ubfab_queue *q)
{
	if (!q)
		return;
	munmap(q->ring, q->ring_size);
	close(q->fd);
	free(q);
}

int ubfab_queue_fd(const struct ubfab_queue *q)
{
	return q ? q->fd : -EINVAL;
}

/* The queue ioctls take no argument. */
static int queue_ioctl(struct ubfab_queue *q, unsigned long cmd)
{
	return ioctl(q->fd, cmd, 0) ? -errno : 0;
}

int ubfab_queue_submit(struct ubfab_queue *q)
{
	uint32_t n, flags;
	int err;

	if (!q)
		return -EINVAL;
	n = q->sq_next - q->sq_published;
	/* the entries' contents before the tail that hands them over */
	__atomic_store_n(q->sq_tail, q->sq_next, __ATOMIC_RELEASE);
	q->sq_published = q->sq_next;
	if (q->flags & UBFAB_QUEUE_POLL) {
		/*
		 * Pairs with the kernel's barrier between setting
		 * UBFAB_SQ_NEED_WAKEUP and its last look at the tail: either
		 * it sees our tail or we see its flag.
		 */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		flags = __atomic_load_n(q->sq_flags, __ATOMIC_RELAXED);
		if (flags & UBFAB_SQ_NEED_WAKEUP)
			err = queue_ioctl(q, UBFAB_IOCTL_QUEUE_DOORBELL);
		else
			err = flags & UBFAB_SQ_ERROR ? -EIO : 0;
	} else {
		err = queue_ioctl(q, UBFAB_IOCTL_QUEUE_DOORBELL);
	}
	return err ? err : (int)n;
}

/*
 * Whether the queue stalled on the full CQ we have emptied and goes on
 * only when told to: it does not poll, or it sleeps. Our CQ head store, then a full
 * barrier, then the flags: pairs with the kernel's setting
 * UBFAB_SQ_NEED_WAKEUP, barrier, last look at the CQ head.
 */
static bool stalled(struct ubfab_queue *q)
{
	uint32_t flags;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	flags = __atomic_load_n(q->sq_flags, __ATOMIC_RELAXED);
	return (flags & UBFAB_SQ_CQ_FULL) &&
	       (!(q->flags & UBFAB_QUEUE_POLL) ||
		(flags & UBFAB_SQ_NEED_WAKEUP));
}

int ubfab_queue_wait_cqe(struct ubfab_queue *q, struct ubfab_cqe **cqep,
			 int timeout_ms)
{
	struct libubfab_deadline d;
	bool rung = false;
	int err;

	if (!q || !cqep || timeout_ms < -1)
		return -EINVAL;
	libubfab_deadline_start(&d, timeout_ms);
	for (;;) {
		*cqep = ubfab_queue_peek_cqe(q);
		if (*cqep)
			return 0;
		/* once: the doorbell may have completed entries at once */
		if (!rung && stalled(q)) {
			rung = true;
			err = queue_ioctl(q, UBFAB_IOCTL_QUEUE_DOORBELL);
			if (err && err != -EIO)
				return err;
			continue;
		}
		err = libubfab_poll_in(q->fd, &d);
		if (err)
			return err;
	}
}

int ubfab_queue_reset(struct ubfab_queue *q)
{
	if (!q)
		return -EINVAL;
	return queue_ioctl(q, UBFAB_IOCTL_QUEUE_RESET);
}

int ubfab_queue_clock(struct ubfab_queue *q, uint64_t advance_ns,
		      uint64_t *now_ns)
{
	struct ubfab_queue_clock arg = {
		.size = sizeof(arg),
		.advance_ns = advance_ns,
	};

	if (!q)
		return -EINVAL;
	if (ioctl(q->fd, UBFAB_IOCTL_QUEUE_CLOCK, &arg))
		return -errno;
	if (now_ns)
		*now_ns = arg.now_ns;
	return 0;
}

int ubfab_queue_park(struct ubfab_queue *q)
{
	struct ubfab_queue_clock arg = {
		.size = sizeof(arg),
		.flags = UBFAB_CLOCK_PARK,
	};

	if (!q)
		return -EINVAL;
	return ioctl(q->fd, UBFAB_IOCTL_QUEUE_CLOCK, &arg) ? -errno : 0;
}

int ubfab_queue_stamp(struct ubfab_queue *q, uint64_t addr, uint32_t flags,
		      uint64_t *now_ns)
{
	struct ubfab_queue_stamp arg = {
		.size = sizeof(arg),
		.flags = flags,
		.addr = addr,
	};

	if (!q)
		return -EINVAL;
	if (ioctl(q->fd, UBFAB_IOCTL_QUEUE_STAMP, &arg))
		return -errno;
	if (now_ns)
		*now_ns = arg.now_ns;
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab receive queues (two-sided messages): creating one on an entity
 * and mapping its rings, posting receives, reaping receive completions,
 * destroying it. Sending is an ordinary queue entry (ubfab_prep_send(),
 * ubfab_prep_send_imm(), ubfab_prep_write_imm() in libubfab.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

int ubfab_rq_create(struct ubfab_dev *dev, uint32_t rq_entries,
		    uint32_t rcq_entries, uint32_t token, struct ubfab_rq **rqp)
{
	struct ubfab_rq_create c = {
		.size = sizeof(c),
		.rq_entries = rq_entries,
		.rcq_entries = rcq_entries,
		.token = token,
	};
	int err, devfd = ubfab_dev_fd(dev);
	struct ubfab_rq *rq;

	if (devfd < 0 || !rqp)
		return -EINVAL;
	rq = calloc(1, sizeof(*rq));
	if (!rq)
		return -ENOMEM;
	if (ioctl(devfd, UBFAB_IOCTL_RQ_CREATE, &c)) {
		err = -errno;
		goto err_free;
	}
	rq->fd = c.fd;
	if (c.ring_size > SIZE_MAX ||
	    !libubfab_ring_fits(&c.rq, sizeof(struct ubfab_rqe), c.ring_size) ||
	    !libubfab_ring_fits(&c.rcq, sizeof(struct ubfab_rcqe),
				c.ring_size)) {
		err = -EPROTO;
		goto err_close;
	}
	rq->ring_size = c.ring_size;
	rq->ring = mmap(NULL, rq->ring_size, PROT_READ | PROT_WRITE,
			MAP_SHARED, rq->fd, 0);
	if (rq->ring == MAP_FAILED) {
		err = -errno;
		goto err_close;
	}
	rq->rqes = libubfab_at(rq->ring, c.rq.array);
	rq->rq_head = libubfab_at(rq->ring, c.rq.head);
	rq->rq_tail = libubfab_at(rq->ring, c.rq.tail);
	rq->rq_overflow = libubfab_at(rq->ring, c.rq.overflow);
	rq->rq_mask = c.rq.entries - 1;
	rq->rcqes = libubfab_at(rq->ring, c.rcq.array);
	rq->rcq_head = libubfab_at(rq->ring, c.rcq.head);
	rq->rcq_tail = libubfab_at(rq->ring, c.rcq.tail);
	rq->rcq_overflow = libubfab_at(rq->ring, c.rcq.overflow);
	rq->rcq_mask = c.rcq.entries - 1;
	rq->id = c.id;
	rq->token = token;
	*rqp = rq;
	return 0;

err_close:
	close(rq->fd);
err_free:
	free(rq);
	return err;
}

void ubfab_rq_destroy(struct ubfab_rq *rq)
{
	if (!rq)
		return;
	munmap(rq->ring, rq->ring_size);
	close(rq->fd);
	free(rq);
}

int ubfab_rq_post(struct ubfab_rq *rq, uint64_t addr, uint32_t length,
		  uint64_t user_data)
{
	uint32_t tail;

	if (!rq)
		return -EINVAL;
	tail = __atomic_load_n(rq->rq_tail, __ATOMIC_RELAXED);
	if (tail - __atomic_load_n(rq->rq_head, __ATOMIC_ACQUIRE) > rq->rq_mask)
		return -EAGAIN;
	rq->rqes[tail & rq->rq_mask] = (struct ubfab_rqe){
		.user_data = user_data,
		.addr = addr,
		.length = length,
	};
	/* the entry before the tail that hands it over */
	__atomic_store_n(rq->rq_tail, tail + 1, __ATOMIC_RELEASE);
	return 0;
}

int ubfab_rq_reap(struct ubfab_rq *rq, struct ubfab_rcqe *out, uint32_t max,
		  int timeout_ms)
{
	struct libubfab_deadline d;
	uint32_t head, n, i;
	int err;

	if (!rq || !out || timeout_ms < -1)
		return -EINVAL;
	libubfab_deadline_start(&d, timeout_ms);
	head = __atomic_load_n(rq->rcq_head, __ATOMIC_RELAXED);
	/* the entries up to the tail are written */
	while (!(n = __atomic_load_n(rq->rcq_tail, __ATOMIC_ACQUIRE) - head)) {
		err = libubfab_poll_in(rq->fd, &d);
		if (err)
			return err == -ETIMEDOUT ? 0 : err;
	}
	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		out[i] = rq->rcqes[(head + i) & rq->rcq_mask];
	__atomic_store_n(rq->rcq_head, head + n, __ATOMIC_RELEASE);
	return n;
}

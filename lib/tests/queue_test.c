// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host test of libubfab's queue API, without ubfab.ko: this program
 * defines open() and ioctl() in front of the C library's, so that the
 * entity device is /dev/null, and the queue a memfd laid out as the
 * kernel describes it, whose doorbell runs a fake engine here. Checks that
 * every prep helper writes the whole entry, that indices wrap around
 * 2^32, how the SQ fills, how submit rings the doorbell (polling or not),
 * that a stalled CQ is woken, the checks of the kernel's layout, and the
 * arguments of the create ioctl. A kselftest-harness program: each case
 * runs in a process of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "kselftest_harness.h"

/* The fake kernel's queue: the last one created. */
static struct {
	struct ubfab_queue_create arg;	/* the last create, as answered */
	uint32_t start;			/* every index starts here */
	bool bad_layout;		/* describe a CQ beyond the mapping */
	char *ring;			/* the fake's own mapping */
	uint32_t sq_head, cq_tail;	/* the engine's own indices */
	bool error;			/* in the error state */
	unsigned int doorbells, resets;
} fk;

#define HDR_WORD(n)	((n) * 64)	/* each word on a cache line */

static uint32_t *word(uint32_t off)
{
	return (uint32_t *)(fk.ring + off);
}

/* Entity devices and their EIDs, as the library opens them. */
int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int fd;

	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = va_arg(ap, mode_t);
	va_end(ap);
	if (!strncmp(path, "/dev/ubfab/", 11))
		return syscall(SYS_openat, AT_FDCWD, "/dev/null", flags);
	if (!strncmp(path, "/sys/class/ubfab/", 17)) {
		fd = memfd_create("eid", MFD_CLOEXEC);
		if (fd >= 0 && pwrite(fd, "7\n", 2, 0) == 2)
			return fd;
		return -1;
	}
	return syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static int fake_create(struct ubfab_queue_create *c)
{
	uint32_t sq = c->sq_entries, cq = c->cq_entries ?: 2 * sq;
	size_t size = 4096 + (size_t)sq * 64 + (size_t)cq * 32;
	int fd;

	size = (size + 4095) & ~4095UL;
	fd = memfd_create("fake-queue", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size))
		return -1;
	fk.ring = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fk.ring == MAP_FAILED)
		return -1;
	c->fd = fd;
	c->id = 3;
	c->ring_size = size;
	c->sq = (struct ubfab_ring_offsets){
		.head = HDR_WORD(0), .tail = HDR_WORD(1), .flags = HDR_WORD(2),
		.overflow = HDR_WORD(3), .array = 4096, .entries = sq,
	};
	c->cq = (struct ubfab_ring_offsets){
		.head = HDR_WORD(4), .tail = HDR_WORD(5), .flags = HDR_WORD(6),
		.overflow = HDR_WORD(7), .array = 4096 + sq * 64,
		.entries = fk.bad_layout ? 2 * cq : cq,
	};
	fk.sq_head = fk.cq_tail = fk.start;
	*word(c->sq.head) = *word(c->sq.tail) = fk.start;
	*word(c->cq.head) = *word(c->cq.tail) = fk.start;
	fk.error = false;
	fk.doorbells = fk.resets = 0;
	fk.arg = *c;
	return 0;
}

/*
 * The engine, run by the doorbell: each entry completes with its value as
 * result; opcode 0xff fails (BAD_OPCODE) and starts the error state.
 */
static int fake_doorbell(int fd)
{
	const struct ubfab_ring_offsets *s = &fk.arg.sq, *c = &fk.arg.cq;
	struct ubfab_sqe *sqes = (void *)(fk.ring + s->array);
	struct ubfab_cqe *cqes = (void *)(fk.ring + c->array);
	uint32_t tail = __atomic_load_n(word(s->tail), __ATOMIC_ACQUIRE);
	uint64_t one = 1;

	fk.doorbells++;
	while (fk.sq_head != tail) {
		struct ubfab_sqe e = sqes[fk.sq_head & (s->entries - 1)];
		uint32_t head = __atomic_load_n(word(c->head),
						__ATOMIC_ACQUIRE);

		if (fk.cq_tail - head == c->entries) {
			__atomic_fetch_or(word(s->flags), UBFAB_SQ_CQ_FULL,
					  __ATOMIC_RELAXED);
			break;
		}
		__atomic_fetch_and(word(s->flags), ~UBFAB_SQ_CQ_FULL,
				   __ATOMIC_RELAXED);
		fk.sq_head++;
		__atomic_store_n(word(s->head), fk.sq_head, __ATOMIC_RELEASE);
		if (e.opcode == 0xff && !fk.error) {
			fk.error = true;
			__atomic_fetch_or(word(s->flags), UBFAB_SQ_ERROR,
					  __ATOMIC_RELAXED);
		}
		cqes[fk.cq_tail & (c->entries - 1)] = (struct ubfab_cqe){
			.user_data = e.user_data,
			.result = e.value,
			.status = e.opcode == 0xff ? UBFAB_CQE_BAD_OPCODE :
				  fk.error ? UBFAB_CQE_FLUSHED : UBFAB_CQE_OK,
			.opcode = e.opcode,
		};
		__atomic_store_n(word(c->tail), ++fk.cq_tail,
				 __ATOMIC_RELEASE);
	}
	/* poll() on the queue reports POLLIN from now on */
	if (write(fd, &one, sizeof(one)) != sizeof(one))
		return -1;
	if (fk.error) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* The queue ioctls, played by the fake kernel; others go through. */
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	switch (req) {
	case UBFAB_IOCTL_QUEUE_CREATE:
		return fake_create(arg);
	case UBFAB_IOCTL_QUEUE_DOORBELL:
		return fake_doorbell(fk.arg.fd);
	case UBFAB_IOCTL_QUEUE_RESET:
		fk.resets++;
		fk.error = false;
		__atomic_fetch_and(word(fk.arg.sq.flags), ~UBFAB_SQ_ERROR,
				   __ATOMIC_RELAXED);
		return 0;
	}
	return syscall(SYS_ioctl, fd, req, arg);
}

static struct ubfab_dev *dev;

FIXTURE(queue) {
	int unused;
};

/* The fake entity device, for each case. */
FIXTURE_SETUP(queue)
{
	ASSERT_EQ(0, ubfab_dev_open("npu7", &dev))
		TH_LOG("fake device");
}

FIXTURE_TEARDOWN(queue)
{
	ubfab_dev_close(dev);
}

/* A queue of the fake kernel whose indices start at @start. */
static struct ubfab_queue *queue_new(uint32_t flags, uint32_t sq, uint32_t cq,
				     uint32_t start)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_queue *q;

	attr.flags = flags;
	attr.sq_entries = sq;
	attr.cq_entries = cq;
	fk.start = start;
	if (ubfab_queue_create(dev, &attr, &q))
		return NULL;
	/* poll() needs an eventfd behind the queue's descriptor */
	close(q->fd);
	q->fd = eventfd(0, EFD_CLOEXEC);
	fk.arg.fd = q->fd;
	return q;
}

static void queue_free(struct ubfab_queue *q)
{
	munmap(fk.ring, fk.arg.ring_size);
	ubfab_queue_destroy(q);
}

/* The whole entry, so that a stale field would show. */
static bool sqe_is(const struct ubfab_sqe *got, struct ubfab_sqe want)
{
	if (!memcmp(got, &want, sizeof(want)))
		return true;
	printf("# entry of opcode %u differs\n", want.opcode);
	return false;
}

/* Every prep helper writes the whole entry. */
TEST_F(queue, prep)
{
	struct ubfab_sqe s;

#define STALE()	memset(&s, 0xa5, sizeof(s))
	STALE();
	ubfab_prep_nop(&s);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_NOP }));
	STALE();
	ubfab_prep_write(&s, 1, 2, 3);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_WRITE,
		.local = 1, .remote = 2, .length = 3 }));
	STALE();
	ubfab_prep_read(&s, 1, 2, 3);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_READ,
		.local = 1, .remote = 2, .length = 3 }));
	STALE();
	ubfab_prep_write_notify(&s, 1, 2, 3, 4, 5);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){
		.opcode = UBFAB_OP_WRITE_NOTIFY,
		.local = 1, .remote = 2, .length = 3, .notify = 4,
		.value = 5 }));
	STALE();
	ubfab_prep_atomic(&s, UBFAB_ATOMIC_CAS, 2, 5, 6);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_ATOMIC,
		.remote = 2, .value = 5, .compare = 6,
		.aux = UBFAB_ATOMIC_CAS }));
	STALE();
	ubfab_prep_copy(&s, 1, 7, 3);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_COPY,
		.local = 1, .value = 7, .length = 3 }));
	STALE();
	ubfab_prep_fill(&s, 1, 0xab, 3);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_FILL,
		.local = 1, .aux = 0xab, .length = 3 }));
	STALE();
	ubfab_prep_event_record(&s, 9);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){
		.opcode = UBFAB_OP_EVENT_RECORD,
		.aux = 9 }));
	STALE();
	ubfab_prep_event_wait(&s, 9, 10, 11);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){
		.opcode = UBFAB_OP_EVENT_WAIT,
		.aux = 9, .value = 10, .timeout_ms = 11 }));
	STALE();
	ubfab_prep_wait_value(&s, 8, UBFAB_WAIT_EQ, 10, 11);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){
		.opcode = UBFAB_OP_WAIT_VALUE,
		.local = 8, .aux = UBFAB_WAIT_EQ, .value = 10,
		.timeout_ms = 11 }));
	ubfab_sqe_set_data(&s, 12);
	ubfab_sqe_set_flags(&s, UBFAB_SQE_FENCE);
	ASSERT_TRUE(sqe_is(&s, (struct ubfab_sqe){
		.opcode = UBFAB_OP_WAIT_VALUE,
		.local = 8, .aux = UBFAB_WAIT_EQ, .value = 10,
		.timeout_ms = 11, .user_data = 12,
		.flags = UBFAB_SQE_FENCE }));
#undef STALE
	ASSERT_EQ((1ULL << 48) + 100,
		  ubfab_import_addr(&(struct ubfab_import){
			.mmap_offset = 1ULL << 48, .length = 4096 }, 100));
}

/*
 * Rounds of filling the SQ and reaping every completion, across the wrap
 * of the free-running indices: order, contents and free slots hold.
 */
TEST_F(queue, wrap)
{
	struct ubfab_queue *q = queue_new(0, 8, 16, UINT32_MAX - 20);
	struct ubfab_cqe out[8], *cqe;
	uint64_t seq = 0, want = 0;
	unsigned int round, i;

	ASSERT_NE(NULL, q);
	ASSERT_EQ(8, ubfab_queue_sq_space(q));
	for (round = 0; round < 10; round++) {
		struct ubfab_sqe *sqe;

		while ((sqe = ubfab_queue_get_sqe(q))) {
			ubfab_prep_nop(sqe);
			ubfab_sqe_set_data(sqe, seq);
			sqe->value = seq * 3;	/* the fake's result */
			seq++;
		}
		ASSERT_EQ(0, ubfab_queue_sq_space(q));
		ASSERT_EQ(8, ubfab_queue_submit(q));
		ASSERT_EQ(8, ubfab_queue_sq_space(q));
		ASSERT_EQ(8, ubfab_queue_cq_ready(q));
		/* half one at a time, half in one reap */
		for (i = 0; i < 4; i++) {
			ASSERT_EQ(0, ubfab_queue_wait_cqe(q, &cqe, 0));
			ASSERT_EQ(want, cqe->user_data);
			ASSERT_EQ(want * 3, cqe->result);
			ASSERT_EQ(UBFAB_CQE_OK, cqe->status);
			ubfab_queue_cqe_seen(q);
			want++;
		}
		ASSERT_EQ(3, ubfab_queue_reap(q, out, 3));
		ASSERT_EQ(1, ubfab_queue_reap(q, out + 3, 8));
		for (i = 0; i < 4; i++, want++)
			ASSERT_EQ(want, out[i].user_data);
		ASSERT_EQ(NULL, ubfab_queue_peek_cqe(q));
		ASSERT_EQ(0, ubfab_queue_reap(q, out, 8));
	}
	ASSERT_EQ(UINT32_MAX - 20 + 80, *q->sq_tail);
	ASSERT_EQ(UINT32_MAX - 20 + 80, *q->cq_head);
	ASSERT_EQ(10, fk.doorbells);
	queue_free(q);
}

/*
 * A CQ smaller than what was posted: the engine stalls; waiting for the
 * next completion once the CQ is empty rings the doorbell again.
 */
TEST_F(queue, cq_stall)
{
	struct ubfab_queue *q = queue_new(0, 16, 4, 5);
	struct ubfab_cqe *cqe;
	unsigned int i;

	ASSERT_NE(NULL, q);
	for (i = 0; i < 16; i++) {
		ubfab_prep_nop(ubfab_queue_get_sqe(q));
		q->sqes[(q->sq_next - 1) & q->sq_mask].user_data = i;
	}
	ASSERT_EQ(16, ubfab_queue_submit(q));
	ASSERT_TRUE(ubfab_queue_sq_flags(q) & UBFAB_SQ_CQ_FULL);
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(0, ubfab_queue_wait_cqe(q, &cqe, 1000));
		ASSERT_EQ(i, cqe->user_data);
		ubfab_queue_cqe_seen(q);
	}
	ASSERT_EQ(4, fk.doorbells);
	ASSERT_FALSE(ubfab_queue_sq_flags(q) & UBFAB_SQ_CQ_FULL);
	ASSERT_EQ(-ETIMEDOUT, ubfab_queue_wait_cqe(q, &cqe, 0));
	queue_free(q);
}

/*
 * A polling queue: submit publishes the tail and rings only when the
 * kernel sleeps; it reports the error state either way.
 */
TEST_F(queue, poll)
{
	struct ubfab_queue *q = queue_new(UBFAB_QUEUE_POLL, 4, 0, 0);
	struct ubfab_cqe *cqe;

	ASSERT_NE(NULL, q);
	ASSERT_EQ(UBFAB_QUEUE_POLL, fk.arg.flags);
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ASSERT_EQ(2, ubfab_queue_submit(q));
	ASSERT_EQ(2, *q->sq_tail);
	ASSERT_EQ(0, fk.doorbells);
	ASSERT_EQ(0, ubfab_queue_submit(q));
	ASSERT_EQ(0, fk.doorbells);
	*q->sq_flags = UBFAB_SQ_NEED_WAKEUP;
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ASSERT_EQ(1, ubfab_queue_submit(q));
	ASSERT_EQ(1, fk.doorbells);
	ASSERT_EQ(3, ubfab_queue_cq_ready(q));
	ubfab_queue_cq_advance(q, 3);

	/* the error state, seen in the flags without a doorbell */
	*q->sq_flags = UBFAB_SQ_ERROR;
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ASSERT_EQ(-EIO, ubfab_queue_submit(q));
	ASSERT_EQ(1, fk.doorbells);
	ASSERT_EQ(4, *q->sq_tail);
	ASSERT_EQ(0, ubfab_queue_reset(q));
	ASSERT_EQ(1, fk.resets);
	/* stalled and asleep: waiting rings; stalled and awake: not */
	*q->sq_flags = UBFAB_SQ_CQ_FULL;
	ASSERT_EQ(-ETIMEDOUT, ubfab_queue_wait_cqe(q, &cqe, 0));
	ASSERT_EQ(1, fk.doorbells);
	*q->sq_flags = UBFAB_SQ_CQ_FULL | UBFAB_SQ_NEED_WAKEUP;
	ASSERT_EQ(0, ubfab_queue_wait_cqe(q, &cqe, 0));
	ASSERT_EQ(2, fk.doorbells);
	queue_free(q);
}

/* A failed entry: submit says -EIO while the queue is in error. */
TEST_F(queue, error)
{
	struct ubfab_queue *q = queue_new(0, 4, 0, 0);
	struct ubfab_cqe out[3];
	struct ubfab_sqe *sqe;

	ASSERT_NE(NULL, q);
	sqe = ubfab_queue_get_sqe(q);
	ubfab_prep_nop(sqe);
	sqe->opcode = 0xff;
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ASSERT_EQ(-EIO, ubfab_queue_submit(q));
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ASSERT_EQ(-EIO, ubfab_queue_submit(q));
	ASSERT_EQ(3, ubfab_queue_reap(q, out, 3));
	ASSERT_EQ(UBFAB_CQE_BAD_OPCODE, out[0].status);
	ASSERT_EQ(UBFAB_CQE_FLUSHED, out[1].status);
	ASSERT_EQ(UBFAB_CQE_FLUSHED, out[2].status);
	ASSERT_EQ(0, ubfab_queue_reset(q));
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ASSERT_EQ(1, ubfab_queue_submit(q));
	ASSERT_EQ(1, ubfab_queue_reap(q, out, 3));
	ASSERT_EQ(UBFAB_CQE_OK, out[0].status);
	queue_free(q);
}

/* What ubfab_queue_create() asks for and what it accepts. */
TEST_F(queue, create)
{
	struct ubfab_queue_attr attr = {
		.flags = UBFAB_QUEUE_SELECTIVE, .sq_entries = 32,
		.cq_entries = 256, .eventfd = 9, .idle_us = 77,
	};
	struct ubfab_queue *q = NULL;

	ASSERT_EQ(0, ubfab_queue_create(dev, &attr, &q));
	ASSERT_EQ(sizeof(struct ubfab_queue_create), fk.arg.size);
	ASSERT_EQ(UBFAB_QUEUE_SELECTIVE, fk.arg.flags);
	ASSERT_EQ(32, fk.arg.sq_entries);
	ASSERT_EQ(256, fk.arg.cq_entries);
	ASSERT_EQ(9, fk.arg.eventfd);
	ASSERT_EQ(77, fk.arg.idle_us);
	ASSERT_EQ(UBFAB_QUEUE_SELECTIVE, q->flags);
	ASSERT_EQ(3, q->id);
	ASSERT_EQ(31, q->sq_mask);
	ASSERT_EQ(255, q->cq_mask);
	ASSERT_EQ(fk.arg.fd, ubfab_queue_fd(q));
	ASSERT_EQ((char *)q->ring + 4096, (char *)q->sqes);
	ASSERT_EQ((char *)q->ring + HDR_WORD(5), (char *)q->cq_tail);
	queue_free(q);

	ASSERT_EQ(0, ubfab_queue_create(dev, NULL, &q));
	ASSERT_EQ(UBFAB_QUEUE_DEFAULT_ENTRIES, fk.arg.sq_entries);
	ASSERT_EQ(0, fk.arg.cq_entries);
	ASSERT_EQ(0, fk.arg.flags);
	ASSERT_EQ(-1, fk.arg.eventfd);
	ASSERT_EQ(0, fk.arg.idle_us);
	queue_free(q);

	q = NULL;
	fk.bad_layout = true;
	ASSERT_EQ(-EPROTO, ubfab_queue_create(dev, NULL, &q));
	fk.bad_layout = false;
	munmap(fk.ring, fk.arg.ring_size);
	ASSERT_EQ(NULL, q);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab NPU queues through the raw uAPI: creation and its checks, the ring
 * layout and mapping, the doorbell, completions, the error state with its
 * flush and reset, CQ-full stalls, selective completion, eventfd and poll(),
 * polling mode, EVENT_RECORD/WAIT, WAIT_VALUE, and destroying queues with
 * work in flight.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ubfab.h>

#include "kselftest_harness.h"
#include "ubfab_test.h"

#define PAGE 4096UL

static int dev_open(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/ubfab/%s", name);
	return open(path, O_RDWR | O_CLOEXEC);
}

/* A queue as user space sees it: its descriptor and its mapped rings. */
struct ring {
	struct ubfab_queue_create c;
	int fd;
	char *map;
	uint32_t *sq_head, *sq_tail, *sq_flags, *sq_overflow;
	uint32_t *cq_head, *cq_tail, *cq_overflow;
	struct ubfab_sqe *sqes;
	struct ubfab_cqe *cqes;
	uint32_t tail;		/* the next SQ slot to fill */
};

static int queue_create(int dev, struct ubfab_queue_create *c)
{
	return ioctl(dev, UBFAB_IOCTL_QUEUE_CREATE, c) ? -errno : 0;
}

/* Map the rings of the queue r->fd, laid out as r->c says: 0 or -errno. */
static int ring_map(struct ring *r)
{
	r->tail = 0;
	r->map = mmap(NULL, r->c.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->fd, 0);
	if (r->map == MAP_FAILED) {
		int err = errno;

		close(r->fd);
		return -err;
	}
	r->sq_head = (uint32_t *)(r->map + r->c.sq.head);
	r->sq_tail = (uint32_t *)(r->map + r->c.sq.tail);
	r->sq_flags = (uint32_t *)(r->map + r->c.sq.flags);
	r->sq_overflow = (uint32_t *)(r->map + r->c.sq.overflow);
	r->cq_head = (uint32_t *)(r->map + r->c.cq.head);
	r->cq_tail = (uint32_t *)(r->map + r->c.cq.tail);
	r->cq_overflow = (uint32_t *)(r->map + r->c.cq.overflow);
	r->sqes = (struct ubfab_sqe *)(r->map + r->c.sq.array);
	r->cqes = (struct ubfab_cqe *)(r->map + r->c.cq.array);
	return 0;
}

/* Create a queue and map it: 0 or -errno. */
static int ring_open(int dev, uint32_t flags, uint32_t sq, uint32_t cq,
		     int efd, uint32_t idle_us, struct ring *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->c = (struct ubfab_queue_create) {
		.size = sizeof(r->c), .flags = flags, .sq_entries = sq,
		.cq_entries = cq, .eventfd = efd, .idle_us = idle_us,
	};
	ret = queue_create(dev, &r->c);
	if (ret)
		return ret;
	r->fd = r->c.fd;
	return ring_map(r);
}

static void ring_close(struct ring *r)
{
	munmap(r->map, r->c.ring_size);
	close(r->fd);
}

/* The next SQ entry, zeroed; ring_submit() publishes it. */
static struct ubfab_sqe *ring_sqe(struct ring *r, uint8_t opcode,
				  uint64_t user_data)
{
	struct ubfab_sqe *sqe = &r->sqes[r->tail++ & (r->c.sq.entries - 1)];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = opcode;
	sqe->user_data = user_data;
	return sqe;
}

static void ring_submit(struct ring *r)
{
	__atomic_store_n(r->sq_tail, r->tail, __ATOMIC_RELEASE);
}

static int ring_doorbell(struct ring *r)
{
	return ioctl(r->fd, UBFAB_IOCTL_QUEUE_DOORBELL, 0) ? -errno : 0;
}

static uint32_t ring_ready(struct ring *r)
{
	return __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) - *r->cq_head;
}

static uint32_t sq_flags(struct ring *r)
{
	return __atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE);
}

/* Wait up to ms for at least n unconsumed completions; return how many. */
static uint32_t ring_wait(struct ring *r, uint32_t n, int ms)
{
	while (ring_ready(r) < n && ms-- > 0)
		usleep(1000);
	return ring_ready(r);
}

/* Wait up to ms for an SQ flag to be set; return whether it is. */
static bool flag_wait(struct ring *r, uint32_t flag, int ms)
{
	while (!(sq_flags(r) & flag) && ms-- > 0)
		usleep(1000);
	return sq_flags(r) & flag;
}

/*
 * What a polling queue's user does after posting: ring the doorbell only
 * when the engine asked for it (as io_uring's SQPOLL). Return whether it
 * had to; a doorbell that failed shows as a completion that never comes.
 */
static bool ring_kick_if_asleep(struct ring *r)
{
	/* Orders the tail's store before the flag's load (uAPI header). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(sq_flags(r) & UBFAB_SQ_NEED_WAKEUP))
		return false;
	ring_doorbell(r);
	return true;
}

/* Consume one completion (there must be one). */
static struct ubfab_cqe ring_reap(struct ring *r)
{
	uint32_t head = *r->cq_head;
	struct ubfab_cqe cqe = r->cqes[head & (r->c.cq.entries - 1)];

	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return cqe;
}

/* Post n NOPs with user_data base, base + 1, ... */
static void post_nops(struct ring *r, unsigned int n, uint64_t base)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ring_sqe(r, UBFAB_OP_NOP, base + i);
	ring_submit(r);
}

FIXTURE(queue) {
	int npu0;
	int npu1;
};

FIXTURE_SETUP(queue)
{
	ASSERT_EQ(0, ubfab_reload("nodes=1 chips_per_node=1 cpus_per_node=1 npu_mem=64M cpu_mem=64M"));
	self->npu0 = dev_open("npu0");
	ASSERT_LE(0, self->npu0);
	self->npu1 = dev_open("npu1");
	ASSERT_LE(0, self->npu1);
}

FIXTURE_TEARDOWN(queue)
{
	close(self->npu0);
	close(self->npu1);
	ubfab_unload();
}

/* Every malformed argument is refused with its errno and creates nothing. */
TEST_F(queue, create_checks)
{
	struct {
		struct ubfab_queue_create c;
		uint64_t extra;
	} big;
	struct ubfab_queue_create c;
	int efd, fd2;

#define CREATE(field, val) ({ c = (struct ubfab_queue_create) { \
	.size = sizeof(c), .sq_entries = 8, .eventfd = -1 }; \
	c.field = (val); queue_create(self->npu0, &c); })
	EXPECT_EQ(-EINVAL, CREATE(flags, UBFAB_QUEUE_FLAGS + 1));
	EXPECT_EQ(-EINVAL, CREATE(sq_entries, 0));
	EXPECT_EQ(-EINVAL, CREATE(sq_entries, 3));
	EXPECT_EQ(-EINVAL, CREATE(sq_entries, UBFAB_QUEUE_MAX_ENTRIES * 2));
	EXPECT_EQ(-EINVAL, CREATE(cq_entries, 6));
	EXPECT_EQ(-EINVAL, CREATE(cq_entries, UBFAB_QUEUE_MAX_CQ_ENTRIES * 2));
	EXPECT_EQ(-EINVAL, CREATE(idle_us, 10));
	c.flags = UBFAB_QUEUE_POLL;
	c.idle_us = 1000001;
	EXPECT_EQ(-EINVAL, queue_create(self->npu0, &c));
	EXPECT_EQ(-EBADF, CREATE(eventfd, -2));
	EXPECT_EQ(-EBADF, CREATE(eventfd, 1000));
	EXPECT_EQ(-EBADF, CREATE(eventfd, self->npu1));
	EXPECT_EQ(-EINVAL, CREATE(size, offsetof(struct ubfab_queue_create, cq)));
	EXPECT_EQ(-EINVAL, CREATE(size, 0));
	/* Nothing was created: the next descriptor is still free. */
	fd2 = dup(0);
	ASSERT_LE(0, fd2);
	close(fd2);

	/* A larger argument: its extra bytes must be zero. */
	memset(&big, 0, sizeof(big));
	big.c = (struct ubfab_queue_create) { .size = sizeof(big),
		.sq_entries = 4, .eventfd = -1 };
	big.extra = 1;
	EXPECT_EQ(-E2BIG, queue_create(self->npu0, &big.c));
	big.extra = 0;
	ASSERT_EQ(0, queue_create(self->npu0, &big.c));
	EXPECT_EQ(fd2, big.c.fd);
	EXPECT_EQ(FD_CLOEXEC, fcntl(big.c.fd, F_GETFD));
	EXPECT_EQ(8, big.c.cq.entries);	/* 0 means twice the SQ */
	EXPECT_EQ(4, big.c.sq.entries);
	EXPECT_EQ(0, big.extra);

	/* Largest depths, an eventfd, polling with the largest idle time. */
	efd = eventfd(0, EFD_CLOEXEC);
	ASSERT_LE(0, efd);
	c = (struct ubfab_queue_create) { .size = sizeof(c),
		.flags = UBFAB_QUEUE_FLAGS, .eventfd = efd,
		.sq_entries = UBFAB_QUEUE_MAX_ENTRIES,
		.cq_entries = UBFAB_QUEUE_MAX_CQ_ENTRIES, .idle_us = 1000000 };
	ASSERT_EQ(0, queue_create(self->npu0, &c));
	EXPECT_NE(big.c.id, c.id);
	EXPECT_LE(UBFAB_QUEUE_MAX_ENTRIES * 64 + UBFAB_QUEUE_MAX_CQ_ENTRIES * 32,
		  c.ring_size);
	close(c.fd);
	close(efd);
	close(big.c.fd);
#undef CREATE
}

/* Each index and flag word on its own cache line; everything in the map. */
TEST_F(queue, layout)
{
	struct ubfab_ring_offsets *o[2];
	uint32_t words[8], i, j;
	struct ring r;

	ASSERT_EQ(0, ring_open(self->npu0, 0, 64, 0, -1, 0, &r));
	o[0] = &r.c.sq;
	o[1] = &r.c.cq;
	for (i = 0; i < 2; i++) {
		words[4 * i] = o[i]->head;
		words[4 * i + 1] = o[i]->tail;
		words[4 * i + 2] = o[i]->flags;
		words[4 * i + 3] = o[i]->overflow;
		EXPECT_EQ(0, o[i]->__reserved);
	}
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(0, words[i] % 4);
		EXPECT_GE(r.c.ring_size, words[i] + 4);
		for (j = 0; j < i; j++)
			EXPECT_NE(words[i] / 64, words[j] / 64);
		/* No word shares a line with the entries. */
		EXPECT_TRUE(words[i] / 64 < r.c.sq.array / 64 &&
			    words[i] / 64 < r.c.cq.array / 64);
	}
	EXPECT_EQ(64, r.c.sq.entries);
	EXPECT_EQ(128, r.c.cq.entries);
	EXPECT_EQ(0, r.c.sq.array % 64);
	EXPECT_EQ(0, r.c.cq.array % 32);
	EXPECT_LE(r.c.sq.array + 64 * 64, r.c.cq.array);
	EXPECT_LE(r.c.cq.array + 128 * 32, r.c.ring_size);
	EXPECT_EQ(0, r.c.ring_size % PAGE);
	/* A new queue is empty and not in error. */
	EXPECT_EQ(0, *r.sq_head);
	EXPECT_EQ(0, *r.cq_tail);
	EXPECT_EQ(0, sq_flags(&r));
	ring_close(&r);
}

TEST_F(queue, mmap_checks)
{
	struct ring r;
	void *p;

	ASSERT_EQ(0, ring_open(self->npu0, 0, 16, 0, -1, 0, &r));
	p = mmap(NULL, r.c.ring_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 r.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, r.c.ring_size + PAGE, PROT_READ, MAP_SHARED, r.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, r.fd, PAGE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* A second mapping shows the same rings. */
	p = mmap(NULL, r.c.ring_size, PROT_READ, MAP_SHARED, r.fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	post_nops(&r, 1, 7);
	EXPECT_EQ(0, ring_doorbell(&r));
	EXPECT_EQ(1, ring_wait(&r, 1, 2000));
	EXPECT_EQ(1, *(uint32_t *)((char *)p + r.c.cq.tail));
	munmap(p, r.c.ring_size);
	ring_close(&r);
}

/* NOPs complete in order with their user_data, only after the doorbell. */
TEST_F(queue, nop_doorbell)
{
	struct ubfab_cqe cqe;
	struct ring r;
	unsigned int i, round;

	ASSERT_EQ(0, ring_open(self->npu0, 0, 16, 0, -1, 0, &r));
	EXPECT_EQ(-EINVAL, ioctl(r.fd, UBFAB_IOCTL_QUEUE_DOORBELL, 1) ? -errno : 0);
	EXPECT_EQ(-ENOTTY, ioctl(r.fd, UBFAB_IOCTL_MEM_ALLOC, 0) ? -errno : 0);
	EXPECT_EQ(-EINVAL, ioctl(r.fd, UBFAB_IOCTL_QUEUE_RESET, 1) ? -errno : 0);

	/* More rounds than the ring holds: indices wrap. */
	for (round = 0; round < 5; round++) {
		post_nops(&r, 10, 100 * round);
		usleep(20000);
		EXPECT_EQ(0, ring_ready(&r));	/* no doorbell, nothing ran */
		EXPECT_EQ(0, ring_doorbell(&r));
		ASSERT_EQ(10, ring_wait(&r, 10, 2000));
		EXPECT_EQ(r.tail, __atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE));
		for (i = 0; i < 10; i++) {
			cqe = ring_reap(&r);
			EXPECT_EQ(100 * round + i, cqe.user_data);
			EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
			EXPECT_EQ(UBFAB_OP_NOP, cqe.opcode);
			EXPECT_EQ(0, cqe.result);
			EXPECT_EQ(0, cqe.bytes);
			EXPECT_EQ(0, cqe.__reserved);
		}
	}
	EXPECT_EQ(0, sq_flags(&r));
	ring_close(&r);
}

/* A full SQ of entries runs in several rounds; nothing is lost. */
TEST_F(queue, full_sq)
{
	struct ring r;
	unsigned int i;

	ASSERT_EQ(0, ring_open(self->npu0, 0, 1024, 0, -1, 0, &r));
	post_nops(&r, 1024, 0);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(1024, ring_wait(&r, 1024, 5000));
	for (i = 0; i < 1024; i++)
		ASSERT_EQ(i, ring_reap(&r).user_data);
	ring_close(&r);
}

/* A tail more than the ring ahead: error state, counted, nothing run. */
TEST_F(queue, invalid_tail)
{
	struct ring r;

	ASSERT_EQ(0, ring_open(self->npu0, 0, 8, 0, -1, 0, &r));
	post_nops(&r, 2, 0);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(2, ring_wait(&r, 2, 2000));

	__atomic_store_n(r.sq_tail, r.tail + 9, __ATOMIC_RELEASE);
	EXPECT_EQ(-EIO, ring_doorbell(&r));
	usleep(20000);
	EXPECT_EQ(2, ring_ready(&r));
	EXPECT_EQ(2, *r.sq_head);
	EXPECT_EQ(1, *r.sq_overflow);
	EXPECT_TRUE(sq_flags(&r) & UBFAB_SQ_ERROR);
	/* Scribbling on the engine's words changes nothing. */
	*r.sq_head = 1000;
	*r.sq_flags = 0;
	EXPECT_EQ(-EIO, ring_doorbell(&r));

	/* A reset with the tail still invalid: in error again at once. */
	EXPECT_EQ(0, ioctl(r.fd, UBFAB_IOCTL_QUEUE_RESET, 0));
	EXPECT_EQ(-EIO, ring_doorbell(&r));
	for (int i = 0; i < 2000 && *r.sq_overflow != 2; i++)
		usleep(1000);
	EXPECT_EQ(2, *r.sq_overflow);
	EXPECT_TRUE(sq_flags(&r) & UBFAB_SQ_ERROR);

	/* A valid tail again, then reset: the queue works. */
	ring_submit(&r);
	EXPECT_EQ(0, ioctl(r.fd, UBFAB_IOCTL_QUEUE_RESET, 0));
	EXPECT_EQ(0, sq_flags(&r) & UBFAB_SQ_ERROR);
	post_nops(&r, 1, 42);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(3, ring_wait(&r, 3, 2000));
	EXPECT_EQ(0, sq_flags(&r) & UBFAB_SQ_ERROR);
	ring_reap(&r);
	ring_reap(&r);
	EXPECT_EQ(42, ring_reap(&r).user_data);
	ring_close(&r);
}

/*
 * Entries that are not valid fail with BAD_OPCODE or BAD_ENTRY, the queue
 * flushes what follows, and works again after a reset.
 */
TEST_F(queue, bad_entries)
{
	struct ubfab_sqe bad[] = {
		{ .opcode = UBFAB_OP_WRITE_IMM + 1 },
		{ .opcode = 255 },
		{ .opcode = UBFAB_OP_NOP, .flags = 1 << 2 },
		{ .opcode = UBFAB_OP_NOP, .__reserved = 1 },
		{ .opcode = UBFAB_OP_NOP, .length = 1 },
		{ .opcode = UBFAB_OP_NOP, .local = 8 },
		{ .opcode = UBFAB_OP_NOP, .remote = 8 },
		{ .opcode = UBFAB_OP_NOP, .value = 1 },
		{ .opcode = UBFAB_OP_NOP, .compare = 1 },
		{ .opcode = UBFAB_OP_NOP, .notify = 8 },
		{ .opcode = UBFAB_OP_NOP, .aux = 1 },
		{ .opcode = UBFAB_OP_NOP, .timeout_ms = 1 },
		{ .opcode = UBFAB_OP_EVENT_RECORD, .aux = UBFAB_QUEUE_EVENTS },
		{ .opcode = UBFAB_OP_EVENT_RECORD, .value = 1 },
		{ .opcode = UBFAB_OP_EVENT_RECORD, .timeout_ms = 1 },
		{ .opcode = UBFAB_OP_EVENT_WAIT, .aux = UBFAB_QUEUE_EVENTS },
		{ .opcode = UBFAB_OP_EVENT_WAIT, .local = 8 },
		{ .opcode = UBFAB_OP_WAIT_VALUE, .local = 4 },
		{ .opcode = UBFAB_OP_WAIT_VALUE, .aux = 2 },
		{ .opcode = UBFAB_OP_WAIT_VALUE, .remote = 8 },
		{ .opcode = UBFAB_OP_WAIT_VALUE, .length = 8 },
		{ .opcode = UBFAB_OP_COMPUTE, .length = 8 },
		{ .opcode = UBFAB_OP_COMPUTE, .local = 8 },
		{ .opcode = UBFAB_OP_COMPUTE, .aux = 1 },
		{ .opcode = UBFAB_OP_COMPUTE, .timeout_ms = 1 },
	};
	struct ubfab_cqe cqe;
	unsigned int i;
	struct ring r;

	ASSERT_EQ(0, ring_open(self->npu0, 0, 8, 0, -1, 0, &r));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint16_t want = bad[i].opcode > UBFAB_OP_COMPUTE ?
				UBFAB_CQE_BAD_OPCODE : UBFAB_CQE_BAD_ENTRY;

		post_nops(&r, 1, 1);
		*ring_sqe(&r, 0, 0) = bad[i];
		r.sqes[(r.tail - 1) % 8].user_data = 2;
		post_nops(&r, 2, 3);
		EXPECT_EQ(-EIO, ring_doorbell(&r));
		ASSERT_EQ(4, ring_wait(&r, 4, 2000)) TH_LOG("entry %u", i);
		EXPECT_TRUE(sq_flags(&r) & UBFAB_SQ_ERROR);
		cqe = ring_reap(&r);
		EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
		cqe = ring_reap(&r);
		EXPECT_EQ(2, cqe.user_data);
		EXPECT_EQ(want, cqe.status) TH_LOG("entry %u", i);
		EXPECT_EQ(bad[i].opcode, cqe.opcode);
		for (uint64_t u = 3; u < 5; u++) {
			cqe = ring_reap(&r);
			EXPECT_EQ(u, cqe.user_data);
			EXPECT_EQ(UBFAB_CQE_FLUSHED, cqe.status);
		}
		/* Posted later: flushed too, until the reset. */
		post_nops(&r, 1, 5);
		EXPECT_EQ(-EIO, ring_doorbell(&r));
		ASSERT_EQ(1, ring_wait(&r, 1, 2000));
		EXPECT_EQ(UBFAB_CQE_FLUSHED, ring_reap(&r).status);
		/* Nothing is left to flush: ready before the call returns. */
		EXPECT_EQ(0, ioctl(r.fd, UBFAB_IOCTL_QUEUE_RESET, 0));
		EXPECT_EQ(0, sq_flags(&r) & UBFAB_SQ_ERROR);
		ASSERT_EQ(0, ring_doorbell(&r));
	}
	/* Reset when not in error: a no-op. */
	EXPECT_EQ(0, ioctl(r.fd, UBFAB_IOCTL_QUEUE_RESET, 0));
	post_nops(&r, 1, 9);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(1, ring_wait(&r, 1, 2000));
	EXPECT_EQ(UBFAB_CQE_OK, ring_reap(&r).status);
	ring_close(&r);
}

/* A full CQ stalls the queue, counted once; nothing is lost. */
TEST_F(queue, cq_full)
{
	struct ring r;
	unsigned int i;

	ASSERT_EQ(0, ring_open(self->npu0, 0, 16, 4, -1, 0, &r));
	post_nops(&r, 10, 0);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(4, ring_wait(&r, 4, 2000));
	usleep(20000);
	EXPECT_EQ(4, ring_ready(&r));
	EXPECT_TRUE(sq_flags(&r) & UBFAB_SQ_CQ_FULL);
	EXPECT_EQ(1, *r.cq_overflow);
	EXPECT_EQ(4, *r.sq_head);	/* the rest wait in the SQ */
	EXPECT_EQ(0, ring_doorbell(&r));
	EXPECT_EQ(1, *r.cq_overflow);	/* once per stall */

	for (i = 0; i < 4; i++)
		EXPECT_EQ(i, ring_reap(&r).user_data);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(4, ring_wait(&r, 4, 2000));
	EXPECT_EQ(2, *r.cq_overflow);
	for (i = 4; i < 8; i++)
		EXPECT_EQ(i, ring_reap(&r).user_data);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(2, ring_wait(&r, 2, 2000));
	EXPECT_EQ(0, sq_flags(&r) & UBFAB_SQ_CQ_FULL);
	for (i = 8; i < 10; i++)
		EXPECT_EQ(i, ring_reap(&r).user_data);
	ring_close(&r);
}

/* A selective queue completes SIGNAL entries and failures only. */
TEST_F(queue, selective)
{
	struct ubfab_cqe cqe;
	struct ring r;

	ASSERT_EQ(0, ring_open(self->npu0, UBFAB_QUEUE_SELECTIVE, 16, 0, -1, 0, &r));
	post_nops(&r, 5, 0);
	ring_sqe(&r, UBFAB_OP_NOP, 5)->flags = UBFAB_SQE_SIGNAL;
	post_nops(&r, 2, 6);
	ring_sqe(&r, UBFAB_OP_NOP, 8)->flags = UBFAB_SQE_SIGNAL | UBFAB_SQE_FENCE;
	ring_submit(&r);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(2, ring_wait(&r, 2, 2000));
	usleep(20000);
	EXPECT_EQ(2, ring_ready(&r));
	EXPECT_EQ(5, ring_reap(&r).user_data);
	EXPECT_EQ(8, ring_reap(&r).user_data);
	EXPECT_EQ(9, *r.sq_head);

	/* A failure completes without SIGNAL; later entries flush. */
	ring_sqe(&r, UBFAB_OP_NOP, 10)->value = 1;
	post_nops(&r, 1, 11);
	EXPECT_EQ(-EIO, ring_doorbell(&r));
	ASSERT_EQ(2, ring_wait(&r, 2, 2000));
	cqe = ring_reap(&r);
	EXPECT_EQ(10, cqe.user_data);
	EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, cqe.status);
	cqe = ring_reap(&r);
	EXPECT_EQ(11, cqe.user_data);
	EXPECT_EQ(UBFAB_CQE_FLUSHED, cqe.status);
	ring_close(&r);
}

/* The eventfd counts rounds with completions; poll() says when to reap. */
TEST_F(queue, eventfd_poll)
{
	uint64_t count = 0;
	int64_t t0;
	struct pollfd pfd;
	int efd, ret, ready;
	struct ring r;

	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, ring_open(self->npu0, 0, 16, 0, efd, 0, &r));
	pfd = (struct pollfd) { .fd = r.fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(-1, read(efd, &count, sizeof(count)));
	EXPECT_EQ(EAGAIN, errno);

	post_nops(&r, 3, 0);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(1, poll(&pfd, 1, 2000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(3, ring_wait(&r, 3, 2000));
	ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
	EXPECT_EQ(1, count);	/* one round */
	ring_reap(&r);
	ring_reap(&r);
	ring_reap(&r);
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	/*
	 * poll() sleeps until a worker posts (a timed-out EVENT_WAIT). Nothing
	 * is ready at first unless the guest was too slow to look in time.
	 */
	ring_sqe(&r, UBFAB_OP_EVENT_WAIT, 9)->value = 1;
	r.sqes[(r.tail - 1) % 16].timeout_ms = 500;
	ring_submit(&r);
	t0 = now_ms();
	ret = ring_doorbell(&r);
	ready = poll(&pfd, 1, 0);
	if (now_ms() - t0 < 400) {
		EXPECT_EQ(0, ret);
		EXPECT_EQ(0, ready);
	} else {
		TH_LOG("guest too slow to see the wait before its time-out");
	}
	ASSERT_EQ(1, poll(&pfd, 1, 5000));
	/* Readable: a completion is there to reap (published). */
	ASSERT_EQ(1, ring_ready(&r));
	EXPECT_EQ(UBFAB_CQE_TIMEOUT, ring_reap(&r).status);
	/* The worker signals the eventfd just after it publishes. */
	pfd = (struct pollfd) { .fd = efd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 2000));
	ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
	EXPECT_EQ(1, count);
	ring_close(&r);
	close(efd);
}

/*
 * A polling queue takes entries with no doorbell until it goes idle, then
 * sets NEED_WAKEUP and waits for one. Its user follows the protocol, so a
 * guest too slow to post within the idle time (1 s, the longest) costs a
 * doorbell, not a failure; most entries must still run without one.
 */
TEST_F(queue, poll_mode)
{
	int i, busy = 0;
	struct ring r;

	ASSERT_EQ(0, ring_open(self->npu0, UBFAB_QUEUE_POLL, 16, 0, -1,
			       1000000, &r));
	EXPECT_TRUE(sq_flags(&r) & UBFAB_SQ_NEED_WAKEUP);
	post_nops(&r, 1, 0);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(1, ring_wait(&r, 1, 2000));
	ring_reap(&r);
	/* Busy: entries run with no system call. */
	for (i = 1; i < 20 && busy < 5; i++) {
		post_nops(&r, 1, i);
		if (ring_kick_if_asleep(&r))
			TH_LOG("entry %d: the engine had gone to sleep", i);
		else
			busy++;
		ASSERT_EQ(1, ring_wait(&r, 1, 2000)) TH_LOG("entry %d", i);
		EXPECT_EQ(i, ring_reap(&r).user_data);
	}
	EXPECT_EQ(5, busy);

	/* Idle for longer than idle_us: asleep, waiting for the doorbell. */
	ASSERT_TRUE(flag_wait(&r, UBFAB_SQ_NEED_WAKEUP, 5000));
	/* The engine looks at the tail once more right after the flag. */
	usleep(100000);
	post_nops(&r, 1, 100);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	EXPECT_TRUE(sq_flags(&r) & UBFAB_SQ_NEED_WAKEUP);
	usleep(50000);
	EXPECT_EQ(0, ring_ready(&r));
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(1, ring_wait(&r, 1, 2000));
	EXPECT_EQ(100, ring_reap(&r).user_data);
	ring_close(&r);
}

/*
 * A full CQ stalls a polling queue, which resumes by itself while it still
 * polls (1 s, as in poll_mode; after that, it asks for the doorbell).
 */
TEST_F(queue, poll_mode_cq_full)
{
	struct ring r;
	unsigned int i;

	ASSERT_EQ(0, ring_open(self->npu0, UBFAB_QUEUE_POLL, 8, 2, -1,
			       1000000, &r));
	post_nops(&r, 4, 0);
	EXPECT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(2, ring_wait(&r, 2, 2000));
	/* The stall is flagged just after the second completion. */
	ASSERT_TRUE(flag_wait(&r, UBFAB_SQ_CQ_FULL, 2000));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(i, ring_reap(&r).user_data);
	if (ring_kick_if_asleep(&r))
		TH_LOG("the engine had gone to sleep");
	ASSERT_EQ(2, ring_wait(&r, 2, 2000));
	for (i = 2; i < 4; i++)
		EXPECT_EQ(i, ring_reap(&r).user_data);
	EXPECT_LE(1, *r.cq_overflow);
	ring_close(&r);
}

/* EVENT_WAIT on one queue holds it until EVENT_RECORD on another. */
TEST_F(queue, events)
{
	struct ubfab_cqe cqe;
	struct ring a, b;
	int ret;

	ASSERT_EQ(0, ring_open(self->npu0, 0, 8, 0, -1, 0, &a));
	ASSERT_EQ(0, ring_open(self->npu0, 0, 8, 0, -1, 0, &b));
	ring_sqe(&b, UBFAB_OP_EVENT_WAIT, 1)->aux = 7;
	b.sqes[0].value = 2;
	post_nops(&b, 1, 2);
	EXPECT_EQ(0, ring_doorbell(&b));
	usleep(50000);
	EXPECT_EQ(0, ring_ready(&b));

	ring_sqe(&a, UBFAB_OP_EVENT_RECORD, 3)->aux = 7;
	ring_submit(&a);
	EXPECT_EQ(0, ring_doorbell(&a));
	ASSERT_EQ(1, ring_wait(&a, 1, 2000));
	cqe = ring_reap(&a);
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_EQ(1, cqe.result);
	usleep(50000);
	EXPECT_EQ(0, ring_ready(&b));	/* 1 < 2 */

	ring_sqe(&a, UBFAB_OP_EVENT_RECORD, 4)->aux = 7;
	ring_submit(&a);
	EXPECT_EQ(0, ring_doorbell(&a));
	ASSERT_EQ(2, ring_wait(&b, 2, 2000));
	cqe = ring_reap(&b);
	EXPECT_EQ(1, cqe.user_data);
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_EQ(2, cqe.result);
	EXPECT_EQ(2, ring_reap(&b).user_data);
	EXPECT_EQ(2, ring_reap(&a).result);

	/* Already reached: no wait. A time-out fails the entry. */
	ring_sqe(&b, UBFAB_OP_EVENT_WAIT, 5)->aux = 7;
	b.sqes[(b.tail - 1) % 8].value = 2;
	ring_sqe(&b, UBFAB_OP_EVENT_WAIT, 6)->aux = 8;
	b.sqes[(b.tail - 1) % 8].value = 1;
	b.sqes[(b.tail - 1) % 8].timeout_ms = 50;
	ring_submit(&b);
	ret = ring_doorbell(&b);
	/* -EIO if the time-out came before the call returned */
	EXPECT_TRUE(ret == 0 || ret == -EIO) TH_LOG("doorbell: %d", ret);
	ASSERT_EQ(2, ring_wait(&b, 2, 2000));
	EXPECT_EQ(UBFAB_CQE_OK, ring_reap(&b).status);
	cqe = ring_reap(&b);
	EXPECT_EQ(UBFAB_CQE_TIMEOUT, cqe.status);
	EXPECT_EQ(0, cqe.result);
	EXPECT_TRUE(sq_flags(&b) & UBFAB_SQ_ERROR);

	/* Counters belong to the entity file: another file's are apart. */
	ring_close(&a);
	ASSERT_EQ(0, ring_open(self->npu1, 0, 8, 0, -1, 0, &a));
	ring_sqe(&a, UBFAB_OP_EVENT_RECORD, 1)->aux = 7;
	ring_submit(&a);
	EXPECT_EQ(0, ring_doorbell(&a));
	ASSERT_EQ(1, ring_wait(&a, 1, 2000));
	EXPECT_EQ(1, ring_reap(&a).result);
	ring_close(&a);
	ring_close(&b);
}

/* WAIT_VALUE holds the queue until a store from user space satisfies it. */
TEST_F(queue, wait_value)
{
	struct ubfab_mem_alloc m = { .size = sizeof(m), .length = PAGE };
	volatile uint64_t *word;
	struct ubfab_cqe cqe;
	struct ring r;
	int ret;

	ASSERT_EQ(0, ioctl(self->npu0, UBFAB_IOCTL_MEM_ALLOC, &m));
	word = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		    self->npu0, m.offset);
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, ring_open(self->npu0, 0, 8, 0, -1, 0, &r));

	/* GE */
	ring_sqe(&r, UBFAB_OP_WAIT_VALUE, 1)->local = m.offset + 8;
	r.sqes[0].value = 5;
	post_nops(&r, 1, 2);
	EXPECT_EQ(0, ring_doorbell(&r));
	usleep(50000);
	EXPECT_EQ(0, ring_ready(&r));
	word[1] = 3;
	usleep(50000);
	EXPECT_EQ(0, ring_ready(&r));
	word[1] = 7;
	ASSERT_EQ(2, ring_wait(&r, 2, 2000));
	cqe = ring_reap(&r);
	EXPECT_EQ(1, cqe.user_data);
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_EQ(UBFAB_OP_WAIT_VALUE, cqe.opcode);
	EXPECT_EQ(7, cqe.result);
	EXPECT_EQ(2, ring_reap(&r).user_data);

	/* EQ */
	ring_sqe(&r, UBFAB_OP_WAIT_VALUE, 3)->local = m.offset + 16;
	r.sqes[(r.tail - 1) % 8].value = 9;
	r.sqes[(r.tail - 1) % 8].aux = UBFAB_WAIT_EQ;
	ring_submit(&r);
	word[2] = 10;
	EXPECT_EQ(0, ring_doorbell(&r));
	usleep(50000);
	EXPECT_EQ(0, ring_ready(&r));
	word[2] = 9;
	ASSERT_EQ(1, ring_wait(&r, 1, 2000));
	EXPECT_EQ(9, ring_reap(&r).result);

	/* Time-out: the value seen, and the error state. */
	ring_sqe(&r, UBFAB_OP_WAIT_VALUE, 4)->local = m.offset;
	r.sqes[(r.tail - 1) % 8].value = 1;
	r.sqes[(r.tail - 1) % 8].aux = UBFAB_WAIT_EQ;
	r.sqes[(r.tail - 1) % 8].timeout_ms = 100;
	word[0] = 2;
	post_nops(&r, 1, 5);
	ret = ring_doorbell(&r);
	/* -EIO if the time-out came before the call returned */
	EXPECT_TRUE(ret == 0 || ret == -EIO) TH_LOG("doorbell: %d", ret);
	ASSERT_EQ(2, ring_wait(&r, 2, 3000));
	cqe = ring_reap(&r);
	EXPECT_EQ(UBFAB_CQE_TIMEOUT, cqe.status);
	EXPECT_EQ(2, cqe.result);
	EXPECT_EQ(UBFAB_CQE_FLUSHED, ring_reap(&r).status);
	EXPECT_TRUE(sq_flags(&r) & UBFAB_SQ_ERROR);
	EXPECT_EQ(0, ioctl(r.fd, UBFAB_IOCTL_QUEUE_RESET, 0));

	/* Outside the file's allocations: LOCAL_RANGE. */
	ring_sqe(&r, UBFAB_OP_WAIT_VALUE, 6)->local = m.offset + PAGE;
	ring_submit(&r);
	EXPECT_EQ(-EIO, ring_doorbell(&r));
	ASSERT_EQ(1, ring_wait(&r, 1, 2000));
	EXPECT_EQ(UBFAB_CQE_LOCAL_RANGE, ring_reap(&r).status);
	ring_close(&r);
	munmap((void *)word, PAGE);
}

/*
 * A queue held by a WAIT_VALUE that never ends is destroyed by close();
 * the queue outlives its entity file's descriptor, and pins the module.
 */
TEST_F(queue, destroy_in_flight)
{
	struct ubfab_mem_alloc m = { .size = sizeof(m), .length = PAGE };
	struct ring r, s;

	ASSERT_EQ(0, ioctl(self->npu0, UBFAB_IOCTL_MEM_ALLOC, &m));
	ASSERT_EQ(0, ring_open(self->npu0, 0, 8, 0, -1, 0, &r));
	ASSERT_EQ(0, ring_open(self->npu0, UBFAB_QUEUE_POLL, 8, 0, -1, 0, &s));
	ring_sqe(&r, UBFAB_OP_WAIT_VALUE, 1)->local = m.offset;
	r.sqes[0].value = 1;
	ring_submit(&r);
	EXPECT_EQ(0, ring_doorbell(&r));
	ring_sqe(&s, UBFAB_OP_EVENT_WAIT, 1)->value = 1;
	ring_submit(&s);
	EXPECT_EQ(0, ring_doorbell(&s));
	usleep(20000);

	/* The entity file's descriptor goes; its queues keep it alive. */
	close(self->npu0);
	close(self->npu1);
	self->npu0 = self->npu1 = -1;
	post_nops(&r, 1, 2);
	EXPECT_EQ(0, ring_doorbell(&r));
	EXPECT_EQ(0, ring_ready(&r));
	EXPECT_EQ(-EWOULDBLOCK, ubfab_unload());

	ring_close(&r);
	ring_close(&s);
	EXPECT_EQ(0, ubfab_unload());
}

/* SIGKILL of a process whose queues have work in flight. */
TEST_F(queue, kill_in_flight)
{
	int pipefd[2], status, i;
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ubfab_mem_alloc m = { .size = sizeof(m), .length = PAGE };
		struct ring r[8];
		int dev = dev_open("npu1");

		if (dev < 0 || ioctl(dev, UBFAB_IOCTL_MEM_ALLOC, &m))
			_exit(1);
		for (i = 0; i < 8; i++) {
			if (ring_open(dev, i % 2 ? UBFAB_QUEUE_POLL : 0, 64, 0,
				      -1, 0, &r[i]))
				_exit(1);
			ring_sqe(&r[i], UBFAB_OP_WAIT_VALUE, 0)->local = m.offset;
			r[i].sqes[0].value = 1;
			post_nops(&r[i], 60, 1);
			ring_doorbell(&r[i]);
		}
		close(dev);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));

	close(self->npu0);
	close(self->npu1);
	self->npu0 = self->npu1 = -1;
	/* The exit's last fput() may run a little after the wait. */
	for (i = 0; i < 100 && ubfab_unload() == -EWOULDBLOCK; i++)
		usleep(10000);
	EXPECT_FALSE(ubfab_loaded());
}

/*
 * A queue descriptor taken over by another process (pidfd_getfd(), as
 * SCM_RIGHTS would pass it, without needing AF_UNIX in the kernel) is the
 * same queue there: it maps the same rings and runs entries against the
 * memory of the file that created it, which it keeps alive after the
 * creator has exited.
 */
TEST_F(queue, passed_descriptor)
{
	struct ubfab_mem_alloc m = { .size = sizeof(m), .length = PAGE };
	int to_parent[2], to_child[2], status, fd, pidfd;
	struct ubfab_cqe cqe;
	struct ring r;
	char go = 'x';
	pid_t pid;

	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, pipe(to_child));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* the creator: a queue and an allocation, handed over; exit */
		int dev = dev_open("npu1");

		if (dev < 0 || ioctl(dev, UBFAB_IOCTL_MEM_ALLOC, &m) ||
		    ring_open(dev, 0, 8, 0, -1, 0, &r) ||
		    write(to_parent[1], &m.offset, sizeof(m.offset)) !=
		    sizeof(m.offset) ||
		    write(to_parent[1], &r.c, sizeof(r.c)) != sizeof(r.c) ||
		    read(to_child[0], &go, 1) != 1)
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(sizeof(m.offset),
		  read(to_parent[0], &m.offset, sizeof(m.offset)));
	ASSERT_EQ(sizeof(r.c), read(to_parent[0], &r.c, sizeof(r.c)));
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	ASSERT_LE(0, pidfd);
	fd = syscall(SYS_pidfd_getfd, pidfd, r.c.fd, 0);
	ASSERT_LE(0, fd);
	r.fd = fd;
	close(pidfd);
	ASSERT_EQ(1, write(to_child[1], &go, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	close(to_parent[0]);
	close(to_parent[1]);
	close(to_child[0]);
	close(to_child[1]);

	/* the creator is gone; its file lives on in the queue */
	EXPECT_EQ(-EWOULDBLOCK, ubfab_unload());
	ASSERT_EQ(0, ring_map(&r));

	/* a FILL of the creator's allocation runs, then one past it fails */
	ring_sqe(&r, UBFAB_OP_FILL, 5)->local = m.offset;
	r.sqes[0].length = PAGE;
	r.sqes[0].aux = 0x5a;
	ring_sqe(&r, UBFAB_OP_FILL, 6)->local = m.offset + PAGE;
	r.sqes[1].length = 1;
	ring_submit(&r);
	EXPECT_EQ(-EIO, ring_doorbell(&r));
	ASSERT_EQ(2, ring_wait(&r, 2, 5000));
	cqe = ring_reap(&r);
	EXPECT_EQ(5, cqe.user_data);
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_EQ(PAGE, cqe.bytes);
	cqe = ring_reap(&r);
	EXPECT_EQ(6, cqe.user_data);
	EXPECT_EQ(UBFAB_CQE_LOCAL_RANGE, cqe.status);

	/* the last holder of the creator's file lets the module go */
	close(self->npu0);
	close(self->npu1);
	self->npu0 = self->npu1 = -1;
	EXPECT_EQ(-EWOULDBLOCK, ubfab_unload());
	ring_close(&r);
	EXPECT_EQ(0, ubfab_unload());
}

/* Many queues in several processes, all busy at once. */
TEST_F(queue, many_queues)
{
	int nproc = 4, status, p;
	pid_t pids[4];

	for (p = 0; p < nproc; p++) {
		pids[p] = fork();
		ASSERT_LE(0, pids[p]);
		if (!pids[p]) {
			int dev = dev_open(p % 2 ? "npu1" : "npu0");
			struct ring r[8];
			unsigned int i, round, got;

			if (dev < 0)
				_exit(1);
			for (i = 0; i < 8; i++) {
				if (ring_open(dev, i % 3 == 2 ?
					      UBFAB_QUEUE_POLL : 0, 32, 0, -1,
					      0, &r[i]))
					_exit(2);
			}
			for (round = 0; round < 20; round++) {
				for (i = 0; i < 8; i++) {
					post_nops(&r[i], 32, round * 32);
					if (ring_doorbell(&r[i]))
						_exit(3);
				}
				for (i = 0; i < 8; i++) {
					if (ring_wait(&r[i], 32, 5000) != 32)
						_exit(4);
					for (got = 0; got < 32; got++) {
						struct ubfab_cqe cqe = ring_reap(&r[i]);

						if (cqe.user_data != round * 32 + got ||
						    cqe.status)
							_exit(5);
					}
				}
			}
			_exit(0);
		}
	}
	for (p = 0; p < nproc; p++) {
		ASSERT_EQ(pids[p], waitpid(pids[p], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("process %d", p);
	}
}

/*
 * The rings are charged to the creating process's memory cgroup while the
 * queue exists, and leave it with the queue.
 */
TEST_F(queue, rings_charged)
{
	uint64_t before, created;
	struct ring r;

	if (cgroup_make("ubfab_q"))
		SKIP(return, "no cgroup2 memory controller");
	ASSERT_EQ(0, cgroup_enter("ubfab_q", getpid()));
	before = cgroup_current("ubfab_q");
	ASSERT_EQ(0, ring_open(self->npu0, 0, UBFAB_QUEUE_MAX_ENTRIES, 0, -1,
			       0, &r));
	created = cgroup_current("ubfab_q");
	/* memcg charges in per-CPU batches: memory.current may lag a little */
	EXPECT_LE(before + r.c.ring_size * 3 / 4, created)
		TH_LOG("the cgroup grew by %llu bytes for %llu of rings",
		       (unsigned long long)(created - before),
		       (unsigned long long)r.c.ring_size);
	/* the engine and user space share the pages */
	post_nops(&r, 4, 7);
	ASSERT_EQ(0, ring_doorbell(&r));
	ASSERT_EQ(4, ring_wait(&r, 4, 5000));
	EXPECT_EQ(7, ring_reap(&r).user_data);
	ring_close(&r);
	EXPECT_GT(before + r.c.ring_size / 4, cgroup_current("ubfab_q"));
	cgroup_enter("", getpid());
}

TEST_HARNESS_MAIN

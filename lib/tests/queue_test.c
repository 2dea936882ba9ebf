// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host test of libubfab's queue API, without ubfab.ko: this program
 * defines open() and ioctl() in front of the C library's, so that the
 * entity device is /dev/null, and the queue a memfd laid out as the
 * kernel describes it, whose doorbell runs a fake engine here. Checks that
 * every prep helper writes the whole entry, that indices wrap around
 * 2^32, how the SQ fills, how submit rings the doorbell (polling or not),
 * that a stalled CQ is woken, the checks of the kernel's layout, and the
 * arguments of the create ioctl. Prints KTAP.
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
#include "ktap.h"

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

static bool test_prep(void)
{
	struct ubfab_sqe s;

#define STALE()	memset(&s, 0xa5, sizeof(s))
	STALE();
	ubfab_prep_nop(&s);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_NOP }));
	STALE();
	ubfab_prep_write(&s, 1, 2, 3);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_WRITE,
		.local = 1, .remote = 2, .length = 3 }));
	STALE();
	ubfab_prep_read(&s, 1, 2, 3);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_READ,
		.local = 1, .remote = 2, .length = 3 }));
	STALE();
	ubfab_prep_write_notify(&s, 1, 2, 3, 4, 5);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_WRITE_NOTIFY,
		.local = 1, .remote = 2, .length = 3, .notify = 4,
		.value = 5 }));
	STALE();
	ubfab_prep_atomic(&s, UBFAB_ATOMIC_CAS, 2, 5, 6);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_ATOMIC,
		.remote = 2, .value = 5, .compare = 6,
		.aux = UBFAB_ATOMIC_CAS }));
	STALE();
	ubfab_prep_copy(&s, 1, 7, 3);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_COPY,
		.local = 1, .value = 7, .length = 3 }));
	STALE();
	ubfab_prep_fill(&s, 1, 0xab, 3);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_FILL,
		.local = 1, .aux = 0xab, .length = 3 }));
	STALE();
	ubfab_prep_event_record(&s, 9);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_EVENT_RECORD,
		.aux = 9 }));
	STALE();
	ubfab_prep_event_wait(&s, 9, 10, 11);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_EVENT_WAIT,
		.aux = 9, .value = 10, .timeout_ms = 11 }));
	STALE();
	ubfab_prep_wait_value(&s, 8, UBFAB_WAIT_EQ, 10, 11);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_WAIT_VALUE,
		.local = 8, .aux = UBFAB_WAIT_EQ, .value = 10,
		.timeout_ms = 11 }));
	ubfab_sqe_set_data(&s, 12);
	ubfab_sqe_set_flags(&s, UBFAB_SQE_FENCE);
	CHECK(sqe_is(&s, (struct ubfab_sqe){ .opcode = UBFAB_OP_WAIT_VALUE,
		.local = 8, .aux = UBFAB_WAIT_EQ, .value = 10,
		.timeout_ms = 11, .user_data = 12,
		.flags = UBFAB_SQE_FENCE }));
#undef STALE
	CHECK(ubfab_import_addr(&(struct ubfab_import){ .mmap_offset = 1ULL << 48,
							.length = 4096 },
				100) == (1ULL << 48) + 100);
	return true;
}

/*
 * Rounds of filling the SQ and reaping every completion, across the wrap
 * of the free-running indices: order, contents and free slots hold.
 */
static bool test_wrap(void)
{
	struct ubfab_queue *q = queue_new(0, 8, 16, UINT32_MAX - 20);
	struct ubfab_cqe out[8], *cqe;
	uint64_t seq = 0, want = 0;
	unsigned int round, i;

	CHECK(q);
	CHECK(ubfab_queue_sq_space(q) == 8);
	for (round = 0; round < 10; round++) {
		struct ubfab_sqe *sqe;

		while ((sqe = ubfab_queue_get_sqe(q))) {
			ubfab_prep_nop(sqe);
			ubfab_sqe_set_data(sqe, seq);
			sqe->value = seq * 3;	/* the fake's result */
			seq++;
		}
		CHECK(ubfab_queue_sq_space(q) == 0);
		CHECK(ubfab_queue_submit(q) == 8);
		CHECK(ubfab_queue_sq_space(q) == 8);
		CHECK(ubfab_queue_cq_ready(q) == 8);
		/* half one at a time, half in one reap */
		for (i = 0; i < 4; i++) {
			CHECK(!ubfab_queue_wait_cqe(q, &cqe, 0));
			CHECK(cqe->user_data == want);
			CHECK(cqe->result == want * 3);
			CHECK(cqe->status == UBFAB_CQE_OK);
			ubfab_queue_cqe_seen(q);
			want++;
		}
		CHECK(ubfab_queue_reap(q, out, 3) == 3);
		CHECK(ubfab_queue_reap(q, out + 3, 8) == 1);
		for (i = 0; i < 4; i++, want++)
			CHECK(out[i].user_data == want);
		CHECK(!ubfab_queue_peek_cqe(q));
		CHECK(ubfab_queue_reap(q, out, 8) == 0);
	}
	CHECK(*q->sq_tail == UINT32_MAX - 20 + 80);
	CHECK(*q->cq_head == UINT32_MAX - 20 + 80);
	CHECK(fk.doorbells == 10);
	queue_free(q);
	return true;
}

/*
 * A CQ smaller than what was posted: the engine stalls; waiting for the
 * next completion once the CQ is empty rings the doorbell again.
 */
static bool test_cq_stall(void)
{
	struct ubfab_queue *q = queue_new(0, 16, 4, 5);
	struct ubfab_cqe *cqe;
	unsigned int i;

	CHECK(q);
	for (i = 0; i < 16; i++) {
		ubfab_prep_nop(ubfab_queue_get_sqe(q));
		q->sqes[(q->sq_next - 1) & q->sq_mask].user_data = i;
	}
	CHECK(ubfab_queue_submit(q) == 16);
	CHECK(ubfab_queue_sq_flags(q) & UBFAB_SQ_CQ_FULL);
	for (i = 0; i < 16; i++) {
		CHECK(!ubfab_queue_wait_cqe(q, &cqe, 1000));
		CHECK(cqe->user_data == i);
		ubfab_queue_cqe_seen(q);
	}
	CHECK(fk.doorbells == 4);
	CHECK(!(ubfab_queue_sq_flags(q) & UBFAB_SQ_CQ_FULL));
	CHECK(ubfab_queue_wait_cqe(q, &cqe, 0) == -ETIMEDOUT);
	queue_free(q);
	return true;
}

/*
 * A polling queue: submit publishes the tail and rings only when the
 * kernel sleeps; it reports the error state either way.
 */
static bool test_poll(void)
{
	struct ubfab_queue *q = queue_new(UBFAB_QUEUE_POLL, 4, 0, 0);
	struct ubfab_cqe *cqe;

	CHECK(q);
	CHECK(fk.arg.flags == UBFAB_QUEUE_POLL);
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	CHECK(ubfab_queue_submit(q) == 2);
	CHECK(*q->sq_tail == 2);
	CHECK(fk.doorbells == 0);
	CHECK(ubfab_queue_submit(q) == 0);
	CHECK(fk.doorbells == 0);
	*q->sq_flags = UBFAB_SQ_NEED_WAKEUP;
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	CHECK(ubfab_queue_submit(q) == 1);
	CHECK(fk.doorbells == 1);
	CHECK(ubfab_queue_cq_ready(q) == 3);
	ubfab_queue_cq_advance(q, 3);

	/* the error state, seen in the flags without a doorbell */
	*q->sq_flags = UBFAB_SQ_ERROR;
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	CHECK(ubfab_queue_submit(q) == -EIO);
	CHECK(fk.doorbells == 1);
	CHECK(*q->sq_tail == 4);
	CHECK(!ubfab_queue_reset(q));
	CHECK(fk.resets == 1);
	/* stalled and asleep: waiting rings; stalled and awake: not */
	*q->sq_flags = UBFAB_SQ_CQ_FULL;
	CHECK(ubfab_queue_wait_cqe(q, &cqe, 0) == -ETIMEDOUT);
	CHECK(fk.doorbells == 1);
	*q->sq_flags = UBFAB_SQ_CQ_FULL | UBFAB_SQ_NEED_WAKEUP;
	CHECK(!ubfab_queue_wait_cqe(q, &cqe, 0));
	CHECK(fk.doorbells == 2);
	queue_free(q);
	return true;
}

/* A failed entry: submit says -EIO while the queue is in error. */
static bool test_error(void)
{
	struct ubfab_queue *q = queue_new(0, 4, 0, 0);
	struct ubfab_cqe out[3];
	struct ubfab_sqe *sqe;

	CHECK(q);
	sqe = ubfab_queue_get_sqe(q);
	ubfab_prep_nop(sqe);
	sqe->opcode = 0xff;
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	CHECK(ubfab_queue_submit(q) == -EIO);
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	CHECK(ubfab_queue_submit(q) == -EIO);
	CHECK(ubfab_queue_reap(q, out, 3) == 3);
	CHECK(out[0].status == UBFAB_CQE_BAD_OPCODE);
	CHECK(out[1].status == UBFAB_CQE_FLUSHED);
	CHECK(out[2].status == UBFAB_CQE_FLUSHED);
	CHECK(!ubfab_queue_reset(q));
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	CHECK(ubfab_queue_submit(q) == 1);
	CHECK(ubfab_queue_reap(q, out, 3) == 1);
	CHECK(out[0].status == UBFAB_CQE_OK);
	queue_free(q);
	return true;
}

/* What ubfab_queue_create() asks for and what it accepts. */
static bool test_create(void)
{
	struct ubfab_queue_attr attr = {
		.flags = UBFAB_QUEUE_SELECTIVE, .sq_entries = 32,
		.cq_entries = 256, .eventfd = 9, .idle_us = 77,
	};
	struct ubfab_queue *q = NULL;

	CHECK(!ubfab_queue_create(dev, &attr, &q));
	CHECK(fk.arg.size == sizeof(struct ubfab_queue_create));
	CHECK(fk.arg.flags == UBFAB_QUEUE_SELECTIVE);
	CHECK(fk.arg.sq_entries == 32 && fk.arg.cq_entries == 256);
	CHECK(fk.arg.eventfd == 9 && fk.arg.idle_us == 77);
	CHECK(q->flags == UBFAB_QUEUE_SELECTIVE && q->id == 3);
	CHECK(q->sq_mask == 31 && q->cq_mask == 255);
	CHECK(ubfab_queue_fd(q) == fk.arg.fd);
	CHECK((char *)q->sqes == (char *)q->ring + 4096);
	CHECK((char *)q->cq_tail == (char *)q->ring + HDR_WORD(5));
	queue_free(q);

	CHECK(!ubfab_queue_create(dev, NULL, &q));
	CHECK(fk.arg.sq_entries == UBFAB_QUEUE_DEFAULT_ENTRIES);
	CHECK(fk.arg.cq_entries == 0 && fk.arg.flags == 0);
	CHECK(fk.arg.eventfd == -1 && fk.arg.idle_us == 0);
	queue_free(q);

	q = NULL;
	fk.bad_layout = true;
	CHECK(ubfab_queue_create(dev, NULL, &q) == -EPROTO);
	fk.bad_layout = false;
	munmap(fk.ring, fk.arg.ring_size);
	CHECK(!q);
	return true;
}

static const struct {
	const char *name;
	bool (*run)(void);
} cases[] = {
	{ "every prep helper writes the whole entry", test_prep },
	{ "SQ and CQ indices wrap around 2^32", test_wrap },
	{ "a stalled CQ gets the doorbell once emptied", test_cq_stall },
	{ "polling queue: doorbell only on NEED_WAKEUP", test_poll },
	{ "error state: submit says -EIO until reset", test_error },
	{ "create: the ioctl's arguments, the layout's checks", test_create },
};

int main(void)
{
	size_t i;
	int err;

	printf("TAP version 13\n1..%zu\n", ARRAY_SIZE(cases));
	err = ubfab_dev_open("npu7", &dev);
	if (err) {
		printf("Bail out! fake device: %s\n", strerror(-err));
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		result(cases[i].run(), cases[i].name);
	totals();
	ubfab_dev_close(dev);
	return failures ? 1 : 0;
}

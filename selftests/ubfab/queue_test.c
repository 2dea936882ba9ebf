// SPDX-License-Identifier: GPL-2.0
/*
 * NPU queues through libubfab's queue API, end to end: npu1 drives queues
 * against a segment that npu0 (or cpu0: every test runs with both as the
 * exporter) exports. Data moved by WRITE and READ at sizes from one byte to
 * several plane chunks, seen at once through the exporter's own mapping;
 * WRITE_NOTIFY as the MoE dispatch pattern, with a receiver process
 * spinning on the notify word; every atomic, and FETCH_ADD contended by
 * many entries, queues and processes; COPY and FILL; every error status,
 * the error state, its flush and reset; the port and plane counters; many
 * queues in several processes at once; the SQ and CQ limits, polling and
 * selective queues, eventfd, events and WAIT_VALUE; revocation and frees
 * under a stream of small WRITEs. The fabric model's virtual time (the
 * model fixture): each queue's modeled clock, what NOP, COMPUTE and
 * transfers cost by path, op and planes, the clock ioctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define PAGE		4096UL
#define TOKEN		0x0b0e0b0eU
#define RWA		(UBFAB_SEG_READ | UBFAB_SEG_WRITE | UBFAB_SEG_ATOMIC)
#define SEG_LEN		(1UL << 20)	/* 16 plane chunks */
#define LOC_LEN		(1UL << 20)
#define SLOW		120		/* seconds, for the multi-process tests */
/*
 * The model's issue overhead: issue-ps of profile cm384, in force in each
 * freshly loaded module (Documentation/model.rst).
 */
#define ISSUE_NS	200
/* What a memory-semantics transfer saves: dma-ps less memsem-ps. */
#define MEMSEM_SAVES_NS	250

FIXTURE(queue) {
	struct ubfab_dev *exp;		/* the exporter: npu0 or cpu0 */
	struct ubfab_dev *npu1;		/* the importer, whose queues run */
	struct ubfab_nl *nl;
	uint64_t seg_off;		/* the exported allocation of exp */
	char *seg;			/* exp's mapping of it */
	uint32_t tid;
	struct ubfab_import imp;	/* npu1's import of it, RWA */
	uint64_t loc_off;		/* an allocation of npu1 */
	char *loc;			/* npu1's mapping of it */
	struct ubfab_queue *q;		/* on npu1 */
};

FIXTURE_VARIANT(queue) {
	const char *exporter;
};

FIXTURE_VARIANT_ADD(queue, npu) {
	.exporter = "npu0",
};

FIXTURE_VARIANT_ADD(queue, cpu) {
	.exporter = "cpu0",
};

FIXTURE_SETUP(queue)
{
	void *addr;

	ASSERT_EQ(0, ubfab_reload("nodes=1 chips_per_node=1 cpus_per_node=1 npu_mem=64M cpu_mem=64M"));
	ASSERT_EQ(0, ubfab_dev_open(variant->exporter, &self->exp));
	ASSERT_EQ(0, ubfab_dev_open("npu1", &self->npu1));
	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
	ASSERT_EQ(0, ubfab_dev_alloc(self->exp, SEG_LEN, &self->seg_off));
	ASSERT_EQ(0, ubfab_dev_map(self->exp, self->seg_off, SEG_LEN,
				   PROT_READ | PROT_WRITE, &addr));
	self->seg = addr;
	ASSERT_EQ(0, ubfab_dev_export(self->exp, self->seg_off, SEG_LEN, RWA,
				      TOKEN, &self->tid));
	ASSERT_EQ(0, ubfab_dev_import(self->npu1, ubfab_dev_eid(self->exp),
				      self->tid, TOKEN, RWA, &self->imp));
	ASSERT_EQ(0, ubfab_dev_alloc(self->npu1, LOC_LEN, &self->loc_off));
	ASSERT_EQ(0, ubfab_dev_map(self->npu1, self->loc_off, LOC_LEN,
				   PROT_READ | PROT_WRITE, &addr));
	self->loc = addr;
	ASSERT_EQ(0, ubfab_queue_create(self->npu1, NULL, &self->q));
}

FIXTURE_TEARDOWN(queue)
{
	ubfab_queue_destroy(self->q);
	if (self->loc)
		ubfab_unmap(self->loc, LOC_LEN);
	if (self->seg)
		ubfab_unmap(self->seg, SEG_LEN);
	ubfab_nl_close(self->nl);
	ubfab_dev_close(self->exp);
	ubfab_dev_close(self->npu1);
	ubfab_unload();
}

/* The remote address of byte @off of the fixture's segment. */
#define REM(off)	ubfab_import_addr(&self->imp, (off))
/* The local address of byte @off of the fixture's allocation. */
#define LOC(off)	(self->loc_off + (off))



/* Byte @i of the pattern numbered @seed. */
static uint8_t pat(unsigned int seed, size_t i)
{
	return (uint8_t)(seed * 131 + i * 7 + (i >> 9));
}

static void fill_pat(char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seed, i);
}

/* Index of the first byte of @p that is not the pattern, or -1. */
static long check_pat(const char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((uint8_t)p[i] != pat(seed, i))
			return i;
	return -1;
}

/* Index of the first byte of @p that is not @byte, or -1. */
static long check_byte(const char *p, size_t len, uint8_t byte)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((uint8_t)p[i] != byte)
			return i;
	return -1;
}

/*
 * Whether the @len bytes at @off of the @area_len bytes at @area hold the
 * pattern numbered @seed and all the others @around: -1, or the index in
 * @area of the first byte that is wrong.
 */
static long check_placed(const char *area, size_t area_len, size_t off,
			 size_t len, unsigned int seed, uint8_t around)
{
	long bad = check_byte(area, off, around);

	if (bad < 0) {
		bad = check_pat(area + off, len, seed);
		bad = bad < 0 ? bad : (long)off + bad;
	}
	if (bad < 0) {
		bad = check_byte(area + off + len, area_len - off - len,
				 around);
		bad = bad < 0 ? bad : (long)(off + len) + bad;
	}
	return bad;
}

TEST_F(queue, create)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_queue *q = NULL;
	int fd;

	/* the defaults */
	EXPECT_LE(0, ubfab_queue_fd(self->q));
	EXPECT_EQ(UBFAB_QUEUE_DEFAULT_ENTRIES, ubfab_queue_sq_space(self->q));
	EXPECT_EQ(UBFAB_QUEUE_DEFAULT_ENTRIES - 1, self->q->sq_mask);
	EXPECT_EQ(2 * UBFAB_QUEUE_DEFAULT_ENTRIES - 1, self->q->cq_mask);
	EXPECT_EQ(0, ubfab_queue_cq_ready(self->q));
	EXPECT_EQ(NULL, ubfab_queue_peek_cqe(self->q));
	EXPECT_EQ(0, ubfab_queue_sq_flags(self->q));

	attr.sq_entries = 1;
	attr.cq_entries = UBFAB_QUEUE_MAX_CQ_ENTRIES;
	ASSERT_EQ(0, ubfab_queue_create(self->npu1, &attr, &q));
	EXPECT_EQ(0, q->sq_mask);
	EXPECT_EQ(UBFAB_QUEUE_MAX_CQ_ENTRIES - 1, q->cq_mask);
	EXPECT_NE(self->q->id, q->id);
	ubfab_queue_destroy(q);
	attr.sq_entries = UBFAB_QUEUE_MAX_ENTRIES;
	attr.cq_entries = 0;
	ASSERT_EQ(0, ubfab_queue_create(self->npu1, &attr, &q));
	EXPECT_EQ(UBFAB_QUEUE_MAX_ENTRIES, ubfab_queue_sq_space(q));
	ubfab_queue_destroy(q);
	ubfab_queue_destroy(NULL);

	q = NULL;
	attr.sq_entries = 0;
	EXPECT_EQ(-EINVAL, ubfab_queue_create(self->npu1, &attr, &q));
	attr.sq_entries = 48;
	EXPECT_EQ(-EINVAL, ubfab_queue_create(self->npu1, &attr, &q));
	attr.sq_entries = 2 * UBFAB_QUEUE_MAX_ENTRIES;
	EXPECT_EQ(-EINVAL, ubfab_queue_create(self->npu1, &attr, &q));
	attr.sq_entries = 8;
	attr.cq_entries = 12;
	EXPECT_EQ(-EINVAL, ubfab_queue_create(self->npu1, &attr, &q));
	attr.cq_entries = 2 * UBFAB_QUEUE_MAX_CQ_ENTRIES;
	EXPECT_EQ(-EINVAL, ubfab_queue_create(self->npu1, &attr, &q));
	attr.cq_entries = 0;
	attr.flags = UBFAB_QUEUE_FLAGS + 1;
	EXPECT_EQ(-EINVAL, ubfab_queue_create(self->npu1, &attr, &q));
	attr.flags = UBFAB_QUEUE_POLL;
	attr.idle_us = 1000001;
	EXPECT_EQ(-EINVAL, ubfab_queue_create(self->npu1, &attr, &q));
	attr.idle_us = 0;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	attr.eventfd = fd;
	EXPECT_EQ(-EBADF, ubfab_queue_create(self->npu1, &attr, &q));
	close(fd);
	attr.eventfd = -1;
	EXPECT_EQ(NULL, q);
	EXPECT_EQ(-EINVAL, ubfab_queue_create(NULL, &attr, &q));
	EXPECT_EQ(-EINVAL, ubfab_queue_create(self->npu1, &attr, NULL));
	EXPECT_EQ(-EINVAL, ubfab_queue_fd(NULL));
	EXPECT_EQ(-EINVAL, ubfab_queue_submit(NULL));
	EXPECT_EQ(-EINVAL, ubfab_queue_reset(NULL));
	EXPECT_EQ(-EINVAL, ubfab_queue_wait_cqe(self->q, NULL, 0));
}

/* A NOP completes with its user_data; an empty CQ times out. */
TEST_F(queue, nop)
{
	struct ubfab_cqe cqe, *c;
	struct ubfab_sqe *sqe;
	int64_t start;

	start = now_ms();
	EXPECT_EQ(-ETIMEDOUT, ubfab_queue_wait_cqe(self->q, &c, 100));
	EXPECT_LE(100, now_ms() - start);
	EXPECT_EQ(-ETIMEDOUT, ubfab_queue_wait_cqe(self->q, &c, 0));
	EXPECT_EQ(0, ubfab_queue_submit(self->q));

	sqe = GET_SQE(self->q);
	ubfab_prep_nop(sqe);
	ubfab_sqe_set_data(sqe, 0xfeedfacecafef00dULL);
	EXPECT_EQ(UBFAB_QUEUE_DEFAULT_ENTRIES - 1,
		  ubfab_queue_sq_space(self->q));
	ASSERT_EQ(1, ubfab_queue_submit(self->q));
	ASSERT_EQ(0, ubfab_queue_wait_cqe(self->q, &c, UBFAB_TEST_WAIT_MS));
	cqe = *c;
	EXPECT_EQ(1, ubfab_queue_cq_ready(self->q));
	ubfab_queue_cqe_seen(self->q);
	EXPECT_EQ(0, ubfab_queue_cq_ready(self->q));
	EXPECT_EQ(0xfeedfacecafef00dULL, cqe.user_data);
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_EQ(UBFAB_OP_NOP, cqe.opcode);
	EXPECT_EQ(0, cqe.result);
	EXPECT_EQ(0, cqe.bytes);
	/* the first entry on the queue's clock: its issue overhead */
	EXPECT_EQ(ISSUE_NS, cqe.model_ns);
	EXPECT_EQ(0, cqe.__reserved);
	EXPECT_EQ(0, ubfab_queue_sq_flags(self->q));
	EXPECT_EQ(UBFAB_QUEUE_DEFAULT_ENTRIES, ubfab_queue_sq_space(self->q));
}

/*
 * Sizes of WRITE and READ, with a source and a destination offset each:
 * a byte, odd sizes at odd offsets, page crossings, a whole chunk, 64 KiB
 * and more, and several chunks not starting on a chunk boundary.
 */
static const struct {
	uint32_t length, local, remote;
} sizes[] = {
	{ 1, 0, 0 },
	{ 1, 4095, 8191 },
	{ 7, 3, 5 },
	{ 4095, 1, 2 },
	{ 4097, 4093, 4090 },
	{ 3 * 4096 + 3, 4095, 1 },
	{ UBFAB_PLANE_CHUNK, 0, 0 },
	{ UBFAB_PLANE_CHUNK + 1, 17, 4096 },
	{ 65536 + 4321, 100, 200 },
	{ 5 * UBFAB_PLANE_CHUNK + 333, 3, UBFAB_PLANE_CHUNK - 3 },
	{ 768 * 1024 + 1, 12345, 54321 },
};

/*
 * Move every size of sizes[] with WRITE, from the local allocation to the
 * segment, or with READ, back: the destination, seen through its own
 * mapping, holds exactly the source's bytes and nothing around them
 * changed.
 */
static void move_sizes(struct __test_metadata *_metadata,
		       FIXTURE_DATA(queue) *self, uint8_t opcode)
{
	const bool write = opcode == UBFAB_OP_WRITE;
	char *src = write ? self->loc : self->seg;
	char *dst = write ? self->seg : self->loc;
	size_t dst_len = write ? SEG_LEN : LOC_LEN;
	struct ubfab_cqe cqe;
	struct ubfab_sqe *sqe;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint32_t len = sizes[i].length;
		uint32_t l = sizes[i].local, r = sizes[i].remote;
		uint32_t d = write ? r : l;

		memset(dst, 0x5a, dst_len);
		fill_pat(src + (write ? l : r), len, i);
		sqe = GET_SQE(self->q);
		if (write)
			ubfab_prep_write(sqe, LOC(l), REM(r), len);
		else
			ubfab_prep_read(sqe, LOC(l), REM(r), len);
		ubfab_sqe_set_data(sqe, i);
		ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
		EXPECT_EQ(UBFAB_CQE_OK, cqe.status) TH_LOG("length %u", len);
		EXPECT_EQ(i, cqe.user_data);
		EXPECT_EQ(opcode, cqe.opcode);
		EXPECT_EQ(len, cqe.bytes);
		EXPECT_EQ(0, cqe.result);
		EXPECT_EQ(-1, check_placed(dst, dst_len, d, len, i, 0x5a))
			TH_LOG("length %u", len);
	}
}

TEST_F_TIMEOUT(queue, write_sizes, SLOW)
{
	struct ubfab_cqe cqe;

	move_sizes(_metadata, self, UBFAB_OP_WRITE);
	/* the last byte of the segment */
	self->loc[0] = 'z';
	ubfab_prep_write(GET_SQE(self->q), LOC(0), REM(SEG_LEN - 1), 1);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_EQ('z', self->seg[SEG_LEN - 1]);
}

TEST_F_TIMEOUT(queue, read_sizes, SLOW)
{
	move_sizes(_metadata, self, UBFAB_OP_READ);
}

/* Slots of untouched_pages: one per size of sizes[], a MiB each. */
#define SLOT		(1UL << 20)
#define SLOTS_LEN	(ARRAY_SIZE(sizes) * SLOT)

/*
 * Transfers allocate the destination pages nobody has touched as they go,
 * at any offset, and read untouched source pages as zeros. Each size of
 * sizes[] goes into a slot of memory nobody has used, far enough from the
 * others that the owner's page table (an xarray) has no pages and no
 * nodes there: a WRITE into the exporter's slot, a READ of it back into
 * the importer's untouched slot, a READ of another untouched slot of the
 * exporter into touched memory. The exporter's slot has its pages 64 to
 * 127 touched first (read through a mapping): a walk that crosses from
 * the empty part into them must not skip a page. Around each range,
 * nothing changes. A page allocated outside every allocation would make
 * the module warn when it unloads.
 */
TEST_F_TIMEOUT(queue, untouched_pages, SLOW)
{
	uint64_t rem_off, loc_off, src_off;
	struct ubfab_import imp;
	char *rem, *loc, *src;
	struct ubfab_cqe cqe[3];
	struct ubfab_sqe *sqe;
	unsigned int i, p;
	uint8_t touched = 0;
	uint32_t tid;
	void *addr;

	/* the exporter: slots written, then slots only read */
	ASSERT_EQ(0, ubfab_dev_alloc(self->exp, 2 * SLOTS_LEN, &rem_off));
	ASSERT_EQ(0, ubfab_dev_export(self->exp, rem_off, 2 * SLOTS_LEN, RWA,
				      TOKEN, &tid));
	ASSERT_EQ(0, ubfab_dev_import(self->npu1, ubfab_dev_eid(self->exp),
				      tid, TOKEN, RWA, &imp));
	ASSERT_EQ(0, ubfab_dev_map(self->exp, rem_off, 2 * SLOTS_LEN,
				   PROT_READ, &addr));
	rem = addr;
	/* the importer: the sources, slots read into, a touched slot */
	ASSERT_EQ(0, ubfab_dev_alloc(self->npu1, SLOT, &src_off));
	ASSERT_EQ(0, ubfab_dev_map(self->npu1, src_off, SLOT,
				   PROT_READ | PROT_WRITE, &addr));
	src = addr;
	ASSERT_EQ(0, ubfab_dev_alloc(self->npu1, SLOTS_LEN, &loc_off));
	ASSERT_EQ(0, ubfab_dev_map(self->npu1, loc_off, SLOTS_LEN,
				   PROT_READ | PROT_WRITE, &addr));
	loc = addr;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint32_t len = sizes[i].length;
		uint32_t l = sizes[i].local, r = sizes[i].remote;
		uint64_t slot = i * SLOT;

		memset(src, 0x5a, SLOT);
		fill_pat(src + l, len, i);
		for (p = 64; p < 128; p++)
			touched += rem[slot + p * PAGE];
		sqe = GET_SQE(self->q);
		ubfab_prep_write(sqe, src_off + l,
				 ubfab_import_addr(&imp, slot + r), len);
		sqe = GET_SQE(self->q);
		ubfab_prep_read(sqe, loc_off + slot + l,
				ubfab_import_addr(&imp, slot + r), len);
		sqe = GET_SQE(self->q);
		ubfab_prep_read(sqe, src_off + l,
				ubfab_import_addr(&imp, SLOTS_LEN + slot + r),
				len);
		ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 3));
		EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status) TH_LOG("length %u", len);
		EXPECT_EQ(UBFAB_CQE_OK, cqe[1].status) TH_LOG("length %u", len);
		EXPECT_EQ(UBFAB_CQE_OK, cqe[2].status) TH_LOG("length %u", len);
		EXPECT_EQ(len, cqe[0].bytes);
		EXPECT_EQ(len, cqe[1].bytes);
		EXPECT_EQ(len, cqe[2].bytes);
		/* written into the slot, zeros around */
		EXPECT_EQ(-1, check_placed(rem + slot, SLOT, r, len, i, 0))
			TH_LOG("length %u: WRITE", len);
		/* read back into the importer's untouched slot */
		EXPECT_EQ(-1, check_placed(loc + slot, SLOT, l, len, i, 0))
			TH_LOG("length %u: READ", len);
		/* an untouched source reads as zeros */
		EXPECT_EQ(-1, check_byte(src + l, len, 0))
			TH_LOG("length %u: READ of untouched pages", len);
		EXPECT_EQ(-1, check_byte(src, l, 0x5a));
		EXPECT_EQ(-1, check_byte(src + l + len, SLOT - l - len, 0x5a));
	}
	EXPECT_EQ(0, touched);
	ubfab_unmap(loc, SLOTS_LEN);
	ubfab_unmap(src, SLOT);
	ubfab_unmap(rem, 2 * SLOTS_LEN);
	ASSERT_EQ(0, ubfab_dev_unimport(self->npu1, imp.mmap_offset));
}

/*
 * Entries of one queue run in order: a batch of writes to one place ends
 * with the last one's data, and a READ after a WRITE sees it.
 */
TEST_F(queue, ordered_batch)
{
	struct ubfab_cqe cqe[9];
	struct ubfab_sqe *sqe;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		fill_pat(self->loc + i * 8192, 8192, i);
		sqe = GET_SQE(self->q);
		ubfab_prep_write(sqe, LOC(i * 8192), REM(4096), 8192);
		ubfab_sqe_set_data(sqe, i);
	}
	sqe = GET_SQE(self->q);
	ubfab_prep_read(sqe, LOC(512 * 1024), REM(4096), 8192);
	ubfab_sqe_set_data(sqe, 8);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 9));
	for (i = 0; i < 9; i++) {
		EXPECT_EQ(UBFAB_CQE_OK, cqe[i].status);
		EXPECT_EQ(i, cqe[i].user_data);
	}
	EXPECT_EQ(-1, check_pat(self->seg + 4096, 8192, 7));
	EXPECT_EQ(-1, check_pat(self->loc + 512 * 1024, 8192, 7));
}

/* Wait up to 10 s for the 8-byte word at @p to hold @val. */
static bool await_word(uint64_t *p, uint64_t val)
{
	int64_t end = now_ms() + 10000;

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != val) {
		if (now_ms() > end)
			return false;
		sched_yield();
	}
	return true;
}

#define ROUNDS		8
#define TOKENS_LEN	(3 * UBFAB_PLANE_CHUNK + 1001)

/*
 * The receiver of the MoE dispatch: spins on the notify word until it
 * counts @round, then the tokens must all be there; acknowledges each
 * round. Exits with the first failed round, 0 if none failed.
 */
static void receiver(char *seg, uint64_t *notify, uint64_t *ack)
{
	unsigned int r;

	for (r = 1; r <= ROUNDS; r++) {
		if (!await_word(notify, r) ||
		    check_pat(seg, TOKENS_LEN, r) != -1)
			_exit(r);
		__atomic_store_n(ack, r, __ATOMIC_RELEASE);
	}
	_exit(0);
}

/*
 * WRITE_NOTIFY: the notify add comes after all the data, so a receiver
 * that sees the word change sees the data; the completion carries the
 * word's old value. The notify word here is in another segment of the
 * exporter, imported separately.
 */
TEST_F_TIMEOUT(queue, write_notify_dispatch, SLOW)
{
	uint64_t flags_off, *notify, *ack;
	struct ubfab_import flags_imp;
	struct ubfab_cqe cqe;
	struct ubfab_sqe *sqe;
	uint32_t flags_tid;
	unsigned int r;
	int status;
	void *addr;
	pid_t pid;

	ASSERT_EQ(0, ubfab_dev_alloc(self->exp, PAGE, &flags_off));
	ASSERT_EQ(0, ubfab_dev_map(self->exp, flags_off, PAGE,
				   PROT_READ | PROT_WRITE, &addr));
	notify = addr;
	ack = notify + 8;	/* a cache line further */
	ASSERT_EQ(0, ubfab_dev_export(self->exp, flags_off, PAGE,
				      UBFAB_SEG_ATOMIC | UBFAB_SEG_READ,
				      TOKEN, &flags_tid));
	ASSERT_EQ(0, ubfab_dev_import(self->npu1, ubfab_dev_eid(self->exp),
				      flags_tid, TOKEN, UBFAB_SEG_ATOMIC,
				      &flags_imp));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		receiver(self->seg + 8192, notify, ack);
	for (r = 1; r <= ROUNDS; r++) {
		fill_pat(self->loc, TOKENS_LEN, r);
		sqe = GET_SQE(self->q);
		ubfab_prep_write_notify(sqe, LOC(0), REM(8192), TOKENS_LEN,
					ubfab_import_addr(&flags_imp, 0), 1);
		ubfab_sqe_set_data(sqe, r);
		ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
		ASSERT_EQ(UBFAB_CQE_OK, cqe.status);
		EXPECT_EQ(r, cqe.user_data);
		EXPECT_EQ(UBFAB_OP_WRITE_NOTIFY, cqe.opcode);
		EXPECT_EQ(r - 1, cqe.result);
		EXPECT_EQ(TOKENS_LEN, cqe.bytes);
		if (!await_word(ack, r))
			break;
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("receiver failed round %d",
						 WEXITSTATUS(status));
	EXPECT_EQ(ROUNDS, *notify);
}

/* WRITE_NOTIFY with the notify word in the data's own segment. */
TEST_F(queue, write_notify_same_segment)
{
	uint64_t *word = (uint64_t *)(self->seg + SEG_LEN - 64);
	struct ubfab_cqe cqe;
	struct ubfab_sqe *sqe;

	*word = 40;
	fill_pat(self->loc, 5000, 9);
	sqe = GET_SQE(self->q);
	ubfab_prep_write_notify(sqe, LOC(0), REM(1), 5000,
				REM(SEG_LEN - 64), 2);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_EQ(40, cqe.result);
	EXPECT_EQ(42, *word);
	EXPECT_EQ(-1, check_pat(self->seg + 1, 5000, 9));
}

/* Every atomic returns the old value and leaves the right new one. */
TEST_F(queue, atomics)
{
	static const struct {
		uint32_t op;
		uint64_t old, value, compare, new;
	} ops[] = {
		{ UBFAB_ATOMIC_CAS, 5, 9, 5, 9 },
		{ UBFAB_ATOMIC_CAS, 5, 9, 6, 5 },
		{ UBFAB_ATOMIC_CAS, ~0ULL, 0, ~0ULL, 0 },
		{ UBFAB_ATOMIC_SWAP, 0x1122334455667788ULL, 3, 0, 3 },
		{ UBFAB_ATOMIC_FETCH_ADD, 10, 5, 0, 15 },
		{ UBFAB_ATOMIC_FETCH_ADD, ~0ULL, 2, 0, 1 },
		{ UBFAB_ATOMIC_FETCH_AND, 0xff00ff00ff00ff00ULL,
		  0x0ff00ff00ff00ff0ULL, 0, 0x0f000f000f000f00ULL },
		{ UBFAB_ATOMIC_FETCH_OR, 0xf0, 0x0f00000000000000ULL, 0,
		  0x0f000000000000f0ULL },
		{ UBFAB_ATOMIC_FETCH_XOR, 0xffff0000ffff0000ULL,
		  0xff00ff00ff00ff00ULL, 0, 0x00ffff0000ffff00ULL },
	};
	uint64_t *word = (uint64_t *)(self->seg + 3 * PAGE + 8);
	struct ubfab_cqe cqe;
	struct ubfab_sqe *sqe;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		word[-1] = 0x1111;
		word[0] = ops[i].old;
		word[1] = 0x2222;
		sqe = GET_SQE(self->q);
		ubfab_prep_atomic(sqe, ops[i].op, REM(3 * PAGE + 8),
				  ops[i].value, ops[i].compare);
		ubfab_sqe_set_data(sqe, i);
		ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
		EXPECT_EQ(UBFAB_CQE_OK, cqe.status) TH_LOG("case %u", i);
		EXPECT_EQ(i, cqe.user_data);
		EXPECT_EQ(UBFAB_OP_ATOMIC, cqe.opcode);
		EXPECT_EQ(ops[i].old, cqe.result) TH_LOG("case %u", i);
		EXPECT_EQ(ops[i].new, word[0]) TH_LOG("case %u", i);
		EXPECT_EQ(0x1111, word[-1]);
		EXPECT_EQ(0x2222, word[1]);
	}
}

#define ADDERS		4	/* processes */
#define ADDER_QUEUES	2	/* queues of each */
#define ADDS		96	/* entries on each queue */
#define ADD_TOTAL	(ADDERS * ADDER_QUEUES * ADDS)

/*
 * One contending process: its own device, import and queues, all adding
 * one to the word at @word_off of the segment. Each old value goes into
 * @seen, which counts how often each one came back. Exits nonzero on any
 * failure.
 */
static void adder(uint32_t eid, uint32_t tid, uint64_t word_off,
		  uint32_t *seen)
{
	struct ubfab_queue *q[ADDER_QUEUES];
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_import imp;
	struct ubfab_dev *dev;
	struct ubfab_cqe cqe;
	struct ubfab_sqe *sqe;
	unsigned int i, k;

	attr.sq_entries = 128;	/* room for ADDS */
	if (ubfab_dev_open("npu1", &dev) ||
	    ubfab_dev_import(dev, eid, tid, TOKEN, UBFAB_SEG_ATOMIC, &imp))
		_exit(2);
	for (k = 0; k < ADDER_QUEUES; k++) {
		if (ubfab_queue_create(dev, &attr, &q[k]))
			_exit(3);
		for (i = 0; i < ADDS; i++) {
			sqe = ubfab_queue_get_sqe(q[k]);
			if (!sqe)
				_exit(4);
			ubfab_prep_atomic(sqe, UBFAB_ATOMIC_FETCH_ADD,
					  ubfab_import_addr(&imp, word_off),
					  1, 0);
		}
	}
	for (k = 0; k < ADDER_QUEUES; k++)
		if (ubfab_queue_submit(q[k]) != ADDS)
			_exit(5);
	for (k = 0; k < ADDER_QUEUES; k++) {
		uint64_t last = 0;

		for (i = 0; i < ADDS; i++) {
			if (ubfab_test_complete(q[k], &cqe, 1) || cqe.status ||
			    cqe.result >= ADD_TOTAL)
				_exit(6);
			/* one queue's entries run in order */
			if (i && cqe.result <= last)
				_exit(7);
			last = cqe.result;
			__atomic_fetch_add(&seen[cqe.result], 1,
					   __ATOMIC_RELAXED);
		}
		ubfab_queue_destroy(q[k]);
	}
	ubfab_dev_close(dev);
	_exit(0);
}

/*
 * FETCH_ADD contended by many entries on several queues in several
 * processes: the sum is exact, and each old value is returned once.
 */
TEST_F_TIMEOUT(queue, fetch_add_contended, SLOW)
{
	uint64_t *word = (uint64_t *)(self->seg + 64);
	pid_t pid[ADDERS];
	uint32_t *seen;
	unsigned int i;
	int status;

	seen = mmap(NULL, ADD_TOTAL * sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, seen);
	for (i = 0; i < ADDERS; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			adder(ubfab_dev_eid(self->exp), self->tid, 64, seen);
	}
	for (i = 0; i < ADDERS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("adder %u", i);
	}
	EXPECT_EQ(ADD_TOTAL, *word);
	for (i = 0; i < ADD_TOTAL; i++)
		if (seen[i] != 1)
			break;
	EXPECT_EQ(ADD_TOTAL, i) TH_LOG("old value %u returned %u times", i,
				       i < ADD_TOTAL ? seen[i] : 0);
	munmap(seen, ADD_TOTAL * sizeof(*seen));
}

/* COPY within the entity and FILL, exactly their range. */
TEST_F(queue, copy_and_fill)
{
	struct ubfab_cqe cqe[3];
	struct ubfab_sqe *sqe;

	memset(self->loc, 0x11, LOC_LEN);
	fill_pat(self->loc + 3, 200000, 4);
	sqe = GET_SQE(self->q);
	ubfab_prep_copy(sqe, LOC(500001), LOC(3), 200000);
	ubfab_sqe_set_data(sqe, 1);
	sqe = GET_SQE(self->q);
	ubfab_prep_fill(sqe, LOC(4099), 0xee, 70000);
	ubfab_sqe_set_data(sqe, 2);
	sqe = GET_SQE(self->q);
	ubfab_prep_fill(sqe, LOC(LOC_LEN - 1), 0, 1);
	ubfab_sqe_set_data(sqe, 3);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 3));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(UBFAB_OP_COPY, cqe[0].opcode);
	EXPECT_EQ(200000, cqe[0].bytes);
	EXPECT_EQ(UBFAB_CQE_OK, cqe[1].status);
	EXPECT_EQ(UBFAB_OP_FILL, cqe[1].opcode);
	EXPECT_EQ(70000, cqe[1].bytes);
	EXPECT_EQ(UBFAB_CQE_OK, cqe[2].status);
	EXPECT_EQ(-1, check_pat(self->loc + 500001, 200000, 4));
	EXPECT_EQ(0x11, self->loc[500000]);
	EXPECT_EQ(0x11, self->loc[700001]);
	/* the FILL landed inside COPY's source, after COPY had read it */
	EXPECT_EQ(-1, check_pat(self->loc + 3, 4096, 4));
	EXPECT_EQ(-1, check_byte(self->loc + 4099, 70000, 0xee));
	EXPECT_EQ(pat(4, 4096 + 70000), (uint8_t)self->loc[4099 + 70000]);
	EXPECT_EQ(-1, check_byte(self->loc + 3 + 200000,
				 500001 - 3 - 200000, 0x11));
	EXPECT_EQ(0, self->loc[LOC_LEN - 1]);
	EXPECT_EQ(0x11, self->loc[LOC_LEN - 2]);

	/* COPY reads the entity's memory as the earlier FILL left it */
	sqe = GET_SQE(self->q);
	ubfab_prep_fill(sqe, LOC(0), 0x77, 4096);
	sqe = GET_SQE(self->q);
	ubfab_prep_copy(sqe, LOC(8192), LOC(0), 4096);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 2));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[1].status);
	EXPECT_EQ(-1, check_byte(self->loc + 8192, 4096, 0x77));
}

/* Addresses the error cases need, besides the fixture's. */
struct bad_addrs {
	uint64_t loc, rem;	/* the fixture's local and remote base */
	uint64_t ro, wo, rw;	/* imports with fewer rights */
	uint64_t other;		/* another file's allocation of npu1 */
};

/* One entry that must fail, with the status it must fail with. */
struct bad_case {
	const char *name;
	uint16_t status;
	void (*prep)(struct ubfab_sqe *sqe, const struct bad_addrs *a);
};

static void bad_reserved(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_nop(s);
	s->__reserved = 1;
}

static void bad_nop_local(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_nop(s);
	s->local = a->loc + 8;
}

static void bad_nop_length(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_nop(s);
	s->length = 1;
}

static void bad_write_compare(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write(s, a->loc, a->rem, 8);
	s->compare = 1;
}

static void bad_write_aux(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write(s, a->loc, a->rem, 8);
	s->aux = 1;
}

static void bad_read_notify(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_read(s, a->loc, a->rem, 8);
	s->notify = a->rem + 64;
}

static void bad_flag(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write(s, a->loc, a->rem, 8);
	s->flags = UBFAB_SQE_FLAGS + 1;
}

static void bad_atomic_align(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_atomic(s, UBFAB_ATOMIC_FETCH_ADD, a->rem + 4, 1, 0);
}

static void bad_atomic_op(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_atomic(s, UBFAB_ATOMIC_FETCH_XOR + 1, a->rem, 1, 0);
}

static void bad_atomic_length(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_atomic(s, UBFAB_ATOMIC_SWAP, a->rem, 1, 0);
	s->length = 8;
}

static void bad_length0(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write(s, a->loc, a->rem, 0);
}

static void bad_length_max(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_read(s, a->loc, a->rem, UBFAB_SQE_MAX_LENGTH + 1);
}

static void bad_copy_length0(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_copy(s, a->loc + 4096, a->loc, 0);
}

static void bad_fill_byte(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_fill(s, a->loc, 256, 16);
}

static void bad_notify_align(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write_notify(s, a->loc, a->rem, 8, a->rem + 68, 1);
}

static void bad_wait_cmp(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_wait_value(s, a->loc, UBFAB_WAIT_EQ + 1, 0, 10);
}

static void bad_wait_align(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_wait_value(s, a->loc + 2, UBFAB_WAIT_EQ, 0, 10);
}

static void bad_event(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_event_record(s, UBFAB_QUEUE_EVENTS);
}

static void bad_opcode(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_nop(s);
	s->opcode = UBFAB_OP_WRITE_IMM + 1;
}

static void bad_local_end(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write(s, a->loc + LOC_LEN - 8, a->rem, 9);
}

static void bad_local_other(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_read(s, a->other, a->rem, 8);
}

static void bad_copy_src(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_copy(s, a->loc, a->other, 8);
}

static void bad_fill_local(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_fill(s, a->loc + LOC_LEN, 1, 1);
}

static void bad_no_import(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write(s, a->loc, a->loc, 8);
}

static void bad_remote_end(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write(s, a->loc, a->rem + SEG_LEN - 4, 5);
}

static void bad_write_ro(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write(s, a->loc, a->ro, 8);
}

static void bad_atomic_ro(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_atomic(s, UBFAB_ATOMIC_FETCH_ADD, a->ro, 1, 0);
}

static void bad_read_wo(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_read(s, a->loc, a->wo, 8);
}

static void bad_atomic_rw(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_atomic(s, UBFAB_ATOMIC_CAS, a->rw, 1, 0);
}

static void bad_notify_rw(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write_notify(s, a->loc, a->rem, 8, a->rw, 1);
}

static void bad_notify_data_ro(struct ubfab_sqe *s, const struct bad_addrs *a)
{
	ubfab_prep_write_notify(s, a->loc, a->ro, 8, a->rem, 1);
}

static const struct bad_case bad_cases[] = {
	{ "reserved field", UBFAB_CQE_BAD_ENTRY, bad_reserved },
	{ "NOP with a local address", UBFAB_CQE_BAD_ENTRY, bad_nop_local },
	{ "NOP with a length", UBFAB_CQE_BAD_ENTRY, bad_nop_length },
	{ "WRITE with compare", UBFAB_CQE_BAD_ENTRY, bad_write_compare },
	{ "WRITE with aux", UBFAB_CQE_BAD_ENTRY, bad_write_aux },
	{ "READ with notify", UBFAB_CQE_BAD_ENTRY, bad_read_notify },
	{ "unknown flag", UBFAB_CQE_BAD_ENTRY, bad_flag },
	{ "misaligned atomic", UBFAB_CQE_BAD_ENTRY, bad_atomic_align },
	{ "unknown atomic", UBFAB_CQE_BAD_ENTRY, bad_atomic_op },
	{ "atomic with a length", UBFAB_CQE_BAD_ENTRY, bad_atomic_length },
	{ "length 0", UBFAB_CQE_BAD_ENTRY, bad_length0 },
	{ "length too big", UBFAB_CQE_BAD_ENTRY, bad_length_max },
	{ "COPY of length 0", UBFAB_CQE_BAD_ENTRY, bad_copy_length0 },
	{ "fill byte 256", UBFAB_CQE_BAD_ENTRY, bad_fill_byte },
	{ "misaligned notify word", UBFAB_CQE_BAD_ENTRY, bad_notify_align },
	{ "unknown comparison", UBFAB_CQE_BAD_ENTRY, bad_wait_cmp },
	{ "misaligned wait word", UBFAB_CQE_BAD_ENTRY, bad_wait_align },
	{ "event number too big", UBFAB_CQE_BAD_ENTRY, bad_event },
	{ "unknown opcode", UBFAB_CQE_BAD_OPCODE, bad_opcode },
	{ "local range past the allocation", UBFAB_CQE_LOCAL_RANGE,
	  bad_local_end },
	{ "local range of another file", UBFAB_CQE_LOCAL_RANGE,
	  bad_local_other },
	{ "COPY source of another file", UBFAB_CQE_LOCAL_RANGE, bad_copy_src },
	{ "FILL past the allocation", UBFAB_CQE_LOCAL_RANGE, bad_fill_local },
	{ "remote address of no import", UBFAB_CQE_NO_IMPORT, bad_no_import },
	{ "remote range past the segment", UBFAB_CQE_REMOTE_RANGE,
	  bad_remote_end },
	{ "WRITE to a read-only import", UBFAB_CQE_ACCESS, bad_write_ro },
	{ "ATOMIC on a read-only import", UBFAB_CQE_ACCESS, bad_atomic_ro },
	{ "READ from a write-only import", UBFAB_CQE_ACCESS, bad_read_wo },
	{ "ATOMIC without UBFAB_SEG_ATOMIC", UBFAB_CQE_ACCESS, bad_atomic_rw },
	{ "notify add without UBFAB_SEG_ATOMIC", UBFAB_CQE_ACCESS,
	  bad_notify_rw },
	{ "notify data to a read-only import", UBFAB_CQE_ACCESS,
	  bad_notify_data_ro },
};

/* Imports of the fixture's segment with fewer rights, and another file. */
static void bad_setup(struct __test_metadata *_metadata,
		      FIXTURE_DATA(queue) *self, struct bad_addrs *a,
		      struct ubfab_dev **other)
{
	struct ubfab_import imp;
	uint32_t eid = ubfab_dev_eid(self->exp);

	a->loc = LOC(0);
	a->rem = REM(0);
	ASSERT_EQ(0, ubfab_dev_import(self->npu1, eid, self->tid, TOKEN,
				      UBFAB_SEG_READ, &imp));
	a->ro = imp.mmap_offset;
	ASSERT_EQ(0, ubfab_dev_import(self->npu1, eid, self->tid, TOKEN,
				      UBFAB_SEG_WRITE, &imp));
	a->wo = imp.mmap_offset;
	ASSERT_EQ(0, ubfab_dev_import(self->npu1, eid, self->tid, TOKEN,
				      UBFAB_SEG_READ | UBFAB_SEG_WRITE, &imp));
	a->rw = imp.mmap_offset;
	ASSERT_EQ(0, ubfab_dev_open("npu1", other));
	ASSERT_EQ(0, ubfab_dev_alloc(*other, PAGE, &a->other));
}

/*
 * Every way an entry can be wrong: it completes with its status and the
 * queue goes into the error state, where entries posted before and after
 * it are flushed; after a reset the queue runs again, and nothing the bad
 * entry or the flushed ones named was touched.
 */
TEST_F_TIMEOUT(queue, bad_entries, SLOW)
{
	struct ubfab_cqe cqe[3];
	struct ubfab_dev *other;
	struct ubfab_sqe *sqe;
	struct bad_addrs a;
	unsigned int i;

	bad_setup(_metadata, self, &a, &other);
	memset(self->seg, 0x3c, SEG_LEN);
	memset(self->loc, 0xc3, LOC_LEN);
	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];

		sqe = GET_SQE(self->q);
		c->prep(sqe, &a);
		ubfab_sqe_set_data(sqe, 1);
		/* flushed: would write the segment's first page */
		sqe = GET_SQE(self->q);
		ubfab_prep_fill(sqe, LOC(0), 0, 4096);
		ubfab_sqe_set_data(sqe, 2);
		sqe = GET_SQE(self->q);
		ubfab_prep_write(sqe, LOC(0), REM(0), 4096);
		ubfab_sqe_set_data(sqe, 3);
		ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 3));
		EXPECT_EQ(c->status, cqe[0].status) TH_LOG("%s", c->name);
		EXPECT_EQ(1, cqe[0].user_data);
		EXPECT_EQ(0, cqe[0].bytes) TH_LOG("%s", c->name);
		EXPECT_EQ(UBFAB_CQE_FLUSHED, cqe[1].status) TH_LOG("%s", c->name);
		EXPECT_EQ(2, cqe[1].user_data);
		EXPECT_EQ(UBFAB_OP_FILL, cqe[1].opcode);
		EXPECT_EQ(UBFAB_CQE_FLUSHED, cqe[2].status);
		EXPECT_EQ(3, cqe[2].user_data);
		EXPECT_TRUE(ubfab_queue_sq_flags(self->q) & UBFAB_SQ_ERROR);

		/* posted later: flushed too, and the doorbell says so */
		sqe = GET_SQE(self->q);
		ubfab_prep_nop(sqe);
		ubfab_sqe_set_data(sqe, 4);
		EXPECT_EQ(-EIO, ubfab_queue_submit(self->q));
		ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
		EXPECT_EQ(UBFAB_CQE_FLUSHED, cqe[0].status);
		EXPECT_EQ(4, cqe[0].user_data);

		/* once the flushes are done, the queue runs again */
		ASSERT_EQ(0, ubfab_queue_reset(self->q));
		sqe = GET_SQE(self->q);
		ubfab_prep_nop(sqe);
		ubfab_sqe_set_data(sqe, 5);
		ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
		EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status) TH_LOG("%s", c->name);
		EXPECT_EQ(5, cqe[0].user_data);
		EXPECT_FALSE(ubfab_queue_sq_flags(self->q) & UBFAB_SQ_ERROR);
	}
	EXPECT_EQ(-1, check_byte(self->seg, SEG_LEN, 0x3c));
	EXPECT_EQ(-1, check_byte(self->loc, LOC_LEN, 0xc3));
	ubfab_dev_close(other);
}

/*
 * Unexporting revokes the import: entries on it fail with REVOKED (and
 * the importer is told), other imports are unaffected; once the import is
 * dropped, its address names none.
 */
TEST_F(queue, revoked)
{
	struct ubfab_import imp;
	struct ubfab_event ev;
	struct ubfab_cqe cqe[2];
	uint64_t off, *word;
	uint32_t tid;
	void *addr;

	ASSERT_EQ(0, ubfab_dev_alloc(self->exp, PAGE, &off));
	ASSERT_EQ(0, ubfab_dev_map(self->exp, off, PAGE,
				   PROT_READ | PROT_WRITE, &addr));
	word = (uint64_t *)addr + 1;
	ASSERT_EQ(0, ubfab_dev_export(self->exp, off, PAGE, RWA, TOKEN,
				      &tid));
	ASSERT_EQ(0, ubfab_dev_import(self->npu1, ubfab_dev_eid(self->exp),
				      tid, TOKEN, RWA, &imp));
	ubfab_prep_atomic(GET_SQE(self->q), UBFAB_ATOMIC_FETCH_ADD,
			  ubfab_import_addr(&imp, 8), 1, 0);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(1, *word);

	ASSERT_EQ(0, ubfab_dev_unexport(self->exp, tid));
	ASSERT_EQ(0, ubfab_dev_event_wait(self->npu1, &ev, UBFAB_TEST_WAIT_MS));
	EXPECT_EQ(UBFAB_EVENT_REVOKED, ev.type);
	EXPECT_EQ(imp.mmap_offset, ev.mmap_offset);
	ubfab_prep_write(GET_SQE(self->q), LOC(0),
			 ubfab_import_addr(&imp, 0), 16);
	ubfab_prep_read(GET_SQE(self->q), LOC(0), REM(0), 16);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 2));
	EXPECT_EQ(UBFAB_CQE_REVOKED, cqe[0].status);
	EXPECT_EQ(UBFAB_CQE_FLUSHED, cqe[1].status);
	EXPECT_EQ(0, ubfab_queue_reset(self->q));

	/* an atomic too; the fixture's import still works */
	ubfab_prep_atomic(GET_SQE(self->q), UBFAB_ATOMIC_SWAP,
			  ubfab_import_addr(&imp, 8), 7, 0);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_REVOKED, cqe[0].status);
	EXPECT_EQ(1, *word);
	EXPECT_EQ(0, ubfab_queue_reset(self->q));
	self->loc[0] = 'k';
	ubfab_prep_write(GET_SQE(self->q), LOC(0), REM(PAGE), 1);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ('k', self->seg[PAGE]);

	ASSERT_EQ(0, ubfab_dev_unimport(self->npu1, imp.mmap_offset));
	ubfab_prep_write(GET_SQE(self->q), LOC(0),
			 ubfab_import_addr(&imp, 0), 16);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_NO_IMPORT, cqe[0].status);
	ubfab_unmap(addr, PAGE);
}

/* A thread posting 64-byte WRITEs, 16 a batch, until one fails. */
struct hammer {
	struct ubfab_queue *q;
	uint64_t local, remote;
	unsigned long landed;	/* WRITEs that completed OK */
	uint16_t status;	/* how the first failed one ended */
	int err;		/* a libubfab error, or 0 */
};

static void *hammer_run(void *arg)
{
	struct hammer *h = arg;
	struct ubfab_cqe *cqe;
	unsigned int i;
	int err;

	while (!h->status) {
		for (i = 0; i < 16; i++)
			ubfab_prep_write(ubfab_queue_get_sqe(h->q), h->local,
					 h->remote + 64 * i, 64);
		err = ubfab_queue_submit(h->q);
		if (err < 0 && err != -EIO) {
			h->err = err;
			break;
		}
		for (i = 0; i < 16; i++) {
			err = ubfab_queue_wait_cqe(h->q, &cqe, UBFAB_TEST_WAIT_MS);
			if (err) {
				h->err = err;
				return NULL;
			}
			if (cqe->status == UBFAB_CQE_OK)
				__atomic_add_fetch(&h->landed, 1,
						   __ATOMIC_RELEASE);
			else if (!h->status)
				h->status = cqe->status;
			ubfab_queue_cqe_seen(h->q);
		}
	}
	return NULL;
}

/* Start @h and wait until its WRITEs land. */
static int hammer_start(struct hammer *h, pthread_t *thread)
{
	int64_t deadline = now_ms() + UBFAB_TEST_WAIT_MS;

	if (pthread_create(thread, NULL, hammer_run, h))
		return -1;
	while (__atomic_load_n(&h->landed, __ATOMIC_ACQUIRE) < 64) {
		if (now_ms() > deadline)
			return -1;
		sched_yield();
	}
	return 0;
}

#define HAMMER_ROUNDS	20

/*
 * Revocation while small WRITEs stream into the segment (the engine's
 * fast path, which copies without the mem_locks): once unexport returns,
 * nothing more lands in the exporter's memory and the stream fails with
 * REVOKED; freeing the exporter's allocation or the initiator's own
 * source allocation under the stream ends it with REVOKED or LOCAL_RANGE.
 * Under the debug kernel, KASAN checks no freed page is touched.
 */
TEST_F_TIMEOUT(queue, revoke_under_load, SLOW)
{
	struct ubfab_import imp;
	struct hammer h;
	pthread_t thread;
	uint64_t off, loff;
	unsigned int round;
	uint32_t tid;
	void *addr, *laddr;

	for (round = 0; round < 3 * HAMMER_ROUNDS; round++) {
		unsigned int how = round % 3;	/* unexport, free, free local */

		ASSERT_EQ(0, ubfab_dev_alloc(self->exp, PAGE, &off));
		ASSERT_EQ(0, ubfab_dev_map(self->exp, off, PAGE,
					   PROT_READ | PROT_WRITE, &addr));
		ASSERT_EQ(0, ubfab_dev_export(self->exp, off, PAGE, RWA,
					      TOKEN, &tid));
		ASSERT_EQ(0, ubfab_dev_import(self->npu1,
					      ubfab_dev_eid(self->exp), tid,
					      TOKEN, RWA, &imp));
		ASSERT_EQ(0, ubfab_dev_alloc(self->npu1, PAGE, &loff));
		ASSERT_EQ(0, ubfab_dev_map(self->npu1, loff, PAGE,
					   PROT_READ | PROT_WRITE, &laddr));
		memset(laddr, 0xa5, 64);
		h = (struct hammer) {
			.q = self->q,
			.local = loff,
			.remote = ubfab_import_addr(&imp, 0),
		};
		ASSERT_EQ(0, hammer_start(&h, &thread)) TH_LOG("round %u", round);

		if (how == 0) {
			ASSERT_EQ(0, ubfab_dev_unexport(self->exp, tid));
			/* whatever lands from now on was written too late */
			memset(addr, 0, PAGE);
		} else if (how == 1) {
			ubfab_unmap(addr, PAGE);
			ASSERT_EQ(0, ubfab_dev_free(self->exp, off));
		} else {
			ubfab_unmap(laddr, PAGE);
			ASSERT_EQ(0, ubfab_dev_free(self->npu1, loff));
		}
		ASSERT_EQ(0, pthread_join(thread, NULL));
		ASSERT_EQ(0, h.err);
		EXPECT_EQ(how == 2 ? UBFAB_CQE_LOCAL_RANGE : UBFAB_CQE_REVOKED,
			  h.status) TH_LOG("round %u", round);
		if (how == 0) {
			EXPECT_EQ(-1, check_byte(addr, PAGE, 0))
				TH_LOG("round %u", round);
			ubfab_unmap(addr, PAGE);
			ASSERT_EQ(0, ubfab_dev_free(self->exp, off));
		}
		if (how != 2) {
			ubfab_unmap(laddr, PAGE);
			ASSERT_EQ(0, ubfab_dev_free(self->npu1, loff));
		}
		ASSERT_EQ(0, ubfab_dev_unimport(self->npu1, imp.mmap_offset));
		ASSERT_EQ(0, ubfab_queue_reset(self->q));
	}
}

/*
 * What a queue's engine remembers of the last import, allocation and pages
 * it used must not outlive them: an import dropped and another made under
 * the same number, an allocation freed and another made at the same
 * offset, are each seen at once, with their own memory.
 */
TEST_F(queue, translation_cache)
{
	uint64_t off2, off3, loff;
	struct ubfab_import imp2, imp3;
	struct ubfab_cqe cqe[1];
	char *seg2, *seg3, *l;
	uint32_t tid2, tid3;
	void *addr;

	/* an import goes; the next one takes its number */
	ASSERT_EQ(0, ubfab_dev_alloc(self->exp, PAGE, &off2));
	ASSERT_EQ(0, ubfab_dev_alloc(self->exp, PAGE, &off3));
	ASSERT_EQ(0, ubfab_dev_map(self->exp, off2, PAGE,
				   PROT_READ | PROT_WRITE, &addr));
	seg2 = addr;
	ASSERT_EQ(0, ubfab_dev_map(self->exp, off3, PAGE,
				   PROT_READ | PROT_WRITE, &addr));
	seg3 = addr;
	ASSERT_EQ(0, ubfab_dev_export(self->exp, off2, PAGE, RWA, TOKEN,
				      &tid2));
	ASSERT_EQ(0, ubfab_dev_export(self->exp, off3, PAGE, RWA, TOKEN,
				      &tid3));
	ASSERT_EQ(0, ubfab_dev_import(self->npu1, ubfab_dev_eid(self->exp),
				      tid2, TOKEN, RWA, &imp2));
	fill_pat(self->loc, 64, 1);
	ubfab_prep_write(GET_SQE(self->q), LOC(0),
			 ubfab_import_addr(&imp2, 0), 64);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(-1, check_pat(seg2, 64, 1));

	ASSERT_EQ(0, ubfab_dev_unimport(self->npu1, imp2.mmap_offset));
	ubfab_prep_write(GET_SQE(self->q), LOC(0),
			 ubfab_import_addr(&imp2, 0), 64);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_NO_IMPORT, cqe[0].status);
	EXPECT_EQ(0, ubfab_queue_reset(self->q));

	ASSERT_EQ(0, ubfab_dev_import(self->npu1, ubfab_dev_eid(self->exp),
				      tid3, TOKEN, RWA, &imp3));
	/* the point of the test: the very address names another segment */
	ASSERT_EQ(imp2.mmap_offset, imp3.mmap_offset);
	fill_pat(self->loc, 64, 2);
	ubfab_prep_write(GET_SQE(self->q), LOC(0),
			 ubfab_import_addr(&imp3, 0), 64);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(-1, check_pat(seg3, 64, 2));
	EXPECT_EQ(-1, check_pat(seg2, 64, 1));

	/* an allocation goes; the next one takes its place */
	ASSERT_EQ(0, ubfab_dev_alloc(self->npu1, PAGE, &loff));
	ASSERT_EQ(0, ubfab_dev_map(self->npu1, loff, PAGE,
				   PROT_READ | PROT_WRITE, &addr));
	fill_pat(addr, 64, 3);
	ubfab_prep_write(GET_SQE(self->q), loff, REM(0), 64);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(-1, check_pat(self->seg, 64, 3));
	ubfab_unmap(addr, PAGE);
	ASSERT_EQ(0, ubfab_dev_free(self->npu1, loff));
	ubfab_prep_write(GET_SQE(self->q), loff, REM(0), 64);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_LOCAL_RANGE, cqe[0].status);
	EXPECT_EQ(0, ubfab_queue_reset(self->q));

	ASSERT_EQ(0, ubfab_dev_alloc(self->npu1, PAGE, &off2));
	ASSERT_EQ(loff, off2);
	/* its memory is new: zeros go out, not the old page's bytes */
	ubfab_prep_write(GET_SQE(self->q), loff, REM(0), 64);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(-1, check_byte(self->seg, 64, 0));
	/* and what comes in lands in it */
	fill_pat(self->seg + PAGE, 64, 4);
	ubfab_prep_read(GET_SQE(self->q), loff, REM(PAGE), 64);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	ASSERT_EQ(0, ubfab_dev_map(self->npu1, loff, PAGE,
				   PROT_READ | PROT_WRITE, &addr));
	l = addr;
	EXPECT_EQ(-1, check_pat(l, 64, 4));
	ubfab_unmap(addr, PAGE);
	ubfab_unmap(seg2, PAGE);
	ubfab_unmap(seg3, PAGE);
}

/* Sum of the counters of every port of @eid, or of every plane (UBFAB_EID_ANY). */
static int stats_sum(struct ubfab_nl *nl, uint32_t eid, uint32_t planes,
		     struct ubfab_stats *per_plane, struct ubfab_stats *sum)
{
	struct ubfab_plane_info plane;
	struct ubfab_port_info port;
	const struct ubfab_stats *s;
	uint32_t i;
	int err;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < planes; i++) {
		if (eid == UBFAB_EID_ANY) {
			err = ubfab_plane_get(nl, i, &plane);
			s = &plane.stats;
		} else {
			err = ubfab_port_get(nl, eid, i, &port);
			s = &port.stats;
		}
		if (err)
			return err;
		if (per_plane)
			per_plane[i] = *s;
		sum->tx_bytes += s->tx_bytes;
		sum->rx_bytes += s->rx_bytes;
		sum->tx_ops += s->tx_ops;
		sum->rx_ops += s->rx_ops;
		sum->errors += s->errors;
	}
	return 0;
}

/* Counters of the initiator, the exporter and the planes. */
struct counters {
	struct ubfab_stats init, exp, planes;
	struct ubfab_stats plane[16];
};

static int counters_get(FIXTURE_DATA(queue) *self, uint32_t planes,
			struct counters *c)
{
	return stats_sum(self->nl, ubfab_dev_eid(self->npu1), planes, NULL,
			 &c->init) ?:
	       stats_sum(self->nl, ubfab_dev_eid(self->exp), planes, NULL,
			 &c->exp) ?:
	       stats_sum(self->nl, UBFAB_EID_ANY, planes, c->plane,
			 &c->planes);
}

/* How each counter of @a grew since @b must be: tx, rx bytes and ops, errors. */
static void expect_grew(struct __test_metadata *_metadata, const char *what,
			const struct ubfab_stats *b,
			const struct ubfab_stats *a, uint64_t tx_bytes,
			uint64_t rx_bytes, uint64_t tx_ops, uint64_t rx_ops,
			uint64_t errors)
{
	EXPECT_EQ(tx_bytes, a->tx_bytes - b->tx_bytes) TH_LOG("%s", what);
	EXPECT_EQ(rx_bytes, a->rx_bytes - b->rx_bytes) TH_LOG("%s", what);
	EXPECT_EQ(tx_ops, a->tx_ops - b->tx_ops) TH_LOG("%s", what);
	EXPECT_EQ(rx_ops, a->rx_ops - b->rx_ops) TH_LOG("%s", what);
	EXPECT_EQ(errors, a->errors - b->errors) TH_LOG("%s", what);
}

/*
 * Run what was posted, one entry, with the counters before and after; the
 * entry must end with @status.
 */
static void run_counted(struct __test_metadata *_metadata,
			FIXTURE_DATA(queue) *self, uint32_t planes,
			uint16_t status, struct counters *before,
			struct counters *after)
{
	struct ubfab_cqe cqe;

	ASSERT_EQ(0, counters_get(self, planes, before));
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	ASSERT_EQ(status, cqe.status);
	ASSERT_EQ(0, counters_get(self, planes, after));
	if (status != UBFAB_CQE_OK)
		ASSERT_EQ(0, ubfab_queue_reset(self->q));
}

/* A WRITE of one chunk per plane puts exactly one chunk on each plane. */
static void chunk_per_plane(struct __test_metadata *_metadata,
			    FIXTURE_DATA(queue) *self, uint32_t planes,
			    const char *what)
{
	struct counters b, a;
	uint32_t i;

	ubfab_prep_write(GET_SQE(self->q), LOC(0), REM(0),
			 planes * UBFAB_PLANE_CHUNK);
	run_counted(_metadata, self, planes, UBFAB_CQE_OK, &b, &a);
	for (i = 0; i < planes; i++)
		expect_grew(_metadata, what, &b.plane[i], &a.plane[i],
			    UBFAB_PLANE_CHUNK, UBFAB_PLANE_CHUNK, 1, 1, 0);
}

/*
 * Each chunk of a transfer counts one op and its bytes on the sending
 * port, the receiving port and the plane; chunks are dealt round-robin
 * over the planes; a failed transfer counts one error on the initiator's
 * port and on one plane; what stays in the entity counts nothing, failed
 * or not.
 */
TEST_F_TIMEOUT(queue, counters, SLOW)
{
	const uint32_t len = 3 * UBFAB_PLANE_CHUNK + 100;	/* 4 chunks */
	struct counters b, a;
	struct ubfab_fabric_info fab;
	uint32_t i, used;

	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &fab));
	ASSERT_LE(4, fab.planes);
	ASSERT_GE(16, fab.planes);

	ubfab_prep_write(GET_SQE(self->q), LOC(1), REM(2), len);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_OK, &b, &a);
	expect_grew(_metadata, "WRITE, initiator", &b.init, &a.init,
		    len, 0, 4, 0, 0);
	expect_grew(_metadata, "WRITE, exporter", &b.exp, &a.exp,
		    0, len, 0, 4, 0);
	expect_grew(_metadata, "WRITE, planes", &b.planes, &a.planes,
		    len, len, 4, 4, 0);
	for (i = used = 0; i < fab.planes; i++) {
		uint64_t grew = a.plane[i].tx_bytes - b.plane[i].tx_bytes;

		if (grew)
			used++;
		EXPECT_GE(UBFAB_PLANE_CHUNK, grew);
	}
	EXPECT_EQ(4, used) TH_LOG("4 chunks go over 4 planes");

	/* one chunk on each plane, exactly */
	chunk_per_plane(_metadata, self, fab.planes, "a chunk per plane");

	/* the starting plane rotates: one small write on each plane */
	ASSERT_EQ(0, counters_get(self, fab.planes, &b));
	for (i = 0; i < fab.planes; i++) {
		struct ubfab_cqe cqe;

		ubfab_prep_write(GET_SQE(self->q), LOC(0), REM(0), 3);
		ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
		ASSERT_EQ(UBFAB_CQE_OK, cqe.status);
	}
	ASSERT_EQ(0, counters_get(self, fab.planes, &a));
	for (i = 0; i < fab.planes; i++)
		expect_grew(_metadata, "rotating start", &b.plane[i],
			    &a.plane[i], 3, 3, 1, 1, 0);

	/* READ: the data comes from the exporter */
	ubfab_prep_read(GET_SQE(self->q), LOC(1), REM(2), len);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_OK, &b, &a);
	expect_grew(_metadata, "READ, initiator", &b.init, &a.init,
		    0, len, 0, 4, 0);
	expect_grew(_metadata, "READ, exporter", &b.exp, &a.exp,
		    len, 0, 4, 0, 0);
	expect_grew(_metadata, "READ, planes", &b.planes, &a.planes,
		    len, len, 4, 4, 0);

	ubfab_prep_atomic(GET_SQE(self->q), UBFAB_ATOMIC_FETCH_ADD, REM(0),
			  1, 0);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_OK, &b, &a);
	expect_grew(_metadata, "ATOMIC, initiator", &b.init, &a.init,
		    8, 0, 1, 0, 0);
	expect_grew(_metadata, "ATOMIC, exporter", &b.exp, &a.exp,
		    0, 8, 0, 1, 0);

	ubfab_prep_write_notify(GET_SQE(self->q), LOC(0), REM(8), len,
				REM(0), 1);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_OK, &b, &a);
	expect_grew(_metadata, "WRITE_NOTIFY, initiator", &b.init, &a.init,
		    len + 8, 0, 5, 0, 0);
	expect_grew(_metadata, "WRITE_NOTIFY, exporter", &b.exp, &a.exp,
		    0, len + 8, 0, 5, 0);

	/* a failed transfer: one error, no traffic */
	ubfab_prep_write(GET_SQE(self->q), LOC(0), REM(SEG_LEN - 8), 9);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_REMOTE_RANGE, &b,
		    &a);
	expect_grew(_metadata, "failed WRITE, initiator", &b.init, &a.init,
		    0, 0, 0, 0, 1);
	expect_grew(_metadata, "failed WRITE, exporter", &b.exp, &a.exp,
		    0, 0, 0, 0, 0);
	expect_grew(_metadata, "failed WRITE, planes", &b.planes, &a.planes,
		    0, 0, 0, 0, 1);

	/* nothing crosses a plane */
	ubfab_prep_copy(GET_SQE(self->q), LOC(0), LOC(8192), 8192);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_OK, &b, &a);
	expect_grew(_metadata, "COPY", &b.planes, &a.planes, 0, 0, 0, 0, 0);
	ubfab_prep_fill(GET_SQE(self->q), LOC(0), 1, 8192);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_OK, &b, &a);
	expect_grew(_metadata, "FILL", &b.planes, &a.planes, 0, 0, 0, 0, 0);
	ubfab_prep_nop(GET_SQE(self->q));
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_OK, &b, &a);
	expect_grew(_metadata, "NOP", &b.planes, &a.planes, 0, 0, 0, 0, 0);
	expect_grew(_metadata, "NOP", &b.init, &a.init, 0, 0, 0, 0, 0);

	/* failures that cross no plane count no error either */
	ubfab_prep_fill(GET_SQE(self->q), LOC(LOC_LEN - 1), 1, 2);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_LOCAL_RANGE, &b,
		    &a);
	expect_grew(_metadata, "failed FILL", &b.init, &a.init, 0, 0, 0, 0, 0);
	expect_grew(_metadata, "failed FILL", &b.planes, &a.planes,
		    0, 0, 0, 0, 0);
	ubfab_prep_entry(GET_SQE(self->q), UBFAB_OP_WRITE_IMM + 1, 0, 0, 0, 0);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_BAD_OPCODE, &b, &a);
	expect_grew(_metadata, "bad opcode", &b.init, &a.init, 0, 0, 0, 0, 0);
}

#define RUN		48		/* small messages in a run */
#define RUN_SLOT	256		/* bytes between their starts */
#define RUN_AT		(2 * PAGE)	/* where they land in the segment */

/* Offset and length of small message @i of a run: 1 to 256 bytes. */
static size_t run_off(unsigned int i)
{
	return i * RUN_SLOT + 40;
}

static uint32_t run_len(unsigned int i)
{
	return 1 + (i * 97) % RUN_SLOT;
}

/*
 * Post small message @i of a run: a WRITE from run_off(@i) of the
 * allocation to RUN_AT + run_off(@i) of the segment, or the READ back to
 * @back + run_off(@i) of the allocation.
 */
static void post_small(struct __test_metadata *_metadata,
		       FIXTURE_DATA(queue) *self, struct ubfab_queue *q,
		       unsigned int i, bool read, size_t back)
{
	struct ubfab_sqe *sqe = GET_SQE(q);

	if (read)
		ubfab_prep_read(sqe, LOC(back + run_off(i)),
				REM(RUN_AT + run_off(i)), run_len(i));
	else
		ubfab_prep_write(sqe, LOC(run_off(i)),
				 REM(RUN_AT + run_off(i)), run_len(i));
	ubfab_sqe_set_data(sqe, i);
}

/*
 * Whether @area (RUN slots) holds what the first @landed small messages
 * of a run moved from the pattern @seed, and zeros around them: -1 or the
 * first bad byte.
 */
static long check_run(const char *area, unsigned int seed,
		      unsigned int landed)
{
	size_t i, n, len = RUN * RUN_SLOT + 40;
	char *want = calloc(1, len);
	long bad = -1;

	if (!want)
		return 0;
	fill_pat(want, len, seed);
	for (i = 0, n = 0; i < landed; n = run_off(i) + run_len(i), i++)
		memset(want + n, 0, run_off(i) - n);
	memset(want + n, 0, len - n);
	for (i = 0; i < len; i++)
		if (area[i] != want[i]) {
			bad = i;
			break;
		}
	free(want);
	return bad;
}

/*
 * Runs of small WRITEs and READs, which the engine takes in bursts on its
 * fast path: each entry lands where it says, across pages of the
 * allocation and of the segment (untouched at first), some across a page,
 * in order, one completion each with its byte count, each counted on the
 * ports; the same on a polling queue and, completing only the signalled
 * entries, on a selective one. An entry that fails in the middle of a run
 * ends it where it stands: those before it are done, those after it
 * flushed, and nothing of theirs moves.
 */
TEST_F_TIMEOUT(queue, small_runs, SLOW)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_fabric_info fab;
	struct ubfab_cqe cqe[RUN];
	const size_t back = 64 * 1024;
	struct ubfab_queue *q;
	struct ubfab_sqe *sqe;
	struct counters b, a;
	uint64_t bytes = 0;
	unsigned int i;

	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &fab));
	fill_pat(self->loc, RUN * RUN_SLOT + 40, 1);
	for (i = 0; i < RUN; i++) {
		post_small(_metadata, self, self->q, i, false, 0);
		bytes += run_len(i);
	}
	ASSERT_EQ(0, counters_get(self, fab.planes, &b));
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, RUN));
	ASSERT_EQ(0, counters_get(self, fab.planes, &a));
	for (i = 0; i < RUN; i++) {
		EXPECT_EQ(i, cqe[i].user_data);
		EXPECT_EQ(UBFAB_CQE_OK, cqe[i].status);
		EXPECT_EQ(run_len(i), cqe[i].bytes);
	}
	EXPECT_EQ(-1, check_run(self->seg + RUN_AT, 1, RUN));
	expect_grew(_metadata, "small WRITEs", &b.init, &a.init, bytes, 0,
		    RUN, 0, 0);
	expect_grew(_metadata, "small WRITEs", &b.exp, &a.exp, 0, bytes, 0,
		    RUN, 0);

	for (i = 0; i < RUN; i++)
		post_small(_metadata, self, self->q, i, true, back);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, RUN));
	for (i = 0; i < RUN; i++) {
		EXPECT_EQ(i, cqe[i].user_data);
		EXPECT_EQ(UBFAB_CQE_OK, cqe[i].status);
	}
	EXPECT_EQ(-1, check_run(self->loc + back, 1, RUN));

	/* a polling queue, the pages now cached or touched */
	attr.flags = UBFAB_QUEUE_POLL;
	attr.idle_us = 1000;
	ASSERT_EQ(0, ubfab_queue_create(self->npu1, &attr, &q));
	fill_pat(self->loc, RUN * RUN_SLOT + 40, 2);
	for (i = 0; i < RUN; i++)
		post_small(_metadata, self, q, i, false, 0);
	ASSERT_EQ(0, ubfab_test_complete(q, cqe, RUN));
	for (i = 0; i < RUN; i++)
		EXPECT_EQ(UBFAB_CQE_OK, cqe[i].status);
	EXPECT_EQ(-1, check_run(self->seg + RUN_AT, 2, RUN));
	ubfab_queue_destroy(q);

	/* a selective queue: every eighth entry is signalled */
	attr = (struct ubfab_queue_attr)UBFAB_QUEUE_ATTR_INIT;
	attr.flags = UBFAB_QUEUE_SELECTIVE;
	ASSERT_EQ(0, ubfab_queue_create(self->npu1, &attr, &q));
	fill_pat(self->loc, RUN * RUN_SLOT + 40, 3);
	for (i = 0; i < RUN; i++)
		post_small(_metadata, self, q, i, false, 0);
	for (i = 7; i < RUN; i += 8)
		q->sqes[i & q->sq_mask].flags = UBFAB_SQE_SIGNAL;
	ASSERT_EQ(0, ubfab_test_complete(q, cqe, RUN / 8));
	for (i = 0; i < RUN / 8; i++) {
		EXPECT_EQ(i * 8 + 7, cqe[i].user_data);
		EXPECT_EQ(UBFAB_CQE_OK, cqe[i].status);
	}
	EXPECT_EQ(-1, check_run(self->seg + RUN_AT, 3, RUN));
	ubfab_queue_destroy(q);

	/* a failure in the middle: entry 20 reaches past the segment */
	memset(self->seg + RUN_AT, 0, RUN * RUN_SLOT + 40);
	fill_pat(self->loc, RUN * RUN_SLOT + 40, 4);
	for (i = 0; i < RUN; i++)
		post_small(_metadata, self, self->q, i, false, 0);
	sqe = &self->q->sqes[(self->q->sq_next - RUN + 20) & self->q->sq_mask];
	sqe->remote = REM(SEG_LEN - 8);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, RUN));
	for (i = 0; i < RUN; i++) {
		EXPECT_EQ(i, cqe[i].user_data);
		EXPECT_EQ(i < 20 ? UBFAB_CQE_OK : i == 20 ?
			  UBFAB_CQE_REMOTE_RANGE : UBFAB_CQE_FLUSHED,
			  cqe[i].status) TH_LOG("entry %u", i);
	}
	EXPECT_EQ(-1, check_run(self->seg + RUN_AT, 4, 20));
	EXPECT_EQ(0, ubfab_queue_reset(self->q));

	/* and one with a field it must not set */
	for (i = 0; i < 8; i++)
		post_small(_metadata, self, self->q, i, false, 0);
	self->q->sqes[(self->q->sq_next - 5) & self->q->sq_mask].value = 1;
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 8));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(i < 3 ? UBFAB_CQE_OK : i == 3 ? UBFAB_CQE_BAD_ENTRY :
			  UBFAB_CQE_FLUSHED, cqe[i].status) TH_LOG("entry %u", i);
	EXPECT_EQ(0, ubfab_queue_reset(self->q));
}

/*
 * Chunks avoid a plane that is down and a plane where either entity's port
 * is down; with no plane left, every remote op fails with NO_ROUTE having
 * moved nothing, while what stays in the entity still runs.
 */
TEST_F_TIMEOUT(queue, routes, SLOW)
{
	uint32_t exp_eid = ubfab_dev_eid(self->exp);
	uint32_t init_eid = ubfab_dev_eid(self->npu1);
	struct ubfab_fabric_info fab;
	struct counters b, a;
	uint32_t i, len;

	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &fab));
	ASSERT_LE(4, fab.planes);
	ASSERT_GE(16, fab.planes);
	ASSERT_NE(exp_eid, init_eid);

	/* plane 0 down, the exporter's port 1 and the initiator's port 2 */
	ASSERT_EQ(0, ubfab_plane_set_state(self->nl, 0, UBFAB_STATE_DOWN));
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, exp_eid, 1,
					  UBFAB_STATE_DOWN));
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, init_eid, 2,
					  UBFAB_STATE_DOWN));
	len = 2 * fab.planes * UBFAB_PLANE_CHUNK;
	ubfab_prep_write(GET_SQE(self->q), LOC(0), REM(0), len);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_OK, &b, &a);
	for (i = 0; i < fab.planes; i++) {
		uint64_t grew = a.plane[i].tx_bytes - b.plane[i].tx_bytes;

		if (i < 3) {
			EXPECT_EQ(0, grew) TH_LOG("plane %u is cut", i);
		} else {
			EXPECT_LT(0, grew) TH_LOG("plane %u is up", i);
		}
	}
	expect_grew(_metadata, "around the cuts", &b.planes, &a.planes,
		    len, len, 2 * fab.planes, 2 * fab.planes, 0);

	/* the last plane down too, and the rest of them: no route */
	for (i = 3; i < fab.planes; i++)
		ASSERT_EQ(0, ubfab_plane_set_state(self->nl, i,
						   UBFAB_STATE_DOWN));
	ubfab_prep_write(GET_SQE(self->q), LOC(0), REM(0), 64);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_NO_ROUTE, &b, &a);
	expect_grew(_metadata, "WRITE, no route", &b.init, &a.init,
		    0, 0, 0, 0, 1);
	expect_grew(_metadata, "WRITE, no route", &b.exp, &a.exp,
		    0, 0, 0, 0, 0);
	ubfab_prep_read(GET_SQE(self->q), LOC(0), REM(0), 64);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_NO_ROUTE, &b, &a);
	ubfab_prep_atomic(GET_SQE(self->q), UBFAB_ATOMIC_FETCH_ADD, REM(0),
			  1, 0);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_NO_ROUTE, &b, &a);
	ubfab_prep_write_notify(GET_SQE(self->q), LOC(0), REM(8), 64, REM(0),
				1);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_NO_ROUTE, &b, &a);
	EXPECT_EQ(0, *(volatile uint64_t *)self->seg)
		TH_LOG("nothing reached the exporter");
	ubfab_prep_fill(GET_SQE(self->q), LOC(0), 1, 64);
	run_counted(_metadata, self, fab.planes, UBFAB_CQE_OK, &b, &a);

	/* everything back up: the route is back */
	for (i = 0; i < fab.planes; i++)
		ASSERT_EQ(0, ubfab_plane_set_state(self->nl, i,
						   UBFAB_STATE_UP));
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, exp_eid, 1,
					  UBFAB_STATE_UP));
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, init_eid, 2,
					  UBFAB_STATE_UP));
	chunk_per_plane(_metadata, self, fab.planes, "all planes again");
}

#define WRITERS		3	/* processes */
#define WRITER_QUEUES	2	/* queues of each */
#define SLICE		(160 * 1024)	/* of the segment, per queue */
#define WRITE_ROUNDS	4

/* Seed of the pattern of slice @s in round @r. */
#define SLICE_SEED(s, r)	((s) * 16 + (r))

/*
 * One of the concurrent writers: its own device, import, memory and
 * queues; each queue writes its own slice of the segment over and over
 * and reads it back (fenced). Exits nonzero on any failure.
 */
static void writer(uint32_t eid, uint32_t tid, unsigned int w)
{
	struct ubfab_queue *q[WRITER_QUEUES];
	struct ubfab_import imp;
	struct ubfab_dev *dev;
	struct ubfab_cqe cqe[2];
	struct ubfab_sqe *sqe;
	unsigned int r, k;
	uint64_t loc_off;
	void *addr;
	char *loc;

	if (ubfab_dev_open("npu1", &dev) ||
	    ubfab_dev_import(dev, eid, tid, TOKEN,
			     UBFAB_SEG_READ | UBFAB_SEG_WRITE, &imp) ||
	    ubfab_dev_alloc(dev, WRITER_QUEUES * 2 * SLICE, &loc_off) ||
	    ubfab_dev_map(dev, loc_off, WRITER_QUEUES * 2 * SLICE,
			  PROT_READ | PROT_WRITE, &addr))
		_exit(2);
	loc = addr;
	for (k = 0; k < WRITER_QUEUES; k++)
		if (ubfab_queue_create(dev, NULL, &q[k]))
			_exit(3);
	for (r = 0; r < WRITE_ROUNDS; r++) {
		for (k = 0; k < WRITER_QUEUES; k++) {
			unsigned int s = w * WRITER_QUEUES + k;
			uint64_t src = loc_off + k * 2 * SLICE;

			fill_pat(loc + k * 2 * SLICE, SLICE - r,
				 SLICE_SEED(s, r));
			memset(loc + k * 2 * SLICE + SLICE, 0, SLICE);
			sqe = ubfab_queue_get_sqe(q[k]);
			ubfab_prep_write(sqe, src,
					 ubfab_import_addr(&imp, s * SLICE),
					 SLICE - r);
			sqe = ubfab_queue_get_sqe(q[k]);
			ubfab_prep_read(sqe, src + SLICE,
					ubfab_import_addr(&imp, s * SLICE),
					SLICE - r);
			ubfab_sqe_set_flags(sqe, UBFAB_SQE_FENCE);
			if (ubfab_queue_submit(q[k]) != 2)
				_exit(4);
		}
		for (k = 0; k < WRITER_QUEUES; k++) {
			unsigned int s = w * WRITER_QUEUES + k;

			if (ubfab_test_complete(q[k], cqe, 2) || cqe[0].status ||
			    cqe[1].status)
				_exit(5);
			if (check_pat(loc + k * 2 * SLICE + SLICE, SLICE - r,
				      SLICE_SEED(s, r)) != -1)
				_exit(6);
		}
	}
	for (k = 0; k < WRITER_QUEUES; k++)
		ubfab_queue_destroy(q[k]);
	ubfab_dev_close(dev);
	_exit(0);
}

/*
 * Many queues in several processes writing at once, each its own part of
 * one segment: every byte lands where its queue put it.
 */
TEST_F_TIMEOUT(queue, concurrent_writers, SLOW)
{
	const unsigned int last = WRITE_ROUNDS - 1;
	unsigned int i, s;
	pid_t pid[WRITERS];
	int status;

	ASSERT_LE(WRITERS * WRITER_QUEUES * SLICE, SEG_LEN);
	for (i = 0; i < WRITERS; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			writer(ubfab_dev_eid(self->exp), self->tid, i);
	}
	for (i = 0; i < WRITERS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("writer %u", i);
	}
	for (s = 0; s < WRITERS * WRITER_QUEUES; s++) {
		EXPECT_EQ(-1, check_pat(self->seg + s * SLICE, SLICE - last,
					SLICE_SEED(s, last)))
			TH_LOG("slice %u", s);
	}
}

/*
 * The SQ takes as many entries as it has slots; a CQ too small for what
 * was posted stalls the queue (counted, UBFAB_SQ_CQ_FULL) until
 * completions are consumed, and no completion is lost.
 */
TEST_F(queue, ring_limits)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_cqe *cqe;
	struct ubfab_queue *q;
	unsigned int i;

	attr.sq_entries = 16;
	attr.cq_entries = 4;
	ASSERT_EQ(0, ubfab_queue_create(self->npu1, &attr, &q));
	for (i = 0; i < 16; i++) {
		struct ubfab_sqe *sqe = ubfab_queue_get_sqe(q);

		ASSERT_NE(NULL, sqe);
		ubfab_prep_nop(sqe);
		ubfab_sqe_set_data(sqe, i);
	}
	EXPECT_EQ(NULL, ubfab_queue_get_sqe(q));
	EXPECT_EQ(0, ubfab_queue_sq_space(q));
	ASSERT_EQ(16, ubfab_queue_submit(q));
	usleep(300 * 1000);
	EXPECT_EQ(4, ubfab_queue_cq_ready(q));
	EXPECT_TRUE(ubfab_queue_sq_flags(q) & UBFAB_SQ_CQ_FULL);
	EXPECT_LE(1, __atomic_load_n(q->cq_overflow, __ATOMIC_RELAXED));
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(0, ubfab_queue_wait_cqe(q, &cqe, UBFAB_TEST_WAIT_MS))
			TH_LOG("completion %u", i);
		EXPECT_EQ(i, cqe->user_data);
		EXPECT_EQ(UBFAB_CQE_OK, cqe->status);
		ubfab_queue_cqe_seen(q);
	}
	EXPECT_EQ(-ETIMEDOUT, ubfab_queue_wait_cqe(q, &cqe, 100));
	EXPECT_FALSE(ubfab_queue_sq_flags(q) & UBFAB_SQ_CQ_FULL);
	EXPECT_EQ(16, ubfab_queue_sq_space(q));
	EXPECT_EQ(0, __atomic_load_n(q->sq_overflow, __ATOMIC_RELAXED));
	ubfab_queue_destroy(q);
}

/*
 * A polling queue takes entries with no doorbell while busy; idle, it
 * sleeps and asks for the doorbell, which ubfab_queue_submit() rings.
 */
TEST_F(queue, polling)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_cqe cqe[32];
	struct ubfab_queue *q;
	unsigned int i, round;

	attr.flags = UBFAB_QUEUE_POLL;
	attr.idle_us = 2000;
	ASSERT_EQ(0, ubfab_queue_create(self->npu1, &attr, &q));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 32; i++) {
			struct ubfab_sqe *sqe = ubfab_queue_get_sqe(q);

			ASSERT_NE(NULL, sqe);
			ubfab_prep_fill(sqe, LOC(i * 64), round + 1, 64);
			ubfab_sqe_set_data(sqe, i);
		}
		ASSERT_EQ(0, ubfab_test_complete(q, cqe, 32));
		for (i = 0; i < 32; i++) {
			EXPECT_EQ(i, cqe[i].user_data);
			EXPECT_EQ(UBFAB_CQE_OK, cqe[i].status);
		}
		EXPECT_EQ(-1, check_byte(self->loc, 32 * 64, round + 1));
		/* idle for longer than idle_us: asleep (within 5 s) */
		for (i = 0; i < 5000 && !(ubfab_queue_sq_flags(q) &
					  UBFAB_SQ_NEED_WAKEUP); i++)
			usleep(1000);
		EXPECT_TRUE(ubfab_queue_sq_flags(q) & UBFAB_SQ_NEED_WAKEUP);
	}
	ubfab_queue_destroy(q);
}

/* A selective queue completes signalled entries and failed ones. */
TEST_F(queue, selective)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_cqe cqe[2], *c;
	struct ubfab_sqe *sqe;
	struct ubfab_queue *q;
	unsigned int i;

	attr.flags = UBFAB_QUEUE_SELECTIVE;
	ASSERT_EQ(0, ubfab_queue_create(self->npu1, &attr, &q));
	for (i = 1; i <= 4; i++) {
		sqe = ubfab_queue_get_sqe(q);
		ASSERT_NE(NULL, sqe);
		ubfab_prep_fill(sqe, LOC(0), i, 16);
		ubfab_sqe_set_data(sqe, i);
		if (!(i % 2))
			ubfab_sqe_set_flags(sqe, UBFAB_SQE_SIGNAL);
	}
	ASSERT_EQ(0, ubfab_test_complete(q, cqe, 2));
	EXPECT_EQ(2, cqe[0].user_data);
	EXPECT_EQ(4, cqe[1].user_data);
	EXPECT_EQ(UBFAB_CQE_OK, cqe[1].status);
	EXPECT_EQ(-1, check_byte(self->loc, 16, 4));
	EXPECT_EQ(-ETIMEDOUT, ubfab_queue_wait_cqe(q, &c, 200));

	/* a failed entry completes unsignalled */
	sqe = ubfab_queue_get_sqe(q);
	ASSERT_NE(NULL, sqe);
	ubfab_prep_fill(sqe, LOC(0), 300, 16);
	ubfab_sqe_set_data(sqe, 5);
	sqe = ubfab_queue_get_sqe(q);
	ASSERT_NE(NULL, sqe);
	ubfab_prep_nop(sqe);
	ubfab_sqe_set_data(sqe, 6);
	ubfab_sqe_set_flags(sqe, UBFAB_SQE_SIGNAL);
	ASSERT_EQ(0, ubfab_test_complete(q, cqe, 2));
	EXPECT_EQ(5, cqe[0].user_data);
	EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, cqe[0].status);
	EXPECT_EQ(6, cqe[1].user_data);
	EXPECT_EQ(UBFAB_CQE_FLUSHED, cqe[1].status);
	EXPECT_EQ(0, ubfab_queue_reset(q));
	ubfab_queue_destroy(q);
}

/* The eventfd counts batches of completions. */
TEST_F(queue, eventfd)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_cqe cqe;
	struct ubfab_queue *q;
	uint64_t count = 0;
	int efd;

	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ASSERT_LE(0, efd);
	attr.eventfd = efd;
	ASSERT_EQ(0, ubfab_queue_create(self->npu1, &attr, &q));
	EXPECT_EQ(-1, read(efd, &count, sizeof(count)));
	EXPECT_EQ(EAGAIN, errno);
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ASSERT_EQ(0, ubfab_test_complete(q, &cqe, 1));
	ASSERT_EQ(sizeof(count), read(efd, &count, sizeof(count)));
	EXPECT_LE(1, count);
	/* the queue holds its own reference to the eventfd */
	close(efd);
	ubfab_prep_nop(ubfab_queue_get_sqe(q));
	ASSERT_EQ(0, ubfab_test_complete(q, &cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	ubfab_queue_destroy(q);
}

/*
 * EVENT_RECORD on one queue releases EVENT_WAIT on another; WAIT_VALUE
 * holds a queue until a word in the entity's memory says so; both time
 * out.
 */
TEST_F(queue, waits)
{
	uint64_t *word = (uint64_t *)(self->loc + 64);
	struct ubfab_cqe cqe[2], *c;
	struct ubfab_queue *q2;

	ASSERT_EQ(0, ubfab_queue_create(self->npu1, NULL, &q2));
	ubfab_prep_event_wait(GET_SQE(q2), 5, 1, 0);
	ubfab_prep_nop(GET_SQE(q2));
	ASSERT_LE(0, ubfab_queue_submit(q2));
	EXPECT_EQ(-ETIMEDOUT, ubfab_queue_wait_cqe(q2, &c, 300));
	ubfab_prep_event_record(GET_SQE(self->q), 5);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(1, cqe[0].result);
	ASSERT_EQ(0, ubfab_test_complete(q2, cqe, 2));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(UBFAB_OP_EVENT_WAIT, cqe[0].opcode);
	EXPECT_EQ(1, cqe[0].result);
	EXPECT_EQ(UBFAB_CQE_OK, cqe[1].status);
	ubfab_queue_destroy(q2);

	*word = 0;
	ubfab_prep_wait_value(GET_SQE(self->q), LOC(64), UBFAB_WAIT_EQ, 42, 0);
	ASSERT_LE(0, ubfab_queue_submit(self->q));
	EXPECT_EQ(-ETIMEDOUT, ubfab_queue_wait_cqe(self->q, &c, 300));
	__atomic_store_n(word, 42, __ATOMIC_RELEASE);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(42, cqe[0].result);
	*word = 100;
	ubfab_prep_wait_value(GET_SQE(self->q), LOC(64), UBFAB_WAIT_GE, 50, 0);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(100, cqe[0].result);

	ubfab_prep_wait_value(GET_SQE(self->q), LOC(64), UBFAB_WAIT_EQ, 7,
			      100);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_TIMEOUT, cqe[0].status);
	EXPECT_EQ(100, cqe[0].result);
	EXPECT_EQ(0, ubfab_queue_reset(self->q));
	ubfab_prep_event_wait(GET_SQE(self->q), 6, 1, 100);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_TIMEOUT, cqe[0].status);
	EXPECT_EQ(0, cqe[0].result);
}

/*
 * The fabric model's virtual time. npu0 of a supernode of two nodes of two
 * chips of two dies drives queues against a segment on each of three
 * peers: npu1 (the other die of its chip), npu2 (another chip of its node)
 * and npu4 (another node).
 */
enum { DIE, NODE, FAR, PEERS };

FIXTURE(model) {
	struct ubfab_dev *npu0;
	struct ubfab_dev *peer[PEERS];
	struct ubfab_import imp[PEERS];	/* npu0's imports of theirs */
	struct ubfab_nl *nl;
	uint64_t loc_off;		/* an allocation of npu0 */
	struct ubfab_queue *q;		/* on npu0 */
};

FIXTURE_SETUP(model)
{
	static const char *const names[PEERS] = { "npu1", "npu2", "npu4" };
	uint64_t off;
	uint32_t tid;
	int i;

	ASSERT_EQ(0, ubfab_reload("nodes=2 chips_per_node=2 cpus_per_node=1 npu_mem=8M cpu_mem=8M"));
	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
	ASSERT_EQ(0, ubfab_dev_open("npu0", &self->npu0));
	for (i = 0; i < PEERS; i++) {
		ASSERT_EQ(0, ubfab_dev_open(names[i], &self->peer[i]));
		ASSERT_EQ(0, ubfab_dev_alloc(self->peer[i], SEG_LEN, &off));
		ASSERT_EQ(0, ubfab_dev_export(self->peer[i], off, SEG_LEN,
					      RWA, TOKEN, &tid));
		ASSERT_EQ(0, ubfab_dev_import(self->npu0,
					      ubfab_dev_eid(self->peer[i]),
					      tid, TOKEN, RWA, &self->imp[i]));
	}
	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, LOC_LEN, &self->loc_off));
	ASSERT_EQ(0, ubfab_queue_create(self->npu0, NULL, &self->q));
}

FIXTURE_TEARDOWN(model)
{
	int i;

	ubfab_queue_destroy(self->q);
	for (i = 0; i < PEERS; i++)
		ubfab_dev_close(self->peer[i]);
	ubfab_dev_close(self->npu0);
	ubfab_nl_close(self->nl);
	ubfab_unload();
}

/*
 * Two modeled durations in whole ns of a clock kept in ps: the same cost
 * reads one ns more or less as the clock's fraction of a ns stands.
 */
#define EXPECT_NEAR_NS(a, b) do {					\
	EXPECT_GE((a) + 1, (b));					\
	EXPECT_LE((a), (b) + 1);					\
} while (0)

/* Run one entry of opcode @op on @q, to peer @p: its modeled cost in ns. */
static uint64_t model_cost(struct __test_metadata *_metadata,
			   FIXTURE_DATA(model) *self, struct ubfab_queue *q,
			   uint8_t op, int p, uint32_t len)
{
	uint64_t before, rem = ubfab_import_addr(&self->imp[p], 0);
	struct ubfab_cqe cqe;

	EXPECT_EQ(0, ubfab_queue_clock(q, 0, &before));
	ubfab_prep_entry(GET_SQE(q), op, len, self->loc_off, rem, 0);
	EXPECT_EQ(0, ubfab_test_complete(q, &cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_LE(before, cqe.model_ns);
	return cqe.model_ns - before;
}

/* NOPs cost the issue overhead each, in order. */
TEST_F(model, nops)
{
	struct ubfab_cqe cqe[10];
	uint64_t now;
	int i;

	for (i = 0; i < 10; i++)
		ubfab_prep_nop(GET_SQE(self->q));
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 10));
	for (i = 0; i < 10; i++)
		EXPECT_EQ((i + 1) * ISSUE_NS, cqe[i].model_ns);
	ASSERT_EQ(0, ubfab_queue_clock(self->q, 0, &now));
	EXPECT_EQ(10 * ISSUE_NS, now);
}

/* COMPUTE moves the clock by exactly its value; its fields are checked. */
TEST_F(model, compute)
{
	struct ubfab_cqe cqe[4];
	struct ubfab_sqe *sqe;

	ubfab_prep_compute(GET_SQE(self->q), 123456789);
	ubfab_prep_compute(GET_SQE(self->q), 0);
	ubfab_prep_compute(GET_SQE(self->q), 1);
	ubfab_prep_nop(GET_SQE(self->q));
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 4));
	EXPECT_EQ(UBFAB_OP_COMPUTE, cqe[0].opcode);
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(0, cqe[0].bytes);
	EXPECT_EQ(123456789, cqe[0].model_ns);
	EXPECT_EQ(123456789, cqe[1].model_ns);
	EXPECT_EQ(123456790, cqe[2].model_ns);
	EXPECT_EQ(123456790 + ISSUE_NS, cqe[3].model_ns);

	/* a field COMPUTE does not use; then a flushed entry costs nothing */
	ubfab_prep_compute(GET_SQE(self->q), 5);
	sqe = GET_SQE(self->q);
	ubfab_prep_compute(sqe, 5);
	sqe->length = 8;
	ubfab_prep_nop(GET_SQE(self->q));
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 3));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, cqe[1].status);
	EXPECT_EQ(UBFAB_CQE_FLUSHED, cqe[2].status);
	EXPECT_EQ(123456795 + ISSUE_NS, cqe[0].model_ns);
	EXPECT_EQ(cqe[0].model_ns + ISSUE_NS, cqe[1].model_ns);
	EXPECT_EQ(cqe[1].model_ns, cqe[2].model_ns);
	EXPECT_EQ(0, ubfab_queue_reset(self->q));
}

/* The clock ioctl reads and advances; entries go on from there. */
TEST_F(model, clock)
{
	struct ubfab_queue_clock arg = { .size = sizeof(arg) };
	int fd = ubfab_queue_fd(self->q);
	struct {
		struct ubfab_queue_clock clock;
		uint64_t more;
	} big = { .clock.size = sizeof(big) };
	struct ubfab_cqe cqe;
	uint64_t now = 1;

	ASSERT_EQ(0, ubfab_queue_clock(self->q, 0, &now));
	EXPECT_EQ(0, now);
	ASSERT_EQ(0, ubfab_queue_clock(self->q, 5000, &now));
	EXPECT_EQ(5000, now);
	ASSERT_EQ(0, ubfab_queue_clock(self->q, 0, NULL));
	ubfab_prep_nop(GET_SQE(self->q));
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	EXPECT_EQ(5000 + ISSUE_NS, cqe.model_ns);

	/* the raw ioctl: size rules of the entity ioctls, known flags */
	arg.advance_ns = 7;
	ASSERT_EQ(0, ioctl(fd, UBFAB_IOCTL_QUEUE_CLOCK, &arg));
	EXPECT_EQ(5007 + ISSUE_NS, arg.now_ns);
	arg.flags = UBFAB_CLOCK_FLAGS + 1;
	EXPECT_EQ(-1, ioctl(fd, UBFAB_IOCTL_QUEUE_CLOCK, &arg));
	EXPECT_EQ(EINVAL, errno);
	/* parking a queue outside the ordered domain does nothing */
	arg.flags = UBFAB_CLOCK_PARK;
	arg.advance_ns = 0;
	EXPECT_EQ(0, ioctl(fd, UBFAB_IOCTL_QUEUE_CLOCK, &arg));
	arg.flags = 0;
	arg.size = offsetof(struct ubfab_queue_clock, now_ns);
	EXPECT_EQ(-1, ioctl(fd, UBFAB_IOCTL_QUEUE_CLOCK, &arg));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ioctl(fd, UBFAB_IOCTL_QUEUE_CLOCK, &big));
	EXPECT_EQ(5007 + ISSUE_NS, big.clock.now_ns);
	big.more = 1;
	EXPECT_EQ(-1, ioctl(fd, UBFAB_IOCTL_QUEUE_CLOCK, &big));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(-1, ioctl(fd, UBFAB_IOCTL_QUEUE_CLOCK, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-EINVAL, ubfab_queue_clock(NULL, 0, &now));

	/* it saturates rather than wraps */
	ASSERT_EQ(0, ubfab_queue_clock(self->q, UINT64_MAX, &now));
	EXPECT_EQ(UINT64_MAX / 1000, now);
	ubfab_prep_nop(GET_SQE(self->q));
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	EXPECT_EQ(UINT64_MAX / 1000, cqe.model_ns);
}

/* Two queues keep clocks of their own. */
TEST_F(model, independent_queues)
{
	struct ubfab_queue *q2;
	struct ubfab_cqe cqe;
	uint64_t now;

	ASSERT_EQ(0, ubfab_queue_create(self->npu0, NULL, &q2));
	ubfab_prep_compute(GET_SQE(self->q), 1000000);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	ubfab_prep_nop(GET_SQE(q2));
	ASSERT_EQ(0, ubfab_test_complete(q2, &cqe, 1));
	EXPECT_EQ(ISSUE_NS, cqe.model_ns);
	ASSERT_EQ(0, ubfab_queue_clock(q2, 0, &now));
	EXPECT_EQ(ISSUE_NS, now);
	ASSERT_EQ(0, ubfab_queue_clock(self->q, 0, &now));
	EXPECT_EQ(1000000, now);
	ubfab_queue_destroy(q2);
}

/*
 * Farther costs more: other die < other chip < other node. A READ is a
 * round trip as a WRITE is, and answered sooner than a WRITE is
 * acknowledged, as the published latencies say.
 */
TEST_F(model, paths)
{
	uint64_t die, node, far, read;

	die = model_cost(_metadata, self, self->q, UBFAB_OP_WRITE, DIE, 8);
	node = model_cost(_metadata, self, self->q, UBFAB_OP_WRITE, NODE, 8);
	far = model_cost(_metadata, self, self->q, UBFAB_OP_WRITE, FAR, 8);
	read = model_cost(_metadata, self, self->q, UBFAB_OP_READ, NODE, 8);
	EXPECT_LT(ISSUE_NS, die);
	EXPECT_LT(die, node);
	EXPECT_LT(node, far);
	EXPECT_LT(read, node);
	EXPECT_LT(read, model_cost(_metadata, self, self->q, UBFAB_OP_READ,
				   FAR, 8));
	/* the same entry costs the same, the slow or the fast way */
	EXPECT_NEAR_NS(node, model_cost(_metadata, self, self->q,
					UBFAB_OP_WRITE, NODE, 8));
}

/*
 * A burst of small WRITEs (the fast path) costs as much per entry as one
 * WRITE alone; a selective queue's clock moves on for the entries that
 * post no completion.
 */
TEST_F(model, bursts_and_selective)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	uint64_t rem = ubfab_import_addr(&self->imp[NODE], 0), one;
	struct ubfab_cqe cqe[16];
	struct ubfab_queue *q;
	struct ubfab_sqe *sqe;
	int i;

	one = model_cost(_metadata, self, self->q, UBFAB_OP_WRITE, NODE, 64);
	for (i = 0; i < 16; i++)
		ubfab_prep_write(GET_SQE(self->q), self->loc_off, rem, 64);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 16));
	for (i = 1; i < 16; i++) {
		EXPECT_EQ(UBFAB_CQE_OK, cqe[i].status);
		EXPECT_NEAR_NS(one, cqe[i].model_ns - cqe[i - 1].model_ns);
	}

	attr.flags = UBFAB_QUEUE_SELECTIVE;
	ASSERT_EQ(0, ubfab_queue_create(self->npu0, &attr, &q));
	for (i = 0; i < 4; i++)
		ubfab_prep_nop(GET_SQE(q));
	ubfab_prep_compute(GET_SQE(q), 10);
	for (i = 0; i < 8; i++)
		ubfab_prep_write(GET_SQE(q), self->loc_off, rem, 64);
	sqe = GET_SQE(q);
	ubfab_prep_nop(sqe);
	ubfab_sqe_set_flags(sqe, UBFAB_SQE_SIGNAL);
	ASSERT_EQ(0, ubfab_test_complete(q, cqe, 1));
	EXPECT_EQ(UBFAB_OP_NOP, cqe[0].opcode);
	EXPECT_LE(5 * ISSUE_NS + 10 + 8 * (one - 1), cqe[0].model_ns);
	EXPECT_GE(5 * ISSUE_NS + 10 + 8 * (one + 1), cqe[0].model_ns);
	ubfab_queue_destroy(q);
}

/*
 * The memory-semantics class: its own start-up, for transfers of at most
 * UBFAB_SQE_MEMSEM_MAX_LENGTH bytes; the fast path prices each entry of a
 * burst by its class.
 */
TEST_F(model, memsem)
{
	uint64_t rem = ubfab_import_addr(&self->imp[NODE], 0), dma, mem;
	struct ubfab_cqe cqe[8];
	struct ubfab_sqe *sqe;
	int i;

	dma = model_cost(_metadata, self, self->q, UBFAB_OP_WRITE, NODE, 64);
	for (i = 0; i < 8; i++) {
		sqe = GET_SQE(self->q);
		ubfab_prep_write(sqe, self->loc_off, rem, 64);
		if (i & 1)
			ubfab_sqe_set_flags(sqe, UBFAB_SQE_MEMSEM);
	}
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 8));
	for (i = 1; i < 8; i++)
		EXPECT_NEAR_NS(i & 1 ? dma - MEMSEM_SAVES_NS : dma,
			       cqe[i].model_ns - cqe[i - 1].model_ns);
	mem = cqe[1].model_ns - cqe[0].model_ns;
	EXPECT_LT(mem, dma);

	/* the longest it takes, then one byte more; not on a NOP */
	sqe = GET_SQE(self->q);
	ubfab_prep_write(sqe, self->loc_off, rem, UBFAB_SQE_MEMSEM_MAX_LENGTH);
	ubfab_sqe_set_flags(sqe, UBFAB_SQE_MEMSEM);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe[0].status);
	sqe = GET_SQE(self->q);
	ubfab_prep_write(sqe, self->loc_off, rem,
			 UBFAB_SQE_MEMSEM_MAX_LENGTH + 1);
	ubfab_sqe_set_flags(sqe, UBFAB_SQE_MEMSEM);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, cqe[0].status);
	EXPECT_EQ(0, cqe[0].bytes);
	EXPECT_EQ(0, ubfab_queue_reset(self->q));
	sqe = GET_SQE(self->q);
	ubfab_prep_nop(sqe);
	ubfab_sqe_set_flags(sqe, UBFAB_SQE_MEMSEM);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, cqe[0].status);
	EXPECT_EQ(0, ubfab_queue_reset(self->q));
}

/*
 * Causality: a WAIT_VALUE ends no earlier than the modeled arrival of the
 * WRITE_NOTIFY or ATOMIC that satisfied it, however early its own queue's
 * clock is; a word no modeled write stamped counts as time 0; stamps go
 * with the memory they stamp.
 */
TEST_F(model, wait_value_after_write)
{
	struct ubfab_dev *peer = self->peer[NODE];
	struct ubfab_import back;	/* the peer's import of npu0's flags */
	struct ubfab_queue *qp, *q2;
	struct ubfab_cqe cqe[2], w;
	uint64_t off, poff, end;
	volatile uint64_t *flags;
	uint32_t tid;

	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, 4096, &off));
	ASSERT_EQ(0, ubfab_dev_map(self->npu0, off, 4096,
				   PROT_READ | PROT_WRITE, (void **)&flags));
	ASSERT_EQ(0, ubfab_dev_export(self->npu0, off, 4096, RWA, TOKEN,
				      &tid));
	ASSERT_EQ(0, ubfab_dev_import(peer, ubfab_dev_eid(self->npu0), tid,
				      TOKEN, RWA, &back));
	ASSERT_EQ(0, ubfab_dev_alloc(peer, 4096, &poff));
	ASSERT_EQ(0, ubfab_queue_create(peer, NULL, &qp));

	/* the wait first, at clock 0; then the write, 1 ms later */
	ubfab_prep_wait_value(GET_SQE(self->q), off, UBFAB_WAIT_GE, 1,
			      UBFAB_TEST_WAIT_MS);
	ASSERT_LE(0, ubfab_queue_submit(self->q));
	ubfab_prep_compute(GET_SQE(qp), 1000000);
	ubfab_prep_write_notify(GET_SQE(qp), poff,
				ubfab_import_addr(&back, 64), 64,
				ubfab_import_addr(&back, 0), 1);
	ASSERT_EQ(0, ubfab_test_complete(qp, cqe, 2));
	ASSERT_EQ(UBFAB_CQE_OK, cqe[1].status);
	end = cqe[1].model_ns;
	ASSERT_EQ(0, ubfab_test_complete(self->q, &w, 1));
	ASSERT_EQ(UBFAB_CQE_OK, w.status);
	/* the arrival: the write's end less the acknowledgment's way back */
	EXPECT_LT(1000000, w.model_ns);
	EXPECT_LE(end - 188, w.model_ns);
	EXPECT_GE(end - 187, w.model_ns);

	/* an ATOMIC 5 ms on; the waiting queue is far behind */
	ubfab_prep_wait_value(GET_SQE(self->q), off, UBFAB_WAIT_EQ, 2,
			      UBFAB_TEST_WAIT_MS);
	ASSERT_LE(0, ubfab_queue_submit(self->q));
	ubfab_prep_compute(GET_SQE(qp), 5000000);
	ubfab_prep_atomic(GET_SQE(qp), UBFAB_ATOMIC_FETCH_ADD,
			  ubfab_import_addr(&back, 0), 1, 0);
	ASSERT_EQ(0, ubfab_test_complete(qp, cqe, 2));
	end = cqe[1].model_ns;
	ASSERT_EQ(0, ubfab_test_complete(self->q, &w, 1));
	ASSERT_EQ(UBFAB_CQE_OK, w.status);
	EXPECT_LE(end - 188, w.model_ns);
	EXPECT_GE(end - 187, w.model_ns);

	/* a CPU store stamps nothing: the wait's own clock and issue */
	flags[1] = 7;
	ASSERT_EQ(0, ubfab_queue_clock(self->q, 0, &end));
	ubfab_prep_wait_value(GET_SQE(self->q), off + 8, UBFAB_WAIT_EQ, 7,
			      UBFAB_TEST_WAIT_MS);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &w, 1));
	EXPECT_EQ(end + ISSUE_NS, w.model_ns);
	ASSERT_EQ(0, ubfab_queue_create(self->npu0, NULL, &q2));
	ubfab_prep_wait_value(GET_SQE(q2), off + 8, UBFAB_WAIT_EQ, 7,
			      UBFAB_TEST_WAIT_MS);
	ASSERT_EQ(0, ubfab_test_complete(q2, &w, 1));
	EXPECT_EQ(ISSUE_NS, w.model_ns);

	/* freed and allocated again: the old stamp is gone with the memory */
	ubfab_queue_destroy(qp);
	ASSERT_EQ(0, ubfab_dev_unimport(peer, back.mmap_offset));
	ASSERT_EQ(0, munmap((void *)flags, 4096));
	ASSERT_EQ(0, ubfab_dev_free(self->npu0, off));
	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, 4096, &off));
	ASSERT_EQ(0, ubfab_dev_map(self->npu0, off, 4096,
				   PROT_READ | PROT_WRITE, (void **)&flags));
	flags[0] = 2;
	ubfab_prep_wait_value(GET_SQE(q2), off, UBFAB_WAIT_EQ, 2,
			      UBFAB_TEST_WAIT_MS);
	ASSERT_EQ(0, ubfab_test_complete(q2, &w, 1));
	EXPECT_EQ(2 * ISSUE_NS, w.model_ns);
	ubfab_queue_destroy(q2);
}

/*
 * A writer that runs ahead on the host does not hold a wait to its later
 * writes: three ATOMIC adds 1 ms apart in modeled time, all done before
 * any wait looks; waits for 1, 2 and then 3 end at the arrival of the
 * add that brought the word there, not at the last one's.
 */
TEST_F(model, wait_value_writer_ahead)
{
	struct ubfab_dev *peer = self->peer[NODE];
	struct ubfab_import back;
	struct ubfab_cqe cqe[6], w;
	uint64_t off, arrival[3];
	struct ubfab_queue *qp;
	uint32_t tid;
	int i;

	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, 4096, &off));
	ASSERT_EQ(0, ubfab_dev_export(self->npu0, off, 4096, RWA, TOKEN,
				      &tid));
	ASSERT_EQ(0, ubfab_dev_import(peer, ubfab_dev_eid(self->npu0), tid,
				      TOKEN, RWA, &back));
	ASSERT_EQ(0, ubfab_queue_create(peer, NULL, &qp));
	for (i = 0; i < 3; i++) {
		ubfab_prep_compute(GET_SQE(qp), 1000000);
		ubfab_prep_atomic(GET_SQE(qp), UBFAB_ATOMIC_FETCH_ADD,
				  ubfab_import_addr(&back, 0), 1, 0);
	}
	ASSERT_EQ(0, ubfab_test_complete(qp, cqe, 6));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(UBFAB_CQE_OK, cqe[2 * i + 1].status);
		/* the end less the acknowledgment's way back (above) */
		arrival[i] = cqe[2 * i + 1].model_ns - 188;
	}
	for (i = 0; i < 3; i++) {
		ubfab_prep_wait_value(GET_SQE(self->q), off,
				      i < 2 ? UBFAB_WAIT_GE : UBFAB_WAIT_EQ,
				      i + 1, UBFAB_TEST_WAIT_MS);
		ASSERT_EQ(0, ubfab_test_complete(self->q, &w, 1));
		ASSERT_EQ(UBFAB_CQE_OK, w.status);
		EXPECT_EQ(3, w.result);
		EXPECT_LE(arrival[i], w.model_ns);
		EXPECT_GE(arrival[i] + 1, w.model_ns);
	}
	ubfab_queue_destroy(qp);
	ASSERT_EQ(0, ubfab_dev_unimport(peer, back.mmap_offset));
}

/* An EVENT_WAIT ends no earlier than the EVENT_RECORD it waited for. */
TEST_F(model, event_wait_after_record)
{
	struct ubfab_queue *q2;
	struct ubfab_cqe cqe[2], w;

	ASSERT_EQ(0, ubfab_queue_create(self->npu0, NULL, &q2));
	ubfab_prep_event_wait(GET_SQE(q2), 3, 1, UBFAB_TEST_WAIT_MS);
	ASSERT_LE(0, ubfab_queue_submit(q2));
	ubfab_prep_compute(GET_SQE(self->q), 2000000);
	ubfab_prep_event_record(GET_SQE(self->q), 3);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 2));
	EXPECT_EQ(2000000 + ISSUE_NS, cqe[1].model_ns);
	ASSERT_EQ(0, ubfab_test_complete(q2, &w, 1));
	EXPECT_EQ(UBFAB_CQE_OK, w.status);
	EXPECT_EQ(2000000 + ISSUE_NS, w.model_ns);

	/* a waiter already later than the record: its own clock and issue */
	ubfab_prep_compute(GET_SQE(q2), 3000000);
	ubfab_prep_event_wait(GET_SQE(q2), 3, 1, UBFAB_TEST_WAIT_MS);
	ASSERT_EQ(0, ubfab_test_complete(q2, cqe, 2));
	EXPECT_EQ(5000000 + 2 * ISSUE_NS, cqe[1].model_ns);
	ubfab_queue_destroy(q2);
}

/*
 * A CPU store carries the stamping queue's clock when the program stamps
 * the word first: a wait it satisfies ends no earlier; the stamp checks
 * its address as an entry would.
 */
TEST_F(model, stamp_before_cpu_store)
{
	uint64_t off, now = 0, rem = ubfab_import_addr(&self->imp[NODE], 0);
	struct ubfab_import ro;
	volatile uint64_t *flags;
	struct ubfab_queue *q2;
	struct ubfab_cqe w;
	uint32_t tid;

	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, 4096, &off));
	ASSERT_EQ(0, ubfab_dev_map(self->npu0, off, 4096,
				   PROT_READ | PROT_WRITE, (void **)&flags));
	ASSERT_EQ(0, ubfab_queue_create(self->npu0, NULL, &q2));
	ubfab_prep_wait_value(GET_SQE(q2), off + 16, UBFAB_WAIT_EQ, 9,
			      UBFAB_TEST_WAIT_MS);
	ASSERT_LE(0, ubfab_queue_submit(q2));
	ubfab_prep_compute(GET_SQE(self->q), 3000000);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &w, 1));
	ASSERT_EQ(0, ubfab_queue_stamp(self->q, off + 16, UBFAB_STAMP_LOCAL,
				       &now));
	EXPECT_EQ(3000000, now);
	flags[2] = 9;
	ASSERT_EQ(0, ubfab_test_complete(q2, &w, 1));
	EXPECT_EQ(UBFAB_CQE_OK, w.status);
	EXPECT_EQ(3000000, w.model_ns);

	/* a remote word: through an import that grants the write */
	EXPECT_EQ(0, ubfab_queue_stamp(self->q, rem + 8, 0, &now));
	/* unaligned, unknown flag, outside any allocation or import */
	EXPECT_EQ(-EINVAL, ubfab_queue_stamp(self->q, off + 4,
					     UBFAB_STAMP_LOCAL, &now));
	EXPECT_EQ(-EINVAL, ubfab_queue_stamp(self->q, off, 2, &now));
	EXPECT_EQ(-ENOENT, ubfab_queue_stamp(self->q, off + 4096,
					     UBFAB_STAMP_LOCAL, &now));
	EXPECT_EQ(-ENOENT, ubfab_queue_stamp(self->q, rem + SEG_LEN, 0,
					     &now));
	EXPECT_EQ(-ENOENT, ubfab_queue_stamp(self->q, 8, 0, &now));
	/* an import that does not grant the write */
	ASSERT_EQ(0, ubfab_dev_alloc(self->peer[FAR], 4096, &off));
	ASSERT_EQ(0, ubfab_dev_export(self->peer[FAR], off, 4096, RWA, TOKEN,
				      &tid));
	ASSERT_EQ(0, ubfab_dev_import(self->npu0,
				      ubfab_dev_eid(self->peer[FAR]), tid,
				      TOKEN, UBFAB_SEG_READ, &ro));
	EXPECT_EQ(-EACCES, ubfab_queue_stamp(self->q,
					     ubfab_import_addr(&ro, 0), 0,
					     &now));
	ubfab_queue_destroy(q2);
}

/*
 * Module parameter "model": off, nothing is charged (completions carry 0,
 * clocks stand still, the clock ioctl still moves them); on again, entries
 * are charged from where the clock stands.
 */
TEST_F(model, off)
{
	static const char *const param = "/sys/module/ubfab/parameters/model";
	uint64_t rem = ubfab_import_addr(&self->imp[NODE], 0), now;
	struct ubfab_cqe cqe[3];
	char buf[8];

	ASSERT_EQ(0, read_text(param, buf, sizeof(buf)));
	EXPECT_STREQ("Y", buf);
	ASSERT_EQ(0, write_file(param, "N"));
	ubfab_prep_nop(GET_SQE(self->q));
	ubfab_prep_compute(GET_SQE(self->q), 1000);
	ubfab_prep_write(GET_SQE(self->q), self->loc_off, rem, 64);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 3));
	EXPECT_EQ(0, cqe[0].model_ns);
	EXPECT_EQ(0, cqe[1].model_ns);
	EXPECT_EQ(UBFAB_CQE_OK, cqe[2].status);
	EXPECT_EQ(0, cqe[2].model_ns);
	ASSERT_EQ(0, ubfab_queue_clock(self->q, 7, &now));
	EXPECT_EQ(7, now);
	ASSERT_EQ(0, read_text(param, buf, sizeof(buf)));
	EXPECT_STREQ("N", buf);
	EXPECT_EQ(-EINVAL, write_file(param, "maybe"));

	ASSERT_EQ(0, write_file(param, "1"));
	ubfab_prep_nop(GET_SQE(self->q));
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 1));
	EXPECT_EQ(7 + ISSUE_NS, cqe[0].model_ns);
}

/*
 * A timing-only queue: entries checked, routed and charged as anywhere,
 * but no payload moves; an atomic still changes its word.
 */
TEST_F(model, timing_only)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	uint64_t rem = ubfab_import_addr(&self->imp[NODE], 0);
	static const uint32_t lens[] = { 64, 1 << 20 };
	struct ubfab_cqe tc, nc, c[4];
	struct ubfab_queue *t, *n;
	unsigned int i;
	uint8_t *loc;

	ASSERT_EQ(0, ubfab_dev_map(self->npu0, self->loc_off, LOC_LEN,
				   PROT_READ | PROT_WRITE, (void **)&loc));
	attr.flags = UBFAB_QUEUE_TIMING;
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		ASSERT_EQ(0, ubfab_queue_create(self->npu0, &attr, &t));
		ASSERT_EQ(0, ubfab_queue_create(self->npu0, NULL, &n));
		/* the peer's segment is zeros: a READ would clear this */
		memset(loc, 0xa5, lens[i]);
		ubfab_prep_read(GET_SQE(t), self->loc_off, rem, lens[i]);
		ASSERT_EQ(0, ubfab_test_complete(t, &tc, 1));
		EXPECT_EQ(UBFAB_CQE_OK, tc.status);
		EXPECT_EQ(lens[i], tc.bytes);
		EXPECT_EQ(0xa5, loc[0]);
		EXPECT_EQ(0xa5, loc[lens[i] - 1]);
		/*
		 * the same entry on a queue that moves it: the same time, 1 s
		 * later (not to contend for the links t used)
		 */
		ASSERT_EQ(0, ubfab_queue_clock(n, 1000000000, NULL));
		ubfab_prep_read(GET_SQE(n), self->loc_off, rem, lens[i]);
		ASSERT_EQ(0, ubfab_test_complete(n, &nc, 1));
		EXPECT_GE(tc.model_ns + 2, nc.model_ns - 1000000000);
		EXPECT_LE(tc.model_ns, nc.model_ns - 1000000000 + 2);
		EXPECT_EQ(0, loc[0]);
		EXPECT_EQ(0, loc[lens[i] - 1]);
		ubfab_queue_destroy(t);
		ubfab_queue_destroy(n);
	}

	/* FILL moves nothing; an atomic does its work; bad ranges still fail */
	ASSERT_EQ(0, ubfab_queue_create(self->npu0, &attr, &t));
	memset(loc, 0xa5, 64);
	ubfab_prep_fill(GET_SQE(t), self->loc_off, 0, 64);
	ubfab_prep_atomic(GET_SQE(t), UBFAB_ATOMIC_FETCH_ADD, rem + 8, 3, 0);
	ubfab_prep_atomic(GET_SQE(t), UBFAB_ATOMIC_FETCH_ADD, rem + 8, 3, 0);
	ubfab_prep_write(GET_SQE(t), self->loc_off, rem + SEG_LEN - 8, 64);
	ASSERT_EQ(0, ubfab_test_complete(t, c, 4));
	EXPECT_EQ(UBFAB_CQE_OK, c[0].status);
	EXPECT_EQ(64, c[0].bytes);
	EXPECT_EQ(0xa5, loc[0]);
	EXPECT_EQ(0, c[1].result);
	EXPECT_EQ(3, c[2].result);
	EXPECT_EQ(UBFAB_CQE_REMOTE_RANGE, c[3].status);
	ubfab_queue_destroy(t);
}

/*
 * A large WRITE stripes over the planes: one port down, 7/6 of the time
 * (at the links' pace: ubfab_engines_unbounded()). 42 chunks, 6 on each
 * of 7 planes, 7 on each of 6, in a segment and an allocation of their
 * own (the fixture's hold 16: 3 on the first plane either way).
 */
#define DOWN_LEN	(42U * UBFAB_PLANE_CHUNK)

TEST_F_TIMEOUT(model, plane_down, SLOW)
{
	uint32_t eid = ubfab_dev_eid(self->peer[NODE]), tid;
	uint64_t lat, seven, six, off;

	ASSERT_EQ(0, ubfab_engines_unbounded());
	lat = model_cost(_metadata, self, self->q, UBFAB_OP_WRITE, NODE, 8);
	ASSERT_EQ(0, ubfab_dev_alloc(self->peer[NODE], DOWN_LEN, &off));
	ASSERT_EQ(0, ubfab_dev_export(self->peer[NODE], off, DOWN_LEN, RWA,
				      TOKEN, &tid));
	ASSERT_EQ(0, ubfab_dev_import(self->npu0, eid, tid, TOKEN, RWA,
				      &self->imp[NODE]));
	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, DOWN_LEN, &self->loc_off));
	seven = model_cost(_metadata, self, self->q, UBFAB_OP_WRITE, NODE,
			   DOWN_LEN);
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, eid, 3,
					  UBFAB_STATE_DOWN));
	six = model_cost(_metadata, self, self->q, UBFAB_OP_WRITE, NODE,
			 DOWN_LEN);
	EXPECT_LT(seven, six);
	/* the serialization, less the latency: 6/7 of the bandwidth, 1% */
	EXPECT_GT(7 * (seven - lat) / 100,
		  llabs((long long)(6 * (six - lat) - 7 * (seven - lat))))
		TH_LOG("7 planes %llu ns, 6 planes %llu ns, 8 bytes %llu ns",
		       (unsigned long long)seven, (unsigned long long)six,
		       (unsigned long long)lat);
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, eid, 3, UBFAB_STATE_UP));
	EXPECT_NEAR_NS(seven, model_cost(_metadata, self, self->q,
					 UBFAB_OP_WRITE, NODE, DOWN_LEN));
}

/*
 * Contention in the fabric model: links shared by transfers share their
 * bandwidth, and so do the initiator's DMA engines. Flows of timing-only
 * queues (no payload to copy), each from a sender die to a receiver,
 * driven round by round from one thread so that the host's order is the
 * same in every run: one WRITE of 14 chunks of every flow per round, each
 * completed before the next is posted: 2 chunks on each of the 7 planes,
 * so that every plane carries the same share (the model prices a chunk
 * more on one plane, Documentation/model.rst). The tests of the links
 * load the module with ubfab_engines_unbounded(), so that the links set
 * the pace.
 */
#define FLOWS_MAX	17
#define FLOW_LEN	(14U * UBFAB_PLANE_CHUNK)

struct flow {
	struct ubfab_dev *src, *dst;
	struct ubfab_import imp;
	struct ubfab_queue *q;
	uint64_t loc;
	uint64_t seg;		/* the receiver's allocation it writes into */
	uint64_t end;		/* model_ns of its last completion */
};

FIXTURE(contention) {
	struct flow f[FLOWS_MAX];
	int n;
};

FIXTURE_SETUP(contention)
{
	self->n = 0;
}

FIXTURE_TEARDOWN(contention)
{
	int i;

	for (i = 0; i < self->n; i++) {
		ubfab_queue_destroy(self->f[i].q);
		ubfab_dev_close(self->f[i].src);
		ubfab_dev_close(self->f[i].dst);
	}
	ubfab_unload();
}

/* Add a flow from entity @src to @dst. */
static void add_flow(struct __test_metadata *_metadata,
		     FIXTURE_DATA(contention) *self, const char *src,
		     const char *dst)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct flow *f = &self->f[self->n++];
	uint32_t tid;

	attr.flags = UBFAB_QUEUE_TIMING;
	ASSERT_EQ(0, ubfab_dev_open(src, &f->src));
	ASSERT_EQ(0, ubfab_dev_open(dst, &f->dst));
	ASSERT_EQ(0, ubfab_dev_alloc(f->dst, FLOW_LEN, &f->seg));
	ASSERT_EQ(0, ubfab_dev_export(f->dst, f->seg, FLOW_LEN, RWA, TOKEN,
				      &tid));
	ASSERT_EQ(0, ubfab_dev_import(f->src, ubfab_dev_eid(f->dst), tid,
				      TOKEN, RWA, &f->imp));
	ASSERT_EQ(0, ubfab_dev_alloc(f->src, FLOW_LEN, &f->loc));
	ASSERT_EQ(0, ubfab_queue_create(f->src, &attr, &f->q));
}

/* @rounds rounds of one WRITE of @len bytes on every flow in turn. */
static void run_flows(struct __test_metadata *_metadata,
		      FIXTURE_DATA(contention) *self, int rounds,
		      uint32_t len)
{
	struct ubfab_cqe cqe;
	int r, i;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < self->n; i++) {
			ubfab_prep_write(GET_SQE(self->f[i].q), self->f[i].loc,
					 ubfab_import_addr(&self->f[i].imp, 0),
					 len);
			ASSERT_EQ(0, ubfab_test_complete(self->f[i].q, &cqe, 1));
			ASSERT_EQ(UBFAB_CQE_OK, cqe.status);
			self->f[i].end = cqe.model_ns;
		}
	}
}

/* Reload the module with @params, its DMA engines out of the links' way. */
static void reload_links(struct __test_metadata *_metadata, const char *params)
{
	ASSERT_EQ(0, ubfab_reload(params));
	ASSERT_EQ(0, ubfab_engines_unbounded());
}

/*
 * The modeled ns of one WRITE of @len bytes from @src to @dst on idle
 * links, on a fresh queue.
 */
static uint64_t alone(struct __test_metadata *_metadata,
		      FIXTURE_DATA(contention) *self, const char *src,
		      const char *dst, uint32_t len)
{
	uint64_t t;

	add_flow(_metadata, self, src, dst);
	run_flows(_metadata, self, 1, len);
	t = self->f[0].end;
	ubfab_queue_destroy(self->f[0].q);
	ubfab_dev_close(self->f[0].src);
	ubfab_dev_close(self->f[0].dst);
	self->n = 0;
	return t;
}

/* Whether @a is within @pct percent of @b. */
#define EXPECT_WITHIN(a, b, pct)					\
	EXPECT_GE((a) * 100, (b) * (100 - (pct)));			\
	EXPECT_LE((a) * 100, (b) * (100 + (pct)))

/*
 * Incast: 8 senders into one receiver. In the first round the last
 * completes about 8 times later than one alone; over the rounds each gets
 * about 1/8 of the bandwidth. npu15 is die 1 of chip 7; the senders sit
 * on chips 0 to 3, so every flow crosses the plane's L1.
 */
TEST_F(contention, incast)
{
	uint64_t one, ser, first_last = 0;
	char name[16];
	int i;

	reload_links(_metadata, "");
	/* one flow alone, and its serialization: less what 64 bytes take */
	one = alone(_metadata, self, "npu8", "npu14", FLOW_LEN);
	ser = one - alone(_metadata, self, "npu9", "npu13", 64);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "npu%d", i);
		add_flow(_metadata, self, name, "npu15");
	}
	run_flows(_metadata, self, 1, FLOW_LEN);
	for (i = 0; i < 8; i++)
		first_last = first_last > self->f[i].end ? first_last :
			     self->f[i].end;
	/* the last waited for the 7 before it */
	EXPECT_WITHIN(first_last, one + 7 * ser, 1);
	run_flows(_metadata, self, 7, FLOW_LEN);
	/*
	 * 8 rounds of 8 flows through one port, first come first served: the
	 * last flow ends after all 64 serializations, the first 7 before
	 * that, so each got between 1/8 and 1/7 of the port
	 */
	EXPECT_WITHIN(self->f[7].end, one + 63 * ser, 1);
	for (i = 0; i < 8; i++) {
		EXPECT_LE(56 * ser, self->f[i].end);
		/* (ser less 64 bytes' few ns: 1 %) */
		EXPECT_GE((one + 63 * ser) * 101 / 100, self->f[i].end);
	}
}

/*
 * Causality under contention: a WAIT_VALUE on the flag of the last of 8
 * incast WRITE_NOTIFYs ends no earlier than that write's arrival, which
 * waited for the 7 before it at the receiver's port.
 */
TEST_F(contention, notify_incast)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	uint64_t flag = FLOW_LEN - 8, rem, last = 0;
	struct ubfab_cqe cqe, wc;
	struct ubfab_queue *w;
	char name[16];
	int i;

	reload_links(_metadata, "");
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "npu%d", i);
		add_flow(_metadata, self, name, "npu15");
	}
	attr.flags = UBFAB_QUEUE_TIMING;
	ASSERT_EQ(0, ubfab_queue_create(self->f[7].dst, &attr, &w));
	ubfab_prep_wait_value(GET_SQE(w), self->f[7].seg + flag,
			      UBFAB_WAIT_GE, 1, UBFAB_TEST_WAIT_MS);
	ASSERT_LE(0, ubfab_queue_submit(w));
	for (i = 0; i < 8; i++) {
		rem = ubfab_import_addr(&self->f[i].imp, 0);
		ubfab_prep_write_notify(GET_SQE(self->f[i].q), self->f[i].loc,
					rem, flag, rem + flag, 1);
		ASSERT_EQ(0, ubfab_test_complete(self->f[i].q, &cqe, 1));
		ASSERT_EQ(UBFAB_CQE_OK, cqe.status);
		last = cqe.model_ns;
	}
	ASSERT_EQ(0, ubfab_test_complete(w, &wc, 1));
	ubfab_queue_destroy(w);
	ASSERT_EQ(UBFAB_CQE_OK, wc.status);
	ASSERT_EQ(1, wc.result);
	/* the flag's arrival: the last one's end less the way back, < 1 us */
	EXPECT_LE(last, wc.model_ns + 1000)
		TH_LOG("last WRITE_NOTIFY ends at %llu ns, the wait at %llu ns",
		       (unsigned long long)last,
		       (unsigned long long)wc.model_ns);
	EXPECT_LE(wc.model_ns, last);
}

/* Disjoint pairs do not slow each other down. */
TEST_F(contention, disjoint)
{
	static const char *const pairs[][2] = {
		{ "npu0", "npu2" }, { "npu4", "npu6" }, { "npu8", "npu10" },
		{ "npu12", "npu14" },
	};
	uint64_t one;
	int i;

	reload_links(_metadata, "");
	one = alone(_metadata, self, "npu1", "npu3", FLOW_LEN);
	for (i = 0; i < 4; i++)
		add_flow(_metadata, self, pairs[i][0], pairs[i][1]);
	run_flows(_metadata, self, 4, FLOW_LEN);
	/* (whole ns of clocks kept in ps: a few more or less) */
	for (i = 0; i < 4; i++)
		EXPECT_WITHIN(self->f[i].end, 4 * one, 1);
}

/*
 * Node to node through one L2 switch per plane: 16 flows from node 0's
 * dies to node 1's share each plane's one uplink of 28 GB/s, so all
 * together they get 7 x 28 GB/s at the write efficiency, 137 GB/s, what
 * one flow alone gets: each 1/16 of it.
 */
TEST_F_TIMEOUT(contention, uplink, SLOW)
{
	uint64_t one, ser;
	char src[16], dst[16];
	int i;

	/* one flow alone less 64 bytes alone: its serialization */
	reload_links(_metadata, "l2_per_plane=1");
	one = alone(_metadata, self, "npu0", "npu16", FLOW_LEN);
	reload_links(_metadata, "l2_per_plane=1");
	ser = one - alone(_metadata, self, "npu0", "npu16", 64);
	reload_links(_metadata, "l2_per_plane=1");
	for (i = 0; i < 16; i++) {
		snprintf(src, sizeof(src), "npu%d", i);
		snprintf(dst, sizeof(dst), "npu%d", 16 + i);
		add_flow(_metadata, self, src, dst);
	}
	run_flows(_metadata, self, 4, FLOW_LEN);
	/*
	 * 64 MiB through one uplink per plane: the last flow ends after 64
	 * serializations; each got between 1/16 and 1/12 of the uplinks
	 */
	EXPECT_WITHIN(self->f[15].end, one + 63 * ser, 1);
	for (i = 0; i < 16; i++) {
		EXPECT_LE(48 * ser, self->f[i].end);
		/* (ser less 64 bytes' few ns: 1 %) */
		EXPECT_GE((one + 63 * ser) * 101 / 100, self->f[i].end);
	}
}

/* What a link dump found, for contention.link_counters. */
struct link_sums {
	uint32_t a, b;		/* the EIDs of the two ends */
	uint64_t a_tx, b_rx, b_tx, a_rx, up, down, other;
	uint64_t busy[8][4];	/* per plane: a tx, b rx, up, down */
	uint64_t end_ps;
	int spans, bad_spans;	/* links held: busy + idle == end, or not */
};

static int link_sum(const struct ubfab_link_info *l, void *arg)
{
	struct link_sums *s = arg;
	int k = -1;

	s->end_ps = s->end_ps > l->end_ps ? s->end_ps : l->end_ps;
	if (l->kind == UBFAB_LINK_PORT_TX && l->eid == s->a) {
		s->a_tx += l->bytes;
		k = 0;
	} else if (l->kind == UBFAB_LINK_PORT_RX && l->eid == s->b) {
		s->b_rx += l->bytes;
		k = 1;
	} else if (l->kind == UBFAB_LINK_PORT_TX && l->eid == s->b) {
		s->b_tx += l->bytes;
	} else if (l->kind == UBFAB_LINK_PORT_RX && l->eid == s->a) {
		s->a_rx += l->bytes;
	} else if (l->kind == UBFAB_LINK_L1_UP && l->node == 0) {
		s->up += l->bytes;
		k = 2;
	} else if (l->kind == UBFAB_LINK_L2_DOWN && l->node == 1) {
		s->down += l->bytes;
		k = 3;
	} else {
		s->other += l->bytes;
	}
	if (k >= 0 && l->plane < 8)
		s->busy[l->plane][k] += l->busy_ps;
	if (l->busy_ps) {
		s->spans++;
		s->bad_spans += l->busy_ps + l->idle_ps != l->end_ps;
	}
	return 0;
}

/*
 * The links count what crosses them: 4 MiB written from node 0 to node 1
 * and 64 KiB read back are on the ports at both ends and on the L1-L2
 * links between, each byte once, nowhere else; on each plane every link
 * of the way was held as long; each link's busy and idle time add up to
 * the end of its last busy period; none ends after the last completion.
 */
TEST_F(contention, link_counters)
{
	struct link_sums s = { 0 };
	struct ubfab_nl *nl;
	struct ubfab_cqe cqe;
	struct flow *f;
	int p, k, planes = 0;

	ASSERT_EQ(0, ubfab_reload(""));
	add_flow(_metadata, self, "npu0", "npu16");
	f = &self->f[0];
	run_flows(_metadata, self, 4, FLOW_LEN);
	ubfab_prep_read(GET_SQE(f->q), f->loc, ubfab_import_addr(&f->imp, 0),
			64 << 10);
	ASSERT_EQ(0, ubfab_test_complete(f->q, &cqe, 1));
	ASSERT_EQ(UBFAB_CQE_OK, cqe.status);
	ASSERT_EQ(0, ubfab_nl_open(&nl));
	s.a = ubfab_dev_eid(f->src);
	s.b = ubfab_dev_eid(f->dst);
	ASSERT_EQ(0, ubfab_link_dump(nl, UBFAB_PLANE_ANY, link_sum, &s));
	EXPECT_EQ(-ENODEV, ubfab_link_dump(nl, 7, link_sum, &s));
	ubfab_nl_close(nl);
	EXPECT_EQ(4 * FLOW_LEN, s.a_tx);
	EXPECT_EQ(4 * FLOW_LEN, s.b_rx);
	EXPECT_EQ(64 << 10, s.b_tx);
	EXPECT_EQ(64 << 10, s.a_rx);
	/* the READ's response goes up node 1's L1 and down to node 0's */
	EXPECT_EQ(4 * FLOW_LEN, s.up);
	EXPECT_EQ(4 * FLOW_LEN, s.down);
	EXPECT_EQ(2 * (64 << 10), s.other);
	for (p = 0; p < 8; p++) {
		if (!s.busy[p][0])
			continue;
		planes++;
		for (k = 1; k < 4; k++)
			EXPECT_EQ(s.busy[p][0], s.busy[p][k]);
	}
	EXPECT_EQ(7, planes);
	/*
	 * 4 links on each of 7 planes for the WRITEs, 4 on one plane for the
	 * READ (one chunk), none passed by: each saw its time go by
	 */
	EXPECT_EQ(4 * 7 + 4, s.spans);
	EXPECT_EQ(0, s.bad_spans);
	EXPECT_LT(0, s.end_ps);
	/* (model_ns is whole ns, rounded down) */
	EXPECT_GE((cqe.model_ns + 1) * 1000, s.end_ps);
}

/*
 * The initiator's DMA engines, with the defaults of profile cm384: one
 * queue's WRITEs over the 7 planes get one engine's 56 GB/s, well
 * below what the links carry, 7 x 28 GB/s at 69.9 %: 137 GB/s; 4 queues
 * of one die (numbers 0 to 3: each its own engine) together get the
 * links' 137 GB/s, the published per-die figure. Dies 0 and 1 of chip 0
 * send to chip 1; the flows alone are chips 4 and 5's.
 */
TEST_F(contention, engines)
{
	uint64_t one, ser, last = 0;
	int i;

	ASSERT_EQ(0, ubfab_reload(""));
	one = alone(_metadata, self, "npu8", "npu10", FLOW_LEN);
	ser = one - alone(_metadata, self, "npu9", "npu11", 64);
	/* bytes per ns: GB/s; one engine's 56 within 1 % */
	EXPECT_WITHIN(FLOW_LEN * 1000 / ser, 56000, 1)
		TH_LOG("one queue: %.1f GB/s", (double)FLOW_LEN / ser);
	for (i = 0; i < 4; i++)
		add_flow(_metadata, self, "npu0", "npu2");
	run_flows(_metadata, self, 4, FLOW_LEN);
	for (i = 0; i < 4; i++)
		last = last > self->f[i].end ? last : self->f[i].end;
	/* 16 MiB through the links; the round trips aside: 3 % */
	EXPECT_WITHIN(16ULL * FLOW_LEN * 1000 / last, 137000, 3)
		TH_LOG("4 queues: %.1f GB/s", 16.0 * FLOW_LEN / last);
}

/*
 * Two dies do not share engines. With one DMA engine a die: a queue on
 * each die of chip 0, each to a peer of its own, each get that engine's
 * bandwidth, as alone; two queues of one die (npu4) share its engine:
 * the second waits for the first's bytes through it.
 */
TEST_F(contention, engines_per_die)
{
	static const struct ubfab_model_value v = { "dma-engines", 1 };
	uint64_t one, ser;
	struct ubfab_nl *nl;

	ASSERT_EQ(0, ubfab_reload(""));
	ASSERT_EQ(0, ubfab_nl_open(&nl));
	EXPECT_EQ(0, ubfab_model_set(nl, NULL, &v, 1));
	ubfab_nl_close(nl);
	one = alone(_metadata, self, "npu8", "npu10", FLOW_LEN);
	ser = one - alone(_metadata, self, "npu9", "npu11", 64);
	add_flow(_metadata, self, "npu0", "npu2");
	add_flow(_metadata, self, "npu1", "npu3");
	add_flow(_metadata, self, "npu4", "npu6");
	add_flow(_metadata, self, "npu4", "npu7");
	run_flows(_metadata, self, 1, FLOW_LEN);
	EXPECT_WITHIN(self->f[0].end, one, 1);
	EXPECT_WITHIN(self->f[1].end, one, 1);
	EXPECT_WITHIN(self->f[2].end, one, 1);
	EXPECT_WITHIN(self->f[3].end, one + ser, 1);
}

/*
 * Transfers to the other die of the chip hold their DMA engine too: 8
 * queues of npu0 (numbers 0 to 7, two on each of its 4 engines) writing
 * a flow's bytes each to npu1 at once get the engines' 4 x 56 GB/s
 * together, not 8 x 56 (the die-to-die link's 270 GB/s is not what caps
 * them): four end as one alone does, the other four a serialization
 * through an engine later.
 */
TEST_F(contention, die_engines)
{
	int i, first = 0, second = 0;
	uint64_t one, ser;

	ASSERT_EQ(0, ubfab_reload(""));
	one = alone(_metadata, self, "npu8", "npu9", FLOW_LEN);
	ser = one - alone(_metadata, self, "npu10", "npu11", 64);
	EXPECT_WITHIN(FLOW_LEN * 1000 / ser, 56000, 1)
		TH_LOG("one queue: %.1f GB/s", (double)FLOW_LEN / ser);
	for (i = 0; i < 8; i++)
		add_flow(_metadata, self, "npu0", "npu1");
	run_flows(_metadata, self, 1, FLOW_LEN);
	/* whole ns each, and ser is less the 64 bytes' time: a few ns */
	for (i = 0; i < 8; i++) {
		first += self->f[i].end + 3 >= one && self->f[i].end <= one + 3;
		second += self->f[i].end + 3 >= one + ser &&
			  self->f[i].end <= one + ser + 3;
	}
	EXPECT_EQ(4, first);
	EXPECT_EQ(4, second);
}

/* The L2 switches of node 0's uplinks that carried bytes, per plane. */
struct l2_used {
	uint32_t mask[8];
};

static int l2_used(const struct ubfab_link_info *l, void *arg)
{
	struct l2_used *u = arg;

	if (l->kind == UBFAB_LINK_L1_UP && l->node == 0 && l->bytes &&
	    l->plane < 8 && l->l2 < 32)
		u->mask[l->plane] |= 1U << l->l2;
	return 0;
}

/*
 * Flows between nodes spread over the L2 switches: 16 senders of node 0
 * into one die of node 1 take, on each plane, uplinks to many of its 16
 * L2 switches (the hash of the two entities and the plane picks one), not
 * all the same one.
 */
TEST_F(contention, l2_spread)
{
	struct l2_used u = { 0 };
	struct ubfab_nl *nl;
	char name[16];
	int i, p;

	ASSERT_EQ(0, ubfab_reload(""));
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "npu%d", i);
		add_flow(_metadata, self, name, "npu16");
	}
	run_flows(_metadata, self, 1, FLOW_LEN);
	ASSERT_EQ(0, ubfab_nl_open(&nl));
	ASSERT_EQ(0, ubfab_link_dump(nl, UBFAB_PLANE_ANY, l2_used, &u));
	ubfab_nl_close(nl);
	for (p = 0; p < 7; p++)
		EXPECT_LE(8, __builtin_popcount(u.mask[p]))
			TH_LOG("plane %d: L2 switches %#x", p, u.mask[p]);
}

TEST_HARNESS_MAIN

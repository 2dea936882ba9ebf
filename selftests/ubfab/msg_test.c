// SPDX-License-Identifier: GPL-2.0
/*
 * Two-sided messages, end to end through libubfab: npu1 sends from a queue
 * to a receive queue of npu0. SEND and SEND_IMM matched to posted receives
 * in order with their bytes, WRITE_IMM, the receiver-not-ready retries
 * and their counter, a message longer than the receive, wrong tokens and
 * numbers, bad entries and receives, a receive queue closed while
 * messages come, two sender processes, the creation ioctl's checks, and
 * the modeled times: a message costs what a WRITE of its bytes costs, and
 * its receive completion carries its arrival.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define BUF_LEN		(1UL << 20)	/* each side's allocation */
#define RTOKEN		0x5e5d1234U	/* the receive queue's */
#define STOKEN		0x0b0e0b0eU	/* the segment's, for WRITE_IMM */
#define RNR_RETRY	3
#define RNR_NS		20000
#define AROUND		0xee		/* what the receiver's memory holds */

FIXTURE(msg) {
	struct ubfab_dev *rx;		/* npu0: the receiver */
	struct ubfab_dev *tx;		/* npu1: the sender */
	uint64_t rbuf_off, sbuf_off;
	char *rbuf, *sbuf;
	struct ubfab_rq *rq;		/* on rx */
	struct ubfab_queue *q;		/* on tx */
	uint32_t rx_eid;
};

FIXTURE_SETUP(msg)
{
	void *addr;
	int i;

	ASSERT_EQ(0, ubfab_reload("nodes=1 chips_per_node=1 cpus_per_node=2 npu_mem=64M cpu_mem=64M rnr_retry=3 rnr_ns=20000"));
	ASSERT_EQ(0, ubfab_dev_open("npu0", &self->rx));
	ASSERT_EQ(0, ubfab_dev_open("npu1", &self->tx));
	self->rx_eid = ubfab_dev_eid(self->rx);
	ASSERT_EQ(0, ubfab_dev_alloc(self->rx, BUF_LEN, &self->rbuf_off));
	ASSERT_EQ(0, ubfab_dev_map(self->rx, self->rbuf_off, BUF_LEN,
				   PROT_READ | PROT_WRITE, &addr));
	self->rbuf = addr;
	memset(self->rbuf, AROUND, BUF_LEN);
	ASSERT_EQ(0, ubfab_dev_alloc(self->tx, BUF_LEN, &self->sbuf_off));
	ASSERT_EQ(0, ubfab_dev_map(self->tx, self->sbuf_off, BUF_LEN,
				   PROT_READ | PROT_WRITE, &addr));
	self->sbuf = addr;
	for (i = 0; i < (int)BUF_LEN; i++)
		self->sbuf[i] = (char)(i * 7 + (i >> 8));
	ASSERT_EQ(0, ubfab_rq_create(self->rx, 16, 0, RTOKEN, &self->rq));
	ASSERT_EQ(0, ubfab_queue_create(self->tx, NULL, &self->q));
}

FIXTURE_TEARDOWN(msg)
{
	ubfab_queue_destroy(self->q);
	ubfab_rq_destroy(self->rq);
	if (self->sbuf)
		ubfab_unmap(self->sbuf, BUF_LEN);
	if (self->rbuf)
		ubfab_unmap(self->rbuf, BUF_LEN);
	ubfab_dev_close(self->tx);
	ubfab_dev_close(self->rx);
	ubfab_unload();
}

#define SBUF(off)	(self->sbuf_off + (off))
#define RBUF(off)	(self->rbuf_off + (off))



/* Take exactly @n receive completions of @rq into @out: 0 or -errno. */
static int reap(struct ubfab_rq *rq, struct ubfab_rcqe *out, unsigned int n)
{
	unsigned int got = 0;
	int r;

	while (got < n) {
		r = ubfab_rq_reap(rq, out + got, n - got, UBFAB_TEST_WAIT_MS);
		if (r <= 0)
			return r ? r : -ETIMEDOUT;
		got += r;
	}
	return 0;
}

/* Index of the first byte of @p, @len bytes, not @byte, or -1. */
static long not_byte(const char *p, size_t len, uint8_t byte)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((uint8_t)p[i] != byte)
			return i;
	return -1;
}

/* One SEND-class entry of @len bytes from @soff, completed into @cqe. */
#define SEND1(cqe, op, soff, len, eid, rqn, token, imm) do {		\
	struct ubfab_sqe *__s = GET_SQE(self->q);			\
	ubfab_prep_send_imm(__s, (len) ? SBUF(soff) : 0, (len), (eid),	\
			    (rqn), (token), (imm));			\
	__s->opcode = (op);						\
	if ((op) == UBFAB_OP_SEND)					\
		__s->value = 0;						\
	ASSERT_EQ(0, ubfab_test_complete(self->q, (cqe), 1));			\
} while (0)

TEST_F(msg, send_in_order)
{
	struct ubfab_rcqe rc[3];
	struct ubfab_cqe cqe[3];
	uint32_t tx_eid = ubfab_dev_eid(self->tx);
	struct ubfab_sqe *s;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(i * 8192), 8192,
					   100 + i));
	s = GET_SQE(self->q);
	ubfab_prep_send(s, SBUF(0), 100, self->rx_eid, self->rq->id, RTOKEN);
	ubfab_sqe_set_data(s, 1);
	s = GET_SQE(self->q);
	ubfab_prep_send_imm(s, SBUF(4096), 5000, self->rx_eid, self->rq->id,
			    RTOKEN, 0xdeadbeef);
	ubfab_sqe_set_data(s, 2);
	s = GET_SQE(self->q);
	ubfab_prep_send_imm(s, 0, 0, self->rx_eid, self->rq->id, RTOKEN, 7);
	ubfab_sqe_set_data(s, 3);
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 3));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(i + 1, cqe[i].user_data);
		EXPECT_EQ(UBFAB_CQE_OK, cqe[i].status);
	}
	EXPECT_EQ(100, cqe[0].bytes);
	EXPECT_EQ(5000, cqe[1].bytes);
	EXPECT_EQ(0, cqe[2].bytes);
	EXPECT_EQ(UBFAB_OP_SEND_IMM, cqe[1].opcode);

	ASSERT_EQ(0, reap(self->rq, rc, 3));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(100 + i, rc[i].user_data);
		EXPECT_EQ(UBFAB_CQE_OK, rc[i].status);
		EXPECT_EQ(tx_eid, rc[i].src_eid);
	}
	EXPECT_EQ(100, rc[0].bytes);
	EXPECT_EQ(0, rc[0].flags);
	EXPECT_EQ(0, rc[0].imm);
	EXPECT_EQ(UBFAB_OP_SEND, rc[0].opcode);
	EXPECT_EQ(5000, rc[1].bytes);
	EXPECT_EQ(UBFAB_RCQE_IMM, rc[1].flags);
	EXPECT_EQ(0xdeadbeef, rc[1].imm);
	EXPECT_EQ(UBFAB_OP_SEND_IMM, rc[1].opcode);
	EXPECT_EQ(0, rc[2].bytes);
	EXPECT_EQ(UBFAB_RCQE_IMM, rc[2].flags);
	EXPECT_EQ(7, rc[2].imm);
	/* the bytes, in the receives in order, nothing beyond them */
	EXPECT_EQ(0, memcmp(self->rbuf, self->sbuf, 100));
	EXPECT_EQ(-1, not_byte(self->rbuf + 100, 8192 - 100, AROUND));
	EXPECT_EQ(0, memcmp(self->rbuf + 8192, self->sbuf + 4096, 5000));
	EXPECT_EQ(-1, not_byte(self->rbuf + 8192 + 5000, 8192 - 5000 + 8192,
			       AROUND));
	EXPECT_EQ(3, __atomic_load_n(self->rq->rq_head, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, *self->rq->rq_overflow);
	EXPECT_EQ(0, ubfab_queue_sq_flags(self->q) & UBFAB_SQ_ERROR);
}

TEST_F(msg, large_send)
{
	const uint32_t len = 300000;	/* several plane chunks */
	struct ubfab_rcqe rc;
	struct ubfab_cqe cqe;

	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(4096), len + 10, 9));
	SEND1(&cqe, UBFAB_OP_SEND, 1, len, self->rx_eid, self->rq->id,
	      RTOKEN, 0);
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_EQ(len, cqe.bytes);
	ASSERT_EQ(0, reap(self->rq, &rc, 1));
	EXPECT_EQ(len, rc.bytes);
	EXPECT_EQ(0, memcmp(self->rbuf + 4096, self->sbuf + 1, len));
	EXPECT_EQ(-1, not_byte(self->rbuf, 4096, AROUND));
	EXPECT_EQ(-1, not_byte(self->rbuf + 4096 + len, 10, AROUND));
}

TEST_F(msg, write_imm)
{
	struct ubfab_import imp;
	struct ubfab_rcqe rc;
	struct ubfab_cqe cqe;
	struct ubfab_sqe *s;
	uint32_t tid;

	ASSERT_EQ(0, ubfab_dev_export(self->rx, self->rbuf_off, BUF_LEN,
				      UBFAB_SEG_WRITE, STOKEN, &tid));
	ASSERT_EQ(0, ubfab_dev_import(self->tx, self->rx_eid, tid, STOKEN,
				      UBFAB_SEG_WRITE, &imp));
	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(0), 4096, 55));
	s = GET_SQE(self->q);
	ubfab_prep_write_imm(s, SBUF(8), ubfab_import_addr(&imp, 65536), 3000,
			     self->rq->id, RTOKEN, 0x1234);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	EXPECT_EQ(3000, cqe.bytes);
	ASSERT_EQ(0, reap(self->rq, &rc, 1));
	EXPECT_EQ(55, rc.user_data);
	EXPECT_EQ(UBFAB_CQE_OK, rc.status);
	EXPECT_EQ(UBFAB_OP_WRITE_IMM, rc.opcode);
	EXPECT_EQ(UBFAB_RCQE_IMM, rc.flags);
	EXPECT_EQ(0x1234, rc.imm);
	EXPECT_EQ(3000, rc.bytes);
	/* the data went where the WRITE said, not into the receive */
	EXPECT_EQ(0, memcmp(self->rbuf + 65536, self->sbuf + 8, 3000));
	EXPECT_EQ(-1, not_byte(self->rbuf, 65536, AROUND));

	/* without a receive, nothing is written */
	s = GET_SQE(self->q);
	ubfab_prep_write_imm(s, SBUF(8), ubfab_import_addr(&imp, 0), 3000,
			     self->rq->id, RTOKEN, 1);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, cqe.status);
	EXPECT_EQ(0, cqe.bytes);
	EXPECT_EQ(-1, not_byte(self->rbuf, 65536, AROUND));
}

TEST_F(msg, rnr)
{
	struct ubfab_cqe cqe, before;
	struct ubfab_rcqe rc;

	/* the clock before: a NOP */
	ubfab_prep_nop(GET_SQE(self->q));
	ASSERT_EQ(0, ubfab_test_complete(self->q, &before, 1));
	SEND1(&cqe, UBFAB_OP_SEND, 0, 64, self->rx_eid, self->rq->id, RTOKEN,
	      0);
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, cqe.status);
	EXPECT_EQ(0, cqe.bytes);
	/* the first try and each retry found nothing */
	EXPECT_EQ(RNR_RETRY + 1, *self->rq->rq_overflow);
	EXPECT_EQ(0, *self->rq->rcq_overflow);
	/* each retry costs RNR_NS modeled */
	EXPECT_LE(before.model_ns + RNR_RETRY * RNR_NS, cqe.model_ns);
	EXPECT_GT(before.model_ns + RNR_RETRY * RNR_NS + 20000, cqe.model_ns);
	EXPECT_NE(0, ubfab_queue_sq_flags(self->q) & UBFAB_SQ_ERROR);
	EXPECT_EQ(0, ubfab_rq_reap(self->rq, &rc, 1, 0));

	/* a receive posted later is taken by the next message */
	ASSERT_EQ(0, ubfab_queue_reset(self->q));
	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(0), 64, 1));
	SEND1(&cqe, UBFAB_OP_SEND, 0, 64, self->rx_eid, self->rq->id, RTOKEN,
	      0);
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	ASSERT_EQ(0, reap(self->rq, &rc, 1));
	EXPECT_EQ(RNR_RETRY + 1, *self->rq->rq_overflow);
}

TEST_F(msg, rcq_full)
{
	struct ubfab_rcqe rc[2];
	struct ubfab_cqe cqe;
	struct ubfab_rq *small;

	/* two receives, room for one completion */
	ASSERT_EQ(0, ubfab_rq_create(self->rx, 2, 1, RTOKEN, &small));
	ASSERT_EQ(0, ubfab_rq_post(small, RBUF(0), 64, 1));
	ASSERT_EQ(0, ubfab_rq_post(small, RBUF(64), 64, 2));
	SEND1(&cqe, UBFAB_OP_SEND, 0, 64, self->rx_eid, small->id, RTOKEN, 0);
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	SEND1(&cqe, UBFAB_OP_SEND, 0, 64, self->rx_eid, small->id, RTOKEN, 0);
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, cqe.status);
	EXPECT_EQ(RNR_RETRY + 1, *small->rcq_overflow);
	EXPECT_EQ(0, *small->rq_overflow);
	ASSERT_EQ(0, reap(small, rc, 1));
	EXPECT_EQ(1, rc[0].user_data);
	/* room again: the second receive is still there */
	ASSERT_EQ(0, ubfab_queue_reset(self->q));
	SEND1(&cqe, UBFAB_OP_SEND, 0, 64, self->rx_eid, small->id, RTOKEN, 0);
	EXPECT_EQ(UBFAB_CQE_OK, cqe.status);
	ASSERT_EQ(0, reap(small, rc, 1));
	EXPECT_EQ(2, rc[0].user_data);
	ubfab_rq_destroy(small);
}

TEST_F(msg, too_long)
{
	struct ubfab_rcqe rc;
	struct ubfab_cqe cqe;

	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(4096), 100, 77));
	SEND1(&cqe, UBFAB_OP_SEND_IMM, 0, 200, self->rx_eid, self->rq->id,
	      RTOKEN, 5);
	EXPECT_EQ(UBFAB_CQE_REMOTE_LENGTH, cqe.status);
	EXPECT_EQ(0, cqe.bytes);
	ASSERT_EQ(0, reap(self->rq, &rc, 1));
	EXPECT_EQ(77, rc.user_data);
	EXPECT_EQ(UBFAB_CQE_LOCAL_LENGTH, rc.status);
	EXPECT_EQ(0, rc.bytes);
	EXPECT_EQ(0, rc.flags);
	/* nothing written, in the buffer or past it */
	EXPECT_EQ(-1, not_byte(self->rbuf, 3 * 4096, AROUND));
	EXPECT_NE(0, ubfab_queue_sq_flags(self->q) & UBFAB_SQ_ERROR);
}

TEST_F(msg, bad_names)
{
	struct ubfab_cqe cqe;

	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(0), 4096, 1));
	/* wrong token: refused, counted as a refused import */
	SEND1(&cqe, UBFAB_OP_SEND, 0, 64, self->rx_eid, self->rq->id,
	      RTOKEN + 1, 0);
	EXPECT_EQ(UBFAB_CQE_ACCESS, cqe.status);
	ASSERT_EQ(0, ubfab_queue_reset(self->q));
	/* no such receive queue, no such entity */
	SEND1(&cqe, UBFAB_OP_SEND, 0, 64, self->rx_eid, self->rq->id + 1,
	      RTOKEN, 0);
	EXPECT_EQ(UBFAB_CQE_NO_IMPORT, cqe.status);
	ASSERT_EQ(0, ubfab_queue_reset(self->q));
	SEND1(&cqe, UBFAB_OP_SEND, 0, 64, 100000, self->rq->id, RTOKEN, 0);
	EXPECT_EQ(UBFAB_CQE_NO_IMPORT, cqe.status);
	ASSERT_EQ(0, ubfab_queue_reset(self->q));
	/* no receive was taken */
	EXPECT_EQ(0, __atomic_load_n(self->rq->rq_head, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, *self->rq->rq_overflow);
	EXPECT_EQ(-1, not_byte(self->rbuf, 4096, AROUND));
}

/* Entries whose fields a message opcode does not allow. */
TEST_F(msg, bad_entries)
{
	struct ubfab_cqe cqe;
	struct ubfab_sqe *s;
	int i;

	for (i = 0; i < 6; i++) {
		s = GET_SQE(self->q);
		ubfab_prep_send_imm(s, SBUF(0), 64, self->rx_eid,
				    self->rq->id, RTOKEN, 1);
		switch (i) {
		case 0: s->notify = 8; break;
		case 1: s->timeout_ms = 1; break;
		case 2: s->value = 1ULL << 32; break;
		case 3: s->compare = 1ULL << 32; break;
		case 4: s->remote = 1ULL << 32; break;
		case 5: s->length = 0; s->local = 64; break;
		}
		ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
		EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, cqe.status) TH_LOG("case %d", i);
		ASSERT_EQ(0, ubfab_queue_reset(self->q));
	}
	/* SEND carries no immediate; WRITE_IMM needs a length */
	s = GET_SQE(self->q);
	ubfab_prep_send_imm(s, SBUF(0), 64, self->rx_eid, self->rq->id,
			    RTOKEN, 1);
	s->opcode = UBFAB_OP_SEND;
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, cqe.status);
	ASSERT_EQ(0, ubfab_queue_reset(self->q));
	s = GET_SQE(self->q);
	ubfab_prep_write_imm(s, SBUF(0), 0, 0, self->rq->id, RTOKEN, 1);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, cqe.status);
	ASSERT_EQ(0, ubfab_queue_reset(self->q));
	/* a local range in no allocation */
	SEND1(&cqe, UBFAB_OP_SEND, BUF_LEN - 8, 64, self->rx_eid,
	      self->rq->id, RTOKEN, 0);
	EXPECT_EQ(UBFAB_CQE_LOCAL_RANGE, cqe.status);
	EXPECT_EQ(0, __atomic_load_n(self->rq->rq_head, __ATOMIC_ACQUIRE));
}

/* Receives the receiver got wrong fail both sides, writing nothing. */
TEST_F(msg, bad_receives)
{
	struct ubfab_import imp;
	struct ubfab_rcqe rc;
	struct ubfab_cqe cqe;
	uint32_t tid;

	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(0), 4096, 1));
	self->rq->rqes[0].__reserved[3] = 1;
	SEND1(&cqe, UBFAB_OP_SEND, 0, 64, self->rx_eid, self->rq->id, RTOKEN,
	      0);
	EXPECT_EQ(UBFAB_CQE_REMOTE_OP, cqe.status);
	ASSERT_EQ(0, reap(self->rq, &rc, 1));
	EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, rc.status);
	ASSERT_EQ(0, ubfab_queue_reset(self->q));

	/* a buffer beyond the allocation */
	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(BUF_LEN - 32), 64, 2));
	SEND1(&cqe, UBFAB_OP_SEND, 0, 16, self->rx_eid, self->rq->id, RTOKEN,
	      0);
	EXPECT_EQ(UBFAB_CQE_REMOTE_OP, cqe.status);
	ASSERT_EQ(0, reap(self->rq, &rc, 1));
	EXPECT_EQ(2, rc.user_data);
	EXPECT_EQ(UBFAB_CQE_LOCAL_RANGE, rc.status);
	EXPECT_EQ(0, rc.bytes);
	EXPECT_EQ(-1, not_byte(self->rbuf, BUF_LEN, AROUND));
	ASSERT_EQ(0, ubfab_queue_reset(self->q));

	/* a WRITE_IMM checks its receive too, and then writes nothing */
	ASSERT_EQ(0, ubfab_dev_export(self->rx, self->rbuf_off, BUF_LEN,
				      UBFAB_SEG_WRITE, STOKEN, &tid));
	ASSERT_EQ(0, ubfab_dev_import(self->tx, self->rx_eid, tid, STOKEN,
				      UBFAB_SEG_WRITE, &imp));
	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(0), 64, 3));
	self->rq->rqes[2].__reserved[0] = 1;
	ubfab_prep_write_imm(GET_SQE(self->q), SBUF(0),
			     ubfab_import_addr(&imp, 4096), 64, self->rq->id,
			     RTOKEN, 9);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &cqe, 1));
	EXPECT_EQ(UBFAB_CQE_REMOTE_OP, cqe.status);
	ASSERT_EQ(0, reap(self->rq, &rc, 1));
	EXPECT_EQ(3, rc.user_data);
	EXPECT_EQ(UBFAB_CQE_BAD_ENTRY, rc.status);
	EXPECT_EQ(0, rc.flags);
	EXPECT_EQ(-1, not_byte(self->rbuf, BUF_LEN, AROUND));
}

TEST_F(msg, create_checks)
{
	int fd = ubfab_dev_fd(self->rx);
	struct ubfab_rq_create c;
	struct {
		struct ubfab_rq_create c;
		uint64_t tail;
	} big;

#define RQ_CREATE(field, val, err) do {					\
	c = (struct ubfab_rq_create){ .size = sizeof(c),		\
				      .rq_entries = 4 };		\
	c.field = (val);						\
	EXPECT_EQ(-1, ioctl(fd, UBFAB_IOCTL_RQ_CREATE, &c));		\
	EXPECT_EQ(err, errno);						\
} while (0)
	RQ_CREATE(flags, 1, EINVAL);
	RQ_CREATE(__reserved, 1, EINVAL);
	RQ_CREATE(rq_entries, 0, EINVAL);
	RQ_CREATE(rq_entries, 3, EINVAL);
	RQ_CREATE(rq_entries, UBFAB_RQ_MAX_ENTRIES * 2, EINVAL);
	RQ_CREATE(rcq_entries, 6, EINVAL);
	RQ_CREATE(rcq_entries, UBFAB_QUEUE_MAX_CQ_ENTRIES * 2, EINVAL);
	RQ_CREATE(size, 8, EINVAL);
	big = (typeof(big)){ .c = { .size = sizeof(big), .rq_entries = 4 },
			     .tail = 1 };
	EXPECT_EQ(-1, ioctl(fd, UBFAB_IOCTL_RQ_CREATE, &big));
	EXPECT_EQ(E2BIG, errno);
	/* a good one: its own descriptor, mmap()able only as documented */
	big.tail = 0;
	ASSERT_EQ(0, ioctl(fd, UBFAB_IOCTL_RQ_CREATE, &big));
	EXPECT_GE(big.c.fd, 0);
	EXPECT_NE(self->rq->id, big.c.id);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, big.c.ring_size, PROT_READ,
				   MAP_PRIVATE, big.c.fd, 0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, big.c.ring_size + 4096, PROT_READ,
				   MAP_SHARED, big.c.fd, 0));
	close(big.c.fd);
}

struct closer {
	struct ubfab_rq *rq;
	unsigned int after;	/* close it after this many completions */
};

static void *close_after(void *arg)
{
	struct closer *c = arg;
	struct ubfab_rcqe rc[16];
	unsigned int got = 0;
	int r;

	while (got < c->after) {
		r = ubfab_rq_reap(c->rq, rc, 16, UBFAB_TEST_WAIT_MS);
		if (r <= 0)
			break;
		got += r;
	}
	ubfab_rq_destroy(c->rq);
	return NULL;
}

TEST_F(msg, closed_while_sending)
{
	struct closer c = { .rq = self->rq, .after = 20 };
	uint32_t id = self->rq->id, ok = 0, i;
	struct ubfab_cqe cqe[64];
	pthread_t t;

	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(i * 4096), 4096, i));
	ASSERT_EQ(0, pthread_create(&t, NULL, close_after, &c));
	/* 64 messages, some found receives, then the queue was gone */
	for (i = 0; i < 64; i++) {
		ubfab_prep_send(GET_SQE(self->q), SBUF(0), 256, self->rx_eid,
				id, RTOKEN);
		if (i == 15) {
			/* the receiver posts more while it reaps */
			ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 16));
			for (ok = 0; ok < 16; ok++)
				ASSERT_EQ(UBFAB_CQE_OK, cqe[ok].status);
			ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(0), 4096,
						   99));
		}
	}
	ASSERT_EQ(0, ubfab_test_complete(self->q, cqe, 48));
	pthread_join(t, NULL);
	self->rq = NULL;
	/* OK while it was there, then one failure and the rest flushed */
	for (i = 0; i < 48 && cqe[i].status == UBFAB_CQE_OK; i++)
		ok++;
	EXPECT_LE(ok, 17);
	ASSERT_LT(i, 48);
	EXPECT_TRUE(cqe[i].status == UBFAB_CQE_NO_IMPORT ||
		    cqe[i].status == UBFAB_CQE_RNR_RETRY_EXC)
		TH_LOG("status %u", cqe[i].status);
	for (i++; i < 48; i++)
		EXPECT_EQ(UBFAB_CQE_FLUSHED, cqe[i].status);
	/* gone: its number names nothing any more */
	ASSERT_EQ(0, ubfab_queue_reset(self->q));
	SEND1(cqe, UBFAB_OP_SEND, 0, 64, self->rx_eid, id, RTOKEN, 0);
	EXPECT_EQ(UBFAB_CQE_NO_IMPORT, cqe[0].status);
}

#define PER_SENDER	64
#define MSG_LEN		256

/* A sender process: @name sends PER_SENDER messages tagged @tag. */
static int sender(const char *name, uint32_t eid, uint32_t rqn, int tag)
{
	struct ubfab_queue *q;
	struct ubfab_dev *dev;
	struct ubfab_cqe *cqe;
	uint64_t off;
	uint8_t *buf;
	void *addr;
	int i;

	if (ubfab_dev_open(name, &dev) || ubfab_dev_alloc(dev, 1 << 16, &off) ||
	    ubfab_dev_map(dev, off, 1 << 16, PROT_READ | PROT_WRITE, &addr) ||
	    ubfab_queue_create(dev, NULL, &q))
		return 1;
	buf = addr;
	for (i = 0; i < PER_SENDER; i++) {
		memset(buf + i * MSG_LEN, tag * 100 + i, MSG_LEN);
		ubfab_prep_send_imm(ubfab_queue_get_sqe(q), off + i * MSG_LEN,
				    MSG_LEN, eid, rqn, RTOKEN, tag << 16 | i);
		if (ubfab_queue_submit(q) < 0 ||
		    ubfab_queue_wait_cqe(q, &cqe, UBFAB_TEST_WAIT_MS) ||
		    cqe->status != UBFAB_CQE_OK)
			return 2;
		ubfab_queue_cqe_seen(q);
	}
	return 0;
}

TEST_F(msg, two_senders)
{
	const char *names[2] = { "cpu0", "cpu1" };
	uint32_t eids[2], next[2] = { 0, 0 }, i, s, n;
	struct ubfab_rcqe rc[2 * PER_SENDER];
	struct ubfab_dev *d;
	struct ubfab_rq *rq;
	pid_t pid[2];
	int status;

	/* a receive for every message: no sender waits for the receiver */
	ASSERT_EQ(0, ubfab_rq_create(self->rx, 2 * PER_SENDER, 0, RTOKEN,
				     &rq));
	for (i = 0; i < 2 * PER_SENDER; i++)
		ASSERT_EQ(0, ubfab_rq_post(rq, RBUF(i * MSG_LEN), MSG_LEN, i));
	for (s = 0; s < 2; s++) {
		ASSERT_EQ(0, ubfab_dev_open(names[s], &d));
		eids[s] = ubfab_dev_eid(d);
		ubfab_dev_close(d);
	}
	for (s = 0; s < 2; s++) {
		pid[s] = fork();
		ASSERT_GE(pid[s], 0);
		if (!pid[s])
			_exit(sender(names[s], self->rx_eid, rq->id, s + 1));
	}
	for (s = 0; s < 2; s++) {
		ASSERT_EQ(pid[s], waitpid(pid[s], &status, 0));
		EXPECT_EQ(0, status);
	}
	ASSERT_EQ(0, reap(rq, rc, 2 * PER_SENDER));
	/* receives taken in order, each sender's messages in its order */
	for (n = 0; n < 2 * PER_SENDER; n++) {
		EXPECT_EQ(n, rc[n].user_data);
		EXPECT_EQ(UBFAB_CQE_OK, rc[n].status);
		EXPECT_EQ(MSG_LEN, rc[n].bytes);
		s = (rc[n].imm >> 16) - 1;
		ASSERT_LT(s, 2);
		EXPECT_EQ(eids[s], rc[n].src_eid);
		EXPECT_EQ(next[s], rc[n].imm & 0xffff);
		EXPECT_EQ(-1, not_byte(self->rbuf + n * MSG_LEN, MSG_LEN,
				       (s + 1) * 100 + next[s]));
		next[s]++;
	}
	EXPECT_EQ(PER_SENDER, next[0]);
	EXPECT_EQ(PER_SENDER, next[1]);
	ubfab_rq_destroy(rq);
}

/*
 * Modeled time: a SEND costs what a WRITE of its bytes to the same peer
 * costs, and its receive completion carries its arrival, after its start
 * and before the sender's completion, which comes the way back of the
 * acknowledgment later whatever the bytes.
 */
TEST_F(msg, model_time)
{
	struct ubfab_rcqe rc, src;
	struct ubfab_import imp;
	struct ubfab_cqe w, m, s;
	uint32_t tid;

	ASSERT_EQ(0, ubfab_dev_export(self->rx, self->rbuf_off, BUF_LEN,
				      UBFAB_SEG_WRITE, STOKEN, &tid));
	ASSERT_EQ(0, ubfab_dev_import(self->tx, self->rx_eid, tid, STOKEN,
				      UBFAB_SEG_WRITE, &imp));
	ubfab_prep_write(GET_SQE(self->q), SBUF(0),
			 ubfab_import_addr(&imp, 0), 4096);
	ASSERT_EQ(0, ubfab_test_complete(self->q, &w, 1));
	ASSERT_EQ(UBFAB_CQE_OK, w.status);
	ASSERT_GT(w.model_ns, 0);
	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(8192), 4096, 1));
	SEND1(&m, UBFAB_OP_SEND, 0, 4096, self->rx_eid, self->rq->id, RTOKEN,
	      0);
	ASSERT_EQ(UBFAB_CQE_OK, m.status);
	EXPECT_EQ(w.model_ns, m.model_ns - w.model_ns);
	ASSERT_EQ(0, reap(self->rq, &rc, 1));
	EXPECT_GT(rc.model_ns, w.model_ns);
	EXPECT_LT(rc.model_ns, m.model_ns);
	/* a short one arrives sooner after its start; the ack, as long */
	ASSERT_EQ(0, ubfab_rq_post(self->rq, RBUF(0), 4096, 2));
	SEND1(&s, UBFAB_OP_SEND, 0, 64, self->rx_eid, self->rq->id, RTOKEN,
	      0);
	ASSERT_EQ(UBFAB_CQE_OK, s.status);
	ASSERT_EQ(0, reap(self->rq, &src, 1));
	EXPECT_LT(src.model_ns - m.model_ns, rc.model_ns - w.model_ns);
	/* whole nanoseconds, each rounded down on its own */
	EXPECT_GE(1, llabs((long long)(m.model_ns - rc.model_ns) -
			   (long long)(s.model_ns - src.model_ns)));
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Jetties: npu0 pairs a queue and a receive queue in a jetty; npu1 has a
 * queue and a receive queue of its own to talk to it. Creation and
 * destruction in every order, the creation ioctl's refusals and their
 * errnos, the completion-event channel's one-shot arming (send side and
 * receive side), the async events (a send that exhausts its
 * receiver-not-ready retries, a full receive completion ring, an entity
 * reset) and the netlink dump's counters.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define BUF_LEN		(1UL << 20)
#define TOKEN		0x7e77e700U
#define RNR_RETRY	3

FIXTURE(jetty) {
	struct ubfab_dev *a;		/* npu0: owns the jetty */
	struct ubfab_dev *b;		/* npu1: its peer */
	uint64_t abuf, bbuf;
	struct ubfab_queue *aq, *bq;
	struct ubfab_rq *arq, *brq;
	struct ubfab_jetty *j;
	struct ubfab_nl *nl;
	uint32_t a_eid, b_eid;
};

FIXTURE_SETUP(jetty)
{
	ASSERT_EQ(0, ubfab_reload("nodes=1 chips_per_node=1 cpus_per_node=1 npu_mem=64M cpu_mem=64M rnr_retry=3 rnr_ns=20000"));
	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
	ASSERT_EQ(0, ubfab_dev_open("npu0", &self->a));
	ASSERT_EQ(0, ubfab_dev_open("npu1", &self->b));
	self->a_eid = ubfab_dev_eid(self->a);
	self->b_eid = ubfab_dev_eid(self->b);
	ASSERT_EQ(0, ubfab_dev_alloc(self->a, BUF_LEN, &self->abuf));
	ASSERT_EQ(0, ubfab_dev_alloc(self->b, BUF_LEN, &self->bbuf));
	ASSERT_EQ(0, ubfab_queue_create(self->a, NULL, &self->aq));
	ASSERT_EQ(0, ubfab_queue_create(self->b, NULL, &self->bq));
	ASSERT_EQ(0, ubfab_rq_create(self->a, 4, 0, TOKEN, &self->arq));
	ASSERT_EQ(0, ubfab_rq_create(self->b, 4, 0, TOKEN, &self->brq));
	ASSERT_EQ(0, ubfab_jetty_create(self->a, self->aq, self->arq,
					&self->j));
}

FIXTURE_TEARDOWN(jetty)
{
	ubfab_jetty_destroy(self->j);
	ubfab_queue_destroy(self->aq);
	ubfab_queue_destroy(self->bq);
	ubfab_rq_destroy(self->arq);
	ubfab_rq_destroy(self->brq);
	ubfab_dev_close(self->a);
	ubfab_dev_close(self->b);
	ubfab_nl_close(self->nl);
	ubfab_unload();
}

/*
 * A 64-byte SEND from @buf, an allocation of @q's device, to receive
 * queue @rqn of entity @eid; *@status gets its completion's.
 */
static int send1(struct __test_metadata *_metadata, struct ubfab_queue *q,
		 uint64_t buf, uint32_t eid, uint32_t rqn, uint16_t *status)
{
	struct ubfab_cqe cqe;
	int ret;

	ubfab_prep_send(GET_SQE(q), buf, 64, eid, rqn, TOKEN);
	ret = ubfab_test_complete(q, &cqe, 1);
	*status = cqe.status;
	return ret;
}

/*
 * The jetty @id of entity @eid (of any, UBFAB_EID_ANY, the dump's filter
 * too), as the netlink dump reports it: -ENOENT if it has none or more.
 */
struct find {
	uint32_t eid, id;
	struct ubfab_jetty_info info;
	int found;
};

static int find_cb(const struct ubfab_jetty_info *j, void *arg)
{
	struct find *f = arg;

	if ((f->eid == UBFAB_EID_ANY || j->eid == f->eid) && j->id == f->id) {
		f->info = *j;
		f->found++;
	}
	return 0;
}

static int dump_jetty(struct ubfab_nl *nl, uint32_t eid, uint32_t id,
		      struct ubfab_jetty_info *out)
{
	struct find f = { .eid = eid, .id = id };
	int ret = ubfab_jetty_dump(nl, eid, find_cb, &f);

	if (ret)
		return ret;
	if (f.found != 1)
		return -ENOENT;
	*out = f.info;
	return 0;
}

/* The next event of @dev that is not UBFAB_EVENT_RESET, within 2 s. */
static int next_event(struct ubfab_dev *dev, struct ubfab_event *ev)
{
	int ret;

	do {
		ret = ubfab_dev_event_wait(dev, ev, 2000);
	} while (!ret && ev->type == UBFAB_EVENT_RESET);
	return ret;
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && p.revents & POLLIN;
}

TEST_F(jetty, created)
{
	struct ubfab_jetty_info info;
	struct ubfab_jetty_event ev;

	ASSERT_EQ(0, dump_jetty(self->nl, self->a_eid, self->j->id, &info));
	EXPECT_EQ(self->aq->id, info.sq);
	EXPECT_EQ(self->arq->id, info.rq);
	EXPECT_EQ(UBFAB_JETTY_READY, info.state);
	EXPECT_EQ((uint32_t)getpid(), info.pid);
	EXPECT_EQ(0, info.sends);
	EXPECT_EQ(0, info.events);
	EXPECT_STREQ("ready", ubfab_jetty_state_name(info.state));
	/* nothing armed, nothing fired */
	EXPECT_FALSE(readable(self->j->fd));
	EXPECT_EQ(-ETIMEDOUT, ubfab_jetty_wait(self->j, &ev, 0));
	/* close-on-exec, as every ubfab descriptor */
	EXPECT_EQ(FD_CLOEXEC, fcntl(self->j->fd, F_GETFD) & FD_CLOEXEC);
}

/*
 * The jetty holds both queues: with their own descriptors closed first,
 * they live (the dump still shows the queue) until the jetty goes.
 */
static int count_queues_cb(const struct ubfab_queue_info *q, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

static int queues_of(struct ubfab_nl *nl, uint32_t eid)
{
	int n = 0;

	return ubfab_queue_dump(nl, eid, count_queues_cb, &n) ? -1 : n;
}

TEST_F(jetty, queues_closed_first)
{
	struct ubfab_jetty_info info;
	uint16_t status;

	ubfab_queue_destroy(self->aq);
	ubfab_rq_destroy(self->arq);
	self->aq = NULL;
	self->arq = NULL;
	EXPECT_EQ(1, queues_of(self->nl, self->a_eid));
	ASSERT_EQ(0, dump_jetty(self->nl, self->a_eid, self->j->id, &info));
	/* its receive queue still takes messages: RNR, not NO_IMPORT */
	ASSERT_EQ(0, send1(_metadata, self->bq, self->bbuf, self->a_eid,
			   info.rq, &status));
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, status);
	ubfab_jetty_destroy(self->j);
	self->j = NULL;
	EXPECT_EQ(0, queues_of(self->nl, self->a_eid));
}

TEST_F(jetty, jetty_closed_first)
{
	struct ubfab_jetty_info info;

	ubfab_jetty_destroy(self->j);
	self->j = NULL;
	EXPECT_EQ(-ENOENT, dump_jetty(self->nl, self->a_eid, 0, &info));
	EXPECT_EQ(1, queues_of(self->nl, self->a_eid));
	/* the queues are free again */
	ASSERT_EQ(0, ubfab_jetty_create(self->a, self->aq, self->arq,
					&self->j));
}

/* The device closed before the jetty and its queues: they keep it. */
TEST_F(jetty, device_closed_first)
{
	ubfab_dev_close(self->a);
	self->a = NULL;
	EXPECT_EQ(1, queues_of(self->nl, self->a_eid));
	ubfab_jetty_destroy(self->j);
	self->j = NULL;
	ubfab_queue_destroy(self->aq);
	self->aq = NULL;
	EXPECT_EQ(0, queues_of(self->nl, self->a_eid));
}

static int jetty_ioctl(int devfd, int sq_fd, int rq_fd, uint32_t flags,
		       struct ubfab_jetty_create *c)
{
	*c = (struct ubfab_jetty_create){
		.size = sizeof(*c), .flags = flags,
		.sq_fd = sq_fd, .rq_fd = rq_fd,
	};
	return ioctl(devfd, UBFAB_IOCTL_JETTY_CREATE, c) ? errno : 0;
}

TEST_F(jetty, bad_arguments)
{
	int adev = ubfab_dev_fd(self->a), bdev = ubfab_dev_fd(self->b);
	int aq = ubfab_queue_fd(self->aq), arq = self->arq->fd;
	int bq = ubfab_queue_fd(self->bq), brq = self->brq->fd;
	struct ubfab_jetty_create c;
	struct ubfab_queue *q2;
	struct ubfab_dev *a2;
	struct ubfab_rq *rq2;
	int null, closed;

	/* both in a jetty already; each of them, with a free partner */
	ASSERT_EQ(0, ubfab_queue_create(self->a, NULL, &q2));
	ASSERT_EQ(0, ubfab_rq_create(self->a, 4, 0, TOKEN, &rq2));
	EXPECT_EQ(EBUSY, jetty_ioctl(adev, aq, arq, 0, &c));
	EXPECT_EQ(EBUSY, jetty_ioctl(adev, aq, rq2->fd, 0, &c));
	EXPECT_EQ(EBUSY, jetty_ioctl(adev, ubfab_queue_fd(q2), arq, 0, &c));
	/* flags */
	EXPECT_EQ(EINVAL, jetty_ioctl(adev, ubfab_queue_fd(q2), rq2->fd, 1,
				      &c));
	/* not a queue, not a receive queue, the two swapped */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, null);
	EXPECT_EQ(EINVAL, jetty_ioctl(adev, null, rq2->fd, 0, &c));
	EXPECT_EQ(EINVAL, jetty_ioctl(adev, ubfab_queue_fd(q2), null, 0, &c));
	EXPECT_EQ(EINVAL, jetty_ioctl(adev, rq2->fd, ubfab_queue_fd(q2), 0,
				      &c));
	EXPECT_EQ(EINVAL, jetty_ioctl(adev, adev, rq2->fd, 0, &c));
	/* closed, or never open */
	closed = dup(null);
	close(closed);
	EXPECT_EQ(EBADF, jetty_ioctl(adev, closed, rq2->fd, 0, &c));
	EXPECT_EQ(EBADF, jetty_ioctl(adev, ubfab_queue_fd(q2), -1, 0, &c));
	close(null);
	/* another entity's queues, and another file of the same entity */
	EXPECT_EQ(EXDEV, jetty_ioctl(adev, bq, rq2->fd, 0, &c));
	EXPECT_EQ(EXDEV, jetty_ioctl(adev, ubfab_queue_fd(q2), brq, 0, &c));
	EXPECT_EQ(EXDEV, jetty_ioctl(bdev, ubfab_queue_fd(q2), rq2->fd, 0,
				     &c));
	ASSERT_EQ(0, ubfab_dev_open("npu0", &a2));
	EXPECT_EQ(EXDEV, jetty_ioctl(ubfab_dev_fd(a2), ubfab_queue_fd(q2),
				     rq2->fd, 0, &c));
	ubfab_dev_close(a2);
	/* and the free pair works, as the next jetty of the entity */
	ASSERT_EQ(0, jetty_ioctl(adev, ubfab_queue_fd(q2), rq2->fd, 0, &c));
	EXPECT_EQ(self->j->id + 1, c.id);
	/* the rearm's argument */
	EXPECT_EQ(-EINVAL, ubfab_jetty_rearm(self->j, 0));
	EXPECT_EQ(-EINVAL, ubfab_jetty_rearm(self->j, UBFAB_JETTY_SIDES + 1));
	EXPECT_EQ(-1, ioctl(c.fd, UBFAB_IOCTL_QUEUE_DOORBELL, 0));
	EXPECT_EQ(ENOTTY, errno);
	close(c.fd);
	ubfab_queue_destroy(q2);
	ubfab_rq_destroy(rq2);
}

/*
 * The send side: nothing fires unarmed; armed, the next send completion
 * fires once; read() clears it; the arming is used up.
 */
TEST_F(jetty, send_side_one_shot)
{
	struct ubfab_jetty_event ev;
	uint16_t status;
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, ubfab_rq_post(self->brq, self->bbuf + i * 4096,
					   4096, i));
	ASSERT_EQ(0, send1(_metadata, self->aq, self->abuf, self->b_eid,
			   self->brq->id, &status));
	EXPECT_EQ(UBFAB_CQE_OK, status);
	EXPECT_FALSE(readable(self->j->fd));

	ASSERT_EQ(0, ubfab_jetty_rearm(self->j, UBFAB_JETTY_SEND));
	EXPECT_FALSE(readable(self->j->fd));
	ASSERT_EQ(0, send1(_metadata, self->aq, self->abuf, self->b_eid,
			   self->brq->id, &status));
	EXPECT_TRUE(readable(self->j->fd));
	ASSERT_EQ(0, ubfab_jetty_wait(self->j, &ev, 0));
	EXPECT_EQ(self->j->id, ev.jetty_id);
	EXPECT_EQ(UBFAB_JETTY_SEND, ev.sides);
	EXPECT_EQ(1, ev.events);
	EXPECT_FALSE(readable(self->j->fd));
	EXPECT_EQ(-ETIMEDOUT, ubfab_jetty_wait(self->j, &ev, 0));

	/* used up: the next completion fires nothing */
	ASSERT_EQ(0, send1(_metadata, self->aq, self->abuf, self->b_eid,
			   self->brq->id, &status));
	EXPECT_FALSE(readable(self->j->fd));
	/* armed for receives only: a send fires nothing either */
	ASSERT_EQ(0, ubfab_jetty_rearm(self->j, UBFAB_JETTY_RECV));
	ASSERT_EQ(0, send1(_metadata, self->aq, self->abuf, self->b_eid,
			   self->brq->id, &status));
	EXPECT_FALSE(readable(self->j->fd));
}

/*
 * The receive side, and a blocking wait that a completion ends: armed
 * for both, a message into the jetty's receive queue fires RECV.
 */
TEST_F(jetty, recv_side_wakes_waiter)
{
	struct ubfab_jetty_info info;
	struct ubfab_jetty_event ev;
	struct ubfab_rcqe rc;
	uint16_t status;
	pid_t child;
	int st;

	ASSERT_EQ(0, ubfab_rq_post(self->arq, self->abuf, 4096, 7));
	ASSERT_EQ(0, ubfab_jetty_rearm(self->j, UBFAB_JETTY_SIDES));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		/* the parent waits first; then a message for it */
		usleep(200 * 1000);
		_exit(send1(_metadata, self->bq, self->bbuf, self->a_eid,
			    self->arq->id, &status) || status);
	}
	ASSERT_EQ(0, ubfab_jetty_wait(self->j, &ev, UBFAB_TEST_WAIT_MS));
	EXPECT_EQ(UBFAB_JETTY_RECV, ev.sides);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_EQ(0, st);
	ASSERT_EQ(1, ubfab_rq_reap(self->arq, &rc, 1, 0));
	EXPECT_EQ(7, rc.user_data);
	ASSERT_EQ(0, dump_jetty(self->nl, self->a_eid, self->j->id, &info));
	EXPECT_EQ(1, info.receives);
	EXPECT_EQ(0, info.sends);
	EXPECT_EQ(1, info.events);
	/* the send side is still armed */
	ASSERT_EQ(0, ubfab_rq_post(self->brq, self->bbuf, 4096, 1));
	ASSERT_EQ(0, send1(_metadata, self->aq, self->abuf, self->b_eid,
			   self->brq->id, &status));
	ASSERT_EQ(0, ubfab_jetty_wait(self->j, &ev, 0));
	EXPECT_EQ(UBFAB_JETTY_SEND, ev.sides);
	EXPECT_EQ(2, ev.events);
}

/*
 * A send that finds no posted receive at each retry: the jetty's send
 * queue enters the error state, its device gets UBFAB_EVENT_JETTY_SQ_ERR
 * with the jetty and the status, and the dump counts it. The receiving
 * side, npu1, has no jetty and hears nothing.
 */
TEST_F(jetty, rnr_exceeded_async_event)
{
	struct ubfab_jetty_info info;
	struct ubfab_event ev;
	uint16_t status;

	ASSERT_EQ(0, send1(_metadata, self->aq, self->abuf, self->b_eid,
			   self->brq->id, &status));
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, status);
	ASSERT_EQ(0, next_event(self->a, &ev));
	EXPECT_EQ(UBFAB_EVENT_JETTY_SQ_ERR, ev.type);
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, ev.reason);
	EXPECT_EQ(self->a_eid, ev.eid);
	EXPECT_EQ(self->j->id, ev.jetty_id);
	EXPECT_EQ(-ETIMEDOUT, ubfab_dev_event_wait(self->b, &ev, 0));

	ASSERT_EQ(0, dump_jetty(self->nl, self->a_eid, self->j->id, &info));
	EXPECT_EQ(UBFAB_JETTY_ERROR, info.state);
	EXPECT_EQ(1, info.rnr_exc);
	EXPECT_EQ(1, info.errors);
	EXPECT_EQ(1, info.sends);
	EXPECT_STREQ("error", ubfab_jetty_state_name(info.state));

	/* the reset takes it out of the error state */
	ASSERT_EQ(0, ubfab_queue_reset(self->aq));
	ASSERT_EQ(0, dump_jetty(self->nl, self->a_eid, self->j->id, &info));
	EXPECT_EQ(UBFAB_JETTY_READY, info.state);
	EXPECT_EQ(1, info.errors);
}

/*
 * Messages into the jetty's receive queue that find it not ready count
 * as its RNR naks, each retry once, as the ring's overflow word does; a
 * full receive completion ring is an async event, once until a receive
 * completes again.
 */
TEST_F(jetty, rnr_naks_and_rcq_full)
{
	struct ubfab_jetty_info info;
	struct ubfab_event ev;
	struct ubfab_rcqe rc[4];
	uint16_t status;
	int i;

	/* no receive posted: RNR_RETRY + 1 misses */
	ASSERT_EQ(0, send1(_metadata, self->bq, self->bbuf, self->a_eid,
			   self->arq->id, &status));
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, status);
	ASSERT_EQ(0, dump_jetty(self->nl, self->a_eid, self->j->id, &info));
	EXPECT_EQ(RNR_RETRY + 1, info.rnr_naks);
	EXPECT_EQ(*self->arq->rq_overflow, info.rnr_naks);
	EXPECT_EQ(0, info.rnr_exc);
	EXPECT_EQ(-ETIMEDOUT, ubfab_dev_event_wait(self->a, &ev, 0));
	ASSERT_EQ(0, ubfab_queue_reset(self->bq));

	/* four receives fill the RCQ (4 entries); the fifth message finds it full */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, ubfab_rq_post(self->arq, self->abuf + i * 4096,
					   4096, i));
		ASSERT_EQ(0, send1(_metadata, self->bq, self->bbuf,
				   self->a_eid, self->arq->id, &status));
		EXPECT_EQ(UBFAB_CQE_OK, status);
	}
	ASSERT_EQ(0, ubfab_rq_post(self->arq, self->abuf, 4096, 4));
	ASSERT_EQ(0, send1(_metadata, self->bq, self->bbuf, self->a_eid,
			   self->arq->id, &status));
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, status);
	ASSERT_EQ(0, next_event(self->a, &ev));
	EXPECT_EQ(UBFAB_EVENT_JETTY_RCQ_FULL, ev.type);
	EXPECT_EQ(self->j->id, ev.jetty_id);
	EXPECT_EQ(1, ev.mmap_offset);
	/* once for the RNR_RETRY + 1 misses */
	EXPECT_EQ(-ETIMEDOUT, ubfab_dev_event_wait(self->a, &ev, 0));
	ASSERT_EQ(0, dump_jetty(self->nl, self->a_eid, self->j->id, &info));
	EXPECT_EQ(4, info.receives);
	EXPECT_EQ(2 * (RNR_RETRY + 1), info.rnr_naks);

	/*
	 * Reaped, receives complete (the one still posted and three more),
	 * and the next overflow is told again.
	 */
	ASSERT_EQ(0, ubfab_queue_reset(self->bq));
	ASSERT_EQ(4, ubfab_rq_reap(self->arq, rc, 4, 0));
	for (i = 0; i < 4; i++) {
		if (i)
			ASSERT_EQ(0, ubfab_rq_post(self->arq, self->abuf,
						   4096, i));
		ASSERT_EQ(0, send1(_metadata, self->bq, self->bbuf,
				   self->a_eid, self->arq->id, &status));
		EXPECT_EQ(UBFAB_CQE_OK, status);
	}
	ASSERT_EQ(0, ubfab_rq_post(self->arq, self->abuf, 4096, 5));
	ASSERT_EQ(0, send1(_metadata, self->bq, self->bbuf, self->a_eid,
			   self->arq->id, &status));
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, status);
	ASSERT_EQ(0, next_event(self->a, &ev));
	EXPECT_EQ(UBFAB_EVENT_JETTY_RCQ_FULL, ev.type);
	EXPECT_EQ(RNR_RETRY + 2, ev.mmap_offset);
}

/* An entity reset: each jetty of the entity is told, with its number. */
TEST_F(jetty, reset_async_event)
{
	struct ubfab_event ev;

	ASSERT_EQ(0, ubfab_entity_reset(self->nl, self->a_eid));
	ASSERT_EQ(0, next_event(self->a, &ev));
	EXPECT_EQ(UBFAB_EVENT_JETTY_RESET, ev.type);
	EXPECT_EQ(self->a_eid, ev.eid);
	EXPECT_EQ(self->j->id, ev.jetty_id);
	EXPECT_EQ(-ETIMEDOUT, ubfab_dev_event_wait(self->a, &ev, 0));
	ASSERT_EQ(0, ubfab_entity_reset(self->nl, self->b_eid));
	EXPECT_EQ(-ETIMEDOUT, next_event(self->a, &ev));
}

/*
 * Jetties made and closed over and over on a queue whose completions keep
 * coming (a child runs NOPs through it): each wake-up finds the jetty
 * whole or not at all (the debug kernel's KASAN and lockdep watch), the
 * NOPs all complete, and the last jetty made still fires.
 */
TEST_F(jetty, churn_while_completing)
{
	struct ubfab_jetty_event ev;
	struct ubfab_cqe cqe;
	uint16_t status;
	pid_t child;
	int i, st;

	/* closed first: the child's copy of it would keep the jetty */
	ubfab_jetty_destroy(self->j);
	self->j = NULL;
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		int64_t end = now_ms() + 3000;

		while (now_ms() < end) {
			ubfab_prep_nop(GET_SQE(self->aq));
			if (ubfab_test_complete(self->aq, &cqe, 1) ||
			    cqe.status != UBFAB_CQE_OK)
				_exit(1);
		}
		_exit(0);
	}
	for (i = 0; i < 300; i++) {
		ubfab_jetty_destroy(self->j);
		self->j = NULL;
		ASSERT_EQ(0, ubfab_jetty_create(self->a, self->aq, self->arq,
						&self->j)) TH_LOG("jetty %d", i);
		ASSERT_EQ(0, ubfab_jetty_rearm(self->j, UBFAB_JETTY_SEND));
	}
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_EQ(0, st);
	/* (the child moved aq's rings on: the receive side, from b) */
	ASSERT_EQ(0, ubfab_jetty_rearm(self->j, UBFAB_JETTY_RECV));
	ASSERT_EQ(0, ubfab_rq_post(self->arq, self->abuf, 4096, 1));
	ASSERT_EQ(0, send1(_metadata, self->bq, self->bbuf, self->a_eid,
			   self->arq->id, &status));
	EXPECT_EQ(UBFAB_CQE_OK, status);
	/* with SEND too if a NOP of the child came after the last rearm */
	ASSERT_EQ(0, ubfab_jetty_wait(self->j, &ev, UBFAB_TEST_WAIT_MS));
	EXPECT_EQ(UBFAB_JETTY_RECV, ev.sides & UBFAB_JETTY_RECV);
}

/* The dump filters by entity and says ENODEV for no such one. */
TEST_F(jetty, dump_filter)
{
	struct ubfab_jetty_info info;

	EXPECT_EQ(-ENOENT, dump_jetty(self->nl, self->b_eid, self->j->id,
				      &info));
	EXPECT_EQ(0, dump_jetty(self->nl, UBFAB_EID_ANY, self->j->id, &info));
	EXPECT_EQ(-ENODEV, dump_jetty(self->nl, 4242, 0, &info));
}

TEST_HARNESS_MAIN

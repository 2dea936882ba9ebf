// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab selftests: the fabric model's deterministic mode, the ordered
 * domain (UBFAB_QUEUE_ORDERED, Documentation/model.rst "Determinism"):
 * ties broken by entity, parking by hand and by time-out, a late queue
 * starting at the domain's time, and the same modeled times in every
 * run of a multi-process, multi-queue contention workload whatever the
 * host's delays.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define TOKEN		0x0b0e0b0eU
#define RWA		(UBFAB_SEG_READ | UBFAB_SEG_WRITE | UBFAB_SEG_ATOMIC)
#define WAIT_MS		20000		/* for one completion, under TCG */
#define PARK_PARAM	"/sys/module/ubfab/parameters/model_park_ms"
#define ISSUE_NS	200		/* issue-ps of profile cm384, in ns */
#define BIG		(1U << 20)


/* A sender: an entity, a queue on it, an import of the receiver's memory. */
struct sender {
	struct ubfab_dev *dev;
	struct ubfab_queue *q;
	struct ubfab_import imp;
	uint64_t loc;
};

FIXTURE(order) {
	struct ubfab_dev *dst;
	uint64_t seg;
	uint32_t tid;
	struct sender s[2];
};

FIXTURE_SETUP(order)
{
	/*
	 * An idle queue is parked after model_park_ms: long enough here
	 * that no check of a queue held back can see it parked early, on
	 * however slow a host (park_timeout sets its own)
	 */
	ASSERT_EQ(0, ubfab_reload("model_park_ms=60000"));
	ASSERT_EQ(0, ubfab_dev_open("npu15", &self->dst));
	ASSERT_EQ(0, ubfab_dev_alloc(self->dst, BIG, &self->seg));
	ASSERT_EQ(0, ubfab_dev_export(self->dst, self->seg, BIG, RWA, TOKEN,
				      &self->tid));
	memset(self->s, 0, sizeof(self->s));
}

FIXTURE_TEARDOWN(order)
{
	int i;

	for (i = 0; i < 2; i++) {
		ubfab_queue_destroy(self->s[i].q);
		ubfab_dev_close(self->s[i].dev);
	}
	ubfab_dev_close(self->dst);
	ubfab_unload();
}

/* Sender @i on entity @name, its queue made with @flags. */
static void add_sender(struct __test_metadata *_metadata,
		       FIXTURE_DATA(order) *self, int i, const char *name,
		       uint32_t flags)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct sender *s = &self->s[i];

	attr.flags = flags;
	ASSERT_EQ(0, ubfab_dev_open(name, &s->dev));
	ASSERT_EQ(0, ubfab_dev_import(s->dev, ubfab_dev_eid(self->dst),
				      self->tid, TOKEN, RWA, &s->imp));
	ASSERT_EQ(0, ubfab_dev_alloc(s->dev, BIG, &s->loc));
	ASSERT_EQ(0, ubfab_queue_create(s->dev, &attr, &s->q));
}

/* Post a WRITE of @len bytes from sender @i to the receiver. */
static void post_write(struct __test_metadata *_metadata,
		       FIXTURE_DATA(order) *self, int i, uint32_t len)
{
	struct sender *s = &self->s[i];

	ubfab_prep_write(GET_SQE(s->q), s->loc, ubfab_import_addr(&s->imp, 0),
			 len);
	ASSERT_LE(0, ubfab_queue_submit(s->q));
}

/*
 * Two 1 MiB WRITEs into one receiver, both starting at modeled time 0,
 * the one from the higher-numbered entity posted first: fast mode serves
 * it first (the host's order); the ordered domain serves the lower
 * entity first (the stable key), and holds the first one back until the
 * lower entity's queue has posted. At the links' pace (one DMA engine
 * alone would hide the wait: two of them do not fill the receiver's port).
 */
TEST_F(order, tie_break)
{
	uint32_t flags[] = { UBFAB_QUEUE_TIMING,
			     UBFAB_QUEUE_TIMING | UBFAB_QUEUE_ORDERED };
	struct ubfab_cqe hi, lo;
	int mode;

	ASSERT_EQ(0, ubfab_engines_unbounded());
	for (mode = 0; mode < 2; mode++) {
		add_sender(_metadata, self, 0, "npu1", flags[mode]);
		add_sender(_metadata, self, 1, "npu2", flags[mode]);
		ASSERT_LT(ubfab_dev_eid(self->s[0].dev),
			  ubfab_dev_eid(self->s[1].dev));
		post_write(_metadata, self, 1, BIG);
		if (mode) {
			/* its turn comes only once npu1's queue posts */
			EXPECT_EQ(-ETIMEDOUT, next_cqe(self->s[1].q, &hi, 200));
		}
		post_write(_metadata, self, 0, BIG);
		ASSERT_EQ(0, next_cqe(self->s[1].q, &hi, WAIT_MS));
		ASSERT_EQ(0, next_cqe(self->s[0].q, &lo, WAIT_MS));
		ASSERT_EQ(UBFAB_CQE_OK, hi.status);
		ASSERT_EQ(UBFAB_CQE_OK, lo.status);
		/* the second waits for the first's serialization */
		if (mode) {
			EXPECT_LT(lo.model_ns, hi.model_ns);
		} else {
			EXPECT_LT(hi.model_ns, lo.model_ns);
		}
		TH_LOG("%s: npu1 %llu ns, npu2 %llu ns",
		       mode ? "ordered" : "fast",
		       (unsigned long long)lo.model_ns,
		       (unsigned long long)hi.model_ns);
		ubfab_queue_destroy(self->s[0].q);
		ubfab_queue_destroy(self->s[1].q);
		ubfab_dev_close(self->s[0].dev);
		ubfab_dev_close(self->s[1].dev);
		memset(self->s, 0, sizeof(self->s));
	}
}

/*
 * An idle queue holds back the queues whose clocks are later than its
 * own until it is parked; a parked queue that posts again comes back at
 * the domain's time.
 */
TEST_F(order, park)
{
	struct ubfab_cqe c[2];

	add_sender(_metadata, self, 0, "npu1", UBFAB_QUEUE_ORDERED);
	add_sender(_metadata, self, 1, "npu2", UBFAB_QUEUE_ORDERED);
	ubfab_prep_compute(GET_SQE(self->s[1].q), 10000);
	ubfab_prep_nop(GET_SQE(self->s[1].q));
	ASSERT_LE(0, ubfab_queue_submit(self->s[1].q));
	/* npu1's queue, idle at 0, may still post something earlier */
	EXPECT_EQ(-ETIMEDOUT, next_cqe(self->s[1].q, &c[0], 200));
	ASSERT_EQ(0, ubfab_queue_park(self->s[0].q));
	ASSERT_EQ(0, next_cqe(self->s[1].q, &c[0], WAIT_MS));
	ASSERT_EQ(0, next_cqe(self->s[1].q, &c[1], WAIT_MS));
	EXPECT_EQ(10000, c[0].model_ns);
	EXPECT_EQ(10000 + ISSUE_NS, c[1].model_ns);
	/* back, at the start of the last entry that ran: the NOP's */
	ubfab_prep_nop(GET_SQE(self->s[0].q));
	ASSERT_LE(0, ubfab_queue_submit(self->s[0].q));
	ASSERT_EQ(0, next_cqe(self->s[0].q, &c[0], WAIT_MS));
	EXPECT_EQ(10000 + ISSUE_NS, c[0].model_ns);
	/* parking a queue outside the domain does nothing, and is no error */
	ubfab_queue_destroy(self->s[0].q);
	self->s[0].q = NULL;
	{
		struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;

		ASSERT_EQ(0, ubfab_queue_create(self->s[0].dev, &attr,
						&self->s[0].q));
		EXPECT_EQ(0, ubfab_queue_park(self->s[0].q));
	}
}

/*
 * The fall-back: a queue idle for model_park_ms is parked, so a program
 * that never parks its queues does not deadlock the domain.
 */
TEST_F(order, park_timeout)
{
	struct ubfab_cqe c;
	int64_t t0 = now_ms();

	ASSERT_EQ(0, write_file(PARK_PARAM, "300"));
	add_sender(_metadata, self, 0, "npu1", UBFAB_QUEUE_ORDERED);
	add_sender(_metadata, self, 1, "npu2", UBFAB_QUEUE_ORDERED);
	ubfab_prep_nop(GET_SQE(self->s[1].q));
	ASSERT_LE(0, ubfab_queue_submit(self->s[1].q));
	ASSERT_EQ(0, next_cqe(self->s[1].q, &c, WAIT_MS));
	EXPECT_EQ(ISSUE_NS, c.model_ns);
	/* not before npu1's queue had been idle that long (a jiffy less) */
	EXPECT_LE(300 - 10, now_ms() - t0);
}

/* A queue that joins once the domain has run starts at the domain's time. */
TEST_F(order, late_join)
{
	struct ubfab_cqe c;
	uint64_t now;

	add_sender(_metadata, self, 0, "npu1", UBFAB_QUEUE_ORDERED);
	ubfab_prep_compute(GET_SQE(self->s[0].q), 5000);
	ubfab_prep_nop(GET_SQE(self->s[0].q));
	ASSERT_LE(0, ubfab_queue_submit(self->s[0].q));
	ASSERT_EQ(0, next_cqe(self->s[0].q, &c, WAIT_MS));
	ASSERT_EQ(0, next_cqe(self->s[0].q, &c, WAIT_MS));
	add_sender(_metadata, self, 1, "npu2", UBFAB_QUEUE_ORDERED);
	ASSERT_EQ(0, ubfab_queue_clock(self->s[1].q, 0, &now));
	EXPECT_EQ(5000, now);
}

/*
 * The determinism proof: the same multi-process, multi-queue contention
 * workload run RUNS times, with random host delays between submissions,
 * gives the same model_ns in every completion of every run.
 *
 * SENDERS processes, each on its own NPU die, post on QUEUES ordered
 * queues each (one of them polling) ENTRIES entries: WRITEs and READs
 * that share the receiver's port (two senders sit on another node, so
 * their bytes cross the L2 switches), COMPUTE, and last a WRITE_NOTIFY
 * adding 1 to a flag in the receiver. One more process, on the receiver,
 * waits on its queue for the flag to count every sender queue, then
 * computes. Every process posts its entries one at a time with a random
 * sleep before each, parks its queues, then reaps.
 */
#define RUNS		10
#define SENDERS		5
#define QUEUES		2
#define ENTRIES		6
#define PROCS		(SENDERS + 1)
#define SLOTS		(QUEUES * ENTRIES)
#define FLAG_OFF	(BIG - 8)

static const char *const sender_names[SENDERS] = {
	"npu0", "npu3", "npu6", "npu16", "npu21",
};

/* What one process saw: per queue, per entry. */
struct outcome {
	uint64_t model_ns[SLOTS];
	uint16_t status[SLOTS];
	int n;
};

/* Sleep a random 0 to 2 ms, to shuffle the host's order. */
static void jitter(void)
{
	usleep(rand() % 2000);
}

/* Post entry @e of a sender's queue @qi. */
static void post_entry(struct ubfab_queue *q, int qi, int e, uint64_t loc,
		       uint64_t rem)
{
	struct ubfab_sqe *sqe = ubfab_queue_get_sqe(q);

	if (e == ENTRIES - 1) {
		ubfab_prep_write_notify(sqe, loc, rem + 4096 * qi, 4096,
					rem + FLAG_OFF, 1);
		return;
	}
	switch (e % 3) {
	case 0:
		ubfab_prep_write(sqe, loc, rem + 65536 * qi, 256 << 10);
		break;
	case 1:
		ubfab_prep_compute(sqe, 1000 + 700 * qi + 300 * e);
		break;
	default:
		ubfab_prep_read(sqe, loc, rem, 64 << 10);
		break;
	}
}

/* Reap @n completions of @q into @out from slot @slot on. 0 or -errno. */
static int reap(struct ubfab_queue *q, struct outcome *out, int slot, int n)
{
	struct ubfab_cqe c;
	int i, err;

	for (i = 0; i < n; i++) {
		err = next_cqe(q, &c, WAIT_MS);
		if (err)
			return err;
		out->model_ns[slot + i] = c.model_ns;
		out->status[slot + i] = c.status;
		out->n++;
	}
	return 0;
}

/*
 * Sender @p: its queues, posted at random times after @go is readable;
 * @ready gets a byte once the queues exist. Return: the exit status.
 */
static int run_sender(int p, uint32_t dst_eid, uint32_t tid, int ready,
		      int go, struct outcome *out)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_queue *q[QUEUES] = { 0 };
	struct ubfab_import imp;
	struct ubfab_dev *dev;
	uint64_t loc, rem;
	int qi, e, ret = 1;
	char b = 0;

	if (ubfab_dev_open(sender_names[p], &dev) ||
	    ubfab_dev_import(dev, dst_eid, tid, TOKEN, RWA, &imp) ||
	    ubfab_dev_alloc(dev, BIG, &loc))
		return 1;
	rem = ubfab_import_addr(&imp, 0);
	for (qi = 0; qi < QUEUES; qi++) {
		attr.flags = UBFAB_QUEUE_ORDERED |
			     (qi == 1 ? UBFAB_QUEUE_POLL : 0);
		if (ubfab_queue_create(dev, &attr, &q[qi]))
			goto out;
	}
	if (write(ready, &b, 1) != 1 || read(go, &b, 1) != 1)
		goto out;
	for (e = 0; e < ENTRIES; e++) {
		for (qi = 0; qi < QUEUES; qi++) {
			jitter();
			post_entry(q[qi], qi, e, loc, rem);
			if (ubfab_queue_submit(q[qi]) < 0)
				goto out;
		}
	}
	for (qi = 0; qi < QUEUES; qi++)
		if (ubfab_queue_park(q[qi]))
			goto out;
	for (qi = 0; qi < QUEUES; qi++)
		if (reap(q[qi], out, qi * ENTRIES, ENTRIES))
			goto out;
	ret = 0;
out:
	for (qi = 0; qi < QUEUES; qi++)
		ubfab_queue_destroy(q[qi]);
	ubfab_dev_close(dev);
	return ret;
}

/* The receiver's waiter: WAIT_VALUE on the flag, then COMPUTE. */
static int run_waiter(struct ubfab_dev *dst, uint64_t flag, int ready,
		      int go, struct outcome *out)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_queue *q;
	int ret = 1;
	char b = 0;

	attr.flags = UBFAB_QUEUE_ORDERED;
	if (ubfab_queue_create(dst, &attr, &q))
		return 1;
	if (write(ready, &b, 1) != 1 || read(go, &b, 1) != 1)
		goto out;
	jitter();
	ubfab_prep_wait_value(ubfab_queue_get_sqe(q), flag, UBFAB_WAIT_GE,
			      SENDERS * QUEUES, 0);
	ubfab_prep_compute(ubfab_queue_get_sqe(q), 3000);
	if (ubfab_queue_submit(q) < 0 || ubfab_queue_park(q))
		goto out;
	ret = reap(q, out, 0, 2) ? 1 : 0;
out:
	ubfab_queue_destroy(q);
	return ret;
}

/* One run of the workload; what every process saw, into @out[PROCS]. */
static void run_workload(struct __test_metadata *_metadata,
			 struct outcome *out, unsigned int seed)
{
	int ready[2], go[2], p, status;
	pid_t pid[PROCS];
	struct ubfab_dev *dst;
	uint64_t seg;
	uint32_t tid;
	char b[PROCS];

	memset(out, 0, PROCS * sizeof(*out));
	ASSERT_EQ(0, ubfab_dev_open("npu15", &dst));
	ASSERT_EQ(0, ubfab_dev_alloc(dst, BIG, &seg));
	ASSERT_EQ(0, ubfab_dev_export(dst, seg, BIG, RWA, TOKEN, &tid));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	for (p = 0; p < PROCS; p++) {
		pid[p] = fork();
		ASSERT_LE(0, pid[p]);
		if (pid[p])
			continue;
		srand(seed * 131 + p);
		close(ready[0]);
		close(go[1]);
		_exit(p < SENDERS ?
		      run_sender(p, ubfab_dev_eid(dst), tid, ready[1], go[0],
				 &out[p]) :
		      run_waiter(dst, seg + FLAG_OFF, ready[1], go[0],
				 &out[p]));
	}
	close(ready[1]);
	close(go[0]);
	/* every queue of the domain exists before any posts */
	for (p = 0; p < PROCS; p++)
		ASSERT_EQ(1, read(ready[0], b, 1));
	ASSERT_EQ(PROCS, write(go[1], b, PROCS));
	for (p = 0; p < PROCS; p++) {
		ASSERT_EQ(pid[p], waitpid(pid[p], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("process %d: status %#x", p, status);
	}
	close(ready[0]);
	close(go[1]);
	ubfab_dev_close(dst);
}

TEST_F_TIMEOUT(order, repeat, UBFAB_TEST_SLOW)
{
	size_t len = RUNS * PROCS * sizeof(struct outcome);
	uint64_t notified = 0, waited;
	struct outcome *out;
	int r, p, i, e;

	out = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, out);
	for (r = 0; r < RUNS; r++)
		run_workload(_metadata, &out[r * PROCS], time(NULL) ^ r);

	/* run 0 is sane: all done, in order, the wait after the flags */
	for (p = 0; p < PROCS; p++) {
		struct outcome *o = &out[p];
		int n = p < SENDERS ? SLOTS : 2;

		ASSERT_EQ(n, o->n);
		for (i = 0; i < n; i++) {
			EXPECT_EQ(UBFAB_CQE_OK, o->status[i]);
			if (i % ENTRIES)
				EXPECT_LT(o->model_ns[i - 1], o->model_ns[i]);
			if (p < SENDERS && i % ENTRIES == ENTRIES - 1 &&
			    o->model_ns[i] > notified)
				notified = o->model_ns[i];
		}
	}
	waited = out[SENDERS].model_ns[0];
	/* the last flag's arrival: its end less the way back, under 1 us */
	EXPECT_LE(notified, waited + 1000);
	EXPECT_EQ(waited + 3000, out[SENDERS].model_ns[1]);
	TH_LOG("last notify ends at %llu ns, the wait at %llu ns",
	       (unsigned long long)notified, (unsigned long long)waited);

	/* every run like run 0 */
	for (r = 1; r < RUNS; r++) {
		for (p = 0; p < PROCS; p++) {
			struct outcome *a = &out[p], *b = &out[r * PROCS + p];

			for (e = 0; e < SLOTS; e++) {
				if (a->model_ns[e] == b->model_ns[e] &&
				    a->status[e] == b->status[e])
					continue;
				TH_LOG("run %d, process %d, entry %d: %llu ns (%u), run 0: %llu ns (%u)",
				       r, p, e,
				       (unsigned long long)b->model_ns[e],
				       b->status[e],
				       (unsigned long long)a->model_ns[e],
				       a->status[e]);
				break;
			}
			EXPECT_EQ(SLOTS, e);
			EXPECT_EQ(a->n, b->n);
		}
	}
	munmap(out, len);
}

TEST_HARNESS_MAIN

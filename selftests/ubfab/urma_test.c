// SPDX-License-Identifier: GPL-2.0
/*
 * libubfab's liburma-shaped layer (ubfab_urma.h), end to end in the VM:
 * the two samples of examples/ (urma_pingpong, urma_write_notify, built
 * beside this program), each checking bytes and immediates and saying so in its
 * output and exit status; and the calls their runs cannot show: a JFCE
 * gives one event per rearm, a bad work request in a list takes no slot
 * and is handed back, READ and atomics through imported segments; a
 * jetty is the kernel's (ubctl's dump lists it), its JFC waits on the
 * kernel channel, and its errors are the context's async events, which
 * hold the jetty until acknowledged.
 */
#include <poll.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ubfab_test.h"
#include "ubfab_urma.h"

#define PARAMS	"nodes=1 chips_per_node=1 cpus_per_node=2 npu_mem=64M cpu_mem=64M"
#define TOKEN	0x7e57c0deU
#define SEG_LEN	65536UL

/*
 * Run the sample @name beside this program with @args; its output into
 * @out. Return: its exit status, or -1.
 */
static int sample(const char *name, const char *args, char *out, size_t len)
{
	char dir[PATH_MAX], cmd[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	size_t used = 0;
	FILE *f;
	int st;

	dir[n > 0 ? n : 0] = '\0';
	snprintf(cmd, sizeof(cmd), "%s/%s %s 2>&1", dirname(dir), name, args);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (used < len - 1 &&
	       (n = fread(out + used, 1, len - 1 - used, f)) > 0)
		used += n;
	out[used] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

FIXTURE(urma) {
	struct ubfab_urma_context *a, *b;	/* npu0, npu1 */
	struct ubfab_urma_jfce *jfce;		/* a's */
	struct ubfab_urma_jfc *jfc_a, *jfc_b;
	struct ubfab_urma_jfr *jfr;		/* a's */
	struct ubfab_urma_jfs *jfs;		/* b's */
	struct ubfab_urma_seg *seg_a, *seg_b;
	struct ubfab_urma_tseg *tseg;		/* seg_a, imported by b */
	struct ubfab_urma_tjfr tjfr;		/* jfr, for b */
};

FIXTURE_SETUP(urma)
{
	ASSERT_EQ(0, ubfab_reload(PARAMS));
	ASSERT_EQ(0, ubfab_urma_create_context("npu0", &self->a));
	ASSERT_EQ(0, ubfab_urma_create_context("npu1", &self->b));
	ASSERT_EQ(0, ubfab_urma_create_jfce(self->a, &self->jfce));
	ASSERT_EQ(0, ubfab_urma_create_jfc(self->a, self->jfce, &self->jfc_a));
	ASSERT_EQ(0, ubfab_urma_create_jfc(self->b, NULL, &self->jfc_b));
	ASSERT_EQ(0, ubfab_urma_create_jfr(self->a, 8, TOKEN, self->jfc_a,
					   &self->jfr));
	ASSERT_EQ(0, ubfab_urma_create_jfs(self->b, 8, self->jfc_b,
					   &self->jfs));
	ASSERT_EQ(0, ubfab_urma_register_seg(self->a, SEG_LEN,
					     UBFAB_SEG_READ | UBFAB_SEG_WRITE |
					     UBFAB_SEG_ATOMIC, TOKEN,
					     &self->seg_a));
	ASSERT_EQ(0, ubfab_urma_register_seg(self->b, SEG_LEN, UBFAB_SEG_READ,
					     TOKEN, &self->seg_b));
	ASSERT_EQ(0, ubfab_urma_import_seg(self->b, self->a->eid,
					   self->seg_a->token_id, TOKEN,
					   UBFAB_SEG_READ | UBFAB_SEG_WRITE |
					   UBFAB_SEG_ATOMIC, &self->tseg));
	ubfab_urma_import_jfr(self->a->eid, self->jfr->id, TOKEN, &self->tjfr);
}

FIXTURE_TEARDOWN(urma)
{
	ubfab_urma_unimport_seg(self->b, self->tseg);
	ubfab_urma_unregister_seg(self->b, self->seg_b);
	ubfab_urma_unregister_seg(self->a, self->seg_a);
	if (self->jfs)
		ubfab_urma_delete_jfs(self->jfs);
	if (self->jfr)
		ubfab_urma_delete_jfr(self->jfr);
	if (self->jfc_b)
		ubfab_urma_delete_jfc(self->jfc_b);
	if (self->jfc_a)
		ubfab_urma_delete_jfc(self->jfc_a);
	ubfab_urma_delete_jfce(self->jfce);
	ubfab_urma_delete_context(self->b);
	ubfab_urma_delete_context(self->a);
	ubfab_unload();
}

/* The next record of @jfc, polling for at most 10 s: 1, or 0. */
static int next_cr(struct ubfab_urma_jfc *jfc, struct ubfab_urma_cr *cr)
{
	int i, n;

	for (i = 0; i < 100000; i++) {
		n = ubfab_urma_poll_jfc(jfc, 1, cr);
		if (n)
			return n;
		usleep(100);
	}
	return 0;
}

/* A SEND_IMM of @len bytes at 64 in seg_b from b to a's JFR. */
static int send_imm(FIXTURE_DATA(urma) *self, uint32_t len, uint32_t imm)
{
	struct ubfab_urma_jfs_wr wr = {
		.opcode = UBFAB_OP_SEND_IMM,
		.user_ctx = imm,
		.local = self->seg_b->offset + 64,
		.len = len,
		.tjfr = &self->tjfr,
		.imm = imm,
	};

	return ubfab_urma_post_jfs_wr(self->jfs, &wr, NULL);
}

TEST_F(urma, pingpong_sample)
{
	char out[4096];

	EXPECT_EQ(0, sample("urma_pingpong", "20", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "pingpong: 20 rounds ok"))
		TH_LOG("%s", out);
}

TEST_F(urma, write_notify_sample)
{
	char out[4096];

	EXPECT_EQ(0, sample("urma_write_notify", "12", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "write_notify: 12 blocks ok"))
		TH_LOG("%s", out);
}

/* One event per rearm, and none before the first. */
TEST_F(urma, jfce_rearm)
{
	struct ubfab_urma_jfr_wr rwr = { .local = self->seg_a->offset,
					 .len = 4096 };
	struct ubfab_urma_jfc *ready[2];
	struct ubfab_urma_cr cr[2];
	int i;

	for (i = 0; i < 2; i++) {
		rwr.user_ctx = i;
		ASSERT_EQ(0, ubfab_urma_post_jfr_wr(self->jfr, &rwr, NULL));
	}
	/* not armed: a completion gives no event */
	ASSERT_EQ(0, send_imm(self, 16, 1));
	ASSERT_EQ(1, next_cr(self->jfc_b, cr));
	EXPECT_EQ(0, ubfab_urma_wait_jfc(self->jfce, 2, 200, ready));
	/* armed with one waiting: one event */
	ASSERT_EQ(0, ubfab_urma_rearm_jfc(self->jfc_a));
	ASSERT_EQ(1, ubfab_urma_wait_jfc(self->jfce, 2, 5000, ready));
	EXPECT_EQ(self->jfc_a, ready[0]);
	ASSERT_EQ(1, ubfab_urma_poll_jfc(self->jfc_a, 2, cr));
	EXPECT_EQ(UBFAB_URMA_CR_RECV | UBFAB_URMA_CR_IMM, cr[0].flags);
	EXPECT_EQ(1, cr[0].imm_data);
	EXPECT_EQ(0, cr[0].user_ctx);
	EXPECT_EQ(self->b->eid, cr[0].src_eid);
	/* spent: the next completion gives none until rearmed */
	/* empty: its local address is dropped */
	ASSERT_EQ(0, send_imm(self, 0, 2));
	ASSERT_EQ(1, next_cr(self->jfc_b, cr));
	EXPECT_EQ(0, ubfab_urma_wait_jfc(self->jfce, 2, 200, ready));
	ASSERT_EQ(0, ubfab_urma_rearm_jfc(self->jfc_a));
	ASSERT_EQ(1, ubfab_urma_wait_jfc(self->jfce, 2, 5000, ready));
	ASSERT_EQ(1, ubfab_urma_poll_jfc(self->jfc_a, 2, cr));
	EXPECT_EQ(2, cr[0].imm_data);
	EXPECT_EQ(1, cr[0].user_ctx);
	EXPECT_EQ(0, cr[0].completion_len);
}

/* b's context's next async event, within 2 s: 0 or -ETIMEDOUT. */
static int async_event(struct ubfab_urma_context *ctx,
		       struct ubfab_urma_async_event *ev)
{
	struct pollfd p = { .fd = ubfab_dev_fd(ctx->dev), .events = POLLIN };

	if (poll(&p, 1, 2000) != 1)
		return -ETIMEDOUT;
	return ubfab_urma_get_async_event(ctx, ev);
}

static int jetty_cb(const struct ubfab_jetty_info *j, void *arg)
{
	*(struct ubfab_jetty_info *)arg = *j;
	return 1;
}

/*
 * A jetty of b: the kernel's, with b's JFS and JFR; its JFC fires only
 * for completions after the rearm; a send that runs out of retries (a's
 * JFR has no receive posted) is an async event of b naming the jetty,
 * which cannot be deleted until the event is acknowledged.
 */
TEST_F(urma, jetty_kernel_object)
{
	struct ubfab_urma_jfs_wr wr = {
		.opcode = UBFAB_OP_SEND, .local = self->seg_b->offset,
		.len = 8, .tjfr = &self->tjfr,
	};
	struct ubfab_urma_jfr_wr rwr = { .local = self->seg_a->offset,
					 .len = 4096 };
	struct ubfab_urma_async_event ev;
	struct ubfab_urma_jfc *jfc, *ready;
	struct ubfab_urma_jetty *jetty;
	struct ubfab_urma_jfce *jfce;
	struct ubfab_jetty_info info;
	struct ubfab_urma_cr cr;
	struct ubfab_nl *nl;

	ASSERT_EQ(0, ubfab_urma_create_jfce(self->b, &jfce));
	ASSERT_EQ(0, ubfab_urma_create_jfc(self->b, jfce, &jfc));
	ASSERT_EQ(0, ubfab_urma_create_jetty(self->b, 8, TOKEN, jfc, &jetty));
	ASSERT_NE(NULL, jetty->jetty);
	EXPECT_EQ(jetty->jetty, jfc->jetty);
	ASSERT_EQ(0, ubfab_nl_open(&nl));
	ASSERT_EQ(1, ubfab_jetty_dump(nl, self->b->eid, jetty_cb, &info));
	EXPECT_EQ(jetty->jetty->id, info.id);
	EXPECT_EQ(jetty->jfs.id, info.sq);
	EXPECT_EQ(jetty->jfr.id, info.rq);

	/* a completion before the rearm gives no event after it */
	ASSERT_EQ(0, ubfab_urma_post_jfr_wr(self->jfr, &rwr, NULL));
	ASSERT_EQ(0, ubfab_urma_post_jfs_wr(&jetty->jfs, &wr, NULL));
	ASSERT_EQ(1, next_cr(jfc, &cr));
	EXPECT_EQ(UBFAB_CQE_OK, cr.status);
	ASSERT_EQ(0, ubfab_urma_rearm_jfc(jfc));
	EXPECT_EQ(0, ubfab_urma_wait_jfc(jfce, 1, 200, &ready));
	/* one after it does, once */
	ASSERT_EQ(0, ubfab_urma_post_jfr_wr(self->jfr, &rwr, NULL));
	ASSERT_EQ(0, ubfab_urma_post_jfs_wr(&jetty->jfs, &wr, NULL));
	ASSERT_EQ(1, ubfab_urma_wait_jfc(jfce, 1, 5000, &ready));
	EXPECT_EQ(jfc, ready);
	ASSERT_EQ(1, next_cr(jfc, &cr));
	EXPECT_EQ(0, ubfab_urma_wait_jfc(jfce, 1, 200, &ready));

	/* no receive posted: RNR retries run out, an async event of b */
	ASSERT_EQ(0, ubfab_urma_post_jfs_wr(&jetty->jfs, &wr, NULL));
	ASSERT_EQ(1, next_cr(jfc, &cr));
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, cr.status);
	ASSERT_EQ(0, async_event(self->b, &ev));
	EXPECT_EQ(UBFAB_EVENT_JETTY_SQ_ERR, ev.event_type);
	EXPECT_EQ(jetty, ev.jetty);
	EXPECT_EQ(UBFAB_CQE_RNR_RETRY_EXC, ev.event.reason);
	EXPECT_EQ(self->b, ev.ctx);
	EXPECT_EQ(-EBUSY, ubfab_urma_delete_jetty(jetty));
	ubfab_urma_ack_async_event(&ev);
	ASSERT_EQ(1, ubfab_jetty_dump(nl, self->b->eid, jetty_cb, &info));
	EXPECT_EQ(UBFAB_JETTY_ERROR, info.state);
	EXPECT_EQ(1, info.rnr_exc);
	EXPECT_EQ(1, info.events);

	EXPECT_EQ(0, ubfab_urma_delete_jetty(jetty));
	EXPECT_EQ(0, ubfab_jetty_dump(nl, self->b->eid, jetty_cb, &info));
	EXPECT_EQ(0, ubfab_urma_delete_jfc(jfc));
	ubfab_urma_delete_jfce(jfce);
	ubfab_nl_close(nl);
}

/* A list stops at its bad request, which takes no slot. */
TEST_F(urma, bad_wr)
{
	struct ubfab_urma_jfs_wr bad = { .opcode = UBFAB_OP_SEND, .len = 8 };
	struct ubfab_urma_jfs_wr good = {
		.opcode = UBFAB_OP_WRITE,
		.user_ctx = 7,
		.local = self->seg_b->offset,
		.len = 64,
		.tseg = self->tseg,
		.next = &bad,
	}, *bad_wr = NULL;
	struct ubfab_urma_cr cr;

	/* no target JFR for the SEND */
	EXPECT_EQ(-EINVAL, ubfab_urma_post_jfs_wr(self->jfs, &good, &bad_wr));
	EXPECT_EQ(&bad, bad_wr);
	ASSERT_EQ(1, next_cr(self->jfc_b, &cr));
	EXPECT_EQ(7, cr.user_ctx);
	EXPECT_EQ(UBFAB_CQE_OK, cr.status);
	EXPECT_EQ(64, cr.completion_len);
	usleep(100000);
	EXPECT_EQ(0, ubfab_urma_poll_jfc(self->jfc_b, 1, &cr));
	/* an opcode it does not post */
	bad.opcode = UBFAB_OP_NOP;
	bad_wr = NULL;
	EXPECT_EQ(-EINVAL, ubfab_urma_post_jfs_wr(self->jfs, &bad, &bad_wr));
	EXPECT_EQ(&bad, bad_wr);
	/* a JFC bound to a JFS is not deleted */
	EXPECT_EQ(-EBUSY, ubfab_urma_delete_jfc(self->jfc_b));
}

TEST_F(urma, read_and_atomic)
{
	uint64_t *word = (uint64_t *)((char *)self->seg_a->addr + 4096);
	struct ubfab_urma_jfs_wr wr = {
		.opcode = UBFAB_OP_READ,
		.user_ctx = 1,
		.local = self->seg_b->offset + 100,
		.len = 300,
		.tseg = self->tseg,
		.remote = 1000,
	};
	struct ubfab_urma_cr cr;
	int i;

	for (i = 0; i < 300; i++)
		((uint8_t *)self->seg_a->addr)[1000 + i] = (uint8_t)(i * 3 + 1);
	ASSERT_EQ(0, ubfab_urma_post_jfs_wr(self->jfs, &wr, NULL));
	ASSERT_EQ(1, next_cr(self->jfc_b, &cr));
	EXPECT_EQ(UBFAB_CQE_OK, cr.status);
	EXPECT_EQ(UBFAB_OP_READ, cr.opcode);
	EXPECT_EQ(300, cr.completion_len);
	EXPECT_EQ(0, memcmp((char *)self->seg_b->addr + 100,
			    (char *)self->seg_a->addr + 1000, 300));

	*word = 40;
	wr = (struct ubfab_urma_jfs_wr){
		.opcode = UBFAB_OP_ATOMIC,
		.user_ctx = 2,
		.tseg = self->tseg,
		.remote = 4096,
		.atomic_op = UBFAB_ATOMIC_FETCH_ADD,
		.value = 2,
	};
	ASSERT_EQ(0, ubfab_urma_post_jfs_wr(self->jfs, &wr, NULL));
	ASSERT_EQ(1, next_cr(self->jfc_b, &cr));
	EXPECT_EQ(UBFAB_CQE_OK, cr.status);
	EXPECT_EQ(2, cr.user_ctx);
	EXPECT_EQ(40, cr.result);
	EXPECT_EQ(42, __atomic_load_n(word, __ATOMIC_ACQUIRE));
	wr.atomic_op = UBFAB_ATOMIC_CAS;
	wr.compare = 42;
	wr.value = 7;
	ASSERT_EQ(0, ubfab_urma_post_jfs_wr(self->jfs, &wr, NULL));
	ASSERT_EQ(1, next_cr(self->jfc_b, &cr));
	EXPECT_EQ(42, cr.result);
	EXPECT_EQ(7, __atomic_load_n(word, __ATOMIC_ACQUIRE));
}

TEST_HARNESS_MAIN

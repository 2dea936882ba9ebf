// SPDX-License-Identifier: MIT
/*
 * urma_pingpong: two-sided SEND with immediate data through libubfab's
 * liburma-shaped layer (ubfab_urma.h), in the manner of the real stack's
 * send/receive sample. The server (this process, on the first device)
 * and the client (a child, on the second) each make a jetty; they swap
 * its number over a pipe (the real sample's out-of-band socket). The
 * client sends "ping N" with immediate N, the server checks the bytes,
 * the immediate and the sender, and answers "pong N" with immediate
 * N | 0x80000000, which the client checks likewise. Both wait on their
 * JFCE: poll the JFC, rearm it, poll again, wait.
 *
 *   urma_pingpong [ROUNDS [SERVER_DEV CLIENT_DEV]]	(10 npu0 npu1)
 *
 * Exits 0 and prints "pingpong: N rounds ok" if every check held.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ubfab_urma.h>

#define TOKEN	0x51e7e7a1U	/* both jetties' */
#define SEG_LEN	65536UL
#define MSG_MAX	64
#define PONG	0x80000000U

struct side {
	struct ubfab_urma_context *ctx;
	struct ubfab_urma_jfce *jfce;
	struct ubfab_urma_jfc *jfc;
	struct ubfab_urma_jetty *jetty;
	struct ubfab_urma_seg *seg;	/* receive at 0, send at MSG_MAX */
	struct ubfab_urma_tjfr peer;
};

static int fail(const char *who, const char *what, int err)
{
	fprintf(stderr, "pingpong %s: %s: %s\n", who, what, strerror(-err));
	return 1;
}

static int setup(struct side *s, const char *dev)
{
	int err;

	err = ubfab_urma_create_context(dev, &s->ctx);
	if (!err)
		err = ubfab_urma_create_jfce(s->ctx, &s->jfce);
	if (!err)
		err = ubfab_urma_create_jfc(s->ctx, s->jfce, &s->jfc);
	if (!err)
		err = ubfab_urma_create_jetty(s->ctx, 16, TOKEN, s->jfc,
					      &s->jetty);
	if (!err)
		err = ubfab_urma_register_seg(s->ctx, SEG_LEN, UBFAB_SEG_READ,
					      TOKEN, &s->seg);
	return err;
}

static void teardown(struct side *s)
{
	ubfab_urma_unregister_seg(s->ctx, s->seg);
	if (s->jetty)
		ubfab_urma_delete_jetty(s->jetty);
	if (s->jfc)
		ubfab_urma_delete_jfc(s->jfc);
	ubfab_urma_delete_jfce(s->jfce);
	ubfab_urma_delete_context(s->ctx);
}

static int post_recv(struct side *s, uint64_t ctx)
{
	struct ubfab_urma_jfr_wr wr = {
		.user_ctx = ctx,
		.local = s->seg->offset,
		.len = MSG_MAX,
	};

	return ubfab_urma_post_jfr_wr(&s->jetty->jfr, &wr, NULL);
}

static int send_imm(struct side *s, const char *text, uint32_t imm)
{
	struct ubfab_urma_jfs_wr wr = {
		.opcode = UBFAB_OP_SEND_IMM,
		.user_ctx = imm,
		.local = s->seg->offset + MSG_MAX,
		.len = strlen(text) + 1,
		.tjfr = &s->peer,
		.imm = imm,
	};

	memcpy((char *)s->seg->addr + MSG_MAX, text, wr.len);
	return ubfab_urma_post_jfs_wr(&s->jetty->jfs, &wr, NULL);
}

/*
 * Take completion records until the receive's: the send's must be OK, the
 * receive's must carry @want with immediate @imm from @src.
 */
static int await(struct side *s, const char *want, uint32_t imm,
		 uint32_t src)
{
	struct ubfab_urma_jfc *ready;
	struct ubfab_urma_cr cr;
	int n;

	for (;;) {
		n = ubfab_urma_poll_jfc(s->jfc, 1, &cr);
		if (n < 0)
			return n;
		if (!n) {
			/* armed, then polled again: no completion is missed */
			n = ubfab_urma_rearm_jfc(s->jfc);
			if (n)
				return n;
			if (ubfab_urma_poll_jfc(s->jfc, 1, &cr) == 1)
				goto got;
			n = ubfab_urma_wait_jfc(s->jfce, 1, 10000, &ready);
			if (n != 1 || ready != s->jfc)
				return n < 0 ? n : -ETIMEDOUT;
			continue;
		}
got:
		if (cr.status) {
			fprintf(stderr, "pingpong: status %u\n", cr.status);
			return -EIO;
		}
		if (!(cr.flags & UBFAB_URMA_CR_RECV))
			continue;	/* our send's */
		if (!(cr.flags & UBFAB_URMA_CR_IMM) || cr.imm_data != imm ||
		    cr.src_eid != src ||
		    cr.completion_len != strlen(want) + 1 ||
		    strcmp(s->seg->addr, want)) {
			fprintf(stderr, "pingpong: got \"%.*s\" imm %#x from %u, want \"%s\" imm %#x from %u\n",
				MSG_MAX, (char *)s->seg->addr, cr.imm_data,
				cr.src_eid, want, imm, src);
			return -EBADMSG;
		}
		return 0;
	}
}

/* Swap (eid, jetty number) with the other side over the pipes. */
static int swap_ids(struct side *s, int wfd, int rfd)
{
	uint32_t mine[2] = { s->ctx->eid, s->jetty->jfr.id }, theirs[2];

	if (write(wfd, mine, sizeof(mine)) != sizeof(mine) ||
	    read(rfd, theirs, sizeof(theirs)) != sizeof(theirs))
		return -EPIPE;
	ubfab_urma_import_jfr(theirs[0], theirs[1], TOKEN, &s->peer);
	return 0;
}

static int run(int server, const char *dev, int rounds, int wfd, int rfd)
{
	const char *who = server ? "server" : "client";
	char text[MSG_MAX], want[MSG_MAX];
	struct side s = { 0 };
	int i, err;

	err = setup(&s, dev);
	if (err)
		return fail(who, dev, err);
	/* a receive is posted before the peer may send */
	err = post_recv(&s, 0);
	if (!err)
		err = swap_ids(&s, wfd, rfd);
	for (i = 0; !err && i < rounds; i++) {
		if (server) {
			snprintf(want, sizeof(want), "ping %d", i);
			err = await(&s, want, i, s.peer.eid);
			if (!err)
				err = post_recv(&s, i + 1);
			snprintf(text, sizeof(text), "pong %d", i);
			if (!err)
				err = send_imm(&s, text, i | PONG);
		} else {
			snprintf(text, sizeof(text), "ping %d", i);
			err = send_imm(&s, text, i);
			snprintf(want, sizeof(want), "pong %d", i);
			if (!err)
				err = await(&s, want, i | PONG, s.peer.eid);
			if (!err)
				err = post_recv(&s, i + 1);
		}
	}
	teardown(&s);
	if (err)
		return fail(who, "round", err);
	if (server)
		printf("pingpong: %d rounds ok\n", rounds);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10, to_c[2], to_s[2], st, rc;
	const char *sdev = argc > 3 ? argv[2] : "npu0";
	const char *cdev = argc > 3 ? argv[3] : "npu1";
	pid_t pid;

	if (pipe(to_c) || pipe(to_s))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		_exit(run(0, cdev, rounds, to_s[1], to_c[0]));
	rc = run(1, sdev, rounds, to_c[1], to_s[0]);
	close(to_c[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		rc = 1;
	return rc;
}

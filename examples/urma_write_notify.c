// SPDX-License-Identifier: MIT
/*
 * urma_write_notify: one-sided WRITE with immediate data ("write then
 * notify") through libubfab's liburma-shaped layer (ubfab_urma.h), in the
 * manner of the real stack's sample. The target (this process, on the first
 * device) registers a segment and a JFR and hands their names to the
 * writer (a child, on the second device) over a pipe. The writer imports
 * the segment and writes blocks of growing length into it, each a
 * WRITE_IMM whose immediate is the block's number; the target waits on
 * its JFCE for each notification and checks its immediate, its length,
 * the sender, and the bytes in the segment.
 *
 *   urma_write_notify [BLOCKS [TARGET_DEV WRITER_DEV]]	(8 npu0 npu1)
 *
 * Exits 0 and prints "write_notify: N blocks ok" if every check held.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ubfab_urma.h>

#define TOKEN	0x0bada55eU	/* the segment's and the JFR's */
#define SEG_LEN	(1UL << 20)
#define BLOCK(i)	(1000U * ((i) + 1))	/* block i's bytes */
#define AT(i)	(BLOCK(i) * (i) / 2)		/* and its offset */

struct names {
	uint32_t eid, token_id, jfr;
};

static uint8_t pattern(int block, uint32_t i)
{
	return (uint8_t)(block * 31 + i * 7 + (i >> 8));
}

static int fail(const char *who, const char *what, int err)
{
	fprintf(stderr, "write_notify %s: %s: %s\n", who, what, strerror(-err));
	return 1;
}

static int target(const char *dev, int blocks, int wfd, int rfd)
{
	struct ubfab_urma_context *ctx;
	struct ubfab_urma_jfce *jfce = NULL;
	struct ubfab_urma_jfc *jfc = NULL, *ready;
	struct ubfab_urma_jfr *jfr = NULL;
	struct ubfab_urma_seg *seg = NULL;
	struct ubfab_urma_jfr_wr rwr = { 0 };
	struct ubfab_urma_cr cr;
	uint32_t writer = 0, j;
	struct names nm;
	int i, n, err;
	uint8_t *p;

	err = ubfab_urma_create_context(dev, &ctx);
	if (err)
		return fail("target", dev, err);
	err = ubfab_urma_create_jfce(ctx, &jfce);
	if (!err)
		err = ubfab_urma_create_jfc(ctx, jfce, &jfc);
	if (!err)
		err = ubfab_urma_create_jfr(ctx, 16, TOKEN, jfc, &jfr);
	if (!err)
		err = ubfab_urma_register_seg(ctx, SEG_LEN, UBFAB_SEG_WRITE,
					      TOKEN, &seg);
	/* a notification takes a receive, which needs no room */
	if (!err)
		rwr.local = seg->offset;
	for (i = 0; !err && i < blocks && i < 16; i++) {
		rwr.user_ctx = i;
		err = ubfab_urma_post_jfr_wr(jfr, &rwr, NULL);
	}
	if (!err) {
		nm = (struct names){ ctx->eid, seg->token_id, jfr->id };
		if (write(wfd, &nm, sizeof(nm)) != sizeof(nm) ||
		    read(rfd, &writer, sizeof(writer)) != sizeof(writer))
			err = -EPIPE;
	}
	for (i = 0; !err && i < blocks; i++) {
		n = ubfab_urma_poll_jfc(jfc, 1, &cr);
		if (!n) {
			/* armed, then polled again: nothing is missed */
			err = ubfab_urma_rearm_jfc(jfc);
			n = err ? err : ubfab_urma_poll_jfc(jfc, 1, &cr);
		}
		if (!n) {
			n = ubfab_urma_wait_jfc(jfce, 1, 10000, &ready);
			err = n < 0 ? n :
			      n != 1 || ready != jfc ? -ETIMEDOUT : 0;
			i--;
			continue;
		}
		if (n < 0) {
			err = n;
			break;
		}
		p = (uint8_t *)seg->addr + AT(i);
		for (j = 0; j < BLOCK(i) && p[j] == pattern(i, j); j++)
			;
		if (cr.status || cr.opcode != UBFAB_OP_WRITE_IMM ||
		    !(cr.flags & UBFAB_URMA_CR_IMM) ||
		    cr.imm_data != (uint32_t)i ||
		    cr.completion_len != BLOCK(i) || cr.src_eid != writer ||
		    j != BLOCK(i)) {
			fprintf(stderr, "write_notify: block %d: status %u opcode %u imm %u len %u from %u, byte %u of %u\n",
				i, cr.status, cr.opcode, cr.imm_data,
				cr.completion_len, cr.src_eid, j, BLOCK(i));
			err = -EBADMSG;
			break;
		}
		if (i + 16 < blocks) {
			rwr.user_ctx = i + 16;
			err = ubfab_urma_post_jfr_wr(jfr, &rwr, NULL);
		}
	}
	ubfab_urma_unregister_seg(ctx, seg);
	if (jfr)
		ubfab_urma_delete_jfr(jfr);
	if (jfc)
		ubfab_urma_delete_jfc(jfc);
	ubfab_urma_delete_jfce(jfce);
	ubfab_urma_delete_context(ctx);
	if (err)
		return fail("target", "block", err);
	printf("write_notify: %d blocks ok\n", blocks);
	return 0;
}

static int writer(const char *dev, int blocks, int wfd, int rfd)
{
	struct ubfab_urma_context *ctx;
	struct ubfab_urma_jfc *jfc = NULL;
	struct ubfab_urma_jfs *jfs = NULL;
	struct ubfab_urma_seg *src = NULL;
	struct ubfab_urma_tseg *dst = NULL;
	struct ubfab_urma_jfs_wr wr = { .opcode = UBFAB_OP_WRITE_IMM };
	struct ubfab_urma_tjfr tjfr;
	struct ubfab_urma_cr cr;
	struct names nm;
	int i, n, err;
	uint32_t j;

	err = ubfab_urma_create_context(dev, &ctx);
	if (err)
		return fail("writer", dev, err);
	err = ubfab_urma_create_jfc(ctx, NULL, &jfc);
	if (!err)
		err = ubfab_urma_create_jfs(ctx, 16, jfc, &jfs);
	if (!err)
		err = ubfab_urma_register_seg(ctx, SEG_LEN, UBFAB_SEG_READ,
					      TOKEN, &src);
	if (!err && (read(rfd, &nm, sizeof(nm)) != sizeof(nm) ||
		     write(wfd, &ctx->eid, sizeof(ctx->eid)) !=
		     sizeof(ctx->eid)))
		err = -EPIPE;
	if (!err)
		err = ubfab_urma_import_seg(ctx, nm.eid, nm.token_id, TOKEN,
					    UBFAB_SEG_WRITE, &dst);
	if (!err)
		ubfab_urma_import_jfr(nm.eid, nm.jfr, TOKEN, &tjfr);
	/* one at a time: the target reposts its receives as it goes */
	for (i = 0; !err && i < blocks; i++) {
		for (j = 0; j < BLOCK(i); j++)
			((uint8_t *)src->addr)[AT(i) + j] = pattern(i, j);
		wr.user_ctx = i;
		wr.local = src->offset + AT(i);
		wr.len = BLOCK(i);
		wr.tseg = dst;
		wr.remote = AT(i);
		wr.tjfr = &tjfr;
		wr.imm = i;
		err = ubfab_urma_post_jfs_wr(jfs, &wr, NULL);
		while (!err && !(n = ubfab_urma_poll_jfc(jfc, 1, &cr)))
			usleep(100);
		if (!err && n < 0)
			err = n;
		if (!err && (cr.status || cr.user_ctx != (uint64_t)i))
			err = -EIO;
	}
	ubfab_urma_unimport_seg(ctx, dst);
	ubfab_urma_unregister_seg(ctx, src);
	if (jfs)
		ubfab_urma_delete_jfs(jfs);
	if (jfc)
		ubfab_urma_delete_jfc(jfc);
	ubfab_urma_delete_context(ctx);
	return err ? fail("writer", "block", err) : 0;
}

int main(int argc, char **argv)
{
	int blocks = argc > 1 ? atoi(argv[1]) : 8, to_w[2], to_t[2], st, rc;
	const char *tdev = argc > 3 ? argv[2] : "npu0";
	const char *wdev = argc > 3 ? argv[3] : "npu1";
	pid_t pid;

	if (blocks < 0 || AT(blocks) > SEG_LEN || pipe(to_w) || pipe(to_t))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid)
		_exit(writer(wdev, blocks, to_t[1], to_w[0]));
	rc = target(tdev, blocks, to_w[1], to_t[0]);
	close(to_w[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		rc = 1;
	return rc;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubfab's liburma-shaped layer (ubfab_urma.h): contexts, segments, JFC,
 * JFCE, JFS, JFR and jetties over the device, queue, receive queue and
 * jetty calls, posting work requests as queue entries and receives,
 * turning completions and receive completions into completion records,
 * and the context's async events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libubfab.h"
#include "ubfab_urma.h"

int ubfab_urma_create_context(const char *dev_name,
			      struct ubfab_urma_context **ctxp)
{
	struct ubfab_urma_context *ctx;
	int err;

	if (!dev_name || !ctxp)
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	err = ubfab_dev_open(dev_name, &ctx->dev);
	if (err) {
		free(ctx);
		return err;
	}
	ctx->eid = ubfab_dev_eid(ctx->dev);
	*ctxp = ctx;
	return 0;
}

void ubfab_urma_delete_context(struct ubfab_urma_context *ctx)
{
	if (!ctx)
		return;
	ubfab_dev_close(ctx->dev);
	free(ctx);
}

int ubfab_urma_register_seg(struct ubfab_urma_context *ctx, uint64_t len,
			    uint32_t rights, uint32_t token_value,
			    struct ubfab_urma_seg **segp)
{
	struct ubfab_urma_seg *seg;
	int err;

	if (!ctx || !segp)
		return -EINVAL;
	seg = calloc(1, sizeof(*seg));
	if (!seg)
		return -ENOMEM;
	seg->len = len;
	seg->token_value = token_value;
	err = ubfab_dev_alloc(ctx->dev, len, &seg->offset);
	if (err)
		goto err_free;
	err = ubfab_dev_map(ctx->dev, seg->offset, len, PROT_READ | PROT_WRITE,
			    &seg->addr);
	if (err)
		goto err_dealloc;
	err = ubfab_dev_export(ctx->dev, seg->offset, len, rights, token_value,
			       &seg->token_id);
	if (err)
		goto err_unmap;
	*segp = seg;
	return 0;

err_unmap:
	ubfab_unmap(seg->addr, len);
err_dealloc:
	ubfab_dev_free(ctx->dev, seg->offset);
err_free:
	free(seg);
	return err;
}

void ubfab_urma_unregister_seg(struct ubfab_urma_context *ctx,
			       struct ubfab_urma_seg *seg)
{
	if (!ctx || !seg)
		return;
	ubfab_dev_unexport(ctx->dev, seg->token_id);
	ubfab_unmap(seg->addr, seg->len);
	ubfab_dev_free(ctx->dev, seg->offset);
	free(seg);
}

int ubfab_urma_import_seg(struct ubfab_urma_context *ctx, uint32_t eid,
			  uint32_t token_id, uint32_t token_value,
			  uint32_t rights, struct ubfab_urma_tseg **tsegp)
{
	struct ubfab_urma_tseg *tseg;
	int err;

	if (!ctx || !tsegp)
		return -EINVAL;
	tseg = calloc(1, sizeof(*tseg));
	if (!tseg)
		return -ENOMEM;
	err = ubfab_dev_import(ctx->dev, eid, token_id, token_value, rights,
			       &tseg->imp);
	if (err) {
		free(tseg);
		return err;
	}
	tseg->eid = eid;
	tseg->token_id = token_id;
	*tsegp = tseg;
	return 0;
}

void ubfab_urma_unimport_seg(struct ubfab_urma_context *ctx,
			     struct ubfab_urma_tseg *tseg)
{
	if (!ctx || !tseg)
		return;
	ubfab_dev_unimport(ctx->dev, tseg->imp.mmap_offset);
	free(tseg);
}

int ubfab_urma_create_jfce(struct ubfab_urma_context *ctx,
			   struct ubfab_urma_jfce **jfcep)
{
	struct ubfab_urma_jfce *jfce;

	if (!ctx || !jfcep)
		return -EINVAL;
	jfce = calloc(1, sizeof(*jfce));
	if (!jfce)
		return -ENOMEM;
	jfce->fd = epoll_create1(EPOLL_CLOEXEC);
	if (jfce->fd < 0) {
		int err = -errno;

		free(jfce);
		return err;
	}
	*jfcep = jfce;
	return 0;
}

void ubfab_urma_delete_jfce(struct ubfab_urma_jfce *jfce)
{
	if (!jfce)
		return;
	close(jfce->fd);
	free(jfce);
}

int ubfab_urma_create_jfc(struct ubfab_urma_context *ctx,
			  struct ubfab_urma_jfce *jfce,
			  struct ubfab_urma_jfc **jfcp)
{
	struct ubfab_urma_jfc *jfc;

	if (!ctx || !jfcp)
		return -EINVAL;
	jfc = calloc(1, sizeof(*jfc));
	if (!jfc)
		return -ENOMEM;
	jfc->ctx = ctx;
	jfc->jfce = jfce;
	*jfcp = jfc;
	return 0;
}

int ubfab_urma_delete_jfc(struct ubfab_urma_jfc *jfc)
{
	if (!jfc)
		return -EINVAL;
	if (jfc->jfs_q || jfc->jfr_rq)
		return -EBUSY;
	free(jfc);
	return 0;
}

/*
 * Put @fd of a queue of @jfc into its JFCE, or take it out (@op): added
 * disarmed (no events), as ubfab_urma_rearm_jfc() arms it.
 */
static int jfce_ctl(struct ubfab_urma_jfc *jfc, int op, int fd)
{
	struct epoll_event ev = { .data.ptr = jfc };

	if (!jfc->jfce)
		return 0;
	if (op == EPOLL_CTL_MOD)
		ev.events = EPOLLIN | EPOLLONESHOT;
	return epoll_ctl(jfc->jfce->fd, op, fd, &ev) ? -errno : 0;
}

/* Make the JFS of @jfc on @ctx: its queue, its descriptor in the JFCE. */
static int jfs_init(struct ubfab_urma_context *ctx, uint32_t depth,
		    struct ubfab_urma_jfc *jfc, struct ubfab_urma_jfs *jfs)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	int err;

	if (!ctx || !jfc || jfc->jfs_q)
		return -EINVAL;
	if (depth)
		attr.sq_entries = depth;
	err = ubfab_queue_create(ctx->dev, &attr, &jfs->q);
	if (err)
		return err;
	err = jfce_ctl(jfc, EPOLL_CTL_ADD, ubfab_queue_fd(jfs->q));
	if (err) {
		ubfab_queue_destroy(jfs->q);
		return err;
	}
	jfc->jfs_q = jfs->q;
	jfs->jfc = jfc;
	jfs->id = jfs->q->id;
	return 0;
}

/* A jetty's JFC has its kernel jetty's channel in the JFCE instead. */
static void jfs_fini(struct ubfab_urma_jfs *jfs)
{
	if (!jfs->jfc->jetty)
		jfce_ctl(jfs->jfc, EPOLL_CTL_DEL, ubfab_queue_fd(jfs->q));
	jfs->jfc->jfs_q = NULL;
	ubfab_queue_destroy(jfs->q);
}

static int jfr_init(struct ubfab_urma_context *ctx, uint32_t depth,
		    uint32_t token, struct ubfab_urma_jfc *jfc,
		    struct ubfab_urma_jfr *jfr)
{
	int err;

	if (!ctx || !jfc || jfc->jfr_rq)
		return -EINVAL;
	err = ubfab_rq_create(ctx->dev, depth ? depth :
			      UBFAB_QUEUE_DEFAULT_ENTRIES, 0, token, &jfr->rq);
	if (err)
		return err;
	err = jfce_ctl(jfc, EPOLL_CTL_ADD, jfr->rq->fd);
	if (err) {
		ubfab_rq_destroy(jfr->rq);
		return err;
	}
	jfc->jfr_rq = jfr->rq;
	jfr->jfc = jfc;
	jfr->id = jfr->rq->id;
	jfr->token = token;
	return 0;
}

static void jfr_fini(struct ubfab_urma_jfr *jfr)
{
	if (!jfr->jfc->jetty)
		jfce_ctl(jfr->jfc, EPOLL_CTL_DEL, jfr->rq->fd);
	jfr->jfc->jfr_rq = NULL;
	ubfab_rq_destroy(jfr->rq);
}

int ubfab_urma_create_jfs(struct ubfab_urma_context *ctx, uint32_t depth,
			  struct ubfab_urma_jfc *jfc,
			  struct ubfab_urma_jfs **jfsp)
{
	struct ubfab_urma_jfs *jfs;
	int err;

	if (!jfsp)
		return -EINVAL;
	jfs = calloc(1, sizeof(*jfs));
	if (!jfs)
		return -ENOMEM;
	err = jfs_init(ctx, depth, jfc, jfs);
	if (err) {
		free(jfs);
		return err;
	}
	*jfsp = jfs;
	return 0;
}

int ubfab_urma_delete_jfs(struct ubfab_urma_jfs *jfs)
{
	if (!jfs)
		return -EINVAL;
	jfs_fini(jfs);
	free(jfs);
	return 0;
}

int ubfab_urma_create_jfr(struct ubfab_urma_context *ctx, uint32_t depth,
			  uint32_t token, struct ubfab_urma_jfc *jfc,
			  struct ubfab_urma_jfr **jfrp)
{
	struct ubfab_urma_jfr *jfr;
	int err;

	if (!jfrp)
		return -EINVAL;
	jfr = calloc(1, sizeof(*jfr));
	if (!jfr)
		return -ENOMEM;
	err = jfr_init(ctx, depth, token, jfc, jfr);
	if (err) {
		free(jfr);
		return err;
	}
	*jfrp = jfr;
	return 0;
}

int ubfab_urma_delete_jfr(struct ubfab_urma_jfr *jfr)
{
	if (!jfr)
		return -EINVAL;
	jfr_fini(jfr);
	free(jfr);
	return 0;
}

/*
 * The JFC of a new kernel jetty waits on the jetty's channel, not on its
 * queues' descriptors: they leave the JFCE, the jetty's comes in
 * (level-triggered: ubfab_urma_wait_jfc() reads its event).
 */
static int jfce_use_jetty(struct ubfab_urma_jfc *jfc, struct ubfab_jetty *j)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = jfc };

	if (jfc->jfce && epoll_ctl(jfc->jfce->fd, EPOLL_CTL_ADD, j->fd, &ev))
		return -errno;
	jfce_ctl(jfc, EPOLL_CTL_DEL, ubfab_queue_fd(jfc->jfs_q));
	jfce_ctl(jfc, EPOLL_CTL_DEL, jfc->jfr_rq->fd);
	jfc->jetty = j;
	return 0;
}

int ubfab_urma_create_jetty(struct ubfab_urma_context *ctx, uint32_t depth,
			    uint32_t token, struct ubfab_urma_jfc *jfc,
			    struct ubfab_urma_jetty **jettyp)
{
	struct ubfab_urma_jetty *jetty;
	int err;

	if (!jettyp)
		return -EINVAL;
	jetty = calloc(1, sizeof(*jetty));
	if (!jetty)
		return -ENOMEM;
	err = jfs_init(ctx, depth, jfc, &jetty->jfs);
	if (err)
		goto err_free;
	err = jfr_init(ctx, depth, token, jfc, &jetty->jfr);
	if (err)
		goto err_jfs;
	err = ubfab_jetty_create(ctx->dev, jetty->jfs.q, jetty->jfr.rq,
				 &jetty->jetty);
	if (err)
		goto err_jfr;
	err = jfce_use_jetty(jfc, jetty->jetty);
	if (err)
		goto err_jetty;
	jetty->ctx = ctx;
	jetty->next = ctx->jetties;
	ctx->jetties = jetty;
	*jettyp = jetty;
	return 0;

err_jetty:
	ubfab_jetty_destroy(jetty->jetty);
err_jfr:
	jfr_fini(&jetty->jfr);
err_jfs:
	jfs_fini(&jetty->jfs);
err_free:
	free(jetty);
	return err;
}

/* -EBUSY while async events of it are not acknowledged. */
int ubfab_urma_delete_jetty(struct ubfab_urma_jetty *jetty)
{
	struct ubfab_urma_jetty **p;
	struct ubfab_urma_jfc *jfc;

	if (!jetty)
		return -EINVAL;
	if (jetty->async_events)
		return -EBUSY;
	for (p = &jetty->ctx->jetties; *p != jetty; p = &(*p)->next)
		;
	*p = jetty->next;
	jfc = jetty->jfs.jfc;
	jfce_ctl(jfc, EPOLL_CTL_DEL, jetty->jetty->fd);
	jfr_fini(&jetty->jfr);
	jfs_fini(&jetty->jfs);
	jfc->jetty = NULL;
	ubfab_jetty_destroy(jetty->jetty);
	free(jetty);
	return 0;
}

void ubfab_urma_import_jfr(uint32_t eid, uint32_t id, uint32_t token,
			   struct ubfab_urma_tjfr *out)
{
	*out = (struct ubfab_urma_tjfr){ .eid = eid, .id = id, .token = token };
}

/* Prepare @sqe as @wr says: 0, or -EINVAL for a request it cannot be. */
static int prep_wr(struct ubfab_sqe *sqe, const struct ubfab_urma_jfs_wr *wr)
{
	const struct ubfab_urma_tjfr *t = wr->tjfr;
	uint64_t remote = 0, local;

	if (wr->tseg)
		remote = ubfab_import_addr(&wr->tseg->imp, wr->remote);
	switch (wr->opcode) {
	case UBFAB_OP_WRITE:
	case UBFAB_OP_READ:
	case UBFAB_OP_ATOMIC:
		if (!wr->tseg)
			return -EINVAL;
		if (wr->opcode == UBFAB_OP_WRITE)
			ubfab_prep_write(sqe, wr->local, remote, wr->len);
		else if (wr->opcode == UBFAB_OP_READ)
			ubfab_prep_read(sqe, wr->local, remote, wr->len);
		else
			ubfab_prep_atomic(sqe, wr->atomic_op, remote,
					  wr->value, wr->compare);
		break;
	case UBFAB_OP_WRITE_IMM:
		if (!wr->tseg || !t)
			return -EINVAL;
		ubfab_prep_write_imm(sqe, wr->local, remote, wr->len, t->id,
				     t->token, wr->imm);
		break;
	case UBFAB_OP_SEND:
	case UBFAB_OP_SEND_IMM:
		if (!t)
			return -EINVAL;
		/* an empty message has no local range */
		local = wr->len ? wr->local : 0;
		if (wr->opcode == UBFAB_OP_SEND)
			ubfab_prep_send(sqe, local, wr->len, t->eid, t->id,
					t->token);
		else
			ubfab_prep_send_imm(sqe, local, wr->len, t->eid, t->id,
					    t->token, wr->imm);
		break;
	default:
		return -EINVAL;
	}
	ubfab_sqe_set_data(sqe, wr->user_ctx);
	if (wr->fence)
		ubfab_sqe_set_flags(sqe, UBFAB_SQE_FENCE);
	return 0;
}

int ubfab_urma_post_jfs_wr(struct ubfab_urma_jfs *jfs,
			   struct ubfab_urma_jfs_wr *wr,
			   struct ubfab_urma_jfs_wr **bad_wr)
{
	struct ubfab_sqe entry, *sqe;
	int err = 0, r;

	if (!jfs)
		return -EINVAL;
	for (; wr; wr = wr->next) {
		/* prepared aside, so that a bad request takes no slot */
		err = prep_wr(&entry, wr);
		if (err)
			break;
		sqe = ubfab_queue_get_sqe(jfs->q);
		if (!sqe) {
			err = -EAGAIN;
			break;
		}
		*sqe = entry;
	}
	if (err && bad_wr)
		*bad_wr = wr;
	/* in the error state, the records say UBFAB_CQE_FLUSHED */
	r = ubfab_queue_submit(jfs->q);
	if (r < 0 && r != -EIO && !err)
		err = r;
	return err;
}

int ubfab_urma_post_jfr_wr(struct ubfab_urma_jfr *jfr,
			   struct ubfab_urma_jfr_wr *wr,
			   struct ubfab_urma_jfr_wr **bad_wr)
{
	int err = 0;

	if (!jfr)
		return -EINVAL;
	for (; wr; wr = wr->next) {
		err = ubfab_rq_post(jfr->rq, wr->local, wr->len, wr->user_ctx);
		if (err)
			break;
	}
	if (err && bad_wr)
		*bad_wr = wr;
	return err;
}

static void cr_of_cqe(struct ubfab_urma_cr *cr, const struct ubfab_cqe *c)
{
	*cr = (struct ubfab_urma_cr){
		.status = c->status,
		.opcode = c->opcode,
		.user_ctx = c->user_data,
		.completion_len = c->bytes,
		.result = c->result,
		.model_ns = c->model_ns,
	};
}

static void cr_of_rcqe(struct ubfab_urma_cr *cr, const struct ubfab_rcqe *c)
{
	*cr = (struct ubfab_urma_cr){
		.status = c->status,
		.opcode = c->opcode,
		.flags = UBFAB_URMA_CR_RECV |
			 (c->flags & UBFAB_RCQE_IMM ? UBFAB_URMA_CR_IMM : 0),
		.user_ctx = c->user_data,
		.completion_len = c->bytes,
		.imm_data = c->imm,
		.src_eid = c->src_eid,
		.model_ns = c->model_ns,
	};
}

int ubfab_urma_poll_jfc(struct ubfab_urma_jfc *jfc, int cr_cnt,
			struct ubfab_urma_cr *cr)
{
	struct ubfab_rcqe rc[16];
	struct ubfab_cqe *cqe;
	int n = 0, r, i;

	if (!jfc || !cr || cr_cnt < 0)
		return -EINVAL;
	/* the send side's first, then the receives */
	while (jfc->jfs_q && n < cr_cnt &&
	       (cqe = ubfab_queue_peek_cqe(jfc->jfs_q))) {
		cr_of_cqe(&cr[n++], cqe);
		ubfab_queue_cqe_seen(jfc->jfs_q);
	}
	while (jfc->jfr_rq && n < cr_cnt) {
		r = ubfab_rq_reap(jfc->jfr_rq, rc,
				  cr_cnt - n < 16 ? cr_cnt - n : 16, 0);
		if (r < 0)
			return n ? n : r;
		if (!r)
			break;
		for (i = 0; i < r; i++)
			cr_of_rcqe(&cr[n++], &rc[i]);
	}
	return n;
}

int ubfab_urma_rearm_jfc(struct ubfab_urma_jfc *jfc)
{
	int err = 0;

	if (!jfc || !jfc->jfce)
		return -EINVAL;
	if (jfc->jetty)
		return ubfab_jetty_rearm(jfc->jetty,
					 UBFAB_JETTY_SEND | UBFAB_JETTY_RECV);
	if (jfc->jfs_q)
		err = jfce_ctl(jfc, EPOLL_CTL_MOD, ubfab_queue_fd(jfc->jfs_q));
	if (!err && jfc->jfr_rq)
		err = jfce_ctl(jfc, EPOLL_CTL_MOD, jfc->jfr_rq->fd);
	return err;
}

int ubfab_urma_wait_jfc(struct ubfab_urma_jfce *jfce, int jfc_cnt,
			int timeout_ms, struct ubfab_urma_jfc **jfc)
{
	struct epoll_event ev[16];
	int n, i, j, got = 0;

	if (!jfce || !jfc || jfc_cnt <= 0 || timeout_ms < -1)
		return -EINVAL;
	n = epoll_wait(jfce->fd, ev, jfc_cnt < 16 ? jfc_cnt : 16, timeout_ms);
	if (n < 0)
		return -errno;
	/* a JFC whose JFS and JFR both fired is reported once */
	for (i = 0; i < n; i++) {
		struct ubfab_urma_jfc *c = ev[i].data.ptr;
		struct ubfab_jetty_event jev;

		/* a jetty's event is taken; another thread may have first */
		if (c->jetty && ubfab_jetty_wait(c->jetty, &jev, 0))
			continue;
		for (j = 0; j < got && jfc[j] != c; j++)
			;
		if (j == got)
			jfc[got++] = c;
	}
	return got;
}

/*
 * The context's device's next event, waiting for it; a jetty's names the
 * jetty, which cannot be deleted until the event is acknowledged.
 */
int ubfab_urma_get_async_event(struct ubfab_urma_context *ctx,
			       struct ubfab_urma_async_event *event)
{
	struct ubfab_urma_jetty *jetty = NULL;
	struct ubfab_event ev;
	int err;

	if (!ctx || !event)
		return -EINVAL;
	err = ubfab_dev_event_wait(ctx->dev, &ev, -1);
	if (err)
		return err;
	if (ev.type == UBFAB_EVENT_JETTY_SQ_ERR ||
	    ev.type == UBFAB_EVENT_JETTY_RCQ_FULL ||
	    ev.type == UBFAB_EVENT_JETTY_RESET) {
		for (jetty = ctx->jetties; jetty; jetty = jetty->next)
			if (jetty->jetty->id == ev.jetty_id)
				break;
	}
	if (jetty)
		jetty->async_events++;
	*event = (struct ubfab_urma_async_event){
		.ctx = ctx,
		.jetty = jetty,
		.event_type = ev.type,
		.event = ev,
	};
	return 0;
}

void ubfab_urma_ack_async_event(struct ubfab_urma_async_event *event)
{
	if (event && event->jetty) {
		event->jetty->async_events--;
		event->jetty = NULL;
	}
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench queue send: two-sided messages (SEND, SEND_IMM into receive
 * queues, the real stack's JFR). Owns the two entities' receive queues,
 * queues and buffers, the ping-pong of SEND_IMM both ways (half a round
 * trip, host and modeled: median and 99th percentile) and the rate of
 * SENDs streamed into posted receives that are reposted as they complete
 * (host messages/s and modeled ns per message), from 8 B to 64 KiB; their
 * table and JSON, which queue.c puts beside its own.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "ubbench.h"

/* Message sizes, both measurements. */
static const uint32_t send_sizes[] = { 8, 64, 512, 4 * KiB, 64 * KiB };

#define NR_SEND_SIZES	ARRAY_SIZE(send_sizes)
#define SEND_MAX	(64 * KiB)

/* Rate: batch sizes (SENDs a submission), SEND_RATE_OPS a repetition. */
static const unsigned int send_batches[] = { 1, 16 };

#define NR_SEND_BATCHES	ARRAY_SIZE(send_batches)
#define SEND_RATE_OPS	512

/* Ping-pong: SEND_PP_TRIPS round trips a repetition. */
#define SEND_PP_TRIPS	200

/*
 * Each entity: a queue of SEND_SQ entries, a receive queue of SEND_RQ
 * receives (its RCQ as deep), and one allocation holding the buffer it
 * sends from and the SEND_RQ buffers of its receives, SEND_MAX bytes each.
 */
#define SEND_SQ		128
#define SEND_RQ		64
#define SEND_REGION	((SEND_RQ + 1) * SEND_MAX)
/* A receive's buffer: its index's slot after the send buffer. */
#define RECV_BUF(i)	((uint64_t)((i) + 1) * SEND_MAX)

enum send_side { SIDE_IMPORTER, SIDE_EXPORTER, NR_SIDES };

/* An entity's half: its device, queue, receive queue and memory. */
struct send_side_res {
	struct ubfab_dev *dev;
	struct ubfab_queue *q;
	struct ubfab_rq *rq;
	uint64_t off;		/* its allocation */
	char *mem;		/* mapped */
	uint64_t clock;		/* the queue's modeled clock, ns */
};

struct send_lat_figures {
	struct figure p50;		/* us, host */
	struct figure p99;
	struct figure model_p50;	/* ns, modeled */
	struct figure model_p99;
};

struct send_rate_figures {
	struct figure rate;		/* messages/s, host */
	struct figure model_ns;		/* modeled ns per message */
};

struct send_bench {
	const char *skipped;	/* why nothing was measured, or NULL */
	struct send_side_res side[NR_SIDES];
	struct send_lat_figures lat[NR_SEND_SIZES];
	struct send_rate_figures rate[NR_SEND_BATCHES][NR_SEND_SIZES];
};

struct send_rate_arg {
	unsigned int batch;
	uint32_t bytes;
};

/* Whether *@tail has moved on from *@head (a ring's acquire). */
static bool ring_ready(const uint32_t *tail, const uint32_t *head)
{
	return __atomic_load_n(tail, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(head, __ATOMIC_RELAXED);
}

/*
 * Spins until the CQ of @s's queue (with @rcq: its RCQ) has an entry,
 * yielding now and then for the queues' workers. 0, or -ETIMEDOUT after
 * SPIN_MAX_NS.
 */
static int side_poll(const struct send_side_res *s, bool rcq)
{
	const uint32_t *tail = rcq ? s->rq->rcq_tail : s->q->cq_tail;
	const uint32_t *head = rcq ? s->rq->rcq_head : s->q->cq_head;
	unsigned int spins = 0;
	uint64_t start = 0;

	while (!ring_ready(tail, head)) {
		cpu_relax();
		if (++spins % SPIN_YIELD)
			continue;
		if (!start) {
			start = now_ns();
		} else if (now_ns() - start > SPIN_MAX_NS) {
			fprintf(stderr, "ubbench: send: no %s on %s after %llu s\n",
				rcq ? "receive completion" : "completion",
				ubfab_dev_name(s->dev),
				SPIN_MAX_NS / 1000000000ULL);
			return -ETIMEDOUT;
		}
		sched_yield();
	}
	return 0;
}

/*
 * Consumes the completions of @s's queue there are, each of which must be
 * OK; the queue's clock follows the last. How many, or -EIO.
 */
static int cq_take(struct send_side_res *s)
{
	struct ubfab_cqe cqe[16];
	uint32_t n, i;
	int done = 0;

	while ((n = ubfab_queue_reap(s->q, cqe, ARRAY_SIZE(cqe)))) {
		for (i = 0; i < n; i++) {
			if (cqe[i].status == UBFAB_CQE_OK)
				continue;
			fprintf(stderr, "ubbench: send: a message of %s completed with status %u at the sender\n",
				ubfab_dev_name(s->dev), cqe[i].status);
			return -EIO;
		}
		s->clock = cqe[n - 1].model_ns;
		done += n;
	}
	return done;
}

/*
 * Consumes the receive completions of @s there are, each of which must be
 * OK with @bytes from @src (and, with @imm, immediate data), reposting
 * each receive's buffer; *@last gets the last one. How many, or a
 * negative errno (printed).
 */
static int rcq_take(struct send_side_res *s, uint32_t bytes, uint32_t src,
		    bool imm, struct ubfab_rcqe *last)
{
	struct ubfab_rcqe rc[16];
	int n, i, done = 0, err;

	while ((n = ubfab_rq_reap(s->rq, rc, ARRAY_SIZE(rc), 0)) > 0) {
		for (i = 0; i < n; i++) {
			if (rc[i].status != UBFAB_CQE_OK ||
			    rc[i].bytes != bytes || rc[i].src_eid != src ||
			    !(rc[i].flags & UBFAB_RCQE_IMM) != !imm) {
				fprintf(stderr, "ubbench: send: %s received status %u, %u bytes of %u from eid %u (%u expected)\n",
					ubfab_dev_name(s->dev), rc[i].status,
					rc[i].bytes, bytes, rc[i].src_eid, src);
				return -EIO;
			}
			err = ubfab_rq_post(s->rq, s->off +
					    RECV_BUF(rc[i].user_data),
					    SEND_MAX, rc[i].user_data);
			if (err) {
				fail("reposting a receive", err);
				return err;
			}
		}
		*last = rc[n - 1];
		done += n;
	}
	return n < 0 ? n : done;
}

/* Posts SEND (or SEND_IMM with @imm) of @bytes from @from to @to. */
static void post_send(struct send_side_res *from,
		      const struct send_side_res *to, uint32_t bytes,
		      const uint32_t *imm)
{
	struct ubfab_sqe *sqe = ubfab_queue_get_sqe(from->q);
	uint32_t eid = ubfab_dev_eid(to->dev);

	if (imm)
		ubfab_prep_send_imm(sqe, from->off, bytes, eid, to->rq->id,
				    TOKEN_VALUE, *imm);
	else
		ubfab_prep_send(sqe, from->off, bytes, eid, to->rq->id,
				TOKEN_VALUE);
}

static int submit(struct send_side_res *s)
{
	int err = ubfab_queue_submit(s->q);

	if (err < 0)
		fail("queue submission", err);
	return err < 0 ? err : 0;
}

/*
 * One leg of the ping-pong: SEND_IMM @imm of @bytes from @from to @to,
 * done when @to sees it (the sender's completion is leg_done()'s). The
 * modeled time, the receive's arrival less the sender's clock before it,
 * into *@model.
 */
static int leg(struct send_side_res *from, struct send_side_res *to,
	       uint32_t bytes, uint32_t imm, double *model)
{
	uint64_t before = from->clock;
	struct ubfab_rcqe rc = { 0 };
	int err, n;

	post_send(from, to, bytes, &imm);
	err = submit(from);
	err = err ? err : side_poll(to, true);
	/* one message in flight: one receive completion */
	n = err ? err : rcq_take(to, bytes, ubfab_dev_eid(from->dev), true,
				 &rc);
	if (n < 0)
		return n;
	if (rc.imm != imm) {
		fprintf(stderr, "ubbench: send: immediate %u received, %u sent\n",
			rc.imm, imm);
		return -EIO;
	}
	*model = rc.model_ns > before ? rc.model_ns - before : 0;
	return 0;
}

/* The sender's completion of a leg: waited for after the leg's timing. */
static int leg_done(struct send_side_res *s)
{
	int n = side_poll(s, false);

	n = n ? n : cq_take(s);
	return n < 0 ? n : 0;
}

/*
 * SEND_PP_TRIPS round trips of a SEND_IMM of @arg's bytes, importer to
 * exporter and back, each timed from before the first is posted to the
 * second seen in the importer's RCQ; half of each, host (us) and modeled
 * (ns): median and 99th percentile.
 */
static int pp_sample(struct bench *b, const void *arg, double *values)
{
	struct send_side_res *a = &b->send->side[SIDE_IMPORTER];
	struct send_side_res *e = &b->send->side[SIDE_EXPORTER];
	uint32_t bytes = *(const uint32_t *)arg;
	static double us[SEND_PP_TRIPS], ns[SEND_PP_TRIPS];
	double there, back;
	unsigned int i;
	uint64_t t0;
	int err;

	for (i = 0; i < SEND_PP_TRIPS; i++) {
		t0 = now_ns();
		err = leg(a, e, bytes, 2 * i, &there);
		err = err ? err : leg(e, a, bytes, 2 * i + 1, &back);
		us[i] = (now_ns() - t0) / 2e3;
		ns[i] = (there + back) / 2;
		err = err ? err : leg_done(a);
		err = err ? err : leg_done(e);
		if (err)
			return err;
	}
	values[0] = median(us, SEND_PP_TRIPS);
	values[1] = percentile(us, SEND_PP_TRIPS, 99);
	values[2] = median(ns, SEND_PP_TRIPS);
	values[3] = percentile(ns, SEND_PP_TRIPS, 99);
	return 0;
}

/*
 * SEND_RATE_OPS SENDs of @arg's bytes from the importer to the exporter,
 * its batch a submission, never more in flight than receives posted (so
 * that no message finds the receiver not ready); the receives reposted as
 * they complete. Host messages/s and modeled ns per message.
 */
static int rate_sample(struct bench *b, const void *arg, double *values)
{
	const struct send_rate_arg *ra = arg;
	struct send_side_res *a = &b->send->side[SIDE_IMPORTER];
	struct send_side_res *e = &b->send->side[SIDE_EXPORTER];
	unsigned int posted = 0, sent = 0, received = 0, n, i;
	uint32_t src = ubfab_dev_eid(a->dev);
	uint64_t t0 = now_ns(), clock0 = a->clock;
	struct ubfab_rcqe rc;
	int err = 0, r;

	while (!err && (sent < SEND_RATE_OPS || received < SEND_RATE_OPS)) {
		n = SEND_RATE_OPS - posted < ra->batch ?
		    SEND_RATE_OPS - posted : ra->batch;
		if (n && posted + n - received <= SEND_RQ) {
			for (i = 0; i < n; i++)
				post_send(a, e, ra->bytes, NULL);
			posted += n;
			err = submit(a);
			continue;
		}
		if (sent < posted)
			err = side_poll(a, false);
		r = err ? 0 : cq_take(a);
		err = r < 0 ? r : err;
		sent += r > 0 ? r : 0;
		r = err ? 0 : rcq_take(e, ra->bytes, src, false, &rc);
		err = r < 0 ? r : err;
		received += r > 0 ? r : 0;
	}
	if (err)
		return err;
	values[0] = SEND_RATE_OPS * 1e9 / (double)(now_ns() - t0);
	values[1] = (double)(a->clock - clock0) / SEND_RATE_OPS;
	return 0;
}

/*
 * An entity's half: its allocation, mapped; its queue; its receive queue
 * with every receive posted.
 */
static int side_setup(struct send_side_res *s, struct ubfab_dev *dev)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	unsigned int i;
	int err;

	s->dev = dev;
	err = ubfab_dev_alloc(dev, SEND_REGION, &s->off);
	if (err) {
		fail("send: alloc", err);
		return err;
	}
	s->mem = map_apart(SEND_REGION, ubfab_dev_fd(dev), s->off);
	if (!s->mem) {
		err = -errno;
		fail("send: map", err);
		return err;
	}
	attr.sq_entries = SEND_SQ;
	err = ubfab_queue_create(dev, &attr, &s->q);
	if (err) {
		fail("send: creating a queue", err);
		return err;
	}
	err = ubfab_rq_create(dev, SEND_RQ, 0, TOKEN_VALUE, &s->rq);
	/* a module from before messages: send_run() skips, with a message */
	if (err == -ENOTTY)
		return err;
	if (err) {
		fail("send: creating a receive queue", err);
		return err;
	}
	for (i = 0; i < SEND_RQ && !err; i++)
		err = ubfab_rq_post(s->rq, s->off + RECV_BUF(i), SEND_MAX, i);
	if (err)
		fail("send: posting a receive", err);
	return err;
}

/*
 * Whether a message moves: a SEND_IMM of a pattern from the importer,
 * found in the exporter's first receive buffer.
 */
static int send_check(struct send_bench *sb)
{
	struct send_side_res *a = &sb->side[SIDE_IMPORTER];
	struct send_side_res *e = &sb->side[SIDE_EXPORTER];
	double model;
	size_t i;
	int err;

	for (i = 0; i < SEND_MAX; i++)
		a->mem[i] = (char)(i * 7 + 1);
	err = leg(a, e, SEND_MAX, 1, &model);
	err = err ? err : leg_done(a);
	if (!err && memcmp(e->mem + RECV_BUF(0), a->mem, SEND_MAX)) {
		fprintf(stderr, "ubbench: send: a SEND_IMM did not land in the receive's buffer\n");
		err = -EIO;
	}
	return err;
}

static void send_teardown(struct send_bench *sb)
{
	unsigned int i;

	for (i = 0; i < NR_SIDES; i++) {
		ubfab_rq_destroy(sb->side[i].rq);
		ubfab_queue_destroy(sb->side[i].q);
		sb->side[i].rq = NULL;
		sb->side[i].q = NULL;
	}
}

int send_run(struct bench *b)
{
	struct send_rate_arg ra[NR_SEND_BATCHES][NR_SEND_SIZES];
	struct send_bench *sb;
	struct figure *figs[4];
	unsigned int i, k;
	int err;

	sb = calloc(1, sizeof(*sb));
	if (!sb) {
		fail("allocating the send figures", -ENOMEM);
		return -ENOMEM;
	}
	b->send = sb;
	err = side_setup(&sb->side[SIDE_IMPORTER], b->importer);
	err = err ? err : side_setup(&sb->side[SIDE_EXPORTER], b->exporter);
	if (err == -ENOTTY) {
		sb->skipped = "the module has no receive queues";
		fprintf(stderr, "ubbench: queue send: skipped: %s\n",
			sb->skipped);
		send_teardown(sb);
		return 0;
	}
	err = err ? err : send_check(sb);
	for (i = 0; !err && i < NR_SEND_SIZES; i++) {
		figs[0] = &sb->lat[i].p50;
		figs[1] = &sb->lat[i].p99;
		figs[2] = &sb->lat[i].model_p50;
		figs[3] = &sb->lat[i].model_p99;
		err = measure(b, pp_sample, &send_sizes[i], figs, 4);
	}
	for (k = 0; !err && k < NR_SEND_BATCHES; k++) {
		for (i = 0; !err && i < NR_SEND_SIZES; i++) {
			ra[k][i] = (struct send_rate_arg){ send_batches[k],
							   send_sizes[i] };
			figs[0] = &sb->rate[k][i].rate;
			figs[1] = &sb->rate[k][i].model_ns;
			err = measure(b, rate_sample, &ra[k][i], figs, 2);
		}
	}
	send_teardown(sb);
	if (err)
		fprintf(stderr, "ubbench: queue send: measurement failed\n");
	return err;
}

void send_print(const struct bench *b)
{
	const struct send_bench *sb = b->send;
	unsigned int i, k;
	char name[24];

	if (sb->skipped) {
		printf("\nsend/receive: skipped: %s\n", sb->skipped);
		return;
	}
	printf("\nsend/receive: %s and %s, a queue (SQ %d) and a receive queue (%d receives of %lu KiB, reposted) each\n",
	       ubfab_dev_name(b->importer), ubfab_dev_name(b->exporter),
	       SEND_SQ, SEND_RQ, SEND_MAX / KiB);
	printf("latency: SEND_IMM ping-pong, half a round trip, %d round trips a repetition\n",
	       SEND_PP_TRIPS);
	printf("  %-8s %10s %10s %14s %14s\n", "bytes", "median us", "p99 us",
	       "model med ns", "model p99 ns");
	for (i = 0; i < NR_SEND_SIZES; i++) {
		tool_fmt_size(name, sizeof(name), send_sizes[i], " ");
		printf("  %-8s %10.1f %10.1f %14.0f %14.0f\n", name,
		       sb->lat[i].p50.median, sb->lat[i].p99.median,
		       sb->lat[i].model_p50.median,
		       sb->lat[i].model_p99.median);
	}
	printf("message rate: SENDs into posted receives, %d a repetition\n",
	       SEND_RATE_OPS);
	printf("  %-6s %-8s %12s %14s\n", "batch", "bytes", "msgs/s",
	       "model ns/msg");
	for (k = 0; k < NR_SEND_BATCHES; k++) {
		for (i = 0; i < NR_SEND_SIZES; i++) {
			tool_fmt_size(name, sizeof(name), send_sizes[i], " ");
			printf("  %-6u %-8s %12.0f %14.1f\n", send_batches[k],
			       name, sb->rate[k][i].rate.median,
			       sb->rate[k][i].model_ns.median);
		}
	}
}

void send_json(const struct bench *b, struct json *j)
{
	const struct send_bench *sb = b->send;
	unsigned int i, k;

	json_break(j);
	json_object_begin(j, "send");
	if (sb->skipped) {
		json_string(j, "skipped", sb->skipped);
		json_object_end(j);
		return;
	}
	json_uint(j, "sq_entries", SEND_SQ);
	json_uint(j, "rq_entries", SEND_RQ);
	json_uint(j, "recv_bytes", SEND_MAX);
	json_break(j);
	json_object_begin(j, "latency");
	json_string(j, "unit", "us");
	json_string(j, "model_unit", "ns");
	json_uint(j, "round_trips", SEND_PP_TRIPS);
	json_array_begin(j, "sizes");
	for (i = 0; i < NR_SEND_SIZES; i++) {
		json_break(j);
		json_object_begin(j, NULL);
		json_uint(j, "bytes", send_sizes[i]);
		json_figure(j, "p50", &sb->lat[i].p50, b->iters);
		json_figure(j, "p99", &sb->lat[i].p99, b->iters);
		json_figure(j, "model_p50", &sb->lat[i].model_p50, b->iters);
		json_figure(j, "model_p99", &sb->lat[i].model_p99, b->iters);
		json_object_end(j);
	}
	json_break(j);
	json_array_end(j);
	json_object_end(j);
	json_break(j);
	json_object_begin(j, "rate");
	json_string(j, "unit", "msgs/s");
	json_string(j, "model_unit", "ns");
	json_uint(j, "ops", SEND_RATE_OPS);
	json_array_begin(j, "batches");
	for (k = 0; k < NR_SEND_BATCHES; k++) {
		json_break(j);
		json_object_begin(j, NULL);
		json_uint(j, "batch", send_batches[k]);
		json_array_begin(j, "sizes");
		for (i = 0; i < NR_SEND_SIZES; i++) {
			json_break(j);
			json_object_begin(j, NULL);
			json_uint(j, "bytes", send_sizes[i]);
			json_figure(j, "rate", &sb->rate[k][i].rate, b->iters);
			json_figure(j, "model_ns", &sb->rate[k][i].model_ns,
				    b->iters);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_break(j);
	json_array_end(j);
	json_object_end(j);
	json_object_end(j);
}

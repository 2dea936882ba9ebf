// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench queue: the NPU queues. The importer's queues move data to and
 * from a segment the exporter exports: WRITE and READ bandwidth from 64 B
 * to 4 MiB against memcpy between the same memory, the rate of 64-byte
 * WRITEs at several batch sizes with the doorbell and in polling mode
 * against io_uring NOPs (uring.c), the latency of an 8-byte WRITE, and
 * what the fabric model costs those 64-byte WRITEs (the rate with the
 * model on against the rate with it off, param.c switching it); the
 * targets of the queue issue and of the model's; their table and JSON,
 * with scale.c's (a queue per NPU die at once) and send.c's (two-sided
 * messages) where they ran.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "num.h"
#include "ubbench.h"

/*
 * The memory: QREGION bytes of the importer (local) and a segment of
 * QREGION bytes of the exporter, imported and mapped by the importer (the
 * window, both mapped apart), so that memcpy moves between the very
 * pages the queue does.
 */
#define QREGION		(16 * MiB)
/* Queues: SQ depth (the CQ is twice as deep), polling time when idle. */
#define QDEPTH		128
#define POLL_IDLE_US	1000

/*
 * Bandwidth: blocks from 64 B to 4 MiB, in turns of memcpy and of the
 * queue over slices of BW_TURN_BLOCKS blocks (at most BW_SLICE bytes, at
 * least one block) until a repetition has lasted BW_MIN_NS or made
 * MEDIAN_MAX pairs. The queue posts BW_BATCH entries a doorbell (the
 * engine's round budget); a slice of half the region keeps several large
 * blocks in flight, as a bandwidth test should.
 */
static const size_t bw_blocks[] = {
	64, 256, 1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB,
	4 * MiB,
};

#define NR_BW_BLOCKS	ARRAY_SIZE(bw_blocks)
#define BW_TURN_BLOCKS	256
#define BW_SLICE	(8 * MiB)
#define BW_MIN_NS	100000000ULL
#define BW_BATCH	64

/* Message rate: 64-byte WRITEs, RATE_TURN_OPS a turn, over RATE_SPAN. */
static const unsigned int rate_batches[] = { 1, 16, 64 };

#define NR_RATE_BATCHES	ARRAY_SIZE(rate_batches)
#define RATE_BYTES	64
#define RATE_SPAN	(64 * KiB)
#define RATE_TURN_OPS	1024
#define RATE_MIN_NS	100000000ULL

/*
 * The model's cost: 64-byte WRITEs as the rate's, at these batch sizes, in
 * rounds of two halves, one with the model on and one with it off; each
 * half starts with COST_WARM_OPS untimed entries on each queue; at least
 * COST_MIN_NS a repetition.
 */
static const unsigned int cost_batches[] = { 1, 16 };

#define NR_COST_BATCHES	ARRAY_SIZE(cost_batches)
#define COST_WARM_OPS	128
#define COST_MIN_NS	200000000ULL

/* Latency: LAT_OPS 8-byte WRITEs a repetition, one at a time. */
#define LAT_BYTES	8
#define LAT_OPS		1000

/* The targets of the queue issue. */
#define TARGET_WRITE_BLOCK	(1 * MiB)
#define TARGET_WRITE_RATIO	0.9	/* WRITE / memcpy, at least */
#define TARGET_RATE_BATCH	16
#define TARGET_DOORBELL_RATIO	0.5	/* doorbell / NOP, at least */
#define TARGET_POLLING_RATIO	1.0	/* polling / NOP, above */
/* And of the model's issue: each 64-byte rate, model on / off, at least. */
#define TARGET_COST_RATIO	0.9

enum bw_dir { BW_WRITE, BW_READ, NR_BW_DIRS };
enum rate_mode { RATE_NOP, RATE_DOORBELL, RATE_POLLING, NR_RATE_MODES };
enum lat_mode { LAT_DOORBELL, LAT_POLLING, NR_LAT_MODES };
enum cost_state { COST_OFF, COST_ON, NR_COST_STATES };
/* The queues of the rate's modes: RATE_DOORBELL and on, less RATE_DOORBELL. */
#define NR_QUEUE_MODES	(NR_RATE_MODES - RATE_DOORBELL)

static const char *const bw_keys[NR_BW_DIRS] = { "write", "read" };
static const char *const bw_names[NR_BW_DIRS] = { "WRITE", "READ" };
static const char *const rate_keys[NR_RATE_MODES] = {
	"uring_nop", "doorbell", "polling",
};

static const char *const lat_keys[NR_LAT_MODES] = { "doorbell", "polling" };
static const char *const cost_keys[NR_COST_STATES] = { "off", "on" };

struct bw_figures {
	struct figure queue;	/* GB/s */
	struct figure memcpy;	/* GB/s */
	struct figure ratio;	/* queue / memcpy */
};

struct rate_figures {
	struct figure rate[NR_RATE_MODES];	/* ops/s */
	struct figure ratio[NR_RATE_MODES];	/* to RATE_NOP; not RATE_NOP */
};

struct lat_figures {
	struct figure p50;	/* us */
	struct figure p99;	/* us */
};

/* Indexed by rate mode less RATE_DOORBELL: the doorbell, polling. */
struct cost_figures {
	struct figure rate[NR_COST_STATES][NR_QUEUE_MODES];	/* ops/s */
	struct figure ratio[NR_QUEUE_MODES];			/* on / off */
};

struct queue_bench {
	unsigned int parts;		/* measured: 1 << enum queue_part */
	uint64_t loc_off;		/* the importer's allocation */
	char *loc;			/* its mapping */
	uint64_t seg_off;		/* the exporter's allocation */
	struct ubfab_import imp;	/* the importer's import of it */
	char *window;			/* its mapping */
	struct ubfab_queue *doorbell;	/* the importer's queues */
	struct ubfab_queue *polling;
	struct uring *uring;
	bool model_was_on;		/* the parameter, before and after cost */
	const char *cost_skipped;	/* why cost was not measured, or NULL */

	struct bw_figures bw[NR_BW_DIRS][NR_BW_BLOCKS];
	struct rate_figures rate[NR_RATE_BATCHES];
	struct lat_figures lat[NR_LAT_MODES];
	/* Each op's latency in the last repetition, ns (for a CDF). */
	uint64_t lat_ns[NR_LAT_MODES][LAT_OPS];
	struct cost_figures cost[NR_COST_BATCHES];
};

/* One of the bandwidth figures: a direction and a block. */
struct bw_arg {
	enum bw_dir dir;
	unsigned int block;	/* index in bw_blocks */
};

void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	/* Under QEMU TCG, PAUSE also lets the other vCPUs run. */
	__builtin_ia32_pause();
#endif
}

/*
 * Waits for a completion by looking at the CQ (yielding the CPU now and
 * then, for the queue's worker). 0, or -ETIMEDOUT after SPIN_MAX_NS.
 */
int cq_poll(struct ubfab_queue *q)
{
	unsigned int spins = 0;
	uint64_t start = 0;

	while (!ubfab_queue_cq_ready(q)) {
		cpu_relax();
		if (++spins % SPIN_YIELD)
			continue;
		if (!start)
			start = now_ns();
		else if (now_ns() - start > SPIN_MAX_NS)
			return -ETIMEDOUT;
		sched_yield();
	}
	return 0;
}

/*
 * Consumes the completions there are, reading them in the CQ as the NOP
 * loop reads io_uring's; -EIO if one of them failed.
 */
int cq_reap(struct ubfab_queue *q, unsigned int *done)
{
	uint32_t head = __atomic_load_n(q->cq_head, __ATOMIC_RELAXED);
	uint32_t n = ubfab_queue_cq_ready(q), i;
	const struct ubfab_cqe *cqe;

	for (i = 0; i < n; i++) {
		cqe = &q->cqes[(head + i) & q->cq_mask];
		if (cqe->status == UBFAB_CQE_OK)
			continue;
		fprintf(stderr, "ubbench: queue %u: entry %llu completed with status %u\n",
			q->id, (unsigned long long)cqe->user_data, cqe->status);
		return -EIO;
	}
	ubfab_queue_cq_advance(q, n);
	*done += n;
	return 0;
}

/*
 * Posts the next @n entries of @j on @q (*@posted entries of it were
 * posted before, *@off is where the next one moves data) and submits
 * them. 0 or a negative errno (printed).
 */
int job_post(struct ubfab_queue *q, const struct job *j, unsigned int n,
	     unsigned int *posted, uint64_t *off)
{
	struct ubfab_sqe *sqe;
	unsigned int i;
	int err;

	for (i = 0; i < n; i++, ++*posted) {
		sqe = ubfab_queue_get_sqe(q);
		ubfab_prep_entry(sqe, j->opcode, j->length, j->local + *off,
				 j->remote + *off, 0);
		ubfab_sqe_set_data(sqe, *posted);
		/*
		 * No division per entry: the NOP loop it is held against has
		 * none either.
		 */
		*off += j->length;
		if (*off + j->length > j->span)
			*off = 0;
	}
	err = ubfab_queue_submit(q);
	if (err < 0) {
		fail("queue submission", err);
		return err;
	}
	return 0;
}

/*
 * Runs entries 0 .. @ops - 1 of @j on @q, @batch a submission, with at
 * most the SQ's depth in flight, and reaps their completions by polling
 * the CQ. 0 or a negative errno (printed).
 */
int pump(struct ubfab_queue *q, const struct job *j, unsigned int ops,
	 unsigned int batch)
{
	unsigned int posted = 0, done = 0, n;
	uint64_t off = 0;
	int err;

	while (done < ops) {
		n = ops - posted < batch ? ops - posted : batch;
		/*
		 * The SQ has room for what is not in flight: the engine
		 * takes an entry before it completes it.
		 */
		if (n && posted - done + n <= q->sq_mask + 1) {
			err = job_post(q, j, n, &posted, &off);
			if (err)
				return err;
		} else {
			err = cq_poll(q);
			if (err) {
				fprintf(stderr, "ubbench: queue %u: no completion after %llu s\n",
					q->id, SPIN_MAX_NS / 1000000000ULL);
				return err;
			}
		}
		err = cq_reap(q, &done);
		if (err)
			return err;
	}
	return 0;
}

/* The job that moves @length bytes at byte @off of the region, @dir. */
static struct job region_job(const struct queue_bench *qb, enum bw_dir dir,
			     uint64_t off, uint32_t length, uint64_t span)
{
	return (struct job){
		.opcode = dir == BW_WRITE ? UBFAB_OP_WRITE : UBFAB_OP_READ,
		.length = length,
		.local = qb->loc_off + off,
		.remote = ubfab_import_addr(&qb->imp, off),
		.span = span,
	};
}

/* Turns of the bandwidth figures of @block: bytes and blocks. */
static size_t bw_slice(size_t block)
{
	size_t slice = block * BW_TURN_BLOCKS;

	if (slice > BW_SLICE)
		slice = BW_SLICE;
	return slice < block ? block : slice;
}

/*
 * GB/s of the queue and of memcpy, and the median of the ratios of their
 * pairs of turns. The two take turns slice by slice, each going first
 * every other pair, on different halves of the region (so that neither
 * finds in the cache what the other has just moved); the slices advance
 * through the region from where the last repetition left off.
 */
static int bw_sample(struct bench *b, const void *arg, double *values)
{
	const struct bw_arg *a = arg;
	struct queue_bench *qb = b->queue;
	size_t block = bw_blocks[a->block], slice = bw_slice(block);
	uint64_t ns[2] = { 0, 0 }, turn_ns[2], bytes = 0, start = now_ns();
	static double ratios[MEDIAN_MAX];
	static uint64_t cursor;
	unsigned int pairs = 0, i, side;
	struct job j;
	size_t from;
	int err;

	do {
		/* Slices divide half the region: none crosses its end. */
		cursor = (cursor - cursor % slice + slice) % QREGION;
		for (i = 0; i < 2; i++) {
			/* side 0: memcpy; side 1: the queue. */
			side = (pairs + i) % 2;
			from = (cursor + side * QREGION / 2) % QREGION;
			if (!side && a->dir == BW_WRITE) {
				turn_ns[0] = copy_slice(qb->window + from,
							qb->loc + from, slice,
							block);
			} else if (!side) {
				turn_ns[0] = copy_slice(qb->loc + from,
							qb->window + from,
							slice, block);
			} else {
				j = region_job(qb, a->dir, from, block, slice);
				turn_ns[1] = now_ns();
				err = pump(qb->doorbell, &j, slice / block,
					   BW_BATCH);
				if (err)
					return err;
				turn_ns[1] = now_ns() - turn_ns[1];
			}
			ns[side] += turn_ns[side];
		}
		ratios[pairs++] = (double)turn_ns[0] / turn_ns[1];
		bytes += slice;
	} while (now_ns() - start < BW_MIN_NS && pairs < MEDIAN_MAX);
	values[0] = (double)bytes / ns[1];
	values[1] = (double)bytes / ns[0];
	values[2] = median(ratios, pairs);
	return 0;
}

static int run_bw(struct bench *b, enum bw_dir dir)
{
	struct bw_arg a = { .dir = dir };
	struct bw_figures *f;
	struct figure *figs[3];
	int err;

	for (a.block = 0; a.block < NR_BW_BLOCKS; a.block++) {
		f = &b->queue->bw[dir][a.block];
		figs[0] = &f->queue;
		figs[1] = &f->memcpy;
		figs[2] = &f->ratio;
		err = measure(b, bw_sample, &a, figs, 3);
		if (err)
			return err;
	}
	return 0;
}

/* The queue of a rate mode but RATE_NOP. */
static struct ubfab_queue *mode_queue(const struct queue_bench *qb,
				      enum rate_mode mode)
{
	return mode == RATE_DOORBELL ? qb->doorbell : qb->polling;
}

/* Nanoseconds for RATE_TURN_OPS 64-byte WRITEs (or NOPs), @batch a time. */
static int rate_turn(struct queue_bench *qb, enum rate_mode mode,
		     unsigned int batch, uint64_t *ns)
{
	struct job j = region_job(qb, BW_WRITE, 0, RATE_BYTES, RATE_SPAN);
	uint64_t t0 = now_ns();
	int err;

	if (mode == RATE_NOP) {
		err = uring_nops(qb->uring, RATE_TURN_OPS, batch);
		if (err)
			fail("io_uring NOPs", err);
	} else {
		err = pump(mode_queue(qb, mode), &j, RATE_TURN_OPS, batch);
	}
	*ns = now_ns() - t0;
	return err;
}

/*
 * Waits, untimed, until the polling queue's engine has gone to sleep
 * (UBFAB_SQ_NEED_WAKEUP), so that it does not poll during other turns.
 */
static int poller_asleep(struct ubfab_queue *q)
{
	uint64_t start = now_ns();

	while (!(ubfab_queue_sq_flags(q) & UBFAB_SQ_NEED_WAKEUP)) {
		if (now_ns() - start > SPIN_MAX_NS) {
			fprintf(stderr, "ubbench: queue %u: the polling engine does not go to sleep\n",
				q->id);
			return -ETIMEDOUT;
		}
		usleep(POLL_IDLE_US / 4);
	}
	return 0;
}

/*
 * Operations per second of each mode at a batch size, then the medians of
 * the ratios of the doorbell's and polling's rates to the NOPs', turn by
 * turn. The modes take turns, in an order that rotates; after its turn
 * the polling queue is left to fall asleep, as it does once idle_us has
 * passed, before the next turn starts.
 */
static int rate_sample(struct bench *b, const void *arg, double *values)
{
	unsigned int batch = *(const unsigned int *)arg;
	static double ratios[NR_RATE_MODES - 1][MEDIAN_MAX];
	uint64_t ns[NR_RATE_MODES] = { 0 }, turn_ns[NR_RATE_MODES];
	uint64_t start = now_ns();
	unsigned int rounds = 0, i, mode;
	int err;

	do {
		for (i = 0; i < NR_RATE_MODES; i++) {
			mode = (rounds + i) % NR_RATE_MODES;
			err = rate_turn(b->queue, mode, batch, &turn_ns[mode]);
			if (!err && mode == RATE_POLLING)
				err = poller_asleep(b->queue->polling);
			if (err)
				return err;
			ns[mode] += turn_ns[mode];
		}
		for (mode = RATE_DOORBELL; mode < NR_RATE_MODES; mode++)
			ratios[mode - 1][rounds] =
				(double)turn_ns[RATE_NOP] / turn_ns[mode];
		rounds++;
	} while (now_ns() - start < RATE_MIN_NS && rounds < MEDIAN_MAX);
	for (mode = 0; mode < NR_RATE_MODES; mode++)
		values[mode] = (double)rounds * RATE_TURN_OPS * 1e9 / ns[mode];
	for (mode = RATE_DOORBELL; mode < NR_RATE_MODES; mode++)
		values[NR_RATE_MODES + mode - 1] = median(ratios[mode - 1],
							  rounds);
	return 0;
}

static int run_rate(struct bench *b)
{
	struct figure *figs[2 * NR_RATE_MODES - 1];
	struct rate_figures *f;
	unsigned int i, mode;
	int err;

	for (i = 0; i < NR_RATE_BATCHES; i++) {
		f = &b->queue->rate[i];
		for (mode = 0; mode < NR_RATE_MODES; mode++)
			figs[mode] = &f->rate[mode];
		for (mode = RATE_DOORBELL; mode < NR_RATE_MODES; mode++)
			figs[NR_RATE_MODES + mode - 1] = &f->ratio[mode];
		err = measure(b, rate_sample, &rate_batches[i], figs,
			      ARRAY_SIZE(figs));
		if (err)
			return err;
	}
	return 0;
}

/*
 * LAT_OPS 8-byte WRITEs, one at a time, each timed from before it is
 * posted to when its completion is seen in the CQ: the median and the
 * 99th percentile, in microseconds. Each op's latency in ns stays in
 * qb->lat_ns, so that the last repetition's are there for the JSON.
 */
static int lat_sample(struct bench *b, const void *arg, double *values)
{
	enum lat_mode mode = *(const enum lat_mode *)arg;
	struct queue_bench *qb = b->queue;
	struct ubfab_queue *q = mode == LAT_DOORBELL ? qb->doorbell :
						       qb->polling;
	struct job j = region_job(qb, BW_WRITE, 0, LAT_BYTES, RATE_SPAN);
	static double us[LAT_OPS];
	unsigned int i;
	uint64_t t0, ns;
	int err;

	for (i = 0; i < LAT_OPS; i++) {
		t0 = now_ns();
		err = pump(q, &j, 1, 1);
		if (err)
			return err;
		ns = now_ns() - t0;
		qb->lat_ns[mode][i] = ns;
		us[i] = ns / 1e3;
	}
	values[0] = median(us, LAT_OPS);
	values[1] = percentile(us, LAT_OPS, 99);
	return 0;
}

static int run_lat(struct bench *b)
{
	static const enum lat_mode modes[NR_LAT_MODES] = {
		LAT_DOORBELL, LAT_POLLING,
	};
	struct figure *figs[2];
	unsigned int i;
	int err;

	for (i = 0; i < NR_LAT_MODES; i++) {
		figs[0] = &b->queue->lat[i].p50;
		figs[1] = &b->queue->lat[i].p99;
		err = measure(b, lat_sample, &modes[i], figs, 2);
		if (err)
			return err;
	}
	return 0;
}

/*
 * COST_WARM_OPS 64-byte WRITEs on @q, @batch a submission, untimed, after
 * the model was switched @on: the switch rewrites the module's code where
 * it tests the model (a static key), which TCG translates anew when it
 * next runs. The queue's modeled clock checks the switch: it moves on with
 * the model on and stands still with it off.
 */
static int cost_warm(struct queue_bench *qb, struct ubfab_queue *q,
		     unsigned int batch, bool on)
{
	struct job j = region_job(qb, BW_WRITE, 0, RATE_BYTES, RATE_SPAN);
	uint64_t before, after;
	int err;

	err = ubfab_queue_clock(q, 0, &before);
	if (!err) {
		err = pump(q, &j, COST_WARM_OPS, batch);
		if (err)
			return err;
		err = ubfab_queue_clock(q, 0, &after);
	}
	if (err) {
		fail("reading a queue's modeled clock", err);
		return err;
	}
	if ((after != before) == on)
		return 0;
	fprintf(stderr, "ubbench: queue %u: with the model %s, %d WRITEs took its modeled clock from %llu to %llu ns\n",
		q->id, on ? "on" : "off", COST_WARM_OPS,
		(unsigned long long)before, (unsigned long long)after);
	return -EIO;
}

/*
 * Half a round of the model's cost: the model switched @on, a warm-up on
 * each queue, then a turn of each queue as the rate's (rate_turn()), with
 * the polling queue's engine asleep when each turn starts; the turns'
 * nanoseconds into @ns, by mode less RATE_DOORBELL.
 */
static int cost_half(struct queue_bench *qb, bool on, unsigned int batch,
		     uint64_t *ns)
{
	unsigned int mode;
	int err;

	err = model_param_set(on);
	for (mode = RATE_DOORBELL; !err && mode < NR_RATE_MODES; mode++)
		err = cost_warm(qb, mode_queue(qb, mode), batch, on);
	err = err ? err : poller_asleep(qb->polling);
	for (mode = RATE_DOORBELL; !err && mode < NR_RATE_MODES; mode++) {
		err = rate_turn(qb, mode, batch, &ns[mode - RATE_DOORBELL]);
		if (!err && mode == RATE_POLLING)
			err = poller_asleep(qb->polling);
	}
	return err;
}

/*
 * Operations per second of each queue at a batch size with the model on
 * and with it off, then the medians of the ratios of the rates on to the
 * rates off, round by round. In each round the model is on for one half
 * and off for the other; which comes first alternates (off on, on off,
 * ...), so that a host that slows down or speeds up moves both alike.
 */
static int cost_sample(struct bench *b, const void *arg, double *values)
{
	unsigned int batch = *(const unsigned int *)arg;
	static double ratios[NR_QUEUE_MODES][MEDIAN_MAX];
	uint64_t ns[NR_COST_STATES][NR_QUEUE_MODES] = { { 0 } };
	uint64_t turn_ns[NR_COST_STATES][NR_QUEUE_MODES];
	uint64_t start = now_ns();
	unsigned int rounds = 0, i, s, m;
	int err;

	do {
		for (i = 0; i < NR_COST_STATES; i++) {
			s = (rounds + i) % NR_COST_STATES;
			err = cost_half(b->queue, s == COST_ON, batch,
					turn_ns[s]);
			if (err)
				return err;
			for (m = 0; m < NR_QUEUE_MODES; m++)
				ns[s][m] += turn_ns[s][m];
		}
		for (m = 0; m < NR_QUEUE_MODES; m++)
			ratios[m][rounds] = (double)turn_ns[COST_OFF][m] /
					    turn_ns[COST_ON][m];
		rounds++;
	} while (now_ns() - start < COST_MIN_NS && rounds < MEDIAN_MAX);
	for (s = 0; s < NR_COST_STATES; s++)
		for (m = 0; m < NR_QUEUE_MODES; m++)
			*values++ = (double)rounds * RATE_TURN_OPS * 1e9 /
				    ns[s][m];
	for (m = 0; m < NR_QUEUE_MODES; m++)
		*values++ = median(ratios[m], rounds);
	return 0;
}

/*
 * The model's cost, with the parameter taken for the time of it and put
 * back after (param.c); skipped, with the reason said, where the module
 * has no such parameter or ubbench may not write it.
 */
static int run_cost(struct bench *b)
{
	struct figure *figs[NR_COST_STATES * NR_QUEUE_MODES + NR_QUEUE_MODES];
	struct queue_bench *qb = b->queue;
	struct cost_figures *f;
	unsigned int i, s, m, n;
	int err, restored;

	err = model_param_take(&qb->model_was_on);
	if (err == -ENOENT)
		qb->cost_skipped = "the module has no parameter model";
	else if (err == -EACCES || err == -EPERM || err == -EROFS)
		qb->cost_skipped = "ubbench may not write the parameter model (not root)";
	if (qb->cost_skipped) {
		fprintf(stderr, "ubbench: queue cost: skipped: %s (%s: %s)\n",
			qb->cost_skipped, MODEL_PARAM, strerror(-err));
		return 0;
	}
	if (err)
		return err;
	for (i = 0; !err && i < NR_COST_BATCHES; i++) {
		f = &qb->cost[i];
		n = 0;
		for (s = 0; s < NR_COST_STATES; s++)
			for (m = 0; m < NR_QUEUE_MODES; m++)
				figs[n++] = &f->rate[s][m];
		for (m = 0; m < NR_QUEUE_MODES; m++)
			figs[n++] = &f->ratio[m];
		err = measure(b, cost_sample, &cost_batches[i], figs, n);
	}
	restored = model_param_restore();
	return err ? err : restored;
}

/* A queue of the importer, of QDEPTH entries; polling or not. */
static int queue_open(struct bench *b, bool polling, struct ubfab_queue **qp)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	char what[96];
	int err;

	attr.sq_entries = QDEPTH;
	if (polling) {
		attr.flags = UBFAB_QUEUE_POLL;
		attr.idle_us = POLL_IDLE_US;
	}
	err = ubfab_queue_create(b->importer, &attr, qp);
	if (err) {
		snprintf(what, sizeof(what), "creating a %s queue on %s",
			 polling ? "polling" : "doorbell",
			 ubfab_dev_name(b->importer));
		fail(what, err);
	}
	return err;
}

/*
 * Whether @q moves data: a WRITE of a pattern to the segment, seen through
 * the window, and a READ of it back into another part of the local range.
 */
static int queue_check(struct queue_bench *qb, struct ubfab_queue *q)
{
	struct job j = region_job(qb, BW_WRITE, 0, 4 * KiB, 4 * KiB);
	size_t i;
	int err;

	for (i = 0; i < 4 * KiB; i++)
		qb->loc[i] = (char)(i * 7 + q->id);
	err = pump(q, &j, 1, 1);
	if (!err && memcmp(qb->window, qb->loc, 4 * KiB)) {
		fprintf(stderr, "ubbench: queue %u: a WRITE did not land in the segment\n",
			q->id);
		return -EIO;
	}
	j.opcode = UBFAB_OP_READ;
	j.local += 4 * KiB;
	err = err ? err : pump(q, &j, 1, 1);
	if (!err && memcmp(qb->loc + 4 * KiB, qb->loc, 4 * KiB)) {
		fprintf(stderr, "ubbench: queue %u: a READ did not bring the segment's data\n",
			q->id);
		return -EIO;
	}
	return err;
}

/*
 * The importer's local range and its mapping, the exporter's segment, the
 * importer's import and window of it, both backed; the queues, checked;
 * the io_uring instance.
 */
static int queue_setup(struct bench *b)
{
	struct queue_bench *qb = b->queue;
	uint32_t token_id;
	void *p;
	int err;

	err = ubfab_dev_alloc(b->importer, QREGION, &qb->loc_off);
	if (err) {
		fail("alloc of the importer's local range", err);
		return err;
	}
	qb->loc = map_apart(QREGION, ubfab_dev_fd(b->importer), qb->loc_off);
	if (!qb->loc) {
		err = -errno;
		fail("map of the importer's local range", err);
		return err;
	}
	err = ubfab_dev_alloc(b->exporter, QREGION, &qb->seg_off);
	if (err) {
		fail("alloc of the exported range", err);
		return err;
	}
	err = ubfab_dev_export(b->exporter, qb->seg_off, QREGION, RIGHTS_RW,
			       TOKEN_VALUE, &token_id);
	if (err) {
		fail("export", err);
		return err;
	}
	err = import_and_map(b, token_id, true, &qb->imp, &p);
	if (err)
		return err;
	qb->window = p;
	memset(qb->loc, 0x5a, QREGION);
	memset(qb->window, 0, QREGION);

	err = queue_open(b, false, &qb->doorbell);
	err = err ? err : queue_open(b, true, &qb->polling);
	err = err ? err : queue_check(qb, qb->doorbell);
	err = err ? err : queue_check(qb, qb->polling);
	if (err)
		return err;
	if (qb->parts & 1U << QUEUE_RATE) {
		err = uring_open(QDEPTH, &qb->uring);
		if (err)
			fail("io_uring_setup", err);
	}
	return err;
}

/* The queues, the import and the allocations go when the devices close. */
static void queue_teardown(struct queue_bench *qb)
{
	uring_close(qb->uring);
	ubfab_queue_destroy(qb->polling);
	ubfab_queue_destroy(qb->doorbell);
	qb->uring = NULL;
	qb->polling = NULL;
	qb->doorbell = NULL;
}

int queue_run(struct bench *b, unsigned int parts)
{
	struct queue_bench *qb;
	int err;

	qb = calloc(1, sizeof(*qb));
	if (!qb) {
		fail("allocating the queue figures", -ENOMEM);
		return -ENOMEM;
	}
	b->queue = qb;
	qb->parts = parts;
	/* scale and send open queues of their own. */
	err = parts & ~(1U << QUEUE_SCALE | 1U << QUEUE_SEND) ?
	      queue_setup(b) : 0;
	if (err) {
		fprintf(stderr, "ubbench: queue: setup failed, nothing measured\n");
		queue_teardown(qb);
		return err;
	}
	if (parts & 1U << QUEUE_WRITE)
		err = run_bw(b, BW_WRITE);
	if (!err && parts & 1U << QUEUE_READ)
		err = run_bw(b, BW_READ);
	if (!err && parts & 1U << QUEUE_RATE)
		err = run_rate(b);
	if (!err && parts & 1U << QUEUE_LAT)
		err = run_lat(b);
	if (!err && parts & 1U << QUEUE_COST)
		err = run_cost(b);
	queue_teardown(qb);
	if (!err && parts & 1U << QUEUE_SEND)
		err = send_run(b);
	if (!err && parts & 1U << QUEUE_SCALE)
		return scale_run(b);
	if (err)
		fprintf(stderr, "ubbench: queue: measurement failed\n");
	return err;
}

#define NR_TARGETS	(4 + NR_COST_BATCHES * NR_QUEUE_MODES)

/* The model's cost targets, if measured, into @t; how many. */
static unsigned int cost_targets(const struct queue_bench *qb,
				 struct target *t)
{
	static char keys[NR_COST_BATCHES][NR_QUEUE_MODES][48];
	static char names[NR_COST_BATCHES][NR_QUEUE_MODES][48];
	unsigned int n = 0, i, m;

	if (!(qb->parts & 1U << QUEUE_COST) || qb->cost_skipped)
		return 0;
	for (i = 0; i < NR_COST_BATCHES; i++) {
		for (m = 0; m < NR_QUEUE_MODES; m++, n++) {
			snprintf(keys[i][m], sizeof(keys[i][m]),
				 "model_cost_%s_batch%u",
				 rate_keys[m + RATE_DOORBELL], cost_batches[i]);
			snprintf(names[i][m], sizeof(names[i][m]),
				 "model on/off, %s, batch %u",
				 rate_keys[m + RATE_DOORBELL], cost_batches[i]);
			t[n] = (struct target){
				.key = keys[i][m],
				.name = names[i][m],
				.op = ">=",
				.value = qb->cost[i].ratio[m].median,
				.target = TARGET_COST_RATIO,
			};
			t[n].met = t[n].value >= t[n].target;
		}
	}
	return n;
}

/* The targets whose figures were measured, into @t; how many. */
static unsigned int targets(const struct bench *b, struct target *t)
{
	const struct queue_bench *qb = b->queue;
	unsigned int n = 0, i, rb = 0;

	for (i = 0; i < NR_RATE_BATCHES; i++)
		if (rate_batches[i] == TARGET_RATE_BATCH)
			rb = i;
	for (i = 0; i < NR_BW_BLOCKS; i++) {
		if (!(qb->parts & 1U << QUEUE_WRITE) ||
		    bw_blocks[i] != TARGET_WRITE_BLOCK)
			continue;
		t[n] = (struct target){
			.key = "write_1MiB_vs_memcpy",
			.name = "1 MiB WRITE / memcpy",
			.op = ">=",
			.value = qb->bw[BW_WRITE][i].ratio.median,
			.target = TARGET_WRITE_RATIO,
		};
		t[n].met = t[n].value >= t[n].target;
		n++;
	}
	if (!(qb->parts & 1U << QUEUE_RATE))
		goto others;
	t[n] = (struct target){
		.key = "rate_doorbell_vs_nop_batch16",
		.name = "64 B doorbell / NOP, batch 16",
		.op = ">=",
		.value = qb->rate[rb].ratio[RATE_DOORBELL].median,
		.target = TARGET_DOORBELL_RATIO,
	};
	t[n].met = t[n].value >= t[n].target;
	n++;
	t[n] = (struct target){
		.key = "rate_polling_vs_nop_batch16",
		.name = "64 B polling / NOP, batch 16",
		.op = ">",
		.value = qb->rate[rb].ratio[RATE_POLLING].median,
		.target = TARGET_POLLING_RATIO,
	};
	t[n].met = t[n].value > t[n].target;
	n++;
others:
	n += cost_targets(qb, t + n);
	return n + scale_targets(b, t + n);
}

static void print_bw(const struct queue_bench *qb, enum bw_dir dir)
{
	const struct bw_figures *f;
	char name[24], slice[24];
	unsigned int i;

	printf("\n%s bandwidth: blocks over %lu MiB, %d entries a doorbell, against memcpy %s the window\n",
	       bw_names[dir], QREGION / MiB, BW_BATCH,
	       dir == BW_WRITE ? "into" : "out of");
	printf("  %-8s %10s %12s %12s %8s\n", "block", "turn", "queue GB/s",
	       "memcpy GB/s", "ratio");
	for (i = 0; i < NR_BW_BLOCKS; i++) {
		f = &qb->bw[dir][i];
		tool_fmt_size(name, sizeof(name), bw_blocks[i], " ");
		tool_fmt_size(slice, sizeof(slice), bw_slice(bw_blocks[i]),
			      " ");
		printf("  %-8s %10s %12.4f %12.4f %8.3f\n", name, slice,
		       f->queue.median, f->memcpy.median, f->ratio.median);
	}
}

static void print_cost(const struct bench *b)
{
	const struct queue_bench *qb = b->queue;
	const struct figure *ratio;
	unsigned int i, m;

	if (qb->cost_skipped) {
		printf("\nmodel cost: skipped: %s\n", qb->cost_skipped);
		return;
	}
	printf("\nmodel cost: %d-byte WRITEs with the model on and off (parameter model; %c before, put back), %d a turn, %d untimed after each switch, at least %llu ms a repetition\n",
	       RATE_BYTES, qb->model_was_on ? 'Y' : 'N', RATE_TURN_OPS,
	       COST_WARM_OPS, COST_MIN_NS / 1000000);
	printf("  %-6s %-9s %12s %12s %8s %8s %8s\n", "batch", "queue",
	       "on ops/s", "off ops/s", "on/off", "min", "max");
	for (i = 0; i < NR_COST_BATCHES; i++) {
		for (m = 0; m < NR_QUEUE_MODES; m++) {
			ratio = &qb->cost[i].ratio[m];
			printf("  %-6u %-9s %12.0f %12.0f %8.3f %8.3f %8.3f\n",
			       cost_batches[i], rate_keys[m + RATE_DOORBELL],
			       qb->cost[i].rate[COST_ON][m].median,
			       qb->cost[i].rate[COST_OFF][m].median,
			       ratio->median,
			       percentile(ratio->samples, b->iters, 0),
			       percentile(ratio->samples, b->iters, 100));
		}
	}
}

void queue_print(const struct bench *b)
{
	const struct queue_bench *qb = b->queue;
	struct target t[NR_TARGETS];
	const struct rate_figures *r;
	unsigned int i, n;

	if (qb->parts & ~(1U << QUEUE_SCALE | 1U << QUEUE_SEND))
		printf("queue: %s's queues (SQ %d, CQ %d entries; polling idle %d us) against a %lu MiB segment of %s\n",
		       ubfab_dev_name(b->importer), QDEPTH, 2 * QDEPTH,
		       POLL_IDLE_US, QREGION / MiB,
		       ubfab_dev_name(b->exporter));
	else
		printf("queue:\n");
	for (i = 0; i < NR_BW_DIRS; i++)
		if (qb->parts & 1U << (i == BW_WRITE ? QUEUE_WRITE :
					     QUEUE_READ))
			print_bw(qb, i);

	if (qb->parts & 1U << QUEUE_RATE) {
		printf("\nmessage rate: %d-byte WRITEs (io_uring: NOPs), %d a turn, at least %llu ms a repetition\n",
		       RATE_BYTES, RATE_TURN_OPS, RATE_MIN_NS / 1000000);
		printf("  %-6s %12s %12s %12s %10s %10s\n", "batch",
		       "NOP ops/s", "doorbell/s", "polling/s", "db/NOP",
		       "poll/NOP");
		for (i = 0; i < NR_RATE_BATCHES; i++) {
			r = &qb->rate[i];
			printf("  %-6u %12.0f %12.0f %12.0f %10.3f %10.3f\n",
			       rate_batches[i], r->rate[RATE_NOP].median,
			       r->rate[RATE_DOORBELL].median,
			       r->rate[RATE_POLLING].median,
			       r->ratio[RATE_DOORBELL].median,
			       r->ratio[RATE_POLLING].median);
		}
	}

	if (qb->parts & 1U << QUEUE_LAT) {
		printf("\nlatency: a %d-byte WRITE, from before it is posted to its completion seen in the CQ, %d a repetition\n",
		       LAT_BYTES, LAT_OPS);
		printf("  %-10s %10s %10s\n", "queue", "median us", "p99 us");
		for (i = 0; i < NR_LAT_MODES; i++)
			printf("  %-10s %10.1f %10.1f\n", lat_keys[i],
			       qb->lat[i].p50.median, qb->lat[i].p99.median);
	}

	if (qb->parts & 1U << QUEUE_COST)
		print_cost(b);
	if (b->send)
		send_print(b);
	if (b->scale)
		scale_print(b);

	n = targets(b, t);
	if (n)
		printf("\ntargets (reported, not enforced):\n");
	for (i = 0; i < n; i++)
		printf("  %-32s %8.3f  %-2s %4.2f  %s\n", t[i].name, t[i].value,
		       t[i].op, t[i].target, pass_miss(t[i].met));
}

static void json_bw(const struct bench *b, struct json *j, enum bw_dir dir)
{
	const struct bw_figures *fig;
	unsigned int i;

	json_break(j);
	json_object_begin(j, bw_keys[dir]);
	json_string(j, "unit", "GB/s");
	json_uint(j, "min_ns", BW_MIN_NS);
	json_uint(j, "batch", BW_BATCH);
	json_array_begin(j, "blocks");
	for (i = 0; i < NR_BW_BLOCKS; i++) {
		fig = &b->queue->bw[dir][i];
		json_break(j);
		json_object_begin(j, NULL);
		json_uint(j, "bytes", bw_blocks[i]);
		json_uint(j, "turn_bytes", bw_slice(bw_blocks[i]));
		json_figure(j, "queue", &fig->queue, b->iters);
		json_figure(j, "memcpy", &fig->memcpy, b->iters);
		json_figure(j, "ratio", &fig->ratio, b->iters);
		json_object_end(j);
	}
	json_break(j);
	json_array_end(j);
	json_object_end(j);
}

static void json_rate(const struct bench *b, struct json *j)
{
	const struct rate_figures *r;
	unsigned int i, mode;
	char key[32];

	json_break(j);
	json_object_begin(j, "rate");
	json_string(j, "unit", "ops/s");
	json_uint(j, "bytes", RATE_BYTES);
	json_uint(j, "turn_ops", RATE_TURN_OPS);
	json_uint(j, "min_ns", RATE_MIN_NS);
	json_array_begin(j, "batches");
	for (i = 0; i < NR_RATE_BATCHES; i++) {
		r = &b->queue->rate[i];
		json_break(j);
		json_object_begin(j, NULL);
		json_uint(j, "batch", rate_batches[i]);
		for (mode = 0; mode < NR_RATE_MODES; mode++)
			json_figure(j, rate_keys[mode], &r->rate[mode],
				    b->iters);
		for (mode = RATE_DOORBELL; mode < NR_RATE_MODES; mode++) {
			snprintf(key, sizeof(key), "%s_vs_nop",
				 rate_keys[mode]);
			json_figure(j, key, &r->ratio[mode], b->iters);
		}
		json_object_end(j);
	}
	json_break(j);
	json_array_end(j);
	json_object_end(j);
}

static void json_lat(const struct bench *b, struct json *j)
{
	unsigned int i, k;

	json_break(j);
	json_object_begin(j, "latency");
	json_string(j, "unit", "us");
	json_uint(j, "bytes", LAT_BYTES);
	json_uint(j, "ops", LAT_OPS);
	for (i = 0; i < NR_LAT_MODES; i++) {
		json_break(j);
		json_object_begin(j, lat_keys[i]);
		json_figure(j, "p50", &b->queue->lat[i].p50, b->iters);
		json_figure(j, "p99", &b->queue->lat[i].p99, b->iters);
		json_array_begin(j, "lat_ns");
		for (k = 0; k < LAT_OPS; k++)
			json_uint(j, NULL, b->queue->lat_ns[i][k]);
		json_array_end(j);
		json_object_end(j);
	}
	json_object_end(j);
}

static void json_cost(const struct bench *b, struct json *j)
{
	const struct queue_bench *qb = b->queue;
	const struct cost_figures *f;
	unsigned int i, s, m;
	char key[32];

	json_break(j);
	json_object_begin(j, "cost");
	if (qb->cost_skipped) {
		json_string(j, "skipped", qb->cost_skipped);
		json_object_end(j);
		return;
	}
	json_string(j, "unit", "ops/s");
	json_uint(j, "bytes", RATE_BYTES);
	json_uint(j, "turn_ops", RATE_TURN_OPS);
	json_uint(j, "warm_ops", COST_WARM_OPS);
	json_uint(j, "min_ns", COST_MIN_NS);
	json_bool(j, "model_was_on", qb->model_was_on);
	json_array_begin(j, "batches");
	for (i = 0; i < NR_COST_BATCHES; i++) {
		f = &qb->cost[i];
		json_break(j);
		json_object_begin(j, NULL);
		json_uint(j, "batch", cost_batches[i]);
		for (m = 0; m < NR_QUEUE_MODES; m++) {
			for (s = 0; s < NR_COST_STATES; s++) {
				snprintf(key, sizeof(key), "%s_%s",
					 rate_keys[m + RATE_DOORBELL],
					 cost_keys[s]);
				json_figure(j, key, &f->rate[s][m], b->iters);
			}
			snprintf(key, sizeof(key), "%s_on_vs_off",
				 rate_keys[m + RATE_DOORBELL]);
			json_figure(j, key, &f->ratio[m], b->iters);
		}
		json_object_end(j);
	}
	json_break(j);
	json_array_end(j);
	json_object_end(j);
}

void queue_json(const struct bench *b, struct json *j)
{
	const struct queue_bench *qb = b->queue;
	struct target t[NR_TARGETS];
	unsigned int i, n;

	json_break(j);
	json_object_begin(j, "queue");
	json_break(j);
	json_uint(j, "region_bytes", QREGION);
	json_uint(j, "sq_entries", QDEPTH);
	json_uint(j, "cq_entries", 2 * QDEPTH);
	json_uint(j, "poll_idle_us", POLL_IDLE_US);
	if (qb->parts & 1U << QUEUE_WRITE)
		json_bw(b, j, BW_WRITE);
	if (qb->parts & 1U << QUEUE_READ)
		json_bw(b, j, BW_READ);
	if (qb->parts & 1U << QUEUE_RATE)
		json_rate(b, j);
	if (qb->parts & 1U << QUEUE_LAT)
		json_lat(b, j);
	if (qb->parts & 1U << QUEUE_COST)
		json_cost(b, j);
	if (b->send)
		send_json(b, j);
	if (b->scale)
		scale_json(b, j);
	n = targets(b, t);
	json_break(j);
	json_array_begin(j, "targets");
	for (i = 0; i < n; i++) {
		json_break(j);
		json_object_begin(j, NULL);
		json_string(j, "name", t[i].key);
		json_double(j, "value", t[i].value);
		json_string(j, "op", t[i].op);
		json_fixed(j, "target", t[i].target, 2);
		json_bool(j, "met", t[i].met);
		json_object_end(j);
	}
	json_break(j);
	json_array_end(j);
	json_break(j);
	json_object_end(j);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench queue scale: how the queues scale. Owns a queue on every NPU die
 * of the loaded fabric (768 with profile=cm384), each moving 64-byte
 * WRITEs to a peer die over the planes (half to a die on another chip of
 * its node, half to one of the next node), the pairing, the aggregate
 * completion rate of all of them busy at once (from one thread, and from
 * one thread per online CPU) against the rate of one queue alone with
 * the same traffic, batch and work, the modeled time they were charged,
 * the target of issue #16 (aggregate >= 0.5x single), and their table and
 * JSON. The entries run through queue.c's job_post(), pump(), cq_reap().
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ubbench.h"

/*
 * The work: every queue runs SCALE_OPS WRITEs of SCALE_BYTES, SCALE_BATCH
 * a submission, at most its SQ's depth (SCALE_DEPTH) in flight, over
 * SCALE_REGION bytes of its die to the peer's segment of as many bytes.
 * One queue alone runs turns of SCALE_OPS until SCALE_SINGLE_MIN_NS.
 */
#define SCALE_BYTES		64
#define SCALE_BATCH		16
#define SCALE_DEPTH		128
#define SCALE_REGION		(4 * KiB)
#define SCALE_SINGLE_MIN_NS	100000000ULL
/* The target: aggregate rate / single-queue rate, at least. */
#define TARGET_SCALE_RATIO	0.5
/* Descriptors besides two per die (its entity's and its queue's). */
#define SCALE_FDS_SPARE		64

/* The figures, in the order scale_sample() gives them. */
enum scale_fig {
	SCALE_SINGLE,		/* ops/s, one queue alone */
	SCALE_AGG_ONE,		/* ops/s, every queue, one thread */
	SCALE_RATIO_ONE,	/* SCALE_AGG_ONE / SCALE_SINGLE */
	SCALE_AGG,		/* ops/s, every queue, a thread per CPU */
	SCALE_RATIO,		/* SCALE_AGG / SCALE_SINGLE: the target's */
	SCALE_MODEL_SINGLE,	/* modeled ns per entry, one queue alone */
	SCALE_MODEL_AGG,	/* modeled ns per entry, every queue */
	NR_SCALE_FIGS,
};

static const char *const scale_keys[NR_SCALE_FIGS] = {
	"single", "aggregate_1_thread", "aggregate_1_thread_vs_single",
	"aggregate", "aggregate_vs_single", "model_ns_per_entry_single",
	"model_ns_per_entry_aggregate",
};

/* A die, its queue and what the queue runs; a run's progress. */
struct scale_queue {
	struct ubfab_entity_info die;
	unsigned int peer;		/* index of the die it WRITEs to */
	struct ubfab_dev *dev;
	struct ubfab_queue *q;
	uint32_t token_id;		/* of its segment, which the peer's
					 * sender imports */
	uint64_t seg_off;
	struct job job;
	unsigned int posted, done;	/* in the current run */
	uint64_t off;
};

struct scale_bench {
	unsigned int nr;		/* queues: NPU dies */
	unsigned int cap;
	unsigned int threads;		/* online CPUs */
	unsigned int same_node;		/* pairs within a node */
	unsigned int alone[2];		/* queues run alone: the first with
					 * its peer in its node, the first
					 * with it in another */
	unsigned int nodes, chips, dies;
	struct scale_queue *qs;
	uint64_t model_sum_ns;		/* last aggregate run's, all queues */
	struct figure fig[NR_SCALE_FIGS];
};

/* A thread's share of an aggregate run: queues first, first + step... */
struct scale_share {
	struct scale_bench *sb;
	unsigned int first, step;
	pthread_barrier_t *start;
	uint64_t end_ns;
	int err;
};

/* ubfab_entity_dump() callback: the NPU dies, in EID order. */
static int die_collect(const struct ubfab_entity_info *e, void *arg)
{
	struct scale_bench *sb = arg;
	struct scale_queue *qs;

	if (e->kind != UBFAB_ENTITY_NPU)
		return 0;
	if (sb->nr == sb->cap) {
		sb->cap = sb->cap ? 2 * sb->cap : 64;
		qs = realloc(sb->qs, sb->cap * sizeof(*qs));
		if (!qs)
			return -ENOMEM;
		sb->qs = qs;
	}
	memset(&sb->qs[sb->nr], 0, sizeof(sb->qs[0]));
	sb->qs[sb->nr++].die = *e;
	if (e->node >= sb->nodes)
		sb->nodes = e->node + 1;
	if (e->chip >= sb->chips)
		sb->chips = e->chip + 1;
	if (e->die >= sb->dies)
		sb->dies = e->die + 1;
	return 0;
}

/* The index of the die at @node, @chip, @die, or -1. */
static int die_find(const struct scale_bench *sb, unsigned int node,
		    unsigned int chip, unsigned int die)
{
	unsigned int i;

	for (i = 0; i < sb->nr; i++)
		if (sb->qs[i].die.node == node && sb->qs[i].die.chip == chip &&
		    sb->qs[i].die.die == die)
			return i;
	return -1;
}

/*
 * Pairs every die with a peer, so that every die receives from exactly
 * one: a die of an even chip WRITEs to the same die of the next chip of
 * its node (over an L1 switch of each plane), a die of an odd chip to the
 * same die of the chip before it in the next node (L1, L2, L1); with one
 * node, that is its own node's. Needs an even number of chips.
 */
static int pair_dies(struct scale_bench *sb)
{
	struct ubfab_entity_info *d;
	unsigned int i;
	int peer;
	bool far;

	if (sb->chips < 2 || sb->chips % 2) {
		fprintf(stderr, "ubbench: queue scale: %u NPU chips a node: the pairing needs an even number\n",
			sb->chips);
		return -ENODEV;
	}
	sb->alone[0] = UINT_MAX;
	sb->alone[1] = UINT_MAX;
	for (i = 0; i < sb->nr; i++) {
		d = &sb->qs[i].die;
		if (d->chip % 2 == 0)
			peer = die_find(sb, d->node, d->chip + 1, d->die);
		else
			peer = die_find(sb, (d->node + 1) % sb->nodes,
					d->chip - 1, d->die);
		if (peer < 0) {
			fprintf(stderr, "ubbench: queue scale: %s has no peer die\n",
				d->name);
			return -ENODEV;
		}
		sb->qs[i].peer = peer;
		far = sb->qs[peer].die.node != d->node;
		sb->same_node += !far;
		if (sb->alone[far] == UINT_MAX)
			sb->alone[far] = i;
	}
	/* One node: both queues run alone are within it. */
	if (sb->alone[1] == UINT_MAX)
		sb->alone[1] = sb->alone[0];
	return 0;
}

/* The NPU dies of the topology, paired. */
static int find_dies(struct scale_bench *sb)
{
	struct ubfab_nl *nl;
	int err;

	err = nl_open(&nl);
	if (err)
		return err;
	err = entities_dump(nl, die_collect, sb);
	ubfab_nl_close(nl);
	return err ? err : pair_dies(sb);
}

/* Room for two descriptors per die and some: the soft limit raised. */
static int raise_nofile(unsigned int dies)
{
	rlim_t need = 2 * (rlim_t)dies + SCALE_FDS_SPARE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;	/* root may raise it */
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		fprintf(stderr, "ubbench: queue scale: %u dies need %llu descriptors: %s\n",
			dies, (unsigned long long)need, strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * Every die opened, with a range of its own and a segment exported; every
 * sender's import of its peer's segment, its queue and its job.
 */
static int scale_setup(struct scale_bench *sb)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct scale_queue *s;
	struct ubfab_import imp = { 0 };
	uint64_t loc = 0;
	unsigned int i;
	char what[96];
	int err = 0;

	attr.sq_entries = SCALE_DEPTH;
	for (i = 0; i < sb->nr && !err; i++) {
		s = &sb->qs[i];
		snprintf(what, sizeof(what), "queue scale: %s", s->die.name);
		err = ubfab_dev_open(s->die.name, &s->dev);
		if (!err)
			err = ubfab_dev_alloc(s->dev, SCALE_REGION,
					      &s->seg_off);
		if (!err)
			err = ubfab_dev_export(s->dev, s->seg_off,
					       SCALE_REGION, RIGHTS_RW,
					       TOKEN_VALUE, &s->token_id);
	}
	for (i = 0; i < sb->nr && !err; i++) {
		s = &sb->qs[i];
		snprintf(what, sizeof(what), "queue scale: %s to %s",
			 s->die.name, sb->qs[s->peer].die.name);
		err = ubfab_dev_import(s->dev, sb->qs[s->peer].die.eid,
				       sb->qs[s->peer].token_id, TOKEN_VALUE,
				       RIGHTS_RW, &imp);
		if (!err)
			err = ubfab_dev_alloc(s->dev, SCALE_REGION, &loc);
		if (!err)
			err = ubfab_queue_create(s->dev, &attr, &s->q);
		s->job = (struct job){
			.opcode = UBFAB_OP_WRITE,
			.length = SCALE_BYTES,
			.local = loc,
			.remote = ubfab_import_addr(&imp, 0),
			.span = SCALE_REGION,
		};
	}
	if (err)
		fail(what, err);
	return err;
}

/*
 * Runs SCALE_OPS entries on queues @first, @first + @step, ... all at
 * once: round after round over them, each posts its next batch where its
 * SQ has room and has its completions reaped. 0 or -errno (printed).
 */
static int drive(struct scale_bench *sb, unsigned int first,
		 unsigned int step)
{
	unsigned int left = 0, i, n, before, idle = 0;
	struct scale_queue *s;
	uint64_t stuck = 0;
	bool moved;
	int err;

	for (i = first; i < sb->nr; i += step, left++) {
		sb->qs[i].posted = 0;
		sb->qs[i].done = 0;
	}
	while (left) {
		moved = false;
		for (i = first; i < sb->nr; i += step) {
			s = &sb->qs[i];
			if (s->done == SCALE_OPS)
				continue;
			n = SCALE_OPS - s->posted;
			n = n < SCALE_BATCH ? n : SCALE_BATCH;
			if (n && s->posted - s->done + n <= s->q->sq_mask + 1) {
				err = job_post(s->q, &s->job, n, &s->posted,
					       &s->off);
				if (err)
					return err;
				moved = true;
			}
			before = s->done;
			err = cq_reap(s->q, &s->done);
			if (err)
				return err;
			moved |= s->done != before;
			left -= s->done == SCALE_OPS;
		}
		if (moved) {
			idle = 0;
			stuck = 0;
			continue;
		}
		/* Nothing moved: let the queues' workers run. */
		sched_yield();
		if (++idle < 1024)
			continue;
		if (!stuck) {
			stuck = now_ns();
		} else if (now_ns() - stuck > SPIN_MAX_NS) {
			fprintf(stderr, "ubbench: queue scale: no completion after %llu s\n",
				SPIN_MAX_NS / 1000000000ULL);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

static void *share_run(void *arg)
{
	struct scale_share *sh = arg;

	pthread_barrier_wait(sh->start);
	sh->err = drive(sh->sb, sh->first, sh->step);
	sh->end_ns = now_ns();
	return NULL;
}

/*
 * Every queue's SCALE_OPS at once, from @threads threads (each its share
 * of the queues, round-robin, so that each has pairs within a node and
 * across nodes): the wall time from the start to the last thread's end.
 */
static int aggregate(struct scale_bench *sb, unsigned int threads,
		     uint64_t *ns)
{
	struct scale_share *sh;
	pthread_barrier_t start;
	pthread_t *tid;
	unsigned int t, made = 0;
	uint64_t t0, end = 0;
	int err = 0;

	if (threads == 1) {
		t0 = now_ns();
		err = drive(sb, 0, 1);
		*ns = now_ns() - t0;
		return err;
	}
	sh = calloc(threads, sizeof(*sh));
	tid = calloc(threads, sizeof(*tid));
	if (!sh || !tid || pthread_barrier_init(&start, NULL, threads + 1)) {
		free(sh);
		free(tid);
		fail("queue scale: threads", -ENOMEM);
		return -ENOMEM;
	}
	for (t = 0; t < threads; t++, made++) {
		sh[t] = (struct scale_share){ sb, t, threads, &start, 0, 0 };
		err = -pthread_create(&tid[t], NULL, share_run, &sh[t]);
		if (err)
			break;
	}
	if (err) {
		/* The barrier cannot be passed: nothing can be measured. */
		fail("queue scale: creating a thread", err);
		exit(1);
	}
	pthread_barrier_wait(&start);
	t0 = now_ns();
	for (t = 0; t < made; t++) {
		pthread_join(tid[t], NULL);
		err = err ? err : sh[t].err;
		end = sh[t].end_ns > end ? sh[t].end_ns : end;
	}
	pthread_barrier_destroy(&start);
	free(sh);
	free(tid);
	*ns = end > t0 ? end - t0 : 1;
	return err;
}

/* The sum of every queue's modeled clock into @sum. */
static int clocks(struct scale_bench *sb, uint64_t *sum)
{
	uint64_t now;
	unsigned int i;
	int err;

	*sum = 0;
	for (i = 0; i < sb->nr; i++) {
		err = ubfab_queue_clock(sb->qs[i].q, 0, &now);
		if (err) {
			fail("queue scale: reading a queue's modeled clock",
			     err);
			return err;
		}
		*sum += now;
	}
	return 0;
}

/*
 * One repetition: one queue alone, turns of SCALE_OPS for at least
 * SCALE_SINGLE_MIN_NS, taken in turn by the two queues of sb->alone (the
 * aggregate's traffic is half within a node, half across nodes); then
 * every queue at once from one thread, then from a thread per CPU. Rates
 * in entries per second of wall time; the modeled ns the queues' clocks
 * moved on by, per entry.
 */
static int scale_sample(struct bench *b, const void *arg, double *values)
{
	struct scale_bench *sb = b->scale;
	uint64_t ns = 0, t0, c0, c1, ops = 0, model = 0;
	struct scale_queue *s;
	unsigned int turn = 0;
	int err = 0;

	(void)arg;
	while (!err && (ns < SCALE_SINGLE_MIN_NS || turn % 2)) {
		s = &sb->qs[sb->alone[turn++ % 2]];
		err = ubfab_queue_clock(s->q, 0, &c0);
		t0 = now_ns();
		err = err ? err : pump(s->q, &s->job, SCALE_OPS, SCALE_BATCH);
		ns += now_ns() - t0;
		ops += SCALE_OPS;
		err = err ? err : ubfab_queue_clock(s->q, 0, &c1);
		model += c1 - c0;
	}
	if (err)
		return err;
	values[SCALE_SINGLE] = ops * 1e9 / ns;
	values[SCALE_MODEL_SINGLE] = (double)model / ops;

	err = aggregate(sb, 1, &ns);
	if (err)
		return err;
	values[SCALE_AGG_ONE] = (double)sb->nr * SCALE_OPS * 1e9 / ns;
	values[SCALE_RATIO_ONE] = values[SCALE_AGG_ONE] /
				  values[SCALE_SINGLE];

	err = clocks(sb, &c0);
	err = err ? err : aggregate(sb, sb->threads, &ns);
	err = err ? err : clocks(sb, &c1);
	if (err)
		return err;
	sb->model_sum_ns = c1 - c0;
	values[SCALE_AGG] = (double)sb->nr * SCALE_OPS * 1e9 / ns;
	values[SCALE_RATIO] = values[SCALE_AGG] / values[SCALE_SINGLE];
	values[SCALE_MODEL_AGG] = (double)(c1 - c0) / sb->nr / SCALE_OPS;
	return 0;
}

int scale_run(struct bench *b)
{
	struct figure *figs[NR_SCALE_FIGS];
	struct scale_bench *sb;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int i;
	int err;

	sb = calloc(1, sizeof(*sb));
	if (!sb) {
		fail("allocating the scale figures", -ENOMEM);
		return -ENOMEM;
	}
	b->scale = sb;
	sb->threads = cpus > 0 ? cpus : 1;
	err = find_dies(sb);
	err = err ? err : raise_nofile(sb->nr);
	err = err ? err : scale_setup(sb);
	if (err) {
		fprintf(stderr, "ubbench: queue scale: setup failed, nothing measured\n");
		return err;
	}
	for (i = 0; i < NR_SCALE_FIGS; i++)
		figs[i] = &sb->fig[i];
	err = measure(b, scale_sample, NULL, figs, NR_SCALE_FIGS);
	/* Exit closes the queues and the devices. */
	if (err)
		fprintf(stderr, "ubbench: queue scale: measurement failed\n");
	return err;
}

/* The target of issue #16 item 8, where it was measured, into @t. */
unsigned int scale_targets(const struct bench *b, struct target *t)
{
	const struct scale_bench *sb = b->scale;

	if (!sb || !sb->fig[SCALE_RATIO].samples)
		return 0;
	*t = (struct target){
		.key = "scale_aggregate_vs_single",
		.name = "64 B, all queues / one queue",
		.op = ">=",
		.value = sb->fig[SCALE_RATIO].median,
		.target = TARGET_SCALE_RATIO,
	};
	t->met = t->value >= t->target;
	return 1;
}

void scale_print(const struct bench *b)
{
	const struct scale_bench *sb = b->scale;
	const struct figure *f = sb->fig;
	char name[32];

	if (!f[SCALE_RATIO].samples)
		return;
	printf("\nscale: %u queues, one per NPU die (%u nodes x %u chips x %u dies; %u pairs within a node, %u across nodes), %u vCPUs\n",
	       sb->nr, sb->nodes, sb->chips, sb->dies, sb->same_node,
	       sb->nr - sb->same_node, sb->threads);
	printf("  each %d %d-byte WRITEs to its peer die, batch %d, doorbell, fast mode; one queue alone: turns of %d for at least %llu ms, %s to %s and %s to %s in turn\n",
	       SCALE_OPS, SCALE_BYTES, SCALE_BATCH, SCALE_OPS,
	       SCALE_SINGLE_MIN_NS / 1000000,
	       sb->qs[sb->alone[0]].die.name,
	       sb->qs[sb->qs[sb->alone[0]].peer].die.name,
	       sb->qs[sb->alone[1]].die.name,
	       sb->qs[sb->qs[sb->alone[1]].peer].die.name);
	printf("  %-28s %12s %10s %16s\n", "", "ops/s", "vs single",
	       "model ns/entry");
	printf("  %-28s %12.0f %10s %16.1f\n", "one queue alone",
	       f[SCALE_SINGLE].median, "", f[SCALE_MODEL_SINGLE].median);
	printf("  %-28s %12.0f %10.3f %16s\n", "all queues, 1 thread",
	       f[SCALE_AGG_ONE].median, f[SCALE_RATIO_ONE].median, "");
	snprintf(name, sizeof(name), "all queues, %u threads", sb->threads);
	printf("  %-28s %12.0f %10.3f %16.1f\n", name, f[SCALE_AGG].median,
	       f[SCALE_RATIO].median, f[SCALE_MODEL_AGG].median);
	printf("  modeled time charged in the last aggregate run: %.3f ms over all queues (sum of their clocks' advance)\n",
	       sb->model_sum_ns / 1e6);
}

void scale_json(const struct bench *b, struct json *j)
{
	const struct scale_bench *sb = b->scale;
	unsigned int i;

	json_break(j);
	json_object_begin(j, "scale");
	json_break(j);
	json_uint(j, "queues", sb->nr);
	json_uint(j, "vcpus", sb->threads);
	json_uint(j, "threads", sb->threads);
	json_uint(j, "pairs_same_node", sb->same_node);
	json_uint(j, "pairs_other_node", sb->nr - sb->same_node);
	json_uint(j, "bytes", SCALE_BYTES);
	json_uint(j, "batch", SCALE_BATCH);
	json_uint(j, "ops_per_queue", SCALE_OPS);
	json_uint(j, "sq_entries", SCALE_DEPTH);
	json_uint(j, "single_min_ns", SCALE_SINGLE_MIN_NS);
	json_string(j, "unit", "ops/s; ratios; model ns per entry");
	json_uint(j, "model_ns_sum_last", sb->model_sum_ns);
	for (i = 0; i < NR_SCALE_FIGS && sb->fig[i].samples; i++) {
		json_break(j);
		json_figure(j, scale_keys[i], &sb->fig[i], b->iters);
	}
	json_object_end(j);
}

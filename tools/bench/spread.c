// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubbench model spread: how far the fabric model's times move from run to
 * run. Owns a contention workload of several processes, each on its own
 * NPU die with several queues, that WRITE into and READ from one receiver
 * (the importer) with random host delays between their submissions, and
 * a WAIT_VALUE on the receiver for their WRITE_NOTIFYs; running it
 * --iters times (default SPREAD_RUNS) in the fast mode and as many in the
 * ordered domain (UBFAB_QUEUE_ORDERED, Documentation/model.rst
 * "Determinism"); comparing every completion's model_ns across the runs
 * of a mode; and their table and JSON. The ordered domain must give the
 * same times in every run: spread_differed() counts the completions that
 * did not, a determinism bug.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ubbench.h"

/*
 * The workload: SAME_SENDERS NPU dies of the receiver's node (on other
 * chips than its own, so that their bytes cross the planes to its ports)
 * and OTHER_SENDERS of other nodes (through the L2 switches), QUEUES
 * queues each (the last one polling), ENTRIES entries a queue; and a
 * waiter on the receiver.
 */
#define SAME_SENDERS		3
#define OTHER_SENDERS		2
#define SENDERS			(SAME_SENDERS + OTHER_SENDERS)
#define QUEUES			2
#define ENTRIES			((unsigned int)ARRAY_SIZE(sender_entries))
#define PROCS			(SENDERS + 1)
#define SLOTS			(QUEUES * ENTRIES)	/* a process's most */
#define WAITER_SLOTS		((unsigned int)ARRAY_SIZE(waiter_entries))
#define COMPLETIONS		(SENDERS * SLOTS + WAITER_SLOTS)

/* The receiver's segment and each sender's range; the flag, its last word. */
#define REGION			MiB
#define FLAG_OFF		(REGION - 8)
#define WRITE_BYTES		(256 * KiB)
#define READ_BYTES		(64 * KiB)
#define NOTIFY_BYTES		(4 * KiB)
#define WAITER_COMPUTE_NS	3000
/* A random host delay of 0 to JITTER_US before each submission. */
#define JITTER_US		2000
/* How long a completion may take to come, in real time. */
#define WAIT_MS			20000
#define RWA			(RIGHTS_RW | UBFAB_SEG_ATOMIC)

/*
 * Modeled ns between the latest completion so far and a fast run's
 * start (its queues' clocks are moved on to there): the links reserved
 * before are idle again, so that no run waits for an earlier one's.
 */
#define EPOCH_GAP_NS		1000000

#define ORDER_PARAM	"/sys/module/ubfab/parameters/model_order"

/* A sender queue's entries, in order; the last adds 1 to the flag. */
static const struct {
	uint8_t op;
	const char *name;
} sender_entries[] = {
	{ UBFAB_OP_WRITE, "WRITE" },
	{ UBFAB_OP_COMPUTE, "COMPUTE" },
	{ UBFAB_OP_READ, "READ" },
	{ UBFAB_OP_WRITE, "WRITE" },
	{ UBFAB_OP_COMPUTE, "COMPUTE" },
	{ UBFAB_OP_WRITE_NOTIFY, "WRITE_NOTIFY" },
};

/* The waiter's entries. */
static const char *const waiter_entries[] = { "WAIT_VALUE", "COMPUTE" };

enum spread_mode { SPREAD_FAST, SPREAD_ORDERED, NR_SPREAD_MODES };

static const char *const mode_names[NR_SPREAD_MODES] = { "fast", "ordered" };

/* What one process of one run saw, slot by slot (queue, then entry). */
struct outcome {
	uint64_t model_ns[SLOTS];	/* less the run's epoch */
	uint16_t status[SLOTS];
	unsigned int n;
};

/* One mode's figures over its runs. */
struct spread_result {
	unsigned int differed;		/* completions not alike in every run */
	uint64_t max_ns;		/* the largest spread, max - min */
	double mean_ns;			/* the mean over the completions */
	unsigned int max_proc;		/* where the largest is */
	unsigned int max_slot;
	uint64_t end_min_ns;		/* a run's last completion */
	uint64_t end_max_ns;
};

struct spread_bench {
	unsigned int runs;			/* of each mode */
	char order_param[16];			/* model_order, or "unknown" */
	struct ubfab_entity_info receiver;	/* the importer */
	struct ubfab_entity_info senders[SENDERS];
	unsigned int same, other;		/* senders found of each */
	uint64_t latest_ns;			/* the latest model_ns so far */
	struct outcome *out;			/* [mode][run][proc], shared */
	struct spread_result res[NR_SPREAD_MODES];
};

/* The outcomes of process @p in run @r of mode @m. */
static struct outcome *outcome(const struct spread_bench *sb,
			       enum spread_mode m, unsigned int r,
			       unsigned int p)
{
	return &sb->out[((size_t)m * sb->runs + r) * PROCS + p];
}

/* How many completions process @p has: a sender's slots, the waiter's. */
static unsigned int proc_slots(unsigned int p)
{
	return p < SENDERS ? SLOTS : WAITER_SLOTS;
}

/* The entity of process @p: a sender's, or the receiver. */
static const char *proc_name(const struct spread_bench *sb, unsigned int p)
{
	return p < SENDERS ? sb->senders[p].name : sb->receiver.name;
}

/*
 * ubfab_entity_dump() callback: the first SAME_SENDERS NPU dies, in EID
 * order, of the receiver's node off its chip, and the first OTHER_SENDERS
 * of other nodes; the same node's first.
 */
static int sender_match(const struct ubfab_entity_info *e, void *arg)
{
	struct spread_bench *sb = arg;
	const struct ubfab_entity_info *r = &sb->receiver;

	if (e->kind != UBFAB_ENTITY_NPU || e->eid == r->eid)
		return 0;
	if (e->node != r->node) {
		if (sb->other < OTHER_SENDERS)
			sb->senders[SAME_SENDERS + sb->other++] = *e;
	} else if (r->kind != UBFAB_ENTITY_NPU || e->chip != r->chip) {
		if (sb->same < SAME_SENDERS)
			sb->senders[sb->same++] = *e;
	}
	return 0;
}

/* The receiver and its senders, found by topology. */
static int find_senders(struct bench *b)
{
	struct spread_bench *sb = b->spread;
	struct ubfab_nl *nl;
	int err;

	err = nl_open(&nl);
	if (err)
		return err;
	err = ubfab_entity_get(nl, ubfab_dev_eid(b->importer), &sb->receiver);
	if (err)
		fail("the importer's topology", err);
	else
		err = entities_dump(nl, sender_match, sb);
	ubfab_nl_close(nl);
	if (err)
		return err;
	if (sb->same < SAME_SENDERS || sb->other < OTHER_SENDERS) {
		fprintf(stderr, "ubbench: model spread: the topology has %u NPU dies of %s's node off its chip and %u of other nodes, not %d and %d\n",
			sb->same, sb->receiver.name, sb->other, SAME_SENDERS,
			OTHER_SENDERS);
		return -ENODEV;
	}
	return 0;
}

/* The module parameter model_order ("fast", "ordered"), or "unknown". */
static void read_order_param(struct spread_bench *sb)
{
	FILE *f = fopen(ORDER_PARAM, "r");

	snprintf(sb->order_param, sizeof(sb->order_param), "unknown");
	if (f && fgets(sb->order_param, sizeof(sb->order_param), f))
		sb->order_param[strcspn(sb->order_param, "\n")] = '\0';
	if (f)
		fclose(f);
}

/*
 * A queue of a process of the workload on @dev, in @mode's way: ordered,
 * or with its clock moved on to @epoch. @poll: a polling queue.
 */
static int make_queue(struct ubfab_dev *dev, enum spread_mode mode,
		      uint64_t epoch, bool poll, struct ubfab_queue **qp)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	int err;

	attr.flags = (mode == SPREAD_ORDERED ? UBFAB_QUEUE_ORDERED : 0) |
		     (poll ? UBFAB_QUEUE_POLL : 0);
	err = ubfab_queue_create(dev, &attr, qp);
	if (err) {
		fprintf(stderr, "ubbench: model spread: creating a queue on %s: %s%s\n",
			ubfab_dev_name(dev), strerror(-err),
			err == -EINVAL && mode == SPREAD_ORDERED ?
			" (a module without the ordered domain?)" : "");
		return err;
	}
	if (mode == SPREAD_FAST) {
		err = ubfab_queue_clock(*qp, epoch, NULL);
		if (err)
			fail("model spread: moving a queue's clock on", err);
	}
	return err;
}

/* Sleeps a random 0 to JITTER_US microseconds, to shuffle the host's order. */
static void jitter(void)
{
	usleep(rand() % JITTER_US);
}

/*
 * Entry @e of a sender's queue @qi (sender_entries), from its range @loc
 * to the receiver's segment at @rem or back; COMPUTEs of a few us that
 * differ by queue and entry.
 */
static void prep_sender_entry(struct ubfab_sqe *sqe, unsigned int qi,
			      unsigned int e, uint64_t loc, uint64_t rem)
{
	switch (sender_entries[e].op) {
	case UBFAB_OP_WRITE:
		ubfab_prep_write(sqe, loc, rem + qi * READ_BYTES,
				 WRITE_BYTES);
		break;
	case UBFAB_OP_READ:
		ubfab_prep_read(sqe, loc, rem, READ_BYTES);
		break;
	case UBFAB_OP_COMPUTE:
		ubfab_prep_compute(sqe, 1000 + 700 * qi + 300 * e);
		break;
	default:
		ubfab_prep_write_notify(sqe, loc, rem + qi * NOTIFY_BYTES,
					NOTIFY_BYTES, rem + FLAG_OFF, 1);
		break;
	}
}

/*
 * Parks @nr queues (outside the domain, a no-op), then takes @per
 * completions of each into @out, model_ns less @epoch. 0 or -errno.
 */
static int park_and_reap(struct ubfab_queue **q, unsigned int nr,
			 unsigned int per, uint64_t epoch, struct outcome *out)
{
	struct ubfab_cqe *cqe;
	unsigned int qi, i;
	int err;

	for (qi = 0; qi < nr; qi++) {
		err = ubfab_queue_park(q[qi]);
		if (err) {
			fail("model spread: parking a queue", err);
			return err;
		}
	}
	for (qi = 0; qi < nr; qi++) {
		for (i = 0; i < per; i++) {
			err = ubfab_queue_wait_cqe(q[qi], &cqe, WAIT_MS);
			if (err) {
				fail("model spread: waiting for a completion",
				     err);
				return err;
			}
			out->model_ns[out->n] = cqe->model_ns - epoch;
			out->status[out->n++] = cqe->status;
			ubfab_queue_cqe_seen(q[qi]);
		}
	}
	return 0;
}

/* The barrier: says the queues exist on @ready, waits for a byte on @go. */
static int barrier(int ready, int go)
{
	char c = 0;

	return write(ready, &c, 1) == 1 && read(go, &c, 1) == 1 ? 0 : -EPIPE;
}

/*
 * Sender @p's process: its entity, an import of the receiver's segment
 * @tid, its range, its queues; after the barrier, its entries one at a
 * time, each after a random delay. Returns the exit status.
 */
static int run_sender(const struct bench *b, unsigned int p, uint32_t tid,
		      enum spread_mode mode, uint64_t epoch, int ready,
		      int go, struct outcome *out)
{
	const char *name = b->spread->senders[p].name;
	struct ubfab_queue *q[QUEUES] = { NULL };
	struct ubfab_import imp;
	struct ubfab_dev *dev;
	unsigned int qi, e;
	uint64_t loc, rem;
	int err, ret = 1;

	err = ubfab_dev_open(name, &dev);
	if (!err)
		err = ubfab_dev_import(dev, b->spread->receiver.eid, tid,
				       TOKEN_VALUE, RWA, &imp);
	if (!err)
		err = ubfab_dev_alloc(dev, REGION, &loc);
	if (err) {
		fprintf(stderr, "ubbench: model spread: %s: %s\n", name,
			strerror(-err));
		return 1;
	}
	rem = ubfab_import_addr(&imp, 0);
	for (qi = 0; qi < QUEUES; qi++)
		if (make_queue(dev, mode, epoch, qi == QUEUES - 1, &q[qi]))
			goto out;
	if (barrier(ready, go))
		goto out;
	for (e = 0; e < ENTRIES; e++) {
		for (qi = 0; qi < QUEUES; qi++) {
			jitter();
			prep_sender_entry(ubfab_queue_get_sqe(q[qi]), qi, e,
					  loc, rem);
			err = ubfab_queue_submit(q[qi]);
			if (err < 0) {
				fail("model spread: submission", err);
				goto out;
			}
		}
	}
	ret = park_and_reap(q, QUEUES, ENTRIES, epoch, out) ? 1 : 0;
out:
	for (qi = 0; qi < QUEUES; qi++)
		ubfab_queue_destroy(q[qi]);
	ubfab_dev_close(dev);
	return ret;
}

/*
 * The waiter's process, on the receiver: after the barrier and a random
 * delay, a WAIT_VALUE for every sender queue's notify on the flag at
 * @flag, then a COMPUTE. Returns the exit status.
 */
static int run_waiter(const struct bench *b, uint64_t flag,
		      enum spread_mode mode, uint64_t epoch, int ready,
		      int go, struct outcome *out)
{
	struct ubfab_queue *q;
	int err, ret = 1;

	if (make_queue(b->importer, mode, epoch, false, &q))
		return 1;
	if (barrier(ready, go))
		goto out;
	jitter();
	ubfab_prep_wait_value(ubfab_queue_get_sqe(q), flag, UBFAB_WAIT_GE,
			      SENDERS * QUEUES, WAIT_MS);
	ubfab_prep_compute(ubfab_queue_get_sqe(q), WAITER_COMPUTE_NS);
	err = ubfab_queue_submit(q);
	if (err < 0)
		fail("model spread: submission", err);
	else
		ret = park_and_reap(&q, 1, WAITER_SLOTS, epoch, out) ? 1 : 0;
out:
	ubfab_queue_destroy(q);
	return ret;
}

/*
 * Starts the PROCS processes of a run, lets them go once all have made
 * their queues (so that in the ordered domain every queue exists before
 * any posts) and waits for them. 0, or -EIO if one failed.
 */
static int run_procs(const struct bench *b, uint32_t tid, uint64_t flag,
		     enum spread_mode mode, unsigned int run, uint64_t epoch)
{
	struct spread_bench *sb = b->spread;
	unsigned int seed = now_ns() ^ run, p, started, ready_n = 0;
	int ready[2], go[2], status, err = 0;
	pid_t pid[PROCS];
	char c[PROCS] = { 0 };

	if (pipe(ready)) {
		err = -errno;
		fail("model spread: pipe", err);
		return err;
	}
	if (pipe(go)) {
		err = -errno;
		fail("model spread: pipe", err);
		close(ready[0]);
		close(ready[1]);
		return err;
	}
	fflush(NULL);
	for (started = 0; started < PROCS; started++) {
		pid[started] = fork();
		if (pid[started] < 0) {
			err = -errno;
			fail("model spread: fork", err);
			break;
		}
		if (pid[started])
			continue;
		p = started;
		srand(seed * 131 + p);
		close(ready[0]);
		close(go[1]);
		_exit(p < SENDERS ?
		      run_sender(b, p, tid, mode, epoch, ready[1], go[0],
				 outcome(sb, mode, run, p)) :
		      run_waiter(b, flag, mode, epoch, ready[1], go[0],
				 outcome(sb, mode, run, p)));
	}
	close(ready[1]);
	close(go[0]);
	/* A process that failed before the barrier closes its end: EOF. */
	while (!err && ready_n < started && read(ready[0], c, 1) == 1)
		ready_n++;
	/* Not all there: closing go without a byte sends them home. */
	if (ready_n == PROCS && write(go[1], c, PROCS) != PROCS) {
		err = -EPIPE;
		fail("model spread: letting the processes go", err);
	}
	close(go[1]);
	close(ready[0]);
	for (p = 0; p < started; p++) {
		if (waitpid(pid[p], &status, 0) == pid[p] &&
		    WIFEXITED(status) && !WEXITSTATUS(status))
			continue;
		fprintf(stderr, "ubbench: model spread: %s run %u: the process of %s failed\n",
			mode_names[mode], run + 1, proc_name(sb, p));
		err = -EIO;
	}
	return err;
}

/*
 * Run @run of @mode: the receiver's segment, fresh (its flag 0), the
 * processes, and a check of what they saw. 0 or -errno (printed).
 */
static int run_once(struct bench *b, enum spread_mode mode, unsigned int run)
{
	struct spread_bench *sb = b->spread;
	uint64_t off, epoch = 0;
	unsigned int p, i;
	uint32_t tid;
	int err;

	/*
	 * The ordered domain starts each run at 0 on idle links; a fast run
	 * starts past everything before it.
	 */
	if (mode == SPREAD_FAST)
		epoch = sb->latest_ns + EPOCH_GAP_NS;
	err = ubfab_dev_alloc(b->importer, REGION, &off);
	if (err) {
		fail("model spread: alloc of the receiver's segment", err);
		return err;
	}
	err = ubfab_dev_export(b->importer, off, REGION, RWA, TOKEN_VALUE,
			       &tid);
	if (err) {
		fail("model spread: export of the receiver's segment", err);
		goto out_free;
	}
	err = run_procs(b, tid, off + FLAG_OFF, mode, run, epoch);
	for (p = 0; !err && p < PROCS; p++) {
		const struct outcome *o = outcome(sb, mode, run, p);

		for (i = 0; !err && i < o->n; i++) {
			if (o->status[i] != UBFAB_CQE_OK) {
				fprintf(stderr, "ubbench: model spread: %s run %u: a completion of %s with status %u\n",
					mode_names[mode], run + 1,
					proc_name(sb, p), o->status[i]);
				err = -EIO;
			}
			if (o->model_ns[i] + epoch > sb->latest_ns)
				sb->latest_ns = o->model_ns[i] + epoch;
		}
	}
	ubfab_dev_unexport(b->importer, tid);
out_free:
	ubfab_dev_free(b->importer, off);
	return err;
}

/* @mode's figures over its runs. */
static void spread_of(struct spread_bench *sb, enum spread_mode mode)
{
	struct spread_result *res = &sb->res[mode];
	uint64_t lo, hi, v, end, total = 0;
	unsigned int p, i, r;

	res->end_min_ns = UINT64_MAX;
	for (r = 0; r < sb->runs; r++) {
		end = 0;
		for (p = 0; p < PROCS; p++)
			for (i = 0; i < proc_slots(p); i++)
				if (outcome(sb, mode, r, p)->model_ns[i] > end)
					end = outcome(sb, mode, r, p)->model_ns[i];
		if (end < res->end_min_ns)
			res->end_min_ns = end;
		if (end > res->end_max_ns)
			res->end_max_ns = end;
	}
	for (p = 0; p < PROCS; p++) {
		for (i = 0; i < proc_slots(p); i++) {
			lo = UINT64_MAX;
			hi = 0;
			for (r = 0; r < sb->runs; r++) {
				v = outcome(sb, mode, r, p)->model_ns[i];
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
			res->differed += hi != lo;
			total += hi - lo;
			if (hi - lo > res->max_ns) {
				res->max_ns = hi - lo;
				res->max_proc = p;
				res->max_slot = i;
			}
		}
	}
	res->mean_ns = (double)total / COMPLETIONS;
}

/*
 * The ordered runs first: the first queue to join the empty domain puts
 * every link back to idle, so the fast runs after them know the latest
 * time reserved (the latest completion) and start past it.
 */
int spread_run(struct bench *b)
{
	static const enum spread_mode order[] = { SPREAD_ORDERED, SPREAD_FAST };
	struct spread_bench *sb;
	unsigned int m, r;
	int err = 0;

	sb = calloc(1, sizeof(*sb));
	if (!sb) {
		fail("allocating the model spread figures", -ENOMEM);
		return -ENOMEM;
	}
	b->spread = sb;
	sb->runs = b->iters_given ? b->iters : SPREAD_RUNS;
	if (sb->runs < SPREAD_RUNS_MIN)
		sb->runs = SPREAD_RUNS_MIN;
	read_order_param(sb);
	/* The processes write into it; exit unmaps it. */
	sb->out = mmap(NULL, NR_SPREAD_MODES * sb->runs * PROCS *
		       sizeof(*sb->out), PROT_RW, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (sb->out == MAP_FAILED) {
		sb->out = NULL;
		err = -errno;
		fail("model spread: mapping the outcomes", err);
		return err;
	}
	err = find_senders(b);
	for (m = 0; !err && m < ARRAY_SIZE(order); m++) {
		for (r = 0; !err && r < sb->runs; r++)
			err = run_once(b, order[m], r);
		if (!err)
			spread_of(sb, order[m]);
	}
	if (err)
		fprintf(stderr, "ubbench: model spread: measurement failed\n");
	return err;
}

unsigned int spread_differed(const struct bench *b)
{
	return b->spread ? b->spread->res[SPREAD_ORDERED].differed : 0;
}

/* Where @res's largest spread is: "npu16 queue 1 entry 3 (WRITE)". */
static void max_where(const struct spread_bench *sb,
		      const struct spread_result *res, char *buf, size_t len)
{
	unsigned int p = res->max_proc, slot = res->max_slot;

	if (p < SENDERS)
		snprintf(buf, len, "%s queue %u entry %u (%s)",
			 proc_name(sb, p), slot / ENTRIES, slot % ENTRIES,
			 sender_entries[slot % ENTRIES].name);
	else
		snprintf(buf, len, "%s queue 0 entry %u (%s)",
			 proc_name(sb, p), slot, waiter_entries[slot]);
}

/* The names of senders @from to @to - 1, "npu2, npu3", into @buf. */
static void sender_names(const struct spread_bench *sb, unsigned int from,
			 unsigned int to, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int s;

	buf[0] = '\0';
	for (s = from; s < to && at < len; s++)
		at += snprintf(buf + at, len - at, "%s%s", s > from ? ", " : "",
			       sb->senders[s].name);
}

void spread_print(const struct bench *b)
{
	const struct spread_bench *sb = b->spread;
	const struct spread_result *res;
	char same[SAME_SENDERS * UBFAB_NAME_MAX];
	char other[OTHER_SENDERS * UBFAB_NAME_MAX];
	char where[96], end[48];
	unsigned int m;

	sender_names(sb, 0, SAME_SENDERS, same, sizeof(same));
	sender_names(sb, SAME_SENDERS, SENDERS, other, sizeof(other));
	printf("model spread: modeled times of one contention workload, %u runs in each mode, fast (the host's order) and ordered (UBFAB_QUEUE_ORDERED); module parameter model_order %s\n",
	       sb->runs, sb->order_param);
	printf("  %d senders (%s of %s's node; %s of another), %d queues each (the last polling), %u entries a queue: WRITEs of %lu KiB to and READs of %lu KiB from %s, COMPUTEs, a WRITE_NOTIFY; %s WAIT_VALUEs for the %d notifies, then COMPUTEs; a random host delay of 0 to %d us before each submission\n",
	       SENDERS, same, sb->receiver.name, other, QUEUES, ENTRIES,
	       WRITE_BYTES / KiB, READ_BYTES / KiB, sb->receiver.name,
	       sb->receiver.name, SENDERS * QUEUES, JITTER_US);
	printf("  spread: a completion's largest model_ns over the runs less its smallest; a fast run's model_ns count from the clock its queues start at, past the runs before it\n");
	printf("  %-8s %11s %9s %18s %15s %26s  %s\n", "mode", "completions",
	       "differed", "largest spread ns", "mean spread ns",
	       "last completion ns", "largest at");
	for (m = 0; m < NR_SPREAD_MODES; m++) {
		res = &sb->res[m];
		if (res->max_ns)
			max_where(sb, res, where, sizeof(where));
		else
			snprintf(where, sizeof(where), "-");
		snprintf(end, sizeof(end), "%llu to %llu",
			 (unsigned long long)res->end_min_ns,
			 (unsigned long long)res->end_max_ns);
		printf("  %-8s %11u %9u %18llu %15.1f %26s  %s\n",
		       mode_names[m], COMPLETIONS, res->differed,
		       (unsigned long long)res->max_ns, res->mean_ns, end,
		       where);
	}
	if (!strcmp(sb->order_param, "ordered"))
		printf("  note: model_order is ordered: the fast mode's queues are in the ordered domain too\n");
	if (sb->res[SPREAD_ORDERED].differed)
		printf("  the ordered domain's times differed between runs: a determinism bug\n");
}

/* An entity, on the current line: {"name": N, "eid": E}. */
static void json_entity_of(struct json *j, const char *key,
			   const struct ubfab_entity_info *e)
{
	json_object_begin(j, key);
	json_string(j, "name", e->name);
	json_uint(j, "eid", e->eid);
	json_object_end(j);
}

void spread_json(const struct bench *b, struct json *j)
{
	const struct spread_bench *sb = b->spread;
	const struct spread_result *res;
	char where[96];
	unsigned int m, s;

	json_break(j);
	json_object_begin(j, "spread");
	json_break(j);
	json_uint(j, "runs", sb->runs);
	json_string(j, "model_order", sb->order_param);
	json_uint(j, "jitter_us", JITTER_US);
	json_break(j);
	json_entity_of(j, "receiver", &sb->receiver);
	json_array_begin(j, "senders");
	for (s = 0; s < SENDERS; s++)
		json_entity_of(j, NULL, &sb->senders[s]);
	json_array_end(j);
	json_uint(j, "queues_per_sender", QUEUES);
	json_uint(j, "entries_per_queue", ENTRIES);
	for (m = 0; m < NR_SPREAD_MODES; m++) {
		res = &sb->res[m];
		json_break(j);
		json_object_begin(j, mode_names[m]);
		json_uint(j, "completions", COMPLETIONS);
		json_uint(j, "differed", res->differed);
		json_uint(j, "max_spread_ns", res->max_ns);
		json_fixed(j, "mean_spread_ns", res->mean_ns, 1);
		json_uint(j, "end_min_ns", res->end_min_ns);
		json_uint(j, "end_max_ns", res->end_max_ns);
		if (res->max_ns) {
			max_where(sb, res, where, sizeof(where));
			json_string(j, "max_at", where);
		} else {
			json_null(j, "max_at");
		}
		json_object_end(j);
	}
	json_break(j);
	json_object_end(j);
}

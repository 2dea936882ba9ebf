// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab NPU queues: the queue object and its file descriptor, the rings it
 * shares with user space, and the engine that runs its entries.
 *
 * A queue is a file of its own ("[ubfab-queue]") created by an entity
 * file's UBFAB_IOCTL_QUEUE_CREATE. Its mapping holds a header page (each
 * index, flag word and counter on a cache line of its own), then the SQ
 * entries, then the CQ entries. The queue holds a reference on its entity
 * file, so the allocations and imports its entries name outlive it.
 *
 * The engine. Every queue has a work item on one module-wide workqueue.
 * A round, always under the queue's @run_lock, takes at most
 * UBFAB_QUEUE_BUDGET entries in order, each completing before the next
 * starts. The work item runs rounds back to back, dropping @run_lock and
 * calling cond_resched() between them, for at most UBFAB_QUEUE_SLICE;
 * then it requeues itself, so a busy queue cannot starve the others and a
 * polling queue costs no work item cycle per round. In a round, a run of
 * small WRITEs and READs goes in bursts of up to UBFAB_QUEUE_BURST
 * entries, copied out together and handed to the data path's fast path
 * (ubfab_xfer_fast_run()), their completions published together; any
 * other entry goes alone. The doorbell runs one round inline when it can
 * take @run_lock at once, which spares a worker wake-up per batch. Nothing
 * in a round blocks: an EVENT_WAIT or WAIT_VALUE that is not satisfied
 * holds the queue (@waiting) and is looked at again by the delayed work
 * item (every jiffy for WAIT_VALUE; at its time-out, or when EVENT_RECORD
 * on the same entity file kicks the queue, for EVENT_WAIT).
 *
 * Memory ordering with user space (the uAPI header has the user's half):
 *  - SQ: the engine reads the user's tail with smp_load_acquire(), which
 *    orders the reads of the entries after it; it copies each whole entry
 *    out of the ring before checking any field (a look at the opcode of
 *    the entry at the head only chooses a burst, which copies first too),
 *    and publishes its head with smp_store_release() once the copies are
 *    done, so the user never overwrites a slot that is still being read.
 *  - CQ: the engine reads the user's head with smp_load_acquire() before it
 *    overwrites a slot, writes the entry, then publishes its tail with
 *    smp_store_release(), so the user who reads the tail with acquire sees
 *    the whole entry.
 *  - NEED_WAKEUP: the engine sets the flag, smp_mb(), then reads the tail
 *    once more; the user stores the tail, full barrier, then reads the
 *    flag. One of the two always sees the other's store.
 *  - poll(): the engine publishes the CQ tail, then wq_has_sleeper() (a
 *    full barrier) looks for waiters before it wakes them; a poller joins
 *    the wait queue, smp_mb(), then reads the tail. One of the two always
 *    sees the other's store.
 *  - Every index and flag in the mapping may be scribbled on by user space:
 *    the engine keeps its own copies (struct ubfab_queue), only ever writes
 *    the shared ones, and masks every index before use.
 *
 * Locking: @run_lock → (ubfab_xfer_execute()'s locks: imports_lock,
 * then one or two mem_locks, in eid order) → the entity file's
 * @queues_lock (a spinlock, taken by EVENT_RECORD to kick waiting
 * queues) → the workqueue's own locks.
 */
#include <linux/anon_inodes.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "ubfab.h"

/* Entries one round takes before the queue yields to the others. */
#define UBFAB_QUEUE_BUDGET	64
/* Entries between two cond_resched() calls in a round. */
#define UBFAB_QUEUE_RESCHED	16
/* How long the work item runs rounds before it requeues itself. */
#define UBFAB_QUEUE_SLICE	1	/* jiffies */

/**
 * struct ubfab_ring_hdr - the first page of a queue's mapping
 * @sq_head: SQ head, written by the engine
 * @sq_tail: SQ tail, written by user space
 * @sq_flags: UBFAB_SQ_*, written by the engine
 * @sq_overflow: invalid SQ tails seen, written by the engine
 * @cq_head: CQ head, written by user space
 * @cq_tail: CQ tail, written by the engine
 * @cq_flags: unused, 0
 * @cq_overflow: stalls on a full CQ, written by the engine
 *
 * Each word has a cache line of its own, so the producer and the consumer
 * of a ring never write the same line.
 */
struct ubfab_ring_hdr {
	u32 sq_head ____cacheline_aligned;
	u32 sq_tail ____cacheline_aligned;
	u32 sq_flags ____cacheline_aligned;
	u32 sq_overflow ____cacheline_aligned;
	u32 cq_head ____cacheline_aligned;
	u32 cq_tail ____cacheline_aligned;
	u32 cq_flags ____cacheline_aligned;
	u32 cq_overflow ____cacheline_aligned;
};

static_assert(sizeof(struct ubfab_ring_hdr) <= PAGE_SIZE);
static_assert(sizeof(struct ubfab_sqe) == 64);
static_assert(sizeof(struct ubfab_cqe) == 32);

/* What a round leaves to do. */
enum ubfab_queue_next {
	UBFAB_QUEUE_IDLE,	/* nothing runnable: empty, stalled or bad tail */
	UBFAB_QUEUE_AGAIN,	/* budget spent, entries remain */
	UBFAB_QUEUE_WAIT,	/* an entry holds the queue */
};

static struct workqueue_struct *ubfab_queue_wq;

int ubfab_queue_wq_init(void)
{
	ubfab_queue_wq = alloc_workqueue("ubfab_queue", WQ_UNBOUND, 0);
	return ubfab_queue_wq ? 0 : -ENOMEM;
}

/* Context: module exit; no queue exists, so no work item is queued. */
void ubfab_queue_wq_fini(void)
{
	destroy_workqueue(ubfab_queue_wq);
}

void ubfab_queue_file_init(struct ubfab_file *file)
{
	spin_lock_init(&file->queues_lock);
	INIT_LIST_HEAD(&file->queues);
}

/* Context: the file's release; its queues, which held it, are gone. */
void ubfab_queue_file_fini(struct ubfab_file *file)
{
	WARN_ON(!list_empty(&file->queues));
	kfree(file->queue_events);
}

/* Run the queue's work item now, or sooner than it was due. */
static void ubfab_queue_kick(struct ubfab_queue *q)
{
	mod_delayed_work(ubfab_queue_wq, &q->work, 0);
}

/* Publish the engine's SQ flag word. Context: run_lock. */
static void ubfab_queue_set_flags(struct ubfab_queue *q, u32 set, u32 clear)
{
	q->sq_flags = (q->sq_flags | set) & ~clear;
	WRITE_ONCE(q->hdr->sq_flags, q->sq_flags);
}

static void ubfab_queue_enter_error(struct ubfab_queue *q)
{
	WRITE_ONCE(q->error, true);
	ubfab_queue_set_flags(q, UBFAB_SQ_ERROR, 0);
}

/*
 * How many more completions the CQ has room for. The first time it has
 * none, count a stall and say so in the SQ flags. Context: run_lock.
 */
static u32 ubfab_queue_cq_room(struct ubfab_queue *q)
{
	/* Pairs with the user's release of its head: it is done with those. */
	u32 head = smp_load_acquire(&q->hdr->cq_head);

	if (ubfab_ring_has_room(q->cq_tail, head, q->cq_mask + 1)) {
		if (q->cq_stalled) {
			q->cq_stalled = false;
			ubfab_queue_set_flags(q, 0, UBFAB_SQ_CQ_FULL);
		}
		return q->cq_mask + 1 - (q->cq_tail - head);
	}
	if (!q->cq_stalled) {
		q->cq_stalled = true;
		WRITE_ONCE(q->hdr->cq_overflow, ++q->cq_overflow);
		ubfab_queue_set_flags(q, UBFAB_SQ_CQ_FULL, 0);
	}
	return 0;
}

/*
 * Write one completion, not yet published (ubfab_queue_publish_cq());
 * ubfab_queue_cq_room() said there is room.
 */
static void ubfab_queue_write_cqe(struct ubfab_queue *q,
				  const struct ubfab_sqe *sqe, u16 status,
				  u64 result, u32 bytes)
{
	struct ubfab_cqe *cqe = &q->cqes[q->cq_tail & q->cq_mask];

	*cqe = (struct ubfab_cqe) {
		.user_data = sqe->user_data,
		.result = result,
		.bytes = bytes,
		.status = status,
		.opcode = sqe->opcode,
	};
	q->cq_tail++;
}

/* Let user space see the completions written so far. */
static void ubfab_queue_publish_cq(struct ubfab_queue *q)
{
	/* The entries are written before the user can see the new tail. */
	smp_store_release(&q->hdr->cq_tail, q->cq_tail);
}

/* Post one completion; ubfab_queue_cq_room() said there is room. */
static void ubfab_queue_post(struct ubfab_queue *q,
			     const struct ubfab_sqe *sqe, u16 status,
			     u64 result, u32 bytes)
{
	ubfab_queue_write_cqe(q, sqe, status, result, bytes);
	ubfab_queue_publish_cq(q);
}

/*
 * Whether an entry that succeeded completes: not if the queue is selective
 * and the entry did not ask for it.
 */
static bool ubfab_queue_wants_cqe(const struct ubfab_queue *q,
				  const struct ubfab_sqe *sqe)
{
	return !(q->flags & UBFAB_QUEUE_SELECTIVE) ||
	       sqe->flags & UBFAB_SQE_SIGNAL;
}

/*
 * An entry ended: a failure always completes and puts the queue in the
 * error state; a success completes as ubfab_queue_wants_cqe() says.
 */
static void ubfab_queue_complete(struct ubfab_queue *q,
				 const struct ubfab_sqe *sqe, u16 status,
				 u64 result, u32 bytes, unsigned int *posted)
{
	if (status != UBFAB_CQE_OK)
		ubfab_queue_enter_error(q);
	else if (!ubfab_queue_wants_cqe(q, sqe))
		return;
	ubfab_queue_post(q, sqe, status, result, bytes);
	(*posted)++;
}

/* Fields of struct ubfab_sqe an opcode may use; the others must be 0. */
#define SQE_LENGTH	BIT(0)
#define SQE_LOCAL	BIT(1)
#define SQE_REMOTE	BIT(2)
#define SQE_VALUE	BIT(3)
#define SQE_COMPARE	BIT(4)
#define SQE_NOTIFY	BIT(5)
#define SQE_AUX		BIT(6)
#define SQE_TIMEOUT	BIT(7)

static bool ubfab_sqe_unused_zero(const struct ubfab_sqe *sqe,
				  unsigned int used)
{
	return (used & SQE_LENGTH || !sqe->length) &&
	       (used & SQE_LOCAL || !sqe->local) &&
	       (used & SQE_REMOTE || !sqe->remote) &&
	       (used & SQE_VALUE || !sqe->value) &&
	       (used & SQE_COMPARE || !sqe->compare) &&
	       (used & SQE_NOTIFY || !sqe->notify) &&
	       (used & SQE_AUX || !sqe->aux) &&
	       (used & SQE_TIMEOUT || !sqe->timeout_ms);
}

/* The fields of the queue's own operations, before anything runs. */
static u16 ubfab_queue_check_sqe(const struct ubfab_sqe *sqe)
{
	bool ok;

	switch (sqe->opcode) {
	case UBFAB_OP_NOP:
		ok = ubfab_sqe_unused_zero(sqe, 0);
		break;
	case UBFAB_OP_EVENT_RECORD:
		ok = ubfab_sqe_unused_zero(sqe, SQE_AUX) &&
		     sqe->aux < UBFAB_QUEUE_EVENTS;
		break;
	case UBFAB_OP_EVENT_WAIT:
		ok = ubfab_sqe_unused_zero(sqe, SQE_VALUE | SQE_AUX |
						SQE_TIMEOUT) &&
		     sqe->aux < UBFAB_QUEUE_EVENTS;
		break;
	default: /* UBFAB_OP_WAIT_VALUE */
		ok = ubfab_sqe_unused_zero(sqe, SQE_LOCAL | SQE_VALUE |
						SQE_AUX | SQE_TIMEOUT) &&
		     IS_ALIGNED(sqe->local, sizeof(u64)) &&
		     sqe->aux <= UBFAB_WAIT_EQ;
		break;
	}
	return ok ? UBFAB_CQE_OK : UBFAB_CQE_BAD_ENTRY;
}

/* Event counter @event (< UBFAB_QUEUE_EVENTS, checked) of an entity file. */
static atomic64_t *ubfab_queue_event(struct ubfab_file *file, u32 event)
{
	return &file->queue_events[array_index_nospec(event,
						      UBFAB_QUEUE_EVENTS)];
}

/*
 * EVENT_RECORD: count, then kick the file's queues that wait. The counter
 * update is fully ordered and a waiter sets @waiting then smp_mb() before
 * it looks at the counter, so either the waiter sees the new count or this
 * sees @waiting.
 */
static u64 ubfab_queue_event_record(struct ubfab_queue *q, u32 event)
{
	struct ubfab_file *file = q->file;
	struct ubfab_queue *other;
	u64 count;

	count = atomic64_inc_return(ubfab_queue_event(file, event));
	spin_lock(&file->queues_lock);
	list_for_each_entry(other, &file->queues, file_node) {
		if (other != q && READ_ONCE(other->waiting))
			ubfab_queue_kick(other);
	}
	spin_unlock(&file->queues_lock);
	return count;
}

/*
 * Look at the entry that holds the queue. Return: true when it still does;
 * else it completed (satisfied, failed or timed out).
 */
static bool ubfab_queue_wait_check(struct ubfab_queue *q, unsigned int *posted)
{
	const struct ubfab_sqe *sqe = &q->wait_sqe;
	u16 status = UBFAB_CQE_OK;
	bool done;
	u64 seen;

	if (sqe->opcode == UBFAB_OP_EVENT_WAIT) {
		seen = atomic64_read(ubfab_queue_event(q->file, sqe->aux));
		done = seen >= sqe->value;
	} else {
		status = ubfab_xfer_load_local(q->file, sqe->local, &seen);
		if (status != UBFAB_CQE_OK)
			seen = 0;
		done = sqe->aux == UBFAB_WAIT_GE ? seen >= sqe->value :
						   seen == sqe->value;
		done = done || status != UBFAB_CQE_OK;
	}
	if (!done && sqe->timeout_ms &&
	    time_after_eq(jiffies, q->wait_deadline)) {
		status = UBFAB_CQE_TIMEOUT;
		done = true;
	}
	if (!done)
		return true;
	WRITE_ONCE(q->waiting, false);
	ubfab_queue_complete(q, sqe, status, seen, 0, posted);
	return false;
}

/* How long the work item may sleep while an entry holds the queue. */
static unsigned long ubfab_queue_wait_delay(struct ubfab_queue *q)
{
	/* WAIT_VALUE watches memory: look again at the next tick. */
	if (q->wait_sqe.opcode == UBFAB_OP_WAIT_VALUE)
		return 1;
	/* EVENT_WAIT is kicked by EVENT_RECORD; else sleep until time-out. */
	if (!q->wait_sqe.timeout_ms)
		return MAX_JIFFY_OFFSET;
	return time_after(q->wait_deadline, jiffies) ?
	       q->wait_deadline - jiffies : 0;
}

/*
 * Run one entry, copied out of the ring. Return: true when it now holds
 * the queue (an unsatisfied wait).
 */
static bool ubfab_queue_run(struct ubfab_queue *q, const struct ubfab_sqe *sqe,
			    unsigned int *posted)
{
	u64 result = 0;
	u32 bytes = 0;
	u16 status;

	if (sqe->opcode > UBFAB_OP_WAIT_VALUE)
		status = UBFAB_CQE_BAD_OPCODE;
	else if (sqe->flags & ~UBFAB_SQE_FLAGS || sqe->__reserved)
		status = UBFAB_CQE_BAD_ENTRY;
	else if (sqe->opcode >= UBFAB_OP_WRITE && sqe->opcode <= UBFAB_OP_FILL)
		status = ubfab_xfer_execute(q->file, sqe, &q->xfer,
					    &result, &bytes);
	else
		status = ubfab_queue_check_sqe(sqe);

	if (status == UBFAB_CQE_OK) {
		switch (sqe->opcode) {
		case UBFAB_OP_EVENT_RECORD:
			result = ubfab_queue_event_record(q, sqe->aux);
			break;
		case UBFAB_OP_EVENT_WAIT:
		case UBFAB_OP_WAIT_VALUE:
			q->wait_sqe = *sqe;
			q->wait_deadline = jiffies +
					   msecs_to_jiffies(sqe->timeout_ms);
			WRITE_ONCE(q->waiting, true);
			/* Pairs with ubfab_queue_event_record()'s update. */
			smp_mb();
			return ubfab_queue_wait_check(q, posted);
		}
	}
	ubfab_queue_complete(q, sqe, status, result, bytes, posted);
	return false;
}

/*
 * The user's SQ tail, or false when it is more than the ring ahead of the
 * engine's head: then the queue enters the error state and nothing runs
 * until user space publishes a valid tail.
 */
static bool ubfab_queue_sq_tail(struct ubfab_queue *q, u32 *tail)
{
	/* Pairs with the user's release: the entries up to it are written. */
	*tail = smp_load_acquire(&q->hdr->sq_tail);
	if (ubfab_ring_tail_ok(*tail, q->sq_head, q->sq_mask + 1)) {
		q->bad_tail = false;
		return true;
	}
	if (!q->bad_tail) {
		q->bad_tail = true;
		WRITE_ONCE(q->hdr->sq_overflow, ++q->sq_overflow);
		ubfab_queue_enter_error(q);
	}
	return false;
}

/*
 * The error state ends (a reset's tail reached): entries run again, and an
 * invalid tail found from now on counts anew. Context: run_lock.
 */
static void ubfab_queue_end_error(struct ubfab_queue *q)
{
	q->reset_pending = false;
	q->bad_tail = false;
	WRITE_ONCE(q->error, false);
	ubfab_queue_set_flags(q, 0, UBFAB_SQ_ERROR);
}

/*
 * Whether the entry in SQ slot @idx may start a burst: a WRITE or READ,
 * as a look at its opcode says. Only a hint: the burst copies the entry
 * before it checks anything.
 */
static bool ubfab_queue_burst_hint(struct ubfab_queue *q, u32 idx)
{
	u8 opcode = READ_ONCE(q->sqes[idx & q->sq_mask].opcode);

	return opcode == UBFAB_OP_WRITE || opcode == UBFAB_OP_READ;
}

/*
 * A burst: copy up to @max entries (at most UBFAB_QUEUE_BURST) from the SQ
 * while they are WRITEs and READs with sane flags, hand them to
 * ubfab_xfer_fast_run(), then take the ones it did out of the ring and
 * complete them. The rest stay in the ring for the usual path. Context:
 * run_lock; not in the error state; @max entries posted, as much CQ room.
 * Return: entries done.
 */
static unsigned int ubfab_queue_burst(struct ubfab_queue *q, unsigned int max,
				      unsigned int *posted)
{
	unsigned int n, done, i;
	struct ubfab_sqe *sqe;

	max = min_t(unsigned int, max, UBFAB_QUEUE_BURST);
	for (n = 0; n < max; n++) {
		sqe = &q->burst[n];
		/* Copy the whole entry before looking at any of it. */
		memcpy(sqe, &q->sqes[(q->sq_head + n) & q->sq_mask],
		       sizeof(*sqe));
		if ((sqe->opcode != UBFAB_OP_WRITE &&
		     sqe->opcode != UBFAB_OP_READ) ||
		    sqe->flags & ~UBFAB_SQE_FLAGS || sqe->__reserved)
			break;
	}
	done = ubfab_xfer_fast_run(q->file, &q->xfer, q->burst, n);
	if (!done)
		return 0;
	q->sq_head += done;
	/* The copies are done before the user may reuse the slots. */
	smp_store_release(&q->hdr->sq_head, q->sq_head);
	for (i = 0; i < done; i++) {
		sqe = &q->burst[i];
		if (!ubfab_queue_wants_cqe(q, sqe))
			continue;
		ubfab_queue_write_cqe(q, sqe, UBFAB_CQE_OK, 0, sqe->length);
		(*posted)++;
	}
	ubfab_queue_publish_cq(q);
	return done;
}

/**
 * ubfab_queue_round() - run up to @budget entries of a queue
 * @q: the queue
 * @budget: entries to take at most
 * @posted: out: completions posted
 *
 * The user's SQ tail and CQ head are read again only once the entries and
 * the CQ room they showed are used up. Runs of small WRITEs and READs go
 * in bursts (ubfab_queue_burst()); every other entry, and the first of a
 * run that the fast path does not take, goes one at a time.
 *
 * Context: @q->run_lock held. Never sleeps for long: nothing here waits.
 * Return: what is left to do.
 */
static enum ubfab_queue_next ubfab_queue_round(struct ubfab_queue *q,
					       unsigned int budget,
					       unsigned int *posted)
{
	u32 tail = q->sq_head, cq_room = 0;
	unsigned int done, since = 0;
	struct ubfab_sqe sqe;

	lockdep_assert_held(&q->run_lock);
	*posted = 0;
	if (q->waiting && ubfab_queue_wait_check(q, posted))
		return UBFAB_QUEUE_WAIT;

	while (budget) {
		/* a transfer reschedules between its chunks itself */
		if (since >= UBFAB_QUEUE_RESCHED) {
			since = 0;
			cond_resched();
		}
		if (q->reset_pending && q->sq_head == q->reset_at)
			ubfab_queue_end_error(q);
		if (tail == q->sq_head &&
		    (!ubfab_queue_sq_tail(q, &tail) || tail == q->sq_head))
			return UBFAB_QUEUE_IDLE;
		/* each entry posts one completion at most */
		if (!cq_room) {
			cq_room = ubfab_queue_cq_room(q);
			if (!cq_room)
				return UBFAB_QUEUE_IDLE;
		}

		if (!q->error && ubfab_queue_burst_hint(q, q->sq_head)) {
			done = ubfab_queue_burst(q, min3(budget, cq_room,
							 tail - q->sq_head),
						 posted);
			if (done) {
				budget -= done;
				cq_room -= done;
				since += done;
				continue;
			}
		}

		/* Copy the whole entry before looking at any of it. */
		memcpy(&sqe, &q->sqes[q->sq_head & q->sq_mask], sizeof(sqe));
		q->sq_head++;
		/* The copy is done before the user may reuse the slot. */
		smp_store_release(&q->hdr->sq_head, q->sq_head);
		budget--;
		cq_room--;
		since++;

		if (q->error) {
			ubfab_queue_post(q, &sqe, UBFAB_CQE_FLUSHED, 0, 0);
			(*posted)++;
			continue;
		}
		if (ubfab_queue_run(q, &sqe, posted))
			return UBFAB_QUEUE_WAIT;
	}
	return UBFAB_QUEUE_AGAIN;
}

/* Whether a round would find something to do. Context: run_lock. */
static bool ubfab_queue_has_work(struct ubfab_queue *q)
{
	/* Pairs with the user's release of its tail, as in a round. */
	u32 tail = smp_load_acquire(&q->hdr->sq_tail);
	u32 cq_head;

	if (tail == q->sq_head ||
	    !ubfab_ring_tail_ok(tail, q->sq_head, q->sq_mask + 1))
		return false;
	/* Pairs with the user's release of its CQ head. */
	cq_head = smp_load_acquire(&q->hdr->cq_head);
	return !q->cq_stalled ||
	       ubfab_ring_has_room(q->cq_tail, cq_head, q->cq_mask + 1);
}

/*
 * UBFAB_QUEUE_POLL: after a round that found nothing, keep polling until
 * the queue has been idle for idle_us, then set NEED_WAKEUP and sleep.
 * Context: run_lock.
 */
static enum ubfab_queue_next ubfab_queue_poll_idle(struct ubfab_queue *q)
{
	if (ktime_get_ns() - q->poll_busy_ns < q->idle_ns) {
		/*
		 * A spin-wait: let a sibling hardware thread (or, under
		 * emulation, the vCPU that will post the entry) run.
		 */
		cpu_relax();
		return UBFAB_QUEUE_AGAIN;
	}
	ubfab_queue_set_flags(q, UBFAB_SQ_NEED_WAKEUP, 0);
	/* Pairs with the user's barrier between its tail store and flag load. */
	smp_mb();
	if (!ubfab_queue_has_work(q))
		return UBFAB_QUEUE_IDLE;
	ubfab_queue_set_flags(q, 0, UBFAB_SQ_NEED_WAKEUP);
	return UBFAB_QUEUE_AGAIN;
}

/* Tell user space about completions a round posted. */
static void ubfab_queue_notify(struct ubfab_queue *q, unsigned int posted)
{
	if (!posted)
		return;
	if (q->eventfd)
		ubfab_eventfd_signal(q->eventfd);
	/*
	 * Skip the wait queue's lock when nobody waits: wq_has_sleeper()'s
	 * barrier orders the CQ tail's store before the look, and pairs with
	 * the one in ubfab_queue_poll().
	 */
	if (wq_has_sleeper(&q->poll_wait))
		wake_up_interruptible_poll(&q->poll_wait,
					   EPOLLIN | EPOLLRDNORM);
}

/* Queue the work item for what a round left to do. */
static void ubfab_queue_schedule(struct ubfab_queue *q,
				 enum ubfab_queue_next next,
				 unsigned long wait_delay)
{
	/*
	 * queue_delayed_work() leaves a pending kick alone, where
	 * mod_delayed_work() could postpone it.
	 */
	if (next == UBFAB_QUEUE_AGAIN)
		queue_delayed_work(ubfab_queue_wq, &q->work, 0);
	else if (next == UBFAB_QUEUE_WAIT && wait_delay != MAX_JIFFY_OFFSET)
		queue_delayed_work(ubfab_queue_wq, &q->work, wait_delay);
}

/*
 * The queue's work item: rounds back to back while anything is left, for
 * at most UBFAB_QUEUE_SLICE, with cond_resched() between them so other
 * tasks and other queues' workers run; then it requeues itself if
 * anything is still left.
 */
static void ubfab_queue_work(struct work_struct *work)
{
	struct ubfab_queue *q = container_of(to_delayed_work(work),
					     struct ubfab_queue, work);
	unsigned long until = jiffies + UBFAB_QUEUE_SLICE, wait_delay = 0;
	enum ubfab_queue_next next;
	unsigned int posted;
	u32 head;

	for (;;) {
		mutex_lock(&q->run_lock);
		if (q->sq_flags & UBFAB_SQ_NEED_WAKEUP) {
			/* Woken: poll again from now. */
			ubfab_queue_set_flags(q, 0, UBFAB_SQ_NEED_WAKEUP);
			q->poll_busy_ns = ktime_get_ns();
		}
		head = q->sq_head;
		next = ubfab_queue_round(q, UBFAB_QUEUE_BUDGET, &posted);
		if (q->flags & UBFAB_QUEUE_POLL) {
			if (head != q->sq_head || posted)
				q->poll_busy_ns = ktime_get_ns();
			if (next == UBFAB_QUEUE_IDLE)
				next = ubfab_queue_poll_idle(q);
		}
		if (next == UBFAB_QUEUE_WAIT)
			wait_delay = ubfab_queue_wait_delay(q);
		mutex_unlock(&q->run_lock);

		ubfab_queue_notify(q, posted);
		if (next != UBFAB_QUEUE_AGAIN || !time_before(jiffies, until))
			break;
		cond_resched();
	}
	ubfab_queue_schedule(q, next, wait_delay);
}

/*
 * UBFAB_IOCTL_QUEUE_DOORBELL. A polling queue's worker is kicked; else
 * one round runs here if no one else runs the queue, and the worker takes
 * whatever is left.
 */
static long ubfab_queue_doorbell(struct ubfab_queue *q)
{
	unsigned long wait_delay = 0;
	enum ubfab_queue_next next;
	unsigned int posted;

	if (q->flags & UBFAB_QUEUE_POLL || !mutex_trylock(&q->run_lock)) {
		ubfab_queue_kick(q);
		return READ_ONCE(q->error) ? -EIO : 0;
	}
	next = ubfab_queue_round(q, UBFAB_QUEUE_BUDGET, &posted);
	if (next == UBFAB_QUEUE_WAIT)
		wait_delay = ubfab_queue_wait_delay(q);
	mutex_unlock(&q->run_lock);

	ubfab_queue_notify(q, posted);
	ubfab_queue_schedule(q, next, wait_delay);
	return READ_ONCE(q->error) ? -EIO : 0;
}

/*
 * UBFAB_IOCTL_QUEUE_RESET: entries posted so far flush; once the engine's
 * head reaches the tail seen here, the error state ends: at once when
 * nothing is left to flush, so the doorbell that follows sees a ready
 * queue. An invalid tail counts as nothing posted.
 */
static long ubfab_queue_reset(struct ubfab_queue *q)
{
	bool flush = false;
	int ret;

	ret = mutex_lock_killable(&q->run_lock);
	if (ret)
		return ret;
	if (q->error) {
		if (!ubfab_queue_sq_tail(q, &q->reset_at))
			q->reset_at = q->sq_head;
		if (q->reset_at == q->sq_head) {
			ubfab_queue_end_error(q);
		} else {
			q->reset_pending = true;
			flush = true;
		}
	}
	mutex_unlock(&q->run_lock);
	if (flush)
		ubfab_queue_kick(q);
	return 0;
}

static long ubfab_queue_ioctl(struct file *filp, unsigned int cmd,
			      unsigned long arg)
{
	struct ubfab_queue *q = filp->private_data;

	switch (cmd) {
	case UBFAB_IOCTL_QUEUE_DOORBELL:
		return arg ? -EINVAL : ubfab_queue_doorbell(q);
	case UBFAB_IOCTL_QUEUE_RESET:
		return arg ? -EINVAL : ubfab_queue_reset(q);
	}
	return -ENOTTY;
}

static __poll_t ubfab_queue_poll(struct file *filp,
				 struct poll_table_struct *wait)
{
	struct ubfab_queue *q = filp->private_data;

	poll_wait(filp, &q->poll_wait, wait);
	/* Pairs with wq_has_sleeper() in ubfab_queue_notify(). */
	smp_mb();
	/*
	 * The published tail, as user space sees it: readable means a
	 * completion it can reap now. Only the queue's own users can write
	 * either word, and only mislead themselves.
	 */
	return READ_ONCE(q->hdr->cq_tail) != READ_ONCE(q->hdr->cq_head) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * The rings: zeroed pages charged to the creating process's memory cgroup
 * (the deepest rings take 4 MiB a queue), mapped into the kernel with
 * vmap() and into user space by ubfab_queue_mmap().
 */
static int ubfab_queue_ring_alloc(struct ubfab_queue *q)
{
	unsigned int i, n = q->ring_size >> PAGE_SHIFT;

	q->ring_pages = kvcalloc(n, sizeof(*q->ring_pages),
				 GFP_KERNEL_ACCOUNT);
	if (!q->ring_pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		q->ring_pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!q->ring_pages[i])
			goto err_free_pages;
	}
	q->ring = vmap(q->ring_pages, n, VM_MAP, PAGE_KERNEL);
	if (!q->ring)
		goto err_free_pages;
	return 0;

err_free_pages:
	while (i--)
		__free_page(q->ring_pages[i]);
	kvfree(q->ring_pages);
	return -ENOMEM;
}

static void ubfab_queue_ring_free(struct ubfab_queue *q)
{
	unsigned int i, n = q->ring_size >> PAGE_SHIFT;

	vunmap(q->ring);
	for (i = 0; i < n; i++)
		__free_page(q->ring_pages[i]);
	kvfree(q->ring_pages);
}

/* The rings, from offset 0 only, shared, at most their size. */
static int ubfab_queue_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ubfab_queue *q = filp->private_data;
	unsigned long n = vma_pages(vma);

	if (!(vma->vm_flags & VM_SHARED) || vma->vm_pgoff ||
	    n > q->ring_size >> PAGE_SHIFT)
		return -EINVAL;
	ubfab_vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP);
	return vm_insert_pages(vma, vma->vm_start, q->ring_pages, &n);
}

/*
 * Destroy: off the file's list first, so no EVENT_RECORD kicks it any more;
 * then the work item is cancelled and waited for, even if it requeues
 * itself. No ioctl runs, as release comes after the last one.
 */
static int ubfab_queue_release(struct inode *inode, struct file *filp)
{
	struct ubfab_queue *q = filp->private_data;
	struct ubfab_file *file = q->file;

	spin_lock(&file->queues_lock);
	list_del(&q->file_node);
	spin_unlock(&file->queues_lock);
	cancel_delayed_work_sync(&q->work);

	ubfab_xfer_cache_fini(&q->xfer);
	if (q->eventfd)
		eventfd_ctx_put(q->eventfd);
	ubfab_queue_ring_free(q);
	ida_free(&file->entity->queue_ids, q->id);
	kfree(q);
	fput(file->filp);
	return 0;
}

static const struct file_operations ubfab_queue_fops = {
	.owner = THIS_MODULE,
	.release = ubfab_queue_release,
	.unlocked_ioctl = ubfab_queue_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ubfab_queue_mmap,
	.poll = ubfab_queue_poll,
	.llseek = noop_llseek,
};

/**
 * ubfab_queue_check_create() - check UBFAB_IOCTL_QUEUE_CREATE's argument
 * @arg: from user space
 * @cq_entries: out: the CQ depth, its default (twice the SQ's) resolved
 * @idle_us: out: UBFAB_QUEUE_POLL's idle time, its default resolved;
 *	untouched without UBFAB_QUEUE_POLL
 *
 * Return: 0, or -EINVAL for unknown flags, a depth that is not a power of
 * two within its limit, or an idle time without UBFAB_QUEUE_POLL or above
 * UBFAB_QUEUE_IDLE_US_MAX.
 */
int ubfab_queue_check_create(const struct ubfab_queue_create *arg,
			     u32 *cq_entries, u32 *idle_us)
{
	if (arg->flags & ~UBFAB_QUEUE_FLAGS)
		return -EINVAL;
	if (!arg->sq_entries || arg->sq_entries > UBFAB_QUEUE_MAX_ENTRIES ||
	    !is_power_of_2(arg->sq_entries))
		return -EINVAL;
	*cq_entries = arg->cq_entries ? arg->cq_entries : 2 * arg->sq_entries;
	if (*cq_entries > UBFAB_QUEUE_MAX_CQ_ENTRIES ||
	    !is_power_of_2(*cq_entries))
		return -EINVAL;
	if (!(arg->flags & UBFAB_QUEUE_POLL))
		return arg->idle_us ? -EINVAL : 0;
	*idle_us = arg->idle_us ? arg->idle_us : UBFAB_QUEUE_IDLE_US;
	return *idle_us > UBFAB_QUEUE_IDLE_US_MAX ? -EINVAL : 0;
}

/* Lay the rings out and tell user space where each part is. */
static void ubfab_queue_layout(struct ubfab_queue *q,
			       struct ubfab_queue_create *arg, u32 cq_entries)
{
	size_t sq_array = PAGE_SIZE;
	size_t cq_array = sq_array + arg->sq_entries * sizeof(struct ubfab_sqe);

	q->ring_size = PAGE_ALIGN(cq_array +
				  cq_entries * sizeof(struct ubfab_cqe));
	arg->ring_size = q->ring_size;
	arg->sq = (struct ubfab_ring_offsets) {
		.head = offsetof(struct ubfab_ring_hdr, sq_head),
		.tail = offsetof(struct ubfab_ring_hdr, sq_tail),
		.flags = offsetof(struct ubfab_ring_hdr, sq_flags),
		.overflow = offsetof(struct ubfab_ring_hdr, sq_overflow),
		.array = sq_array,
		.entries = arg->sq_entries,
	};
	arg->cq = (struct ubfab_ring_offsets) {
		.head = offsetof(struct ubfab_ring_hdr, cq_head),
		.tail = offsetof(struct ubfab_ring_hdr, cq_tail),
		.flags = offsetof(struct ubfab_ring_hdr, cq_flags),
		.overflow = offsetof(struct ubfab_ring_hdr, cq_overflow),
		.array = cq_array,
		.entries = cq_entries,
	};
}

/* The file's event counters, allocated with its first queue. */
static int ubfab_queue_events_get(struct ubfab_file *file)
{
	atomic64_t *events;

	if (READ_ONCE(file->queue_events))
		return 0;
	events = kcalloc(UBFAB_QUEUE_EVENTS, sizeof(*events),
			 GFP_KERNEL_ACCOUNT);
	if (!events)
		return -ENOMEM;
	/* Two first queues at once: one array wins, the other goes. */
	if (cmpxchg(&file->queue_events, NULL, events))
		kfree(events);
	return 0;
}

/**
 * ubfab_queue_create() - UBFAB_IOCTL_QUEUE_CREATE, up to the file
 * @file: the entity file creating the queue
 * @cmd: the argument; on success its outputs are set, a descriptor is
 *	reserved in @cmd->arg.fd and @cmd->filp is the queue's file
 *
 * Nothing is visible to user space yet: ubfab_queue_create_commit()
 * installs the descriptor, ubfab_queue_create_undo() drops it all.
 * Return: 0, -EINVAL, -EBADF, -EMFILE or -ENOMEM.
 */
int ubfab_queue_create(struct ubfab_file *file,
		       struct ubfab_queue_create_cmd *cmd)
{
	struct ubfab_queue_create *arg = &cmd->arg;
	u32 cq_entries, idle_us = 0;
	struct ubfab_queue *q;
	int ret;

	ret = ubfab_queue_check_create(arg, &cq_entries, &idle_us);
	if (ret)
		return ret;
	ret = ubfab_queue_events_get(file);
	if (ret)
		return ret;

	q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	if (!q)
		return -ENOMEM;
	q->file = file;
	q->flags = arg->flags;
	q->idle_ns = (u64)idle_us * NSEC_PER_USEC;
	q->sq_mask = arg->sq_entries - 1;
	q->cq_mask = cq_entries - 1;
	mutex_init(&q->run_lock);
	init_waitqueue_head(&q->poll_wait);
	INIT_DELAYED_WORK(&q->work, ubfab_queue_work);

	if (arg->eventfd != -1) {
		q->eventfd = eventfd_ctx_fdget(arg->eventfd);
		if (IS_ERR(q->eventfd)) {
			ret = -EBADF;
			goto err_free_queue;
		}
	}

	ubfab_queue_layout(q, arg, cq_entries);
	ret = ubfab_queue_ring_alloc(q);
	if (ret)
		goto err_put_eventfd;
	q->hdr = q->ring;
	q->sqes = q->ring + arg->sq.array;
	q->cqes = q->ring + arg->cq.array;
	if (q->flags & UBFAB_QUEUE_POLL)
		ubfab_queue_set_flags(q, UBFAB_SQ_NEED_WAKEUP, 0);

	ret = ida_alloc(&file->entity->queue_ids, GFP_KERNEL);
	if (ret < 0)
		goto err_free_ring;
	q->id = ret;

	ret = get_unused_fd_flags(O_CLOEXEC);
	if (ret < 0)
		goto err_free_id;
	arg->fd = ret;
	arg->id = q->id;

	cmd->filp = anon_inode_getfile("[ubfab-queue]", &ubfab_queue_fops, q,
				       O_RDWR | O_CLOEXEC);
	if (IS_ERR(cmd->filp)) {
		ret = PTR_ERR(cmd->filp);
		goto err_put_fd;
	}
	/* From here the queue's release undoes everything. */
	get_file(file->filp);
	spin_lock(&file->queues_lock);
	list_add_tail(&q->file_node, &file->queues);
	spin_unlock(&file->queues_lock);
	return 0;

err_put_fd:
	put_unused_fd(arg->fd);
err_free_id:
	ida_free(&file->entity->queue_ids, q->id);
err_free_ring:
	ubfab_queue_ring_free(q);
err_put_eventfd:
	if (q->eventfd)
		eventfd_ctx_put(q->eventfd);
err_free_queue:
	kfree(q);
	return ret;
}

/* The result could not be copied out: the queue goes, unseen. */
void ubfab_queue_create_undo(struct ubfab_queue_create_cmd *cmd)
{
	put_unused_fd(cmd->arg.fd);
	fput(cmd->filp);
}

void ubfab_queue_create_commit(struct ubfab_queue_create_cmd *cmd)
{
	fd_install(cmd->arg.fd, cmd->filp);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab queue engine: what runs a queue's entries. Rounds, bursts, the
 * work item, the doorbell, polling, the error state and its reset, and
 * the completion writers.
 *
 * Modeled time: every entry the engine runs, whether it posts a
 * completion or not, is charged to the queue's modeled clock as it
 * completes (ubfab_model_charge(), model.h), so its completion carries
 * the modeled time at which it ended; a flushed entry costs nothing and
 * carries the clock. An ordered queue (UBFAB_QUEUE_ORDERED) runs each
 * entry at its turn in the ordered domain (model_order.c), entry by
 * entry, without bursts; a round whose turn has not come stops
 * (UBFAB_QUEUE_BLOCKED) until the domain kicks the queue.
 *
 * Every queue has a work item on one module-wide workqueue. A round,
 * always under the queue's @run_lock, takes at most UBFAB_QUEUE_BUDGET
 * entries in order, each completing before the next starts. The work item
 * runs rounds back to back, dropping @run_lock and calling cond_resched()
 * between them, for at most UBFAB_QUEUE_SLICE; then it requeues itself, so
 * a busy queue cannot starve the others and a polling queue costs no work
 * item cycle per round. In a round, a run of entries the fast path takes
 * (UBFAB_OPF_FAST: small WRITEs and READs) goes in bursts of up to
 * UBFAB_QUEUE_BURST entries, copied out together and handed to the data
 * path's fast path (ubfab_xfer_fast_run()), their completions published
 * together; any other entry goes alone, checked and run by its opcode's
 * row (ubfab_op_run()). The doorbell runs one round inline when it can
 * take @run_lock at once, which spares a worker wake-up per batch. Nothing
 * in a round blocks: an EVENT_WAIT or WAIT_VALUE that is not satisfied
 * holds the queue (@waiting) and is looked at again by the delayed work
 * item (every jiffy for WAIT_VALUE; at its time-out, or when EVENT_RECORD
 * on the same entity file kicks the queue, for EVENT_WAIT; sync.c).
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
 * Locking: @run_lock → (an ordered queue: the domain's lock,
 * model_order.c) → (the data path's locks, xfer.c: imports_lock,
 * then one or two mem_locks, in eid order) → the entity file's
 * @queues_lock (a spinlock, taken by EVENT_RECORD to kick waiting
 * queues) → the workqueue's own locks.
 */
#include <linux/eventfd.h>
#include <linux/ktime.h>
#include <linux/poll.h>
#include <linux/sched.h>

#include "compat.h"
#include "engine.h"
#include "failnth.h"
#include "jetty.h"
#include "model.h"
#include "trace.h"

/* Entries one round takes before the queue yields to the others. */
#define UBFAB_QUEUE_BUDGET	64
/* Entries between two cond_resched() calls in a round. */
#define UBFAB_QUEUE_RESCHED	16
/* How long the work item runs rounds before it requeues itself. */
#define UBFAB_QUEUE_SLICE	1	/* jiffies */

/* What a round leaves to do. */
enum ubfab_queue_next {
	UBFAB_QUEUE_IDLE,	/* nothing runnable: empty, stalled or bad tail */
	UBFAB_QUEUE_AGAIN,	/* budget spent, entries remain */
	UBFAB_QUEUE_WAIT,	/* an entry holds the queue */
	UBFAB_QUEUE_BLOCKED,	/* ordered: not its turn (model_order.c) */
};

static struct workqueue_struct *ubfab_engine_wq;

int ubfab_engine_init(void)
{
	ubfab_engine_wq = alloc_workqueue("ubfab_queue", WQ_UNBOUND, 0);
	if (!ubfab_engine_wq)
		return -ENOMEM;
	ubfab_failnth_init();
	return 0;
}

/* Context: module exit; no queue exists, so no work item is queued. */
void ubfab_engine_fini(void)
{
	ubfab_failnth_fini();
	destroy_workqueue(ubfab_engine_wq);
}

/* Run the queue's work item now, or sooner than it was due. */
void ubfab_engine_kick(struct ubfab_queue *q)
{
	mod_delayed_work(ubfab_engine_wq, &q->work, 0);
}

/* Publish the engine's SQ flag word. Context: run_lock. */
void ubfab_engine_set_flags(struct ubfab_queue *q, u32 set, u32 clear)
{
	q->sq_flags = (q->sq_flags | set) & ~clear;
	WRITE_ONCE(q->hdr->sq_flags, q->sq_flags);
}

/*
 * @reason: UBFAB_TRACE_ERR_*, for the tracepoint; @ex: the entry that
 * failed, or NULL.
 */
static void ubfab_engine_enter_error(struct ubfab_queue *q, u32 reason,
				     const struct ubfab_exec *ex)
{
	trace_ubfab_queue_error(q, reason, ex);
	WRITE_ONCE(q->error, true);
	ubfab_engine_set_flags(q, UBFAB_SQ_ERROR, 0);
	ubfab_jetty_sq_error(q, ex ? ex->status : UBFAB_CQE_BAD_ENTRY);
}

/*
 * How many more completions the CQ has room for. The first time it has
 * none, count a stall and say so in the SQ flags. Context: run_lock.
 */
static u32 ubfab_engine_cq_room(struct ubfab_queue *q)
{
	/* Pairs with the user's release of its head: it is done with those. */
	u32 head = smp_load_acquire(&q->hdr->cq_head);

	if (ubfab_ring_has_room(q->cq_tail, head, q->cq_mask + 1)) {
		if (q->cq_stalled) {
			q->cq_stalled = false;
			ubfab_engine_set_flags(q, 0, UBFAB_SQ_CQ_FULL);
		}
		return q->cq_mask + 1 - (q->cq_tail - head);
	}
	if (!q->cq_stalled) {
		q->cq_stalled = true;
		WRITE_ONCE(q->hdr->cq_overflow, ++q->cq_overflow);
		ubfab_engine_set_flags(q, UBFAB_SQ_CQ_FULL, 0);
	}
	return 0;
}

/*
 * Write the completion of @ex, not yet published
 * (ubfab_engine_publish_cq()); ubfab_engine_cq_room() said there is room.
 * Everything it says, the entry's modeled time included, comes from @ex.
 * This and ubfab_engine_fetch() run for every entry of a burst: inline,
 * as under QEMU TCG every call and return costs a lookup of the next
 * translated block (xfer.c).
 */
static __always_inline void
ubfab_engine_write_cqe(struct ubfab_queue *q, const struct ubfab_exec *ex)
{
	struct ubfab_cqe *cqe = &q->cqes[q->cq_tail & q->cq_mask];

	*cqe = (struct ubfab_cqe) {
		.user_data = ex->sqe.user_data,
		.result = ex->result,
		.model_ns = ex->model_ns,
		.bytes = ex->bytes,
		.status = ex->status,
		.opcode = ex->sqe.opcode,
	};
	q->cq_tail++;
}

/* Let user space see the completions written so far. */
static __always_inline void ubfab_engine_publish_cq(struct ubfab_queue *q)
{
	/* The entries are written before the user can see the new tail. */
	smp_store_release(&q->hdr->cq_tail, q->cq_tail);
}

/* Post the completion of @ex; ubfab_engine_cq_room() said there is room. */
static void ubfab_engine_post(struct ubfab_queue *q,
			      const struct ubfab_exec *ex)
{
	ubfab_engine_write_cqe(q, ex);
	ubfab_engine_publish_cq(q);
}

/*
 * Whether an entry that succeeded completes: not if the queue is selective
 * and the entry did not ask for it.
 */
static __always_inline bool
ubfab_engine_wants_cqe(const struct ubfab_queue *q,
		       const struct ubfab_sqe *sqe)
{
	return !(q->flags & UBFAB_QUEUE_SELECTIVE) ||
	       sqe->flags & UBFAB_SQE_SIGNAL;
}

/*
 * An entry ended with @ex->status: its cost goes on the queue's clock; a
 * failure always completes and puts the queue in the error state; a
 * success completes as ubfab_engine_wants_cqe() says.
 */
static void ubfab_engine_complete(struct ubfab_queue *q,
				  struct ubfab_exec *ex, unsigned int *posted)
{
	/* the entry's modeled start, for the tracepoint */
	u64 start_ps = q->model.now_ps;

	ubfab_model_charge(&q->model, &q->file->entity->loc, ex);
	trace_ubfab_complete(q, ex, start_ps);
	if (ex->status != UBFAB_CQE_OK)
		ubfab_engine_enter_error(q, UBFAB_TRACE_ERR_ENTRY, ex);
	else if (!ubfab_engine_wants_cqe(q, &ex->sqe))
		return;
	ubfab_engine_post(q, ex);
	(*posted)++;
}

/*
 * Copy the entry in SQ slot @idx into @ex, whole, before anything in it is
 * looked at; its outputs start at 0.
 */
static __always_inline void
ubfab_engine_fetch(struct ubfab_queue *q, u32 idx, struct ubfab_exec *ex)
{
	memcpy(&ex->sqe, &q->sqes[idx & q->sq_mask], sizeof(ex->sqe));
	ex->result = 0;
	ex->model_ns = 0;
	ex->after_ps = 0;
	ex->peer = NULL;
	ex->bytes = 0;
	ex->plane_mask = 0;
	ex->status = UBFAB_CQE_OK;
}

/*
 * Run one entry, copied out of the ring. Return: true when it now holds
 * the queue (an unsatisfied wait); it completes later.
 */
static bool ubfab_engine_run(struct ubfab_queue *q, struct ubfab_exec *ex,
			     unsigned int *posted)
{
	u16 status;

	trace_ubfab_start(q, ex);
	status = ubfab_op_run(q, ex);

	if (status == UBFAB_OP_HELD)
		return true;
	ex->status = status;
	ubfab_engine_complete(q, ex, posted);
	return false;
}

/*
 * The user's SQ tail, or false when it is more than the ring ahead of the
 * engine's head: then the queue enters the error state and nothing runs
 * until user space publishes a valid tail.
 */
static bool ubfab_engine_sq_tail(struct ubfab_queue *q, u32 *tail)
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
		ubfab_engine_enter_error(q, UBFAB_TRACE_ERR_BAD_TAIL, NULL);
	}
	return false;
}

/*
 * The error state ends (a reset's tail reached): entries run again, and an
 * invalid tail found from now on counts anew. Context: run_lock.
 */
static void ubfab_engine_end_error(struct ubfab_queue *q)
{
	q->reset_pending = false;
	q->bad_tail = false;
	WRITE_ONCE(q->error, false);
	ubfab_engine_set_flags(q, 0, UBFAB_SQ_ERROR);
}

/*
 * Whether the entry in SQ slot @idx may start a burst: one the fast path
 * takes, as a look at its opcode says. Only a hint: the burst copies the
 * entry before it checks anything.
 */
static bool ubfab_engine_burst_hint(struct ubfab_queue *q, u32 idx)
{
	/*
	 * the fast path copies: a timing-only queue goes the slow way; an
	 * ordered one takes its turns entry by entry
	 */
	return !(q->flags & (UBFAB_QUEUE_TIMING | UBFAB_QUEUE_ORDERED)) &&
	       ubfab_op_fast(READ_ONCE(q->sqes[idx & q->sq_mask].opcode));
}

/*
 * A burst: copy up to @max entries (at most UBFAB_QUEUE_BURST) from the SQ
 * while the fast path takes their opcodes and their flags are sane, hand
 * them to ubfab_xfer_fast_run(), then take the ones it did out of the ring,
 * charge them to the clock and complete them. The rest stay in the ring
 * for the usual path. Each entry's start and complete tracepoints fire
 * as it is charged, after the burst ran.
 * Context: run_lock; not in the error state; @max entries posted, as much
 * CQ room. Return: entries done.
 */
static unsigned int ubfab_engine_burst(struct ubfab_queue *q, unsigned int max,
				       unsigned int *posted)
{
	const struct ubfab_loc *self = &q->file->entity->loc;
	unsigned int n, done, i;
	struct ubfab_exec *ex;
	u64 start_ps;

	max = min_t(unsigned int, max, UBFAB_QUEUE_BURST);
	for (n = 0; n < max; n++) {
		ex = &q->burst[n];
		ubfab_engine_fetch(q, q->sq_head + n, ex);
		if (!ubfab_op_fast(ex->sqe.opcode) ||
		    !ubfab_op_header_ok(&ex->sqe))
			break;
	}
	done = ubfab_xfer_fast_run(q, q->burst, n);
	if (!done)
		return 0;
	q->sq_head += done;
	/* The copies are done before the user may reuse the slots. */
	smp_store_release(&q->hdr->sq_head, q->sq_head);
	ubfab_model_burst_begin(&q->model);
	for (i = 0; i < done; i++) {
		ex = &q->burst[i];
		trace_ubfab_start(q, ex);
		start_ps = q->model.now_ps;
		__ubfab_model_charge(&q->model, self, ex, false,
				     done - i - 1);
		trace_ubfab_complete(q, ex, start_ps);
		if (!ubfab_engine_wants_cqe(q, &ex->sqe))
			continue;
		ubfab_engine_write_cqe(q, ex);
		(*posted)++;
	}
	ubfab_engine_publish_cq(q);
	return done;
}

/*
 * A round found nothing it can run: an ordered queue holds its domain
 * back at its clock from now on (ubfab_order_idle()).
 */
static enum ubfab_queue_next ubfab_engine_idle(struct ubfab_queue *q)
{
	if (q->flags & UBFAB_QUEUE_ORDERED)
		ubfab_order_idle(q);
	return UBFAB_QUEUE_IDLE;
}

/**
 * ubfab_engine_round() - run up to @budget entries of a queue
 * @q: the queue
 * @budget: entries to take at most
 * @posted: out: completions posted
 *
 * The user's SQ tail and CQ head are read again only once the entries and
 * the CQ room they showed are used up. Runs of entries the fast path
 * takes go in bursts (ubfab_engine_burst()); every other entry, and the
 * first of a run that the fast path does not take, goes one at a time.
 *
 * Context: @q->run_lock held. Never sleeps for long: nothing here waits.
 * Return: what is left to do.
 */
static enum ubfab_queue_next ubfab_engine_round(struct ubfab_queue *q,
						unsigned int budget,
						unsigned int *posted)
{
	u32 tail = q->sq_head, cq_room = 0;
	unsigned int done, since = 0;
	struct ubfab_exec ex;
	bool held;

	lockdep_assert_held(&q->run_lock);
	*posted = 0;
	if (q->waiting) {
		if (!ubfab_sync_wait_done(q))
			return UBFAB_QUEUE_WAIT;
		ubfab_engine_complete(q, &q->wait, posted);
	}

	while (budget) {
		/* a transfer reschedules between its chunks itself */
		if (since >= UBFAB_QUEUE_RESCHED) {
			since = 0;
			cond_resched();
		}
		if (q->reset_pending && q->sq_head == q->reset_at)
			ubfab_engine_end_error(q);
		if (tail == q->sq_head &&
		    (!ubfab_engine_sq_tail(q, &tail) || tail == q->sq_head))
			return ubfab_engine_idle(q);
		/* each entry posts one completion at most */
		if (!cq_room) {
			cq_room = ubfab_engine_cq_room(q);
			if (!cq_room)
				return ubfab_engine_idle(q);
		}

		if (!q->error && ubfab_engine_burst_hint(q, q->sq_head)) {
			done = ubfab_engine_burst(q, min3(budget, cq_room,
							  tail - q->sq_head),
						  posted);
			if (done) {
				budget -= done;
				cq_room -= done;
				since += done;
				continue;
			}
		}

		/* ordered: the domain's lock from here to the entry's end */
		if (q->flags & UBFAB_QUEUE_ORDERED && !q->error &&
		    !ubfab_order_turn(q))
			return UBFAB_QUEUE_BLOCKED;
		ubfab_engine_fetch(q, q->sq_head, &ex);
		q->sq_head++;
		/* The copy is done before the user may reuse the slot. */
		smp_store_release(&q->hdr->sq_head, q->sq_head);
		budget--;
		cq_room--;
		since++;

		if (q->error) {
			ex.status = UBFAB_CQE_FLUSHED;
			ex.model_ns = ubfab_model_now_ns(&q->model);
			trace_ubfab_flush(q, &ex);
			ubfab_engine_post(q, &ex);
			(*posted)++;
			continue;
		}
		held = ubfab_engine_run(q, &ex, posted);
		if (q->flags & UBFAB_QUEUE_ORDERED)
			ubfab_order_done(q);
		if (held)
			return UBFAB_QUEUE_WAIT;
	}
	return UBFAB_QUEUE_AGAIN;
}

/* Whether user space has posted nothing the engine has not taken. */
bool ubfab_engine_sq_empty(struct ubfab_queue *q)
{
	/* Pairs with the user's release of its tail. */
	return smp_load_acquire(&q->hdr->sq_tail) == q->sq_head;
}

/* Whether a round would find something to do. Context: run_lock. */
static bool ubfab_engine_has_work(struct ubfab_queue *q)
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
static enum ubfab_queue_next ubfab_engine_poll_idle(struct ubfab_queue *q)
{
	if (ktime_get_ns() - q->poll_busy_ns < q->idle_ns) {
		/*
		 * A spin-wait: let a sibling hardware thread (or, under
		 * emulation, the vCPU that will post the entry) run.
		 */
		cpu_relax();
		return UBFAB_QUEUE_AGAIN;
	}
	ubfab_engine_set_flags(q, UBFAB_SQ_NEED_WAKEUP, 0);
	/* Pairs with the user's barrier between its tail store and flag load. */
	smp_mb();
	if (!ubfab_engine_has_work(q))
		return UBFAB_QUEUE_IDLE;
	ubfab_engine_set_flags(q, 0, UBFAB_SQ_NEED_WAKEUP);
	return UBFAB_QUEUE_AGAIN;
}

/* Tell user space about completions a round posted. */
static void ubfab_engine_notify(struct ubfab_queue *q, unsigned int posted)
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

/*
 * How long the work item may sleep after a round that left @next: for a
 * wait or a turn, in jiffies (MAX_JIFFY_OFFSET: until it is kicked).
 * Context: run_lock.
 */
static unsigned long ubfab_engine_delay(struct ubfab_queue *q,
					enum ubfab_queue_next next)
{
	if (next == UBFAB_QUEUE_WAIT)
		return ubfab_sync_wait_delay(q);
	if (next == UBFAB_QUEUE_BLOCKED)
		return q->order.retry;
	return 0;
}

/* Queue the work item for what a round left to do. */
static void ubfab_engine_schedule(struct ubfab_queue *q,
				  enum ubfab_queue_next next,
				  unsigned long wait_delay)
{
	/*
	 * queue_delayed_work() leaves a pending kick alone, where
	 * mod_delayed_work() could postpone it.
	 */
	if (next == UBFAB_QUEUE_AGAIN)
		queue_delayed_work(ubfab_engine_wq, &q->work, 0);
	else if ((next == UBFAB_QUEUE_WAIT || next == UBFAB_QUEUE_BLOCKED) &&
		 wait_delay != MAX_JIFFY_OFFSET)
		queue_delayed_work(ubfab_engine_wq, &q->work, wait_delay);
}

/*
 * The queue's work item: rounds back to back while anything is left, for
 * at most UBFAB_QUEUE_SLICE, with cond_resched() between them so other
 * tasks and other queues' workers run; then it requeues itself if
 * anything is still left.
 */
void ubfab_engine_work(struct work_struct *work)
{
	struct ubfab_queue *q = container_of(to_delayed_work(work),
					     struct ubfab_queue, work);
	unsigned long until = jiffies + UBFAB_QUEUE_SLICE, wait_delay = 0;
	enum ubfab_queue_next next;
	unsigned int posted;
	bool armed;
	u32 head;

	for (;;) {
		mutex_lock(&q->run_lock);
		armed = ubfab_failnth_enter();
		if (q->sq_flags & UBFAB_SQ_NEED_WAKEUP) {
			/* Woken: poll again from now. */
			ubfab_engine_set_flags(q, 0, UBFAB_SQ_NEED_WAKEUP);
			q->poll_busy_ns = ktime_get_ns();
		}
		head = q->sq_head;
		next = ubfab_engine_round(q, UBFAB_QUEUE_BUDGET, &posted);
		if (q->flags & UBFAB_QUEUE_POLL) {
			if (head != q->sq_head || posted)
				q->poll_busy_ns = ktime_get_ns();
			if (next == UBFAB_QUEUE_IDLE)
				next = ubfab_engine_poll_idle(q);
		}
		wait_delay = ubfab_engine_delay(q, next);
		ubfab_failnth_leave(armed);
		mutex_unlock(&q->run_lock);

		ubfab_engine_notify(q, posted);
		if (next != UBFAB_QUEUE_AGAIN || !time_before(jiffies, until))
			break;
		cond_resched();
	}
	ubfab_engine_schedule(q, next, wait_delay);
}

/*
 * UBFAB_IOCTL_QUEUE_DOORBELL. A polling queue's worker is kicked; else
 * one round runs here if no one else runs the queue, and the worker takes
 * whatever is left.
 */
long ubfab_engine_doorbell(struct ubfab_queue *q)
{
	unsigned long wait_delay = 0;
	enum ubfab_queue_next next;
	unsigned int posted;

	trace_ubfab_submit(q);
	if (q->flags & UBFAB_QUEUE_POLL || !mutex_trylock(&q->run_lock)) {
		ubfab_engine_kick(q);
		return READ_ONCE(q->error) ? -EIO : 0;
	}
	next = ubfab_engine_round(q, UBFAB_QUEUE_BUDGET, &posted);
	wait_delay = ubfab_engine_delay(q, next);
	mutex_unlock(&q->run_lock);

	ubfab_engine_notify(q, posted);
	ubfab_engine_schedule(q, next, wait_delay);
	return READ_ONCE(q->error) ? -EIO : 0;
}

/*
 * UBFAB_IOCTL_QUEUE_RESET: entries posted so far flush; once the engine's
 * head reaches the tail seen here, the error state ends: at once when
 * nothing is left to flush, so the doorbell that follows sees a ready
 * queue. An invalid tail counts as nothing posted.
 */
long ubfab_engine_reset(struct ubfab_queue *q)
{
	bool flush = false, error;
	int ret;

	ret = mutex_lock_killable(&q->run_lock);
	if (ret)
		return ret;
	error = q->error;
	if (error) {
		if (!ubfab_engine_sq_tail(q, &q->reset_at))
			q->reset_at = q->sq_head;
		if (q->reset_at == q->sq_head) {
			ubfab_engine_end_error(q);
		} else {
			q->reset_pending = true;
			flush = true;
		}
	}
	trace_ubfab_queue_reset(q, error);
	mutex_unlock(&q->run_lock);
	if (flush)
		ubfab_engine_kick(q);
	return 0;
}


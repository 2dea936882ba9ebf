// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab queue synchronization: the runners of the entries that move no
 * data, NOP, EVENT_RECORD, EVENT_WAIT, WAIT_VALUE and COMPUTE, and the
 * entry that holds a queue while it waits.
 *
 * Events are counters of the entity file (UBFAB_QUEUE_EVENTS of them,
 * allocated with its first queue), shared by all its queues. A wait that
 * is not satisfied when it runs holds its queue (@waiting, @wait): the
 * engine looks at it again at the start of each round
 * (ubfab_sync_wait_done()), a round that the delayed work item runs every
 * jiffy for WAIT_VALUE, which watches memory, and at its time-out or when
 * EVENT_RECORD on the same file kicks the queue for EVENT_WAIT
 * (ubfab_sync_wait_delay()). In the ordered domain, the domain looks at
 * a waiting queue's entry when any of its entries ends and latches the
 * outcome, which the engine then takes (model_order.c).
 *
 * Ordering: EVENT_RECORD's counter update is fully ordered, and a waiter
 * sets @waiting, then smp_mb(), then looks at the counter; so either the
 * waiter sees the new count or the recorder sees @waiting and kicks it.
 * WAIT_VALUE's load is an acquire (xfer.c), so entries after it see what
 * was stored before the value.
 *
 * Modeled time: a satisfied wait ends no earlier than the modeled time
 * of the EVENT_RECORD or the modeled write that satisfied it
 * (model_sync.c): EVENT_RECORD leaves its time before it counts, and
 * the wait reads it after the count or the word.
 */
#include <linux/jiffies.h>
#include <linux/nospec.h>

#include "engine.h"
#include "model.h"

/* Event @event (< UBFAB_QUEUE_EVENTS, checked) of an entity file. */
static struct ubfab_queue_event *ubfab_sync_event(struct ubfab_file *file,
						  u32 event)
{
	return &file->queue_events[array_index_nospec(event,
						      UBFAB_QUEUE_EVENTS)];
}

/*
 * NOP and COMPUTE: nothing runs. COMPUTE's @value is modeled time, which
 * the model charges to the queue's clock (model.c).
 */
u16 ubfab_sync_run_nop(struct ubfab_queue *q, struct ubfab_exec *ex)
{
	return UBFAB_CQE_OK;
}

/*
 * EVENT_RECORD: leave its modeled time, count, then kick the file's
 * queues that wait; the result is the new count.
 */
u16 ubfab_sync_run_record(struct ubfab_queue *q, struct ubfab_exec *ex)
{
	struct ubfab_queue_event *ev = ubfab_sync_event(q->file, ex->sqe.aux);
	struct ubfab_file *file = q->file;
	struct ubfab_queue *other;

	/* before the fully ordered count: a waiter that sees it, sees this */
	WRITE_ONCE(ev->record_ps,
		   ubfab_model_end_ps(&q->model, &file->entity->loc, ex));
	ex->result = atomic64_inc_return(&ev->count);
	spin_lock(&file->queues_lock);
	list_for_each_entry(other, &file->queues, file_node) {
		if (other != q && READ_ONCE(other->waiting))
			ubfab_engine_kick(other);
	}
	spin_unlock(&file->queues_lock);
	return UBFAB_CQE_OK;
}

/* Whether the entry that holds @q has a time-out and it has passed. */
bool ubfab_sync_wait_expired(struct ubfab_queue *q)
{
	return q->wait.sqe.timeout_ms &&
	       time_after_eq(jiffies, q->wait_deadline);
}

/* The entry that holds @q is done with @status, having seen @seen. */
void ubfab_sync_wait_end(struct ubfab_queue *q, u16 status, u64 seen)
{
	WRITE_ONCE(q->waiting, false);
	q->wait.status = status;
	q->wait.result = seen;
}

/**
 * ubfab_sync_wait_look() - whether the entry that holds a queue is
 *	satisfied (or failed), its time-out aside
 * @q: the queue, @q->waiting
 * @status: out: UBFAB_CQE_OK, or why the look failed
 * @seen: out: the count or value seen
 * @after_ps: out: when satisfied, the modeled time of what satisfied it
 *
 * Reads only @q->wait and @q->file: the ordered domain looks at the
 * waits of its members this way under its own lock (model_order.c).
 * Return: whether it is done.
 */
bool ubfab_sync_wait_look(struct ubfab_queue *q, u16 *status, u64 *seen,
			  u64 *after_ps)
{
	const struct ubfab_sqe *sqe = &q->wait.sqe;
	struct ubfab_queue_event *ev;
	bool done;

	*status = UBFAB_CQE_OK;
	if (sqe->opcode == UBFAB_OP_EVENT_WAIT) {
		ev = ubfab_sync_event(q->file, sqe->aux);
		*seen = atomic64_read(&ev->count);
		done = *seen >= sqe->value;
		/* the count, then the time its record left before it */
		smp_rmb();
		*after_ps = done ? READ_ONCE(ev->record_ps) : 0;
		return done;
	}
	*status = ubfab_xfer_load_local(q->file, sqe->local, seen);
	if (*status != UBFAB_CQE_OK)
		*seen = 0;
	done = sqe->aux == UBFAB_WAIT_GE ? *seen >= sqe->value :
					   *seen == sqe->value;
	/* the load is an acquire: the stamp is the value's or newer */
	*after_ps = done ? ubfab_model_stamp(q->file->entity, sqe->local,
					     *seen, sqe->aux != UBFAB_WAIT_GE,
					     sqe->value) : 0;
	return done || *status != UBFAB_CQE_OK;
}

/*
 * Look at the entry that holds @q, its time-out included; when it is
 * done, end it. Return: whether it is done.
 */
static bool ubfab_sync_wait_check(struct ubfab_queue *q)
{
	u16 status;
	bool done;
	u64 seen;

	done = ubfab_sync_wait_look(q, &status, &seen, &q->wait.after_ps);
	if (!done && ubfab_sync_wait_expired(q)) {
		status = UBFAB_CQE_TIMEOUT;
		done = true;
	}
	if (done)
		ubfab_sync_wait_end(q, status, seen);
	return done;
}

/**
 * ubfab_sync_wait_done() - look at the entry that holds a queue
 * @q: the queue, @q->waiting
 *
 * When the entry is done (satisfied, failed or timed out), its status
 * and result (the value or count seen) are in @q->wait and the queue is
 * no longer held; the caller completes it. In the ordered domain, what
 * the domain latched when an entry ended (ubfab_order_wait_done()).
 *
 * Context: the queue's run_lock held.
 * Return: whether it is done.
 */
bool ubfab_sync_wait_done(struct ubfab_queue *q)
{
	if (q->flags & UBFAB_QUEUE_ORDERED)
		return ubfab_order_wait_done(q);
	return ubfab_sync_wait_check(q);
}

/*
 * EVENT_WAIT and WAIT_VALUE: the entry holds the queue from now until it
 * is done, which may be at once.
 */
u16 ubfab_sync_run_wait(struct ubfab_queue *q, struct ubfab_exec *ex)
{
	q->wait = *ex;
	q->wait_deadline = jiffies + msecs_to_jiffies(ex->sqe.timeout_ms);
	WRITE_ONCE(q->waiting, true);
	/* Pairs with the counter update of ubfab_sync_run_record(). */
	smp_mb();
	/* (in the ordered domain, this is the entry's turn) */
	if (!ubfab_sync_wait_check(q))
		return UBFAB_OP_HELD;
	ex->result = q->wait.result;
	ex->after_ps = q->wait.after_ps;
	return q->wait.status;
}

/**
 * ubfab_sync_wait_delay() - how long the work item may sleep while an
 *	entry holds the queue
 * @q: the queue, @q->waiting
 *
 * Return: jiffies, or MAX_JIFFY_OFFSET for an EVENT_WAIT that only an
 * EVENT_RECORD can end.
 */
unsigned long ubfab_sync_wait_delay(struct ubfab_queue *q)
{
	const struct ubfab_sqe *sqe = &q->wait.sqe;

	/* WAIT_VALUE watches memory: look again at the next tick. */
	if (sqe->opcode == UBFAB_OP_WAIT_VALUE)
		return 1;
	/* EVENT_WAIT is kicked by EVENT_RECORD; else sleep until time-out. */
	if (!sqe->timeout_ms)
		return MAX_JIFFY_OFFSET;
	return time_after(q->wait_deadline, jiffies) ?
	       q->wait_deadline - jiffies : 0;
}

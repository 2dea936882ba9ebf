// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fabric model, deterministic mode: the fabric's ordered domain.
 * The queues made with UBFAB_QUEUE_ORDERED (all queues, with the module
 * parameter model_order=ordered) run their entries one at a time, in the
 * order of their modeled start, so the links' first come, first served
 * (model.c) sees the same order in every run of the same program,
 * whatever the host does. Documentation/model.rst, "Determinism", has
 * the algorithm and what it asks of programs.
 *
 * Conservative order: every member has a key, (its clock, its entity, its
 * number in the entity), the clock being when its next entry starts. An
 * entry runs only when its queue's key is the smallest of the members
 * that hold the domain back (UBFAB_ORDER_RUN and UBFAB_ORDER_READY), and
 * it runs under the domain's lock, its cost charged before the next one
 * is chosen. A queue whose SQ is empty still holds the others back: it
 * may post an entry that starts earlier than theirs. It stops holding
 * them back when it is parked: by UBFAB_CLOCK_PARK once it has run what
 * it was given, or after model_park_ms of idleness (a fall-back, so that
 * a program that breaks the rules does not deadlock; its results then
 * depend on the host). A queue held by a wait
 * holds nothing back: it has no lower bound until what it waits for is
 * done, and when an entry of the domain ends (ubfab_order_done()) every
 * waiting member is looked at and a satisfied wait is latched there, at
 * a point in the order that is the same in every run; the queue's engine
 * completes it from the latch (ubfab_order_wait_done()).
 *
 * An engine whose turn has not come stops (@blocked) and is kicked when
 * its queue becomes the smallest. The first queue to join an empty
 * domain puts the links back to idle (ubfab_model_links_reset()): each run
 * of a program starts on an idle fabric.
 *
 * Locking: a queue's run_lock → the domain's @lock → the data path's
 * locks (an entry runs under it) → a queue's workqueue locks (kicks).
 * The domain never takes a run_lock.
 */
#include <linux/jiffies.h>
#include <linux/moduleparam.h>

#include "engine.h"
#include "model.h"

static bool ubfab_order_all;

static int ubfab_order_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "fast"))
		ubfab_order_all = false;
	else if (sysfs_streq(val, "ordered"))
		ubfab_order_all = true;
	else
		return -EINVAL;
	return 0;
}

static int ubfab_order_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", ubfab_order_all ? "ordered" : "fast");
}

static const struct kernel_param_ops ubfab_order_ops = {
	.set = ubfab_order_set,
	.get = ubfab_order_get,
};

module_param_cb(model_order, &ubfab_order_ops, NULL, 0644);
MODULE_PARM_DESC(model_order, "fast (the host's order, default) or ordered (every new queue in the deterministic ordered domain)");

static unsigned int ubfab_order_park_ms = 1000;
module_param_named(model_park_ms, ubfab_order_park_ms, uint, 0644);
MODULE_PARM_DESC(model_park_ms, "ordered domain: park a queue idle this long (ms, default 1000; 0 never)");

/* Whether new queues join the ordered domain without being asked. */
bool ubfab_order_default(void)
{
	return READ_ONCE(ubfab_order_all);
}

static struct ubfab_order *ubfab_order_of(struct ubfab_queue *q)
{
	return &q->file->entity->fabric->order;
}

/* Whether member @a goes before member @b: the smaller key. */
static bool ubfab_order_before(const struct ubfab_order_member *a,
			       const struct ubfab_order_member *b)
{
	if (a->key_ps != b->key_ps)
		return a->key_ps < b->key_ps;
	if (a->eid != b->eid)
		return a->eid < b->eid;
	return a->qid < b->qid;
}

/*
 * The member with the smallest key among those that hold the domain
 * back, or NULL. Context: the domain's lock.
 */
static struct ubfab_order_member *ubfab_order_first(struct ubfab_order *o)
{
	struct ubfab_order_member *m, *first = NULL;

	list_for_each_entry(m, &o->members, node) {
		if (m->state != UBFAB_ORDER_RUN && m->state != UBFAB_ORDER_READY)
			continue;
		if (!first || ubfab_order_before(m, first))
			first = m;
	}
	return first;
}

/* Latch @m's wait if it is satisfied (or failed). Context: the lock. */
static void ubfab_order_look_one(struct ubfab_order_member *m)
{
	struct ubfab_queue *q = container_of(m, struct ubfab_queue, order);

	if (ubfab_sync_wait_look(q, &m->status, &m->seen, &m->after_ps))
		m->state = UBFAB_ORDER_READY;
}

/*
 * Look at the waits of the domain's waiting members and latch the ones
 * now satisfied (or failed). Context: the domain's lock, after an entry
 * ended: memory and events are as the order left them.
 */
static void ubfab_order_look(struct ubfab_order *o)
{
	struct ubfab_order_member *m;

	list_for_each_entry(m, &o->members, node) {
		if (m->state == UBFAB_ORDER_WAIT)
			ubfab_order_look_one(m);
	}
}

/*
 * Kick the engine of the first member if it stopped for its turn or has
 * a latched wait to complete. Context: the domain's lock.
 */
static void ubfab_order_kick_first(struct ubfab_order *o)
{
	struct ubfab_order_member *m = ubfab_order_first(o);

	if (m && (m->blocked || m->state == UBFAB_ORDER_READY)) {
		m->blocked = false;
		ubfab_engine_kick(container_of(m, struct ubfab_queue, order));
	}
}

/**
 * ubfab_order_join() - a new queue joins the ordered domain
 * @q: the queue, not yet visible to user space, its number known
 *
 * Its clock starts at the domain's time: 0 when it is the first member,
 * and then the links are made idle again.
 */
void ubfab_order_join(struct ubfab_queue *q)
{
	struct ubfab_order *o = ubfab_order_of(q);
	struct ubfab_order_member *m = &q->order;

	m->eid = q->file->entity->eid;
	m->qid = q->id;
	m->state = UBFAB_ORDER_RUN;
	m->idle = true;
	m->idle_since = jiffies;
	mutex_lock(&o->lock);
	if (list_empty(&o->members)) {
		o->now_ps = 0;
		ubfab_model_links_reset(q->file->entity->fabric);
	}
	q->model.now_ps = o->now_ps;
	m->key_ps = o->now_ps;
	list_add_tail(&m->node, &o->members);
	mutex_unlock(&o->lock);
}

/**
 * ubfab_order_leave() - a queue leaves the ordered domain
 * @q: the queue, being destroyed: its engine no longer runs
 */
void ubfab_order_leave(struct ubfab_queue *q)
{
	struct ubfab_order *o = ubfab_order_of(q);

	mutex_lock(&o->lock);
	list_del(&q->order.node);
	ubfab_order_kick_first(o);
	mutex_unlock(&o->lock);
}

/* Put @q back in the order at its clock, or the domain's time if later. */
static void ubfab_order_unpark(struct ubfab_order *o, struct ubfab_queue *q)
{
	if (q->model.now_ps < o->now_ps)
		q->model.now_ps = o->now_ps;
	q->order.state = UBFAB_ORDER_RUN;
}

/**
 * ubfab_order_turn() - whether the queue's next entry may run now
 * @q: an ordered queue, with an entry to run
 *
 * Its key is its clock. The entry may run when it is the first member;
 * a first member idle for model_park_ms is parked on the way. With the
 * model off there is no time to order by, and the entry runs at once.
 * Context: @q's run_lock held.
 * Return: true, with the domain's lock held until ubfab_order_done(); or
 * false, and the engine stops until it is kicked or for
 * @q->order.retry jiffies, when it looks again.
 */
bool ubfab_order_turn(struct ubfab_queue *q)
{
	struct ubfab_order *o = ubfab_order_of(q);
	struct ubfab_order_member *m = &q->order, *first;
	unsigned long park = msecs_to_jiffies(READ_ONCE(ubfab_order_park_ms));

	mutex_lock(&o->lock);
	if (m->state == UBFAB_ORDER_PARKED)
		ubfab_order_unpark(o, q);
	m->idle = false;
	m->key_ps = q->model.now_ps;
	if (!static_branch_likely(&ubfab_model_on))
		goto run;
	for (;;) {
		first = ubfab_order_first(o);
		if (first == m)
			goto run;
		if (!first->idle || !park ||
		    time_before(jiffies, first->idle_since + park))
			break;
		first->state = UBFAB_ORDER_PARKED;
	}
	/*
	 * This queue's key may have just gone up past the first's (a wait
	 * ended at a later satisfier): the first's engine, stopped while
	 * this one went before it, is not kicked by anyone else.
	 */
	ubfab_order_kick_first(o);
	/*
	 * Look again when the first may be parked: it may also go idle
	 * later without anyone's turn coming, so a busy first is looked at
	 * again after model_park_ms as well.
	 */
	m->blocked = true;
	if (!park)
		m->retry = MAX_JIFFY_OFFSET;
	else if (first->idle)
		m->retry = first->idle_since + park - jiffies;
	else
		m->retry = park;
	mutex_unlock(&o->lock);
	return false;
run:
	m->blocked = false;
	if (m->key_ps > o->now_ps)
		o->now_ps = m->key_ps;
	return true;
}

/**
 * ubfab_order_done() - the entry ubfab_order_turn() let run has ended
 * @q: its queue; the entry is charged, or holds the queue
 *
 * The waits of the domain are looked at, and the next member's engine is
 * kicked if it stopped. Context: @q's run_lock and the domain's lock,
 * which this drops.
 */
void ubfab_order_done(struct ubfab_queue *q)
{
	struct ubfab_order *o = ubfab_order_of(q);
	struct ubfab_order_member *m = &q->order;

	m->key_ps = q->model.now_ps;
	m->state = q->waiting ? UBFAB_ORDER_WAIT : UBFAB_ORDER_RUN;
	ubfab_order_look(o);
	ubfab_order_kick_first(o);
	mutex_unlock(&o->lock);
}

/* Park @m, as UBFAB_CLOCK_PARK asked. Context: the domain's lock. */
static void ubfab_order_park_now(struct ubfab_order_member *m)
{
	m->park = false;
	m->state = UBFAB_ORDER_PARKED;
}

/**
 * ubfab_order_idle() - the queue's engine found nothing it could run
 * @q: an ordered queue, not held by a wait
 *
 * It holds the domain back at its clock from now on, until it is parked;
 * at once if UBFAB_CLOCK_PARK asked for it.
 * Context: @q's run_lock held.
 */
void ubfab_order_idle(struct ubfab_queue *q)
{
	struct ubfab_order *o = ubfab_order_of(q);
	struct ubfab_order_member *m = &q->order;

	/* only this engine sets @idle: no need to look twice */
	if (READ_ONCE(m->idle))
		return;
	mutex_lock(&o->lock);
	m->idle = true;
	m->idle_since = jiffies;
	if (m->state == UBFAB_ORDER_RUN) {
		m->key_ps = q->model.now_ps;
		if (m->park)
			ubfab_order_park_now(m);
		ubfab_order_kick_first(o);
	}
	mutex_unlock(&o->lock);
}

/**
 * ubfab_order_park() - UBFAB_CLOCK_PARK: once the queue has run what it
 *	was given, it stops holding the domain back, until it runs an entry
 *	posted later
 * @q: an ordered queue
 *
 * Context: @q's run_lock held.
 */
void ubfab_order_park(struct ubfab_queue *q)
{
	struct ubfab_order *o = ubfab_order_of(q);
	struct ubfab_order_member *m = &q->order;

	mutex_lock(&o->lock);
	m->park = true;
	/* idle, and the engine has not yet seen an entry posted since */
	if (m->idle && m->state == UBFAB_ORDER_RUN &&
	    ubfab_engine_sq_empty(q)) {
		ubfab_order_park_now(m);
		ubfab_order_kick_first(o);
	}
	mutex_unlock(&o->lock);
}

/**
 * ubfab_order_wait_done() - ubfab_sync_wait_done() in the ordered domain
 * @q: an ordered queue, held by a wait
 *
 * Done when the domain latched the wait satisfied (or failed) when an
 * entry ended; or when its time-out has passed first, which the host's
 * time decides (documented as outside the deterministic order).
 * Context: @q's run_lock held. Return: whether it is done.
 */
bool ubfab_order_wait_done(struct ubfab_queue *q)
{
	struct ubfab_order *o = ubfab_order_of(q);
	struct ubfab_order_member *m = &q->order;
	bool done = true;

	mutex_lock(&o->lock);
	/* what no entry of the domain changed: a CPU store, a time-out */
	if (m->state == UBFAB_ORDER_WAIT)
		ubfab_order_look_one(m);
	if (m->state == UBFAB_ORDER_READY) {
		q->wait.after_ps = m->after_ps;
		ubfab_sync_wait_end(q, m->status, m->seen);
	} else if (ubfab_sync_wait_expired(q)) {
		ubfab_sync_wait_end(q, UBFAB_CQE_TIMEOUT, 0);
	} else {
		done = false;
	}
	if (done)
		m->state = UBFAB_ORDER_RUN;
	mutex_unlock(&o->lock);
	return done;
}

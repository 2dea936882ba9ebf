// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem in the fabric model's ordered domain (UBSHMEM_ORDERED=1;
 * Documentation/model.rst "Determinism", Documentation/shmem.rst
 * "Bit-identical modeled times"): whether the PE's queues join it, and
 * how the helper queues of a PE (the MoE context's lanes) take turns
 * with its queue without waiting outside the domain's order.
 *
 * In the domain an idle queue holds back every queue whose clock is
 * later, and a parked one comes back at the domain's time, which the
 * host decides. So no queue of libubshmem is parked, and none is left
 * idle while the PE waits for another queue: the PE's queue is idle only
 * between calls and while the PE computes (the others then wait for it,
 * in host time only), and a helper that is not working waits for an
 * event counter of the PE's device (EVENT_WAIT, which holds nothing
 * back). A call that uses the helpers:
 *
 *  1. shm_gang_start(): the PE's queue records the start event (costing
 *     `issue`), which ends every helper's wait, then waits for the end
 *     event to count one more from each helper;
 *  2. the caller posts the call's transfers on the helpers;
 *  3. shm_gang_end(): each helper records the end event after them and
 *     waits for the next start; the PE's queue goes on from the latest
 *     of the records. Both events are modeled: the domain latches each
 *     wait at the same point of its order in every run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/*
 * Each gang takes two event counters of the PE's device (its queues
 * share them), from the top down, never reused: they count from 0.
 */
#define GANGS_MAX	(UBFAB_QUEUE_EVENTS / 2)

/*
 * UBSHMEM_ORDERED=1; or the module's model_order=ordered, which puts
 * every new queue in the domain anyway.
 */
int shm_ordered_wanted(void)
{
	const char *v = getenv("UBSHMEM_ORDERED");
	char buf[16] = "";
	FILE *f;

	if (v && !strcmp(v, "1"))
		return 1;
	f = fopen("/sys/module/ubfab/parameters/model_order", "re");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	return !strcmp(buf, "ordered\n");
}

int shm_is_ordered(void)
{
	return !!(shm->main.q->flags & UBFAB_QUEUE_ORDERED);
}

uint32_t shm_queue_flags(void)
{
	return shm->main.q->flags & (UBFAB_QUEUE_TIMING | UBFAB_QUEUE_ORDERED);
}

/* Post an event entry on @sq, submitted; return its number. */
static uint64_t event(struct shm_queue *sq, int record, uint32_t ev,
		      uint64_t count)
{
	struct ubfab_sqe *sqe = shm_queue_sqe(sq);

	if (record)
		ubfab_prep_event_record(sqe, ev);
	else
		ubfab_prep_event_wait(sqe, ev, count, 0);
	shm_queue_post(sq, sqe);
	return sq->posted;
}

/*
 * The helpers joined the domain at its time, no later than the PE's
 * clock; each waits for the first start from now on.
 */
int shm_gang_init(struct shm_gang *g, struct shm_queue *help, int n)
{
	int i;

	if (shm->gangs == GANGS_MAX)
		return -ENOSPC;
	g->ev_end = UBFAB_QUEUE_EVENTS - 1 - 2 * shm->gangs++;
	g->ev_start = g->ev_end - 1;
	g->help = help;
	g->n = n;
	g->last = calloc(n, sizeof(*g->last));
	if (!g->last)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		event(&help[i], 0, g->ev_start, g->gen + 1);
	return 0;
}

void shm_gang_free(struct shm_gang *g)
{
	free(g->last);
	g->last = NULL;
}

/* Posted, not reaped: a failure shows at the PE queue's next drain. */
void shm_gang_start(struct shm_gang *g)
{
	g->gen++;
	event(&shm->main, 1, g->ev_start, 0);
	event(&shm->main, 0, g->ev_end, g->gen * g->n);
}

int shm_gang_end(struct shm_gang *g)
{
	struct shm_queue *sq;
	int i, err = 0, err2;

	for (i = 0; i < g->n; i++) {
		g->last[i] = event(&g->help[i], 1, g->ev_end, 0);
		event(&g->help[i], 0, g->ev_start, g->gen + 1);
	}
	err = shm_drain(0, NULL);
	/* every helper's entries but its wait for the next start */
	for (i = 0; i < g->n; i++) {
		sq = &g->help[i];
		err2 = shm_queue_reap(sq, g->last[i]);
		err = err ? err : err2;
	}
	return err;
}

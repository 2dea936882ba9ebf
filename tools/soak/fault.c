// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/soak/fault.c - the soak run's fault process: every 0.2-1.2 s, at
 * random (from the run's seed), one of
 *   - a port flap: a worker's entity's port into a plane down for
 *     50-300 ms, then up (the entries route around it);
 *   - an isolation: every port of a worker's entity down for 50-200 ms,
 *     then up (its remote entries fail with NO_ROUTE meanwhile);
 *   - a plane flap: a whole plane down for 50-200 ms, then up;
 *   - an entity reset of a worker's target or initiator entity;
 *   - SIGKILL to a worker (the supervisor respawns it).
 * Each flap is undone before the next fault, so only one entity's ports
 * or one plane are down at a time and the fabric always ends up. Counts go to
 * struct soak_shared; failed requests to its fault_errors.
 */
#include <signal.h>

#include "soak.h"

/* A random worker slot with a live process and its entities known. */
static struct soak_slot *pick(struct soak_shared *sh, uint64_t *rng)
{
	struct soak_slot *s = &sh->slot[soak_rand(rng) % sh->workers];

	return s->pid > 0 && s->eid[1] ? s : NULL;
}

static void count(struct soak_shared *sh, enum soak_fault f, int err)
{
	sh->faults[f]++;
	if (err)
		sh->fault_errors++;
}

/* Every port of @eid down for @ms, then up again. */
static void isolate(struct soak_shared *sh, struct ubfab_nl *nl, uint32_t eid,
		   unsigned int ms)
{
	uint32_t plane;
	int err = 0;

	for (plane = 0; plane < sh->planes; plane++)
		err |= ubfab_port_set_state(nl, eid, plane, UBFAB_STATE_DOWN);
	soak_sleep_ms(ms);
	for (plane = 0; plane < sh->planes; plane++)
		err |= ubfab_port_set_state(nl, eid, plane, UBFAB_STATE_UP);
	count(sh, SF_ISOLATE, err);
}

int soak_fault(struct soak_shared *sh)
{
	uint64_t rng = soak_seed(sh->seed, UINT32_MAX, 0);
	struct ubfab_nl *nl;
	struct soak_slot *s;
	uint32_t eid, plane;
	int err;

	err = ubfab_nl_open(&nl);
	if (err)
		return 3;
	while (!sh->stop) {
		soak_sleep_ms(200 + soak_rand(&rng) % 1000);
		if (sh->stop)
			break;
		s = pick(sh, &rng);
		plane = soak_rand(&rng) % sh->planes;
		switch (soak_rand(&rng) % 12) {
		case 0 ... 3:
			if (!s)
				break;
			eid = s->eid[soak_rand(&rng) & 1];
			err = ubfab_port_set_state(nl, eid, plane,
						   UBFAB_STATE_DOWN);
			soak_sleep_ms(50 + soak_rand(&rng) % 250);
			err |= ubfab_port_set_state(nl, eid, plane,
						    UBFAB_STATE_UP);
			count(sh, SF_PORT_FLAP, err);
			break;
		case 4 ... 5:
			if (s)
				isolate(sh, nl, s->eid[soak_rand(&rng) & 1],
					50 + soak_rand(&rng) % 150);
			break;
		case 6 ... 7:
			err = ubfab_plane_set_state(nl, plane,
						    UBFAB_STATE_DOWN);
			soak_sleep_ms(50 + soak_rand(&rng) % 150);
			err |= ubfab_plane_set_state(nl, plane, UBFAB_STATE_UP);
			count(sh, SF_PLANE_FLAP, err);
			break;
		case 8 ... 9:
			if (!s)
				break;
			err = ubfab_entity_reset(nl, s->eid[soak_rand(&rng) &
							    1]);
			count(sh, SF_ENTITY_RESET, err);
			break;
		default:
			if (!s)
				break;
			err = kill(s->pid, SIGKILL);
			count(sh, SF_KILL, err);
			break;
		}
	}
	ubfab_nl_close(nl);
	return 0;
}

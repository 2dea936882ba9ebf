// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's teams: the world (every PE) and this PE's node (the PEs
 * whose dies sit in the same node as its own), each an ordered list of PE
 * numbers made at ubshmem_init() from what the PEs told each other.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

static int team_make(struct shm_state *s, struct ubshmem_team *t,
		     int node_only)
{
	int pe;

	t->pes = calloc(s->n, sizeof(*t->pes));
	if (!t->pes)
		return -ENOMEM;
	t->n = 0;
	t->me = -1;
	for (pe = 0; pe < s->n; pe++) {
		if (node_only && s->peers[pe].node != s->peers[s->me].node)
			continue;
		if (pe == s->me)
			t->me = t->n;
		t->pes[t->n++] = pe;
	}
	return 0;
}

int shm_teams_init(struct shm_state *s)
{
	int err = team_make(s, &s->world, 0);

	return err ? err : team_make(s, &s->node, 1);
}

void shm_teams_free(struct shm_state *s)
{
	free(s->world.pes);
	free(s->node.pes);
}

const struct ubshmem_team *ubshmem_team_world(void)
{
	return shm ? &shm->world : NULL;
}

const struct ubshmem_team *ubshmem_team_node(void)
{
	return shm ? &shm->node : NULL;
}

int ubshmem_team_my_pe(const struct ubshmem_team *team)
{
	return team ? team->me : -1;
}

int ubshmem_team_n_pes(const struct ubshmem_team *team)
{
	return team ? team->n : 0;
}

int ubshmem_team_translate_pe(const struct ubshmem_team *team, int idx)
{
	if (!team || idx < 0 || idx >= team->n)
		return -1;
	return team->pes[idx];
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's teams: the world (every PE) and this PE's node (the PEs
 * whose dies sit in the same node as its own), each an ordered list of PE
 * numbers made at ubshmem_init() from what the PEs told each other, and
 * the teams split from a team by a stride, and destroyed.
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

int ubshmem_team_split_strided(const struct ubshmem_team *parent, int start,
			       int stride, int size,
			       struct ubshmem_team **newteam)
{
	struct ubshmem_team *t;
	int i, err;

	if (!shm || !parent || parent->me < 0 || !newteam || start < 0 ||
	    stride < 1 || size < 1 ||
	    start + (int64_t)(size - 1) * stride >= parent->n)
		return -EINVAL;
	*newteam = NULL;
	t = calloc(1, sizeof(*t));
	if (t)
		t->pes = calloc(size, sizeof(*t->pes));
	if (!t || !t->pes) {
		free(t);
		return -ENOMEM;
	}
	t->n = size;
	t->me = -1;
	t->split = 1;
	for (i = 0; i < size; i++) {
		t->pes[i] = parent->pes[start + i * stride];
		if (t->pes[i] == shm->me)
			t->me = i;
	}
	/* collective: every PE of the parent has its team when it returns */
	err = ubshmem_barrier(parent);
	if (err || t->me < 0) {
		ubshmem_team_destroy(t);
		return err;
	}
	*newteam = t;
	return 0;
}

int ubshmem_team_destroy(struct ubshmem_team *team)
{
	if (!team)
		return 0;
	if (!team->split)
		return -EINVAL;
	free(team->pes);
	free(team);
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The placement of a job's ranks, for ubrun and for libubshmem under
 * mpirun (place.h): which entity each rank acts as. It reads the fabric's
 * shape and its NPU dies through libubfab and deals them out: pack (fill
 * a node's dies, then the next node's), spread (round-robin over the
 * nodes), nodes:K (the ranks in equal blocks over the first K nodes) or a
 * list of entity names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "place.h"

struct npus {
	struct ubfab_entity_info *e;
	size_t n, cap;
};

static int add_npu(const struct ubfab_entity_info *e, void *arg)
{
	struct npus *l = arg;

	if (e->kind != UBFAB_ENTITY_NPU)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		void *p = realloc(l->e, cap * sizeof(*l->e));

		if (!p)
			return -ENOMEM;
		l->e = p;
		l->cap = cap;
	}
	l->e[l->n++] = *e;
	return 0;
}

static int by_place(const void *a, const void *b)
{
	const struct ubfab_entity_info *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->chip != y->chip)
		return x->chip < y->chip ? -1 : 1;
	return x->die < y->die ? -1 : x->die > y->die;
}

static void slot_set(struct shm_slot *s, const struct ubfab_entity_info *e)
{
	snprintf(s->entity, sizeof(s->entity), "%s", e->name);
	s->node = e->node;
}

/* Each rank's place from the list of names @list. */
static int place_list(const char *who, struct ubfab_nl *nl,
		      const char *list, int n, struct shm_slot *slots)
{
	struct ubfab_entity_info e;
	char *copy = strdup(list), *save, *name;
	int i = 0, err = 0;

	if (!copy)
		return -1;
	for (name = strtok_r(copy, ",", &save); name && !err;
	     name = strtok_r(NULL, ",", &save)) {
		if (i == n) {
			fprintf(stderr, "%s: the placement names more than %d entities\n", who, n);
			err = -1;
		} else if (ubfab_entity_get_by_name(nl, name, &e)) {
			fprintf(stderr, "%s: placement: no entity %s\n", who, name);
			err = -1;
		} else {
			slot_set(&slots[i++], &e);
		}
	}
	free(copy);
	if (!err && i < n) {
		fprintf(stderr, "%s: the placement names %d entities for %d ranks\n",
			who, i, n);
		err = -1;
	}
	return err;
}

int shm_place(const char *who, const char *placement, const char *profile,
	      int n, struct shm_slot *slots)
{
	struct ubfab_fabric_info f;
	struct npus l = { 0 };
	struct ubfab_nl *nl;
	uint32_t per_node, nodes, node, idx;
	int err, i, j;
	char *end;

	err = ubfab_nl_open(&nl);
	if (!err)
		err = ubfab_fabric_get(nl, &f);
	if (err) {
		fprintf(stderr, "%s: reading the fabric: %s (is ubfab.ko loaded?)\n",
			who, strerror(-err));
		ubfab_nl_close(nl);
		return -1;
	}
	if (profile && strcmp(profile, f.profile)) {
		fprintf(stderr, "%s: the module's profile is %s, not %s (insmod ubfab.ko profile=%s)\n",
			who, f.profile, profile, profile);
		ubfab_nl_close(nl);
		return -1;
	}
	if (strcmp(placement, "pack") && strcmp(placement, "spread") &&
	    strncmp(placement, "nodes:", 6)) {
		err = place_list(who, nl, placement, n, slots);
		ubfab_nl_close(nl);
		goto local;
	}
	err = ubfab_entity_dump(nl, add_npu, &l);
	ubfab_nl_close(nl);
	if (err) {
		fprintf(stderr, "%s: reading the entities: %s\n", who,
			strerror(-err));
		free(l.e);
		return -1;
	}
	qsort(l.e, l.n, sizeof(*l.e), by_place);
	per_node = f.chips_per_node * f.dies_per_chip;
	nodes = f.nodes;
	if ((size_t)n > l.n || l.n != (size_t)per_node * nodes) {
		fprintf(stderr, "%s: %d ranks, but the fabric has %zu NPU dies\n",
			who, n, l.n);
		free(l.e);
		return -1;
	}
	if (!strncmp(placement, "nodes:", 6)) {
		unsigned long k_nodes = strtoul(placement + 6, &end, 10);

		if (end == placement + 6 || *end || !k_nodes || k_nodes > nodes ||
		    (n + k_nodes - 1) / k_nodes > per_node) {
			fprintf(stderr, "%s: placement %s: K must be 1 .. %u nodes with room for %d ranks\n",
				who, placement, nodes, n);
			free(l.e);
			return -1;
		}
		per_node = (n + k_nodes - 1) / k_nodes;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(placement, "spread")) {
			node = i % nodes;
			idx = i / nodes;
		} else {	/* pack, or blocks of per_node */
			node = i / per_node;
			idx = i % per_node;
		}
		slot_set(&slots[i], &l.e[node * (f.chips_per_node *
						  f.dies_per_chip) + idx]);
	}
	free(l.e);
local:
	for (i = 0; !err && i < n; i++) {
		slots[i].local_rank = 0;
		slots[i].local_size = 0;
		for (j = 0; j < n; j++)
			if (slots[j].node == slots[i].node) {
				slots[i].local_size++;
				if (j < i)
					slots[i].local_rank++;
			}
	}
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl topology as Graphviz: "ubctl -f dot topo [show]" (the supernode),
 * "... topo show node N" (one node) and "... topo show plane N" (one
 * plane), each an undirected DOT graph on stdout for dot(1).
 *
 * The supernode is drawn so that dot can lay out cm384's 48 nodes: a node
 * is a cluster of its chips (each a cluster of its dies) and CPUs, and its
 * L1 switches, one per plane, are one "L1" box; each entity has one edge
 * to it, labelled with its ports (one per plane) and coloured when some
 * are down. A plane's L2 switches are one box per plane, joined to every
 * node's L1 box. One node shows every port: each entity's edge to each
 * plane's L1. One plane shows each node's L1 and every L2 switch, all
 * joined, and the entities whose port into the plane is down. Red and
 * dashed: down; orange: some ports down. The module reports no state for
 * L1-L2 links, which take their plane's.
 */
#include <inttypes.h>
#include <stdio.h>

#include "ubctl.h"

/**
 * struct dot - what the graphs are drawn from
 * @f: the shape of the supernode
 * @ents: all entities (struct ubfab_entity_info)
 * @planes: all planes (struct ubfab_plane_info)
 * @ports: all ports (struct ubfab_port_info)
 */
struct dot {
	const struct ubfab_fabric_info *f;
	const struct ubctl_vec *ents;
	const struct ubctl_vec *planes;
	struct ubctl_vec ports;
};

/* A DOT ID: @s quoted, its quotes and backslashes escaped. */
static void dot_id(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static const char *down_style = "color=red, style=dashed";

static void dot_begin(const char *name, const char *label)
{
	printf("graph ");
	dot_id(name);
	printf(" {\n\tgraph [label=");
	dot_id(label);
	printf(", labelloc=t, fontname=Helvetica];\n"
	       "\tnode [fontname=Helvetica, fontsize=10, shape=box];\n"
	       "\tedge [color=gray40, fontname=Helvetica, fontsize=8];\n");
}

static void dot_entity(const struct ubfab_entity_info *e, const char *indent)
{
	printf("%s", indent);
	dot_id(e->name);
	printf(" [style=filled, fillcolor=%s];\n",
	       e->kind == UBFAB_ENTITY_CPU ? "lightblue" : "palegreen");
}

/*
 * A cluster per node: its chips, each a cluster of its dies, then its
 * CPUs (and entities of kinds unknown here); @extra, if any, is printed
 * inside it at the end.
 */
static void dot_node_cluster(const struct dot *d, uint32_t node,
			     void (*extra)(uint32_t node))
{
	const struct ubfab_entity_info *e = d->ents->items;
	uint32_t chip;
	size_t i;
	bool open;

	printf("\tsubgraph \"cluster_node%" PRIu32 "\" {\n"
	       "\t\tlabel=\"node %" PRIu32 "\";\n", node, node);
	for (chip = 0; chip < d->f->chips_per_node; chip++) {
		open = false;
		for (i = 0; i < d->ents->n; i++) {
			if (e[i].node != node || e[i].kind != UBFAB_ENTITY_NPU ||
			    e[i].chip != chip)
				continue;
			if (!open)
				printf("\t\tsubgraph \"cluster_node%" PRIu32
				       "_chip%" PRIu32 "\" {\n"
				       "\t\t\tlabel=\"chip %" PRIu32 "\";\n",
				       node, chip, chip);
			open = true;
			dot_entity(&e[i], "\t\t\t");
		}
		if (open)
			printf("\t\t}\n");
	}
	for (i = 0; i < d->ents->n; i++)
		if (e[i].node == node && (e[i].kind != UBFAB_ENTITY_NPU ||
					  e[i].chip >= d->f->chips_per_node))
			dot_entity(&e[i], "\t\t");
	if (extra)
		extra(node);
	printf("\t}\n");
}

static void node_l1_box(uint32_t node)
{
	printf("\t\t\"node%" PRIu32 ".l1\" [label=\"L1\", shape=box3d];\n",
	       node);
}

/* The ports of entity @eid: how many, how many up. */
static void ports_of(const struct dot *d, uint32_t eid, uint32_t *n,
		     uint32_t *up)
{
	const struct ubfab_port_info *p = d->ports.items;
	size_t i;

	*n = 0;
	*up = 0;
	for (i = 0; i < d->ports.n; i++) {
		if (p[i].eid != eid)
			continue;
		(*n)++;
		*up += p[i].state == UBFAB_STATE_UP;
	}
}

static void dot_supernode(const struct dot *d)
{
	const struct ubfab_entity_info *e = d->ents->items;
	const struct ubfab_plane_info *p = d->planes->items;
	char label[128];
	uint32_t node, n, up;
	size_t i;

	snprintf(label, sizeof(label),
		 "supernode: profile %s, %" PRIu32 " nodes, %zu planes",
		 d->f->profile, d->f->nodes, d->planes->n);
	dot_begin("supernode", label);
	for (node = 0; node < d->f->nodes; node++)
		dot_node_cluster(d, node, node_l1_box);
	for (i = 0; i < d->ents->n; i++) {
		ports_of(d, e[i].eid, &n, &up);
		printf("\t");
		dot_id(e[i].name);
		printf(" -- \"node%" PRIu32 ".l1\" [label=\"", e[i].node);
		if (up == n)
			printf("%" PRIu32 "\"];\n", n);
		else
			printf("%" PRIu32 "/%" PRIu32 " up\", %s];\n", up, n,
			       up ? "color=orange" : down_style);
	}
	for (i = 0; i < d->planes->n; i++)
		printf("\t\"plane%" PRIu32 ".l2\" [label=\"plane %" PRIu32
		       "\\nL2 x%" PRIu32 "\", shape=box3d%s];\n", p[i].id,
		       p[i].id, p[i].l2_switches,
		       p[i].state == UBFAB_STATE_UP ? "" : ", color=red");
	for (node = 0; node < d->f->nodes; node++)
		for (i = 0; i < d->planes->n; i++)
			printf("\t\"node%" PRIu32 ".l1\" -- \"plane%" PRIu32
			       ".l2\"%s;\n", node, p[i].id,
			       p[i].state == UBFAB_STATE_UP ? "" :
			       " [color=red, style=dashed]");
	printf("}\n");
}

static void dot_node(const struct dot *d, uint32_t node)
{
	const struct ubfab_entity_info *e = d->ents->items;
	const struct ubfab_plane_info *pl = d->planes->items;
	const struct ubfab_port_info *p = d->ports.items;
	const struct ubfab_entity_info *owner;
	char name[32], label[128];
	size_t i, j;

	snprintf(name, sizeof(name), "node %" PRIu32, node);
	snprintf(label, sizeof(label),
		 "node %" PRIu32 " (profile %s): its entities' ports to each plane's L1",
		 node, d->f->profile);
	dot_begin(name, label);
	printf("\trankdir=LR;\n");
	dot_node_cluster(d, node, NULL);
	for (i = 0; i < d->planes->n; i++)
		printf("\t\"plane%" PRIu32 ".l1\" [label=\"L1\\nplane %" PRIu32
		       "\", shape=box3d%s];\n", pl[i].id, pl[i].id,
		       pl[i].state == UBFAB_STATE_UP ? "" : ", color=red");
	for (i = 0; i < d->ports.n; i++) {
		owner = NULL;
		for (j = 0; j < d->ents->n && !owner; j++)
			if (e[j].eid == p[i].eid)
				owner = &e[j];
		if (!owner || owner->node != node)
			continue;
		printf("\t");
		dot_id(owner->name);
		printf(" -- \"plane%" PRIu32 ".l1\"%s%s%s;\n", p[i].plane,
		       p[i].state == UBFAB_STATE_UP ? "" : " [",
		       p[i].state == UBFAB_STATE_UP ? "" : down_style,
		       p[i].state == UBFAB_STATE_UP ? "" : "]");
	}
	printf("}\n");
}

static void dot_plane(const struct dot *d, const struct ubfab_plane_info *pl)
{
	const struct ubfab_entity_info *e = d->ents->items;
	const struct ubfab_port_info *p = d->ports.items;
	const char *link = pl->state == UBFAB_STATE_UP ? "" :
			   " [color=red, style=dashed]";
	uint32_t node, l2, n, up;
	char name[32], label[160];
	size_t i, j;

	snprintf(name, sizeof(name), "plane %" PRIu32, pl->id);
	snprintf(label, sizeof(label),
		 "plane %" PRIu32 " (%s, profile %s): %" PRIu32 " L1, %" PRIu32
		 " L2 switches, ports %" PRIu32 " (%" PRIu32 " up)", pl->id,
		 ubfab_state_name(pl->state), d->f->profile, pl->l1_switches,
		 pl->l2_switches, pl->ports, pl->ports_up);
	dot_begin(name, label);
	for (node = 0; node < d->f->nodes; node++) {
		n = 0;
		up = 0;
		for (i = 0; i < d->ports.n; i++) {
			if (p[i].plane != pl->id)
				continue;
			for (j = 0; j < d->ents->n; j++) {
				if (e[j].eid != p[i].eid || e[j].node != node)
					continue;
				n++;
				up += p[i].state == UBFAB_STATE_UP;
			}
		}
		printf("\t\"node%" PRIu32 ".l1\" [label=\"node %" PRIu32
		       " L1\\nports %" PRIu32 " (%" PRIu32 " up)\"%s];\n",
		       node, node, n, up,
		       pl->state != UBFAB_STATE_UP ? ", color=red" :
		       up < n ? ", color=orange" : "");
	}
	for (l2 = 0; l2 < pl->l2_switches; l2++)
		printf("\t\"l2.%" PRIu32 "\" [label=\"L2 %" PRIu32 "\"%s];\n",
		       l2, l2, pl->state == UBFAB_STATE_UP ? "" : ", color=red");
	for (node = 0; node < d->f->nodes; node++)
		for (l2 = 0; l2 < pl->l2_switches; l2++)
			printf("\t\"node%" PRIu32 ".l1\" -- \"l2.%" PRIu32
			       "\"%s;\n", node, l2, link);
	/* the entities cut off this plane, by their port's state */
	for (i = 0; i < d->ports.n; i++) {
		if (p[i].plane != pl->id || p[i].state == UBFAB_STATE_UP)
			continue;
		for (j = 0; j < d->ents->n; j++) {
			if (e[j].eid != p[i].eid)
				continue;
			dot_entity(&e[j], "\t");
			printf("\t");
			dot_id(e[j].name);
			printf(" -- \"node%" PRIu32 ".l1\" [label=\"down\", %s];\n",
			       e[j].node, down_style);
		}
	}
	printf("}\n");
}

int topo_dot(struct ubctl *u, const struct ubfab_fabric_info *f,
	     const struct ubctl_vec *ents, const struct ubctl_vec *planes,
	     enum ubctl_dot_what what, uint32_t n)
{
	struct dot d = {
		.f = f, .ents = ents, .planes = planes,
		.ports = { .size = sizeof(struct ubfab_port_info) },
	};
	const struct ubfab_plane_info *p = planes->items;
	int code = ubctl_port_load(u, UBFAB_EID_ANY, &d.ports);
	size_t i;

	if (code)
		goto out;
	switch (what) {
	case UBCTL_DOT_SUPERNODE:
		dot_supernode(&d);
		break;
	case UBCTL_DOT_NODE:
		if (n >= f->nodes) {
			code = ubctl_error("node %" PRIu32 ": no such node", n);
			break;
		}
		dot_node(&d, n);
		break;
	case UBCTL_DOT_PLANE:
		for (i = 0; i < planes->n && p[i].id != n; i++)
			;
		if (i == planes->n) {
			code = ubctl_error("plane %" PRIu32 ": no such plane", n);
			break;
		}
		dot_plane(&d, &p[i]);
		break;
	}
out:
	ubctl_vec_free(&d.ports);
	return code;
}

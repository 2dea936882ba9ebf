// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl topology: "ubctl topo [show]", a summary of the supernode for
 * newcomers, and "ubctl topo show ENTITY", one entity in detail; with
 * -f dot, the supernode, "node N" or "plane N" as a graph (dot.c).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "num.h"
#include "ubctl.h"

/**
 * struct topo - what the summary shows
 * @f: the shape of the supernode
 * @ents: all entities (struct ubfab_entity_info)
 * @planes: all planes (struct ubfab_plane_info)
 * @planes_up: planes that are up
 * @l1: L1 switches summed over the planes
 * @l2: L2 switches summed over the planes
 * @ports: ports summed over the planes
 * @ports_up: of those, the ports that are up
 * @uniform: every plane has the same numbers of L1 and L2 switches
 */
struct topo {
	struct ubfab_fabric_info f;
	struct ubctl_vec ents;
	struct ubctl_vec planes;
	uint32_t planes_up;
	uint64_t l1;
	uint64_t l2;
	uint64_t ports;
	uint64_t ports_up;
	bool uniform;
};

static int topo_load(struct ubctl *u, struct topo *t)
{
	const struct ubfab_plane_info *p;
	size_t i;
	int code, err;

	code = ubctl_open(u);
	if (code)
		return code;
	err = ubfab_fabric_get(u->nl, &t->f);
	if (err)
		return ubctl_nl_error(u, err, "fabric");
	code = ubctl_entity_load(u, NULL, &t->ents);
	if (!code)
		code = ubctl_plane_load(u, &t->planes);
	if (code)
		return code;

	p = t->planes.items;
	t->uniform = true;
	for (i = 0; i < t->planes.n; i++) {
		t->planes_up += p[i].state == UBFAB_STATE_UP;
		t->l1 += p[i].l1_switches;
		t->l2 += p[i].l2_switches;
		t->ports += p[i].ports;
		t->ports_up += p[i].ports_up;
		t->uniform &= p[i].l1_switches == p[0].l1_switches &&
			      p[i].l2_switches == p[0].l2_switches;
	}
	return UBCTL_EXIT_OK;
}

/* Split "npu12" into the length of "npu" and 12; false without a number. */
static bool name_split(const char *name, size_t *prefix, unsigned long *num)
{
	size_t len = strlen(name), p = len;

	while (p && isdigit((unsigned char)name[p - 1]))
		p--;
	if (p == len || len - p > 9)
		return false;
	*prefix = p;
	*num = strtoul(name + p, NULL, 10);
	return true;
}

/* @b's name follows @a's: "npu4" after "npu3". */
static bool name_follows(const char *a, const char *b)
{
	size_t pa, pb;
	unsigned long na, nb;

	return name_split(a, &pa, &na) && name_split(b, &pb, &nb) &&
	       pa == pb && !strncmp(a, b, pa) && nb == na + 1;
}

static bool entity_in(const struct ubfab_entity_info *e, uint32_t node,
		      uint32_t kind)
{
	return e->node == node && e->kind == kind;
}

static uint32_t count_in(const struct ubctl_vec *ents, uint32_t node,
			 uint32_t kind)
{
	const struct ubfab_entity_info *e = ents->items;
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < ents->n; i++)
		n += entity_in(&e[i], node, kind);
	return n;
}

static void print_run(const char *first, const char *last, bool comma)
{
	printf("%s%s", comma ? "," : "", first);
	if (last != first)
		printf("-%s", last);
}

/*
 * Print the names of the @kind entities of @node, runs of consecutive
 * names shortened: "npu0-npu15", "cpu0,cpu2-cpu3".
 */
static void print_names(const struct ubctl_vec *ents, uint32_t node,
			uint32_t kind)
{
	const struct ubfab_entity_info *e = ents->items;
	const char *first = NULL, *last = NULL;
	size_t i, runs = 0;

	for (i = 0; i < ents->n; i++) {
		if (!entity_in(&e[i], node, kind))
			continue;
		if (last && name_follows(last, e[i].name)) {
			last = e[i].name;
			continue;
		}
		if (first)
			print_run(first, last, runs++);
		first = e[i].name;
		last = first;
	}
	if (first)
		print_run(first, last, runs);
}

static void topo_text_node(const struct topo *t, uint32_t node)
{
	uint32_t npus = count_in(&t->ents, node, UBFAB_ENTITY_NPU);
	uint32_t cpus = count_in(&t->ents, node, UBFAB_ENTITY_CPU);

	printf("  node %" PRIu32 ": ", node);
	print_names(&t->ents, node, UBFAB_ENTITY_NPU);
	if (npus)
		printf(" (%" PRIu32 " chips x %" PRIu32 " dies)",
		       t->f.chips_per_node, t->f.dies_per_chip);
	if (npus && cpus)
		fputs(", ", stdout);
	print_names(&t->ents, node, UBFAB_ENTITY_CPU);
	if (!npus && !cpus)
		fputs("no entities", stdout);
	putchar('\n');
}

static void topo_text(const struct topo *t)
{
	const struct ubfab_fabric_info *f = &t->f;
	const struct ubfab_plane_info *p = t->planes.items;
	char a[32], b[32];
	uint32_t node;

	printf("supernode: profile %s, %" PRIu32 " nodes, %" PRIu32
	       " entities (%" PRIu32 " NPU dies, %" PRIu32 " CPUs), %zu planes\n",
	       f->profile, f->nodes, f->npus + f->cpus, f->npus, f->cpus,
	       t->planes.n);
	printf("  NPUs    %" PRIu32 " chips x %" PRIu32 " dies = %" PRIu32
	       " dies, %s HBM each, %s in all\n",
	       f->nodes * f->chips_per_node, f->dies_per_chip, f->npus,
	       tool_fmt_size(a, sizeof(a), f->npu_mem, ""),
	       tool_fmt_size(b, sizeof(b), f->npu_mem * f->npus, ""));
	printf("  CPUs    %" PRIu32 " (%" PRIu32 " per node), %s DRAM each, %s in all\n",
	       f->cpus, f->cpus_per_node,
	       tool_fmt_size(a, sizeof(a), f->cpu_mem, ""),
	       tool_fmt_size(b, sizeof(b), f->cpu_mem * f->cpus, ""));
	printf("  planes  %zu (%" PRIu32 " up), ", t->planes.n, t->planes_up);
	if (t->uniform && t->planes.n)
		printf("each with %" PRIu32 " L1 switches%s and %" PRIu32
		       " L2 switches\n", p[0].l1_switches,
		       p[0].l1_switches == f->nodes ? " (one per node)" : "",
		       p[0].l2_switches);
	else
		printf("%" PRIu64 " L1 and %" PRIu64 " L2 switches in all\n",
		       t->l1, t->l2);
	printf("  ports   %" PRIu64 " (%" PRIu64 " up), one per entity per plane\n",
	       t->ports, t->ports_up);
	printf("  setup   %s (module initialisation)\n",
	       ubctl_fmt_ns(a, sizeof(a), f->setup_ns));
	printf("nodes:\n");
	for (node = 0; node < f->nodes; node++)
		topo_text_node(t, node);
}

static void topo_json_node(struct ubctl *u, const struct topo *t,
			   uint32_t node)
{
	const struct ubfab_entity_info *e = t->ents.items;
	size_t i;

	json_object_begin(&u->js, NULL);
	json_uint(&u->js, "node", node);
	json_uint(&u->js, "npus", count_in(&t->ents, node, UBFAB_ENTITY_NPU));
	json_uint(&u->js, "cpus", count_in(&t->ents, node, UBFAB_ENTITY_CPU));
	json_array_begin(&u->js, "entities");
	for (i = 0; i < t->ents.n; i++)
		if (e[i].node == node)
			json_string(&u->js, NULL, e[i].name);
	json_array_end(&u->js);
	json_object_end(&u->js);
}

static void topo_json(struct ubctl *u, const struct topo *t)
{
	const struct ubfab_fabric_info *f = &t->f;
	struct json *js = &u->js;
	uint32_t node;

	json_object_begin(js, NULL);
	json_string(js, "profile", f->profile);
	json_uint(js, "nodes", f->nodes);
	json_uint(js, "chips_per_node", f->chips_per_node);
	json_uint(js, "dies_per_chip", f->dies_per_chip);
	json_uint(js, "cpus_per_node", f->cpus_per_node);
	json_uint(js, "npu_chips", f->nodes * f->chips_per_node);
	json_uint(js, "npus", f->npus);
	json_uint(js, "cpus", f->cpus);
	json_uint(js, "entities", f->npus + f->cpus);
	json_uint(js, "npu_mem", f->npu_mem);
	json_uint(js, "cpu_mem", f->cpu_mem);
	json_uint(js, "hbm_total", f->npu_mem * f->npus);
	json_uint(js, "dram_total", f->cpu_mem * f->cpus);
	json_uint(js, "planes", t->planes.n);
	json_uint(js, "planes_up", t->planes_up);
	json_uint(js, "l2_per_plane", f->l2_per_plane);
	json_uint(js, "l1_switches", t->l1);
	json_uint(js, "l2_switches", t->l2);
	json_uint(js, "ports", t->ports);
	json_uint(js, "ports_up", t->ports_up);
	json_uint(js, "setup_ns", f->setup_ns);
	json_array_begin(js, "node_list");
	for (node = 0; node < f->nodes; node++)
		topo_json_node(u, t, node);
	json_array_end(js);
	json_object_end(js);
}

static int topo_summary(struct ubctl *u)
{
	struct topo t = {
		.ents = { .size = sizeof(struct ubfab_entity_info) },
		.planes = { .size = sizeof(struct ubfab_plane_info) },
	};
	int code;

	code = topo_load(u, &t);
	if (!code && u->json)
		topo_json(u, &t);
	else if (!code)
		topo_text(&t);
	ubctl_vec_free(&t.ents);
	ubctl_vec_free(&t.planes);
	return code;
}

/* "[node N | plane N]" with -f dot */
static int topo_show_dot(struct ubctl *u, int argc, char **argv)
{
	static const char *const names[] = { "node", "plane" };
	static const enum ubctl_dot_what whats[] = {
		UBCTL_DOT_NODE, UBCTL_DOT_PLANE,
	};
	struct topo t = {
		.ents = { .size = sizeof(struct ubfab_entity_info) },
		.planes = { .size = sizeof(struct ubfab_plane_info) },
	};
	enum ubctl_dot_what what = UBCTL_DOT_SUPERNODE;
	uint32_t n = 0;
	int i, code = UBCTL_EXIT_OK;

	if (argc) {
		i = tool_match(argv[0], names, ARRAY_SIZE(names), NULL, 0);
		if (i < 0)
			return ubctl_usage_error("-f dot: \"node N\" or \"plane N\", not \"%s\"",
						 argv[0]);
		what = whats[i];
		code = ubctl_parse_u32(names[i], argc > 1 ? argv[1] : NULL, &n);
		if (!code)
			code = ubctl_no_more_args(argc - 2, argv + 2);
	}
	if (!code)
		code = topo_load(u, &t);
	if (!code)
		code = topo_dot(u, &t.f, &t.ents, &t.planes, what, n);
	ubctl_vec_free(&t.ents);
	ubctl_vec_free(&t.planes);
	return code;
}

/* Where an entity sits, in words: "NPU die 1 of chip 1 in node 0". */
static void entity_place(const struct ubfab_entity_info *e)
{
	switch (e->kind) {
	case UBFAB_ENTITY_NPU:
		printf("NPU die %" PRIu32 " of chip %" PRIu32, e->die, e->chip);
		break;
	case UBFAB_ENTITY_CPU:
		printf("CPU socket %" PRIu32, e->socket);
		break;
	default:
		printf("entity of unknown kind %" PRIu32, e->kind);
		break;
	}
	printf(" in node %" PRIu32, e->node);
}

static int topo_entity(struct ubctl *u, const struct ubctl_entity_spec *s)
{
	struct ubctl_vec ports = { .size = sizeof(struct ubfab_port_info) };
	const struct ubfab_port_info *p;
	struct ubfab_entity_info e;
	uint32_t up = 0;
	char size[32];
	size_t i;
	int code;

	code = ubctl_entity_lookup(u, s, &e);
	if (!code)
		code = ubctl_port_load(u, e.eid, &ports);
	if (code) {
		ubctl_vec_free(&ports);
		return code;
	}
	p = ports.items;
	for (i = 0; i < ports.n; i++)
		up += p[i].state == UBFAB_STATE_UP;

	if (u->json) {
		json_object_begin(&u->js, NULL);
		ubctl_entity_json(u, &e);
		json_uint(&u->js, "ports_up", up);
	} else {
		printf("%s: eid %" PRIu32 ", ", e.name, e.eid);
		entity_place(&e);
		printf("\n  memory  %s %s\n",
		       tool_fmt_size(size, sizeof(size), e.mem_size, ""),
		       ubctl_mem_type(e.kind));
		if (e.auth_failures != UBFAB_COUNT_NONE)
			printf("  auth    %" PRIu64 " refused import%s of its segments\n",
			       e.auth_failures, e.auth_failures == 1 ? "" : "s");
		printf("  ports   %" PRIu32 " (%" PRIu32 " up)\n", e.ports, up);
	}
	ubctl_print_list(u, "port_list", &ports, ubctl_port_print, NULL);
	if (u->json)
		json_object_end(&u->js);
	ubctl_vec_free(&ports);
	return UBCTL_EXIT_OK;
}

int topo_show(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_entity_spec spec;
	int code;

	if (u->dot)
		return topo_show_dot(u, argc, argv);
	if (!argc)
		return topo_summary(u);
	code = ubctl_entity_parse(&argc, &argv, &spec);
	if (!code)
		code = ubctl_no_more_args(argc, argv);
	return code ? code : topo_entity(u, &spec);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl ports: printing a port, loading and selecting ports,
 * "ubctl port show [ENTITY] [plane N]" and
 * "ubctl port set ENTITY plane N state STATE".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ubctl.h"

void ubctl_port_begin(struct ubctl *u, const struct ubfab_port_info *p,
		      const struct ubctl_vec *ents)
{
	const char *name = ents ? ubctl_entity_name(ents, p->eid) : NULL;

	if (u->json) {
		json_object_begin(&u->js, NULL);
		if (name)
			json_string(&u->js, "entity", name);
		json_uint(&u->js, "eid", p->eid);
		json_uint(&u->js, "plane", p->plane);
		return;
	}
	if (name)
		printf("%s ", name);
	else if (ents)
		printf("eid %" PRIu32 " ", p->eid);
	else
		fputs("    ", stdout);
	printf("plane %" PRIu32 ":", p->plane);
}

void ubctl_port_print(struct ubctl *u, const void *port, const void *ents)
{
	const struct ubfab_port_info *p = port;
	const char *state = ubfab_state_name(p->state);

	ubctl_port_begin(u, p, ents);
	if (u->json)
		json_string(&u->js, "state", state);
	else
		printf(" state %s", state);
	ubctl_print_stats_end(u, &p->stats);
}

static int port_collect(const struct ubfab_port_info *p, void *arg)
{
	return ubctl_vec_push(arg, p);
}

int ubctl_port_load(struct ubctl *u, uint32_t eid, struct ubctl_vec *v)
{
	int code = ubctl_open(u);
	int err;

	if (code)
		return code;
	err = ubfab_port_dump(u->nl, eid, port_collect, v);
	return err ? ubctl_nl_error(u, err, "port dump") : UBCTL_EXIT_OK;
}

/* Keep only the ports of plane @plane. */
static void port_filter_plane(struct ubctl_vec *ports, uint32_t plane)
{
	struct ubfab_port_info *p = ports->items;
	size_t i, n = 0;

	for (i = 0; i < ports->n; i++)
		if (p[i].plane == plane)
			p[n++] = p[i];
	ports->n = n;
}

int ubctl_port_select(struct ubctl *u, int argc, char **argv,
		      struct ubctl_vec *ents, struct ubctl_vec *ports)
{
	struct ubctl_entity_spec spec, *one = NULL;
	struct ubfab_plane_info pl;
	bool by_plane = false;
	uint32_t plane;
	int code = 0;

	if (argc && strcmp(argv[0], "plane")) {
		one = &spec;
		code = ubctl_entity_parse(&argc, &argv, one);
	}
	if (!code && argc && !strcmp(argv[0], "plane")) {
		by_plane = true;
		code = ubctl_parse_u32("plane", argc > 1 ? argv[1] : NULL,
				       &plane);
		argc -= 2;
		argv += 2;
	}
	if (!code)
		code = ubctl_no_more_args(argc, argv);
	if (!code)
		code = ubctl_entity_load(u, one, ents);
	if (!code && by_plane)
		code = ubctl_plane_lookup(u, plane, &pl);
	if (!code) {
		const struct ubfab_entity_info *e = ents->items;

		code = ubctl_port_load(u, one ? e->eid : UBFAB_EID_ANY, ports);
	}
	if (!code && by_plane)
		port_filter_plane(ports, plane);
	return code;
}

int port_show(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_vec ents = { .size = sizeof(struct ubfab_entity_info) };
	struct ubctl_vec ports = { .size = sizeof(struct ubfab_port_info) };
	int code = ubctl_port_select(u, argc, argv, &ents, &ports);

	if (!code)
		ubctl_print_list(u, NULL, &ports, ubctl_port_print, &ents);
	ubctl_vec_free(&ents);
	ubctl_vec_free(&ports);
	return code;
}

/* Parse "plane N state STATE", in either order, both required. */
static int port_set_args(int argc, char **argv, uint32_t *plane,
			 uint32_t *state)
{
	static const char *const keywords[] = { "plane", "state" };
	bool seen[ARRAY_SIZE(keywords)] = { false };
	const char *arg;
	int k, code;

	for (; argc > 0; argc -= 2, argv += 2) {
		k = ubctl_match(argv[0], keywords, ARRAY_SIZE(keywords),
				"keyword");
		if (k < 0)
			return UBCTL_EXIT_USAGE;
		if (seen[k])
			return ubctl_usage_error("\"%s\" given twice",
						 keywords[k]);
		seen[k] = true;
		arg = argc > 1 ? argv[1] : NULL;
		code = k ? ubctl_parse_state(arg, state) :
			   ubctl_parse_u32("plane", arg, plane);
		if (code)
			return code;
	}
	if (!seen[0])
		return ubctl_usage_error("missing \"plane N\"");
	if (!seen[1])
		return ubctl_usage_error("missing \"state STATE\"");
	return UBCTL_EXIT_OK;
}

int port_set(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_entity_spec spec;
	struct ubfab_entity_info e;
	struct ubfab_plane_info pl;
	uint32_t plane, state;
	char label[48];
	int code, err;

	if (!argc)
		return ubctl_usage_error("missing ENTITY");
	code = ubctl_entity_parse(&argc, &argv, &spec);
	if (!code)
		code = port_set_args(argc, argv, &plane, &state);
	if (!code)
		code = ubctl_entity_lookup(u, &spec, &e);
	if (!code)
		code = ubctl_plane_lookup(u, plane, &pl);
	if (code)
		return code;
	snprintf(label, sizeof(label), "%s plane %" PRIu32, e.name, plane);
	err = ubfab_port_set_state(u->nl, e.eid, plane, state);
	return err ? ubctl_nl_error(u, err, label) : UBCTL_EXIT_OK;
}

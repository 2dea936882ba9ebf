// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl ports: printing a port and its fault knobs, loading and selecting
 * ports, "ubctl port show [ENTITY] [plane N]" and "ubctl port set ENTITY
 * plane N [state STATE] [bw PERMILLE] [delay PS] [errors PPM]", one
 * request that the kernel takes whole or not at all.
 */
#include <errno.h>
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

void ubctl_port_knobs(struct ubctl *u, const struct ubfab_port_info *p)
{
	const struct {
		const char *name;
		uint64_t value;
		uint64_t none;		/* what an older module reports */
		uint64_t healthy;	/* the default */
	} knobs[] = {
		{ "bw_permille", p->bw_permille, UBFAB_FIELD_NONE,
		  UBFAB_PORT_BW_FULL },
		{ "delay_ps", p->delay_ps, UBFAB_COUNT_NONE, 0 },
		{ "error_ppm", p->error_ppm, UBFAB_FIELD_NONE, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		if (knobs[i].value == knobs[i].none)
			continue;
		if (u->json)
			json_uint(&u->js, knobs[i].name, knobs[i].value);
		else if (knobs[i].value != knobs[i].healthy)
			printf(" %s %" PRIu64, knobs[i].name, knobs[i].value);
	}
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
	ubctl_port_knobs(u, p);
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

/* The keywords of "port set" after ENTITY, in the order of its syntax. */
enum { SET_PLANE, SET_STATE, SET_BW, SET_DELAY, SET_ERRORS, SET_KEYWORDS };

/*
 * Parse "plane N [state STATE] [bw PERMILLE] [delay PS] [errors PPM]", in
 * any order, the plane and at least one other required, into @plane and
 * @f. Exit code.
 */
static int port_set_args(int argc, char **argv, uint32_t *plane,
			 struct ubfab_port_faults *f)
{
	static const char *const keywords[SET_KEYWORDS] = {
		[SET_PLANE] = "plane", [SET_STATE] = "state", [SET_BW] = "bw",
		[SET_DELAY] = "delay", [SET_ERRORS] = "errors",
	};
	static const uint32_t bits[SET_KEYWORDS] = {
		[SET_STATE] = UBFAB_PORT_FAULT_STATE,
		[SET_BW] = UBFAB_PORT_FAULT_BW,
		[SET_DELAY] = UBFAB_PORT_FAULT_DELAY,
		[SET_ERRORS] = UBFAB_PORT_FAULT_ERRORS,
	};
	bool plane_seen = false;
	const char *arg;
	int k, code;

	for (; argc > 0; argc -= 2, argv += 2) {
		k = ubctl_match(argv[0], keywords, SET_KEYWORDS, "keyword");
		if (k < 0)
			return UBCTL_EXIT_USAGE;
		if (k == SET_PLANE ? plane_seen : f->mask & bits[k])
			return ubctl_usage_error("\"%s\" given twice",
						 keywords[k]);
		plane_seen |= k == SET_PLANE;
		f->mask |= bits[k];
		arg = argc > 1 ? argv[1] : NULL;
		switch (k) {
		case SET_PLANE:
			code = ubctl_parse_u32("plane", arg, plane);
			break;
		case SET_STATE:
			code = ubctl_parse_state(arg, &f->state);
			break;
		case SET_BW:
			code = ubctl_parse_u32("bw", arg, &f->bw_permille);
			break;
		case SET_DELAY:
			code = ubctl_parse_u64("delay", arg, UINT64_MAX,
					       &f->delay_ps);
			break;
		default:
			code = ubctl_parse_u32("errors", arg, &f->error_ppm);
			break;
		}
		if (code)
			return code;
	}
	if (!plane_seen)
		return ubctl_usage_error("missing \"plane N\"");
	if (!f->mask)
		return ubctl_usage_error("missing \"state STATE\" or a fault knob (bw, delay, errors)");
	return UBCTL_EXIT_OK;
}

int port_set(struct ubctl *u, int argc, char **argv)
{
	struct ubfab_port_faults f = { 0 };
	struct ubctl_entity_spec spec;
	struct ubfab_entity_info e;
	struct ubfab_plane_info pl;
	uint32_t plane;
	char label[48];
	int code, err;

	if (!argc)
		return ubctl_usage_error("missing ENTITY");
	code = ubctl_entity_parse(&argc, &argv, &spec);
	if (!code)
		code = port_set_args(argc, argv, &plane, &f);
	if (!code)
		code = ubctl_entity_lookup(u, &spec, &e);
	if (!code)
		code = ubctl_plane_lookup(u, plane, &pl);
	if (code)
		return code;
	snprintf(label, sizeof(label), "%s plane %" PRIu32, e.name, plane);
	err = ubfab_port_set_faults(u->nl, e.eid, plane, &f);
	/*
	 * The state and the request are well formed: a module that refuses
	 * them knows no knobs (it refuses their attributes).
	 */
	if (err == -EINVAL && (f.mask & ~UBFAB_PORT_FAULT_STATE))
		return ubctl_error("%s: the loaded ubfab module has no fault knobs",
				   label);
	return err ? ubctl_nl_error(u, err, label) : UBCTL_EXIT_OK;
}

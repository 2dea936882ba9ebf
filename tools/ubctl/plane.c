// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl planes: looking planes up, loading and selecting them,
 * "ubctl plane show [N]" and "ubctl plane set N state STATE".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "ubctl.h"

int ubctl_plane_lookup(struct ubctl *u, uint32_t id,
		       struct ubfab_plane_info *p)
{
	int code = ubctl_open(u);
	char label[32];
	int err;

	if (code)
		return code;
	snprintf(label, sizeof(label), "plane %" PRIu32, id);
	err = ubfab_plane_get(u->nl, id, p);
	if (err == -ENODEV)
		return ubctl_error("%s: no such plane", label);
	return err ? ubctl_nl_error(u, err, label) : UBCTL_EXIT_OK;
}

static int plane_collect(const struct ubfab_plane_info *p, void *arg)
{
	return ubctl_vec_push(arg, p);
}

int ubctl_plane_load(struct ubctl *u, struct ubctl_vec *v)
{
	int code = ubctl_open(u);
	int err;

	if (code)
		return code;
	err = ubfab_plane_dump(u->nl, plane_collect, v);
	return err ? ubctl_nl_error(u, err, "plane dump") : UBCTL_EXIT_OK;
}

static void plane_print(struct ubctl *u, const void *item, const void *ctx)
{
	const struct ubfab_plane_info *p = item;
	const char *state = ubfab_state_name(p->state);

	(void)ctx;
	if (u->json) {
		json_object_begin(&u->js, NULL);
		json_uint(&u->js, "plane", p->id);
		json_string(&u->js, "state", state);
		json_uint(&u->js, "l1_switches", p->l1_switches);
		json_uint(&u->js, "l2_switches", p->l2_switches);
		json_uint(&u->js, "ports", p->ports);
		json_uint(&u->js, "ports_up", p->ports_up);
	} else {
		printf("plane %" PRIu32 ": state %s l1_switches %" PRIu32
		       " l2_switches %" PRIu32 " ports_up %" PRIu32 "/%" PRIu32,
		       p->id, state, p->l1_switches, p->l2_switches,
		       p->ports_up, p->ports);
	}
	ubctl_print_stats_end(u, &p->stats);
}

int ubctl_plane_select(struct ubctl *u, int argc, char **argv,
		       struct ubctl_vec *v)
{
	struct ubfab_plane_info p;
	uint32_t id;
	int code;

	if (!argc)
		return ubctl_plane_load(u, v);
	code = ubctl_parse_u32("plane number", argv[0], &id);
	if (!code)
		code = ubctl_no_more_args(argc - 1, argv + 1);
	if (!code)
		code = ubctl_plane_lookup(u, id, &p);
	if (!code && ubctl_vec_push(v, &p))
		code = ubctl_error("out of memory");
	return code;
}

int plane_show(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_vec v = { .size = sizeof(struct ubfab_plane_info) };
	int code = ubctl_plane_select(u, argc, argv, &v);

	if (!code)
		ubctl_print_list(u, NULL, &v, plane_print, NULL);
	ubctl_vec_free(&v);
	return code;
}

int plane_set(struct ubctl *u, int argc, char **argv)
{
	static const char *const keywords[] = { "state" };
	struct ubfab_plane_info p;
	uint32_t id, state;
	char label[32];
	int code, err;

	if (!argc)
		return ubctl_usage_error("missing plane number");
	code = ubctl_parse_u32("plane number", argv[0], &id);
	if (!code && argc < 2)
		code = ubctl_usage_error("missing \"state STATE\"");
	if (!code && ubctl_match(argv[1], keywords, 1, "keyword") < 0)
		code = UBCTL_EXIT_USAGE;
	if (!code)
		code = ubctl_parse_state(argc > 2 ? argv[2] : NULL, &state);
	if (!code)
		code = ubctl_no_more_args(argc - 3, argv + 3);
	if (!code)
		code = ubctl_plane_lookup(u, id, &p);
	if (code)
		return code;
	snprintf(label, sizeof(label), "plane %" PRIu32, id);
	err = ubfab_plane_set_state(u->nl, id, state);
	return err ? ubctl_nl_error(u, err, label) : UBCTL_EXIT_OK;
}

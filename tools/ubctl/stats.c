// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl counters: "ubctl stats [show] [plane [N] | port [ENTITY] [plane N]]",
 * the traffic counters of planes and ports without their other
 * attributes, as one JSON object with a "planes" and/or a "ports" array;
 * "ubctl stats [show] link ..." is link.c's. "plane", "port" and "link"
 * are also commands of their own, so that "show" may be left out before
 * them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ubctl.h"

static void stats_plane_print(struct ubctl *u, const void *item,
			      const void *ctx)
{
	const struct ubfab_plane_info *p = item;

	(void)ctx;
	if (u->json) {
		json_object_begin(&u->js, NULL);
		json_uint(&u->js, "plane", p->id);
	} else {
		printf("plane %" PRIu32 ":", p->id);
	}
	ubctl_print_stats_end(u, &p->stats);
}

static void stats_port_print(struct ubctl *u, const void *item,
			     const void *ents)
{
	const struct ubfab_port_info *p = item;

	ubctl_port_begin(u, p, ents);
	ubctl_print_stats_end(u, &p->stats);
}

/* Print the planes and/or the ports loaded, as one JSON object. */
static void stats_print(struct ubctl *u, const struct ubctl_vec *planes,
			const struct ubctl_vec *ents,
			const struct ubctl_vec *ports)
{
	if (u->json)
		json_object_begin(&u->js, NULL);
	if (planes)
		ubctl_print_list(u, "planes", planes, stats_plane_print, NULL);
	if (ports)
		ubctl_print_list(u, "ports", ports, stats_port_print, ents);
	if (u->json)
		json_object_end(&u->js);
}

/* Load the planes @argc, @argv select, or all, and/or the ports. */
static int stats_run(struct ubctl *u, int argc, char **argv, bool planes,
		     bool ports)
{
	struct ubctl_vec pl = { .size = sizeof(struct ubfab_plane_info) };
	struct ubctl_vec ents = { .size = sizeof(struct ubfab_entity_info) };
	struct ubctl_vec po = { .size = sizeof(struct ubfab_port_info) };
	int code = 0;

	if (planes)
		code = ubctl_plane_select(u, argc, argv, &pl);
	if (!code && ports)
		code = ubctl_port_select(u, argc, argv, &ents, &po);
	if (!code)
		stats_print(u, planes ? &pl : NULL, &ents, ports ? &po : NULL);
	ubctl_vec_free(&pl);
	ubctl_vec_free(&ents);
	ubctl_vec_free(&po);
	return code;
}

int stats_plane(struct ubctl *u, int argc, char **argv)
{
	return stats_run(u, argc, argv, true, false);
}

int stats_port(struct ubctl *u, int argc, char **argv)
{
	return stats_run(u, argc, argv, false, true);
}

int stats_show(struct ubctl *u, int argc, char **argv)
{
	static const char *const objects[] = { "plane", "port", "link" };
	static int (*const run[])(struct ubctl *, int, char **) = {
		stats_plane, stats_port, stats_link,
	};
	int which;

	if (!argc)
		return stats_run(u, 0, argv, true, true);
	which = ubctl_match(argv[0], objects, ARRAY_SIZE(objects), "object");
	if (which < 0)
		return UBCTL_EXIT_USAGE;
	return run[which](u, argc - 1, argv + 1);
}

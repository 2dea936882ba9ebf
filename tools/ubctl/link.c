// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl links of the fabric model: loading them with their counters
 * (ubfab_link_dump()), naming them, the modeled time the fabric has
 * reached, and "ubctl stats [show] link [plane N] [loaded]": what each
 * link has carried since the module was loaded, its modeled busy and idle
 * time and its utilization, the busy share of the modeled time it has
 * seen go by. "ubctl top" (top.c) shows the same over intervals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ubctl.h"

static const char *const kinds[] = {
	[UBFAB_LINK_PORT_TX] = "port-tx",
	[UBFAB_LINK_PORT_RX] = "port-rx",
	[UBFAB_LINK_L1_UP] = "l1-up",
	[UBFAB_LINK_L2_DOWN] = "l2-down",
};

const char *ubctl_link_kind(uint32_t kind)
{
	return kind < ARRAY_SIZE(kinds) ? kinds[kind] : "unknown";
}

const char *ubctl_link_name(char *buf, size_t len,
			    const struct ubfab_link_info *l,
			    const struct ubctl_vec *ents)
{
	const char *name;

	switch (l->kind) {
	case UBFAB_LINK_PORT_TX:
	case UBFAB_LINK_PORT_RX:
		name = ubctl_entity_name(ents, l->eid);
		if (name)
			snprintf(buf, len, "plane %" PRIu32 " %s %s", l->plane,
				 name, l->kind == UBFAB_LINK_PORT_TX ? "tx" : "rx");
		else
			snprintf(buf, len, "plane %" PRIu32 " eid %" PRIu32 " %s",
				 l->plane, l->eid,
				 l->kind == UBFAB_LINK_PORT_TX ? "tx" : "rx");
		break;
	case UBFAB_LINK_L1_UP:
		snprintf(buf, len, "plane %" PRIu32 " node %" PRIu32 " up l2 %" PRIu32,
			 l->plane, l->node, l->l2);
		break;
	default:
		snprintf(buf, len, "plane %" PRIu32 " l2 %" PRIu32 " down node %" PRIu32,
			 l->plane, l->l2, l->node);
		break;
	}
	return buf;
}

/* What ubctl_link_load() collects into. */
struct link_load {
	struct ubctl_vec *v;
	uint64_t horizon_ps;
};

static int link_collect(const struct ubfab_link_info *l, void *arg)
{
	struct link_load *ll = arg;

	if (l->end_ps > ll->horizon_ps)
		ll->horizon_ps = l->end_ps;
	return ubctl_vec_push(ll->v, l);
}

int ubctl_link_load(struct ubctl *u, uint32_t plane, struct ubctl_vec *v,
		    uint64_t *horizon_ps)
{
	struct link_load ll = { .v = v };
	int code = ubctl_open(u);
	char label[32];
	int err;

	if (code)
		return code;
	err = ubfab_link_dump(u->nl, plane, link_collect, &ll);
	*horizon_ps = ll.horizon_ps;
	if (plane == UBFAB_PLANE_ANY)
		snprintf(label, sizeof(label), "links");
	else
		snprintf(label, sizeof(label), "plane %" PRIu32, plane);
	if (err == -ENODEV)
		return ubctl_error("%s: no such plane", label);
	if (err == -EOPNOTSUPP)
		return ubctl_error("links: the loaded ubfab module does not report them");
	if (err == -ENOMEM)
		return ubctl_error("out of memory");
	return err ? ubctl_nl_error(u, err, label) : UBCTL_EXIT_OK;
}

void ubctl_link_json(struct ubctl *u, const struct ubfab_link_info *l,
		     const struct ubctl_vec *ents)
{
	const char *name;

	json_uint(&u->js, "plane", l->plane);
	json_string(&u->js, "kind", ubctl_link_kind(l->kind));
	if (l->kind <= UBFAB_LINK_PORT_RX) {
		json_uint(&u->js, "eid", l->eid);
		name = ubctl_entity_name(ents, l->eid);
		if (name)
			json_string(&u->js, "entity", name);
	} else {
		json_uint(&u->js, "node", l->node);
		json_uint(&u->js, "l2", l->l2);
	}
}

double ubctl_link_util(uint64_t busy_ps, uint64_t idle_ps)
{
	return busy_ps ? (double)busy_ps / (busy_ps + idle_ps) : 0;
}

/* Print one link of a stats list (a ubctl_print_fn); @ctx: the entities. */
static void link_print(struct ubctl *u, const void *item, const void *ctx)
{
	const struct ubfab_link_info *l = item;
	char name[64], busy[16], idle[16];

	if (u->json) {
		json_object_begin(&u->js, NULL);
		ubctl_link_json(u, l, ctx);
		json_uint(&u->js, "bytes", l->bytes);
		json_uint(&u->js, "busy_ps", l->busy_ps);
		json_uint(&u->js, "idle_ps", l->idle_ps);
		json_uint(&u->js, "end_ps", l->end_ps);
		json_fixed(&u->js, "util", ubctl_link_util(l->busy_ps,
							   l->idle_ps), 4);
		json_object_end(&u->js);
		return;
	}
	printf("%s: bytes %" PRIu64 " busy %s idle %s util %.1f%%\n",
	       ubctl_link_name(name, sizeof(name), l, ctx), l->bytes,
	       ubctl_fmt_ns(busy, sizeof(busy), l->busy_ps / 1000),
	       ubctl_fmt_ns(idle, sizeof(idle), l->idle_ps / 1000),
	       100 * ubctl_link_util(l->busy_ps, l->idle_ps));
}

int stats_link(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_vec ents = { .size = sizeof(struct ubfab_entity_info) };
	struct ubctl_vec links = { .size = sizeof(struct ubfab_link_info) };
	struct ubctl_vec shown = { .size = sizeof(struct ubfab_link_info) };
	uint32_t plane = UBFAB_PLANE_ANY;
	uint64_t horizon_ps = 0;
	const struct ubfab_link_info *l;
	bool loaded = false;
	char at[16];
	int code = 0;
	size_t i;

	while (argc && !code) {
		if (!strcmp(argv[0], "plane") && argc > 1) {
			code = ubctl_parse_u32("plane number", argv[1], &plane);
			argc -= 2;
			argv += 2;
		} else if (!strcmp(argv[0], "loaded")) {
			loaded = true;
			argc--;
			argv++;
		} else {
			code = ubctl_no_more_args(argc, argv);
		}
	}
	if (!code)
		code = ubctl_link_load(u, plane, &links, &horizon_ps);
	if (!code)
		code = ubctl_entity_load(u, NULL, &ents);
	for (i = 0; !code && i < links.n; i++) {
		l = (const struct ubfab_link_info *)links.items + i;
		if ((!loaded || l->bytes) && ubctl_vec_push(&shown, l))
			code = ubctl_error("out of memory");
	}
	if (!code) {
		if (u->json) {
			json_object_begin(&u->js, NULL);
			json_uint(&u->js, "horizon_ps", horizon_ps);
		} else {
			printf("modeled time reached: %s (the latest end of a link's busy period)\n",
			       ubctl_fmt_ns(at, sizeof(at), horizon_ps / 1000));
		}
		ubctl_print_list(u, "links", &shown, link_print, &ents);
		if (u->json)
			json_object_end(&u->js);
	}
	ubctl_vec_free(&shown);
	ubctl_vec_free(&links);
	ubctl_vec_free(&ents);
	return code;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl entities: the ENTITY argument and its lookup, loading all
 * entities or the one a command names, "ubctl entity show [ENTITY]" and
 * "ubctl entity reset ENTITY".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "num.h"
#include "ubctl.h"

int ubctl_entity_parse(int *argc, char ***argv, struct ubctl_entity_spec *s)
{
	char **args = *argv;
	int code;

	if (strcmp(args[0], "eid")) {
		s->name = args[0];
		(*argc)--;
		(*argv)++;
		return UBCTL_EXIT_OK;
	}
	code = ubctl_parse_u32("eid", *argc > 1 ? args[1] : NULL, &s->eid);
	if (code)
		return code;
	s->name = NULL;
	snprintf(s->label, sizeof(s->label), "eid %" PRIu32, s->eid);
	*argc -= 2;
	*argv += 2;
	return UBCTL_EXIT_OK;
}

int ubctl_entity_lookup(struct ubctl *u, const struct ubctl_entity_spec *s,
			struct ubfab_entity_info *e)
{
	const char *what = s->name ? s->name : s->label;
	int code = ubctl_open(u);
	int err;

	if (code)
		return code;
	err = s->name ? ubfab_entity_get_by_name(u->nl, s->name, e) :
			ubfab_entity_get(u->nl, s->eid, e);
	if (err == -ENODEV)
		return ubctl_error("%s: no such entity", what);
	if (err)
		return ubctl_nl_error(u, err, what);
	return UBCTL_EXIT_OK;
}

static int entity_collect(const struct ubfab_entity_info *e, void *arg)
{
	return ubctl_vec_push(arg, e);
}

int ubctl_entity_load(struct ubctl *u, const struct ubctl_entity_spec *s,
		      struct ubctl_vec *v)
{
	struct ubfab_entity_info e;
	int code, err;

	if (s) {
		code = ubctl_entity_lookup(u, s, &e);
		if (!code && ubctl_vec_push(v, &e))
			code = ubctl_error("out of memory");
		return code;
	}
	code = ubctl_open(u);
	if (code)
		return code;
	err = ubfab_entity_dump(u->nl, entity_collect, v);
	return err ? ubctl_nl_error(u, err, "entity dump") : UBCTL_EXIT_OK;
}

const char *ubctl_entity_name(const struct ubctl_vec *v, uint32_t eid)
{
	const struct ubfab_entity_info *e = v->items;
	size_t i;

	/* EIDs are dense and dumped in order: try the direct index first */
	if (eid < v->n && e[eid].eid == eid)
		return e[eid].name;
	for (i = 0; i < v->n; i++)
		if (e[i].eid == eid)
			return e[i].name;
	return NULL;
}

const char *ubctl_mem_type(uint32_t kind)
{
	switch (kind) {
	case UBFAB_ENTITY_NPU:
		return "hbm";
	case UBFAB_ENTITY_CPU:
		return "dram";
	}
	return "memory";
}

/* The entity's position: chip and die for an NPU, socket for a CPU. */
static const struct {
	const char *name;
	size_t offset;
} places[] = {
	{ "chip", offsetof(struct ubfab_entity_info, chip) },
	{ "die", offsetof(struct ubfab_entity_info, die) },
	{ "socket", offsetof(struct ubfab_entity_info, socket) },
};

static uint32_t place_of(const struct ubfab_entity_info *e, size_t i)
{
	return *(const uint32_t *)((const char *)e + places[i].offset);
}

void ubctl_entity_json(struct ubctl *u, const struct ubfab_entity_info *e)
{
	size_t i;

	json_uint(&u->js, "eid", e->eid);
	json_string(&u->js, "name", e->name);
	json_string(&u->js, "kind", ubfab_kind_name(e->kind));
	json_uint(&u->js, "node", e->node);
	for (i = 0; i < ARRAY_SIZE(places); i++)
		if (place_of(e, i) != UBFAB_FIELD_NONE)
			json_uint(&u->js, places[i].name, place_of(e, i));
	json_uint(&u->js, "mem_size", e->mem_size);
	json_string(&u->js, "mem_type", ubctl_mem_type(e->kind));
	json_uint(&u->js, "ports", e->ports);
	if (e->auth_failures != UBFAB_COUNT_NONE)
		json_uint(&u->js, "auth_failures", e->auth_failures);
}

static void entity_print(struct ubctl *u, const void *item,
			 const void *ctx)
{
	const struct ubfab_entity_info *e = item;
	char size[32];
	size_t i;

	(void)ctx;
	if (u->json) {
		json_object_begin(&u->js, NULL);
		ubctl_entity_json(u, e);
		json_object_end(&u->js);
		return;
	}
	printf("%s: eid %" PRIu32 " kind %s node %" PRIu32, e->name, e->eid,
	       ubfab_kind_name(e->kind), e->node);
	for (i = 0; i < ARRAY_SIZE(places); i++)
		if (place_of(e, i) != UBFAB_FIELD_NONE)
			printf(" %s %" PRIu32, places[i].name, place_of(e, i));
	printf(" %s %s ports %" PRIu32, ubctl_mem_type(e->kind),
	       tool_fmt_size(size, sizeof(size), e->mem_size, ""), e->ports);
	if (e->auth_failures != UBFAB_COUNT_NONE)
		printf(" auth_failures %" PRIu64, e->auth_failures);
	putchar('\n');
}

int ubctl_entity_load_args(struct ubctl *u, int argc, char **argv,
			   struct ubctl_vec *v)
{
	struct ubctl_entity_spec spec, *one = argc ? &spec : NULL;
	int code = 0;

	if (one)
		code = ubctl_entity_parse(&argc, &argv, one);
	if (!code)
		code = ubctl_no_more_args(argc, argv);
	return code ? code : ubctl_entity_load(u, one, v);
}

int entity_show(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_vec v = { .size = sizeof(struct ubfab_entity_info) };
	int code = ubctl_entity_load_args(u, argc, argv, &v);

	if (!code)
		ubctl_print_list(u, NULL, &v, entity_print, NULL);
	ubctl_vec_free(&v);
	return code;
}

int entity_reset(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_entity_spec spec;
	struct ubfab_entity_info e;
	int code, err;

	if (!argc)
		return ubctl_usage_error("missing ENTITY");
	code = ubctl_entity_parse(&argc, &argv, &spec);
	if (!code)
		code = ubctl_no_more_args(argc, argv);
	if (!code)
		code = ubctl_entity_lookup(u, &spec, &e);
	if (code)
		return code;
	err = ubfab_entity_reset(u->nl, e.eid);
	return err ? ubctl_nl_error(u, err, e.name) : UBCTL_EXIT_OK;
}

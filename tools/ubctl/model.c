// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl model: the fabric model's parameters, "ubctl model show" (the
 * profile, then a line per parameter with its value, default and range,
 * each in its unit, then the kernel memory the model holds) and "ubctl model set [profile PROFILE] [NAME VALUE]...",
 * one request that the kernel takes whole or not at all; and what monitor
 * prints of a model event.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "ubctl.h"

int ubctl_model_load(struct ubctl *u, struct ubfab_model **m)
{
	int code = ubctl_open(u);
	int err;

	if (code)
		return code;
	err = ubfab_model_get(u->nl, m);
	if (err == -EOPNOTSUPP)
		return ubctl_error("model: the loaded ubfab module has no model parameters");
	return err ? ubctl_nl_error(u, err, "model") : UBCTL_EXIT_OK;
}

/* The memory the model holds, in @m's object; none from an older kernel. */
static void model_mem_json(struct ubctl *u, const struct ubfab_model_mem *m)
{
	if (!m->total_bytes)
		return;
	json_object_begin(&u->js, "memory");
	json_uint(&u->js, "links", m->links);
	json_uint(&u->js, "links_bytes", m->links_bytes);
	json_uint(&u->js, "queues", m->queues);
	json_uint(&u->js, "queue_bytes", m->queue_bytes);
	json_uint(&u->js, "stamps", m->stamps);
	json_uint(&u->js, "stamp_bytes", m->stamp_bytes);
	json_uint(&u->js, "other_bytes", m->other_bytes);
	json_uint(&u->js, "total_bytes", m->total_bytes);
	json_object_end(&u->js);
}

/* One line of the memory: "memory WHAT: [N UNIT, ]BYTES bytes (SIZE)". */
static void model_mem_line(const char *what, const char *count_unit,
			   uint64_t count, uint64_t bytes)
{
	char size[32];

	printf("memory %s: ", what);
	if (count_unit)
		printf("%" PRIu64 " %s, ", count, count_unit);
	printf("%" PRIu64 " bytes (%s)\n", bytes,
	       tool_fmt_size(size, sizeof(size), bytes, ""));
}

/* The memory the model holds, a line each part; none from an older kernel. */
static void model_mem_show(const struct ubfab_model_mem *m)
{
	if (!m->total_bytes)
		return;
	model_mem_line("total", NULL, 0, m->total_bytes);
	model_mem_line("links", "links", m->links, m->links_bytes);
	model_mem_line("queues", "queues", m->queues, m->queue_bytes);
	model_mem_line("stamps", "stamps", m->stamps, m->stamp_bytes);
	model_mem_line("other", NULL, 0, m->other_bytes);
}

void ubctl_model_json(struct ubctl *u, const struct ubfab_model *m)
{
	const struct ubfab_model_param *p;

	json_string(&u->js, "profile", m->profile);
	json_array_begin(&u->js, "params");
	for (p = m->params; p < m->params + m->nparams; p++) {
		json_object_begin(&u->js, NULL);
		json_string(&u->js, "name", p->name);
		json_uint(&u->js, "value", p->value);
		json_string(&u->js, "unit", p->unit);
		json_uint(&u->js, "default", p->default_value);
		json_uint(&u->js, "minimum", p->minimum);
		json_uint(&u->js, "maximum", p->maximum);
		json_object_end(&u->js);
	}
	json_array_end(&u->js);
}

int model_show(struct ubctl *u, int argc, char **argv)
{
	const struct ubfab_model_param *p;
	struct ubfab_model *m;
	int code;

	code = ubctl_no_more_args(argc, argv);
	if (!code)
		code = ubctl_model_load(u, &m);
	if (code)
		return code;
	if (u->json) {
		json_object_begin(&u->js, NULL);
		ubctl_model_json(u, m);
		model_mem_json(u, &m->mem);
		json_object_end(&u->js);
	} else {
		printf("profile %s\n", m->profile);
		for (p = m->params; p < m->params + m->nparams; p++)
			printf("%s: %" PRIu64 " %s default %" PRIu64 " %s range %"
			       PRIu64 "..%" PRIu64 " %s\n", p->name, p->value,
			       p->unit, p->default_value, p->unit, p->minimum,
			       p->maximum, p->unit);
		model_mem_show(&m->mem);
	}
	ubfab_model_free(m);
	return UBCTL_EXIT_OK;
}

/*
 * Parse the "NAME VALUE" pairs of @argc arguments, which follow "profile
 * PROFILE" if @profile, into @values (room for @argc / 2); *@n receives
 * their number. Exit code.
 */
static int model_set_args(int argc, char **argv, bool profile,
			  struct ubfab_model_value *values, size_t *n)
{
	unsigned long long v;
	size_t i;

	for (*n = 0; argc > 0; argc -= 2, argv += 2) {
		if (!strcmp(argv[0], "profile"))
			return ubctl_usage_error(profile ?
				"\"profile\" given twice" :
				"\"profile PROFILE\" must come first");
		if (argc < 2)
			return ubctl_usage_error("missing VALUE after \"%s\"",
						 argv[0]);
		if (!tool_parse_uint(argv[1], UINT64_MAX, &v))
			return ubctl_usage_error("invalid value \"%s\" for %s",
						 argv[1], argv[0]);
		for (i = 0; i < *n; i++)
			if (!strcmp(values[i].name, argv[0]))
				return ubctl_usage_error("\"%s\" given twice",
							 argv[0]);
		values[(*n)++] = (struct ubfab_model_value){ argv[0], v };
	}
	return UBCTL_EXIT_OK;
}

/*
 * The kernel refused @values (ERANGE) of @m's parameters: say which, as
 * the kernel does only by pointing at its attribute. Exit code.
 */
static int model_range_error(struct ubctl *u, const struct ubfab_model *m,
			     const struct ubfab_model_value *values, size_t n)
{
	const struct ubfab_model_param *p;
	size_t i;

	for (i = 0; i < n; i++) {
		p = ubfab_model_find(m, values[i].name);
		if (values[i].value < p->minimum || values[i].value > p->maximum)
			return ubctl_error("%s: %" PRIu64 " %s out of range %"
					   PRIu64 "..%" PRIu64 " %s", p->name,
					   values[i].value, p->unit, p->minimum,
					   p->maximum, p->unit);
	}
	return ubctl_nl_error(u, -ERANGE, "model");
}

/* Set what the arguments say, once every name is known. Exit code. */
static int model_apply(struct ubctl *u, const char *profile,
		       const struct ubfab_model_value *values, size_t n)
{
	struct ubfab_model *m = NULL;
	size_t i;
	int code, err;

	code = ubctl_model_load(u, &m);
	for (i = 0; i < n && !code; i++)
		if (!ubfab_model_find(m, values[i].name))
			code = ubctl_error("%s: no such parameter",
					   values[i].name);
	if (!code) {
		err = ubfab_model_set(u->nl, profile, values, n);
		/* the names are known: the kernel did not know the profile */
		if (err == -ENOENT && profile)
			code = ubctl_error("profile %s: no such profile",
					   profile);
		else if (err == -ERANGE)
			code = model_range_error(u, m, values, n);
		else if (err)
			code = ubctl_nl_error(u, err, "model");
	}
	ubfab_model_free(m);
	return code;
}

int model_set(struct ubctl *u, int argc, char **argv)
{
	struct ubfab_model_value *values;
	const char *profile = NULL;
	size_t n;
	int code;

	if (!argc)
		return ubctl_usage_error("missing \"profile PROFILE\" or NAME VALUE");
	if (!strcmp(argv[0], "profile")) {
		if (argc < 2)
			return ubctl_usage_error("missing PROFILE after \"profile\"");
		profile = argv[1];
		argc -= 2;
		argv += 2;
	}
	values = calloc(argc / 2 + 1, sizeof(*values));
	if (!values)
		return ubctl_error("out of memory");
	code = model_set_args(argc, argv, profile, values, &n);
	if (!code)
		code = model_apply(u, profile, values, n);
	free(values);
	return code;
}

void ubctl_model_event(struct ubctl *u, const struct ubfab_model *m,
		       const struct ubfab_model *last)
{
	const struct ubfab_model_param *p, *was;

	if (u->json) {
		json_string(&u->js, "event", "model");
		ubctl_model_json(u, m);
		return;
	}
	printf("model: profile %s", m->profile);
	for (p = m->params; p < m->params + m->nparams; p++) {
		was = ubfab_model_find(last, p->name);
		if (was && was->value == p->value)
			continue;
		printf(" %s %" PRIu64 " %s", p->name, p->value, p->unit);
		if (was)
			printf(" (was %" PRIu64 " %s)", was->value, was->unit);
	}
	putchar('\n');
}

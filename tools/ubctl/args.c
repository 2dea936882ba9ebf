// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl argument helpers: matching object and command names by prefix,
 * numbers, states, leftover arguments, and the growable array the
 * commands collect dump results in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "num.h"
#include "ubctl.h"

int ubctl_match(const char *arg, const char *const *names, size_t n,
		const char *what)
{
	char candidates[128];
	int i = tool_match(arg, names, n, candidates, sizeof(candidates));

	if (i == TOOL_MATCH_AMBIGUOUS)
		ubctl_usage_error("ambiguous %s \"%s\" (%s)", what, arg,
				  candidates);
	else if (i < 0)
		ubctl_usage_error("unknown %s \"%s\"", what, arg);
	return i < 0 ? -1 : i;
}

int ubctl_parse_u64(const char *keyword, const char *arg, uint64_t max,
		    uint64_t *v)
{
	unsigned long long n;

	if (!arg)
		return ubctl_usage_error("missing number after \"%s\"",
					 keyword);
	if (!tool_parse_uint(arg, max, &n))
		return ubctl_usage_error("invalid %s \"%s\"", keyword, arg);
	*v = n;
	return UBCTL_EXIT_OK;
}

int ubctl_parse_u32(const char *keyword, const char *arg, uint32_t *v)
{
	uint64_t n = 0;
	int code = ubctl_parse_u64(keyword, arg, UINT32_MAX, &n);

	if (!code)
		*v = n;
	return code;
}

int ubctl_parse_state(const char *arg, uint32_t *state)
{
	static const char *const names[] = { "up", "down" };
	static const uint32_t states[] = { UBFAB_STATE_UP, UBFAB_STATE_DOWN };
	int i;

	if (!arg)
		return ubctl_usage_error("missing STATE (up or down) after \"state\"");
	i = ubctl_match(arg, names, ARRAY_SIZE(names), "state");
	if (i < 0)
		return UBCTL_EXIT_USAGE;
	*state = states[i];
	return UBCTL_EXIT_OK;
}

int ubctl_no_more_args(int argc, char **argv)
{
	if (argc > 0)
		return ubctl_usage_error("unexpected argument \"%s\"", argv[0]);
	return UBCTL_EXIT_OK;
}

int ubctl_vec_push(struct ubctl_vec *v, const void *item)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		void *items = realloc(v->items, cap * v->size);

		if (!items)
			return -ENOMEM;
		v->items = items;
		v->cap = cap;
	}
	memcpy((char *)v->items + v->n++ * v->size, item, v->size);
	return 0;
}

void ubctl_vec_free(struct ubctl_vec *v)
{
	free(v->items);
	*v = (struct ubctl_vec){ .size = v->size };
}

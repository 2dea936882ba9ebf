// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl output helpers shared by the objects: lists, human-readable
 * durations, and the traffic counters in text and JSON (sizes are
 * tools/common/num.c's).
 */
#include <inttypes.h>
#include <stdio.h>

#include "ubctl.h"

void ubctl_print_list(struct ubctl *u, const char *key,
		      const struct ubctl_vec *v, ubctl_print_fn print,
		      const void *ctx)
{
	size_t i;

	if (u->json)
		json_array_begin(&u->js, key);
	for (i = 0; i < v->n; i++)
		print(u, (const char *)v->items + i * v->size, ctx);
	if (u->json)
		json_array_end(&u->js);
}

const char *ubctl_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

void ubctl_print_stats(struct ubctl *u, const struct ubfab_stats *s)
{
	const struct {
		const char *name;
		uint64_t value;
	} counters[] = {
		{ "tx_bytes", s->tx_bytes },
		{ "rx_bytes", s->rx_bytes },
		{ "tx_ops", s->tx_ops },
		{ "rx_ops", s->rx_ops },
		{ "errors", s->errors },
	};
	size_t i;

	if (u->json)
		json_object_begin(&u->js, "stats");
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		if (u->json)
			json_uint(&u->js, counters[i].name, counters[i].value);
		else
			printf(" %s %" PRIu64, counters[i].name,
			       counters[i].value);
	}
	if (u->json)
		json_object_end(&u->js);
}

void ubctl_print_stats_end(struct ubctl *u, const struct ubfab_stats *s)
{
	ubctl_print_stats(u, s);
	if (u->json)
		json_object_end(&u->js);
	else
		putchar('\n');
}

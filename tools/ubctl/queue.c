// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl queues: "ubctl queue show [ENTITY]", the NPU queues of every
 * entity or of one, any process's, like rdma's "res show qp": number,
 * process, flags, ring sizes, modeled clock and entries charged to it.
 * "ubctl top" (top.c) shows the busiest over intervals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "ubctl.h"

static const struct {
	uint32_t bit;
	const char *name;
} queue_flags[] = {
	{ UBFAB_QUEUE_POLL, "poll" },
	{ UBFAB_QUEUE_SELECTIVE, "selective" },
	{ UBFAB_QUEUE_TIMING, "timing" },
	{ UBFAB_QUEUE_ORDERED, "ordered" },
};

const char *ubctl_queue_name(char *buf, size_t len,
			     const struct ubfab_queue_info *q,
			     const struct ubctl_vec *ents)
{
	const char *name = ubctl_entity_name(ents, q->eid);

	if (name)
		snprintf(buf, len, "%s queue %" PRIu32, name, q->id);
	else
		snprintf(buf, len, "eid %" PRIu32 " queue %" PRIu32, q->eid,
			 q->id);
	return buf;
}

void ubctl_queue_json(struct ubctl *u, const struct ubfab_queue_info *q,
		      const struct ubctl_vec *ents)
{
	const char *name = ubctl_entity_name(ents, q->eid);

	if (name)
		json_string(&u->js, "entity", name);
	json_uint(&u->js, "eid", q->eid);
	json_uint(&u->js, "id", q->id);
	json_uint(&u->js, "pid", q->pid);
}

static void queue_print(struct ubctl *u, const void *item, const void *ents)
{
	const struct ubfab_queue_info *q = item;
	char name[48], clock[16];
	bool any = false;
	size_t i;

	if (u->json) {
		json_object_begin(&u->js, NULL);
		ubctl_queue_json(u, q, ents);
		json_array_begin(&u->js, "flags");
		for (i = 0; i < ARRAY_SIZE(queue_flags); i++)
			if (q->flags & queue_flags[i].bit)
				json_string(&u->js, NULL, queue_flags[i].name);
		json_array_end(&u->js);
		json_uint(&u->js, "sq_entries", q->sq_entries);
		json_uint(&u->js, "cq_entries", q->cq_entries);
		json_uint(&u->js, "clock_ns", q->clock_ns);
		json_uint(&u->js, "entries", q->entries);
		json_object_end(&u->js);
		return;
	}
	printf("%s: pid %" PRIu32 " sq %" PRIu32 " cq %" PRIu32 " flags ",
	       ubctl_queue_name(name, sizeof(name), q, ents), q->pid,
	       q->sq_entries, q->cq_entries);
	for (i = 0; i < ARRAY_SIZE(queue_flags); i++) {
		if (q->flags & queue_flags[i].bit) {
			printf("%s%s", any ? "," : "", queue_flags[i].name);
			any = true;
		}
	}
	printf("%s clock %s entries %" PRIu64 "\n", any ? "" : "-",
	       ubctl_fmt_ns(clock, sizeof(clock), q->clock_ns), q->entries);
}

static int queue_collect(const struct ubfab_queue_info *q, void *arg)
{
	return ubctl_vec_push(arg, q);
}

int ubctl_queue_load(struct ubctl *u, uint32_t eid, struct ubctl_vec *v)
{
	int code = ubctl_open(u);
	int err;

	if (code)
		return code;
	err = ubfab_queue_dump(u->nl, eid, queue_collect, v);
	if (err == -EOPNOTSUPP)
		return ubctl_error("queue dump: the loaded ubfab module does not report queues");
	if (err == -ENOMEM)
		return ubctl_error("out of memory");
	return err ? ubctl_nl_error(u, err, "queue dump") : UBCTL_EXIT_OK;
}

int queue_show(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_vec ents = { .size = sizeof(struct ubfab_entity_info) };
	struct ubctl_vec queues = { .size = sizeof(struct ubfab_queue_info) };
	int code = ubctl_entity_load_args(u, argc, argv, &ents);

	if (!code) {
		const struct ubfab_entity_info *e = ents.items;

		code = ubctl_queue_load(u, argc ? e->eid : UBFAB_EID_ANY,
					&queues);
	}
	if (!code)
		ubctl_print_list(u, NULL, &queues, queue_print, &ents);
	ubctl_vec_free(&ents);
	ubctl_vec_free(&queues);
	return code;
}

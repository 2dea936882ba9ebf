// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl top: "ubctl top [plane N] [interval SECS] [count N] [lines N]",
 * like top or iftop for the fabric model. Every interval it reads every
 * link's counters (link.c) and every queue (queue.c) and prints the ports
 * and the L1-L2 links that were held longest in modeled time over the
 * interval, each with the busy share of the modeled time it saw go by
 * meanwhile (utilization) and the modeled bandwidth it carried, and the
 * queues that ran the most entries, with how far their modeled clocks
 * moved. Runs until SIGINT or SIGTERM (status 0), or for count refreshes.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ubctl.h"

/**
 * struct top_row - what one link did over the interval
 * @l: the link as now
 * @busy_ps: modeled time it was held over the interval
 * @idle_ps: modeled time it stood idle over the interval
 * @bytes: bytes it carried over the interval
 */
struct top_row {
	struct ubfab_link_info l;
	uint64_t busy_ps;
	uint64_t idle_ps;
	uint64_t bytes;
};

/**
 * struct top_queue - what one queue did over the interval
 * @q: the queue as now
 * @entries: entries charged to its clock over the interval
 * @model_ns: how far its clock moved over the interval
 */
struct top_queue {
	struct ubfab_queue_info q;
	uint64_t entries;
	uint64_t model_ns;
};

static volatile sig_atomic_t top_stop;

static void top_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static int top_row_cmp(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->busy_ps != y->busy_ps)
		return x->busy_ps < y->busy_ps ? 1 : -1;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

/* Print the @lines busiest of @rows (sorted) whose @port says they are. */
static void top_section(struct ubctl *u, const char *title,
			const struct top_row *rows, size_t n, bool port,
			uint32_t lines, const struct ubctl_vec *ents)
{
	const struct top_row *r;
	uint32_t shown = 0;
	char name[64];
	size_t i;

	if (u->json)
		json_array_begin(&u->js, title);
	else
		printf("%-8s %10s  %s\n", "util", "GB/s",
		       port ? "port" : "switch link");
	for (i = 0; i < n && shown < lines; i++) {
		r = &rows[i];
		if ((r->l.kind <= UBFAB_LINK_PORT_RX) != port || !r->busy_ps)
			continue;
		shown++;
		if (u->json) {
			json_object_begin(&u->js, NULL);
			ubctl_link_json(u, &r->l, ents);
			json_uint(&u->js, "bytes", r->bytes);
			json_uint(&u->js, "busy_ps", r->busy_ps);
			json_uint(&u->js, "idle_ps", r->idle_ps);
			json_fixed(&u->js, "util",
				   ubctl_link_util(r->busy_ps, r->idle_ps), 4);
			json_object_end(&u->js);
		} else {
			/* bytes per ps are 1000 GB/s */
			printf("%6.1f%%  %10.2f  %s\n",
			       100 * ubctl_link_util(r->busy_ps, r->idle_ps),
			       1000.0 * r->bytes / (r->busy_ps + r->idle_ps),
			       ubctl_link_name(name, sizeof(name), &r->l, ents));
		}
	}
	if (u->json)
		json_array_end(&u->js);
	else if (!shown)
		printf("  (none busy)\n");
}

static int top_queue_cmp(const void *a, const void *b)
{
	const struct top_queue *x = a, *y = b;

	if (x->entries != y->entries)
		return x->entries < y->entries ? 1 : -1;
	return x->model_ns < y->model_ns ? 1 : x->model_ns > y->model_ns ? -1 : 0;
}

/* Whether queue @a comes before @b: by entity, then number. */
static bool top_queue_before(const struct ubfab_queue_info *a,
			     const struct ubfab_queue_info *b)
{
	return a->eid != b->eid ? a->eid < b->eid : a->id < b->id;
}

/*
 * Print the @lines queues of @now (sorted by entity and number, as is
 * @before) that ran the most entries since @before; a queue new since
 * counts from 0, one whose number another process took too.
 */
static int top_queues(struct ubctl *u, const struct ubctl_vec *before,
		      const struct ubctl_vec *now, uint64_t secs,
		      uint32_t lines, const struct ubctl_vec *ents)
{
	const struct ubfab_queue_info *a = before->items, *b = now->items;
	struct top_queue *rows, *r;
	size_t i, j = 0, n = 0;
	char name[48], moved[16];

	rows = calloc(now->n ? now->n : 1, sizeof(*rows));
	if (!rows)
		return ubctl_error("out of memory");
	for (i = 0; i < now->n; i++) {
		while (j < before->n && top_queue_before(&a[j], &b[i]))
			j++;
		r = &rows[n];
		r->q = b[i];
		r->entries = b[i].entries;
		r->model_ns = b[i].clock_ns;
		if (j < before->n && a[j].eid == b[i].eid &&
		    a[j].id == b[i].id && a[j].pid == b[i].pid) {
			r->entries -= a[j].entries;
			r->model_ns -= a[j].clock_ns;
		}
		n += r->entries > 0;
	}
	qsort(rows, n, sizeof(*rows), top_queue_cmp);
	if (u->json)
		json_array_begin(&u->js, "queues");
	else
		printf("%10s  %10s  %s\n", "entries/s", "modeled", "queue");
	for (i = 0; i < n && i < lines; i++) {
		r = &rows[i];
		if (u->json) {
			json_object_begin(&u->js, NULL);
			ubctl_queue_json(u, &r->q, ents);
			json_uint(&u->js, "entries", r->entries);
			json_uint(&u->js, "model_ns", r->model_ns);
			json_uint(&u->js, "clock_ns", r->q.clock_ns);
			json_object_end(&u->js);
		} else {
			printf("%10.0f  %10s  %s (pid %" PRIu32 ")\n",
			       (double)r->entries / secs,
			       ubctl_fmt_ns(moved, sizeof(moved), r->model_ns),
			       ubctl_queue_name(name, sizeof(name), &r->q, ents),
			       r->q.pid);
		}
	}
	if (u->json)
		json_array_end(&u->js);
	else if (!n)
		printf("  (none ran)\n");
	free(rows);
	return UBCTL_EXIT_OK;
}

/*
 * One refresh, @secs after the last: what changed from @before to @now
 * (the same links in the same order).
 */
static int top_print(struct ubctl *u, const struct ubctl_vec *before,
		     const struct ubctl_vec *now, const struct ubctl_vec *qa,
		     const struct ubctl_vec *qb, uint64_t secs,
		     uint32_t lines, bool clear, const struct ubctl_vec *ents)
{
	const struct ubfab_link_info *a = before->items, *b = now->items;
	struct top_row *rows;
	bool busy = false;
	size_t i;

	if (before->n != now->n)
		return ubctl_error("top: the links changed: is ubfab.ko reloaded?");
	rows = calloc(now->n ? now->n : 1, sizeof(*rows));
	if (!rows)
		return ubctl_error("out of memory");
	for (i = 0; i < now->n; i++) {
		rows[i].l = b[i];
		rows[i].busy_ps = b[i].busy_ps - a[i].busy_ps;
		rows[i].idle_ps = b[i].idle_ps - a[i].idle_ps;
		rows[i].bytes = b[i].bytes - a[i].bytes;
		busy |= rows[i].busy_ps;
	}
	qsort(rows, now->n, sizeof(*rows), top_row_cmp);
	if (u->json) {
		json_object_begin(&u->js, NULL);
		json_uint(&u->js, "interval_s", secs);
	} else {
		if (clear)
			fputs("\033[H\033[2J", stdout);
		printf("ubctl top: the last %" PRIu64 " s; util: the busy share of the modeled time each link saw go by\n\n",
		       secs);
	}
	if (!busy && !u->json) {
		printf("idle: no link was held\n");
	} else {
		top_section(u, "ports", rows, now->n, true, lines, ents);
		if (!u->json)
			putchar('\n');
		top_section(u, "switch_links", rows, now->n, false, lines,
			    ents);
	}
	if (!u->json)
		putchar('\n');
	top_queues(u, qa, qb, secs, lines, ents);
	if (u->json) {
		json_object_end(&u->js);
		json_break(&u->js);
	} else {
		putchar('\n');
	}
	free(rows);
	fflush(stdout);
	return UBCTL_EXIT_OK;
}

int top_run(struct ubctl *u, int argc, char **argv)
{
	struct ubctl_vec ents = { .size = sizeof(struct ubfab_entity_info) };
	struct ubctl_vec a = { .size = sizeof(struct ubfab_link_info) };
	struct ubctl_vec b = { .size = sizeof(struct ubfab_link_info) };
	struct ubctl_vec qa = { .size = sizeof(struct ubfab_queue_info) };
	struct ubctl_vec qb = { .size = sizeof(struct ubfab_queue_info) };
	struct sigaction sa = { .sa_handler = top_signal };
	uint32_t plane = UBFAB_PLANE_ANY, lines = 10, count = 0, done = 0;
	uint64_t secs = 1, horizon_ps;
	bool clear = !u->json && isatty(STDOUT_FILENO);
	struct ubctl_vec tmp;
	struct timespec ts;
	int code = 0;

	while (argc && !code) {
		if (argc < 2) {
			code = ubctl_no_more_args(argc, argv);
		} else if (!strcmp(argv[0], "plane")) {
			code = ubctl_parse_u32("plane number", argv[1], &plane);
		} else if (!strcmp(argv[0], "interval")) {
			code = ubctl_parse_u64("interval", argv[1], 3600, &secs);
			if (!code && !secs)
				code = ubctl_usage_error("interval: at least 1 second");
		} else if (!strcmp(argv[0], "count")) {
			code = ubctl_parse_u32("count", argv[1], &count);
		} else if (!strcmp(argv[0], "lines")) {
			code = ubctl_parse_u32("lines", argv[1], &lines);
		} else {
			code = ubctl_no_more_args(argc, argv);
		}
		argc -= 2;
		argv += 2;
	}
	if (!code)
		code = ubctl_entity_load(u, NULL, &ents);
	if (!code)
		code = ubctl_link_load(u, plane, &a, &horizon_ps);
	if (!code)
		code = ubctl_queue_load(u, UBFAB_EID_ANY, &qa);
	if (!code && (sigaction(SIGINT, &sa, NULL) ||
		      sigaction(SIGTERM, &sa, NULL)))
		code = ubctl_error("top: %s", strerror(errno));
	while (!code && !top_stop && (!count || done < count)) {
		ts.tv_sec = secs;
		ts.tv_nsec = 0;
		/* a signal cuts the sleep short and ends the loop */
		if (nanosleep(&ts, NULL) && errno != EINTR) {
			code = ubctl_error("top: %s", strerror(errno));
			break;
		}
		if (top_stop)
			break;
		b.n = 0;
		qb.n = 0;
		code = ubctl_link_load(u, plane, &b, &horizon_ps);
		if (!code)
			code = ubctl_queue_load(u, UBFAB_EID_ANY, &qb);
		if (!code)
			code = top_print(u, &a, &b, &qa, &qb, secs, lines,
					 clear, &ents);
		tmp = a;
		a = b;
		b = tmp;
		tmp = qa;
		qa = qb;
		qb = tmp;
		done++;
	}
	ubctl_vec_free(&a);
	ubctl_vec_free(&b);
	ubctl_vec_free(&qa);
	ubctl_vec_free(&qb);
	ubctl_vec_free(&ents);
	return code;
}

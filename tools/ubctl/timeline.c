// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubctl timelines: the ubfab events of a trace in text (tracefs's
 * "trace" file, "trace-cmd report", "perf script") converted into a
 * Chrome trace event JSON document that Perfetto and chrome://tracing
 * open: a track per queue with a slice per entry (ubfab_complete,
 * ubfab_flush), a track per link that carried something with a slice
 * per hold (ubfab_link), and flow arrows from the writer of a flag word
 * or the EVENT_RECORD to the wait each satisfied (ubfab_stamp and the
 * waits' after_ns). Lines that are not ubfab events, and ubfab events it
 * has no use for, are skipped; a used event with a field missing or
 * malformed, or text without any ubfab event, is an error naming the
 * line or the input. Documentation/tracing.rst,
 * "Timelines", describes the document.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ubctl.h"

/* A Chrome "pid" for each plane's links: far above any EID + 1. */
#define TL_PLANE_PID	1000000U
#define TL_FIELDS_MAX	16
#define TL_NAME_MAX	24

/* The link kinds as ubfab_link prints them, in track order. */
static const char *const link_kinds[] = {
	"port-tx", "port-rx", "l1-up", "l2-down",
};

/* One queue entry: a ubfab_complete or a ubfab_flush. */
struct tl_op {
	uint64_t user_data;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t after_ns;
	size_t line;
	uint32_t eid;
	uint32_t qid;
	int32_t peer;		/* -1: none */
	uint32_t bytes;
	uint32_t planes;	/* bit mask */
	char op[TL_NAME_MAX];
	char status[TL_NAME_MAX];
};

/* One hold of a link by an entry: a ubfab_link. */
struct tl_link {
	uint64_t user_data;
	uint64_t start_ps;
	uint64_t dur_ps;
	uint32_t eid;
	uint32_t plane;
	uint32_t kind;		/* index in link_kinds */
	uint32_t where;
	uint32_t l2;
	uint32_t bytes;
	uint32_t track;		/* index in the tracks, once sorted */
	uint32_t lane;		/* of the track: 0 unless holds overlap */
	char op[TL_NAME_MAX];
};

/* A flag word stamped: a ubfab_stamp. */
struct tl_stamp {
	uint64_t user_data;
	uint64_t addr;
	uint64_t stamp_ns;
	size_t line;
	uint32_t eid;
	uint32_t qid;
	uint32_t owner;
};

/*
 * A link that carried something: one track, of more than one lane (each
 * a Chrome thread, @tid and on) where holds overlap: the model lets a
 * transfer earlier than a link's busy period pass it by.
 */
struct tl_track {
	uint32_t plane;
	uint32_t kind;
	uint32_t where;
	uint32_t l2;
	uint32_t tid;
	uint32_t lanes;
};


/* A flow arrow from the slice of op @from to that of op @to. */
struct tl_flow {
	size_t from;
	size_t to;
	const struct tl_stamp *stamp;	/* NULL: an EVENT_RECORD's */
};

/**
 * struct tl - one conversion
 * @src: the input's name, for messages
 * @ents: the entities, to name tracks (may be empty: "eid N")
 * @ops: struct tl_op, in the trace's order
 * @links: struct tl_link
 * @stamps: struct tl_stamp
 * @tracks: struct tl_track, sorted by plane, kind, where, l2
 * @flows: struct tl_flow
 * @lost: events the trace says it lost ("[LOST N EVENTS]")
 * @odd_links: ubfab_link events of a link kind it does not know, with
 *	the first such kind in @odd_kind
 * @lineno: the line being read
 * @key: @n fields of the line being read, with @val their values
 */
struct tl {
	const char *src;
	const struct ubctl_vec *ents;
	struct ubctl_vec ops, links, stamps, tracks, flows;
	uint64_t lost;
	size_t odd_links;
	char odd_kind[TL_NAME_MAX];
	size_t lineno;
	size_t n;
	char *key[TL_FIELDS_MAX];
	char *val[TL_FIELDS_MAX];
};

/* The value of field @key of the line being read, or NULL. */
static const char *tl_field(const struct tl *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->key[i], key))
			return t->val[i];
	return NULL;
}

static int tl_bad(const struct tl *t, const char *event, const char *key,
		  const char *val)
{
	if (!val)
		return ubctl_error("%s:%zu: %s without field \"%s\"", t->src,
				   t->lineno, event, key);
	return ubctl_error("%s:%zu: %s: bad %s \"%s\"", t->src, t->lineno,
			   event, key, val);
}

/* Field @key as an unsigned number (decimal or 0x) up to @max. */
static int tl_u64(const struct tl *t, const char *event, const char *key,
		  uint64_t max, uint64_t *v)
{
	const char *s = tl_field(t, key);
	char *end;

	if (!s || *s < '0' || *s > '9')
		return tl_bad(t, event, key, s);
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || *end || *v > max)
		return tl_bad(t, event, key, s);
	return 0;
}

static int tl_u32(const struct tl *t, const char *event, const char *key,
		  uint32_t *v)
{
	uint64_t x;
	int code = tl_u64(t, event, key, UINT32_MAX, &x);

	*v = x;
	return code;
}

/* Field @key as a name (an opcode, a status, a link kind). */
static int tl_name(const struct tl *t, const char *event, const char *key,
		   char *out)
{
	const char *s = tl_field(t, key);

	if (!s || !*s || strlen(s) >= TL_NAME_MAX)
		return tl_bad(t, event, key, s);
	strcpy(out, s);
	return 0;
}

static int tl_push(struct ubctl_vec *v, const void *item)
{
	return ubctl_vec_push(v, item) ? ubctl_error("out of memory") : 0;
}

static int tl_complete(struct tl *t)
{
	const char *ev = "ubfab_complete", *peer = tl_field(t, "peer");
	struct tl_op o = { .line = t->lineno };
	char *end;
	long p;
	int code;

	code = tl_u32(t, ev, "eid", &o.eid) ?:
	       tl_u32(t, ev, "qid", &o.qid) ?:
	       tl_name(t, ev, "op", o.op) ?:
	       tl_u64(t, ev, "user_data", UINT64_MAX, &o.user_data) ?:
	       tl_name(t, ev, "status", o.status) ?:
	       tl_u32(t, ev, "bytes", &o.bytes) ?:
	       tl_u32(t, ev, "planes", &o.planes) ?:
	       tl_u64(t, ev, "model_start_ns", UINT64_MAX, &o.start_ns) ?:
	       tl_u64(t, ev, "model_end_ns", UINT64_MAX, &o.end_ns) ?:
	       tl_u64(t, ev, "after_ns", UINT64_MAX, &o.after_ns);
	if (code)
		return code;
	if (!peer || !*peer)
		return tl_bad(t, ev, "peer", peer);
	errno = 0;
	p = strtol(peer, &end, 10);
	if (errno || *end || p < -1 || p > INT32_MAX)
		return tl_bad(t, ev, "peer", peer);
	o.peer = p;
	/* with the model off every time is 0; never a negative duration */
	if (o.end_ns < o.start_ns)
		o.end_ns = o.start_ns;
	return tl_push(&t->ops, &o);
}

/* A flushed entry: a slice of no duration at its completion's time. */
static int tl_flush(struct tl *t)
{
	const char *ev = "ubfab_flush";
	struct tl_op o = { .line = t->lineno, .peer = -1 };
	int code;

	code = tl_u32(t, ev, "eid", &o.eid) ?:
	       tl_u32(t, ev, "qid", &o.qid) ?:
	       tl_name(t, ev, "op", o.op) ?:
	       tl_u64(t, ev, "user_data", UINT64_MAX, &o.user_data) ?:
	       tl_u64(t, ev, "model_ns", UINT64_MAX, &o.start_ns);
	if (code)
		return code;
	o.end_ns = o.start_ns;
	strcpy(o.status, "FLUSHED");
	return tl_push(&t->ops, &o);
}

static int tl_link(struct tl *t)
{
	const char *ev = "ubfab_link", *kind = tl_field(t, "link");
	struct tl_link l = { 0 };
	int code;

	code = tl_u32(t, ev, "eid", &l.eid) ?:
	       tl_name(t, ev, "op", l.op) ?:
	       tl_u64(t, ev, "user_data", UINT64_MAX, &l.user_data) ?:
	       tl_u32(t, ev, "plane", &l.plane) ?:
	       tl_u32(t, ev, "where", &l.where) ?:
	       tl_u32(t, ev, "l2", &l.l2) ?:
	       tl_u32(t, ev, "bytes", &l.bytes) ?:
	       tl_u64(t, ev, "start_ps", UINT64_MAX / 2, &l.start_ps) ?:
	       tl_u64(t, ev, "dur_ps", UINT64_MAX / 2, &l.dur_ps);
	if (code)
		return code;
	if (!kind || !*kind || strlen(kind) >= TL_NAME_MAX)
		return tl_bad(t, ev, "link", kind);
	for (l.kind = 0; l.kind < ARRAY_SIZE(link_kinds); l.kind++)
		if (!strcmp(kind, link_kinds[l.kind]))
			return tl_push(&t->links, &l);
	/* a kind of a newer module: skipped, and said */
	if (!t->odd_links++)
		strcpy(t->odd_kind, kind);
	return 0;
}

static int tl_stamp(struct tl *t)
{
	const char *ev = "ubfab_stamp";
	struct tl_stamp s = { .line = t->lineno };
	int code;

	code = tl_u32(t, ev, "eid", &s.eid) ?:
	       tl_u32(t, ev, "qid", &s.qid) ?:
	       tl_u64(t, ev, "user_data", UINT64_MAX, &s.user_data) ?:
	       tl_u32(t, ev, "owner", &s.owner) ?:
	       tl_u64(t, ev, "addr", UINT64_MAX, &s.addr) ?:
	       tl_u64(t, ev, "stamp_ns", UINT64_MAX, &s.stamp_ns);
	return code ?: tl_push(&t->stamps, &s);
}

/* The events used, by the name the trace gives them. */
static const struct {
	const char *name;
	int (*parse)(struct tl *t);
} tl_events[] = {
	{ "ubfab_complete", tl_complete },
	{ "ubfab_flush", tl_flush },
	{ "ubfab_link", tl_link },
	{ "ubfab_stamp", tl_stamp },
};

/*
 * Where the name of a ubfab event starts in @l ("ubfab_complete:" after
 * a space, or after "ubfab:" as perf script prints it), or NULL.
 */
static char *tl_event_name(char *l)
{
	char *p;

	for (p = strstr(l, "ubfab_"); p; p = strstr(p + 1, "ubfab_"))
		if (p > l && (p[-1] == ' ' || p[-1] == ':') &&
		    p[strspn(p, "abcdefghijklmnopqrstuvwxyz_")] == ':')
			return p;
	return NULL;
}

/* Cut the "key=value" words after the event's name into t->key/val. */
static void tl_split(struct tl *t, char *p)
{
	char *eq;

	t->n = 0;
	while (t->n < TL_FIELDS_MAX) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		t->key[t->n] = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
		eq = strchr(t->key[t->n], '=');
		if (!eq)
			continue;	/* not a field: skip the word */
		*eq = '\0';
		t->val[t->n++] = eq + 1;
	}
}

/*
 * One line of the trace (ended by '\0'); *@seen counts the ubfab events.
 * Exit code.
 */
static int tl_line(struct tl *t, char *l, size_t *seen)
{
	const char *lost = strstr(l, "[LOST ");
	char *name, *colon;
	size_t i;

	if (lost && !strchr(l, '=')) {
		t->lost += strtoull(lost + 6, NULL, 10);
		return 0;
	}
	name = tl_event_name(l);
	if (!name)
		return 0;
	(*seen)++;
	colon = strchr(name, ':');
	*colon = '\0';
	for (i = 0; i < ARRAY_SIZE(tl_events); i++) {
		if (strcmp(name, tl_events[i].name))
			continue;
		tl_split(t, colon + 1);
		return tl_events[i].parse(t);
	}
	return 0;
}

/* A sort key of three numbers for item @i of ops, stamps or links. */
struct tl_key {
	uint64_t a, b, c;
	size_t i;
};

static int tl_key_cmp(const void *x, const void *y)
{
	const struct tl_key *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->c != q->c)
		return p->c < q->c ? -1 : 1;
	return 0;
}

/* Tracks in order: by plane, kind, where, L2 switch. */
static int tl_track_cmp(const void *a, const void *b)
{
	const struct tl_track *x = a, *y = b;
	struct tl_key p = { x->plane, (uint64_t)x->kind << 32 | x->where, x->l2, 0 };
	struct tl_key q = { y->plane, (uint64_t)y->kind << 32 | y->where, y->l2, 0 };

	return tl_key_cmp(&p, &q);
}

/* A port's link has no L2 switch: the same track whatever l2 says. */
static struct tl_track tl_track_of(const struct tl_link *l)
{
	return (struct tl_track){
		.plane = l->plane, .kind = l->kind, .where = l->where,
		.l2 = l->kind <= 1 ? 0 : l->l2,
	};
}

/*
 * One track per link that carried something, sorted; each link gets its
 * track (tl_lanes() numbers them).
 */
static int tl_tracks(struct tl *t)
{
	struct tl_link *l = t->links.items;
	struct tl_track *tr, key;
	size_t i, n = 0;

	for (i = 0; i < t->links.n; i++) {
		key = tl_track_of(&l[i]);
		if (tl_push(&t->tracks, &key))
			return UBCTL_EXIT_FAIL;
	}
	tr = t->tracks.items;
	if (t->tracks.n)
		qsort(tr, t->tracks.n, sizeof(key), tl_track_cmp);
	for (i = 0; i < t->tracks.n; i++) {
		if (!n || tl_track_cmp(&tr[n - 1], &tr[i]))
			tr[n++] = tr[i];
	}
	t->tracks.n = n;
	for (i = 0; i < t->links.n; i++) {
		key = tl_track_of(&l[i]);
		l[i].track = (struct tl_track *)bsearch(&key, tr, n, sizeof(key),
							tl_track_cmp) - tr;
	}
	return 0;
}

/*
 * Chrome nests the slices of a thread: holds of a link that overlap go
 * to lanes of their own, each hold to the first lane free at its start.
 * Then the tracks get their threads: numbered from 1 in each plane, a
 * track's lanes one after the other.
 */
static int tl_lanes(struct tl *t)
{
	struct tl_track *tr = t->tracks.items;
	struct tl_link *l = t->links.items;
	struct tl_key *h = calloc(t->links.n + 1, sizeof(*h));
	uint64_t *end = calloc(t->links.n + 1, sizeof(*end));
	size_t i, k, first = 0, lanes = 0;
	uint32_t tid = 0;

	if (!h || !end) {
		free(h);
		free(end);
		return ubctl_error("out of memory");
	}
	/* the holds by track and start */
	for (i = 0; i < t->links.n; i++)
		h[i] = (struct tl_key){ l[i].track, l[i].start_ps, i, i };
	qsort(h, t->links.n, sizeof(*h), tl_key_cmp);
	for (i = 0; i < t->links.n; i++) {
		if (!i || h[i].a != h[first].a) {
			first = i;
			lanes = 0;
		}
		for (k = 0; k < lanes && end[k] > h[i].b; k++)
			;
		if (k == lanes)
			lanes++;
		end[k] = h[i].b + l[h[i].i].dur_ps;
		l[h[i].i].lane = k;
		if (tr[h[i].a].lanes < lanes)
			tr[h[i].a].lanes = lanes;
	}
	for (i = 0; i < t->tracks.n; i++) {
		if (i && tr[i].plane != tr[i - 1].plane)
			tid = 0;
		tr[i].tid = tid + 1;
		tid += tr[i].lanes;
	}
	free(h);
	free(end);
	return 0;
}

/* The index of the first of @n sorted keys not below (@a, @b, @c). */
static size_t tl_key_find(const struct tl_key *k, size_t n, uint64_t a,
			  uint64_t b, uint64_t c)
{
	struct tl_key want = { a, b, c, 0 };
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tl_key_cmp(&k[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The last key before (@a, @b, @c) if it has @a and @b: the last item
 * with them before @c. Its item, or SIZE_MAX.
 */
static size_t tl_key_last(const struct tl_key *k, size_t n, uint64_t a,
			  uint64_t b, uint64_t c)
{
	size_t i = tl_key_find(k, n, a, b, c);

	return i && k[i - 1].a == a && k[i - 1].b == b ? k[i - 1].i : SIZE_MAX;
}

/*
 * The keys the flows are found by: @q, the ops by queue and line; @s,
 * the stamps by owner, stamp and line; @r, the EVENT_RECORDs by entity,
 * end and index. Each array has room for all the ops or stamps.
 */
static void tl_keys(const struct tl *t, struct tl_key *q, struct tl_key *s,
		    struct tl_key *r, size_t *nr)
{
	const struct tl_stamp *st = t->stamps.items;
	const struct tl_op *o = t->ops.items;
	size_t i;

	for (i = 0; i < t->ops.n; i++) {
		q[i] = (struct tl_key){ (uint64_t)o[i].eid << 32 | o[i].qid,
					o[i].line, 0, i };
		if (!strcmp(o[i].op, "EVENT_RECORD"))
			r[(*nr)++] = (struct tl_key){ o[i].eid, o[i].end_ns, i,
						      i };
	}
	for (i = 0; i < t->stamps.n; i++)
		s[i] = (struct tl_key){ st[i].owner, st[i].stamp_ns,
					st[i].line, i };
	qsort(q, t->ops.n, sizeof(*q), tl_key_cmp);
	qsort(s, t->stamps.n, sizeof(*s), tl_key_cmp);
	qsort(r, *nr, sizeof(*r), tl_key_cmp);
}

/*
 * The entry that stamped @s: the next one its queue completed after the
 * stamp (the stamp fires while the entry runs), if that is the
 * WRITE_NOTIFY or ATOMIC of its user_data; else SIZE_MAX (a stamp of
 * UBFAB_IOCTL_QUEUE_STAMP, or the entry's complete not recorded).
 */
static size_t tl_writer(const struct tl *t, const struct tl_key *q,
			const struct tl_stamp *s)
{
	const struct tl_op *o = t->ops.items;
	uint64_t a = (uint64_t)s->eid << 32 | s->qid;
	size_t i = tl_key_find(q, t->ops.n, a, s->line + 1, 0);

	if (i == t->ops.n || q[i].a != a)
		return SIZE_MAX;
	i = q[i].i;
	if (o[i].user_data != s->user_data ||
	    (strcmp(o[i].op, "WRITE_NOTIFY") && strcmp(o[i].op, "ATOMIC")))
		return SIZE_MAX;
	return i;
}

/*
 * The flows: a WAIT_VALUE of entity E whose after_ns is the stamp_ns of
 * a word of E's memory stamped before it (the last such stamp), from
 * the entry that stamped it; an EVENT_WAIT whose after_ns is the end of
 * an EVENT_RECORD of the same entity before it (the last such one).
 */
static int tl_flows(struct tl *t)
{
	const struct tl_stamp *st = t->stamps.items;
	const struct tl_op *o = t->ops.items;
	struct tl_key *q, *s, *r;
	struct tl_flow f;
	size_t i, j, nr = 0;
	int code = 0;

	q = calloc(t->ops.n + 1, sizeof(*q));
	r = calloc(t->ops.n + 1, sizeof(*r));
	s = calloc(t->stamps.n + 1, sizeof(*s));
	if (!q || !r || !s)
		code = ubctl_error("out of memory");
	else
		tl_keys(t, q, s, r, &nr);
	for (i = 0; !code && i < t->ops.n; i++) {
		if (!strcmp(o[i].status, "FLUSHED"))
			continue;
		f = (struct tl_flow){ .from = SIZE_MAX, .to = i };
		if (!strcmp(o[i].op, "WAIT_VALUE")) {
			j = tl_key_last(s, t->stamps.n, o[i].eid, o[i].after_ns,
					o[i].line);
			if (j != SIZE_MAX) {
				f.stamp = &st[j];
				f.from = tl_writer(t, q, f.stamp);
			}
		} else if (!strcmp(o[i].op, "EVENT_WAIT")) {
			f.from = tl_key_last(r, nr, o[i].eid, o[i].after_ns, i);
		}
		if (f.from != SIZE_MAX)
			code = tl_push(&t->flows, &f);
	}
	free(q);
	free(r);
	free(s);
	return code;
}

/* Modeled nanoseconds as Chrome's microseconds, to the nanosecond. */
static void tl_us(struct json *j, const char *key, uint64_t ns)
{
	json_fixed(j, key, ns / 1000.0, 3);
}

static void tl_hex(struct json *j, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	json_string(j, key, buf);
}

/* "npu3", or "eid 3" for an entity the names do not know. */
static const char *tl_entity(const struct tl *t, uint32_t eid, char *buf,
			     size_t len)
{
	const char *name = t->ents->n ? ubctl_entity_name(t->ents, eid) : NULL;

	if (name)
		return name;
	snprintf(buf, len, "eid %" PRIu32, eid);
	return buf;
}

/* A link's name: "npu3 tx", "npu3 rx", "node 0 -> L2 5", "L2 5 -> node 0". */
static const char *tl_link_name(const struct tl *t, const struct tl_track *k,
				char *buf, size_t len)
{
	char ent[32];

	switch (k->kind) {
	case 0:
	case 1:
		snprintf(buf, len, "%s %s",
			 tl_entity(t, k->where, ent, sizeof(ent)),
			 k->kind ? "rx" : "tx");
		break;
	case 2:
		snprintf(buf, len, "node %" PRIu32 " -> L2 %" PRIu32,
			 k->where, k->l2);
		break;
	default:
		snprintf(buf, len, "L2 %" PRIu32 " -> node %" PRIu32,
			 k->l2, k->where);
	}
	return buf;
}

static void tl_meta(struct json *j, const char *what, uint32_t pid,
		    uint32_t tid, const char *name)
{
	json_break(j);
	json_object_begin(j, NULL);
	json_string(j, "ph", "M");
	json_string(j, "name", what);
	json_uint(j, "pid", pid);
	json_uint(j, "tid", tid);
	json_object_begin(j, "args");
	json_string(j, "name", name);
	json_object_end(j);
	json_object_end(j);
}

/* The names of the tracks: entities and their queues, planes and links. */
static void tl_write_meta(const struct tl *t, struct json *j)
{
	const struct tl_track *tr = t->tracks.items;
	const struct tl_op *o = t->ops.items;
	char name[80], ent[32];
	size_t i, k;
	bool seen;

	for (i = 0; i < t->ops.n; i++) {
		/* the first op of its entity names the process */
		for (k = 0, seen = false; k < i && !seen; k++)
			seen = o[k].eid == o[i].eid;
		if (!seen) {
			/* "npu3 (eid 3)", or "eid 3" without its name */
			if (tl_entity(t, o[i].eid, ent, sizeof(ent)) == ent)
				snprintf(name, sizeof(name), "%s", ent);
			else
				snprintf(name, sizeof(name), "%s (eid %" PRIu32 ")",
					 tl_entity(t, o[i].eid, ent, sizeof(ent)),
					 o[i].eid);
			tl_meta(j, "process_name", o[i].eid + 1, 0, name);
		}
		for (k = 0, seen = false; k < i && !seen; k++)
			seen = o[k].eid == o[i].eid && o[k].qid == o[i].qid;
		if (!seen) {
			snprintf(name, sizeof(name), "queue %" PRIu32, o[i].qid);
			tl_meta(j, "thread_name", o[i].eid + 1, o[i].qid, name);
		}
	}
	for (i = 0; i < t->tracks.n; i++) {
		if (!i || tr[i].plane != tr[i - 1].plane) {
			snprintf(name, sizeof(name), "plane %" PRIu32,
				 tr[i].plane);
			tl_meta(j, "process_name", TL_PLANE_PID + tr[i].plane,
				0, name);
		}
		for (k = 0; k < tr[i].lanes; k++) {
			/* "npu3 tx", then "npu3 tx (2)" and on */
			tl_link_name(t, &tr[i], name, sizeof(name));
			if (k)
				snprintf(name + strlen(name),
					 sizeof(name) - strlen(name), " (%zu)",
					 k + 1);
			tl_meta(j, "thread_name", TL_PLANE_PID + tr[i].plane,
				tr[i].tid + k, name);
		}
	}
}

static void tl_write_op(const struct tl *t, struct json *j,
			const struct tl_op *o)
{
	char ent[32];
	uint32_t p;

	json_break(j);
	json_object_begin(j, NULL);
	json_string(j, "ph", "X");
	json_string(j, "cat", "op");
	json_string(j, "name", o->op);
	json_uint(j, "pid", o->eid + 1);
	json_uint(j, "tid", o->qid);
	tl_us(j, "ts", o->start_ns);
	tl_us(j, "dur", o->end_ns - o->start_ns);
	json_object_begin(j, "args");
	json_uint(j, "eid", o->eid);
	json_uint(j, "qid", o->qid);
	json_string(j, "opcode", o->op);
	tl_hex(j, "user_data", o->user_data);
	json_uint(j, "bytes", o->bytes);
	if (o->peer < 0)
		json_null(j, "peer");
	else
		json_string(j, "peer", tl_entity(t, o->peer, ent, sizeof(ent)));
	json_string(j, "status", o->status);
	json_array_begin(j, "planes");
	for (p = 0; p < 32; p++)
		if (o->planes & (1U << p))
			json_uint(j, NULL, p);
	json_array_end(j);
	json_uint(j, "model_start_ns", o->start_ns);
	json_uint(j, "model_end_ns", o->end_ns);
	json_object_end(j);
	json_object_end(j);
}

static void tl_write_link(const struct tl *t, struct json *j,
			  const struct tl_link *l)
{
	const struct tl_track *k = (const struct tl_track *)t->tracks.items +
				   l->track;
	uint64_t start = l->start_ps / 1000, end = (l->start_ps + l->dur_ps) / 1000;
	char name[64];

	json_break(j);
	json_object_begin(j, NULL);
	json_string(j, "ph", "X");
	json_string(j, "cat", "link");
	json_string(j, "name", l->op);
	json_uint(j, "pid", TL_PLANE_PID + l->plane);
	json_uint(j, "tid", k->tid + l->lane);
	tl_us(j, "ts", start);
	tl_us(j, "dur", end - start);
	json_object_begin(j, "args");
	json_uint(j, "plane", l->plane);
	json_string(j, "kind", link_kinds[l->kind]);
	json_string(j, "link", tl_link_name(t, k, name, sizeof(name)));
	json_uint(j, "bytes", l->bytes);
	json_uint(j, "start_ns", start);
	json_uint(j, "end_ns", end);
	json_uint(j, "eid", l->eid);
	tl_hex(j, "user_data", l->user_data);
	json_object_end(j);
	json_object_end(j);
}

/*
 * @ns moved into the slice of @o, its last nanosecond at most: Chrome
 * binds an end of a flow to the slice that encloses it (pid, tid, ts).
 */
static uint64_t tl_inside(const struct tl_op *o, uint64_t ns)
{
	if (o->end_ns == o->start_ns || ns < o->start_ns)
		return o->start_ns;
	return ns < o->end_ns ? ns : o->end_ns - 1;
}

/*
 * One end of a flow: leaving the writer's slice when its flag word was
 * stamped (the record's at its end), reaching the wait's at its end.
 */
static void tl_write_flow_end(struct json *j, const struct tl_flow *f,
			      const struct tl_op *o, size_t id, bool start)
{
	uint64_t at = f->stamp && start ? f->stamp->stamp_ns : o->end_ns;

	json_break(j);
	json_object_begin(j, NULL);
	json_string(j, "ph", start ? "s" : "f");
	json_string(j, "cat", "causality");
	json_string(j, "name", f->stamp ? "flag" : "event");
	json_uint(j, "id", id);
	json_string(j, "bp", "e");
	json_uint(j, "pid", o->eid + 1);
	json_uint(j, "tid", o->qid);
	tl_us(j, "ts", tl_inside(o, at));
	if (start) {
		json_object_begin(j, "args");
		if (f->stamp) {
			json_uint(j, "owner", f->stamp->owner);
			tl_hex(j, "addr", f->stamp->addr);
			json_uint(j, "stamp_ns", f->stamp->stamp_ns);
		} else {
			json_uint(j, "end_ns", o->end_ns);
		}
		json_object_end(j);
	}
	json_object_end(j);
}

static void tl_write(const struct tl *t, FILE *out, const char *command)
{
	const struct tl_flow *f = t->flows.items;
	const struct tl_link *l = t->links.items;
	const struct tl_op *o = t->ops.items;
	struct json j;
	size_t i;

	json_init(&j, out, JSON_SPACED);
	json_object_begin(&j, NULL);
	json_string(&j, "displayTimeUnit", "ns");
	json_object_begin(&j, "otherData");
	json_string(&j, "time_unit",
		    "ts and dur: microseconds of modeled time; *_ns args: integer modeled nanoseconds");
	json_string(&j, "source", "ubfab");
	json_string(&j, "clock", "modeled (Documentation/model.rst), not host time");
	json_string(&j, "generator", "ubctl " UBCTL_VERSION);
	if (command)
		json_string(&j, "command", command);
	json_uint(&j, "ops", t->ops.n);
	json_uint(&j, "links", t->links.n);
	json_uint(&j, "flows", t->flows.n);
	json_uint(&j, "lost_events", t->lost);
	json_object_end(&j);
	json_break(&j);
	json_array_begin(&j, "traceEvents");
	tl_write_meta(t, &j);
	for (i = 0; i < t->ops.n; i++)
		tl_write_op(t, &j, &o[i]);
	for (i = 0; i < t->links.n; i++)
		tl_write_link(t, &j, &l[i]);
	for (i = 0; i < t->flows.n; i++) {
		tl_write_flow_end(&j, &f[i], &o[f[i].from], i + 1, true);
		tl_write_flow_end(&j, &f[i], &o[f[i].to], i + 1, false);
	}
	json_break(&j);
	json_array_end(&j);
	json_object_end(&j);
}

int ubctl_timeline(char *text, size_t len, const char *src,
		   const struct ubctl_vec *ents, const char *command,
		   FILE *out, struct ubctl_timeline_sum *sum)
{
	struct tl t = {
		.src = src, .ents = ents,
		.ops = { .size = sizeof(struct tl_op) },
		.links = { .size = sizeof(struct tl_link) },
		.stamps = { .size = sizeof(struct tl_stamp) },
		.tracks = { .size = sizeof(struct tl_track) },
		.flows = { .size = sizeof(struct tl_flow) },
	};
	size_t seen = 0, other = 0;
	char *l, *end;
	int code = 0;

	if (memchr(text, '\0', len))
		return ubctl_error("%s: binary data: not a trace in text (the \"trace\" file of tracefs, trace-cmd report, perf script)",
				   src);
	text[len] = '\0';
	for (l = text; *l && !code; l = end) {
		end = strchr(l, '\n');
		end = end ? (*end = '\0', end + 1) : l + strlen(l);
		t.lineno++;
		if (*l && *l != '#')
			other++;
		code = tl_line(&t, l, &seen);
	}
	if (!code && !seen && other)
		code = ubctl_error("%s: no ubfab event in %zu lines: not a trace of ubfab events",
				   src, other);
	if (!code && t.odd_links)
		fprintf(stderr, "ubctl: %s: %zu ubfab_link events of link kinds it does not know (\"%s\"...) left out\n",
			src, t.odd_links, t.odd_kind);
	if (!code && seen && !t.ops.n && !t.links.n)
		fprintf(stderr, "ubctl: %s: %zu ubfab events but no ubfab_complete, ubfab_flush or ubfab_link: were they enabled?\n",
			src, seen);
	if (!code)
		code = tl_tracks(&t) ?: tl_lanes(&t) ?: tl_flows(&t);
	if (!code) {
		tl_write(&t, out, command);
		*sum = (struct ubctl_timeline_sum){
			.ops = t.ops.n, .links = t.links.n,
			.tracks = t.tracks.n, .flows = t.flows.n,
			.lost = t.lost,
		};
	}
	ubctl_vec_free(&t.ops);
	ubctl_vec_free(&t.links);
	ubctl_vec_free(&t.stamps);
	ubctl_vec_free(&t.tracks);
	ubctl_vec_free(&t.flows);
	return code;
}

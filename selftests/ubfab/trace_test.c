// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab selftests: the module's tracepoints (trace system "ubfab",
 * Documentation/tracing.rst). Enables them through tracefs, drives a
 * queue (a WRITE and a NOP; a failing entry, the error state, a flushed
 * entry and a reset), a port down and up and a plane down and up over
 * netlink, and an unexport; then reads the trace and checks that every
 * event fired, in order, with the fields the program knows: entity,
 * queue, opcode, status, bytes, peer, user_data, modeled times equal to
 * the completions', the links a WRITE held. A WRITE_NOTIFY and the
 * WAIT_VALUE it satisfies show the stamp that ties them. Skips where tracefs has no ubfab events (a kernel
 * without ftrace, such as the debug kernel).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define TRACEFS		"/sys/kernel/tracing"
#define EVENTS		TRACEFS "/events/ubfab"
#define TOKEN		0x7ace7aceU
#define RWA		(UBFAB_SEG_READ | UBFAB_SEG_WRITE | UBFAB_SEG_ATOMIC)
#define SEG_LEN		(64U << 10)
#define WRITE_LEN	4096U
#define WAIT_MS		20000		/* for one completion, under TCG */
#define TRACE_MAX	(4U << 20)	/* bytes of trace read at most */
#define MAX_LINES	4096

/* user_data of the entries the test posts */
#define UD_WRITE	0x7e57000000000001ULL
#define UD_NOP		0x7e57000000000002ULL
#define UD_BAD		0x7e57000000000003ULL
#define UD_FLUSHED	0x7e57000000000004ULL
#define UD_NOTIFY	0x7e57000000000005ULL
#define UD_WAIT		0x7e57000000000006ULL


/* The trace, cut into lines; @line[i] points into @buf. */
struct trace {
	char *buf;
	char *line[MAX_LINES];
	int n;
};

/*
 * Where tracefs has the ubfab events, mounting it first if need be (the
 * test VM mounts only debugfs). Return: 0, or -ENOENT: none there.
 */
static int tracefs_ready(void)
{
	struct stat st;

	if (stat(TRACEFS "/events", &st) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		return -ENOENT;
	return stat(EVENTS "/enable", &st) ? -ENOENT : 0;
}

/* Empty the trace buffer: open it for writing, truncating. */
static int trace_clear(void)
{
	int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Read the whole trace into @t, cut into lines. Return: 0 or -errno. */
static int trace_read(struct trace *t)
{
	size_t len = 0;
	ssize_t r;
	char *p;
	int fd;

	t->buf = malloc(TRACE_MAX + 1);
	if (!t->buf)
		return -ENOMEM;
	fd = open(TRACEFS "/trace", O_RDONLY);
	if (fd < 0)
		return -errno;
	while (len < TRACE_MAX &&
	       (r = read(fd, t->buf + len, TRACE_MAX - len)) > 0)
		len += r;
	close(fd);
	t->buf[len] = '\0';
	t->n = 0;
	for (p = strtok(t->buf, "\n"); p && t->n < MAX_LINES;
	     p = strtok(NULL, "\n"))
		if (*p != '#')
			t->line[t->n++] = p;
	return 0;
}

/* Whether line @l is event @name ("ubfab_complete"). */
static bool is_event(const char *l, const char *name)
{
	char pat[64];

	snprintf(pat, sizeof(pat), " %s: ", name);
	return strstr(l, pat);
}

/*
 * The value of field @key in line @l, printed "key=value" after the
 * event's name; into @out, up to a space. Return: whether it is there.
 */
static bool field_str(const char *l, const char *key, char *out, size_t len)
{
	const char *p = strstr(l, ": ubfab_");
	size_t klen = strlen(key), n;

	if (!p)
		return false;
	while ((p = strstr(p, key))) {
		if (p[-1] == ' ' && p[klen] == '=') {
			p += klen + 1;
			n = strcspn(p, " ");
			if (n >= len)
				return false;
			memcpy(out, p, n);
			out[n] = '\0';
			return true;
		}
		p += klen;
	}
	return false;
}

/* Field @key of line @l as a number (decimal or 0x); ~0 if missing. */
static uint64_t field(const char *l, const char *key)
{
	char v[32];

	if (!field_str(l, key, v, sizeof(v)))
		return ~0ULL;
	return strtoull(v, NULL, 0);
}

/* Whether field @key of line @l is the string @val. */
static bool field_is(const char *l, const char *key, const char *val)
{
	char v[32];

	return field_str(l, key, v, sizeof(v)) && !strcmp(v, val);
}

/*
 * The index of the first line from @from that is event @name with field
 * @key equal to @val (any line of the event if @key is NULL), or -1.
 */
static int find(const struct trace *t, int from, const char *name,
		const char *key, uint64_t val)
{
	int i;

	for (i = from < 0 ? 0 : from; i < t->n; i++)
		if (is_event(t->line[i], name) &&
		    (!key || field(t->line[i], key) == val))
			return i;
	return -1;
}

/*
 * The first line from *@at that is event @name with field @key equal to
 * @val, of the sender's queue: the test fails if there is none, or if
 * its eid and qid are not the queue's. *@at becomes its index.
 */
static const char *q_event(struct __test_metadata *_metadata,
			   const struct trace *t, int *at, const char *name,
			   const char *key, uint64_t val, uint32_t eid,
			   uint32_t qid)
{
	const char *l;

	*at = find(t, *at, name, key, val);
	ASSERT_LE(0, *at) TH_LOG("no %s with %s=0x%llx", name, key,
				 (unsigned long long)val);
	l = t->line[*at];
	EXPECT_EQ(eid, field(l, "eid"));
	EXPECT_EQ(qid, field(l, "qid"));
	return l;
}

FIXTURE(trace) {
	struct ubfab_dev *dst, *src;
	struct ubfab_queue *q;
	struct ubfab_nl *nl;
	struct ubfab_import imp;
	uint64_t seg, loc;
	uint32_t tid;
	struct trace t;
};

FIXTURE_SETUP(trace)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;

	memset(&self->t, 0, sizeof(self->t));
	ASSERT_EQ(0, ubfab_reload(""));
	if (tracefs_ready())
		SKIP(return, "no ubfab events in tracefs (no CONFIG_EVENT_TRACING?)");
	ASSERT_EQ(0, ubfab_dev_open("npu15", &self->dst));
	ASSERT_EQ(0, ubfab_dev_alloc(self->dst, SEG_LEN, &self->seg));
	ASSERT_EQ(0, ubfab_dev_export(self->dst, self->seg, SEG_LEN, RWA,
				      TOKEN, &self->tid));
	ASSERT_EQ(0, ubfab_dev_open("npu1", &self->src));
	ASSERT_EQ(0, ubfab_dev_import(self->src, ubfab_dev_eid(self->dst),
				      self->tid, TOKEN, RWA, &self->imp));
	ASSERT_EQ(0, ubfab_dev_alloc(self->src, SEG_LEN, &self->loc));
	ASSERT_EQ(0, ubfab_queue_create(self->src, &attr, &self->q));
	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
	/* every ubfab event on, an empty buffer */
	ASSERT_EQ(0, write_file(TRACEFS "/tracing_on", "1"));
	ASSERT_EQ(0, write_file(EVENTS "/enable", "1"));
	ASSERT_EQ(0, trace_clear());
}

FIXTURE_TEARDOWN(trace)
{
	if (!access(EVENTS "/enable", W_OK))
		write_file(EVENTS "/enable", "0");
	free(self->t.buf);
	ubfab_nl_close(self->nl);
	ubfab_queue_destroy(self->q);
	ubfab_dev_close(self->src);
	ubfab_dev_close(self->dst);
	ubfab_unload();
}

TEST_F(trace, events)
{
	uint32_t src = ubfab_dev_eid(self->src), dst = ubfab_dev_eid(self->dst);
	uint32_t qid = self->q->id;
	struct ubfab_cqe wr, nop, bad, fl;
	const struct trace *t = &self->t;
	uint64_t wr_host_ns, planes, tx = 0, rx = 0;
	int at = 0, i, start, links = 0;
	struct ubfab_sqe *sqe;
	const char *l;

	/* a WRITE (the fast path's burst) and a NOP (entry by entry) */
	sqe = GET_SQE(self->q);
	ubfab_prep_write(sqe, self->loc, ubfab_import_addr(&self->imp, 0),
			 WRITE_LEN);
	sqe->user_data = UD_WRITE;
	sqe = GET_SQE(self->q);
	ubfab_prep_nop(sqe);
	sqe->user_data = UD_NOP;
	ASSERT_EQ(2, ubfab_queue_submit(self->q));
	ASSERT_EQ(0, next_cqe(self->q, &wr, WAIT_MS));
	ASSERT_EQ(0, next_cqe(self->q, &nop, WAIT_MS));
	ASSERT_EQ(UBFAB_CQE_OK, wr.status);
	ASSERT_EQ(UBFAB_CQE_OK, nop.status);

	/* a remote address of no import fails; the entry after it flushes */
	sqe = GET_SQE(self->q);
	ubfab_prep_write(sqe, self->loc, self->loc, 8);
	sqe->user_data = UD_BAD;
	sqe = GET_SQE(self->q);
	ubfab_prep_nop(sqe);
	sqe->user_data = UD_FLUSHED;
	ubfab_queue_submit(self->q);	/* 2 or -EIO: the state it left */
	ASSERT_EQ(0, next_cqe(self->q, &bad, WAIT_MS));
	ASSERT_EQ(0, next_cqe(self->q, &fl, WAIT_MS));
	ASSERT_EQ(UBFAB_CQE_NO_IMPORT, bad.status);
	ASSERT_EQ(UBFAB_CQE_FLUSHED, fl.status);
	ASSERT_EQ(0, ubfab_queue_reset(self->q));

	/* a port and a plane down and up; the segment unexported */
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, src, 0, UBFAB_STATE_DOWN));
	ASSERT_EQ(0, ubfab_port_set_state(self->nl, src, 0, UBFAB_STATE_UP));
	ASSERT_EQ(0, ubfab_plane_set_state(self->nl, 1, UBFAB_STATE_DOWN));
	ASSERT_EQ(0, ubfab_plane_set_state(self->nl, 1, UBFAB_STATE_UP));
	ASSERT_EQ(0, ubfab_dev_unexport(self->dst, self->tid));

	ASSERT_EQ(0, write_file(EVENTS "/enable", "0"));
	ASSERT_EQ(0, trace_read(&self->t));
	TH_LOG("%d lines of trace", t->n);
	for (i = 0; i < t->n && i < 40; i++)
		TH_LOG("%s", t->line[i]);

	/* the first doorbell: the engine's head 0, the user's tail 2 */
	l = q_event(_metadata, t, &at, "ubfab_submit", "sq_tail", 2, src, qid);
	EXPECT_EQ(0, field(l, "sq_head"));

	/* the WRITE: started at 0, completed with its bytes on some plane */
	l = q_event(_metadata, t, &at, "ubfab_start", "user_data", UD_WRITE,
		    src, qid);
	EXPECT_TRUE(field_is(l, "op", "WRITE"));
	EXPECT_EQ(WRITE_LEN, field(l, "length"));
	EXPECT_EQ(0, field(l, "model_start_ns"));
	start = at;
	l = q_event(_metadata, t, &at, "ubfab_complete", "user_data", UD_WRITE,
		    src, qid);
	EXPECT_TRUE(field_is(l, "op", "WRITE"));
	EXPECT_TRUE(field_is(l, "status", "OK"));
	EXPECT_EQ(WRITE_LEN, field(l, "bytes"));
	EXPECT_NE(0, field(l, "planes"));
	EXPECT_NE(~0ULL, field(l, "planes"));
	EXPECT_EQ(dst, field(l, "peer"));
	EXPECT_EQ(0, field(l, "after_ns"));
	planes = field(l, "planes");
	/*
	 * in between, the links it held: within the node, the sender's port
	 * out and the receiver's port in on each plane it took, its bytes
	 * shared between the planes, each link held a while
	 */
	for (i = start; i < at; i++) {
		if (!is_event(t->line[i], "ubfab_link"))
			continue;
		l = t->line[i];
		EXPECT_EQ(UD_WRITE, field(l, "user_data"));
		EXPECT_EQ(src, field(l, "eid"));
		EXPECT_TRUE(field_is(l, "op", "WRITE"));
		EXPECT_NE(0, field(l, "dur_ps"));
		EXPECT_NE(~0ULL, field(l, "dur_ps"));
		EXPECT_NE(~0ULL, field(l, "start_ps"));
		EXPECT_EQ(1, planes >> field(l, "plane") & 1);
		if (field_is(l, "link", "port-tx") && field(l, "where") == src)
			tx += field(l, "bytes");
		else if (field_is(l, "link", "port-rx") &&
			 field(l, "where") == dst)
			rx += field(l, "bytes");
		else
			TH_LOG("a link off the way: %s", l);
		links++;
	}
	EXPECT_EQ(WRITE_LEN, tx);
	EXPECT_EQ(WRITE_LEN, rx);
	EXPECT_EQ(2 * __builtin_popcountll(planes), links);
	l = t->line[at];
	wr_host_ns = field(l, "host_ns");
	EXPECT_NE(0, wr_host_ns);
	EXPECT_NE(~0ULL, wr_host_ns);
	EXPECT_EQ(0, field(l, "model_start_ns"));
	EXPECT_LT(0, wr.model_ns);
	EXPECT_EQ(wr.model_ns, field(l, "model_end_ns"));

	/* the NOP starts where the WRITE ended, ends at its CQE's time */
	l = q_event(_metadata, t, &at, "ubfab_start", "user_data", UD_NOP,
		    src, qid);
	EXPECT_TRUE(field_is(l, "op", "NOP"));
	EXPECT_EQ(wr.model_ns, field(l, "model_start_ns"));
	l = q_event(_metadata, t, &at, "ubfab_complete", "user_data", UD_NOP,
		    src, qid);
	EXPECT_TRUE(field_is(l, "op", "NOP"));
	EXPECT_TRUE(field_is(l, "status", "OK"));
	EXPECT_EQ(0, field(l, "bytes"));
	EXPECT_EQ(0, field(l, "planes"));
	/* no peer: -1 */
	EXPECT_EQ(~0ULL, field(l, "peer"));
	EXPECT_LE(wr_host_ns, field(l, "host_ns"));
	EXPECT_EQ(wr.model_ns, field(l, "model_start_ns"));
	EXPECT_EQ(nop.model_ns, field(l, "model_end_ns"));

	/* the failed entry, the error state it caused, the flushed one */
	l = q_event(_metadata, t, &at, "ubfab_complete", "user_data", UD_BAD,
		    src, qid);
	EXPECT_TRUE(field_is(l, "status", "NO_IMPORT"));
	EXPECT_EQ(0, field(l, "bytes"));
	EXPECT_EQ(nop.model_ns, field(l, "model_start_ns"));
	EXPECT_EQ(bad.model_ns, field(l, "model_end_ns"));
	l = q_event(_metadata, t, &at, "ubfab_queue_error", "user_data",
		    UD_BAD, src, qid);
	EXPECT_TRUE(field_is(l, "reason", "ENTRY"));
	EXPECT_TRUE(field_is(l, "status", "NO_IMPORT"));
	l = q_event(_metadata, t, &at, "ubfab_flush", "user_data", UD_FLUSHED,
		    src, qid);
	EXPECT_TRUE(field_is(l, "op", "NOP"));
	EXPECT_EQ(fl.model_ns, field(l, "model_ns"));
	/* a flushed entry neither starts nor completes */
	EXPECT_EQ(-1, find(t, 0, "ubfab_start", "user_data", UD_FLUSHED));
	EXPECT_EQ(-1, find(t, 0, "ubfab_complete", "user_data", UD_FLUSHED));

	/* the reset, in the error state, with nothing left to flush */
	l = q_event(_metadata, t, &at, "ubfab_queue_reset", "qid", qid,
		    src, qid);
	EXPECT_EQ(1, field(l, "error"));
	EXPECT_EQ(0, field(l, "flush"));

	/* port 0 of the sender down, then up */
	at = find(t, at, "ubfab_port_state", "eid", src);
	ASSERT_LE(0, at);
	l = t->line[at];
	EXPECT_EQ(0, field(l, "plane"));
	EXPECT_TRUE(field_is(l, "old", "UP"));
	EXPECT_TRUE(field_is(l, "new", "DOWN"));
	at = find(t, at + 1, "ubfab_port_state", "eid", src);
	ASSERT_LE(0, at);
	l = t->line[at];
	EXPECT_EQ(0, field(l, "plane"));
	EXPECT_TRUE(field_is(l, "old", "DOWN"));
	EXPECT_TRUE(field_is(l, "new", "UP"));

	/* plane 1 down, then up */
	at = find(t, at, "ubfab_plane_state", "plane", 1);
	ASSERT_LE(0, at);
	EXPECT_TRUE(field_is(t->line[at], "old", "UP"));
	EXPECT_TRUE(field_is(t->line[at], "new", "DOWN"));
	at = find(t, at + 1, "ubfab_plane_state", "plane", 1);
	ASSERT_LE(0, at);
	EXPECT_TRUE(field_is(t->line[at], "old", "DOWN"));
	EXPECT_TRUE(field_is(t->line[at], "new", "UP"));

	/* the unexport revokes the segment and its one import */
	at = find(t, at, "ubfab_seg_revoke", "token_id", self->tid);
	ASSERT_LE(0, at);
	l = t->line[at];
	EXPECT_EQ(dst, field(l, "eid"));
	EXPECT_EQ(self->seg, field(l, "offset"));
	EXPECT_EQ(SEG_LEN, field(l, "length"));
	EXPECT_TRUE(field_is(l, "reason", "UNEXPORT"));
	EXPECT_EQ(1, field(l, "imports"));
}

/*
 * Causality in the trace: a WRITE_NOTIFY's flag word is stamped with its
 * modeled arrival (ubfab_stamp, naming the writer's entry), and the
 * WAIT_VALUE it satisfies completes with that time as its after_ns.
 */
TEST_F(trace, causality)
{
	uint32_t src = ubfab_dev_eid(self->src), dst = ubfab_dev_eid(self->dst);
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	uint64_t flag = self->seg + SEG_LEN - 8, rem;
	const struct trace *t = &self->t;
	struct ubfab_cqe wc, nc;
	struct ubfab_queue *w;
	struct ubfab_sqe *sqe;
	const char *l;
	int at;

	ASSERT_EQ(0, ubfab_queue_create(self->dst, &attr, &w));
	sqe = GET_SQE(w);
	ubfab_prep_wait_value(sqe, flag, UBFAB_WAIT_GE, 1, WAIT_MS);
	sqe->user_data = UD_WAIT;
	ASSERT_EQ(1, ubfab_queue_submit(w));
	rem = ubfab_import_addr(&self->imp, 0);
	sqe = GET_SQE(self->q);
	ubfab_prep_write_notify(sqe, self->loc, rem, WRITE_LEN,
				rem + SEG_LEN - 8, 1);
	sqe->user_data = UD_NOTIFY;
	ASSERT_EQ(1, ubfab_queue_submit(self->q));
	ASSERT_EQ(0, next_cqe(self->q, &nc, WAIT_MS));
	ASSERT_EQ(0, next_cqe(w, &wc, WAIT_MS));
	ASSERT_EQ(UBFAB_CQE_OK, nc.status);
	ASSERT_EQ(UBFAB_CQE_OK, wc.status);
	ASSERT_EQ(0, write_file(EVENTS "/enable", "0"));
	ASSERT_EQ(0, trace_read(&self->t));

	at = find(t, 0, "ubfab_stamp", "user_data", UD_NOTIFY);
	ASSERT_LE(0, at);
	l = t->line[at];
	EXPECT_EQ(src, field(l, "eid"));
	EXPECT_EQ(self->q->id, field(l, "qid"));
	EXPECT_EQ(dst, field(l, "owner"));
	EXPECT_EQ(flag, field(l, "addr"));
	EXPECT_LT(0, field(l, "stamp_ns"));
	EXPECT_GE(nc.model_ns, field(l, "stamp_ns"));
	at = find(t, 0, "ubfab_complete", "user_data", UD_WAIT);
	ASSERT_LE(0, at);
	EXPECT_TRUE(field_is(t->line[at], "op", "WAIT_VALUE"));
	EXPECT_EQ(dst, field(t->line[at], "eid"));
	EXPECT_EQ(field(l, "stamp_ns"), field(t->line[at], "after_ns"));
	EXPECT_EQ(wc.model_ns, field(t->line[at], "model_end_ns"));
	ubfab_queue_destroy(w);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab selftests: the timeline that "ubctl trace record" writes
 * (Documentation/tracing.rst, "Timelines"). Runs this program again, as
 * the COMMAND of "ubctl trace record -o FILE -- PROG" (ubctl where it is
 * in $PATH, as in the test VM), with UBFAB_TIMELINE_CQES naming a file:
 * then it only drives two queues of two entities on different nodes (a
 * WAIT_VALUE on a flag word of npu17, then from npu1 a WRITE of four
 * planes' chunks, a READ and a WRITE_NOTIFY that adds to the flag) and
 * writes their completions there. The test then reads FILE with a small
 * JSON reader of its own and checks it against the completions: the
 * document's shape and units, one "op" slice per completion on its
 * queue's track with its modeled start and end (ts, dur, args), opcode,
 * bytes, peer and status; "link" slices on every plane the WRITE took:
 * npu1's tx port, node 0's L1 up and an L2 down to node 1; the tracks'
 * names; one flow from the WRITE_NOTIFY's slice to the WAIT_VALUE's.
 * Then that record exits with COMMAND's status, SIGTERM passed on to it,
 * and leaves no tracefs instance behind. Skips where tracefs has no
 * ubfab events or ubctl is not in $PATH. With UBFAB_TIMELINE_OUT set,
 * the timeline is written there and kept.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define TRACEFS		"/sys/kernel/tracing"
#define TOKEN		0x71e11e00U
#define RWA		(UBFAB_SEG_READ | UBFAB_SEG_WRITE | UBFAB_SEG_ATOMIC)
#define SEG_LEN		(512U << 10)
#define WRITE_LEN	(4 * UBFAB_PLANE_CHUNK)	/* 4 chunks: 4 planes */
#define READ_LEN	4096U
#define NOTIFY_LEN	64U
#define FLAG_OFF	0			/* the flag word in npu17's segment */
#define DATA_OFF	65536U
#define WAIT_MS		20000
#define NCQE		4
#define ENV_CQES	"UBFAB_TIMELINE_CQES"
#define ENV_OUT		"UBFAB_TIMELINE_OUT"

/* user_data of the entries */
#define UD_WAIT		0x71e0000000000001ULL
#define UD_WRITE	0x71e0000000000002ULL
#define UD_READ		0x71e0000000000003ULL
#define UD_NOTIFY	0x71e0000000000004ULL

/* A completion as the workload saw it, with its queue. */
struct cqe_rec {
	uint32_t eid, qid, peer;
	struct ubfab_cqe cqe;
};

/*
 * The workload, run by "ubctl trace record" with UBFAB_TIMELINE_CQES set,
 * before main(): its completions go to that file, one struct cqe_rec
 * each. Exit status 0 or the step that failed.
 */
static int workload(const char *path)
{
	struct ubfab_queue_attr attr = UBFAB_QUEUE_ATTR_INIT;
	struct ubfab_dev *a, *b;
	struct ubfab_queue *qa, *qb;
	struct ubfab_import imp;
	struct cqe_rec rec[NCQE];
	uint64_t seg, loc;
	struct ubfab_sqe *s;
	uint32_t tid;
	int i, fd;

	if (ubfab_dev_open("npu1", &a) || ubfab_dev_open("npu17", &b) ||
	    ubfab_dev_alloc(b, SEG_LEN, &seg) ||
	    ubfab_dev_export(b, seg, SEG_LEN, RWA, TOKEN, &tid) ||
	    ubfab_dev_import(a, ubfab_dev_eid(b), tid, TOKEN, RWA, &imp) ||
	    ubfab_dev_alloc(a, SEG_LEN, &loc) ||
	    ubfab_queue_create(a, &attr, &qa) ||
	    ubfab_queue_create(b, &attr, &qb))
		return 10;
	/* npu17 waits for its flag; npu1 writes, reads, then notifies */
	s = ubfab_queue_get_sqe(qb);
	ubfab_prep_wait_value(s, seg + FLAG_OFF, UBFAB_WAIT_GE, 1, WAIT_MS);
	s->user_data = UD_WAIT;
	if (ubfab_queue_submit(qb) != 1)
		return 11;
	s = ubfab_queue_get_sqe(qa);
	ubfab_prep_write(s, loc, ubfab_import_addr(&imp, DATA_OFF), WRITE_LEN);
	s->user_data = UD_WRITE;
	s = ubfab_queue_get_sqe(qa);
	ubfab_prep_read(s, loc, ubfab_import_addr(&imp, DATA_OFF), READ_LEN);
	s->user_data = UD_READ;
	s = ubfab_queue_get_sqe(qa);
	ubfab_prep_write_notify(s, loc, ubfab_import_addr(&imp, DATA_OFF),
				NOTIFY_LEN, ubfab_import_addr(&imp, FLAG_OFF),
				1);
	s->user_data = UD_NOTIFY;
	if (ubfab_queue_submit(qa) != 3)
		return 12;
	for (i = 0; i < NCQE; i++) {
		struct ubfab_queue *q = i < 3 ? qa : qb;

		rec[i] = (struct cqe_rec){
			.eid = ubfab_dev_eid(i < 3 ? a : b), .qid = q->id,
			.peer = i < 3 ? ubfab_dev_eid(b) : UINT32_MAX,
		};
		if (next_cqe(q, &rec[i].cqe, WAIT_MS))
			return 13;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, rec, sizeof(rec)) != sizeof(rec))
		return 14;
	close(fd);
	return 0;
}

__attribute__((constructor)) static void workload_mode(void)
{
	const char *path = getenv(ENV_CQES);

	if (path)
		_exit(workload(path));
}

/* A JSON value, as the reader below makes it. */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	double num;
	char *str;		/* J_STR */
	size_t n;		/* J_ARR, J_OBJ: items */
	struct jv *items;
	char **keys;		/* J_OBJ */
};

/* A recursive-descent reader of one JSON document (RFC 8259). */
struct jr {
	const char *p;
	bool err;
};

static void jr_ws(struct jr *r)
{
	r->p += strspn(r->p, " \t\r\n");
}

static char *jr_string(struct jr *r)
{
	char *s = malloc(strlen(r->p) + 1), *o = s;
	const char *esc;

	if (*r->p++ != '"' || !s) {
		r->err = true;
		return s;
	}
	while (*r->p && *r->p != '"') {
		if (*r->p != '\\') {
			*o++ = *r->p++;
			continue;
		}
		r->p++;
		esc = strchr("n\nt\tr\rb\bf\f", *r->p);
		if (*r->p == 'u') {
			*o++ = '?';	/* no \u escapes in the timeline */
			r->p += strnlen(r->p, 4) - 1;
		} else {
			*o++ = esc && *r->p ? esc[1] : *r->p;
		}
		if (*r->p)
			r->p++;
	}
	if (*r->p != '"')
		r->err = true;
	else
		r->p++;
	*o = '\0';
	return s;
}

static void jr_value(struct jr *r, struct jv *v);

static void jr_items(struct jr *r, struct jv *v, char close, bool keys)
{
	size_t cap = 0;

	r->p++;
	jr_ws(r);
	if (*r->p == close) {
		r->p++;
		return;
	}
	while (!r->err) {
		if (v->n == cap) {
			cap = cap ? 2 * cap : 8;
			v->items = realloc(v->items, cap * sizeof(*v->items));
			v->keys = realloc(v->keys, cap * sizeof(*v->keys));
			if (!v->items || !v->keys) {
				r->err = true;
				return;
			}
		}
		jr_ws(r);
		v->keys[v->n] = NULL;
		if (keys) {
			v->keys[v->n] = jr_string(r);
			jr_ws(r);
			if (*r->p++ != ':') {
				r->err = true;
				return;
			}
		}
		jr_value(r, &v->items[v->n++]);
		jr_ws(r);
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		if (*r->p++ != close)
			r->err = true;
		return;
	}
}

static void jr_value(struct jr *r, struct jv *v)
{
	char *end;

	memset(v, 0, sizeof(*v));
	jr_ws(r);
	switch (*r->p) {
	case '{':
		v->t = J_OBJ;
		jr_items(r, v, '}', true);
		break;
	case '[':
		v->t = J_ARR;
		jr_items(r, v, ']', false);
		break;
	case '"':
		v->t = J_STR;
		v->str = jr_string(r);
		break;
	default:
		if (!strncmp(r->p, "null", 4)) {
			r->p += 4;
		} else if (!strncmp(r->p, "true", 4)) {
			v->t = J_BOOL;
			v->num = 1;
			r->p += 4;
		} else if (!strncmp(r->p, "false", 5)) {
			v->t = J_BOOL;
			r->p += 5;
		} else {
			v->t = J_NUM;
			v->num = strtod(r->p, &end);
			if (end == r->p)
				r->err = true;
			r->p = end;
		}
	}
}

static void jv_free(struct jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

/* Member @key of object @v, or NULL. */
static const struct jv *jget(const struct jv *v, const char *key)
{
	size_t i;

	if (!v || v->t != J_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

/* Member @key as a string ("" if it is none), as a number (NAN if none). */
static const char *jstr(const struct jv *v, const char *key)
{
	const struct jv *m = jget(v, key);

	return m && m->t == J_STR ? m->str : "";
}

static double jnum(const struct jv *v, const char *key)
{
	const struct jv *m = jget(v, key);

	return m && m->t == J_NUM ? m->num : NAN;
}

/* Microseconds in the document as whole nanoseconds (-1: not a number). */
static long long us_ns(double us)
{
	return us >= 0 ? (long long)(us * 1000 + 0.5) : -1;
}

/* Read the file @path, '\0'-ended, or NULL. */
static char *slurp(const char *path)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc(st.st_size + 1);
	if (buf && read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[st.st_size] = '\0';
	close(fd);
	return buf;
}

FIXTURE(timeline) {
	char dir[64];
	char out[128];
	char cqes[128];
};

FIXTURE_SETUP(timeline)
{
	struct stat st;

	ASSERT_EQ(0, ubfab_reload(""));
	if (stat(TRACEFS "/events", &st))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (stat(TRACEFS "/events/ubfab", &st))
		SKIP(return, "no ubfab events in tracefs (no CONFIG_EVENT_TRACING?)");
	strcpy(self->dir, "/tmp/timeline_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->cqes, sizeof(self->cqes), "%s/cqes", self->dir);
	snprintf(self->out, sizeof(self->out), "%s",
		 getenv(ENV_OUT) ?: "");
	if (!*self->out)
		snprintf(self->out, sizeof(self->out), "%s/trace.json",
			 self->dir);
}

FIXTURE_TEARDOWN(timeline)
{
	if (!*self->dir)
		return;
	unlink(self->cqes);
	if (!getenv(ENV_OUT))
		unlink(self->out);
	rmdir(self->dir);
	ubfab_unload();
}

/* The one "X" event of category @cat on @pid/@tid with @user_data. */
static const struct jv *slice(const struct jv *evs, const char *cat,
			      uint32_t pid, uint32_t tid, uint64_t user_data,
			      int *count)
{
	const struct jv *found = NULL, *e, *a;
	char ud[24];
	size_t i;

	snprintf(ud, sizeof(ud), "0x%" PRIx64, user_data);
	*count = 0;
	for (i = 0; i < evs->n; i++) {
		e = &evs->items[i];
		a = jget(e, "args");
		if (!strcmp(jstr(e, "ph"), "X") && !strcmp(jstr(e, "cat"), cat) &&
		    jnum(e, "pid") == pid && jnum(e, "tid") == tid &&
		    !strcmp(jstr(a, "user_data"), ud)) {
			found = e;
			(*count)++;
		}
	}
	return found;
}

/* Whether the "M" event @what names @pid/@tid @name. */
static bool named(const struct jv *evs, const char *what, uint32_t pid,
		  uint32_t tid, const char *name)
{
	const struct jv *e;
	size_t i;

	for (i = 0; i < evs->n; i++) {
		e = &evs->items[i];
		if (!strcmp(jstr(e, "ph"), "M") && !strcmp(jstr(e, "name"), what) &&
		    jnum(e, "pid") == pid &&
		    (!strcmp(what, "process_name") || jnum(e, "tid") == tid))
			return !strcmp(jstr(jget(e, "args"), "name"), name);
	}
	return false;
}

static const char *const opnames[] = {
	[UBFAB_OP_WRITE] = "WRITE", [UBFAB_OP_READ] = "READ",
	[UBFAB_OP_WRITE_NOTIFY] = "WRITE_NOTIFY",
	[UBFAB_OP_WAIT_VALUE] = "WAIT_VALUE",
};

TEST_F_TIMEOUT(timeline, record, 120)
{
	char exe[256], dump[64], buf[64];
	struct cqe_rec rec[NCQE];
	const struct jv *evs, *e, *a, *pl, *w, *n;
	struct jv doc = { 0 };
	struct jr r = { 0 };
	char *text;
	ssize_t len;
	int status, i, count, flows = 0;
	size_t k;
	pid_t pid;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, len);
	exe[len] = '\0';
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		setenv(ENV_CQES, self->cqes, 1);
		execlp("ubctl", "ubctl", "trace", "record", "-o", self->out,
		       "--", exe, (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 127)
		SKIP(return, "no ubctl in $PATH");
	ASSERT_EQ(0, WEXITSTATUS(status));

	/* the completions the workload saw */
	text = slurp(self->cqes);
	ASSERT_NE(NULL, text);
	memcpy(rec, text, sizeof(rec));
	free(text);

	/* the document: a JSON object with the units written in it */
	text = slurp(self->out);
	ASSERT_NE(NULL, text);
	r.p = text;
	jr_value(&r, &doc);
	jr_ws(&r);
	EXPECT_FALSE(r.err || *r.p) TH_LOG("not JSON at byte %zu",
					    (size_t)(r.p - text));
	free(text);
	ASSERT_EQ(J_OBJ, doc.t);
	EXPECT_STREQ("ns", jstr(&doc, "displayTimeUnit"));
	EXPECT_NE(NULL, strstr(jstr(jget(&doc, "otherData"), "time_unit"),
			       "microseconds"));
	EXPECT_STREQ("ubfab", jstr(jget(&doc, "otherData"), "source"));
	evs = jget(&doc, "traceEvents");
	ASSERT_NE(NULL, evs);
	ASSERT_EQ(J_ARR, evs->t);
	TH_LOG("%zu events", evs->n);

	/* one op slice per completion, at its modeled times */
	for (i = 0; i < NCQE; i++) {
		const struct ubfab_cqe *c = &rec[i].cqe;
		uint32_t eid = rec[i].eid, qid = rec[i].qid;

		ASSERT_EQ(UBFAB_CQE_OK, c->status);
		e = slice(evs, "op", eid + 1, qid, c->user_data, &count);
		ASSERT_EQ(1, count) TH_LOG("op slices of 0x%llx",
					   (unsigned long long)c->user_data);
		a = jget(e, "args");
		EXPECT_STREQ(opnames[c->opcode], jstr(e, "name"));
		EXPECT_STREQ(opnames[c->opcode], jstr(a, "opcode"));
		EXPECT_STREQ("OK", jstr(a, "status"));
		EXPECT_EQ(c->bytes, jnum(a, "bytes"));
		EXPECT_EQ(eid, jnum(a, "eid"));
		EXPECT_EQ(qid, jnum(a, "qid"));
		EXPECT_EQ(c->model_ns, jnum(a, "model_end_ns"));
		EXPECT_EQ(us_ns(jnum(e, "ts")), jnum(a, "model_start_ns"));
		EXPECT_EQ(c->model_ns, us_ns(jnum(e, "ts") + jnum(e, "dur")));
		EXPECT_LE(jnum(a, "model_start_ns"), c->model_ns);
		/* npu1's entries went to npu17; the wait has no peer */
		EXPECT_EQ(rec[i].peer == UINT32_MAX ? J_NULL : J_STR,
			  jget(a, "peer")->t);
		if (rec[i].peer != UINT32_MAX)
			EXPECT_STREQ("npu17", jstr(a, "peer"));
		snprintf(buf, sizeof(buf), "%s (eid %u)", i < 3 ? "npu1" : "npu17",
			 eid);
		EXPECT_TRUE(named(evs, "process_name", eid + 1, 0, buf));
		snprintf(buf, sizeof(buf), "queue %u", qid);
		EXPECT_TRUE(named(evs, "thread_name", eid + 1, qid, buf));
	}
	/* the entries of npu1's queue one after the other */
	e = slice(evs, "op", rec[0].eid + 1, rec[0].qid, UD_WRITE, &count);
	w = slice(evs, "op", rec[0].eid + 1, rec[0].qid, UD_READ, &count);
	EXPECT_LE(jnum(jget(e, "args"), "model_end_ns"),
		  jnum(jget(w, "args"), "model_start_ns"));

	/* the WRITE: its planes, each with a hold of npu1's tx link */
	e = slice(evs, "op", rec[0].eid + 1, rec[0].qid, UD_WRITE, &count);
	pl = jget(jget(e, "args"), "planes");
	ASSERT_NE(NULL, pl);
	ASSERT_EQ(J_ARR, pl->t);
	EXPECT_EQ(4, pl->n);
	for (k = 0; k < pl->n; k++) {
		uint32_t plane = pl->items[k].num;
		bool tx = false, l1 = false, l2 = false;

		for (i = 0; i < (int)evs->n; i++) {
			const struct jv *x = &evs->items[i];

			a = jget(x, "args");
			if (strcmp(jstr(x, "cat"), "link") ||
			    jnum(x, "pid") != 1000000 + plane ||
			    strcmp(jstr(a, "user_data"), "0x71e0000000000002"))
				continue;
			EXPECT_STREQ("WRITE", jstr(x, "name"));
			EXPECT_EQ(plane, jnum(a, "plane"));
			EXPECT_EQ(rec[0].eid, jnum(a, "eid"));
			EXPECT_EQ(jnum(a, "start_ns"), us_ns(jnum(x, "ts")));
			EXPECT_EQ(jnum(a, "end_ns"),
				  us_ns(jnum(x, "ts") + jnum(x, "dur")));
			if (!strcmp(jstr(a, "kind"), "l1-up")) {
				l1 = true;
				EXPECT_EQ(0, strncmp(jstr(a, "link"),
						     "node 0 -> L2 ", 13));
			}
			if (!strcmp(jstr(a, "kind"), "l2-down")) {
				l2 = true;
				EXPECT_NE(NULL, strstr(jstr(a, "link"),
						       " -> node 1"));
			}
			if (!strcmp(jstr(a, "kind"), "port-tx")) {
				tx = true;
				EXPECT_STREQ("npu1 tx", jstr(a, "link"));
				EXPECT_EQ(UBFAB_PLANE_CHUNK, jnum(a, "bytes"));
				EXPECT_TRUE(named(evs, "thread_name",
						  1000000 + plane,
						  jnum(x, "tid"), "npu1 tx"));
			}
		}
		EXPECT_TRUE(tx) TH_LOG("no npu1 tx hold on plane %u", plane);
		EXPECT_TRUE(l1) TH_LOG("no node 0 L1 up hold on plane %u", plane);
		EXPECT_TRUE(l2) TH_LOG("no L2 down hold on plane %u", plane);
		snprintf(buf, sizeof(buf), "plane %u", plane);
		EXPECT_TRUE(named(evs, "process_name", 1000000 + plane, 0, buf));
	}

	/* one flow: from the WRITE_NOTIFY's slice to the WAIT_VALUE's */
	e = slice(evs, "op", rec[2].eid + 1, rec[2].qid, UD_NOTIFY, &count);
	w = slice(evs, "op", rec[3].eid + 1, rec[3].qid, UD_WAIT, &count);
	for (k = 0; k < evs->n; k++) {
		const struct jv *s = &evs->items[k], *f = NULL, *x;
		size_t m;

		if (strcmp(jstr(s, "ph"), "s"))
			continue;
		flows++;
		for (m = 0; m < evs->n; m++) {
			x = &evs->items[m];
			if (!strcmp(jstr(x, "ph"), "f") &&
			    jnum(x, "id") == jnum(s, "id"))
				f = x;
		}
		ASSERT_NE(NULL, f);
		EXPECT_STREQ("causality", jstr(s, "cat"));
		EXPECT_STREQ("causality", jstr(f, "cat"));
		EXPECT_STREQ("e", jstr(f, "bp"));
		/* each end inside its slice */
		EXPECT_EQ(jnum(e, "pid"), jnum(s, "pid"));
		EXPECT_EQ(jnum(e, "tid"), jnum(s, "tid"));
		EXPECT_LE(jnum(e, "ts"), jnum(s, "ts"));
		EXPECT_GE(jnum(e, "ts") + jnum(e, "dur"), jnum(s, "ts"));
		EXPECT_EQ(jnum(w, "pid"), jnum(f, "pid"));
		EXPECT_EQ(jnum(w, "tid"), jnum(f, "tid"));
		EXPECT_LE(jnum(w, "ts"), jnum(f, "ts"));
		EXPECT_GE(jnum(w, "ts") + jnum(w, "dur"), jnum(f, "ts"));
		n = jget(s, "args");
		EXPECT_LE(jnum(n, "stamp_ns"), rec[3].cqe.model_ns);
	}
	EXPECT_EQ(1, flows);
	snprintf(dump, sizeof(dump), "%zu", evs->n);
	TH_LOG("timeline of %s events checked", dump);
	jv_free(&doc);
}

/* Whether a child of @parent runs "sleep" (has exec'd it). */
static bool sleeping_child(pid_t parent)
{
	char path[300], stat[256], *p;
	bool found = false;
	struct dirent *d;
	DIR *dir;
	int ppid;

	dir = opendir("/proc");
	while (dir && !found && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		if (read_text(path, stat, sizeof(stat)))
			continue;
		/* "PID (COMM) STATE PPID ..." */
		p = strrchr(stat, ')');
		found = p && sscanf(p + 1, " %*c %d", &ppid) == 1 &&
			ppid == parent && strstr(stat, "(sleep)");
	}
	if (dir)
		closedir(dir);
	return found;
}

/*
 * Run "ubctl trace record -o OUT -- @cmd..." (sending it SIGTERM once
 * @cmd, a sleep, runs, if @term); its exit status, or -1 if it was not in
 * $PATH.
 */
static int record(struct __test_metadata *_metadata, const char *out,
		  bool term, const char *const *cmd)
{
	const char *argv[16] = { "ubctl", "trace", "record", "-o", out, "--" };
	char inst[96];
	int status, n = 6;
	pid_t pid;

	while (*cmd && n < 15)
		argv[n++] = *cmd++;
	pid = fork();
	if (!pid) {
		execvp(argv[0], (char **)argv);
		_exit(127);
	}
	if (pid < 0)
		return -2;
	if (term) {
		int64_t end = now_ms() + WAIT_MS;

		while (!sleeping_child(pid) && now_ms() < end)
			usleep(10000);
		kill(pid, SIGTERM);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -2;
	/* its tracefs instance is gone */
	snprintf(inst, sizeof(inst), TRACEFS "/instances/ubctl-%d", (int)pid);
	EXPECT_NE(0, access(inst, F_OK));
	return WEXITSTATUS(status) == 127 && access(out, F_OK) ? -1 :
	       WEXITSTATUS(status);
}

/*
 * record exits with COMMAND's status, writing the timeline all the same:
 * 3 from "exit 3"; 127 for a COMMAND it cannot run; 128 + 15 for one that
 * SIGTERM, passed on by ubctl, ended. Nothing ran: no slices.
 */
TEST_F_TIMEOUT(timeline, status, 120)
{
	static const char *const exit3[] = { "sh", "-c", "exit 3", NULL };
	static const char *const none[] = { "/nonexistent/cmd", NULL };
	static const char *const sleep[] = { "sleep", "100", NULL };
	char out[160], *text;
	int rc;

	/* not UBFAB_TIMELINE_OUT: that keeps the timeline of "record" */
	snprintf(out, sizeof(out), "%s/status.json", self->dir);

	rc = record(_metadata, out, false, exit3);
	if (rc == -1)
		SKIP(return, "no ubctl in $PATH");
	EXPECT_EQ(3, rc);
	text = slurp(out);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "\"traceEvents\": ["));
	EXPECT_EQ(NULL, strstr(text, "\"ph\": \"X\""));
	free(text);
	EXPECT_EQ(127, record(_metadata, out, false, none));
	EXPECT_EQ(0, access(out, F_OK));
	unlink(out);
	EXPECT_EQ(128 + SIGTERM, record(_metadata, out, true, sleep));
	EXPECT_EQ(0, access(out, F_OK));
	unlink(out);
}

TEST_HARNESS_MAIN

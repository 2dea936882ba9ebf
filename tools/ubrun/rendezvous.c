// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubrun's bootstrap server: the Unix socket in UBRUN_SOCK through which
 * the ranks of a job exchange what libubshmem needs (their heaps' handles
 * and tokens) and meet at barriers: rounds of an all-gather, whose
 * protocol is comm/bootstrap.h's. A rank that breaks it, or leaves while
 * others wait in a round, breaks the job: every connection is closed, so
 * that the others see an error instead of waiting for ever.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bootstrap.h"
#include "ubrun.h"

struct ubrun_conn {
	int fd;
	int rank;	/* -1 until its first message */
};

struct ubrun_rdv {
	int lfd;
	int n;
	struct ubrun_conn *conns;
	int nconns;
	char *parts;		/* n slots of UBRUN_PART_MAX */
	char *reply;
	int *in_round;		/* ranks that sent their part */
	int *gone;		/* ranks that ended or closed their connection */
	int arrived, ngone;
	uint32_t len;		/* of the round's parts */
	int broken;
};

/* Close every connection. */
static void close_conns(struct ubrun_rdv *r)
{
	int i;

	for (i = 0; i < r->nconns; i++)
		close(r->conns[i].fd);
	r->nconns = 0;
}

void ubrun_rdv_close(struct ubrun_rdv *r)
{
	if (!r)
		return;
	close_conns(r);
	if (r->lfd >= 0)
		close(r->lfd);
	free(r->conns);
	free(r->parts);
	free(r->reply);
	free(r->in_round);
	free(r->gone);
	free(r);
}

struct ubrun_rdv *ubrun_rdv_open(const char *path, int n)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct ubrun_rdv *r;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(sun.sun_path, path);
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->n = n;
	r->conns = calloc(n, sizeof(*r->conns));
	r->parts = malloc((size_t)n * UBRUN_PART_MAX);
	r->reply = malloc(sizeof(struct ubrun_msg) + (size_t)n * UBRUN_PART_MAX);
	r->in_round = calloc(n, sizeof(int));
	r->gone = calloc(n, sizeof(int));
	r->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!r->conns || !r->parts || !r->reply || !r->in_round || !r->gone ||
	    r->lfd < 0 || bind(r->lfd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    listen(r->lfd, n)) {
		int err = errno;

		ubrun_rdv_close(r);
		errno = err;
		return NULL;
	}
	return r;
}

/* Break the job: the ranks' next bootstrap call fails. */
static void rdv_break(struct ubrun_rdv *r, const char *why)
{
	if (!r->broken)
		fprintf(stderr, "ubrun: bootstrap: %s: ending the rendezvous\n", why);
	r->broken = 1;
	close_conns(r);
	/* ranks yet to connect fail to */
	close(r->lfd);
	r->lfd = -1;
}

int ubrun_rdv_fds(const struct ubrun_rdv *r, int *fds, int max)
{
	int i, k = 0;

	if (k < max && !r->broken)
		fds[k++] = r->lfd;
	for (i = 0; i < r->nconns && k < max; i++)
		fds[k++] = r->conns[i].fd;
	return k;
}

/* Every rank sent its part: answer each with all of them. */
static void round_done(struct ubrun_rdv *r)
{
	struct ubrun_msg m = { UBRUN_MAGIC, r->n, r->len };
	size_t len = sizeof(m);
	int i;

	memcpy(r->reply, &m, sizeof(m));
	for (i = 0; i < r->n; i++, len += r->len)
		memcpy(r->reply + len, r->parts + (size_t)i * UBRUN_PART_MAX,
		       r->len);
	for (i = 0; i < r->nconns; i++) {
		if (ubrun_write_all(r->conns[i].fd, r->reply, len)) {
			rdv_break(r, "a rank did not take its answer");
			return;
		}
	}
	memset(r->in_round, 0, r->n * sizeof(int));
	r->arrived = 0;
}

void ubrun_rdv_gone(struct ubrun_rdv *r, int rank)
{
	if (r->gone[rank])
		return;
	r->gone[rank] = 1;
	r->ngone++;
	if (r->arrived && !r->in_round[rank])
		rdv_break(r, "a rank left while others wait for it");
}

/* Connection @c closed: the rank is gone. */
static void conn_gone(struct ubrun_rdv *r, int c)
{
	int rank = r->conns[c].rank;

	close(r->conns[c].fd);
	r->conns[c] = r->conns[--r->nconns];
	if (rank >= 0)
		ubrun_rdv_gone(r, rank);
}

/* What is wrong with message @m on connection @c, or NULL. */
static const char *conn_check(const struct ubrun_rdv *r, int c,
			      const struct ubrun_msg *m)
{
	int rank = r->conns[c].rank, i;

	if (m->magic != UBRUN_MAGIC || m->rank >= (uint32_t)r->n ||
	    m->len > UBRUN_PART_MAX)
		return "a rank broke the protocol";
	if (rank >= 0 && rank != (int)m->rank)
		return "a rank changed its number";
	for (i = 0; rank < 0 && i < r->nconns; i++)
		if (r->conns[i].rank == (int)m->rank || r->gone[m->rank])
			return "two connections for one rank";
	if (r->in_round[m->rank] || (r->arrived && m->len != r->len))
		return "a rank's part does not fit the round";
	if (r->ngone)
		return "a round started after a rank left";
	return NULL;
}

static void conn_read(struct ubrun_rdv *r, int c)
{
	struct ubrun_conn *conn = &r->conns[c];
	struct ubrun_msg m;
	ssize_t got = recv(conn->fd, &m, sizeof(m), MSG_WAITALL);
	const char *why;

	if (got == 0) {
		conn_gone(r, c);
		return;
	}
	why = got == sizeof(m) ? conn_check(r, c, &m) : "a short message";
	if (!why && m.len &&
	    recv(conn->fd, r->parts + (size_t)m.rank * UBRUN_PART_MAX, m.len,
		 MSG_WAITALL) != m.len)
		why = "a rank sent a short part";
	if (why) {
		rdv_break(r, why);
		return;
	}
	conn->rank = m.rank;
	r->len = m.len;
	r->in_round[m.rank] = 1;
	if (++r->arrived == r->n)
		round_done(r);
}

void ubrun_rdv_ready(struct ubrun_rdv *r, int fd)
{
	int i, cfd;

	for (i = 0; i < r->nconns; i++) {
		if (r->conns[i].fd == fd) {
			conn_read(r, i);
			return;
		}
	}
	if (fd != r->lfd)
		return;
	cfd = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0)
		return;
	if (r->nconns == r->n) {
		close(cfd);
		rdv_break(r, "more connections than ranks");
		return;
	}
	r->conns[r->nconns].fd = cfd;
	r->conns[r->nconns++].rank = -1;
}

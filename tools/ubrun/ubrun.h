/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ubrun, the launcher of libubshmem jobs: what its files share.
 * ubrun.c owns the command line, the ranks' processes, their output,
 * signals and exit codes; comm/place.c, shared with libubshmem, where
 * each rank runs (its entity); rendezvous.c the bootstrap server on the
 * Unix socket (the protocol is comm/bootstrap.h's).
 */
#ifndef UBRUN_H
#define UBRUN_H

#include <stddef.h>
#include <stdint.h>

#include "libubfab.h"
#include "place.h"

/* Write all @len bytes of @buf to @fd. Return: 0, or -1 (errno). */
int ubrun_write_all(int fd, const void *buf, size_t len);

/* The bootstrap server of a job of @n ranks. */
struct ubrun_rdv;

/* Listen on a new socket at @path. Return: the server, or NULL (errno). */
struct ubrun_rdv *ubrun_rdv_open(const char *path, int n);
void ubrun_rdv_close(struct ubrun_rdv *r);

/*
 * The descriptors to poll for input (up to @max of them, into @fds):
 * the listening socket and every connection. Return: how many.
 */
int ubrun_rdv_fds(const struct ubrun_rdv *r, int *fds, int max);

/* @fd, one of those, is readable: accept, or read and answer a message. */
void ubrun_rdv_ready(struct ubrun_rdv *r, int fd);

/*
 * Rank @rank has ended: a round that waits for it, or any later one,
 * breaks the job.
 */
void ubrun_rdv_gone(struct ubrun_rdv *r, int rank);

#endif /* UBRUN_H */

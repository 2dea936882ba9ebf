/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bootstrap's wire protocol between libubshmem and ubrun, over the
 * Unix stream socket whose path ubrun puts in UBRUN_SOCK: the only thing
 * the two share.
 *
 * A rank connects once and then runs rounds of an all-gather: it sends a
 * struct ubrun_msg (its rank, @len bytes) followed by @len bytes; once
 * every rank of the job has sent its part of the round, ubrun answers each
 * with a struct ubrun_msg (@rank the job's size, the same @len) followed
 * by size * @len bytes, the parts in rank order. A round with @len 0 is a
 * barrier. Parts of one round must have the same length; ubrun closes
 * every connection of a job that breaks the protocol, so that its ranks
 * see an error rather than hang.
 */
#ifndef UBRUN_BOOTSTRAP_H
#define UBRUN_BOOTSTRAP_H

#include <stdint.h>

#define UBRUN_MAGIC	0x75627275U	/* "ubru" */
/* The longest part of a round. */
#define UBRUN_PART_MAX	4096U

struct ubrun_msg {
	uint32_t magic;
	uint32_t rank;
	uint32_t len;
};

#endif /* UBRUN_BOOTSTRAP_H */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libubshmem's internals: the state of the PE, shared by the files of the
 * library, and the functions they call in each other. Each file owns one
 * concern: bootstrap.c who the PE is and its rendezvous (over ubrun's
 * socket, or mpirun's PMIx in pmix.c; place.c the placement), init.c joining
 * and leaving the job, team.c the teams, heap.c the symmetric heap,
 * queue.c the PE's queue and any other (posting, completions, quiet,
 * fence, the modeled clock), order.c the fabric model's ordered domain
 * (UBSHMEM_ORDERED), rma.c put and get, atomic.c the atomics, sync.c signal waits and
 * the barrier, coll.c the collectives, ep.c MoE dispatch and combine.
 */
#ifndef UBSHMEM_INTERNAL_H
#define UBSHMEM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "libubfab.h"
#include "ubshmem.h"

/*
 * What each PE tells every other at initialisation: the entity it acts
 * as, the node of that entity and how to import its heap.
 */
struct shm_peer {
	char entity[UBFAB_NAME_MAX];
	uint32_t eid;
	uint32_t node;
	uint32_t token_id;
	uint32_t token_value;
	uint64_t heap_len;
};

struct ubshmem_team {
	int n;
	int me;			/* this PE's index, or -1 */
	int *pes;		/* PE numbers, ascending */
	int split;		/* made by ubshmem_team_split_strided() */
};

/*
 * The first bytes of every heap are the library's: the signal words, one
 * per PE of the job (word p counts the signals PE p sent this PE: the
 * barrier's and the collectives'), rounded up to a page, then the
 * collectives' scratch (coll.c); user blocks come after them.
 */
#define SHM_SIG_AREA(n)		(((n) * 8UL + 4095) & ~4095UL)
#define SHM_COLL_SCRATCH	(2 * UBSHMEM_COLL_PIECE)
#define SHM_RESERVED(n)		(SHM_SIG_AREA(n) + SHM_COLL_SCRATCH)
/* The heap's default size, and its blocks' alignment. */
#define SHM_HEAP_DEFAULT (64UL << 20)
#define SHM_ALIGN	64UL
/* Entries the PE has in flight at most: its SQ depth; the CQ has twice. */
#define SHM_QDEPTH	256U

/*
 * A queue of the PE and what the library keeps of it: entries are
 * numbered in their user_data as posted and reaped in that order.
 */
struct shm_queue {
	struct ubfab_queue *q;
	uint32_t depth;			/* entries in flight at most */
	uint64_t posted, reaped;
	int error;			/* -EIO (or the queue's errno) once failed */
	uint64_t model_ns;		/* the latest completion's model_ns */
};

/*
 * A PE's helper queues in the ordered domain (order.c): between calls
 * each waits for the PE's queue to record the start event; a call's
 * transfers end with each recording the end event, which the PE's queue
 * waits for.
 */
struct shm_gang {
	struct shm_queue *help;
	int n;
	uint32_t ev_start, ev_end;	/* the device's event counters */
	uint64_t gen;			/* calls begun */
	uint64_t *last;			/* each helper's last entry of the call */
};

/* A get_nbi's copy from the staging buffer to the caller's buffer. */
struct shm_copyout {
	void *dest;
	const void *stage;
	size_t len;
};

/* A block of the symmetric heap, free or used; kept sorted by offset. */
struct shm_block {
	uint64_t off;
	uint64_t len;
	int used;
};

struct shm_state {
	int me, n;
	struct shm_peer *peers;
	int sock;			/* to ubrun, or -1 */
	int pmix;			/* joined through mpirun's PMIx */
	struct ubfab_dev *dev;
	struct shm_queue main;		/* the PE's queue */
	/* the heap: its offset in the entity, local mapping, export */
	uint64_t heap_off;
	char *heap;
	uint64_t heap_len;
	uint32_t token_id;
	struct ubfab_import *imps;	/* each PE's heap, imported */
	char **maps;			/* each PE's heap mapped, or NULL */
	/* the staging buffer and the part of it in use */
	uint64_t stage_off;
	char *stage;
	size_t stage_used;
	struct shm_copyout *outs;
	size_t nouts, outs_cap;
	uint8_t fence;			/* flag for the next entry */
	uint64_t *got;			/* signals awaited from each PE */
	struct shm_block *blocks;
	size_t nblocks;
	/* heap bytes from here on never handed out: still zero (fresh pages) */
	uint64_t untouched;
	struct ubshmem_team world, node;
	int gangs;			/* struct shm_gang made (order.c) */
};

/* NULL until ubshmem_init() succeeds. */
extern struct shm_state *shm;

/* bootstrap.c */
/*
 * Learn this PE's rank, the job's size and the entity it acts as (into
 * @entity, UBFAB_NAME_MAX bytes), and join the job's rendezvous.
 */
int shm_boot_start(struct shm_state *s, char *entity);
/*
 * One round: send @len bytes of @part as this PE's, receive every PE's
 * into @all (n * @len bytes, rank order); @len 0 is a barrier. Return: 0;
 * -EPROTO if the job broke (ubrun closed the socket, PMIx failed) or
 * answered something else; or a negative errno.
 */
int shm_boot_allgather(struct shm_state *s, const void *part, uint32_t len,
		       void *all);
/*
 * Leave the rendezvous. After a failed init (@failed), a PE started by
 * mpirun stays in PMIx: it did not finalize it, so whatever its exit
 * status mpirun ends the job rather than leave the others in a round.
 */
void shm_boot_end(struct shm_state *s, int failed);

/* pmix.c: the rounds of the bootstrap under mpirun */
int shm_pmix_start(int *rank, int *n);
int shm_pmix_allgather(int n, const void *part, uint32_t len, void *all);
void shm_pmix_end(void);

/* team.c */
int shm_teams_init(struct shm_state *s);
void shm_teams_free(struct shm_state *s);

/* sync.c: signals from PE to PE (one signal word per sender) */
void shm_signal_post(int pe);
void shm_wait_post(int pe);
int shm_wait_from(int pe);

/* heap.c */
int shm_heap_init(struct shm_state *s);
void shm_heap_unmap_peers(struct shm_state *s);
int shm_heap_offset(const void *addr, size_t len, uint64_t *off);

/* order.c */
/* Whether this PE's queues join the ordered domain. */
int shm_ordered_wanted(void);
int shm_is_ordered(void);
/* The flags of the PE's queue that its helper queues take too. */
uint32_t shm_queue_flags(void);
int shm_gang_init(struct shm_gang *g, struct shm_queue *help, int n);
void shm_gang_free(struct shm_gang *g);
/* Before the helpers' entries of a call are posted, and after. */
void shm_gang_start(struct shm_gang *g);
int shm_gang_end(struct shm_gang *g);

/* queue.c */
struct ubfab_sqe *shm_queue_sqe(struct shm_queue *sq);
void shm_queue_post(struct shm_queue *sq, struct ubfab_sqe *sqe);
int shm_queue_drain(struct shm_queue *sq, uint64_t want, uint64_t *result);
int shm_queue_reap(struct shm_queue *sq, uint64_t upto);
struct ubfab_sqe *shm_sqe(void);
void shm_post(struct ubfab_sqe *sqe);
int shm_drain(uint64_t seq, uint64_t *result);
void *shm_stage(size_t len, uint64_t *off);
int shm_copyout_add(void *dest, const void *stage, size_t len);
int shm_check_pe(int pe);
uint64_t shm_remote(int pe, uint64_t off);

/* bfloat16 in a uint16_t, to float and back. */
static inline float shm_bf16_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Round to nearest, ties to even; a NaN stays a (quiet) NaN. */
static inline uint16_t shm_float_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	if ((u & 0x7fffffff) > 0x7f800000)
		return (u >> 16) | 0x40;
	return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
}

#endif /* UBSHMEM_INTERNAL_H */

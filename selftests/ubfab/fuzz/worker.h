/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A worker: one process running a sequence of operations drawn from its
 * random stream, what it keeps (slots.h), and what the supervisor shares
 * with it (the module as loaded, its counters, the other workers' pids,
 * the run's directory).
 *
 * Every operation is generated from the worker's random stream alone,
 * never from the outcome of earlier operations: a worker's sequence of
 * operations is a function of (seed, worker index), so a failing worker can
 * be replayed on its own. Operations name file descriptors by slot; what a
 * slot holds is only known when the operation runs.
 */
#ifndef FUZZ_WORKER_H
#define FUZZ_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <linux/ubfab.h>

#include "libubfab.h"
#include "fuzz.h"
#include "report.h"
#include "rng.h"
#include "slots.h"

/* What the module was loaded as: read once, before the workers start. */
struct fuzz_model {
	struct ubfab_fabric_info fabric;
	uint32_t nr_entities;
	struct ubfab_entity_info *entities;	/* by EID */
	dev_t devt0;				/* device number of EID 0 */
	int family;				/* generic netlink family id */
	struct ubfab_model *params;		/* the fabric model's table */
};

#define PAGE		4096UL
/* A PROT_NONE region per process where mappings may go at fixed addresses. */
#define SCRATCH_PAGES	64
#define SCRATCH_LEN	(SCRATCH_PAGES * PAGE)

/* What a pointer argument points at (fuzz_arg_pointer()). */
enum { ARG_NULL, ARG_BUF, ARG_FAULT, ARG_KERNEL, ARG_ALL_ONES, ARG_SMALL,
	NR_ARGS };

/* Processes a worker may have spawned at once. */
#define FUZZ_CHILDREN	2

/* Room in struct op for what a family generates beyond a[] and path. */
#define FUZZ_OP_DATA	1280

/**
 * struct op - one generated operation: its kind (its index in the
 * operations of every family, family.h), its index in its sequence, the
 * slots it names, and a[], its draws, which each operation interprets in
 * its own way (documented where it runs); a path for those that name
 * one, and @data for a family's own arguments (a netlink request)
 */
struct op {
	unsigned int kind;
	uint64_t index;
	unsigned int slot;
	unsigned int slot2;
	uint64_t a[8];
	char path[320];
	uint64_t data[FUZZ_OP_DATA / 8];
};

/* Operations and families the counters have room for (family.c checks). */
#define FUZZ_OPS_MAX		40
#define FUZZ_FAMILIES_MAX	8
#define FUZZ_TALLY_MAX		16

/* Counters of one worker, in memory the supervisor shares. */
struct fuzz_stats {
	uint64_t done;			/* operations run */
	uint64_t ops[FUZZ_OPS_MAX];
	uint64_t errs[FUZZ_OPS_MAX][FUZZ_OUTCOMES]; /* [0] success, else errno */
	uint64_t skipped[FUZZ_OPS_MAX];	/* nothing to act on */
	uint64_t tally[FUZZ_FAMILIES_MAX][FUZZ_TALLY_MAX]; /* fuzz_tally() */
	uint64_t cur_index;		/* the operation running now */
	struct op cur;
	pid_t pid;
};

/**
 * struct worker - one process running a sequence of operations
 * @cfg: the run
 * @model: the module as loaded
 * @rng: this sequence's random stream
 * @label: "worker K", or "worker K child C" for a process it spawned
 * @index: the worker's index in the run (its mailbox)
 * @id: the worker's stream: cfg->first_worker + @index
 * @stats: shared counters (children add to their worker's)
 * @spawned_at: in a child, the index of the operation that spawned it
 * @op_index: index of the operation running now
 * @op: the operation running now
 * @slots: file descriptors held
 * @next_file: the number the next file opened gets
 * @allocs, @exports, @imports, @maps: what this process made
 * @next_rec: where the next allocation or import is recorded
 * @queues: NPU queues made
 * @next_queue: where the next queue goes
 * @eventfd: an eventfd queues signal, made with the first that asks
 * @children: processes spawned and not reaped yet (0: none)
 * @scratch: SCRATCH_LEN bytes of PROT_NONE
 * @failed: an invariant was violated (already reported)
 */
struct worker {
	const struct fuzz_config *cfg;
	const struct fuzz_model *model;
	struct rng rng;
	char label[64];
	unsigned int index;
	unsigned int id;
	struct fuzz_stats *stats;
	uint64_t spawned_at;
	uint64_t op_index;
	struct op op;
	struct slot slots[FUZZ_SLOTS];
	uint32_t next_file;
	struct mem_rec allocs[FUZZ_RECS];
	struct mem_rec exports[FUZZ_RECS];
	struct mem_rec imports[FUZZ_RECS];
	struct map_rec maps[FUZZ_RECS];
	unsigned int next_rec;
	struct queue_rec queues[FUZZ_QUEUES];
	unsigned int next_queue;
	int eventfd;
	pid_t children[FUZZ_CHILDREN];
	void *scratch;
	bool failed;
};

/* The pointer an ARG_* value stands for; small: the ARG_SMALL value. */
void *fuzz_arg_pointer(const struct worker *w, uint64_t kind, uint64_t small);
/* A buffer for arguments and reads. */
extern uint8_t fuzz_iobuf[65536];

/*
 * A worker process: runs its share of the budget (no limit when budget is
 * 0) until the deadline (NULL: none) or its first violation, then waits
 * for what it spawned, closes everything and exits (1 on a violation).
 */
void __attribute__((noreturn))
worker_main(const struct fuzz_config *cfg, const struct fuzz_model *m,
	    struct fuzz_stats *stats, unsigned int index, uint64_t budget,
	    const struct timespec *deadline);
/* Whether w is a process a worker spawned, not a worker. */
bool worker_is_child(const struct worker *w);
/*
 * Forks a process that inherits every descriptor and mapping and runs ops
 * operations of the stream (seed, stream), then exits with them all open:
 * its pid, recorded in w->children, or -errno. The caller checks there is
 * room.
 */
pid_t worker_spawn(struct worker *w, uint64_t seed, uint64_t stream,
		   uint64_t ops);
/* Waits for child i, SIGKILLed first if killed; false if it failed. */
bool worker_reap(struct worker *w, unsigned int i, bool killed);

/* The pid of worker draw % workers (supervisor.c), as it is now. */
pid_t fuzz_peer_pid(uint64_t draw);
/* The run's own temporary directory, for files a family makes. */
const char *fuzz_run_dir(void);

#endif

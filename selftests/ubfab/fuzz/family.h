/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How op families register with the fuzzer's engine.
 *
 * The engine: random streams (rng.c), reporting (report.c), the objects a
 * worker keeps (slots.c), the worker loop and its processes (worker.c),
 * the supervisor (supervisor.c), the typed ioctls families share
 * (ioctl.c) and this registry (family.c). An op family is one file that
 * defines a struct fuzz_family: its operations (each with a weight, a
 * generator and a runner), the typed ioctls it adds, a tally it counts
 * and hooks the supervisor and workers call. Families never call one
 * another: what two of them use lives in the engine's slots, and the
 * engine calls a family only through its struct fuzz_family.
 */
#ifndef FUZZ_FAMILY_H
#define FUZZ_FAMILY_H

#include "worker.h"

struct fuzz_ioctl;

/**
 * struct fuzz_op_type - one operation
 * @name: as the trace and the summary name it
 * @weight: how often it is drawn, out of the sum of every family's weights
 * @gen: generates its arguments from the stream alone; NULL: a[] are raw
 *	draws
 * @run: runs it and checks its outcome against what the kernel and the
 *	module document for that call
 * @describe: appends its arguments to a description; NULL: slot2 and a[]
 */
struct fuzz_op_type {
	const char *name;
	unsigned int weight;
	void (*gen)(struct rng *r, const struct fuzz_model *m, struct op *op);
	void (*run)(struct worker *w, const struct op *op);
	void (*describe)(const struct op *op, char *buf, size_t len);
};

/* An operation described as the default does. */
#define FUZZ_OP(n, wt, g, r)	{ .name = n, .weight = wt, .gen = g, .run = r }

/**
 * struct fuzz_family - an op family, as it registers with the engine
 * @name: what it covers, as a failed set-up names it
 * @ops: its operations, drawn in this order after those of the families
 *	before it in fuzz_families[]
 * @nr_ops: how many
 * @sockets: its operations name mostly slots 4-7, where netlink sockets
 *	are kept (others mostly 0-3, for devices)
 * @ioctls: typed ioctls of the entity device it adds (ioctl.h)
 * @nr_ioctls: how many
 * @tally: the title of a line of the summary that counts what its
 *	operations saw (fuzz_tally()); NULL: none
 * @tally_names: the names of the tally's entries
 * @nr_tally: how many, at most FUZZ_TALLY_MAX
 * @run_start: in the supervisor, before the workers fork: 0, or -errno
 *	with whatever it set up undone
 * @run_end: in the supervisor, once every worker is gone, before the
 *	module is unloaded; or when a later family's @run_start failed
 * @worker_init: in each worker, before its first operation
 */
struct fuzz_family {
	const char *name;
	const struct fuzz_op_type *ops;
	unsigned int nr_ops;
	bool sockets;
	const struct fuzz_ioctl *ioctls;
	unsigned int nr_ioctls;
	const char *tally;
	const char *const *tally_names;
	unsigned int nr_tally;
	int (*run_start)(const struct fuzz_config *cfg,
			 const struct fuzz_model *m);
	void (*run_end)(void);
	void (*worker_init)(struct worker *w);
};

/* Every family, in the order their operations are drawn (family.c). */
extern const struct fuzz_family *const fuzz_families[];
extern const unsigned int fuzz_nr_families;

/* The families (fd.c, mem.c, io.c, sysfs.c, nl.c, proc.c, queue.c). */
extern const struct fuzz_family fuzz_fd_family;
extern const struct fuzz_family fuzz_mem_family;
extern const struct fuzz_family fuzz_io_family;
extern const struct fuzz_family fuzz_sysfs_family;
extern const struct fuzz_family fuzz_nl_family;
extern const struct fuzz_family fuzz_proc_family;
extern const struct fuzz_family fuzz_queue_family;

/* Indexes every family's operations: 0, or -E2BIG if they do not fit. */
int fuzz_families_init(void);
/* Operations in all, and the one of a kind, and the index of its family. */
unsigned int fuzz_nr_ops(void);
const struct fuzz_op_type *fuzz_op_type(unsigned int kind);
unsigned int fuzz_op_family(unsigned int kind);

/*
 * Generates operation number index of a sequence from the stream alone:
 * what the descriptors hold is not looked at here.
 */
void fuzz_gen_op(struct rng *r, const struct fuzz_model *m, uint64_t index,
		 struct op *op);

#endif

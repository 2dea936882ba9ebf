/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entity device's ioctls, as op families share them: each family adds
 * its typed commands (struct fuzz_ioctl, in its struct fuzz_family), and
 * any operation may draw one of them or run an ioctl on a slot, raw or
 * typed, with what it must give checked.
 */
#ifndef FUZZ_IOCTL_H
#define FUZZ_IOCTL_H

#include <stddef.h>

#include "worker.h"

/**
 * struct fuzz_ioctl - one typed command
 * @name: as reports name it
 * @cmd: the command
 * @size: its structure's size, written in its size prefix
 * @min_size: the size of its first version
 * @weight: how often it is drawn among the typed commands
 *	(fuzz_ioctl_pick())
 * @recs: offsetof the struct worker records it works on; 0: none
 * @build: fills the argument from op (its draws) and the records, and the
 *	set of outcomes it may have
 * @done: checks and records what a successful one returned
 */
struct fuzz_ioctl {
	const char *name;
	unsigned int cmd;
	unsigned int size;
	unsigned int min_size;
	unsigned int weight;
	size_t recs;
	void (*build)(struct worker *w, const struct slot *s,
		      const struct op *op, void *arg, int *set);
	void (*done)(struct worker *w, const struct slot *s, const void *arg);
};

/* A typed command whose structure is type, last its first version's end. */
#define FUZZ_IOCTL(n, c, type, last, wt, r, b, d) {			\
	.name = n, .cmd = c, .size = sizeof(struct type),		\
	.min_size = offsetof(struct type, last) +			\
		    sizeof(((struct type *)0)->last),			\
	.weight = wt, .recs = r, .build = b, .done = d }

/* A typed command of any family, by the weights, in the families' order. */
unsigned int fuzz_ioctl_pick(struct rng *r);
/* The typed command cmd is, or NULL. */
const struct fuzz_ioctl *fuzz_ioctl_find(unsigned int cmd);
/* ioctl commands the VFS handles itself, before the driver sees them. */
bool vfs_ioctl_cmd(unsigned int cmd);
/*
 * ioctl op->a[0] on slot s and its outcome checked: typed commands built
 * by their family (a[1] below 32: a size-prefix defect, a[2] its value;
 * a[3]-a[5] the family's draws), others with an argument of kind a[1] %
 * NR_ARGS (a[2]: ARG_SMALL's value). A netlink slot is skipped.
 */
void fuzz_ioctl_run(struct worker *w, const struct slot *s,
		    const struct op *op);

#endif

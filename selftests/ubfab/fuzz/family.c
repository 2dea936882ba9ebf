// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's registry of op families: the list of them, the index of
 * every operation by kind, and the draw of the next operation.
 */
#include <errno.h>
#include <string.h>

#include "family.h"

/*
 * The order matters: operations are drawn by their weights in this order
 * (each family's in its own), so reordering changes every seed's run.
 */
const struct fuzz_family *const fuzz_families[] = {
	&fuzz_fd_family, &fuzz_mem_family, &fuzz_io_family,
	&fuzz_sysfs_family, &fuzz_nl_family, &fuzz_proc_family,
	&fuzz_queue_family,
};
const unsigned int fuzz_nr_families = ARRAY_SIZE(fuzz_families);

/* Every operation by kind, and its family's index. */
static struct {
	const struct fuzz_op_type *type;
	unsigned int family;
} ops[FUZZ_OPS_MAX];
static unsigned int nr_ops, total_weight;

int fuzz_families_init(void)
{
	const struct fuzz_family *f;
	unsigned int i, j;

	if (fuzz_nr_families > FUZZ_FAMILIES_MAX)
		return -E2BIG;
	nr_ops = total_weight = 0;
	for (i = 0; i < fuzz_nr_families; i++) {
		f = fuzz_families[i];
		if (f->nr_tally > FUZZ_TALLY_MAX)
			return -E2BIG;
		for (j = 0; j < f->nr_ops; j++) {
			if (nr_ops == FUZZ_OPS_MAX)
				return -E2BIG;
			ops[nr_ops].type = &f->ops[j];
			ops[nr_ops++].family = i;
			total_weight += f->ops[j].weight;
		}
	}
	return 0;
}

unsigned int fuzz_nr_ops(void)
{
	return nr_ops;
}

const struct fuzz_op_type *fuzz_op_type(unsigned int kind)
{
	return ops[kind].type;
}

unsigned int fuzz_op_family(unsigned int kind)
{
	return ops[kind].family;
}

/*
 * Mostly slots 0-3 for devices and 4-7 for netlink sockets, so that
 * operations find what they work on; any slot now and then.
 */
static unsigned int gen_slot(struct rng *r, unsigned int kind)
{
	bool sockets = fuzz_families[ops[kind].family]->sockets;

	if (rng_chance(r, 20))
		return rng_below(r, FUZZ_SLOTS);
	return (sockets ? FUZZ_SLOTS / 2 : 0) + rng_below(r, FUZZ_SLOTS / 2);
}

void fuzz_gen_op(struct rng *r, const struct fuzz_model *m, uint64_t index,
		 struct op *op)
{
	unsigned int i, pick = rng_below(r, total_weight);

	for (i = 0; pick >= ops[i].type->weight; i++)
		pick -= ops[i].type->weight;

	memset(op->a, 0, sizeof(op->a));
	op->path[0] = '\0';
	op->kind = i;
	op->index = index;
	op->slot = gen_slot(r, op->kind);
	op->slot2 = gen_slot(r, op->kind);
	if (ops[i].type->gen) {
		ops[i].type->gen(r, m, op);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(op->a); i++)
		op->a[i] = rng_next(r);
}

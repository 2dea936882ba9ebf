// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fabric model parameters: the values of profile cm384 with their
 * sources, the table netlink names, reads and sets them by, and the
 * parameters in force.
 *
 * The parameters in force are one struct ubfab_model_params published
 * with RCU: profile cm384's own table until a parameter is set, then a
 * copy. An update (netlink's model-set, serialized by
 * ubfab_model_lock) publishes a new copy, then bumps ubfab_model_gen,
 * and frees the old copy after a grace period; the engine reads the
 * table under rcu_read_lock() when it prices an entry, and compares the
 * generation before it reuses a price it remembers (model.h), so an entry
 * that runs after model-set returned is priced with the new values. The
 * ports' fault knobs (struct ubfab_port) bump the generation too, and
 * ubfab_model_faulty counts the ports that have any set.
 */
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "model.h"

#define UBFAB_MODEL_NS(ns)	((ns) * (u64)UBFAB_MODEL_PS_PER_NS)

/*
 * Sources: [P] published (../shared/reference/cloudmatrix384.md: the
 * CloudMatrix384 paper, arXiv 2506.12708 v2); [D] derived from published
 * figures; [E] an estimate, nothing published. Documentation/model.rst
 * has the derivations and the calibration they give.
 */
const struct ubfab_model_params ubfab_model_cm384 = {
	/* [E] a stream task's turn: issue + dma fit the latencies below */
	.issue_ps = UBFAB_MODEL_NS(200),
	/* [E] a descriptor through the die's DMA engine */
	.dma_ps = UBFAB_MODEL_NS(300),
	/* [E] a vector core's remote load or store starts at once */
	.memsem_ps = UBFAB_MODEL_NS(50),
	/* [E] the die's own port and back, no switch */
	.loopback_ps = UBFAB_MODEL_NS(100),
	/* [E] below a switch hop: the link is on the package */
	.die_ps = UBFAB_MODEL_NS(100),
	/*
	 * [D] other node less same node is 2 hops each way: 0.8 us (write)
	 * and 0.7 us (read) over 4 hops
	 */
	.hop_ps = 187500,
	/* [D] die -> L1 -> die */
	.node_hops = 1,
	/* [D] die -> L1 -> L2 -> L1 -> die */
	.remote_hops = 3,
	/* [P] 28 GB/s one way (224 Gbit/s) */
	.link_mbps = 28000,
	/* [P] 270 GB/s one way */
	.die_mbps = 270000,
	/* [P] 1.6 TB/s per die */
	.hbm_mbps = 1600000,
	/* [E] 8 DDR4-3200 channels, 25.6 GB/s each, per CPU */
	.dram_mbps = 204800,
	/*
	 * [D] fitted to the 8 published 512-byte latencies (same and other
	 * node), given issue + dma and the hops: each within 2 %
	 */
	.target_ps = {
		/* write: NPU, CPU */
		{ UBFAB_MODEL_NS(418), UBFAB_MODEL_NS(211) },
		/* read: NPU, CPU */
		{ UBFAB_MODEL_NS(284), UBFAB_MODEL_NS(83) },
	},
	/* [D] per-die bandwidth, same node, / 7 x 28 GB/s = 196 GB/s */
	.efficiency = {
		/* write: NPU 137 GB/s, CPU 110 GB/s */
		{ 699, 561 },
		/* read: NPU 167 GB/s, CPU 151 GB/s */
		{ 852, 770 },
	},
	/* [E] a link-level retransmission: detect, ask again, a few trips */
	.retry_ps = UBFAB_MODEL_NS(2000),
	/*
	 * [E] DMA engines per die, and vector-core paths: one queue uses one
	 * of each (its number modulo their count), so 4 queues of DMA
	 * together can fill the 7 links, one cannot
	 */
	.engines = { 4, 2 },
	/*
	 * [E] one engine moves 2 links' worth (56 GB/s: a third to a half
	 * of the per-die figures); one vector-core path 1 link's worth,
	 * never below one plane's rate, so one queue's small messages are
	 * not slowed
	 */
	.engine_mbps = { 56000, 28000 },
	/*
	 * [E] a descriptor's issue cost on its engine, a store's on its
	 * vector cores: within the start-ups dma-ps and memsem-ps, so a
	 * transfer alone is not slowed; they cap each one's message rate
	 */
	.gap_ps = { UBFAB_MODEL_NS(100), UBFAB_MODEL_NS(20) },
};

#define UBFAB_MODEL_MAX_PS	UBFAB_MODEL_NS(NSEC_PER_SEC)
#define UBFAB_MODEL_MAX_MBPS	1000000000ULL

#define UBFAB_PARAM(n, u, field, lo, hi) {				\
	.name = (n), .unit = (u),					\
	.offset = offsetof(struct ubfab_model_params, field),		\
	.min = (lo), .max = (hi),					\
}

#define UBFAB_PARAM_PS(n, field)	\
	UBFAB_PARAM(n, "ps", field, 0, UBFAB_MODEL_MAX_PS)
#define UBFAB_PARAM_MBPS(n, field)	\
	UBFAB_PARAM(n, "MB/s", field, 1, UBFAB_MODEL_MAX_MBPS)
#define UBFAB_PARAM_HOPS(n, field)	UBFAB_PARAM(n, "hops", field, 0, 15)
#define UBFAB_PARAM_PERMILLE(n, field)	\
	UBFAB_PARAM(n, "permille", field, 1, 1000)
#define UBFAB_PARAM_ENGINES(n, u, field)	\
	UBFAB_PARAM(n, u, field, 1, UBFAB_MODEL_MAX_ENGINES)

/*
 * Every parameter, in the order netlink reports them. The ranges keep
 * the cost arithmetic (model.c) within 64 bits: a transfer of at most
 * UBFAB_SQE_MAX_LENGTH bytes at 1 MB/s and 1 per mille is 2^30 x 10^9 ps.
 */
const struct ubfab_model_param ubfab_model_param_table[] = {
	UBFAB_PARAM_PS("issue-ps", issue_ps),
	UBFAB_PARAM_PS("dma-ps", dma_ps),
	UBFAB_PARAM_PS("memsem-ps", memsem_ps),
	UBFAB_PARAM_PS("loopback-ps", loopback_ps),
	UBFAB_PARAM_PS("die-ps", die_ps),
	UBFAB_PARAM_PS("hop-ps", hop_ps),
	UBFAB_PARAM_HOPS("node-hops", node_hops),
	UBFAB_PARAM_HOPS("remote-hops", remote_hops),
	UBFAB_PARAM_MBPS("link-mbps", link_mbps),
	UBFAB_PARAM_MBPS("die-mbps", die_mbps),
	UBFAB_PARAM_MBPS("hbm-mbps", hbm_mbps),
	UBFAB_PARAM_MBPS("dram-mbps", dram_mbps),
	UBFAB_PARAM_PS("target-write-npu-ps", target_ps[0][0]),
	UBFAB_PARAM_PS("target-write-cpu-ps", target_ps[0][1]),
	UBFAB_PARAM_PS("target-read-npu-ps", target_ps[1][0]),
	UBFAB_PARAM_PS("target-read-cpu-ps", target_ps[1][1]),
	UBFAB_PARAM_PERMILLE("eff-write-npu-permille", efficiency[0][0]),
	UBFAB_PARAM_PERMILLE("eff-write-cpu-permille", efficiency[0][1]),
	UBFAB_PARAM_PERMILLE("eff-read-npu-permille", efficiency[1][0]),
	UBFAB_PARAM_PERMILLE("eff-read-cpu-permille", efficiency[1][1]),
	UBFAB_PARAM_PS("retry-ps", retry_ps),
	UBFAB_PARAM_ENGINES("dma-engines", "engines", engines[UBFAB_MODEL_DMA]),
	UBFAB_PARAM_ENGINES("memsem-paths", "paths",
			    engines[UBFAB_MODEL_MEMSEM]),
	UBFAB_PARAM_MBPS("dma-engine-mbps", engine_mbps[UBFAB_MODEL_DMA]),
	UBFAB_PARAM_MBPS("memsem-path-mbps", engine_mbps[UBFAB_MODEL_MEMSEM]),
	UBFAB_PARAM_PS("dma-gap-ps", gap_ps[UBFAB_MODEL_DMA]),
	UBFAB_PARAM_PS("memsem-gap-ps", gap_ps[UBFAB_MODEL_MEMSEM]),
};

const unsigned int ubfab_model_nr_params = ARRAY_SIZE(ubfab_model_param_table);
static_assert(ARRAY_SIZE(ubfab_model_param_table) * sizeof(u64) ==
	      sizeof(struct ubfab_model_params));

/*
 * Module parameter "model", writable at run time: on (the default), every
 * entry is charged to its queue's clock; off, none is (completions carry
 * model_ns 0 and clocks stand still), which is what the benchmarks
 * compare the model's cost against.
 */
DEFINE_STATIC_KEY_TRUE(ubfab_model_on);

static int ubfab_model_on_set(const char *val, const struct kernel_param *kp)
{
	bool on;

	if (kstrtobool(val, &on))
		return -EINVAL;
	if (on)
		static_branch_enable(&ubfab_model_on);
	else
		static_branch_disable(&ubfab_model_on);
	return 0;
}

static int ubfab_model_on_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n",
			  static_key_enabled(&ubfab_model_on) ? 'Y' : 'N');
}

static const struct kernel_param_ops ubfab_model_on_ops = {
	.set = ubfab_model_on_set,
	.get = ubfab_model_on_get,
};

module_param_cb(model, &ubfab_model_on_ops, NULL, 0644);
MODULE_PARM_DESC(model, "charge modeled time to queues (default Y); writable at run time");

/* A copy of the parameters, once any was set. */
struct ubfab_model_copy {
	struct ubfab_model_params p;
	struct rcu_head rcu;
};

/* The parameters in force: ubfab_model_cm384 or a struct ubfab_model_copy. */
static const struct ubfab_model_params __rcu *ubfab_model_cur =
	RCU_INITIALIZER(&ubfab_model_cm384);
static DEFINE_MUTEX(ubfab_model_lock);
u64 ubfab_model_gen;
atomic_t ubfab_model_faulty = ATOMIC_INIT(0);

/**
 * ubfab_model_touch() - prices remembered are stale: a port's fault knobs
 *	changed, or a queue came or went (what another holds may change)
 *
 * Context: process, after the knobs were written (netlink.c, under its
 * state lock) or the queue counted (ubfab_model_queue_users()).
 */
void ubfab_model_touch(void)
{
	mutex_lock(&ubfab_model_lock);
	/* after the knobs: a price remembered under the new gen is new */
	smp_wmb();
	WRITE_ONCE(ubfab_model_gen, ubfab_model_gen + 1);
	mutex_unlock(&ubfab_model_lock);
}

/**
 * ubfab_model_param_find() - a parameter by name
 * @name: its name
 *
 * Return: its row, or NULL.
 */
const struct ubfab_model_param *ubfab_model_param_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ubfab_model_param_table); i++)
		if (!strcmp(name, ubfab_model_param_table[i].name))
			return &ubfab_model_param_table[i];
	return NULL;
}

/* Where the parameter @d is in @p. */
u64 *ubfab_model_param_ptr(struct ubfab_model_params *p,
			   const struct ubfab_model_param *d)
{
	return (u64 *)((char *)p + d->offset);
}

/* The name of the profile whose values @p holds, or "custom". */
const char *ubfab_model_profile(const struct ubfab_model_params *p)
{
	return memcmp(p, &ubfab_model_cm384, sizeof(*p)) ? "custom" : "cm384";
}

/* The values of the profile named @name, or NULL when there is none. */
const struct ubfab_model_params *ubfab_model_profile_find(const char *name)
{
	return strcmp(name, "cm384") ? NULL : &ubfab_model_cm384;
}

/* Copy the parameters in force into @p. */
void ubfab_model_read(struct ubfab_model_params *p)
{
	rcu_read_lock();
	*p = *rcu_dereference(ubfab_model_cur);
	rcu_read_unlock();
}

static void ubfab_model_put(const struct ubfab_model_params *p)
{
	if (p != &ubfab_model_cm384)
		kfree_rcu(container_of(p, struct ubfab_model_copy, p), rcu);
}

/**
 * ubfab_model_update() - put parameters in force
 * @p: all of them, each within its range (the caller checked)
 *
 * Return: 1 when they differ from those in force, 0 when they do not
 * (nothing changes), or -ENOMEM.
 */
int ubfab_model_update(const struct ubfab_model_params *p)
{
	const struct ubfab_model_params *old, *new = &ubfab_model_cm384;
	struct ubfab_model_copy *copy;

	mutex_lock(&ubfab_model_lock);
	old = rcu_dereference_protected(ubfab_model_cur,
					lockdep_is_held(&ubfab_model_lock));
	if (!memcmp(old, p, sizeof(*p))) {
		mutex_unlock(&ubfab_model_lock);
		return 0;
	}
	if (memcmp(p, &ubfab_model_cm384, sizeof(*p))) {
		copy = kmalloc(sizeof(*copy), GFP_KERNEL);
		if (!copy) {
			mutex_unlock(&ubfab_model_lock);
			return -ENOMEM;
		}
		copy->p = *p;
		new = &copy->p;
	}
	rcu_assign_pointer(ubfab_model_cur, new);
	/* after the new table: a price remembered under the new gen is new */
	smp_wmb();
	WRITE_ONCE(ubfab_model_gen, ubfab_model_gen + 1);
	mutex_unlock(&ubfab_model_lock);
	ubfab_model_put(old);
	return 1;
}

/*
 * Bytes the parameters in force take besides the module image: a copy's,
 * or 0 while profile cm384's own table is in force.
 */
size_t ubfab_model_params_bytes(void)
{
	return rcu_access_pointer(ubfab_model_cur) == &ubfab_model_cm384 ?
	       0 : sizeof(struct ubfab_model_copy);
}

/* At module exit, with no queue left: free a copy in force. */
void ubfab_model_fini(void)
{
	ubfab_model_put(rcu_dereference_protected(ubfab_model_cur, true));
}

/**
 * ubfab_model_params() - the parameters in force
 *
 * Context: rcu_read_lock() held for as long as the table is used.
 * Return: the table.
 */
const struct ubfab_model_params *ubfab_model_params(void)
{
	return rcu_dereference(ubfab_model_cur);
}

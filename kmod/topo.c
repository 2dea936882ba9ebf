// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab topology: the module parameters that describe the supernode, the
 * built-in profiles, their validation, and the arithmetic that maps an EID
 * to a place in the supernode.
 *
 * A profile gives the base shape; any parameter given explicitly overrides
 * it. Each parameter is range-checked as it is parsed, and the whole shape
 * once more in ubfab_topo_resolve(). After a successful load every
 * parameter in /sys/module/ubfab/parameters shows the value in force.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "ubfab.h"

#define UBFAB_GIB	BIT_ULL(30)

static const struct ubfab_topo ubfab_profiles[] = {
	{
		.profile = "small",
		.nodes = 2,
		.chips_per_node = 8,
		.dies_per_chip = 2,
		.cpus_per_node = 4,
		.planes = 7,
		.l2_per_plane = 16,
		.npu_mem = 64 * UBFAB_GIB,
		.cpu_mem = 256 * UBFAB_GIB,
	},
	{
		/* CloudMatrix384: 384 NPU chips (768 dies), 192 CPUs */
		.profile = "cm384",
		.nodes = 48,
		.chips_per_node = 8,
		.dies_per_chip = 2,
		.cpus_per_node = 4,
		.planes = 7,
		.l2_per_plane = 16,
		.npu_mem = 64 * UBFAB_GIB,
		.cpu_mem = 256 * UBFAB_GIB,
	},
};

static const struct ubfab_topo *profile = &ubfab_profiles[0];

static int ubfab_param_profile_set(const char *val,
				   const struct kernel_param *kp)
{
	const struct ubfab_topo **p = kp->arg;
	int i;

	for (i = 0; i < ARRAY_SIZE(ubfab_profiles); i++) {
		if (sysfs_streq(val, ubfab_profiles[i].profile)) {
			*p = &ubfab_profiles[i];
			return 0;
		}
	}
	pr_err("profile=%s: unknown profile (known: small, cm384)\n", val);
	return -EINVAL;
}

static int ubfab_param_profile_get(char *buf, const struct kernel_param *kp)
{
	const struct ubfab_topo *const *p = kp->arg;

	return sysfs_emit(buf, "%s\n", (*p)->profile);
}

static const struct kernel_param_ops ubfab_param_profile_ops = {
	.set = ubfab_param_profile_set,
	.get = ubfab_param_profile_get,
};

module_param_cb(profile, &ubfab_param_profile_ops, &profile, 0444);
MODULE_PARM_DESC(profile, "base shape: small (2 nodes, default) or cm384 (48 nodes)");

/**
 * struct ubfab_param - a numeric module parameter with its range
 * @val: the value given, or after load the value in force
 * @min: smallest value accepted
 * @max: largest value accepted
 * @set: given explicitly; overrides the profile
 */
struct ubfab_param {
	u64 val;
	u64 min;
	u64 max;
	bool set;
};

static int ubfab_param_check(const struct kernel_param *kp, const char *val,
			     u64 v)
{
	struct ubfab_param *p = kp->arg;

	if (v < p->min || v > p->max) {
		pr_err("%s=%s: out of range %llu..%llu\n",
		       kp->name, val, p->min, p->max);
		return -EINVAL;
	}
	p->val = v;
	p->set = true;
	return 0;
}

static int ubfab_param_count_set(const char *val,
				 const struct kernel_param *kp)
{
	u64 v;

	if (kstrtou64(val, 0, &v)) {
		pr_err("%s=%s: not a number\n", kp->name, val);
		return -EINVAL;
	}
	return ubfab_param_check(kp, val, v);
}

static int ubfab_param_mem_set(const char *val, const struct kernel_param *kp)
{
	char *end;
	u64 v;

	v = memparse(val, &end);
	if (end == val || (*end && *end != '\n')) {
		pr_err("%s=%s: not a size (examples: 4096, 512M, 64G)\n",
		       kp->name, val);
		return -EINVAL;
	}
	if (!PAGE_ALIGNED(v)) {
		pr_err("%s=%s: not a multiple of the page size\n",
		       kp->name, val);
		return -EINVAL;
	}
	return ubfab_param_check(kp, val, v);
}

static int ubfab_param_get(char *buf, const struct kernel_param *kp)
{
	const struct ubfab_param *p = kp->arg;

	return sysfs_emit(buf, "%llu\n", p->val);
}

static const struct kernel_param_ops ubfab_param_count_ops = {
	.set = ubfab_param_count_set,
	.get = ubfab_param_get,
};

static const struct kernel_param_ops ubfab_param_mem_ops = {
	.set = ubfab_param_mem_set,
	.get = ubfab_param_get,
};

static struct ubfab_param nodes = { .min = 1, .max = UBFAB_MAX_NODES };
module_param_cb(nodes, &ubfab_param_count_ops, &nodes, 0444);
MODULE_PARM_DESC(nodes, "nodes (servers) in the supernode");

static struct ubfab_param chips_per_node = { .max = UBFAB_MAX_CHIPS };
module_param_cb(chips_per_node, &ubfab_param_count_ops, &chips_per_node, 0444);
MODULE_PARM_DESC(chips_per_node, "NPU chips per node");

static struct ubfab_param dies_per_chip = { .min = 1, .max = UBFAB_MAX_DIES };
module_param_cb(dies_per_chip, &ubfab_param_count_ops, &dies_per_chip, 0444);
MODULE_PARM_DESC(dies_per_chip, "dies per NPU chip; each die is an entity");

static struct ubfab_param cpus_per_node = { .max = UBFAB_MAX_CPUS };
module_param_cb(cpus_per_node, &ubfab_param_count_ops, &cpus_per_node, 0444);
MODULE_PARM_DESC(cpus_per_node, "CPUs per node");

static struct ubfab_param planes = { .min = 1, .max = UBFAB_MAX_PLANES };
module_param_cb(planes, &ubfab_param_count_ops, &planes, 0444);
MODULE_PARM_DESC(planes, "independent switching planes (default 7)");

static struct ubfab_param l2_per_plane = { .min = 1, .max = UBFAB_MAX_L2 };
module_param_cb(l2_per_plane, &ubfab_param_count_ops, &l2_per_plane, 0444);
MODULE_PARM_DESC(l2_per_plane, "L2 switch chips per plane");

static struct ubfab_param npu_mem = { .min = PAGE_SIZE, .max = UBFAB_MAX_MEM };
module_param_cb(npu_mem, &ubfab_param_mem_ops, &npu_mem, 0444);
MODULE_PARM_DESC(npu_mem, "HBM per NPU die, e.g. 64G (address space, backed lazily)");

static struct ubfab_param cpu_mem = { .min = PAGE_SIZE, .max = UBFAB_MAX_MEM };
module_param_cb(cpu_mem, &ubfab_param_mem_ops, &cpu_mem, 0444);
MODULE_PARM_DESC(cpu_mem, "DRAM per CPU, e.g. 256G (address space, backed lazily)");

/* Take the parameter's value if given, else the profile's; show it. */
static u64 ubfab_param_resolve(struct ubfab_param *p, u64 base, bool *custom)
{
	if (p->set)
		*custom = true;
	else
		p->val = base;
	return p->val;
}

/**
 * ubfab_topo_resolve() - the supernode shape from profile and parameters
 * @topo: filled with the shape
 *
 * Context: module init, before anything reads the parameters.
 * Return: 0, or -EINVAL with the reason in the kernel log.
 */
int ubfab_topo_resolve(struct ubfab_topo *topo)
{
	bool custom = false;
	u32 n;

	topo->nodes = ubfab_param_resolve(&nodes, profile->nodes, &custom);
	topo->chips_per_node = ubfab_param_resolve(&chips_per_node,
						   profile->chips_per_node,
						   &custom);
	topo->dies_per_chip = ubfab_param_resolve(&dies_per_chip,
						  profile->dies_per_chip,
						  &custom);
	topo->cpus_per_node = ubfab_param_resolve(&cpus_per_node,
						  profile->cpus_per_node,
						  &custom);
	topo->planes = ubfab_param_resolve(&planes, profile->planes, &custom);
	topo->l2_per_plane = ubfab_param_resolve(&l2_per_plane,
						 profile->l2_per_plane,
						 &custom);
	topo->npu_mem = ubfab_param_resolve(&npu_mem, profile->npu_mem,
					    &custom);
	topo->cpu_mem = ubfab_param_resolve(&cpu_mem, profile->cpu_mem,
					    &custom);
	topo->profile = custom ? "custom" : profile->profile;

	/* Each factor is bounded, so the products cannot overflow a u32. */
	n = ubfab_topo_entities(topo);
	if (n < 1 || n > UBFAB_MAX_ENTITIES) {
		pr_err("%u nodes x (%u chips x %u dies + %u CPUs) = %u entities: must be 1..%u\n",
		       topo->nodes, topo->chips_per_node, topo->dies_per_chip,
		       topo->cpus_per_node, n, UBFAB_MAX_ENTITIES);
		return -EINVAL;
	}
	return 0;
}

u32 ubfab_topo_npus(const struct ubfab_topo *topo)
{
	return topo->nodes * topo->chips_per_node * topo->dies_per_chip;
}

u32 ubfab_topo_cpus(const struct ubfab_topo *topo)
{
	return topo->nodes * topo->cpus_per_node;
}

u32 ubfab_topo_entities(const struct ubfab_topo *topo)
{
	return ubfab_topo_npus(topo) + ubfab_topo_cpus(topo);
}

/**
 * ubfab_topo_locate() - where the entity with a given EID sits
 * @topo: the supernode shape
 * @eid: an EID below ubfab_topo_entities()
 * @loc: filled with kind and position; fields that do not apply are 0
 *
 * NPU dies come first, ordered by node, chip, die; CPUs follow, ordered by
 * node, socket.
 */
void ubfab_topo_locate(const struct ubfab_topo *topo, u32 eid,
		       struct ubfab_loc *loc)
{
	u32 npus = ubfab_topo_npus(topo);
	u32 per_node;

	memset(loc, 0, sizeof(*loc));
	if (eid < npus) {
		per_node = topo->chips_per_node * topo->dies_per_chip;
		loc->kind = UBFAB_ENTITY_NPU;
		loc->node = eid / per_node;
		loc->chip = eid % per_node / topo->dies_per_chip;
		loc->die = eid % topo->dies_per_chip;
	} else {
		eid -= npus;
		loc->kind = UBFAB_ENTITY_CPU;
		loc->node = eid / topo->cpus_per_node;
		loc->socket = eid % topo->cpus_per_node;
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the topology arithmetic in topo.c: entity counts and the
 * EID-to-place mapping, checked against an independent walk of the
 * supernode in the documented order (NPU dies by node, chip, die; then
 * CPUs by node, socket). Built into ubfab.ko when the kernel has KUnit;
 * the suite runs when the module loads.
 */
#include <kunit/test.h>

#include "ubfab.h"

static const struct ubfab_topo ubfab_kunit_shapes[] = {
	{ .nodes = 48, .chips_per_node = 8, .dies_per_chip = 2,
	  .cpus_per_node = 4, .planes = 7 },
	{ .nodes = 1, .chips_per_node = 1, .dies_per_chip = 1,
	  .cpus_per_node = 0, .planes = 1 },
	{ .nodes = 3, .chips_per_node = 0, .dies_per_chip = 2,
	  .cpus_per_node = 5, .planes = 2 },
	{ .nodes = 5, .chips_per_node = 3, .dies_per_chip = 4,
	  .cpus_per_node = 1, .planes = 16 },
	{ .nodes = 256, .chips_per_node = 8, .dies_per_chip = 2,
	  .cpus_per_node = 16, .planes = 16 },
};

static void ubfab_kunit_counts(struct kunit *test)
{
	const struct ubfab_topo *t = &ubfab_kunit_shapes[0];

	KUNIT_EXPECT_EQ(test, ubfab_topo_npus(t), 768);
	KUNIT_EXPECT_EQ(test, ubfab_topo_cpus(t), 192);
	KUNIT_EXPECT_EQ(test, ubfab_topo_entities(t), 960);

	t = &ubfab_kunit_shapes[2];
	KUNIT_EXPECT_EQ(test, ubfab_topo_npus(t), 0);
	KUNIT_EXPECT_EQ(test, ubfab_topo_entities(t), 15);

	t = &ubfab_kunit_shapes[4];
	KUNIT_EXPECT_EQ(test, ubfab_topo_entities(t), UBFAB_MAX_ENTITIES);
}

static void ubfab_kunit_expect_loc(struct kunit *test,
				   const struct ubfab_topo *t, u32 eid,
				   const struct ubfab_loc *want)
{
	struct ubfab_loc got;

	ubfab_topo_locate(t, eid, &got);
	KUNIT_EXPECT_EQ_MSG(test, got.kind, want->kind, "eid %u", eid);
	KUNIT_EXPECT_EQ_MSG(test, got.node, want->node, "eid %u", eid);
	KUNIT_EXPECT_EQ_MSG(test, got.chip, want->chip, "eid %u", eid);
	KUNIT_EXPECT_EQ_MSG(test, got.die, want->die, "eid %u", eid);
	KUNIT_EXPECT_EQ_MSG(test, got.socket, want->socket, "eid %u", eid);
}

/* Every EID of every shape lands where the documented order puts it. */
static void ubfab_kunit_locate(struct kunit *test)
{
	const struct ubfab_topo *t;
	struct ubfab_loc want;
	u32 i, eid;

	for (i = 0; i < ARRAY_SIZE(ubfab_kunit_shapes); i++) {
		t = &ubfab_kunit_shapes[i];
		eid = 0;
		memset(&want, 0, sizeof(want));
		want.kind = UBFAB_ENTITY_NPU;
		for (want.node = 0; want.node < t->nodes; want.node++)
			for (want.chip = 0; want.chip < t->chips_per_node;
			     want.chip++)
				for (want.die = 0; want.die < t->dies_per_chip;
				     want.die++)
					ubfab_kunit_expect_loc(test, t, eid++,
							       &want);
		KUNIT_EXPECT_EQ(test, eid, ubfab_topo_npus(t));

		memset(&want, 0, sizeof(want));
		want.kind = UBFAB_ENTITY_CPU;
		for (want.node = 0; want.node < t->nodes; want.node++)
			for (want.socket = 0; want.socket < t->cpus_per_node;
			     want.socket++)
				ubfab_kunit_expect_loc(test, t, eid++, &want);
		KUNIT_EXPECT_EQ(test, eid, ubfab_topo_entities(t));
	}
}

static struct kunit_case ubfab_topo_cases[] = {
	KUNIT_CASE(ubfab_kunit_counts),
	KUNIT_CASE(ubfab_kunit_locate),
	{}
};

static struct kunit_suite ubfab_topo_suite = {
	.name = "ubfab-topo",
	.test_cases = ubfab_topo_cases,
};

kunit_test_suite(ubfab_topo_suite);

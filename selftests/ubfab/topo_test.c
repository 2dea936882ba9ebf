// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab topology as user space sees it: for several shapes (the default,
 * the full CloudMatrix384 profile, custom ones), every entity's device and
 * sysfs attributes, and every netlink do and dump, checked against the
 * parameters the module was loaded with.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define GIB (1ULL << 30)


FIXTURE(topo) {
	struct ubfab_nl *nl;
	uint32_t npus;
	uint32_t cpus;
};

FIXTURE_VARIANT(topo) {
	const char *params;
	const char *profile;
	uint32_t nodes, chips, dies, cpus, planes, l2;
	uint64_t npu_mem, cpu_mem;
};

FIXTURE_VARIANT_ADD(topo, small) {
	.params = "", .profile = "small",
	.nodes = 2, .chips = 8, .dies = 2, .cpus = 4, .planes = 7, .l2 = 16,
	.npu_mem = 64 * GIB, .cpu_mem = 256 * GIB,
};

FIXTURE_VARIANT_ADD(topo, cm384) {
	.params = "profile=cm384", .profile = "cm384",
	.nodes = 48, .chips = 8, .dies = 2, .cpus = 4, .planes = 7, .l2 = 16,
	.npu_mem = 64 * GIB, .cpu_mem = 256 * GIB,
};

FIXTURE_VARIANT_ADD(topo, custom) {
	.params = "nodes=3 chips_per_node=2 dies_per_chip=1 cpus_per_node=1 planes=3 l2_per_plane=2 npu_mem=1G cpu_mem=2G",
	.profile = "custom",
	.nodes = 3, .chips = 2, .dies = 1, .cpus = 1, .planes = 3, .l2 = 2,
	.npu_mem = GIB, .cpu_mem = 2 * GIB,
};

FIXTURE_VARIANT_ADD(topo, npus_only) {
	.params = "nodes=1 cpus_per_node=0 dies_per_chip=4 planes=16 npu_mem=4096",
	.profile = "custom",
	.nodes = 1, .chips = 8, .dies = 4, .cpus = 0, .planes = 16, .l2 = 16,
	.npu_mem = 4096, .cpu_mem = 256 * GIB,
};

FIXTURE_VARIANT_ADD(topo, cpus_only) {
	.params = "nodes=5 chips_per_node=0 planes=1",
	.profile = "custom",
	.nodes = 5, .chips = 0, .dies = 2, .cpus = 4, .planes = 1, .l2 = 16,
	.npu_mem = 64 * GIB, .cpu_mem = 256 * GIB,
};

FIXTURE_SETUP(topo)
{
	ASSERT_EQ(0, ubfab_reload(variant->params));
	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
	self->npus = variant->nodes * variant->chips * variant->dies;
	self->cpus = variant->nodes * variant->cpus;
}

FIXTURE_TEARDOWN(topo)
{
	ubfab_nl_close(self->nl);
	ubfab_unload();
}

/* The test's own model of where an EID sits, written from the docs. */
static void expected_entity(const FIXTURE_VARIANT(topo) *v, uint32_t npus,
			    uint32_t eid, struct ubfab_entity_info *e)
{
	uint32_t per_node = v->chips * v->dies;

	memset(e, 0, sizeof(*e));
	e->eid = eid;
	e->ports = v->planes;
	if (eid < npus) {
		snprintf(e->name, sizeof(e->name), "npu%u", eid);
		e->kind = UBFAB_ENTITY_NPU;
		e->node = eid / per_node;
		e->chip = (eid % per_node) / v->dies;
		e->die = eid % v->dies;
		e->socket = UINT32_MAX;
		e->mem_size = v->npu_mem;
	} else {
		snprintf(e->name, sizeof(e->name), "cpu%u", eid - npus);
		e->kind = UBFAB_ENTITY_CPU;
		e->node = (eid - npus) / v->cpus;
		e->chip = UINT32_MAX;
		e->die = UINT32_MAX;
		e->socket = (eid - npus) % v->cpus;
		e->mem_size = v->cpu_mem;
	}
}

static void expect_entity(struct __test_metadata *_metadata,
			  const struct ubfab_entity_info *want,
			  const struct ubfab_entity_info *got)
{
	EXPECT_EQ(want->eid, got->eid);
	EXPECT_STREQ(want->name, got->name);
	EXPECT_EQ(want->kind, got->kind);
	EXPECT_EQ(want->node, got->node);
	EXPECT_EQ(want->chip, got->chip);
	EXPECT_EQ(want->die, got->die);
	EXPECT_EQ(want->socket, got->socket);
	EXPECT_EQ(want->mem_size, got->mem_size);
	EXPECT_EQ(want->ports, got->ports);
}

TEST_F_TIMEOUT(topo, fabric_get, UBFAB_TEST_SLOW)
{
	struct ubfab_fabric_info f;

	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &f));
	EXPECT_STREQ(variant->profile, f.profile);
	EXPECT_EQ(variant->nodes, f.nodes);
	EXPECT_EQ(variant->chips, f.chips_per_node);
	EXPECT_EQ(variant->dies, f.dies_per_chip);
	EXPECT_EQ(variant->cpus, f.cpus_per_node);
	EXPECT_EQ(variant->planes, f.planes);
	EXPECT_EQ(variant->l2, f.l2_per_plane);
	EXPECT_EQ(self->npus, f.npus);
	EXPECT_EQ(self->cpus, f.cpus);
	EXPECT_EQ(variant->npu_mem, f.npu_mem);
	EXPECT_EQ(variant->cpu_mem, f.cpu_mem);
	EXPECT_LT(0, f.setup_ns);
}

static void sysfs_path(char *buf, size_t len, const char *name,
		       const char *attr)
{
	snprintf(buf, len, "/sys/class/ubfab/%s/%s", name, attr);
}

static void expect_sysfs_u64(struct __test_metadata *_metadata,
			     const char *name, const char *attr,
			     uint64_t want)
{
	char path[128];
	uint64_t got;

	sysfs_path(path, sizeof(path), name, attr);
	ASSERT_EQ(0, read_u64(path, &got)) TH_LOG("%s", path);
	EXPECT_EQ(want, got) TH_LOG("%s", path);
}

static void expect_sysfs_absent(struct __test_metadata *_metadata,
				const char *name, const char *attr)
{
	char path[128];

	sysfs_path(path, sizeof(path), name, attr);
	EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s exists", path);
}

/* Every entity has a character device and sysfs attributes that match. */
TEST_F_TIMEOUT(topo, sysfs_and_devices, UBFAB_TEST_SLOW)
{
	struct ubfab_entity_info e;
	char path[128], buf[64];
	unsigned int maj, min;
	struct stat st;
	uint32_t eid;

	for (eid = 0; eid < self->npus + self->cpus; eid++) {
		expected_entity(variant, self->npus, eid, &e);

		snprintf(path, sizeof(path), "/dev/ubfab/%s", e.name);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
		EXPECT_TRUE(S_ISCHR(st.st_mode));
		EXPECT_EQ(0666, st.st_mode & 0777);
		sysfs_path(path, sizeof(path), e.name, "dev");
		ASSERT_EQ(0, read_text(path, buf, sizeof(buf)));
		ASSERT_EQ(2, sscanf(buf, "%u:%u", &maj, &min));
		EXPECT_EQ(makedev(maj, min), st.st_rdev);

		sysfs_path(path, sizeof(path), e.name, "kind");
		ASSERT_EQ(0, read_text(path, buf, sizeof(buf)));
		EXPECT_STREQ(e.kind == UBFAB_ENTITY_NPU ? "npu" : "cpu", buf);
		expect_sysfs_u64(_metadata, e.name, "eid", eid);
		expect_sysfs_u64(_metadata, e.name, "node", e.node);
		expect_sysfs_u64(_metadata, e.name, "mem_size", e.mem_size);
		expect_sysfs_u64(_metadata, e.name, "ports", e.ports);
		if (e.kind == UBFAB_ENTITY_NPU) {
			expect_sysfs_u64(_metadata, e.name, "chip", e.chip);
			expect_sysfs_u64(_metadata, e.name, "die", e.die);
			expect_sysfs_absent(_metadata, e.name, "socket");
		} else {
			expect_sysfs_u64(_metadata, e.name, "socket", e.socket);
			expect_sysfs_absent(_metadata, e.name, "chip");
			expect_sysfs_absent(_metadata, e.name, "die");
		}
	}
	/* Nothing beyond the last entity of each kind. */
	snprintf(path, sizeof(path), "/dev/ubfab/npu%u", self->npus);
	EXPECT_NE(0, access(path, F_OK));
	snprintf(path, sizeof(path), "/dev/ubfab/cpu%u", self->cpus);
	EXPECT_NE(0, access(path, F_OK));
}

struct entity_walk {
	struct __test_metadata *_metadata;
	const FIXTURE_VARIANT(topo) *variant;
	uint32_t npus;
	uint32_t seen;
};

static int check_entity(const struct ubfab_entity_info *got, void *arg)
{
	struct entity_walk *w = arg;
	struct __test_metadata *_metadata = w->_metadata;
	struct ubfab_entity_info want;

	expected_entity(w->variant, w->npus, w->seen, &want);
	expect_entity(_metadata, &want, got);
	w->seen++;
	return 0;
}

/* A dump returns every entity once, in EID order, as documented. */
TEST_F_TIMEOUT(topo, entity_dump, UBFAB_TEST_SLOW)
{
	struct entity_walk w = { _metadata, variant, self->npus, 0 };

	ASSERT_EQ(0, ubfab_entity_dump(self->nl, check_entity, &w));
	EXPECT_EQ(self->npus + self->cpus, w.seen);
}

static int stop_after_one(const struct ubfab_entity_info *e, void *arg)
{
	(*(int *)arg)++;
	return 7;
}

/* A callback's nonzero return stops the walk and is passed back. */
TEST_F_TIMEOUT(topo, entity_dump_stops, UBFAB_TEST_SLOW)
{
	struct entity_walk w = { _metadata, variant, self->npus, 0 };
	int calls = 0;

	EXPECT_EQ(7, ubfab_entity_dump(self->nl, stop_after_one, &calls));
	EXPECT_EQ(1, calls);
	/* The session is still usable afterwards. */
	ASSERT_EQ(0, ubfab_entity_dump(self->nl, check_entity, &w));
	EXPECT_EQ(self->npus + self->cpus, w.seen);
}

/* Lookups by EID and by name agree; unknown ones give ENODEV. */
TEST_F_TIMEOUT(topo, entity_get, UBFAB_TEST_SLOW)
{
	struct ubfab_entity_info want, got;
	uint32_t n = self->npus + self->cpus;
	uint32_t probes[] = { 0, n / 2, n - 1 };
	char name[32];
	size_t i;

	for (i = 0; i < 3; i++) {
		expected_entity(variant, self->npus, probes[i], &want);
		ASSERT_EQ(0, ubfab_entity_get(self->nl, probes[i], &got));
		expect_entity(_metadata, &want, &got);
		ASSERT_EQ(0, ubfab_entity_get_by_name(self->nl, want.name,
						      &got));
		expect_entity(_metadata, &want, &got);
	}
	EXPECT_EQ(-ENODEV, ubfab_entity_get(self->nl, n, &got));
	EXPECT_EQ(-ENODEV, ubfab_entity_get(self->nl, UINT32_MAX, &got));
	snprintf(name, sizeof(name), "npu%u", self->npus);
	EXPECT_EQ(-ENODEV, ubfab_entity_get_by_name(self->nl, name, &got));
	EXPECT_EQ(-ENODEV, ubfab_entity_get_by_name(self->nl, "gpu0", &got));
	EXPECT_EQ(-ENODEV, ubfab_entity_get_by_name(self->nl, "", &got));
	EXPECT_STRNE("", ubfab_nl_errmsg(self->nl));
}

struct port_walk {
	struct __test_metadata *_metadata;
	uint32_t planes;
	uint32_t next;		/* eid * planes + plane expected next */
};

static int check_port(const struct ubfab_port_info *p, void *arg)
{
	struct port_walk *w = arg;
	struct __test_metadata *_metadata = w->_metadata;

	EXPECT_EQ(w->next / w->planes, p->eid);
	EXPECT_EQ(w->next % w->planes, p->plane);
	EXPECT_EQ(UBFAB_STATE_UP, p->state);
	EXPECT_EQ(0, p->stats.tx_bytes);
	EXPECT_EQ(0, p->stats.rx_bytes);
	EXPECT_EQ(0, p->stats.tx_ops);
	EXPECT_EQ(0, p->stats.rx_ops);
	EXPECT_EQ(0, p->stats.errors);
	w->next++;
	return 0;
}

/* Every entity has one port per plane, all up, counters at zero. */
TEST_F_TIMEOUT(topo, port_dump, UBFAB_TEST_SLOW)
{
	struct port_walk w = { _metadata, variant->planes, 0 };
	uint32_t n = self->npus + self->cpus;

	ASSERT_EQ(0, ubfab_port_dump(self->nl, UBFAB_EID_ANY, check_port, &w));
	EXPECT_EQ(n * variant->planes, w.next);

	/* Filtered by entity: that entity's ports only. */
	w.next = (n - 1) * variant->planes;
	ASSERT_EQ(0, ubfab_port_dump(self->nl, n - 1, check_port, &w));
	EXPECT_EQ(n * variant->planes, w.next);
	w.next = 0;
	ASSERT_EQ(0, ubfab_port_dump(self->nl, 0, check_port, &w));
	EXPECT_EQ(variant->planes, w.next);

	EXPECT_EQ(-ENODEV, ubfab_port_dump(self->nl, n, check_port, &w));
}

TEST_F_TIMEOUT(topo, port_get, UBFAB_TEST_SLOW)
{
	uint32_t n = self->npus + self->cpus;
	struct ubfab_port_info p;

	ASSERT_EQ(0, ubfab_port_get(self->nl, n - 1, variant->planes - 1, &p));
	EXPECT_EQ(n - 1, p.eid);
	EXPECT_EQ(variant->planes - 1, p.plane);
	EXPECT_EQ(UBFAB_STATE_UP, p.state);
	EXPECT_EQ(-ENODEV, ubfab_port_get(self->nl, n - 1, variant->planes,
					  &p));
	EXPECT_EQ(-ENODEV, ubfab_port_get(self->nl, n, 0, &p));
}

struct plane_walk {
	struct __test_metadata *_metadata;
	const FIXTURE_VARIANT(topo) *variant;
	uint32_t entities;
	uint32_t next;
};

static int check_plane(const struct ubfab_plane_info *p, void *arg)
{
	struct plane_walk *w = arg;
	struct __test_metadata *_metadata = w->_metadata;

	EXPECT_EQ(w->next, p->id);
	EXPECT_EQ(UBFAB_STATE_UP, p->state);
	EXPECT_EQ(w->variant->nodes, p->l1_switches);
	EXPECT_EQ(w->variant->l2, p->l2_switches);
	EXPECT_EQ(w->entities, p->ports);
	EXPECT_EQ(w->entities, p->ports_up);
	EXPECT_EQ(0, p->stats.tx_bytes + p->stats.rx_bytes + p->stats.errors);
	w->next++;
	return 0;
}

/* One plane per parameter, each with an L1 switch per node. */
TEST_F_TIMEOUT(topo, plane_dump_and_get, UBFAB_TEST_SLOW)
{
	struct plane_walk w = { _metadata, variant,
				self->npus + self->cpus, 0 };
	struct ubfab_plane_info p;

	ASSERT_EQ(0, ubfab_plane_dump(self->nl, check_plane, &w));
	EXPECT_EQ(variant->planes, w.next);

	ASSERT_EQ(0, ubfab_plane_get(self->nl, variant->planes - 1, &p));
	w.next = variant->planes - 1;
	check_plane(&p, &w);
	EXPECT_EQ(-ENODEV, ubfab_plane_get(self->nl, variant->planes, &p));
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab module lifecycle: which parameters load and which are refused (with
 * a kernel-log message naming the problem), what /sys/module shows, and that
 * an open device pins the module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define PARAMS "/sys/module/ubfab/parameters/"

FIXTURE(reject) {
	int kmsg;
};

FIXTURE_VARIANT(reject) {
	const char *params;
	const char *message;	/* expected in the kernel log */
};

FIXTURE_VARIANT_ADD(reject, nodes_zero) {
	.params = "nodes=0", .message = "nodes=0: out of range 1..256",
};

FIXTURE_VARIANT_ADD(reject, nodes_too_many) {
	.params = "nodes=257", .message = "nodes=257: out of range 1..256",
};

FIXTURE_VARIANT_ADD(reject, nodes_not_number) {
	.params = "nodes=two", .message = "nodes=two: not a number",
};

FIXTURE_VARIANT_ADD(reject, nodes_negative) {
	.params = "nodes=-1", .message = "nodes=-1: not a number",
};

FIXTURE_VARIANT_ADD(reject, chips_too_many) {
	.params = "chips_per_node=17",
	.message = "chips_per_node=17: out of range 0..16",
};

FIXTURE_VARIANT_ADD(reject, dies_zero) {
	.params = "dies_per_chip=0",
	.message = "dies_per_chip=0: out of range 1..4",
};

FIXTURE_VARIANT_ADD(reject, cpus_too_many) {
	.params = "cpus_per_node=17",
	.message = "cpus_per_node=17: out of range 0..16",
};

FIXTURE_VARIANT_ADD(reject, planes_zero) {
	.params = "planes=0", .message = "planes=0: out of range 1..16",
};

FIXTURE_VARIANT_ADD(reject, planes_too_many) {
	.params = "planes=17", .message = "planes=17: out of range 1..16",
};

FIXTURE_VARIANT_ADD(reject, l2_zero) {
	.params = "l2_per_plane=0",
	.message = "l2_per_plane=0: out of range 1..64",
};

FIXTURE_VARIANT_ADD(reject, npu_mem_unaligned) {
	.params = "npu_mem=5000",
	.message = "npu_mem=5000: not a multiple of the page size",
};

FIXTURE_VARIANT_ADD(reject, npu_mem_too_big) {
	.params = "npu_mem=2T", .message = "npu_mem=2T: out of range",
};

FIXTURE_VARIANT_ADD(reject, cpu_mem_zero) {
	.params = "cpu_mem=0", .message = "cpu_mem=0: out of range",
};

FIXTURE_VARIANT_ADD(reject, cpu_mem_garbage) {
	.params = "cpu_mem=12Q", .message = "cpu_mem=12Q: not a size",
};

FIXTURE_VARIANT_ADD(reject, unknown_profile) {
	.params = "profile=cm385",
	.message = "profile=cm385: unknown profile",
};

FIXTURE_VARIANT_ADD(reject, no_entities) {
	.params = "chips_per_node=0 cpus_per_node=0",
	.message = "= 0 entities: must be 1..8192",
};

FIXTURE_VARIANT_ADD(reject, too_many_entities) {
	.params = "nodes=256 chips_per_node=16 dies_per_chip=2",
	.message = "= 9216 entities: must be 1..8192",
};

FIXTURE_SETUP(reject)
{
	int ret = ubfab_unload();

	ASSERT_TRUE(ret == 0 || ret == -ENOENT);
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
}

FIXTURE_TEARDOWN(reject)
{
	close(self->kmsg);
}

/* A bad parameter fails the load with EINVAL, says why, and leaves nothing. */
TEST_F(reject, load_fails)
{
	EXPECT_EQ(-EINVAL, ubfab_load(variant->params));
	EXPECT_FALSE(ubfab_loaded());
	EXPECT_NE(0, access("/dev/ubfab", F_OK));
	EXPECT_NE(0, access("/sys/class/ubfab", F_OK));
	EXPECT_TRUE(kmsg_find(self->kmsg, variant->message))
		TH_LOG("no \"%s\" in the kernel log", variant->message);
	/* A good load still works afterwards. */
	EXPECT_EQ(0, ubfab_load(""));
	EXPECT_EQ(0, ubfab_unload());
}

FIXTURE(loaded) {
	struct ubfab_nl *nl;
};

FIXTURE_SETUP(loaded)
{
	self->nl = NULL;
}

FIXTURE_TEARDOWN(loaded)
{
	if (self->nl)
		ubfab_nl_close(self->nl);
	ubfab_unload();
}

static void expect_param(struct __test_metadata *_metadata, const char *name,
			 const char *want)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	ASSERT_EQ(0, read_text(path, buf, sizeof(buf)));
	EXPECT_STREQ(want, buf);
}

/* With no parameters the module loads the small profile and shows it. */
TEST_F(loaded, defaults)
{
	struct ubfab_fabric_info f;

	ASSERT_EQ(0, ubfab_reload(""));
	expect_param(_metadata, "profile", "small");
	expect_param(_metadata, "nodes", "2");
	expect_param(_metadata, "chips_per_node", "8");
	expect_param(_metadata, "dies_per_chip", "2");
	expect_param(_metadata, "cpus_per_node", "4");
	expect_param(_metadata, "planes", "7");
	expect_param(_metadata, "l2_per_plane", "16");
	expect_param(_metadata, "npu_mem", "68719476736");
	expect_param(_metadata, "cpu_mem", "274877906944");

	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &f));
	EXPECT_STREQ("small", f.profile);
	EXPECT_EQ(32, f.npus);
	EXPECT_EQ(8, f.cpus);
	EXPECT_EQ(0, access("/dev/ubfab/npu31", F_OK));
	EXPECT_NE(0, access("/dev/ubfab/npu32", F_OK));
	EXPECT_EQ(0, access("/dev/ubfab/cpu7", F_OK));
	EXPECT_NE(0, access("/dev/ubfab/cpu8", F_OK));
}

/* Explicit parameters override the profile, which then reads "custom". */
TEST_F(loaded, override_profile)
{
	struct ubfab_fabric_info f;

	ASSERT_EQ(0, ubfab_reload("profile=cm384 nodes=3 npu_mem=1G"));
	expect_param(_metadata, "profile", "cm384");
	expect_param(_metadata, "nodes", "3");
	expect_param(_metadata, "npu_mem", "1073741824");
	expect_param(_metadata, "planes", "7");

	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &f));
	EXPECT_STREQ("custom", f.profile);
	EXPECT_EQ(3, f.nodes);
	EXPECT_EQ(48, f.npus);
	EXPECT_EQ(12, f.cpus);
	EXPECT_EQ(1ULL << 30, f.npu_mem);
	EXPECT_EQ(256ULL << 30, f.cpu_mem);
}

/* The profile alone is not "custom". */
TEST_F_TIMEOUT(loaded, cm384_profile, UBFAB_TEST_SLOW)
{
	struct ubfab_fabric_info f;

	ASSERT_EQ(0, ubfab_reload("profile=cm384"));
	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
	ASSERT_EQ(0, ubfab_fabric_get(self->nl, &f));
	EXPECT_STREQ("cm384", f.profile);
	EXPECT_EQ(48, f.nodes);
	EXPECT_EQ(768, f.npus);
	EXPECT_EQ(192, f.cpus);
	EXPECT_EQ(7, f.planes);
	EXPECT_LT(0, f.setup_ns);
}

/* The family goes away with the module. */
TEST_F(loaded, family_gone_after_unload)
{
	struct ubfab_nl *nl;

	ASSERT_EQ(0, ubfab_reload(""));
	ASSERT_EQ(0, ubfab_unload());
	EXPECT_EQ(-ENOENT, ubfab_nl_open(&nl));
}

/* An open device holds a module reference: unload is refused until close. */
TEST_F(loaded, unload_refused_while_open)
{
	uint64_t refcnt;
	int fd, fd2;

	ASSERT_EQ(0, ubfab_reload(""));
	ASSERT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &refcnt));
	EXPECT_EQ(0, refcnt);

	fd = open("/dev/ubfab/npu0", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	fd2 = open("/dev/ubfab/cpu0", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, read_u64("/sys/module/ubfab/refcnt", &refcnt));
	EXPECT_LT(0, refcnt);

	EXPECT_EQ(-EWOULDBLOCK, ubfab_unload());
	EXPECT_TRUE(ubfab_loaded());
	close(fd);
	EXPECT_EQ(-EWOULDBLOCK, ubfab_unload());
	EXPECT_TRUE(ubfab_loaded());
	close(fd2);

	EXPECT_EQ(0, ubfab_unload());
	EXPECT_FALSE(ubfab_loaded());
	EXPECT_NE(0, access("/dev/ubfab/npu0", F_OK));
}

/* Entity devices are not seekable and exist for every entity. */
TEST_F(loaded, open_every_device)
{
	char path[64];
	int i, fd;

	ASSERT_EQ(0, ubfab_reload("nodes=1 chips_per_node=2 cpus_per_node=2"));
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/dev/ubfab/npu%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
		EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
		EXPECT_EQ(ESPIPE, errno);
		close(fd);
	}
	EXPECT_NE(0, access("/dev/ubfab/npu4", F_OK));
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/dev/ubfab/cpu%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
		close(fd);
	}
}

/* Loading and unloading over and over leaves the system as it was. */
TEST_F_TIMEOUT(loaded, reload_cycles, UBFAB_TEST_SLOW)
{
	int i;

	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, ubfab_reload(i % 2 ? "profile=cm384" : ""));
		ASSERT_EQ(0, ubfab_unload());
		ASSERT_FALSE(ubfab_loaded());
	}
}

TEST_HARNESS_MAIN

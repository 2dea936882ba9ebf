// SPDX-License-Identifier: GPL-2.0
/*
 * libubfab's device API end to end: opening entities, allocating and
 * mapping their memory, sharing it through a segment both ways, events
 * (revocation, refused imports, time-outs, several waiting threads), the
 * segment dump and the auth failure count over netlink, and what
 * "ubctl seg show" and "ubctl entity show" print (run where ubctl is in
 * $PATH, as in the test VM; skipped elsewhere).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libubfab.h"
#include "ubfab_test.h"

#define PAGE		4096UL
#define TOKEN		0x5eed1234U	/* never to be seen in any output */
#define RW		(UBFAB_SEG_READ | UBFAB_SEG_WRITE)

FIXTURE(lib) {
	struct ubfab_dev *npu0;	/* exporter, eid 0 */
	struct ubfab_dev *npu1;	/* importer, eid 1 */
	struct ubfab_nl *nl;
};

FIXTURE_SETUP(lib)
{
	ASSERT_EQ(0, ubfab_reload("nodes=1 chips_per_node=1 cpus_per_node=1 npu_mem=64M cpu_mem=64M"));
	ASSERT_EQ(0, ubfab_dev_open("npu0", &self->npu0));
	ASSERT_EQ(0, ubfab_dev_open("npu1", &self->npu1));
	ASSERT_EQ(0, ubfab_nl_open(&self->nl));
}

FIXTURE_TEARDOWN(lib)
{
	ubfab_nl_close(self->nl);
	ubfab_dev_close(self->npu0);
	ubfab_dev_close(self->npu1);
	ubfab_unload();
}

/* Without the module, nothing can be opened. */
TEST(no_module)
{
	struct ubfab_dev *dev = NULL;

	ubfab_unload();
	EXPECT_EQ(-ENOENT, ubfab_dev_open("npu0", &dev));
	EXPECT_EQ(NULL, dev);
}

TEST_F(lib, open)
{
	struct ubfab_dev *cpu0, *dev = NULL;

	EXPECT_EQ(0, ubfab_dev_eid(self->npu0));
	EXPECT_EQ(1, ubfab_dev_eid(self->npu1));
	EXPECT_STREQ("npu1", ubfab_dev_name(self->npu1));
	EXPECT_LE(0, ubfab_dev_fd(self->npu1));
	ASSERT_EQ(0, ubfab_dev_open("cpu0", &cpu0));
	EXPECT_EQ(2, ubfab_dev_eid(cpu0));
	ubfab_dev_close(cpu0);

	EXPECT_EQ(-ENOENT, ubfab_dev_open("npu2", &dev));
	EXPECT_EQ(-ENOENT, ubfab_dev_open("", &dev));
	EXPECT_EQ(-ENOENT, ubfab_dev_open("..", &dev));
	EXPECT_EQ(-ENOENT, ubfab_dev_open("../null", &dev));
	EXPECT_EQ(-ENOENT, ubfab_dev_open("npu0123456789abc", &dev));
	EXPECT_EQ(NULL, dev);
	EXPECT_EQ(-EINVAL, ubfab_dev_open(NULL, &dev));
	EXPECT_EQ(-EINVAL, ubfab_dev_open("npu0", NULL));
	EXPECT_EQ(-EINVAL, ubfab_dev_fd(NULL));
	EXPECT_EQ(UBFAB_EID_ANY, ubfab_dev_eid(NULL));
	ubfab_dev_close(NULL);
}

TEST_F(lib, alloc_and_map)
{
	uint64_t off = 0, other;
	void *addr;
	char *p;

	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, 16 * PAGE, &off));
	ASSERT_EQ(0, ubfab_dev_map(self->npu0, off, 16 * PAGE,
				   PROT_READ | PROT_WRITE, &addr));
	p = addr;
	EXPECT_EQ(0, p[PAGE]);
	strcpy(p + 15 * PAGE, "kept");
	EXPECT_EQ(0, ubfab_unmap(addr, 16 * PAGE));
	ASSERT_EQ(0, ubfab_dev_map(self->npu0, off, 16 * PAGE, PROT_READ,
				   &addr));
	EXPECT_STREQ("kept", (char *)addr + 15 * PAGE);
	EXPECT_EQ(0, ubfab_unmap(addr, 16 * PAGE));

	EXPECT_EQ(-EINVAL, ubfab_dev_alloc(self->npu0, 100, &other));
	EXPECT_EQ(-ENOSPC, ubfab_dev_alloc(self->npu0, 128 << 20, &other));
	EXPECT_EQ(-EINVAL, ubfab_dev_alloc(self->npu0, PAGE, NULL));
	EXPECT_EQ(-EINVAL, ubfab_dev_map(self->npu0, off, 17 * PAGE,
					 PROT_READ, &addr));
	EXPECT_EQ(-EINVAL, ubfab_dev_map(self->npu1, off, PAGE, PROT_READ,
					 &addr));
	EXPECT_EQ(-EINVAL, ubfab_dev_map(self->npu0, UINT64_MAX, PAGE,
					 PROT_READ, &addr));
	EXPECT_EQ(-ENOENT, ubfab_dev_free(self->npu1, off));
	EXPECT_EQ(0, ubfab_dev_free(self->npu0, off));
	EXPECT_EQ(-ENOENT, ubfab_dev_free(self->npu0, off));
}

struct seg_found {
	unsigned int count;
	struct ubfab_seg_info last;
};

static int seg_cb(const struct ubfab_seg_info *s, void *arg)
{
	struct seg_found *found = arg;

	found->count++;
	found->last = *s;
	return 0;
}

/* Run @cmd; 0 and its output in @buf, or -1 if it failed. */
static int run(const char *cmd, char *buf, size_t len)
{
	FILE *f = popen(cmd, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	return pclose(f) ? -1 : 0;
}

static bool have_ubctl(struct __test_metadata *_metadata)
{
	if (!system("command -v ubctl >/dev/null 2>&1"))
		return true;
	TH_LOG("no ubctl in $PATH: its output is not checked");
	return false;
}

/* The one segment there is, npu0's, as "ubctl seg show" prints it. */
static void check_seg_show(struct __test_metadata *_metadata, uint32_t tid,
			   uint64_t offset)
{
	char out[4096], want[256], token[16];

	snprintf(want, sizeof(want),
		 "npu0 token %u offset 0x%llx length 0x4000 (16KiB) rights rw- importers 1 pid %d\n",
		 tid, (unsigned long long)offset, getpid());
	ASSERT_EQ(0, run("ubctl seg show npu0", out, sizeof(out)));
	EXPECT_STREQ(want, out);
	ASSERT_EQ(0, run("ubctl seg show", out, sizeof(out)));
	EXPECT_STREQ(want, out);
	ASSERT_EQ(0, run("ubctl -j seg show", out, sizeof(out)));
	snprintf(want, sizeof(want),
		 "[{\"entity\":\"npu0\",\"eid\":0,\"token_id\":%u,\"offset\":%llu,\"length\":16384,\"rights\":[\"read\",\"write\"],\"importers\":1,\"pid\":%d}]\n",
		 tid, (unsigned long long)offset, getpid());
	EXPECT_STREQ(want, out);
	snprintf(token, sizeof(token), "%x", TOKEN);
	EXPECT_EQ(NULL, strstr(out, token));
	snprintf(token, sizeof(token), "%u", TOKEN);
	EXPECT_EQ(NULL, strstr(out, token));
}

/*
 * Loads and stores through a peer window land in the exporter's memory and
 * the other way round; the segment is in the dump and in "ubctl seg show",
 * its token value nowhere; unexport revokes and tells the importer.
 */
TEST_F(lib, share_both_ways)
{
	uint64_t off = 0, len = 0;
	struct seg_found found = { 0 };
	struct ubfab_event ev;
	uint32_t tid = 0;
	char *own, *peer;
	void *addr;

	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, 8 * PAGE, &off));
	ASSERT_EQ(0, ubfab_dev_map(self->npu0, off, 8 * PAGE,
				   PROT_READ | PROT_WRITE, &addr));
	own = addr;
	ASSERT_EQ(0, ubfab_dev_export(self->npu0, off + PAGE, 4 * PAGE, RW,
				      TOKEN, &tid));
	EXPECT_LT(0, tid);
	ASSERT_EQ(0, ubfab_dev_import_map(self->npu1, 0, tid, TOKEN, RW,
					  PROT_READ | PROT_WRITE, &addr,
					  &len));
	peer = addr;
	EXPECT_EQ(4 * PAGE, len);

	strcpy(peer, "from the importer");
	EXPECT_STREQ("from the importer", own + PAGE);
	strcpy(own + 4 * PAGE + 8, "from the owner");
	EXPECT_STREQ("from the owner", peer + 3 * PAGE + 8);

	ASSERT_EQ(0, ubfab_seg_dump(self->nl, 0, seg_cb, &found));
	EXPECT_EQ(1, found.count);
	EXPECT_EQ(0, found.last.eid);
	EXPECT_EQ(tid, found.last.token_id);
	EXPECT_EQ(off + PAGE, found.last.offset);
	EXPECT_EQ(4 * PAGE, found.last.length);
	EXPECT_EQ(RW, found.last.rights);
	EXPECT_EQ(1, found.last.imports);
	EXPECT_EQ(getpid(), found.last.pid);
	found.count = 0;
	ASSERT_EQ(0, ubfab_seg_dump(self->nl, 1, seg_cb, &found));
	EXPECT_EQ(0, found.count);

	if (have_ubctl(_metadata))
		check_seg_show(_metadata, tid, off + PAGE);

	/* Unexport: the importer hears of it and drops the import. */
	EXPECT_EQ(-ETIMEDOUT, ubfab_dev_event_wait(self->npu1, &ev, 0));
	ASSERT_EQ(0, ubfab_dev_unexport(self->npu0, tid));
	ASSERT_EQ(0, ubfab_dev_event_wait(self->npu1, &ev, 2000));
	EXPECT_EQ(UBFAB_EVENT_REVOKED, ev.type);
	EXPECT_EQ(UBFAB_REVOKE_UNEXPORT, ev.reason);
	EXPECT_EQ(0, ev.eid);
	EXPECT_EQ(tid, ev.token_id);
	EXPECT_EQ(0, ubfab_dev_unimport(self->npu1, ev.mmap_offset));
	EXPECT_EQ(-ENOENT, ubfab_dev_unimport(self->npu1, ev.mmap_offset));
	EXPECT_EQ(-ENOENT, ubfab_dev_unexport(self->npu0, tid));
	found.count = 0;
	ASSERT_EQ(0, ubfab_seg_dump(self->nl, UBFAB_EID_ANY, seg_cb, &found));
	EXPECT_EQ(0, found.count);
	EXPECT_EQ(0, ubfab_unmap(peer, len));
	EXPECT_EQ(0, ubfab_unmap(own, 8 * PAGE));
}

TEST_F(lib, event_timeout)
{
	struct ubfab_event ev;
	int64_t start = now_ms();

	EXPECT_EQ(-ETIMEDOUT, ubfab_dev_event_wait(self->npu0, &ev, 200));
	EXPECT_LE(200, now_ms() - start);
	EXPECT_EQ(-EINVAL, ubfab_dev_event_wait(self->npu0, &ev, -2));
	EXPECT_EQ(-EINVAL, ubfab_dev_event_wait(self->npu0, NULL, 0));
	EXPECT_EQ(-EINVAL, ubfab_dev_event_wait(NULL, &ev, 0));
}

struct waiter {
	struct ubfab_dev *dev;
	int timeout_ms;
	int ret;
	struct ubfab_event ev;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->ret = ubfab_dev_event_wait(w->dev, &w->ev, w->timeout_ms);
	return NULL;
}

/* Wrong tokens and rights are refused, counted and reported. */
TEST_F(lib, refused_imports)
{
	struct ubfab_entity_info e;
	struct ubfab_import imp;
	struct ubfab_event ev;
	uint64_t off = 0, len;
	uint32_t tid = 0;
	char out[4096];
	void *addr;

	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, PAGE, &off));
	ASSERT_EQ(0, ubfab_dev_export(self->npu0, off, PAGE, UBFAB_SEG_READ,
				      TOKEN, &tid));
	EXPECT_EQ(-EACCES, ubfab_dev_import(self->npu1, 0, tid, TOKEN + 1,
					    UBFAB_SEG_READ, &imp));
	ASSERT_EQ(0, ubfab_dev_event_wait(self->npu0, &ev, 2000));
	EXPECT_EQ(UBFAB_EVENT_AUTH_FAILURE, ev.type);
	EXPECT_EQ(1, ev.eid);
	EXPECT_EQ(tid, ev.token_id);
	EXPECT_EQ(-EACCES, ubfab_dev_import_map(self->npu1, 0, tid, TOKEN,
						RW, PROT_READ, &addr, &len));
	EXPECT_EQ(-ENOENT, ubfab_dev_import(self->npu1, 0, tid + 1, TOKEN,
					    UBFAB_SEG_READ, &imp));
	EXPECT_EQ(-ENODEV, ubfab_dev_import(self->npu1, 99, tid, TOKEN,
					    UBFAB_SEG_READ, &imp));
	EXPECT_EQ(-EINVAL, ubfab_dev_import(self->npu1, 0, tid, TOKEN, 0,
					    &imp));
	EXPECT_EQ(-EINVAL, ubfab_dev_export(self->npu0, off, 2 * PAGE,
					    UBFAB_SEG_READ, TOKEN, &tid));

	ASSERT_EQ(0, ubfab_entity_get(self->nl, 0, &e));
	EXPECT_EQ(2, e.auth_failures);
	ASSERT_EQ(0, ubfab_entity_get(self->nl, 1, &e));
	EXPECT_EQ(0, e.auth_failures);
	if (have_ubctl(_metadata)) {
		ASSERT_EQ(0, run("ubctl entity show npu0", out, sizeof(out)));
		EXPECT_NE(NULL, strstr(out, " auth_failures 2\n"));
	}
}

/* A mapping that fails drops its import again. */
TEST_F(lib, import_map_undone)
{
	struct seg_found found = { 0 };
	uint64_t off = 0, len;
	uint32_t tid = 0;
	void *addr;

	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, PAGE, &off));
	ASSERT_EQ(0, ubfab_dev_export(self->npu0, off, PAGE, UBFAB_SEG_READ,
				      TOKEN, &tid));
	EXPECT_EQ(-EACCES, ubfab_dev_import_map(self->npu1, 0, tid, TOKEN,
						UBFAB_SEG_READ,
						PROT_READ | PROT_WRITE,
						&addr, &len));
	ASSERT_EQ(0, ubfab_seg_dump(self->nl, 0, seg_cb, &found));
	EXPECT_EQ(1, found.count);
	EXPECT_EQ(0, found.last.imports);
}

/* Threads waiting on one device: each event goes to exactly one. */
TEST_F(lib, waiting_threads)
{
	struct waiter w[2] = {
		{ .dev = self->npu0, .timeout_ms = 3000 },
		{ .dev = self->npu0, .timeout_ms = 3000 },
	};
	struct ubfab_import imp;
	struct waiter *got;
	pthread_t t[2];
	uint64_t off = 0;
	uint32_t tid = 0;
	int i;

	ASSERT_EQ(0, ubfab_dev_alloc(self->npu0, PAGE, &off));
	ASSERT_EQ(0, ubfab_dev_export(self->npu0, off, PAGE, UBFAB_SEG_READ,
				      TOKEN, &tid));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, wait_thread, &w[i]));
	usleep(200 * 1000);
	EXPECT_EQ(-EACCES, ubfab_dev_import(self->npu1, 0, tid, 0,
					    UBFAB_SEG_READ, &imp));
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	got = w[0].ret ? &w[1] : &w[0];
	EXPECT_EQ(0, got->ret);
	EXPECT_EQ(UBFAB_EVENT_AUTH_FAILURE, got->ev.type);
	EXPECT_EQ(-ETIMEDOUT, (got == w ? &w[1] : &w[0])->ret);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab memory semantics: allocation and local mapping of entity memory,
 * export and import of token-guarded segments, zero-copy peer windows,
 * rights, revocation with SIGBUS and events, and the ioctl ABI's checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ubfab.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "kselftest_harness.h"
#include "ubfab_test.h"

#define PAGE 4096UL

static int dev_open(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/ubfab/%s", name);
	return open(path, O_RDWR | O_CLOEXEC);
}

static int mem_alloc(int fd, uint64_t length, uint64_t *offset)
{
	struct ubfab_mem_alloc a = { .size = sizeof(a), .length = length };

	if (ioctl(fd, UBFAB_IOCTL_MEM_ALLOC, &a))
		return -errno;
	*offset = a.offset;
	return 0;
}

static int mem_free(int fd, uint64_t offset)
{
	struct ubfab_mem_free f = { .size = sizeof(f), .offset = offset };

	return ioctl(fd, UBFAB_IOCTL_MEM_FREE, &f) ? -errno : 0;
}

static int seg_export(int fd, uint64_t offset, uint64_t length,
		      uint32_t rights, uint32_t value, uint32_t *token_id)
{
	struct ubfab_seg_export e = {
		.size = sizeof(e), .rights = rights, .offset = offset,
		.length = length, .token_value = value,
	};

	if (ioctl(fd, UBFAB_IOCTL_SEG_EXPORT, &e))
		return -errno;
	*token_id = e.token_id;
	return 0;
}

static int seg_unexport(int fd, uint32_t token_id)
{
	struct ubfab_seg_unexport u = { .size = sizeof(u),
					.token_id = token_id };

	return ioctl(fd, UBFAB_IOCTL_SEG_UNEXPORT, &u) ? -errno : 0;
}

static int seg_import(int fd, uint32_t eid, uint32_t token_id,
		      uint32_t value, uint32_t rights,
		      struct ubfab_seg_import *out)
{
	struct ubfab_seg_import i = {
		.size = sizeof(i), .rights = rights, .eid = eid,
		.token_id = token_id, .token_value = value,
	};

	if (ioctl(fd, UBFAB_IOCTL_SEG_IMPORT, &i))
		return -errno;
	if (out)
		*out = i;
	return 0;
}

static void *map(int fd, uint64_t offset, size_t len, int prot)
{
	return mmap(NULL, len, prot, MAP_SHARED, fd, offset);
}

static sigjmp_buf probe_env;

static void on_sigbus(int sig)
{
	siglongjmp(probe_env, 1);
}

/* Read one byte; return -1 if that raised SIGBUS. */
static int probe(volatile char *p, char *val)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int ret = 0;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(probe_env, 1))
		ret = -1;
	else
		*val = *p;
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

/* The next event within timeout_ms, or -1. */
static int next_event(int fd, struct ubfab_event *ev, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) != 1 || !(pfd.revents & POLLIN))
		return -1;
	return read(fd, ev, sizeof(*ev)) == sizeof(*ev) ? 0 : -1;
}

FIXTURE(mem) {
	int npu0;	/* exporter, eid 0 */
	int npu1;	/* importer, eid 1 */
};

FIXTURE_SETUP(mem)
{
	ASSERT_EQ(0, ubfab_reload("nodes=1 chips_per_node=1 cpus_per_node=1 npu_mem=64M cpu_mem=64M"));
	self->npu0 = dev_open("npu0");
	ASSERT_LE(0, self->npu0);
	self->npu1 = dev_open("npu1");
	ASSERT_LE(0, self->npu1);
}

FIXTURE_TEARDOWN(mem)
{
	close(self->npu0);
	close(self->npu1);
	ubfab_unload();
}

TEST_F(mem, alloc_checks)
{
	struct ubfab_mem_alloc a = { .size = sizeof(a), .length = PAGE };
	uint64_t off = 0, off2 = 0;

	EXPECT_EQ(-EINVAL, mem_alloc(self->npu0, 0, &off));
	EXPECT_EQ(-EINVAL, mem_alloc(self->npu0, 100, &off));
	EXPECT_EQ(-ENOSPC, mem_alloc(self->npu0, 128 << 20, &off));
	a.flags = 1;
	EXPECT_EQ(-1, ioctl(self->npu0, UBFAB_IOCTL_MEM_ALLOC, &a));
	EXPECT_EQ(EINVAL, errno);

	/* The whole 64 MiB, then nothing more; freeing makes room again. */
	ASSERT_EQ(0, mem_alloc(self->npu0, 32 << 20, &off));
	ASSERT_EQ(0, mem_alloc(self->npu0, 32 << 20, &off2));
	EXPECT_NE(off, off2);
	EXPECT_EQ(-ENOSPC, mem_alloc(self->npu0, PAGE, &off));
	EXPECT_EQ(-ENOENT, mem_free(self->npu0, off2 + PAGE));
	EXPECT_EQ(-ENOENT, mem_free(self->npu1, off2));
	EXPECT_EQ(0, mem_free(self->npu0, off2));
	EXPECT_EQ(-ENOENT, mem_free(self->npu0, off2));
	EXPECT_EQ(0, mem_alloc(self->npu0, PAGE, &off2));
}

/* New memory reads as zero; stores stay; the mapping covers only the range. */
TEST_F(mem, local_mapping)
{
	uint64_t off = 0, other = 0;
	size_t i;
	char *p;
	int fd2;

	ASSERT_EQ(0, mem_alloc(self->npu0, 16 * PAGE, &off));
	p = map(self->npu0, off, 16 * PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < 16 * PAGE; i++)
		ASSERT_EQ(0, p[i]);
	memset(p, 0xa5, 16 * PAGE);
	EXPECT_EQ((char)0xa5, p[16 * PAGE - 1]);
	munmap(p, 16 * PAGE);
	p = map(self->npu0, off, 16 * PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ((char)0xa5, p[5 * PAGE]);
	munmap(p, 16 * PAGE);

	/* Beyond the allocation, private, or another file's: refused. */
	EXPECT_EQ(MAP_FAILED, map(self->npu0, off, 17 * PAGE, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE,
				   self->npu0, off));
	EXPECT_EQ(EINVAL, errno);
	/* Another file of the same entity cannot map this file's range. */
	fd2 = dev_open("npu0");
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, mem_alloc(fd2, PAGE, &other));
	EXPECT_EQ(MAP_FAILED, map(self->npu0, other, PAGE, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map(fd2, off, PAGE, PROT_READ));
	close(fd2);

	/* Freed and allocated again: zero, not the old data. */
	ASSERT_EQ(0, mem_free(self->npu0, off));
	ASSERT_EQ(0, mem_alloc(self->npu0, 16 * PAGE, &off));
	p = map(self->npu0, off, 16 * PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, p[5 * PAGE]);
	munmap(p, 16 * PAGE);
}

/* Stores through a peer window land in the exporter's own pages. */
TEST_F(mem, zero_copy_window)
{
	struct ubfab_seg_import imp;
	uint64_t off = 0;
	uint32_t tid = 0;
	char *own, *peer;

	ASSERT_EQ(0, mem_alloc(self->npu0, 8 * PAGE, &off));
	ASSERT_EQ(0, seg_export(self->npu0, off + PAGE, 4 * PAGE,
				UBFAB_SEG_READ | UBFAB_SEG_WRITE, 0x1234, &tid));
	EXPECT_LT(0, tid);
	EXPECT_GE(UBFAB_TOKEN_ID_MAX, tid);
	ASSERT_EQ(0, seg_import(self->npu1, 0, tid, 0x1234,
				UBFAB_SEG_READ | UBFAB_SEG_WRITE, &imp));
	EXPECT_EQ(4 * PAGE, imp.length);

	own = map(self->npu0, off, 8 * PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, own);
	peer = map(self->npu1, imp.mmap_offset, 4 * PAGE,
		   PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, peer);

	strcpy(peer, "from the peer");
	EXPECT_STREQ("from the peer", own + PAGE);
	strcpy(own + 4 * PAGE + 8, "from the owner");
	EXPECT_STREQ("from the owner", peer + 3 * PAGE + 8);

	/* A second importer sees the same pages. */
	ASSERT_EQ(0, seg_import(self->npu0, 0, tid, 0x1234, UBFAB_SEG_READ,
				&imp));
	{
		char *again = map(self->npu0, imp.mmap_offset, PAGE,
				  PROT_READ);

		ASSERT_NE(MAP_FAILED, again);
		EXPECT_STREQ("from the peer", again);
		munmap(again, PAGE);
	}
	munmap(peer, 4 * PAGE);
	munmap(own, 8 * PAGE);
}

TEST_F(mem, token_and_rights)
{
	struct ubfab_seg_import imp;
	struct ubfab_event ev;
	uint64_t off = 0;
	uint32_t tid = 0;
	char *p;

	ASSERT_EQ(0, mem_alloc(self->npu0, 4 * PAGE, &off));
	ASSERT_EQ(0, seg_export(self->npu0, off, 4 * PAGE, UBFAB_SEG_READ,
				77, &tid));

	/* Wrong value: refused, and the exporter hears of it. */
	EXPECT_EQ(-EACCES, seg_import(self->npu1, 0, tid, 78, UBFAB_SEG_READ,
				      NULL));
	ASSERT_EQ(0, next_event(self->npu0, &ev, 1000));
	EXPECT_EQ(UBFAB_EVENT_AUTH_FAILURE, ev.type);
	EXPECT_EQ(1, ev.eid);
	EXPECT_EQ(tid, ev.token_id);

	/* A right the segment does not grant. */
	EXPECT_EQ(-EACCES, seg_import(self->npu1, 0, tid, 77,
				      UBFAB_SEG_READ | UBFAB_SEG_WRITE, NULL));
	EXPECT_EQ(-EACCES, seg_import(self->npu1, 0, tid, 77,
				      UBFAB_SEG_ATOMIC, NULL));
	/* No such segment, entity, or malformed. */
	EXPECT_EQ(-ENOENT, seg_import(self->npu1, 0, tid + 1, 77,
				      UBFAB_SEG_READ, NULL));
	EXPECT_EQ(-ENODEV, seg_import(self->npu1, 99, tid, 77,
				      UBFAB_SEG_READ, NULL));
	EXPECT_EQ(-EINVAL, seg_import(self->npu1, 0, tid, 77, 0, NULL));
	EXPECT_EQ(-EINVAL, seg_import(self->npu1, 0, tid, 77, 8, NULL));

	/* Read-only: no writable mapping, no mprotect to writable. */
	ASSERT_EQ(0, seg_import(self->npu1, 0, tid, 77, UBFAB_SEG_READ, &imp));
	EXPECT_EQ(MAP_FAILED, map(self->npu1, imp.mmap_offset, PAGE,
				  PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	p = map(self->npu1, imp.mmap_offset, PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, PAGE);

	/* Beyond the segment, or private. */
	EXPECT_EQ(MAP_FAILED, map(self->npu1, imp.mmap_offset, 5 * PAGE,
				  PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map(self->npu1, imp.mmap_offset + 4 * PAGE,
				  PAGE, PROT_READ));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE,
				   self->npu1, imp.mmap_offset));
	EXPECT_EQ(EINVAL, errno);

	/* Export must stay within one allocation of the same file. */
	EXPECT_EQ(-EINVAL, seg_export(self->npu0, off, 5 * PAGE,
				      UBFAB_SEG_READ, 1, &tid));
	EXPECT_EQ(-EINVAL, seg_export(self->npu1, off, PAGE, UBFAB_SEG_READ,
				      1, &tid));
	EXPECT_EQ(-EINVAL, seg_export(self->npu0, off, PAGE, 0, 1, &tid));
	EXPECT_EQ(-EINVAL, seg_export(self->npu0, off + 1, PAGE,
				      UBFAB_SEG_READ, 1, &tid));
	EXPECT_EQ(-ENOENT, seg_unexport(self->npu1, tid));
}

/* After each kind of revocation: SIGBUS, an event with the reason. */
static void check_revoked(struct __test_metadata *_metadata, int importer,
			  char *p, uint32_t reason, uint32_t tid,
			  uint64_t mmap_offset)
{
	struct ubfab_event ev;
	char c;

	ASSERT_EQ(0, next_event(importer, &ev, 2000));
	EXPECT_EQ(UBFAB_EVENT_REVOKED, ev.type);
	EXPECT_EQ(reason, ev.reason);
	EXPECT_EQ(0, ev.eid);
	EXPECT_EQ(tid, ev.token_id);
	EXPECT_EQ(mmap_offset, ev.mmap_offset);
	EXPECT_EQ(-1, probe(p, &c));
	/* And the import can no longer be mapped. */
	EXPECT_EQ(MAP_FAILED, map(importer, mmap_offset, PAGE, PROT_READ));
	EXPECT_EQ(ENODEV, errno);
}

static char *import_and_touch(struct __test_metadata *_metadata, int exporter,
			      int importer, uint32_t *tid, uint64_t *moff,
			      uint64_t *off)
{
	struct ubfab_seg_import imp;
	char *p, c;

	if (mem_alloc(exporter, 2 * PAGE, off) ||
	    seg_export(exporter, *off, 2 * PAGE, UBFAB_SEG_READ, 5, tid) ||
	    seg_import(importer, 0, *tid, 5, UBFAB_SEG_READ, &imp))
		return NULL;
	*moff = imp.mmap_offset;
	p = map(importer, imp.mmap_offset, 2 * PAGE, PROT_READ);
	if (p == MAP_FAILED || probe(p, &c))
		return NULL;
	return p;
}

TEST_F(mem, revoke_on_unexport)
{
	uint64_t moff = 0, off = 0;
	uint32_t tid = 0;
	char *p = import_and_touch(_metadata, self->npu0, self->npu1, &tid,
				   &moff, &off);

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, seg_unexport(self->npu0, tid));
	check_revoked(_metadata, self->npu1, p, UBFAB_REVOKE_UNEXPORT, tid,
		      moff);
	EXPECT_EQ(-ENOENT, seg_unexport(self->npu0, tid));
	EXPECT_EQ(-ENOENT, seg_import(self->npu1, 0, tid, 5, UBFAB_SEG_READ,
				      NULL));
	munmap(p, 2 * PAGE);
}

TEST_F(mem, revoke_on_free)
{
	uint64_t moff = 0, off = 0;
	uint32_t tid = 0;
	char *p = import_and_touch(_metadata, self->npu0, self->npu1, &tid,
				   &moff, &off);

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mem_free(self->npu0, off));
	check_revoked(_metadata, self->npu1, p, UBFAB_REVOKE_FREE, tid, moff);
	munmap(p, 2 * PAGE);
}

TEST_F(mem, revoke_on_close)
{
	uint64_t moff = 0, off = 0;
	uint32_t tid = 0;
	char *p = import_and_touch(_metadata, self->npu0, self->npu1, &tid,
				   &moff, &off);

	ASSERT_NE(NULL, p);
	close(self->npu0);
	self->npu0 = dev_open("npu0");
	check_revoked(_metadata, self->npu1, p, UBFAB_REVOKE_CLOSE, tid, moff);
	munmap(p, 2 * PAGE);
}

/* The exporter is another process killed with SIGKILL. */
TEST_F(mem, revoke_on_kill)
{
	struct ubfab_seg_import imp;
	int pipefd[2];
	uint32_t tid = 0;
	pid_t pid;
	char *p, c;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = dev_open("cpu0");
		uint64_t off = 0;
		char *own;

		if (fd < 0 || mem_alloc(fd, PAGE, &off) ||
		    seg_export(fd, off, PAGE, UBFAB_SEG_READ, 9, &tid))
			_exit(1);
		own = map(fd, off, PAGE, PROT_READ | PROT_WRITE);
		if (own == MAP_FAILED)
			_exit(1);
		strcpy(own, "alive");
		if (write(pipefd[1], &tid, sizeof(tid)) != sizeof(tid))
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(tid), read(pipefd[0], &tid, sizeof(tid)));
	/* cpu0 is eid 2 in this shape. */
	ASSERT_EQ(0, seg_import(self->npu1, 2, tid, 9, UBFAB_SEG_READ, &imp));
	p = map(self->npu1, imp.mmap_offset, PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_STREQ("alive", p);

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	{
		struct ubfab_event ev;

		ASSERT_EQ(0, next_event(self->npu1, &ev, 2000));
		EXPECT_EQ(UBFAB_EVENT_REVOKED, ev.type);
		EXPECT_EQ(UBFAB_REVOKE_CLOSE, ev.reason);
		EXPECT_EQ(2, ev.eid);
	}
	EXPECT_EQ(-1, probe(p, &c));
	munmap(p, PAGE);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* A peer keeps writing while the owner unexports: it gets SIGBUS, cleanly. */
TEST_F(mem, unexport_while_writing)
{
	struct ubfab_seg_import imp;
	uint64_t off = 0;
	uint32_t tid = 0;
	int status, ready[2];
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, mem_alloc(self->npu0, 16 * PAGE, &off));
	ASSERT_EQ(0, seg_export(self->npu0, off, 16 * PAGE,
				UBFAB_SEG_READ | UBFAB_SEG_WRITE, 3, &tid));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		volatile char *p;
		unsigned long i;

		if (seg_import(self->npu1, 0, tid, 3,
			       UBFAB_SEG_READ | UBFAB_SEG_WRITE, &imp))
			_exit(1);
		p = map(self->npu1, imp.mmap_offset, 16 * PAGE,
			PROT_READ | PROT_WRITE);
		if (p == MAP_FAILED)
			_exit(1);
		signal(SIGBUS, SIG_DFL);
		/* A full pass over the window, then tell the parent. */
		for (i = 0; i < 16 * PAGE / 64; i++)
			p[i * 64] = (char)i;
		if (write(ready[1], "w", 1) != 1)
			_exit(1);
		for (;; i++)
			p[(i * 64) % (16 * PAGE)] = (char)i;
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	ASSERT_EQ(0, seg_unexport(self->npu0, tid));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGBUS, WTERMSIG(status));
}

/* Two processes on two entities trade data through each other's windows. */
TEST_F(mem, two_processes_exchange)
{
	struct ubfab_seg_import imp;
	int to_child[2], to_parent[2];
	uint32_t tid = 0, child_tid = 0;
	char *own, *peer;
	uint64_t off = 0;
	int status;
	pid_t pid;

	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, mem_alloc(self->npu0, PAGE, &off));
	ASSERT_EQ(0, seg_export(self->npu0, off, PAGE,
				UBFAB_SEG_READ | UBFAB_SEG_WRITE, 11, &tid));
	own = map(self->npu0, off, PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, own);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = dev_open("cpu0");
		uint64_t coff = 0;
		char *cown, *cpeer;

		if (fd < 0 || mem_alloc(fd, PAGE, &coff) ||
		    seg_export(fd, coff, PAGE, UBFAB_SEG_READ, 12,
			       &child_tid) ||
		    seg_import(fd, 0, tid, 11,
			       UBFAB_SEG_READ | UBFAB_SEG_WRITE, &imp))
			_exit(1);
		cown = map(fd, coff, PAGE, PROT_READ | PROT_WRITE);
		cpeer = map(fd, imp.mmap_offset, PAGE,
			    PROT_READ | PROT_WRITE);
		if (cown == MAP_FAILED || cpeer == MAP_FAILED)
			_exit(1);
		strcpy(cown, "cpu0 says hi");
		strcpy(cpeer, "written by cpu0");
		if (write(to_parent[1], &child_tid, 4) != 4 ||
		    read(to_child[0], &child_tid, 4) != 4)
			_exit(1);
		_exit(strcmp(cpeer, "npu0 answers") ? 2 : 0);
	}
	ASSERT_EQ(4, read(to_parent[0], &child_tid, 4));
	EXPECT_STREQ("written by cpu0", own);
	ASSERT_EQ(0, seg_import(self->npu1, 2, child_tid, 12, UBFAB_SEG_READ,
				&imp));
	peer = map(self->npu1, imp.mmap_offset, PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, peer);
	EXPECT_STREQ("cpu0 says hi", peer);
	strcpy(own, "npu0 answers");
	ASSERT_EQ(4, write(to_child[1], &child_tid, 4));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	munmap(peer, PAGE);
	munmap(own, PAGE);
}

/* A mapping pins the module even after its file is closed. */
TEST_F(mem, mapping_pins_module)
{
	uint64_t off = 0;
	char *p;
	int fd = dev_open("cpu0");

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, mem_alloc(fd, PAGE, &off));
	p = map(fd, off, PAGE, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	close(fd);
	close(self->npu0);
	close(self->npu1);
	p[0] = 1;
	EXPECT_EQ(-EWOULDBLOCK, ubfab_unload());
	munmap(p, PAGE);
	EXPECT_EQ(0, ubfab_unload());
	self->npu0 = -1;
	self->npu1 = -1;
}

/*
 * Pages are charged to the allocating process's cgroup even when another
 * process touches them first, and leave it when the range is freed.
 */
TEST_F(mem, charged_to_allocator)
{
	const uint64_t len = 1024 * PAGE;	/* 4 MiB */
	int to_child[2], to_parent[2];
	uint64_t before, touched, off = 0;
	struct ubfab_seg_import imp;
	uint32_t tid = 0;
	int status;
	pid_t pid;
	char *p;

	if (cgroup_make("ubfab_a") || cgroup_make("ubfab_b"))
		SKIP(return, "no cgroup2 memory controller");
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Once in ubfab_a: allocate and export, touch nothing. */
		int fd = dev_open("cpu0");

		if (fd < 0 || read(to_child[0], &tid, 4) != 4 ||
		    mem_alloc(fd, len, &off) ||
		    seg_export(fd, off, len, UBFAB_SEG_READ | UBFAB_SEG_WRITE,
			       1, &tid) ||
		    write(to_parent[1], &tid, 4) != 4 ||
		    read(to_child[0], &tid, 4) != 4 ||
		    mem_free(fd, off) ||
		    write(to_parent[1], &tid, 4) != 4 ||
		    read(to_child[0], &tid, 4) != 4)
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(0, cgroup_enter("ubfab_a", pid));
	ASSERT_EQ(0, cgroup_enter("ubfab_b", getpid()));
	ASSERT_EQ(4, write(to_child[1], &tid, 4));
	ASSERT_EQ(4, read(to_parent[0], &tid, 4));

	/* This process, in ubfab_b, touches every page first. */
	before = cgroup_current("ubfab_a");
	ASSERT_EQ(0, seg_import(self->npu1, 2, tid, 1,
				UBFAB_SEG_READ | UBFAB_SEG_WRITE, &imp));
	p = map(self->npu1, imp.mmap_offset, len, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 1, len);
	touched = cgroup_current("ubfab_a");
	EXPECT_LE(before + len, touched)
		TH_LOG("ubfab_a grew by %llu bytes, not %llu",
		       (unsigned long long)(touched - before),
		       (unsigned long long)len);

	/* Freed: the pages leave the cgroup. */
	ASSERT_EQ(4, write(to_child[1], &tid, 4));
	ASSERT_EQ(4, read(to_parent[0], &tid, 4));
	EXPECT_GT(before + len / 2, cgroup_current("ubfab_a"));
	munmap(p, len);
	ASSERT_EQ(4, write(to_child[1], &tid, 4));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	cgroup_enter("", getpid());
}

/* UBFAB_CMD_ENTITY_RESET over netlink: 0 or a negative libnl error. */
static int entity_reset(uint32_t eid)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_msg *msg = nlmsg_alloc();
	int family, ret = -1;

	if (!sk || !msg || genl_connect(sk))
		goto out;
	family = genl_ctrl_resolve(sk, UBFAB_GENL_NAME);
	if (family < 0)
		goto out;
	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
		    UBFAB_CMD_ENTITY_RESET, UBFAB_GENL_VERSION);
	nla_put_u32(msg, UBFAB_A_ENTITY_EID, eid);
	ret = nl_send_sync(sk, msg);
	msg = NULL;
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	return ret;
}

/* A reset frees the entity's memory: importers and owner both lose it. */
TEST_F(mem, revoke_on_reset)
{
	uint64_t moff = 0, off = 0, off2 = 0;
	struct ubfab_event ev;
	uint32_t tid = 0;
	char *own, c;
	char *p = import_and_touch(_metadata, self->npu0, self->npu1, &tid,
				   &moff, &off);

	ASSERT_NE(NULL, p);
	own = map(self->npu0, off, 2 * PAGE, PROT_READ);
	ASSERT_NE(MAP_FAILED, own);
	ASSERT_EQ(0, probe(own, &c));

	ASSERT_EQ(0, entity_reset(0));
	check_revoked(_metadata, self->npu1, p, UBFAB_REVOKE_RESET, tid, moff);
	ASSERT_EQ(0, next_event(self->npu0, &ev, 2000));
	EXPECT_EQ(UBFAB_EVENT_RESET, ev.type);
	EXPECT_EQ(0, ev.eid);
	EXPECT_EQ(off, ev.mmap_offset);
	EXPECT_EQ(-1, probe(own, &c));
	EXPECT_EQ(-ENOENT, mem_free(self->npu0, off));
	/* The file goes on: its entity's memory is all free again. */
	EXPECT_EQ(0, mem_alloc(self->npu0, 64 << 20, &off2));
	EXPECT_NE(0, entity_reset(1000));
	munmap(own, 2 * PAGE);
	munmap(p, 2 * PAGE);
}

TEST_F_TIMEOUT(mem, thousands_of_segments, UBFAB_TEST_SLOW)
{
	enum { N = 2000 };
	static uint32_t tids[N];
	struct ubfab_seg_import imp;
	uint64_t off = 0;
	char *p;
	int i;

	ASSERT_EQ(0, mem_alloc(self->npu0, N * PAGE, &off));
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, seg_export(self->npu0, off + i * PAGE, PAGE,
					UBFAB_SEG_READ, i, &tids[i]));
	for (i = 0; i < N; i += 97) {
		ASSERT_EQ(0, seg_import(self->npu1, 0, tids[i], i,
					UBFAB_SEG_READ, &imp));
		p = map(self->npu1, imp.mmap_offset, PAGE, PROT_READ);
		ASSERT_NE(MAP_FAILED, p);
		EXPECT_EQ(0, p[0]);
		munmap(p, PAGE);
	}
	for (i = 0; i < N; i += 2)
		ASSERT_EQ(0, seg_unexport(self->npu0, tids[i]));
	/* The rest go with the allocation. */
	ASSERT_EQ(0, mem_free(self->npu0, off));
	EXPECT_EQ(-ENOENT, seg_unexport(self->npu0, tids[1]));
}

/*
 * Owners publish segments on a shared board and revoke them every way they
 * can while importers on every entity import, map and read them. Whatever
 * an importer reads must be its owner's current fill pattern: a revoked
 * window gives SIGBUS or a refused import, never stale or foreign data.
 */
enum { CHURN_OWNERS = 4, CHURN_IMPORTERS = 4, CHURN_PAGES = 4 };

struct churn_slot {
	uint32_t seq;		/* odd while the owner rewrites the slot */
	uint32_t eid;
	uint32_t tid;
	uint32_t value;
	uint64_t sig;		/* every word of the segment holds this */
};

struct churn_board {
	struct churn_slot slot[CHURN_OWNERS];
	uint64_t verified;	/* pages read back whole and right */
	uint64_t revoked;	/* reads that got SIGBUS */
	uint64_t refused;	/* imports or mmaps of revoked segments */
	uint64_t bad;		/* anything else: must stay 0 */
	int stop;
};

static const char *const churn_names[] = { "npu0", "npu1", "cpu0" };

static void churn_publish(struct churn_slot *s, uint32_t eid, uint32_t tid,
			  uint32_t value, uint64_t sig)
{
	uint32_t seq = s->seq;

	__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->eid = eid;
	s->tid = tid;
	s->value = value;
	s->sig = sig;
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}

static bool churn_read(struct churn_slot *s, struct churn_slot *out)
{
	uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);

	if (!seq || seq & 1)
		return false;
	out->eid = s->eid;
	out->tid = s->tid;
	out->value = s->value;
	out->sig = s->sig;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq;
}

static void churn_count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static void churn_owner(struct churn_board *b, int k)
{
	uint32_t eid = k % 3, gen, tid, value;
	uint64_t off, sig, *p;
	size_t len = CHURN_PAGES * PAGE, i;
	int fd = -1;

	srand(k + 1);
	for (gen = 1; !__atomic_load_n(&b->stop, __ATOMIC_RELAXED); gen++) {
		if (fd < 0)
			fd = dev_open(churn_names[eid]);
		if (fd < 0 || mem_alloc(fd, len, &off))
			_exit(1);
		p = map(fd, off, len, PROT_READ | PROT_WRITE);
		if (p == MAP_FAILED)
			_exit(1);
		sig = (uint64_t)(k + 1) << 56 | gen;
		for (i = 0; i < len / 8; i++)
			p[i] = sig;
		value = (uint32_t)k << 28 ^ gen * 2654435761u;
		if (seg_export(fd, off, len, UBFAB_SEG_READ, value, &tid))
			_exit(1);
		churn_publish(&b->slot[k], eid, tid, value, sig);
		usleep(rand() % 2000);
		munmap(p, len);
		switch (rand() % 4) {
		case 0:
			if (seg_unexport(fd, tid))
				_exit(1);
			/* fall through */
		case 1:
			if (mem_free(fd, off))
				_exit(1);
			break;
		case 2:
			close(fd);
			fd = -1;
			break;
		default:
			if (seg_unexport(fd, tid))
				_exit(1);
			usleep(rand() % 1000);
			if (mem_free(fd, off))
				_exit(1);
		}
	}
	_exit(0);
}

static sigjmp_buf churn_env;

static void churn_sigbus(int sig)
{
	siglongjmp(churn_env, 1);
}

static void churn_importer(struct churn_board *b, int j)
{
	struct sigaction sa = { .sa_handler = churn_sigbus };
	struct ubfab_seg_unimport u = { .size = sizeof(u) };
	size_t len = CHURN_PAGES * PAGE;
	struct ubfab_seg_import imp;
	struct churn_slot s;
	volatile uint64_t *p;
	int fd, err;
	size_t i;

	fd = dev_open(churn_names[j % 3]);
	if (fd < 0)
		_exit(1);
	sigaction(SIGBUS, &sa, NULL);
	srand(100 + j);
	while (!__atomic_load_n(&b->stop, __ATOMIC_RELAXED)) {
		if (!churn_read(&b->slot[rand() % CHURN_OWNERS], &s))
			continue;
		err = seg_import(fd, s.eid, s.tid, s.value, UBFAB_SEG_READ,
				 &imp);
		if (err) {
			churn_count(err == -ENOENT || err == -EACCES ?
				    &b->refused : &b->bad);
			continue;
		}
		p = map(fd, imp.mmap_offset, len, PROT_READ);
		if (p == MAP_FAILED) {
			churn_count(errno == ENODEV ? &b->refused : &b->bad);
		} else {
			if (sigsetjmp(churn_env, 1)) {
				churn_count(&b->revoked);
			} else {
				for (i = 0; i < len / 8; i++) {
					if (p[i] != s.sig)
						break;
				}
				churn_count(i == len / 8 ? &b->verified :
					    &b->bad);
			}
			munmap((void *)p, len);
		}
		u.mmap_offset = imp.mmap_offset;
		if (ioctl(fd, UBFAB_IOCTL_SEG_UNIMPORT, &u))
			churn_count(&b->bad);
	}
	_exit(0);
}

TEST_F(mem, concurrent_churn)
{
	pid_t pids[CHURN_OWNERS + CHURN_IMPORTERS];
	struct churn_board *b;
	int i, status;

	b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, b);
	for (i = 0; i < CHURN_OWNERS + CHURN_IMPORTERS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			if (i < CHURN_OWNERS)
				churn_owner(b, i);
			churn_importer(b, i - CHURN_OWNERS);
		}
	}
	/* 3 s, and on a slow guest until both outcomes were seen (60 s). */
	sleep(3);
	for (i = 0; i < 570 && !(__atomic_load_n(&b->verified,
						 __ATOMIC_RELAXED) &&
				 __atomic_load_n(&b->revoked, __ATOMIC_RELAXED) +
				 __atomic_load_n(&b->refused, __ATOMIC_RELAXED));
	     i++)
		usleep(100 * 1000);
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < CHURN_OWNERS + CHURN_IMPORTERS; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	TH_LOG("verified %llu, SIGBUS %llu, refused %llu, bad %llu",
	       (unsigned long long)b->verified,
	       (unsigned long long)b->revoked,
	       (unsigned long long)b->refused, (unsigned long long)b->bad);
	EXPECT_EQ(0, b->bad);
	EXPECT_LT(0, b->verified);
	EXPECT_LT(0, b->revoked + b->refused);
	munmap(b, sizeof(*b));

	/* Nothing is left behind: the module goes once the fixture's go. */
	close(self->npu0);
	close(self->npu1);
	self->npu0 = self->npu1 = -1;
	EXPECT_EQ(0, ubfab_unload());
}

TEST_F(mem, ioctl_abi)
{
	struct {
		struct ubfab_mem_alloc a;
		uint64_t tail;
	} big = { { .size = sizeof(big), .length = PAGE }, 0 };
	struct ubfab_mem_alloc a = { .size = sizeof(a), .length = PAGE };
	struct ubfab_event ev;
	char small[4];

	EXPECT_EQ(-1, ioctl(self->npu0, _IO(UBFAB_IOCTL_TYPE, 0x7f), &a));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->npu0, UBFAB_IOCTL_MEM_ALLOC, NULL));
	EXPECT_EQ(EFAULT, errno);
	a.size = 8;
	EXPECT_EQ(-1, ioctl(self->npu0, UBFAB_IOCTL_MEM_ALLOC, &a));
	EXPECT_EQ(EINVAL, errno);
	/* Larger than known: fine if the tail is zero, E2BIG if not. */
	EXPECT_EQ(0, ioctl(self->npu0, UBFAB_IOCTL_MEM_ALLOC, &big));
	big.tail = 1;
	EXPECT_EQ(-1, ioctl(self->npu0, UBFAB_IOCTL_MEM_ALLOC, &big));
	EXPECT_EQ(E2BIG, errno);

	/* Events: whole ones only; nothing waiting means EAGAIN. */
	EXPECT_EQ(-1, read(self->npu0, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	fcntl(self->npu0, F_SETFL, O_NONBLOCK);
	EXPECT_EQ(-1, read(self->npu0, &ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_HARNESS_MAIN

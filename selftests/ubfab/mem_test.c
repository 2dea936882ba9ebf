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
	int status;
	pid_t pid;

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
		for (i = 0;; i++)
			p[(i * 64) % (16 * PAGE)] = (char)i;
	}
	usleep(200 * 1000);
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

#define CGROOT "/sys/fs/cgroup"

/* A fresh memory cgroup: 0, or -1 when the kernel has no cgroup2/memcg. */
static int cgroup_make(const char *name)
{
	char path[128];
	int fd;

	if (access(CGROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CGROOT, "cgroup2", 0, NULL))
		return -1;
	fd = open(CGROOT "/cgroup.subtree_control", O_WRONLY);
	if (fd < 0 || write(fd, "+memory", 7) != 7) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(path, sizeof(path), CGROOT "/%s", name);
	rmdir(path);
	return mkdir(path, 0755);
}

static int cgroup_enter(const char *name, pid_t pid)
{
	char path[128], buf[32];
	int fd, len, ret;

	snprintf(path, sizeof(path), CGROOT "/%s/cgroup.procs", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d", pid);
	ret = write(fd, buf, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

static uint64_t cgroup_current(const char *name)
{
	char path[128];
	uint64_t val = 0;

	snprintf(path, sizeof(path), CGROOT "/%s/memory.current", name);
	read_u64(path, &val);
	return val;
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

// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's descriptor family: opening entity devices by name (and
 * names that are none, with random flags), through device nodes with
 * chosen minors (in range and beyond), and again through /proc, this
 * process's or another worker's; closing and duplicating descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "family.h"

/* Minors of the device nodes fd_run_start() makes: in range and beyond. */
enum { MINOR_FIRST, MINOR_LAST, MINOR_END, MINOR_PAST, MINOR_MAX, NR_MINORS };

static uint32_t node_minor(const struct fuzz_model *m, unsigned int which)
{
	switch (which) {
	case MINOR_FIRST:
		return minor(m->devt0);
	case MINOR_LAST:
		return minor(m->devt0) + m->nr_entities - 1;
	case MINOR_END:
		return minor(m->devt0) + m->nr_entities;
	case MINOR_PAST:
		return minor(m->devt0) + m->nr_entities + 1;
	default:
		return (1U << 20) - 1;
	}
}

/*
 * Names under /dev/ubfab/ that are not entities, with the error opening
 * them gives.
 */
static const struct {
	const char *name;
	int err;
} bad_names[] = {
	{ "npu-1", ENOENT }, { "npu4294967296", ENOENT }, { "npu01", ENOENT },
	{ "NPU0", ENOENT }, { "cpu", ENOENT }, { "npu", ENOENT },
	{ "gpu0", ENOENT }, { "npu0 ", ENOENT }, { "npu0/", ENOTDIR },
	{ "npu0/..", ENOTDIR }, { "cpu0/eid", ENOTDIR },
};

static void gen_open(struct rng *r, const struct fuzz_model *m, struct op *op)
{
	static const int extra[] = {
		O_CLOEXEC, O_APPEND, O_NOCTTY, O_SYNC, O_TRUNC,
		O_EXCL, O_NOATIME, O_ASYNC, O_NOFOLLOW, O_LARGEFILE, O_DSYNC,
	};
	/* Mostly O_RDWR; 3 is neither read nor write. */
	static const int modes[] = { O_RDWR, O_RDWR, O_RDWR, O_RDWR, O_RDWR,
				     O_RDONLY, O_WRONLY, 3 };
	/* Reads of events must never block. */
	uint64_t flags = rng_pick(r, modes) | O_NONBLOCK;
	uint32_t n;
	int i;

	for (i = rng_below(r, 4); i > 0; i--)
		flags |= rng_pick(r, extra);
	if (rng_chance(r, 5))
		flags |= O_DIRECT;	/* the driver opens, the VFS refuses */
	if (rng_chance(r, 3))
		flags |= O_DIRECTORY;
	if (rng_chance(r, 10))
		flags |= O_PATH;
	op->a[0] = flags;
	op->a[1] = 0;
	n = rng_below(r, 10);
	if (n < 7) {
		/* An entity, by its kind's name and index. */
		n = rng_below(r, m->nr_entities);
		snprintf(op->path, sizeof(op->path), "/dev/ubfab/%s",
			 m->entities[n].name);
		op->a[2] = n;
	} else if (n < 8) {
		/* Just past the last NPU die or CPU. */
		if (rng_chance(r, 50))
			snprintf(op->path, sizeof(op->path),
				 "/dev/ubfab/npu%u", m->fabric.npus);
		else
			snprintf(op->path, sizeof(op->path),
				 "/dev/ubfab/cpu%u", m->fabric.cpus);
		op->a[1] = ENOENT;
	} else if (n < 9) {
		n = rng_below(r, ARRAY_SIZE(bad_names));
		snprintf(op->path, sizeof(op->path), "/dev/ubfab/%s",
			 bad_names[n].name);
		op->a[1] = bad_names[n].err;
	} else {
		/* One path component longer than NAME_MAX. */
		memset(op->path, 'n', sizeof(op->path) - 1);
		memcpy(op->path, "/dev/ubfab/", 11);
		op->path[11 + 300] = '\0';
		op->a[1] = ENAMETOOLONG;
	}
}

/* Makes the device nodes of node_minor() in the run's directory. */
static int fd_run_start(const struct fuzz_config *cfg,
			const struct fuzz_model *m)
{
	char path[128];
	unsigned int i;

	for (i = 0; i < NR_MINORS; i++) {
		snprintf(path, sizeof(path), "%s/m%u", fuzz_run_dir(), i);
		if (mknod(path, S_IFCHR | 0600,
			  makedev(major(m->devt0), node_minor(m, i))))
			return -errno;
	}
	return 0;
}

static void run_open(struct worker *w, const struct op *op)
{
	struct slot *s = &w->slots[op->slot];
	int flags = op->a[0], want = op->a[1], fd;

	if (!want && (flags & O_DIRECTORY))
		want = ENOTDIR;
	else if (!want && (flags & O_DIRECT) && !(flags & O_PATH))
		want = EINVAL;
	fd = open(op->path, flags);
	if (!fuzz_expect(w, "open", fd, errno, want) || fd < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (check_device(w, fd, op->a[2]))
		slot_set(w, s, fd, flags & O_PATH ? SLOT_PATH : SLOT_DEV,
			 op->a[2], flags & O_ACCMODE);
	else
		close(fd);
}

/* a[0]: which node (MINOR_*), a[1]: access mode. */
static void run_mknod_open(struct worker *w, const struct op *op)
{
	const struct fuzz_model *m = w->model;
	unsigned int which = op->a[0] % NR_MINORS;
	int accmode = op->a[1] % 3, fd;
	long eid = (long)node_minor(m, which) - minor(m->devt0);
	char path[128];

	snprintf(path, sizeof(path), "%s/m%u", fuzz_run_dir(), which);
	fd = open(path, accmode | O_CLOEXEC | O_NONBLOCK);
	if (!fuzz_expect(w, "open", fd, errno,
		    eid < m->nr_entities ? 0 : ENXIO) || fd < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (check_device(w, fd, eid))
		slot_set(w, &w->slots[op->slot], fd, SLOT_DEV, eid, accmode);
	else
		close(fd);
}

/*
 * Opens a descriptor again through /proc: one of this process's own (a[0]
 * % 4 < 3) or any descriptor of any worker (a[2], a[3]), which is whatever
 * that worker holds at the time. a[1]: access mode.
 */
static void run_reopen(struct worker *w, const struct op *op)
{
	/* Whatever that is: a socket, a pidfd, an epoll instance... */
	static const int foreign[] = {
		ENOENT, ENXIO, EACCES, EPERM, ENOTDIR, EINVAL, EISDIR, ENODEV,
		ELOOP, EOPNOTSUPP, 0
	};
	const struct slot *src = &w->slots[op->slot];
	int accmode = op->a[1] % 3, fd, err, want = 0;
	bool own = op->a[0] % 4 < 3;
	char path[64];
	struct stat st;
	long eid;

	if (own) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", slot_fd(src));
		if (src->kind == SLOT_EMPTY)
			want = ENOENT;
		else if (src->kind == SLOT_NL)
			want = ENXIO;
	} else {
		snprintf(path, sizeof(path), "/proc/%d/fd/%llu",
			 fuzz_peer_pid(op->a[2]),
			 3 + (unsigned long long)op->a[3] % 40);
	}
	fd = open(path, accmode | O_CLOEXEC | O_NONBLOCK);
	err = errno;
	if (own && !fuzz_expect(w, "open", fd, err, want)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (!own && fd < 0) {
		fuzz_expect_set(w, "open", fd, err, foreign);
		return;
	}
	if (fd < 0)
		return;
	if (!own)
		fuzz_count(w, 0);
	if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	    (eid = eid_of_rdev(w->model, st.st_rdev)) >= 0) {
		slot_set(w, &w->slots[op->slot2], fd, SLOT_DEV, eid, accmode);
		return;
	}
	if (own)
		fuzz_fail(w, "reopening a device gave something else");
	close(fd);
}

static void run_close(struct worker *w, const struct op *op)
{
	struct slot *s = &w->slots[op->slot];
	int ret = close(slot_fd(s));

	fuzz_expect(w, "close", ret, errno,
		    s->kind == SLOT_EMPTY ? EBADF : 0);
	s->fd = -1;
	slot_clear(s);
}

/*
 * dup(), dup2(), dup3() or F_DUPFD_CLOEXEC (a[0] % 4) of slot into slot2;
 * a[1]: F_DUPFD's lowest descriptor.
 */
static void run_dup(struct worker *w, const struct op *op)
{
	static const long mins[] = { 0, 3, 100, 1023, 1024, 65536, INT32_MAX,
				     -1 };
	struct slot *src = &w->slots[op->slot], *dst = &w->slots[op->slot2];
	int fd = slot_fd(src), variant = op->a[0] % 4, nfd, err, want = 0;
	bool onto = variant == 1 || variant == 2;
	long min = mins[op->a[1] % ARRAY_SIZE(mins)];
	struct rlimit lim;

	if (onto && dst->kind == SLOT_EMPTY) {
		variant = 0;
		onto = false;
	}
	switch (variant) {
	case 0:
		nfd = dup(fd);
		err = errno;
		break;
	case 1:
		nfd = dup2(fd, dst->fd);
		err = errno;
		break;
	case 2:
		nfd = dup3(fd, dst->fd, O_CLOEXEC);
		err = errno;
		if (fd >= 0 && fd == dst->fd)
			want = EINVAL;
		break;
	default:
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, min);
		err = errno;
		getrlimit(RLIMIT_NOFILE, &lim);
		if (min < 0 || (unsigned long)min >= lim.rlim_cur)
			want = EINVAL;
		else if (nfd < 0 && err == EMFILE)
			want = EMFILE;	/* every descriptor from min is taken */
		break;
	}
	if (fd < 0)
		want = EBADF;
	if (!fuzz_expect(w, "dup", nfd, err, want) || nfd < 0) {
		if (nfd >= 0 && !onto)
			close(nfd);
		return;
	}
	if (src == dst)
		return;
	if (onto)
		dst->fd = -1;	/* dup2() closed it */
	slot_clear(dst);
	*dst = *src;
	dst->fd = nfd;
	if (src->kind == SLOT_NL)
		src->stale = dst->stale = true;	/* one socket, two slots */
}
static void describe_open(const struct op *op, char *buf, size_t len)
{
	snprintf(buf, len, " \"%s\" flags %#llx", op->path,
		 (unsigned long long)op->a[0]);
}

static const struct fuzz_op_type fd_ops[] = {
	{ "open", 14, gen_open, run_open, describe_open },
	FUZZ_OP("mknod-open", 2, NULL, run_mknod_open),
	FUZZ_OP("reopen", 3, NULL, run_reopen),
	FUZZ_OP("close", 4, NULL, run_close),
	FUZZ_OP("dup", 4, NULL, run_dup),
};

const struct fuzz_family fuzz_fd_family = {
	.name = "entity device descriptors",
	.ops = fd_ops,
	.nr_ops = ARRAY_SIZE(fd_ops),
	.run_start = fd_run_start,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's file operations family: read and write (plain, positional,
 * vectored, with flags), poll, ppoll, select, epoll, lseek, fstat, statx
 * and fcntl of whatever a slot holds: an entity device reads whole
 * events (checked here), never blocks and cannot be written.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include "family.h"

/* The end of the user address space (x86-64, 4-level page tables). */
#define USER_END	0x7ffffffff000UL

static const uint64_t pos_edges[] = {
	0, 1, PAGE, 1ULL << 40, INT64_MAX, (uint64_t)-1, (uint64_t)-2,
	(uint64_t)INT64_MIN,
};

/* read and write: a[0] variant, a[1] length, a[2] buffer, a[3] position. */
static void gen_rw(struct rng *r, const struct fuzz_model *m, struct op *op)
{
	static const uint64_t lens[] = {
		0, 1, 8, PAGE, 1 << 20, 0x7ffff000, SIZE_MAX,
	};
	static const uint64_t iovcnts[] = { 0, 1, 2, 1024, 1025 };

	op->a[0] = rng_below(r, 4);
	op->a[1] = rng_pick(r, lens);
	op->a[2] = rng_below(r, ARG_ALL_ONES + 1);
	op->a[3] = rng_pick(r, pos_edges);
	op->a[4] = rng_pick(r, iovcnts);
	op->a[5] = rng_below(r, 64);	/* RWF_* bits */
}

static struct iovec iovs[1025];

/* Checks n bytes of events read from a device. */
static void check_events(struct worker *w, const void *buf, size_t n)
{
	const struct ubfab_event *ev = buf;
	size_t i;

	if (n % sizeof(*ev)) {
		fuzz_fail(w, "read %zu bytes: not whole events", n);
		return;
	}
	for (i = 0; i < n / sizeof(*ev); i++, ev++) {
		switch (ev->type) {
		case UBFAB_EVENT_REVOKED:
			if (ev->reason < UBFAB_REVOKE_UNEXPORT ||
			    ev->reason > UBFAB_REVOKE_RESET ||
			    ev->eid >= w->model->nr_entities ||
			    !ev->token_id || ev->mmap_offset % PAGE)
				break;
			continue;
		case UBFAB_EVENT_AUTH_FAILURE:
			if (ev->reason || ev->eid >= w->model->nr_entities ||
			    !ev->token_id || ev->mmap_offset)
				break;
			continue;
		case UBFAB_EVENT_OVERFLOW:
			if (ev->reason || !ev->mmap_offset)
				break;
			continue;
		case UBFAB_EVENT_RESET:
			if (ev->reason || ev->eid >= w->model->nr_entities ||
			    ev->token_id || ev->mmap_offset % PAGE)
				break;
			continue;
		default:
			break;
		}
		fuzz_fail(w, "event %zu: type %u reason %u eid %u token %u offset %#llx",
			  i, ev->type, ev->reason, ev->eid, ev->token_id,
			  (unsigned long long)ev->mmap_offset);
		return;
	}
}

/*
 * read or write: a[0] plain, positional, vectored or positional vectored
 * with flags (preadv2); a[1] length; a[2] buffer (ARG_*); a[3] position;
 * a[4] vector entries; a[5] RWF_* flags. A device reads whole events (every
 * file is nonblocking) and cannot be written.
 */
static void run_rw(struct worker *w, const struct op *op, bool rd)
{
	static const int vectored[] = { FUZZ_OK, EBADF, EINVAL, EFAULT,
					EOPNOTSUPP, ESPIPE, EAGAIN, 0 };
	static const int events[] = { FUZZ_OK, EAGAIN, EFAULT, 0 };
	const struct slot *s = &w->slots[op->slot];
	int fd = slot_fd(s), variant = op->a[0], want;
	size_t len = op->a[1], cnt = op->a[4], i;
	void *buf = fuzz_arg_pointer(w, op->a[2], 0);
	off_t pos = op->a[3];
	long ret;

	if (s->kind == SLOT_NL)
		return fuzz_skip(w);
	if (buf == fuzz_iobuf && len > sizeof(fuzz_iobuf))
		len = sizeof(fuzz_iobuf);
	for (i = 0; i < cnt; i++) {
		iovs[i].iov_base = buf;
		iovs[i].iov_len = len / cnt;
	}
	switch (variant) {
	case 0:
		ret = rd ? read(fd, buf, len) : write(fd, buf, len);
		break;
	case 1:
		ret = rd ? pread(fd, buf, len, pos) : pwrite(fd, buf, len, pos);
		break;
	case 2:
		ret = rd ? readv(fd, iovs, cnt) : writev(fd, iovs, cnt);
		break;
	default:
		ret = rd ? preadv2(fd, iovs, cnt, pos, op->a[5]) :
			   pwritev2(fd, iovs, cnt, pos, op->a[5]);
		break;
	}
	if (variant == 1 && pos < 0)
		want = EINVAL;
	else if (variant == 3 && pos < -1)
		want = EINVAL;
	else if (s->kind != SLOT_DEV)
		want = EBADF;
	else if (variant == 1 || (variant == 3 && pos >= 0))
		want = ESPIPE;
	else if (variant != 0)
		want = -1;	/* 6.1 checks the vector before the mode */
	else if (rd ? !slot_readable(s) : !slot_writable(s))
		want = EBADF;
	else if (!rd)
		want = EINVAL;	/* no write */
	else if ((uintptr_t)buf + len < (uintptr_t)buf ||
		 (uintptr_t)buf + len > USER_END)
		want = EFAULT;	/* access_ok() */
	else if (len < sizeof(struct ubfab_event))
		want = EINVAL;	/* a read takes whole events */
	else
		want = -2;
	if (want == -1) {
		fuzz_expect_set(w, rd ? "readv" : "writev", ret, errno,
				vectored);
	} else if (want == -2) {
		if (fuzz_expect_set(w, "read", ret, errno, events) &&
		    ret >= 0 && buf == fuzz_iobuf)
			check_events(w, buf, ret);
	} else {
		fuzz_expect(w, rd ? "read" : "write", ret, errno, want);
	}
}

/*
 * poll, ppoll or select (a[0] % 3) for the events in a[1]. A device is
 * readable while events wait, never writable.
 */
static void run_poll(struct worker *w, const struct op *op)
{
	const struct slot *s = &w->slots[op->slot];
	struct pollfd pfd = { .fd = slot_fd(s), .events = op->a[1] };
	struct timespec zero = { 0 };
	fd_set sets[3];
	int i, ret;
	short may;

	if (op->a[0] % 3 == 2) {
		if (s->kind == SLOT_EMPTY)
			return fuzz_skip(w);
		for (i = 0; i < 3; i++) {
			FD_ZERO(&sets[i]);
			if (op->a[1] & (1 << i))
				FD_SET(s->fd, &sets[i]);
		}
		ret = pselect(s->fd + 1, &sets[0], &sets[1], &sets[2], &zero,
			      NULL);
		if (!fuzz_expect(w, "select", ret, errno, 0) ||
		    s->kind == SLOT_NL)
			return;
		/*
		 * O_PATH, which select cannot poll: in every set asked for
		 * (6.12 counts POLLNVAL in each) or in none. A device:
		 * readable at most.
		 */
		if (s->kind == SLOT_PATH ?
		    ret && ret != __builtin_popcountll(op->a[1] & 7) :
		    FD_ISSET(s->fd, &sets[1]) || FD_ISSET(s->fd, &sets[2]) ||
		    ret != FD_ISSET(s->fd, &sets[0]))
			fuzz_fail(w, "select of a device: %d ready, writable %d, exceptional %d",
				  ret, FD_ISSET(s->fd, &sets[1]),
				  FD_ISSET(s->fd, &sets[2]));
		return;
	}
	ret = op->a[0] % 3 ? ppoll(&pfd, 1, &zero, NULL) : poll(&pfd, 1, 0);
	if (!fuzz_expect(w, "poll", ret, errno, 0))
		return;
	switch (s->kind) {
	case SLOT_NL:
		may = pfd.events | POLLERR | POLLHUP;
		break;
	case SLOT_DEV:
		may = pfd.events & (POLLIN | POLLRDNORM);
		break;
	case SLOT_PATH:
		may = POLLNVAL;
		break;
	default:
		may = 0;
		break;
	}
	if ((pfd.revents & ~may) || ret != !!pfd.revents ||
	    (s->kind == SLOT_PATH && pfd.revents != POLLNVAL))
		fuzz_fail(w, "poll returned %d, revents %#x for events %#x",
			  ret, pfd.revents, pfd.events);
}

/* epoll_ctl(EPOLL_CTL_ADD) with the events in a[0], then epoll_wait(). */
static void run_epoll(struct worker *w, const struct op *op)
{
	const struct slot *s = &w->slots[op->slot];
	struct epoll_event ev = { .events = op->a[0] }, out[4];
	int ep = epoll_create1(EPOLL_CLOEXEC), ret, want;

	if (ep < 0) {
		fuzz_fail(w, "epoll_create1: %s", fuzz_errname(errno));
		return;
	}
	ret = epoll_ctl(ep, EPOLL_CTL_ADD, slot_fd(s), &ev);
	if (s->kind == SLOT_EMPTY || s->kind == SLOT_PATH)
		want = EBADF;
	else
		want = (ev.events & EPOLLEXCLUSIVE) &&
		       (ev.events & ~(EPOLLEXCLUSIVE | EPOLLIN | EPOLLOUT |
				      EPOLLERR | EPOLLHUP | EPOLLWAKEUP |
				      EPOLLET)) ? EINVAL : 0;
	if (fuzz_expect(w, "epoll_ctl", ret, errno, want) && !ret &&
	    epoll_wait(ep, out, 4, 0) < 0)
		fuzz_fail(w, "epoll_wait: %s", fuzz_errname(errno));
	close(ep);
}

/* a[0] whence (0-7), a[1] offset. */
static void run_lseek(struct worker *w, const struct op *op)
{
	const struct slot *s = &w->slots[op->slot];
	int whence = op->a[0] % 8, want;
	off_t ret;

	ret = lseek(slot_fd(s), pos_edges[op->a[1] % ARRAY_SIZE(pos_edges)],
		    whence);
	if (s->kind == SLOT_EMPTY || s->kind == SLOT_PATH)
		want = EBADF;
	else if (whence > SEEK_HOLE)
		want = EINVAL;
	else
		want = ESPIPE;	/* opened nonseekable; sockets never seek */
	fuzz_expect(w, "lseek", ret, errno, want);
}

/* fstat() or statx(AT_EMPTY_PATH) (a[0] & 1). */
static void run_fstat(struct worker *w, const struct op *op)
{
	const struct slot *s = &w->slots[op->slot];
	struct statx stx;
	struct stat st;
	int ret;

	if (op->a[0] & 1) {
		ret = statx(slot_fd(s), "", AT_EMPTY_PATH, STATX_BASIC_STATS,
			    &stx);
		st.st_mode = stx.stx_mode;
		st.st_rdev = makedev(stx.stx_rdev_major, stx.stx_rdev_minor);
	} else {
		ret = fstat(slot_fd(s), &st);
	}
	if (!fuzz_expect(w, "fstat", ret, errno, s->kind == SLOT_EMPTY ? EBADF : 0) ||
	    ret)
		return;
	if (s->kind == SLOT_NL ? !S_ISSOCK(st.st_mode) :
	    !S_ISCHR(st.st_mode) || eid_of_rdev(w->model, st.st_rdev) != s->eid)
		fuzz_fail(w, "fstat: mode %o rdev %u:%u for slot of EID %u",
			  st.st_mode, major(st.st_rdev), minor(st.st_rdev),
			  s->eid);
}

/* F_GETFL, F_SETFL, F_GETFD or F_SETFD (a[0] % 4) with flags from a[1]. */
static void run_fcntl(struct worker *w, const struct op *op)
{
	static const int setfl[] = { O_APPEND, O_ASYNC, O_DIRECT, O_NOATIME };
	const struct slot *s = &w->slots[op->slot];
	int fd = slot_fd(s), arg = 0, ret, want = 0;
	unsigned int i;

	switch (op->a[0] % 4) {
	case 0:
		ret = fcntl(fd, F_GETFL);
		if (fuzz_expect(w, "fcntl", ret, errno, fd < 0 ? EBADF : 0) &&
		    s->kind != SLOT_NL && fd >= 0 &&
		    (s->kind == SLOT_PATH ? !(ret & O_PATH) :
		     (ret & O_ACCMODE) != s->accmode))
			fuzz_fail(w, "F_GETFL gave %#x for access mode %d", ret,
				  s->accmode);
		return;
	case 1:
		if (s->kind == SLOT_NL)
			return fuzz_skip(w);	/* would make its reads nonblocking */
		arg = O_NONBLOCK;	/* reads of events must never block */
		for (i = 0; i < ARRAY_SIZE(setfl); i++) {
			if (op->a[1] & (1 << i))
				arg |= setfl[i];
		}
		ret = fcntl(fd, F_SETFL, arg);
		if (fd < 0 || s->kind == SLOT_PATH)
			want = EBADF;
		else if (arg & O_DIRECT)
			want = EINVAL;
		break;
	case 2:
		ret = fcntl(fd, F_GETFD);
		want = fd < 0 ? EBADF : 0;
		break;
	default:
		ret = fcntl(fd, F_SETFD, (int)(op->a[1] & FD_CLOEXEC));
		want = fd < 0 ? EBADF : 0;
		break;
	}
	fuzz_expect(w, "fcntl", ret, errno, want);
}

static void run_read(struct worker *w, const struct op *op)
{
	run_rw(w, op, true);
}

static void run_write(struct worker *w, const struct op *op)
{
	run_rw(w, op, false);
}
static const struct fuzz_op_type io_ops[] = {
	FUZZ_OP("read", 5, gen_rw, run_read),
	FUZZ_OP("write", 3, gen_rw, run_write),
	FUZZ_OP("poll", 4, NULL, run_poll),
	FUZZ_OP("epoll", 2, NULL, run_epoll),
	FUZZ_OP("lseek", 3, NULL, run_lseek),
	FUZZ_OP("fstat", 3, NULL, run_fstat),
	FUZZ_OP("fcntl", 3, NULL, run_fcntl),
};

const struct fuzz_family fuzz_io_family = {
	.name = "file operations",
	.ops = io_ops,
	.nr_ops = ARRAY_SIZE(io_ops),
};

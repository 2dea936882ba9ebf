// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's process family: descriptors passed between workers
 * (SCM_RIGHTS through a mailbox per worker, pidfd_getfd() of whatever
 * another worker holds), processes spawned that inherit everything and
 * are killed or waited for, a thread closing a descriptor while another
 * uses it, and unloading the module while something holds it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/netlink.h>

#include "family.h"

/* Operations of a process a worker spawns: at most this many. */
#define CHILD_OPS	48

/*
 * The mailboxes workers pass descriptors through, made before the workers
 * fork: one socket pair per worker; none in a kernel without AF_UNIX, such
 * as the debug kernel.
 */
static bool have_mailboxes;
static int (*mailbox)[2];
static unsigned int nr_mailboxes;

/* Closes the mailboxes: descriptors still in them go with them. */
static void proc_run_end(void)
{
	unsigned int i;

	for (i = 0; mailbox && i < nr_mailboxes; i++) {
		if (mailbox[i][0] >= 0)
			close(mailbox[i][0]);
		if (mailbox[i][1] >= 0)
			close(mailbox[i][1]);
	}
	free(mailbox);
	mailbox = NULL;
}

static int proc_run_start(const struct fuzz_config *cfg,
			  const struct fuzz_model *m)
{
	unsigned int i;
	int ret;

	nr_mailboxes = cfg->workers;
	mailbox = calloc(cfg->workers, sizeof(*mailbox));
	if (!mailbox)
		return -ENOMEM;
	for (i = 0; i < cfg->workers; i++)
		mailbox[i][0] = mailbox[i][1] = -1;
	have_mailboxes = true;
	for (i = 0; have_mailboxes && i < cfg->workers; i++) {
		if (!socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0,
				mailbox[i]))
			continue;
		if (errno != EAFNOSUPPORT) {
			ret = -errno;
			goto close_mailboxes;
		}
		have_mailboxes = false;
		fuzz_say(cfg, "# fuzz: no AF_UNIX: descriptors pass by pidfd_getfd() only");
	}
	return 0;

close_mailboxes:
	proc_run_end();
	return ret;
}

/* What travels with a descriptor. */
struct fd_note {
	uint32_t kind;
	uint32_t eid;
	int32_t accmode;
};

/* Sends slot's descriptor to worker a[0]; a[1] % 4 == 0: then closes it. */
static void run_send_fd(struct worker *w, const struct op *op)
{
	static const int full[] = { EAGAIN, ENOBUFS, 0 };
	struct slot *s = &w->slots[op->slot];
	struct fd_note note = { s->kind, s->eid, s->accmode };
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &note, sizeof(note) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	int fd = slot_fd(s);
	long ret;

	if (!have_mailboxes)
		return fuzz_skip(w);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	ret = sendmsg(mailbox[op->a[0] % nr_mailboxes][1], &msg,
		      MSG_DONTWAIT);
	if (fd < 0) {
		fuzz_expect(w, "sendmsg", ret, errno, EBADF);
		return;
	}
	if (ret < 0) {
		fuzz_expect_set(w, "sendmsg", ret, errno, full);
		return;
	}
	fuzz_count(w, 0);
	if (s->kind == SLOT_NL)
		s->shared = true;
	if (op->a[1] % 4 == 0)
		slot_clear(s);
}

/*
 * Takes descriptor 3 + a[3] % 40 of worker a[2] with pidfd_getfd(), as it
 * is at that moment: an entity device is kept in slot and used like any;
 * anything else is closed (reading a netlink socket its owner reads would
 * take its answers).
 */
static void run_take_fd(struct worker *w, const struct op *op)
{
	static const int gone[] = { ESRCH, EINVAL, 0 };
	static const int none[] = { EBADF, ESRCH, EPERM, 0 };
	pid_t pid = fuzz_peer_pid(op->a[2]);
	int pidfd, fd, flags;
	struct stat st;
	long eid;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		fuzz_expect_set(w, "pidfd_open", pidfd, errno, gone);
		return;
	}
	fd = syscall(SYS_pidfd_getfd, pidfd, 3 + op->a[3] % 40, 0);
	close(pidfd);
	if (fd < 0) {
		fuzz_expect_set(w, "pidfd_getfd", fd, errno, none);
		return;
	}
	fuzz_count(w, 0);
	flags = fcntl(fd, F_GETFL);
	if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	    (eid = eid_of_rdev(w->model, st.st_rdev)) >= 0 && flags >= 0) {
		slot_set(w, &w->slots[op->slot], fd,
			 flags & O_PATH ? SLOT_PATH : SLOT_DEV, eid,
			 flags & O_ACCMODE);
		return;
	}
	close(fd);
}

/*
 * Takes a descriptor from this worker's mailbox into slot, or (a[1] % 2,
 * or without mailboxes) one of another worker's with pidfd_getfd().
 */
static void run_recv_fd(struct worker *w, const struct op *op)
{
	static const int empty[] = { EAGAIN, 0 };
	struct slot *s = &w->slots[op->slot];
	struct fd_note note;
	char ctl[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { &note, sizeof(note) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;
	socklen_t sl = sizeof(int);
	int fd, proto = 0;
	long ret;

	if (!have_mailboxes || op->a[1] % 2)
		return run_take_fd(w, op);
	ret = recvmsg(mailbox[w->index][0], &msg,
		      MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (ret < 0) {
		fuzz_expect_set(w, "recvmsg", ret, errno, empty);
		return;
	}
	fuzz_count(w, 0);
	cm = CMSG_FIRSTHDR(&msg);
	if (ret != sizeof(note) || (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) ||
	    !cm || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int))) {
		fuzz_fail(w, "recvmsg: %ld bytes, flags %#x, no single descriptor",
			  ret, msg.msg_flags);
		return;
	}
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	slot_clear(s);
	if (note.kind == SLOT_NL) {
		if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &sl) ||
		    proto != NETLINK_GENERIC) {
			close(fd);
			fuzz_fail(w, "received socket is not generic netlink");
			return;
		}
		slot_set(w, s, fd, SLOT_NL, 0, O_RDWR);
		s->shared = s->stale = true;
		return;
	}
	if (!check_device(w, fd, note.eid)) {
		close(fd);
		return;
	}
	slot_set(w, s, fd, note.kind, note.eid, note.accmode);
}

/*
 * Forks a process that inherits every descriptor and runs 1 to CHILD_OPS
 * operations of its own stream (a[0], a[1]; length a[2]), then exits with
 * them all open, unless a KILL gets it first.
 */
static void run_spawn(struct worker *w, const struct op *op)
{
	unsigned int i;
	pid_t pid;

	if (worker_is_child(w))
		return fuzz_skip(w);
	for (i = 0; i < FUZZ_CHILDREN && w->children[i]; i++)
		;
	if (i == FUZZ_CHILDREN)
		return fuzz_skip(w);
	pid = worker_spawn(w, op->a[0], op->a[1], 1 + op->a[2] % CHILD_OPS);
	if (pid < 0) {
		fuzz_fail(w, "fork: %s", fuzz_errname(-pid));
		return;
	}
	fuzz_count(w, 0);
}

/* SIGKILLs (kill) or waits for (reap) child a[0]. */
static void run_end_child(struct worker *w, const struct op *op, bool kill)
{
	unsigned int i = op->a[0] % FUZZ_CHILDREN;

	if (!w->children[i])
		return fuzz_skip(w);
	fuzz_count(w, 0);
	worker_reap(w, i, kill);
}

struct race {
	int fd;
	unsigned long spin;
};

static void *race_close(void *arg)
{
	struct race *r = arg;
	volatile unsigned long i;

	for (i = 0; i < r->spin; i++)
		;
	close(r->fd);
	return NULL;
}

/*
 * Duplicates a device descriptor, has a thread close the duplicate after
 * a[1] spins while this thread uses it (a[0]: poll, read, ioctl, fstat or
 * mmap): each call sees the device or EBADF, nothing else.
 */
static void run_race_close(struct worker *w, const struct op *op)
{
	static const int mapped[] = { FUZZ_OK, EINVAL, EACCES, ENODEV, EBADF,
				      0 };
	static const int short_read[] = { EINVAL, EBADF, 0 };
	static const int unknown[] = { ENOTTY, EBADF, 0 };
	static const int works[] = { FUZZ_OK, EBADF, 0 };
	const struct slot *s = &w->slots[op->slot];
	struct race r = { .spin = op->a[1] % 20000 };
	struct pollfd pfd = { .events = POLLIN };
	const int *set = works;
	pthread_t thread;
	struct stat st;
	int ret, err;
	void *p;

	if (s->kind != SLOT_DEV)
		return fuzz_skip(w);
	r.fd = dup(s->fd);
	if (r.fd < 0 || pthread_create(&thread, NULL, race_close, &r)) {
		fuzz_fail(w, "race set-up: %s", fuzz_errname(errno));
		if (r.fd >= 0)
			close(r.fd);
		return;
	}
	pfd.fd = r.fd;
	switch (op->a[0] % 5) {
	case 0:
		ret = poll(&pfd, 1, 0);
		err = errno;
		if (pfd.revents & ~(POLLIN | POLLNVAL))
			fuzz_fail(w, "poll while closing: revents %#x",
				  pfd.revents);
		break;
	case 1:
		ret = read(r.fd, fuzz_iobuf, 1);	/* shorter than an event */
		err = errno;
		set = short_read;
		break;
	case 2:
		ret = ioctl(r.fd, _IO('U', 0));
		err = errno;
		set = unknown;
		break;
	case 3:
		ret = fstat(r.fd, &st);
		err = errno;
		break;
	default:
		p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, r.fd, 0);
		ret = p == MAP_FAILED ? -1 : 0;
		err = errno;
		if (p != MAP_FAILED)
			munmap(p, PAGE);
		set = mapped;
		break;
	}
	pthread_join(thread, NULL);
	fuzz_expect_set(w, "call racing close", ret, err, set);
}

/*
 * With a device open, or a queue (which holds its entity's file, its
 * descriptor closed or not while its rings are mapped), the module cannot
 * be unloaded.
 */
static void run_unload_held(struct worker *w, const struct op *op)
{
	long ret;

	if (!slots_hold_device(w) && !queue_held(w))
		return fuzz_skip(w);
	ret = syscall(SYS_delete_module, "ubfab", O_NONBLOCK);
	fuzz_expect(w, "delete_module", ret, errno, EWOULDBLOCK);
}

static void run_kill(struct worker *w, const struct op *op)
{
	run_end_child(w, op, true);
}

static void run_reap(struct worker *w, const struct op *op)
{
	run_end_child(w, op, false);
}
static const struct fuzz_op_type proc_ops[] = {
	FUZZ_OP("send-fd", 3, NULL, run_send_fd),
	FUZZ_OP("recv-fd", 3, NULL, run_recv_fd),
	FUZZ_OP("spawn", 1, NULL, run_spawn),
	FUZZ_OP("kill", 1, NULL, run_kill),
	FUZZ_OP("reap", 1, NULL, run_reap),
	FUZZ_OP("race-close", 2, NULL, run_race_close),
	FUZZ_OP("unload-held", 1, NULL, run_unload_held),
};

const struct fuzz_family fuzz_proc_family = {
	.name = "processes",
	.ops = proc_ops,
	.nr_ops = ARRAY_SIZE(proc_ops),
	.run_start = proc_run_start,
	.run_end = proc_run_end,
};

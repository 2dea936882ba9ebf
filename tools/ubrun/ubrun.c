// SPDX-License-Identifier: GPL-2.0-only
/*
 * ubrun: starts a job of N ranks, each a process acting as one NPU die of
 * the fabric, for libubshmem (Documentation/shmem.rst). It places the
 * ranks (comm/place.c), runs their bootstrap rendezvous (rendezvous.c), sets
 * their environment, prefixes each line of their output with "[rank] ",
 * forwards SIGINT, SIGTERM and SIGHUP to them, ends the job when a rank
 * fails, and exits with the first nonzero status of a rank. This file
 * owns the command line, the processes and their output.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ubrun.h"

/* How long ranks get to end after SIGTERM before SIGKILL. */
#define KILL_GRACE_MS	2000
#define LINE_MAX_BYTES	65536

/* One output stream of a rank, and its line not yet complete. */
struct stream {
	int fd;			/* the pipe's read end, or -1 at EOF */
	int out;		/* ubrun's own: 1 or 2 */
	size_t used;
	char buf[LINE_MAX_BYTES];
};

struct rank {
	pid_t pid;		/* 0 once reaped */
	struct stream io[2];
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ubrun -n N [--placement=pack|spread|nodes:K|LIST] [--profile=P]\n"
		"             [--ordered] PROGRAM [ARG...]\n"
		"Starts N ranks of PROGRAM, each acting as one NPU die of the ubfab fabric,\n"
		"for libubshmem (Documentation/shmem.rst).\n"
		"  -n, --np N          number of ranks\n"
		"  -p, --placement P   pack: fill a node's dies first (default); spread:\n"
		"                      round-robin over the nodes; nodes:K: equal blocks\n"
		"                      on the first K nodes; or LIST: N entity names,\n"
		"                      comma-separated (npu0,npu16,...)\n"
		"  -P, --profile P     fail unless ubfab.ko was loaded with profile P\n"
		"  -o, --ordered       run the job in the fabric model's ordered domain\n"
		"                      (UBSHMEM_ORDERED=1): the same modeled times in\n"
		"                      every run\n"
		"  -h, --help          this help\n"
		"Each rank gets UBRUN_RANK, UBRUN_SIZE, UBRUN_LOCAL_RANK, UBRUN_LOCAL_SIZE,\n"
		"UBRUN_ENTITY, UBRUN_NODE and UBRUN_SOCK (the bootstrap socket). Output\n"
		"lines are prefixed with \"[rank] \". When a rank exits nonzero or is\n"
		"killed, the others get SIGTERM (SIGKILL %d ms later). Exit status: the\n"
		"first nonzero status of a rank (128 + signal for one killed), else 0;\n"
		"2 for a usage error, 1 when the job could not start. See ubrun(1).\n",
		KILL_GRACE_MS);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ubrun_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Write @len bytes of a line of rank @r to @out, prefixed. */
static void emit(int out, int r, const char *line, size_t len)
{
	char prefix[24];

	snprintf(prefix, sizeof(prefix), "[%d] ", r);
	ubrun_write_all(out, prefix, strlen(prefix));
	ubrun_write_all(out, line, len);
}

/* Read what the pipe holds; pass on each complete line, all at EOF. */
static void stream_read(struct stream *s, int r)
{
	ssize_t n = read(s->fd, s->buf + s->used, sizeof(s->buf) - s->used);
	char *nl;
	size_t len;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0)
		s->used += n;
	while ((nl = memchr(s->buf, '\n', s->used)) ||
	       s->used == sizeof(s->buf)) {
		len = nl ? (size_t)(nl - s->buf) + 1 : s->used;
		emit(s->out, r, s->buf, len);
		if (!nl)
			ubrun_write_all(s->out, "\n", 1);
		memmove(s->buf, s->buf + len, s->used - len);
		s->used -= len;
	}
	if (n <= 0) {
		if (s->used) {
			emit(s->out, r, s->buf, s->used);
			ubrun_write_all(s->out, "\n", 1);
		}
		close(s->fd);
		s->fd = -1;
	}
}

static void set_env_int(const char *name, long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%ld", v);
	setenv(name, buf, 1);
}

/*
 * The limit of open files ubrun was started with, which the ranks get
 * back: ubrun itself holds three a rank (its output, its errors, its
 * bootstrap connection), so it raises its own to the hard limit.
 */
static struct rlimit rank_nofile;
static bool nofile_raised;

/* Fork rank @r: its environment, its output into pipes, then @argv. */
static int spawn(struct rank *rk, int r, int n, const struct shm_slot *slot,
		 const char *sock, char **argv, const sigset_t *blocked)
{
	int out[2], err[2];
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		setpgid(0, 0);
		sigprocmask(SIG_UNBLOCK, blocked, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (nofile_raised)
			setrlimit(RLIMIT_NOFILE, &rank_nofile);
		dup2(out[1], 1);
		dup2(err[1], 2);
		set_env_int("UBRUN_RANK", r);
		set_env_int("UBRUN_SIZE", n);
		set_env_int("UBRUN_LOCAL_RANK", slot->local_rank);
		set_env_int("UBRUN_LOCAL_SIZE", slot->local_size);
		set_env_int("UBRUN_NODE", slot->node);
		setenv("UBRUN_ENTITY", slot->entity, 1);
		setenv("UBRUN_SOCK", sock, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "ubrun: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);	/* also here: no race with the kill below */
	close(out[1]);
	close(err[1]);
	rk->pid = pid;
	rk->io[0] = (struct stream){ .fd = out[0], .out = 1 };
	rk->io[1] = (struct stream){ .fd = err[0], .out = 2 };
	return 0;
}

static void kill_all(struct rank *rk, int n, int sig)
{
	int r;

	for (r = 0; r < n; r++)
		if (rk[r].pid)
			kill(-rk[r].pid, sig);
}

struct job {
	struct rank *rk;
	int n;
	int alive;
	int status;		/* the first nonzero one */
	int64_t kill_at;	/* when to SIGKILL, or 0 */
};

/* A rank ended: keep its status, end the job if it failed. */
static void reaped(struct job *j, int r, int wstatus)
{
	int st = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
		 128 + WTERMSIG(wstatus);

	j->rk[r].pid = 0;
	j->alive--;
	if (!st)
		return;
	if (!j->status) {
		j->status = st;
		fprintf(stderr, "ubrun: rank %d %s %d%s\n", r,
			WIFEXITED(wstatus) ? "exited with status" :
			"was killed by signal",
			WIFEXITED(wstatus) ? st : WTERMSIG(wstatus),
			j->alive ? ": ending the job" : "");
	}
	if (j->alive && !j->kill_at) {
		kill_all(j->rk, j->n, SIGTERM);
		j->kill_at = now_ms() + KILL_GRACE_MS;
	}
}

static void on_signal(struct job *j, struct ubrun_rdv *rdv, int sfd)
{
	struct signalfd_siginfo si;
	int wstatus, r;
	pid_t pid;

	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo != SIGCHLD) {
		kill_all(j->rk, j->n, si.ssi_signo);
		return;
	}
	while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0)
		for (r = 0; r < j->n; r++)
			if (j->rk[r].pid == pid) {
				ubrun_rdv_gone(rdv, r);
				reaped(j, r, wstatus);
			}
}

/* Until every rank has ended and its output is passed on. */
static void run(struct job *j, struct ubrun_rdv *rdv, int sfd)
{
	int max = 2 + 3 * j->n, nfds, nrdv, r, k, i, timeout;
	struct pollfd *pfd = calloc(max, sizeof(*pfd));
	int *fds = calloc(max, sizeof(int));

	while (pfd && fds) {
		nfds = 0;
		pfd[nfds++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		for (r = 0; r < j->n; r++)
			for (k = 0; k < 2; k++)
				if (j->rk[r].io[k].fd >= 0)
					pfd[nfds++] = (struct pollfd){
						.fd = j->rk[r].io[k].fd,
						.events = POLLIN };
		if (!j->alive && nfds == 1)
			break;
		nrdv = ubrun_rdv_fds(rdv, fds, max - nfds);
		for (i = 0; i < nrdv; i++)
			pfd[nfds++] = (struct pollfd){ .fd = fds[i],
						       .events = POLLIN };
		timeout = -1;
		if (j->kill_at) {
			timeout = j->kill_at - now_ms();
			if (timeout <= 0) {
				kill_all(j->rk, j->n, SIGKILL);
				j->kill_at = 0;
				timeout = -1;
			}
		}
		if (poll(pfd, nfds, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			on_signal(j, rdv, sfd);
		for (i = 1; i < nfds; i++) {
			if (!pfd[i].revents)
				continue;
			for (r = 0; r < j->n; r++)
				for (k = 0; k < 2; k++)
					if (j->rk[r].io[k].fd == pfd[i].fd)
						stream_read(&j->rk[r].io[k], r);
			if (i >= nfds - nrdv)
				ubrun_rdv_ready(rdv, pfd[i].fd);
		}
	}
	free(pfd);
	free(fds);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "np", required_argument, NULL, 'n' },
		{ "placement", required_argument, NULL, 'p' },
		{ "profile", required_argument, NULL, 'P' },
		{ "ordered", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *placement = "pack", *profile = NULL;
	char dir[] = "/tmp/ubrun.XXXXXX", sock[64];
	struct shm_slot *slots;
	struct ubrun_rdv *rdv;
	struct job j = { 0 };
	sigset_t blocked;
	int opt, sfd, r;
	char *end;
	long n = 0;

	while ((opt = getopt_long(argc, argv, "+n:p:P:oh", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			n = strtol(optarg, &end, 10);
			if (*end || end == optarg || n < 1 || n > 65536) {
				fprintf(stderr, "ubrun: -n: 1 .. 65536 ranks\n");
				return 2;
			}
			break;
		case 'p':
			placement = optarg;
			break;
		case 'P':
			profile = optarg;
			break;
		case 'o':
			setenv("UBSHMEM_ORDERED", "1", 1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!n || optind == argc) {
		usage(stderr);
		return 2;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rank_nofile)) {
		struct rlimit mine = rank_nofile;

		mine.rlim_cur = mine.rlim_max;
		nofile_raised = !setrlimit(RLIMIT_NOFILE, &mine);
	}
	slots = calloc(n, sizeof(*slots));
	j.rk = calloc(n, sizeof(*j.rk));
	if (!slots || !j.rk || shm_place("ubrun", placement, profile, n, slots))
		return 1;
	if (!mkdtemp(dir)) {
		perror("ubrun: mkdtemp");
		return 1;
	}
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	rdv = ubrun_rdv_open(sock, n);
	if (!rdv) {
		perror("ubrun: bootstrap socket");
		rmdir(dir);
		return 1;
	}
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGCHLD);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGHUP);
	sigprocmask(SIG_BLOCK, &blocked, NULL);
	sfd = signalfd(-1, &blocked, SFD_CLOEXEC);
	/* a reader of our output that goes away must not kill us */
	signal(SIGPIPE, SIG_IGN);
	j.n = n;
	for (r = 0; sfd >= 0 && r < n; r++) {
		if (spawn(&j.rk[r], r, n, &slots[r], sock, argv + optind,
			  &blocked)) {
			perror("ubrun: starting a rank");
			j.status = 1;
			kill_all(j.rk, n, SIGKILL);
			break;
		}
		j.alive++;
	}
	if (sfd >= 0)
		run(&j, rdv, sfd);
	else
		perror("ubrun: signalfd");
	ubrun_rdv_close(rdv);
	unlink(sock);
	rmdir(dir);
	return sfd < 0 ? 1 : j.status;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A worker process (worker.h): its loop, drawing each operation from its
 * stream and running it through its family's entry; the processes it
 * spawns, which run a few operations of their own and exit holding
 * everything; and the argument buffers operations share.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "family.h"

uint8_t fuzz_iobuf[65536];

void *fuzz_arg_pointer(const struct worker *w, uint64_t kind, uint64_t small)
{
	switch (kind) {
	case ARG_NULL:
		return NULL;
	case ARG_BUF:
		return fuzz_iobuf;
	case ARG_FAULT:
		return w->scratch;
	case ARG_KERNEL:
		return (void *)0xffffffff81000000UL;
	case ARG_ALL_ONES:
		return (void *)-1UL;
	default:
		return (void *)small;
	}
}

static bool past(const struct timespec *deadline)
{
	struct timespec now;

	if (!deadline)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec &&
		now.tv_nsec >= deadline->tv_nsec);
}

/*
 * Runs operations 0 .. budget - 1 of w's stream (no limit when budget is
 * 0) until the deadline or the first violation. top: w is a worker, not a
 * process it spawned, and publishes its progress for the supervisor.
 */
static void worker_loop(struct worker *w, uint64_t budget,
			const struct timespec *deadline, bool top)
{
	for (w->op_index = 0; !budget || w->op_index < budget;
	     w->op_index++) {
		if (past(deadline))
			break;
		fuzz_gen_op(&w->rng, w->model, w->op_index, &w->op);
		if (top) {
			w->stats->cur = w->op;
			w->stats->cur_index = w->op_index;
		}
		if (w->cfg->trace)
			fuzz_trace_op(w);
		fuzz_op_type(w->op.kind)->run(w, &w->op);
		__atomic_fetch_add(&w->stats->ops[w->op.kind], 1,
				   __ATOMIC_RELAXED);
		if (top)
			__atomic_fetch_add(&w->stats->done, 1,
					   __ATOMIC_RELAXED);
		if (w->failed)
			break;
	}
	if (w->failed)
		fuzz_report_replay(w);
}

bool worker_is_child(const struct worker *w)
{
	return w->spawned_at != UINT64_MAX;
}

pid_t worker_spawn(struct worker *w, uint64_t seed, uint64_t stream,
		   uint64_t ops)
{
	unsigned int i;
	pid_t pid;

	slots_share(w);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		snprintf(w->label + strlen(w->label),
			 sizeof(w->label) - strlen(w->label), " child@%llu",
			 (unsigned long long)w->op_index);
		w->spawned_at = w->op_index;
		rng_seed(&w->rng, seed, stream);
		memset(w->children, 0, sizeof(w->children));
		worker_loop(w, ops, NULL, false);
		_exit(w->failed);
	}
	for (i = 0; w->children[i]; i++)
		;
	w->children[i] = pid;
	return pid;
}

bool worker_reap(struct worker *w, unsigned int i, bool killed)
{
	pid_t pid = w->children[i];
	int status;

	if (killed)
		kill(pid, SIGKILL);
	w->children[i] = 0;
	if (waitpid(pid, &status, 0) != pid)
		return fuzz_fail(w, "waitpid %d: %s", pid,
				 fuzz_errname(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return true;
	if (WIFEXITED(status))
		return fuzz_fail(w, "child %d failed (see above)", pid);
	return fuzz_fail(w, "child %d died of signal %d", pid,
			 WTERMSIG(status));
}

void worker_main(const struct fuzz_config *cfg, const struct fuzz_model *m,
		 struct fuzz_stats *stats, unsigned int index,
		 uint64_t budget, const struct timespec *deadline)
{
	static struct worker w;
	unsigned int i;

	w.cfg = cfg;
	w.model = m;
	w.index = index;
	w.id = cfg->first_worker + index;
	w.stats = stats;
	w.spawned_at = UINT64_MAX;
	snprintf(w.label, sizeof(w.label), "worker %u", w.id);
	rng_seed(&w.rng, cfg->seed, w.id);
	slots_init(&w);
	w.scratch = mmap(NULL, SCRATCH_LEN, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w.scratch == MAP_FAILED) {
		fuzz_say(cfg, "# worker %u: mmap: %s", w.id,
			 fuzz_errname(errno));
		_exit(2);
	}
	w.stats->pid = getpid();
	for (i = 0; i < fuzz_nr_families; i++) {
		if (fuzz_families[i]->worker_init)
			fuzz_families[i]->worker_init(&w);
	}
	worker_loop(&w, budget, deadline, true);
	/* Processes it spawned run their few operations to the end. */
	for (i = 0; i < FUZZ_CHILDREN; i++) {
		if (w.children[i])
			worker_reap(&w, i, false);
	}
	slots_clear_all(&w);
	_exit(w.failed);
}

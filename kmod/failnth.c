// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fault injection that reaches the queue worker: the kernel's
 * fail-nth (/proc/<pid>/fail-nth, Documentation/fault-injection/) makes
 * the n-th allocation of the task that writes it fail, so it cannot reach
 * what a polling queue's entries allocate in the module's workqueue.
 * debugfs ubfab/worker-fail-nth can: written n, the n-th allocation the
 * queue worker makes from its next round on fails (counted over its
 * rounds, of every queue, until it fires), through the same fail-nth
 * count, so failslab's and fail_page_alloc's settings and filters apply.
 * Read, it gives what is left to count down: n until the worker takes it,
 * 0 while a round holds it and once it fired. A round gives back what is
 * left before it lets go of its queue's run_lock, so after anything that
 * takes that lock (UBFAB_IOCTL_QUEUE_CLOCK, ...) following a completion,
 * a read tells whether the failure was injected. Root only, for tests.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/sched.h>

#include "failnth.h"

static atomic_t ubfab_failnth_armed = ATOMIC_INIT(0);
static struct dentry *ubfab_failnth_dir;

static int ubfab_failnth_get(void *data, u64 *val)
{
	*val = atomic_read(&ubfab_failnth_armed);
	return 0;
}

static int ubfab_failnth_set(void *data, u64 val)
{
	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&ubfab_failnth_armed, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ubfab_failnth_fops, ubfab_failnth_get,
			 ubfab_failnth_set, "%llu\n");

/* Make debugfs ubfab/worker-fail-nth; without debugfs, nothing. */
void ubfab_failnth_init(void)
{
	ubfab_failnth_dir = debugfs_create_dir("ubfab", NULL);
	debugfs_create_file_unsafe("worker-fail-nth", 0600, ubfab_failnth_dir,
				   NULL, &ubfab_failnth_fops);
}

void ubfab_failnth_fini(void)
{
	debugfs_remove_recursive(ubfab_failnth_dir);
}

/**
 * ubfab_failnth_enter() - a worker's round begins: it takes the armed
 *	count, if any, as its own fail-nth
 *
 * Context: the queue worker, the queue's run_lock held.
 * Return: whether it took one; pass it to ubfab_failnth_leave().
 */
bool ubfab_failnth_enter(void)
{
	int n;

	if (likely(!atomic_read(&ubfab_failnth_armed)))
		return false;
	n = atomic_xchg(&ubfab_failnth_armed, 0);
	if (!n)
		return false;
	WRITE_ONCE(current->fail_nth, n);
	return true;
}

/**
 * ubfab_failnth_leave() - a worker's round ends: what is left of the
 *	count it took goes back, and the worker's own fail-nth to 0
 * @armed: what ubfab_failnth_enter() returned
 *
 * Context: the queue worker, the queue's run_lock held.
 */
void ubfab_failnth_leave(bool armed)
{
	unsigned int left;

	if (!armed)
		return;
	left = READ_ONCE(current->fail_nth);
	WRITE_ONCE(current->fail_nth, 0);
	/* one written meanwhile wins */
	if (left)
		atomic_cmpxchg(&ubfab_failnth_armed, 0, min(left, INT_MAX));
}

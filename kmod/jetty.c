// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab jetties: a send queue and a receive queue of one entity file
 * paired, the jetty's file descriptor, which is its completion-event
 * channel (the real stack's JFCE), its async events and its counters.
 *
 * A jetty is a file of its own ("[ubfab-jetty]") created by an entity
 * file's UBFAB_IOCTL_JETTY_CREATE. It holds a reference on the queue's
 * file and on the receive queue's file, so both live while it does,
 * whichever descriptor is closed first; its release drops them last. It
 * sits in its entity's @jetties array from its creation to its release;
 * the hooks that raise its async events (ubfab_jetty_sq_error(),
 * ubfab_jetty_rcq_full(), ubfab_jetty_reset()) and netlink's dump find it
 * there, under the array's lock, which its release takes to leave.
 *
 * Completion events: the jetty has an entry of its own on the poll wait
 * queue of each of its two queues, whose wake function runs whenever the
 * engine (engine.c) or a message (msg.c) publishes completions there, after
 * the ring's tail is stored. The arming is @armed under @lock: a rearm sets
 * sides in it, a wake function clears its side and sets it in @fired,
 * read() takes @fired. A completion whose wake-up takes @lock after the
 * rearm released it fires; one whose wake-up came before was published
 * before the rearm, so a reap of the ring after the rearm sees it.
 *
 * Locking: @lock is a spinlock taken inside the queues' wait queue locks
 * (interrupts off) and nowhere else under another lock; the hooks take the
 * entity's @jetties lock inside a queue's run_lock or a receive queue's
 * lock, then the entity file's event lock. ubfab_jetty_mutex serializes
 * creations, so that a queue goes into one jetty at most.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/netlink.h>

#include "engine.h"
#include "jetty.h"
#include "msg.h"

static DEFINE_MUTEX(ubfab_jetty_mutex);

/**
 * struct ubfab_jetty - a send queue and a receive queue paired
 * @file: the entity file that created it and both queues
 * @id: number in the entity (@file->entity->jetties)
 * @pid: the thread group that made it
 * @sq_filp: the send queue's file, referenced
 * @rq_filp: the receive queue's file, referenced
 * @q: the send queue
 * @rq: the receive queue
 * @sq_wait: its entry on @q's poll wait queue
 * @rq_wait: its entry on @rq's poll wait queue
 * @wait: readers and pollers of the jetty's file
 * @lock: guards the fields below
 * @armed: UBFAB_JETTY_* sides armed
 * @fired: sides that fired since the last read()
 * @events: events fired so far
 * @sends: send completions counted so far
 * @receives: receive completions counted so far
 * @rnr_naks: misses of the receive queue counted so far
 * @sq_seen: @q's CQ tail when @sends was last counted
 * @rcq_seen: @rq's RCQ tail when @receives was last counted
 * @rnr_seen: @rq's misses when @rnr_naks was last counted
 * @rnr_exc: its sends that failed with UBFAB_CQE_RNR_RETRY_EXC
 * @errors: times @q entered the error state
 * @full_told: @rq's RCQ tail when UBFAB_EVENT_JETTY_RCQ_FULL was last
 *	posted, under @rq's lock
 * @full_telling: UBFAB_EVENT_JETTY_RCQ_FULL was posted, under @rq's lock
 */
struct ubfab_jetty {
	struct ubfab_file *file;
	u32 id;
	pid_t pid;
	struct file *sq_filp;
	struct file *rq_filp;
	struct ubfab_queue *q;
	struct ubfab_rq *rq;
	wait_queue_entry_t sq_wait;
	wait_queue_entry_t rq_wait;
	wait_queue_head_t wait;
	spinlock_t lock;	/* guards the arming and the counters */
	u32 armed;
	u32 fired;
	u64 events;
	u64 sends;
	u64 receives;
	u64 rnr_naks;
	u32 sq_seen;
	u32 rcq_seen;
	u32 rnr_seen;
	atomic64_t rnr_exc;
	atomic64_t errors;
	u32 full_told;
	bool full_telling;
};

/*
 * The queues' counters, read without their locks; each grows by less than
 * 2^32 between two looks.
 */
static u32 ubfab_jetty_sq_tail(const struct ubfab_jetty *j)
{
	/* the engine's, under its run_lock: any value it had will do */
	return data_race(j->q->cq_tail);
}

static u32 ubfab_jetty_rcq_tail(const struct ubfab_jetty *j)
{
	/* the receive queue's, under its lock: likewise */
	return data_race(j->rq->rcq_tail);
}

static u32 ubfab_jetty_rnr(const struct ubfab_jetty *j)
{
	/* (likewise) */
	return data_race(j->rq->rnr) + data_race(j->rq->full);
}

/* Count what the queues did since the last look. Context: @j->lock. */
static void ubfab_jetty_count(struct ubfab_jetty *j)
{
	u32 sq = ubfab_jetty_sq_tail(j), rcq = ubfab_jetty_rcq_tail(j);
	u32 rnr = ubfab_jetty_rnr(j);

	j->sends += sq - j->sq_seen;
	j->sq_seen = sq;
	j->receives += rcq - j->rcq_seen;
	j->rcq_seen = rcq;
	j->rnr_naks += rnr - j->rnr_seen;
	j->rnr_seen = rnr;
}

/* A side's completions were published: fire it if it is armed. */
static void ubfab_jetty_fire(struct ubfab_jetty *j, u32 side)
{
	unsigned long flags;
	bool fired = false;

	spin_lock_irqsave(&j->lock, flags);
	ubfab_jetty_count(j);
	if (j->armed & side) {
		j->armed &= ~side;
		if (!j->fired)
			j->events++;
		j->fired |= side;
		fired = true;
	}
	spin_unlock_irqrestore(&j->lock, flags);
	if (fired)
		wake_up_interruptible_poll(&j->wait, EPOLLIN | EPOLLRDNORM);
}

static int ubfab_jetty_sq_wake(struct wait_queue_entry *wait,
			       unsigned int mode, int sync, void *key)
{
	ubfab_jetty_fire(container_of(wait, struct ubfab_jetty, sq_wait),
			 UBFAB_JETTY_SEND);
	return 0;
}

static int ubfab_jetty_rq_wake(struct wait_queue_entry *wait,
			       unsigned int mode, int sync, void *key)
{
	ubfab_jetty_fire(container_of(wait, struct ubfab_jetty, rq_wait),
			 UBFAB_JETTY_RECV);
	return 0;
}

static bool ubfab_jetty_fired(struct ubfab_jetty *j)
{
	unsigned long flags;
	bool fired;

	spin_lock_irqsave(&j->lock, flags);
	fired = j->fired;
	spin_unlock_irqrestore(&j->lock, flags);
	return fired;
}

/* Take the pending event. Return: whether there was one. */
static bool ubfab_jetty_take(struct ubfab_jetty *j,
			     struct ubfab_jetty_event *ev)
{
	unsigned long flags;

	spin_lock_irqsave(&j->lock, flags);
	ev->jetty_id = j->id;
	ev->sides = j->fired;
	ev->events = j->events;
	j->fired = 0;
	spin_unlock_irqrestore(&j->lock, flags);
	return ev->sides;
}

/*
 * read(): one struct ubfab_jetty_event. An event taken and then not copied
 * out (a fault in @buf) is lost: the rings still hold the completions.
 */
static ssize_t ubfab_jetty_read(struct file *filp, char __user *buf,
				size_t count, loff_t *ppos)
{
	struct ubfab_jetty *j = filp->private_data;
	struct ubfab_jetty_event ev;
	int ret;

	if (count < sizeof(ev))
		return -EINVAL;
	for (;;) {
		if (ubfab_jetty_take(j, &ev))
			break;
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(j->wait, ubfab_jetty_fired(j));
		if (ret)
			return ret;
	}
	return copy_to_user(buf, &ev, sizeof(ev)) ? -EFAULT : sizeof(ev);
}

static __poll_t ubfab_jetty_poll(struct file *filp,
				 struct poll_table_struct *wait)
{
	struct ubfab_jetty *j = filp->private_data;

	poll_wait(filp, &j->wait, wait);
	return ubfab_jetty_fired(j) ? EPOLLIN | EPOLLRDNORM : 0;
}

static long ubfab_jetty_ioctl(struct file *filp, unsigned int cmd,
			      unsigned long arg)
{
	struct ubfab_jetty *j = filp->private_data;
	unsigned long flags;

	if (cmd != UBFAB_IOCTL_JETTY_REARM)
		return -ENOTTY;
	if (!arg || arg & ~UBFAB_JETTY_SIDES)
		return -EINVAL;
	spin_lock_irqsave(&j->lock, flags);
	j->armed |= arg;
	spin_unlock_irqrestore(&j->lock, flags);
	return 0;
}

/*
 * Destroy: out of the entity's array first, so that no hook and no dump
 * finds it; off the queues' wait queues, which waits for a wake function
 * running; then the queues go, if their descriptors are closed.
 */
static int ubfab_jetty_release(struct inode *inode, struct file *filp)
{
	struct ubfab_jetty *j = filp->private_data;

	xa_erase(&j->file->entity->jetties, j->id);
	remove_wait_queue(&j->q->poll_wait, &j->sq_wait);
	remove_wait_queue(&j->rq->poll_wait, &j->rq_wait);
	fput(j->sq_filp);
	fput(j->rq_filp);
	kfree(j);
	return 0;
}

static const struct file_operations ubfab_jetty_fops = {
	.owner = THIS_MODULE,
	.release = ubfab_jetty_release,
	.read = ubfab_jetty_read,
	.poll = ubfab_jetty_poll,
	.unlocked_ioctl = ubfab_jetty_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* Whether a jetty of @entity has @q or @rq. Context: ubfab_jetty_mutex. */
static bool ubfab_jetty_busy(struct ubfab_entity *entity,
			     struct ubfab_queue *q, struct ubfab_rq *rq)
{
	struct ubfab_jetty *j;
	unsigned long id;

	xa_for_each(&entity->jetties, id, j)
		if (j->q == q || j->rq == rq)
			return true;
	return false;
}

/*
 * The send queue and the receive queue @arg names, referenced in @j.
 * Return: 0, -EBADF, -EINVAL or -EXDEV.
 */
static int ubfab_jetty_get_queues(struct ubfab_file *file,
				  const struct ubfab_jetty_create *arg,
				  struct ubfab_jetty *j)
{
	int ret;

	j->sq_filp = fget(arg->sq_fd);
	if (!j->sq_filp)
		return -EBADF;
	j->rq_filp = fget(arg->rq_fd);
	ret = -EBADF;
	if (!j->rq_filp)
		goto err_put_sq;
	j->q = ubfab_queue_from_file(j->sq_filp);
	j->rq = ubfab_rq_from_file(j->rq_filp);
	ret = -EINVAL;
	if (!j->q || !j->rq)
		goto err_put_rq;
	ret = -EXDEV;
	if (j->q->file != file || j->rq->file != file)
		goto err_put_rq;
	return 0;

err_put_rq:
	fput(j->rq_filp);
err_put_sq:
	fput(j->sq_filp);
	return ret;
}

/* Start counting from what the queues did before the jetty. */
static void ubfab_jetty_count_init(struct ubfab_jetty *j)
{
	j->sq_seen = ubfab_jetty_sq_tail(j);
	j->rcq_seen = ubfab_jetty_rcq_tail(j);
	j->rnr_seen = ubfab_jetty_rnr(j);
}

/**
 * ubfab_jetty_create() - UBFAB_IOCTL_JETTY_CREATE, up to the file
 * @file: the entity file creating the jetty
 * @cmd: the argument; on success its outputs are set, a descriptor is
 *	reserved in @cmd->arg.fd and @cmd->filp is the jetty's file
 *
 * The jetty is in its entity's array (the hooks may post its events) but
 * no descriptor is: ubfab_jetty_create_commit() installs it,
 * ubfab_jetty_create_undo() drops it all.
 * Return: 0, -EINVAL, -EBADF, -EXDEV, -EBUSY, -EMFILE or -ENOMEM.
 */
int ubfab_jetty_create(struct ubfab_file *file,
		       struct ubfab_jetty_create_cmd *cmd)
{
	struct ubfab_jetty_create *arg = &cmd->arg;
	struct ubfab_entity *entity = file->entity;
	struct ubfab_jetty *j;
	int ret;

	if (arg->flags)
		return -EINVAL;
	j = kzalloc(sizeof(*j), GFP_KERNEL_ACCOUNT);
	if (!j)
		return -ENOMEM;
	ret = ubfab_jetty_get_queues(file, arg, j);
	if (ret)
		goto err_free;
	j->file = file;
	j->pid = task_tgid_nr(current);
	spin_lock_init(&j->lock);
	init_waitqueue_head(&j->wait);
	init_waitqueue_func_entry(&j->sq_wait, ubfab_jetty_sq_wake);
	init_waitqueue_func_entry(&j->rq_wait, ubfab_jetty_rq_wake);
	atomic64_set(&j->rnr_exc, 0);
	atomic64_set(&j->errors, 0);

	mutex_lock(&ubfab_jetty_mutex);
	ret = -EBUSY;
	if (ubfab_jetty_busy(entity, j->q, j->rq))
		goto err_unlock;
	/* a reserved slot: hooks and dumps find nothing there until it is whole */
	ret = xa_alloc(&entity->jetties, &j->id, NULL, xa_limit_31b,
		       GFP_KERNEL);
	if (ret < 0)
		goto err_unlock;
	ret = get_unused_fd_flags(O_CLOEXEC);
	if (ret < 0)
		goto err_free_id;
	arg->fd = ret;
	arg->id = j->id;
	cmd->filp = anon_inode_getfile("[ubfab-jetty]", &ubfab_jetty_fops, j,
				       O_RDWR | O_CLOEXEC);
	if (IS_ERR(cmd->filp)) {
		ret = PTR_ERR(cmd->filp);
		goto err_put_fd;
	}
	/* From here the jetty's release undoes everything. */
	ubfab_jetty_count_init(j);
	add_wait_queue(&j->q->poll_wait, &j->sq_wait);
	add_wait_queue(&j->rq->poll_wait, &j->rq_wait);
	/* into its reserved slot: no memory needed */
	xa_store(&entity->jetties, j->id, j, GFP_KERNEL);
	mutex_unlock(&ubfab_jetty_mutex);
	return 0;

err_put_fd:
	put_unused_fd(arg->fd);
err_free_id:
	xa_erase(&entity->jetties, j->id);
err_unlock:
	mutex_unlock(&ubfab_jetty_mutex);
	fput(j->rq_filp);
	fput(j->sq_filp);
err_free:
	kfree(j);
	return ret;
}

/* The result could not be copied out: the jetty goes, unseen. */
void ubfab_jetty_create_undo(struct ubfab_jetty_create_cmd *cmd)
{
	put_unused_fd(cmd->arg.fd);
	fput(cmd->filp);
}

void ubfab_jetty_create_commit(struct ubfab_jetty_create_cmd *cmd)
{
	fd_install(cmd->arg.fd, cmd->filp);
}

/* Tell @j's file an async event of @type with @reason and @detail. */
static void ubfab_jetty_post(struct ubfab_jetty *j, u32 type, u32 reason,
			     u64 detail)
{
	struct ubfab_event ev = {
		.type = type,
		.reason = reason,
		.eid = j->file->entity->eid,
		.jetty_id = j->id,
		.mmap_offset = detail,
	};

	ubfab_event_post(j->file, &ev);
}

/**
 * ubfab_jetty_sq_error() - a queue entered the error state
 * @q: the queue
 * @status: the enum ubfab_cqe_status of the entry that failed
 *
 * The jetty that has @q, if any, counts it and tells its file
 * (UBFAB_EVENT_JETTY_SQ_ERR). Context: @q's run_lock.
 */
void ubfab_jetty_sq_error(struct ubfab_queue *q, u16 status)
{
	struct ubfab_entity *entity = q->file->entity;
	struct ubfab_jetty *j;
	unsigned long id;

	xa_lock(&entity->jetties);
	xa_for_each(&entity->jetties, id, j) {
		if (j->q != q)
			continue;
		atomic64_inc(&j->errors);
		if (status == UBFAB_CQE_RNR_RETRY_EXC)
			atomic64_inc(&j->rnr_exc);
		ubfab_jetty_post(j, UBFAB_EVENT_JETTY_SQ_ERR, status, 0);
		break;
	}
	xa_unlock(&entity->jetties);
}

/**
 * ubfab_jetty_rcq_full() - a message found a receive queue's RCQ full
 * @rq: the receive queue
 *
 * The jetty that has @rq, if any, tells its file
 * (UBFAB_EVENT_JETTY_RCQ_FULL), once until a receive completes again.
 * Context: @rq->lock.
 */
void ubfab_jetty_rcq_full(struct ubfab_rq *rq)
{
	struct ubfab_entity *entity = rq->file->entity;
	struct ubfab_jetty *j;
	unsigned long id;

	lockdep_assert_held(&rq->lock);
	xa_lock(&entity->jetties);
	xa_for_each(&entity->jetties, id, j) {
		if (j->rq != rq)
			continue;
		if (!j->full_telling || j->full_told != rq->rcq_tail) {
			j->full_telling = true;
			j->full_told = rq->rcq_tail;
			ubfab_jetty_post(j, UBFAB_EVENT_JETTY_RCQ_FULL, 0,
					 rq->full);
		}
		break;
	}
	xa_unlock(&entity->jetties);
}

/**
 * ubfab_jetty_reset() - an entity was reset
 * @entity: the entity
 *
 * Each of its jetties tells its file (UBFAB_EVENT_JETTY_RESET).
 */
void ubfab_jetty_reset(struct ubfab_entity *entity)
{
	struct ubfab_jetty *j;
	unsigned long id;

	xa_lock(&entity->jetties);
	xa_for_each(&entity->jetties, id, j)
		ubfab_jetty_post(j, UBFAB_EVENT_JETTY_RESET, 0, 0);
	xa_unlock(&entity->jetties);
}

/**
 * ubfab_jetty_fill() - a jetty's attributes, for netlink's jetty dump
 * @skb: the message
 * @obj: the jetty
 *
 * Context: the jetty's entity's jetties array locked, so that it stays.
 * Return: 0 or -EMSGSIZE.
 */
int ubfab_jetty_fill(struct sk_buff *skb, const void *obj)
{
	struct ubfab_jetty *j = (struct ubfab_jetty *)obj;
	u64 sends, receives, rnr_naks, events;
	unsigned long flags;
	u32 state;

	spin_lock_irqsave(&j->lock, flags);
	ubfab_jetty_count(j);
	sends = j->sends;
	receives = j->receives;
	rnr_naks = j->rnr_naks;
	events = j->events;
	spin_unlock_irqrestore(&j->lock, flags);
	state = READ_ONCE(j->q->error) ? UBFAB_JETTY_ERROR : UBFAB_JETTY_READY;

	if (nla_put_u32(skb, UBFAB_A_JETTY_EID, j->file->entity->eid) ||
	    nla_put_u32(skb, UBFAB_A_JETTY_ID, j->id) ||
	    nla_put_u32(skb, UBFAB_A_JETTY_PID, j->pid) ||
	    nla_put_u32(skb, UBFAB_A_JETTY_SQ, j->q->id) ||
	    nla_put_u32(skb, UBFAB_A_JETTY_RQ, j->rq->id) ||
	    nla_put_u32(skb, UBFAB_A_JETTY_STATE, state) ||
	    nla_put_u64_64bit(skb, UBFAB_A_JETTY_SENDS, sends,
			      UBFAB_A_JETTY_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_JETTY_RECEIVES, receives,
			      UBFAB_A_JETTY_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_JETTY_RNR_NAKS, rnr_naks,
			      UBFAB_A_JETTY_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_JETTY_RNR_EXC,
			      atomic64_read(&j->rnr_exc), UBFAB_A_JETTY_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_JETTY_ERRORS,
			      atomic64_read(&j->errors), UBFAB_A_JETTY_PAD) ||
	    nla_put_u64_64bit(skb, UBFAB_A_JETTY_EVENTS, events,
			      UBFAB_A_JETTY_PAD))
		return -EMSGSIZE;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab receive queues (the real stack's JFR): the object two-sided
 * messages land in, its file descriptor and its rings, and taking a
 * posted receive and completing it for a message. The runner that
 * delivers SEND, SEND_IMM and WRITE_IMM is xfer.c's.
 *
 * A receive queue is a file of its own ("[ubfab-rq]") created by an
 * entity file's UBFAB_IOCTL_RQ_CREATE; it holds that file, whose
 * allocations its receives name. Its mapping is laid out as a queue's: a
 * header page (struct ubfab_ring_hdr, the SQ words for the RQ, the CQ
 * words for the RCQ), the RQ entries, the RCQ entries. User space posts
 * receives at the RQ tail and consumes completions at the RCQ head; the
 * kernel keeps its own copies of the RQ head and the RCQ tail and only
 * writes the shared ones.
 *
 * Locking: senders on any CPU take @lock, a mutex of the receive queue,
 * from taking a receive until its completion is written (the data moves
 * meanwhile, under the mem_locks xfer.c takes), under their own queue's
 * run_lock and never under another queue's: run_lock -> rq lock ->
 * imports_lock -> mem_lock. Nothing here takes a run_lock. Senders find a
 * receive queue by number in its entity's @rqs and take a reference under
 * the array's lock; closing it marks it dead under @lock before it leaves
 * the array, so a sender that found it just before fails cleanly.
 */
#include <linux/anon_inodes.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>

#include "engine.h"
#include "jetty.h"
#include "msg.h"

static_assert(sizeof(struct ubfab_rqe) == 64);
static_assert(sizeof(struct ubfab_rcqe) == 32);

unsigned int ubfab_rnr_retry = 7;
module_param_named(rnr_retry, ubfab_rnr_retry, uint, 0644);
MODULE_PARM_DESC(rnr_retry, "messages: retries when the receiver is not ready, before UBFAB_CQE_RNR_RETRY_EXC (default 7)");

unsigned long ubfab_rnr_ns = 10000;
module_param_named(rnr_ns, ubfab_rnr_ns, ulong, 0644);
MODULE_PARM_DESC(rnr_ns, "messages: modeled ns each receiver-not-ready retry costs (default 10000); the host waits as long, at most 1 ms");

/* The host's wait between two retries: ubfab_rnr_ns, 1 us .. 1 ms. */
void ubfab_rq_rnr_wait(void)
{
	unsigned long us = clamp(READ_ONCE(ubfab_rnr_ns) / NSEC_PER_USEC,
				 1UL, USEC_PER_MSEC);

	usleep_range(us, us + us / 2 + 1);
}

static void ubfab_rq_free(struct kref *ref)
{
	struct ubfab_rq *rq = container_of(ref, struct ubfab_rq, ref);

	ubfab_ring_free(rq->ring_size, rq->ring_pages, rq->ring);
	fput(rq->file->filp);
	kfree(rq);
}

void ubfab_rq_put(struct ubfab_rq *rq)
{
	kref_put(&rq->ref, ubfab_rq_free);
}

/**
 * ubfab_rq_get() - a receive queue of an entity, referenced
 * @entity: the entity
 * @id: its number, from user space
 *
 * Return: the receive queue (ubfab_rq_put() it), or NULL.
 */
struct ubfab_rq *ubfab_rq_get(struct ubfab_entity *entity, u32 id)
{
	struct ubfab_rq *rq;

	xa_lock(&entity->rqs);
	rq = xa_load(&entity->rqs, id);
	if (rq)
		kref_get(&rq->ref);
	xa_unlock(&entity->rqs);
	return rq;
}

/**
 * ubfab_rq_take() - take the next posted receive for a message
 * @rq: the receive queue
 * @rqe: out: the receive, copied out of the ring before it is looked at
 *
 * The receiver is not ready when nothing is posted (an RQ tail more than
 * the ring ahead counts as nothing) or when the RCQ has no room for the
 * completion; each time counts, in the RQ or the RCQ overflow word; a full RCQ is its
 * jetty's async event (ubfab_jetty_rcq_full()).
 * Context: @rq->lock held; the receive taken must be completed
 * (ubfab_rq_complete()) before it is dropped.
 * Return: UBFAB_CQE_OK, UBFAB_CQE_RNR_RETRY_EXC when not ready, or
 * UBFAB_CQE_NO_IMPORT when @rq was closed.
 */
u16 ubfab_rq_take(struct ubfab_rq *rq, struct ubfab_rqe *rqe)
{
	struct ubfab_ring_hdr *hdr = rq->hdr;
	u32 tail;

	lockdep_assert_held(&rq->lock);
	if (rq->dead)
		return UBFAB_CQE_NO_IMPORT;
	/* the receives up to the tail are visible */
	tail = smp_load_acquire(&hdr->sq_tail);
	if (tail == rq->rq_head ||
	    !ubfab_ring_tail_ok(tail, rq->rq_head, rq->rq_mask + 1)) {
		WRITE_ONCE(hdr->sq_overflow, ++rq->rnr);
		return UBFAB_CQE_RNR_RETRY_EXC;
	}
	/* user space is done with the completions below its head */
	if (!ubfab_ring_has_room(rq->rcq_tail, smp_load_acquire(&hdr->cq_head),
				 rq->rcq_mask + 1)) {
		WRITE_ONCE(hdr->cq_overflow, ++rq->full);
		ubfab_jetty_rcq_full(rq);
		return UBFAB_CQE_RNR_RETRY_EXC;
	}
	memcpy(rqe, &rq->rqes[rq->rq_head & rq->rq_mask], sizeof(*rqe));
	rq->rq_head++;
	/* copied out before user space may reuse the slot */
	smp_store_release(&hdr->sq_head, rq->rq_head);
	return UBFAB_CQE_OK;
}

/**
 * ubfab_rq_complete() - write and publish the completion of a receive
 * @rq: the receive queue
 * @rcqe: the completion; ubfab_rq_take() made room for it
 *
 * Context: @rq->lock held since the receive was taken.
 */
void ubfab_rq_complete(struct ubfab_rq *rq, const struct ubfab_rcqe *rcqe)
{
	lockdep_assert_held(&rq->lock);
	rq->rcqes[rq->rcq_tail & rq->rcq_mask] = *rcqe;
	rq->rcq_tail++;
	/* the entry (and the data, ordered by the copy's wmb()) first */
	smp_store_release(&rq->hdr->cq_tail, rq->rcq_tail);
	/* pairs with the barrier in ubfab_rq_poll() */
	if (wq_has_sleeper(&rq->poll_wait))
		wake_up_interruptible(&rq->poll_wait);
}

static __poll_t ubfab_rq_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct ubfab_rq *rq = filp->private_data;

	poll_wait(filp, &rq->poll_wait, wait);
	/* Pairs with wq_has_sleeper() in ubfab_rq_complete(). */
	smp_mb();
	return READ_ONCE(rq->hdr->cq_tail) != READ_ONCE(rq->hdr->cq_head) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

static int ubfab_rq_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ubfab_rq *rq = filp->private_data;

	return ubfab_ring_mmap(vma, rq->ring_size, rq->ring_pages);
}

/*
 * Destroy: dead first, under the lock, so that no message takes a receive
 * any more (one in progress finishes first); then out of the entity's
 * array. Senders that hold a reference keep the memory until they put it.
 */
static int ubfab_rq_release(struct inode *inode, struct file *filp)
{
	struct ubfab_rq *rq = filp->private_data;

	mutex_lock(&rq->lock);
	rq->dead = true;
	mutex_unlock(&rq->lock);
	xa_erase(&rq->file->entity->rqs, rq->id);
	ubfab_rq_put(rq);
	return 0;
}

static const struct file_operations ubfab_rq_fops = {
	.owner = THIS_MODULE,
	.release = ubfab_rq_release,
	.mmap = ubfab_rq_mmap,
	.poll = ubfab_rq_poll,
	.llseek = noop_llseek,
};

/* The receive queue whose file @filp is, or NULL when it is another file. */
struct ubfab_rq *ubfab_rq_from_file(struct file *filp)
{
	return filp->f_op == &ubfab_rq_fops ? filp->private_data : NULL;
}

/* Check @arg; *@rcq_entries gets the RCQ depth, its default resolved. */
static int ubfab_rq_check_create(const struct ubfab_rq_create *arg,
				 u32 *rcq_entries)
{
	if (arg->flags || arg->__reserved)
		return -EINVAL;
	if (!arg->rq_entries || arg->rq_entries > UBFAB_RQ_MAX_ENTRIES ||
	    !is_power_of_2(arg->rq_entries))
		return -EINVAL;
	*rcq_entries = arg->rcq_entries ? arg->rcq_entries : arg->rq_entries;
	if (*rcq_entries > UBFAB_QUEUE_MAX_CQ_ENTRIES ||
	    !is_power_of_2(*rcq_entries))
		return -EINVAL;
	return 0;
}

/**
 * ubfab_rq_create() - UBFAB_IOCTL_RQ_CREATE, up to the file
 * @file: the entity file creating the receive queue
 * @cmd: the argument; on success its outputs are set, a descriptor is
 *	reserved in @cmd->arg.fd and @cmd->filp is the receive queue's file
 *
 * Nothing is visible to user space or to senders yet:
 * ubfab_rq_create_commit() installs the descriptor,
 * ubfab_rq_create_undo() drops it all.
 * Return: 0, -EINVAL, -EMFILE or -ENOMEM.
 */
int ubfab_rq_create(struct ubfab_file *file, struct ubfab_rq_create_cmd *cmd)
{
	struct ubfab_rq_create *arg = &cmd->arg;
	struct ubfab_entity *entity = file->entity;
	struct ubfab_rq *rq;
	u32 rcq_entries;
	int ret;

	ret = ubfab_rq_check_create(arg, &rcq_entries);
	if (ret)
		return ret;
	rq = kzalloc(sizeof(*rq), GFP_KERNEL_ACCOUNT);
	if (!rq)
		return -ENOMEM;
	kref_init(&rq->ref);
	rq->file = file;
	rq->token = arg->token;
	rq->rq_mask = arg->rq_entries - 1;
	rq->rcq_mask = rcq_entries - 1;
	mutex_init(&rq->lock);
	init_waitqueue_head(&rq->poll_wait);

	rq->ring_size = ubfab_ring_layout(&arg->rq, arg->rq_entries,
					  sizeof(struct ubfab_rqe), &arg->rcq,
					  rcq_entries,
					  sizeof(struct ubfab_rcqe));
	arg->ring_size = rq->ring_size;
	ret = ubfab_ring_alloc(rq->ring_size, &rq->ring_pages, &rq->ring);
	if (ret)
		goto err_free_rq;
	rq->hdr = rq->ring;
	rq->rqes = rq->ring + arg->rq.array;
	rq->rcqes = rq->ring + arg->rcq.array;

	/* a reserved slot: senders find nothing there until it is whole */
	ret = xa_alloc(&entity->rqs, &rq->id, NULL, xa_limit_31b, GFP_KERNEL);
	if (ret < 0)
		goto err_free_ring;
	ret = get_unused_fd_flags(O_CLOEXEC);
	if (ret < 0)
		goto err_free_id;
	arg->fd = ret;
	arg->id = rq->id;
	cmd->filp = anon_inode_getfile("[ubfab-rq]", &ubfab_rq_fops, rq,
				       O_RDWR | O_CLOEXEC);
	if (IS_ERR(cmd->filp)) {
		ret = PTR_ERR(cmd->filp);
		goto err_put_fd;
	}
	/* From here the receive queue's release undoes everything. */
	get_file(file->filp);
	/* into its reserved slot: no memory needed */
	xa_store(&entity->rqs, rq->id, rq, GFP_KERNEL);
	return 0;

err_put_fd:
	put_unused_fd(arg->fd);
err_free_id:
	xa_erase(&entity->rqs, rq->id);
err_free_ring:
	ubfab_ring_free(rq->ring_size, rq->ring_pages, rq->ring);
err_free_rq:
	kfree(rq);
	return ret;
}

/* The result could not be copied out: the receive queue goes, unseen. */
void ubfab_rq_create_undo(struct ubfab_rq_create_cmd *cmd)
{
	put_unused_fd(cmd->arg.fd);
	fput(cmd->filp);
}

void ubfab_rq_create_commit(struct ubfab_rq_create_cmd *cmd)
{
	fd_install(cmd->arg.fd, cmd->filp);
}

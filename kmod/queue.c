// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab NPU queues: the queue object and its file descriptor, and the
 * rings it shares with user space. The engine that runs the entries is
 * engine.c's.
 *
 * A queue is a file of its own ("[ubfab-queue]") created by an entity
 * file's UBFAB_IOCTL_QUEUE_CREATE. Its mapping holds a header page (each
 * index, flag word and counter on a cache line of its own), then the SQ
 * entries, then the CQ entries. The queue holds a reference on its entity
 * file, so the allocations and imports its entries name outlive it. Every
 * index and flag in the mapping may be scribbled on by user space: the
 * engine keeps its own copies (struct ubfab_queue) and only ever writes
 * the shared ones.
 */
#include <linux/anon_inodes.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "engine.h"
#include "model.h"

static_assert(sizeof(struct ubfab_ring_hdr) <= PAGE_SIZE);
static_assert(sizeof(struct ubfab_sqe) == 64);
static_assert(sizeof(struct ubfab_cqe) == 32);

void ubfab_queue_file_init(struct ubfab_file *file)
{
	spin_lock_init(&file->queues_lock);
	INIT_LIST_HEAD(&file->queues);
}

/* Context: the file's release; its queues, which held it, are gone. */
void ubfab_queue_file_fini(struct ubfab_file *file)
{
	WARN_ON(!list_empty(&file->queues));
	kfree(file->queue_events);
}

static long ubfab_queue_ioctl(struct file *filp, unsigned int cmd,
			      unsigned long arg)
{
	struct ubfab_queue *q = filp->private_data;

	switch (cmd) {
	case UBFAB_IOCTL_QUEUE_DOORBELL:
		return arg ? -EINVAL : ubfab_engine_doorbell(q);
	case UBFAB_IOCTL_QUEUE_RESET:
		return arg ? -EINVAL : ubfab_engine_reset(q);
	case UBFAB_IOCTL_QUEUE_CLOCK:
		return ubfab_model_clock(q, (void __user *)arg);
	case UBFAB_IOCTL_QUEUE_STAMP:
		return ubfab_model_stamp_ioctl(q, (void __user *)arg);
	}
	return -ENOTTY;
}

static __poll_t ubfab_queue_poll(struct file *filp,
				 struct poll_table_struct *wait)
{
	struct ubfab_queue *q = filp->private_data;

	poll_wait(filp, &q->poll_wait, wait);
	/* Pairs with wq_has_sleeper() in ubfab_engine_notify(). */
	smp_mb();
	/*
	 * The published tail, as user space sees it: readable means a
	 * completion it can reap now. Only the queue's own users can write
	 * either word, and only mislead themselves.
	 */
	return READ_ONCE(q->hdr->cq_tail) != READ_ONCE(q->hdr->cq_head) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

/**
 * ubfab_ring_alloc() - the pages of rings shared with user space
 * @size: bytes, a multiple of the page size
 * @pages: out: the pages, zeroed, charged to the calling process's memory
 *	cgroup (the deepest queue rings take 4 MiB)
 * @ring: out: @pages mapped into the kernel with vmap()
 *
 * Receive queues (msg.c) share them. Return: 0 or -ENOMEM.
 */
int ubfab_ring_alloc(size_t size, struct page ***pages, void **ring)
{
	unsigned int i, n = size >> PAGE_SHIFT;
	struct page **p;

	p = kvcalloc(n, sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		p[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!p[i])
			goto err_free_pages;
	}
	*ring = vmap(p, n, VM_MAP, PAGE_KERNEL);
	if (!*ring)
		goto err_free_pages;
	*pages = p;
	return 0;

err_free_pages:
	while (i--)
		__free_page(p[i]);
	kvfree(p);
	return -ENOMEM;
}

/* Free what ubfab_ring_alloc() allocated. */
void ubfab_ring_free(size_t size, struct page **pages, void *ring)
{
	unsigned int i, n = size >> PAGE_SHIFT;

	vunmap(ring);
	for (i = 0; i < n; i++)
		__free_page(pages[i]);
	kvfree(pages);
}

/**
 * ubfab_ring_mmap() - map rings into a process
 * @vma: the mapping: shared, at offset 0, at most @size bytes
 * @size: bytes of the rings
 * @pages: their pages
 *
 * Return: 0, -EINVAL for another mapping, or vm_insert_pages()'s error.
 */
int ubfab_ring_mmap(struct vm_area_struct *vma, size_t size,
		    struct page **pages)
{
	unsigned long n = vma_pages(vma);

	if (!(vma->vm_flags & VM_SHARED) || vma->vm_pgoff ||
	    n > size >> PAGE_SHIFT)
		return -EINVAL;
	ubfab_vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP);
	return vm_insert_pages(vma, vma->vm_start, pages, &n);
}

static int ubfab_queue_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ubfab_queue *q = filp->private_data;

	return ubfab_ring_mmap(vma, q->ring_size, q->ring_pages);
}

/*
 * Destroy: off the file's list first, so no EVENT_RECORD kicks it any more;
 * then the work item is cancelled and waited for, even if it requeues
 * itself. No ioctl runs, as release comes after the last one.
 */
static int ubfab_queue_release(struct inode *inode, struct file *filp)
{
	struct ubfab_queue *q = filp->private_data;
	struct ubfab_file *file = q->file;

	spin_lock(&file->queues_lock);
	list_del(&q->file_node);
	spin_unlock(&file->queues_lock);
	/* netlink reads the queue under the array's lock: not any more */
	xa_erase(&file->entity->queues, q->id);
	ubfab_model_queue_users(file->entity, q->id, -1);
	cancel_delayed_work_sync(&q->work);
	if (q->flags & UBFAB_QUEUE_ORDERED)
		ubfab_order_leave(q);

	ubfab_xfer_cache_fini(&q->xfer);
	if (q->eventfd)
		eventfd_ctx_put(q->eventfd);
	ubfab_ring_free(q->ring_size, q->ring_pages, q->ring);
	atomic_dec(&file->entity->fabric->model_queues);
	kfree(q);
	fput(file->filp);
	return 0;
}

static const struct file_operations ubfab_queue_fops = {
	.owner = THIS_MODULE,
	.release = ubfab_queue_release,
	.unlocked_ioctl = ubfab_queue_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ubfab_queue_mmap,
	.poll = ubfab_queue_poll,
	.llseek = noop_llseek,
};

/* The queue whose file @filp is, or NULL when it is another file. */
struct ubfab_queue *ubfab_queue_from_file(struct file *filp)
{
	return filp->f_op == &ubfab_queue_fops ? filp->private_data : NULL;
}

/**
 * ubfab_queue_check_create() - check UBFAB_IOCTL_QUEUE_CREATE's argument
 * @arg: from user space
 * @cq_entries: out: the CQ depth, its default (twice the SQ's) resolved
 * @idle_us: out: UBFAB_QUEUE_POLL's idle time, its default resolved;
 *	untouched without UBFAB_QUEUE_POLL
 *
 * Return: 0, or -EINVAL for unknown flags, a depth that is not a power of
 * two within its limit, or an idle time without UBFAB_QUEUE_POLL or above
 * UBFAB_QUEUE_IDLE_US_MAX.
 */
int ubfab_queue_check_create(const struct ubfab_queue_create *arg,
			     u32 *cq_entries, u32 *idle_us)
{
	if (arg->flags & ~UBFAB_QUEUE_FLAGS)
		return -EINVAL;
	if (!arg->sq_entries || arg->sq_entries > UBFAB_QUEUE_MAX_ENTRIES ||
	    !is_power_of_2(arg->sq_entries))
		return -EINVAL;
	*cq_entries = arg->cq_entries ? arg->cq_entries : 2 * arg->sq_entries;
	if (*cq_entries > UBFAB_QUEUE_MAX_CQ_ENTRIES ||
	    !is_power_of_2(*cq_entries))
		return -EINVAL;
	if (!(arg->flags & UBFAB_QUEUE_POLL))
		return arg->idle_us ? -EINVAL : 0;
	*idle_us = arg->idle_us ? arg->idle_us : UBFAB_QUEUE_IDLE_US;
	return *idle_us > UBFAB_QUEUE_IDLE_US_MAX ? -EINVAL : 0;
}

/**
 * ubfab_ring_layout() - lay out a header page and two rings after it
 * @first: out: the first ring's parts: the header's SQ words, its entries
 *	right after the header page
 * @first_entries: its entries
 * @first_size: bytes of each
 * @second: out: the second ring's parts: the header's CQ words, its
 *	entries after the first ring's
 * @second_entries: its entries
 * @second_size: bytes of each
 *
 * Queues and receive queues (msg.c) share the layout.
 * Return: the bytes of the mapping, a multiple of the page size.
 */
size_t ubfab_ring_layout(struct ubfab_ring_offsets *first, u32 first_entries,
			 size_t first_size, struct ubfab_ring_offsets *second,
			 u32 second_entries, size_t second_size)
{
	size_t first_array = PAGE_SIZE;
	size_t second_array = first_array + first_entries * first_size;

	*first = (struct ubfab_ring_offsets) {
		.head = offsetof(struct ubfab_ring_hdr, sq_head),
		.tail = offsetof(struct ubfab_ring_hdr, sq_tail),
		.flags = offsetof(struct ubfab_ring_hdr, sq_flags),
		.overflow = offsetof(struct ubfab_ring_hdr, sq_overflow),
		.array = first_array,
		.entries = first_entries,
	};
	*second = (struct ubfab_ring_offsets) {
		.head = offsetof(struct ubfab_ring_hdr, cq_head),
		.tail = offsetof(struct ubfab_ring_hdr, cq_tail),
		.flags = offsetof(struct ubfab_ring_hdr, cq_flags),
		.overflow = offsetof(struct ubfab_ring_hdr, cq_overflow),
		.array = second_array,
		.entries = second_entries,
	};
	return PAGE_ALIGN(second_array + second_entries * second_size);
}

/* The file's events, allocated with its first queue. */
static int ubfab_queue_events_get(struct ubfab_file *file)
{
	struct ubfab_queue_event *events;

	if (READ_ONCE(file->queue_events))
		return 0;
	events = kcalloc(UBFAB_QUEUE_EVENTS, sizeof(*events),
			 GFP_KERNEL_ACCOUNT);
	if (!events)
		return -ENOMEM;
	/* Two first queues at once: one array wins, the other goes. */
	if (cmpxchg(&file->queue_events, NULL, events))
		kfree(events);
	return 0;
}

/**
 * ubfab_queue_create() - UBFAB_IOCTL_QUEUE_CREATE, up to the file
 * @file: the entity file creating the queue
 * @cmd: the argument; on success its outputs are set, a descriptor is
 *	reserved in @cmd->arg.fd and @cmd->filp is the queue's file
 *
 * Nothing is visible to user space yet: ubfab_queue_create_commit()
 * installs the descriptor, ubfab_queue_create_undo() drops it all.
 * Return: 0, -EINVAL, -EBADF, -EMFILE or -ENOMEM.
 */
int ubfab_queue_create(struct ubfab_file *file,
		       struct ubfab_queue_create_cmd *cmd)
{
	struct ubfab_queue_create *arg = &cmd->arg;
	u32 cq_entries, idle_us = 0;
	struct ubfab_queue *q;
	int ret;

	ret = ubfab_queue_check_create(arg, &cq_entries, &idle_us);
	if (ret)
		return ret;
	ret = ubfab_queue_events_get(file);
	if (ret)
		return ret;

	q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	if (!q)
		return -ENOMEM;
	q->file = file;
	q->flags = arg->flags;
	if (ubfab_order_default())
		q->flags |= UBFAB_QUEUE_ORDERED;
	q->idle_ns = (u64)idle_us * NSEC_PER_USEC;
	q->sq_mask = arg->sq_entries - 1;
	q->cq_mask = cq_entries - 1;
	mutex_init(&q->run_lock);
	init_waitqueue_head(&q->poll_wait);
	INIT_DELAYED_WORK(&q->work, ubfab_engine_work);

	if (arg->eventfd != -1) {
		q->eventfd = eventfd_ctx_fdget(arg->eventfd);
		if (IS_ERR(q->eventfd)) {
			ret = -EBADF;
			goto err_free_queue;
		}
	}

	/* lay the rings out and tell user space where each part is */
	q->ring_size = ubfab_ring_layout(&arg->sq, arg->sq_entries,
					 sizeof(struct ubfab_sqe), &arg->cq,
					 cq_entries, sizeof(struct ubfab_cqe));
	arg->ring_size = q->ring_size;
	ret = ubfab_ring_alloc(q->ring_size, &q->ring_pages, &q->ring);
	if (ret)
		goto err_put_eventfd;
	q->hdr = q->ring;
	q->sqes = q->ring + arg->sq.array;
	q->cqes = q->ring + arg->cq.array;
	if (q->flags & UBFAB_QUEUE_POLL)
		ubfab_engine_set_flags(q, UBFAB_SQ_NEED_WAKEUP, 0);

	/* a reserved slot: netlink's dump skips it until the queue is whole */
	ret = xa_alloc(&file->entity->queues, &q->id, NULL, xa_limit_31b,
		       GFP_KERNEL);
	if (ret < 0)
		goto err_free_ring;
	q->pid = task_tgid_nr(current);
	/* what the program controls: the entity it opened, the queue's number */
	ubfab_model_clock_init(&q->model, file->entity->eid << 16 ^ q->id,
			       q->id);
	ubfab_model_queue_users(file->entity, q->id, 1);

	ret = get_unused_fd_flags(O_CLOEXEC);
	if (ret < 0)
		goto err_free_id;
	arg->fd = ret;
	arg->id = q->id;

	cmd->filp = anon_inode_getfile("[ubfab-queue]", &ubfab_queue_fops, q,
				       O_RDWR | O_CLOEXEC);
	if (IS_ERR(cmd->filp)) {
		ret = PTR_ERR(cmd->filp);
		goto err_put_fd;
	}
	/* From here the queue's release undoes everything. */
	get_file(file->filp);
	atomic_inc(&file->entity->fabric->model_queues);
	if (q->flags & UBFAB_QUEUE_ORDERED)
		ubfab_order_join(q);
	spin_lock(&file->queues_lock);
	list_add_tail(&q->file_node, &file->queues);
	spin_unlock(&file->queues_lock);
	/* into its reserved slot: no memory needed */
	xa_store(&file->entity->queues, q->id, q, GFP_KERNEL);
	return 0;

err_put_fd:
	put_unused_fd(arg->fd);
err_free_id:
	ubfab_model_queue_users(file->entity, q->id, -1);
	xa_erase(&file->entity->queues, q->id);
err_free_ring:
	ubfab_ring_free(q->ring_size, q->ring_pages, q->ring);
err_put_eventfd:
	if (q->eventfd)
		eventfd_ctx_put(q->eventfd);
err_free_queue:
	kfree(q);
	return ret;
}

/* The result could not be copied out: the queue goes, unseen. */
void ubfab_queue_create_undo(struct ubfab_queue_create_cmd *cmd)
{
	put_unused_fd(cmd->arg.fd);
	fput(cmd->filp);
}

void ubfab_queue_create_commit(struct ubfab_queue_create_cmd *cmd)
{
	fd_install(cmd->arg.fd, cmd->filp);
}


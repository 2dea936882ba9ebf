// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab entity files: the file operations of /dev/ubfab/<name>. An open
 * file is a process acting as that entity: it owns the allocations, the
 * exported segments and the imports it makes, and its events.
 *
 * ioctl arguments start with their own size and are read with
 * copy_struct_from_user() (ubfab_ioctl_copy_in(), which the queue's clock
 * ioctl uses too), so structures can grow; each command's table
 * entry gives the size its handler knows and the smallest size accepted.
 * A command that creates something and then cannot copy its result out
 * undoes itself, so a failed ioctl changes nothing; one whose result is a
 * new file descriptor installs it only once the result is copied out.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "jetty.h"
#include "mem.h"
#include "msg.h"
#include "queue.h"

static int ubfab_file_open(struct inode *inode, struct file *filp)
{
	struct ubfab_entity *entity;
	struct ubfab_file *file;

	entity = container_of(inode->i_cdev, struct ubfab_entity, cdev);
	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	file->entity = entity;
	file->filp = filp;
	file->mapping = filp->f_mapping;
	INIT_LIST_HEAD(&file->allocs);
	mutex_init(&file->imports_lock);
	xa_init(&file->imports);
	ubfab_event_init(file);
	ubfab_queue_file_init(file);
	get_device(&entity->dev);
	filp->private_data = file;
	return nonseekable_open(inode, filp);
}

/*
 * Every VMA and every queue holds a reference on the file, so no mapping
 * of the file and no queue exists any more: imports and allocations go
 * without a user to notice.
 */
static int ubfab_file_release(struct inode *inode, struct file *filp)
{
	struct ubfab_file *file = filp->private_data;

	ubfab_seg_drop_imports(file);
	ubfab_mem_free_all(file);
	ubfab_queue_file_fini(file);
	xa_destroy(&file->imports);
	put_device(&file->entity->dev);
	kfree(file);
	return 0;
}

static int ubfab_file_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ubfab_file *file = filp->private_data;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_pgoff < UBFAB_IMPORT_BASE >> PAGE_SHIFT)
		return ubfab_mem_mmap(file, vma);
	return ubfab_seg_mmap(file, vma);
}

union ubfab_ioctl_arg {
	struct ubfab_mem_alloc mem_alloc;
	struct ubfab_mem_free mem_free;
	struct ubfab_seg_export seg_export;
	struct ubfab_seg_unexport seg_unexport;
	struct ubfab_seg_import seg_import;
	struct ubfab_seg_unimport seg_unimport;
	struct ubfab_queue_create_cmd queue_create;
	struct ubfab_rq_create_cmd rq_create;
	struct ubfab_jetty_create_cmd jetty_create;
};

static int ubfab_ioctl_mem_alloc(struct ubfab_file *file,
				 union ubfab_ioctl_arg *arg)
{
	return ubfab_mem_alloc(file, &arg->mem_alloc);
}

static void ubfab_ioctl_mem_alloc_undo(struct ubfab_file *file,
				       union ubfab_ioctl_arg *arg)
{
	ubfab_mem_free(file, arg->mem_alloc.offset);
}

static int ubfab_ioctl_mem_free(struct ubfab_file *file,
				union ubfab_ioctl_arg *arg)
{
	if (arg->mem_free.flags)
		return -EINVAL;
	return ubfab_mem_free(file, arg->mem_free.offset);
}

static int ubfab_ioctl_seg_export(struct ubfab_file *file,
				  union ubfab_ioctl_arg *arg)
{
	return ubfab_seg_export(file, &arg->seg_export);
}

static void ubfab_ioctl_seg_export_undo(struct ubfab_file *file,
					union ubfab_ioctl_arg *arg)
{
	ubfab_seg_unexport(file, arg->seg_export.token_id);
}

static int ubfab_ioctl_seg_unexport(struct ubfab_file *file,
				    union ubfab_ioctl_arg *arg)
{
	return ubfab_seg_unexport(file, arg->seg_unexport.token_id);
}

static int ubfab_ioctl_seg_import(struct ubfab_file *file,
				  union ubfab_ioctl_arg *arg)
{
	return ubfab_seg_import(file, &arg->seg_import);
}

static void ubfab_ioctl_seg_import_undo(struct ubfab_file *file,
					union ubfab_ioctl_arg *arg)
{
	ubfab_seg_unimport(file, arg->seg_import.mmap_offset);
}

static int ubfab_ioctl_seg_unimport(struct ubfab_file *file,
				    union ubfab_ioctl_arg *arg)
{
	if (arg->seg_unimport.__reserved)
		return -EINVAL;
	return ubfab_seg_unimport(file, arg->seg_unimport.mmap_offset);
}

static int ubfab_ioctl_queue_create(struct ubfab_file *file,
				    union ubfab_ioctl_arg *arg)
{
	return ubfab_queue_create(file, &arg->queue_create);
}

static void ubfab_ioctl_queue_create_undo(struct ubfab_file *file,
					  union ubfab_ioctl_arg *arg)
{
	ubfab_queue_create_undo(&arg->queue_create);
}

static void ubfab_ioctl_queue_create_commit(struct ubfab_file *file,
					    union ubfab_ioctl_arg *arg)
{
	ubfab_queue_create_commit(&arg->queue_create);
}

static int ubfab_ioctl_rq_create(struct ubfab_file *file,
				 union ubfab_ioctl_arg *arg)
{
	return ubfab_rq_create(file, &arg->rq_create);
}

static void ubfab_ioctl_rq_create_undo(struct ubfab_file *file,
				       union ubfab_ioctl_arg *arg)
{
	ubfab_rq_create_undo(&arg->rq_create);
}

static void ubfab_ioctl_rq_create_commit(struct ubfab_file *file,
					 union ubfab_ioctl_arg *arg)
{
	ubfab_rq_create_commit(&arg->rq_create);
}

static int ubfab_ioctl_jetty_create(struct ubfab_file *file,
				    union ubfab_ioctl_arg *arg)
{
	return ubfab_jetty_create(file, &arg->jetty_create);
}

static void ubfab_ioctl_jetty_create_undo(struct ubfab_file *file,
					  union ubfab_ioctl_arg *arg)
{
	ubfab_jetty_create_undo(&arg->jetty_create);
}

static void ubfab_ioctl_jetty_create_commit(struct ubfab_file *file,
					    union ubfab_ioctl_arg *arg)
{
	ubfab_jetty_create_commit(&arg->jetty_create);
}

/**
 * struct ubfab_ioctl_op - one ioctl command
 * @size: size of the argument this module knows
 * @min_size: smallest size user space may pass (the first version's)
 * @ioctl_num: the full command number
 * @execute: carries the command out
 * @undo: for commands with results, reverts @execute when the result cannot
 *	be copied out
 * @commit: for commands whose result must not be visible before it is
 *	copied out (a new file descriptor), makes it visible; else NULL
 */
struct ubfab_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int ioctl_num;
	int (*execute)(struct ubfab_file *file, union ubfab_ioctl_arg *arg);
	void (*undo)(struct ubfab_file *file, union ubfab_ioctl_arg *arg);
	void (*commit)(struct ubfab_file *file, union ubfab_ioctl_arg *arg);
};

static const struct ubfab_ioctl_op ubfab_ioctl_ops[] = {
	{
		.size = sizeof(struct ubfab_mem_alloc),
		.min_size = offsetofend(struct ubfab_mem_alloc, offset),
		.ioctl_num = UBFAB_IOCTL_MEM_ALLOC,
		.execute = ubfab_ioctl_mem_alloc,
		.undo = ubfab_ioctl_mem_alloc_undo,
	},
	{
		.size = sizeof(struct ubfab_mem_free),
		.min_size = offsetofend(struct ubfab_mem_free, offset),
		.ioctl_num = UBFAB_IOCTL_MEM_FREE,
		.execute = ubfab_ioctl_mem_free,
		.undo = NULL,
	},
	{
		.size = sizeof(struct ubfab_seg_export),
		.min_size = offsetofend(struct ubfab_seg_export, token_id),
		.ioctl_num = UBFAB_IOCTL_SEG_EXPORT,
		.execute = ubfab_ioctl_seg_export,
		.undo = ubfab_ioctl_seg_export_undo,
	},
	{
		.size = sizeof(struct ubfab_seg_unexport),
		.min_size = offsetofend(struct ubfab_seg_unexport, token_id),
		.ioctl_num = UBFAB_IOCTL_SEG_UNEXPORT,
		.execute = ubfab_ioctl_seg_unexport,
		.undo = NULL,
	},
	{
		.size = sizeof(struct ubfab_seg_import),
		.min_size = offsetofend(struct ubfab_seg_import, mmap_offset),
		.ioctl_num = UBFAB_IOCTL_SEG_IMPORT,
		.execute = ubfab_ioctl_seg_import,
		.undo = ubfab_ioctl_seg_import_undo,
	},
	{
		.size = sizeof(struct ubfab_seg_unimport),
		.min_size = offsetofend(struct ubfab_seg_unimport, mmap_offset),
		.ioctl_num = UBFAB_IOCTL_SEG_UNIMPORT,
		.execute = ubfab_ioctl_seg_unimport,
		.undo = NULL,
	},
	{
		.size = sizeof(struct ubfab_queue_create),
		.min_size = offsetofend(struct ubfab_queue_create, cq),
		.ioctl_num = UBFAB_IOCTL_QUEUE_CREATE,
		.execute = ubfab_ioctl_queue_create,
		.undo = ubfab_ioctl_queue_create_undo,
		.commit = ubfab_ioctl_queue_create_commit,
	},
	{
		.size = sizeof(struct ubfab_rq_create),
		.min_size = offsetofend(struct ubfab_rq_create, rcq),
		.ioctl_num = UBFAB_IOCTL_RQ_CREATE,
		.execute = ubfab_ioctl_rq_create,
		.undo = ubfab_ioctl_rq_create_undo,
		.commit = ubfab_ioctl_rq_create_commit,
	},
	{
		.size = sizeof(struct ubfab_jetty_create),
		.min_size = sizeof(struct ubfab_jetty_create),
		.ioctl_num = UBFAB_IOCTL_JETTY_CREATE,
		.execute = ubfab_ioctl_jetty_create,
		.undo = ubfab_ioctl_jetty_create_undo,
		.commit = ubfab_ioctl_jetty_create_commit,
	},
};

/**
 * ubfab_ioctl_copy_in() - copy in an ioctl argument that starts with its
 *	own size
 * @arg: where it goes
 * @size: the size of the argument this module knows
 * @min_size: the smallest size accepted (the first version's)
 * @ubuf: the user's argument
 * @usize: out: the size user space gave, for copying out
 *
 * A shorter argument than ours reads as ours with the rest 0; a longer
 * one must have 0 in what we do not know (copy_struct_from_user()).
 *
 * Return: 0, -EFAULT, -EINVAL (size below @min_size) or -E2BIG.
 */
int ubfab_ioctl_copy_in(void *arg, size_t size, size_t min_size,
			void __user *ubuf, u32 *usize)
{
	if (get_user(*usize, (u32 __user *)ubuf))
		return -EFAULT;
	if (*usize < min_size)
		return -EINVAL;
	return copy_struct_from_user(arg, size, ubuf, *usize);
}

static long ubfab_file_ioctl(struct file *filp, unsigned int cmd,
			     unsigned long uarg)
{
	struct ubfab_file *file = filp->private_data;
	void __user *ubuf = (void __user *)uarg;
	const struct ubfab_ioctl_op *op = NULL;
	union ubfab_ioctl_arg arg;
	unsigned int i;
	u32 usize;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ubfab_ioctl_ops); i++) {
		if (ubfab_ioctl_ops[i].ioctl_num == cmd)
			op = &ubfab_ioctl_ops[i];
	}
	if (!op)
		return -ENOTTY;

	ret = ubfab_ioctl_copy_in(&arg, op->size, op->min_size, ubuf, &usize);
	if (ret)
		return ret;

	ret = op->execute(file, &arg);
	if (ret || !op->undo)
		return ret;
	if (copy_to_user(ubuf, &arg, min_t(u32, usize, op->size))) {
		op->undo(file, &arg);
		return -EFAULT;
	}
	if (op->commit)
		op->commit(file, &arg);
	return 0;
}

const struct file_operations ubfab_entity_fops = {
	.owner = THIS_MODULE,
	.open = ubfab_file_open,
	.release = ubfab_file_release,
	.unlocked_ioctl = ubfab_file_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ubfab_file_mmap,
	.read = ubfab_event_read,
	.poll = ubfab_event_poll,
};

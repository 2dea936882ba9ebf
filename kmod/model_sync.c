// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fabric model, causality: the modeled time of what satisfies a
 * wait, so that the wait ends no earlier than it.
 *
 * A flag word written by a modeled write (ATOMIC, or WRITE_NOTIFY's
 * notify add) is stamped, in its owner's @stamps, with that write's
 * modeled arrival before the write is done; a WAIT_VALUE that the word
 * satisfies ends no earlier than the stamp it finds there (sync.c). An
 * EVENT_RECORD leaves its modeled time in its event (struct
 * ubfab_queue_event), which an EVENT_WAIT it satisfies ends no earlier
 * than. A word that no modeled write stamped (a CPU store through a
 * mapping) counts as time 0, unless the program stamped it with a queue's
 * clock first (UBFAB_IOCTL_QUEUE_STAMP). The stamp is the last modeled write's, in
 * the order the host ran them; Documentation/model.rst says what that
 * means for programs.
 *
 * Ordering: the stamp is stored before the write's fully ordered atomic
 * (xfer.c), and WAIT_VALUE reads the word with an acquire load before it
 * looks the stamp up, so a wait that sees the written value sees its
 * stamp. Stamps are kept in whole nanoseconds (an xarray value holds 63
 * bits) and go with the memory they stamp: an allocation's are erased
 * when it is freed (mem.c). The fabric counts the stamps alive, for the
 * model's memory (model_mem.c).
 */
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "engine.h"
#include "model.h"
#include "trace.h"
#include "xfer.h"

/* The word at @addr of an entity's memory, as an index of its @stamps. */
static unsigned long ubfab_model_word(u64 addr)
{
	return addr / sizeof(u64);
}

/**
 * ubfab_model_stamp_write() - stamp a flag word a write is about to change
 * @q: the queue running the write
 * @ex: the entry: ATOMIC or WRITE_NOTIFY, its data moved
 * @plane: the plane the write takes
 * @owner: the word's owner
 * @addr: the word's address in @owner's memory
 * @bytes: what the entry has moved with the write
 *
 * The stamp is the write's modeled arrival were the entry charged now.
 * Out of memory, the word keeps its old stamp (or none). Context: the
 * queue's run_lock and @owner->mem_lock held, the memory checked still
 * there; may sleep.
 */
void ubfab_model_stamp_write(struct ubfab_queue *q,
			     const struct ubfab_exec *ex, u32 plane,
			     struct ubfab_entity *owner, u64 addr, u32 bytes)
{
	struct ubfab_exec as_done = *ex;
	u64 ps;

	if (!static_branch_likely(&ubfab_model_on))
		return;
	ubfab_model_note(&as_done, plane, owner);
	as_done.bytes = bytes;
	ps = ubfab_model_arrival_ps(&q->model, &q->file->entity->loc,
				    &as_done);
	if (!ubfab_model_stamp_set(owner, addr, ps))
		trace_ubfab_stamp(q, ex->sqe.user_data, owner, addr, ps);
}

/**
 * ubfab_model_stamp_set() - stamp a flag word
 * @owner: the word's owner
 * @addr: the word's address in @owner's memory
 * @ps: the stamp, kept in whole nanoseconds
 *
 * Context: @owner->mem_lock held, the memory checked still there; may
 * sleep. Return: 0 or -ENOMEM (the word keeps its old stamp, or none).
 */
int ubfab_model_stamp_set(struct ubfab_entity *owner, u64 addr, u64 ps)
{
	u64 ns = min_t(u64, ubfab_model_ns(ps), LONG_MAX);
	void *old;

	old = xa_store(&owner->stamps, ubfab_model_word(addr), xa_mk_value(ns),
		       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (xa_is_err(old))
		return xa_err(old);
	/* a word stamped for the first time since its memory came */
	if (!old)
		atomic_long_inc(&owner->fabric->model_stamps);
	return 0;
}

/**
 * ubfab_model_stamp() - the modeled time a flag word was last written
 * @owner: the word's owner
 * @addr: the word's address in @owner's memory
 *
 * Return: picoseconds (whole nanoseconds), or 0 when no modeled write
 * stamped it.
 */
u64 ubfab_model_stamp(struct ubfab_entity *owner, u64 addr)
{
	void *entry = xa_load(&owner->stamps, ubfab_model_word(addr));

	return entry ? (u64)xa_to_value(entry) * UBFAB_MODEL_PS_PER_NS : 0;
}

/**
 * ubfab_model_forget() - erase the stamps of a range of memory that goes
 * @owner: its owner
 * @addr: where it starts, 8-byte aligned
 * @len: its bytes
 */
void ubfab_model_forget(struct ubfab_entity *owner, u64 addr, u64 len)
{
	unsigned long first = ubfab_model_word(addr), idx;
	unsigned long last = ubfab_model_word(addr + len - 1);
	void *entry;

	xa_for_each_range(&owner->stamps, idx, entry, first, last)
		if (xa_erase(&owner->stamps, idx))
			atomic_long_dec(&owner->fabric->model_stamps);
}

/**
 * ubfab_model_stamp_ioctl() - UBFAB_IOCTL_QUEUE_STAMP: stamp a word with
 *	@q's modeled clock before a CPU store to it
 * @q: the queue
 * @uarg: the user's struct ubfab_queue_stamp
 *
 * Return: 0, -EINVAL (flags, size, alignment), -E2BIG (unknown trailing
 * fields not 0), -ENOENT (no such word), -EACCES (the import lacks
 * UBFAB_SEG_WRITE), -ENOMEM, -EFAULT, or -EINTR when killed waiting for
 * the queue.
 */
long ubfab_model_stamp_ioctl(struct ubfab_queue *q, void __user *uarg)
{
	struct ubfab_queue_stamp arg;
	u32 usize;
	u16 status;
	int ret;

	ret = ubfab_ioctl_copy_in(&arg, sizeof(arg),
				  offsetofend(struct ubfab_queue_stamp, now_ns),
				  uarg, &usize);
	if (ret)
		return ret;
	if (arg.flags & ~UBFAB_STAMP_FLAGS)
		return -EINVAL;
	ret = mutex_lock_killable(&q->run_lock);
	if (ret)
		return ret;
	status = ubfab_xfer_stamp(q, arg.addr, arg.flags & UBFAB_STAMP_LOCAL,
				  q->model.now_ps);
	arg.now_ns = ubfab_model_now_ns(&q->model);
	mutex_unlock(&q->run_lock);
	switch (status) {
	case UBFAB_CQE_OK:
		break;
	case UBFAB_CQE_BAD_ENTRY:
		return -EINVAL;
	case UBFAB_CQE_ACCESS:
		return -EACCES;
	case UBFAB_CQE_NOMEM:
		return -ENOMEM;
	default:
		return -ENOENT;
	}
	if (copy_to_user(uarg, &arg, min_t(u32, usize, sizeof(arg))))
		return -EFAULT;
	return 0;
}

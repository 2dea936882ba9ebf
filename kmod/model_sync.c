// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab fabric model, causality: the modeled time of what satisfies a
 * wait, so that the wait ends no earlier than it.
 *
 * A flag word written by a modeled write (ATOMIC, or WRITE_NOTIFY's
 * notify add) is stamped, in its owner's @stamps, with that write's
 * modeled arrival and the value it leaves; a WAIT_VALUE that the word
 * satisfies ends no earlier than the stamp of the write that satisfied it
 * (sync.c): of a word's last UBFAB_MODEL_STAMPS stamps, the one that left
 * the value the wait saw, or an earlier one from which on the word
 * satisfied it, so that a writer which ran ahead on the host (a counter
 * added to again before the wait looked) does not hold the wait to its
 * later writes. An EVENT_RECORD leaves its modeled time in its event
 * (struct ubfab_queue_event), which an EVENT_WAIT it satisfies ends no
 * earlier than. A word that no modeled write stamped (a CPU store through
 * a mapping) counts as time 0, unless the program stamped it with a
 * queue's clock first (UBFAB_IOCTL_QUEUE_STAMP). Documentation/model.rst
 * says what that means for programs.
 *
 * Locking and ordering: a write and its stamp are made together under
 * the xarray lock of the owner's @stamps (xfer.c), and a wait reads the
 * word with an acquire load before it looks the stamps up under the same
 * lock, so a wait that sees the written value finds its stamp. A word's
 * stamps (struct ubfab_model_stamps) are made on its first stamp and go
 * with the memory they stamp: an allocation's are freed when it is
 * (mem.c), under the owner's mem_lock held exclusive, which every
 * stamping write holds shared. The fabric counts the stamped words, for
 * the model's memory (model_mem.c).
 */
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "engine.h"
#include "model.h"
#include "trace.h"
#include "xfer.h"

/*
 * A stamp: the value its write left in the word, and its modeled arrival
 * in ps, UBFAB_MODEL_STAMP_UNKNOWN set when the value is not known (a
 * stamp before a CPU store).
 */
struct ubfab_model_stamp {
	u64 value;
	u64 ps;
};

#define UBFAB_MODEL_STAMP_UNKNOWN	BIT_ULL(63)

/**
 * struct ubfab_model_stamps - the stamps of one flag word: its last
 *	modeled writes, in the order the host ran them, up to @size
 * @head: where the next stamp goes; the newest is just before it
 * @kept: how many are kept, the newest ones
 * @size: how many @at holds: 3, 7, 15, ... 255 (the allocation a power
 *	of two)
 * @waited: a wait has looked at the word: it may grow
 * @at: the stamps, a ring
 *
 * Guarded by the lock of the owner's @stamps (xa_lock()).
 */
struct ubfab_model_stamps {
	u16 head;
	u16 kept;
	u16 size;
	bool waited;
	struct ubfab_model_stamp at[];
};

#define UBFAB_MODEL_STAMPS_MIN	3
#define UBFAB_MODEL_STAMPS_MAX	255

/* The word at @addr of an entity's memory, as an index of its @stamps. */
static unsigned long ubfab_model_word(u64 addr)
{
	return addr / sizeof(u64);
}

/* The @k-th stamp of @w back from the newest (@k = 0), @k < @w->kept. */
static struct ubfab_model_stamp *
ubfab_model_back(struct ubfab_model_stamps *w, u32 k)
{
	return &w->at[(w->head + w->size - 1 - k) % w->size];
}

/*
 * Room for @size stamps, counted in @fabric's bytes; NULL out of memory.
 * The stamps are kept, in order, from @old if given.
 */
static struct ubfab_model_stamps *
ubfab_model_stamps_alloc(struct ubfab_fabric *fabric, u16 size,
			 struct ubfab_model_stamps *old, gfp_t gfp)
{
	size_t bytes = struct_size(old, at, size);
	struct ubfab_model_stamps *w;
	u32 k;

	w = kmalloc(bytes, gfp | __GFP_ACCOUNT | __GFP_NOWARN);
	if (!w)
		return NULL;
	*w = (struct ubfab_model_stamps) { .size = size };
	if (old) {
		for (k = old->kept; k-- > 0;)
			w->at[w->kept++] = *ubfab_model_back(old, k);
		w->head = w->kept;
		w->waited = old->waited;
	}
	atomic_long_add(bytes, &fabric->model_stamp_bytes);
	return w;
}

static void ubfab_model_stamps_free(struct ubfab_fabric *fabric,
				    struct ubfab_model_stamps *w)
{
	atomic_long_sub(struct_size(w, at, w->size),
			&fabric->model_stamp_bytes);
	kfree(w);
}

/*
 * Give the word at @addr of @owner's memory its stamps (none yet) if it
 * has none. Context: @owner->mem_lock held, the memory checked still
 * there (so the stamps stay); may sleep. Return: 0 or -ENOMEM.
 */
static int ubfab_model_stamps_make(struct ubfab_entity *owner, u64 addr)
{
	unsigned long idx = ubfab_model_word(addr);
	struct ubfab_model_stamps *w;
	int err;

	if (xa_load(&owner->stamps, idx))
		return 0;
	w = ubfab_model_stamps_alloc(owner->fabric, UBFAB_MODEL_STAMPS_MIN,
				     NULL, GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	err = xa_insert(&owner->stamps, idx, w,
			GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!err) {
		atomic_long_inc(&owner->fabric->model_stamps);
		return 0;
	}
	ubfab_model_stamps_free(owner->fabric, w);
	/* another writer made them meanwhile */
	return err == -EBUSY ? 0 : err;
}

/**
 * ubfab_model_stamp_add() - record the newest stamp of a word
 * @owner: the word's owner
 * @addr: the word's address in @owner's memory, given its stamps
 *	(ubfab_model_stamp_prepare())
 * @value: what the write leaves in the word
 * @known: whether @value is known (not for a stamp before a CPU store)
 * @ps: the stamp, in picoseconds
 *
 * A word a wait has looked at keeps up to UBFAB_MODEL_STAMPS_MAX stamps,
 * growing while memory comes without waiting; others, and one that cannot
 * grow, drop their oldest. Context: the lock of @owner's @stamps held,
 * with the write done under it, so that a wait which sees the value finds
 * the stamp.
 */
void ubfab_model_stamp_add(struct ubfab_entity *owner, u64 addr, u64 value,
			   bool known, u64 ps)
{
	unsigned long idx = ubfab_model_word(addr);
	struct ubfab_model_stamps *w = xa_load(&owner->stamps, idx), *big;

	if (w->kept == w->size && w->waited &&
	    w->size < UBFAB_MODEL_STAMPS_MAX) {
		big = ubfab_model_stamps_alloc(owner->fabric, w->size * 2 + 1,
					       w, GFP_NOWAIT);
		/* an occupied slot: the store allocates nothing */
		if (big && !xa_is_err(__xa_store(&owner->stamps, idx, big,
						 GFP_NOWAIT))) {
			ubfab_model_stamps_free(owner->fabric, w);
			w = big;
		} else if (big) {
			ubfab_model_stamps_free(owner->fabric, big);
		}
	}
	w->at[w->head] = (struct ubfab_model_stamp) {
		.value = value,
		.ps = min_t(u64, ps, UBFAB_MODEL_STAMP_UNKNOWN - 1) |
		      (known ? 0 : UBFAB_MODEL_STAMP_UNKNOWN),
	};
	w->head = (w->head + 1) % w->size;
	if (w->kept < w->size)
		w->kept++;
}

/**
 * ubfab_model_stamp_prepare() - give a flag word a write is about to
 *	change its stamps, and work out the write's stamp
 * @q: the queue running the write
 * @ex: the entry: ATOMIC or WRITE_NOTIFY, its data moved
 * @plane: the plane the write takes
 * @owner: the word's owner
 * @addr: the word's address in @owner's memory
 * @bytes: what the entry has moved with the write
 * @ps: out: the stamp, the write's modeled arrival were the entry charged
 *	now
 *
 * The caller then does the write and ubfab_model_stamp_add() under
 * xa_lock(&@owner->stamps). Context: the queue's run_lock and
 * @owner->mem_lock held, the memory checked still there; may sleep.
 * Return: whether to stamp: false with the model off or out of memory
 * (the word keeps no stamp of this write).
 */
bool ubfab_model_stamp_prepare(struct ubfab_queue *q,
			       const struct ubfab_exec *ex, u32 plane,
			       struct ubfab_entity *owner, u64 addr, u32 bytes,
			       u64 *ps)
{
	struct ubfab_exec as_done = *ex;

	if (!static_branch_likely(&ubfab_model_on) ||
	    ubfab_model_stamps_make(owner, addr))
		return false;
	ubfab_model_note(&as_done, plane, owner);
	as_done.bytes = bytes;
	*ps = ubfab_model_arrival_ps(&q->model, &q->file->entity->loc,
				     &as_done);
	trace_ubfab_stamp(q, ex->sqe.user_data, owner, addr, *ps);
	return true;
}

/**
 * ubfab_model_stamp_set() - stamp a flag word before a CPU store to it
 * @owner: the word's owner
 * @addr: the word's address in @owner's memory
 * @ps: the stamp
 *
 * The value the store leaves is not known: a wait that sees a value no
 * stamp left takes the newest stamp (ubfab_model_stamp()).
 * Context: @owner->mem_lock held, the memory checked still there; may
 * sleep. Return: 0 or -ENOMEM (the word keeps its stamps as they were).
 */
int ubfab_model_stamp_set(struct ubfab_entity *owner, u64 addr, u64 ps)
{
	int err = ubfab_model_stamps_make(owner, addr);

	if (err)
		return err;
	xa_lock(&owner->stamps);
	ubfab_model_stamp_add(owner, addr, 0, false, ps);
	xa_unlock(&owner->stamps);
	return 0;
}

/* Whether @st left a value that satisfies a wait for @target (@eq). */
static bool ubfab_model_satisfies(const struct ubfab_model_stamp *st,
				  bool eq, u64 target)
{
	return !(st->ps & UBFAB_MODEL_STAMP_UNKNOWN) &&
	       (eq ? st->value == target : st->value >= target);
}

/*
 * The stamp of @w that satisfied a wait which saw @seen, waiting for the
 * word to equal (@eq) or reach @target: the newest stamp that left
 * @seen, or the oldest of the stamps before it that left values
 * satisfying the wait too, without one between that did not; the stamps
 * older than it are dropped (no later wait needs them: one that does
 * takes the oldest kept, later than its own). A value no kept stamp left
 * (a CPU store, or stamps dropped) takes the newest.
 */
static u64 ubfab_model_stamps_pick(struct ubfab_model_stamps *w, u64 seen,
				   bool eq, u64 target)
{
	struct ubfab_model_stamp *st = NULL;
	u32 k, found;

	w->waited = true;
	for (k = 0; k < w->kept; k++) {
		st = ubfab_model_back(w, k);
		if (!(st->ps & UBFAB_MODEL_STAMP_UNKNOWN) && st->value == seen)
			break;
	}
	if (k == w->kept)
		return w->kept ? ubfab_model_back(w, 0)->ps &
				 ~UBFAB_MODEL_STAMP_UNKNOWN : 0;
	for (found = k++; k < w->kept; k++) {
		if (!ubfab_model_satisfies(ubfab_model_back(w, k), eq, target))
			break;
		found = k;
	}
	st = ubfab_model_back(w, found);
	w->kept = found + 1;
	return st->ps;
}

/**
 * ubfab_model_stamp() - the modeled arrival of the write that satisfied
 *	a wait on a flag word
 * @owner: the word's owner
 * @addr: the word's address in @owner's memory
 * @seen: the value the wait saw, with an acquire load
 * @eq: the wait is for the word to equal @target, else to reach it
 * @target: the value waited for
 *
 * The write that left @seen, or an earlier one from which on the word
 * satisfied the wait (ubfab_model_stamps_pick()): a writer that has run
 * ahead of the waiter on the host (a counter added to again before the
 * wait looked) does not hold the wait to its later writes. The write that
 * left @seen recorded its stamp under the lock taken here before a load
 * could see its value.
 *
 * Return: picoseconds, or 0 when no modeled write stamped the word.
 */
u64 ubfab_model_stamp(struct ubfab_entity *owner, u64 addr, u64 seen,
		      bool eq, u64 target)
{
	struct ubfab_model_stamps *w;
	u64 ps = 0;

	xa_lock(&owner->stamps);
	w = xa_load(&owner->stamps, ubfab_model_word(addr));
	if (w)
		ps = ubfab_model_stamps_pick(w, seen, eq, target);
	xa_unlock(&owner->stamps);
	return ps;
}

/**
 * ubfab_model_forget() - erase the stamps of a range of memory that goes
 * @owner: its owner
 * @addr: where it starts, 8-byte aligned
 * @len: its bytes
 *
 * Context: @owner->mem_lock held exclusively, so no write is stamping;
 * a wait looking up a word's stamps holds the xarray's lock, which
 * xa_erase() takes before the stamps are freed.
 */
void ubfab_model_forget(struct ubfab_entity *owner, u64 addr, u64 len)
{
	unsigned long first = ubfab_model_word(addr), idx;
	unsigned long last = ubfab_model_word(addr + len - 1);
	struct ubfab_model_stamps *w;

	xa_for_each_range(&owner->stamps, idx, w, first, last) {
		w = xa_erase(&owner->stamps, idx);
		if (w) {
			ubfab_model_stamps_free(owner->fabric, w);
			atomic_long_dec(&owner->fabric->model_stamps);
		}
	}
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

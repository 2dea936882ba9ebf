// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab queue data path: the runners of the entries that move data
 * (op.c's table names them): WRITE, READ, WRITE_NOTIFY and ATOMIC into and
 * out of imported segments, COPY and FILL within the entity's memory, and
 * the load of WAIT_VALUE. It owns the checks of their addresses and
 * rights; each chunk that crosses a link goes through ubfab_route_cross()
 * (route.h), which also says which plane it takes. Entries arrive copied
 * into kernel memory, their fields checked against their opcode's row;
 * addresses and sizes in them are hostile.
 *
 * Locking. Pages and imports are found through the memory subsystem's
 * functions (mem.h): pages with the owner's mem_lock held shared
 * (revocation frees them with it held exclusive) or inside the window
 * they lie in, and touched under it or inside that window (the fast path,
 * below). A remote transfer is cut
 * into chunks of at most UBFAB_PLANE_CHUNK bytes; for each chunk, this
 * file takes both entities' mem_locks shared, in the order of their eids
 * (one lock for a loopback import), then:
 *
 *   1. finds the allocation holding the local range (LOCAL_RANGE when it
 *      is gone, e.g. freed by another thread);
 *   2. checks the import's window is not revoked (REVOKED otherwise: the
 *      exporter's old pages are never touched once revoked);
 *   3. copies page by page, walking both owners' xarrays as it goes
 *      (ubfab_xfer_move()), allocating destination pages on first touch
 *      (NOMEM stops it at the page that could not be allocated); whole
 *      pages with non-temporal stores, as DMA writes bypass the
 *      initiator's caches.
 *
 * The fixed order is what makes holding two of them safe: they share a
 * lock class, and a reader that waits behind a writer on one lock while
 * holding another could close a cycle only with a reader that took them
 * the other way round. Nothing takes a mem_lock exclusive while holding
 * another one. COPY and FILL take only the local mem_lock shared for each
 * chunk. The locks are dropped and cond_resched() called between chunks,
 * so a transfer of UBFAB_SQE_MAX_LENGTH bytes holds no lock long.
 * Untouched source pages read as zeros and are not allocated.
 *
 * A WRITE or READ of at most UBFAB_XFER_INLINE bytes, the small message
 * whose rate is the cost of the checks alone, takes a path of its own.
 * The queue engine hands runs of them to ubfab_xfer_fast_run() (a burst,
 * see engine.c). When the translation cache (below) holds the import and
 * the allocation, a page on each side is there for each range, and
 * neither range crosses a page, the fast path copies from page to page
 * with no mem_lock at all, inside both windows: it enters them
 * (ubfab_window_enter()) once for the run and leaves them after it. A
 * revocation waits for the copies inside a window, and pages go only
 * after the window holding them is revoked; so within the run the
 * allocation, the import and every page of theirs found stay, and the
 * per-entry checks are the ones that depend on the entry. The first entry
 * it does not take (a miss in the cache, a range across a page, an
 * untouched page, a revoked window, no route, any failed check) goes the
 * slow way, ubfab_xfer_run_data(), which checks and reports everything:
 * through the queue's bounce buffer, the source copied into it under its
 * owner's mem_lock, then out of it under the other's, one lock at a time,
 * filling the cache for the next entries. The helpers of both are
 * __always_inline: under QEMU TCG every return costs a lookup of the next
 * translated block, and the calls were a fifth of the instructions.
 *
 * The translation cache. Each queue remembers (struct ubfab_xfer_cache)
 * the import it resolved last, the allocation it found last, and the page
 * it used last on each side, with the generation of the object they came
 * from: the file's imports_gen for the import, the entity's mem_gen for
 * allocations and pages. A generation changes, under the lock that guards
 * what it covers, before anything it covers goes; so an entry that finds
 * it unchanged (mem_gen: under the mem_lock, or before entering the
 * windows on the fast path, as the pages stay until the window is revoked)
 * may use what was cached. The cached page on each side lies in the
 * cached allocation or import: the cache forgets it when it learns
 * another of those. The windows of the cached import and
 * allocation are referenced by the cache, so they stay valid as memory;
 * whether they were revoked is read by every entry, under the owner's
 * mem_lock or by ubfab_window_enter(). A miss looks the import up under
 * the file's imports_lock (lock order: imports_lock then a mem_lock), the
 * allocation in the file's list, the page in the owner's xarray.
 *
 * Memory ordering. WRITE_NOTIFY's data is stored (through
 * kmap_local_page(); whole pages with memcpy_flushcache(), whose
 * non-temporal stores are weakly ordered even on x86, so
 * ubfab_xfer_move() ends with wmb()) before the notify add, which is
 * atomic64_fetch_add(): a value-returning atomic, fully ordered
 * (Documentation/atomic_t.txt), so it acts as smp_mb() before the add.
 * The completion is published after the wmb() too. A receiver that reads
 * the new notify value with acquire semantics (or a relaxed load followed
 * by an acquire fence) through its own mapping then sees all the data.
 * ATOMIC uses the same atomic64_*() operations on the page itself, so it
 * is atomic against user-space atomics on that memory on any CPU.
 * WAIT_VALUE's load is an acquire, so entries after it see what was
 * written before the value.
 *
 * Messages (SEND, SEND_IMM, WRITE_IMM) are delivered here too, to a
 * receive queue (msg.c): the receiver is found and its token checked,
 * then a posted receive is taken under the receive queue's lock, which
 * is held while the data moves (run_lock -> rq lock -> imports_lock ->
 * mem_lock) and until the receive completion is written. A SEND's data
 * goes into the receive's buffer through the window of the receiver's
 * allocation, a WRITE_IMM's into the import, by the same chunk loop as a
 * WRITE, so the fabric model prices both as a WRITE of the same bytes.
 *
 * Planes: route.h.
 */
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "engine.h"
#include "mem.h"
#include "msg.h"
#include "route.h"
#include "trace.h"

/**
 * ubfab_xfer_npages() - how many pages a byte range touches
 * @addr: first byte
 * @len: bytes, at least 1; @addr + @len must not overflow
 *
 * Return: the number of pages from the one holding @addr to the one holding
 * its last byte.
 */
u32 ubfab_xfer_npages(u64 addr, u32 len)
{
	return ((addr + len - 1) >> PAGE_SHIFT) - (addr >> PAGE_SHIFT) + 1;
}

/**
 * ubfab_xfer_range_ok() - whether a range lies within a space
 * @off: start of the range
 * @len: its length
 * @size: bytes in the space, which starts at 0
 *
 * Return: true when [@off, @off + @len) is inside [0, @size), without
 * overflow.
 */
bool ubfab_xfer_range_ok(u64 off, u64 len, u64 size)
{
	u64 end;

	return !check_add_overflow(off, len, &end) && end <= size;
}

/**
 * struct ubfab_xfer - one entry being run
 * @q: the queue
 * @ex: the entry
 * @op: its opcode's row
 * @file: the queue's entity file
 * @cache: the queue's translation cache
 * @walk: the planes its chunks take
 * @moved: data bytes moved so far
 */
struct ubfab_xfer {
	struct ubfab_queue *q;
	struct ubfab_exec *ex;
	const struct ubfab_opdesc *op;
	struct ubfab_file *file;
	struct ubfab_xfer_cache *cache;
	struct ubfab_route_walk walk;
	u32 moved;
};

/*
 * The window of the allocation of @file holding [@addr, @addr + @len), or
 * NULL. Context: the file's entity's mem_lock held; the range is within
 * the entity's memory.
 */
static struct ubfab_window *ubfab_xfer_find_window(struct ubfab_file *file,
						   u64 addr, u32 len)
{
	return ubfab_mem_find_window(file, addr >> PAGE_SHIFT,
				     ubfab_xfer_npages(addr, len));
}

/*
 * Whether the translation cache's allocation holds [@addr, @addr + @len)
 * and is still there (@gen: the entity's mem_gen now).
 */
static bool ubfab_xfer_local_hit(const struct ubfab_xfer_cache *c, u64 gen,
				 u64 addr, u32 len)
{
	/* addr + len does not overflow: the range is in the entity's memory */
	return c->local_gen == gen && addr >= c->local_start &&
	       addr + len <= c->local_end;
}

/*
 * The window of @x's file's allocation holding [@addr, @addr + @len), or
 * NULL; through the translation cache, which learns it.
 * Context: the file's entity's mem_lock held; the range is within the
 * entity's memory.
 */
static __always_inline struct ubfab_window *
ubfab_xfer_local_win(struct ubfab_xfer *x, u64 addr, u32 len)
{
	struct ubfab_entity *entity = x->file->entity;
	struct ubfab_xfer_cache *c = x->cache;
	u64 gen = ubfab_mem_gen(entity);
	struct ubfab_window *win;

	if (ubfab_xfer_local_hit(c, gen, addr, len))
		return c->local_win;
	win = ubfab_xfer_find_window(x->file, addr, len);
	if (!win)
		return NULL;
	/* the cache's own reference: the fast path enters the window */
	kref_get(&win->ref);
	if (c->local_win)
		ubfab_window_put(c->local_win);
	/* the cached local page is one of the cached allocation's */
	c->lpage.owner = NULL;
	c->local_gen = gen;
	c->local_start = (u64)win->first << PAGE_SHIFT;
	c->local_end = c->local_start + ((u64)win->npages << PAGE_SHIFT);
	c->local_win = win;
	return win;
}

/* Whether [@addr, @addr + @len) lies within one allocation of @x's file. */
static u16 ubfab_xfer_check_local(struct ubfab_xfer *x, u64 addr, u32 len)
{
	struct ubfab_entity *entity = x->file->entity;
	struct ubfab_window *win;

	if (!ubfab_xfer_range_ok(addr, len, entity->mem_size))
		return UBFAB_CQE_LOCAL_RANGE;
	/* the allocation was there when the generation was read: enough */
	if (ubfab_xfer_local_hit(x->cache, ubfab_mem_gen(entity), addr, len))
		return UBFAB_CQE_OK;
	down_read(&entity->mem_lock);
	win = ubfab_xfer_local_win(x, addr, len);
	up_read(&entity->mem_lock);
	return win ? UBFAB_CQE_OK : UBFAB_CQE_LOCAL_RANGE;
}

/**
 * struct ubfab_xfer_remote - a remote range, resolved
 * @win: the import's window, referenced
 * @addr: first byte, as an address in @win->owner's memory
 */
struct ubfab_xfer_remote {
	struct ubfab_window *win;
	u64 addr;
};

/*
 * Point the translation cache at the import of @x's file at address @base.
 * Return: false when the file has no such import.
 */
static bool ubfab_xfer_learn_import(struct ubfab_xfer *x, u64 base)
{
	struct ubfab_xfer_cache *c = x->cache;
	struct ubfab_import_ref ref;

	/* the cache's own reference: the window outlives the import */
	if (!ubfab_import_get(x->file, base, &ref))
		return false;
	if (c->imp_win)
		ubfab_window_put(c->imp_win);
	c->imp_win = ref.win;
	/* the cached remote page is one of the cached import's */
	c->rpage.owner = NULL;
	c->imp_base = base;
	c->imp_size = ref.size;
	c->imp_addr = ref.addr;
	c->imp_rights = ref.rights;
	c->imports_gen = ref.gen;
	return true;
}

/* Whether the cache @c of a queue of @file holds the import at @base. */
static __always_inline bool
ubfab_xfer_import_hit(const struct ubfab_xfer_cache *c,
		      const struct ubfab_file *file, u64 base)
{
	/* an unimport changes the generation before the import goes */
	return c->imp_win && c->imp_base == base &&
	       c->imports_gen == ubfab_imports_gen(file);
}

/*
 * Check the range [@off, @off + @len) of the import cached in @c and the
 * @right it needs; *@addr gets its first byte in the owner's memory.
 */
static __always_inline u16
ubfab_xfer_import_check(const struct ubfab_xfer_cache *c, u64 off, u32 len,
			u32 right, u64 *addr)
{
	if (!ubfab_xfer_range_ok(off, len, c->imp_size))
		return UBFAB_CQE_REMOTE_RANGE;
	if (!(c->imp_rights & right))
		return UBFAB_CQE_ACCESS;
	*addr = c->imp_addr + off;
	return UBFAB_CQE_OK;
}

/*
 * Resolve the remote range [@raddr, @raddr + @len) for an op needing
 * @right through the translation cache, checking import, range and right
 * in the order of enum ubfab_cqe_status; the caller checks revocation.
 * On success the cache's @imp_win is the import's window and *@addr the
 * range's first byte in its owner's memory; both hold until the next call.
 */
static __always_inline u16 ubfab_xfer_resolve(struct ubfab_xfer *x,
					      u64 raddr, u32 len, u32 right,
					      u64 *addr)
{
	u64 base = raddr & ~(UBFAB_MAX_MEM - 1);

	if (!ubfab_xfer_import_hit(x->cache, x->file, base) &&
	    !ubfab_xfer_learn_import(x, base))
		return UBFAB_CQE_NO_IMPORT;
	return ubfab_xfer_import_check(x->cache, raddr - base, len, right,
				       addr);
}

/*
 * Resolve the remote range [@raddr, @raddr + @len) for an op needing
 * @right, checking each in the order of enum ubfab_cqe_status. On success
 * @r holds a reference on the window, dropped with ubfab_window_put().
 */
static u16 ubfab_xfer_get_remote(struct ubfab_xfer *x, u64 raddr, u32 len,
				 u32 right, struct ubfab_xfer_remote *r)
{
	struct ubfab_window *win;
	u16 status;
	u64 addr;

	status = ubfab_xfer_resolve(x, raddr, len, right, &addr);
	if (status)
		return status;
	win = x->cache->imp_win;
	down_read(&win->owner->mem_lock);
	status = ubfab_window_revoked(win) ? UBFAB_CQE_REVOKED : UBFAB_CQE_OK;
	up_read(&win->owner->mem_lock);
	if (status)
		return status;
	kref_get(&win->ref);
	r->win = win;
	r->addr = addr;
	return UBFAB_CQE_OK;
}

/*
 * Copy @len bytes to [@daddr, @daddr + @len) of @dwin's owner from
 * [@saddr, @saddr + @len) of @swin's owner, or, with @swin NULL, fill them
 * with the byte @fill; one walk of each owner's xarray, page by page as
 * the copy goes. Untouched source pages read as zeros; untouched
 * destination pages are allocated, outside the RCU read section.
 * Context: both owners' mem_lock held shared (one lock for one owner) and
 * neither window revoked: the pages stay their owners' while the locks
 * are held. A page another reader inserts meanwhile may be missed: a
 * source reads it as zeros, a destination finds it through
 * ubfab_mem_page().
 * Return: OK, or NOMEM at the first destination page that could not be
 * allocated; *@moved gets the bytes written before it.
 */
static u16 ubfab_xfer_move(struct ubfab_window *dwin, u64 daddr,
			   struct ubfab_window *swin, u64 saddr, u32 len,
			   int fill, u32 *moved)
{
	/* the pages in use on each side, by index in their owner's memory */
	pgoff_t didx = daddr >> PAGE_SHIFT, sidx = saddr >> PAGE_SHIFT;
	struct ubfab_page_walk dwalk, swalk;
	u32 doff = offset_in_page(daddr), done = 0, n;
	/* a fill keeps its source offset on the destination's */
	u32 soff = swin ? offset_in_page(saddr) : doff;
	struct page *dpage, *spage = NULL;
	u16 status = UBFAB_CQE_OK;
	void *d, *s;

	ubfab_page_walk_init(&dwalk, dwin->owner, didx);
	if (swin)
		ubfab_page_walk_init(&swalk, swin->owner, sidx);
	rcu_read_lock();
	dpage = ubfab_page_walk_next(&dwalk);
	if (swin)
		spage = ubfab_page_walk_next(&swalk);
	while (done < len) {
		if (!dpage) {
			/*
			 * Allocating sleeps: each walk starts again from the
			 * top at the page after the one in use (not
			 * xas_pause(), which skips an empty subtree whole).
			 */
			ubfab_page_walk_restart(&dwalk, didx + 1);
			if (swin)
				ubfab_page_walk_restart(&swalk, sidx + 1);
			rcu_read_unlock();
			dpage = ubfab_mem_page(dwin, didx);
			rcu_read_lock();
			if (!dpage) {
				status = UBFAB_CQE_NOMEM;
				break;
			}
		}
		n = min_t(u32, len - done, PAGE_SIZE - max(doff, soff));
		d = kmap_local_page(dpage);
		if (spage) {
			s = kmap_local_page(spage);
			/* whole pages: non-temporal stores, as DMA writes */
			if (n == PAGE_SIZE)
				memcpy_flushcache(d, s, PAGE_SIZE);
			else
				memcpy(d + doff, s + soff, n);
			kunmap_local(s);
		} else {
			memset(d + doff, swin ? 0 : fill, n);
		}
		kunmap_local(d);
		flush_dcache_page(dpage);

		done += n;
		doff += n;
		soff += n;
		if (done == len)
			break;
		if (doff == PAGE_SIZE) {
			doff = 0;
			didx++;
			dpage = ubfab_page_walk_next(&dwalk);
		}
		if (soff == PAGE_SIZE) {
			soff = 0;
			sidx++;
			if (swin)
				spage = ubfab_page_walk_next(&swalk);
		}
	}
	rcu_read_unlock();
	/* order the non-temporal stores before what publishes them */
	wmb();
	*moved = done;
	return status;
}

/*
 * Take the mem_locks of @a and @b shared, in the order of their eids, or
 * the one lock once when they are one entity (a loopback import).
 */
static void ubfab_xfer_lock_two(struct ubfab_entity *a, struct ubfab_entity *b)
{
	if (a == b) {
		down_read(&a->mem_lock);
		return;
	}
	if (a->eid > b->eid)
		swap(a, b);
	down_read(&a->mem_lock);
	down_read_nested(&b->mem_lock, SINGLE_DEPTH_NESTING);
}

static void ubfab_xfer_unlock_two(struct ubfab_entity *a,
				  struct ubfab_entity *b)
{
	if (a != b)
		up_read(&b->mem_lock);
	up_read(&a->mem_lock);
}

/*
 * Move one chunk between the local range at @local and the remote one at
 * @raddr of @rwin: to the remote side if @write, else from it; *@moved
 * gets the bytes written.
 */
static u16 ubfab_xfer_chunk(struct ubfab_xfer *x, u64 local,
			    struct ubfab_window *rwin, u64 raddr, u32 len,
			    bool write, u32 *moved)
{
	struct ubfab_entity *entity = x->file->entity;
	struct ubfab_window *lwin;
	u16 status;

	*moved = 0;
	ubfab_xfer_lock_two(entity, rwin->owner);
	lwin = ubfab_xfer_local_win(x, local, len);
	if (!lwin)
		status = UBFAB_CQE_LOCAL_RANGE;
	else if (ubfab_window_revoked(rwin))
		status = UBFAB_CQE_REVOKED;
	else if (x->q->flags & UBFAB_QUEUE_TIMING)
		*moved = len;	/* checked, no payload: model.rst */
	else if (write)
		status = ubfab_xfer_move(rwin, raddr, lwin, local, len, 0,
					 moved);
	else
		status = ubfab_xfer_move(lwin, local, rwin, raddr, len, 0,
					 moved);
	ubfab_xfer_unlock_two(entity, rwin->owner);
	return status;
}

/* WRITE (@write) or READ of @length bytes between @local and @r. */
static u16 ubfab_xfer_data(struct ubfab_xfer *x, u64 local,
			   const struct ubfab_xfer_remote *r, u32 length,
			   bool write)
{
	struct ubfab_entity *peer = r->win->owner;
	u32 len, plane, done;
	u16 status;

	while (x->moved < length) {
		if (x->moved)
			cond_resched();
		len = ubfab_route_chunk_len(length, x->moved);
		plane = ubfab_route_next(&x->walk, peer);
		if (plane == UBFAB_NO_PLANE)
			return UBFAB_CQE_NO_ROUTE;
		status = ubfab_xfer_chunk(x, local + x->moved, r->win,
					  r->addr + x->moved, len, write,
					  &done);
		x->moved += done;
		if (status)
			return status;
		ubfab_route_cross(x->q, x->ex, plane, peer, len, write);
	}
	return UBFAB_CQE_OK;
}

/* The 64-bit atomic @op (enum ubfab_atomic) on @v; returns the old value. */
static u64 ubfab_xfer_apply(atomic64_t *v, u32 op, u64 value, u64 compare)
{
	switch (op) {
	case UBFAB_ATOMIC_CAS:
		return atomic64_cmpxchg(v, compare, value);
	case UBFAB_ATOMIC_SWAP:
		return atomic64_xchg(v, value);
	case UBFAB_ATOMIC_FETCH_ADD:
		return atomic64_fetch_add(value, v);
	case UBFAB_ATOMIC_FETCH_AND:
		return atomic64_fetch_and(value, v);
	case UBFAB_ATOMIC_FETCH_OR:
		return atomic64_fetch_or(value, v);
	default:
		return atomic64_fetch_xor(value, v);
	}
}

/* What the atomic @op (enum ubfab_atomic) leaves where it found @old. */
static u64 ubfab_xfer_after(u32 op, u64 old, u64 value, u64 compare)
{
	switch (op) {
	case UBFAB_ATOMIC_CAS:
		return old == compare ? value : old;
	case UBFAB_ATOMIC_SWAP:
		return value;
	case UBFAB_ATOMIC_FETCH_ADD:
		return old + value;
	case UBFAB_ATOMIC_FETCH_AND:
		return old & value;
	case UBFAB_ATOMIC_FETCH_OR:
		return old | value;
	default:
		return old ^ value;
	}
}

/*
 * The atomic @op on the 8 aligned bytes of @r, one 8-byte chunk from the
 * initiator to the owner, its modeled arrival stamped on the word
 * (model_sync.c); *@old gets the old value.
 */
static u16 ubfab_xfer_atomic(struct ubfab_xfer *x,
			     const struct ubfab_xfer_remote *r, u32 op,
			     u64 value, u64 compare, u64 *old)
{
	struct ubfab_entity *owner = r->win->owner;
	struct page *page;
	bool stamp;
	u16 status;
	u32 plane;
	u64 ps;
	void *p;

	plane = ubfab_route_next(&x->walk, owner);
	if (plane == UBFAB_NO_PLANE)
		return UBFAB_CQE_NO_ROUTE;

	down_read(&owner->mem_lock);
	if (ubfab_window_revoked(r->win)) {
		status = UBFAB_CQE_REVOKED;
		goto out_unlock;
	}
	page = ubfab_mem_page(r->win, r->addr >> PAGE_SHIFT);
	if (!page) {
		status = UBFAB_CQE_NOMEM;
		goto out_unlock;
	}
	stamp = ubfab_model_stamp_prepare(x->q, x->ex, plane, owner, r->addr,
					  x->moved ?: sizeof(u64), &ps);
	p = kmap_local_page(page) + offset_in_page(r->addr);
	if (stamp) {
		/* the write and its stamp at once: a waiter sees both */
		xa_lock(&owner->stamps);
		*old = ubfab_xfer_apply(p, op, value, compare);
		ubfab_model_stamp_add(owner, r->addr,
				      ubfab_xfer_after(op, *old, value,
						       compare), true, ps);
		xa_unlock(&owner->stamps);
	} else {
		*old = ubfab_xfer_apply(p, op, value, compare);
	}
	kunmap_local(p);
	status = UBFAB_CQE_OK;
out_unlock:
	up_read(&owner->mem_lock);
	if (!status)
		ubfab_route_cross(x->q, x->ex, plane, owner, sizeof(u64), true);
	return status;
}

/*
 * Whether the translation cache's entry @pc holds page @idx of @owner, as
 * it is now (the page has not left since: mem_gen is unchanged).
 */
static __always_inline bool
ubfab_xfer_page_hit(const struct ubfab_xfer_page *pc,
		    struct ubfab_entity *owner, pgoff_t idx)
{
	return pc->owner == owner && pc->idx == idx &&
	       pc->gen == ubfab_mem_gen(owner);
}

/* Point the translation cache's entry @pc at @page, found under @gen. */
static __always_inline void ubfab_xfer_page_set(struct ubfab_xfer_page *pc,
						struct ubfab_entity *owner,
						u64 gen, pgoff_t idx,
						struct page *page)
{
	*pc = (struct ubfab_xfer_page) {
		.owner = owner,
		.gen = gen,
		.idx = idx,
		.page = page,
		.addr = PageHighMem(page) ? NULL : page_address(page),
	};
}

/*
 * Page @idx of @win's owner through the translation cache's entry @pc:
 * allocated on first touch if @alloc, else NULL while untouched.
 * Context: the owner's mem_lock held shared and @win not revoked.
 */
static __always_inline struct page *
ubfab_xfer_cached_page(struct ubfab_xfer_page *pc, struct ubfab_window *win,
		       pgoff_t idx, bool alloc)
{
	struct ubfab_entity *owner = win->owner;
	struct page *page;

	if (ubfab_xfer_page_hit(pc, owner, idx))
		return pc->page;
	page = alloc ? ubfab_mem_page(win, idx) :
		       ubfab_mem_find_page(owner, idx);
	if (page)
		ubfab_xfer_page_set(pc, owner, ubfab_mem_gen(owner), idx, page);
	return page;
}

/* Copy @n bytes between @buf and byte @off of @page (NULL: zeros). */
static __always_inline void ubfab_xfer_bounce_page(struct page *page, u32 off,
						   u8 *buf, u32 n, bool to_mem)
{
	void *p;

	if (!page) {
		memset(buf, 0, n);
		return;
	}
	p = kmap_local_page(page);
	if (to_mem)
		memcpy(p + off, buf, n);
	else
		memcpy(buf, p + off, n);
	kunmap_local(p);
	if (to_mem)
		flush_dcache_page(page);
}

/*
 * Copy [@addr, @addr + @len) of @win's owner (two pages at most) to @buf,
 * untouched pages reading as zeros; or, @to_mem, @buf to it, allocating
 * its untouched pages first.
 * Context: the owner's mem_lock held shared and @win not revoked.
 * Return: OK, or NOMEM with nothing written.
 */
static __always_inline u16 ubfab_xfer_bounce(struct ubfab_xfer_page *pc,
					     struct ubfab_window *win, u64 addr,
					     u32 len, u8 *buf, bool to_mem)
{
	u32 off = offset_in_page(addr), n = min_t(u32, len, PAGE_SIZE - off);
	pgoff_t idx = addr >> PAGE_SHIFT;
	struct page *first, *second = NULL;

	BUILD_BUG_ON(UBFAB_XFER_INLINE > PAGE_SIZE);
	first = ubfab_xfer_cached_page(pc, win, idx, to_mem);
	if (n < len)
		second = ubfab_xfer_cached_page(pc, win, idx + 1, to_mem);
	if (to_mem && (!first || (n < len && !second)))
		return UBFAB_CQE_NOMEM;
	ubfab_xfer_bounce_page(first, off, buf, n, to_mem);
	if (n < len)
		ubfab_xfer_bounce_page(second, 0, buf + n, len - n, to_mem);
	return UBFAB_CQE_OK;
}

/*
 * WRITE (@write) or READ of at most UBFAB_XFER_INLINE bytes, through the
 * queue's bounce buffer: one section under each side's mem_lock (never
 * both at once), the translation cache's import, allocation and pages.
 * The checks keep the order of enum ubfab_cqe_status. The source is read
 * into the buffer before the destination is checked, which changes
 * nothing; a READ's destination is found again when it is written, in
 * case its allocation went meanwhile.
 */
static u16 ubfab_xfer_inline(struct ubfab_xfer *x, const struct ubfab_sqe *sqe,
			     bool write)
{
	struct ubfab_entity *entity = x->file->entity, *peer;
	struct ubfab_xfer_cache *c = x->cache;
	struct ubfab_window *lwin, *rwin;
	u32 len = sqe->length, plane = UBFAB_NO_PLANE;
	u16 status = UBFAB_CQE_OK;
	u64 raddr;

	if (!ubfab_xfer_range_ok(sqe->local, len, entity->mem_size))
		return UBFAB_CQE_LOCAL_RANGE;
	if (write) {
		down_read(&entity->mem_lock);
		lwin = ubfab_xfer_local_win(x, sqe->local, len);
		if (lwin)
			ubfab_xfer_bounce(&c->lpage, lwin, sqe->local, len,
					  c->bounce, false);
		up_read(&entity->mem_lock);
		if (!lwin)
			return UBFAB_CQE_LOCAL_RANGE;
	} else {
		status = ubfab_xfer_check_local(x, sqe->local, len);
		if (status)
			return status;
	}
	status = ubfab_xfer_resolve(x, sqe->remote, len, x->op->right, &raddr);
	if (status)
		return status;
	rwin = c->imp_win;
	peer = rwin->owner;

	down_read(&peer->mem_lock);
	if (ubfab_window_revoked(rwin))
		status = UBFAB_CQE_REVOKED;
	else
		plane = ubfab_route_next(&x->walk, peer);
	if (!status && plane == UBFAB_NO_PLANE)
		status = UBFAB_CQE_NO_ROUTE;
	if (!status)
		status = ubfab_xfer_bounce(&c->rpage, rwin, raddr, len,
					   c->bounce, write);
	up_read(&peer->mem_lock);
	if (status)
		return status;

	if (!write) {
		down_read(&entity->mem_lock);
		lwin = ubfab_xfer_local_win(x, sqe->local, len);
		if (lwin)
			status = ubfab_xfer_bounce(&c->lpage, lwin, sqe->local,
						   len, c->bounce, true);
		else
			status = UBFAB_CQE_LOCAL_RANGE;
		up_read(&entity->mem_lock);
		if (status)
			return status;
	}
	ubfab_route_cross(x->q, x->ex, plane, peer, len, write);
	x->moved = len;
	return UBFAB_CQE_OK;
}

/* WRITE, READ or WRITE_NOTIFY. */
static u16 ubfab_xfer_remote_data(struct ubfab_xfer *x,
				  const struct ubfab_sqe *sqe, u64 *result)
{
	bool write = sqe->opcode != UBFAB_OP_READ;
	struct ubfab_xfer_remote r, n = {};
	u16 status;

	/* what the fast path takes goes through the bounce buffer here */
	if (x->op->flags & UBFAB_OPF_FAST && sqe->length <= UBFAB_XFER_INLINE &&
	    !(x->q->flags & UBFAB_QUEUE_TIMING))
		return ubfab_xfer_inline(x, sqe, write);

	status = ubfab_xfer_check_local(x, sqe->local, sqe->length);
	if (status)
		return status;
	status = ubfab_xfer_get_remote(x, sqe->remote, sqe->length,
				       x->op->right, &r);
	if (status)
		return status;
	if (sqe->opcode == UBFAB_OP_WRITE_NOTIFY) {
		status = ubfab_xfer_get_remote(x, sqe->notify,
					       sizeof(u64), UBFAB_SEG_ATOMIC,
					       &n);
		if (status)
			goto out_put_remote;
		if (!ubfab_route_usable(x->walk.fabric, x->walk.from,
					n.win->owner)) {
			status = UBFAB_CQE_NO_ROUTE;
			goto out_put_notify;
		}
	}
	/* the first chunk goes by this reading: no need to scan again */
	if (!ubfab_route_check(&x->walk, r.win->owner)) {
		status = UBFAB_CQE_NO_ROUTE;
		goto out_put_notify;
	}

	status = ubfab_xfer_data(x, sqe->local, &r, sqe->length, write);
	/* the fully ordered add publishes the data: see the top of file */
	if (!status && n.win)
		status = ubfab_xfer_atomic(x, &n, UBFAB_ATOMIC_FETCH_ADD,
					   sqe->value, 0, result);
out_put_notify:
	if (n.win)
		ubfab_window_put(n.win);
out_put_remote:
	ubfab_window_put(r.win);
	return status;
}

/* ATOMIC. */
static u16 ubfab_xfer_remote_atomic(struct ubfab_xfer *x,
				    const struct ubfab_sqe *sqe, u64 *result)
{
	struct ubfab_xfer_remote r;
	u16 status;

	status = ubfab_xfer_get_remote(x, sqe->remote, sizeof(u64),
				       x->op->right, &r);
	if (status)
		return status;
	status = ubfab_xfer_atomic(x, &r, sqe->aux, sqe->value, sqe->compare,
				   result);
	if (!status)
		x->moved = sizeof(u64);
	ubfab_window_put(r.win);
	return status;
}

/*
 * One chunk of COPY (from @src) or FILL (@src NULL, with @fill) to @dst,
 * under the local mem_lock; *@moved gets the bytes written.
 */
static u16 ubfab_xfer_local_chunk(struct ubfab_xfer *x, u64 dst,
				  const u64 *src, u32 len, int fill, u32 *moved)
{
	struct ubfab_entity *entity = x->file->entity;
	struct ubfab_window *dwin, *swin = NULL;
	u16 status = UBFAB_CQE_LOCAL_RANGE;

	*moved = 0;
	down_read(&entity->mem_lock);
	dwin = ubfab_xfer_local_win(x, dst, len);
	if (src)
		swin = ubfab_xfer_local_win(x, *src, len);
	if (dwin && (!src || swin))
		status = ubfab_xfer_move(dwin, dst, swin, src ? *src : 0, len,
					 fill, moved);
	up_read(&entity->mem_lock);
	return status;
}

/* COPY or FILL, within the entity: no plane. */
static u16 ubfab_xfer_local(struct ubfab_xfer *x, const struct ubfab_sqe *sqe)
{
	bool copy = sqe->opcode == UBFAB_OP_COPY;
	u64 src = sqe->value;
	u16 status;
	u32 len, done;

	status = ubfab_xfer_check_local(x, sqe->local, sqe->length);
	if (!status && copy)
		status = ubfab_xfer_check_local(x, src, sqe->length);
	if (status)
		return status;
	/* both ranges are within the entity's memory: no overflow */
	if (copy && src < sqe->local + sqe->length &&
	    sqe->local < src + sqe->length)
		return UBFAB_CQE_BAD_ENTRY;
	/* timing only: checked, no payload (model.rst) */
	if (x->q->flags & UBFAB_QUEUE_TIMING) {
		x->moved = sqe->length;
		return UBFAB_CQE_OK;
	}

	while (x->moved < sqe->length) {
		if (x->moved)
			cond_resched();
		len = ubfab_route_chunk_len(sqe->length, x->moved);
		src = sqe->value + x->moved;
		status = ubfab_xfer_local_chunk(x, sqe->local + x->moved,
						copy ? &src : NULL, len,
						sqe->aux, &done);
		x->moved += done;
		if (status)
			return status;
	}
	return UBFAB_CQE_OK;
}

/* Start running @q's entry @ex. */
static void ubfab_xfer_init(struct ubfab_xfer *x, struct ubfab_queue *q,
			    struct ubfab_exec *ex)
{
	*x = (struct ubfab_xfer) {
		.q = q,
		.ex = ex,
		/* ubfab_op_run() found the row: the opcode is in the table */
		.op = &ubfab_ops[ex->sqe.opcode],
		.file = q->file,
		.cache = &q->xfer,
	};
	ubfab_route_walk_init(&x->walk, q, ex);
}

/* The entry ends with @status: bytes moved, also on failure. */
static u16 ubfab_xfer_end(struct ubfab_xfer *x, u16 status)
{
	x->ex->bytes = x->moved;
	if (status)
		x->ex->result = 0;
	return status;
}

/**
 * ubfab_xfer_run_data() - run WRITE, READ or WRITE_NOTIFY the slow way
 * @q: the queue
 * @ex: the entry, its fields checked against its opcode's row
 *
 * Checks the local range, the import, the remote range, the right, the
 * revocation and the route, in that order, before moving anything; then
 * moves the data chunk by chunk, each over its plane (route.h).
 * @ex->result gets WRITE_NOTIFY's old notify value (else 0), @ex->bytes
 * the data bytes moved, also on failure: a transfer that fails midway has
 * moved its earlier chunks, or with NOMEM what comes before the page it
 * could not allocate; the notify add is not counted there.
 *
 * Context: process context, may sleep; no ubfab lock held but the queue's
 * run_lock, which guards its translation cache.
 * Return: enum ubfab_cqe_status.
 */
u16 ubfab_xfer_run_data(struct ubfab_queue *q, struct ubfab_exec *ex)
{
	struct ubfab_xfer x;

	ubfab_xfer_init(&x, q, ex);
	return ubfab_xfer_end(&x, ubfab_xfer_remote_data(&x, &ex->sqe,
							 &ex->result));
}

/**
 * ubfab_xfer_run_atomic() - run ATOMIC
 * @q: the queue
 * @ex: the entry, its fields checked against its opcode's row
 *
 * @ex->result gets the old value, @ex->bytes 8 when it is done.
 * Context: as ubfab_xfer_run_data().
 * Return: enum ubfab_cqe_status.
 */
u16 ubfab_xfer_run_atomic(struct ubfab_queue *q, struct ubfab_exec *ex)
{
	struct ubfab_xfer x;

	ubfab_xfer_init(&x, q, ex);
	return ubfab_xfer_end(&x, ubfab_xfer_remote_atomic(&x, &ex->sqe,
							   &ex->result));
}

/**
 * ubfab_xfer_run_local() - run COPY or FILL, within the entity
 * @q: the queue
 * @ex: the entry, its fields checked against its opcode's row
 *
 * No link is crossed. @ex->bytes gets the bytes written, also on failure.
 * Context: as ubfab_xfer_run_data().
 * Return: enum ubfab_cqe_status.
 */
u16 ubfab_xfer_run_local(struct ubfab_queue *q, struct ubfab_exec *ex)
{
	struct ubfab_xfer x;

	ubfab_xfer_init(&x, q, ex);
	return ubfab_xfer_end(&x, ubfab_xfer_local(&x, &ex->sqe));
}

/* The receive queue @x's message names on @peer, referenced in *@rqp. */
static u16 ubfab_xfer_msg_rq(struct ubfab_xfer *x, struct ubfab_entity *peer,
			     struct ubfab_rq **rqp)
{
	const struct ubfab_sqe *sqe = &x->ex->sqe;
	struct ubfab_rq *rq = peer ? ubfab_rq_get(peer, sqe->aux) : NULL;

	if (!rq)
		return UBFAB_CQE_NO_IMPORT;
	if (rq->token != sqe->compare) {
		/* refused as an import with the wrong token is */
		atomic64_inc(&peer->auth_failures);
		ubfab_rq_put(rq);
		return UBFAB_CQE_ACCESS;
	}
	*rqp = rq;
	return UBFAB_CQE_OK;
}

/*
 * Take the next receive posted on @rq, retrying while the receiver is not
 * ready: ubfab_rnr_retry times, each costing ubfab_rnr_ns on the queue's
 * modeled clock and as long (at most 1 ms) on the host's, without the
 * receive queue's lock. Return: OK with @rq->lock held, else without.
 */
static u16 ubfab_xfer_msg_take(struct ubfab_xfer *x, struct ubfab_rq *rq,
			       struct ubfab_rqe *rqe)
{
	unsigned int tries, limit = READ_ONCE(ubfab_rnr_retry);
	u16 status;

	for (tries = 0;; tries++) {
		mutex_lock(&rq->lock);
		status = ubfab_rq_take(rq, rqe);
		if (!status)
			return status;
		mutex_unlock(&rq->lock);
		if (status != UBFAB_CQE_RNR_RETRY_EXC || tries >= limit)
			return status;
		ubfab_model_rnr_wait(&x->q->model, READ_ONCE(ubfab_rnr_ns));
		ubfab_rq_rnr_wait();
	}
}

/* Whether the receive @rqe's own fields are valid. */
static bool ubfab_xfer_rqe_ok(const struct ubfab_rqe *rqe)
{
	return !memchr_inv(rqe->__reserved, 0, sizeof(rqe->__reserved)) &&
	       rqe->length <= UBFAB_SQE_MAX_LENGTH;
}

/*
 * The receive @rqe's buffer for a SEND into @rq: checked, its
 * allocation's window referenced in @r. Return: OK, or the receive
 * completion's status (BAD_ENTRY, LOCAL_LENGTH, LOCAL_RANGE).
 */
static u16 ubfab_xfer_msg_buffer(struct ubfab_xfer *x, struct ubfab_rq *rq,
				 const struct ubfab_rqe *rqe,
				 struct ubfab_xfer_remote *r)
{
	struct ubfab_entity *owner = rq->file->entity;
	u32 len = x->ex->sqe.length;
	struct ubfab_window *win;

	if (!ubfab_xfer_rqe_ok(rqe))
		return UBFAB_CQE_BAD_ENTRY;
	if (len > rqe->length)
		return UBFAB_CQE_LOCAL_LENGTH;
	if (!ubfab_xfer_range_ok(rqe->addr, rqe->length, owner->mem_size))
		return UBFAB_CQE_LOCAL_RANGE;
	if (!rqe->length)
		return UBFAB_CQE_OK;
	down_read(&owner->mem_lock);
	win = ubfab_mem_find_window(rq->file, rqe->addr >> PAGE_SHIFT,
				    ubfab_xfer_npages(rqe->addr, rqe->length));
	if (win)
		kref_get(&win->ref);
	up_read(&owner->mem_lock);
	if (!win)
		return UBFAB_CQE_LOCAL_RANGE;
	r->win = win;
	r->addr = rqe->addr;
	return UBFAB_CQE_OK;
}

/*
 * Deliver @x's message to the receive @rqe taken from @rq: a SEND's bytes
 * into its buffer, a WRITE_IMM's into the import @w; @rc gets the receive
 * completion's status and bytes. A message of no bytes crosses a plane
 * all the same. Return: the sender's status.
 */
static u16 ubfab_xfer_msg_deliver(struct ubfab_xfer *x, struct ubfab_rq *rq,
				  const struct ubfab_rqe *rqe,
				  struct ubfab_entity *peer,
				  const struct ubfab_xfer_remote *w,
				  struct ubfab_rcqe *rc)
{
	const struct ubfab_sqe *sqe = &x->ex->sqe;
	struct ubfab_xfer_remote b = {};
	u32 plane;
	u16 status;

	/* a WRITE_IMM puts nothing into the receive's buffer */
	if (w)
		status = ubfab_xfer_rqe_ok(rqe) ? UBFAB_CQE_OK :
		       UBFAB_CQE_BAD_ENTRY;
	else
		status = ubfab_xfer_msg_buffer(x, rq, rqe, &b);
	if (status) {
		rc->status = status;
		return status == UBFAB_CQE_LOCAL_LENGTH ?
		       UBFAB_CQE_REMOTE_LENGTH : UBFAB_CQE_REMOTE_OP;
	}
	if (!sqe->length) {
		plane = ubfab_route_next(&x->walk, peer);
		if (plane == UBFAB_NO_PLANE) {
			status = UBFAB_CQE_NO_ROUTE;
		} else {
			ubfab_route_cross(x->q, x->ex, plane, peer, 0, true);
			status = UBFAB_CQE_OK;
		}
	} else {
		status = ubfab_xfer_data(x, sqe->local, w ? w : &b,
					 sqe->length, true);
	}
	if (b.win)
		ubfab_window_put(b.win);
	rc->bytes = x->moved;
	rc->status = status;
	/* the receive's buffer went meanwhile: the receiver's fault */
	if (!w && status == UBFAB_CQE_REVOKED) {
		rc->status = UBFAB_CQE_LOCAL_RANGE;
		return UBFAB_CQE_REMOTE_OP;
	}
	return status;
}

/* SEND, SEND_IMM or WRITE_IMM. */
static u16 ubfab_xfer_msg(struct ubfab_xfer *x, const struct ubfab_sqe *sqe)
{
	struct ubfab_entity *self = x->file->entity, *peer;
	struct ubfab_xfer_remote w = {};
	struct ubfab_rq *rq;
	struct ubfab_rqe rqe;
	struct ubfab_rcqe rc = {
		.src_eid = self->eid,
		.opcode = sqe->opcode,
	};
	u16 status;

	if (sqe->length) {
		status = ubfab_xfer_check_local(x, sqe->local, sqe->length);
		if (status)
			return status;
	}
	if (sqe->opcode == UBFAB_OP_WRITE_IMM) {
		status = ubfab_xfer_get_remote(x, sqe->remote, sqe->length,
					       x->op->right, &w);
		if (status)
			return status;
		peer = w.win->owner;
	} else {
		peer = ubfab_entity_find(x->file->entity->fabric, sqe->remote);
	}
	status = ubfab_xfer_msg_rq(x, peer, &rq);
	if (status)
		goto out_put_write;
	if (!ubfab_route_check(&x->walk, peer)) {
		status = UBFAB_CQE_NO_ROUTE;
		goto out_put_rq;
	}
	status = ubfab_xfer_msg_take(x, rq, &rqe);
	if (status)
		goto out_put_rq;

	status = ubfab_xfer_msg_deliver(x, rq, &rqe, peer, w.win ? &w : NULL,
					&rc);
	rc.user_data = rqe.user_data;
	if (rc.status) {
		rc.bytes = 0;
	} else if (sqe->opcode != UBFAB_OP_SEND) {
		rc.imm = sqe->value;
		rc.flags = UBFAB_RCQE_IMM;
	}
	/* priced with the bytes it moved */
	x->ex->bytes = x->moved;
	rc.model_ns = ubfab_model_arrival_ns(x->q, x->ex);
	ubfab_rq_complete(rq, &rc);
	mutex_unlock(&rq->lock);
out_put_rq:
	ubfab_rq_put(rq);
out_put_write:
	if (w.win)
		ubfab_window_put(w.win);
	return status;
}

/**
 * ubfab_xfer_run_msg() - run SEND, SEND_IMM or WRITE_IMM
 * @q: the queue
 * @ex: the entry, its fields checked against its opcode's row
 *
 * Checks the local range (WRITE_IMM: and the import as a WRITE does), the
 * receiver and its token and the route; takes the next posted receive
 * (retrying while there is none), checks it, moves the data and completes
 * the receive. @ex->bytes gets the bytes moved, also on failure.
 * Context: as ubfab_xfer_run_data().
 * Return: enum ubfab_cqe_status.
 */
u16 ubfab_xfer_run_msg(struct ubfab_queue *q, struct ubfab_exec *ex)
{
	struct ubfab_xfer x;

	ubfab_xfer_init(&x, q, ex);
	return ubfab_xfer_end(&x, ubfab_xfer_msg(&x, &ex->sqe));
}

/*
 * Enter the fast path: when the translation cache holds an allocation, an
 * import and a page on each side, all still current, enter both windows.
 * The pages stay from then on (see ubfab_window_enter()), and so do the
 * allocation and the import: freeing or unimporting them revokes their
 * windows first. Return: false, inside neither, when something is not
 * cached, has gone or is revoked.
 */
static noinline bool ubfab_xfer_enter(struct ubfab_file *file,
				      struct ubfab_xfer_cache *c)
{
	struct ubfab_entity *entity = file->entity;

	if (!c->local_win || !c->imp_win || !c->lpage.addr || !c->rpage.addr ||
	    c->local_gen != ubfab_mem_gen(entity) ||
	    c->imports_gen != ubfab_imports_gen(file) ||
	    !ubfab_xfer_page_hit(&c->lpage, entity, c->lpage.idx) ||
	    !ubfab_xfer_page_hit(&c->rpage, c->imp_win->owner, c->rpage.idx))
		return false;
	if (!ubfab_window_enter(c->local_win))
		return false;
	if (!ubfab_window_enter(c->imp_win)) {
		ubfab_window_leave(c->local_win);
		return false;
	}
	return true;
}

/* The @unused of the rows the fast path takes, as a constant. */
static const struct ubfab_sqe ubfab_xfer_fast_unused = UBFAB_OP_DATA_UNUSED;

/*
 * The row of @sqe's opcode when the fast path may take the entry as its
 * fields are: 1 to UBFAB_XFER_INLINE bytes, the fields the opcode does
 * not use 0. Else NULL. The opcode is one the fast path takes
 * (UBFAB_OPF_FAST): ubfab_xfer_fast_run() is handed no other.
 */
static __always_inline const struct ubfab_opdesc *
ubfab_xfer_fast_op(const struct ubfab_sqe *sqe)
{
	if (sqe->length - 1 >= UBFAB_XFER_INLINE ||
	    !ubfab_op_unused_zero(sqe, &ubfab_xfer_fast_unused))
		return NULL;
	return &ubfab_ops[sqe->opcode];
}

/*
 * Whether the fast path takes @sqe as the translation cache @c stands: a
 * WRITE or READ of at most UBFAB_XFER_INLINE bytes, its other fields 0,
 * the right it needs granted, each range within the cached page on its
 * side; *@loff and *@roff get the ranges' offsets in those pages, *@len
 * the length (read once: the bound the copy is compiled for). A range
 * within the cached page lies within the cached allocation or import: the
 * cache forgets the page when it learns another of those.
 */
static __always_inline bool ubfab_xfer_fast_ok(const struct ubfab_sqe *sqe,
					       const struct ubfab_xfer_cache *c,
					       u64 *loff, u64 *roff, u32 *lenp)
{
	u64 base = sqe->remote & ~(UBFAB_MAX_MEM - 1);
	const struct ubfab_opdesc *op = ubfab_xfer_fast_op(sqe);
	u32 len = sqe->length;

	*lenp = len;
	*loff = sqe->local - ((u64)c->lpage.idx << PAGE_SHIFT);
	*roff = c->imp_addr + (sqe->remote - base) -
		((u64)c->rpage.idx << PAGE_SHIFT);
	return op && *loff <= PAGE_SIZE - len && base == c->imp_base &&
	       *roff <= PAGE_SIZE - len && (c->imp_rights & op->right);
}

/*
 * Point @pc at page @idx of @owner, from its xarray. Return: false when
 * the page is untouched or in highmem.
 * Context: inside a window holding the page (ubfab_xfer_fast_run()).
 */
static bool ubfab_xfer_fast_find(struct ubfab_xfer_page *pc,
				 struct ubfab_entity *owner, pgoff_t idx)
{
	/* read before the page is looked up: see ubfab_xfer_page_hit() */
	u64 gen = ubfab_mem_gen(owner);
	struct page *page;

	if (pc->owner == owner && pc->idx == idx)
		return true;
	page = ubfab_mem_find_page(owner, idx);
	if (!page || PageHighMem(page))
		return false;
	ubfab_xfer_page_set(pc, owner, gen, idx, page);
	return true;
}

/*
 * Inside both windows, for an entry ubfab_xfer_fast_ok() turned down: when
 * it would take it but for the pages, each range lies within a page of
 * the cached allocation or import, and those pages are there, point the
 * cache at them: the windows keep them. Return: whether it did.
 */
static noinline bool ubfab_xfer_fast_repage(struct ubfab_file *file,
					    const struct ubfab_sqe *sqe,
					    struct ubfab_xfer_cache *c)
{
	u64 base = sqe->remote & ~(UBFAB_MAX_MEM - 1);
	u64 raddr = c->imp_addr + (sqe->remote - base);
	u32 len = sqe->length;

	if (!ubfab_xfer_fast_op(sqe) ||
	    sqe->local < c->local_start || sqe->local > c->local_end - len ||
	    offset_in_page(sqe->local) + len > PAGE_SIZE ||
	    base != c->imp_base || sqe->remote - base > c->imp_size - len ||
	    offset_in_page(raddr) + len > PAGE_SIZE)
		return false;
	return ubfab_xfer_fast_find(&c->lpage, file->entity,
				    sqe->local >> PAGE_SHIFT) &&
	       ubfab_xfer_fast_find(&c->rpage, c->imp_win->owner,
				    raddr >> PAGE_SHIFT);
}

/**
 * ubfab_xfer_fast_run() - run a run of small WRITEs and READs the fast way
 * @q: the queue
 * @execs: entries copied out of the ring, opcodes the fast path takes
 *	(UBFAB_OPF_FAST), flags and __reserved already checked
 * @n: how many
 *
 * Runs the entries in order while the fast path takes them: a WRITE or
 * READ of at most UBFAB_XFER_INLINE bytes whose ranges lie in the
 * allocation and the import the translation cache holds, each within a
 * page that is there, with a plane up between the entities. It copies
 * between the two pages directly, inside both windows
 * (ubfab_window_enter()) instead of under the mem_locks; it enters them
 * once for the whole run, so the checks that do not change from one entry
 * to the next (generations, revocation) are paid once. Nothing in the run
 * sleeps or takes a lock. Each entry it does succeeds, all its bytes moved
 * (@bytes) and crossing the link (ubfab_route_cross()), as
 * ubfab_op_run() would have done it; the first it does not take it leaves
 * untouched.
 *
 * Context: as ubfab_xfer_run_data().
 * Return: entries done, from the first.
 */
unsigned int ubfab_xfer_fast_run(struct ubfab_queue *q,
				 struct ubfab_exec *execs, unsigned int n)
{
	struct ubfab_file *file = q->file;
	struct ubfab_xfer_cache *c = &q->xfer;
	struct ubfab_entity *entity = file->entity, *peer;
	struct ubfab_fabric *fabric = entity->fabric;
	const struct ubfab_sqe *sqe;
	u32 cursor, plane, len;
	struct ubfab_exec *ex;
	unsigned int done;
	u64 loff, roff;
	bool write;

	if (!n || !ubfab_xfer_enter(file, c))
		return 0;
	peer = c->imp_win->owner;
	cursor = ubfab_route_cursor(q);
	for (done = 0; done < n; done++) {
		ex = &execs[done];
		sqe = &ex->sqe;
		if (!ubfab_xfer_fast_ok(sqe, c, &loff, &roff, &len) &&
		    (!ubfab_xfer_fast_repage(file, sqe, c) ||
		     !ubfab_xfer_fast_ok(sqe, c, &loff, &roff, &len)))
			break;
		plane = ubfab_route_one(fabric, entity, peer, &cursor);
		if (plane == UBFAB_NO_PLANE)
			break;
		write = sqe->opcode == UBFAB_OP_WRITE;
		if (write) {
			memcpy(c->rpage.addr + roff, c->lpage.addr + loff, len);
			flush_dcache_page(c->rpage.page);
		} else {
			memcpy(c->lpage.addr + loff, c->rpage.addr + roff, len);
			flush_dcache_page(c->lpage.page);
		}
		ubfab_route_cross(q, ex, plane, peer, len, write);
		ex->bytes = len;
	}
	q->plane_cursor = cursor;
	ubfab_window_leave(c->imp_win);
	ubfab_window_leave(c->local_win);
	return done;
}

/**
 * ubfab_xfer_cache_fini() - drop what a queue's translation cache holds
 * @cache: the cache of a queue that runs no more
 */
void ubfab_xfer_cache_fini(struct ubfab_xfer_cache *cache)
{
	if (cache->imp_win)
		ubfab_window_put(cache->imp_win);
	if (cache->local_win)
		ubfab_window_put(cache->local_win);
}

/**
 * ubfab_xfer_stamp() - stamp a word a queue names with a modeled time
 * @q: the queue
 * @addr: an 8-byte aligned local or remote address, as in an entry
 * @local: @addr is local
 * @ps: the stamp (model_sync.c)
 *
 * A remote word needs an import that grants UBFAB_SEG_WRITE. The stamp
 * is set under the owner's mem_lock, the memory checked still there, so
 * that it goes with the memory (ubfab_model_forget()).
 * Context: the queue's run_lock held (its translation cache).
 * Return: UBFAB_CQE_OK, UBFAB_CQE_NOMEM, or the status an entry naming
 * the word would get.
 */
u16 ubfab_xfer_stamp(struct ubfab_queue *q, u64 addr, bool local, u64 ps)
{
	struct ubfab_exec ex = { .sqe.opcode = UBFAB_OP_WRITE };
	struct ubfab_entity *owner = q->file->entity;
	struct ubfab_xfer_remote r = { .addr = addr };
	struct ubfab_xfer x;
	u16 status;

	if (!IS_ALIGNED(addr, sizeof(u64)))
		return UBFAB_CQE_BAD_ENTRY;
	ubfab_xfer_init(&x, q, &ex);
	if (local) {
		if (!ubfab_xfer_range_ok(addr, sizeof(u64), owner->mem_size))
			return UBFAB_CQE_LOCAL_RANGE;
	} else {
		status = ubfab_xfer_get_remote(&x, addr, sizeof(u64),
					       UBFAB_SEG_WRITE, &r);
		if (status)
			return status;
		owner = r.win->owner;
	}
	down_read(&owner->mem_lock);
	if (local ? !ubfab_xfer_find_window(q->file, addr, sizeof(u64)) :
		    ubfab_window_revoked(r.win))
		status = local ? UBFAB_CQE_LOCAL_RANGE : UBFAB_CQE_REVOKED;
	else if (ubfab_model_stamp_set(owner, r.addr, ps))
		status = UBFAB_CQE_NOMEM;
	else
		status = UBFAB_CQE_OK;
	up_read(&owner->mem_lock);
	if (!status)
		trace_ubfab_stamp(q, 0, owner, r.addr, ps);
	if (r.win)
		ubfab_window_put(r.win);
	return status;
}

/**
 * ubfab_xfer_load_local() - WAIT_VALUE's load of a local word
 * @file: the entity file of the queue
 * @local: address of an 8-byte aligned word in one of @file's allocations
 * @val: out: its value, read with acquire; 0 for an untouched page, which
 *	is not allocated
 *
 * Return: UBFAB_CQE_OK, UBFAB_CQE_BAD_ENTRY (not aligned) or
 * UBFAB_CQE_LOCAL_RANGE.
 */
u16 ubfab_xfer_load_local(struct ubfab_file *file, u64 local, u64 *val)
{
	struct ubfab_entity *entity = file->entity;
	struct page *page;
	u16 status;
	void *p;

	if (!IS_ALIGNED(local, sizeof(u64)))
		return UBFAB_CQE_BAD_ENTRY;
	if (!ubfab_xfer_range_ok(local, sizeof(u64), entity->mem_size))
		return UBFAB_CQE_LOCAL_RANGE;

	*val = 0;
	down_read(&entity->mem_lock);
	if (!ubfab_xfer_find_window(file, local, sizeof(u64))) {
		status = UBFAB_CQE_LOCAL_RANGE;
		goto out_unlock;
	}
	page = ubfab_mem_find_page(entity, local >> PAGE_SHIFT);
	if (page) {
		p = kmap_local_page(page);
		/* later entries see what was stored before the value */
		*val = smp_load_acquire((u64 *)(p + offset_in_page(local)));
		kunmap_local(p);
	}
	status = UBFAB_CQE_OK;
out_unlock:
	up_read(&entity->mem_lock);
	return status;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab queue data path: what the queue engine (queue.c) runs for the
 * entries that move data: WRITE, READ, WRITE_NOTIFY and ATOMIC into and
 * out of imported segments, COPY and FILL within the entity's memory, and
 * the load of WAIT_VALUE. It owns the checks of their fields, addresses and
 * rights, the routing of remote transfers over the planes and the traffic
 * counters of ports and planes. Entries arrive already copied into kernel
 * memory, opcode, flags and __reserved checked; everything else in them is
 * hostile.
 *
 * Locking. Pages are found only through the owner's @pages, with the
 * owner's mem_lock held shared (revocation frees them with it held
 * exclusive) or inside the window they lie in, and touched under it or
 * inside that window (the fast path, below). A remote transfer is cut
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
 * see queue.c). When the translation cache (below) holds the import and
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
 * slow way, ubfab_xfer_execute(), which checks and reports everything:
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
 * Planes. Each chunk goes over the first plane, from the transfer's
 * current position round-robin, that is up and whose ports on both
 * entities are up, as read at the start of that chunk (a state change
 * mid-transfer affects the chunks after it; the first data chunk takes the
 * reading of the entry's route check). The start position is the
 * queue's plane cursor, which every remote entry advances by one.
 */
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ubfab.h"

/* What WRITE and READ do not use: one template, the fast path's. */
#define UBFAB_XFER_DATA_UNUSED { .value = ~0ULL, .compare = ~0ULL, \
				 .notify = ~0ULL, .aux = ~0U, .timeout_ms = ~0U }

/*
 * For each opcode of this file, the bits of struct ubfab_sqe that must be
 * 0: every field it does not use (ATOMIC's compare is checked apart: only
 * CAS uses it). opcode, flags and __reserved were checked already.
 */
static const struct ubfab_sqe ubfab_xfer_unused[] = {
	[UBFAB_OP_WRITE] = UBFAB_XFER_DATA_UNUSED,
	[UBFAB_OP_READ] = UBFAB_XFER_DATA_UNUSED,
	[UBFAB_OP_WRITE_NOTIFY] = { .compare = ~0ULL, .aux = ~0U,
				    .timeout_ms = ~0U },
	[UBFAB_OP_ATOMIC] = { .length = ~0U, .local = ~0ULL, .notify = ~0ULL,
			      .timeout_ms = ~0U },
	[UBFAB_OP_COPY] = { .remote = ~0ULL, .compare = ~0ULL,
			    .notify = ~0ULL, .aux = ~0U, .timeout_ms = ~0U },
	[UBFAB_OP_FILL] = { .remote = ~0ULL, .value = ~0ULL, .compare = ~0ULL,
			    .notify = ~0ULL, .timeout_ms = ~0U },
};

/**
 * ubfab_xfer_chunk_len() - the length of the next chunk of a transfer
 * @length: bytes in the transfer
 * @done: bytes already sent, below @length
 *
 * Return: UBFAB_PLANE_CHUNK, or what is left when that is less.
 */
u32 ubfab_xfer_chunk_len(u32 length, u32 done)
{
	return min_t(u32, length - done, UBFAB_PLANE_CHUNK);
}

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

/* Planes that connect @a and @b now: each plane and both ports up. */
static u32 ubfab_xfer_usable(const struct ubfab_fabric *fabric,
			     const struct ubfab_entity *a,
			     const struct ubfab_entity *b)
{
	BUILD_BUG_ON(UBFAB_MAX_PLANES > 32);
	return READ_ONCE(fabric->planes_up) & READ_ONCE(a->ports_up) &
	       READ_ONCE(b->ports_up);
}

/**
 * struct ubfab_xfer - one entry being executed
 * @file: the queue's entity file
 * @fabric: its fabric
 * @cache: the queue's data path state
 * @next: round-robin position of the next chunk
 * @moved: data bytes moved so far
 * @usable: the planes to the peer, as the entry's checks read them just
 *	before its first chunk, when @usable_read
 * @usable_read: the first chunk takes @usable instead of reading again
 */
struct ubfab_xfer {
	struct ubfab_file *file;
	struct ubfab_fabric *fabric;
	struct ubfab_xfer_cache *cache;
	u32 next;
	u32 moved;
	u32 usable;
	bool usable_read;
};

/*
 * Choose the plane of the next chunk from @x to @peer and move the
 * round-robin past it. Return: the plane, or UBFAB_XFER_NO_PLANE.
 */
static __always_inline u32 ubfab_xfer_route(struct ubfab_xfer *x,
					    struct ubfab_entity *peer)
{
	u32 usable = x->usable;

	if (!x->usable_read)
		usable = ubfab_xfer_usable(x->fabric, x->file->entity, peer);
	x->usable_read = false;
	return ubfab_xfer_pick_plane(usable, x->fabric->topo.planes, &x->next);
}

/* Count one chunk of @bytes from @tx to @rx over @plane. */
static __always_inline void ubfab_xfer_count(u32 plane,
					     struct ubfab_entity *tx,
					     struct ubfab_entity *rx, u32 bytes)
{
	struct ubfab_stats *txs = &tx->ports[plane].stats;
	struct ubfab_stats *rxs = &rx->ports[plane].stats;

	/* the plane's counters are the sums of its ports' */
	atomic64_add(bytes, &txs->tx_bytes);
	atomic64_inc(&txs->tx_ops);
	atomic64_add(bytes, &rxs->rx_bytes);
	atomic64_inc(&rxs->rx_ops);
}

/*
 * The allocation of @file holding [@addr, @addr + @len), or NULL.
 * Context: the file's entity's mem_lock held; the range is within the
 * entity's memory.
 */
static struct ubfab_alloc *ubfab_xfer_find_alloc(struct ubfab_file *file,
						 u64 addr, u32 len)
{
	return ubfab_mem_find_alloc(file, addr >> PAGE_SHIFT,
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
	struct ubfab_alloc *alloc;

	if (ubfab_xfer_local_hit(c, entity->mem_gen, addr, len))
		return c->local_win;
	alloc = ubfab_xfer_find_alloc(x->file, addr, len);
	if (!alloc)
		return NULL;
	/* the cache's own reference: the fast path enters the window */
	kref_get(&alloc->win->ref);
	if (c->local_win)
		ubfab_window_put(c->local_win);
	/* the cached local page is one of the cached allocation's */
	c->lpage.owner = NULL;
	c->local_gen = entity->mem_gen;
	c->local_start = (u64)alloc->win->first << PAGE_SHIFT;
	c->local_end = c->local_start + ((u64)alloc->win->npages << PAGE_SHIFT);
	c->local_win = alloc->win;
	return alloc->win;
}

/* Whether [@addr, @addr + @len) lies within one allocation of @x's file. */
static u16 ubfab_xfer_check_local(struct ubfab_xfer *x, u64 addr, u32 len)
{
	struct ubfab_entity *entity = x->file->entity;
	struct ubfab_window *win;

	if (!ubfab_xfer_range_ok(addr, len, entity->mem_size))
		return UBFAB_CQE_LOCAL_RANGE;
	/* the allocation was there when the generation was read: enough */
	if (ubfab_xfer_local_hit(x->cache, READ_ONCE(entity->mem_gen), addr,
				 len))
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
	long id = ubfab_import_id(base);
	struct ubfab_xfer_cache *c = x->cache;
	struct ubfab_file *file = x->file;
	struct ubfab_import *imp;

	if (id < 0)
		return false;
	mutex_lock(&file->imports_lock);
	imp = xa_load(&file->imports, id);
	if (imp) {
		if (c->imp_win)
			ubfab_window_put(c->imp_win);
		/* the cache's own reference: the window outlives the import */
		kref_get(&imp->win->ref);
		c->imp_win = imp->win;
		/* the cached remote page is one of the cached import's */
		c->rpage.owner = NULL;
		c->imp_base = base;
		c->imp_size = (u64)imp->win->npages << PAGE_SHIFT;
		c->imp_addr = (u64)imp->win->first << PAGE_SHIFT;
		c->imp_rights = imp->rights;
		c->imports_gen = file->imports_gen;
	}
	mutex_unlock(&file->imports_lock);
	return imp;
}

/* Whether the cache @c of a queue of @file holds the import at @base. */
static __always_inline bool
ubfab_xfer_import_hit(const struct ubfab_xfer_cache *c,
		      const struct ubfab_file *file, u64 base)
{
	/* an unimport changes the generation before the import goes */
	return c->imp_win && c->imp_base == base &&
	       c->imports_gen == READ_ONCE(file->imports_gen);
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
	status = win->revoked ? UBFAB_CQE_REVOKED : UBFAB_CQE_OK;
	up_read(&win->owner->mem_lock);
	if (status)
		return status;
	kref_get(&win->ref);
	r->win = win;
	r->addr = addr;
	return UBFAB_CQE_OK;
}

/* The next page of @xas's xarray, from its index on; NULL if untouched. */
static __always_inline struct page *ubfab_xfer_next_page(struct xa_state *xas)
{
	struct page *page;

	do {
		page = xas_next(xas);
	} while (xas_retry(xas, page));
	return page;
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
	XA_STATE(dxas, &dwin->owner->pages, didx);
	XA_STATE(sxas, swin ? &swin->owner->pages : NULL, sidx);
	u32 doff = offset_in_page(daddr), done = 0, n;
	/* a fill keeps its source offset on the destination's */
	u32 soff = swin ? offset_in_page(saddr) : doff;
	struct page *dpage, *spage = NULL;
	u16 status = UBFAB_CQE_OK;
	void *d, *s;

	rcu_read_lock();
	dpage = ubfab_xfer_next_page(&dxas);
	if (swin)
		spage = ubfab_xfer_next_page(&sxas);
	while (done < len) {
		if (!dpage) {
			/*
			 * Allocating sleeps: each walk starts again from the
			 * top at the page after the one in use (not
			 * xas_pause(), which skips an empty subtree whole).
			 */
			xas_set(&dxas, didx + 1);
			if (swin)
				xas_set(&sxas, sidx + 1);
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
			dpage = ubfab_xfer_next_page(&dxas);
		}
		if (soff == PAGE_SIZE) {
			soff = 0;
			sidx++;
			if (swin)
				spage = ubfab_xfer_next_page(&sxas);
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
	else if (rwin->revoked)
		status = UBFAB_CQE_REVOKED;
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
	struct ubfab_entity *entity = x->file->entity, *peer = r->win->owner;
	u32 len, plane, done;
	u16 status;

	while (x->moved < length) {
		if (x->moved)
			cond_resched();
		len = ubfab_xfer_chunk_len(length, x->moved);
		plane = ubfab_xfer_route(x, peer);
		if (plane == UBFAB_XFER_NO_PLANE)
			return UBFAB_CQE_NO_ROUTE;
		status = ubfab_xfer_chunk(x, local + x->moved, r->win,
					  r->addr + x->moved, len, write,
					  &done);
		x->moved += done;
		if (status)
			return status;
		ubfab_xfer_count(plane, write ? entity : peer,
				 write ? peer : entity, len);
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

/*
 * The atomic @op on the 8 aligned bytes of @r, one 8-byte chunk from the
 * initiator to the owner; *@old gets the old value.
 */
static u16 ubfab_xfer_atomic(struct ubfab_xfer *x,
			     const struct ubfab_xfer_remote *r, u32 op,
			     u64 value, u64 compare, u64 *old)
{
	struct ubfab_entity *owner = r->win->owner;
	struct page *page;
	u16 status;
	u32 plane;
	void *p;

	plane = ubfab_xfer_route(x, owner);
	if (plane == UBFAB_XFER_NO_PLANE)
		return UBFAB_CQE_NO_ROUTE;

	down_read(&owner->mem_lock);
	if (r->win->revoked) {
		status = UBFAB_CQE_REVOKED;
		goto out_unlock;
	}
	page = ubfab_mem_page(r->win, r->addr >> PAGE_SHIFT);
	if (!page) {
		status = UBFAB_CQE_NOMEM;
		goto out_unlock;
	}
	p = kmap_local_page(page);
	*old = ubfab_xfer_apply(p + offset_in_page(r->addr), op, value,
				compare);
	kunmap_local(p);
	status = UBFAB_CQE_OK;
out_unlock:
	up_read(&owner->mem_lock);
	if (!status)
		ubfab_xfer_count(plane, x->file->entity, owner,
				 sizeof(u64));
	return status;
}

/* Whether the fields of @sqe that @unused marks are 0. */
static __always_inline bool ubfab_xfer_unused_zero(const struct ubfab_sqe *sqe,
						   const struct ubfab_sqe *unused)
{
	return !((sqe->length & unused->length) |
		 (sqe->local & unused->local) |
		 (sqe->remote & unused->remote) |
		 (sqe->value & unused->value) |
		 (sqe->compare & unused->compare) |
		 (sqe->notify & unused->notify) | (sqe->aux & unused->aux) |
		 (sqe->timeout_ms & unused->timeout_ms));
}

/* Whether the fields @sqe's opcode does not use are 0 and the rest sane. */
static __always_inline bool ubfab_xfer_entry_ok(const struct ubfab_sqe *sqe)
{
	bool length_ok = sqe->length && sqe->length <= UBFAB_SQE_MAX_LENGTH;

	if (!ubfab_xfer_unused_zero(sqe, &ubfab_xfer_unused[sqe->opcode]))
		return false;

	switch (sqe->opcode) {
	case UBFAB_OP_WRITE_NOTIFY:
		return length_ok && IS_ALIGNED(sqe->notify, sizeof(u64));
	case UBFAB_OP_ATOMIC:
		return IS_ALIGNED(sqe->remote, sizeof(u64)) &&
		       sqe->aux <= UBFAB_ATOMIC_FETCH_XOR &&
		       (sqe->aux == UBFAB_ATOMIC_CAS || !sqe->compare);
	case UBFAB_OP_FILL:
		return length_ok && sqe->aux <= U8_MAX;
	default:
		return length_ok;
	}
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
	       pc->gen == READ_ONCE(owner->mem_gen);
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
	page = alloc ? ubfab_mem_page(win, idx) : xa_load(&owner->pages, idx);
	if (page)
		ubfab_xfer_page_set(pc, owner, owner->mem_gen, idx, page);
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
	u32 len = sqe->length, plane = UBFAB_XFER_NO_PLANE;
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
	status = ubfab_xfer_resolve(x, sqe->remote, len,
				    write ? UBFAB_SEG_WRITE : UBFAB_SEG_READ,
				    &raddr);
	if (status)
		return status;
	rwin = c->imp_win;
	peer = rwin->owner;

	down_read(&peer->mem_lock);
	if (rwin->revoked)
		status = UBFAB_CQE_REVOKED;
	else
		plane = ubfab_xfer_route(x, peer);
	if (!status && plane == UBFAB_XFER_NO_PLANE)
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
	ubfab_xfer_count(plane, write ? entity : peer,
			 write ? peer : entity, len);
	x->moved = len;
	return UBFAB_CQE_OK;
}

/* WRITE, READ or WRITE_NOTIFY. */
static u16 ubfab_xfer_remote_data(struct ubfab_xfer *x,
				  const struct ubfab_sqe *sqe, u64 *result)
{
	struct ubfab_entity *entity = x->file->entity;
	bool write = sqe->opcode != UBFAB_OP_READ;
	struct ubfab_xfer_remote r, n = {};
	u16 status;

	if (sqe->opcode != UBFAB_OP_WRITE_NOTIFY &&
	    sqe->length <= UBFAB_XFER_INLINE)
		return ubfab_xfer_inline(x, sqe, write);

	status = ubfab_xfer_check_local(x, sqe->local, sqe->length);
	if (status)
		return status;
	status = ubfab_xfer_get_remote(x, sqe->remote, sqe->length,
				       write ? UBFAB_SEG_WRITE : UBFAB_SEG_READ,
				       &r);
	if (status)
		return status;
	if (sqe->opcode == UBFAB_OP_WRITE_NOTIFY) {
		status = ubfab_xfer_get_remote(x, sqe->notify,
					       sizeof(u64), UBFAB_SEG_ATOMIC,
					       &n);
		if (status)
			goto out_put_remote;
		if (!ubfab_xfer_usable(x->fabric, entity, n.win->owner)) {
			status = UBFAB_CQE_NO_ROUTE;
			goto out_put_notify;
		}
	}
	x->usable = ubfab_xfer_usable(x->fabric, entity, r.win->owner);
	if (!x->usable) {
		status = UBFAB_CQE_NO_ROUTE;
		goto out_put_notify;
	}
	/* the first chunk goes by this reading: no need to scan again */
	x->usable_read = true;

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
				       UBFAB_SEG_ATOMIC, &r);
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

	while (x->moved < sqe->length) {
		if (x->moved)
			cond_resched();
		len = ubfab_xfer_chunk_len(sqe->length, x->moved);
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

/* Where the cache's plane cursor stands, kept below @planes. */
static __always_inline u32 ubfab_xfer_cursor(const struct ubfab_xfer_cache *c,
					     u32 planes)
{
	return c->plane_cursor < planes ? c->plane_cursor : 0;
}

/* The plane cursor's next position after @start, of @planes. */
static __always_inline u32 ubfab_xfer_cursor_next(u32 start, u32 planes)
{
	return start + 1 < planes ? start + 1 : 0;
}

/**
 * ubfab_xfer_execute() - run one data entry of a queue the slow way
 * @file: the entity file of the queue
 * @sqe: the entry, in kernel memory; opcode WRITE, READ, WRITE_NOTIFY,
 *	ATOMIC, COPY or FILL (any other completes with BAD_OPCODE), flags
 *	and __reserved already checked
 * @cache: the queue's data path state: its @plane_cursor, the rotating
 *	start plane, advances by one for each remote entry (WRITE, READ,
 *	WRITE_NOTIFY, ATOMIC), failed or not
 * @result: out: ATOMIC's old value or WRITE_NOTIFY's old notify value;
 *	else 0
 * @bytes: out: data bytes moved, also on failure (a transfer that fails
 *	midway has moved its earlier chunks, or with NOMEM what comes
 *	before the page it could not allocate); 8 for ATOMIC; WRITE_NOTIFY's
 *	notify add is not counted
 *
 * Checks the entry's other fields (UBFAB_CQE_BAD_ENTRY), then its local
 * ranges, imports, remote ranges, rights, revocation and route, in that
 * order, before moving anything. A failed remote entry counts one error
 * on the entity's port into the start plane and on that plane; COPY and
 * FILL cross no plane and count nothing.
 *
 * Context: process context, may sleep; no ubfab lock held but the queue's
 * run_lock, which guards @cache.
 * Return: enum ubfab_cqe_status.
 */
u16 ubfab_xfer_execute(struct ubfab_file *file, const struct ubfab_sqe *sqe,
		       struct ubfab_xfer_cache *cache, u64 *result, u32 *bytes)
{
	struct ubfab_xfer x = {
		.file = file,
		.fabric = file->entity->fabric,
		.cache = cache,
	};
	u32 planes = x.fabric->topo.planes;
	u32 start = ubfab_xfer_cursor(cache, planes);
	bool remote = false;
	u16 status;

	*result = 0;
	x.next = start;
	switch (sqe->opcode) {
	case UBFAB_OP_WRITE:
	case UBFAB_OP_READ:
	case UBFAB_OP_WRITE_NOTIFY:
	case UBFAB_OP_ATOMIC:
		remote = true;
		cache->plane_cursor = ubfab_xfer_cursor_next(start, planes);
		if (!ubfab_xfer_entry_ok(sqe))
			status = UBFAB_CQE_BAD_ENTRY;
		else if (sqe->opcode == UBFAB_OP_ATOMIC)
			status = ubfab_xfer_remote_atomic(&x, sqe, result);
		else
			status = ubfab_xfer_remote_data(&x, sqe, result);
		break;
	case UBFAB_OP_COPY:
	case UBFAB_OP_FILL:
		if (!ubfab_xfer_entry_ok(sqe))
			status = UBFAB_CQE_BAD_ENTRY;
		else
			status = ubfab_xfer_local(&x, sqe);
		break;
	default:
		status = UBFAB_CQE_BAD_OPCODE;
		break;
	}

	if (status) {
		/* which is also the plane's: its counts are its ports' */
		if (remote)
			atomic64_inc(&file->entity->ports[start].stats.errors);
		*result = 0;
	}
	*bytes = x.moved;
	return status;
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
	    c->local_gen != READ_ONCE(entity->mem_gen) ||
	    c->imports_gen != READ_ONCE(file->imports_gen) ||
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
	bool write = sqe->opcode == UBFAB_OP_WRITE;
	u32 len = sqe->length;

	*lenp = len;
	*loff = sqe->local - ((u64)c->lpage.idx << PAGE_SHIFT);
	*roff = c->imp_addr + (sqe->remote - base) -
		((u64)c->rpage.idx << PAGE_SHIFT);
	/* READ does not use what WRITE does not */
	return (write || sqe->opcode == UBFAB_OP_READ) &&
	       len - 1 < UBFAB_XFER_INLINE &&
	       ubfab_xfer_unused_zero(sqe,
				      &ubfab_xfer_unused[UBFAB_OP_WRITE]) &&
	       *loff <= PAGE_SIZE - len && base == c->imp_base &&
	       *roff <= PAGE_SIZE - len &&
	       (c->imp_rights & (write ? UBFAB_SEG_WRITE : UBFAB_SEG_READ));
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
	u64 gen = READ_ONCE(owner->mem_gen);
	struct page *page;

	if (pc->owner == owner && pc->idx == idx)
		return true;
	page = xa_load(&owner->pages, idx);
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

	if ((sqe->opcode != UBFAB_OP_WRITE && sqe->opcode != UBFAB_OP_READ) ||
	    len - 1 >= UBFAB_XFER_INLINE ||
	    !ubfab_xfer_unused_zero(sqe, &ubfab_xfer_unused[UBFAB_OP_WRITE]) ||
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
 * @file: the entity file of the queue
 * @c: the queue's data path state
 * @sqes: entries in kernel memory, opcode WRITE or READ, flags and
 *	__reserved already checked
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
 * sleeps or takes a lock. Each entry it does completes with UBFAB_CQE_OK,
 * all its bytes moved and counted, as ubfab_xfer_execute() would have
 * done it; the first it does not take it leaves untouched.
 *
 * Context: as ubfab_xfer_execute().
 * Return: entries done, from the first.
 */
unsigned int ubfab_xfer_fast_run(struct ubfab_file *file,
				 struct ubfab_xfer_cache *c,
				 const struct ubfab_sqe *sqes, unsigned int n)
{
	struct ubfab_entity *entity = file->entity, *peer;
	struct ubfab_fabric *fabric = entity->fabric;
	u32 planes = fabric->topo.planes, cursor, next, plane, len;
	const struct ubfab_sqe *sqe;
	unsigned int done;
	u64 loff, roff;

	if (!n || !ubfab_xfer_enter(file, c))
		return 0;
	peer = c->imp_win->owner;
	cursor = ubfab_xfer_cursor(c, planes);
	for (done = 0; done < n; done++) {
		sqe = &sqes[done];
		if (!ubfab_xfer_fast_ok(sqe, c, &loff, &roff, &len) &&
		    (!ubfab_xfer_fast_repage(file, sqe, c) ||
		     !ubfab_xfer_fast_ok(sqe, c, &loff, &roff, &len)))
			break;
		next = cursor;
		plane = ubfab_xfer_pick_plane(ubfab_xfer_usable(fabric, entity,
								peer),
					      planes, &next);
		if (plane == UBFAB_XFER_NO_PLANE)
			break;
		if (sqe->opcode == UBFAB_OP_WRITE) {
			memcpy(c->rpage.addr + roff, c->lpage.addr + loff, len);
			flush_dcache_page(c->rpage.page);
			ubfab_xfer_count(plane, entity, peer, len);
		} else {
			memcpy(c->lpage.addr + loff, c->rpage.addr + roff, len);
			flush_dcache_page(c->lpage.page);
			ubfab_xfer_count(plane, peer, entity, len);
		}
		cursor = ubfab_xfer_cursor_next(cursor, planes);
	}
	c->plane_cursor = cursor;
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
	if (!ubfab_xfer_find_alloc(file, local, sizeof(u64))) {
		status = UBFAB_CQE_LOCAL_RANGE;
		goto out_unlock;
	}
	page = xa_load(&entity->pages, local >> PAGE_SHIFT);
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

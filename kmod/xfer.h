/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab queue data path (xfer.c): the runners of the entries that move
 * data, the fast path of small messages, and each queue's translation
 * cache.
 */
#ifndef _UBFAB_XFER_H
#define _UBFAB_XFER_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <linux/ubfab.h>

struct ubfab_file;
struct ubfab_queue;
struct ubfab_exec;
struct ubfab_window;
struct ubfab_entity;
struct page;

/*
 * Most bytes a transfer moves through a queue's bounce buffer (xfer.c).
 * The fast path takes no longer entry, so none it takes can break
 * UBFAB_SQE_MEMSEM's length limit, which it does not check.
 */
#define UBFAB_XFER_INLINE	256
static_assert(UBFAB_XFER_INLINE <= UBFAB_SQE_MEMSEM_MAX_LENGTH);

/**
 * struct ubfab_xfer_page - a page a queue's data path used last
 * @owner: the entity whose memory holds it, or NULL (nothing cached)
 * @gen: @owner->mem_gen when it was found
 * @idx: its page offset in @owner's memory
 * @page: the page, owned by @owner->pages
 * @addr: its kernel address, or NULL for a highmem page (which the fast
 *	path leaves to the slow one)
 */
struct ubfab_xfer_page {
	struct ubfab_entity *owner;
	u64 gen;
	pgoff_t idx;
	struct page *page;
	void *addr;
};

/**
 * struct ubfab_xfer_cache - a queue's data path state from one entry to
 *	the next, guarded by the queue's @run_lock: a translation cache of
 *	what the last entries resolved
 * @imports_gen: the file's @imports_gen when @imp_win was resolved
 * @imp_base: the import's address, as queue entries name it
 * @imp_size: its bytes
 * @imp_addr: its first byte in its owner's memory
 * @imp_rights: its rights
 * @imp_win: its window, referenced, or NULL (nothing cached)
 * @local_gen: the entity's @mem_gen when @local_start was found
 * @local_start: first byte of the allocation last found ...
 * @local_end: ... and the byte after it; equal: nothing cached
 * @local_win: that allocation's window, referenced
 * @lpage: the local page used last
 * @rpage: the remote page used last
 * @bounce: staging for transfers of at most UBFAB_XFER_INLINE bytes
 *
 * Each cached fact holds while the generation it was read under is
 * unchanged. The data path touches cached allocations and pages only after
 * comparing mem_gen, with the entity's mem_lock held shared (it changes
 * with the lock held exclusive) or, on the fast path, before entering the
 * windows holding them (ubfab_window_enter(): the pages stay until those
 * are revoked); it compares imports_gen with READ_ONCE(), which is enough
 * because the cache holds its own references on both windows and
 * revocation is read under the owner's mem_lock or by entering. So
 * nothing in the cache is used after what it names is gone.
 */
struct ubfab_xfer_cache {
	u64 imports_gen;
	u64 imp_base;
	u64 imp_size;
	u64 imp_addr;
	u32 imp_rights;
	struct ubfab_window *imp_win;
	u64 local_gen;
	u64 local_start;
	u64 local_end;
	struct ubfab_window *local_win;
	struct ubfab_xfer_page lpage;
	struct ubfab_xfer_page rpage;
	u8 bounce[UBFAB_XFER_INLINE];
};

unsigned int ubfab_xfer_fast_run(struct ubfab_queue *q,
				 struct ubfab_exec *execs, unsigned int n);
void ubfab_xfer_cache_fini(struct ubfab_xfer_cache *cache);
u16 ubfab_xfer_load_local(struct ubfab_file *file, u64 local, u64 *val);
u16 ubfab_xfer_stamp(struct ubfab_queue *q, u64 addr, bool local, u64 ps);
/* Exposed for xfer_kunit.c. */
u32 ubfab_xfer_npages(u64 addr, u32 len);
bool ubfab_xfer_range_ok(u64 off, u64 len, u64 size);

#endif /* _UBFAB_XFER_H */

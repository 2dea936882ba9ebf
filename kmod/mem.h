/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab memory: an entity's memory and its allocations (mem.c), the
 * windows through which VMAs and queues reach it, segments and imports
 * (segment.c), and what the queue data path may ask of them: pages,
 * imports and generations are read through the functions at the end of
 * this header, never through the objects' fields.
 */
#ifndef _UBFAB_MEM_H
#define _UBFAB_MEM_H

#include <linux/kref.h>
#include <linux/wait_bit.h>
#include <linux/xarray.h>

#include "ubfab.h"

/**
 * struct ubfab_window - a range of one entity's memory that a VMA may map
 * @ref: held by the owner object and by each VMA mapping the window
 * @owner: the entity whose memory this is
 * @first: first page, as a page offset in @owner's memory
 * @npages: pages in the window
 * @base: the mmap() offset, in pages, at which VMAs map the window
 * @memcg: for an allocation, the memory cgroup charged for its pages
 * @parent: for an import, the window of the allocation it lies in
 * @revoked: set under @owner->mem_lock held exclusive; faults then fail;
 *	read without the lock only by ubfab_window_enter()
 * @writable: mappings may be writable
 * @busy: copies in progress through the window without the owner's
 *	mem_lock (ubfab_window_enter()); revocation waits until none is left
 */
struct ubfab_window {
	struct kref ref;
	struct ubfab_entity *owner;
	pgoff_t first;
	pgoff_t npages;
	pgoff_t base;
	struct mem_cgroup *memcg;
	struct ubfab_window *parent;
	bool revoked;
	bool writable;
	atomic_t busy;
};

/**
 * struct ubfab_alloc - a range of an entity's memory allocated by a file
 * @win: the range; its revocation frees the memory
 * @file: the allocating file
 * @entity_node: in the entity's @allocs, sorted
 * @file_node: in the file's @allocs
 */
struct ubfab_alloc {
	struct ubfab_window *win;
	struct ubfab_file *file;
	struct list_head entity_node;
	struct list_head file_node;
};

/**
 * struct ubfab_segment - an exported range, guarded by a token
 * @ref: held by the owner entity's table and by each import
 * @owner: the exporting entity
 * @file: the exporting file, or NULL once unexported
 * @token_id: the segment's key in @owner->segments
 * @token_value: the secret importers must present
 * @pid: the exporting process, as seen from the initial pid namespace
 * @rights: UBFAB_SEG_* granted
 * @first: first page in @owner's memory
 * @npages: pages in the segment
 * @alloc_win: window of the allocation the segment lies in, referenced
 * @imports: struct ubfab_import.seg_node, under @owner->mem_lock
 * @nr_imports: entries in @imports
 */
struct ubfab_segment {
	struct kref ref;
	struct ubfab_entity *owner;
	struct ubfab_file *file;
	struct ubfab_window *alloc_win;
	u32 token_id;
	u32 token_value;
	pid_t pid;
	u32 rights;
	pgoff_t first;
	pgoff_t npages;
	struct list_head imports;
	u32 nr_imports;
};

/**
 * struct ubfab_import - a segment imported by a file
 * @win: the mappable window onto the exporter's memory
 * @seg: the segment, referenced
 * @file: the importing file
 * @id: window number; mmap offset UBFAB_IMPORT_BASE + id * UBFAB_MAX_MEM
 * @rights: UBFAB_SEG_* asked for and granted
 * @seg_node: in @seg->imports while the import is live
 */
struct ubfab_import {
	struct ubfab_window *win;
	struct ubfab_segment *seg;
	struct ubfab_file *file;
	u32 id;
	u32 rights;
	struct list_head seg_node;
};

/* mem.c */
void ubfab_mem_init(struct ubfab_entity *entity);
void ubfab_mem_fini(struct ubfab_entity *entity);
int ubfab_mem_alloc(struct ubfab_file *file, struct ubfab_mem_alloc *arg);
int ubfab_mem_free(struct ubfab_file *file, u64 offset);
/* Exposed for mem_kunit.c. */
int ubfab_mem_find_gap(struct ubfab_entity *entity, pgoff_t npages,
		       pgoff_t *first, struct list_head **next);
void ubfab_mem_free_all(struct ubfab_file *file);
void ubfab_mem_reset(struct ubfab_entity *entity);
int ubfab_mem_mmap(struct ubfab_file *file, struct vm_area_struct *vma);
struct ubfab_alloc *ubfab_mem_find_alloc(struct ubfab_file *file,
					 pgoff_t first, pgoff_t npages);
struct ubfab_window *ubfab_window_create(struct ubfab_entity *owner,
					 pgoff_t first, pgoff_t npages,
					 bool writable);
void ubfab_window_put(struct ubfab_window *win);
struct page *ubfab_mem_page(struct ubfab_window *win, pgoff_t idx);
void ubfab_window_revoke(struct ubfab_window *win,
			 struct address_space *mapping);
int ubfab_mem_map_window(struct vm_area_struct *vma, struct ubfab_window *win);

/**
 * ubfab_window_leave() - end what ubfab_window_enter() started
 * @win: the window
 *
 * The decrement is fully ordered after the copy's accesses; the last one
 * out of a revoked window wakes its revoker.
 */
static __always_inline void ubfab_window_leave(struct ubfab_window *win)
{
	if (atomic_dec_and_test(&win->busy) && READ_ONCE(win->revoked))
		wake_up_var(&win->busy);
}

/**
 * ubfab_window_enter() - start touching a window's pages without its lock
 * @win: a window whose memory stays valid (the caller holds a reference)
 *
 * The queue data path's fast path (xfer.c) copies between pages it found
 * earlier without taking the owners' mem_locks. Between this and
 * ubfab_window_leave() the window's pages, as found while it was not
 * revoked, stay its owner's: ubfab_window_revoke() waits for every copy
 * that entered before it, and the owner frees pages only after revoking
 * the window that holds them. The caller must not sleep or take a
 * mem_lock in between.
 *
 * Ordering: the increment is fully ordered before the load of @revoked;
 * the revoker stores @revoked, then smp_mb(), then reads @busy. So either
 * the revoker waits for this copy or this sees the window revoked.
 *
 * Return: false, having left again, when the window is revoked.
 */
static __always_inline bool ubfab_window_enter(struct ubfab_window *win)
{
	atomic_inc(&win->busy);
	/* Pairs with the smp_mb() in ubfab_window_revoke(). */
	smp_mb__after_atomic();
	if (likely(!READ_ONCE(win->revoked)))
		return true;
	ubfab_window_leave(win);
	return false;
}

/* segment.c */
int ubfab_seg_export(struct ubfab_file *file, struct ubfab_seg_export *arg);
int ubfab_seg_unexport(struct ubfab_file *file, u32 token_id);
int ubfab_seg_import(struct ubfab_file *file, struct ubfab_seg_import *arg);
int ubfab_seg_unimport(struct ubfab_file *file, u64 mmap_offset);
int ubfab_seg_mmap(struct ubfab_file *file, struct vm_area_struct *vma);
void ubfab_seg_revoke_range(struct ubfab_entity *owner, pgoff_t first,
			    pgoff_t npages, u32 reason);
void ubfab_seg_drop_imports(struct ubfab_file *file);

/*
 * The data path's view (xfer.c). A generation changes, under the lock that
 * guards what it covers, before anything it covers goes: what was found
 * under one generation holds while it is unchanged.
 */

/* An entity's memory generation (struct ubfab_entity.mem_gen), now. */
static __always_inline u64 ubfab_mem_gen(const struct ubfab_entity *entity)
{
	return READ_ONCE(entity->mem_gen);
}

/* A file's import generation (struct ubfab_file.imports_gen), now. */
static __always_inline u64 ubfab_imports_gen(const struct ubfab_file *file)
{
	return READ_ONCE(file->imports_gen);
}

/*
 * Whether @win is revoked. Context: its owner's mem_lock held, which
 * revocation takes exclusive.
 */
static __always_inline bool ubfab_window_revoked(const struct ubfab_window *win)
{
	return win->revoked;
}

/*
 * Page @idx of @owner's memory, or NULL while untouched.
 * Context: the owner's mem_lock held shared, or inside a window holding
 * the page (ubfab_window_enter()).
 */
static __always_inline struct page *
ubfab_mem_find_page(struct ubfab_entity *owner, pgoff_t idx)
{
	return xa_load(&owner->pages, idx);
}

/**
 * struct ubfab_page_walk - a walk over an entity's pages in index order
 * @xas: where it stands in the owner's page xarray
 *
 * For a copy that moves page by page: one descent of the xarray for the
 * whole walk instead of one per page. Context: the owner's mem_lock held
 * shared, and rcu_read_lock() around ubfab_page_walk_next().
 */
struct ubfab_page_walk {
	struct xa_state xas;
};

/* Start a walk of @owner's pages at page @idx. */
static __always_inline void ubfab_page_walk_init(struct ubfab_page_walk *w,
						 struct ubfab_entity *owner,
						 pgoff_t idx)
{
	w->xas = (struct xa_state)__XA_STATE(&owner->pages, idx, 0, 0);
}

/* Go on from page @idx, from the top (after the RCU section was left). */
static __always_inline void ubfab_page_walk_restart(struct ubfab_page_walk *w,
						    pgoff_t idx)
{
	xas_set(&w->xas, idx);
}

/* The walk's next page, from its index on; NULL if untouched. */
static __always_inline struct page *
ubfab_page_walk_next(struct ubfab_page_walk *w)
{
	struct page *page;

	do {
		page = xas_next(&w->xas);
	} while (xas_retry(&w->xas, page));
	return page;
}

/**
 * struct ubfab_import_ref - what the data path learns of an import
 * @win: its window, referenced for the caller (ubfab_window_put())
 * @size: its bytes
 * @addr: its first byte in its owner's memory
 * @rights: UBFAB_SEG_* granted
 * @gen: the file's imports_gen when it was found
 */
struct ubfab_import_ref {
	struct ubfab_window *win;
	u64 size;
	u64 addr;
	u32 rights;
	u64 gen;
};

bool ubfab_import_get(struct ubfab_file *file, u64 base,
		      struct ubfab_import_ref *ref);
struct ubfab_window *ubfab_mem_find_window(struct ubfab_file *file,
					   pgoff_t first, pgoff_t npages);

#endif /* _UBFAB_MEM_H */

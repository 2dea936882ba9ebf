// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab entity memory: allocation of ranges of an entity's memory, their
 * backing pages, and the windows through which VMAs map them.
 *
 * An entity's memory is address space only; a page is allocated the first
 * time any process touches it, zero-filled and charged to the memory cgroup
 * of the process that allocated the range. Pages sit in the entity's @pages
 * xarray until the range is freed.
 *
 * A window is a range of one entity's memory that VMAs may map: the
 * allocation itself for its owner, or an imported segment for a peer.
 * Faults insert the window's pages with the owner's @mem_lock held shared;
 * revocation sets @revoked and unmaps with it held exclusive, after waiting
 * for the queue copies inside the window (ubfab_window_enter()). So once
 * ubfab_window_revoke() returns, no PTE of the window exists and none can be
 * added: a later access faults and gets SIGBUS; and no queue entry touches
 * the window's pages any more. Windows are reference
 * counted by their owner object and by every VMA, so a fault never sees a
 * freed window.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "compat.h"
#include "mem.h"
#include "model.h"

void ubfab_mem_init(struct ubfab_entity *entity)
{
	init_rwsem(&entity->mem_lock);
	INIT_LIST_HEAD(&entity->allocs);
	xa_init(&entity->pages);
	xa_init(&entity->stamps);
	xa_init_flags(&entity->segments, XA_FLAGS_ALLOC1);
	ida_init(&entity->import_ids);
}

/* Context: the entity's last reference is gone, so no file is open. */
void ubfab_mem_fini(struct ubfab_entity *entity)
{
	WARN_ON(!list_empty(&entity->allocs));
	WARN_ON(!xa_empty(&entity->pages));
	WARN_ON(!xa_empty(&entity->stamps));
	WARN_ON(!xa_empty(&entity->segments));
	ida_destroy(&entity->import_ids);
}

/**
 * ubfab_window_create() - a window onto a range of an entity's memory
 * @owner: the entity whose memory it is
 * @first: first page, as a page offset in @owner's memory
 * @npages: pages in the window
 * @writable: whether mappings may be writable
 *
 * Return: the window with one reference, or NULL.
 */
struct ubfab_window *ubfab_window_create(struct ubfab_entity *owner,
					 pgoff_t first, pgoff_t npages,
					 bool writable)
{
	struct ubfab_window *win = kzalloc(sizeof(*win), GFP_KERNEL);

	if (!win)
		return NULL;
	kref_init(&win->ref);
	win->owner = owner;
	win->first = first;
	win->npages = npages;
	win->writable = writable;
	return win;
}

static void ubfab_window_release(struct kref *ref)
{
	struct ubfab_window *win = container_of(ref, struct ubfab_window, ref);

	if (win->parent)
		ubfab_window_put(win->parent);
	mem_cgroup_put(win->memcg);
	kfree(win);
}

void ubfab_window_put(struct ubfab_window *win)
{
	kref_put(&win->ref, ubfab_window_release);
}

/**
 * ubfab_window_revoke() - make a window unmappable and unmap it everywhere
 * @win: the window
 * @mapping: the address space its VMAs belong to
 *
 * Context: @win->owner->mem_lock held exclusive.
 */
void ubfab_window_revoke(struct ubfab_window *win,
			 struct address_space *mapping)
{
	lockdep_assert_held_write(&win->owner->mem_lock);
	WRITE_ONCE(win->revoked, true);
	/* Pairs with ubfab_window_enter(): see there. */
	smp_mb();
	/* the copies still inside found the pages before this: they finish */
	wait_var_event(&win->busy, !atomic_read_acquire(&win->busy));
	unmap_mapping_range(mapping, (loff_t)win->base << PAGE_SHIFT,
			    (loff_t)win->npages << PAGE_SHIFT, 1);
}

/* The memory cgroup charged for the pages of a window's memory. */
static struct mem_cgroup *ubfab_window_memcg(struct ubfab_window *win)
{
	return win->parent ? win->parent->memcg : win->memcg;
}

/**
 * ubfab_mem_page() - a page of a window's owner, allocated on first touch
 * @win: a window the page lies in; it names the memory cgroup to charge
 * @idx: the page, as a page offset in @win->owner's memory
 *
 * Used by faults and by the queue data path (xfer.c).
 *
 * Context: @win->owner->mem_lock held shared and @win not revoked;
 * concurrent callers on the same page agree on one page through
 * xa_cmpxchg().
 * Return: the page, owned by the owner's @pages, or NULL when out of memory.
 */
struct page *ubfab_mem_page(struct ubfab_window *win, pgoff_t idx)
{
	struct xarray *pages = &win->owner->pages;
	struct mem_cgroup *old;
	struct page *page, *cur;

	page = xa_load(pages, idx);
	if (page)
		return page;

	old = set_active_memcg(ubfab_window_memcg(win));
	page = alloc_page(GFP_HIGHUSER | __GFP_ZERO | __GFP_ACCOUNT);
	set_active_memcg(old);
	if (!page)
		return NULL;

	cur = xa_cmpxchg(pages, idx, NULL, page, GFP_KERNEL);
	if (!cur)
		return page;
	__free_page(page);
	return xa_is_err(cur) ? NULL : cur;
}

static vm_fault_t ubfab_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct ubfab_window *win = vma->vm_private_data;
	pgoff_t rel = vmf->pgoff - win->base;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	struct page *page;
	int err;

	down_read(&win->owner->mem_lock);
	if (win->revoked || rel >= win->npages)
		goto out_unlock;
	page = ubfab_mem_page(win, win->first + rel);
	if (!page) {
		ret = VM_FAULT_OOM;
		goto out_unlock;
	}
	err = vm_insert_page(vma, vmf->address, page);
	if (!err || err == -EBUSY)
		ret = VM_FAULT_NOPAGE;
	else if (err == -ENOMEM)
		ret = VM_FAULT_OOM;
out_unlock:
	up_read(&win->owner->mem_lock);
	return ret;
}

static void ubfab_vm_open(struct vm_area_struct *vma)
{
	struct ubfab_window *win = vma->vm_private_data;

	kref_get(&win->ref);
}

static void ubfab_vm_close(struct vm_area_struct *vma)
{
	ubfab_window_put(vma->vm_private_data);
}

static const struct vm_operations_struct ubfab_vm_ops = {
	.open = ubfab_vm_open,
	.close = ubfab_vm_close,
	.fault = ubfab_vm_fault,
};

/**
 * ubfab_mem_map_window() - set up a VMA to map (part of) a window
 * @vma: the VMA, its offset and length already checked against @win
 * @win: the window; the VMA takes a reference
 *
 * Context: @win->owner->mem_lock held.
 * Return: 0, -EACCES for a writable mapping of a read-only window, or
 * -ENODEV for a revoked one.
 */
int ubfab_mem_map_window(struct vm_area_struct *vma, struct ubfab_window *win)
{
	lockdep_assert_held(&win->owner->mem_lock);
	if (win->revoked)
		return -ENODEV;
	if (!win->writable) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		ubfab_vm_flags_clear(vma, VM_MAYWRITE);
	}
	kref_get(&win->ref);
	vma->vm_private_data = win;
	vma->vm_ops = &ubfab_vm_ops;
	ubfab_vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

/**
 * ubfab_mem_find_gap() - first fit over the entity's sorted allocations
 * @entity: the entity
 * @npages: pages wanted, at least 1
 * @first: out: the first page of the lowest free range that is big enough
 * @next: out: the list position to insert the new allocation before
 *
 * Context: entity->mem_lock held exclusive (mem_kunit.c calls it on an
 * entity of its own).
 * Return: 0, or -ENOSPC when no free range is big enough.
 */
int ubfab_mem_find_gap(struct ubfab_entity *entity, pgoff_t npages,
		       pgoff_t *first, struct list_head **next)
{
	pgoff_t end = entity->mem_size >> PAGE_SHIFT, prev = 0;
	struct ubfab_alloc *a;

	list_for_each_entry(a, &entity->allocs, entity_node) {
		if (a->win->first - prev >= npages) {
			*first = prev;
			*next = &a->entity_node;
			return 0;
		}
		prev = a->win->first + a->win->npages;
	}
	if (end - prev < npages)
		return -ENOSPC;
	*first = prev;
	*next = &entity->allocs;
	return 0;
}

/**
 * ubfab_mem_find_alloc() - the allocation of a file that holds a range
 * @file: the file
 * @first: first page of the range, in the entity's memory
 * @npages: pages in the range
 *
 * Context: the entity's mem_lock held.
 * Return: the allocation, or NULL when no single one holds the range.
 */
struct ubfab_alloc *ubfab_mem_find_alloc(struct ubfab_file *file,
					 pgoff_t first, pgoff_t npages)
{
	struct ubfab_alloc *alloc;

	lockdep_assert_held(&file->entity->mem_lock);
	list_for_each_entry(alloc, &file->allocs, file_node) {
		struct ubfab_window *win = alloc->win;

		if (first >= win->first && first - win->first < win->npages &&
		    npages <= win->npages - (first - win->first))
			return alloc;
	}
	return NULL;
}

/**
 * ubfab_mem_find_window() - the window of a file's allocation holding a range
 * @file: the file
 * @first: first page of the range, in the entity's memory
 * @npages: pages in the range
 *
 * For the queue data path, which copies through allocations' windows.
 * Context: the entity's mem_lock held.
 * Return: the window, or NULL when no single allocation holds the range.
 */
struct ubfab_window *ubfab_mem_find_window(struct ubfab_file *file,
					   pgoff_t first, pgoff_t npages)
{
	struct ubfab_alloc *alloc = ubfab_mem_find_alloc(file, first, npages);

	return alloc ? alloc->win : NULL;
}

/**
 * ubfab_mem_alloc() - allocate a range of the file's entity's memory
 * @file: the allocating file; it owns the range
 * @arg: checked here; @arg->offset is set
 *
 * Return: 0, -EINVAL, -ENOSPC or -ENOMEM.
 */
int ubfab_mem_alloc(struct ubfab_file *file, struct ubfab_mem_alloc *arg)
{
	struct ubfab_entity *entity = file->entity;
	struct ubfab_alloc *alloc;
	struct list_head *next;
	pgoff_t first;
	int ret;

	if (arg->flags || !arg->length || !PAGE_ALIGNED(arg->length))
		return -EINVAL;
	if (arg->length > entity->mem_size)
		return -ENOSPC;

	alloc = kzalloc(sizeof(*alloc), GFP_KERNEL);
	if (!alloc)
		return -ENOMEM;
	alloc->win = ubfab_window_create(entity, 0,
					 arg->length >> PAGE_SHIFT, true);
	if (!alloc->win) {
		ret = -ENOMEM;
		goto err_free_alloc;
	}
	alloc->win->memcg = get_mem_cgroup_from_mm(current->mm);
	alloc->file = file;

	down_write(&entity->mem_lock);
	ret = ubfab_mem_find_gap(entity, alloc->win->npages, &first, &next);
	if (ret)
		goto err_unlock;
	alloc->win->first = first;
	alloc->win->base = first;
	list_add_tail(&alloc->entity_node, next);
	list_add_tail(&alloc->file_node, &file->allocs);
	up_write(&entity->mem_lock);

	arg->offset = (u64)first << PAGE_SHIFT;
	return 0;

err_unlock:
	up_write(&entity->mem_lock);
	ubfab_window_put(alloc->win);
err_free_alloc:
	kfree(alloc);
	return ret;
}

/*
 * Revoke the allocation's segments and mappings, then return its pages.
 * Context: entity->mem_lock held exclusive.
 */
static void ubfab_mem_destroy(struct ubfab_alloc *alloc, u32 reason)
{
	struct ubfab_window *win = alloc->win;
	struct ubfab_entity *entity = win->owner;
	pgoff_t last = win->first + win->npages - 1;
	struct page *page;
	unsigned long idx;

	ubfab_seg_revoke_range(entity, win->first, win->npages, reason);
	ubfab_window_revoke(win, alloc->file->mapping);
	/* queues' translation caches forget the allocation and its pages */
	WRITE_ONCE(entity->mem_gen, entity->mem_gen + 1);
	xa_for_each_range(&entity->pages, idx, page, win->first, last) {
		xa_erase(&entity->pages, idx);
		put_page(page);
	}
	ubfab_model_forget(entity, (u64)win->first << PAGE_SHIFT,
			   (u64)win->npages << PAGE_SHIFT);
	list_del(&alloc->entity_node);
	list_del(&alloc->file_node);
	ubfab_window_put(win);
	kfree(alloc);
}

/**
 * ubfab_mem_free() - free a range this file allocated
 * @file: the owner
 * @offset: where the range starts
 *
 * Return: 0, or -ENOENT when no allocation of @file starts at @offset.
 */
int ubfab_mem_free(struct ubfab_file *file, u64 offset)
{
	struct ubfab_entity *entity = file->entity;
	struct ubfab_alloc *alloc;
	int ret = -ENOENT;

	if (!PAGE_ALIGNED(offset))
		return -ENOENT;
	down_write(&entity->mem_lock);
	list_for_each_entry(alloc, &file->allocs, file_node) {
		if (alloc->win->first == offset >> PAGE_SHIFT) {
			ubfab_mem_destroy(alloc, UBFAB_REVOKE_FREE);
			ret = 0;
			break;
		}
	}
	up_write(&entity->mem_lock);
	return ret;
}

/**
 * ubfab_mem_reset() - free all of an entity's memory
 * @entity: the entity
 *
 * Every allocation of every file is freed and its segments revoked; each
 * allocating file gets a UBFAB_EVENT_RESET event per allocation.
 */
void ubfab_mem_reset(struct ubfab_entity *entity)
{
	struct ubfab_alloc *alloc, *tmp;
	struct ubfab_event ev = {
		.type = UBFAB_EVENT_RESET,
		.eid = entity->eid,
	};

	down_write(&entity->mem_lock);
	list_for_each_entry_safe(alloc, tmp, &entity->allocs, entity_node) {
		ev.mmap_offset = (u64)alloc->win->first << PAGE_SHIFT;
		ubfab_event_post(alloc->file, &ev);
		ubfab_mem_destroy(alloc, UBFAB_REVOKE_RESET);
	}
	up_write(&entity->mem_lock);
}

/* Free everything the file allocated; its segments are revoked. */
void ubfab_mem_free_all(struct ubfab_file *file)
{
	struct ubfab_entity *entity = file->entity;
	struct ubfab_alloc *alloc, *tmp;

	down_write(&entity->mem_lock);
	list_for_each_entry_safe(alloc, tmp, &file->allocs, file_node)
		ubfab_mem_destroy(alloc, UBFAB_REVOKE_CLOSE);
	up_write(&entity->mem_lock);
}

/**
 * ubfab_mem_mmap() - map one of the file's allocations
 * @file: the owner
 * @vma: offset below the entity's memory size; must lie in one allocation
 *
 * Return: 0, -EINVAL when the range is not within one allocation of @file.
 */
int ubfab_mem_mmap(struct ubfab_file *file, struct vm_area_struct *vma)
{
	struct ubfab_entity *entity = file->entity;
	struct ubfab_alloc *alloc;
	int ret = -EINVAL;

	down_read(&entity->mem_lock);
	alloc = ubfab_mem_find_alloc(file, vma->vm_pgoff, vma_pages(vma));
	if (alloc)
		ret = ubfab_mem_map_window(vma, alloc->win);
	up_read(&entity->mem_lock);
	return ret;
}

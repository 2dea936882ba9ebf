// SPDX-License-Identifier: GPL-2.0
/*
 * ubfab segments: export of a range of an entity's memory under a token,
 * import of it by any file of any entity, mapping of imports, and their
 * revocation.
 *
 * A segment lives in its owner entity's @segments table, keyed by its token
 * id, until it is unexported, its range is freed or its file closes; then
 * each import's window is revoked (unmapped everywhere, later faults get
 * SIGBUS) and the importing file gets an event saying why. Segments and
 * their import lists change only under the owner's mem_lock held
 * exclusive. An import stays in its file's @imports table until the file
 * unimports it or closes, whether or not it was revoked.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "mem.h"
#include "trace.h"

#define UBFAB_IMPORT_PAGES	(UBFAB_MAX_MEM >> PAGE_SHIFT)

static u64 ubfab_import_offset(u32 id)
{
	return UBFAB_IMPORT_BASE + (u64)id * UBFAB_MAX_MEM;
}

static void ubfab_seg_release(struct kref *ref)
{
	struct ubfab_segment *seg = container_of(ref, struct ubfab_segment,
						 ref);

	ubfab_window_put(seg->alloc_win);
	kfree(seg);
}

static void ubfab_seg_put(struct ubfab_segment *seg)
{
	kref_put(&seg->ref, ubfab_seg_release);
}

/**
 * ubfab_seg_export() - export part of one of the file's allocations
 * @file: the owner of the allocation
 * @arg: checked here; @arg->token_id is set
 *
 * Return: 0, -EINVAL, -ENOSPC (no token id left) or -ENOMEM.
 */
int ubfab_seg_export(struct ubfab_file *file, struct ubfab_seg_export *arg)
{
	struct ubfab_entity *entity = file->entity;
	struct ubfab_segment *seg;
	struct ubfab_alloc *alloc;
	u32 id;
	int ret;

	if (!arg->rights || arg->rights & ~UBFAB_SEG_RIGHTS ||
	    !arg->length || !PAGE_ALIGNED(arg->length) ||
	    !PAGE_ALIGNED(arg->offset) || arg->offset >= entity->mem_size)
		return -EINVAL;

	seg = kzalloc(sizeof(*seg), GFP_KERNEL);
	if (!seg)
		return -ENOMEM;
	kref_init(&seg->ref);
	INIT_LIST_HEAD(&seg->imports);
	seg->owner = entity;
	seg->file = file;
	seg->token_value = arg->token_value;
	seg->pid = task_tgid_nr(current);
	seg->rights = arg->rights;
	seg->first = arg->offset >> PAGE_SHIFT;
	seg->npages = arg->length >> PAGE_SHIFT;

	down_write(&entity->mem_lock);
	alloc = ubfab_mem_find_alloc(file, seg->first, seg->npages);
	if (!alloc) {
		ret = -EINVAL;
		goto err_unlock;
	}
	ret = xa_alloc(&entity->segments, &id, seg,
		       XA_LIMIT(1, UBFAB_TOKEN_ID_MAX), GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err_unlock;
	}
	seg->token_id = id;
	seg->alloc_win = alloc->win;
	kref_get(&alloc->win->ref);
	up_write(&entity->mem_lock);

	arg->token_id = id;
	return 0;

err_unlock:
	up_write(&entity->mem_lock);
	kfree(seg);
	return ret;
}

/*
 * Remove the segment from its owner's table and revoke every import.
 * Context: seg->owner->mem_lock held exclusive.
 */
static void ubfab_seg_revoke(struct ubfab_segment *seg, u32 reason)
{
	struct ubfab_import *imp, *tmp;
	struct ubfab_event ev = {
		.type = UBFAB_EVENT_REVOKED,
		.reason = reason,
		.eid = seg->owner->eid,
		.token_id = seg->token_id,
	};

	trace_ubfab_seg_revoke(seg, reason);
	xa_erase(&seg->owner->segments, seg->token_id);
	seg->file = NULL;
	list_for_each_entry_safe(imp, tmp, &seg->imports, seg_node) {
		ubfab_window_revoke(imp->win, imp->file->mapping);
		list_del_init(&imp->seg_node);
		seg->nr_imports--;
		ev.mmap_offset = ubfab_import_offset(imp->id);
		ubfab_event_post(imp->file, &ev);
	}
	ubfab_seg_put(seg);
}

/**
 * ubfab_seg_unexport() - withdraw a segment this file exported
 * @file: the exporter
 * @token_id: the segment
 *
 * Return: 0, or -ENOENT when @file exported no segment @token_id.
 */
int ubfab_seg_unexport(struct ubfab_file *file, u32 token_id)
{
	struct ubfab_entity *entity = file->entity;
	struct ubfab_segment *seg;
	int ret = -ENOENT;

	down_write(&entity->mem_lock);
	seg = xa_load(&entity->segments, token_id);
	if (seg && seg->file == file) {
		ubfab_seg_revoke(seg, UBFAB_REVOKE_UNEXPORT);
		ret = 0;
	}
	up_write(&entity->mem_lock);
	return ret;
}

/**
 * ubfab_seg_revoke_range() - revoke every segment within a range
 * @owner: the entity
 * @first: first page of the range
 * @npages: pages in the range
 * @reason: enum ubfab_revoke_reason, reported to importers
 *
 * Context: @owner->mem_lock held exclusive.
 */
void ubfab_seg_revoke_range(struct ubfab_entity *owner, pgoff_t first,
			    pgoff_t npages, u32 reason)
{
	struct ubfab_segment *seg;
	unsigned long id;

	xa_for_each(&owner->segments, id, seg) {
		if (seg->first >= first && seg->first - first < npages)
			ubfab_seg_revoke(seg, reason);
	}
}

/* Tell the exporter that @importer was refused; count it. */
static void ubfab_seg_auth_failure(struct ubfab_segment *seg,
				   struct ubfab_entity *importer)
{
	struct ubfab_event ev = {
		.type = UBFAB_EVENT_AUTH_FAILURE,
		.eid = importer->eid,
		.token_id = seg->token_id,
	};

	atomic64_inc(&seg->owner->auth_failures);
	ubfab_event_post(seg->file, &ev);
}

/*
 * Check the token and rights and link a new import to the segment.
 * Context: exporter->mem_lock held exclusive.
 */
static int ubfab_seg_link(struct ubfab_import *imp,
			  struct ubfab_entity *exporter,
			  const struct ubfab_seg_import *arg)
{
	struct ubfab_segment *seg;

	seg = xa_load(&exporter->segments, arg->token_id);
	if (!seg)
		return -ENOENT;
	if (seg->token_value != arg->token_value ||
	    arg->rights & ~seg->rights) {
		ubfab_seg_auth_failure(seg, imp->file->entity);
		return -EACCES;
	}
	imp->win = ubfab_window_create(exporter, seg->first, seg->npages,
				       arg->rights & UBFAB_SEG_WRITE);
	if (!imp->win)
		return -ENOMEM;
	imp->win->base = ubfab_import_offset(imp->id) >> PAGE_SHIFT;
	imp->win->parent = seg->alloc_win;
	kref_get(&seg->alloc_win->ref);
	imp->seg = seg;
	kref_get(&seg->ref);
	list_add_tail(&imp->seg_node, &seg->imports);
	seg->nr_imports++;
	return 0;
}

/**
 * ubfab_seg_import() - import a peer's segment into this file
 * @file: the importer
 * @arg: checked here; @arg->length and @arg->mmap_offset are set
 *
 * Return: 0, -EINVAL, -ENODEV (no such entity), -ENOENT (no such segment),
 * -EACCES (wrong token value or right), -ENOSPC (too many imports) or
 * -ENOMEM.
 */
int ubfab_seg_import(struct ubfab_file *file, struct ubfab_seg_import *arg)
{
	struct ubfab_entity *exporter;
	struct ubfab_import *imp;
	int ret;

	if (!arg->rights || arg->rights & ~UBFAB_SEG_RIGHTS ||
	    arg->__reserved)
		return -EINVAL;
	exporter = ubfab_entity_find(file->entity->fabric, arg->eid);
	if (!exporter)
		return -ENODEV;

	imp = kzalloc(sizeof(*imp), GFP_KERNEL);
	if (!imp)
		return -ENOMEM;
	INIT_LIST_HEAD(&imp->seg_node);
	imp->file = file;
	imp->rights = arg->rights;
	ret = ida_alloc_max(&file->entity->import_ids, UBFAB_MAX_IMPORTS - 1,
			    GFP_KERNEL);
	if (ret < 0)
		goto err_free_imp;
	imp->id = ret;

	mutex_lock(&file->imports_lock);
	ret = xa_insert(&file->imports, imp->id, imp, GFP_KERNEL);
	if (ret)
		goto err_unlock_imports;

	down_write(&exporter->mem_lock);
	ret = ubfab_seg_link(imp, exporter, arg);
	up_write(&exporter->mem_lock);
	if (ret)
		goto err_erase;
	mutex_unlock(&file->imports_lock);

	arg->length = (u64)imp->win->npages << PAGE_SHIFT;
	arg->mmap_offset = ubfab_import_offset(imp->id);
	return 0;

err_erase:
	xa_erase(&file->imports, imp->id);
err_unlock_imports:
	mutex_unlock(&file->imports_lock);
	ida_free(&file->entity->import_ids, imp->id);
err_free_imp:
	kfree(imp);
	return ret;
}

/* Unlink from the segment, unmap, and free. The import is off @imports. */
static void ubfab_import_destroy(struct ubfab_import *imp)
{
	struct ubfab_entity *exporter = imp->seg->owner;

	down_write(&exporter->mem_lock);
	if (!list_empty(&imp->seg_node)) {
		list_del_init(&imp->seg_node);
		imp->seg->nr_imports--;
	}
	if (!imp->win->revoked)
		ubfab_window_revoke(imp->win, imp->file->mapping);
	up_write(&exporter->mem_lock);

	ida_free(&imp->file->entity->import_ids, imp->id);
	ubfab_window_put(imp->win);
	ubfab_seg_put(imp->seg);
	kfree(imp);
}

/* The window number of an import's mmap offset, or -1. */
static long ubfab_import_id(u64 offset)
{
	if (offset < UBFAB_IMPORT_BASE || offset % UBFAB_MAX_MEM)
		return -1;
	offset = (offset - UBFAB_IMPORT_BASE) / UBFAB_MAX_MEM;
	return offset < UBFAB_MAX_IMPORTS ? offset : -1;
}

/**
 * ubfab_import_get() - what the data path needs of one of a file's imports
 * @file: the importer
 * @base: the import's address as queue entries name it, its mmap offset
 * @ref: out: the import's window (referenced for the caller), range,
 *	rights and the generation they were read under
 *
 * Return: false when @file has no import at @base.
 */
bool ubfab_import_get(struct ubfab_file *file, u64 base,
		      struct ubfab_import_ref *ref)
{
	long id = ubfab_import_id(base);
	struct ubfab_import *imp;

	if (id < 0)
		return false;
	mutex_lock(&file->imports_lock);
	imp = xa_load(&file->imports, id);
	if (imp) {
		/* the caller's reference: the window outlives the import */
		kref_get(&imp->win->ref);
		*ref = (struct ubfab_import_ref) {
			.win = imp->win,
			.size = (u64)imp->win->npages << PAGE_SHIFT,
			.addr = (u64)imp->win->first << PAGE_SHIFT,
			.rights = imp->rights,
			.gen = file->imports_gen,
		};
	}
	mutex_unlock(&file->imports_lock);
	return imp;
}

/**
 * ubfab_seg_unimport() - drop an import of this file
 * @file: the importer
 * @mmap_offset: as UBFAB_IOCTL_SEG_IMPORT returned it
 *
 * Return: 0, or -ENOENT when @file has no such import.
 */
int ubfab_seg_unimport(struct ubfab_file *file, u64 mmap_offset)
{
	long id = ubfab_import_id(mmap_offset);
	struct ubfab_import *imp = NULL;

	if (id >= 0) {
		mutex_lock(&file->imports_lock);
		imp = xa_erase(&file->imports, id);
		/* queues' translation caches forget it */
		if (imp)
			WRITE_ONCE(file->imports_gen, file->imports_gen + 1);
		mutex_unlock(&file->imports_lock);
	}
	if (!imp)
		return -ENOENT;
	ubfab_import_destroy(imp);
	return 0;
}

/* Drop every import of a closing file. */
void ubfab_seg_drop_imports(struct ubfab_file *file)
{
	struct ubfab_import *imp;
	unsigned long id;

	xa_for_each(&file->imports, id, imp) {
		xa_erase(&file->imports, id);
		ubfab_import_destroy(imp);
	}
}

/**
 * ubfab_seg_mmap() - map one of the file's imports
 * @file: the importer
 * @vma: offset at or above UBFAB_IMPORT_BASE
 *
 * Return: 0; -EINVAL for an offset that is no import of @file or a range
 * beyond the segment; -EACCES for an import without UBFAB_SEG_READ or a
 * writable mapping without UBFAB_SEG_WRITE; -ENODEV once revoked.
 */
int ubfab_seg_mmap(struct ubfab_file *file, struct vm_area_struct *vma)
{
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	long id = ubfab_import_id(offset & ~(UBFAB_MAX_MEM - 1));
	pgoff_t rel = vma->vm_pgoff & (UBFAB_IMPORT_PAGES - 1);
	struct ubfab_window *win;
	struct ubfab_import *imp;
	int ret = -EINVAL;

	if (id < 0)
		return -EINVAL;
	mutex_lock(&file->imports_lock);
	imp = xa_load(&file->imports, id);
	if (!imp)
		goto out_unlock;
	win = imp->win;
	if (rel >= win->npages || vma_pages(vma) > win->npages - rel)
		goto out_unlock;
	if (!(imp->rights & UBFAB_SEG_READ)) {
		ret = -EACCES;
		goto out_unlock;
	}
	down_read(&win->owner->mem_lock);
	ret = ubfab_mem_map_window(vma, win);
	up_read(&win->owner->mem_lock);
out_unlock:
	mutex_unlock(&file->imports_lock);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's memory family: the entity device's ioctls, raw (random and
 * boundary command numbers, which the driver must refuse with ENOTTY) and
 * typed (allocate, free, export, unexport, import, unimport, each built
 * from what this process made and what other workers published, with the
 * size-prefix and field defects the ABI documents; ioctl.c runs them);
 * mmap of allocations and imports and of random offsets, lengths,
 * protections and flags; touching, mprotect, madvise and munmap of what is
 * mapped.
 *
 * Typed requests draw their choices when generated and are built from the
 * records when they run, so the sequence stays a function of the seed.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "family.h"
#include "ioctl.h"

#ifndef MAP_UNINITIALIZED
#define MAP_UNINITIALIZED	0x4000000
#endif
#define PROT_SEM		0x8

/* ------------------------------------------------------------------ */
/* Typed ioctls */
/* Typed ioctls */

/* The n-th (modulo their number) mapping made, or NULL. */
static struct map_rec *find_map(struct worker *w, uint64_t n)
{
	unsigned int i, count = 0;

	for (i = 0; i < FUZZ_RECS; i++)
		count += w->maps[i].addr != NULL;
	if (!count)
		return NULL;
	n %= count;
	for (i = 0; i < FUZZ_RECS; i++) {
		if (w->maps[i].addr && !n--)
			break;
	}
	return &w->maps[i];
}

/* Records what a file made, over the oldest record. */
static void remember(struct worker *w, struct mem_rec *recs,
		     const struct slot *s, uint64_t offset, uint64_t length,
		     uint32_t rights)
{
	struct mem_rec *r = &recs[w->next_rec++ % FUZZ_RECS];

	r->file = s->file;
	r->rights = rights;
	r->offset = offset;
	r->length = length;
}

/* Drops the records of what a file undid. */
static void forget(struct mem_rec *recs, const struct slot *s,
		   uint64_t offset)
{
	unsigned int i;

	for (i = 0; i < FUZZ_RECS; i++) {
		if (recs[i].file == s->file && recs[i].offset == offset)
			recs[i].length = 0;
	}
}

static uint64_t mem_size(const struct worker *w, const struct slot *s)
{
	return w->model->entities[s->eid].mem_size;
}

/* a[3]: which variant; a[4], a[5]: values. Below 8: well formed. */
static void alloc_build(struct worker *w, const struct slot *s,
			const struct op *op, void *argp, int *set)
{
	struct ubfab_mem_alloc *a = argp;
	uint64_t mem = mem_size(w, s);

	a->length = PAGE * (1 + op->a[4] % 16);
	SET(set, FUZZ_OK, ENOSPC, ENOMEM);
	switch (op->a[3] % 12) {
	case 8:
		a->flags = 1U << (op->a[4] % 32);
		SET(set, EINVAL);
		break;
	case 9:
		a->length = op->a[4] % 2 ? 0 : 1 + op->a[4] % (PAGE - 1);
		SET(set, EINVAL);
		break;
	case 10:
		a->length = mem + PAGE * (1 + op->a[4] % 4);
		SET(set, ENOSPC);
		break;
	case 11:
		a->length = mem;	/* the whole memory, if it is free */
		break;
	default:
		break;
	}
}

static void alloc_done(struct worker *w, const struct slot *s,
		       const void *argp)
{
	const struct ubfab_mem_alloc *a = argp;

	if (a->offset % PAGE || a->offset + a->length > mem_size(w, s) ||
	    a->offset + a->length < a->offset)
		fuzz_fail(w, "MEM_ALLOC of %llu bytes at %#llx",
			  (unsigned long long)a->length,
			  (unsigned long long)a->offset);
	else
		remember(w, w->allocs, s, a->offset, a->length, 0);
}

static void free_build(struct worker *w, const struct slot *s,
		       const struct op *op, void *argp, int *set)
{
	const struct mem_rec *r = find_rec(w->allocs, s->file, op->a[4]);
	struct ubfab_mem_free *a = argp;

	a->offset = r ? r->offset : op->a[5] % 64 * PAGE;
	SET(set, FUZZ_OK, ENOENT);
	switch (op->a[3] % 10) {
	case 8:
		a->flags = 1 + op->a[5] % 0xffff;
		SET(set, EINVAL);
		break;
	case 9:
		a->offset += 1 + op->a[5] % (PAGE - 1);
		SET(set, ENOENT);
		break;
	default:
		break;
	}
}

static void free_done(struct worker *w, const struct slot *s,
		      const void *argp)
{
	const struct ubfab_mem_free *a = argp;

	forget(w->allocs, s, a->offset);
}

static void export_build(struct worker *w, const struct slot *s,
			 const struct op *op, void *argp, int *set)
{
	const struct mem_rec *r = find_rec(w->allocs, s->file, op->a[4]);
	struct ubfab_seg_export *a = argp;
	uint64_t pages = r ? r->length / PAGE : 1, first;

	first = op->a[5] % pages;
	a->offset = (r ? r->offset : 0) + first * PAGE;
	a->length = (1 + (op->a[5] >> 32) % (pages - first)) * PAGE;
	a->rights = 1 + op->a[4] % UBFAB_SEG_RIGHTS;
	a->token_value = op->a[5] >> 16;
	/* A stale record or none: the range may be no allocation. */
	SET(set, FUZZ_OK, EINVAL, ENOSPC, ENOMEM);
	switch (op->a[3] % 14) {
	case 8:
		a->rights = op->a[4] % 2 ? 0 : a->rights | 8 << op->a[4] % 28;
		SET(set, EINVAL);
		break;
	case 9:
		a->length = op->a[4] % 2 ? 0 : a->length - 1;
		SET(set, EINVAL);
		break;
	case 10:
		a->offset += 1 + op->a[4] % (PAGE - 1);
		SET(set, EINVAL);
		break;
	case 11:
		a->offset = mem_size(w, s) + op->a[4] % 4 * PAGE;
		SET(set, EINVAL);
		break;
	case 12:
		/*
		 * One page past the end of the allocation, as recorded: it
		 * may since have been freed and a longer one made there.
		 */
		a->length = (pages - first + 1) * PAGE;
		break;
	default:
		break;
	}
}

static void export_done(struct worker *w, const struct slot *s,
			const void *argp)
{
	const struct ubfab_seg_export *a = argp;
	struct board_rec *b = &fuzz_board[(w->index * FUZZ_RECS +
					   a->token_id % FUZZ_RECS) %
					  FUZZ_BOARD];

	if (!a->token_id || a->token_id > UBFAB_TOKEN_ID_MAX) {
		fuzz_fail(w, "SEG_EXPORT returned token id %u", a->token_id);
		return;
	}
	remember(w, w->exports, s, a->token_id, a->length, a->rights);
	b->eid = s->eid;
	b->token_id = a->token_id;
	b->value = a->token_value;
	b->rights = a->rights;
	b->length = a->length;
}

static void unexport_build(struct worker *w, const struct slot *s,
			   const struct op *op, void *argp, int *set)
{
	const struct mem_rec *r = find_rec(w->exports, s->file, op->a[4]);
	struct ubfab_seg_unexport *a = argp;

	/* Ours, or any: small ids are likely someone's. */
	a->token_id = r ? r->offset :
		      op->a[5] % 2 ? op->a[5] % 64 : (uint32_t)op->a[5];
	SET(set, FUZZ_OK, ENOENT);
}

static void unexport_done(struct worker *w, const struct slot *s,
			  const void *argp)
{
	const struct ubfab_seg_unexport *a = argp;

	forget(w->exports, s, a->token_id);
}

static void import_build(struct worker *w, const struct slot *s,
			 const struct op *op, void *argp, int *set)
{
	const struct board_rec *b = &fuzz_board[op->a[4] % FUZZ_BOARD];
	struct ubfab_seg_import *a = argp;
	uint32_t granted = b->rights;

	a->eid = b->eid;
	a->token_id = b->token_id;
	a->token_value = b->value;
	/* Rights it was granted, or some; none published: any. */
	a->rights = granted ? granted & (1 + op->a[5] % UBFAB_SEG_RIGHTS) :
			      1 + op->a[5] % UBFAB_SEG_RIGHTS;
	if (!a->rights)
		a->rights = granted;
	/* The segment may be gone, or its id taken by another since. */
	SET(set, FUZZ_OK, ENOENT, EACCES, ENOSPC, ENOMEM);
	switch (op->a[3] % 15) {
	case 8:
		a->rights = op->a[5] % 2 ? 0 : a->rights | 8 << op->a[5] % 28;
		SET(set, EINVAL);
		break;
	case 9:
		a->__reserved = 1 + op->a[5] % 0xffff;
		SET(set, EINVAL);
		break;
	case 10:
		a->eid = w->model->nr_entities + op->a[5] % 3;
		SET(set, ENODEV);
		break;
	case 11:
		a->token_value ^= 1 + op->a[5] % 0xffffffffU;
		SET(set, EACCES, ENOENT, ENOSPC, ENOMEM);
		break;
	case 12:
		a->rights = UBFAB_SEG_RIGHTS;
		break;
	case 13:
		a->token_id = op->a[5] % 2 ? 0 : UBFAB_TOKEN_ID_MAX + 1;
		SET(set, ENOENT, ENOSPC, ENOMEM);
		break;
	default:
		break;
	}
}

static void import_done(struct worker *w, const struct slot *s,
			const void *argp)
{
	const struct ubfab_seg_import *a = argp;

	if (!a->length || a->length % PAGE || a->mmap_offset % PAGE)
		fuzz_fail(w, "SEG_IMPORT: %llu bytes at mmap offset %#llx",
			  (unsigned long long)a->length,
			  (unsigned long long)a->mmap_offset);
	else
		remember(w, w->imports, s, a->mmap_offset, a->length,
			 a->rights);
}

static void unimport_build(struct worker *w, const struct slot *s,
			   const struct op *op, void *argp, int *set)
{
	const struct mem_rec *r = find_rec(w->imports, s->file, op->a[4]);
	struct ubfab_seg_unimport *a = argp;

	a->mmap_offset = r ? r->offset : op->a[5];
	SET(set, FUZZ_OK, ENOENT);
	if (op->a[3] % 10 == 8) {
		a->__reserved = 1 + op->a[5] % 0xffff;
		SET(set, EINVAL);
	}
}

static void unimport_done(struct worker *w, const struct slot *s,
			  const void *argp)
{
	const struct ubfab_seg_unimport *a = argp;

	forget(w->imports, s, a->mmap_offset);
}

/* Weighted: what others build on comes more often. */
static const struct fuzz_ioctl mem_ioctls[] = {
	FUZZ_IOCTL("MEM_ALLOC", UBFAB_IOCTL_MEM_ALLOC, ubfab_mem_alloc, offset,
		   3, 0, alloc_build, alloc_done),
	FUZZ_IOCTL("MEM_FREE", UBFAB_IOCTL_MEM_FREE, ubfab_mem_free, offset,
		   1, offsetof(struct worker, allocs), free_build, free_done),
	FUZZ_IOCTL("SEG_EXPORT", UBFAB_IOCTL_SEG_EXPORT, ubfab_seg_export,
		   token_id, 2, offsetof(struct worker, allocs), export_build,
		   export_done),
	FUZZ_IOCTL("SEG_UNEXPORT", UBFAB_IOCTL_SEG_UNEXPORT,
		   ubfab_seg_unexport, token_id, 1,
		   offsetof(struct worker, exports), unexport_build,
		   unexport_done),
	FUZZ_IOCTL("SEG_IMPORT", UBFAB_IOCTL_SEG_IMPORT, ubfab_seg_import,
		   mmap_offset, 3, 0, import_build, import_done),
	FUZZ_IOCTL("SEG_UNIMPORT", UBFAB_IOCTL_SEG_UNIMPORT,
		   ubfab_seg_unimport, mmap_offset, 1,
		   offsetof(struct worker, imports), unimport_build,
		   unimport_done),
};

/*
 * ioctl: a[0] command; a[1] argument kind (raw, modulo NR_ARGS) or size
 * defect (typed);
 * a[2] small argument value; a[3]-a[5] a typed command's draws.
 */
static void gen_ioctl(struct rng *r, const struct fuzz_model *m,
		      struct op *op)
{
	static const unsigned int sizes[] = {
		0, 1, 4, 8, 16, 24, 32, 64, 255, 4096, 0x3fff,
	};
	static const unsigned int edges[] = {
		0, 1, 0x7fffffff, 0x80000000, 0xffffffff,
	};
	static const unsigned int generic[] = {
		FIOCLEX, FIONCLEX, FIONBIO, FIONREAD, FIOQSIZE, FIOASYNC,
	};
	unsigned int cmd, type, i;
	bool safe = false;

	switch (rng_below(r, 20)) {
	case 0 ... 4:
		cmd = rng_next(r);
		break;
	case 5:
		cmd = rng_pick(r, edges);
		break;
	case 6 ... 7:
		cmd = rng_pick(r, generic);
		safe = true;
		break;
	case 8 ... 9:
		type = rng_chance(r, 50) ? UBFAB_IOCTL_TYPE : rng_below(r, 256);
		cmd = _IOC(rng_below(r, 4), type, rng_below(r, 256),
			   rng_pick(r, sizes));
		break;
	default:
		/* A typed command of any family. */
		cmd = fuzz_ioctl_pick(r);
		break;
	}
	/* Leave the VFS's other commands (FIFREEZE, FS_IOC_SETFLAGS...) alone. */
	if (!safe && vfs_ioctl_cmd(cmd))
		cmd = _IO('U', cmd & 0xff);
	op->a[0] = cmd;
	op->a[1] = rng_below(r, 32);
	op->a[2] = rng_below(r, 3);
	for (i = 3; i < 6; i++)
		op->a[i] = rng_next(r);
}

/* ioctl (gen_ioctl()), through a file that made what the command is about. */
static void run_ioctl(struct worker *w, const struct op *op)
{
	const struct slot *s = &w->slots[op->slot];
	unsigned int cmd = op->a[0];
	const struct fuzz_ioctl *typed = fuzz_ioctl_find(cmd);

	/* Mostly through a file that made something of the kind. */
	if (typed && typed->recs && op->a[3] / 64 % 4)
		s = rec_slot(w, (const struct mem_rec *)((const char *)w +
							 typed->recs),
			     op->a[4], s);
	/* Now and then memory or an import for a queue's entries. */
	if ((cmd == UBFAB_IOCTL_MEM_ALLOC || cmd == UBFAB_IOCTL_SEG_IMPORT) &&
	    op->a[3] / 64 % 3 == 0)
		s = queue_file_slot(w, op->a[4], s);
	fuzz_ioctl_run(w, s, op);
}

/* ------------------------------------------------------------------ */
/* Mappings */

/* The longest mapping made to be used: each page may get filled. */
#define MAP_PAGES	16

/* How an mmap finds its address: a[4]. */
enum { ADDR_ANY, ADDR_FIXED, ADDR_NOREPLACE };

/*
 * mmap: a[6] % 4 == 0 raw, with a[0] length, a[1] offset, a[2] prot,
 * a[3] flags, a[4] address, a[5] its offset in the scratch region; else of
 * a record: a[6] / 4 which one, a[7] the range and protection.
 */
static void gen_mmap(struct rng *r, const struct fuzz_model *m, struct op *op)
{
	const uint64_t mem = m->entities[0].mem_size;
	const uint64_t lens[] = {
		0, 1, PAGE - 1, PAGE, PAGE + 1, 2 * PAGE, 1 << 20, 1ULL << 30,
		mem, mem + PAGE, 1ULL << 47, UINT64_MAX, UINT64_MAX - PAGE + 2,
	};
	const uint64_t offs[] = {
		0, 1, PAGE - 1, PAGE, 16 * PAGE, mem, mem - PAGE, mem + PAGE,
		1ULL << 40, 1ULL << 48, (1ULL << 63) - PAGE, -PAGE,
		UINT64_MAX & ~(PAGE - 1),
	};
	static const int types[] = {
		MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE, 0,
		MAP_SHARED | MAP_PRIVATE, 0x08, 0x0f,
	};
	static const int extra[] = {
		MAP_POPULATE, MAP_NORESERVE, MAP_LOCKED, MAP_HUGETLB,
		MAP_GROWSDOWN, MAP_32BIT, MAP_SYNC, MAP_NONBLOCK,
		MAP_UNINITIALIZED, MAP_DENYWRITE, MAP_EXECUTABLE, 0x01000000,
	};
	uint64_t flags;
	int i;

	op->a[0] = rng_chance(r, 20) ? rng_next(r) : rng_pick(r, lens);
	op->a[1] = rng_chance(r, 10) ? rng_next(r) : rng_pick(r, offs);
	op->a[2] = rng_below(r, 8);
	if (rng_chance(r, 5))
		op->a[2] |= rng_chance(r, 50) ? PROT_SEM :
			    1ULL << rng_below(r, 32);
	flags = rng_pick(r, types);
	for (i = rng_below(r, 3); i > 0; i--)
		flags |= rng_pick(r, extra);
	if (rng_chance(r, 5)) {
		/* Small: MAP_POPULATE and MAP_LOCKED would fill it. */
		flags = (flags | MAP_ANONYMOUS) & ~MAP_HUGETLB;
		op->a[0] = rng_below(r, 16 * PAGE);
	}
	/* Filling a long mapping of a whole allocation fills the memory. */
	if (op->a[0] > MAP_PAGES * PAGE)
		flags &= ~(MAP_POPULATE | MAP_LOCKED);
	op->a[4] = rng_chance(r, 80) ? ADDR_ANY : rng_below(r, 3);
	if (op->a[4] != ADDR_ANY) {
		/* Only ever inside the scratch region. */
		op->a[5] = rng_below(r, SCRATCH_PAGES / 2) * PAGE;
		op->a[0] = rng_below(r, SCRATCH_LEN / 2) + 1;
		flags |= op->a[4] == ADDR_FIXED ? MAP_FIXED :
						  MAP_FIXED_NOREPLACE;
	}
	op->a[3] = flags;
	op->a[6] = rng_next(r);
	op->a[7] = rng_next(r);
}

static void restore_scratch(struct worker *w)
{
	if (mmap(w->scratch, SCRATCH_LEN, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		fuzz_fail(w, "cannot restore the scratch region: %s",
			  strerrorname_np(errno));
}

/*
 * What a raw mmap() of slot s may give, per mm/mmap.c and the driver: an
 * errno set, FUZZ_OK in it when it may map something.
 */
static const int *mmap_expect(const struct slot *s, uint64_t len,
			      uint64_t off, int prot, int flags, uint64_t addr)
{
	static const int inval[] = { EINVAL, 0 }, badf[] = { EBADF, 0 },
		nomem[] = { ENOMEM, 0 }, overflow[] = { EOVERFLOW, 0 },
		acces[] = { EACCES, 0 }, private[] = { EINVAL, ENOMEM, 0 },
		driver[] = { FUZZ_OK, EINVAL, EACCES, ENODEV, 0 },
		anon[] = { FUZZ_OK, EINVAL, ENOMEM, EEXIST, EOPNOTSUPP, EPERM,
			   EAGAIN, EOVERFLOW, 0 },
		any[] = { FUZZ_OK, EINVAL, ENOMEM, EEXIST, EOPNOTSUPP, EPERM,
			  EAGAIN, EOVERFLOW, EACCES, ENODEV, 0 };
	const int legacy = MAP_POPULATE | MAP_NORESERVE | MAP_LOCKED |
			   MAP_NONBLOCK | MAP_DENYWRITE | MAP_EXECUTABLE;
	int type = flags & MAP_TYPE;

	if (off & (PAGE - 1))
		return inval;
	if (flags & MAP_ANONYMOUS)
		return anon;
	if (s->kind != SLOT_DEV)
		return badf;
	if ((flags & MAP_HUGETLB) || !len)
		return inval;
	if (len > UINT64_MAX - PAGE + 1)
		return nomem;
	if (off / PAGE + (len + PAGE - 1) / PAGE < off / PAGE)
		return overflow;
	if (addr != ADDR_ANY || len > 1ULL << 40 || off > 1ULL << 50 ||
	    (prot & ~(PROT_READ | PROT_WRITE)) || (flags & ~(type | legacy)) ||
	    (type != MAP_SHARED && type != MAP_PRIVATE &&
	     type != MAP_SHARED_VALIDATE))
		return any;
	if (type != MAP_PRIVATE && (prot & PROT_WRITE) && !slot_writable(s))
		return acces;
	if (!slot_readable(s))
		return acces;
	/*
	 * The driver maps only shared, only what this file allocated; a
	 * private writable mapping is charged to the commit limit first.
	 */
	return type == MAP_PRIVATE ? private : driver;
}

/*
 * Maps a range of an allocation or import record (a[6], a[7]); false when
 * there is none to map.
 */
static bool run_mmap_record(struct worker *w, const struct slot *s,
			    const struct op *op)
{
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE, PROT_NONE,
	};
	static const int driver[] = { FUZZ_OK, EINVAL, EACCES, ENODEV, 0 };
	static const int acces[] = { EACCES, 0 };
	/* Private and writable is charged to the commit limit first. */
	static const int private_set[] = { EINVAL, ENOMEM, 0 };
	const struct mem_rec *ar = NULL, *ir = NULL;
	const int *set = driver;
	struct map_rec *m = &w->maps[op->a[7] % FUZZ_RECS];
	uint64_t off, len, pages, first;
	int prot = prots[op->a[7] / 8 % 4];
	bool private = op->a[7] / 32 % 10 == 0;
	void *p;

	/* Through a file that has the kind of record, if any does. */
	s = rec_slot(w, op->a[6] / 4 % 2 ? w->allocs : w->imports, op->a[6] / 8,
		     s);
	if (s->kind != SLOT_DEV)
		return false;
	if (op->a[6] / 4 % 2)
		ar = find_rec(w->allocs, s->file, op->a[6] / 8);
	else
		ir = find_rec(w->imports, s->file, op->a[6] / 8);
	if (!ar && !ir)
		return false;
	off = ar ? ar->offset : ir->offset;
	pages = (ar ? ar->length : ir->length) / PAGE;
	first = op->a[7] / 512 % pages;
	/* At most MAP_PAGES: madvise(MADV_POPULATE_*) fills all of it. */
	len = (1 + op->a[7] / 8192 % (pages - first < MAP_PAGES ?
				      pages - first : MAP_PAGES)) * PAGE;
	if (op->a[7] / 32 % 10 == 1)
		len += PAGE;	/* one page too many */
	/* The VFS checks the file's mode; the driver wants MAP_SHARED. */
	if (!slot_readable(s) ||
	    (!private && (prot & PROT_WRITE) && !slot_writable(s)))
		set = acces;
	else if (private)
		set = private_set;
	if (m->addr)
		munmap(m->addr, m->len);
	m->addr = NULL;
	p = mmap(NULL, len, prot, private ? MAP_PRIVATE : MAP_SHARED, s->fd,
		 off + first * PAGE);
	if (!fuzz_expect_set(w, "mmap", p == MAP_FAILED ? -1 : 0, errno,
			     set) || p == MAP_FAILED) {
		if (p != MAP_FAILED)
			munmap(p, len);
		return true;
	}
	m->addr = p;
	m->len = len;
	m->prot = prot;
	return true;
}

static void run_mmap(struct worker *w, const struct op *op)
{
	const struct slot *s = &w->slots[op->slot];
	uint64_t len = op->a[0], off = op->a[1];
	int prot = op->a[2], flags = op->a[3];
	void *addr = NULL, *p;

	if (op->a[6] % 4 && run_mmap_record(w, s, op))
		return;
	if (!(flags & MAP_ANONYMOUS) && s->kind == SLOT_NL)
		return fuzz_skip(w);
	if (op->a[4] != ADDR_ANY)
		addr = (char *)w->scratch + op->a[5];
	p = mmap(addr, len, prot, flags, slot_fd(s), off);
	fuzz_expect_set(w, "mmap", p == MAP_FAILED ? -1 : 0, errno,
			mmap_expect(s, len, off, prot, flags, op->a[4]));
	if (p != MAP_FAILED)
		munmap(p, len);
	if (addr)
		restore_scratch(w);
}

/*
 * munmap: a[0] % 4 == 0 (or no mapping recorded) a range of the scratch
 * region (a[1] offset, a[2] length, a[3] alignment); else mapping a[4]:
 * all of it, its first page or its last (a[5]).
 */
static void run_munmap(struct worker *w, const struct op *op)
{
	struct map_rec *m = find_map(w, op->a[4]);
	uint64_t off = op->a[1] % SCRATCH_LEN, len;
	int ret;

	if (op->a[0] % 4 && m) {
		switch (op->a[5] % 3) {
		case 0:
			ret = munmap(m->addr, m->len);
			m->len = 0;
			break;
		case 1:
			ret = munmap(m->addr, PAGE);
			m->addr += PAGE;
			m->len -= PAGE;
			break;
		default:
			ret = munmap(m->addr + m->len - PAGE, PAGE);
			m->len -= PAGE;
			break;
		}
		if (!m->len)
			m->addr = NULL;
		fuzz_expect(w, "munmap", ret, errno, 0);
		return;
	}
	if (op->a[3] % 4)
		off &= ~(PAGE - 1);
	len = op->a[2] % (SCRATCH_LEN - (off & ~(PAGE - 1)) + 1);
	ret = munmap((char *)w->scratch + off, len);
	fuzz_expect(w, "munmap", ret, errno,
		    (off & (PAGE - 1)) || !len ? EINVAL : 0);
	restore_scratch(w);
}

static sigjmp_buf touch_env;
static volatile sig_atomic_t touching;

static void on_fault(int sig)
{
	if (touching)
		siglongjmp(touch_env, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Makes SIGBUS and SIGSEGV of touched mappings catchable. */
static void mem_worker_init(struct worker *w)
{
	signal(SIGBUS, on_fault);
	signal(SIGSEGV, on_fault);
}

/*
 * Loads from or stores to (a[3] & 1, where the protection allows) a byte
 * of mapping a[0], page a[1], offset a[2]: it works, or gets SIGBUS when
 * the window was revoked, never anything else.
 */
static void run_touch(struct worker *w, const struct op *op)
{
	const struct map_rec *m = find_map(w, op->a[0]);
	volatile uint8_t *p;
	bool store;
	int sig;

	if (!m || !(m->prot & (PROT_READ | PROT_WRITE)))
		return fuzz_skip(w);
	p = m->addr + op->a[1] % (m->len / PAGE) * PAGE + op->a[2] % PAGE;
	store = (op->a[3] & 1) && (m->prot & PROT_WRITE);
	touching = 1;
	sig = sigsetjmp(touch_env, 1);
	if (!sig) {
		if (store)
			*p = op->a[4];
		else
			(void)*p;
	}
	touching = 0;
	if (sig == SIGBUS)
		fuzz_count(w, FUZZ_SIGBUS);
	else if (sig)
		fuzz_fail(w, "signal %d on a %s of a mapping (prot %d)", sig,
			  store ? "store" : "load", m->prot);
	else
		fuzz_count(w, 0);
}

/* mprotect (a[1] % 4 < 3) or madvise of mapping a[0]; a[2] what to. */
static void run_mprotect(struct worker *w, const struct op *op)
{
	static const int prots[] = {
		PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE,
	};
	static const int advice[] = {
		MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED,
		MADV_DONTNEED, MADV_REMOVE, MADV_COLD, MADV_PAGEOUT,
		MADV_POPULATE_READ, MADV_POPULATE_WRITE, MADV_DONTDUMP,
		MADV_DODUMP,
	};
	static const int protect[] = { FUZZ_OK, EACCES, 0 };
	/*
	 * MADV_REMOVE: fallocate() of a character device, ENODEV. ENOSYS:
	 * a kernel without CONFIG_ADVISE_SYSCALLS (the debug kernel).
	 */
	static const int advise[] = { FUZZ_OK, EINVAL, EOPNOTSUPP, EFAULT,
				      ENOMEM, EPERM, EAGAIN, EACCES, ENODEV,
				      ENOSYS, 0 };
	struct map_rec *m = find_map(w, op->a[0]);
	int prot = prots[op->a[2] % 4], ret;

	if (!m)
		return fuzz_skip(w);
	if (op->a[1] % 4 == 3) {
		ret = madvise(m->addr, m->len,
			      advice[op->a[2] % ARRAY_SIZE(advice)]);
		fuzz_expect_set(w, "madvise", ret, errno, advise);
		return;
	}
	ret = mprotect(m->addr, m->len, prot);
	if (fuzz_expect_set(w, "mprotect", ret, errno, protect) && !ret)
		m->prot = prot;
}

/* ------------------------------------------------------------------ */
/* Events */

static const struct fuzz_op_type mem_ops[] = {
	FUZZ_OP("ioctl", 20, gen_ioctl, run_ioctl),
	FUZZ_OP("mmap", 8, gen_mmap, run_mmap),
	FUZZ_OP("munmap", 3, NULL, run_munmap),
	FUZZ_OP("touch", 6, NULL, run_touch),
	FUZZ_OP("mprotect", 2, NULL, run_mprotect),
};

const struct fuzz_family fuzz_mem_family = {
	.name = "memory, segments and mappings",
	.ops = mem_ops,
	.nr_ops = ARRAY_SIZE(mem_ops),
	.ioctls = mem_ioctls,
	.nr_ioctls = ARRAY_SIZE(mem_ioctls),
	.worker_init = mem_worker_init,
};

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libubshmem's symmetric heap: the allocator of its blocks (first fit
 * over a sorted list, the same in every PE since every PE makes the same
 * calls), the collective ubshmem_malloc() and ubshmem_free() (which zero
 * only what was handed out before: the rest of the heap is fresh entity
 * memory, zero and unallocated until touched), and
 * ubshmem_ptr(), which maps a peer's heap for loads and stores.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

int shm_heap_init(struct shm_state *s)
{
	s->blocks = malloc(sizeof(*s->blocks));
	if (!s->blocks)
		return -ENOMEM;
	s->blocks[0] = (struct shm_block){ SHM_RESERVED(s->n),
		s->heap_len - SHM_RESERVED(s->n), 0 };
	s->nblocks = 1;
	s->untouched = SHM_RESERVED(s->n);
	return 0;
}

void shm_heap_unmap_peers(struct shm_state *s)
{
	int pe;

	for (pe = 0; s->maps && pe < s->n; pe++)
		if (s->maps[pe])
			ubfab_unmap(s->maps[pe], s->heap_len);
}

/*
 * The heap offset of [@addr, @addr + @len) when it lies in this PE's
 * heap: 0, else -EINVAL.
 */
int shm_heap_offset(const void *addr, size_t len, uint64_t *off)
{
	const char *p = addr;

	if (!shm || p < shm->heap || p > shm->heap + shm->heap_len ||
	    len > (uint64_t)(shm->heap + shm->heap_len - p))
		return -EINVAL;
	*off = p - shm->heap;
	return 0;
}

/* Block @i of the list becomes @len used bytes and the free rest. */
static int split(struct shm_state *s, size_t i, uint64_t len)
{
	struct shm_block *b;

	if (s->blocks[i].len > len) {
		b = realloc(s->blocks, (s->nblocks + 1) * sizeof(*b));
		if (!b)
			return -ENOMEM;
		s->blocks = b;
		memmove(&b[i + 2], &b[i + 1],
			(s->nblocks - i - 1) * sizeof(*b));
		b[i + 1] = (struct shm_block){ b[i].off + len,
			b[i].len - len, 0 };
		b[i].len = len;
		s->nblocks++;
	}
	s->blocks[i].used = 1;
	return 0;
}

/* Merge free block @i with a free block after it. */
static void merge_next(struct shm_state *s, size_t i)
{
	struct shm_block *b = s->blocks;

	if (i + 1 >= s->nblocks || b[i].used || b[i + 1].used)
		return;
	b[i].len += b[i + 1].len;
	memmove(&b[i + 1], &b[i + 2], (s->nblocks - i - 2) * sizeof(*b));
	s->nblocks--;
}

/* Free the used block at @ptr, if there is one. */
static void release(struct shm_state *s, void *ptr)
{
	uint64_t off;
	size_t i;

	if (!ptr || shm_heap_offset(ptr, 0, &off))
		return;
	for (i = 0; i < s->nblocks; i++) {
		if (s->blocks[i].off != off || !s->blocks[i].used)
			continue;
		s->blocks[i].used = 0;
		merge_next(s, i);
		if (i)
			merge_next(s, i - 1);
		return;
	}
}

void *ubshmem_malloc(size_t size)
{
	uint64_t off, len = (size + SHM_ALIGN - 1) & ~(SHM_ALIGN - 1);
	void *p = NULL;
	size_t i;
	int err = 0;

	if (!shm || !size) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < shm->nblocks; i++) {
		if (shm->blocks[i].used || shm->blocks[i].len < len)
			continue;
		err = split(shm, i, len);
		if (!err) {
			off = shm->blocks[i].off;
			p = shm->heap + off;
			/*
			 * Zero what was handed out before; the entity's pages
			 * beyond are zero until touched, and stay unallocated.
			 */
			if (off < shm->untouched)
				memset(p, 0, (shm->untouched < off + len ?
					      shm->untouched : off + len) - off);
			if (off + len > shm->untouched)
				shm->untouched = off + len;
		}
		break;
	}
	/* the owner has its block zeroed before any peer may write it */
	if (!err && !p)
		err = -ENOMEM;
	if (ubshmem_barrier_all() && p) {
		release(shm, p);
		p = NULL;
		err = -EIO;
	}
	if (!p)
		errno = -err;
	return p;
}

void ubshmem_free(void *ptr)
{
	if (!shm)
		return;
	ubshmem_barrier_all();
	release(shm, ptr);
}

void *ubshmem_ptr(const void *addr, int pe)
{
	uint64_t off;
	void *map;
	int err;

	if (shm_heap_offset(addr, 1, &off) || shm_check_pe(pe)) {
		errno = EINVAL;
		return NULL;
	}
	if (pe == shm->me)
		return (void *)addr;
	if (!shm->maps[pe]) {
		err = ubfab_dev_map(shm->dev, shm->imps[pe].mmap_offset,
				    shm->heap_len, PROT_READ | PROT_WRITE, &map);
		if (err) {
			errno = -err;
			return NULL;
		}
		shm->maps[pe] = map;
	}
	return shm->maps[pe] + off;
}

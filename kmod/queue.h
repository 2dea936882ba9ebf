/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ubfab NPU queues as the rest of the module sees them: creation through
 * an entity file's ioctl, a file's queue state, the engine's workqueue,
 * and the ring index arithmetic. A queue's insides are in engine.h.
 */
#ifndef _UBFAB_QUEUE_H
#define _UBFAB_QUEUE_H

#include <linux/fs.h>
#include <linux/types.h>
#include <linux/ubfab.h>

struct ubfab_file;
struct page;
struct vm_area_struct;

/**
 * struct ubfab_queue_create_cmd - UBFAB_IOCTL_QUEUE_CREATE in flight
 * @arg: the user's argument; first, as the ioctl table copies it in and out
 * @filp: the new queue's file, installed at @arg.fd once @arg is copied out
 */
struct ubfab_queue_create_cmd {
	struct ubfab_queue_create arg;
	struct file *filp;
};

/* engine.c: the module-wide workqueue that runs every queue */
int ubfab_engine_init(void);
void ubfab_engine_fini(void);

/* queue.c */
void ubfab_queue_file_init(struct ubfab_file *file);
void ubfab_queue_file_fini(struct ubfab_file *file);
int ubfab_queue_create(struct ubfab_file *file,
		       struct ubfab_queue_create_cmd *cmd);
void ubfab_queue_create_undo(struct ubfab_queue_create_cmd *cmd);
void ubfab_queue_create_commit(struct ubfab_queue_create_cmd *cmd);
struct ubfab_queue *ubfab_queue_from_file(struct file *filp);
size_t ubfab_ring_layout(struct ubfab_ring_offsets *first, u32 first_entries,
			 size_t first_size, struct ubfab_ring_offsets *second,
			 u32 second_entries, size_t second_size);
int ubfab_ring_alloc(size_t size, struct page ***pages, void **ring);
void ubfab_ring_free(size_t size, struct page **pages, void *ring);
int ubfab_ring_mmap(struct vm_area_struct *vma, size_t size,
		    struct page **pages);
/* Default and largest polling time of an idle UBFAB_QUEUE_POLL queue. */
#define UBFAB_QUEUE_IDLE_US	1000
#define UBFAB_QUEUE_IDLE_US_MAX	1000000
/* Exposed for queue_kunit.c. */
int ubfab_queue_check_create(const struct ubfab_queue_create *arg,
			     u32 *cq_entries, u32 *idle_us);

/*
 * Ring index arithmetic. Indices are free-running u32s that wrap at 2^32;
 * a ring has @entries slots, a power of two, and index i is in slot
 * i & (@entries - 1). A producer's @tail is believable when it is at most
 * @entries ahead of the consumer's @head (else user space wrote garbage);
 * the producer may add an entry while fewer than @entries are pending.
 */
static inline bool ubfab_ring_tail_ok(u32 tail, u32 head, u32 entries)
{
	return tail - head <= entries;
}

static inline bool ubfab_ring_has_room(u32 tail, u32 head, u32 entries)
{
	return tail - head < entries;
}

#endif /* _UBFAB_QUEUE_H */
